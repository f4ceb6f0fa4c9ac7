//! A program matches on an error's kind and reads its place (file, page,
//! byte offset) from typed fields, not from a message: the front door's
//! [`ibdscope::Error`] and the errors of the crates below it that it
//! carries, on copies of the committed fixtures (a cut file) and on pages
//! read from them.
#![allow(clippy::disallowed_macros, clippy::unwrap_used, clippy::expect_used)]
#![allow(
    clippy::indexing_slicing,
    clippy::panic,
    clippy::arithmetic_side_effects
)]

use ibdscope::{ErrorKind, File, PageNo, ScanOptions};
use ibdscope_testkit::{fixtures, scratch};

#[test]
fn a_cut_file_is_a_parse_error_with_its_kind_file_and_offset() {
    let bytes = std::fs::read(fixtures().join("mysql56/one_row.ibd")).unwrap();
    let cut = scratch("errors-cut.ibd");
    std::fs::write(&cut, &bytes[..100]).unwrap();
    let err = File::open(&cut).unwrap_err();
    std::fs::remove_file(&cut).unwrap();
    let ErrorKind::Parse(e) = &err.kind else {
        panic!("not a parse error: {err:?}");
    };
    // The smallest page InnoDB writes is 1 KiB (`UNIV_PAGE_SIZE_MIN`,
    // storage/innobase/include/univ.i).
    assert!(
        matches!(
            e.kind,
            ibdscope_core::ErrorKind::TooShort {
                len: 100,
                need: 1024
            }
        ),
        "{e:?}"
    );
    assert_eq!(err.path.as_deref(), Some(cut.as_path()));
    assert_eq!(err.file_offset(), Some(0));
    assert_eq!(err.page(), None);
    assert!(std::error::Error::source(&err).is_some());
    assert!(err.to_string().ends_with(
        "errors-cut.ibd: file too short: 100 bytes, a page needs at least 1024 (byte offset 0)"
    ));
}

#[test]
fn a_missing_file_is_an_open_error_with_its_path() {
    let gone = scratch("errors-none.ibd");
    let err = File::open(&gone).unwrap_err();
    assert!(
        matches!(&err.kind, ErrorKind::Open(e) if e.kind() == std::io::ErrorKind::NotFound),
        "{err:?}"
    );
    assert_eq!(err.path.as_deref(), Some(gone.as_path()));
}

#[test]
fn a_page_that_is_no_leaf_is_a_rows_error_naming_its_page() {
    // mysql56/rf_compressed8.ibd: page 3 is the PRIMARY root above the
    // leaves, page 1 the IBUF_BITMAP (fixtures/pages.tsv, as the server
    // wrote it).
    let file = File::open(fixtures().join("mysql56/rf_compressed8.ibd")).unwrap();
    let space = file.space().unwrap();
    for (n, not_leaf) in [(3, true), (1, false)] {
        let mut opts = ScanOptions::default();
        opts.page = Some(PageNo(n));
        let err = space.rows(None, opts).err().expect("an error");
        let ErrorKind::Rows(e) = &err.kind else {
            panic!("not a rows error: {err:?}");
        };
        let want = if not_leaf {
            ibdscope_schema::rows::ScanErrorKind::NotLeaf(PageNo(n))
        } else {
            ibdscope_schema::rows::ScanErrorKind::NotIndexPage(PageNo(n))
        };
        assert_eq!(e.kind, ibdscope_schema::ErrorKind::Scan(want));
        assert_eq!(err.page(), Some(PageNo(n)), "{err}");
        assert!(err.path.is_some());
    }
    let err = space
        .rows(Some("no_such_index"), ScanOptions::default())
        .err()
        .unwrap();
    assert!(matches!(&err.kind, ErrorKind::NoIndex(name) if name == "no_such_index"));
}

#[test]
fn a_damaged_compressed_page_is_a_zip_error_at_its_byte() {
    // Page 4 of mysql56/rf_compressed8.ibd is a leaf of 8 KiB physical
    // pages (fixtures/manifest.tsv: physical_page_size 8192); its zlib
    // stream starts at PAGE_DATA (38 + 56 = 94, page0zip.cc
    // `page_zip_decompress_low` inflates from `page + PAGE_DATA`).
    let bytes = std::fs::read(fixtures().join("mysql56/rf_compressed8.ibd")).unwrap();
    let mut page = bytes[4 * 8192..5 * 8192].to_vec();
    let mut out = Vec::new();
    ibdscope_schema::zip::decompress(&page, 16384, &mut out).expect("the page as written");
    page[94] = 0;
    let err = ibdscope_schema::zip::decompress(&page, 16384, &mut out)
        .unwrap_err()
        .on_page(PageNo(4));
    assert!(
        matches!(
            err.kind,
            ibdscope_schema::ErrorKind::Zip(ibdscope_schema::zip::ZipErrorKind::Inflate(_))
        ),
        "{err:?}"
    );
    assert_eq!(err.page(), Some(PageNo(4)));
    assert_eq!(
        err.place,
        ibdscope_schema::Place::Page {
            page: Some(PageNo(4)),
            page_offset: 94
        }
    );
    assert_eq!(
        err.to_string(),
        "zlib stream damaged (BadZlibHeader) at compressed page byte 94"
    );
}

#[test]
fn a_broken_record_chain_is_a_core_error_at_its_page_offset() {
    // mysql56/one_row.ibd: page 3 is the PRIMARY leaf with one record
    // (fixtures/pages.tsv). Its infimum's next field (page offset 97,
    // `PAGE_NEW_INFIMUM` 99 − 2: page0page.h, rem0rec.h `REC_NEXT`) made to
    // point back at the infimum.
    let bytes = std::fs::read(fixtures().join("mysql56/one_row.ibd")).unwrap();
    let mut page = bytes[3 * 16384..4 * 16384].to_vec();
    page[97..99].copy_from_slice(&0u16.to_be_bytes());
    let rp = ibdscope_core::RecPage::new(&page, 16384).unwrap();
    let mut visited = ibdscope_core::record::Visited::new();
    let mut it = rp.records(&mut visited).unwrap();
    let err = loop {
        match it.next() {
            Ok(Some(_)) => continue,
            Ok(None) => panic!("the chain walked to its end"),
            Err(e) => break e.on_page(PageNo(3)),
        }
    };
    assert!(
        matches!(
            err.kind,
            ibdscope_core::ErrorKind::Record(ibdscope_core::record::RecErrorKind::EndsEarly)
        ),
        "{err:?}"
    );
    assert_eq!(err.page(), Some(PageNo(3)));
    assert_eq!(err.page_offset(), Some(97));
    assert_eq!(err.file_offset(), None);
}

#[test]
fn a_cut_frm_beside_the_file_is_a_definition_error_at_its_byte() {
    // mysql56/one_row.ibd holds no SDI (MySQL 5.6): its definition is the
    // .frm beside it, here cut to 300 bytes.
    let dir = scratch("errors-frm");
    std::fs::create_dir_all(&dir).unwrap();
    let (ibd, frm) = (dir.join("one_row.ibd"), dir.join("one_row.frm"));
    std::fs::copy(fixtures().join("mysql56/one_row.ibd"), &ibd).unwrap();
    let whole = std::fs::read(fixtures().join("mysql56/one_row.frm")).unwrap();
    std::fs::write(&frm, &whole[..300]).unwrap();
    let file = File::open(&ibd).unwrap();
    let space = file.space().unwrap();
    let Err(err) = space.table() else {
        panic!("a definition from a cut .frm");
    };
    let err = err.clone();
    drop(space);
    drop(file);
    std::fs::remove_dir_all(&dir).unwrap();
    let ErrorKind::NoDefinition(why) = &err.kind else {
        panic!("not a missing definition: {err:?}");
    };
    let ErrorKind::Frm(e) = &why.kind else {
        panic!("not a .frm error: {why:?}");
    };
    assert!(
        matches!(e.kind, ibdscope_schema::ErrorKind::Frm(_)),
        "{e:?}"
    );
    assert_eq!(why.path.as_deref(), Some(frm.as_path()));
    let at = err.file_offset().expect("the .frm's byte");
    assert!(at <= 300, "{err}");
    assert!(
        err.to_string()
            .contains("one_row.frm: not a readable .frm: "),
        "{err}"
    );
}
