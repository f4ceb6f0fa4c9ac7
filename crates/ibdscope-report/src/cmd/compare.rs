//! `ibdscope compare`: several files side by side. The table gives each
//! file's pages, mean index-page fill and leaf order; with `--out`, a
//! picture draws every file's map (`--metric extents|lsn|fill`) at one
//! scale: the same pages per cell and per row for all, so a bigger file is
//! a taller map.

use crate::analysis::Analysis;
use crate::args::{DefOpts, Format, Metric, Opts};
use crate::cmd::fill::{
    fill_classes, fill_grid, fill_scale, print_findings, tree_outcome, Figures,
};
use crate::cmd::lsn::LsnFacts;
use crate::cmd::map::{self, index_slots, owner_classes, owner_grid};
use crate::json::Json;
use crate::outcome::Outcome;
use ibdscope::IndexId;
use ibdscope_render::color::{ansi256_to_rgb, DAMAGED_ANSI};
use ibdscope_render::{pages_per_cell, Class, Grid, HeatScale, Panel, Picture, Scale};
use std::io::{self, Write};
use std::path::Path;

/// Cells per row for every file: an extent of 16K pages, or the pages of
/// the largest file when that is fewer.
const COLUMNS: u32 = 64;

/// One file's row and map.
struct Row {
    file: String,
    pages: u32,
    page_size: u32,
    figures: Figures,
    findings: usize,
    lsn: Option<(u64, u64)>,
    grid: Grid,
    /// Pages per owner class (extents metric).
    counts: Vec<u64>,
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
        match opts.host.open(path, opts.threads) {
            Ok(i) => inputs.push((path, i)),
            Err(e) => {
                eprintln!("ibdscope: {e}");
                failed.push(path);
                worst = Outcome::Unreadable;
            }
        }
    }
    let mut spaces = Vec::new();
    for (path, i) in &inputs {
        match crate::host::tablespace(&**i, opts.lib) {
            Ok(ts) => spaces.push((*path, ts)),
            Err(e) => {
                eprintln!("ibdscope: {}: {e}", crate::names::path(path));
                failed.push(*path);
                worst = Outcome::Unreadable;
            }
        }
    }
    let rows_max = if opts.out.is_some() {
        map::PICTURE_ROWS
    } else {
        map::TERMINAL_ROWS
    };
    let columns = spaces
        .iter()
        .map(|(_, ts)| ts.n_pages())
        .max()
        .unwrap_or(1)
        .clamp(1, COLUMNS);
    let per_cell = spaces
        .iter()
        .map(|(_, ts)| pages_per_cell(u64::from(ts.n_pages()), columns, rows_max))
        .max()
        .unwrap_or(1);
    let mut rows = Vec::with_capacity(spaces.len());
    let mut text_findings: Vec<u8> = Vec::new();
    // The widest index list decides the owner classes' numbering.
    // page_compressed files: maps, trees and fill from the logical image
    // (input::expand), LSNs from the physical pages.
    let engine = opts.engine();
    let images: Vec<_> = spaces
        .iter()
        .map(|(p, ts)| crate::logical::expand(p, ts, &engine, opts.key_file.as_ref()))
        .collect();
    let mut logicals = Vec::new();
    for ((_, ts), image) in spaces.iter().zip(&images) {
        if image.as_ref().is_some_and(crate::logical::damaged) {
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
        .map(|((path, ts), logical)| Analysis::new(path, ts, logical, engine, DefOpts::default()))
        .collect();
    let slots: Vec<Vec<IndexId>> = analyses.iter().map(|a| index_slots(a.map())).collect();
    let n_slots = slots.iter().map(Vec::len).max().unwrap_or(0);
    let labels = slot_labels(&analyses, &slots, n_slots);
    for (a, slots) in analyses.iter().zip(&slots) {
        let (row, outcome) = file_row(
            opts,
            a,
            slots,
            n_slots,
            columns,
            per_cell,
            &mut text_findings,
        )?;
        worst = worst.max(outcome);
        rows.push(row);
    }
    let (wrote, said) = if opts.out.is_some() && !rows.is_empty() {
        let mut p = picture(opts.metric, per_cell, columns, &labels, &rows);
        if let (Metric::Lsn, Some(h)) = (opts.metric, p.heat.as_mut()) {
            crate::cmd::lsn::compare_scale(h, &mut p.notes, opts.lsn_scale);
        }
        map::write_picture(opts, &p, "compare")
    } else {
        (Outcome::Clean, String::new())
    };
    worst = worst.max(wrote);
    if opts.format == Format::Json {
        json(out, opts, per_cell, &rows, &failed)?;
        return Ok(worst);
    }
    if opts.format == Format::Csv {
        csv(out, &rows, &failed)?;
        return Ok(worst);
    }
    text(out, &rows)?;
    out.write_all(&text_findings)?;
    out.write_all(said.as_bytes())?;
    Ok(worst)
}

/// One file's row and map for `opts.metric`, its findings' text appended
/// to `text_findings`, and its outcome.
fn file_row(
    opts: &Opts,
    a: &Analysis<'_>,
    slots: &[IndexId],
    n_slots: usize,
    columns: u32,
    per_cell: u64,
    text_findings: &mut Vec<u8>,
) -> io::Result<(Row, Outcome)> {
    let (path, ts, map, trees) = (a.path(), a.physical(), a.map(), a.trees());
    let (grid, counts, lsn, damaged) = match opts.metric {
        Metric::Extents => {
            let (g, c, _) = owner_grid(a, slots, n_slots, columns, per_cell);
            (g, c, None, 0)
        }
        Metric::Fill => {
            let (g, _) = fill_grid(a, slots, columns, per_cell);
            (g, Vec::new(), None, 0)
        }
        Metric::Lsn => {
            let f = LsnFacts::collect(ts, a.engine(), columns, per_cell, opts.lsn_scale);
            (f.normalized(), Vec::new(), f.hist.range(), f.n_damaged)
        }
    };
    let mut outcome = tree_outcome(a);
    if damaged > 0 {
        outcome = outcome.max(Outcome::Findings);
    }
    print_findings(text_findings, opts, a)?;
    let row = Row {
        file: crate::names::path(path).to_string(),
        pages: ts.n_pages(),
        page_size: ts.page_size(),
        figures: Figures::of(trees),
        findings: map.findings.len() + trees.findings.len(),
        lsn,
        grid,
        counts,
    };
    Ok((row, outcome))
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
            "{:<w$} {:>8} {:>9} {:>11} {:>9} {:>9.1}% {:>9.1} {:>8}",
            r.file,
            r.pages,
            r.page_size,
            r.figures.index_pages,
            fill,
            r.figures.jump_share() * 100.0,
            r.figures.mean_jump(),
            r.findings
        )?;
    }
    Ok(())
}

fn json(
    out: &mut dyn Write,
    opts: &Opts,
    per_cell: u64,
    rows: &[Row],
    failed: &[&std::path::PathBuf],
) -> io::Result<()> {
    let mut j = Json::new(out);
    j.obj()?
        .kv_str("metric", metric_word(opts.metric))?
        .kv_num("pages_per_cell", per_cell)?
        .key("files")?
        .arr()?;
    for r in rows {
        j.obj()?
            .kv_str("file", &r.file)?
            .kv_num("pages", r.pages)?
            .kv_num("page_size", r.page_size)?
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
    for p in failed {
        j.obj()?
            .kv_path("file", p)?
            .kv_str("error", "could not read (see stderr)")?
            .end_obj()?;
    }
    j.end_arr()?.end_obj()?;
    writeln!(out)
}

/// `compare --format csv`: one row per file, the JSON rows' members, then
/// the files that could not be read (only `file` and `error`).
fn csv(out: &mut dyn Write, rows: &[Row], failed: &[&std::path::PathBuf]) -> io::Result<()> {
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
    for p in failed {
        writeln!(
            out,
            "{},,,,,,,,,,could not read (see stderr)",
            crate::csv::path(p)
        )?;
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
                format!("{} index by id", ordinal(i + 1))
            } else {
                let shown: Vec<String> = names
                    .iter()
                    .map(|n| crate::names::name(n).to_string())
                    .collect();
                shown.join(" / ")
            }
        })
        .collect()
}

fn picture(
    metric: Metric,
    per_cell: u64,
    columns: u32,
    labels: &[String],
    rows: &[Row],
) -> Picture {
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
            vec![Class {
                label: "damaged page (LSN not trusted)".into(),
                color: ansi256_to_rgb(DAMAGED_ANSI),
                shown: rows
                    .iter()
                    .any(|r| r.grid.cells.contains(&ibdscope_render::Cell::Class(0))),
            }],
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
    let lines = vec![format!(
        "one scale for all: {} page{} per cell, {} pages per row",
        per_cell,
        if per_cell == 1 { "" } else { "s" },
        per_cell * u64::from(columns)
    )];
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
                format!(
                    "leaf jumps {:.0}% · mean jump {:.1} pages",
                    r.figures.jump_share() * 100.0,
                    r.figures.mean_jump()
                ),
            ];
            if let Some((lo, hi)) = r.lsn {
                caption.push(format!("LSN {lo} .. {hi}"));
            }
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
