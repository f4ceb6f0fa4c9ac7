//! The one model every command reads, checked against what the servers
//! say: index names (the servers' own index lists for the fixtures, the
//! SDI the server wrote for MySQL 8.0+ corpus files), the trust of every
//! page (a copy with flipped bytes in two leaf pages), and the end of the
//! file (a copy cut mid-file), through every command in process.
#![allow(
    clippy::arithmetic_side_effects,
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic
)]

use ibdscope::analysis::Analysis;
use ibdscope_core::{Engine, IndexId, Tablespace};
use ibdscope_prims::json;
use ibdscope_report::args::{Cmd, DefOpts, Format, Opts, RecordsOpts, RowsOpts};
use ibdscope_report::host::ReadHost;
use ibdscope_report::{run, Outcome};
use ibdscope_schema::sdi::{sdi_json, Sdi};
use ibdscope_testkit::{corpus, fixtures, tsv};
use std::path::{Path, PathBuf};
use std::sync::Arc;

fn opts(cmd: Cmd, files: Vec<PathBuf>, format: Format) -> Opts {
    Opts {
        threads: 2,
        ..Opts::new(cmd, files, format, Arc::new(ReadHost))
    }
}

fn run_text(o: &Opts) -> (Outcome, String) {
    let mut out = Vec::new();
    let outcome = run(o, &mut out).expect("writing to a Vec");
    (outcome, String::from_utf8_lossy(&out).into_owned())
}

/// A scratch directory of this test process.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ibdscope-model-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// `fixtures/indexes.tsv` holds each fixture table's indexes as the server
/// listed them (INNODB_SYS_INDEXES / INNODB_INDEXES): with the `.frm`
/// beside each file, every index id gets the server's name.
#[test]
fn index_names_are_the_servers_for_every_fixture() {
    let dir = fixtures();
    let mut checked = 0;
    for row in tsv(&dir.join("indexes.tsv")) {
        let path = dir.join(&row["path"]);
        if !path.with_extension("frm").is_file() {
            continue;
        }
        let bytes = std::fs::read(&path).expect("fixture");
        let ts = Tablespace::new(&bytes).expect("fixture parses");
        // A page_compressed space's structure is read from its image.
        let image = ibdscope_core::pagecomp::applies(&ts)
            .then(|| ibdscope_core::pagecomp::expand(&ts, &Engine::default()));
        let logical = image
            .as_ref()
            .map_or_else(|| ts.clone(), |e| e.tablespace(&ts));
        let a = Analysis::new(&path, &ts, &logical, Engine::default(), DefOpts::default());
        let id: u64 = row["index_id"].parse().expect("index id");
        assert_eq!(
            a.index_name(IndexId(id)),
            Some(row["index_name"].as_str()),
            "{}: index {id}",
            row["path"]
        );
        checked += 1;
    }
    assert!(checked >= 30, "only {checked} indexes checked");
}

/// MySQL 8.0+: the names come from the SDI in the file. Read the server's
/// SDI documents directly: each dd index's `se_private_data` holds
/// `id=N`; the model must name index N as the document does, and the SDI
/// index itself `SDI`.
#[test]
fn index_names_come_from_the_sdi_in_mysql8_files() {
    let Some(dir) = corpus() else { return };
    let mut checked = 0;
    for row in tsv(&dir.join("manifest.tsv")) {
        let path = dir.join(&row["path"]);
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        let Ok(ts) = Tablespace::new(&bytes) else {
            continue;
        };
        if !ts.format().sdi || ts.format().encryption {
            continue;
        }
        // The server's names, from its own documents.
        let sdi = Sdi::read(&ts);
        let (mut zbuf, mut doc) = (Vec::new(), Vec::new());
        let mut names: Vec<(u64, String)> = Vec::new();
        let mut tables = 0;
        for rec in &sdi.records {
            if sdi_json(&ts, rec, &mut zbuf, &mut doc).is_err() {
                continue;
            }
            let Ok(v) = json::parse(&doc) else { continue };
            let Some(indexes) = v
                .get("dd_object")
                .and_then(|o| o.get("indexes"))
                .and_then(|i| i.as_array())
            else {
                continue;
            };
            tables += 1;
            for ix in indexes {
                let name = ix.get("name").and_then(|n| n.as_str());
                let id = ix
                    .get("se_private_data")
                    .and_then(|s| s.as_str())
                    .and_then(|s| {
                        s.split(';')
                            .find_map(|kv| kv.strip_prefix("id="))
                            .and_then(|n| n.parse::<u64>().ok())
                    });
                if let (Some(name), Some(id)) = (name, id) {
                    names.push((id, name.to_string()));
                }
            }
        }
        // One table per file: the model takes the table definition.
        if tables != 1 {
            continue;
        }
        let a = Analysis::new(&path, &ts, &ts, Engine::default(), DefOpts::default());
        for i in &a.map().indexes {
            let want = if i.index_id.0 == u64::MAX {
                Some("SDI".to_string())
            } else {
                names
                    .iter()
                    .find(|(id, _)| *id == i.index_id.0)
                    .map(|(_, n)| n.clone())
            };
            let Some(want) = want else { continue };
            assert_eq!(
                a.index_name(i.index_id),
                Some(want.as_str()),
                "{}: index {}",
                row["path"],
                i.index_id
            );
            checked += 1;
        }
    }
    assert!(checked >= 20, "only {checked} SDI index names checked");
}

/// A copy of `fixtures/mysql56/secondary.ibd` (its `.frm` beside it) with
/// one byte flipped in two leaf pages of the clustered index.
fn flipped() -> (PathBuf, [u32; 2], u32) {
    let src = fixtures().join("mysql56/secondary.ibd");
    let mut bytes = std::fs::read(&src).expect("fixture");
    let ts = Tablespace::new(&bytes).expect("fixture");
    let a = Analysis::new(&src, &ts, &ts, Engine::default(), DefOpts::default());
    let primary = a
        .map()
        .indexes
        .iter()
        .find(|i| a.index_name(i.index_id) == Some("PRIMARY"))
        .expect("PRIMARY")
        .index_id;
    // Two leaves of PRIMARY, and the records they hold (PAGE_N_RECS).
    let leaves: Vec<u32> = (0..ts.n_pages())
        .filter(|&n| {
            let p = ts.page(ibdscope_core::PageNo(n)).expect("page");
            let h = ibdscope_core::IndexHeader::new(p).expect("header");
            ibdscope_core::fil::FilHeader::new(p)
                .is_some_and(|f| f.page_type().is_index(ts.type_names()))
                && h.index_id() == primary
                && h.level() == 0
        })
        .collect();
    let pages = [leaves[2], leaves[8]];
    let mut recs = 0;
    for &n in &pages {
        let p = ts.page(ibdscope_core::PageNo(n)).expect("page");
        recs += u32::from(ibdscope_core::IndexHeader::new(p).expect("header").n_recs());
    }
    drop(a);
    drop(ts);
    for &n in &pages {
        let at = n as usize * 16384 + 8000;
        bytes[at] ^= 0x55;
    }
    let dir = scratch("flipped");
    let dst = dir.join("secondary.ibd");
    std::fs::write(&dst, &bytes).expect("copy");
    std::fs::copy(
        fixtures().join("mysql56/secondary.frm"),
        dir.join("secondary.frm"),
    )
    .expect("frm");
    (dst, pages, recs)
}

#[test]
fn pages_that_do_not_verify_are_marked_by_every_structure_command() {
    let (path, pages, recs) = flipped();
    let files = vec![path.clone()];
    let rows = || {
        Cmd::Rows(RowsOpts {
            max_value_bytes: 1 << 20,
            ..RowsOpts::default()
        })
    };
    // The server's own row count for this table (fixtures/manifest.tsv).
    let want_rows: u32 = tsv(&fixtures().join("manifest.tsv"))
        .iter()
        .find(|r| r["path"] == "mysql56/secondary.ibd")
        .expect("manifest row")["rows"]
        .parse()
        .expect("rows");
    for (what, cmd) in [
        ("rows", rows()),
        ("records", Cmd::Records(RecordsOpts::default())),
        ("indexes", Cmd::Indexes),
        ("fill", Cmd::Fill),
        ("extents", Cmd::Extents),
    ] {
        for format in [Format::Text, Format::Json] {
            let (outcome, out) = run_text(&opts(cmd.clone(), files.clone(), format));
            assert_eq!(outcome, Outcome::Findings, "{what} {format:?}");
            for p in pages {
                assert!(
                    out.contains(&format!("page {p} at byte offset"))
                        || out.contains(&format!("\"page\":{p},"))
                        || out.contains(&format!("leaf page {p} does not verify")),
                    "{what} {format:?} does not name page {p}:\n{}",
                    &out[out.len().saturating_sub(2000)..]
                );
            }
        }
    }
    // Rows are marked one by one.
    let (_, json) = run_text(&opts(rows(), files.clone(), Format::Jsonl));
    let marked = json
        .lines()
        .filter(|l| l.contains("\"verified\":false"))
        .count();
    assert_eq!(marked as u32, recs, "rows marked unverified");
    assert_eq!(json.lines().count() as u32, want_rows);
    // --verified-only leaves them out.
    let mut o = opts(rows(), files, Format::Jsonl);
    o.verified_only = true;
    let (outcome, json) = run_text(&o);
    assert_eq!(outcome, Outcome::Findings);
    assert_eq!(json.lines().count() as u32, want_rows - recs);
    assert!(!json.contains("\"verified\":false"));
}

/// Every command over one file, with every format it offers.
fn every_command() -> Vec<(Cmd, &'static [Format])> {
    const TJ: &[Format] = &[Format::Text, Format::Json];
    vec![
        (Cmd::Info, TJ),
        (
            Cmd::Pages { from: 0, to: None },
            &[Format::Text, Format::Json, Format::Jsonl, Format::Csv],
        ),
        (Cmd::Types, &[Format::Text, Format::Json, Format::Csv]),
        (Cmd::Check, &[Format::Text, Format::Json, Format::Jsonl]),
        (Cmd::Extents, TJ),
        (Cmd::Segments, TJ),
        (Cmd::Lists, TJ),
        (Cmd::Indexes, TJ),
        (Cmd::Sdi, TJ),
        (Cmd::Page { page: 3 }, TJ),
        (
            Cmd::Records(RecordsOpts::default()),
            &[Format::Text, Format::Json, Format::Jsonl, Format::Csv],
        ),
        (Cmd::Schema(DefOpts::default()), TJ),
        (
            Cmd::Rows(RowsOpts {
                max_value_bytes: 1 << 20,
                ..RowsOpts::default()
            }),
            &[
                Format::Text,
                Format::Json,
                Format::Jsonl,
                Format::Csv,
                Format::Tsv,
                Format::Sql,
            ],
        ),
        (Cmd::Lsn, TJ),
        (Cmd::Fill, TJ),
        (
            Cmd::Audit,
            &[Format::Text, Format::Json, Format::Jsonl, Format::Csv],
        ),
    ]
}

/// A copy cut mid-file: shorter than FSP_SIZE says, and (a second copy)
/// ending inside a page. Every command reports it and exits 1; in text it
/// says so in its output.
#[test]
fn a_copy_cut_mid_file_is_a_finding_in_every_command() {
    let src = fixtures().join("mysql56/ai_int.ibd");
    let bytes = std::fs::read(&src).expect("fixture");
    let dir = scratch("cut");
    std::fs::copy(fixtures().join("mysql56/ai_int.frm"), dir.join("cut.frm")).expect("frm");
    std::fs::copy(fixtures().join("mysql56/ai_int.frm"), dir.join("torn.frm")).expect("frm");
    // 12 whole pages of 19 (FSP_SIZE 19, fixtures/manifest.tsv file_size).
    let cut = dir.join("cut.ibd");
    std::fs::write(&cut, &bytes[..12 * 16384]).expect("cut");
    // 12 pages and 5,000 bytes of the 13th.
    let torn = dir.join("torn.ibd");
    std::fs::write(&torn, &bytes[..12 * 16384 + 5000]).expect("torn");
    let mut ran = 0;
    for (file, words) in [(&cut, "FSP_SIZE"), (&torn, "torn tail")] {
        for (cmd, formats) in every_command() {
            for &format in formats {
                let (outcome, out) = run_text(&opts(cmd.clone(), vec![file.clone()], format));
                assert_eq!(
                    outcome,
                    Outcome::Findings,
                    "{} {cmd:?} {format:?}",
                    file.display()
                );
                if format == Format::Text {
                    assert!(
                        out.contains(words) || out.contains("truncated"),
                        "{} {cmd:?}: no word of the end of the file in:\n{out}",
                        file.display()
                    );
                }
                ran += 1;
            }
        }
    }
    assert!(ran > 60);
    let _ = Path::new("");
}

/// A space held open (`serve`: its model made once and kept) lists the
/// pages of every range asked as the command line does, whatever was asked
/// before: the first `pages` keeps its range's rows in the summary's pass,
/// and a later range those rows do not cover reads its pages. With the
/// rows of the first range taken for every range, a later range past it
/// was cut short.
#[test]
fn a_held_space_lists_every_range_as_the_command_line_does() {
    let path = fixtures().join("mariadb1011/uuid_char36_large.ibd");
    let n = std::fs::metadata(&path).unwrap().len() / 16384;
    let n = u32::try_from(n).unwrap();
    let ranges = [
        (n / 4, Some(n / 2)),
        (0, None),
        (n / 3, Some(n - 2)),
        (0, Some(n / 4)),
        (n / 4, Some(n / 2)),
    ];
    for format in [Format::Text, Format::Csv] {
        let held = opts(Cmd::Info, vec![path.clone()], format);
        let mut got = Vec::new();
        ibdscope_report::held::hold(&held, &path, &mut |runner| {
            for &(from, to) in &ranges {
                let o = opts(Cmd::Pages { from, to }, vec![path.clone()], format);
                let mut out = Vec::new();
                let outcome = runner(ibdscope_report::held::Ask::Run(&o), &mut out).unwrap();
                got.push((outcome, String::from_utf8_lossy(&out).into_owned()));
            }
        });
        assert_eq!(got.len(), ranges.len());
        for (&(from, to), got) in ranges.iter().zip(&got) {
            let want = run_text(&opts(Cmd::Pages { from, to }, vec![path.clone()], format));
            assert_eq!(got, &want, "{format:?} pages {from}..{to:?} held");
        }
    }
}
