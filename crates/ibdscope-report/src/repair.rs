//! The doublewrite repair's shared pieces, used by `restore` and by
//! `audit`'s instance facts: the redo log files of a datadir and their
//! header, the system tablespace's bytes, which rule the server would
//! follow to pick a doublewrite copy, and the words for a repair's damage
//! and what it left.

use crate::args::Opts;
use ibdscope_core::Tablespace;
use ibdscope_forensics::doublewrite::{Damage, Left, Repair, Rule};
use ibdscope_forensics::redo::{self, RedoFile, RedoInfo, RedoLayout};
use std::path::{Path, PathBuf};

/// The most redo log files looked for.
const MAX_LOG_FILES: u64 = 100;

/// The redo log files of `datadir`: `ib_logfile0…` at its top, else
/// `#innodb_redo/#ib_redoN`.
pub fn redo_files(datadir: &Path) -> (Vec<(u64, PathBuf)>, RedoLayout) {
    let logs: Vec<(u64, PathBuf)> = (0..MAX_LOG_FILES)
        .map(|n| (n, datadir.join(format!("ib_logfile{n}"))))
        .take_while(|(_, p)| p.is_file())
        .collect();
    if !logs.is_empty() {
        return (logs, RedoLayout::LogFiles);
    }
    let mut v: Vec<(u64, PathBuf)> = std::fs::read_dir(datadir.join("#innodb_redo"))
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter_map(|p| {
                    let name = p.file_name()?.to_str()?.to_string();
                    let n = name.strip_prefix("#ib_redo")?.parse::<u64>().ok()?;
                    Some((n, p))
                })
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    (v, RedoLayout::InnodbRedo)
}

/// The redo log of `datadir`, read through the run's host.
pub fn read_redo(datadir: &Path, opts: &Opts) -> Option<Result<RedoInfo, String>> {
    let (paths, layout) = redo_files(datadir);
    if paths.is_empty() {
        return None;
    }
    let mut inputs = Vec::new();
    for (n, p) in &paths {
        match crate::open::file(opts, p, 1) {
            Ok(i) => inputs.push((*n, i)),
            Err(e) => return Some(Err(e.to_string())),
        }
    }
    let files: Vec<RedoFile<'_>> = inputs
        .iter()
        .map(|(id, i)| RedoFile {
            id: *id,
            data: i.bytes(),
        })
        .collect();
    Some(redo::read(&files, layout).map_err(|e| e.to_string()))
}

/// The system tablespace: `ibdata1` and the files that continue it,
/// mapped as one space.
pub type SystemBytes = ibdscope::open::Input;

/// Opens the system tablespace of `datadir` (under `--data-file-path`);
/// the problems of a joined one (a file that does not continue the
/// others) go to stderr.
pub fn open_system(datadir: &Path, opts: &Opts) -> Result<SystemBytes, String> {
    let sys = crate::open::datadir(opts, datadir, opts.threads).map_err(|e| e.to_string())?;
    for p in &sys.problems {
        crate::diag::say!("ibdscope: {p}");
    }
    Ok(sys)
}

/// The server's rule, from the redo log's format (MariaDB's formats are
/// 103 and up, or its creator says so); without a log, from the file
/// (full_crc32 is MariaDB's).
pub fn rule_for(redo: Option<&RedoInfo>, ts: &Tablespace<'_>) -> Rule {
    match redo {
        Some(r) if r.format & 0x7fff_ffff >= 103 || r.creator.starts_with("MariaDB") => {
            Rule::MariaDb {
                checkpoint: Some(r.checkpoint.lsn),
                log_end: Some(r.end),
            }
        }
        Some(_) => Rule::MySql,
        None if ts.scheme() == ibdscope_core::checksum::Scheme::FullCrc32 => Rule::MariaDb {
            checkpoint: None,
            log_end: None,
        },
        None => Rule::MySql,
    }
}

/// A rule in words.
pub fn rule_words(rule: Rule) -> String {
    match rule {
        Rule::MySql => {
            "MySQL (buf_dblwr_process): the first copy of the page in slot order".to_string()
        }
        Rule::MariaDb {
            checkpoint,
            log_end,
        } => {
            let lim = match (checkpoint, log_end) {
                (Some(c), Some(e)) => {
                    format!(" from the checkpoint (LSN {c}) to the log's end (LSN {e})")
                }
                _ => " (no redo log read: every copy counts)".to_string(),
            };
            format!(
                "MariaDB (buf_dblwr_t::recover): the newest copy of the page that verifies{lim}"
            )
        }
    }
}

/// A damaged page's damage in words, with its verdict (the one every
/// command gives: `torn` only within the newest LSN of the pages that
/// verify).
pub fn damage_words(r: &Repair) -> String {
    let what = match r.damage {
        Damage::Checksum if r.lsn_words_differ => {
            "checksum mismatch, header and trailer LSN differ"
        }
        Damage::Checksum => "checksum mismatch",
        Damage::LsnMismatch => "header and trailer LSN differ",
        Damage::Zeroes => "all zeros",
    };
    format!("{what} ({})", r.verdict)
}

/// A damage as a JSON word.
pub fn damage_key(d: Damage) -> &'static str {
    match d {
        Damage::Checksum => "checksum",
        Damage::LsnMismatch => "lsn-mismatch",
        Damage::Zeroes => "zeroes",
    }
}

/// Why a page is left, in words.
pub fn left_words(l: Left) -> String {
    match l {
        Left::NoCopy => "no copy in the doublewrite buffer".to_string(),
        Left::FirstCopyCorrupt { slot } => format!(
            "the first copy (slot {slot}) does not verify: the server stops (\"Also the page in the doublewrite buffer is corrupt\")"
        ),
        Left::NoValidCopy => "no copy verifies".to_string(),
        Left::OlderThanCheckpoint => {
            "every copy is older than the checkpoint (the server ignores them)".to_string()
        }
        Left::PastLogEnd => {
            "every copy not older than the checkpoint is past the log's end (the server ignores them)"
                .to_string()
        }
    }
}
