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

use super::common::{fixtures, read_tsv, run, run_bounded, scratch, Json};
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
    let wrong = super::common::wrong_key_file("wrong-keys.txt");
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
        // Said once: no line per page that a wrong key leaves encrypted.
        assert_eq!(err.matches("wrong key").count(), 1, "{path}: {err}");
        assert!(
            !err.contains("decrypted page does not verify"),
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

/// `fixtures/crypt-mix/mix.ibd.gz` unpacked, with its `.frm` beside it,
/// once per test process.
fn crypt_mix() -> PathBuf {
    use std::sync::OnceLock;
    static DONE: OnceLock<PathBuf> = OnceLock::new();
    DONE.get_or_init(|| {
        let dir = fixtures().join("crypt-mix");
        let ibd = scratch("crypt-mix.ibd");
        std::fs::write(&ibd, gunzip(&dir.join("mix.ibd.gz"))).unwrap();
        std::fs::copy(dir.join("mix.frm"), scratch("crypt-mix.frm")).unwrap();
        ibd
    })
    .clone()
}

/// The server's view of the crypt-mix space in one phase of
/// `fixtures/crypt-mix/rotation.tsv` (mid: during the rotation, just
/// before it was stopped; stopped: after the stop and the flush; restart:
/// the restart that dumped the rows).
fn rotation(phase: &str) -> std::collections::HashMap<String, String> {
    read_tsv(&fixtures().join("crypt-mix/rotation.tsv"))
        .into_iter()
        .find(|r| r["phase"] == phase)
        .unwrap_or_else(|| panic!("no phase {phase} in rotation.tsv"))
}

/// A MariaDB 10.11 table loaded unencrypted, then encrypted by the
/// background key rotation, stopped part way (fixtures/gen/crypt.sh
/// `build_crypt_mix`): pages of key version 0 and 1 in one space. Against
/// what the server said: the rows are its dump, every page verifies, and
/// the key versions read per page are the rotation's: a run of key
/// version 1 from the first page on (fil0crypt.cc hands pages out in
/// order from there), covering every page handed out before the server's
/// KEY_ROTATION_PAGE_NUMBER mid-rotation, key version 0 after it; the
/// min key version and key id of page 0 are the server's MIN_KEY_VERSION
/// and CURRENT_KEY_ID.
#[test]
fn a_rotation_stopped_part_way_reads_as_the_server_read_it() {
    let file = crypt_mix();
    let f = file.to_str().unwrap();
    let key = keys().join("test-keys.txt");
    let k = key.to_str().unwrap();
    let (mid, stopped, restart) = (rotation("mid"), rotation("stopped"), rotation("restart"));
    // the server's own view: part way, then stopped with min key version 0
    assert_eq!(mid["rotating_or_flushing"], "1");
    assert_eq!(stopped["rotating_or_flushing"], "0");
    assert_eq!(stopped["min_key_version"], restart["min_key_version"]);
    assert_eq!(stopped["current_key_version"], "1");
    let next: u64 = mid["key_rotation_page_number"].parse().unwrap();
    let max: u64 = mid["key_rotation_max_page_number"].parse().unwrap();
    assert!(next < max, "{mid:?}");

    // rows: the server's dump
    let t = &read_tsv(&fixtures().join("crypt-mix/tables.tsv"))[0];
    let want = gunzip(&fixtures().join("crypt-mix").join(&t["dump"]));
    assert_eq!(
        want.iter().filter(|&&b| b == b'\n').count(),
        t["rows"].parse::<usize>().unwrap()
    );
    for threads in ["1", "3"] {
        let o = run(&[
            "rows",
            f,
            "--format",
            "tsv",
            "--threads",
            threads,
            "--key-file",
            k,
        ]);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(o.stdout == want, "rows differ from the server's dump");
    }

    // pages: the key version of each page
    let (code, j) = super::common::run_json(&["pages", "--format", "json", f]);
    assert_eq!(code, Some(0));
    let pages = j.get("pages").arr();
    assert_eq!(pages.len() as u64, max, "the space's size mid-rotation");
    let mut v1 = Vec::new();
    let mut v0 = Vec::new();
    for p in pages {
        let n = p.get("page").u64();
        let Some(kv) = p.get("key_version").opt_u64() else {
            assert_eq!(n, 0, "only page 0 has no key version");
            continue;
        };
        if p.get("type").str() == "ALLOCATED" {
            assert_eq!(kv, 0);
            continue;
        }
        match kv {
            0 => v0.push(n),
            1 => v1.push(n),
            other => panic!("page {n}: key version {other}"),
        }
        // an encrypted page's INDEX header is ciphertext: not shown
        if kv != 0 {
            assert!(p.get("index_id").opt_u64().is_none(), "page {n}");
        }
    }
    assert!(!v0.is_empty() && !v1.is_empty(), "{v0:?} {v1:?}");
    // a run from page 1: every page before the first at key version 0
    assert_eq!(v1, (1..=v1.len() as u64).collect::<Vec<_>>());
    assert!(v0.iter().all(|&n| n > v1.len() as u64));
    // every page handed out before the snapshot was rotated
    assert!(
        v1.len() as u64 + 1 >= next,
        "{} pages at 1, server at {next}",
        v1.len()
    );

    // `page N` names the key version
    let first = run(&["page", f, "1"]);
    assert!(String::from_utf8_lossy(&first.stdout).contains("key version (MariaDB)      1\n"));
    let plain = run(&["page", f, &v0[0].to_string()]);
    assert!(String::from_utf8_lossy(&plain.stdout)
        .contains("key version (MariaDB)      0 (stored unencrypted)\n"));

    // info: page 0's crypt data as the server states it
    let (code, j) = super::common::run_json(&["info", "--format", "json", f]);
    assert_eq!(code, Some(0));
    assert!(j.get("encrypted").bool());
    let c = j.get("mariadb_crypt");
    assert_eq!(
        c.get("min_key_version").u64(),
        super::common::num(&stopped["min_key_version"])
    );
    assert_eq!(
        c.get("key_id").u64(),
        super::common::num(&stopped["current_key_id"])
    );

    // check: every page verifies, with and without the key
    for keys in [vec![], vec!["--key-file", k]] {
        let mut args = vec!["check", f];
        args.extend(keys);
        let o = run(&args);
        let text = String::from_utf8_lossy(&o.stdout);
        assert_eq!(o.status.code(), Some(0), "{text}");
        let n_empty = pages
            .iter()
            .filter(|p| p.get("type").str() == "ALLOCATED")
            .count();
        assert!(
            text.contains(&format!(
                "{max} pages: {} valid (full_crc32 {}), {n_empty} empty, 0 damaged",
                max as usize - n_empty,
                max as usize - n_empty
            )),
            "{text}"
        );
    }
}

/// The subcommands `ibdscope --help` lists.
fn subcommands() -> Vec<String> {
    let out = run(&["--help"]);
    let text = String::from_utf8(out.stdout).unwrap();
    let list = text.split("Commands:\n").nth(1).expect("Commands:");
    list.lines()
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|n| *n != "help" && *n != "completions")
        .map(str::to_string)
        .collect()
}

/// No command prints key material: for every command, with the
/// password-encrypted key file and its password (given, in both forms, a
/// wrong one, and with the option misused), neither stdout nor stderr holds
/// the password, a key's hex text (either case) or a key's bytes.
#[test]
fn no_output_holds_key_material() {
    let pw = std::fs::read_to_string(keys().join("test-password.txt")).unwrap();
    let pw = pw.trim_end().to_string();
    let text = std::fs::read_to_string(keys().join("test-keys.txt")).unwrap();
    let mut secrets: Vec<Vec<u8>> = vec![pw.as_bytes().to_vec()];
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let hex = line.split(';').nth(1).unwrap();
        secrets.push(hex.to_uppercase().into_bytes());
        secrets.push(hex.to_lowercase().into_bytes());
        let bytes: Vec<u8> = (0..hex.len() / 2)
            .map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap())
            .collect();
        // the first 8 bytes: a longer run is then in the output too
        secrets.push(bytes[..8].to_vec());
    }
    let enc = keys().join("test-keys.enc");
    let enc = enc.to_str().unwrap();
    let file = crypt().join("ctr/pagecomp.ibd");
    let file = file.to_str().unwrap();
    let dir = crypt().join("ctr");
    let eq = format!("--key-file-key={pw}");
    let key_forms: Vec<Vec<&str>> = vec![
        vec!["--key-file", enc, "--key-file-key", &pw],
        vec!["--key-file", enc, &eq],
        vec!["--key-file", enc, "--key-file-key", "not-the-password"],
        // misused: no --key-file; both password options
        vec!["--key-file-key", &pw],
        vec![
            "--key-file",
            enc,
            "--key-file-key",
            &pw,
            "--key-file-key-file",
            enc,
        ],
    ];
    let cmds = subcommands();
    assert!(cmds.len() >= 18, "{cmds:?}");
    let mut runs = 0;
    for cmd in &cmds {
        let files: Vec<&str> = match cmd.as_str() {
            "diff" | "compare" => vec![file, file],
            "tables" => vec![dir.to_str().unwrap()],
            _ => vec![file],
        };
        for keys in &key_forms {
            let mut args = vec![cmd.as_str()];
            args.extend(&files);
            args.extend(keys);
            // `serve` listens until stopped: what it prints in its first
            // two seconds (its URL, or why it could not start).
            let o = if cmd == "serve" {
                run_bounded(&args, std::time::Duration::from_secs(2))
            } else {
                run(&args)
            };
            runs += 1;
            for out in [&o.stdout, &o.stderr] {
                for s in &secrets {
                    assert!(
                        !out.windows(s.len()).any(|w| w == &s[..]),
                        "{args:?}: output holds key material ({} bytes)",
                        s.len()
                    );
                }
            }
        }
    }
    assert!(runs >= 90, "{runs}");
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
        let crc = ibdscope_prims::crc32c::crc32c(&page[..size - 4]);
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
                err.contains(&format!("page {last} at byte offset "))
                    && err.contains(": decrypted page does not verify"),
                "{}: {err}",
                m["path"]
            );
        }
    }
}

/// With the key, the structure commands see what `check` sees: every
/// page of every encrypted table the server wrote (rows equal its dumps,
/// `check` verifies every page) is accounted, none drawn as not
/// verifiable; outside full_crc32 the page_compressed encrypted pages
/// carry no checksum of their stored bytes, so only their decrypted
/// image can be verified (they were drawn `~` before).
#[test]
fn maps_with_the_key_draw_no_page_as_not_verifiable() {
    for m in manifest() {
        let file = crypt().join(&m["path"]);
        let o = run_with(
            &["extents", "--format", "json", file.to_str().unwrap()],
            &key_args(&m),
        );
        assert_eq!(o.status.code(), Some(0), "{}", m["path"]);
        let j = Json::parse(&String::from_utf8_lossy(&o.stdout));
        assert_eq!(j.get("unverifiable_pages").u64(), 0, "{}", m["path"]);
        assert_eq!(j.get("damaged_pages").u64(), 0, "{}", m["path"]);
        assert_eq!(j.get("unaccounted_pages").u64(), 0, "{}", m["path"]);
        let indexed: u64 = j
            .get("legend")
            .arr()
            .iter()
            .map(|l| l.get("pages").u64())
            .sum();
        assert!(indexed > 0, "{}: no index page", m["path"]);
        // the LSN map too: every page drawn by its LSN
        let o = run_with(
            &["lsn", "--format", "json", file.to_str().unwrap()],
            &key_args(&m),
        );
        assert_eq!(o.status.code(), Some(0), "{}", m["path"]);
        let j = Json::parse(&String::from_utf8_lossy(&o.stdout));
        assert_eq!(j.get("unverifiable_pages").u64(), 0, "{}: lsn", m["path"]);
        assert_eq!(j.get("damaged_pages").u64(), 0, "{}: lsn", m["path"]);
    }
}

/// `audit --key-file` reads an encrypted space as it reads a plain one:
/// every server-written encrypted table is clean with its structure
/// checked and no page left unverified; a page whose stored bytes carry
/// no checksum (outside full_crc32, page_compressed and encrypted) and
/// whose body was changed cannot be told without the key ("encrypted",
/// exit 0) and is damaged with it (exit 1, the page named).
#[test]
fn audit_with_the_key_judges_the_decrypted_pages() {
    let verdict = |o: &std::process::Output| {
        let j = Json::parse(&String::from_utf8_lossy(&o.stdout));
        let f = &j.get("files").arr()[0];
        (
            f.get("verdict").str().to_string(),
            f.get("structure").str().to_string(),
            f.get("unverified").arr().len(),
            f.get("findings")
                .arr()
                .iter()
                .map(|x| x.get("page").u64())
                .collect::<Vec<_>>(),
        )
    };
    for m in manifest() {
        let file = crypt().join(&m["path"]);
        let o = run_with(
            &["audit", "--format", "json", file.to_str().unwrap()],
            &key_args(&m),
        );
        assert_eq!(o.status.code(), Some(0), "{}", m["path"]);
        let (v, structure, unverified, findings) = verdict(&o);
        assert_eq!(v, "clean", "{}", m["path"]);
        assert_eq!(structure, "checked", "{}", m["path"]);
        assert_eq!(unverified, 0, "{}", m["path"]);
        assert!(findings.is_empty(), "{}: {findings:?}", m["path"]);
    }
    let m = manifest()
        .into_iter()
        .find(|m| m["path"] == "crc32-cbc/pagecomp.ibd")
        .expect("crc32-cbc/pagecomp.ibd in the manifest");
    let mut bytes = std::fs::read(crypt().join(&m["path"])).unwrap();
    bytes[3 * 16384 + 100] ^= 0x55;
    let copy = scratch("audit-key-damaged.ibd");
    std::fs::write(&copy, &bytes).unwrap();
    let args = ["audit", "--format", "json", copy.to_str().unwrap()];
    let o = run_with(&args, &[]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(verdict(&o).0, "encrypted");
    let o = run_with(&args, &key_args(&m));
    assert_eq!(o.status.code(), Some(1));
    let (v, _, _, findings) = verdict(&o);
    assert_eq!(v, "damaged");
    assert!(findings.contains(&3), "{findings:?}");
    // one damaged page is not a wrong key
    assert!(!String::from_utf8_lossy(&o.stderr).contains("wrong key;"));
    // a key file whose keys open nothing: a finding, the pages read as
    // stored (never called damaged)
    let wrong = scratch("audit-wrong-keys.txt");
    let lines: String = (1..=10)
        .map(|id| format!("{id};{}\n", "11".repeat(32)))
        .collect();
    std::fs::write(&wrong, lines).unwrap();
    let file = crypt().join(&m["path"]);
    let o = run(&[
        "audit",
        "--format",
        "json",
        "--key-file",
        wrong.to_str().unwrap(),
        file.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("wrong key"));
    assert_eq!(verdict(&o).0, "encrypted");
}

/// `diff --key-file` names the index of a changed encrypted page, as on a
/// plain copy: the decrypted page's PAGE_INDEX_ID, the clustered index
/// `indexes --key-file` reads (`-` without the key: PAGE_INDEX_ID is in
/// the encrypted body).
#[test]
fn diff_with_the_key_names_the_index_of_an_encrypted_page() {
    for m in manifest()
        .into_iter()
        .filter(|m| m["path"].ends_with("ai_int.ibd"))
    {
        let file = crypt().join(&m["path"]);
        let o = run_with(
            &["indexes", "--format", "json", file.to_str().unwrap()],
            &key_args(&m),
        );
        let j = Json::parse(&String::from_utf8_lossy(&o.stdout));
        let ix = &j.get("indexes").arr()[0];
        let (id, root) = (ix.get("index_id").u64(), ix.get("root_page").u64() as usize);
        let mut bytes = std::fs::read(&file).unwrap();
        // the crypt tables are written with 16 KiB pages (page 0's flags)
        let size = 16384;
        assert_eq!(bytes.len() % size, 0, "{}", m["path"]);
        bytes[root * size + 500] ^= 0x55;
        let copy = scratch(&format!("diff-key-{}", m["path"].replace('/', "-")));
        std::fs::write(&copy, &bytes).unwrap();
        let args = [
            "diff",
            "--format",
            "json",
            file.to_str().unwrap(),
            copy.to_str().unwrap(),
        ];
        let index_of_change = |keys: &[String]| {
            let o = run_with(&args, keys);
            assert_eq!(o.status.code(), Some(1), "{}", m["path"]);
            let j = Json::parse(&String::from_utf8_lossy(&o.stdout));
            let p = &j.get("pages").arr()[0];
            assert_eq!(p.get("page").u64() as usize, root);
            p.get("index").clone()
        };
        assert_eq!(index_of_change(&key_args(&m)).u64(), id, "{}", m["path"]);
        assert_eq!(index_of_change(&[]), Json::Null, "{}", m["path"]);
    }
}

/// Page 0's crypt data destroyed on copies, page 0 re-sealed so only the
/// crypt data is wrong. MariaDB 10.11 `fil0crypt.cc`
/// `fil_space_read_crypt_data` takes a space without `CRYPT_MAGIC` as
/// unencrypted and refuses a type other than 0 or 1 and an IV length other
/// than 16 ("Found non sensible crypt scheme"): the pages that carry key
/// versions (the manifest's `min_key_version` 1) then cannot be
/// decrypted, with any key. `fil_encryption_t` has three values; the
/// minimum key version is the smallest of the pages' (1 here). A key id
/// that names another key of the file (1), or none (99), while the key
/// the manifest names opens the space, is damaged too (seen only with the
/// key file). Every command names the crypt data and its file offset
/// (16 KiB pages: 10428, `crypt_data_offset`, docs/format.md §3.4), exits
/// 1 (`check`, `info`, `audit`, `pages`, `lsn`, `types`), and the
/// structure commands exit 2 when no key can open the space, never calling
/// it a wrong key; with a key that opens it, they read it (exit 1).
#[test]
fn damaged_crypt_data_is_a_finding_of_every_command_not_a_missing_key() {
    const AT: usize = 10428;
    let rows = manifest();
    // (name, offset in the crypt data, bytes, no key can open the space,
    // seen only with the key file)
    let damages: [(&str, usize, &[u8], bool, bool); 9] = [
        ("magic", 0, b"XXXXXX", true, false),
        ("magic-zero", 0, &[0; 6], true, false),
        ("type", 6, &[7], true, false),
        ("iv0", 7, &[0], true, false),
        ("iv255", 7, &[255], true, false),
        ("mode", 32, &[9], false, false),
        ("minkey", 24, &[0, 0, 0, 5], false, false),
        ("keyid1", 28, &[0, 0, 0, 1], false, true),
        ("keyid99", 28, &[0, 0, 0, 99], false, true),
    ];
    for path in ["cbc/ai_int.ibd", "crc32-cbc/ai_int.ibd"] {
        let m = rows.iter().find(|r| r["path"] == path).unwrap();
        assert_eq!(m["min_key_version"], "1", "{path}");
        assert_eq!(m["key_id"], "2", "{path}");
        let full = m["checksum_algorithm"] == "full_crc32";
        let clean = std::fs::read(crypt().join(path)).unwrap();
        let frm = crypt().join(path.replace(".ibd", ".frm"));
        for (name, field, bytes, blocks, keyed_only) in damages {
            let mut data = clean.clone();
            data[AT + field..AT + field + bytes.len()].copy_from_slice(bytes);
            let p = &mut data[..16384];
            if full {
                let c = ibdscope_core::checksum::full_crc32(p);
                p[16380..].copy_from_slice(&c.to_be_bytes());
            } else {
                let c = ibdscope_core::checksum::page_crc32(p).to_be_bytes();
                p[..4].copy_from_slice(&c);
                p[16376..16380].copy_from_slice(&c);
            }
            let stem = format!(
                "crypt-{}-{name}",
                path.replace('/', "-").replace(".ibd", "")
            );
            let f = scratch(&format!("{stem}.ibd"));
            std::fs::write(&f, &data).unwrap();
            std::fs::copy(&frm, scratch(&format!("{stem}.frm"))).unwrap();
            let file = f.to_str().unwrap();
            let offset = format!("byte offset {}", AT + field);
            for keyed in [true, false] {
                if keyed_only && !keyed {
                    continue;
                }
                let keys = if keyed { key_args(m) } else { Vec::new() };
                let what = format!("{path} {name} key {keyed}");
                for cmd in ["check", "info", "audit", "pages", "lsn", "types"] {
                    let o = run_with(&[cmd, file], &keys);
                    let all = format!(
                        "{}{}",
                        String::from_utf8_lossy(&o.stdout),
                        String::from_utf8_lossy(&o.stderr)
                    );
                    assert_eq!(o.status.code(), Some(1), "{what} {cmd}: {all}");
                    let line = all
                        .lines()
                        .find(|l| l.contains("page 0's crypt data is damaged"))
                        .unwrap_or_else(|| panic!("{what} {cmd}: {all}"));
                    assert!(line.contains(&offset), "{what} {cmd}: {line}");
                    assert!(!all.contains("wrong key"), "{what} {cmd}: {all}");
                }
                for cmd in ["rows", "extents", "indexes", "fill", "segments"] {
                    let o = run_with(&[cmd, file], &keys);
                    let all = format!(
                        "{}{}",
                        String::from_utf8_lossy(&o.stdout),
                        String::from_utf8_lossy(&o.stderr)
                    );
                    let err = String::from_utf8_lossy(&o.stderr);
                    if blocks {
                        assert_eq!(o.status.code(), Some(2), "{what} {cmd}: {all}");
                        assert!(
                            err.contains("page 0's crypt data is damaged") && err.contains(&offset),
                            "{what} {cmd}: {err}"
                        );
                        assert!(!all.contains("wrong key"), "{what} {cmd}: {all}");
                    } else if keyed {
                        // The crypt data still opens the space: the rows
                        // come out, and the damage is a finding.
                        assert_eq!(o.status.code(), Some(1), "{what} {cmd}: {all}");
                        assert!(
                            all.contains("page 0's crypt data is damaged"),
                            "{what} {cmd}"
                        );
                    } else {
                        assert_ne!(o.status.code(), Some(0), "{what} {cmd}: {all}");
                    }
                }
            }
        }
    }
}
