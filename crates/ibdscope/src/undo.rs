//! The undo of an instance: its system tablespace and undo tablespace
//! files opened through a [`Host`], parsed, and their rollback segments
//! read ([`ibdscope_forensics::undo::Undo`]), for a row's older versions
//! ([`crate::space::Space::history`]) and the `undo`, `history` and
//! `audit` commands.

use crate::host::{read_through, Host};
use ibdscope_core::Tablespace;
use ibdscope_forensics::system::SystemSpace;
use ibdscope_forensics::undo::Undo;
use std::path::{Path, PathBuf};

/// The most undo tablespace files looked for (`undo001`…`undo127`).
const MAX_UNDO_FILES: u32 = 127;

/// The files of an instance's undo: the system tablespace and each undo
/// tablespace file, opened through the host (mapped by the binary: only
/// the pages the walks reach are read).
pub struct UndoFiles {
    /// The system tablespace (ibdata1 and the files that continue it).
    pub system: crate::instance::System,
    /// `undoNNN` files: path and source.
    pub undo: Vec<(PathBuf, Box<dyn crate::host::Source>)>,
}

/// Reads the system tablespace of `datadir` and the undo tablespaces
/// beside it (`undo001`…, as MySQL 5.6+ and MariaDB name them).
pub fn read_undo_files(
    host: &dyn Host,
    datadir: &Path,
    threads: usize,
    data_files: Option<&[PathBuf]>,
) -> Result<UndoFiles, crate::error::Error> {
    let system = crate::instance::read_system(host, datadir, threads, data_files)?;
    // The undo tablespaces lie beside ibdata1.
    let datadir = if datadir.is_dir() {
        datadir
    } else {
        datadir.parent().unwrap_or(Path::new("."))
    };
    let mut undo = Vec::new();
    for n in 1..=MAX_UNDO_FILES {
        let p = datadir.join(format!("undo{n:03}"));
        if !p.is_file() {
            continue;
        }
        let b = host.open(&p, threads)?;
        undo.push((p, b));
    }
    Ok(UndoFiles { system, undo })
}

/// The spaces parsed from [`UndoFiles`]: (space id, file, space); files
/// that do not parse are named in the second list.
pub fn parse_spaces(f: &UndoFiles) -> (Vec<(u32, PathBuf, Tablespace<'_>)>, Vec<String>) {
    let mut out = Vec::new();
    let mut bad = Vec::new();
    let first = f
        .system
        .files
        .first()
        .map(|x| x.0.clone())
        .unwrap_or_default();
    match Tablespace::new(f.system.bytes()) {
        Ok(ts) => out.push((0, first, read_through(f.system.source(), ts))),
        Err(e) => bad.push(format!("{}: {e}", crate::names::path(&first))),
    }
    for (p, b) in &f.undo {
        match Tablespace::new(b.bytes()) {
            Ok(ts) => out.push((ts.space_id().0, p.clone(), read_through(&**b, ts))),
            Err(e) => bad.push(format!("{}: {e}", crate::names::path(p))),
        }
    }
    (out, bad)
}

/// The undo logs of the spaces, from the TRX_SYS rollback segment slots
/// of space 0.
pub fn read_undo<'s, 'a>(spaces: &'s [(u32, PathBuf, Tablespace<'a>)]) -> Option<Undo<'s, 'a>> {
    let sys = spaces.iter().find(|s| s.0 == 0)?;
    let trx_sys = SystemSpace::read(&sys.2)?.trx_sys?;
    let list: Vec<(u32, &'s Tablespace<'a>)> = spaces.iter().map(|(i, _, t)| (*i, t)).collect();
    Some(Undo::read(list, &trx_sys.rsegs))
}
