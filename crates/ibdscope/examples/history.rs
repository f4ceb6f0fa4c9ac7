//! Prints every row's versions, oldest first, from the undo logs of the
//! datadir beside the file (MySQL ≤ 5.7, MariaDB): one line per version,
//! `key,version,trx_id,deleted,undo_page,undo_offset` (the undo record it
//! was rebuilt from; none for the current record), then how each chain
//! ends: `cargo run -p ibdscope --example history -- datadir/db/t.ibd`.
use std::io::Write;
type Res = Result<(), Box<dyn std::error::Error>>;

/// Writes the versions to `out`, each row's chain end to `err`.
pub fn run(args: &[String], out: &mut dyn Write, err: &mut dyn Write) -> Res {
    let file = ibdscope::File::open(args.first().ok_or("FILE")?)?;
    let history = file.space()?.history(None)?;
    for row in &history.rows {
        for (k, v) in row.versions.iter().enumerate() {
            let (page, offset) = v.from.map_or((String::new(), String::new()), |p| {
                (p.page.to_string(), p.offset.to_string())
            });
            let deleted = u8::from(v.deleted);
            writeln!(
                out,
                "{},{k},{},{deleted},{page},{offset}",
                row.key, v.trx_id
            )?;
        }
        writeln!(err, "row {}: oldest {}", row.key, row.oldest.word())?;
    }
    Ok(())
}

fn main() -> Res {
    let args: Vec<String> = std::env::args().skip(1).collect();
    run(&args, &mut std::io::stdout(), &mut std::io::stderr())
}
