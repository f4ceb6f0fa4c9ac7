//! The application in a real browser: headless Chromium (Debian
//! `chromium`) opens every view of files served by the server, and the
//! tests assert on the DOM each view built from the JSON it fetched (the
//! browser driven over the DevTools protocol, `support::cdp`: a view is
//! read once the app marks it drawn and no request is under way; the
//! mouse moved and clicked as a person's): the overview, the maps (each cell's
//! colour as drawn, against the SVG picture `extents --out` draws and the
//! verdicts `check --format json` gives), a page with its links and typed
//! records, hovered cells and hex bytes, extent and segment, the index
//! levels, the rows, compare, diff and a datadir's audit,
//! on the fixture kinds (MySQL 5.6, MariaDB 4K/16K/64K, page_compressed,
//! ROW_FORMAT=COMPRESSED, encrypted with its key, an instance datadir) and
//! a corpus MySQL 8.0 file. Screenshots of each view are kept in
//! `CARGO_TARGET_TMPDIR/serve-shots` for a person to look at (the path is
//! printed). Skips, saying so loudly, when no browser runs.
#![allow(
    clippy::arithmetic_side_effects,
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::disallowed_macros
)]

mod support;

use ibdscope_report::args::{Cmd, Format, ImageFormat, KeyFile, Metric, Opts};
use ibdscope_report::host::ReadHost;
use ibdscope_serve::{Limits, Server};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use support::cdp::Browser;
use support::json::Json;

/// The browser's program: `$IBDSCOPE_CHROMIUM` or `chromium`, if it runs.
fn browser() -> Option<String> {
    let prog = std::env::var("IBDSCOPE_CHROMIUM").unwrap_or_else(|_| "chromium".into());
    match Command::new(&prog).arg("--version").output() {
        Ok(o) if o.status.success() => Some(prog),
        Ok(o) => {
            eprintln!(
                "\n*** SKIPPED: `{prog} --version` failed ({}): {}\n",
                o.status,
                String::from_utf8_lossy(&o.stderr)
            );
            None
        }
        Err(e) => {
            eprintln!(
                "\n*** SKIPPED: no headless browser (`{prog}`: {e}); install Debian `chromium` \
                 (`.ci/run` does) or set IBDSCOPE_CHROMIUM\n"
            );
            None
        }
    }
}

/// A scratch directory of this test.
fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("serve-browser-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A server over `files` (with `keys`) and the browser that views it,
/// driven over the DevTools protocol.
struct Session {
    b: Browser,
    url: String,
    shots: PathBuf,
    tag: String,
}

impl Session {
    fn start(prog: &str, tag: &str, files: Vec<PathBuf>, keys: Option<KeyFile>) -> Session {
        let mut opts = Opts::new(Cmd::Info, files, Format::Json, Arc::new(ReadHost));
        opts.key_file = keys;
        let server = Server::bind(opts, 0, Limits::default()).unwrap();
        let url = server.url();
        std::thread::spawn(move || server.run());
        let shots = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("serve-shots");
        std::fs::create_dir_all(&shots).unwrap();
        let mut b = Browser::start(prog, &scratch(&format!("profile-{tag}")))
            .unwrap_or_else(|e| panic!("the DevTools protocol: {e}"));
        b.call("Network.enable", "{}");
        Session {
            b,
            url,
            shots,
            tag: tag.to_string(),
        }
    }

    /// Shows view `hash` and waits until it is drawn and every request it
    /// made is answered (the app's `data-done` and `pending`).
    fn go(&mut self, hash: &str) {
        let want = if hash.is_empty() {
            String::new()
        } else {
            format!("#{hash}")
        };
        let here = self.b.eval("location.href");
        if here.str() != Some(&format!("{}#{hash}", self.url)) {
            self.b.navigate(&format!("{}#{hash}", self.url));
        }
        self.b.wait(
            &format!(
                "document.getElementById('view').dataset.done === {} && pending === 0",
                support::json::quote(&want)
            ),
            120,
        );
    }

    /// The DOM of view `hash` after its scripts ran.
    fn dom(&mut self, hash: &str) -> String {
        self.go(hash);
        let d = self.b.eval("document.documentElement.outerHTML");
        d.str().unwrap_or("").to_string()
    }

    /// The DOM of view `hash`, and a screenshot of it kept.
    fn view(&mut self, hash: &str) -> String {
        let dom = self.dom(hash);
        let name = if hash.is_empty() {
            "overview".to_string()
        } else {
            hash.replace(['/', ','], "_")
        };
        let shot = self.shots.join(format!("{}-{name}.png", self.tag));
        self.b.screenshot(&shot);
        dom
    }
}

/// The colours of the cells a canvas `id` drew (its `data-cells`).
fn cells(dom: &str, id: &str) -> Vec<String> {
    let at = dom
        .find(&format!("id=\"{id}\""))
        .unwrap_or_else(|| panic!("no canvas {id}: {dom}"));
    let tag_start = dom[..at].rfind('<').unwrap();
    let tag = &dom[tag_start..tag_start + dom[tag_start..].find('>').unwrap()];
    let v = tag.split("data-cells=\"").nth(1).expect("data-cells");
    let v = &v[..v.find('"').unwrap()];
    v.split(',').map(str::to_lowercase).collect()
}

/// What a picture file draws, read back from its SVG (render's
/// picture.rs draws, in this order: each panel's row slots, then one
/// rectangle per non-blank cell; the legend, each label's text before its
/// 14-pixel swatch; the colour scale's title, its strip of 2-pixel
/// rectangles from its low to its high end, its ticks and end labels).
#[derive(Debug)]
struct Drawn {
    /// Each panel's cells in page order: the fill ("" for a blank cell,
    /// placed by the rectangles' positions in the panel's rows).
    panels: Vec<Vec<String>>,
    /// The legend: each label and its swatch's colour.
    legend: Vec<(String, String)>,
    /// The colour scale: its title, the colours at its low and high
    /// ends, and the texts after its strip (tick and end labels).
    scale: Option<(String, String, String, Vec<String>)>,
}

/// An element of an SVG: a rectangle (x, y, width, height, fill) or a text.
enum El {
    Rect(i64, i64, i64, i64, String),
    Text(String),
}

fn svg_elements(svg: &str) -> Vec<El> {
    let attr = |el: &str, name: &str| -> String {
        el.split(&format!(" {name}=\""))
            .nth(1)
            .map(|v| v[..v.find('"').unwrap()].to_string())
            .unwrap_or_default()
    };
    let num = |el: &str, name: &str| attr(el, name).parse::<f64>().unwrap_or(-1.0).round() as i64;
    let mut v = Vec::new();
    for el in svg.split('<').skip(1) {
        if el.starts_with("rect") {
            v.push(El::Rect(
                num(el, "x"),
                num(el, "y"),
                num(el, "width"),
                num(el, "height"),
                attr(el, "fill").to_lowercase(),
            ));
        } else if el.starts_with("text") {
            let body = el.split_once('>').map_or("", |x| x.1).trim();
            let body = body
                .replace("&lt;", "<")
                .replace("&gt;", ">")
                .replace("&quot;", "\"")
                .replace("&apos;", "'")
                .replace("&#39;", "'")
                .replace("&amp;", "&");
            v.push(El::Text(body));
        }
    }
    v
}

/// The cells of one panel: its row slots (x, y, width, height) and its
/// cell rectangles, placed in page order by their positions (the gap
/// between cells is one pixel when cells are at least 5 pixels each way,
/// else none: render's `layout`).
fn panel_cells(
    slots: &[(i64, i64, i64, i64)],
    cells: &[(i64, i64, i64, i64, String)],
) -> Vec<String> {
    let (x0, _, _, slot_h) = slots[0];
    let Some(&(_, _, w, _, _)) = cells.first() else {
        panic!("a panel with no cell drawn")
    };
    let gap = [1, 0]
        .into_iter()
        .find(|&gap| {
            let (cw, ch) = (w + gap, slot_h + gap);
            (gap == 1) == (cw >= 5 && ch >= 5)
                && cells.iter().all(|c| (c.0 - x0) % cw == 0)
                && slots.iter().all(|s| (s.2 + gap) % cw == 0)
        })
        .expect("the cells' pitch");
    let cw = w + gap;
    let mut starts = Vec::new();
    let mut n = 0;
    for s in slots {
        starts.push(n);
        n += ((s.2 + gap) / cw) as usize;
    }
    let mut out = vec![String::new(); n];
    for (x, y, _, h, fill) in cells {
        // A bar stands on its row's bottom.
        let row = slots
            .iter()
            .position(|s| s.1 + s.3 == y + h)
            .unwrap_or_else(|| panic!("a cell at {x},{y} in no row"));
        out[starts[row] + ((x - x0) / cw) as usize] = fill.clone();
    }
    out
}

/// The picture `cmd --out F.svg` (`compare --metric M` for compare) draws
/// of `files`, read back.
fn svg_drawn(
    cmd: Cmd,
    metric: Metric,
    files: &[PathBuf],
    dir: &Path,
    keys: Option<KeyFile>,
) -> Drawn {
    let svg = dir.join(format!(
        "{}-{cmd:?}-{metric:?}.svg",
        files[0].file_stem().unwrap().to_string_lossy()
    ));
    let mut opts = Opts::new(cmd, files.to_vec(), Format::Text, Arc::new(ReadHost));
    opts.key_file = keys;
    opts.metric = metric;
    opts.out = Some((svg.clone(), ImageFormat::Svg));
    let mut out = Vec::new();
    ibdscope_report::run(&opts, &mut out).unwrap();
    let els = svg_elements(&std::fs::read_to_string(&svg).unwrap());
    let slot = ibdscope_render::color::SLOT_RGB.hex().to_lowercase();
    let is_slot = |e: &El| matches!(e, El::Rect(.., f) if *f == slot);
    let mut i = els.iter().position(is_slot).expect("a row slot");
    let mut panels = Vec::new();
    // Each panel: its slots, then its cells, up to the next panel's slots
    // or the first text.
    while i < els.len() && is_slot(&els[i]) {
        let mut slots = Vec::new();
        while let Some(El::Rect(x, y, w, h, f)) = els.get(i) {
            if *f != slot {
                break;
            }
            slots.push((*x, *y, *w, *h));
            i += 1;
        }
        let mut cells = Vec::new();
        while let Some(El::Rect(x, y, w, h, f)) = els.get(i) {
            if *f == slot {
                break;
            }
            cells.push((*x, *y, *w, *h, f.clone()));
            i += 1;
        }
        panels.push(panel_cells(&slots, &cells));
    }
    let mut legend = Vec::new();
    while let (Some(El::Text(label)), Some(El::Rect(_, _, 14, 14, f))) =
        (els.get(i), els.get(i + 1))
    {
        legend.push((label.clone(), f.clone()));
        i += 2;
    }
    let strip = (i..els.len()).find(|&k| matches!(els[k], El::Rect(_, _, 2, 14, _)));
    let scale = strip.map(|k| {
        let title = match &els[k - 1] {
            El::Text(t) => t.clone(),
            El::Rect(..) => panic!("no title before the colour scale"),
        };
        let mut end = k;
        while matches!(els.get(end), Some(El::Rect(_, _, 2, 14, _))) {
            end += 1;
        }
        let fill = |e: &El| match e {
            El::Rect(.., f) => f.clone(),
            El::Text(_) => unreachable!(),
        };
        let texts = els[end..]
            .iter()
            .filter_map(|e| match e {
                El::Text(t) => Some(t.clone()),
                El::Rect(..) => None,
            })
            .collect();
        (title, fill(&els[k]), fill(&els[end - 1]), texts)
    });
    Drawn {
        panels,
        legend,
        scale,
    }
}

/// Chooses colour `mode` in the view's selector and waits until every map
/// is drawn in it and no request is under way.
fn choose_mode(b: &mut Browser, mode: &str) {
    b.eval(&format!(
        "(() => {{ const m = document.getElementById('mode'); m.value = '{mode}'; \
         m.dispatchEvent(new Event('change')); return 1; }})()"
    ));
    b.wait(
        &format!(
            "[...document.querySelectorAll('canvas.map')].every(c => c.dataset.mode === '{mode}') && pending === 0"
        ),
        120,
    );
}

/// The cells canvas `sel` drew (its `data-cells`: "" for a blank cell).
fn drawn_cells(b: &mut Browser, sel: &str) -> Vec<String> {
    let v = b.eval(&format!(
        "document.querySelector({}).getAttribute('data-cells')",
        support::json::quote(sel)
    ));
    let v = v.str().unwrap_or("");
    v.split(',').map(str::to_lowercase).collect()
}

/// The legend the view shows (label and swatch colour) and its colour
/// scale (title, low and high end colours and labels).
type Legend = (
    Vec<(String, String)>,
    Option<(String, String, String, String, String)>,
);

fn shown_legend(b: &mut Browser) -> Legend {
    let v = b.eval(
        "(() => { const L = document.getElementById('legend'); \
         const items = [...L.querySelectorAll(':scope > span')].map(s => [s.textContent, s.querySelector('i').getAttribute('data-c')]); \
         const s = L.querySelector('#scale'); \
         const scale = s ? [L.querySelector('.scale-row').firstChild.textContent, s.firstChild.getAttribute('data-c'), \
           s.lastChild.getAttribute('data-c'), L.querySelector('.lo').textContent, L.querySelector('.hi').textContent] : null; \
         return [items, scale]; })()",
    );
    let items = v
        .at(0)
        .arr()
        .iter()
        .map(|p| (p.at(0).text(), p.at(1).text().to_lowercase()))
        .collect();
    let scale = match v.at(1) {
        Json::Null => None,
        s => Some((
            s.at(0).text(),
            s.at(1).text().to_lowercase(),
            s.at(2).text().to_lowercase(),
            s.at(3).text(),
            s.at(4).text(),
        )),
    };
    (items, scale)
}

/// The view's legend is the picture's: the same classes with their
/// colours, the same scale title, end colours and end labels.
fn assert_legend(shown: &Legend, want: &Drawn, what: &str) {
    assert_eq!(shown.0, want.legend, "{what}: the legend");
    match (&shown.1, &want.scale) {
        (None, None) => {}
        (Some((title, lo, hi, lo_label, hi_label)), Some((w_title, w_lo, w_hi, texts))) => {
            assert_eq!(title, w_title, "{what}: the scale's title");
            assert_eq!((lo, hi), (w_lo, w_hi), "{what}: the scale's ends");
            for l in [lo_label, hi_label] {
                assert!(texts.contains(l), "{what}: {l} not among {texts:?}");
            }
        }
        (s, w) => panic!("{what}: scale {s:?} against {w:?}"),
    }
}

/// The map modes and the command whose picture each draws.
const MODES: [(&str, Cmd, Metric); 3] = [
    ("extents", Cmd::Extents, Metric::Extents),
    ("lsn", Cmd::Lsn, Metric::Lsn),
    ("fill", Cmd::Fill, Metric::Fill),
];

/// The pages `check --format json` finds damaged in `file`.
fn check_damaged(file: &Path) -> Vec<u64> {
    let opts = Opts::new(
        Cmd::Check,
        vec![file.to_path_buf()],
        Format::Json,
        Arc::new(ReadHost),
    );
    let mut out = Vec::new();
    ibdscope_report::run(&opts, &mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    let mut pages = Vec::new();
    for part in text.split("\"page\":").skip(1) {
        let n: String = part.chars().take_while(char::is_ascii_digit).collect();
        if let Ok(n) = n.parse() {
            pages.push(n);
        }
    }
    pages.sort_unstable();
    pages.dedup();
    pages
}

/// The palette's colour `key` (a string value).
fn palette(key: &str) -> String {
    let c = match key {
        "damaged" => ibdscope_render::color::ansi256_to_rgb(ibdscope_render::color::DAMAGED_ANSI),
        _ => unreachable!(),
    };
    c.hex().to_lowercase()
}

/// A damaged copy of `rel` in `dir`: 8 bytes planted in page `page`
/// (`page_size` bytes a page), with its `.frm` beside it.
fn damaged_copy(rel: &str, dir: &Path, page: usize, page_size: usize) -> PathBuf {
    let clean = ibdscope_testkit::fixtures().join(rel);
    let damaged = dir.join(clean.file_name().unwrap());
    let mut bytes = std::fs::read(&clean).unwrap();
    bytes[page * page_size + 2000..page * page_size + 2008]
        .copy_from_slice(&[0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4]);
    std::fs::write(&damaged, &bytes).unwrap();
    let frm = clean.with_extension("frm");
    if frm.is_file() {
        std::fs::copy(&frm, damaged.with_extension("frm")).unwrap();
    }
    damaged
}

#[test]
fn the_views_render_in_headless_chromium() {
    let Some(prog) = browser() else { return };
    let dir = scratch("views");
    // A damaged copy beside the clean file: 8 bytes planted in page 5 (the
    // MariaDB 10.11 fixture, 16 KiB pages), its definition beside it.
    let clean = ibdscope_testkit::fixtures().join("mariadb1011/ai_int.ibd");
    let damaged = damaged_copy("mariadb1011/ai_int.ibd", &dir, 5, 16384);
    let mut s = Session::start(&prog, "views", vec![clean.clone(), damaged.clone()], None);

    let overview = s.view("");
    assert!(overview.contains("<tr id=\"file-0\">"), "{overview}");
    assert!(
        overview.contains("<td class=\"clean\">clean</td>"),
        "{overview}"
    );
    assert!(
        overview.contains("<td class=\"findings\">findings</td>"),
        "{overview}"
    );
    assert!(overview.contains("MariaDB 10.5+ full_crc32"), "{overview}");
    // The index count, from `indexes`: one index (PRIMARY).
    assert!(
        overview.contains("<td id=\"indexes-0\">1</td>"),
        "{overview}"
    );

    let map = s.view("map/1");
    assert!(map.contains("<canvas id=\"map\""), "{map}");
    assert!(map.contains("19 pages, 64 per row"), "{map}");
    assert!(map.contains("PRIMARY"), "{map}");
    // Every cell in every mode as the SVG picture of its command draws
    // it, and the damaged page red as `check` judges it.
    let bad = check_damaged(&damaged);
    assert_eq!(bad, vec![5]);
    let drawn = cells(&map, "map");
    assert_eq!(drawn.len(), 19);
    every_mode_as_the_pictures(&mut s, 1, &damaged, None, &dir, &bad, "views");

    // The damaged page: the verdict `check` gives it (corrupt), its links.
    let page = s.view("page/1/5");
    assert!(page.contains("<th>verdict</th><td>corrupt</td>"), "{page}");
    assert!(page.contains("id=\"hex\""), "{page}");
    assert!(page.contains("FIL_PAGE_OFFSET"), "{page}");
    assert!(
        page.contains("href=\"#page/1/6\""),
        "a link to the next sibling: {page}"
    );
    // Its parent (the root, page 3: the manifest's one node pointer level),
    // its extent and segment.
    assert!(page.contains(">parent 3</a>"), "{page}");
    assert!(page.contains("href=\"#extent/1/0\""), "{page}");
    assert!(page.contains("href=\"#segment/1/2\""), "{page}");

    // The root: its children are the 14 leaves (fixtures/pages.tsv: the
    // server counts 14 records, node pointers, on page 3).
    let root = s.view("page/0/3");
    let kids = root.split("id=\"children\"").nth(1).expect("children");
    let kids = &kids[..kids.find("</span>").unwrap()];
    assert_eq!(kids.matches("<a ").count(), 14, "{kids}");
    // A leaf: its records typed by the .frm beside the file.
    let leaf = s.view("page/0/4");
    assert!(leaf.contains("records, typed (ai_int.PRIMARY)"), "{leaf}");
    assert!(leaf.contains("<td>Akq1RQBbbHF1</td>"), "{leaf}");

    let levels = s.view("levels/0");
    assert!(levels.contains("PRIMARY (id 23, root "), "{levels}");

    let rows = s.view("rows/0");
    assert!(rows.contains("<td>Akq1RQBbbHF1</td>"), "{rows}");
    assert!(rows.contains("next page 5"), "{rows}");

    let seg = s.view("segment/0/2");
    assert!(seg.contains("14 pages"), "{seg}");

    let compare = s.view("compare/0,1");
    assert!(compare.contains("id=\"compare-table\""), "{compare}");
    assert!(compare.contains("id=\"map-0\""), "{compare}");
    assert!(compare.contains("id=\"map-1\""), "{compare}");
    // Each file's map in each mode as `compare --metric M --out` draws
    // it, with its legend and scale.
    for (mode, _, metric) in &MODES {
        choose_mode(&mut s.b, mode);
        let want = svg_drawn(
            Cmd::Compare,
            *metric,
            &[clean.clone(), damaged.clone()],
            &dir,
            None,
        );
        assert_eq!(want.panels.len(), 2, "compare {mode}");
        for (i, panel) in want.panels.iter().enumerate() {
            let drawn = drawn_cells(&mut s.b, &format!("#map-{i}"));
            assert_eq!(
                &drawn, panel,
                "compare {mode}: file {i}'s cells against `compare --out`"
            );
            let red: Vec<usize> = (drawn.iter().enumerate())
                .filter(|(_, c)| **c == palette("damaged"))
                .map(|(p, _)| p)
                .collect();
            assert_eq!(
                red,
                if i == 1 { vec![5] } else { vec![] },
                "compare {mode}: file {i}"
            );
        }
        assert_legend(&shown_legend(&mut s.b), &want, &format!("compare {mode}"));
        s.b.screenshot(&s.shots.join(format!("views-compare-{mode}.png")));
    }

    // Diff: page 5 differs, damaged in B.
    let diff = s.view("diff/0/1");
    assert!(diff.contains("href=\"#page/1/5\""), "{diff}");
    assert!(diff.contains("<td>corrupt</td>"), "{diff}");
    println!("screenshots in {}", s.shots.display());
    let _ = std::fs::remove_dir_all(&dir);
}

/// The map of `file` (shown) in each colour mode: every cell as the SVG
/// picture of the mode's command (`extents`, `lsn`, `fill --out`, with
/// `keys`) draws it, blanks in place; the legend's classes and scale as
/// the picture's; the damaged red exactly on `bad` (`check`'s pages), and
/// each of them hovered names its verdict damaged; a screenshot of each.
fn every_mode_as_the_pictures(
    s: &mut Session,
    n: usize,
    file: &Path,
    keys: Option<KeyFile>,
    dir: &Path,
    bad: &[u64],
    tag: &str,
) {
    for (mode, cmd, metric) in &MODES {
        choose_mode(&mut s.b, mode);
        let drawn = drawn_cells(&mut s.b, "#map");
        let want = svg_drawn(
            cmd.clone(),
            *metric,
            &[file.to_path_buf()],
            dir,
            keys.clone(),
        );
        assert_eq!(want.panels.len(), 1, "{tag} {mode}");
        assert_eq!(
            drawn, want.panels[0],
            "{tag}: the {mode} map's cells against `{mode} --out`"
        );
        assert_legend(&shown_legend(&mut s.b), &want, &format!("{tag} {mode}"));
        for (p, c) in drawn.iter().enumerate() {
            assert_eq!(
                *c == palette("damaged"),
                bad.contains(&(p as u64)),
                "{tag} {mode}: page {p}: {c}"
            );
        }
        // Each damaged page hovered in this mode: its tooltip as the
        // `pages` JSON names it, its verdict damaged as `check` says.
        let pages = s.b.fetched(&format!("/api/file/{n}/pages"));
        for &p in bad {
            let tip = hover_tip(&mut s.b, "#map", p as usize, 16.0);
            assert_tip(&tip, &pages, p as usize);
            let v = tip[6].strip_prefix("verdict ").unwrap();
            assert!(
                !(v == "valid" || v == "empty" || v.starts_with("unverifiable")),
                "{tag} {mode}: {tip:?}"
            );
        }
        let shot = s.shots.join(format!("{}-map-{mode}.png", s.tag));
        s.b.screenshot(&shot);
        println!(
            "{tag}: {mode}: {} cells as the picture draws them",
            drawn.len()
        );
    }
}

/// Each fixture kind: the overview's verdict, the map cell for cell as
/// the SVG map, the verdict of every damaged page as `check` gives it,
/// and a page view.
#[test]
fn every_fixture_kind_in_the_browser() {
    let Some(prog) = browser() else { return };
    let dir = scratch("kinds");
    let keys = || {
        let k = std::fs::read(ibdscope_testkit::fixtures().join("keys/test-keys.txt")).unwrap();
        Some(KeyFile::parse(&k, b"").unwrap())
    };
    let mut cases: Vec<(&str, PathBuf, bool)> = vec![
        (
            "mysql56",
            ibdscope_testkit::fixtures().join("mysql56/ai_int.ibd"),
            false,
        ),
        (
            "mariadb-4k",
            ibdscope_testkit::fixtures().join("mariadb1011-4k/ai_int.ibd"),
            false,
        ),
        (
            "mariadb-64k",
            ibdscope_testkit::fixtures().join("mariadb1011-64k/ai_int.ibd"),
            false,
        ),
        (
            "page-compressed",
            ibdscope_testkit::fixtures().join("mariadb1011-pc/pc_lz4.ibd"),
            false,
        ),
        (
            "row-compressed",
            ibdscope_testkit::fixtures().join("mariadb1011/rf_compressed8.ibd"),
            false,
        ),
        (
            "encrypted",
            ibdscope_testkit::fixtures().join("crypt/cbc/ai_int.ibd"),
            true,
        ),
        (
            "damaged-4k",
            damaged_copy("mariadb1011-4k/ai_int.ibd", &dir, 7, 4096),
            false,
        ),
    ];
    if let Some(corpus) = ibdscope_testkit::corpus() {
        cases.push((
            "mysql80",
            corpus.join("mysql-8.0/sakila_mysql8040_staff.ibd"),
            false,
        ));
    }
    for (tag, file, keyed) in cases {
        let k = if keyed { keys() } else { None };
        let mut s = Session::start(&prog, tag, vec![file.clone()], k);
        let overview = s.view("");
        assert!(overview.contains("<tr id=\"file-0\">"), "{tag}: {overview}");
        let map = s.view("map/0");
        let drawn = cells(&map, "map");
        let bad = check_damaged(&file);
        let k = if keyed { keys() } else { None };
        every_mode_as_the_pictures(&mut s, 0, &file, k, &dir, &bad, tag);
        choose_mode(&mut s.b, "extents");
        // Hover: the root and each damaged page, named as the JSON the
        // page fetched names them, the verdict `corrupt` where `check`
        // says so.
        let pages = s.b.fetched("/api/file/0/pages");
        let cell = if drawn.len() <= 4096 { 16.0 } else { 4.0 };
        for &p in [3u64].iter().chain(&bad) {
            let tip = hover_tip(&mut s.b, "#map", p as usize, cell);
            assert_tip(&tip, &pages, p as usize);
            // Damaged as `check` classes a verdict (neither valid, empty
            // nor unverifiable).
            let v = tip[6].strip_prefix("verdict ").unwrap();
            let damaged = !(v == "valid" || v == "empty" || v.starts_with("unverifiable"));
            assert_eq!(bad.contains(&p), damaged, "{tag}: {tip:?}");
        }
        if tag == "damaged-4k" {
            assert_eq!(bad, vec![7], "{tag}");
            let page = s.view("page/0/7");
            assert!(
                page.contains("<th>verdict</th><td>corrupt</td>"),
                "{tag}: {page}"
            );
        }
        let page = s.view("page/0/3");
        assert!(page.contains("FIL_PAGE_OFFSET"), "{tag}: {page}");
        // Hover byte 4 of the hex view: it names FIL_PAGE_OFFSET.
        let (x, y) = s.b.centre("#hex span:nth-of-type(5)");
        s.b.hover(x, y);
        s.b.wait(
            "document.getElementById('hex-name').textContent.startsWith('FIL_PAGE_OFFSET')",
            10,
        );
        // Its place: the extent and segment views it links to list the
        // pages the owner map (`extents` JSON) gives them.
        let links = s.b.fetched("/api/file/0/links/3");
        let extent = s.view("extent/0/0");
        let owners = s.b.fetched("/api/file/0/extents");
        let size = owners.get("extent_size").u64().unwrap_or(64);
        let in_extent = owners
            .get("map")
            .arr()
            .iter()
            .filter(|c| c.get("page").u64().is_some_and(|p| p < size))
            .count();
        assert_eq!(
            extent.matches("href=\"#page/0/").count(),
            in_extent,
            "{tag}: {extent}"
        );
        if let Some(seg) = links.get("segment_id").u64() {
            let view = s.view(&format!("segment/0/{seg}"));
            let pages = owners
                .get("map")
                .arr()
                .iter()
                .filter(|c| c.get("segment").u64() == Some(seg))
                .count();
            assert!(
                view.contains(&format!("<h3>{pages} pages</h3>")),
                "{tag}: segment {seg}: {view}"
            );
        }
        let levels = s.dom("levels/0");
        assert!(levels.contains("<h2>indexes</h2>"), "{tag}: {levels}");
        // The rows view, from the clustered index's first leaf: typed rows
        // (each fixture has its definition: a `.frm` beside it, the SDI).
        let rows = s.view("rows/0");
        assert!(rows.contains("id=\"rows\""), "{tag}: {rows}");
        if tag == "mysql80" {
            // sakila's staff.picture of row 1: a PNG (its signature) kept
            // off-page, shown cut at `--max-value-bytes`.
            assert!(rows.contains("<td>0x89504e470d0a1a0a"), "{tag}: {rows}");
            assert!(rows.contains("… (truncated)</td>"), "{tag}: {rows}");
        }
        println!(
            "{tag}: {} pages drawn as the SVG map draws them",
            drawn.len()
        );
    }
    println!(
        "screenshots in {}",
        PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
            .join("serve-shots")
            .display()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// An instance datadir: its audit, each finding linked to its page.
#[test]
fn a_datadirs_audit_links_each_finding_to_its_page() {
    let Some(prog) = browser() else { return };
    let dir = scratch("datadir");
    let tarball = ibdscope_testkit::fixtures().join("instance/mariadb1011-split.tar.gz");
    let st = Command::new("tar")
        .arg("-xzf")
        .arg(&tarball)
        .arg("-C")
        .arg(&dir)
        .status();
    if !st.is_ok_and(|s| s.success()) {
        eprintln!(
            "\n*** SKIPPED: `tar -xzf` could not unpack {}\n",
            tarball.display()
        );
        return;
    }
    // Page 3 of one table damaged in the copy.
    let t = dir.join("fx/t_basic.ibd");
    let mut bytes = std::fs::read(&t).unwrap();
    bytes[3 * 16384 + 200..3 * 16384 + 204].copy_from_slice(&[1, 2, 3, 4]);
    std::fs::write(&t, &bytes).unwrap();
    let mut s = Session::start(&prog, "datadir", vec![dir.clone()], None);
    let overview = s.view("");
    assert!(overview.contains("href=\"#datadir/0\""), "{overview}");
    let audit = s.view("datadir/0");
    assert!(audit.contains("id=\"audit-files\""), "{audit}");
    // The member index of t_basic.ibd, as the overview lists it.
    let files = s.dom("datadir/0");
    let at = files.find("fx/t_basic.ibd").expect("t_basic listed");
    let link = files[..at].rfind("href=\"#map/").expect("a map link");
    let n: String = files[link + 11..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    assert!(
        audit.contains(&format!("href=\"#page/{n}/3\"")),
        "the finding links to page 3 of member {n}: {audit}"
    );
    // The dictionary's tables (`tables DATADIR`: fixtures/instance's
    // sys_tables.tsv lists fx/t_basic), each linked to its file's map.
    assert!(audit.contains("<td>fx/t_basic</td>"), "{audit}");
    assert!(audit.contains(&format!("href=\"#map/{n}\"")), "{audit}");
    let page = s.view(&format!("page/{n}/3"));
    assert!(page.contains("<th>verdict</th><td>corrupt</td>"), "{page}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The centre of page `page`'s cell on canvas `sel` (64 cells a row,
/// `cell` pixels each) in the viewport, scrolled into view.
fn cell_at(b: &mut Browser, sel: &str, page: usize, cell: f64) -> (f64, f64) {
    let r = b.eval(&format!(
        "(() => {{ const c = document.querySelector({}); c.scrollIntoView({{block: 'center'}}); \
         const r = c.getBoundingClientRect(); return [r.left + c.clientLeft, r.top + c.clientTop]; }})()",
        support::json::quote(sel)
    ));
    let (x0, y0) = (r.at(0).f64().unwrap(), r.at(1).f64().unwrap());
    (
        x0 + (page % 64) as f64 * cell + cell / 2.0 - 0.5,
        y0 + (page / 64) as f64 * cell + cell / 2.0 - 0.5,
    )
}

/// Hovers page `page`'s cell of canvas `sel`: the tooltip's lines.
fn hover_tip(b: &mut Browser, sel: &str, page: usize, cell: f64) -> Vec<String> {
    let (x, y) = cell_at(b, sel, page, cell);
    b.hover(x, y);
    let tip = b.wait(
        &format!(
            "!document.getElementById('tip').hidden && \
             document.getElementById('tip').textContent.startsWith('page {page}\\n') && \
             document.getElementById('tip').textContent"
        ),
        20,
    );
    tip.str().unwrap().lines().map(String::from).collect()
}

/// The tooltip of page `page` names it as the `pages` JSON the page
/// fetched does: number, type, index name (else id), level, fill, LSN,
/// verdict.
fn assert_tip(tip: &[String], pages: &Json, page: usize) {
    let p = pages
        .get("pages")
        .arr()
        .iter()
        .find(|p| p.get("page").u64() == Some(page as u64))
        .unwrap_or_else(|| panic!("page {page} in the JSON"));
    let index = match (p.get("index_name"), p.get("index_id")) {
        (Json::Null, id) => shown(id),
        (n, _) => n.text(),
    };
    assert_eq!(tip.len(), 7, "{tip:?}");
    assert_eq!(tip[0], format!("page {page}"));
    assert_eq!(tip[1], format!("type {}", p.get("type").text()));
    assert_eq!(tip[2], format!("index {index}"));
    assert_eq!(tip[3], format!("level {}", shown(p.get("level"))));
    let f = tip[4].strip_prefix("fill ").unwrap();
    match p.get("fill") {
        Json::Null => assert_eq!(f, "-"),
        v => assert_eq!(f.parse::<f64>().ok(), v.f64(), "page {page}: {tip:?}"),
    }
    assert_eq!(tip[5], format!("LSN {}", p.get("lsn").text()));
    assert_eq!(tip[6], format!("verdict {}", p.get("verdict").text()));
}

/// A value as the map's tooltip prints it (`??  "-"`).
fn shown(v: &Json) -> String {
    match v {
        Json::Null => "-".into(),
        v => v.text(),
    }
}

/// What a person does, in Chromium driven over the DevTools protocol: hover
/// a map cell (the tooltip names the page as the JSON the page fetched
/// does), zoom out and hover again, click the damaged cell, follow the
/// next-sibling link, hover bytes of the hex view (each names the range
/// the page's JSON names), tick two files in the overview and compare
/// them, then diff them; a screenshot of each view.
#[test]
fn a_person_hovers_clicks_and_compares_in_chromium() {
    let Some(prog) = browser() else { return };
    let dir = scratch("person");
    let clean = ibdscope_testkit::fixtures().join("mariadb1011/ai_int.ibd");
    let damaged = damaged_copy("mariadb1011/ai_int.ibd", &dir, 5, 16384);
    let opts = Opts::new(
        Cmd::Info,
        vec![clean, damaged.clone()],
        Format::Json,
        Arc::new(ReadHost),
    );
    let server = Server::bind(opts, 0, Limits::default()).unwrap();
    let url = server.url();
    std::thread::spawn(move || server.run());
    let shots = dir.join("shots");
    std::fs::create_dir_all(&shots).unwrap();
    let mut b = Browser::start(&prog, &dir.join("profile"))
        .unwrap_or_else(|e| panic!("the DevTools protocol: {e}"));
    b.call("Network.enable", "{}");
    b.call("Page.enable", "{}");
    let shot = |b: &mut Browser, name: &str| {
        let p = shots.join(format!("{name}.png"));
        b.screenshot(&p);
        println!("screenshot: {}", p.display());
    };

    // The map of the damaged copy: hover cells.
    b.navigate(&format!("{url}#map/1"));
    b.wait(
        "document.querySelector('#map').getAttribute('data-cells')",
        60,
    );
    let pages = b.fetched("/api/file/1/pages");
    let bad = check_damaged(&damaged);
    assert_eq!(bad, vec![5]);
    for page in [5usize, 3, 4, 0] {
        let tip = hover_tip(&mut b, "#map", page, 16.0);
        assert_tip(&tip, &pages, page);
        // The verdict as `check` gives it: only page 5 is damaged.
        assert_eq!(tip[6] == "verdict corrupt", page == 5, "{tip:?}");
        if page == 5 {
            assert_eq!(tip[2], "index PRIMARY", "{tip:?}");
            assert_eq!(tip[3], "level 0", "{tip:?}");
            shot(&mut b, "person-map-hover");
        }
        if page == 3 {
            // The root: one node pointer level above the leaves.
            assert_eq!(tip[3], "level 1", "{tip:?}");
        }
    }
    // Zoomed out (8 pixels a cell), the same cell names the same page.
    b.click_on("#zoom-out");
    b.wait("document.querySelector('#map').width === 64 * 8", 10);
    let tip = hover_tip(&mut b, "#map", 5, 8.0);
    assert_eq!(tip[6], "verdict corrupt", "{tip:?}");
    shot(&mut b, "person-map-zoomed-out");

    // Click the damaged cell: its page view.
    let (x, y) = cell_at(&mut b, "#map", 5, 8.0);
    b.click(x, y);
    b.wait(
        "location.hash === '#page/1/5' && document.getElementById('hex') && document.querySelector('#links a')",
        60,
    );
    let page = b.fetched("/api/file/1/page/5");
    assert_eq!(page.get("verdict").str(), Some("corrupt"));
    let dom_verdict = b.eval(
        "[...document.querySelectorAll('#view table tr')].find(r => r.firstChild.textContent === 'verdict').lastChild.textContent",
    );
    assert_eq!(dom_verdict.str(), Some("corrupt"));
    let links = b.fetched("/api/file/1/links/5");
    assert_eq!(links.get("parent").u64(), Some(3), "{links:?}");
    shot(&mut b, "person-page-5");

    // Hover bytes of the hex view: each names the range the JSON names.
    let ranges = page.get("hex").arr().to_vec();
    assert!(!ranges.is_empty());
    let name_of = |byte: u64| -> String {
        let r = ranges
            .iter()
            .find(|r| r.get("start").u64().unwrap() <= byte && byte < r.get("end").u64().unwrap())
            .unwrap_or_else(|| panic!("byte {byte} in no range"));
        format!(
            "{}  bytes {}..{}",
            r.get("name").text(),
            r.get("start").text(),
            r.get("end").text()
        )
    };
    // FIL_PAGE_OFFSET (4..8), the INDEX header (38..), the first record
    // (the infimum at 99 on a COMPACT page) and the last byte (the trailer).
    for byte in [4u64, 38, 99, 16383] {
        let sel = format!("#hex span:nth-of-type({})", byte + 1);
        let (x, y) = b.centre(&sel);
        b.hover(x, y);
        let want = name_of(byte);
        let got = b.wait(
            &format!(
                "document.getElementById('hex-name').textContent === {0} && document.getElementById('hex-name').textContent",
                support::json::quote(&want)
            ),
            10,
        );
        assert_eq!(got.str(), Some(want.as_str()), "byte {byte}");
        // The byte's range marked, and only it.
        let on = b.eval(&format!(
            "[document.querySelector({}).classList.contains('on'), document.querySelectorAll('#hex span.on').length]",
            support::json::quote(&sel)
        ));
        let r = ranges
            .iter()
            .find(|r| r.get("start").u64().unwrap() <= byte && byte < r.get("end").u64().unwrap())
            .unwrap();
        let len = r.get("end").u64().unwrap() - r.get("start").u64().unwrap();
        assert_eq!(on.at(0), &Json::Bool(true), "byte {byte}");
        assert_eq!(on.at(1).u64(), Some(len), "byte {byte}");
        if byte == 38 {
            shot(&mut b, "person-hex-hover");
        }
    }
    assert!(name_of(4).starts_with("FIL_PAGE_OFFSET"), "{}", name_of(4));

    // Follow the next sibling (FIL_PAGE_NEXT of page 5).
    let next = page.get("fil").get("next").u64().expect("a next sibling");
    b.click_on(&format!("#nav a[href='#page/1/{next}']:last-child"));
    b.wait(
        &format!("location.hash === '#page/1/{next}' && document.querySelector('#view h2').textContent === 'page {next}' && document.getElementById('hex')"),
        60,
    );
    let sib = b.fetched(&format!("/api/file/1/page/{next}"));
    assert_eq!(sib.get("fil").get("prev").u64(), Some(5), "{sib:?}");
    shot(&mut b, "person-sibling");

    // The overview: tick both files, compare them.
    b.navigate(&url);
    b.wait("document.querySelector('#indexes-1') && document.querySelector('#indexes-1').textContent === '1'", 60);
    shot(&mut b, "person-overview");
    b.click_on("input.pick[value='0']");
    b.click_on("input.pick[value='1']");
    b.click_on("#compare");
    b.wait(
        "location.hash === '#compare/0,1' && document.querySelector('#map-1') && document.querySelector('#map-1').getAttribute('data-cells')",
        60,
    );
    // The report (`/api/compare?f=…`), not the picture (`?map=…`).
    let cmp = b.fetched("/api/compare?f=");
    let dom_pages = b.eval(
        "[...document.querySelectorAll('#compare-table tr')].slice(1).map(r => r.children[2].textContent)",
    );
    let want: Vec<Json> = cmp
        .get("files")
        .arr()
        .iter()
        .map(|f| Json::Str(f.get("pages").text()))
        .collect();
    assert_eq!(dom_pages, Json::Arr(want));
    // One scale: both maps the same width; B's page 5 in the damaged red.
    let w =
        b.eval("[document.querySelector('#map-0').width, document.querySelector('#map-1').width]");
    assert_eq!(w.at(0), w.at(1));
    let cells = b.eval(
        "document.querySelector('#map-1').getAttribute('data-cells').split(',')[5].toLowerCase()",
    );
    assert_eq!(cells.str(), Some(palette("damaged").as_str()));
    shot(&mut b, "person-compare");

    // And diff them: page 5 differs, corrupt in B.
    b.navigate(&url);
    b.wait("document.querySelector('input.pick[value=\"1\"]')", 60);
    b.click_on("input.pick[value='0']");
    b.click_on("input.pick[value='1']");
    b.click_on("#diff");
    b.wait(
        "location.hash === '#diff/0/1' && document.querySelector('#diff-pages a')",
        60,
    );
    let diff = b.fetched("/api/diff");
    let first = diff.get("pages").at(0);
    assert_eq!(first.get("page").u64(), Some(5), "{diff:?}");
    let row =
        b.eval("[...document.querySelector('#diff-pages').rows[1].cells].map(c => c.textContent)");
    assert_eq!(row.at(0).str(), Some("5"));
    assert_eq!(row.at(7).str(), first.get("verdict_b").str());
    shot(&mut b, "person-diff");
    drop(b);
    println!("screenshots in {}", shots.display());
}
