//! Live inputs: files that shrink, grow or are rewritten while a command
//! reads them, and files that are not regular files. No run may end by a
//! signal or hang; the input is never written; a JSON document stays whole.
//!
//! The binary's test hook `IBDSCOPE_TEST_HOLD=DIR` stops it right after
//! each file is opened and mapped (it creates `DIR/opened-K` and waits for
//! `DIR/go-K`), so the change happens at a chosen moment, between the map
//! and the reads.

use super::common::{fixtures, scratch, Json};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Every command over files, with the formats to try (text and JSON where
/// offered). Each entry is the arguments before the file(s).
fn commands() -> Vec<(&'static str, Vec<&'static str>)> {
    vec![
        ("info", vec!["text", "json"]),
        ("pages", vec!["text", "json"]),
        ("types", vec!["text", "json"]),
        ("check", vec!["text", "json"]),
        ("extents", vec!["text", "json"]),
        ("segments", vec!["text", "json"]),
        ("lists", vec!["text", "json"]),
        ("indexes", vec!["text", "json"]),
        ("records", vec!["text", "json"]),
        ("rows", vec!["text", "json"]),
        ("lsn", vec!["text", "json"]),
        ("fill", vec!["text", "json"]),
        ("sdi", vec!["text", "json"]),
        ("schema", vec!["text", "json"]),
        ("page", vec!["text", "json"]),
        ("audit", vec!["text", "json"]),
        ("compare", vec!["text"]),
        ("diff", vec!["text", "json"]),
    ]
}

/// The arguments of `cmd` over `file` (and `other` where a command takes
/// two files).
fn args(cmd: &str, format: &str, file: &Path, other: &Path) -> Vec<String> {
    let mut a = vec![cmd.to_string()];
    a.push(file.display().to_string());
    match cmd {
        "page" => a.push("3".into()),
        "compare" | "diff" => a.push(other.display().to_string()),
        _ => {}
    }
    a.push("--format".into());
    a.push(format.into());
    a
}

/// Runs the binary with a deadline; kills it and fails the test on a hang.
fn run_bounded(mut cmd: Command, what: &str) -> Output {
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    let child = cmd.spawn().expect("spawn ibdscope");
    wait_bounded(child, what)
}

fn wait_bounded(child: std::process::Child, what: &str) -> Output {
    wait_holding(child, what, |_| false)
}

/// Waits for `child` (60 s at most) while draining its output (a full pipe
/// would stop it), calling `poll` until it says it is done polling.
fn wait_holding(
    mut child: std::process::Child,
    what: &str,
    mut poll: impl FnMut(&mut std::process::Child) -> bool,
) -> Output {
    use std::io::Read;
    let drain = |r: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut v = Vec::new();
            if let Some(mut r) = r {
                let _ = r.read_to_end(&mut v);
            }
            v
        })
    };
    let out = drain(
        child
            .stdout
            .take()
            .map(|r| Box::new(r) as Box<dyn Read + Send>),
    );
    let err = drain(
        child
            .stderr
            .take()
            .map(|r| Box::new(r) as Box<dyn Read + Send>),
    );
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if start.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("{what}: still running after 60 s (a hang)");
        }
        if !poll(&mut child) {
            std::thread::sleep(Duration::from_millis(2));
        }
    };
    Output {
        status,
        stdout: out.join().expect("stdout"),
        stderr: err.join().expect("stderr"),
    }
}

/// What a test does to the file at the first hold.
#[derive(Clone, Copy, Debug)]
enum Change {
    /// Cut to this many bytes.
    Shrink(u64),
    /// Append this many bytes.
    Grow(u64),
    /// Write the same bytes over the file again (the size stays, the
    /// modification time moves).
    Rewrite,
    /// Nothing.
    Nothing,
}

fn apply(change: Change, path: &Path) {
    match change {
        Change::Shrink(n) => {
            let f = std::fs::OpenOptions::new()
                .write(true)
                .open(path)
                .expect("open to cut");
            f.set_len(n).expect("cut");
        }
        Change::Grow(n) => {
            let f = std::fs::OpenOptions::new()
                .write(true)
                .open(path)
                .expect("open to grow");
            let len = f.metadata().expect("meta").len();
            f.set_len(len + n).expect("grow");
        }
        Change::Rewrite => {
            let bytes = std::fs::read(path).expect("read");
            std::thread::sleep(Duration::from_millis(20));
            std::fs::write(path, &bytes).expect("rewrite");
        }
        Change::Nothing => {}
    }
}

/// Runs `args` with the hold hook; applies `change` to `victim` at the
/// first hold and lets every hold go.
fn run_with_change(args: &[String], change: Change, victim: &Path, what: &str) -> Output {
    let hold = scratch(&format!("hold-{}", what.replace([' ', '/'], "_")));
    let _ = std::fs::remove_dir_all(&hold);
    std::fs::create_dir_all(&hold).expect("hold dir");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_ibdscope"));
    cmd.args(args)
        .env("IBDSCOPE_TEST_HOLD", &hold)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let child = cmd.spawn().expect("spawn ibdscope");
    let mut k = 0;
    let out = wait_holding(child, what, |_| {
        if !hold.join(format!("opened-{k}")).exists() {
            return false;
        }
        if k == 0 {
            apply(change, victim);
        }
        std::fs::write(hold.join(format!("go-{k}")), b"").expect("go");
        k += 1;
        true
    });
    assert!(k > 0, "{what}: the binary never opened the file");
    let _ = std::fs::remove_dir_all(&hold);
    out
}

/// A fresh copy of a MariaDB 10.11 fixture (random UUID keys: many index
/// pages, so a cut lands inside the B-tree) with its `.frm` beside it.
fn copy(dir: &str) -> (PathBuf, PathBuf) {
    let d = scratch(dir);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("dir");
    let src = fixtures().join("mariadb1011/uuid_char36.ibd");
    let file = d.join("t.ibd");
    std::fs::copy(&src, &file).expect("copy");
    std::fs::copy(
        fixtures().join("mariadb1011/uuid_char36.frm"),
        d.join("t.frm"),
    )
    .expect("frm");
    let other = d.join("other.ibd");
    std::fs::copy(&src, &other).expect("copy");
    (file, other)
}

/// Checks one run after a change: exit 2 (never a signal), the change
/// named on stderr, a JSON document whole.
fn check_run(out: &Output, format: &str, what: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(2),
        "{what}: status {:?} (a signal has no code); stderr:\n{stderr}",
        out.status
    );
    assert!(
        stderr.contains("changed while it was read"),
        "{what}: the change is not reported; stderr:\n{stderr}"
    );
    whole_json(out, format, what);
    if let Some(kib) = children_max_rss_kib() {
        assert!(kib < 512 << 10, "{what}: peak RSS {kib} KiB");
    }
}

/// With JSON asked, stdout is one whole JSON document.
fn whole_json(out: &Output, format: &str, what: &str) {
    if format == "json" {
        let text = String::from_utf8(out.stdout.clone()).expect("utf-8 JSON");
        assert!(!text.trim().is_empty(), "{what}: no JSON written");
        let _ = Json::parse(&text);
    }
}

#[test]
fn a_file_that_shrinks_while_mapped_is_a_change_not_a_signal() {
    let size = std::fs::metadata(fixtures().join("mariadb1011/uuid_char36.ibd"))
        .expect("fixture")
        .len();
    // The last page gone; a cut in the middle of the B-tree; everything gone.
    for (label, cut) in [
        ("last page", size - 16384),
        ("mid", size / 3 + 100),
        ("all", 0),
    ] {
        for (cmd, formats) in commands() {
            for format in formats {
                let (file, other) = copy("shrink");
                let what = format!("{cmd} --format {format}, cut to {label}");
                let a = args(cmd, format, &file, &other);
                let out = run_with_change(&a, Change::Shrink(cut), &file, &what);
                check_run(&out, format, &what);
            }
        }
    }
}

#[test]
fn a_file_that_grows_or_is_rewritten_during_a_run_is_flagged() {
    for (label, change) in [
        ("grows", Change::Grow(16384)),
        ("rewritten", Change::Rewrite),
    ] {
        for (cmd, formats) in commands() {
            for format in formats {
                let (file, other) = copy("grow");
                let what = format!("{cmd} --format {format}, file {label}");
                let a = args(cmd, format, &file, &other);
                let out = run_with_change(&a, change, &file, &what);
                check_run(&out, format, &what);
                let stderr = String::from_utf8_lossy(&out.stderr);
                match change {
                    Change::Grow(n) => assert!(
                        stderr.contains(&format!(
                            "{} bytes at open, {} now",
                            std::fs::metadata(&other).expect("other").len(),
                            std::fs::metadata(&other).expect("other").len() + n
                        )),
                        "{what}: sizes not given; stderr:\n{stderr}"
                    ),
                    _ => assert!(
                        stderr.contains("modification time moved"),
                        "{what}: stderr:\n{stderr}"
                    ),
                }
            }
        }
    }
}

#[test]
fn a_stable_file_is_not_flagged_as_changed() {
    // The hook holds the run, nothing changes: no change reported, the
    // usual exit status.
    let (file, _) = copy("stable");
    let a = vec!["check".to_string(), file.display().to_string()];
    let out = run_with_change(&a, Change::Nothing, &file, "check, nothing changed");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(!String::from_utf8_lossy(&out.stderr).contains("changed"));
}

#[cfg(unix)]
fn mkfifo(path: &Path) {
    let _ = std::fs::remove_file(path);
    let ok = Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("mkfifo")
        .success();
    assert!(ok, "mkfifo {}", path.display());
}

#[cfg(unix)]
#[test]
fn fifos_and_character_devices_never_hang_a_command() {
    let d = scratch("fifo");
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("dir");
    let fifo = d.join("t.ibd");
    mkfifo(&fifo);
    let other = fixtures().join("mariadb1011/ai_int.ibd");
    for (cmd, formats) in commands() {
        for format in formats {
            for special in [fifo.as_path(), Path::new("/dev/zero")] {
                let what = format!("{cmd} --format {format} on {}", special.display());
                let mut c = Command::new(env!("CARGO_BIN_EXE_ibdscope"));
                c.args(args(cmd, format, special, &other));
                let out = run_bounded(c, &what);
                let stderr = String::from_utf8_lossy(&out.stderr);
                assert_eq!(out.status.code(), Some(2), "{what}: {stderr}");
                let said = if special.starts_with("/dev") {
                    "not a regular file (a character device)"
                } else if cmd == "audit" {
                    "not a regular file (a FIFO or pipe)"
                } else {
                    // A pipe named on the command line is read as a
                    // stream; with no writer it ends at once.
                    "the stream ended before its first byte"
                };
                assert!(stderr.contains(said), "{what}: stderr:\n{stderr}");
                whole_json(&out, format, &what);
            }
        }
    }
}

#[cfg(unix)]
#[test]
fn audit_of_a_datadir_with_a_fifo_gives_that_file_a_verdict() {
    let d = scratch("fifo-datadir");
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("dir");
    std::fs::copy(
        fixtures().join("mariadb1011/ai_int.ibd"),
        d.join("ai_int.ibd"),
    )
    .expect("copy");
    mkfifo(&d.join("p.ibd"));
    mkfifo(&d.join("ib_logfile0"));
    let mut c = Command::new(env!("CARGO_BIN_EXE_ibdscope"));
    c.args(["audit", &d.display().to_string()]);
    let out = run_bounded(c, "audit of a datadir with FIFOs");
    let text = String::from_utf8_lossy(&out.stdout);
    // One finding (the FIFO's verdict), not a tree that could not be read.
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("p.ibd: unreadable: not a regular file"),
        "{text}"
    );
    assert!(text.contains("ai_int.ibd: clean"), "{text}");
}

#[test]
fn a_stream_on_standard_input_reads_as_the_file_does() {
    // A copy without the `.frm` beside it: a stream has none (index names).
    let d = scratch("stdin-stream");
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("dir");
    let file = d.join("ai_int.ibd");
    std::fs::copy(fixtures().join("mariadb1011/ai_int.ibd"), &file).expect("copy");
    let bytes = std::fs::read(&file).expect("fixture");
    for cmd in ["check", "types", "pages", "lsn", "info"] {
        let want = Command::new(env!("CARGO_BIN_EXE_ibdscope"))
            .args([cmd, &file.display().to_string(), "--format", "json"])
            .output()
            .expect("run");
        let mut child = Command::new(env!("CARGO_BIN_EXE_ibdscope"))
            .args([cmd, "-", "--format", "json"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn");
        let mut stdin = child.stdin.take().expect("stdin");
        let feed = bytes.clone();
        let writer = std::thread::spawn(move || {
            use std::io::Write;
            // A slow writer: the pipe is read to its end, not to its first gap.
            for chunk in feed.chunks(40_000) {
                stdin.write_all(chunk).expect("feed");
                std::thread::sleep(Duration::from_millis(3));
            }
        });
        let got = wait_bounded(child, cmd);
        writer.join().expect("writer");
        assert_eq!(got.status.code(), want.status.code(), "{cmd}");
        let name = file.display().to_string();
        let want = String::from_utf8_lossy(&want.stdout).replace(&name, "-");
        assert_eq!(String::from_utf8_lossy(&got.stdout), want, "{cmd}");
    }
}

/// The largest resident set of any child of this process waited for so
/// far, in KiB (`getrusage(RUSAGE_CHILDREN)`, Linux x86_64/aarch64 layout).
#[cfg(all(
    target_os = "linux",
    any(target_arch = "x86_64", target_arch = "aarch64")
))]
fn children_max_rss_kib() -> Option<u64> {
    #[repr(C)]
    struct Rusage {
        utime: [i64; 2],
        stime: [i64; 2],
        maxrss: i64,
        rest: [i64; 13],
    }
    extern "C" {
        fn getrusage(who: i32, usage: *mut Rusage) -> i32;
    }
    const RUSAGE_CHILDREN: i32 = -1;
    let mut r = Rusage {
        utime: [0; 2],
        stime: [0; 2],
        maxrss: 0,
        rest: [0; 13],
    };
    // SAFETY: a valid out-pointer of the kernel's `struct rusage` layout.
    let rc = unsafe { getrusage(RUSAGE_CHILDREN, &mut r) };
    (rc == 0).then(|| u64::try_from(r.maxrss).unwrap_or(0))
}

#[cfg(not(all(
    target_os = "linux",
    any(target_arch = "x86_64", target_arch = "aarch64")
)))]
fn children_max_rss_kib() -> Option<u64> {
    None
}

/// Page 0 of a real file followed by a hole: 4 GiB apparent, 16 KiB of
/// data. Memory follows the data, not the size the file claims (the
/// structure commands took 15-17 GB here when they read the holes, and the
/// page_compressed image was allocated at the apparent size).
#[test]
fn a_sparse_file_of_huge_apparent_size_costs_memory_for_its_data_only() {
    const APPARENT: u64 = 4 << 30;
    const LIMIT_KIB: u64 = 512 << 10;
    let d = scratch("sparse");
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("dir");
    for src in ["mariadb1011/pagecomp.ibd", "mariadb1011/ai_int.ibd"] {
        let bytes = std::fs::read(fixtures().join(src)).expect("fixture");
        let file = d.join("sparse.ibd");
        std::fs::write(&file, &bytes[..16384]).expect("page 0");
        std::fs::OpenOptions::new()
            .write(true)
            .open(&file)
            .expect("open")
            .set_len(APPARENT)
            .expect("hole");
        let stamp = std::fs::metadata(&file).expect("meta").modified().ok();
        for (cmd, _) in commands() {
            if matches!(cmd, "pages" | "records" | "compare" | "diff") {
                // `pages` prints a line per page (half a million here);
                // compare and diff take two files.
                continue;
            }
            let what = format!("{cmd} on {src} cut to page 0, {APPARENT} bytes apparent");
            let mut c = Command::new(env!("CARGO_BIN_EXE_ibdscope"));
            c.args(args(cmd, "json", &file, &file));
            let out = run_bounded(c, &what);
            assert!(out.status.code().is_some(), "{what}: {:?}", out.status);
            if let Some(kib) = children_max_rss_kib() {
                assert!(kib < LIMIT_KIB, "{what}: peak RSS {kib} KiB");
            }
        }
        assert_eq!(
            std::fs::metadata(&file).expect("meta").modified().ok(),
            stamp,
            "the input was written"
        );
    }
    if children_max_rss_kib().is_none() {
        eprintln!("getrusage is not read on this platform: peak memory not checked");
    }
}

/// A whole real table (MySQL 5.6 `fx/ai_int`,
/// 19 pages) extended by `set_len` to 15 TiB (or, where the filesystem
/// refuses that, to 1 TiB or 64 GiB: said on stderr): its holes are
/// known zeros, folded a run at a time, so every command finishes in the
/// time of its 19 pages of data (it took 4-10 s per command at 64 GiB
/// and about 17 minutes at 15 TiB, reading every page of the holes; the
/// deadline here is 60 s a command). The server takes a file longer than
/// its FSP_SIZE as it is (`fil_node_open_file`, MySQL 5.6 `fil0fil.cc`:
/// the size is the file's), so the copy is clean, the pages past the
/// data empty, and the table's rows the server's 3,000
/// (fixtures/manifest.tsv).
#[test]
fn time_follows_the_data_of_a_sparse_file_not_its_apparent_size() {
    let d = scratch("sparse-time");
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("dir");
    let src = fixtures().join("mysql56/ai_int.ibd");
    let bytes = std::fs::read(&src).expect("fixture");
    let make = |name: &str, len: u64| -> bool {
        let file = d.join(format!("{name}.ibd"));
        std::fs::write(&file, &bytes).expect("copy");
        std::fs::copy(
            fixtures().join("mysql56/ai_int.frm"),
            d.join(format!("{name}.frm")),
        )
        .expect("frm");
        std::fs::OpenOptions::new()
            .write(true)
            .open(&file)
            .expect("open")
            .set_len(len)
            .is_ok()
    };
    let Some(apparent) = [15u64 << 40, 1 << 40, 64 << 30]
        .into_iter()
        .find(|&len| make("a", len) && make("b", len))
    else {
        panic!("the scratch filesystem takes no sparse file of 64 GiB");
    };
    if apparent != 15 << 40 {
        eprintln!("the scratch filesystem refuses 15 TiB: tested at {apparent} bytes");
    }
    let (a, b) = (d.join("a.ibd"), d.join("b.ibd"));
    let pages = apparent / 16384;
    let run = |args: &[&str]| -> Output {
        let mut c = Command::new(env!("CARGO_BIN_EXE_ibdscope"));
        c.args(args);
        let what = format!("{args:?} at {apparent} bytes apparent");
        let out = run_bounded(c, &what);
        if let Some(kib) = children_max_rss_kib() {
            assert!(kib < 512 << 10, "{what}: peak RSS {kib} KiB");
        }
        out
    };
    let (fa, fb) = (a.to_str().unwrap(), b.to_str().unwrap());
    for cmd in [
        "info", "types", "extents", "segments", "lists", "indexes", "fill", "lsn", "records",
    ] {
        for format in ["text", "json"] {
            let o = run(&[cmd, fa, "--format", format]);
            assert_eq!(o.status.code(), Some(0), "{cmd} {format}: {o:?}");
        }
    }
    let o = run(&["check", fa, "--format", "json"]);
    assert_eq!(o.status.code(), Some(0), "check");
    let j = Json::parse(&String::from_utf8_lossy(&o.stdout));
    assert_eq!(j.get("pages").u64(), pages);
    assert!(j.get("invalid").arr().is_empty());
    let o = run(&["audit", fa, "--format", "json"]);
    assert_eq!(o.status.code(), Some(0), "audit");
    let j = Json::parse(&String::from_utf8_lossy(&o.stdout));
    let f = &j.get("files").arr()[0];
    assert_eq!(f.get("verdict").str(), "clean");
    assert_eq!(f.get("pages").u64(), pages);
    let o = run(&["rows", fa, "--format", "tsv"]);
    assert_eq!(o.status.code(), Some(0), "rows");
    assert_eq!(o.stdout.iter().filter(|&&c| c == b'\n').count(), 3000);
    // `pages`: the hole in one line after its first page.
    let o = run(&["pages", fa]);
    assert_eq!(o.status.code(), Some(0), "pages");
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.lines().count() < 200,
        "pages: {} lines",
        text.lines().count()
    );
    assert!(text.contains("a hole of the file"), "{text}");
    let o = run(&["compare", fa, fb]);
    assert_eq!(o.status.code(), Some(0), "compare");
    let o = run(&["diff", fa, fb, "--format", "json"]);
    assert_eq!(o.status.code(), Some(0), "diff: {o:?}");
}
