//! Every CSV output parses as RFC 4180 (a std-only parser below) with the
//! header's column count on every row, on real-server files, a copy with a
//! damaged page and a copy whose `.frm` names an index with a comma, quotes
//! and a newline. The figures checked come from the servers
//! (`fixtures/manifest.tsv`, `fixtures/indexes.tsv`) or from the damage
//! planted.
#![allow(
    clippy::arithmetic_side_effects,
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic
)]

use ibdscope_report::args::{Cmd, Format, Opts, RecordsOpts, RowsOpts};
use ibdscope_report::host::ReadHost;
use ibdscope_report::{run, Outcome};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A CSV document as rows of fields, or where it breaks RFC 4180: fields
/// separated by commas, records by LF or CRLF, a quoted field's quotes
/// doubled, no quote in an unquoted field, nothing after a closing quote
/// but a separator.
fn parse(text: &str) -> Result<Vec<Vec<String>>, String> {
    let mut rows = Vec::new();
    if text.is_empty() {
        return Ok(rows);
    }
    let mut chars = text.chars().peekable();
    let mut row = Vec::new();
    let line = |rows: &Vec<Vec<String>>| rows.len() + 1;
    loop {
        let mut field = String::new();
        if chars.peek() == Some(&'"') {
            chars.next();
            loop {
                match chars.next() {
                    None => return Err(format!("line {}: unterminated quote", line(&rows))),
                    Some('"') if chars.peek() == Some(&'"') => {
                        chars.next();
                        field.push('"');
                    }
                    Some('"') => break,
                    Some(c) => field.push(c),
                }
            }
        } else {
            while let Some(&c) = chars.peek() {
                match c {
                    ',' | '\n' | '\r' => break,
                    '"' => {
                        return Err(format!(
                            "line {}: a quote in an unquoted field",
                            line(&rows)
                        ))
                    }
                    c => {
                        field.push(c);
                        chars.next();
                    }
                }
            }
        }
        row.push(field);
        match chars.next() {
            Some(',') => continue,
            Some('\r') if chars.next() == Some('\n') => {}
            Some('\n') => {}
            None => {
                rows.push(row);
                return Ok(rows);
            }
            Some(c) => {
                return Err(format!(
                    "line {}: {c:?} after a field (after a closing quote?)",
                    line(&rows)
                ))
            }
        }
        rows.push(std::mem::take(&mut row));
        if chars.peek().is_none() {
            return Ok(rows);
        }
    }
}

#[test]
fn the_parser_is_rfc_4180() {
    assert_eq!(
        parse("a,b\n\"x,\"\"y\"\"\",\n").unwrap(),
        vec![vec!["a", "b"], vec!["x,\"y\"", ""]]
    );
    assert_eq!(
        parse("a\r\n\"l1\nl2\"\r\n").unwrap(),
        vec![vec!["a"], vec!["l1\nl2"]]
    );
    assert_eq!(parse("a,b").unwrap(), vec![vec!["a", "b"]]);
    assert!(parse("a\"b\n").is_err());
    assert!(parse("\"a\"b\n").is_err());
    assert!(parse("\"a\n").is_err());
}

/// A parsed CSV output: its header and rows, every row as long as the
/// header, the header's names distinct lower-case identifiers.
struct Table {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Table {
    fn of(what: &str, out: &[u8]) -> Table {
        let text = std::str::from_utf8(out).unwrap_or_else(|e| panic!("{what}: not UTF-8: {e}"));
        let mut rows = parse(text).unwrap_or_else(|e| panic!("{what}: {e}\n{text}"));
        assert!(!rows.is_empty(), "{what}: no header");
        let header = rows.remove(0);
        for (i, h) in header.iter().enumerate() {
            assert!(
                !h.is_empty()
                    && h.bytes()
                        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_'),
                "{what}: header column {h:?}"
            );
            assert!(!header[..i].contains(h), "{what}: column {h} twice");
        }
        for (i, r) in rows.iter().enumerate() {
            assert_eq!(
                r.len(),
                header.len(),
                "{what}: row {} has {} fields, the header {}: {r:?}",
                i + 1,
                r.len(),
                header.len()
            );
        }
        Table { header, rows }
    }

    fn col(&self, name: &str) -> usize {
        self.header
            .iter()
            .position(|h| h == name)
            .unwrap_or_else(|| panic!("no column {name} in {:?}", self.header))
    }

    /// The rows whose column `name` is `value`.
    fn rows_with<'a>(
        &'a self,
        name: &str,
        value: &'a str,
    ) -> impl Iterator<Item = &'a Vec<String>> {
        let c = self.col(name);
        self.rows.iter().filter(move |r| r[c] == value)
    }
}

fn opts(cmd: Cmd, files: &[PathBuf], format: Format) -> Opts {
    Opts {
        threads: 2,
        ..Opts::new(cmd, files.to_vec(), format, Arc::new(ReadHost))
    }
}

/// `cmd` over `files` as CSV: its outcome and parsed table.
fn csv(cmd: Cmd, files: &[PathBuf]) -> (Outcome, Table) {
    let what = format!("{cmd:?} {files:?}");
    let mut out = Vec::new();
    let outcome = run(&opts(cmd, files, Format::Csv), &mut out).expect("writing to a Vec");
    (outcome, Table::of(&what, &out))
}

/// Every command over one file that offers CSV.
fn single_commands() -> Vec<Cmd> {
    vec![
        Cmd::Pages { from: 0, to: None },
        Cmd::Types,
        Cmd::Check,
        Cmd::Extents,
        Cmd::Segments,
        Cmd::Indexes,
        Cmd::Records(RecordsOpts::default()),
        Cmd::Rows(RowsOpts {
            max_value_bytes: 64,
            with_deleted: true,
            ..RowsOpts::default()
        }),
        Cmd::Audit,
    ]
}

const FILES: &[&str] = &[
    "mysql56/ai_int.ibd",
    "mysql56/secondary.ibd",
    "mysql56/dml.ibd",
    "mariadb1011/uuid_char36.ibd",
    "mariadb1011-4k/secondary.ibd",
    "mariadb1011-64k/ai_int.ibd",
];

/// `fixtures/manifest.tsv`: path → (page size, rows, file size).
fn manifest() -> BTreeMap<String, (u64, u64, u64)> {
    ibdscope_testkit::tsv(&ibdscope_testkit::fixtures().join("manifest.tsv"))
        .into_iter()
        .map(|r| {
            let n = |k: &str| r[k].parse::<u64>().unwrap();
            (
                r["path"].clone(),
                (n("physical_page_size"), n("rows"), n("file_size")),
            )
        })
        .collect()
}

#[test]
fn every_csv_output_parses_with_the_headers_column_count() {
    let fx = ibdscope_testkit::fixtures();
    for f in FILES {
        let file = fx.join(f);
        for cmd in single_commands() {
            let (outcome, _) = csv(cmd, std::slice::from_ref(&file));
            assert_ne!(outcome, Outcome::Unreadable, "{f}");
        }
    }
    let pair = [fx.join("mysql56/ai_int.ibd"), fx.join("mysql56/dml.ibd")];
    for cmd in [Cmd::Compare, Cmd::Diff, Cmd::Check] {
        csv(cmd, &pair);
    }
    if let Some(corpus) = ibdscope_testkit::corpus() {
        let film = corpus.join("mysql-8.4/sakila_mysql8403_film.ibd");
        for cmd in single_commands() {
            csv(cmd, std::slice::from_ref(&film));
        }
    }
}

/// One row per page in `pages` and `extents` (the server's file size over
/// its page size); each index's leaf records add up to the table's rows
/// (tables without deleted rows), and the index named on a root page is
/// the one the server names for it.
#[test]
fn page_rows_match_the_servers_figures() {
    let fx = ibdscope_testkit::fixtures();
    let m = manifest();
    let roots = ibdscope_testkit::tsv(&fx.join("indexes.tsv"));
    for f in [
        "mysql56/ai_int.ibd",
        "mysql56/secondary.ibd",
        "mariadb1011/uuid_char36.ibd",
        "mariadb1011-4k/secondary.ibd",
        "mariadb1011-64k/ai_int.ibd",
    ] {
        let (page_size, rows, size) = m[f];
        let n_pages = (size / page_size) as usize;
        let file = vec![fx.join(f)];
        let (_, pages) = csv(Cmd::Pages { from: 0, to: None }, &file);
        let (_, extents) = csv(Cmd::Extents, &file);
        assert_eq!(pages.rows.len(), n_pages, "{f}: pages");
        assert_eq!(extents.rows.len(), n_pages, "{f}: extents");
        for (i, r) in extents.rows.iter().enumerate() {
            assert_eq!(r[extents.col("page")], i.to_string(), "{f}");
        }
        let (id, name, level, recs) = (
            pages.col("index_id"),
            pages.col("index_name"),
            pages.col("level"),
            pages.col("records"),
        );
        let mine: Vec<_> = roots.iter().filter(|r| r["path"] == f).collect();
        assert!(!mine.is_empty(), "{f}: no index in indexes.tsv");
        for ix in mine {
            let root: usize = ix["root_page"].parse().unwrap();
            let row = &pages.rows[root];
            assert_eq!(row[id], ix["index_id"], "{f}: root page {root}");
            assert_eq!(row[name], ix["index_name"], "{f}: root page {root}");
            let leaf_records: u64 = pages
                .rows_with("index_id", &ix["index_id"])
                .filter(|r| r[level] == "0")
                .map(|r| r[recs].parse::<u64>().unwrap())
                .sum();
            assert_eq!(leaf_records, rows, "{f}: index {}", ix["index_name"]);
        }
        let (_, indexes) = csv(Cmd::Indexes, &file);
        for r in &indexes.rows {
            assert_eq!(r[indexes.col("records")], rows.to_string(), "{f}: {r:?}");
        }
    }
}

/// A scratch directory of this test binary.
fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ibdscope-csv-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A page with one byte flipped is one `invalid` row of `check` with an
/// offset inside it (its reason, which holds commas, quoted), `damaged` in
/// `extents`, and counted in its index's `damaged_pages`.
#[test]
fn a_damaged_page_is_a_row_of_check_and_extents() {
    let src = ibdscope_testkit::fixtures().join("mysql56/ai_int");
    let d = scratch("damaged");
    let ibd = d.join("t,1.ibd");
    let mut bytes = std::fs::read(src.with_extension("ibd")).unwrap();
    let page = 5usize;
    let at = page * 16384 + 8000;
    bytes[at] ^= 0xff;
    std::fs::write(&ibd, &bytes).unwrap();
    std::fs::copy(src.with_extension("frm"), d.join("t,1.frm")).unwrap();
    let file = vec![ibd.clone()];

    let (outcome, check) = csv(Cmd::Check, &file);
    assert_eq!(outcome, Outcome::Findings);
    let invalid: Vec<_> = check.rows_with("kind", "invalid").collect();
    assert_eq!(invalid.len(), 1, "{:?}", check.rows);
    let r = invalid[0];
    assert_eq!(r[check.col("file")], ibd.display().to_string());
    assert_eq!(r[check.col("page")], page.to_string());
    let offset: usize = r[check.col("offset")].parse().unwrap();
    assert!(
        (page * 16384..(page + 1) * 16384).contains(&offset),
        "{r:?}"
    );
    assert!(r[check.col("reason")].contains(", "), "{r:?}");

    let (outcome, extents) = csv(Cmd::Extents, &file);
    assert_eq!(outcome, Outcome::Findings);
    let damaged: Vec<_> = extents.rows_with("damaged", "true").collect();
    assert_eq!(damaged.len(), 1);
    assert_eq!(damaged[0][extents.col("page")], page.to_string());
    assert_eq!(damaged[0][extents.col("fill_eighths")], "");

    let (_, indexes) = csv(Cmd::Indexes, &file);
    let total: u64 = indexes
        .rows
        .iter()
        .map(|r| r[indexes.col("damaged_pages")].parse::<u64>().unwrap())
        .sum();
    assert_eq!(total, 1);
    let _ = std::fs::remove_dir_all(&d);
}

/// An index name with a comma, quotes and a newline (`PRIMARY` patched in
/// the `.frm`, same length) stays one field: shown as text shows it (the
/// newline as `\n`) and quoted; no row gains a field or a line.
#[test]
fn a_name_with_a_comma_quotes_and_a_newline_is_one_field() {
    let src = ibdscope_testkit::fixtures().join("mariadb1011/ai_int");
    let d = scratch("names");
    let ibd = d.join("t.ibd");
    std::fs::copy(src.with_extension("ibd"), &ibd).unwrap();
    let mut frm = std::fs::read(src.with_extension("frm")).unwrap();
    let at = frm.windows(7).position(|w| w == b"PRIMARY").unwrap();
    frm[at..at + 7].copy_from_slice(b"P,\"Q\n\"R");
    std::fs::write(d.join("t.frm"), &frm).unwrap();
    let want = "P,\"Q\\n\"R";
    let file = vec![ibd];
    for cmd in [
        Cmd::Pages { from: 0, to: None },
        Cmd::Extents,
        Cmd::Segments,
        Cmd::Indexes,
    ] {
        let what = format!("{cmd:?}");
        let mut out = Vec::new();
        run(&opts(cmd, &file, Format::Csv), &mut out).unwrap();
        assert!(!out.contains(&b'\x1b'), "{what}");
        let t = Table::of(&what, &out);
        let n = t.rows_with("index_name", want).count();
        assert!(n > 0, "{what}: no row names {want:?}: {:?}", t.rows);
    }
    let _ = std::fs::remove_dir_all(&d);
}

/// A file that cannot be read is a row of `check` and of `compare`.
#[test]
fn an_unreadable_file_is_a_row() {
    let missing = Path::new("/nonexistent/ibdscope/x.ibd").to_path_buf();
    let good = ibdscope_testkit::fixtures().join("mysql56/ai_int.ibd");
    let files = vec![good, missing.clone()];
    let (outcome, check) = csv(Cmd::Check, &files);
    assert_eq!(outcome, Outcome::Unreadable);
    let errors: Vec<_> = check.rows_with("kind", "error").collect();
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0][check.col("file")], missing.display().to_string());
    let (_, compare) = csv(Cmd::Compare, &files);
    assert_eq!(compare.rows.len(), 2);
    assert_eq!(
        compare.rows[1][compare.col("file")],
        missing.display().to_string()
    );
    assert_ne!(compare.rows[1][compare.col("error")], "");
    assert_eq!(compare.rows[0][compare.col("error")], "");
}
