//! The undo logs of the MySQL 5.6.24 history fixture read by the library
//! alone: the history lists add up to the server's History list length,
//! and a history list made to loop, or longer than its stored length, is
//! a problem with its page and byte offset, not a hang.
#![allow(
    clippy::arithmetic_side_effects,
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic
)]

use ibdscope_core::Tablespace;
use ibdscope_forensics::system::SystemSpace;
use ibdscope_forensics::undo::Undo;

/// `ibdata1` of `fixtures/history/mysql56.tar.gz` (gzip around raw
/// DEFLATE, a ustar archive), with the library's inflate.
fn ibdata1() -> Vec<u8> {
    let gz = std::fs::read(ibdscope_testkit::fixtures().join("history/mysql56.tar.gz"))
        .expect("archive");
    let mut tar = Vec::new();
    ibdscope_codec::inflate::inflate_raw(ibdscope_testkit::gzip_deflate(&gz), &mut tar, 1 << 30)
        .expect("inflate");
    let members = ibdscope_testkit::tar_members(&tar);
    let (_, ibdata1) = members
        .into_iter()
        .find(|(name, _)| name == "ibdata1")
        .expect("no ibdata1 in the archive");
    ibdata1.to_vec()
}

/// Seals 16 KiB page `n` of `b` again with the checksum `clean` (its
/// bytes before the change) verified under (crc32, else the InnoDB
/// checksum: `buf0checksum.cc`), so that a planted pointer is read as a
/// pointer, not as a damaged page.
fn seal(b: &mut [u8], n: usize, clean: &[u8]) {
    use ibdscope_core::checksum;
    let p = &mut b[n * 16384..(n + 1) * 16384];
    if checksum::page_crc32(clean).to_be_bytes() == clean[..4] {
        let v = checksum::page_crc32(p).to_be_bytes();
        p[..4].copy_from_slice(&v);
        p[16376..16380].copy_from_slice(&v);
    } else {
        let new = checksum::page_innodb_new(p).to_be_bytes();
        p[..4].copy_from_slice(&new);
        let old = checksum::page_innodb_old(p).to_be_bytes();
        p[16376..16380].copy_from_slice(&old);
    }
}

/// Page `n` of `b`, as it is.
fn page(b: &[u8], n: usize) -> Vec<u8> {
    b[n * 16384..(n + 1) * 16384].to_vec()
}

fn hll() -> u64 {
    let text = std::fs::read_to_string(ibdscope_testkit::fixtures().join("history/facts.tsv"))
        .expect("facts");
    text.lines()
        .map(|l| l.split('\t').collect::<Vec<_>>())
        .find(|f| f[0] == "mysql56" && f[1] == "history_list_length")
        .map(|f| f[3].parse().unwrap())
        .expect("history_list_length")
}

fn read(bytes: &[u8]) -> (u64, Vec<String>) {
    let ts = Tablespace::new(bytes).expect("space 0");
    let slots = SystemSpace::read(&ts)
        .and_then(|s| s.trx_sys)
        .expect("TRX_SYS")
        .rsegs;
    let u = Undo::read(vec![(0, &ts)], &slots);
    let probs = u
        .problems
        .iter()
        .map(|p| format!("page {} offset {}: {}", p.page, p.offset, p.what))
        .collect();
    (u.to_purge().0, probs)
}

#[test]
fn the_history_lists_add_up_to_the_servers_history_list_length() {
    let b = ibdata1();
    let (n, probs) = read(&b);
    assert!(probs.is_empty(), "{probs:?}");
    assert_eq!(n, hll());
}

/// The first rollback segment with a history: its page, and the list's
/// first node (page, offset).
fn first_history(b: &[u8]) -> (usize, u32, usize) {
    let ts = Tablespace::new(b).expect("space 0");
    let slots = SystemSpace::read(&ts).unwrap().trx_sys.unwrap().rsegs;
    for s in slots {
        let p = s.page as usize * 16384;
        let len = u32::from_be_bytes(b[p + 38 + 8..p + 38 + 12].try_into().unwrap());
        if len > 0 {
            let first = u32::from_be_bytes(b[p + 38 + 12..p + 38 + 16].try_into().unwrap());
            let off = u16::from_be_bytes(b[p + 38 + 16..p + 38 + 18].try_into().unwrap());
            return (p, first, usize::from(off));
        }
    }
    panic!("no history")
}

#[test]
fn a_history_list_that_loops_is_a_problem_not_a_hang() {
    let mut b = ibdata1();
    let (rseg, first, off) = first_history(&b);
    // The first node's FLST_NEXT (node + 6) names the node itself, and
    // the list's stored length is made huge: the walk stops at the repeat.
    let node = first as usize * 16384 + off;
    let (clean_node, clean_rseg) = (page(&b, first as usize), page(&b, rseg / 16384));
    b[node + 6..node + 10].copy_from_slice(&first.to_be_bytes());
    b[node + 10..node + 12].copy_from_slice(&(off as u16).to_be_bytes());
    b[rseg + 38 + 8..rseg + 38 + 12].copy_from_slice(&u32::MAX.to_be_bytes());
    seal(&mut b, first as usize, &clean_node);
    seal(&mut b, rseg / 16384, &clean_rseg);
    let (_, probs) = read(&b);
    assert!(
        probs
            .iter()
            .any(|p| p.contains("history list") && p.contains(&format!("page {first}"))),
        "{probs:?}"
    );
}

#[test]
fn a_history_list_longer_than_its_length_is_a_problem() {
    let mut b = ibdata1();
    let (rseg, _, _) = first_history(&b);
    let stored = u32::from_be_bytes(b[rseg + 38 + 8..rseg + 38 + 12].try_into().unwrap());
    // One entry fewer than the list holds: the walk stops there and says so.
    let clean = page(&b, rseg / 16384);
    b[rseg + 38 + 8..rseg + 38 + 12].copy_from_slice(&(stored - 1).to_be_bytes());
    seal(&mut b, rseg / 16384, &clean);
    let (_, probs) = read(&b);
    assert!(
        probs
            .iter()
            .any(|p| p.contains("history list goes on past")),
        "{probs:?}"
    );
}

/// A zeroed undo page that a history list reaches: one problem naming the
/// page (its verdict, zeroed), the log flagged as damaged, and its
/// transaction's undo lost, not counted purged.
#[test]
fn a_zeroed_undo_page_is_damage_at_its_place() {
    let mut b = ibdata1();
    let (_, first, off) = first_history(&b);
    b[first as usize * 16384..(first as usize + 1) * 16384].fill(0);
    let ts = Tablespace::new(&b).expect("space 0");
    let slots = SystemSpace::read(&ts).unwrap().trx_sys.unwrap().rsegs;
    let u = Undo::read(vec![(0, &ts)], &slots);
    let at = u64::from(first) * 16384 + (off as u64 - 34);
    let hits: Vec<_> = u
        .problems
        .iter()
        .filter(|p| p.page == first && p.what.contains("is damaged (zeroed)"))
        .collect();
    assert_eq!(hits.len(), 1, "{:?}", u.problems);
    assert_eq!(hits[0].offset, at);
    assert!(u
        .logs
        .iter()
        .any(|l| l.page == first && l.damage == Some(ibdscope_forensics::undo::Damage::Zeroed)));
    assert!(u.damaged.iter().any(|d| d.page == first));
}
