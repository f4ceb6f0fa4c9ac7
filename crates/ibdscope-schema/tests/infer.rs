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
    clippy::panic
)]

use ibdscope_core::Tablespace;
use ibdscope_schema::infer::{infer, Family, Inference, Storage};
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

/// Per table: (columns, storage right, family right, misses named
/// ambiguous or low, lines of report).
fn compare(inf: &Inference, real: &[Real]) -> (usize, usize, usize, usize, Vec<String>) {
    let mut lines = Vec::new();
    let (mut ok_storage, mut ok_family, mut named) = (0, 0, 0);
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
        let soft = inf.columns[start..j.max(start + 1).min(inf.columns.len())]
            .iter()
            .any(|c| c.confidence <= ibdscope_schema::infer::Confidence::Low);
        ok_storage += usize::from(ok);
        ok_family += usize::from(fam);
        named += usize::from(!fam && soft);
        lines.push(format!(
            "  {:<10} real {:?}/{} {:?} -> {:?} {}{}",
            r.name,
            r.fixed,
            r.nullable,
            r.family,
            inf.columns[start..j.min(inf.columns.len())]
                .iter()
                .map(|c| format!(
                    "{}:{:?}:{}:{}",
                    c.sql_type,
                    c.storage,
                    c.nullable,
                    c.confidence.word()
                ))
                .collect::<Vec<_>>(),
            if ok { "" } else { " STORAGE-MISS" },
            if fam { "" } else { " FAMILY-MISS" },
        ));
    }
    (real.len(), ok_storage, ok_family, named, lines)
}

#[test]
fn fixtures_against_frm() {
    let mut total = (0, 0, 0, 0);
    let mut report = Vec::new();
    for dir in DIRS {
        let d = ibdscope_testkit::fixtures().join(dir);
        let mut names: Vec<_> = std::fs::read_dir(&d)
            .expect("dir")
            .filter_map(|e| {
                let p = e.ok()?.path();
                (p.extension()? == "ibd").then_some(p)
            })
            .collect();
        names.sort();
        for ibd_path in names {
            let table = ibd_path.file_stem().unwrap().to_string_lossy().into_owned();
            let ibd = std::fs::read(&ibd_path).expect("ibd");
            let frm = std::fs::read(d.join(format!("{table}.frm"))).expect("frm");
            let def = ibdscope_schema::frm::Frm::parse(&frm)
                .expect("frm")
                .to_table_def(&table, "fx");
            let ts = Tablespace::new(&ibd).expect("tablespace");
            let t0 = std::time::Instant::now();
            let inf = infer(&ts);
            let el = t0.elapsed();
            let compact = inf.format == ibdscope_core::RecFormat::Compact;
            let real = real(&def, compact);
            report.push(format!(
                "{dir}/{table}: {:?} {:?} notes {:?} ({el:?})",
                inf.format,
                inf.indexes.first().map(|i| &i.outcome),
                inf.notes
            ));
            if inf.columns.is_empty() {
                report.push(format!("  nothing inferred ({} columns)", real.len()));
                total.0 += real.len();
                continue;
            }
            let (n, s, f, a, lines) = compare(&inf, &real);
            report.extend(lines);
            total = (total.0 + n, total.1 + s, total.2 + f, total.3 + a);
        }
    }
    for l in &report {
        println!("{l}");
    }
    println!(
        "columns {} storage {} family {} misses named {}",
        total.0, total.1, total.2, total.3
    );
}
