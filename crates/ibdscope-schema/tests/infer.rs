//! `ibdscope_schema::infer` against the real definitions: every fixture
//! table read with its `.frm` set aside, its inferred columns compared
//! with the `.frm`'s (the server's definition; never the other way
//! round): the storage class of every column (fixed width, variable,
//! NULL-able) and its type family.
#![allow(
    clippy::arithmetic_side_effects,
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::disallowed_macros // The test prints its per-column report.
)]

use ibdscope_core::{Engine, Summary, Tablespace};
use ibdscope_schema::infer::{infer, Confidence, Family, Inference, Outcome, Storage};
use ibdscope_schema::rows::{RowScan, ScanOptions, Value};
use ibdscope_schema::table::TableDef;

/// Directories of plain (not page-compressed, not encrypted) fixtures.
const DIRS: &[&str] = &[
    "mysql56",
    "mysql56-crc32",
    "mysql56-none",
    "mariadb1011",
    "mariadb1011-crc32",
    "mariadb1011-4k",
    "mariadb1011-64k",
];

/// One real column in storage order: fixed width (`None`: variable),
/// NULL-able, family.
struct Real {
    name: String,
    fixed: Option<u32>,
    nullable: bool,
    family: Family,
    /// An integer type's signedness (`None` for other types, YEAR, ENUM,
    /// SET and BIT).
    unsigned: Option<bool>,
}

fn real(def: &TableDef, compact: bool) -> Vec<Real> {
    let ix = def.clustered().expect("clustered");
    let layout = def.layout(ix, compact).expect("layout");
    layout
        .fields
        .iter()
        .filter_map(|f| {
            let c = &def.columns[f.column];
            (c.sys().is_none()).then(|| Real {
                name: c.name.clone(),
                fixed: f.fixed_len,
                nullable: f.nullable,
                unsigned: {
                    use ibdscope_schema::table::ColType::*;
                    matches!(c.col_type, Tiny | Short | Int24 | Long | LongLong)
                        .then_some(c.unsigned)
                },
                family: match Family::of(c.col_type) {
                    Family::Text if c.charset() == ibdscope_schema::table::Charset::Binary => {
                        Family::Binary
                    }
                    f => f,
                },
            })
        })
        .collect()
}

/// A column's storage class, as the issue defines it: fixed width,
/// variable, NULL-able. COMPACT keeps no boundary between NOT NULL
/// fixed-width columns: their bytes are one run, whose total is the class.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Class {
    /// NOT NULL fixed-width columns side by side (COMPACT): their bytes.
    Run(u32),
    /// A fixed-width column: NULL-able (COMPACT: a NULL-able one;
    /// REDUNDANT: every fixed one).
    Fixed(bool),
    /// A variable-length column: NULL-able.
    Var(bool),
}

/// Whether the inferred class `got` says what the real `want` is: the
/// same class; in REDUNDANT, a NOT NULL fixed-width field for a NULL-able
/// one (a NULL-able column never NULL sets no NULL flag: the strict
/// measure reads it so too).
fn class_says(want: Class, got: Class) -> bool {
    match (want, got) {
        (Class::Run(a), Class::Run(b)) => a == b,
        (Class::Fixed(a), Class::Fixed(b)) => a == b || (a && !b),
        (Class::Var(a), Class::Var(b)) => a == b,
        _ => false,
    }
}

/// Classes in storage order, each with how many columns it covers.
/// COMPACT: between two variable-length fields, the NOT NULL fixed-width
/// columns are one run (their total) before the NULL-able fixed-width
/// ones: where a NULL-able fixed-width column sits among NOT NULL
/// fixed-width bytes no length or offset says (the type layer places it
/// by its values, and says how sure it is).
fn segments(
    items: impl Iterator<Item = (Option<u32>, bool)>,
    compact: bool,
) -> Vec<(Class, usize)> {
    let mut out: Vec<(Class, usize)> = Vec::new();
    // Where the current stretch (since the last variable-length field)
    // starts in `out`.
    let mut stretch = 0usize;
    for (fixed, nullable) in items {
        let c = match fixed {
            Some(w) if compact && !nullable => Class::Run(w),
            Some(_) => Class::Fixed(nullable),
            None => Class::Var(nullable),
        };
        match c {
            Class::Run(w) => match out.get_mut(stretch) {
                Some((Class::Run(t), n)) => {
                    *t += w;
                    *n += 1;
                }
                _ => out.insert(stretch, (c, 1)),
            },
            Class::Var(_) => {
                out.push((c, 1));
                stretch = out.len();
            }
            Class::Fixed(_) => out.push((c, 1)),
        }
    }
    out
}

/// The per-column storage class measure: for every real column,
/// whether the inference says its class (fixed width, variable,
/// NULL-able) for the bytes that hold it. The classes of the real and
/// the inferred columns are aligned (the longest common alignment, by
/// columns covered); a NOT NULL fixed-width run counts right when its
/// total is right, whatever split is printed.
fn class_right(inf: &Inference, real: &[Real]) -> Vec<bool> {
    let compact = inf.format == ibdscope_core::RecFormat::Compact;
    let want = segments(real.iter().map(|r| (r.fixed, r.nullable)), compact);
    let got = segments(
        inf.columns.iter().map(|c| {
            let fixed = match c.storage {
                Storage::Fixed(w) => Some(w),
                Storage::Variable { .. } => None,
            };
            (fixed, c.nullable)
        }),
        compact,
    );
    // best[i][j]: real columns matched in want[i..] against got[j..].
    let (n, m) = (want.len(), got.len());
    let mut best = vec![vec![0usize; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            let take = if class_says(want[i].0, got[j].0) {
                want[i].1 + best[i + 1][j + 1]
            } else {
                0
            };
            best[i][j] = take.max(best[i + 1][j]).max(best[i][j + 1]);
        }
    }
    let mut out = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < n {
        if j < m && class_says(want[i].0, got[j].0) && best[i][j] == want[i].1 + best[i + 1][j + 1]
        {
            out.extend(std::iter::repeat_n(true, want[i].1));
            i += 1;
            j += 1;
        } else if j < m && best[i][j] == best[i][j + 1] {
            j += 1;
        } else {
            out.extend(std::iter::repeat_n(false, want[i].1));
            i += 1;
        }
    }
    out
}

/// Per table: (columns, storage right, family right, misses named
/// ambiguous or low, integers of the right family whose signedness is
/// stated with confidence and wrong, lines of report).
fn compare(inf: &Inference, real: &[Real]) -> (usize, usize, usize, usize, usize, Vec<String>) {
    let mut lines = Vec::new();
    let (mut ok_storage, mut ok_family, mut named, mut sign_wrong) = (0, 0, 0, 0);
    let mut j = 0usize;
    for r in real {
        // The inferred columns that cover this real column's bytes.
        let start = j;
        let mut ok = false;
        match r.fixed {
            Some(w) if !r.nullable || inf.format == ibdscope_core::RecFormat::Redundant => {
                let mut sum = 0;
                while let Some(c) = inf.columns.get(j) {
                    match c.storage {
                        Storage::Fixed(cw) if c.nullable == r.nullable || !c.nullable => {
                            sum += cw;
                            j += 1;
                            if sum >= w {
                                break;
                            }
                        }
                        _ => break,
                    }
                }
                ok = sum == w;
            }
            Some(w) => {
                if let Some(c) = inf.columns.get(j) {
                    ok = c.storage == Storage::Fixed(w) && c.nullable;
                    j += 1;
                }
            }
            None => {
                if let Some(c) = inf.columns.get(j) {
                    ok = matches!(c.storage, Storage::Variable { .. }) && c.nullable == r.nullable;
                    j += 1;
                }
            }
        }
        let fam = ok && j == start + 1 && inf.columns[start].family == r.family;
        // The inferred columns over this column's bytes (none left: the
        // last one, which took them).
        let over = if start < inf.columns.len() {
            start..j.max(start + 1).min(inf.columns.len())
        } else {
            start.saturating_sub(1)..start
        };
        let soft = inf.columns[over]
            .iter()
            .any(|c| c.confidence <= ibdscope_schema::infer::Confidence::Low);
        ok_storage += usize::from(ok);
        ok_family += usize::from(fam);
        named += usize::from(!fam && soft);
        let sign = fam
            && !soft
            && r.unsigned
                .is_some_and(|u| u != inf.columns[start].sql_type.contains("unsigned"));
        sign_wrong += usize::from(sign);
        lines.push(
            format!(
                "  {:<10} real {:?}/{} {:?} -> {:?} {}{}",
                r.name,
                r.fixed,
                r.nullable,
                r.family,
                inf.columns[start..j.min(inf.columns.len())]
                    .iter()
                    .map(|c| format!(
                        "{}:{:?}:{}:{}{}",
                        c.sql_type,
                        c.storage,
                        c.nullable,
                        c.confidence.word(),
                        if c.alternatives.is_empty() {
                            String::new()
                        } else {
                            format!(" (or {})", c.alternatives.join(", or "))
                        }
                    ))
                    .collect::<Vec<_>>(),
                if ok { "" } else { " STORAGE-MISS" },
                if fam { "" } else { " FAMILY-MISS" },
            ) + if sign { " SIGN-MISS" } else { "" },
        );
    }
    (real.len(), ok_storage, ok_family, named, sign_wrong, lines)
}

/// A server's dump: its lines and the select expression of every
/// column (`HEX(col)` for binary columns, `col+0` for BIT).
struct Dump {
    lines: Vec<String>,
    select: Vec<String>,
}

fn gunzip(gz: &[u8]) -> Vec<u8> {
    let mut text = Vec::new();
    ibdscope_codec::inflate::inflate_raw(ibdscope_testkit::gzip_deflate(gz), &mut text, 1 << 30)
        .expect("inflate");
    text
}

fn dump_of(text: &[u8], select: &str) -> Dump {
    Dump {
        lines: String::from_utf8(text.to_vec())
            .expect("utf-8")
            .lines()
            .map(str::to_string)
            .collect(),
        select: select.split(',').map(str::to_string).collect(),
    }
}

/// The server's dump of `dir/table` (`rows/<dir>__<table>.tsv.gz`).
fn dump(dir: &str, table: &str) -> Option<Dump> {
    let path = format!("{dir}/{table}.ibd");
    let t = ibdscope_testkit::tsv(&ibdscope_testkit::fixtures().join("rows/tables.tsv"));
    let line = t.into_iter().find(|r| r["path"] == path)?;
    let gz = std::fs::read(ibdscope_testkit::fixtures().join(&line["dump"])).ok()?;
    Some(dump_of(&gunzip(&gz), &line["select"]))
}

/// The rows decoded with the inferred definition, as the server's dump
/// writes them (tab-separated, `\N` for NULL, backslash escapes; upper-case
/// hex where the dump's expression is `HEX(…)`).
fn rows_with(ibd: &[u8], inf: &Inference, table: &str, select: &[String]) -> Vec<String> {
    let sql = inf.create_table(table);
    let mut def = ibdscope_schema::ddl::parse_one(sql.as_bytes(), Some(table))
        .unwrap_or_else(|e| panic!("{table}: the statement inferred does not parse: {e}\n{sql}"))
        .to_table_def("fx");
    let ts = Tablespace::new(ibd).expect("tablespace");
    let engine = Engine::default();
    let map = ibdscope_core::SpaceMap::build(&ts, &engine);
    let trees: Vec<(u64, u32)> = (map.indexes.iter())
        .map(|i| (i.index_id.0, i.root.0))
        .collect();
    def.attach_roots(&trees);
    let summary = Summary::of(&ts, &engine);
    let decoding = ibdscope_schema::rows::Decoding::new(&ts, &mut def);
    let def = &def;
    let ix = def.clustered().expect("clustered index");
    let mut scan = RowScan::new(
        &ts,
        &engine,
        &summary,
        def,
        ix,
        &decoding,
        ScanOptions::default(),
    )
    .expect("scan");
    let mut out = Vec::new();
    for r in scan.by_ref() {
        let cells: Vec<String> = r
            .values
            .iter()
            .zip(&def.columns)
            .filter(|(_, c)| c.hidden == ibdscope_schema::table::Hidden::Visible)
            .enumerate()
            .map(|(k, (v, c))| {
                if matches!(v, Value::Null) {
                    return "\\N".to_string();
                }
                let mut s = String::new();
                match v {
                    Value::Bytes(b) if select.get(k).is_some_and(|e| e.starts_with("HEX(")) => {
                        s = b.iter().map(|x| format!("{x:02X}")).collect();
                    }
                    _ => {
                        v.render(c, &mut s);
                    }
                }
                s.replace('\\', "\\\\")
                    .replace('\t', "\\t")
                    .replace('\n', "\\n")
                    .replace('\0', "\\0")
            })
            .collect();
        out.push(cells.join("\t"));
    }
    out
}

/// Whether the statement inferred declares every fixed-width column at
/// the width the records gave it (a type of MariaDB's older formats is
/// printed by today's name, of another width): only then do its rows
/// read every column at its place.
fn widths_agree(sql: &[u8], table: &str, inf: &Inference) -> bool {
    let Ok(def) = ibdscope_schema::ddl::parse_one(sql, Some(table)) else {
        return false;
    };
    let def = def.to_table_def("fx");
    let compact = inf.format == ibdscope_core::RecFormat::Compact;
    let Some(layout) = def.clustered().and_then(|ix| def.layout(ix, compact).ok()) else {
        return false;
    };
    let fixed: Vec<Option<u32>> = (layout.fields.iter())
        .filter(|f| def.columns[f.column].sys().is_none())
        .map(|f| f.fixed_len)
        .collect();
    fixed.len() == inf.columns.len()
        && fixed
            .iter()
            .zip(&inf.columns)
            .all(|(f, c)| match c.storage {
                Storage::Fixed(w) => *f == Some(w),
                Storage::Variable { .. } => f.is_none(),
            })
}

/// Tables whose records no hypothesis of the search reads, and why (the
/// output says so: no definition is printed as certain).
const NOT_INFERRED: &[(&str, &str)] = &[
    // No user record.
    ("empty", "no records"),
    // MariaDB instant ALTER: records of several layouts in one index.
    ("instant", "instant"),
    ("instant_add", "instant"),
    ("instant_redundant", "instant"),
    // 60+ NULL-able columns: the search gives up within its bound.
    ("types", "gave up"),
];

/// Totals of a truth run: columns, storage right, family right, misses
/// named; tables whose rows were compared; failures; report lines.
#[derive(Default)]
struct Tally {
    columns: usize,
    storage: usize,
    /// Columns whose storage class (fixed width, variable, NULL-able)
    /// the inference says for the bytes that hold them.
    class: usize,
    family: usize,
    named: usize,
    rows_checked: usize,
    /// Tables short of complete whose columns stated with confidence were
    /// compared with the dump.
    rows_sure_checked: usize,
    /// Columns whose storage or family is wrong and that are not named
    /// `low` or `ambiguous`: stated with confidence, and wrong.
    confident_wrong: usize,
    failures: Vec<String>,
    report: Vec<String>,
}

impl Tally {
    /// Infers `ibd` and compares it with the real definition `def`, and
    /// its rows with `want` (the server's dump) when complete.
    fn check(
        &mut self,
        label: &str,
        table: &str,
        ibd: &[u8],
        def: &TableDef,
        want: Option<Dump>,
        not_inferred: &[(&str, &str)],
    ) {
        let ts = Tablespace::new(ibd).expect("tablespace");
        let inf = infer(&ts);
        let compact = inf.format == ibdscope_core::RecFormat::Compact;
        let real = real(def, compact);
        let outcome = inf.indexes.first().map(|i| &i.outcome);
        self.report.push(format!(
            "{label}: {:?} {outcome:?} notes {:?}",
            inf.format, inf.notes
        ));
        if inf.columns.is_empty() {
            // Page-compressed pages are read through the front door
            // (the CLI test); here they are not index pages.
            if table == "pagecomp" {
                return;
            }
            let why = not_inferred.iter().find(|(t, _)| *t == table);
            let said = matches!(
                (why.map(|w| w.1), outcome),
                (Some("no records"), None)
                    | (Some("gave up"), Some(Outcome::GaveUp { .. }))
                    | (Some("instant" | "no fit"), Some(Outcome::NoFit(_)))
            );
            if !said {
                self.failures
                    .push(format!("{label}: nothing inferred: {outcome:?}"));
            }
            assert!(!inf.complete);
            return;
        }
        let (n, s, f, a, sign, mut lines) = compare(&inf, &real);
        let class = class_right(&inf, &real);
        for (l, ok) in lines.iter_mut().zip(&class) {
            if !ok {
                l.push_str(" CLASS-MISS");
            }
        }
        self.class += class.iter().filter(|&&c| c).count();
        self.report.extend(lines);
        self.confident_wrong += sign;
        if sign > 0 {
            self.failures.push(format!(
                "{label}: {sign} integers stated signed or UNSIGNED with confidence, wrongly"
            ));
        }
        self.columns += n;
        self.storage += s;
        self.family += f;
        self.named += a;
        // Every miss is named as ambiguous or of low confidence.
        self.confident_wrong += n - f - a.min(n - f);
        if n - f > a {
            self.failures.push(format!(
                "{label}: {} columns wrong with confidence",
                n - f - a
            ));
        }
        // Complete: every row equals the dump. Short of complete, when the
        // layout is the only one that fits and there is one inferred
        // column per real one: every column stated with confidence
        // (`high` or `exact`) equals the dump's in every row.
        let unique = matches!(
            outcome,
            Some(Outcome::Fits {
                ambiguous: false,
                ..
            })
        ) && inf.notes.is_empty();
        let sure: Vec<bool> = (inf.columns.iter())
            .map(|c| c.confidence >= Confidence::High)
            .collect();
        let partial = !inf.complete
            && unique
            && inf.columns.len() == real.len()
            && widths_agree(inf.create_table(table).as_bytes(), table, &inf);
        if let (true, Some(want)) = (inf.complete || partial, want) {
            let pick = |line: &str| -> String {
                if inf.complete {
                    return line.to_string();
                }
                (line.split('\t').zip(&sure))
                    .map(|(v, &k)| if k { v } else { "?" })
                    .collect::<Vec<_>>()
                    .join("\t")
            };
            let got: Vec<String> = rows_with(ibd, &inf, table, &want.select)
                .iter()
                .map(|l| pick(l))
                .collect();
            let want: Vec<String> = want.lines.iter().map(|l| pick(l)).collect();
            if inf.complete {
                self.rows_checked += 1;
            } else {
                self.rows_sure_checked += 1;
            }
            if got != want {
                let at = got.iter().zip(&want).position(|(a, b)| a != b);
                self.failures.push(format!(
                    "{label}: rows differ from the dump{} ({} against {}; first at {at:?}: \
                     {:?} against {:?})",
                    if inf.complete {
                        ""
                    } else {
                        " in the columns stated with confidence"
                    },
                    got.len(),
                    want.len(),
                    at.and_then(|i| got.get(i)),
                    at.and_then(|i| want.get(i))
                ));
            }
        }
    }

    fn add(&mut self, o: &Tally) {
        self.columns += o.columns;
        self.storage += o.storage;
        self.class += o.class;
        self.family += o.family;
        self.named += o.named;
        self.rows_checked += o.rows_checked;
        self.rows_sure_checked += o.rows_sure_checked;
        self.confident_wrong += o.confident_wrong;
        self.failures.extend(o.failures.iter().cloned());
        self.report.extend(o.report.iter().cloned());
    }

    /// Prints the report and the totals, and holds them to the bar:
    /// storage class right for every column (misses named), type family
    /// for at least 95%, rows equal to the dump wherever complete.
    fn finish(self, min_rows_checked: usize) {
        for l in &self.report {
            println!("{l}");
        }
        let t = (self.columns, self.storage, self.family, self.named);
        println!(
            "columns {} storage {} (class {}) family {} misses named {} tables whose rows were \
             compared {} (complete), {} (the columns stated with confidence)",
            t.0, t.1, self.class, t.2, t.3, self.rows_checked, self.rows_sure_checked
        );
        // The storage class of every column inferred (the low-confidence
        // one-record tables aside, whose misses are named) …
        assert!(t.1 + t.3 >= t.0, "storage: {t:?}");
        // … and the family of at least 95%.
        assert!(t.2 * 100 >= t.0 * 95, "family: {t:?}");
        assert!(
            self.rows_checked + self.rows_sure_checked >= min_rows_checked,
            "rows compared for {} + {} tables",
            self.rows_checked,
            self.rows_sure_checked
        );
        assert!(self.failures.is_empty(), "{}", self.failures.join("\n"));
    }
}

/// The MySQL 8.0, 8.4 and 9.x `.ibd` files the corpus's manifest lists
/// (read in place): each path as listed and its bytes, those that read.
fn mysql8_ibds(corpus: &std::path::Path) -> Vec<(String, Vec<u8>)> {
    (ibdscope_testkit::tsv(&corpus.join("manifest.tsv")).iter())
        .map(|m| m["path"].clone())
        .filter(|path| {
            ["mysql-8.0/", "mysql-8.4/", "mysql-9.x/"]
                .iter()
                .any(|d| path.starts_with(d))
                && path.ends_with(".ibd")
        })
        .filter_map(|path| Some((path.clone(), std::fs::read(corpus.join(&path)).ok()?)))
        .collect()
}

/// Fixture directory `dir` and its `.ibd` files, in name order.
fn fixture_tables(dir: &str) -> (std::path::PathBuf, Vec<std::path::PathBuf>) {
    let d = ibdscope_testkit::fixtures().join(dir);
    let mut names: Vec<_> = std::fs::read_dir(&d)
        .expect("dir")
        .filter_map(|e| {
            let p = e.ok()?.path();
            (p.extension()? == "ibd").then_some(p)
        })
        .collect();
    names.sort();
    (d, names)
}

#[test]
fn fixtures_against_frm() {
    let mut tally = Tally::default();
    for dir in DIRS {
        let (d, names) = fixture_tables(dir);
        for ibd_path in names {
            let table = ibd_path.file_stem().unwrap().to_string_lossy().into_owned();
            let ibd = std::fs::read(&ibd_path).expect("ibd");
            let frm = std::fs::read(d.join(format!("{table}.frm"))).expect("frm");
            let def = ibdscope_schema::frm::Frm::parse(&frm)
                .expect("frm")
                .to_table_def(&table, "fx");
            let want = dump(dir, &table);
            tally.check(
                &format!("{dir}/{table}"),
                &table,
                &ibd,
                &def,
                want,
                NOT_INFERRED,
            );
        }
    }
    tally.finish(20);
    let _ = Confidence::Exact;
}

/// Type-family tables that do not meet the bar yet (some column's
/// storage class wrong and not named as doubtful, the family wrong for
/// more than 5% of the columns, a type stated with confidence that the
/// `.frm` contradicts, or rows that differ from the dump), and why. The test fails when one of them meets it (take it off
/// the list) or another table does not.
const TYPES_SHORT: &[(&str, &str)] = &[
    // Full-range random integers in one NOT NULL run: any split fits;
    // the misses are named, but the storage of most columns is wrong.
    ("int_nn", "a NOT NULL fixed-width run of weak integers"),
    // Which variable field a NULL bit belongs to is not in the records:
    // named ambiguous, but the values choose another order.
    (
        "varchar_latin1",
        "NULL-able and NOT NULL variable fields in another order",
    ),
    (
        "varchar_utf8mb4",
        "NULL-able and NOT NULL variable fields in another order",
    ),
    ("binary", "random BINARY bytes in a NOT NULL run"),
    (
        "blob",
        "NULL-able and NOT NULL variable fields in another order",
    ),
    // ENUM/SET are read as integers of their width (ENUM, SET and BIT
    // named beside them); the NOT NULL bytes are placed among the
    // NULL-able fields otherwise.
    ("enum_set", "ENUM/SET in a NOT NULL run"),
];

/// The generated type-family tables (`fixtures/infer/`, the infer step of
/// `fixtures/generate`): one table per family, NULL and NOT NULL, several
/// widths, latin1 and utf8mb4, on MySQL 5.6.24 and MariaDB 10.11; each
/// read with its `.frm` set aside, compared with the `.frm` and with the
/// server's dump.
#[test]
fn type_tables_against_frm() {
    let root = ibdscope_testkit::fixtures();
    let manifest = ibdscope_testkit::tsv(&root.join("infer/manifest.tsv"));
    assert!(manifest.len() >= 28, "{} tables", manifest.len());
    let mut archives: std::collections::BTreeMap<String, Vec<u8>> = Default::default();
    let mut all = Tally::default();
    let mut met = Tally::default();
    let mut verdicts: std::collections::BTreeMap<String, Vec<bool>> = Default::default();
    let mut confident_misses = std::collections::BTreeSet::new();
    for m in &manifest {
        let tar = archives
            .entry(m["archive"].clone())
            .or_insert_with(|| gunzip(&std::fs::read(root.join(&m["archive"])).expect("archive")));
        let members = ibdscope_testkit::tar_members(tar);
        let member = |name: &str| {
            members
                .iter()
                .find(|(p, _)| p == name)
                .unwrap_or_else(|| panic!("{}: no {name}", m["archive"]))
                .1
        };
        let table = &m["table"];
        let def = ibdscope_schema::frm::Frm::parse(member(&m["frm"]))
            .expect("frm")
            .to_table_def(table, "fx");
        let want = dump_of(member(&m["dump"]), &m["select"]);
        assert_eq!(want.lines.len().to_string(), m["rows"], "{table}: dump");
        let ibd = member(&m["ibd"]).to_vec();
        let mut one = Tally::default();
        let label = format!("infer/{}/{table} ({})", m["server"], m["family"]);
        one.check(&label, table, &ibd, &def, Some(want), &[]);
        let ok = one.storage + one.named >= one.columns
            && one.family * 100 >= one.columns * 95
            && one.failures.is_empty();
        verdicts.entry(table.clone()).or_default().push(ok);
        if !one.failures.is_empty() {
            confident_misses.insert(table.clone());
        }
        if ok {
            met.add(&one);
        }
        all.add(&one);
    }
    println!(
        "all type tables: columns {} storage {} (class {}) family {} misses named {} rows \
         compared {} (columns wrong with confidence: {}; tables failing: {})",
        all.columns,
        all.storage,
        all.class,
        all.family,
        all.named,
        all.rows_checked,
        all.confident_wrong,
        all.failures.len()
    );
    let mut wrong = Vec::new();
    for (table, v) in &verdicts {
        let short = TYPES_SHORT.iter().any(|(t, _)| t == table);
        if short && v.iter().all(|&ok| ok) {
            wrong.push(format!(
                "{table} meets the bar now: take it off TYPES_SHORT"
            ));
        }
        if !short && !v.iter().all(|&ok| ok) {
            let why: Vec<&String> = (all.failures.iter())
                .filter(|f| f.contains(&format!("/{table} (")))
                .collect();
            wrong.push(format!("{table} does not meet the bar: {why:?}"));
        }
    }
    for l in &all.report {
        println!("{l}");
    }
    // Whatever the bar: no column is stated with confidence where the
    // `.frm` says otherwise (two types, or two layouts, that fit the
    // records alike are both named, `ambiguous`).
    assert_eq!(
        all.confident_wrong, 0,
        "columns stated with confidence that the .frm contradicts"
    );
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    println!("tables with a column wrong with confidence: {confident_misses:?}");
    // The tables that meet it: storage right or named for every column,
    // the family for at least 95%, rows equal to the dump where complete.
    met.finish(0);
}

/// A NOT NULL fixed-width run whose values place no boundary (`int_nn`:
/// full-range random integers of 1, 1, 2, 2, 3, 3, 4, 4, 8 and 8 bytes
/// after the key, 36 bytes, as the `.frm` says) is printed as what the
/// bytes say, one `BINARY(36)` of one or more columns, `ambiguous`, the
/// split its values scored best named beside it; the statement loads
/// back as `--ddl`.
#[test]
fn unsplit_run_is_one_column() {
    let root = ibdscope_testkit::fixtures();
    let manifest = ibdscope_testkit::tsv(&root.join("infer/manifest.tsv"));
    let mut seen = 0;
    for m in manifest.iter().filter(|m| m["table"] == "int_nn") {
        let tar = gunzip(&std::fs::read(root.join(&m["archive"])).expect("archive"));
        let members = ibdscope_testkit::tar_members(&tar);
        let ibd = &members.iter().find(|(p, _)| *p == m["ibd"]).expect("ibd").1;
        let frm = &members.iter().find(|(p, _)| *p == m["frm"]).expect("frm").1;
        let def = ibdscope_schema::frm::Frm::parse(frm)
            .expect("frm")
            .to_table_def("int_nn", "fx");
        let run: u32 = real(&def, true)
            .iter()
            .skip(1)
            .filter_map(|r| r.fixed)
            .sum();
        assert_eq!(run, 36, "{}: the .frm's run after the key", m["server"]);
        let inf = infer(&Tablespace::new(ibd).expect("tablespace"));
        let cols: Vec<String> = (inf.columns.iter())
            .map(|c| format!("{} {:?} {}", c.sql_type, c.storage, c.confidence.word()))
            .collect();
        assert_eq!(
            cols,
            ["int Fixed(4) high", "binary(36) Fixed(36) ambiguous"],
            "{}",
            m["server"]
        );
        let c = &inf.columns[1];
        assert!(
            c.evidence
                .contains("a run of 36 fixed bytes, NOT NULL, one or more columns"),
            "{}",
            c.evidence
        );
        assert!(
            c.alternatives.iter().any(|a| a.contains(" then ")),
            "{:?}",
            c.alternatives
        );
        let sql = inf.create_table("int_nn");
        ibdscope_schema::ddl::parse_one(sql.as_bytes(), Some("int_nn"))
            .unwrap_or_else(|e| panic!("{e}\n{sql}"));
        seen += 1;
    }
    assert_eq!(seen, 2, "int_nn of MySQL 5.6 and MariaDB 10.11");
}

/// The MySQL 8.0, 8.4 and 9.x files of the corpus (`../shared/corpus`,
/// read in place): each inferred with its SDI set aside (the inference
/// reads INDEX pages only; SDI pages are FIL_PAGE_SDI), the inferred
/// columns compared with the SDI's definition, which the server wrote.
#[test]
fn mysql8_corpus_against_sdi() {
    let Some(corpus) = ibdscope_testkit::corpus() else {
        return;
    };
    let mut tally = Tally::default();
    let mut read = 0;
    for (path, ibd) in mysql8_ibds(&corpus) {
        let path = &path;
        let Ok(ts) = Tablespace::new(&ibd) else {
            continue;
        };
        let Ok(def) = TableDef::from_tablespace(&ts) else {
            tally.report.push(format!("{path}: no SDI definition"));
            continue;
        };
        read += 1;
        let table = def.name.clone();
        tally.check(path, &table, &ibd, &def, None, &[]);
    }
    for l in &tally.report {
        println!("{l}");
    }
    println!(
        "MySQL 8 corpus: {read} files; columns {} storage {} (class {}) family {} misses named \
         {}; wrong with confidence: {:?}",
        tally.columns, tally.storage, tally.class, tally.family, tally.named, tally.failures
    );
    assert!(read >= 5, "{read} MySQL 8 corpus files read");
    // Whatever the bar: a layout that fits every record is not stated as
    // certain while another that fits too (a wider NULL bitmap, whose
    // byte the narrower reads as a NOT NULL field's length) reads its
    // fields otherwise.
    assert_eq!(
        tally.confident_wrong, 0,
        "columns stated with confidence that the SDI contradicts: {:?}",
        tally.failures
    );
    // Far from the bar (docs/infer.md, "Truth"): held at what it reads now,
    // so that a change that reads less shows.
    assert!(
        tally.storage + tally.named >= 38,
        "storage right or named: {} + {}",
        tally.storage,
        tally.named
    );
}

/// The generated `bit`, `enum_set` and `char_utf8mb4` tables of both
/// servers: BIT(n), ENUM and SET are named beside the UNSIGNED integers
/// they read alike (never stated with confidence: the bytes do not tell
/// them apart), BIT at the width the `.frm` gives; CHAR(n) in utf8mb4 is
/// told from VARCHAR by its floor of n bytes and its space padding.
#[test]
fn enum_set_bit_and_multibyte_char_from_records() {
    let root = ibdscope_testkit::fixtures();
    let manifest = ibdscope_testkit::tsv(&root.join("infer/manifest.tsv"));
    let mut seen = 0;
    for m in &manifest {
        let table = m["table"].as_str();
        if !["bit", "enum_set", "char_utf8mb4"].contains(&table) {
            continue;
        }
        let tar = gunzip(&std::fs::read(root.join(&m["archive"])).expect("archive"));
        let members = ibdscope_testkit::tar_members(&tar);
        let ibd = &members.iter().find(|(p, _)| *p == m["ibd"]).expect("ibd").1;
        let ts = Tablespace::new(ibd).expect("tablespace");
        let inf = infer(&ts);
        let label = format!("{}/{table}", m["server"]);
        let named = |what: &str| {
            inf.columns
                .iter()
                .any(|c| c.alternatives.iter().any(|a| a == what))
        };
        match table {
            "bit" => {
                // BIT(1), (8), (9), (17), (32), (64) (`bit.sql`).
                for n in [1, 8, 9, 17, 32, 64] {
                    assert!(named(&format!("bit({n})")), "{label}: bit({n}) not named");
                }
                for c in &inf.columns[1..] {
                    assert_eq!(c.confidence, Confidence::Ambiguous, "{label}: {c:?}");
                }
            }
            "enum_set" => {
                // e5: ENUM of 5 labels; s12: SET of 12 members (9 set).
                assert!(named("enum of 5 labels or more"), "{label}");
                assert!(
                    inf.columns
                        .iter()
                        .any(|c| c.alternatives.iter().any(|a| a.starts_with("set of"))),
                    "{label}"
                );
            }
            _ => {
                let types: Vec<&str> = inf.columns.iter().map(|c| c.sql_type.as_str()).collect();
                for t in [
                    "char(1) character set utf8mb4",
                    "char(10) character set utf8mb4",
                    "char(40) character set utf8mb4",
                ] {
                    assert!(types.contains(&t), "{label}: {types:?}");
                }
            }
        }
        seen += 1;
    }
    assert_eq!(seen, 6, "tables read");
}

/// MariaDB's temporal formats before MySQL 5.6.4's (`mariadb1011/
/// temporal_old`) are printed as MariaDB 10.5.1+ prints them, `/*
/// mariadb-5.3 */`, so the statement inferred declares every column at
/// the width the records gave it and its rows read every column in place.
#[test]
fn old_temporal_formats_read_back_at_their_width() {
    let d = ibdscope_testkit::fixtures().join("mariadb1011");
    let ibd = std::fs::read(d.join("temporal_old.ibd")).expect("ibd");
    let ts = Tablespace::new(&ibd).expect("tablespace");
    let inf = infer(&ts);
    let sql = inf.create_table("temporal_old");
    assert!(sql.contains("datetime /* mariadb-5.3 */"), "{sql}");
    assert!(widths_agree(sql.as_bytes(), "temporal_old", &inf), "{sql}");
}

/// Secondary indexes tied to the clustered columns, counted: tables
/// compared, keys stated, right and `high`, named doubtful; failures.
#[derive(Default)]
struct KeyTally {
    tables: usize,
    keys: usize,
    right_high: usize,
    named: usize,
    failures: Vec<String>,
}

impl KeyTally {
    /// Infers `ibd` and compares each `KEY` line of its statement with
    /// the real definition's secondary index of the same rank, by storage
    /// position, when the inferred columns are the real ones one for one.
    fn check(&mut self, label: &str, table: &str, ibd: &[u8], def: &TableDef) {
        use ibdscope_schema::table::IndexKind;
        let secondary: Vec<_> = (def.indexes.iter())
            .filter(|i| matches!(i.kind, IndexKind::Unique | IndexKind::Multiple))
            .collect();
        if secondary.is_empty() {
            return;
        }
        let ts = Tablespace::new(ibd).expect("tablespace");
        let inf = infer(&ts);
        let compact = inf.format == ibdscope_core::RecFormat::Compact;
        let real = real(def, compact);
        let (n, s, ..) = compare(&inf, &real);
        if inf.columns.len() != real.len() || s != n {
            println!("{label}: columns not one for one; keys not compared");
            return;
        }
        self.tables += 1;
        let sql = inf.create_table(table);
        let got = ibdscope_schema::ddl::parse_one(sql.as_bytes(), Some(table))
            .unwrap_or_else(|e| panic!("{table}: {e}\n{sql}"))
            .to_table_def("fx");
        let got_keys: Vec<_> = (got.indexes.iter())
            .filter(|i| matches!(i.kind, IndexKind::Unique | IndexKind::Multiple))
            .collect();
        // Real key columns by storage position.
        let pos = |name: &str| real.iter().position(|r| r.name == name);
        for (k, ix) in secondary.iter().enumerate() {
            let want: Vec<Option<usize>> = (ix.elements.iter())
                .filter(|e| !e.hidden)
                .map(|e| pos(&def.columns[e.column].name))
                .collect();
            let kname = format!("k{}", k + 1);
            let Some(g) = got_keys.iter().find(|g| g.name == kname) else {
                println!(
                    "{label}: {} not tied: {:?}",
                    ix.name,
                    inf.indexes.get(k + 1).map(|i| (&i.outcome, &i.fields))
                );
                continue;
            };
            self.keys += 1;
            let have: Vec<Option<usize>> = (g.elements.iter())
                .filter(|e| !e.hidden)
                .map(|e| {
                    let c = &got.columns[e.column].name;
                    c.strip_prefix('c')
                        .and_then(|x| x.parse::<usize>().ok())
                        .map(|x| x - 1)
                })
                .collect();
            let line = sql
                .lines()
                .find(|l| l.contains(&format!("KEY `{kname}`")))
                .unwrap_or("");
            let high = line.contains("COMMENT 'high");
            println!("{label}: {} {want:?} -> {kname} {have:?}: {line}", ix.name);
            if have == want && high {
                self.right_high += 1;
            } else if !high {
                self.named += 1;
            } else {
                self.failures.push(format!(
                    "{label}: {} is {want:?}, stated high as {have:?}",
                    ix.name
                ));
            }
        }
    }
}

/// Secondary indexes tied to the clustered columns: every fixture table
/// whose `.frm` has secondary indexes and whose inferred columns are the
/// `.frm`'s one for one (storage right) gets a `KEY` line per secondary
/// index whose columns are the `.frm`'s key's (by storage position); a
/// key stated `high` and wrong is a failure, and at least the `secondary`
/// and `dml` tables' keys are stated. The MySQL 8 corpus files (read in
/// place, against their SDI) are held to the same: no key stated `high`
/// and wrong.
#[test]
fn secondary_keys_against_frm() {
    let mut t = KeyTally::default();
    for dir in DIRS {
        let (d, names) = fixture_tables(dir);
        for ibd_path in names {
            let table = ibd_path.file_stem().unwrap().to_string_lossy().into_owned();
            let frm = std::fs::read(d.join(format!("{table}.frm"))).expect("frm");
            let def = ibdscope_schema::frm::Frm::parse(&frm)
                .expect("frm")
                .to_table_def(&table, "fx");
            let ibd = std::fs::read(&ibd_path).expect("ibd");
            t.check(&format!("{dir}/{table}"), &table, &ibd, &def);
        }
    }
    println!(
        "secondary keys: {} tables, {} keys stated, {} right and high, {} named doubtful",
        t.tables, t.keys, t.right_high, t.named
    );
    assert!(t.failures.is_empty(), "{}", t.failures.join("\n"));
    // `secondary` (two keys) in mysql56, mariadb1011, -4k, -64k, and
    // `dml` (one) in mysql56 and mariadb1011.
    assert!(
        t.right_high >= 10,
        "{} keys tied right with confidence",
        t.right_high
    );
    let Some(corpus) = ibdscope_testkit::corpus() else {
        return;
    };
    let mut c = KeyTally::default();
    for (path, ibd) in mysql8_ibds(&corpus) {
        let path = &path;
        let Ok(ts) = Tablespace::new(&ibd) else {
            continue;
        };
        let Ok(def) = TableDef::from_tablespace(&ts) else {
            continue;
        };
        let table = def.name.clone();
        c.check(path, &table, &ibd, &def);
    }
    println!(
        "secondary keys, MySQL 8 corpus: {} tables, {} keys stated, {} right and high, {} named \
         doubtful",
        c.tables, c.keys, c.right_high, c.named
    );
    assert!(c.failures.is_empty(), "{}", c.failures.join("\n"));
}
