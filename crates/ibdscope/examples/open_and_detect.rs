//! Opens a tablespace and says how its format was detected, and why:
//! `cargo run -p ibdscope --example open_and_detect -- t.ibd [key_file]`.
use std::io::Write;
type Res = Result<(), Box<dyn std::error::Error>>;

/// Writes the space's sizes, then each piece of detection evidence.
pub fn run(args: &[String], out: &mut dyn Write) -> Res {
    let mut how = ibdscope::OpenOptions::new();
    if let Some(k) = args.get(1) {
        how = how.key_file(ibdscope::KeyFile::parse(&std::fs::read(k)?, b"")?);
    }
    let file = ibdscope::File::open_with(args.first().ok_or("FILE [KEY_FILE]")?, &how)?;
    let space = file.space()?;
    let (ts, detection) = (space.tablespace(), space.detection());
    let (ls, ps) = (ts.format().logical_size, ts.format().physical_size);
    let (id, n) = (ts.space_id().0, ts.n_pages());
    writeln!(out, "page_size {ls} physical {ps} space_id {id} pages {n}")?;
    for e in &detection.evidence {
        writeln!(out, "evidence: {e}")?;
    }
    for d in file.diagnostics() {
        writeln!(out, "diagnostic: {d}")?;
    }
    Ok(())
}

fn main() -> Res {
    run(
        &std::env::args().skip(1).collect::<Vec<_>>(),
        &mut std::io::stdout(),
    )
}
