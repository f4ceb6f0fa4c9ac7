//! What the maps share, in the terminal and in pictures: how a page is
//! classed (owner and fill), its colours and glyphs, the title of a
//! picture, grids printed as text, and writing a picture file.
//!
//! Colours come from `ibdscope_render::color`, so a page of index slot `s`
//! has ANSI colour `INDEX_ANSI[s % 10]` in the terminal and the RGB value
//! xterm gives that colour in a picture.

use crate::args::{Color, Opts};
use crate::outcome::Outcome;
use crate::text::count;
use ibdscope::analysis::Analysis;
use ibdscope_core::extents::{Owner, SpaceMap};
use ibdscope_core::{IndexId, PageNo, PageType, Tablespace, VendorGuess};
use ibdscope_render::color::{
    ansi256_to_rgb, DAMAGED_ANSI, FREE_ANSI, FREE_DATA_ANSI, FREE_RGB, INDEX_ANSI, OTHER_RGB,
    SEGMENT_TINT, SYSTEM_ANSI, UNACCOUNTED_RGB, UNVERIFIABLE_ANSI,
};
use ibdscope_render::{pages_per_cell, Cell, Class, Grid, GridBuilder};
use std::fmt;
use std::io::{self, IsTerminal, Write};
use std::path::Path;

/// Cells per map row (fewer only when fewer pages are drawn).
pub const COLUMNS: u32 = 64;
/// Rows a map keeps within by default, in the terminal and in pictures
/// alike: cells hold the smallest power of two of pages that does it.
pub const MAX_ROWS: u32 = 128;

/// What a map draws: pages `first ..` (`pages` of them) in rows of
/// `columns` cells of `pages_per_cell` pages. One rule for every map:
/// `--from`/`--to` pick the pages (default all), `--pages-per-cell` the
/// cell (default [`pages_per_cell`] for [`MAX_ROWS`] rows of
/// [`COLUMNS`]); a row is [`COLUMNS`] cells, or the pages drawn when
/// fewer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MapScale {
    /// The first page drawn.
    pub first: u64,
    /// Pages drawn.
    pub pages: u64,
    /// Pages in the file (or the map).
    pub of: u64,
    /// Cells per row.
    pub columns: u32,
    /// Pages per cell.
    pub pages_per_cell: u64,
    /// Bytes per page (physical).
    pub page_size: u32,
    /// Pages per extent.
    pub extent: u32,
}

impl MapScale {
    /// The scale of a map of `n_pages` pages of `ts` as `opts.map` asks.
    pub fn new(ts: &Tablespace<'_>, n_pages: u64, opts: &Opts) -> MapScale {
        let m = opts.map;
        let first = u64::from(m.from).min(n_pages);
        let end =
            m.to.map_or(n_pages, |t| u64::from(t).saturating_add(1).min(n_pages))
                .max(first);
        MapScale::of_range(
            first,
            end.saturating_sub(first),
            n_pages,
            m.pages_per_cell,
            ts.page_size(),
            ts.format().extent_size(),
        )
    }

    /// The scale of `pages` pages from `first` (of `of`), `per_cell` pages
    /// a cell or the default.
    pub fn of_range(
        first: u64,
        pages: u64,
        of: u64,
        per_cell: Option<u64>,
        page_size: u32,
        extent: u32,
    ) -> MapScale {
        let per_cell = per_cell.unwrap_or_else(|| pages_per_cell(pages, COLUMNS, MAX_ROWS));
        let columns = pages.div_ceil(per_cell.max(1)).clamp(1, u64::from(COLUMNS)) as u32;
        MapScale {
            first,
            pages,
            of,
            columns,
            pages_per_cell: per_cell.max(1),
            page_size,
            extent: extent.max(1),
        }
    }

    /// Whether page `n` is drawn.
    pub fn holds(&self, n: u64) -> bool {
        n >= self.first && n.saturating_sub(self.first) < self.pages
    }

    /// The pages drawn.
    pub fn range(&self) -> std::ops::Range<u64> {
        self.first..self.first.saturating_add(self.pages)
    }

    /// An empty grid of this scale to push the pages into.
    pub fn builder(&self) -> GridBuilder {
        GridBuilder::new(self.pages, self.columns, self.pages_per_cell).starting_at(self.first)
    }

    /// Pages per row.
    pub fn pages_per_row(&self) -> u64 {
        u64::from(self.columns).saturating_mul(self.pages_per_cell)
    }

    /// What a cell is: `1 cell = 16 pages (256 KiB)`.
    pub fn cell_words(&self) -> String {
        let k = self.pages_per_cell;
        let bytes = k.saturating_mul(u64::from(self.page_size));
        format!("1 cell = {} ({})", pages_words(k), bytes_words(bytes))
    }

    /// What a row is: `1 row = 64 cells = 1024 pages = 16 extents of 64
    /// pages`.
    pub fn row_words(&self) -> String {
        let row = self.pages_per_row();
        let e = u64::from(self.extent);
        let extents = if row.is_multiple_of(e) {
            format!(
                " = {} of {e} pages",
                count(row.checked_div(e).unwrap_or(0), "extent", "extents")
            )
        } else if e.is_multiple_of(row) {
            format!(
                " = 1/{} extent of {e} pages",
                e.checked_div(row).unwrap_or(0)
            )
        } else {
            format!("; 1 extent = {e} pages")
        };
        format!(
            "1 row = {} = {}{extents}",
            count(self.columns, "cell", "cells"),
            pages_words(row)
        )
    }

    /// What a cell and a row are, in the words every map uses (text, SVG
    /// and PNG): `1 cell = 16 pages (256 KiB); 1 row = 64 cells = 1024
    /// pages = 16 extents of 64 pages`.
    pub fn words(&self) -> String {
        format!("{}; {}", self.cell_words(), self.row_words())
    }

    /// The pages drawn and what a cell and a row are, as a picture's line.
    pub fn picture_line(&self) -> String {
        format!("{}; {}", self.range_words(), self.words())
    }

    /// The same words as [`MapScale::picture_line`] for the terminal, in
    /// two lines of at most 80 columns.
    pub fn print_header(&self, out: &mut dyn Write) -> io::Result<()> {
        writeln!(out, "{}; {}", self.range_words(), self.cell_words())?;
        writeln!(out, "{}", self.row_words())
    }

    /// Which pages are drawn: `pages 0 to 112 (all 113)` or `pages 10 to
    /// 20 of 113`.
    pub fn range_words(&self) -> String {
        if self.pages == 0 {
            return format!("no page drawn (the map has {})", pages_words(self.of));
        }
        let last = self.first.saturating_add(self.pages).saturating_sub(1);
        if self.pages == self.of {
            format!("pages {} to {last} (all {})", self.first, self.of)
        } else {
            format!("pages {} to {last} of {}", self.first, self.of)
        }
    }

    /// How a cell of several pages is drawn (none for one page a cell).
    pub fn vote_words(&self, what: &str) -> Option<String> {
        (self.pages_per_cell > 1).then(|| format!("a cell of several pages shows {what}"))
    }
}

/// One rule for pages asked for past the end of the file (`page N`,
/// `pages --from`, the maps' `--from`: `extents`, `fill`, `lsn`,
/// `compare`): the run could not read what was asked. Said on stderr
/// (`asked` is what was asked: `page 99999`, `--from 99999`); exit 2, and
/// with JSON the run's error object ([`crate::run`]).
pub fn past_end(path: &Path, asked: fmt::Arguments<'_>, n_pages: u64, page_size: u32) -> Outcome {
    crate::diag::say!(
        "ibdscope: {}: {asked} is past the end of the file ({n_pages} whole pages of {page_size} bytes)",
        ibdscope::names::path(path)
    );
    Outcome::Unreadable
}

/// [`past_end`] for a map whose `--from` is not below `n_pages`.
pub fn from_past_end(path: &Path, opts: &Opts, n_pages: u64, page_size: u32) -> Option<Outcome> {
    let from = opts.map.from;
    (u64::from(from) >= n_pages)
        .then(|| past_end(path, format_args!("--from {from}"), n_pages, page_size))
}

/// A leaf chain's order in words: `3 of 25 steps jump (12.0%), mean
/// jump 1.4 pages`; with fewer than 2 leaves (no step) the order cannot be
/// told, and `0%` would read as perfectly ordered.
pub fn order_words(steps: u64, jumps: u64, mean_jump: f64) -> String {
    if steps == 0 {
        return "no step (fewer than 2 leaves): order n/a".to_string();
    }
    let share = jumps as f64 * 100.0 / steps as f64;
    format!("{jumps} of {steps} steps jump ({share:.1}%), mean jump {mean_jump:.1} pages")
}

/// A share of leaf steps that jump as a percentage with `decimals`, or
/// `-` with no step (fewer than 2 leaves: the order cannot be told).
pub fn jump_percent(steps: u64, jumps: u64, decimals: usize) -> String {
    if steps == 0 {
        return "-".to_string();
    }
    format!("{:.decimals$}%", jumps as f64 * 100.0 / steps as f64)
}

/// `1 page`, `1024 pages` (numbers in text have no thousands
/// separators, in every command).
pub fn pages_words(n: u64) -> String {
    if n == 1 {
        "1 page".into()
    } else {
        format!("{} pages", n)
    }
}

/// Bytes in the largest binary unit that divides them: `256 KiB`, `4 MiB`.
pub fn bytes_words(b: u64) -> String {
    for (shift, unit) in [(40, "TiB"), (30, "GiB"), (20, "MiB"), (10, "KiB")] {
        if b >= 1 << shift && b.is_multiple_of(1 << shift) {
            return format!("{} {unit}", b >> shift);
        }
    }
    format!("{} B", b)
}

/// How one page is drawn on the owner map.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PageCell {
    /// Free.
    Free,
    /// FSP_HDR, XDES, IBUF_BITMAP or INODE.
    System,
    /// A B-tree page of the index in palette slot `slot`, with its fill
    /// (used / usable bytes, 0.0–1.0).
    Index {
        /// Palette slot: the index's place among the space's index ids.
        slot: usize,
        /// Fill from the INDEX header.
        fill: f32,
    },
    /// A segment page that is not a B-tree page (BLOB/LOB, allocated).
    Other(Option<usize>),
    /// In use, claimed by nothing.
    Unaccounted,
    /// The page does not verify (what `check` says): whatever its owner,
    /// what is read from it may be wrong.
    Damaged,
    /// The page cannot be verified from the file alone (what `check`
    /// says: encrypted, or compressed with an algorithm not decoded).
    Unverifiable,
    /// Free (XDES), but it still holds an index page with records (the
    /// space map's finding): freed, its bytes not overwritten.
    FreeWithData,
    /// A page of an undo segment: a rollback segment header or an undo
    /// log (`SegmentRole::Undo`).
    Undo,
}

pub use ibdscope_render::color::UNDO_ANSI;

/// A fill in eighths, 1..=8 (a used page is never drawn empty).
pub fn eighths(fill: f32) -> u8 {
    ((fill * 8.0).ceil() as u8).clamp(1, 8)
}

/// Fill of one B-tree page (used / usable bytes) from its header, as the
/// space map's first pass (or a transformed space's transform pass) kept
/// it: `SpaceMap::type_and_fill`, no page read again.
pub fn page_fill(a: &Analysis<'_>, n: PageNo) -> Option<f32> {
    a.map().type_and_fill(a.ts(), n)?.1
}

/// Index ids in id order: palette slots.
pub fn index_slots(map: &SpaceMap) -> Vec<IndexId> {
    let mut ids: Vec<IndexId> = map.indexes.iter().map(|i| i.index_id).collect();
    ids.sort();
    ids.dedup();
    ids
}

/// How page `n` with owner `o` is drawn: what `check` says of it first
/// (damaged, not verifiable), then its owner.
pub fn page_cell(a: &Analysis<'_>, slots: &[IndexId], n: usize, o: Owner) -> PageCell {
    let Ok(n32) = u32::try_from(n).map(PageNo) else {
        return PageCell::Unaccounted;
    };
    let damaged = a
        .damaged_pages()
        .binary_search_by_key(&n32, |b| b.facts.page_no)
        .is_ok();
    if damaged {
        return PageCell::Damaged;
    }
    let unverifiable = a
        .summary()
        .unverifiable
        .binary_search_by_key(&n32, |u| u.0)
        .is_ok();
    if unverifiable {
        return PageCell::Unverifiable;
    }
    match o {
        Owner::Free if a.freed_with_data().binary_search(&n32).is_ok() => PageCell::FreeWithData,
        Owner::Free => PageCell::Free,
        Owner::System(_) => PageCell::System,
        Owner::Unaccounted => PageCell::Unaccounted,
        Owner::Segment {
            role: ibdscope_core::SegmentRole::Undo,
            ..
        } => PageCell::Undo,
        Owner::Segment { index, .. } => {
            let slot = index.and_then(|i| slots.binary_search(&i).ok());
            let fill = u32::try_from(n).ok().and_then(|n| page_fill(a, PageNo(n)));
            match (slot, fill) {
                (Some(slot), Some(fill)) => PageCell::Index { slot, fill },
                (s, _) => PageCell::Other(s),
            }
        }
    }
}

/// Terminal drawing choices.
pub struct Style {
    /// ANSI colours.
    pub color: bool,
    /// ASCII glyphs only.
    pub ascii: bool,
}

/// The owner maps' note without colour when they hold several indexes:
/// their pages are drawn alike (by fill), only the colour tells them apart.
pub const NO_COLOR_INDEXES: &str =
    "without colour the indexes' pages look alike: --color always tells them apart";

/// The ANSI colour of index slot `slot` (the palette repeats).
pub fn index_ansi(slot: usize) -> u8 {
    let i = slot.checked_rem(INDEX_ANSI.len()).unwrap_or(0);
    INDEX_ANSI.get(i).copied().unwrap_or(SYSTEM_ANSI)
}

const BLOCKS: [&str; 9] = [" ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"];
const DIGITS: [&str; 9] = [" ", "1", "2", "3", "4", "5", "6", "7", "8"];
impl Style {
    /// From `--color` and `--ascii` (auto: colour when stdout is a
    /// terminal and NO_COLOR is unset).
    pub fn of(opts: &Opts) -> Style {
        let color = match opts.color {
            Color::Always => true,
            Color::Never => false,
            Color::Auto => io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none(),
        };
        Style {
            color,
            ascii: opts.ascii,
        }
    }

    /// A height in eighths (0 blank, 1..=8) as a block or a digit.
    pub fn level(&self, e: u8) -> &'static str {
        let i = usize::from(e.min(8));
        if self.ascii {
            DIGITS.get(i).copied().unwrap_or(" ")
        } else {
            BLOCKS.get(i).copied().unwrap_or(" ")
        }
    }

    /// The glyph of a non-index page.
    pub fn glyph(&self, c: PageCell) -> &'static str {
        match (c, self.ascii) {
            (PageCell::Free, false) => "·",
            (PageCell::Free, true) => ".",
            (PageCell::System, _) => "S",
            (PageCell::Unaccounted, _) => "?",
            (PageCell::Damaged, _) => "X",
            (PageCell::Unverifiable, _) => "~",
            (PageCell::FreeWithData, _) => "f",
            (PageCell::Undo, _) => "u",
            (PageCell::Other(_), false) => "▒",
            (PageCell::Other(_), true) => "o",
            // By fill, with or without colour: the key-order question
            // (full leaves or split ones) is read from the glyphs; the
            // colour tells the indexes apart.
            (PageCell::Index { fill, .. }, _) => self.level(eighths(fill)),
        }
    }

    /// The ANSI colour of a page on the owner map.
    pub fn owner_color(c: PageCell) -> u8 {
        match c {
            PageCell::Free => FREE_ANSI,
            PageCell::Index { slot, .. } | PageCell::Other(Some(slot)) => index_ansi(slot),
            PageCell::System | PageCell::Unaccounted | PageCell::Other(None) => SYSTEM_ANSI,
            PageCell::Damaged => DAMAGED_ANSI,
            PageCell::Unverifiable => UNVERIFIABLE_ANSI,
            PageCell::FreeWithData => FREE_DATA_ANSI,
            PageCell::Undo => UNDO_ANSI,
        }
    }

    /// Writes `text`, in ANSI colour `color` when colouring.
    pub fn paint(&self, out: &mut dyn Write, color: Option<u8>, text: &str) -> io::Result<()> {
        match color {
            Some(c) if self.color => write!(out, "\x1b[38;5;{c}m{text}\x1b[0m"),
            _ => out.write_all(text.as_bytes()),
        }
    }
}

/// Prints `grid` one row per line, each row led by its first page number;
/// `glyph` gives each cell's text and colour.
pub fn print_grid(
    out: &mut dyn Write,
    st: &Style,
    grid: &Grid,
    glyph: impl Fn(Cell) -> (&'static str, Option<u8>),
) -> io::Result<()> {
    for (r, row) in grid.row_cells().enumerate() {
        write!(out, "{:>10} ", grid.row_start(r))?;
        for c in row {
            let (g, color) = glyph(*c);
            st.paint(out, color, g)?;
        }
        writeln!(out)?;
    }
    Ok(())
}

/// The distinct page types met on a walk, for the vendor guess (one entry
/// per type, not per page).
#[derive(Default)]
pub struct TypesSeen(Vec<PageType>);

impl TypesSeen {
    /// Notes page `n`'s FIL_PAGE_TYPE.
    pub fn note_page(&mut self, a: &Analysis<'_>, n: usize) {
        let t = u32::try_from(n)
            .ok()
            .and_then(|n| a.map().type_and_fill(a.ts(), PageNo(n)))
            .map(|(t, _)| t);
        if let Some(t) = t {
            self.note(t);
        }
    }

    /// The types noted, in the order first met.
    pub fn iter(&self) -> impl Iterator<Item = PageType> + '_ {
        self.0.iter().copied()
    }

    /// Notes a type.
    pub fn note(&mut self, t: PageType) {
        if !self.0.contains(&t) {
            self.0.push(t);
        }
    }

    /// The vendor guess from the format and these types.
    pub fn vendor(&self, ts: &Tablespace<'_>) -> VendorGuess {
        VendorGuess::infer(ts.format(), |t| self.0.contains(&t))
    }
}

/// `16 KiB` or `16384 B`.
pub fn size_words(bytes: u32) -> String {
    if bytes >= 1024 && bytes.is_multiple_of(1024) {
        format!("{} KiB", bytes / 1024)
    } else {
        format!("{bytes} B")
    }
}

/// How a cell of several pages is drawn on the owner and fill maps.
pub const VOTE: &str = "what most of them are (bar, fill: their mean)";

/// A picture's title (file name and vendor) and the lines under it
/// (format, page size, pages; the pages drawn and the scale).
pub fn title(
    path: &Path,
    ts: &Tablespace<'_>,
    types: &TypesSeen,
    what: &str,
    scale: &MapScale,
) -> (String, Vec<String>) {
    let v = types.vendor(ts);
    let f = ts.format();
    let mut size = format!("{} pages", size_words(f.logical_size));
    if f.is_zip() {
        size.push_str(&format!(" ({} on disk)", size_words(f.physical_size)));
    }
    let line = format!(
        "{} · {size} · {} pages · {} pages per extent",
        vendor_words(&v),
        ts.n_pages(),
        f.extent_size()
    );
    (
        format!("{what}: {}", ibdscope::names::path(path)),
        vec![line, scale.picture_line()],
    )
}

/// The vendor and the format, each name said once: `MariaDB 10.5+
/// full_crc32`, `MySQL 8.0+ (or Percona Server)`, `MySQL or Percona
/// Server or MariaDB · Antelope COMPACT`.
pub fn vendor_words(v: &VendorGuess) -> String {
    match v.candidates.split_first() {
        Some((first, rest)) if v.format.starts_with(first.name()) => {
            let others: Vec<&str> = rest.iter().map(|c| c.name()).collect();
            if others.is_empty() {
                v.format.to_string()
            } else {
                format!("{} (or {})", v.format, others.join(" or "))
            }
        }
        _ => format!("{v} · {}", v.format),
    }
}

/// Classes of the owner map after the index slots' (see [`owner_class`]).
pub const CLASSES_AFTER_SLOTS: usize = 8;

/// The page class an [`owner_class`] cell of `n_slots` index slots
/// stands for (its inverse; a bar's level is the mean fill).
pub fn class_cell(c: Cell, n_slots: usize) -> PageCell {
    let (Cell::Class(k) | Cell::Bar(k, _)) = c else {
        return PageCell::Free;
    };
    let k = usize::from(k);
    let base = n_slots.saturating_mul(2);
    if k < base {
        return match c {
            Cell::Bar(_, fill) if k % 2 == 0 => PageCell::Index { slot: k / 2, fill },
            _ => PageCell::Other(Some(k / 2)),
        };
    }
    match k.saturating_sub(base) {
        0 => PageCell::Free,
        1 => PageCell::System,
        2 => PageCell::Unaccounted,
        3 => PageCell::Other(None),
        4 => PageCell::Damaged,
        5 => PageCell::Unverifiable,
        6 => PageCell::FreeWithData,
        _ => PageCell::Undo,
    }
}

/// Palette classes of the owner map: for index slot `s`, class `2s` (its
/// B-tree pages) and `2s + 1` (its other pages, a pale tint); then
/// free, system, unaccounted, other pages of no index, damaged, not
/// verifiable, free pages that still hold records, and undo segment pages.
pub fn owner_class(c: PageCell, n_slots: usize) -> Cell {
    let base = n_slots.saturating_mul(2);
    let k = |n: usize| u16::try_from(n).unwrap_or(u16::MAX);
    match c {
        PageCell::Index { slot, fill } => Cell::Bar(k(slot.saturating_mul(2)), fill),
        PageCell::Other(Some(slot)) => Cell::Class(k(slot.saturating_mul(2).saturating_add(1))),
        PageCell::Free => Cell::Class(k(base)),
        PageCell::System => Cell::Class(k(base.saturating_add(1))),
        PageCell::Unaccounted => Cell::Class(k(base.saturating_add(2))),
        PageCell::Other(None) => Cell::Class(k(base.saturating_add(3))),
        PageCell::Damaged => Cell::Class(k(base.saturating_add(4))),
        PageCell::Unverifiable => Cell::Class(k(base.saturating_add(5))),
        PageCell::FreeWithData => Cell::Class(k(base.saturating_add(6))),
        PageCell::Undo => Cell::Class(k(base.saturating_add(7))),
    }
}

/// The owner of page `p` (unaccounted past the map).
pub fn owner_at(a: &Analysis<'_>, p: u64) -> Owner {
    u32::try_from(p)
        .ok()
        .and_then(|p| a.map().owner(a.ts(), PageNo(p)))
        .unwrap_or(Owner::Unaccounted)
}

/// How many pages from `p` on (below `end`) are known to be zero (the
/// holes of a sparse file: [`Tablespace::next_zero_run`]) in free extents
/// ([`ibdscope_core::SpaceMap::extent_free`]), with no page among them damaged
/// or not verifiable: pages each drawn [`PageCell::Free`], which a walk
/// over the owners takes at once. 0 when page `p` is not one of them.
pub fn free_zero_pages(a: &Analysis<'_>, p: u64, end: u64) -> u64 {
    let ts = a.ts();
    let (Ok(p32), Ok(end32)) = (
        u32::try_from(p),
        u32::try_from(end.min(u64::from(ts.n_pages()))),
    ) else {
        return 0;
    };
    let Some((z, count)) = ts.next_zero_run(p32, end32) else {
        return 0;
    };
    if z.0 != p32 {
        return 0;
    }
    let run_end = p32.saturating_add(count);
    let extent = ts.format().extent_size().max(1);
    let map = a.map();
    let mut q = p32;
    while q < run_end {
        let x = q.checked_div(extent).unwrap_or(0);
        if !map.extent_free(ts, x) {
            break;
        }
        q = x
            .saturating_add(1)
            .saturating_mul(extent)
            .min(run_end)
            .max(q.saturating_add(1));
    }
    let marked = |first: u32| {
        let d = a.damaged_pages();
        let i = d.partition_point(|b| b.facts.page_no.0 < first);
        let damaged = d.get(i).is_some_and(|b| b.facts.page_no.0 < q);
        let u = &a.summary().unverifiable;
        let k = u.partition_point(|x| x.0 .0 < first);
        damaged || u.get(k).is_some_and(|x| x.0 .0 < q)
    };
    if q == p32 || marked(p32) {
        return 0;
    }
    u64::from(q.saturating_sub(p32))
}

/// The pages `scale` draws, in page order, as runs `(first page, pages,
/// owner, cell)` drawn alike: a stretch of [`free_zero_pages`] at once,
/// every other page alone (its owner and [`page_cell`]). So a walk over
/// the owners of a sparse file takes time with its data and its extents,
/// not with every page it claims.
pub fn cell_runs<'a>(
    a: &'a Analysis<'_>,
    slots: &'a [IndexId],
    scale: &MapScale,
) -> impl Iterator<Item = (u64, u64, Owner, PageCell)> + 'a {
    let range = scale.range();
    let total = range.end.saturating_sub(range.start) as usize;
    let mut p = range.start;
    std::iter::from_fn(move || {
        if p >= range.end {
            return None;
        }
        let at = p;
        let k = free_zero_pages(a, p, range.end);
        if k > 1 {
            p = p.saturating_add(k);
            a.progress(p.saturating_sub(range.start) as usize, total);
            return Some((at, k, Owner::Free, PageCell::Free));
        }
        p = p.saturating_add(1);
        a.progress(p.saturating_sub(range.start) as usize, total);
        let o = owner_at(a, at);
        Some((at, 1, o, page_cell(a, slots, at as usize, o)))
    })
}

/// The owner map of the pages `scale` draws as a grid of [`owner_class`]
/// cells numbered for `n_slots` index slots (at least `slots.len()`),
/// with the pages per class and the page types met, in one pass.
pub fn owner_grid(
    a: &Analysis<'_>,
    slots: &[IndexId],
    n_slots: usize,
    scale: &MapScale,
) -> (Grid, Vec<u64>, TypesSeen) {
    let mut b = scale.builder();
    let n_slots = n_slots.max(slots.len());
    let mut counts = vec![
        0u64;
        n_slots
            .saturating_mul(2)
            .saturating_add(CLASSES_AFTER_SLOTS)
    ];
    let mut types = TypesSeen::default();
    for (p, k, _, c) in cell_runs(a, slots, scale) {
        let cell = owner_class(c, n_slots);
        if let Cell::Bar(c, _) | Cell::Class(c) = cell {
            if let Some(x) = counts.get_mut(usize::from(c)) {
                *x = x.saturating_add(k);
            }
        }
        types.note_page(a, p as usize);
        b.push_run(cell, k);
    }
    (b.finish(), counts, types)
}

/// The legend classes of [`owner_class`]: `labels[s]` names slot `s`;
/// `pages(class)` counts the pages of a class (a class with none is not
/// shown).
pub fn owner_classes(labels: &[String], pages: impl Fn(usize) -> u64, total: u64) -> Vec<Class> {
    let pct = |n: u64| n as f64 * 100.0 / total.max(1) as f64;
    let base = labels.len().saturating_mul(2);
    let mut v = Vec::with_capacity(base.saturating_add(CLASSES_AFTER_SLOTS));
    for (s, label) in labels.iter().enumerate() {
        let color = ansi256_to_rgb(index_ansi(s));
        let n = pages(s.saturating_mul(2));
        let m = pages(s.saturating_mul(2).saturating_add(1));
        v.push(Class {
            label: format!("{label}: {} ({:.1}%)", count(n, "page", "pages"), pct(n)),
            color,
            shown: n > 0 || m == 0,
        });
        v.push(Class {
            label: format!(
                "{label}: {} BLOB/LOB or allocated",
                count(m, "page", "pages")
            ),
            color: color.tint(SEGMENT_TINT),
            shown: m > 0,
        });
    }
    for (i, (name, color)) in [
        ("free", FREE_RGB),
        ("system", ansi256_to_rgb(SYSTEM_ANSI)),
        ("unaccounted", UNACCOUNTED_RGB),
        ("segment pages of no index", OTHER_RGB),
        ("damaged: does not verify", ansi256_to_rgb(DAMAGED_ANSI)),
        (
            "not verifiable from the file alone",
            ansi256_to_rgb(UNVERIFIABLE_ANSI),
        ),
        (
            "free but not empty: still holds records",
            ansi256_to_rgb(FREE_DATA_ANSI),
        ),
        (
            "undo: rollback segment headers and undo logs",
            ansi256_to_rgb(UNDO_ANSI),
        ),
    ]
    .into_iter()
    .enumerate()
    {
        let n = pages(base.saturating_add(i));
        v.push(Class {
            label: format!("{name}: {} ({:.1}%)", count(n, "page", "pages"), pct(n)),
            color,
            shown: n > 0 || i < 2,
        });
    }
    v
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

    #[test]
    fn the_scale_in_words_for_4k_16k_and_64k_pages() {
        // Pages per extent from FSP_EXTENT_SIZE (mysql-server 8.0
        // storage/innobase/include/fsp0types.h): 1 MiB extents up to 16K
        // pages, 4 MiB at 64K.
        // 2 GiB of 16K pages: 2,048 rows of 64 pages; 16 a cell keeps 128.
        let s = MapScale::of_range(0, 131_072, 131_072, None, 16384, 64);
        assert_eq!(
            s.words(),
            "1 cell = 16 pages (256 KiB); 1 row = 64 cells = 1024 pages = 16 extents of 64 pages"
        );
        assert_eq!(s.range_words(), "pages 0 to 131071 (all 131072)");
        // 2 GiB of 4K pages (an extent is 256 of them): 64 a cell.
        let s = MapScale::of_range(0, 524_288, 524_288, None, 4096, 256);
        assert_eq!(
            s.words(),
            "1 cell = 64 pages (256 KiB); 1 row = 64 cells = 4096 pages = 16 extents of 256 pages"
        );
        // One page a cell on 4K: a row is a quarter extent.
        let s = MapScale::of_range(0, 113, 113, None, 4096, 256);
        assert_eq!(
            s.row_words(),
            "1 row = 64 cells = 64 pages = 1/4 extent of 256 pages"
        );
        // 64K pages, 3 a cell, pages 2 to 10 of 11: 3 cells, no whole
        // share of an extent.
        let s = MapScale::of_range(2, 9, 11, Some(3), 65536, 64);
        assert_eq!(
            s.picture_line(),
            "pages 2 to 10 of 11; 1 cell = 3 pages (192 KiB); 1 row = 3 cells = 9 pages; 1 extent = 64 pages"
        );
        assert!(s.holds(2) && s.holds(10) && !s.holds(1) && !s.holds(11));
    }

    #[test]
    fn owner_classes_and_cells_invert() {
        let n_slots = 3;
        for c in [
            PageCell::Free,
            PageCell::System,
            PageCell::Unaccounted,
            PageCell::Other(None),
            PageCell::Other(Some(2)),
            PageCell::Damaged,
            PageCell::Unverifiable,
            PageCell::FreeWithData,
            PageCell::Undo,
            PageCell::Index { slot: 1, fill: 0.5 },
        ] {
            assert_eq!(class_cell(owner_class(c, n_slots), n_slots), c);
        }
    }
}
