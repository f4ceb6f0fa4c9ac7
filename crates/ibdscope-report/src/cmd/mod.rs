//! One module per command; each `run` writes to a `&mut dyn Write`.

pub mod audit;
pub mod carve;
pub mod check;
pub mod compare;
pub mod diff;
pub mod fill;
pub mod history;
pub mod info;
pub mod levels;
pub mod lsn;
pub mod page;
pub mod pages;
pub mod records;
pub mod restore;
pub mod rows;
pub mod schema;
pub mod sdi;
pub mod space;
pub mod tables;
pub mod types;

use crate::args::{Cmd, DefOpts, Format, Opts};
use crate::findings;
use crate::open::{key_finding, key_summary, with_logical, with_space};
use crate::outcome::Outcome;
use ibdscope::analysis::Analysis;
use std::io::{self, Write};

/// Runs the command in `opts`. A file that changed while it was read
/// (the host's [`ibdscope::host::Host::changes`]) is reported after the
/// command's output (in text also on stdout; a JSON or CSV document stays
/// whole) and the run exits 2: what was read is not one state of the file.
pub fn run(opts: &Opts, out: &mut dyn Write) -> io::Result<Outcome> {
    let outcome = run_cmd(opts, out)?;
    finish(opts, out, outcome)
}

/// What every run ends with: the host's findings and the changes it saw
/// while the command read (see [`run`]).
pub(crate) fn finish(opts: &Opts, out: &mut dyn Write, outcome: Outcome) -> io::Result<Outcome> {
    let mut outcome = outcome;
    let findings = opts.host.findings();
    if !findings.is_empty() {
        if opts.format == Format::Text {
            for f in &findings {
                writeln!(out, "{f}")?;
            }
        }
        outcome = outcome.max(Outcome::Findings);
    }
    let changes = opts.host.changes();
    if changes.is_empty() {
        return Ok(outcome);
    }
    for c in &changes {
        if opts.format == Format::Text {
            writeln!(out, "{c}")?;
        }
        crate::diag::say!("ibdscope: {c}");
    }
    Ok(Outcome::Unreadable)
}

fn run_cmd(opts: &Opts, out: &mut dyn Write) -> io::Result<Outcome> {
    match opts.cmd {
        Cmd::Check => check::run(opts, out),
        Cmd::Compare => compare::run(opts, out),
        Cmd::Audit => audit::run(opts, out),
        Cmd::Diff => diff::run(opts, out),
        Cmd::Tables => tables::run(opts, out),
        Cmd::Undo => history::undo(opts, out),
        Cmd::Restore(ref r) => restore::run(opts, r, out),
        Cmd::Carve(ref c) => carve::run(opts, c, out),
        _ => {
            let Some(path) = opts.files.first() else {
                return Ok(Outcome::Unreadable);
            };
            let def = match &opts.cmd {
                Cmd::Schema(d) => d.clone(),
                Cmd::Rows(r) => r.def.clone(),
                Cmd::History(h) => h.def.clone(),
                _ => DefOpts {
                    datadir: opts.datadir.clone(),
                    ..DefOpts::default()
                },
            };
            with_space(path, opts, |ts, engine| match opts.cmd {
                // These read the pages as stored.
                Cmd::Info | Cmd::Pages { .. } | Cmd::Types | Cmd::Check | Cmd::Lsn => {
                    let a = Analysis::new(path, ts, ts, *engine, def)
                        .with_host(&*opts.host, opts.data_files.as_deref())
                        .with_sink(&crate::open::say_one);
                    let mut keys = key_finding(path, ts, opts);
                    if matches!(opts.cmd, Cmd::Lsn) {
                        // The map with the key: a page only its decrypted
                        // image verifies is drawn by its LSN, as `check`
                        // judges it.
                        keys = keys.max(key_summary(&a, opts));
                    }
                    let outcome = match opts.cmd {
                        Cmd::Info => info::run(opts, &a, out),
                        Cmd::Pages { from, to } => with_file_findings(opts, &a, out, |out| {
                            pages::run(opts, &a, from, to, out)
                        }),
                        Cmd::Types => {
                            with_file_findings(opts, &a, out, |out| types::run(opts, &a, out))
                        }
                        Cmd::Lsn => {
                            with_file_findings(opts, &a, out, |out| lsn::run(opts, &a, out))
                        }
                        _ => check::one(opts, &a, out),
                    };
                    outcome.map(|o| o.max(keys))
                }
                Cmd::Compare
                | Cmd::Audit
                | Cmd::Diff
                | Cmd::Tables
                | Cmd::Undo
                | Cmd::Restore(_)
                | Cmd::Carve(_) => Ok(Outcome::Unreadable),
                // The structure commands read a page_compressed space's
                // logical image; trust comes from the pages as stored.
                _ => {
                    // Encrypted pages no crypt data opens: no structure.
                    if !matches!(opts.cmd, Cmd::Page { .. }) {
                        if let Some(d) = ibdscope::logical::crypt_data_blocks(path, ts) {
                            crate::open::say(&[d]);
                            return Ok(Outcome::Unreadable);
                        }
                    }
                    let keys = opts.key_file.as_ref();
                    with_logical(path, ts, engine, keys, |lts, summary| {
                        let mut a = Analysis::new(path, ts, lts, *engine, def)
                            .with_host(&*opts.host, opts.data_files.as_deref())
                            .with_sink(&crate::open::say_one);
                        // The commands that read the B-trees: built in the
                        // space map's passes.
                        match opts.cmd {
                            Cmd::Indexes | Cmd::Fill => a = a.reading_trees(false),
                            Cmd::Records(_) => a = a.reading_trees(true),
                            Cmd::Rows(ref r) if r.where_page.is_none() => a = a.reading_trees(true),
                            // The definition's index roots, nothing else.
                            Cmd::Schema(_) | Cmd::Sdi => a = a.reading_roots_only(),
                            _ => {}
                        }
                        if let Some(s) = summary {
                            a.set_summary(s);
                        }
                        let outcome = match opts.cmd {
                            Cmd::Extents => space::extents(opts, &a, out),
                            Cmd::Segments => space::segments(opts, &a, out),
                            Cmd::Lists => space::lists(opts, &a, out),
                            Cmd::Indexes if opts.levels => levels::run(opts, &a, out),
                            Cmd::Indexes => space::indexes(opts, &a, out),
                            Cmd::Sdi => {
                                with_file_findings(opts, &a, out, |out| sdi::run(opts, &a, out))
                            }
                            Cmd::Records(ref sel) => unreadable_file_findings(
                                &a,
                                records::run(opts, &a, sel.clone(), out),
                            ),
                            Cmd::Schema(_) => {
                                with_file_findings(opts, &a, out, |out| schema::run(opts, &a, out))
                            }
                            Cmd::Rows(ref r) => {
                                unreadable_file_findings(&a, rows::run(opts, &a, r, out))
                            }
                            Cmd::Fill => fill::run(opts, &a, out),
                            Cmd::History(ref h) => {
                                unreadable_file_findings(&a, history::run(opts, &a, h, out))
                            }
                            // The page as stored; its account from the structure.
                            Cmd::Page { page } => with_file_findings(opts, &a, out, |out| {
                                page::run(opts, &a, page, out)
                            }),
                            _ => Ok(Outcome::Unreadable),
                        };
                        // A definition read from a damaged dictionary (its
                        // problems said on stderr): findings.
                        // A dictionary asked for (`indexes --datadir`) that
                        // gives no definition: said (once: a command that
                        // could not read without it has said why), and
                        // findings.
                        let asked = opts.datadir.is_some();
                        match outcome {
                            Ok(o) if a.definition_problems() > 0 => Ok(o.max(Outcome::Findings)),
                            Ok(o)
                                if asked
                                    && o != Outcome::Unreadable
                                    && a.definition_error().is_some() =>
                            {
                                if let Some(e) = a.definition_error() {
                                    crate::diag::say!("ibdscope: {e}");
                                }
                                Ok(o.max(Outcome::Findings))
                            }
                            o => o,
                        }
                    })
                }
            })
        }
    }
}

/// Runs a command whose own output does not carry the file's findings (it
/// ends inside a page, it is shorter than FSP_SIZE, page 0 does not
/// verify), then reports them as every command does: after a text output,
/// on stderr after any other (so a JSON or CSV document stays whole), and
/// as findings (exit 1).
pub(crate) fn with_file_findings(
    opts: &Opts,
    a: &Analysis<'_>,
    out: &mut dyn Write,
    f: impl FnOnce(&mut dyn Write) -> io::Result<Outcome>,
) -> io::Result<Outcome> {
    let outcome = f(out)?;
    if a.file_findings().is_empty() {
        return Ok(outcome);
    }
    if opts.format == Format::Text {
        findings::file_text(out, a)?;
    } else {
        file_findings_to_stderr(a)?;
    }
    Ok(outcome.max(Outcome::Findings))
}

/// The file's own findings, as text, on stderr.
fn file_findings_to_stderr(a: &Analysis<'_>) -> io::Result<()> {
    let mut buf = Vec::new();
    findings::file_text(&mut buf, a)?;
    crate::diag::say_raw!("{}", String::from_utf8_lossy(&buf));
    Ok(())
}

/// A command that could not go on (exit 2) still names the file's own
/// findings, on stderr: they may be why.
pub(crate) fn unreadable_file_findings(
    a: &Analysis<'_>,
    outcome: io::Result<Outcome>,
) -> io::Result<Outcome> {
    if matches!(outcome, Ok(Outcome::Unreadable)) && !a.file_findings().is_empty() {
        file_findings_to_stderr(a)?;
    }
    outcome
}
