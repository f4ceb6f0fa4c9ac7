//! What `pages` lists of each page, gathered in the summary's pass when
//! asked ([`crate::summary::SummaryAsks::listing`]), so that the listing
//! reads no page again: one compact row per page of the range asked, in a
//! flat array (no allocation per page), from the facts the summary's pass
//! judged (its checksum computed once) and the page's INDEX header. What
//! depends on the whole file (a page's verdict: a torn page needs the
//! newest LSN of the file, a stale one the sibling links of every B-tree
//! page) is not kept: the listing asks the finished summary for it as it
//! prints ([`crate::Summary::verdict`]).
//!
//! Memory: 32 bytes per page listed (4 MiB for 128 Ki pages: a 2 GiB file
//! of 16 KiB pages); a range of more than [`MAX_PAGES`] pages is not
//! gathered (the listing then reads the pages again).

use crate::checksum::{Algorithm, Unverifiable, Verdict};
use crate::facts::id_place;
use crate::ids::{IndexId, Lsn, PageNo, SpaceId};
use crate::index::IndexHeader;
use crate::page_type::PageType;
use crate::space::{PageFacts, PageProblem, Tablespace};

/// The most pages a listing gathers (64 MiB of rows).
pub(crate) const MAX_PAGES: u32 = 1 << 21;

/// What `pages` lists of one page, as the summary's pass judged it
/// ([`crate::Summary::listed`]).
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct Listed {
    /// The page's facts as the summary judged them: its number, type,
    /// sibling links, LSN, space id and checksum verdict (what
    /// [`crate::Summary::verdict`] reads of a page); the stored page
    /// number (the page's own), the stored checksum (zero) and the LSN
    /// copies (`None`) are not kept: `problems` says what they told.
    pub facts: PageFacts,
    /// Whether the page has a problem other than its checksum
    /// ([`Tablespace::page_problems`]: LSN copies, page number, space id).
    pub problems: bool,
    /// A B-tree page's (INDEX, RTREE, SDI; not one whose checksum says it
    /// cannot be verified, encrypted or compressed) PAGE_INDEX_ID,
    /// PAGE_LEVEL, PAGE_N_RECS and fill from its header
    /// ([`IndexHeader::usage`]).
    pub index: Option<(IndexId, u16, u16, f32)>,
}

/// One page's row: 32 bytes.
#[derive(Clone, Copy, Debug)]
struct Row {
    lsn: u64,
    prev: u32,
    next: u32,
    space_id: u32,
    page_type: u16,
    level: u16,
    n_recs: u16,
    /// The bytes the index page uses ([`IndexHeader::usage`]: at most the
    /// usable bytes of a 64 KiB page, so a `u16`).
    used: u16,
    /// The index id's place in [`Listing::ids`].
    id: u16,
    /// The checksum verdict's place in [`VERDICTS`].
    verdict: u8,
    /// [`PROBLEMS`], [`INDEX`], [`HAS_SPACE_ID`].
    flags: u8,
}

const _: () = assert!(std::mem::size_of::<Row>() <= 32);

/// Every checksum verdict, by its place in a [`Row`].
const VERDICTS: [Verdict; 15] = [
    Verdict::Valid(Algorithm::Crc32),
    Verdict::Valid(Algorithm::Crc32LegacyBigEndian),
    Verdict::Valid(Algorithm::Innodb),
    Verdict::Valid(Algorithm::InnodbPre4014),
    Verdict::Valid(Algorithm::None),
    Verdict::Valid(Algorithm::FullCrc32),
    Verdict::Valid(Algorithm::ZipCrc32),
    Verdict::Valid(Algorithm::ZipInnodb),
    Verdict::Valid(Algorithm::ZipNone),
    Verdict::Valid(Algorithm::MariaDbEncrypted),
    Verdict::Empty,
    Verdict::Mismatch,
    Verdict::Unverifiable(Unverifiable::Encrypted),
    Verdict::Unverifiable(Unverifiable::PageCompressed),
    Verdict::BadCompressedSize,
];

const PROBLEMS: u8 = 1;
const INDEX: u8 = 2;
const HAS_SPACE_ID: u8 = 4;

/// The rows of pages `from..end`, or of the part of them one shard of the
/// summary's pass folded (from `start` on, without gaps).
#[derive(Clone, Debug, Default)]
pub(crate) struct Listing {
    from: u32,
    end: u32,
    /// The first page with a row.
    start: Option<u32>,
    rows: Vec<Row>,
    /// The index ids met, by their place.
    ids: Vec<IndexId>,
    /// A page came out of order, or too many ids: no rows kept.
    over: bool,
}

impl Listing {
    /// The rows of pages `from..end` to gather (none when more than
    /// [`MAX_PAGES`]).
    pub(crate) fn new(from: u32, end: u32) -> Listing {
        Listing {
            from,
            end,
            over: end.saturating_sub(from) > MAX_PAGES,
            ..Listing::default()
        }
    }

    fn give_up(&mut self) {
        self.over = true;
        self.rows = Vec::new();
        self.ids = Vec::new();
    }

    /// Adds the row of page `f.page_no` (pages in increasing order, none
    /// skipped), `f` its facts as the summary judged them, `page` its
    /// bytes as the space reads them.
    pub(crate) fn add(&mut self, ts: &Tablespace<'_>, f: &PageFacts, page: &[u8]) {
        let n = f.page_no.0;
        if self.over || n < self.from || n >= self.end {
            return;
        }
        let start = *self.start.get_or_insert(n);
        if u64::from(start).saturating_add(self.rows.len() as u64) != u64::from(n) {
            return self.give_up();
        }
        if self.rows.len() == self.rows.capacity() {
            // A shard's rows at first (a pass on several threads folds a
            // shard per accumulator); past that, every row still to come
            // (one accumulator folds them all).
            let left = self.end.saturating_sub(n);
            let room = if self.rows.capacity() == 0 {
                crate::parallel::shard_pages(ts).min(left)
            } else {
                left
            };
            self.rows.reserve_exact(room as usize);
        }
        let Some(verdict) = VERDICTS.iter().position(|&v| v == f.verdict) else {
            return self.give_up();
        };
        let mut row = Row {
            lsn: f.lsn.0,
            prev: f.prev.0,
            next: f.next.0,
            space_id: f.space_id.0,
            page_type: f.page_type.0,
            level: 0,
            n_recs: 0,
            used: 0,
            id: 0,
            verdict: u8::try_from(verdict).unwrap_or(u8::MAX),
            flags: 0,
        };
        if f.has_space_id {
            row.flags |= HAS_SPACE_ID;
        }
        if ts.page_problems(f).any(|p| p != PageProblem::Checksum) {
            row.flags |= PROBLEMS;
        }
        if !matches!(f.verdict, Verdict::Unverifiable(_)) && f.page_type.is_index(ts.type_names()) {
            if let Some(h) = IndexHeader::new(page) {
                let Some(id) = self.id_place(h.index_id()) else {
                    return self.give_up();
                };
                let format = ts.format();
                let used = h.usage(format.logical_size, format.is_zip()).used;
                row.flags |= INDEX;
                row.id = id;
                row.level = h.level();
                row.n_recs = h.n_recs();
                row.used = u16::try_from(used).unwrap_or(u16::MAX);
            }
        }
        self.rows.push(row);
    }

    /// The place of `id` in the table of ids (the last one met first).
    fn id_place(&mut self, id: IndexId) -> Option<u16> {
        id_place(&mut self.ids, id)
    }

    /// Whether a page of the range `from..end` may come (a pass that
    /// folds pages without reading them, a hole of a sparse file, gives
    /// up the rows).
    pub(crate) fn covers_any(&self, first: u32, end: u32) -> bool {
        first < self.end && self.from < end
    }

    /// Gives up the rows (pages folded without a row).
    pub(crate) fn drop_rows(&mut self) {
        self.give_up();
    }

    /// Appends the rows of the pages right after these (`next`'s).
    pub(crate) fn append(&mut self, mut next: Listing) {
        if self.over || next.over {
            return self.give_up();
        }
        let Some(next_start) = next.start else {
            return;
        };
        let Some(start) = self.start else {
            *self = next;
            return;
        };
        if u64::from(start).saturating_add(self.rows.len() as u64) != u64::from(next_start) {
            return self.give_up();
        }
        // The joined rows in one array: room for every page still to come.
        let left = self.end.saturating_sub(next_start) as usize;
        if self.rows.capacity().saturating_sub(self.rows.len()) < left {
            self.rows.reserve_exact(left);
        }
        let mut places = Vec::with_capacity(next.ids.len());
        for &id in &next.ids {
            let Some(k) = self.id_place(id) else {
                return self.give_up();
            };
            places.push(k);
        }
        let same = places.iter().enumerate().all(|(k, &p)| usize::from(p) == k);
        if !same {
            for r in next.rows.iter_mut().filter(|r| r.flags & INDEX != 0) {
                r.id = places.get(usize::from(r.id)).copied().unwrap_or(0);
            }
        }
        self.rows.extend_from_slice(&next.rows);
    }

    /// Whether every page of `from..end` has its row.
    pub(crate) fn complete(&self) -> bool {
        !self.over
            && (self.from >= self.end
                || (self.start == Some(self.from)
                    && self.rows.len() as u64 == u64::from(self.end.saturating_sub(self.from))))
    }

    /// Page `n`'s row, when gathered and every page's was.
    pub(crate) fn listed(&self, ts: &Tablespace<'_>, n: PageNo) -> Option<Listed> {
        if !self.complete() {
            return None;
        }
        let r = self.rows.get(n.0.checked_sub(self.from)? as usize)?;
        let verdict = *VERDICTS.get(usize::from(r.verdict))?;
        let facts = PageFacts {
            page_no: n,
            stored_page_no: n,
            page_type: PageType(r.page_type),
            prev: PageNo(r.prev),
            next: PageNo(r.next),
            lsn: Lsn(r.lsn),
            space_id: SpaceId(r.space_id),
            has_space_id: r.flags & HAS_SPACE_ID != 0,
            stored_checksum: 0,
            verdict,
            lsn_pair: None,
        };
        let index = if r.flags & INDEX != 0 {
            let id = *self.ids.get(usize::from(r.id))?;
            let fill = crate::index::fill_of(u32::from(r.used), ts.format().logical_size);
            Some((id, r.level, r.n_recs, fill))
        } else {
            None
        };
        Some(Listed {
            facts,
            problems: r.flags & PROBLEMS != 0,
            index,
        })
    }
}
