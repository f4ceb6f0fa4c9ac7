//! The doublewrite repair's shared pieces, used by `restore` and by
//! `audit`'s instance facts: which rule the server would follow to pick a
//! doublewrite copy, and the words for a repair's damage and what it left.

use ibdscope_core::Tablespace;
use ibdscope_forensics::doublewrite::{Damage, Left, Repair, Rule};
use ibdscope_forensics::redo::RedoInfo;

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
