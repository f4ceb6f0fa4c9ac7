//! The application in a real browser: headless Chromium (Debian
//! `chromium`) opens the overview, a map, a page and the index levels of a
//! fixture served by the server, and the test asserts on the DOM each view
//! built from the JSON it fetched (`--dump-dom` after the scripts ran).
//! Screenshots of each view are kept in `CARGO_TARGET_TMPDIR/serve-shots`
//! for a person to look at. Skips, saying so loudly, when no browser runs.
#![allow(
    clippy::arithmetic_side_effects,
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::disallowed_macros
)]

use ibdscope_report::args::{Cmd, Format, Opts};
use ibdscope_report::host::ReadHost;
use ibdscope_serve::{Limits, Server};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

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

fn chromium(prog: &str, profile: &Path, extra: &[String], url: &str) -> String {
    let out = Command::new(prog)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            "--no-first-run",
            "--window-size=1100,800",
            "--virtual-time-budget=8000",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(extra)
        .arg(url)
        .output()
        .expect("run the browser");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn the_views_render_in_headless_chromium() {
    let Some(prog) = browser() else { return };
    let dir = std::env::temp_dir().join(format!("ibdscope-browser-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // A damaged copy beside the clean file: 8 bytes planted in page 5 (the
    // MariaDB 10.11 fixture, 16 KiB pages).
    let clean = ibdscope_testkit::fixtures().join("mariadb1011/ai_int.ibd");
    let damaged = dir.join("ai_int.ibd");
    let mut bytes = std::fs::read(&clean).unwrap();
    bytes[5 * 16384 + 2000..5 * 16384 + 2008]
        .copy_from_slice(&[0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4]);
    std::fs::write(&damaged, &bytes).unwrap();
    // Its definition beside it, which names its indexes.
    std::fs::copy(clean.with_extension("frm"), dir.join("ai_int.frm")).unwrap();
    let files: Vec<PathBuf> = vec![clean, damaged];
    let opts = Opts::new(Cmd::Info, files, Format::Json, Arc::new(ReadHost));
    let server = Server::bind(opts, 0, Limits::default()).unwrap();
    let url = server.url();
    std::thread::spawn(move || server.run());

    let shots = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("serve-shots");
    std::fs::create_dir_all(&shots).unwrap();
    let profile = dir.join("profile");
    let view = |hash: &str| {
        let u = format!("{url}#{hash}");
        let name = if hash.is_empty() {
            "overview".to_string()
        } else {
            hash.replace('/', "_")
        };
        let shot = shots.join(format!("{name}.png"));
        chromium(
            &prog,
            &profile,
            &[format!("--screenshot={}", shot.display())],
            &u,
        );
        chromium(&prog, &profile, &["--dump-dom".to_string()], &u)
    };

    let overview = view("");
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

    let map = view("map/1");
    assert!(map.contains("<canvas id=\"map\""), "{map}");
    assert!(map.contains("19 pages, 64 per row"), "{map}");
    assert!(map.contains("PRIMARY"), "{map}");

    // The damaged page: the verdict `check` gives it (corrupt).
    let page = view("page/1/5");
    assert!(page.contains("<th>verdict</th><td>corrupt</td>"), "{page}");
    assert!(page.contains("id=\"hex\""), "{page}");
    assert!(page.contains("FIL_PAGE_OFFSET"), "{page}");
    assert!(
        page.contains("href=\"#page/1/6\""),
        "a link to the next sibling: {page}"
    );

    let levels = view("levels/0");
    assert!(levels.contains("PRIMARY (id 23, root "), "{levels}");
    println!("screenshots in {}", shots.display());
    let _ = std::fs::remove_dir_all(&dir);
}
