//! One verdict per page in every command and every format.
//! Damage is planted on copies of the committed
//! fixtures (MySQL 5.6 innodb and crc32 checksums, MariaDB 10.11
//! full_crc32 and crc32, page_compressed); every one-file command, in
//! every format it has, must give the same verdict word, page and file
//! offset, and exit 1 — or exit as on the clean copy for an all-zero page
//! nothing claims. The expected words and offsets follow the rules of
//! docs/verdicts.md (MySQL/MariaDB `buf_page_is_corrupted`, `fsp0fsp.cc`,
//! MariaDB `fil0pagecompress.cc`).

use super::common::{fixtures, run, scratch};
use ibdscope_core::checksum::Scheme;
use ibdscope_core::{IndexHeader, PageType, Tablespace, Verdict};
use std::path::{Path, PathBuf};

/// Every command over one file, with the arguments after the file (`page`
/// gets the planted page's number).
const COMMANDS: &[&str] = &[
    "info", "pages", "types", "check", "lsn", "page", "extents", "segments", "lists", "indexes",
    "fill", "records", "rows", "audit", "diff",
];
const FORMATS: &[&str] = &["text", "json", "jsonl", "csv"];

#[derive(Clone, Copy, Debug, PartialEq)]
enum Case {
    /// An in-use PRIMARY leaf zeroed.
    ZeroedLeaf,
    /// A page its XDES entry marks free zeroed.
    ZeroedFree,
    /// Random bytes over a leaf.
    Random,
    /// One byte flipped in a leaf.
    Flip,
    /// The header kept, the trailer LSN word set to an older LSN a
    /// verifying page has.
    TornWithin,
    /// The trailer LSN word past the newest LSN of the verifying pages.
    TornBeyond,
    /// A verifying page of another space in a leaf's place.
    Foreign,
    /// full_crc32 page_compressed leaf (not the root) whose type says
    /// payload size 0.
    PayloadZero,
    /// A page_compressed page (crc32 layout) naming algorithm 99.
    UnknownAlgorithm,
    /// A leaf put back from an older copy of the same tablespace (the
    /// same datadir earlier), whose sibling links have changed since.
    Stale,
    /// Page 0 put back from an older copy: its extent descriptor calls
    /// free pages written since.
    StaleDescriptor,
}

/// What a case planted: the page, its verdict word and file offset.
#[derive(Debug)]
struct Planted {
    page: u32,
    word: &'static str,
    offset: u64,
}

fn be32(d: &[u8], at: usize) -> u32 {
    u32::from_be_bytes(d[at..at + 4].try_into().unwrap())
}

fn put32(d: &mut [u8], at: usize, v: u32) {
    d[at..at + 4].copy_from_slice(&v.to_be_bytes());
}

/// Where the trailer's LSN copy is in a page (classic: the last 4 bytes;
/// full_crc32: 8 bytes before the end).
fn trailer_at(scheme: Scheme, size: usize) -> usize {
    match scheme {
        Scheme::FullCrc32 => size - 8,
        _ => size - 4,
    }
}

/// In-use B-tree leaves that verify and are not the first of their level.
fn leaves(ts: &Tablespace<'_>) -> Vec<u32> {
    ts.scan()
        .filter(|f| {
            matches!(f.verdict, Verdict::Valid(_)) && f.page_type == PageType::FIL_PAGE_INDEX
        })
        .filter(|f| !f.prev.is_null() && ts.is_free(f.page_no) == Some(false))
        .filter(|f| {
            ts.page(f.page_no)
                .and_then(IndexHeader::new)
                .is_some_and(|h| h.level() == 0)
        })
        .map(|f| f.page_no.0)
        .collect()
}

/// The verifying pages' LSNs.
fn verified_lsns(ts: &Tablespace<'_>) -> Vec<u64> {
    ts.scan()
        .filter(|f| matches!(f.verdict, Verdict::Valid(_)) && f.lsn.0 != 0)
        .filter(|f| f.lsn_pair.is_none_or(|(h, t)| h == t))
        .map(|f| f.lsn.0)
        .collect()
}

fn plant(case: Case, data: &mut [u8], other: Option<&[u8]>) -> Option<Planted> {
    let ts = Tablespace::new(data).unwrap();
    let size = ts.page_size() as usize;
    let scheme = ts.scheme();
    let leaves = leaves(&ts);
    let lsns = verified_lsns(&ts);
    let start = |p: u32| p as usize * size;
    let at = |p: u32, off: usize| (p as usize * size + off) as u64;
    match case {
        Case::ZeroedLeaf => {
            let p = *leaves.first()?;
            drop(ts);
            data[start(p)..start(p) + size].fill(0);
            Some(Planted {
                page: p,
                word: "zeroed",
                offset: at(p, 0),
            })
        }
        Case::ZeroedFree => {
            // A free page that still holds a page (freed, not overwritten),
            // else any free page.
            let free = |p: &u32| ts.is_free(ibdscope_core::PageNo(*p)) == Some(true);
            let written = |p: &u32| {
                ts.page(ibdscope_core::PageNo(*p))
                    .is_some_and(|b| b.iter().any(|&x| x != 0))
            };
            let p = (1..ts.n_pages())
                .filter(free)
                .find(written)
                .or_else(|| (1..ts.n_pages()).find(free))?;
            drop(ts);
            data[start(p)..start(p) + size].fill(0);
            Some(Planted {
                page: p,
                word: "empty",
                offset: at(p, 0),
            })
        }
        Case::Random => {
            let p = *leaves.first()?;
            drop(ts);
            let mut x: u64 = 0x9E37_79B9_7F4A_7C15 ^ u64::from(p);
            for b in &mut data[start(p)..start(p) + size] {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                *b = x as u8;
            }
            let page = &mut data[start(p)..start(p) + size];
            if scheme == Scheme::FullCrc32 {
                // The compressed marker with a size past the page: in a
                // space that is not page_compressed, a checksum mismatch.
                page[24] = 0xFF;
                page[25] = 0xFF;
                return Some(Planted {
                    page: p,
                    word: "corrupt",
                    offset: at(p, 0),
                });
            }
            // Not a page_compressed type, and LSN copies that differ: the
            // trailer (with the random header's high word) is past every
            // LSN written.
            page[24] = 0x45;
            page[25] = 0xBF;
            let t = be32(page, size - 4);
            if be32(page, 20) == t {
                put32(page, size - 4, t ^ 1);
            }
            Some(Planted {
                page: p,
                word: "corrupt",
                offset: at(p, size - 4),
            })
        }
        Case::Flip => {
            let p = *leaves.first()?;
            drop(ts);
            data[start(p) + size / 2] ^= 0x5A;
            Some(Planted {
                page: p,
                word: "corrupt",
                offset: at(p, 0),
            })
        }
        Case::TornWithin => {
            let p = *leaves.first()?;
            let lsn = ts.scan_range(p, p).next()?.lsn.0;
            // An older LSN another page that verifies carries, same high word.
            let older = *lsns
                .iter()
                .filter(|&&l| l < lsn && l >> 32 == lsn >> 32 && l as u32 != lsn as u32)
                .max()?;
            drop(ts);
            put32(data, start(p) + trailer_at(scheme, size), older as u32);
            Some(Planted {
                page: p,
                word: "torn",
                offset: at(p, trailer_at(scheme, size)),
            })
        }
        Case::TornBeyond => {
            let p = *leaves.first()?;
            let newest = *lsns.iter().max()?;
            if newest >> 32 != 0 || newest > u64::from(u32::MAX) - 0x10_0000 {
                return None;
            }
            drop(ts);
            put32(
                data,
                start(p) + trailer_at(scheme, size),
                newest as u32 + 0x1000,
            );
            Some(Planted {
                page: p,
                word: "corrupt",
                offset: at(p, trailer_at(scheme, size)),
            })
        }
        Case::Foreign => {
            let other = other?;
            let ots = Tablespace::new(other).ok()?;
            if ots.page_size() as usize != size || ots.space_id() == ts.space_id() {
                return None;
            }
            let p = *leaves.iter().find(|&&p| {
                ots.scan_range(p, p)
                    .next()
                    .is_some_and(|f| matches!(f.verdict, Verdict::Valid(_)) && f.lsn.0 != 0)
            })?;
            drop(ts);
            data[start(p)..start(p) + size].copy_from_slice(&other[start(p)..start(p) + size]);
            Some(Planted {
                page: p,
                word: "foreign",
                offset: at(p, 34),
            })
        }
        Case::Stale => {
            // `other` is the same tablespace earlier (fixtures/gen/audit.sh
            // makes the clean copy, then the hot, crash and recovered ones,
            // from one datadir): a leaf in use whose older copy verifies,
            // is older, and has other sibling links.
            let other = other?;
            let ots = Tablespace::new(other).ok()?;
            if ots.page_size() as usize != size || ots.space_id() != ts.space_id() {
                return None;
            }
            let p = *leaves.iter().find(|&&p| {
                let (Some(new), Some(old)) =
                    (ts.scan_range(p, p).next(), ots.scan_range(p, p).next())
                else {
                    return false;
                };
                matches!(old.verdict, Verdict::Valid(_))
                    && old.page_type == PageType::FIL_PAGE_INDEX
                    && old.lsn < new.lsn
                    && (old.prev, old.next) != (new.prev, new.next)
            })?;
            drop(ts);
            data[start(p)..start(p) + size].copy_from_slice(&other[start(p)..start(p) + size]);
            Some(Planted {
                page: p,
                word: "stale",
                offset: at(p, 16),
            })
        }
        Case::StaleDescriptor => {
            let other = other?;
            let ots = Tablespace::new(other).ok()?;
            if ots.space_id() != ts.space_id()
                || ots.scan_range(0, 0).next()?.lsn >= ts.scan_range(0, 0).next()?.lsn
            {
                return None;
            }
            drop(ts);
            data[..size].copy_from_slice(&other[..size]);
            Some(Planted {
                page: 0,
                word: "stale",
                offset: at(0, 16),
            })
        }
        Case::PayloadZero => {
            if scheme != Scheme::FullCrc32 || !ts.format().page_compressed {
                return None;
            }
            // A leaf past the first of its level (`prev` set): not the
            // root, whose loss leaves `rows` nothing to read (exit 2).
            let p = ts.scan().find(|f| {
                f.page_no.0 > 2
                    && !f.prev.is_null()
                    && f.page_type.0 & 0x8000 != 0
                    && matches!(f.verdict, Verdict::Valid(_))
            })?;
            let p = p.page_no.0;
            drop(ts);
            data[start(p) + 24] = 0x80;
            data[start(p) + 25] = 0x00;
            Some(Planted {
                page: p,
                word: "corrupt",
                offset: at(p, 24),
            })
        }
        Case::UnknownAlgorithm => {
            if scheme != Scheme::Classic {
                return None;
            }
            let p = ts
                .scan()
                .find(|f| f.page_type == PageType::FIL_PAGE_PAGE_COMPRESSED)?
                .page_no
                .0;
            drop(ts);
            data[start(p) + 26..start(p) + 34].copy_from_slice(&99u64.to_be_bytes());
            Some(Planted {
                page: p,
                word: "corrupt",
                offset: at(p, 32),
            })
        }
    }
}

fn output(o: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// Whether a line of `out` names the page, the offset and the word.
fn names(out: &str, p: &Planted) -> bool {
    let page = p.page.to_string();
    let offset = p.offset.to_string();
    out.lines().any(|l| {
        l.contains(p.word)
            && l.contains(&offset)
            && l.split(|c: char| !c.is_ascii_digit()).any(|t| t == page)
    })
}

fn args<'a>(
    cmd: &'a str,
    file: &'a str,
    clean: &'a str,
    page: &'a str,
    fmt: &'a str,
) -> Vec<&'a str> {
    let mut v = vec![cmd];
    if cmd == "diff" {
        v.push(clean);
    }
    v.push(file);
    if cmd == "page" {
        v.push(page);
    }
    v.extend(["--format", fmt]);
    v
}

/// Runs every command in every format over a copy of `fixture` with
/// `case` planted; returns the failures.
fn matrix(fixture: &str, other: Option<&str>, case: Case, commands: &[&str]) -> Vec<String> {
    let src = fixtures().join(fixture);
    let mut data = std::fs::read(&src).unwrap();
    let other = other.map(|o| std::fs::read(fixtures().join(o)).unwrap());
    let Some(p) = plant(case, &mut data, other.as_deref()) else {
        panic!("{fixture}: {case:?} could not be planted");
    };
    let dir = scratch(&format!(
        "one-verdict-{}-{case:?}",
        fixture.rsplit('/').take(2).collect::<Vec<_>>().join("-")
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let name = Path::new(fixture).file_name().unwrap();
    let file: PathBuf = dir.join(name);
    std::fs::write(&file, &data).unwrap();
    // The .frm beside it, for the commands that read rows.
    let frm = src.with_extension("frm");
    if frm.exists() {
        std::fs::copy(&frm, file.with_extension("frm")).unwrap();
    }
    let clean_dir = dir.join("clean");
    std::fs::create_dir_all(&clean_dir).unwrap();
    let clean = clean_dir.join(name);
    std::fs::copy(&src, &clean).unwrap();
    if frm.exists() {
        std::fs::copy(&frm, clean.with_extension("frm")).unwrap();
    }
    let (f, c, pg) = (
        file.to_str().unwrap(),
        clean.to_str().unwrap(),
        p.page.to_string(),
    );
    let mut failures = Vec::new();
    for cmd in commands {
        for fmt in FORMATS {
            let o = run(&args(cmd, f, c, &pg, fmt));
            let all = output(&o);
            let code = o.status.code();
            if code == Some(2) && all.contains("format") {
                continue; // the command has no such format
            }
            let what = format!("{fixture} {case:?} `{cmd} --format {fmt}`");
            if p.word == "empty" {
                // Nothing claims the page: the command answers as on the
                // clean copy (diff: the copies differ).
                let base = run(&args(cmd, c, c, &pg, fmt)).status.code();
                if *cmd != "diff" && code != base {
                    failures.push(format!("{what}: exit {code:?}, clean copy {base:?}\n{all}"));
                }
                if *cmd == "check" && code != Some(0) {
                    failures.push(format!("{what}: exit {code:?}\n{all}"));
                }
                continue;
            }
            if code != Some(1) {
                failures.push(format!("{what}: exit {code:?}, expected 1\n{all}"));
                continue;
            }
            if !names(&all, &p) {
                failures.push(format!(
                    "{what}: no line names page {} at byte offset {} as {}\n{all}",
                    p.page, p.offset, p.word
                ));
            }
        }
    }
    failures
}

/// The commands that carry the page verdict in every format.
const SPEAK: &[&str] = &["info", "pages", "types", "check", "lsn", "page", "audit"];

fn assert_matrix(fixture: &str, other: Option<&str>, case: Case, commands: &[&str]) {
    let f = matrix(fixture, other, case, commands);
    let heads: Vec<&str> = f.iter().filter_map(|x| x.lines().next()).collect();
    assert!(
        f.is_empty(),
        "{} failures:\n{}\n--- first:\n{}",
        f.len(),
        heads.join("\n"),
        f.first()
            .map(|x| x.chars().take(3000).collect::<String>())
            .unwrap_or_default()
    );
}

const MYSQL56: &str = "mysql56/seq_int.ibd";
const MYSQL56_CRC32: &str = "mysql56-crc32/ai_int.ibd";
const MARIADB: &str = "mariadb1011/seq_int.ibd";
const MARIADB_CRC32: &str = "mariadb1011-crc32/ai_int.ibd";

#[test]
fn zeroed_leaf_in_use_is_zeroed_everywhere() {
    for f in [MYSQL56, MYSQL56_CRC32, MARIADB, MARIADB_CRC32] {
        assert_matrix(f, None, Case::ZeroedLeaf, COMMANDS);
    }
}

#[test]
fn zeroed_free_page_stays_empty() {
    assert_matrix("mysql56/deleted_purged.ibd", None, Case::ZeroedFree, SPEAK);
}

#[test]
fn random_bytes_are_corrupt_not_torn() {
    for f in [MYSQL56, MYSQL56_CRC32, MARIADB, MARIADB_CRC32] {
        assert_matrix(f, None, Case::Random, COMMANDS);
    }
}

#[test]
fn one_flipped_byte_is_corrupt() {
    for f in [MYSQL56, MARIADB] {
        assert_matrix(f, None, Case::Flip, COMMANDS);
    }
}

#[test]
fn torn_within_the_bound_is_torn() {
    for f in [MYSQL56, MYSQL56_CRC32, MARIADB, MARIADB_CRC32] {
        assert_matrix(f, None, Case::TornWithin, COMMANDS);
    }
}

#[test]
fn torn_beyond_the_bound_is_corrupt() {
    for f in [MYSQL56, MARIADB] {
        assert_matrix(f, None, Case::TornBeyond, COMMANDS);
    }
}

#[test]
fn a_page_of_another_space_is_foreign() {
    assert_matrix(MYSQL56, Some("mysql56/ai_int.ibd"), Case::Foreign, COMMANDS);
}

#[test]
fn full_crc32_payload_size_zero_is_corrupt() {
    assert_matrix(
        "mariadb1011/pagecomp.ibd",
        None,
        Case::PayloadZero,
        COMMANDS,
    );
}

#[test]
fn unknown_page_compression_algorithm_is_corrupt() {
    assert_matrix(
        "mariadb1011-crc32/pagecomp.ibd",
        None,
        Case::UnknownAlgorithm,
        COMMANDS,
    );
}

/// The same tablespace at two moments: the datadir of
/// fixtures/audit/mariadb1011-recovered and, earlier, of
/// mariadb1011-clean (fixtures/gen/audit.sh).
fn generations() -> (String, String) {
    let new = super::common::audit_copy("mariadb1011-recovered").join("fx/uuid_char36.ibd");
    let old = super::common::audit_copy("mariadb1011-clean").join("fx/uuid_char36.ibd");
    (new.display().to_string(), old.display().to_string())
}

#[test]
fn an_older_copy_of_a_page_is_stale() {
    let (new, old) = generations();
    assert_matrix(&new, Some(&old), Case::Stale, COMMANDS);
}

#[test]
fn an_older_extent_descriptor_is_stale() {
    let (new, old) = generations();
    assert_matrix(&new, Some(&old), Case::StaleDescriptor, COMMANDS);
}

/// The MySQL 5.6 torn-page datadir (fixtures/dblwr, written by the server
/// and cut by the generator): page 6 of fx/t.ibd, whose trailer LSN is
/// past every LSN written, has one verdict in `check`, in `audit`'s file
/// section, in its doublewrite section and in `restore`; pages 4 and 5
/// (trailers of earlier writes) are torn in all four.
#[test]
fn torn_datadir_one_verdict_in_check_audit_doublewrite_and_restore() {
    use super::common::{unpack, Json};
    let dir = unpack("dblwr/mysql56-torn.tar.gz", "one-verdict-dblwr-mysql56");
    let t = dir.join("fx/t.ibd");
    let expect = [(4u64, "torn"), (5, "torn"), (6, "corrupt")];
    // check
    let o = run(&["check", t.to_str().unwrap(), "--format", "json"]);
    assert_eq!(o.status.code(), Some(1));
    let j = Json::parse(&String::from_utf8_lossy(&o.stdout));
    let check: Vec<(u64, String, u64)> = j
        .get("invalid")
        .arr()
        .iter()
        .map(|b| {
            (
                b.get("page").u64(),
                b.get("verdict").str().to_string(),
                b.get("offset").u64(),
            )
        })
        .collect();
    // audit of the datadir: the file's findings and the doublewrite copies
    let o = run(&["audit", dir.to_str().unwrap(), "--format", "json"]);
    let j = Json::parse(&String::from_utf8_lossy(&o.stdout));
    let file = j
        .get("files")
        .arr()
        .iter()
        .find(|f| f.get("file").str().ends_with("fx/t.ibd"))
        .expect("fx/t.ibd audited");
    let audit: Vec<(u64, String, u64)> = file
        .get("findings")
        .arr()
        .iter()
        .filter_map(|f| {
            Some((
                f.get("page").opt_u64()?,
                f.opt("page_verdict")?.str().to_string(),
                f.get("offset").u64(),
            ))
        })
        .collect();
    let audit_json = String::from_utf8_lossy(&o.stdout).to_string();
    // restore
    let out = scratch("one-verdict-restored.ibd");
    let _ = std::fs::remove_file(&out);
    let o = run(&[
        "restore",
        t.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--format",
        "json",
    ]);
    let j = Json::parse(&String::from_utf8_lossy(&o.stdout));
    let restore: Vec<(u64, String)> = j
        .get("pages")
        .arr()
        .iter()
        .map(|p| (p.get("page").u64(), p.get("verdict").str().to_string()))
        .collect();
    for (page, word) in expect {
        let c = check.iter().find(|c| c.0 == page).expect("check lists it");
        assert_eq!(c.1, word, "check page {page}");
        let a = audit.iter().find(|a| a.0 == page).expect("audit lists it");
        assert_eq!((a.1.as_str(), a.2), (word, c.2), "audit page {page}");
        let r = restore
            .iter()
            .find(|r| r.0 == page)
            .expect("restore lists it");
        assert_eq!(r.1, word, "restore page {page}");
        // The doublewrite section of the same audit run.
        let needle = format!("\"page\":{page},");
        let dw = audit_json
            .split("\"damaged_pages\"")
            .skip(1)
            .flat_map(|s| s.split('{'))
            .find(|s| s.contains(&needle) && s.contains("\"lsn_words_differ\""))
            .unwrap_or_else(|| panic!("doublewrite section names page {page}: {audit_json}"));
        assert!(
            dw.contains(&format!("\"verdict\":\"{word}\"")),
            "doublewrite page {page}: {dw}"
        );
    }
}

/// Plants `case` on a copy of `fixture`; the damaged file, the clean copy
/// (in a folder of its own) and what was planted.
fn planted_copy(fixture: &str, case: Case, key: &str) -> (PathBuf, PathBuf, Planted) {
    let src = fixtures().join(fixture);
    let mut data = std::fs::read(&src).unwrap();
    let p = plant(case, &mut data, None).expect("planted");
    let dir = scratch(&format!("one-verdict-{key}-{}", fixture.replace('/', "-")));
    let clean_dir = dir.join("clean");
    std::fs::create_dir_all(&clean_dir).unwrap();
    let name = Path::new(fixture).file_name().unwrap();
    let (file, clean) = (dir.join(name), clean_dir.join(name));
    std::fs::write(&file, &data).unwrap();
    std::fs::copy(&src, &clean).unwrap();
    (file, clean, p)
}

/// `lsn` draws a zeroed page (an all-zero page its XDES entry marks in
/// use: the summary's verdict `zeroed`) as damaged, in the text map and
/// in the JSON figures, not as a page never written (LSN 0).
#[test]
fn lsn_draws_a_zeroed_page_as_damaged() {
    use super::common::Json;
    for fixture in [MYSQL56, MYSQL56_CRC32, MARIADB, MARIADB_CRC32] {
        let (file, clean, p) = planted_copy(fixture, Case::ZeroedLeaf, "lsn-zeroed");
        let (f, c) = (file.to_str().unwrap(), clean.to_str().unwrap());
        let json = |path: &str| {
            let o = run(&["lsn", path, "--format", "json"]);
            Json::parse(&String::from_utf8_lossy(&o.stdout))
        };
        let (j, jc) = (json(f), json(c));
        assert_eq!(j.get("damaged_pages").u64(), 1, "{fixture}");
        assert_eq!(
            j.get("zero_lsn_pages").u64(),
            jc.get("zero_lsn_pages").u64(),
            "{fixture}: the zeroed page is not a page of LSN 0"
        );
        // The text map, one cell a page: the planted page's cell is X.
        let o = run(&["lsn", f, "--color", "never", "--ascii"]);
        let text = String::from_utf8_lossy(&o.stdout).to_string();
        assert!(text.contains("1 cell = 1 page"), "{fixture}: {text}");
        let row = text
            .lines()
            .find(|l| l.trim_start().starts_with("0 "))
            .unwrap_or_else(|| panic!("{fixture}: no map row: {text}"));
        let cells: Vec<char> = row.trim_start()[2..].chars().collect();
        assert_eq!(
            cells.get(p.page as usize),
            Some(&'X'),
            "{fixture}: page {} in {row:?}\n{text}",
            p.page
        );
    }
}

/// `diff`'s LSN moves and groups count a page that fails verification in
/// a copy under its verdict word, not as a newer or older write.
#[test]
fn diff_counts_a_damaged_page_under_its_verdict() {
    use super::common::Json;
    for case in [Case::ZeroedLeaf, Case::Random] {
        for fixture in [MYSQL56, MYSQL56_CRC32, MARIADB, MARIADB_CRC32] {
            let (file, clean, p) = planted_copy(fixture, case, &format!("diff-{case:?}"));
            let (f, c) = (file.to_str().unwrap(), clean.to_str().unwrap());
            let o = run(&["diff", c, f, "--format", "json"]);
            assert_eq!(o.status.code(), Some(1), "{fixture} {case:?}");
            let j = Json::parse(&String::from_utf8_lossy(&o.stdout));
            let Json::Obj(moves) = j.get("moves") else {
                panic!("{fixture} {case:?}: moves is not an object");
            };
            let moves: Vec<(&str, u64)> =
                moves.iter().map(|(k, v)| (k.as_str(), v.u64())).collect();
            assert_eq!(moves, [(p.word, 1)], "{fixture} {case:?}");
            let groups: Vec<&str> = j
                .get("groups")
                .arr()
                .iter()
                .map(|g| g.get("move").str())
                .collect();
            assert_eq!(groups, [p.word], "{fixture} {case:?}");
            let o = run(&["diff", c, f]);
            let text = String::from_utf8_lossy(&o.stdout).to_string();
            assert!(
                text.contains(&format!(
                    "LSN moves (second copy against the first): 1 {}\n",
                    p.word
                )),
                "{fixture} {case:?}: {text}"
            );
        }
    }
}
