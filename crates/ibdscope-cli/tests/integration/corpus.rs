//! Every file of `../shared/corpus` against the facts its MANIFEST states or
//! read: page sizes, page count, space id, flags, vendor, page types, and
//! that no page of these clean files is reported damaged.

use super::common::{corpus, num, read_tsv};
use ibdscope_core::checksum::{Unverifiable, Verdict};
use ibdscope_core::Engine;
use ibdscope_core::{PageType, Summary, Tablespace, Vendor, VendorGuess};

fn vendor_of(s: &str) -> Vendor {
    match s {
        "MySQL" => Vendor::MySql,
        "MariaDB" => Vendor::MariaDb,
        "Percona Server" => Vendor::Percona,
        other => panic!("unknown vendor {other}"),
    }
}

/// The corpus names page types as innodb_ruby does; map to codes.
fn type_code(name: &str) -> u16 {
    match name {
        "ALLOCATED" => 0,
        "INODE" => 3,
        "IBUF_BITMAP" => 5,
        "FSP_HDR" => 8,
        "BLOB" => 10,
        "ENCRYPTED" => 15,
        "LOB_INDEX" => 22,
        "LOB_DATA" => 23,
        "LOB_FIRST" => 24,
        "SDI" => 17853,
        "INDEX" => 17855,
        other => panic!("type {other} not mapped"),
    }
}

#[test]
fn every_corpus_file_reads_as_its_manifest_says() {
    let Some(dir) = corpus() else { return };
    let rows = read_tsv(&dir.join("manifest.tsv"));
    assert!(rows.len() >= 27, "manifest lists {} files", rows.len());
    for row in rows {
        let path = dir.join(&row["path"]);
        let data = std::fs::read(&path).unwrap();
        let ts = Tablespace::new(&data).unwrap_or_else(|e| panic!("{}: {e}", row["path"]));
        let what = &row["path"];
        assert_eq!(
            u64::from(ts.format().logical_size),
            num(&row["page_size"]),
            "{what} page size"
        );
        assert_eq!(
            u64::from(ts.page_size()),
            num(&row["physical_page_size"]),
            "{what} physical"
        );
        assert_eq!(u64::from(ts.n_pages()), num(&row["pages"]), "{what} pages");
        assert_eq!(
            u64::from(ts.space_id().0),
            num(&row["space_id"]),
            "{what} space id"
        );
        let fsp = ts
            .fsp_header()
            .unwrap_or_else(|| panic!("{what}: page 0 must verify"));
        assert_eq!(
            u64::from(fsp.flags().0),
            num(&row["fsp_flags"]),
            "{what} flags"
        );
        assert_eq!(
            u64::from(fsp.size()),
            num(&row["fsp_size_pages"]),
            "{what} FSP_SIZE"
        );

        let s = Summary::of(&ts, &Engine::default());
        let guess = VendorGuess::infer(ts.format(), |t| s.has_type(t));
        let vendor = vendor_of(&row["vendor"]);
        assert!(
            guess.candidates.contains(&vendor),
            "{what}: {vendor:?} not in {:?}",
            guess.candidates
        );
        // Where the bytes decide, the decision must be exact.
        if row["fsp_flags"].contains("full_crc32") {
            assert_eq!(guess.candidates, &[Vendor::MariaDb], "{what}");
        }
        if num(&row["fsp_flags"]) & 1 << 14 != 0 {
            assert!(
                !guess.candidates.contains(&Vendor::MariaDb),
                "{what}: SDI flag means MySQL 8+"
            );
        }

        // Clean files: nothing damaged, and only encrypted pages unverifiable.
        assert!(s.is_clean(), "{what}: {:?} {:?}", s.bad, s.file_findings);
        for &(page, why) in &s.unverifiable {
            assert_eq!(why, Unverifiable::Encrypted, "{what} page {page}");
        }
        let encrypted_pages = s
            .types
            .iter()
            .find(|(t, _)| *t == PageType::FIL_PAGE_ENCRYPTED)
            .map_or(0, |x| x.1);
        assert_eq!(
            s.unverifiable.len(),
            encrypted_pages as usize,
            "{what}: encrypted pages reported"
        );

        // Page-type histogram as read by the corpus' own script.
        let mut want: Vec<(u16, u32)> = row["page_types_read"]
            .split(';')
            .filter(|x| !x.is_empty())
            .map(|kv| {
                let (k, v) = kv.split_once('=').unwrap();
                (type_code(k), v.parse().unwrap())
            })
            .collect();
        want.sort();
        let got: Vec<(u16, u32)> = s.types.iter().map(|(t, n)| (t.0, *n)).collect();
        assert_eq!(got, want, "{what} page types");

        // Every page verdict is one the server would accept.
        for f in ts.scan() {
            assert_ne!(f.verdict, Verdict::Mismatch, "{what} page {}", f.page_no);
        }
    }
}

#[test]
fn detection_without_page_0_finds_the_same_format() {
    let Some(dir) = corpus() else { return };
    for row in read_tsv(&dir.join("manifest.tsv")) {
        let mut data = std::fs::read(dir.join(&row["path"])).unwrap();
        let physical = num(&row["physical_page_size"]) as usize;
        let verifiable = Tablespace::new(&data)
            .map(|ts| Summary::of(&ts, &Engine::default()))
            .unwrap();
        // Need at least two verifiable pages besides page 0 to decide.
        let others = verifiable.valid() - verifiable.empty;
        if others < 3 {
            continue;
        }
        data[..physical].fill(0);
        let ts = Tablespace::new(&data).unwrap_or_else(|e| panic!("{}: {e}", row["path"]));
        assert_eq!(
            u64::from(ts.page_size()),
            num(&row["physical_page_size"]),
            "{}",
            row["path"]
        );
        assert_eq!(
            u64::from(ts.space_id().0),
            num(&row["space_id"]),
            "{}",
            row["path"]
        );
        assert!(!ts.detection().page0_ok);
        let s = Summary::of(&ts, &Engine::default());
        assert!(s
            .file_findings
            .iter()
            .any(|f| f.kind == ibdscope_core::FindingKind::Page0Unusable));
    }
}
