//! Test support shared by every ibdscope crate's tests (a dev-dependency
//! only; std only): where the workspace, its fixtures and the real-server
//! corpus are, the one rule for tests that need the corpus, and the TSV
//! manifests both are described by.
//!
//! The corpus rule: `../shared/corpus` beside the checkout is read in
//! place. A test that needs it fails when it is missing, unless
//! `IBDSCOPE_SKIP_CORPUS=1` is set; every skipped case is counted and the
//! count printed, so a run that skipped says so.
#![allow(clippy::disallowed_macros)] // Test support: prints what it skipped.

pub mod source;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The environment variable that lets corpus tests skip when the corpus is
/// missing.
pub const SKIP_CORPUS: &str = "IBDSCOPE_SKIP_CORPUS";

static SKIPPED: AtomicUsize = AtomicUsize::new(0);

/// The workspace root (the folder holding `crates/` and `fixtures/`).
pub fn root() -> PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    here.canonicalize().unwrap_or(here)
}

/// The committed real-server fixtures, `fixtures/`.
pub fn fixtures() -> PathBuf {
    root().join("fixtures")
}

/// `../shared/corpus` beside the checkout.
///
/// # Panics
///
/// When the corpus is missing and `IBDSCOPE_SKIP_CORPUS=1` is not set: a
/// test that reads the corpus must not pass without reading it.
pub fn corpus() -> Option<PathBuf> {
    let dir = root().join("../shared/corpus");
    if dir.join("manifest.tsv").is_file() {
        static SAID: std::sync::Once = std::sync::Once::new();
        SAID.call_once(|| {
            eprintln!(
                "corpus: read in place from {}; 0 corpus cases skipped",
                dir.display()
            );
        });
        return Some(dir);
    }
    if std::env::var(SKIP_CORPUS).is_ok_and(|v| v == "1") {
        let n = SKIPPED.fetch_add(1, Ordering::Relaxed) + 1;
        eprintln!(
            "corpus: {} not found; case skipped ({SKIP_CORPUS}=1); {n} corpus case(s) skipped in this test binary",
            dir.display()
        );
        return None;
    }
    panic!(
        "{} not found: this test reads the real-server corpus in place; \
         put it beside the checkout, or set {SKIP_CORPUS}=1 to skip such cases",
        dir.display()
    )
}

/// How many corpus cases this test binary skipped so far.
pub fn corpus_skipped() -> usize {
    SKIPPED.load(Ordering::Relaxed)
}

/// Rows of a TSV file with a header line, each a map from column name to
/// field (missing trailing fields are empty).
///
/// # Panics
///
/// When the file cannot be read or has no header line.
pub fn tsv(path: &Path) -> Vec<BTreeMap<String, String>> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    let head: Vec<String> = lines
        .next()
        .unwrap_or_else(|| panic!("{}: no header line", path.display()))
        .split('\t')
        .map(str::to_string)
        .collect();
    lines
        .map(|l| {
            let cells = l.split('\t').map(str::to_string);
            head.iter()
                .cloned()
                .zip(cells.chain(std::iter::repeat(String::new())))
                .collect()
        })
        .collect()
}

/// A corpus manifest's `leaf_n_recs_read` field, `index_id 15=200 (levels
/// 1);index_id 16=200 (levels 1)`, as `{15: (200, 1), 16: (200, 1)}`.
///
/// # Panics
///
/// On a field not in that form.
pub fn leaf_recs(field: &str) -> BTreeMap<u64, (u64, u32)> {
    let bad = || -> ! { panic!("leaf_n_recs_read field not understood: {field:?}") };
    field
        .split(';')
        .filter(|s| !s.trim().is_empty())
        .map(|s| {
            let s = s.trim().strip_prefix("index_id ").unwrap_or_else(|| bad());
            let (id, rest) = s.split_once('=').unwrap_or_else(|| bad());
            let (n, levels) = rest.split_once(" (levels ").unwrap_or_else(|| bad());
            let levels = levels.strip_suffix(')').unwrap_or_else(|| bad());
            let num = |t: &str| t.parse::<u64>().unwrap_or_else(|_| bad());
            let levels = u32::try_from(num(levels)).unwrap_or_else(|_| bad());
            (num(id), (num(n), levels))
        })
        .collect()
}

/// The raw DEFLATE stream of a one-member gzip file (RFC 1952: the
/// header, with its optional extra field, name, comment and header CRC,
/// skipped), for the library's `inflate_raw`.
///
/// # Panics
///
/// When `gz` is not gzip with DEFLATE, or its header is cut.
pub fn gzip_deflate(gz: &[u8]) -> &[u8] {
    assert_eq!(gz.get(..3), Some(&[0x1f, 0x8b, 8][..]), "not gzip/deflate");
    let flags = gz[3];
    let mut at = 10;
    if flags & 4 != 0 {
        at += 2 + usize::from(u16::from_le_bytes([gz[at], gz[at + 1]]));
    }
    for bit in [8u8, 16] {
        if flags & bit != 0 {
            at += gz[at..]
                .iter()
                .position(|&b| b == 0)
                .expect("gzip name or comment end")
                + 1;
        }
    }
    if flags & 2 != 0 {
        at += 2;
    }
    &gz[at..]
}

/// The members of a ustar archive: (path, bytes), in archive order (the
/// `prefix` field joined to the name).
pub fn tar_members(tar: &[u8]) -> Vec<(String, &[u8])> {
    let mut out = Vec::new();
    let mut pos = 0;
    while pos + 512 <= tar.len() && tar[pos] != 0 {
        let h = &tar[pos..pos + 512];
        let field = |a: usize, b: usize| {
            let f = &h[a..b];
            String::from_utf8_lossy(&f[..f.iter().position(|&c| c == 0).unwrap_or(f.len())])
                .into_owned()
        };
        let (name, prefix) = (field(0, 100), field(345, 500));
        let size = usize::from_str_radix(field(124, 136).trim(), 8).expect("tar size");
        let path = if prefix.is_empty() {
            name
        } else {
            format!("{prefix}/{name}")
        };
        out.push((path, &tar[pos + 512..pos + 512 + size]));
        pos += 512 + size.div_ceil(512) * 512;
    }
    out
}

/// A scratch file path unique to this test process and `name` (in
/// `ibdscope-test-PID` under the temporary directory, created).
///
/// The directory outlives the process (tests have no common teardown), so
/// the first call removes the scratch directories of test processes that
/// are gone: without that every run left its files (hundreds of MiB of
/// cut and sparse copies) in the temporary directory.
pub fn scratch(name: &str) -> PathBuf {
    static SWEEP: std::sync::Once = std::sync::Once::new();
    SWEEP.call_once(sweep_scratch);
    let dir = std::env::temp_dir().join(format!("ibdscope-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir.join(name)
}

/// Removes `ibdscope-test-PID` directories whose process no longer runs
/// (`/proc/PID` absent; where there is no `/proc`, nothing is removed).
fn sweep_scratch() {
    if !Path::new("/proc/self").exists() {
        return;
    }
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix("ibdscope-test-"))
            .and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        if pid != std::process::id() && !Path::new(&format!("/proc/{pid}")).exists() {
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
}

/// `len` bytes of seeded noise (an LCG, the top byte of each step): the
/// same bytes for the same seed on every run, for images pages are
/// planted in.
pub fn noise(len: usize, seed: u64) -> Vec<u8> {
    let mut x = seed;
    (0..len)
        .map(|_| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 56) as u8
        })
        .collect()
}
