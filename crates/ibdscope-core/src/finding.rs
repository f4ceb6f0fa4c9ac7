//! Findings: damage and oddities, each with the page and byte offset it
//! concerns. Analyses return their result plus findings and keep going.
//!
//! The kinds a finding carries are defined here or below: a page's
//! problems ([`PageProblem`], from [`crate::space`]), the space structure's
//! ([`SpaceProblem`], found by [`crate::extents`], which re-exports it) and
//! the B-trees' ([`BtreeProblem`], found by [`crate::btree`], which
//! re-exports it). So the analyses import this module, and it imports none
//! of them.

use crate::flst::ListProblemKind;
use crate::ids::{IndexId, PageNo, SpaceId};
use crate::inode::FsegHeader;
use crate::owner::{Owner, SegmentRole};
use crate::record::RecProblem;
use crate::space::{PageProblem, Tablespace};
use crate::xdes::XdesState;
use std::fmt;

/// What was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum FindingKind {
    /// A problem with one page.
    Page(PageProblem),
    /// The file ends inside a page: `bytes` bytes after the last whole page.
    TornTail {
        /// Bytes in the partial page.
        bytes: u64,
    },
    /// The file holds fewer pages than FSP_SIZE says.
    ShorterThanFspSize {
        /// FSP_SIZE.
        fsp_size: u32,
        /// Whole pages in the file.
        pages: u32,
    },
    /// Page 0 does not verify; the format was found from other pages.
    Page0Unusable,
    /// The caller gave a page size the file's own evidence contradicts
    /// (see [`crate::space::Evidence::PageSizeContradicted`]).
    PageSizeContradicted {
        /// The page size given.
        given: u32,
        /// The page size the file reads as without it.
        found: u32,
        /// Whether page 0 verifies at `found` (else other pages decided).
        page0: bool,
    },
    /// Page 0 is followed only by all-zero pages: the space header is
    /// there, every page it hands out is not (the server writes each page
    /// it allocates, `fsp_init_file_page`).
    ZeroedAfterPage0 {
        /// The all-zero pages (every page after page 0).
        pages: u32,
    },
    /// A problem with the space's structure: lists, extents, segments,
    /// index roots (see [`crate::extents::SpaceMap`]).
    Space(SpaceProblem),
    /// A problem with a B-tree: its levels, sibling links, node pointers,
    /// or one page's records (see [`crate::btree::Btrees`]).
    Btree(BtreeProblem),
    /// Page 0's MariaDB crypt data is damaged (see
    /// [`crate::crypt_data::crypt_data_finding`]).
    CryptData(CryptDataProblem),
}

/// What is wrong with page 0's MariaDB crypt data
/// (`fil_space_read_crypt_data`, MariaDB 10.11 `fil0crypt.cc`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum CryptDataProblem {
    /// No `CRYPT_MAGIC`, yet page `page` carries key version
    /// `key_version`: an encrypted page no crypt data opens.
    Missing {
        /// A page that shows encryption.
        page: PageNo,
        /// Its key version.
        key_version: u32,
    },
    /// A type other than 0 (`CRYPT_SCHEME_UNENCRYPTED`) or 1
    /// (`CRYPT_SCHEME_1`): refused by the server.
    Scheme {
        /// The type found.
        found: u8,
    },
    /// An IV length other than 16: refused by the server.
    IvLength {
        /// The length found.
        found: u8,
    },
    /// An encryption mode none of 0 DEFAULT, 1 ON, 2 OFF.
    Encryption {
        /// The mode found.
        found: u8,
    },
    /// A minimum key version above the key version of an encrypted page.
    MinKeyVersion {
        /// The minimum key version page 0 states.
        min: u32,
        /// A page with a lower key version.
        page: PageNo,
        /// Its key version.
        key_version: u32,
    },
}

impl fmt::Display for CryptDataProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("page 0's crypt data is damaged: ")?;
        match *self {
            CryptDataProblem::Missing { page, key_version } => write!(
                f,
                "no CRYPT_MAGIC where it belongs, yet page {} is encrypted (key version \
                 {key_version}); its encrypted pages cannot be decrypted",
                page.0
            ),
            CryptDataProblem::Scheme { found } => write!(
                f,
                "encryption type {found} (the server knows 0 unencrypted and 1 CRYPT_SCHEME_1 \
                 and refuses the crypt data); its encrypted pages cannot be decrypted"
            ),
            CryptDataProblem::IvLength { found } => write!(
                f,
                "IV length {found}, not 16 (the server refuses the crypt data); its encrypted \
                 pages cannot be decrypted"
            ),
            CryptDataProblem::Encryption { found } => {
                write!(f, "encryption mode {found}, none of 0 DEFAULT, 1 ON, 2 OFF")
            }
            CryptDataProblem::MinKeyVersion {
                min,
                page,
                key_version,
            } => write!(
                f,
                "minimum key version {min}, but page {} carries key version {key_version}",
                page.0
            ),
        }
    }
}

/// A finding with its place.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Finding {
    /// The page, if the finding concerns one.
    pub page: Option<PageNo>,
    /// Byte offset in the file where the problem lies.
    pub file_offset: u64,
    /// What was found.
    pub kind: FindingKind,
}

impl Finding {
    /// A finding of `kind` at `file_offset`, on `page` if it concerns one.
    pub fn new(page: Option<PageNo>, file_offset: u64, kind: FindingKind) -> Self {
        Finding {
            page,
            file_offset,
            kind,
        }
    }

    /// A finding about page `page` of `ts`, at the byte of the problem's
    /// evidence ([`crate::verdict::problem_offset`]).
    pub fn page(ts: &Tablespace<'_>, page: PageNo, problem: PageProblem) -> Self {
        // One rule for every command (crate::verdict).
        let page_offset = crate::verdict::problem_offset(ts, problem);
        Finding {
            page: Some(page),
            file_offset: ts.file_offset(page).saturating_add(page_offset),
            kind: FindingKind::Page(problem),
        }
    }
}

impl fmt::Display for PageProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            PageProblem::Checksum => f.write_str("checksum mismatch"),
            PageProblem::CompressedSize => {
                f.write_str("page_compressed size field is not below the page size")
            }
            PageProblem::LsnMismatch { header, trailer } => write!(
                f,
                "LSN low 32 bits differ: header 0x{header:08x}, trailer 0x{trailer:08x}"
            ),
            PageProblem::PageNo { found } => {
                write!(
                    f,
                    "page number field says {found} (misplaced or foreign page)"
                )
            }
            PageProblem::NotDecompressed { .. } => f.write_str(
                "page_compressed page does not decompress (damaged header or compressed \
                 stream; the server reads it as corrupted)",
            ),
            PageProblem::ZeroedInUse => f.write_str(
                "all zeros, but its extent descriptor (XDES) marks it in use: its content is lost",
            ),
            PageProblem::Stale { by, by_lsn, how } => write!(
                f,
                "an older copy than page {by} (LSN {by_lsn}) shows it should be: {how}"
            ),
            PageProblem::SpaceId { found, expected } => {
                write!(
                    f,
                    "space id {found}, expected {expected} (page from another tablespace?)"
                )
            }
        }
    }
}

impl fmt::Display for FindingKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            FindingKind::Page(p) => p.fmt(f),
            FindingKind::TornTail { bytes } => {
                write!(
                    f,
                    "file ends {bytes} bytes into a page (torn tail; not analysed)"
                )
            }
            FindingKind::ShorterThanFspSize { fsp_size, pages } => {
                write!(
                    f,
                    "file holds {pages} pages but FSP_SIZE says {fsp_size} (truncated?)"
                )
            }
            FindingKind::Page0Unusable => {
                f.write_str("page 0 does not verify; format found from the other pages")
            }
            FindingKind::PageSizeContradicted {
                given,
                found,
                page0,
            } => write!(
                f,
                "page size {given} was given, but {} as {found}-byte pages: what is reported \
                 reads {given}-byte pages and does not describe this file",
                if page0 {
                    "page 0 verifies"
                } else {
                    "the file's pages read"
                }
            ),
            FindingKind::ZeroedAfterPage0 { pages } => write!(
                f,
                "zero-filled: every page after page 0 ({pages} page{}) is all zeros; the pages \
                 the space header hands out were never written or were wiped",
                if pages == 1 { "" } else { "s" }
            ),
            FindingKind::Space(p) => p.fmt(f),
            FindingKind::Btree(p) => p.fmt(f),
            FindingKind::CryptData(p) => p.fmt(f),
        }
    }
}

/// The extent and inode-page lists of the FSP header.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FspList {
    /// FSP_FREE: free extents.
    Free,
    /// FSP_FREE_FRAG: fragment extents with free pages.
    FreeFrag,
    /// FSP_FULL_FRAG: full fragment extents.
    FullFrag,
    /// FSP_SEG_INODES_FULL: INODE pages with no free slot.
    SegInodesFull,
    /// FSP_SEG_INODES_FREE: INODE pages with free slots.
    SegInodesFree,
}

/// The extent lists of a segment inode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SegList {
    /// FSEG_FREE.
    Free,
    /// FSEG_NOT_FULL.
    NotFull,
    /// FSEG_FULL.
    Full,
}

/// Which list a list problem concerns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ListId {
    /// A list of the FSP header.
    Fsp(FspList),
    /// An extent list of a segment.
    Segment {
        /// FSEG_ID.
        seg_id: u64,
        /// Which list.
        list: SegList,
    },
}

/// Why a root's FSEG header does not name a usable segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RootProblem {
    /// FSEG_HDR_SPACE is not this space.
    OtherSpace {
        /// FSEG_HDR_SPACE.
        found: SpaceId,
    },
    /// FSEG_HDR_PAGE_NO is not an INODE page on the FSP inode lists.
    NotInodePage,
    /// FSEG_HDR_OFFSET is not where an inode starts.
    BadOffset,
    /// The inode is unused (FSEG_ID 0).
    UnusedInode,
    /// The inode's FSEG_MAGIC_N is wrong.
    BadMagic,
    /// Another root (or the other header of this one) already names it.
    Shared {
        /// The root that named it first.
        other_root: PageNo,
    },
}

/// A count stored in the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Counter {
    /// FSP_FRAG_N_USED against the used pages of the FSP_FREE_FRAG extents.
    FspFragNUsed,
    /// FSEG_NOT_FULL_N_USED against the used pages of the segment's
    /// FSEG_NOT_FULL extents.
    NotFullNUsed {
        /// FSEG_ID.
        seg_id: u64,
    },
}

/// What is wrong with the space's structure. Each comes in a [`Finding`]
/// whose page and byte offset are those of the faulty bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SpaceProblem {
    /// A list is damaged.
    List {
        /// The list.
        list: ListId,
        /// What is wrong.
        problem: ListProblemKind,
    },
    /// A page is claimed by two owners; it keeps the first.
    ClaimedTwice {
        /// The page.
        page: PageNo,
        /// The claim kept.
        first: Owner,
        /// The claim refused.
        second: Owner,
    },
    /// A page is claimed (fragment slot, system position) but XDES marks it
    /// free; it stays free.
    ClaimOnFreePage {
        /// The page.
        page: PageNo,
        /// The claim refused.
        claimant: Owner,
    },
    /// A fragment slot names a page past the end of the file.
    PastFile {
        /// The page named.
        page: PageNo,
        /// The claim.
        claimant: Owner,
    },
    /// An extent on a segment's list carries another XDES_ID.
    XdesIdMismatch {
        /// First page of the extent.
        extent: PageNo,
        /// The segment whose list holds it.
        seg_id: u64,
        /// XDES_ID.
        xdes_id: u64,
    },
    /// An extent's XDES_STATE does not fit the list it is on.
    ExtentState {
        /// First page of the extent.
        extent: PageNo,
        /// The list.
        list: ListId,
        /// XDES_STATE.
        found: XdesState,
    },
    /// An extent is on two lists.
    ExtentListedTwice {
        /// First page of the extent.
        extent: PageNo,
        /// The second list.
        list: ListId,
    },
    /// A used inode (FSEG_ID ≠ 0) has a wrong FSEG_MAGIC_N; it is ignored.
    InodeMagic {
        /// FSEG_ID.
        seg_id: u64,
        /// FSEG_MAGIC_N.
        found: u32,
    },
    /// Two inodes carry the same FSEG_ID.
    SegmentIdTwice {
        /// FSEG_ID.
        seg_id: u64,
    },
    /// A stored count disagrees with the pages counted.
    CountMismatch {
        /// Which count.
        counter: Counter,
        /// As stored.
        stated: u32,
        /// As counted from XDES.
        counted: u32,
    },
    /// A root's FSEG header does not name a usable segment.
    BadRoot {
        /// PAGE_INDEX_ID of the root.
        index: IndexId,
        /// Which header (Leaf: PAGE_BTR_SEG_LEAF; Internal: _TOP).
        role: SegmentRole,
        /// The header.
        fseg: FsegHeader,
        /// Why.
        problem: RootProblem,
    },
    /// An index page sits in a segment of another index, or a leaf in a
    /// non-leaf segment (other than the root), or a non-leaf in a leaf
    /// segment.
    WrongSegment {
        /// PAGE_INDEX_ID.
        index: IndexId,
        /// PAGE_LEVEL.
        level: u16,
        /// The owning segment.
        seg_id: u64,
        /// The segment's index.
        seg_index: Option<IndexId>,
        /// The segment's role.
        role: SegmentRole,
    },
    /// A segment in use that no index root names: the root page is
    /// missing, damaged or overwritten (every segment of an .ibd belongs to
    /// an index's leaf or non-leaf half).
    OrphanSegment {
        /// FSEG_ID.
        seg_id: u64,
    },
    /// A page the structure says is in use (system page, segment page, or
    /// marked used by XDES) is all zeros: its content was lost or never
    /// written. No server leaves a used page empty after a clean shutdown.
    EmptyPageInUse {
        /// Who uses it.
        owner: Owner,
    },
    /// A page XDES marks free still holds an index page with records:
    /// freed by a merge, purge or drop, its bytes not overwritten.
    FreePageWithData {
        /// PAGE_INDEX_ID.
        index: IndexId,
        /// PAGE_LEVEL.
        level: u16,
        /// PAGE_N_RECS.
        n_recs: u16,
    },
}

impl fmt::Display for ListId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            ListId::Fsp(l) => f.write_str(match l {
                FspList::Free => "FSP_FREE",
                FspList::FreeFrag => "FSP_FREE_FRAG",
                FspList::FullFrag => "FSP_FULL_FRAG",
                FspList::SegInodesFull => "FSP_SEG_INODES_FULL",
                FspList::SegInodesFree => "FSP_SEG_INODES_FREE",
            }),
            ListId::Segment { seg_id, list } => {
                let name = match list {
                    SegList::Free => "FSEG_FREE",
                    SegList::NotFull => "FSEG_NOT_FULL",
                    SegList::Full => "FSEG_FULL",
                };
                write!(f, "{name} of segment {seg_id}")
            }
        }
    }
}

impl fmt::Display for RootProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            RootProblem::OtherSpace { found } => write!(f, "names space {found}"),
            RootProblem::NotInodePage => {
                f.write_str("names a page that is not a listed INODE page")
            }
            RootProblem::BadOffset => f.write_str("names an offset where no inode starts"),
            RootProblem::UnusedInode => f.write_str("names an unused inode"),
            RootProblem::BadMagic => f.write_str("names an inode with a bad magic number"),
            RootProblem::Shared { other_root } => {
                write!(f, "names a segment already named by root page {other_root}")
            }
        }
    }
}

impl fmt::Display for SpaceProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            SpaceProblem::List { list, problem } => write!(f, "list {list} {problem}"),
            SpaceProblem::ClaimedTwice {
                page,
                first,
                second,
            } => write!(f, "page {page} claimed by {first} and again by {second}"),
            SpaceProblem::ClaimOnFreePage { page, claimant } => {
                write!(
                    f,
                    "page {page} is claimed by {claimant} but XDES marks it free"
                )
            }
            SpaceProblem::PastFile { page, claimant } => {
                write!(f, "{claimant} names page {page}, past the end of the file")
            }
            SpaceProblem::XdesIdMismatch {
                extent,
                seg_id,
                xdes_id,
            } => write!(
                f,
                "extent at page {extent} is on a list of segment {seg_id} but XDES_ID is {xdes_id}"
            ),
            SpaceProblem::ExtentState {
                extent,
                list,
                found,
            } => write!(
                f,
                "extent at page {extent} is on {list} but its state is {found}"
            ),
            SpaceProblem::ExtentListedTwice { extent, list } => {
                write!(
                    f,
                    "extent at page {extent} is on another list and on {list}"
                )
            }
            SpaceProblem::InodeMagic { seg_id, found } => write!(
                f,
                "inode of segment {seg_id} has FSEG_MAGIC_N {found}, expected 97937874"
            ),
            SpaceProblem::SegmentIdTwice { seg_id } => {
                write!(f, "two inodes carry segment id {seg_id}")
            }
            SpaceProblem::CountMismatch {
                counter,
                stated,
                counted,
            } => {
                match counter {
                    Counter::FspFragNUsed => f.write_str("FSP_FRAG_N_USED")?,
                    Counter::NotFullNUsed { seg_id } => {
                        write!(f, "FSEG_NOT_FULL_N_USED of segment {seg_id}")?
                    }
                }
                write!(f, " is {stated}, but XDES counts {counted}")
            }
            SpaceProblem::BadRoot {
                index,
                role,
                fseg,
                problem,
            } => write!(
                f,
                "root of index {index}: the {role} FSEG header ({}:{}:{}) {problem}",
                fseg.space, fseg.page, fseg.offset
            ),
            SpaceProblem::WrongSegment {
                index,
                level,
                seg_id,
                seg_index,
                role,
            } => {
                write!(f, "index {index} level {level} page is in segment {seg_id}")?;
                match seg_index {
                    Some(i) => write!(f, " ({role} segment of index {i})"),
                    None => f.write_str(" (of no index)"),
                }
            }
            SpaceProblem::OrphanSegment { seg_id } => {
                write!(
                    f,
                    "segment {seg_id} is named by no index root (root page missing or damaged)"
                )
            }
            SpaceProblem::EmptyPageInUse { owner } => {
                write!(f, "page is all zeros but in use by {owner}")
            }
            SpaceProblem::FreePageWithData {
                index,
                level,
                n_recs,
            } => write!(
                f,
                "free page still holds index {index} level {level} with {n_recs} records"
            ),
        }
    }
}

/// The most levels a tree is walked through. InnoDB's own limit
/// (BTR_MAX_LEVELS) is 100, but a 64K-page tree of 64 levels would need
/// more records than any file can hold; a higher PAGE_LEVEL is damage.
pub const BTREE_MAX_HEIGHT: u32 = 64;

/// What is wrong with a B-tree. Each comes in a [`Finding`] at the faulty
/// bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum BtreeProblem {
    /// A problem with one page's records (at the record's bytes).
    Records {
        /// The index.
        index: IndexId,
        /// What is wrong.
        problem: RecProblem,
    },
    /// The root's PAGE_LEVEL is at or past [`BTREE_MAX_HEIGHT`]; the tree
    /// is not walked.
    TooHigh {
        /// The index.
        index: IndexId,
        /// The root's PAGE_LEVEL.
        level: u16,
    },
    /// A page of the index sits at or above the root's level (but is not
    /// the root).
    AboveRoot {
        /// The index.
        index: IndexId,
        /// Its PAGE_LEVEL.
        level: u16,
    },
    /// No page of the index has this level, below the root's (at the root's
    /// PAGE_LEVEL).
    MissingLevel {
        /// The index.
        index: IndexId,
        /// The missing level.
        level: u16,
    },
    /// No page of the level has FIL_PAGE_PREV = FIL_NULL; the walk starts at
    /// the lowest-numbered page.
    NoLeftmost {
        /// The index.
        index: IndexId,
        /// The level.
        level: u16,
    },
    /// Another page of the level has FIL_PAGE_PREV = FIL_NULL (the walk
    /// started at the first).
    ManyLeftmost {
        /// The index.
        index: IndexId,
        /// The level.
        level: u16,
    },
    /// FIL_PAGE_NEXT names a page past the end of the file.
    NextPastFile {
        /// The index.
        index: IndexId,
        /// The level.
        level: u16,
        /// FIL_PAGE_NEXT.
        next: PageNo,
    },
    /// FIL_PAGE_NEXT names a page that is not of this index and level.
    NextForeign {
        /// The index.
        index: IndexId,
        /// The level.
        level: u16,
        /// FIL_PAGE_NEXT.
        next: PageNo,
    },
    /// `A.next = B` but `B.prev ≠ A` (at B's FIL_PAGE_PREV).
    PrevMismatch {
        /// The index.
        index: IndexId,
        /// The level.
        level: u16,
        /// B's FIL_PAGE_PREV.
        prev: PageNo,
        /// A.
        expected: PageNo,
    },
    /// FIL_PAGE_NEXT names a page the chain already walked.
    Loop {
        /// The index.
        index: IndexId,
        /// The level.
        level: u16,
        /// FIL_PAGE_NEXT.
        next: PageNo,
    },
    /// A page of the level the chain does not reach.
    Unreached {
        /// The index.
        index: IndexId,
        /// The level.
        level: u16,
    },
    /// REDUNDANT: a node pointer names a page that is not at the level
    /// below in this index.
    BadChild {
        /// The index.
        index: IndexId,
        /// The level of the node pointer's page.
        level: u16,
        /// The child named.
        child: PageNo,
    },
    /// REDUNDANT: the n-th node pointer of a level names another page than
    /// the n-th page of the level below in chain order.
    ChildOrder {
        /// The index.
        index: IndexId,
        /// The level of the node pointer's page.
        level: u16,
        /// The child the node pointer names.
        child: PageNo,
        /// The page in that place of the chain below.
        found: PageNo,
    },
    /// REDUNDANT: a level holds a different number of node pointers than
    /// the level below has pages.
    ChildCount {
        /// The index.
        index: IndexId,
        /// The level of the node pointers.
        level: u16,
        /// Node pointers.
        pointers: u32,
        /// Pages reached at the level below.
        pages: u32,
    },
}

impl BtreeProblem {
    /// The index the problem belongs to.
    pub fn index(&self) -> IndexId {
        match *self {
            BtreeProblem::Records { index, .. }
            | BtreeProblem::TooHigh { index, .. }
            | BtreeProblem::AboveRoot { index, .. }
            | BtreeProblem::MissingLevel { index, .. }
            | BtreeProblem::NoLeftmost { index, .. }
            | BtreeProblem::ManyLeftmost { index, .. }
            | BtreeProblem::NextPastFile { index, .. }
            | BtreeProblem::NextForeign { index, .. }
            | BtreeProblem::PrevMismatch { index, .. }
            | BtreeProblem::Loop { index, .. }
            | BtreeProblem::Unreached { index, .. }
            | BtreeProblem::BadChild { index, .. }
            | BtreeProblem::ChildOrder { index, .. }
            | BtreeProblem::ChildCount { index, .. } => index,
        }
    }
}

impl fmt::Display for BtreeProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            BtreeProblem::Records { index, problem } => write!(f, "index {index}: {problem}"),
            BtreeProblem::TooHigh { index, level } => write!(
                f,
                "index {index}: root level {level} is past {BTREE_MAX_HEIGHT} levels; not walked"
            ),
            BtreeProblem::AboveRoot { index, level } => {
                write!(f, "index {index}: page at level {level}, not below the root")
            }
            BtreeProblem::MissingLevel { index, level } => {
                write!(f, "index {index}: no page at level {level}")
            }
            BtreeProblem::NoLeftmost { index, level } => write!(
                f,
                "index {index} level {level}: no page without a left sibling"
            ),
            BtreeProblem::ManyLeftmost { index, level } => write!(
                f,
                "index {index} level {level}: a second page without a left sibling"
            ),
            BtreeProblem::NextPastFile { index, level, next } => write!(
                f,
                "index {index} level {level}: next page {next} is past the end of the file"
            ),
            BtreeProblem::NextForeign { index, level, next } => write!(
                f,
                "index {index} level {level}: next page {next} is not of this index and level"
            ),
            BtreeProblem::PrevMismatch {
                index,
                level,
                prev,
                expected,
            } => write!(
                f,
                "index {index} level {level}: previous page is {prev}, but page {expected} links here"
            ),
            BtreeProblem::Loop { index, level, next } => write!(
                f,
                "index {index} level {level}: next page {next} was already walked (loop)"
            ),
            BtreeProblem::Unreached { index, level } => write!(
                f,
                "index {index} level {level}: page not reached from the leftmost page"
            ),
            BtreeProblem::BadChild {
                index,
                level,
                child,
            } => write!(
                f,
                "index {index} level {level}: node pointer names page {child}, not a page of the level below"
            ),
            BtreeProblem::ChildOrder {
                index,
                level,
                child,
                found,
            } => write!(
                f,
                "index {index} level {level}: node pointer names page {child}, but page {found} is in its place below"
            ),
            BtreeProblem::ChildCount {
                index,
                level,
                pointers,
                pages,
            } => write!(
                f,
                "index {index} level {level}: {pointers} node pointers for {pages} pages below"
            ),
        }
    }
}
