//! Serialized Dictionary Information (SDI): the table and tablespace
//! definitions MySQL 8.0+ keeps inside every `.ibd` as zlib-compressed JSON.
//!
//! Where it is (MySQL `storage/innobase/fsp/fsp0fsp.cc`
//! `fsp_header_get_sdi_offset`, `include/fsp0types.h`, `os0enc.h`):
//!
//! | page 0 offset | size | field |
//! |---|---:|---|
//! | `FSP_HEADER_OFFSET + XDES_ARR_OFFSET + XDES_SIZE × (physical size / extent pages) + Encryption::INFO_MAX_SIZE` | 4 | SDI version (1) |
//! | the same + 4 | 4 | SDI root page number |
//!
//! where FSP_HEADER_OFFSET = 38, XDES_ARR_OFFSET = 112, XDES_SIZE = 40
//! (for 64-page extents; `xdes_size` in general) and INFO_MAX_SIZE = 115
//! (3 magic + 4 master key id + 36 server UUID + 64 key and IV + 4 checksum,
//! + 4). FSP flag bit 14 (`FSP_FLAGS_POS_SDI`) says the space has SDI.
//!
//! The SDI index is a clustered B-tree of FIL_PAGE_SDI (17853) pages in the
//! COMPACT record format with no nullable column (`dict0sdi.cc`,
//! `dict_sdi_create_idx_in_mem`). Leaf record (`include/dict0sdi.h`
//! field positions):
//!
//! | bytes from origin | field |
//! |---|---|
//! | 0..4 | type (1 table, 2 tablespace) |
//! | 4..12 | id |
//! | 12..18 | DB_TRX_ID |
//! | 18..25 | DB_ROLL_PTR |
//! | 25..29 | uncompressed length |
//! | 29..33 | compressed length |
//! | 33.. | data (zlib stream of the JSON); its length in the 1 or 2 bytes before the 5-byte header (`rec_init_offsets`: 2 bytes when the first has 0x80; 0x40 there = stored off-page, and then its last 20 bytes are the external reference) |
//!
//! A node pointer holds type and id (12 bytes) and the child page number.
//! Off-page data (`lob0lob.h`, `BTR_EXTERN_*`): the 20-byte reference is
//! space id (4), page number (4), offset (4) and length (8, the low 4 bytes
//! used); the chain is FIL_PAGE_SDI_BLOB (18) pages in the old BLOB layout:
//! at FIL_PAGE_DATA the part length (4) and next page (4, FIL_NULL ends),
//! then the data (`LOB_HDR_PART_LEN`, `LOB_HDR_NEXT_PAGE_NO`, `LOB_HDR_SIZE`).

/// Defined with the crate's error, re-exported here.
pub use crate::error::{SdiFinding, SdiProblem};
use ibdscope_codec::inflate::inflate_zlib;
use ibdscope_core::fil::{FilHeader, FIL_PAGE_DATA};
use ibdscope_core::record::{RecPage, Visited};
use ibdscope_core::xdes::{xdes_size, XDES_ARR_OFFSET};
use ibdscope_core::{PageNo, PageType, Tablespace, FIL_NULL};
use ibdscope_prims::bytes::{be_u16, be_u32};

/// `Encryption::INFO_MAX_SIZE` (MySQL 8.0 `os0enc.h`).
pub(crate) const ENCRYPTION_INFO_MAX_SIZE: usize = 115;
/// The only SDI version MySQL writes (`SDI_VERSION`, `dict0sdi.h`).
pub(crate) const SDI_VERSION: u32 = 1;
/// Fixed bytes of a leaf record before the data.
const LEAF_FIXED: usize = 33;
/// `BTR_EXTERN_FIELD_REF_SIZE`.
const EXTERN_REF: usize = 20;
/// Largest uncompressed SDI accepted (the server's own limit is the
/// 4-byte length; real ones are a few KiB to a few MiB).
pub(crate) const MAX_SDI_BYTES: u32 = 64 << 20;

/// Where the SDI root is named on page 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SdiRoot {
    /// Byte offset of the version field on page 0.
    pub offset: usize,
    /// The SDI version stored.
    pub version: u32,
    /// The root page.
    pub root: PageNo,
}

/// The offset on page 0 of the SDI version field, for the space's page
/// and extent size.
pub(crate) fn sdi_offset(ts: &Tablespace<'_>) -> Option<usize> {
    let f = ts.format();
    let extent = f.extent_size();
    let entries = f.physical_size.checked_div(extent)? as usize;
    // XDES_ARR_OFFSET already counts from the page start (38 + 112).
    XDES_ARR_OFFSET
        .checked_add(xdes_size(extent).checked_mul(entries)?)?
        .checked_add(ENCRYPTION_INFO_MAX_SIZE)
}

/// The SDI root named on page 0, when the space's flags say it has SDI
/// and page 0 is readable.
pub(crate) fn sdi_root(ts: &Tablespace<'_>) -> Option<SdiRoot> {
    if !ts.format().sdi {
        return None;
    }
    let page0 = ts.page(PageNo(0))?;
    let offset = sdi_offset(ts)?;
    Some(SdiRoot {
        offset,
        version: be_u32(page0, offset)?,
        root: PageNo(be_u32(page0, offset.checked_add(4)?)?),
    })
}

/// A reference to data stored off-page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExternRef {
    /// First page of the chain.
    pub page: PageNo,
    /// Byte offset on it (informational: the old BLOB layout starts at
    /// FIL_PAGE_DATA).
    pub offset: u32,
    /// Bytes stored off-page.
    pub len: u32,
}

/// One SDI record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SdiRecord {
    /// Leaf page.
    pub page: PageNo,
    /// Record origin on it.
    pub origin: u16,
    /// Delete-marked.
    pub deleted: bool,
    /// 1 table, 2 tablespace.
    pub sdi_type: u32,
    /// Object id.
    pub id: u64,
    /// DB_TRX_ID.
    pub trx_id: u64,
    /// Uncompressed length.
    pub uncompressed_len: u32,
    /// Compressed length.
    pub compressed_len: u32,
    /// Page offset of the data stored in the record.
    pub data_offset: u16,
    /// Bytes of data stored in the record (without the external reference).
    pub local_len: u16,
    /// The off-page part, if any.
    pub external: Option<ExternRef>,
}

impl SdiRecord {
    /// `"table"`, `"tablespace"` or `"unknown"`.
    pub fn type_name(&self) -> &'static str {
        match self.sdi_type {
            1 => "table",
            2 => "tablespace",
            _ => "unknown",
        }
    }
}

/// The SDI records of a space, found by walking the SDI tree from its
/// root down the leftmost path and along the leaf chain.
#[derive(Clone, Debug, Default)]
pub struct Sdi {
    /// Where page 0 names the root (`None`: the space has no SDI).
    pub root: Option<SdiRoot>,
    /// Records in key order.
    pub records: Vec<SdiRecord>,
    /// What went wrong; the walk keeps what it read before.
    pub findings: Vec<SdiFinding>,
}

impl Sdi {
    /// Reads the SDI records of `ts`. Bounded: at most 64 levels down and
    /// one visit per page along the leaf chain.
    pub fn read(ts: &Tablespace<'_>) -> Sdi {
        let mut sdi = Sdi {
            root: sdi_root(ts),
            ..Sdi::default()
        };
        let Some(root) = sdi.root else {
            return sdi;
        };
        let at = |page: PageNo, offset: usize, problem| SdiFinding {
            page,
            offset: u16::try_from(offset).unwrap_or(u16::MAX),
            problem,
        };
        if root.version != SDI_VERSION {
            sdi.findings.push(at(
                PageNo(0),
                root.offset,
                SdiProblem::BadVersion(root.version),
            ));
            return sdi;
        }
        // Down the leftmost path.
        let mut page_no = root.root;
        let mut visited = Visited::new();
        let mut leaf = None;
        // ROW_FORMAT=COMPRESSED spaces: the page, decompressed (zip.rs).
        let mut zip = Vec::new();
        for _ in 0..64 {
            match sdi_page(ts, page_no).and_then(|rp| unzip(rp, &mut zip)) {
                Err(p) => {
                    sdi.findings.push(at(page_no, 24, p));
                    return sdi;
                }
                Ok(rp) if rp.header().level() == 0 => {
                    leaf = Some(page_no);
                    break;
                }
                Ok(rp) => {
                    let first = rp.records(&mut visited).and_then(|mut it| loop {
                        match it.next() {
                            Ok(Some(r)) if r.is_user() => break Some(r),
                            Ok(Some(_)) => continue,
                            _ => break None,
                        }
                    });
                    let child = first
                        .and_then(|r| be_u32(rp.bytes(), usize::from(r.origin).checked_add(12)?));
                    match child {
                        Some(c) => page_no = PageNo(c),
                        None => {
                            sdi.findings.push(at(page_no, 0, SdiProblem::Records));
                            return sdi;
                        }
                    }
                }
            }
        }
        let Some(mut page_no) = leaf else {
            sdi.findings.push(at(page_no, 0, SdiProblem::Loop));
            return sdi;
        };
        // Along the leaf chain.
        let mut seen = vec![false; ts.n_pages() as usize];
        loop {
            match seen.get_mut(page_no.0 as usize) {
                Some(s) if !*s => *s = true,
                Some(_) => {
                    sdi.findings.push(at(page_no, 12, SdiProblem::Loop));
                    break;
                }
                None => {
                    sdi.findings.push(at(page_no, 12, SdiProblem::PastFile));
                    break;
                }
            }
            let rp = match sdi_page(ts, page_no).and_then(|rp| unzip(rp, &mut zip)) {
                Ok(rp) => rp,
                Err(p) => {
                    sdi.findings.push(at(page_no, 24, p));
                    break;
                }
            };
            leaf_records(&rp, page_no, &mut visited, &mut sdi);
            match FilHeader::new(rp.bytes()).map(|h| h.next()) {
                Some(n) if n.0 != FIL_NULL => page_no = n,
                _ => break,
            }
        }
        sdi
    }
}

fn sdi_page<'a>(ts: &Tablespace<'a>, n: PageNo) -> Result<RecPage<'a>, SdiProblem> {
    match RecPage::of(ts, n) {
        Err(ibdscope_core::NoRecords::PastFile) => Err(SdiProblem::PastFile),
        Err(ibdscope_core::NoRecords::NotIndex(t)) => Err(SdiProblem::NotSdiPage(t)),
        Err(ibdscope_core::NoRecords::Unreadable(_)) => Err(SdiProblem::Unreadable),
        Ok(rp) => {
            let t = FilHeader::new(rp.bytes()).map_or(PageType(0), |h| h.page_type());
            if t == PageType::FIL_PAGE_SDI {
                Ok(rp)
            } else {
                Err(SdiProblem::NotSdiPage(t))
            }
        }
    }
}

/// `rp` itself, or, on a ROW_FORMAT=COMPRESSED page, the page
/// decompressed into `buf`.
fn unzip<'b>(rp: RecPage<'b>, buf: &'b mut Vec<u8>) -> Result<RecPage<'b>, SdiProblem> {
    if !rp.is_compressed() {
        return Ok(rp);
    }
    let logical = rp.logical_size();
    crate::zip::decompress(rp.bytes(), logical as usize, buf)
        .map_err(|_| SdiProblem::Unreadable)?;
    RecPage::new(buf, logical).ok_or(SdiProblem::Unreadable)
}

fn leaf_records(rp: &RecPage<'_>, page_no: PageNo, visited: &mut Visited, sdi: &mut Sdi) {
    let page = rp.bytes();
    let Some(mut it) = rp.records(visited) else {
        sdi.findings.push(SdiFinding {
            page: page_no,
            offset: 0,
            problem: SdiProblem::Records,
        });
        return;
    };
    loop {
        let rec = match it.next() {
            Ok(Some(r)) => r,
            Ok(None) => break,
            Err(e) => {
                sdi.findings.push(SdiFinding {
                    page: page_no,
                    offset: u16::try_from(e.page_offset().unwrap_or(0)).unwrap_or(u16::MAX),
                    problem: SdiProblem::Records,
                });
                break;
            }
        };
        if !rec.is_user() {
            continue;
        }
        match parse_leaf(page, page_no, rec.origin, rec.header.is_deleted()) {
            Some(r) => sdi.records.push(r),
            None => sdi.findings.push(SdiFinding {
                page: page_no,
                offset: rec.origin,
                problem: SdiProblem::BadRecord,
            }),
        }
    }
}

fn be_u48(page: &[u8], at: usize) -> Option<u64> {
    let hi = u64::from(be_u16(page, at)?);
    let lo = u64::from(be_u32(page, at.checked_add(2)?)?);
    Some(hi << 32 | lo)
}

fn parse_leaf(page: &[u8], page_no: PageNo, origin: u16, deleted: bool) -> Option<SdiRecord> {
    let o = usize::from(origin);
    let b1 = *page.get(o.checked_sub(6)?)?;
    let (len, external) = if b1 & 0x80 != 0 {
        let b2 = *page.get(o.checked_sub(7)?)?;
        (
            (usize::from(b1 & 0x3f) << 8) | usize::from(b2),
            b1 & 0x40 != 0,
        )
    } else {
        (usize::from(b1), false)
    };
    let data = o.checked_add(LEAF_FIXED)?;
    let end = data.checked_add(len)?;
    page.get(data..end)?;
    let (local_len, ext) = if external {
        let r = end.checked_sub(EXTERN_REF)?;
        if r < data {
            return None;
        }
        let ext = ExternRef {
            page: PageNo(be_u32(page, r.checked_add(4)?)?),
            offset: be_u32(page, r.checked_add(8)?)?,
            len: be_u32(page, r.checked_add(16)?)?,
        };
        (r.checked_sub(data)?, Some(ext))
    } else {
        (len, None)
    };
    Some(SdiRecord {
        page: page_no,
        origin,
        deleted,
        sdi_type: be_u32(page, o)?,
        id: u64::from(be_u32(page, o.checked_add(4)?)?) << 32
            | u64::from(be_u32(page, o.checked_add(8)?)?),
        trx_id: be_u48(page, o.checked_add(12)?)?,
        uncompressed_len: be_u32(page, o.checked_add(25)?)?,
        compressed_len: be_u32(page, o.checked_add(29)?)?,
        data_offset: u16::try_from(data).ok()?,
        local_len: u16::try_from(local_len).ok()?,
        external: ext,
    })
}

/// Whether `doc` (an SDI document [`sdi_json`] inflated) is well-formed
/// JSON.
pub fn is_json(doc: &[u8]) -> bool {
    crate::json::parse(doc).is_ok()
}

/// Assembles the compressed bytes of `rec` (in-record part, then the
/// off-page chain) into `zbuf`, and inflates them into `out` (both are
/// cleared first). On error, `out` holds what could be inflated.
pub fn sdi_json(
    ts: &Tablespace<'_>,
    rec: &SdiRecord,
    zbuf: &mut Vec<u8>,
    out: &mut Vec<u8>,
) -> Result<(), SdiFinding> {
    zbuf.clear();
    out.clear();
    let fail = |page: PageNo, offset: usize, problem| SdiFinding {
        page,
        offset: u16::try_from(offset).unwrap_or(u16::MAX),
        problem,
    };
    let page = ts
        .page(rec.page)
        .ok_or(fail(rec.page, 0, SdiProblem::PastFile))?;
    // A ROW_FORMAT=COMPRESSED page: the record is on the page decompressed.
    let mut unzipped = Vec::new();
    let logical = ts.format().logical_size as usize;
    let page = if page.len() < logical {
        crate::zip::decompress(page, logical, &mut unzipped)
            .map_err(|_| fail(rec.page, 0, SdiProblem::Unreadable))?;
        unzipped.as_slice()
    } else {
        page
    };
    let start = usize::from(rec.data_offset);
    let local = page
        .get(start..start.saturating_add(usize::from(rec.local_len)))
        .ok_or(fail(rec.page, start, SdiProblem::BadRecord))?;
    zbuf.extend_from_slice(local);
    if let Some(ext) = rec.external {
        read_chain(ts, ext, rec.compressed_len, zbuf)?;
    }
    let found = u32::try_from(zbuf.len()).unwrap_or(u32::MAX);
    if found != rec.compressed_len {
        return Err(fail(
            rec.page,
            usize::from(rec.origin),
            SdiProblem::LengthMismatch {
                stated: rec.compressed_len,
                found,
            },
        ));
    }
    let limit = rec.uncompressed_len.min(MAX_SDI_BYTES) as usize;
    inflate_zlib(zbuf, out, limit).map_err(|e| fail(rec.page, start, SdiProblem::Inflate(e)))?;
    let produced = u32::try_from(out.len()).unwrap_or(u32::MAX);
    if produced != rec.uncompressed_len {
        return Err(fail(
            rec.page,
            usize::from(rec.origin),
            SdiProblem::InflatedLength {
                stated: rec.uncompressed_len,
                found: produced,
            },
        ));
    }
    Ok(())
}

fn read_chain(
    ts: &Tablespace<'_>,
    ext: ExternRef,
    total: u32,
    zbuf: &mut Vec<u8>,
) -> Result<(), SdiFinding> {
    let mut page_no = ext.page;
    let want = (total as usize).min(MAX_SDI_BYTES as usize);
    // Pages read: a next pointer back to one is a loop, named at it.
    let mut seen = std::collections::HashSet::new();
    for _ in 0..ts.n_pages() {
        let bad = SdiFinding {
            page: page_no,
            offset: 0,
            problem: SdiProblem::BadChain,
        };
        if !seen.insert(page_no.0) {
            return Err(SdiFinding {
                page: page_no,
                offset: 0,
                problem: SdiProblem::ChainLoop,
            });
        }
        let page = ts.page(page_no).ok_or(bad)?;
        let t = FilHeader::new(page).map(|h| h.page_type());
        if !matches!(
            t,
            Some(PageType::FIL_PAGE_SDI_BLOB | PageType::FIL_PAGE_TYPE_BLOB)
        ) {
            return Err(bad);
        }
        let part = be_u32(page, FIL_PAGE_DATA).ok_or(bad)? as usize;
        let next = be_u32(page, FIL_PAGE_DATA.saturating_add(4)).ok_or(bad)?;
        let from = FIL_PAGE_DATA.saturating_add(8);
        let bytes = page.get(from..from.saturating_add(part)).ok_or(bad)?;
        let room = want.saturating_sub(zbuf.len());
        zbuf.extend_from_slice(bytes.get(..room.min(bytes.len())).unwrap_or(&[]));
        if next == FIL_NULL || zbuf.len() >= want {
            return Ok(());
        }
        page_no = PageNo(next);
    }
    Err(SdiFinding {
        page: page_no,
        offset: 0,
        problem: SdiProblem::BadChain,
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]
mod tests {
    use super::*;
    use crate::json;

    use ibdscope_testkit::corpus;

    /// lob0lob.h (old BLOB layout, which SDI_BLOB pages use): part length
    /// and next page at FIL_PAGE_DATA. A chain 2 -> 3 -> 3 and one 2 -> 3
    /// -> 2 is a loop named at the page read twice, not "broken".
    #[test]
    fn sdi_chain_loops_name_the_page() {
        let mut d = vec![0u8; 4 * 16384];
        for n in 0..4usize {
            d[n * 16384 + 4..n * 16384 + 8].copy_from_slice(&(n as u32).to_be_bytes());
        }
        for back in [3u32, 2] {
            for (n, next) in [(2usize, 3u32), (3, back)] {
                let p = &mut d[n * 16384..(n + 1) * 16384];
                p[24..26].copy_from_slice(&PageType::FIL_PAGE_SDI_BLOB.0.to_be_bytes());
                p[38..42].copy_from_slice(&100u32.to_be_bytes());
                p[42..46].copy_from_slice(&next.to_be_bytes());
            }
            let opts = ibdscope_core::Options::default().with_page_size(Some(16384));
            let ts = Tablespace::with_options(&d, opts).unwrap();
            let ext = ExternRef {
                page: PageNo(2),
                offset: 38,
                len: 1000,
            };
            let e = read_chain(&ts, ext, 1000, &mut Vec::new()).unwrap_err();
            assert_eq!((e.problem, e.page), (SdiProblem::ChainLoop, PageNo(back)));
        }
    }

    /// Against the corpus manifest: every MySQL 8.0+ file whose SDI the
    /// corpus read states `sdi_mysqld_version_id`; ours must be that, and
    /// the table SDI must name a table the manifest lists.
    #[test]
    fn corpus_sdi_matches_manifest() {
        let Some(dir) = corpus() else {
            eprintln!("corpus not beside the checkout: skipped");
            return;
        };
        let text = std::fs::read_to_string(dir.join("manifest.tsv")).unwrap();
        let mut lines = text.lines();
        let head: Vec<&str> = lines.next().unwrap().split('\t').collect();
        let col = |n: &str| head.iter().position(|h| *h == n).unwrap();
        let (path_c, ver_c, tables_c) = (col("path"), col("sdi_mysqld_version_id"), col("tables"));
        let mut checked = 0;
        for line in lines {
            let f: Vec<&str> = line.split('\t').collect();
            let want = f[ver_c].trim();
            if want.is_empty() {
                continue;
            }
            let data = std::fs::read(dir.join(f[path_c])).unwrap();
            let ts = Tablespace::new(&data).unwrap();
            let sdi = Sdi::read(&ts);
            assert!(sdi.findings.is_empty(), "{}: {:?}", f[path_c], sdi.findings);
            assert!(!sdi.records.is_empty(), "{}", f[path_c]);
            let (mut z, mut out) = (Vec::new(), Vec::new());
            let mut saw_table = false;
            for r in &sdi.records {
                sdi_json(&ts, r, &mut z, &mut out)
                    .unwrap_or_else(|e| panic!("{}: {e:?}", f[path_c]));
                let v = json::parse(&out).unwrap();
                assert_eq!(
                    v.get("mysqld_version_id")
                        .and_then(|x| x.as_u64())
                        .map(|x| x.to_string()),
                    Some(want.to_string()),
                    "{}",
                    f[path_c]
                );
                if r.sdi_type == 1 {
                    let name = v
                        .get("dd_object")
                        .and_then(|o| o.get("name"))
                        .and_then(|n| n.as_str())
                        .unwrap();
                    assert!(
                        f[tables_c].contains(name),
                        "{}: table {name} not in {}",
                        f[path_c],
                        f[tables_c]
                    );
                    saw_table = true;
                }
            }
            assert!(saw_table, "{}", f[path_c]);
            checked += 1;
        }
        assert!(checked >= 8, "only {checked} files with SDI checked");
    }
}
