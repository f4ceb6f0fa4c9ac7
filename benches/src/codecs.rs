//! `ibdscope-codec-bench`: ibdscope's decoders beside the reference
//! libraries (the ones MariaDB's provider plugins link), on the same
//! buffers, one core each, in the same run. Std only; `benches/run-codecs`
//! builds and runs it (see benches/README.md).
//!
//! 1. The buffers: the logical pages of a MariaDB 10.11 page_compressed
//!    fixture (`fixtures/mariadb1011-pc/pc_lz4.ibd`, decompressed by the
//!    page core), the index pages holding records: each page is a 16 KiB
//!    buffer, four consecutive ones a 64 KiB buffer.
//! 2. `benches/codecs.py compress` compresses each buffer with each
//!    reference library, as the server does; every one of ours must give
//!    back the buffer byte for byte.
//! 3. Rounds, interleaved so that load from elsewhere falls on both alike:
//!    `codecs.py time` (the reference, through ctypes, with the cost of a
//!    Python call subtracted), then ours, each case for `--ms`
//!    milliseconds. The median rate of the rounds is reported.
//! 4. With `--pagecomp DIR` (`benches/gen-inputs pagecomp`: `pc_<codec>.ibd`
//!    of 1,500,000 rows), the same on the bench file's own pages: every
//!    page_compressed page's payload, as the server hands it to the
//!    library, decoded in file order (from the first again when all are
//!    done) for `--ms` per codec and round, ours and the reference in the
//!    same rounds. Ten fixture pages looped let the CPU's branch predictor
//!    learn their sequences; thousands of distinct pages do not.
//!
//! ```text
//! ibdscope-codec-bench [--fixture F] [--pagecomp DIR] [--rounds 5] [--ms 300] [--python python3]
//!     [--script benches/codecs.py] [--only zlib,lz4,...] [--keep DIR]
//!     [--out benches/results/DATE-codecs.md] [--note TEXT]...
//! ```
#![allow(clippy::disallowed_macros)] // The bench harness prints its report.

use ibdscope_codec::{bzip2, inflate, lz4, lzma, lzo, snappy, PageOut, Scratch};
use ibdscope_core::pagecomp::{self, Layout};
use ibdscope_core::Tablespace;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

const MIB: f64 = 1024.0 * 1024.0;
const CODECS: [&str; 6] = ["zlib", "lz4", "lzo", "lzma", "bzip2", "snappy"];

struct Args {
    fixture: PathBuf,
    pagecomp: Option<PathBuf>,
    rounds: usize,
    ms: u64,
    python: String,
    script: PathBuf,
    out: Option<PathBuf>,
    notes: Vec<String>,
    keep: Option<PathBuf>,
    only: Option<String>,
}

fn parse_args() -> Result<Args, String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut a = Args {
        fixture: root.join("../fixtures/mariadb1011-pc/pc_lz4.ibd"),
        pagecomp: None,
        rounds: 5,
        ms: 300,
        python: "python3".into(),
        script: root.join("codecs.py"),
        out: None,
        notes: Vec::new(),
        keep: None,
        only: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut val = || it.next().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--fixture" => a.fixture = PathBuf::from(val()?),
            "--pagecomp" => a.pagecomp = Some(PathBuf::from(val()?)),
            "--rounds" => a.rounds = val()?.parse().map_err(|_| "--rounds N")?,
            "--ms" => a.ms = val()?.parse().map_err(|_| "--ms N")?,
            "--python" => a.python = val()?,
            "--script" => a.script = PathBuf::from(val()?),
            "--out" => a.out = Some(PathBuf::from(val()?)),
            "--note" => a.notes.push(val()?),
            "--keep" => a.keep = Some(PathBuf::from(val()?)),
            "--only" => a.only = Some(val()?),
            "--bench" => {}
            other => return Err(format!("unknown argument {other}")),
        }
    }
    if a.rounds == 0 || a.ms == 0 {
        return Err("--rounds and --ms must be positive".into());
    }
    Ok(a)
}

/// The logical pages of the fixture that hold records (at least half the
/// page not zero), in page order.
fn logical_pages(fixture: &Path) -> Result<Vec<Vec<u8>>, String> {
    let data = std::fs::read(fixture).map_err(|e| format!("{}: {e}", fixture.display()))?;
    let ts = Tablespace::new(&data).map_err(|e| format!("{}: {e}", fixture.display()))?;
    let layout = Layout::of(&ts);
    let mut pages = Vec::new();
    for (n, page) in ts.pages() {
        let mut out = Vec::new();
        match pagecomp::decompress(page, layout, &mut out) {
            Ok(Some(_)) => {}
            Ok(None) => continue,
            Err(e) => return Err(format!("page {n}: {e}")),
        }
        // FIL_PAGE_INDEX, with records on at least half the page.
        let index = out.get(24..26) == Some(&[0x45, 0xBF][..]);
        if index && out.iter().filter(|&&b| b != 0).count() * 2 >= out.len() {
            pages.push(out);
        }
    }
    Ok(pages)
}

/// The page_compressed pages of one bench file: each page's payload (the
/// bytes the server hands the library), in file order.
struct BenchPages {
    payloads: Vec<u8>,
    spans: Vec<(usize, usize)>,
    page_size: usize,
}

/// Logical pages of the bench file written beside the payloads for the
/// reference to check its output against.
const CHECKED_PAGES: usize = 32;

/// Reads `file`'s page_compressed pages; writes `dir/pages/<codec>.bin`
/// (u32 little-endian length, then the payload, a page after another) and
/// `<codec>.check` (the first [`CHECKED_PAGES`] logical pages, as the page
/// core decodes them) for `codecs.py pages`.
fn bench_pages(codec: &str, file: &Path, dir: &Path) -> Result<BenchPages, String> {
    let data = std::fs::read(file).map_err(|e| format!("{}: {e}", file.display()))?;
    let ts = Tablespace::new(&data).map_err(|e| format!("{}: {e}", file.display()))?;
    let layout = Layout::of(&ts);
    let mut bp = BenchPages {
        payloads: Vec::new(),
        spans: Vec::new(),
        page_size: ts.page_size() as usize,
    };
    let (mut bin, mut check) = (Vec::new(), Vec::new());
    let mut out = Vec::new();
    for (n, page) in ts.pages() {
        let d = match pagecomp::decompress(page, layout, &mut out) {
            Ok(Some(d)) => d,
            Ok(None) => continue,
            Err(e) => return Err(format!("{} page {n}: {e}", file.display())),
        };
        let payload = page
            .get(d.header..d.header + d.payload)
            .ok_or(format!("page {n}: payload past the page"))?;
        bp.spans
            .push((bp.payloads.len(), bp.payloads.len() + payload.len()));
        bp.payloads.extend_from_slice(payload);
        bin.extend_from_slice(&(payload.len() as u32).to_le_bytes());
        bin.extend_from_slice(payload);
        if bp.spans.len() <= CHECKED_PAGES {
            check.extend_from_slice(&out);
        }
    }
    if bp.spans.is_empty() {
        return Err(format!("{}: no page_compressed page", file.display()));
    }
    let pages = dir.join("pages");
    std::fs::create_dir_all(&pages).map_err(|e| format!("{}: {e}", pages.display()))?;
    for (ext, bytes) in [("bin", &bin), ("check", &check)] {
        let p = pages.join(format!("{codec}.{ext}"));
        std::fs::write(&p, bytes).map_err(|e| format!("{}: {e}", p.display()))?;
    }
    // Ours, as `time_ours_pages` calls it, gives the page core's pages back.
    let (mut page, mut s) = (PageOut::new(), Scratch::new());
    for (i, (a, b)) in bp.spans.iter().take(CHECKED_PAGES).enumerate() {
        let want = check.get(i * bp.page_size..(i + 1) * bp.page_size);
        if !decode_page(codec, &bp.payloads[*a..*b], &mut page, bp.page_size, &mut s)
            || Some(page.bytes()) != want
        {
            return Err(format!(
                "{codec}: bench page {i}: ours does not give the page back"
            ));
        }
    }
    Ok(bp)
}

/// Ours on the bench file's pages: in file order, from the first again
/// when all are done, for `ms` of wall time, into one reused [`PageOut`];
/// bytes out per second of CPU time.
fn time_ours_pages(codec: &str, bp: &BenchPages, ms: u64) -> f64 {
    let mut out = PageOut::new();
    let mut scratch = Scratch::new();
    let deadline = Duration::from_millis(ms);
    let t0 = Instant::now();
    let c0 = cpu_ns();
    let mut bytes = 0usize;
    'all: loop {
        for chunk in bp.spans.chunks(64) {
            for &(a, b) in chunk {
                black_box(decode_page(
                    codec,
                    black_box(&bp.payloads[a..b]),
                    &mut out,
                    bp.page_size,
                    &mut scratch,
                ));
                bytes += out.bytes().len();
            }
            if t0.elapsed() >= deadline {
                break 'all;
            }
        }
    }
    bytes as f64 / ((cpu_ns() - c0) / 1e9)
}

/// One buffer: its name (`16k-00.bin`), the plain bytes and each codec's
/// compressed bytes.
struct Buffer {
    name: String,
    plain: Vec<u8>,
    packed: BTreeMap<&'static str, Vec<u8>>,
}

fn decode(codec: &str, input: &[u8], out: &mut Vec<u8>, limit: usize, s: &mut Scratch) -> bool {
    out.clear();
    match codec {
        "zlib" => inflate::inflate_zlib(input, out, limit).is_ok(),
        "lz4" => lz4::decompress(input, out, limit).is_ok(),
        "lzo" => lzo::decompress(input, out, limit).is_ok(),
        "lzma" => lzma::decompress_xz(input, out, limit, s).is_ok(),
        "bzip2" => bzip2::decompress(input, out, limit, s).is_ok(),
        _ => snappy::decompress(input, out, limit).is_ok(),
    }
}

/// [`decode`] into a buffer reused from call to call without zero-filling
/// it, as the page core decodes every page.
fn decode_page(
    codec: &str,
    input: &[u8],
    out: &mut PageOut,
    limit: usize,
    s: &mut Scratch,
) -> bool {
    out.clear();
    match codec {
        "zlib" => inflate::inflate_zlib(input, out, limit).is_ok(),
        "lz4" => lz4::decompress(input, out, limit).is_ok(),
        "lzo" => lzo::decompress(input, out, limit).is_ok(),
        "lzma" => out.with_vec(|v| lzma::decompress_xz(input, v, limit, s).is_ok()),
        "bzip2" => out.with_vec(|v| bzip2::decompress(input, v, limit, s).is_ok()),
        _ => snappy::decompress(input, out, limit).is_ok(),
    }
}

/// Nanoseconds this thread has run on a CPU (the scheduler's count: time
/// spent waiting for a CPU on a busy machine is not counted), or NaN.
fn cpu_ns() -> f64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next().and_then(|v| v.parse().ok()))
        .unwrap_or(f64::NAN)
}

/// Ours: decompresses every buffer of `size` in a loop for `ms` of wall
/// time, into one reused [`PageOut`] (as the page core does); bytes out
/// per second of CPU time.
fn time_ours(codec: &str, bufs: &[&Buffer], ms: u64) -> f64 {
    let mut out = PageOut::new();
    let mut scratch = Scratch::new();
    let deadline = Duration::from_millis(ms);
    let t0 = Instant::now();
    let c0 = cpu_ns();
    let mut bytes = 0usize;
    loop {
        for b in bufs {
            let input = b.packed.get(codec).map_or(&[][..], Vec::as_slice);
            black_box(decode_page(
                codec,
                black_box(input),
                &mut out,
                b.plain.len(),
                &mut scratch,
            ));
            bytes += out.bytes().len();
        }
        if t0.elapsed() >= deadline {
            break;
        }
    }
    bytes as f64 / ((cpu_ns() - c0) / 1e9)
}

fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "?".into())
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(0.0)
}

/// The reference libraries' timings, as the Python harness prints them
/// (`mode`: `time` for the fixture pages looped, `pages` for the bench
/// file's own pages).
fn reference_times(a: &Args, dir: &Path, mode: &str) -> Result<String, String> {
    let o = Command::new(&a.python)
        .arg(&a.script)
        .arg(mode)
        .arg(dir)
        .arg(a.ms.to_string())
        .args(a.only.iter())
        .output()
        .map_err(|e| format!("{}: {e}", a.python))?;
    if !o.status.success() {
        return Err(format!(
            "{} {mode} failed: {}",
            a.script.display(),
            String::from_utf8_lossy(&o.stderr)
        ));
    }
    Ok(String::from_utf8_lossy(&o.stdout).into_owned())
}

fn run(a: &Args) -> Result<String, String> {
    let pages = logical_pages(&a.fixture)?;
    if pages.len() < 4 {
        return Err(format!(
            "{}: only {} record pages",
            a.fixture.display(),
            pages.len()
        ));
    }
    let dir = match &a.keep {
        Some(d) => d.clone(),
        None => std::env::temp_dir().join(format!("ibdscope-codec-bench-{}", std::process::id())),
    };
    let plain_dir = dir.join("plain");
    std::fs::create_dir_all(&plain_dir).map_err(|e| format!("{}: {e}", plain_dir.display()))?;
    let mut bufs = Vec::new();
    for (i, p) in pages.iter().enumerate() {
        bufs.push((format!("16k-{i:02}.bin"), p.clone()));
    }
    for (i, w) in pages.chunks_exact(4).enumerate() {
        bufs.push((format!("64k-{i:02}.bin"), w.concat()));
    }
    for (name, plain) in &bufs {
        std::fs::write(plain_dir.join(name), plain).map_err(|e| e.to_string())?;
    }
    let status = Command::new(&a.python)
        .arg(&a.script)
        .arg("compress")
        .arg(&dir)
        .status()
        .map_err(|e| format!("{}: {e}", a.python))?;
    if !status.success() {
        return Err(format!("{} compress failed: {status}", a.script.display()));
    }
    let mut buffers = Vec::new();
    for (name, plain) in bufs {
        let mut packed = BTreeMap::new();
        for c in CODECS {
            let p = dir.join(c).join(&name);
            packed.insert(
                c,
                std::fs::read(&p).map_err(|e| format!("{}: {e}", p.display()))?,
            );
        }
        buffers.push(Buffer {
            name,
            plain,
            packed,
        });
    }
    // Byte-identical first.
    let mut out = Vec::new();
    let mut page = PageOut::new();
    let mut s = Scratch::new();
    for b in &buffers {
        for c in CODECS {
            let input = b.packed.get(c).map_or(&[][..], Vec::as_slice);
            if !decode(c, input, &mut out, b.plain.len(), &mut s) || out != b.plain {
                return Err(format!(
                    "{c} {}: ours does not give the buffer back",
                    b.name
                ));
            }
            if !decode_page(c, input, &mut page, b.plain.len(), &mut s) || page.bytes() != b.plain {
                return Err(format!(
                    "{c} {}: ours does not give the buffer back into a reused buffer",
                    b.name
                ));
            }
        }
    }
    let wanted = |c: &str| a.only.as_ref().is_none_or(|o| o.split(',').any(|x| x == c));
    let mut bench: BTreeMap<&str, BenchPages> = BTreeMap::new();
    if let Some(pc) = &a.pagecomp {
        for c in CODECS.into_iter().filter(|c| wanted(c)) {
            let file = pc.join(format!("pc_{c}.ibd"));
            if file.is_file() {
                eprintln!("[codec bench] reading {}", file.display());
                bench.insert(c, bench_pages(c, &file, &dir)?);
            }
        }
    }
    let sizes = ["16k", "64k", "pages"];
    let load_before = loadavg();
    // (codec, size) -> rates per round
    let mut ours: BTreeMap<(String, String), Vec<f64>> = BTreeMap::new();
    let mut theirs: BTreeMap<(String, String), Vec<f64>> = BTreeMap::new();
    let mut call_ns: BTreeMap<String, f64> = BTreeMap::new();
    let mut raw: BTreeMap<(String, String), Vec<f64>> = BTreeMap::new();
    for round in 0..a.rounds {
        eprintln!("[codec bench] round {} of {}", round + 1, a.rounds);
        let mut lines = reference_times(a, &dir, "time")?;
        if !bench.is_empty() {
            lines.push_str(&reference_times(a, &dir, "pages")?);
        }
        for line in lines.lines() {
            let f: Vec<&str> = line.split_whitespace().collect();
            let [_, codec, size, bytes, ns, calls, cost] = f[..] else {
                continue;
            };
            let num = |s: &str| s.parse::<f64>().unwrap_or(f64::NAN);
            let (bytes, ns, calls, cost) = (num(bytes), num(ns), num(calls), num(cost));
            let key = (codec.to_string(), size.to_string());
            theirs
                .entry(key.clone())
                .or_default()
                .push(bytes / ((ns - calls * cost).max(1.0) / 1e9));
            raw.entry(key).or_default().push(bytes / (ns / 1e9));
            call_ns.insert(codec.to_string(), cost);
        }
        for c in CODECS {
            if a.only
                .as_ref()
                .is_some_and(|o| !o.split(',').any(|x| x == c))
            {
                continue;
            }
            if let Some(bp) = bench.get(c) {
                let rate = time_ours_pages(c, bp, a.ms);
                ours.entry((c.to_string(), "pages".to_string()))
                    .or_default()
                    .push(rate);
            }
            for size in &sizes[..2] {
                let set: Vec<&Buffer> = buffers
                    .iter()
                    .filter(|b| b.name.starts_with(size))
                    .collect();
                let rate = time_ours(c, &set, a.ms);
                ours.entry((c.to_string(), size.to_string()))
                    .or_default()
                    .push(rate);
            }
        }
    }
    let bench_note = bench
        .iter()
        .map(|(c, bp)| format!("{c} {}", bp.spans.len()))
        .collect::<Vec<_>>()
        .join(", ");
    let load_after = loadavg();
    if a.keep.is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    }

    let mut r = String::new();
    let _ = writeln!(r, "# Codecs: ibdscope beside the reference libraries\n");
    let _ = writeln!(
        r,
        "Decompression, one core each, MiB/s of output per second of CPU time (the thread's \
         time on a CPU from `/proc/thread-self/schedstat`, so waiting for a CPU on a busy \
         machine does not count; median of {} rounds of {} ms per case, ours and the \
         reference interleaved). Buffers: the {} index pages holding records of \
         `{}` as the server wrote them (logical pages, decompressed by the page core), each a \
         16 KiB buffer, and {} buffers of 64 KiB (four consecutive pages), compressed by each \
         reference library as MariaDB 10.11's provider plugin calls it \
         (`benches/codecs.py`). The reference is called through Python's ctypes; the cost of \
         one call through Python (measured on a call the library rejects at once) is \
         subtracted, so the reference figure is the C library alone.\n",
        a.rounds,
        a.ms,
        pages.len(),
        a.fixture
            .strip_prefix(Path::new(env!("CARGO_MANIFEST_DIR")).join(".."))
            .unwrap_or(&a.fixture)
            .display(),
        pages.len() / 4
    );
    if let Some(pc) = a.pagecomp.as_ref().filter(|_| !bench.is_empty()) {
        let _ = writeln!(
            r,
            "Rows \"bench pages\": the page_compressed pages of the bench files `{}/pc_<codec>.ibd` \
             (`benches/gen-inputs pagecomp`, MariaDB 10.11, 1,500,000 rows), each page's payload \
             as the server wrote it (not recompressed), decoded in file order, from the first \
             again when all are done, for the same time per round (pages: {bench_note}); the \
             reference's output is checked against the page core's on the first {CHECKED_PAGES} \
             pages. Thousands of distinct pages: the fixture pages' loop is learnt by the CPU's \
             branch predictor, these are not.\n",
            pc.display()
        );
    }
    for n in &a.notes {
        let _ = writeln!(r, "- {n}");
    }
    let _ = writeln!(
        r,
        "- load average (1, 5, 15 min): before {load_before}, after {load_after}"
    );
    let _ = writeln!(
        r,
        "- Python call cost subtracted (ns a call): {}\n",
        call_ns
            .iter()
            .filter(|(c, _)| !c.contains('-'))
            .map(|(c, v)| format!("{c} {v:.0}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let _ = writeln!(
        r,
        "| codec | page size | ours MiB/s | reference MiB/s | ratio (ours / reference) | reference with the Python call | load average |"
    );
    let _ = writeln!(r, "|---|---|---:|---:|---:|---:|---|");
    let mut rows = Vec::new();
    for c in CODECS {
        for size in sizes {
            let key = (c.to_string(), size.to_string());
            if !ours.contains_key(&key) {
                continue;
            }
            let o = median(ours.get_mut(&key).map_or(&mut [][..], |v| v.as_mut_slice())) / MIB;
            // bzip2: the faster of MariaDB's small=1 and libbz2's small=0.
            let mut t = median(
                theirs
                    .get_mut(&key)
                    .map_or(&mut [][..], |v| v.as_mut_slice()),
            ) / MIB;
            let mut w = median(raw.get_mut(&key).map_or(&mut [][..], |v| v.as_mut_slice())) / MIB;
            let mut label = c.to_string();
            if c == "bzip2" {
                let fast = ("bzip2-fast".to_string(), size.to_string());
                let tf = median(
                    theirs
                        .get_mut(&fast)
                        .map_or(&mut [][..], |v| v.as_mut_slice()),
                ) / MIB;
                let wf = median(raw.get_mut(&fast).map_or(&mut [][..], |v| v.as_mut_slice())) / MIB;
                rows.push(format!(
                    "bzip2 {size}: reference with MariaDB's small=1 {t:.1} MiB/s, with small=0 {tf:.1} MiB/s; the table gives the faster"
                ));
                if tf > t {
                    t = tf;
                    w = wf;
                    label = "bzip2 (ref. small=0)".into();
                }
            }
            let _ = writeln!(
                r,
                "| {label} | {} | {o:.1} | {t:.1} | {:.2} | {w:.1} | {load_after} |",
                match size {
                    "16k" => "16 KiB",
                    "64k" => "64 KiB",
                    _ => "16 KiB, bench pages",
                },
                o / t
            );
        }
    }
    let _ = writeln!(r);
    for n in rows {
        let _ = writeln!(r, "- {n}");
    }
    Ok(r)
}

fn main() {
    let a = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("ibdscope-codec-bench: {e}");
            std::process::exit(2);
        }
    };
    match run(&a) {
        Ok(report) => {
            print!("{report}");
            if let Some(out) = &a.out {
                if let Err(e) = std::fs::write(out, &report) {
                    eprintln!("ibdscope-codec-bench: {}: {e}", out.display());
                    std::process::exit(2);
                }
            }
        }
        Err(e) => {
            eprintln!("ibdscope-codec-bench: {e}");
            std::process::exit(1);
        }
    }
}
