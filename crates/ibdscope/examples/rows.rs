//! Prints an index's rows in key order, tab-separated as `SELECT … INTO
//! OUTFILE` writes text (NULL as `\N`; `\`, tab, newline escaped; binary
//! as hex, as `ibdscope rows --format tsv`), and
//! names on stderr each row read from a page that does not verify:
//! `cargo run -p ibdscope --example rows -- t.ibd [KEY_FILE]` (the
//! clustered index; a MariaDB key file opens an encrypted space).
use ibdscope::{FieldText, Rendered, ScanOptions};
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
    let mut rows = space.rows(None, ScanOptions::default())?;
    let t = space.table()?.def();
    let cols = ibdscope::shown_columns(t, rows.layout(), false);
    for row in rows.by_ref() {
        let mut line = Vec::new();
        for (&c, col) in cols.iter().filter_map(|c| Some((c, t.columns.get(*c)?))) {
            let mut s = String::new();
            match row.values.get(c).and_then(|v| v.render(col, &mut s)) {
                Some(FieldText::Null) => s = "\\N".into(),
                Some(FieldText::Value(Rendered::Bytes)) => {
                    s = s.trim_start_matches("0x").to_ascii_uppercase()
                }
                _ => {
                    s = s
                        .replace('\\', "\\\\")
                        .replace('\t', "\\\t")
                        .replace('\n', "\\\n")
                }
            }
            line.push(s);
        }
        writeln!(out, "{}", line.join("\t"))?;
        if !row.verified {
            writeln!(
                err,
                "page {} byte offset {}: {}",
                row.page,
                row.file_offset(),
                row.verdict
            )?;
        }
    }
    Ok(())
}

fn main() -> Res {
    let args: Vec<String> = std::env::args().skip(1).collect();
    run(&args, &mut std::io::stdout(), &mut std::io::stderr())
}
