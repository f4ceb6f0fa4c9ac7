//! One ROW_FORMAT=COMPRESSED index page of arbitrary bytes
//! (crates/ibdscope/src/zip.rs): `zip::decompress` at every compressed and
//! logical page size, then, when it succeeds, the user and free record
//! chains and the whole-page analysis of the rebuilt page
//! (`record.rs`). None may panic; a damaged page is an error with an
//! offset. The first byte picks the sizes: bits 0–2 the compressed size
//! (1K, 2K, 4K, 8K, 16K), bits 3–4 the logical size (4K, 8K, 16K, 16K);
//! the rest is cut or zero-padded to the compressed size.

#![no_main]

use ibdscope_core::record::{RecPage, RecScratch, Visited};
use ibdscope_schema::zip::decompress;
use libfuzzer_sys::fuzz_target;
use std::hint::black_box;

const PHYSICAL: [usize; 5] = [1024, 2048, 4096, 8192, 16384];
const LOGICAL: [usize; 4] = [4096, 8192, 16384, 16384];

fuzz_target!(|data: &[u8]| {
    let Some((&ctl, rest)) = data.split_first() else {
        return;
    };
    let physical = PHYSICAL[usize::from(ctl & 7) % PHYSICAL.len()];
    let logical = LOGICAL[usize::from(ctl >> 3 & 3)];
    let mut page = vec![0u8; physical];
    let n = rest.len().min(physical);
    page[..n].copy_from_slice(&rest[..n]);
    let mut out = Vec::new();
    // The raw bytes too (any length, any logical size).
    black_box(decompress(rest, logical, &mut out).is_ok());
    let Ok(info) = decompress(&page, logical, &mut out) else {
        return;
    };
    assert_eq!(out.len(), logical);
    black_box(info);
    let Some(rp) = RecPage::new(&out, logical as u32) else {
        return;
    };
    let mut visited = Visited::new();
    if let Some(mut it) = rp.records(&mut visited) {
        while let Ok(Some(rec)) = it.next() {
            black_box(rec.size(&out));
        }
    }
    if let Some(mut it) = rp.free_records(&mut visited) {
        while let Ok(Some(rec)) = it.next() {
            black_box(rec.size(&out));
        }
    }
    let mut scratch = RecScratch::default();
    let mut findings = Vec::new();
    black_box(rp.analyse(&mut scratch, &mut findings));
});
