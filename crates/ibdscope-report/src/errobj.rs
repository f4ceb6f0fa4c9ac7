//! What every run's output ends with when it could not read its input:
//! a run that wrote nothing gives a JSON (or JSON Lines) reader one error
//! object ([`run_with`]), for [`crate::run`] and for the commands
//! [`crate::held`] runs over a space kept open.

use crate::args::{Cmd, Format, Opts};
use crate::json::Json;
use crate::outcome::Outcome;
use std::io::{self, Write};

/// Counts what passes to the writer.
struct Counted<'w> {
    w: &'w mut dyn Write,
    n: u64,
}

impl Write for Counted<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.w.write(buf)?;
        self.n = self.n.saturating_add(n as u64);
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.w.flush()
    }
}

/// Runs `cmd` (the command of `opts`: [`crate::run`]'s dispatch, or the one
/// of [`crate::held`] over a space kept open), writing its output to `out`,
/// as [`crate::run`] says.
pub(crate) fn run_with(
    opts: &Opts,
    out: &mut dyn Write,
    cmd: impl FnOnce(&Opts, &mut dyn Write) -> io::Result<Outcome>,
) -> io::Result<Outcome> {
    let mut counted = Counted { w: out, n: 0 };
    let (outcome, said) = crate::diag::capture(|| cmd(opts, &mut counted));
    let outcome = outcome?;
    if outcome != Outcome::Unreadable
        || counted.n > 0
        || !matches!(opts.format, Format::Json | Format::Jsonl)
    {
        return Ok(outcome);
    }
    let mut j = Json::new(out);
    j.obj()?;
    match (&opts.cmd, opts.files.as_slice()) {
        (Cmd::Diff, [a, b, ..]) => j.kv_path("a", a)?.kv_path("b", b)?,
        (_, [file, ..]) => j.kv_path("file", file)?,
        _ => &mut j,
    };
    j.kv_str("error", &crate::diag::reason(&said))?.end_obj()?;
    writeln!(out)?;
    Ok(outcome)
}
