//! `ibdscope_forensics::carve` on images built in memory from the
//! committed fixtures: random bytes with real pages planted at odd
//! offsets, pages of three page sizes mixed, two versions of one page,
//! pages a sparse copy split, truncated images. Every expectation is
//! where a page was planted and what the server wrote in it (its page
//! number and space id: `fixtures/manifest.tsv`).
#![allow(
    clippy::arithmetic_side_effects,
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic
)]

use ibdscope_core::checksum::page_crc32;
use ibdscope_core::{Engine, IndexId, Lsn, PageNo, SpaceId};
use ibdscope_forensics::carve::{self, CarveOptions, Carved, Found, PageLayout};

fn fixture(path: &str) -> Vec<u8> {
    std::fs::read(ibdscope_testkit::fixtures().join(path)).expect("fixture")
}

/// The pages of `file` of `size` bytes that a server wrote (not all zero).
fn written(file: &[u8], size: usize) -> Vec<(u32, &[u8])> {
    file.chunks_exact(size)
        .enumerate()
        .filter(|(_, p)| p.iter().any(|&b| b != 0))
        .map(|(i, p)| (i as u32, p))
        .collect()
}

/// The scan's three lists of `image`: (found, partial, encrypted).
fn scan_lists(
    image: &[u8],
    opts: &CarveOptions<'_>,
    threads: usize,
) -> (Vec<Found>, Vec<Found>, Vec<Found>) {
    let (mut all, mut partial, mut enc) = (Vec::new(), Vec::new(), Vec::new());
    carve::scan(image, 0, opts, &[], &Engine::new(threads), |p| {
        all.extend(p.found);
        partial.extend(p.partial);
        enc.extend(p.encrypted);
        Ok::<(), ()>(())
    })
    .unwrap();
    (all, partial, enc)
}

fn scan_all(image: &[u8], opts: &CarveOptions<'_>, threads: usize) -> Vec<Found> {
    scan_lists(image, opts, threads).0
}

fn carve(image: &[u8]) -> (Vec<Found>, Carved) {
    let found = scan_all(image, &CarveOptions::default(), 2);
    // The same pages on one thread.
    assert_eq!(found, scan_all(image, &CarveOptions::default(), 1));
    let carved = carve::group(found.clone(), None);
    (found, carved)
}

/// Plants `pages` into `image` from `at`, each `gap` bytes after the end
/// of the one before; returns (offset, page number) of each.
fn plant(image: &mut [u8], at: usize, gap: usize, pages: &[(u32, &[u8])]) -> Vec<(u64, u32)> {
    let mut off = at;
    let mut out = Vec::new();
    for (n, p) in pages {
        image[off..off + p.len()].copy_from_slice(p);
        out.push((off as u64, *n));
        off += p.len() + gap;
    }
    out
}

fn places(found: &[Found], space: u32) -> Vec<(u64, u32)> {
    let mut v: Vec<(u64, u32)> = found
        .iter()
        .filter(|f| f.space_id == SpaceId(space))
        .map(|f| (f.offset, f.page_no.0))
        .collect();
    v.sort();
    v
}

#[test]
fn planted_at_odd_offsets_in_noise_three_page_sizes() {
    // mysql56/ai_int: space 7, 16 KiB, innodb; mariadb1011-4k/ai_int:
    // 4 KiB full_crc32; mysql56/rf_compressed8: space 17, 8 KiB
    // compressed (fixtures/manifest.tsv).
    let a = fixture("mysql56/ai_int.ibd");
    let b = fixture("mariadb1011-4k/ai_int.ibd");
    let z = fixture("mysql56/rf_compressed8.ibd");
    let a_pages = written(&a, 16384);
    let b_pages = written(&b, 4096);
    let z_pages = written(&z, 8192);
    let mut image = ibdscope_testkit::noise(24 << 20, 7);
    let pa = plant(&mut image, 512 * 3, 512 * 5, &a_pages);
    let pb = plant(&mut image, (8 << 20) + 512 * 7, 512, &b_pages);
    let pz = plant(&mut image, (16 << 20) + 512 * 11, 512 * 3, &z_pages);
    let (found, carved) = carve(&image);
    let b_space = u32::from_be_bytes(b[34..38].try_into().unwrap());
    assert_eq!(places(&found, 7), pa);
    assert_eq!(places(&found, b_space), pb);
    assert_eq!(places(&found, 17), pz);
    assert_eq!(found.len(), pa.len() + pb.len() + pz.len());
    let sizes: Vec<(u32, u32, PageLayout)> = carved
        .spaces
        .iter()
        .map(|s| (s.space_id.0, s.page_size, s.layout))
        .collect();
    let mut want = vec![
        (7, 16384, PageLayout::Classic),
        (b_space, 4096, PageLayout::FullCrc32),
        (17, 8192, PageLayout::Zip),
    ];
    want.sort();
    assert_eq!(sizes, want);
    for s in &carved.spaces {
        assert!(s.has_page0() && s.mixed.is_none(), "space {}", s.space_id);
    }
}

#[test]
fn two_versions_of_one_page_newest_kept() {
    // mysql56-crc32/ai_int (crc32): page 3 planted as written, and again
    // with a newer LSN and its crc32 computed as the server computes it
    // (`buf_calc_page_crc32`, checksum.cc; LSN low word in the trailer,
    // fil0types.h).
    let f = fixture("mysql56-crc32/ai_int.ibd");
    let old = f[3 * 16384..4 * 16384].to_vec();
    let mut new = old.clone();
    let lsn = u64::from_be_bytes(old[16..24].try_into().unwrap()) + 1000;
    new[16..24].copy_from_slice(&lsn.to_be_bytes());
    new[16380..].copy_from_slice(&(lsn as u32).to_be_bytes());
    let c = page_crc32(&new);
    new[..4].copy_from_slice(&c.to_be_bytes());
    new[16376..16380].copy_from_slice(&c.to_be_bytes());
    let mut image = ibdscope_testkit::noise(1 << 20, 11);
    image[512 * 9..512 * 9 + 16384].copy_from_slice(&old);
    image[512 * 200..512 * 200 + 16384].copy_from_slice(&new);
    let (found, carved) = carve(&image);
    assert_eq!(found.len(), 2);
    let s = &carved.spaces[0];
    assert_eq!(s.pages.len(), 1);
    let p = &s.pages[0];
    assert_eq!(p.kept.page_no, PageNo(3));
    assert_eq!((p.kept.offset, p.kept.lsn), (512 * 200, Lsn(lsn)));
    assert_eq!(p.others.len(), 1);
    assert_eq!(p.others[0].offset, 512 * 9);
    // No page 0: the image would get a synthesized one, which verifies.
    assert!(!s.has_page0());
    let p0 = carve::synthesize_page0(s).unwrap();
    assert_eq!(
        ibdscope_core::space::verify_page(&p0, ibdscope_core::checksum::Scheme::Classic),
        ibdscope_core::Verdict::Valid(ibdscope_core::checksum::Algorithm::Crc32)
    );
}

#[test]
fn truncated_images_lose_only_the_cut_page() {
    let a = fixture("mysql56/ai_int.ibd");
    let pages = written(&a, 16384);
    let mut image = ibdscope_testkit::noise(pages.len() * 16384 + 4096, 3);
    let planted = plant(&mut image, 4096, 0, &pages);
    for cut in [16384usize, 8000, 512] {
        let end = image.len() - 4096 - cut;
        let (found, _) = carve(&image[..end]);
        // Every page wholly inside the cut image, none other.
        let want: Vec<(u64, u32)> = planted
            .iter()
            .copied()
            .filter(|(o, _)| *o as usize + 16384 <= end)
            .collect();
        assert_eq!(places(&found, 7), want, "cut {cut}");
        assert_eq!(found.len(), want.len());
    }
}

#[test]
fn sparse_copy_pages_put_back_together() {
    // A copy that left out each page's all-zero 4 KiB blocks (as mke2fs -d
    // does): the stored blocks one after the other.
    let a = fixture("mysql56/one_row.ibd");
    let mut image = ibdscope_testkit::noise(4096, 5);
    let mut want = Vec::new();
    for (n, p) in written(&a, 16384) {
        want.push((image.len() as u64, n));
        for blk in p.chunks(4096) {
            if blk.iter().any(|&b| b != 0) {
                image.extend_from_slice(blk);
            }
        }
    }
    image.extend(ibdscope_testkit::noise(8192, 6));
    let (found, carved) = carve(&image);
    assert_eq!(places(&found, 21), want);
    let s = &carved.spaces[0];
    assert!(s.is_whole(), "{s:?}");
}

#[test]
fn index_id_gathers_one_index() {
    // mysql56/secondary (space 13): three indexes; idx_k's pages only.
    let f = fixture("mysql56/secondary.ibd");
    let mut image = ibdscope_testkit::noise(512, 1);
    image.extend_from_slice(&f);
    let all = scan_all(&image, &CarveOptions::default(), 2);
    let ids: std::collections::BTreeSet<IndexId> = all.iter().filter_map(|f| f.index_id).collect();
    let second = *ids.iter().nth(1).unwrap();
    let mut opts = CarveOptions::default();
    opts.index_id = Some(second);
    let only = scan_all(&image, &opts, 2);
    // The index's pages, and the pages that say where the space's indexes
    // are (page 0, INODE: types 8 and 3, fil0fil.h).
    let want: Vec<Found> = all
        .iter()
        .copied()
        .filter(|f| f.index_id == Some(second) || matches!(f.page_type.0, 3 | 8))
        .collect();
    assert_eq!(only, want);
    let carved = carve::group(only, Some(second));
    assert_eq!(carved.spaces.len(), 1);
    let s = &carved.spaces[0];
    assert_eq!(s.space_id, SpaceId(13));
    assert_eq!(s.index_gathered, Some(second));
    assert_eq!(s.pages.len(), want.len());
    assert_eq!(s.indexes.len(), 1);
    assert!(s.indexes[0].complete() && s.mixed.is_none());
}

#[test]
fn noise_alone_gives_nothing() {
    let image = ibdscope_testkit::noise(8 << 20, 42);
    assert!(carve(&image).0.is_empty());
    let mut opts = CarveOptions::default();
    opts.unverified = true;
    assert!(scan_all(&image, &opts, 2).is_empty());
}

/// `page` with its crc32 written as the server writes it
/// (`buf_calc_page_crc32`, checksum.cc: in the header and the trailer).
fn restamp(mut page: Vec<u8>) -> Vec<u8> {
    let n = page.len();
    let c = page_crc32(&page);
    page[..4].copy_from_slice(&c.to_be_bytes());
    page[n - 8..n - 4].copy_from_slice(&c.to_be_bytes());
    page
}

#[test]
fn page0_versions_with_other_flags_are_mixed() {
    // mysql56-crc32/ai_int's page 0 (space 7, flags 0) and a page 0 of
    // the same id with DYNAMIC's flags (0x21, fixtures/manifest.tsv's
    // rf_dynamic) and a newer LSN: two tablespaces that shared the id.
    let f = fixture("mysql56-crc32/ai_int.ibd");
    let p0 = f[..16384].to_vec();
    let mut other = p0.clone();
    other[38 + 16..38 + 20].copy_from_slice(&0x21u32.to_be_bytes());
    let lsn = u64::from_be_bytes(p0[16..24].try_into().unwrap()) + 5;
    other[16..24].copy_from_slice(&lsn.to_be_bytes());
    other[16380..].copy_from_slice(&(lsn as u32).to_be_bytes());
    let other = restamp(other);
    let mut image = ibdscope_testkit::noise(64 * 1024, 9);
    image[512..512 + 16384].copy_from_slice(&p0);
    image[32768..32768 + 16384].copy_from_slice(&other);
    let (_, carved) = carve(&image);
    let s = &carved.spaces[0];
    assert_eq!(s.mixed, Some(carve::Mixed::Flags(vec![0, 0x21])));
    assert_eq!(s.flags, Some(0x21));
    assert!(!s.is_whole());
}

#[test]
fn unverified_takes_a_damaged_page_with_a_consistent_header() {
    let f = fixture("mysql56-crc32/ai_int.ibd");
    let mut page = f[3 * 16384..4 * 16384].to_vec();
    page[9000] ^= 0x40;
    let mut image = ibdscope_testkit::noise(64 * 1024, 13);
    image[1024..1024 + 16384].copy_from_slice(&page);
    assert!(carve(&image).0.is_empty());
    let mut opts = CarveOptions::default();
    opts.unverified = true;
    let found = scan_all(&image, &opts, 2);
    assert_eq!(found.len(), 1);
    assert_eq!((found[0].offset, found[0].page_no), (1024, PageNo(3)));
    assert_eq!(found[0].accepted, carve::Accepted::SelfConsistent);
}

/// `page` moved to space `space` (`FIL_PAGE_SPACE_ID`, and page 0's
/// `FSP_SPACE_ID`: fil0types.h, fsp0fsp.h), its crc32 written as the
/// server writes it.
fn with_space(page: &[u8], space: u32) -> Vec<u8> {
    let mut p = page.to_vec();
    p[34..38].copy_from_slice(&space.to_be_bytes());
    if u32::from_be_bytes(p[4..8].try_into().unwrap()) == 0 {
        p[38..42].copy_from_slice(&space.to_be_bytes());
    }
    restamp(p)
}

/// (page number, index id) of each page of `pages` that is an index page
/// (`FIL_PAGE_INDEX`, 17855; `PAGE_INDEX_ID` at 38 + 28, page0page.h).
fn index_ids(pages: &[(u32, &[u8])]) -> Vec<IndexId> {
    let mut ids: Vec<IndexId> = pages
        .iter()
        .filter(|(_, p)| u16::from_be_bytes([p[24], p[25]]) == 17855)
        .map(|(_, p)| IndexId(u64::from_be_bytes(p[66..74].try_into().unwrap())))
        .collect();
    ids.sort();
    ids.dedup();
    ids
}

#[test]
fn two_generations_of_one_space_id_told_apart_by_index_ids() {
    // mysql56/ai_int (space 7, index 23, LSNs 1643580..1992020) and
    // mysql56/seq_int (space 8, index 24, LSNs 1992066..2341704: a later
    // table of the same server; fixtures/manifest.tsv, indexes.tsv) put
    // under space id 7, as a space id used again by a later table: the
    // same page numbers, other index ids, later LSNs.
    let a = fixture("mysql56/ai_int.ibd");
    let b = fixture("mysql56/seq_int.ibd");
    let a_pages = written(&a, 16384);
    let b_moved: Vec<(u32, Vec<u8>)> = written(&b, 16384)
        .into_iter()
        .map(|(n, p)| (n, with_space(p, 7)))
        .collect();
    let b_pages: Vec<(u32, &[u8])> = b_moved.iter().map(|(n, p)| (*n, p.as_slice())).collect();
    let mut image = ibdscope_testkit::noise(2 << 20, 17);
    let pa = plant(&mut image, 512 * 5, 512 * 3, &a_pages);
    let pb = plant(&mut image, 1 << 20, 512, &b_pages);
    let (found, carved) = carve(&image);
    assert_eq!(found.len(), pa.len() + pb.len());
    assert_eq!(carved.spaces.len(), 2, "{carved:?}");
    for (s, (planted, pages)) in carved.spaces.iter().zip([(&pa, &a_pages), (&pb, &b_pages)]) {
        assert_eq!(s.space_id, SpaceId(7));
        assert!(s.by_index_ids);
        let mut got: Vec<(u64, u32)> = s
            .pages
            .iter()
            .map(|p| (p.kept.offset, p.kept.page_no.0))
            .collect();
        got.sort();
        assert_eq!(&got, planted, "instance {}", s.instance);
        assert!(s.pages.iter().all(|p| p.others.is_empty()));
        let ids: Vec<IndexId> = s.indexes.iter().map(|i| i.index_id).collect();
        assert_eq!(ids, index_ids(pages));
        assert!(s.is_whole(), "instance {}: {s:?}", s.instance);
    }
    assert_eq!(carved.spaces[0].indexes[0].index_id, IndexId(23));
    assert_eq!(carved.spaces[1].indexes[0].index_id, IndexId(24));
    assert!(carved.spaces[0].lsn_range.1 < carved.spaces[1].lsn_range.0);
}

#[test]
fn two_servers_files_of_one_space_id_and_index_id_are_mixed() {
    // mysql56-crc32/ai_int (MySQL 5.6, space 7, index 23, FSP flags 0)
    // and mariadb1011-crc32/ai_int (MariaDB, space 5, index 23, flags
    // 0x21; fixtures/manifest.tsv) put under space id 7: two servers'
    // files whose index ids are the same, so only page 0's flags tell
    // them apart: one space, reported mixed, the newest of each page kept.
    let a = fixture("mysql56-crc32/ai_int.ibd");
    let b = fixture("mariadb1011-crc32/ai_int.ibd");
    let a_pages = written(&a, 16384);
    let b_moved: Vec<(u32, Vec<u8>)> = written(&b, 16384)
        .into_iter()
        .map(|(n, p)| (n, with_space(p, 7)))
        .collect();
    let b_pages: Vec<(u32, &[u8])> = b_moved.iter().map(|(n, p)| (*n, p.as_slice())).collect();
    assert_eq!(index_ids(&a_pages), index_ids(&b_pages));
    let mut image = ibdscope_testkit::noise(2 << 20, 19);
    let pa = plant(&mut image, 512 * 7, 512, &a_pages);
    let pb = plant(&mut image, 1 << 20, 512 * 9, &b_pages);
    let (found, carved) = carve(&image);
    assert_eq!(found.len(), pa.len() + pb.len());
    assert_eq!(carved.spaces.len(), 1);
    let s = &carved.spaces[0];
    assert_eq!(s.mixed, Some(carve::Mixed::Flags(vec![0, 0x21])));
    assert!(!s.by_index_ids && !s.is_whole());
    // The MySQL file's LSNs are the larger (1643580.. against MariaDB's
    // 45579..259001): each page number its version kept, the other listed.
    for p in &s.pages {
        let n = p.kept.page_no.0;
        let in_a = pa.iter().find(|(_, m)| *m == n).map(|(o, _)| *o);
        let in_b = pb.iter().find(|(_, m)| *m == n).map(|(o, _)| *o);
        assert_eq!(Some(p.kept.offset), in_a.or(in_b), "page {n}");
        let others: Vec<u64> = p.others.iter().map(|o| o.offset).collect();
        assert_eq!(others, in_a.and(in_b).into_iter().collect::<Vec<_>>());
    }
}

/// Scans `image` for (found, partial).
fn scan_pieces(image: &[u8]) -> (Vec<Found>, Vec<Found>) {
    let (all, partial, _) = scan_lists(image, &CarveOptions::default(), 2);
    (all, partial)
}

#[test]
fn a_page_in_three_pieces_is_counted_by_its_header() {
    // mysql56/ai_int's index pages (space 7, 16 KiB: four 4 KiB blocks):
    // page 4 stored as a fragmented file's page may be, its blocks in
    // three places (1; 2; 3 and 4) with other bytes between; page 5 in
    // two pieces with noise, not zeros, between; the other pages whole.
    let a = fixture("mysql56/ai_int.ibd");
    let pages = written(&a, 16384);
    let mut image = ibdscope_testkit::noise(1 << 20, 23);
    let blk = |p: &[u8], i: usize| p[i * 4096..(i + 1) * 4096].to_vec();
    let p4 = pages.iter().find(|(n, _)| *n == 4).unwrap().1;
    let p5 = pages.iter().find(|(n, _)| *n == 5).unwrap().1;
    let at4 = 4096 * 3;
    image[at4..at4 + 4096].copy_from_slice(&blk(p4, 0));
    image[4096 * 6..4096 * 7].copy_from_slice(&blk(p4, 1));
    image[4096 * 9..4096 * 10].copy_from_slice(&blk(p4, 2));
    image[4096 * 10..4096 * 11].copy_from_slice(&blk(p4, 3));
    let at5 = 4096 * 20;
    image[at5..at5 + 8192].copy_from_slice(&p5[..8192]);
    image[4096 * 25..4096 * 27].copy_from_slice(&p5[8192..]);
    let whole: Vec<(u32, &[u8])> = pages
        .iter()
        .copied()
        .filter(|(n, _)| *n != 4 && *n != 5)
        .collect();
    let planted = plant(&mut image, 512 << 10, 512, &whole);
    let (found, partial) = scan_pieces(&image);
    assert_eq!(places(&found, 7), planted);
    let got: Vec<(u64, u32, Option<IndexId>)> = partial
        .iter()
        .map(|f| (f.offset, f.page_no.0, f.index_id))
        .collect();
    assert_eq!(
        got,
        vec![
            (at4 as u64, 4, Some(IndexId(23))),
            (at5 as u64, 5, Some(IndexId(23)))
        ]
    );
    assert!(partial
        .iter()
        .all(|f| f.accepted == carve::Accepted::HeaderOnly && f.space_id == SpaceId(7)));
    // Noise alone: no header.
    assert!(scan_pieces(&ibdscope_testkit::noise(4 << 20, 29))
        .1
        .is_empty());
}

/// Scans `image` for (found, encrypted).
fn scan_encrypted(image: &[u8]) -> (Vec<Found>, Vec<Found>) {
    let (all, _, enc) = scan_lists(image, &CarveOptions::default(), 2);
    (all, enc)
}

#[test]
fn encrypted_pages_without_the_key_are_counted() {
    // crypt/ctr/ai_int (MariaDB full_crc32, AES_CTR, space 7) and
    // crypt/crc32-ctr/ai_int (crc32, space 7; fixtures/crypt/manifest.tsv).
    let fc = fixture("crypt/ctr/ai_int.ibd");
    let cl = fixture("crypt/crc32-ctr/ai_int.ibd");
    let fc_pages = written(&fc, 16384);
    let cl_pages = written(&cl, 16384);
    let mut image = ibdscope_testkit::noise(1 << 20, 31);
    let pf = plant(&mut image, 512 * 3, 512, &fc_pages);
    let pc = plant(&mut image, 512 << 10, 512 * 3, &cl_pages);
    let (found, enc) = scan_encrypted(&image);
    // full_crc32: page 0 (not encrypted) found in its space; every other
    // page (a key version in bytes 0..4, the space id encrypted) counted
    // with its offset and page number.
    let fc_found: Vec<(u64, u32)> = found
        .iter()
        .filter(|f| f.layout == PageLayout::FullCrc32)
        .map(|f| (f.offset, f.page_no.0))
        .collect();
    assert_eq!(fc_found, pf[..1].to_vec());
    let got: Vec<(u64, u32)> = enc.iter().map(|f| (f.offset, f.page_no.0)).collect();
    assert_eq!(got, pf[1..].to_vec());
    assert!(enc.iter().all(|f| f.encrypted && f.len == 16384));
    // crc32: every page verifies (MariaDB's post-encryption checksum) and
    // goes to space 7, the encrypted ones without an index id.
    let cl_found: Vec<&Found> = found
        .iter()
        .filter(|f| f.layout == PageLayout::Classic)
        .collect();
    let places: Vec<(u64, u32)> = cl_found.iter().map(|f| (f.offset, f.page_no.0)).collect();
    assert_eq!(places, pc);
    for f in &cl_found {
        assert_eq!(f.space_id, SpaceId(7));
        assert_eq!(f.encrypted, f.page_no.0 != 0, "page {}", f.page_no);
        assert!(f.index_id.is_none());
    }
    // Noise alone: none.
    assert!(scan_encrypted(&ibdscope_testkit::noise(8 << 20, 41))
        .1
        .is_empty());
}

#[test]
fn mysql_keyring_pages_without_the_key_are_counted() {
    let Some(corpus) = ibdscope_testkit::corpus() else {
        return;
    };
    // A Percona 8.0 ENCRYPTION='Y' file (corpus MANIFEST.md: pages 3+ of
    // type 15, FIL_PAGE_ENCRYPTED).
    let f = std::fs::read(corpus.join("percona-8.0/percona80_encrypted_secret_data.ibd")).unwrap();
    let pages = written(&f, 16384);
    let want: Vec<(u64, u32)> = {
        let mut image = ibdscope_testkit::noise(1 << 20, 37);
        let planted = plant(&mut image, 512 * 5, 512, &pages);
        let (found, enc) = scan_encrypted(&image);
        let kinds: Vec<u16> = pages
            .iter()
            .map(|(_, p)| u16::from_be_bytes([p[24], p[25]]))
            .collect();
        let encrypted: Vec<(u64, u32)> = planted
            .iter()
            .zip(&kinds)
            .filter(|(_, k)| **k == 15)
            .map(|(p, _)| *p)
            .collect();
        assert!(!encrypted.is_empty());
        let got: Vec<(u64, u32)> = enc.iter().map(|f| (f.offset, f.page_no.0)).collect();
        assert_eq!(got, encrypted);
        assert!(enc.iter().all(|f| f.encrypted && f.space_id == SpaceId(37)));
        // The pages not encrypted (page 0 and the others of other types)
        // are found as before.
        assert_eq!(found.len() + enc.len(), planted.len());
        encrypted
    };
    assert!(!want.is_empty());
}

fn test_keys() -> ibdscope_core::crypt::mariadb::KeyFile {
    let text = fixture("keys/test-keys.txt");
    ibdscope_core::crypt::mariadb::KeyFile::parse(&text, b"").unwrap()
}

fn with_keys<'a>(
    key_file: Option<&'a ibdscope_core::crypt::mariadb::KeyFile>,
    keyring: Option<&'a ibdscope_core::crypt::keyring::Keyring>,
) -> CarveOptions<'a> {
    let mut o = CarveOptions::default();
    o.key_file = key_file;
    o.keyring = keyring;
    o
}

/// Scans `image`, then decrypts with `keys`: (found, encrypted left).
fn scan_decrypted(image: &[u8], keys: &CarveOptions<'_>) -> (Vec<Found>, Vec<Found>) {
    let (mut found, mut enc) = scan_encrypted(image);
    carve::decrypt(&mut found, &mut enc, &[image], keys);
    (found, enc)
}

#[test]
fn encrypted_pages_with_the_key_file_are_decrypted_and_grouped() {
    // crypt/ctr/ai_int (MariaDB full_crc32, AES_CTR, space 7) and
    // crypt/crc32-cbc/ai_int (crc32, AES_CBC, space 7), both key id 2 of
    // fixtures/keys (fixtures/crypt/manifest.tsv): two spaces of one id,
    // told apart by layout; with the key every page is in its space, the
    // index pages with their index, each leaf chain whole.
    let fc = fixture("crypt/ctr/ai_int.ibd");
    let cl = fixture("crypt/crc32-cbc/ai_int.ibd");
    let fc_pages = written(&fc, 16384);
    let cl_pages = written(&cl, 16384);
    let mut image = ibdscope_testkit::noise(2 << 20, 43);
    let pf = plant(&mut image, 512 * 3, 512 * 5, &fc_pages);
    let pc = plant(&mut image, 1 << 20, 512, &cl_pages);
    let keys = test_keys();
    let (found, enc) = scan_decrypted(&image, &with_keys(Some(&keys), None));
    assert!(enc.is_empty(), "{enc:?}");
    let carved = carve::group(found, None);
    assert_eq!(carved.spaces.len(), 2, "{carved:?}");
    for (s, (planted, layout)) in carved
        .spaces
        .iter()
        .zip([(&pc, PageLayout::Classic), (&pf, PageLayout::FullCrc32)])
    {
        assert_eq!((s.space_id, s.layout), (SpaceId(7), layout));
        let got: Vec<(u64, u32)> = s
            .pages
            .iter()
            .map(|p| (p.kept.offset, p.kept.page_no.0))
            .collect();
        assert_eq!(&got, planted, "{layout:?}");
        // Every page but page 0 was stored encrypted.
        assert!(s
            .pages
            .iter()
            .all(|p| p.kept.encrypted == (p.kept.page_no.0 != 0)));
        assert_eq!(s.indexes.len(), 1, "{layout:?}");
        assert!(s.is_whole(), "{layout:?}: {s:?}");
    }
    let fc_accepted = &carved.spaces[1].pages[1].kept.accepted;
    assert_eq!(
        *fc_accepted,
        carve::Accepted::Decrypted(ibdscope_core::checksum::Algorithm::FullCrc32)
    );
    // Without the key: the full_crc32 pages counted, not grouped.
    let (_, enc) = scan_decrypted(&image, &CarveOptions::default());
    assert_eq!(enc.len(), pf.len() - 1);
}

#[test]
fn mysql_keyring_pages_with_the_keyring_are_decrypted_and_grouped() {
    let Some(corpus) = ibdscope_testkit::corpus() else {
        return;
    };
    // A Percona 8.0 ENCRYPTION='Y' file and its server's keyring (corpus
    // MANIFEST.md: space 37, pages 3+ of type 15, FIL_PAGE_ENCRYPTED).
    let f = std::fs::read(corpus.join("percona-8.0/percona80_encrypted_secret_data.ibd")).unwrap();
    let ring = std::fs::read(corpus.join("percona-8.0/percona80_keyring_file")).unwrap();
    let ring = ibdscope_core::crypt::keyring::Keyring::parse(&ring).unwrap();
    let pages = written(&f, 16384);
    let mut image = ibdscope_testkit::noise(1 << 20, 47);
    let planted = plant(&mut image, 512 * 7, 512 * 3, &pages);
    let (found, enc) = scan_decrypted(&image, &with_keys(None, Some(&ring)));
    assert!(enc.is_empty(), "{enc:?}");
    let carved = carve::group(found, None);
    assert_eq!(carved.spaces.len(), 1);
    let s = &carved.spaces[0];
    assert_eq!(s.space_id, SpaceId(37));
    let got: Vec<(u64, u32)> = s
        .pages
        .iter()
        .map(|p| (p.kept.offset, p.kept.page_no.0))
        .collect();
    assert_eq!(got, planted);
    let decrypted = s
        .pages
        .iter()
        .filter(|p| matches!(p.kept.accepted, carve::Accepted::Decrypted(_)))
        .count();
    let stored_encrypted = pages
        .iter()
        .filter(|(_, p)| u16::from_be_bytes([p[24], p[25]]) == 15)
        .count();
    assert_eq!(decrypted, stored_encrypted);
    // The clustered index and the SDI, their leaf chains whole.
    assert!(s.indexes.len() >= 2 && s.indexes.iter().any(|i| i.sdi));
    assert!(s.is_whole(), "{s:?}");
}

/// A member of a committed `.tar.gz` fixture, in memory.
fn tar_member(archive: &str, member: &str) -> Vec<u8> {
    let gz = fixture(archive);
    let mut tar = Vec::new();
    ibdscope_codec::inflate::inflate_raw(ibdscope_testkit::gzip_deflate(&gz), &mut tar, 1 << 30)
        .unwrap();
    ibdscope_testkit::tar_members(&tar)
        .into_iter()
        .find(|(p, _)| p.ends_with(member))
        .unwrap_or_else(|| panic!("{member} not in {archive}"))
        .1
        .to_vec()
}

#[test]
fn the_space_map_keeps_the_roots_of_a_dropped_table() {
    // MySQL 5.6, innodb_file_per_table=0, fx/t_dropped dropped: its two
    // indexes' roots (index 23 at page 322, index 24 at page 324: the
    // server's dictionary before the DROP, fixtures/dropped/indexes.tsv)
    // stay in ibdata1 with their extents and segments freed. The space
    // map takes neither as a root and keeps both as freed roots, which a
    // definition's reader takes when the map holds no root of its index.
    let ibdata1 = tar_member("dropped/mysql56-dropped.tar.gz", "ibdata1");
    let ts = ibdscope_core::Tablespace::new(&ibdata1).unwrap();
    let map = ibdscope_core::extents::SpaceMap::build(&ts, &Engine::new(2));
    let want: Vec<(IndexId, PageNo)> =
        ibdscope_testkit::tsv(&ibdscope_testkit::fixtures().join("dropped/indexes.tsv"))
            .iter()
            .filter(|r| r["table"] == "fx/t_dropped")
            .map(|r| {
                (
                    IndexId(r["index_id"].parse().unwrap()),
                    PageNo(r["root"].parse().unwrap()),
                )
            })
            .collect();
    assert_eq!(want.len(), 2);
    assert!(map
        .indexes
        .iter()
        .all(|i| want.iter().all(|w| w.0 != i.index_id)));
    assert_eq!(map.freed_roots, want);
}

/// The FSP_SPACE_FLAGS on page 0 of a MariaDB space whose flags the
/// manifest gives as the server's `fil_space_t::flags`: without the
/// memory-only bits (MariaDB 10.11 `storage/innobase/include/fsp0types.h`:
/// `FSP_FLAGS_MEM_MASK`, `~0U << FSP_FLAGS_MEM_DATA_DIR`, 27).
fn on_disk(flags: u32) -> u32 {
    flags & !(!0u32 << 27)
}

/// (offset, page number) of the versions kept in `s`, by offset.
fn kept_places(s: &carve::CarvedSpace) -> Vec<(u64, u32)> {
    let mut v: Vec<(u64, u32)> = s
        .pages
        .iter()
        .map(|p| (p.kept.offset, p.kept.page_no.0))
        .collect();
    v.sort();
    v
}

#[test]
fn two_real_files_of_one_space_id_other_index_ids_are_two_instances() {
    // Two servers' files that share space id 7, 16 KiB pages and the
    // classic layout, as written (fixtures/manifest.tsv): mysql56-crc32/
    // ai_int (MySQL 5.6, FSP flags 0, index 23, LSNs 1643580..1887007)
    // and mariadb1011-crc32/pagecomp (MariaDB 10.11 page_compressed, flags
    // 0x60010021, index 25, LSNs 972589..1200035). Their index pages share
    // page numbers under other index ids: two instances, each with its
    // own pages and page 0, neither mixed.
    let a = fixture("mysql56-crc32/ai_int.ibd");
    let b = fixture("mariadb1011-crc32/pagecomp.ibd");
    let a_pages = written(&a, 16384);
    let b_pages = written(&b, 16384);
    let mut image = ibdscope_testkit::noise(3 << 20, 53);
    let pa = plant(&mut image, 512 * 9, 512 * 7, &a_pages);
    let pb = plant(&mut image, (3 << 19) + 512 * 3, 512, &b_pages);
    let (found, carved) = carve(&image);
    assert_eq!(found.len(), pa.len() + pb.len());
    assert_eq!(carved.spaces.len(), 2, "{carved:?}");
    // Instances in order of their index pages' first LSN: MariaDB's first.
    let (sb, sa) = (&carved.spaces[0], &carved.spaces[1]);
    assert_eq!(kept_places(sa), pa);
    assert_eq!(kept_places(sb), pb);
    for (s, flags, id) in [(sa, 0, 23), (sb, on_disk(0x6001_0021), 25)] {
        assert_eq!(s.space_id, SpaceId(7));
        assert!(s.by_index_ids && s.mixed.is_none(), "{s:?}");
        assert_eq!(s.flags, Some(flags));
        let ids: Vec<IndexId> = s.indexes.iter().map(|i| i.index_id).collect();
        assert_eq!(ids, [IndexId(id)]);
        assert!(s.is_whole(), "{s:?}");
    }
}

#[test]
fn two_real_files_of_one_space_id_and_index_id_overlapping_lsns_are_mixed() {
    // mariadb1011-crc32/ai_int (space 5, FSP flags 0x21, index 23, LSNs
    // 45579..259001) and mariadb1011-pc-crc32/pc_lz4 (space 5, flags
    // 0x60010021, index 23, LSNs 45753..225200; fixtures/manifest.tsv):
    // two servers' first tables, same space id, index id and layout, LSN
    // ranges overlapping. Nothing in an index page tells them apart: one
    // space, `mixed` by page 0's flags, the newest version of each page
    // number kept and the other listed.
    let a = fixture("mariadb1011-crc32/ai_int.ibd");
    let b = fixture("mariadb1011-pc-crc32/pc_lz4.ibd");
    let a_pages = written(&a, 16384);
    let b_pages = written(&b, 16384);
    let mut image = ibdscope_testkit::noise(3 << 20, 59);
    let pa = plant(&mut image, 512 * 5, 512 * 3, &a_pages);
    let pb = plant(&mut image, (3 << 19) + 512 * 11, 512, &b_pages);
    let (found, carved) = carve(&image);
    assert_eq!(found.len(), pa.len() + pb.len());
    assert_eq!(carved.spaces.len(), 1, "{carved:?}");
    let s = &carved.spaces[0];
    assert_eq!(s.space_id, SpaceId(5));
    assert_eq!(
        s.mixed,
        Some(carve::Mixed::Flags(vec![0x21, on_disk(0x6001_0021)]))
    );
    assert!(!s.by_index_ids && !s.is_whole());
    let lsn = |p: &[u8]| u64::from_be_bytes(p[16..24].try_into().unwrap());
    for p in &s.pages {
        let n = p.kept.page_no.0;
        let va = a_pages.iter().position(|(m, _)| *m == n);
        let vb = b_pages.iter().position(|(m, _)| *m == n);
        // The version kept: the newer LSN's (the written page's header).
        let newest = match (va, vb) {
            (Some(i), Some(j)) if lsn(b_pages[j].1) > lsn(a_pages[i].1) => pb[j].0,
            (Some(i), _) => pa[i].0,
            (None, Some(j)) => pb[j].0,
            (None, None) => unreachable!(),
        };
        assert_eq!(p.kept.offset, newest, "page {n}");
        assert_eq!(p.others.len(), usize::from(va.is_some() && vb.is_some()));
    }
}

#[test]
fn three_versions_the_newest_that_verifies_kept() {
    // mysql56-crc32/ai_int's page 3 as written (LSN L), a newer copy
    // (L + 1000) with its crc32 as the server computes it, and a newest
    // one (L + 2000) damaged after its checksum: with `--unverified` all
    // three are found; the newest that verifies is kept, the others
    // listed newest first.
    let f = fixture("mysql56-crc32/ai_int.ibd");
    let old = f[3 * 16384..4 * 16384].to_vec();
    let lsn0 = u64::from_be_bytes(old[16..24].try_into().unwrap());
    let at_lsn = |lsn: u64| {
        let mut p = old.clone();
        p[16..24].copy_from_slice(&lsn.to_be_bytes());
        p[16380..].copy_from_slice(&(lsn as u32).to_be_bytes());
        restamp(p)
    };
    let newer = at_lsn(lsn0 + 1000);
    let mut newest = at_lsn(lsn0 + 2000);
    newest[9000] ^= 0x40;
    let mut image = ibdscope_testkit::noise(1 << 20, 61);
    let places = [512 * 3, 512 * 100, 512 * 301];
    for (at, p) in places.iter().zip([&newest, &old, &newer]) {
        image[*at..*at + 16384].copy_from_slice(p);
    }
    let mut opts = CarveOptions::default();
    opts.unverified = true;
    let found = scan_all(&image, &opts, 2);
    assert_eq!(found.len(), 3);
    let carved = carve::group(found, None);
    let p = &carved.spaces[0].pages[0];
    assert_eq!(p.kept.page_no, PageNo(3));
    assert_eq!(
        (p.kept.offset, p.kept.lsn),
        (places[2] as u64, Lsn(lsn0 + 1000))
    );
    let others: Vec<(u64, Lsn, carve::Accepted)> = p
        .others
        .iter()
        .map(|o| (o.offset, o.lsn, o.accepted))
        .collect();
    assert_eq!(
        others,
        [
            (
                places[0] as u64,
                Lsn(lsn0 + 2000),
                carve::Accepted::SelfConsistent
            ),
            (
                places[1] as u64,
                Lsn(lsn0),
                carve::Accepted::Verifies(ibdscope_core::checksum::Algorithm::Crc32)
            ),
        ]
    );
}
