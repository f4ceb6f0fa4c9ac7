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
            stderr(&o).contains("not an InnoDB tablespace"),
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

/// Re-seals a full_crc32 page after an edit, as a buggy writer or a copy of
/// a running server would leave it: the page verifies, its content is wrong.
fn reseal_full_crc32(page: &mut [u8]) {
    let n = page.len();
    let c = ibdscope_core::checksum::full_crc32(page);
    page[n - 4..].copy_from_slice(&c.to_be_bytes());
}

#[test]
fn a_looping_extent_list_is_reported_and_the_map_still_drawn() {
    let src = super::common::fixtures().join("mariadb1011/uuid_char36_large.ibd");
    let mut data = fs::read(&src).unwrap();
    // FSP_FREE holds the extents at pages 256 and 320 (XDES entries 4 and 5
    // on page 0, 40 bytes each from offset 150). Point 320's FLST_NEXT
    // (entry + 8 + 6) back at 256's node (page 0, byte 150 + 4*40 + 8).
    let next = 150 + 5 * 40 + 8 + 6;
    data[next..next + 4].copy_from_slice(&0u32.to_be_bytes());
    data[next + 4..next + 6].copy_from_slice(&(150u16 + 4 * 40 + 8).to_be_bytes());
    reseal_full_crc32(&mut data[..16384]);
    let f = scratch("loop.ibd");
    fs::write(&f, &data).unwrap();
    let o = run(&["lists", f.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    let out = stdout(&o);
    assert!(out.contains("page 0 at byte offset"), "{out}");
    let o = run(&["extents", "--color", "never", f.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    // All 704 pages are still drawn: 11 rows of 64 cells (the header says
    // so).
    assert!(
        out.contains("pages 0 to 703 (all 704); 1 cell = 1 page (16 KiB)\n"),
        "{out}"
    );
    // Map rows: a page number right-aligned in 10 columns, then the cells.
    let rows: Vec<&str> = out
        .lines()
        .filter(|l| l.get(..10).is_some_and(|n| n.trim().parse::<u64>().is_ok()))
        .collect();
    assert_eq!(rows.len(), 11, "{out}");
    assert_eq!(
        rows.iter()
            .map(|r| r.split_whitespace().nth(1).unwrap().chars().count())
            .sum::<usize>(),
        704
    );
}

#[test]
fn one_page_file_and_root_that_is_not_an_index_page() {
    let src = super::common::fixtures().join("mariadb1011/ai_int.ibd");
    let data = fs::read(&src).unwrap();
    let one = scratch("one-page.ibd");
    fs::write(&one, &data[..16384]).unwrap();
    for cmd in [
        "extents", "segments", "lists", "indexes", "info", "types", "check",
    ] {
        let o = run(&[cmd, one.to_str().unwrap()]);
        // FSP_SIZE says 19 pages: the truncation is a finding for the
        // page commands; the structure commands report what is missing.
        assert!(
            matches!(o.status.code(), Some(0 | 1)),
            "{cmd}: {}",
            stderr(&o)
        );
    }
    let o = run(&["check", one.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("FSP_SIZE says 19"), "{}", stdout(&o));

    // Page 3 is the root (fixtures/indexes.tsv); make it an ALLOCATED page.
    let mut data = data.clone();
    let p = 3 * 16384;
    data[p + 24..p + 26].copy_from_slice(&0u16.to_be_bytes());
    reseal_full_crc32(&mut data[p..p + 16384]);
    let f = scratch("no-root.ibd");
    fs::write(&f, &data).unwrap();
    let o = run(&["indexes", f.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    let o = run(&["extents", "--color", "never", f.to_str().unwrap()]);
    assert!(stdout(&o).contains("19 pages"), "{}", stdout(&o));
}

/// `pages --from` past the last page lists nothing and says so, as `page N`
/// past the end does (one rule: exit 2, the reason on stderr and in a JSON
/// error object; see `asks.rs`); the page count is the server's file size
/// over its page size (fixtures/manifest.tsv).
#[test]
fn pages_from_past_the_end_is_said() {
    let f = super::common::fixtures().join("mariadb1011/ai_int.ibd");
    let m = super::common::read_tsv(&super::common::fixtures().join("manifest.tsv"));
    let m = m
        .iter()
        .find(|r| r["path"] == "mariadb1011/ai_int.ibd")
        .unwrap();
    let n = (super::common::num(&m["file_size"]) / super::common::num(&m["page_size"])) as usize;
    assert!(n > 1);
    let last = (n - 1).to_string();
    let o = run(&["pages", f.to_str().unwrap(), "--from", &last]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert_eq!(stdout(&o).lines().count(), 2, "{}", stdout(&o));
    for fmt in ["text", "csv", "json", "jsonl"] {
        let past = n.to_string();
        let o = run(&[
            "pages",
            f.to_str().unwrap(),
            "--from",
            &past,
            "--format",
            fmt,
        ]);
        assert_eq!(o.status.code(), Some(2), "{fmt}");
        let text = stderr(&o);
        assert!(
            text.contains(&format!(
                "--from {n} is past the end of the file ({n} whole pages"
            )),
            "{fmt}: {text}"
        );
    }
}
