//! A whole tablespace of arbitrary bytes: detection (`Tablespace::new`, and
//! `with_options` with a forced page size as `--page-size` gives), the
//! one-pass `Summary`, the `SpaceMap` with its bounded list walks, the
//! B-tree walk (`Btrees`) and each page's records, and the per-page calls
//! the commands make. None may panic or run unbounded.
//!
//! The first input byte is a control byte; the rest is the file:
//! - bits 0..=2: a page size to force (index into `PAGE_SIZES`; 7 = detect);
//! - bits 3..=4: re-seal every page of that size before parsing (0: no;
//!   1: crc32; 2: full_crc32; 3: zip crc32), so that mutations of the
//!   structure fields are not all stopped by a checksum mismatch;
//! - bit 5: also open with detection when a size is forced.

#![no_main]

use ibdscope_core::checksum::{self, Verdict};
use ibdscope_core::record::{RecPage, RecScratch};
use ibdscope_core::space::PAGE_SIZES;
use ibdscope_core::{Btrees, Engine, Options, PageNo, SpaceMap, Summary, Tablespace, VendorGuess};
use libfuzzer_sys::fuzz_target;
use std::hint::black_box;

fn reseal(data: &mut [u8], size: usize, how: u8) {
    for page in data.chunks_exact_mut(size) {
        let n = page.len();
        match how {
            1 => {
                let c = checksum::page_crc32(page).to_be_bytes();
                page[..4].copy_from_slice(&c);
                page[n - 8..n - 4].copy_from_slice(&c);
            }
            2 => {
                let covered = checksum::full_crc32_size(page).map_or(n, |(s, _)| s);
                let Some(at) = covered.checked_sub(4) else {
                    continue;
                };
                let c = checksum::full_crc32(&page[..covered]).to_be_bytes();
                page[at..covered].copy_from_slice(&c);
            }
            3 => {
                let c = checksum::zip_crc32(page, false).to_be_bytes();
                page[..4].copy_from_slice(&c);
            }
            _ => {}
        }
    }
}

fn exercise(ts: &Tablespace<'_>) {
    let s = Summary::of(ts, &Engine::default());
    black_box((s.main_algorithm(), s.valid(), s.is_clean()));
    black_box(VendorGuess::infer(ts.format(), |t| s.has_type(t)));
    for b in &s.bad {
        black_box(b.findings.iter().map(|f| f.kind.to_string()).count());
    }
    let map = SpaceMap::build(ts, &Engine::default());
    assert_eq!(map.owners(ts).len(), ts.n_pages() as usize);
    for o in map.owners(ts) {
        black_box(o);
    }
    for f in &map.findings {
        black_box(f.kind.to_string());
    }
    black_box((map.segments.len(), map.indexes.len(), map.lists.len()));
    // The B-tree walk over the map's indexes, and each page's records.
    let trees = Btrees::build(ts, &Engine::default(), &map);
    for f in &trees.findings {
        black_box(f.kind.to_string());
    }
    // Levels proven whole by the lane walk give what the exact walk gives.
    let mut exact = Btrees::build_with_leaf_chains(ts, &Engine::default(), &map);
    for t in &mut exact.indexes {
        t.leaf_chain.clear();
    }
    assert_eq!(trees.indexes, exact.indexes);
    assert_eq!(trees.findings, exact.findings);
    black_box(trees.indexes.len());
    let mut scratch = RecScratch::default();
    let mut out = Vec::new();
    for n in 0..ts.n_pages().min(64) {
        if let Ok(rp) = RecPage::of(ts, PageNo(n)) {
            out.clear();
            black_box(rp.analyse(&mut scratch, &mut out).n_recs());
        }
    }
    // What `pages --from/--to` and `check` call per page.
    let n = ts.n_pages();
    black_box(ts.scan_range(n / 2, n.saturating_add(3)).count());
    black_box(ts.scan_range(u32::MAX - 1, u32::MAX).count());
    for p in [0, 1, 2, 3, n / 2, n.saturating_sub(1), n] {
        black_box(ts.is_free(PageNo(p)));
        black_box(map.owner(ts, PageNo(p)));
    }
    black_box(ts.tail());
    black_box(ts.scan().filter(|f| f.verdict == Verdict::Mismatch).count());
}

fuzz_target!(|input: &[u8]| {
    let Some((&ctl, rest)) = input.split_first() else {
        return;
    };
    let size_idx = usize::from(ctl & 7);
    let forced = PAGE_SIZES.get(size_idx).copied();
    let mut data = rest.to_vec();
    if let Some(size) = forced {
        reseal(&mut data, size as usize, ctl >> 3 & 3);
    }
    if forced.is_none() || ctl & 0x20 != 0 {
        if let Ok(ts) = Tablespace::new(&data) {
            exercise(&ts);
        }
    }
    if let Some(size) = forced {
        let opts = Options::default().with_page_size(Some(size));
        if let Ok(ts) = Tablespace::with_options(&data, opts) {
            assert_eq!(ts.page_size(), size);
            exercise(&ts);
        }
    }
});
