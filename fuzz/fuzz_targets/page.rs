//! One page of arbitrary bytes at every page size: the FIL header and
//! trailer views, every checksum algorithm and verdict, the per-page facts,
//! and the structure views a page can hold (FSP header and flags, XDES
//! entries, INODE entries, INDEX header and fill). None may panic.

#![no_main]

use ibdscope_core::checksum::{self, Scheme};
use ibdscope_core::fil::{FilHeader, FilTrailer};
use ibdscope_core::fsp::{FspFlags, FspHeader};
use ibdscope_core::index::IndexHeader;
use ibdscope_core::inode::{inode_index, inodes_per_page, InodeEntry};
use ibdscope_core::space::{page_facts, verify_page, PAGE_SIZES};
use ibdscope_core::xdes::XdesEntry;
use ibdscope_core::{PageNo, SpaceId, TypeNames};
use libfuzzer_sys::fuzz_target;
use std::hint::black_box;

const SCHEMES: [Scheme; 3] = [Scheme::Classic, Scheme::Zip, Scheme::FullCrc32];

fn one(page: &[u8], physical: Option<u32>) {
    for scheme in SCHEMES {
        black_box(verify_page(page, scheme));
        let facts = page_facts(page, PageNo(3), scheme);
        black_box(facts.problems(SpaceId(7)).count());
        black_box(checksum::lsn_pair(page, scheme));
    }
    black_box((
        checksum::page_crc32(page),
        checksum::page_crc32_legacy_big_endian(page),
        checksum::page_innodb_new(page),
        checksum::page_innodb_old(page),
        checksum::zip_crc32(page, false),
        checksum::zip_crc32(page, true),
        checksum::zip_adler32(page),
        checksum::full_crc32(page),
        checksum::full_crc32_size(page),
        checksum::verify_mariadb_crypt(page, false),
        checksum::verify_mariadb_crypt(page, true),
    ));
    if let Some(h) = FilHeader::new(page) {
        let t = h.page_type();
        for names in [TypeNames::Classic, TypeNames::MySql8] {
            black_box((t.name(names), t.counted(names), t.is_index(names)));
            black_box(t.display(names).to_string());
        }
        black_box((h.original_type(), h.key_version(), h.flush_lsn()));
    }
    black_box(FilTrailer::new(page));
    if let Some(fsp) = FspHeader::new(page) {
        let flags = fsp.flags();
        for f in flags.interpretations() {
            black_box((f.extent_size(), f.is_zip()));
        }
        black_box((fsp.size(), fsp.free_limit(), fsp.frag_n_used()));
    }
    // The structure views at the (physical, logical) pairs a space of this
    // page size can have (logical 16K: ROW_FORMAT=COMPRESSED).
    if let Some(physical) = physical {
        for logical in [physical, physical.max(16384)] {
            let extent = ibdscope_core::fsp::extent_size(logical);
            for idx in 0..physical.checked_div(extent).unwrap_or(0).min(256) {
                let Some(x) = XdesEntry::new(page, idx, extent) else {
                    break;
                };
                black_box((x.seg_id(), x.state(), x.node(), x.n_used(extent)));
                black_box(x.is_free(extent));
            }
            for idx in 0..inodes_per_page(physical, logical) {
                let Some(e) = InodeEntry::new(page, idx, physical, logical) else {
                    break;
                };
                black_box((e.seg_id(), e.free(), e.not_full(), e.full(), e.magic_ok()));
                black_box(e.frag_pages().count());
                let off = u16::try_from(e.page_offset()).unwrap_or(u16::MAX);
                assert_eq!(inode_index(off, physical, logical), Some(idx));
            }
        }
    }
    if let Some(h) = IndexHeader::new(page) {
        for compressed in [false, true] {
            let fill = h.usage(16384, compressed);
            black_box(fill.fill());
        }
        black_box((h.data_size(), h.seg_leaf(), h.seg_top(), h.infimum()));
    }
}

fuzz_target!(|data: &[u8]| {
    // The bytes as they are (any length)…
    one(data, None);
    // …and as a page of every supported size (cut, or padded with zeroes).
    let first = data.first().copied().unwrap_or(0);
    let size = PAGE_SIZES[usize::from(first) % PAGE_SIZES.len()] as usize;
    let mut page = data.get(1..).unwrap_or(&[]).to_vec();
    page.resize(size, 0);
    one(&page, u32::try_from(size).ok());
    let _ = FspFlags(u32::from_be_bytes([first, 0, 0, first]))
        .interpretations()
        .count();
});
