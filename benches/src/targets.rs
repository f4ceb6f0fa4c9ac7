//! `ibdscope-bench targets`: every row of the speed and memory targets in
//! one run, each with its target, its figure, met or missed and the load
//! average while it ran. `benches/run-all` builds the inputs, starts the
//! server on the bench table and calls this (see benches/README.md).
//!
//! The timing, the checks of each command's output and the memory runs are
//! the harness's own (`run_cases` in main.rs); this module chooses the
//! cases and judges them.
//!
//! ```text
//! ibdscope-bench targets --ibdscope BIN --bench FILE.ibd --outdir DIR \
//!     [--server-socket S --server-pid PID --server-table DB.TABLE] \
//!     [--runs 3] [--cold-runs 2] [--threads 1,2] \
//!     [--crypt LABEL=PATH]... [--key-file K] [--keyring K --keyring-file LABEL=PATH]... \
//!     [--pagecomp ALGO=PATH]... [--codecs REPORT.md] [--scale LABEL=PATH]... \
//!     [--note TEXT]... [--out FILE.md]
//! ```

use super::{
    labelled, loadavg, machine, page_info, run_cases, version, Case, Count, Extra, Measured, Row,
    MIB,
};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Private (anonymous) memory target, MiB.
const PRIVATE_MIB: f64 = 64.0;
/// Decryption target: bytes of logical pages per CPU second (one core).
const DECRYPT_PER_CORE: f64 = 2e9;

struct Args {
    ibdscope: PathBuf,
    bench: Option<PathBuf>,
    outdir: PathBuf,
    server_socket: Option<String>,
    server_pid: Option<u32>,
    server_table: String,
    runs: usize,
    cold_runs: usize,
    threads: Vec<usize>,
    crypt: Vec<(String, PathBuf)>,
    key_file: Option<PathBuf>,
    keyring: Option<PathBuf>,
    keyring_files: Vec<(String, PathBuf)>,
    pagecomp: Vec<(String, PathBuf)>,
    codecs: Option<PathBuf>,
    scale: Vec<(String, PathBuf)>,
    notes: Vec<String>,
    out: Option<PathBuf>,
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        ibdscope: PathBuf::from("target/release/ibdscope"),
        bench: None,
        outdir: std::env::temp_dir(),
        server_socket: None,
        server_pid: None,
        server_table: "fx.bench".into(),
        runs: 3,
        cold_runs: 2,
        threads: vec![1, 2],
        crypt: Vec::new(),
        key_file: None,
        keyring: None,
        keyring_files: Vec::new(),
        pagecomp: Vec::new(),
        codecs: None,
        scale: Vec::new(),
        notes: Vec::new(),
        out: None,
    };
    let mut it = std::env::args().skip(2);
    while let Some(arg) = it.next() {
        let mut val = || it.next().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--ibdscope" => a.ibdscope = PathBuf::from(val()?),
            "--bench" => a.bench = Some(PathBuf::from(val()?)),
            "--outdir" => a.outdir = PathBuf::from(val()?),
            "--server-socket" => a.server_socket = Some(val()?),
            "--server-pid" => a.server_pid = Some(val()?.parse().map_err(|_| "--server-pid N")?),
            "--server-table" => a.server_table = val()?,
            "--runs" => a.runs = val()?.parse().map_err(|_| "--runs N")?,
            "--cold-runs" => a.cold_runs = val()?.parse().map_err(|_| "--cold-runs N")?,
            "--threads" => {
                a.threads = val()?
                    .split(',')
                    .map(|t| t.parse().map_err(|_| "--threads 1,2".to_string()))
                    .collect::<Result<_, _>>()?
            }
            "--crypt" => a.crypt.push(labelled(val()?)?),
            "--key-file" => a.key_file = Some(PathBuf::from(val()?)),
            "--keyring" => a.keyring = Some(PathBuf::from(val()?)),
            "--keyring-file" => a.keyring_files.push(labelled(val()?)?),
            "--pagecomp" => a.pagecomp.push(labelled(val()?)?),
            "--codecs" => a.codecs = Some(PathBuf::from(val()?)),
            "--scale" => a.scale.push(labelled(val()?)?),
            "--note" => a.notes.push(val()?),
            "--out" => a.out = Some(PathBuf::from(val()?)),
            other => return Err(format!("unknown argument {other}")),
        }
    }
    if a.runs == 0 || a.threads.is_empty() || a.threads.contains(&0) {
        return Err("--runs and --threads must be positive".into());
    }
    if !a.crypt.is_empty() && a.key_file.is_none() {
        return Err("--crypt needs --key-file".into());
    }
    if !a.keyring_files.is_empty() && a.keyring.is_none() {
        return Err("--keyring-file needs --keyring".into());
    }
    Ok(a)
}

/// One row of the targets table.
struct Target {
    section: &'static str,
    case: String,
    target: String,
    measured: String,
    met: Option<bool>,
    load: String,
}

fn load_of(ms: &[Option<&Measured>]) -> String {
    let (lo, hi) = ms
        .iter()
        .flatten()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), m| {
            (lo.min(m.load.0), hi.max(m.load.1))
        });
    if lo.is_finite() {
        format!("{lo:.1}–{hi:.1}")
    } else {
        "–".into()
    }
}

fn get<'r>(rows: &'r [Row], tool: &str, what: &str, t: Option<usize>) -> Option<&'r Measured> {
    rows.iter()
        .find(|r| r.tool == tool && r.what == what && r.threads == t)
        .and_then(|r| r.result.as_ref().ok())
}

fn secs(m: &Measured) -> f64 {
    m.median.as_secs_f64()
}

fn cpu_secs(m: &Measured) -> Option<f64> {
    m.cpu.map(|c| c.as_secs_f64()).filter(|&c| c > 0.0)
}

fn mib_k(k: Option<u64>) -> String {
    k.map_or("–".into(), |k| format!("{:.1}", k as f64 / 1024.0))
}

fn name(p: &Path) -> String {
    p.file_name()
        .map_or("?".into(), |n| n.to_string_lossy().into_owned())
}

/// An ibdscope case: `BIN --threads T [pre] CMD [args] FILE [post]`.
fn ib(a: &Args, t: usize, what: &str, pre: &[String], cmd: &[&str], files: &[&Path]) -> Case {
    let mut argv = vec![
        a.ibdscope.display().to_string(),
        "--threads".into(),
        t.to_string(),
    ];
    argv.extend(pre.iter().cloned());
    argv.extend(cmd.iter().map(|s| s.to_string()));
    argv.extend(files.iter().map(|f| f.display().to_string()));
    let count = match cmd.first().copied() {
        Some("check") => Count::Pages(": "),
        Some("types") => Count::Pages("total"),
        Some("info") => Count::Pages("pages"),
        Some("pages" | "records" | "rows") => Count::Lines,
        _ => Count::Rows,
    };
    Case {
        tool: "ibdscope".into(),
        what: what.into(),
        threads: Some(t),
        argv,
        count,
        extra: Extra::default(),
    }
}

fn reader(tool: &str, argv: Vec<String>) -> Case {
    Case {
        tool: tool.into(),
        what: tool.into(),
        threads: None,
        argv,
        count: Count::ExitOk,
        extra: Extra::default(),
    }
}

fn cat(f: &Path) -> Case {
    reader("cat", vec!["cat".into(), f.display().to_string()])
}

fn dd(f: &Path) -> Case {
    reader(
        "dd",
        vec![
            "dd".into(),
            format!("if={}", f.display()),
            "of=/dev/null".into(),
            "bs=1M".into(),
        ],
    )
}

/// The whole-file commands held to 1.3 × `cat`: (label, argv after
/// `--threads T`), the file appended (twice for `compare`).
const WHOLE_FILE: [(&str, &[&str]); 12] = [
    ("check", &["check"]),
    ("info", &["info"]),
    ("types", &["types"]),
    ("lsn", &["lsn", "--color", "never"]),
    ("extents", &["extents", "--color", "never"]),
    ("segments", &["segments"]),
    ("lists", &["lists"]),
    ("fill", &["fill", "--color", "never"]),
    ("indexes", &["indexes"]),
    ("indexes --levels", &["indexes", "--levels"]),
    ("pages", &["pages"]),
    ("compare big big", &["compare"]),
];

fn whole_file_cases(a: &Args, f: &Path, t: usize) -> Vec<Case> {
    WHOLE_FILE
        .iter()
        .map(|(what, cmd)| {
            let files: &[&Path] = if *what == "compare big big" {
                &[f, f]
            } else {
                &[f]
            };
            ib(a, t, what, &[], cmd, files)
        })
        .collect()
}

/// `rows --format tsv` with its output written to a file in the server's
/// output directory (as the server writes its dump), the same to
/// /dev/null, and `records` to /dev/null (its text is about 2.5× the
/// file: written to a file it would time the disk).
fn dump_cases(a: &Args, f: &Path, t: usize) -> Vec<Case> {
    let mut rows = ib(
        a,
        t,
        "rows --format tsv",
        &[],
        &["rows", "--format", "tsv"],
        &[f],
    );
    rows.extra.out = Some(a.outdir.join("ours-rows.tsv"));
    let null = ib(a, t, ROWS_NULL, &[], &["rows", "--format", "tsv"], &[f]);
    let recs = ib(a, t, "records", &[], &["records"], &[f]);
    vec![rows, null, recs]
}

/// `rows --format tsv` to /dev/null, as `records` runs.
const ROWS_NULL: &str = "rows --format tsv > /dev/null";

/// The server's own `SELECT * INTO OUTFILE` of the table; its CPU time is
/// the server's (from /proc/PID/stat).
fn server_case(a: &Args) -> Option<Case> {
    let (sock, pid) = (a.server_socket.as_ref()?, a.server_pid?);
    let out = a.outdir.join("server.tsv");
    let (db, table) = a.server_table.split_once('.')?;
    Some(Case {
        tool: "server".into(),
        what: "SELECT * INTO OUTFILE".into(),
        threads: None,
        argv: vec![
            "mariadb".into(),
            "--no-defaults".into(),
            format!("--socket={sock}"),
            "-uroot".into(),
            db.into(),
            "-e".into(),
            format!("SELECT * FROM {table} INTO OUTFILE '{}'", out.display()),
        ],
        count: Count::Dumped,
        extra: Extra {
            cleanup: Some(out),
            cpu_pid: Some(pid),
            no_memory: true,
            ..Extra::default()
        },
    })
}

/// The detail table of one group of rows.
fn detail(r: &mut String, rows: &[Row], base: Option<&Measured>, base_name: &str, bytes: f64) {
    let _ = writeln!(
        r,
        "| tool | command | threads | median s | min s | CPU s | MiB/s | ÷ {base_name} | peak RSS MiB | private (anon) MiB | file-backed MiB | load 1-min | count |"
    );
    let _ = writeln!(
        r,
        "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|"
    );
    for row in rows {
        let t = row.threads.map_or("–".into(), |t| t.to_string());
        match &row.result {
            Ok(m) => {
                let _ =
                    writeln!(
                    r,
                    "| {} | {} | {t} | {:.3} | {:.3} | {} | {:.0} | {} | {} | {} | {} | {} | {} |",
                    row.tool,
                    row.what,
                    secs(m),
                    m.min.as_secs_f64(),
                    cpu_secs(m).map_or("?".into(), |c| format!("{c:.2}")),
                    bytes / MIB / secs(m),
                    base.map_or("–".into(), |b| format!("{:.2}×", secs(m) / secs(b))),
                    mib_k(m.rss_kib),
                    mib_k(m.anon_kib),
                    mib_k(m.file_kib),
                    load_of(&[Some(m)]),
                    // cold runs repeat checked cases uncounted
                    if m.count == 0 { "–".into() } else { m.count.to_string() }
                );
            }
            Err(e) => {
                let _ = writeln!(
                    r,
                    "| {} | {} | {t} | failed: {e} | | | | | | | | | |",
                    row.tool, row.what
                );
            }
        }
    }
}

fn ratio_target(
    section: &'static str,
    case: String,
    x: Option<&Measured>,
    y: Option<&Measured>,
    limit: f64,
    y_name: &str,
) -> Target {
    let ratio = x.zip(y).map(|(x, y)| secs(x) / secs(y));
    Target {
        section,
        case,
        target: format!("≤ {limit}× {y_name}"),
        measured: match (ratio, x, y) {
            (Some(q), Some(x), Some(y)) => {
                format!("{q:.2}× ({:.2} s / {:.2} s)", secs(x), secs(y))
            }
            _ => "not measured".into(),
        },
        met: ratio.map(|q| q <= limit),
        load: load_of(&[x, y]),
    }
}

fn private_target(section: &'static str, case: String, m: Option<&Measured>) -> Target {
    let anon = m.and_then(|m| m.anon_kib).map(|k| k as f64 / 1024.0);
    Target {
        section,
        case,
        target: format!("private ≤ {PRIVATE_MIB:.0} MiB"),
        measured: anon.map_or("not measured".into(), |v| {
            format!(
                "{v:.1} MiB private, {} MiB file-backed",
                mib_k(m.and_then(|m| m.file_kib))
            )
        }),
        met: anon.map(|v| v <= PRIVATE_MIB),
        load: load_of(&[m]),
    }
}

/// The reference libraries' rates from run-codecs' report: codec →
/// (ours, reference) MiB per CPU second on 16 KiB pages: the bench file's
/// own pages when run-codecs timed them (thousands of distinct pages, the
/// same the end-to-end rows decode), else the fixture's pages looped.
fn codec_rates(report: &str) -> Vec<(String, f64, f64)> {
    let mut rates: Vec<(String, f64, f64)> = Vec::new();
    let mut bench: Vec<String> = Vec::new();
    for l in report.lines() {
        let c: Vec<&str> = l.split('|').map(str::trim).collect();
        let pages = c.get(2).copied();
        if c.len() < 6 || !matches!(pages, Some("16 KiB" | "16 KiB, bench pages")) {
            continue;
        }
        let (Some(codec), Some(Ok(ours)), Some(Ok(theirs))) = (
            c.get(1).and_then(|s| s.split_whitespace().next()),
            c.get(3).map(|s| s.parse()),
            c.get(4).map(|s| s.parse()),
        ) else {
            continue;
        };
        let is_bench = pages == Some("16 KiB, bench pages");
        if bench.iter().any(|b| b == codec) {
            continue;
        }
        rates.retain(|(c, _, _)| c != codec);
        if is_bench {
            bench.push(codec.to_string());
        }
        rates.push((codec.to_string(), ours, theirs));
    }
    rates
}

pub(crate) fn main() {
    let a = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("ibdscope-bench targets: {e}");
            std::process::exit(2);
        }
    };
    let started = Instant::now();
    let mut r = String::new();
    let mut targets: Vec<Target> = Vec::new();
    let maxt = a.threads.iter().max().copied().unwrap_or(1);
    let _ = writeln!(r, "# ibdscope: every target in one run\n");
    let _ = writeln!(r, "- machine: {}", machine());
    let _ = writeln!(r, "- ibdscope: {}", version(&a.ibdscope, &["--version"]));
    for n in &a.notes {
        let _ = writeln!(r, "- {n}");
    }
    let _ = writeln!(
        r,
        "- method: each group's commands run once untimed (output checked: page counts equal \
         the file's pages, line counts of `pages`/`records`/`rows`, exit 0), then {} warm \
         rounds ({} cold) in which every case of the group runs once, interleaved, so outside \
         load falls on all alike; median wall time; CPU s is the median user + system time of \
         all the command's threads (for the server: of `mariadbd` while it dumped); then one \
         more run for memory: peak RSS from `/usr/bin/time`, and the peaks of private \
         (RssAnon) and file-backed (RssFile + RssShmem) resident memory sampled from /proc \
         every 200 µs. Load: the lowest and highest 1-minute load average sampled before each \
         timed run of the case(s) a figure comes from.",
        a.runs, a.cold_runs
    );
    let _ = writeln!(r, "- load average at start: {}", loadavg());
    eprint!("{r}");
    let mut body = String::new();

    if let Some(bench) = &a.bench {
        bench_file(&a, bench, maxt, &mut body, &mut targets);
    }
    crypt(&a, &mut body, &mut targets);
    pagecomp(&a, &mut body, &mut targets);
    scaling(&a, maxt, &mut body, &mut targets);

    let met = targets.iter().filter(|t| t.met == Some(true)).count();
    let missed = targets.iter().filter(|t| t.met == Some(false)).count();
    let _ = writeln!(
        r,
        "\n## Targets: {met} met, {missed} missed, {} not measured\n",
        targets.len() - met - missed
    );
    let _ = writeln!(
        r,
        "| row of the table | case | target | measured | verdict | load 1-min |"
    );
    let _ = writeln!(r, "|---|---|---|---|---|---|");
    for t in &targets {
        let _ = writeln!(
            r,
            "| {} | {} | {} | {} | {} | {} |",
            t.section,
            t.case,
            t.target,
            t.measured,
            match t.met {
                Some(true) => "met",
                Some(false) => "**missed**",
                None => "not measured",
            },
            t.load
        );
    }
    r.push_str(&body);
    if let Some(c) = &a.codecs {
        if let Ok(text) = std::fs::read_to_string(c) {
            let _ = writeln!(r, "\n## Appendix: `benches/run-codecs` in the same run\n");
            for l in text.lines() {
                let l = l
                    .strip_prefix("# ")
                    .map_or(l.to_string(), |h| format!("### {h}"));
                let _ = writeln!(r, "{l}");
            }
        }
    }
    let _ = writeln!(
        r,
        "\n- load average at end: {} ({:.0} min)",
        loadavg(),
        started.elapsed().as_secs_f64() / 60.0
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

fn bench_file(a: &Args, f: &Path, maxt: usize, r: &mut String, targets: &mut Vec<Target>) {
    const S: &str = "bench file, warm";
    const C: &str = "cold (posix_fadvise DONTNEED)";
    let (_, pages, len) = match page_info(f) {
        Ok(x) => x,
        Err(e) => {
            let _ = writeln!(r, "\n## The bench file: skipped ({e})");
            return;
        }
    };
    let bytes = len as f64;
    let _ = writeln!(
        r,
        "\n## The bench file, warm: `{}`\n\n{len} bytes ({:.1} MiB), {pages} pages. \
         `rows --format tsv` writes its output to a file in the directory where the server \
         writes its dump (the page cache), deleted after each run, and once more to \
         /dev/null; every other command writes to /dev/null.\n",
        f.display(),
        bytes / MIB
    );
    let _ = std::fs::create_dir_all(&a.outdir);
    let mut cases = vec![cat(f)];
    cases.extend(server_case(a));
    for &t in &a.threads {
        cases.extend(whole_file_cases(a, f, t));
        cases.extend(dump_cases(a, f, t));
    }
    eprintln!("\n== bench file, warm: {}", f.display());
    let _ = super::evict(f);
    let _ = std::process::Command::new("cat")
        .arg(f)
        .stdout(std::process::Stdio::null())
        .status();
    let rows = run_cases(a.runs, cases, pages, None);
    let cat_m = get(&rows, "cat", "cat", None);
    detail(r, &rows, cat_m, "cat", bytes);
    let server = get(&rows, "server", "SELECT * INTO OUTFILE", None);
    for &t in &a.threads {
        for (what, _) in WHOLE_FILE {
            targets.push(ratio_target(
                S,
                format!("`{what}` -t{t}"),
                get(&rows, "ibdscope", what, Some(t)),
                cat_m,
                1.3,
                "`cat`",
            ));
        }
    }
    for &t in &a.threads {
        let rows_m = get(&rows, "ibdscope", "rows --format tsv", Some(t));
        let mut st = ratio_target(
            S,
            format!("`rows --format tsv` -t{t}"),
            rows_m,
            server,
            0.5,
            "the server's `SELECT … INTO OUTFILE`",
        );
        if let (Some(x), Some(y)) = (rows_m, server) {
            // `Count::Lines` leaves out a header line; the TSV has none
            if x.count + 1 != y.count {
                st.measured
                    .push_str(&format!(" — lines differ: {} vs {}", x.count + 1, y.count));
                st.met = Some(false);
            }
        }
        targets.push(st);
        targets.push(ratio_target(
            S,
            format!("`rows --format tsv` -t{t}"),
            rows_m,
            cat_m,
            6.0,
            "`cat`",
        ));
        targets.push(ratio_target(
            S,
            format!("`records` -t{t} (both to /dev/null)"),
            get(&rows, "ibdscope", "records", Some(t)),
            get(&rows, "ibdscope", ROWS_NULL, Some(t)),
            1.0,
            "`rows --format tsv`",
        ));
    }
    for &t in &a.threads {
        for (what, _) in WHOLE_FILE {
            targets.push(private_target(
                S,
                format!("`{what}` -t{t}"),
                get(&rows, "ibdscope", what, Some(t)),
            ));
        }
    }

    // Cold: every command at the highest thread count, the file dropped
    // from the page cache before each timed run.
    let mut cases = vec![dd(f)];
    cases.extend(whole_file_cases(a, f, maxt));
    cases.extend(
        dump_cases(a, f, maxt)
            .into_iter()
            .filter(|c| c.what != ROWS_NULL),
    );
    eprintln!("\n== bench file, cold: {}", f.display());
    let rows = run_cases(a.cold_runs, cases, pages, Some(f));
    let _ = writeln!(
        r,
        "\n## The bench file, cold, {maxt} threads\n\nThe file dropped from the page cache \
         (`dd iflag=nocache count=0`: posix_fadvise(POSIX_FADV_DONTNEED)) before every timed \
         run; {} rounds. Memory: see the warm table.\n",
        a.cold_runs
    );
    let dd_m = get(&rows, "dd", "dd", None);
    detail(r, &rows, dd_m, "dd", bytes);
    for what in WHOLE_FILE
        .iter()
        .map(|w| w.0)
        .chain(["rows --format tsv", "records"])
    {
        targets.push(ratio_target(
            C,
            format!("`{what}` -t{maxt}"),
            get(&rows, "ibdscope", what, Some(maxt)),
            dd_m,
            1.2,
            "`dd bs=1M`",
        ));
    }
}

/// Per-core rate target on logical bytes.
fn per_core_target(
    section: &'static str,
    case: String,
    m: Option<&Measured>,
    bytes: f64,
    want: f64,
    want_text: String,
) -> Target {
    // below 5 ticks of 10 ms the CPU time says too little
    let short = m.and_then(cpu_secs).is_none_or(|c| c < 0.05);
    let rate = m.and_then(cpu_secs).filter(|_| !short).map(|c| bytes / c);
    Target {
        section,
        case,
        target: want_text,
        measured: match (rate, m) {
            (Some(v), Some(m)) => format!(
                "{:.0} MB/s per CPU s ({:.2} CPU s, {:.2} s wall)",
                v / 1e6,
                cpu_secs(m).unwrap_or(0.0),
                secs(m)
            ),
            (None, Some(m)) if short => format!(
                "too short to measure ({:.3} s wall; CPU time counts in 10 ms ticks)",
                secs(m)
            ),
            _ => "not measured".into(),
        },
        met: rate.map(|v| v >= want),
        load: load_of(&[m]),
    }
}

fn crypt(a: &Args, r: &mut String, targets: &mut Vec<Target>) {
    const S: &str = "encrypted";
    let mut groups: Vec<(String, PathBuf, Vec<String>, &str)> = Vec::new();
    if let Some(k) = &a.key_file {
        for (label, p) in &a.crypt {
            let key = vec!["--key-file".into(), k.display().to_string()];
            groups.push((label.clone(), p.clone(), key, "--key-file"));
        }
    }
    if let Some(k) = &a.keyring {
        for (label, p) in &a.keyring_files {
            let key = vec!["--keyring".into(), k.display().to_string()];
            groups.push((label.clone(), p.clone(), key, "--keyring"));
        }
    }
    if groups.is_empty() {
        return;
    }
    let _ = writeln!(
        r,
        "\n## Encrypted spaces, warm\n\nRates are of the logical pages (pages × page size) \
         per CPU second of the command (all threads): a rate per core, which other load \
         changes less than wall time. `check` without a key verifies the stored pages only. \
         The Percona 8.0 files (`--keyring`) are the corpus's, tens of KiB: their runs \
         are start-up, too short for a rate; their memory is measured. The MySQL 8.0 \
         keyring files of ~1 and ~4 GiB are `benches/gen-inputs keyring`'s: the plain \
         table of the same rows in MySQL's page format, encrypted under the corpus \
         keyring's master key as the server's I/O layer encrypts (`ibdscope-bench \
         mysql-keyring`).\n"
    );
    for (label, p, key, flag) in groups {
        let Ok((_, pages, len)) = page_info(&p) else {
            let _ = writeln!(r, "- {label}: skipped (not a tablespace)");
            continue;
        };
        let mut cases = vec![cat(&p)];
        for &t in &a.threads {
            // a MariaDB space's stored pages verify without the key
            if flag == "--key-file" {
                cases.push(ib(a, t, "check", &[], &["check"], &[&p]));
            }
            for cmd in ["check", "indexes"] {
                cases.push(ib(a, t, &format!("{cmd} {flag} K"), &key, &[cmd], &[&p]));
            }
        }
        eprintln!("\n== encrypted {label}: {}", p.display());
        let _ = super::evict(&p);
        let _ = std::process::Command::new("cat")
            .arg(&p)
            .stdout(std::process::Stdio::null())
            .status();
        let rows = run_cases(a.runs, cases, pages, None);
        let _ = writeln!(
            r,
            "\n### {label}: `{}` ({:.1} MiB, {pages} pages)\n",
            name(&p),
            len as f64 / MIB
        );
        detail(r, &rows, get(&rows, "cat", "cat", None), "cat", len as f64);
        for &t in &a.threads {
            for cmd in ["check", "indexes"] {
                let what = format!("{cmd} {flag} K");
                let m = get(&rows, "ibdscope", &what, Some(t));
                targets.push(per_core_target(
                    S,
                    format!("{label} `{what}` -t{t}"),
                    m,
                    len as f64,
                    DECRYPT_PER_CORE,
                    "≥ 2 GB/s per core".into(),
                ));
                targets.push(private_target(S, format!("{label} `{what}` -t{t}"), m));
            }
        }
    }
}

fn pagecomp(a: &Args, r: &mut String, targets: &mut Vec<Target>) {
    const S: &str = "page_compressed";
    if a.pagecomp.is_empty() {
        return;
    }
    let refs = a
        .codecs
        .as_ref()
        .and_then(|c| std::fs::read_to_string(c).ok())
        .map(|t| codec_rates(&t))
        .unwrap_or_default();
    let _ = writeln!(
        r,
        "\n## page_compressed spaces, warm\n\nOne table per provider. Rates are of the \
         logical pages per CPU second (all threads). The reference library's rate is \
         `benches/run-codecs`' (same run, appendix): the C library alone decompressing the \
         bench file's own pages (its \"bench pages\" rows; the fixture's 16 KiB pages looped \
         when those were not timed) on one core, per CPU second.\n"
    );
    for (algo, p) in &a.pagecomp {
        let Ok((_, pages, len)) = page_info(p) else {
            let _ = writeln!(r, "- {algo}: skipped (not a tablespace)");
            continue;
        };
        let mut cases = vec![cat(p)];
        for &t in &a.threads {
            cases.push(ib(a, t, "check", &[], &["check"], &[p]));
            cases.push(ib(a, t, "indexes", &[], &["indexes"], &[p]));
        }
        eprintln!("\n== page_compressed {algo}: {}", p.display());
        let _ = super::evict(p);
        let _ = std::process::Command::new("cat")
            .arg(p)
            .stdout(std::process::Stdio::null())
            .status();
        let rows = run_cases(a.runs, cases, pages, None);
        let _ = writeln!(
            r,
            "\n### {algo}: `{}` ({:.1} MiB logical)\n",
            name(p),
            len as f64 / MIB
        );
        detail(r, &rows, get(&rows, "cat", "cat", None), "cat", len as f64);
        let reference = refs.iter().find(|(c, _, _)| c == algo);
        if let Some((_, ours, theirs)) = reference {
            let met = ours >= theirs;
            targets.push(Target {
                section: S,
                case: format!(
                    "{algo} decoder alone (run-codecs, 16 KiB pages; the bench file's when timed)"
                ),
                target: "≥ the reference library per core".into(),
                measured: format!("{ours:.0} MiB/s vs {theirs:.0} ({:.2}×)", ours / theirs),
                met: Some(met),
                load: "see appendix".into(),
            });
        }
        for &t in &a.threads {
            let check = get(&rows, "ibdscope", "check", Some(t));
            let idx = get(&rows, "ibdscope", "indexes", Some(t));
            let q = idx
                .and_then(cpu_secs)
                .zip(check.and_then(cpu_secs))
                .map(|(i, c)| i / c);
            targets.push(Target {
                section: S,
                case: format!("{algo} `indexes` -t{t}"),
                target: "CPU ≤ 1.2× `check`'s".into(),
                measured: match (q, idx.and_then(cpu_secs), check.and_then(cpu_secs)) {
                    (Some(q), Some(i), Some(c)) => format!("{q:.2}× ({i:.2} / {c:.2} CPU s)"),
                    _ => "not measured".into(),
                },
                met: q.map(|q| q <= 1.2),
                load: load_of(&[idx, check]),
            });
            for (what, m) in [("check", check), ("indexes", idx)] {
                if let Some((_, _, theirs)) = reference {
                    targets.push(per_core_target(
                        S,
                        format!("{algo} `{what}` -t{t}, end to end"),
                        m,
                        len as f64,
                        theirs * MIB,
                        format!(
                            "≥ the reference library's {:.0} MB/s per core",
                            theirs * MIB / 1e6
                        ),
                    ));
                }
                targets.push(private_target(S, format!("{algo} `{what}` -t{t}"), m));
            }
        }
    }
}

fn scaling(a: &Args, maxt: usize, r: &mut String, targets: &mut Vec<Target>) {
    const S: &str = "scaling";
    if a.scale.is_empty() {
        return;
    }
    // (size label, bytes, rows)
    let mut all: Vec<(String, f64, Vec<Row>)> = Vec::new();
    for (label, p) in &a.scale {
        let Ok((_, pages, len)) = page_info(p) else {
            let _ = writeln!(r, "- {label}: skipped (not a tablespace)");
            continue;
        };
        let mut cases = vec![cat(p)];
        cases.extend(whole_file_cases(a, p, maxt));
        eprintln!("\n== scaling {label}: {}", p.display());
        let _ = super::evict(p);
        let _ = std::process::Command::new("cat")
            .arg(p)
            .stdout(std::process::Stdio::null())
            .status();
        let rows = run_cases(a.runs, cases, pages, None);
        // the next size needs the page cache more than this one
        let _ = super::evict(p);
        all.push((label.clone(), len as f64, rows));
    }
    let _ = writeln!(
        r,
        "\n## Scaling, warm, {maxt} threads\n\nThe same table (`benches/gen-inputs plain`: \
         BIGINT key in key order, a UUID and ~80 bytes of text a row, full_crc32, no \
         secondary index) at each size. Each cell: median seconds, seconds per GiB, private \
         (anon) MiB, file-backed MiB. Linear: seconds per GiB at every size within 1.25× of \
         each other; flat: private memory grows ≤ 16 MiB from the smallest to the largest.\n"
    );
    let mut header = "| command |".to_string();
    let mut rule = "|---|".to_string();
    for (label, bytes, _) in &all {
        let _ = write!(header, " {label} ({:.0} MiB) |", bytes / MIB);
        rule.push_str("---:|");
    }
    let _ = writeln!(r, "{header}\n{rule}");
    let names: Vec<&str> = std::iter::once("cat")
        .chain(WHOLE_FILE.iter().map(|w| w.0))
        .collect();
    for what in names {
        let mut line = format!("| {what} |");
        let mut per_gib = Vec::new();
        let mut anon = Vec::new();
        let mut ms_all = Vec::new();
        for (_, bytes, rows) in &all {
            let m = if what == "cat" {
                get(rows, "cat", "cat", None)
            } else {
                get(rows, "ibdscope", what, Some(maxt))
            };
            match m {
                Some(m) => {
                    let g = secs(m) / (bytes / (MIB * 1024.0));
                    per_gib.push(g);
                    anon.extend(m.anon_kib.map(|k| k as f64 / 1024.0));
                    ms_all.push(m);
                    let _ = write!(
                        line,
                        " {:.2} s, {g:.2} s/GiB, {} / {} MiB |",
                        secs(m),
                        mib_k(m.anon_kib),
                        mib_k(m.file_kib)
                    );
                }
                None => line.push_str(" – |"),
            }
        }
        let _ = writeln!(r, "{line}");
        if what == "cat" || all.len() < 2 {
            continue;
        }
        let opt: Vec<Option<&Measured>> = ms_all.iter().map(|m| Some(*m)).collect();
        let (lo, hi) = per_gib
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), &g| {
                (l.min(g), h.max(g))
            });
        let figures = per_gib
            .iter()
            .map(|g| format!("{g:.2}"))
            .collect::<Vec<_>>()
            .join(", ");
        let complete = per_gib.len() == all.len();
        targets.push(Target {
            section: S,
            case: format!("`{what}` -t{maxt}, time"),
            target: "linear (s/GiB within 1.25×)".into(),
            measured: format!("s/GiB {figures} ({:.2}×)", hi / lo),
            met: complete.then_some(hi / lo <= 1.25),
            load: load_of(&opt),
        });
        let figures = anon
            .iter()
            .map(|v| format!("{v:.1}"))
            .collect::<Vec<_>>()
            .join(", ");
        let grow = anon.last().zip(anon.first()).map(|(l, f)| l - f);
        let span_gib = all
            .last()
            .zip(all.first())
            .map(|(l, f)| (l.1 - f.1) / (MIB * 1024.0));
        let per_gib = grow
            .zip(span_gib.filter(|&g| g > 0.0))
            .map_or(String::new(), |(g, s)| {
                format!(" (+{:.1} MiB per GiB)", g / s)
            });
        targets.push(Target {
            section: S,
            case: format!("`{what}` -t{maxt}, private memory"),
            target: "flat (grows ≤ 16 MiB)".into(),
            measured: format!("{figures} MiB{per_gib}"),
            met: grow.filter(|_| anon.len() == all.len()).map(|g| g <= 16.0),
            load: load_of(&opt),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::codec_rates;

    #[test]
    fn codec_rates_are_read_from_the_codecs_table() {
        // lines as benches/run-codecs writes them
        let report = "| codec | page size | ours MiB/s | reference MiB/s | ratio |\n\
                      |---|---|---:|---:|---:|\n\
                      | zlib | 16 KiB | 387.8 | 316.7 | 1.22 | 309.7 | 11 |\n\
                      | zlib | 64 KiB | 497.7 | 396.6 | 1.26 | 393.9 | 11 |\n\
                      | bzip2 (ref. small=0) | 16 KiB | 56.3 | 41.6 | 1.35 | 41.4 | 11 |\n\
                      | lz4 | 16 KiB, bench pages | 3000.0 | 4000.0 | 0.75 | 3900.0 | 11 |\n\
                      | lz4 | 16 KiB | 4100.0 | 4000.0 | 1.02 | 3900.0 | 11 |\n";
        assert_eq!(
            codec_rates(report),
            vec![
                ("zlib".to_string(), 387.8, 316.7),
                ("bzip2".to_string(), 56.3, 41.6),
                ("lz4".to_string(), 3000.0, 4000.0)
            ]
        );
    }
}
