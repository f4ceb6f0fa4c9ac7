//! Golden outputs, in process: every command's printers (text, JSON, and
//! CSV / TSV / SQL where the command offers them) on real-server files,
//! compared byte for byte with `fixtures/expected/`. After a deliberate
//! change of output, regenerate with `IBDSCOPE_UPDATE_GOLDEN=1 cargo test
//! -p ibdscope-report --test golden` and review the diff.
//!
//! One test function: it runs from the workspace root so that the file
//! names the outputs print are the same relative names as on a command
//! line there.
#![allow(
    clippy::disallowed_macros, // Tests print what they skipped.
    clippy::arithmetic_side_effects,
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic
)]

use ibdscope_report::args::{Cmd, Color, DefOpts, Format, Opts, RecordsOpts, RowsOpts};
use ibdscope_report::host::ReadHost;
use ibdscope_report::run;
use std::path::PathBuf;
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
    let pair = vec![
        "fixtures/mysql56/ai_int.ibd",
        "fixtures/mysql56/uuid_char36.ibd",
    ];
    out.push(Case {
        name: "mysql56__ai_int-uuid_char36.compare".into(),
        cmd: || Cmd::Compare,
        files: pair.clone(),
        formats: TEXT_JSON_CSV,
    });
    out.push(Case {
        name: "mysql56__dml-deleted_marked.diff".into(),
        cmd: || Cmd::Diff,
        files: vec![
            "fixtures/mysql56/dml.ibd",
            "fixtures/mysql56/deleted_marked.ibd",
        ],
        formats: &[Format::Text, Format::Json, Format::Csv],
    });
    out.push(Case {
        name: "mysql56__ai_int-uuid_char36.check".into(),
        cmd: || Cmd::Check,
        files: pair,
        formats: &[Format::Text, Format::Json, Format::Jsonl, Format::Csv],
    });
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
    let (mut compared, mut mismatches, mut missing) = (0, Vec::new(), Vec::new());
    for case in cases(corpus) {
        for &format in case.formats {
            let mut o = opts((case.cmd)(), &case.files, format);
            if case.name.ends_with("lsn-color") {
                o.color = Color::Always;
            }
            o.levels = case.name.ends_with("indexes-levels");
            o.hex = case.name.contains(".page-hex");
            let mut out = Vec::new();
            let outcome = run(&o, &mut out).expect("writing to a Vec");
            let golden = expected.join(format!("{}.{}", case.name, ext(format)));
            // The exit status is part of the output.
            out.extend_from_slice(format!("-- exit {}\n", outcome as u8).as_bytes());
            if update {
                std::fs::write(&golden, &out).expect("write golden");
                continue;
            }
            match std::fs::read(&golden) {
                Ok(want) if want == out => {}
                Ok(_) => mismatches.push(golden.display().to_string()),
                Err(_) => missing.push(golden.display().to_string()),
            }
            compared += 1;
        }
    }
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
        update || compared >= 200,
        "only {compared} outputs compared"
    );
}

/// A command's name and how to make it.
type Named = (&'static str, fn() -> Cmd);

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
    let output = |cmd: Cmd, file: &str, format: Format, threads: usize| {
        let mut o = opts(cmd, &[file], format);
        o.threads = threads;
        let mut out = Vec::new();
        let outcome = run(&o, &mut out).expect("writing to a Vec");
        out.extend_from_slice(format!("-- exit {}\n", outcome as u8).as_bytes());
        out
    };
    let mut compared = 0;
    for file in &files {
        assert!(std::path::Path::new(file).exists(), "{file} is missing");
        for (name, make) in commands {
            for format in formats {
                let one = output(make(), file, format, 1);
                for threads in [2, 3] {
                    let got = output(make(), file, format, threads);
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
