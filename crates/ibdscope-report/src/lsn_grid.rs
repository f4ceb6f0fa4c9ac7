//! The LSN map's model, shared by `lsn` and `compare`: how recently each
//! page was written, from the LSN in its FIL header (FIL_PAGE_LSN), folded
//! in one pass on the scan engine (`fold_pages`, shards joined in page
//! order) into a bounded grid (the mean LSN of a cell when cells hold
//! several pages, summed exactly), an exact power-of-two-bin histogram of
//! at most [`BINS`] bins, and one of at most [`SCALE_BINS`] bins with each
//! bin's smallest and largest LSN (the colour scale); nothing is kept per
//! page. Also the map's glyphs, classes and colour scale, as `lsn` and
//! `compare` draw them. What `ibdscope lsn` prints is in `cmd::lsn`.

use crate::args::{LsnScale, LsnScaleKind, LsnScalePages};
use crate::json::Json;
use crate::maps::{self, MapScale, Style, TypesSeen};
use crate::text::count;
use ibdscope_core::checksum::{Scheme, Unverifiable};
use ibdscope_core::space::{page_facts, PageProblem};
use ibdscope_core::summary::SummaryFold;
use ibdscope_core::{
    fold_pages, Engine, FindingKind, PageFacts, PageFold, PageNo, Summary, Tablespace, TypeNames,
    Verdict,
};
use ibdscope_render::color::{
    ansi256_to_rgb, ramp, rgb_to_ansi256, DAMAGED_ANSI, LSN_FLOOR, UNVERIFIABLE_ANSI,
};
use ibdscope_render::{Cell, Class, Grid, HeatScale, Pow2Histogram, Ranks, Scale};
use std::io;

/// Bins of the LSN histogram, at most.
pub const BINS: usize = 64;
/// Bins of the histogram the colour scale is made of, at most (96 KiB a
/// shard).
pub const SCALE_BINS: usize = 4096;
/// The ranks of the ticks under the colour scale.
const TICK_RANKS: [f64; 5] = [0.0, 0.25, 0.5, 0.75, 1.0];
/// The class of damaged pages.
pub const DAMAGED: u16 = 0;
/// The class of encrypted pages (not verifiable without the key), as the
/// owner maps name them: `~`, the not-verifiable colour.
pub const ENCRYPTED: u16 = 1;

/// The LSN facts of one file.
pub struct LsnFacts {
    /// Raw LSNs (cell means) as heat; damaged pages as class 0.
    pub grid: Grid,
    /// Non-zero LSNs of undamaged pages.
    pub hist: Pow2Histogram,
    /// The colour scale: how, and of which pages.
    pub how: LsnScale,
    /// Non-zero LSNs of the undamaged pages the scale is made of, finely.
    pub scale_hist: Pow2Histogram,
    /// Their ranks.
    pub ranks: Ranks,
    /// Pages with LSN 0 (and no problem).
    pub zero: u64,
    /// Damaged pages with their problems.
    pub damaged: Vec<(PageNo, PageProblem)>,
    /// Damaged pages (a page may have several problems).
    pub n_damaged: u64,
    /// Encrypted pages, which cannot be verified without the key (their
    /// FIL header, LSN included, is stored in the clear).
    pub unverifiable: u64,
    /// Page types met (vendor guess).
    pub types: TypesSeen,
}

impl LsnFacts {
    /// One pass over `ts` on `engine` ([`fold_pages`]): the pages `scale`
    /// draws into its grid, their histograms and damage (the pages outside
    /// it are not read).
    #[cfg(test)]
    pub fn collect(
        ts: &Tablespace<'_>,
        engine: &Engine<'_>,
        scale: &MapScale,
        how: LsnScale,
    ) -> LsnFacts {
        Self::collect_judged(ts, engine, scale, how, None, None).0
    }

    /// [`LsnFacts::collect`] with the pages' verdicts from `made`, the
    /// summary of `ts` when it is made already, else from a summary folded
    /// in the same pass and returned (one pass either way). `keyed`: the
    /// pages that stay not verifiable with the key (the summary `check
    /// --key-file` makes, sorted by page); an encrypted page not among
    /// them was verified after decryption and is drawn by its LSN.
    pub fn collect_judged(
        ts: &Tablespace<'_>,
        engine: &Engine<'_>,
        scale: &MapScale,
        how: LsnScale,
        made: Option<&Summary>,
        keyed: Option<&[(PageNo, Unverifiable)]>,
    ) -> (LsnFacts, Option<Summary>) {
        let per_cell = scale.pages_per_cell.max(1);
        let scheme = ts.scheme();
        let index_only = (how.pages == LsnScalePages::Index).then(|| ts.type_names());
        let fold = fold_pages(ts, engine, || {
            LsnFold::new(ts, scheme, *scale, index_only, keyed, made)
        });
        let scale_hist = fold.scale_hist.finish();
        let folded = match fold.trust {
            Trust::Folding(sf) => Some(sf.finish()),
            Trust::Made(_) => None,
        };
        let facts = LsnFacts {
            how,
            ranks: scale_hist.ranks(),
            scale_hist,
            grid: Grid {
                columns: scale.columns.max(1),
                pages_per_cell: per_cell,
                n_pages: scale.pages,
                first_page: scale.first,
                cells: fold.cells.iter().map(CellSum::cell).collect(),
            },
            hist: fold.hist,
            zero: fold.zero,
            damaged: fold.damaged,
            n_damaged: fold.n_damaged,
            unverifiable: fold.unverifiable,
            types: fold.types,
        };
        (facts, folded)
    }

    /// The linear scale from the oldest to the newest LSN of the scale's
    /// pages.
    pub fn scale(&self) -> Scale {
        let (lo, hi) = self.scale_hist.range().unwrap_or((0, 0));
        Scale {
            lo: lo as f64,
            hi: hi as f64,
        }
    }

    /// Where LSN `v` (or a cell's mean) sits on the colour scale, 0.0
    /// (oldest) – 1.0 (newest).
    pub fn t(&self, v: f64) -> f64 {
        match self.how.kind {
            LsnScaleKind::Rank => self.ranks.rank(v),
            _ => self.scale().t(v),
        }
    }

    /// The grid with each heat value mapped to 0.0 (oldest) – 1.0 (newest).
    pub fn normalized(&self) -> Grid {
        let mut g = self.grid.clone();
        for c in &mut g.cells {
            if let Cell::Heat(v) = c {
                *c = Cell::Heat(self.t(*v));
            }
        }
        g
    }

    /// The ticks under the scale: LSNs of pages at ranks 0, 1/4, 1/2, 3/4
    /// and 1 of the scale's pages, each with its place on the scale.
    pub fn ticks(&self) -> Vec<(f64, u64)> {
        let mut ticks: Vec<(f64, u64)> = Vec::new();
        for q in TICK_RANKS {
            if let Some(v) = self.ranks.value(q) {
                if ticks.last().is_none_or(|&(_, last)| last < v) {
                    ticks.push((self.t(v as f64), v));
                }
            }
        }
        ticks
    }

    /// What the scale is, in words: `by rank among 18 pages (...)`.
    pub fn scale_words(&self) -> String {
        let pages = match self.how.pages {
            LsnScalePages::Index => count(self.scale_hist.len(), "index page", "index pages"),
            _ => count(self.scale_hist.len(), "page", "pages"),
        };
        match self.how.kind {
            LsnScaleKind::Rank => {
                let err = self.ranks.error();
                if err == 0.0 {
                    format!("by rank among {pages} (exact)")
                } else {
                    format!(
                        "by rank among {pages} (each off by at most {})",
                        percent(err)
                    )
                }
            }
            _ => format!("linear between the oldest and newest of {pages}"),
        }
    }

    /// The scale's kind and pages as JSON and legend words.
    pub fn kind_word(&self) -> (&'static str, &'static str) {
        (
            match self.how.kind {
                LsnScaleKind::Rank => "rank",
                _ => "linear",
            },
            match self.how.pages {
                LsnScalePages::Index => "index",
                _ => "all",
            },
        )
    }
}

/// A share as a percentage with enough digits to be non-zero.
fn percent(share: f64) -> String {
    let p = share * 100.0;
    if p >= 1.0 {
        format!("{p:.0}%")
    } else if p >= 0.1 {
        format!("{p:.1}%")
    } else {
        format!("{p:.2}%")
    }
}

/// The pages of one grid cell seen so far: damaged pages, and the exact
/// sum of the LSNs of the others (so that cells split between two shards
/// join without rounding).
#[derive(Clone, Copy, Default)]
struct CellSum {
    damaged: u64,
    /// Undamaged pages that cannot be verified because they are encrypted
    /// (among `lsn_n`, or LSN 0).
    encrypted: u64,
    lsn_sum: u128,
    lsn_n: u64,
}

impl CellSum {
    /// The cell: damaged when most of its pages are (as `GridBuilder`
    /// votes), else encrypted when most of the others are, else the mean
    /// LSN, else blank (every page LSN 0).
    fn cell(&self) -> Cell {
        if self.damaged > self.lsn_n {
            Cell::Class(DAMAGED)
        } else if self.encrypted > 0 && self.encrypted.saturating_mul(2) >= self.lsn_n.max(1) {
            Cell::Class(ENCRYPTED)
        } else if self.lsn_n > 0 {
            Cell::Heat(self.lsn_sum as f64 / self.lsn_n as f64)
        } else {
            Cell::Blank
        }
    }

    fn add(&mut self, o: &CellSum) {
        self.damaged = self.damaged.saturating_add(o.damaged);
        self.encrypted = self.encrypted.saturating_add(o.encrypted);
        self.lsn_sum = self.lsn_sum.saturating_add(o.lsn_sum);
        self.lsn_n = self.lsn_n.saturating_add(o.lsn_n);
    }
}

/// Where the fold's verdicts come from: the summary made already, or one
/// folded alongside (every page of the file, the scale's or not).
enum Trust<'k> {
    Made(&'k Summary),
    Folding(Box<SummaryFold<'k, 'k>>),
}

/// A bad page's page problems (its findings about the page).
fn page_problems_of(b: &ibdscope_core::summary::BadPage) -> Vec<PageProblem> {
    b.findings
        .iter()
        .filter_map(|f| match f.kind {
            FindingKind::Page(p) => Some(p),
            _ => None,
        })
        .collect()
}

/// The fold behind [`LsnFacts::collect`]: the cells one shard touches,
/// from `first_cell` on, and its share of the histogram and damage.
struct LsnFold<'k> {
    /// With the key: the pages still not verifiable (see
    /// [`LsnFacts::collect_keyed`]).
    keyed: Option<&'k [(PageNo, Unverifiable)]>,
    /// The pages' verdicts.
    trust: Trust<'k>,
    /// The space: a doublewrite copy's page number and space id are not
    /// problems ([`Tablespace::doublewrite_copy`]).
    ts: &'k Tablespace<'k>,
    scheme: Scheme,
    scale: MapScale,
    first_cell: u64,
    cells: Vec<CellSum>,
    hist: Pow2Histogram,
    scale_hist: ScaleHist,
    /// The type names when only index pages make the scale.
    index_only: Option<TypeNames>,
    zero: u64,
    damaged: Vec<(PageNo, PageProblem)>,
    n_damaged: u64,
    unverifiable: u64,
    types: TypesSeen,
}

impl<'k> LsnFold<'k> {
    fn new(
        ts: &'k Tablespace<'k>,
        scheme: Scheme,
        scale: MapScale,
        index_only: Option<TypeNames>,
        keyed: Option<&'k [(PageNo, Unverifiable)]>,
        made: Option<&'k Summary>,
    ) -> Self {
        LsnFold {
            keyed,
            trust: match made {
                Some(s) => Trust::Made(s),
                None => Trust::Folding(Box::new(SummaryFold::new(ts))),
            },
            ts,
            scheme,
            scale,
            first_cell: 0,
            cells: Vec::new(),
            hist: Pow2Histogram::new(BINS),
            scale_hist: ScaleHist::default(),
            index_only,
            zero: 0,
            damaged: Vec::new(),
            n_damaged: 0,
            unverifiable: 0,
            types: TypesSeen::default(),
        }
    }
}

impl LsnFold<'_> {
    /// The problems the summary finds on page `n` (none: not damaged),
    /// folding the page into the summary when it is made here.
    fn judge(&mut self, n: PageNo, f: PageFacts) -> Vec<PageProblem> {
        match &mut self.trust {
            Trust::Made(s) => s.bad_page(n).map(page_problems_of).unwrap_or_default(),
            Trust::Folding(sf) => {
                let before = sf.summary.bad.len();
                sf.add(f);
                (sf.summary.bad.get(before))
                    .map(page_problems_of)
                    .unwrap_or_default()
            }
        }
    }

    /// Draws page `p` of the scale, damaged when `problems` are.
    fn draw(&mut self, p: PageFacts, problems: Vec<PageProblem>) {
        let n = p.page_no;
        self.types.note(p.page_type);
        let cell = u64::from(n.0)
            .saturating_sub(self.scale.first)
            .checked_div(self.scale.pages_per_cell.max(1))
            .unwrap_or(0);
        if self.cells.is_empty() {
            self.first_cell = cell;
        }
        let i = cell.saturating_sub(self.first_cell) as usize;
        if i >= self.cells.len() {
            self.cells.resize(i.saturating_add(1), CellSum::default());
        }
        let Some(sum) = self.cells.get_mut(i) else {
            return;
        };
        let encrypted = p.verdict == Verdict::Unverifiable(Unverifiable::Encrypted)
            && self
                .keyed
                .is_none_or(|k| k.binary_search_by_key(&n, |(p, _)| *p).is_ok());
        if encrypted {
            self.unverifiable = self.unverifiable.saturating_add(1);
        }
        if !problems.is_empty() {
            self.damaged
                .extend(problems.into_iter().map(|problem| (n, problem)));
            self.n_damaged = self.n_damaged.saturating_add(1);
            sum.damaged = sum.damaged.saturating_add(1);
            return;
        }
        if encrypted {
            sum.encrypted = sum.encrypted.saturating_add(1);
        }
        if p.lsn.0 == 0 {
            self.zero = self.zero.saturating_add(1);
        } else {
            self.hist.add(p.lsn.0);
            if self
                .index_only
                .is_none_or(|names| p.page_type.is_index(names))
            {
                self.scale_hist.add(p.lsn.0);
            }
            sum.lsn_sum = sum.lsn_sum.saturating_add(u128::from(p.lsn.0));
            sum.lsn_n = sum.lsn_n.saturating_add(1);
        }
    }
}

impl PageFold for LsnFold<'_> {
    fn page(&mut self, n: PageNo, page: &[u8]) {
        let f = page_facts(page, n, self.scheme);
        let problems = self.judge(n, f);
        if self.scale.holds(u64::from(n.0)) {
            let p = self.ts.doublewrite_copy(f);
            self.draw(p, problems);
        }
    }

    /// A run of all-zero pages folds as each of them would (a page of LSN
    /// 0 and no problem in its cell), in one step: the cells it reaches
    /// are made, the pages the scale draws counted.
    fn zero_run(&mut self, first: PageNo, count: u32, zero: &[u8]) {
        // The bad pages of the run (the zeroed ones the zero-page rule
        // finds), in page order.
        let end = first.0.saturating_add(count);
        let bad: Vec<(PageNo, Vec<PageProblem>)> = match &mut self.trust {
            Trust::Made(s) => {
                let at = s.bad.partition_point(|b| b.facts.page_no < first);
                (s.bad.get(at..).unwrap_or_default().iter())
                    .take_while(|b| b.facts.page_no.0 < end)
                    .map(|b| (b.facts.page_no, page_problems_of(b)))
                    .collect()
            }
            Trust::Folding(sf) => {
                let before = sf.summary.bad.len();
                sf.zero_run(first, count);
                (sf.summary.bad.get(before..).unwrap_or_default().iter())
                    .map(|b| (b.facts.page_no, page_problems_of(b)))
                    .collect()
            }
        };
        let from = u64::from(first.0).max(self.scale.first);
        let to = u64::from(end).min(self.scale.first.saturating_add(self.scale.pages));
        if from >= to {
            return;
        }
        let p = page_facts(zero, PageNo(from as u32), self.scheme);
        let bad_drawn = bad
            .iter()
            .any(|(n, _)| (from..to).contains(&u64::from(n.0)));
        if bad_drawn || p.lsn.0 != 0 {
            // Both in page order: one walk, not a search per page.
            let mut bad = bad.into_iter().peekable();
            for n in from..to {
                let n = PageNo(n as u32);
                while bad.next_if(|(b, _)| *b < n).is_some() {}
                let problems = bad
                    .next_if(|(b, _)| *b == n)
                    .map(|(_, pr)| pr)
                    .unwrap_or_default();
                let p = self.ts.facts_of(zero, n);
                self.draw(p, problems);
            }
            return;
        }
        self.types.note(p.page_type);
        let per = self.scale.pages_per_cell.max(1);
        let (a, b) = (
            from.saturating_sub(self.scale.first)
                .checked_div(per)
                .unwrap_or(0),
            (to.saturating_sub(1).saturating_sub(self.scale.first))
                .checked_div(per)
                .unwrap_or(0),
        );
        if self.cells.is_empty() {
            self.first_cell = a;
        }
        let i = b.saturating_sub(self.first_cell) as usize;
        if i >= self.cells.len() {
            self.cells.resize(i.saturating_add(1), CellSum::default());
        }
        self.zero = self.zero.saturating_add(to.saturating_sub(from));
    }

    fn append(&mut self, next: Self) {
        let mut cells = next.cells.iter();
        let last = self.first_cell.saturating_add(self.cells.len() as u64);
        if self.cells.is_empty() {
            self.first_cell = next.first_cell;
        } else if next.first_cell.saturating_add(1) == last {
            if let (Some(mine), Some(theirs)) = (self.cells.last_mut(), cells.next()) {
                mine.add(theirs);
            }
        }
        self.cells.extend(cells);
        self.hist.merge(&next.hist);
        self.scale_hist.append(next.scale_hist);
        self.zero = self.zero.saturating_add(next.zero);
        self.damaged.extend(next.damaged);
        self.n_damaged = self.n_damaged.saturating_add(next.n_damaged);
        self.unverifiable = self.unverifiable.saturating_add(next.unverifiable);
        if let (Trust::Folding(mine), Trust::Folding(theirs)) = (&mut self.trust, next.trust) {
            PageFold::append(&mut **mine, *theirs);
        }
        for t in next.types.iter() {
            self.types.note(t);
        }
    }
}

/// Values kept as they are before they go into the scale's histogram.
const SCALE_RAW: usize = 1024;

/// The scale's histogram, filled through a small buffer: a shard's values
/// (a shard is a few hundred pages) are kept as they are and added to the
/// running histogram when shards are joined, so a shard never sets up and
/// touches its own [`SCALE_BINS`] bins (which cost more than the pages). The
/// values reach the histogram in page order, as in one pass.
#[derive(Default)]
struct ScaleHist {
    raw: Vec<u64>,
    hist: Option<Pow2Histogram>,
}

impl ScaleHist {
    fn add(&mut self, v: u64) {
        if self.raw.len() >= SCALE_RAW {
            self.flush();
        }
        self.raw.push(v);
    }
    fn flush(&mut self) {
        let h = self
            .hist
            .get_or_insert_with(|| Pow2Histogram::new(SCALE_BINS));
        for v in self.raw.drain(..) {
            h.add(v);
        }
    }
    /// Appends the values of the pages after this one's.
    fn append(&mut self, next: ScaleHist) {
        if let Some(theirs) = &next.hist {
            self.flush();
            if let Some(mine) = &mut self.hist {
                mine.merge(theirs);
            }
        }
        for v in next.raw {
            self.add(v);
        }
    }
    fn finish(mut self) -> Pow2Histogram {
        self.flush();
        self.hist.unwrap_or_else(|| Pow2Histogram::new(SCALE_BINS))
    }
}

/// `ibdscope lsn`.
/// How a cell of a normalized LSN grid ([`LsnFacts::normalized`]) is
/// drawn in the terminal: glyph and colour.
pub fn lsn_glyph(st: &Style, c: Cell) -> (&'static str, Option<u8>) {
    match c {
        Cell::Heat(t) => (
            st.level(maps::eighths(t as f32)),
            Some(rgb_to_ansi256(ramp(t, LSN_FLOOR))),
        ),
        Cell::Class(ENCRYPTED) => ("~", Some(UNVERIFIABLE_ANSI)),
        Cell::Class(_) | Cell::Bar(..) => ("X", Some(DAMAGED_ANSI)),
        Cell::Blank => (" ", None),
    }
}

/// `"grid": {"columns", "pages_per_cell", "first_page", "cells": [...]}`.
pub fn grid_json(
    j: &mut Json<'_>,
    g: &Grid,
    cell: impl Fn(&mut Json<'_>, Cell) -> io::Result<()>,
) -> io::Result<()> {
    j.key("grid")?
        .obj()?
        .kv_num("columns", g.columns)?
        .kv_num("pages_per_cell", g.pages_per_cell)?
        .kv_num("first_page", g.first_page)?
        .key("cells")?
        .arr()?;
    for c in &g.cells {
        cell(j, *c)?;
    }
    j.end_arr()?.end_obj()?;
    Ok(())
}

/// How a cell of several pages is drawn on the LSN map.
pub const VOTE: &str = "their mean LSN (damaged when most of them are)";

/// The classes of an LSN picture, by [`DAMAGED`] and [`ENCRYPTED`]: damaged
/// and encrypted pages, each with its page count when given, shown as
/// `shown` says.
pub fn lsn_classes(counts: [Option<u64>; 2], shown: [bool; 2]) -> Vec<Class> {
    let label = |what: &str, n: Option<u64>| match n {
        Some(n) => format!("{what}: {n}"),
        None => what.to_string(),
    };
    let [damaged, encrypted] = counts;
    let [show_damaged, show_encrypted] = shown;
    vec![
        Class {
            label: label("damaged page (LSN not trusted)", damaged),
            color: ansi256_to_rgb(DAMAGED_ANSI),
            shown: show_damaged,
        },
        Class {
            label: label("encrypted page (not verifiable)", encrypted),
            color: ansi256_to_rgb(UNVERIFIABLE_ANSI),
            shown: show_encrypted,
        },
    ]
}

/// The colour scale of `f`'s picture: cells are drawn from
/// [`LsnFacts::normalized`] values, so the scale runs 0.0 – 1.0.
pub fn heat_scale(f: &LsnFacts, what: &str) -> HeatScale {
    let ticks = f.ticks();
    HeatScale {
        title: format!("{what}, {}; ticks: page LSNs", f.scale_words()),
        scale: Scale { lo: 0.0, hi: 1.0 },
        lo_label: "oldest".into(),
        hi_label: "newest".into(),
        floor: LSN_FLOOR,
        ticks: ticks.iter().map(|&(t, v)| (t, v.to_string())).collect(),
    }
}

/// What the scale means, for the notes under it.
pub fn scale_notes(f: &LsnFacts) -> Vec<String> {
    let mut notes = Vec::new();
    match f.how.kind {
        LsnScaleKind::Rank => notes.push(
            "colour by rank: the share of pages with an older LSN, so that a few old pages \
             (page 1, written at creation) do not squeeze the rest into one colour"
                .into(),
        ),
        _ => notes.push("colour linear in LSN between the oldest and newest page".into()),
    }
    if f.how.pages == LsnScalePages::Index {
        notes.push(if f.scale_hist.is_empty() {
            "no index page has an LSN: every page is drawn at the new end".into()
        } else {
            "scale of the index pages only; other pages take the end they are beyond".into()
        });
    }
    notes
}

/// `compare --metric lsn`'s colour scale: each file on its own scale, `how`.
pub fn compare_scale(h: &mut HeatScale, notes: &mut Vec<String>, how: LsnScale) {
    let of = match how.pages {
        LsnScalePages::Index => "index pages",
        _ => "pages",
    };
    h.title = match how.kind {
        LsnScaleKind::Rank => format!(
            "page LSN, old to new within each file, by rank among the file's {of} (the share \
             of them with an older LSN)"
        ),
        _ => format!("page LSN, old to new within each file, linear between its {of}' ends"),
    };
    h.floor = LSN_FLOOR;
    if how.kind != LsnScaleKind::Rank {
        return;
    }
    notes.push(format!(
        "each file's {of} ranked by a histogram of at most {SCALE_BINS} bins; `ibdscope lsn` \
         gives a file's error bound and its LSNs at the scale's ticks"
    ));
}
