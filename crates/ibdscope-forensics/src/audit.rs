//! The audit of a copied tablespace: one verdict per file, with the
//! evidence it rests on.
//!
//! A copy taken by `cp`, rsync, a snapshot or a backup tool can be whole
//! and consistent, or carry the marks of how it was taken. The audit reads
//! every page once ([`ibdscope_core::space::page_facts`]), builds the
//! [`SpaceMap`] (extent descriptors, inodes, roots), and sorts what it
//! finds into verdicts, from least to most severe ([`AuditVerdict`]):
//!
//! | verdict | evidence | source of the rule |
//! |---|---|---|
//! | clean | every page verifies, links and allocation agree | — |
//! | compressed / encrypted | pages whose bytes are transformed: the checksum cannot be checked (or covers the transformed bytes) and the structure in them cannot be read | `buf_page_is_corrupted` (MariaDB `buf0buf.cc`), `Encryption` (MySQL `os0enc.cc`) |
//! | inconsistent generations | pages that verify one by one but disagree: a sibling link not returned, a link into a page of another index or a free page, a free page newer than the extent descriptor that freed it, allocation structures that disagree | `btr_level_list_remove`, `btr_page_free` (`btr0btr.cc`), `fseg_free_page` (`fsp0fsp.cc`) |
//! | foreign pages | a page that verifies but names another space id or page number | `FIL_PAGE_SPACE_ID`, `FIL_PAGE_OFFSET` (`fil0types.h`) |
//! | torn | header and trailer copies of the LSN disagree, and the trailer holds an LSN some write could have had | `FIL_PAGE_END_LSN_OLD_CHKSUM` (`fil0types.h`), first test of `buf_page_is_corrupted` |
//! | damaged | the checksum fails and the page is not torn | `buf_page_is_corrupted` |
//! | zero-filled | pages the structure says are in use hold only zeros | `fsp_alloc_free_page` and `fsp_init_file_page` write every page they hand out |
//! | truncated | the file holds fewer pages than FSP_SIZE, or ends inside a page | `FSP_SIZE` (`fsp0fsp.h`) |
//!
//! **Torn or damaged.** InnoDB writes the low 32 bits of FIL_PAGE_LSN
//! twice, at byte 20 and in the last 4 bytes of the page, precisely so that
//! a write that stopped half way can be seen: both servers test this first
//! in `buf_page_is_corrupted` and then restore such pages from the
//! doublewrite buffer, which exists for "partial page writes" (`buf0dblwr.cc`).
//! A page whose two copies differ is *torn* when the trailer could be the
//! remnant of another write of the same page: the LSN it gives (with the
//! header's high 32 bits, or one less for a wrap) is at most the newest LSN
//! known (the file's newest page, or the redo log's end). Bytes overwritten
//! at random give a trailer beyond anything written, and the page is
//! *damaged*. A page whose checksum fails while both copies agree is
//! *damaged*. ROW_FORMAT=COMPRESSED pages have no trailer, so a torn write
//! there cannot be told from other damage: *damaged*. The limit of the rule:
//! damage confined to the last 4 bytes whose value happens to be a past LSN
//! reads as torn.
//!
//! **Inconsistent generations.** A copy of a running server holds each page
//! as it was when the copy read it. Every test here is between two pages
//! that both verify, so it cannot come from damage: `A.next = B` but
//! `B.prev ≠ A` (`btr_level_list_remove` relinks both siblings in one
//! mini-transaction), a page of an index linking to a page of another index
//! or level, a page in use linking to a page the extent descriptor calls
//! free, and a free page whose FIL_PAGE_LSN is newer than its descriptor
//! page's (a page is freed in a mini-transaction that writes the descriptor
//! page, so a freed page is never newer than its descriptor page). The
//! evidence gives both pages' LSNs and the LSN range of all such pages.
//! Structure findings of the [`SpaceMap`] between pages that verify count
//! here too; where the file also has damaged pages they are listed as
//! possible consequences of that damage instead.
//!
//! Not covered: records inside a page (see [`ibdscope_core::btree`]), and the
//! parent–child links of COMPACT trees (they need the table definition).

use ibdscope_core::checksum::{Scheme, Unverifiable, Verdict};
use ibdscope_core::extents::{Owner, SpaceMap, SpaceProblem};
use ibdscope_core::fil::FilHeader;
use ibdscope_core::flst::page_readable;
use ibdscope_core::index::IndexHeader;
use ibdscope_core::space::{page_facts, PageProblem};
use ibdscope_core::stale::{stale_by_links, stale_descriptor_at, Links};
use ibdscope_core::verdict::trailer_lsn;
use ibdscope_core::verdict::ZeroRule;
use ibdscope_core::FindingKind;
use ibdscope_core::{Engine, IndexId, Lsn, PageNo, PageType, SpaceId, Tablespace, FIL_NULL};
use std::fmt;

/// The verdict on one file, from least to most severe. A file's verdict is
/// the most severe of the kinds its evidence shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum AuditVerdict {
    /// Every page verifies and the structure is consistent.
    Clean,
    /// Page-compressed pages: their content (and, outside full_crc32, their
    /// checksum) cannot be verified without decompression.
    Compressed,
    /// Encrypted pages: their content (and, for MySQL, their checksum)
    /// cannot be verified without the key.
    Encrypted,
    /// Pages that verify alone but disagree with each other.
    Inconsistent,
    /// Pages that verify but belong to another space or place.
    Foreign,
    /// Pages whose halves come from different writes.
    Torn,
    /// Pages that fail their checksum and are not torn.
    Damaged,
    /// Pages in use that are all zeros.
    ZeroFilled,
    /// The file is shorter than its header says.
    Truncated,
}

impl AuditVerdict {
    /// Every verdict, least severe first.
    pub const ALL: [AuditVerdict; 9] = [
        AuditVerdict::Clean,
        AuditVerdict::Compressed,
        AuditVerdict::Encrypted,
        AuditVerdict::Inconsistent,
        AuditVerdict::Foreign,
        AuditVerdict::Torn,
        AuditVerdict::Damaged,
        AuditVerdict::ZeroFilled,
        AuditVerdict::Truncated,
    ];

    /// The verdict as one word (as printed).
    pub fn name(self) -> &'static str {
        match self {
            AuditVerdict::Clean => "clean",
            AuditVerdict::Compressed => "compressed",
            AuditVerdict::Encrypted => "encrypted",
            AuditVerdict::Inconsistent => "inconsistent-generations",
            AuditVerdict::Foreign => "foreign-pages",
            AuditVerdict::Torn => "torn",
            AuditVerdict::Damaged => "damaged",
            AuditVerdict::ZeroFilled => "zero-filled",
            AuditVerdict::Truncated => "truncated",
        }
    }

    /// Whether the verdict is a finding: damage or disagreement found.
    /// Clean, encrypted and compressed are not (what could not be verified
    /// is reported, as `check` does, but nothing wrong was seen).
    pub fn is_finding(self) -> bool {
        self > AuditVerdict::Encrypted
    }
}

impl fmt::Display for AuditVerdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.name())
    }
}

/// Which sibling link a link finding follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Link {
    /// FIL_PAGE_NEXT.
    Next,
    /// FIL_PAGE_PREV.
    Prev,
}

impl Link {
    fn name(self) -> &'static str {
        match self {
            Link::Next => "FIL_PAGE_NEXT",
            Link::Prev => "FIL_PAGE_PREV",
        }
    }
    fn back(self) -> &'static str {
        match self {
            Link::Next => "FIL_PAGE_PREV",
            Link::Prev => "FIL_PAGE_NEXT",
        }
    }
}

/// Why a damaged page is not called torn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum NotTorn {
    /// Both LSN copies agree: one write, later damaged.
    LsnCopiesAgree,
    /// The format has no trailer LSN (ROW_FORMAT=COMPRESSED, page-compressed).
    NoTrailerLsn,
    /// The trailer's LSN is newer than anything written.
    TrailerBeyondNewest {
        /// The LSN the trailer gives.
        trailer_lsn: Lsn,
        /// The newest LSN known.
        newest: Lsn,
    },
    /// A full_crc32 page_compressed size field is not below the page size.
    CompressedSize,
}

/// What was found, with the values that show it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum AuditKind {
    /// Header and trailer LSN copies disagree, and the trailer is an LSN a
    /// write could have had.
    Torn {
        /// FIL_PAGE_LSN.
        lsn: Lsn,
        /// The LSN the trailer's low 32 bits give.
        trailer_lsn: Lsn,
        /// Whether the checksum still verifies (it does not cover the
        /// trailer LSN under crc32).
        checksum_ok: bool,
        /// Where the page turns to zeros up to its end (a write that
        /// stopped), when it does at a 512-byte boundary.
        zero_from: Option<u32>,
    },
    /// The checksum fails (or the LSN copies disagree) and the page is not
    /// torn.
    Damaged {
        /// FIL_PAGE_LSN.
        lsn: Lsn,
        /// Why not torn.
        why: NotTorn,
    },
    /// A page that verifies carries another space id or page number.
    Foreign {
        /// FIL_PAGE_SPACE_ID when it is not the file's.
        space_id: Option<SpaceId>,
        /// FIL_PAGE_OFFSET when it is not the page's position.
        page_no: Option<PageNo>,
        /// The file's space id.
        expected_space: SpaceId,
    },
    /// A page in use is all zeros (SpaceMap's EmptyPageInUse).
    ZeroFilled {
        /// Who uses it.
        owner: Owner,
    },
    /// Page 0 does not verify under its own FSP flags (or is all zeros):
    /// the format was found from the other pages, and the space header
    /// cannot be used.
    Page0Unusable {
        /// Page 0 is all zeros.
        empty: bool,
    },
    /// Page 0 verifies but its FSP header names another space id than the
    /// file's pages carry.
    FspSpaceId {
        /// FSP_SPACE_ID.
        fsp: SpaceId,
        /// The space id the pages carry.
        pages: SpaceId,
    },
    /// The file holds fewer pages than FSP_SIZE.
    ShorterThanFspSize {
        /// FSP_SIZE.
        fsp_size: u32,
        /// Pages in the file.
        pages: u32,
    },
    /// The file ends inside a page.
    TornTail {
        /// Bytes after the last whole page.
        bytes: u64,
    },
    /// `A.link = B` but B's link back does not name A (both verify, same
    /// index and level).
    LinkNotReturned {
        /// The index.
        index: IndexId,
        /// PAGE_LEVEL.
        level: u16,
        /// Which link of A.
        link: Link,
        /// B.
        to: PageNo,
        /// B's link back.
        back: PageNo,
        /// A's LSN.
        lsn: Lsn,
        /// B's LSN.
        to_lsn: Lsn,
    },
    /// A page in use links to a page that verifies but is not an index page
    /// of the same index and level, or that the extent descriptor calls
    /// free.
    LinkElsewhere {
        /// The index of A.
        index: IndexId,
        /// A's PAGE_LEVEL.
        level: u16,
        /// Which link.
        link: Link,
        /// B.
        to: PageNo,
        /// B's index and level, if B is an index page.
        to_index: Option<(IndexId, u16)>,
        /// Whether the extent descriptor marks B free.
        to_free: bool,
        /// Whether B is all zeros.
        to_empty: bool,
        /// A's LSN.
        lsn: Lsn,
        /// B's LSN.
        to_lsn: Lsn,
    },
    /// A page in use links past the end of the file (and the file is not
    /// truncated).
    LinkPastFile {
        /// Which link.
        link: Link,
        /// The page named.
        to: PageNo,
        /// A's LSN.
        lsn: Lsn,
    },
    /// A page the extent descriptor calls free is newer than the descriptor
    /// page: the page was written after the copy of its descriptor.
    FreeNewerThanXdes {
        /// The descriptor page (FSP_HDR or XDES).
        xdes_page: PageNo,
        /// The page's LSN.
        lsn: Lsn,
        /// The descriptor page's LSN.
        xdes_lsn: Lsn,
    },
    /// A page that verifies but is an older copy than a newer page shows
    /// it should be: the page verdict `stale` ([`ibdscope_core::stale`]).
    Stale(PageProblem),
    /// A structure finding between pages that verify.
    Structure(FindingKind),
    /// A structure finding in a file that also has damaged pages: possibly
    /// their consequence.
    StructureAfterDamage(FindingKind),
    /// A finding about the whole file that every command reports the same
    /// way ([`ibdscope_core::summary::file_findings`]): a page size given
    /// against the file's evidence, nothing but zeros after page 0.
    File(FindingKind),
    /// A page's LSN is newer than the end of the copied redo log: recovery
    /// cannot bring the other files to its moment (the server refuses it:
    /// "log sequence number … is in the future").
    BeyondRedoEnd {
        /// The page's LSN.
        lsn: Lsn,
        /// The redo log's end.
        log_end: Lsn,
    },
}

/// One piece of evidence, with its place.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct AuditFinding {
    /// The page, when it concerns one.
    pub page: Option<PageNo>,
    /// Byte offset in the file of the faulty bytes.
    pub file_offset: u64,
    /// What.
    pub kind: AuditKind,
}

impl AuditFinding {
    /// The page verdict word ([`ibdscope_core::verdict`]) of a finding about
    /// one page's own bytes: the word every command gives that page.
    pub fn page_verdict(&self) -> Option<ibdscope_core::PageVerdict> {
        match self.kind {
            AuditKind::Torn { .. } => Some(ibdscope_core::PageVerdict::Torn),
            AuditKind::Damaged { .. } => Some(ibdscope_core::PageVerdict::Corrupt),
            AuditKind::Foreign { .. } => Some(ibdscope_core::PageVerdict::Foreign),
            AuditKind::Stale(_) => Some(ibdscope_core::PageVerdict::Stale),
            AuditKind::ZeroFilled { .. } => Some(ibdscope_core::PageVerdict::Zeroed),
            _ => None,
        }
    }

    /// The verdict this evidence supports.
    pub fn verdict(&self) -> AuditVerdict {
        match self.kind {
            AuditKind::Torn { .. } => AuditVerdict::Torn,
            AuditKind::Damaged { .. }
            | AuditKind::FspSpaceId { .. }
            | AuditKind::Page0Unusable { empty: false } => AuditVerdict::Damaged,
            AuditKind::Page0Unusable { empty: true } => AuditVerdict::ZeroFilled,
            AuditKind::Foreign { .. } => AuditVerdict::Foreign,
            AuditKind::ZeroFilled { .. }
            | AuditKind::File(FindingKind::ZeroedAfterPage0 { .. }) => AuditVerdict::ZeroFilled,
            AuditKind::File(_) => AuditVerdict::Damaged,
            AuditKind::ShorterThanFspSize { .. } | AuditKind::TornTail { .. } => {
                AuditVerdict::Truncated
            }
            AuditKind::LinkNotReturned { .. }
            | AuditKind::LinkElsewhere { .. }
            | AuditKind::LinkPastFile { .. }
            | AuditKind::FreeNewerThanXdes { .. }
            | AuditKind::Stale(_)
            | AuditKind::Structure(_)
            | AuditKind::BeyondRedoEnd { .. } => AuditVerdict::Inconsistent,
            // Counted under the damage it follows, never a verdict alone.
            AuditKind::StructureAfterDamage(_) => AuditVerdict::Clean,
        }
    }

    /// The LSNs this evidence names (for LSN ranges).
    pub fn lsns(&self) -> [Option<Lsn>; 2] {
        match self.kind {
            AuditKind::Torn {
                lsn, trailer_lsn, ..
            } => [Some(lsn), Some(trailer_lsn)],
            AuditKind::Damaged { lsn, .. } | AuditKind::LinkPastFile { lsn, .. } => {
                [Some(lsn), None]
            }
            AuditKind::LinkNotReturned { lsn, to_lsn, .. }
            | AuditKind::LinkElsewhere { lsn, to_lsn, .. } => [Some(lsn), Some(to_lsn)],
            AuditKind::FreeNewerThanXdes { lsn, xdes_lsn, .. } => [Some(lsn), Some(xdes_lsn)],
            AuditKind::BeyondRedoEnd { lsn, .. } => [Some(lsn), None],
            _ => [None, None],
        }
    }
}

/// A run of consecutive pages that cannot be verified, and why.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct UnverifiedRun {
    /// First page.
    pub first: PageNo,
    /// Last page.
    pub last: PageNo,
    /// Encrypted or page-compressed.
    pub why: Unverifiable,
    /// Whether the checksum was verified (MariaDB checksums the transformed
    /// bytes; MySQL the plaintext) although the content cannot be read.
    pub checksum_verified: bool,
}

impl UnverifiedRun {
    /// Pages in the run.
    pub fn len(&self) -> u32 {
        self.last.0.saturating_sub(self.first.0).saturating_add(1)
    }
    /// Never empty; for clippy's `len_without_is_empty`.
    pub fn is_empty(&self) -> bool {
        false
    }
}

/// A run of consecutive pages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PageRun {
    /// First page.
    pub first: PageNo,
    /// Last page.
    pub last: PageNo,
}

/// Reference points a datadir gives every file's audit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Reference {
    /// The redo log's checkpoint LSN.
    pub checkpoint: Option<Lsn>,
    /// The LSN up to which the copied redo log holds complete
    /// mini-transactions.
    pub log_end: Option<Lsn>,
}

/// How to audit.
#[derive(Clone, Copy, Debug, Default)]
#[non_exhaustive]
pub struct AuditOptions {
    /// The datadir's reference points.
    pub reference: Reference,
    /// Skip the space-structure checks (the system tablespace and undo
    /// tablespaces hold structures the map does not model).
    pub pages_only: bool,
}

impl AuditOptions {
    /// An audit against the datadir's reference points.
    pub fn new(reference: Reference) -> Self {
        AuditOptions {
            reference,
            pages_only: false,
        }
    }

    /// These options with the space-structure checks skipped or not.
    pub fn with_pages_only(mut self, pages_only: bool) -> Self {
        self.pages_only = pages_only;
        self
    }
}

/// Pages newer than the checkpoint.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct NewerThanCheckpoint {
    /// How many.
    pub pages: u32,
    /// Where (runs of consecutive pages).
    pub runs: Vec<PageRun>,
    /// The newest LSN among them.
    pub newest: Option<Lsn>,
}

/// Whether the structure was checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum StructureCheck {
    /// Extent descriptors, inodes, roots and sibling links were checked.
    Checked,
    /// Page 0 does not verify or belongs elsewhere: the map would be built
    /// on bytes that cannot be trusted, and without it freed pages (whose
    /// links are stale) cannot be told from pages in use, so neither the
    /// structure nor the sibling links were checked.
    Page0Unusable,
    /// Not asked for ([`AuditOptions::pages_only`]).
    NotAsked,
    /// The system tablespace (space 0): its TRX_SYS, dictionary, undo and
    /// doublewrite structures are not modelled by the space map.
    SystemTablespace,
}

/// The audit of one file.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Audit {
    /// The most severe verdict the evidence supports.
    pub verdict: AuditVerdict,
    /// Whole pages in the file.
    pub pages: u32,
    /// The space id the file's pages agree on.
    pub space_id: SpaceId,
    /// Pages that verify (including all-zero pages).
    pub verified: u32,
    /// All-zero pages.
    pub empty: u32,
    /// Lowest and highest FIL_PAGE_LSN of the pages that verify (non-zero).
    pub lsn_range: Option<(Lsn, Lsn)>,
    /// The newest page that verifies.
    pub newest: Option<(PageNo, Lsn)>,
    /// Evidence, in page order within each kind of check.
    pub findings: Vec<AuditFinding>,
    /// Pages that cannot be verified.
    pub unverified: Vec<UnverifiedRun>,
    /// Free pages that still hold records (a normal state after purge and
    /// merges, not a finding).
    pub freed_with_records: u32,
    /// Whether the structure was checked.
    pub structure: StructureCheck,
    /// System tablespace: the two blocks of the doublewrite buffer named on
    /// the TRX_SYS page. Their pages are copies of other pages (with those
    /// pages' numbers and space ids): counted in `verified` and `empty` by
    /// the copy's own verdict, never findings.
    pub doublewrite: Option<[PageRun; 2]>,
    /// Doublewrite slots whose copy does not verify (torn or never
    /// completed copies: the doublewrite section judges them).
    pub doublewrite_not_verifying: u32,
    /// Against the checkpoint, when one was given.
    pub newer_than_checkpoint: Option<NewerThanCheckpoint>,
}

/// A page with a checksum or LSN-pair problem, kept until the newest LSN
/// is known.
#[derive(Clone, Copy, Debug)]
struct Bad {
    page: PageNo,
    lsn: Lsn,
    pair: Option<(u32, u32)>,
    checksum_ok: bool,
    bad_size: bool,
    /// Byte in the page of the problem that replaced the checksum one (a
    /// page_compressed page that does not decompress), else 0.
    at: u64,
}

/// Per-page state kept for the link checks (one small record per page
/// with data: see [`Slims`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Slim {
    prev: u32,
    next: u32,
    lsn: u64,
    index: u64,
    level: u16,
    state: State,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum State {
    /// Verifies, readable, an index page.
    Index,
    /// Verifies, readable, another type.
    #[default]
    Other,
    /// All zeros.
    Empty,
    /// Damaged, torn or foreign.
    Suspect,
    /// Encrypted or compressed: not read.
    Unreadable,
}

/// An all-zero page's record.
const EMPTY_SLIM: Slim = Slim {
    prev: 0,
    next: 0,
    lsn: 0,
    index: 0,
    level: 0,
    state: State::Empty,
};

/// Pages per chunk of [`Slims`].
const SLIM_CHUNK: usize = 4096;

/// The per-page records, in chunks of [`SLIM_CHUNK`] pages; a chunk is
/// allocated when one of its pages is not all zeros. So memory follows the
/// pages that hold data, not the size the file claims (a sparse file of a
/// terabyte with a few pages of data keeps a few chunks and one pointer per
/// 4,096 pages).
#[derive(Debug, Default)]
struct Slims {
    n: usize,
    chunks: Vec<Option<Box<[Slim]>>>,
}

impl Slims {
    fn new(n: usize) -> Slims {
        let mut chunks = Vec::new();
        chunks.resize_with(n.div_ceil(SLIM_CHUNK), || None);
        Slims { n, chunks }
    }
    fn get(&self, k: usize) -> Option<&Slim> {
        if k >= self.n {
            return None;
        }
        match self.chunks.get(k / SLIM_CHUNK)? {
            Some(c) => c.get(k % SLIM_CHUNK),
            None => Some(&EMPTY_SLIM),
        }
    }
    fn set(&mut self, k: usize, s: Slim) {
        if k >= self.n {
            return;
        }
        let Some(chunk) = self.chunks.get_mut(k / SLIM_CHUNK) else {
            return;
        };
        if chunk.is_none() && s == EMPTY_SLIM {
            return;
        }
        let c = chunk.get_or_insert_with(|| vec![EMPTY_SLIM; SLIM_CHUNK].into_boxed_slice());
        if let Some(slot) = c.get_mut(k % SLIM_CHUNK) {
            *slot = s;
        }
    }
    fn update(&mut self, k: usize, f: impl FnOnce(&mut Slim)) {
        if let Some(mut s) = self.get(k).copied() {
            f(&mut s);
            self.set(k, s);
        }
    }
    /// The records of pages that are not all zeros, or may not be, with
    /// their page numbers (all-zero pages of unallocated chunks skipped).
    fn iter(&self) -> impl Iterator<Item = (usize, &Slim)> + '_ {
        self.chunks
            .iter()
            .enumerate()
            .filter_map(|(i, c)| c.as_ref().map(|c| (i, c)))
            .flat_map(move |(i, c)| {
                c.iter()
                    .enumerate()
                    .map(move |(j, s)| (i.saturating_mul(SLIM_CHUNK).saturating_add(j), s))
            })
            .filter(move |(k, _)| *k < self.n)
    }
}

impl Audit {
    /// Audits `ts` with no reference points; the space map is built on
    /// `engine`.
    pub fn of(ts: &Tablespace<'_>, engine: &Engine<'_>) -> Audit {
        Self::with_options(ts, engine, AuditOptions::default())
    }

    /// Audits `ts`. One pass over the pages, the space map (built on
    /// `engine`), then the link checks over the per-page records the pass
    /// kept. Never panics.
    pub fn with_options(ts: &Tablespace<'_>, engine: &Engine<'_>, opts: AuditOptions) -> Audit {
        Builder::new(ts, opts).run(engine)
    }

    /// Audits `ts`, an encrypted space, with its decrypted image `plain`
    /// (the same page size and number of pages; `not_decrypted`: the pages
    /// that did not decrypt, sorted, which count as damaged). The pages are judged
    /// as stored, as the server judges them before decrypting; a page
    /// whose stored bytes carry no checksum the server checks (outside
    /// full_crc32, a page_compressed encrypted page) is judged by its
    /// decrypted image; the content (index headers, the space map, the
    /// links) is read from `plain`.
    pub fn with_plain<'t>(
        ts: &'t Tablespace<'_>,
        plain: &'t Tablespace<'t>,
        not_decrypted: &'t [PageNo],
        engine: &Engine<'_>,
        opts: AuditOptions,
    ) -> Audit {
        let mut b = Builder::new(ts, opts);
        if plain.page_size() == ts.page_size() && plain.n_pages() == ts.n_pages() {
            b.content = plain;
            b.not_decrypted = not_decrypted;
        }
        b.run(engine)
    }
}

impl Builder<'_, '_> {
    fn run(mut self, engine: &Engine<'_>) -> Audit {
        let b = &mut self;
        b.scan(engine);
        b.classify_bad();
        b.whole_file();
        b.structure(engine);
        b.links();
        b.free_newer_than_xdes();
        b.stale();
        self.finish()
    }
}

impl Audit {
    /// The LSN range of the evidence of one verdict.
    pub fn lsn_range_of(&self, v: AuditVerdict) -> Option<(Lsn, Lsn)> {
        self.findings
            .iter()
            .filter(|f| f.verdict() == v)
            .flat_map(|f| f.lsns())
            .flatten()
            .filter(|l| l.0 != 0)
            .fold(None, |acc, l| match acc {
                None => Some((l, l)),
                Some((lo, hi)) => Some((lo.min(l), hi.max(l))),
            })
    }

    /// Distinct pages named by the evidence of one verdict.
    pub fn pages_of(&self, v: AuditVerdict) -> Vec<PageNo> {
        let mut p: Vec<PageNo> =
            self.findings
                .iter()
                .filter(|f| f.verdict() == v)
                .flat_map(|f| {
                    let other = match f.kind {
                        AuditKind::LinkNotReturned { to, .. }
                        | AuditKind::LinkElsewhere { to, .. } => Some(to),
                        _ => None,
                    };
                    [f.page, other]
                })
                .flatten()
                .collect();
        p.sort_unstable();
        p.dedup();
        p
    }

    /// The verdicts the evidence shows, each with its number of findings,
    /// most severe first. Unverified pages count as findings of
    /// compressed/encrypted.
    pub fn verdicts(&self) -> Vec<(AuditVerdict, u32)> {
        let mut out: Vec<(AuditVerdict, u32)> = Vec::new();
        let mut add = |v: AuditVerdict, n: u32| {
            if v == AuditVerdict::Clean || n == 0 {
                return;
            }
            match out.iter_mut().find(|(x, _)| *x == v) {
                Some((_, c)) => *c = c.saturating_add(n),
                None => out.push((v, n)),
            }
        };
        for f in &self.findings {
            add(f.verdict(), 1);
        }
        for r in &self.unverified {
            add(unverified_verdict(r.why), r.len());
        }
        out.sort_by_key(|&(v, _)| std::cmp::Reverse(v));
        out
    }
}

fn unverified_verdict(w: Unverifiable) -> AuditVerdict {
    match w {
        Unverifiable::Encrypted => AuditVerdict::Encrypted,
        Unverifiable::PageCompressed => AuditVerdict::Compressed,
    }
}

struct Builder<'t, 'a> {
    ts: &'t Tablespace<'a>,
    /// Where the pages' content is read: `ts`, or its decrypted image
    /// ([`Audit::with_plain`]).
    content: &'t Tablespace<'t>,
    /// With a decrypted image: the pages that did not decrypt.
    not_decrypted: &'t [PageNo],
    opts: AuditOptions,
    n_pages: u32,
    slim: Slims,
    /// Pages with checksum or LSN-pair problems.
    bad: Vec<Bad>,
    /// Pages that verify but name another place: (page, stored page no,
    /// stored space id, has space id).
    misplaced: Vec<(PageNo, PageNo, SpaceId)>,
    /// Space ids of pages that verify: (id, count).
    space_votes: Vec<(u32, u32)>,
    space_id: SpaceId,
    verified: u32,
    empty: u32,
    lsn_range: Option<(Lsn, Lsn)>,
    newest: Option<(PageNo, Lsn)>,
    findings: Vec<AuditFinding>,
    unverified: Vec<UnverifiedRun>,
    newer: Option<NewerThanCheckpoint>,
    map: Option<SpaceMap>,
    truncated: bool,
    freed_with_records: u32,
    structure: StructureCheck,
    doublewrite: Option<[PageRun; 2]>,
    doublewrite_not_verifying: u32,
}

/// `FSP_TRX_SYS_PAGE_NO`.
const TRX_SYS_PAGE_NO: u32 = 5;
/// `TRX_SYS_DOUBLEWRITE` counted from the page end (`UNIV_PAGE_SIZE - 200`).
const TRX_SYS_DOUBLEWRITE_FROM_END: usize = 200;
/// `TRX_SYS_DOUBLEWRITE_MAGIC_N`.
const TRX_SYS_DOUBLEWRITE_MAGIC_N: u32 = 536_853_855;

/// The doublewrite blocks named on the TRX_SYS page of a system
/// tablespace (trx0sys.h: magic at +10, block 1 at +14, block 2 at +18,
/// each `FSP_EXTENT_SIZE` pages).
fn doublewrite_blocks(ts: &Tablespace<'_>) -> Option<[PageRun; 2]> {
    if ts.space_id().0 != 0 {
        return None;
    }
    let page = ts.page(PageNo(TRX_SYS_PAGE_NO))?;
    if !ibdscope_core::space::verify_page(page, ts.scheme()).is_ok() {
        return None;
    }
    let at = page.len().checked_sub(TRX_SYS_DOUBLEWRITE_FROM_END)?;
    let word = |o: usize| ibdscope_prims::bytes::be_u32(page, at.checked_add(o)?);
    if word(10)? != TRX_SYS_DOUBLEWRITE_MAGIC_N {
        return None;
    }
    let extent = ts.format().extent_size();
    let run = |first: u32| PageRun {
        first: PageNo(first),
        last: PageNo(first.saturating_add(extent.saturating_sub(1))),
    };
    Some([run(word(14)?), run(word(18)?)])
}

impl<'t, 'a> Builder<'t, 'a> {
    fn new(ts: &'t Tablespace<'a>, opts: AuditOptions) -> Self {
        Builder {
            ts,
            content: ts,
            not_decrypted: &[],
            opts,
            n_pages: ts.n_pages(),
            slim: Slims::default(),
            bad: Vec::new(),
            misplaced: Vec::new(),
            space_votes: Vec::new(),
            space_id: ts.space_id(),
            verified: 0,
            empty: 0,
            lsn_range: None,
            newest: None,
            findings: Vec::new(),
            unverified: Vec::new(),
            newer: opts
                .reference
                .checkpoint
                .map(|_| NewerThanCheckpoint::default()),
            map: None,
            truncated: false,
            freed_with_records: 0,
            structure: StructureCheck::NotAsked,
            doublewrite: doublewrite_blocks(ts),
            doublewrite_not_verifying: 0,
        }
    }

    fn page_offset(&self, n: PageNo, within: u64) -> u64 {
        self.ts.file_offset(n).saturating_add(within)
    }

    /// The one pass: facts, per-page records, unverified runs, votes; its
    /// progress told to `engine`'s hook.
    fn scan(&mut self, engine: &Engine<'_>) {
        let ts = self.ts;
        let scheme = ts.scheme();
        let names = ts.type_names();
        self.slim = Slims::new(self.n_pages as usize);
        let dblwr = self.doublewrite;
        let in_dblwr =
            |n: PageNo| dblwr.is_some_and(|d| d.iter().any(|r| r.first <= n && n <= r.last));
        // Pages judged as `check` judges them: page_compressed pages
        // outside full_crc32 after decompression.
        let mut judge = ibdscope_core::summary::Judge::default();
        // With a decrypted image (`Audit::with_plain`).
        let content = self.content;
        let keyed = !std::ptr::eq(content, ts);
        // The holes of a sparse file: all zeros, never read, counted a
        // run at a time (a doublewrite page among them is a copy, below).
        for (first, count) in ts.zero_runs() {
            let end = first.0.saturating_add(count);
            let mut zeros = count;
            for r in dblwr.iter().flatten() {
                for k in r.first.0.max(first.0)..r.last.0.saturating_add(1).min(end) {
                    zeros = zeros.saturating_sub(1);
                    self.slim
                        .update(k as usize, |s| s.state = State::Unreadable);
                }
            }
            self.empty = self.empty.saturating_add(zeros);
            self.verified = self.verified.saturating_add(zeros);
        }
        let total = u64::from(self.n_pages);
        for (n, page) in ts.data_pages() {
            if n.0 % 4096 == 0 {
                engine.progress(u64::from(n.0), total);
            }
            if in_dblwr(n) {
                // A copy of another page; its own place is judged there.
                // Counted by the copy's own verdict, as `check` counts it;
                // a copy that does not verify (a torn copy is what the
                // buffer is for) is no finding on this file.
                match ts.doublewrite_copy(page_facts(page, n, scheme)).verdict {
                    Verdict::Empty => {
                        self.empty = self.empty.saturating_add(1);
                        self.verified = self.verified.saturating_add(1);
                    }
                    Verdict::Valid(_) => self.verified = self.verified.saturating_add(1),
                    _ => {
                        self.doublewrite_not_verifying =
                            self.doublewrite_not_verifying.saturating_add(1)
                    }
                }
                self.slim
                    .update(n.0 as usize, |s| s.state = State::Unreadable);
                continue;
            }
            let (mut f, instead) = judge.judge(ts, page_facts(page, n, scheme));
            let at = match (instead, f.verdict) {
                (Some(p), _) => ibdscope_core::verdict::problem_offset(ts, p),
                (None, Verdict::BadCompressedSize) => ibdscope_core::verdict::problem_offset(
                    ts,
                    ibdscope_core::space::PageProblem::CompressedSize,
                ),
                _ => 0,
            };
            // The content: the page as stored, or its decrypted image.
            // Held for this page only: a decrypted space is read through a
            // page source whose memory stays bounded.
            let held = content.page_ref(n);
            let cpage = held.as_deref().unwrap_or(page);
            if self.not_decrypted.binary_search(&n).is_ok() && f.verdict.is_ok() {
                // Its stored checksum holds but it does not decrypt (or
                // decompress after decrypting): damaged, as the server
                // refuses it.
                f.verdict = Verdict::Mismatch;
            } else if f.verdict == Verdict::Unverifiable(Unverifiable::Encrypted) && keyed {
                // No checksum of the stored bytes: its decrypted image's.
                f.verdict = match ibdscope_core::space::verify_page(cpage, scheme) {
                    v @ (Verdict::Valid(_) | Verdict::Empty) => v,
                    _ => Verdict::Mismatch,
                };
            }
            if keyed {
                // The decrypted image restores the original page type.
                if let Some(h) = ibdscope_core::fil::FilHeader::new(cpage) {
                    f.page_type = h.page_type();
                }
            }
            let readable = page_readable(content, cpage);
            let mut s = Slim {
                prev: f.prev.0,
                next: f.next.0,
                lsn: f.lsn.0,
                ..Slim::default()
            };
            let lsn_bad = f.lsn_pair.is_some_and(|(h, t)| h != t) && !f.is_empty();
            match f.verdict {
                Verdict::Empty => {
                    self.empty = self.empty.saturating_add(1);
                    self.verified = self.verified.saturating_add(1);
                    s.state = State::Empty;
                }
                Verdict::Valid(_) if !lsn_bad => {
                    self.verified = self.verified.saturating_add(1);
                    s.state = if !readable {
                        let why = if transformed_by_compression(page, scheme) {
                            Unverifiable::PageCompressed
                        } else {
                            Unverifiable::Encrypted
                        };
                        self.unverified_page(n, why, true);
                        State::Unreadable
                    } else if f.page_type.is_index(names) {
                        if let Some(h) = IndexHeader::new(cpage) {
                            s.index = h.index_id().0;
                            s.level = h.level();
                        }
                        State::Index
                    } else {
                        State::Other
                    };
                    if f.has_space_id && f.space_id.0 != 0 {
                        vote(&mut self.space_votes, f.space_id.0);
                    }
                    // Page 0 is kept as a candidate: the other pages may
                    // outvote its space id.
                    if n.0 == 0
                        || f.stored_page_no != n
                        || (f.has_space_id && f.space_id.0 != 0 && f.space_id != ts.space_id())
                    {
                        self.misplaced.push((n, f.stored_page_no, f.space_id));
                    }
                    self.saw_lsn(n, f.lsn);
                }
                Verdict::Valid(_) => {
                    self.bad.push(Bad {
                        page: n,
                        lsn: f.lsn,
                        pair: f.lsn_pair,
                        checksum_ok: true,
                        bad_size: false,
                        at,
                    });
                    s.state = State::Suspect;
                }
                Verdict::Unverifiable(why) => {
                    self.unverified_page(n, why, false);
                    s.state = State::Unreadable;
                    // The FIL header of an encrypted or page-compressed
                    // page stays plain: its place can still be checked.
                    if f.stored_page_no != n
                        || (f.has_space_id && f.space_id.0 != 0 && f.space_id != ts.space_id())
                    {
                        self.misplaced.push((n, f.stored_page_no, f.space_id));
                    }
                }
                Verdict::BadCompressedSize => {
                    self.bad.push(Bad {
                        page: n,
                        lsn: f.lsn,
                        pair: None,
                        checksum_ok: false,
                        bad_size: true,
                        at,
                    });
                    s.state = State::Suspect;
                }
                // Verdict::Mismatch, and any verdict this audit does not
                // know: the page does not verify.
                _ => {
                    self.bad.push(Bad {
                        page: n,
                        lsn: f.lsn,
                        pair: f.lsn_pair,
                        checksum_ok: false,
                        bad_size: false,
                        at,
                    });
                    s.state = State::Suspect;
                }
            }
            self.slim.set(n.0 as usize, s);
        }
        // The space id most pages that verify carry: page 0 may itself be
        // the page from elsewhere.
        let total: u32 = self
            .space_votes
            .iter()
            .map(|(_, c)| *c)
            .fold(0, u32::saturating_add);
        if let Some(&(id, c)) = self.space_votes.iter().max_by_key(|(_, c)| *c) {
            if id != ts.space_id().0 && c.saturating_mul(2) > total {
                self.space_id = SpaceId(id);
            }
        }
    }

    fn saw_lsn(&mut self, n: PageNo, lsn: Lsn) {
        if lsn.0 == 0 {
            return;
        }
        self.lsn_range = Some(match self.lsn_range {
            None => (lsn, lsn),
            Some((lo, hi)) => (lo.min(lsn), hi.max(lsn)),
        });
        if self.newest.is_none_or(|(_, l)| lsn > l) {
            self.newest = Some((n, lsn));
        }
        if let (Some(ckpt), Some(newer)) = (self.opts.reference.checkpoint, self.newer.as_mut()) {
            if lsn > ckpt {
                newer.pages = newer.pages.saturating_add(1);
                newer.newest = Some(newer.newest.map_or(lsn, |x| x.max(lsn)));
                push_run(&mut newer.runs, n);
            }
        }
        if let Some(end) = self.opts.reference.log_end {
            if lsn > end {
                self.findings.push(AuditFinding {
                    page: Some(n),
                    file_offset: self.page_offset(n, ibdscope_core::fil::FIL_PAGE_LSN as u64),
                    kind: AuditKind::BeyondRedoEnd { lsn, log_end: end },
                });
            }
        }
    }

    fn unverified_page(&mut self, n: PageNo, why: Unverifiable, checksum_verified: bool) {
        match self.unverified.last_mut() {
            Some(r)
                if r.why == why
                    && r.checksum_verified == checksum_verified
                    && r.last.0.checked_add(1) == Some(n.0) =>
            {
                r.last = n
            }
            _ => self.unverified.push(UnverifiedRun {
                first: n,
                last: n,
                why,
                checksum_verified,
            }),
        }
    }

    /// Torn or damaged, once the newest LSN is known; then foreign pages.
    /// The rule is the one every command speaks through
    /// ([`ibdscope_core::verdict`]): torn only when the trailer's LSN is at
    /// most the newest LSN of the pages that verify (never the damaged
    /// page's own, nor the redo log's end, which the file's other
    /// commands do not know).
    fn classify_bad(&mut self) {
        let newest = self.lsn_range.map(|(_, hi)| hi);
        let trailer_at = ibdscope_core::verdict::problem_offset(
            self.ts,
            ibdscope_core::space::PageProblem::LsnMismatch {
                header: 0,
                trailer: 0,
            },
        );
        let bad = std::mem::take(&mut self.bad);
        for Bad {
            page: n,
            lsn,
            pair,
            checksum_ok,
            bad_size,
            at,
        } in bad
        {
            let page = self.ts.page(n).unwrap_or(&[]);
            let kind = if bad_size {
                AuditKind::Damaged {
                    lsn,
                    why: NotTorn::CompressedSize,
                }
            } else {
                match pair {
                    Some((h, t)) if h != t => {
                        let limit = newest.unwrap_or(Lsn(0));
                        let trailer_lsn = newest.and_then(|n| trailer_lsn(lsn, t, n));
                        match trailer_lsn {
                            Some(trailer_lsn) => AuditKind::Torn {
                                lsn,
                                trailer_lsn,
                                checksum_ok,
                                zero_from: zero_tail(page),
                            },
                            None => AuditKind::Damaged {
                                lsn,
                                why: NotTorn::TrailerBeyondNewest {
                                    trailer_lsn: Lsn((lsn.0 & 0xFFFF_FFFF_0000_0000) | u64::from(t)),
                                    newest: limit,
                                },
                            },
                        }
                    }
                    Some(_) => AuditKind::Damaged {
                        lsn,
                        why: NotTorn::LsnCopiesAgree,
                    },
                    None => AuditKind::Damaged {
                        lsn,
                        why: NotTorn::NoTrailerLsn,
                    },
                }
            };
            let at = match kind {
                AuditKind::Torn { .. }
                | AuditKind::Damaged {
                    why: NotTorn::TrailerBeyondNewest { .. },
                    ..
                } => trailer_at,
                _ => at,
            };
            self.findings.push(AuditFinding {
                page: Some(n),
                file_offset: self.page_offset(n, at),
                kind,
            });
        }
        let misplaced = std::mem::take(&mut self.misplaced);
        for (n, stored, space) in misplaced {
            let space_id = (space.0 != 0 && space != self.space_id).then_some(space);
            let page_no = (stored != n).then_some(stored);
            if space_id.is_none() && page_no.is_none() {
                continue;
            }
            let at = if page_no.is_some() {
                ibdscope_core::fil::FIL_PAGE_OFFSET
            } else {
                ibdscope_core::fil::FIL_PAGE_SPACE_ID
            };
            self.findings.push(AuditFinding {
                page: Some(n),
                file_offset: self.page_offset(n, at as u64),
                kind: AuditKind::Foreign {
                    space_id,
                    page_no,
                    expected_space: self.space_id,
                },
            });
            self.slim.update(n.0 as usize, |s| s.state = State::Suspect);
        }
    }

    fn whole_file(&mut self) {
        let ts = self.ts;
        // Said first: they change how every other finding reads.
        for f in ibdscope_core::summary::file_findings(ts).into_iter().rev() {
            if matches!(
                f.kind,
                FindingKind::PageSizeContradicted { .. }
                    | FindingKind::ZeroedAfterPage0 { .. }
                    | FindingKind::CryptData(_)
            ) {
                self.findings.insert(
                    0,
                    AuditFinding {
                        page: f.page,
                        file_offset: f.file_offset,
                        kind: AuditKind::File(f.kind),
                    },
                );
            }
        }
        if !ts.detection().page0_ok && !self.suspect(PageNo(0)) {
            self.findings.push(AuditFinding {
                page: Some(PageNo(0)),
                file_offset: 0,
                kind: AuditKind::Page0Unusable {
                    empty: self.state(0) == Some(State::Empty),
                },
            });
            self.slim.update(0, |s| s.state = State::Suspect);
        }
        if let Some(h) = ts.fsp_header() {
            if h.space_id() != self.space_id && !self.suspect(PageNo(0)) && self.space_id.0 != 0 {
                self.findings.push(AuditFinding {
                    page: Some(PageNo(0)),
                    file_offset: ibdscope_core::fsp::FSP_HEADER_OFFSET as u64,
                    kind: AuditKind::FspSpaceId {
                        fsp: h.space_id(),
                        pages: self.space_id,
                    },
                });
                self.slim.update(0, |s| s.state = State::Suspect);
            }
        }
        let (tail, at) = ts.tail();
        if tail > 0 {
            self.truncated = true;
            self.findings.push(AuditFinding {
                page: Some(PageNo(self.n_pages)),
                file_offset: at,
                kind: AuditKind::TornTail { bytes: tail },
            });
        }
        if let Some(h) = ts.fsp_header() {
            if h.size() > self.n_pages && !self.suspect(PageNo(0)) {
                self.truncated = true;
                self.findings.push(AuditFinding {
                    page: None,
                    file_offset: ts.file_offset(PageNo(self.n_pages)),
                    kind: AuditKind::ShorterThanFspSize {
                        fsp_size: h.size(),
                        pages: self.n_pages,
                    },
                });
            }
        }
    }

    fn state(&self, n: u32) -> Option<State> {
        self.slim.get(n as usize).map(|s| s.state)
    }

    fn suspect(&self, n: PageNo) -> bool {
        self.state(n.0) == Some(State::Suspect)
    }

    /// The space map and its findings, sorted into evidence.
    fn structure(&mut self, engine: &Engine<'_>) {
        if self.opts.pages_only {
            return;
        }
        if self.ts.space_id().0 == 0 {
            self.structure = StructureCheck::SystemTablespace;
            return;
        }
        if !self.ts.detection().page0_ok || self.suspect(PageNo(0)) {
            self.structure = StructureCheck::Page0Unusable;
            return;
        }
        self.structure = StructureCheck::Checked;
        let map = SpaceMap::build(self.content, engine);
        let damaged = self.slim.iter().any(|(_, s)| s.state == State::Suspect);
        for f in &map.findings {
            let kind = match f.kind {
                FindingKind::Space(SpaceProblem::FreePageWithData { .. }) => {
                    self.freed_with_records = self.freed_with_records.saturating_add(1);
                    continue;
                }
                FindingKind::Space(SpaceProblem::EmptyPageInUse { owner }) => {
                    AuditKind::ZeroFilled { owner }
                }
                FindingKind::Space(SpaceProblem::PastFile { .. }) if self.truncated => continue,
                _ if f.page.is_some_and(|p| self.suspect(p)) => continue,
                _ if f.page.is_some_and(|p| p.0 >= self.n_pages) && self.truncated => continue,
                k if damaged => AuditKind::StructureAfterDamage(k),
                k => AuditKind::Structure(k),
            };
            self.findings.push(AuditFinding {
                page: f.page,
                file_offset: f.file_offset,
                kind,
            });
        }
        self.map = Some(map);
    }

    fn owner(&self, n: u32) -> Option<Owner> {
        self.map
            .as_ref()
            .and_then(|m| m.owner(self.content, PageNo(n)))
    }

    fn in_use(&self, n: u32) -> bool {
        !matches!(self.owner(n), Some(Owner::Free))
    }

    /// Sibling links between pages in use that verify. Needs the map: a
    /// freed page keeps its stale links and must be left out.
    fn links(&mut self) {
        if self.map.is_none() {
            return;
        }
        let mut out = Vec::new();
        for (a, s) in self.slim.iter() {
            let Ok(a) = u32::try_from(a) else { break };
            if s.state != State::Index || !self.in_use(a) {
                continue;
            }
            for (link, to) in [(Link::Next, s.next), (Link::Prev, s.prev)] {
                if to == FIL_NULL {
                    continue;
                }
                let Some(t) = self.slim.get(to as usize) else {
                    if !self.truncated {
                        out.push(AuditFinding {
                            page: Some(PageNo(a)),
                            file_offset: self.link_offset(a, link),
                            kind: AuditKind::LinkPastFile {
                                link,
                                to: PageNo(to),
                                lsn: Lsn(s.lsn),
                            },
                        });
                    }
                    continue;
                };
                match t.state {
                    State::Suspect | State::Unreadable => continue,
                    State::Empty if self.in_use(to) => continue,
                    _ => {}
                }
                out.extend(self.link_finding(a, s, link, to, t));
            }
        }
        self.findings.extend(out);
    }

    fn link_offset(&self, a: u32, link: Link) -> u64 {
        let at = match link {
            Link::Next => ibdscope_core::fil::FIL_PAGE_NEXT,
            Link::Prev => ibdscope_core::fil::FIL_PAGE_PREV,
        };
        self.page_offset(PageNo(a), at as u64)
    }

    /// The finding for `a.link = to`, if the link is wrong.
    fn link_finding(
        &self,
        a: u32,
        s: &Slim,
        link: Link,
        to: u32,
        t: &Slim,
    ) -> Option<AuditFinding> {
        let to_free = !self.in_use(to);
        let file_offset = self.link_offset(a, link);
        let same = t.state == State::Index && t.index == s.index && t.level == s.level;
        if !same || to_free || to == a {
            return Some(AuditFinding {
                page: Some(PageNo(a)),
                file_offset,
                kind: AuditKind::LinkElsewhere {
                    index: IndexId(s.index),
                    level: s.level,
                    link,
                    to: PageNo(to),
                    to_index: (t.state == State::Index).then_some((IndexId(t.index), t.level)),
                    to_free,
                    to_empty: t.state == State::Empty,
                    lsn: Lsn(s.lsn),
                    to_lsn: Lsn(t.lsn),
                },
            });
        }
        let back = match link {
            Link::Next => t.prev,
            Link::Prev => t.next,
        };
        (back != a).then_some(AuditFinding {
            page: Some(PageNo(a)),
            file_offset,
            kind: AuditKind::LinkNotReturned {
                index: IndexId(s.index),
                level: s.level,
                link,
                to: PageNo(to),
                back: PageNo(back),
                lsn: Lsn(s.lsn),
                to_lsn: Lsn(t.lsn),
            },
        })
    }

    /// The pages the stale rule judges ([`ibdscope_core::stale`]), from
    /// the same per-page records: the older page of two that disagree,
    /// one finding per page at its FIL_PAGE_LSN, as every command gives it.
    fn stale(&mut self) {
        let ts = self.ts;
        let links: Vec<Links> = self
            .slim
            .iter()
            .filter(|(_, s)| s.state == State::Index)
            .filter_map(|(n, s)| {
                Some(Links {
                    page: u32::try_from(n).ok()?,
                    prev: s.prev,
                    next: s.next,
                    lsn: s.lsn,
                    index: s.index,
                    level: s.level,
                })
            })
            .collect();
        let mut stale = stale_by_links(ts, &links);
        drop(links);
        let mut rule = ZeroRule::default();
        for (n, s) in self.slim.iter() {
            if !matches!(s.state, State::Index | State::Other) {
                continue;
            }
            let Ok(n) = u32::try_from(n) else { break };
            stale.extend(stale_descriptor_at(ts, PageNo(n), Lsn(s.lsn), |x| {
                rule.xdes_verifies(ts, x)
            }));
        }
        stale.sort_by_key(|(n, _)| *n);
        stale.dedup_by_key(|(n, _)| *n);
        for (n, problem) in stale {
            if self.suspect(n) {
                continue;
            }
            self.findings.push(AuditFinding {
                page: Some(n),
                file_offset: self.page_offset(n, ibdscope_core::fil::FIL_PAGE_LSN as u64),
                kind: AuditKind::Stale(problem),
            });
        }
    }

    /// Free pages newer than the descriptor page that says they are free.
    fn free_newer_than_xdes(&mut self) {
        let Some(map) = self.map.as_ref() else {
            return;
        };
        let physical = self.ts.page_size();
        let free_limit = self.ts.fsp_header().map_or(u32::MAX, |h| h.free_limit());
        let mut out = Vec::new();
        for (n, s) in self.slim.iter() {
            let Ok(n) = u32::try_from(n) else { break };
            if !matches!(s.state, State::Index | State::Other) || s.lsn == 0 {
                continue;
            }
            if map.owner(self.content, PageNo(n)) != Some(Owner::Free) {
                continue;
            }
            let xdes = if n >= free_limit {
                0
            } else {
                n.checked_rem(physical).map_or(0, |w| n.saturating_sub(w))
            };
            let Some(x) = self.slim.get(xdes as usize) else {
                continue;
            };
            if !matches!(x.state, State::Index | State::Other) {
                continue;
            }
            if s.lsn > x.lsn {
                out.push(AuditFinding {
                    page: Some(PageNo(n)),
                    file_offset: self
                        .page_offset(PageNo(n), ibdscope_core::fil::FIL_PAGE_LSN as u64),
                    kind: AuditKind::FreeNewerThanXdes {
                        xdes_page: PageNo(xdes),
                        lsn: Lsn(s.lsn),
                        xdes_lsn: Lsn(x.lsn),
                    },
                });
            }
        }
        self.findings.extend(out);
    }

    fn finish(self) -> Audit {
        let mut verdict = self
            .findings
            .iter()
            .map(AuditFinding::verdict)
            .max()
            .unwrap_or(AuditVerdict::Clean);
        for r in &self.unverified {
            verdict = verdict.max(unverified_verdict(r.why));
        }
        Audit {
            verdict,
            pages: self.n_pages,
            space_id: self.space_id,
            verified: self.verified,
            empty: self.empty,
            lsn_range: self.lsn_range,
            newest: self.newest,
            findings: self.findings,
            unverified: self.unverified,
            freed_with_records: self.freed_with_records,
            structure: self.structure,
            doublewrite: self.doublewrite,
            doublewrite_not_verifying: self.doublewrite_not_verifying,
            newer_than_checkpoint: self.newer,
        }
    }
}

/// A page number, or `FIL_NULL`.
struct LinkTarget(PageNo);

impl fmt::Display for LinkTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_null() {
            f.write_str("FIL_NULL")
        } else {
            write!(f, "{}", self.0)
        }
    }
}

fn vote(v: &mut Vec<(u32, u32)>, id: u32) {
    match v.iter_mut().find(|(i, _)| *i == id) {
        Some((_, c)) => *c = c.saturating_add(1),
        None => v.push((id, 1)),
    }
}

fn push_run(runs: &mut Vec<PageRun>, n: PageNo) {
    match runs.last_mut() {
        Some(r) if r.last.0.checked_add(1) == Some(n.0) => r.last = n,
        _ => runs.push(PageRun { first: n, last: n }),
    }
}

/// Whether a page that verifies but cannot be read is page-compressed
/// (rather than encrypted).
fn transformed_by_compression(page: &[u8], scheme: Scheme) -> bool {
    let Some(h) = FilHeader::new(page) else {
        return false;
    };
    let t = h.page_type();
    match scheme {
        Scheme::FullCrc32 => t.0 & PageType::FCRC32_COMPRESSED_MARKER != 0 && h.checksum() == 0,
        _ => matches!(
            t,
            PageType::FIL_PAGE_COMPRESSED | PageType::FIL_PAGE_PAGE_COMPRESSED
        ),
    }
}

/// Where a page turns to zeros up to its end, at a 512-byte boundary
/// (sector writes), if it does before the last 8 bytes.
fn zero_tail(page: &[u8]) -> Option<u32> {
    let len = page.len();
    let last_nonzero = page.iter().rposition(|&b| b != 0)?;
    let from = last_nonzero.checked_add(1)?.next_multiple_of(512);
    (from < len.saturating_sub(8)).then(|| u32::try_from(from).ok())?
}

impl fmt::Display for AuditKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            AuditKind::Torn {
                lsn,
                trailer_lsn,
                checksum_ok,
                zero_from,
            } => {
                write!(
                    f,
                    "torn: header LSN {lsn}, trailer LSN {trailer_lsn} (low 32 bits 0x{:08x} vs 0x{:08x}): the page's end is from another write",
                    lsn.0 & 0xFFFF_FFFF,
                    trailer_lsn.0 & 0xFFFF_FFFF
                )?;
                if checksum_ok {
                    f.write_str("; the checksum still verifies")?;
                }
                if let Some(z) = zero_from {
                    write!(f, "; zeros from byte {z} to the end (the write stopped there)")?;
                }
                Ok(())
            }
            AuditKind::Damaged { lsn, why } => {
                write!(f, "corrupt: checksum mismatch (LSN {lsn}); ")?;
                match why {
                    NotTorn::LsnCopiesAgree => {
                        f.write_str("header and trailer LSN agree, so not a torn write")
                    }
                    NotTorn::NoTrailerLsn => f.write_str(
                        "this format has no trailer LSN, so a torn write cannot be told from other damage",
                    ),
                    NotTorn::TrailerBeyondNewest {
                        trailer_lsn,
                        newest,
                    } => write!(
                        f,
                        "the trailer's LSN {trailer_lsn} is newer than anything written (newest {newest}), so not a torn write"
                    ),
                    NotTorn::CompressedSize => {
                        f.write_str("the page_compressed size field is not below the page size")
                    }
                }
            }
            AuditKind::Foreign {
                space_id,
                page_no,
                expected_space,
            } => {
                f.write_str("foreign: verifies, but")?;
                if let Some(s) = space_id {
                    write!(f, " carries space id {s} (the file's is {expected_space})")?;
                }
                if let Some(p) = page_no {
                    if space_id.is_some() {
                        f.write_str(" and")?;
                    }
                    write!(f, " says it is page {p}")?;
                }
                Ok(())
            }
            AuditKind::Page0Unusable { empty } => {
                if empty {
                    f.write_str("zero-filled: page 0 (the space header) is all zeros; the format was found from the other pages")
                } else {
                    f.write_str("damaged: page 0 does not verify under its own FSP flags; the format was found from the other pages")
                }
            }
            AuditKind::FspSpaceId { fsp, pages } => write!(
                f,
                "damaged: the FSP header on page 0 names space id {fsp}, the pages carry {pages}"
            ),
            AuditKind::ZeroFilled { owner } => {
                write!(f, "zeroed: the page is in use ({owner}) but all zeros")
            }
            AuditKind::ShorterThanFspSize { fsp_size, pages } => write!(
                f,
                "truncated: the file holds {pages} pages, FSP_SIZE says {fsp_size}"
            ),
            AuditKind::TornTail { bytes } => {
                write!(f, "truncated: the file ends {bytes} bytes into a page")
            }
            AuditKind::LinkNotReturned {
                index,
                level,
                link,
                to,
                back,
                lsn,
                to_lsn,
            } => {
                write!(
                    f,
                    "inconsistent generations: index {index} level {level}: {} = {to} but page {to}'s {} = {} (LSN {lsn} here, {to_lsn} there)",
                    link.name(),
                    link.back(),
                    LinkTarget(back)
                )
            }
            AuditKind::LinkElsewhere {
                index,
                level,
                link,
                to,
                to_index,
                to_free,
                to_empty,
                lsn,
                to_lsn,
            } => {
                write!(
                    f,
                    "inconsistent generations: index {index} level {level}: {} = {to}, ",
                    link.name()
                )?;
                match to_index {
                    Some((i, l)) if i == index && l == level => f.write_str("a page of the same level")?,
                    Some((i, l)) => write!(f, "a page of index {i} level {l}")?,
                    None if to_empty => f.write_str("an all-zero page")?,
                    None => f.write_str("not an index page")?,
                }
                if to_free {
                    f.write_str(" that the extent descriptor calls free")?;
                }
                write!(f, " (LSN {lsn} here, {to_lsn} there)")
            }
            AuditKind::LinkPastFile { link, to, lsn } => write!(
                f,
                "inconsistent generations: {} = {to} is past the end of the file (LSN {lsn})",
                link.name()
            ),
            AuditKind::FreeNewerThanXdes {
                xdes_page,
                lsn,
                xdes_lsn,
            } => write!(
                f,
                "inconsistent generations: the page is free in the extent descriptor on page {xdes_page} (LSN {xdes_lsn}) but was written later (LSN {lsn})"
            ),
            AuditKind::Stale(p) => write!(f, "stale: {p}"),
            AuditKind::Structure(k) => write!(f, "inconsistent generations: {k}"),
            AuditKind::StructureAfterDamage(k) => {
                write!(f, "{k} (possibly a consequence of the damaged pages)")
            }
            AuditKind::File(k) => k.fmt(f),
            AuditKind::BeyondRedoEnd { lsn, log_end } => write!(
                f,
                "inconsistent generations: page LSN {lsn} is past the end of the copied redo log ({log_end}): the file is newer than the log"
            ),
        }
    }
}

#[cfg(test)]
#[allow(
    clippy::arithmetic_side_effects,
    clippy::indexing_slicing,
    clippy::unwrap_used
)]
mod tests {
    use super::*;

    #[test]
    fn trailer_lsn_takes_the_header_high_word_or_the_one_before() {
        let h = Lsn(0x2_0000_0010);
        assert_eq!(
            trailer_lsn(h, 0x5, Lsn(0x2_0000_0020)),
            Some(Lsn(0x2_0000_0005))
        );
        assert_eq!(
            trailer_lsn(h, 0xFFFF_FFF0, Lsn(0x2_0000_0020)),
            Some(Lsn(0x1_FFFF_FFF0))
        );
        assert_eq!(trailer_lsn(Lsn(0x10), 0x20, Lsn(0x15)), None);
        assert_eq!(trailer_lsn(Lsn(0x10), 0, Lsn(0x10)), Some(Lsn(0)));
    }

    #[test]
    fn zero_tail_at_sector_boundaries() {
        let mut p = vec![1u8; 4096];
        assert_eq!(zero_tail(&p), None);
        p[1024..].fill(0);
        assert_eq!(zero_tail(&p), Some(1024));
        p[1023] = 0;
        p[1000] = 7;
        assert_eq!(zero_tail(&p), Some(1024));
        p[4090] = 1;
        assert_eq!(zero_tail(&p), None);
    }

    #[test]
    fn verdict_order_is_severity() {
        let mut v = AuditVerdict::ALL;
        v.sort();
        assert_eq!(v, AuditVerdict::ALL);
        assert!(AuditVerdict::Truncated > AuditVerdict::Torn);
    }
}
