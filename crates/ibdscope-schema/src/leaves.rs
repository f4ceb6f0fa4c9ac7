//! The leaves of one index in key order, past damage: what `rows` reads
//! when the leaf chain (FIL_PAGE_NEXT) does not reach every leaf.
//!
//! InnoDB keeps an index's leaves in key order twice: along the leaf
//! chain (FIL_PAGE_PREV / FIL_PAGE_NEXT, fil0types.h) and in the node
//! pointers of the level above, each naming a child page after the child's
//! lowest key when it was made, a lower bound of its keys (btr0btr.cc,
//! `btr_attach_half_pages`; dict0dict.cc `dict_index_build_node_ptr`: a node
//! pointer is the key fields then the 4-byte child page number). One
//! damaged leaf breaks the chain for every leaf after it, but not the
//! parents' pointers; so the order is read from the pointers first:
//!
//! | step | what | how sure |
//! |---|---|---|
//! | 1 | from the root down, level by level, every node pointer's child in record order | exact (`Placement::Pointer`): the server's own order |
//! | 2 | a child that is not a readable index page of this index at the level below is *lost*; its node pointer holds a lower bound of its keys | exact |
//! | 3 | below a lost non-leaf page (or a pointer that cannot be split) the leaves are unknown: the index's other allocated leaves (PAGE_INDEX_ID = the index, PAGE_LEVEL 0, the extent descriptor's free bit clear), cut into runs by mutual sibling links (`A.next = B` and `B.prev = A`), are ordered by their first record's key and put into the gap whose neighbours' keys enclose it | by key (`Placement::Key`, then `Chain` along a run): byte order of the stored key fields, exact for integer, date/time and binary keys, approximate for text in case-insensitive collations |
//! | 4 | an allocated leaf of the index that no pointer names and no gap takes is *unlinked* (a page of an operation the file does not finish, or a stale copy); a leaf whose extent descriptor says free is *freed* (a merge let go of it) | neither is part of the tree: their records are not live rows |
//!
//! Bounds: every page is placed at most once (a bitmap over the file's
//! pages; a page named twice is a problem), at most
//! [`ibdscope_core::btree::BTREE_MAX_HEIGHT`] levels, the runs of step 3 follow
//! sibling links only between candidate pages, each at most once.
//! Memory: one entry per page of the index (a page number and a tag), one
//! key per run of step 3; nothing per record.

use crate::row::{split, Field};
use crate::table::RecordLayout;
use ibdscope_core::btree::BTREE_MAX_HEIGHT;
use ibdscope_core::fil::FilHeader;
use ibdscope_core::index::IndexHeader;
use ibdscope_core::record::Visited;
use ibdscope_core::{
    fold_pages, Engine, IndexId, PageFold, PageNo, RecPage, Tablespace, TypeNames, FIL_NULL,
};
use std::fmt;

/// How a leaf's place in key order was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placement {
    /// Named by a node pointer of a readable parent: exact.
    Pointer,
    /// Linked (both ways) to the leaf before it, which was placed by key.
    Chain,
    /// By its first record's key, into the gap left by a lost non-leaf
    /// page.
    Key,
}

impl Placement {
    /// The word for output.
    pub fn word(self) -> &'static str {
        match self {
            Placement::Pointer => "pointer",
            Placement::Chain => "chain",
            Placement::Key => "key",
        }
    }
}

/// A record's place: the page and the record's origin.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecAt {
    /// The page.
    pub page: PageNo,
    /// The record's origin in the page.
    pub origin: u16,
}

/// Why a page a node pointer names is not a leaf (or node) that can be
/// read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum NoPage {
    /// Past the end of the file.
    PastFile,
    /// Every byte is zero.
    AllZero,
    /// Not an index page (its FIL_PAGE_TYPE), or encrypted / compressed.
    NotIndex(u16),
    /// An index page of another index.
    OtherIndex(IndexId),
    /// An index page of this index at another level.
    Level(u16),
    /// The page's node pointers could not be read from here on (a record
    /// that does not split, a broken record chain, a compressed page).
    Pointers,
}

impl fmt::Display for NoPage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            NoPage::PastFile => f.write_str("past the end of the file"),
            NoPage::AllZero => f.write_str("all zero"),
            NoPage::NotIndex(t) => write!(f, "not an index page (type {t})"),
            NoPage::OtherIndex(i) => write!(f, "a page of index {i}"),
            NoPage::Level(l) => write!(f, "a page at level {l}"),
            NoPage::Pointers => f.write_str("its node pointers cannot be read from there on"),
        }
    }
}

/// One place in key order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slot {
    /// A readable leaf of the index.
    Leaf {
        /// The page.
        page: PageNo,
        /// How its place was found.
        placement: Placement,
    },
    /// A page the tree names there that cannot be read: at level 0 its
    /// rows are lost; above, the leaves below it are looked for by key.
    Lost {
        /// The page.
        page: PageNo,
        /// The level it should have.
        level: u16,
        /// The node pointer naming it (a lower bound of its keys), when read.
        low: Option<RecAt>,
        /// Why it cannot be read.
        why: NoPage,
    },
}

/// Something wrong the walk met, besides lost pages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum LeafProblem {
    /// A page named by a second node pointer (kept at its first place).
    Twice {
        /// The page.
        page: PageNo,
        /// The page holding the second pointer.
        parent: PageNo,
    },
    /// More levels than a B-tree can have: the walk stopped.
    TooDeep {
        /// The root.
        root: PageNo,
    },
}

impl fmt::Display for LeafProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            LeafProblem::Twice { page, parent } => write!(
                f,
                "page {page} is named by a second node pointer (on page {parent}): read once"
            ),
            LeafProblem::TooDeep { root } => {
                write!(
                    f,
                    "the tree under root {root} is deeper than a B-tree can be"
                )
            }
        }
    }
}

/// The leaves of one index in key order, with the lost pages in their
/// places, and the index's leaves that are not part of the tree.
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct LeafOrder {
    /// Leaves and lost pages in key order.
    pub slots: Vec<Slot>,
    /// Allocated leaves of the index (PAGE_INDEX_ID, level 0, the extent
    /// descriptor's free bit clear) that no pointer names and no gap
    /// takes, in page order.
    pub unlinked: Vec<PageNo>,
    /// Leaves of the index whose extent descriptor says free, in page
    /// order.
    pub freed: Vec<PageNo>,
    /// Problems besides lost pages.
    pub problems: Vec<LeafProblem>,
}

impl LeafOrder {
    /// The lost pages at level 0 (their rows are missing).
    pub fn lost_leaves(&self) -> impl Iterator<Item = &Slot> {
        self.slots
            .iter()
            .filter(|s| matches!(s, Slot::Lost { level: 0, .. }))
    }
}

/// A bitmap over the file's pages.
struct PageSet(Vec<u64>);

impl PageSet {
    fn new(n_pages: u32) -> Self {
        PageSet(vec![0; (n_pages as usize).div_ceil(64)])
    }
    /// Adds `n`; false when it was there already or is outside the file.
    fn insert(&mut self, n: PageNo) -> bool {
        let i = n.0 as usize;
        match self.0.get_mut(i / 64) {
            Some(w) => {
                let bit = 1u64 << (i % 64);
                let new = *w & bit == 0;
                *w |= bit;
                new
            }
            None => false,
        }
    }
    fn contains(&self, n: PageNo) -> bool {
        let i = n.0 as usize;
        self.0
            .get(i / 64)
            .is_some_and(|w| w & (1u64 << (i % 64)) != 0)
    }
}

/// The leaf pages of one index, by their headers (one pass over the file).
struct LeafScan {
    index: IndexId,
    names: TypeNames,
    found: Vec<PageNo>,
}

impl PageFold for LeafScan {
    fn page(&mut self, n: PageNo, page: &[u8]) {
        let is_index = FilHeader::new(page).is_some_and(|h| h.page_type().is_index(self.names));
        if !is_index {
            return;
        }
        if let Some(h) = IndexHeader::new(page) {
            if h.index_id() == self.index && h.level() == 0 {
                self.found.push(n);
            }
        }
    }
    fn append(&mut self, next: Self) {
        self.found.extend(next.found);
    }
}

/// Why page `n` is not a readable index page of `index` at `level`, or
/// its view.
fn node<'t>(
    ts: &Tablespace<'t>,
    n: PageNo,
    index: IndexId,
    level: u16,
) -> Result<RecPage<'t>, NoPage> {
    let Some(bytes) = ts.page(n) else {
        return Err(NoPage::PastFile);
    };
    let rp = match RecPage::of(ts, n) {
        Ok(rp) => rp,
        Err(_) if bytes.iter().all(|&b| b == 0) => return Err(NoPage::AllZero),
        Err(_) => {
            let t = FilHeader::new(bytes).map_or(0, |h| h.page_type().0);
            return Err(NoPage::NotIndex(t));
        }
    };
    let h = rp.header();
    if h.index_id() != index {
        return Err(NoPage::OtherIndex(h.index_id()));
    }
    if h.level() != level {
        return Err(NoPage::Level(h.level()));
    }
    Ok(rp)
}

/// The first or last user record of a readable page, bounded by the
/// records the page holds.
pub fn edge_record(
    rp: &RecPage<'_>,
    last: bool,
    visited: &mut Visited,
) -> Option<ibdscope_core::Rec> {
    let mut it = rp.records(visited)?;
    let mut found = None;
    while let Ok(Some(rec)) = it.next() {
        if !rec.is_user() || (rec.header.is_min_rec() && rp.is_leaf()) {
            continue;
        }
        found = Some(rec);
        if !last {
            break;
        }
    }
    found
}

/// The key fields of a split record, encoded so that comparing the bytes
/// compares the fields in order (NULL first; each field's bytes with 0x00
/// escaped as 0x00 0xFF and ended by 0x00 0x00), into `out`.
fn encode_key(page: &[u8], fields: &[Field], n_key: usize, out: &mut Vec<u8>) {
    out.clear();
    for f in fields.iter().take(n_key) {
        match f.local(page) {
            None => out.push(0),
            Some(b) => {
                out.push(1);
                for &x in b {
                    out.push(x);
                    if x == 0 {
                        out.push(0xFF);
                    }
                }
                out.extend_from_slice(&[0, 0]);
            }
        }
    }
}

/// The encoded key of the first (or last) user record of readable leaf
/// `n`, into `out`; false when there is none.
fn page_key(
    ts: &Tablespace<'_>,
    n: PageNo,
    last: bool,
    layout: &RecordLayout,
    scratch: &mut (Visited, Vec<Field>),
    out: &mut Vec<u8>,
) -> bool {
    let Ok(rp) = RecPage::of(ts, n) else {
        return false;
    };
    let Some(rec) = edge_record(&rp, last, &mut scratch.0) else {
        return false;
    };
    if split(&rp, &rec, layout, &mut scratch.1).is_err() {
        return false;
    }
    encode_key(rp.bytes(), &scratch.1, layout.n_unique, out);
    true
}

/// The leaves of the index whose root is `root` (PAGE_INDEX_ID `index`)
/// in key order, node pointers split with `layout`; see the module
/// documentation. The pass that finds the index's other leaves runs on
/// `engine`. Never panics; bounded.
pub fn leaves_in_key_order(
    ts: &Tablespace<'_>,
    engine: &Engine<'_>,
    root: PageNo,
    index: IndexId,
    layout: &RecordLayout,
) -> LeafOrder {
    let mut out = LeafOrder::default();
    let mut placed = PageSet::new(ts.n_pages());
    let mut visited = Visited::new();
    let mut fields = Vec::new();

    // Step 1 and 2: level by level from the root, in node pointer order.
    let root_level = match RecPage::of(ts, root) {
        Ok(rp) if rp.header().index_id() == index => rp.header().level(),
        _ => 0,
    };
    let mut level_slots: Vec<Slot> = match node(ts, root, index, root_level) {
        Ok(_) => vec![Slot::Leaf {
            page: root,
            placement: Placement::Pointer,
        }],
        Err(why) => vec![Slot::Lost {
            page: root,
            level: root_level,
            low: None,
            why,
        }],
    };
    placed.insert(root);
    if u32::from(root_level) >= BTREE_MAX_HEIGHT {
        out.problems.push(LeafProblem::TooDeep { root });
        level_slots.clear();
    }
    let mut level = root_level;
    while level > 0 {
        let below = level.saturating_sub(1);
        let mut next: Vec<Slot> = Vec::new();
        for slot in &level_slots {
            let page = match *slot {
                Slot::Leaf { page, .. } => page,
                lost @ Slot::Lost { .. } => {
                    // Its children are unknown: the gap stays marked by the
                    // lost page itself.
                    next.push(lost);
                    continue;
                }
            };
            let Ok(rp) = node(ts, page, index, level) else {
                continue;
            };
            let mut broke = rp.is_compressed();
            if let Some(mut it) = rp.records(&mut visited).filter(|_| !broke) {
                loop {
                    let rec = match it.next() {
                        Ok(Some(rec)) => rec,
                        Ok(None) => break,
                        Err(_) => {
                            broke = true;
                            break;
                        }
                    };
                    if !rec.is_user() {
                        continue;
                    }
                    let child = match split(&rp, &rec, layout, &mut fields) {
                        Ok(info) => info.child,
                        Err(_) => None,
                    };
                    let Some(child) = child else {
                        broke = true;
                        break;
                    };
                    let low = Some(RecAt {
                        page,
                        origin: rec.origin,
                    });
                    if !placed.insert(child) {
                        out.problems.push(LeafProblem::Twice {
                            page: child,
                            parent: page,
                        });
                        continue;
                    }
                    next.push(match node(ts, child, index, below) {
                        Ok(_) => Slot::Leaf {
                            page: child,
                            placement: Placement::Pointer,
                        },
                        Err(why) => Slot::Lost {
                            page: child,
                            level: below,
                            low,
                            why,
                        },
                    });
                }
            } else {
                broke = true;
            }
            if broke {
                next.push(Slot::Lost {
                    page,
                    level,
                    low: None,
                    why: NoPage::Pointers,
                });
            }
        }
        level_slots = next;
        level = below;
    }

    // The index's other leaves: allocated (free bit clear) or freed.
    let scan = fold_pages(ts, engine, || LeafScan {
        index,
        names: ts.type_names(),
        found: Vec::new(),
    });
    let mut candidates = Vec::new();
    for n in scan.found {
        if placed.contains(n) {
            continue;
        }
        if ts.is_free(n) == Some(true) {
            out.freed.push(n);
        } else {
            candidates.push(n);
        }
    }

    // Step 3: the gaps below lost non-leaf pages.
    let has_gap = level_slots
        .iter()
        .any(|s| matches!(s, Slot::Lost { level, .. } if *level > 0));
    if !has_gap || candidates.is_empty() {
        out.slots = level_slots;
        out.unlinked = candidates;
        return out;
    }
    let runs = runs_by_key(ts, &candidates, layout, &mut visited, &mut fields);
    let mut taken = vec![false; runs.len()];
    let mut scratch = (visited, fields);
    let mut bound = Vec::new();
    let mut slots = Vec::with_capacity(level_slots.len());
    for (k, slot) in level_slots.iter().enumerate() {
        slots.push(*slot);
        if !matches!(slot, Slot::Lost { level, .. } if *level > 0) {
            continue;
        }
        // The keys around the gap: the last key of the readable leaf
        // before it, the first of the one after it.
        let neighbour = |from_end: bool| {
            let mut it: Box<dyn Iterator<Item = &Slot>> = if from_end {
                Box::new(level_slots.get(..k).unwrap_or(&[]).iter().rev())
            } else {
                Box::new(level_slots.get(k.saturating_add(1)..).unwrap_or(&[]).iter())
            };
            it.find_map(|s| match *s {
                Slot::Leaf { page, .. } => Some(page),
                Slot::Lost { .. } => None,
            })
        };
        let lower = neighbour(true).and_then(|p| {
            let mut b = Vec::new();
            page_key(ts, p, true, layout, &mut scratch, &mut b).then_some(b)
        });
        let upper = match neighbour(false) {
            Some(p) => page_key(ts, p, false, layout, &mut scratch, &mut bound).then_some(&bound),
            None => None,
        };
        for (r, run) in runs.iter().enumerate() {
            let fits =
                lower.as_ref().is_none_or(|l| run.key > *l) && upper.is_none_or(|u| run.key < *u);
            if !fits || taken.get(r).copied().unwrap_or(true) {
                continue;
            }
            if let Some(t) = taken.get_mut(r) {
                *t = true;
            }
            for (i, &page) in run.pages.iter().enumerate() {
                slots.push(Slot::Leaf {
                    page,
                    placement: if i == 0 {
                        Placement::Key
                    } else {
                        Placement::Chain
                    },
                });
            }
        }
    }
    for (run, _) in runs.iter().zip(&taken).filter(|(_, t)| !**t) {
        out.unlinked.extend_from_slice(&run.pages);
    }
    out.unlinked.sort_unstable();
    out.slots = slots;
    out
}

/// A run of leaves linked both ways, and its first record's key.
struct Run {
    key: Vec<u8>,
    pages: Vec<PageNo>,
}

/// `candidates` (in page order) cut into runs by mutual sibling links,
/// sorted by their first key (a run without a readable key sorts first).
fn runs_by_key(
    ts: &Tablespace<'_>,
    candidates: &[PageNo],
    layout: &RecordLayout,
    visited: &mut Visited,
    fields: &mut Vec<Field>,
) -> Vec<Run> {
    let is_candidate = |n: PageNo| candidates.binary_search(&n).is_ok();
    let sib = |n: PageNo| {
        ts.page(n)
            .and_then(FilHeader::new)
            .map_or((PageNo(FIL_NULL), PageNo(FIL_NULL)), |h| {
                (h.prev(), h.next())
            })
    };
    // A run starts at a page whose predecessor does not link back to it.
    let linked = |a: PageNo, b: PageNo| sib(a).1 == b && sib(b).0 == a;
    let mut used = PageSet::new(ts.n_pages());
    let mut runs = Vec::new();
    let starts = candidates
        .iter()
        .filter(|&&n| {
            let prev = sib(n).0;
            !(is_candidate(prev) && linked(prev, n))
        })
        .chain(candidates.iter());
    let mut scratch = (std::mem::take(visited), std::mem::take(fields));
    for &start in starts {
        if !used.insert(start) {
            continue;
        }
        let mut pages = vec![start];
        let mut cur = start;
        // At most every candidate once (the bitmap).
        loop {
            let next = sib(cur).1;
            if !is_candidate(next) || !linked(cur, next) || !used.insert(next) {
                break;
            }
            pages.push(next);
            cur = next;
        }
        let mut key = Vec::new();
        let _ = pages
            .iter()
            .any(|&p| page_key(ts, p, false, layout, &mut scratch, &mut key));
        runs.push(Run { key, pages });
    }
    (*visited, *fields) = scratch;
    runs.sort_by(|a, b| a.key.cmp(&b.key));
    runs
}
