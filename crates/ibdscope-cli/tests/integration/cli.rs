//! The command line on bad input: clear errors naming file, page and byte
//! offset, the right exit codes, no panics, and the input never written.

use super::common::{corpus, run, scratch};
use std::fs;

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}
fn stdout(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn missing_directory_empty_short_random() {
    let missing = scratch("does-not-exist.ibd");
    let o = run(&["info", missing.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("does-not-exist.ibd") && stderr(&o).contains("no such file"),
        "{}",
        stderr(&o)
    );

    let dir = scratch("a-directory");
    fs::create_dir_all(&dir).unwrap();
    let o = run(&["check", dir.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("directory"));

    let empty = scratch("empty.ibd");
    fs::write(&empty, b"").unwrap();
    let o = run(&["types", empty.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("empty"), "{}", stderr(&o));

    let short = scratch("short.ibd");
    fs::write(&short, [7u8; 100]).unwrap();
    let o = run(&["pages", short.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("too short"), "{}", stderr(&o));

    // Deterministic noise (xorshift): no page size fits it.
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let noise: Vec<u8> = (0..256 * 1024)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect();
    let rnd = scratch("random.ibd");
    fs::write(&rnd, &noise).unwrap();
    for cmd in ["info", "pages", "types", "check"] {
        let o = run(&[cmd, rnd.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(2), "{cmd}");
        assert!(
            stderr(&o).contains("page size unknown"),
            "{cmd}: {}",
            stderr(&o)
        );
    }
}

#[test]
fn torn_tail_and_zeroed_page_0_keep_going() {
    let Some(dir) = corpus() else { return };
    let src = dir.join("mysql-5.6/classicmodels_mysql56_orderdetails.ibd");
    let mut data = fs::read(&src).unwrap();
    data.extend_from_slice(&[1u8; 1000]);
    let torn = scratch("torn.ibd");
    fs::write(&torn, &data).unwrap();
    let o = run(&["check", torn.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    assert!(
        out.contains(&format!("byte offset {}", 19 * 16384)) && out.contains("torn tail"),
        "{out}"
    );
    assert!(out.contains("19 pages: 18 valid"), "{out}");

    let mut data = fs::read(&src).unwrap();
    data[..16384].fill(0);
    let z = scratch("zero0.ibd");
    fs::write(&z, &data).unwrap();
    let o = run(&["info", "--format", "json", z.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("\"page_size\":16384") && out.contains("\"space_id\":9"),
        "{out}"
    );
    assert!(out.contains("page 0 is unusable"), "{out}");
}

#[test]
fn check_many_files_and_formats() {
    let Some(dir) = corpus() else { return };
    let a = dir.join("mysql-8.0/sakila_mysql8040_staff.ibd");
    let b = dir.join("mariadb-10.x/mariadb1096_mysql_gtid_slave_pos.ibd");
    let missing = scratch("nope.ibd");
    let o = run(&["check", a.to_str().unwrap(), b.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    let o = run(&[
        "check",
        "--format",
        "json",
        a.to_str().unwrap(),
        missing.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let out = stdout(&o);
    assert!(
        out.starts_with('[') && out.contains("\"invalid\":[]") && out.contains("\"error\""),
        "{out}"
    );
    let o = run(&[
        "pages",
        "--format",
        "csv",
        "--from",
        "2",
        "--to",
        "3",
        a.to_str().unwrap(),
    ]);
    assert_eq!(stdout(&o).lines().count(), 3);
    let o = run(&["info", "--format", "csv", a.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "csv is not an info format");
}

#[test]
fn input_is_never_written() {
    let Some(dir) = corpus() else { return };
    let src = dir.join("mysql-8.4/sakila_mysql8403_film.ibd");
    let copy = scratch("ro.ibd");
    fs::copy(&src, &copy).unwrap();
    let before = (
        fs::read(&copy).unwrap(),
        fs::metadata(&copy).unwrap().modified().unwrap(),
    );
    for cmd in ["info", "pages", "types", "check"] {
        let o = run(&[cmd, copy.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(0), "{cmd}: {}", stderr(&o));
    }
    assert_eq!(fs::read(&copy).unwrap(), before.0);
    assert_eq!(fs::metadata(&copy).unwrap().modified().unwrap(), before.1);
}
