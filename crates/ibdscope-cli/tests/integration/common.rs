//! Shared helpers: locating the corpus and fixtures, reading TSV manifests,
//! running the binary.

#![allow(dead_code)]

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The workspace root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("workspace root")
}

/// `../shared/corpus` beside the checkout, if present.
pub fn corpus() -> Option<PathBuf> {
    let p = root().join("../shared/corpus");
    if p.join("manifest.tsv").is_file() {
        Some(p)
    } else {
        eprintln!("skipping: ../shared/corpus/manifest.tsv not found beside the checkout");
        None
    }
}

/// The committed fixtures directory.
pub fn fixtures() -> PathBuf {
    root().join("fixtures")
}

/// Every real file we have: corpus files (when present) and committed
/// fixtures, from their manifests.
pub fn real_files() -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Some(dir) = corpus() {
        out.extend(
            read_tsv(&dir.join("manifest.tsv"))
                .into_iter()
                .map(|r| dir.join(&r["path"])),
        );
    }
    let m = fixtures().join("manifest.tsv");
    if m.is_file() {
        out.extend(
            read_tsv(&m)
                .into_iter()
                .map(|r| fixtures().join(&r["path"])),
        );
    }
    out
}

/// A TSV file as rows of column name -> value.
pub fn read_tsv(path: &Path) -> Vec<HashMap<String, String>> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    let header: Vec<String> = lines
        .next()
        .expect("header")
        .split('\t')
        .map(str::to_string)
        .collect();
    lines
        .map(|l| {
            let cells = l.split('\t').map(str::to_string);
            header
                .iter()
                .cloned()
                .zip(cells.chain(std::iter::repeat(String::new())))
                .collect()
        })
        .collect()
}

/// Parses `"16384"`, `"0x15"` or `"0x4021 (…)"` as a number.
pub fn num(s: &str) -> u64 {
    let s = s.split_whitespace().next().unwrap_or("");
    if let Some(h) = s.strip_prefix("0x") {
        u64::from_str_radix(h, 16).unwrap_or_else(|_| panic!("bad hex {s}"))
    } else {
        s.parse().unwrap_or_else(|_| panic!("bad number {s:?}"))
    }
}

/// Runs the `ibdscope` binary.
pub fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ibdscope"))
        .args(args)
        .output()
        .expect("run ibdscope")
}

/// A scratch file path unique to this test process and `name`.
pub fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ibdscope-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir.join(name)
}

/// Writes a big-endian u32.
pub fn put_u32(buf: &mut [u8], at: usize, v: u32) {
    buf[at..at + 4].copy_from_slice(&v.to_be_bytes());
}
