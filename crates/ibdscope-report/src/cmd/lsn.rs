//! `ibdscope lsn`: how recently each page was written, from the LSN in its
//! FIL header (FIL_PAGE_LSN), as a map from old to new and a histogram.
//!
//! One pass on the scan engine (`fold_pages`, shards joined in page
//! order): each page's LSN goes into a bounded grid (the mean LSN of a
//! cell when cells hold several pages, summed exactly), an exact
//! power-of-two-bin histogram of at most [`BINS`](crate::lsn_grid::BINS) bins (shown), and one of
//! at most [`SCALE_BINS`](crate::lsn_grid::SCALE_BINS) bins with each bin's smallest and largest LSN
//! (the colour scale); nothing is kept per page. Pages with LSN 0 (never
//! written) are blank. A page the summary's verdict calls bad (checksum,
//! LSN copies, page number, space id, an all-zero page its extent
//! descriptor marks used) is drawn as damaged and kept out of the scale:
//! the summary is the one made already, or folded in the same pass
//! ([`SummaryFold`](ibdscope_core::summary::SummaryFold)).
//!
//! The scale ([`LsnScale`](crate::args::LsnScale)) is by rank by default: a cell's colour is the
//! share of the scale's pages with an older LSN than the cell's, so the
//! few pages written when the table was created (page 1, the root) take
//! their share of the colours and no more, where a linear scale between
//! the oldest and newest LSN gives them most of it. The ranks come from
//! the fine histogram ([`Ranks`](ibdscope_render::Ranks)): exact in bins of one distinct LSN,
//! interpolated inside the others, so off by at most the share of pages in
//! the fullest such bin, which the legend states. `--scale linear` is the
//! old scale; `--scale-pages index` makes the scale of the index pages
//! only. The ticks under the scale are LSNs of pages of the file, at
//! ranks 0, 1/4, 1/2, 3/4 and 1. When all LSNs are equal every page is
//! drawn at the new end.

use crate::args::{Format, Opts};
use crate::json::Json;
use crate::lsn_grid::{
    grid_json, heat_scale, lsn_classes, lsn_glyph, scale_notes, LsnFacts, ENCRYPTED, VOTE,
};
use crate::maps::{self, print_grid, MapScale, Style};
use crate::outcome::Outcome;
use crate::text::count;
use ibdscope::analysis::Analysis;
use ibdscope_core::Tablespace;
use ibdscope_render::color::{ramp, rgb_to_ansi256, LSN_FLOOR};
use ibdscope_render::{Cell, Histogram, Panel, Picture};
use std::io::{self, Write};
use std::path::Path;

pub fn run(opts: &Opts, a: &Analysis<'_>, out: &mut dyn Write) -> io::Result<Outcome> {
    let (path, ts) = (a.path(), a.ts());
    let n_pages = u64::from(ts.n_pages());
    if let Some(o) = crate::maps::from_past_end(path, opts, n_pages, ts.page_size()) {
        return Ok(o);
    }
    let scale = MapScale::new(ts, n_pages, opts);
    // With the key, the summary `check --key-file` makes (set by the
    // dispatcher): the pages only their decrypted image verifies.
    let keyed = opts
        .key_file
        .as_ref()
        .and_then(|_| a.summary_made())
        .map(|s| s.unverifiable.as_slice());
    // The pages' verdicts are the summary's (one rule for every command):
    // what is drawn damaged, what is listed, and the exit status; made in
    // the map's pass when no command made it before.
    let (mut f, folded) = LsnFacts::collect_judged(
        ts,
        a.engine(),
        &scale,
        opts.lsn_scale,
        a.summary_made(),
        keyed,
    );
    if let Some(s) = folded {
        a.set_summary(s);
    }
    let summary = a.summary();
    f.damaged = summary
        .bad
        .iter()
        .flat_map(|b| {
            b.findings.iter().filter_map(move |fi| match fi.kind {
                ibdscope_core::FindingKind::Page(p) => Some((b.facts.page_no, p)),
                _ => None,
            })
        })
        .collect();
    f.n_damaged = summary.bad.len() as u64;
    let outcome = if summary.bad.is_empty() {
        Outcome::Clean
    } else {
        Outcome::Findings
    };
    if opts.picture_json {
        crate::out::picture_json(out, &picture(path, ts, &f, &scale))?;
        return Ok(outcome);
    }
    let (wrote, said) = if opts.out.is_some() {
        let what = ibdscope::names::path(path).to_string();
        crate::out::write_picture(opts, &picture(path, ts, &f, &scale), &what, &scale.words())
    } else {
        (Outcome::Clean, String::new())
    };
    if opts.format == Format::Json {
        json(out, path, ts, &f, summary)?;
        return Ok(outcome.max(wrote));
    }
    if opts.out.is_some() {
        out.write_all(said.as_bytes())?;
        crate::findings::verdict_lines(out, path, summary)?;
        return Ok(outcome.max(wrote));
    }
    text(opts, out, path, ts, &f, &scale)?;
    crate::findings::verdict_lines(out, path, summary)?;
    Ok(outcome)
}

fn range_words(f: &LsnFacts) -> String {
    match f.hist.range() {
        Some((lo, hi)) if lo == hi => format!("every LSN {lo}"),
        Some((lo, hi)) => format!("LSN {lo} .. {hi}"),
        None => "no page with an LSN".to_string(),
    }
}

fn text(
    opts: &Opts,
    out: &mut dyn Write,
    path: &Path,
    ts: &Tablespace<'_>,
    f: &LsnFacts,
    scale: &MapScale,
) -> io::Result<()> {
    let st = Style::of(opts);
    writeln!(
        out,
        "{}: {}, {}, {} with LSN 0",
        ibdscope::names::path(path),
        count(ts.n_pages(), "page", "pages"),
        range_words(f),
        f.zero,
    )?;
    scale.print_header(out)?;
    print_grid(out, &st, &f.grid, |c| match c {
        Cell::Heat(v) => lsn_glyph(&st, Cell::Heat(f.t(v))),
        c => lsn_glyph(&st, c),
    })?;
    writeln!(out)?;
    text_legend(out, &st, f, scale)?;
    Ok(())
}

/// The legend under the terminal map: the histogram, the scale's ticks and
/// what the glyphs mean, every line within 80 columns.
fn text_legend(out: &mut dyn Write, st: &Style, f: &LsnFacts, scale: &MapScale) -> io::Result<()> {
    let bins = f.hist.bins();
    let max = bins.iter().map(|b| b.count).max().unwrap_or(0);
    write!(out, "{:>10} ", "histogram")?;
    for b in &bins {
        let color = rgb_to_ansi256(ramp(bin_t(f, b.from, b.to), LSN_FLOOR));
        st.paint(out, Some(color), st.level(bar_eighths(b.count, max)))?;
    }
    writeln!(out)?;
    writeln!(
        out,
        "{:>10} {} of {} LSN, tallest {}",
        "",
        count(bins.len() as u64, "bin", "bins"),
        1u128 << f.hist.shift(),
        count(max, "page", "pages")
    )?;
    if let Some((lo, hi)) = f.hist.range() {
        writeln!(out, "{:>10} oldest {lo}, newest {hi}", "")?;
    }
    let marks: Vec<String> = (f.ticks().iter())
        .map(|(t, v)| format!("{v} at {:.0}%", t * 100.0))
        .collect();
    let mut line = format!("{:>10}", "scale");
    for (i, m) in marks.iter().enumerate() {
        let sep = if i.saturating_add(1) < marks.len() {
            ","
        } else {
            ""
        };
        let width = line.chars().count().saturating_add(1);
        if width.saturating_add(m.len()).saturating_add(sep.len()) > 80 {
            writeln!(out, "{line}")?;
            line = " ".repeat(10);
        }
        line.push(' ');
        line.push_str(m);
        line.push_str(sep);
    }
    if !marks.is_empty() {
        writeln!(out, "{line}")?;
    }
    let (ramp, zero) = if st.ascii {
        ("1 2 3 4 5 6 7 8", "' '")
    } else {
        ("▁▂▃▄▅▆▇█", "blank")
    };
    writeln!(
        out,
        "cell: page LSN from old to new {ramp} (dark to bright in colour)"
    )?;
    writeln!(out, "colour {}", f.scale_words())?;
    writeln!(
        out,
        "scale: page LSNs at ranks 0, 1/4, 1/2, 3/4, 1 and where they sit on it"
    )?;
    writeln!(
        out,
        "{zero}: LSN 0 (never written); X: damaged (LSN not trusted)"
    )?;
    if let Some(u) = unverifiable_words(f) {
        writeln!(out, "{u}")?;
    }
    if let Some(v) = scale.vote_words(VOTE) {
        writeln!(out, "{v}")?;
    }
    Ok(())
}

fn json(
    out: &mut dyn Write,
    path: &Path,
    ts: &Tablespace<'_>,
    f: &LsnFacts,
    summary: &ibdscope_core::Summary,
) -> io::Result<()> {
    let mut j = Json::new(out);
    let range = f.hist.range();
    j.obj()?
        .kv_path("file", path)?
        .kv_num("page_size", ts.page_size())?
        .kv_num("pages", ts.n_pages())?;
    j.key("lsn_min")?
        .opt_num(range.map(|r| r.0))?
        .key("lsn_max")?
        .opt_num(range.map(|r| r.1))?;
    j.kv_num("zero_lsn_pages", f.zero)?
        .kv_num("damaged_pages", f.n_damaged)?
        .kv_num("unverifiable_pages", f.unverifiable)?;
    let (kind, pages) = f.kind_word();
    j.key("scale")?
        .obj()?
        .kv_str("kind", kind)?
        .kv_str("pages", pages)?
        .kv_num("scale_pages", f.scale_hist.len())?;
    j.key("rank_error")?.float(f.ranks.error(), 4)?;
    j.key("ticks")?.arr()?;
    for (t, v) in f.ticks() {
        j.obj()?
            .kv_num("lsn", v)?
            .key("at")?
            .float(t, 4)?
            .end_obj()?;
    }
    j.end_arr()?.end_obj()?;
    j.key("histogram")?
        .obj()?
        .kv_num("bin_width", 1u64.checked_shl(f.hist.shift()).unwrap_or(0))?
        .key("bins")?
        .arr()?;
    for b in f.hist.bins() {
        j.obj()?
            .kv_num("lsn_from", b.from)?
            .kv_num("lsn_to", b.to)?
            .kv_num("pages", b.count)?
            .end_obj()?;
    }
    j.end_arr()?.end_obj()?;
    grid_json(&mut j, &f.normalized(), |j, c| match c {
        Cell::Heat(t) => j.float(t, 4).map(|_| ()),
        Cell::Blank => j.null().map(|_| ()),
        Cell::Class(ENCRYPTED) => j.str("encrypted").map(|_| ()),
        Cell::Class(_) | Cell::Bar(..) => j.str("damaged").map(|_| ()),
    })?;
    j.key("findings")?.arr()?;
    for b in &summary.bad {
        let v = &b.judgement;
        j.obj()?
            .kv_num("page", v.page.0)?
            .kv_num("offset", v.file_offset)?
            .kv_str("verdict", v.verdict.word())?
            .kv_display("reason", &v.evidence)?
            .end_obj()?;
    }
    j.end_arr()?.end_obj()?;
    writeln!(out)
}

/// What is said of the encrypted pages, when there are any.
fn unverifiable_words(f: &LsnFacts) -> Option<String> {
    (f.unverifiable > 0).then(|| {
        format!(
            "~: encrypted, not verifiable ({}; their LSNs as stored are in the histogram)",
            count(f.unverifiable, "page", "pages")
        )
    })
}

/// The LSN picture of one file.
fn picture(path: &Path, ts: &Tablespace<'_>, f: &LsnFacts, scale: &MapScale) -> Picture {
    let (title, lines) = maps::title(path, ts, &f.types, "LSN age", scale);
    let bins = f.hist.bins();
    let mut notes = vec![format!(
        "blank: LSN 0 (never written), {}",
        count(f.zero, "page", "pages")
    )];
    notes.extend(scale.vote_words(VOTE));
    notes.extend(unverifiable_words(f));
    if f.hist.range().is_some_and(|(lo, hi)| lo == hi) {
        notes.push("every page has the same LSN: all are drawn at the new end".into());
    }
    notes.extend(scale_notes(f));
    let histograms = if bins.is_empty() {
        notes.push("no page has a non-zero LSN".into());
        Vec::new()
    } else {
        vec![Histogram {
            title: format!(
                "pages per LSN range ({} ranges of {} LSN)",
                bins.len(),
                1u128 << f.hist.shift()
            ),
            bars: bins
                .iter()
                .map(|b| (b.count, ramp(bin_t(f, b.from, b.to), LSN_FLOOR)))
                .collect(),
            left: bins.first().map_or(String::new(), |b| b.from.to_string()),
            right: bins.last().map_or(String::new(), |b| b.to.to_string()),
        }]
    };
    Picture {
        title,
        lines,
        panels: vec![Panel {
            caption: Vec::new(),
            grid: f.normalized(),
        }],
        classes: lsn_classes(
            [Some(f.n_damaged), Some(f.unverifiable)],
            [f.n_damaged > 0, f.unverifiable > 0],
        ),
        heat: Some(heat_scale(f, "page LSN, old to new")),
        notes,
        histograms,
    }
}

/// A count as eighths of the largest (1..=8 when non-zero).
fn bar_eighths(count: u64, max: u64) -> u8 {
    if count == 0 || max == 0 {
        return 0;
    }
    (count.saturating_mul(8).div_ceil(max)).clamp(1, 8) as u8
}

/// Where a histogram bin's middle sits on the scale.
fn bin_t(f: &LsnFacts, from: u64, to: u64) -> f64 {
    f.t((from as f64 + to as f64) / 2.0)
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
    use crate::args::{LsnScale, LsnScaleKind, LsnScalePages};
    use ibdscope_core::space::page_facts;
    use ibdscope_core::{Btrees, SpaceMap};
    use ibdscope_core::{Engine, PageNo};
    use ibdscope_render::Scale;
    use std::collections::BTreeSet;

    const SERVERS: [&str; 2] = ["mysql56", "mariadb1011"];

    fn fixture(server: &str, table: &str) -> (std::path::PathBuf, Vec<u8>) {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../fixtures")
            .join(server)
            .join(format!("{table}.ibd"));
        let bytes = std::fs::read(&path).unwrap();
        (path, bytes)
    }

    /// Every page, one a cell.
    fn per_page(ts: &Tablespace<'_>) -> MapScale {
        let n = u64::from(ts.n_pages());
        let e = ts.format().extent_size();
        MapScale::of_range(0, n, n, Some(1), ts.page_size(), e)
    }

    /// The clustered index's leaves in chain order (the library's walk)
    /// and the LSN of every page with one (page facts, one by one).
    fn leaves_and_lsns(ts: &Tablespace<'_>) -> (Vec<PageNo>, Vec<u64>) {
        let e = Engine::default();
        let map = SpaceMap::build(ts, &e);
        let trees = Btrees::build_with_leaf_chains(ts, &e, &map);
        let clustered = trees
            .indexes
            .iter()
            .min_by_key(|t| t.index_id)
            .expect("an index");
        let lsns = (0..ts.n_pages())
            .filter_map(|n| ts.page(PageNo(n)))
            .enumerate()
            .map(|(n, p)| page_facts(p, PageNo(n as u32), ts.scheme()).lsn.0)
            .collect();
        (clustered.leaf_chain.clone(), lsns)
    }

    /// The leaves' places on the scale, in chain order.
    fn leaf_ts(f: &LsnFacts, leaves: &[PageNo]) -> Vec<f64> {
        leaves
            .iter()
            .map(|p| match f.grid.cells[p.0 as usize] {
                Cell::Heat(v) => f.t(v),
                c => panic!("page {p}: {c:?}"),
            })
            .collect()
    }

    fn span(ts: &[f64]) -> f64 {
        let max = ts.iter().copied().fold(f64::MIN, f64::max);
        let min = ts.iter().copied().fold(f64::MAX, f64::min);
        max - min
    }

    #[test]
    fn rank_scale_follows_the_key_order_and_is_not_flattened() {
        for server in SERVERS {
            for table in ["ai_int", "seq_int", "ulid_char26", "uuid_char36"] {
                let (_, bytes) = fixture(server, table);
                let ts = Tablespace::new(&bytes).unwrap();
                let (leaves, lsns) = leaves_and_lsns(&ts);
                assert!(leaves.len() >= 10, "{server}/{table}: {}", leaves.len());
                let f =
                    LsnFacts::collect(&ts, &Engine::new(2), &per_page(&ts), LsnScale::default());
                let t = leaf_ts(&f, &leaves);
                let rising = t.windows(2).filter(|w| w[1] > w[0]).count();
                let steps = t.len() - 1;
                let what = format!("{server}/{table}: {t:?}");
                if table == "uuid_char36" {
                    // Random keys: the chain's colours go up and down.
                    assert!(rising < steps * 3 / 4 && rising > steps / 4, "{what}");
                } else {
                    // Key order: never older along the chain; level only
                    // where a split wrote two leaves in one
                    // mini-transaction (one LSN: ai_int's pages 15 and 16).
                    assert!(t.windows(2).all(|w| w[1] >= w[0]), "{what}");
                    assert!(rising + 2 >= steps, "{what}");
                    for (w, p) in t.windows(2).zip(leaves.windows(2)) {
                        let (a, b) = (lsns[p[0].0 as usize], lsns[p[1].0 as usize]);
                        assert_eq!(w[1] > w[0], b > a, "{what}");
                    }
                }
                // The data pages take most of the scale, whatever the
                // system pages' LSNs.
                assert!(span(&t) >= 0.6, "{what}");
                // The ticks are LSNs of pages, oldest and newest first and
                // last, in order on the scale.
                let ticks = f.ticks();
                let real: BTreeSet<u64> = lsns.iter().copied().filter(|&l| l > 0).collect();
                assert!(ticks.len() >= 3, "{what}");
                assert!(ticks.iter().all(|(_, v)| real.contains(v)), "{ticks:?}");
                assert_eq!(ticks[0], (0.0, *real.first().unwrap()));
                assert_eq!(ticks.last().unwrap(), &(1.0, *real.last().unwrap()));
                assert!(ticks.windows(2).all(|w| w[0].0 < w[1].0 && w[0].1 < w[1].1));
                // A tick's place is the share of pages with an older LSN
                // (the newest, checked above, is 1.0 even when tied).
                for (at, v) in &ticks[..ticks.len() - 1] {
                    let older = real.len() as f64; // distinct values
                    let below = lsns.iter().filter(|&&l| l > 0 && l < *v).count() as f64;
                    let n = lsns.iter().filter(|&&l| l > 0).count() as f64;
                    assert!(
                        (at - below / (n - 1.0)).abs() <= f.ranks.error() + 1e-9,
                        "{what}: {v} at {at}, {below} of {n} below ({older} distinct)"
                    );
                }
            }
        }
    }

    #[test]
    fn the_linear_scale_flattens_the_random_table_and_index_pages_narrow_it() {
        for server in SERVERS {
            let (_, bytes) = fixture(server, "uuid_char36");
            let ts = Tablespace::new(&bytes).unwrap();
            let (leaves, lsns) = leaves_and_lsns(&ts);
            let linear = LsnScale {
                kind: LsnScaleKind::Linear,
                pages: LsnScalePages::All,
            };
            let f = LsnFacts::collect(&ts, &Engine::default(), &per_page(&ts), linear);
            // The old scale: one flat block at the new end.
            assert!(span(&leaf_ts(&f, &leaves)) < 0.1, "{server}");
            // Of the index pages only, the scale starts at the oldest
            // index page, not at page 1 (IBUF_BITMAP).
            let index = LsnScale {
                kind: LsnScaleKind::Linear,
                pages: LsnScalePages::Index,
            };
            let g = LsnFacts::collect(&ts, &Engine::default(), &per_page(&ts), index);
            let oldest_index = leaves.iter().map(|p| lsns[p.0 as usize]).min().unwrap();
            assert!(g.scale().lo <= oldest_index as f64);
            assert!(g.scale().lo > lsns[1] as f64, "{server}");
            assert!(g.scale_hist.len() < f.scale_hist.len());
        }
    }

    #[test]
    fn the_picture_says_what_the_scale_is_and_labels_its_ticks() {
        let (path, bytes) = fixture("mysql56", "ulid_char26");
        let ts = Tablespace::new(&bytes).unwrap();
        let f = LsnFacts::collect(&ts, &Engine::default(), &per_page(&ts), LsnScale::default());
        let p = picture(&path, &ts, &f, &per_page(&ts));
        let h = p.heat.as_ref().unwrap();
        assert!(
            h.title.contains("by rank among 22 pages (exact)"),
            "{}",
            h.title
        );
        assert!(h.floor > 0.0);
        // The panel holds the cells' places on the scale, as drawn.
        assert_eq!(p.panels[0].grid, f.normalized());
        assert_eq!(h.scale, Scale { lo: 0.0, hi: 1.0 });
        let dir = std::env::temp_dir().join(format!("ibdscope-lsn-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let svg_path = dir.join("ulid.svg");
        ibdscope_render::render(&p, &svg_path, ibdscope_render::ImageFormat::Svg).unwrap();
        let svg = std::fs::read_to_string(&svg_path).unwrap();
        let texts: Vec<String> = svg
            .split("<text")
            .skip(1)
            .filter_map(|el| {
                let body = el.split_once('>')?.1;
                Some(body.split("</text>").next()?.trim().to_string())
            })
            .collect();
        // mysql56 ulid_char26.ibd: page 1 (IBUF_BITMAP) is the oldest page,
        // page 0 the newest (`ibdscope pages`, as the server left them).
        for tick in ["3114369", "3602895"] {
            assert!(texts.iter().any(|t| t == tick), "{tick}: {texts:?}");
        }
        assert!(texts.iter().any(|t| t.contains("colour by rank")));
        assert!(texts
            .iter()
            .any(|t| t.starts_with("page LSN, old to new, by rank")));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
