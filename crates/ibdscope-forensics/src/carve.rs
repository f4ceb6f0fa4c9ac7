//! Carving: InnoDB pages found in any bytes (a raw disk or partition
//! image, a filesystem image, an `ibdata1`, a reused `.ibd`), grouped by
//! space id and index id, with the newest version of each page kept, and
//! the plan of one tablespace image per space.
//!
//! A candidate is a position on the alignment (512 bytes by default: a
//! sector) and a size. Each is rejected cheaply before any checksum is
//! computed, then accepted only when a server would accept the page
//! (`verify_page`, the rules of MySQL `BlockReporter::is_corrupted` and
//! MariaDB `buf_page_is_corrupted`), or, when asked, when its header is
//! self-consistent.
//!
//! | layout | cheap test (bytes of the candidate) | then | source |
//! |---|---|---|---|
//! | classic, 4K–64K | `FIL_PAGE_LSN` low word (20..24) = last 4 bytes (`FIL_PAGE_END_LSN_OLD_CHKSUM + 4`) | crc32 / innodb / none | `fil0types.h`, `buf0buf.cc`, `checksum.cc` |
//! | full_crc32, 4K–64K | `FIL_PAGE_LSN` low word = bytes size-8..size-4 (`FIL_PAGE_FCRC32_END_LSN`) | CRC-32C of size-4 bytes | MariaDB `buf0buf.cc` (`buf_page_is_corrupted`) |
//! | full_crc32 page_compressed | `FIL_PAGE_TYPE` bit 15, bytes 0..4 zero (not encrypted) | CRC-32C of the stored size (type bits 0..14 × 256) | MariaDB `fil0pagecompress.cc`, `buf_page_full_crc32_size` |
//! | ROW_FORMAT=COMPRESSED, 1K–16K | a page type a compressed space holds | zip crc32 / Adler-32 / none | `page0zip.cc` (`page_zip_verify_checksum`) |
//! | MariaDB page_compressed (34354), 4K–64K | the type | decompressed, then the classic rules | MariaDB `fil0pagecompress.cc` |
//!
//! Every candidate needs a non-zero `FIL_PAGE_LSN` or checksum field: a
//! page with both zero is all zeros to every rule or refused by it (the
//! empty-page rule, `buf_page_is_zeroes`), and the free space of a disk is
//! mostly zeros. A page accepted at a position covers its bytes: the scan
//! goes on after it.
//!
//! The scan runs on the engine's threads over pieces of 8 MiB
//! ([`scan`]), each piece handing back the small `Copy` facts of the pages
//! it found ([`Found`]); nothing of a page is kept but those facts, so
//! memory grows with the pages found, not with the image.
//!
//! Encrypted pages a space cannot take without the key are counted; with
//! the key (`--key-file`, `--keyring`) [`decrypt`] opens them with the key
//! of their space's carved page 0 before grouping, so that they verify and
//! join their space and index.
//!
//! Grouping ([`group`]): pages are split by space id, then by what each
//! page says of its space's layout (the slot size and checksum layout),
//! then by index ids where versions of one page number belong to
//! different indexes (two generations of a table, two servers' files);
//! versions of one page number are sorted newest LSN first, the first that
//! verifies kept. Page 0 versions whose FSP flags disagree make the space
//! `mixed` (two tablespaces that shared the id): its pages are still
//! kept, newest first, and the report says so.

use ibdscope_core::checksum::{full_crc32, page_crc32, zip_crc32, Algorithm, Scheme, Verdict};
use ibdscope_core::crypt::keyring::Keyring;
use ibdscope_core::crypt::mariadb::KeyFile;
use ibdscope_core::fil::{
    FIL_PAGE_DATA, FIL_PAGE_LSN, FIL_PAGE_NEXT, FIL_PAGE_OFFSET, FIL_PAGE_PREV, FIL_PAGE_SPACE_ID,
    FIL_PAGE_TYPE,
};
use ibdscope_core::fsp::{
    extent_size, FSP_FREE_LIMIT, FSP_HEADER_OFFSET, FSP_SIZE, FSP_SPACE_FLAGS, FSP_SPACE_ID,
};
use ibdscope_core::index::{
    PAGE_HEADER, PAGE_INDEX_ID, PAGE_LEVEL, PAGE_NEW_INFIMUM, PAGE_NEW_SUPREMUM, PAGE_N_DIR_SLOTS,
    PAGE_N_HEAP, PAGE_OLD_INFIMUM, PAGE_OLD_SUPREMUM,
};
use ibdscope_core::pagecomp::{self, Layout};
use ibdscope_core::parallel::map_in_order;
use ibdscope_core::space::verify_page;
use ibdscope_core::{Engine, IndexId, Lsn, PageNo, PageType, SpaceId, TypeNames, FIL_NULL};
use ibdscope_prims::bytes::{be_u16, be_u32, be_u64};
use std::collections::BTreeMap;
use std::ops::Range;

mod keys;
mod sources;
pub use keys::decrypt;
pub use sources::{PageSource, SourceMap, SourcesFinding, SourcesProblem, Stored};

/// The default alignment: a sector.
const SECTOR: u32 = 512;
/// Page sizes of the classic and full_crc32 layouts (`UNIV_PAGE_SIZE_MIN`
/// to `UNIV_PAGE_SIZE_MAX`, `univ.i`).
const PAGE_SIZES: [u32; 5] = [4096, 8192, 16384, 32768, 65536];
/// Physical sizes of ROW_FORMAT=COMPRESSED pages (`UNIV_ZIP_SIZE_MIN` to
/// 16 KiB: `KEY_BLOCK_SIZE` 1, 2, 4, 8, 16).
const ZIP_SIZES: [u32; 5] = [1024, 2048, 4096, 8192, 16384];
/// The largest page: what a piece reads past its end.
const MAX_PAGE: usize = 65536;
/// Bytes of candidate positions per piece of the scan.
const PIECE: usize = 8 << 20;

/// What a carve accepts, and the keys it decrypts with ([`decrypt`]).
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct CarveOptions<'a> {
    /// Candidate positions are multiples of this (at least 1).
    pub align: u32,
    /// Accept pages whose header is self-consistent (the LSN's low word in
    /// the trailer) without a checksum that verifies.
    pub unverified: bool,
    /// Keep only the index pages of this index, whatever their space.
    pub index_id: Option<IndexId>,
    /// MariaDB `file_key_management` keys (`--key-file`).
    pub key_file: Option<&'a KeyFile>,
    /// A MySQL keyring (`--keyring`).
    pub keyring: Option<&'a Keyring>,
}

impl Default for CarveOptions<'_> {
    fn default() -> Self {
        CarveOptions {
            align: SECTOR,
            unverified: false,
            index_id: None,
            key_file: None,
            keyring: None,
        }
    }
}

/// How a page found was accepted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Accepted {
    /// Its checksum verifies under this algorithm.
    Verifies(Algorithm),
    /// A MariaDB page_compressed page (not full_crc32) that decompresses
    /// to a page whose checksum verifies under this algorithm.
    Decompressed(Algorithm),
    /// `--unverified`: the header is self-consistent, the checksum does
    /// not verify.
    SelfConsistent,
    /// An encrypted page decrypted with its space's key (`--key-file`,
    /// `--keyring`: [`decrypt`]) whose plain page verifies under this
    /// algorithm.
    Decrypted(Algorithm),
    /// Only an index page's first block was recognised (its FIL and index
    /// headers, the infimum and supremum records) and the page does not
    /// verify: a page the filesystem stored in more than two pieces (a
    /// fragmented file), overwritten past its first block, or damaged.
    /// Counted ([`Carved::partial`]), in no image.
    HeaderOnly,
}

impl Accepted {
    /// Whether a checksum verified.
    fn verifies(self) -> bool {
        !matches!(self, Accepted::SelfConsistent | Accepted::HeaderOnly)
    }
    /// A word for reports.
    pub fn word(self) -> &'static str {
        match self {
            Accepted::Verifies(a) | Accepted::Decompressed(a) | Accepted::Decrypted(a) => a.name(),
            Accepted::SelfConsistent => "unverified",
            Accepted::HeaderOnly => "header only",
        }
    }
}

/// The checksum layout a page was found in: with the slot size, what tells
/// two spaces of one id apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum PageLayout {
    /// crc32 / innodb / none in header and trailer.
    Classic,
    /// MariaDB full_crc32.
    FullCrc32,
    /// ROW_FORMAT=COMPRESSED.
    Zip,
}

impl PageLayout {
    /// The core's checksum scheme of this layout.
    fn scheme(self) -> Scheme {
        match self {
            PageLayout::Classic => Scheme::Classic,
            PageLayout::FullCrc32 => Scheme::FullCrc32,
            PageLayout::Zip => Scheme::Zip,
        }
    }
    /// A word for reports.
    pub fn word(self) -> &'static str {
        match self {
            PageLayout::Classic => "classic",
            PageLayout::FullCrc32 => "full_crc32",
            PageLayout::Zip => "compressed",
        }
    }
}

/// One page found: where, and what its header says. `Copy`, no bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Found {
    /// Which source (the caller's numbering).
    pub source: u32,
    /// Byte offset of the page in the source.
    pub offset: u64,
    /// Bytes of the page in the source: the physical page size, or a
    /// full_crc32 page_compressed page's stored size.
    pub len: u32,
    /// A page stored with a hole (a filesystem that left its all-zero
    /// blocks unallocated, as `mke2fs -d` does): `(split, hole)`, the
    /// page's first `split` bytes at `offset`, then `hole` zero bytes not
    /// stored, then the rest right after the first part. `(0, 0)`: stored
    /// whole.
    pub gap: (u32, u32),
    /// The slot the page fills in its space (its physical page size); 0
    /// when the page alone does not tell (full_crc32 page_compressed).
    pub slot: u32,
    /// The checksum layout.
    pub layout: PageLayout,
    /// How it was accepted.
    pub accepted: Accepted,
    /// `FIL_PAGE_SPACE_ID`.
    pub space_id: SpaceId,
    /// `FIL_PAGE_OFFSET`.
    pub page_no: PageNo,
    /// `FIL_PAGE_LSN`.
    pub lsn: Lsn,
    /// `FIL_PAGE_TYPE` (a page_compressed page: its stored type).
    pub page_type: PageType,
    /// `FIL_PAGE_PREV`.
    pub prev: PageNo,
    /// `FIL_PAGE_NEXT`.
    pub next: PageNo,
    /// An index page's `PAGE_INDEX_ID` (`None` for other pages, and for
    /// index pages whose header is compressed).
    pub index_id: Option<IndexId>,
    /// An index page's `PAGE_LEVEL`.
    pub level: u16,
    /// An index page's format: `PAGE_N_HEAP` bit 15 (COMPACT).
    pub compact: bool,
    /// Page 0: `FSP_SPACE_FLAGS`.
    pub flags: Option<u32>,
    /// Page 0: `FSP_SIZE` (0 for other pages).
    pub fsp_size: u32,
    /// The page is encrypted (MariaDB: a key version in the header; MySQL
    /// keyring: an encrypted page type): its index header was not read.
    pub encrypted: bool,
}

/// What one piece of the scan found, in offset order.
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct Piece {
    /// The byte range of candidate positions the piece covered.
    pub range: Range<usize>,
    /// The pages found.
    pub found: Vec<Found>,
    /// Candidates that passed the cheap tests and were refused by every
    /// checksum rule.
    pub refused: u64,
    /// Index page headers found at a filesystem block whose page does not
    /// verify ([`Accepted::HeaderOnly`]).
    pub partial: Vec<Found>,
    /// Encrypted pages found that no space can take without the key
    /// ([`encrypted_page`]).
    pub encrypted: Vec<Found>,
}

/// `FIL_PAGE_FCRC32_END_LSN`: the LSN's low word 8 bytes before the end
/// of a full_crc32 page (MariaDB `fil0fil.h`).
const FIL_PAGE_FCRC32_END_LSN: usize = 8;

/// A buffer one thread reuses from candidate to candidate.
struct Scratch {
    out: Vec<u8>,
}

/// Scans `data` (source number `source`) for pages, on the engine's
/// threads, handing each piece's pages to `sink` in offset order (the
/// caller keeps them, draws progress, releases the bytes). Byte ranges in
/// `zeros` (a sparse file's holes, sorted) are not read. Stops at the
/// first error of `sink`.
pub fn scan<E>(
    data: &[u8],
    source: u32,
    opts: &CarveOptions<'_>,
    zeros: &[Range<usize>],
    engine: &Engine<'_>,
    sink: impl FnMut(Piece) -> Result<(), E>,
) -> Result<(), E> {
    let align = opts.align.max(1) as usize;
    let piece = PIECE
        .checked_div(align)
        .unwrap_or(1)
        .max(1)
        .saturating_mul(align);
    let n = data.len().div_ceil(piece);
    let n = u32::try_from(n).unwrap_or(u32::MAX);
    map_in_order(
        engine,
        n,
        || Scratch { out: Vec::new() },
        |st, k| {
            let start = (k as usize).saturating_mul(piece);
            let end = start.saturating_add(piece).min(data.len());
            scan_range(data, start..end, source, opts, zeros, st)
        },
        sink,
    )
}

/// Whether `r` lies inside one of `zeros` (sorted).
fn all_zero(zeros: &[Range<usize>], r: &Range<usize>) -> bool {
    let i = zeros.partition_point(|z| z.end <= r.start);
    zeros
        .get(i)
        .is_some_and(|z| z.start <= r.start && r.end <= z.end)
}

fn scan_range(
    data: &[u8],
    range: Range<usize>,
    source: u32,
    opts: &CarveOptions<'_>,
    zeros: &[Range<usize>],
    st: &mut Scratch,
) -> Piece {
    let align = opts.align.max(1) as usize;
    let mut piece = Piece {
        range: range.clone(),
        ..Piece::default()
    };
    let reach = range.end.saturating_add(MAX_PAGE).min(data.len());
    if all_zero(zeros, &(range.start..reach)) {
        return piece;
    }
    let mut p = range.start;
    while p < range.end {
        let b = data.get(p..reach).unwrap_or(&[]);
        let at_block = p.is_multiple_of(HOLE_BLOCK);
        let step = match probe(b, at_block, opts, st, &mut piece.refused) {
            Some(mut f) => {
                f.source = source;
                f.offset = p as u64;
                // An encrypted page's index is known once decrypted.
                let keep = opts.index_id.is_none_or(|id| {
                    f.index_id == Some(id) || f.encrypted || structure_page(f.page_type)
                });
                let len = f.len as usize;
                if keep {
                    piece.found.push(f);
                }
                len.div_ceil(align).max(1).saturating_mul(align)
            }
            None => {
                if let Some(mut f) = encrypted_page(b) {
                    f.source = source;
                    f.offset = p as u64;
                    piece.encrypted.push(f);
                }
                if at_block {
                    if let Some(mut f) = header_only(b) {
                        f.source = source;
                        f.offset = p as u64;
                        if opts.index_id.is_none_or(|id| f.index_id == Some(id)) {
                            piece.partial.push(f);
                        }
                    }
                }
                align
            }
        };
        p = p.saturating_add(step);
    }
    piece
}

/// The filesystem block whose all-zero instances a sparse copy leaves
/// out: 4 KiB, ext4's default block (`mke2fs.conf`). `mke2fs -d` and
/// `debugfs write` copy a file without its all-zero blocks
/// (e2fsprogs `misc/create_inode.c`, `copy_file_chunk`).
const HOLE_BLOCK: usize = 4096;

/// A classic or full_crc32 page at the start of `b` stored without one
/// run of its all-zero 4 KiB blocks (the stored blocks one after the
/// other): the page's last stored block carries the trailer's LSN word;
/// each place of the run between the first and the last stored block is
/// tried, and the page accepted when the page put back together verifies.
fn probe_gapped(b: &[u8], lo: u32, st: &mut Scratch) -> Option<Found> {
    for &s in &PAGE_SIZES {
        let s = s as usize;
        let n = s.checked_div(HOLE_BLOCK)?;
        if n < 2 {
            continue;
        }
        // m stored blocks (fewer than n), the last holding the trailer.
        for m in 2..n {
            let end = m.checked_mul(HOLE_BLOCK)?;
            let Some(stored) = b.get(..end) else { break };
            let tail = be_u32(stored, end.saturating_sub(4));
            let fcrc_tail = be_u32(stored, end.saturating_sub(FIL_PAGE_FCRC32_END_LSN));
            let layouts = [
                (tail == Some(lo), PageLayout::Classic),
                (fcrc_tail == Some(lo), PageLayout::FullCrc32),
            ];
            for (hit, layout) in layouts {
                if !hit {
                    continue;
                }
                let hole = s.checked_sub(end)?;
                for a in 1..m {
                    let split = a.checked_mul(HOLE_BLOCK)?;
                    st.out.clear();
                    st.out.extend_from_slice(stored.get(..split)?);
                    st.out.resize(split.checked_add(hole)?, 0);
                    st.out.extend_from_slice(stored.get(split..)?);
                    if let Verdict::Valid(alg) = verify_page(&st.out, layout.scheme()) {
                        let mut f = found(&st.out, layout, Accepted::Verifies(alg), s);
                        f.len = u32::try_from(end).ok()?;
                        f.gap = (u32::try_from(split).ok()?, u32::try_from(hole).ok()?);
                        return Some(f);
                    }
                }
            }
        }
    }
    None
}

/// A ROW_FORMAT=COMPRESSED page larger than a block stored without one
/// run of its all-zero blocks (at its end, or between two stored parts):
/// each shape tried, the page accepted when it verifies.
fn probe_zip_gapped(b: &[u8], st: &mut Scratch) -> Option<Found> {
    for &s in &ZIP_SIZES {
        let s = s as usize;
        let n = s.checked_div(HOLE_BLOCK)?;
        for m in 1..n {
            let end = m.checked_mul(HOLE_BLOCK)?;
            let Some(stored) = b.get(..end) else { break };
            let hole = s.checked_sub(end)?;
            for a in (1..=m).rev() {
                let split = a.checked_mul(HOLE_BLOCK)?;
                st.out.clear();
                st.out.extend_from_slice(stored.get(..split)?);
                st.out.resize(split.checked_add(hole)?, 0);
                st.out.extend_from_slice(stored.get(split..)?);
                if let Verdict::Valid(alg) = verify_page(&st.out, Scheme::Zip) {
                    let mut f = found(&st.out, PageLayout::Zip, Accepted::Verifies(alg), s);
                    f.len = u32::try_from(end).ok()?;
                    f.gap = (u32::try_from(split).ok()?, u32::try_from(hole).ok()?);
                    return Some(f);
                }
            }
        }
    }
    None
}

/// The pages that say where a space's indexes are (page 0, the INODE
/// pages with the segments a root names, `fsp0fsp.cc`), kept with
/// `--index-id` for the space the index's pages come from.
fn structure_page(t: PageType) -> bool {
    matches!(
        t,
        PageType::FIL_PAGE_TYPE_FSP_HDR | PageType::FIL_PAGE_INODE
    )
}

/// Types a ROW_FORMAT=COMPRESSED space's pages carry (`page0zip.cc`,
/// `fsp0fsp.cc`, `lob0zip.cc`): the cheap test of the zip sizes.
fn zip_type(t: PageType) -> bool {
    matches!(
        t,
        PageType::FIL_PAGE_INDEX
            | PageType::FIL_PAGE_RTREE
            | PageType::FIL_PAGE_SDI
            | PageType::FIL_PAGE_TYPE_FSP_HDR
            | PageType::FIL_PAGE_TYPE_XDES
            | PageType::FIL_PAGE_INODE
            | PageType::FIL_PAGE_IBUF_BITMAP
            | PageType::FIL_PAGE_TYPE_ZBLOB
            | PageType::FIL_PAGE_TYPE_ZBLOB2
            | PageType::FIL_PAGE_SDI_ZBLOB
            | PageType::FIL_PAGE_TYPE_ZLOB_FIRST
            | PageType::FIL_PAGE_TYPE_ZLOB_DATA
            | PageType::FIL_PAGE_TYPE_ZLOB_INDEX
            | PageType::FIL_PAGE_TYPE_ZLOB_FRAG
            | PageType::FIL_PAGE_TYPE_ZLOB_FRAG_ENTRY
    )
}

/// An index page's first block at the start of `b` (a candidate no rule
/// accepted): `FIL_PAGE_INDEX` or `FIL_PAGE_RTREE`, a non-zero LSN, the
/// infimum and supremum records where the page's format puts them
/// (`page0page.h`: `PAGE_NEW_INFIMUM`, `PAGE_NEW_SUPREMUM` for COMPACT,
/// `PAGE_OLD_*` for REDUNDANT; `PAGE_N_HEAP` bit 15 says which), at least
/// two directory slots (`PAGE_N_DIR_SLOTS`). Random bytes pass about once
/// in 2^130 blocks.
fn header_only(b: &[u8]) -> Option<Found> {
    let t = PageType(be_u16(b, FIL_PAGE_TYPE)?);
    if !matches!(t, PageType::FIL_PAGE_INDEX | PageType::FIL_PAGE_RTREE)
        || be_u64(b, FIL_PAGE_LSN)? == 0
    {
        return None;
    }
    let n_heap = be_u16(b, PAGE_HEADER.saturating_add(PAGE_N_HEAP))?;
    let (inf, sup): (usize, usize) = if n_heap & 0x8000 != 0 {
        (PAGE_NEW_INFIMUM, PAGE_NEW_SUPREMUM)
    } else {
        (PAGE_OLD_INFIMUM, PAGE_OLD_SUPREMUM)
    };
    let slots = be_u16(b, PAGE_HEADER.saturating_add(PAGE_N_DIR_SLOTS))?;
    if slots < 2
        || b.get(inf..inf.checked_add(8)?)? != b"infimum\0"
        || b.get(sup..sup.checked_add(8)?)? != b"supremum"
    {
        return None;
    }
    let mut f = found(b, PageLayout::Classic, Accepted::HeaderOnly, 0);
    f.len = 0;
    Some(f)
}

/// The MySQL keyring page types (`fil0types.h`): `FIL_PAGE_ENCRYPTED`,
/// `FIL_PAGE_COMPRESSED_AND_ENCRYPTED`, `FIL_PAGE_ENCRYPTED_RTREE`.
const MYSQL_ENCRYPTED: [u16; 3] = [15, 16, 17];
/// The largest MariaDB key version taken as one (bytes 0..4 of a
/// full_crc32 page): key versions start at 1 and grow by one a rotation
/// (`file_key_management` always gives 1); random bytes pass once in
/// 2^16 positions.
const MAX_KEY_VERSION: u32 = 0xffff;
/// `FIL_PAGE_ORIGINAL_TYPE_V1` (`fil0types.h`): an encrypted page's type
/// before encryption.
const FIL_PAGE_ORIGINAL_TYPE_V1: usize = 28;

/// An encrypted page at the start of `b` that no rule accepted, as found
/// without the key:
/// - MySQL keyring (`os0enc.cc`, `Encryption::encrypt`): the FIL header
///   is kept (type 15, 16 or 17, the original type at
///   `FIL_PAGE_ORIGINAL_TYPE_V1`, the space id and page number), the rest
///   encrypted with the trailer, and the checksum computed before: nothing
///   verifies; taken when the original type is one MySQL names (an
///   R-tree page keeps none), bytes 26..34 hold nothing else and the LSN
///   is not zero. Its size is not known (`len` 0).
/// - MariaDB full_crc32 (`fil0crypt.cc`, `fil_space_encrypt_full_crc32`):
///   the key version at bytes 0..4, bytes 26.. encrypted (the space id
///   and the trailer's LSN word with them), the CRC-32C at the end over
///   the encrypted page: taken when it verifies at one of the page sizes.
///   Its space id is not known (`space_id` is the encrypted bytes').
fn encrypted_page(b: &[u8]) -> Option<Found> {
    let head = be_u32(b, 0)?;
    let lsn = be_u64(b, FIL_PAGE_LSN)?;
    let t = PageType(be_u16(b, FIL_PAGE_TYPE)?);
    if lsn == 0 {
        return None;
    }
    if MYSQL_ENCRYPTED.contains(&t.0) {
        // Bytes 26..34 (`FIL_PAGE_FILE_FLUSH_LSN`, 0 outside the system
        // tablespace's page 0) hold only the original type at 28; an
        // R-tree page (17) keeps none (docs/format.md §7).
        let original = PageType(be_u16(b, FIL_PAGE_ORIGINAL_TYPE_V1)?);
        let rest = be_u16(b, 26)? == 0 && be_u32(b, 30)? == 0;
        let named = if t.0 == 17 {
            original.0 == 0
        } else {
            original.name(TypeNames::MySql8).is_some()
        };
        if !rest || !named {
            return None;
        }
        let mut f = found(b, PageLayout::Classic, Accepted::SelfConsistent, 0);
        f.len = 0;
        f.encrypted = true;
        return Some(f);
    }
    // A key version (at most 2^16: key versions count rotations from 1),
    // and a type MariaDB writes; a page_compressed one (type bit 15) at
    // its stored size only.
    if head == 0 || head > MAX_KEY_VERSION {
        return None;
    }
    let stored = usize::from(t.0 & !PageType::FCRC32_COMPRESSED_MARKER) << 8;
    let sizes: &[u32] = if t.0 & PageType::FCRC32_COMPRESSED_MARKER != 0 {
        if !(FIL_PAGE_DATA.saturating_add(8)..MAX_PAGE).contains(&stored) {
            return None;
        }
        &[]
    } else if t.name(TypeNames::Classic).is_some() {
        &PAGE_SIZES
    } else {
        return None;
    };
    let compressed = u32::try_from(stored).ok()?;
    let one = [compressed];
    let sizes = if sizes.is_empty() { &one[..] } else { sizes };
    for &s in sizes {
        let s = s as usize;
        let page = b.get(..s)?;
        if be_u32(page, s.saturating_sub(4)) == Some(full_crc32(page)) {
            let mut f = found(
                page,
                PageLayout::FullCrc32,
                Accepted::Verifies(Algorithm::FullCrc32),
                s,
            );
            f.encrypted = true;
            f.index_id = None;
            f.level = 0;
            f.compact = false;
            if sizes.len() == 1 {
                // page_compressed: the slot is not known.
                f.slot = 0;
            }
            return Some(f);
        }
    }
    None
}

/// The page at the start of `b`, if one is there.
fn probe(
    b: &[u8],
    at_block: bool,
    opts: &CarveOptions<'_>,
    st: &mut Scratch,
    refused: &mut u64,
) -> Option<Found> {
    let chk = be_u32(b, 0)?;
    let lsn = be_u64(b, FIL_PAGE_LSN)?;
    if chk == 0 && lsn == 0 {
        return None;
    }
    let t = PageType(be_u16(b, FIL_PAGE_TYPE)?);
    be_u32(b, FIL_PAGE_DATA)?;
    let lo = lsn as u32;
    let mut self_consistent = None;
    for &s in &PAGE_SIZES {
        let s = s as usize;
        let Some(page) = b.get(..s) else { break };
        let tail = be_u32(page, s.saturating_sub(4)).unwrap_or(0);
        let fcrc_tail = be_u32(page, s.saturating_sub(FIL_PAGE_FCRC32_END_LSN)).unwrap_or(0);
        if tail == lo {
            if let Verdict::Valid(a) = verify_page(page, Scheme::Classic) {
                return Some(found(page, PageLayout::Classic, Accepted::Verifies(a), s));
            }
            *refused = refused.saturating_add(1);
            self_consistent.get_or_insert((s, PageLayout::Classic));
        }
        if fcrc_tail == lo {
            if let Verdict::Valid(a) = verify_page(page, Scheme::FullCrc32) {
                return Some(found(page, PageLayout::FullCrc32, Accepted::Verifies(a), s));
            }
            *refused = refused.saturating_add(1);
            self_consistent.get_or_insert((s, PageLayout::FullCrc32));
        }
    }
    if at_block {
        if let Some(f) = probe_gapped(b, lo, st) {
            return Some(f);
        }
    }
    // MariaDB full_crc32 page_compressed: the stored size in the type.
    if t.0 & PageType::FCRC32_COMPRESSED_MARKER != 0 && chk == 0 {
        let size = usize::from(t.0 & !PageType::FCRC32_COMPRESSED_MARKER) << 8;
        if (FIL_PAGE_DATA.saturating_add(8)..MAX_PAGE).contains(&size) {
            if let Some(page) = b.get(..size) {
                let stored = be_u32(page, size.saturating_sub(4));
                if stored == Some(full_crc32(page)) {
                    let mut f = found(
                        page,
                        PageLayout::FullCrc32,
                        Accepted::Verifies(Algorithm::FullCrc32),
                        size,
                    );
                    f.slot = 0;
                    f.index_id = None;
                    return Some(f);
                }
                *refused = refused.saturating_add(1);
            }
        }
    }
    // MariaDB page_compressed outside full_crc32: verified once decompressed.
    if t == PageType::FIL_PAGE_PAGE_COMPRESSED {
        for &s in &PAGE_SIZES {
            let s = s as usize;
            let Some(page) = b.get(..s) else { break };
            let ok = pagecomp::decompress(page, Layout::Classic, &mut st.out);
            if let Ok(Some(_)) = ok {
                if let Verdict::Valid(a) = verify_page(&st.out, Scheme::Classic) {
                    let mut f = found(&st.out, PageLayout::Classic, Accepted::Decompressed(a), s);
                    f.page_type = t;
                    return Some(f);
                }
            }
        }
        *refused = refused.saturating_add(1);
    }
    if zip_type(t) {
        for &s in &ZIP_SIZES {
            let s = s as usize;
            let Some(page) = b.get(..s) else { break };
            if let Verdict::Valid(a) = verify_page(page, Scheme::Zip) {
                return Some(found(page, PageLayout::Zip, Accepted::Verifies(a), s));
            }
        }
        if at_block {
            if let Some(f) = probe_zip_gapped(b, st) {
                return Some(f);
            }
        }
        *refused = refused.saturating_add(1);
    }
    if opts.unverified && lsn != 0 && t.name(TypeNames::MySql8).is_some() {
        if let Some((s, layout)) = self_consistent {
            let page = b.get(..s)?;
            return Some(found(page, layout, Accepted::SelfConsistent, s));
        }
    }
    None
}

/// The facts of `page` (its header read from `page`, which may be a
/// decompressed copy), filling a slot of `slot` bytes.
fn found(page: &[u8], layout: PageLayout, accepted: Accepted, slot: usize) -> Found {
    let r32 = |at| be_u32(page, at).unwrap_or(0);
    let t = PageType(be_u16(page, FIL_PAGE_TYPE).unwrap_or(0));
    let index = matches!(
        t,
        PageType::FIL_PAGE_INDEX | PageType::FIL_PAGE_RTREE | PageType::FIL_PAGE_SDI
    );
    let page_no = PageNo(r32(FIL_PAGE_OFFSET));
    let flags = (page_no.0 == 0 && t == PageType::FIL_PAGE_TYPE_FSP_HDR)
        .then(|| r32(FSP_HEADER_OFFSET.saturating_add(FSP_SPACE_FLAGS)));
    let slot = u32::try_from(slot).unwrap_or(0);
    // MariaDB encrypted (not full_crc32): the index header is encrypted.
    let encrypted = accepted == Accepted::Verifies(Algorithm::MariaDbEncrypted);
    let index = index && !encrypted;
    Found {
        encrypted,
        source: 0,
        offset: 0,
        len: slot,
        gap: (0, 0),
        slot,
        layout,
        accepted,
        space_id: SpaceId(r32(FIL_PAGE_SPACE_ID)),
        page_no,
        lsn: Lsn(be_u64(page, FIL_PAGE_LSN).unwrap_or(0)),
        page_type: t,
        prev: PageNo(r32(FIL_PAGE_PREV)),
        next: PageNo(r32(FIL_PAGE_NEXT)),
        index_id: index
            .then(|| IndexId(be_u64(page, PAGE_HEADER.saturating_add(PAGE_INDEX_ID)).unwrap_or(0))),
        level: if index {
            be_u16(page, PAGE_HEADER.saturating_add(PAGE_LEVEL)).unwrap_or(0)
        } else {
            0
        },
        compact: index
            && be_u16(page, PAGE_HEADER.saturating_add(PAGE_N_HEAP)).unwrap_or(0) & 0x8000 != 0,
        flags,
        fsp_size: if flags.is_some() {
            r32(FSP_HEADER_OFFSET.saturating_add(FSP_SIZE))
        } else {
            0
        },
    }
}

/// One page number of a carved space: the version kept and the others.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct CarvedPage {
    /// The version kept: the newest LSN that verifies (with
    /// `--unverified`, the newest when none verifies).
    pub kept: Found,
    /// The other versions found, newest first.
    pub others: Vec<Found>,
}

/// Why a space's pages may come from more than one tablespace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mixed {
    /// Versions of page 0 carry different FSP flags.
    Flags(Vec<u32>),
    /// `--index-id`: the index's pages come from these spaces.
    Spaces(Vec<SpaceId>),
    /// Versions of one page number carry these pairs of index ids: told
    /// apart by index id into instances whose LSN ranges overlap (two
    /// servers' files, or an index's pages reused by another), so the
    /// pages without an index id (page 0, INODE, BLOB...) were given to
    /// the instance whose LSN range is nearest and may belong to another.
    Indexes(Vec<(IndexId, IndexId)>),
}

/// One index's pages in a carved space, and its leaf chain.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct CarvedIndex {
    /// `PAGE_INDEX_ID`.
    pub index_id: IndexId,
    /// Whether it is the SDI index (`FIL_PAGE_SDI` pages).
    pub sdi: bool,
    /// Pages kept per level, level 0 first.
    pub levels: Vec<u32>,
    /// The pages with no left sibling at the highest level: the root when
    /// it is one page.
    pub root: Option<PageNo>,
    /// Leaves reached from the leftmost leaf along `FIL_PAGE_NEXT`.
    pub chain: u32,
    /// Where the leaf chain breaks: a leaf whose `FIL_PAGE_NEXT` names a
    /// page not found (or not a leaf of this index), with that page.
    pub breaks: Vec<(PageNo, PageNo)>,
    /// Leaves with no left sibling (`FIL_PAGE_PREV` = `FIL_NULL`): 1 when
    /// the leftmost leaf was found and the chain does not fork.
    pub leftmost: u32,
}

impl CarvedIndex {
    /// Whether the leaf chain is whole: one leftmost leaf, every leaf
    /// reached from it, ending at `FIL_NULL`.
    pub fn complete(&self) -> bool {
        self.breaks.is_empty()
            && self.leftmost == 1
            && self.levels.first().copied() == Some(self.chain)
    }
}

/// One space carved: its pages at their numbers.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct CarvedSpace {
    /// The space id (with `--index-id`, the one most pages carry).
    pub space_id: SpaceId,
    /// Among the spaces of this id told apart by layout or index ids,
    /// which (0 first).
    pub instance: u32,
    /// Told apart from another instance of the same id, slot size and
    /// layout by its index ids (versions of one page number from
    /// different indexes) and LSN ranges ([`group`]).
    pub by_index_ids: bool,
    /// With `--index-id`, the index gathered.
    pub index_gathered: Option<IndexId>,
    /// The slot size: physical page size.
    pub page_size: u32,
    /// The checksum layout.
    pub layout: PageLayout,
    /// FSP flags of the page 0 kept, if one was found.
    pub flags: Option<u32>,
    /// Why the pages may come from more than one tablespace.
    pub mixed: Option<Mixed>,
    /// The pages, by page number.
    pub pages: Vec<CarvedPage>,
    /// The index pages' indexes, by id.
    pub indexes: Vec<CarvedIndex>,
    /// The smallest and largest LSN of the pages kept.
    pub lsn_range: (Lsn, Lsn),
}

impl CarvedSpace {
    /// Whether a page 0 was found.
    pub fn has_page0(&self) -> bool {
        self.pages.first().is_some_and(|p| p.kept.page_no.0 == 0)
    }
    /// Whether the image gets a synthesized page 0 ([`synthesize_page0`]):
    /// when none was found, and for one index gathered with `--index-id`
    /// (the page 0 found is its space's, whose extent descriptors may call
    /// the index's pages free: a dropped table's, in a system tablespace).
    pub fn page0_synthesized(&self) -> bool {
        !self.has_page0() || self.index_gathered.is_some()
    }
    /// Pages in the image: the largest page number found plus one, or
    /// the kept page 0's `FSP_SIZE` when larger (the pages past the last
    /// one found were never written: zeros), at most 2^26 pages.
    pub fn n_pages(&self) -> u32 {
        let found = self
            .pages
            .last()
            .map_or(1, |p| p.kept.page_no.0.saturating_add(1));
        let fsp = self.pages.first().map_or(0, |p| p.kept.fsp_size);
        found.max(fsp.min(1 << 26))
    }
    /// Versions found that were not kept.
    pub fn other_versions(&self) -> usize {
        self.pages.iter().map(|p| p.others.len()).sum()
    }
    /// Whether the space is as a tablespace file would hold it: page 0
    /// found, nothing mixed, every index's leaf chain whole.
    pub fn is_whole(&self) -> bool {
        self.has_page0() && self.mixed.is_none() && self.indexes.iter().all(|i| i.complete())
    }
    /// The FSP flags a synthesized page 0 carries: the page size and
    /// layout found, COMPACT/DYNAMIC when an index page says COMPACT, SDI
    /// when SDI pages were found (MySQL 8 flags; MariaDB full_crc32 flags
    /// for that layout). `fsp0types.h` (`FSP_FLAGS_POS_*`), MariaDB
    /// `fsp0types.h` (`FSP_FLAGS_FCRC32_*`).
    pub fn synthesized_flags(&self) -> u32 {
        if let Some(f) = self.flags {
            // One index gathered from a space whose page 0 was found.
            return f;
        }
        let ssize = |size: u32| size.checked_div(512).map_or(0, |n| n.trailing_zeros());
        let compact = self.pages.iter().any(|p| p.kept.compact);
        match self.layout {
            PageLayout::FullCrc32 => 0x10 | ssize(self.page_size),
            PageLayout::Classic | PageLayout::Zip => {
                let mut f = 0;
                if compact || self.layout == PageLayout::Zip {
                    // FSP_FLAGS_POST_ANTELOPE | FSP_FLAGS_ATOMIC_BLOBS.
                    f |= 1 | (1 << 5);
                }
                if self.layout == PageLayout::Zip {
                    f |= ssize(self.page_size) << 1;
                } else if self.page_size != 16384 {
                    f |= ssize(self.page_size) << 6;
                }
                if self.indexes.iter().any(|i| i.sdi) {
                    f |= 1 << 14;
                }
                f
            }
        }
    }
}

/// Everything carved from the sources.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Carved {
    /// The spaces, by space id then instance.
    pub spaces: Vec<CarvedSpace>,
    /// Pages found in all (every version).
    pub found: u64,
    /// Index page headers found whose page does not verify whole
    /// ([`Accepted::HeaderOnly`]; the caller gathers them from the
    /// pieces' [`Piece::partial`]): counted, with their offsets.
    pub partial: Vec<Found>,
    /// Encrypted pages found that no space takes without the key
    /// (gathered from [`Piece::encrypted`]): counted, with their offsets.
    pub encrypted: Vec<Found>,
}

/// Groups the pages found into spaces ([`CarvedSpace`]): by space id and
/// layout (or, with `index_id`, that index's pages in one space), each
/// page number's versions newest first.
pub fn group(found: Vec<Found>, index_id: Option<IndexId>) -> Carved {
    let total = found.len() as u64;
    let mut by_key: BTreeMap<(u32, u32, PageLayout), Vec<Found>> = BTreeMap::new();
    let mut unsized_pages: Vec<Found> = Vec::new();
    let mut found = found;
    if let Some(id) = index_id {
        // The structure pages of the space most of the index's pages name.
        let space = most_common(
            found
                .iter()
                .filter(|f| f.index_id == Some(id))
                .map(|f| f.space_id),
        );
        found.retain(|f| f.index_id == Some(id) || Some(f.space_id) == space);
    }
    for f in found {
        if index_id.is_some() {
            by_key.entry((0, f.slot, f.layout)).or_default().push(f);
        } else if f.slot == 0 {
            unsized_pages.push(f);
        } else {
            by_key
                .entry((f.space_id.0, f.slot, f.layout))
                .or_default()
                .push(f);
        }
    }
    // A full_crc32 page_compressed page goes to its space's full_crc32
    // instance (the first, by slot size), when there is one.
    for f in unsized_pages {
        let key = by_key
            .keys()
            .find(|k| k.0 == f.space_id.0 && k.2 == PageLayout::FullCrc32)
            .copied();
        match key {
            Some(k) => by_key.entry(k).or_default().push(f),
            None => by_key
                .entry((f.space_id.0, 0, PageLayout::FullCrc32))
                .or_default()
                .push(f),
        }
    }
    let mut spaces = Vec::new();
    let mut last: Option<u32> = None;
    let mut instance = 0u32;
    for ((space, slot, layout), pages) in by_key {
        let gens = if index_id.is_some() {
            vec![(pages, None)]
        } else {
            generations(pages)
        };
        let split = gens.len() > 1;
        for (pages, mixed) in gens {
            instance = if last == Some(space) {
                instance.saturating_add(1)
            } else {
                0
            };
            last = Some(space);
            let mut s = space_of(space, instance, slot, layout, pages, index_id);
            s.by_index_ids = split;
            if mixed.is_some() {
                s.mixed = mixed;
            }
            spaces.push(s);
        }
    }
    Carved {
        spaces,
        found: total,
        partial: Vec::new(),
        encrypted: Vec::new(),
    }
}

/// At most this many instances of one space id, slot size and layout are
/// told apart by index ids; past it the space is one, mixed.
const MAX_GENERATIONS: usize = 8;

/// The pages of one space id, slot size and layout, told apart into the
/// tablespaces they come from by index ids: two index ids whose pages
/// are versions of one page number are not one tablespace's (a table
/// dropped and created again, or truncated: new index ids on the same
/// page numbers; two servers' files that shared the id). Index ids taken
/// oldest first (by their pages' smallest LSN), each into the first
/// instance holding none it shares a page number with. A page without
/// an index id goes to the instance written after every earlier one's
/// index pages (in order of their smallest LSN, the latest such that
/// the earlier ones' largest LSN is below the page's: a tablespace's
/// first pages are written before its index pages). Instances whose LSN
/// ranges overlap are
/// [`Mixed::Indexes`]: told apart by index id, not by time.
fn generations(pages: Vec<Found>) -> Vec<(Vec<Found>, Option<Mixed>)> {
    let mut at: BTreeMap<u32, Vec<u64>> = BTreeMap::new();
    let mut range: BTreeMap<u64, (u64, u64)> = BTreeMap::new();
    for f in &pages {
        if let Some(id) = f.index_id {
            let ids = at.entry(f.page_no.0).or_default();
            if !ids.contains(&id.0) {
                ids.push(id.0);
            }
            let r = range.entry(id.0).or_insert((f.lsn.0, f.lsn.0));
            r.0 = r.0.min(f.lsn.0);
            r.1 = r.1.max(f.lsn.0);
        }
    }
    let mut conflicts: Vec<(u64, u64)> = Vec::new();
    for ids in at.values() {
        for &a in ids {
            for &b in ids {
                if a < b {
                    conflicts.push((a, b));
                }
            }
        }
    }
    conflicts.sort_unstable();
    conflicts.dedup();
    if conflicts.is_empty() {
        return vec![(pages, None)];
    }
    let apart = |a: u64, b: u64| conflicts.binary_search(&(a.min(b), a.max(b))).is_ok();
    let mut order: Vec<(u64, u64)> = range.iter().map(|(&id, r)| (r.0, id)).collect();
    order.sort_unstable();
    let mut gens: Vec<Vec<u64>> = Vec::new();
    for (_, id) in order {
        match gens.iter_mut().find(|g| g.iter().all(|&o| !apart(id, o))) {
            Some(g) => g.push(id),
            None => gens.push(vec![id]),
        }
    }
    let pairs = || {
        conflicts
            .iter()
            .map(|&(a, b)| (IndexId(a), IndexId(b)))
            .collect::<Vec<_>>()
    };
    if gens.len() > MAX_GENERATIONS {
        return vec![(pages, Some(Mixed::Indexes(pairs())))];
    }
    let ranges: Vec<(u64, u64)> = gens
        .iter()
        .map(|g| {
            let lo = g.iter().filter_map(|id| range.get(id)).map(|r| r.0).min();
            let hi = g.iter().filter_map(|id| range.get(id)).map(|r| r.1).max();
            (lo.unwrap_or(0), hi.unwrap_or(0))
        })
        .collect();
    let mut sorted = ranges.clone();
    sorted.sort_unstable();
    let disjoint = sorted.windows(2).all(|w| match w {
        [a, b] => a.1 < b.0,
        _ => true,
    });
    // The instance written after every earlier one's last index page
    // (a tablespace's first pages are written before its index pages):
    // the latest whose predecessors' largest LSNs are all below `lsn`.
    let nearest = |lsn: u64| {
        let mut by_start: Vec<usize> = (0..ranges.len()).collect();
        by_start.sort_by_key(|&i| ranges.get(i).map_or(0, |r| r.0));
        let mut at = by_start.first().copied().unwrap_or(0);
        for w in by_start.windows(2) {
            if let [before, next] = *w {
                if ranges.get(before).is_some_and(|r| r.1 < lsn) {
                    at = next;
                } else {
                    break;
                }
            }
        }
        at
    };
    let mut out: Vec<Vec<Found>> = vec![Vec::new(); gens.len()];
    for f in pages {
        let g = f
            .index_id
            .and_then(|id| gens.iter().position(|g| g.contains(&id.0)))
            .unwrap_or_else(|| nearest(f.lsn.0));
        if let Some(o) = out.get_mut(g) {
            o.push(f);
        }
    }
    let mixed = (!disjoint).then(|| Mixed::Indexes(pairs()));
    out.into_iter().map(|p| (p, mixed.clone())).collect()
}

fn space_of(
    space: u32,
    instance: u32,
    slot: u32,
    layout: PageLayout,
    mut pages: Vec<Found>,
    index_id: Option<IndexId>,
) -> CarvedSpace {
    // Page number, then verified first, then newest first, then offset.
    pages.sort_by(|a, b| {
        a.page_no
            .cmp(&b.page_no)
            .then(b.accepted.verifies().cmp(&a.accepted.verifies()))
            .then(b.lsn.cmp(&a.lsn))
            .then(a.source.cmp(&b.source))
            .then(a.offset.cmp(&b.offset))
    });
    let mut carved: Vec<CarvedPage> = Vec::new();
    for f in pages {
        match carved.last_mut() {
            Some(c) if c.kept.page_no == f.page_no => c.others.push(f),
            _ => carved.push(CarvedPage {
                kept: f,
                others: Vec::new(),
            }),
        }
    }
    // The others newest first, verified or not.
    for c in &mut carved {
        c.others.sort_by(|a, b| {
            b.lsn
                .cmp(&a.lsn)
                .then(a.source.cmp(&b.source))
                .then(a.offset.cmp(&b.offset))
        });
    }
    let mut mixed = None;
    let mut space_id = SpaceId(space);
    if let Some(id) = index_id {
        let mut ids: Vec<SpaceId> = carved
            .iter()
            .filter(|p| p.kept.index_id == Some(id))
            .map(|p| p.kept.space_id)
            .collect();
        ids.sort();
        ids.dedup();
        space_id = most_common(
            carved
                .iter()
                .filter(|p| p.kept.index_id == Some(id))
                .map(|p| p.kept.space_id),
        )
        .unwrap_or_default();
        if ids.len() > 1 {
            mixed = Some(Mixed::Spaces(ids));
        }
    }
    let page0 = carved.first().filter(|p| p.kept.page_no.0 == 0);
    let flags = page0.and_then(|p| p.kept.flags);
    if let Some(p0) = page0 {
        let mut all: Vec<u32> = std::iter::once(&p0.kept)
            .chain(&p0.others)
            .filter_map(|f| f.flags)
            .collect();
        all.sort_unstable();
        all.dedup();
        if all.len() > 1 && mixed.is_none() {
            mixed = Some(Mixed::Flags(all));
        }
    }
    let lo = carved.iter().map(|p| p.kept.lsn).min().unwrap_or_default();
    let hi = carved.iter().map(|p| p.kept.lsn).max().unwrap_or_default();
    let page_size = if slot == 0 {
        // Only full_crc32 page_compressed pages: 16 KiB, the default.
        16384
    } else {
        slot
    };
    let indexes = indexes_of(&carved);
    CarvedSpace {
        space_id,
        instance,
        by_index_ids: false,
        index_gathered: index_id,
        page_size,
        layout,
        flags,
        mixed,
        pages: carved,
        indexes,
        lsn_range: (lo, hi),
    }
}

fn most_common<T: Ord + Copy>(it: impl Iterator<Item = T>) -> Option<T> {
    let mut counts: BTreeMap<T, u64> = BTreeMap::new();
    for v in it {
        let c = counts.entry(v).or_default();
        *c = c.saturating_add(1);
    }
    counts
        .into_iter()
        .max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(&a.0)))
        .map(|(v, _)| v)
}

/// The indexes of the kept pages, with their levels and leaf chains.
fn indexes_of(pages: &[CarvedPage]) -> Vec<CarvedIndex> {
    let mut by_id: BTreeMap<u64, Vec<&Found>> = BTreeMap::new();
    for p in pages {
        if let Some(id) = p.kept.index_id {
            by_id.entry(id.0).or_default().push(&p.kept);
        }
    }
    by_id
        .into_iter()
        .map(|(id, members)| {
            let mut levels: Vec<u32> = Vec::new();
            for f in &members {
                let l = usize::from(f.level);
                if levels.len() <= l {
                    levels.resize(l.saturating_add(1), 0);
                }
                if let Some(c) = levels.get_mut(l) {
                    *c = c.saturating_add(1);
                }
            }
            let top = levels.len().saturating_sub(1);
            let tops: Vec<&&Found> = members
                .iter()
                .filter(|f| usize::from(f.level) == top && f.prev.0 == FIL_NULL)
                .collect();
            let root = match tops.as_slice() {
                [one] if one.next.0 == FIL_NULL => Some(one.page_no),
                _ => None,
            };
            let leaves: BTreeMap<u32, &Found> = members
                .iter()
                .filter(|f| f.level == 0)
                .map(|f| (f.page_no.0, *f))
                .collect();
            let starts: Vec<&Found> = leaves
                .values()
                .filter(|f| f.prev.0 == FIL_NULL)
                .copied()
                .collect();
            let mut breaks = Vec::new();
            let mut chain = 0u32;
            if let Some(first) = starts.first() {
                let mut at = Some(*first);
                let mut steps = 0usize;
                while let Some(f) = at {
                    if steps > leaves.len() {
                        break;
                    }
                    steps = steps.saturating_add(1);
                    chain = chain.saturating_add(1);
                    if f.next.0 == FIL_NULL {
                        break;
                    }
                    at = leaves.get(&f.next.0).copied();
                    if at.is_none() {
                        breaks.push((f.page_no, f.next));
                    }
                }
            }
            // Every other leaf whose right sibling was not found.
            for f in leaves.values() {
                if f.next.0 != FIL_NULL
                    && !leaves.contains_key(&f.next.0)
                    && !breaks.contains(&(f.page_no, f.next))
                {
                    breaks.push((f.page_no, f.next));
                }
            }
            breaks.sort();
            CarvedIndex {
                index_id: IndexId(id),
                sdi: members
                    .iter()
                    .any(|f| f.page_type == PageType::FIL_PAGE_SDI),
                levels,
                root,
                chain,
                breaks,
                leftmost: u32::try_from(starts.len()).unwrap_or(u32::MAX),
            }
        })
        .collect()
}

/// `XDES_ARR_OFFSET` (`fsp0fsp.h`): the extent descriptors on page 0.
const XDES_ARR_OFFSET: usize = FSP_HEADER_OFFSET + 112;
/// `XDES_STATE` (`fsp0fsp.h`): an extent descriptor's state.
const XDES_STATE: usize = 20;
/// `Encryption::INFO_MAX_SIZE` (`os0enc.h`, MySQL 8.0).
const ENCRYPTION_INFO_MAX_SIZE: usize = 115;

/// A page 0 for a space whose own was not found: FIL header (page 0,
/// type FSP_HDR, the space id, the newest LSN of the space), the FSP
/// header (space id, FSP_SIZE and FSP_FREE_LIMIT the pages found,
/// [`CarvedSpace::synthesized_flags`]), the extent descriptors page 0
/// holds with each page found marked used (`XDES_FREE_FRAG`, its
/// `XDES_FREE_BIT` clear) and every other page free, the SDI
/// root when the space has SDI pages (`fsp_header_get_sdi_offset`,
/// `fsp0fsp.cc`, MySQL 8.0), and the checksum of the space's layout
/// (crc32, full_crc32, zip crc32). `None` for a page size outside
/// 1 KiB–64 KiB.
pub fn synthesize_page0(space: &CarvedSpace) -> Option<Vec<u8>> {
    let size = space.page_size as usize;
    if !(1024..=MAX_PAGE).contains(&size) {
        return None;
    }
    let mut page = vec![0u8; size];
    let flags = space.synthesized_flags();
    let lsn = space.lsn_range.1;
    let n = space.n_pages();
    put32(&mut page, FIL_PAGE_OFFSET, 0)?;
    put32(&mut page, FIL_PAGE_PREV, 0)?;
    put32(&mut page, FIL_PAGE_NEXT, 0)?;
    page.get_mut(FIL_PAGE_LSN..FIL_PAGE_LSN.checked_add(8)?)?
        .copy_from_slice(&lsn.0.to_be_bytes());
    page.get_mut(FIL_PAGE_TYPE..FIL_PAGE_TYPE.checked_add(2)?)?
        .copy_from_slice(&PageType::FIL_PAGE_TYPE_FSP_HDR.0.to_be_bytes());
    put32(&mut page, FIL_PAGE_SPACE_ID, space.space_id.0)?;
    let fsp = |f: usize| FSP_HEADER_OFFSET.checked_add(f);
    put32(&mut page, fsp(FSP_SPACE_ID)?, space.space_id.0)?;
    put32(&mut page, fsp(FSP_SIZE)?, n)?;
    put32(&mut page, fsp(FSP_FREE_LIMIT)?, n)?;
    put32(&mut page, fsp(FSP_SPACE_FLAGS)?, flags)?;
    mark_used(&mut page, space)?;
    if flags & (1 << 14) != 0 && space.layout != PageLayout::FullCrc32 {
        let sdi = space.indexes.iter().find(|i| i.sdi);
        if let Some(root) = sdi.and_then(|i| i.root) {
            // 16 KiB logical pages for a compressed space.
            let logical = if space.layout == PageLayout::Zip {
                16384
            } else {
                space.page_size
            };
            let extent = extent_size(logical).max(1);
            let entries = space.page_size.checked_div(extent)? as usize;
            let xdes = 24usize.checked_add((extent as usize).checked_mul(2)?.div_ceil(8))?;
            let at = XDES_ARR_OFFSET
                .checked_add(xdes.checked_mul(entries)?)?
                .checked_add(ENCRYPTION_INFO_MAX_SIZE)?;
            put32(&mut page, at, 1)?;
            put32(&mut page, at.checked_add(4)?, root.0)?;
        }
    }
    match space.layout {
        PageLayout::Classic => {
            let lo = lsn.0 as u32;
            put32(&mut page, size.checked_sub(4)?, lo)?;
            let c = page_crc32(&page);
            put32(&mut page, 0, c)?;
            put32(&mut page, size.checked_sub(8)?, c)?;
        }
        PageLayout::FullCrc32 => {
            put32(
                &mut page,
                size.checked_sub(FIL_PAGE_FCRC32_END_LSN)?,
                lsn.0 as u32,
            )?;
            let c = full_crc32(&page);
            put32(&mut page, size.checked_sub(4)?, c)?;
        }
        PageLayout::Zip => {
            let c = zip_crc32(&page, false);
            put32(&mut page, 0, c)?;
        }
    }
    Some(page)
}

/// The extent descriptors of a synthesized page 0 (`fsp0fsp.h`: an
/// `XDES_SIZE` entry per extent of the pages page 0 describes, its state
/// at `XDES_STATE`, two bits a page from `XDES_BITMAP`, `XDES_FREE_BIT`
/// first): each extent holding a page found `XDES_FREE_FRAG` (2), its
/// pages found used, the others free; the other extents left
/// `XDES_NOT_INITED`, which reads as free.
fn mark_used(page: &mut [u8], space: &CarvedSpace) -> Option<()> {
    let logical = if space.layout == PageLayout::Zip {
        16384
    } else {
        space.page_size
    };
    let extent = extent_size(logical).max(1);
    let xdes = 24usize.checked_add((extent as usize).checked_mul(2)?.div_ceil(8))?;
    // Page 0 describes the first page_size pages (`xdes_calc_descriptor_page`).
    let described = space.page_size;
    let mut used: Vec<u32> = std::iter::once(0)
        .chain(space.pages.iter().map(|p| p.kept.page_no.0))
        .filter(|&n| n < described)
        .collect();
    used.sort_unstable();
    used.dedup();
    let entry_at =
        |e: u32| XDES_ARR_OFFSET.checked_add(xdes.checked_mul(usize::try_from(e).ok()?)?);
    let mut last = None;
    for n in used {
        let e = n.checked_div(extent)?;
        let at = entry_at(e)?;
        if last != Some(e) {
            last = Some(e);
            put32(page, at.checked_add(XDES_STATE)?, 2)?;
            // Every page free (and clean) first.
            page.get_mut(at.checked_add(24)?..at.checked_add(xdes)?)?
                .fill(0xff);
        }
        let bit = (n.checked_rem(extent)? as usize).checked_mul(2)?;
        let byte = page.get_mut(at.checked_add(24)?.checked_add(bit / 8)?)?;
        *byte &= !(1u8 << (bit % 8));
    }
    Some(())
}

fn put32(page: &mut [u8], at: usize, v: u32) -> Option<()> {
    page.get_mut(at..at.checked_add(4)?)?
        .copy_from_slice(&v.to_be_bytes());
    Some(())
}
