//! The records of one INDEX page of arbitrary bytes (crates/ibdscope/src/
//! record.rs): the user and free chain walks, every record's header and
//! fields, the directory slots, the whole-page analysis, and the record
//! extents and byte map (crates/ibdscope/src/layout.rs). None may panic,
//! every walk must end within its bound, and the byte map must cover the
//! page exactly.
//!
//! The first input byte is a control byte: bits 0..=2 pick the physical
//! page size (index into `PAGE_SIZES`, 7 wraps to 1K); bit 3 makes the
//! logical size 16K when the physical one is smaller (a ROW_FORMAT=
//! COMPRESSED page). The rest is the page, cut or zero-padded to the size;
//! the rest as it is (any length) is tried too.

#![no_main]

use ibdscope_core::layout::{ByteClass, PageLayout};
use ibdscope_core::record::{RecPage, RecScratch, Visited};
use ibdscope_core::space::PAGE_SIZES;
use libfuzzer_sys::fuzz_target;
use std::hint::black_box;

fn walk(rp: &RecPage<'_>, visited: &mut Visited, free: bool) {
    let it = if free {
        rp.free_records(visited)
    } else {
        rp.records(visited)
    };
    let Some(mut it) = it else {
        return;
    };
    let page = rp.bytes();
    let limit = it.limit();
    let mut n = 0u32;
    loop {
        match it.next() {
            Ok(Some(rec)) => {
                n += 1;
                assert!(n <= limit.saturating_add(1), "walk past its bound {limit}");
                black_box((rec.is_user(), rec.data_size(page), rec.size(page)));
                black_box((rec.fields_ascend(page), rec.child_page(page)));
                black_box(rec.fields(page).count());
                black_box(rec.field(page, u16::MAX));
            }
            Ok(None) => break,
            Err(e) => {
                black_box(e);
                // After an error the walk is over.
                assert!(matches!(it.next(), Ok(None)), "walk went on after an error");
                break;
            }
        }
    }
    black_box(it.steps());
}

fn one(bytes: &[u8], logical: u32, visited: &mut Visited, scratch: &mut RecScratch) {
    let Some(rp) = RecPage::new(bytes, logical) else {
        return;
    };
    black_box((
        rp.format(),
        rp.is_compressed(),
        rp.is_leaf(),
        rp.heap_limit(),
    ));
    black_box((rp.infimum(), rp.supremum(), rp.dir_low()));
    let n_slots = rp.header().n_dir_slots();
    for slot_idx in [
        0,
        1,
        n_slots / 2,
        n_slots.saturating_sub(1),
        n_slots,
        u16::MAX,
    ] {
        black_box(rp.dir_slot_offset(slot_idx));
        if let Some(origin) = rp.dir_slot(slot_idx) {
            black_box(rp.record_at(origin));
        }
    }
    walk(&rp, visited, false);
    walk(&rp, visited, true);
    let mut out = Vec::new();
    let recs = rp.analyse(scratch, &mut out);
    black_box((recs.n_recs(), recs.record_bytes(), recs.counts().is_some()));
    black_box(out.len());
    let mut layout = PageLayout::new();
    layout.read(&rp, visited);
    if let Some(mut it) = rp.records(visited) {
        while let Ok(Some(rec)) = it.next() {
            let e = layout.extent(&rp, &rec);
            assert!(e.start <= e.origin && e.origin <= e.end, "extent {e:?}");
        }
    }
    let map = layout.byte_map(&rp);
    let total: u64 = ByteClass::ALL.iter().map(|&c| u64::from(map.bytes(c))).sum();
    assert_eq!(total, u64::from(rp.logical_size()), "byte map does not cover the page");
    assert_eq!(map.cells(64).count(), 64);
}

fuzz_target!(|input: &[u8]| {
    let Some((&ctl, rest)) = input.split_first() else {
        return;
    };
    let physical = PAGE_SIZES[usize::from(ctl & 7) % PAGE_SIZES.len()];
    let logical = if ctl & 8 != 0 {
        physical.max(16384)
    } else {
        physical
    };
    let mut page = rest.to_vec();
    page.resize(physical as usize, 0);
    let mut visited = Visited::new();
    let mut scratch = RecScratch::default();
    one(&page, logical, &mut visited, &mut scratch);
    one(rest, logical, &mut visited, &mut scratch);
    for size in [4096, 16384, 65536] {
        one(rest, size, &mut visited, &mut scratch);
    }
});
