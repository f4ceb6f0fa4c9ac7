//! Whole datadirs (`fixtures/instance/`): the system tablespace across its
//! files, the InnoDB dictionary against the servers' own
//! `INFORMATION_SCHEMA.INNODB_SYS_*`, rows from the dictionary alone
//! against the servers' dumps, and damaged or cut dictionaries.

use super::common::{fixtures, instance_copy, read_tsv, run, run_json, scratch, Json};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

const DATADIRS: [&str; 3] = ["mysql56-fpt", "mysql56-shared", "mariadb1011-split"];

/// The rows of `fixtures/instance/<file>.tsv` for `datadir`, each as its
/// values in the header's order (less the datadir column).
fn truth(file: &str, datadir: &str) -> BTreeSet<Vec<String>> {
    let path = fixtures().join(format!("instance/{file}.tsv"));
    let text = std::fs::read_to_string(&path).expect("truth");
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().expect("header").split('\t').collect();
    assert_eq!(header[0], "datadir");
    lines
        .map(|l| l.split('\t').map(str::to_string).collect::<Vec<_>>())
        .filter(|v| v[0] == datadir)
        .map(|v| v[1..].to_vec())
        .collect()
}

fn s(v: impl ToString) -> String {
    v.to_string()
}

/// `tables --format json` of a datadir.
fn tables(dir: &Path) -> (Option<i32>, Json) {
    run_json(&["tables", "--format", "json", dir.to_str().expect("utf-8")])
}

/// A fresh copy of an unpacked datadir, to change.
fn copy_of(name: &str, tag: &str) -> PathBuf {
    let from = instance_copy(name);
    let to = scratch(&format!("instance-{name}-{tag}"));
    let _ = std::fs::remove_dir_all(&to);
    copy_dir(&from, &to);
    to
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for e in std::fs::read_dir(from).expect("read_dir") {
        let e = e.expect("entry");
        let p = e.path();
        if p.is_dir() {
            copy_dir(&p, &to.join(e.file_name()));
        } else {
            std::fs::copy(&p, to.join(e.file_name())).expect("copy");
        }
    }
}

#[test]
fn tables_equal_the_servers_dictionary() {
    for d in DATADIRS {
        let dir = instance_copy(d);
        let (code, j) = tables(&dir);
        assert_eq!(code, Some(0), "{d}: tables exit");
        let mut t = BTreeSet::new();
        let mut c = BTreeSet::new();
        let mut ix = BTreeSet::new();
        let mut f = BTreeSet::new();
        let mut v = BTreeSet::new();
        for tb in j.get("tables").arr() {
            let id = tb.get("table_id").u64();
            t.insert(vec![
                s(id),
                s(tb.get("name").str()),
                s(tb.get("flag").u64()),
                s(tb.get("n_cols").u64()),
                s(tb.get("space").u64()),
                s(tb.get("row_format").str()),
            ]);
            for col in tb.get("columns").arr() {
                c.insert(vec![
                    s(id),
                    s(col.get("name").str()),
                    s(col.get("pos").u64()),
                    s(col.get("mtype").u64()),
                    s(col.get("prtype").u64()),
                    s(col.get("len").u64()),
                ]);
            }
            for i in tb.get("indexes").arr() {
                let iid = i.get("index_id").u64();
                ix.insert(vec![
                    s(iid),
                    s(i.get("name").str()),
                    s(id),
                    s(i.get("type").u64()),
                    s(i.get("n_fields").u64()),
                    s(i.get("page_no").u64()),
                    s(i.get("space").u64()),
                ]);
                for fl in i.get("fields").arr() {
                    f.insert(vec![
                        s(iid),
                        s(fl.get("name").str()),
                        s(fl.get("pos").u64()),
                    ]);
                }
            }
            for vb in tb.get("virtual").arr() {
                v.insert(vec![
                    s(id),
                    s(vb.get("pos").u64()),
                    s(vb.get("base_pos").u64()),
                ]);
            }
        }
        assert_eq!(t, truth("sys_tables", d), "{d}: INNODB_SYS_TABLES");
        assert_eq!(c, truth("sys_columns", d), "{d}: INNODB_SYS_COLUMNS");
        assert_eq!(ix, truth("sys_indexes", d), "{d}: INNODB_SYS_INDEXES");
        assert_eq!(f, truth("sys_fields", d), "{d}: INNODB_SYS_FIELDS");
        assert_eq!(v, truth("sys_virtual", d), "{d}: INNODB_SYS_VIRTUAL");
        // Every table with its own space has its file there, with its id.
        for tb in j.get("tables").arr() {
            let status = tb.get("file_status").str();
            if tb.get("space").u64() == 0 {
                assert_eq!(status, "system", "{d}");
            } else {
                assert_eq!(status, "present", "{d}: {}", tb.get("name").str());
            }
        }
        // The dictionary header's latest ids are the largest the server
        // lists (dict0boot.cc dict_hdr_get_new_id writes every new id;
        // nothing was dropped in these datadirs after the servers' own
        // set-up).
        let hdr = j.get("dict_header");
        let max = |set: &BTreeSet<Vec<String>>, i: usize| {
            set.iter()
                .map(|r| r[i].parse::<u64>().expect("id"))
                .max()
                .expect("rows")
        };
        assert_eq!(
            hdr.get("table_id").u64(),
            max(&truth("sys_tables", d), 0),
            "{d}"
        );
        assert_eq!(
            hdr.get("index_id").u64(),
            max(&truth("sys_indexes", d), 0),
            "{d}"
        );
        // The space id: at least the largest alive (MySQL 5.6's packaged
        // datadir assigned space 6 to a table dropped before it was
        // packaged, as table id 20 is missing from its dictionary; the
        // datadirs that created tables after it name their last one).
        let max_space = max(&truth("sys_tables", d), 4);
        let hdr_space = hdr.get("max_space_id").u64();
        if d == "mysql56-shared" {
            assert!(hdr_space >= max_space, "{d}: {hdr_space} < {max_space}");
        } else {
            assert_eq!(hdr_space, max_space, "{d}");
        }
    }
}

#[test]
fn the_system_tablespace_is_read_across_its_data_files() {
    let dir = instance_copy("mariadb1011-split");
    let facts = read_tsv(&fixtures().join("instance/facts.tsv"));
    let size = |f: &str| -> u64 {
        facts
            .iter()
            .find(|r| r["datadir"] == "mariadb1011-split" && r["key"] == f)
            .map(|r| r["value"].parse().expect("size"))
            .expect("fact")
    };
    let ibdata1 = dir.join("ibdata1");
    let (code, j) = run_json(&["info", "--format", "json", ibdata1.to_str().expect("utf-8")]);
    assert_eq!(code, Some(0), "info on ibdata1 + ibdata2");
    assert_eq!(
        j.get("pages").u64(),
        (size("ibdata1") + size("ibdata2")) / 16384
    );
    let sys = j.get("system");
    let dw = sys.get("trx_sys").get("doublewrite");
    // buf0dblwr.cc buf_dblwr_create: block 1 starts at FSP_EXTENT_SIZE,
    // block 2 at 2 * FSP_EXTENT_SIZE (64 pages at 16 KiB).
    assert!(dw.get("magic_ok").bool());
    assert_eq!(dw.get("block1").u64(), 64);
    assert_eq!(dw.get("block2").u64(), 128);
    // The first rollback segment is page 6 of space 0 (FSP_FIRST_RSEG_PAGE_NO).
    let first = &sys.get("trx_sys").get("rsegs").arr()[0];
    assert_eq!((first.get("space").u64(), first.get("page").u64()), (0, 6));
    // check: the doublewrite copies and the pages of ibdata2 all verify.
    let o = run(&["check", ibdata1.to_str().expect("utf-8")]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    // ibdata1 alone is shorter than FSP_SIZE: a finding, not a hang.
    let alone = scratch("instance-ibdata1-alone");
    let _ = std::fs::remove_dir_all(&alone);
    std::fs::create_dir_all(&alone).expect("mkdir");
    std::fs::copy(&ibdata1, alone.join("ibdata1")).expect("copy");
    let o = run(&["check", alone.join("ibdata1").to_str().expect("utf-8")]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stdout).contains("FSP_SIZE"));
}

/// `audit DATADIR` reads the system tablespace as one space: the server
/// shut down cleanly with `ibdata1` continued by `ibdata2`, so the datadir
/// audits clean, `ibdata2` is no file of its own (it was audited alone:
/// "unreadable", and `ibdata1` "truncated"), and the dictionary lists as
/// many tables as the server's INNODB_SYS_TABLES.
#[test]
fn audit_reads_a_split_system_tablespace_as_one_space() {
    let dir = instance_copy("mariadb1011-split");
    let d = dir.to_str().expect("utf-8");
    let (code, j) = run_json(&["audit", "--format", "json", d]);
    assert_eq!(code, Some(0), "audit of a clean split datadir");
    let files: Vec<String> = j
        .get("files")
        .arr()
        .iter()
        .map(|f| s(f.get("file").str()))
        .collect();
    assert!(files.iter().any(|f| f.ends_with("/ibdata1")), "{files:?}");
    assert!(!files.iter().any(|f| f.ends_with("/ibdata2")), "{files:?}");
    let dd = &j.get("datadirs").arr()[0];
    let system: Vec<String> = dd
        .get("system_files")
        .arr()
        .iter()
        .map(|f| s(f.str()))
        .collect();
    assert_eq!(system.len(), 2, "{system:?}");
    assert!(system[1].ends_with("/ibdata2"));
    let ibdata1 = j
        .get("files")
        .arr()
        .iter()
        .find(|f| f.get("file").str().ends_with("/ibdata1"))
        .expect("ibdata1");
    let facts = read_tsv(&fixtures().join("instance/facts.tsv"));
    let size = |f: &str| -> u64 {
        facts
            .iter()
            .find(|r| r["datadir"] == "mariadb1011-split" && r["key"] == f)
            .map(|r| r["value"].parse().expect("size"))
            .expect("fact")
    };
    assert_eq!(
        ibdata1.get("pages").u64(),
        (size("ibdata1") + size("ibdata2")) / 16384
    );
    assert_eq!(
        dd.get("dictionary").get("tables").u64() as usize,
        truth("sys_tables", "mariadb1011-split").len()
    );
    // ibdata2 that does not continue ibdata1 (ibdata1's own first page in
    // its place): audited alone, and named as a datadir finding.
    let bad = copy_of("mariadb1011-split", "audit-ibdata2-foreign");
    let first = std::fs::read(bad.join("ibdata1")).expect("ibdata1");
    let mut b2 = std::fs::read(bad.join("ibdata2")).expect("ibdata2");
    b2[..16384].copy_from_slice(&first[..16384]);
    std::fs::write(bad.join("ibdata2"), &b2).expect("write");
    let o = run(&["audit", bad.to_str().expect("utf-8")]);
    assert_eq!(o.status.code(), Some(1));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("ibdata2: not read: its first page (byte offset 0) is not numbered"),
        "{text}"
    );
    // A damaged page of ibdata2 is named by its offset in ibdata2 (the
    // page after ibdata1's last: ibdata1's size in pages, facts.tsv).
    let bad = copy_of("mariadb1011-split", "audit-ibdata2-page");
    let mut b2 = std::fs::read(bad.join("ibdata2")).expect("ibdata2");
    for x in &mut b2[16384 + 200..16384 + 300] {
        *x ^= 0x5a;
    }
    std::fs::write(bad.join("ibdata2"), &b2).expect("write");
    let o = run(&["audit", bad.to_str().expect("utf-8")]);
    assert_eq!(o.status.code(), Some(1));
    let text = String::from_utf8_lossy(&o.stdout);
    let page = size("ibdata1") / 16384 + 1;
    assert!(
        text.contains(&format!("page {page} at byte offset 16384 of "))
            && text.contains("ibdata2: corrupt"),
        "{text}"
    );
}

/// `--data-file-path` names the system tablespace's files as the server's
/// `innodb_data_file_path` does: the split datadir with its files renamed
/// `ibd_a` and `ibd_b` reads as the server's dictionary, and audits clean.
#[test]
fn data_files_named_by_data_file_path() {
    let dir = copy_of("mariadb1011-split", "data-file-path");
    std::fs::rename(dir.join("ibdata1"), dir.join("ibd_a")).expect("mv");
    std::fs::rename(dir.join("ibdata2"), dir.join("ibd_b")).expect("mv");
    let d = dir.to_str().expect("utf-8");
    let spec = "ibd_a:3M;ibd_b:12M:autoextend";
    let (code, j) = run_json(&["tables", "--data-file-path", spec, "--format", "json", d]);
    assert_eq!(code, Some(0));
    let names: BTreeSet<String> = j
        .get("tables")
        .arr()
        .iter()
        .map(|t| s(t.get("name").str()))
        .collect();
    let want: BTreeSet<String> = truth("sys_tables", "mariadb1011-split")
        .iter()
        .map(|r| r[1].clone())
        .collect();
    assert_eq!(names, want);
    let (code, j) = run_json(&["audit", "--data-file-path", spec, "--format", "json", d]);
    assert_eq!(code, Some(0));
    let system = j.get("datadirs").arr()[0].get("system_files").arr().len();
    assert_eq!(system, 2);
    let ibd = dir.join("fx/t_basic.ibd");
    let o = run(&[
        "rows",
        "--data-file-path",
        spec,
        "--datadir",
        d,
        ibd.to_str().expect("utf-8"),
    ]);
    assert_eq!(o.status.code(), Some(0));
    // Without it there is no ibdata1; a listed file that is not there is a
    // finding and the space is read up to it.
    assert_eq!(run(&["tables", d]).status.code(), Some(2));
    let o = run(&[
        "tables",
        "--data-file-path",
        "ibd_a:3M;ibd_c:12M:autoextend",
        d,
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stdout).contains("ibd_c: no such file"));
}

/// The columns of `t_types` whose exact type the dictionary does not hold
/// (`data0type.h`: DECIMAL and BIT are `DATA_FIXBINARY` with their byte
/// length only; ENUM and SET are `DATA_INT` with the field type
/// `MYSQL_TYPE_STRING`, without their labels): each must carry a note.
const NOTED: [(&str, &str); 4] = [
    ("t_types", "dec1"),
    ("t_types", "e"),
    ("t_types", "s"),
    ("t_types", "bt"),
];
/// Those whose values cannot be rendered as the server does (BIT's values
/// are the same at any width): skipped in the row comparison.
const INEXACT: [(&str, &str); 3] = [("t_types", "dec1"), ("t_types", "e"), ("t_types", "s")];

#[test]
fn rows_from_the_dictionary_alone_equal_the_server_dumps() {
    let mut compared = 0;
    for d in DATADIRS {
        let dir = copy_of(d, "nofrm");
        for e in std::fs::read_dir(dir.join("fx")).expect("fx") {
            let p = e.expect("entry").path();
            if p.extension().is_some_and(|x| x == "frm") {
                std::fs::remove_file(p).expect("rm .frm");
            }
        }
        let rows_dir = fixtures().join("instance/rows");
        let mut dumps: Vec<PathBuf> = std::fs::read_dir(&rows_dir)
            .expect("rows")
            .map(|e| e.expect("entry").path())
            .filter(|p| {
                p.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with(&format!("{d}__")))
            })
            .collect();
        dumps.sort();
        assert!(!dumps.is_empty(), "{d}: no dumps");
        for dump in dumps {
            let name = dump
                .file_name()
                .expect("name")
                .to_string_lossy()
                .into_owned();
            let table = name
                .trim_start_matches(&format!("{d}__"))
                .trim_end_matches(".tsv")
                .to_string();
            let ibd = dir.join(format!("fx/{table}.ibd"));
            let ibdata1 = dir.join("ibdata1");
            let qualified = format!("fx/{table}");
            let args: Vec<&str> = if ibd.is_file() {
                vec!["rows", ibd.to_str().expect("utf-8"), "--format", "tsv"]
            } else {
                vec![
                    "rows",
                    ibdata1.to_str().expect("utf-8"),
                    "--table",
                    &qualified,
                    "--format",
                    "tsv",
                ]
            };
            let o = run(&args);
            // Values shown that are not the server's (DECIMAL's bytes,
            // ENUM's and SET's numbers) are a finding.
            let inexact = INEXACT.iter().any(|(t, _)| *t == table);
            assert_eq!(
                o.status.code(),
                Some(if inexact { 1 } else { 0 }),
                "{d}/{table}: {}",
                String::from_utf8_lossy(&o.stderr)
            );
            let want = std::fs::read_to_string(&dump).expect("dump");
            let got = String::from_utf8(o.stdout).expect("utf-8");
            let skip: Vec<usize> = {
                let sj = if ibd.is_file() {
                    run_json(&["schema", "--format", "json", ibd.to_str().expect("utf-8")]).1
                } else {
                    run_json(&[
                        "schema",
                        "--format",
                        "json",
                        ibdata1.to_str().expect("utf-8"),
                        "--table",
                        &qualified,
                    ])
                    .1
                };
                assert_eq!(sj.get("source").str(), "dictionary", "{d}/{table}");
                let cols: Vec<&Json> = sj
                    .get("columns")
                    .arr()
                    .iter()
                    .filter(|c| c.get("hidden").str() == "visible" && !c.get("virtual").bool())
                    .collect();
                for (i, c) in cols.iter().enumerate() {
                    let noted = NOTED.contains(&(table.as_str(), c.get("name").str()));
                    assert_eq!(
                        c.opt("dictionary_note").is_some(),
                        noted,
                        "{d}/{table}.{}: a note exactly where the dictionary lacks the type ({i})",
                        c.get("name").str()
                    );
                }
                cols.iter()
                    .enumerate()
                    .filter(|(_, c)| INEXACT.contains(&(table.as_str(), c.get("name").str())))
                    .map(|(i, _)| i)
                    .collect()
            };
            let strip = |text: &str| -> Vec<Vec<String>> {
                text.lines()
                    .map(|l| {
                        l.split('\t')
                            .enumerate()
                            .filter(|(i, _)| !skip.contains(i))
                            .map(|(_, v)| v.to_string())
                            .collect()
                    })
                    .collect()
            };
            assert_eq!(
                strip(&got),
                strip(&want),
                "{d}/{table}: rows differ from the dump"
            );
            assert_eq!(got.lines().count(), want.lines().count(), "{d}/{table}");
            compared += 1;
        }
    }
    assert!(compared >= 18, "{compared} tables compared");
}

#[test]
fn missing_and_foreign_files_are_named() {
    let dir = copy_of("mysql56-fpt", "files");
    std::fs::remove_file(dir.join("fx/t_nopk.ibd")).expect("rm");
    std::fs::copy(dir.join("fx/t_basic.ibd"), dir.join("fx/t_dynamic.ibd")).expect("cp");
    let (code, j) = tables(&dir);
    assert_eq!(code, Some(0));
    let sys_tables = truth("sys_tables", "mysql56-fpt");
    let space_of = |name: &str| -> u64 {
        sys_tables
            .iter()
            .find(|r| r[1] == name)
            .map(|r| r[4].parse().expect("space"))
            .expect("table")
    };
    for tb in j.get("tables").arr() {
        let want = match tb.get("name").str() {
            "fx/t_nopk" => "missing",
            "fx/t_dynamic" => "foreign",
            _ if tb.get("space").u64() == 0 => "system",
            _ => "present",
        };
        assert_eq!(
            tb.get("file_status").str(),
            want,
            "{}",
            tb.get("name").str()
        );
    }
    let o = run(&["tables", dir.to_str().expect("utf-8")]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains(&format!(
            "fx/t_dynamic.ibd: foreign: the file has space id {}",
            space_of("fx/t_basic")
        )),
        "{text}"
    );
}

/// The dictionary header's root of a system table (`dict0boot.h`: offsets
/// from `DICT_HDR` = 38 on page 7).
fn dict_root(ibdata1: &[u8], field: usize) -> usize {
    let at = 7 * 16384 + 38 + field;
    u32::from_be_bytes(ibdata1[at..at + 4].try_into().expect("4 bytes")) as usize
}

#[test]
fn damaged_dictionary_pages_are_findings() {
    for (field, table) in [
        (32, "SYS_TABLES"),
        (40, "SYS_COLUMNS"),
        (44, "SYS_INDEXES"),
        (48, "SYS_FIELDS"),
    ] {
        let dir = copy_of("mysql56-fpt", &format!("damaged-{field}"));
        let path = dir.join("ibdata1");
        let mut b = std::fs::read(&path).expect("ibdata1");
        let root = dict_root(&b, field);
        for x in &mut b[root * 16384 + 200..root * 16384 + 300] {
            *x ^= 0x5a;
        }
        std::fs::write(&path, &b).expect("write");
        let o = run(&["tables", dir.to_str().expect("utf-8")]);
        assert_eq!(o.status.code(), Some(1), "{table}");
        let text = String::from_utf8_lossy(&o.stdout);
        let want = format!(
            "ibdata1, page {root}, byte offset {}: {table}: page {root} does not verify",
            root * 16384
        );
        assert!(text.contains(&want), "{table}: {want}\n{text}");
    }
}

#[test]
fn a_cut_system_tablespace_is_a_finding() {
    let dir = copy_of("mysql56-fpt", "cut");
    let path = dir.join("ibdata1");
    let b = std::fs::read(&path).expect("ibdata1");
    let columns_root = dict_root(&b, 40);
    // Cut just before SYS_COLUMNS' root: the tables are read, their
    // columns are not, and FSP_SIZE says the file is short.
    std::fs::write(&path, &b[..columns_root * 16384]).expect("write");
    let o = run(&["tables", dir.to_str().expect("utf-8")]);
    assert_eq!(o.status.code(), Some(1));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains(&format!(
            "ibdata1, page {columns_root}, byte offset {}: SYS_COLUMNS: page {columns_root} is past the end of the space",
            columns_root * 16384
        )),
        "{text}"
    );
    assert!(text.contains("FSP_SIZE says"), "{text}");
    // Cut before the dictionary header: nothing to read (exit 2).
    std::fs::write(&path, &b[..5 * 16384]).expect("write");
    let o = run(&["tables", dir.to_str().expect("utf-8")]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("dictionary header (page 7)"));
}

#[test]
fn the_system_tablespace_names_its_indexes_from_its_dictionary() {
    for d in DATADIRS {
        let dir = instance_copy(d);
        let ibdata1 = dir.join("ibdata1");
        let (code, j) = run_json(&[
            "indexes",
            "--format",
            "json",
            ibdata1.to_str().expect("utf-8"),
        ]);
        assert_eq!(code, Some(0), "{d}");
        let found: BTreeSet<(u64, String, u64)> = j
            .get("indexes")
            .arr()
            .iter()
            .map(|i| {
                (
                    i.get("index_id").u64(),
                    s(i.get("index_name").str()),
                    i.get("root_page").u64(),
                )
            })
            .collect();
        // Every index the server lists in space 0, named table.index, at
        // its PAGE_NO.
        let tables = truth("sys_tables", d);
        let mut want = 0;
        for r in truth("sys_indexes", d).iter().filter(|r| r[6] == "0") {
            let table = tables.iter().find(|t| t[0] == r[2]).expect("table");
            let key = (
                r[0].parse().expect("id"),
                format!("{}.{}", table[1], r[1]),
                r[5].parse().expect("root"),
            );
            assert!(found.contains(&key), "{d}: {key:?} not in {found:?}");
            want += 1;
        }
        assert!(want >= 5, "{d}: {want}");
        // The basic system tables' clustered indexes (dict0boot.cc: ids
        // DICT_TABLES_ID 1 … DICT_FIELDS_ID 4, SYS_TABLE_IDS 5) at the roots
        // the dictionary header names (dict0boot.h offsets from 38, page 7).
        let b = std::fs::read(&ibdata1).expect("ibdata1");
        for (id, name, field) in [
            (1, "SYS_TABLES.CLUST_IND", 32),
            (5, "SYS_TABLES.ID_IND", 36),
            (2, "SYS_COLUMNS.CLUST_IND", 40),
            (3, "SYS_INDEXES.CLUST_IND", 44),
            (4, "SYS_FIELDS.CLUST_IND", 48),
        ] {
            let root = dict_root(&b, field) as u64;
            assert!(found.contains(&(id, s(name), root)), "{d}: {name}");
        }
    }
}

/// The system tablespaces of clean, slowly shut down servers read clean in
/// every structure command: the doublewrite copies are not tree pages, the
/// change buffer root (page 4, its segment header on page 3) is not an
/// index root, and rollback, undo and doublewrite segments are no index's.
#[test]
fn clean_system_tablespaces_read_clean() {
    for d in DATADIRS {
        let ibdata1 = instance_copy(d).join("ibdata1");
        for cmd in [
            "check", "extents", "segments", "lists", "indexes", "types", "info",
        ] {
            let o = run(&[cmd, ibdata1.to_str().expect("utf-8")]);
            assert_eq!(
                o.status.code(),
                Some(0),
                "{d}: {cmd}: {}{}",
                String::from_utf8_lossy(&o.stdout)
                    .lines()
                    .filter(|l| l.contains("ibdata1:"))
                    .take(5)
                    .collect::<Vec<_>>()
                    .join("\n"),
                String::from_utf8_lossy(&o.stderr)
            );
        }
    }
}

/// A DECIMAL read through the dictionary, whose SYS_COLUMNS hold its byte
/// length but not its precision and scale (`data0type.h`: DATA_FIXBINARY
/// with MYSQL_TYPE_NEWDECIMAL), has its scale inferred from the records'
/// digit groups (DECIMAL(10,2), the .frm, fixtures/gen: the 5 stored
/// bytes alone allow M from 8 to 11 and several scales) and its values
/// read with it: the column equals the server's dump in every row, and
/// every format says the precision and scale were inferred and from how
/// many values (a note in the text and SQL headers, a `dictionary_notes`
/// field in JSON, a stderr line with TSV, CSV, JSONL and SQL); no finding
/// names it (the ENUM and SET columns, whose labels no record holds, still
/// do: exit 1). Before, its stored bytes were shown. With the .frm beside
/// the file it is read instead, and every value is the server's dump's.
#[test]
fn dictionary_decimal_is_said_in_every_format() {
    let mut checked = 0;
    for d in DATADIRS {
        let dir = copy_of(d, "decimal");
        let ibd = dir.join("fx/t_types.ibd");
        if !ibd.is_file() {
            // In the shared system tablespace: no file of its own.
            continue;
        }
        checked += 1;
        let f = ibd.to_str().expect("utf-8");
        let frm = dir.join("fx/t_types.frm");
        let saved = std::fs::read(&frm).expect("frm");
        std::fs::remove_file(&frm).expect("rm .frm");
        for format in ["text", "tsv", "csv", "json", "jsonl", "sql"] {
            let o = run(&["rows", f, "--format", format]);
            let (out, err) = (
                String::from_utf8_lossy(&o.stdout),
                String::from_utf8_lossy(&o.stderr),
            );
            assert_eq!(o.status.code(), Some(1), "{d} {format}: {err}");
            let said = match format {
                "text" => {
                    out.contains("# column dec1: DECIMAL(M,2): precision and scale inferred from ")
                }
                "json" => {
                    let j = Json::parse(&out);
                    j.get("dictionary_notes").arr().iter().any(|n| {
                        n.get("column").str() == "dec1"
                            && n.get("note")
                                .str()
                                .starts_with("DECIMAL(M,2): precision and scale inferred from ")
                    }) && !j
                        .get("findings")
                        .arr()
                        .iter()
                        .any(|f| f.str().starts_with("column dec1: "))
                }
                _ => err.contains(
                    "ibdscope: note: column dec1: DECIMAL(M,2): precision and scale inferred from ",
                ),
            };
            assert!(said, "{d} {format}: no DECIMAL note\n{out}\n{err}");
            assert!(
                !err.contains("finding: column dec1"),
                "{d} {format}: dec1 named as not the server's\n{err}"
            );
            if format == "tsv" {
                // dec1 (the 14th column) as the server dumped it.
                let dump = fixtures().join(format!("instance/rows/{d}__t_types.tsv"));
                let want = std::fs::read_to_string(&dump).expect("dump");
                let col = |t: &str| -> Vec<String> {
                    t.lines()
                        .map(|l| l.split('\t').nth(13).unwrap_or("").to_string())
                        .collect()
                };
                assert_eq!(col(&out), col(&want), "{d}: dec1 against the dump");
            }
        }
        // The .frm beside the file knows precision and scale: preferred to
        // the dictionary even when --datadir names it.
        std::fs::write(&frm, saved).expect("frm back");
        let o = run(&[
            "rows",
            f,
            "--datadir",
            dir.to_str().expect("utf-8"),
            "--format",
            "tsv",
        ]);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{d}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let dump = fixtures().join(format!("instance/rows/{d}__t_types.tsv"));
        let want = std::fs::read_to_string(&dump).expect("dump");
        assert_eq!(
            String::from_utf8_lossy(&o.stdout),
            want,
            "{d}: rows through the .frm"
        );
    }
    assert_eq!(checked, 2, "t_types files of their own");
}

/// With the SYS_TABLES root page damaged, `rows FILE
/// --datadir D` falls back to the `.frm` beside each file: every row as
/// the server dumped it, the fallback said once on stderr (naming the
/// damaged page), the source in JSON `frm`, and exit 1 for the damaged
/// dictionary (not 2 with "no .frm beside it").
#[test]
fn a_damaged_dictionary_falls_back_to_the_frm_beside_the_file() {
    let d = "mysql56-fpt";
    let dir = copy_of(d, "dict-fallback");
    let path = dir.join("ibdata1");
    let mut b = std::fs::read(&path).expect("ibdata1");
    let root = dict_root(&b, 32);
    for x in &mut b[root * 16384 + 200..root * 16384 + 300] {
        *x ^= 0x5a;
    }
    std::fs::write(&path, &b).expect("write");
    let mut compared = 0;
    for table in [
        "t_basic",
        "t_compressed",
        "t_dynamic",
        "t_nopk",
        "t_redundant",
        "t_types",
    ] {
        let ibd = dir.join(format!("fx/{table}.ibd"));
        let dump = fixtures().join(format!("instance/rows/{d}__{table}.tsv"));
        let args = |format| {
            [
                "rows",
                ibd.to_str().expect("utf-8"),
                "--datadir",
                dir.to_str().expect("utf-8"),
                "--format",
                format,
            ]
        };
        let o = run(&args("tsv"));
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{table}: {err}");
        assert_eq!(
            String::from_utf8_lossy(&o.stdout),
            std::fs::read_to_string(&dump).expect("dump"),
            "{table}: rows"
        );
        assert_eq!(
            err.matches("the .frm beside the file").count(),
            1,
            "{table}: {err}"
        );
        assert!(err.contains(&format!("page {root}")), "{table}: {err}");
        assert!(!err.contains("no .frm beside it"), "{table}: {err}");
        let (code, j) = run_json(&args("json"));
        assert_eq!(code, Some(1), "{table}");
        assert_eq!(j.get("source").str(), "frm", "{table}");
        // `schema` says where the definition came from, and why.
        let mut a = args("text");
        a[0] = "schema";
        let o = run(&a);
        let text = String::from_utf8_lossy(&o.stdout);
        assert_eq!(o.status.code(), Some(1), "{table}: {text}");
        assert!(
            text.contains(&format!(
                "-- definition: {} (found beside the .ibd: the InnoDB dictionary in",
                dir.join(format!("fx/{table}.frm")).display()
            )),
            "{table}: {text}"
        );
        assert!(
            !text.contains("not in the InnoDB dictionary"),
            "{table}: {text}"
        );
        compared += 1;
    }
    assert_eq!(compared, 6);
}
