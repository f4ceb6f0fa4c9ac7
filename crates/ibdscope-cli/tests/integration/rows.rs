//! `rows` and `schema` against the servers' own answers:
//!
//! - every table of `fixtures/rows/tables.tsv` (MySQL 5.6 and MariaDB 10.11
//!   at every page size and checksum the fixtures have): `rows --format
//!   tsv` is byte for byte the server's dump (`SELECT … INTO OUTFILE` with
//!   the one normalisation of fixtures/README.md), except for a named set
//!   of tables with the reason each cannot be decoded;
//! - the deleted-rows fixture: `rows --deleted` returns the ids
//!   `fixtures/deleted.tsv` lists with the values the server dumped before
//!   the DELETE, wherever the bytes remain, and no id that was never in
//!   the table;
//! - the MySQL 8.0 / 8.4 / 9.x corpus: `schema` and `rows` run on every
//!   file; row counts equal the manifest's `expected_rows`; encrypted and
//!   compressed files say so.
//!
//! The dumps are gzip files (RFC 1952), read here with the library's raw
//! DEFLATE decoder.

use super::common::{corpus, fixtures, read_tsv, run, run_json};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

/// CRC-32 (ISO-HDLC, reflected 0xEDB88320), for the gzip trailer.
fn crc32(data: &[u8]) -> u32 {
    let mut table = [0u32; 256];
    for (i, t) in table.iter_mut().enumerate() {
        let mut c = i as u32;
        for _ in 0..8 {
            c = if c & 1 != 0 {
                0xEDB8_8320 ^ (c >> 1)
            } else {
                c >> 1
            };
        }
        *t = c;
    }
    let mut crc = !0u32;
    for &b in data {
        crc = table[((crc ^ u32::from(b)) & 0xFF) as usize] ^ (crc >> 8);
    }
    !crc
}

/// The content of a one-member gzip file: the 10-byte header (ID1 ID2 CM
/// FLG MTIME XFL OS) and its optional fields (FEXTRA, FNAME, FCOMMENT,
/// FHCRC), raw DEFLATE, then CRC-32 and ISIZE, both checked.
pub fn gunzip(path: &Path) -> Vec<u8> {
    let gz = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(
        gz.len() >= 18 && gz[0] == 0x1f && gz[1] == 0x8b && gz[2] == 8,
        "{}: not a gzip file",
        path.display()
    );
    let flg = gz[3];
    let mut at = 10;
    if flg & 4 != 0 {
        let xlen = usize::from(u16::from_le_bytes([gz[at], gz[at + 1]]));
        at += 2 + xlen;
    }
    for bit in [8u8, 16] {
        if flg & bit != 0 {
            while gz[at] != 0 {
                at += 1;
            }
            at += 1;
        }
    }
    if flg & 2 != 0 {
        at += 2;
    }
    let mut out = Vec::new();
    let used = ibdscope_codec::inflate::inflate_raw(&gz[at..], &mut out, 1 << 30)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let tail = &gz[at + used..at + used + 8];
    let crc = u32::from_le_bytes(tail[..4].try_into().unwrap());
    let size = u32::from_le_bytes(tail[4..].try_into().unwrap());
    assert_eq!(crc, crc32(&out), "{}: CRC-32", path.display());
    assert_eq!(size, out.len() as u32, "{}: ISIZE", path.display());
    out
}

/// Tables whose rows ibdscope cannot decode, by table name, with the
/// words its output must give. Every other dumped table must match.
const NOT_DECODED: &[(&str, i32, &str)] = &[];

fn dumps() -> Vec<HashMap<String, String>> {
    // Committed with the fixtures: a missing list is a failure, not a skip.
    read_tsv(&fixtures().join("rows/tables.tsv"))
}

/// Every dumped fixture table: `rows --format tsv` equals the server's
/// dump byte for byte, or the table is one of [`NOT_DECODED`] and the run
/// says why.
#[test]
fn rows_equal_server_dumps() {
    let tables = dumps();
    let (mut matched, mut named) = (Vec::new(), Vec::new());
    let mut fails = Vec::new();
    for t in &tables {
        let file = fixtures().join(&t["path"]);
        let want = gunzip(&fixtures().join(&t["dump"]));
        let o = run(&["rows", "--format", "tsv", file.to_str().unwrap()]);
        let stderr = String::from_utf8_lossy(&o.stderr);
        if let Some(&(_, code, words)) = NOT_DECODED.iter().find(|n| n.0 == t["table"]) {
            if o.status.code() != Some(code) || !stderr.contains(words) || !o.stdout.is_empty() {
                fails.push(format!(
                    "{}: expected exit {code} naming {words}, got {:?}: {stderr}",
                    t["path"],
                    o.status.code()
                ));
            }
            named.push(t["path"].clone());
            continue;
        }
        if o.status.code() != Some(0) {
            fails.push(format!(
                "{}: exit {:?}: {stderr}",
                t["path"],
                o.status.code()
            ));
            continue;
        }
        if o.stdout != want {
            let got = String::from_utf8_lossy(&o.stdout);
            let want = String::from_utf8_lossy(&want);
            let first = got
                .lines()
                .zip(want.lines())
                .enumerate()
                .find(|(_, (a, b))| a != b)
                .map(|(i, (a, b))| format!("line {}: got {a:?}, want {b:?}", i + 1))
                .unwrap_or_else(|| {
                    format!(
                        "{} lines, want {}",
                        got.lines().count(),
                        want.lines().count()
                    )
                });
            fails.push(format!("{}: differs from the dump: {first}", t["path"]));
            continue;
        }
        assert_eq!(
            o.stdout.iter().filter(|&&b| b == b'\n').count(),
            t["rows"].parse::<usize>().unwrap(),
            "{}",
            t["path"]
        );
        matched.push(t["path"].clone());
    }
    assert!(fails.is_empty(), "{}", fails.join("\n"));
    eprintln!(
        "rows: {} tables equal the server dumps; not decoded (named): {}",
        matched.len(),
        named.join(", ")
    );
    if !tables.is_empty() {
        for dir in ["mysql56/", "mariadb1011/"] {
            assert!(
                matched.iter().filter(|p| p.starts_with(dir)).count() >= 15,
                "{dir}: too few tables matched: {matched:?}"
            );
        }
    }
}

/// One line of `rows --deleted --format tsv`: page, offset, origin,
/// completeness, then the row.
struct Recovered {
    origin: String,
    complete: String,
    row: String,
}

fn recovered(file: &Path) -> Vec<Recovered> {
    let o = run(&[
        "rows",
        "--deleted",
        "--format",
        "tsv",
        file.to_str().unwrap(),
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}: {}",
        file.display(),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            let f: Vec<&str> = l.splitn(5, '\t').collect();
            assert_eq!(f.len(), 5, "{l}");
            f[0].parse::<u32>().unwrap();
            f[1].parse::<u16>().unwrap();
            Recovered {
                origin: f[2].to_string(),
                complete: f[3].to_string(),
                row: f[4].to_string(),
            }
        })
        .collect()
}

/// The deleted-rows fixture (fixtures/README.md, "The deleted-rows
/// fixture"): 75 ids deleted from 1000 rows. In `deleted_marked` they are
/// delete-marked records; in `deleted_purged` purge moved them to the
/// pages' free lists, where MySQL 5.6 leaves their bytes and MariaDB 10.11
/// zero-fills their data (so no value can come back, and the output says
/// so). Besides them the free lists hold stale copies of live rows left by
/// the load's first page split: each has the key and the values of a row
/// in the live dump, and `rows` marks it a copy of a live row (and no
/// deleted row). No other id may appear.
#[test]
fn deleted_rows_come_back() {
    let list = fixtures().join("deleted.tsv");
    assert!(
        !dumps().is_empty(),
        "fixtures/rows/tables.tsv lists no table"
    );
    let text = std::fs::read_to_string(&list).unwrap();
    let mut deleted: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for l in text.lines().skip(1).filter(|l| !l.is_empty()) {
        let f: Vec<&str> = l.splitn(3, '\t').collect();
        let id = f[2].split('\t').next().unwrap().to_string();
        deleted
            .entry(f[0].to_string())
            .or_default()
            .insert(id, f[2].to_string());
    }
    // (file, origin of the deleted ids, their values survive)
    let expect = [
        ("mysql56/deleted_marked.ibd", "delete-marked", true),
        ("mysql56/deleted_purged.ibd", "free-list", true),
        ("mariadb1011/deleted_marked.ibd", "delete-marked", true),
        ("mariadb1011/deleted_purged.ibd", "free-list", false),
    ];
    for (path, origin, survive) in expect {
        let want = &deleted[path];
        assert_eq!(want.len(), 75, "{path}");
        let dump = fixtures().join(format!(
            "rows/{}.tsv.gz",
            path.trim_end_matches(".ibd").replace('/', "__")
        ));
        let live: HashMap<String, String> = String::from_utf8(gunzip(&dump))
            .unwrap()
            .lines()
            .map(|l| (l.split('\t').next().unwrap().to_string(), l.to_string()))
            .collect();
        let got = recovered(&fixtures().join(path));
        let (mut ids, mut stale, mut erased) = (BTreeSet::new(), 0, 0);
        for r in &got {
            if r.complete.contains("erased") {
                assert!(!survive, "{path}: erased record: {}", r.complete);
                assert_eq!(r.origin, "free-list", "{path}");
                erased += 1;
                continue;
            }
            assert_eq!(r.complete, "complete", "{path}: {}", r.row);
            let id = r.row.split('\t').next().unwrap().to_string();
            if let Some(w) = want.get(&id) {
                assert_eq!(r.origin, origin, "{path}: id {id}");
                assert_eq!(&r.row, w, "{path}: id {id}: values before the DELETE");
                assert!(ids.insert(id.clone()), "{path}: id {id} twice");
            } else if let Some(l) = live.get(&id) {
                // A stale copy of a live row, and said to be one.
                assert_eq!(
                    r.origin, "free-list (copy of a live row)",
                    "{path}: id {id}"
                );
                assert_eq!(&r.row, l, "{path}: stale copy of id {id}");
                stale += 1;
            } else {
                panic!("{path}: id {id} was never deleted nor live: {}", r.row);
            }
        }
        if survive {
            let want_ids: BTreeSet<String> = want.keys().cloned().collect();
            assert_eq!(ids, want_ids, "{path}: every deleted id comes back");
            assert_eq!(erased, 0, "{path}");
        } else {
            // MariaDB 10.6+ page_mem_free zero-fills the purged records' data:
            // one erased record per deleted row, none readable.
            assert!(ids.is_empty(), "{path}");
            assert_eq!(
                erased,
                want.len(),
                "{path}: one erased record per deleted row"
            );
        }
        assert!(stale > 0, "{path}: the load's stale copies on page 4");
        eprintln!(
            "{path}: {} deleted ids with their values, {erased} erased, {stale} stale copies",
            ids.len()
        );
    }
}

/// `dml` (fixtures/README.md): 10 % of the ids deleted in one range, 5 %
/// scattered, 10 % updated, then purged; the server merged pages and freed
/// some. `rows --deleted` also reads the index's leaf pages the chain no
/// longer reaches: every row it finds there has an id the table had
/// (1..=rows); those the server deleted (`fixtures/dml.tsv`) are
/// recovered, and any other is a copy of a live row left behind by a merge,
/// with the live dump's values unless the row was updated later. MySQL
/// 5.6's file has such a freed page holding deleted ids.
#[test]
fn freed_pages_give_back_deleted_rows() {
    let dml = read_tsv(&fixtures().join("dml.tsv"));
    let mut recovered_deleted = 0;
    for t in dumps().into_iter().filter(|t| t["table"] == "dml") {
        let ids = |action: &str| -> BTreeSet<String> {
            dml.iter()
                .find(|r| r["path"] == t["path"] && r["action"] == action)
                .map(|r| r["ids"].split(',').map(str::to_string).collect())
                .unwrap_or_default()
        };
        let (deleted, updated) = (ids("deleted"), ids("updated"));
        let live: HashMap<String, String> = String::from_utf8(gunzip(&fixtures().join(&t["dump"])))
            .unwrap()
            .lines()
            .map(|l| (l.split('\t').next().unwrap().to_string(), l.to_string()))
            .collect();
        let n_ids = live.len() + deleted.len();
        for r in recovered(&fixtures().join(&t["path"]))
            .iter()
            .filter(|r| r.origin.starts_with("freed-page") || r.origin.starts_with("unlinked-page"))
        {
            let id = r.row.split('\t').next().unwrap();
            let n: usize = id.parse().unwrap();
            assert!(
                (1..=n_ids).contains(&n),
                "{}: id {id} was never in the table",
                t["path"]
            );
            if deleted.contains(id) {
                assert_eq!(r.complete, "complete", "{}: {}", t["path"], r.row);
                assert!(!r.origin.contains("copy"), "{}: {}", t["path"], r.row);
                recovered_deleted += 1;
            } else if !updated.contains(id) {
                assert_eq!(
                    Some(&r.row),
                    live.get(id),
                    "{}: copy of a live row",
                    t["path"]
                );
                assert!(
                    r.origin.ends_with("(copy of a live row)"),
                    "{}: {}",
                    t["path"],
                    r.row
                );
            }
        }
    }
    assert!(
        recovered_deleted > 0,
        "no deleted row came back from a freed page"
    );
    eprintln!("{recovered_deleted} deleted rows recovered from freed pages");
}

/// `rows --format sql`: one INSERT per row of the dump, and `schema`
/// names every column the dump names, on every fixture table that
/// decodes; `schema --format json` is one document with those columns.
#[test]
fn sql_and_schema_on_fixtures() {
    for t in dumps() {
        if NOT_DECODED.iter().any(|n| n.0 == t["table"]) {
            continue;
        }
        let file = fixtures().join(&t["path"]);
        let f = file.to_str().unwrap();
        let o = run(&["rows", "--format", "sql", f]);
        assert_eq!(o.status.code(), Some(0), "{}", t["path"]);
        let text = String::from_utf8(o.stdout).unwrap();
        let inserts = text
            .lines()
            .filter(|l| l.starts_with("INSERT INTO `"))
            .count();
        assert_eq!(
            inserts,
            t["rows"].parse::<usize>().unwrap(),
            "{}",
            t["path"]
        );
        let o = run(&["schema", f]);
        assert_eq!(o.status.code(), Some(0), "{}", t["path"]);
        let s = String::from_utf8(o.stdout).unwrap();
        assert!(s.starts_with("-- definition: "), "{s}");
        assert!(s.contains(".frm (found beside the .ibd"), "{s}");
        for c in t["columns"].split(',') {
            assert!(
                s.contains(&format!("\n  `{c}` ")),
                "{}: {c}: {s}",
                t["path"]
            );
        }
        let o = run(&["schema", "--format", "json", f]);
        assert_eq!(o.status.code(), Some(0), "{}", t["path"]);
        let j = super::common::Json::parse(&String::from_utf8(o.stdout).unwrap());
        assert_eq!(j.get("source").str(), "frm");
        let names: Vec<&str> = j
            .get("columns")
            .arr()
            .iter()
            .filter(|c| c.get("hidden").str() == "visible")
            .map(|c| c.get("name").str())
            .collect();
        let want: Vec<&str> = t["columns"].split(',').collect();
        assert_eq!(names, want, "{}", t["path"]);
    }
}

/// `rows --format sql` loads back into the server that wrote the table
/// and gives its `CHECKSUM TABLE`: `fixtures/generate --only sqlload` ran
/// our SQL through the real MySQL 5.6.24 and MariaDB 10.11 servers and
/// recorded, per table, the server's verdict and the CRC-32 and length of
/// the exact SQL it loaded (`fixtures/rows/sqlload.tsv`). Here every table
/// of `rows/tables.tsv` must have a `match` there, and today's output of
/// the same command must be those same bytes: any change to the SQL needs
/// that step run again against the servers.
#[test]
fn sql_output_is_what_the_servers_loaded() {
    let loaded: HashMap<String, HashMap<String, String>> =
        read_tsv(&fixtures().join("rows/sqlload.tsv"))
            .into_iter()
            .map(|r| (r["path"].clone(), r))
            .collect();
    let mut failures = Vec::new();
    for t in dumps() {
        let Some(l) = loaded.get(&t["path"]) else {
            failures.push(format!("{}: not in rows/sqlload.tsv", t["path"]));
            continue;
        };
        if l["result"] != "match" {
            failures.push(format!("{}: the server said: {}", t["path"], l["result"]));
            continue;
        }
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_ibdscope"))
            .args(["rows", &t["path"], "--frm", &t["frm"], "--format", "sql"])
            .current_dir(fixtures())
            .output()
            .expect("run ibdscope");
        assert!(
            o.status.code() == Some(0) || o.status.code() == Some(1),
            "{}",
            t["path"]
        );
        let (len, crc) = (o.stdout.len().to_string(), crc32(&o.stdout).to_string());
        if len != l["sql_bytes"] || crc != l["sql_crc32"] {
            failures.push(format!(
                "{}: the SQL is now {len} bytes, CRC-32 {crc}; the servers loaded {} bytes, \
                 CRC-32 {} (run fixtures/generate --only sqlload)",
                t["path"], l["sql_bytes"], l["sql_crc32"]
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    eprintln!(
        "{} tables: SQL loaded by their server, checksums match",
        loaded.len()
    );
}

/// A .ibd with no SDI and no .frm beside it: exit 2, saying what is
/// missing.
#[test]
fn no_definition_exits_2() {
    let src = fixtures().join("mysql56/ai_int.ibd");
    let copy = super::common::scratch("no_frm.ibd");
    std::fs::copy(&src, &copy).unwrap();
    for cmd in ["schema", "rows"] {
        let o = run(&[cmd, copy.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(2), "{cmd}");
        let e = String::from_utf8_lossy(&o.stderr);
        assert!(
            e.contains("no table definition") && e.contains("--frm"),
            "{e}"
        );
    }
    // With --frm it reads.
    let frm = fixtures().join("mysql56/ai_int.frm");
    let o = run(&[
        "rows",
        "--frm",
        frm.to_str().unwrap(),
        copy.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0));
}

/// Every MySQL 8.0 / 8.4 / 9.x (and Percona 8.0) corpus file: `schema` and
/// `rows` run; the live rows number the manifest's `expected_rows` where
/// stated and the table is the one it names; encrypted files exit 2
/// saying they are encrypted.
#[test]
fn corpus_mysql8_schema_and_rows() {
    let Some(dir) = corpus() else { return };
    let mut n = 0;
    for r in read_tsv(&dir.join("manifest.tsv")) {
        let p = &r["path"];
        if !(p.starts_with("mysql-8") || p.starts_with("mysql-9") || p.starts_with("percona-8")) {
            continue;
        }
        n += 1;
        let file = dir.join(p);
        let f = file.to_str().unwrap();
        let schema = run(&["schema", f]);
        let rows = run(&["rows", "--format", "jsonl", f]);
        if p.contains("encrypted") {
            for o in [&schema, &rows] {
                assert_eq!(o.status.code(), Some(2), "{p}");
                assert!(
                    String::from_utf8_lossy(&o.stderr).contains("the file is encrypted"),
                    "{p}"
                );
            }
            continue;
        }
        // The ROW_FORMAT=COMPRESSED file reads like the others: its SDI and
        // rows are on compressed pages, decompressed (zip.rs).
        assert_eq!(
            schema.status.code(),
            Some(0),
            "{p}: {}",
            String::from_utf8_lossy(&schema.stderr)
        );
        let s = String::from_utf8(schema.stdout).unwrap();
        assert!(
            s.starts_with("-- definition: the SDI in the file"),
            "{p}: {s}"
        );
        assert_eq!(
            rows.status.code(),
            Some(0),
            "{p}: {}",
            String::from_utf8_lossy(&rows.stderr)
        );
        let out = String::from_utf8(rows.stdout).unwrap();
        for l in out.lines() {
            super::common::Json::parse(l);
        }
        if let Some((table, count)) = r["expected_rows"].split_once('=') {
            assert!(s.contains(&format!("`{}` (", table.trim())), "{p}: {s}");
            assert_eq!(
                out.lines().count(),
                count.trim().parse::<usize>().unwrap(),
                "{p}"
            );
        }
    }
    assert!(n >= 10, "{n} MySQL 8+ corpus files");
}

/// `--ddl`: every dumped fixture table read with the server's own `SHOW
/// CREATE TABLE` (`rows/<dir>__<table>.sql`) instead of its `.frm` gives
/// the `.frm` route's output exactly (exit code, stdout, stderr), and so,
/// wherever the `.frm` route equals the server's dump, the dump byte for
/// byte; `schema` says the definition came from the statement.
#[test]
fn rows_from_create_table_equal_server_dumps() {
    let tables = dumps();
    let (mut matched, mut fails) = (0, Vec::new());
    for t in &tables {
        let file = fixtures().join(&t["path"]);
        let f = file.to_str().unwrap();
        let sql = fixtures().join(&t["definition"]);
        let s = sql.to_str().unwrap();
        let want = gunzip(&fixtures().join(&t["dump"]));
        let by_frm = run(&["rows", "--format", "tsv", f]);
        let by_ddl = run(&["rows", "--ddl", s, "--format", "tsv", f]);
        if by_ddl.status.code() != by_frm.status.code() || by_ddl.stdout != by_frm.stdout {
            fails.push(format!(
                "{}: --ddl exit {:?} ({} bytes), .frm exit {:?} ({} bytes): {}",
                t["path"],
                by_ddl.status.code(),
                by_ddl.stdout.len(),
                by_frm.status.code(),
                by_frm.stdout.len(),
                String::from_utf8_lossy(&by_ddl.stderr)
            ));
            continue;
        }
        if by_frm.status.code() == Some(0) && by_frm.stdout == want {
            assert_eq!(by_ddl.stdout, want, "{}", t["path"]);
            matched += 1;
        }
        let o = run(&["schema", "--ddl", s, f]);
        let text = String::from_utf8_lossy(&o.stdout);
        assert!(
            text.starts_with(&format!(
                "-- definition: {s} (--ddl: CREATE TABLE `{}`",
                t["table"]
            )),
            "{}: {text}",
            t["path"]
        );
    }
    assert!(fails.is_empty(), "{}", fails.join("\n"));
    eprintln!(
        "--ddl: {matched} of {} tables equal the server dumps",
        tables.len()
    );
    if !tables.is_empty() {
        assert!(matched >= 30, "{matched} tables matched");
    }
}

/// `--ddl` and `--frm` exclude each other; a statement that cannot be read
/// exits 2 naming the line and column.
#[test]
fn ddl_option_errors() {
    let ibd = fixtures().join("mysql56/ai_int.ibd");
    let frm = fixtures().join("mysql56/ai_int.frm");
    let sql = fixtures().join("rows/mysql56__ai_int.sql");
    let o = run(&[
        "rows",
        "--ddl",
        sql.to_str().unwrap(),
        "--frm",
        frm.to_str().unwrap(),
        ibd.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let bad = super::common::scratch("bad_ddl.sql");
    std::fs::write(&bad, "CREATE TABLE t (\n  a int,\n  b frob(3)\n);\n").unwrap();
    let o = run(&[
        "schema",
        "--ddl",
        bad.to_str().unwrap(),
        ibd.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("line 3, column 5") && e.contains("frob"), "{e}");
}

/// The MySQL 5.6.39 corpus file `tb13` (innodb-java-reader's deletion
/// test) read with `--ddl`: its statement as that project's mysqldump of
/// the same server gives it (`alibaba/innodb-java-reader`
/// `innodb-java-reader/src/test/resources/test.sql`, Apache-2.0; the file
/// has no `.frm` and no SDI). Every index yields the manifest's
/// `expected_rows` (tb13=2000: 2000 inserted, the 1000 even ids deleted,
/// 1000 more inserted).
#[test]
fn corpus_mysql56_rows_from_create_table() {
    let Some(dir) = corpus() else { return };
    let file = dir.join("mysql-5.6/javareader_mysql5639_tb13_deletes.ibd");
    assert!(file.is_file(), "{}: not in the corpus", file.display());
    let want = read_tsv(&dir.join("manifest.tsv"))
        .into_iter()
        .find(|r| r["path"] == "mysql-5.6/javareader_mysql5639_tb13_deletes.ibd")
        .and_then(|r| {
            r["expected_rows"]
                .split_once('=')
                .map(|(_, n)| n.trim().to_string())
        })
        .unwrap();
    let sql = super::common::scratch("tb13_dump.sql");
    std::fs::write(
        &sql,
        "-- MySQL dump 10.13  Distrib 5.6.39\n\
         /*!40101 SET NAMES utf8 */;\n\
         DROP TABLE IF EXISTS `tb12`;\n\
         CREATE TABLE `tb12` (\n  `id` int(11) NOT NULL AUTO_INCREMENT,\n  PRIMARY KEY (`id`)\n) \
         ENGINE=InnoDB AUTO_INCREMENT=5 DEFAULT CHARSET=latin1;\n\
         DROP TABLE IF EXISTS `tb13`;\n\
         /*!40101 SET @saved_cs_client     = @@character_set_client */;\n\
         CREATE TABLE `tb13` (\n\
           `id` int(11) NOT NULL,\n\
           `a` bigint(20) NOT NULL,\n\
           `b` varchar(64) NOT NULL,\n\
           `c` varchar(1024) DEFAULT 'THIS_IS_DEFAULT_VALUE',\n\
           PRIMARY KEY (`id`),\n\
           UNIQUE KEY `b_a_idx` (`b`,`a`),\n\
           KEY `a_idx` (`a`)\n\
         ) ENGINE=InnoDB DEFAULT CHARSET=utf8;\n",
    )
    .unwrap();
    // Named like the table, so the statement is picked from the two.
    let ibd = super::common::scratch("tb13.ibd");
    std::fs::copy(&file, &ibd).unwrap();
    for index in [None, Some("b_a_idx"), Some("a_idx")] {
        let mut args = vec!["rows", "--ddl", sql.to_str().unwrap(), "--format", "tsv"];
        if let Some(i) = index {
            args.extend(["--index", i]);
        }
        args.push(ibd.to_str().unwrap());
        let o = run(&args);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{index:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let n = o.stdout.iter().filter(|&&b| b == b'\n').count();
        assert_eq!(n.to_string(), want, "{index:?}");
    }
}

/// `rows --page P` on a page that is no leaf of the index (page 0 is the
/// FSP header page: `fil0fil.h` FIL_PAGE_TYPE_FSP_HDR) cannot start: it
/// says why, exits 2, and writes no part of a document: nothing in the
/// line formats, one whole error object in JSON and JSON Lines (not the start of the rows'
/// document cut off).
#[test]
fn rows_of_a_page_that_is_no_leaf_write_no_partial_document() {
    let f = fixtures().join("mariadb1011/ai_int.ibd");
    let f = f.to_str().unwrap();
    let why = "page 0 is not a readable index page";
    for format in ["csv", "tsv", "text"] {
        let o = run(&["rows", f, "--page", "0", "--format", format]);
        assert_eq!(o.status.code(), Some(2), "{format}");
        assert!(
            o.stdout.is_empty(),
            "{format}: {}",
            String::from_utf8_lossy(&o.stdout)
        );
        assert!(String::from_utf8_lossy(&o.stderr).contains(why), "{format}");
    }
    for format in ["json", "jsonl"] {
        let (code, j) = run_json(&["rows", f, "--page", "0", "--format", format]);
        assert_eq!(code, Some(2), "{format}");
        assert!(j.get("error").str().contains(why), "{format}: {j:?}");
    }
}
