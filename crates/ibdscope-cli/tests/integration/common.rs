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

/// `../shared/corpus` beside the checkout: missing, a test fails unless
/// `IBDSCOPE_SKIP_CORPUS=1` (one rule for every crate, in the testkit).
pub fn corpus() -> Option<PathBuf> {
    ibdscope_testkit::corpus()
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
    // Committed: a missing manifest is a failure, not fewer files.
    out.extend(
        read_tsv(&fixtures().join("manifest.tsv"))
            .into_iter()
            .map(|r| fixtures().join(&r["path"])),
    );
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

/// Runs the binary like [`run`], but stops it after `limit` if it is still
/// running (a command that serves until stopped, `serve`) and returns what
/// it printed until then.
pub fn run_bounded(args: &[&str], limit: std::time::Duration) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ibdscope"))
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run ibdscope");
    let start = std::time::Instant::now();
    while child.try_wait().expect("wait for ibdscope").is_none() && start.elapsed() < limit {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let _ = child.kill();
    child.wait_with_output().expect("collect ibdscope's output")
}

pub use ibdscope_testkit::scratch;

/// Writes a big-endian u32.
pub fn put_u32(buf: &mut [u8], at: usize, v: u32) {
    buf[at..at + 4].copy_from_slice(&v.to_be_bytes());
}

/// A parsed JSON value (a small std-only reader for the binary's output).
#[derive(Clone, Debug, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    Num(f64),
    Str(String),
    Arr(Vec<Json>),
    Obj(Vec<(String, Json)>),
}

impl Json {
    /// Parses one JSON document; panics with the position on bad input.
    pub fn parse(s: &str) -> Json {
        let b = s.trim().as_bytes();
        let mut at = 0;
        let v = Self::value(b, &mut at);
        assert_eq!(at, b.len(), "trailing bytes after JSON at {at}");
        v
    }
    fn ws(b: &[u8], at: &mut usize) {
        while *at < b.len() && b[*at].is_ascii_whitespace() {
            *at += 1;
        }
    }
    fn value(b: &[u8], at: &mut usize) -> Json {
        Self::ws(b, at);
        let v = match b[*at] {
            b'{' => {
                *at += 1;
                let mut m = Vec::new();
                Self::ws(b, at);
                if b[*at] == b'}' {
                    *at += 1;
                    return Json::Obj(m);
                }
                loop {
                    Self::ws(b, at);
                    let Json::Str(k) = Self::value(b, at) else {
                        panic!("key expected at {at}")
                    };
                    Self::ws(b, at);
                    assert_eq!(b[*at], b':', "':' expected at {at}");
                    *at += 1;
                    m.push((k, Self::value(b, at)));
                    Self::ws(b, at);
                    *at += 1;
                    match b[*at - 1] {
                        b',' => continue,
                        b'}' => break,
                        c => panic!("unexpected {:?} at {at}", c as char),
                    }
                }
                Json::Obj(m)
            }
            b'[' => {
                *at += 1;
                let mut v = Vec::new();
                Self::ws(b, at);
                if b[*at] == b']' {
                    *at += 1;
                    return Json::Arr(v);
                }
                loop {
                    v.push(Self::value(b, at));
                    Self::ws(b, at);
                    *at += 1;
                    match b[*at - 1] {
                        b',' => continue,
                        b']' => break,
                        c => panic!("unexpected {:?} at {at}", c as char),
                    }
                }
                Json::Arr(v)
            }
            b'"' => {
                *at += 1;
                let mut s = Vec::new();
                while b[*at] != b'"' {
                    if b[*at] == b'\\' {
                        *at += 1;
                        match b[*at] {
                            b'n' => s.push(b'\n'),
                            b't' => s.push(b'\t'),
                            b'r' => s.push(b'\r'),
                            b'u' => {
                                let h = std::str::from_utf8(&b[*at + 1..*at + 5]).unwrap();
                                let c = char::from_u32(u32::from_str_radix(h, 16).unwrap())
                                    .unwrap_or('?');
                                s.extend(c.to_string().bytes());
                                *at += 4;
                            }
                            c => s.push(c),
                        }
                    } else {
                        s.push(b[*at]);
                    }
                    *at += 1;
                }
                *at += 1;
                Json::Str(String::from_utf8(s).expect("utf-8"))
            }
            b't' => {
                *at += 4;
                Json::Bool(true)
            }
            b'f' => {
                *at += 5;
                Json::Bool(false)
            }
            b'n' => {
                *at += 4;
                Json::Null
            }
            _ => {
                let start = *at;
                while *at < b.len()
                    && matches!(b[*at], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
                {
                    *at += 1;
                }
                let t = std::str::from_utf8(&b[start..*at]).unwrap();
                Json::Num(
                    t.parse()
                        .unwrap_or_else(|_| panic!("bad number {t:?} at {start}")),
                )
            }
        };
        v
    }
    /// Member `k` of an object.
    pub fn get(&self, k: &str) -> &Json {
        match self {
            Json::Obj(m) => m
                .iter()
                .find(|(key, _)| key == k)
                .map(|(_, v)| v)
                .unwrap_or_else(|| panic!("no key {k:?}")),
            _ => panic!("not an object looking up {k:?}"),
        }
    }
    /// Member `k`, if present.
    pub fn opt(&self, k: &str) -> Option<&Json> {
        match self {
            Json::Obj(m) => m.iter().find(|(key, _)| key == k).map(|(_, v)| v),
            _ => None,
        }
    }
    pub fn u64(&self) -> u64 {
        match self {
            Json::Num(n) => *n as u64,
            other => panic!("not a number: {other:?}"),
        }
    }
    /// A number, or `None` for `null`.
    pub fn opt_u64(&self) -> Option<u64> {
        match self {
            Json::Null => None,
            other => Some(other.u64()),
        }
    }
    pub fn f64(&self) -> f64 {
        match self {
            Json::Num(n) => *n,
            other => panic!("not a number: {other:?}"),
        }
    }
    pub fn str(&self) -> &str {
        match self {
            Json::Str(s) => s,
            other => panic!("not a string: {other:?}"),
        }
    }
    pub fn bool(&self) -> bool {
        match self {
            Json::Bool(b) => *b,
            other => panic!("not a bool: {other:?}"),
        }
    }
    pub fn arr(&self) -> &[Json] {
        match self {
            Json::Arr(v) => v,
            other => panic!("not an array: {other:?}"),
        }
    }
}

/// Runs the binary and parses its JSON output, with its exit code.
pub fn run_json(args: &[&str]) -> (Option<i32>, Json) {
    let o = run(args);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        !o.stderr.windows(8).any(|w| w == b"panicked"),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    (o.status.code(), Json::parse(&text))
}

/// The facts of `fixtures/audit/manifest.tsv`: (copy, fact) → value.
pub fn audit_facts() -> HashMap<(String, String), String> {
    read_tsv(&fixtures().join("audit/manifest.tsv"))
        .into_iter()
        .map(|r| ((r["copy"].clone(), r["fact"].clone()), r["value"].clone()))
        .collect()
}

/// A fact of `fixtures/audit/manifest.tsv` as a number.
pub fn audit_fact(facts: &HashMap<(String, String), String>, copy: &str, fact: &str) -> u64 {
    let v = facts
        .get(&(copy.to_string(), fact.to_string()))
        .unwrap_or_else(|| panic!("fixtures/audit/manifest.tsv has no {copy} {fact}"));
    num(v)
}

/// `fixtures/audit/<copy>.tar.xz` unpacked into a scratch directory (once
/// per test process), with the library's own LZMA decoder: an `.xz`
/// stream holding a ustar archive.
pub fn audit_copy(copy: &str) -> PathBuf {
    unpack(&format!("audit/{copy}.tar.xz"), &format!("audit-{copy}"))
}

/// `fixtures/instance/<name>.tar.gz` (a whole datadir) unpacked into a
/// scratch directory, once per test process.
pub fn instance_copy(name: &str) -> PathBuf {
    unpack(
        &format!("instance/{name}.tar.gz"),
        &format!("instance-{name}"),
    )
}

/// `fixtures/<rel>` (a `.tar.gz`: gzip (RFC 1952) around raw DEFLATE, read
/// with the library's inflate; or a `.tar.xz`, read with its LZMA decoder)
/// unpacked into the scratch directory `key`, once per test process.
pub fn unpack(rel: &str, key: &str) -> PathBuf {
    use std::sync::{Mutex, OnceLock};
    static DONE: OnceLock<Mutex<HashMap<String, PathBuf>>> = OnceLock::new();
    let done = DONE.get_or_init(|| Mutex::new(HashMap::new()));
    let mut done = done.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(p) = done.get(key) {
        return p.clone();
    }
    let copy = rel;
    let gz = std::fs::read(fixtures().join(rel)).expect("archive");
    let tar = if rel.ends_with(".xz") {
        let mut tar = Vec::new();
        let mut scratch = ibdscope_codec::Scratch::new();
        ibdscope_codec::lzma::decompress_xz(&gz, &mut tar, 1 << 30, &mut scratch)
            .unwrap_or_else(|e| panic!("{copy}: {e}"));
        tar
    } else {
        let mut tar = Vec::new();
        let deflate = ibdscope_testkit::gzip_deflate(&gz);
        ibdscope_codec::inflate::inflate_raw(deflate, &mut tar, 1 << 30).expect("inflate");
        tar
    };
    let dir = scratch(key);
    let _ = std::fs::remove_dir_all(&dir);
    for (path, bytes) in ibdscope_testkit::tar_members(&tar) {
        let out = dir.join(&path);
        std::fs::create_dir_all(out.parent().expect("parent")).expect("mkdir");
        std::fs::write(&out, bytes).expect("write");
    }
    done.insert(key.to_string(), dir.clone());
    dir
}

/// A MariaDB key file (file_key_management) with the fixtures' key ids 1,
/// 2 and 3 but other keys of their lengths (fixtures/keys/test-keys.txt):
/// a wrong key for every file of fixtures/crypt, written to scratch `name`.
pub fn wrong_key_file(name: &str) -> PathBuf {
    let wrong = scratch(name);
    std::fs::write(
        &wrong,
        format!(
            "1;{}\n2;{}\n3;{}\n",
            "c3".repeat(16),
            "5a".repeat(32),
            "a5".repeat(24)
        ),
    )
    .unwrap();
    wrong
}
