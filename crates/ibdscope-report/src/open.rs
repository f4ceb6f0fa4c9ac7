//! How the report opens its inputs: through the front door's one way
//! ([`ibdscope::open`]) with the run's host, threads, `--page-size` and
//! `--data-file-path`; what opening had to tell is said on stderr here.
//! Also the one way a command opens a space ([`with_space`], the logical
//! image of a compressed or encrypted one, [`with_logical`]) and the files
//! of a datadir beside its tablespaces (the system tablespace, the redo
//! log).

use crate::args::Opts;
use crate::outcome::Outcome;
use ibdscope::diagnostic::Diagnostic;
use ibdscope::open::{Input, OpenOptions};
use ibdscope_core::{Engine, Tablespace};
use ibdscope_forensics::redo::{self, RedoFile, RedoInfo, RedoLayout};
use std::io;
use std::path::{Path, PathBuf};

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
pub fn space(opts: &Opts, path: &Path, threads: usize) -> Result<Input, ibdscope::Error> {
    said(ibdscope::open::open(path, &how(opts, threads)))
}

/// Opens the one file `path` ([`ibdscope::open::open_file`]).
pub fn file(opts: &Opts, path: &Path, threads: usize) -> Result<Input, ibdscope::Error> {
    said(ibdscope::open::open_file(path, &how(opts, threads)))
}

/// Opens the system tablespace whose first data file is `first`
/// ([`ibdscope::open::open_system`]).
pub fn system(opts: &Opts, first: &Path, threads: usize) -> Result<Input, ibdscope::Error> {
    said(ibdscope::open::open_system(first, &how(opts, threads)))
}

/// Opens the system tablespace of `datadir` (or of the first data file
/// named) ([`ibdscope::open::open_datadir`]).
pub fn datadir(opts: &Opts, datadir: &Path, threads: usize) -> Result<Input, ibdscope::Error> {
    said(ibdscope::open::open_datadir(datadir, &how(opts, threads)))
}

fn said(r: Result<Input, ibdscope::Error>) -> Result<Input, ibdscope::Error> {
    if let Ok(i) = &r {
        say(&i.diagnostics);
    }
    r
}

/// With `--key-file`, whether its keys open this MariaDB encrypted space
/// ([`ibdscope::logical::key_finding`]): a wrong or missing key is said on
/// stderr and is a finding.
pub fn key_finding(path: &Path, ts: &Tablespace<'_>, opts: &Opts) -> Outcome {
    match ibdscope::logical::key_finding(path, ts, opts.key_file.as_ref()) {
        Some(d) => {
            say(&[d]);
            Outcome::Findings
        }
        None => Outcome::Clean,
    }
}

/// With `--key-file` and a key that opens this MariaDB encrypted space,
/// the summary of `a` is the keyed one ([`ibdscope::logical::key_verdicts`]:
/// one pass that decrypts every encrypted page and judges it as the server
/// does after reading it), set in the `Analysis` so that every reader of
/// its summary sees it; the pages that do not verify after decryption are
/// said on stderr and are a finding. Without a key (or one that does not
/// open the space, which [`key_finding`] says) the summary stays the plain
/// one, made when first asked.
pub fn key_summary(a: &ibdscope::analysis::Analysis<'_>, opts: &Opts) -> Outcome {
    let (k, engine) = (opts.key_file.as_ref(), a.engine());
    match ibdscope::logical::key_verdicts(a.path(), a.ts(), engine, k) {
        Some((s, d)) => {
            a.set_summary(s);
            say(&d);
            if d.is_empty() {
                Outcome::Clean
            } else {
                Outcome::Findings
            }
        }
        None => Outcome::Clean,
    }
}

/// Runs `f` over the space the structure commands read: the logical image
/// of a page_compressed or (with `keys`) MariaDB encrypted space
/// ([`ibdscope::logical::expand`], what it had to tell said on stderr),
/// else `ts` itself, with the summary of `ts`'s stored pages when it was
/// made with the image (so it is not made again). A damaged compressed
/// page, or a page that does not decrypt, makes the outcome at least
/// [`Outcome::Findings`].
pub fn with_logical(
    path: &Path,
    ts: &Tablespace<'_>,
    engine: &Engine<'_>,
    keys: Option<&ibdscope_core::crypt::mariadb::KeyFile>,
    f: impl FnOnce(&Tablespace<'_>, Option<ibdscope_core::Summary>) -> io::Result<Outcome>,
) -> io::Result<Outcome> {
    let mut diags = Vec::new();
    let logical = ibdscope::logical::expand(path, ts, engine, keys, &mut diags);
    say(&diags);
    let Some(mut l) = logical else {
        return f(ts, None);
    };
    let summary = l.take_summary();
    let outcome = f(&l.tablespace(ts), summary)?;
    Ok(if ibdscope::logical::damaged(&l) {
        outcome.max(Outcome::Findings)
    } else {
        outcome
    })
}

/// Opens the space `path` names the one way ([`space`]: a
/// file, or the system tablespace named by its first data file, its files
/// side by side; a file that does not continue the ones before it is
/// named on stderr, left out, and a finding) and parses it, printing why
/// not to stderr; `f` gets the space and the engine the command's passes
/// run on.
pub fn with_space(
    path: &Path,
    opts: &Opts,
    f: impl FnOnce(&Tablespace<'_>, &Engine<'_>) -> io::Result<Outcome>,
) -> io::Result<Outcome> {
    let mut problems = false;
    let outcome = opened_space(path, opts, |ts, engine, p| {
        problems = p;
        f(ts, engine)
    })?;
    Ok(if problems {
        outcome.max(Outcome::Findings)
    } else {
        outcome
    })
}

/// [`with_space`], `f` told whether opening had problems (files left
/// out: the run's outcome is then at least findings) instead of the
/// outcome raised.
pub fn opened_space(
    path: &Path,
    opts: &Opts,
    f: impl FnOnce(&Tablespace<'_>, &Engine<'_>, bool) -> io::Result<Outcome>,
) -> io::Result<Outcome> {
    let input = match space(opts, path, opts.threads) {
        Ok(i) => i,
        Err(e) => {
            crate::diag::say!("ibdscope: {e}");
            return Ok(Outcome::Unreadable);
        }
    };
    for p in &input.problems {
        crate::diag::say!("ibdscope: {p}");
    }
    let ts = match input.tablespace() {
        Ok(ts) => ts,
        Err(e) => {
            crate::diag::say!("ibdscope: {}: {e}", ibdscope::names::path(path));
            return Ok(Outcome::Unreadable);
        }
    };
    let progress = |done, total| opts.host.progress(ibdscope::host::Unit::Pages, done, total);
    let engine = if input.is_system() {
        opts.engine()
    } else {
        // The scan engine drops each shard's mappings as it finishes it
        // and the space's window what the walks leave behind, through the
        // input (`Input::tablespace`), for every command: RSS stays flat
        // for any file size (a pass that reads the file again maps it
        // again, from the page cache).
        opts.engine().with_progress(&progress)
    };
    f(&ts, &engine, !input.problems.is_empty())
}

/// `FSP_SPACE_ID` of the file `path` names (page 0, byte 38), read from
/// its first bytes without opening it as a space: how `tables` and
/// `audit DATADIR` match a datadir's files to its dictionary, a file at a
/// time. `Ok(None)` when the file is shorter than that.
pub fn page0_space_id(path: &Path) -> io::Result<Option<u32>> {
    use std::io::Read;
    let mut head = [0u8; 42];
    let mut f = std::fs::File::open(path)?;
    match f.read_exact(&mut head) {
        Ok(()) => Ok(ibdscope_prims::bytes::be_u32(&head, 38)),
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => Ok(None),
        Err(e) => Err(e),
    }
}

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
pub fn read_redo(datadir: &Path, opts: &Opts) -> Option<Result<RedoInfo, crate::error::Error>> {
    let (paths, layout) = redo_files(datadir);
    if paths.is_empty() {
        return None;
    }
    let mut inputs = Vec::new();
    for (n, p) in &paths {
        match file(opts, p, 1) {
            Ok(i) => inputs.push((*n, i)),
            Err(e) => return Some(Err(e.into())),
        }
    }
    let files: Vec<RedoFile<'_>> = inputs
        .iter()
        .map(|(id, i)| RedoFile {
            id: *id,
            data: i.bytes(),
        })
        .collect();
    Some(
        redo::read(&files, layout)
            .map_err(|e| crate::error::Error::at(crate::error::ErrorKind::Redo(e), datadir)),
    )
}

/// The system tablespace: `ibdata1` and the files that continue it,
/// mapped as one space.
pub type SystemBytes = ibdscope::open::Input;

/// Opens the system tablespace of `datadir` (under `--data-file-path`);
/// the problems of a joined one (a file that does not continue the
/// others) go to stderr.
pub fn open_system(datadir: &Path, opts: &Opts) -> Result<SystemBytes, ibdscope::Error> {
    let sys = self::datadir(opts, datadir, opts.threads)?;
    for p in &sys.problems {
        crate::diag::say!("ibdscope: {p}");
    }
    Ok(sys)
}
