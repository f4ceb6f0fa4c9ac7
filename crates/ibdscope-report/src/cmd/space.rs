//! Space-structure commands over the library's `SpaceMap`: `extents` (the
//! terminal map), `segments`, `lists` and `indexes`.

use crate::analysis::Analysis;
use crate::args::{Format, Opts};
use crate::cmd::map::{self, eighths, index_slots, owner_classes, page_cell, PageCell, Style};
use crate::json::Json;
use crate::Outcome;
use ibdscope::extents::{FspList, Owner, SpaceMap, SpaceProblem};
use ibdscope::{Btrees, Finding, FindingKind, IndexId, IndexTree, Tablespace};
use ibdscope_render::{pages_per_cell, Panel, Picture};
use std::io::{self, Write};
use std::path::Path;

/// Pages per class of the owner map.
struct CellCounts {
    /// Per index slot: its B-tree and other pages.
    slots: Vec<usize>,
    system: usize,
    free: usize,
    unaccounted: usize,
    /// Segment pages that are not B-tree pages, of any index or none.
    other: usize,
}

impl CellCounts {
    fn new(n_slots: usize) -> Self {
        CellCounts {
            slots: vec![0; n_slots],
            system: 0,
            free: 0,
            unaccounted: 0,
            other: 0,
        }
    }

    fn add(&mut self, c: PageCell) {
        match c {
            PageCell::Index { slot, .. } | PageCell::Other(Some(slot)) => {
                if let Some(n) = self.slots.get_mut(slot) {
                    *n += 1;
                }
            }
            PageCell::System => self.system += 1,
            PageCell::Free => self.free += 1,
            PageCell::Unaccounted => self.unaccounted += 1,
            PageCell::Other(None) => {}
        }
        if matches!(c, PageCell::Other(_)) {
            self.other += 1;
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
            PageCell::Index { slot, .. } => self.slot(slot),
            PageCell::Other(_) => self.other,
        }
    }
}

/// Structure findings that make the exit code 1. A freed page that still
/// holds records is a normal state after deletes (a forensic clue), shown
/// but not counted as damage.
pub fn damaging(map: &SpaceMap) -> usize {
    map.findings
        .iter()
        .filter(|f| {
            !matches!(
                f.kind,
                FindingKind::Space(SpaceProblem::FreePageWithData { .. })
            )
        })
        .count()
}

pub fn outcome(map: &SpaceMap) -> Outcome {
    if damaging(map) > 0 {
        Outcome::Findings
    } else {
        Outcome::Clean
    }
}

pub fn print_findings(out: &mut dyn Write, path: &Path, map: &SpaceMap) -> io::Result<()> {
    print_finding_list(out, path, &map.findings)?;
    for p in &map.unreadable {
        writeln!(
            out,
            "{}: page {p}: not readable (encrypted or page-compressed); its segments are unknown",
            path.display()
        )?;
    }
    Ok(())
}

/// One line per finding: `FILE: page N at byte offset X: reason`.
fn print_finding_list(out: &mut dyn Write, path: &Path, list: &[Finding]) -> io::Result<()> {
    for f in list {
        let what = match f.page {
            Some(p) => format!("page {p} at byte offset {}", f.file_offset),
            None => format!("byte offset {}", f.file_offset),
        };
        writeln!(out, "{}: {what}: {}", path.display(), f.kind)?;
    }
    Ok(())
}

pub fn json_findings(j: &mut Json<'_>, map: &SpaceMap) -> io::Result<()> {
    json_finding_list(j, &map.findings, &[])
}

/// `"findings": [{page, offset, reason}]` over two lists.
fn json_finding_list(j: &mut Json<'_>, a: &[Finding], b: &[Finding]) -> io::Result<()> {
    j.key("findings")?.arr()?;
    for f in a.iter().chain(b) {
        j.obj()?
            .key("page")?
            .opt_num(f.page.map(|p| u64::from(p.0)))?;
        j.kv_num("offset", f.file_offset)?
            .kv_display("reason", &f.kind)?
            .end_obj()?;
    }
    j.end_arr()?;
    Ok(())
}

/// Writes `{"file", "<key>": [rows], "findings"}` and returns the outcome.
fn json_rows<T>(
    out: &mut dyn Write,
    path: &Path,
    map: &SpaceMap,
    key: &str,
    rows: &[T],
    row: impl Fn(&mut Json<'_>, &T) -> io::Result<()>,
) -> io::Result<Outcome> {
    let mut j = Json::new(out);
    j.obj()?
        .kv_str("file", &path.display().to_string())?
        .key(key)?
        .arr()?;
    for r in rows {
        row(&mut j, r)?;
    }
    j.end_arr()?;
    json_findings(&mut j, map)?;
    j.end_obj()?;
    writeln!(out)?;
    Ok(outcome(map))
}

fn owner_word(o: Owner) -> &'static str {
    match o {
        Owner::Free => "free",
        Owner::System(_) => "system",
        Owner::Unaccounted => "unaccounted",
        Owner::Segment { .. } => "segment",
    }
}

/// `ibdscope extents`.
pub fn extents(opts: &Opts, a: &Analysis<'_>, out: &mut dyn Write) -> io::Result<Outcome> {
    let (path, ts) = (a.path(), a.ts());
    let map = SpaceMap::build(ts);
    let slots = index_slots(&map);
    let (wrote, said) = if opts.out.is_some() {
        let p = extents_picture(path, ts, &map, &slots);
        map::write_picture(opts, &p, &path.display().to_string())
    } else {
        (Outcome::Clean, String::new())
    };
    if opts.out.is_some() && opts.format == Format::Text {
        out.write_all(said.as_bytes())?;
        print_findings(out, path, &map)?;
        return Ok(wrote.max(outcome(&map)));
    }
    // Cells are made as they are drawn, never kept per page.
    let total = f64::from(map.n_pages().max(1));
    if opts.format == Format::Json {
        let mut counts = CellCounts::new(slots.len());
        for (n, o) in map.owners(ts).enumerate() {
            counts.add(page_cell(ts, &slots, n, o));
        }
        let mut j = Json::new(out);
        j.obj()?.kv_str("file", &path.display().to_string())?;
        j.kv_num("page_size", ts.page_size())?
            .kv_num("extent_size", ts.format().extent_size())?;
        j.kv_num("pages", ts.n_pages())?;
        j.key("legend")?.arr()?;
        for (s, id) in slots.iter().enumerate() {
            j.obj()?
                .kv_num("index_id", id.0)?
                .kv_num("pages", counts.slot(s) as u64)?
                .end_obj()?;
        }
        j.end_arr()?;
        j.kv_num("system_pages", counts.system as u64)?;
        j.kv_num("free_pages", counts.free as u64)?;
        j.kv_num("unaccounted_pages", counts.unaccounted as u64)?;
        j.key("map")?.arr()?;
        for (n, o) in map.owners(ts).enumerate() {
            j.obj()?
                .kv_num("page", n as u64)?
                .kv_str("owner", owner_word(o))?;
            if let Owner::Segment {
                seg_id,
                index,
                role,
                frag,
            } = o
            {
                j.kv_num("segment", seg_id)?
                    .key("index_id")?
                    .opt_num(index.map(|i| i.0))?;
                j.kv_display("role", &role)?.kv_bool("fragment", frag)?;
            }
            if let PageCell::Index { fill, .. } = page_cell(ts, &slots, n, o) {
                j.kv_num("fill_eighths", eighths(fill))?;
            }
            j.end_obj()?;
        }
        j.end_arr()?;
        json_findings(&mut j, &map)?;
        j.end_obj()?;
        writeln!(out)?;
        return Ok(outcome(&map).max(wrote));
    }
    let st = Style::of(opts);
    let f = ts.format();
    writeln!(
        out,
        "{}: {} pages of {} bytes, {} pages per extent",
        path.display(),
        ts.n_pages(),
        ts.page_size(),
        f.extent_size()
    )?;
    // Rows of at most 64 cells: an extent of 4K pages (256) takes 4 rows.
    let width = (f.extent_size() as usize).clamp(1, 64);
    let mut counts = CellCounts::new(slots.len());
    for (n, o) in map.owners(ts).enumerate() {
        let c = page_cell(ts, &slots, n, o);
        counts.add(c);
        if n % width == 0 {
            if n > 0 {
                writeln!(out)?;
            }
            write!(out, "{n:>10} ")?;
        }
        st.paint(out, Some(Style::owner_color(c)), st.glyph(c))?;
    }
    if map.n_pages() > 0 {
        writeln!(out)?;
    }
    writeln!(out)?;
    let swatch = if st.ascii { "#" } else { "█" };
    for (s, id) in slots.iter().enumerate() {
        let info = map.index(*id);
        let n = counts.slot(s);
        let full = PageCell::Index { slot: s, fill: 1.0 };
        st.paint(out, Some(Style::owner_color(full)), swatch)?;
        write!(
            out,
            " index {:<8} {:>8} pages {:>6.1}%",
            id,
            n,
            n as f64 * 100.0 / total
        )?;
        if let Some(i) = info {
            write!(out, "  root {} height {}", i.root, i.height)?;
        }
        writeln!(out)?;
    }
    for (cell, name) in [
        (PageCell::System, "system"),
        (PageCell::Free, "free"),
        (PageCell::Unaccounted, "unaccounted"),
    ] {
        let n = counts.of(cell);
        if n > 0 || cell != PageCell::Unaccounted {
            st.paint(out, Some(Style::owner_color(cell)), st.glyph(cell))?;
            writeln!(
                out,
                " {name:<14} {:>8} pages {:>6.1}%",
                n,
                n as f64 * 100.0 / total
            )?;
        }
    }
    let other = counts.other;
    if other > 0 {
        let o = PageCell::Other(None);
        st.paint(out, Some(Style::owner_color(o)), st.glyph(o))?;
        writeln!(
            out,
            " {:<14} {:>8} pages (BLOB/LOB or allocated pages of a segment)",
            "other", other
        )?;
    }
    let legend = if st.ascii {
        "1 2 3 4 5 6 7 8"
    } else {
        "▁▂▃▄▅▆▇█"
    };
    writeln!(out, "index pages are drawn by fill, in eighths: {legend}")?;
    print_findings(out, path, &map)?;
    Ok(outcome(&map))
}

/// The owner map as a picture: one cell per page (or per run of pages in
/// large files), coloured by index with a bar as high as the page's fill.
fn extents_picture(path: &Path, ts: &Tablespace<'_>, map: &SpaceMap, slots: &[IndexId]) -> Picture {
    let n = u64::from(map.n_pages());
    let columns = map::columns(ts);
    let (grid, counts, types) = map::owner_grid(
        ts,
        map,
        slots,
        slots.len(),
        columns,
        pages_per_cell(n, columns, map::PICTURE_ROWS),
    );
    let labels: Vec<String> = slots.iter().map(|id| format!("index {id}")).collect();
    let classes = owner_classes(&labels, |c| counts.get(c).copied().unwrap_or(0), n);
    let (title, lines) = map::title(path, ts, &types, "extents");
    let mut notes = vec![
        "one cell per page, one row per extent; a bar's height is the page's fill (used / \
         usable bytes, from its INDEX header)"
            .to_string(),
    ];
    if grid.pages_per_cell > 1 {
        notes[0] = format!(
            "each cell holds {} pages (the owner most of them have; bar: their mean fill); \
             each row {} pages",
            grid.pages_per_cell,
            grid.pages_per_row()
        );
    }
    Picture {
        title,
        lines,
        panels: vec![Panel {
            caption: Vec::new(),
            grid,
        }],
        classes,
        heat: None,
        notes,
        histograms: Vec::new(),
    }
}

/// `ibdscope segments`.
pub fn segments(opts: &Opts, a: &Analysis<'_>, out: &mut dyn Write) -> io::Result<Outcome> {
    let (path, ts) = (a.path(), a.ts());
    let map = SpaceMap::build(ts);
    if opts.format == Format::Json {
        return json_rows(out, path, &map, "segments", &map.segments, |j, s| {
            j.obj()?
                .kv_num("segment_id", s.seg_id)?
                .key("index_id")?
                .opt_num(s.index.map(|i| i.0))?;
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
    writeln!(
        out,
        "{:>8} {:>8} {:<9} {:>8} {:>9} {:>6} {:>5} {:>9} {:>5}  inode",
        "segment", "index", "role", "used", "reserved", "frag", "full", "not_full", "free"
    )?;
    for s in &map.segments {
        let idx = s.index.map_or("-".to_string(), |i| i.to_string());
        writeln!(
            out,
            "{:>8} {:>8} {:<9} {:>8} {:>9} {:>6} {:>5} {:>9} {:>5}  {}:{}",
            s.seg_id,
            idx,
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
    print_findings(out, path, &map)?;
    Ok(outcome(&map))
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
    let (path, ts) = (a.path(), a.ts());
    let map = SpaceMap::build(ts);
    if opts.format == Format::Json {
        return json_rows(out, path, &map, "lists", &map.lists, |j, l| {
            j.obj()?
                .kv_str("list", list_name(l.list))?
                .kv_num("length", l.stated_len)?;
            j.kv_num("walked", l.walked)?.key("members")?.arr()?;
            for m in &l.members {
                j.num(m.0)?;
            }
            j.end_arr()?.end_obj()?;
            Ok(())
        });
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
            write!(out, " … (+{})", l.members.len() - 32)?;
        }
        writeln!(out)?;
    }
    print_findings(out, path, &map)?;
    Ok(outcome(&map))
}

/// `ibdscope indexes`: the space map's view of each index (segments,
/// pages) and the B-tree walk's (records, fill, fragmentation,
/// consistency).
pub fn indexes(opts: &Opts, a: &Analysis<'_>, out: &mut dyn Write) -> io::Result<Outcome> {
    let (path, ts) = (a.path(), a.ts());
    let map = SpaceMap::build(ts);
    let trees = Btrees::build(ts, &map);
    let tree_of = |id: IndexId| trees.index(id);
    let outcome = if trees.findings.is_empty() {
        outcome(&map)
    } else {
        Outcome::Findings
    };
    if opts.format == Format::Json {
        let mut j = Json::new(out);
        j.obj()?
            .kv_str("file", &path.display().to_string())?
            .key("indexes")?
            .arr()?;
        for i in &map.indexes {
            j.obj()?
                .kv_num("index_id", i.index_id.0)?
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
        json_finding_list(&mut j, &map.findings, &trees.findings)?;
        j.end_obj()?;
        writeln!(out)?;
        return Ok(outcome);
    }
    writeln!(
        out,
        "{:>10} {:>6} {:>6} {:>8} {:>9} {:>9} {:>6} {:>9} {:>9} {:>8} {:>8} {:>9} {:>7} {:>9}",
        "index",
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
            "{:>10} {:>6} {:>6} {:>8} {:>9} {:>9} {:>6} {:>4}/{:<4} {:>9} {:>8} {:>8} {:>9} {:>7} {:>9}",
            i.index_id,
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
            t.map_or_else(dash, |t| format!(
                "{:.0}%",
                t.fragmentation.share() * 100.0
            )),
            t.map_or_else(dash, |t| format!("{:.1}", t.fragmentation.mean_distance())),
        )?;
    }
    for t in &trees.indexes {
        let hist: Vec<String> = t.leaf_fill_hist.iter().map(|n| n.to_string()).collect();
        write!(
            out,
            "index {}: {} leaf pages on the chain, {} leaf-chain steps, {} not to the next page; leaf fill per 10%: {}",
            t.index_id,
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
    print_findings(out, path, &map)?;
    print_finding_list(out, path, &trees.findings)?;
    Ok(outcome)
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
