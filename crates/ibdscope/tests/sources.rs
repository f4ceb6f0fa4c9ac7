//! An embedding program reads a carved image's rows with their byte
//! offsets in the source carved: the source map (`IMAGE.sources`) made
//! from a carve of `fixtures/mysql56/ai_int.ibd`'s pages planted in noise
//! at odd offsets, read beside the image by [`ibdscope::Space::sources`].
#![allow(clippy::disallowed_macros, clippy::unwrap_used, clippy::expect_used)]
#![allow(
    clippy::indexing_slicing,
    clippy::panic,
    clippy::arithmetic_side_effects
)]

use ibdscope::{File, OpenOptions, ScanOptions};
use ibdscope_core::Engine;
use ibdscope_forensics::carve::{self, CarveOptions, SourceMap};
use ibdscope_testkit::fixtures;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// A scratch directory for this test process (testkit's scratch path,
/// made a directory).
fn scratch(name: &str) -> PathBuf {
    let dir = ibdscope_testkit::scratch(name);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn rows_of_a_carved_image_locate_their_bytes_in_the_source() {
    // Space 7, 16 KiB pages, 3000 rows, INT key `id` (fixtures/manifest.tsv).
    let file = std::fs::read(fixtures().join("mysql56/ai_int.ibd")).unwrap();
    let mut x = 5u64;
    let mut image: Vec<u8> = (0..4 << 20)
        .map(|_| {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
            (x >> 56) as u8
        })
        .collect();
    let mut planted = BTreeMap::new();
    let mut off = 512 * 7;
    for (n, page) in file.chunks_exact(16384).enumerate() {
        if page.iter().any(|&b| b != 0) {
            image[off..off + 16384].copy_from_slice(page);
            planted.insert(n as u32, off as u64);
            off += 16384 + 512 * 3;
        }
    }
    let mut found = Vec::new();
    carve::scan(
        &image,
        0,
        &CarveOptions::default(),
        &[],
        &Engine::new(1),
        |p| {
            found.extend(p.found);
            Ok::<(), ()>(())
        },
    )
    .unwrap();
    let carved = carve::group(found, None);
    let space = &carved.spaces[0];
    // Every page the server wrote was found, page 0 too: the image is the
    // file (its zero pages holes).
    assert_eq!(space.pages.len(), planted.len());
    let dir = scratch("sources");
    let img = dir.join("disk.img");
    std::fs::write(&img, &image).unwrap();
    let img_name = img.to_str().unwrap().to_string();
    let ibd = dir.join("space-7.ibd");
    std::fs::write(&ibd, &file).unwrap();
    let map = SourceMap::of(space, std::slice::from_ref(&img_name));
    std::fs::write(dir.join("space-7.ibd.sources"), map.to_text("space-7.ibd")).unwrap();

    let how = OpenOptions::new().frm(fixtures().join("mysql56/ai_int.frm"));
    let f = File::open_with(&ibd, &how).unwrap();
    let s = f.space().unwrap();
    let sources = s.sources(None).expect("the map beside the image");
    assert!(sources.findings.is_empty() && sources.unreadable.is_none());
    let mut n = 0;
    for row in s.rows(None, ScanOptions::default()).unwrap() {
        let (source, at) = sources.locate(row.page, row.offset).expect("carved page");
        assert_eq!(source, img_name);
        let at = at.expect("a plain page");
        assert_eq!(at, planted[&row.page.0] + u64::from(row.offset));
        let in_file = row.page.0 as usize * 16384 + usize::from(row.offset);
        assert_eq!(image[at as usize..][..8], file[in_file..][..8]);
        n += 1;
    }
    assert_eq!(n, 3000);

    // A map of another image (one page more) does not fit: no offsets.
    let mut other = map.clone();
    other.n_pages += 1;
    std::fs::write(dir.join("space-7.ibd.sources"), other.to_text("x")).unwrap();
    let s = f.space().unwrap();
    let sources = s.sources(None).unwrap();
    assert_eq!(sources.findings.len(), 1);
    assert!(sources.locate(ibdscope::PageNo(4), 126).is_none());
}
