//! `ibdscope lsn`: how recently each page was written, from the LSN in its
//! FIL header (FIL_PAGE_LSN), as a map from old to new and a histogram.
//!
//! One pass on the scan engine (`fold_pages`, shards joined in page
//! order): each page's LSN goes into a bounded grid (the mean LSN of a
//! cell when cells hold several pages, summed exactly) and an exact
//! power-of-two-bin histogram; nothing is kept per page. Pages
//! with LSN 0 (never written) are blank. A page with a problem (checksum,
//! LSN copies, page number, space id) is drawn as damaged and kept out of
//! the scale, whose ends are the oldest and newest LSN of the other pages;
//! when all are equal every page is drawn at the new end.

use crate::analysis::Analysis;
use crate::args::{Format, Opts};
use crate::cmd::map::{self, per_cell_note, print_grid, Style, TypesSeen};
use crate::json::Json;
use crate::outcome::Outcome;
use crate::text::count;
use ibdscope::checksum::Scheme;
use ibdscope::space::{page_facts, PageProblem};
use ibdscope::{fold_pages, Engine, PageFold, PageNo, SpaceId, Tablespace};
use ibdscope_render::color::{ansi256_to_rgb, rgb_to_ansi256, viridis, DAMAGED_ANSI};
use ibdscope_render::{
    pages_per_cell, Cell, Class, Grid, HeatScale, Histogram, Panel, Picture, Pow2Histogram, Scale,
};
use std::io::{self, Write};
use std::path::Path;

/// Bins of the LSN histogram, at most.
pub const BINS: usize = 64;
/// The class of damaged pages.
const DAMAGED: u16 = 0;

/// The LSN facts of one file.
pub struct LsnFacts {
    /// Raw LSNs (cell means) as heat; damaged pages as class 0.
    pub grid: Grid,
    /// Non-zero LSNs of undamaged pages.
    pub hist: Pow2Histogram,
    /// Pages with LSN 0 (and no problem).
    pub zero: u64,
    /// Damaged pages with their problems.
    pub damaged: Vec<(PageNo, PageProblem)>,
    /// Damaged pages (a page may have several problems).
    pub n_damaged: u64,
    /// Page types met (vendor guess).
    pub types: TypesSeen,
}

impl LsnFacts {
    /// One pass over `ts` on `engine` ([`fold_pages`]) into a grid of
    /// `columns` cells of `per_cell` pages.
    pub fn collect(
        ts: &Tablespace<'_>,
        engine: &Engine<'_>,
        columns: u32,
        per_cell: u64,
    ) -> LsnFacts {
        let n = u64::from(ts.n_pages());
        let per_cell = per_cell.max(1);
        let scheme = ts.scheme();
        let space_id = ts.space_id();
        let fold = fold_pages(ts, engine, || LsnFold::new(scheme, space_id, per_cell));
        LsnFacts {
            grid: Grid {
                columns: columns.max(1),
                pages_per_cell: per_cell,
                n_pages: n,
                cells: fold.cells.iter().map(CellSum::cell).collect(),
            },
            hist: fold.hist,
            zero: fold.zero,
            damaged: fold.damaged,
            n_damaged: fold.n_damaged,
            types: fold.types,
        }
    }

    /// The scale from the oldest to the newest LSN.
    pub fn scale(&self) -> Scale {
        let (lo, hi) = self.hist.range().unwrap_or((0, 0));
        Scale {
            lo: lo as f64,
            hi: hi as f64,
        }
    }

    /// The grid with each heat value mapped to 0.0 (oldest) – 1.0 (newest).
    pub fn normalized(&self) -> Grid {
        let s = self.scale();
        let mut g = self.grid.clone();
        for c in &mut g.cells {
            if let Cell::Heat(v) = c {
                *c = Cell::Heat(s.t(*v));
            }
        }
        g
    }
}

/// The pages of one grid cell seen so far: damaged pages, and the exact
/// sum of the LSNs of the others (so that cells split between two shards
/// join without rounding).
#[derive(Clone, Copy, Default)]
struct CellSum {
    damaged: u64,
    lsn_sum: u128,
    lsn_n: u64,
}

impl CellSum {
    /// The cell: damaged when most of its pages are (as `GridBuilder`
    /// votes), else the mean LSN, else blank (every page LSN 0).
    fn cell(&self) -> Cell {
        if self.damaged > self.lsn_n {
            Cell::Class(DAMAGED)
        } else if self.lsn_n > 0 {
            Cell::Heat(self.lsn_sum as f64 / self.lsn_n as f64)
        } else {
            Cell::Blank
        }
    }

    fn add(&mut self, o: &CellSum) {
        self.damaged += o.damaged;
        self.lsn_sum += o.lsn_sum;
        self.lsn_n += o.lsn_n;
    }
}

/// The fold behind [`LsnFacts::collect`]: the cells one shard touches,
/// from `first_cell` on, and its share of the histogram and damage.
struct LsnFold {
    scheme: Scheme,
    space_id: SpaceId,
    per_cell: u64,
    first_cell: u64,
    cells: Vec<CellSum>,
    hist: Pow2Histogram,
    zero: u64,
    damaged: Vec<(PageNo, PageProblem)>,
    n_damaged: u64,
    types: TypesSeen,
}

impl LsnFold {
    fn new(scheme: Scheme, space_id: SpaceId, per_cell: u64) -> Self {
        LsnFold {
            scheme,
            space_id,
            per_cell,
            first_cell: 0,
            cells: Vec::new(),
            hist: Pow2Histogram::new(BINS),
            zero: 0,
            damaged: Vec::new(),
            n_damaged: 0,
            types: TypesSeen::default(),
        }
    }
}

impl PageFold for LsnFold {
    fn page(&mut self, n: PageNo, page: &[u8]) {
        let p = page_facts(page, n, self.scheme);
        self.types.note(p.page_type);
        let cell = u64::from(n.0) / self.per_cell;
        if self.cells.is_empty() {
            self.first_cell = cell;
        }
        let i = (cell - self.first_cell) as usize;
        if i >= self.cells.len() {
            self.cells.resize(i + 1, CellSum::default());
        }
        let sum = &mut self.cells[i];
        let before = self.damaged.len();
        self.damaged.extend(
            p.problems(self.space_id)
                .map(|problem| (p.page_no, problem)),
        );
        if self.damaged.len() > before {
            self.n_damaged += 1;
            sum.damaged += 1;
        } else if p.lsn.0 == 0 {
            self.zero += 1;
        } else {
            self.hist.add(p.lsn.0);
            sum.lsn_sum += u128::from(p.lsn.0);
            sum.lsn_n += 1;
        }
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
        self.zero += next.zero;
        self.damaged.extend(next.damaged);
        self.n_damaged += next.n_damaged;
        for t in next.types.iter() {
            self.types.note(t);
        }
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
fn bin_t(s: &Scale, from: u64, to: u64) -> f64 {
    s.t((from as f64 + to as f64) / 2.0)
}

/// `ibdscope lsn`.
pub fn run(opts: &Opts, a: &Analysis<'_>, out: &mut dyn Write) -> io::Result<Outcome> {
    let (path, ts) = (a.path(), a.ts());
    let columns = map::columns(ts);
    let n = u64::from(ts.n_pages());
    let rows = if opts.out.is_some() {
        map::PICTURE_ROWS
    } else {
        map::TERMINAL_ROWS
    };
    let f = LsnFacts::collect(ts, a.engine(), columns, pages_per_cell(n, columns, rows));
    let outcome = if f.damaged.is_empty() {
        Outcome::Clean
    } else {
        Outcome::Findings
    };
    let (wrote, said) = if opts.out.is_some() {
        map::write_picture(
            opts,
            &picture(path, ts, &f),
            &crate::names::path(path).to_string(),
        )
    } else {
        (Outcome::Clean, String::new())
    };
    if opts.format == Format::Json {
        json(out, path, ts, &f)?;
        return Ok(outcome.max(wrote));
    }
    if opts.out.is_some() {
        out.write_all(said.as_bytes())?;
        print_findings(out, path, ts, &f)?;
        return Ok(outcome.max(wrote));
    }
    text(opts, out, path, ts, &f)?;
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
) -> io::Result<()> {
    let st = Style::of(opts);
    let s = f.scale();
    writeln!(
        out,
        "{}: {}, {}, {} with LSN 0{}",
        crate::names::path(path),
        count(ts.n_pages(), "page", "pages"),
        range_words(f),
        f.zero,
        per_cell_note(&f.grid)
    )?;
    print_grid(out, &st, &f.grid, |c| match c {
        Cell::Heat(v) => {
            let t = s.t(v);
            let e = map::eighths(t as f32);
            (st.level(e), Some(rgb_to_ansi256(viridis(t))))
        }
        Cell::Class(_) | Cell::Bar(..) => ("X", Some(DAMAGED_ANSI)),
        Cell::Blank => (" ", None),
    })?;
    writeln!(out)?;
    let bins = f.hist.bins();
    let max = bins.iter().map(|b| b.count).max().unwrap_or(0);
    write!(out, "{:>10} ", "histogram")?;
    for b in &bins {
        let color = rgb_to_ansi256(viridis(bin_t(&s, b.from, b.to)));
        st.paint(out, Some(color), st.level(bar_eighths(b.count, max)))?;
    }
    writeln!(
        out,
        "  {} of {} LSN, tallest {}",
        count(bins.len() as u64, "bin", "bins"),
        1u128 << f.hist.shift(),
        count(max, "page", "pages")
    )?;
    if let Some((lo, hi)) = f.hist.range() {
        writeln!(out, "{:>10} oldest {lo}, newest {hi}", "")?;
    }
    let (ramp, zero) = if st.ascii {
        ("1 2 3 4 5 6 7 8", "' '")
    } else {
        ("▁▂▃▄▅▆▇█", "blank")
    };
    writeln!(
        out,
        "each cell: page LSN from old to new {ramp} (dark to bright in colour), linear between \
         the oldest and newest; {zero}: LSN 0 (never written); X: damaged (LSN not trusted)"
    )?;
    print_findings(out, path, ts, f)
}

fn print_findings(
    out: &mut dyn Write,
    path: &Path,
    ts: &Tablespace<'_>,
    f: &LsnFacts,
) -> io::Result<()> {
    for (p, problem) in &f.damaged {
        writeln!(
            out,
            "{}: page {p} at byte offset {}: {problem}",
            crate::names::path(path),
            ts.file_offset(*p)
        )?;
    }
    Ok(())
}

fn json(out: &mut dyn Write, path: &Path, ts: &Tablespace<'_>, f: &LsnFacts) -> io::Result<()> {
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
        .kv_num("damaged_pages", f.n_damaged)?;
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
        Cell::Class(_) | Cell::Bar(..) => j.str("damaged").map(|_| ()),
    })?;
    j.key("findings")?.arr()?;
    for (p, problem) in &f.damaged {
        j.obj()?
            .kv_num("page", p.0)?
            .kv_num("offset", ts.file_offset(*p))?
            .kv_display("reason", problem)?
            .end_obj()?;
    }
    j.end_arr()?.end_obj()?;
    writeln!(out)
}

/// `"grid": {"columns", "pages_per_cell", "cells": [...]}`.
pub fn grid_json(
    j: &mut Json<'_>,
    g: &Grid,
    cell: impl Fn(&mut Json<'_>, Cell) -> io::Result<()>,
) -> io::Result<()> {
    j.key("grid")?
        .obj()?
        .kv_num("columns", g.columns)?
        .kv_num("pages_per_cell", g.pages_per_cell)?
        .key("cells")?
        .arr()?;
    for c in &g.cells {
        cell(j, *c)?;
    }
    j.end_arr()?.end_obj()?;
    Ok(())
}

/// The LSN picture of one file.
fn picture(path: &Path, ts: &Tablespace<'_>, f: &LsnFacts) -> Picture {
    let s = f.scale();
    let (title, lines) = map::title(path, ts, &f.types, "LSN age");
    let bins = f.hist.bins();
    let mut notes = vec![format!(
        "one cell per page, one row per {} pages{}; blank: LSN 0 (never written), {}",
        f.grid.pages_per_row(),
        if f.grid.pages_per_cell > 1 {
            format!(
                "; each cell holds {} pages (their mean LSN)",
                f.grid.pages_per_cell
            )
        } else {
            String::new()
        },
        count(f.zero, "page", "pages")
    )];
    if f.hist.range().is_some_and(|(lo, hi)| lo == hi) {
        notes.push("every page has the same LSN: all are drawn at the new end".into());
    }
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
                .map(|b| (b.count, viridis(bin_t(&s, b.from, b.to))))
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
            grid: f.grid.clone(),
        }],
        classes: vec![Class {
            label: format!("damaged page (LSN not trusted): {}", f.n_damaged),
            color: ansi256_to_rgb(DAMAGED_ANSI),
            shown: f.n_damaged > 0,
        }],
        heat: Some(HeatScale {
            title: "page LSN, old to new (linear between the oldest and newest page)".into(),
            scale: s,
            lo_label: format!("oldest {}", s.lo as u64),
            hi_label: format!("newest {}", s.hi as u64),
        }),
        notes,
        histograms,
    }
}
