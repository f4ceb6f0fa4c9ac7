//! The space the structure commands read: a MariaDB page_compressed
//! space's logical image (every page decompressed in place), a MariaDB
//! encrypted space's decrypted image when `--key-file` holds its key
//! (every encrypted page decrypted, then decompressed), else the file
//! itself. What could not be decompressed or decrypted, and a key that
//! does not open a space, are [`Diagnostic`]s handed back to the caller.

use crate::diagnostic::Diagnostic;
use ibdscope_core::crypt::mariadb::{self, CryptDataRead, Decryption, ImageFailure, KeyFile};
use ibdscope_core::pagecomp::{self, Expansion, PageCompErrorKind};
use ibdscope_core::ErrorKind;
use ibdscope_core::Summary;
use ibdscope_core::{Engine, Tablespace};
use std::path::Path;

/// An image the structure commands read in place of the file.
#[derive(Debug)]
pub enum Logical {
    /// A page_compressed space, decompressed, with the summary of its
    /// stored pages made in the same pass (until taken; each page is
    /// decompressed once for both: [`ibdscope_core::summary::try_expand_with_summary`]).
    Expanded(Expansion, Option<Box<Summary>>),
    /// A MariaDB encrypted space, decrypted (and decompressed), with the
    /// summary of its stored pages made in the same pass (until taken),
    /// and whether it was opened with another key than the one page 0
    /// names (a finding).
    Decrypted(Decryption, Option<Box<Summary>>, bool),
}

impl Logical {
    /// The image as a tablespace, read with `physical`'s detection.
    pub fn tablespace<'b, 'a: 'b>(&'b self, physical: &Tablespace<'a>) -> Tablespace<'b> {
        match self {
            Logical::Expanded(e, _) => e.tablespace(physical),
            Logical::Decrypted(d, ..) => d.tablespace(physical),
        }
    }

    /// The summary of the stored pages, made with the image
    /// ([`ibdscope_core::summary::try_expand_with_summary`],
    /// [`mariadb::try_decrypt_with_summary`]); taken once.
    pub fn take_summary(&mut self) -> Option<Summary> {
        match self {
            Logical::Decrypted(_, s, _) | Logical::Expanded(_, s) => s.take().map(|b| *b),
        }
    }
}

/// The logical image of a page_compressed space (MariaDB
/// `PAGE_COMPRESSED=1`) or of a MariaDB encrypted space whose key
/// `keys` holds, which the structure commands (`extents`, `segments`,
/// `lists`, `indexes`, `fill`, `records`, `rows`, `schema`, `sdi`,
/// `compare` maps) read in place of the file; `None` for every other
/// space. Pages that could not be decompressed or decrypted are named in
/// `diags` with their byte offset (they keep their physical bytes, which
/// the structure code skips as unreadable). `check`, `types`, `pages`,
/// `page`, `lsn`, `info` and `diff` read the physical pages (a MariaDB
/// encrypted page's checksum covers its encrypted bytes); `audit` judges
/// the physical pages and reads their content from this image. Expands
/// on `engine`.
pub fn expand(
    path: &Path,
    ts: &Tablespace<'_>,
    engine: &Engine<'_>,
    keys: Option<&KeyFile>,
    diags: &mut Vec<Diagnostic>,
) -> Option<Logical> {
    if let CryptDataRead::Present(crypt) = mariadb::space_crypt_data(ts) {
        if crypt.scheme == 1 {
            return decrypt(path, ts, engine, keys, &crypt, (true, true), diags)
                .map(|(d, s, renamed)| Logical::Decrypted(d, s.map(Box::new), renamed));
        }
    }
    if !pagecomp::applies(ts) {
        return None;
    }
    let Some((e, summary)) = ibdscope_core::summary::try_expand_with_summary(ts, engine) else {
        diags.push(Diagnostic::new(
            path,
            format_args!(
                "the logical image of this page_compressed space ({} bytes) could not be \
                 allocated; its compressed pages are read as they are stored",
                ts.data().len()
            ),
        ));
        return None;
    };
    let pages = e.failures.iter().map(|f| placed(f.page, &f.error));
    failures(
        path,
        ts.page_size(),
        pages,
        e.failures.len(),
        "page_compressed pages not decompressed",
        diags,
    );
    Some(Logical::Expanded(e, Some(Box::new(summary))))
}

/// When page 0's crypt data is damaged so that no key can open the space
/// ([`ibdscope_core::crypt::mariadb::blocks_decryption`]), why, with its file
/// offset: the structure cannot be read (encrypted pages), and the
/// problem is the crypt data, not the key.
pub fn crypt_data_blocks(path: &Path, ts: &Tablespace<'_>) -> Option<Diagnostic> {
    let f = ibdscope_core::crypt::mariadb::crypt_data_finding(ts)?;
    let ibdscope_core::FindingKind::CryptData(p) = f.kind else {
        return None;
    };
    if !ibdscope_core::crypt::mariadb::blocks_decryption(&p) {
        return None;
    }
    Some(Diagnostic::new(
        path,
        format_args!("page 0 at byte offset {}: {p}", f.file_offset),
    ))
}

/// Names at most 8 failed pages in `diags`, then how many more. Each at
/// its byte offset in the file (as every finding is): a reason that ends
/// with the byte in the page, ` (byte N)`, gives it; else the page's first
/// byte.
fn failures(
    path: &Path,
    page_size: u32,
    pages: impl Iterator<Item = (ibdscope_core::PageNo, String, u64)>,
    n: usize,
    more: &str,
    diags: &mut Vec<Diagnostic>,
) {
    const SHOWN: usize = 8;
    for (page, why, in_page) in pages.take(SHOWN) {
        let at = u64::from(page.0)
            .saturating_mul(u64::from(page_size))
            .saturating_add(in_page);
        diags.push(Diagnostic::new(
            path,
            format_args!("page {} at byte offset {at}: {why}", page.0),
        ));
    }
    if let Some(k) = n.checked_sub(SHOWN).filter(|&k| k > 0) {
        diags.push(Diagnostic::new(path, format_args!("{k} more {more}")));
    }
}

/// The crypt data a space is opened with, and its cipher.
struct Opening {
    /// Page 0's crypt data, or it with the key id that opens the space.
    crypt: mariadb::CryptData,
    /// The cipher that verifies (`None`: no key of the file opens it).
    cipher: Option<mariadb::Cipher>,
    /// When another key than the one page 0 names opens the space: the id
    /// page 0 names.
    renamed: Option<u32>,
}

/// At most this many other key ids of a key file are tried.
const OTHER_KEYS: usize = 64;

/// How `ts` opens with `keys`: with the key page 0's crypt data names;
/// else (that key missing, or not verifying a page) with another key of
/// the file that verifies its encrypted pages, when one does: page 0's key
/// id is then damaged (or the key file numbers its keys otherwise), which
/// [`renamed`] says.
fn opening(
    ts: &Tablespace<'_>,
    keys: &KeyFile,
    crypt: &mariadb::CryptData,
) -> Result<Opening, ibdscope_core::Error> {
    let named = mariadb::detect_cipher(ts, keys, crypt);
    if let Ok(Some(cipher)) = named {
        return Ok(Opening {
            crypt: *crypt,
            cipher: Some(cipher),
            renamed: None,
        });
    }
    for id in keys.ids().filter(|&id| id != crypt.key_id).take(OTHER_KEYS) {
        let other = mariadb::CryptData {
            key_id: id,
            ..*crypt
        };
        if let Ok(Some(cipher)) = mariadb::detect_cipher(ts, keys, &other) {
            return Ok(Opening {
                crypt: other,
                cipher: Some(cipher),
                renamed: Some(crypt.key_id),
            });
        }
    }
    named.map(|cipher| Opening {
        crypt: *crypt,
        cipher,
        renamed: None,
    })
}

/// That page 0's key id names a key that does not open the space while
/// another key of the file does, with the key id's file offset.
fn renamed(path: &Path, ts: &Tablespace<'_>, o: &Opening) -> Option<Diagnostic> {
    let named = o.renamed?;
    // The key id: 28 bytes into the crypt data (docs/format.md §3.4).
    let at = ts
        .file_offset(ibdscope_core::PageNo(0))
        .saturating_add(o.crypt.offset.saturating_add(28) as u64);
    Some(Diagnostic::new(
        path,
        format_args!(
            "page 0 at byte offset {at}: page 0's crypt data is damaged: it names key \
             {named}, which does not open the space, but key {} of the key file does (or the \
             key file numbers its keys otherwise); read with key {}",
            o.crypt.key_id, o.crypt.key_id
        ),
    ))
}

/// The decrypted image of a MariaDB encrypted space (`--key-file`); the
/// cipher (`AES_CBC` or `AES_CTR`, not recorded in the file) is the one
/// that verifies, with the key page 0 names or, when that one does not
/// open the space, another of the file that does ([`opening`]; said when
/// `say`). Without keys, or with keys that do not open the space, says so
/// in `diags` and gives `None`, or (`summarize`: the structure commands)
/// the image with the failed pages as stored (a finding, see [`damaged`]).
fn decrypt(
    path: &Path,
    ts: &Tablespace<'_>,
    engine: &Engine<'_>,
    keys: Option<&KeyFile>,
    crypt: &mariadb::CryptData,
    (summarize, say): (bool, bool),
    diags: &mut Vec<Diagnostic>,
) -> Option<(Decryption, Option<Summary>, bool)> {
    let Some(keys) = keys else {
        diags.push(Diagnostic::new(
            path,
            format_args!(
                "MariaDB encrypted space (key id {}): its encrypted pages are read as stored; \
                 give the key file with --key-file",
                crypt.key_id
            ),
        ));
        return None;
    };
    let open = match opening(ts, keys, crypt) {
        Ok(o) => o,
        Err(e) => {
            if say {
                diags.push(Diagnostic::new(
                    path,
                    format_args!("{e}; its encrypted pages are read as stored"),
                ));
            }
            return None;
        }
    };
    if say {
        diags.extend(renamed(path, ts, &open));
    }
    if open.cipher.is_none() && !summarize {
        // The wrong key, said by `key_finding`: no image.
        return None;
    }
    let (crypt, cipher) = (&open.crypt, open.cipher);
    // No cipher verifies a page: decrypting with either gives the wrong-key
    // finding on every page; CBC, the plugin's default, names it.
    let key = match mariadb::space_key(ts, keys, crypt, cipher.unwrap_or(mariadb::Cipher::Cbc)) {
        Ok(k) => k,
        Err(e) => {
            diags.push(Diagnostic::new(
                path,
                format_args!("{e}; its encrypted pages are read as stored"),
            ));
            return None;
        }
    };
    let made = if summarize {
        mariadb::try_decrypt_with_summary(ts, engine, key).map(|(d, s)| (d, Some(s)))
    } else {
        mariadb::try_decrypt(ts, engine, key).map(|d| (d, None))
    };
    let Some((d, summary)) = made else {
        diags.push(Diagnostic::new(
            path,
            format_args!(
                "the decrypted image of this encrypted space ({} bytes) could not be \
                 allocated; its encrypted pages are read as stored",
                ts.data().len()
            ),
        ));
        return None;
    };
    if d.wrong_key() {
        // Said once: every encrypted page failing to decrypt is what a
        // wrong key means, not a finding of its own.
        diags.push(Diagnostic::new(
            path,
            format_args!(
                "key {} of the key file does not decrypt this space (with AES_CBC or \
                 AES_CTR): wrong key; its encrypted pages are read as stored",
                crypt.key_id
            ),
        ));
    } else {
        let pages = d.failures.iter().map(|f| image_failure(f.page, &f.kind));
        failures(
            path,
            ts.page_size(),
            pages,
            d.failures.len(),
            "pages not decrypted",
            diags,
        );
    }
    Some((d, summary, open.renamed.is_some()))
}

/// For the commands that read the stored pages: with `--key-file`, whether
/// its keys open this MariaDB encrypted space (a cipher verifies its first
/// encrypted pages): `None` when they do, or when there is nothing to
/// open; a wrong or missing key, which is a finding.
pub fn key_finding(path: &Path, ts: &Tablespace<'_>, keys: Option<&KeyFile>) -> Option<Diagnostic> {
    let (Some(keys), CryptDataRead::Present(crypt)) = (keys, mariadb::space_crypt_data(ts)) else {
        return None;
    };
    if crypt.scheme != 1 {
        return None;
    }
    match opening(ts, keys, &crypt) {
        Ok(o) if o.renamed.is_some() => renamed(path, ts, &o),
        Ok(Opening {
            cipher: Some(_), ..
        }) => None,
        Ok(_) => Some(Diagnostic::new(
            path,
            format_args!(
                "key {} of the key file does not decrypt this space (with AES_CBC or \
                 AES_CTR): wrong key",
                crypt.key_id
            ),
        )),
        Err(e) => Some(Diagnostic::new(path, e)),
    }
}

/// `check` with `--key-file`: the summary of the stored pages made in one
/// pass with every encrypted page decrypted (on the engine's threads,
/// [`mariadb::keyed_summary`]) and judged as the server judges it after
/// reading it: the check after decryption, decompression when
/// page_compressed, and for the pages that cannot be verified without
/// decryption (outside full_crc32, a page_compressed encrypted page
/// carries no checksum the server checks before decrypting it) their own
/// checksum. `None` when there is nothing to decrypt with (no key file, a
/// space that is not MariaDB encrypted, or a key that does not open the
/// space, which [`key_finding`] says): the caller reads the plain summary.
/// A page that does not pass is a finding, named in the diagnostics given
/// back (at most 8 named; none when every page passes).
pub fn key_verdicts(
    path: &Path,
    ts: &Tablespace<'_>,
    engine: &Engine<'_>,
    keys: Option<&KeyFile>,
) -> Option<(Summary, Vec<Diagnostic>)> {
    let (Some(keys), CryptDataRead::Present(crypt)) = (keys, mariadb::space_crypt_data(ts)) else {
        return None;
    };
    if crypt.scheme != 1 {
        return None;
    }
    let open = opening(ts, keys, &crypt).ok()?;
    let key = mariadb::space_key(ts, keys, &open.crypt, open.cipher?).ok()?;
    let (summary, check) = mariadb::keyed_summary(ts, engine, &key);
    let mut diags = Vec::new();
    let pages = check.failures.iter().map(|(page, why)| match why {
        Err(e) => image_failure(*page, e),
        Ok(v) => {
            let why = format!("does not verify after decryption and decompression: {v}");
            let (why, in_page) = split_page_byte(&why);
            (*page, why.to_string(), in_page)
        }
    });
    failures(
        path,
        ts.page_size(),
        pages,
        check.failures.len(),
        "pages that do not verify after decryption",
        &mut diags,
    );
    Some((summary, diags))
}

/// Whether some page of `l` failed to decompress because it is damaged
/// (not because its algorithm is not decoded or it is encrypted), or
/// failed to decrypt: a finding.
pub fn damaged(l: &Logical) -> bool {
    match l {
        Logical::Expanded(e, _) => e.failures.iter().any(|f| {
            !matches!(
                f.error.kind,
                ErrorKind::PageComp(
                    PageCompErrorKind::NotDecoded(_) | PageCompErrorKind::Encrypted
                )
            )
        }),
        Logical::Decrypted(d, _, renamed) => *renamed || !d.failures.is_empty(),
    }
}

/// With `keys`, a MariaDB encrypted space's decrypted image (its key found
/// and the pages decrypted, as the structure commands read it, without
/// the summary: these commands judge the pages as stored themselves), for
/// `audit` and `diff`, which read the pages' content from it; `None` for
/// every other space, or when the key does not open it (the pages are then
/// read as stored). Pages that do not decrypt are named in `diags`.
pub fn decrypted(
    path: &Path,
    ts: &Tablespace<'_>,
    engine: &Engine<'_>,
    keys: Option<&KeyFile>,
    diags: &mut Vec<Diagnostic>,
) -> Option<Decryption> {
    let keys = keys?;
    let CryptDataRead::Present(crypt) = mariadb::space_crypt_data(ts) else {
        return None;
    };
    if crypt.scheme != 1 {
        return None;
    }
    decrypt(path, ts, engine, Some(keys), &crypt, (false, false), diags)
        .map(|(d, ..)| d)
        .filter(|d| !d.wrong_key())
}

/// A page of an image left as stored: why it was not decrypted, or not
/// decompressed, in words without its place, and the byte in the page.
fn image_failure(
    page: ibdscope_core::PageNo,
    kind: &mariadb::ImageFailureKind,
) -> (ibdscope_core::PageNo, String, u64) {
    match kind {
        mariadb::ImageFailureKind::Crypt(e) | mariadb::ImageFailureKind::Decompress(e) => {
            placed(page, e)
        }
        _ => (page, ImageFailure { page, kind: *kind }.to_string(), 0),
    }
}

/// A page's error in words without its place, and the byte in the page
/// it lies at.
fn placed(
    page: ibdscope_core::PageNo,
    e: &ibdscope_core::Error,
) -> (ibdscope_core::PageNo, String, u64) {
    let why = match e.kind {
        ErrorKind::PageComp(k) => k.to_string(),
        ErrorKind::PageCrypt(k) => k.to_string(),
        _ => e.to_string(),
    };
    (page, why, e.page_offset().unwrap_or(0) as u64)
}

/// A reason without its trailing ` (byte N)` (the byte in the page), and N.
fn split_page_byte(why: &str) -> (&str, u64) {
    let Some(rest) = why.strip_suffix(')') else {
        return (why, 0);
    };
    match rest.rsplit_once(" (byte ") {
        Some((head, n)) => match n.parse() {
            Ok(n) => (head, n),
            Err(_) => (why, 0),
        },
        None => (why, 0),
    }
}
