//! `ibdscope`: inspect InnoDB tablespace files.
//!
//! This crate only connects: clap arguments are checked into [`opts`]
//! structs before any file is touched, then `cmd::<name>::run` runs over a
//! parsed tablespace and writes to a `&mut dyn Write`.
//!
//! **Architecture Invariant:** no parsing of InnoDB structures here; that is
//! the `ibdscope` library's job.
//!
//! Exit codes: 0 clean, 1 findings, 2 a file could not be read (or the
//! arguments were wrong). A broken pipe ends the run with 0.

mod cmd;
mod input;
mod json;
mod opts;
mod text;

use clap::Parser;
use std::io::{self, Write};
use std::process::ExitCode;

/// What a command found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Outcome {
    /// Nothing wrong.
    Clean = 0,
    /// Damage or inconsistencies were reported.
    Findings = 1,
    /// A file could not be read.
    Unreadable = 2,
}

fn main() -> ExitCode {
    let cli = opts::Cli::parse();
    let opts = match opts::Opts::from_cli(cli) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("ibdscope: {e}");
            return ExitCode::from(2);
        }
    };
    let stdout = io::stdout();
    let mut out = io::BufWriter::with_capacity(1 << 16, stdout.lock());
    let result = cmd::run(&opts, &mut out).and_then(|o| out.flush().map(|()| o));
    match result {
        Ok(outcome) => ExitCode::from(outcome as u8),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("ibdscope: {e}");
            ExitCode::from(2)
        }
    }
}
