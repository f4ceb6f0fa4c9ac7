//! The fill map's model, shared by `fill` and `compare`: how full each
//! index page is (used / usable bytes from its INDEX header,
//! `IndexHeader::usage`) as a grid, its glyphs, classes and scale, the
//! whole-file figures over every index from the B-tree walk, and the
//! findings of the walk. What `ibdscope fill` prints is in `cmd::fill`.

use crate::args::Opts;
use crate::findings;
use crate::maps::{self, MapScale, PageCell, Style, TypesSeen};
use crate::outcome::Outcome;
use ibdscope::analysis::Analysis;
use ibdscope_core::{Btrees, IndexId};
use ibdscope_render::color::{
    ansi256_to_rgb, rgb_to_ansi256, viridis, DAMAGED_ANSI, FREE_DATA_ANSI, FREE_RGB, OTHER_RGB,
    SYSTEM_ANSI, UNACCOUNTED_RGB, UNVERIFIABLE_ANSI,
};
use ibdscope_render::{Cell, Class, Grid, HeatScale, Scale};
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
            st.level(maps::eighths(v as f32)),
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
    let mut b = scale.builder();
    let mut types = TypesSeen::default();
    for (p, k, _, c) in maps::cell_runs(a, slots, scale) {
        types.note_page(a, p as usize);
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
            f.index_pages = f.index_pages.saturating_add(u64::from(t.pages));
            fill_sum += f64::from(t.mean_fill) * f64::from(t.pages);
            f.steps = f.steps.saturating_add(u64::from(t.fragmentation.steps));
            f.jumps = f.jumps.saturating_add(u64::from(t.fragmentation.jumps));
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
    findings::map_outcome(a, &a.trees().findings)
}

/// Prints the file's, the map's and the trees' findings.
pub fn print_tree_findings(out: &mut dyn Write, opts: &Opts, a: &Analysis<'_>) -> io::Result<()> {
    findings::print_map_findings(out, opts, a, &a.trees().findings)
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
        ansi256_to_rgb(maps::UNDO_ANSI),
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
