//! What the binary writes and prints, against hostile names: `--out` never
//! writes an input however the name reaches it, and a failed draw leaves
//! the old picture whole.

use super::common::{fixtures, scratch};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn ibdscope(args: &[&std::ffi::OsStr]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ibdscope"))
        .args(args)
        .output()
        .expect("run ibdscope")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A fresh folder for one test.
fn folder(name: &str) -> PathBuf {
    let d = scratch(name);
    let _ = fs::remove_dir_all(&d);
    fs::create_dir_all(&d).unwrap();
    d
}

/// A copy of a real MariaDB 10.11 file (fixtures/manifest.tsv).
fn copy_of_fixture(dir: &Path, name: &str) -> PathBuf {
    let p = dir.join(name);
    fs::copy(fixtures().join("mariadb1011/ai_int.ibd"), &p).unwrap();
    p
}

/// Every command that writes `--out`, with the input last but one and
/// `--out` after it.
fn picture_runs(input: &Path, other: &Path, out: &Path) -> Vec<Vec<std::ffi::OsString>> {
    let mut v = Vec::new();
    for cmd in ["fill", "extents", "lsn"] {
        v.push(vec![cmd.into(), input.into(), "--out".into(), out.into()]);
    }
    v.push(vec![
        "compare".into(),
        other.into(),
        input.into(),
        "--out".into(),
        out.into(),
    ]);
    v
}

fn run_os(args: &[std::ffi::OsString]) -> Output {
    let a: Vec<&std::ffi::OsStr> = args.iter().map(|s| s.as_os_str()).collect();
    ibdscope(&a)
}

/// `ln x.ibd pic.png; ibdscope fill x.ibd --out pic.png` wrote the PNG
/// into `x.ibd`: the check compared canonical paths, and a hard link has
/// its own.
#[test]
fn out_hard_link_to_the_input_is_refused() {
    let d = folder("out-hard-link");
    let other = copy_of_fixture(&d, "other.ibd");
    let original = fs::read(&other).unwrap();
    for ext in ["png", "svg"] {
        let input = copy_of_fixture(&d, &format!("x-{ext}.ibd"));
        let out = d.join(format!("pic.{ext}"));
        let _ = fs::remove_file(&out);
        fs::hard_link(&input, &out).unwrap();
        for args in picture_runs(&input, &other, &out) {
            let o = run_os(&args);
            assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
            assert!(
                stderr(&o).contains("never writes its input"),
                "{}",
                stderr(&o)
            );
            assert!(
                fs::read(&input).unwrap() == original,
                "{args:?} wrote its input"
            );
        }
    }
}

/// The `.frm` beside the file is read too (index names): a hard link to it
/// as `--out` was overwritten with the picture.
#[test]
fn out_hard_link_to_the_frm_beside_is_refused() {
    let d = folder("out-hard-link-frm");
    let input = copy_of_fixture(&d, "ai_int.ibd");
    let frm = d.join("ai_int.frm");
    fs::copy(fixtures().join("mariadb1011/ai_int.frm"), &frm).unwrap();
    let original = fs::read(&frm).unwrap();
    let out = d.join("pic.png");
    fs::hard_link(&frm, &out).unwrap();
    let o = run_os(&["fill".into(), input.into(), "--out".into(), out.into()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(fs::read(&frm).unwrap() == original, "the .frm was written");
}

/// A symbolic link to the input, directly or through a link to its folder.
#[test]
fn out_symlink_to_the_input_is_refused() {
    let d = folder("out-symlink");
    let other = copy_of_fixture(&d, "other.ibd");
    let input = copy_of_fixture(&d, "x.ibd");
    let original = fs::read(&input).unwrap();
    std::os::unix::fs::symlink("x.ibd", d.join("pic.svg")).unwrap();
    std::os::unix::fs::symlink(".", d.join("here")).unwrap();
    fs::hard_link(&input, d.join("hard.png")).unwrap();
    for out in [d.join("pic.svg"), d.join("here/hard.png")] {
        for args in picture_runs(&input, &other, &out) {
            let o = run_os(&args);
            assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
            assert!(
                fs::read(&input).unwrap() == original,
                "{args:?} wrote its input"
            );
        }
    }
}

/// `--out` through a link to a device was written into it (exit 0), and a
/// FIFO was opened and waited on for a reader; a directory, a FIFO or a
/// device is no picture file.
#[test]
fn out_device_fifo_or_directory_is_refused() {
    let d = folder("out-device");
    let input = copy_of_fixture(&d, "x.ibd");
    std::os::unix::fs::symlink("/dev/null", d.join("null.png")).unwrap();
    fs::create_dir(d.join("dir.svg")).unwrap();
    let fifo = d.join("fifo.svg");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    for out in ["null.png", "dir.svg", "fifo.svg"] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_ibdscope"))
            .arg("fill")
            .arg(&input)
            .arg("--out")
            .arg(d.join(out))
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // A FIFO without a reader blocks the writer: give it 20 s.
        let mut status = None;
        for _ in 0..200 {
            status = child.try_wait().unwrap();
            if status.is_some() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        let Some(status) = status else {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("{out}: still waiting to write after 20 s");
        };
        let mut err = String::new();
        std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
        assert_eq!(status.code(), Some(2), "{out}: {err}");
        assert!(err.contains("--out"), "{out}: {err}");
    }
    assert!(fs::symlink_metadata(d.join("null.png"))
        .unwrap()
        .is_symlink());
}

/// A draw that fails part way (the file size limit, as on a full disk)
/// truncated the old picture and left half a file; now the old picture
/// stays whole and no temporary file is left.
#[test]
fn out_failed_draw_leaves_the_old_picture_and_no_partial_file() {
    let d = folder("out-failed-draw");
    let input = copy_of_fixture(&d, "x.ibd");
    for ext in ["png", "svg"] {
        let out = d.join(format!("pic.{ext}"));
        let o = run_os(&[
            "fill".into(),
            input.clone().into(),
            "--out".into(),
            out.clone().into(),
        ]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let old = fs::read(&out).unwrap();
        assert!(old.len() > 2048, "{}", old.len());
        // 2 blocks of 512 bytes: the write past them fails with EFBIG.
        let o = Command::new("sh")
            .arg("-c")
            .arg("trap '' XFSZ; ulimit -f 2; exec \"$0\" fill \"$1\" --out \"$2\"")
            .arg(env!("CARGO_BIN_EXE_ibdscope"))
            .arg(&input)
            .arg(&out)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(
            fs::read(&out).unwrap() == old,
            "{ext}: the old picture was changed"
        );
        let names: Vec<_> = fs::read_dir(&d)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        // x.ibd and the pictures drawn so far, nothing else.
        let drawn = if ext == "png" { 1 } else { 2 };
        assert_eq!(names.len(), 1 + drawn, "{names:?}");
    }
}

/// With `--format json` an unreadable file gave an empty stdout in every
/// command but `check`, `audit` and `compare`: now one error object
/// (`{file, error}`; `diff`: `{a, b, error}`), exit 2.
#[test]
fn json_unreadable_file_gives_an_error_object_in_every_command() {
    let d = folder("json-unreadable");
    let short = d.join("short.ibd");
    fs::write(&short, b"garbage").unwrap();
    let good = copy_of_fixture(&d, "good.ibd");
    let missing = d.join("missing.ibd");
    let s = |p: &Path| p.to_str().unwrap().to_string();
    for bad in [&short, &missing] {
        let mut runs: Vec<(Vec<String>, &str)> = Vec::new();
        for cmd in [
            "info", "pages", "types", "extents", "lsn", "fill", "segments", "lists", "indexes",
            "sdi", "records", "schema", "rows", "check", "compare",
        ] {
            runs.push((vec![cmd.into(), s(bad)], "json"));
        }
        runs.push((vec!["page".into(), s(bad), "0".into()], "json"));
        for cmd in ["pages", "records", "rows", "check"] {
            runs.push((vec![cmd.into(), s(bad)], "jsonl"));
        }
        runs.push((vec!["diff".into(), s(&good), s(bad)], "json"));
        for (mut args, format) in runs {
            args.extend(["--format".into(), format.into()]);
            let o = run_os(&args.iter().map(Into::into).collect::<Vec<_>>());
            assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
            let text = String::from_utf8(o.stdout).unwrap();
            assert!(!text.trim().is_empty(), "{args:?}: nothing on stdout");
            let line = text.lines().next().unwrap();
            let j = super::common::Json::parse(if format == "jsonl" { line } else { &text });
            // compare wraps the file's object in its document.
            let obj = match j.opt("files") {
                Some(f) => f.arr()[0].clone(),
                None => j,
            };
            let key = if args[0] == "diff" { "b" } else { "file" };
            assert_eq!(obj.get(key).str(), s(bad), "{args:?}: {text}");
            assert!(!obj.get("error").str().is_empty(), "{args:?}: {text}");
        }
    }
}

/// The hostile names: an escape sequence, a newline that would forge an
/// output line, a byte that is not UTF-8.
fn hostile_names() -> Vec<Vec<u8>> {
    vec![
        b"esc\x1b[31mred".to_vec(),
        b"line\nforged: page 0 is fine".to_vec(),
        b"bad\xffbyte".to_vec(),
    ]
}

fn os(b: &[u8]) -> std::ffi::OsString {
    use std::os::unix::ffi::OsStrExt;
    std::ffi::OsStr::from_bytes(b).to_os_string()
}

/// Every command over one file, as (arguments before the file, after it,
/// formats).
fn every_command() -> Vec<(&'static str, Vec<&'static str>, Vec<&'static str>)> {
    let tj = vec!["text", "json"];
    let mut v: Vec<_> = [
        "info", "pages", "types", "extents", "lsn", "fill", "segments", "lists", "indexes", "sdi",
        "records", "schema", "rows", "check", "audit", "compare",
    ]
    .into_iter()
    .map(|c| (c, vec![], tj.clone()))
    .collect();
    v.push(("page", vec!["3"], tj.clone()));
    v.push(("pages", vec![], vec!["jsonl", "csv"]));
    v.push(("records", vec![], vec!["jsonl", "csv"]));
    v.push(("rows", vec![], vec!["jsonl", "csv", "tsv", "sql"]));
    v.push(("check", vec![], vec!["jsonl", "csv"]));
    v.push(("audit", vec![], vec!["jsonl", "csv"]));
    for c in ["extents", "segments", "indexes", "compare"] {
        v.push((c, vec![], vec!["csv"]));
    }
    v
}

/// File names were printed raw: an escape sequence reached the terminal, a
/// newline forged an output line, a byte that is not UTF-8 became U+FFFD in
/// text and JSON alike. Text now shows them escaped, JSON parses and keeps
/// the exact bytes.
#[test]
fn names_with_escapes_newlines_and_bad_bytes_are_shown_escaped() {
    let d = folder("hostile-names");
    let src = fixtures().join("mariadb1011/ai_int");
    for name in hostile_names() {
        let mut ibd = name.clone();
        ibd.extend_from_slice(b".ibd");
        let mut frm = name.clone();
        frm.extend_from_slice(b".frm");
        let ibd = d.join(os(&ibd));
        fs::copy(src.with_extension("ibd"), &ibd).unwrap();
        fs::copy(src.with_extension("frm"), d.join(os(&frm))).unwrap();
        // The file twice for the commands over several (a copy for diff).
        let mut runs: Vec<Vec<std::ffi::OsString>> = Vec::new();
        for (cmd, after, formats) in every_command() {
            for f in formats {
                let mut a: Vec<std::ffi::OsString> = vec![cmd.into(), ibd.clone().into()];
                if cmd == "compare" {
                    a.push(ibd.clone().into());
                }
                a.extend(after.iter().map(Into::into));
                a.extend(["--format".into(), f.into()]);
                runs.push(a);
            }
        }
        for f in ["text", "json"] {
            runs.push(vec![
                "diff".into(),
                ibd.clone().into(),
                ibd.clone().into(),
                "--format".into(),
                f.into(),
            ]);
            // Unreadable: the name is in the error, on stderr and in JSON.
            let missing = d.join(os(&[name.as_slice(), b"-missing.ibd"].concat()));
            runs.push(vec![
                "info".into(),
                missing.into(),
                "--format".into(),
                f.into(),
            ]);
        }
        let picture = d.join(os(&[name.as_slice(), b".svg"].concat()));
        runs.push(vec![
            "fill".into(),
            ibd.clone().into(),
            "--out".into(),
            picture.into(),
        ]);
        for args in runs {
            let o = run_os(&args);
            assert!(
                o.status.code().is_some_and(|c| c <= 2),
                "{args:?}: {}",
                stderr(&o)
            );
            let format = args.iter().position(|a| a == "--format");
            let format = format.and_then(|i| args[i + 1].to_str()).unwrap_or("text");
            // TSV, SQL and `rows`' CSV carry names as data, in their own
            // quoting; every other CSV shows them as text does.
            let data = ["tsv", "sql"].contains(&format) || (format == "csv" && args[0] == "rows");
            let json = format.starts_with("json");
            for (what, bytes) in [("stdout", &o.stdout), ("stderr", &o.stderr)] {
                if data && what == "stdout" {
                    continue;
                }
                assert!(!bytes.contains(&0x1b), "{args:?}: ESC on {what}");
                let text = String::from_utf8(bytes.clone())
                    .unwrap_or_else(|_| panic!("{args:?}: {what} is not UTF-8"));
                // Text shows a path's bad byte as \xff; JSON keeps it in
                // `_bytes`. (The table name taken from the file name is a
                // name, not a path: it may hold U+FFFD.)
                let lossy_ok = json && what == "stdout";
                assert!(
                    !text.contains("\u{fffd}byte.") || lossy_ok,
                    "{args:?}: {text}"
                );
                assert!(
                    !text.lines().any(|l| l.starts_with("forged")),
                    "{args:?}: a forged line on {what}: {text}"
                );
            }
            let out = String::from_utf8(o.stdout).unwrap();
            match format {
                "json" => check_json_names(&super::common::Json::parse(&out), &args),
                "jsonl" => {
                    for line in out.lines() {
                        check_json_names(&super::common::Json::parse(line), &args);
                    }
                }
                _ => {}
            }
        }
    }
}

/// Every `file`/`a`/`b`/`path` string in `j` that lost bytes (U+FFFD) is
/// followed by its `_bytes`, which must decode to a name we made.
fn check_json_names(j: &super::common::Json, args: &[std::ffi::OsString]) {
    use super::common::Json;
    match j {
        Json::Obj(members) => {
            for (k, v) in members {
                if let Json::Str(s) = v {
                    if s.contains('\u{fffd}') && ["file", "a", "b", "path"].contains(&k.as_str()) {
                        let bytes: Vec<u8> = j
                            .get(&format!("{k}_bytes"))
                            .arr()
                            .iter()
                            .map(|b| b.u64() as u8)
                            .collect();
                        assert!(
                            bytes.windows(4).any(|w| w == b"\xffbyt"),
                            "{args:?}: {k}_bytes {bytes:?}"
                        );
                    }
                }
                check_json_names(v, args);
            }
        }
        Json::Arr(items) => items.iter().for_each(|v| check_json_names(v, args)),
        _ => {}
    }
}

/// Names read from a file (here an index name in a `.frm`, `PRIMARY`
/// patched to ESC `[31m` and a newline, same length) reached the terminal
/// raw in text; JSON keeps them exactly.
#[test]
fn names_read_from_a_frm_with_escapes_are_shown_escaped() {
    let d = folder("hostile-frm");
    let src = fixtures().join("mariadb1011/ai_int");
    let ibd = d.join("t.ibd");
    fs::copy(src.with_extension("ibd"), &ibd).unwrap();
    let frm = fs::read(src.with_extension("frm")).unwrap();
    let at = frm.windows(7).position(|w| w == b"PRIMARY").unwrap();
    let mut hostile = frm.clone();
    hostile[at..at + 7].copy_from_slice(b"P\x1b[31m\n");
    fs::write(d.join("t.frm"), &hostile).unwrap();
    let mut seen_name = false;
    for (cmd, after, formats) in every_command() {
        for f in formats {
            let mut a: Vec<std::ffi::OsString> = vec![cmd.into(), ibd.clone().into()];
            a.extend(after.iter().map(Into::into));
            a.extend(["--format".into(), f.into()]);
            let o = run_os(&a);
            assert!(
                o.status.code().is_some_and(|c| c <= 2),
                "{a:?}: {}",
                stderr(&o)
            );
            if ["tsv", "sql"].contains(&f) || (f == "csv" && cmd == "rows") {
                continue;
            }
            assert!(!o.stdout.contains(&0x1b), "{a:?}: ESC on stdout");
            assert!(!o.stderr.contains(&0x1b), "{a:?}: ESC on stderr");
            let out = String::from_utf8(o.stdout).unwrap();
            if f == "json" {
                super::common::Json::parse(&out);
                seen_name |= out.contains("\"P\\u001b[31m\\n\"");
            } else if ["text", "csv"].contains(&f)
                && ["indexes", "segments", "extents"].contains(&cmd)
            {
                assert!(out.contains("P\\x1b[31m\\n"), "{a:?}: {out}");
            }
        }
    }
    assert!(seen_name, "no JSON output kept the index name exactly");
}

/// Table and column names from a CREATE TABLE statement (`--ddl`) with ESC `[31m`
/// and a newline, and a parse error quoting an ESC: text and stderr show
/// them escaped, JSON keeps the name.
#[test]
fn names_read_from_a_ddl_with_escapes_are_shown_escaped() {
    let d = folder("hostile-ddl");
    let ibd = d.join("ai_int.ibd");
    fs::copy(fixtures().join("mariadb1011/ai_int.ibd"), &ibd).unwrap();
    let good = d.join("good.sql");
    fs::write(
        &good,
        "CREATE TABLE `t\x1b[31m\nx` (`id\x1b[31m\nx` int NOT NULL, `v` varchar(64) NOT NULL, \
         `n` int NOT NULL, PRIMARY KEY (`id\x1b[31m\nx`)) ENGINE=InnoDB;",
    )
    .unwrap();
    let bad = d.join("bad.sql");
    fs::write(&bad, "CREATE TABLE `ai_int` (`id` int NOT NULL) \x1b[31m;").unwrap();
    for cmd in ["schema", "rows"] {
        let o = run_os(&[
            cmd.into(),
            ibd.clone().into(),
            "--ddl".into(),
            good.clone().into(),
        ]);
        assert_eq!(o.status.code(), Some(0), "{cmd}: {}", stderr(&o));
        let out = String::from_utf8(o.stdout).unwrap();
        assert!(!out.contains('\x1b'), "{cmd}: {out}");
        assert!(out.contains("id\\x1b[31m\\nx"), "{cmd}: {out}");
        let o = run_os(&[
            cmd.into(),
            ibd.clone().into(),
            "--ddl".into(),
            bad.clone().into(),
        ]);
        assert_eq!(o.status.code(), Some(2), "{cmd}");
        assert!(!o.stderr.contains(&0x1b), "{cmd}: {}", stderr(&o));
        assert!(stderr(&o).contains("\\x1b"), "{cmd}: {}", stderr(&o));
    }
    let o = run_os(&[
        "schema".into(),
        ibd.into(),
        "--ddl".into(),
        good.into(),
        "--format".into(),
        "json".into(),
    ]);
    let out = String::from_utf8(o.stdout).unwrap();
    super::common::Json::parse(&out);
    assert!(out.contains("\"id\\u001b[31m\\nx\""), "{out}");
}
