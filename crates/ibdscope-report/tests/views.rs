//! The DBA views against the servers: `indexes --levels` per level and
//! `page N`'s account of every page against `INNODB_BUFFER_PAGE`
//! (`fixtures/pages.tsv`: each page's index, NUMBER_RECORDS and DATA_SIZE)
//! and the servers' index lists (`fixtures/indexes.tsv`: each index's root
//! page); `page --hex`'s system records against the InnoDB source.
//!
//! `INNODB_BUFFER_PAGE` has no level column. Levels are taken from what
//! the server did say: the root page (indexes.tsv) is the top level, and
//! when the root's NUMBER_RECORDS (its node pointers, one per child) is
//! the index's page count − 1, every other page is a child of the root:
//! the tree has two levels, the root at level 1 and the rest at level 0.
//! A root alone is a one-level tree (level 0).

use ibdscope_report::args::{Cmd, Format, Opts};
use ibdscope_report::host::ReadHost;
use ibdscope_report::run;
use ibdscope_schema::json::{self, Value};
use ibdscope_testkit::{fixtures, tsv};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

fn output(o: &Opts) -> String {
    let mut out = Vec::new();
    run(o, &mut out).expect("writing to a Vec");
    String::from_utf8(out).expect("UTF-8 output")
}

fn opts(cmd: Cmd, file: PathBuf, format: Format) -> Opts {
    Opts {
        threads: 2,
        ..Opts::new(cmd, vec![file], format, Arc::new(ReadHost))
    }
}

/// One server page of an index: page number, NUMBER_RECORDS, DATA_SIZE.
type ServerPage = (u32, u64, u64);

/// `(path, index name)` → the index's pages as INNODB_BUFFER_PAGE listed
/// them.
fn server_pages() -> BTreeMap<(String, String), Vec<ServerPage>> {
    let mut m: BTreeMap<(String, String), Vec<ServerPage>> = BTreeMap::new();
    for row in tsv(&fixtures().join("pages.tsv")) {
        if row["page_type"] != "INDEX" {
            continue;
        }
        let num = |k: &str| row[k].parse::<u64>().expect(k);
        m.entry((row["path"].clone(), row["index_name"].clone()))
            .or_default()
            .push((
                num("page_number") as u32,
                num("number_records"),
                num("data_size"),
            ));
    }
    m
}

/// `(path, index name)` → root page, from the servers' index lists.
fn server_roots() -> BTreeMap<(String, String), u32> {
    tsv(&fixtures().join("indexes.tsv"))
        .into_iter()
        .map(|r| {
            let root = r["root_page"].parse().expect("root page");
            ((r["path"].clone(), r["index_name"].clone()), root)
        })
        .collect()
}

/// The level of every page of an index the server's facts fix (see the
/// module documentation), or `None` for a taller tree.
fn server_levels(pages: &[ServerPage], root: u32) -> Option<BTreeMap<u32, u16>> {
    let &(_, root_recs, _) = pages.iter().find(|p| p.0 == root)?;
    let top = match pages.len() {
        1 => 0,
        n if root_recs == n as u64 - 1 => 1,
        _ => return None,
    };
    Some(
        pages
            .iter()
            .map(|&(n, _, _)| (n, if n == root { top } else { 0 }))
            .collect(),
    )
}

/// For every index of every fixture file: the sums of `indexes --levels`
/// over the levels are the server's sums over the index's pages (pages,
/// NUMBER_RECORDS, DATA_SIZE); the top level is the root page alone, with
/// the root's own figures; in a two-level tree level 0 holds the rest.
#[test]
fn levels_add_up_to_the_servers_pages() {
    let server = server_pages();
    let roots = server_roots();
    let mut checked = 0;
    let mut two_level = 0;
    for row in tsv(&fixtures().join("manifest.tsv")) {
        let path = fixtures().join(&row["path"]);
        let o = Opts {
            levels: true,
            ..opts(Cmd::Indexes, path, Format::Csv)
        };
        let text = output(&o);
        let mut lines = text.lines();
        let header: Vec<&str> = lines.next().expect("header").split(',').collect();
        // Per index name: its levels' fields, top level first.
        let mut levels: BTreeMap<String, Vec<BTreeMap<&str, u64>>> = BTreeMap::new();
        for line in lines {
            let fields: Vec<&str> = line.split(',').collect();
            let name = fields[1].to_string();
            let nums = header
                .iter()
                .zip(&fields)
                .filter_map(|(k, v)| Some((*k, v.parse::<u64>().ok()?)))
                .collect();
            levels.entry(name).or_default().push(nums);
        }
        for ((p, name), pages) in server.range((row["path"].clone(), String::new())..) {
            if *p != row["path"] {
                break;
            }
            let what = format!("{p} {name}");
            let ls = levels
                .get(name)
                .unwrap_or_else(|| panic!("{what}: no levels"));
            let sum = |k: &str| ls.iter().map(|l| l[k]).sum::<u64>();
            assert_eq!(sum("pages"), pages.len() as u64, "{what}: pages");
            let recs: u64 = pages.iter().map(|p| p.1).sum();
            assert_eq!(sum("records_stated"), recs, "{what}: records");
            assert_eq!(sum("records"), recs, "{what}: records walked");
            let data: u64 = pages.iter().map(|p| p.2).sum();
            assert_eq!(sum("data_bytes"), data, "{what}: data bytes");
            let root = roots[&(p.clone(), name.clone())];
            let &(_, root_recs, root_data) = pages.iter().find(|x| x.0 == root).expect("root");
            let top = &ls[0];
            assert_eq!(
                (top["pages"], top["records_stated"], top["data_bytes"]),
                (1, root_recs, root_data),
                "{what}: top level"
            );
            assert_eq!(top["leftmost_page"], u64::from(root), "{what}: root");
            assert_eq!(top["level"] as usize, ls.len() - 1, "{what}: levels");
            if server_levels(pages, root).is_some_and(|l| l.values().any(|&v| v == 1)) {
                let leaf = &ls[1];
                assert_eq!(leaf["level"], 0, "{what}");
                assert_eq!(leaf["pages"], pages.len() as u64 - 1, "{what}: leaves");
                assert_eq!(
                    leaf["records_stated"],
                    recs - root_recs,
                    "{what}: leaf records"
                );
                // Every leaf but the last has one link, and no more.
                assert_eq!(leaf["links"], leaf["pages"] - 1, "{what}: links");
                assert!(leaf["sequential"] <= leaf["ascending"], "{what}");
                two_level += 1;
            }
            checked += 1;
        }
    }
    assert!(checked >= 55, "only {checked} indexes checked");
    assert!(two_level >= 40, "only {two_level} two-level indexes");
}

/// Rows inserted in key order fill fresh pages one after the other: on
/// `ai_int` (AUTO_INCREMENT key, rows inserted in id order, per the
/// manifest) every leaf link goes to page + 1; on `uuid_char36` (random
/// keys) most do not.
#[test]
fn chain_order_tells_key_order_inserts_from_random_ones() {
    let leaf = |f: &str| {
        let o = Opts {
            levels: true,
            ..opts(Cmd::Indexes, fixtures().join(f), Format::Json)
        };
        let v = json::parse(output(&o).as_bytes()).expect("JSON");
        let ix = &v.get("indexes").and_then(Value::as_array).expect("indexes")[0];
        let ls = ix.get("levels").and_then(Value::as_array).expect("levels");
        let l = ls.last().expect("leaf level");
        let n = |k: &str| l.get(k).and_then(Value::as_u64).expect(k);
        (n("links"), n("ascending"), n("sequential"))
    };
    let (links, up, seq) = leaf("mysql56/ai_int.ibd");
    assert!(links > 10);
    assert_eq!((up, seq), (links, links));
    let (links, up, seq) = leaf("mysql56/uuid_char36.ibd");
    assert!(links > 10);
    assert!(seq * 2 < links && up < links, "{links} {up} {seq}");
}
