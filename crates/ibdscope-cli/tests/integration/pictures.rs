//! Pictures and the data behind them: `extents --out`, `lsn`, `fill` and
//! `compare` on real files. Every PNG is checked for its signature and the
//! IHDR size the command reports; every SVG for one rectangle per
//! non-blank cell (the render crate draws the cells of a grid after its row
//! slots and before any text); colours against the legend and the palette;
//! the JSON cells, LSN bins and fill figures against what the library says
//! of the same file. Edge cases: an empty table, a one-page file, equal
//! LSNs, LSN 0, a file ending inside an extent, a file too large for one
//! cell per page, an unreadable file among several.

use super::common::{fixtures, run, scratch};
use ibdscope_core::extents::Owner;
use ibdscope_core::fil::FilHeader;
use ibdscope_core::index::IndexHeader;
use ibdscope_core::Engine;
use ibdscope_core::{Btrees, FindingKind, IndexId, PageNo, SpaceMap, SpaceProblem, Tablespace};
use ibdscope_render::color::{
    ansi256_to_rgb, FREE_DATA_ANSI, FREE_RGB, INDEX_ANSI, UNVERIFIABLE_ANSI,
};
use std::path::{Path, PathBuf};

const FILES: &[&str] = &[
    "mysql56/ai_int.ibd",
    "mysql56/uuid_char36.ibd",
    "mysql56/rf_compressed8.ibd",
    "mariadb1011/secondary.ibd",
    "mariadb1011/blob.ibd",
    "mariadb1011/empty.ibd",
    "mariadb1011-4k/secondary.ibd",
    "mariadb1011-64k/ai_int.ibd",
];

fn fixture(name: &str) -> PathBuf {
    fixtures().join(name)
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// Width and height from a PNG's signature and IHDR chunk.
fn png_size(bytes: &[u8]) -> (u32, u32) {
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "PNG signature");
    assert_eq!(&bytes[12..16], b"IHDR", "first chunk");
    assert_eq!(
        &bytes[bytes.len() - 8..bytes.len() - 4],
        b"IEND",
        "last chunk"
    );
    let be = |b: &[u8]| u32::from_be_bytes(b.try_into().unwrap());
    (be(&bytes[16..20]), be(&bytes[20..24]))
}

/// `W×H px` from the command's "wrote" line.
fn reported_size(stdout: &str) -> (u32, u32) {
    let line = stdout
        .lines()
        .find(|l| l.contains(": wrote "))
        .unwrap_or_else(|| panic!("no 'wrote' line in {stdout}"));
    let dims = line.split(", ").nth(1).unwrap().trim_end_matches(" px");
    let (w, h) = dims.split_once('×').unwrap();
    (w.parse().unwrap(), h.parse().unwrap())
}

/// The fill colours of the cells: the rectangles after a row slot
/// (`#F0F0F0`) up to the next text, less the slots.
fn svg_cells(svg: &str) -> Vec<String> {
    let mut cells = Vec::new();
    let mut on = false;
    for el in svg.split('<').skip(1) {
        if el.starts_with("text") && on {
            break;
        }
        if el.starts_with("rect") {
            let fill = attr(el, "fill").to_ascii_lowercase();
            if fill == "#f0f0f0" {
                on = true;
            } else if on {
                cells.push(fill);
            }
        }
    }
    cells
}

fn attr<'a>(el: &'a str, name: &str) -> &'a str {
    let key = format!(" {name}=\"");
    let start = el.find(&key).unwrap_or_else(|| panic!("{name} in {el}")) + key.len();
    &el[start..start + el[start..].find('"').unwrap()]
}

/// Legend entries: a text followed by a 14×14 swatch.
fn svg_legend(svg: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut last_text: Option<String> = None;
    for el in svg.split('<').skip(1) {
        if el.starts_with("text") {
            last_text = Some(el.split_once('>').unwrap().1.trim().to_string());
        } else if el.starts_with("rect") {
            if attr(el, "width") == "14" && attr(el, "height") == "14" {
                if let Some(t) = last_text.take() {
                    out.push((t, attr(el, "fill").to_ascii_lowercase()));
                }
            }
            last_text = None;
        }
    }
    out
}

fn check_svg(svg: &str, size: (u32, u32)) {
    assert!(svg.starts_with("<svg"), "SVG start");
    assert!(svg.trim_end().ends_with("</svg>"), "SVG end");
    assert!(svg.contains(&format!("width=\"{}\" height=\"{}\"", size.0, size.1)));
    assert_eq!(svg.matches("<text").count(), svg.matches("</text>").count());
}

/// Runs `args` with `--out` to a PNG and an SVG; checks both; returns the
/// SVG text.
fn draw(args: &[&str], name: &str) -> String {
    let mut svg_text = String::new();
    for ext in ["png", "svg"] {
        let out = scratch(&format!("{name}.{ext}"));
        let mut a: Vec<&str> = args.to_vec();
        a.extend(["--out", s(&out)]);
        let o = run(&a);
        let stdout = String::from_utf8_lossy(&o.stdout);
        assert!(
            o.status.code().is_some_and(|c| c <= 1),
            "{a:?}: {:?} {}",
            o.status,
            String::from_utf8_lossy(&o.stderr)
        );
        let size = reported_size(&stdout);
        let bytes = std::fs::read(&out).unwrap();
        if ext == "png" {
            assert_eq!(png_size(&bytes), size, "{a:?}");
        } else {
            svg_text = String::from_utf8(bytes).unwrap();
            check_svg(&svg_text, size);
        }
    }
    svg_text
}

/// What the library says of each page: LSN problems, LSN, owner, fill.
struct Truth {
    n_pages: usize,
    lsns: Vec<u64>,
    damaged: Vec<bool>,
    /// Index id and fill of B-tree pages of a known index.
    fills: Vec<Option<(IndexId, f32)>>,
    owners: Vec<Owner>,
    ids: Vec<IndexId>,
    /// Free pages that still hold an index page with records.
    freed_with_data: Vec<u32>,
}

fn truth(path: &Path) -> Truth {
    let bytes = std::fs::read(path).unwrap();
    let ts = Tablespace::new(&bytes).unwrap();
    let map = SpaceMap::build(&ts, &Engine::default());
    let mut ids: Vec<IndexId> = map.indexes.iter().map(|i| i.index_id).collect();
    ids.sort();
    ids.dedup();
    let (mut lsns, mut damaged) = (Vec::new(), Vec::new());
    for f in ts.scan() {
        lsns.push(f.lsn.0);
        damaged.push(f.problems(ts.space_id()).next().is_some());
    }
    let f = ts.format();
    let fills = map
        .owners(&ts)
        .enumerate()
        .map(|(n, o)| {
            let Owner::Segment {
                index: Some(id), ..
            } = o
            else {
                return None;
            };
            let page = ts.page(PageNo(n as u32))?;
            if !FilHeader::new(page)?.page_type().is_index(ts.type_names()) || !ids.contains(&id) {
                return None;
            }
            let fill = IndexHeader::new(page)?
                .usage(f.logical_size, f.is_zip())
                .fill();
            Some((id, fill))
        })
        .collect();
    Truth {
        n_pages: ts.n_pages() as usize,
        lsns,
        damaged,
        fills,
        owners: map.owners(&ts).collect(),
        ids,
        freed_with_data: (map.findings.iter())
            .filter(|f| {
                matches!(
                    f.kind,
                    FindingKind::Space(SpaceProblem::FreePageWithData { .. })
                )
            })
            .filter_map(|f| f.page.map(|p| p.0))
            .collect(),
    }
}

/// The values of `"cells":[...]` in a JSON document.
fn json_cells(json: &str) -> Vec<String> {
    let start = json.find("\"cells\":[").expect("cells") + 9;
    let end = start + json[start..].find(']').unwrap();
    if start == end {
        return Vec::new();
    }
    json[start..end].split(',').map(str::to_string).collect()
}

fn json_num(json: &str, key: &str) -> Option<u64> {
    let k = format!("\"{key}\":");
    let start = json.find(&k)? + k.len();
    let rest = &json[start..];
    let end = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    rest[..end].parse().ok()
}

fn stdout(args: &[&str]) -> (String, Option<i32>) {
    let o = run(args);
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        o.status.code(),
    )
}

#[test]
fn every_kind_draws_png_and_svg_with_one_cell_per_page() {
    for file in FILES {
        let path = fixture(file);
        let t = truth(&path);
        let name = file.replace('/', "_");
        for kind in ["extents", "lsn", "fill"] {
            let svg = draw(&[kind, s(&path)], &format!("{name}.{kind}"));
            let cells = svg_cells(&svg);
            // Only the LSN map leaves cells blank: pages with LSN 0.
            let blank = if kind == "lsn" {
                t.lsns
                    .iter()
                    .zip(&t.damaged)
                    .filter(|(l, d)| **l == 0 && !**d)
                    .count()
            } else {
                0
            };
            assert_eq!(cells.len(), t.n_pages - blank, "{file} {kind}");
        }
        let svg = draw(&["compare", s(&path), s(&path)], &format!("{name}.compare"));
        assert_eq!(svg_cells(&svg).len(), 2 * t.n_pages, "{file} compare");
    }
}

#[test]
fn extents_colours_match_the_legend_the_palette_and_the_owners() {
    for file in [
        "mariadb1011/secondary.ibd",
        "mariadb1011/blob.ibd",
        "mysql56/dml.ibd",
    ] {
        let path = fixture(file);
        let t = truth(&path);
        let svg = draw(
            &["extents", s(&path)],
            &format!("{}.colours", file.replace('/', "_")),
        );
        let cells = svg_cells(&svg);
        let legend = svg_legend(&svg);
        let count = |c: &str| cells.iter().filter(|x| *x == c).count();
        for (slot, id) in t.ids.iter().enumerate() {
            let want = ansi256_to_rgb(INDEX_ANSI[slot % 10]).hex();
            let pages = t
                .fills
                .iter()
                .filter(|f| f.is_some_and(|f| f.0 == *id))
                .count();
            // `index 29: …`, or with the name a definition gives it,
            // `index 29 PRIMARY: …`.
            let label = format!(": {pages} page");
            let entry = legend
                .iter()
                .find(|(l, _)| {
                    (l.starts_with(&format!("index {id}:"))
                        || l.starts_with(&format!("index {id} ")))
                        && l.contains(&label)
                })
                .unwrap_or_else(|| panic!("{file}: no legend '{label}' in {legend:?}"));
            assert_eq!(entry.1, want, "{file}: colour of index {id}");
            assert_eq!(count(&want), pages, "{file}: cells of index {id}");
        }
        // Free pages that still hold records (the space map's findings)
        // are drawn apart from the other free pages.
        let held = t.freed_with_data.len();
        if held > 0 {
            let want = ansi256_to_rgb(FREE_DATA_ANSI).hex();
            let entry = (legend.iter())
                .find(|(l, _)| l.starts_with("free but not empty"))
                .unwrap_or_else(|| panic!("{file}: {legend:?}"));
            assert_eq!(entry.1, want, "{file}");
            assert!(entry.0.contains(&format!(": {held} page")), "{file}");
            assert_eq!(count(&want), held, "{file}: free pages with records");
        }
        let free = t.owners.iter().filter(|o| **o == Owner::Free).count() - held;
        let entry = legend
            .iter()
            .find(|(l, _)| l.starts_with("free: "))
            .unwrap();
        assert_eq!(entry.1, FREE_RGB.hex(), "{file}");
        assert!(entry.0.starts_with(&format!("free: {free} page")), "{file}");
        assert_eq!(count(&FREE_RGB.hex()), free, "{file}: free cells");
    }
}

#[test]
fn lsn_json_cells_and_bins_match_the_library() {
    for file in FILES {
        let path = fixture(file);
        let t = truth(&path);
        let (json, code) = stdout(&["lsn", "--format", "json", s(&path)]);
        assert_eq!(code, Some(0), "{file}");
        let good: Vec<u64> = t
            .lsns
            .iter()
            .zip(&t.damaged)
            .filter(|(l, d)| **l != 0 && !**d)
            .map(|(l, _)| *l)
            .collect();
        let (lo, hi) = (*good.iter().min().unwrap(), *good.iter().max().unwrap());
        assert_eq!(json_num(&json, "lsn_min"), Some(lo), "{file}");
        assert_eq!(json_num(&json, "lsn_max"), Some(hi), "{file}");
        let zero = t.lsns.iter().filter(|l| **l == 0).count() as u64;
        assert_eq!(json_num(&json, "zero_lsn_pages"), Some(zero), "{file}");
        // Bins: the smallest power-of-two width giving at most 64 bins.
        let shift = (0..64).find(|s| (hi >> s) - (lo >> s) < 64).unwrap();
        let mut counts = vec![0u64; ((hi >> shift) - (lo >> shift) + 1) as usize];
        for l in &good {
            counts[((l >> shift) - (lo >> shift)) as usize] += 1;
        }
        assert_eq!(json_num(&json, "bin_width"), Some(1 << shift), "{file}");
        let bins = &json[json.find("\"bins\":").unwrap()..json.find("\"grid\"").unwrap()];
        let got: Vec<u64> = bins
            .split("\"pages\":")
            .skip(1)
            .map(|x| {
                x[..x.find(|c: char| !c.is_ascii_digit()).unwrap()]
                    .parse()
                    .unwrap()
            })
            .collect();
        assert_eq!(got, counts, "{file}");
        // Cells by rank (the default): one per page, the share of the
        // other good pages with an older LSN (the newest 1), exact where
        // the JSON says the ranks are.
        let cells = json_cells(&json);
        assert_eq!(cells.len(), t.n_pages, "{file}");
        let err = json_float(&json, "rank_error");
        for (p, (c, l)) in cells.iter().zip(&t.lsns).enumerate() {
            if *l == 0 {
                assert_eq!(c, "null", "{file} page {p}");
                continue;
            }
            let older = good.iter().filter(|g| *g < l).count() as f64;
            let want = if *l == hi {
                1.0
            } else {
                older / (good.len() - 1) as f64
            };
            let got: f64 = c.parse().unwrap();
            assert!(
                (got - want).abs() <= err + 0.00005,
                "{file} page {p}: {got} {want}"
            );
        }
        // Linear: the age from oldest (0) to newest (1).
        let (json, _) = stdout(&["lsn", "--format", "json", "--scale", "linear", s(&path)]);
        let cells = json_cells(&json);
        for (p, (c, l)) in cells.iter().zip(&t.lsns).enumerate() {
            let want = if *l == 0 {
                "null".to_string()
            } else if hi == lo {
                "1.0000".to_string()
            } else {
                format!("{:.4}", (*l as f64 - lo as f64) / (hi as f64 - lo as f64))
            };
            assert_eq!(*c, want, "{file} page {p}");
        }
    }
}

/// The number after `"key":`.
fn json_float(json: &str, key: &str) -> f64 {
    let at = json.find(&format!("\"{key}\":")).unwrap() + key.len() + 3;
    let rest = &json[at..];
    rest[..rest.find([',', '}']).unwrap()].parse().unwrap()
}

#[test]
fn lsn_picture_cells_take_the_ranked_colours() {
    // The page colours are the ramp at each page's rank, the first page
    // (FSP_HDR) drawn where its LSN ranks, not at an end.
    let path = fixture("mysql56/ulid_char26.ibd");
    let t = truth(&path);
    let svg = draw(&["lsn", s(&path)], "ulid-ranked");
    let (json, _) = stdout(&["lsn", "--format", "json", s(&path)]);
    let want: Vec<String> = json_cells(&json)
        .iter()
        .filter(|c| *c != "null")
        .map(|c| {
            let t: f64 = c.parse().unwrap();
            ibdscope_render::color::ramp(t, ibdscope_render::color::LSN_FLOOR).hex()
        })
        .collect();
    let got = svg_cells(&svg);
    assert_eq!(got.len(), t.n_pages - 1);
    // The cells are drawn from the unrounded ranks: the colour of the
    // rounded one is at most one step away on each channel.
    for (g, w) in got.iter().zip(&want) {
        let ch = |h: &str, i: usize| i32::from_str_radix(&h[1 + 2 * i..3 + 2 * i], 16).unwrap();
        for i in 0..3 {
            assert!((ch(g, i) - ch(w, i)).abs() <= 1, "{g} {w}");
        }
    }
    let oldest = ibdscope_render::color::ramp(0.0, ibdscope_render::color::LSN_FLOOR).hex();
    assert_eq!(
        got.iter().filter(|c| **c == oldest).count(),
        1,
        "page 1 only"
    );
}

#[test]
fn fill_json_matches_the_library_and_the_extents_eighths() {
    for file in FILES {
        let path = fixture(file);
        let t = truth(&path);
        let (json, code) = stdout(&["fill", "--format", "json", s(&path)]);
        assert_eq!(code, Some(0), "{file}");
        let cells = json_cells(&json);
        assert_eq!(cells.len(), t.n_pages, "{file}");
        let (ext, _) = stdout(&["extents", "--format", "json", s(&path)]);
        for (p, c) in cells.iter().enumerate() {
            let eighths = ext
                .split(&format!("{{\"page\":{p},"))
                .nth(1)
                .and_then(|r| json_num(&r[..r.find('}').unwrap()], "fill_eighths"));
            match t.fills[p] {
                Some((_, fill)) => {
                    assert_eq!(*c, format!("{:.4}", f64::from(fill)), "{file} page {p}");
                    let e = ((fill * 8.0).ceil() as u64).clamp(1, 8);
                    assert_eq!(eighths, Some(e), "{file} page {p} eighths");
                }
                None => {
                    let word = match t.owners[p] {
                        Owner::Free => "\"free\"",
                        Owner::System(_) => "\"system\"",
                        Owner::Unaccounted => "\"unaccounted\"",
                        Owner::Segment { .. } => "\"other\"",
                    };
                    assert_eq!(c, word, "{file} page {p}");
                    assert_eq!(eighths, None, "{file} page {p}");
                }
            }
        }
        // Per index: the B-tree walk's histogram and leaf order.
        let bytes = std::fs::read(&path).unwrap();
        let ts = Tablespace::new(&bytes).unwrap();
        let trees = Btrees::build(
            &ts,
            &Engine::default(),
            &SpaceMap::build(&ts, &Engine::default()),
        );
        for tree in &trees.indexes {
            let at = json
                .find(&format!("\"index_id\":{},", tree.index_id))
                .unwrap_or_else(|| panic!("{file}: index {}", tree.index_id));
            let obj = &json[at..at + json[at..].find('}').unwrap()];
            let hist: Vec<String> = tree.leaf_fill_hist.iter().map(u32::to_string).collect();
            assert!(
                obj.contains(&format!("\"leaf_fill_histogram\":[{}]", hist.join(","))),
                "{file}: {obj}"
            );
            assert_eq!(
                json_num(obj, "leaf_jumps"),
                Some(u64::from(tree.fragmentation.jumps))
            );
            assert_eq!(
                json_num(obj, "leaf_steps"),
                Some(u64::from(tree.fragmentation.steps))
            );
            assert_eq!(json_num(obj, "pages"), Some(u64::from(tree.pages)));
        }
    }
}

/// A copy of `name` with each page's LSN replaced by `lsn(page)`, in the
/// header and the trailer's low 32 bits (the file's checksum is `none`, so
/// the pages stay valid).
fn with_lsns(name: &str, tag: &str, lsn: impl Fn(usize) -> Option<u64>) -> PathBuf {
    let mut bytes = std::fs::read(fixture(name)).unwrap();
    let size = 16384;
    for (p, page) in bytes.chunks_mut(size).enumerate() {
        if let Some(l) = lsn(p) {
            page[16..24].copy_from_slice(&l.to_be_bytes());
            page[size - 4..].copy_from_slice(&(l as u32).to_be_bytes());
        }
    }
    let out = scratch(&format!("{tag}.ibd"));
    std::fs::write(&out, bytes).unwrap();
    out
}

#[test]
fn equal_lsns_draw_at_the_new_end() {
    let path = with_lsns("mysql56-none/ai_int.ibd", "equal-lsns", |_| Some(5_000_000));
    let (json, code) = stdout(&["lsn", "--format", "json", s(&path)]);
    assert_eq!(code, Some(0), "{json}");
    assert_eq!(json_num(&json, "lsn_min"), Some(5_000_000));
    assert_eq!(json_num(&json, "lsn_max"), Some(5_000_000));
    assert!(json.contains("\"bins\":[{\"lsn_from\":5000000,\"lsn_to\":5000000,\"pages\":6}]"));
    assert!(json_cells(&json).iter().all(|c| c == "1.0000"), "{json}");
    let svg = draw(&["lsn", s(&path)], "equal-lsns");
    let top = ibdscope_render::color::viridis(1.0).hex();
    assert_eq!(svg_cells(&svg), vec![top; 6]);
    let (text, _) = stdout(&["lsn", "--color", "never", s(&path)]);
    assert!(text.contains("every LSN 5000000"), "{text}");
    draw(
        &["compare", "--metric", "lsn", s(&path), s(&path)],
        "equal-lsns-cmp",
    );
}

#[test]
fn lsn_zero_pages_are_blank() {
    let path = with_lsns("mysql56-none/ai_int.ibd", "lsn-zero", |p| {
        (p >= 3).then_some(0)
    });
    let (json, code) = stdout(&["lsn", "--format", "json", s(&path)]);
    assert_eq!(code, Some(0), "{json}");
    assert_eq!(json_num(&json, "zero_lsn_pages"), Some(3));
    let cells = json_cells(&json);
    assert_eq!(&cells[3..], ["null", "null", "null"]);
    assert_eq!(svg_cells(&draw(&["lsn", s(&path)], "lsn-zero")).len(), 3);
    // Every page at LSN 0: no scale, no histogram, still a picture.
    let path = with_lsns("mysql56-none/ai_int.ibd", "lsn-all-zero", |_| Some(0));
    let (json, code) = stdout(&["lsn", "--format", "json", s(&path)]);
    assert_eq!(code, Some(0), "{json}");
    assert!(
        json.contains("\"lsn_min\":null") && json.contains("\"bins\":[]"),
        "{json}"
    );
    assert!(svg_cells(&draw(&["lsn", s(&path)], "lsn-all-zero")).is_empty());
}

#[test]
fn one_page_and_empty_files() {
    let one = scratch("one-page.ibd");
    let bytes = std::fs::read(fixture("mysql56/ai_int.ibd")).unwrap();
    std::fs::write(&one, &bytes[..16384]).unwrap();
    for kind in ["extents", "lsn", "fill"] {
        let svg = draw(&[kind, s(&one)], &format!("one-page.{kind}"));
        assert_eq!(svg_cells(&svg).len(), 1, "{kind}");
        let (text, code) = stdout(&[kind, "--color", "never", s(&one)]);
        assert!(code.is_some_and(|c| c <= 1), "{kind}: {text}");
    }
    // One page of 19: the file is shorter than its FSP_SIZE, a finding.
    let (text, code) = stdout(&["lsn", "--color", "never", s(&one)]);
    assert_eq!(code, Some(1));
    assert!(text.contains("FSP_SIZE"), "{text}");
    assert!(
        text.starts_with(&format!("{}: 1 page, every LSN ", s(&one))),
        "{text}"
    );
    draw(
        &["compare", s(&one), s(&fixture("mariadb1011/empty.ibd"))],
        "one-page.compare",
    );
}

#[test]
fn a_file_too_large_for_one_cell_per_page_aggregates() {
    // 20480 pages of 16K (page 0 of a real file, then zeros): 320 rows of
    // 64 pages, more than the 128 rows a map keeps within, so 4 pages per
    // cell (80 rows), in the terminal and in pictures alike.
    let big = scratch("big.ibd");
    let mut bytes = std::fs::read(fixture("mysql56/ai_int.ibd")).unwrap();
    bytes.resize(20480 * 16384, 0);
    std::fs::write(&big, &bytes).unwrap();
    drop(bytes);
    for kind in ["extents", "lsn", "fill"] {
        let svg = draw(&[kind, s(&big)], &format!("big.{kind}"));
        let cells = svg_cells(&svg);
        if kind != "lsn" {
            assert_eq!(cells.len(), 5120, "{kind}");
        }
        let words =
            "1 cell = 4 pages (64 KiB); 1 row = 64 cells = 256 pages = 4 extents of 64 pages";
        assert!(svg.contains(words), "{kind}");
    }
    let (json, _) = stdout(&["lsn", "--format", "json", s(&big)]);
    assert_eq!(json_num(&json, "pages_per_cell"), Some(4));
    assert_eq!(json_cells(&json).len(), 5120);
    let (text, _) = stdout(&["fill", "--color", "never", s(&big)]);
    let header: Vec<&str> = text.lines().skip(1).take(2).collect();
    assert_eq!(
        header,
        [
            "pages 0 to 20479 (all 20480); 1 cell = 4 pages (64 KiB)",
            "1 row = 64 cells = 256 pages = 4 extents of 64 pages"
        ],
        "{text}"
    );
}

#[test]
fn compare_reports_an_unreadable_file_and_draws_the_others() {
    let a = fixture("mysql56/ai_int.ibd");
    let out = scratch("cmp-missing.svg");
    let o = run(&["compare", s(&a), "/nonexistent/x.ibd", "--out", s(&out)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("/nonexistent/x.ibd"));
    let svg = std::fs::read_to_string(&out).unwrap();
    assert_eq!(svg_cells(&svg).len(), 19);
    let (json, code) = stdout(&["compare", "--format", "json", s(&a), "/nonexistent/x.ibd"]);
    assert_eq!(code, Some(2));
    assert!(
        json.contains("\"file\":\"/nonexistent/x.ibd\",\"error\""),
        "{json}"
    );
}

#[test]
fn out_is_checked_before_reading_and_never_the_input() {
    // An input named like a picture, so that only the input check stops it.
    let copy = scratch("never-written.png");
    std::fs::copy(fixture("mysql56/ai_int.ibd"), &copy).unwrap();
    let before = std::fs::read(&copy).unwrap();
    for (args, why) in [
        (vec!["lsn", s(&copy), "--out", "x.jpg"], ".png or .svg"),
        (vec!["lsn", s(&copy), "--out", "x.ibd"], ".png or .svg"),
        (vec!["extents", s(&copy), "--out", s(&copy)], "input file"),
        (vec!["compare", s(&copy), "--out", s(&copy)], "input file"),
    ] {
        let o = run(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(String::from_utf8_lossy(&o.stderr).contains(why), "{args:?}");
    }
    assert_eq!(std::fs::read(&copy).unwrap(), before);
    let o = run(&["fill", s(&copy), "--out", "/nonexistent-dir/x.png"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("/nonexistent-dir/x.png"));
}

#[test]
fn json_with_out_prints_the_document_and_writes_the_picture() {
    let a = fixture("mariadb1011/uuid_char36.ibd");
    for kind in ["extents", "lsn", "fill", "compare"] {
        let out = scratch(&format!("json-and-out.{kind}.svg"));
        let (json, code) = stdout(&[kind, "--format", "json", s(&a), "--out", s(&out)]);
        assert_eq!(code, Some(0), "{kind}");
        assert!(
            json.starts_with('{') && json.ends_with("}\n"),
            "{kind}: {json}"
        );
        let svg = std::fs::read_to_string(&out).unwrap();
        // 31 pages; one is all zeroes, LSN 0, blank in the LSN map.
        let want = if kind == "lsn" { 30 } else { 31 };
        assert_eq!(svg_cells(&svg).len(), want, "{kind}");
    }
}

/// Pages per extent for a page size: FSP_EXTENT_SIZE (mysql-server 8.0
/// storage/innobase/include/fsp0types.h): 1 MiB extents for pages up to
/// 16K, 2 MiB for 32K pages, 4 MiB for 64K pages.
fn extent_pages(page_size: u64) -> u64 {
    let mib: u64 = match page_size {
        ..=16384 => 1,
        32768 => 2,
        _ => 4,
    };
    (mib << 20) / page_size
}

/// The numbers of a map's caption: `pages F to L (all N)` or `... of N`;
/// `1 cell = K pages (B KiB)`; `1 row = C cells = P pages = ...`.
#[derive(Debug)]
struct Caption {
    first: u64,
    last: u64,
    per_cell: u64,
    cell_kib: u64,
    columns: u64,
    row_pages: u64,
    /// The extent the caption names, and the extents in a row as a
    /// fraction (numerator, denominator).
    extent: u64,
    row_extents: (u64, u64),
}

fn num(s: &str) -> u64 {
    s.replace(',', "")
        .trim()
        .parse()
        .unwrap_or_else(|_| panic!("not a number: {s:?}"))
}

fn caption(line1: &str, line2: &str) -> Caption {
    let (range, cell) = line1.split_once("; 1 cell = ").unwrap();
    let range = range.strip_prefix("pages ").unwrap();
    let (first, rest) = range.split_once(" to ").unwrap();
    let last = rest.split(' ').next().unwrap();
    let (per_cell, bytes) = cell.split_once(" (").unwrap();
    let per_cell = per_cell.split(' ').next().unwrap();
    let cell_kib = bytes.strip_suffix(" KiB)").unwrap();
    let row = line2.strip_prefix("1 row = ").unwrap();
    let (row, apart) = match row.split_once("; 1 extent = ") {
        Some((r, e)) => (r, Some(e)),
        None => (row, None),
    };
    let parts: Vec<&str> = row.split(" = ").collect();
    let columns = parts[0].strip_suffix(" cells").unwrap();
    let (row_pages, extent, row_extents) = if let Some(e) = apart {
        (parts[1], e.strip_suffix(" pages").unwrap(), (0, 0))
    } else {
        let (n, e) = parts[2].split_once(" of ").unwrap();
        let n = n.split(' ').next().unwrap();
        let frac = match n.split_once('/') {
            Some((a, b)) => (num(a), num(b)),
            None => (num(n), 1),
        };
        (parts[1], e.strip_suffix(" pages").unwrap(), frac)
    };
    Caption {
        first: num(first),
        last: num(last),
        per_cell: num(per_cell),
        cell_kib: num(cell_kib),
        columns: num(columns),
        row_pages: num(row_pages.split(' ').next().unwrap()),
        extent: num(extent),
        row_extents,
    }
}

/// The map rows of a terminal map: each row's label and cells.
fn map_rows(text: &str) -> Vec<(u64, usize)> {
    text.lines()
        .filter_map(|l| {
            let n = l.get(..10)?.trim().parse::<u64>().ok()?;
            Some((n, l.chars().count() - 11))
        })
        .collect()
}

#[test]
fn captions_say_what_the_grid_draws_for_4k_16k_and_64k_pages() {
    for (file, page_size) in [
        ("mariadb1011-4k/secondary.ibd", 4096u64),
        ("mariadb1011/secondary.ibd", 16384),
        ("mariadb1011-64k/secondary.ibd", 65536),
    ] {
        let path = fixture(file);
        let n_pages = std::fs::metadata(&path).unwrap().len() / page_size;
        for kind in ["extents", "fill", "lsn"] {
            for (opts, want) in [
                (&[][..], (0, n_pages - 1, 1)),
                (&["--from", "3", "--to", "9"][..], (3, 9, 1)),
                (&["--pages-per-cell", "4"][..], (0, n_pages - 1, 4)),
                (
                    &["--from", "2", "--to", "10", "--pages-per-cell", "3"][..],
                    (2, 10, 3),
                ),
            ] {
                let mut args = vec![kind, "--color", "never", s(&path)];
                args.extend(opts);
                let (text, code) = stdout(&args);
                assert!(code.is_some_and(|c| c <= 1), "{args:?}: {text}");
                let lines: Vec<&str> = text.lines().collect();
                let c = caption(lines[1], lines[2]);
                let what = format!("{args:?}: {c:?}\n{text}");
                assert_eq!((c.first, c.last, c.per_cell), want, "{what}");
                assert_eq!(c.cell_kib * 1024, c.per_cell * page_size, "{what}");
                assert_eq!(c.row_pages, c.columns * c.per_cell, "{what}");
                assert_eq!(c.extent, extent_pages(page_size), "{what}");
                let (a, b) = c.row_extents;
                if a > 0 {
                    assert_eq!(c.row_pages * b, a * c.extent, "{what}");
                } else {
                    assert!(
                        !c.row_pages.is_multiple_of(c.extent)
                            && !c.extent.is_multiple_of(c.row_pages)
                    );
                }
                // The grid: the pages named, k a cell, rows of C cells,
                // each row labelled with its first page.
                let rows = map_rows(&text);
                let cells: usize = rows.iter().map(|r| r.1).sum();
                let pages = c.last - c.first + 1;
                assert_eq!(cells as u64, pages.div_ceil(c.per_cell), "{what}");
                for (r, &(label, n)) in rows.iter().enumerate() {
                    assert_eq!(label, c.first + r as u64 * c.row_pages, "{what}");
                    if r + 1 < rows.len() {
                        assert_eq!(n as u64, c.columns, "{what}");
                    } else {
                        assert!(n as u64 <= c.columns, "{what}");
                    }
                }
                // The picture says the same words and draws the same cells.
                let name = format!("cap.{}.{kind}.{}", file.replace('/', "_"), opts.join("_"));
                let svg = draw(&args, &name);
                let line = format!("{}; {}", lines[1], lines[2]);
                assert!(svg.contains(&line), "{what}: {line}");
                if kind != "lsn" {
                    assert_eq!(svg_cells(&svg).len(), cells, "{what}");
                }
            }
        }
    }
}

#[test]
fn compare_scales_by_bytes_and_draws_the_metric_in_the_terminal() {
    let small = fixture("mariadb1011-4k/secondary.ibd"); // 113 pages of 4K
    let big = fixture("mariadb1011/secondary.ibd"); // 47 pages of 16K
    for (opts, cells) in [
        // 16 KiB a cell: 4 pages of 4K, 1 page of 16K.
        (&[][..], 113usize.div_ceil(4) + 47),
        // 2 pages of 16K: 32 KiB, 8 pages of 4K.
        (
            &["--pages-per-cell", "2"][..],
            113usize.div_ceil(8) + 47usize.div_ceil(2),
        ),
    ] {
        let mut args = vec!["compare", s(&small), s(&big)];
        args.extend(opts);
        let svg = draw(&args, &format!("cmp-bytes{}", opts.len()));
        assert_eq!(svg_cells(&svg).len(), cells, "{args:?}");
        let mut j = args.clone();
        j.extend(["--format", "json"]);
        let (json, _) = stdout(&j);
        let per: Vec<u64> = json
            .split("\"page_size\":")
            .skip(1)
            .map(|x| {
                let size = num(x.split(',').next().unwrap());
                let k = x.split("\"pages_per_cell\":").nth(1).unwrap();
                size * num(k.split(',').next().unwrap())
            })
            .collect();
        assert_eq!(per.len(), 2);
        assert_eq!(per[0], per[1], "{json}");
        // The terminal draws the maps, each file's rows labelled with its
        // own pages.
        let mut t = args.clone();
        t.extend(["--color", "never", "--metric", "fill"]);
        let (text, _) = stdout(&t);
        assert!(text.contains("fill maps, one scale by bytes"), "{text}");
        // Side by side or one above the other; a fill map has no blank
        // cell, so the cells are the glyphs after the labels.
        let drawn: usize = (text.lines())
            .filter(|l| l.get(..10).is_some_and(|n| n.trim().parse::<u64>().is_ok()))
            .map(|l| l.chars().skip(11).filter(|c| *c != ' ').count())
            .sum();
        assert_eq!(drawn, cells, "{text}");
    }
    // The metric decides what is drawn.
    let base = ["compare", "--color", "never", s(&small), s(&big)];
    let maps = |metric: &str| {
        let (text, _) = stdout(&[&base[..], &["--metric", metric]].concat());
        let from = text.find("maps, one scale").unwrap();
        text[from..].to_string()
    };
    let (extents, lsn) = (maps("extents"), maps("lsn"));
    assert!(extents.contains('S') && !lsn.contains("S system"), "{lsn}");
    assert!(lsn.contains("page LSN from old to new"), "{lsn}");
}

#[test]
fn every_map_legend_line_fits_80_columns() {
    let files = [
        "mariadb1011-4k/secondary.ibd",
        "mariadb1011/secondary.ibd",
        "mariadb1011-64k/ai_int.ibd",
        "mysql56/dml.ibd",
        "mysql56/uuid_char36.ibd",
    ];
    let mut runs: Vec<Vec<String>> = Vec::new();
    for f in files {
        let p = s(&fixture(f)).to_string();
        for kind in ["extents", "fill", "lsn"] {
            for ascii in [false, true] {
                let mut a = vec![
                    kind.to_string(),
                    "--color".into(),
                    "never".into(),
                    p.clone(),
                ];
                if ascii {
                    a.push("--ascii".into());
                }
                runs.push(a);
            }
        }
    }
    for metric in ["extents", "fill", "lsn"] {
        let mut a: Vec<String> = ["compare", "--color", "never", "--metric", metric]
            .map(String::from)
            .to_vec();
        a.extend(files.iter().map(|f| s(&fixture(f)).to_string()));
        runs.push(a);
    }
    for a in runs {
        let args: Vec<&str> = a.iter().map(String::as_str).collect();
        let (text, _) = stdout(&args);
        // The legend: every line after the map's last row, findings (which
        // name the file) aside.
        let lines: Vec<&str> = text.lines().collect();
        let last_row = lines
            .iter()
            .rposition(|l| l.get(..10).is_some_and(|n| n.trim().parse::<u64>().is_ok()))
            .unwrap_or_else(|| panic!("{args:?}: no map in {text}"));
        for l in &lines[last_row + 1..] {
            if l.starts_with(s(&fixture(""))) || l.starts_with("fixtures/") {
                continue;
            }
            assert!(
                l.chars().count() <= 80,
                "{args:?}: {} columns: {l}",
                l.chars().count()
            );
        }
    }
}

#[test]
fn pages_check_cannot_verify_are_drawn_apart() {
    let Some(corpus) = super::common::corpus() else {
        return;
    };
    // Percona Server 8.0 with keyring encryption (../shared/corpus
    // manifest): the pages check cannot verify without the key.
    let path = corpus.join("percona-8.0/percona80_encrypted_secret_data.ibd");
    let bytes = std::fs::read(&path).unwrap();
    let ts = Tablespace::new(&bytes).unwrap();
    let summary = ibdscope_core::Summary::of(&ts, &Engine::default());
    let n = summary.unverifiable.len();
    assert!(n > 0);
    let want = ansi256_to_rgb(UNVERIFIABLE_ANSI).hex();
    for kind in ["extents", "fill"] {
        let svg = draw(&[kind, s(&path)], &format!("encrypted.{kind}"));
        let cells = svg_cells(&svg);
        assert_eq!(cells.iter().filter(|c| **c == want).count(), n, "{kind}");
        let legend = svg_legend(&svg);
        assert!(
            legend
                .iter()
                .any(|(l, c)| l.starts_with("not verifiable from the file alone") && *c == want),
            "{kind}: {legend:?}"
        );
        let (text, _) = stdout(&[kind, "--color", "never", s(&path)]);
        let row = map_rows(&text);
        assert_eq!(row.len(), 1, "{text}");
        assert_eq!(
            text.matches('~').count(),
            n + 1,
            "{kind}: the map and its key\n{text}"
        );
    }
    // the LSN map names them too (one page a cell here): `~` and the
    // not-verifiable colour, not an LSN
    let svg = draw(&["lsn", s(&path)], "encrypted.lsn");
    assert_eq!(svg_cells(&svg).iter().filter(|c| **c == want).count(), n);
    let legend = svg_legend(&svg);
    assert!(
        legend
            .iter()
            .any(|(l, c)| l.starts_with("encrypted page (not verifiable)") && *c == want),
        "lsn: {legend:?}"
    );
    let (text, _) = stdout(&["lsn", "--color", "never", s(&path)]);
    assert_eq!(
        text.matches('~').count(),
        n + 1,
        "lsn: the map and its key\n{text}"
    );
    let (text, _) = stdout(&["lsn", "--format", "json", s(&path)]);
    assert_eq!(text.matches("\"encrypted\"").count(), n, "{text}");
}
