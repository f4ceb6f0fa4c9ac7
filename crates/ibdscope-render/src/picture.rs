//! A picture: a title, one or more grids side by side at the same scale,
//! a legend, a colour scale and histograms, drawn with plotters to PNG or
//! SVG.
//!
//! Drawing order (tests rely on it): background; title and lines; panel
//! captions and row labels; then per panel the row slots (one
//! [`SLOT_RGB`] rectangle per row) followed by one rectangle per non-blank
//! cell; then the legend, where each label's text comes before its
//! swatch; the colour scale; notes; histograms. A cell is one element, so
//! an SVG holds exactly one rectangle per non-blank cell between the first
//! row slot and the first text after it.

use crate::color::{ramp, Rgb, SLOT_RGB};
use crate::font;
use crate::grid::{Cell, Grid, Scale};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::path::{Path, PathBuf};
use std::sync::Once;

/// The bundled font (DejaVu Sans, Bitstream Vera licence with public-domain
/// DejaVu changes; fonts/LICENSE-DejaVu.txt), so PNG text needs no system
/// font.
static FONT: &[u8] = include_bytes!("../fonts/DejaVuSans.ttf");
const FAMILY: &str = "sans-serif";

pub(crate) fn register_font() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // The bytes are a valid TrueType font, checked by a test.
        let _ = plotters::style::register_font(FAMILY, FontStyle::Normal, FONT);
    });
}

/// A legend entry: what cells of [`Cell::Class`] / [`Cell::Bar`] `n` are.
#[derive(Clone, Debug, PartialEq)]
pub struct Class {
    /// The legend text.
    pub label: String,
    /// The colour of the cells.
    pub color: Rgb,
    /// Whether the legend lists it (false for classes no page has).
    pub shown: bool,
}

/// The colour scale of [`Cell::Heat`] values.
#[derive(Clone, Debug, PartialEq)]
pub struct HeatScale {
    /// What the scale measures.
    pub title: String,
    /// The values at its ends.
    pub scale: Scale,
    /// Text at the low end.
    pub lo_label: String,
    /// Text at the high end.
    pub hi_label: String,
    /// Where the colours start on viridis (0.0 its darkest purple; see
    /// [`crate::color::ramp`]).
    pub floor: f64,
    /// Marks under the scale: position (0.0–1.0) and text. A label that
    /// would overlap the one before is left out; the mark stays.
    pub ticks: Vec<(f64, String)>,
}

/// One grid with its caption.
#[derive(Clone, Debug, PartialEq)]
pub struct Panel {
    /// Lines above the grid.
    pub caption: Vec<String>,
    /// The cells.
    pub grid: Grid,
}

/// A bar chart of counts.
#[derive(Clone, Debug, PartialEq)]
pub struct Histogram {
    /// The line above it.
    pub title: String,
    /// One bar per bin: count and colour.
    pub bars: Vec<(u64, Rgb)>,
    /// Text under the left end.
    pub left: String,
    /// Text under the right end.
    pub right: String,
}

/// Everything one picture shows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Picture {
    /// The first line, large.
    pub title: String,
    /// Lines under the title.
    pub lines: Vec<String>,
    /// The grids, side by side, at one scale.
    pub panels: Vec<Panel>,
    /// The classes cells refer to.
    pub classes: Vec<Class>,
    /// The scale of heat cells, if any.
    pub heat: Option<HeatScale>,
    /// Lines under the legend.
    pub notes: Vec<String>,
    /// Charts at the bottom.
    pub histograms: Vec<Histogram>,
}

/// The file formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImageFormat {
    /// PNG (RGB, 8 bits per channel).
    Png,
    /// SVG.
    Svg,
}

impl ImageFormat {
    /// The format a file name asks for by its extension (case-insensitive).
    pub fn from_path(path: &Path) -> Option<ImageFormat> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "png" => Some(ImageFormat::Png),
            "svg" => Some(ImageFormat::Svg),
            _ => None,
        }
    }
}

/// What was drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Drawn {
    /// Image width in pixels.
    pub width: u32,
    /// Image height in pixels.
    pub height: u32,
    /// Cell width and height in pixels.
    pub cell: (u32, u32),
}

/// The crate's one error type: a picture that could not be written,
/// with the file it was written to and the drawing library's error (its
/// [`std::error::Error::source`]).
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// Drawing into the image failed.
    Draw {
        /// The file being written.
        path: PathBuf,
        /// The drawing library's error.
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// Writing the image to its file failed.
    Write {
        /// The file being written.
        path: PathBuf,
        /// The drawing library's error.
        source: Box<dyn std::error::Error + Send + Sync>,
    },
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Draw { path, source } | Error::Write { path, source } => {
                write!(f, "{}: {source}", path.display())
            }
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Draw { source, .. } | Error::Write { source, .. } => Some(source.as_ref()),
        }
    }
}

// Layout, in pixels.
const MARGIN: i32 = 16;
const TITLE_PX: f64 = 20.0;
const LINE_PX: f64 = 14.0;
// Even sizes only: plotters' ab_glyph text truncates half a pixel of
// vertical offset per glyph at odd sizes, raising full stops and commas.
const SMALL_PX: f64 = 14.0;
const LABEL_PX: f64 = 12.0;
const PANEL_GAP: i32 = 28;
const MAP_W: u32 = 900;
const MAP_H: u32 = 1100;
const MAX_W: i32 = 1700;
const MIN_W: i32 = 620;
const SWATCH: i32 = 14;
const HIST_H: i32 = 64;
const HIST_W: i32 = 300;
const SCALE_W: i32 = 256;
/// The colour scale's width when it has ticks (room for their labels).
const TICKS_W: i32 = 512;

fn scale_w(h: &HeatScale) -> i32 {
    if h.ticks.is_empty() {
        SCALE_W
    } else {
        TICKS_W
    }
}

fn text_w(text: &str, px: f64) -> i32 {
    register_font();
    (FAMILY, px).into_font().box_size(text).map_or(
        (text.chars().count() as f64 * px * 0.62) as i32,
        |(w, _)| w as i32,
    )
}

struct Layout {
    width: i32,
    height: i32,
    cell_w: i32,
    cell_h: i32,
    gap: i32,
    label_w: i32,
    /// Per panel: left edge, caption top, grid top.
    panels: Vec<(i32, i32, i32)>,
    /// Per line of panels: grid top, rows, and the grid whose pages label
    /// the rows.
    lines: Vec<(i32, usize, usize)>,
    legend: Vec<(i32, i32, usize)>,
    scale_y: i32,
    notes_y: i32,
    hist_y: i32,
    hist_w: i32,
    hist_per_row: usize,
    /// Text is placed glyph by glyph (PNG; an SVG viewer lays out its own).
    glyphs: bool,
}

const HIST_BLOCK: i32 = 18 + HIST_H + 20 + 12;

fn layout(p: &Picture) -> Layout {
    // Cells are sized for the widest grid; panels flow into lines of as
    // many as fit in MAX_W, all at one cell size.
    let max_cols = p
        .panels
        .iter()
        .map(|x| x.grid.columns)
        .max()
        .unwrap_or(1)
        .max(1);
    let cell_w = (MAP_W / max_cols).clamp(2, 18) as i32;
    let max_page = p
        .panels
        .iter()
        .map(|x| (x.grid.first_page + x.grid.n_pages).saturating_sub(1))
        .max()
        .unwrap_or(0);
    let label_w = text_w(&max_page.to_string(), LABEL_PX) + 8;
    let slot_w: Vec<i32> = p
        .panels
        .iter()
        .map(|panel| {
            let cap_w = panel
                .caption
                .iter()
                .map(|l| text_w(l, SMALL_PX))
                .max()
                .unwrap_or(0);
            (panel.grid.columns as i32 * cell_w).max(cap_w)
        })
        .collect();
    let widest = slot_w.iter().copied().max().unwrap_or(0);
    let per_line =
        ((MAX_W - 2 * MARGIN - label_w + PANEL_GAP) / (widest + PANEL_GAP)).max(1) as usize;
    let line_rows: Vec<usize> = p
        .panels
        .chunks(per_line)
        .map(|c| c.iter().map(|x| x.grid.rows()).max().unwrap_or(0).max(1))
        .collect();
    let all_rows = line_rows.iter().sum::<usize>().max(1) as u32;
    let cell_h = ((MAP_H / all_rows) as i32).clamp(3, cell_w.max(6));
    let gap = i32::from(cell_w >= 5 && cell_h >= 5);
    let cap_lines = p.panels.iter().map(|x| x.caption.len()).max().unwrap_or(0) as i32;

    let mut y = MARGIN + 28 + 20 * p.lines.len() as i32 + 6;
    let mut panels = Vec::new();
    let mut lines = Vec::new();
    let mut maps_right = 0;
    for (line, chunk) in p.panels.chunks(per_line).enumerate() {
        let caption_y = y;
        let map_y = y + 19 * cap_lines + if cap_lines > 0 { 4 } else { 0 };
        let mut x = MARGIN + label_w;
        for (i, _) in chunk.iter().enumerate() {
            panels.push((x, caption_y, map_y));
            x += slot_w[line * per_line + i] + PANEL_GAP;
        }
        maps_right = maps_right.max(x - PANEL_GAP + MARGIN);
        let rows = line_rows[line];
        // The rows are labelled with the pages of the grid of fewest pages
        // per row (the largest pages, when files of several page sizes are
        // drawn by bytes).
        let labels = (0..chunk.len())
            .min_by_key(|&i| chunk[i].grid.pages_per_row())
            .unwrap_or(0);
        lines.push((map_y, rows, line * per_line + labels));
        y = map_y + rows as i32 * cell_h + 16;
    }
    if p.panels.is_empty() {
        y += 16;
    }
    let title_w = text_w(&p.title, TITLE_PX) + 2 * MARGIN;
    let lines_w = p
        .lines
        .iter()
        .chain(&p.notes)
        .map(|l| text_w(l, LINE_PX) + 2 * MARGIN)
        .max()
        .unwrap_or(0);
    let hist_w = if p.histograms.len() == 1 {
        (maps_right - 2 * MARGIN).clamp(HIST_W, 2 * HIST_W)
    } else {
        HIST_W
    };
    let width = maps_right
        .max(title_w)
        .max(lines_w)
        .max(MIN_W)
        .max(hist_w + 2 * MARGIN)
        .min(8000);

    // The legend flows in lines.
    let legend_y = y;
    let mut legend = Vec::new();
    let (mut lx, mut ly) = (MARGIN, 0);
    for (i, c) in p.classes.iter().enumerate().filter(|(_, c)| c.shown) {
        let w = SWATCH + 5 + text_w(&c.label, SMALL_PX) + 18;
        if lx > MARGIN && lx + w > width - MARGIN {
            lx = MARGIN;
            ly += 20;
        }
        legend.push((lx, legend_y + ly, i));
        lx += w;
    }
    if !legend.is_empty() {
        y += ly + 26;
    }
    let scale_y = y;
    if let Some(h) = &p.heat {
        y += 20 + 14 + 22;
        if !h.ticks.is_empty() {
            y += 16;
        }
    }
    let notes_y = y;
    y += 18 * p.notes.len() as i32;
    if !p.notes.is_empty() {
        y += 8;
    }
    let hist_y = y;
    let hist_per_row = (((width - 2 * MARGIN + 24) / (hist_w + 24)).max(1)) as usize;
    let hist_rows = p.histograms.len().div_ceil(hist_per_row) as i32;
    y += hist_rows * HIST_BLOCK;
    Layout {
        width,
        height: (y + MARGIN - 8).min(30_000),
        cell_w,
        cell_h,
        gap,
        label_w,
        panels,
        lines,

        legend,
        scale_y,
        notes_y,
        hist_y,
        hist_w,
        hist_per_row,
        glyphs: false,
    }
}

/// Draws `p` into `path`, PNG or SVG by `format`.
pub fn render(p: &Picture, path: &Path, format: ImageFormat) -> Result<Drawn, Error> {
    register_font();
    let mut l = layout(p);
    l.glyphs = format == ImageFormat::Png;
    let size = (l.width as u32, l.height as u32);
    let drawing = |e: Box<dyn std::error::Error + Send + Sync>| Error::Draw {
        path: path.to_path_buf(),
        source: e,
    };
    let writing = |e: Box<dyn std::error::Error + Send + Sync>| Error::Write {
        path: path.to_path_buf(),
        source: e,
    };
    match format {
        ImageFormat::Png => {
            let root = BitMapBackend::new(path, size).into_drawing_area();
            draw(&root, p, &l).map_err(|e| drawing(Box::new(e)))?;
            root.present().map_err(|e| writing(Box::new(e)))?;
        }
        ImageFormat::Svg => {
            let root = SVGBackend::new(path, size).into_drawing_area();
            draw(&root, p, &l).map_err(|e| drawing(Box::new(e)))?;
            root.present().map_err(|e| writing(Box::new(e)))?;
        }
    }
    Ok(Drawn {
        width: size.0,
        height: size.1,
        cell: (l.cell_w as u32, l.cell_h as u32),
    })
}

fn color(c: Rgb) -> RGBColor {
    RGBColor(c.0, c.1, c.2)
}

type DrawResult<DB> = Result<(), DrawingAreaErrorKind<<DB as DrawingBackend>::ErrorType>>;

fn text<DB: DrawingBackend>(
    a: &DrawingArea<DB, Shift>,
    glyphs: bool,
    s: &str,
    (x, y): (i32, i32),
    px: f64,
    h: HPos,
    c: Rgb,
) -> DrawResult<DB> {
    let ink = color(c);
    let style = TextStyle::from((FAMILY, px).into_font())
        .color(&ink)
        .pos(Pos::new(h, VPos::Top));
    if !glyphs {
        return a.draw_text(s, &style, (x, y));
    }
    // Glyph by glyph at the places the font's metrics give (see
    // `font::place`): plotters' own placement drops each glyph's left side
    // bearing and the fractions of its pen position.
    let Some(placed) = font::place(FONT, s, px) else {
        return a.draw_text(s, &style, (x, y));
    };
    let left = match h {
        HPos::Left => x,
        HPos::Right => x - placed.width.round() as i32,
        HPos::Center => x - (placed.width / 2.0).round() as i32,
    };
    let style = style.pos(Pos::new(HPos::Left, VPos::Top));
    let mut buf = [0u8; 4];
    for (ch, dx) in s.chars().zip(&placed.x) {
        if !ch.is_whitespace() {
            a.draw_text(ch.encode_utf8(&mut buf), &style, (left + dx, y))?;
        }
    }
    Ok(())
}

fn rect<DB: DrawingBackend>(
    a: &DrawingArea<DB, Shift>,
    (x, y): (i32, i32),
    (w, h): (i32, i32),
    c: Rgb,
) -> DrawResult<DB> {
    a.draw(&Rectangle::new([(x, y), (x + w, y + h)], color(c).filled()))
}

const INK: Rgb = Rgb(0x20, 0x20, 0x20);
const GREY_INK: Rgb = Rgb(0x60, 0x60, 0x60);

fn draw<DB: DrawingBackend>(a: &DrawingArea<DB, Shift>, p: &Picture, l: &Layout) -> DrawResult<DB> {
    let glyphs = l.glyphs;
    a.fill(&WHITE)?;
    text(
        a,
        glyphs,
        &p.title,
        (MARGIN, MARGIN),
        TITLE_PX,
        HPos::Left,
        INK,
    )?;
    for (i, line) in p.lines.iter().enumerate() {
        let y = MARGIN + 28 + 20 * i as i32;
        text(a, glyphs, line, (MARGIN, y), LINE_PX, HPos::Left, GREY_INK)?;
    }
    for (panel, &(x, cy, _)) in p.panels.iter().zip(&l.panels) {
        for (i, line) in panel.caption.iter().enumerate() {
            let y = cy + 19 * i as i32;
            text(a, glyphs, line, (x, y), SMALL_PX, HPos::Left, INK)?;
        }
    }
    // Row labels: the first page of the row, left of each line of panels
    // (every panel has the same bytes per row).
    let step = (14 / l.cell_h.max(1) + 1) as usize;
    for &(map_y, rows, labels) in &l.lines {
        let Some(g) = p.panels.get(labels).map(|x| &x.grid) else {
            continue;
        };
        for r in (0..rows).step_by(step) {
            let page = g.row_start(r);
            let y = map_y + r as i32 * l.cell_h + (l.cell_h - l.gap) / 2 - 6;
            let x = MARGIN + l.label_w - 6;
            text(
                a,
                glyphs,
                &page.to_string(),
                (x, y),
                LABEL_PX,
                HPos::Right,
                GREY_INK,
            )?;
        }
    }
    for (panel, &(x0, _, y0)) in p.panels.iter().zip(&l.panels) {
        draw_grid(a, p, l, &panel.grid, (x0, y0))?;
    }
    // Legend.
    for &(x, y, i) in &l.legend {
        let c = &p.classes[i];
        text(
            a,
            glyphs,
            &c.label,
            (x + SWATCH + 5, y),
            SMALL_PX,
            HPos::Left,
            INK,
        )?;
        rect(a, (x, y + 2), (SWATCH, SWATCH), c.color)?;
    }
    if let Some(h) = &p.heat {
        let y = l.scale_y;
        text(a, glyphs, &h.title, (MARGIN, y), SMALL_PX, HPos::Left, INK)?;
        let w = scale_w(h);
        for i in 0..w / 2 {
            let t = f64::from(i) / f64::from(w / 2 - 1);
            rect(a, (MARGIN + 2 * i, y + 20), (2, 14), h.color_at(t))?;
        }
        let mut labels_y = y + 37;
        if !h.ticks.is_empty() {
            let mut free_from = i32::MIN;
            for (t, label) in &h.ticks {
                let x = MARGIN + (t.clamp(0.0, 1.0) * f64::from(w - 1)).round() as i32;
                rect(a, (x, y + 34), (1, 5), INK)?;
                let lw = text_w(label, LABEL_PX);
                let left = (x - lw / 2).clamp(MARGIN, MARGIN + w - lw);
                if left >= free_from {
                    text(a, glyphs, label, (left, y + 40), LABEL_PX, HPos::Left, INK)?;
                    free_from = left + lw + 8;
                }
            }
            labels_y += 16;
        }
        text(
            a,
            glyphs,
            &h.lo_label,
            (MARGIN, labels_y),
            LABEL_PX,
            HPos::Left,
            GREY_INK,
        )?;
        let right = MARGIN + w;
        text(
            a,
            glyphs,
            &h.hi_label,
            (right, labels_y),
            LABEL_PX,
            HPos::Right,
            GREY_INK,
        )?;
    }
    for (i, n) in p.notes.iter().enumerate() {
        let y = l.notes_y + 18 * i as i32;
        text(a, glyphs, n, (MARGIN, y), SMALL_PX, HPos::Left, GREY_INK)?;
    }
    for (i, h) in p.histograms.iter().enumerate() {
        let col = (i % l.hist_per_row) as i32;
        let row = (i / l.hist_per_row) as i32;
        let x = MARGIN + col * (l.hist_w + 24);
        let y = l.hist_y + row * HIST_BLOCK;
        draw_histogram(a, glyphs, h, (x, y), l.hist_w)?;
    }
    Ok(())
}

fn draw_grid<DB: DrawingBackend>(
    a: &DrawingArea<DB, Shift>,
    p: &Picture,
    l: &Layout,
    g: &Grid,
    (x0, y0): (i32, i32),
) -> DrawResult<DB> {
    let (cw, ch, gap) = (l.cell_w, l.cell_h, l.gap);
    for (r, row) in g.row_cells().enumerate() {
        let y = y0 + r as i32 * ch;
        rect(
            a,
            (x0, y),
            (row.len() as i32 * cw - gap, ch - gap),
            SLOT_RGB,
        )?;
    }
    for (r, row) in g.row_cells().enumerate() {
        let y = y0 + r as i32 * ch;
        for (c, cell) in row.iter().enumerate() {
            let x = x0 + c as i32 * cw;
            let Some(ink) = cell_color(p, *cell) else {
                continue;
            };
            match *cell {
                Cell::Bar(_, level) => {
                    let full = ch - gap;
                    let h = ((f64::from(level) * f64::from(full)).round() as i32).clamp(1, full);
                    rect(a, (x, y + full - h), (cw - gap, h), ink)?;
                }
                _ => rect(a, (x, y), (cw - gap, ch - gap), ink)?,
            }
        }
    }
    Ok(())
}

/// The colour `p` draws `cell` in (`None`: a blank cell, not drawn): a
/// class's colour, or a heat value's place on the picture's colour scale.
/// The one rule of a map cell's colour: the picture files draw it and the
/// browser's maps are sent it.
pub fn cell_color(p: &Picture, cell: Cell) -> Option<Rgb> {
    let class = |n: u16| p.classes.get(usize::from(n)).map_or(GREY_INK, |k| k.color);
    match cell {
        Cell::Blank => None,
        Cell::Class(n) | Cell::Bar(n, _) => Some(class(n)),
        Cell::Heat(v) => {
            let (t, floor) = p
                .heat
                .as_ref()
                .map_or((1.0, 0.0), |h| (h.scale.t(v), h.floor));
            Some(ramp(t, floor))
        }
    }
}

impl HeatScale {
    /// The colour at `t` (0.0 its low end … 1.0 its high end), as the
    /// picture draws its colour scale.
    pub fn color_at(&self, t: f64) -> Rgb {
        ramp(t, self.floor)
    }
}

fn draw_histogram<DB: DrawingBackend>(
    a: &DrawingArea<DB, Shift>,
    glyphs: bool,
    h: &Histogram,
    (x, y): (i32, i32),
    w: i32,
) -> DrawResult<DB> {
    text(a, glyphs, &h.title, (x, y), SMALL_PX, HPos::Left, INK)?;
    let base = y + 18 + HIST_H;
    let n = h.bars.len().max(1) as i32;
    let bar_w = (w / n).max(1);
    let max = h.bars.iter().map(|b| b.0).max().unwrap_or(0).max(1);
    for (i, &(count, c)) in h.bars.iter().enumerate() {
        if count == 0 {
            continue;
        }
        let bh = ((count as f64 / max as f64 * f64::from(HIST_H)).round() as i32).max(1);
        let bx = x + i as i32 * bar_w;
        rect(a, (bx, base - bh), ((bar_w - 1).max(1), bh), c)?;
    }
    rect(a, (x, base), (bar_w * n, 1), GREY_INK)?;
    text(
        a,
        glyphs,
        &h.left,
        (x, base + 4),
        LABEL_PX,
        HPos::Left,
        GREY_INK,
    )?;
    text(
        a,
        glyphs,
        &h.right,
        (x + bar_w * n, base + 4),
        LABEL_PX,
        HPos::Right,
        GREY_INK,
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::color::{ansi256_to_rgb, viridis, INDEX_ANSI};
    use crate::grid::{pages_per_cell, GridBuilder};
    use std::path::PathBuf;

    fn out(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("ibdscope-render-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir.join(name)
    }

    /// Width and height from a PNG's signature and IHDR chunk.
    fn png_size(bytes: &[u8]) -> (u32, u32) {
        assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "PNG signature");
        assert_eq!(&bytes[12..16], b"IHDR");
        let be = |b: &[u8]| u32::from_be_bytes(b.try_into().unwrap());
        assert_eq!(&bytes[bytes.len() - 8..bytes.len() - 4], b"IEND");
        (be(&bytes[16..20]), be(&bytes[20..24]))
    }

    /// The rectangles between the first row slot and the next text, less
    /// the slots: the cells (see the module documentation).
    pub(crate) fn svg_cells(svg: &str) -> Vec<String> {
        let slot = format!("fill=\"{}\"", SLOT_RGB.hex().to_uppercase());
        let mut cells = Vec::new();
        let mut on = false;
        for el in svg.split('<').skip(1) {
            if el.starts_with("text") && on {
                break;
            }
            if el.starts_with("rect") {
                if el.contains(&slot) {
                    on = true;
                } else if on {
                    let fill = el.split("fill=\"").nth(1).unwrap();
                    cells.push(fill[..7].to_ascii_lowercase());
                }
            }
        }
        cells
    }

    /// The text of every `<text>` element, in order.
    pub(crate) fn svg_texts(svg: &str) -> Vec<String> {
        svg.split("<text")
            .skip(1)
            .filter_map(|el| {
                let body = el.split_once('>')?.1;
                Some(body.split("</text>").next()?.trim().to_string())
            })
            .collect()
    }

    fn check_svg(path: &Path, d: Drawn) -> String {
        let svg = std::fs::read_to_string(path).unwrap();
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
        assert!(svg.contains(&format!("width=\"{}\"", d.width)));
        assert_eq!(svg.matches("<text").count(), svg.matches("</text>").count());
        svg
    }

    fn both(p: &Picture, name: &str) -> String {
        let png = out(&format!("{name}.png"));
        let d = render(p, &png, ImageFormat::Png).unwrap();
        assert_eq!(png_size(&std::fs::read(&png).unwrap()), (d.width, d.height));
        let svg = out(&format!("{name}.svg"));
        let d = render(p, &svg, ImageFormat::Svg).unwrap();
        check_svg(&svg, d)
    }

    fn classes() -> Vec<Class> {
        let mut v: Vec<Class> = INDEX_ANSI
            .iter()
            .enumerate()
            .map(|(i, &a)| Class {
                label: format!("index {i}"),
                color: ansi256_to_rgb(a),
                shown: i < 2,
            })
            .collect();
        v.push(Class {
            label: "free".into(),
            color: crate::color::FREE_RGB,
            shown: true,
        });
        v
    }

    fn picture(grid: Grid, heat: bool) -> Picture {
        Picture {
            title: "t.ibd — MySQL · 16 KiB pages · 5 pages".into(),
            lines: vec!["a line".into()],
            panels: vec![Panel {
                caption: vec!["caption".into()],
                grid,
            }],
            classes: classes(),
            heat: heat.then(|| HeatScale {
                title: "LSN".into(),
                scale: Scale { lo: 10.0, hi: 10.0 },
                lo_label: "old".into(),
                hi_label: "new".into(),
                floor: 0.0,
                ticks: Vec::new(),
            }),
            notes: vec!["note".into()],
            histograms: vec![Histogram {
                title: "h".into(),
                bars: vec![(3, Rgb(1, 2, 3)), (0, Rgb(1, 2, 3))],
                left: "0".into(),
                right: "9".into(),
            }],
        }
    }

    fn grid(cells: &[Cell], columns: u32) -> Grid {
        let mut b = GridBuilder::new(cells.len() as u64, columns, 1);
        cells.iter().for_each(|&c| b.push(c));
        b.finish()
    }

    #[test]
    fn the_bundled_font_loads() {
        register_font();
        let (w, h) = (FAMILY, 12.0).into_font().box_size("page 12345").unwrap();
        assert!(w > 40 && h > 5, "{w}x{h}");
    }

    #[test]
    fn empty_grid_one_page_and_a_short_last_row() {
        for (name, cells) in [
            ("empty", vec![]),
            ("one", vec![Cell::Class(10)]),
            ("short", vec![Cell::Bar(0, 0.5); 70]),
        ] {
            let svg = both(&picture(grid(&cells, 64), false), name);
            assert_eq!(svg_cells(&svg).len(), cells.len(), "{name}");
        }
    }

    #[test]
    fn cells_take_their_class_colour_and_blanks_draw_nothing() {
        let cells = [
            Cell::Class(10),
            Cell::Bar(0, 1.0),
            Cell::Bar(1, 0.125),
            Cell::Blank,
            Cell::Heat(10.0),
        ];
        let svg = both(&picture(grid(&cells, 4), true), "colours");
        let got = svg_cells(&svg);
        let want: Vec<String> = [
            crate::color::FREE_RGB,
            ansi256_to_rgb(INDEX_ANSI[0]),
            ansi256_to_rgb(INDEX_ANSI[1]),
            viridis(1.0),
        ]
        .iter()
        .map(|c| c.hex())
        .collect();
        assert_eq!(got, want);
        // All-equal values sit at the top of the scale.
        assert!(svg.contains(&viridis(1.0).hex().to_uppercase()));
    }

    #[test]
    fn huge_page_counts_aggregate_into_a_bounded_picture() {
        let n: u64 = 2_000_000;
        let k = pages_per_cell(n, 64, 160);
        let mut b = GridBuilder::new(n, 64, k);
        for p in 0..n {
            b.push(Cell::Heat(p as f64));
        }
        let g = b.finish();
        let cells = g.cells.len();
        let mut p = picture(g, true);
        p.heat.as_mut().unwrap().scale = Scale {
            lo: 0.0,
            hi: n as f64,
        };
        let svg = both(&p, "huge");
        assert_eq!(svg_cells(&svg).len(), cells);
        assert!(cells <= 64 * 160);
    }

    #[test]
    fn side_by_side_panels_and_unknown_extensions() {
        let mut p = picture(grid(&[Cell::Class(0); 100], 64), false);
        p.panels.push(Panel {
            caption: vec!["second, longer caption than the grid is wide".into()],
            grid: grid(&[Cell::Class(1); 300], 64),
        });
        let svg = both(&p, "two");
        assert_eq!(svg_cells(&svg).len(), 400);
        assert_eq!(
            ImageFormat::from_path(Path::new("a.PNG")),
            Some(ImageFormat::Png)
        );
        assert_eq!(
            ImageFormat::from_path(Path::new("a.svg")),
            Some(ImageFormat::Svg)
        );
        assert_eq!(ImageFormat::from_path(Path::new("a.jpg")), None);
        assert_eq!(ImageFormat::from_path(Path::new("png")), None);
        let bad = render(&p, Path::new("/nonexistent-dir/x.png"), ImageFormat::Png);
        assert!(bad.is_err());
    }

    #[test]
    fn ticks_label_the_scale_and_the_floor_lifts_the_low_end() {
        let cells = [Cell::Heat(0.0), Cell::Heat(1.0)];
        let mut p = picture(grid(&cells, 4), true);
        let h = p.heat.as_mut().unwrap();
        h.scale = Scale { lo: 0.0, hi: 1.0 };
        h.floor = crate::color::LSN_FLOOR;
        h.ticks = vec![
            (0.0, "1660000".into()),
            (0.001, "1660001".into()),
            (0.5, "9200000".into()),
            (1.0, "11800000".into()),
        ];
        let svg = both(&p, "ticks");
        let want: Vec<String> = [crate::color::ramp(0.0, 0.15), viridis(1.0)]
            .iter()
            .map(|c| c.hex())
            .collect();
        assert_eq!(svg_cells(&svg), want);
        let texts = svg_texts(&svg);
        for label in ["1660000", "9200000", "11800000"] {
            assert!(texts.iter().any(|t| t == label), "{label}");
        }
        // Too close to the first: the mark only.
        assert!(!texts.iter().any(|t| t == "1660001"));
    }

    /// The ink of `s` drawn as the PNG draws it (`glyphs`) or as plotters
    /// places a whole string: the runs of pixel columns with any pixel
    /// visibly darker than the white background.
    fn ink_runs(s: &str, px: f64, glyphs: bool) -> Vec<(i32, i32)> {
        register_font();
        let (w, h) = (400u32, 40u32);
        let mut buf = vec![0u8; (w * h * 3) as usize];
        {
            let root = BitMapBackend::with_buffer(&mut buf, (w, h)).into_drawing_area();
            root.fill(&WHITE).unwrap();
            text(&root, glyphs, s, (10, 10), px, HPos::Left, Rgb(0, 0, 0)).unwrap();
            root.present().unwrap();
        }
        let inked = |x: u32| (0..h).any(|y| buf[((y * w + x) * 3) as usize] < 150);
        let mut runs: Vec<(i32, i32)> = Vec::new();
        for x in 0..w {
            if inked(x) {
                match runs.last_mut() {
                    Some(r) if r.1 == x as i32 - 1 => r.1 = x as i32,
                    _ => runs.push((x as i32, x as i32)),
                }
            }
        }
        runs
    }

    fn gaps(runs: &[(i32, i32)]) -> Vec<i32> {
        runs.windows(2).map(|w| w[1].0 - w[0].1 - 1).collect()
    }

    /// Whether `s` drawn at `px` shows its glyphs apart (one ink run per
    /// glyph, `runs` of them, but for at most one pair whose
    /// anti-aliased edges touch) with even gaps (within a pixel of each
    /// other), as the SVG's text does in any viewer.
    fn evenly_spaced(s: &str, px: f64, glyphs_drawn: bool, runs: usize) -> Result<(), String> {
        let r = ink_runs(s, px, glyphs_drawn);
        let g = gaps(&r);
        let (lo, hi) = (g.iter().min().unwrap(), g.iter().max().unwrap());
        if r.len() + 1 >= runs && r.len() <= runs && hi - lo <= 1 {
            Ok(())
        } else {
            Err(format!("{s} at {px}: runs {r:?}, gaps {g:?}"))
        }
    }

    #[test]
    fn png_text_keeps_the_fonts_spacing() {
        // The strings the PNGs misdrew ("full _crc32", "91 50813",
        // "REDUNDAN T") and LSNs from the gallery; one run per glyph
        // (or one pair fewer where anti-aliased edges touch).
        let cases = [
            ("9150813", 7),
            ("2645176", 7),
            ("7803110", 7),
            ("full_crc32", 10),
            ("REDUNDANT", 9),
        ];
        let mut old_wrong = 0;
        for px in [LABEL_PX, SMALL_PX] {
            for (s, runs) in cases {
                evenly_spaced(s, px, true, runs).unwrap();
                old_wrong += usize::from(evenly_spaced(s, px, false, runs).is_err());
            }
        }
        // plotters' own placement gets most of them wrong.
        assert!(old_wrong >= 6, "{old_wrong}");
    }
}
