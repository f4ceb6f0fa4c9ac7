//! Golden outputs, in process: every command's printers (text, JSON, and
//! CSV / TSV / SQL where the command offers them) on real-server files,
//! compared byte for byte with `fixtures/expected/`. After a deliberate
//! change of output, regenerate with `IBDSCOPE_UPDATE_GOLDEN=1 cargo test
//! -p ibdscope-report --test golden` and review the diff.
//!
//! The single-file and two-file commands run from the workspace root so
//! that the file names the outputs print are the same relative names as on
//! a command line there. The commands that read a whole datadir (`tables`,
//! `undo`, `history`, `restore`) run on the fixtures' datadir archives
//! unpacked into a scratch folder, whose path the goldens write
//! `<scratch>`; their goldens hold stderr too, and the values the servers
//! wrote down (`fixtures/history`, `fixtures/dblwr`) are checked in them.
#![allow(
    clippy::disallowed_macros, // Tests print what they skipped.
    clippy::arithmetic_side_effects,
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic
)]

use ibdscope_report::args::{
    Cmd, Color, DefOpts, Format, HistoryOpts, Opts, RecordsOpts, RestoreOpts, RowsOpts,
};
use ibdscope_report::host::ReadHost;
use ibdscope_report::run;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Files every single-file command runs on (the corpus file only when the
/// corpus is beside the checkout).
const FILES: &[&str] = &[
    "fixtures/mysql56/ai_int.ibd",
    "fixtures/mysql56/secondary.ibd",
    "fixtures/mariadb1011/uuid_char36.ibd",
    "fixtures/mariadb1011-4k/secondary.ibd",
    "fixtures/mariadb1011-64k/ai_int.ibd",
    "../shared/corpus/mysql-8.4/sakila_mysql8403_film.ibd",
];

/// Files `rows` and `schema` run on: small tables, every value type (off-page
/// values cut at 64 bytes). No corpus file: its rows are not ours to copy.
const ROW_FILES: &[&str] = &[
    "fixtures/mysql56/types.ibd",
    "fixtures/mysql56/one_row.ibd",
    "fixtures/mysql56/secondary.ibd",
    "fixtures/mariadb1011/types.ibd",
];

const TEXT_JSON: &[Format] = &[Format::Text, Format::Json];
const TEXT_JSON_CSV: &[Format] = &[Format::Text, Format::Json, Format::Csv];

fn ext(f: Format) -> &'static str {
    match f {
        Format::Text => "txt",
        Format::Json => "json",
        Format::Jsonl => "jsonl",
        Format::Csv => "csv",
        Format::Tsv => "tsv",
        Format::Sql => "sql",
        _ => "out",
    }
}

fn opts(cmd: Cmd, files: &[&str], format: Format) -> Opts {
    Opts {
        threads: 2,
        ..Opts::new(
            cmd,
            files.iter().map(PathBuf::from).collect(),
            format,
            Arc::new(ReadHost),
        )
    }
}

/// One case: a golden name, the options, and the formats to print.
struct Case {
    name: String,
    cmd: fn() -> Cmd,
    files: Vec<&'static str>,
    formats: &'static [Format],
}

fn golden_name(file: &str) -> String {
    let parts: Vec<&str> = file.rsplit('/').take(2).collect();
    format!("{}__{}", parts[1], parts[0])
}

fn cases(corpus: bool) -> Vec<Case> {
    type C = (&'static str, fn() -> Cmd, &'static [Format]);
    let single: &[C] = &[
        ("info", || Cmd::Info, TEXT_JSON),
        (
            "pages",
            || Cmd::Pages {
                from: 0,
                to: Some(15),
            },
            &[Format::Text, Format::Json, Format::Jsonl, Format::Csv],
        ),
        (
            "types",
            || Cmd::Types,
            &[Format::Text, Format::Json, Format::Csv],
        ),
        (
            "check",
            || Cmd::Check,
            &[Format::Text, Format::Json, Format::Jsonl, Format::Csv],
        ),
        ("extents", || Cmd::Extents, TEXT_JSON_CSV),
        ("segments", || Cmd::Segments, TEXT_JSON_CSV),
        ("lists", || Cmd::Lists, TEXT_JSON),
        ("indexes", || Cmd::Indexes, TEXT_JSON_CSV),
        ("sdi", || Cmd::Sdi, TEXT_JSON),
        // The root page of the first index (page 3 in every file here).
        ("page", || Cmd::Page { page: 3 }, TEXT_JSON),
        (
            "records",
            || {
                Cmd::Records(RecordsOpts {
                    page: Some(3),
                    ..RecordsOpts::default()
                })
            },
            &[Format::Text, Format::Json, Format::Jsonl, Format::Csv],
        ),
        ("lsn", || Cmd::Lsn, TEXT_JSON),
        ("fill", || Cmd::Fill, TEXT_JSON),
        (
            "audit",
            || Cmd::Audit,
            &[Format::Text, Format::Json, Format::Jsonl, Format::Csv],
        ),
    ];
    let rows: &[C] = &[
        ("schema", || Cmd::Schema(DefOpts::default()), TEXT_JSON),
        (
            "rows",
            || {
                Cmd::Rows(RowsOpts {
                    max_value_bytes: 64,
                    ..RowsOpts::default()
                })
            },
            &[Format::Text, Format::Json, Format::Csv],
        ),
    ];
    let usable = |f: &&&str| corpus || !f.starts_with("../shared");
    let mut out = Vec::new();
    for file in FILES.iter().filter(usable) {
        for (cmd, make, formats) in single {
            out.push(Case {
                name: format!("{}.{cmd}", golden_name(file)),
                cmd: *make,
                files: vec![file],
                formats,
            });
        }
    }
    for file in ROW_FILES.iter().filter(usable) {
        for (cmd, make, formats) in rows {
            out.push(Case {
                name: format!("{}.{cmd}", golden_name(file)),
                cmd: *make,
                files: vec![file],
                formats,
            });
        }
    }
    out.push(Case {
        name: "mysql56__one_row.ibd.rows".into(),
        cmd: || {
            Cmd::Rows(RowsOpts {
                max_value_bytes: 64,
                hidden: true,
                ..RowsOpts::default()
            })
        },
        files: vec!["fixtures/mysql56/one_row.ibd"],
        formats: &[Format::Jsonl, Format::Tsv, Format::Sql],
    });
    // The two-file commands, on MySQL 5.6 and on MariaDB.
    for (server, pair, diff) in [
        (
            "mysql56",
            [
                "fixtures/mysql56/ai_int.ibd",
                "fixtures/mysql56/uuid_char36.ibd",
            ],
            [
                "fixtures/mysql56/dml.ibd",
                "fixtures/mysql56/deleted_marked.ibd",
            ],
        ),
        (
            "mariadb1011",
            [
                "fixtures/mariadb1011/ai_int.ibd",
                "fixtures/mariadb1011/uuid_char36.ibd",
            ],
            [
                "fixtures/mariadb1011/dml.ibd",
                "fixtures/mariadb1011/deleted_marked.ibd",
            ],
        ),
    ] {
        out.push(Case {
            name: format!("{server}__ai_int-uuid_char36.compare"),
            cmd: || Cmd::Compare,
            files: pair.to_vec(),
            formats: TEXT_JSON_CSV,
        });
        out.push(Case {
            name: format!("{server}__dml-deleted_marked.diff"),
            cmd: || Cmd::Diff,
            files: diff.to_vec(),
            formats: &[Format::Text, Format::Json, Format::Jsonl, Format::Csv],
        });
        out.push(Case {
            name: format!("{server}__ai_int-uuid_char36.check"),
            cmd: || Cmd::Check,
            files: pair.to_vec(),
            formats: &[Format::Text, Format::Json, Format::Jsonl, Format::Csv],
        });
    }
    // Two MySQL 8.4 files of the corpus side by side (one has an SDI
    // index the other's legend names too).
    if corpus {
        let pair = [
            "../shared/corpus/mysql-8.4/sakila_mysql8403_film.ibd",
            "../shared/corpus/mysql-8.4/ibdninja_mysql848_multi_page.ibd",
        ];
        out.push(Case {
            name: "mysql-8.4__film-multi_page.compare".into(),
            cmd: || Cmd::Compare,
            files: pair.to_vec(),
            formats: TEXT_JSON_CSV,
        });
        out.push(Case {
            name: "mysql-8.4__film-multi_page.check".into(),
            cmd: || Cmd::Check,
            files: pair.to_vec(),
            formats: &[Format::Text, Format::Json, Format::Jsonl, Format::Csv],
        });
    }
    for file in [
        "fixtures/mysql56/secondary.ibd",
        "fixtures/mariadb1011-4k/secondary.ibd",
    ] {
        out.push(Case {
            name: format!("{}.indexes-levels", golden_name(file)),
            cmd: || Cmd::Indexes,
            files: vec![file],
            formats: TEXT_JSON_CSV,
        });
    }
    for (name, file, make) in [
        (
            "page-hex-3",
            "fixtures/mysql56/rf_redundant.ibd",
            (|| Cmd::Page { page: 3 }) as fn() -> Cmd,
        ),
        ("page-hex-3", "fixtures/mysql56/secondary.ibd", || {
            Cmd::Page { page: 3 }
        }),
        ("page-hex-2", "fixtures/mysql56/secondary.ibd", || {
            Cmd::Page { page: 2 }
        }),
    ] {
        out.push(Case {
            name: format!("{}.{name}", golden_name(file)),
            cmd: make,
            files: vec![file],
            formats: TEXT_JSON,
        });
    }
    out.push(Case {
        name: "mysql56__ai_int.ibd.lsn-color".into(),
        cmd: || Cmd::Lsn,
        files: vec!["fixtures/mysql56/ai_int.ibd"],
        formats: &[Format::Text],
    });
    out
}

#[test]
fn every_command_and_format_matches_its_golden() {
    let root = ibdscope_testkit::root();
    std::env::set_current_dir(&root).expect("workspace root");
    let corpus = ibdscope_testkit::corpus().is_some();
    let update = std::env::var_os("IBDSCOPE_UPDATE_GOLDEN").is_some();
    let expected = root.join("fixtures/expected");
    let mut tally = Tally::default();
    for case in cases(corpus) {
        for &format in case.formats {
            let mut o = opts((case.cmd)(), &case.files, format);
            if case.name.ends_with("lsn-color") {
                o.color = Color::Always;
            }
            o.levels = case.name.ends_with("indexes-levels");
            o.hex = case.name.contains(".page-hex");
            let golden = expected.join(format!("{}.{}", case.name, ext(format)));
            check(&o, &golden, None, false, update, &mut tally);
        }
    }
    tally.finish(update, 200);
}

/// What the goldens compared, and where they differ.
#[derive(Default)]
struct Tally {
    compared: usize,
    mismatches: Vec<String>,
    missing: Vec<String>,
}

impl Tally {
    fn finish(&self, update: bool, at_least: usize) {
        let Tally {
            compared,
            mismatches,
            missing,
        } = self;
        eprintln!("golden: {compared} outputs compared");
        assert!(
            missing.is_empty(),
            "goldens missing (IBDSCOPE_UPDATE_GOLDEN=1 makes them): {missing:#?}"
        );
        assert!(
            mismatches.is_empty(),
            "output differs from: {mismatches:#?}"
        );
        assert!(
            update || *compared >= at_least,
            "only {compared} outputs compared"
        );
    }
}

/// Runs `o` and compares its output with `golden` (or writes it there
/// when updating); returns the output as compared. The exit status is part
/// of the output; with `stderr`, so are the lines said on stderr. With
/// `scratch`, that folder's path is written `<scratch>` (it differs from
/// run to run) and runs of spaces two spaces (the padding of columns as
/// wide as that path).
fn check(
    o: &Opts,
    golden: &Path,
    scratch: Option<&Path>,
    stderr: bool,
    update: bool,
    tally: &mut Tally,
) -> String {
    let mut out = Vec::new();
    let (outcome, said) = ibdscope_report::diag::capture(|| run(o, &mut out));
    let outcome = outcome.expect("writing to a Vec");
    out.extend_from_slice(format!("-- exit {}\n", outcome as u8).as_bytes());
    if stderr {
        out.extend_from_slice(b"-- stderr\n");
        for line in said {
            out.extend_from_slice(line.as_bytes());
            out.push(b'\n');
        }
    }
    let mut text = String::from_utf8(out).expect("outputs are UTF-8");
    if let Some(dir) = scratch {
        text = text.replace(dir.to_str().expect("UTF-8 scratch path"), "<scratch>");
        // Columns padded to the width of a path are as wide as this run's
        // scratch path: a run of spaces is written as two.
        text = squeeze_spaces(&text);
    }
    if update {
        std::fs::write(golden, &text).expect("write golden");
        return text;
    }
    match std::fs::read(golden) {
        Ok(want) if want == text.as_bytes() => {}
        Ok(_) => tally.mismatches.push(golden.display().to_string()),
        Err(_) => tally.missing.push(golden.display().to_string()),
    }
    tally.compared += 1;
    text
}

/// `text` with every run of two or more spaces made two spaces.
fn squeeze_spaces(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut run = 0;
    for c in text.chars() {
        if c == ' ' {
            run += 1;
            if run <= 2 {
                out.push(c);
            }
        } else {
            run = 0;
            out.push(c);
        }
    }
    out
}

/// The scratch folder of this run: the datadir archives unpacked, and the
/// files `restore` writes.
fn scratch() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ibdscope-golden-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir.canonicalize().expect("scratch dir")
}

/// A folder removed when dropped.
struct Remove(PathBuf);

impl Drop for Remove {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

mod unpack;
use unpack::unpack;

type Row = std::collections::BTreeMap<String, String>;

/// The rows of a fixture manifest (`fixtures/<rel>`) whose column `key`
/// is `value` (`fact` too when given).
fn manifest(rel: &str, key: &str, value: &str, fact: Option<&str>) -> Vec<Row> {
    ibdscope_testkit::tsv(&ibdscope_testkit::fixtures().join(rel))
        .into_iter()
        .filter(|r| r.get(key).is_some_and(|v| v == value))
        .filter(|r| fact.is_none_or(|f| r.get("fact").is_some_and(|v| v == f)))
        .collect()
}

/// The output of `format` among `outs`.
fn of(outs: &[(Format, String)], format: Format) -> &str {
    outs.iter()
        .find(|(f, _)| *f == format)
        .map(|(_, t)| t.as_str())
        .expect("format run")
}

/// The CSV lines of an output (before its `-- exit` line), header left
/// out.
fn csv_lines(out: &str) -> Vec<&str> {
    out.lines()
        .take_while(|l| !l.starts_with("-- exit"))
        .skip(1)
        .collect()
}

/// The datadirs of `fixtures/history` (undo logs of committed
/// transactions kept by a consistent snapshot) and `fixtures/instance`.
const HISTORY: &[&str] = &["mysql56", "mysql56-undo2", "mariadb1011-undo3"];

/// The torn copies of `fixtures/dblwr` (pages of `fx/t.ibd` torn, their
/// doublewrite copies good).
const TORN: &[&str] = &["mysql56", "mariadb1011"];

/// The commands that read a datadir (`tables`, `undo`, `history`,
/// `restore`, and `audit` of a datadir) on the unpacked datadirs of the fixtures, every format each
/// offers, stderr included; the values the servers wrote down checked in
/// the output too. No corpus file: the corpus holds single files, no
/// datadir, so these commands do not apply to its MySQL 8.0 files.
#[test]
fn datadir_commands_match_their_goldens() {
    let update = std::env::var_os("IBDSCOPE_UPDATE_GOLDEN").is_some();
    let expected = ibdscope_testkit::fixtures().join("expected");
    let scratch = scratch();
    // Removed at the end, pass or fail (the datadirs are ~150 MB).
    let _gone = Remove(scratch.clone());
    let mut tally = Tally::default();
    let mut go = |name: &str, cmd: &dyn Fn() -> Cmd, files: &[PathBuf], formats: &[Format]| {
        formats
            .iter()
            .map(|&format| {
                let o = Opts {
                    threads: 2,
                    ..Opts::new(cmd(), files.to_vec(), format, Arc::new(ReadHost))
                };
                let golden = expected.join(format!("{name}.{}", ext(format)));
                let text = check(&o, &golden, Some(&scratch), true, update, &mut tally);
                (format, text)
            })
            .collect::<Vec<_>>()
    };
    for name in HISTORY {
        let dir = unpack(&scratch, &format!("history/{name}"));
        let tables = go(
            &format!("history-{name}.tables"),
            &|| Cmd::Tables,
            std::slice::from_ref(&dir),
            TEXT_JSON_CSV,
        );
        let undo = go(
            &format!("history-{name}.undo"),
            &|| Cmd::Undo,
            std::slice::from_ref(&dir),
            TEXT_JSON_CSV,
        );
        go(
            &format!("history-{name}.audit"),
            &|| Cmd::Audit,
            std::slice::from_ref(&dir),
            &[Format::Text, Format::Json, Format::Jsonl, Format::Csv],
        );
        let d = dir.clone();
        let history = go(
            &format!("history-{name}__h.ibd.history"),
            &|| {
                Cmd::History(HistoryOpts {
                    datadir: Some(d.clone()),
                    ..HistoryOpts::default()
                })
            },
            &[dir.join("fx/h.ibd")],
            TEXT_JSON_CSV,
        );
        // What the server wrote down. The undo logs to purge: the server's
        // History list length (SHOW ENGINE INNODB STATUS).
        let hll = &manifest(
            "history/facts.tsv",
            "datadir",
            name,
            Some("history_list_length"),
        );
        let hll = &hll.first().expect("history_list_length")["value"];
        assert!(
            of(&undo, Format::Json).contains(&format!("\"to_purge\":{hll},")),
            "{name}: undo to purge is not the History list length {hll}"
        );
        assert!(
            of(&undo, Format::Text).contains(&format!("{hll} undo logs to purge")),
            "{name}: undo to purge is not the History list length {hll}"
        );
        // Every table of SYS_TABLES as the server listed it (where the
        // fixture lists them), and no other.
        let sys = manifest("history/sys_tables.tsv", "datadir", name, None);
        if !sys.is_empty() {
            let mut want: Vec<String> = sys
                .iter()
                .map(|r| {
                    let f = |k: &str| r[k].as_str();
                    let row_format = f("row_format");
                    let fields = [
                        f("name"),
                        f("table_id"),
                        f("space"),
                        f("flag"),
                        f("n_cols"),
                        row_format,
                    ];
                    fields.join(",")
                })
                .collect();
            let mut got: Vec<String> = csv_lines(of(&tables, Format::Csv))
                .iter()
                .map(|l| l.split(',').take(6).collect::<Vec<_>>().join(","))
                .collect();
            want.sort();
            got.sort();
            assert_eq!(got, want, "{name}: tables against sys_tables.tsv");
        }
        // Every version of every row, as the script wrote them with the
        // transaction ids the server gave (history.tsv).
        let mut want: Vec<String> = manifest("history/history.tsv", "datadir", name, None)
            .iter()
            .map(|r| {
                let f = |k: &str| r[k].as_str();
                [
                    f("id"),
                    f("version"),
                    f("trx_id"),
                    f("deleted"),
                    f("name"),
                    f("n"),
                ]
                .join(",")
            })
            .collect();
        assert!(!want.is_empty(), "{name}: no row in history/history.tsv");
        // key,version,trx_id,deleted,undo_page,undo_offset,id,name,n
        let mut got: Vec<String> = csv_lines(of(&history, Format::Csv))
            .iter()
            .map(|l| {
                let c: Vec<&str> = l.split(',').collect();
                [c[0], c[1], c[2], c[3], c[7], c[8]].join(",")
            })
            .collect();
        want.sort();
        got.sort();
        assert_eq!(got, want, "{name}: history against history.tsv");
    }
    for name in TORN {
        let dir = unpack(&scratch, &format!("dblwr/{name}-torn"));
        let audit = go(
            &format!("dblwr-{name}-torn.audit"),
            &|| Cmd::Audit,
            std::slice::from_ref(&dir),
            &[Format::Text, Format::Json, Format::Jsonl, Format::Csv],
        );
        // The checkpoint the server recovered from, and each planted page
        // judged as planted: an older copy is torn, garbage is corrupt.
        let audit = of(&audit, Format::Text);
        let ckpt = manifest(
            "dblwr/manifest.tsv",
            "copy",
            name,
            Some("checkpoint_recovery"),
        );
        let lsn = &ckpt.first().expect("checkpoint_recovery")["lsn"];
        assert!(
            audit.contains(&format!("  checkpoint LSN {lsn} (")),
            "{name}: checkpoint"
        );
        for r in manifest("dblwr/manifest.tsv", "copy", name, Some("planted")) {
            let word = match r["value"].as_str() {
                "old" => "torn",
                "garbage" => "corrupt",
                v => panic!("{name}: planted {v}?"),
            };
            let head = format!("page {} at byte offset ", r["page"]);
            assert!(
                audit.lines().any(
                    |l| l.trim_start().starts_with(&head) && l.contains(&format!(": {word}: "))
                ),
                "{name}: audit does not call page {} {word}",
                r["page"]
            );
        }
        let d = dir.clone();
        let out = scratch.join(format!("{name}-restored.ibd"));
        let restore = go(
            &format!("dblwr-{name}-torn__t.ibd.restore"),
            &|| {
                Cmd::Restore(RestoreOpts {
                    datadir: Some(d.clone()),
                    out: out.clone(),
                    force: true,
                })
            },
            &[dir.join("fx/t.ibd")],
            TEXT_JSON,
        );
        // The pages planted torn or garbage, each restored from the slot
        // and with the LSN the fixture planted (manifest.tsv); MariaDB's
        // rule starts at the checkpoint the server recovered from.
        let text = of(&restore, Format::Text);
        let planted = manifest("dblwr/manifest.tsv", "copy", name, Some("planted"));
        assert!(
            !planted.is_empty(),
            "{name}: nothing planted in dblwr/manifest.tsv"
        );
        for r in &planted {
            let page: u64 = r["page"].parse().expect("page");
            let head = format!("page {page} at byte offset {}: ", page * 16384);
            let line = text
                .lines()
                .find(|l| l.starts_with(&head))
                .unwrap_or_else(|| panic!("{name}: restore does not list page {page}"));
            let (slot, lsn) = (&r["slot"], &r["lsn"]);
            assert!(
                line.contains(&format!("(LSN {lsn}): restored from slot {slot} (page "))
                    && line.ends_with(&format!(" of the system tablespace, LSN {lsn})")),
                "{name}: {line} (planted: slot {slot}, LSN {lsn})"
            );
        }
        assert!(text.contains(&format!(
            "{} pages restored, 0 pages left damaged",
            planted.len()
        )));
        if name.starts_with("mariadb") {
            let ckpt = manifest(
                "dblwr/manifest.tsv",
                "copy",
                name,
                Some("checkpoint_recovery"),
            );
            let lsn = &ckpt.first().expect("checkpoint_recovery")["lsn"];
            assert!(
                text.contains(&format!("from the checkpoint (LSN {lsn})")),
                "{name}: checkpoint"
            );
        }
    }
    tally.finish(update, 20);
}

/// A command's name and how to make it.
type Named = (&'static str, fn() -> Cmd);

/// A command's output on `file` (stdout, then its exit code) at `threads`.
fn output_at(cmd: Cmd, file: &str, format: Format, threads: usize) -> Vec<u8> {
    let mut o = opts(cmd, &[file], format);
    o.threads = threads;
    let mut out = Vec::new();
    let outcome = run(&o, &mut out).expect("writing to a Vec");
    out.extend_from_slice(format!("-- exit {}\n", outcome as u8).as_bytes());
    out
}

/// Every command in every format on every file gives at 2 and 3 threads
/// the bytes and exit it gives at 1; returns the outputs compared.
fn same_at_every_thread_count(files: &[&str], commands: &[Named], formats: &[Format]) -> usize {
    let mut compared = 0;
    for file in files {
        assert!(std::path::Path::new(file).exists(), "{file} is missing");
        for (name, make) in commands {
            for &format in formats {
                let one = output_at(make(), file, format, 1);
                for threads in [2, 3] {
                    let got = output_at(make(), file, format, threads);
                    assert!(
                        got == one,
                        "{name} --format {format:?} --threads {threads} differs from \
                         --threads 1 on {file}"
                    );
                    compared += 1;
                }
            }
        }
    }
    compared
}

/// `records` and `pages` write pieces made on the engine's threads in walk
/// order: every format gives the same bytes and exit at 1, 2 and 3 threads,
/// whole files included (many pieces: the large fixtures, a damaged copy),
/// and the golden cases match their goldens at every thread count.
#[test]
fn records_and_pages_are_the_same_at_every_thread_count() {
    let root = ibdscope_testkit::root();
    std::env::set_current_dir(&root).expect("workspace root");
    let expected = root.join("fixtures/expected");
    // A damaged copy of a file of many pieces: bytes flipped in every 37th
    // page, page 10 zeroed, a foreign space id on page 40, a torn tail.
    let src = std::fs::read("fixtures/mysql56/uuid_char36_large.ibd").expect("fixture");
    let mut d = src.clone();
    let size = 16384;
    for p in (3..d.len() / size).step_by(37) {
        d[p * size + size / 2] ^= 0x5A;
    }
    d[10 * size..11 * size].fill(0);
    d[40 * size + 34..40 * size + 38].copy_from_slice(&4242u32.to_be_bytes());
    d.truncate(d.len() - size / 3);
    let dir = std::env::temp_dir().join(format!("ibdscope-golden-threads-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch dir");
    let damaged = dir.join("uuid_char36_large.ibd");
    std::fs::write(&damaged, &d).expect("damaged copy");
    let damaged = damaged.display().to_string();
    let files: Vec<&str> = vec![
        "fixtures/mysql56/uuid_char36_large.ibd",
        "fixtures/mysql56/secondary.ibd",
        "fixtures/mariadb1011/uuid_char36_large.ibd",
        "fixtures/mariadb1011-4k/secondary.ibd",
        "fixtures/mariadb1011/rf_compressed8.ibd",
        "fixtures/mariadb1011-pc/pc_lz4.ibd",
        "fixtures/mariadb1011-pc-crc32/pc_lzma.ibd",
        &damaged,
    ];
    let formats = [Format::Text, Format::Json, Format::Jsonl, Format::Csv];
    let commands: [Named; 4] = [
        ("records", || Cmd::Records(RecordsOpts::default())),
        ("records --all-pages --deleted", || {
            Cmd::Records(RecordsOpts {
                all_pages: true,
                deleted: true,
                ..RecordsOpts::default()
            })
        }),
        ("records --page 3", || {
            Cmd::Records(RecordsOpts {
                page: Some(3),
                ..RecordsOpts::default()
            })
        }),
        ("pages", || Cmd::Pages { from: 0, to: None }),
    ];
    let mut compared = same_at_every_thread_count(&files, &commands, &formats);
    // The golden cases of `records` and `pages` at every thread count.
    let golden: [Named; 2] = [
        ("records", || {
            Cmd::Records(RecordsOpts {
                page: Some(3),
                ..RecordsOpts::default()
            })
        }),
        ("pages", || Cmd::Pages {
            from: 0,
            to: Some(15),
        }),
    ];
    let output = |cmd: Cmd, file: &str, format: Format, threads: usize| {
        output_at(cmd, file, format, threads)
    };
    let usable = |f: &&&str| ibdscope_testkit::corpus().is_some() || !f.starts_with("../shared");
    for file in FILES.iter().filter(usable) {
        for (cmd, make) in golden {
            for format in formats {
                let path = expected.join(format!("{}.{cmd}.{}", golden_name(file), ext(format)));
                let want = std::fs::read(&path).expect("golden");
                for threads in [1, 2, 3] {
                    assert!(
                        output(make(), file, format, threads) == want,
                        "{} differs at --threads {threads}",
                        path.display()
                    );
                    compared += 1;
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    eprintln!("records and pages: {compared} outputs compared");
}

/// `rows` reads and formats its leaf pages in pieces on the engine's
/// threads and writes them in key order: every format gives the same
/// bytes and exit at 1, 2 and 3 threads, with deleted rows, a secondary
/// index, ROW_FORMAT=COMPRESSED leaves, and a damaged copy of a file of
/// many pieces (a zeroed leaf, a foreign page, flipped bytes, a torn tail:
/// rows read past the damage in key order, lost leaves).
#[test]
fn rows_are_the_same_at_every_thread_count() {
    let root = ibdscope_testkit::root();
    std::env::set_current_dir(&root).expect("workspace root");
    let src = std::fs::read("fixtures/mysql56/uuid_char36_large.ibd").expect("fixture");
    let mut d = src.clone();
    let size = 16384;
    for p in (3..d.len() / size).step_by(37) {
        d[p * size + size / 2] ^= 0x5A;
    }
    d[10 * size..11 * size].fill(0);
    d[40 * size + 34..40 * size + 38].copy_from_slice(&4242u32.to_be_bytes());
    d.truncate(d.len() - size / 3);
    let dir = std::env::temp_dir().join(format!("ibdscope-golden-rows-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch dir");
    let damaged = dir.join("uuid_char36_large.ibd");
    std::fs::write(&damaged, &d).expect("damaged copy");
    std::fs::copy(
        "fixtures/mysql56/uuid_char36_large.frm",
        dir.join("uuid_char36_large.frm"),
    )
    .expect("the .frm beside the copy");
    let damaged = damaged.display().to_string();
    let files: Vec<&str> = vec![
        "fixtures/mysql56/uuid_char36_large.ibd",
        "fixtures/mysql56/secondary.ibd",
        "fixtures/mysql56/dml.ibd",
        "fixtures/mariadb1011/uuid_char36_large.ibd",
        "fixtures/mariadb1011/dml.ibd",
        "fixtures/mariadb1011-4k/secondary.ibd",
        "fixtures/mariadb1011/rf_compressed8.ibd",
        &damaged,
    ];
    let formats = [
        Format::Tsv,
        Format::Text,
        Format::Json,
        Format::Jsonl,
        Format::Csv,
        Format::Sql,
    ];
    let commands: [Named; 3] = [
        ("rows", || Cmd::Rows(RowsOpts::default())),
        ("rows --with-deleted", || {
            Cmd::Rows(RowsOpts {
                with_deleted: true,
                ..RowsOpts::default()
            })
        }),
        ("rows --deleted --hidden", || {
            Cmd::Rows(RowsOpts {
                deleted: true,
                hidden: true,
                ..RowsOpts::default()
            })
        }),
    ];
    let compared = same_at_every_thread_count(&files, &commands, &formats);
    let _ = std::fs::remove_dir_all(&dir);
    eprintln!("rows: {compared} outputs compared");
}

/// Every `.ibd` under `fixtures/` (relative to the workspace root), in
/// path order.
fn every_fixture_ibd() -> Vec<String> {
    fn walk(dir: &Path, out: &mut Vec<String>) {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.expect("fixtures entry").path())
            .collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "ibd") {
                out.push(p.display().to_string());
            }
        }
    }
    let mut out = Vec::new();
    walk(Path::new("fixtures"), &mut out);
    out
}

/// `rows` and `records` decode and format their leaf pages on the
/// engine's threads and write them in key order: on every fixture `.ibd`
/// (those encrypted without their key: what is printed of them is the
/// same too), `rows` in TSV and text (the formats with the plain values'
/// fast path), CSV and JSONL, and `records` in text and JSONL, give the
/// same bytes and exit at 1, 2 and 3 threads.
#[test]
fn rows_and_records_are_the_same_on_every_fixture_at_every_thread_count() {
    let root = ibdscope_testkit::root();
    std::env::set_current_dir(&root).expect("workspace root");
    let files = every_fixture_ibd();
    assert!(files.len() >= 70, "the fixtures hold their .ibd files");
    let files: Vec<&str> = files.iter().map(String::as_str).collect();
    let rows: [Named; 1] = [("rows", || Cmd::Rows(RowsOpts::default()))];
    let records: [Named; 1] = [("records", || Cmd::Records(RecordsOpts::default()))];
    let mut compared = same_at_every_thread_count(
        &files,
        &rows,
        &[Format::Tsv, Format::Text, Format::Csv, Format::Jsonl],
    );
    compared += same_at_every_thread_count(&files, &records, &[Format::Text, Format::Jsonl]);
    eprintln!("rows and records on every fixture: {compared} outputs compared");
}
