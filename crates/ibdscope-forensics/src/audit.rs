//! The audit of a copied tablespace: one verdict per file, with the
//! evidence it rests on.
//!
//! A copy taken by `cp`, rsync, a snapshot or a backup tool can be whole
//! and consistent, or carry the marks of how it was taken. The audit reads
//! every page once, in the pass that makes the space's one [`Summary`]
//! (each page's verdict, the torn bound and the stale rule are the
//! summary's, as every command gives them: [`ibdscope_core::verdict`],
//! [`ibdscope_core::stale`]; the audit asks it for a few more facts, kept
//! per run and per finding, never per page: [`SummaryAsks`]), builds the
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
//! of the pages that verify (the summary's bound, the same in every
//! command; not the redo log's end, which the other commands do not
//! know). Bytes overwritten
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
//! The links are those the summary's stale rule read
//! ([`Summary::links`]), and a free page newer than its descriptor page is
//! a hit of its extent descriptor rule ([`Summary::descriptor_hits`]): the
//! older page of each pair is also the page verdict `stale`.
//! Structure findings of the [`SpaceMap`] between pages that verify count
//! here too; where the file also has damaged pages they are listed as
//! possible consequences of that damage instead.
//!
//! Not covered: records inside a page (see [`ibdscope_core::btree`]), and the
//! parent–child links of COMPACT trees (they need the table definition).

use ibdscope_core::checksum::Unverifiable;
use ibdscope_core::extents::{Owner, SpaceMap, SpaceProblem};
use ibdscope_core::flst::page_readable;
use ibdscope_core::index::IndexHeader;
use ibdscope_core::parallel::fold_pages;
use ibdscope_core::space::{page_facts, PageProblem};
use ibdscope_core::stale::Links;
use ibdscope_core::summary::{SummaryAsks, SummaryFold};
use ibdscope_core::verdict::{PageEvidence, PageVerdict};
use ibdscope_core::FindingKind;
use ibdscope_core::{Engine, IndexId, Lsn, PageNo, SpaceId, Summary, Tablespace, FIL_NULL};
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

/// Which sibling link a link finding follows (the core's words).
pub use ibdscope_core::stale::Link;

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

/// What the link checks read of one page: its own sibling links, LSN,
/// index and level, and what it is. Made when a page is asked about, from
/// the summary's links or the page itself; nothing is kept per page.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Slim {
    prev: u32,
    next: u32,
    lsn: u64,
    index: u64,
    level: u16,
    state: State,
}

impl Slim {
    /// An index page's record from the links the summary kept.
    fn of_links(l: &Links) -> Slim {
        Slim {
            prev: l.prev,
            next: l.next,
            lsn: l.lsn,
            index: l.index,
            level: l.level,
            state: State::Index,
        }
    }
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
    /// Encrypted or compressed, or a doublewrite copy: not read.
    Unreadable,
}

impl Audit {
    /// Audits `ts` with no reference points; the space map is built on
    /// `engine`.
    pub fn of(ts: &Tablespace<'_>, engine: &Engine<'_>) -> Audit {
        Self::with_options(ts, engine, AuditOptions::default())
    }

    /// Audits `ts`. One pass over the pages makes the space's [`Summary`]
    /// (every page's verdict, the torn bound, the stale rule, and what the
    /// audit adds: the pages' LSN span and space ids, the pages newer than
    /// the reference points, the sibling links kept) and, in the same
    /// pass, finds the space map's roots ([`SpaceMap::build_folding`]);
    /// the map's second pass follows, then the link checks over the links
    /// the summary kept. Never panics.
    pub fn with_options(ts: &Tablespace<'_>, engine: &Engine<'_>, opts: AuditOptions) -> Audit {
        let asks = audit_asks(opts, None);
        let fold = || SummaryFold::with(ts, asks);
        // The map is built when the structure may be checked (page 0 is
        // then judged by the summary: a map of a page 0 the summary sets
        // aside is dropped).
        let (summary, map) = if wants_map(ts, opts) {
            let (map, fold) = SpaceMap::build_folding(ts, engine, fold);
            (fold.finish(), Some(map))
        } else {
            (fold_pages(ts, engine, fold).finish(), None)
        };
        let mut b = Builder::new(ts, ts, summary, opts);
        b.map = map;
        b.run(engine)
    }

    /// Audits `ts`, an encrypted space, with its decrypted image `plain`
    /// (the same page size and number of pages; `not_decrypted`: the pages
    /// that did not decrypt, sorted, which count as damaged). The pages are judged
    /// as stored, as the server judges them before decrypting; a page
    /// whose stored bytes carry no checksum the server checks (outside
    /// full_crc32, a page_compressed encrypted page) is judged by its
    /// decrypted image; the content (index headers, the space map, the
    /// links) is read from `plain` ([`SummaryAsks::content`]).
    pub fn with_plain<'t>(
        ts: &'t Tablespace<'_>,
        plain: &'t Tablespace<'t>,
        not_decrypted: &'t [PageNo],
        engine: &Engine<'_>,
        opts: AuditOptions,
    ) -> Audit {
        let same = plain.page_size() == ts.page_size() && plain.n_pages() == ts.n_pages();
        if !same {
            return Self::with_options(ts, engine, opts);
        }
        let asks = audit_asks(opts, Some((plain, not_decrypted)));
        let summary = fold_pages(ts, engine, || SummaryFold::with(ts, asks)).finish();
        Builder::new(ts, plain, summary, opts).run(engine)
    }
}

/// What the audit asks of the summary ([`SummaryAsks`]): the links kept,
/// the pages newer than the reference points, the decrypted content.
fn audit_asks<'t>(
    opts: AuditOptions,
    content: Option<(&'t Tablespace<'t>, &'t [PageNo])>,
) -> SummaryAsks<'t> {
    let r = opts.reference;
    let asks = SummaryAsks::default()
        .keeping_links()
        .newer_than([r.checkpoint, r.log_end]);
    match content {
        Some((plain, not_decrypted)) => asks.content(plain, not_decrypted),
        None => asks,
    }
}

/// Whether the structure of `ts` may be checked: asked for, not the
/// system tablespace, page 0 usable (and, once the summary is made, not
/// damaged or foreign: [`StructureCheck`]).
fn wants_map(ts: &Tablespace<'_>, opts: AuditOptions) -> bool {
    !opts.pages_only && ts.space_id().0 != 0 && ts.detection().page0_ok
}

impl Builder<'_, '_> {
    fn run(mut self, engine: &Engine<'_>) -> Audit {
        let b = &mut self;
        b.pages();
        b.whole_file();
        b.structure(engine);
        b.links();
        b.free_newer_than_xdes();
        b.stale();
        self.finish()
    }
}
struct Builder<'t, 'a> {
    ts: &'t Tablespace<'a>,
    /// Where the pages' content is read: `ts`, or its decrypted image
    /// ([`Audit::with_plain`]).
    content: &'t Tablespace<'t>,
    opts: AuditOptions,
    n_pages: u32,
    /// The one pass: every page's verdict.
    summary: Summary,
    /// Pages the audit sets aside beyond the summary's damaged and
    /// foreign pages (page 0 when it cannot be used, or names another
    /// space than the pages), sorted.
    suspect: Vec<PageNo>,
    space_id: SpaceId,
    findings: Vec<AuditFinding>,
    /// Zeroed pages (the summary's verdict), reported with the structure.
    zeroed: Vec<PageNo>,
    map: Option<SpaceMap>,
    truncated: bool,
    freed_with_records: u32,
    structure: StructureCheck,
}

impl<'t, 'a> Builder<'t, 'a> {
    fn new(
        ts: &'t Tablespace<'a>,
        content: &'t Tablespace<'t>,
        summary: Summary,
        opts: AuditOptions,
    ) -> Self {
        // The space id most pages that verify carry: page 0 may itself be
        // the page from elsewhere.
        let total = summary
            .space_ids
            .iter()
            .map(|(_, c)| *c)
            .fold(0, u32::saturating_add);
        let space_id = match summary.space_ids.iter().max_by_key(|(_, c)| *c) {
            Some(&(id, c)) if id != ts.space_id() && c.saturating_mul(2) > total => id,
            _ => ts.space_id(),
        };
        Builder {
            ts,
            content,
            opts,
            n_pages: ts.n_pages(),
            summary,
            suspect: Vec::new(),
            space_id,
            findings: Vec::new(),
            zeroed: Vec::new(),
            map: None,
            truncated: false,
            freed_with_records: 0,
            structure: StructureCheck::NotAsked,
        }
    }

    fn page_offset(&self, n: PageNo, within: u64) -> u64 {
        self.ts.file_offset(n).saturating_add(within)
    }

    /// The pages' own verdicts, as the summary gave them: the pages past
    /// the redo log's end, then torn and corrupt pages, then foreign ones
    /// (against the space id the pages agree on); zeroed and stale pages
    /// are said with the structure and the links.
    fn pages(&mut self) {
        let ts = self.ts;
        let fil_lsn = ibdscope_core::fil::FIL_PAGE_LSN as u64;
        if let Some(end) = self.opts.reference.log_end {
            let beyond = self.summary.newer_than.iter().find(|m| m.mark == end);
            for &(first, last) in beyond.map_or(&[][..], |m| &m.runs[..]) {
                for n in first.0..=last.0 {
                    let Some(lsn) = ts
                        .page(PageNo(n))
                        .and_then(ibdscope_core::fil::FilHeader::new)
                        .map(|h| h.lsn())
                    else {
                        continue;
                    };
                    self.findings.push(AuditFinding {
                        page: Some(PageNo(n)),
                        file_offset: self.page_offset(PageNo(n), fil_lsn),
                        kind: AuditKind::BeyondRedoEnd { lsn, log_end: end },
                    });
                }
            }
        }
        let mut foreign = Vec::new();
        for b in &self.summary.bad {
            let (j, f) = (&b.judgement, &b.facts);
            let kind = match (j.verdict, j.evidence) {
                (
                    PageVerdict::Torn,
                    PageEvidence::Torn {
                        lsn,
                        trailer_lsn,
                        checksum_ok,
                    },
                ) => AuditKind::Torn {
                    lsn,
                    trailer_lsn,
                    checksum_ok,
                    zero_from: ts.page(f.page_no).and_then(zero_tail),
                },
                (
                    PageVerdict::Corrupt,
                    PageEvidence::TrailerBeyond {
                        lsn,
                        trailer_lsn,
                        newest,
                    },
                ) => AuditKind::Damaged {
                    lsn,
                    why: NotTorn::TrailerBeyondNewest {
                        trailer_lsn,
                        newest: newest.unwrap_or(Lsn(0)),
                    },
                },
                (PageVerdict::Corrupt, e) => AuditKind::Damaged {
                    lsn: f.lsn,
                    why: match (e, f.lsn_pair) {
                        (PageEvidence::Problem(PageProblem::CompressedSize), _) => {
                            NotTorn::CompressedSize
                        }
                        (_, Some(_)) => NotTorn::LsnCopiesAgree,
                        (_, None) => NotTorn::NoTrailerLsn,
                    },
                },
                (PageVerdict::Foreign, _) => {
                    foreign.push((f.page_no, f.stored_page_no, f.space_id, j.file_offset));
                    continue;
                }
                (PageVerdict::Zeroed, _) => {
                    self.zeroed.push(f.page_no);
                    continue;
                }
                _ => continue,
            };
            self.findings.push(AuditFinding {
                page: Some(f.page_no),
                file_offset: j.file_offset,
                kind,
            });
        }
        // Page 0 of another space than its pages: the pages are the space.
        if self.space_id != ts.space_id() {
            if let Some(f) = ts.page(PageNo(0)).and_then(|p| {
                let f = page_facts(p, PageNo(0), ts.scheme());
                matches!(f.verdict, ibdscope_core::Verdict::Valid(_)).then_some(f)
            }) {
                let at = ibdscope_core::fil::FIL_PAGE_SPACE_ID as u64;
                foreign.insert(0, (PageNo(0), f.stored_page_no, f.space_id, at));
            }
        }
        for (n, stored, space, at) in foreign {
            let space_id = (space.0 != 0 && space != self.space_id).then_some(space);
            let page_no = (stored != n).then_some(stored);
            if space_id.is_none() && page_no.is_none() {
                continue;
            }
            let at = if page_no.is_some() {
                self.page_offset(n, ibdscope_core::fil::FIL_PAGE_OFFSET as u64)
            } else {
                at
            };
            self.findings.push(AuditFinding {
                page: Some(n),
                file_offset: at,
                kind: AuditKind::Foreign {
                    space_id,
                    page_no,
                    expected_space: self.space_id,
                },
            });
            self.set_suspect(n);
        }
    }

    fn set_suspect(&mut self, n: PageNo) {
        if let Err(k) = self.suspect.binary_search(&n) {
            self.suspect.insert(k, n);
        }
    }

    /// Whether page `n` is damaged, torn or foreign (its summary verdict,
    /// or set aside by the audit): not read for the links.
    fn suspect(&self, n: PageNo) -> bool {
        if self.suspect.binary_search(&n).is_ok() {
            return true;
        }
        let Some(b) = self.summary.bad_page(n) else {
            return false;
        };
        match b.judgement.verdict {
            PageVerdict::Torn | PageVerdict::Corrupt => true,
            // Foreign against the space the pages agree on.
            PageVerdict::Foreign => {
                let f = &b.facts;
                f.stored_page_no != n || (f.space_id.0 != 0 && f.space_id != self.space_id)
            }
            _ => false,
        }
    }

    fn whole_file(&mut self) {
        let ts = self.ts;
        // Said first: they change how every other finding reads.
        let file: Vec<AuditFinding> = self
            .summary
            .file_findings
            .iter()
            .filter(|f| {
                matches!(
                    f.kind,
                    FindingKind::PageSizeContradicted { .. }
                        | FindingKind::ZeroedAfterPage0 { .. }
                        | FindingKind::CryptData(_)
                )
            })
            .map(|f| AuditFinding {
                page: f.page,
                file_offset: f.file_offset,
                kind: AuditKind::File(f.kind),
            })
            .collect();
        self.findings.splice(0..0, file);
        if !ts.detection().page0_ok && !self.suspect(PageNo(0)) {
            let empty = ts
                .page(PageNo(0))
                .is_some_and(|p| page_facts(p, PageNo(0), ts.scheme()).is_empty());
            self.findings.push(AuditFinding {
                page: Some(PageNo(0)),
                file_offset: 0,
                kind: AuditKind::Page0Unusable { empty },
            });
            self.set_suspect(PageNo(0));
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
                self.set_suspect(PageNo(0));
            }
        }
        for f in &self.summary.file_findings {
            match f.kind {
                FindingKind::TornTail { bytes } => {
                    self.truncated = true;
                    self.findings.push(AuditFinding {
                        page: f.page,
                        file_offset: f.file_offset,
                        kind: AuditKind::TornTail { bytes },
                    });
                }
                FindingKind::ShorterThanFspSize { fsp_size, pages } if !self.suspect(PageNo(0)) => {
                    self.truncated = true;
                    self.findings.push(AuditFinding {
                        page: f.page,
                        file_offset: f.file_offset,
                        kind: AuditKind::ShorterThanFspSize { fsp_size, pages },
                    });
                }
                _ => {}
            }
        }
    }

    /// Whether any page is damaged, torn or foreign.
    fn damaged(&self) -> bool {
        !self.suspect.is_empty()
            || self
                .summary
                .bad
                .iter()
                .any(|b| self.suspect(b.facts.page_no))
    }

    /// The space map and its findings, sorted into evidence; the zeroed
    /// pages (the summary's verdict) with their owner first.
    fn structure(&mut self, engine: &Engine<'_>) {
        let checked = if self.opts.pages_only {
            StructureCheck::NotAsked
        } else if self.ts.space_id().0 == 0 {
            StructureCheck::SystemTablespace
        } else if !self.ts.detection().page0_ok || self.suspect(PageNo(0)) {
            StructureCheck::Page0Unusable
        } else {
            StructureCheck::Checked
        };
        self.structure = checked;
        // The map built in the summary's pass, or built now.
        let built = self.map.take();
        if checked == StructureCheck::Checked {
            self.map = Some(built.unwrap_or_else(|| SpaceMap::build(self.content, engine)));
        }
        for n in std::mem::take(&mut self.zeroed) {
            let owner = self.owner(n.0).unwrap_or(Owner::Unaccounted);
            self.findings.push(AuditFinding {
                page: Some(n),
                file_offset: self.ts.file_offset(n),
                kind: AuditKind::ZeroFilled { owner },
            });
        }
        let Some(map) = self.map.take() else {
            return;
        };
        let damaged = self.damaged();
        for f in &map.findings {
            let kind = match f.kind {
                FindingKind::Space(SpaceProblem::FreePageWithData { .. }) => {
                    self.freed_with_records = self.freed_with_records.saturating_add(1);
                    continue;
                }
                // The summary's verdict said it (`zeroed`), with its owner.
                FindingKind::Space(SpaceProblem::EmptyPageInUse { .. })
                    if f.page.is_some_and(|p| {
                        self.summary
                            .bad_page(p)
                            .is_some_and(|b| b.judgement.verdict == PageVerdict::Zeroed)
                    }) =>
                {
                    continue
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

    /// What the link checks read of page `n` (`None` past the file): the
    /// summary's record of its links when it kept one, else read from the
    /// page (a page the links name that has no sibling of its own, or is
    /// no B-tree page: a few per file).
    fn slim(&self, n: u32) -> Option<Slim> {
        if n >= self.n_pages {
            return None;
        }
        let suspect = |state| {
            Some(Slim {
                state,
                ..Slim::default()
            })
        };
        if self.suspect(PageNo(n)) {
            return suspect(State::Suspect);
        }
        let links = self.summary.links();
        if let Some(l) = links
            .binary_search_by_key(&n, |l| l.page)
            .ok()
            .and_then(|k| links.get(k))
        {
            return Some(Slim::of_links(l));
        }
        if self.ts.in_doublewrite(PageNo(n)) {
            return suspect(State::Unreadable);
        }
        if let Some(b) = self.summary.bad_page(PageNo(n)) {
            // Zeroed, or judged stale: read below (a stale page verifies).
            if b.judgement.verdict == PageVerdict::Zeroed {
                return suspect(State::Empty);
            }
        }
        let page = self.content.page(PageNo(n))?;
        let f = page_facts(page, PageNo(n), self.content.scheme());
        let mut s = Slim {
            prev: f.prev.0,
            next: f.next.0,
            lsn: f.lsn.0,
            ..Slim::default()
        };
        s.state = match f.verdict {
            ibdscope_core::Verdict::Empty => State::Empty,
            ibdscope_core::Verdict::Valid(_) if !page_readable(self.content, page) => {
                State::Unreadable
            }
            ibdscope_core::Verdict::Valid(_) if f.page_type.is_index(self.ts.type_names()) => {
                if let Some(h) = IndexHeader::new(page) {
                    s.index = h.index_id().0;
                    s.level = h.level();
                }
                State::Index
            }
            ibdscope_core::Verdict::Valid(_) => State::Other,
            _ => State::Unreadable,
        };
        Some(s)
    }

    /// Sibling links between pages in use that verify, from the links the
    /// summary kept. Needs the map: a freed page keeps its stale links and
    /// must be left out.
    fn links(&mut self) {
        if self.map.is_none() {
            return;
        }
        let mut out = Vec::new();
        for l in self.summary.links() {
            let a = l.page;
            if self.suspect(PageNo(a)) || !self.in_use(a) {
                continue;
            }
            let s = Slim::of_links(l);
            for (link, to) in [(Link::Next, s.next), (Link::Prev, s.prev)] {
                if to == FIL_NULL {
                    continue;
                }
                let Some(t) = self.slim(to) else {
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
                out.extend(self.link_finding(a, &s, link, to, &t));
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

    /// The pages the summary judged stale ([`ibdscope_core::stale`]): the
    /// older page of two that disagree, one finding per page at its
    /// FIL_PAGE_LSN, as every command gives it.
    fn stale(&mut self) {
        let mut out = Vec::new();
        for b in &self.summary.bad {
            if b.judgement.verdict != PageVerdict::Stale || self.suspect(b.facts.page_no) {
                continue;
            }
            let problem = b.findings.iter().find_map(|f| match f.kind {
                FindingKind::Page(p @ PageProblem::Stale { .. }) => Some(p),
                _ => None,
            });
            if let Some(p) = problem {
                out.push(AuditFinding {
                    page: Some(b.facts.page_no),
                    file_offset: b.judgement.file_offset,
                    kind: AuditKind::Stale(p),
                });
            }
        }
        self.findings.extend(out);
    }

    /// Free pages newer than the descriptor page that says they are free:
    /// the hits of the summary's extent descriptor rule
    /// ([`Summary::descriptor_hits`]) on pages the space map calls free.
    fn free_newer_than_xdes(&mut self) {
        let Some(map) = self.map.as_ref() else {
            return;
        };
        let mut out = Vec::new();
        for &(xdes, problem) in self.summary.descriptor_hits() {
            let PageProblem::Stale { by, by_lsn, .. } = problem else {
                continue;
            };
            if map.owner(self.content, by) != Some(Owner::Free) || self.suspect(xdes) {
                continue;
            }
            let Some(xdes_lsn) = self
                .ts
                .page(xdes)
                .and_then(ibdscope_core::fil::FilHeader::new)
                .map(|h| h.lsn())
            else {
                continue;
            };
            out.push(AuditFinding {
                page: Some(by),
                file_offset: self.page_offset(by, ibdscope_core::fil::FIL_PAGE_LSN as u64),
                kind: AuditKind::FreeNewerThanXdes {
                    xdes_page: xdes,
                    lsn: by_lsn,
                    xdes_lsn,
                },
            });
        }
        self.findings.extend(out);
    }

    fn finish(self) -> Audit {
        let s = &self.summary;
        let zeroed = s
            .bad
            .iter()
            .filter(|b| b.judgement.verdict == PageVerdict::Zeroed)
            .count();
        let zeroed = u32::try_from(zeroed).unwrap_or(u32::MAX);
        // Pages whose checksum verifies but whose LSN copies differ: not
        // verified.
        let torn_valid = s
            .bad
            .iter()
            .filter(|b| {
                matches!(b.facts.verdict, ibdscope_core::Verdict::Valid(_))
                    && b.facts.lsn_pair.is_some_and(|(h, t)| h != t)
            })
            .count();
        let torn_valid = u32::try_from(torn_valid).unwrap_or(u32::MAX);
        let unverified = unverified_runs(self.ts, s);
        let mut verdict = self
            .findings
            .iter()
            .map(AuditFinding::verdict)
            .max()
            .unwrap_or(AuditVerdict::Clean);
        for r in &unverified {
            verdict = verdict.max(unverified_verdict(r.why));
        }
        let newer_than_checkpoint = self.opts.reference.checkpoint.map(|ck| {
            let m = s.newer_than.iter().find(|m| m.mark == ck);
            NewerThanCheckpoint {
                pages: m.map_or(0, |m| m.pages),
                runs: m.map_or_else(Vec::new, |m| {
                    m.runs
                        .iter()
                        .map(|&(first, last)| PageRun { first, last })
                        .collect()
                }),
                newest: m.and_then(|m| m.newest),
            }
        });
        let doublewrite = self.ts.doublewrite().map(|(b1, b2, len)| {
            let run = |first: u32| PageRun {
                first: PageNo(first),
                last: PageNo(first.saturating_add(len.saturating_sub(1))),
            };
            [run(b1), run(b2)]
        });
        Audit {
            verdict,
            pages: self.n_pages,
            space_id: self.space_id,
            verified: s.valid().saturating_add(zeroed).saturating_sub(torn_valid),
            empty: s.empty.saturating_add(zeroed),
            lsn_range: s.lsn_span.map(|x| (x.oldest, x.newest)),
            newest: s.lsn_span.map(|x| (x.newest_page, x.newest)),
            findings: self.findings,
            unverified,
            freed_with_records: self.freed_with_records,
            structure: self.structure,
            doublewrite,
            doublewrite_not_verifying: s.doublewrite_not_verifying,
            newer_than_checkpoint,
        }
    }
}

/// The pages that cannot be verified (the summary's unverifiable pages,
/// the doublewrite buffer's slots aside) and those that verify but whose
/// content cannot be read, as runs in page order.
fn unverified_runs(ts: &Tablespace<'_>, s: &Summary) -> Vec<UnverifiedRun> {
    let mut runs: Vec<UnverifiedRun> = Vec::new();
    let mut add =
        |first: PageNo, last: PageNo, why: Unverifiable, checksum_verified: bool| match runs
            .last_mut()
        {
            Some(r)
                if r.why == why
                    && r.checksum_verified == checksum_verified
                    && r.last.0.checked_add(1) == Some(first.0) =>
            {
                r.last = last
            }
            _ => runs.push(UnverifiedRun {
                first,
                last,
                why,
                checksum_verified,
            }),
        };
    let mut pages = s
        .unverifiable
        .iter()
        .filter(|(n, _)| !ts.in_doublewrite(*n))
        .peekable();
    let mut transformed = s.transformed.iter().peekable();
    loop {
        let p = pages.peek().map(|(n, _)| *n);
        let t = transformed.peek().map(|r| r.0);
        match (p, t) {
            (Some(p), Some(t)) if p < t => {
                if let Some(&(n, why)) = pages.next() {
                    add(n, n, why, false);
                }
            }
            (Some(_), None) => {
                if let Some(&(n, why)) = pages.next() {
                    add(n, n, why, false);
                }
            }
            (_, Some(_)) => {
                if let Some(&(first, last, why)) = transformed.next() {
                    add(first, last, why, true);
                }
            }
            (None, None) => break,
        }
    }
    runs
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
    use ibdscope_core::verdict::trailer_lsn;

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
