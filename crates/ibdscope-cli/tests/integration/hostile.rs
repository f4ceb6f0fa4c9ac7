//! Hostile and live inputs: each test is named after a failure measured on
//! the binary, runs it on a real file (fixtures/ or ../shared/corpus/),
//! patched where the failure needs it, and holds it to what the server or
//! the file's source says.
//!
//! Patched pages are re-sealed with the checksum algorithm their clean copy
//! verified with, so only the planted damage is there to find.

use super::common::{corpus, fixtures, read_tsv, run, scratch};
use ibdscope_core::checksum::{self, Algorithm, Verdict};
use ibdscope_core::space::verify_page;
use ibdscope_core::{PageNo, PageType, Tablespace, FIL_NULL};
use std::path::{Path, PathBuf};

fn be32(d: &[u8], at: usize) -> u32 {
    u32::from_be_bytes(d[at..at + 4].try_into().unwrap())
}

fn be16(d: &[u8], at: usize) -> u16 {
    u16::from_be_bytes(d[at..at + 2].try_into().unwrap())
}

/// Writes the checksum of page `n` of `data` again, with the algorithm the
/// clean copy of that page verified with.
fn seal(clean: &[u8], data: &mut [u8], n: usize) {
    let ts = Tablespace::new(clean).unwrap();
    let size = ts.page_size() as usize;
    let alg = match verify_page(ts.page(PageNo(n as u32)).unwrap(), ts.scheme()) {
        Verdict::Valid(a) => a,
        v => panic!("page {n} of the clean file does not verify: {v:?}"),
    };
    let p = &mut data[n * size..(n + 1) * size];
    match alg {
        Algorithm::Crc32 => {
            let v = checksum::page_crc32(p).to_be_bytes();
            p[..4].copy_from_slice(&v);
            p[size - 8..size - 4].copy_from_slice(&v);
        }
        Algorithm::Innodb | Algorithm::InnodbPre4014 => {
            let new = checksum::page_innodb_new(p).to_be_bytes();
            p[..4].copy_from_slice(&new);
            let old = checksum::page_innodb_old(p).to_be_bytes();
            p[size - 8..size - 4].copy_from_slice(&old);
        }
        Algorithm::FullCrc32 => {
            let covered = checksum::full_crc32_size(p).map_or(size, |(s, _)| s);
            let v = checksum::full_crc32(&p[..covered]).to_be_bytes();
            p[covered - 4..covered].copy_from_slice(&v);
        }
        Algorithm::None => {}
        a => panic!("page {n}: no sealing for {a:?}"),
    }
}

/// Output of `rows --format csv` on `file` (with `extra` arguments): exit
/// code, the rows as cells, and stdout plus stderr as text.
fn rows_csv(file: &Path, extra: &[&str]) -> (i32, Vec<Vec<String>>, String) {
    let mut args = vec!["rows", "--format", "csv"];
    args.extend_from_slice(extra);
    let f = file.to_str().unwrap();
    args.push(f);
    let out = run(&args);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let text = format!("{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(
        !text.contains("panicked"),
        "{}: panicked:\n{text}",
        file.display()
    );
    // Values here are numbers, names and hex: no quoted commas or newlines.
    let cells = stdout
        .lines()
        .map(|l| l.split(',').map(str::to_string).collect())
        .collect();
    (out.status.code().unwrap_or(-1), cells, text)
}

/// A file to patch: where it is, and the `.frm` it needs beside it.
struct Source {
    path: PathBuf,
    frm: Option<PathBuf>,
    /// A chain as its source states it, where the page types do not tell
    /// (MySQL 5.0 left type 0 on BLOB pages, and on page 0 too).
    chain: Option<[usize; 3]>,
}

impl Source {
    fn extra(&self) -> Vec<String> {
        self.frm
            .iter()
            .flat_map(|f| ["--frm".to_string(), f.to_str().unwrap().to_string()])
            .collect()
    }
}

fn corpus_file(rel: &str) -> Option<PathBuf> {
    corpus().map(|d| d.join(rel))
}

/// Runs `rows` on a copy of `src` patched by `patch` (which returns the
/// pages it wrote), and holds it to: exit 1; a finding containing `named`;
/// and every value either as on the clean file or shorter (the local
/// prefix of a value whose chain was refused), at least one shorter: no
/// value comes out at full length from repeated bytes.
fn loop_case(src: &Source, tag: &str, named: &str, patch: impl FnOnce(&mut [u8]) -> Vec<usize>) {
    let extra = src.extra();
    let extra: Vec<&str> = extra.iter().map(String::as_str).collect();
    let (code, clean_rows, text) = rows_csv(&src.path, &extra);
    assert_eq!(code, 0, "{}: clean file:\n{text}", src.path.display());
    let clean = std::fs::read(&src.path).unwrap();
    let mut data = clean.clone();
    for page in patch(&mut data) {
        seal(&clean, &mut data, page);
    }
    let name = format!("{tag}-{}", src.path.file_name().unwrap().to_str().unwrap());
    let path = scratch(&name);
    std::fs::write(&path, &data).unwrap();
    let (code, rows, text) = rows_csv(&path, &extra);
    let ctx = format!(
        "{} ({tag}):\n{}",
        src.path.display(),
        &text[..text.len().min(4000)]
    );
    assert_eq!(code, 1, "{ctx}");
    assert!(text.contains(named), "expected {named:?} in {ctx}");
    assert_eq!(rows.len(), clean_rows.len(), "{ctx}");
    let mut shorter = 0;
    for (r, c) in rows.iter().zip(&clean_rows) {
        assert_eq!(r.len(), c.len(), "{ctx}");
        for (a, b) in r.iter().zip(c) {
            if a != b {
                assert!(
                    a.len() < b.len(),
                    "{tag}: a value changed without getting shorter ({} -> {} chars)\n{ctx}",
                    b.len(),
                    a.len()
                );
                shorter += 1;
            }
        }
    }
    assert!(shorter > 0, "{tag}: no value was refused\n{ctx}");
    let _ = std::fs::remove_file(&path);
}

/// Old BLOB chains (lob0lob.h: part length and next page at FIL_PAGE_DATA
/// on every page after the first; the first header is at the reference's
/// offset, FIL_PAGE_DATA on these files too): chains of three pages a, b,
/// c, each a BLOB page.
fn old_blob_chains(data: &[u8]) -> Vec<[usize; 3]> {
    let ts = Tablespace::new(data).unwrap();
    let size = ts.page_size() as usize;
    let n = ts.n_pages() as usize;
    let is_blob = |p: usize| -> bool {
        if p >= n {
            return false;
        }
        let page = &data[p * size..(p + 1) * size];
        let t = be16(page, 24);
        let part = be32(page, 38) as usize;
        t == PageType::FIL_PAGE_TYPE_BLOB.0 && part <= size - 38 - 8 - 8
    };
    let next = |p: usize| be32(&data[p * size..], 42);
    (0..n)
        .filter(|&a| is_blob(a))
        .filter_map(|a| {
            let b = next(a);
            if b == FIL_NULL || !is_blob(b as usize) {
                return None;
            }
            let c = next(b as usize);
            (c != FIL_NULL && is_blob(c as usize)).then_some([a, b as usize, c as usize])
        })
        .collect()
}

/// MySQL 8.0 LOBs (lob0first.h, lob0index.h): on each LOB_FIRST page the
/// index list's first entry at byte 68 (page 4, offset 2), entries linked
/// by their `next` address at byte 6: runs of three entries e1 -> e2 -> e3
/// as (page, offset).
fn lob_entry_runs(data: &[u8]) -> Vec<[(usize, usize); 3]> {
    let ts = Tablespace::new(data).unwrap();
    let size = ts.page_size() as usize;
    let at = |(p, o): (usize, usize)| p * size + o;
    let next = |e: (usize, usize)| -> Option<(usize, usize)> {
        let p = be32(data, at(e) + 6);
        (p != FIL_NULL).then(|| (p as usize, usize::from(be16(data, at(e) + 10))))
    };
    let mut out = Vec::new();
    for first in 0..ts.n_pages() as usize {
        if be16(data, first * size + 24) != PageType::FIL_PAGE_TYPE_LOB_FIRST.0 {
            continue;
        }
        let p = be32(data, first * size + 68);
        if p == FIL_NULL {
            continue;
        }
        let e1 = (p as usize, usize::from(be16(data, first * size + 72)));
        if let Some(e2) = next(e1) {
            if let Some(e3) = next(e2) {
                out.push([e1, e2, e3]);
            }
        }
    }
    out
}

fn old_blob_sources() -> Vec<Source> {
    let mut v = vec![
        Source {
            path: fixtures().join("mysql56/blob.ibd"),
            frm: Some(fixtures().join("mysql56/blob.frm")),
            chain: None,
        },
        Source {
            path: fixtures().join("mariadb1011/blob.ibd"),
            frm: Some(fixtures().join("mariadb1011/blob.frm")),
            chain: None,
        },
    ];
    if let Some(p) = corpus_file("mysql-5.0/sakila_mysql50_staff.ibd") {
        // MANIFEST.md: staff 1's picture is on pages 6, 7, 8, of type 0.
        v.push(Source {
            frm: Some(p.with_extension("frm")),
            path: p,
            chain: Some([6, 7, 8]),
        });
    }
    v
}

fn lob_sources() -> Vec<Source> {
    [
        "mysql-8.0/sakila_mysql8040_staff.ibd",
        "mysql-9.x/ibdninja_mysql960_blob_external.ibd",
    ]
    .iter()
    .filter_map(|r| corpus_file(r))
    .map(|path| Source {
        path,
        frm: None,
        chain: None,
    })
    .collect()
}

/// `rows` printed a BLOB at full length, made of repeated page bytes, with
/// exit 0, when an old BLOB chain looped. Every chain of three pages a ->
/// b -> c of each file is made to loop, b to itself and b back to a.
#[test]
fn chain_loops_in_old_blob_chains_are_findings_naming_the_page() {
    for src in old_blob_sources() {
        let clean = std::fs::read(&src.path).unwrap();
        let size = Tablespace::new(&clean).unwrap().page_size() as usize;
        let chains = src
            .chain
            .map_or_else(|| old_blob_chains(&clean), |c| vec![c]);
        assert!(
            !chains.is_empty(),
            "{}: no chain of three BLOB pages",
            src.path.display()
        );
        for [a, b, _] in chains.into_iter().take(3) {
            let named = format!("chain loops: page {b} leads back to page {b} byte 38");
            loop_case(&src, &format!("blob-self-{b}"), &named, |d| {
                d[b * size + 42..b * size + 46].copy_from_slice(&(b as u32).to_be_bytes());
                vec![b]
            });
            let named = format!("chain loops: page {b} leads back to page {a} byte 38");
            loop_case(&src, &format!("blob-back-{b}"), &named, |d| {
                d[b * size + 42..b * size + 46].copy_from_slice(&(a as u32).to_be_bytes());
                vec![b]
            });
        }
    }
}

/// The same for MySQL 8.0 LOBs: an index entry's `next` made to point at
/// itself and back at the entry before it.
#[test]
fn chain_loops_in_lob_index_lists_are_findings_naming_the_page() {
    let sources = lob_sources();
    if sources.is_empty() {
        return;
    }
    for src in sources {
        let clean = std::fs::read(&src.path).unwrap();
        let size = Tablespace::new(&clean).unwrap().page_size() as usize;
        let runs = lob_entry_runs(&clean);
        assert!(
            !runs.is_empty(),
            "{}: no LOB with three entries",
            src.path.display()
        );
        for [e1, e2, _] in runs.into_iter().take(3) {
            let set = |d: &mut [u8], to: (usize, usize)| {
                let at = e2.0 * size + e2.1 + 6;
                d[at..at + 4].copy_from_slice(&(to.0 as u32).to_be_bytes());
                d[at + 4..at + 6].copy_from_slice(&(to.1 as u16).to_be_bytes());
                vec![e2.0]
            };
            let named = format!(
                "chain loops: page {} leads back to page {} byte {}",
                e2.0, e2.0, e2.1
            );
            loop_case(&src, &format!("lob-self-{}-{}", e2.0, e2.1), &named, |d| {
                set(d, e2)
            });
            let named = format!(
                "chain loops: page {} leads back to page {} byte {}",
                e2.0, e1.0, e1.1
            );
            loop_case(&src, &format!("lob-back-{}-{}", e2.0, e2.1), &named, |d| {
                set(d, e1)
            });
        }
    }
}

/// MySQL 5.0 wrote off-page BLOB pages with FIL_PAGE_TYPE 0 and the server
/// reads them on spaces without atomic blobs (`btr_check_blob_fil_page_type`);
/// `rows` refused them ("page 6 has type 0", exit 1). The corpus states
/// (MANIFEST.md) that staff 1's picture is the same bytes as in the 5.6
/// and 8.0 sakila files, and the manifest's row count is 2; the picture is
/// a PNG, whole when it ends with the IEND chunk (PNG specification, 11.2.5).
#[test]
fn old_blob_pages_of_type_0_are_read_on_spaces_without_atomic_blobs() {
    let Some(dir) = corpus() else { return };
    let ibd = dir.join("mysql-5.0/sakila_mysql50_staff.ibd");
    let frm = dir.join("mysql-5.0/sakila_mysql50_staff.frm");
    let expected: usize = read_tsv(&dir.join("manifest.tsv"))
        .iter()
        .find(|r| r["path"] == "mysql-5.0/sakila_mysql50_staff.ibd")
        .map(|r| {
            r["expected_rows"]
                .trim_start_matches("staff=")
                .parse()
                .unwrap()
        })
        .unwrap();
    let (code, rows, text) = rows_csv(&ibd, &["--frm", frm.to_str().unwrap()]);
    assert_eq!(code, 0, "{text}");
    assert_eq!(rows.len(), expected + 1, "{text}");
    let col = rows[0].iter().position(|c| c == "picture").unwrap();
    let picture = &rows[1][col];
    let (_, rows80, text80) = rows_csv(&dir.join("mysql-8.0/sakila_mysql8040_staff.ibd"), &[]);
    let col80 = rows80[0].iter().position(|c| c == "picture").unwrap();
    assert!(rows80[1][col80].len() > 2 * 8192, "{text80}");
    assert_eq!(
        picture, &rows80[1][col80],
        "staff 1's picture differs from the 8.0 copy's"
    );
    // 0x, the PNG signature, and the IEND chunk (length 0, type, CRC) last.
    assert!(picture.starts_with("0x89504e470d0a1a0a"), "{picture:.40}");
    assert!(
        picture.ends_with("0000000049454e44ae426082"),
        "not a whole PNG"
    );
}

/// `fixtures/rows/mysql56__one_row.sql` (the server's SHOW CREATE TABLE)
/// with the second column renamed to `name`.
fn one_row_ddl(name: &str) -> String {
    let sql = std::fs::read_to_string(fixtures().join("rows/mysql56__one_row.sql")).unwrap();
    assert!(sql.contains("`v` varchar(64)"), "{sql}");
    sql.replace("`v` varchar(64)", &format!("`{name}` varchar(64)"))
}

/// Output amplification: a DDL with a 1 MB column name made `rows --format
/// json` repeat the name on every row (18 GB from an 11 MB file). Names
/// have at most NAME_CHAR_LEN = 64 characters in both servers
/// (`include/mysql_com.h`): 64 is read, 65 and 1 MB are refused with the
/// length named, exit 2, before a row is written.
#[test]
fn output_amplification_from_a_1_mb_column_name_is_refused() {
    let ibd = scratch("amplify-one_row.ibd");
    std::fs::copy(fixtures().join("mysql56/one_row.ibd"), &ibd).unwrap();
    let ddl = scratch("amplify-one_row.sql");
    let run_with = |name: &str| {
        std::fs::write(&ddl, one_row_ddl(name)).unwrap();
        run(&[
            "rows",
            "--format",
            "json",
            "--ddl",
            ddl.to_str().unwrap(),
            ibd.to_str().unwrap(),
        ])
    };
    let ok = "é".repeat(64);
    let out = run_with(&ok);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains(&ok));
    for len in [65usize, 1 << 20] {
        let out = run_with(&"v".repeat(len));
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{len}: {:.300}", err);
        assert!(
            err.contains(&format!("is {len} characters, more than the 64")),
            "{len}: {err:.300}"
        );
        assert!(
            err.len() < 1024,
            "the error repeats the name: {} bytes",
            err.len()
        );
        assert!(
            out.stdout.len() < 1024,
            "{len}: {} bytes written",
            out.stdout.len()
        );
    }
}

/// `rows` output as text lines, exit code and stderr.
fn rows_text(args: &[&str]) -> (i32, String, String) {
    let mut all = vec!["rows"];
    all.extend_from_slice(args);
    let out = run(&all);
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A definition that does not fit was accepted silently: `rows --ddl` with
/// one column on a three-column table printed every row's `id` only, exit
/// 0. `fixtures/rows/mysql56__seq_int.sql` is the server's own statement
/// (3 columns); with the `v` and `n` columns left out, the records split
/// into other lengths than the page headers account for
/// (`page_get_data_size`), on every leaf page: a finding, exit 1. The
/// server's statement itself fits (exit 0).
#[test]
fn a_definition_that_does_not_fit_the_records_is_a_finding() {
    for dir in ["mysql56", "mariadb1011"] {
        let ibd = scratch(&format!("misfit-{dir}-seq_int.ibd"));
        std::fs::copy(fixtures().join(format!("{dir}/seq_int.ibd")), &ibd).unwrap();
        let full = fixtures().join(format!("rows/{dir}__seq_int.sql"));
        let sql = std::fs::read_to_string(&full).unwrap();
        let (code, _, err) = rows_text(&["--ddl", full.to_str().unwrap(), ibd.to_str().unwrap()]);
        assert_eq!(code, 0, "{dir}: the server's own statement: {err}");
        let mut cut = String::new();
        for l in sql.lines() {
            if l.trim_start().starts_with("`v`") || l.trim_start().starts_with("`n`") {
                continue;
            }
            cut.push_str(l);
            cut.push('\n');
        }
        assert_ne!(cut.len(), sql.len() + 1, "{dir}: {sql}");
        let one = scratch(&format!("misfit-{dir}-one.sql"));
        std::fs::write(&one, &cut).unwrap();
        let (code, out, _) = rows_text(&["--ddl", one.to_str().unwrap(), ibd.to_str().unwrap()]);
        assert_eq!(
            code,
            1,
            "{dir}:\n{}",
            &out[out.len().saturating_sub(2000)..]
        );
        assert!(
            out.contains("the definition does not fit the records on"),
            "{dir}: {}",
            &out[out.len().saturating_sub(2000)..]
        );
        // One finding for the index, not one per row.
        assert_eq!(out.matches("does not fit").count(), 1, "{dir}");
        assert!(out.matches("# finding").count() <= 2, "{dir}: {out:.3000}");
    }
}

/// The same for REDUNDANT records, whose header states their field count
/// (`rec_get_n_fields_old`): the server's statement with one more NOT NULL
/// column than the records hold is a finding, exit 1, once for the index.
#[test]
fn a_definition_with_more_fields_than_redundant_records_is_a_finding() {
    for dir in ["mysql56", "mariadb1011"] {
        let ibd = scratch(&format!("misfit-{dir}-rf_redundant.ibd"));
        std::fs::copy(fixtures().join(format!("{dir}/rf_redundant.ibd")), &ibd).unwrap();
        let full = fixtures().join(format!("rows/{dir}__rf_redundant.sql"));
        let (code, _, err) = rows_text(&["--ddl", full.to_str().unwrap(), ibd.to_str().unwrap()]);
        assert_eq!(code, 0, "{dir}: the server's own statement: {err}");
        let sql = std::fs::read_to_string(&full).unwrap();
        assert!(sql.contains("  PRIMARY KEY"), "{sql}");
        let more = sql.replace("  PRIMARY KEY", "  `extra` int NOT NULL,\n  PRIMARY KEY");
        let path = scratch(&format!("misfit-{dir}-more.sql"));
        std::fs::write(&path, more).unwrap();
        let (code, out, _) = rows_text(&["--ddl", path.to_str().unwrap(), ibd.to_str().unwrap()]);
        let tail = &out[out.len().saturating_sub(2000)..];
        assert_eq!(code, 1, "{dir}:\n{tail}");
        assert_eq!(
            out.matches("does not fit the records").count(),
            1,
            "{dir}: {tail}"
        );
        assert!(
            out.contains("own field counts or lengths differ"),
            "{dir}: {tail}"
        );
        // Two columns fewer: every record states more fields than the
        // definition has; one finding with the count, not one per row.
        let mut fewer = String::new();
        for l in sql.lines() {
            if !(l.trim_start().starts_with("`v`") || l.trim_start().starts_with("`n`")) {
                fewer.push_str(l);
                fewer.push('\n');
            }
        }
        std::fs::write(&path, fewer).unwrap();
        let (code, out, _) = rows_text(&["--ddl", path.to_str().unwrap(), ibd.to_str().unwrap()]);
        let tail = &out[out.len().saturating_sub(2000)..];
        assert_eq!(code, 1, "{dir}:\n{tail}");
        assert_eq!(out.matches("# finding").count(), 1, "{dir}: {out:.3000}");
        assert!(
            out.contains("live records could not be split"),
            "{dir}: {tail}"
        );
    }
}

/// A CREATE TABLE that says TIME, DATETIME, TIMESTAMP on a file of MySQL's
/// pre-5.6.4 formats decoded rows 1-2 wrongly with no finding. The values
/// are the corpus manifest's (innodb_ruby's spec, from the server); the
/// record lengths select the old formats.
#[test]
fn old_temporal_formats_are_read_when_the_records_say_so() {
    let Some(dir) = corpus() else { return };
    let rel = "mysql-5.x/innodbruby_t_date_and_time_types.ibd";
    let row = read_tsv(&dir.join("manifest.tsv"))
        .into_iter()
        .find(|r| r["path"] == rel)
        .unwrap();
    // "…(c02..c06): v, v, v, v, v | v, … | …", rows in key order.
    let stated = &row["expected_rows_source"];
    let list = stated.split("(c02..c06): ").nth(1).unwrap();
    let expected: Vec<Vec<String>> = list
        .split(" | ")
        .map(|r| r.split(", ").map(|v| v.trim().to_string()).collect())
        .collect();
    assert_eq!(expected.len(), 4, "{stated}");
    let ddl = scratch("old-temporal.sql");
    std::fs::write(
        &ddl,
        "CREATE TABLE `t_date_and_time_types` (\n  `c01` int NOT NULL,\n  `c02` year DEFAULT NULL,\n  \
         `c03` time DEFAULT NULL,\n  `c04` date DEFAULT NULL,\n  `c05` datetime DEFAULT NULL,\n  \
         `c06` timestamp NULL DEFAULT NULL,\n  PRIMARY KEY (`c01`)\n) ENGINE=InnoDB;\n",
    )
    .unwrap();
    let (code, out, err) = rows_text(&[
        "--format",
        "tsv",
        "--ddl",
        ddl.to_str().unwrap(),
        dir.join(rel).to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{out}\n{err}");
    let got: Vec<Vec<String>> = out
        .lines()
        .map(|l| l.split('\t').skip(1).map(str::to_string).collect())
        .collect();
    assert_eq!(got, expected, "{out}");
}
