//! Memory stays flat in the file's size for every command: the binary's
//! resident set (mapped file pages and private memory, sampled from
//! `/proc/PID/status`) on a file padded to 320 MiB stays well under it
//! (a bound of 128 MiB: the folds' shards in flight, the window's chunks,
//! the binary itself). Each whole-file pass hands its shards back as it joins them, and
//! the space's window releases what the walks (the B-trees, the leaf
//! chains, the maps' pages) leave behind. Before, every command but
//! `check`, `types`, `info` and `lsn` kept the whole file mapped: its
//! resident set grew to the file's size. Where there is no `/proc`, the
//! test says so and checks nothing.

use super::common::{fixtures, scratch};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

/// `RssFile + RssAnon` of process `pid` in KiB, if it can be read.
fn resident_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let field = |name: &str| -> Option<u64> {
        let line = status.lines().find(|l| l.starts_with(name))?;
        line.split_whitespace().nth(1)?.parse().ok()
    };
    Some(field("RssFile:")? + field("RssAnon:")?)
}

/// Runs the binary with `args` and returns the largest resident set seen
/// while it ran (KiB), sampling every millisecond.
fn peak_resident_kib(args: &[&str]) -> u64 {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ibdscope"))
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("run ibdscope");
    let mut peak = 0;
    loop {
        if let Some(kib) = resident_kib(child.id()) {
            peak = peak.max(kib);
        }
        if child.try_wait().expect("wait").is_some() {
            return peak;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}

#[test]
fn no_command_holds_a_padded_file_resident() {
    if !Path::new("/proc/self/status").exists() {
        eprintln!("memory: no /proc, not measured");
        return;
    }
    let src = fixtures().join("mariadb1011/uuid_char36_large.ibd");
    let mut data = std::fs::read(&src).expect("fixture");
    let file_mib = 320;
    data.resize(file_mib << 20, 0);
    let big = scratch("padded-320m.ibd");
    std::fs::write(&big, &data).expect("write the padded copy");
    drop(data);
    let f = big.to_str().expect("utf-8 path");
    let runs: [&[&str]; 13] = [
        &["check", f],
        &["info", f],
        &["pages", f],
        &["extents", f],
        &["segments", f],
        &["lists", f],
        &["indexes", f],
        &["indexes", "--levels", f],
        &["fill", f],
        &["records", f],
        &["rows", f],
        &["audit", f],
        &["compare", f, f],
    ];
    // The shards the folds have in flight (up to 64 MiB ahead), the
    // window's 48 chunks, the binary itself: not the file.
    let bound_kib = 128 << 10;
    for threads in ["1", "2"] {
        for args in runs {
            let mut a = vec!["--threads", threads];
            a.extend_from_slice(args);
            let peak = peak_resident_kib(&a);
            eprintln!("{a:?}: peak resident {} KiB", peak);
            assert!(
                peak < bound_kib,
                "{a:?}: {peak} KiB resident on a {file_mib} MiB file (bound {bound_kib} KiB)"
            );
        }
    }
    let _ = std::fs::remove_file(&big);
}
