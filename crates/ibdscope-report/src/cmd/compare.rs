//! `ibdscope compare`: several files side by side. The table gives each
//! file's pages, mean index-page fill and leaf order; then every file's
//! map (`--metric extents|lsn|fill`) in the terminal, or in a picture with
//! `--out`, at one scale by bytes: a cell is the same bytes in every file
//! (pages of the largest page size, so a 4K file's cell holds four times
//! the pages of a 16K file's) and so is a row, so a bigger file is a
//! taller map whatever its page size. `--from`, `--to` and
//! `--pages-per-cell` count pages of the largest page size.

use crate::args::{DefOpts, Format, Metric, Opts};
use crate::fill_grid::{
    fill_classes, fill_glyph, fill_grid, fill_scale, print_tree_findings, tree_outcome, Figures,
};
use crate::json::Json;
use crate::lsn_grid::{lsn_glyph, LsnFacts};
use crate::maps::{
    self, bytes_words, index_slots, owner_classes, owner_grid, MapScale, PageCell, Style,
};
use crate::outcome::Outcome;
use crate::text::count;
use ibdscope::analysis::Analysis;
use ibdscope_core::{IndexId, Tablespace};
use ibdscope_render::{pages_per_cell, Cell, Grid, HeatScale, Panel, Picture, Scale};
use std::io::{self, Write};
use std::path::Path;

/// One file's row and map.
struct Row {
    file: String,
    pages: u32,
    page_size: u32,
    figures: Figures,
    findings: usize,
    lsn: Option<(u64, u64)>,
    grid: Grid,
    /// The file's pages drawn and its cells.
    scale: MapScale,
    /// Pages per owner class (extents metric).
    counts: Vec<u64>,
}

/// The one scale of every file's map: cells of `unit_pages` pages of
/// `unit` bytes (the largest page size), rows of `columns` cells.
struct Scales {
    unit: u32,
    unit_pages: u64,
    columns: u32,
}

impl Scales {
    /// From `--from`, `--to` and `--pages-per-cell` (pages of the largest
    /// page size), for files of these page sizes and page counts.
    fn new(opts: &Opts, files: &[(u32, u64)]) -> Scales {
        let unit = files.iter().map(|f| f.0).max().unwrap_or(1).max(1);
        let s = Scales {
            unit,
            unit_pages: 1,
            columns: 1,
        };
        let units = |&(size, n): &(u32, u64)| {
            let r = s.range(opts, size, n);
            r.1.saturating_sub(r.0).div_ceil(s.ratio(size))
        };
        let unit_pages = opts.map.pages_per_cell.unwrap_or_else(|| {
            (files.iter().map(units))
                .map(|n| pages_per_cell(n, maps::COLUMNS, maps::MAX_ROWS))
                .max()
                .unwrap_or(1)
        });
        let cells = (files.iter().map(units))
            .map(|n| n.div_ceil(unit_pages.max(1)))
            .max()
            .unwrap_or(1);
        Scales {
            unit_pages: unit_pages.max(1),
            columns: cells.clamp(1, u64::from(maps::COLUMNS)) as u32,
            ..s
        }
    }

    /// Pages of `size` bytes in one page of the unit.
    fn ratio(&self, size: u32) -> u64 {
        u64::from(self.unit.checked_div(size.max(1)).unwrap_or(0).max(1))
    }

    /// The pages `from .. end` of a file of `n` pages of `size` bytes that
    /// `--from`/`--to` (in unit pages) name.
    fn range(&self, opts: &Opts, size: u32, n: u64) -> (u64, u64) {
        let r = self.ratio(size);
        let first = u64::from(opts.map.from).saturating_mul(r).min(n);
        let end = (opts.map.to)
            .map_or(n, |t| {
                u64::from(t).saturating_add(1).saturating_mul(r).min(n)
            })
            .max(first);
        (first, end)
    }

    /// One file's scale.
    fn of(&self, opts: &Opts, ts: &Tablespace<'_>, n: u64) -> MapScale {
        let size = ts.page_size();
        let (first, end) = self.range(opts, size, n);
        let per_cell = self.unit_pages.saturating_mul(self.ratio(size));
        let e = ts.format().extent_size();
        MapScale {
            columns: self.columns,
            ..MapScale::of_range(first, end.saturating_sub(first), n, Some(per_cell), size, e)
        }
    }

    /// What a cell and a row are in every file.
    fn words(&self, rows: &[Row]) -> String {
        let cell = self.unit_pages.saturating_mul(u64::from(self.unit));
        let mut sizes: Vec<(u32, u64)> = rows
            .iter()
            .map(|r| (r.page_size, r.scale.pages_per_cell))
            .collect();
        sizes.sort_unstable();
        sizes.dedup();
        let each: Vec<String> = sizes
            .iter()
            .map(|&(size, k)| {
                format!(
                    "{} of {}",
                    maps::pages_words(k),
                    bytes_words(u64::from(size))
                )
            })
            .collect();
        format!(
            "1 cell = {} in every file ({}); 1 row = {} = {}",
            bytes_words(cell),
            each.join(", "),
            count(self.columns, "cell", "cells"),
            bytes_words(cell.saturating_mul(u64::from(self.columns)))
        )
    }
}

/// The last two components of a path (`mysql56/ai_int.ibd`).
fn short(path: &Path) -> String {
    let parts: Vec<String> = path
        .components()
        .rev()
        .take(2)
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    parts.into_iter().rev().collect::<Vec<_>>().join("/")
}

fn metric_word(m: Metric) -> &'static str {
    match m {
        Metric::Extents => "extents",
        Metric::Lsn => "lsn",
        Metric::Fill => "fill",
    }
}

/// `ibdscope compare`.
pub fn run(opts: &Opts, out: &mut dyn Write) -> io::Result<Outcome> {
    let mut worst = Outcome::Clean;
    let mut inputs = Vec::new();
    let mut failed = Vec::new();
    for path in &opts.files {
        match crate::open::file(opts, path, opts.threads) {
            Ok(i) => inputs.push((path, i)),
            Err(e) => {
                crate::diag::say!("ibdscope: {e}");
                failed.push((path, e.to_string()));
                worst = Outcome::Unreadable;
            }
        }
    }
    let mut spaces = Vec::new();
    for (path, i) in &inputs {
        match i.tablespace() {
            Ok(ts) => spaces.push((*path, ts)),
            Err(e) => {
                let why = format!("{}: {e}", ibdscope::names::path(path));
                crate::diag::say!("ibdscope: {why}");
                failed.push((*path, why));
                worst = Outcome::Unreadable;
            }
        }
    }
    // The widest index list decides the owner classes' numbering.
    // page_compressed files: maps, trees and fill from the logical image
    // (input::expand), LSNs from the physical pages.
    let progress = |done, total| opts.host.progress(ibdscope::host::Unit::Pages, done, total);
    let engine = opts.engine().with_progress(&progress);
    let images: Vec<_> = spaces
        .iter()
        .map(|(p, ts)| {
            let mut diags = Vec::new();
            let image =
                ibdscope::logical::expand(p, ts, &engine, opts.key_file.as_ref(), &mut diags);
            crate::open::say(&diags);
            image
        })
        .collect();
    let mut logicals = Vec::new();
    for ((_, ts), image) in spaces.iter().zip(&images) {
        if image.as_ref().is_some_and(ibdscope::logical::damaged) {
            worst = worst.max(Outcome::Findings);
        }
        logicals.push(
            image
                .as_ref()
                .map_or_else(|| ts.clone(), |e| e.tablespace(ts)),
        );
    }
    let analyses: Vec<Analysis<'_>> = spaces
        .iter()
        .zip(&logicals)
        .map(|((path, ts), logical)| {
            // Every metric's row reads the B-trees (its figures): their
            // member pass is folded in the space map's second.
            Analysis::new(path, ts, logical, engine, DefOpts::default())
                .reading_trees(false)
                .with_sink(&crate::open::say_one)
        })
        .collect();
    let slots: Vec<Vec<IndexId>> = analyses.iter().map(|a| index_slots(a.map())).collect();
    let n_slots = slots.iter().map(Vec::len).max().unwrap_or(0);
    let labels = slot_labels(&analyses, &slots, n_slots);
    let sizes: Vec<(u32, u64)> = (analyses.iter())
        .map(|a| (a.physical().page_size(), map_pages(opts.metric, a)))
        .collect();
    let scales = Scales::new(opts, &sizes);
    // `--from` past the end of every file: nothing to draw (named with
    // the file that has the most pages of the unit).
    let past = |&(size, n): &(u32, u64)| scales.range(opts, size, n).0 >= n;
    let largest = (analyses.iter().zip(&sizes))
        .max_by_key(|(_, &(size, n))| n.saturating_mul(u64::from(size)));
    if let Some((a, &(size, n))) = largest.filter(|_| sizes.iter().all(past)) {
        return Ok(worst.max(crate::maps::past_end(
            a.path(),
            format_args!("--from {}", opts.map.from),
            n,
            size,
        )));
    }
    let mut rows = Vec::with_capacity(spaces.len());
    let mut text_findings: Vec<u8> = Vec::new();
    for (a, slots) in analyses.iter().zip(&slots) {
        let scale = scales.of(opts, a.physical(), map_pages(opts.metric, a));
        let (row, outcome) = file_row(opts, a, slots, n_slots, scale, &mut text_findings)?;
        worst = worst.max(outcome);
        rows.push(row);
    }
    let words = scales.words(&rows);
    let drawn = || {
        let mut p = picture(opts.metric, &words, &labels, &rows);
        if let (Metric::Lsn, Some(h)) = (opts.metric, p.heat.as_mut()) {
            crate::lsn_grid::compare_scale(h, &mut p.notes, opts.lsn_scale);
        }
        p
    };
    if opts.picture_json {
        crate::out::picture_json(out, &drawn())?;
        return Ok(worst);
    }
    let (wrote, said) = if opts.out.is_some() && !rows.is_empty() {
        crate::out::write_picture(opts, &drawn(), "compare", &words)
    } else {
        (Outcome::Clean, String::new())
    };
    worst = worst.max(wrote);
    if opts.format == Format::Json {
        json(out, opts, &scales, &rows, &failed)?;
        return Ok(worst);
    }
    if opts.format == Format::Csv {
        csv(out, &rows, &failed)?;
        return Ok(worst);
    }
    text(out, &rows)?;
    if opts.out.is_none() && !rows.is_empty() {
        writeln!(out)?;
        text_maps(out, opts, &words, &labels, &rows)?;
    }
    out.write_all(&text_findings)?;
    out.write_all(said.as_bytes())?;
    Ok(worst)
}

/// The pages a file's map for `metric` stands for: the space map's (the
/// owner and fill maps) or the file's (LSNs).
fn map_pages(metric: Metric, a: &Analysis<'_>) -> u64 {
    match metric {
        Metric::Lsn => u64::from(a.physical().n_pages()),
        _ => u64::from(a.map().n_pages()),
    }
}

/// One file's row and map for `opts.metric`, its findings' text appended
/// to `text_findings`, and its outcome.
fn file_row(
    opts: &Opts,
    a: &Analysis<'_>,
    slots: &[IndexId],
    n_slots: usize,
    scale: MapScale,
    text_findings: &mut Vec<u8>,
) -> io::Result<(Row, Outcome)> {
    let (path, ts, map, trees) = (a.path(), a.physical(), a.map(), a.trees());
    let (grid, counts, lsn, damaged) = match opts.metric {
        Metric::Extents => {
            let (g, c, _) = owner_grid(a, slots, n_slots, &scale);
            (g, c, None, 0)
        }
        Metric::Fill => {
            let (g, _) = fill_grid(a, slots, &scale);
            (g, Vec::new(), None, 0)
        }
        Metric::Lsn => {
            // Damage is the summary's verdict (made in this pass if not
            // before).
            let (f, folded) = LsnFacts::collect_judged(
                ts,
                a.engine(),
                &scale,
                opts.lsn_scale,
                a.summary_made(),
                None,
            );
            if let Some(s) = folded {
                a.set_summary(s);
            }
            (f.normalized(), Vec::new(), f.hist.range(), f.n_damaged)
        }
    };
    let mut outcome = tree_outcome(a);
    if damaged > 0 {
        outcome = outcome.max(Outcome::Findings);
    }
    print_tree_findings(text_findings, opts, a)?;
    let row = Row {
        file: ibdscope::names::path(path).to_string(),
        pages: ts.n_pages(),
        page_size: ts.page_size(),
        figures: Figures::of(trees),
        findings: map.findings.len().saturating_add(trees.findings.len()),
        lsn,
        grid,
        scale,
        counts,
    };
    Ok((row, outcome))
}

/// Columns of the terminal the maps are laid out in.
const TERMINAL_COLUMNS: usize = 80;

/// Every file's map for the metric in the terminal: side by side when they
/// fit in [`TERMINAL_COLUMNS`], else one above the other; then what the
/// glyphs mean.
fn text_maps(
    out: &mut dyn Write,
    opts: &Opts,
    words: &str,
    labels: &[String],
    rows: &[Row],
) -> io::Result<()> {
    let st = Style::of(opts);
    let n_slots = labels.len();
    let glyph = |c: Cell| match opts.metric {
        Metric::Extents => {
            let pc = maps::class_cell(c, n_slots);
            (st.glyph(pc), Some(Style::owner_color(pc)))
        }
        Metric::Fill => fill_glyph(&st, c),
        Metric::Lsn => lsn_glyph(&st, c),
    };
    writeln!(
        out,
        "{} maps, one scale by bytes:",
        metric_word(opts.metric)
    )?;
    for part in words.split("; ") {
        writeln!(out, "{part}")?;
    }
    let columns = rows.iter().map(|r| r.grid.columns).max().unwrap_or(1) as usize;
    let n = rows.len();
    let width = n
        .saturating_mul(columns)
        .saturating_add(n.saturating_sub(1).saturating_mul(2));
    let side = width.saturating_add(11) <= TERMINAL_COLUMNS;
    for (i, r) in rows.iter().enumerate() {
        let tag = if side {
            format!("{}. ", i.saturating_add(1))
        } else {
            String::new()
        };
        writeln!(out, "{tag}{}: {}", r.file, r.scale.range_words())?;
        if !side {
            maps::print_grid(out, &st, &r.grid, glyph)?;
        }
    }
    if side {
        let first = rows.iter().min_by_key(|r| r.grid.pages_per_row());
        let n_rows = rows.iter().map(|r| r.grid.rows()).max().unwrap_or(0);
        let grids: Vec<Vec<&[Cell]>> = rows.iter().map(|r| r.grid.row_cells().collect()).collect();
        for row in 0..n_rows {
            write!(out, "{:>10} ", first.map_or(0, |r| r.grid.row_start(row)))?;
            for (i, g) in grids.iter().enumerate() {
                let cells = g.get(row).copied().unwrap_or(&[]);
                for c in cells {
                    let (t, color) = glyph(*c);
                    st.paint(out, color, t)?;
                }
                if i.saturating_add(1) < n {
                    let pad = columns.saturating_sub(cells.len()).saturating_add(2);
                    write!(out, "{:pad$}", "")?;
                }
            }
            writeln!(out)?;
        }
    }
    writeln!(out)?;
    text_key(out, &st, opts.metric, labels)
}

/// What the compare maps' glyphs mean, in lines of at most 80 columns.
fn text_key(out: &mut dyn Write, st: &Style, metric: Metric, labels: &[String]) -> io::Result<()> {
    let ramp = if st.ascii {
        "1 2 3 4 5 6 7 8"
    } else {
        "▁▂▃▄▅▆▇█"
    };
    let other = st.glyph(PageCell::Other(None));
    let free = st.glyph(PageCell::Free);
    match metric {
        Metric::Extents => {
            for (s, label) in labels.iter().enumerate() {
                let full = PageCell::Index { slot: s, fill: 1.0 };
                st.paint(out, Some(Style::owner_color(full)), st.level(8))?;
                writeln!(out, " index {label}")?;
            }
            writeln!(out, "index pages by fill in eighths {ramp}")?;
            if !st.color && labels.len() > 1 {
                writeln!(out, "{}", crate::maps::NO_COLOR_INDEXES)?;
            }
        }
        Metric::Fill => writeln!(out, "index pages by fill in eighths {ramp}")?,
        Metric::Lsn => {
            writeln!(out, "page LSN from old to new within each file {ramp}")?;
            return writeln!(out, "blank: LSN 0; X: damaged (LSN not trusted)");
        }
    }
    writeln!(
        out,
        "{free} free, S system, {other} not a B-tree page, ? unaccounted"
    )?;
    writeln!(out, "X damaged, ~ not verifiable, f free but holds records")
}

/// The table: one line per file.
fn text(out: &mut dyn Write, rows: &[Row]) -> io::Result<()> {
    let w = rows
        .iter()
        .map(|r| r.file.chars().count())
        .max()
        .unwrap_or(0)
        .max(4);
    writeln!(
        out,
        "{:<w$} {:>8} {:>9} {:>11} {:>9} {:>10} {:>9} {:>8}",
        "file",
        "pages",
        "page size",
        "index pages",
        "mean fill",
        "leaf jumps",
        "mean jump",
        "findings"
    )?;
    for r in rows {
        let fill = r
            .figures
            .mean_fill
            .map_or("-".to_string(), |f| format!("{:.1}%", f * 100.0));
        writeln!(
            out,
            "{:<w$} {:>8} {:>9} {:>11} {:>9} {:>10} {:>9} {:>8}",
            r.file,
            r.pages,
            r.page_size,
            r.figures.index_pages,
            fill,
            maps::jump_percent(r.figures.steps, r.figures.jumps, 1),
            if r.figures.steps == 0 {
                "-".to_string()
            } else {
                format!("{:.1}", r.figures.mean_jump())
            },
            r.findings
        )?;
    }
    Ok(())
}

fn json(
    out: &mut dyn Write,
    opts: &Opts,
    scales: &Scales,
    rows: &[Row],
    failed: &[(&std::path::PathBuf, String)],
) -> io::Result<()> {
    let mut j = Json::new(out);
    j.obj()?
        .kv_str("metric", metric_word(opts.metric))?
        .kv_num("pages_per_cell", scales.unit_pages)?
        .kv_num(
            "bytes_per_cell",
            scales.unit_pages.saturating_mul(u64::from(scales.unit)),
        )?
        .key("files")?
        .arr()?;
    for r in rows {
        j.obj()?
            .kv_str("file", &r.file)?
            .kv_num("pages", r.pages)?
            .kv_num("page_size", r.page_size)?
            .kv_num("pages_per_cell", r.scale.pages_per_cell)?
            .kv_num("index_pages", r.figures.index_pages)?;
        match r.figures.mean_fill {
            Some(f) => j.key("mean_fill")?.float(f, 4)?,
            None => j.key("mean_fill")?.null()?,
        };
        j.kv_num("leaf_steps", r.figures.steps)?
            .kv_num("leaf_jumps", r.figures.jumps)?;
        j.key("jump_share")?.float(r.figures.jump_share(), 4)?;
        j.key("mean_jump")?.float(r.figures.mean_jump(), 2)?;
        j.kv_num("findings", r.findings as u64)?.end_obj()?;
    }
    for (p, why) in failed {
        j.obj()?
            .kv_path("file", p)?
            .kv_str("error", why)?
            .end_obj()?;
    }
    j.end_arr()?.end_obj()?;
    writeln!(out)
}

/// `compare --format csv`: one row per file, the JSON rows' members, then
/// the files that could not be read (only `file` and `error`).
fn csv(
    out: &mut dyn Write,
    rows: &[Row],
    failed: &[(&std::path::PathBuf, String)],
) -> io::Result<()> {
    use crate::csv::{Field, Float};
    writeln!(
        out,
        "file,pages,page_size,index_pages,mean_fill,leaf_steps,leaf_jumps,jump_share,\
         mean_jump,findings,error"
    )?;
    for r in rows {
        writeln!(
            out,
            "{},{},{},{},{},{},{},{},{},{},",
            // Already as text shows it (`names::path`).
            Field(&r.file),
            r.pages,
            r.page_size,
            r.figures.index_pages,
            crate::csv::Opt(r.figures.mean_fill.map(|f| Float(f, 4))),
            r.figures.steps,
            r.figures.jumps,
            Float(r.figures.jump_share(), 4),
            Float(r.figures.mean_jump(), 2),
            r.findings
        )?;
    }
    for (p, why) in failed {
        writeln!(out, "{},,,,,,,,,,{}", crate::csv::path(p), Field(why))?;
    }
    Ok(())
}

fn ordinal(n: usize) -> String {
    let suffix = match (n % 10, n % 100) {
        (1, x) if x != 11 => "st",
        (2, x) if x != 12 => "nd",
        (3, x) if x != 13 => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// The legend's name of each palette slot: the index name every file
/// gives it (`PRIMARY`), the names when they differ (`k_a / k_b`), else
/// its place (`2nd index by id`).
fn slot_labels(analyses: &[Analysis<'_>], slots: &[Vec<IndexId>], n_slots: usize) -> Vec<String> {
    (0..n_slots)
        .map(|i| {
            let mut names: Vec<&str> = Vec::new();
            for (a, s) in analyses.iter().zip(slots) {
                if let Some(name) = s.get(i).and_then(|&id| a.index_name(id)) {
                    if !names.contains(&name) {
                        names.push(name);
                    }
                }
            }
            if names.is_empty() {
                format!("{} index by id", ordinal(i.saturating_add(1)))
            } else {
                let shown: Vec<String> = names
                    .iter()
                    .map(|n| ibdscope::names::name(n).to_string())
                    .collect();
                shown.join(" / ")
            }
        })
        .collect()
}

fn picture(metric: Metric, words: &str, labels: &[String], rows: &[Row]) -> Picture {
    let (classes, heat) = match metric {
        Metric::Extents => {
            let total: u64 = rows.iter().map(|r| u64::from(r.pages)).sum();
            let pages = |c: usize| rows.iter().filter_map(|r| r.counts.get(c)).sum();
            (owner_classes(labels, pages, total), None)
        }
        Metric::Fill => {
            let mut classes = Vec::new();
            for r in rows {
                let c = fill_classes(&r.grid);
                if classes.is_empty() {
                    classes = c;
                } else {
                    for (a, b) in classes.iter_mut().zip(c) {
                        a.shown |= b.shown;
                    }
                }
            }
            (classes, Some(fill_scale()))
        }
        Metric::Lsn => (
            {
                let shown = |k: u16| {
                    rows.iter()
                        .any(|r| r.grid.cells.contains(&ibdscope_render::Cell::Class(k)))
                };
                // the counts are per file: the legend names the kinds
                crate::lsn_grid::lsn_classes([None, None], [shown(0), shown(1)])
            },
            Some(HeatScale {
                title: "page LSN, old to new within each file (linear)".into(),
                scale: Scale { lo: 0.0, hi: 1.0 },
                lo_label: "oldest in the file".into(),
                hi_label: "newest in the file".into(),
                floor: 0.0,
                ticks: Vec::new(),
            }),
        ),
    };
    let title = format!("compare {}: {} files", metric_word(metric), rows.len());
    let mut lines = vec![words.to_string()];
    let first_size = rows.first().map(|r| r.page_size);
    if rows.iter().any(|r| Some(r.page_size) != first_size) {
        lines.push("row labels, --from, --to: pages of the largest page size".into());
    }
    let mut notes = Vec::new();
    match metric {
        Metric::Extents => notes.push(
            "bar height: the page's fill (used / usable bytes from its INDEX header); jumps: \
             leaf-chain steps whose next leaf is not the next page"
                .to_string(),
        ),
        Metric::Fill => notes.push(
            "jumps: leaf-chain steps whose next leaf is not the next page of the file".into(),
        ),
        Metric::Lsn => notes.push("blank: LSN 0 (never written)".into()),
    }
    if rows.iter().any(|r| r.scale.pages_per_cell > 1) {
        let vote = match metric {
            Metric::Lsn => crate::lsn_grid::VOTE,
            _ => maps::VOTE,
        };
        notes.push(format!("a cell of several pages shows {vote}"));
    }
    let panels = rows
        .iter()
        .map(|r| {
            let fill = r
                .figures
                .mean_fill
                .map_or("no index pages".to_string(), |f| {
                    format!("mean fill {:.0}%", f * 100.0)
                });
            let mut caption = vec![
                short(Path::new(&r.file)),
                format!("{} pages · {fill}", r.pages),
                if r.figures.steps == 0 {
                    "leaf order n/a (fewer than 2 leaves)".to_string()
                } else {
                    format!(
                        "leaf jumps {:.0}% · mean jump {:.1} pages",
                        r.figures.jump_share() * 100.0,
                        r.figures.mean_jump()
                    )
                },
            ];
            if let Some((lo, hi)) = r.lsn {
                caption.push(format!("LSN {lo} .. {hi}"));
            }
            caption.push(r.scale.range_words());
            Panel {
                caption,
                grid: r.grid.clone(),
            }
        })
        .collect();
    Picture {
        title,
        lines,
        panels,
        classes,
        heat,
        notes,
        histograms: Vec::new(),
    }
}
