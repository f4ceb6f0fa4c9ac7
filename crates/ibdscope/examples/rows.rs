//! Prints the clustered index's rows in key order as `ibdscope rows --format
//! tsv` does, and on stderr each row read from a page that does not verify:
//! `cargo run -p ibdscope --example rows -- t.ibd [KEY_FILE]`.
use std::io::Write;
type Res = Result<(), Box<dyn std::error::Error>>;

/// Writes one line per row to `out`, the rows of damaged pages to `err`.
pub fn run(args: &[String], out: &mut dyn Write, err: &mut dyn Write) -> Res {
    let mut how = ibdscope::OpenOptions::new();
    if let Some(k) = args.get(1) {
        how = how.key_file(ibdscope::KeyFile::parse(&std::fs::read(k)?, b"")?);
    }
    let file = ibdscope::File::open_with(args.first().ok_or("FILE [KEY_FILE]")?, &how)?;
    let space = file.space()?;
    let t = space.table()?.def();
    let mut rows = space.rows(None, ibdscope::ScanOptions::default())?;
    let cols = ibdscope::shown_columns(t, rows.layout(), false);
    for row in rows.by_ref() {
        let cell = |&c: &usize| Some(ibdscope::tsv(row.values.get(c)?, t.columns.get(c)?));
        let line: Vec<String> = cols.iter().filter_map(cell).collect();
        writeln!(out, "{}", line.join("\t"))?;
        if !row.verified {
            let (page, at) = (row.page, row.file_offset());
            writeln!(err, "page {page} at byte {at}: {}", row.verdict)?;
        }
    }
    Ok(())
}

fn main() -> Res {
    let args: Vec<String> = std::env::args().skip(1).collect();
    run(&args, &mut std::io::stdout(), &mut std::io::stderr())
}
