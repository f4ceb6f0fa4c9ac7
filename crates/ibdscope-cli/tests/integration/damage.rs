//! Planted damage: copies of clean real files (made in memory or in a
//! scratch directory, never in the corpus or fixtures) with known pages
//! broken. The check must report exactly the planted pages, for every
//! checksum algorithm the real files use, and keep reporting the rest.

use super::common::{corpus, fixtures, num, put_u32, read_tsv, real_files};
use ibdscope_core::checksum::{self, Algorithm, Scheme, Verdict};
use ibdscope_core::space::PageProblem;
use ibdscope_core::Engine;
use ibdscope_core::{FindingKind, PageNo, Summary, Tablespace};
use std::collections::BTreeSet;

/// Plants a body flip in up to three verifying pages; returns the pages and
/// the algorithms they carried.
fn plant(data: &mut [u8]) -> (BTreeSet<u32>, BTreeSet<Algorithm>) {
    let ts = Tablespace::new(data).unwrap();
    let size = ts.page_size() as usize;
    let candidates: Vec<(u32, Algorithm)> = ts
        .scan()
        .filter_map(|f| match f.verdict {
            // A `none` page has no checksum to break; skip those.
            Verdict::Valid(a)
                if f.page_no.0 != 0 && !matches!(a, Algorithm::None | Algorithm::ZipNone) =>
            {
                Some((f.page_no.0, a))
            }
            _ => None,
        })
        .collect();
    let picked: Vec<(u32, Algorithm)> = candidates
        .iter()
        .step_by((candidates.len() / 3).max(1))
        .take(3)
        .copied()
        .collect();
    let scheme = ts.scheme();
    for &(p, _) in &picked {
        let page = &data[p as usize * size..(p as usize + 1) * size];
        // Bytes past a full_crc32 page_compressed page's payload are not
        // covered by its checksum (nor read by the server): flip inside.
        let covered = match scheme {
            Scheme::FullCrc32 => checksum::full_crc32_size(page).map_or(size, |(n, _)| n),
            _ => size,
        };
        let at = p as usize * size + covered / 2 + (p as usize % 7);
        data[at] ^= 0x5A;
    }
    (
        picked.iter().map(|x| x.0).collect(),
        picked.iter().map(|x| x.1).collect(),
    )
}

fn bad_pages(data: &[u8]) -> BTreeSet<u32> {
    let ts = Tablespace::new(data).unwrap();
    Summary::of(&ts, &Engine::default())
        .bad
        .iter()
        .map(|b| b.facts.page_no.0)
        .collect()
}

#[test]
fn exactly_the_planted_pages_for_every_algorithm() {
    let mut covered = BTreeSet::new();
    for path in real_files() {
        let mut data = std::fs::read(&path).unwrap();
        let clean = Summary::of(&Tablespace::new(&data).unwrap(), &Engine::default());
        assert!(clean.bad.is_empty(), "{} must start clean", path.display());
        let (planted, algos) = plant(&mut data);
        assert_eq!(bad_pages(&data), planted, "{}", path.display());
        covered.extend(algos);
        // The undamaged pages are reported exactly as before.
        let ts = Tablespace::new(&data).unwrap();
        let orig = std::fs::read(&path).unwrap();
        let ts0 = Tablespace::new(&orig).unwrap();
        for (a, b) in ts.scan().zip(ts0.scan()) {
            if !planted.contains(&a.page_no.0) {
                assert_eq!(a, b, "{} page {}", path.display(), a.page_no);
            }
        }
    }
    // The committed fixtures alone carry every algorithm a server wrote:
    // innodb and zip Adler-32 (MySQL 5.6 default), crc32 and zip crc32
    // (5.6 and MariaDB crc32), full_crc32 (MariaDB 10.11).
    for a in [
        Algorithm::Innodb,
        Algorithm::Crc32,
        Algorithm::FullCrc32,
        Algorithm::ZipCrc32,
        Algorithm::ZipInnodb,
    ] {
        assert!(
            covered.contains(&a),
            "no real file exercised {a:?}: {covered:?}"
        );
    }
}

#[test]
fn none_checksum_pages_are_caught_by_their_lsn() {
    // fixtures/mysql56-none is committed: not finding it is a failure.
    let row = real_files()
        .into_iter()
        .find(|p| {
            let d = std::fs::read(p).unwrap();
            let ts = Tablespace::new(&d).unwrap();
            let found = ts
                .scan()
                .any(|f| f.verdict == Verdict::Valid(Algorithm::None));
            found
        })
        .expect("no real file with innodb_checksum_algorithm=none pages (fixtures/mysql56-none)");
    let mut data = std::fs::read(&row).unwrap();
    let ts = Tablespace::new(&data).unwrap();
    let size = ts.page_size() as usize;
    let page = ts
        .scan()
        .find(|f| f.verdict == Verdict::Valid(Algorithm::None))
        .unwrap()
        .page_no
        .0;
    drop(ts);
    let at = page as usize * size + size - 1;
    data[at] ^= 1;
    assert_eq!(bad_pages(&data), BTreeSet::from([page]));
}

#[test]
fn a_page_from_another_tablespace_is_named() {
    let Some(dir) = corpus() else { return };
    let mut data =
        std::fs::read(dir.join("mysql-5.6/classicmodels_mysql56_orderdetails.ibd")).unwrap();
    // The space id (bytes 34..38) is outside the classic checksum ranges.
    put_u32(&mut data, 5 * 16384 + 34, 4242);
    let ts = Tablespace::new(&data).unwrap();
    let s = Summary::of(&ts, &Engine::default());
    assert_eq!(s.bad.len(), 1);
    let f = s.bad[0].findings[0];
    assert_eq!(f.page, Some(PageNo(5)));
    assert_eq!(f.file_offset, 5 * 16384 + 34);
    assert!(
        matches!(f.kind, FindingKind::Page(PageProblem::SpaceId { found, .. }) if found.0 == 4242)
    );
}

#[test]
fn torn_lsn_and_misplaced_page() {
    let Some(dir) = corpus() else { return };
    let mut data = std::fs::read(dir.join("mysql-5.7/sakila_mysql57_film_text.ibd")).unwrap();
    // Swap pages 3 and 4: both verify, but carry the wrong page numbers.
    let (a, b) = data.split_at_mut(4 * 16384);
    a[3 * 16384..].swap_with_slice(&mut b[..16384]);
    // Tear page 5: change the trailer's LSN copy.
    let end = 6 * 16384 - 1;
    data[end] ^= 0xFF;
    let s = Summary::of(&Tablespace::new(&data).unwrap(), &Engine::default());
    let kinds: Vec<(u32, PageProblem)> = s
        .bad
        .iter()
        .flat_map(|b| {
            b.findings.iter().filter_map(move |f| match f.kind {
                FindingKind::Page(p) => Some((b.facts.page_no.0, p)),
                _ => None,
            })
        })
        .collect();
    assert!(
        kinds
            .iter()
            .any(|(p, k)| *p == 3 && matches!(k, PageProblem::PageNo { found } if found.0 == 4)),
        "{kinds:?}"
    );
    assert!(
        kinds
            .iter()
            .any(|(p, k)| *p == 4 && matches!(k, PageProblem::PageNo { found } if found.0 == 3)),
        "{kinds:?}"
    );
    assert!(
        kinds
            .iter()
            .any(|(p, k)| *p == 5 && matches!(k, PageProblem::LsnMismatch { .. })),
        "{kinds:?}"
    );
    assert_eq!(s.bad.len(), 3);
}

#[test]
fn fixture_manifest_lists_only_files_that_are_there() {
    let m = fixtures().join("manifest.tsv");
    assert!(m.is_file(), "fixtures/manifest.tsv is committed");
    for r in read_tsv(&m) {
        assert!(
            fixtures().join(&r["path"]).is_file(),
            "{} listed but missing",
            r["path"]
        );
        assert!(num(&r["page_size"]) >= 4096);
    }
}
