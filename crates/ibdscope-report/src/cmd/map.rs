//! What the maps share, in the terminal and in pictures: how a page is
//! classed (owner and fill), its colours and glyphs, the title of a
//! picture, grids printed as text, and writing a picture file.
//!
//! Colours come from `ibdscope_render::color`, so a page of index slot `s`
//! has ANSI colour `INDEX_ANSI[s % 10]` in the terminal and the RGB value
//! xterm gives that colour in a picture.

use crate::analysis::Analysis;
use crate::args::{Color, Opts};
use crate::outcome::Outcome;
use crate::text::count;
use ibdscope::extents::{Owner, SpaceMap};
use ibdscope::fil::FilHeader;
use ibdscope::index::IndexHeader;
use ibdscope::{IndexId, PageNo, PageType, Tablespace, VendorGuess};
use ibdscope_render::color::{
    ansi256_to_rgb, DAMAGED_ANSI, FREE_ANSI, FREE_RGB, INDEX_ANSI, OTHER_RGB, SYSTEM_ANSI,
    UNACCOUNTED_RGB,
};
use ibdscope_render::{render, Cell, Class, Grid, GridBuilder, ImageFormat, Picture};
use std::io::{self, IsTerminal, Write};
use std::path::Path;

/// Rows of a picture's map before cells hold more than one page.
pub const PICTURE_ROWS: u32 = 160;
/// Rows of a terminal map before cells hold more than one page.
pub const TERMINAL_ROWS: u32 = 256;

/// Cells per map row: one extent, at most 64 (an extent of 4K pages, 256
/// pages, takes 4 rows); a file of fewer pages is one row of them.
pub fn columns(ts: &Tablespace<'_>) -> u32 {
    ts.format()
        .extent_size()
        .clamp(1, 64)
        .min(ts.n_pages().max(1))
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
}

/// A fill in eighths, 1..=8 (a used page is never drawn empty).
pub fn eighths(fill: f32) -> u8 {
    ((fill * 8.0).ceil() as u8).clamp(1, 8)
}

/// Fill of one B-tree page (used / usable bytes) from its header.
pub fn page_fill(ts: &Tablespace<'_>, n: PageNo) -> Option<f32> {
    let page = ts.page(n)?;
    if !FilHeader::new(page).is_some_and(|h| h.page_type().is_index(ts.type_names())) {
        return None;
    }
    let f = ts.format();
    IndexHeader::new(page).map(|h| h.usage(f.logical_size, f.is_zip()).fill())
}

/// Index ids in id order: palette slots.
pub fn index_slots(map: &SpaceMap) -> Vec<IndexId> {
    let mut ids: Vec<IndexId> = map.indexes.iter().map(|i| i.index_id).collect();
    ids.sort();
    ids.dedup();
    ids
}

/// How page `n` with owner `o` is drawn.
pub fn page_cell(a: &Analysis<'_>, slots: &[IndexId], n: usize, o: Owner) -> PageCell {
    let ts = a.ts();
    let damaged = u32::try_from(n).is_ok_and(|n| {
        a.damaged_pages()
            .binary_search_by_key(&PageNo(n), |b| b.facts.page_no)
            .is_ok()
    });
    if damaged {
        return PageCell::Damaged;
    }
    match o {
        Owner::Free => PageCell::Free,
        Owner::System(_) => PageCell::System,
        Owner::Unaccounted => PageCell::Unaccounted,
        Owner::Segment { index, .. } => {
            let slot = index.and_then(|i| slots.binary_search(&i).ok());
            let fill = u32::try_from(n).ok().and_then(|n| page_fill(ts, PageNo(n)));
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

const BLOCKS: [&str; 9] = [" ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"];
const DIGITS: [&str; 9] = [" ", "1", "2", "3", "4", "5", "6", "7", "8"];
/// Without colour, an index's pages are drawn with its letter (palette slot
/// order); past the 52nd index, `#`.
const LETTERS: [&str; 52] = [
    "A", "B", "C", "D", "E", "F", "G", "H", "I", "J", "K", "L", "M", "N", "O", "P", "Q", "R", "S",
    "T", "U", "V", "W", "X", "Y", "Z", "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l",
    "m", "n", "o", "p", "q", "r", "s", "t", "u", "v", "w", "x", "y", "z",
];

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
            DIGITS[i]
        } else {
            BLOCKS[i]
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
            (PageCell::Other(_), false) => "▒",
            (PageCell::Other(_), true) => "o",
            (PageCell::Index { slot, .. }, _) if !self.color => self.letter(slot),
            (PageCell::Index { fill, .. }, _) => self.level(eighths(fill)),
        }
    }

    /// The letter of index slot `slot`, drawn for its pages when there is
    /// no colour to tell indexes apart.
    pub fn letter(&self, slot: usize) -> &'static str {
        LETTERS.get(slot).copied().unwrap_or("#")
    }

    /// The ANSI colour of a page on the owner map.
    pub fn owner_color(c: PageCell) -> u8 {
        match c {
            PageCell::Free => FREE_ANSI,
            PageCell::Index { slot, .. } | PageCell::Other(Some(slot)) => {
                INDEX_ANSI[slot % INDEX_ANSI.len()]
            }
            PageCell::System | PageCell::Unaccounted | PageCell::Other(None) => SYSTEM_ANSI,
            PageCell::Damaged => DAMAGED_ANSI,
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
        write!(
            out,
            "{:>10} ",
            (r as u64).saturating_mul(grid.pages_per_row())
        )?;
        for c in row {
            let (g, color) = glyph(*c);
            st.paint(out, color, g)?;
        }
        writeln!(out)?;
    }
    Ok(())
}

/// ", each cell N pages" when cells hold more than one page.
pub fn per_cell_note(grid: &Grid) -> String {
    if grid.pages_per_cell > 1 {
        format!(", each cell {} pages", grid.pages_per_cell)
    } else {
        String::new()
    }
}

/// The distinct page types met on a walk, for the vendor guess (one entry
/// per type, not per page).
#[derive(Default)]
pub struct TypesSeen(Vec<PageType>);

impl TypesSeen {
    /// Notes page `n`'s FIL_PAGE_TYPE.
    pub fn note_page(&mut self, ts: &Tablespace<'_>, n: usize) {
        let t = u32::try_from(n)
            .ok()
            .and_then(|n| ts.page(PageNo(n)))
            .and_then(FilHeader::new)
            .map(|h| h.page_type());
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

/// A picture's title (file name and vendor) and the line under it (format,
/// page size, pages).
pub fn title(
    path: &Path,
    ts: &Tablespace<'_>,
    types: &TypesSeen,
    what: &str,
) -> (String, Vec<String>) {
    let v = types.vendor(ts);
    let f = ts.format();
    let mut size = format!("{} pages", size_words(f.logical_size));
    if f.is_zip() {
        size.push_str(&format!(" ({} on disk)", size_words(f.physical_size)));
    }
    let line = format!(
        "{v} · {} · {size} · {} pages · {} pages per extent",
        v.format,
        ts.n_pages(),
        f.extent_size()
    );
    (format!("{what}: {}", crate::names::path(path)), vec![line])
}

/// Palette classes of the owner map: for index slot `s`, class `2s` (its
/// B-tree pages) and `2s + 1` (its other pages, a pale tint); then
/// free, system, unaccounted and other pages of no index.
pub fn owner_class(c: PageCell, n_slots: usize) -> Cell {
    let base = 2 * n_slots;
    let k = |n: usize| u16::try_from(n).unwrap_or(u16::MAX);
    match c {
        PageCell::Index { slot, fill } => Cell::Bar(k(2 * slot), fill),
        PageCell::Other(Some(slot)) => Cell::Class(k(2 * slot + 1)),
        PageCell::Free => Cell::Class(k(base)),
        PageCell::System => Cell::Class(k(base + 1)),
        PageCell::Unaccounted => Cell::Class(k(base + 2)),
        PageCell::Other(None) => Cell::Class(k(base + 3)),
        PageCell::Damaged => Cell::Class(k(base + 4)),
    }
}

/// The owner map of `ts` as a grid of [`owner_class`] cells numbered for
/// `n_slots` index slots (at least `slots.len()`), with the pages per
/// class and the page types met, in one pass over the map.
pub fn owner_grid(
    a: &Analysis<'_>,
    slots: &[IndexId],
    n_slots: usize,
    columns: u32,
    per_cell: u64,
) -> (Grid, Vec<u64>, TypesSeen) {
    let (ts, map) = (a.ts(), a.map());
    let mut b = GridBuilder::new(u64::from(map.n_pages()), columns, per_cell);
    let n_slots = n_slots.max(slots.len());
    let mut counts = vec![0u64; 2 * n_slots + 5];
    let mut types = TypesSeen::default();
    for (p, o) in map.owners(ts).enumerate() {
        let cell = owner_class(page_cell(a, slots, p, o), n_slots);
        if let Cell::Bar(c, _) | Cell::Class(c) = cell {
            if let Some(x) = counts.get_mut(usize::from(c)) {
                *x += 1;
            }
        }
        types.note_page(ts, p);
        b.push(cell);
    }
    (b.finish(), counts, types)
}

/// The legend classes of [`owner_class`]: `labels[s]` names slot `s`;
/// `pages(class)` counts the pages of a class (a class with none is not
/// shown).
pub fn owner_classes(labels: &[String], pages: impl Fn(usize) -> u64, total: u64) -> Vec<Class> {
    let pct = |n: u64| n as f64 * 100.0 / total.max(1) as f64;
    let mut v = Vec::with_capacity(2 * labels.len() + 5);
    for (s, label) in labels.iter().enumerate() {
        let color = ansi256_to_rgb(INDEX_ANSI[s % INDEX_ANSI.len()]);
        let (n, m) = (pages(2 * s), pages(2 * s + 1));
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
            color: color.tint(0.6),
            shown: m > 0,
        });
    }
    let base = 2 * labels.len();
    for (i, (name, color)) in [
        ("free", FREE_RGB),
        ("system", ansi256_to_rgb(SYSTEM_ANSI)),
        ("unaccounted", UNACCOUNTED_RGB),
        ("segment pages of no index", OTHER_RGB),
        ("damaged: does not verify", ansi256_to_rgb(DAMAGED_ANSI)),
    ]
    .into_iter()
    .enumerate()
    {
        let n = pages(base + i);
        v.push(Class {
            label: format!("{name}: {} ({:.1}%)", count(n, "page", "pages"), pct(n)),
            color,
            shown: n > 0 || i < 2,
        });
    }
    v
}

/// Writes `p` to the `--out` file (if any); returns the outcome (exit 2
/// when the picture cannot be written, with the reason on stderr) and the
/// line that says what was written, for the text output.
pub fn write_picture(opts: &Opts, p: &Picture, what: &str) -> (Outcome, String) {
    let Some((file, format)) = &opts.out else {
        return (Outcome::Clean, String::new());
    };
    let drawn = crate::out::check(file, &crate::out::inputs(opts)).and_then(|()| {
        crate::out::write_via_temp(file, |tmp| {
            // The sentence names the file the user asked for and the
            // system's reason, not the drawing library's error value.
            render(p, tmp, *format).map_err(|e| {
                let e = e.to_string();
                let raw = format!("{}: ", tmp.display());
                let why = e.strip_prefix(raw.as_str()).unwrap_or(&e);
                format!(
                    "cannot write {}: {}",
                    crate::names::path(file),
                    crate::names::name(&crate::out::draw_reason(why))
                )
            })
        })
    });
    match drawn {
        Ok(d) => {
            let per = p
                .panels
                .iter()
                .map(|x| x.grid.pages_per_cell)
                .max()
                .unwrap_or(1);
            let line = format!(
                "{what}: wrote {} ({}, {}×{} px, {} per cell)\n",
                crate::names::path(file),
                match format {
                    ImageFormat::Png => "PNG",
                    ImageFormat::Svg => "SVG",
                },
                d.width,
                d.height,
                count(per, "page", "pages")
            );
            (Outcome::Clean, line)
        }
        Err(e) => {
            eprintln!("ibdscope: {e}");
            (Outcome::Unreadable, String::new())
        }
    }
}
