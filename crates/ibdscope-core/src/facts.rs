//! What the first pass over a transformed space keeps, so that no later
//! step transforms a page again: each page's head (the fields the space
//! map's index pass and the B-tree walks read), and the record walks of the
//! index pages summed per index id and level.
//!
//! A page_compressed or encrypted space is read through a page source
//! ([`crate::source`]): a page is decompressed or decrypted each time it is
//! read. Its transform pass (`pagecomp`, `crypt::mariadb`) reads every page
//! once anyway; it folds [`FactsShard`] beside, and the space's source keeps
//! the joined [`Facts`] ([`crate::Tablespace::pass_facts`]). The space map's
//! index pass, the B-trees' member pass and their walks along the chains
//! then read the heads, not the pages (`extents::Builder::index_pages`,
//! `btree::Members::from_facts`, `btree::Walker::head`): a page is
//! transformed again only when its contents are read (a root's records,
//! a REDUNDANT level's node pointers, a page summed here that the tree does
//! not count, `records` and `rows`' leaves).
//!
//! Memory: [`Packed`], 20 bytes per page (FIL_PAGE_PREV and FIL_PAGE_NEXT,
//! FIL_PAGE_TYPE, PAGE_N_RECS, PAGE_LEVEL, the bytes an index page uses,
//! the index id as a number into the table of the ids met, what the page
//! is), the only state kept per page; the sums are
//! per index and level (at most [`MAX_SUMS`] of them: past that the facts
//! are dropped and the passes read the pages), the record findings per
//! finding.

use crate::fil::FilHeader;
use crate::flst::page_readable;
use crate::ids::{IndexId, PageNo};
use crate::index::IndexHeader;
use crate::page_type::PageType;
use crate::record::{RecFinding, RecScratch};
use crate::source::PageSource;
use crate::space::Tablespace;
use crate::walk::{walk_records, LevelSums};

/// The facts and what they give, read through the space: kept here, above
/// the space and its page source (which hold the facts without knowing
/// their type), so that neither imports this module.
impl<'a> Tablespace<'a> {
    /// What the transform pass of this space's page source kept of every
    /// page ([`crate::facts`]), when it did: the space map's index pass and
    /// the B-trees read it instead of the pages.
    pub(crate) fn pass_facts(&self) -> Option<&'a Facts> {
        self.source()
            .and_then(PageSource::facts)
            .and_then(|f| f.downcast_ref::<Facts>())
    }

    /// Page `n`'s FIL_PAGE_TYPE and, for an index page with an index
    /// header, its fill from the header (`IndexHeader::usage`), as the
    /// page reads: from `facts` when given (what a pass over this space
    /// kept: the space map's first pass, or the transform pass of a page
    /// source; no page read or transformed again), else from the page.
    /// `None` past the last page, or for a page too short for a FIL header.
    pub(crate) fn type_and_fill_with(
        &self,
        facts: Option<&Facts>,
        n: PageNo,
    ) -> Option<(PageType, Option<f32>)> {
        let logical = self.format().logical_size;
        let fill = |h: Head| {
            let used = h.used.map(|u| crate::index::fill_of(u32::from(u), logical));
            (h.kind != Kind::Short).then_some((h.page_type, used))
        };
        if let Some(f) = facts {
            return f.head(n.0).and_then(fill);
        }
        let page = self.page_ref(n)?;
        fill(Head::read_with(self, &page, false))
    }
}

#[cfg(test)]
thread_local! {
    /// Set by a test: the space map keeps no facts (the passes read the
    /// pages, as they do when the facts are dropped).
    pub(crate) static OFF: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// The place of `id` in a table of index ids (`ids`, the last one met
/// first), added when new; `None` once the table holds `u16::MAX` ids.
pub(crate) fn id_place(ids: &mut Vec<IndexId>, id: IndexId) -> Option<u16> {
    if let Some(k) = ids.iter().rposition(|&i| i == id) {
        return u16::try_from(k).ok();
    }
    let k = u16::try_from(ids.len()).ok().filter(|&k| k < u16::MAX)?;
    ids.push(id);
    Some(k)
}

/// Whether the space map's first pass keeps the facts (always, but in the
/// tests that compare with the passes over the pages).
pub(crate) fn enabled() -> bool {
    #[cfg(test)]
    {
        !OFF.with(std::cell::Cell::get)
    }
    #[cfg(not(test))]
    {
        true
    }
}

/// What a page is, for the index pass and the tree walks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Kind {
    /// No FIL header (a short page).
    Short,
    /// A page of another type, or an index page without an index header.
    #[default]
    Other,
    /// Never written: FIL_PAGE_TYPE_ALLOCATED, LSN 0, all zero.
    Empty,
    /// An index page that cannot be read (encrypted or compressed as
    /// stored: [`page_readable`]).
    Unreadable,
    /// A readable index page.
    Index,
}

/// The fields of a page the space map's index pass and the B-tree walks
/// read ([`Head::read`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Head {
    pub(crate) kind: Kind,
    /// FIL_PAGE_PREV and FIL_PAGE_NEXT (not `Short`).
    pub(crate) prev: PageNo,
    pub(crate) next: PageNo,
    /// PAGE_INDEX_ID, PAGE_LEVEL and PAGE_N_RECS (`Index`).
    pub(crate) index_id: IndexId,
    pub(crate) level: u16,
    pub(crate) n_recs: u16,
    /// FIL_PAGE_TYPE (not `Short`).
    pub(crate) page_type: PageType,
    /// The bytes an index page uses from its header
    /// ([`IndexHeader::usage`]), readable or not.
    pub(crate) used: Option<u16>,
}

impl Head {
    /// What `page`, page `n` of `ts` as it reads, is.
    pub(crate) fn read(ts: &Tablespace<'_>, page: &[u8]) -> Head {
        Self::read_with(ts, page, true)
    }

    /// [`Head::read`]; `empty`: tell never-written pages apart (else
    /// `Other`: the tree walks do not ask, and it reads the whole page).
    pub(crate) fn read_with(ts: &Tablespace<'_>, page: &[u8], empty: bool) -> Head {
        let mut h = Head {
            kind: Kind::Short,
            prev: PageNo(0),
            next: PageNo(0),
            index_id: IndexId(0),
            level: 0,
            n_recs: 0,
            page_type: PageType(0),
            used: None,
        };
        let Some(fil) = FilHeader::new(page) else {
            return h;
        };
        h.kind = Kind::Other;
        h.prev = fil.prev();
        h.next = fil.next();
        let t = fil.page_type();
        h.page_type = t;
        if empty
            && t == PageType::FIL_PAGE_TYPE_ALLOCATED
            && fil.lsn().0 == 0
            && crate::checksum::is_empty_page(page)
        {
            h.kind = Kind::Empty;
            return h;
        }
        if !t.is_index(ts.type_names()) {
            return h;
        }
        let f = ts.format();
        h.used = IndexHeader::new(page)
            .map(|ih| u16::try_from(ih.usage(f.logical_size, f.is_zip()).used).unwrap_or(u16::MAX));
        if !page_readable(ts, page) {
            h.kind = Kind::Unreadable;
            return h;
        }
        if let Some(ih) = IndexHeader::new(page) {
            h.kind = Kind::Index;
            h.index_id = ih.index_id();
            h.level = ih.level();
            h.n_recs = ih.n_recs();
        }
        h
    }
}

/// A page's head as kept: 20 bytes.
#[derive(Clone, Copy, Debug)]
struct Packed {
    prev: u32,
    next: u32,
    n_recs: u16,
    level: u16,
    /// The index id's place in [`Facts::ids`] (`Index`).
    id: u16,
    page_type: u16,
    /// [`Head::used`] (`kind` has [`USED`]).
    used: u16,
    kind: u8,
}

/// The bit of [`Packed::kind`] saying [`Packed::used`] holds.
const USED: u8 = 0x80;

/// A page the pass did not read: a known-zero page (a hole of a sparse
/// file) reads as a never-written one.
const EMPTY: Packed = Packed {
    prev: 0,
    next: 0,
    n_recs: 0,
    level: 0,
    id: 0,
    page_type: 0,
    used: 0,
    kind: 2,
};

fn kind_of(k: u8) -> Kind {
    match k & !USED {
        0 => Kind::Short,
        2 => Kind::Empty,
        3 => Kind::Unreadable,
        4 => Kind::Index,
        _ => Kind::Other,
    }
}

fn kind_byte(k: Kind) -> u8 {
    match k {
        Kind::Short => 0,
        Kind::Other => 1,
        Kind::Empty => 2,
        Kind::Unreadable => 3,
        Kind::Index => 4,
    }
}

/// The most `(index id, level)` sums kept: past that (a damaged file
/// whose pages carry many ids or levels) the facts are dropped, and the
/// later passes read the pages.
const MAX_SUMS: usize = 4096;

/// The most pages a space may have for its facts to be kept (40 MiB of
/// heads): the heads are kept for every page, the holes of a sparse file
/// too, so a larger space (a file of terabytes apparent and a few pages of
/// data) is read by the passes over the pages, which fold a hole at once.
pub(crate) const MAX_PAGES: u32 = 1 << 21;

/// Sums of the record walks of the index pages of one id and level.
pub(crate) type IdSums = (IndexId, u16, LevelSums);

/// One shard's facts, folded in the transform pass or the space map's
/// first pass ([`FactsShard::page`]), in page order; shards are joined
/// with [`FactsShard::append`].
#[derive(Default)]
pub(crate) struct FactsShard {
    /// The heads alone: no record walks, no sums ([`Facts::walked`]).
    heads_only: bool,
    /// The first page folded.
    start: Option<u32>,
    heads: Vec<Packed>,
    /// The ids met, by their place.
    ids: Vec<IndexId>,
    /// Sorted by `(id, level)`.
    sums: Vec<IdSums>,
    findings: Vec<(u32, RecFinding)>,
    /// Too many ids or sums: the facts are dropped.
    over: bool,
    /// The space's pages, when known ([`FactsShard::sized`]): the joined
    /// heads are reserved for them at once, not grown shard by shard.
    total: u32,
    scratch: Option<Box<RecScratch>>,
    out: Vec<RecFinding>,
}

impl FactsShard {
    /// A shard's facts; `heads_only`: without the record walks (a space
    /// map that builds no B-trees).
    pub(crate) fn new(heads_only: bool) -> Self {
        FactsShard {
            heads_only,
            ..FactsShard::default()
        }
    }

    /// Folds page `n`, reading as `page` (the transformed page: what every
    /// later reader sees). Pages must come in order; a page not folded
    /// reads as never written (a known-zero page).
    pub(crate) fn page(&mut self, ts: &Tablespace<'_>, n: PageNo, page: &[u8]) {
        if self.over || n.0 >= ts.n_pages() {
            return;
        }
        if ts.n_pages() > MAX_PAGES {
            return self.give_up();
        }
        let start = *self.start.get_or_insert(n.0);
        let at = n.0.saturating_sub(start) as usize;
        if self.heads.len() < at {
            self.heads.resize(at, EMPTY);
        }
        let h = Head::read(ts, page);
        let mut p = Packed {
            prev: h.prev.0,
            next: h.next.0,
            n_recs: h.n_recs,
            level: h.level,
            id: 0,
            page_type: h.page_type.0,
            used: h.used.unwrap_or(0),
            kind: kind_byte(h.kind) | if h.used.is_some() { USED } else { 0 },
        };
        if h.kind == Kind::Index {
            let Some(id) = self.id_place(h.index_id) else {
                return self.give_up();
            };
            p.id = id;
            // A doublewrite buffer page is a copy of a page of some tree:
            // no tree counts it.
            if !self.heads_only && !ts.in_doublewrite(n) {
                let k = match self
                    .sums
                    .binary_search_by_key(&(h.index_id, h.level), |s| (s.0, s.1))
                {
                    Ok(k) => k,
                    Err(k) if self.sums.len() < MAX_SUMS => {
                        self.sums
                            .insert(k, (h.index_id, h.level, LevelSums::default()));
                        k
                    }
                    Err(_) => return self.give_up(),
                };
                let w = walk_records(ts, page, &mut self.scratch, &mut self.out);
                self.findings.extend(self.out.iter().map(|&f| (n.0, f)));
                if let Some(s) = self.sums.get_mut(k) {
                    s.2.merge(&LevelSums::one(&w));
                }
            }
        }
        self.heads.push(p);
    }

    /// The place of `id` in this shard's table (the last one met first).
    fn id_place(&mut self, id: IndexId) -> Option<u16> {
        id_place(&mut self.ids, id)
    }

    fn give_up(&mut self) {
        *self = FactsShard {
            heads_only: self.heads_only,
            over: true,
            ..FactsShard::default()
        };
    }

    /// The same shard, told the space's page count: joining reserves the
    /// heads of every page after this shard's first at once (one block,
    /// filled in place), where growing by doubling would copy them and
    /// touch twice the memory.
    pub(crate) fn sized(mut self, total: u32) -> Self {
        self.total = total;
        self
    }

    /// This shard folds every one of the space's `pages` pages: its heads
    /// are reserved for them at once ([`crate::parallel::PageFold::whole`]).
    pub(crate) fn whole(&mut self, pages: u32) {
        self.heads
            .reserve((pages as usize).saturating_sub(self.heads.len()));
    }

    /// Appends the facts of the pages after these (`next`, whose pages
    /// all come after this shard's).
    pub(crate) fn append(&mut self, mut next: FactsShard) {
        if self.over || next.over {
            return self.give_up();
        }
        let Some(next_start) = next.start else {
            return;
        };
        let Some(start) = self.start else {
            next.heads_only = self.heads_only;
            next.total = self.total;
            *self = next;
            return;
        };
        let at = next_start.saturating_sub(start) as usize;
        let want = at.saturating_add(next.heads.len());
        if self.heads.capacity() < want {
            let whole = self.total.saturating_sub(start) as usize;
            self.heads
                .reserve(want.max(whole).saturating_sub(self.heads.len()));
        }
        if self.heads.len() < at {
            self.heads.resize(at, EMPTY);
        }
        let mut places = Vec::with_capacity(next.ids.len());
        for &id in &next.ids {
            let Some(k) = self.id_place(id) else {
                return self.give_up();
            };
            places.push(k);
        }
        for mut p in next.heads {
            if kind_of(p.kind) == Kind::Index {
                p.id = places.get(usize::from(p.id)).copied().unwrap_or(0);
            }
            self.heads.push(p);
        }
        for (id, level, sums) in next.sums {
            match self.sums.binary_search_by_key(&(id, level), |s| (s.0, s.1)) {
                Ok(k) => {
                    if let Some(m) = self.sums.get_mut(k) {
                        m.2.merge(&sums);
                    }
                }
                Err(_) if self.sums.len() >= MAX_SUMS => return self.give_up(),
                Err(k) => self.sums.insert(k, (id, level, sums)),
            }
        }
        self.findings.append(&mut next.findings);
    }

    /// The facts of a space of `n_pages` pages, these shards' joined;
    /// `None` when a shard gave up.
    pub(crate) fn finish(self, n_pages: u32) -> Option<Facts> {
        if self.over {
            return None;
        }
        let start = self.start.unwrap_or(n_pages).min(n_pages) as usize;
        let mut heads = if start == 0 {
            // The usual case: the joined heads are the space's from its
            // first page, kept in place.
            self.heads
        } else {
            let mut heads = Vec::with_capacity(n_pages as usize);
            heads.resize(start, EMPTY);
            heads.extend(self.heads);
            heads
        };
        heads.resize(n_pages as usize, EMPTY);
        Some(Facts {
            walked: !self.heads_only,
            heads,
            ids: self.ids,
            sums: self.sums,
            findings: self.findings,
        })
    }
}

/// The facts of a whole space: every page's head, the record walks of its
/// index pages summed per id and level, their record findings.
pub(crate) struct Facts {
    /// The record walks were made ([`FactsShard::new`]): the B-trees can
    /// be read from these facts.
    walked: bool,
    heads: Vec<Packed>,
    ids: Vec<IndexId>,
    /// Sorted by `(id, level)`.
    sums: Vec<IdSums>,
    /// In page order.
    findings: Vec<(u32, RecFinding)>,
}

impl std::fmt::Debug for Facts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Facts")
            .field("pages", &self.heads.len())
            .field("ids", &self.ids.len())
            .field("walked", &self.walked)
            .finish_non_exhaustive()
    }
}

impl Facts {
    /// The facts as a page source holds them ([`PageSource::facts`]).
    pub(crate) fn boxed(self) -> Box<dyn std::any::Any + Send + Sync> {
        Box::new(self)
    }

    /// The facts of a space of `n_pages` pages from its shards' (in page
    /// order); `None` when a shard gave up.
    pub(crate) fn join(n_pages: u32, shards: impl Iterator<Item = FactsShard>) -> Option<Facts> {
        let mut all = FactsShard::default();
        for s in shards {
            all.append(s);
        }
        all.finish(n_pages)
    }

    /// Whether the record walks were made (the B-trees can be read from
    /// these facts).
    pub(crate) fn walked(&self) -> bool {
        self.walked
    }

    /// Page `n`'s head (`None` past the last page).
    pub(crate) fn head(&self, n: u32) -> Option<Head> {
        let p = self.heads.get(n as usize)?;
        let kind = kind_of(p.kind);
        Some(Head {
            kind,
            prev: PageNo(p.prev),
            next: PageNo(p.next),
            index_id: if kind == Kind::Index {
                self.ids.get(usize::from(p.id)).copied()?
            } else {
                IndexId(0)
            },
            level: p.level,
            n_recs: p.n_recs,
            page_type: PageType(p.page_type),
            used: (p.kind & USED != 0).then_some(p.used),
        })
    }

    /// Whether page `n` (of `ts`), whose head is `h`, was walked and
    /// summed here.
    pub(crate) fn summed(ts: &Tablespace<'_>, n: PageNo, h: &Head) -> bool {
        h.kind == Kind::Index && !ts.in_doublewrite(n)
    }

    /// The sums per `(index id, level)`, sorted.
    pub(crate) fn sums(&self) -> &[IdSums] {
        &self.sums
    }

    /// Where the sums of `(id, level)` are in [`Facts::sums`].
    pub(crate) fn sum_place(&self, id: IndexId, level: u16) -> Option<usize> {
        self.sums
            .binary_search_by_key(&(id, level), |s| (s.0, s.1))
            .ok()
    }

    /// The record findings of page `n`.
    pub(crate) fn findings(&self, n: u32) -> &[(u32, RecFinding)] {
        let lo = self.findings.partition_point(|&(p, _)| p < n);
        let hi = self.findings.partition_point(|&(p, _)| p <= n);
        self.findings.get(lo..hi).unwrap_or(&[])
    }

    /// Bytes kept (a test's measure).
    #[cfg(test)]
    pub(crate) fn bytes_per_page() -> usize {
        std::mem::size_of::<Packed>()
    }
}

#[cfg(test)]
#[allow(
    clippy::arithmetic_side_effects,
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::panic
)]
mod tests {
    use super::*;
    use crate::btree::Btrees;
    use crate::extents::SpaceMap;
    use crate::parallel::Engine;
    use crate::source::{PageSource, Scratch, Transform};

    /// A transform that reads every page as stored, copied: a space read
    /// through a page source without decompressing or decrypting.
    struct Copy;

    impl Transform for Copy {
        fn may_change(&self, _: PageNo, _: &[u8]) -> bool {
            true
        }
        fn apply(&self, _: PageNo, stored: &[u8], out: &mut [u8], _: &mut Scratch) {
            out.copy_from_slice(stored);
        }
    }

    /// The facts of `ts` as a transform pass of `shards` shards folds them.
    fn facts_of(ts: &Tablespace<'_>, shards: u32) -> Option<Facts> {
        let per = ts.n_pages().div_ceil(shards).max(1);
        let mut parts: Vec<FactsShard> = Vec::new();
        for (n, page) in ts.pages() {
            if n.0 % per == 0 {
                parts.push(FactsShard::new(false));
            }
            parts.last_mut().unwrap().page(ts, n, page);
        }
        Facts::join(ts.n_pages(), parts.into_iter())
    }

    /// The map and the trees (with and without the leaf chains, built with
    /// the map and apart) of `ts`, as text; `off`: the map keeps no facts.
    fn built(ts: &Tablespace<'_>, threads: usize, off: bool) -> String {
        OFF.with(|o| o.set(off));
        let e = Engine::new(threads);
        let map = SpaceMap::build(ts, &e);
        let trees = Btrees::build(ts, &e, &map);
        let (map2, _, chained) = SpaceMap::build_with_trees(ts, &e, None::<fn() -> ()>, true);
        let (map3, _) = SpaceMap::build_folding(ts, &e, || NoSide);
        let trees3 = Btrees::build_with_leaf_chains(ts, &e, &map3);
        OFF.with(|o| o.set(false));
        format!("{map:?}\n{trees:?}\n{map2:?}\n{chained:?}\n{map3:?}\n{trees3:?}")
    }

    struct NoSide;

    impl crate::parallel::PageFold for NoSide {
        fn page(&mut self, _: PageNo, _: &[u8]) {}
        fn append(&mut self, _: Self) {}
    }

    /// A space read as stored: once the space map's first pass has kept
    /// the facts, the B-trees' walks along the levels and the maps' type
    /// and fill per page (`extents`, `fill`, `compare`) read no page the
    /// pass kept: the pages read outside the fold (page 0, the XDES and
    /// INODE pages, the roots) lie in the first MiB of these 11 MiB files,
    /// so the space's window sees one chunk. Before, the lane walk read
    /// the header of every page it stepped to (a hint for the CPU cache)
    /// and the maps read every page's header again: every chunk.
    #[test]
    fn the_walks_and_the_maps_read_no_page_the_first_pass_kept() {
        struct Quiet;
        impl crate::window::Residency for Quiet {
            fn release(&self, _: usize, _: usize) {}
        }
        let dir = ibdscope_testkit::fixtures();
        for path in [
            "mysql56/uuid_char36_large.ibd",
            "mariadb1011/uuid_char36_large.ibd",
        ] {
            let data = std::fs::read(dir.join(path)).unwrap();
            for threads in [1, 3] {
                let window = crate::window::Window::new(data.len());
                let stored = Tablespace::new(&data).unwrap();
                let ts = stored.with_window(&window, &Quiet);
                let engine = Engine::new(threads);
                let (map, _, trees) = SpaceMap::build_with_trees(&ts, &engine, None::<fn()>, false);
                assert!(trees.findings.is_empty(), "{path}");
                let mut fill = 0.0f64;
                for n in 0..ts.n_pages() {
                    let (_, f) = map.type_and_fill(&ts, PageNo(n)).unwrap();
                    fill += f64::from(f.unwrap_or(0.0));
                }
                assert!(fill > 100.0, "{path}: {fill}");
                assert_eq!(
                    window.peak_chunks(),
                    1,
                    "{path} ({threads} threads): chunks read outside the pass"
                );
            }
        }
    }

    /// The space map and the B-trees read from the facts are the ones read
    /// from the pages, on the fixtures and on damaged copies of them
    /// (headers, links, records flipped), at 1 and 3 threads; the facts
    /// keep 20 bytes per page.
    #[test]
    fn the_facts_give_what_the_pages_give() {
        assert_eq!(Facts::bytes_per_page(), 20);
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
            "mariadb1011/uuid_char36.ibd",
        ] {
            let clean = std::fs::read(dir.join(path)).unwrap();
            let size = Tablespace::new(&clean).unwrap().page_size() as usize;
            for round in 0..40 {
                let mut data = clean.clone();
                if round > 0 {
                    let pages = data.len() / size;
                    for _ in 0..(1 + rnd() % 6) {
                        let mut page = 3 + (rnd() % (pages as u64 - 3)) as usize;
                        // FIL prev/next, the index header, anywhere, or
                        // page 0's first extent descriptors (a page of a
                        // tree then reads free, or of no segment).
                        let within = match rnd() % 4 {
                            0 => 8 + (rnd() % 8) as usize,
                            1 => 38 + (rnd() % 56) as usize,
                            2 => (rnd() % size as u64) as usize,
                            _ => {
                                page = 0;
                                150 + (rnd() % 160) as usize
                            }
                        };
                        data[page * size + within] ^= 1 << (rnd() % 8);
                    }
                }
                let ts = Tablespace::new(&data).unwrap();
                let plain = PageSource::new(Box::new(Copy), ts.page_size(), ts.n_pages());
                let facts = facts_of(&ts, 1 + round % 4);
                assert!(facts.is_some(), "{path} round {round}");
                let kept = PageSource::new(Box::new(Copy), ts.page_size(), ts.n_pages())
                    .with_facts(facts.map(crate::facts::Facts::boxed));
                let (a, b) = (ts.with_source(&plain), ts.with_source(&kept));
                assert!(a.pass_facts().is_none() && b.pass_facts().is_some());
                for n in 0..=ts.n_pages() {
                    let n = PageNo(n);
                    assert_eq!(
                        a.type_and_fill_with(a.pass_facts(), n),
                        b.type_and_fill_with(b.pass_facts(), n),
                        "{path} {n}"
                    );
                }
                for threads in [1, 3] {
                    let pages = built(&a, threads, true);
                    assert_eq!(
                        pages,
                        built(&b, threads, false),
                        "{path} round {round}, {threads} threads"
                    );
                    // As stored: the facts kept by the map's first pass.
                    assert_eq!(pages, built(&ts, threads, true), "{path} round {round}");
                    assert_eq!(
                        pages,
                        built(&ts, threads, false),
                        "{path} round {round}, {threads} threads, as stored"
                    );
                }
            }
        }
    }

    /// Counts the pages it transforms (copies).
    struct Counting(std::sync::Arc<std::sync::atomic::AtomicUsize>);

    impl Transform for Counting {
        fn may_change(&self, _: PageNo, _: &[u8]) -> bool {
            true
        }
        fn apply(&self, _: PageNo, stored: &[u8], out: &mut [u8], _: &mut Scratch) {
            self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            out.copy_from_slice(stored);
        }
    }

    /// A space read through a page source whose transform pass kept
    /// nothing (a MySQL keyring space: decrypted as it is read) has each
    /// page transformed once for the map, the summary folded beside it and
    /// the B-trees (the map's first pass keeps the facts, which the later
    /// passes and walks read), not once per pass; and the map, the trees
    /// and the summary are the ones read from the pages.
    #[test]
    fn a_space_read_through_a_source_is_transformed_once_for_the_map_and_trees() {
        use crate::summary::{Summary, SummaryFold};
        let dir = ibdscope_testkit::fixtures();
        for path in ["mysql56/secondary.ibd", "mariadb1011/uuid_char36.ibd"] {
            let data = std::fs::read(dir.join(path)).unwrap();
            let ts = Tablespace::new(&data).unwrap();
            for threads in [1, 3] {
                let calls = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
                let source = PageSource::new(
                    Box::new(Counting(calls.clone())),
                    ts.page_size(),
                    ts.n_pages(),
                );
                let read = ts.with_source(&source);
                let e = Engine::new(threads);
                let fold = Some(|| SummaryFold::new(&read));
                let (map, fold, chained) = SpaceMap::build_with_trees(&read, &e, fold, true);
                let trees = Btrees::build(&read, &e, &map);
                let n = calls.load(std::sync::atomic::Ordering::Relaxed);
                let pages = ts.n_pages() as usize;
                // Each page once, and the structure pages (page 0, the
                // XDES and INODE pages, the roots) kept once more.
                assert!(n <= pages + 16, "{path}: {n} transforms of {pages} pages");
                let e = Engine::new(threads);
                let (map2, _, chained2) =
                    SpaceMap::build_with_trees(&ts, &e, None::<fn() -> NoSide>, true);
                assert_eq!(format!("{map:?}"), format!("{map2:?}"), "{path}");
                assert_eq!(format!("{chained:?}"), format!("{chained2:?}"), "{path}");
                let trees2 = Btrees::build(&ts, &e, &map2);
                assert_eq!(format!("{trees:?}"), format!("{trees2:?}"), "{path}");
                assert_eq!(
                    format!("{:?}", fold.map(SummaryFold::finish)),
                    format!("{:?}", Some(Summary::of(&ts, &e))),
                    "{path}"
                );
            }
        }
    }
}
