//! How many times a command reads the file: the passes each command makes,
//! counted through the host (`Host::progress`: within a pass `done` goes
//! up, a new pass starts again from low; `Source::release`: every command
//! hands back each byte range as its shard is folded, and the walks what
//! they leave behind).
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
use ibdscope_report::host::Error;
use ibdscope_report::host::{Host, ReadHost, Source, Unit};
use ibdscope_report::run;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

mod unpack;
use unpack::unpack;

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
    seen_on(cmd, &[file.to_path_buf()], threads, |o| o)
}

/// Runs `cmd` on `files` with the counting host and `threads` threads,
/// its options changed by `with`.
fn seen_on(cmd: Cmd, files: &[PathBuf], threads: usize, with: impl FnOnce(Opts) -> Opts) -> Seen {
    let host = Counting::default();
    let seen = Arc::clone(&host.seen);
    let o = with(Opts {
        threads,
        ..Opts::new(cmd, files.to_vec(), Format::Json, Arc::new(host))
    });
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

/// Files of several shards (a pass reports each shard as it joins).
const LARGE: &[&str] = &[
    "mysql56/uuid_char36_large.ibd",
    "mariadb1011/uuid_char36_large.ibd",
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

/// Whether the ranges `released` cover every byte of `0..len` (each at
/// least once): the byte that is never released, if any.
fn first_unreleased(released: &[(usize, usize)], len: usize) -> Option<usize> {
    let mut r = released.to_vec();
    r.sort_unstable();
    let mut at = 0;
    for (offset, n) in r {
        if offset > at {
            return Some(at);
        }
        at = at.max(offset + n);
    }
    (at < len).then_some(at)
}

/// Every command that reads a whole file hands every byte of it back to
/// the host (`Source::release`) as its passes and walks move on, not only
/// the one-pass commands: the mapping of a file of any size is dropped
/// behind the folds (each shard once its fold is joined) and the walks
/// (the space's window), so no command keeps the file mapped whole. Before,
/// the structure commands released nothing and kept the file mapped.
#[test]
fn every_whole_file_command_releases_every_byte() {
    let cmds: Vec<(&str, Cmd)> = vec![
        ("pages", Cmd::Pages { from: 0, to: None }),
        ("extents", Cmd::Extents),
        ("segments", Cmd::Segments),
        ("lists", Cmd::Lists),
        ("indexes", Cmd::Indexes),
        ("fill", Cmd::Fill),
        ("records", Cmd::Records(RecordsOpts::default())),
        ("rows", Cmd::Rows(RowsOpts::default())),
        ("audit", Cmd::Audit),
    ];
    for rel in FILES.iter().chain(LARGE) {
        let path = file(rel);
        let len = std::fs::metadata(&path).unwrap().len() as usize;
        for threads in [1, 3] {
            for (name, cmd) in &cmds {
                let s = seen(cmd.clone(), &path, threads);
                assert_eq!(
                    first_unreleased(&s.released, len),
                    None,
                    "{rel} {name} ({threads} threads): a byte never released"
                );
            }
            let two = [path.clone(), path.clone()];
            for (name, cmd) in [("compare", Cmd::Compare), ("diff", Cmd::Diff)] {
                let s = seen_on(cmd, &two, threads, |o| o);
                assert_eq!(
                    first_unreleased(&s.released, len),
                    None,
                    "{rel} {name} ({threads} threads): a byte never released"
                );
            }
        }
    }
}

/// The most passes each command over one file makes today, on every file
/// and thread count: a change that adds one fails here (and says which).
/// The structure commands read the `Analysis`, whose summary, space map
/// and B-trees are each built once per run however often asked; `sdi`
/// reads the SDI pages alone. `records` walks each index's leaf chain
/// (up to three passes on these files); `rows` walks one chain (two).
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

/// The commands the test above does not run, each on what it reads: one
/// file (`audit`, `indexes --levels`), two copies of one (`diff`,
/// `compare`). The most passes each makes today, on files of many shards
/// (on a file of one shard a pass reports only its end, and the passes
/// after the first are not seen) and every thread count. The space map's
/// first pass (the roots') keeps every page's head, and with the B-trees
/// the record walks summed per index and level (`facts.rs`), which its
/// index pass and the trees' member pass read instead of the pages: one
/// pass over the file, the summary folded in it. `audit` makes one (its
/// summary: the page verdicts, the torn bound, the stale rule, the
/// sibling links); `indexes`, `indexes --levels`, `segments`, `lists`
/// one; `fill` then walks the owner map for its fill map (two: each page's
/// type and fill read from the facts the map's pass kept, no page read),
/// `extents` for its counts and again for its map (three); `diff` three,
/// `compare` four (each copy's one pass, then the walk of its owner map
/// for its map). What these counts do not see, the reads outside the
/// passes that report no progress (the walks', the maps' per page), is
/// held by `facts::tests::the_walks_and_the_maps_read_no_page_the_first_pass_kept`
/// in the core. Before the facts: `audit`,
/// `indexes`, `segments`, `lists` two, `fill` three, `extents` four,
/// `diff` five, `compare` ten; before the summary was folded in the map,
/// `audit` three, `indexes` four, `fill` five.
/// `diff` reads each copy's model (its summary folded in its space
/// map's first pass, the map handed to the diff); `compare` each file's
/// model with its B-trees folded in (`Analysis::reading_trees`).
#[test]
fn the_other_commands_make_no_more_passes_than_they_do_today() {
    // Files of many shards: every pass reports its progress from low.
    for rel in LARGE {
        let path = file(rel);
        let two = [path.clone(), path.clone()];
        for threads in [1, 3] {
            let runs: [(&str, Seen, usize); 9] = [
                ("audit", seen(Cmd::Audit, &path, threads), 1),
                (
                    "indexes --levels",
                    seen_on(Cmd::Indexes, std::slice::from_ref(&path), threads, |o| {
                        Opts { levels: true, ..o }
                    }),
                    1,
                ),
                ("indexes", seen(Cmd::Indexes, &path, threads), 1),
                ("fill", seen(Cmd::Fill, &path, threads), 2),
                ("extents", seen(Cmd::Extents, &path, threads), 3),
                ("segments", seen(Cmd::Segments, &path, threads), 1),
                ("lists", seen(Cmd::Lists, &path, threads), 1),
                ("diff", seen_on(Cmd::Diff, &two, threads, |o| o), 3),
                ("compare", seen_on(Cmd::Compare, &two, threads, |o| o), 4),
            ];
            for (name, s, most) in runs {
                let got = passes(&s.progress);
                eprintln!("{rel} {name} ({threads} threads): {got} passes");
                assert!(
                    got <= most,
                    "{rel} {name} ({threads} threads): {got} passes, at most {most} before"
                );
            }
        }
    }
}

/// `pages` reads the file once: the summary's pass (its own, or the
/// space map's first when a `.frm` beside the file needs the map for the
/// index names) keeps what each page's row shows, and the rows are written
/// from that, no page read again; every byte of the file is released once.
/// On files of many shards (each pass reports its progress from low), with
/// their `.frm` and a copy without, in every format, at 1 and 3 threads.
/// Before, the listing was a second pass over the pages (two passes, every
/// byte released twice; three with the `.frm`'s map).
#[test]
fn pages_reads_the_file_once() {
    let dir = std::env::temp_dir().join(format!("ibdscope-passes-pages-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for rel in LARGE {
        let path = file(rel);
        assert!(path.with_extension("frm").is_file(), "{rel}: its .frm");
        let alone = dir.join(rel.replace('/', "-"));
        std::fs::copy(&path, &alone).unwrap();
        let len = std::fs::metadata(&path).unwrap().len() as usize;
        for (what, p) in [("with its .frm", &path), ("alone", &alone)] {
            for format in [Format::Text, Format::Csv, Format::Json] {
                for threads in [1, 3] {
                    let s = seen_on(
                        Cmd::Pages { from: 0, to: None },
                        std::slice::from_ref(p),
                        threads,
                        |o| Opts { format, ..o },
                    );
                    let got = passes(&s.progress);
                    let at = format!("{rel} {what} {format:?} ({threads} threads)");
                    assert_eq!(got, 1, "{at}: {got} passes");
                    let mut r = s.released.clone();
                    r.sort_unstable();
                    let mut end = 0;
                    for (offset, n) in &r {
                        assert_eq!(*offset, end, "{at}: bytes released twice or never");
                        end += n;
                    }
                    assert_eq!(end, len, "{at}: every byte released once");
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `audit` of a file of more than 4,096 pages (a copy of a 4 KiB-page
/// fixture with zero pages appended, 20 MiB): one pass, the summary
/// folded in the space map's first, whose facts the map reads instead of
/// a second. Before, two (the map's two); before that its own scan
/// (reporting every 4,096th page) came first, and the host saw three.
#[test]
fn audit_reads_the_file_once() {
    let src = file("mariadb1011-4k/secondary.ibd");
    let dir = std::env::temp_dir().join(format!("ibdscope-passes-grown-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let grown = dir.join("secondary.ibd");
    let mut data = std::fs::read(&src).unwrap();
    data.resize(5000 * 4096, 0);
    std::fs::write(&grown, &data).unwrap();
    for threads in [1, 3] {
        let got = passes(&seen(Cmd::Audit, &grown, threads).progress);
        assert_eq!(got, 1, "audit ({threads} threads): {got} passes");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The datadir commands, on the fixtures' datadirs: the most passes each
/// makes today that the host sees. `tables`, `undo`, `restore` and the
/// audit of a datadir report no page progress (the audit of several files
/// reports files), so none is seen; `history` reports its walk of the
/// clustered index's rows, one.
#[test]
fn the_datadir_commands_make_no_more_passes_than_they_do_today() {
    use ibdscope_report::args::{HistoryOpts, RestoreOpts};
    let scratch = std::env::temp_dir().join(format!("ibdscope-passes-{}", std::process::id()));
    let history = unpack(&scratch, "history/mysql56");
    let torn = unpack(&scratch, "dblwr/mysql56-torn");
    let out = torn.join("restored.ibd");
    let h = history.join("fx/h.ibd");
    let t = torn.join("fx/t.ibd");
    for threads in [1, 3] {
        let runs: [(&str, Seen, usize); 5] = [
            (
                "tables",
                seen_on(Cmd::Tables, std::slice::from_ref(&history), threads, |o| o),
                0,
            ),
            (
                "undo",
                seen_on(Cmd::Undo, std::slice::from_ref(&history), threads, |o| o),
                0,
            ),
            (
                "history",
                seen_on(
                    Cmd::History(HistoryOpts {
                        datadir: Some(history.clone()),
                        ..HistoryOpts::default()
                    }),
                    std::slice::from_ref(&h),
                    threads,
                    |o| o,
                ),
                1,
            ),
            (
                "restore",
                seen_on(
                    Cmd::Restore(RestoreOpts {
                        datadir: Some(torn.clone()),
                        out: out.clone(),
                        force: true,
                    }),
                    std::slice::from_ref(&t),
                    threads,
                    |o| o,
                ),
                0,
            ),
            (
                "audit DATADIR",
                seen_on(Cmd::Audit, std::slice::from_ref(&torn), threads, |o| o),
                0,
            ),
        ];
        for (name, s, most) in runs {
            let got = passes(&s.progress);
            eprintln!("{name} ({threads} threads): {got} passes");
            assert!(
                got <= most,
                "{name} ({threads} threads): {got} passes, at most {most} before"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
}

/// The whole-file passes in a run's progress reports: each ends with one
/// report of all the file's pages done (a walk of part of the pages, a
/// leaf chain, ends at its own total).
fn whole_file_passes(progress: &[(u64, u64)], n_pages: u64) -> usize {
    (progress.iter())
        .filter(|&&(done, total)| done == total && total == n_pages)
        .count()
}

/// `rows` and `records` read the leaf chains of the run's `Analysis`
/// (its summary, space map and B-trees, each built once), so they make no
/// more whole-file passes than `indexes`, which reads the same model.
#[test]
fn rows_and_records_take_their_trees_from_the_one_analysis() {
    for rel in FILES {
        let path = file(rel);
        let n_pages = std::fs::metadata(&path).unwrap().len() / page_size(rel);
        for threads in [1, 3] {
            let model = whole_file_passes(&seen(Cmd::Indexes, &path, threads).progress, n_pages);
            assert!(model > 0, "{rel}: indexes makes no whole-file pass");
            for (name, cmd) in [
                ("rows", Cmd::Rows(RowsOpts::default())),
                ("records", Cmd::Records(RecordsOpts::default())),
            ] {
                let got = whole_file_passes(&seen(cmd, &path, threads).progress, n_pages);
                assert!(
                    got <= model,
                    "{rel} {name} ({threads} threads): {got} whole-file passes, indexes {model}"
                );
            }
        }
    }
}

/// The page size of a fixture (its directory says).
fn page_size(rel: &str) -> u64 {
    if rel.contains("-4k/") {
        4096
    } else {
        16384
    }
}
