//! `ibdscope fill`: how full each index page is, as a map, with each
//! index's leaf-fill histogram, mean fill and leaf order.
//!
//! A page's fill is used / usable bytes from its INDEX header
//! (`IndexHeader::usage`); the per-index figures come from the B-tree walk
//! (`Btrees::build`): mean fill over the index's pages and leaves, leaves
//! per tenth of fill, and how often the leaf chain jumps (the next leaf in
//! key order is not the next page of the file) and how far.

use crate::args::{Format, Opts};
use crate::cmd::findings;
use crate::cmd::lsn::grid_json;
use crate::cmd::map::{self, index_slots, print_grid, MapScale, PageCell, Style, TypesSeen};
use crate::json::Json;
use crate::outcome::Outcome;
use crate::text::count;
use ibdscope::analysis::Analysis;
use ibdscope_core::btree::FILL_BUCKETS;
use ibdscope_core::{Btrees, IndexId};
use ibdscope_render::color::{
    ansi256_to_rgb, rgb_to_ansi256, viridis, DAMAGED_ANSI, FREE_DATA_ANSI, FREE_RGB, OTHER_RGB,
    SYSTEM_ANSI, UNACCOUNTED_RGB, UNVERIFIABLE_ANSI,
};
use ibdscope_render::{Cell, Class, Grid, HeatScale, Histogram, Panel, Picture, Scale};
use std::io::{self, Write};

/// Classes of the fill map's non-index pages, in this order.
const CLASSES: [(&str, PageCell); 8] = [
    ("free", PageCell::Free),
    ("system", PageCell::System),
    (
        "not a B-tree page (BLOB/LOB, allocated)",
        PageCell::Other(None),
    ),
    ("unaccounted", PageCell::Unaccounted),
    ("damaged: does not verify", PageCell::Damaged),
    ("not verifiable from the file alone", PageCell::Unverifiable),
    (
        "free but not empty: still holds records",
        PageCell::FreeWithData,
    ),
    (
        "undo: rollback segment headers and undo logs",
        PageCell::Undo,
    ),
];

/// The fill map cell of a page: its fill on the scale, or a class.
pub fn fill_cell(c: PageCell) -> Cell {
    match c {
        PageCell::Index { fill, .. } => Cell::Heat(f64::from(fill)),
        PageCell::Free => Cell::Class(0),
        PageCell::System => Cell::Class(1),
        PageCell::Other(_) => Cell::Class(2),
        PageCell::Unaccounted => Cell::Class(3),
        PageCell::Damaged => Cell::Class(4),
        PageCell::Unverifiable => Cell::Class(5),
        PageCell::FreeWithData => Cell::Class(6),
        PageCell::Undo => Cell::Class(7),
    }
}

/// How a fill map cell is drawn in the terminal: glyph and colour.
pub fn fill_glyph(st: &Style, c: Cell) -> (&'static str, Option<u8>) {
    match c {
        Cell::Heat(v) => (
            st.level(map::eighths(v as f32)),
            Some(rgb_to_ansi256(viridis(v))),
        ),
        Cell::Class(k) | Cell::Bar(k, _) => {
            let pc = CLASSES
                .get(usize::from(k))
                .map_or(PageCell::Unaccounted, |c| c.1);
            let color = match pc {
                PageCell::Other(_) | PageCell::Unaccounted => SYSTEM_ANSI,
                _ => Style::owner_color(pc),
            };
            (st.glyph(pc), Some(color))
        }
        Cell::Blank => (" ", None),
    }
}

/// The fill map of the pages `scale` draws and the page types met, in one
/// pass.
pub fn fill_grid(a: &Analysis<'_>, slots: &[IndexId], scale: &MapScale) -> (Grid, TypesSeen) {
    let ts = a.ts();
    let mut b = scale.builder();
    let mut types = TypesSeen::default();
    for (p, k, _, c) in map::cell_runs(a, slots, scale) {
        types.note_page(ts, p as usize);
        b.push_run(fill_cell(c), k);
    }
    (b.finish(), types)
}

/// Whole-file figures over every index.
#[derive(Clone, Copy, Debug, Default)]
pub struct Figures {
    /// Index pages walked.
    pub index_pages: u64,
    /// Mean fill over them.
    pub mean_fill: Option<f64>,
    /// Steps along the leaf chains, jumps among them, and their distance.
    pub steps: u64,
    /// Steps to a page that is not the next one.
    pub jumps: u64,
    /// Sum of |next − page| over the steps.
    pub distance: u64,
}

impl Figures {
    /// Sums the trees' figures (fill weighted by pages).
    pub fn of(trees: &Btrees) -> Figures {
        let mut f = Figures::default();
        let mut fill_sum = 0.0;
        for t in &trees.indexes {
            f.index_pages += u64::from(t.pages);
            fill_sum += f64::from(t.mean_fill) * f64::from(t.pages);
            f.steps += u64::from(t.fragmentation.steps);
            f.jumps += u64::from(t.fragmentation.jumps);
            f.distance = f.distance.saturating_add(t.fragmentation.distance);
        }
        if f.index_pages > 0 {
            f.mean_fill = Some(fill_sum / f.index_pages as f64);
        }
        f
    }

    /// Share of leaf steps that jump.
    pub fn jump_share(&self) -> f64 {
        if self.steps == 0 {
            0.0
        } else {
            self.jumps as f64 / self.steps as f64
        }
    }

    /// Mean |next − page| per step.
    pub fn mean_jump(&self) -> f64 {
        if self.steps == 0 {
            0.0
        } else {
            self.distance as f64 / self.steps as f64
        }
    }
}

/// The exit code of a file's map and its trees.
pub fn tree_outcome(a: &Analysis<'_>) -> Outcome {
    crate::cmd::space::outcome(a, &a.trees().findings)
}

/// Prints the file's, the map's and the trees' findings.
pub fn print_findings(out: &mut dyn Write, opts: &Opts, a: &Analysis<'_>) -> io::Result<()> {
    crate::cmd::space::print_findings(out, opts, a, &a.trees().findings)
}

fn percent(f: f32) -> String {
    format!("{:.1}%", f64::from(f) * 100.0)
}

/// `ibdscope fill`.
pub fn run(opts: &Opts, a: &Analysis<'_>, out: &mut dyn Write) -> io::Result<Outcome> {
    let (path, ts) = (a.path(), a.ts());
    let (map, trees) = (a.map(), a.trees());
    let n_pages = u64::from(map.n_pages());
    if let Some(o) = crate::cmd::map::from_past_end(path, opts, n_pages, ts.page_size()) {
        return Ok(o);
    }
    let slots = index_slots(map);
    let scale = MapScale::new(ts, n_pages, opts);
    let (grid, types) = fill_grid(a, &slots, &scale);
    let outcome = tree_outcome(a);
    let (wrote, said) = if opts.out.is_some() {
        let p = picture(a, grid.clone(), &types, &scale);
        let what = ibdscope::names::path(path).to_string();
        map::write_picture(opts, &p, &what, &scale.words())
    } else {
        (Outcome::Clean, String::new())
    };
    if opts.format == Format::Json {
        json(out, a, &grid)?;
        return Ok(outcome.max(wrote));
    }
    if opts.out.is_some() {
        out.write_all(said.as_bytes())?;
        print_findings(out, opts, a)?;
        return Ok(outcome.max(wrote));
    }
    let st = Style::of(opts);
    writeln!(
        out,
        "{}: {} of {} bytes, {} pages per extent",
        ibdscope::names::path(path),
        count(ts.n_pages(), "page", "pages"),
        ts.page_size(),
        ts.format().extent_size(),
    )?;
    scale.print_header(out)?;
    print_grid(out, &st, &grid, |c| fill_glyph(&st, c))?;
    writeln!(out)?;
    for t in &trees.indexes {
        let fr = t.fragmentation;
        writeln!(
            out,
            "index {}: {}, {}; fill {} (leaves {})\n{:>10} leaf chain: {}",
            a.index_label(t.index_id),
            count(t.pages, "page", "pages"),
            count(t.leaf_pages, "leaf", "leaves"),
            percent(t.mean_fill),
            percent(t.mean_leaf_fill),
            "",
            map::order_words(
                u64::from(fr.steps),
                u64::from(fr.jumps),
                f64::from(fr.mean_distance())
            )
        )?;
        let max = t.leaf_fill_hist.iter().copied().max().unwrap_or(0);
        write!(out, "{:>10} ", "leaf fill")?;
        for (k, &count) in t.leaf_fill_hist.iter().enumerate() {
            let e = if count == 0 {
                0
            } else {
                (u64::from(count) * 8).div_ceil(u64::from(max)).clamp(1, 8) as u8
            };
            let color = rgb_to_ansi256(viridis(decile_mid(k)));
            st.paint(out, Some(color), st.level(e))?;
        }
        writeln!(
            out,
            "  0% .. 100%, 10% per bin, tallest {}",
            count(max, "leaf", "leaves")
        )?;
    }
    let (ramp, free) = if st.ascii {
        ("1 2 3 4 5 6 7 8", ".")
    } else {
        ("▁▂▃▄▅▆▇█", "·")
    };
    writeln!(
        out,
        "index pages by fill in eighths {ramp} (used / usable bytes)\n\
         {free} free, S system, {} not a B-tree page, ? unaccounted",
        st.glyph(PageCell::Other(None)),
    )?;
    let marked = [
        (PageCell::Damaged, "X damaged (does not verify)"),
        (PageCell::Unverifiable, "~ not verifiable"),
        (PageCell::FreeWithData, "f free but holds records"),
        (
            PageCell::Undo,
            "u undo (rollback segment headers, undo logs)",
        ),
    ];
    let shown: Vec<&str> = (marked.iter())
        .filter(|(c, _)| grid.cells.contains(&fill_cell(*c)))
        .map(|(_, w)| *w)
        .collect();
    if !shown.is_empty() {
        writeln!(out, "{}", shown.join(", "))?;
    }
    if let Some(v) = scale.vote_words(map::VOTE) {
        writeln!(out, "{v}")?;
    }
    print_findings(out, opts, a)?;
    Ok(outcome)
}

/// The middle of fill bucket `k` (of [`FILL_BUCKETS`]).
fn decile_mid(k: usize) -> f64 {
    (k as f64 + 0.5) / FILL_BUCKETS as f64
}

fn json(out: &mut dyn Write, a: &Analysis<'_>, grid: &Grid) -> io::Result<()> {
    let (path, ts, map, trees) = (a.path(), a.ts(), a.map(), a.trees());
    let mut j = Json::new(out);
    j.obj()?
        .kv_path("file", path)?
        .kv_num("page_size", ts.page_size())?
        .kv_num("pages", ts.n_pages())?;
    j.key("indexes")?.arr()?;
    for t in &trees.indexes {
        let fr = t.fragmentation;
        j.obj()?
            .kv_index(a, t.index_id)?
            .kv_num("pages", t.pages)?
            .kv_num("leaf_pages", t.leaf_pages)?;
        j.key("mean_fill")?.float(f64::from(t.mean_fill), 4)?;
        j.key("mean_leaf_fill")?
            .float(f64::from(t.mean_leaf_fill), 4)?;
        j.key("leaf_fill_histogram")?.arr()?;
        for c in t.leaf_fill_hist {
            j.num(c)?;
        }
        j.end_arr()?;
        j.kv_num("leaf_steps", fr.steps)?
            .kv_num("leaf_jumps", fr.jumps)?;
        j.key("jump_share")?.float(f64::from(fr.share()), 4)?;
        j.key("mean_jump")?
            .float(f64::from(fr.mean_distance()), 2)?;
        j.end_obj()?;
    }
    j.end_arr()?;
    grid_json(&mut j, grid, |j, c| match c {
        Cell::Heat(v) => j.float(v, 4).map(|_| ()),
        Cell::Class(k) | Cell::Bar(k, _) => {
            let word = match k {
                0 => "free",
                1 => "system",
                2 => "other",
                3 => "unaccounted",
                4 => "damaged",
                5 => "unverifiable",
                6 => "free_with_records",
                _ => "undo",
            };
            j.str(word).map(|_| ())
        }
        Cell::Blank => j.null().map(|_| ()),
    })?;
    findings::json(&mut j, a, &[&map.findings, &trees.findings])?;
    j.end_obj()?;
    writeln!(out)
}

/// The classes of the fill map's non-index pages.
pub fn fill_classes(grid: &Grid) -> Vec<Class> {
    let colors = [
        FREE_RGB,
        ansi256_to_rgb(SYSTEM_ANSI),
        OTHER_RGB,
        UNACCOUNTED_RGB,
        ansi256_to_rgb(DAMAGED_ANSI),
        ansi256_to_rgb(UNVERIFIABLE_ANSI),
        ansi256_to_rgb(FREE_DATA_ANSI),
        ansi256_to_rgb(map::UNDO_ANSI),
    ];
    CLASSES
        .iter()
        .zip(colors)
        .enumerate()
        .map(|(i, ((name, _), color))| Class {
            label: (*name).to_string(),
            color,
            shown: grid.cells.contains(&Cell::Class(i as u16)),
        })
        .collect()
}

/// The scale of fill, 0 % to 100 %.
pub fn fill_scale() -> HeatScale {
    HeatScale {
        title: "index page fill: used / usable bytes (records and directory), from the page header"
            .into(),
        scale: Scale { lo: 0.0, hi: 1.0 },
        lo_label: "0%".into(),
        hi_label: "100%".into(),
        floor: 0.0,
        ticks: Vec::new(),
    }
}

fn picture(a: &Analysis<'_>, grid: Grid, types: &TypesSeen, scale: &MapScale) -> Picture {
    let (path, ts, trees) = (a.path(), a.ts(), a.trees());
    let (title, lines) = map::title(path, ts, types, "page fill", scale);
    let mut notes: Vec<String> = scale.vote_words(map::VOTE).into_iter().collect();
    for t in &trees.indexes {
        let fr = t.fragmentation;
        notes.push(format!(
            "index {}: {} pages ({} leaves), fill {} (leaves {}); leaf chain: {}",
            a.index_label(t.index_id),
            t.pages,
            t.leaf_pages,
            percent(t.mean_fill),
            percent(t.mean_leaf_fill),
            map::order_words(
                u64::from(fr.steps),
                u64::from(fr.jumps),
                f64::from(fr.mean_distance())
            )
        ));
    }
    let histograms = trees
        .indexes
        .iter()
        .map(|t| Histogram {
            title: format!(
                "index {}: leaves per tenth of fill",
                a.index_label(t.index_id)
            ),
            bars: t
                .leaf_fill_hist
                .iter()
                .enumerate()
                .map(|(k, &c)| (u64::from(c), viridis(decile_mid(k))))
                .collect(),
            left: "0%".into(),
            right: "100%".into(),
        })
        .collect();
    Picture {
        title,
        lines,
        classes: fill_classes(&grid),
        panels: vec![Panel {
            caption: Vec::new(),
            grid,
        }],
        heat: Some(fill_scale()),
        notes,
        histograms,
    }
}
