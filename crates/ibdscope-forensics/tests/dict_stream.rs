//! `Dictionary::stream` on a SYS_COLUMNS of two levels: the MySQL 5.6.24
//! datadir of fixtures/instance (`mysql56-fpt`), whose SYS_COLUMNS is one
//! leaf (its root), rebuilt as a root of two node pointers over two leaves
//! that hold the same records, split inside one table's columns. Each
//! table's columns found by descending the tree by its id must be those
//! the server listed (INNODB_SYS_COLUMNS, fixtures/instance/sys_columns.tsv),
//! the split table's included: a descent that took the child whose key
//! equals the id would miss the first leaf's part.
#![allow(
    clippy::arithmetic_side_effects,
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic
)]

use ibdscope_core::checksum;
use ibdscope_core::Tablespace;
use ibdscope_forensics::dict::{Dictionary, DEFAULT_CHARSET_COLL};
use std::collections::BTreeMap;

const P: usize = 16384;
const FIL_NULL: u32 = 0xFFFF_FFFF;
/// REDUNDANT infimum and supremum origins (`page0page.h`
/// `PAGE_OLD_INFIMUM`, `PAGE_OLD_SUPREMUM`), and the first user byte
/// (`PAGE_OLD_SUPREMUM_END`).
const INF: usize = 101;
const SUP: usize = 116;
const USER_LOW: usize = 125;
/// `PAGE_HEADER` fields (`page0page.h`), from byte 38.
const N_DIR_SLOTS: usize = 38;
const HEAP_TOP: usize = 38 + 2;
const N_HEAP: usize = 38 + 4;
const N_RECS: usize = 38 + 16;
const LEVEL: usize = 38 + 26;

/// `ibdata1` of `fixtures/instance/mysql56-fpt.tar.gz` (gzip around raw
/// DEFLATE, a ustar archive), with the library's inflate.
fn ibdata1() -> Vec<u8> {
    let gz = std::fs::read(ibdscope_testkit::fixtures().join("instance/mysql56-fpt.tar.gz"))
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

fn get16(p: &[u8], at: usize) -> usize {
    usize::from(u16::from_be_bytes([p[at], p[at + 1]]))
}
fn put16(p: &mut [u8], at: usize, v: usize) {
    p[at..at + 2].copy_from_slice(&u16::try_from(v).unwrap().to_be_bytes());
}
fn put32(p: &mut [u8], at: usize, v: u32) {
    p[at..at + 4].copy_from_slice(&v.to_be_bytes());
}

/// The user records' origins along the chain (REDUNDANT next pointers are
/// absolute, 2 bytes before the origin).
fn chain(p: &[u8]) -> Vec<usize> {
    let mut v = Vec::new();
    let mut o = get16(p, INF - 2);
    while o != SUP {
        v.push(o);
        o = get16(p, o - 2);
    }
    v
}

/// Sets `n_owned` (the low 4 bits 6 bytes before the origin).
fn set_owned(p: &mut [u8], origin: usize, n: u8) {
    p[origin - 6] = (p[origin - 6] & 0xF0) | n;
}

/// Links `recs` infimum → … → supremum and writes a page directory over
/// them: every fourth record owns a slot, the supremum the rest.
fn relink(p: &mut [u8], recs: &[usize]) {
    let mut prev = INF;
    for &r in recs {
        put16(p, prev - 2, r);
        set_owned(p, r, 0);
        prev = r;
    }
    put16(p, prev - 2, SUP);
    let old = get16(p, N_DIR_SLOTS);
    for i in 0..old {
        put16(p, P - 8 - 2 * (i + 1), 0);
    }
    let mut slots = vec![INF];
    set_owned(p, INF, 1);
    let mut owned = 0;
    for (i, &r) in recs.iter().enumerate() {
        owned += 1;
        if owned == 4 && i + 1 < recs.len() {
            set_owned(p, r, 4);
            slots.push(r);
            owned = 0;
        }
    }
    set_owned(p, SUP, owned + 1);
    slots.push(SUP);
    for (i, &s) in slots.iter().enumerate() {
        put16(p, P - 8 - 2 * (i + 1), s);
    }
    put16(p, N_DIR_SLOTS, slots.len());
    put16(p, N_RECS, recs.len());
}

/// Seals a page again with the algorithm its clean copy verified under.
fn reseal(clean: &[u8], p: &mut [u8]) {
    let stored = u32::from_be_bytes(clean[P - 4..].try_into().unwrap());
    if checksum::full_crc32(clean) == stored {
        let v = checksum::full_crc32(p).to_be_bytes();
        p[P - 4..].copy_from_slice(&v);
    } else if checksum::page_crc32(clean).to_be_bytes() == clean[..4] {
        let v = checksum::page_crc32(p).to_be_bytes();
        p[..4].copy_from_slice(&v);
        p[P - 8..P - 4].copy_from_slice(&v);
    } else {
        let new = checksum::page_innodb_new(p).to_be_bytes();
        p[..4].copy_from_slice(&new);
        let old = checksum::page_innodb_old(p).to_be_bytes();
        p[P - 8..P - 4].copy_from_slice(&old);
    }
}

/// A REDUNDANT node pointer record at `start`: (TABLE_ID, POS) copied
/// from the leaf record `key_from`, then the child page; one-byte field
/// end offsets (`rem0rec.cc`: ends at origin − 7 − i, then the 6 header
/// bytes: info bits | n_owned, heap_no << 3, n_fields << 1 | short, next).
/// Returns its origin.
fn node_ptr(
    p: &mut [u8],
    start: usize,
    heap_no: usize,
    min_rec: bool,
    key: &[u8],
    child: u32,
) -> usize {
    let o = start + 3 + 6;
    p[o - 7] = 8;
    p[o - 8] = 12;
    p[o - 9] = 16;
    p[o - 6] = if min_rec { 0x10 } else { 0 };
    put16(p, o - 5, heap_no << 3);
    p[o - 3] = (3 << 1) | 1;
    p[o..o + 12].copy_from_slice(&key[..12]);
    put32(p, o + 12, child);
    o
}

#[test]
fn columns_found_by_descent_in_a_two_level_sys_columns_are_the_servers() {
    let mut b = ibdata1();
    let hdr = 7 * P + 38;
    let root = u32::from_be_bytes(b[hdr + 40..hdr + 44].try_into().unwrap()) as usize;
    let clean = b[root * P..(root + 1) * P].to_vec();
    assert_eq!(get16(&clean, LEVEL), 0, "SYS_COLUMNS is one leaf");
    let recs = chain(&clean);
    // Split between two records of one table, near the middle.
    let mid = recs.len() / 2;
    let k = (mid..recs.len())
        .find(|&k| clean[recs[k - 1]..recs[k - 1] + 8] == clean[recs[k]..recs[k] + 8])
        .expect("a table with columns on both sides");
    let split_table = u64::from_be_bytes(clean[recs[k]..recs[k] + 8].try_into().unwrap());
    // Two free (all-zero) pages at the end of the space for the leaves.
    let n = b.len() / P;
    let (l1, l2) = (n - 2, n - 1);
    assert!(b[l1 * P..].iter().all(|&x| x == 0));
    for (page, part, prev, next) in [
        (l1, &recs[..k], FIL_NULL, l2 as u32),
        (l2, &recs[k..], l1 as u32, FIL_NULL),
    ] {
        let mut p = clean.clone();
        put32(&mut p, 4, page as u32);
        put32(&mut p, 8, prev);
        put32(&mut p, 12, next);
        relink(&mut p, part);
        reseal(&clean, &mut p);
        b[page * P..(page + 1) * P].copy_from_slice(&p);
    }
    // The root: two node pointers, the first with the min-rec flag.
    let mut r = clean.clone();
    let heap_top = get16(&clean, HEAP_TOP);
    r[USER_LOW..heap_top].fill(0);
    let k1 = clean[recs[0]..recs[0] + 12].to_vec();
    let k2 = clean[recs[k]..recs[k] + 12].to_vec();
    let o1 = node_ptr(&mut r, USER_LOW, 2, true, &k1, l1 as u32);
    let o2 = node_ptr(&mut r, o1 + 16, 3, false, &k2, l2 as u32);
    put16(&mut r, HEAP_TOP, o2 + 16);
    put16(&mut r, N_HEAP, 4);
    put16(&mut r, LEVEL, 1);
    relink(&mut r, &[o1, o2]);
    reseal(&clean, &mut r);
    b[root * P..(root + 1) * P].copy_from_slice(&r);

    let ts = Tablespace::new(&b).expect("space 0");
    let stream = Dictionary::stream(&ts).expect("dictionary");
    let problems: Vec<String> = stream
        .problems
        .iter()
        .map(|p| format!("{} page {}: {}", p.table, p.page, p.what))
        .collect();
    assert!(problems.is_empty(), "{problems:?}");

    let tsv = |f: &str| ibdscope_testkit::tsv(&ibdscope_testkit::fixtures().join(f));
    let mut want: BTreeMap<u64, Vec<String>> = BTreeMap::new();
    for row in tsv("instance/sys_columns.tsv") {
        if row["datadir"] == "mysql56-fpt" {
            want.entry(row["table_id"].parse().unwrap())
                .or_default()
                .push(format!(
                    "{} {} {} {} {}",
                    row["name"], row["pos"], row["mtype"], row["prtype"], row["len"]
                ));
        }
    }
    let n_tables = tsv("instance/sys_tables.tsv")
        .iter()
        .filter(|r| r["datadir"] == "mysql56-fpt")
        .count();
    assert_eq!(stream.tables, n_tables as u64);
    let mut got: BTreeMap<u64, Vec<String>> = BTreeMap::new();
    let mut seen = 0;
    stream
        .for_each(|t| {
            seen += 1;
            let cols = t
                .columns
                .iter()
                .map(|c| {
                    format!(
                        "{} {} {} {} {}",
                        String::from_utf8_lossy(&c.name),
                        c.pos,
                        c.mtype,
                        c.prtype_loaded(DEFAULT_CHARSET_COLL),
                        c.len
                    )
                })
                .collect::<Vec<_>>();
            if !cols.is_empty() {
                got.insert(t.id, cols);
            }
            Ok::<(), ()>(())
        })
        .unwrap();
    assert_eq!(seen, n_tables);
    assert!(got.contains_key(&split_table));
    assert_eq!(got, want);
}
