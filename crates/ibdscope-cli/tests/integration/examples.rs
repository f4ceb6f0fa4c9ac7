//! The examples (`crates/ibdscope/examples/`) run on real files, and say
//! what the `ibdscope` binary says of the same file: `open_and_detect`
//! what `info --format json` gives (sizes, space id, pages, detection
//! evidence), `indexes` what `indexes --format json` gives (ids, names,
//! roots, levels, pages, fill), `verdicts` what `pages --format json`
//! gives (each page's verdict and its byte offset) and what
//! `check --format json` finds (its damaged and foreign pages and the
//! file's own findings, each with its page and byte offset in the file).
//!
//! `rows` and `deleted_rows` what `rows --format tsv` and `rows --deleted
//! --format tsv` give, `history` what `history --format csv` gives.
//!
//! Files: MySQL 5.6 (16K, ROW_FORMAT=COMPRESSED), MariaDB 10.11 (16K, 4K,
//! ROW_FORMAT=COMPRESSED, page_compressed, encrypted with its key file;
//! `fixtures/README.md`), one MySQL 8.0 corpus file (its SDI index), a
//! system tablespace of two data files and a table named by its datadir's
//! dictionary (`fixtures/instance/`), the history datadirs, and damaged
//! copies (a flipped byte, a cut tail) made in a scratch dir.
//!
//! They live with the binary's tests (the front door crate cannot depend
//! on the CLI, which is built on it), so the binary compared is the one
//! cargo built for this run.
#![allow(clippy::disallowed_macros, clippy::unwrap_used, clippy::expect_used)]
#![allow(
    clippy::indexing_slicing,
    clippy::panic,
    clippy::arithmetic_side_effects
)]

#[allow(dead_code)]
#[path = "../../../ibdscope/examples/open_and_detect.rs"]
mod open_and_detect;

#[allow(dead_code)]
#[path = "../../../ibdscope/examples/indexes.rs"]
mod indexes;

#[allow(dead_code)]
#[path = "../../../ibdscope/examples/verdicts.rs"]
mod verdicts;

#[allow(dead_code)]
#[path = "../../../ibdscope/examples/rows.rs"]
mod rows;

#[allow(dead_code)]
#[path = "../../../ibdscope/examples/history.rs"]
mod history;

#[allow(dead_code)]
#[path = "../../../ibdscope/examples/deleted_rows.rs"]
mod deleted_rows;

use ibdscope_prims::json::{self, Value};
use ibdscope_testkit::{corpus, fixtures};
use std::path::Path;
use std::process::Command;

/// The `ibdscope` binary cargo built for these tests.
fn binary() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_ibdscope"))
}

/// The binary's JSON output for `args`.
fn cli(args: &[&str], file: &Path, key: Option<&Path>) -> Value {
    let mut cmd = Command::new(binary());
    cmd.args(args).args(["--format", "json"]);
    if let Some(k) = key {
        cmd.arg("--key-file").arg(k);
    }
    let out = cmd.arg(file).output().expect("run ibdscope");
    assert!(
        out.status.code().is_some_and(|c| c <= 1),
        "ibdscope {args:?} {}: {}",
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    json::parse(&out.stdout).unwrap_or_else(|e| panic!("ibdscope {args:?}: not JSON: {e}"))
}

/// An example's `run`.
type Run = fn(&[String], &mut dyn std::io::Write) -> Result<(), Box<dyn std::error::Error>>;

/// An example's output on `file` (with `key`), as lines.
fn example(run: Run, file: &Path, key: Option<&Path>) -> Vec<String> {
    let mut args = vec![file.to_string_lossy().into_owned()];
    args.extend(key.map(|k| k.to_string_lossy().into_owned()));
    let mut out = Vec::new();
    run(&args, &mut out).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    String::from_utf8(out)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

fn num(v: &Value, k: &str) -> String {
    match v.get(k) {
        Some(Value::Number(n)) => n.clone(),
        other => panic!("{k}: {other:?}"),
    }
}

fn arr<'v>(v: &'v Value, k: &str) -> &'v [Value] {
    v.get(k)
        .and_then(Value::as_array)
        .unwrap_or_else(|| panic!("no {k}"))
}

/// `open_and_detect` against `info`.
fn detect_equals_info(file: &Path, key: Option<&Path>) {
    let got: Vec<String> = example(open_and_detect::run, file, key)
        .into_iter()
        .filter(|l| !l.starts_with("diagnostic: "))
        .collect();
    let info = cli(&["info"], file, key);
    let mut want = vec![format!(
        "page_size {} physical {} space_id {} pages {}",
        num(&info, "page_size"),
        num(&info, "physical_page_size"),
        num(&info, "space_id"),
        num(&info, "pages")
    )];
    want.extend(
        arr(&info, "detection")
            .iter()
            .map(|e| format!("evidence: {}", e.as_str().unwrap())),
    );
    assert_eq!(
        got,
        want,
        "{}: open_and_detect against info",
        file.display()
    );
}

/// `indexes` against `indexes`; the lines, for more checks.
fn indexes_equal_cli(file: &Path, key: Option<&Path>) -> Vec<String> {
    let got = example(indexes::run, file, key);
    let doc = cli(&["indexes"], file, key);
    let want: Vec<String> = arr(&doc, "indexes")
        .iter()
        .map(|i| {
            let id = num(i, "index_id");
            let id = if id == u64::MAX.to_string() {
                "SDI".into()
            } else {
                id
            };
            let name = i.get("index_name").and_then(Value::as_str).unwrap_or("-");
            let fill = match i.get("fill") {
                Some(Value::Number(n)) => n.clone(),
                _ => "-".into(),
            };
            format!(
                "{id} {name} root {} levels {} pages {}+{} fill {fill}",
                num(i, "root_page"),
                num(i, "height"),
                num(i, "leaf_pages"),
                num(i, "internal_pages")
            )
        })
        .collect();
    assert!(!want.is_empty(), "{}: no index", file.display());
    assert_eq!(got, want, "{}: indexes against the CLI's", file.display());
    got
}

/// `verdicts` against `pages` and `check`; the finding lines.
fn verdicts_equal_cli(file: &Path, key: Option<&Path>) -> Vec<String> {
    let got = example(verdicts::run, file, key);
    let (findings, pages): (Vec<String>, Vec<String>) =
        got.into_iter().partition(|l| l.starts_with("finding: "));
    let doc = cli(&["pages"], file, key);
    let want: Vec<String> = arr(&doc, "pages")
        .iter()
        .map(|p| {
            let verdict = p.get("verdict").and_then(Value::as_str).unwrap();
            format!("{} {verdict} {}", num(p, "page"), num(p, "verdict_offset"))
        })
        .collect();
    assert_eq!(pages, want, "{}: verdicts against pages", file.display());
    let check = cli(&["check"], file, key);
    let mut want: Vec<String> = arr(&check, "file_findings")
        .iter()
        .map(|f| {
            let page = match f.get("page") {
                Some(Value::Number(n)) => n.clone(),
                _ => "-1".into(),
            };
            let reason = f.get("reason").and_then(Value::as_str).unwrap();
            format!("finding: page {page} offset {}: {reason}", num(f, "offset"))
        })
        .collect();
    let findings_words = ["zeroed", "torn", "corrupt", "foreign"];
    let mut pages: Vec<String> = ["invalid", "freed_invalid"]
        .iter()
        .flat_map(|k| arr(&check, k))
        .filter(|b| findings_words.contains(&b.get("verdict").and_then(Value::as_str).unwrap()))
        .map(|b| {
            let verdict = b.get("verdict").and_then(Value::as_str).unwrap();
            let evidence = b.get("evidence").and_then(Value::as_str).unwrap();
            let (page, at) = (num(b, "page"), num(b, "offset"));
            format!("finding: page {page} offset {at}: {verdict}: {evidence}")
        })
        .collect();
    pages.sort_by_key(|l| l.split(' ').nth(2).and_then(|n| n.parse::<u64>().ok()));
    want.extend(pages);
    assert_eq!(findings, want, "{}: findings against check", file.display());
    findings
}

fn all(file: &Path, key: Option<&Path>) -> Vec<String> {
    detect_equals_info(file, key);
    let names = indexes_equal_cli(file, key);
    let findings = verdicts_equal_cli(file, key);
    assert!(findings.is_empty(), "{}: {findings:?}", file.display());
    names
}

/// The indexes the server listed for the fixture `rel`
/// (`fixtures/indexes.tsv`: INNODB_SYS_INDEXES), each found by its id
/// with the server's name and root in the example's lines.
fn names_are_the_servers(rel: &str, lines: &[String]) {
    let rows: Vec<_> = ibdscope_testkit::tsv(&fixtures().join("indexes.tsv"))
        .into_iter()
        .filter(|r| r["path"] == rel)
        .collect();
    assert!(!rows.is_empty(), "{rel}: not in fixtures/indexes.tsv");
    for r in rows {
        let want = format!(
            "{} {} root {} ",
            r["index_id"], r["index_name"], r["root_page"]
        );
        assert!(
            lines.iter().any(|l| l.starts_with(&want)),
            "{rel}: no line {want:?} in {lines:?}"
        );
    }
}

#[test]
fn mysql56_examples_say_what_the_cli_says() {
    // The .frm beside each file names the indexes.
    for rel in ["mysql56/secondary.ibd", "mysql56/rf_compressed8.ibd"] {
        let lines = all(&fixtures().join(rel), None);
        names_are_the_servers(rel, &lines);
    }
}

#[test]
fn mariadb_examples_say_what_the_cli_says() {
    for f in [
        "mariadb1011/secondary.ibd",
        "mariadb1011-4k/secondary.ibd",
        "mariadb1011/rf_compressed8.ibd",
        "mariadb1011/pagecomp.ibd",
    ] {
        let lines = all(&fixtures().join(f), None);
        names_are_the_servers(f, &lines);
    }
}

#[test]
fn encrypted_mariadb_examples_say_what_the_cli_says_with_the_key() {
    let key = fixtures().join("keys/test-keys.txt");
    for f in ["crypt/cbc/ai_int.ibd", "crypt/crc32-ctr/ai_int.ibd"] {
        let file = fixtures().join(f);
        let names = all(&file, Some(&key));
        // Read through the key: the clustered index has its tree.
        assert!(
            names.iter().all(|l| !l.ends_with("fill -")),
            "{f}: {names:?}"
        );
    }
}

#[test]
fn mysql80_corpus_file_shows_its_sdi_index_as_sdi() {
    let Some(dir) = corpus() else { return };
    let file = dir.join("mysql-8.0/sakila_mysql8040_staff.ibd");
    let names = all(&file, None);
    assert!(names.iter().any(|l| l.starts_with("SDI SDI ")), "{names:?}");
    // The SDI names the other indexes.
    assert!(names.iter().any(|l| l.contains(" PRIMARY ")), "{names:?}");
}

#[test]
fn findings_of_damaged_copies_have_the_places_check_gives() {
    let dir = super::common::scratch("examples-front");
    std::fs::create_dir_all(&dir).unwrap();
    let src = std::fs::read(fixtures().join("mysql56/secondary.ibd")).unwrap();
    // A byte flipped in the middle of page 5, and a copy cut inside its
    // last page.
    let mut flipped = src.clone();
    flipped[5 * 16384 + 8000] ^= 0x5a;
    let cut = &src[..src.len() - 1000];
    for (name, bytes) in [("flipped.ibd", &flipped[..]), ("cut.ibd", cut)] {
        let file = dir.join(name);
        std::fs::write(&file, bytes).unwrap();
        let findings = verdicts_equal_cli(&file, None);
        assert!(!findings.is_empty(), "{name}: no finding");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The rows example prints what `ibdscope rows --format tsv` prints (the
/// server's `SELECT … INTO OUTFILE` text, which the CLI's own tests hold
/// against the servers' dumps), row for row, on tables of integers, text
/// and binary columns (BIT columns, which the CLI writes in decimal, are
/// not among them): MySQL 5.6 and MariaDB 10.11 16K and 4K,
/// ROW_FORMAT=COMPRESSED, page_compressed, MariaDB encrypted (with its
/// key file) and a MySQL 8.0 corpus file (its SDI); on a copy with a leaf
/// zeroed it reads the rows of every other leaf, as the CLI does.
#[test]
fn rows_example_prints_what_the_cli_prints() {
    let zeroed = {
        let src = fixtures().join("mysql56/seq_int.ibd");
        let mut d = std::fs::read(&src).unwrap();
        let dir = super::common::scratch("examples-rows");
        std::fs::create_dir_all(&dir).unwrap();
        // Page 5: a leaf of the clustered index in use (not its first).
        d[5 * 16384..6 * 16384].fill(0);
        let f = dir.join("seq_int.ibd");
        std::fs::write(&f, &d).unwrap();
        std::fs::copy(src.with_extension("frm"), f.with_extension("frm")).unwrap();
        f
    };
    let key = fixtures().join("keys/test-keys.txt");
    let mut files: Vec<(std::path::PathBuf, Option<&Path>)> = [
        "mysql56/ai_int.ibd",
        "mysql56/seq_int.ibd",
        "mysql56/rf_compressed8.ibd",
        "mariadb1011/ai_int.ibd",
        "mariadb1011-4k/ai_int.ibd",
        "mariadb1011/rf_compressed8.ibd",
        "mariadb1011-pc/pc_lz4.ibd",
    ]
    .iter()
    .map(|f| (fixtures().join(f), None))
    .collect();
    files.push((fixtures().join("crypt/cbc/ai_int.ibd"), Some(key.as_path())));
    files.push((zeroed, None));
    // A MySQL 8.0 file: its definition from its SDI.
    if let Some(c) = corpus() {
        files.push((c.join("mysql-8.0/sakila_mysql8040_staff.ibd"), None));
    }
    for (file, key) in files {
        let mut args = vec![file.to_string_lossy().into_owned()];
        args.extend(key.map(|k| k.to_string_lossy().into_owned()));
        let (mut out, mut err) = (Vec::new(), Vec::new());
        rows::run(&args, &mut out, &mut err).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let mut cmd = Command::new(binary());
        cmd.args(["rows", "--format", "tsv"]);
        if let Some(k) = key {
            cmd.arg("--key-file").arg(k);
        }
        let cli = cmd.arg(&file).output().expect("run ibdscope");
        assert!(!cli.stdout.is_empty(), "{}: no rows", file.display());
        assert!(
            out == cli.stdout,
            "{}: the example's rows differ from `ibdscope rows --format tsv`",
            file.display()
        );
    }
}

/// The history example prints, for every row of the fixtures' history
/// datadirs (MySQL 5.6 with its undo in ibdata1, with two undo
/// tablespaces, MariaDB 10.11 with three), the versions
/// `ibdscope history --format csv` prints (key, version, transaction,
/// delete mark, undo page and offset), which the CLI's own tests hold
/// against what the servers wrote (`fixtures/history/history.tsv`).
#[test]
fn history_example_prints_the_versions_the_cli_prints() {
    for name in ["mysql56", "mysql56-undo2", "mariadb1011-undo3"] {
        let dir = super::common::unpack(
            &format!("history/{name}.tar.gz"),
            &format!("examples-history-{name}"),
        );
        let file = dir.join("fx/h.ibd");
        let args = vec![file.to_string_lossy().into_owned()];
        let (mut out, mut err) = (Vec::new(), Vec::new());
        history::run(&args, &mut out, &mut err)
            .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let cli = Command::new(binary())
            .args(["history", "--format", "csv"])
            .arg(&file)
            .output()
            .expect("run ibdscope");
        let want: Vec<String> = String::from_utf8_lossy(&cli.stdout)
            .lines()
            .skip(1)
            .map(|l| l.splitn(7, ',').take(6).collect::<Vec<_>>().join(","))
            .collect();
        let got: Vec<String> = String::from_utf8(out)
            .unwrap()
            .lines()
            .map(str::to_string)
            .collect();
        assert!(want.len() > 3, "{name}: {} lines from the CLI", want.len());
        assert_eq!(
            got, want,
            "{name}: the example's versions differ from the CLI's"
        );
    }
}

/// Opened by its first data file, the system tablespace of a datadir
/// whose `innodb_data_file_path` is `ibdata1:3M;ibdata2:4M:autoextend`
/// (`fixtures/instance/mariadb1011-split`) is both files joined:
/// `open_and_detect`, `indexes` and `verdicts` say what `info`,
/// `indexes`, `pages` and `check` say of it; it has the pages of the two
/// files the server left (`fixtures/instance/facts.tsv`), and its indexes
/// are the server's of space 0 (`INNODB_SYS_INDEXES`, `sys_indexes.tsv`,
/// each named with its table from `sys_tables.tsv`).
#[test]
fn examples_read_a_system_tablespace_of_two_data_files() {
    let dir = super::common::instance_copy("mariadb1011-split");
    let ibdata1 = dir.join("ibdata1");
    let facts = ibdscope_testkit::tsv(&fixtures().join("instance/facts.tsv"));
    let size = |f: &str| -> u64 {
        let r = facts
            .iter()
            .find(|r| r["datadir"] == "mariadb1011-split" && r["fact"] == "file" && r["key"] == f)
            .unwrap_or_else(|| panic!("no size of {f}"));
        r["value"].parse().unwrap()
    };
    let lines = example(open_and_detect::run, &ibdata1, None);
    let pages = (size("ibdata1") + size("ibdata2")) / 16384;
    assert!(
        lines[0].ends_with(&format!(" pages {pages}")),
        "{lines:?}: {pages} pages"
    );
    let names = all(&ibdata1, None);
    let rows = ibdscope_testkit::tsv(&fixtures().join("instance/sys_indexes.tsv"));
    let space0: Vec<_> = rows
        .iter()
        .filter(|r| r["datadir"] == "mariadb1011-split" && r["space"] == "0")
        .collect();
    assert!(!space0.is_empty());
    let tables = ibdscope_testkit::tsv(&fixtures().join("instance/sys_tables.tsv"));
    for r in space0 {
        // The system tablespace's indexes are named `table.index`.
        let table = tables
            .iter()
            .find(|t| t["datadir"] == "mariadb1011-split" && t["table_id"] == r["table_id"])
            .unwrap_or_else(|| panic!("table {} not in sys_tables.tsv", r["table_id"]));
        let want = format!(
            "{} {}.{} root {} ",
            r["index_id"], table["name"], r["name"], r["page_no"]
        );
        assert!(
            names.iter().any(|l| l.starts_with(&want)),
            "no line {want:?} in {names:?}"
        );
    }
}

/// A table with no `.frm` beside it, in a datadir (`ibdata1` in the
/// directory above its database's): `indexes` names its indexes from the
/// datadir's dictionary as `ibdscope indexes` does, with the server's ids,
/// names and roots (`fixtures/instance/mysql56-fpt`, `INNODB_SYS_INDEXES`).
#[test]
fn indexes_example_names_a_table_from_its_datadirs_dictionary() {
    let src = super::common::instance_copy("mysql56-fpt");
    let dir = super::common::scratch("examples-datadir");
    std::fs::create_dir_all(dir.join("fx")).unwrap();
    std::fs::copy(src.join("ibdata1"), dir.join("ibdata1")).unwrap();
    let file = dir.join("fx/t_basic.ibd");
    std::fs::copy(src.join("fx/t_basic.ibd"), &file).unwrap();
    let names = indexes_equal_cli(&file, None);
    let tables = ibdscope_testkit::tsv(&fixtures().join("instance/sys_tables.tsv"));
    let table = tables
        .iter()
        .find(|r| r["datadir"] == "mysql56-fpt" && r["name"] == "fx/t_basic")
        .expect("fx/t_basic in sys_tables.tsv");
    let rows = ibdscope_testkit::tsv(&fixtures().join("instance/sys_indexes.tsv"));
    let mine: Vec<_> = rows
        .iter()
        .filter(|r| r["datadir"] == "mysql56-fpt" && r["table_id"] == table["table_id"])
        .collect();
    assert_eq!(mine.len(), 3, "PRIMARY, idx_name, idx_qty_big");
    for r in mine {
        let want = format!("{} {} root {} ", r["index_id"], r["name"], r["page_no"]);
        assert!(
            names.iter().any(|l| l.starts_with(&want)),
            "no line {want:?} in {names:?}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The deleted rows example prints what `ibdscope rows --deleted --format
/// tsv` prints (page, offset, origin, the row; the CLI's completeness
/// column aside), on the deleted-rows fixtures of MySQL 5.6 (delete-marked
/// and purged: the records on free lists) and MariaDB 10.11
/// (delete-marked), and on what the free lists of MySQL 5.6 and MariaDB
/// 10.11 (16K, 4K) ROW_FORMAT=COMPRESSED, page_compressed and a MySQL 8.0
/// corpus file hold; the delete-marked rows are the 75 the server
/// deleted, with the values it dumped before the DELETE
/// (`fixtures/deleted.tsv`).
#[test]
fn deleted_rows_example_prints_what_the_cli_prints() {
    let truth = std::fs::read_to_string(fixtures().join("deleted.tsv")).unwrap();
    let mut files: Vec<(String, std::path::PathBuf)> = [
        "mysql56/deleted_marked.ibd",
        "mysql56/deleted_purged.ibd",
        "mariadb1011/deleted_marked.ibd",
        // What the other fixtures' free lists hold (stale copies).
        "mysql56/rf_compressed8.ibd",
        "mariadb1011/ai_int.ibd",
        "mariadb1011-4k/ai_int.ibd",
        "mariadb1011/rf_compressed8.ibd",
        "mariadb1011-pc/pc_lz4.ibd",
    ]
    .iter()
    .map(|rel| (rel.to_string(), fixtures().join(rel)))
    .collect();
    if let Some(c) = corpus() {
        let rel = "mysql-8.0/sakila_mysql8040_staff.ibd";
        files.push((rel.to_string(), c.join(rel)));
    }
    for (rel, file) in files {
        let rel = rel.as_str();
        let got = example(deleted_rows::run, &file, None);
        let cli = Command::new(binary())
            .args(["rows", "--deleted", "--format", "tsv"])
            .arg(&file)
            .output()
            .expect("run ibdscope");
        let want: Vec<String> = String::from_utf8(cli.stdout)
            .unwrap()
            .lines()
            .map(|l| {
                let f: Vec<&str> = l.splitn(5, '\t').collect();
                format!("{}\t{}\t{}\t{}", f[0], f[1], f[2], f[4])
            })
            .collect();
        if rel.contains("deleted_") {
            assert!(!want.is_empty(), "{rel}: no deleted row from the CLI");
        }
        assert_eq!(
            got, want,
            "{rel}: the example's deleted rows differ from the CLI's"
        );
        if rel.ends_with("deleted_marked.ibd") {
            let mut marked: Vec<&str> = got
                .iter()
                .filter_map(|l| {
                    let f: Vec<&str> = l.splitn(4, '\t').collect();
                    (f[2] == "delete-marked").then_some(f[3])
                })
                .collect();
            let mut server: Vec<&str> = truth
                .lines()
                .filter_map(|l| l.strip_prefix(rel)?.strip_prefix("\tdelete-marked\t"))
                .collect();
            marked.sort_unstable();
            server.sort_unstable();
            assert_eq!(server.len(), 75, "{rel}");
            assert_eq!(marked, server, "{rel}: the server's deleted rows");
        }
    }
}
