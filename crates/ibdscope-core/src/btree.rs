//! B-trees: every index's levels walked along their sibling links, checked,
//! and folded into figures (storage/innobase/include/btr0btr.h and
//! page0page.h, MySQL 8.0; the sibling and level fields of fil0types.h and
//! page0types.h; node pointers per rem/rec.h).
//!
//! The pages of one index, as this module reads them:
//!
//! | where | field | use |
//! |---|---|---|
//! | FIL header, offset 8 | FIL_PAGE_PREV | left sibling at the same level, FIL_NULL on the leftmost page |
//! | FIL header, offset 12 | FIL_PAGE_NEXT | right sibling, FIL_NULL on the rightmost page |
//! | index header, offset 64 | PAGE_LEVEL | 0 for leaves; the root has the highest |
//! | index header, offset 66 | PAGE_INDEX_ID | the index the page belongs to |
//! | node pointer record | last field, 4 bytes (REC_NODE_PTR_SIZE) | child page number |
//!
//! Which pages belong to an index comes from the [`SpaceMap`]: the pages of
//! the index's two segments that are index pages carrying its id. The walk
//! goes level by level, from the root's level down to 0: each level's
//! pages are followed from the leftmost (FIL_PAGE_PREV = FIL_NULL) along
//! FIL_PAGE_NEXT, at most as many steps as the level has pages, and at most
//! [`BTREE_MAX_HEIGHT`] levels.
//!
//! Memory: nothing is kept per page. One pass over the file (on the
//! caller's [`crate::parallel::Engine`]) finds each level's pages, counts
//! them and sums their record walks. A level is then proven whole by following its chain in
//! stretches between sample pages, many at once (`Walker::lane_walk`);
//! only a level that is not whole, or whose order is wanted (REDUNDANT node
//! pointers, record findings, leaf chains asked for), is walked exactly,
//! with a visited bitmap over pages, to name each problem.
//!
//! Why levels and not node pointers: a node pointer's child page number is
//! the last 4 bytes of the record, but where a COMPACT record ends depends
//! on the column layout (its NULL bitmap and variable-length lengths), which
//! a page does not describe. innodb_ruby reads the child only through a
//! record describer (lib/innodb/page/index.rb, `child_page_number`), and
//! ibdNinja only with the table definition from the SDI. REDUNDANT records
//! carry their field end offsets, so on REDUNDANT trees node pointers are
//! also checked: the children named by a level, in order, must be the
//! level below in its chain order.
//!
//! Checks: exactly one page at the top level, the root; levels 0..root
//! level all present; every page of a level reached once by its chain,
//! whose last page's FIL_PAGE_NEXT is FIL_NULL; `A.next = B` ⇔ `B.prev = A`; no loops; every page's records walked and
//! checked ([`crate::record`]). Each problem is a [`Finding`] with the page
//! and byte offset of the faulty field.
//!
//! Traps: pages freed by merges keep PAGE_INDEX_ID, PAGE_LEVEL and their
//! records; they are not in any segment and are not part of the tree here
//! (see [`crate::extents::SpaceProblem::FreePageWithData`]).
//! ROW_FORMAT=COMPRESSED pages are not walked: their counts come from
//! PAGE_N_RECS ([`IndexTree::compressed_pages`]).

use crate::bits::Bits;
use crate::extents::{BesideIndexPass, IndexInfo, Owner, SpaceMap};
use crate::facts::{Facts, Head, Kind};
use crate::fil::{FilHeader, FIL_PAGE_NEXT, FIL_PAGE_PREV};
use crate::finding::{Finding, FindingKind};
use crate::ids::{IndexId, PageNo, FIL_NULL};
use crate::index::{IndexHeader, PAGE_HEADER, PAGE_LEVEL};
use crate::parallel::{fold_pages, Engine, PageFold};
use crate::record::{RecFinding, RecFormat, RecPage, RecScratch, Visited};
use crate::space::Tablespace;
use crate::walk::{walk_records, LevelSums, Walked, FILL_ONE};

pub use crate::finding::{BtreeProblem, BTREE_MAX_HEIGHT};

/// Buckets of the fill histogram (0–10 %, …, 90–100 %).
pub const FILL_BUCKETS: usize = crate::walk::FILL_BUCKETS;

/// One level of an index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct LevelInfo {
    /// PAGE_LEVEL.
    pub level: u16,
    /// Pages of the index at this level.
    pub pages: u32,
    /// Of those, pages the chain from the leftmost page reached.
    pub reached: u32,
    /// Where the chain started (FIL_PAGE_PREV = FIL_NULL; the root at the
    /// top level).
    pub leftmost: Option<PageNo>,
    /// Figures summed over the level's pages with a records view (the
    /// root at the root's level).
    pub sums: LevelFigures,
    /// The order of the level's chain: each FIL_PAGE_NEXT step the chain
    /// walk took from the leftmost page (none at the root's level).
    pub order: Fragmentation,
}

/// What the pages of one level hold, summed over them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct LevelFigures {
    /// Pages summed (those with a records view).
    pub pages: u32,
    /// User records: walked on each page, PAGE_N_RECS on
    /// ROW_FORMAT=COMPRESSED pages (node pointers above level 0).
    pub records: u64,
    /// PAGE_N_RECS summed (`INNODB_BUFFER_PAGE.NUMBER_RECORDS`).
    pub records_stated: u64,
    /// `page_get_data_size` summed: PAGE_HEAP_TOP − supremum end −
    /// PAGE_GARBAGE (`INNODB_BUFFER_PAGE.DATA_SIZE`).
    pub data_bytes: u64,
    /// [`crate::index::PageFill::used`] summed: live records, infimum,
    /// supremum and directory.
    pub used_bytes: u64,
    /// [`crate::index::PageFill::usable`] summed: the pages' record and
    /// directory area.
    pub usable_bytes: u64,
    /// PAGE_GARBAGE summed.
    pub garbage_bytes: u64,
}

impl LevelFigures {
    /// `used_bytes / usable_bytes`, 0.0 to 1.0 (0 with no page).
    pub fn fill(&self) -> f64 {
        if self.usable_bytes == 0 {
            return 0.0;
        }
        self.used_bytes as f64 / self.usable_bytes as f64
    }
}

/// How scattered the leaves are: over the leaf chain in key order, the
/// steps whose next page is not the physically next page, and how far the
/// steps jump.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Fragmentation {
    /// Steps along the leaf chain (leaves reached − 1).
    pub steps: u32,
    /// Steps whose next page is not page + 1.
    pub jumps: u32,
    /// Steps whose next page has a higher page number (page + 1 included).
    pub forward: u32,
    /// Sum over the steps of |next − page|, in pages.
    pub distance: u64,
}

impl Fragmentation {
    /// Adds the steps of another part of the chain.
    fn add(&mut self, o: &Fragmentation) {
        self.steps = self.steps.saturating_add(o.steps);
        self.jumps = self.jumps.saturating_add(o.jumps);
        self.forward = self.forward.saturating_add(o.forward);
        self.distance = self.distance.saturating_add(o.distance);
    }
    /// Share of steps that jump, 0.0 to 1.0 (0 with no step).
    pub fn share(&self) -> f32 {
        if self.steps == 0 {
            return 0.0;
        }
        (f64::from(self.jumps) / f64::from(self.steps)) as f32
    }
    /// Steps to page + 1.
    pub fn sequential(&self) -> u32 {
        self.steps.saturating_sub(self.jumps)
    }
    /// Mean |next − page| per step, in pages (1.0 for a sequential chain).
    pub fn mean_distance(&self) -> f32 {
        if self.steps == 0 {
            return 0.0;
        }
        (self.distance as f64 / f64::from(self.steps)) as f32
    }
}

/// One index (B-tree) walked.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct IndexTree {
    /// PAGE_INDEX_ID.
    pub index_id: IndexId,
    /// The root page.
    pub root: PageNo,
    /// Levels: the root's PAGE_LEVEL + 1.
    pub height: u32,
    /// Record format of the root page.
    pub format: RecFormat,
    /// Each level from the root's down to 0.
    pub levels: Vec<LevelInfo>,
    /// Index pages walked: those of the index's segments at the root's
    /// level (the root) and below, whether their level's chain reached them
    /// or not. Pages above the root's level are findings, not counted.
    pub pages: u32,
    /// Of those, leaves.
    pub leaf_pages: u32,
    /// Leaf records: walked on each leaf, PAGE_N_RECS on compressed leaves
    /// (delete-marked records included).
    pub n_recs: u64,
    /// PAGE_N_RECS summed over the leaves.
    pub n_recs_stated: u64,
    /// Delete-marked leaf records (walked leaves only; MariaDB's metadata
    /// record excluded).
    pub n_deleted: u64,
    /// MariaDB instant ALTER metadata records (MIN_REC on a leaf): in
    /// `n_recs`, not rows. Rows = `n_recs − n_deleted − n_metadata`.
    pub n_metadata: u64,
    /// Records on the free (garbage) chains of all pages of the index.
    pub n_garbage_recs: u64,
    /// Node pointers on the non-leaf pages (walked pages only).
    pub n_node_ptrs: u64,
    /// Bytes of live leaf records: exact on REDUNDANT pages, else
    /// `page_get_data_size` (PAGE_HEAP_TOP − supremum end − PAGE_GARBAGE).
    pub leaf_data_bytes: u64,
    /// PAGE_GARBAGE summed over all pages.
    pub garbage_bytes: u64,
    /// ROW_FORMAT=COMPRESSED pages: records not walked, figures from the
    /// header.
    pub compressed_pages: u32,
    /// Pages of the index that cannot be read (encrypted, page_compressed).
    pub unreadable_pages: u32,
    /// Mean fill of all pages (used / usable, from the headers).
    pub mean_fill: f32,
    /// Mean fill of the leaves.
    pub mean_leaf_fill: f32,
    /// Leaves per fill bucket: bucket `k` holds fills in [k/10, (k+1)/10),
    /// the last also 1.0.
    pub leaf_fill_hist: [u32; FILL_BUCKETS],
    /// Leaf order along FIL_PAGE_NEXT.
    pub fragmentation: Fragmentation,
    /// The leaf pages in chain (key) order, as far as the chain went:
    /// kept by [`Btrees::build_with_leaf_chains`] and
    /// [`Btrees::build_from`], empty from [`Btrees::build`] (whose trees
    /// are otherwise the same; [`IndexTree::leaves_reached`] counts them).
    pub leaf_chain: Vec<PageNo>,
    /// REDUNDANT trees: node pointers were read and matched with the level
    /// below. False for COMPACT trees (no schema) and damaged levels.
    pub node_ptrs_checked: bool,
    /// Every check ran on every level (false when the height exceeds
    /// [`BTREE_MAX_HEIGHT`] or pages are unreadable).
    pub complete: bool,
}

/// Every index of a space, walked.
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct Btrees {
    /// One per index of the space map, in root page order.
    pub indexes: Vec<IndexTree>,
    /// Problems found.
    pub findings: Vec<Finding>,
}

/// Where a page stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Slot {
    /// Not an index page of a known index.
    None,
    /// Index page of index `pos` at `level`.
    Member { pos: u32, level: u16 },
    /// An index page of index `pos` that cannot be read.
    Unreadable { pos: u32 },
}

impl Btrees {
    /// Walks every index `map` found, for the figures and checks; the leaf
    /// chains are not kept ([`IndexTree::leaf_chain`] is empty; see
    /// [`Btrees::build_with_leaf_chains`]). Never panics; bounded.
    /// The pass over the file runs on `engine`.
    pub fn build(ts: &Tablespace<'_>, engine: &Engine<'_>, map: &SpaceMap) -> Btrees {
        Self::build_map(ts, engine, map, false)
    }

    /// As [`Btrees::build`], and keeps each index's leaf pages in chain
    /// order in [`IndexTree::leaf_chain`] (4 bytes a leaf).
    pub fn build_with_leaf_chains(
        ts: &Tablespace<'_>,
        engine: &Engine<'_>,
        map: &SpaceMap,
    ) -> Btrees {
        Self::build_map(ts, engine, map, true)
    }

    pub(crate) fn build_map(
        ts: &Tablespace<'_>,
        engine: &Engine<'_>,
        map: &SpaceMap,
        chains: bool,
    ) -> Btrees {
        Self::walk(
            ts,
            engine,
            &map.indexes,
            |n| match map.owner(ts, n) {
                Some(Owner::Segment { index, .. }) => index,
                _ => None,
            },
            map.facts(ts),
            chains,
        )
    }

    /// Walks `indexes`, taking as each index's pages those that `owner`
    /// assigns to it and that are index pages carrying its id. (With a
    /// [`SpaceMap`], `owner` is the index of the page's segment.) Keeps the
    /// leaf chains. The pass over the file runs on `engine`.
    pub fn build_from(
        ts: &Tablespace<'_>,
        engine: &Engine<'_>,
        indexes: &[IndexInfo],
        owner: impl Fn(PageNo) -> Option<IndexId> + Sync,
    ) -> Btrees {
        Self::walk(ts, engine, indexes, owner, ts.pass_facts(), true)
    }

    /// The trees of `indexes`; `facts`, what a pass over every page kept
    /// of each ([`crate::facts`]): the member pass then reads no page when
    /// they hold the record walks, and the walks read the heads.
    fn walk(
        ts: &Tablespace<'_>,
        engine: &Engine<'_>,
        indexes: &[IndexInfo],
        owner: impl Fn(PageNo) -> Option<IndexId> + Sync,
        facts: Option<&Facts>,
        chains: bool,
    ) -> Btrees {
        let plan = MemberPlan::new(ts, indexes);
        let m = match facts.filter(|f| f.walked()) {
            // A pass read every page already.
            Some(f) => plan.fold(&owner).place_facts(f),
            None => fold_pages(ts, engine, || plan.fold(&owner)).m,
        };
        Self::walk_members(ts, indexes, &owner, facts, chains, plan, m)
    }

    /// The trees of `indexes` from the member pass made already (folded in
    /// another pass over the file: the space map's second,
    /// [`SpaceMap::build_with_trees`]): `plan` the pass's inputs, `m` what
    /// it gathered.
    pub(crate) fn walk_members<'o>(
        ts: &Tablespace<'_>,
        indexes: &[IndexInfo],
        owner: &'o (dyn Fn(PageNo) -> Option<IndexId> + Sync),
        facts: Option<&'o Facts>,
        chains: bool,
        plan: MemberPlan<'_, '_>,
        mut m: Members,
    ) -> Btrees {
        m.finish(indexes.len());
        let mut w = Walker::new(ts, plan.ids, owner, facts, m, chains);
        for pos in 0..indexes.len() {
            if let Some(info) = indexes.get(pos) {
                let tree = w.walk_index(u32::try_from(pos).unwrap_or(u32::MAX), info);
                w.trees.push(tree);
            }
        }
        Btrees {
            indexes: w.trees,
            findings: w.findings,
        }
    }

    /// The tree of index `index_id` (the first, if damage gives two).
    pub fn index(&self, index_id: IndexId) -> Option<&IndexTree> {
        self.indexes.iter().find(|t| t.index_id == index_id)
    }
}

impl IndexTree {
    /// Leaf pages the leaf chain reached (the root alone when it is the
    /// leaf), whether or not [`IndexTree::leaf_chain`] was kept.
    pub fn leaves_reached(&self) -> u32 {
        self.levels
            .last()
            .filter(|l| l.level == 0)
            .map_or(0, |l| l.reached)
    }
}

/// What the pass over the file gathers about the member pages, per shard
/// and then for the whole space.
pub(crate) struct Members {
    /// Per `(index position, level)`; sorted once the pass is done.
    levels: Vec<LevelAcc>,
    /// The record findings of the member pages, in page order.
    rec_findings: Vec<(u32, RecFinding)>,
    /// `(pos, level, page)` of pages at or above their index's root level
    /// that are not its root; sorted once the pass is done.
    above: Vec<(u32, u16, u32)>,
    /// Unreadable pages per index position.
    unreadable: Vec<u32>,
}

impl Members {
    fn new() -> Self {
        Members {
            levels: Vec::new(),
            rec_findings: Vec::new(),
            above: Vec::new(),
            unreadable: Vec::new(),
        }
    }

    /// Appends what the pages right after these gave.
    fn append(&mut self, next: Members) {
        for l in next.levels {
            match self
                .levels
                .iter_mut()
                .find(|m| m.pos == l.pos && m.level == l.level)
            {
                Some(m) => m.merge(l),
                None => self.levels.push(l),
            }
        }
        self.rec_findings.extend(next.rec_findings);
        self.above.extend(next.above);
        if self.unreadable.len() < next.unreadable.len() {
            self.unreadable.resize(next.unreadable.len(), 0);
        }
        for (mine, theirs) in self.unreadable.iter_mut().zip(next.unreadable) {
            *mine = mine.saturating_add(theirs);
        }
    }

    /// One entry per index; the lists sorted for lookups.
    fn finish(&mut self, n_indexes: usize) {
        self.unreadable.resize(n_indexes, 0);
        self.levels.sort_unstable_by_key(|l| (l.pos, l.level));
        self.above.sort_unstable();
    }
}

/// Names the index a page's segment belongs to.
type OwnerFn<'o> = &'o (dyn Fn(PageNo) -> Option<IndexId> + Sync);

/// What the tree walk keeps between the pass over the file and the walks
/// along the chains: nothing per page. The record walks are folded into
/// per-level sums in the pass; a page's place, its sibling links and (for
/// the few pages whose walk is needed again: roots, non-leaf pages on
/// damaged or REDUNDANT trees) its records are read again from the page.
struct Walker<'t, 'a, 'o> {
    ts: &'t Tablespace<'a>,
    /// The heads a pass over every page kept: read instead of the pages.
    facts: Option<&'o Facts>,
    /// `(index id, position)`, sorted by id.
    ids: Vec<(IndexId, u32)>,
    owner: OwnerFn<'o>,
    m: Members,
    /// Keep every level's chain order, the leaf level's too.
    chains: bool,
    /// Pages reached by the roots and by the exact walks of
    /// [`Walker::walk_level`], one bit each, up to the highest such page:
    /// on a sound tree only the roots are here.
    visited: Bits,
    /// The roots visited, in visit order.
    roots_visited: Vec<u32>,
    /// `(pos, level)` of levels proven whole by [`Walker::lane_walk`]:
    /// every page reached once, none marked in `visited`.
    lane_walked: Vec<(u32, u16)>,
    rec_visited: Visited,
    /// For walking a page's records again.
    scratch: Option<Box<RecScratch>>,
    out: Vec<RecFinding>,
    findings: Vec<Finding>,
    trees: Vec<IndexTree>,
}

impl LevelSums {
    /// The level's figures as [`LevelInfo`] shows them.
    fn figures(&self) -> LevelFigures {
        LevelFigures {
            pages: self.pages,
            records: self.n_recs,
            records_stated: self.n_recs_stated,
            data_bytes: self.data_size,
            used_bytes: self.used,
            usable_bytes: self.usable,
            garbage_bytes: self.garbage,
        }
    }

    /// Adds these figures, of pages at `level`, to `tree` and `sums`.
    fn add_to(&self, level: u16, tree: &mut IndexTree, sums: &mut Sums) {
        tree.pages = tree.pages.saturating_add(self.pages);
        sums.pages = sums.pages.saturating_add(self.pages);
        sums.fill = sums.fill.saturating_add(self.fill);
        tree.garbage_bytes = tree.garbage_bytes.saturating_add(self.garbage);
        tree.compressed_pages = tree.compressed_pages.saturating_add(self.compressed);
        tree.n_garbage_recs = tree.n_garbage_recs.saturating_add(self.n_free);
        if level == 0 {
            tree.leaf_pages = tree.leaf_pages.saturating_add(self.pages);
            sums.leaf_fill = sums.leaf_fill.saturating_add(self.fill);
            for (a, b) in tree.leaf_fill_hist.iter_mut().zip(self.hist) {
                *a = a.saturating_add(b);
            }
            tree.n_recs = tree.n_recs.saturating_add(self.n_recs);
            tree.n_recs_stated = tree.n_recs_stated.saturating_add(self.n_recs_stated);
            tree.leaf_data_bytes = tree.leaf_data_bytes.saturating_add(self.record_bytes);
            tree.n_deleted = tree.n_deleted.saturating_add(self.n_deleted);
            tree.n_metadata = tree.n_metadata.saturating_add(self.n_min_rec);
        } else {
            tree.n_node_ptrs = tree.n_node_ptrs.saturating_add(self.n_recs_walked);
        }
    }
}

/// The member pages of one level of one index, from the pass.
#[derive(Clone, Debug)]
struct LevelAcc {
    pos: u32,
    level: u16,
    /// Member pages.
    count: u32,
    /// The lowest-numbered one and the highest.
    first: u32,
    last: u32,
    /// Those with FIL_PAGE_PREV = FIL_NULL, in page order.
    heads: Vec<u32>,
    /// Pages with record findings.
    with_findings: u32,
    sums: LevelSums,
}

impl LevelAcc {
    fn new(pos: u32, level: u16, first: u32) -> Self {
        LevelAcc {
            pos,
            level,
            count: 0,
            first,
            last: first,
            heads: Vec::new(),
            with_findings: 0,
            sums: LevelSums::default(),
        }
    }

    fn merge(&mut self, o: LevelAcc) {
        self.count = self.count.saturating_add(o.count);
        self.first = self.first.min(o.first);
        self.last = self.last.max(o.last);
        self.heads.extend(o.heads);
        self.with_findings = self.with_findings.saturating_add(o.with_findings);
        self.sums.merge(&o.sums);
    }
}

/// The one pass over the file behind [`Walker`]: each page's place (the
/// index it belongs to and its level, or unreadable), counted per level
/// with the level's first, last and leftmost pages, and the member pages'
/// record walks folded into per-level sums, in page order, on the caller's
/// engine. The walks are most of a tree
/// build's work; in page order the CPU streams the pages from memory.
pub(crate) struct MemberPass<'p, 'a, F: ?Sized> {
    ts: &'p Tablespace<'a>,
    /// `(index id, position)`, sorted by id.
    ids: &'p [(IndexId, u32)],
    /// Per position: the root page and its PAGE_LEVEL.
    roots: &'p [(u32, u16)],
    owner: &'p F,
    n_indexes: usize,
    pub(crate) m: Members,
    /// Made at the first page of the shard that needs the full walk.
    scratch: Option<Box<RecScratch>>,
    out: Vec<RecFinding>,
}

/// Where page `n` stands: a member of an index (its segment is the index's,
/// it is a readable index page and carries the index's id) at its
/// PAGE_LEVEL, an unreadable index page of the index, or neither. `ids` is
/// `(index id, position)` sorted by id; `owner` names the index of the
/// page's segment.
fn slot_of<O>(
    ts: &Tablespace<'_>,
    ids: &[(IndexId, u32)],
    owner: &O,
    n: PageNo,
    page: &[u8],
) -> Slot
where
    O: Fn(PageNo) -> Option<IndexId> + ?Sized,
{
    match owned(ids, owner, n) {
        Some((id, pos)) => slot_in(id, pos, &Head::read_with(ts, page, false)),
        None => Slot::None,
    }
}

/// The index `owner` names for page `n` and its position in `ids`, when
/// it is one of them.
fn owned<O>(ids: &[(IndexId, u32)], owner: &O, n: PageNo) -> Option<(IndexId, u32)>
where
    O: Fn(PageNo) -> Option<IndexId> + ?Sized,
{
    let id = owner(n)?;
    let k = ids.binary_search_by_key(&id, |&(i, _)| i).ok()?;
    ids.get(k).map(|&(_, pos)| (id, pos))
}

/// Where a page whose segment is index `id`'s (at `pos`), reading as `h`,
/// stands ([`slot_of`]).
fn slot_in(id: IndexId, pos: u32, h: &Head) -> Slot {
    match h.kind {
        Kind::Unreadable => Slot::Unreadable { pos },
        // Another id is reported by the space map (WrongSegment).
        Kind::Index if h.index_id == id => Slot::Member {
            pos,
            level: h.level,
        },
        _ => Slot::None,
    }
}

impl<'p, 'a, F: ?Sized> MemberPass<'p, 'a, F> {
    fn new(
        ts: &'p Tablespace<'a>,
        ids: &'p [(IndexId, u32)],
        roots: &'p [(u32, u16)],
        owner: &'p F,
    ) -> Self {
        MemberPass {
            ts,
            ids,
            roots,
            owner,
            n_indexes: roots.len(),
            m: Members::new(),
            scratch: None,
            out: Vec::new(),
        }
    }

    /// The accumulator of `(pos, level)` (most pages of a shard are of one
    /// level: the last one is tried first).
    fn level_acc(&mut self, pos: u32, level: u16, n: u32) -> Option<&mut LevelAcc> {
        let hit = matches!(self.m.levels.last(), Some(l) if l.pos == pos && l.level == level);
        if !hit {
            match self
                .m
                .levels
                .iter()
                .position(|l| l.pos == pos && l.level == level)
            {
                Some(k) => {
                    let last = self.m.levels.len().saturating_sub(1);
                    self.m.levels.swap(k, last);
                }
                None => self.m.levels.push(LevelAcc::new(pos, level, n)),
            }
        }
        self.m.levels.last_mut()
    }

    /// Counts page `n` in its level and folds its record walk.
    fn place(&mut self, n: PageNo, page: &[u8])
    where
        F: Fn(PageNo) -> Option<IndexId>,
    {
        let ts = self.ts;
        let (pos, level) = match slot_of(ts, self.ids, self.owner, n, page) {
            Slot::None => return,
            Slot::Unreadable { pos } => {
                if self.m.unreadable.len() < self.n_indexes {
                    self.m.unreadable.resize(self.n_indexes, 0);
                }
                if let Some(u) = self.m.unreadable.get_mut(pos as usize) {
                    *u = u.saturating_add(1);
                }
                return;
            }
            Slot::Member { pos, level } => (pos, level),
        };
        let leftmost = FilHeader::new(page).is_some_and(|f| f.prev().is_null());
        let walked = walk_records(ts, page, &mut self.scratch, &mut self.out);
        self.m
            .rec_findings
            .extend(self.out.iter().map(|&f| (n.0, f)));
        let has_findings = !self.out.is_empty();
        let (root, root_level) = self.roots.get(pos as usize).copied().unwrap_or((0, 0));
        if n.0 != root && level >= root_level {
            self.m.above.push((pos, level, n.0));
        }
        if let Some(acc) = self.level_acc(pos, level, n.0) {
            acc.count = acc.count.saturating_add(1);
            acc.last = acc.last.max(n.0);
            if leftmost {
                acc.heads.push(n.0);
            }
            if has_findings {
                acc.with_findings = acc.with_findings.saturating_add(1);
            }
            // The root's figures are taken when its level is walked; pages
            // at or above the root's level are findings, not counted.
            if n.0 != root && level < root_level {
                acc.sums.merge(&LevelSums::one(&walked));
            }
        }
    }
}

impl<F: Fn(PageNo) -> Option<IndexId> + ?Sized> MemberPass<'_, '_, F> {
    /// What [`MemberPass::place`] gathers over every page, from the facts
    /// the space's transform pass kept ([`Facts`]) instead of the pages:
    /// each page's place from its head, the record walks from the sums per
    /// index id and level, less the pages summed there that no level
    /// counts (roots, pages of no tree: each read and walked again).
    fn place_facts(mut self, facts: &Facts) -> Members {
        let ts = self.ts;
        let mut minus = vec![LevelSums::default(); facts.sums().len()];
        for k in 0..ts.n_pages() {
            let n = PageNo(k);
            // A doublewrite buffer page is a copy of a page of some tree.
            if ts.in_doublewrite(n) {
                continue;
            }
            let Some(h) = facts.head(k) else {
                continue;
            };
            let slot = match owned(self.ids, self.owner, n) {
                Some((id, pos)) => slot_in(id, pos, &h),
                None => Slot::None,
            };
            let counted = match slot {
                Slot::None => false,
                Slot::Unreadable { pos } => {
                    if self.m.unreadable.len() < self.n_indexes {
                        self.m.unreadable.resize(self.n_indexes, 0);
                    }
                    if let Some(u) = self.m.unreadable.get_mut(pos as usize) {
                        *u = u.saturating_add(1);
                    }
                    false
                }
                Slot::Member { pos, level } => {
                    let found = facts.findings(k);
                    self.m.rec_findings.extend_from_slice(found);
                    let (root, root_level) =
                        self.roots.get(pos as usize).copied().unwrap_or((0, 0));
                    if k != root && level >= root_level {
                        self.m.above.push((pos, level, k));
                    }
                    if let Some(acc) = self.level_acc(pos, level, k) {
                        acc.count = acc.count.saturating_add(1);
                        acc.last = acc.last.max(k);
                        if h.prev.is_null() {
                            acc.heads.push(k);
                        }
                        if !found.is_empty() {
                            acc.with_findings = acc.with_findings.saturating_add(1);
                        }
                    }
                    k != root && level < root_level
                }
            };
            if counted || !Facts::summed(ts, n, &h) {
                continue;
            }
            let (Some(at), Some(page)) = (facts.sum_place(h.index_id, h.level), ts.page_ref(n))
            else {
                continue;
            };
            let w = walk_records(ts, &page, &mut self.scratch, &mut self.out);
            if let Some(m) = minus.get_mut(at) {
                m.merge(&LevelSums::one(&w));
            }
        }
        // Each id's sums, less the pages not counted, to its index's level.
        for (&(id, level, sums), less) in facts.sums().iter().zip(&minus) {
            let Ok(k) = self.ids.binary_search_by_key(&id, |&(i, _)| i) else {
                continue;
            };
            let Some(&(_, pos)) = self.ids.get(k) else {
                continue;
            };
            let mut sums = sums;
            sums.sub(less);
            if let Some(acc) = (self.m.levels.iter_mut()).find(|l| l.pos == pos && l.level == level)
            {
                acc.sums.merge(&sums);
            }
        }
        self.m
    }
}

impl<F: Fn(PageNo) -> Option<IndexId> + Sync + ?Sized> PageFold for MemberPass<'_, '_, F> {
    fn page(&mut self, n: PageNo, page: &[u8]) {
        // A doublewrite buffer page is a copy of a page of some tree.
        if !self.ts.in_doublewrite(n) {
            self.place(n, page);
        }
    }
    /// An all-zero page is no index page: no tree's member ([`slot_of`]).
    fn zero_run(&mut self, _: PageNo, _: u32, _: &[u8]) {}
    fn append(&mut self, next: Self) {
        self.m.append(next.m);
    }
}

/// Figures summed over the pages of one index.
#[derive(Default)]
struct Sums {
    /// Σ fill and Σ leaf fill, exact (see [`fill_fixed`]).
    fill: u128,
    leaf_fill: u128,
    pages: u32,
}

impl Sums {
    /// Sets the tree's mean fill and mean leaf fill from the sums.
    fn set_means(&self, tree: &mut IndexTree) {
        if self.pages > 0 {
            tree.mean_fill = (self.fill as f64 / FILL_ONE / f64::from(self.pages)) as f32;
        }
        if tree.leaf_pages > 0 {
            tree.mean_leaf_fill =
                (self.leaf_fill as f64 / FILL_ONE / f64::from(tree.leaf_pages)) as f32;
        }
    }
}

/// The index a tree walk is on: its position, id, root page and the
/// root's PAGE_LEVEL.
#[derive(Clone, Copy)]
struct TreeRoot {
    pos: u32,
    index: IndexId,
    page: PageNo,
    level: u16,
}

/// Children named by the level above (REDUNDANT): (child, page, origin).
type Children = Vec<(u32, u32, u16)>;

/// Where PAGE_LEVEL is in an index page.
const LEVEL_AT: usize = PAGE_HEADER.saturating_add(PAGE_LEVEL);

/// A level's walk along its chain.
struct Chain {
    /// Pages reached.
    reached: u32,
    /// The first page.
    leftmost: Option<u32>,
    /// The pages in chain order, when kept.
    order: Option<Vec<u32>>,
    /// The order of its steps.
    fragmentation: Fragmentation,
}

/// The member pass's inputs for a list of indexes: each index's id and
/// position, its root page and the root's PAGE_LEVEL.
pub(crate) struct MemberPlan<'t, 'a> {
    ts: &'t Tablespace<'a>,
    /// `(index id, position)`, sorted by id.
    ids: Vec<(IndexId, u32)>,
    /// Per position: the root page and its PAGE_LEVEL.
    roots: Vec<(u32, u16)>,
}

impl<'t, 'a> MemberPlan<'t, 'a> {
    /// The inputs for `indexes` (in the order the trees are given).
    pub(crate) fn new(ts: &'t Tablespace<'a>, indexes: &[IndexInfo]) -> Self {
        let mut ids: Vec<(IndexId, u32)> = indexes
            .iter()
            .enumerate()
            .map(|(p, i)| (i.index_id, u32::try_from(p).unwrap_or(u32::MAX)))
            .collect();
        // The first index with an id wins, as SpaceMap::index does.
        ids.sort_by_key(|&(id, p)| (id, p));
        ids.dedup_by_key(|&mut (id, _)| id);
        let roots: Vec<(u32, u16)> = indexes
            .iter()
            .map(|i| {
                let level = ts
                    .page(i.root)
                    .and_then(IndexHeader::new)
                    .map_or(0, |h| h.level());
                (i.root.0, level)
            })
            .collect();
        MemberPlan { ts, ids, roots }
    }

    /// One shard's fold of the member pass, `owner` naming the index of a
    /// page's segment.
    pub(crate) fn fold<'p, F>(&'p self, owner: &'p F) -> MemberPass<'p, 'a, F>
    where
        F: Fn(PageNo) -> Option<IndexId> + Sync + ?Sized,
    {
        MemberPass::new(self.ts, &self.ids, &self.roots, owner)
    }
}

type DynOwner<'o> = dyn Fn(PageNo) -> Option<IndexId> + Sync + 'o;

impl<'a> BesideIndexPass for MemberPlan<'_, 'a> {
    type Fold<'o>
        = MemberPass<'o, 'a, DynOwner<'o>>
    where
        Self: 'o;
    type Out = Members;
    fn fold<'o>(&'o self, owner: &'o DynOwner<'o>) -> Self::Fold<'o> {
        MemberPlan::fold(self, owner)
    }
    fn out<'o>(fold: Self::Fold<'o>) -> Members
    where
        Self: 'o,
    {
        fold.m
    }
}

impl SpaceMap {
    /// [`SpaceMap::build_folding`] (`side`, when given) and the B-trees of
    /// the map's indexes ([`Btrees::build`], or
    /// [`Btrees::build_with_leaf_chains`] when `chains`), the trees' pass
    /// over the file (each page's place in its index and its record walk)
    /// folded in the map's second (the index pages against the owner map):
    /// two passes over the file for the map, `side` and the trees, where
    /// they took four (one, without `side`, on a space whose transform
    /// pass took the root candidates). The same map, fold and trees as
    /// built apart.
    pub fn build_with_trees<F, N>(
        ts: &Tablespace<'_>,
        engine: &Engine<'_>,
        side: Option<N>,
        chains: bool,
    ) -> (SpaceMap, Option<F>, Btrees)
    where
        F: PageFold,
        N: Fn() -> F + Sync,
    {
        let plan = |order: &[IndexInfo]| MemberPlan::new(ts, order);
        let (map, side, members) = SpaceMap::build_all(ts, engine, side, Some(plan), true);
        let trees = match members {
            Some((plan, m)) => {
                let owner = |n: PageNo| match map.owner(ts, n) {
                    Some(Owner::Segment { index, .. }) => index,
                    _ => None,
                };
                Btrees::walk_members(ts, &map.indexes, &owner, map.facts(ts), chains, plan, m)
            }
            // The trees from the facts the map's first pass (or the
            // transform pass) kept, or no map to fold them in (page 0
            // unreadable).
            None => Btrees::build_map(ts, engine, &map, chains),
        };
        (map, side, trees)
    }
}

impl<'t, 'a, 'o> Walker<'t, 'a, 'o> {
    fn new(
        ts: &'t Tablespace<'a>,
        ids: Vec<(IndexId, u32)>,
        owner: OwnerFn<'o>,
        facts: Option<&'o Facts>,
        m: Members,
        chains: bool,
    ) -> Self {
        Walker {
            ts,
            facts,
            ids,
            owner,
            m,
            chains,
            visited: Bits::default(),
            roots_visited: Vec::new(),
            lane_walked: Vec::new(),
            rec_visited: Visited::new(),
            scratch: None,
            out: Vec::new(),
            findings: Vec::new(),
            trees: Vec::new(),
        }
    }

    /// Where page `n` stands (see [`slot_of`]).
    fn slot(&self, n: u32) -> Slot {
        if let Some(f) = self.facts {
            return match (owned(&self.ids, self.owner, PageNo(n)), f.head(n)) {
                (Some((id, pos)), Some(h)) => slot_in(id, pos, &h),
                _ => Slot::None,
            };
        }
        match self.ts.page_ref(PageNo(n)) {
            Some(page) => slot_of(self.ts, &self.ids, self.owner, PageNo(n), &page),
            None => Slot::None,
        }
    }

    /// Visits root page `n`; false if it was already, as a root or as a
    /// page of a level walked before.
    fn visit_root(&mut self, n: u32) -> bool {
        if let Slot::Member { pos, level } = self.slot(n) {
            if self.lane_walked.contains(&(pos, level)) {
                return false;
            }
        }
        self.roots_visited.push(n);
        self.visit(n)
    }

    fn push(&mut self, page: PageNo, page_offset: usize, problem: BtreeProblem) {
        self.findings.push(Finding {
            page: Some(page),
            file_offset: self.ts.file_offset(page).saturating_add(page_offset as u64),
            kind: FindingKind::Btree(problem),
        });
    }

    /// The member pages of index `pos` at `level`.
    fn level(&self, pos: u32, level: u16) -> Option<&LevelAcc> {
        let k = self
            .m
            .levels
            .binary_search_by_key(&(pos, level), |l| (l.pos, l.level))
            .ok()?;
        self.m.levels.get(k)
    }

    /// Marks page `n` visited; false if it was already.
    fn visit(&mut self, n: u32) -> bool {
        if n >= self.ts.n_pages() {
            return false;
        }
        self.visited.grow_to((n as usize).saturating_add(1));
        self.visited.insert(n as usize)
    }

    fn is_visited(&self, n: u32) -> bool {
        self.visited.contains(n as usize)
    }

    /// FIL_PAGE_PREV and FIL_PAGE_NEXT of page `n`.
    fn links(&self, n: u32) -> Option<[PageNo; 2]> {
        if let Some(f) = self.facts {
            let h = f.head(n).filter(|h| h.kind != Kind::Short)?;
            return Some([h.prev, h.next]);
        }
        let page = self.ts.page_ref(PageNo(n))?;
        let fil = FilHeader::new(&page)?;
        Some([fil.prev(), fil.next()])
    }

    /// The record walk of member page `n`, again (the pass folded it into
    /// its level's sums): the same figures, its findings already taken.
    fn walked(&mut self, n: u32) -> Option<Walked> {
        if !matches!(self.slot(n), Slot::Member { .. }) {
            return None;
        }
        let page = self.ts.page_ref(PageNo(n))?;
        let Some(rp) = RecPage::new(&page, self.ts.format().logical_size) else {
            return Some(Walked::default());
        };
        self.out.clear();
        Some(Walked::of(
            &rp.analyse_lazy(&mut self.scratch, &mut self.out),
        ))
    }

    /// The member pages of index `pos` at `level` the chain did not reach,
    /// in page order.
    fn unreached(&self, pos: u32, level: u16) -> Vec<u32> {
        let Some(l) = self.level(pos, level) else {
            return Vec::new();
        };
        (l.first..=l.last)
            .filter(|&n| !self.is_visited(n) && self.slot(n) == Slot::Member { pos, level })
            .collect()
    }

    /// Walks index `pos` from its root level down to the leaves and gives
    /// its tree.
    fn walk_index(&mut self, pos: u32, info: &IndexInfo) -> IndexTree {
        let (mut tree, root_level) = self.new_tree(pos, info);
        let r = TreeRoot {
            pos,
            index: info.index_id,
            page: info.root,
            level: root_level,
        };
        if u32::from(root_level) >= BTREE_MAX_HEIGHT {
            self.push(
                r.page,
                LEVEL_AT,
                BtreeProblem::TooHigh {
                    index: r.index,
                    level: root_level,
                },
            );
            tree.complete = false;
            tree.node_ptrs_checked = false;
            return tree;
        }
        self.report_above_root(r);
        let mut sums = Sums::default();
        let mut children: Option<Children> = None;
        for level in (0..=root_level).rev() {
            children = self.walk_tree_level(r, level, children, &mut tree, &mut sums);
        }
        sums.set_means(&mut tree);
        tree
    }

    /// The tree of index `pos` before any level is walked, and its root's
    /// PAGE_LEVEL.
    fn new_tree(&self, pos: u32, info: &IndexInfo) -> (IndexTree, u16) {
        let root_header = self.ts.page(info.root).and_then(IndexHeader::new);
        let root_level = root_header.map_or(0, |h| h.level());
        let format = match root_header {
            Some(h) if !h.is_compact() => RecFormat::Redundant,
            _ => RecFormat::Compact,
        };
        let mut tree = IndexTree {
            index_id: info.index_id,
            root: info.root,
            height: u32::from(root_level).saturating_add(1),
            format,
            levels: Vec::new(),
            pages: 0,
            leaf_pages: 0,
            n_recs: 0,
            n_recs_stated: 0,
            n_deleted: 0,
            n_metadata: 0,
            n_garbage_recs: 0,
            n_node_ptrs: 0,
            leaf_data_bytes: 0,
            garbage_bytes: 0,
            compressed_pages: 0,
            unreadable_pages: self.m.unreadable.get(pos as usize).copied().unwrap_or(0),
            mean_fill: 0.0,
            mean_leaf_fill: 0.0,
            leaf_fill_hist: [0; FILL_BUCKETS],
            fragmentation: Fragmentation::default(),
            leaf_chain: Vec::new(),
            node_ptrs_checked: format == RecFormat::Redundant,
            complete: true,
        };
        if tree.unreadable_pages > 0 {
            tree.complete = false;
        }
        (tree, root_level)
    }

    /// Reports the pages of the index above its root's level, and others
    /// at its level.
    fn report_above_root(&mut self, r: TreeRoot) {
        let lo = self.m.above.partition_point(|&(p, _, _)| p < r.pos);
        let hi = self.m.above.partition_point(|&(p, _, _)| p <= r.pos);
        let above: Vec<(u16, u32)> = self
            .m
            .above
            .get(lo..hi)
            .unwrap_or(&[])
            .iter()
            .filter(|&&(_, l, n)| l >= r.level && n != r.page.0)
            .map(|&(_, l, n)| (l, n))
            .collect();
        for (level, n) in above {
            self.push(
                PageNo(n),
                LEVEL_AT,
                BtreeProblem::AboveRoot {
                    index: r.index,
                    level,
                },
            );
        }
    }

    /// Walks one level of the tree: its chain, the pages the chain missed,
    /// its figures, the level above's node pointers (`children`) against
    /// it and its pages' records. Gives the node pointers of this level for
    /// the level below, or `None` when they are not checked there.
    fn walk_tree_level(
        &mut self,
        r: TreeRoot,
        level: u16,
        children: Option<Children>,
        tree: &mut IndexTree,
        sums: &mut Sums,
    ) -> Option<Children> {
        let (pos, index) = (r.pos, r.index);
        let (count, with_findings, level_sums) = self
            .level(pos, level)
            .map_or((0, 0, LevelSums::default()), |l| {
                (l.count, l.with_findings, l.sums)
            });
        // The order is kept where it is read again: levels with node
        // pointers to read (REDUNDANT) or to match them with, levels with
        // record findings to report in chain order, and leaf chains asked
        // for. Otherwise a level proven whole by the lane walk needs no
        // exact walk.
        let keep = self.chains
            || (level > 0 && tree.node_ptrs_checked)
            || children.is_some()
            || with_findings > 0;
        let chain = self.level_chain(r, level, count, keep, tree)?;
        let level_pages = if level == r.level {
            chain.reached
        } else {
            count
        };
        let unreached: Vec<u32> = if level != r.level && chain.reached < count {
            // The chain visits only pages of this level, so the visited
            // bitmap tells them apart.
            self.unreached(pos, level)
        } else {
            Vec::new()
        };
        for &n in &unreached {
            self.push(
                PageNo(n),
                FIL_PAGE_PREV,
                BtreeProblem::Unreached { index, level },
            );
        }
        let chain_sound = chain.reached == level_pages;
        let order = chain.order.unwrap_or_default();

        // Figures: summed in the pass for the level's pages; the root's
        // from its kept walk.
        let level_sums = if level == r.level {
            order
                .first()
                .and_then(|&root| self.walked(root))
                .map_or(LevelSums::default(), |w| LevelSums::one(&w))
        } else {
            level_sums
        };
        level_sums.add_to(level, tree, sums);
        tree.levels.push(LevelInfo {
            level,
            pages: level_pages,
            reached: chain.reached,
            leftmost: chain.leftmost.map(PageNo),
            sums: level_sums.figures(),
            order: chain.fragmentation,
        });

        // The level above's node pointers against this chain.
        if let Some(kids) = children {
            self.match_children(pos, index, level, &kids, &order);
        }

        let next_children = self.level_records(
            index,
            level,
            &order,
            &unreached,
            (tree.node_ptrs_checked && level > 0 && chain_sound).then(Vec::new),
        );
        if level == 0 {
            tree.fragmentation = chain.fragmentation;
            if self.chains {
                tree.leaf_chain = order.iter().copied().map(PageNo).collect();
            }
        }
        if next_children.is_none() && level > 0 {
            tree.node_ptrs_checked = false;
        }
        next_children
    }

    /// The chain of one level: the root alone at the root's level, else
    /// the lane walk or (when it gives up, or the order is to be `keep`t)
    /// the exact walk. `None` for a level with no page, reported and noted
    /// in `tree`.
    fn level_chain(
        &mut self,
        r: TreeRoot,
        level: u16,
        count: u32,
        keep: bool,
        tree: &mut IndexTree,
    ) -> Option<Chain> {
        if level == r.level {
            // The root alone (it has no siblings by construction).
            let fresh = self.visit_root(r.page.0);
            return Some(Chain {
                reached: u32::from(fresh),
                leftmost: fresh.then_some(r.page.0),
                order: Some(if fresh { vec![r.page.0] } else { Vec::new() }),
                fragmentation: Fragmentation::default(),
            });
        }
        if count == 0 {
            self.push(
                r.page,
                LEVEL_AT,
                BtreeProblem::MissingLevel {
                    index: r.index,
                    level,
                },
            );
            tree.levels.push(LevelInfo {
                level,
                pages: 0,
                reached: 0,
                leftmost: None,
                sums: LevelFigures::default(),
                order: Fragmentation::default(),
            });
            tree.node_ptrs_checked = false;
            return None;
        }
        Some(
            match (!keep).then(|| self.lane_walk(r.pos, level)).flatten() {
                Some(chain) => chain,
                None => self.walk_level(r.pos, r.index, level, keep),
            },
        )
    }

    /// Takes the record findings of one level's pages, chain order first,
    /// then the pages the chain missed, and collects the node pointers the
    /// chain's pages name into `next` (dropped when one is not sound).
    fn level_records(
        &mut self,
        index: IndexId,
        level: u16,
        order: &[u32],
        unreached: &[u32],
        mut next: Option<Children>,
    ) -> Option<Children> {
        let needs_pages = !self.m.rec_findings.is_empty() || next.is_some();
        if needs_pages {
            for (k, &n) in order.iter().chain(unreached.iter()).enumerate() {
                let in_chain = k < order.len();
                let kids = if in_chain { next.as_mut() } else { None };
                let sound = self.page_records(index, PageNo(n), level, kids);
                if !sound && in_chain {
                    next = None;
                }
            }
        }
        next
    }

    /// Proves one level below the root whole without keeping anything per
    /// page, or gives up (`None`) for the exact walk ([`Walker::walk_level`])
    /// to find and report what is wrong.
    ///
    /// Whole means what the exact walk finds without a finding: from the
    /// one leftmost page, FIL_PAGE_NEXT leads through pages of the level
    /// only, each reached once and naming the page before it in
    /// FIL_PAGE_PREV, to FIL_NULL, after as many pages as the level has.
    ///
    /// How, with nothing per page: the chain is cut at sample pages (page
    /// numbers that are multiples of a spacing of at least 64) into
    /// stretches, each followed on its own from its sample page (or from
    /// the leftmost page) to the next sample page or FIL_NULL. [`LANES`]
    /// stretches are followed at once, so that the CPU waits for their
    /// pages' headers together: in key order, the pages of a level are
    /// scattered over the file, and one chain alone waits on every step.
    /// Then the stretches are joined from the leftmost page on; reaching
    /// FIL_NULL after `count` pages in all proves that no page was reached
    /// twice (a chain that comes back to a page never ends). At most
    /// [`MAX_STRETCHES`] stretches are kept.
    fn lane_walk(&self, pos: u32, level: u16) -> Option<Chain> {
        let l = self.level(pos, level)?;
        let (count, first, last) = (l.count, l.first, l.last);
        let &[head] = l.heads.as_slice() else {
            return None;
        };
        let slot = Slot::Member { pos, level };
        // A root visited earlier that is a page of this level: reported by
        // the exact walk.
        if self.roots_visited.iter().any(|&r| self.slot(r) == slot) {
            return None;
        }
        let every = (last.saturating_sub(first) / MAX_STRETCHES).max(64);
        let walk = LaneWalk {
            w: self,
            slot,
            count,
            every,
        };
        let head_sampled = head.is_multiple_of(every);
        let mut head_job = (!head_sampled).then_some(head);
        let mut sample = first.div_ceil(every).checked_mul(every);
        let mut head_stretch = None;
        let samples = last
            .checked_div(every)
            .unwrap_or(0)
            .saturating_sub(first.div_ceil(every))
            .saturating_add(1);
        let mut stretches: Vec<Stretch> = Vec::with_capacity(samples as usize);
        let mut lanes = [Lane::Idle; LANES];
        loop {
            let mut busy = false;
            for lane in &mut lanes {
                if matches!(lane, Lane::Idle) {
                    let start = match (head_job.take(), sample.filter(|&p| p <= last)) {
                        (Some(h), _) => h,
                        (None, Some(p)) => {
                            sample = p.checked_add(every);
                            p
                        }
                        (None, None) => continue,
                    };
                    *lane = Lane::At {
                        s: Stretch::from(start),
                        prev: None,
                        at: start,
                    };
                }
                let Lane::At { s, prev, at } = *lane else {
                    continue;
                };
                busy = true;
                *lane = match walk.step(s, prev, at)? {
                    Step::Go { s, prev, at } => Lane::At {
                        s,
                        prev: Some(prev),
                        at,
                    },
                    Step::End(st) if st.start == head && !head_sampled => {
                        head_stretch = Some(st);
                        Lane::Idle
                    }
                    Step::End(st) => {
                        stretches.push(st);
                        Lane::Idle
                    }
                    Step::Nothing => Lane::Idle,
                };
            }
            if !busy {
                break;
            }
            // The headers the lanes read next, asked for together (with
            // facts the steps read the heads the pass kept, not the pages).
            if self.facts.is_none() {
                for lane in &lanes {
                    if let Lane::At { at, .. } = *lane {
                        touch(self.ts, at);
                    }
                }
            }
        }
        stretches.sort_unstable_by_key(|s| s.start);
        let find = |n: u32| {
            let k = stretches.binary_search_by_key(&n, |s| s.start).ok()?;
            stretches.get(k).copied()
        };
        let mut at = if head_sampled {
            find(head)
        } else {
            head_stretch
        }?;
        let mut chain = Chain {
            reached: 0,
            leftmost: Some(head),
            order: None,
            fragmentation: Fragmentation::default(),
        };
        for _ in 0..=stretches.len() {
            chain.reached = chain.reached.saturating_add(at.reached);
            chain.fragmentation.add(&at.fragmentation);
            if at.end.is_null() {
                return (chain.reached == count).then_some(chain);
            }
            at = find(at.end.0)?;
        }
        None
    }

    /// Walks one level below the root from its leftmost page.
    fn walk_level(&mut self, pos: u32, index: IndexId, level: u16, keep: bool) -> Chain {
        let (count, first, heads) = match self.level(pos, level) {
            Some(l) => (l.count, l.first, l.heads.clone()),
            None => (0, 0, Vec::new()),
        };
        let start = match heads.first() {
            Some(&n) => n,
            None => {
                self.push(
                    PageNo(first),
                    FIL_PAGE_PREV,
                    BtreeProblem::NoLeftmost { index, level },
                );
                first
            }
        };
        for &n in heads.iter().skip(1) {
            self.push(
                PageNo(n),
                FIL_PAGE_PREV,
                BtreeProblem::ManyLeftmost { index, level },
            );
        }
        let mut chain = Chain {
            reached: 0,
            leftmost: None,
            order: keep.then(Vec::new),
            fragmentation: Fragmentation::default(),
        };
        if !self.visit(start) {
            return chain;
        }
        chain.reached = 1;
        chain.leftmost = Some(start);
        if let Some(o) = chain.order.as_mut() {
            o.push(start);
        }
        let n_pages = self.ts.n_pages();
        let mut cur = start;
        // Bound: each step reaches a page of the level not reached before
        // (or stops), and the level has `count` pages. The last page's
        // FIL_PAGE_NEXT is read too: it must be FIL_NULL.
        while chain.reached <= count {
            let Some([_, next]) = self.links(cur) else {
                break;
            };
            if next.is_null() {
                break;
            }
            let at = FIL_PAGE_NEXT;
            if next.0 >= n_pages {
                self.push(
                    PageNo(cur),
                    at,
                    BtreeProblem::NextPastFile { index, level, next },
                );
                break;
            }
            match self.slot(next.0) {
                Slot::Member { pos: p, level: l } if p == pos && l == level => {}
                Slot::Unreadable { pos: p } if p == pos => break,
                _ => {
                    self.push(
                        PageNo(cur),
                        at,
                        BtreeProblem::NextForeign { index, level, next },
                    );
                    break;
                }
            }
            if !self.visit(next.0) {
                self.push(PageNo(cur), at, BtreeProblem::Loop { index, level, next });
                break;
            }
            let prev = self.links(next.0).map_or(PageNo(0), |[prev, _]| prev);
            if prev.0 != cur {
                self.push(
                    next,
                    FIL_PAGE_PREV,
                    BtreeProblem::PrevMismatch {
                        index,
                        level,
                        prev,
                        expected: PageNo(cur),
                    },
                );
            }
            step(&mut chain.fragmentation, cur, next.0);
            chain.reached = chain.reached.saturating_add(1);
            if let Some(o) = chain.order.as_mut() {
                o.push(next.0);
            }
            cur = next.0;
        }
        chain
    }

    /// Reports page `n`'s record findings and collects its node pointers'
    /// children into `kids` (REDUNDANT non-leaf pages). False when the
    /// page's records could not be walked completely.
    fn page_records(
        &mut self,
        index: IndexId,
        n: PageNo,
        level: u16,
        kids: Option<&mut Children>,
    ) -> bool {
        let lo = self.m.rec_findings.partition_point(|&(p, _)| p < n.0);
        let hi = self.m.rec_findings.partition_point(|&(p, _)| p <= n.0);
        let base = self.ts.file_offset(n);
        for &(_, f) in self.m.rec_findings.get(lo..hi).unwrap_or(&[]) {
            self.findings.push(Finding {
                page: Some(n),
                file_offset: base.saturating_add(u64::from(f.page_offset)),
                kind: FindingKind::Btree(BtreeProblem::Records {
                    index,
                    problem: f.problem,
                }),
            });
        }
        if level == 0 {
            // Leaves have no node pointers; only the soundness of non-leaf
            // pages is asked for.
            return true;
        }
        let Some(w) = self.walked(n.0) else {
            return false;
        };
        if !w.sound() {
            return false;
        }
        let Some(kids) = kids else { return true };
        let Some(page) = self.ts.page_ref(n) else {
            return false;
        };
        let page = &*page;
        let Some(rp) = RecPage::new(page, self.ts.format().logical_size) else {
            return false;
        };
        // REDUNDANT node pointers, in key order.
        let Some(mut it) = rp.records(&mut self.rec_visited) else {
            return false;
        };
        while let Ok(Some(rec)) = it.next() {
            if !rec.is_user() {
                continue;
            }
            match rec.child_page(page) {
                Some(child) => kids.push((child.0, n.0, rec.origin)),
                None => return false,
            }
        }
        true
    }

    /// Compares the children named by the level above `level` with
    /// `level`'s chain `order`.
    fn match_children(
        &mut self,
        pos: u32,
        index: IndexId,
        level: u16,
        kids: &[(u32, u32, u16)],
        order: &[u32],
    ) {
        let parent_level = level.saturating_add(1);
        let mut good = true;
        for &(child, page, origin) in kids {
            let fits = matches!(
                self.slot(child),
                Slot::Member { pos: p, level: l } if p == pos && l == level
            );
            if !fits {
                self.push(
                    PageNo(page),
                    usize::from(origin),
                    BtreeProblem::BadChild {
                        index,
                        level: parent_level,
                        child: PageNo(child),
                    },
                );
                good = false;
            }
        }
        if !good {
            return;
        }
        for (k, &(child, page, origin)) in kids.iter().enumerate() {
            let found = order.get(k).copied();
            if found != Some(child) {
                match found {
                    Some(found) => self.push(
                        PageNo(page),
                        usize::from(origin),
                        BtreeProblem::ChildOrder {
                            index,
                            level: parent_level,
                            child: PageNo(child),
                            found: PageNo(found),
                        },
                    ),
                    None => self.push(
                        PageNo(page),
                        usize::from(origin),
                        BtreeProblem::ChildCount {
                            index,
                            level: parent_level,
                            pointers: u32::try_from(kids.len()).unwrap_or(u32::MAX),
                            pages: u32::try_from(order.len()).unwrap_or(u32::MAX),
                        },
                    ),
                }
                return;
            }
        }
        if kids.len() < order.len() {
            if let Some(&(_, page, origin)) = kids.last() {
                self.push(
                    PageNo(page),
                    usize::from(origin),
                    BtreeProblem::ChildCount {
                        index,
                        level: parent_level,
                        pointers: u32::try_from(kids.len()).unwrap_or(u32::MAX),
                        pages: u32::try_from(order.len()).unwrap_or(u32::MAX),
                    },
                );
            }
        }
    }
}

/// Chains followed at once by [`Walker::lane_walk`].
const LANES: usize = 32;

/// The most stretches [`Walker::lane_walk`] keeps for one level: their
/// spacing grows with the level's span of pages.
const MAX_STRETCHES: u32 = 1 << 10;

/// A piece of a level's chain: from `start` along FIL_PAGE_NEXT up to the
/// next sample page or FIL_NULL.
#[derive(Clone, Copy, Debug)]
struct Stretch {
    start: u32,
    /// The sample page the stretch runs into, or FIL_NULL.
    end: PageNo,
    /// Its pages (`end` not counted: it starts a stretch of its own).
    reached: u32,
    /// Its steps.
    fragmentation: Fragmentation,
}

impl Stretch {
    fn from(start: u32) -> Self {
        Stretch {
            start,
            end: PageNo(FIL_NULL),
            reached: 0,
            fragmentation: Fragmentation::default(),
        }
    }
}

/// One lane of [`Walker::lane_walk`].
#[derive(Clone, Copy, Debug)]
enum Lane {
    Idle,
    /// Page `at` is read next; `prev` is the stretch's page before it
    /// (`None` at the stretch's start).
    At {
        s: Stretch,
        prev: Option<u32>,
        at: u32,
    },
}

/// What one page read gives a lane.
enum Step {
    /// Read the next page.
    Go { s: Stretch, prev: u32, at: u32 },
    /// The stretch is followed to its end.
    End(Stretch),
    /// A sample page not of the level: no stretch starts there.
    Nothing,
}

/// What a lane walk checks its pages against.
struct LaneWalk<'w, 't, 'a, 'o> {
    w: &'w Walker<'t, 'a, 'o>,
    slot: Slot,
    /// The level's pages: no stretch is longer.
    count: u32,
    /// Sample pages are the multiples of `every`.
    every: u32,
}

impl LaneWalk<'_, '_, '_, '_> {
    /// Reads page `at` of stretch `s` (`prev` the page before it, `None`
    /// at the stretch's start); `None` when the level is not whole.
    fn step(&self, mut s: Stretch, prev: Option<u32>, at: u32) -> Option<Step> {
        let ts = self.w.ts;
        let [fil_prev, next] = self.w.links(at)?;
        if let Some(prev) = prev {
            if fil_prev.0 != prev {
                return None;
            }
            if at.is_multiple_of(self.every) {
                s.end = PageNo(at);
                return Some(Step::End(s));
            }
        }
        if self.w.slot(at) != self.slot {
            // A sample page elsewhere starts nothing; a chain that leaves
            // the level is not whole.
            return prev.is_none().then_some(Step::Nothing);
        }
        s.reached = s.reached.saturating_add(1);
        if s.reached > self.count {
            return None;
        }
        if next.is_null() {
            return Some(Step::End(s));
        }
        if next.0 >= ts.n_pages() {
            return None;
        }
        step(&mut s.fragmentation, at, next.0);
        Some(Step::Go {
            s,
            prev: at,
            at: next.0,
        })
    }
}

/// Loads the header of page `n` (both cache lines: the FIL header and
/// PAGE_LEVEL, PAGE_INDEX_ID), for a read soon after.
fn touch(ts: &Tablespace<'_>, n: u32) {
    if ts.source().is_some() {
        // A page read through a page source is transformed when read: a
        // touch would do the work twice.
        return;
    }
    if let Some(page) = ts.page(PageNo(n)) {
        std::hint::black_box((page.get(8).copied(), page.get(66).copied()));
    }
}

/// Adds the leaf-chain step `a → b` to `f`.
fn step(f: &mut Fragmentation, a: u32, b: u32) {
    f.steps = f.steps.saturating_add(1);
    if Some(b) != a.checked_add(1) {
        f.jumps = f.jumps.saturating_add(1);
    }
    if b > a {
        f.forward = f.forward.saturating_add(1);
    }
    f.distance = f.distance.saturating_add(u64::from(a.abs_diff(b)));
}

#[cfg(test)]
#[allow(
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic
)]
mod tests {
    use super::*;
    use crate::index::{PAGE_INDEX_ID, PAGE_N_RECS};
    use crate::record::tests::PageBuilder;
    use crate::record::RecProblem;
    use crate::{Options, FIL_NULL};

    const SIZE: usize = 16384;

    /// A space of `n` pages; pages get index pages through `put`.
    struct Space {
        data: Vec<u8>,
        owner: Vec<Option<IndexId>>,
    }

    impl Space {
        fn new(n: usize) -> Self {
            let mut s = Space {
                data: vec![0u8; SIZE * n],
                owner: vec![None; n],
            };
            for i in 0..n {
                s.data[i * SIZE + 4..i * SIZE + 8].copy_from_slice(&(i as u32).to_be_bytes());
            }
            s
        }

        /// Page `n`: an index page of `id` at `level` with siblings and
        /// `n_recs` records (REDUNDANT node pointers name `children`).
        #[allow(clippy::too_many_arguments)]
        fn put(
            &mut self,
            n: usize,
            id: u64,
            level: u16,
            prev: u32,
            next: u32,
            format: RecFormat,
            n_recs: usize,
            children: &[u32],
        ) {
            let mut b = PageBuilder::new(SIZE, format);
            b.level = level;
            for k in 0..n_recs.max(children.len()) {
                let o = b.push(0, &[4, 4]);
                if let Some(&c) = children.get(k) {
                    b.page[o + 4..o + 8].copy_from_slice(&c.to_be_bytes());
                }
            }
            let mut page = b.finish().to_vec();
            page[4..8].copy_from_slice(&(n as u32).to_be_bytes());
            page[8..12].copy_from_slice(&prev.to_be_bytes());
            page[12..16].copy_from_slice(&next.to_be_bytes());
            page[24..26].copy_from_slice(&17855u16.to_be_bytes());
            page[PAGE_HEADER + PAGE_INDEX_ID..PAGE_HEADER + PAGE_INDEX_ID + 8]
                .copy_from_slice(&id.to_be_bytes());
            self.data[n * SIZE..(n + 1) * SIZE].copy_from_slice(&page);
            self.owner[n] = Some(IndexId(id));
        }

        fn put16(&mut self, n: usize, at: usize, v: u16) {
            self.data[n * SIZE + at..n * SIZE + at + 2].copy_from_slice(&v.to_be_bytes());
        }
        fn put32(&mut self, n: usize, at: usize, v: u32) {
            self.data[n * SIZE + at..n * SIZE + at + 4].copy_from_slice(&v.to_be_bytes());
        }

        fn walk(&self, roots: &[(u64, u32)]) -> Btrees {
            self.walk_on(roots, 1)
        }

        /// The space, and the indexes of `roots`.
        fn open(&self, roots: &[(u64, u32)]) -> (Tablespace<'_>, Vec<IndexInfo>) {
            let ts = Tablespace::with_options(
                &self.data,
                Options {
                    page_size: Some(SIZE as u32),
                },
            )
            .unwrap();
            let infos = roots
                .iter()
                .map(|&(id, root)| IndexInfo {
                    index_id: IndexId(id),
                    root: PageNo(root),
                    height: 0,
                    leaf_seg: None,
                    internal_seg: None,
                    leaf_pages_used: 0,
                    internal_pages_used: 0,
                    reserved_pages: 0,
                    index_pages: 0,
                    leaf_n_recs: 0,
                })
                .collect();
            (ts, infos)
        }

        fn owner(&self, n: PageNo) -> Option<IndexId> {
            self.owner.get(n.0 as usize).copied().flatten()
        }

        fn walk_on(&self, roots: &[(u64, u32)], threads: usize) -> Btrees {
            let (ts, infos) = self.open(roots);
            Btrees::build_from(&ts, &Engine::new(threads), &infos, |n| self.owner(n))
        }

        /// The trees walked without kept chains (where levels may be
        /// proven by the lane walk) and with them (every level walked
        /// exactly; the chains then cleared), and whether the lane walk
        /// proved level 0 of the first index whole.
        fn walk_both(&self, roots: &[(u64, u32)]) -> (Btrees, Btrees, bool) {
            let (ts, infos) = self.open(roots);
            let engine = Engine::new(2);
            let owner = |n: PageNo| self.owner(n);
            let lane = Btrees::walk(&ts, &engine, &infos, owner, None, false);
            let mut exact = Btrees::walk(&ts, &engine, &infos, owner, None, true);
            for t in &mut exact.indexes {
                t.leaf_chain.clear();
            }
            let plan = MemberPlan::new(&ts, &infos);
            let mut m = fold_pages(&ts, &engine, || plan.fold(&owner)).m;
            m.finish(infos.len());
            let proven = Walker::new(&ts, plan.ids, &owner, None, m, false)
                .lane_walk(0, 0)
                .is_some();
            (lane, exact, proven)
        }
    }

    /// Index 7: root 3 (level 1, COMPACT) over leaves 10..610; `chains`
    /// are its leaf chains in order, a cyclic one closed on itself.
    fn leaf_space(chains: &[(&[u32], bool)]) -> Space {
        let mut s = Space::new(700);
        s.put(3, 7, 1, FIL_NULL, FIL_NULL, RecFormat::Compact, 4, &[]);
        for &(chain, cyclic) in chains {
            let n = chain.len();
            for (k, &p) in chain.iter().enumerate() {
                let (prev, next) = match (k, cyclic) {
                    (0, false) => (FIL_NULL, chain.get(1).copied().unwrap_or(FIL_NULL)),
                    (_, false) => (chain[k - 1], chain.get(k + 1).copied().unwrap_or(FIL_NULL)),
                    (_, true) => (chain[(k + n - 1) % n], chain[(k + 1) % n]),
                };
                s.put(p as usize, 7, 0, prev, next, RecFormat::Compact, 3, &[]);
            }
        }
        // A page of another index, for chains to stray into.
        s.put(650, 8, 0, FIL_NULL, FIL_NULL, RecFormat::Compact, 3, &[]);
        s
    }

    #[test]
    fn lane_walk_proves_what_the_exact_walk_finds_sound() {
        // 600 leaves whose key order jumps across the file, over many
        // sample pages (multiples of 64).
        let order: Vec<u32> = (0..600u32).map(|k| 10 + (k * 97) % 600).collect();
        let sampled = |p: &u32| p.is_multiple_of(64);
        let check = |s: &Space, whole: bool, what: &str| {
            let (lane, exact, proven) = s.walk_both(&[(7, 3), (8, 650)]);
            assert_eq!(lane.findings, exact.findings, "{what}");
            assert_eq!(lane.indexes, exact.indexes, "{what}");
            assert_eq!(proven, whole, "{what}");
            assert_eq!(
                exact.findings.is_empty(),
                whole,
                "{what}: {:?}",
                exact.findings
            );
            lane
        };
        let sound = check(&leaf_space(&[(&order, false)]), true, "sound");
        let t = &sound.indexes[0];
        assert_eq!(t.leaves_reached(), 600);
        assert_eq!(t.fragmentation.steps, 599);
        let distance: u64 = order
            .windows(2)
            .map(|w| u64::from(w[0].abs_diff(w[1])))
            .sum();
        assert_eq!(t.fragmentation.distance, distance);

        // A loop apart from the chain, through sample pages and not.
        let (main, ring) = order.split_at(500);
        assert!(ring.iter().any(sampled));
        check(&leaf_space(&[(main, false), (ring, true)]), false, "ring");
        let (plain, marked): (Vec<u32>, Vec<u32>) = ring.iter().partition(|p| !sampled(p));
        let main2: Vec<u32> = main.iter().chain(&marked).copied().collect();
        check(
            &leaf_space(&[(&main2, false), (&plain, true)]),
            false,
            "ring without samples",
        );

        // One FIL_PAGE_PREV wrong, at a sample page and elsewhere.
        for at in [
            order.iter().position(sampled).unwrap(),
            order.iter().position(|p| !sampled(p)).unwrap() + 1,
        ] {
            let mut s = leaf_space(&[(&order, false)]);
            s.put32(order[at] as usize, FIL_PAGE_PREV, order[at + 1]);
            check(&s, false, "prev");
        }
        // FIL_PAGE_NEXT into another index, past the file, back to the
        // leftmost page; the last page's next not FIL_NULL.
        for (at, next) in [(300, 650), (301, 5000), (302, order[0]), (599, 650)] {
            let mut s = leaf_space(&[(&order, false)]);
            s.put32(order[at] as usize, FIL_PAGE_NEXT, next);
            check(&s, false, "next");
        }
    }

    #[test]
    fn same_trees_and_findings_at_any_thread_count() {
        // 300 pages, three shards of 128: root 3 over 280 leaves whose
        // chain jumps back and forth across the shards, some damaged.
        for format in [RecFormat::Compact, RecFormat::Redundant] {
            let leaves: Vec<u32> = (0..280u32).map(|k| 10 + (k * 97) % 280).collect();
            let mut s = Space::new(300);
            s.put(3, 7, 1, FIL_NULL, FIL_NULL, format, 0, &leaves);
            for (k, &n) in leaves.iter().enumerate() {
                let prev = if k == 0 { FIL_NULL } else { leaves[k - 1] };
                let next = leaves.get(k + 1).copied().unwrap_or(FIL_NULL);
                s.put(n as usize, 7, 0, prev, next, format, 5 + k % 7, &[]);
            }
            for &n in leaves.iter().step_by(37) {
                // PAGE_N_RECS wrong: a record finding on the page.
                s.put16(n as usize, PAGE_HEADER + PAGE_N_RECS, 99);
            }
            s.put32(leaves[200] as usize, FIL_PAGE_PREV, 5);
            let one = s.walk_on(&[(7, 3)], 1);
            assert!(one.findings.len() > 5, "{:?}", one.findings);
            assert_eq!(one.indexes[0].leaf_pages, 280);
            for threads in [2, 3, 7] {
                let many = s.walk_on(&[(7, 3)], threads);
                assert_eq!(many.indexes, one.indexes, "{threads} threads");
                assert_eq!(many.findings, one.findings, "{threads} threads");
            }
        }
    }

    /// Index 7: root 3 (level 1) over leaves 4 → 6 → 5 → 8; page 9 holds a
    /// single-page index 8.
    fn space(format: RecFormat) -> Space {
        let mut s = Space::new(10);
        s.put(3, 7, 1, FIL_NULL, FIL_NULL, format, 0, &[4, 6, 5, 8]);
        s.put(4, 7, 0, FIL_NULL, 6, format, 10, &[]);
        s.put(6, 7, 0, 4, 5, format, 11, &[]);
        s.put(5, 7, 0, 6, 8, format, 12, &[]);
        s.put(8, 7, 0, 5, FIL_NULL, format, 13, &[]);
        s.put(9, 8, 0, FIL_NULL, FIL_NULL, format, 3, &[]);
        s
    }

    fn problems(b: &Btrees) -> Vec<BtreeProblem> {
        b.findings
            .iter()
            .map(|f| match f.kind {
                FindingKind::Btree(p) => p,
                other => panic!("unexpected {other:?}"),
            })
            .collect()
    }

    #[test]
    fn clean_trees_of_both_formats() {
        for format in [RecFormat::Compact, RecFormat::Redundant] {
            let b = space(format).walk(&[(7, 3), (8, 9)]);
            assert_eq!(problems(&b), [], "{format:?}");
            let t = b.index(IndexId(7)).unwrap();
            assert_eq!(t.height, 2);
            assert_eq!(t.format, format);
            assert_eq!((t.pages, t.leaf_pages), (5, 4));
            assert_eq!((t.n_recs, t.n_recs_stated), (46, 46));
            assert_eq!(t.n_node_ptrs, 4);
            assert_eq!(
                t.leaf_chain,
                [4, 6, 5, 8].map(PageNo).to_vec(),
                "{format:?}"
            );
            let shape: Vec<(u16, u32, u32, Option<PageNo>)> = t
                .levels
                .iter()
                .map(|l| (l.level, l.pages, l.reached, l.leftmost))
                .collect();
            assert_eq!(
                shape,
                [(1, 1, 1, Some(PageNo(3))), (0, 4, 4, Some(PageNo(4)))]
            );
            // Per level: the root's 4 node pointers, the leaves' 46 records.
            let recs: Vec<(u32, u64, u64)> = t
                .levels
                .iter()
                .map(|l| (l.sums.pages, l.sums.records, l.sums.records_stated))
                .collect();
            assert_eq!(recs, [(1, 4, 4), (4, 46, 46)]);
            for l in &t.levels {
                assert!(l.sums.used_bytes > 0 && l.sums.used_bytes < l.sums.usable_bytes);
                assert_eq!(
                    l.sums.usable_bytes,
                    u64::from(l.sums.pages) * (SIZE as u64 - 38 - 56 - 8)
                );
            }
            // 4→6 jumps 2, 6→5 jumps 1 back, 5→8 jumps 3.
            let leaf = Fragmentation {
                steps: 3,
                jumps: 3,
                forward: 2,
                distance: 6,
            };
            assert_eq!(t.fragmentation, leaf);
            assert_eq!(t.levels[1].order, leaf);
            assert_eq!(t.levels[0].order, Fragmentation::default());
            assert_eq!(leaf.sequential(), 0);
            assert!((t.fragmentation.share() - 1.0).abs() < 1e-6);
            assert!((t.fragmentation.mean_distance() - 2.0).abs() < 1e-6);
            assert_eq!(t.leaf_fill_hist.iter().sum::<u32>(), 4);
            assert_eq!(t.leaf_fill_hist[0], 4);
            assert!(t.mean_leaf_fill > 0.0);
            assert_eq!(t.node_ptrs_checked, format == RecFormat::Redundant);
            assert!(t.complete);
            let one = b.index(IndexId(8)).unwrap();
            assert_eq!((one.height, one.n_recs, one.pages), (1, 3, 1));
            assert_eq!(one.fragmentation, Fragmentation::default());
        }
    }

    #[test]
    fn broken_sibling_links_are_findings() {
        let mut s = space(RecFormat::Compact);
        // 6.prev says 9 instead of 4.
        s.put32(6, FIL_PAGE_PREV, 9);
        let b = s.walk(&[(7, 3)]);
        assert_eq!(
            problems(&b),
            [BtreeProblem::PrevMismatch {
                index: IndexId(7),
                level: 0,
                prev: PageNo(9),
                expected: PageNo(4)
            }]
        );
        assert_eq!(b.findings[0].page, Some(PageNo(6)));
        assert_eq!(b.findings[0].file_offset, 6 * SIZE as u64 + 8);

        // A loop: 5.next = 6.
        let mut s = space(RecFormat::Compact);
        s.put32(5, FIL_PAGE_NEXT, 6);
        let b = s.walk(&[(7, 3)]);
        let p = problems(&b);
        assert_eq!(
            p[0],
            BtreeProblem::Loop {
                index: IndexId(7),
                level: 0,
                next: PageNo(6)
            }
        );
        assert_eq!(
            p[1],
            BtreeProblem::Unreached {
                index: IndexId(7),
                level: 0
            }
        );
        assert_eq!(b.findings[1].page, Some(PageNo(8)));
        let t = b.index(IndexId(7)).unwrap();
        assert_eq!(t.levels[1].reached, 3);
        // Page 8 still counts: it is in the index's segments.
        assert_eq!(t.n_recs, 46);

        // Next past the file, and next into another index.
        let mut s = space(RecFormat::Compact);
        s.put32(4, FIL_PAGE_NEXT, 1000);
        s.put32(5, FIL_PAGE_NEXT, 9);
        let b = s.walk(&[(7, 3), (8, 9)]);
        assert!(problems(&b).contains(&BtreeProblem::NextPastFile {
            index: IndexId(7),
            level: 0,
            next: PageNo(1000)
        }));

        // Two leftmost pages, and no leftmost page.
        let mut s = space(RecFormat::Compact);
        s.put32(5, FIL_PAGE_PREV, FIL_NULL);
        let p = problems(&s.walk(&[(7, 3)]));
        assert!(p.contains(&BtreeProblem::ManyLeftmost {
            index: IndexId(7),
            level: 0
        }));
        let mut s = space(RecFormat::Compact);
        s.put32(4, FIL_PAGE_PREV, 8);
        let p = problems(&s.walk(&[(7, 3)]));
        assert_eq!(
            p[0],
            BtreeProblem::NoLeftmost {
                index: IndexId(7),
                level: 0
            }
        );
    }

    #[test]
    fn level_problems_are_findings() {
        // No leaves under a level-1 root.
        let mut s = Space::new(5);
        s.put(3, 7, 1, FIL_NULL, FIL_NULL, RecFormat::Compact, 1, &[]);
        let b = s.walk(&[(7, 3)]);
        assert_eq!(
            problems(&b),
            [BtreeProblem::MissingLevel {
                index: IndexId(7),
                level: 0
            }]
        );
        // A page above the root.
        let mut s = space(RecFormat::Compact);
        s.put(9, 7, 2, FIL_NULL, FIL_NULL, RecFormat::Compact, 1, &[]);
        let p = problems(&s.walk(&[(7, 3)]));
        assert_eq!(
            p,
            [BtreeProblem::AboveRoot {
                index: IndexId(7),
                level: 2
            }]
        );
        // A root level past the bound: not walked.
        let mut s = space(RecFormat::Compact);
        s.put16(3, PAGE_HEADER + PAGE_LEVEL, 500);
        let b = s.walk(&[(7, 3)]);
        assert_eq!(
            problems(&b),
            [BtreeProblem::TooHigh {
                index: IndexId(7),
                level: 500
            }]
        );
        assert!(!b.indexes[0].complete);
    }

    #[test]
    fn redundant_node_pointers_are_matched() {
        // The root names 4, 5, 6, 8: 5 and 6 swapped against the chain.
        let mut s = space(RecFormat::Redundant);
        s.put(
            3,
            7,
            1,
            FIL_NULL,
            FIL_NULL,
            RecFormat::Redundant,
            0,
            &[4, 5, 6, 8],
        );
        let b = s.walk(&[(7, 3)]);
        let p = problems(&b);
        assert_eq!(
            p,
            [BtreeProblem::ChildOrder {
                index: IndexId(7),
                level: 1,
                child: PageNo(5),
                found: PageNo(6)
            }]
        );
        // The finding sits at the second node pointer's origin.
        assert_eq!(b.findings[0].page, Some(PageNo(3)));
        // A child that is not a leaf of the index, and a missing pointer.
        s.put(
            3,
            7,
            1,
            FIL_NULL,
            FIL_NULL,
            RecFormat::Redundant,
            0,
            &[4, 6, 9],
        );
        let p = problems(&s.walk(&[(7, 3), (8, 9)]));
        assert_eq!(
            p,
            [BtreeProblem::BadChild {
                index: IndexId(7),
                level: 1,
                child: PageNo(9)
            }]
        );
        s.put(
            3,
            7,
            1,
            FIL_NULL,
            FIL_NULL,
            RecFormat::Redundant,
            0,
            &[4, 6, 5],
        );
        let p = problems(&s.walk(&[(7, 3)]));
        assert_eq!(
            p,
            [BtreeProblem::ChildCount {
                index: IndexId(7),
                level: 1,
                pointers: 3,
                pages: 4
            }]
        );
    }

    #[test]
    fn record_problems_carry_page_and_offset() {
        let mut s = space(RecFormat::Compact);
        s.put16(5, PAGE_HEADER + crate::index::PAGE_N_RECS, 99);
        let b = s.walk(&[(7, 3)]);
        assert_eq!(
            problems(&b),
            [BtreeProblem::Records {
                index: IndexId(7),
                problem: RecProblem::NRecs {
                    stated: 99,
                    walked: 12
                }
            }]
        );
        assert_eq!(b.findings[0].file_offset, 5 * SIZE as u64 + 54);
        assert_eq!(problems(&b)[0].index(), IndexId(7));
        let t = b.index(IndexId(7)).unwrap();
        assert_eq!((t.n_recs, t.n_recs_stated), (46, 46 - 12 + 99));
        assert_eq!(
            b.findings[0].kind.to_string(),
            "index 7: PAGE_N_RECS is 99, but 12 records are chained"
        );
    }
}

/// Real files: `../shared/corpus` (when present; its manifest's leaf record
/// counts and heights) and `fixtures/` (the servers' own per-page figures
/// from INNODB_BUFFER_PAGE and row counts).
#[cfg(test)]
#[allow(
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic
)]
mod real_files {
    use super::*;
    use crate::extents::SpaceProblem;
    use crate::flst::page_readable;
    use crate::record::{RecCounts, RecWalk};
    use crate::PageType;
    use std::collections::BTreeMap;

    use crate::extents::corpus_tests::tsv;

    use crate::extents::corpus_tests::leaf_recs;

    /// Walks page `n` alone: its figures and its record problems.
    fn page_records(ts: &Tablespace<'_>, n: PageNo) -> (crate::PageRecords, Vec<RecFinding>) {
        let rp = RecPage::new(ts.page(n).unwrap(), ts.format().logical_size).unwrap();
        let mut out = Vec::new();
        let r = rp.analyse(&mut RecScratch::default(), &mut out);
        (r, out)
    }

    #[test]
    fn corpus_leaf_records_and_heights() {
        let Some(dir) = ibdscope_testkit::corpus() else {
            return;
        };
        let (mut files, mut indexes, mut walked_pages) = (0, 0, 0u32);
        for row in tsv(&dir.join("manifest.tsv")) {
            let what = &row["path"];
            let data = std::fs::read(dir.join(what)).unwrap();
            let ts = Tablespace::new(&data).unwrap();
            let map = SpaceMap::build(&ts, &Engine::default());
            let bt = Btrees::build(&ts, &Engine::default(), &map);
            files += 1;
            let shown: Vec<String> = bt
                .findings
                .iter()
                .map(|f| format!("{:?}+{}: {}", f.page, f.file_offset, f.kind))
                .collect();
            assert!(shown.is_empty(), "{what}: {shown:#?}");
            // Leaf records on freed pages (the manifest counts every level-0
            // INDEX page; docs/format.md §10), walked too.
            let mut stale: BTreeMap<u64, u64> = BTreeMap::new();
            for f in &map.findings {
                if let FindingKind::Space(SpaceProblem::FreePageWithData {
                    index, level: 0, ..
                }) = f.kind
                {
                    let (r, _) = page_records(&ts, f.page.unwrap());
                    *stale.entry(index.0).or_default() += u64::from(r.n_recs());
                }
            }
            for t in &bt.indexes {
                walked_pages += t.pages - t.compressed_pages;
                assert_eq!(t.n_recs, t.n_recs_stated, "{what}: index {}", t.index_id);
                assert!(t.complete, "{what}: index {}", t.index_id);
                assert_eq!(
                    t.levels.iter().map(|l| l.reached).sum::<u32>(),
                    t.pages,
                    "{what}: index {} pages reached",
                    t.index_id
                );
            }
            for (id, (n_recs, levels)) in leaf_recs(&row["leaf_n_recs_read"]) {
                let t = bt
                    .index(IndexId(id))
                    .unwrap_or_else(|| panic!("{what}: no tree for index {id}"));
                let stale = stale.get(&id).copied().unwrap_or(0);
                assert_eq!(t.n_recs + stale, n_recs, "{what}: index {id} leaf records");
                assert_eq!(t.height, levels, "{what}: index {id} height");
                indexes += 1;
                eprintln!(
                    "{what}: index {id}: {} leaf records (+{stale} on freed pages) = {n_recs}, \
                     height {levels}, {} pages ({} compressed), {} deleted, {} garbage, \
                     leaf fill {:.2}, jumps {}/{}",
                    t.n_recs,
                    t.pages,
                    t.compressed_pages,
                    t.n_deleted,
                    t.n_garbage_recs,
                    t.mean_leaf_fill,
                    t.fragmentation.jumps,
                    t.fragmentation.steps
                );
            }
        }
        eprintln!("{files} files, {indexes} indexes, {walked_pages} pages walked");
        assert!(
            files >= 27 && indexes >= 40,
            "{files} files, {indexes} indexes"
        );
    }

    #[test]
    fn fixture_pages_match_innodb_buffer_page() {
        let dir = ibdscope_testkit::fixtures();
        let mut by_file: BTreeMap<String, Vec<BTreeMap<String, String>>> = BTreeMap::new();
        for row in tsv(&dir.join("pages.tsv")) {
            by_file.entry(row["path"].clone()).or_default().push(row);
        }
        let (mut checked, mut redundant, mut compressed, mut decompressed) = (0, 0, 0, 0);
        for (path, rows) in &by_file {
            let data = std::fs::read(dir.join(path)).unwrap();
            let physical = Tablespace::new(&data).unwrap();
            // MariaDB page_compressed files are read through their logical
            // image, as the CLI's structure commands read them.
            let image = crate::pagecomp::applies(&physical)
                .then(|| crate::pagecomp::expand(&physical, &Engine::default()));
            let ts = image
                .as_ref()
                .map_or_else(|| physical.clone(), |e| e.tablespace(&physical));
            for row in rows.iter().filter(|r| r["page_type"] == "INDEX") {
                let n = PageNo(row["page_number"].parse().unwrap());
                let page = ts.page(n).unwrap();
                let on_disk = physical.page(n).unwrap();
                let t = FilHeader::new(on_disk).unwrap().page_type();
                // page_compressed (MariaDB) pages hold no readable records
                // on disk; their decompressed image does.
                if matches!(
                    t,
                    PageType::FIL_PAGE_PAGE_COMPRESSED
                        | PageType::FIL_PAGE_PAGE_COMPRESSED_ENCRYPTED
                        | PageType::FIL_PAGE_COMPRESSED
                        | PageType::FIL_PAGE_ENCRYPTED
                        | PageType::FIL_PAGE_COMPRESSED_AND_ENCRYPTED
                ) || t.0 & PageType::FCRC32_COMPRESSED_MARKER != 0
                {
                    assert!(!page_readable(&physical, on_disk), "{path} page {n}");
                    assert!(image.is_some(), "{path} page {n}: compressed, no image");
                    decompressed += 1;
                }
                assert!(page_readable(&ts, page), "{path} page {n}");
                let (r, out) = page_records(&ts, n);
                assert_eq!(out, [], "{path} page {n}");
                let want_recs: u32 = row["number_records"].parse().unwrap();
                let want_size: u32 = row["data_size"].parse().unwrap();
                assert_eq!(r.n_recs(), want_recs, "{path} page {n}: NUMBER_RECORDS");
                assert_eq!(r.data_size, want_size, "{path} page {n}: DATA_SIZE");
                match r.walk {
                    RecWalk::Compressed => compressed += 1,
                    RecWalk::Walked(RecCounts {
                        record_bytes,
                        user_complete,
                        free_complete,
                        ..
                    }) => {
                        assert!(user_complete && free_complete, "{path} page {n}");
                        if r.format == RecFormat::Redundant {
                            // The exact sum of record sizes is DATA_SIZE.
                            assert_eq!(record_bytes, Some(want_size), "{path} page {n}");
                            redundant += 1;
                        }
                    }
                }
                checked += 1;
            }
        }
        eprintln!(
            "{checked} INDEX pages match NUMBER_RECORDS and DATA_SIZE ({redundant} REDUNDANT \
             by exact record sizes, {compressed} ROW_FORMAT=COMPRESSED from their headers); \
             {decompressed} of them page_compressed on disk, read decompressed"
        );
        assert!(checked > 900 && redundant > 10 && compressed > 40 && decompressed > 20);
    }

    #[test]
    fn mutated_fixture_trees_never_panic() {
        let dir = ibdscope_testkit::fixtures();
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        let mut rnd = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for path in [
            "mysql56/secondary.ibd",
            "mysql56/rf_redundant.ibd",
            "mariadb1011-4k/ai_int.ibd",
        ] {
            let clean = std::fs::read(dir.join(path)).unwrap();
            let ts = Tablespace::new(&clean).unwrap();
            let size = ts.page_size() as usize;
            let map = SpaceMap::build(&ts, &Engine::default());
            let pages: Vec<usize> = map
                .indexes
                .iter()
                .map(|i| i.root.0 as usize)
                .chain((3..ts.n_pages() as usize).filter(|n| n % 2 == 1))
                .collect();
            for _ in 0..150 {
                let mut data = clean.clone();
                for _ in 0..(1 + rnd() % 6) {
                    let page = pages[(rnd() % pages.len() as u64) as usize];
                    // FIL prev/next, the index header, or anywhere.
                    let within = match rnd() % 3 {
                        0 => 8 + (rnd() % 8) as usize,
                        1 => 38 + (rnd() % 56) as usize,
                        _ => (rnd() % size as u64) as usize,
                    };
                    data[page * size + within] ^= 1 << (rnd() % 8);
                }
                // The space map is built from the clean file, so damage to
                // index pages is the B-tree walk's to find.
                let ts = Tablespace::new(&data).unwrap();
                let bt = Btrees::build_with_leaf_chains(&ts, &Engine::default(), &map);
                for t in &bt.indexes {
                    assert!(t.levels.len() as u32 <= BTREE_MAX_HEIGHT);
                    assert!(t.leaf_chain.len() as u32 <= ts.n_pages());
                    assert_eq!(t.leaf_chain.len() as u32, t.leaves_reached());
                }
                // Without the chains: the same trees and findings.
                let lean = Btrees::build(&ts, &Engine::default(), &map);
                assert_eq!(lean.findings, bt.findings);
                for (a, b) in lean.indexes.iter().zip(&bt.indexes) {
                    assert!(a.leaf_chain.is_empty());
                    assert_eq!(
                        a,
                        &IndexTree {
                            leaf_chain: Vec::new(),
                            ..b.clone()
                        }
                    );
                }
                for f in &bt.findings {
                    assert!(!f.kind.to_string().is_empty());
                }
            }
        }
    }

    #[test]
    fn fixture_trees_hold_every_row() {
        let dir = ibdscope_testkit::fixtures();
        let rows: BTreeMap<String, u64> = tsv(&dir.join("manifest.tsv"))
            .into_iter()
            .map(|r| (r["path"].clone(), r["rows"].parse().unwrap()))
            .collect();
        let mut files: BTreeMap<String, Vec<(u64, u32)>> = BTreeMap::new();
        for r in tsv(&dir.join("indexes.tsv")) {
            files.entry(r["path"].clone()).or_default().push((
                r["index_id"].parse().unwrap(),
                r["root_page"].parse().unwrap(),
            ));
        }
        let mut checked = 0;
        for (path, indexes) in &files {
            let data = std::fs::read(dir.join(path)).unwrap();
            let physical = Tablespace::new(&data).unwrap();
            // page_compressed files: their logical image.
            let image = crate::pagecomp::applies(&physical)
                .then(|| crate::pagecomp::expand(&physical, &Engine::default()));
            let ts = image
                .as_ref()
                .map_or_else(|| physical.clone(), |e| e.tablespace(&physical));
            let map = SpaceMap::build(&ts, &Engine::default());
            let bt = Btrees::build(&ts, &Engine::default(), &map);
            let shown: Vec<String> = bt
                .findings
                .iter()
                .map(|f| format!("{:?}: {}", f.page, f.kind))
                .collect();
            assert!(shown.is_empty(), "{path}: {shown:#?}");
            for &(id, root) in indexes {
                let t = bt
                    .index(IndexId(id))
                    .unwrap_or_else(|| panic!("{path}: no tree for {id}"));
                assert_eq!(t.root, PageNo(root), "{path}: index {id}");
                assert_eq!(
                    t.n_recs - t.n_deleted - t.n_metadata,
                    rows[path],
                    "{path}: index {id} rows"
                );
                assert_eq!(t.n_recs, t.n_recs_stated, "{path}: index {id}");
                assert!(t.complete, "{path}: index {id}");
                checked += 1;
            }
        }
        eprintln!("{checked} fixture indexes hold their table's rows");
        assert!(checked >= 40);
    }
}
