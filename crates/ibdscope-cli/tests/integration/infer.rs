//! `schema --infer` and `rows --infer`: a table read with no definition
//! at all (its `.frm` set aside), the columns inferred from its records.
//! The statement printed loads back as `--ddl` as it is (its doubts
//! named), and the rows decoded with it are the server's dump (`fixtures/rows/`), for a
//! COMPACT, a REDUNDANT, a ROW_FORMAT=COMPRESSED and a MariaDB
//! page-compressed table; damaged copies never panic nor hang.

use super::common::{fixtures, run, run_bounded, scratch};
use std::time::Duration;

/// The table copied alone into a scratch directory (no `.frm` beside
/// it): its path.
fn alone(dir: &str, table: &str) -> String {
    let d = scratch(&format!("infer-{dir}-{table}"));
    std::fs::create_dir_all(&d).expect("scratch dir");
    let to = d.join(format!("{table}.ibd"));
    std::fs::copy(fixtures().join(format!("{dir}/{table}.ibd")), &to).expect("copy");
    to.to_string_lossy().into_owned()
}

/// The server's dump of the table, its lines.
fn dump(dir: &str, table: &str) -> Vec<String> {
    let gz = std::fs::read(fixtures().join(format!("rows/{dir}__{table}.tsv.gz"))).expect("dump");
    let mut text = Vec::new();
    ibdscope_codec::inflate::inflate_raw(ibdscope_testkit::gzip_deflate(&gz), &mut text, 1 << 30)
        .expect("inflate");
    String::from_utf8(text)
        .expect("utf-8")
        .lines()
        .map(str::to_string)
        .collect()
}

fn inferred_rows_are_the_servers(dir: &str, table: &str) {
    let ibd = alone(dir, table);
    // Without a definition the file is unreadable as rows (exit 2) …
    assert_eq!(run(&["rows", &ibd]).status.code(), Some(2), "{dir}/{table}");
    // … with --infer the statement is printed, and loads back as --ddl.
    let out = run(&["schema", &ibd, "--infer"]);
    assert_eq!(out.status.code(), Some(0), "{dir}/{table}: {out:?}");
    let text = String::from_utf8(out.stdout).expect("utf-8");
    assert!(
        text.contains(&format!("CREATE TABLE `{table}` (")),
        "{text}"
    );
    assert!(
        text.contains("`c1` ") && text.contains("COMMENT '"),
        "{text}"
    );
    // These tables' random full-range INT is signed or UNSIGNED alike, and
    // a NOT NULL VARCHAR beside a NULL-able one takes either's length in a
    // NULL record: the statement says so (`ambiguous`, both named), and
    // prints the first reading, which decodes the server's rows.
    assert!(
        !text.contains("-- incomplete") || text.contains("COMMENT 'ambiguous: "),
        "{dir}/{table}: {text}"
    );
    let ddl = format!("{ibd}.sql");
    std::fs::write(&ddl, &text).expect("write ddl");
    let with_ddl = run(&["rows", &ibd, "--ddl", &ddl, "--format", "tsv"]);
    let inferred = run(&["rows", &ibd, "--infer", "--format", "tsv"]);
    assert_eq!(
        inferred.status.code(),
        Some(0),
        "{dir}/{table}: {inferred:?}"
    );
    assert_eq!(
        with_ddl.stdout, inferred.stdout,
        "{dir}/{table}: --ddl against --infer"
    );
    let stderr = String::from_utf8_lossy(&inferred.stderr);
    assert!(stderr.contains("inferred from the records"), "{stderr}");
    let got: Vec<String> = String::from_utf8(inferred.stdout)
        .expect("utf-8")
        .lines()
        .map(str::to_string)
        .collect();
    assert_eq!(
        got,
        dump(dir, table),
        "{dir}/{table}: rows against the server's dump"
    );
}

#[test]
fn compact_table_inferred() {
    inferred_rows_are_the_servers("mysql56", "rf_compact");
}

#[test]
fn redundant_table_inferred() {
    inferred_rows_are_the_servers("mariadb1011", "rf_redundant");
}

#[test]
fn compressed_table_inferred() {
    inferred_rows_are_the_servers("mysql56", "rf_compressed8");
}

#[test]
fn page_compressed_table_inferred() {
    inferred_rows_are_the_servers("mariadb1011", "pagecomp");
}

/// Every row says it was decoded with an inferred definition.
#[test]
fn every_row_marked_inferred() {
    let ibd = alone("mariadb1011", "ai_int");
    let jsonl = run(&["rows", &ibd, "--infer", "--format", "jsonl"]);
    assert_eq!(jsonl.status.code(), Some(0));
    let text = String::from_utf8(jsonl.stdout).expect("utf-8");
    assert_eq!(text.lines().count(), 3000);
    assert!(
        text.lines()
            .all(|l| l.ends_with(",\"inferred_definition\":true}")),
        "{text}"
    );
    let csv = run(&["rows", &ibd, "--infer", "--format", "csv"]);
    let text = String::from_utf8(csv.stdout).expect("utf-8");
    assert!(text
        .lines()
        .next()
        .is_some_and(|h| h.ends_with(",_verified,_inferred")));
    assert!(text.lines().skip(1).all(|l| l.ends_with(",true,true")));
    let json = run(&["schema", &ibd, "--infer", "--format", "json"]);
    let text = String::from_utf8(json.stdout).expect("utf-8");
    assert!(text.contains("\"source\":\"inferred\""), "{text}");
    assert!(text.contains("\"confidence\":\"high\""), "{text}");
    let txt = run(&["rows", &ibd, "--infer"]);
    let text = String::from_utf8(txt.stdout).expect("utf-8");
    assert!(
        text.lines().next().is_some_and(|h| h.contains("inferred")),
        "{text}"
    );
}

/// A table the search cannot read says why and prints no definition.
#[test]
fn not_inferred_says_why() {
    let ibd = alone("mariadb1011", "instant");
    let out = run(&["schema", &ibd, "--infer"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no table definition could be inferred"),
        "{err}"
    );
    assert!(out.stdout.is_empty());
}

/// Damaged copies: bytes overwritten across the records of every page,
/// and a cut file; the inference never panics nor hangs (every search is
/// bounded) and exits 0, 1 or 2.
#[test]
fn damaged_copies_never_panic() {
    let src = std::fs::read(fixtures().join("mysql56/rf_compact.ibd")).expect("fixture");
    let d = scratch("infer-torture");
    std::fs::create_dir_all(&d).expect("dir");
    let mut seed = 0x2545_F491_4F6C_DD1Du64;
    for case in 0..12 {
        let mut b = src.clone();
        if case == 11 {
            b.truncate(b.len() / 3 + 1000);
        }
        let n = b.len() / 16384;
        for _ in 0..(40 * (case + 1)) {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let page = (seed as usize >> 8) % n.max(1);
            let at = page * 16384 + 94 + (seed as usize >> 24) % 16000;
            if let Some(x) = b.get_mut(at) {
                *x = (seed >> 40) as u8;
            }
        }
        let p = d.join(format!("t{case}.ibd"));
        std::fs::write(&p, &b).expect("write");
        let p = p.to_string_lossy().into_owned();
        for args in [
            vec!["schema", p.as_str(), "--infer"],
            vec!["rows", p.as_str(), "--infer", "--format", "tsv"],
        ] {
            // `run_bounded` does not drain the pipe while it waits: rows'
            // output (more than a pipe holds) is read by `run`, the bound
            // is checked on `schema` (the same inference).
            let out = if args[0] == "schema" {
                run_bounded(&args, Duration::from_secs(120))
            } else {
                run(&args)
            };
            let code = out.status.code();
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(
                matches!(code, Some(0..=2)),
                "case {case} {args:?}: {code:?} {err}"
            );
            assert!(!err.contains("panicked"), "case {case}: {err}");
        }
    }
}

/// `secondary` (`KEY idx_k (k)`, `KEY idx_name (name)`, the .frm): the
/// statement `schema --infer` prints ties both secondary indexes to the
/// clustered columns (`KEY k1 (c2)`, `KEY k2 (c3)`, `high`), and loaded
/// back as `--ddl` it reads each secondary index's records as the
/// server's rows hold them: every (key, id) pair of the index is a row's
/// of the server's dump, and every row's is in the index.
#[test]
fn secondary_keys_inferred_read_their_index() {
    for dir in ["mysql56", "mariadb1011"] {
        let ibd = alone(dir, "secondary");
        let out = run(&["schema", &ibd, "--infer"]);
        assert_eq!(out.status.code(), Some(0), "{dir}: {out:?}");
        let text = String::from_utf8(out.stdout).expect("utf-8");
        for line in [
            "KEY `k1` (`c2`) COMMENT 'high: ",
            "KEY `k2` (`c3`) COMMENT 'high: ",
        ] {
            assert!(text.contains(line), "{dir}: no {line}\n{text}");
        }
        let ddl = format!("{ibd}.sql");
        std::fs::write(&ddl, &text).expect("write ddl");
        let rows = dump(dir, "secondary");
        // (k, id) and (name, id) from the dump's id, k, name, payload.
        for (index, col) in [("k1", 1), ("k2", 2)] {
            let o = run(&[
                "rows", &ibd, "--ddl", &ddl, "--index", index, "--format", "tsv",
            ]);
            assert_eq!(o.status.code(), Some(0), "{dir} {index}: {o:?}");
            let mut got: Vec<String> = String::from_utf8(o.stdout)
                .expect("utf-8")
                .lines()
                .map(str::to_string)
                .collect();
            let mut want: Vec<String> = rows
                .iter()
                .map(|l| {
                    let v: Vec<&str> = l.split('\t').collect();
                    format!("{}\t{}", v[col], v[0])
                })
                .collect();
            got.sort();
            want.sort();
            assert_eq!(got.len(), 3000, "{dir} {index}");
            assert_eq!(
                got, want,
                "{dir} {index}: the index's rows against the dump"
            );
        }
    }
}
