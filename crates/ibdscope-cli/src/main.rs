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
#![cfg_attr(test, allow(clippy::disallowed_macros))]

mod complete;
mod error;
mod guard;
mod input;
mod opts;
mod progress;

use std::io::{self, Write};

/// `eprintln!` that does not panic when stderr is closed: through the
/// report crate's one writer to stderr (`ibdscope_report::diag::write`).
macro_rules! say {
    ($($arg:tt)*) => {
        ibdscope_report::diag::write(format_args!("{}\n", format_args!($($arg)*)))
    };
}
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = opts::parse();
    if let Some(shell) = cli.completions() {
        let script = complete::script(shell, opts::cli());
        return match io::stdout().lock().write_all(script.as_bytes()) {
            Err(e) if e.kind() != io::ErrorKind::BrokenPipe => {
                say!("ibdscope: {e}");
                ExitCode::from(2)
            }
            _ => ExitCode::SUCCESS,
        };
    }
    let serve = cli.serve_port();
    let open = cli.serve_open();
    let opts = match opts::from_cli(cli) {
        Ok(o) => o,
        Err(e) => {
            say!("ibdscope: {e}");
            return ExitCode::from(2);
        }
    };
    if let Some(port) = serve {
        return serve_files(opts, port, open);
    }
    let stdout = progress::Stdout::new(io::stdout().lock());
    let mut out = io::BufWriter::with_capacity(1 << 16, stdout);
    let result = ibdscope_report::run(&opts, &mut out).and_then(|o| out.flush().map(|()| o));
    progress::meter().clear();
    match result {
        Ok(outcome) => ExitCode::from(outcome as u8),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            say!("ibdscope: {e}");
            ExitCode::from(2)
        }
    }
}

/// `serve --open`: hands `url` to the desktop's opener (`open` on macOS,
/// else `xdg-open`), not waiting for it; a failure is said, never fatal.
fn open_browser(url: &str) {
    let prog = if cfg!(target_os = "macos") {
        "open"
    } else {
        "xdg-open"
    };
    let child = std::process::Command::new(prog)
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    match child {
        // Reaped by a thread of its own, so it leaves no zombie.
        Ok(mut c) => {
            let _ = std::thread::Builder::new().spawn(move || c.wait());
        }
        Err(e) => say!("ibdscope: serve: could not run {prog} to open the browser: {e}"),
    }
}

/// `ibdscope serve`: binds, prints the URL (with its token) and serves
/// until the process ends.
fn serve_files(opts: ibdscope_report::args::Opts, port: u16, open: bool) -> ExitCode {
    let server = match ibdscope_serve::Server::bind(opts, port, ibdscope_serve::Limits::default()) {
        Ok(s) => s,
        Err(e) => {
            say!("ibdscope: serve: {e}");
            return ExitCode::from(2);
        }
    };
    let mut stdout = io::stdout().lock();
    let _ = writeln!(stdout, "ibdscope serve: {}", server.url()).and_then(|()| stdout.flush());
    drop(stdout);
    if open {
        open_browser(&server.url());
    }
    match server.run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            say!("ibdscope: serve: {e}");
            ExitCode::from(2)
        }
    }
}
