//! The doublewrite buffer against the servers: `fixtures/dblwr/` holds, for
//! MySQL 5.6.24 and MariaDB 10.11, a datadir killed after a table's pages
//! went through the doublewrite buffer with three pages of `fx/t.ibd` torn
//! (`<server>-torn.tar.gz`), the server's own crash recovery of a second
//! copy (`recovery.log`: its log lines) and the table's file as that
//! recovery left it (`<server>-recovered.tar.gz`), and a third copy with a
//! doublewrite copy spoiled too (`manifest.tsv`, the log's second part). `restore` must
//! give the pages the server restored, byte for byte; `audit` must name
//! the copies. The instance facts (tables without files, files without
//! tables, space id mismatches) are checked on mutated copies of the
//! instance fixtures against the servers' INNODB_SYS_TABLES.

use super::common::{fixtures, instance_copy, read_tsv, run, run_json, scratch, unpack, Json};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// MySQL 5.6.24 (`innodb` checksums), MariaDB 10.11 (full_crc32) and
/// MariaDB 10.11 with `innodb_checksum_algorithm=crc32`.
const SERVERS: [&str; 3] = ["mysql56", "mariadb1011", "mariadb1011-crc32"];
const PAGE: usize = 16384;

/// The (space, page) pairs the server's log says it restored from the
/// doublewrite buffer. MariaDB: "Recovered page [page id: space=S, page
/// number=P] to '…' from the doublewrite buffer."; MySQL 5.6: "file read
/// of space S page P." followed by "Recovered the page from the
/// doublewrite buffer.".
fn server_restored(server: &str) -> BTreeSet<(u64, u64)> {
    let log = server_log(server, "torn");
    let mut out = BTreeSet::new();
    let mut pending: Option<(u64, u64)> = None;
    let num = |s: &str| -> u64 {
        s.trim_matches(|c: char| !c.is_ascii_digit())
            .parse()
            .expect("number")
    };
    for line in log.lines() {
        if let Some(rest) = line.split("Recovered page [page id: space=").nth(1) {
            let (space, rest) = rest.split_once(", page number=").expect("page number");
            let page = rest.split(']').next().expect("]");
            out.insert((num(space), num(page)));
        } else if let Some(rest) = line.split("file read of space ").nth(1) {
            let (space, page) = rest.split_once(" page ").expect("page");
            pending = Some((num(space), num(page)));
        } else if line.contains("Recovered the page from the doublewrite buffer") {
            out.insert(pending.take().expect("a page named before"));
        }
    }
    assert!(!out.is_empty(), "{server}: the log names no restored page");
    out
}

/// The server's log lines of one recovery run in
/// `fixtures/dblwr/recovery.log`: `torn` (the torn copy) or `spoiled` (with
/// a copy spoiled too).
fn server_log(server: &str, run: &str) -> String {
    let text =
        std::fs::read_to_string(fixtures().join("dblwr/recovery.log")).expect("recovery log");
    let head = format!("# {server}: crash recovery of the {run} copy");
    let from = text
        .find(&head)
        .unwrap_or_else(|| panic!("{server}: no {head}"))
        + head.len();
    let rest = &text[from..];
    rest[..rest.find("\n# ").unwrap_or(rest.len())].to_string()
}

/// The rows of `fixtures/dblwr/manifest.tsv` for `server` and `fact`.
fn manifest(server: &str, fact: &str) -> Vec<std::collections::HashMap<String, String>> {
    read_tsv(&fixtures().join("dblwr/manifest.tsv"))
        .into_iter()
        .filter(|r| r["copy"] == server && r["fact"] == fact)
        .collect()
}

fn torn(server: &str) -> PathBuf {
    unpack(
        &format!("dblwr/{server}-torn.tar.gz"),
        &format!("dblwr-{server}-torn"),
    )
}

fn recovered(server: &str) -> Vec<u8> {
    let dir = unpack(
        &format!("dblwr/{server}-recovered.tar.gz"),
        &format!("dblwr-{server}-recovered"),
    );
    std::fs::read(dir.join("fx/t.ibd")).expect("recovered t.ibd")
}

fn page(data: &[u8], n: u64) -> &[u8] {
    let n = n as usize;
    &data[n * PAGE..(n + 1) * PAGE]
}

#[test]
fn restore_gives_the_pages_the_server_restored() {
    for server in SERVERS {
        let dir = torn(server);
        let input = dir.join("fx/t.ibd");
        let before = std::fs::read(&input).unwrap();
        let space = u64::from(u32::from_be_bytes(before[34..38].try_into().unwrap()));
        let want = server_restored(server);
        assert!(want.iter().all(|&(s, _)| s == space), "{server}: {want:?}");
        let want_pages: BTreeSet<u64> = want.iter().map(|&(_, p)| p).collect();
        // The fixture's planting is what the server handled.
        let planted: BTreeSet<u64> = manifest(server, "planted")
            .iter()
            .map(|r| r["page"].parse().unwrap())
            .collect();
        assert_eq!(planted, want_pages, "{server}: planted pages");

        let out = scratch(&format!("dblwr-{server}-restored.ibd"));
        let _ = std::fs::remove_file(&out);
        let (code, j) = run_json(&[
            "restore",
            "--format",
            "json",
            input.to_str().unwrap(),
            "--datadir",
            dir.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ]);
        assert_eq!(code, Some(1), "{server}: pages were restored");
        assert_eq!(
            j.get("rule").get("server").str(),
            if server == "mysql56" {
                "mysql"
            } else {
                "mariadb"
            }
        );
        let restored: BTreeSet<u64> = j
            .get("pages")
            .arr()
            .iter()
            .filter(|p| p.get("action").str() == "restored")
            .map(|p| p.get("page").u64())
            .collect();
        assert_eq!(
            restored, want_pages,
            "{server}: the pages the server restored"
        );
        assert_eq!(j.get("left").u64(), 0, "{server}");
        assert_eq!(
            std::fs::read(&input).unwrap(),
            before,
            "{server}: input written"
        );
        let ours = std::fs::read(&out).unwrap();
        let theirs = recovered(server);
        assert_eq!(ours.len(), before.len(), "{server}");
        for &p in &want_pages {
            assert!(
                page(&ours, p) == page(&theirs, p),
                "{server}: page {p} differs from the server's"
            );
            assert!(
                page(&before, p) != page(&theirs, p),
                "{server}: page {p} not torn"
            );
        }
        // Every other page is the input's.
        for p in 0..(before.len() / PAGE) as u64 {
            if !want_pages.contains(&p) {
                assert!(
                    page(&ours, p) == page(&before, p),
                    "{server}: page {p} changed"
                );
            }
        }
        // The restored file needs nothing more: exit 0, no page listed.
        let again = scratch(&format!("dblwr-{server}-again.ibd"));
        let (code, j) = run_json(&[
            "restore",
            "--format",
            "json",
            out.to_str().unwrap(),
            "--datadir",
            dir.to_str().unwrap(),
            "--out",
            again.to_str().unwrap(),
        ]);
        assert_eq!(code, Some(0), "{server}: nothing left to do");
        assert!(j.get("pages").arr().is_empty(), "{server}");
        assert_eq!(std::fs::read(&again).unwrap(), ours, "{server}");
    }
}

#[test]
fn restore_never_writes_its_input() {
    let dir = torn("mysql56");
    let input = dir.join("fx/t.ibd");
    let before = std::fs::read(&input).unwrap();
    for out in [input.clone(), dir.join("ibdata1"), dir.join("ib_logfile0")] {
        let o = run(&[
            "restore",
            input.to_str().unwrap(),
            "--datadir",
            dir.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(2), "{}", out.display());
        assert!(
            String::from_utf8_lossy(&o.stderr).contains("never writes its input"),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
    assert_eq!(std::fs::read(&input).unwrap(), before);
}

#[test]
fn restore_leaves_a_page_without_a_copy() {
    // A page of the recovered file that the doublewrite buffer holds no
    // copy of, damaged by one byte: left, exit 1.
    let dir = torn("mariadb1011");
    let mut data = recovered("mariadb1011");
    let j = audit_json(&dir);
    let copied: BTreeSet<u64> = j.get("datadirs").arr()[0]
        .get("instance")
        .get("doublewrite")
        .get("damaged_pages")
        .arr()
        .iter()
        .map(|p| p.get("page").u64())
        .collect();
    let victim = (3..(data.len() / PAGE) as u64)
        .find(|p| !copied.contains(p) && page(&data, *p).iter().any(|&b| b != 0))
        .expect("a page");
    let victim_at = victim as usize * PAGE + 1000;
    data[victim_at] ^= 0x55;
    let input = scratch("dblwr-left.ibd");
    std::fs::write(&input, &data).unwrap();
    let out = scratch("dblwr-left-out.ibd");
    let (code, j) = run_json(&[
        "restore",
        "--format",
        "json",
        input.to_str().unwrap(),
        "--datadir",
        dir.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(1));
    let pages = j.get("pages").arr();
    let left: Vec<&Json> = pages
        .iter()
        .filter(|p| p.get("page").u64() == victim)
        .collect();
    assert_eq!(left.len(), 1, "{victim}");
    assert_eq!(left[0].get("action").str(), "left");
    assert_eq!(left[0].get("offset").u64(), victim * PAGE as u64);
    assert_eq!(
        std::fs::read(&out).unwrap(),
        data,
        "the damaged page is kept"
    );
}

fn audit_json(dir: &Path) -> Json {
    let (code, j) = run_json(&["audit", "--format", "json", dir.to_str().unwrap()]);
    assert!(matches!(code, Some(0 | 1)), "{code:?}");
    j
}

#[test]
fn audit_names_the_copies_the_server_wrote() {
    for server in SERVERS {
        let dir = torn(server);
        let want = server_restored(server);
        let theirs = recovered(server);
        let ibdata1 = std::fs::read(dir.join("ibdata1")).unwrap();
        let j = audit_json(&dir);
        let inst = j.get("datadirs").arr()[0].get("instance");
        assert_eq!(inst.get("tables_without_files").arr().len(), 0, "{server}");
        assert_eq!(inst.get("files_without_tables").arr().len(), 0, "{server}");
        assert_eq!(inst.get("space_id_mismatches").arr().len(), 0, "{server}");
        let dw = inst.get("doublewrite");
        let mut named = BTreeSet::new();
        for p in dw.get("damaged_pages").arr() {
            let (space, n) = (p.get("space_id").u64(), p.get("page").u64());
            named.insert((space, n));
            let slot = p.get("server_writes_slot").u64();
            let copy = p
                .get("copies")
                .arr()
                .iter()
                .find(|c| c.get("slot").u64() == slot)
                .expect("the slot is among the copies");
            assert!(copy.get("verifies").bool());
            // The slot's bytes are what the server wrote; its LSN is the
            // recovered page's FIL_PAGE_LSN.
            let at = copy.get("slot_page").u64();
            assert!(page(&ibdata1, at) == page(&theirs, n), "{server}: page {n}");
            let lsn = u64::from_be_bytes(page(&theirs, n)[16..24].try_into().unwrap());
            assert_eq!(copy.get("lsn").u64(), lsn, "{server}: page {n}");
        }
        assert_eq!(named, want, "{server}: the damaged pages with copies");
    }
}

/// The servers' INNODB_SYS_TABLES of an instance fixture: name → space.
fn sys_tables(datadir: &str) -> Vec<(String, u64)> {
    read_tsv(&fixtures().join("instance/sys_tables.tsv"))
        .into_iter()
        .filter(|r| r["datadir"] == datadir)
        .map(|r| (r["name"].clone(), r["space"].parse().unwrap()))
        .collect()
}

fn space_of(truth: &[(String, u64)], name: &str) -> u64 {
    truth
        .iter()
        .find(|(n, _)| n == name)
        .unwrap_or_else(|| panic!("{name} not in INNODB_SYS_TABLES"))
        .1
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        if e.path().is_dir() {
            copy_dir(&e.path(), &to.join(e.file_name()));
        } else {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}

#[test]
fn audit_compares_files_with_the_dictionary() {
    for name in ["mysql56-fpt", "mariadb1011-split"] {
        let truth = sys_tables(name);
        let dir = instance_copy(name);
        let j = audit_json(&dir);
        let inst = j.get("datadirs").arr()[0].get("instance");
        // Every table of the server's dictionary with a space of its own
        // has its file: none missing, none extra, no mismatch.
        let own = truth.iter().filter(|(_, s)| *s != 0).count() as u64;
        assert!(own >= 6, "{name}");
        assert_eq!(
            inst.get("dictionary_tables").u64(),
            truth.len() as u64,
            "{name}"
        );
        for k in [
            "tables_without_files",
            "files_without_tables",
            "space_id_mismatches",
        ] {
            assert!(inst.get(k).arr().is_empty(), "{name}: {k}");
        }

        // Mutated: t_dynamic.ibd renamed t_orphan.ibd; t_redundant.ibd
        // replaced by t_basic.ibd's bytes.
        let m = scratch(&format!("dblwr-instance-{name}"));
        let _ = std::fs::remove_dir_all(&m);
        copy_dir(&dir, &m);
        std::fs::rename(m.join("fx/t_dynamic.ibd"), m.join("fx/t_orphan.ibd")).unwrap();
        std::fs::copy(m.join("fx/t_basic.ibd"), m.join("fx/t_redundant.ibd")).unwrap();
        let (code, j) = run_json(&["audit", "--format", "json", m.to_str().unwrap()]);
        assert_eq!(code, Some(1), "{name}");
        let inst = j.get("datadirs").arr()[0].get("instance");
        let missing: Vec<(String, u64)> = inst
            .get("tables_without_files")
            .arr()
            .iter()
            .map(|t| (t.get("table").str().to_string(), t.get("space_id").u64()))
            .collect();
        assert_eq!(
            missing,
            vec![("fx/t_dynamic".to_string(), space_of(&truth, "fx/t_dynamic"))],
            "{name}"
        );
        let extra: Vec<(String, u64)> = inst
            .get("files_without_tables")
            .arr()
            .iter()
            .map(|t| (t.get("file").str().to_string(), t.get("space_id").u64()))
            .collect();
        assert_eq!(extra.len(), 1, "{name}: {extra:?}");
        assert!(extra[0].0.ends_with("fx/t_orphan.ibd"), "{name}: {extra:?}");
        assert_eq!(extra[0].1, space_of(&truth, "fx/t_dynamic"), "{name}");
        let mm = inst.get("space_id_mismatches").arr();
        assert_eq!(mm.len(), 1, "{name}");
        assert!(mm[0].get("file").str().ends_with("fx/t_redundant.ibd"));
        assert_eq!(mm[0].get("table").str(), "fx/t_redundant");
        assert_eq!(
            mm[0].get("dictionary_space_id").u64(),
            space_of(&truth, "fx/t_redundant"),
            "{name}"
        );
        assert_eq!(
            mm[0].get("file_space_id").u64(),
            space_of(&truth, "fx/t_basic"),
            "{name}"
        );
        // The text names them too.
        let o = run(&["audit", m.to_str().unwrap()]);
        let text = String::from_utf8_lossy(&o.stdout);
        for want in [
            "table without file: fx/t_dynamic",
            "file without table: fx/t_orphan.ibd",
            "space id mismatch: fx/t_redundant.ibd at byte offset 38",
        ] {
            assert!(text.contains(want), "{name}: {want}\n{text}");
        }
    }
}

/// The torn copy with the first doublewrite copy (in slot order) of the
/// first torn page spoiled as `fixtures/dblwr/<server>-spoiled.tsv` says
/// (one byte XOR 0xff in ibdata1), as the generator gave it to the server.
fn spoiled(server: &str) -> (PathBuf, u64, u64) {
    let row = manifest(server, "spoiled")
        .into_iter()
        .next()
        .expect("one row");
    let dir = scratch(&format!("dblwr-{server}-spoiled"));
    let _ = std::fs::remove_dir_all(&dir);
    copy_dir(&torn(server), &dir);
    let mut ib = std::fs::read(dir.join("ibdata1")).unwrap();
    let at: usize = row["value"].parse().unwrap();
    ib[at] ^= 0xff;
    std::fs::write(dir.join("ibdata1"), ib).unwrap();
    (
        dir,
        row["slot"].parse().unwrap(),
        row["page"].parse().unwrap(),
    )
}

#[test]
fn restore_leaves_a_page_whose_copy_is_spoiled_as_the_server_does() {
    for server in SERVERS {
        let (dir, slot, first) = spoiled(server);
        let log = server_log(server, "spoiled");
        let input = dir.join("fx/t.ibd");
        let head = std::fs::read(&input).unwrap();
        let space = u32::from_be_bytes(head[34..38].try_into().unwrap());
        let out = scratch(&format!("dblwr-{server}-spoiled-out.ibd"));
        let (code, j) = run_json(&[
            "restore",
            "--format",
            "json",
            input.to_str().unwrap(),
            "--datadir",
            dir.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ]);
        assert_eq!(code, Some(1), "{server}");
        let p = j
            .get("pages")
            .arr()
            .iter()
            .find(|p| p.get("page").u64() == first)
            .expect("the spoiled page is listed");
        assert_eq!(p.get("action").str(), "left", "{server}");
        if server == "mysql56" {
            // The server stopped at that page although a later slot holds
            // a valid older copy of it.
            assert!(log.contains(&format!("file read of space {space} page {first}.")));
            assert!(log.contains("Also the page in the doublewrite buffer is corrupt"));
            assert!(!log.contains("Recovered the page from the doublewrite buffer"));
            assert_eq!(p.get("why").str(), "first-copy-corrupt");
            assert!(p.get("reason").str().contains(&format!("slot {slot}")));
        } else {
            // MariaDB tried, found no valid copy, and did not restore it;
            // the other torn pages it restored.
            let tried =
                format!("Trying to recover page [page id: space={space}, page number={first}]");
            let done = format!("Recovered page [page id: space={space}, page number={first}]");
            assert!(log.contains(&tried), "{log}");
            assert!(!log.contains(&done), "{log}");
            assert_eq!(p.get("why").str(), "no-valid-copy");
            let restored: BTreeSet<u64> = j
                .get("pages")
                .arr()
                .iter()
                .filter(|p| p.get("action").str() == "restored")
                .map(|p| p.get("page").u64())
                .collect();
            let by_server: BTreeSet<u64> = log
                .lines()
                .filter_map(|l| {
                    l.split("Recovered page [page id: space=5, page number=")
                        .nth(1)
                })
                .map(|r| r.split(']').next().unwrap().parse().unwrap())
                .collect();
            assert_eq!(restored, by_server, "{log}");
        }
    }
}

#[test]
fn restore_survives_a_hostile_system_tablespace() {
    // The TRX_SYS doublewrite header (page 5, page size − 200: magic at
    // +10, block1 +14, block2 +18) pointing past the file, and ibdata1 cut
    // inside the first block: no panic, every torn page left (no copy).
    let src = torn("mysql56");
    let planted = manifest("mysql56", "planted").len() as u64;
    let hdr = 5 * PAGE + PAGE - 200;
    type Mutation = Box<dyn Fn(&mut Vec<u8>)>;
    let cases: Vec<(&str, Mutation)> = vec![
        (
            "blocks past the end",
            Box::new(move |b: &mut Vec<u8>| {
                b[hdr + 14..hdr + 18].copy_from_slice(&0xffff_fff0u32.to_be_bytes());
                b[hdr + 18..hdr + 22].copy_from_slice(&u32::MAX.to_be_bytes());
            }),
        ),
        (
            "cut inside block 1",
            Box::new(|b: &mut Vec<u8>| b.truncate(64 * PAGE + 100)),
        ),
    ];
    for (what, mutate) in cases {
        let dir = scratch(&format!("dblwr-hostile-{}", what.replace(' ', "-")));
        let _ = std::fs::remove_dir_all(&dir);
        copy_dir(&src, &dir);
        let mut ib = std::fs::read(dir.join("ibdata1")).unwrap();
        mutate(&mut ib);
        std::fs::write(dir.join("ibdata1"), ib).unwrap();
        let out = scratch(&format!("dblwr-hostile-{}.ibd", what.replace(' ', "-")));
        let (code, j) = run_json(&[
            "restore",
            "--format",
            "json",
            dir.join("fx/t.ibd").to_str().unwrap(),
            "--datadir",
            dir.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ]);
        assert_eq!(code, Some(1), "{what}");
        assert_eq!(j.get("restored").u64(), 0, "{what}");
        assert_eq!(j.get("left").u64(), planted, "{what}");
        let (code, _) = run_json(&["audit", "--format", "json", dir.to_str().unwrap()]);
        assert!(matches!(code, Some(0..=2)), "{what}: audit {code:?}");
    }
}

/// The doublewrite slots of a clean `ibdata1` (the blocks the TRX_SYS page
/// names, 64..191 at 16 KiB: docs/format.md §21, `trx0sys.h`) hold copies
/// of other pages with those pages' numbers and space ids: no command
/// calls them misplaced or foreign, and every page of the file is counted
/// once. Clean shutdowns of MariaDB 10.11 and MySQL 5.6.24
/// (`audit/*-clean`), and `instance/mysql56-fpt`, whose slots hold four
/// ROW_FORMAT=COMPRESSED copies (the zip page, then zeros:
/// `buf_dblwr_flush_buffered_writes`).
#[test]
fn doublewrite_slots_of_a_clean_ibdata1_are_copies_in_every_command() {
    use super::common::{audit_copy, instance_copy};
    for dir in [
        audit_copy("mariadb1011-clean"),
        audit_copy("mysql56-clean"),
        instance_copy("mysql56-fpt"),
    ] {
        let f = dir.join("ibdata1");
        let file = f.to_str().unwrap();
        let pages = std::fs::metadata(&f).unwrap().len() / PAGE as u64;
        let o = run(&["lsn", file]);
        let out = String::from_utf8_lossy(&o.stdout);
        assert_eq!(o.status.code(), Some(0), "{file} lsn: {out}");
        assert!(
            !out.contains("misplaced") && !out.contains("another tablespace"),
            "{file} lsn: {out}"
        );
        let (code, j) = run_json(&["check", file, "--format", "json"]);
        assert_eq!(code, Some(0), "{file} check");
        assert!(j.get("invalid").arr().is_empty(), "{file}");
        // `valid` counts the pages that verify, all-zero ones included.
        let counted = j.get("valid").u64()
            + j.get("invalid").arr().len() as u64
            + j.get("freed_invalid").arr().len() as u64
            + j.get("unverifiable").arr().len() as u64;
        assert_eq!(counted, pages, "{file} check counts");
        let o = run(&["pages", file]);
        assert_eq!(o.status.code(), Some(0), "{file} pages");
        for line in String::from_utf8_lossy(&o.stdout).lines() {
            assert!(
                !line.ends_with("BAD") && !line.contains("+problems"),
                "{file} pages: {line}"
            );
        }
        let (code, j) = run_json(&["audit", file, "--format", "json"]);
        let a = &j.get("files").arr()[0];
        assert_eq!(code, Some(0), "{file} audit");
        assert_eq!(a.get("verdict").str(), "clean", "{file}");
        assert!(a.get("findings").arr().is_empty(), "{file}");
        assert_eq!(
            a.get("verified").u64() + a.get("doublewrite_not_verifying").u64(),
            pages,
            "{file} audit counts"
        );
    }
}

/// A doublewrite slot whose copy does not verify is a copy of another
/// page, not damage of `ibdata1`: the server only ever restores from a
/// copy that verifies, and both servers' `innochecksum` leave the
/// doublewrite pages out of the check (`is_page_doublewritebuffer`,
/// mysql-server 5.6 / MariaDB 10.11 `extra/innochecksum.cc`). So every
/// command gives the slot one verdict, `copy`, and no finding: `check`
/// (which called it damaged, exit 1) and `audit` (which did not) agree.
/// Random bytes over one slot of clean MariaDB 10.11 and MySQL 5.6.24
/// `ibdata1` copies.
#[test]
fn a_doublewrite_copy_that_does_not_verify_is_a_copy_not_damage() {
    use super::common::audit_copy;
    use ibdscope_core::Tablespace;
    for name in ["mariadb1011-clean", "mysql56-clean"] {
        let data = std::fs::read(audit_copy(name).join("ibdata1")).unwrap();
        let slot = {
            let ts = Tablespace::new(&data).unwrap();
            (0..ts.n_pages())
                .map(ibdscope_core::PageNo)
                .find(|&n| ts.in_doublewrite(n))
                .expect("a doublewrite slot")
                .0 as usize
        };
        let dir = scratch(&format!("dwcopy-{name}"));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("ibdata1");
        let mut bad = data.clone();
        let mut x: u32 = 0x9e37_79b9;
        for b in &mut bad[slot * PAGE..(slot + 1) * PAGE] {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            *b = x as u8;
        }
        std::fs::write(&f, &bad).unwrap();
        let file = f.to_str().unwrap();
        let (code, j) = run_json(&["check", file, "--format", "json"]);
        assert_eq!(code, Some(0), "{name} check");
        assert!(j.get("invalid").arr().is_empty(), "{name} check invalid");
        assert_eq!(j.get("doublewrite_not_verifying").u64(), 1, "{name} check");
        let o = run(&["check", file]);
        assert!(
            String::from_utf8_lossy(&o.stdout)
                .contains("1 slot of the doublewrite buffer does not verify"),
            "{name} check text"
        );
        let o = run(&["pages", file]);
        assert_eq!(o.status.code(), Some(0), "{name} pages");
        let out = String::from_utf8_lossy(&o.stdout);
        let line = out
            .lines()
            .find(|l| l.split_whitespace().next() == Some(&slot.to_string()))
            .expect("the slot's line");
        assert!(line.ends_with("copy"), "{name} pages: {line}");
        let o = run(&["page", file, &slot.to_string()]);
        assert_eq!(o.status.code(), Some(0), "{name} page");
        assert!(
            String::from_utf8_lossy(&o.stdout).contains(": copy: a doublewrite buffer slot"),
            "{name} page"
        );
        for cmd in ["lsn", "types", "info"] {
            let o = run(&[cmd, file]);
            assert_eq!(o.status.code(), Some(0), "{name} {cmd}");
        }
        let (code, j) = run_json(&["audit", file, "--format", "json"]);
        assert_eq!(code, Some(0), "{name} audit");
        let a = &j.get("files").arr()[0];
        assert_eq!(a.get("doublewrite_not_verifying").u64(), 1, "{name} audit");
    }
}
