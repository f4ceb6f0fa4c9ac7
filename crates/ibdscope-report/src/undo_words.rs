//! The undo of a datadir in words: its files and problems as `undo`,
//! `history` and the datadir `audit` say them (the undo itself is read by
//! `ibdscope::undo` and `ibdscope_forensics::undo`).

use crate::args::Opts;
use crate::json::Json;
use ibdscope_core::Tablespace;
use ibdscope_forensics::undo::Undo;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// The datadir audit's undo: undo logs still to be purged (in the history
/// lists), the history list length per rollback segment (slot, length),
/// and the findings of reading them, in the words `undo` gives them.
pub struct UndoAudit {
    /// Undo logs in the history lists.
    pub to_purge: u64,
    /// (slot, history list length) per rollback segment read.
    pub per_rseg: Vec<(u32, u32)>,
    /// Undo files that do not parse, and the undo's problems (file, page,
    /// byte offset).
    pub findings: Vec<String>,
}

/// The undo of a datadir for its audit; `None` when the datadir has no
/// readable TRX_SYS.
pub fn undo_audit(opts: &Opts, datadir: &Path) -> Option<UndoAudit> {
    let files = ibdscope::undo::read_undo_files(
        &*opts.host,
        datadir,
        opts.threads,
        opts.data_files.as_deref(),
    )
    .ok()?;
    let (spaces, bad) = ibdscope::undo::parse_spaces(&files);
    let u = ibdscope::undo::read_undo(&spaces)?;
    let (to_purge, per_rseg) = u.to_purge();
    let mut findings = bad;
    findings.extend(undo_problem_words(&spaces, &u));
    Some(UndoAudit {
        to_purge,
        per_rseg,
        findings,
    })
}

/// The datadir audit's undo line: undo logs still to be purged and the
/// history list length of each rollback segment that has any; then the
/// findings.
pub fn undo_audit_text(a: &UndoAudit, out: &mut dyn Write) -> io::Result<()> {
    let busy: Vec<String> = a
        .per_rseg
        .iter()
        .filter(|(_, l)| *l > 0)
        .map(|(s, l)| format!("rseg {s}: {l}"))
        .collect();
    writeln!(
        out,
        "  undo still to be purged: {} undo logs in the history lists of {} rollback segments{}{}",
        a.to_purge,
        a.per_rseg.len(),
        if busy.is_empty() { "" } else { " (" },
        if busy.is_empty() {
            String::new()
        } else {
            busy.join(", ") + ")"
        }
    )?;
    for f in &a.findings {
        writeln!(out, "  finding: {f}")?;
    }
    Ok(())
}

/// The datadir audit's `undo` member: `to_purge` (undo logs in the history
/// lists), `history_lengths` (`[slot, length]` per rollback segment) and
/// `findings`, or null.
pub fn undo_audit_json(a: Option<&UndoAudit>, j: &mut Json<'_>) -> io::Result<()> {
    j.key("undo")?;
    match a {
        Some(a) => {
            j.obj()?
                .kv_num("to_purge", a.to_purge)?
                .key("history_lengths")?
                .arr()?;
            for (s, l) in &a.per_rseg {
                j.arr()?.num(*s)?.num(*l)?.end_arr()?;
            }
            j.end_arr()?.key("findings")?.arr()?;
            for f in &a.findings {
                j.str(f)?;
            }
            j.end_arr()?.end_obj()?;
        }
        None => {
            j.null()?;
        }
    }
    Ok(())
}

/// The file a problem's space is in.
pub(crate) fn space_file(spaces: &[(u32, PathBuf, Tablespace<'_>)], space: u32) -> String {
    spaces.iter().find(|s| s.0 == space).map_or_else(
        || format!("space {space}"),
        |s| ibdscope::names::path(&s.1).to_string(),
    )
}

/// The undo's problems in words: "FILE: page N, byte offset B: what", the
/// same in `undo`, `history` and the datadir audit.
pub(crate) fn undo_problem_words(
    spaces: &[(u32, PathBuf, Tablespace<'_>)],
    u: &Undo<'_, '_>,
) -> Vec<String> {
    u.problems
        .iter()
        .map(|p| {
            format!(
                "{}: page {}, byte offset {}: {}",
                space_file(spaces, p.space),
                p.page,
                p.offset,
                p.what
            )
        })
        .collect()
}
