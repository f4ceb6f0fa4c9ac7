//! `ibdscope-bench serve`: times each endpoint of `ibdscope serve` on the
//! bench files, from a fresh server (cold: the first request of a file
//! builds its model) and again (warm: the model kept), with the server's
//! CPU seconds per request (its /proc stat) and its private memory
//! (RssAnon) after each. `benches/run-serve` builds the release binary and
//! calls this (see benches/README.md).
//!
//! ```text
//! ibdscope-bench serve --ibdscope BIN --file LABEL=PATH... [--rounds 5]
//!     [--note TEXT]... [--out FILE.md]
//! ```

use super::{labelled, loadavg, machine, median};
use std::fmt::Write as _;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The page view target, ms.
const PAGE_MS: f64 = 50.0;
/// The overview target (cold, a 2 GB file), ms.
const OVERVIEW_MS: f64 = 1000.0;

struct Args {
    ibdscope: PathBuf,
    files: Vec<(String, PathBuf)>,
    rounds: usize,
    notes: Vec<String>,
    out: Option<PathBuf>,
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        ibdscope: PathBuf::from("target/release/ibdscope"),
        files: Vec::new(),
        rounds: 5,
        notes: Vec::new(),
        out: None,
    };
    let mut it = std::env::args().skip(2);
    while let Some(arg) = it.next() {
        let mut val = || it.next().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--ibdscope" => a.ibdscope = PathBuf::from(val()?),
            "--file" => a.files.push(labelled(val()?)?),
            "--rounds" => a.rounds = val()?.parse().map_err(|_| "--rounds N")?,
            "--note" => a.notes.push(val()?),
            "--out" => a.out = Some(PathBuf::from(val()?)),
            other => return Err(format!("unknown argument {other}")),
        }
    }
    if a.files.is_empty() || a.rounds == 0 {
        return Err("give --file LABEL=PATH and --rounds N > 0".into());
    }
    Ok(a)
}

/// A running `ibdscope serve`.
struct Served {
    child: Child,
    port: u16,
    token: String,
}

impl Served {
    fn start(bin: &PathBuf, file: &PathBuf) -> Result<Served, String> {
        let mut child = Command::new(bin)
            .arg("serve")
            .arg(file)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("{}: {e}", bin.display()))?;
        let mut line = String::new();
        let out = child.stdout.take().ok_or("no stdout")?;
        BufReader::new(out)
            .read_line(&mut line)
            .map_err(|e| e.to_string())?;
        // `ibdscope serve: http://127.0.0.1:PORT/?t=TOKEN`
        let rest = line.trim().rsplit("127.0.0.1:").next().unwrap_or("");
        let (port, token) = rest
            .split_once("/?t=")
            .ok_or(format!("no URL in {line:?}"))?;
        Ok(Served {
            port: port.parse().map_err(|_| format!("no port in {line:?}"))?,
            token: token.to_string(),
            child,
        })
    }

    /// GETs `path` (with its query, without the token): wall time, server
    /// CPU seconds, status, body length.
    fn get(&self, path: &str) -> Result<(Duration, f64, u16, usize), String> {
        let sep = if path.contains('?') { '&' } else { '?' };
        let cpu0 = cpu_seconds(self.child.id());
        let t = Instant::now();
        let mut s = TcpStream::connect(("127.0.0.1", self.port)).map_err(|e| e.to_string())?;
        write!(
            s,
            "GET {path}{sep}t={} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nConnection: close\r\n\r\n",
            self.token, self.port
        )
        .map_err(|e| e.to_string())?;
        let mut resp = Vec::new();
        s.read_to_end(&mut resp).map_err(|e| e.to_string())?;
        let wall = t.elapsed();
        let cpu = cpu_seconds(self.child.id()) - cpu0;
        let head_end = resp
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .ok_or("no head")?;
        let status = std::str::from_utf8(resp.get(9..12).unwrap_or(b""))
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        Ok((wall, cpu, status, resp.len() - head_end - 4))
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The overview on a fresh server, then `page` once the server's CPU
/// time stops growing (its model built in the background), as a line.
fn after_overview(bin: &PathBuf, file: &PathBuf, page: &str) -> String {
    let s = match Served::start(bin, file) {
        Ok(s) => s,
        Err(e) => return format!("after the overview: {e}"),
    };
    let Ok((ow, oc, 200, _)) = s.get("/api/files") else {
        return "after the overview: the overview failed".into();
    };
    let t = Instant::now();
    let cpu0 = cpu_seconds(s.child.id());
    let mut last = cpu0;
    let mut still = 0;
    while still < 3 && t.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(250));
        let now = cpu_seconds(s.child.id());
        still = if now > last { 0 } else { still + 1 };
        last = now;
    }
    let built = cpu_seconds(s.child.id()) - cpu0;
    match s.get(page) {
        Ok((w, c, 200, _)) => format!(
            "A person's first page view: the overview {:.1} ms ({oc:.2} s CPU) on a fresh server, \
             the model built behind it ({built:.2} s CPU; the server idle again {:.1} s after), \
             then `{page}` {:.1} ms ({c:.2} s CPU); server RssAnon {:.1} MiB.",
            ow.as_secs_f64() * 1000.0,
            t.elapsed().as_secs_f64(),
            w.as_secs_f64() * 1000.0,
            rss_anon(s.child.id())
        ),
        _ => format!("after the overview: `{page}` failed"),
    }
}

/// utime + stime of process `pid`, seconds.
fn cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let after = stat.rsplit(')').next().unwrap_or("");
    let f: Vec<f64> = after
        .split_whitespace()
        .map(|x| x.parse().unwrap_or(0.0))
        .collect();
    // Fields 14 and 15 (1-based) of the line: 12 and 13 after the `)`.
    (f.get(11).copied().unwrap_or(0.0) + f.get(12).copied().unwrap_or(0.0)) / 100.0
}

/// RssAnon of process `pid`, MiB.
fn rss_anon(pid: u32) -> f64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("RssAnon:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(0.0, |k| k / 1024.0)
}

/// The page count of a file of 16 KiB pages (the bench files), from its size.
fn pages_of(path: &PathBuf) -> u64 {
    std::fs::metadata(path).map_or(0, |m| m.len() / 16384)
}

/// The endpoints timed, in the order a person's session asks them.
fn endpoints(n_pages: u64) -> Vec<(String, String)> {
    let mid = n_pages / 2;
    let last = n_pages.saturating_sub(1);
    let e = |name: &str, path: String| (name.to_string(), path);
    vec![
        e("overview", "/api/files".into()),
        e("page (middle)", format!("/api/file/0/page/{mid}")),
        e("page (last)", format!("/api/file/0/page/{last}")),
        e("page 3 (root)", "/api/file/0/page/3".into()),
        e("links (middle)", format!("/api/file/0/links/{mid}")),
        e("records (page 3)", "/api/file/0/records/3".into()),
        e("rows (middle page)", format!("/api/file/0/rows/{mid}")),
        e(
            "maps: pages 0..16383",
            "/api/file/0/pages?from=0&to=16383".into(),
        ),
        e("check", "/api/file/0/check".into()),
        e("levels", "/api/file/0/levels".into()),
        e("extents", "/api/file/0/extents".into()),
        // The maps' pictures (`extents`, `lsn`, `fill --out` as JSON).
        e("map: extents picture", "/api/file/0/map/extents".into()),
        e("map: LSN picture", "/api/file/0/map/lsn".into()),
        e("map: fill picture", "/api/file/0/map/fill".into()),
    ]
}

pub(crate) fn main() {
    let a = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("ibdscope-bench serve: {e}");
            std::process::exit(2);
        }
    };
    let mut md = String::new();
    let _ = writeln!(md, "# `ibdscope serve`: time per endpoint\n");
    let _ = writeln!(md, "- machine: {}", machine());
    let _ = writeln!(md, "- ibdscope: {}", a.ibdscope.display());
    for n in &a.notes {
        let _ = writeln!(md, "- {n}");
    }
    let _ = writeln!(
        md,
        "- targets: a page view under {PAGE_MS} ms, the overview of a 2 GB file under \
         {OVERVIEW_MS} ms (cold: a fresh server, the first request of the file)\n\
         - wall: the request's time at the client (median of the warm rounds); cpu: the \
         server's utime+stime over the request (10 ms ticks); RssAnon: the server's \
         private memory after the request\n"
    );
    for (label, file) in &a.files {
        let size = std::fs::metadata(file).map_or(0, |m| m.len());
        let eps = endpoints(pages_of(file));
        let _ = writeln!(
            md,
            "## {label}: {} ({:.2} GiB, {} pages)\n",
            file.display(),
            size as f64 / (1u64 << 30) as f64,
            pages_of(file)
        );
        // Cold, each endpoint first on a fresh server (its model built by
        // that request), then the whole session in order on one server.
        let mut first: Vec<Option<(Duration, f64)>> = Vec::new();
        for (name, path) in &eps {
            let s = match Served::start(&a.ibdscope, file) {
                Ok(s) => s,
                Err(e) => {
                    eprintln!("ibdscope-bench serve: {e}");
                    std::process::exit(2);
                }
            };
            match s.get(path) {
                Ok((w, c, 200, _)) => first.push(Some((w, c))),
                Ok((_, _, st, _)) => {
                    eprintln!("{name}: status {st}");
                    first.push(None);
                }
                Err(e) => {
                    eprintln!("{name}: {e}");
                    first.push(None);
                }
            }
        }
        let s = match Served::start(&a.ibdscope, file) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("ibdscope-bench serve: {e}");
                std::process::exit(2);
            }
        };
        let mut session: Vec<Option<(Duration, f64, usize)>> = Vec::new();
        let mut rss_max: f64 = rss_anon(s.child.id());
        for (_, path) in &eps {
            session.push(match s.get(path) {
                Ok((w, c, 200, len)) => Some((w, c, len)),
                _ => None,
            });
            rss_max = rss_max.max(rss_anon(s.child.id()));
        }
        let mut warm: Vec<Vec<(Duration, f64)>> = vec![Vec::new(); eps.len()];
        for _ in 0..a.rounds {
            for (i, (_, path)) in eps.iter().enumerate() {
                if let Ok((w, c, 200, _)) = s.get(path) {
                    if let Some(v) = warm.get_mut(i) {
                        v.push((w, c));
                    }
                }
                rss_max = rss_max.max(rss_anon(s.child.id()));
            }
        }
        let _ = writeln!(
            md,
            "| endpoint | first on a fresh server: wall ms (cpu s) | in a session, cold: wall ms (cpu s) | warm: wall ms median (cpu s, sum of {} rounds) | bytes | target |\n|---|---|---|---|---|---|",
            a.rounds
        );
        for (i, (name, path)) in eps.iter().enumerate() {
            let cell = |x: Option<(Duration, f64)>| {
                x.map_or("absent".to_string(), |(w, c)| {
                    format!("{:.1} ({c:.2})", w.as_secs_f64() * 1000.0)
                })
            };
            let w = warm.get(i).cloned().unwrap_or_default();
            let walls: Vec<Duration> = w.iter().map(|x| x.0).collect();
            let cpu: f64 = w.iter().map(|x| x.1).sum();
            let warm_ms = median(&walls).as_secs_f64() * 1000.0;
            let target = if name.starts_with("page") || name.starts_with("links") {
                let ok = !walls.is_empty() && warm_ms < PAGE_MS;
                format!("< {PAGE_MS} ms warm: {}", if ok { "met" } else { "missed" })
            } else if name == "overview" {
                let ms = first
                    .first()
                    .cloned()
                    .flatten()
                    .map(|x| x.0.as_secs_f64() * 1000.0);
                match ms {
                    Some(m) if size >= 1 << 30 => format!(
                        "< {OVERVIEW_MS} ms cold: {}",
                        if m < OVERVIEW_MS { "met" } else { "missed" }
                    ),
                    _ => "-".into(),
                }
            } else {
                "-".into()
            };
            let sess = session.get(i).cloned().flatten();
            let _ = writeln!(
                md,
                "| {name} `{path}` | {} | {} | {} | {} | {target} |",
                cell(first.get(i).cloned().flatten()),
                cell(sess.map(|(w, c, _)| (w, c))),
                if walls.is_empty() {
                    "absent".to_string()
                } else {
                    format!("{warm_ms:.1} ({cpu:.2})")
                },
                sess.map_or("-".into(), |x| x.2.to_string()),
            );
        }
        drop(s);
        let _ = writeln!(
            md,
            "\nServer RssAnon at most {rss_max:.1} MiB over the session; load average after: {}\n",
            loadavg()
        );
        // A person's first page view: the overview, then the page view
        // once the server is idle again (the model built behind the
        // overview; at most 30 s).
        if let Some((_, page)) = eps.get(1) {
            let _ = writeln!(md, "{}\n", after_overview(&a.ibdscope, file, page));
        }
        eprintln!("{label}: done (load {})", loadavg());
    }
    let _ = writeln!(md, "Load average at the end: {}", loadavg());
    print!("{md}");
    if let Some(out) = &a.out {
        if let Err(e) = std::fs::write(out, &md) {
            eprintln!("ibdscope-bench serve: {}: {e}", out.display());
            std::process::exit(2);
        }
    }
}
