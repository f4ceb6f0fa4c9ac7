//! Records, pages and index figures against the servers' truth:
//! COUNT(*) per index (fixtures/manifest.tsv; the generator required every
//! index's `COUNT(*) FORCE INDEX` to equal it), INNODB_BUFFER_PAGE's
//! NUMBER_RECORDS per page (fixtures/pages.tsv), the deleted and updated
//! ids of the `dml` table (fixtures/dml.tsv), and the corpus manifest's
//! row counts.

use super::common::{corpus, fixtures, read_tsv, run, run_json, Json};
use std::collections::{BTreeMap, BTreeSet};

/// One CSV row of `records`.
struct Row {
    page: u32,
    index: u64,
    source: String,
    chain: String,
    flags: String,
    fields: String,
}

/// `records ARGS --format csv`, parsed; asserts the exit code.
fn records_csv(args: &[&str], want_code: i32) -> Vec<Row> {
    let mut all = vec!["records"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--format", "csv"]);
    let o = run(&all);
    assert_eq!(
        o.status.code(),
        Some(want_code),
        "{all:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let text = String::from_utf8(o.stdout).unwrap();
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("page,index_id,source,level,offset,heap_no,chain,type,flags,n_owned,next,size,exact,fields")
    );
    lines
        .map(|l| {
            let c: Vec<&str> = l.split(',').collect();
            assert_eq!(c.len(), 14, "{l}");
            Row {
                page: c[0].parse().unwrap(),
                index: c[1].parse().unwrap(),
                source: c[2].to_string(),
                chain: c[6].to_string(),
                flags: c[8].to_string(),
                fields: c[13].to_string(),
            }
        })
        .collect()
}

/// The first 4 bytes of a record's data as a signed INT key (InnoDB
/// stores INT big-endian with the sign bit flipped, row0mysql.cc
/// `row_mysql_store_col_in_innobase_format`).
fn int_key(hex: &str, at: usize) -> Option<i64> {
    let h = hex.get(at * 2..at * 2 + 8)?;
    let v = u32::from_str_radix(h, 16).ok()? ^ 0x8000_0000;
    Some(i64::from(v as i32))
}

/// Manifest rows by path.
fn manifest() -> BTreeMap<String, BTreeMap<String, String>> {
    read_tsv(&fixtures().join("manifest.tsv"))
        .into_iter()
        .map(|r| (r["path"].clone(), r.into_iter().collect()))
        .collect()
}

/// indexes.tsv: path -> [(index_id, type)].
fn server_indexes() -> BTreeMap<String, Vec<(u64, u64)>> {
    let mut m: BTreeMap<String, Vec<(u64, u64)>> = BTreeMap::new();
    for r in read_tsv(&fixtures().join("indexes.tsv")) {
        m.entry(r["path"].clone())
            .or_default()
            .push((r["index_id"].parse().unwrap(), r["type"].parse().unwrap()));
    }
    m
}

/// `indexes --format json` by index id.
fn index_figures(path: &str) -> BTreeMap<u64, Json> {
    let (code, j) = run_json(&["indexes", "--format", "json", path]);
    assert_eq!(code, Some(0), "{path}: indexes must be clean");
    j.get("indexes")
        .arr()
        .iter()
        .map(|i| (i.get("index_id").u64(), i.clone()))
        .collect()
}

#[test]
fn every_index_holds_count_star_rows() {
    let man = manifest();
    let (mut checked, mut walked) = (0, 0);
    for (path, idx) in server_indexes() {
        let file = fixtures().join(&path);
        let file = file.to_str().unwrap();
        let rows: u64 = man[&path]["rows"].parse().unwrap();
        let figures = index_figures(file);
        // page_compressed files too: `indexes` and `records` read their
        // logical image (docs/format.md, "MariaDB page_compressed").
        assert!(!figures.is_empty(), "{path}: no index found");
        let compressed = man[&path]["row_format"] == "Compressed";
        let recs = records_csv(&[file], 0);
        for (id, _) in &idx {
            let f = &figures[id];
            let live = f.get("records").u64()
                - f.get("deleted_records").u64()
                - f.get("metadata_records").u64();
            assert_eq!(live, rows, "{path}: index {id}: live records vs COUNT(*)");
            if compressed {
                // Records of ROW_FORMAT=COMPRESSED pages are not decoded:
                // the count above comes from PAGE_N_RECS.
                assert!(f.get("compressed_pages").u64() > 0, "{path}");
                continue;
            }
            let n = recs
                .iter()
                .filter(|r| {
                    // MariaDB's instant ALTER metadata record is no row
                    r.index == *id
                        && r.chain == "user"
                        && !r.flags.contains("deleted")
                        && !r.flags.contains("min_rec")
                })
                .count() as u64;
            assert_eq!(n, rows, "{path}: index {id}: `records` lines vs COUNT(*)");
            assert!(recs
                .iter()
                .filter(|r| r.index == *id)
                .all(|r| r.source == "leaf_chain"));
            walked += 1;
            checked += 1;
        }
    }
    eprintln!("{checked} indexes: leaf-chain records = COUNT(*) ({walked} walked by `records`)");
    assert!(checked >= 40);
}

#[test]
fn page_and_records_counts_are_innodb_buffer_page_number_records() {
    let mut by_file: BTreeMap<String, Vec<(u32, u64)>> = BTreeMap::new();
    for r in read_tsv(&fixtures().join("pages.tsv")) {
        if r["page_type"] == "INDEX" {
            by_file.entry(r["path"].clone()).or_default().push((
                r["page_number"].parse().unwrap(),
                r["number_records"].parse().unwrap(),
            ));
        }
    }
    let man = manifest();
    let (mut by_records, mut by_page) = (0, 0);
    for (path, pages) in &by_file {
        let file = fixtures().join(path);
        let file = file.to_str().unwrap();
        // On disk the pages of a page_compressed file are compressed and
        // `page` shows the physical page, so it says so; `records` reads
        // the logical image, so its counts are checked below.
        let pagecomp = man[path]["notes"].contains("PAGE_COMPRESSED=1");
        if pagecomp {
            let (code, j) = run_json(&["page", "--format", "json", file, &pages[0].0.to_string()]);
            assert_eq!(
                (code, j.get("content").str()),
                (Some(0), "unreadable"),
                "{path}"
            );
        }
        let compressed = man[path]["row_format"] == "Compressed";
        if !compressed {
            let mut count: BTreeMap<u32, u64> = BTreeMap::new();
            for r in records_csv(&["--all-pages", file], 0) {
                if r.source == "freed" {
                    // Free pages still holding records: not in the buffer
                    // pool listing.
                    continue;
                }
                assert!(r.source == "leaf_chain" || r.source == "owned", "{path}");
                *count.entry(r.page).or_default() += u64::from(r.chain == "user");
            }
            for &(n, want) in pages {
                assert_eq!(
                    count.get(&n).copied().unwrap_or(0),
                    want,
                    "{path} page {n}: records --all-pages vs NUMBER_RECORDS"
                );
                by_records += 1;
            }
        }
        // `page` on the first, a middle and the last index page listed.
        for &(n, want) in [pages.first(), pages.get(pages.len() / 2), pages.last()]
            .into_iter()
            .flatten()
            .filter(|_| !pagecomp)
        {
            let (code, j) = run_json(&["page", "--format", "json", file, &n.to_string()]);
            assert_eq!(code, Some(0), "{path} page {n}");
            assert_eq!(j.get("index").get("n_recs").u64(), want, "{path} page {n}");
            if compressed {
                assert_eq!(j.get("content").str(), "compressed_index");
            } else {
                assert_eq!(j.get("walk").get("records").u64(), want, "{path} page {n}");
                assert_eq!(j.get("records").arr().len() as u64, want, "{path} page {n}");
                let map = j.get("byte_map");
                let total: u64 = [
                    "header",
                    "records",
                    "garbage",
                    "free",
                    "directory",
                    "trailer",
                ]
                .iter()
                .map(|k| map.get(k).u64())
                .sum();
                assert_eq!(total, u64::from(j.get("logical_page_size").u64() as u32));
                assert_eq!(map.get("map").str().len(), 64);
            }
            by_page += 1;
        }
    }
    eprintln!(
        "{by_records} INDEX pages: `records --all-pages` = NUMBER_RECORDS; {by_page} by `page`"
    );
    assert!(by_records > 800 && by_page > 80);
}

#[test]
fn deleted_rows_are_gone_from_the_tree_and_found_as_garbage() {
    let mut dml: BTreeMap<(String, String), BTreeSet<i64>> = BTreeMap::new();
    for r in read_tsv(&fixtures().join("dml.tsv")) {
        let ids = r["ids"].split(',').map(|s| s.parse().unwrap()).collect();
        dml.insert((r["path"].clone(), r["action"].clone()), ids);
    }
    let idx = server_indexes();
    for server in ["mysql56", "mariadb1011"] {
        let path = format!("{server}/dml.ibd");
        let deleted = &dml[&(path.clone(), "deleted".to_string())];
        let updated = &dml[&(path.clone(), "updated".to_string())];
        let file = fixtures().join(&path);
        let file = file.to_str().unwrap();
        let clustered = idx[&path].iter().find(|(_, t)| *t == 3).unwrap().0;
        let secondary = idx[&path].iter().find(|(_, t)| *t == 0).unwrap().0;
        // Live rows: every inserted id but the deleted ones, in both
        // indexes (the secondary record is (n, id)).
        let want: BTreeSet<i64> = (1..=3000).filter(|i| !deleted.contains(i)).collect();
        let live = records_csv(&[file], 0);
        for (id, at) in [(clustered, 0), (secondary, 4)] {
            let got: BTreeSet<i64> = live
                .iter()
                .filter(|r| r.index == id && !r.flags.contains("deleted"))
                .map(|r| int_key(&r.fields, at).unwrap())
                .collect();
            assert_eq!(got, want, "{path}: index {id}: live ids");
        }
        // --deleted: delete-marked records and the free chains.
        let gone = records_csv(&["--deleted", "--all-pages", file], 0);
        assert!(gone
            .iter()
            .all(|r| r.chain == "garbage" || r.flags.contains("deleted")));
        let garbage = gone.iter().filter(|r| r.chain == "garbage").count();
        assert!(garbage > 0, "{path}: no garbage records");
        let marked: Vec<&Row> = gone
            .iter()
            .filter(|r| r.flags.contains("deleted"))
            .collect();
        if server == "mysql56" {
            // MySQL keeps a purged record's bytes: a delete-marked record
            // (on the free chain after purge, or on a freed page) of the
            // clustered index is a deleted row; of idx_n, a deleted row or
            // the old (n, id) of an updated one.
            let mut found = BTreeSet::new();
            for r in &marked {
                if r.index == clustered {
                    let id = int_key(&r.fields, 0).unwrap();
                    assert!(deleted.contains(&id), "{path}: id {id} is not deleted");
                    found.insert(id);
                } else {
                    let id = int_key(&r.fields, 4).unwrap();
                    assert!(
                        deleted.contains(&id) || updated.contains(&id),
                        "{path}: {id}"
                    );
                }
            }
            eprintln!(
                "{path}: {} of {} deleted ids found in delete-marked records ({} garbage records)",
                found.len(),
                deleted.len(),
                garbage
            );
            assert!(!found.is_empty());
        } else {
            // MariaDB 10.6+ zeroes a record's data when it joins the free
            // list (page0cur.cc page_mem_free): the key is gone, the header
            // (flags, heap number) stays.
            // (Records the free list got otherwise, e.g. moved away by a
            // page split, keep their bytes and carry no delete mark.)
            let purged: Vec<&&Row> = marked
                .iter()
                .filter(|r| r.chain == "garbage" && r.index == clustered)
                .collect();
            assert!(!purged.is_empty(), "{path}: no purged record");
            for r in &purged {
                assert_eq!(&r.fields[..8], "00000000", "{path} page {}", r.page);
            }
            eprintln!(
                "{path}: {garbage} garbage records, {} purged clustered records zeroed by the server",
                purged.len()
            );
        }
    }
}

#[test]
fn uuid_keys_fragment_the_leaf_chain_and_sequential_keys_do_not() {
    let man = manifest();
    for dir in ["mysql56", "mariadb1011"] {
        let mut seq = Vec::new();
        let mut random = Vec::new();
        for t in [
            "ai_int",
            "seq_int",
            "ulid_char26",
            "uuid_char36",
            "uuid_bin16",
        ] {
            let path = format!("{dir}/{t}.ibd");
            assert!(man.contains_key(&path));
            let file = fixtures().join(&path);
            let f = index_figures(file.to_str().unwrap());
            let clustered = f.values().next().unwrap();
            let frag = clustered.get("fragmentation");
            let (share, dist) = (frag.get("share").f64(), frag.get("mean_distance").f64());
            eprintln!(
                "{path}: leaf fill {:.3}, {} of {} steps jump, share {share:.2}, mean distance {dist:.1}",
                clustered.get("leaf_fill").f64(),
                frag.get("jumps").u64(),
                frag.get("steps").u64()
            );
            if t.starts_with("uuid") {
                random.push((t, share, dist, clustered.get("leaf_fill").f64()));
            } else {
                seq.push((t, share, dist, clustered.get("leaf_fill").f64()));
            }
        }
        // Keys in insert order append at the right end: each new leaf is
        // the next page. Random keys split pages all over the key range.
        for r in &random {
            for s in &seq {
                assert!(r.1 > s.1, "{dir}: {} share {} vs {} {}", r.0, r.1, s.0, s.1);
                assert!(r.2 > s.2, "{dir}: {} distance vs {}", r.0, s.0);
                assert!(r.3 < s.3, "{dir}: {} leaf fill vs {}", r.0, s.0);
            }
        }
    }
}

/// Every corpus file through `page`, `records` and `indexes`: exit 0 or 1,
/// no panic; live records equal the manifest's row count where it states
/// one.
#[test]
fn corpus_files_read_and_count_their_rows() {
    let Some(dir) = corpus() else { return };
    let mut counted = 0;
    for row in read_tsv(&dir.join("manifest.tsv")) {
        let file = dir.join(&row["path"]);
        let file = file.to_str().unwrap();
        let (code, j) = run_json(&["indexes", "--format", "json", file]);
        assert!(matches!(code, Some(0 | 1)), "{file}: indexes exit {code:?}");
        for n in ["0", "3", "4"] {
            let o = run(&["page", file, n]);
            // A page past the end of a short file: exit 2 (the one rule
            // for pages past the end), said.
            let past = String::from_utf8_lossy(&o.stderr).contains("is past the end of the file");
            let ok = matches!(o.status.code(), Some(0 | 1)) || (o.status.code() == Some(2) && past);
            assert!(ok, "{file} page {n}");
        }
        let o = run(&["records", file, "--deleted", "--all-pages"]);
        assert!(matches!(o.status.code(), Some(0 | 1)), "{file}: records");
        let stated = row["expected_rows"]
            .split('=')
            .nth(1)
            .map(|n| n.parse::<u64>().unwrap());
        let Some(rows) = stated else { continue };
        let indexes = j.get("indexes").arr();
        if indexes.is_empty() {
            eprintln!("{}: no readable index (encrypted)", row["path"]);
            continue;
        }
        let recs = records_csv(&[file], 0);
        for i in indexes {
            let id = i.get("index_id").u64();
            if id == u64::MAX {
                continue; // the SDI index
            }
            let live = i.get("records").u64()
                - i.get("deleted_records").u64()
                - i.get("metadata_records").u64();
            assert_eq!(live, rows, "{}: index {id}", row["path"]);
            if i.get("compressed_pages").u64() == 0 {
                let n = recs
                    .iter()
                    .filter(|r| r.index == id && !r.flags.contains("deleted"))
                    .count() as u64;
                assert_eq!(n, rows, "{}: index {id}: records lines", row["path"]);
            }
            counted += 1;
        }
    }
    eprintln!("{counted} corpus indexes hold the stated row count");
    assert!(counted >= 25);
}
