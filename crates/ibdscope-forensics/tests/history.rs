//! `ibdscope_forensics::history::history` on the history fixtures, as a
//! program uses it: every row's versions (transaction, delete mark, the
//! values `name` and `n`), oldest first, are those the server wrote
//! (`fixtures/history/history.tsv`, from the servers' own reads of each
//! version), each chain ends at the insert, and a key picks one row.
#![allow(
    clippy::arithmetic_side_effects,
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic
)]

use ibdscope_core::{Engine, PageNo, RecPage, Tablespace};
use ibdscope_forensics::history::{history, Clustered, History, HistoryProblem, Oldest, Val};
use ibdscope_forensics::system::SystemSpace;
use ibdscope_forensics::undo::{RollPtr, Undo};
use ibdscope_schema::table::{RecordLayout, SysCol};
use ibdscope_schema::TableDef;
use std::collections::BTreeMap;

/// (trx id, deleted, name, n) of each version, oldest first, per id.
type Versions = BTreeMap<u64, Vec<(u64, bool, String, u64)>>;

/// The members of `fixtures/history/NAME.tar.gz`.
fn members(name: &str) -> Vec<(String, Vec<u8>)> {
    let gz = std::fs::read(ibdscope_testkit::fixtures().join(format!("history/{name}.tar.gz")))
        .expect("archive");
    let mut tar = Vec::new();
    ibdscope_codec::inflate::inflate_raw(ibdscope_testkit::gzip_deflate(&gz), &mut tar, 1 << 30)
        .expect("inflate");
    ibdscope_testkit::tar_members(&tar)
        .into_iter()
        .map(|(n, b)| (n, b.to_vec()))
        .collect()
}

/// What the server wrote.
fn truth(name: &str) -> Versions {
    let mut m = Versions::new();
    for r in ibdscope_testkit::tsv(&ibdscope_testkit::fixtures().join("history/history.tsv")) {
        if r["datadir"] != name {
            continue;
        }
        let v = m.entry(r["id"].parse().unwrap()).or_default();
        assert_eq!(v.len().to_string(), r["version"], "history.tsv order");
        v.push((
            r["trx_id"].parse().unwrap(),
            r["deleted"] == "1",
            r["name"].clone(),
            r["n"].parse().unwrap(),
        ));
    }
    m
}

/// The history of `fx/h` in the datadir's files `m` (the rows whose key
/// is `key`, when given), its definition and clustered layout.
fn read(m: &[(String, Vec<u8>)], key: Option<&str>) -> (History, TableDef, RecordLayout) {
    let get = |n: &str| &m.iter().find(|x| x.0 == n).expect(n).1;
    let ibdata1 = Tablespace::new(get("ibdata1")).unwrap();
    let undo: Vec<Tablespace<'_>> = (m.iter())
        .filter(|x| x.0.starts_with("undo"))
        .map(|x| Tablespace::new(&x.1).unwrap())
        .collect();
    let mut spaces: Vec<(u32, &Tablespace<'_>)> = vec![(0, &ibdata1)];
    spaces.extend(undo.iter().map(|t| (t.space_id().0, t)));
    let trx_sys = SystemSpace::read(&ibdata1).unwrap().trx_sys.unwrap();
    let u = Undo::read(spaces, &trx_sys.rsegs);

    let ts = Tablespace::new(get("fx/h.ibd")).unwrap();
    let mut def = ibdscope_schema::frm::Frm::parse(get("fx/h.frm"))
        .unwrap()
        .to_table_def("h", "fx");
    let map = ibdscope_core::SpaceMap::build(&ts, &Engine::default());
    let trees: Vec<(u64, u32)> = (map.indexes.iter())
        .map(|i| (i.index_id.0, i.root.0))
        .collect();
    def.attach_roots(&trees);
    let ix = def.clustered().unwrap();
    let root = PageNo(ix.root.unwrap());
    let rp = RecPage::of(&ts, root).unwrap();
    let layout = def.layout(ix, true).unwrap();
    let c = Clustered::new(&def, &layout, root, rp.header().index_id(), None);
    let h = history(&ts, &c, &u, key).unwrap();
    (h, def, layout)
}

/// The versions of every row of `fx/h` in datadir `name` (the rows whose
/// key is `key`, when given), as values.
fn versions(name: &str, key: Option<&str>) -> Versions {
    let (h, def, layout) = read(&members(name), key);
    assert!(h.problems.is_empty(), "{name}: {:?}", h.problems);

    let col = |n: &str| def.columns.iter().position(|c| c.name == n).unwrap();
    let field = |n: &str| {
        layout
            .fields
            .iter()
            .position(|f| f.column == col(n))
            .unwrap()
    };
    let text = |v: &Val, n: &str| -> String {
        let Val::Bytes(b) = v else {
            panic!("{name}: {n}: {v:?}")
        };
        let mut s = String::new();
        ibdscope_schema::value::render(&def.columns[col(n)], b, &mut s);
        s
    };
    let mut out = Versions::new();
    for r in &h.rows {
        assert_eq!(r.oldest, Oldest::Insert, "{name}: row {}", r.key);
        let vs = (r.versions.iter())
            .map(|v| {
                assert_eq!(text(&v.values[field("id")], "id"), r.key);
                (
                    v.trx_id,
                    v.deleted,
                    text(&v.values[field("name")], "name"),
                    text(&v.values[field("n")], "n").parse().unwrap(),
                )
            })
            .collect();
        out.insert(r.key.parse().unwrap(), vs);
    }
    out
}

#[test]
fn each_rows_versions_are_the_ones_the_server_wrote() {
    for d in ["mysql56", "mysql56-undo2", "mariadb1011-undo3"] {
        assert_eq!(versions(d, None), truth(d), "{d}");
        let want: Versions = truth(d).into_iter().filter(|(k, _)| *k == 6).collect();
        assert_eq!(versions(d, Some("6")), want, "{d}: key 6");
    }
}

#[test]
fn a_zeroed_undo_page_loses_the_older_versions_not_purges_them() {
    let mut m = members("mysql56");
    // The undo page row 1's roll pointer names (MySQL 5.6 without undo
    // tablespaces: in ibdata1), zeroed in a copy in memory.
    let (h, def, layout) = read(&m, Some("1"));
    let roll = (layout.fields.iter())
        .position(|f| def.columns[f.column].sys() == Some(SysCol::RollPtr))
        .unwrap();
    let current = h.rows[0].versions.last().unwrap();
    let Val::Bytes(b) = &current.values[roll] else {
        panic!("{:?}", current.values[roll])
    };
    let rp = RollPtr::read(b).unwrap();
    assert!(
        !rp.insert,
        "row 1 was updated: its roll pointer names an update"
    );
    let ibdata1 = &mut m.iter_mut().find(|x| x.0 == "ibdata1").unwrap().1;
    let page = rp.page as usize;
    ibdata1[page * 16384..(page + 1) * 16384].fill(0);
    let (h, _, _) = read(&m, Some("1"));
    assert_eq!(h.rows.len(), 1);
    let r = &h.rows[0];
    let Oldest::Lost(l) = r.oldest else {
        panic!("{:?}", r.oldest)
    };
    assert_eq!((l.space, l.page), (0, rp.page));
    assert_eq!(l.offset, u64::from(rp.page) * 16384 + u64::from(rp.offset));
    assert_eq!(r.versions.len(), 1, "only the current version is left");
    assert_eq!(h.problems, vec![HistoryProblem::Row(0)]);
}
