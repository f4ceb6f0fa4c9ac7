//! How many times a command reads the file: the passes each command makes,
//! counted through the host (`Host::progress`: within a pass `done` goes
//! up, a new pass starts again from low; `Source::release`: the one-pass
//! commands hand back each byte range as its shard is folded).
//!
//! What ARCHITECTURE.md states and this test holds: the one-pass commands
//! (`check`, `types`, `info`, `lsn`) read every page once: one pass, and
//! every byte of the file released once; every other command over one
//! file reads the model of the file (`Analysis`: the summary, the space
//! map, the B-trees) built once per run, and its passes are pinned here
//! so that a pass added by a change is seen.
#![allow(
    clippy::arithmetic_side_effects,
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::disallowed_macros
)] // Tests print what they counted.

use ibdscope_report::args::{Cmd, DefOpts, Format, Opts, RecordsOpts, RowsOpts};
use ibdscope_report::host::{Host, ReadHost, Source, Unit};
use ibdscope_report::run;
use ibdscope_report::Error;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// What the host saw of one run.
#[derive(Debug, Default)]
struct Seen {
    /// `(done, total)` of each progress report on pages, in order.
    progress: Vec<(u64, u64)>,
    /// `(offset, len)` of each release.
    released: Vec<(usize, usize)>,
}

#[derive(Debug, Default)]
struct Counting {
    seen: Arc<Mutex<Seen>>,
}

struct Counted {
    inner: Box<dyn Source>,
    seen: Arc<Mutex<Seen>>,
}

impl Source for Counted {
    fn bytes(&self) -> &[u8] {
        self.inner.bytes()
    }
    fn release(&self, offset: usize, len: usize) {
        self.seen.lock().unwrap().released.push((offset, len));
    }
}

impl Host for Counting {
    fn open(&self, path: &Path, threads: usize) -> Result<Box<dyn Source>, Error> {
        Ok(Box::new(Counted {
            inner: ReadHost.open(path, threads)?,
            seen: Arc::clone(&self.seen),
        }))
    }
    fn progress(&self, unit: Unit, done: u64, total: u64) {
        if unit == Unit::Pages {
            self.seen.lock().unwrap().progress.push((done, total));
        }
    }
}

/// The passes in a run's progress reports: a report lower than the one
/// before starts a new pass.
fn passes(progress: &[(u64, u64)]) -> usize {
    let mut n = 0;
    let mut last = None;
    for &(done, _) in progress {
        if last.is_none_or(|l| done < l) {
            n += 1;
        }
        last = Some(done);
    }
    n
}

/// Runs `cmd` on `file` with the counting host and `threads` threads.
fn seen(cmd: Cmd, file: &Path, threads: usize) -> Seen {
    let host = Counting::default();
    let seen = Arc::clone(&host.seen);
    let o = Opts {
        threads,
        ..Opts::new(cmd, vec![file.to_path_buf()], Format::Json, Arc::new(host))
    };
    let mut out = Vec::new();
    run(&o, &mut out).expect("writing to a Vec");
    let s = std::mem::take(&mut *seen.lock().unwrap());
    s
}

const FILES: &[&str] = &[
    "mysql56/secondary.ibd",
    "mysql56/ai_int.ibd",
    "mariadb1011/uuid_char36.ibd",
    "mariadb1011-4k/secondary.ibd",
];

fn file(rel: &str) -> PathBuf {
    let p = ibdscope_testkit::fixtures().join(rel);
    assert!(p.is_file(), "{}: committed fixture missing", p.display());
    p
}

#[test]
fn the_one_pass_commands_read_every_page_once() {
    for rel in FILES {
        let path = file(rel);
        let len = std::fs::metadata(&path).unwrap().len() as usize;
        for (name, cmd) in [
            ("check", Cmd::Check),
            ("types", Cmd::Types),
            ("info", Cmd::Info),
            ("lsn", Cmd::Lsn),
        ] {
            for threads in [1, 3] {
                let s = seen(cmd.clone(), &path, threads);
                assert_eq!(passes(&s.progress), 1, "{rel} {name} ({threads} threads)");
                let mut r = s.released.clone();
                r.sort_unstable();
                let mut at = 0;
                for (offset, n) in &r {
                    assert_eq!(*offset, at, "{rel} {name}: bytes released twice or never");
                    at += n;
                }
                assert_eq!(at, len, "{rel} {name}: every byte released once");
            }
        }
    }
}

/// The most passes each command over one file makes today, on every file
/// and thread count: a change that adds one fails here (and says which).
/// The structure commands read the `Analysis`, whose summary, space map
/// and B-trees are each built once per run however often asked; `sdi`
/// reads the SDI pages alone. `records` builds its own B-trees with their
/// leaf chains beside the `Analysis`'s (up to three passes on these
/// files); `rows` builds its own space map and B-trees beside the
/// `Analysis`, then walks one chain (two).
#[test]
fn no_command_makes_more_passes_than_it_does_today() {
    // (command, most passes).
    let cmds: Vec<(&str, Cmd, usize)> = vec![
        ("pages", Cmd::Pages { from: 0, to: None }, 1),
        ("extents", Cmd::Extents, 1),
        ("segments", Cmd::Segments, 1),
        ("lists", Cmd::Lists, 1),
        ("indexes", Cmd::Indexes, 1),
        ("sdi", Cmd::Sdi, 1),
        ("page", Cmd::Page { page: 3 }, 1),
        ("records", Cmd::Records(RecordsOpts::default()), 3),
        ("fill", Cmd::Fill, 1),
        ("schema", Cmd::Schema(DefOpts::default()), 1),
        ("rows", Cmd::Rows(RowsOpts::default()), 2),
    ];
    for rel in FILES {
        let path = file(rel);
        for (name, cmd, most) in &cmds {
            for threads in [1, 3] {
                let s = seen(cmd.clone(), &path, threads);
                let got = passes(&s.progress);
                assert!(
                    got <= *most,
                    "{rel} {name} ({threads} threads): {got} passes, at most {most} before"
                );
            }
        }
    }
}
