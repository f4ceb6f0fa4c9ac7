//! The deleted rows the clustered index still holds (delete-marked, on free
//! lists, on leaf pages it let go of) with page, offset and origin, as
//! `ibdscope rows --deleted --format tsv` prints them (less its completeness
//! column): `cargo run -p ibdscope --example deleted_rows -- t.ibd`.
use std::io::Write;
type Res = Result<(), Box<dyn std::error::Error>>;

/// Writes `page offset origin values…` per deleted row.
pub fn run(args: &[String], out: &mut dyn Write) -> Res {
    let file = ibdscope::File::open(args.first().ok_or("FILE")?)?;
    let space = file.space()?;
    let t = space.table()?.def();
    let mut asked = ibdscope::ScanOptions::default();
    asked.deleted = ibdscope::Deleted::Only;
    let mut rows = space.rows(None, asked)?;
    let cols = ibdscope::shown_columns(t, rows.layout(), false);
    for row in rows.by_ref() {
        let cell = |&c: &usize| Some(ibdscope::tsv(row.values.get(c)?, t.columns.get(c)?));
        let values: Vec<String> = cols.iter().filter_map(cell).collect();
        let copy = if row.live_copy {
            " (copy of a live row)"
        } else {
            ""
        };
        let (page, at, origin) = (row.page, row.offset, row.origin.word());
        writeln!(out, "{page}\t{at}\t{origin}{copy}\t{}", values.join("\t"))?;
    }
    Ok(())
}

fn main() -> Res {
    let args: Vec<String> = std::env::args().skip(1).collect();
    run(&args, &mut std::io::stdout())
}
