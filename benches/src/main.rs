//! `ibdscope-bench`: times ibdscope and its peers on big real tablespaces,
//! page cache warm, and writes a Markdown report. Std only; no timed
//! assertion anywhere. `benches/run` builds the inputs and the release
//! binary, then runs this (see benches/README.md).
//!
//! Every case returns a count that is checked before its time is reported:
//! pages read from the command's own output (ibdscope), or the exit status
//! (peers, `cat`); library cases count pages or owners. A case whose check
//! fails is reported as failed, without a time.
//!
//! ```text
//! ibdscope-bench --ibdscope target/release/ibdscope --file "1 GiB=/path/t.ibd" \
//!     [--file ...] [--runs 11] [--threads 1,2] [--lib-max-mib 1200] \
//!     [--note TEXT]... [--out benches/results/DATE.md]
//! ```
#![allow(clippy::disallowed_macros)] // The bench harness prints its report.

mod mysql_keyring;
mod serve;
mod targets;

use ibdscope_core::extents::SpaceMap;
use ibdscope_core::{Btrees, Engine, Summary, Tablespace};
use ibdscope_prims::crc32c;
use std::fmt::Write as _;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const MIB: f64 = 1024.0 * 1024.0;

/// Parsed command line.
struct Args {
    ibdscope: PathBuf,
    files: Vec<(String, PathBuf)>,
    runs: usize,
    threads: Vec<usize>,
    lib_max_mib: u64,
    notes: Vec<String>,
    out: Option<PathBuf>,
    /// MariaDB encrypted spaces, read with `key_file`.
    crypt: Vec<(String, PathBuf)>,
    key_file: Option<PathBuf>,
    /// MariaDB page_compressed spaces, one per provider.
    pagecomp: Vec<(String, PathBuf)>,
    /// MySQL/Percona encrypted spaces, read with `keyring`.
    keyring_files: Vec<(String, PathBuf)>,
    keyring: Option<PathBuf>,
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        ibdscope: PathBuf::from("target/release/ibdscope"),
        files: Vec::new(),
        runs: 11,
        threads: vec![1, 2],
        lib_max_mib: 1200,
        notes: Vec::new(),
        out: None,
        crypt: Vec::new(),
        key_file: None,
        pagecomp: Vec::new(),
        keyring_files: Vec::new(),
        keyring: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut val = || it.next().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--ibdscope" => a.ibdscope = PathBuf::from(val()?),
            "--file" => a.files.push(labelled(val()?)?),
            "--crypt" => a.crypt.push(labelled(val()?)?),
            "--key-file" => a.key_file = Some(PathBuf::from(val()?)),
            "--pagecomp" => a.pagecomp.push(labelled(val()?)?),
            "--keyring-file" => a.keyring_files.push(labelled(val()?)?),
            "--keyring" => a.keyring = Some(PathBuf::from(val()?)),
            "--runs" => a.runs = val()?.parse().map_err(|_| "--runs N")?,
            "--threads" => {
                a.threads = val()?
                    .split(',')
                    .map(|t| t.parse().map_err(|_| "--threads 1,2".to_string()))
                    .collect::<Result<_, _>>()?
            }
            "--lib-max-mib" => a.lib_max_mib = val()?.parse().map_err(|_| "--lib-max-mib N")?,
            "--note" => a.notes.push(val()?),
            "--out" => a.out = Some(PathBuf::from(val()?)),
            // `cargo bench` passes --bench to harness=false targets.
            "--bench" => {}
            other => return Err(format!("unknown argument {other}")),
        }
    }
    if a.files.is_empty() {
        return Err("no --file given".into());
    }
    if !a.crypt.is_empty() && a.key_file.is_none() {
        return Err("--crypt needs --key-file".into());
    }
    if !a.keyring_files.is_empty() && a.keyring.is_none() {
        return Err("--keyring-file needs --keyring".into());
    }
    if a.runs == 0 || a.threads.is_empty() || a.threads.contains(&0) {
        return Err("--runs and --threads must be positive".into());
    }
    Ok(a)
}

/// The middle value (the upper one of the two middles for an even count).
fn median(v: &[Duration]) -> Duration {
    let mut s = v.to_vec();
    s.sort_unstable();
    s.get(s.len() / 2).copied().unwrap_or_default()
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// `name` on PATH or in ~/.cargo/bin.
fn find_tool(name: &str) -> Option<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect())
        .unwrap_or_default();
    if let Some(home) = std::env::var_os("HOME") {
        dirs.push(Path::new(&home).join(".cargo/bin"));
    }
    dirs.into_iter().map(|d| d.join(name)).find(|p| p.is_file())
}

/// First line of `tool args`, for the report.
fn version(tool: &Path, args: &[&str]) -> String {
    Command::new(tool)
        .args(args)
        .output()
        .ok()
        .map(|o| {
            let text = if o.stdout.is_empty() {
                o.stderr
            } else {
                o.stdout
            };
            String::from_utf8_lossy(&text)
                .lines()
                .next()
                .unwrap_or("")
                .trim()
                .to_string()
        })
        .unwrap_or_else(|| "?".into())
}

/// How a case's count is found and checked.
#[derive(Clone, Copy)]
enum Count {
    /// Exit status 0 is the check; the count is the file's pages.
    ExitOk,
    /// The first number after `marker` in stdout must be the file's pages.
    Pages(&'static str),
    /// Lines of stdout after the header: must be at least one.
    Rows,
    /// Lines of stdout, counted as they come (`records` and `pages` print
    /// more than the file holds): at least two, and exit 0.
    Lines,
    /// Exit 0; the count is the lines of the file the command wrote
    /// (`Extra::cleanup`: a server's dump).
    Dumped,
}

/// One external command.
struct Case {
    tool: String,
    what: String,
    threads: Option<usize>,
    argv: Vec<String>,
    count: Count,
    /// How the runs are set up (defaults: stdout to /dev/null, the child's
    /// own CPU time, memory measured).
    extra: Extra,
}

/// The less common settings of a case.
#[derive(Default, Clone)]
struct Extra {
    /// Stdout goes to this file (deleted after each run), as a server
    /// writes its dump, instead of /dev/null.
    out: Option<PathBuf>,
    /// A file the command itself writes (a server's `INTO OUTFILE`),
    /// deleted after each run, untimed.
    cleanup: Option<PathBuf>,
    /// The CPU time is this process's (a server doing the work the
    /// client asks for), not the child's.
    cpu_pid: Option<u32>,
    /// No memory runs (the child is a client: its memory says nothing).
    no_memory: bool,
}

/// One measured row.
struct Row {
    tool: String,
    what: String,
    threads: Option<usize>,
    result: Result<Measured, String>,
}

struct Measured {
    median: Duration,
    min: Duration,
    /// The median CPU time (user + system, all threads) of the timed runs,
    /// when /proc tells (10 ms ticks).
    cpu: Option<Duration>,
    rss_kib: Option<u64>,
    anon_kib: Option<u64>,
    /// Peak of the file-backed resident memory (RssFile + RssShmem).
    file_kib: Option<u64>,
    count: u64,
    /// The 1-minute load average sampled before each timed run: lowest
    /// and highest.
    load: (f64, f64),
}

fn number_after(text: &str, marker: &str) -> Option<u64> {
    let rest = &text[text.find(marker)? + marker.len()..];
    let digits: String = rest
        .trim_start()
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

fn check_count(c: Count, out: &std::process::Output, pages: u64) -> Result<u64, String> {
    if !out.status.success() {
        return Err(format!(
            "exit {:?}: {}",
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    match c {
        Count::ExitOk => Ok(pages),
        Count::Pages(marker) => match number_after(&text, marker) {
            Some(n) if n == pages => Ok(n),
            other => Err(format!("counted {other:?} pages, expected {pages}")),
        },
        Count::Rows | Count::Lines | Count::Dumped => {
            match text.lines().skip(1).filter(|l| !l.is_empty()).count() {
                0 => Err("no rows".into()),
                n => Ok(n as u64),
            }
        }
    }
}

/// Runs `argv` and counts its stdout's lines as they come, without keeping
/// them: at least two (a header and a row), and exit 0.
fn count_lines(argv: &[String]) -> Result<u64, String> {
    use std::io::Read;
    let (prog, rest) = argv.split_first().ok_or("empty command")?;
    let mut child = Command::new(prog)
        .args(rest)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("{prog}: {e}"))?;
    let mut lines = 0u64;
    if let Some(mut out) = child.stdout.take() {
        let mut buf = vec![0u8; 1 << 20];
        loop {
            match out.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => lines += buf[..n].iter().filter(|&&b| b == b'\n').count() as u64,
            }
        }
    }
    let status = child.wait().map_err(|e| format!("{prog}: {e}"))?;
    if !status.success() {
        return Err(format!("exit {:?}", status.code()));
    }
    match lines {
        0 | 1 => Err("no rows".into()),
        n => Ok(n - 1),
    }
}

/// Peak memory of one run, in KiB: `(peak RSS, peak anonymous, peak
/// file-backed)`. The peak RSS is `/usr/bin/time`'s (the kernel's high-water
/// mark); the anonymous (RssAnon: what the tool allocates, private) and
/// file-backed (RssFile + RssShmem: the file's pages mapped from the page
/// cache) peaks are sampled from /proc about every 200 µs in the same run
/// (the child of `time`, found through /proc/PID/task/PID/children).
fn memory(argv: &[String]) -> (Option<u64>, Option<u64>, Option<u64>) {
    let time = Path::new("/usr/bin/time");
    let tmp = std::env::temp_dir().join(format!("ibdscope-bench-rss-{}", std::process::id()));
    let mut cmd = if time.is_file() {
        let mut c = Command::new(time);
        c.args(["-f", "%M", "-o"]).arg(&tmp).args(argv);
        c
    } else {
        let Some((prog, rest)) = argv.split_first() else {
            return (None, None, None);
        };
        let mut c = Command::new(prog);
        c.args(rest);
        c
    };
    let Ok(mut child) = cmd.stdout(Stdio::null()).stderr(Stdio::null()).spawn() else {
        return (None, None, None);
    };
    let top = child.id();
    let children = format!("/proc/{top}/task/{top}/children");
    let mut target: Option<String> = (!time.is_file()).then(|| format!("/proc/{top}/status"));
    let (mut anon, mut file) = (None, None);
    let field = |text: &str, name: &str| {
        text.lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse::<u64>().ok())
    };
    let ok = loop {
        if target.is_none() {
            target = std::fs::read_to_string(&children).ok().and_then(|c| {
                c.split_whitespace()
                    .next()
                    .map(|pid| format!("/proc/{pid}/status"))
            });
        }
        if let Some(Ok(text)) = target.as_ref().map(std::fs::read_to_string) {
            anon = anon.max(field(&text, "RssAnon:"));
            let f = field(&text, "RssFile:").map(|f| f + field(&text, "RssShmem:").unwrap_or(0));
            file = file.max(f);
        }
        match child.try_wait() {
            Ok(Some(st)) => break st.success(),
            Ok(None) => std::thread::sleep(Duration::from_micros(200)),
            Err(_) => break false,
        }
    };
    let rss = std::fs::read_to_string(&tmp)
        .ok()
        .and_then(|t| t.lines().last()?.trim().parse().ok());
    let _ = std::fs::remove_file(&tmp);
    if ok {
        (rss, anon, file)
    } else {
        (None, None, None)
    }
}

/// The untimed first run of a case, whose output is checked: its count.
fn warm_up(case: &Case, pages: u64) -> Result<u64, String> {
    let n = warm_up_run(case, pages);
    if let Some(p) = &case.extra.cleanup {
        let _ = std::fs::remove_file(p);
    }
    n
}

fn warm_up_run(case: &Case, pages: u64) -> Result<u64, String> {
    if matches!(case.count, Count::Lines) {
        return count_lines(&case.argv);
    }
    if let (Count::Dumped, Some(file)) = (case.count, &case.extra.cleanup) {
        let (prog, rest) = case.argv.split_first().ok_or("empty command")?;
        let out = Command::new(prog)
            .args(rest)
            .output()
            .map_err(|e| format!("{prog}: {e}"))?;
        check_count(Count::ExitOk, &out, pages)?;
        let text = std::fs::read(file).map_err(|e| format!("{}: {e}", file.display()))?;
        return Ok(text.iter().filter(|&&b| b == b'\n').count() as u64);
    }
    let (prog, rest) = case.argv.split_first().ok_or("empty command")?;
    let out = Command::new(prog)
        .args(rest)
        .output()
        .map_err(|e| format!("{prog}: {e}"))?;
    check_count(case.count, &out, pages)
}

/// CPU time of this process's waited-for children so far (cutime +
/// cstime of /proc/self/stat), in clock ticks (USER_HZ, 100 on Linux).
fn children_ticks() -> Option<u64> {
    stat_ticks("self", 13)
}

/// Two CPU-time fields of /proc/WHO/stat from field `skip` after the
/// command name (11: utime + stime; 13: cutime + cstime), summed, in
/// clock ticks.
fn stat_ticks(who: &str, skip: usize) -> Option<u64> {
    let me = std::fs::read_to_string(format!("/proc/{who}/stat")).ok()?;
    let rest = me.rsplit_once(')')?.1;
    let f: Vec<u64> = rest
        .split_whitespace()
        .skip(skip)
        .take(2)
        .filter_map(|v| v.parse().ok())
        .collect();
    (f.len() == 2).then(|| f.iter().sum())
}

/// CPU ticks that count for `case`: its children's, or the process it
/// asks to do the work (a server).
fn case_ticks(case: &Case) -> Option<u64> {
    match case.extra.cpu_pid {
        Some(pid) => stat_ticks(&pid.to_string(), 11),
        None => children_ticks(),
    }
}

/// The 1-minute load average.
fn load1() -> f64 {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|l| l.split_whitespace().next()?.parse().ok())
        .unwrap_or(f64::NAN)
}

/// Drops `path` from the page cache: `dd iflag=nocache count=0` calls
/// posix_fadvise(POSIX_FADV_DONTNEED) on the whole file.
fn evict(path: &Path) -> Result<(), String> {
    let ok = Command::new("dd")
        .arg(format!("if={}", path.display()))
        .args(["iflag=nocache", "count=0"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map_err(|e| format!("dd: {e}"))?
        .success();
    if ok {
        Ok(())
    } else {
        Err("dd iflag=nocache could not drop the file from the cache".into())
    }
}

/// One timed run, output to /dev/null: its wall time, and its CPU time
/// (user + system of all its threads) when /proc tells. On a shared
/// machine the CPU time says what the run cost whatever the others did;
/// the wall time is what a user waits.
fn timed_run(case: &Case) -> Result<(Duration, Option<Duration>), String> {
    let (prog, rest) = case.argv.split_first().ok_or("empty command")?;
    let stdout = match &case.extra.out {
        Some(p) => {
            Stdio::from(std::fs::File::create(p).map_err(|e| format!("{}: {e}", p.display()))?)
        }
        None => Stdio::null(),
    };
    let before = case_ticks(case);
    let t = Instant::now();
    let status = Command::new(prog)
        .args(rest)
        .stdout(stdout)
        .stderr(Stdio::null())
        .status()
        .map_err(|e| format!("{prog}: {e}"))?;
    let took = t.elapsed();
    let cpu = before
        .zip(case_ticks(case))
        .map(|(a, b)| Duration::from_millis(b.saturating_sub(a) * 10));
    for p in [&case.extra.out, &case.extra.cleanup].into_iter().flatten() {
        let _ = std::fs::remove_file(p);
    }
    if status.success() {
        Ok((took, cpu))
    } else {
        Err(format!("a timed run failed: {status}"))
    }
}

/// Times `f` (`runs` times after one warm-up) and checks its count.
fn measure_lib(
    runs: usize,
    want: u64,
    mut f: impl FnMut() -> u64,
) -> Result<(Duration, Duration), String> {
    let got = f();
    if got != want {
        return Err(format!("counted {got}, expected {want}"));
    }
    let mut times = Vec::with_capacity(runs);
    for _ in 0..runs {
        let t = Instant::now();
        let n = black_box(f());
        times.push(t.elapsed());
        if n != want {
            return Err(format!("counted {n}, expected {want}"));
        }
    }
    Ok((
        median(&times),
        times.iter().copied().min().unwrap_or_default(),
    ))
}

/// Page size and pages of `path`, detected from its first MiB.
fn page_info(path: &Path) -> Result<(u32, u64, u64), String> {
    use std::io::Read;
    let mut f = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let len = f.metadata().map_err(|e| e.to_string())?.len();
    let mut head = vec![0u8; (1 << 20).min(len as usize)];
    f.read_exact(&mut head).map_err(|e| e.to_string())?;
    let ts = Tablespace::new(&head).map_err(|e| format!("{}: {e}", path.display()))?;
    let size = ts.page_size();
    Ok((size, len / u64::from(size), len))
}

fn cases(a: &Args, file: &Path, peers: &Peers) -> Vec<Case> {
    let f = file.display().to_string();
    let mut v = vec![Case {
        tool: "cat".into(),
        what: "cat FILE > /dev/null".into(),
        threads: None,
        argv: vec!["cat".into(), f.clone()],
        count: Count::ExitOk,
        extra: Extra::default(),
    }];
    if let Some(ic) = &peers.innochecksum {
        v.push(Case {
            tool: "innochecksum".into(),
            what: "innochecksum FILE".into(),
            threads: None,
            argv: vec![ic.display().to_string(), f.clone()],
            count: Count::ExitOk,
            extra: Extra::default(),
        });
    }
    if let Some(inno) = &peers.inno {
        for sub in ["checksum", "parse"] {
            v.push(Case {
                tool: "inno".into(),
                what: format!("inno {sub} -f FILE"),
                threads: None,
                argv: vec![
                    inno.display().to_string(),
                    sub.into(),
                    "-f".into(),
                    f.clone(),
                ],
                count: Count::ExitOk,
                extra: Extra::default(),
            });
        }
    }
    let commands: [(&str, &[&str], Count); 9] = [
        ("check", &[], Count::Pages(": ")),
        ("types", &[], Count::Pages("total")),
        ("info", &[], Count::Pages("pages")),
        ("extents", &["--color", "never"], Count::Pages(": ")),
        ("lsn", &["--color", "never"], Count::Pages(": ")),
        ("fill", &["--color", "never"], Count::Pages(": ")),
        ("indexes", &[], Count::Rows),
        ("pages", &[], Count::Lines),
        ("records", &[], Count::Lines),
    ];
    for t in &a.threads {
        for (cmd, extra, count) in commands {
            let mut argv = vec![
                a.ibdscope.display().to_string(),
                "--threads".into(),
                t.to_string(),
                cmd.into(),
            ];
            argv.extend(extra.iter().map(|s| s.to_string()));
            argv.push(f.clone());
            v.push(Case {
                tool: "ibdscope".into(),
                what: cmd.into(),
                threads: Some(*t),
                argv,
                count,
                extra: Extra::default(),
            });
        }
    }
    v
}

struct Peers {
    innochecksum: Option<PathBuf>,
    inno: Option<PathBuf>,
}

/// Library cases on an in-memory copy: `(name, threads, median, min)`.
type LibRow = (String, Option<usize>, Result<(Duration, Duration), String>);

fn lib_cases(a: &Args, data: &[u8]) -> Vec<LibRow> {
    let mut rows = Vec::new();
    let Ok(ts) = Tablespace::new(data) else {
        rows.push(("open".into(), None, Err("not a tablespace".into())));
        return rows;
    };
    let size = ts.page_size() as usize;
    let pages = u64::from(ts.n_pages());
    let xor = |f: fn(&[u8]) -> u32| {
        data.chunks_exact(size)
            .fold(0u32, |x, p| x ^ f(black_box(p)))
    };
    let want = xor(crc32c::crc32c_portable);
    for (name, f) in [
        (
            if crc32c::hardware() {
                "crc32c, SSE4.2 3-stream, per page"
            } else {
                "crc32c (no CRC instruction: portable), per page"
            },
            crc32c::crc32c as fn(&[u8]) -> u32,
        ),
        (
            "crc32c portable slice-by-8, per page",
            crc32c::crc32c_portable,
        ),
    ] {
        rows.push((
            name.into(),
            None,
            measure_lib(a.runs, pages, || if xor(f) == want { pages } else { 0 }),
        ));
    }
    let Ok(ts) = Tablespace::new(data) else {
        return rows;
    };
    for &t in &a.threads {
        let engine = Engine::new(t);
        rows.push((
            "Summary::of (check, types, info)".into(),
            Some(t),
            measure_lib(a.runs, pages, || u64::from(Summary::of(&ts, &engine).pages)),
        ));
        rows.push((
            "SpaceMap::build (extents, indexes)".into(),
            Some(t),
            measure_lib(a.runs, pages, || {
                u64::from(SpaceMap::build(&ts, &engine).n_pages())
            }),
        ));
        // The B-tree walk on a map built once: the pages it counts must be
        // the index pages the map found.
        let map = SpaceMap::build(&ts, &engine);
        let index_pages: u64 = map.indexes.iter().map(|i| u64::from(i.index_pages)).sum();
        rows.push((
            "Btrees::build (indexes, fill)".into(),
            Some(t),
            measure_lib(a.runs, index_pages, || {
                Btrees::build(&ts, &engine, &map)
                    .indexes
                    .iter()
                    .map(|t| u64::from(t.pages))
                    .sum()
            }),
        ));
    }
    rows
}

fn find<'r>(
    rows: &'r [Row],
    tool: &str,
    what: &str,
    threads: Option<usize>,
) -> Option<&'r Measured> {
    rows.iter()
        .find(|r| r.tool == tool && r.what.starts_with(what) && r.threads == threads)
        .and_then(|r| r.result.as_ref().ok())
}

fn ratio(a: Option<&Measured>, b: Option<&Measured>) -> Option<f64> {
    Some(ms(a?.median) / ms(b?.median))
}

fn fmt_ratio(r: Option<f64>) -> String {
    r.map_or("–".into(), |r| format!("{r:.2}×"))
}

fn verdict(r: Option<f64>, limit: f64) -> String {
    match r {
        Some(r) if r <= limit => format!("met ({r:.2}×)"),
        Some(r) => format!("**missed** ({r:.2}×)"),
        None => "not measured".into(),
    }
}

fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|c| {
            c.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|s| s.trim().to_string())
        })
        .unwrap_or_else(|| "?".into());
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
    let mem = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|m| {
            m.lines()
                .next()
                .map(|l| l.split_whitespace().nth(1).unwrap_or("0").to_string())
        })
        .and_then(|kb| kb.parse::<u64>().ok())
        .map_or("?".into(), |kb| format!("{:.0} GiB", kb as f64 / MIB));
    format!(
        "{cpu}, {cores} cores available, {mem} RAM, Linux {}, CRC-32C on {}",
        kernel.trim(),
        if crc32c::hardware() {
            "the SSE4.2 instruction"
        } else {
            "the portable code"
        }
    )
}

/// Clock ticks: the machine's busy time (/proc/stat, all CPUs) and this
/// process's with its waited-for children (/proc/self/stat).
fn cpu_ticks() -> Option<(u64, u64)> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    let cpu: Vec<u64> = stat
        .lines()
        .next()?
        .split_whitespace()
        .skip(1)
        .filter_map(|v| v.parse().ok())
        .collect();
    // user nice system idle iowait irq softirq steal (guest time is
    // already in user): busy = user nice system irq softirq steal.
    let busy = [0usize, 1, 2, 5, 6, 7]
        .iter()
        .filter_map(|&i| cpu.get(i))
        .sum();
    let me = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name: utime stime cutime cstime are 14..=17.
    let rest = me.rsplit_once(')')?.1;
    let f: Vec<u64> = rest
        .split_whitespace()
        .skip(11)
        .take(4)
        .filter_map(|v| v.parse().ok())
        .collect();
    Some((busy, f.iter().sum()))
}

/// What share of the machine other processes used between two readings.
fn others_share(start: Option<(u64, u64)>, end: Option<(u64, u64)>, wall: Duration) -> String {
    let (Some((b0, m0)), Some((b1, m1))) = (start, end) else {
        return "?".into();
    };
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get()) as f64;
    // USER_HZ is 100 on Linux.
    let others = (b1.saturating_sub(b0)).saturating_sub(m1.saturating_sub(m0)) as f64 / 100.0;
    format!(
        "{:.0}% of the machine's CPU time ({others:.1} s over {:.1} s on {cores} cores)",
        100.0 * others / (wall.as_secs_f64() * cores).max(1e-9),
        wall.as_secs_f64()
    )
}

fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "?".into())
}

/// A `LABEL=PATH` argument.
fn labelled(v: String) -> Result<(String, PathBuf), String> {
    let (label, path) = v.split_once('=').ok_or("LABEL=PATH expected")?;
    Ok((label.to_string(), PathBuf::from(path)))
}

fn main() {
    if std::env::args().nth(1).as_deref() == Some("targets") {
        targets::main();
        return;
    }
    if std::env::args().nth(1).as_deref() == Some("serve") {
        serve::main();
        return;
    }
    if std::env::args().nth(1).as_deref() == Some("mysql-keyring") {
        mysql_keyring::main();
        return;
    }
    let a = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("ibdscope-bench: {e}");
            std::process::exit(2);
        }
    };
    let peers = Peers {
        innochecksum: find_tool("innochecksum"),
        inno: find_tool("inno"),
    };
    let mut r = String::new();
    let load_start = loadavg();
    let _ = writeln!(r, "# ibdscope benchmarks\n");
    let _ = writeln!(r, "- machine: {}", machine());
    let _ = writeln!(r, "- ibdscope: {}", version(&a.ibdscope, &["--version"]));
    match &peers.innochecksum {
        Some(p) => {
            let _ = writeln!(r, "- innochecksum: {}", version(p, &["--version"]));
        }
        None => {
            let _ = writeln!(r, "- innochecksum: not installed (Debian mariadb-server)");
        }
    }
    match &peers.inno {
        Some(p) => {
            let _ = writeln!(r, "- idb-utils: {}", version(p, &["--version"]));
        }
        None => {
            let _ = writeln!(
                r,
                "- idb-utils `inno`: not installed (`cargo install innodb-utils`)"
            );
        }
    }
    for n in &a.notes {
        let _ = writeln!(r, "- {n}");
    }
    let _ = writeln!(
        r,
        "- method: page cache warm, in two states (below: the file read from \
         disk, and a copy as a writer leaves it); one untimed run of each \
         command first, whose output is checked, then {} rounds that run every \
         command once each (interleaved, so outside load falls on all alike), \
         median and minimum, wall clock around spawn and exit; output to /dev/null; \
         peak RSS from /usr/bin/time (one more run). Peak RSS counts the \
         file's pages mapped from the page cache (ibdscope maps the file, and \
         its one-pass commands `check`, `types`, `info` and `lsn` drop each \
         shard's mappings once folded; the peers read() it); \"anon\" is the highest RssAnon sampled from /proc \
         every 200 µs in one more run: what the tool allocates.",
        a.runs
    );
    let _ = writeln!(r, "- load average at start: {load_start}");
    eprint!("{r}");

    let (cpu_start, wall_start) = (cpu_ticks(), Instant::now());
    let mut targets = String::new();
    let mut scaling: Vec<Scaled> = Vec::new();
    let mut columns: Vec<String> = Vec::new();
    let mut memory: Vec<Memory> = Vec::new();
    for (label, path) in &a.files {
        let (page_size, pages, len) = match page_info(path) {
            Ok(x) => x,
            Err(e) => {
                let _ = writeln!(r, "\n## {label}: skipped ({e})");
                continue;
            }
        };
        let mib = len as f64 / MIB;
        let _ = writeln!(
            r,
            "\n## {label}: `{}`\n\n{mib:.1} MiB, {pages} pages of {page_size} bytes.",
            path.file_name()
                .map_or("?".into(), |n| n.to_string_lossy().into_owned())
        );
        for state in [CacheState::Read, CacheState::Written] {
            let column = format!("{label}, {}", state.short());
            eprintln!("\n== {column}: {} ({mib:.0} MiB)", path.display());
            let file = match state.prepare(path) {
                Ok(f) => f,
                Err(e) => {
                    let _ = writeln!(r, "\n### {}: skipped ({e})", state.title());
                    continue;
                }
            };
            let rows = run_cases(a.runs, cases(&a, &file, &peers), pages, None);
            let _ = writeln!(r, "\n### {}\n", state.title());
            report_rows(&mut r, &rows, mib);
            let _ = writeln!(targets, "\n**{column}**:\n");
            report_targets(&mut targets, &rows, a.threads.iter().max().copied(), mib);
            for row in &rows {
                if let (Ok(m), Some(t), "ibdscope") = (&row.result, row.threads, row.tool.as_str())
                {
                    scaling.push((column.clone(), row.what.clone(), t, m.median, mib));
                    if let CacheState::Read = state {
                        memory.push((row.what.clone(), t, mib, m.rss_kib, m.anon_kib));
                    }
                }
            }
            columns.push(column);
            if file != *path {
                let _ = std::fs::remove_file(&file);
            }
        }
        report_lib(&mut r, &a, path, len, mib);
    }
    let decoded = report_decoding(&mut r, &a);
    let default = a.threads.iter().max().copied().unwrap_or(1);
    let _ = writeln!(
        r,
        "\n## Targets (speed and memory), ibdscope at {default} threads\n{targets}"
    );
    if !decoded.is_empty() {
        let _ = writeln!(
            r,
            "**Decryption (MariaDB `--key-file`, page cache filled by reading the file)**:\n\n{decoded}"
        );
    }
    report_scaling(&mut r, &a, &columns, &scaling);
    report_memory(&mut r, &memory);
    let _ = writeln!(r, "\n- load average at end: {}", loadavg());
    let _ = writeln!(
        r,
        "- other processes used {} while this ran (steal time included): \
         the higher, the less the 2-thread figures mean",
        others_share(cpu_start, cpu_ticks(), wall_start.elapsed())
    );
    println!("{r}");
    if let Some(out) = &a.out {
        if let Err(e) = std::fs::write(out, &r) {
            eprintln!("ibdscope-bench: {}: {e}", out.display());
            std::process::exit(2);
        }
        eprintln!("written to {}", out.display());
    }
}

/// `(column, command, threads, median, MiB)` for the scaling table.
type Scaled = (String, String, usize, Duration, f64);

/// `(command, threads, file MiB, peak RSS KiB, peak anon KiB)` for the
/// memory table (read state).
type Memory = (String, usize, f64, Option<u64>, Option<u64>);

/// How the file's bytes sit in the page cache when the runs start. The two
/// differ by up to 2× for every tool on the same kernel: pages read from
/// disk come in large folios (mapped with few faults, even 2 MiB at a
/// time), pages a program wrote in 16 KiB pieces stay small folios.
#[derive(Clone, Copy)]
enum CacheState {
    /// Dropped from the cache, then read once with `cat`.
    Read,
    /// A copy written in 16 KiB writes and synced, as a server leaves the
    /// pages it wrote.
    Written,
}

impl CacheState {
    fn short(self) -> &'static str {
        match self {
            CacheState::Read => "read",
            CacheState::Written => "written",
        }
    }
    fn title(self) -> &'static str {
        match self {
            CacheState::Read => {
                "Page cache filled by reading the file (dropped with `dd iflag=nocache`, then `cat` once)"
            }
            CacheState::Written => {
                "Page cache as a writer leaves it (a copy written in 16 KiB writes, then synced)"
            }
        }
    }
    /// Puts `path` in this state; returns the file to run on.
    fn prepare(self, path: &Path) -> Result<PathBuf, String> {
        let run = |argv: &[&str]| {
            Command::new(argv[0])
                .args(&argv[1..])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .map_err(|e| format!("{}: {e}", argv[0]))
        };
        match self {
            CacheState::Read => {
                let p = path.display().to_string();
                let dropped = run(&["dd", &format!("if={p}"), "iflag=nocache", "count=0"])?;
                if !dropped.success() {
                    return Err("dd iflag=nocache could not drop the file from the cache".into());
                }
                run(&["cat", &p])?;
                Ok(path.to_path_buf())
            }
            CacheState::Written => {
                use std::io::{Read, Write};
                let copy = path.with_file_name(".ibdscope-bench-written-copy.ibd");
                let mut src = std::fs::File::open(path).map_err(|e| e.to_string())?;
                let mut dst = std::fs::File::create(&copy).map_err(|e| e.to_string())?;
                let mut buf = vec![0u8; 16 << 10];
                loop {
                    let n = src.read(&mut buf).map_err(|e| e.to_string())?;
                    if n == 0 {
                        break;
                    }
                    dst.write_all(&buf[..n]).map_err(|e| e.to_string())?;
                }
                dst.sync_all().map_err(|e| e.to_string())?;
                Ok(copy)
            }
        }
    }
}

/// Runs every case: first each one's checked warm-up, then `runs` rounds
/// that time every case once each, so load from elsewhere falls on all
/// cases alike and the ratios between them hold; then peak memory (one
/// more run each, unless `cold`). With `cold`, that file is dropped from
/// the page cache before every timed run, and the untimed checked run is
/// left out (the warm runs of the same cases check their output; the count
/// is then 0).
fn run_cases(runs: usize, cases: Vec<Case>, pages: u64, cold: Option<&Path>) -> Vec<Row> {
    struct Times {
        count: u64,
        wall: Vec<Duration>,
        cpu: Vec<Option<Duration>>,
        load: (f64, f64),
    }
    let mut state: Vec<Result<Times, String>> = cases
        .iter()
        .map(|c| {
            // cold runs repeat cases whose output a warm group checked
            let count = match cold {
                Some(_) => Ok(0),
                None => warm_up(c, pages),
            };
            count.map(|count| Times {
                count,
                wall: Vec::with_capacity(runs),
                cpu: Vec::with_capacity(runs),
                load: (f64::INFINITY, f64::NEG_INFINITY),
            })
        })
        .collect();
    for _ in 0..runs {
        for (c, st) in cases.iter().zip(state.iter_mut()) {
            if let Ok(times) = st {
                if let Some(f) = cold {
                    if let Err(e) = evict(f) {
                        *st = Err(e);
                        continue;
                    }
                }
                let l = load1();
                times.load = (times.load.0.min(l), times.load.1.max(l));
                match timed_run(c) {
                    Ok((t, cpu)) => {
                        times.wall.push(t);
                        times.cpu.push(cpu);
                    }
                    Err(e) => *st = Err(e),
                }
            }
        }
    }
    let mut rows = Vec::new();
    for (c, st) in cases.into_iter().zip(state) {
        let result = st.map(|t| {
            let (rss_kib, anon_kib, file_kib) = if cold.is_some() || c.extra.no_memory {
                (None, None, None)
            } else {
                memory(&c.argv)
            };
            Measured {
                median: median(&t.wall),
                min: t.wall.iter().copied().min().unwrap_or_default(),
                cpu: t
                    .cpu
                    .iter()
                    .copied()
                    .collect::<Option<Vec<_>>>()
                    .map(|c| median(&c)),
                rss_kib,
                anon_kib,
                file_kib,
                count: t.count,
                load: t.load,
            }
        });
        let name = format!(
            "{}{}",
            c.what,
            c.threads.map_or(String::new(), |t| format!(" -t{t}"))
        );
        match &result {
            Ok(m) => eprintln!("{:<12} {name:<24} {:>8.1} ms", c.tool, ms(m.median)),
            Err(e) => eprintln!("{:<12} {name:<24} FAILED: {e}", c.tool),
        }
        rows.push(Row {
            tool: c.tool,
            what: c.what,
            threads: c.threads,
            result,
        });
    }
    rows
}

fn report_rows(r: &mut String, rows: &[Row], mib: f64) {
    let _ = writeln!(
        r,
        "| tool | command | threads | median ms | min ms | MiB/s | ÷ innochecksum | ÷ cat | peak RSS MiB | of it anon MiB | count |"
    );
    let _ = writeln!(r, "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    let cat = find(rows, "cat", "cat", None);
    let ic = find(rows, "innochecksum", "innochecksum", None);
    for row in rows {
        let t = row.threads.map_or("–".into(), |t| t.to_string());
        match &row.result {
            Ok(m) => {
                let _ = writeln!(
                    r,
                    "| {} | {} | {t} | {:.1} | {:.1} | {:.0} | {} | {} | {} | {} | {} |",
                    row.tool,
                    row.what,
                    ms(m.median),
                    ms(m.min),
                    mib / m.median.as_secs_f64(),
                    fmt_ratio(ratio(Some(m), ic)),
                    fmt_ratio(ratio(Some(m), cat)),
                    mib_of(m.rss_kib),
                    mib_of(m.anon_kib),
                    m.count
                );
            }
            Err(e) => {
                let _ = writeln!(
                    r,
                    "| {} | {} | {t} | failed: {e} | | | | | | | |",
                    row.tool, row.what
                );
            }
        }
    }
}

fn mib_of(kib: Option<u64>) -> String {
    kib.map_or("?".into(), |k| format!("{:.1}", k as f64 / 1024.0))
}

/// innodb_ruby's scan rate, MiB/s: about 40 (../shared/ENVIRONMENT.md;
/// a lower figure, 22 MB/s, was also reported). Not installable here (no RubyGems), so the target
/// "≥ 100× innodb_ruby's rate" is checked against this published figure.
const INNODB_RUBY_MIB_S: f64 = 40.0;

fn report_targets(targets: &mut String, rows: &[Row], threads: Option<usize>, mib: f64) {
    let cat = find(rows, "cat", "cat", None);
    let ic = find(rows, "innochecksum", "innochecksum", None);
    let ib = |cmd: &str| find(rows, "ibdscope", cmd, threads);
    let check = ib("check");
    let mut goals: Vec<(String, Option<&Measured>, Option<&Measured>, f64)> = vec![
        ("check ≤ 0.5 × innochecksum".into(), check, ic, 0.5),
        ("check ≤ cat".into(), check, cat, 1.0),
    ];
    for cmd in ONE_PASS {
        goals.push((format!("{cmd} ≤ 1.5 × check"), ib(cmd), check, 1.5));
    }
    goals.push(("info ≤ 1.5 × check".into(), ib("info"), check, 1.5));
    goals.push((
        "check faster than `inno checksum`".into(),
        check,
        find(rows, "inno", "inno checksum", None),
        1.0,
    ));
    goals.push((
        "types faster than `inno parse`".into(),
        ib("types"),
        find(rows, "inno", "inno parse", None),
        1.0,
    ));
    for (goal, x, y, limit) in goals {
        let _ = writeln!(targets, "- {goal}: {}", verdict(ratio(x, y), limit));
    }
    for cmd in ONE_PASS {
        let rate = ib(cmd).map(|m| mib / m.median.as_secs_f64());
        let _ = writeln!(
            targets,
            "- {cmd} ≥ 100 × innodb_ruby ({INNODB_RUBY_MIB_S:.0} MiB/s): {}",
            match rate {
                Some(r) if r >= 100.0 * INNODB_RUBY_MIB_S => {
                    format!("met ({:.0}×)", r / INNODB_RUBY_MIB_S)
                }
                Some(r) => format!("**missed** ({:.0}×)", r / INNODB_RUBY_MIB_S),
                None => "not measured".into(),
            }
        );
    }
}

/// The commands held to 1.5 × `check` and 100 × innodb_ruby.
const ONE_PASS: [&str; 5] = ["types", "extents", "lsn", "fill", "indexes"];

fn report_lib(r: &mut String, a: &Args, path: &Path, len: u64, mib: f64) {
    if len > a.lib_max_mib.saturating_mul(1 << 20) {
        let _ = writeln!(
            r,
            "\nLibrary cases skipped: the file is over --lib-max-mib {} (they read it into memory).",
            a.lib_max_mib
        );
        return;
    }
    eprintln!("library cases on an in-memory copy");
    let data = match std::fs::read(path) {
        Ok(d) => d,
        Err(e) => {
            let _ = writeln!(r, "\nLibrary cases skipped: {e}");
            return;
        }
    };
    let _ = writeln!(
        r,
        "\n### Library, on an in-memory copy (no page faults, no process start)\n"
    );
    let _ = writeln!(r, "| case | threads | median ms | min ms | MiB/s |");
    let _ = writeln!(r, "|---|---|---:|---:|---:|");
    for (name, t, res) in lib_cases(a, &data) {
        let t = t.map_or("–".into(), |t| t.to_string());
        match res {
            Ok((med, min)) => {
                let _ = writeln!(
                    r,
                    "| {name} | {t} | {:.1} | {:.1} | {:.0} |",
                    ms(med),
                    ms(min),
                    mib / med.as_secs_f64()
                );
            }
            Err(e) => {
                let _ = writeln!(r, "| {name} | {t} | failed: {e} | | |");
            }
        }
    }
}

fn report_scaling(r: &mut String, a: &Args, columns: &[String], scaling: &[Scaled]) {
    let _ = writeln!(r, "\n## Scaling: ibdscope, median ms (MiB/s)\n");
    let mut header = "| command | threads |".to_string();
    let mut rule = "|---|---|".to_string();
    for c in columns {
        let _ = write!(header, " {c} |");
        rule.push_str("---:|");
    }
    let _ = writeln!(r, "{header}\n{rule}");
    for cmd in [
        "check", "types", "info", "extents", "lsn", "fill", "indexes", "pages", "records",
    ] {
        for &t in &a.threads {
            let mut line = format!("| {cmd} | {t} |");
            for c in columns {
                match scaling.iter().find(|s| &s.0 == c && s.1 == cmd && s.2 == t) {
                    Some((_, _, _, d, mib)) => {
                        let _ = write!(line, " {:.1} ({:.0}) |", ms(*d), mib / d.as_secs_f64());
                    }
                    None => line.push_str(" – |"),
                }
            }
            let _ = writeln!(r, "{line}");
        }
    }
}

/// Peak RSS and anonymous memory of each ibdscope command per input size,
/// and how much the anonymous memory grew from the smallest input to the
/// largest, per GiB of file: the memory target, "must not grow with file
/// size beyond the mapped pages the kernel keeps".
fn report_memory(r: &mut String, memory: &[Memory]) {
    let mut sizes: Vec<f64> = memory.iter().map(|m| m.2).collect();
    sizes.sort_by(f64::total_cmp);
    sizes.dedup();
    if sizes.len() < 2 {
        return;
    }
    let _ = writeln!(
        r,
        "\n## Memory: ibdscope, peak RSS / anon MiB (page cache filled by reading)\n"
    );
    let mut header = "| command | threads |".to_string();
    let mut rule = "|---|---|".to_string();
    for s in &sizes {
        let _ = write!(header, " {s:.0} MiB |");
        rule.push_str("---:|");
    }
    header.push_str(" anon growth, KiB per GiB of file |");
    rule.push_str("---:|");
    let _ = writeln!(r, "{header}\n{rule}");
    let mut keys: Vec<(String, usize)> = memory.iter().map(|m| (m.0.clone(), m.1)).collect();
    keys.dedup();
    keys.sort();
    keys.dedup();
    let mib = |k: Option<u64>| k.map_or("–".to_string(), |k| format!("{:.1}", k as f64 / 1024.0));
    for (cmd, t) in keys {
        let mut line = format!("| {cmd} | {t} |");
        let mine: Vec<&Memory> = memory.iter().filter(|m| m.0 == cmd && m.1 == t).collect();
        for s in &sizes {
            match mine.iter().find(|m| m.2 == *s) {
                Some(m) => {
                    let _ = write!(line, " {} / {} |", mib(m.3), mib(m.4));
                }
                None => line.push_str(" – |"),
            }
        }
        let small = mine.iter().min_by(|a, b| a.2.total_cmp(&b.2));
        let big = mine.iter().max_by(|a, b| a.2.total_cmp(&b.2));
        match (small, big) {
            (Some(a), Some(b)) if b.2 > a.2 => match (a.4, b.4) {
                (Some(x), Some(y)) => {
                    let per_gib = (y as f64 - x as f64) / ((b.2 - a.2) / 1024.0);
                    let _ = write!(line, " {per_gib:.0} |");
                }
                _ => line.push_str(" – |"),
            },
            _ => line.push_str(" – |"),
        }
        let _ = writeln!(r, "{line}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_odd_and_even_counts() {
        let d = |v: &[u64]| {
            v.iter()
                .map(|&x| Duration::from_millis(x))
                .collect::<Vec<_>>()
        };
        assert_eq!(median(&d(&[5, 1, 3])), Duration::from_millis(3));
        assert_eq!(median(&d(&[4, 1, 3, 2])), Duration::from_millis(3));
        assert_eq!(median(&[]), Duration::ZERO);
    }

    #[test]
    fn numbers_are_read_after_their_marker() {
        assert_eq!(number_after("f.ibd: 31 pages: 30 valid", ": "), Some(31));
        assert_eq!(number_after("total      31  100.0%", "total"), Some(31));
        assert_eq!(
            number_after("pages               31 (507904 bytes)", "pages"),
            Some(31)
        );
        assert_eq!(number_after("nothing here", "total"), None);
    }
}

/// Decryption target: MB/s (10^6 bytes) per thread with AES-NI.
const DECRYPT_MB_S_PER_THREAD: f64 = 2000.0;

/// An input and its label.
type Labelled = (String, PathBuf);

/// What a decoding input is and how ibdscope reads it.
#[derive(Clone, Copy, PartialEq)]
enum Decoding {
    /// MariaDB file_key_management (`--key-file`).
    MariaDbCrypt,
    /// MariaDB page_compressed.
    PageComp,
    /// MySQL/Percona keyring (`--keyring`).
    Keyring,
}

/// The cases of one decoding input: `cat`, the plain `check` (it reads
/// the physical pages: a MariaDB encrypted or page_compressed page's
/// checksum covers its stored bytes) and the commands that build the
/// decrypted or decompressed image of every page, at each thread count.
fn decoding_cases(a: &Args, file: &Path, kind: Decoding) -> Vec<Case> {
    let f = file.display().to_string();
    let mut v = vec![Case {
        tool: "cat".into(),
        what: "cat FILE > /dev/null".into(),
        threads: None,
        argv: vec!["cat".into(), f.clone()],
        count: Count::ExitOk,
        extra: Extra::default(),
    }];
    let key: Vec<String> = match kind {
        Decoding::MariaDbCrypt => a
            .key_file
            .iter()
            .flat_map(|k| ["--key-file".into(), k.display().to_string()])
            .collect(),
        Decoding::Keyring => a
            .keyring
            .iter()
            .flat_map(|k| ["--keyring".into(), k.display().to_string()])
            .collect(),
        Decoding::PageComp => Vec::new(),
    };
    let commands: Vec<(&str, bool, Count)> = match kind {
        // `check --keyring` decrypts every page before verifying it
        Decoding::Keyring => vec![
            ("check", true, Count::Pages(": ")),
            ("indexes", true, Count::Rows),
        ],
        // `check --key-file` verifies the stored pages and decrypts every
        // encrypted page in the same pass
        Decoding::MariaDbCrypt => vec![
            ("check", false, Count::Pages(": ")),
            ("check", true, Count::Pages(": ")),
            ("indexes", true, Count::Rows),
        ],
        _ => vec![
            ("check", false, Count::Pages(": ")),
            ("indexes", true, Count::Rows),
        ],
    };
    for t in &a.threads {
        for (cmd, keyed, count) in &commands {
            let mut argv = vec![
                a.ibdscope.display().to_string(),
                "--threads".into(),
                t.to_string(),
            ];
            if *keyed {
                argv.extend(key.iter().cloned());
            }
            argv.push(cmd.to_string());
            argv.push(f.clone());
            let what = match (keyed, kind) {
                (true, Decoding::MariaDbCrypt) => format!("{cmd} --key-file K"),
                (true, Decoding::Keyring) => format!("{cmd} --keyring K"),
                _ => cmd.to_string(),
            };
            v.push(Case {
                tool: "ibdscope".into(),
                what,
                threads: Some(*t),
                argv,
                count: *count,
                extra: Extra::default(),
            });
        }
    }
    v
}

/// The decryption and decompression section: each input in the read
/// state, its rows, and the targets; returns the targets' lines.
fn report_decoding(r: &mut String, a: &Args) -> String {
    let groups: [(Decoding, &[Labelled], &str); 3] = [
        (
            Decoding::MariaDbCrypt,
            &a.crypt,
            "MariaDB encryption (file_key_management, `--key-file`)",
        ),
        (
            Decoding::PageComp,
            &a.pagecomp,
            "MariaDB page_compressed, one table per provider",
        ),
        (
            Decoding::Keyring,
            &a.keyring_files,
            "MySQL/Percona encryption (`--keyring`): **small files**, start-up cost dominates",
        ),
    ];
    let mut targets = String::new();
    if groups.iter().all(|g| g.1.is_empty()) {
        return targets;
    }
    let _ = writeln!(
        r,
        "\n## Decryption and decompression\n\n\
         Page cache filled by reading the file. MiB/s is of the logical image \
         (pages × page size: the decrypted or decompressed pages the command \
         builds, the file's apparent size), per thread in MB/s (10^6 bytes). \
         `check` without a key verifies the stored pages of an encrypted \
         MariaDB space without decrypting them (full_crc32 checksums cover the \
         encrypted bytes), but on a page_compressed space its time follows the \
         algorithm: it decompresses the pages as well. `check --key-file` \
         verifies the stored pages and, in the same pass, decrypts every \
         encrypted page and judges it as the server does after reading it. \
         `indexes` with a key \
         decrypts every page, and on a page_compressed space decompresses every \
         page, into an image in memory, then walks the B-trees of that image \
         (the walk is part of the rate). CPU s: the median CPU time of the run \
         (user + system, all threads; 10 ms ticks), and MB/s per CPU s the \
         rate per core busy, which other load on a shared machine does not \
         change as it changes the wall time. ÷ cat and ÷ check: this \
         command's time over theirs (check at the same thread count)."
    );
    for (kind, inputs, title) in groups {
        if inputs.is_empty() {
            continue;
        }
        let _ = writeln!(r, "\n### {title}\n");
        let _ = writeln!(
            r,
            "| input | MiB | command | threads | median ms | min ms | MiB/s | MB/s per thread | CPU s | MB/s per CPU s | ÷ cat | ÷ check | count |"
        );
        let _ = writeln!(
            r,
            "|---|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
        );
        for (label, path) in inputs {
            let (_, pages, len) = match page_info(path) {
                Ok(x) => x,
                Err(e) => {
                    let _ = writeln!(r, "| {label} | | skipped: {e} | | | | | | | | | | |");
                    continue;
                }
            };
            let mib = len as f64 / MIB;
            // page_compressed files are sparse (the server punches the
            // tail of each page): their blocks on disk
            let disk = {
                use std::os::unix::fs::MetadataExt;
                std::fs::metadata(path).map_or(String::new(), |m| {
                    let d = m.blocks() as f64 * 512.0 / MIB;
                    if mib >= 1.0 && d < mib * 0.95 {
                        format!(" ({d:.1} on disk)")
                    } else {
                        String::new()
                    }
                })
            };
            eprintln!("\n== decoding {label}: {} ({mib:.0} MiB)", path.display());
            if let Err(e) = CacheState::Read.prepare(path) {
                let _ = writeln!(r, "| {label} | | skipped: {e} | | | | | | | | | | |");
                continue;
            }
            let rows = run_cases(a.runs, decoding_cases(a, path, kind), pages, None);
            let cat = find(&rows, "cat", "cat", None);
            for row in &rows {
                let t = row.threads.map_or("–".into(), |t| t.to_string());
                match &row.result {
                    Ok(m) => {
                        let secs = m.median.as_secs_f64();
                        let check = row
                            .threads
                            .and_then(|t| find(&rows, "ibdscope", "check", Some(t)));
                        let per_thread = len as f64 / 1e6 / secs / row.threads.unwrap_or(1) as f64;
                        let cpu = m
                            .cpu
                            .map_or("?".into(), |c| format!("{:.2}", c.as_secs_f64()));
                        let per_cpu = m.cpu.filter(|c| !c.is_zero()).map_or("?".into(), |c| {
                            format!("{:.0}", len as f64 / 1e6 / c.as_secs_f64())
                        });
                        let _ = writeln!(
                            r,
                            "| {label} | {mib:.1}{disk} | {} | {t} | {:.1} | {:.1} | {:.0} | {per_thread:.0} | {cpu} | {per_cpu} | {} | {} | {} |",
                            row.what,
                            ms(m.median),
                            ms(m.min),
                            mib / secs,
                            fmt_ratio(ratio(Some(m), cat)),
                            if row.what == "check" { "–".into() } else { fmt_ratio(ratio(Some(m), check)) },
                            m.count
                        );
                        if kind == Decoding::MariaDbCrypt && row.what.contains("--key-file") {
                            let cmd = &row.what;
                            let cpu_rate =
                                m.cpu.filter(|c| !c.is_zero()).map_or(String::new(), |c| {
                                    format!(
                                        ", {:.0} MB/s per CPU second",
                                        len as f64 / 1e6 / c.as_secs_f64()
                                    )
                                });
                            let _ = writeln!(
                                targets,
                                "- decryption ≥ {:.0} GB/s per thread with AES-NI ({label}, `{cmd}`, {t} thread{}): {}",
                                DECRYPT_MB_S_PER_THREAD / 1000.0,
                                if t == "1" { "" } else { "s" },
                                if per_thread >= DECRYPT_MB_S_PER_THREAD {
                                    format!("met ({per_thread:.0} MB/s per thread{cpu_rate})")
                                } else {
                                    format!("**missed** ({per_thread:.0} MB/s per thread{cpu_rate})")
                                }
                            );
                        }
                    }
                    Err(e) => {
                        let _ = writeln!(
                            r,
                            "| {label} | {mib:.1}{disk} | {} | {t} | failed: {e} | | | | | | | | |",
                            row.what
                        );
                    }
                }
            }
        }
    }
    targets
}
