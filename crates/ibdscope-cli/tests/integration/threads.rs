//! The parallel scan gives the same bytes as one thread: every command's
//! output and exit code with `--threads 1`, `2` and `7`, on every real file
//! (corpus and fixtures) and on damaged copies of the files that span
//! several shards, with damage on both sides of shard boundaries.

use super::common::{put_u32, real_files, run, scratch};
use ibdscope_core::extents::SpaceMap;
use ibdscope_core::parallel::shard_pages;
use ibdscope_core::{Btrees, Engine, Summary, Tablespace};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

const THREADS: [&str; 3] = ["1", "2", "7"];

fn n_shards(data: &[u8]) -> u32 {
    let ts = Tablespace::new(data).unwrap();
    ts.n_pages().div_ceil(shard_pages(&ts))
}

/// Damaged copies of the real files that span several shards: flipped body
/// bytes in pages just before and after each shard boundary, a foreign
/// space id, a torn tail. Written to scratch files named after `test`
/// (tests run at the same time).
fn damaged_copies(test: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for path in real_files() {
        let data = std::fs::read(&path).unwrap();
        if n_shards(&data) < 2 {
            continue;
        }
        let ts = Tablespace::new(&data).unwrap();
        let size = ts.page_size() as usize;
        let shard = shard_pages(&ts) as usize;
        let n = ts.n_pages() as usize;
        drop(ts);
        let mut d = data.clone();
        for b in (shard..n).step_by(shard) {
            for p in [b - 1, b] {
                d[p * size + size / 2] ^= 0x5A;
            }
        }
        if n > 5 {
            put_u32(&mut d, 5 * size + 34, 4242);
        }
        d.truncate(d.len() - size / 3);
        let name = path
            .to_string_lossy()
            .replace(['/', '\\', '.'], "_")
            .trim_start_matches('_')
            .to_string();
        let file = scratch(&format!("threads-{test}-{name}.ibd"));
        std::fs::write(&file, &d).unwrap();
        out.push(file);
    }
    out
}

/// Runs `args` with each thread count; all must print the same bytes and
/// exit the same way.
fn same_for_every_thread_count(args: &[&str]) {
    let mut first: Option<(Vec<u8>, Option<i32>)> = None;
    for t in THREADS {
        let mut all = vec!["--threads", t];
        all.extend_from_slice(args);
        let o = run(&all);
        let got = (o.stdout, o.status.code());
        match &first {
            None => first = Some(got),
            Some(want) => assert!(
                *want == got,
                "--threads {t} differs from --threads 1 for {args:?}"
            ),
        }
    }
}

#[test]
fn check_is_the_same_on_every_file_at_every_thread_count() {
    let mut files = real_files();
    files.extend(damaged_copies("check"));
    let names: Vec<String> = files.iter().map(|p| p.display().to_string()).collect();
    for fmt in ["text", "json", "jsonl"] {
        let mut args = vec!["check", "--format", fmt];
        args.extend(names.iter().map(String::as_str));
        same_for_every_thread_count(&args);
    }
}

#[test]
fn every_command_is_the_same_on_multi_shard_files() {
    let mut files: Vec<PathBuf> = real_files()
        .into_iter()
        .filter(|p| n_shards(&std::fs::read(p).unwrap()) >= 2)
        .collect();
    assert!(
        files.len() >= 2,
        "the fixtures hold files of several shards (uuid_char36_large, blob)"
    );
    files.extend(damaged_copies("commands"));
    let commands: &[&[&str]] = &[
        &["info"],
        &["info", "--format", "json"],
        &["types"],
        &["types", "--format", "json"],
        &["types", "--format", "csv"],
        &["extents", "--color", "never"],
        &["extents", "--format", "json"],
        &["indexes", "--format", "json"],
        &["indexes"],
        &["segments", "--format", "json"],
        &["lists", "--format", "json"],
    ];
    for f in &files {
        let f = f.display().to_string();
        for cmd in commands {
            let mut args = cmd.to_vec();
            args.push(&f);
            same_for_every_thread_count(&args);
        }
    }
}

#[test]
fn library_passes_join_to_the_sequential_fold() {
    // Summary: the engine's joined shards against the plain iterator fold;
    // SpaceMap and Btrees: every engine against one thread. A release hook
    // changes nothing either, and is told of every page once.
    let mut files = real_files();
    files.extend(damaged_copies("library"));
    for path in files {
        let data = std::fs::read(&path).unwrap();
        let Ok(ts) = Tablespace::new(&data) else {
            continue;
        };
        let one = Engine::default();
        let sequential = format!("{:?}", Summary::of_facts(&ts, ts.scan()));
        let map = SpaceMap::build(&ts, &one);
        let map1 = format!("{map:?}");
        let trees1 = format!("{:?}", Btrees::build(&ts, &one, &map));
        let released = AtomicUsize::new(0);
        let hook = |_: usize, len: usize| {
            released.fetch_add(len, Ordering::Relaxed);
        };
        for threads in [1, 2, 3, 7] {
            let plain = Engine::new(threads);
            for (engine, hooked) in [(plain, false), (plain.with_release(&hook), true)] {
                let what = format!("{} with {engine:?}", path.display());
                released.store(0, Ordering::Relaxed);
                assert_eq!(
                    format!("{:?}", Summary::of(&ts, &engine)),
                    sequential,
                    "{what}"
                );
                // The whole pages, once each (a torn tail is not a page).
                let pages = ts.n_pages() as usize * ts.page_size() as usize;
                let want = if hooked { pages } else { 0 };
                assert_eq!(released.swap(0, Ordering::Relaxed), want, "{what}");
                let map = SpaceMap::build(&ts, &engine);
                assert_eq!(format!("{map:?}"), map1, "{what}");
                assert_eq!(
                    format!("{:?}", Btrees::build(&ts, &engine, &map)),
                    trees1,
                    "{what}"
                );
            }
        }
    }
}

/// The byte ranges of the runs of whole all-zero pages of `data`, as a
/// host that learned them from `SEEK_HOLE` would give them.
fn zero_ranges(data: &[u8], size: usize) -> Vec<std::ops::Range<usize>> {
    let mut out: Vec<std::ops::Range<usize>> = Vec::new();
    for (i, p) in data.chunks_exact(size).enumerate() {
        if p.iter().all(|&b| b == 0) {
            match out.last_mut() {
                Some(r) if r.end == i * size => r.end += size,
                _ => out.push(i * size..(i + 1) * size),
            }
        }
    }
    out
}

/// Pages known to be zero (the holes of a
/// sparse file) are folded a run at a time, and every pass gives what it
/// gives when it reads them: the summary, the space map (an all-zero page
/// in use is still found: pages 3.. zeroed here, PRIMARY's leaves among
/// them), the trees and the audit, on every real file and at every
/// thread count.
#[test]
fn known_zero_pages_fold_as_if_read() {
    for path in real_files() {
        let mut data = std::fs::read(&path).unwrap();
        let Ok(ts) = Tablespace::new(&data) else {
            continue;
        };
        let (size, n) = (ts.page_size() as usize, ts.n_pages() as usize);
        drop(ts);
        if n > 8 {
            data[3 * size..(3 + n / 3) * size].fill(0);
        }
        let zeros = zero_ranges(&data, size);
        let Ok(plain) = Tablespace::new(&data) else {
            continue;
        };
        let holes = plain.clone().with_zero_ranges(&zeros);
        let one = Engine::default();
        let map = SpaceMap::build(&plain, &one);
        let want = (
            format!("{:?}", Summary::of(&plain, &one)),
            format!("{map:?}"),
            format!("{:?}", Btrees::build(&plain, &one, &map)),
            format!("{:?}", ibdscope_forensics::Audit::of(&plain, &one)),
        );
        for threads in [1, 3] {
            let engine = Engine::new(threads);
            let what = format!("{} on {threads} threads", path.display());
            let map = SpaceMap::build(&holes, &engine);
            let got = (
                format!("{:?}", Summary::of(&holes, &engine)),
                format!("{map:?}"),
                format!("{:?}", Btrees::build(&holes, &engine, &map)),
                format!("{:?}", ibdscope_forensics::Audit::of(&holes, &engine)),
            );
            assert!(got.0 == want.0, "{what}: summary");
            assert!(got.1 == want.1, "{what}: space map");
            assert!(got.2 == want.2, "{what}: trees");
            assert!(got.3 == want.3, "{what}: audit");
        }
    }
}
