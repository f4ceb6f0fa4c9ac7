//! The progress line: one line on stderr, redrawn in place, while a run
//! takes longer than about a second, so that a long `records` or `check`
//! shows it is alive. Only when stderr is a terminal (nothing at all in a
//! pipe or a file), never on stdout, at most ten times a second, and
//! erased (`\r` and erase-line) when a pass ends, before the command's own
//! output reaches a terminal stdout (after which it is not drawn again:
//! the output is the sign of life) and before the process exits.
//!
//! The report crate calls [`Meter::update`] through the host
//! ([`ibdscope_report::host::Host::progress`]): the scan engine's progress
//! hook (pages joined so far in a pass over the file) and the commands
//! that stream pages themselves (`pages`, `records`, `rows`); `audit`
//! counts files.
//!
//! `IBDSCOPE_PROGRESS_AFTER_MS` sets how long a run goes before the first
//! line (default 1000; the tests set 0).

use ibdscope_report::host::Unit;
use std::io::{self, Write};
use std::path::Path;
use std::sync::{Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};

/// The shortest time between two draws.
const EVERY: Duration = Duration::from_millis(100);

/// The default wait before the first line.
const AFTER: Duration = Duration::from_millis(1000);

/// The process's progress line.
pub struct Meter {
    /// Stderr is a terminal.
    on: bool,
    /// How long a run goes before the first line.
    after: Duration,
    state: Mutex<State>,
}

struct State {
    start: Instant,
    last_draw: Option<Instant>,
    /// A line is on the screen.
    shown: bool,
    /// The command's output reached a terminal stdout: no more lines.
    quiet: bool,
    /// The file opened last, as its name shows.
    file: String,
    /// Its size.
    len: u64,
    /// Passes over that file so far.
    pass: u32,
    /// The last report, `(done, total)`.
    last: (u64, u64),
}

/// The meter of this process.
pub fn meter() -> &'static Meter {
    static METER: OnceLock<Meter> = OnceLock::new();
    METER.get_or_init(|| {
        let after = std::env::var("IBDSCOPE_PROGRESS_AFTER_MS")
            .ok()
            .and_then(|s| s.parse().ok())
            .map_or(AFTER, Duration::from_millis);
        Meter::new(is_terminal(2), after)
    })
}

/// Whether file descriptor `fd` is a terminal.
pub fn is_terminal(fd: i32) -> bool {
    #[cfg(unix)]
    {
        extern "C" {
            fn isatty(fd: i32) -> i32;
        }
        // SAFETY: isatty only reads the descriptor's state; any value of
        // `fd` is allowed (a closed one gives 0).
        unsafe { isatty(fd) == 1 }
    }
    #[cfg(not(unix))]
    {
        let _ = fd;
        false
    }
}

impl Meter {
    fn new(on: bool, after: Duration) -> Meter {
        Meter {
            on,
            after,
            state: Mutex::new(State {
                start: Instant::now(),
                last_draw: None,
                shown: false,
                quiet: false,
                file: String::new(),
                len: 0,
                pass: 0,
                last: (0, 0),
            }),
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A file of `len` bytes is opened: the page reports that follow are
    /// its passes.
    pub fn opened(&self, path: &Path, len: u64) {
        if !self.on {
            return;
        }
        let mut s = self.state();
        let name = path.file_name().map_or_else(
            || ibdscope_report::names::path(path).to_string(),
            |n| ibdscope_report::names::path(Path::new(n)).to_string(),
        );
        s.file = shorten(&name, NAME_CHARS);
        s.len = len;
        s.pass = 0;
        s.last = (0, 0);
    }

    /// `done` of `total` `unit`s of the work under way are done.
    pub fn update(&self, unit: Unit, done: u64, total: u64) {
        if !self.on {
            return;
        }
        let mut s = self.state();
        if unit == Unit::Pages && (s.pass == 0 || done < s.last.0 || s.last.0 >= s.last.1) {
            s.pass = s.pass.saturating_add(1);
        }
        s.last = (done, total);
        if s.quiet {
            return;
        }
        if done >= total {
            // The pass is over: whatever is printed next starts on a clean
            // line.
            erase(&mut s);
            return;
        }
        let now = Instant::now();
        if now.duration_since(s.start) < self.after
            || s.last_draw.is_some_and(|t| now.duration_since(t) < EVERY)
        {
            return;
        }
        s.last_draw = Some(now);
        let line = line(&s, unit, done, total);
        let mut err = io::stderr().lock();
        let _ = write!(err, "\r\x1b[K{line}").and_then(|()| err.flush());
        s.shown = true;
    }

    /// Erases the line, if one is shown.
    pub fn clear(&self) {
        if self.on {
            erase(&mut self.state());
        }
    }

    /// The command's output goes to a terminal now: erase the line and
    /// draw no more.
    pub fn quiet(&self) {
        if self.on {
            let mut s = self.state();
            erase(&mut s);
            s.quiet = true;
        }
    }
}

fn erase(s: &mut State) {
    if s.shown {
        let mut err = io::stderr().lock();
        let _ = err.write_all(b"\r\x1b[K").and_then(|()| err.flush());
        s.shown = false;
    }
}

/// The line's text: `ibdscope: t.ibd: 37% of 2.0 GiB (pass 2)`, or
/// `ibdscope: 120 of 3000 files (4%)`.
fn line(s: &State, unit: Unit, done: u64, total: u64) -> String {
    let pct = done.saturating_mul(100) / total.max(1);
    match unit {
        Unit::Files => format!("ibdscope: {done} of {total} files ({pct}%)"),
        _ => {
            let pass = if s.pass > 1 {
                format!(" (pass {})", s.pass)
            } else {
                String::new()
            };
            format!("ibdscope: {}: {pct}% of {}{pass}", s.file, size(s.len))
        }
    }
}

/// The most characters of a file name on the line (so that it fits one
/// terminal line, which `\r` and erase-line can take back).
const NAME_CHARS: usize = 40;

/// `name`, or `…` and its last `max - 1` characters.
fn shorten(name: &str, max: usize) -> String {
    let n = name.chars().count();
    if n <= max {
        return name.to_string();
    }
    let tail: String = name.chars().skip(n - (max - 1)).collect();
    format!("…{tail}")
}

/// `2.0 GiB`, `340 MiB`, `12 KiB`.
fn size(n: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    let mut v = n as f64 / 1024.0;
    let mut unit = UNITS[0];
    for u in &UNITS[1..] {
        if v < 1024.0 {
            break;
        }
        v /= 1024.0;
        unit = u;
    }
    if v < 10.0 {
        format!("{v:.1} {unit}")
    } else {
        format!("{v:.0} {unit}")
    }
}

/// Stdout, erasing the progress line before the command's output reaches
/// it when it is a terminal (the two would share a line).
pub struct Stdout<W> {
    w: W,
    tty: bool,
}

impl<W: Write> Stdout<W> {
    /// `w`, which is file descriptor 1.
    pub fn new(w: W) -> Self {
        Stdout {
            w,
            tty: is_terminal(1),
        }
    }
}

impl<W: Write> Write for Stdout<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.tty {
            meter().quiet();
        }
        self.w.write(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.w.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_lines() {
        assert_eq!(size(12 * 1024), "12 KiB");
        assert_eq!(size(2 << 30), "2.0 GiB");
        assert_eq!(size(340 << 20), "340 MiB");
        assert_eq!(shorten("t.ibd", 40), "t.ibd");
        let long = format!("{}_t.ibd", "x".repeat(60));
        assert_eq!(shorten(&long, 40).chars().count(), 40);
        assert!(shorten(&long, 40).ends_with("x_t.ibd"));
        let m = Meter::new(true, Duration::ZERO);
        m.opened(Path::new("/d/t.ibd"), 2 << 30);
        let mut s = m.state();
        s.pass = 2;
        assert_eq!(
            line(&s, Unit::Pages, 37, 100),
            "ibdscope: t.ibd: 37% of 2.0 GiB (pass 2)"
        );
        assert_eq!(
            line(&s, Unit::Files, 120, 3000),
            "ibdscope: 120 of 3000 files (4%)"
        );
    }

    #[test]
    fn passes_are_counted_when_the_count_starts_again() {
        // Off: nothing is kept.
        let off = Meter::new(false, Duration::ZERO);
        off.update(Unit::Pages, 1, 10);
        assert_eq!(off.state().pass, 0);
        // A long wait: counted, never drawn.
        let m = Meter::new(true, Duration::from_secs(3600));
        m.opened(Path::new("t.ibd"), 1);
        for (done, pass) in [(5, 1), (9, 1), (10, 1), (3, 2), (10, 2), (10, 3), (2, 4)] {
            m.update(Unit::Pages, done, 10);
            assert_eq!(m.state().pass, pass, "{done}");
            assert!(!m.state().shown);
        }
        m.opened(Path::new("u.ibd"), 1);
        m.update(Unit::Pages, 5, 10);
        assert_eq!(m.state().pass, 1);
    }
}
