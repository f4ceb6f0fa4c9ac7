//! How the report opens its inputs: through the front door's one way
//! ([`ibdscope::open`]) with the run's host, threads, `--page-size` and
//! `--data-file-path`; what opening had to tell is said on stderr here.

use crate::args::Opts;
use ibdscope::diagnostic::Diagnostic;
use ibdscope::host::OpenError;
use ibdscope::open::{Input, OpenOptions};
use std::path::Path;

/// How this run opens files, on `threads` threads.
pub fn how(opts: &Opts, threads: usize) -> OpenOptions {
    OpenOptions::new()
        .host(std::sync::Arc::clone(&opts.host))
        .threads(threads)
        .options(opts.lib)
        .data_files(opts.data_files.clone())
}

/// Says each diagnostic on stderr, `ibdscope: ` first.
pub fn say(diags: &[Diagnostic]) {
    for d in diags {
        crate::diag::say!("ibdscope: {d}");
    }
}

/// Says one diagnostic on stderr: the sink every `Analysis` of the report
/// is given (`Analysis::with_sink`).
pub fn say_one(d: &Diagnostic) {
    say(std::slice::from_ref(d));
}

/// Opens the space `path` names ([`ibdscope::open::open`]: a file, or the
/// system tablespace named by its first data file), saying what the host
/// had to tell.
pub fn space(opts: &Opts, path: &Path, threads: usize) -> Result<Input, OpenError> {
    said(ibdscope::open::open(path, &how(opts, threads)))
}

/// Opens the one file `path` ([`ibdscope::open::open_file`]).
pub fn file(opts: &Opts, path: &Path, threads: usize) -> Result<Input, OpenError> {
    said(ibdscope::open::open_file(path, &how(opts, threads)))
}

/// Opens the system tablespace whose first data file is `first`
/// ([`ibdscope::open::open_system`]).
pub fn system(opts: &Opts, first: &Path, threads: usize) -> Result<Input, OpenError> {
    said(ibdscope::open::open_system(first, &how(opts, threads)))
}

/// Opens the system tablespace of `datadir` (or of the first data file
/// named) ([`ibdscope::open::open_datadir`]).
pub fn datadir(opts: &Opts, datadir: &Path, threads: usize) -> Result<Input, OpenError> {
    said(ibdscope::open::open_datadir(datadir, &how(opts, threads)))
}

fn said(r: Result<Input, OpenError>) -> Result<Input, OpenError> {
    if let Ok(i) = &r {
        say(&i.diagnostics);
    }
    r
}
