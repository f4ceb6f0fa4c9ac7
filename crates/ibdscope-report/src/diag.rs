//! The one writer to stderr: every message of the report crate and the
//! binary goes through [`write`] (the crate's modules by `say!`, a line,
//! and `say_raw!`, text as it is; the binary by its own `say!`).
//!
//! `eprintln!` panics when stderr cannot be written (a pipe whose reader
//! has gone: `ibdscope … 2>&1 >/dev/null | true`); a message nobody can
//! read is not a reason to die, so a failed write to stderr is ignored
//! (there is nowhere left to report it). clippy's `disallowed-macros`
//! (`clippy.toml`) keeps `eprintln!`, `eprint!`, `println!` and `print!`
//! out of the shipped crates.
//!
//! The lines said on a thread while [`capture`] runs are also kept: a
//! run that could not read its input gives their text as the `error` of
//! its JSON (Lines) object ([`reason`]).

use std::cell::RefCell;
use std::fmt;
use std::io::{self, Write};

thread_local! {
    /// The lines said on this thread inside [`capture`], if one runs.
    static CAPTURED: RefCell<Option<Vec<String>>> = const { RefCell::new(None) };
}

/// Writes `args` to stderr, ignoring a failed write; kept when a
/// [`capture`] runs on this thread.
pub fn write(args: fmt::Arguments<'_>) {
    let text = args.to_string();
    CAPTURED.with(|c| {
        if let Some(lines) = c.borrow_mut().as_mut() {
            lines.extend(text.lines().map(str::to_string));
        }
    });
    let mut err = io::stderr().lock();
    let _ = err.write_all(text.as_bytes()).and_then(|()| err.flush());
}

/// Runs `f`, returning its result and the lines said on this thread
/// meanwhile (an outer capture gets them too).
pub fn capture<R>(f: impl FnOnce() -> R) -> (R, Vec<String>) {
    let outer = CAPTURED.with(|c| c.borrow_mut().replace(Vec::new()));
    let r = f();
    let lines = CAPTURED
        .with(|c| std::mem::replace(&mut *c.borrow_mut(), outer))
        .unwrap_or_default();
    CAPTURED.with(|c| {
        if let Some(o) = c.borrow_mut().as_mut() {
            o.extend(lines.iter().cloned());
        }
    });
    (r, lines)
}

/// The reason a run could not read its input, from the lines it said:
/// each without the `ibdscope: ` prefix, joined by `; ` (at most
/// [`MAX_REASON_LINES`], then how many more); `could not read` when it
/// said nothing.
pub fn reason(lines: &[String]) -> String {
    let mut said: Vec<&str> = lines
        .iter()
        .map(|l| l.strip_prefix("ibdscope: ").unwrap_or(l).trim())
        .filter(|l| !l.is_empty())
        .collect();
    if said.is_empty() {
        return "could not read".to_string();
    }
    let more = said.len().saturating_sub(MAX_REASON_LINES);
    said.truncate(MAX_REASON_LINES);
    let mut r = said.join("; ");
    if more > 0 {
        r.push_str(&format!("; {more} more on stderr"));
    }
    r
}

/// The most lines [`reason`] joins.
pub const MAX_REASON_LINES: usize = 8;

/// `eprintln!` that does not panic: a line to stderr through [`write`]
/// (`crate::diag::say!`; the binary calls [`write`] through its own).
macro_rules! say {
    ($($arg:tt)*) => {
        $crate::diag::write(format_args!("{}\n", format_args!($($arg)*)))
    };
}
pub(crate) use say;

/// `eprint!` that does not panic: text to stderr through [`write`].
macro_rules! say_raw {
    ($($arg:tt)*) => {
        $crate::diag::write(format_args!($($arg)*))
    };
}
pub(crate) use say_raw;

#[cfg(test)]
#[allow(
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic
)]
mod tests {
    use super::*;

    #[test]
    fn capture_keeps_the_lines_said_and_the_reason_drops_the_prefix() {
        let ((), lines) = capture(|| {
            crate::diag::say!("ibdscope: a.ibd: No such file");
            let ((), inner) = capture(|| crate::diag::say!("ibdscope: b.ibd: short"));
            assert_eq!(inner, ["ibdscope: b.ibd: short"]);
        });
        assert_eq!(reason(&lines), "a.ibd: No such file; b.ibd: short");
        assert_eq!(reason(&[]), "could not read");
    }
}
