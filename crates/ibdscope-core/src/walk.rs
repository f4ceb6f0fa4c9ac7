//! One index page's record walk as the B-tree figures take it
//! ([`Walked`]) and those figures summed per index and level
//! ([`LevelSums`]): below both the B-trees ([`crate::btree`]) and the
//! facts the first pass keeps ([`crate::facts`]), which sum them.

use crate::record::{PageRecords, RecFinding, RecPage, RecScratch, RecWalk};
use crate::space::Tablespace;

/// Buckets of the fill histogram (0–10 %, …, 90–100 %).
pub(crate) const FILL_BUCKETS: usize = 10;

/// What a member page's record walk gives the tree figures ([`RecPage::analyse`]).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Walked {
    /// `PageFill::fill`.
    pub(crate) fill: f32,
    /// PAGE_GARBAGE.
    pub(crate) garbage: u32,
    /// `PageRecords::n_recs`: walked, or PAGE_N_RECS on compressed pages.
    pub(crate) n_recs: u32,
    /// `PageRecords::record_bytes`.
    pub(crate) record_bytes: u32,
    /// From [`RecCounts`]: records on the free chain, delete-marked and
    /// MIN_REC leaf records.
    pub(crate) n_free: u32,
    pub(crate) n_deleted: u32,
    pub(crate) n_min_rec: u32,
    /// PAGE_N_RECS.
    pub(crate) n_recs_stated: u16,
    /// `PageRecords::data_size`, `PageFill::used` and `PageFill::usable`.
    pub(crate) data_size: u32,
    pub(crate) used: u32,
    pub(crate) usable: u32,
    /// How far the walk went.
    pub(crate) state: WalkState,
}

/// How a member page's records were read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum WalkState {
    /// No records view (the page is not one; never for a member page of a
    /// readable space).
    #[default]
    None,
    /// ROW_FORMAT=COMPRESSED: figures from the header.
    Compressed,
    /// Walked; the user chain broke.
    Broken,
    /// Walked to the supremum.
    Complete,
}

impl Walked {
    pub(crate) fn of(r: &PageRecords) -> Walked {
        let mut w = Walked {
            fill: r.fill.fill(),
            garbage: r.fill.garbage,
            n_recs: r.n_recs(),
            record_bytes: r.record_bytes(),
            n_free: 0,
            n_deleted: 0,
            n_min_rec: 0,
            n_recs_stated: r.n_recs_stated,
            data_size: r.data_size,
            used: r.fill.used,
            usable: r.fill.usable,
            state: WalkState::Compressed,
        };
        if let RecWalk::Walked(c) = r.walk {
            w.n_free = c.n_free;
            w.n_deleted = c.n_deleted;
            w.n_min_rec = c.n_min_rec;
            w.state = if c.user_complete {
                WalkState::Complete
            } else {
                WalkState::Broken
            };
        }
        w
    }

    /// Whether the page's records were walked to the end.
    pub(crate) fn sound(&self) -> bool {
        self.state == WalkState::Complete
    }
}

/// One fill as an exact integer: `fill × 2^40`. A fill is used ÷ usable
/// bytes of a page of at most 64 KiB, so a nonzero fill is at least 2^-16
/// and its f32 value times 2^40 is a whole number; sums of these are exact
/// in any order, so the mean is the same at any thread count.
pub(crate) const FILL_ONE: f64 = (1u64 << 40) as f64;

pub(crate) fn fill_fixed(fill: f32) -> u128 {
    (f64::from(fill) * FILL_ONE) as u128
}

/// Figures of the member pages of one level of one index (the root and
/// pages at or above the root's level left out), summed in file order.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct LevelSums {
    /// Pages with a records view: the pages counted.
    pub(crate) pages: u32,
    /// Σ fill, exact (see [`fill_fixed`]).
    pub(crate) fill: u128,
    pub(crate) hist: [u32; FILL_BUCKETS],
    pub(crate) garbage: u64,
    /// Σ n_recs over all counted pages, and over the walked (not
    /// compressed) ones.
    pub(crate) n_recs: u64,
    pub(crate) n_recs_walked: u64,
    pub(crate) n_recs_stated: u64,
    pub(crate) record_bytes: u64,
    pub(crate) compressed: u32,
    pub(crate) n_free: u64,
    pub(crate) n_deleted: u64,
    pub(crate) n_min_rec: u64,
    pub(crate) data_size: u64,
    pub(crate) used: u64,
    pub(crate) usable: u64,
}

impl LevelSums {
    /// The figures of one page: nothing for a page without a records view.
    pub(crate) fn one(w: &Walked) -> LevelSums {
        let mut s = LevelSums::default();
        if w.state == WalkState::None {
            return s;
        }
        let fill = f64::from(w.fill);
        let bucket = ((fill * FILL_BUCKETS as f64) as usize).min(FILL_BUCKETS - 1);
        if let Some(b) = s.hist.get_mut(bucket) {
            *b = 1;
        }
        s.pages = 1;
        s.fill = fill_fixed(w.fill);
        s.garbage = u64::from(w.garbage);
        s.n_recs = u64::from(w.n_recs);
        s.n_recs_stated = u64::from(w.n_recs_stated);
        s.record_bytes = u64::from(w.record_bytes);
        s.data_size = u64::from(w.data_size);
        s.used = u64::from(w.used);
        s.usable = u64::from(w.usable);
        if w.state == WalkState::Compressed {
            s.compressed = 1;
            return s;
        }
        s.n_recs_walked = u64::from(w.n_recs);
        s.n_free = u64::from(w.n_free);
        s.n_deleted = u64::from(w.n_deleted);
        s.n_min_rec = u64::from(w.n_min_rec);
        s
    }

    /// Takes `o`, merged before, out again (the sums are exact integers).
    pub(crate) fn sub(&mut self, o: &LevelSums) {
        self.pages = self.pages.saturating_sub(o.pages);
        self.fill = self.fill.saturating_sub(o.fill);
        for (a, b) in self.hist.iter_mut().zip(o.hist) {
            *a = a.saturating_sub(b);
        }
        self.garbage = self.garbage.saturating_sub(o.garbage);
        self.n_recs = self.n_recs.saturating_sub(o.n_recs);
        self.n_recs_walked = self.n_recs_walked.saturating_sub(o.n_recs_walked);
        self.n_recs_stated = self.n_recs_stated.saturating_sub(o.n_recs_stated);
        self.record_bytes = self.record_bytes.saturating_sub(o.record_bytes);
        self.compressed = self.compressed.saturating_sub(o.compressed);
        self.n_free = self.n_free.saturating_sub(o.n_free);
        self.n_deleted = self.n_deleted.saturating_sub(o.n_deleted);
        self.n_min_rec = self.n_min_rec.saturating_sub(o.n_min_rec);
        self.data_size = self.data_size.saturating_sub(o.data_size);
        self.used = self.used.saturating_sub(o.used);
        self.usable = self.usable.saturating_sub(o.usable);
    }

    pub(crate) fn merge(&mut self, o: &LevelSums) {
        self.pages = self.pages.saturating_add(o.pages);
        self.fill = self.fill.saturating_add(o.fill);
        for (a, b) in self.hist.iter_mut().zip(o.hist) {
            *a = a.saturating_add(b);
        }
        self.garbage = self.garbage.saturating_add(o.garbage);
        self.n_recs = self.n_recs.saturating_add(o.n_recs);
        self.n_recs_walked = self.n_recs_walked.saturating_add(o.n_recs_walked);
        self.n_recs_stated = self.n_recs_stated.saturating_add(o.n_recs_stated);
        self.record_bytes = self.record_bytes.saturating_add(o.record_bytes);
        self.compressed = self.compressed.saturating_add(o.compressed);
        self.n_free = self.n_free.saturating_add(o.n_free);
        self.n_deleted = self.n_deleted.saturating_add(o.n_deleted);
        self.n_min_rec = self.n_min_rec.saturating_add(o.n_min_rec);
        self.data_size = self.data_size.saturating_add(o.data_size);
        self.used = self.used.saturating_add(o.used);
        self.usable = self.usable.saturating_add(o.usable);
    }
}

/// The record walk of `page` (an index page as it reads) as the tree
/// figures take it, its findings in `out`.
pub(crate) fn walk_records(
    ts: &Tablespace<'_>,
    page: &[u8],
    scratch: &mut Option<Box<RecScratch>>,
    out: &mut Vec<RecFinding>,
) -> Walked {
    out.clear();
    match RecPage::new(page, ts.format().logical_size) {
        Some(rp) => Walked::of(&rp.analyse_lazy(scratch, out)),
        None => Walked::default(),
    }
}
