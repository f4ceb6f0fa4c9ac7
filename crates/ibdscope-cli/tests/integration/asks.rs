//! What a run says about what was asked of it: a closed stderr does not end a run, pages asked for past
//! the end are one rule (exit 2), an unreadable file's JSON line gives the
//! reason, `restore` does not overwrite, `diff` streams JSON Lines, and
//! the text says what it knows once and only what it knows.

use super::common::{fixtures, read_tsv, run, run_json, scratch, unpack, Json};
use std::fs;
use std::process::{Command, Stdio};

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}
fn stdout(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Every subcommand with stderr a pipe whose read end is closed before it
/// starts (`ibdscope … 2>&1 >/dev/null | true`): each has something to say
/// on stderr (a missing file, a bad argument) and must say it without
/// panicking (exit 101 before: "failed printing to stderr: Broken pipe").
#[test]
fn a_closed_stderr_ends_no_run() {
    let missing = scratch("closed-stderr-missing.ibd");
    let m = missing.to_str().unwrap();
    let out = scratch("closed-stderr-out.ibd");
    let o = out.to_str().unwrap();
    let runs: Vec<Vec<&str>> = vec![
        vec!["info", m],
        vec!["pages", m],
        vec!["types", m],
        vec!["extents", m],
        vec!["lsn", m],
        vec!["fill", m],
        vec!["compare", m, m],
        vec!["segments", m],
        vec!["lists", m],
        vec!["indexes", m],
        vec!["sdi", m],
        vec!["tables", m],
        vec!["undo", m],
        vec!["page", m, "3"],
        vec!["records", m],
        vec!["schema", m],
        vec!["rows", m],
        vec!["history", m],
        vec!["check", m],
        vec!["audit", m],
        vec!["restore", m, "--datadir", m, "--out", o],
        vec!["diff", m, m],
        vec!["check", "--format", "json", m],
        vec!["info", "--no-such-flag", m],
    ];
    for args in &runs {
        let (reader, writer) = std::io::pipe().expect("pipe");
        drop(reader);
        let status = Command::new(env!("CARGO_BIN_EXE_ibdscope"))
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(writer)
            .status()
            .expect("run ibdscope");
        assert_eq!(status.code(), Some(2), "{args:?}: {status}");
    }
    // And the messages are unchanged when someone reads them.
    let o = run(&["info", m]);
    assert!(stderr(&o).contains("no such file"), "{}", stderr(&o));
}

/// The page count of a fixture: the server's file size over its page size
/// (fixtures/manifest.tsv).
fn pages_of(rel: &str) -> u64 {
    let m = read_tsv(&fixtures().join("manifest.tsv"));
    let r = m.iter().find(|r| r["path"] == rel).expect("in manifest");
    super::common::num(&r["file_size"]) / super::common::num(&r["page_size"])
}

/// `page N` and every `--from` (pages, extents, fill, lsn, compare) past
/// the last page: one rule, the run could not read what was asked: the
/// reason on stderr, exit 2, with JSON the error object giving it.
#[test]
fn pages_asked_past_the_end_are_one_rule() {
    let rel = "mysql56/ai_int.ibd";
    let f = fixtures().join(rel);
    let f = f.to_str().unwrap();
    let n = pages_of(rel);
    let past = n.to_string();
    let last = (n - 1).to_string();
    let said = |asked: &str| {
        format!("{asked} is past the end of the file ({n} whole pages of 16384 bytes)")
    };
    let o = run(&["page", f, &past]);
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
    assert!(
        stderr(&o).contains(&said(&format!("page {n}"))),
        "{}",
        stderr(&o)
    );
    let asked = format!("--from {n}");
    for cmd in ["pages", "extents", "fill", "lsn"] {
        for fmt in ["text", "json"] {
            let o = run(&[cmd, f, "--from", &past, "--format", fmt]);
            assert_eq!(o.status.code(), Some(2), "{cmd} {fmt}: {}", stdout(&o));
            assert!(stderr(&o).contains(&said(&asked)), "{cmd}: {}", stderr(&o));
            if fmt == "json" {
                let j = Json::parse(&stdout(&o));
                assert!(j.get("error").str().contains(&said(&asked)), "{cmd}");
            } else {
                assert_eq!(stdout(&o), "", "{cmd}");
            }
        }
        // The last page is still drawn (or listed).
        let o = run(&[cmd, f, "--from", &last]);
        assert!(
            matches!(o.status.code(), Some(0 | 1)),
            "{cmd}: {}",
            stderr(&o)
        );
    }
    let other = fixtures().join("mysql56/uuid_char36.ibd");
    let big = pages_of("mysql56/uuid_char36.ibd").max(n).to_string();
    let o = run(&["compare", f, other.to_str().unwrap(), "--from", &big]);
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
    assert!(
        stderr(&o).contains("is past the end of the file"),
        "{}",
        stderr(&o)
    );
}

/// A JSON or JSON Lines error object gives the reason, not "see stderr".
#[test]
fn an_error_line_gives_the_reason() {
    let missing = scratch("reason-missing.ibd");
    let m = missing.to_str().unwrap();
    for args in [
        vec!["check", "--format", "jsonl", m],
        vec!["check", "--format", "json", m],
        vec!["info", "--format", "json", m],
        vec!["pages", "--format", "jsonl", m],
        vec!["records", "--format", "jsonl", m],
        vec!["rows", "--format", "jsonl", m],
        vec!["audit", "--format", "jsonl", m],
    ] {
        let o = run(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let text = stdout(&o);
        assert!(!text.contains("see stderr"), "{args:?}: {text}");
        assert!(text.contains("no such file"), "{args:?}: {text}");
    }
    let o = run(&["check", "--format", "csv", m]);
    assert!(stdout(&o).contains("no such file"), "{}", stdout(&o));
    let o = run(&["compare", "--format", "json", m, m]);
    assert!(stdout(&o).contains("no such file"), "{}", stdout(&o));
}

/// `restore --out` an existing file: refused (exit 2, the file untouched)
/// unless `--force`.
#[test]
fn restore_does_not_overwrite_without_force() {
    let dir = unpack("dblwr/mysql56-torn.tar.gz", "asks-restore-force");
    let input = dir.join("fx/t.ibd");
    let out = scratch("asks-restore-existing.ibd");
    fs::write(&out, b"an earlier copy").unwrap();
    let args = |force: bool| {
        let mut a = vec![
            "restore".to_string(),
            input.to_str().unwrap().to_string(),
            "--datadir".into(),
            dir.to_str().unwrap().into(),
            "--out".into(),
            out.to_str().unwrap().into(),
        ];
        if force {
            a.push("--force".into());
        }
        a
    };
    let a = args(false);
    let o = run(&a.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
    assert!(stderr(&o).contains("--force"), "{}", stderr(&o));
    assert_eq!(fs::read(&out).unwrap(), b"an earlier copy");
    let a = args(true);
    let o = run(&a.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(
        fs::metadata(&out).unwrap().len(),
        fs::metadata(&input).unwrap().len()
    );
}

/// `diff --format jsonl`: one object per page that differs, the JSON
/// document's `pages` entries.
#[test]
fn diff_streams_json_lines() {
    let a = fixtures().join("mysql56/ai_int.ibd");
    let b = scratch("asks-diff-b.ibd");
    let mut data = fs::read(&a).unwrap();
    for p in [4usize, 6] {
        data[p * 16384 + 200] ^= 0xff;
    }
    fs::write(&b, &data).unwrap();
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
    let (code, j) = run_json(&["diff", "--format", "json", a, b]);
    assert_eq!(code, Some(1));
    let o = run(&["diff", "--format", "jsonl", a, b]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let lines: Vec<Json> = stdout(&o).lines().map(Json::parse).collect();
    let pages = j.get("pages").arr();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines.len(), pages.len());
    for (l, p) in lines.iter().zip(pages) {
        assert_eq!(l, p);
    }
    assert_eq!(lines[0].get("page").u64(), 4);
    assert_eq!(lines[1].get("page").u64(), 6);
}

/// A redo log whose creator field is blank: no `created by "    "`.
#[test]
fn a_blank_redo_creator_is_not_printed() {
    let dir = unpack("audit/mariadb1011-clean.tar.xz", "asks-blank-creator");
    let log = dir.join("ib_logfile0");
    let mut data = fs::read(&log).unwrap();
    // LOG_HEADER_CREATOR: 32 bytes at 16 (storage/innobase/include/log0log.h).
    data[16..48].fill(b' ');
    fs::write(&log, &data).unwrap();
    let o = run(&["audit", dir.to_str().unwrap()]);
    let text = stdout(&o);
    assert!(text.contains("redo log: ib_logfile0"), "{text}");
    assert!(!text.contains("created by \""), "{text}");
    assert!(text.contains("no creator recorded"), "{text}");
}

/// Picture subtitles name the vendor once ("MariaDB 10.5+ full_crc32",
/// not "MariaDB · MariaDB 10.5+ full_crc32").
#[test]
fn picture_subtitles_say_the_vendor_once() {
    let f = fixtures().join("mariadb1011/ai_int.ibd");
    for cmd in ["extents", "fill", "lsn"] {
        let out = scratch(&format!("asks-subtitle-{cmd}.svg"));
        let _ = fs::remove_file(&out);
        let o = run(&[cmd, f.to_str().unwrap(), "--out", out.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(0), "{cmd}: {}", stderr(&o));
        let svg = fs::read_to_string(&out).unwrap();
        assert!(svg.contains("MariaDB 10.5+ full_crc32"), "{cmd}");
        assert!(!svg.contains("MariaDB · MariaDB"), "{cmd}");
    }
}

/// Numbers in text have one format (no thousands separators, as every
/// other line of text): a 1024-page copy says `(all 1024)`.
#[test]
fn text_numbers_have_one_format() {
    let f = scratch("asks-1024-pages.ibd");
    let mut data = fs::read(fixtures().join("mysql56/ai_int.ibd")).unwrap();
    data.resize(1024 * 16384, 0);
    fs::write(&f, &data).unwrap();
    for cmd in ["extents", "fill", "lsn"] {
        let o = run(&[cmd, "--color", "never", f.to_str().unwrap()]);
        let text = stdout(&o);
        assert!(text.contains("pages 0 to 1023 (all 1024)"), "{cmd}: {text}");
        assert!(!text.contains("1,024"), "{cmd}: {text}");
    }
}

/// With fewer than 2 leaves a leaf chain has no step: its order cannot be
/// told, so no `0%` jumps (which reads as perfectly ordered).
#[test]
fn one_leaf_has_no_leaf_order() {
    let f = fixtures().join("mysql56/one_row.ibd");
    let f = f.to_str().unwrap();
    let o = run(&["indexes", f]);
    let text = stdout(&o);
    let row = text
        .lines()
        .find(|l| l.contains("PRIMARY") && !l.starts_with("index"))
        .unwrap_or_else(|| panic!("{text}"));
    let cols: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(cols[cols.len() - 2..], ["-", "-"], "{row}");
    let o = run(&["fill", f]);
    let text = stdout(&o);
    assert!(text.contains("order n/a"), "{text}");
    assert!(!text.contains("0 of 0 steps"), "{text}");
}

/// Without colour the owner maps still show fill (the key-order question):
/// AUTO_INCREMENT leaves full (`█`), random UUID leaves split (`▅`…`▇`).
#[test]
fn maps_without_colour_show_fill() {
    for (name, full) in [("ai_int", true), ("uuid_char36", false)] {
        let f = fixtures().join(format!("mysql56/{name}.ibd"));
        let o = run(&["extents", "--color", "never", f.to_str().unwrap()]);
        let text = stdout(&o);
        let map = text.lines().nth(3).unwrap_or("");
        let blocks = |c: char| map.chars().filter(|&x| x == c).count();
        assert!(blocks('█') > 0, "{name}: {text}");
        let split = blocks('▅') + blocks('▆') + blocks('▇');
        assert_eq!(split == 0, full, "{name}: {text}");
        assert!(text.contains("drawn by fill, in eighths"), "{name}: {text}");
    }
}

/// A key file whose keys are not the space's (same ids, other bytes):
/// every command says "wrong key" once and adds no line per page, no
/// missing root page, no "without the keyring"; `audit`'s verdict says
/// the key does not open the file.
#[test]
fn a_wrong_key_is_said_once() {
    let wrong = super::common::wrong_key_file("asks-wrong-keys.txt");
    let file = fixtures().join("crypt/cbc/ai_int.ibd");
    let (f, k) = (file.to_str().unwrap(), wrong.to_str().unwrap());
    for cmd in [
        "extents", "indexes", "fill", "segments", "rows", "schema", "audit",
    ] {
        let o = run(&[cmd, f, "--key-file", k]);
        let err = stderr(&o);
        assert!(matches!(o.status.code(), Some(1 | 2)), "{cmd}: {err}");
        assert_eq!(err.matches("wrong key").count(), 1, "{cmd}: {err}");
        for not in [
            "decrypted page does not verify",
            "has no root page",
            "without the keyring",
        ] {
            assert!(!err.contains(not), "{cmd}: {err}");
        }
        if cmd == "audit" {
            assert!(
                stdout(&o).contains("encrypted, the key given does not open it"),
                "{}",
                stdout(&o)
            );
        }
    }
}
