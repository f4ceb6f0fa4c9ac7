//! Lists a tablespace's indexes with their names, roots, levels, pages
//! and fill: `cargo run -p ibdscope --example indexes -- t.ibd [key_file]`.
use std::io::Write;
type Res = Result<(), Box<dyn std::error::Error>>;

/// Writes one line per index: id (or `SDI`), name, root, levels, pages,
/// fill.
pub fn run(args: &[String], out: &mut dyn Write) -> Res {
    let mut how = ibdscope::OpenOptions::new();
    if let Some(k) = args.get(1) {
        how = how.key_file(ibdscope::KeyFile::parse(&std::fs::read(k)?, b"")?);
    }
    let file = ibdscope::File::open_with(args.first().ok_or("FILE [KEY_FILE]")?, &how)?;
    for ix in file.space()?.indexes() {
        let (id, name) = (ix.id_text(), ix.name.as_deref().unwrap_or("-"));
        let (root, levels, leaf, internal) = (ix.root, ix.height, ix.leaf_pages, ix.internal_pages);
        let fill = ix.fill.map_or("-".to_string(), |f| format!("{f:.4}"));
        writeln!(
            out,
            "{id} {name} root {root} levels {levels} pages {leaf}+{internal} fill {fill}"
        )?;
    }
    Ok(())
}

fn main() -> Res {
    run(
        &std::env::args().skip(1).collect::<Vec<_>>(),
        &mut std::io::stdout(),
    )
}
