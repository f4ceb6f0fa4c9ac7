//! Every page's verdict, then the findings with their places:
//! `cargo run -p ibdscope --example verdicts -- t.ibd [key_file]`.
use std::io::Write;
type Res = Result<(), Box<dyn std::error::Error>>;

/// Writes `page verdict offset` per page, then each finding.
pub fn run(args: &[String], out: &mut dyn Write) -> Res {
    let mut how = ibdscope::OpenOptions::new();
    if let Some(k) = args.get(1) {
        how = how.key_file(ibdscope::KeyFile::parse(&std::fs::read(k)?, b"")?);
    }
    let file = ibdscope::File::open_with(args.first().ok_or("FILE [KEY_FILE]")?, &how)?;
    let space = file.space()?;
    for v in space.verdicts() {
        writeln!(out, "{} {} {}", v.page, v.verdict, v.file_offset)?;
    }
    for f in space.findings() {
        let (page, at) = (f.place.page.map_or(-1, |p| i64::from(p.0)), f.place.offset);
        writeln!(out, "finding: page {page} offset {at}: {}", f.what)?;
    }
    Ok(())
}

fn main() -> Res {
    run(
        &std::env::args().skip(1).collect::<Vec<_>>(),
        &mut std::io::stdout(),
    )
}
