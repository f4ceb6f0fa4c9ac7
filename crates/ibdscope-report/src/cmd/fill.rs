//! `ibdscope fill`: how full each index page is, as a map, with each
//! index's leaf-fill histogram, mean fill and leaf order.
//!
//! A page's fill is used / usable bytes from its INDEX header
//! (`IndexHeader::usage`); the per-index figures come from the B-tree walk
//! (`Btrees::build`): mean fill over the index's pages and leaves, leaves
//! per tenth of fill, and how often the leaf chain jumps (the next leaf in
//! key order is not the next page of the file) and how far.

use crate::args::{Format, Opts};
use crate::fill_grid::{
    fill_cell, fill_classes, fill_glyph, fill_grid, fill_scale, print_tree_findings, tree_outcome,
};
use crate::findings;
use crate::json::Json;
use crate::lsn_grid::grid_json;
use crate::maps::{self, index_slots, print_grid, MapScale, PageCell, Style, TypesSeen};
use crate::outcome::Outcome;
use crate::text::count;
use ibdscope::analysis::Analysis;
use ibdscope_core::btree::FILL_BUCKETS;
use ibdscope_render::color::{rgb_to_ansi256, viridis};
use ibdscope_render::{Cell, Grid, Histogram, Panel, Picture};
use std::io::{self, Write};

/// Classes of the fill map's non-index pages, in this order.
fn percent(f: f32) -> String {
    format!("{:.1}%", f64::from(f) * 100.0)
}

/// `ibdscope fill`.
pub fn run(opts: &Opts, a: &Analysis<'_>, out: &mut dyn Write) -> io::Result<Outcome> {
    let (path, ts) = (a.path(), a.ts());
    let (map, trees) = (a.map(), a.trees());
    let n_pages = u64::from(map.n_pages());
    if let Some(o) = crate::maps::from_past_end(path, opts, n_pages, ts.page_size()) {
        return Ok(o);
    }
    let slots = index_slots(map);
    let scale = MapScale::new(ts, n_pages, opts);
    let (grid, types) = fill_grid(a, &slots, &scale);
    let outcome = tree_outcome(a);
    if opts.picture_json {
        crate::out::picture_json(out, &picture(a, grid, &types, &scale))?;
        return Ok(outcome);
    }
    let (wrote, said) = if opts.out.is_some() {
        let p = picture(a, grid.clone(), &types, &scale);
        let what = ibdscope::names::path(path).to_string();
        crate::out::write_picture(opts, &p, &what, &scale.words())
    } else {
        (Outcome::Clean, String::new())
    };
    if opts.format == Format::Json {
        json(out, a, &grid)?;
        return Ok(outcome.max(wrote));
    }
    if opts.out.is_some() {
        out.write_all(said.as_bytes())?;
        print_tree_findings(out, opts, a)?;
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
            maps::order_words(
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
    if let Some(v) = scale.vote_words(maps::VOTE) {
        writeln!(out, "{v}")?;
    }
    print_tree_findings(out, opts, a)?;
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

fn picture(a: &Analysis<'_>, grid: Grid, types: &TypesSeen, scale: &MapScale) -> Picture {
    let (path, ts, trees) = (a.path(), a.ts(), a.trees());
    let (title, lines) = maps::title(path, ts, types, "page fill", scale);
    let mut notes: Vec<String> = scale.vote_words(maps::VOTE).into_iter().collect();
    for t in &trees.indexes {
        let fr = t.fragmentation;
        notes.push(format!(
            "index {}: {} pages ({} leaves), fill {} (leaves {}); leaf chain: {}",
            a.index_label(t.index_id),
            t.pages,
            t.leaf_pages,
            percent(t.mean_fill),
            percent(t.mean_leaf_fill),
            maps::order_words(
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
