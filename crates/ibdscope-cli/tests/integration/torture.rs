//! Damaged input: seeded, std-only mutations of real files, run through
//! every command and output format of the binary.
//!
//! Each mutation is a named case (one `#[test]` in `cases`), applied to a
//! handful of real files from fixtures/ and ../shared/corpus/ with a fixed
//! seed per case, file and draw (xorshift64, no dependencies). For every
//! mutated file, every command (discovered from `ibdscope --help`) and every
//! format it accepts, the binary runs on a scratch copy under a time limit
//! and must:
//!
//! - not hang (20 s), not panic (exit 101, "panicked") nor die by a signal;
//! - exit 0, 1 or 2; exit 2 only where the case allows the file to become
//!   unusable as a whole, and then with the file named on stderr;
//! - report the damage (exit 1 or 2) in every command whose job covers it:
//!   `pages` and `lsn` for page damage (checksum, LSN pair, page number,
//!   space id),
//!   `info` and `check` for that plus whole-file damage (torn tail, fewer
//!   pages than FSP_SIZE, page 0 unusable), `extents`, `segments`, `lists`,
//!   `indexes`, `fill` and `compare` (given the mutated file twice) for
//!   structure damage, `page` (run on the first touched
//!   page) for page damage and record damage of that page, `records` and
//!   `indexes` for record and B-tree damage of an index's pages. `types` is
//!   an inventory and has
//!   no findings (it exits 0 on any readable file), so it is only held to
//!   the other rules; so is a command this file does not know yet. `audit`
//!   answers for page, file and structure damage. A command taking two files
//!   (`diff A B`) gets the clean file first and the mutated one second, and
//!   must report every mutation (its job is bytes, so the invisible rule
//!   below does not bind it);
//! - report the pages the mutation did not touch exactly as on the clean
//!   file (`pages --format jsonl` rows), and name no untouched page in
//!   `check --format json`'s `invalid`/`freed_invalid` lists; when page 0
//!   is touched, the detected page size must stay right.
//!
//! Half of the flips are re-sealed with the page's own checksum algorithm
//! (`ibdscope_core::checksum`) so that the structure checks are exercised, not
//! only the checksums; structure-only cases (list loops, record pointers,
//! huge counts) are always sealed.
//!
//! Two kinds of mutation are named, never skipped silently:
//! - *invisible*: bytes no server reads (XDES_CLEAN_BIT, the byte offset of
//!   a FIL_NULL address, FIL_PAGE_FILE_FLUSH_LSN on a file-per-table page,
//!   XDES_ID outside segments, a free page's content). Every command must
//!   then exit 0: damage reported there would be invented.
//! - *waived*: bytes whose every value is valid to every check ibdscope
//!   has, named by why: `GAP_SCHEMA` (record data and the header fields
//!   whose consistency needs the column layout, e.g. COMPACT record sizes
//!   against PAGE_HEAP_TOP and PAGE_GARBAGE), `GAP_HINTS` (PAGE_LAST_INSERT,
//!   PAGE_DIRECTION, PAGE_N_DIRECTION, PAGE_MAX_TRX_ID: any value is a valid
//!   state on disk), `GAP_ZIP` (ROW_FORMAT=COMPRESSED records are a zlib
//!   stream; only impossible header counts are checked). Held to the other
//!   rules.
//!
//! Cases that do not apply to a file (no readable INODE page in an
//! encrypted file, compressed records) say so on stderr, as do waivers and
//! timings: `cargo test --test integration torture -- --nocapture`.
//!
//! A failing case keeps its mutated file, prints its path, the seed and the
//! failing command lines. Bugs the cases found have their own minimal
//! `regression_*` tests at the end.

use super::common::{corpus, fixtures};
use ibdscope_core::checksum::{self, Algorithm, Scheme, Verdict};
use ibdscope_core::extents::{FspList, Owner};
use ibdscope_core::flst::page_readable;
use ibdscope_core::index::IndexHeader;
use ibdscope_core::inode::{inode_size, InodeEntry, FSEG_FRAG_ARR, FSEG_MAGIC_N};
use ibdscope_core::xdes::{xdes_size, XdesEntry, XdesState, XDES_ARR_OFFSET};
use ibdscope_core::Engine;
use ibdscope_core::{PageFacts, PageNo, PageType, SpaceMap, Tablespace, TypeNames, FIL_NULL};
use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsString;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// A run longer than this is a hang.
const TIME_LIMIT: Duration = Duration::from_secs(20);

// ---------------------------------------------------------------------------
// Deterministic randomness.

/// xorshift64 (Marsaglia): small, fixed, good enough to pick bytes.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
    /// A number in `0..n` (`n > 0`).
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    /// A number in `lo..hi`.
    fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo)
    }
    fn pick<T: Copy>(&mut self, v: &[T]) -> Option<T> {
        (!v.is_empty()).then(|| v[self.below(v.len())])
    }
    /// A non-zero XOR mask.
    fn mask(&mut self) -> u8 {
        (self.below(255) + 1) as u8
    }
}

/// FNV-1a: a stable seed from a name.
fn fnv(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    })
}

// ---------------------------------------------------------------------------
// The files.

/// One real, clean file and what the library says about it.
struct Clean {
    /// Short name for messages, e.g. `mysql56/ai_int.ibd`.
    name: String,
    path: PathBuf,
    data: Vec<u8>,
    size: usize,
    logical: u32,
    extent: u32,
    scheme: Scheme,
    n_pages: u32,
    space_id: u32,
    fsp_size: u32,
    facts: Vec<PageFacts>,
    /// Per page: the structure code reads it (`flst::page_readable`).
    readable: Vec<bool>,
    names: TypeNames,
    map: SpaceMap,
    /// Structure-heavy file (segment extents, multi-member lists): used by
    /// the structure cases only, to keep the suite fast.
    big: bool,
}

impl Clean {
    fn load(name: &str, path: PathBuf, big: bool) -> Clean {
        let data = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let ts = Tablespace::new(&data).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(ts.detection().page0_ok, "{name}: page 0 must verify");
        let facts: Vec<PageFacts> = ts.scan().collect();
        let map = SpaceMap::build(&ts, &Engine::default());
        let fsp_size = ts.fsp_header().map_or(0, |h| h.size());
        let readable = ts.pages().map(|(_, p)| page_readable(&ts, p)).collect();
        Clean {
            readable,
            names: ts.type_names(),
            name: name.to_string(),
            size: ts.page_size() as usize,
            logical: ts.format().logical_size,
            extent: ts.format().extent_size(),
            scheme: ts.scheme(),
            n_pages: ts.n_pages(),
            space_id: ts.space_id().0,
            fsp_size,
            facts,
            map,
            path,
            big,
            data,
        }
    }

    fn at(&self, page: u32) -> usize {
        page as usize * self.size
    }
    fn page(&self, page: u32) -> &[u8] {
        &self.data[self.at(page)..self.at(page) + self.size]
    }
    fn page_type(&self, page: u32) -> PageType {
        self.facts[page as usize].page_type
    }
    fn verdict(&self, page: u32) -> Verdict {
        self.facts[page as usize].verdict
    }
    /// Pages whose verdict is `Valid`: their bytes are checked by a checksum
    /// (or, for `none`, by nothing but the FIL fields).
    fn valid_pages(&self) -> Vec<u32> {
        (0..self.n_pages)
            .filter(|&p| matches!(self.verdict(p), Verdict::Valid(_)))
            .collect()
    }
    fn non_empty_pages(&self) -> Vec<u32> {
        (0..self.n_pages)
            .filter(|&p| self.verdict(p) != Verdict::Empty)
            .collect()
    }
    /// True when the page's checksum covers its bytes (not `none`).
    fn checksummed(&self, page: u32) -> bool {
        matches!(self.verdict(page), Verdict::Valid(a) if !matches!(a, Algorithm::None | Algorithm::ZipNone))
    }
    /// A page the structure code reads (not encrypted, not compressed).
    fn readable(&self, page: u32) -> bool {
        self.readable[page as usize]
    }
    fn is_index(&self, page: u32) -> bool {
        self.page_type(page).is_index(self.names)
    }
    fn roots(&self) -> Vec<u32> {
        self.map.indexes.iter().map(|i| i.root.0).collect()
    }
    fn owner(&self, page: u32) -> Owner {
        let ts = Tablespace::new(&self.data).unwrap();
        self.map.owner(&ts, PageNo(page)).unwrap()
    }
    /// Readable index pages with a valid checksum.
    fn index_pages(&self) -> Vec<u32> {
        self.valid_pages()
            .into_iter()
            .filter(|&p| self.is_index(p) && self.readable(p))
            .collect()
    }
}

/// The files every case runs on. Corpus files when ../shared/corpus exists.
fn sources() -> &'static [Clean] {
    static SOURCES: OnceLock<Vec<Clean>> = OnceLock::new();
    SOURCES.get_or_init(|| {
        let fx = fixtures();
        let mut out: Vec<Clean> = [
            // MySQL 5.6, innodb checksum, COMPACT, 16K.
            "mysql56/ai_int.ibd",
            // MariaDB 10.11 full_crc32, two indexes.
            "mariadb1011/secondary.ibd",
            // MariaDB 10.11 full_crc32 at 4K pages (256-page extents).
            "mariadb1011-4k/ai_int.ibd",
            // ROW_FORMAT=COMPRESSED, 8K physical / 16K logical.
            "mysql56/rf_compressed8.ibd",
            // innodb_checksum_algorithm=none: only structure checks see flips.
            "mysql56-none/ai_int.ibd",
            // MariaDB PAGE_COMPRESSED, crc32: pages 1.. are not verifiable.
            "mariadb1011-crc32/pagecomp.ibd",
        ]
        .iter()
        .map(|n| Clean::load(n, fx.join(n), false))
        .collect();
        // A segment with an extent on FSEG_NOT_FULL (BLOB pages).
        out.push(Clean::load(
            "mariadb1011/blob.ibd",
            fx.join("mariadb1011/blob.ibd"),
            true,
        ));
        // FSP_FREE with two extents, segment extents on FULL and NOT_FULL.
        out.push(Clean::load(
            "mariadb1011/uuid_char36_large.ibd",
            fx.join("mariadb1011/uuid_char36_large.ibd"),
            true,
        ));
        if let Some(dir) = corpus() {
            for n in [
                // MySQL 8.4: SDI pages, crc32.
                "mysql-8.4/sakila_mysql8403_film.ibd",
                // Percona 8.0 encrypted: only page 0 is readable.
                "percona-8.0/percona80_encrypted_secret_data.ibd",
            ] {
                out.push(Clean::load(n, dir.join(n), false));
            }
        }
        out
    })
}

// ---------------------------------------------------------------------------
// Commands and formats, as the binary lists them.

/// What a command is responsible for reporting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Duty {
    /// `pages`: damaged page rows.
    Rows,
    /// `info`, `check`: damaged pages and whole-file damage.
    RowsAndFile,
    /// `extents`, `segments`, `lists`: structure damage.
    Structure,
    /// `indexes`: structure damage and record/B-tree damage.
    IndexTree,
    /// `page FILE N` (N = the first touched page): page damage and record
    /// damage of that page.
    Page,
    /// `records`: record and B-tree damage of an index.
    Records,
    /// `types`: an inventory, no findings.
    Inventory,
    /// `audit`: damaged pages, whole-file damage and structure damage.
    Audit,
    /// `diff A B`: any byte that differs between the clean and the mutated
    /// copy, visible to a server or not.
    Bytes,
    /// `schema`, `rows`: a table's definition and its decoded rows. Held to
    /// the safety rules (no panic, no hang, exit 0–2, the file named with
    /// exit 2); exit 1 or 2 is allowed on clean files whose rows cannot be
    /// decoded (ROW_FORMAT=COMPRESSED, PAGE_COMPRESSED, encrypted) and exit
    /// 2 on damaged ones whose definition (SDI pages) or index root the
    /// damage took. No duty to report: a flipped byte inside a record's
    /// data is a valid value to every decoder.
    Table,
    /// `tables`: a datadir's dictionary. A tablespace file that is not the
    /// system tablespace is not its input: exit 2 naming the file, like
    /// its clean copy. `restore`: a file without a datadir (no ibdata1
    /// beside it) likewise. Held to the safety rules.
    Datadir,
    /// A command this suite does not know yet: held to the safety rules.
    Unknown,
}

struct Cmd {
    name: String,
    duty: Duty,
    /// Formats the command accepts (tried on a clean file).
    formats: Vec<String>,
    /// Positional arguments after the file (page numbers, for commands
    /// such as a future `page <FILE> <PAGE>`).
    extra_positionals: usize,
    /// Files the command takes (2 for `diff <FILE_A> <FILE_B>`).
    files: usize,
}

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_ibdscope")
}

fn help(args: &[&str]) -> String {
    let o = Command::new(bin())
        .args(args)
        .output()
        .expect("run ibdscope --help");
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Every command of `ibdscope --help` with the formats it accepts.
fn commands() -> &'static [Cmd] {
    static CMDS: OnceLock<Vec<Cmd>> = OnceLock::new();
    CMDS.get_or_init(|| {
        let top = help(&["--help"]);
        let names: Vec<String> = top
            .lines()
            .skip_while(|l| !l.starts_with("Commands:"))
            .skip(1)
            .take_while(|l| !l.trim().is_empty())
            .filter_map(|l| l.split_whitespace().next())
            // `serve` listens until stopped; its own tests
            // (`crates/ibdscope-serve/tests/serve.rs`) plant damage and
            // compare every page's verdict with `check`'s.
            .filter(|n| *n != "help" && *n != "serve")
            .map(str::to_string)
            .collect();
        let probe = &sources()[0];
        let cmds: Vec<Cmd> = names
            .into_iter()
            .filter_map(|name| {
                let h = help(&[&name, "--help"]);
                let usage = h
                    .lines()
                    .find(|l| l.starts_with("Usage:"))
                    .unwrap_or("")
                    .to_string();
                let is_file = |t: &str| {
                    let u = t.to_ascii_uppercase();
                    u.contains("FILE") || u.contains("PATH")
                };
                // `--out <NEW>` is an option's value, not a positional.
                let toks: Vec<&str> = usage.split_whitespace().collect();
                let positionals = || {
                    toks.iter()
                        .enumerate()
                        .filter(|(i, t)| {
                            (t.starts_with('<') || t.starts_with("[<"))
                                && !(i.checked_sub(1))
                                    .and_then(|j| toks.get(j))
                                    .is_some_and(|p| p.starts_with("--"))
                        })
                        .map(|(_, t)| *t)
                };
                if positionals().next().is_some() && !positionals().any(is_file) {
                    // `completions SHELL`: no input to damage.
                    eprintln!("torture: `{name}` reads no file ({usage}): not run");
                    return None;
                }
                let extra_positionals = positionals().filter(|t| !is_file(t)).count();
                let files = positionals().filter(|t| is_file(t)).count().max(1);
                // "- text:  Human-readable text" lines after "--format".
                let listed: Vec<String> = h
                    .lines()
                    .skip_while(|l| !l.trim_start().starts_with("--format"))
                    .skip(1)
                    .take_while(|l| !l.trim_start().starts_with("--") || l.contains("- "))
                    .filter_map(|l| l.trim_start().strip_prefix("- "))
                    .filter_map(|l| l.split(':').next())
                    .map(str::to_string)
                    .collect();
                let duty = match name.as_str() {
                    "pages" | "lsn" => Duty::Rows,
                    "info" | "check" => Duty::RowsAndFile,
                    "extents" | "segments" | "lists" | "fill" | "compare" => Duty::Structure,
                    "indexes" => Duty::IndexTree,
                    "page" => Duty::Page,
                    "records" => Duty::Records,
                    "types" => Duty::Inventory,
                    "audit" => Duty::Audit,
                    "diff" => Duty::Bytes,
                    "schema" | "rows" | "history" => Duty::Table,
                    "tables" | "undo" | "restore" => Duty::Datadir,
                    _ => Duty::Unknown,
                };
                let mut cmd = Cmd {
                    name,
                    duty,
                    formats: Vec::new(),
                    extra_positionals,
                    files,
                };
                // A format the command refuses exits 2 before reading.
                for f in listed {
                    let out = run(&cmd, Some(&f), &probe.path, 3, "probe");
                    if !(out.code == Some(2)
                        && (out.stderr.contains("invalid value")
                            || out.stderr.contains("not offered")))
                    {
                        cmd.formats.push(f);
                    }
                }
                if cmd.formats.is_empty() {
                    cmd.formats.push(String::new());
                }
                Some(cmd)
            })
            .collect();
        for known in [
            "info", "pages", "types", "check", "extents", "segments", "lists", "indexes", "page",
            "records", "lsn", "fill", "compare", "sdi", "audit", "diff", "schema", "rows",
        ] {
            assert!(
                cmds.iter().any(|c| c.name == known),
                "`ibdscope --help` does not list {known}: {top}"
            );
        }
        for c in &cmds {
            if c.duty == Duty::Unknown {
                eprintln!(
                    "torture: command `{}` is new to this suite; it is held to the \
                     no-panic/no-hang rules only (add its duty in torture.rs)",
                    c.name
                );
            }
        }
        cmds
    })
}

/// The outcome of one run.
struct Out {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    hung: bool,
    args: Vec<OsString>,
}

impl Out {
    fn shell(&self) -> String {
        let mut s = String::from("ibdscope");
        for a in &self.args {
            s.push(' ');
            s.push_str(&a.to_string_lossy());
        }
        s
    }
}

fn scratch_dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("ibdscope-torture-{}", std::process::id()));
    std::fs::create_dir_all(&d).expect("scratch dir");
    d
}

/// Runs `cmd` on `file` with output to files (no pipe can fill and stall
/// the child), polling for the time limit.
fn run(cmd: &Cmd, format: Option<&str>, file: &Path, page: u32, tag: &str) -> Out {
    run_with(cmd, format, &[], file, page, tag)
}

/// [`run`] for a mutated `file` of the clean file `clean`: a two-file
/// command gets `clean` first.
fn run_mutated(
    cmd: &Cmd,
    format: Option<&str>,
    clean: &Path,
    file: &Path,
    page: u32,
    tag: &str,
) -> Out {
    run_full(cmd, format, &[], Some(clean), file, page, tag)
}

/// [`run`] with more options before the file.
fn run_with(
    cmd: &Cmd,
    format: Option<&str>,
    extra: &[&str],
    file: &Path,
    page: u32,
    tag: &str,
) -> Out {
    run_full(cmd, format, extra, None, file, page, tag)
}

/// [`run_with`]; a two-file command gets `peer` (or `file` itself) first.
fn run_full(
    cmd: &Cmd,
    format: Option<&str>,
    extra: &[&str],
    peer: Option<&Path>,
    file: &Path,
    page: u32,
    tag: &str,
) -> Out {
    let mut args: Vec<OsString> = vec![cmd.name.clone().into()];
    args.extend(extra.iter().map(OsString::from));
    if let Some(f) = format.filter(|f| !f.is_empty()) {
        args.push("--format".into());
        args.push(f.into());
    }
    if cmd.duty == Duty::Table {
        // A MySQL 5.x / MariaDB file's definition is the .frm beside the
        // clean file (the mutated copy lies in a scratch directory).
        let frm = peer.unwrap_or(file).with_extension("frm");
        if frm.is_file() {
            args.push("--frm".into());
            args.push(frm.into());
        }
    }
    if ["extents", "lsn", "fill"].contains(&cmd.name.as_str()) && format == Some("text") {
        // The colour path draws more than the plain one.
        args.push("--color".into());
        args.push("always".into());
    }
    if cmd.name == "restore" {
        // Its output file, never the input.
        args.push("--out".into());
        args.push(
            scratch_dir()
                .join(format!("{tag}.restored.ibd"))
                .into_os_string(),
        );
    }
    for _ in 1..cmd.files {
        args.push(peer.unwrap_or(file).into());
    }
    args.push(file.into());
    if cmd.name == "compare" {
        // Several files: the same one twice.
        args.push(file.into());
    }
    for _ in 0..cmd.extra_positionals {
        args.push(page.to_string().into());
    }
    exec(
        args,
        &format!("{tag}.{}.{}", cmd.name, format.unwrap_or("default")),
    )
}

/// Runs the binary with `args`, output to files, under the time limit.
fn exec(args: Vec<OsString>, tag: &str) -> Out {
    let base = scratch_dir().join(tag);
    let (out_path, err_path) = (base.with_extension("out"), base.with_extension("err"));
    let mut child = Command::new(bin())
        .args(&args)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out_path).expect("stdout file"))
        .stderr(std::fs::File::create(&err_path).expect("stderr file"))
        .spawn()
        .expect("spawn ibdscope");
    let start = Instant::now();
    let (status, hung) = loop {
        match child.try_wait().expect("try_wait") {
            Some(s) => break (Some(s), false),
            None if start.elapsed() > TIME_LIMIT => {
                let _ = child.kill();
                let _ = child.wait();
                break (None, true);
            }
            None => std::thread::sleep(Duration::from_millis(1)),
        }
    };
    let read =
        |p: &Path| String::from_utf8_lossy(&std::fs::read(p).unwrap_or_default()).into_owned();
    let out = Out {
        code: status.and_then(|s| s.code()),
        stdout: read(&out_path),
        stderr: read(&err_path),
        hung,
        args,
    };
    let _ = std::fs::remove_file(out_path);
    let _ = std::fs::remove_file(err_path);
    out
}

// ---------------------------------------------------------------------------
// Clean baselines.

struct Baseline {
    /// `pages --format jsonl` rows by page number.
    rows: BTreeMap<u32, String>,
    /// Exit codes on the clean file of the commands that may exit non-zero
    /// there ([`Duty::Table`]), by "command format".
    codes: BTreeMap<String, Option<i32>>,
}

fn baselines() -> &'static [Baseline] {
    static BASE: OnceLock<Vec<Baseline>> = OnceLock::new();
    BASE.get_or_init(|| {
        let cmds = commands();
        sources()
            .iter()
            .map(|c| {
                let mut rows = BTreeMap::new();
                let mut codes = BTreeMap::new();
                for cmd in cmds {
                    for f in &cmd.formats {
                        let o = run(cmd, Some(f), &c.path, 3, "clean");
                        if matches!(cmd.duty, Duty::Table | Duty::Datadir) {
                            codes.insert(format!("{} {f}", cmd.name), o.code);
                        }
                        assert!(
                            o.code == Some(0)
                                || cmd.duty == Duty::Unknown
                                || (matches!(cmd.duty, Duty::Table | Duty::Datadir)
                                    && matches!(o.code, Some(1 | 2))),
                            "clean {} must exit 0: `{}` gave {:?}: {}",
                            c.name,
                            o.shell(),
                            o.code,
                            o.stderr
                        );
                        if cmd.name == "pages" && f == "jsonl" {
                            rows = jsonl_rows(&o.stdout);
                        }
                    }
                }
                assert_eq!(rows.len(), c.n_pages as usize, "{}", c.name);
                Baseline { rows, codes }
            })
            .collect()
    })
}

fn json_u64(s: &str, key: &str) -> Option<u64> {
    let at = s.find(&format!("\"{key}\":"))? + key.len() + 3;
    let digits: String = s[at..].chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

fn jsonl_rows(s: &str) -> BTreeMap<u32, String> {
    s.lines()
        .filter_map(|l| Some((json_u64(l, "page")? as u32, l.to_string())))
        .collect()
}

/// A row without its `"type"` name (kept: `type_code`).
fn without_type_name(row: &str) -> String {
    match row.find("\"type\":\"") {
        Some(i) => match row[i + 8..].find("\",") {
            Some(j) => format!("{}{}", &row[..i], &row[i + 8 + j + 2..]),
            None => row.to_string(),
        },
        None => row.to_string(),
    }
}

/// A row with its `"index_name"` null: the name is the table
/// definition's, a fact of the whole file (the clean file has its `.frm`
/// beside it, the mutated copy not; damage to the SDI loses every name).
fn without_index_name(row: &str) -> String {
    let key = "\"index_name\":\"";
    match row.find(key) {
        Some(i) => match row[i + key.len()..].find('"') {
            Some(j) => format!(
                "{}\"index_name\":null{}",
                &row[..i],
                &row[i + key.len() + j + 1..]
            ),
            None => row.to_string(),
        },
        None => row.to_string(),
    }
}

/// Page numbers in the `invalid` and `freed_invalid` lists of
/// `check --format json`.
fn check_json_bad_pages(s: &str) -> BTreeSet<u32> {
    let mut out = BTreeSet::new();
    for key in ["\"invalid\":[", "\"freed_invalid\":["] {
        let Some(i) = s.find(key) else { continue };
        let rest = &s[i + key.len()..];
        // Reasons are plain text without brackets; the list ends at "]".
        let list = &rest[..rest.find("],\"").unwrap_or(rest.len())];
        let mut at = 0;
        while let Some(j) = list[at..].find("{\"page\":") {
            let k = at + j + 8;
            let digits: String = list[k..].chars().take_while(char::is_ascii_digit).collect();
            if let Ok(p) = digits.parse() {
                out.insert(p);
            }
            at = k;
        }
    }
    out
}

// ---------------------------------------------------------------------------
// Mutations.

/// What a mutated file must make the commands report.
#[derive(Clone, Copy, Debug, Default)]
struct Expect {
    /// Page damage: `pages`, `info`, `check` exit non-zero.
    rows: bool,
    /// Whole-file damage: `info`, `check` exit non-zero.
    file: bool,
    /// Structure damage: the structure commands exit non-zero.
    structure: bool,
    /// Record damage of the first touched page: `page` exits non-zero.
    page: bool,
    /// Record or B-tree damage of an index's page: `records` and `indexes`
    /// exit non-zero (and `page`, with `page` set).
    records: bool,
    /// The file may become unusable as a whole (exit 2 from everything).
    unusable_ok: bool,
    /// No check of ibdscope can reveal this mutation yet (a GAP).
    waived: Option<&'static str>,
    /// No server reads the bytes changed: every command must exit 0, as on
    /// the clean file (damage reported here would be invented).
    invisible: Option<&'static str>,
}

/// How untouched pages are compared with the clean file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Compare {
    /// Rows identical.
    Same,
    /// Identical but for the type name: page 0's flags are gone, so MySQL
    /// 8.0 names (SDI) may fall back to the classic ones; type codes stay.
    SameButTypeName,
    /// Not compared: the mutation changed a whole-file fact.
    Not(&'static str),
}

struct Mutation {
    what: String,
    data: Vec<u8>,
    touched: BTreeSet<u32>,
    expect: Expect,
    compare: Compare,
    /// Assert the page size is still detected right (page 0 damaged).
    page_size_kept: bool,
}

impl Mutation {
    fn new(c: &Clean, what: String) -> Self {
        Mutation {
            what,
            data: c.data.clone(),
            touched: BTreeSet::new(),
            expect: Expect::default(),
            compare: Compare::Same,
            page_size_kept: false,
        }
    }
    fn touch(&mut self, page: u32) {
        self.touched.insert(page);
        if page == 0 {
            self.compare = Compare::SameButTypeName;
            self.page_size_kept = true;
        }
    }
    fn flip(&mut self, at: usize, mask: u8) {
        self.data[at] ^= mask;
    }
    fn put16(&mut self, at: usize, v: u16) {
        self.data[at..at + 2].copy_from_slice(&v.to_be_bytes());
    }
    fn put32(&mut self, at: usize, v: u32) {
        self.data[at..at + 4].copy_from_slice(&v.to_be_bytes());
    }
    fn get32(&self, at: usize) -> u32 {
        u32::from_be_bytes(self.data[at..at + 4].try_into().unwrap())
    }
    fn waive(&mut self, why: &'static str) {
        self.expect = Expect {
            waived: Some(why),
            ..Expect::default()
        };
    }
    fn invisible(&mut self, why: &'static str) {
        self.expect = Expect {
            invisible: Some(why),
            ..Expect::default()
        };
    }
}

type Made = Result<Mutation, &'static str>;

/// Re-computes the checksum of `page` with the algorithm the clean page
/// carried, so the page verifies again.
fn seal(c: &Clean, data: &mut [u8], page: u32) {
    let at = c.at(page);
    let p = &mut data[at..at + c.size];
    let n = p.len();
    let alg = match c.verdict(page) {
        Verdict::Valid(a) => a,
        // An all-zero page takes the algorithm of page 0.
        Verdict::Empty => match c.verdict(0) {
            Verdict::Valid(a) => a,
            _ => return,
        },
        _ => return,
    };
    match alg {
        Algorithm::Crc32 => {
            let v = checksum::page_crc32(p).to_be_bytes();
            p[..4].copy_from_slice(&v);
            p[n - 8..n - 4].copy_from_slice(&v);
        }
        Algorithm::Crc32LegacyBigEndian => {
            let v = checksum::page_crc32_legacy_big_endian(p).to_be_bytes();
            p[..4].copy_from_slice(&v);
            p[n - 8..n - 4].copy_from_slice(&v);
        }
        Algorithm::Innodb | Algorithm::InnodbPre4014 => {
            // The old checksum covers bytes 0..26, the new one included.
            let new = checksum::page_innodb_new(p).to_be_bytes();
            p[..4].copy_from_slice(&new);
            let old = checksum::page_innodb_old(p).to_be_bytes();
            p[n - 8..n - 4].copy_from_slice(&old);
        }
        Algorithm::FullCrc32 => {
            let covered = checksum::full_crc32_size(p).map_or(n, |(s, _)| s);
            let v = checksum::full_crc32(&p[..covered]).to_be_bytes();
            p[covered - 4..covered].copy_from_slice(&v);
        }
        Algorithm::ZipCrc32 => {
            let v = checksum::zip_crc32(p, false).to_be_bytes();
            p[..4].copy_from_slice(&v);
        }
        Algorithm::ZipInnodb => {
            let v = checksum::zip_adler32(p).to_be_bytes();
            p[..4].copy_from_slice(&v);
        }
        Algorithm::None | Algorithm::ZipNone | Algorithm::MariaDbEncrypted => {}
        // An algorithm this test does not know: the page is left as it is.
        _ => {}
    }
}

fn seal_touched(c: &Clean, m: &mut Mutation) {
    for &p in &m.touched.clone() {
        if p < c.n_pages {
            seal(c, &mut m.data, p);
        }
    }
}

/// Expectation for a flip that is left unsealed: the checksum must catch
/// it (page 0: the page then also stops deciding the format).
fn caught_by_checksum(m: &mut Mutation, page: u32) {
    m.expect.rows = true;
    m.expect.file |= page == 0;
}

// FIL header ---------------------------------------------------------------

fn fil_header_flip(c: &Clean, r: &mut Rng, sealed: bool) -> Made {
    let page = r.pick(&c.valid_pages()).ok_or("no valid page")?;
    let at = c.at(page);
    let mut m = Mutation::new(c, String::new());
    m.touch(page);
    let lsn_pair = c.facts[page as usize].lsn_pair.is_some();
    let has_space_id = c.facts[page as usize].has_space_id;
    if !sealed && c.checksummed(page) {
        // Bytes the checksum covers or compares: classic 0..26 (26..34 is
        // FIL_PAGE_FILE_FLUSH_LSN, see `fil_flush_lsn_flip`), zip 0..16 and
        // 24..26 (16..24, the LSN, is outside page_zip_calc_checksum),
        // full_crc32 everything. 34..38 is the space id, checked apart.
        let ranges: &[(usize, usize)] = match c.scheme {
            Scheme::Classic => &[(0, 26), (34, 38)],
            Scheme::Zip => &[(0, 16), (24, 26), (34, 38)],
            Scheme::FullCrc32 => &[(0, 38)],
            _ => return Err("a checksum scheme this test does not know"),
        };
        let (lo, hi) = ranges[r.below(ranges.len())];
        let byte = r.range(lo, hi);
        if (34..38).contains(&byte) && !has_space_id {
            return Err("space id bytes of a page without one");
        }
        let mask = match byte.checked_sub(34) {
            Some(i) => nonzero_result(&m.data[at + 34..at + 38], i, r),
            None => r.mask(),
        };
        m.what = format!("page {page}: FIL byte {byte} ^= {mask:#04x}");
        // A flip of the space id to 0 would be accepted (pre-4.1 pages
        // carry 0); `nonzero_result` avoids it.
        m.flip(at + byte, mask);
        caught_by_checksum(&mut m, page);
    } else {
        let mut fields = vec![("FIL_PAGE_OFFSET", 4)];
        if has_space_id {
            fields.push(("FIL_PAGE_SPACE_ID", 34));
        }
        if lsn_pair {
            fields.push(("FIL_PAGE_LSN low word", 20));
        }
        let (name, off) = fields[r.below(fields.len())];
        let byte = off + r.below(4);
        let mask = nonzero_result(&m.data[at + off..at + off + 4], byte - off, r);
        m.what = format!("page {page}: {name} byte {byte} ^= {mask:#04x}, re-sealed");
        m.flip(at + byte, mask);
        seal_touched(c, &mut m);
        m.expect.rows = true;
        m.expect.file |= page == 0;
    }
    Ok(m)
}

/// A mask for byte `i` of a 4-byte field that does not turn the field into
/// 0 (a zero space id is accepted by design).
fn nonzero_result(field: &[u8], i: usize, r: &mut Rng) -> u8 {
    loop {
        let mask = r.mask();
        let mut f = field.to_vec();
        f[i] ^= mask;
        if f.iter().any(|&b| b != 0) {
            return mask;
        }
    }
}

fn fil_trailer_flip(c: &Clean, r: &mut Rng, _sealed: bool) -> Made {
    // Sealing rewrites the trailer, so this case is never sealed.
    let pages: Vec<u32> = c
        .valid_pages()
        .into_iter()
        .filter(|&p| c.checksummed(p) || c.facts[p as usize].lsn_pair.is_some())
        .filter(|&p| {
            // Bytes past a full_crc32 page_compressed page's payload are
            // covered by nothing.
            c.scheme != Scheme::FullCrc32
                || checksum::full_crc32_size(c.page(p)).is_some_and(|(_, comp)| !comp)
        })
        .collect();
    let page = r.pick(&pages).ok_or("no checksummed page")?;
    let byte = c.size - 1 - r.below(8);
    let mask = r.mask();
    let mut m = Mutation::new(
        c,
        format!("page {page}: trailer byte {byte} ^= {mask:#04x}"),
    );
    m.touch(page);
    // (Compressed pages have no trailer: these bytes are compressed data,
    // covered by the zip checksum all the same.)
    m.flip(c.at(page) + byte, mask);
    caught_by_checksum(&mut m, page);
    Ok(m)
}

fn fil_flush_lsn_flip(c: &Clean, r: &mut Rng, _sealed: bool) -> Made {
    // Bytes 26..34: FIL_PAGE_FILE_FLUSH_LSN (only meaningful on page 0 of
    // the system tablespace) or MariaDB's key version. Outside every
    // classic checksum, and outside the zip checksum too.
    if c.scheme == Scheme::FullCrc32 {
        return Err("full_crc32 covers bytes 26..34");
    }
    // Prefer the pages the structure code reads: INODE pages and roots.
    let structure: Vec<u32> = c
        .valid_pages()
        .into_iter()
        .filter(|&p| c.page_type(p) == PageType::FIL_PAGE_INODE || c.roots().contains(&p))
        .collect();
    let pool = if structure.is_empty() {
        c.valid_pages()
    } else {
        structure
    };
    let page = r.pick(&pool).ok_or("no valid page")?;
    let byte = r.range(26, 34);
    let mask = r.mask();
    let mut m = Mutation::new(
        c,
        format!("page {page}: flush-LSN byte {byte} ^= {mask:#04x}"),
    );
    m.touch(page);
    m.flip(c.at(page) + byte, mask);
    // No server reads these bytes on a page of a file-per-table space that
    // is not encrypted (MariaDB reads 26..30 as the key version only when
    // the space has crypt data), so a flip here must change nothing.
    m.invisible("FIL_PAGE_FILE_FLUSH_LSN is not read on file-per-table pages");
    Ok(m)
}

// FSP header ---------------------------------------------------------------

const FSP: usize = 38;

fn fsp_header_flip(c: &Clean, r: &mut Rng, sealed: bool) -> Made {
    let mut m = Mutation::new(c, String::new());
    m.touch(0);
    if !sealed && c.checksummed(0) {
        let byte = r.range(FSP, FSP + 112);
        let mask = r.mask();
        m.what = format!("page 0: FSP header byte {byte} ^= {mask:#04x}");
        m.flip(byte, mask);
        caught_by_checksum(&mut m, 0);
        return Ok(m);
    }
    match r.below(5) {
        0 => {
            let v = m.get32(FSP + 8) | 1 << r.range(16, 24);
            m.what = format!("FSP_SIZE = {v} (file has {} pages), re-sealed", c.n_pages);
            m.put32(FSP + 8, v);
            m.expect.file = true;
        }
        1 => {
            let mask = r.mask();
            m.what = format!("FSP_FRAG_N_USED low byte ^= {mask:#04x}, re-sealed");
            m.flip(FSP + 20 + 3, mask);
            m.expect.structure = true;
        }
        2 => {
            let (name, off) = r
                .pick(&[
                    ("FSP_FREE", 24),
                    ("FSP_FREE_FRAG", 40),
                    ("FSP_FULL_FRAG", 56),
                    ("FSP_SEG_INODES_FULL", 80),
                    ("FSP_SEG_INODES_FREE", 96),
                ])
                .unwrap();
            let mask = r.mask();
            m.what = format!("{name} FLST_LEN low byte ^= {mask:#04x}, re-sealed");
            m.flip(FSP + off + 3, mask);
            m.expect.structure = true;
        }
        3 => {
            // Below the INODE page: the used pages become "free".
            m.what = "FSP_FREE_LIMIT = 2, re-sealed".to_string();
            m.put32(FSP + 12, 2);
            m.expect.structure = true;
        }
        _ => {
            let byte = r.below(4);
            let mask = nonzero_result(&c.data[FSP..FSP + 4], byte, r);
            m.what = format!("FSP_SPACE_ID byte {byte} ^= {mask:#04x}, re-sealed");
            m.flip(FSP + byte, mask);
            m.expect.rows = true;
            // Every page now disagrees with the space's id.
            m.compare = Compare::Not("the space id changed for every page");
        }
    }
    seal_touched(c, &mut m);
    Ok(m)
}

fn fsp_flags_wrong_page_size(c: &Clean, r: &mut Rng, _sealed: bool) -> Made {
    use ibdscope_core::fsp::FspFlags;
    let flags = m_get32(&c.data, FSP + 16);
    // Flip flag bits until no reading of the flags gives the real size.
    let mut tries = 0;
    let new = loop {
        tries += 1;
        let bit = r.below(12);
        let cand = flags ^ (1 << bit);
        let size_kept = FspFlags(cand)
            .interpretations()
            .any(|f| f.physical_size as usize == c.size);
        if !size_kept || tries > 100 {
            break cand;
        }
    };
    let mut m = Mutation::new(
        c,
        format!("FSP_SPACE_FLAGS {flags:#x} -> {new:#x} (another page size), re-sealed"),
    );
    m.touch(0);
    m.put32(FSP + 16, new);
    seal_touched(c, &mut m);
    // Page 0 then fails to verify at the size its flags give: the format
    // comes from the other pages, and the file says page 0 is unusable;
    // when no other page verifies (all encrypted or page-compressed), the
    // page size cannot be known.
    m.expect.file = true;
    m.expect.unusable_ok = !others_verify(c);
    Ok(m)
}

fn m_get32(data: &[u8], at: usize) -> u32 {
    u32::from_be_bytes(data[at..at + 4].try_into().unwrap())
}

// XDES entries -------------------------------------------------------------

fn xdes_entry_flip(c: &Clean, r: &mut Rng, sealed: bool) -> Made {
    let esize = xdes_size(c.extent);
    let n_extents = c.n_pages.div_ceil(c.extent);
    // Entries of extents in use (on some list), on readable XDES pages.
    let state_of = |first: u32| {
        let xp = first - first % c.size as u32;
        let idx = (first % c.size as u32) / c.extent;
        XdesEntry::new(c.page(xp), idx, c.extent).map(|x| x.state())
    };
    let live: Vec<u32> = (0..n_extents)
        .filter(|&e| {
            let first = e * c.extent;
            let xp = first - first % c.size as u32;
            !matches!(state_of(first), Some(XdesState::NotInited) | None) && c.readable(xp)
        })
        .collect();
    let ext = r.pick(&live).ok_or("no initialised extent")?;
    let first = ext * c.extent;
    let xp = first - first % c.size as u32;
    let idx = (first % c.size as u32) / c.extent;
    let at = c.at(xp) + XDES_ARR_OFFSET + idx as usize * esize;
    let state = state_of(first).expect("entry");
    let mut m = Mutation::new(c, String::new());
    m.touch(xp);
    if !sealed && c.checksummed(xp) {
        let byte = r.below(esize);
        let mask = r.mask();
        m.what = format!("XDES entry of extent {first} (page {xp}) byte {byte} ^= {mask:#04x}");
        m.flip(at + byte, mask);
        caught_by_checksum(&mut m, xp);
        return Ok(m);
    }
    let in_file = (c.n_pages - first).min(c.extent);
    match r.below(5) {
        0 => {
            let v = 6 + r.below(250) as u32;
            m.what = format!("XDES_STATE of extent {first}: {state:?} -> {v}, re-sealed");
            m.put32(at + 20, v);
            m.expect.structure = true;
        }
        1 => {
            let i = r.below(in_file as usize);
            let bit = 2 * i;
            m.what = format!(
                "XDES_FREE_BIT of page {} flipped, re-sealed",
                first as usize + i
            );
            m.flip(at + 24 + bit / 8, 1 << (bit % 8));
            m.expect.structure = true;
        }
        2 => {
            let i = r.below(c.extent as usize);
            let bit = 2 * i + 1;
            m.what = format!(
                "XDES_CLEAN_BIT of page {} flipped, re-sealed",
                first as usize + i
            );
            m.flip(at + 24 + bit / 8, 1 << (bit % 8));
            // fsp0fsp.h: "XDES_CLEAN_BIT ... NOTE: currently not used!"
            m.invisible("XDES_CLEAN_BIT is never read by any server");
        }
        3 => {
            let byte = r.below(8);
            let mask = r.mask();
            m.what = format!("XDES_ID of extent {first} byte {byte} ^= {mask:#04x}, re-sealed");
            m.flip(at + byte, mask);
            if matches!(state, XdesState::Fseg | XdesState::FsegFrag) {
                m.expect.structure = true;
            } else {
                // Only segment extents use XDES_ID.
                m.invisible("XDES_ID is not read for extents outside a segment");
            }
        }
        _ => {
            // FLST_PREV or FLST_NEXT of the extent's list node (8..20).
            let which = r.below(2);
            let node = at + 8 + 6 * which;
            let page_null = m_get32(&c.data, node) == FIL_NULL;
            let byte = r.below(6);
            let mask = r.mask();
            m.what = format!(
                "XDES_FLST_NODE {} byte {byte} of extent {first} ^= {mask:#04x}, re-sealed",
                ["prev", "next"][which]
            );
            m.flip(node + byte, mask);
            if page_null && byte >= 4 {
                // fil_addr_is_null() reads the page field only.
                m.invisible("the byte offset of a FIL_NULL address is never read");
            } else {
                m.expect.structure = true;
            }
        }
    }
    seal_touched(c, &mut m);
    Ok(m)
}

// INODE entries ------------------------------------------------------------

/// Used inodes on readable INODE pages: (page, byte offset).
fn used_inodes(c: &Clean) -> Vec<(u32, usize)> {
    c.map
        .segments
        .iter()
        .filter(|s| c.readable(s.inode.page.0))
        .map(|s| (s.inode.page.0, usize::from(s.inode.byte)))
        .collect()
}

fn inode_entry_flip(c: &Clean, r: &mut Rng, sealed: bool) -> Made {
    let (ip, off) = r.pick(&used_inodes(c)).ok_or("no readable used inode")?;
    let at = c.at(ip) + off;
    let isize = inode_size(c.logical);
    let mut m = Mutation::new(c, String::new());
    m.touch(ip);
    if !sealed && c.checksummed(ip) {
        let byte = r.below(isize);
        let mask = r.mask();
        m.what = format!("inode {ip}:{off} byte {byte} ^= {mask:#04x}");
        m.flip(at + byte, mask);
        caught_by_checksum(&mut m, ip);
        return Ok(m);
    }
    let page = c.page(ip);
    let entry = InodeEntry::new(page, ((off - 50) / isize) as u32, c.size as u32, c.logical)
        .expect("inode");
    let used_slots: Vec<u32> = entry.frag_pages().map(|(i, _)| i).collect();
    let free_slots: Vec<u32> = (0..entry.n_frag_slots())
        .filter(|&i| entry.frag_slot(i) == Some(FIL_NULL))
        .collect();
    match r.below(6) {
        0 => {
            let byte = r.below(4);
            let mask = r.mask();
            m.what =
                format!("FSEG_MAGIC_N of inode {ip}:{off} byte {byte} ^= {mask:#04x}, re-sealed");
            m.flip(at + FSEG_MAGIC_N + byte, mask);
            m.expect.structure = true;
        }
        1 => {
            m.what = format!("FSEG_ID of inode {ip}:{off} = 0, re-sealed");
            m.data[at..at + 8].fill(0);
            // The root still names the inode, now unused.
            m.expect.structure = true;
        }
        2 if !used_slots.is_empty() => {
            let slot = r.pick(&used_slots).unwrap();
            // Another page that already has an owner: the IBUF bitmap.
            m.what = format!("fragment slot {slot} of inode {ip}:{off} = 1, re-sealed");
            m.put32(at + FSEG_FRAG_ARR + 4 * slot as usize, 1);
            m.expect.structure = true;
        }
        3 if !free_slots.is_empty() => {
            let slot = r.pick(&free_slots).unwrap();
            let target = c.n_pages + r.below(1000) as u32;
            m.what = format!(
                "empty fragment slot {slot} of inode {ip}:{off} = {target} (past the file), re-sealed"
            );
            m.put32(at + FSEG_FRAG_ARR + 4 * slot as usize, target);
            m.expect.structure = true;
        }
        4 => {
            let mask = r.mask();
            m.what = format!(
                "FSEG_NOT_FULL_N_USED of inode {ip}:{off} low byte ^= {mask:#04x}, re-sealed"
            );
            m.flip(at + 8 + 3, mask);
            m.expect.structure = true;
        }
        _ => {
            let (name, base) = r
                .pick(&[("FSEG_FREE", 12), ("FSEG_NOT_FULL", 28), ("FSEG_FULL", 44)])
                .unwrap();
            let mask = r.mask();
            m.what =
                format!("{name} FLST_LEN of inode {ip}:{off} low byte ^= {mask:#04x}, re-sealed");
            m.flip(at + base + 3, mask);
            m.expect.structure = true;
        }
    }
    seal_touched(c, &mut m);
    Ok(m)
}

// INDEX pages --------------------------------------------------------------

const PH: usize = 38; // PAGE_HEADER

fn index_header_flip(c: &Clean, r: &mut Rng, sealed: bool) -> Made {
    let page = r.pick(&c.index_pages()).ok_or("no readable index page")?;
    let at = c.at(page);
    let mut m = Mutation::new(c, String::new());
    m.touch(page);
    if !sealed && c.checksummed(page) {
        let byte = r.range(PH, PH + 56);
        let mask = r.mask();
        m.what = format!("page {page}: INDEX header byte {byte} ^= {mask:#04x}");
        m.flip(at + byte, mask);
        caught_by_checksum(&mut m, page);
        return Ok(m);
    }
    let is_root = c.roots().contains(&page);
    let owned = matches!(c.owner(page), Owner::Segment { index: Some(_), .. });
    let level = IndexHeader::new(c.page(page)).unwrap().level();
    match r.below(4) {
        0 if owned && !is_root => {
            // A leaf becomes level 1, an internal page level 0: either way
            // the page no longer fits its segment's role.
            let new = if level == 0 { 1 } else { 0 };
            m.what = format!("page {page}: PAGE_LEVEL {level} -> {new}, re-sealed");
            m.put16(at + PH + 26, new);
            m.expect.structure = true;
        }
        1 if owned => {
            let byte = r.range(4, 8);
            let mask = r.mask();
            m.what = format!("page {page}: PAGE_INDEX_ID byte {byte} ^= {mask:#04x}, re-sealed");
            m.flip(at + PH + 28 + byte, mask);
            m.expect.structure = true;
        }
        2 if is_root => {
            let (name, off) = r
                .pick(&[("PAGE_BTR_SEG_LEAF", 36), ("PAGE_BTR_SEG_TOP", 46)])
                .unwrap();
            let byte = r.below(10);
            let mask = r.mask();
            m.what = format!("root {page}: {name} byte {byte} ^= {mask:#04x}, re-sealed");
            m.flip(at + PH + off + byte, mask);
            m.expect.structure = true;
        }
        _ => {
            // The heap fields (PAGE_N_DIR_SLOTS .. PAGE_MAX_TRX_ID), checked
            // against the records.
            let byte = r.range(0, 26);
            let mask = r.mask();
            m.what = format!(
                "page {page}: INDEX header byte {} ^= {mask:#04x}, re-sealed",
                PH + byte
            );
            m.flip(at + PH + byte, mask);
            if c.scheme == Scheme::Zip {
                m.waive(GAP_ZIP);
            } else {
                match byte {
                    // PAGE_N_DIR_SLOTS, PAGE_N_HEAP, PAGE_FREE, PAGE_N_RECS:
                    // the directory, the chains and their counts disagree.
                    0..=1 | 4..=7 | 16..=17 => expect_records(c, &mut m, page),
                    // PAGE_HEAP_TOP, PAGE_GARBAGE: only record sizes tell.
                    2..=3 | 8..=9 => m.waive(GAP_SCHEMA),
                    _ => m.waive(GAP_HINTS),
                }
            }
        }
    }
    seal_touched(c, &mut m);
    Ok(m)
}

/// Record data and the header fields only record sizes can check: COMPACT
/// sizes need the column layout.
const GAP_SCHEMA: &str = "GAP: record bytes and PAGE_HEAP_TOP/PAGE_GARBAGE need the column \
     layout to be checked (COMPACT record sizes)";
/// Insert hints and the transaction id: every value is a valid state.
const GAP_HINTS: &str = "GAP: PAGE_LAST_INSERT, PAGE_DIRECTION, PAGE_N_DIRECTION and \
     PAGE_MAX_TRX_ID take any value on disk; no check reads them";
/// ROW_FORMAT=COMPRESSED: records not decoded.
const GAP_ZIP: &str =
    "GAP: ROW_FORMAT=COMPRESSED records are a zlib stream; only impossible header counts are checked";

/// Record damage on `page`: `page` must report it; when the page belongs to
/// an index's segments, `records` and `indexes` too (a free page that
/// still holds records is in no tree).
fn expect_records(c: &Clean, m: &mut Mutation, page: u32) {
    m.expect.page = true;
    m.expect.records = matches!(c.owner(page), Owner::Segment { index: Some(_), .. });
}

/// The user records of a clean plain index page: their origins.
fn user_origins(c: &Clean, page: u32) -> Vec<usize> {
    let rp = ibdscope_core::RecPage::new(c.page(page), c.logical).unwrap();
    let mut v = ibdscope_core::Visited::new();
    let mut it = rp.records(&mut v).unwrap();
    let mut out = Vec::new();
    while let Ok(Some(rec)) = it.next() {
        if rec.is_user() {
            out.push(usize::from(rec.origin));
        }
    }
    out
}

fn index_records_flip(c: &Clean, r: &mut Rng, sealed: bool) -> Made {
    let page = r.pick(&c.index_pages()).ok_or("no readable index page")?;
    let mut m = Mutation::new(c, String::new());
    m.touch(page);
    if !sealed && c.checksummed(page) {
        let byte = r.range(120, c.size - 8);
        let mask = r.mask();
        m.flip(c.at(page) + byte, mask);
        m.what = format!("page {page}: record area byte {byte} ^= {mask:#04x}");
        caught_by_checksum(&mut m, page);
        return Ok(m);
    }
    let h = IndexHeader::new(c.page(page)).unwrap();
    let heap_top = usize::from(h.heap_top());
    let dir_low = c.size - 8 - 2 * usize::from(h.n_dir_slots());
    let users = if c.scheme == Scheme::Zip {
        Vec::new()
    } else {
        user_origins(c, page)
    };
    // Pick a region: the directory, the free space, a next pointer, or
    // anywhere in the records.
    let (byte, what) = match r.below(4) {
        _ if c.scheme == Scheme::Zip => (r.range(120, c.size - 8), "compressed data"),
        0 => (r.range(dir_low, c.size - 8), "directory"),
        1 if dir_low > heap_top => (r.range(heap_top, dir_low), "free space"),
        2 if !users.is_empty() => (r.pick(&users).unwrap() - 2 + r.below(2), "next pointer"),
        _ => (r.range(120, heap_top.max(121)), "record heap"),
    };
    let mask = r.mask();
    m.flip(c.at(page) + byte, mask);
    m.what = format!("page {page}: {what} byte {byte} ^= {mask:#04x}, re-sealed");
    seal_touched(c, &mut m);
    match what {
        "directory" | "next pointer" => expect_records(c, &mut m, page),
        // No server reads between PAGE_HEAP_TOP and the directory.
        "free space" => m.invisible("free space of an index page is never read"),
        "compressed data" => m.waive(GAP_ZIP),
        _ => m.waive(GAP_SCHEMA),
    }
    Ok(m)
}

/// Index pages whose records are stored plainly (not ROW_FORMAT=COMPRESSED).
fn plain_index_pages(c: &Clean) -> Result<Vec<u32>, &'static str> {
    if c.scheme == Scheme::Zip {
        return Err("ROW_FORMAT=COMPRESSED: records are compressed");
    }
    let v = c.index_pages();
    if v.is_empty() {
        Err("no readable index page")
    } else {
        Ok(v)
    }
}

fn n_recs_huge(c: &Clean, r: &mut Rng, _sealed: bool) -> Made {
    let page = r.pick(&c.index_pages()).ok_or("no readable index page")?;
    let v = 0xFFFF - r.below(16) as u16;
    let mut m = Mutation::new(c, format!("page {page}: PAGE_N_RECS = {v}, re-sealed"));
    m.touch(page);
    m.put16(c.at(page) + PH + 16, v);
    seal_touched(c, &mut m);
    // More than the chain holds; on compressed pages more than PAGE_N_HEAP
    // allows.
    expect_records(c, &mut m, page);
    Ok(m)
}

fn n_dir_slots_huge(c: &Clean, r: &mut Rng, _sealed: bool) -> Made {
    let page = r.pick(&c.index_pages()).ok_or("no readable index page")?;
    let v = 0xFFFF - r.below(16) as u16;
    let mut m = Mutation::new(c, format!("page {page}: PAGE_N_DIR_SLOTS = {v}, re-sealed"));
    m.touch(page);
    m.put16(c.at(page) + PH, v);
    seal_touched(c, &mut m);
    // The directory would reach into the page header.
    expect_records(c, &mut m, page);
    Ok(m)
}

fn dir_slot_out_of_range(c: &Clean, r: &mut Rng, _sealed: bool) -> Made {
    let page = r.pick(&plain_index_pages(c)?).unwrap();
    let n_slots = IndexHeader::new(c.page(page)).unwrap().n_dir_slots().max(1) as usize;
    let slot = r.below(n_slots);
    let at = c.at(page) + c.size - 8 - 2 * (slot + 1);
    let v = *[0xFFFF, c.size as u16 ^ 0x8000, 5, 0]
        .get(r.below(4))
        .unwrap();
    let mut m = Mutation::new(
        c,
        format!("page {page}: directory slot {slot} = {v:#x}, re-sealed"),
    );
    m.touch(page);
    m.put16(at, v);
    seal_touched(c, &mut m);
    expect_records(c, &mut m, page);
    Ok(m)
}

/// The record chain of a plain index page from the infimum, as byte
/// offsets of record origins (bounded).
fn record_chain(page: &[u8]) -> Vec<usize> {
    let h = IndexHeader::new(page).unwrap();
    let compact = h.is_compact();
    let mut at = h.infimum();
    let mut out = vec![at];
    for _ in 0..8 {
        let raw = u16::from_be_bytes([page[at - 2], page[at - 1]]) as usize;
        let next = if compact {
            (at + raw) % 65536 % page.len()
        } else {
            raw
        };
        if next == 0 || next >= page.len() || out.contains(&next) {
            break;
        }
        out.push(next);
        at = next;
    }
    out
}

fn record_next_loop(c: &Clean, r: &mut Rng, _sealed: bool) -> Made {
    let page = r.pick(&plain_index_pages(c)?).unwrap();
    let chain = record_chain(c.page(page));
    let k = r.below(chain.len());
    let (from, to) = (chain[k], chain[r.below(k + 1)]);
    let mut m = Mutation::new(
        c,
        format!("page {page}: next pointer of the record at {from} -> {to} (a loop), re-sealed"),
    );
    m.touch(page);
    let compact = IndexHeader::new(c.page(page)).unwrap().is_compact();
    let v = if compact {
        (to as isize - from as isize).rem_euclid(65536) as u16
    } else {
        to as u16
    };
    m.put16(c.at(page) + from - 2, v);
    seal_touched(c, &mut m);
    expect_records(c, &mut m, page);
    Ok(m)
}

fn record_next_outside(c: &Clean, r: &mut Rng, _sealed: bool) -> Made {
    let page = r.pick(&plain_index_pages(c)?).unwrap();
    let chain = record_chain(c.page(page));
    let from = chain[r.below(chain.len())];
    let compact = IndexHeader::new(c.page(page)).unwrap().is_compact();
    // REDUNDANT: an absolute offset past the page. COMPACT offsets wrap
    // within the page (ut_align_offset), so "outside" is the FIL header.
    let (v, to) = if compact {
        let to = r.range(1, 38);
        ((to as isize - from as isize).rem_euclid(65536) as u16, to)
    } else {
        let to = c.size + r.below(0x10000 - c.size);
        (to as u16, to)
    };
    let mut m = Mutation::new(
        c,
        format!("page {page}: next pointer of the record at {from} -> {to}, re-sealed"),
    );
    m.touch(page);
    m.put16(c.at(page) + from - 2, v);
    seal_touched(c, &mut m);
    expect_records(c, &mut m, page);
    Ok(m)
}

// Whole pages --------------------------------------------------------------

fn page_zeroed(c: &Clean, r: &mut Rng, _sealed: bool) -> Made {
    let pages: Vec<u32> = c.non_empty_pages().into_iter().filter(|&p| p > 0).collect();
    let page = r.pick(&pages).ok_or("no non-empty page")?;
    let mut m = Mutation::new(c, format!("page {page} ({}) zeroed", owner_word(c, page)));
    m.touch(page);
    m.data[c.at(page)..c.at(page) + c.size].fill(0);
    // All-zero pages verify (servers accept never-written pages), so only
    // the structure can tell that a page in use lost its content: XDES
    // marks it used, and no real file has an all-zero page that is not
    // free (`no_real_file_has_an_all_zero_page_in_use`).
    if c.owner(page) == Owner::Free {
        m.invisible("the page is free: its bytes are not read");
    } else {
        m.expect.structure = true;
    }
    Ok(m)
}

fn owner_word(c: &Clean, page: u32) -> String {
    let o = c.owner(page);
    let t = c.page_type(page).display(c.names);
    match o {
        Owner::Segment { role, .. } if c.roots().contains(&page) => format!("{t} root, {role}"),
        _ => format!("{t}, {o}"),
    }
}

fn truncated_mid_page(c: &Clean, r: &mut Rng, _sealed: bool) -> Made {
    let k = r.range(1, c.n_pages as usize) as u32;
    let off = r.range(1, c.size);
    let cut = c.at(k) + off;
    let mut m = Mutation::new(c, format!("cut at byte {cut} (page {k} + {off})"));
    m.data.truncate(cut);
    for p in k..c.n_pages {
        m.touched.insert(p);
    }
    // A torn tail, and fewer pages than FSP_SIZE.
    m.expect.file = true;
    Ok(m)
}

fn truncated_at_page_boundary(c: &Clean, r: &mut Rng, _sealed: bool) -> Made {
    let limit = c.n_pages.min(c.fsp_size);
    if limit < 2 {
        return Err("FSP_SIZE below 2");
    }
    let k = r.range(1, limit as usize) as u32;
    let mut m = Mutation::new(
        c,
        format!("cut after page {} ({k} of {} pages)", k - 1, c.n_pages),
    );
    m.data.truncate(c.at(k));
    for p in k..c.n_pages {
        m.touched.insert(p);
    }
    // Fewer pages than FSP_SIZE.
    m.expect.file = true;
    Ok(m)
}

fn page_duplicated(c: &Clean, r: &mut Rng, _sealed: bool) -> Made {
    let src = r.pick(&c.non_empty_pages()).ok_or("no page")?;
    let dsts: Vec<u32> = (1..c.n_pages).filter(|&p| p != src).collect();
    let dst = r.pick(&dsts).ok_or("one page")?;
    let mut m = Mutation::new(c, format!("page {src} copied over page {dst}"));
    m.touch(dst);
    m.data.copy_within(c.at(src)..c.at(src) + c.size, c.at(dst));
    // The copy carries FIL_PAGE_OFFSET = src.
    m.expect.rows = true;
    Ok(m)
}

fn pages_swapped(c: &Clean, r: &mut Rng, _sealed: bool) -> Made {
    let pages: Vec<u32> = c.non_empty_pages().into_iter().filter(|&p| p > 0).collect();
    if pages.len() < 2 {
        return Err("fewer than two pages");
    }
    let a = r.pick(&pages).unwrap();
    let b = loop {
        let b = r.pick(&pages).unwrap();
        if b != a {
            break b;
        }
    };
    let mut m = Mutation::new(c, format!("pages {a} and {b} swapped"));
    m.touch(a);
    m.touch(b);
    let pa = c.page(a).to_vec();
    m.data.copy_within(c.at(b)..c.at(b) + c.size, c.at(a));
    m.data[c.at(b)..c.at(b) + c.size].copy_from_slice(&pa);
    m.expect.rows = true;
    Ok(m)
}

/// A file of another tablespace with the same page size, to take a page
/// from.
fn donor(c: &Clean) -> Option<(String, Vec<u8>)> {
    let name = match (c.size, c.scheme) {
        (16384, Scheme::FullCrc32) => "mariadb1011/uuid_bin16.ibd",
        (16384, _) => "mysql56/uuid_bin16.ibd",
        (4096, _) => "mariadb1011-4k/secondary.ibd",
        (8192, _) => "mariadb1011-crc32/rf_compressed8.ibd",
        _ => return None,
    };
    let data = std::fs::read(fixtures().join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    Some((name.to_string(), data))
}

fn page_from_other_space(c: &Clean, r: &mut Rng, _sealed: bool) -> Made {
    let (name, d) = donor(c).ok_or("no donor file at this page size")?;
    let donor_pages = (d.len() / c.size) as u32;
    let donor_ts = Tablespace::new(&d).map_err(|_| "donor unreadable")?;
    if donor_ts.space_id().0 == c.space_id {
        return Err("donor has the same space id");
    }
    // The same page number, so that only the space id (and checksum
    // algorithm) can tell.
    let pages: Vec<u32> = (1..c.n_pages.min(donor_pages))
        .filter(|&p| {
            d[p as usize * c.size..(p as usize + 1) * c.size]
                .iter()
                .any(|&b| b != 0)
        })
        .collect();
    let page = r.pick(&pages).ok_or("no common non-empty page")?;
    let mut m = Mutation::new(c, format!("page {page} replaced by page {page} of {name}"));
    m.touch(page);
    m.data[c.at(page)..c.at(page) + c.size]
        .copy_from_slice(&d[page as usize * c.size..(page as usize + 1) * c.size]);
    m.expect.rows = true;
    Ok(m)
}

fn page0_destroyed(c: &Clean, r: &mut Rng, sealed: bool) -> Made {
    let mut m = Mutation::new(c, String::new());
    m.touch(0);
    if sealed {
        m.what = "page 0 zeroed".to_string();
        m.data[..c.size].fill(0);
    } else {
        m.what = "page 0 overwritten with noise".to_string();
        for b in &mut m.data[..c.size] {
            *b = r.next() as u8;
        }
        m.expect.rows = true;
    }
    m.expect.file = true;
    // Detection falls back to the other pages; when none of them verifies
    // (every page encrypted or page-compressed) the page size cannot be
    // known and the file is unusable as a whole.
    m.expect.unusable_ok = !others_verify(c);
    Ok(m)
}

/// Whether pages other than page 0 verify (can decide the format when
/// page 0 cannot).
fn others_verify(c: &Clean) -> bool {
    (1..c.n_pages).any(|p| matches!(c.verdict(p), Verdict::Valid(_)))
}

fn fsp_list_loop(c: &Clean, r: &mut Rng, _sealed: bool) -> Made {
    let esize = xdes_size(c.extent);
    // (list, node address of each member in order)
    let mut lists: Vec<(FspList, Vec<(u32, usize)>)> = Vec::new();
    for l in &c.map.lists {
        if l.members.is_empty() {
            continue;
        }
        let nodes: Vec<(u32, usize)> = match l.list {
            FspList::SegInodesFull | FspList::SegInodesFree => {
                l.members.iter().map(|p| (p.0, 38)).collect()
            }
            _ => l
                .members
                .iter()
                .map(|p| {
                    let xp = p.0 - p.0 % c.size as u32;
                    let idx = (p.0 % c.size as u32) / c.extent;
                    (xp, XDES_ARR_OFFSET + idx as usize * esize + 8)
                })
                .collect(),
        };
        if nodes.iter().all(|&(p, _)| c.readable(p)) {
            lists.push((l.list, nodes));
        }
    }
    let (list, nodes) = r
        .pick(&(0..lists.len()).collect::<Vec<_>>())
        .map(|i| lists[i].clone())
        .ok_or("no readable non-empty FSP list")?;
    let (last_page, last_node) = *nodes.last().unwrap();
    let k = r.below(nodes.len());
    let (to_page, to_node) = nodes[k];
    let mut m = Mutation::new(
        c,
        format!(
            "{list:?}: FLST_NEXT of member {} ({last_page}:{last_node}) -> member {k} \
             ({to_page}:{to_node}), re-sealed",
            nodes.len() - 1
        ),
    );
    m.touch(last_page);
    let at = c.at(last_page) + last_node + 6;
    m.put32(at, to_page);
    m.put16(at + 4, to_node as u16);
    seal_touched(c, &mut m);
    m.expect.structure = true;
    Ok(m)
}

// ---------------------------------------------------------------------------
// The driver.

/// Whether a case re-seals the pages it changes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Seal {
    /// Every other file (first draw): half sealed.
    Half,
    /// Never (the case replaces whole pages or cuts the file).
    Never,
    /// Always (structure-only damage).
    Always,
}

type Mutator = fn(&Clean, &mut Rng, bool) -> Made;

/// Cases that need a file with segment extents and long lists run on the
/// `big` files too.
fn torture(case: &str, seal: Seal, big_too: bool, draws: u64, mutate: Mutator) {
    let cmds = commands();
    let bases = baselines();
    let start = Instant::now();
    let mut failures: Vec<String> = Vec::new();
    let mut ran = 0;
    let runs = sources().iter().zip(bases).enumerate();
    for ((i, (c, base)), draw) in runs.flat_map(|x| (0..draws).map(move |d| (x, d))) {
        // The big files are slow in debug builds: one draw each.
        if c.big && (!big_too || draw > 0) {
            continue;
        }
        let seed = fnv(case) ^ fnv(&c.name) ^ draw.wrapping_mul(0x5851_F42D_4C95_7F2D);
        let sealed = match seal {
            // Further draws are sealed: they pick other structure fields,
            // while an unsealed flip of the same page is caught the same
            // way every time (and page 0 damage is slow in debug builds:
            // detection then tries every page size).
            Seal::Half => draw > 0 || (fnv(case) as usize + i).is_multiple_of(2),
            Seal::Never => false,
            Seal::Always => true,
        };
        let mut rng = Rng::new(seed);
        let m = match mutate(c, &mut rng, sealed) {
            Ok(m) => m,
            Err(why) => {
                eprintln!("torture {case}: {}: not applicable: {why}", c.name);
                continue;
            }
        };
        let mut m = m;
        if m.touched.contains(&0) && !others_verify(c) {
            // Page 0 alone decides the format of a file whose other pages
            // are all encrypted or page-compressed: damaged, the file is
            // unusable as a whole.
            m.expect.unusable_ok = true;
        }
        ran += 1;
        if let Some(why) = m.expect.waived {
            eprintln!("torture {case}: {}: {}: waived: {why}", c.name, m.what);
        }
        let fails = check_mutation(&format!("{case}-{draw}"), c, base, &m, cmds);
        if !fails.is_empty() {
            let file = scratch_dir().join(format!("{case}-{draw}--{}", flat(&c.name)));
            std::fs::write(&file, &m.data).expect("keep failing input");
            let mut msg = format!(
                "[{case}] {} ({}), seed {seed:#x}; input kept at {}:",
                c.name,
                m.what,
                file.display()
            );
            for f in group(fails) {
                let _ = write!(msg, "\n    {f}");
            }
            failures.push(msg);
        }
    }
    eprintln!(
        "torture {case}: {ran} mutated files in {:.1} s",
        start.elapsed().as_secs_f64()
    );
    assert!(ran > 0, "{case}: applied to no file");
    assert!(
        failures.is_empty(),
        "{} of {ran} mutated files failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Failures of the form "`command`: problem", one line per problem with
/// the commands that had it.
fn group(fails: Vec<String>) -> Vec<String> {
    let mut by: Vec<(String, Vec<String>)> = Vec::new();
    for f in fails {
        let (cmd, problem) = match f.strip_prefix('`').and_then(|r| r.split_once("`: ")) {
            Some((c, p)) => (c.to_string(), p.to_string()),
            None => (String::new(), f),
        };
        match by.iter_mut().find(|(p, _)| *p == problem) {
            Some((_, cmds)) => cmds.push(cmd),
            None => by.push((problem, vec![cmd])),
        }
    }
    by.into_iter()
        .map(|(p, cmds)| match cmds.as_slice() {
            [c] if c.is_empty() => p,
            [c] => format!("`{c}`: {p}"),
            [c, ..] => format!("`{c}` and {} more runs: {p}", cmds.len() - 1),
            [] => p,
        })
        .collect()
}

/// `mysql56/ai_int.ibd` as `mysql56_ai_int.ibd`.
fn flat(name: &str) -> String {
    name.replace('/', "_")
}

fn check_mutation(
    case: &str,
    c: &Clean,
    base: &Baseline,
    m: &Mutation,
    cmds: &[Cmd],
) -> Vec<String> {
    let file = scratch_dir().join(format!("{case}--{}", flat(&c.name)));
    std::fs::write(&file, &m.data).expect("write mutated copy");
    let path = file.to_string_lossy().into_owned();
    let page = m.touched.iter().next().copied().unwrap_or(3);
    let tag = format!("{case}--{}", flat(&c.name).trim_end_matches(".ibd"));
    let mut fails = Vec::new();
    let mut codes: Vec<(String, Option<i32>)> = Vec::new();
    for cmd in cmds {
        for f in &cmd.formats {
            let o = run_mutated(cmd, Some(f), &c.path, &file, page, &tag);
            let sh = o
                .shell()
                .replace(&path, "FILE")
                .replace(&c.path.to_string_lossy().into_owned(), "CLEAN");
            if o.hung {
                fails.push(format!("`{sh}`: hang (killed after {TIME_LIMIT:?})"));
                continue;
            }
            if o.code == Some(101) || o.stderr.contains("panicked") {
                fails.push(format!("`{sh}`: panic: {}", o.stderr.trim()));
                continue;
            }
            let Some(code) = o.code else {
                fails.push(format!("`{sh}`: killed by a signal: {}", o.stderr.trim()));
                continue;
            };
            // A page asked for past the end (`page N` of a cut copy) is
            // exit 2 by the one rule for pages past the end: what was
            // asked could not be read, not the file.
            let past_end = code == 2 && o.stderr.contains(" is past the end of the file (");
            if !past_end && !matches!(cmd.duty, Duty::Table | Duty::Datadir) {
                // `schema`/`rows` also exit 2 when the definition or the
                // index root is lost, which other commands do not need
                // (`tables` always does on a file that is not ibdata1).
                codes.push((sh.clone(), Some(code)));
            }
            if !(0..=2).contains(&code) {
                fails.push(format!("`{sh}`: exit {code}"));
                continue;
            }
            if code == 2 {
                if !o.stderr.contains(&path) {
                    fails.push(format!(
                        "`{sh}`: exit 2 without naming the file: {}",
                        o.stderr.trim()
                    ));
                }
                if !m.expect.unusable_ok
                    && !past_end
                    && !matches!(cmd.duty, Duty::Table | Duty::Datadir)
                {
                    fails.push(format!(
                        "`{sh}`: exit 2 (file unusable as a whole) for local damage: {}",
                        o.stderr.trim()
                    ));
                }
                continue;
            }
            let e = m.expect;
            if cmd.duty == Duty::Bytes {
                if code != 1 {
                    fails.push(format!(
                        "`{sh}`: exit {code}: the changed bytes went unreported"
                    ));
                }
                continue;
            }
            if let Some(why) = e.invisible {
                // `schema`/`rows` exit as on the clean file (1 or 2 where
                // rows cannot be decoded), the others 0.
                let clean = match cmd.duty {
                    Duty::Table | Duty::Datadir => base
                        .codes
                        .get(&format!("{} {f}", cmd.name))
                        .copied()
                        .flatten()
                        .unwrap_or(0),
                    _ => 0,
                };
                if code != clean {
                    fails.push(format!(
                        "`{sh}`: exit {code}: damage reported where no server sees any ({why}): {}",
                        first_line(&o.stdout)
                    ));
                }
            }
            let duty = match cmd.duty {
                Duty::Rows => e.rows,
                Duty::RowsAndFile => e.rows || e.file,
                Duty::Structure => e.structure,
                Duty::IndexTree => e.structure || e.records,
                Duty::Page => e.rows || e.page,
                Duty::Records => e.records,
                Duty::Audit => e.rows || e.file || e.structure,
                Duty::Inventory | Duty::Unknown | Duty::Bytes | Duty::Table | Duty::Datadir => {
                    false
                }
            };
            if duty && e.waived.is_none() && code == 0 {
                fails.push(format!("`{sh}`: exit 0: the damage went unreported"));
            }
            if cmd.name == "pages" && f == "jsonl" {
                compare_rows(c, base, m, &o.stdout, &mut fails);
            }
            if cmd.name == "check" && f == "json" {
                let stray: Vec<u32> = check_json_bad_pages(&o.stdout)
                    .into_iter()
                    .filter(|p| !m.touched.contains(p))
                    .collect();
                if !stray.is_empty() && !matches!(m.compare, Compare::Not(_)) {
                    fails.push(format!(
                        "`{sh}`: untouched pages reported damaged: {stray:?}"
                    ));
                }
            }
            if cmd.name == "info" && f == "json" && m.page_size_kept {
                let got = json_u64(&o.stdout, "physical_page_size");
                if got != Some(c.size as u64) {
                    fails.push(format!(
                        "`{sh}`: physical page size {got:?}, the file's is {}",
                        c.size
                    ));
                }
            }
        }
    }
    // Every command opens the file the same way: either all can read it or
    // none.
    let twos = codes.iter().filter(|(_, c)| *c == Some(2)).count();
    if twos != 0 && twos != codes.len() {
        fails.push(format!("exit 2 from only some commands: {codes:?}"));
    }
    if fails.is_empty() {
        let _ = std::fs::remove_file(&file);
    }
    fails
}

/// The first line that names a finding, for messages.
fn first_line(out: &str) -> &str {
    out.lines()
        .find(|l| l.contains("byte offset") || l.contains("not readable"))
        .unwrap_or("")
}

fn compare_rows(c: &Clean, base: &Baseline, m: &Mutation, out: &str, fails: &mut Vec<String>) {
    if let Compare::Not(_) = m.compare {
        return;
    }
    let rows = jsonl_rows(out);
    let mut differ = Vec::new();
    for (p, row) in &base.rows {
        if m.touched.contains(p) {
            continue;
        }
        let Some(now) = rows.get(p) else {
            differ.push(format!("page {p} missing"));
            continue;
        };
        let (now, was) = (without_index_name(now), without_index_name(row));
        let same = match m.compare {
            Compare::SameButTypeName => without_type_name(&now) == without_type_name(&was),
            _ => now == was,
        };
        if !same {
            differ.push(format!("page {p}: was {row}, now {now}"));
        }
    }
    if !differ.is_empty() {
        differ.truncate(4);
        fails.push(format!(
            "untouched pages of {} reported differently: {}",
            c.name,
            differ.join("; ")
        ));
    }
}

// ---------------------------------------------------------------------------
// The cases.

mod cases {
    use super::{torture, Seal};

    macro_rules! cases {
        ($($name:ident: $seal:ident, big files too: $big:expr, draws: $draws:expr;)*) => {$(
            #[test]
            fn $name() {
                torture(stringify!($name), Seal::$seal, $big, $draws, super::$name);
            }
        )*};
    }

    cases! {
        fil_header_flip: Half, big files too: false, draws: 1;
        fil_trailer_flip: Never, big files too: false, draws: 1;
        fil_flush_lsn_flip: Never, big files too: false, draws: 1;
        fsp_header_flip: Half, big files too: false, draws: 3;
        fsp_flags_wrong_page_size: Always, big files too: false, draws: 1;
        xdes_entry_flip: Half, big files too: true, draws: 3;
        inode_entry_flip: Half, big files too: true, draws: 3;
        index_header_flip: Half, big files too: true, draws: 3;
        index_records_flip: Half, big files too: false, draws: 4;
        n_recs_huge: Always, big files too: false, draws: 1;
        n_dir_slots_huge: Always, big files too: false, draws: 1;
        dir_slot_out_of_range: Always, big files too: false, draws: 1;
        record_next_loop: Always, big files too: false, draws: 1;
        record_next_outside: Always, big files too: false, draws: 1;
        page_zeroed: Never, big files too: true, draws: 1;
        truncated_mid_page: Never, big files too: false, draws: 1;
        truncated_at_page_boundary: Never, big files too: false, draws: 1;
        page_duplicated: Never, big files too: false, draws: 1;
        pages_swapped: Never, big files too: false, draws: 1;
        page_from_other_space: Never, big files too: false, draws: 1;
        page0_destroyed: Half, big files too: false, draws: 1;
        fsp_list_loop: Always, big files too: true, draws: 1;
    }
}

// ---------------------------------------------------------------------------
// Forced page sizes.

/// `--page-size` with every supported size on every (small) file: the
/// wrong sizes must be reported by `info` and `check`, the right one must
/// read as clean, and nothing may panic or hang.
#[test]
fn forced_page_sizes() {
    let cmds = commands();
    let mut fails = Vec::new();
    for c in sources().iter().filter(|c| !c.big) {
        for size in ibdscope_core::space::PAGE_SIZES {
            let flag = size.to_string();
            for cmd in cmds {
                let f = cmd.formats.first().map(String::as_str);
                let tag = format!("forced-{size}--{}", flat(&c.name));
                let o = run_with(cmd, f, &["--page-size", &flag], &c.path, 3, &tag);
                let sh = o.shell();
                if o.hung
                    || o.code == Some(101)
                    || o.stderr.contains("panicked")
                    || o.code.is_none()
                {
                    fails.push(format!(
                        "`{sh}`: hang, panic or signal: {}",
                        o.stderr.trim()
                    ));
                    continue;
                }
                let code = o.code.unwrap_or(-1);
                let right = size as usize == c.size;
                let ok = match (cmd.duty, right) {
                    (_, true) => {
                        code == 0
                            || cmd.duty == Duty::Unknown
                            || (matches!(cmd.duty, Duty::Table | Duty::Datadir)
                                && (1..=2).contains(&code))
                    }
                    (Duty::RowsAndFile | Duty::Audit, false) => code == 1 || code == 2,
                    _ => (0..=2).contains(&code),
                };
                if !ok {
                    fails.push(format!("`{sh}`: exit {code}: {}", o.stderr.trim()));
                }
            }
        }
    }
    assert!(fails.is_empty(), "{}", fails.join("\n"));
}

// ---------------------------------------------------------------------------
// What the cases rely on.

/// `page_zeroed` expects an all-zero page in use to be reported: no real
/// file of the fixtures or the corpus has one (the servers write every page
/// they allocate), so the check cannot misfire on undamaged files.
#[test]
fn no_real_file_has_an_all_zero_page_in_use() {
    let mut files = Vec::new();
    let fx = fixtures();
    for r in super::common::read_tsv(&fx.join("manifest.tsv")) {
        files.push(fx.join(&r["path"]));
    }
    if let Some(dir) = corpus() {
        for r in super::common::read_tsv(&dir.join("manifest.tsv")) {
            files.push(dir.join(&r["path"]));
        }
    }
    for path in files {
        let data = std::fs::read(&path).unwrap();
        let ts = Tablespace::new(&data).unwrap();
        let map = SpaceMap::build(&ts, &Engine::default());
        let in_use: Vec<(u32, Owner)> = ts
            .scan()
            .filter(|f| f.verdict == Verdict::Empty)
            .map(|f| (f.page_no.0, map.owner(&ts, f.page_no).unwrap()))
            .filter(|&(_, o)| o != Owner::Free)
            .collect();
        assert!(in_use.is_empty(), "{}: {in_use:?}", path.display());
    }
}

// ---------------------------------------------------------------------------
// Regressions: each bug the cases found, minimal and named for what broke.

fn scratch_copy(name: &str, data: &[u8]) -> PathBuf {
    let p = scratch_dir().join(name);
    std::fs::write(&p, data).expect("scratch copy");
    p
}

fn cmd(name: &str) -> &'static Cmd {
    commands().iter().find(|c| c.name == name).expect("command")
}

/// Page 0 of a MariaDB PAGE_COMPRESSED file (crc32, not full_crc32)
/// damaged: the fallback detection must keep reading the other pages as
/// page_compressed (not verifiable), not as ROW_FORMAT=COMPRESSED pages
/// whose stored 0xDEADBEEF "verifies" as zip `none`.
///
/// Found by fil_header_flip, fil_trailer_flip, fsp_header_flip,
/// fsp_flags_wrong_page_size, xdes_entry_flip and page0_destroyed on
/// mariadb1011-crc32/pagecomp.ibd.
#[test]
fn regression_pagecomp_with_page0_damaged_is_not_read_as_zip() {
    let mut data = std::fs::read(fixtures().join("mariadb1011-crc32/pagecomp.ibd")).unwrap();
    data[7] ^= 0x50; // FIL_PAGE_OFFSET of page 0: page 0 no longer decides.
    let ts = Tablespace::new(&data).unwrap();
    assert_eq!(ts.page_size(), 16384);
    let page1 = ts.scan().nth(1).unwrap();
    assert_eq!(
        (ts.scheme(), page1.verdict),
        (
            Scheme::Classic,
            Verdict::Unverifiable(checksum::Unverifiable::PageCompressed)
        ),
        "{:#?}",
        ts.detection().evidence
    );
    let f = scratch_copy("pagecomp-page0-flip.ibd", &data);
    let o = run(cmd("pages"), Some("jsonl"), &f, 1, "regression-pagecomp");
    // `pages` judges the page after decompression, as `check` does: its
    // checksum is the crc32 the manifest names, not the zip `none`.
    let row1 = jsonl_rows(&o.stdout).remove(&1).unwrap_or_default();
    assert!(row1.contains("\"checksum\":\"crc32\""), "{row1}");
    let _ = std::fs::remove_file(f);
}

/// One byte of FIL_PAGE_FILE_FLUSH_LSN (bytes 26..34: outside every classic
/// checksum, never read on a file-per-table page) flipped on the INODE page
/// of a MySQL 5.6 file: the server reads the file without complaint, so
/// must ibdscope. The structure code took bytes 26..30 for a MariaDB key
/// version and the INODE page for an encrypted one: every segment vanished
/// and the root was blamed ("names a page that is not a listed INODE
/// page"), exit 1.
///
/// Found by fil_flush_lsn_flip.
#[test]
fn regression_flush_lsn_byte_does_not_hide_the_inode_page() {
    let clean = fixtures().join("mysql56/ai_int.ibd");
    let mut data = std::fs::read(&clean).unwrap();
    data[2 * 16384 + 27] ^= 0x10;
    assert_eq!(
        Tablespace::new(&data)
            .unwrap()
            .scan()
            .nth(2)
            .unwrap()
            .verdict,
        Verdict::Valid(Algorithm::Innodb),
        "the page still verifies"
    );
    let f = scratch_copy("flush-lsn-inode.ibd", &data);
    for name in ["segments", "indexes", "extents", "lists"] {
        let o = run(cmd(name), Some("json"), &f, 2, "regression-flush-lsn");
        let want = run(
            cmd(name),
            Some("json"),
            &clean,
            2,
            "regression-flush-lsn-clean",
        );
        assert_eq!(o.code, Some(0), "{name}: {}", o.stdout);
        // The clean file has its .frm beside it (index names); the copy not.
        let strip = |s: &str| {
            s[s.find(",\"").unwrap_or(0)..]
                .replace("\"index_name\":\"PRIMARY\"", "\"index_name\":null")
        };
        assert_eq!(strip(&o.stdout), strip(&want.stdout), "{name}");
    }
    let _ = std::fs::remove_file(f);
}

/// A leaf page in use (XDES: used; the leaf segment's fragment slot names
/// it) zeroed. All-zero pages verify, so only the structure can tell; no
/// real file has an all-zero page in use
/// (`no_real_file_has_an_all_zero_page_in_use`), yet every command exited 0.
///
/// Found by page_zeroed on every file.
#[test]
fn regression_zeroed_page_in_use_is_reported() {
    let mut data = std::fs::read(fixtures().join("mysql56/ai_int.ibd")).unwrap();
    data[13 * 16384..14 * 16384].fill(0);
    let f = scratch_copy("zeroed-leaf.ibd", &data);
    for name in ["extents", "segments", "indexes"] {
        let o = run(cmd(name), Some("text"), &f, 13, "regression-zeroed");
        assert_eq!(o.code, Some(1), "{name}: {}", o.stdout);
        assert!(o.stdout.contains("page 13"), "{name}: {}", o.stdout);
    }
    let _ = std::fs::remove_file(f);
}

/// The MariaDB PAGE_COMPRESSED fixtures (full_crc32 and crc32) with a
/// compressed page damaged where only decompression can tell: a byte of
/// the zlib stream (the Adler-32 or the stream itself breaks), the payload
/// size field, and the compressed INODE page's stream. For full_crc32 the
/// page's CRC-32C is re-sealed over its compressed bytes, so `check` sees a
/// valid page. The structure commands and `rows`/`schema` read the logical
/// image (docs/format.md §16): they must not panic or hang, must name the
/// page on stderr with a byte offset, and exit 1 or 2; the clean files
/// exit 0 in all of them (`baselines`, and below).
#[test]
fn pagecomp_damage_is_named_by_the_structure_commands_and_rows() {
    // (file, page, what): page 5 is an INDEX leaf, page 2 the INODE page
    // (pages.tsv); both compressed in both files.
    let structure = [
        "extents", "segments", "lists", "indexes", "fill", "records", "compare", "rows", "schema",
    ];
    for name in ["mariadb1011/pagecomp.ibd", "mariadb1011-crc32/pagecomp.ibd"] {
        let src = fixtures().join(name);
        let clean = std::fs::read(&src).unwrap();
        let ts = Tablespace::new(&clean).unwrap();
        let full_crc32 = ts.scheme() == Scheme::FullCrc32;
        // Where the compressed stream starts (§16): 26 in full_crc32, 40
        // otherwise.
        let header = if full_crc32 { 26 } else { 40 };
        for (page, what) in [(5usize, "stream"), (5, "size"), (2, "inode")] {
            let mut data = clean.clone();
            let at = page * 16384;
            match what {
                "size" if full_crc32 => {
                    // Stored size / 256 = 0x7FFF: past the page.
                    data[at + 24] = 0xFF;
                    data[at + 25] = 0xFF;
                }
                "size" => {
                    data[at + 38] = 0xFF;
                    data[at + 39] = 0xFF;
                }
                _ => data[at + header + 60] ^= 0x24,
            }
            if full_crc32 && what != "size" {
                let t = u16::from_be_bytes([data[at + 24], data[at + 25]]);
                let size = usize::from(t & 0x7FFF) << 8;
                let crc = checksum::full_crc32(&data[at..at + size]).to_be_bytes();
                data[at + size - 4..at + size].copy_from_slice(&crc);
                assert_eq!(
                    checksum::verify_full_crc32(&data[at..at + 16384]).0,
                    Verdict::Valid(Algorithm::FullCrc32),
                    "{name}: page {page} re-sealed"
                );
            }
            let tag = format!("pagecomp-{}-{what}", name.replace('/', "_"));
            let f = scratch_copy(&format!("{tag}.ibd"), &data);
            // The .frm beside the clean file gives the definition.
            let frm = src.with_extension("frm");
            std::fs::copy(&frm, f.with_extension("frm")).unwrap();
            for c in structure {
                let cmd = cmd(c);
                for format in &cmd.formats {
                    let o = run_mutated(cmd, Some(format), &src, &f, page as u32, &tag);
                    let shell = o.shell();
                    assert!(!o.hung, "{shell}: hung");
                    assert!(
                        !o.stderr.contains("panicked") && matches!(o.code, Some(1 | 2)),
                        "{shell}: exit {:?}: {}",
                        o.code,
                        o.stderr
                    );
                    assert!(
                        o.stderr.contains(&format!("page {page} at byte offset "))
                            && o.stderr.contains(": page_compressed"),
                        "{shell}: the page is not named: {}",
                        o.stderr
                    );
                }
            }
            // check: a re-sealed full_crc32 page passes its CRC-32C, then
            // does not decompress, which the server reads as corruption
            // too (`fil_page_decompress_for_full_crc32` after
            // `buf_page_is_corrupted`).
            let o = run(cmd("check"), Some("text"), &f, page as u32, &tag);
            if full_crc32 && what != "size" {
                assert_eq!(o.code, Some(1), "check {name} {what}: {}", o.stdout);
                assert!(
                    o.stdout.contains(&format!("page {page} at byte offset"))
                        && o.stdout.contains("does not decompress"),
                    "check {name} {what}: {}",
                    o.stdout
                );
            }
            let _ = std::fs::remove_file(f.with_extension("frm"));
            let _ = std::fs::remove_file(f);
        }
        // The clean file: every structure command exits 0 and reads the
        // server's rows (tests/integration/rows.rs compares them).
        for c in structure {
            let o = run(cmd(c), Some("text"), &src, 3, "pagecomp-clean");
            assert_eq!(o.code, Some(0), "{}: {}", o.shell(), o.stderr);
        }
    }
}

/// ROW_FORMAT=COMPRESSED leaf pages damaged where only decompression reads
/// them (crates/ibdscope/src/zip.rs, docs/format.md): a byte of the zlib
/// stream (the Adler-32 or the stream itself breaks), the dense directory's
/// first entry (an offset inside the page header), the field information
/// (the stream's first block). `rows` must not panic or hang, must exit 1,
/// and must name the page and a byte offset; the other pages' rows are
/// still printed. The clean file exits 0 (`baselines`).
#[test]
fn zip_damage_is_named_by_rows() {
    let name = "mysql56/rf_compressed8.ibd";
    let src = fixtures().join(name);
    let clean = std::fs::read(&src).unwrap();
    // Page 5: a clustered leaf page (fixtures/pages.tsv), 8K compressed.
    let (page, size) = (5usize, 8192usize);
    for what in ["stream", "directory", "fields"] {
        let mut data = clean.clone();
        let at = page * size;
        match what {
            "stream" => data[at + 94 + 300] ^= 0x5a,
            // The first dense directory entry: offset 0x0010, owned.
            "directory" => {
                data[at + size - 2] = 0x40;
                data[at + size - 1] = 0x10;
            }
            // The zlib header's second byte: the header check fails.
            _ => data[at + 95] ^= 0x01,
        }
        let tag = format!("zip-{what}");
        let f = scratch_copy(&format!("{tag}.ibd"), &data);
        let o = run_mutated(cmd("rows"), Some("tsv"), &src, &f, page as u32, &tag);
        let shell = o.shell();
        assert!(!o.hung, "{shell}: hung");
        assert!(
            !o.stderr.contains("panicked") && o.code == Some(1),
            "{shell}: exit {:?}: {}",
            o.code,
            o.stderr
        );
        assert!(
            o.stderr
                .contains(&format!("page {page}: ROW_FORMAT=COMPRESSED page: "))
                && o.stderr.contains(" byte "),
            "{shell}: the page is not named: {}",
            o.stderr
        );
        assert!(o.stdout.lines().count() > 1000, "{shell}: the other rows");
        let _ = std::fs::remove_file(f);
    }
}

// ---------------------------------------------------------------------------
// The instance: the system tablespace and the InnoDB dictionary, mutated in
// copies of the real datadirs of fixtures/instance (MySQL 5.6.24, MariaDB
// 10.11 with ibdata1 continued by ibdata2). Every command that reads them
// runs on each copy under the time limit and must not hang or panic, must
// exit 1 or 2 (2 only where nothing of the dictionary can be read), must
// name the damaged file, page and byte offset where the damage is a page,
// and must still list the tables whose SYS_TABLES rows are intact (the
// servers' own INNODB_SYS_TABLES, fixtures/instance/sys_tables.tsv).

/// The dictionary header's root field (`dict0boot.h`, offsets from
/// `DICT_HDR` = 38 on page 7): 32 SYS_TABLES, 40 SYS_COLUMNS.
fn sys_root(ibdata1: &[u8], field: usize) -> u32 {
    let at = 7 * 16384 + 38 + field;
    u32::from_be_bytes(ibdata1[at..at + 4].try_into().expect("4 bytes"))
}

/// Seals a 16 KiB page again with the algorithm its clean copy verified
/// under (full_crc32, crc32 or the old InnoDB checksum).
pub(crate) fn reseal(clean: &[u8], p: &mut [u8]) {
    let n = p.len();
    let stored = u32::from_be_bytes(clean[n - 4..].try_into().expect("4"));
    if checksum::full_crc32(clean) == stored {
        let v = checksum::full_crc32(p).to_be_bytes();
        p[n - 4..].copy_from_slice(&v);
    } else if checksum::page_crc32(clean).to_be_bytes() == clean[..4] {
        let v = checksum::page_crc32(p).to_be_bytes();
        p[..4].copy_from_slice(&v);
        p[n - 8..n - 4].copy_from_slice(&v);
    } else {
        let new = checksum::page_innodb_new(p).to_be_bytes();
        p[..4].copy_from_slice(&new);
        let old = checksum::page_innodb_old(p).to_be_bytes();
        p[n - 8..n - 4].copy_from_slice(&old);
    }
}

/// What a mutated datadir must give.
struct DictExpect {
    /// `file, page N, byte offset B` that every dictionary reader names
    /// (file by its name in the datadir), when the damage is one page.
    place: Option<(&'static str, u32, u64)>,
    /// `tables`' exit code: 1 (findings, the rest listed) or 2.
    tables_exit: i32,
    /// Tables that must still be listed.
    survivors: Vec<String>,
    /// Whether `info ibdata1` and `audit` see the damage in the pages
    /// themselves (a checksum, a short file); a sealed structure change
    /// is only the dictionary readers' to find.
    pages_damaged: bool,
}

/// A copy of the unpacked datadir `name` under the torture scratch dir.
fn instance_scratch(name: &str, case: &str) -> PathBuf {
    fn copy(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).expect("mkdir");
        for e in std::fs::read_dir(from).expect("read_dir") {
            let e = e.expect("entry");
            if e.path().is_dir() {
                copy(&e.path(), &to.join(e.file_name()));
            } else {
                std::fs::copy(e.path(), to.join(e.file_name())).expect("copy");
            }
        }
    }
    let to = scratch_dir().join(format!("instance-{case}-{name}"));
    let _ = std::fs::remove_dir_all(&to);
    copy(&super::common::instance_copy(name), &to);
    to
}

/// The tables of `datadir` the server listed (INNODB_SYS_TABLES).
fn server_tables(datadir: &str) -> Vec<String> {
    super::common::read_tsv(&fixtures().join("instance/sys_tables.tsv"))
        .into_iter()
        .filter(|r| r["datadir"] == datadir)
        .map(|r| r["name"].clone())
        .collect()
}

/// Runs every dictionary reader on `dir` and holds it to `want`.
fn instance_torture(case: &str, datadir: &str, dir: &Path, want: &DictExpect) {
    let d = dir.to_str().expect("utf-8");
    let ibd = dir.join("fx/t_basic.ibd");
    let ibd = ibd.to_str().expect("utf-8");
    let ibdata1 = dir.join("ibdata1");
    let ibdata1 = ibdata1.to_str().expect("utf-8");
    let runs: Vec<(&str, Vec<&str>)> = vec![
        ("tables", vec!["tables", d]),
        ("tables-json", vec!["tables", "--format", "json", d]),
        ("rows", vec!["rows", "--datadir", d, ibd]),
        ("schema", vec!["schema", "--datadir", d, ibd]),
        ("indexes", vec!["indexes", "--datadir", d, ibd]),
        ("audit", vec!["audit", d]),
        ("audit-json", vec!["audit", "--format", "json", d]),
        ("info", vec!["info", ibdata1]),
        ("indexes-ibdata1", vec!["indexes", ibdata1]),
    ];
    let mut fails = Vec::new();
    for (tag, args) in runs {
        let o = exec(
            args.iter().map(OsString::from).collect(),
            &format!("instance-{case}-{datadir}-{tag}"),
        );
        let all = format!("{}{}", o.stdout, o.stderr);
        let mut fail = |why: String| fails.push(format!("{}: {why}", o.shell()));
        if o.hung {
            fail("hung".into());
            continue;
        }
        if o.code == Some(101) || o.stderr.contains("panicked") {
            fail(format!("panicked: {}", first_line(&o.stderr)));
            continue;
        }
        let Some(code) = o.code else {
            fail("killed by a signal".into());
            continue;
        };
        if !(0..=2).contains(&code) {
            fail(format!("exit {code}"));
            continue;
        }
        let in_scope = match tag {
            "info" | "audit" | "audit-json" => want.pages_damaged || tag != "info",
            "indexes-ibdata1" => want.pages_damaged,
            _ => true,
        };
        if in_scope && code == 0 {
            fail(format!("exit 0 on a damaged datadir\n{}", first_line(&all)));
        }
        if tag.starts_with("tables") && code != want.tables_exit {
            fail(format!(
                "exit {code}, want {}: {}",
                want.tables_exit,
                first_line(&o.stderr)
            ));
        }
        if code == 2 && o.stderr.trim().is_empty() {
            fail("exit 2 with nothing on stderr".into());
        }
        // The damaged page by file, page and byte offset, from every reader
        // of the dictionary.
        if let Some((file, page, at)) = want.place {
            let placed = all.contains(&format!("{file}, page {page}, byte offset {at}"))
                || (all.contains(file)
                    && all.contains(&format!("page {page}"))
                    && all.contains(&format!("byte offset {at}")));
            let reads_dict = matches!(tag, "tables" | "tables-json" | "audit" | "audit-json")
                || (matches!(tag, "rows" | "schema" | "indexes") && code != 0);
            if reads_dict && !placed {
                fail(format!(
                    "does not name {file}, page {page}, byte offset {at}"
                ));
            }
        }
        if tag == "tables" && code == 1 {
            for t in &want.survivors {
                if !o
                    .stdout
                    .lines()
                    .any(|l| l.starts_with(&format!("{t}  id ")))
                {
                    fail(format!("table {t} (intact rows) not listed"));
                }
            }
        }
    }
    assert!(
        fails.is_empty(),
        "{case} on {datadir}:\n{}",
        fails.join("\n")
    );
}

/// Applies `mutate` to a copy of each instance datadir and runs the readers.
fn instance_case(case: &str, mutate: fn(&Path, &str) -> Option<DictExpect>) {
    let mut ran = 0;
    for datadir in ["mysql56-fpt", "mariadb1011-split"] {
        let dir = instance_scratch(datadir, case);
        match mutate(&dir, datadir) {
            Some(want) => {
                instance_torture(case, datadir, &dir, &want);
                ran += 1;
            }
            None => eprintln!("{case}: not applicable to {datadir}"),
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
    assert!(ran > 0, "{case}: applied to no datadir");
}

/// Flips bytes of page `page` of ibdata1 (unsealed: its checksum fails).
fn flip_ibdata1_page(dir: &Path, page: u32) -> u64 {
    let path = dir.join("ibdata1");
    let mut b = std::fs::read(&path).expect("ibdata1");
    let at = page as usize * 16384;
    for x in &mut b[at + 200..at + 300] {
        *x ^= 0x5a;
    }
    std::fs::write(&path, &b).expect("write");
    at as u64
}

#[test]
fn instance_sys_tables_root_damaged() {
    instance_case("sys-tables-root", |dir, _| {
        let b = std::fs::read(dir.join("ibdata1")).expect("ibdata1");
        let root = sys_root(&b, 32);
        let at = flip_ibdata1_page(dir, root);
        Some(DictExpect {
            place: Some(("ibdata1", root, at)),
            tables_exit: 1,
            survivors: Vec::new(),
            pages_damaged: true,
        })
    });
}

#[test]
fn instance_sys_columns_leaf_damaged() {
    // SYS_COLUMNS is one page (its root is its only leaf) in these
    // datadirs: the tables are still listed from SYS_TABLES.
    instance_case("sys-columns-leaf", |dir, datadir| {
        let b = std::fs::read(dir.join("ibdata1")).expect("ibdata1");
        let root = sys_root(&b, 40);
        let at = flip_ibdata1_page(dir, root);
        Some(DictExpect {
            place: Some(("ibdata1", root, at)),
            tables_exit: 1,
            survivors: server_tables(datadir),
            pages_damaged: true,
        })
    });
}

#[test]
fn instance_dict_header_damaged() {
    // The roots are then found by their index ids: every table is listed.
    instance_case("dict-header", |dir, datadir| {
        let at = flip_ibdata1_page(dir, 7);
        Some(DictExpect {
            place: Some(("ibdata1", 7, at)),
            tables_exit: 1,
            survivors: server_tables(datadir),
            pages_damaged: true,
        })
    });
}

#[test]
fn instance_dict_header_and_sys_tables_root_damaged() {
    // Without the header and without SYS_TABLES' root nothing is found:
    // exit 2, the header named.
    instance_case("dict-header-and-root", |dir, _| {
        let b = std::fs::read(dir.join("ibdata1")).expect("ibdata1");
        let root = sys_root(&b, 32);
        flip_ibdata1_page(dir, root);
        let at = flip_ibdata1_page(dir, 7);
        Some(DictExpect {
            place: Some(("ibdata1", 7, at)),
            tables_exit: 2,
            survivors: Vec::new(),
            pages_damaged: true,
        })
    });
}

#[test]
fn instance_sys_tables_leaf_next_is_itself() {
    // FIL_PAGE_NEXT (byte 12) of SYS_TABLES' only leaf names the page
    // itself, the page sealed: a loop only the tree readers can see. Every
    // SYS_TABLES row is still there.
    instance_case("sys-tables-next-loop", |dir, datadir| {
        let path = dir.join("ibdata1");
        let mut b = std::fs::read(&path).expect("ibdata1");
        let root = sys_root(&b, 32);
        let at = root as usize * 16384;
        let clean = b[at..at + 16384].to_vec();
        b[at + 12..at + 16].copy_from_slice(&root.to_be_bytes());
        reseal(&clean, &mut b[at..at + 16384]);
        std::fs::write(&path, &b).expect("write");
        Some(DictExpect {
            place: Some(("ibdata1", root, at as u64 + 12)),
            tables_exit: 1,
            survivors: server_tables(datadir),
            pages_damaged: false,
        })
    });
}

#[test]
fn instance_sys_tables_child_pointer_to_ancestor() {
    // SYS_TABLES' root made a node pointer page (PAGE_LEVEL 1, byte 38 +
    // 26) whose first record's child page (its last 4 bytes, the SPACE
    // field of the first row, `rem0rec.cc` node pointers) is the root
    // itself, the page sealed: a walk down the tree meets an ancestor.
    instance_case("sys-tables-child-loop", |dir, _| {
        let path = dir.join("ibdata1");
        let mut b = std::fs::read(&path).expect("ibdata1");
        let root = sys_root(&b, 32);
        let at = root as usize * 16384;
        let clean = b[at..at + 16384].to_vec();
        let page = &mut b[at..at + 16384];
        page[38 + 26..38 + 28].copy_from_slice(&1u16.to_be_bytes());
        // REDUNDANT: infimum at 101, its next-record pointer (absolute)
        // 2 bytes before its origin; a record's data ends where the next
        // record's header starts: find the first user record's end by
        // its 1-byte or 2-byte field end offsets (info bits at -6..-3).
        let first = u16::from_be_bytes([page[99], page[100]]) as usize;
        let n_fields =
            ((u16::from_be_bytes([page[first - 5], page[first - 4]]) >> 1) & 0x3FF) as usize;
        let one_byte = page[first - 3] & 1 != 0;
        let end = if one_byte {
            (page[first - 6 - n_fields] & 0x7F) as usize
        } else {
            (u16::from_be_bytes([
                page[first - 6 - 2 * n_fields],
                page[first - 5 - 2 * n_fields],
            ]) & 0x3FFF) as usize
        };
        page[first + end - 4..first + end].copy_from_slice(&root.to_be_bytes());
        reseal(&clean, page);
        std::fs::write(&path, &b).expect("write");
        Some(DictExpect {
            place: Some(("ibdata1", root, at as u64)),
            tables_exit: 1,
            survivors: Vec::new(),
            pages_damaged: false,
        })
    });
}

#[test]
fn instance_ibdata1_cut_mid_page() {
    // Cut halfway through the page after SYS_COLUMNS' root: the
    // dictionary's pages are whole, the file is short of FSP_SIZE.
    instance_case("cut-mid-page", |dir, datadir| {
        let path = dir.join("ibdata1");
        let b = std::fs::read(&path).expect("ibdata1");
        let cut = (sys_root(&b, 40) as usize + 3) * 16384 + 8192;
        if dir.join("ibdata2").exists() {
            // The space's own end is ibdata2's: cut that.
            let p2 = dir.join("ibdata2");
            let b2 = std::fs::read(&p2).expect("ibdata2");
            std::fs::write(&p2, &b2[..b2.len() / 2 + 8192]).expect("write");
            let _ = cut;
        } else {
            std::fs::write(&path, &b[..cut]).expect("write");
        }
        Some(DictExpect {
            place: None,
            tables_exit: 1,
            survivors: server_tables(datadir),
            pages_damaged: true,
        })
    });
}

#[test]
fn instance_ibdata1_shorter_than_page_7() {
    instance_case("cut-before-7", |dir, _| {
        let path = dir.join("ibdata1");
        let b = std::fs::read(&path).expect("ibdata1");
        std::fs::write(&path, &b[..5 * 16384 + 100]).expect("write");
        Some(DictExpect {
            place: None,
            tables_exit: 2,
            survivors: Vec::new(),
            pages_damaged: true,
        })
    });
}

#[test]
fn instance_ibdata2_missing_or_short() {
    instance_case("ibdata2-missing", |dir, datadir| {
        let p2 = dir.join("ibdata2");
        if !p2.exists() {
            return None;
        }
        std::fs::remove_file(&p2).expect("rm");
        // The dictionary lives in ibdata1 here: it is whole; FSP_SIZE
        // says the space is short.
        Some(DictExpect {
            place: None,
            tables_exit: 1,
            survivors: server_tables(datadir),
            pages_damaged: true,
        })
    });
    instance_case("ibdata2-short", |dir, datadir| {
        let p2 = dir.join("ibdata2");
        if !p2.exists() {
            return None;
        }
        std::fs::write(&p2, vec![0u8; 1000]).expect("write");
        Some(DictExpect {
            place: None,
            tables_exit: 1,
            survivors: server_tables(datadir),
            pages_damaged: true,
        })
    });
}

#[test]
fn instance_ibdata1_not_innodb() {
    instance_case("not-innodb", |dir, _| {
        let text: String = (0..20_000)
            .map(|i| format!("line {i} of a text file\n"))
            .collect();
        std::fs::write(dir.join("ibdata1"), text).expect("write");
        Some(DictExpect {
            place: None,
            tables_exit: 2,
            survivors: Vec::new(),
            pages_damaged: true,
        })
    });
}
