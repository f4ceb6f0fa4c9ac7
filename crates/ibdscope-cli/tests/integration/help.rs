//! Every command's `--help`: it ends with examples, and every example runs
//! as written on the committed fixtures and exits 0 (clean) or 1
//! (findings), never 2 (could not read, or wrong arguments); `--format`
//! lists only the formats the command offers.

use super::common::{fixtures, instance_copy, run, scratch};
use std::process::Command;

/// The subcommands `ibdscope --help` lists.
fn subcommands() -> Vec<String> {
    let out = run(&["--help"]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    let list = text
        .split("Commands:\n")
        .nth(1)
        .expect("a Commands: section");
    list.lines()
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|n| *n != "help")
        .map(str::to_string)
        .collect()
}

/// The lines of the `Examples:` section of `ibdscope <cmd> --help`.
fn examples(cmd: &str) -> Vec<String> {
    let out = run(&[cmd, "--help"]);
    assert_eq!(out.status.code(), Some(0), "{cmd} --help");
    let text = String::from_utf8(out.stdout).unwrap();
    let section = text
        .split("Examples:\n")
        .nth(1)
        .unwrap_or_else(|| panic!("{cmd} --help has no Examples: section"));
    section
        .lines()
        .take_while(|l| l.starts_with("  "))
        .map(|l| l.trim().to_string())
        .collect()
}

#[test]
fn every_example_in_every_help_runs() {
    let cmds = subcommands();
    assert!(cmds.len() >= 18, "{cmds:?}");
    // The examples name fixtures/... from the repository's root; they run
    // in a scratch directory that links to the fixtures, so the pictures
    // they write land there.
    let dir = scratch("help-examples");
    std::fs::create_dir_all(&dir).unwrap();
    let link = dir.join("fixtures");
    if std::fs::symlink_metadata(&link).is_err() {
        std::os::unix::fs::symlink(fixtures(), &link).unwrap();
    }
    // `tables` examples name a whole datadir: `datadir` is the MariaDB
    // instance fixture, unpacked.
    let datadir = dir.join("datadir");
    if std::fs::symlink_metadata(&datadir).is_err() {
        std::os::unix::fs::symlink(instance_copy("mariadb1011-split"), &datadir).unwrap();
    }
    let mut ran = 0;
    for cmd in &cmds {
        let list = examples(cmd);
        assert!(!list.is_empty(), "{cmd} --help shows no example");
        for e in list {
            let words: Vec<&str> = e.split_whitespace().collect();
            assert_eq!(words.first(), Some(&"ibdscope"), "{e}");
            assert_eq!(words.get(1), Some(&cmd.as_str()), "{e}");
            if cmd == "serve" {
                // Serves until stopped: its tests are the serve crate's.
                continue;
            }
            let out = Command::new(env!("CARGO_BIN_EXE_ibdscope"))
                .args(&words[1..])
                .current_dir(&dir)
                .output()
                .unwrap();
            let code = out.status.code();
            assert!(
                matches!(code, Some(0 | 1)),
                "`{e}` exited {code:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            assert!(!out.stdout.is_empty(), "`{e}` printed nothing");
            ran += 1;
        }
    }
    assert!(ran >= 2 * cmds.len() - 6, "only {ran} examples");
    // The pictures the examples name were written.
    for pic in ["extents.png", "lsn.svg", "fill.png"] {
        let m = std::fs::metadata(dir.join(pic)).unwrap_or_else(|e| panic!("{pic}: {e}"));
        assert!(m.len() > 0, "{pic} is empty");
    }
}

#[test]
fn help_lists_only_the_formats_a_command_offers() {
    let possible = |cmd: &str| {
        let out = run(&[cmd, "-h"]);
        let text = String::from_utf8(out.stdout).unwrap();
        let at = text.find("--format").expect("--format in help");
        let rest = &text[at..];
        let from = rest.find("[possible values: ").expect("possible values") + 18;
        let to = rest[from..].find(']').unwrap();
        rest[from..from + to].to_string()
    };
    assert_eq!(possible("info"), "text, json");
    assert_eq!(possible("check"), "text, json, jsonl, csv");
    assert_eq!(possible("pages"), "text, json, jsonl, csv");
    assert_eq!(possible("rows"), "text, json, jsonl, csv, tsv, sql");
    let out = run(&["info", "--format", "csv", "fixtures/mysql56/secondary.ibd"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("[possible values: text, json]"), "{err}");
}

#[test]
fn a_picture_in_a_missing_directory_is_a_sentence() {
    let file = fixtures().join("mysql56/secondary.ibd");
    let out = run(&[
        "extents",
        file.to_str().unwrap(),
        "--out",
        "/nonexistent-ibdscope/x.png",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(
        err,
        "ibdscope: cannot write /nonexistent-ibdscope/x.png: \
         no such directory /nonexistent-ibdscope\n"
    );
}

/// `records --index NAME` walks the index the server names so: the same
/// output as `--index ID` with the id `fixtures/indexes.tsv` gives it.
#[test]
fn records_index_by_name_is_the_servers_index() {
    let rows = super::common::read_tsv(&fixtures().join("indexes.tsv"));
    let mut checked = 0;
    for r in rows.iter().filter(|r| {
        r["path"].starts_with("mysql56/secondary") || r["path"] == "mariadb1011/secondary.ibd"
    }) {
        let file = fixtures().join(&r["path"]);
        let file = file.to_str().unwrap();
        let by_name = run(&[
            "records",
            file,
            "--index",
            &r["index_name"],
            "--format",
            "csv",
        ]);
        let by_id = run(&[
            "records",
            file,
            "--index",
            &r["index_id"],
            "--format",
            "csv",
        ]);
        assert_eq!(
            by_name.status.code(),
            Some(0),
            "{} {}",
            r["path"],
            r["index_name"]
        );
        assert_eq!(
            by_name.stdout, by_id.stdout,
            "{} {}",
            r["path"], r["index_name"]
        );
        assert!(!by_id.stdout.is_empty());
        checked += 1;
    }
    assert_eq!(checked, 6);
    let file = fixtures().join("mysql56/secondary.ibd");
    let out = run(&["records", file.to_str().unwrap(), "--index", "nope"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("no index nope in the definition (indexes: PRIMARY, idx_k, idx_name)"),
        "{err}"
    );
}

/// The README opens with a picture and the command that made it: the
/// command writes the picture the README shows (here to a scratch file),
/// from the committed fixtures.
#[test]
fn the_readme_picture_command_runs_and_names_the_picture_shown() {
    let readme = std::fs::read_to_string(super::common::root().join("README.md")).unwrap();
    let first_image = readme
        .lines()
        .find_map(|l| l.strip_prefix("![").and_then(|r| r.split("](").nth(1)))
        .and_then(|r| r.strip_suffix(')'))
        .expect("an image in the README");
    // The README's first sh block, continuation lines joined.
    let block = readme
        .split("```sh\n")
        .nth(1)
        .and_then(|b| b.split("```").next())
        .unwrap()
        .replace("\\\n", " ");
    let words: Vec<&str> = block.split_whitespace().collect();
    assert_eq!(&words[..2], ["ibdscope", "compare"], "{block}");
    let at = words.iter().position(|w| *w == "--out").unwrap();
    assert_eq!(
        words[at + 1],
        first_image,
        "the command writes the picture shown"
    );
    assert!(
        super::common::root().join(first_image).is_file(),
        "{first_image} is committed"
    );
    let pic = scratch("readme.png");
    let mut args: Vec<String> = words[1..].iter().map(|w| w.to_string()).collect();
    args[at] = pic.to_string_lossy().into_owned();
    let out = Command::new(env!("CARGO_BIN_EXE_ibdscope"))
        .args(&args)
        .current_dir(super::common::root())
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let png = std::fs::read(&pic).unwrap();
    assert!(png.starts_with(b"\x89PNG"), "a PNG");
}
