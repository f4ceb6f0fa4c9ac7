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
#![allow(
    clippy::arithmetic_side_effects,
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic
)]

use ibdscope_prims::json::{self, Value};
use ibdscope_report::args::{Cmd, Format, Opts};
use ibdscope_report::host::ReadHost;
use ibdscope_report::run;
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

/// `page N --format json` as a value.
fn page_json(file: &std::path::Path, n: u32) -> Value {
    let o = opts(Cmd::Page { page: n }, file.to_path_buf(), Format::Json);
    json::parse(output(&o).as_bytes()).expect("page JSON")
}

fn at<'v>(v: &'v Value, path: &[&str]) -> &'v Value {
    path.iter().fold(v, |v, k| {
        v.get(k).unwrap_or_else(|| panic!("no {k} in {path:?}"))
    })
}

/// For every page the server listed of every fixture file (the
/// page_compressed ones read through their logical image): the
/// account names the index the server gave the page (`INDEX_NAME`), as
/// the page's own index and as its segment's, with the server's
/// NUMBER_RECORDS; the level the server's facts fix (module
/// documentation); and no index on the server's other pages, the system
/// pages owned as the system structure the server named.
#[test]
fn page_account_names_the_servers_index_and_level() {
    let roots = server_roots();
    let pages = server_pages();
    let mut checked = 0;
    let mut levels = 0;
    for row in tsv(&fixtures().join("pages.tsv")) {
        let file = fixtures().join(&row["path"]);
        let n: u32 = row["page_number"].parse().expect("page");
        let v = page_json(&file, n);
        let acc = at(&v, &["account"]);
        let what = format!("{} page {n}", row["path"]);
        let index = at(acc, &["index"]);
        let owner = at(acc, &["owner"]);
        let kind = at(owner, &["kind"]).as_str();
        match row["page_type"].as_str() {
            "INDEX" => {
                let name = row["index_name"].as_str();
                assert_eq!(at(index, &["index_name"]).as_str(), Some(name), "{what}");
                assert_eq!(at(owner, &["index_name"]).as_str(), Some(name), "{what}");
                let recs: u64 = row["number_records"].parse().expect("records");
                assert_eq!(at(index, &["records"]).as_u64(), Some(recs), "{what}");
                let key = (row["path"].clone(), name.to_string());
                if let Some(l) = server_levels(&pages[&key], roots[&key]) {
                    assert_eq!(
                        at(index, &["level"]).as_u64(),
                        Some(u64::from(l[&n])),
                        "{what}"
                    );
                    levels += 1;
                }
                assert_eq!(at(acc, &["free_bit"]).as_bool(), Some(false), "{what}");
                assert_eq!(
                    at(acc, &["contradictions"]).as_array().map(<[Value]>::len),
                    Some(0)
                );
            }
            t => {
                assert!(matches!(index, Value::Null), "{what}: {t}");
                let system = match t {
                    "FILE_SPACE_HEADER" => Some("FSP_HDR"),
                    "IBUF_BITMAP" => Some("IBUF_BITMAP"),
                    "INODE" => Some("INODE"),
                    _ => None,
                };
                if let Some(s) = system {
                    assert_eq!(kind, Some("system"), "{what}");
                    assert_eq!(at(owner, &["structure"]).as_str(), Some(s), "{what}");
                } else {
                    // Off-page columns come from the leaf segment
                    // (fsp0fsp.cc, btr0cur.cc: btr_page_alloc for BLOBs).
                    assert_eq!(kind, Some("segment"), "{what}: {t}");
                    assert_eq!(at(owner, &["role"]).as_str(), Some("leaf"), "{what}: {t}");
                }
            }
        }
        checked += 1;
    }
    assert!(checked >= 1200, "only {checked} pages checked");
    assert!(levels >= 900, "only {levels} levels checked");
}

/// A copy of `mysql56/secondary.ibd` with two changes made as InnoDB lays
/// the bytes out (fil0types.h, page0types.h, fsp0fsp.h): a PRIMARY leaf
/// that says it is of index `idx_k`, and a PRIMARY leaf whose FREE bit is
/// set in its XDES entry. The account says both plainly; the first is
/// damage (exit 1, a finding at PAGE_INDEX_ID), the second the trace a
/// freed page leaves.
#[test]
fn page_account_says_contradictions_plainly() {
    let src = fixtures().join("mysql56/secondary.ibd");
    let mut bytes = std::fs::read(&src).expect("fixture");
    let roots = server_roots();
    let pages = server_pages();
    let key = |n: &str| ("mysql56/secondary.ibd".to_string(), n.to_string());
    let root = roots[&key("PRIMARY")];
    let mut leaves = pages[&key("PRIMARY")]
        .iter()
        .map(|p| p.0)
        .filter(|&n| n != root);
    let (wrong, freed) = (leaves.next().expect("leaf"), leaves.next().expect("leaf"));
    let idx_k: u64 = tsv(&fixtures().join("indexes.tsv"))
        .iter()
        .find(|r| r["path"] == "mysql56/secondary.ibd" && r["index_name"] == "idx_k")
        .expect("idx_k")["index_id"]
        .parse()
        .expect("id");
    const SIZE: usize = 16384;
    // PAGE_INDEX_ID: page header (38) + 28, 8 bytes.
    let id_at = wrong as usize * SIZE + 38 + 28;
    bytes[id_at..id_at + 8].copy_from_slice(&idx_k.to_be_bytes());
    // XDES entry of extent 0 on page 0: FSP header (38) + 112 = 150; its
    // bitmap at + 24, two bits per page, the FREE bit first.
    assert!(freed < 64);
    let bit = 2 * freed as usize;
    bytes[150 + 24 + bit / 8] |= 1 << (bit % 8);
    let dir = std::env::temp_dir().join(format!("ibdscope-views-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch");
    let copy = dir.join("secondary.ibd");
    std::fs::write(&copy, &bytes).expect("copy");
    // The definition beside it names the indexes.
    std::fs::copy(src.with_extension("frm"), copy.with_extension("frm")).expect("frm");

    let v = page_json(&copy, wrong);
    let c = at(&v, &["account", "contradictions"])
        .as_array()
        .expect("list");
    assert_eq!(c.len(), 1, "{c:?}");
    let reason = at(&c[0], &["reason"]).as_str().expect("reason");
    assert!(
        reason.contains(&format!("PAGE_INDEX_ID is {idx_k} idx_k")),
        "{reason}"
    );
    assert!(reason.contains("belongs to index 29 PRIMARY"), "{reason}");
    assert_eq!(at(&c[0], &["page_offset"]).as_u64(), Some(66));
    assert_eq!(at(&c[0], &["damage"]).as_bool(), Some(true));
    let findings = at(&v, &["findings"]).as_array().expect("findings");
    assert!(findings
        .iter()
        .any(|f| at(f, &["page_offset"]).as_u64() == Some(66)));
    let o = opts(Cmd::Page { page: wrong }, copy.clone(), Format::Text);
    let mut out = Vec::new();
    assert_eq!(
        run(&o, &mut out).expect("run"),
        ibdscope_report::Outcome::Findings
    );

    let v = page_json(&copy, freed);
    let acc = at(&v, &["account"]);
    assert_eq!(at(acc, &["free_bit"]).as_bool(), Some(true));
    assert_eq!(at(acc, &["owner", "kind"]).as_str(), Some("free"));
    let c = at(acc, &["contradictions"]).as_array().expect("list");
    assert_eq!(c.len(), 1, "{c:?}");
    let reason = at(&c[0], &["reason"]).as_str().expect("reason");
    assert!(reason.starts_with("the extent descriptor calls this page free, yet it holds"));
    assert_eq!(at(&c[0], &["damage"]).as_bool(), Some(false));
    std::fs::remove_dir_all(&dir).ok();
}

/// `page N --hex --format json` as a value.
fn hex_json(file: &std::path::Path, n: u32) -> Value {
    let o = Opts {
        hex: true,
        ..opts(Cmd::Page { page: n }, file.to_path_buf(), Format::Json)
    };
    json::parse(output(&o).as_bytes()).expect("page JSON")
}

/// The system records where InnoDB writes them (mysql-server 8.0
/// page0types.h: PAGE_NEW_INFIMUM 99, PAGE_NEW_SUPREMUM 112,
/// PAGE_NEW_SUPREMUM_END 120, PAGE_OLD_INFIMUM 101, PAGE_OLD_SUPREMUM 116,
/// PAGE_OLD_SUPREMUM_END 125; page0page.cc copies
/// `infimum_supremum_compact` / `_redundant` to PAGE_DATA 94): `(start,
/// origin, end)` of the infimum and the supremum, and their data bytes.
fn system_records(redundant: bool) -> [(u64, u64, u64, &'static [u8]); 2] {
    if redundant {
        [(94, 101, 109, b"infimum\0"), (109, 116, 125, b"supremum\0")]
    } else {
        [(94, 99, 107, b"infimum\0"), (107, 112, 120, b"supremum")]
    }
}

fn hex_of(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// For every page the server listed of a COMPACT, a REDUNDANT, a 4K, a
/// 64K and a ROW_FORMAT=COMPRESSED file: the hex dump's ranges cover the page in order without
/// overlap; FIL_PAGE_OFFSET holds the server's page number; on index
/// pages the infimum and supremum are exactly where the source puts them
/// (in the dump and in the page's record objects, which do not overlap),
/// and there is one user record per record the server counted
/// (NUMBER_RECORDS).
#[test]
fn hex_dump_ranges_are_the_sources_and_the_servers() {
    let files = [
        ("mysql56/secondary.ibd", false, 16384),
        ("mysql56/rf_redundant.ibd", true, 16384),
        ("mariadb1011-4k/secondary.ibd", false, 4096),
        ("mariadb1011-64k/ai_int.ibd", false, 65536),
        // ROW_FORMAT=COMPRESSED, 8K pages: the cover only.
        ("mysql56/rf_compressed8.ibd", false, 8192),
    ];
    let mut index_pages = 0;
    for row in tsv(&fixtures().join("pages.tsv")) {
        let Some(&(_, redundant, size)) = files.iter().find(|f| f.0 == row["path"]) else {
            continue;
        };
        let n: u32 = row["page_number"].parse().expect("page");
        let v = hex_json(&fixtures().join(&row["path"]), n);
        let what = format!("{} page {n}", row["path"]);
        let ranges = at(&v, &["hex"]).as_array().expect("hex");
        let field = |r: &Value, k: &str| at(r, &[k]).as_u64().expect(k);
        let name = |r: &Value| at(r, &["name"]).as_str().expect("name").to_string();
        let mut end = 0;
        for r in ranges {
            assert_eq!(field(r, "start"), end, "{what}: {}", name(r));
            assert!(field(r, "end") > end, "{what}: {}", name(r));
            end = field(r, "end");
        }
        assert_eq!(end, size, "{what}");
        let find = |s: &str| {
            ranges
                .iter()
                .find(|r| name(r) == s)
                .unwrap_or_else(|| panic!("{what}: no {s}"))
        };
        let offset = find("FIL_PAGE_OFFSET");
        assert_eq!(
            at(offset, &["hex"]).as_str(),
            Some(hex_of(&n.to_be_bytes()).as_str())
        );
        if row["page_type"] != "INDEX" || size == 8192 {
            continue;
        }
        let mut prev_end = 0;
        let keys = ["infimum", "supremum"];
        for (key, (start, origin, end, data)) in keys.into_iter().zip(system_records(redundant)) {
            let h = find(&format!("{key} header"));
            let d = find(&format!("{key} data"));
            assert_eq!(
                (field(h, "start"), field(h, "end")),
                (start, origin),
                "{what}"
            );
            assert_eq!(
                (field(d, "start"), field(d, "end")),
                (origin, end),
                "{what}"
            );
            assert_eq!(
                at(d, &["hex"]).as_str(),
                Some(hex_of(data).as_str()),
                "{what}"
            );
            let rec = at(&v, &[key]);
            let got = (field(rec, "start"), field(rec, "offset"), field(rec, "end"));
            assert_eq!(got, (start, origin, end), "{what}: {key}");
            assert!(got.0 >= prev_end, "{what}: {key} overlaps");
            prev_end = got.2;
        }
        let records = ranges
            .iter()
            .filter(|r| name(r).starts_with("record ") && name(r).contains(" data"))
            .count();
        assert_eq!(records.to_string(), row["number_records"], "{what}");
        index_pages += 1;
    }
    assert!(index_pages >= 170, "only {index_pages} index pages");
}
