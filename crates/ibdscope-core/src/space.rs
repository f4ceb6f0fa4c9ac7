//! A tablespace: the bytes of a `.ibd` file, its detected format, and the
//! one-pass page scan every analysis folds over.
//!
//! Page size and format come from page 0 when it verifies under some reading
//! of its FSP flags (see [`crate::fsp`]); when it does not, from the rest of
//! the file: every supported size and checksum scheme is tried on a sample
//! of pages and scored by how many carry their own page number and a valid
//! checksum; when no page verifies at any size, by how many carry their own
//! page number alone. A file where none of this holds at any size is not
//! InnoDB ([`ErrorKind::NotInnoDb`]), whatever page size the caller gives;
//! a page size given against the size the file gives is recorded first
//! ([`Evidence::PageSizeContradicted`]). Every detection keeps the evidence
//! it used.

use crate::bytes::{be_u16, be_u32};
use crate::checksum::{self, lsn_pair, Algorithm, Scheme, Unverifiable, Verdict};
use crate::error::{Error, ErrorKind, Result};
use crate::fil::FilHeader;
use crate::fsp::{FlagsLayout, FspFlags, FspHeader, SpaceFormat, FSP_FLAGS_OFFSET};
use crate::ids::{Lsn, PageNo, SpaceId};
use crate::page_type::{PageType, TypeNames};
use crate::source::{PageRef, PageSource};
use crate::window::{Residency, Watch, Window};
use std::fmt;
use std::ops::Range;

/// The page sizes InnoDB supports, physical (1K–16K are ROW_FORMAT=COMPRESSED
/// sizes; 4K–64K are innodb_page_size values).
pub const PAGE_SIZES: [u32; 7] = [1024, 2048, 4096, 8192, 16384, 32768, 65536];

/// How a tablespace is opened. How whole-file passes run (threads, a
/// release hook) is not a property of the space: it is the
/// [`crate::Engine`] passed to each pass.
#[derive(Clone, Copy, Debug, Default)]
#[non_exhaustive]
pub struct Options {
    /// Physical page size to use instead of detecting one.
    pub page_size: Option<u32>,
}

impl Options {
    /// These options with the physical page size forced (`None`: detected).
    pub fn with_page_size(mut self, page_size: Option<u32>) -> Self {
        self.page_size = page_size;
        self
    }
}

/// Where the page size and format came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum DetectedBy {
    /// Page 0 verified under its own flags.
    Page0,
    /// Page 0 did not verify; a scan of other pages decided.
    Scan,
    /// The caller gave the page size.
    Override,
}

/// One fact format detection rests on; its `Display` is a sentence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Evidence {
    /// The FSP_SPACE_FLAGS word on page 0.
    Flags(u32),
    /// The caller gave the page size.
    PageSizeGiven(u32),
    /// The flags read in `layout` give pages longer than the file.
    FlagsPastFile {
        /// The layout the flags were read in.
        layout: FlagsLayout,
        /// The physical page size they give.
        size: u32,
    },
    /// The flags read in `layout` give a size at which page 0 verifies.
    FlagsVerify {
        /// The layout.
        layout: FlagsLayout,
        /// Logical page size.
        logical: u32,
        /// Physical page size.
        physical: u32,
        /// The checksum page 0 verifies with.
        algorithm: Algorithm,
    },
    /// The flags read in `layout` give a size at which page 0 does not
    /// verify.
    FlagsDoNotVerify {
        /// The layout.
        layout: FlagsLayout,
        /// The physical page size.
        size: u32,
        /// Page 0's verdict at that size.
        verdict: Verdict,
    },
    /// The flags are valid in no known layout.
    FlagsInvalid,
    /// Page 0 is unusable: the page size and checksum layout under which
    /// most sampled pages verify.
    Scan {
        /// Sampled pages that verify (or are typed compressed or encrypted)
        /// and carry their own page number.
        good: u32,
        /// Pages sampled.
        sampled: u32,
        /// The page size.
        size: u32,
        /// The checksum layout.
        scheme: Scheme,
    },
    /// A compressed space's logical page size was assumed.
    LogicalSizeAssumed,
    /// The space id was taken from the pages that verify.
    SpaceIdFromPages(SpaceId),
    /// No page verifies: the space id was read from `pages` pages that
    /// carry their own page number (page 0 among them), unverified.
    SpaceIdUnverified {
        /// The space id read.
        id: SpaceId,
        /// Pages it was read from.
        pages: u32,
    },
    /// The caller gave a page size the file's own evidence contradicts:
    /// the file reads as `found`-byte pages (page 0 verifies at that size
    /// when `by` is [`DetectedBy::Page0`], else the other pages do).
    PageSizeContradicted {
        /// The page size given.
        given: u32,
        /// The page size the file's evidence gives.
        found: u32,
        /// What gave `found`.
        by: DetectedBy,
    },
    /// No page verifies at any page size, but at `size` the sampled pages
    /// carry their own page numbers: the size is assumed and every page is
    /// read as damaged.
    NumbersOnly {
        /// Sampled non-empty pages that carry their own page number.
        numbered: u32,
        /// Non-empty pages sampled.
        sampled: u32,
        /// The page size.
        size: u32,
    },
}

impl fmt::Display for Evidence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Evidence::Flags(v) => write!(f, "FSP_SPACE_FLAGS on page 0 = 0x{v:x}"),
            Evidence::PageSizeGiven(size) => write!(f, "page size {size} given by the caller"),
            Evidence::FlagsPastFile { layout, size } => write!(
                f,
                "flags read in the {} layout give {size}-byte pages, longer than the file",
                layout_name(layout)
            ),
            Evidence::FlagsVerify {
                layout,
                logical,
                physical,
                algorithm,
            } => write!(
                f,
                "flags read in the {} layout give {logical} logical / {physical} physical bytes \
                 per page, and page 0 verifies at that size ({} checksum)",
                layout_name(layout),
                algorithm.name()
            ),
            Evidence::FlagsDoNotVerify {
                layout,
                size,
                verdict,
            } => write!(
                f,
                "flags read in the {} layout give {size}-byte pages, but page 0 does not verify \
                 at that size ({verdict})",
                layout_name(layout)
            ),
            Evidence::FlagsInvalid => f.write_str("the flags are not valid in any known layout"),
            Evidence::Scan {
                good,
                sampled,
                size,
                scheme,
            } => write!(
                f,
                "page 0 is unusable; {good} of {sampled} sampled pages verify (or are typed as \
                 compressed or encrypted) and carry their own page number at {size} bytes with \
                 the {scheme} checksum layout"
            ),
            Evidence::LogicalSizeAssumed => {
                f.write_str("logical page size assumed 16384 (the server default)")
            }
            Evidence::SpaceIdFromPages(id) => {
                write!(f, "space id {id} taken from the pages that verify")
            }
            Evidence::SpaceIdUnverified { id, pages: 0 } => write!(
                f,
                "space id {id} read from page 0's FIL header; no page verifies or carries its \
                 own page number, so it is not confirmed"
            ),
            Evidence::SpaceIdUnverified { id, pages } => write!(
                f,
                "space id {id} read from {pages} page{} that carr{} {} own page number; no page \
                 verifies, so it is not confirmed",
                if pages == 1 { "" } else { "s" },
                if pages == 1 { "ies" } else { "y" },
                if pages == 1 { "its" } else { "their" },
            ),
            Evidence::PageSizeContradicted { given, found, by } => {
                match by {
                    DetectedBy::Page0 => write!(f, "page 0 verifies as {found}-byte pages")?,
                    _ => write!(
                        f,
                        "without the page size given, the file's pages read as {found}-byte pages"
                    )?,
                }
                write!(
                    f,
                    "; the page size given ({given}) contradicts it, and what follows reads \
                     {given}-byte pages"
                )
            }
            Evidence::NumbersOnly {
                numbered,
                sampled,
                size,
            } => write!(
                f,
                "no page verifies at any page size, but {numbered} of {sampled} sampled non-empty \
                 pages carry their own page number at {size} bytes: that size is assumed and the \
                 pages read as damaged"
            ),
        }
    }
}

/// The result of format detection, with its evidence.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Detection {
    /// The format used to read the file.
    pub format: SpaceFormat,
    /// How pages are checksummed.
    pub scheme: Scheme,
    /// What decided.
    pub by: DetectedBy,
    /// What was seen, in the order it was seen (each a sentence by its
    /// `Display`).
    pub evidence: Vec<Evidence>,
    /// True when page 0 verified (its FSP header can be trusted).
    pub page0_ok: bool,
}

/// A tablespace: a view of borrowed bytes and what detection found in them
/// (page size, format, space id). Parsing borrows; nothing is copied. It
/// holds nothing about how a pass runs: whole-file passes take a
/// [`crate::Engine`].
#[derive(Clone, Debug)]
pub struct Tablespace<'a> {
    data: &'a [u8],
    detection: Detection,
    n_pages: u32,
    space_id: SpaceId,
    /// Byte ranges known to read as zeros (holes of a sparse file), sorted
    /// and apart: their pages are served from [`ZERO_PAGE`], never read.
    zeros: &'a [Range<usize>],
    /// The system tablespace's doublewrite buffer: the first pages of its
    /// two blocks and their length in pages ([`doublewrite_blocks`]).
    doublewrite: Option<(u32, u32, u32)>,
    /// How the pages read when they are not the stored bytes (a
    /// page_compressed space decompressed, an encrypted one decrypted):
    /// [`Tablespace::with_source`].
    source: Option<&'a PageSource>,
    /// Which chunks of the mapped file the readers hold, and the host that
    /// maps it ([`Tablespace::with_window`]).
    window: Option<Watch<'a>>,
}

/// A doublewrite slot holding a ROW_FORMAT=COMPRESSED page: the page in
/// its first 1, 2, 4 or 8 KiB, verifying as such, and zeros after it (the
/// doublewrite buffer writes `zip_size` bytes and zero-fills the slot:
/// `buf0dblwr.cc` `buf_dblwr_flush_buffered_writes`).
fn is_zip_copy(page: &[u8]) -> bool {
    zip_copy_verdict(page).is_some()
}

/// The verdict of the ROW_FORMAT=COMPRESSED page a doublewrite slot holds
/// ([`is_zip_copy`]): its zip checksum over its own `zip_size` bytes.
fn zip_copy_verdict(page: &[u8]) -> Option<Verdict> {
    [1024usize, 2048, 4096, 8192].iter().find_map(|&z| {
        if z >= page.len() || !page.get(z..).is_some_and(crate::bytes::is_zeroes) {
            return None;
        }
        let v = crate::checksum::verify_zip(page.get(..z)?);
        matches!(v, Verdict::Valid(_)).then_some(v)
    })
}

/// The doublewrite buffer of a system tablespace (space 0), from its
/// TRX_SYS page (page 5, `trx0sys.h`): at page size − 200 the FSEG header
/// (10 bytes), `TRX_SYS_DOUBLEWRITE_MAGIC` (536853855), `BLOCK1`, `BLOCK2`;
/// each block is `FSP_EXTENT_SIZE` pages. Its pages are copies of pages of
/// any space, so their page number and space id are not this space's.
pub fn doublewrite_blocks(
    data: &[u8],
    format: &SpaceFormat,
    scheme: Scheme,
) -> Option<(u32, u32, u32)> {
    let size = usize::try_from(format.physical_size).ok()?;
    let page = data.get(size.checked_mul(5)?..size.checked_mul(6)?)?;
    if !verify_page(page, scheme).is_ok() {
        return None;
    }
    let dw = size.checked_sub(200)?;
    let magic = crate::bytes::be_u32(page, dw.checked_add(10)?)?;
    if magic != 536_853_855 {
        return None;
    }
    let b1 = crate::bytes::be_u32(page, dw.checked_add(14)?)?;
    let b2 = crate::bytes::be_u32(page, dw.checked_add(18)?)?;
    Some((b1, b2, format.extent_size()))
}

/// The bytes of an all-zero page of any size (the largest is 64 KiB).
static ZERO_PAGE: [u8; 65536] = [0; 65536];

/// Everything the scan learns about one page. `Copy`, no allocation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct PageFacts {
    /// The page's position in the file.
    pub page_no: PageNo,
    /// FIL_PAGE_OFFSET as stored.
    pub stored_page_no: PageNo,
    /// FIL_PAGE_TYPE.
    pub page_type: PageType,
    /// FIL_PAGE_PREV.
    pub prev: PageNo,
    /// FIL_PAGE_NEXT.
    pub next: PageNo,
    /// FIL_PAGE_LSN.
    pub lsn: Lsn,
    /// FIL_PAGE_SPACE_ID.
    pub space_id: SpaceId,
    /// False where bytes 34..38 are not a space id: MariaDB full_crc32
    /// page_compressed pages (payload from byte 26) and encrypted ones
    /// (ciphertext).
    pub has_space_id: bool,
    /// Stored header checksum field (bytes 0..4).
    pub stored_checksum: u32,
    /// The checksum verdict.
    pub verdict: Verdict,
    /// Header LSN low word and its trailer copy, where the layout has both.
    pub lsn_pair: Option<(u32, u32)>,
}

/// What is wrong with one page. A page may have several.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum PageProblem {
    /// No accepted checksum algorithm matches.
    Checksum,
    /// full_crc32 page_compressed size field is not below the page size.
    CompressedSize,
    /// The LSN's low 32 bits in the header and trailer differ.
    LsnMismatch {
        /// Header copy.
        header: u32,
        /// Trailer copy.
        trailer: u32,
    },
    /// FIL_PAGE_OFFSET is not the page's position.
    PageNo {
        /// What the page says.
        found: PageNo,
    },
    /// A MariaDB page_compressed page outside full_crc32 does not
    /// decompress (its header or its stream is damaged): the server reads
    /// it as corrupted.
    NotDecompressed {
        /// Byte offset in the page where the decoder stopped.
        offset: u16,
    },
    /// The page is all zeros while its extent descriptor marks it used
    /// ([`crate::verdict::ZeroRule`]): its content is lost.
    ZeroedInUse,
    /// The page verifies, but a newer page that verifies shows it missed
    /// a write they share ([`crate::stale`]): an older copy.
    Stale {
        /// The newer page.
        by: PageNo,
        /// Its LSN.
        by_lsn: Lsn,
        /// What it shows.
        how: crate::links::StaleHow,
    },
    /// FIL_PAGE_SPACE_ID is not the space's id.
    SpaceId {
        /// What the page says.
        found: SpaceId,
        /// The space's id.
        expected: SpaceId,
    },
}

impl PageFacts {
    /// True when the page is all zeroes.
    pub fn is_empty(&self) -> bool {
        self.verdict == Verdict::Empty
    }

    /// The problems of this page, given the space id it should carry.
    pub fn problems(&self, space_id: SpaceId) -> impl Iterator<Item = PageProblem> + use<> {
        let empty = self.is_empty();
        let checksum = match self.verdict {
            Verdict::Mismatch => Some(PageProblem::Checksum),
            Verdict::BadCompressedSize => Some(PageProblem::CompressedSize),
            _ => None,
        };
        let lsn = self
            .lsn_pair
            .filter(|(h, t)| h != t && !empty)
            .map(|(header, trailer)| PageProblem::LsnMismatch { header, trailer });
        let page_no =
            (!empty && self.stored_page_no != self.page_no).then_some(PageProblem::PageNo {
                found: self.stored_page_no,
            });
        // Pages of files from before 4.1 carry no space id; so does page 0 of
        // InnoDB 3.23-era files. A zero is therefore not a mismatch.
        let space =
            (!empty && self.has_space_id && self.space_id != space_id && self.space_id.0 != 0)
                .then_some(PageProblem::SpaceId {
                    found: self.space_id,
                    expected: space_id,
                });
        [checksum, lsn, page_no, space].into_iter().flatten()
    }
}

fn scheme_of(format: &SpaceFormat) -> Scheme {
    if format.layout == FlagsLayout::FullCrc32 {
        Scheme::FullCrc32
    } else if format.is_zip() {
        Scheme::Zip
    } else {
        Scheme::Classic
    }
}

/// Verifies one page under `scheme`, telling encrypted and page-compressed
/// pages that fail apart from damaged ones.
pub fn verify_page(page: &[u8], scheme: Scheme) -> Verdict {
    let Some(h) = FilHeader::new(page) else {
        return Verdict::Mismatch;
    };
    if scheme == Scheme::Classic {
        // MariaDB page_compressed pages carry no checksum on disk; the
        // server verifies them after decompression (buf0buf.cc).
        match h.page_type() {
            PageType::FIL_PAGE_PAGE_COMPRESSED => {
                return Verdict::Unverifiable(Unverifiable::PageCompressed)
            }
            PageType::FIL_PAGE_PAGE_COMPRESSED_ENCRYPTED => {
                return Verdict::Unverifiable(Unverifiable::Encrypted)
            }
            _ => {}
        }
    }
    let verdict = match scheme {
        Scheme::Classic => checksum::verify_classic(page),
        Scheme::Zip => checksum::verify_zip(page),
        Scheme::FullCrc32 => checksum::verify_full_crc32(page).0,
    };
    if verdict != Verdict::Mismatch {
        return verdict;
    }
    match h.page_type() {
        // MySQL transparent page compression happens after the checksum.
        PageType::FIL_PAGE_COMPRESSED => Verdict::Unverifiable(Unverifiable::PageCompressed),
        // MySQL/Percona encryption: the checksum covers the plaintext.
        PageType::FIL_PAGE_ENCRYPTED
        | PageType::FIL_PAGE_COMPRESSED_AND_ENCRYPTED
        | PageType::FIL_PAGE_ENCRYPTED_RTREE => Verdict::Unverifiable(Unverifiable::Encrypted),
        // MariaDB encryption outside full_crc32: key version at 26..30 and a
        // checksum of the encrypted bytes at 30..34. Page 0 is never encrypted.
        _ if scheme != Scheme::FullCrc32 && h.key_version() != 0 && h.page_no().0 != 0 => {
            checksum::verify_mariadb_crypt(page, scheme == Scheme::Zip)
        }
        _ => verdict,
    }
}

/// Gathers the facts of page `page_no` from its bytes.
pub fn page_facts(page: &[u8], page_no: PageNo, scheme: Scheme) -> PageFacts {
    page_facts_with(page, page_no, scheme, verify_page(page, scheme))
}

/// [`page_facts`] with the checksum verdict `verdict` already known (what
/// [`verify_page`] gives for `page`).
pub(crate) fn page_facts_with(
    page: &[u8],
    page_no: PageNo,
    scheme: Scheme,
    verdict: Verdict,
) -> PageFacts {
    let h = FilHeader::new(page);
    let lsn_pair = match verdict {
        Verdict::Valid(_) | Verdict::Mismatch => lsn_pair(page, scheme),
        _ => None,
    };
    PageFacts {
        page_no,
        stored_page_no: h.map_or(PageNo(0), |h| h.page_no()),
        page_type: h.map_or(PageType(0), |h| h.page_type()),
        prev: h.map_or(PageNo(0), |h| h.prev()),
        next: h.map_or(PageNo(0), |h| h.next()),
        lsn: h.map_or(Lsn(0), |h| h.lsn()),
        space_id: h.map_or(SpaceId(0), |h| h.space_id()),
        has_space_id: scheme != Scheme::FullCrc32
            || h.is_some_and(|h| {
                h.checksum() == 0 && h.page_type().0 & PageType::FCRC32_COMPRESSED_MARKER == 0
            }),
        stored_checksum: h.map_or(0, |h| h.checksum()),
        verdict,
        lsn_pair,
    }
}

fn min_len() -> usize {
    PAGE_SIZES.first().map_or(1024, |&s| s as usize)
}

/// Whether `page` fits `scheme`: it verifies, or its type says it is a
/// page the scheme cannot verify (MariaDB page_compressed and encrypted
/// pages, MySQL transparent compression and encryption). A MariaDB
/// page_compressed type never fits the ROW_FORMAT=COMPRESSED layout, whose
/// "none" checksum magic such pages happen to carry.
fn plausible(page: &[u8], scheme: Scheme) -> bool {
    let t = be_u16(page, crate::fil::FIL_PAGE_TYPE).map(PageType);
    if scheme == Scheme::Zip
        && matches!(
            t,
            Some(PageType::FIL_PAGE_PAGE_COMPRESSED | PageType::FIL_PAGE_PAGE_COMPRESSED_ENCRYPTED)
        )
    {
        return false;
    }
    matches!(
        verify_page(page, scheme),
        Verdict::Valid(_) | Verdict::Unverifiable(_)
    )
}

/// The pages of a sample at `size`, with their page numbers: every page
/// from 1 to 63, then every `n / 128`-th, at most 256 (page 0 is judged
/// on its own).
fn sample(data: &[u8], size: u32) -> impl Iterator<Item = (u32, &[u8])> {
    let size = size as usize;
    let n = data.len().checked_div(size).unwrap_or(0);
    let step = (n / 128).max(1);
    std::iter::successors(Some(1usize), move |&i| {
        Some(i.saturating_add(if i < 64 { 1 } else { step }))
    })
    .take_while(move |&i| i < n)
    .take(256)
    .filter_map(move |i| {
        let start = i.saturating_mul(size);
        let page = data.get(start..start.saturating_add(size))?;
        Some((u32::try_from(i).ok()?, page))
    })
}

/// Whether `page` carries its own page number `n` (FIL_PAGE_OFFSET).
fn own_number(page: &[u8], n: u32) -> bool {
    be_u32(page, crate::fil::FIL_PAGE_OFFSET) == Some(n)
}

/// Score of a candidate size and scheme: pages in a sample that verify and
/// carry their own page number, and how many were sampled.
fn score(data: &[u8], size: u32, scheme: Scheme) -> (u32, u32) {
    if data.len().checked_div(size as usize).unwrap_or(0) < 2 {
        return (0, 0);
    }
    sample(data, size).fold((0u32, 0u32), |(good, sampled), (i, page)| {
        let ok = plausible(page, scheme) && own_number(page, i);
        (
            good.saturating_add(u32::from(ok)),
            sampled.saturating_add(1),
        )
    })
}

fn synthetic(size: u32, scheme: Scheme) -> SpaceFormat {
    let base = FspFlags(0).as_mysql();
    let mut f = match (scheme, base) {
        (Scheme::FullCrc32, _) => {
            FspFlags(FspFlags::FCRC32_MARKER | (size.trailing_zeros().saturating_sub(9)))
                .as_full_crc32()
        }
        (_, b) => b,
    }
    .unwrap_or(SpaceFormat {
        layout: FlagsLayout::MySql,
        logical_size: size,
        physical_size: size,
        post_antelope: false,
        atomic_blobs: false,
        data_dir: false,
        shared: false,
        temporary: false,
        encryption: false,
        sdi: false,
        page_compressed: false,
        compression_algorithm: 0,
        compression_level: None,
    });
    f.physical_size = size;
    f.logical_size = if scheme == Scheme::Zip { 16384 } else { size };
    f
}

/// Pages in a sample at `size` that are not all zeros, and how many of
/// them carry their own page number (FIL_PAGE_OFFSET equal to their place);
/// page 0 is not sampled.
fn numbered(data: &[u8], size: u32) -> (u32, u32) {
    sample(data, size)
        .filter(|(_, page)| page.iter().any(|&b| b != 0))
        .fold((0u32, 0u32), |(good, sampled), (i, page)| {
            let ok = own_number(page, i);
            (
                good.saturating_add(u32::from(ok)),
                sampled.saturating_add(1),
            )
        })
}

fn detect(data: &[u8], opts: Options) -> Result<Detection> {
    if data.is_empty() {
        return Err(Error::at(ErrorKind::Empty, 0));
    }
    if data.len() < min_len() {
        return Err(Error::at(
            ErrorKind::TooShort {
                len: data.len() as u64,
                need: min_len() as u64,
            },
            0,
        ));
    }
    let flags = FspFlags(be_u32(data, FSP_FLAGS_OFFSET).unwrap_or(0));
    let Some(size) = opts.page_size else {
        return detect_from_file(data, flags).map_err(|e| e.with_given(None));
    };
    if !PAGE_SIZES.contains(&size) {
        return Err(Error::at(ErrorKind::BadPageSize { size }, 0));
    }
    let from_flags = flags.interpretations().find(|f| f.physical_size == size);
    let (format, scheme) = match from_flags {
        Some(f) => (f, scheme_of(&f)),
        None => {
            // The layout most sampled pages fit; on a tie, one page 0
            // verifies with, then the first listed.
            let page0 = data.get(..size as usize).unwrap_or(&[]);
            let scheme = [Scheme::Zip, Scheme::FullCrc32, Scheme::Classic]
                .into_iter()
                .max_by_key(|&s| (score(data, size, s).0, verify_page(page0, s).is_ok()))
                .unwrap_or(Scheme::Classic);
            (synthetic(size, scheme), scheme)
        }
    };
    let page0_verifies = data
        .get(..size as usize)
        .is_some_and(|p| verify_page(p, scheme).is_ok());
    // Page 0 verifying at the size given under a reading of its own flags
    // agrees with the file; verifying only under a layout assumed for that
    // size does not outweigh the size the file itself gives.
    let flags_agree = from_flags.is_some() && page0_verifies;
    // What the file says without the override: a file in which nothing
    // looks like InnoDB (not even page 0 at the size given) is refused
    // whatever the caller gives; another size is said first.
    let mut evidence = Vec::new();
    match detect_from_file(data, flags) {
        Err(e) if !page0_verifies => return Err(e.with_given(Some(size))),
        Ok(own) if own.format.physical_size != size && !flags_agree => {
            evidence.push(Evidence::PageSizeContradicted {
                given: size,
                found: own.format.physical_size,
                by: own.by,
            });
        }
        _ => {}
    }
    evidence.push(Evidence::Flags(flags.0));
    evidence.push(Evidence::PageSizeGiven(size));
    Ok(Detection {
        format,
        scheme,
        by: DetectedBy::Override,
        evidence,
        page0_ok: false,
    })
}

/// Detection from the file alone: page 0 under its flags, else the other
/// pages' checksums, else their page numbers.
fn detect_from_file(data: &[u8], flags: FspFlags) -> Result<Detection> {
    let mut evidence = vec![Evidence::Flags(flags.0)];
    for format in flags.interpretations() {
        let scheme = scheme_of(&format);
        let size = format.physical_size as usize;
        let Some(page0) = data.get(..size) else {
            evidence.push(Evidence::FlagsPastFile {
                layout: format.layout,
                size: format.physical_size,
            });
            continue;
        };
        let verdict = verify_page(page0, scheme);
        let numbered = be_u32(page0, crate::fil::FIL_PAGE_OFFSET) == Some(0);
        if let (Verdict::Valid(alg), true) = (verdict, numbered) {
            evidence.push(Evidence::FlagsVerify {
                layout: format.layout,
                logical: format.logical_size,
                physical: format.physical_size,
                algorithm: alg,
            });
            return Ok(Detection {
                format,
                scheme,
                by: DetectedBy::Page0,
                evidence,
                page0_ok: true,
            });
        }
        evidence.push(Evidence::FlagsDoNotVerify {
            layout: format.layout,
            size: format.physical_size,
            verdict,
        });
    }
    if flags.interpretations().next().is_none() {
        evidence.push(Evidence::FlagsInvalid);
    }

    // Page 0 is damaged or its flags are: let the other pages decide.
    let mut best: Option<(u32, u32, u32, Scheme)> = None;
    for &size in &PAGE_SIZES {
        for scheme in [Scheme::Classic, Scheme::FullCrc32, Scheme::Zip] {
            if scheme == Scheme::Zip && size > 16384 {
                continue;
            }
            let (good, sampled) = score(data, size, scheme);
            if good > best.map_or(0, |b| b.0) {
                best = Some((good, sampled, size, scheme));
            }
        }
    }
    let (size, scheme) = match best {
        Some((good, sampled, size, scheme)) => {
            evidence.push(Evidence::Scan {
                good,
                sampled,
                size,
                scheme,
            });
            (size, scheme)
        }
        None => {
            // No page verifies at any size. Pages that carry their own
            // page number at one size (most of the non-empty ones sampled)
            // still say how long a page is; the checksum layout is the
            // flags' at that size, if any.
            let mut numbers: Option<(u32, u32, u32)> = None;
            for &size in &PAGE_SIZES {
                let (good, sampled) = numbered(data, size);
                if good > 0 && good.saturating_mul(2) > sampled && good > numbers.map_or(0, |b| b.0)
                {
                    numbers = Some((good, sampled, size));
                }
            }
            let Some((numbered, sampled, size)) = numbers else {
                return Err(Error::at(
                    ErrorKind::NotInnoDb {
                        flags: flags.0,
                        given: None,
                    },
                    0,
                ));
            };
            evidence.push(Evidence::NumbersOnly {
                numbered,
                sampled,
                size,
            });
            let scheme = flags
                .interpretations()
                .find(|f| f.physical_size == size)
                .map_or(Scheme::Classic, |f| scheme_of(&f));
            (size, scheme)
        }
    };
    let format = flags
        .interpretations()
        .find(|f| f.physical_size == size && scheme_of(f) == scheme)
        .unwrap_or_else(|| synthetic(size, scheme));
    if format.is_zip() && !flags.interpretations().any(|f| f == format) {
        evidence.push(Evidence::LogicalSizeAssumed);
    }
    Ok(Detection {
        format,
        scheme,
        by: DetectedBy::Scan,
        evidence,
        page0_ok: false,
    })
}

fn layout_name(l: FlagsLayout) -> &'static str {
    match l {
        FlagsLayout::MySql => "MySQL 5.6+/MariaDB",
        FlagsLayout::MariaDb101 => "MariaDB 10.1.0-10.1.20",
        FlagsLayout::FullCrc32 => "MariaDB full_crc32",
    }
}

impl<'a> Tablespace<'a> {
    /// Opens a tablespace over `data`, detecting its format.
    pub fn new(data: &'a [u8]) -> Result<Self> {
        Self::with_options(data, Options::default())
    }

    /// Opens a tablespace with [`Options`].
    pub fn with_options(data: &'a [u8], opts: Options) -> Result<Self> {
        let mut detection = detect(data, opts)?;
        let size = detection.format.physical_size as usize;
        let n_pages = u32::try_from(data.len().checked_div(size).unwrap_or(0)).unwrap_or(u32::MAX);
        let page0 = data.get(..size).unwrap_or(&[]);
        let fsp_space = FspHeader::new(page0).map(|h| h.space_id());
        let space_id = match (detection.page0_ok, fsp_space) {
            (true, Some(id)) => id,
            _ => match majority_space_id(data, size, detection.scheme) {
                Some(id) => {
                    detection.evidence.push(Evidence::SpaceIdFromPages(id));
                    id
                }
                None => {
                    let (id, pages) = numbered_space_id(data, size);
                    detection
                        .evidence
                        .push(Evidence::SpaceIdUnverified { id, pages });
                    id
                }
            },
        };
        if opts.page_size.is_some() && verify_page(page0, detection.scheme).is_ok() {
            detection.page0_ok = true;
        }
        let doublewrite = (space_id.0 == 0)
            .then(|| doublewrite_blocks(data, &detection.format, detection.scheme))
            .flatten();
        Ok(Tablespace {
            data,
            detection,
            n_pages,
            space_id,
            zeros: &[],
            doublewrite,
            source: None,
            window: None,
        })
    }

    /// The same space with its pages read through `source` (the
    /// decompressed or decrypted pages of a page_compressed or encrypted
    /// space, the page source): this space's bytes and detection, each
    /// page transformed as a reader reaches it, no image made.
    pub(crate) fn with_source<'b>(&self, source: &'b PageSource) -> Tablespace<'b>
    where
        'a: 'b,
    {
        Tablespace {
            data: self.data,
            detection: self.detection.clone(),
            n_pages: self.n_pages,
            space_id: self.space_id,
            zeros: self.zeros,
            doublewrite: self.doublewrite,
            source: Some(source),
            window: self.window,
        }
    }

    /// The same space, telling `host` which of its bytes the readers hold
    /// through `window` ([`crate::window`]): the reads outside a fold's
    /// own shard mark their chunk, and when too many are held the file's
    /// mappings are handed to [`Residency::release`], so a walk over a
    /// mapped file of any size holds a bounded part of it mapped; the
    /// folds hand their joined shards to it too. What the pages read as
    /// does not change.
    pub fn with_window<'b>(&self, window: &'b Window, host: &'b dyn Residency) -> Tablespace<'b>
    where
        'a: 'b,
    {
        Tablespace {
            window: Some(Watch { window, host }),
            ..self.clone()
        }
    }

    /// Whether a host watches the space's reads ([`Tablespace::with_window`]).
    pub(crate) fn has_window(&self) -> bool {
        self.window.is_some()
    }

    /// Hands bytes `offset..offset + len` to the host of the space's
    /// window, if any, to release (a fold's joined shards).
    pub(crate) fn release(&self, offset: usize, len: usize) {
        if let Some(w) = self.window {
            w.host.release(offset, len);
        }
    }

    /// The page source, when the pages are not read as stored.
    pub(crate) fn source(&self) -> Option<&'a PageSource> {
        self.source
    }

    /// The index root candidates the transform pass of this space's page
    /// source took ([`crate::extents::root_candidate`] of every page as it
    /// reads), when it did: the space map then makes no roots' pass.
    pub(crate) fn root_candidates(&self) -> Option<&'a [(u16, PageNo)]> {
        self.source.and_then(PageSource::roots)
    }

    /// Whether every page reads as stored (no page source: not a
    /// page_compressed or encrypted space read transformed).
    pub fn reads_as_stored(&self) -> bool {
        self.source.is_none()
    }

    /// Whether `other` reads every page as this space does: the same bytes
    /// through the same page source, or both as stored (a MySQL keyring
    /// space's structure and its summary are both read decrypted).
    pub fn reads_like(&self, other: &Tablespace<'_>) -> bool {
        std::ptr::eq(self.data, other.data)
            && match (self.source, other.source) {
                (None, None) => true,
                (Some(a), Some(b)) => std::ptr::eq(a, b),
                _ => false,
            }
    }

    /// The doublewrite buffer's blocks (first pages and length), for the
    /// system tablespace.
    pub fn doublewrite(&self) -> Option<(u32, u32, u32)> {
        self.doublewrite
    }

    /// True when page `n` is in the system tablespace's doublewrite buffer:
    /// a copy of some page, whose page number and space id are that page's.
    pub fn in_doublewrite(&self, n: PageNo) -> bool {
        self.doublewrite.is_some_and(|(b1, b2, len)| {
            [b1, b2]
                .iter()
                .any(|&b| n.0.checked_sub(b).is_some_and(|d| d < len))
        })
    }

    /// `f` judged as the doublewrite slot it may be: a slot of the system
    /// tablespace's doublewrite buffer holding a ROW_FORMAT=COMPRESSED
    /// copy (its `zip_size` bytes, then zeros: `buf0dblwr.cc`
    /// `buf_dblwr_flush_buffered_writes`) takes the copy's verdict, its
    /// zip checksum, instead of a mismatch of the whole slot. Every other
    /// page is returned as it is. [`Tablespace::scan`] applies it; a pass
    /// that makes its own facts calls it.
    pub fn doublewrite_copy(&self, mut f: PageFacts) -> PageFacts {
        if f.verdict == Verdict::Mismatch && self.in_doublewrite(f.page_no) {
            if let Some(v) = self.page(f.page_no).and_then(zip_copy_verdict) {
                f.verdict = v;
                f.lsn_pair = None;
            }
        }
        f
    }

    /// The problems of a page of this space ([`PageFacts::problems`]), less
    /// the page number and space id of a doublewrite copy.
    pub fn page_problems(&self, f: &PageFacts) -> impl Iterator<Item = PageProblem> + use<> {
        let copy = self.in_doublewrite(f.page_no);
        let zip_copy =
            copy && f.verdict == Verdict::Mismatch && self.page(f.page_no).is_some_and(is_zip_copy);
        f.problems(self.space_id).filter(move |p| {
            !(copy && matches!(p, PageProblem::PageNo { .. } | PageProblem::SpaceId { .. })
                || zip_copy && matches!(p, PageProblem::Checksum | PageProblem::LsnMismatch { .. }))
        })
    }

    /// The same space, told which byte ranges of its data read as zeros
    /// (the holes of a sparse file, which the caller learned without
    /// reading them: `SEEK_HOLE`). Sorted and apart; anything else is
    /// ignored. Pages wholly inside them are then served as zeros without
    /// touching the data, so passes over a file of huge apparent size and
    /// little data touch only the data (nothing mapped is faulted in).
    pub fn with_zero_ranges(mut self, zeros: &'a [Range<usize>]) -> Tablespace<'a> {
        let sorted = zeros
            .windows(2)
            .all(|w| matches!(w, [a, b] if a.end <= b.start));
        if sorted && zeros.iter().all(|r| r.start < r.end) {
            self.zeros = zeros;
        }
        self
    }

    /// Whether `start..end` lies wholly inside one known-zero range.
    fn known_zero(&self, start: usize, end: usize) -> bool {
        if self.zeros.is_empty() {
            return false;
        }
        let i = self.zeros.partition_point(|r| r.end < end);
        self.zeros
            .get(i)
            .is_some_and(|r| r.start <= start && end <= r.end)
    }

    /// Page bytes `start..start + size`: zeros from [`ZERO_PAGE`] when
    /// known to be zero, else the data's.
    fn page_at(&self, start: usize, size: usize) -> Option<&'a [u8]> {
        let end = start.checked_add(size)?;
        if end > self.data.len() {
            return None;
        }
        if self.known_zero(start, end) {
            if let Some(z) = ZERO_PAGE.get(..size) {
                return Some(z);
            }
        }
        if let Some(w) = self.window {
            w.window.touch(w.host, start);
        }
        self.data.get(start..end)
    }

    /// The bytes of the file.
    pub fn data(&self) -> &'a [u8] {
        self.data
    }
    /// How the format was found.
    pub fn detection(&self) -> &Detection {
        &self.detection
    }
    /// The format read from the flags (or assumed by detection).
    pub fn format(&self) -> &SpaceFormat {
        &self.detection.format
    }
    /// The checksum scheme of every page.
    pub fn scheme(&self) -> Scheme {
        self.detection.scheme
    }
    /// Physical page size in bytes.
    pub fn page_size(&self) -> u32 {
        self.detection.format.physical_size
    }
    /// Whole pages in the file.
    pub fn n_pages(&self) -> u32 {
        self.n_pages
    }
    /// Bytes after the last whole page (a torn tail), and where they start.
    pub fn tail(&self) -> (u64, u64) {
        let size = self.page_size() as usize;
        let whole = (self.n_pages as usize).saturating_mul(size);
        (self.data.len().saturating_sub(whole) as u64, whole as u64)
    }
    /// The space id (FSP header when page 0 verifies; else the pages').
    pub fn space_id(&self) -> SpaceId {
        self.space_id
    }
    /// The FSP header, if page 0 verified.
    pub fn fsp_header(&self) -> Option<FspHeader<'a>> {
        if self.detection.page0_ok {
            FspHeader::new(self.page(PageNo(0))?)
        } else {
            None
        }
    }
    /// How to name page types in this space.
    pub fn type_names(&self) -> TypeNames {
        if self.detection.format.sdi {
            TypeNames::MySql8
        } else {
            TypeNames::Classic
        }
    }
    /// Byte offset of page `n` in the file.
    pub fn file_offset(&self, n: PageNo) -> u64 {
        u64::from(n.0).saturating_mul(u64::from(self.page_size()))
    }
    /// The bytes of page `n`, if it is a whole page in the file; in a
    /// space read through a page source ([`Tablespace::with_source`]),
    /// the page as it reads (decompressed, decrypted), kept for the
    /// space's lifetime once transformed: a reader that goes over many
    /// pages takes them with [`Tablespace::page_ref`], whose memory is
    /// bounded.
    pub fn page(&self, n: PageNo) -> Option<&'a [u8]> {
        let stored = self.stored_page(n)?;
        Some(match self.source {
            Some(s) => s.kept(n, stored),
            None => stored,
        })
    }

    /// Page `n` as [`Tablespace::page`] reads it, held by the caller: in a
    /// space read through a page source, from a bounded cache (transformed
    /// again once evicted); else the stored bytes, borrowed.
    pub fn page_ref(&self, n: PageNo) -> Option<PageRef<'a>> {
        let stored = self.stored_page(n)?;
        Some(match self.source {
            Some(s) => s.shared(n, stored),
            None => PageRef::stored(stored),
        })
    }

    /// The stored bytes of page `n` (before any page source).
    pub(crate) fn stored_page(&self, n: PageNo) -> Option<&'a [u8]> {
        let size = self.page_size() as usize;
        let start = (n.0 as usize).checked_mul(size)?;
        self.page_at(start, size)
    }
    /// Whether page `n` lies in a known-zero range ([`Self::with_zero_ranges`]).
    pub fn is_known_zero(&self, n: PageNo) -> bool {
        let size = self.page_size() as usize;
        (n.0 as usize)
            .checked_mul(size)
            .is_some_and(|start| self.known_zero(start, start.saturating_add(size)))
    }
    /// The first run of whole pages known to be zero
    /// ([`Self::with_zero_ranges`]) that starts at page `from` or after it
    /// and before page `end`: its first page and its length, cut at `end`.
    /// Adjacent ranges make one run. `None` when there is none; without
    /// zero ranges, at once. At most one step per range.
    pub fn next_zero_run(&self, from: u32, end: u32) -> Option<(PageNo, u32)> {
        if self.zeros.is_empty() || from >= end {
            return None;
        }
        let size = (self.page_size() as usize).max(1);
        let start = (from as usize).checked_mul(size)?;
        let i = self.zeros.partition_point(|r| r.end <= start);
        let mut ranges = self.zeros.get(i..)?.iter().peekable();
        while let Some(r) = ranges.next() {
            let mut stop = r.end;
            while let Some(next) = ranges.next_if(|n| n.start == stop) {
                stop = next.end;
            }
            let first = r.start.max(start).div_ceil(size);
            let last = stop.checked_div(size)?;
            let first = u32::try_from(first).unwrap_or(u32::MAX);
            if first >= end {
                return None;
            }
            let last = u32::try_from(last).unwrap_or(u32::MAX).min(end);
            if first < last {
                return Some((PageNo(first), last.saturating_sub(first)));
            }
        }
        None
    }
    /// The runs of whole pages known to be zero ([`Self::next_zero_run`]),
    /// in file order, as (first page, pages).
    pub fn zero_runs(&self) -> impl Iterator<Item = (PageNo, u32)> + 'a {
        let this = self.clone();
        let mut n = 0u32;
        std::iter::from_fn(move || {
            let (z, count) = this.next_zero_run(n, this.n_pages)?;
            n = z.0.saturating_add(count);
            Some((z, count))
        })
    }
    /// Every whole page not known to be zero, with its number, in file
    /// order: [`Self::pages`] without the holes of a sparse file, each run
    /// of them skipped in one step (so a walk takes time with the data,
    /// not with the size the file claims).
    pub fn data_pages(&self) -> impl Iterator<Item = (PageNo, &'a [u8])> + 'a {
        let this = self.clone();
        let mut n = 0u32;
        let mut data_end = 0u32;
        std::iter::from_fn(move || {
            if n >= this.n_pages {
                return None;
            }
            if n >= data_end {
                match this.next_zero_run(n, this.n_pages) {
                    Some((z, count)) if z.0 == n => {
                        n = z.0.saturating_add(count);
                        data_end = this
                            .next_zero_run(n, this.n_pages)
                            .map_or(this.n_pages, |r| r.0 .0);
                    }
                    Some((z, _)) => data_end = z.0,
                    None => data_end = this.n_pages,
                }
                if n >= this.n_pages {
                    return None;
                }
            }
            let page = this.page(PageNo(n))?;
            let at = PageNo(n);
            n = n.saturating_add(1);
            Some((at, page))
        })
    }
    /// Every whole page with its number, in file order (as
    /// [`Tablespace::page`] reads them: through a page source, each
    /// transformed page is kept; a pass over a whole space is a fold).
    pub fn pages(&self) -> impl Iterator<Item = (PageNo, &'a [u8])> + 'a {
        let size = self.page_size() as usize;
        let this = self.clone();
        self.data
            .chunks_exact(size.max(1))
            .enumerate()
            .map(move |(i, p)| {
                let start = i.saturating_mul(size);
                let p = this.page_at(start, size).unwrap_or(p);
                let n = PageNo(u32::try_from(i).unwrap_or(u32::MAX));
                (n, this.source.map_or(p, |s| s.kept(n, p)))
            })
    }
    /// The one-pass scan: facts for every page, in file order.
    pub fn scan(&self) -> impl Iterator<Item = PageFacts> + 'a {
        let scheme = self.scheme();
        let this = self.clone();
        self.pages()
            .map(move |(n, p)| this.doublewrite_copy(page_facts(p, n, scheme)))
    }
    /// Facts for pages `from..=to` only.
    pub fn scan_range(&self, from: u32, to: u32) -> impl Iterator<Item = PageFacts> + 'a {
        let this = self.clone();
        (from..=to.min(self.n_pages.saturating_sub(1)))
            .filter(move |_| this.n_pages > 0)
            .filter_map(move |n| this.facts(PageNo(n)))
    }

    /// Page `n`'s facts as the scan gives them (a doublewrite slot's copy
    /// judged as a copy: [`Tablespace::doublewrite_copy`]); `None` past the
    /// end. Through a page source the page is held, not kept
    /// ([`Tablespace::page_ref`]).
    pub fn facts(&self, n: PageNo) -> Option<PageFacts> {
        self.page_ref(n).map(|p| self.facts_of(&p, n))
    }

    /// The facts of `page`, page `n` of this space, as the scan gives
    /// them.
    pub fn facts_of(&self, page: &[u8], n: PageNo) -> PageFacts {
        self.doublewrite_copy(page_facts(page, n, self.scheme()))
    }
}

/// The most common FIL_PAGE_SPACE_ID of the pages that verify, if any does.
fn majority_space_id(data: &[u8], size: usize, scheme: Scheme) -> Option<SpaceId> {
    let mut counts: Vec<(u32, u32)> = Vec::new();
    for page in data.chunks_exact(size.max(1)).take(4096) {
        let compressed_fcrc32 = scheme == Scheme::FullCrc32
            && be_u16(page, crate::fil::FIL_PAGE_TYPE)
                .is_some_and(|t| t & PageType::FCRC32_COMPRESSED_MARKER != 0);
        if plausible(page, scheme) && !compressed_fcrc32 {
            let id = be_u32(page, crate::fil::FIL_PAGE_SPACE_ID).unwrap_or(0);
            match counts.iter_mut().find(|(i, _)| *i == id) {
                Some((_, c)) => *c = c.saturating_add(1),
                None => counts.push((id, 1)),
            }
        }
    }
    counts
        .iter()
        .max_by_key(|(_, c)| *c)
        .map(|(i, _)| SpaceId(*i))
}

/// No page verifies: the most common FIL_PAGE_SPACE_ID of the pages that
/// carry their own page number, and how many carry it (page 0's field when
/// none does).
fn numbered_space_id(data: &[u8], size: usize) -> (SpaceId, u32) {
    let mut counts: Vec<(u32, u32)> = Vec::new();
    for (i, page) in data.chunks_exact(size.max(1)).take(4096).enumerate() {
        if be_u32(page, crate::fil::FIL_PAGE_OFFSET) == u32::try_from(i).ok()
            && page.iter().any(|&b| b != 0)
        {
            let id = be_u32(page, crate::fil::FIL_PAGE_SPACE_ID).unwrap_or(0);
            match counts.iter_mut().find(|(x, _)| *x == id) {
                Some((_, c)) => *c = c.saturating_add(1),
                None => counts.push((id, 1)),
            }
        }
    }
    match counts.iter().max_by_key(|(_, c)| *c) {
        Some(&(id, n)) => (SpaceId(id), n),
        None => (
            SpaceId(be_u32(data, crate::fil::FIL_PAGE_SPACE_ID).unwrap_or(0)),
            0,
        ),
    }
}
