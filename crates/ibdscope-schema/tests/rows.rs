//! `ibdscope_schema::rows::RowScan` on the fixtures, as a program uses it:
//! the rows of a MySQL 5.6, a MariaDB and a ROW_FORMAT=COMPRESSED table are
//! the server's (their count is `rows/tables.tsv`'s `COUNT(*)` and the
//! manifest's, their keys in order the server's dump,
//! `rows/<dir>__<table>.tsv.gz`); a zeroed leaf of a copy gives its rows
//! lost, between the keys around the gap, which are exactly the dump's
//! keys the scan does not give.
#![allow(
    clippy::arithmetic_side_effects,
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic
)]

use ibdscope_core::{Engine, PageNo, RecPage, Summary, Tablespace};
use ibdscope_schema::rows::{Deleted, Origin, RowScan, ScanFinding, ScanOptions, Value};
use ibdscope_schema::TableDef;
use std::collections::BTreeMap;

/// The file and its definition (the `.frm` beside it, given the roots of
/// the file's B-trees: a `.frm` holds no index ids).
fn open(dir: &str, table: &str) -> (Vec<u8>, TableDef) {
    let d = ibdscope_testkit::fixtures().join(dir);
    let ibd = std::fs::read(d.join(format!("{table}.ibd"))).expect("ibd");
    let frm = std::fs::read(d.join(format!("{table}.frm"))).expect("frm");
    let mut def = ibdscope_schema::frm::Frm::parse(&frm)
        .expect("frm parses")
        .to_table_def(table, "fx");
    let ts = Tablespace::new(&ibd).expect("tablespace");
    let map = ibdscope_core::SpaceMap::build(&ts, &Engine::default());
    let trees: Vec<(u64, u32)> = (map.indexes.iter())
        .map(|i| (i.index_id.0, i.root.0))
        .collect();
    def.attach_roots(&trees);
    (ibd, def)
}

/// The server's dump of the table: its lines, each split at tabs.
fn dump(dir: &str, table: &str) -> Vec<Vec<String>> {
    let path = ibdscope_testkit::fixtures().join(format!("rows/{dir}__{table}.tsv.gz"));
    let gz = std::fs::read(&path).expect("dump");
    let mut text = Vec::new();
    ibdscope_codec::inflate::inflate_raw(ibdscope_testkit::gzip_deflate(&gz), &mut text, 1 << 30)
        .expect("inflate");
    String::from_utf8(text)
        .expect("utf-8")
        .lines()
        .map(|l| l.split('\t').map(str::to_string).collect())
        .collect()
}

/// A line of a fixtures TSV with a header: `path` → the named fields.
fn stated(file: &str, path: &str) -> BTreeMap<String, String> {
    ibdscope_testkit::tsv(&ibdscope_testkit::fixtures().join(file))
        .into_iter()
        .find(|r| r["path"] == path)
        .unwrap_or_else(|| panic!("{file}: no line for {path}"))
}

/// The first column's value of each row, as text (an integer key).
fn ids(rows: &[ibdscope_schema::rows::Row], def: &TableDef) -> Vec<String> {
    rows.iter()
        .map(|r| {
            let mut s = String::new();
            let v = &r.values[0];
            assert!(matches!(v, Value::Bytes(_)), "{v:?}");
            v.render(&def.columns[0], &mut s).expect("a value");
            s
        })
        .collect()
}

/// Every live row of the clustered index, and the scan's findings.
fn scan(ibd: &[u8], def: &mut TableDef) -> (Vec<ibdscope_schema::rows::Row>, Vec<ScanFinding>) {
    let ts = Tablespace::new(ibd).expect("tablespace");
    let engine = Engine::default();
    let summary = Summary::of(&ts, &engine);
    let decoding = ibdscope_schema::rows::Decoding::new(&ts, def);
    let def = &*def;
    let ix = def.clustered().expect("clustered index");
    let mut s = RowScan::new(
        &ts,
        &engine,
        &summary,
        def,
        ix,
        &decoding,
        ScanOptions::default(),
    )
    .expect("scan");
    let mut rows = Vec::new();
    let mut findings = Vec::new();
    while let Some(r) = s.next() {
        findings.extend(s.take_findings());
        rows.push(r);
    }
    findings.extend(s.take_findings());
    (rows, findings)
}

/// The rows of `dir/table` are the server's: as many as `COUNT(*)` (and
/// the manifest's `rows`), the keys in the dump's order.
fn rows_are_the_servers(dir: &str, table: &str) {
    let (ibd, mut def) = open(dir, table);
    let path = format!("{dir}/{table}.ibd");
    let count: usize = stated("rows/tables.tsv", &path)["rows"].parse().unwrap();
    let (rows, findings) = scan(&ibd, &mut def);
    assert!(findings.is_empty(), "{path}: {findings:?}");
    assert_eq!(rows.len(), count, "{path}: rows against COUNT(*)");
    let manifest = stated("manifest.tsv", &path);
    assert_eq!(rows.len().to_string(), manifest["rows"], "{path}: manifest");
    let want: Vec<String> = dump(dir, table).into_iter().map(|l| l[0].clone()).collect();
    let got = ids(&rows, &def);
    assert_eq!(got.first(), want.first(), "{path}: first key");
    assert_eq!(got.last(), want.last(), "{path}: last key");
    assert_eq!(got, want, "{path}: every key in order");
    for r in &rows {
        assert_eq!(r.origin, Origin::Live);
        assert!(r.verified, "{path}: page {}", r.page);
        assert!(r.damage.is_none(), "{path}: {r:?}");
    }
}

#[test]
fn mysql56_rows_are_the_servers() {
    rows_are_the_servers("mysql56", "ai_int");
}

#[test]
fn mariadb_rows_are_the_servers() {
    rows_are_the_servers("mariadb1011", "ai_int");
}

#[test]
fn compressed_rows_are_the_servers() {
    for dir in ["mariadb1011", "mysql56"] {
        rows_are_the_servers(dir, "rf_compressed8");
        let (ibd, mut def) = open(dir, "rf_compressed8");
        let (rows, _) = scan(&ibd, &mut def);
        assert!(
            rows.iter().all(|r| r.compressed),
            "{dir}: compressed leaves"
        );
        // The values beyond the key are read too: the dump's second column.
        let want: Vec<String> = (dump(dir, "rf_compressed8").into_iter())
            .map(|l| l[1].clone())
            .collect();
        let v: Vec<String> = (rows.iter())
            .map(|r| {
                let mut s = String::new();
                r.values[1].render(&def.columns[1], &mut s);
                s
            })
            .collect();
        assert_eq!(v, want, "{dir}: column v");
    }
}

#[test]
fn deleted_rows_come_on_request() {
    let (ibd, mut def) = open("mysql56", "deleted_marked");
    let ts = Tablespace::new(&ibd).expect("tablespace");
    let engine = Engine::default();
    let summary = Summary::of(&ts, &engine);
    let decoding = ibdscope_schema::rows::Decoding::new(&ts, &mut def);
    let ix = def.clustered().unwrap();
    // The ids the server deleted (delete-marked when the file was copied).
    let want: Vec<String> =
        ibdscope_testkit::tsv(&ibdscope_testkit::fixtures().join("deleted.tsv"))
            .into_iter()
            .filter(|r| r["path"] == "mysql56/deleted_marked.ibd" && r["state"] == "delete-marked")
            .map(|r| r["id"].clone())
            .collect();
    assert!(!want.is_empty());
    let mut o = ScanOptions::default();
    o.deleted = Deleted::Only;
    let rows: Vec<_> = RowScan::new(&ts, &engine, &summary, &def, ix, &decoding, o)
        .unwrap()
        .collect();
    let marked: Vec<_> = rows
        .iter()
        .filter(|r| r.origin == Origin::DeleteMarked)
        .cloned()
        .collect();
    assert_eq!(ids(&marked, &def), want, "delete-marked ids");
    // Without the option, the live rows alone: COUNT(*).
    let live = RowScan::new(
        &ts,
        &engine,
        &summary,
        &def,
        ix,
        &decoding,
        ScanOptions::default(),
    )
    .unwrap()
    .count();
    let count: usize = stated("rows/tables.tsv", "mysql56/deleted_marked.ibd")["rows"]
        .parse()
        .unwrap();
    assert_eq!(live, count);
}

#[test]
fn a_zeroed_leaf_gives_its_rows_lost_with_the_keys_around() {
    let (mut ibd, mut def) = open("mysql56", "ai_int");
    // A leaf of the clustered index in the middle of the chain, zeroed in
    // a copy (in memory).
    let leaf = {
        let ts = Tablespace::new(&ibd).unwrap();
        let leaves: Vec<u32> = (0..ts.n_pages())
            .filter(|&n| {
                RecPage::of(&ts, PageNo(n)).is_ok_and(|rp| rp.is_leaf() && rp.header().n_recs() > 0)
            })
            .collect();
        assert!(leaves.len() > 4, "{leaves:?}");
        leaves[leaves.len() / 2] as usize
    };
    ibd[leaf * 16384..(leaf + 1) * 16384].fill(0);
    let ts = Tablespace::new(&ibd).unwrap();
    let engine = Engine::default();
    let summary = Summary::of(&ts, &engine);
    let decoding = ibdscope_schema::rows::Decoding::new(&ts, &mut def);
    let ix = def.clustered().unwrap();
    let mut s = RowScan::new(
        &ts,
        &engine,
        &summary,
        &def,
        ix,
        &decoding,
        ScanOptions::default(),
    )
    .unwrap();
    let rows: Vec<_> = s.by_ref().collect();
    let findings = s.take_findings();
    let lost = s.lost().to_vec();
    assert_eq!(lost.len(), 1, "{lost:?}");
    let l = &lost[0];
    assert_eq!(l.page, PageNo(leaf as u32));
    assert_eq!(l.level, 0);
    assert_eq!(l.file_offset, leaf as u64 * 16384);
    assert!(
        findings.contains(&ScanFinding::Lost(Box::new(l.clone()))),
        "{findings:?}"
    );
    assert_eq!(s.counts().lost_pages, 1);
    // The keys the scan does not give are the dump's between the keys
    // around the gap, and only those.
    let got = ids(&rows, &def);
    let want: Vec<String> = dump("mysql56", "ai_int")
        .into_iter()
        .map(|l| l[0].clone())
        .collect();
    let missing: Vec<u64> = want
        .iter()
        .filter(|k| !got.contains(k))
        .map(|k| k.parse().unwrap())
        .collect();
    assert!(!missing.is_empty());
    let key = |k: &Option<ibdscope_schema::rows::Key>| -> u64 {
        let k = k.as_ref().expect("key");
        let mut s = String::new();
        k[0].1.render(&def.columns[k[0].0], &mut s);
        s.parse().unwrap()
    };
    let (before, after) = (key(&l.key_before), key(&l.key_after));
    let between: Vec<u64> = want
        .iter()
        .map(|k| k.parse::<u64>().unwrap())
        .filter(|&k| k > before && k < after)
        .collect();
    assert_eq!(missing, between, "lost keys between {before} and {after}");
    assert!(key(&l.key_low) > before && key(&l.key_low) <= missing[0]);
}
