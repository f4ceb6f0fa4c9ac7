//! The space the structure commands read: a MariaDB page_compressed
//! space's logical image (every page decompressed in place), else the file
//! itself.

use crate::outcome::Outcome;
use ibdscope::pagecomp::{self, Expansion, PageCompErrorKind};
use ibdscope::{Engine, Tablespace};
use std::io;
use std::path::Path;

/// The logical image of a page_compressed space (MariaDB
/// `PAGE_COMPRESSED=1`), which the structure commands (`extents`,
/// `segments`, `lists`, `indexes`, `fill`, `records`, `rows`, `schema`,
/// `sdi`, `compare` maps) read in place of the file; `None` for every other
/// space. Pages that could not be decompressed are named on stderr with
/// their byte offset (they keep their physical bytes, which the structure
/// code skips as unreadable). `check`, `types`, `pages`, `page`, `lsn`,
/// `info`, `diff` and `audit` read the physical pages. Expands on
/// `engine`.
pub fn expand(path: &Path, ts: &Tablespace<'_>, engine: &Engine<'_>) -> Option<Expansion> {
    if !pagecomp::applies(ts) {
        return None;
    }
    let Some(e) = pagecomp::try_expand(ts, engine) else {
        eprintln!(
            "ibdscope: {}: the logical image of this page_compressed space ({} bytes) could \
             not be allocated; its compressed pages are read as they are stored",
            crate::names::path(path),
            ts.data().len()
        );
        return None;
    };
    const SHOWN: usize = 8;
    for f in e.failures.iter().take(SHOWN) {
        eprintln!(
            "ibdscope: {}: page {}: {}",
            crate::names::path(path),
            f.page,
            f.error
        );
    }
    if let Some(more) = e.failures.len().checked_sub(SHOWN).filter(|&n| n > 0) {
        eprintln!(
            "ibdscope: {}: {more} more page_compressed pages not decompressed",
            crate::names::path(path)
        );
    }
    Some(e)
}

/// Whether some page of `e` failed to decompress because it is damaged
/// (not because its algorithm is not decoded or it is encrypted): a finding.
pub fn damaged(e: &Expansion) -> bool {
    e.failures.iter().any(|f| {
        !matches!(
            f.error.kind,
            PageCompErrorKind::NotDecoded(_) | PageCompErrorKind::Encrypted
        )
    })
}

/// Runs `f` over the space the structure commands read: the logical image
/// of a page_compressed space ([`expand`]), else `ts` itself. A damaged
/// compressed page makes the outcome at least [`Outcome::Findings`].
pub fn with_logical(
    path: &Path,
    ts: &Tablespace<'_>,
    engine: &Engine<'_>,
    f: impl FnOnce(&Tablespace<'_>) -> io::Result<Outcome>,
) -> io::Result<Outcome> {
    let Some(e) = expand(path, ts, engine) else {
        return f(ts);
    };
    let outcome = f(&e.tablespace(ts))?;
    Ok(if damaged(&e) {
        outcome.max(Outcome::Findings)
    } else {
        outcome
    })
}
