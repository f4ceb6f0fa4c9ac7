//! MariaDB page_compressed pages (`ibdscope_core::pagecomp`): one page of
//! arbitrary bytes decompressed under both layouts, and a whole space
//! expanded into its logical image, which the structure code then reads
//! (`SpaceMap`, `Btrees`, each page's records). None may panic or run
//! unbounded; a decompressed page is exactly one page long.
//!
//! The first input byte is a control byte; the rest is the page or file:
//! - bit 7 clear: one page. Bits 0..=2 pick the page size (index into
//!   `PAGE_SIZES`; the rest is cut or zero-padded to it), bits 3..=5 the
//!   full_crc32 algorithm number (0..7);
//! - bit 7 set: a whole file, opened with detection (bit 0 clear) or with
//!   16K pages forced (bit 0 set), on 1 or 3 threads (bit 1); with bit 2
//!   set, every full_crc32 page_compressed page is re-sealed (its CRC-32C
//!   over its stored size) so that mutations reach the decoder.

#![no_main]

use ibdscope_core::checksum;
use ibdscope_core::pagecomp::{self, Layout};
use ibdscope_core::record::{RecPage, RecScratch};
use ibdscope_core::space::PAGE_SIZES;
use ibdscope_core::{Btrees, Engine, Options, PageNo, SpaceMap, Tablespace};
use libfuzzer_sys::fuzz_target;
use std::hint::black_box;

fn one_page(ctl: u8, rest: &[u8]) {
    let size = PAGE_SIZES
        .get(usize::from(ctl & 7))
        .copied()
        .unwrap_or(16384) as usize;
    let mut page = rest.to_vec();
    page.resize(size, 0);
    let mut out = Vec::new();
    for layout in [
        Layout::Classic,
        Layout::FullCrc32 {
            algorithm: ctl >> 3 & 7,
        },
    ] {
        black_box(layout.is_compressed(&page));
        match pagecomp::decompress(&page, layout, &mut out) {
            Ok(Some(d)) => {
                assert_eq!(out.len(), size);
                assert!(d.header <= size && d.payload <= size);
            }
            Ok(None) => assert!(out.is_empty()),
            Err(e) => {
                assert!(out.is_empty());
                assert!(e.page_offset().unwrap_or(0) <= size, "{e:?}");
                black_box(e.to_string());
            }
        }
        // The raw bytes, any length.
        black_box(pagecomp::decompress(rest, layout, &mut out).is_ok());
    }
}

fn reseal_full_crc32(data: &mut [u8]) {
    for page in data.chunks_exact_mut(16384) {
        if let Some((size, true)) = checksum::full_crc32_size(page) {
            if let Some(at) = size.checked_sub(4) {
                let c = checksum::full_crc32(&page[..size]).to_be_bytes();
                page[at..size].copy_from_slice(&c);
            }
        }
    }
}

fn whole(ts: &Tablespace<'_>, engine: &Engine<'_>) {
    black_box(pagecomp::applies(ts));
    let e = pagecomp::expand(ts, engine);
    assert_eq!(e.image(ts).len(), ts.data().len());
    assert!(e.decompressed as usize + e.failures.len() <= ts.n_pages() as usize);
    for f in &e.failures {
        black_box(f.error.to_string());
    }
    let img = e.tablespace(ts);
    assert_eq!(img.n_pages(), ts.n_pages());
    let map = SpaceMap::build(&img, engine);
    for f in &map.findings {
        black_box(f.kind.to_string());
    }
    let trees = Btrees::build(&img, engine, &map);
    for f in &trees.findings {
        black_box(f.kind.to_string());
    }
    let mut scratch = RecScratch::default();
    let mut out = Vec::new();
    for n in 0..img.n_pages().min(32) {
        if let Ok(rp) = RecPage::of(&img, PageNo(n)) {
            out.clear();
            black_box(rp.analyse(&mut scratch, &mut out).n_recs());
        }
    }
}

fuzz_target!(|input: &[u8]| {
    let Some((&ctl, rest)) = input.split_first() else {
        return;
    };
    if ctl & 0x80 == 0 {
        one_page(ctl, rest);
        return;
    }
    let mut data = rest.to_vec();
    if ctl & 4 != 0 {
        reseal_full_crc32(&mut data);
    }
    let opts = Options::default().with_page_size((ctl & 1 != 0).then_some(16384));
    let engine = Engine::new(if ctl & 2 != 0 { 3 } else { 1 });
    if let Ok(ts) = Tablespace::with_options(&data, opts) {
        whole(&ts, &engine);
    }
});
