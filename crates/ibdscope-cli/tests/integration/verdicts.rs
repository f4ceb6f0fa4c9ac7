//! Verdicts on hostile and misread inputs: a page size given against the
//! file's own evidence, files that are not InnoDB at all, files whose every
//! checksum is broken, page_compressed pages outside full_crc32, and a
//! space header followed by nothing but zeros. Expected values come from
//! the fixtures' manifest (the servers' answers) and from the bytes the
//! tests plant.

use super::common::{fixtures, read_tsv, run, scratch};
use std::collections::HashMap;
use std::fs;
use std::path::Path;
use std::process::Output;

/// Every command that reads one file, with the arguments after the file.
const ONE_FILE: &[(&str, &[&str])] = &[
    ("info", &[]),
    ("pages", &[]),
    ("types", &[]),
    ("check", &[]),
    ("lsn", &[]),
    ("page", &["1"]),
    ("extents", &[]),
    ("segments", &[]),
    ("lists", &[]),
    ("indexes", &[]),
    ("fill", &[]),
    ("records", &[]),
    ("rows", &[]),
    ("schema", &[]),
    ("sdi", &[]),
    ("audit", &[]),
];

fn manifest() -> HashMap<String, HashMap<String, String>> {
    read_tsv(&fixtures().join("manifest.tsv"))
        .into_iter()
        .map(|r| (r["path"].clone(), r))
        .collect()
}

fn fact(path: &str, column: &str) -> u32 {
    let m = manifest();
    let row = m
        .get(path)
        .unwrap_or_else(|| panic!("{path} not in the manifest"));
    row[column]
        .parse()
        .unwrap_or_else(|_| panic!("{path}: {column}"))
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn run_cmd(cmd: &str, file: &Path, more: &[&str], extra: &[&str]) -> Output {
    let mut args = vec![cmd, file.to_str().unwrap()];
    args.extend_from_slice(more);
    args.extend_from_slice(extra);
    run(&args)
}

/// Every command over `file` read with `--page-size given` says first that
/// the file's page 0 verifies at `found` bytes, and exits with findings.
fn contradiction_everywhere(file: &str, given: &str, given_bytes: u32) {
    let path = fixtures().join(file);
    let found = fact(file, "physical_page_size");
    assert_ne!(found, given_bytes);
    let words =
        format!("page size {given_bytes} was given, but page 0 verifies as {found}-byte pages");
    for (cmd, more) in ONE_FILE {
        let o = run_cmd(cmd, &path, more, &["--page-size", given]);
        let all = text(&o);
        assert!(
            o.status.code().unwrap_or(0) >= 1,
            "{cmd} {file} --page-size {given}: exit {:?}\n{all}",
            o.status.code()
        );
        assert!(
            all.contains(&words),
            "{cmd} {file} --page-size {given}:\n{all}"
        );
    }
    // info says so before any answer read with the wrong size, and does not
    // claim pages verify when none does.
    let o = run_cmd("info", &path, &[], &["--page-size", given]);
    assert_eq!(o.status.code(), Some(1));
    let out = String::from_utf8_lossy(&o.stdout);
    let second = out.lines().nth(1).unwrap_or("");
    assert!(
        second.starts_with("contradiction") && second.contains(&words),
        "{out}"
    );
    if out.contains("pages verified      0 valid") {
        assert!(
            !out.contains("taken from the pages that verify"),
            "no page verifies at {given}:\n{out}"
        );
    }
}

#[test]
fn page_size_8k_4k_64k_on_a_16k_file_is_a_contradiction_said_first() {
    for (given, bytes) in [("8k", 8192), ("4k", 4096), ("64k", 65536)] {
        contradiction_everywhere("mysql56/ai_int.ibd", given, bytes);
    }
    contradiction_everywhere("mariadb1011/ai_int.ibd", "8k", 8192);
}

#[test]
fn page_size_16k_on_a_4k_file_is_a_contradiction_said_first() {
    contradiction_everywhere("mariadb1011-4k/ai_int.ibd", "16k", 16384);
}

#[test]
fn page_size_matching_the_file_is_no_contradiction() {
    let file = "mysql56/ai_int.ibd";
    let size = fact(file, "physical_page_size").to_string();
    let o = run_cmd(
        "check",
        &fixtures().join(file),
        &[],
        &["--page-size", &size],
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
}

/// Every command refuses `path` as not InnoDB (exit 2), with and without a
/// page size, naming what was tried.
fn not_innodb_everywhere(path: &Path) {
    for extra in [
        &[][..],
        &["--page-size", "16k"][..],
        &["--page-size", "4k"][..],
    ] {
        for (cmd, more) in ONE_FILE {
            let o = run_cmd(cmd, path, more, extra);
            let err = String::from_utf8_lossy(&o.stderr);
            assert_eq!(o.status.code(), Some(2), "{cmd} {extra:?}: {}", text(&o));
            assert!(
                err.contains("not an InnoDB tablespace")
                    && err.contains("1024 to 65536")
                    && err.contains("carry its own page number"),
                "{cmd} {extra:?}: {err}"
            );
            if let Some(size) = extra.get(1) {
                let bytes = if *size == "16k" { 16384 } else { 4096 };
                assert!(
                    err.contains(&format!("page size given ({bytes}) does not change that")),
                    "{cmd} {extra:?}: {err}"
                );
            }
        }
    }
}

#[test]
fn csv_file_is_not_an_innodb_tablespace_with_or_without_page_size() {
    let mut csv = String::from("id,name,amount\n");
    for i in 0..20_000 {
        csv.push_str(&format!("{i},customer {i},{}.{:02}\n", i * 7, i % 100));
    }
    let path = scratch("orders.csv");
    fs::write(&path, csv).unwrap();
    not_innodb_everywhere(&path);
}

#[test]
fn random_bytes_are_not_an_innodb_tablespace_with_or_without_page_size() {
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    let noise: Vec<u8> = (0..512 * 1024)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect();
    let path = scratch("noise.bin");
    fs::write(&path, noise).unwrap();
    not_innodb_everywhere(&path);
}

/// A copy of `file` whose every non-zero page has byte `at` (from the page
/// start; negative from its end) flipped: no checksum holds, every page
/// number does. Returns the copy and how many pages were broken.
fn break_every_checksum(file: &str, at: isize) -> (std::path::PathBuf, usize) {
    let size = fact(file, "physical_page_size") as usize;
    let mut d = fs::read(fixtures().join(file)).unwrap();
    let mut broken = 0;
    for p in d.chunks_mut(size) {
        if p.iter().any(|&b| b != 0) {
            let i = if at < 0 {
                size - at.unsigned_abs()
            } else {
                at as usize
            };
            p[i] ^= 0xff;
            broken += 1;
        }
    }
    let out = scratch(&format!("allbad-{}", file.replace('/', "-")));
    fs::write(&out, d).unwrap();
    (out, broken)
}

#[test]
fn every_checksum_broken_with_page_numbers_intact_reads_at_the_page_size_they_give() {
    // crc32/innodb layout: the stored checksum at byte 0; full_crc32: the
    // CRC-32C in the last 4 bytes.
    for (file, at) in [("mysql56/ai_int.ibd", 0), ("mariadb1011/ai_int.ibd", -1)] {
        let (path, broken) = break_every_checksum(file, at);
        let size = fact(file, "physical_page_size");
        let space = fact(file, "space_id");
        let o = run_cmd("info", &path, &[], &[]);
        let out = String::from_utf8_lossy(&o.stdout);
        assert_eq!(o.status.code(), Some(1), "{file}: {}", text(&o));
        assert!(out.contains(&format!("{size} physical")), "{file}: {out}");
        assert!(
            out.contains(&format!("space id            {space}\n")),
            "{file}: {out}"
        );
        assert!(
            out.contains("no page verifies at any page size"),
            "{file}: {out}"
        );
        let o = run_cmd("check", &path, &[], &[]);
        let out = String::from_utf8_lossy(&o.stdout);
        assert_eq!(o.status.code(), Some(1), "{file}: {}", text(&o));
        assert!(
            out.contains(" 0 valid (none), ") && out.contains(&format!(", {broken} damaged,")),
            "{file}: {broken} pages broken:\n{out}"
        );
    }
}

#[test]
fn page_0_followed_by_zeroed_pages_is_zero_filled_in_check_and_audit_alike() {
    // Page 0 as the server wrote it, then 703 pages of zeros.
    let file = "mysql56/ai_int.ibd";
    let size = fact(file, "physical_page_size") as usize;
    let mut d = fs::read(fixtures().join(file)).unwrap();
    d.truncate(size);
    d.resize(size * 704, 0);
    let path = scratch("zeroed-after-page-0.ibd");
    fs::write(&path, d).unwrap();
    let words = "zero-filled: every page after page 0 (703 pages) is all zeros";
    for cmd in ["check", "audit", "info", "types", "pages", "lsn"] {
        let o = run_cmd(cmd, &path, &[], &[]);
        let all = text(&o);
        assert_eq!(o.status.code(), Some(1), "{cmd}: {all}");
        assert!(all.contains(words), "{cmd}: {all}");
    }
    // Byte offset: page 1, the first page that should have been written.
    let o = run_cmd("check", &path, &[], &[]);
    assert!(
        text(&o).contains(&format!("byte offset {size}: {words}")),
        "{}",
        text(&o)
    );
}

#[test]
fn record_chain_finding_is_a_sentence_not_rust_debug_text() {
    // A COMPACT leaf page whose first user record's heap number is set to
    // 0 (the infimum's): the chain walk stops there.
    let file = "mysql56/ai_int.ibd";
    let size = fact(file, "physical_page_size") as usize;
    let mut d = fs::read(fixtures().join(file)).unwrap();
    let be16 = |b: &[u8], at: usize| u16::from_be_bytes([b[at], b[at + 1]]);
    let leaf = (3..d.len() / size)
        .find(|&n| {
            let p = &d[n * size..(n + 1) * size];
            be16(p, 24) == 17855 && be16(p, 38 + 26) == 0 && be16(p, 38 + 16) > 0
        })
        .expect("a leaf page with records");
    let base = leaf * size;
    // PAGE_NEW_INFIMUM = 99; its next field (relative) is the 2 bytes before.
    let rec = (99 + i32::from(be16(&d, base + 97) as i16)) as usize;
    let info = be16(&d, base + rec - 4);
    d[base + rec - 4..base + rec - 2].copy_from_slice(&(info & 7).to_be_bytes());
    let dir = scratch("chain");
    fs::create_dir_all(&dir).unwrap();
    let ibd = dir.join("t.ibd");
    fs::write(&ibd, d).unwrap();
    fs::copy(fixtures().join("mysql56/ai_int.frm"), dir.join("t.frm")).unwrap();
    let o = run_cmd("rows", &ibd, &[], &[]);
    let all = text(&o);
    assert_eq!(o.status.code(), Some(1), "{all}");
    assert!(
        all.contains(&format!(
            "page {leaf}: record chain reaches a record with heap number 0, out of range (page offset {})",
            rec - 4
        )),
        "{all}"
    );
    assert!(!all.contains("RecError") && !all.contains("kind:"), "{all}");
}

/// FIL_PAGE_PAGE_COMPRESSED (MariaDB `fil0fil.h`).
const PAGE_COMPRESSED: u16 = 34354;

/// The crc32-layout page_compressed fixture, checked to be one: its flags
/// (from the manifest) have PAGE_COMPRESSION (bit 16) and not full_crc32
/// (bit 4), and it has compressed pages.
fn crc32_pagecomp() -> (String, Vec<u8>, usize) {
    let file = "mariadb1011-crc32/pagecomp.ibd";
    let m = manifest();
    let row = &m[file];
    assert_eq!(row["checksum_algorithm"], "crc32");
    let flags: u32 = row["fsp_flags"].parse().unwrap();
    assert_eq!(
        (flags >> 16 & 1, flags >> 4 & 1),
        (1, 0),
        "flags {flags:#x}"
    );
    let size = fact(file, "physical_page_size") as usize;
    let d = fs::read(fixtures().join(file)).unwrap();
    assert_eq!(d.len() as u32, fact(file, "file_size"));
    (file.to_string(), d, size)
}

fn compressed_pages(d: &[u8], size: usize) -> Vec<usize> {
    (0..d.len() / size)
        .filter(|&n| u16::from_be_bytes([d[n * size + 24], d[n * size + 25]]) == PAGE_COMPRESSED)
        .collect()
}

#[test]
fn page_compressed_pages_in_the_crc32_layout_verify_after_decompression() {
    let (file, d, size) = crc32_pagecomp();
    let compressed = compressed_pages(&d, size);
    assert!(compressed.len() > 10, "{compressed:?}");
    let pages = d.len() / size;
    let empty = d.chunks(size).filter(|p| p.iter().all(|&b| b == 0)).count();
    let o = run_cmd("check", &fixtures().join(&file), &[], &[]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    // One summary line: every written page verifies (crc32, as the server
    // computed it before compressing), none is left unverified.
    assert_eq!(out.lines().count(), 1, "{out}");
    assert!(
        out.contains(&format!(
            "{pages} pages: {} valid (crc32 {}), {empty} empty, 0 damaged, 0 damaged but freed, 0 not verifiable",
            pages - empty,
            pages - empty
        )),
        "{out}"
    );
    // So does `audit`: every page verifies.
    let o = run_cmd("audit", &fixtures().join(&file), &[], &[]);
    assert!(
        text(&o).contains(&format!(
            "{pages} pages of {size} bytes, {} valid, {empty} empty",
            pages - empty
        )),
        "{}",
        text(&o)
    );
    // `pages` judges each page as `check` does.
    let o = run_cmd("pages", &fixtures().join(&file), &[], &[]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    for n in compressed {
        let row = out
            .lines()
            .find(|l| l.split_whitespace().next() == Some(&n.to_string()))
            .unwrap_or_else(|| panic!("page {n}:\n{out}"));
        assert!(row.ends_with("  crc32  valid"), "{row}");
    }
}

#[test]
fn flipped_byte_in_a_page_compressed_payload_is_found() {
    let (_, mut d, size) = crc32_pagecomp();
    let n = compressed_pages(&d, size)[0];
    let base = n * size;
    // FIL_PAGE_COMP_SIZE (u16 at 38) payload bytes from 40.
    let payload = usize::from(u16::from_be_bytes([d[base + 38], d[base + 39]]));
    let at = base + 40 + payload / 2;
    d[at] ^= 0x01;
    let path = scratch("pagecomp-flipped.ibd");
    fs::write(&path, d).unwrap();
    let o = run_cmd("check", &path, &[], &[]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let line = out
        .lines()
        .find(|l| l.contains(&format!("page {n} at byte offset ")))
        .unwrap_or_else(|| panic!("page {n} not reported:\n{out}"));
    assert!(line.contains("does not decompress"), "{line}");
    let offset: usize = line
        .split("byte offset ")
        .nth(1)
        .and_then(|r| r.split(':').next())
        .and_then(|x| x.parse().ok())
        .unwrap();
    assert!(
        (base + 40..base + 40 + payload).contains(&offset),
        "offset {offset} outside the payload of page {n}: {line}"
    );
    assert!(out.contains(", 1 damaged,"), "{out}");
    let o = run_cmd("audit", &path, &[], &[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        text(&o).contains(&format!("damaged: 1 finding on page {n};")),
        "{}",
        text(&o)
    );
}
