//! Opening input files: read-only, memory-mapped, never written; and the
//! logical image of a page_compressed space for the structure commands.

use crate::Outcome;
use ibdscope::pagecomp::{self, Expansion, PageCompErrorKind};
use ibdscope::Tablespace;
use memmap2::Mmap;
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

/// The bytes of one input file.
pub enum Input {
    /// A mapped file, and the threads that may unmap it.
    Mapped(Mmap, usize),
    /// An empty file (a zero-length map is not allowed).
    Empty,
}

impl Input {
    /// The file's bytes.
    pub fn bytes(&self) -> &[u8] {
        match self {
            Input::Mapped(m, _) => m,
            Input::Empty => &[],
        }
    }
}

impl Input {
    /// Drops the mappings of bytes `offset..offset + len` (whole 4 KiB
    /// pages inside it), which a pass has finished with: the kernel keeps
    /// the file's pages in its cache, a later read maps them again, and
    /// the process keeps only the pages it is reading mapped (its RSS stays
    /// flat however big the file), and unmapping at exit finds little.
    pub fn release(&self, offset: usize, len: usize) {
        let Input::Mapped(map, _) = self else {
            return;
        };
        let page = 4096;
        let start = offset.div_ceil(page) * page;
        let end = offset.saturating_add(len).min(map.len()) / page * page;
        if end <= start {
            return;
        }
        // SAFETY: the map is a read-only shared mapping of a file.
        // MADV_DONTNEED on such a mapping only drops page-table entries:
        // the page cache keeps the data, and a later read maps the same
        // file bytes again (it never discards data, as it would for a
        // private writable mapping), so any read after this, even of these
        // bytes, is still valid.
        #[cfg(unix)]
        let _ = unsafe {
            map.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, start, end - start)
        };
    }
}

/// Below this, unmapping on one thread costs less than starting threads.
const PARALLEL_UNMAP_BYTES: usize = 64 << 20;

impl Drop for Input {
    /// Unmapping a big map is serial work in the kernel (one page-table
    /// entry per 4 KiB, about 25 ms per GiB here): drop the entries of
    /// slices of it on several threads first, so `munmap` finds little.
    fn drop(&mut self) {
        let Input::Mapped(map, threads) = &*self else {
            return;
        };
        let len = map.len();
        let threads = (*threads).min(len / PARALLEL_UNMAP_BYTES);
        if threads < 2 {
            return;
        }
        let page = 4096;
        let slice = (len / threads).div_ceil(page) * page;
        let me = &*self;
        std::thread::scope(|s| {
            for k in 0..threads {
                let start = k * slice;
                let part = slice.min(len.saturating_sub(start));
                if part == 0 {
                    break;
                }
                let _ =
                    std::thread::Builder::new().spawn_scoped(s, move || me.release(start, part));
            }
        });
    }
}

/// Why a file could not be read.
#[derive(Debug)]
pub struct OpenError {
    /// The file.
    pub path: PathBuf,
    /// What went wrong.
    pub what: String,
}

impl std::fmt::Display for OpenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.what)
    }
}

/// Opens `path` read-only and maps it; `threads` may unmap it.
pub fn open(path: &Path, threads: usize) -> Result<Input, OpenError> {
    let err = |what: String| OpenError {
        path: path.to_path_buf(),
        what,
    };
    let file = File::open(path).map_err(|e| err(describe(&e)))?;
    let meta = file.metadata().map_err(|e| err(describe(&e)))?;
    if meta.is_dir() {
        return Err(err("is a directory, not a tablespace file".into()));
    }
    if meta.len() == 0 {
        return Ok(Input::Empty);
    }
    // SAFETY: the map is read-only and its bytes are treated as untrusted
    // input: every read is bounds-checked by the library, so any content is
    // safe. What a map cannot guard against is another process truncating
    // the file while we read it, which makes the kernel raise SIGBUS (as
    // ripgrep documents for its own maps in searcher/mmap.rs); tablespace
    // files under inspection are copies or belong to a stopped server, and
    // the risk is the same for every mmap-based reader.
    let map = unsafe { Mmap::map(&file) }.map_err(|e| err(describe(&e)))?;
    #[cfg(unix)]
    let _ = map.advise(memmap2::Advice::Sequential);
    Ok(Input::Mapped(map, threads))
}

/// The logical image of a page_compressed space (MariaDB
/// `PAGE_COMPRESSED=1`), which the structure commands (`extents`,
/// `segments`, `lists`, `indexes`, `fill`, `records`, `rows`, `schema`,
/// `sdi`, `compare` maps) read in place of the file; `None` for every other
/// space. Pages that could not be decompressed are named on stderr with
/// their byte offset (they keep their physical bytes, which the structure
/// code skips as unreadable). `check`, `types`, `pages`, `page`, `lsn`,
/// `info`, `diff` and `audit` read the physical pages.
pub fn expand(path: &Path, ts: &Tablespace<'_>) -> Option<Expansion> {
    if !pagecomp::applies(ts) {
        return None;
    }
    let e = pagecomp::expand(ts);
    const SHOWN: usize = 8;
    for f in e.failures.iter().take(SHOWN) {
        eprintln!("ibdscope: {}: page {}: {}", path.display(), f.page, f.error);
    }
    if let Some(more) = e.failures.len().checked_sub(SHOWN).filter(|&n| n > 0) {
        eprintln!(
            "ibdscope: {}: {more} more page_compressed pages not decompressed",
            path.display()
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
    f: impl FnOnce(&Tablespace<'_>) -> io::Result<Outcome>,
) -> io::Result<Outcome> {
    let Some(e) = expand(path, ts) else {
        return f(ts);
    };
    let outcome = f(&e.tablespace(ts))?;
    Ok(if damaged(&e) {
        outcome.max(Outcome::Findings)
    } else {
        outcome
    })
}

fn describe(e: &io::Error) -> String {
    match e.kind() {
        io::ErrorKind::NotFound => "no such file".into(),
        io::ErrorKind::PermissionDenied => "permission denied".into(),
        _ => e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn big_maps_unmap_on_several_threads_and_stay_readable_until_then() {
        // A sparse file over the threshold: slices unmapped on 3 threads.
        let path = std::env::temp_dir().join(format!("ibdscope-input-{}", std::process::id()));
        let len = 2 * PARALLEL_UNMAP_BYTES as u64 + 12345;
        let f = File::create(&path).expect("scratch file");
        f.set_len(len).expect("set_len");
        drop(f);
        for threads in [1, 3] {
            let input = open(&path, threads).expect("open");
            let bytes = input.bytes();
            assert_eq!(bytes.len() as u64, len);
            let step = 1 << 20;
            assert!(bytes.iter().step_by(step).all(|&b| b == 0));
            drop(input);
        }
        std::fs::remove_file(&path).expect("remove");
    }
}
