//! Committed fixtures written by real servers, against the servers' own
//! answers in fixtures/manifest.tsv and fixtures/pages.tsv.

use super::common::{fixtures, num, read_tsv};
use ibdscope::{Summary, Tablespace, Vendor, VendorGuess};

#[test]
fn fixtures_match_the_server_manifest() {
    let m = fixtures().join("manifest.tsv");
    assert!(
        m.is_file(),
        "fixtures/manifest.tsv is missing: run fixtures/generate"
    );
    let rows = read_tsv(&m);
    assert!(!rows.is_empty());
    for row in rows {
        let what = &row["path"];
        let data = std::fs::read(fixtures().join(what)).unwrap();
        let ts = Tablespace::new(&data).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(
            u64::from(ts.format().logical_size),
            num(&row["page_size"]),
            "{what}"
        );
        assert_eq!(
            u64::from(ts.page_size()),
            num(&row["physical_page_size"]),
            "{what}"
        );
        assert_eq!(u64::from(ts.space_id().0), num(&row["space_id"]), "{what}");
        assert_eq!(data.len() as u64, num(&row["file_size"]), "{what}");
        let s = Summary::of(&ts);
        assert!(s.is_clean(), "{what}: {:?}", s.bad);
        let guess = VendorGuess::infer(ts.format(), |t| s.has_type(t));
        let v = if row["vendor"] == "MariaDB" {
            Vendor::MariaDb
        } else {
            Vendor::MySql
        };
        assert!(
            guess.candidates.contains(&v),
            "{what}: {:?}",
            guess.candidates
        );
    }
}
