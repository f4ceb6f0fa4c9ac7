//! The progress line: on a terminal's stderr only, erased before anything
//! else is printed there, never on stdout; nothing at all when stderr is a
//! pipe. `IBDSCOPE_PROGRESS_AFTER_MS=0` draws from the start (the default
//! waits a second), so an 11 MiB fixture of six shards is enough.

use super::common::fixtures;
use std::process::Command;

fn large() -> String {
    fixtures()
        .join("mysql56/uuid_char36_large.ibd")
        .to_string_lossy()
        .into_owned()
}

/// Commands that pass over the file (folds) or stream it (`pages`,
/// `records`, `rows`), and `audit` (files).
fn commands(file: &str) -> Vec<Vec<String>> {
    let dir = fixtures().join("mysql56").to_string_lossy().into_owned();
    // One thread: a pass reports after each of the six shards (on more,
    // a slow first shard may be joined with all the others at once, and
    // the first report is the last).
    [
        vec!["check", file],
        vec!["check", file, file],
        vec!["indexes", file],
        vec!["pages", file],
        vec!["records", file],
        vec!["rows", file, "--format", "csv"],
        vec!["lsn", file],
        vec!["audit", &dir],
    ]
    .into_iter()
    .map(|v| {
        let mut args: Vec<String> = v.into_iter().map(String::from).collect();
        args.extend(["--threads".to_string(), "1".to_string()]);
        args
    })
    .collect()
}

#[test]
fn nothing_on_stderr_when_it_is_not_a_terminal() {
    let file = large();
    for args in commands(&file) {
        let out = Command::new(env!("CARGO_BIN_EXE_ibdscope"))
            .args(&args)
            .env("IBDSCOPE_PROGRESS_AFTER_MS", "0")
            .output()
            .expect("run ibdscope");
        assert!(out.status.code().is_some_and(|c| c <= 1), "{args:?}");
        assert!(!out.stdout.is_empty(), "{args:?}");
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            "",
            "{args:?}: stderr is a pipe"
        );
        assert!(
            !out.stdout.windows(3).any(|w| w == b"\x1b[K"),
            "{args:?}: an erase on stdout"
        );
    }
}

#[cfg(target_os = "linux")]
mod pty {
    use std::fs::{File, OpenOptions};
    use std::io::Read;
    use std::os::fd::FromRawFd;
    use std::process::{Command, Stdio};

    extern "C" {
        fn posix_openpt(flags: i32) -> i32;
        fn grantpt(fd: i32) -> i32;
        fn unlockpt(fd: i32) -> i32;
        fn ptsname_r(fd: i32, buf: *mut u8, len: usize) -> i32;
    }
    const O_RDWR: i32 = 2;
    const O_NOCTTY: i32 = 0o400;

    /// A new pseudo-terminal: its master, and its slave's path.
    fn openpt() -> Option<(File, String)> {
        // SAFETY: plain libc calls on a descriptor we own; the name is
        // written into our buffer, NUL-terminated, within its length.
        unsafe {
            let fd = posix_openpt(O_RDWR | O_NOCTTY);
            if fd < 0 {
                return None;
            }
            let master = File::from_raw_fd(fd);
            let mut name = [0u8; 128];
            if grantpt(fd) != 0 || unlockpt(fd) != 0 || ptsname_r(fd, name.as_mut_ptr(), 128) != 0 {
                return None;
            }
            let end = name.iter().position(|&b| b == 0)?;
            Some((master, String::from_utf8_lossy(&name[..end]).into_owned()))
        }
    }

    /// Runs ibdscope with stderr (and stdout, with `stdout_too`) on a
    /// pseudo-terminal: what stdout got (when piped) and what the terminal
    /// got.
    pub fn run(args: &[String], stdout_too: bool) -> Option<(Vec<u8>, Vec<u8>)> {
        let (mut master, slave) = openpt()?;
        let tty = || OpenOptions::new().read(true).write(true).open(&slave);
        let child = {
            let mut cmd = Command::new(env!("CARGO_BIN_EXE_ibdscope"));
            cmd.args(args)
                .env("IBDSCOPE_PROGRESS_AFTER_MS", "0")
                .stdin(Stdio::null())
                .stderr(tty().ok()?);
            if stdout_too {
                cmd.stdout(tty().ok()?);
            } else {
                cmd.stdout(Stdio::piped());
            }
            cmd.spawn().expect("run ibdscope")
            // `cmd`, and with it our copies of the slave, dropped here:
            // the master reads an error once the child has exited.
        };
        let reader = std::thread::spawn(move || {
            let mut got = Vec::new();
            let mut buf = [0u8; 4096];
            while let Ok(n) = master.read(&mut buf) {
                if n == 0 {
                    break;
                }
                got.extend_from_slice(&buf[..n]);
            }
            got
        });
        let out = child.wait_with_output().expect("wait");
        assert!(out.status.code().is_some_and(|c| c <= 1), "{args:?}");
        Some((out.stdout, reader.join().expect("reader")))
    }
}

/// The progress lines in what a terminal got: each starts with `\r` and
/// erase-line; returns them and checks that each is erased before
/// anything else is printed.
#[cfg(target_os = "linux")]
fn lines_drawn(tty: &[u8], args: &[String]) -> Vec<String> {
    let text = String::from_utf8_lossy(tty);
    let parts: Vec<&str> = text.split("\r\x1b[K").collect();
    let mut drawn = Vec::new();
    for (i, part) in parts.iter().enumerate().skip(1) {
        if part.starts_with("ibdscope: ") && part.contains('%') {
            // A progress line: the next thing on the terminal erases it.
            assert!(i + 1 < parts.len(), "{args:?}: {part:?} left on screen");
            drawn.push(part.to_string());
        }
    }
    drawn
}

#[cfg(target_os = "linux")]
#[test]
fn on_a_terminal_a_progress_line_is_drawn_and_erased() {
    let file = large();
    let Some(_) = pty::run(&["--version".to_string()], false) else {
        eprintln!("SKIPPED: no pseudo-terminal (posix_openpt failed): the progress line is not tested on a terminal");
        return;
    };
    for args in commands(&file) {
        let (stdout, tty) = pty::run(&args, false).expect("pty");
        let drawn = lines_drawn(&tty, &args);
        assert!(
            !drawn.is_empty(),
            "{args:?}: {:?}",
            String::from_utf8_lossy(&tty)
        );
        let want = if args[0] == "audit" {
            " files ("
        } else {
            "uuid_char36_large.ibd: "
        };
        assert!(
            drawn.iter().all(|l| l.contains(want)),
            "{args:?}: {drawn:?}"
        );
        // The terminal ends clean, and stdout never saw a line.
        assert!(tty.ends_with(b"\r\x1b[K"), "{args:?}");
        assert!(!stdout.windows(3).any(|w| w == b"\x1b[K"), "{args:?}");
        assert!(!stdout.is_empty(), "{args:?}");
    }
    // Stdout on the terminal too: the output erases the line and no other
    // is drawn after it begins.
    let args: Vec<String> = ["pages", &file].iter().map(|s| s.to_string()).collect();
    let (_, tty) = pty::run(&args, true).expect("pty");
    let text = String::from_utf8_lossy(&tty);
    lines_drawn(&tty, &args);
    let first_row = text.find("checksum").expect("the pages header");
    assert!(
        !text[first_row..].contains("% of "),
        "a progress line after the output began: {text:?}"
    );
}
