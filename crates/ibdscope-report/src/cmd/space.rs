//! Space-structure commands over the library's `SpaceMap`: `extents` (the
//! terminal map), `segments`, `lists` and `indexes`.

use crate::args::{Format, Opts};
use crate::csv;
use crate::findings;
use crate::json::Json;
use crate::maps::{
    self, eighths, index_slots, owner_class, owner_classes, page_cell, MapScale, PageCell, Style,
    TypesSeen,
};
use crate::outcome::Outcome;
use ibdscope::analysis::{id_text, Analysis};
use ibdscope_core::extents::{FspList, Owner};
use ibdscope_core::{IndexId, IndexTree};
use ibdscope_render::{Cell, Grid, Panel, Picture};
use std::io::{self, Write};

/// Pages per class of the owner map.
struct CellCounts {
    /// Per index slot: its B-tree and other pages.
    slots: Vec<usize>,
    system: usize,
    free: usize,
    unaccounted: usize,
    /// Pages that do not verify.
    damaged: usize,
    /// Pages that cannot be verified from the file alone.
    unverifiable: usize,
    /// Free pages that still hold records.
    freed_with_data: usize,
    /// Segment pages that are not B-tree pages, of any index or none.
    other: usize,
    /// Pages of undo segments.
    undo: usize,
}

impl CellCounts {
    fn new(n_slots: usize) -> Self {
        CellCounts {
            slots: vec![0; n_slots],
            system: 0,
            free: 0,
            unaccounted: 0,
            damaged: 0,
            unverifiable: 0,
            freed_with_data: 0,
            other: 0,
            undo: 0,
        }
    }

    /// Counts `k` pages drawn `c`.
    fn add(&mut self, c: PageCell, k: usize) {
        match c {
            PageCell::Index { slot, .. } | PageCell::Other(Some(slot)) => {
                if let Some(n) = self.slots.get_mut(slot) {
                    *n = n.saturating_add(k);
                }
            }
            PageCell::System => self.system = self.system.saturating_add(k),
            PageCell::Free => self.free = self.free.saturating_add(k),
            PageCell::Unaccounted => self.unaccounted = self.unaccounted.saturating_add(k),
            PageCell::Damaged => self.damaged = self.damaged.saturating_add(k),
            PageCell::Unverifiable => self.unverifiable = self.unverifiable.saturating_add(k),
            PageCell::FreeWithData => self.freed_with_data = self.freed_with_data.saturating_add(k),
            PageCell::Undo => self.undo = self.undo.saturating_add(k),
            PageCell::Other(None) => {}
        }
        if matches!(c, PageCell::Other(_)) {
            self.other = self.other.saturating_add(k);
        }
    }

    fn slot(&self, s: usize) -> usize {
        self.slots.get(s).copied().unwrap_or(0)
    }

    fn of(&self, c: PageCell) -> usize {
        match c {
            PageCell::System => self.system,
            PageCell::Free => self.free,
            PageCell::Unaccounted => self.unaccounted,
            PageCell::Damaged => self.damaged,
            PageCell::Unverifiable => self.unverifiable,
            PageCell::FreeWithData => self.freed_with_data,
            PageCell::Index { slot, .. } => self.slot(slot),
            PageCell::Other(_) => self.other,
            PageCell::Undo => self.undo,
        }
    }
}

/// Writes `{"file", "<key>": [rows], "findings"}` and returns the outcome.
fn json_rows<T>(
    out: &mut dyn Write,
    a: &Analysis<'_>,
    key: &str,
    rows: &[T],
    row: impl Fn(&mut Json<'_>, &T) -> io::Result<()>,
) -> io::Result<Outcome> {
    let mut j = Json::new(out);
    j.obj()?.kv_path("file", a.path())?.key(key)?.arr()?;
    for r in rows {
        row(&mut j, r)?;
    }
    j.end_arr()?;
    findings::json(&mut j, a, &[&a.map().findings])?;
    j.end_obj()?;
    writeln!(out)?;
    Ok(findings::map_outcome(a, &[]))
}

fn owner_word(o: Owner) -> &'static str {
    match o {
        Owner::Free => "free",
        Owner::System(_) => "system",
        Owner::Unaccounted => "unaccounted",
        Owner::Segment { .. } => "segment",
    }
}

/// `extents`' report: the owners of the pages drawn walked once for the
/// counts and the map's grid (bounded by its cells). Nothing is kept per
/// page: the JSON and CSV page maps walk the owners again as they print
/// ([`page_cells`]).
struct ExtentsReport {
    /// Index ids in palette order.
    slots: Vec<IndexId>,
    counts: CellCounts,
    /// The pages drawn and the cells.
    scale: MapScale,
    /// The map's grid ([`maps::owner_class`] cells), pages per class, page
    /// types.
    grid: (Grid, Vec<u64>, TypesSeen),
}

impl ExtentsReport {
    /// Walks the owners of the pages `opts` asks for once.
    fn build(opts: &Opts, a: &Analysis<'_>) -> Self {
        let (ts, map) = (a.ts(), a.map());
        let slots = index_slots(map);
        let scale = MapScale::new(ts, u64::from(map.n_pages()), opts);
        let n_slots = slots.len();
        let mut counts = CellCounts::new(n_slots);
        let mut grid = scale.builder();
        let mut classes = vec![
            0u64;
            n_slots
                .saturating_mul(2)
                .saturating_add(maps::CLASSES_AFTER_SLOTS)
        ];
        let mut types = TypesSeen::default();
        for (n, run, _, c) in maps::cell_runs(a, &slots, &scale) {
            counts.add(c, run as usize);
            let cell = owner_class(c, n_slots);
            if let Cell::Bar(k, _) | Cell::Class(k) = cell {
                if let Some(x) = classes.get_mut(usize::from(k)) {
                    *x = x.saturating_add(run);
                }
            }
            types.note_page(a, n as usize);
            grid.push_run(cell, run);
        }
        ExtentsReport {
            slots,
            counts,
            scale,
            grid: (grid.finish(), classes, types),
        }
    }
}

/// The pages `scale` draws in page order, walking the owners: number,
/// owner and cell (how it is drawn: an index page with its fill, from its
/// header).
fn page_cells<'a>(
    a: &'a Analysis<'_>,
    slots: &'a [IndexId],
    scale: &MapScale,
) -> impl Iterator<Item = (usize, Owner, PageCell)> + 'a {
    scale.range().map(move |p| {
        let o = maps::owner_at(a, p);
        (p as usize, o, page_cell(a, slots, p as usize, o))
    })
}

/// `ibdscope extents`.
pub fn extents(opts: &Opts, a: &Analysis<'_>, out: &mut dyn Write) -> io::Result<Outcome> {
    let n_pages = u64::from(a.map().n_pages());
    if let Some(o) = maps::from_past_end(a.path(), opts, n_pages, a.ts().page_size()) {
        return Ok(o);
    }
    let picture_only = opts.out.is_some() && opts.format == Format::Text;
    let r = ExtentsReport::build(opts, a);
    if opts.picture_json {
        crate::out::picture_json(out, &extents_picture(a, &r))?;
        return Ok(findings::map_outcome(a, &[]));
    }
    let (wrote, said) = if opts.out.is_some() {
        let p = extents_picture(a, &r);
        let what = ibdscope::names::path(a.path()).to_string();
        crate::out::write_picture(opts, &p, &what, &r.scale.words())
    } else {
        (Outcome::Clean, String::new())
    };
    if picture_only {
        out.write_all(said.as_bytes())?;
        findings::print_map_findings(out, opts, a, &[])?;
        return Ok(wrote.max(findings::map_outcome(a, &[])));
    }
    if opts.format == Format::Json {
        extents_json(out, a, &r)?;
        return Ok(findings::map_outcome(a, &[]).max(wrote));
    }
    if opts.format == Format::Csv {
        extents_csv(out, a, &r.slots, &r.scale)?;
        findings::map_findings_to_stderr(opts, a, &[])?;
        return Ok(findings::map_outcome(a, &[]).max(wrote));
    }
    extents_text(out, opts, a, &r)?;
    Ok(findings::map_outcome(a, &[]))
}

/// `extents --format csv`: one row per page, streamed as the owners are
/// walked.
fn extents_csv(
    out: &mut dyn Write,
    a: &Analysis<'_>,
    slots: &[IndexId],
    scale: &MapScale,
) -> io::Result<()> {
    writeln!(
        out,
        "page,owner,segment_id,index_id,index_name,role,fragment,fill_eighths,damaged"
    )?;
    // The names once per index, not per page.
    let names: Vec<Option<&str>> = slots.iter().map(|&id| a.index_name(id)).collect();
    for (n, o, cell) in page_cells(a, slots, scale) {
        write!(out, "{n},{}", owner_word(o))?;
        match o {
            Owner::Segment {
                seg_id,
                index,
                role,
                frag,
            } => {
                let name = index.and_then(|id| match slots.binary_search(&id) {
                    Ok(s) => names.get(s).copied().flatten(),
                    Err(_) => a.index_name(id),
                });
                write!(
                    out,
                    ",{seg_id},{},{},{role},{frag}",
                    csv::Opt(index.map(|i| i.0)),
                    csv::opt_name(name)
                )?;
            }
            _ => out.write_all(b",,,,,")?,
        }
        let fill = match cell {
            PageCell::Index { fill, .. } => Some(eighths(fill)),
            _ => None,
        };
        writeln!(
            out,
            ",{},{}",
            csv::Opt(fill),
            matches!(cell, PageCell::Damaged)
        )?;
    }
    Ok(())
}

/// `extents --format json`: the legend's counts, then every page.
fn extents_json(out: &mut dyn Write, a: &Analysis<'_>, r: &ExtentsReport) -> io::Result<()> {
    let (path, ts) = (a.path(), a.ts());
    let counts = &r.counts;
    let mut j = Json::new(out);
    j.obj()?.kv_path("file", path)?;
    j.kv_num("page_size", ts.page_size())?
        .kv_num("extent_size", ts.format().extent_size())?;
    j.kv_num("pages", ts.n_pages())?;
    j.key("legend")?.arr()?;
    for (s, id) in r.slots.iter().enumerate() {
        j.obj()?
            .kv_index(a, *id)?
            .kv_num("pages", counts.slot(s) as u64)?
            .end_obj()?;
    }
    j.end_arr()?;
    j.kv_num("system_pages", counts.system as u64)?;
    j.kv_num("free_pages", counts.free as u64)?;
    j.kv_num("unaccounted_pages", counts.unaccounted as u64)?;
    j.kv_num("damaged_pages", counts.damaged as u64)?;
    j.kv_num("unverifiable_pages", counts.unverifiable as u64)?;
    j.kv_num("free_with_records_pages", counts.freed_with_data as u64)?;
    if counts.undo > 0 {
        j.kv_num("undo_pages", counts.undo as u64)?;
    }
    j.key("map")?.arr()?;
    // A hole of a sparse file in free extents is one entry with its
    // length (`pages`), so the map follows the data, not the size claimed.
    for (n, run, o, cell) in maps::cell_runs(a, &r.slots, &r.scale) {
        j.obj()?.kv_num("page", n)?;
        if run > 1 {
            j.kv_num("pages", run)?;
        }
        j.kv_str("owner", owner_word(o))?;
        if let Owner::Segment {
            seg_id,
            index,
            role,
            frag,
        } = o
        {
            j.kv_num("segment", seg_id)?;
            match index {
                Some(id) => j.kv_index(a, id)?,
                None => j.key("index_id")?.null()?,
            };
            j.kv_display("role", &role)?.kv_bool("fragment", frag)?;
        }
        match cell {
            PageCell::Index { fill, .. } => {
                j.kv_num("fill_eighths", eighths(fill))?;
            }
            PageCell::Damaged => {
                j.kv_bool("verified", false)?;
            }
            PageCell::Unverifiable => {
                j.key("verified")?.null()?;
            }
            PageCell::FreeWithData => {
                j.kv_bool("holds_records", true)?;
            }
            _ => {}
        }
        j.end_obj()?;
    }
    j.end_arr()?;
    findings::json(&mut j, a, &[&a.map().findings])?;
    j.end_obj()?;
    writeln!(out)
}

/// `extents` in the terminal: the map (one glyph per cell), then the
/// legend and the findings.
fn extents_text(
    out: &mut dyn Write,
    opts: &Opts,
    a: &Analysis<'_>,
    r: &ExtentsReport,
) -> io::Result<()> {
    let (path, ts) = (a.path(), a.ts());
    let st = Style::of(opts);
    writeln!(
        out,
        "{}: {} pages of {} bytes, {} pages per extent",
        ibdscope::names::path(path),
        ts.n_pages(),
        ts.page_size(),
        ts.format().extent_size()
    )?;
    r.scale.print_header(out)?;
    let n_slots = r.slots.len();
    maps::print_grid(out, &st, &r.grid.0, |c| {
        let pc = maps::class_cell(c, n_slots);
        (st.glyph(pc), Some(Style::owner_color(pc)))
    })?;
    writeln!(out)?;
    extents_legend(out, &st, a, r)?;
    findings::print_map_findings(out, opts, a, &[])
}

/// The terminal map's legend: pages per index and per class, and how index
/// pages are drawn.
fn extents_legend(
    out: &mut dyn Write,
    st: &Style,
    a: &Analysis<'_>,
    r: &ExtentsReport,
) -> io::Result<()> {
    let map = a.map();
    let (slots, counts) = (&r.slots, &r.counts);
    let total = f64::from(map.n_pages().max(1));
    let swatch = if st.ascii { "#" } else { "█" };
    let name_w = slots
        .iter()
        .map(|id| a.index_label(*id).chars().count())
        .max()
        .unwrap_or(0)
        .max(8);
    for (s, id) in slots.iter().enumerate() {
        let info = map.index(*id);
        let n = counts.slot(s);
        let full = PageCell::Index { slot: s, fill: 1.0 };
        st.paint(out, Some(Style::owner_color(full)), swatch)?;
        write!(
            out,
            " index {:<w$} {:>8} pages {:>6.1}%",
            a.index_label(*id),
            n,
            n as f64 * 100.0 / total,
            w = name_w
        )?;
        if let Some(i) = info {
            write!(out, "  root {} height {}", i.root, i.height)?;
        }
        writeln!(out)?;
    }
    for (cell, name) in [
        (PageCell::System, "system"),
        (PageCell::Free, "free"),
        (PageCell::FreeWithData, "free, records"),
        (PageCell::Unaccounted, "unaccounted"),
        (PageCell::Damaged, "damaged"),
        (PageCell::Unverifiable, "not verifiable"),
        (PageCell::Undo, "undo"),
    ] {
        let n = counts.of(cell);
        if n > 0 || matches!(cell, PageCell::System | PageCell::Free) {
            st.paint(out, Some(Style::owner_color(cell)), st.glyph(cell))?;
            writeln!(
                out,
                " {name:<ww$} {:>8} pages {:>6.1}%",
                n,
                n as f64 * 100.0 / total,
                ww = name_w.saturating_add(6)
            )?;
        }
    }
    let other = counts.other;
    if other > 0 {
        let o = PageCell::Other(None);
        st.paint(out, Some(Style::owner_color(o)), st.glyph(o))?;
        writeln!(
            out,
            " {:<ww$} {:>8} pages (BLOB/LOB or allocated pages of a segment)",
            "other",
            other,
            ww = name_w.saturating_add(6)
        )?;
    }
    if let Some(v) = r.scale.vote_words(maps::VOTE) {
        writeln!(out, "{v}")?;
    }
    let legend = if st.ascii {
        "1 2 3 4 5 6 7 8"
    } else {
        "▁▂▃▄▅▆▇█"
    };
    writeln!(out, "index pages are drawn by fill, in eighths: {legend}")?;
    if !st.color && slots.len() > 1 {
        writeln!(out, "{}", maps::NO_COLOR_INDEXES)?;
    }
    Ok(())
}

/// The owner map as a picture: one cell per page (or per run of pages in
/// large files), coloured by index with a bar as high as the page's fill.
fn extents_picture(a: &Analysis<'_>, r: &ExtentsReport) -> Picture {
    let (path, ts) = (a.path(), a.ts());
    let (grid, counts, types) = &r.grid;
    let labels: Vec<String> = (r.slots.iter())
        .map(|id| format!("index {}", a.index_label(*id)))
        .collect();
    let pages = |c: usize| counts.get(c).copied().unwrap_or(0);
    let classes = owner_classes(&labels, pages, r.scale.pages);
    let (title, lines) = maps::title(path, ts, types, "extents", &r.scale);
    let mut notes = vec![
        "a bar's height is the page's fill (used / usable bytes, from its INDEX header)".into(),
    ];
    notes.extend(r.scale.vote_words(maps::VOTE));
    Picture {
        title,
        lines,
        panels: vec![Panel {
            caption: Vec::new(),
            grid: grid.clone(),
        }],
        classes,
        heat: None,
        notes,
        histograms: Vec::new(),
    }
}

/// `ibdscope segments`.
pub fn segments(opts: &Opts, a: &Analysis<'_>, out: &mut dyn Write) -> io::Result<Outcome> {
    let (_path, _ts) = (a.path(), a.ts());
    let map = a.map();
    if opts.format == Format::Json {
        return json_rows(out, a, "segments", &map.segments, |j, s| {
            j.obj()?.kv_num("segment_id", s.seg_id)?;
            match s.index {
                Some(id) => j.kv_index(a, id)?,
                None => j.key("index_id")?.null()?,
            };
            j.kv_display("role", &s.role)?;
            j.kv_num("inode_page", s.inode.page.0)?
                .kv_num("inode_offset", s.inode.byte)?;
            j.kv_num("used_pages", s.used_pages)?
                .kv_num("reserved_pages", s.reserved_pages)?;
            j.kv_num("fragment_pages", s.frag_pages)?
                .kv_num("full_extents", s.full_extents)?;
            j.kv_num("not_full_extents", s.not_full_extents)?
                .kv_num("free_extents", s.free_extents)?;
            j.kv_num("not_full_n_used", s.not_full_n_used)?.end_obj()?;
            Ok(())
        });
    }
    if opts.format == Format::Csv {
        writeln!(
            out,
            "segment_id,index_id,index_name,role,inode_page,inode_offset,used_pages,\
             reserved_pages,fragment_pages,full_extents,not_full_extents,free_extents,\
             not_full_n_used"
        )?;
        for s in &map.segments {
            writeln!(
                out,
                "{},{},{},{},{},{},{},{},{},{},{},{},{}",
                s.seg_id,
                csv::Opt(s.index.map(|i| i.0)),
                csv::opt_name(s.index.and_then(|i| a.index_name(i))),
                s.role,
                s.inode.page.0,
                s.inode.byte,
                s.used_pages,
                s.reserved_pages,
                s.frag_pages,
                s.full_extents,
                s.not_full_extents,
                s.free_extents,
                s.not_full_n_used
            )?;
        }
        findings::map_findings_to_stderr(opts, a, &[])?;
        return Ok(findings::map_outcome(a, &[]));
    }
    let w = a.name_width(4);
    writeln!(
        out,
        "{:>8} {:>8} {:<w$} {:<9} {:>8} {:>9} {:>6} {:>5} {:>9} {:>5}  inode",
        "segment", "index", "name", "role", "used", "reserved", "frag", "full", "not_full", "free"
    )?;
    for s in &map.segments {
        let idx = s.index.map_or("-".to_string(), id_text);
        let name = s.index.and_then(|i| a.index_name(i)).unwrap_or("-");
        let name = ibdscope::names::name(name).to_string();
        writeln!(
            out,
            "{:>8} {:>8} {:<w$} {:<9} {:>8} {:>9} {:>6} {:>5} {:>9} {:>5}  {}:{}",
            s.seg_id,
            idx,
            name,
            s.role.to_string(),
            s.used_pages,
            s.reserved_pages,
            s.frag_pages,
            s.full_extents,
            s.not_full_extents,
            s.free_extents,
            s.inode.page,
            s.inode.byte
        )?;
    }
    findings::print_map_findings(out, opts, a, &[])?;
    Ok(findings::map_outcome(a, &[]))
}

fn list_name(l: FspList) -> &'static str {
    match l {
        FspList::Free => "FSP_FREE",
        FspList::FreeFrag => "FSP_FREE_FRAG",
        FspList::FullFrag => "FSP_FULL_FRAG",
        FspList::SegInodesFull => "FSP_SEG_INODES_FULL",
        FspList::SegInodesFree => "FSP_SEG_INODES_FREE",
    }
}

/// `ibdscope lists`.
pub fn lists(opts: &Opts, a: &Analysis<'_>, out: &mut dyn Write) -> io::Result<Outcome> {
    let (_path, _ts) = (a.path(), a.ts());
    let map = a.map();
    if opts.format == Format::Json {
        let mut j = Json::new(out);
        j.obj()?.kv_path("file", a.path())?.key("lists")?.arr()?;
        for l in &map.lists {
            j.obj()?
                .kv_str("list", list_name(l.list))?
                .kv_num("length", l.stated_len)?;
            j.kv_num("walked", l.walked)?.key("members")?.arr()?;
            for m in &l.members {
                j.num(m.0)?;
            }
            j.end_arr()?.end_obj()?;
        }
        j.end_arr()?.key("segment_lists")?.arr()?;
        for s in &map.segments {
            j.obj()?.kv_num("segment_id", s.seg_id)?;
            match s.index {
                Some(id) => j.kv_index(a, id)?,
                None => j.key("index_id")?.null()?,
            };
            j.kv_display("role", &s.role)?
                .kv_num("FSEG_FULL", s.full_extents)?
                .kv_num("FSEG_NOT_FULL", s.not_full_extents)?
                .kv_num("FSEG_FREE", s.free_extents)?
                .kv_num("fragment_pages", s.frag_pages)?
                .end_obj()?;
        }
        j.end_arr()?;
        findings::json(&mut j, a, &[&map.findings])?;
        j.end_obj()?;
        writeln!(out)?;
        return Ok(findings::map_outcome(a, &[]));
    }
    for l in &map.lists {
        let unit = if matches!(l.list, FspList::SegInodesFull | FspList::SegInodesFree) {
            "INODE pages"
        } else {
            "extents starting at pages"
        };
        write!(out, "{:<20} length {:>6}", list_name(l.list), l.stated_len)?;
        if l.walked != l.stated_len {
            write!(out, " (walked {})", l.walked)?;
        }
        let shown: Vec<String> = l.members.iter().take(32).map(|p| p.to_string()).collect();
        write!(
            out,
            "  {unit}: {}",
            if shown.is_empty() {
                "-".to_string()
            } else {
                shown.join(" ")
            }
        )?;
        if l.members.len() > 32 {
            write!(out, " … (+{})", l.members.len().saturating_sub(32))?;
        }
        writeln!(out)?;
    }
    // Each segment's own extent lists (its inode's FSEG_FULL, FSEG_NOT_FULL,
    // FSEG_FREE) and fragment pages, by index.
    if !map.segments.is_empty() {
        let w = map
            .segments
            .iter()
            .filter_map(|s| s.index.map(|i| a.index_label(i).chars().count()))
            .max()
            .unwrap_or(0)
            .max(5);
        writeln!(
            out,
            "{:>8} {:<w$} {:<9} {:>9} {:>13} {:>9} {:>9}",
            "segment", "index", "role", "FSEG_FULL", "FSEG_NOT_FULL", "FSEG_FREE", "fragments"
        )?;
        for s in &map.segments {
            writeln!(
                out,
                "{:>8} {:<w$} {:<9} {:>9} {:>13} {:>9} {:>9}",
                s.seg_id,
                s.index.map_or("-".to_string(), |i| a.index_label(i)),
                s.role.to_string(),
                s.full_extents,
                s.not_full_extents,
                s.free_extents,
                s.frag_pages
            )?;
        }
    }
    findings::print_map_findings(out, opts, a, &[])?;
    Ok(findings::map_outcome(a, &[]))
}

/// `ibdscope indexes`: the space map's view of each index (segments,
/// pages) and the B-tree walk's (records, fill, fragmentation,
/// consistency).
pub fn indexes(opts: &Opts, a: &Analysis<'_>, out: &mut dyn Write) -> io::Result<Outcome> {
    let (path, _ts) = (a.path(), a.ts());
    let map = a.map();
    let trees = a.trees();
    let tree_of = |id: IndexId| trees.index(id);
    let outcome = findings::map_outcome(a, &trees.findings);
    if opts.format == Format::Json {
        let mut j = Json::new(out);
        j.obj()?.kv_path("file", path)?.key("indexes")?.arr()?;
        for i in &map.indexes {
            j.obj()?
                .kv_index(a, i.index_id)?
                .kv_num("damaged_pages", a.damaged_pages_of(i.index_id).len() as u64)?
                .kv_num("root_page", i.root.0)?
                .kv_num("height", i.height)?;
            j.kv_num("leaf_pages", i.leaf_pages_used)?
                .kv_num("internal_pages", i.internal_pages_used)?;
            j.kv_num("reserved_pages", i.reserved_pages)?;
            j.key("leaf_segment")?
                .opt_num(i.leaf_seg)?
                .key("internal_segment")?
                .opt_num(i.internal_seg)?;
            match tree_of(i.index_id) {
                Some(t) => {
                    j.key("fill")?.float(f64::from(t.mean_fill), 4)?;
                    json_tree(&mut j, t)?;
                }
                None => {
                    j.key("fill")?.null()?;
                }
            }
            j.end_obj()?;
        }
        j.end_arr()?;
        findings::json(&mut j, a, &[&map.findings, &trees.findings])?;
        j.end_obj()?;
        writeln!(out)?;
        return Ok(outcome);
    }
    if opts.format == Format::Csv {
        indexes_csv(out, a)?;
        findings::map_findings_to_stderr(opts, a, &trees.findings)?;
        return Ok(outcome);
    }
    let w = a.name_width(4);
    writeln!(
        out,
        "{:>10} {:<w$} {:>6} {:>6} {:>8} {:>9} {:>9} {:>6} {:>9} {:>9} {:>8} {:>8} {:>9} {:>7} {:>9}",
        "index",
        "name",
        "root",
        "height",
        "leaf",
        "internal",
        "reserved",
        "fill",
        "segments",
        "records",
        "deleted",
        "garbage",
        "leaf_fill",
        "jumps",
        "mean_jump"
    )?;
    let dash = || "-".to_string();
    for i in &map.indexes {
        let t = tree_of(i.index_id);
        let seg = |s: Option<u64>| s.map_or("-".to_string(), |v| v.to_string());
        writeln!(
            out,
            "{:>10} {:<w$} {:>6} {:>6} {:>8} {:>9} {:>9} {:>6} {:>4}/{:<4} {:>9} {:>8} {:>8} {:>9} {:>7} {:>9}",
            id_text(i.index_id),
            ibdscope::names::name(a.index_name(i.index_id).unwrap_or("-")).to_string(),
            i.root,
            i.height,
            i.leaf_pages_used,
            i.internal_pages_used,
            i.reserved_pages,
            t.map_or_else(dash, |t| format!("{:.1}%", t.mean_fill * 100.0)),
            seg(i.leaf_seg),
            seg(i.internal_seg),
            t.map_or_else(dash, |t| t.n_recs.to_string()),
            t.map_or_else(dash, |t| t.n_deleted.to_string()),
            t.map_or_else(dash, |t| t.n_garbage_recs.to_string()),
            t.map_or_else(dash, |t| format!("{:.1}%", t.mean_leaf_fill * 100.0)),
            // With fewer than 2 leaves (no step) the order cannot be told.
            t.map_or_else(dash, |t| {
                let f = t.fragmentation;
                maps::jump_percent(u64::from(f.steps), u64::from(f.jumps), 0)
            }),
            t.filter(|t| t.fragmentation.steps > 0)
                .map_or_else(dash, |t| format!("{:.1}", t.fragmentation.mean_distance())),
        )?;
    }
    for t in &trees.indexes {
        let hist: Vec<String> = t.leaf_fill_hist.iter().map(|n| n.to_string()).collect();
        write!(
            out,
            "index {}: {} leaf pages on the chain, {} leaf-chain steps, {} not to the next page; leaf fill per 10%: {}",
            a.index_label(t.index_id),
            t.leaves_reached(),
            t.fragmentation.steps,
            t.fragmentation.jumps,
            hist.join(" ")
        )?;
        if t.compressed_pages > 0 {
            write!(
                out,
                "; {} ROW_FORMAT=COMPRESSED pages counted from their headers",
                t.compressed_pages
            )?;
        }
        if t.unreadable_pages > 0 {
            write!(out, "; {} pages unreadable", t.unreadable_pages)?;
        }
        writeln!(out)?;
    }
    for i in &map.indexes {
        let bad = a.damaged_pages_of(i.index_id);
        if !bad.is_empty() {
            let pages: Vec<String> = bad.iter().map(|p| p.to_string()).collect();
            writeln!(
                out,
                "index {}: {} not verify (its figures count what was read from them): pages {}",
                a.index_label(i.index_id),
                if bad.len() == 1 {
                    "1 page does".to_string()
                } else {
                    format!("{} pages do", bad.len())
                },
                pages.join(" ")
            )?;
        }
    }
    findings::print_map_findings(out, opts, a, &trees.findings)?;
    Ok(outcome)
}

/// `indexes --format csv`: one row per index, the JSON object's members
/// flattened (the histogram one column per 10 %, the fragmentation's
/// members prefixed); the B-tree walk's columns are empty for an index
/// without a walked tree.
fn indexes_csv(out: &mut dyn Write, a: &Analysis<'_>) -> io::Result<()> {
    let (map, trees) = (a.map(), a.trees());
    write!(
        out,
        "index_id,index_name,damaged_pages,root_page,height,leaf_pages,internal_pages,\
         reserved_pages,leaf_segment,internal_segment,fill,records,deleted_records,\
         garbage_records,metadata_records,node_pointers,tree_pages,tree_leaf_pages,\
         tree_height,compressed_pages,unreadable_pages,leaf_fill"
    )?;
    for b in 0..ibdscope_core::btree::FILL_BUCKETS {
        let lo = b.saturating_mul(10);
        write!(out, ",fill_histogram_{lo}_{}", lo.saturating_add(10))?;
    }
    writeln!(
        out,
        ",fragmentation_steps,fragmentation_jumps,fragmentation_share,\
         fragmentation_mean_distance,complete"
    )?;
    for i in &map.indexes {
        write!(
            out,
            "{},{},{},{},{},{},{},{},{},{}",
            i.index_id.0,
            csv::opt_name(a.index_name(i.index_id)),
            a.damaged_pages_of(i.index_id).len(),
            i.root.0,
            i.height,
            i.leaf_pages_used,
            i.internal_pages_used,
            i.reserved_pages,
            csv::Opt(i.leaf_seg),
            csv::Opt(i.internal_seg)
        )?;
        let Some(t) = trees.index(i.index_id) else {
            // fill .. leaf_fill, the histogram, fragmentation .. complete.
            for _ in 0..12 + ibdscope_core::btree::FILL_BUCKETS + 5 {
                out.write_all(b",")?;
            }
            writeln!(out)?;
            continue;
        };
        write!(
            out,
            ",{},{},{},{},{},{},{},{},{},{},{},{}",
            csv::Float(f64::from(t.mean_fill), 4),
            t.n_recs,
            t.n_deleted,
            t.n_garbage_recs,
            t.n_metadata,
            t.n_node_ptrs,
            t.pages,
            t.leaf_pages,
            t.height,
            t.compressed_pages,
            t.unreadable_pages,
            csv::Float(f64::from(t.mean_leaf_fill), 4)
        )?;
        for n in t.leaf_fill_hist {
            write!(out, ",{n}")?;
        }
        let f = t.fragmentation;
        writeln!(
            out,
            ",{},{},{},{},{}",
            f.steps,
            f.jumps,
            csv::Float(f64::from(f.share()), 4),
            csv::Float(f64::from(f.mean_distance()), 2),
            t.complete
        )?;
    }
    Ok(())
}

/// The B-tree walk's figures of one index, as JSON members.
fn json_tree(j: &mut Json<'_>, t: &IndexTree) -> io::Result<()> {
    j.kv_num("records", t.n_recs)?
        .kv_num("deleted_records", t.n_deleted)?
        .kv_num("garbage_records", t.n_garbage_recs)?;
    j.kv_num("metadata_records", t.n_metadata)?
        .kv_num("node_pointers", t.n_node_ptrs)?
        .kv_num("tree_pages", t.pages)?
        .kv_num("tree_leaf_pages", t.leaf_pages)?;
    j.kv_num("tree_height", t.height)?
        .kv_num("compressed_pages", t.compressed_pages)?
        .kv_num("unreadable_pages", t.unreadable_pages)?;
    j.key("leaf_fill")?
        .float(f64::from(t.mean_leaf_fill), 4)?
        .key("fill_histogram")?
        .arr()?;
    for n in t.leaf_fill_hist {
        j.num(n)?;
    }
    j.end_arr()?;
    let f = t.fragmentation;
    j.key("fragmentation")?
        .obj()?
        .kv_num("steps", f.steps)?
        .kv_num("jumps", f.jumps)?;
    j.key("share")?
        .float(f64::from(f.share()), 4)?
        .key("mean_distance")?
        .float(f64::from(f.mean_distance()), 2)?
        .end_obj()?;
    j.kv_bool("complete", t.complete)?;
    Ok(())
}
