//! `ibdscope lsn`: how recently each page was written, from the LSN in its
//! FIL header (FIL_PAGE_LSN), as a map from old to new and a histogram.
//!
//! One pass on the scan engine (`fold_pages`, shards joined in page
//! order): each page's LSN goes into a bounded grid (the mean LSN of a
//! cell when cells hold several pages, summed exactly), an exact
//! power-of-two-bin histogram of at most [`BINS`] bins (shown), and one of
//! at most [`SCALE_BINS`] bins with each bin's smallest and largest LSN
//! (the colour scale); nothing is kept per page. Pages with LSN 0 (never
//! written) are blank. A page the summary's verdict calls bad (checksum,
//! LSN copies, page number, space id, an all-zero page its extent
//! descriptor marks used) is drawn as damaged and kept out of the scale:
//! the summary is the one made already, or folded in the same pass
//! ([`SummaryFold`]).
//!
//! The scale ([`LsnScale`]) is by rank by default: a cell's colour is the
//! share of the scale's pages with an older LSN than the cell's, so the
//! few pages written when the table was created (page 1, the root) take
//! their share of the colours and no more, where a linear scale between
//! the oldest and newest LSN gives them most of it. The ranks come from
//! the fine histogram ([`Ranks`]): exact in bins of one distinct LSN,
//! interpolated inside the others, so off by at most the share of pages in
//! the fullest such bin, which the legend states. `--scale linear` is the
//! old scale; `--scale-pages index` makes the scale of the index pages
//! only. The ticks under the scale are LSNs of pages of the file, at
//! ranks 0, 1/4, 1/2, 3/4 and 1. When all LSNs are equal every page is
//! drawn at the new end.

use crate::args::{Format, LsnScale, LsnScaleKind, LsnScalePages, Opts};
use crate::cmd::map::{self, print_grid, MapScale, Style, TypesSeen};
use crate::json::Json;
use crate::outcome::Outcome;
use crate::text::count;
use ibdscope::analysis::Analysis;
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
use ibdscope_render::{
    Cell, Class, Grid, HeatScale, Histogram, Panel, Picture, Pow2Histogram, Ranks, Scale,
};
use std::io::{self, Write};
use std::path::Path;

/// Bins of the LSN histogram, at most.
pub const BINS: usize = 64;
/// Bins of the histogram the colour scale is made of, at most (96 KiB a
/// shard).
pub const SCALE_BINS: usize = 4096;
/// The ranks of the ticks under the colour scale.
const TICK_RANKS: [f64; 5] = [0.0, 0.25, 0.5, 0.75, 1.0];
/// The class of damaged pages.
const DAMAGED: u16 = 0;
/// The class of encrypted pages (not verifiable without the key), as the
/// owner maps name them: `~`, the not-verifiable colour.
const ENCRYPTED: u16 = 1;

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
    fn kind_word(&self) -> (&'static str, &'static str) {
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
        } else if self.encrypted > 0 && self.encrypted * 2 >= self.lsn_n.max(1) {
            Cell::Class(ENCRYPTED)
        } else if self.lsn_n > 0 {
            Cell::Heat(self.lsn_sum as f64 / self.lsn_n as f64)
        } else {
            Cell::Blank
        }
    }

    fn add(&mut self, o: &CellSum) {
        self.damaged += o.damaged;
        self.encrypted += o.encrypted;
        self.lsn_sum += o.lsn_sum;
        self.lsn_n += o.lsn_n;
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
        let cell = (u64::from(n.0) - self.scale.first) / self.scale.pages_per_cell.max(1);
        if self.cells.is_empty() {
            self.first_cell = cell;
        }
        let i = (cell - self.first_cell) as usize;
        if i >= self.cells.len() {
            self.cells.resize(i + 1, CellSum::default());
        }
        let sum = &mut self.cells[i];
        let encrypted = p.verdict == Verdict::Unverifiable(Unverifiable::Encrypted)
            && self
                .keyed
                .is_none_or(|k| k.binary_search_by_key(&n, |(p, _)| *p).is_ok());
        if encrypted {
            self.unverifiable += 1;
        }
        if !problems.is_empty() {
            self.damaged
                .extend(problems.into_iter().map(|problem| (n, problem)));
            self.n_damaged += 1;
            sum.damaged += 1;
            return;
        }
        if encrypted {
            sum.encrypted += 1;
        }
        if p.lsn.0 == 0 {
            self.zero += 1;
        } else {
            self.hist.add(p.lsn.0);
            if self
                .index_only
                .is_none_or(|names| p.page_type.is_index(names))
            {
                self.scale_hist.add(p.lsn.0);
            }
            sum.lsn_sum += u128::from(p.lsn.0);
            sum.lsn_n += 1;
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
        let to = u64::from(end).min(self.scale.first + self.scale.pages);
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
            (from - self.scale.first) / per,
            (to - 1 - self.scale.first) / per,
        );
        if self.cells.is_empty() {
            self.first_cell = a;
        }
        let i = (b - self.first_cell) as usize;
        if i >= self.cells.len() {
            self.cells.resize(i + 1, CellSum::default());
        }
        self.zero += to - from;
    }

    fn append(&mut self, next: Self) {
        let mut cells = next.cells.iter();
        let last = self.first_cell + self.cells.len() as u64;
        if self.cells.is_empty() {
            self.first_cell = next.first_cell;
        } else if next.first_cell + 1 == last {
            if let (Some(mine), Some(theirs)) = (self.cells.last_mut(), cells.next()) {
                mine.add(theirs);
            }
        }
        self.cells.extend(cells);
        self.hist.merge(&next.hist);
        self.scale_hist.append(next.scale_hist);
        self.zero += next.zero;
        self.damaged.extend(next.damaged);
        self.n_damaged += next.n_damaged;
        self.unverifiable += next.unverifiable;
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

/// A count as eighths of the largest (1..=8 when non-zero).
fn bar_eighths(count: u64, max: u64) -> u8 {
    if count == 0 || max == 0 {
        return 0;
    }
    (count.saturating_mul(8).div_ceil(max)).clamp(1, 8) as u8
}

/// Where a histogram bin's middle sits on the scale.
fn bin_t(f: &LsnFacts, from: u64, to: u64) -> f64 {
    f.t((from as f64 + to as f64) / 2.0)
}

/// `ibdscope lsn`.
pub fn run(opts: &Opts, a: &Analysis<'_>, out: &mut dyn Write) -> io::Result<Outcome> {
    let (path, ts) = (a.path(), a.ts());
    let n_pages = u64::from(ts.n_pages());
    if let Some(o) = crate::cmd::map::from_past_end(path, opts, n_pages, ts.page_size()) {
        return Ok(o);
    }
    let scale = MapScale::new(ts, n_pages, opts);
    // With the key, the summary `check --key-file` makes (set by the
    // dispatcher): the pages only their decrypted image verifies.
    let keyed = opts
        .key_file
        .as_ref()
        .and_then(|_| a.summary_made())
        .map(|s| s.unverifiable.as_slice());
    // The pages' verdicts are the summary's (one rule for every command):
    // what is drawn damaged, what is listed, and the exit status; made in
    // the map's pass when no command made it before.
    let (mut f, folded) = LsnFacts::collect_judged(
        ts,
        a.engine(),
        &scale,
        opts.lsn_scale,
        a.summary_made(),
        keyed,
    );
    if let Some(s) = folded {
        a.set_summary(s);
    }
    let summary = a.summary();
    f.damaged = summary
        .bad
        .iter()
        .flat_map(|b| {
            b.findings.iter().filter_map(move |fi| match fi.kind {
                ibdscope_core::FindingKind::Page(p) => Some((b.facts.page_no, p)),
                _ => None,
            })
        })
        .collect();
    f.n_damaged = summary.bad.len() as u64;
    let outcome = if summary.bad.is_empty() {
        Outcome::Clean
    } else {
        Outcome::Findings
    };
    let (wrote, said) = if opts.out.is_some() {
        let what = ibdscope::names::path(path).to_string();
        map::write_picture(opts, &picture(path, ts, &f, &scale), &what, &scale.words())
    } else {
        (Outcome::Clean, String::new())
    };
    if opts.format == Format::Json {
        json(out, path, ts, &f, summary)?;
        return Ok(outcome.max(wrote));
    }
    if opts.out.is_some() {
        out.write_all(said.as_bytes())?;
        crate::cmd::findings::verdict_lines(out, path, summary)?;
        return Ok(outcome.max(wrote));
    }
    text(opts, out, path, ts, &f, &scale)?;
    crate::cmd::findings::verdict_lines(out, path, summary)?;
    Ok(outcome)
}

fn range_words(f: &LsnFacts) -> String {
    match f.hist.range() {
        Some((lo, hi)) if lo == hi => format!("every LSN {lo}"),
        Some((lo, hi)) => format!("LSN {lo} .. {hi}"),
        None => "no page with an LSN".to_string(),
    }
}

fn text(
    opts: &Opts,
    out: &mut dyn Write,
    path: &Path,
    ts: &Tablespace<'_>,
    f: &LsnFacts,
    scale: &MapScale,
) -> io::Result<()> {
    let st = Style::of(opts);
    writeln!(
        out,
        "{}: {}, {}, {} with LSN 0",
        ibdscope::names::path(path),
        count(ts.n_pages(), "page", "pages"),
        range_words(f),
        f.zero,
    )?;
    scale.print_header(out)?;
    print_grid(out, &st, &f.grid, |c| match c {
        Cell::Heat(v) => lsn_glyph(&st, Cell::Heat(f.t(v))),
        c => lsn_glyph(&st, c),
    })?;
    writeln!(out)?;
    text_legend(out, &st, f, scale)?;
    Ok(())
}

/// How a cell of a normalized LSN grid ([`LsnFacts::normalized`]) is
/// drawn in the terminal: glyph and colour.
pub fn lsn_glyph(st: &Style, c: Cell) -> (&'static str, Option<u8>) {
    match c {
        Cell::Heat(t) => (
            st.level(map::eighths(t as f32)),
            Some(rgb_to_ansi256(ramp(t, LSN_FLOOR))),
        ),
        Cell::Class(ENCRYPTED) => ("~", Some(UNVERIFIABLE_ANSI)),
        Cell::Class(_) | Cell::Bar(..) => ("X", Some(DAMAGED_ANSI)),
        Cell::Blank => (" ", None),
    }
}

/// The legend under the terminal map: the histogram, the scale's ticks and
/// what the glyphs mean, every line within 80 columns.
fn text_legend(out: &mut dyn Write, st: &Style, f: &LsnFacts, scale: &MapScale) -> io::Result<()> {
    let bins = f.hist.bins();
    let max = bins.iter().map(|b| b.count).max().unwrap_or(0);
    write!(out, "{:>10} ", "histogram")?;
    for b in &bins {
        let color = rgb_to_ansi256(ramp(bin_t(f, b.from, b.to), LSN_FLOOR));
        st.paint(out, Some(color), st.level(bar_eighths(b.count, max)))?;
    }
    writeln!(out)?;
    writeln!(
        out,
        "{:>10} {} of {} LSN, tallest {}",
        "",
        count(bins.len() as u64, "bin", "bins"),
        1u128 << f.hist.shift(),
        count(max, "page", "pages")
    )?;
    if let Some((lo, hi)) = f.hist.range() {
        writeln!(out, "{:>10} oldest {lo}, newest {hi}", "")?;
    }
    let marks: Vec<String> = (f.ticks().iter())
        .map(|(t, v)| format!("{v} at {:.0}%", t * 100.0))
        .collect();
    let mut line = format!("{:>10}", "scale");
    for (i, m) in marks.iter().enumerate() {
        let sep = if i + 1 < marks.len() { "," } else { "" };
        if line.chars().count() + 1 + m.len() + sep.len() > 80 {
            writeln!(out, "{line}")?;
            line = " ".repeat(10);
        }
        line.push(' ');
        line.push_str(m);
        line.push_str(sep);
    }
    if !marks.is_empty() {
        writeln!(out, "{line}")?;
    }
    let (ramp, zero) = if st.ascii {
        ("1 2 3 4 5 6 7 8", "' '")
    } else {
        ("▁▂▃▄▅▆▇█", "blank")
    };
    writeln!(
        out,
        "cell: page LSN from old to new {ramp} (dark to bright in colour)"
    )?;
    writeln!(out, "colour {}", f.scale_words())?;
    writeln!(
        out,
        "scale: page LSNs at ranks 0, 1/4, 1/2, 3/4, 1 and where they sit on it"
    )?;
    writeln!(
        out,
        "{zero}: LSN 0 (never written); X: damaged (LSN not trusted)"
    )?;
    if let Some(u) = unverifiable_words(f) {
        writeln!(out, "{u}")?;
    }
    if let Some(v) = scale.vote_words(VOTE) {
        writeln!(out, "{v}")?;
    }
    Ok(())
}

fn json(
    out: &mut dyn Write,
    path: &Path,
    ts: &Tablespace<'_>,
    f: &LsnFacts,
    summary: &ibdscope_core::Summary,
) -> io::Result<()> {
    let mut j = Json::new(out);
    let range = f.hist.range();
    j.obj()?
        .kv_path("file", path)?
        .kv_num("page_size", ts.page_size())?
        .kv_num("pages", ts.n_pages())?;
    j.key("lsn_min")?
        .opt_num(range.map(|r| r.0))?
        .key("lsn_max")?
        .opt_num(range.map(|r| r.1))?;
    j.kv_num("zero_lsn_pages", f.zero)?
        .kv_num("damaged_pages", f.n_damaged)?
        .kv_num("unverifiable_pages", f.unverifiable)?;
    let (kind, pages) = f.kind_word();
    j.key("scale")?
        .obj()?
        .kv_str("kind", kind)?
        .kv_str("pages", pages)?
        .kv_num("scale_pages", f.scale_hist.len())?;
    j.key("rank_error")?.float(f.ranks.error(), 4)?;
    j.key("ticks")?.arr()?;
    for (t, v) in f.ticks() {
        j.obj()?
            .kv_num("lsn", v)?
            .key("at")?
            .float(t, 4)?
            .end_obj()?;
    }
    j.end_arr()?.end_obj()?;
    j.key("histogram")?
        .obj()?
        .kv_num("bin_width", 1u64.checked_shl(f.hist.shift()).unwrap_or(0))?
        .key("bins")?
        .arr()?;
    for b in f.hist.bins() {
        j.obj()?
            .kv_num("lsn_from", b.from)?
            .kv_num("lsn_to", b.to)?
            .kv_num("pages", b.count)?
            .end_obj()?;
    }
    j.end_arr()?.end_obj()?;
    grid_json(&mut j, &f.normalized(), |j, c| match c {
        Cell::Heat(t) => j.float(t, 4).map(|_| ()),
        Cell::Blank => j.null().map(|_| ()),
        Cell::Class(ENCRYPTED) => j.str("encrypted").map(|_| ()),
        Cell::Class(_) | Cell::Bar(..) => j.str("damaged").map(|_| ()),
    })?;
    j.key("findings")?.arr()?;
    for b in &summary.bad {
        let v = &b.judgement;
        j.obj()?
            .kv_num("page", v.page.0)?
            .kv_num("offset", v.file_offset)?
            .kv_str("verdict", v.verdict.word())?
            .kv_display("reason", &v.evidence)?
            .end_obj()?;
    }
    j.end_arr()?.end_obj()?;
    writeln!(out)
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

/// What is said of the encrypted pages, when there are any.
fn unverifiable_words(f: &LsnFacts) -> Option<String> {
    (f.unverifiable > 0).then(|| {
        format!(
            "~: encrypted, not verifiable ({}; their LSNs as stored are in the histogram)",
            count(f.unverifiable, "page", "pages")
        )
    })
}

/// How a cell of several pages is drawn on the LSN map.
pub const VOTE: &str = "their mean LSN (damaged when most of them are)";

/// The LSN picture of one file.
fn picture(path: &Path, ts: &Tablespace<'_>, f: &LsnFacts, scale: &MapScale) -> Picture {
    let (title, lines) = map::title(path, ts, &f.types, "LSN age", scale);
    let bins = f.hist.bins();
    let mut notes = vec![format!(
        "blank: LSN 0 (never written), {}",
        count(f.zero, "page", "pages")
    )];
    notes.extend(scale.vote_words(VOTE));
    notes.extend(unverifiable_words(f));
    if f.hist.range().is_some_and(|(lo, hi)| lo == hi) {
        notes.push("every page has the same LSN: all are drawn at the new end".into());
    }
    notes.extend(scale_notes(f));
    let histograms = if bins.is_empty() {
        notes.push("no page has a non-zero LSN".into());
        Vec::new()
    } else {
        vec![Histogram {
            title: format!(
                "pages per LSN range ({} ranges of {} LSN)",
                bins.len(),
                1u128 << f.hist.shift()
            ),
            bars: bins
                .iter()
                .map(|b| (b.count, ramp(bin_t(f, b.from, b.to), LSN_FLOOR)))
                .collect(),
            left: bins.first().map_or(String::new(), |b| b.from.to_string()),
            right: bins.last().map_or(String::new(), |b| b.to.to_string()),
        }]
    };
    Picture {
        title,
        lines,
        panels: vec![Panel {
            caption: Vec::new(),
            grid: f.normalized(),
        }],
        classes: lsn_classes(
            [Some(f.n_damaged), Some(f.unverifiable)],
            [f.n_damaged > 0, f.unverifiable > 0],
        ),
        heat: Some(heat_scale(f, "page LSN, old to new")),
        notes,
        histograms,
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;
    use ibdscope_core::{Btrees, SpaceMap};
    use std::collections::BTreeSet;

    const SERVERS: [&str; 2] = ["mysql56", "mariadb1011"];

    fn fixture(server: &str, table: &str) -> (std::path::PathBuf, Vec<u8>) {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../fixtures")
            .join(server)
            .join(format!("{table}.ibd"));
        let bytes = std::fs::read(&path).unwrap();
        (path, bytes)
    }

    /// Every page, one a cell.
    fn per_page(ts: &Tablespace<'_>) -> MapScale {
        let n = u64::from(ts.n_pages());
        let e = ts.format().extent_size();
        MapScale::of_range(0, n, n, Some(1), ts.page_size(), e)
    }

    /// The clustered index's leaves in chain order (the library's walk)
    /// and the LSN of every page with one (page facts, one by one).
    fn leaves_and_lsns(ts: &Tablespace<'_>) -> (Vec<PageNo>, Vec<u64>) {
        let e = Engine::default();
        let map = SpaceMap::build(ts, &e);
        let trees = Btrees::build_with_leaf_chains(ts, &e, &map);
        let clustered = trees
            .indexes
            .iter()
            .min_by_key(|t| t.index_id)
            .expect("an index");
        let lsns = (0..ts.n_pages())
            .filter_map(|n| ts.page(PageNo(n)))
            .enumerate()
            .map(|(n, p)| page_facts(p, PageNo(n as u32), ts.scheme()).lsn.0)
            .collect();
        (clustered.leaf_chain.clone(), lsns)
    }

    /// The leaves' places on the scale, in chain order.
    fn leaf_ts(f: &LsnFacts, leaves: &[PageNo]) -> Vec<f64> {
        leaves
            .iter()
            .map(|p| match f.grid.cells[p.0 as usize] {
                Cell::Heat(v) => f.t(v),
                c => panic!("page {p}: {c:?}"),
            })
            .collect()
    }

    fn span(ts: &[f64]) -> f64 {
        let max = ts.iter().copied().fold(f64::MIN, f64::max);
        let min = ts.iter().copied().fold(f64::MAX, f64::min);
        max - min
    }

    #[test]
    fn rank_scale_follows_the_key_order_and_is_not_flattened() {
        for server in SERVERS {
            for table in ["ai_int", "seq_int", "ulid_char26", "uuid_char36"] {
                let (_, bytes) = fixture(server, table);
                let ts = Tablespace::new(&bytes).unwrap();
                let (leaves, lsns) = leaves_and_lsns(&ts);
                assert!(leaves.len() >= 10, "{server}/{table}: {}", leaves.len());
                let f =
                    LsnFacts::collect(&ts, &Engine::new(2), &per_page(&ts), LsnScale::default());
                let t = leaf_ts(&f, &leaves);
                let rising = t.windows(2).filter(|w| w[1] > w[0]).count();
                let steps = t.len() - 1;
                let what = format!("{server}/{table}: {t:?}");
                if table == "uuid_char36" {
                    // Random keys: the chain's colours go up and down.
                    assert!(rising < steps * 3 / 4 && rising > steps / 4, "{what}");
                } else {
                    // Key order: never older along the chain; level only
                    // where a split wrote two leaves in one
                    // mini-transaction (one LSN: ai_int's pages 15 and 16).
                    assert!(t.windows(2).all(|w| w[1] >= w[0]), "{what}");
                    assert!(rising + 2 >= steps, "{what}");
                    for (w, p) in t.windows(2).zip(leaves.windows(2)) {
                        let (a, b) = (lsns[p[0].0 as usize], lsns[p[1].0 as usize]);
                        assert_eq!(w[1] > w[0], b > a, "{what}");
                    }
                }
                // The data pages take most of the scale, whatever the
                // system pages' LSNs.
                assert!(span(&t) >= 0.6, "{what}");
                // The ticks are LSNs of pages, oldest and newest first and
                // last, in order on the scale.
                let ticks = f.ticks();
                let real: BTreeSet<u64> = lsns.iter().copied().filter(|&l| l > 0).collect();
                assert!(ticks.len() >= 3, "{what}");
                assert!(ticks.iter().all(|(_, v)| real.contains(v)), "{ticks:?}");
                assert_eq!(ticks[0], (0.0, *real.first().unwrap()));
                assert_eq!(ticks.last().unwrap(), &(1.0, *real.last().unwrap()));
                assert!(ticks.windows(2).all(|w| w[0].0 < w[1].0 && w[0].1 < w[1].1));
                // A tick's place is the share of pages with an older LSN
                // (the newest, checked above, is 1.0 even when tied).
                for (at, v) in &ticks[..ticks.len() - 1] {
                    let older = real.len() as f64; // distinct values
                    let below = lsns.iter().filter(|&&l| l > 0 && l < *v).count() as f64;
                    let n = lsns.iter().filter(|&&l| l > 0).count() as f64;
                    assert!(
                        (at - below / (n - 1.0)).abs() <= f.ranks.error() + 1e-9,
                        "{what}: {v} at {at}, {below} of {n} below ({older} distinct)"
                    );
                }
            }
        }
    }

    #[test]
    fn the_linear_scale_flattens_the_random_table_and_index_pages_narrow_it() {
        for server in SERVERS {
            let (_, bytes) = fixture(server, "uuid_char36");
            let ts = Tablespace::new(&bytes).unwrap();
            let (leaves, lsns) = leaves_and_lsns(&ts);
            let linear = LsnScale {
                kind: LsnScaleKind::Linear,
                pages: LsnScalePages::All,
            };
            let f = LsnFacts::collect(&ts, &Engine::default(), &per_page(&ts), linear);
            // The old scale: one flat block at the new end.
            assert!(span(&leaf_ts(&f, &leaves)) < 0.1, "{server}");
            // Of the index pages only, the scale starts at the oldest
            // index page, not at page 1 (IBUF_BITMAP).
            let index = LsnScale {
                kind: LsnScaleKind::Linear,
                pages: LsnScalePages::Index,
            };
            let g = LsnFacts::collect(&ts, &Engine::default(), &per_page(&ts), index);
            let oldest_index = leaves.iter().map(|p| lsns[p.0 as usize]).min().unwrap();
            assert!(g.scale().lo <= oldest_index as f64);
            assert!(g.scale().lo > lsns[1] as f64, "{server}");
            assert!(g.scale_hist.len() < f.scale_hist.len());
        }
    }

    #[test]
    fn the_picture_says_what_the_scale_is_and_labels_its_ticks() {
        let (path, bytes) = fixture("mysql56", "ulid_char26");
        let ts = Tablespace::new(&bytes).unwrap();
        let f = LsnFacts::collect(&ts, &Engine::default(), &per_page(&ts), LsnScale::default());
        let p = picture(&path, &ts, &f, &per_page(&ts));
        let h = p.heat.as_ref().unwrap();
        assert!(
            h.title.contains("by rank among 22 pages (exact)"),
            "{}",
            h.title
        );
        assert!(h.floor > 0.0);
        // The panel holds the cells' places on the scale, as drawn.
        assert_eq!(p.panels[0].grid, f.normalized());
        assert_eq!(h.scale, Scale { lo: 0.0, hi: 1.0 });
        let dir = std::env::temp_dir().join(format!("ibdscope-lsn-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let svg_path = dir.join("ulid.svg");
        ibdscope_render::render(&p, &svg_path, ibdscope_render::ImageFormat::Svg).unwrap();
        let svg = std::fs::read_to_string(&svg_path).unwrap();
        let texts: Vec<String> = svg
            .split("<text")
            .skip(1)
            .filter_map(|el| {
                let body = el.split_once('>')?.1;
                Some(body.split("</text>").next()?.trim().to_string())
            })
            .collect();
        // mysql56 ulid_char26.ibd: page 1 (IBUF_BITMAP) is the oldest page,
        // page 0 the newest (`ibdscope pages`, as the server left them).
        for tick in ["3114369", "3602895"] {
            assert!(texts.iter().any(|t| t == tick), "{tick}: {texts:?}");
        }
        assert!(texts.iter().any(|t| t.contains("colour by rank")));
        assert!(texts
            .iter()
            .any(|t| t.starts_with("page LSN, old to new, by rank")));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
