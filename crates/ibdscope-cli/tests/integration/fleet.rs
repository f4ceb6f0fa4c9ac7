//! docs/fleet.md's pipeline, run as written on a scratch datadir made of
//! the MySQL 5.6 fixtures, one copy with a flipped byte and one file that
//! is no tablespace: GNU parallel gathers one JSON line per file, the job
//! log has the worst exit code, and the jq aggregation names the bad files.
//! Skipped, saying so, when GNU parallel (or, for the aggregation, jq) is
//! not installed (`.ci/run` installs both when it runs as root with apt).

use super::common::{fixtures, root, scratch, Json};
use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

/// The shell block that follows `<!-- fleet:NAME` in docs/fleet.md.
fn block(name: &str) -> String {
    let doc = std::fs::read_to_string(root().join("docs/fleet.md")).unwrap();
    let after = doc
        .split(&format!("<!-- fleet:{name}"))
        .nth(1)
        .unwrap_or_else(|| panic!("docs/fleet.md has no fleet:{name} block"));
    let code = after.split("```sh\n").nth(1).expect("a sh block");
    code.split("```").next().unwrap().to_string()
}

/// Whether `cmd --version` runs and says `what`.
fn installed(cmd: &str, what: &str) -> bool {
    Command::new(cmd)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success() && String::from_utf8_lossy(&o.stdout).contains(what))
}

/// Runs `script` with bash in `dir`, the test's ibdscope first on PATH.
fn sh(script: &str, dir: &Path) -> std::process::Output {
    let bin = Path::new(env!("CARGO_BIN_EXE_ibdscope")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    Command::new("bash")
        .args(["-c", script])
        .current_dir(dir)
        .env("PATH", path)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap()
}

#[test]
fn the_documented_parallel_pipeline_gives_a_line_per_file() {
    if !installed("parallel", "GNU parallel") {
        eprintln!(
            "SKIPPED: GNU parallel is not installed (apt-get install parallel): \
             docs/fleet.md's pipeline is not run"
        );
        return;
    }
    let work = scratch("fleet");
    let _ = std::fs::remove_dir_all(&work);
    let db = work.join("datadir/fx");
    std::fs::create_dir_all(&db).unwrap();
    let mut files = BTreeSet::new();
    for e in std::fs::read_dir(fixtures().join("mysql56")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "ibd") {
            let to = db.join(p.file_name().unwrap());
            std::fs::copy(&p, &to).unwrap();
            files.insert(to);
        }
    }
    // A name with a space; a page in use damaged (a byte of page 3, the
    // clustered index's first leaf, flipped); not a tablespace at all.
    let spaced = db.join("my table.ibd");
    std::fs::copy(fixtures().join("mysql56/ai_int.ibd"), &spaced).unwrap();
    let damaged = db.join("damaged.ibd");
    let mut bytes = std::fs::read(fixtures().join("mysql56/seq_int.ibd")).unwrap();
    bytes[3 * 16384 + 200] ^= 0x40;
    std::fs::write(&damaged, bytes).unwrap();
    let broken = db.join("broken.ibd");
    std::fs::write(&broken, vec![0xabu8; 20000]).unwrap();
    std::fs::write(db.join("notes.txt"), "not looked at").unwrap();
    files.extend([spaced.clone(), damaged.clone(), broken.clone()]);

    let script = block("pipeline").replace(
        "DATADIR=/var/lib/mysql",
        &format!("DATADIR='{}'", work.join("datadir").display()),
    );
    assert_ne!(script, block("pipeline"), "the block sets DATADIR");
    let out = sh(&script, &work);
    // parallel's status: the jobs that did not exit 0 (here, all of them
    // hold a bad file only if -X packed everything into one).
    assert!(out.status.code().is_some_and(|c| (1..=100).contains(&c)));

    let text = std::fs::read_to_string(work.join("check.jsonl")).unwrap();
    let mut seen = BTreeSet::new();
    for line in text.lines() {
        let j = Json::parse(line);
        let file = Path::new(j.get("file").str()).to_path_buf();
        let is = |p: &Path| file == p;
        if is(&broken) {
            assert!(j.opt("error").is_some(), "{line}");
        } else if is(&damaged) {
            let invalid = j.get("invalid").arr();
            assert_eq!(invalid.len(), 1, "{line}");
            assert_eq!(invalid[0].get("page").u64(), 3, "{line}");
        } else {
            assert!(j.get("invalid").arr().is_empty(), "{line}");
            assert!(j.get("file_findings").arr().is_empty(), "{line}");
        }
        assert!(seen.insert(file), "{line}: twice");
    }
    assert_eq!(seen, files, "one line per .ibd file, nothing else");

    // The job log: a row per job after its header; the worst code is 2.
    let log = std::fs::read_to_string(work.join("check.log")).unwrap();
    let codes: Vec<u32> = log
        .lines()
        .skip(1)
        .map(|l| l.split('\t').nth(6).unwrap().parse().unwrap())
        .collect();
    assert_eq!(codes.iter().max(), Some(&2), "{log}");

    if !installed("jq", "jq") {
        eprintln!("SKIPPED: jq is not installed: docs/fleet.md's aggregation is not run");
        return;
    }
    let out = sh(&block("aggregate"), &work);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some(broken.to_str().unwrap()));
    assert_eq!(
        lines.next().map(|l| l.split('\t').collect::<Vec<_>>()),
        Some(vec![damaged.to_str().unwrap(), "1", "0", "0"])
    );
    let totals = Json::parse(&lines.collect::<Vec<_>>().join("\n"));
    assert_eq!(totals.get("files").u64(), files.len() as u64);
    assert_eq!(totals.get("unreadable").u64(), 1);
    assert_eq!(totals.get("with_findings").u64(), 1);
}

#[test]
fn one_file_as_json_is_one_line() {
    // `parallel ibdscope check --format json {}`: each file's document,
    // readable or not, is one line.
    for file in [
        fixtures().join("mysql56/ai_int.ibd"),
        fixtures().join("mysql56/ai_int.frm"),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_ibdscope"))
            .args(["check", "--format", "json"])
            .arg(&file)
            .output()
            .unwrap();
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(text.ends_with('\n'), "{text:?}");
        assert_eq!(text.lines().count(), 1, "{text:?}");
        Json::parse(&text);
    }
}
