//! A table's definition made ready for decoding an index's records, and
//! what the commands say when it cannot be: shared by `rows`, `history`
//! and `records` (the library's `ibdscope_schema::rows` does the work).

use ibdscope::analysis::Analysis;
use ibdscope::definition::Def;
use ibdscope_core::{NoRecords, PageNo, RecPage, Tablespace};
use ibdscope_schema::rows::ScanErrorKind;
use ibdscope_schema::table::{IndexDef, RecordLayout, TableDef};
use std::path::Path;

/// The definition as the records are decoded with it, shared by `rows`
/// and `history`.
pub(crate) struct Decoding {
    /// The definition, with the shape of MariaDB instant ALTER's records
    /// and the temporal formats the records show.
    pub def: Def,
    /// What the library read for it (instant ALTER's metadata, old
    /// temporal formats).
    pub decoding: ibdscope_schema::rows::Decoding,
}

/// The file's definition made ready for decoding its records; `None`
/// (said on stderr) when there is none.
pub(crate) fn decoding(a: &Analysis<'_>) -> Option<Decoding> {
    let mut def = match a.definition() {
        Ok(d) => d.clone(),
        Err(e) => {
            // The reason may quote the DDL or .frm: no raw control characters.
            crate::diag::say!("ibdscope: {}", ibdscope::names::name(&e.to_string()));
            return None;
        }
    };
    // MariaDB instant ALTER: the clustered index's records are in the
    // shape the metadata record describes, not the definition's; a CREATE
    // TABLE's TIME/DATETIME/TIMESTAMP: the records say which format.
    let decoding = ibdscope_schema::rows::Decoding::new(a.ts(), &mut def.table);
    Some(Decoding { def, decoding })
}

/// Says on stderr why the index's rows cannot be read.
pub(crate) fn say_scan_error(path: &Path, ix: &IndexDef, e: &ibdscope_schema::Error) {
    let (p, name) = (ibdscope::names::path(path), ibdscope::names::name(&ix.name));
    let ibdscope_schema::ErrorKind::Scan(e) = &e.kind else {
        crate::diag::say!("ibdscope: {p}: index {name}: its rows cannot be read");
        return;
    };
    match e {
        // Encrypted (MySQL's flag, or MariaDB's crypt data): the key, or
        // its absence, was said once above; this names only the
        // consequence, not a root page missing from the file.
        ScanErrorKind::NoRoot {
            encrypted: true, ..
        } => crate::diag::say!(
            "ibdscope: {p}: index {name}: its root page is not known: the file is encrypted \
             and its pages are not decrypted (no key, or one that does not open it: see above)"
        ),
        ScanErrorKind::NoRoot {
            page_compressed, ..
        } => {
            let why = if *page_compressed {
                ": the file is PAGE_COMPRESSED and its INODE page could not be decompressed"
            } else {
                ""
            };
            crate::diag::say!("ibdscope: {p}: index {name} has no root page in this file{why}");
        }
        ScanErrorKind::Root(root, e, encrypted) => {
            let why = match e {
                NoRecords::PastFile => "past the end of the file".to_string(),
                NoRecords::NotIndex(t) => format!("a type {} page, not an index page", t.0),
                NoRecords::Unreadable(_) if *encrypted => {
                    "encrypted and not decrypted (no key, or one that does not open it: see above)"
                        .to_string()
                }
                NoRecords::Unreadable(_) => {
                    "encrypted, or page-compressed and not decompressed (see above)".to_string()
                }
            };
            crate::diag::say!("ibdscope: {p}: root page {root} of index {name}: {why}");
        }
        ScanErrorKind::Instant(e) => {
            crate::diag::say!("ibdscope: {p}: MariaDB instant ALTER metadata: {e}");
        }
        ScanErrorKind::Layout(e) => {
            crate::diag::say!("ibdscope: {p}: index {name}: record layout: {e}");
        }
        ScanErrorKind::NotLeaf(n) => {
            crate::diag::say!("ibdscope: {p}: page {n} is not a leaf page of index {name}");
        }
        ScanErrorKind::NotIndexPage(n) => {
            crate::diag::say!("ibdscope: {p}: page {n} is not a readable index page");
        }
        _ => crate::diag::say!("ibdscope: {p}: index {name}: its rows cannot be read"),
    }
}

/// The index's root page; says on stderr why when it cannot be read.
pub(crate) fn root_page<'t>(
    ts: &Tablespace<'t>,
    path: &Path,
    ix: &IndexDef,
) -> Option<(PageNo, RecPage<'t>)> {
    ibdscope_schema::rows::root_page(ts, ix)
        .map_err(|e| say_scan_error(path, ix, &e))
        .ok()
}

/// The index's record layout: MariaDB's instant ALTER layout for the
/// clustered index when the metadata record gives one, else the
/// definition's; says on stderr why when there is none.
pub(crate) fn index_layout(
    path: &Path,
    t: &TableDef,
    ix: &IndexDef,
    instant: &Result<
        Option<(ibdscope_schema::instant::MariaInstant, RecordLayout)>,
        ibdscope_schema::Error,
    >,
    root_rp: &RecPage<'_>,
) -> Option<RecordLayout> {
    ibdscope_schema::rows::index_layout(t, ix, instant, root_rp)
        .map_err(|e| say_scan_error(path, ix, &e))
        .ok()
}
