//! `ibdscope serve` as a process: it prints its URL (127.0.0.1, a token),
//! answers with the token and refuses without it, and never prints key
//! material. The hostile requests are the serve crate's tests.

use super::common::fixtures;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::Duration;

fn get(port: u16, target: &str) -> String {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    write!(
        s,
        "GET {target} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut out = String::new();
    let _ = s.read_to_string(&mut out);
    out
}

#[test]
fn serve_prints_its_url_and_answers_with_the_token_only() {
    let file = fixtures().join("mariadb1011/ai_int.ibd");
    let mut child = Command::new(env!("CARGO_BIN_EXE_ibdscope"))
        .args(["serve", "--threads", "1"])
        .arg(&file)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let url = line
        .trim()
        .strip_prefix("ibdscope serve: ")
        .unwrap_or("")
        .to_string();
    let rest = url.strip_prefix("http://127.0.0.1:").expect(&line);
    let (port, token) = rest.split_once("/?t=").expect(&line);
    let port: u16 = port.parse().unwrap();
    assert_eq!(token.len(), 32, "{line}");
    let ok = get(port, &format!("/api/files?t={token}"));
    let forbidden = get(port, "/api/files");
    child.kill().unwrap();
    let _ = child.wait();
    assert!(ok.starts_with("HTTP/1.1 200 OK"), "{ok}");
    assert!(ok.contains("\"vendor\":\"MariaDB\""), "{ok}");
    assert!(forbidden.starts_with("HTTP/1.1 403"), "{forbidden}");
}

/// `serve --open` hands its URL to `xdg-open` (here a stand-in on PATH
/// that writes what it was given); without one on PATH it says so and
/// serves all the same.
#[cfg(target_os = "linux")]
#[test]
fn serve_open_hands_the_url_to_xdg_open_and_serves_without_it() {
    use std::os::unix::fs::PermissionsExt;
    let file = fixtures().join("mariadb1011/ai_int.ibd");
    let dir = std::env::temp_dir().join(format!("ibdscope-serve-open-{}", std::process::id()));
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let opened = dir.join("opened");
    let fake = bin.join("xdg-open");
    std::fs::write(
        &fake,
        format!("#!/bin/sh\nprintf '%s' \"$1\" > '{}'\n", opened.display()),
    )
    .unwrap();
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let start = |path: &std::path::Path| {
        let mut child = Command::new(env!("CARGO_BIN_EXE_ibdscope"))
            .args(["serve", "--open", "--threads", "1"])
            .arg(&file)
            .env("PATH", path)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let url = line
            .trim()
            .strip_prefix("ibdscope serve: ")
            .unwrap()
            .to_string();
        (child, url)
    };
    let (mut child, url) = start(&bin);
    let mut got = String::new();
    for _ in 0..100 {
        got = std::fs::read_to_string(&opened).unwrap_or_default();
        if !got.is_empty() {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.kill().unwrap();
    let _ = child.wait();
    assert_eq!(got, url);
    // No opener: the server still answers.
    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let (mut child, url) = start(&empty);
    let rest = url.strip_prefix("http://127.0.0.1:").unwrap();
    let (port, token) = rest.split_once("/?t=").unwrap();
    let ok = get(port.parse().unwrap(), &format!("/api/files?t={token}"));
    child.kill().unwrap();
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    let _ = child.wait();
    assert!(ok.starts_with("HTTP/1.1 200 OK"), "{ok}");
    assert!(err.contains("could not run xdg-open"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `serve --datadir DIR FILE`: the datadir served as one item (its audit,
/// its tables), and its dictionary defining the tables served: a copy of
/// a table away from its datadir, with no `.frm`, shows its rows typed
/// from SYS_COLUMNS (without `--datadir` it has no definition).
#[test]
fn serve_datadir_serves_the_instance_and_defines_its_tables() {
    let dir = std::env::temp_dir().join(format!("ibdscope-serve-datadir-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let data = dir.join("data");
    std::fs::create_dir_all(&data).unwrap();
    let tarball = fixtures().join("instance/mariadb1011-split.tar.gz");
    let st = Command::new("tar")
        .arg("-xzf")
        .arg(&tarball)
        .arg("-C")
        .arg(&data)
        .status();
    if !st.is_ok_and(|s| s.success()) {
        eprintln!(
            "\n*** SKIPPED: `tar -xzf` could not unpack {}\n",
            tarball.display()
        );
        return;
    }
    let away = dir.join("away");
    std::fs::create_dir_all(&away).unwrap();
    let copy = away.join("t_basic.ibd");
    std::fs::copy(data.join("fx/t_basic.ibd"), &copy).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_ibdscope"))
        .args(["serve", "--threads", "1", "--datadir"])
        .arg(&data)
        .arg(&copy)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let rest = line
        .trim()
        .strip_prefix("ibdscope serve: http://127.0.0.1:")
        .expect(&line)
        .to_string();
    let (port, token) = rest.split_once("/?t=").expect(&line);
    let port: u16 = port.parse().unwrap();
    // The datadir is item 0, the copy item 1 (its members follow).
    let files = get(port, &format!("/api/files?t={token}"));
    let rows = get(port, &format!("/api/file/1/rows/3?t={token}"));
    let tables = get(port, &format!("/api/file/0/tables?t={token}"));
    child.kill().unwrap();
    let _ = child.wait();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        files.contains("{\"index\":0,\"kind\":\"datadir\""),
        "{files}"
    );
    assert!(files.contains("{\"index\":1,\"kind\":\"file\""), "{files}");
    assert!(tables.contains("\"fx/t_basic\""), "{tables}");
    // Typed from the dictionary: the columns SYS_COLUMNS lists for
    // fx/t_basic, table id 18 (fixtures/instance/sys_columns.tsv).
    assert!(rows.starts_with("HTTP/1.1 200 OK"), "{rows}");
    assert!(
        rows.contains(
            "\"source\":\"dictionary\",\"columns\":[\"id\",\"name\",\"qty\",\"big\",\"c\"]"
        ),
        "{rows}"
    );
}
