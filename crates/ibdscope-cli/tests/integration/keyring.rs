//! `--keyring`: the two encrypted Percona Server 8.0 files of the corpus
//! and the keyring of the server that wrote them (../shared/corpus/
//! MANIFEST.md, "percona-8.0/percona80_keyring_file"):
//!
//! - `rows --keyring` gives exactly the five rows MANIFEST.md states;
//! - `check --keyring` verifies every page of both files (exit 0);
//! - the keyring with one key byte flipped is a clear finding ("key does
//!   not match"), never rows;
//! - without a keyring nothing changes (pages named encrypted).

use super::common::{corpus, run, scratch};
use std::path::PathBuf;

const KEYRING: &str = "percona-8.0/percona80_keyring_file";
const PLAIN: &str = "percona-8.0/percona80_encrypted_secret_data.ibd";
const ZIP: &str = "percona-8.0/percona80_encrypted_compressed.ibd";
/// Where the corpus keyring's one key starts: the 24-byte header, five
/// 8-byte lengths, the 48-byte key id and "AES" (plugin/keyring/common/
/// keyring_key.cc, Key::store_in_buffer).
const KEY_AT: usize = 24 + 40 + 51;

fn paths() -> Option<(PathBuf, PathBuf, PathBuf)> {
    let dir = corpus()?;
    Some((dir.join(KEYRING), dir.join(PLAIN), dir.join(ZIP)))
}

fn s(p: &std::path::Path) -> &str {
    p.to_str().unwrap()
}

/// The rows MANIFEST.md states for the file, in id order.
fn stated_rows() -> Vec<(u32, String)> {
    let manifest = std::fs::read_to_string(corpus().unwrap().join("MANIFEST.md")).unwrap();
    let line = manifest
        .lines()
        .find(|l| l.contains("Stated contents of `percona80_encrypted_secret_data.ibd`"))
        .expect("MANIFEST.md states the rows");
    let values = line.split("in order: ").nth(1).unwrap();
    let rows: Vec<(u32, String)> = values
        .split('`')
        .skip(1)
        .step_by(2)
        .enumerate()
        .map(|(i, v)| (i as u32 + 1, v.to_string()))
        .collect();
    assert_eq!(rows.len(), 5);
    rows
}

#[test]
fn rows_with_the_keyring_are_the_stated_rows() {
    let Some((keyring, plain, _)) = paths() else {
        return;
    };
    for threads in ["1", "3"] {
        let o = run(&[
            "rows",
            "--keyring",
            s(&keyring),
            "--threads",
            threads,
            "--format",
            "tsv",
            s(&plain),
        ]);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        let out = String::from_utf8(o.stdout).unwrap();
        let got: Vec<(u32, String)> = out
            .lines()
            .filter(|l| !l.starts_with('#') && !l.starts_with("id\t"))
            .map(|l| {
                let (id, v) = l.split_once('\t').unwrap();
                (id.parse().unwrap(), v.to_string())
            })
            .collect();
        assert_eq!(got, stated_rows(), "{out}");
    }
}

#[test]
fn check_with_the_keyring_verifies_every_page() {
    let Some((keyring, plain, zip)) = paths() else {
        return;
    };
    let o = run(&["check", "--keyring", s(&keyring), s(&plain), s(&zip)]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{out}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    // MANIFEST.md: 7 pages (4 encrypted, 2 allocated) and 9 pages (7
    // encrypted, 1 allocated); all encrypted ones verify once decrypted.
    assert!(out.contains("7 pages: 5 valid"), "{out}");
    assert!(out.contains("9 pages: 8 valid"), "{out}");
    assert_eq!(
        out.matches("0 damaged, 0 damaged but freed, 0 not verifiable")
            .count(),
        2,
        "{out}"
    );
    // The ROW_FORMAT=COMPRESSED one decompresses: its rows come out.
    let o = run(&["rows", "--keyring", s(&keyring), "--format", "tsv", s(&zip)]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(String::from_utf8_lossy(&o.stdout).contains("Row 1 data"));
}

#[test]
fn without_a_keyring_pages_stay_named_encrypted() {
    let Some((_, plain, _)) = paths() else {
        return;
    };
    let o = run(&["check", s(&plain)]);
    assert_eq!(o.status.code(), Some(0));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("4 not verifiable"), "{out}");
    assert!(out.contains("encrypted"), "{out}");
}

/// The keyring with one key byte flipped, written to a scratch file;
/// `redigest` seals it again with its SHA-256 (else the digest no longer
/// matches, which is a warning).
fn wrong_keyring(keyring: &std::path::Path, redigest: bool) -> PathBuf {
    let mut k = std::fs::read(keyring).unwrap();
    k[KEY_AT + 3] ^= 0x01;
    if redigest {
        let n = k.len();
        let digest = ibdscope_prims::sha256::sha256(&k[24..n - 35]);
        k[n - 32..].copy_from_slice(&digest);
    }
    let p = scratch(&format!("wrong-keyring-{redigest}"));
    std::fs::write(&p, &k).unwrap();
    p
}

#[test]
fn a_wrong_key_is_a_finding_never_rows() {
    let Some((keyring, plain, _)) = paths() else {
        return;
    };
    for redigest in [true, false] {
        let bad = wrong_keyring(&keyring, redigest);
        let o = run(&["check", "--keyring", s(&bad), s(&plain)]);
        let err = String::from_utf8_lossy(&o.stderr);
        let out = String::from_utf8_lossy(&o.stdout);
        assert_eq!(o.status.code(), Some(1), "{out}{err}");
        // The checksum sits after magic, key id, uuid and the 64 bytes at
        // page 0 byte 10390 (os0enc.cc, fsp0fsp.cc).
        let want = "page 0, byte 10497: key does not match: tablespace key checksum differs";
        assert!(err.contains(want), "{err}");
        assert!(out.contains(want), "{out}");
        assert_eq!(err.contains("digest does not match"), !redigest, "{err}");
        // Read as stored: the encrypted pages are named, not damaged.
        assert!(
            out.contains("0 damaged, 0 damaged but freed, 4 not verifiable"),
            "{out}"
        );
        let o = run(&["rows", "--keyring", s(&bad), "--format", "tsv", s(&plain)]);
        assert_eq!(o.status.code(), Some(2));
        assert!(!String::from_utf8_lossy(&o.stdout).contains("SECRET"));
    }
}

#[test]
fn a_file_that_is_no_keyring_cannot_be_read() {
    let Some((_, plain, _)) = paths() else {
        return;
    };
    let p = scratch("not-a-keyring");
    std::fs::write(&p, b"Keyring file version:2.0 but cut").unwrap();
    let o = run(&["check", "--keyring", s(&p), s(&plain)]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("keyring could not be read"), "{err}");
    let o = run(&["check", "--keyring", "/nonexistent/keyring", s(&plain)]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn a_keyring_leaves_unencrypted_files_as_they_are() {
    let Some((keyring, _, _)) = paths() else {
        return;
    };
    let f = super::common::fixtures().join("mariadb1011/ai_int.ibd");
    let a = run(&["pages", s(&f)]);
    let b = run(&["pages", "--keyring", s(&keyring), s(&f)]);
    assert_eq!(a.status.code(), b.status.code());
    assert_eq!(a.stdout, b.stdout);
}
