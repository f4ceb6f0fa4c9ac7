//! `--key-file`: the MariaDB 10.11 encrypted tables of fixtures/crypt/
//! (fixtures/gen/crypt.sh; TEST keys in fixtures/keys/) against what the
//! server said of them:
//!
//! - `rows --key-file` equals the server's dump of every table
//!   (fixtures/crypt/tables.tsv), AES_CBC and AES_CTR, full_crc32 and crc32
//!   layouts, page_compressed, the plain and the password-encrypted key
//!   file (password given, and read from a file);
//! - `check` verifies every page by MariaDB's rule (exit 0);
//! - a wrong key, a wrong password, a missing key id are clear findings,
//!   never rows.

use super::common::{fixtures, read_tsv, run, scratch};
use super::rows::gunzip;
use std::path::PathBuf;

fn crypt() -> PathBuf {
    fixtures().join("crypt")
}

fn keys() -> PathBuf {
    fixtures().join("keys")
}

/// The key options of a manifest row (its key file, and how its password
/// was given to the server).
fn key_args(row: &std::collections::HashMap<String, String>) -> Vec<String> {
    let mut a = vec![
        "--key-file".to_string(),
        keys().join(&row["key_file"]).display().to_string(),
    ];
    match row["key_file_key"].as_str() {
        "none" => {}
        "password" => {
            let pw = std::fs::read_to_string(keys().join("test-password.txt")).unwrap();
            a.extend(["--key-file-key".to_string(), pw.trim_end().to_string()]);
        }
        "password file" => a.extend([
            "--key-file-key-file".to_string(),
            keys().join("test-password.txt").display().to_string(),
        ]),
        other => panic!("key_file_key {other}"),
    }
    a
}

fn manifest() -> Vec<std::collections::HashMap<String, String>> {
    let m = read_tsv(&crypt().join("manifest.tsv"));
    assert!(m.len() >= 12, "{} rows", m.len());
    m
}

fn run_with(args: &[&str], keys: &[String]) -> std::process::Output {
    let mut all: Vec<&str> = args.to_vec();
    all.extend(keys.iter().map(String::as_str));
    run(&all)
}

#[test]
fn rows_with_the_key_file_are_the_server_dumps() {
    let tables = read_tsv(&crypt().join("tables.tsv"));
    let rows = manifest();
    assert_eq!(tables.len(), rows.len());
    for t in &tables {
        let m = rows
            .iter()
            .find(|r| r["path"] == t["path"])
            .unwrap_or_else(|| panic!("{} not in manifest.tsv", t["path"]));
        let file = crypt().join(&t["path"]);
        let want = gunzip(&crypt().join(&t["dump"]));
        assert_eq!(
            want.iter().filter(|&&b| b == b'\n').count(),
            t["rows"].parse::<usize>().unwrap(),
            "{}",
            t["path"]
        );
        for threads in ["1", "3"] {
            let o = run_with(
                &[
                    "rows",
                    file.to_str().unwrap(),
                    "--format",
                    "tsv",
                    "--threads",
                    threads,
                ],
                &key_args(m),
            );
            assert_eq!(
                o.status.code(),
                Some(0),
                "{}: {}",
                t["path"],
                String::from_utf8_lossy(&o.stderr)
            );
            assert!(o.stdout == want, "{}: rows differ from the dump", t["path"]);
        }
    }
}

#[test]
fn check_verifies_every_page() {
    for m in manifest() {
        let file = crypt().join(&m["path"]);
        for keys in [Vec::new(), key_args(&m)] {
            let o = run_with(&["check", file.to_str().unwrap()], &keys);
            let text = String::from_utf8_lossy(&o.stdout);
            assert_eq!(o.status.code(), Some(0), "{}: {text}", m["path"]);
            assert!(text.contains(", 0 damaged, 0 damaged but freed,"), "{text}");
            // Outside full_crc32 a page_compressed encrypted page has no
            // checksum the server checks before decryption: without the key
            // it is not verifiable; with it, it is verified after
            // decryption and decompression.
            let classic_pc = m["checksum_algorithm"] == "crc32" && m["path"].contains("pagecomp");
            if keys.is_empty() && classic_pc {
                assert!(text.contains(" not verified: encrypted"), "{text}");
            } else {
                assert!(text.contains(" 0 not verifiable"), "{text}");
            }
            if !keys.is_empty() && classic_pc {
                // every page but the empty one, as crc32 (page 0 included)
                let n: u32 = text
                    .split(" pages: ")
                    .next()
                    .unwrap()
                    .rsplit(' ')
                    .next()
                    .unwrap()
                    .parse()
                    .unwrap();
                assert!(text.contains(&format!("valid (crc32 {})", n - 1)), "{text}");
            }
        }
    }
}

#[test]
fn a_wrong_key_is_a_finding_never_rows() {
    let wrong = scratch("wrong-keys.txt");
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
    let wrong_args = vec!["--key-file".to_string(), wrong.display().to_string()];
    for path in [
        "cbc/ai_int.ibd",
        "ctr/pagecomp.ibd",
        "crc32-cbc/rotated.ibd",
        "crc32-ctr/pagecomp.ibd",
    ] {
        let file = crypt().join(path);
        let o = run_with(
            &["rows", file.to_str().unwrap(), "--format", "tsv"],
            &wrong_args,
        );
        let err = String::from_utf8_lossy(&o.stderr);
        assert_ne!(o.status.code(), Some(0), "{path}");
        assert!(o.stdout.is_empty(), "{path}: rows with a wrong key");
        assert!(
            err.contains("does not decrypt this space") && err.contains("wrong key"),
            "{err}"
        );
        assert!(
            err.contains("page 1: decrypted page does not verify"),
            "{path}: {err}"
        );
        let o = run_with(&["check", file.to_str().unwrap()], &wrong_args);
        assert_eq!(o.status.code(), Some(1), "{path}");
        assert!(String::from_utf8_lossy(&o.stderr).contains("wrong key"));
    }
    // a key file without the space's key id
    let only1 = scratch("only-key-1.txt");
    std::fs::write(&only1, "1;00112233445566778899AABBCCDDEEFF\n").unwrap();
    let file = crypt().join("cbc/ai_int.ibd");
    let o = run(&[
        "rows",
        file.to_str().unwrap(),
        "--key-file",
        only1.to_str().unwrap(),
    ]);
    assert_ne!(o.status.code(), Some(0));
    assert!(o.stdout.is_empty());
    assert!(String::from_utf8_lossy(&o.stderr).contains("has no key 2"));
    // a wrong password: the key file is refused before anything is read
    let enc = keys().join("test-keys.enc");
    let o = run(&[
        "rows",
        file.to_str().unwrap(),
        "--key-file",
        enc.to_str().unwrap(),
        "--key-file-key",
        "not-the-password",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(o.stdout.is_empty());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("does not decrypt with this password"), "{err}");
    assert!(!err.contains("TEST-password"), "{err}");
    // without a key file: said, and no rows
    let o = run(&["rows", file.to_str().unwrap()]);
    assert!(o.stdout.is_empty());
    assert!(String::from_utf8_lossy(&o.stderr).contains("give the key file with --key-file"));
}

/// `info` says a MariaDB encrypted space is encrypted without its key:
/// MariaDB sets no FSP flag for encryption and, under full_crc32, its
/// encrypted pages verify as stored, so only page 0's crypt data tells.
/// The key id and minimum key version are the server's
/// (`INFORMATION_SCHEMA.INNODB_TABLESPACES_ENCRYPTION`, in the manifest);
/// a space the server wrote unencrypted says no.
#[test]
fn info_reads_the_crypt_data_the_server_states() {
    use super::common::run_json;
    for m in manifest() {
        let path = crypt().join(&m["path"]);
        let (code, j) = run_json(&["info", "--format", "json", path.to_str().unwrap()]);
        assert_eq!(code, Some(0), "{}", m["path"]);
        assert!(j.get("encrypted").bool(), "{}", m["path"]);
        assert_eq!(m["encryption_scheme"], "1", "{}", m["path"]);
        let c = j.get("mariadb_crypt");
        assert_eq!(
            c.get("key_id").u64(),
            super::common::num(&m["key_id"]),
            "{}",
            m["path"]
        );
        assert_eq!(
            c.get("min_key_version").u64(),
            super::common::num(&m["min_key_version"]),
            "{}",
            m["path"]
        );
    }
    let plain = fixtures().join("mariadb1011/ai_int.ibd");
    let (_, j) = run_json(&["info", "--format", "json", plain.to_str().unwrap()]);
    assert!(!j.get("encrypted").bool());
    assert!(j.opt("mariadb_crypt").is_none());
}

/// `check --key-file` decrypts every encrypted page, not only the first
/// one, which the cipher is found on: a full_crc32 page whose encrypted bytes
/// were changed and its CRC-32C (which covers the encrypted bytes,
/// `buf_page_is_corrupted`) made to match again passes as stored, but
/// decrypted its end LSN (the low 32 bits of FIL_PAGE_LSN again at
/// size − 8, which `fil_space_decrypt_full_crc32` leaves the server to
/// check) no longer matches: the server refuses it, and so does `check`,
/// at any thread count.
#[test]
fn check_with_the_key_decrypts_the_last_page_too() {
    for m in manifest()
        .into_iter()
        .filter(|m| m["path"].ends_with("ai_int.ibd") && m["checksum_algorithm"] == "full_crc32")
    {
        let mut data = std::fs::read(crypt().join(&m["path"])).unwrap();
        let size = 16384;
        let encrypted = |p: &[u8]| p[..4] != [0; 4];
        let first = data.chunks(size).skip(1).position(encrypted).unwrap() + 1;
        let last = data.chunks(size).rposition(encrypted).unwrap();
        // Not the page the cipher is found on (the first that decrypts).
        assert!(last > first, "{}: pages {first}, {last}", m["path"]);
        let page = &mut data[last * size..(last + 1) * size];
        page[size - 7] ^= 0x40;
        let crc = ibdscope::crc32c::crc32c(&page[..size - 4]);
        page[size - 4..].copy_from_slice(&crc.to_be_bytes());
        let file = scratch(&format!("tampered-{}", m["path"].replace('/', "-")));
        std::fs::write(&file, &data).unwrap();
        let f = file.to_str().unwrap();
        let o = run(&["check", f]);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}: stored pages verify",
            m["path"]
        );
        for threads in ["1", "2"] {
            let o = run_with(&["--threads", threads, "check", f], &key_args(&m));
            let err = String::from_utf8_lossy(&o.stderr);
            assert_eq!(o.status.code(), Some(1), "{}: {err}", m["path"]);
            assert!(
                err.contains(&format!("page {last}: decrypted page does not verify")),
                "{}: {err}",
                m["path"]
            );
        }
    }
}
