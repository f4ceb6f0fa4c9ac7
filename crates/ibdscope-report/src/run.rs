//! The entry point: runs a command, and when it could not read its input
//! and wrote nothing, gives a JSON (or JSON Lines) reader one error object
//! instead of an empty output ([`crate::errobj`]).

use crate::args::Opts;
use crate::outcome::Outcome;
use std::io::{self, Write};

/// Runs the command in `opts`, writing its output to `out`.
///
/// With `--format json` or `jsonl`, a run that could not read a file and
/// wrote nothing writes `{"file": …, "error": …}` (`diff`: `{"a": …, "b":
/// …, "error": …}`), the error being what it said on stderr
/// ([`crate::diag::reason`]); exit 2 as always.
pub fn run(opts: &Opts, out: &mut dyn Write) -> io::Result<Outcome> {
    crate::errobj::run_with(opts, out, crate::cmd::run)
}
