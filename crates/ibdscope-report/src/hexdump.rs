//! `page FILE N --hex`: the page's bytes in ranges, each named by the
//! structure `page` reads there. Index pages: the FIL header fields, the
//! INDEX header fields, the two FSEG headers, the infimum and supremum
//! (header and data, exact: layout.rs), each record of the user and free
//! chains (header, then body from the origin; COMPACT bodies are upper
//! bounds), heap bytes no record covers, the free space, each directory
//! slot, the FIL trailer. FSP_HDR and XDES pages: the FSP header fields and
//! the XDES entries; INODE pages: the list node and each inode;
//! ROW_FORMAT=COMPRESSED index pages: the INDEX header, then the compressed
//! rest; any other page: its FIL header, body and trailer. The ranges are in page order,
//! do not overlap and cover the page.

use crate::json::Json;
use ibdscope_core::checksum::Scheme;
use ibdscope_core::fil::FIL_PAGE_DATA;
use ibdscope_core::fsp::FSP_HEADER_OFFSET;
use ibdscope_core::index::{PAGE_DATA, PAGE_DIR, PAGE_DIR_SLOT_SIZE};
use ibdscope_core::inode::{inode_size, inodes_per_page, FSEG_ARR_OFFSET};
use ibdscope_core::layout::{PageLayout, RecExtent};
use ibdscope_core::record::Chain;
use ibdscope_core::xdes::{xdes_size, XDES_ARR_OFFSET};
use ibdscope_core::{PageNo, PageType, RecFormat, RecPage, Tablespace};
use std::io::{self, Write};

/// One named byte range of a page: `start..end` page offsets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Range {
    /// First byte.
    pub start: usize,
    /// Byte past the range.
    pub end: usize,
    /// What the bytes are.
    pub name: String,
}

/// Ranges in page order, made contiguous as they are added.
struct Ranges {
    v: Vec<Range>,
    size: usize,
}

impl Ranges {
    fn new(size: usize) -> Self {
        Ranges {
            v: Vec::new(),
            size,
        }
    }

    /// Where the last range ends.
    fn at(&self) -> usize {
        self.v.last().map_or(0, |r| r.end)
    }

    /// Adds `start..end` as `name`, cut to what follows the ranges before
    /// and to the page; a hole before it is named `gap`.
    fn add(&mut self, start: usize, end: usize, name: impl Into<String>, gap: &str) {
        let at = self.at();
        let end = end.min(self.size);
        if end <= at {
            return;
        }
        let start = start.max(at).min(end);
        if start > at {
            self.v.push(Range {
                start: at,
                end: start,
                name: gap.to_string(),
            });
        }
        if end > start {
            self.v.push(Range {
                start,
                end,
                name: name.into(),
            });
        }
    }

    /// Named fields at `base`: `(offset, length, name)`.
    fn fields(&mut self, base: usize, fields: &[(usize, usize, &str)]) {
        for &(off, len, name) in fields {
            let s = base.saturating_add(off);
            self.add(s, s.saturating_add(len), name, "unused");
        }
    }

    /// The FIL trailer (its two halves as the space's checksum scheme
    /// uses them), the bytes before it named `rest`.
    fn trailer(mut self, scheme: Scheme, rest: &str) -> Vec<Range> {
        let t = self.size.saturating_sub(PAGE_DIR);
        let (a, b) = if scheme == Scheme::FullCrc32 {
            (
                "FIL trailer: low 32 bits of FIL_PAGE_LSN",
                "FIL trailer: CRC-32C checksum (full_crc32)",
            )
        } else {
            (
                "FIL trailer: old-style checksum",
                "FIL trailer: low 32 bits of FIL_PAGE_LSN",
            )
        };
        let at = self.at();
        self.add(at, t, rest, rest);
        self.add(t, t.saturating_add(4), a, rest);
        self.add(t.saturating_add(4), self.size, b, rest);
        self.v
    }
}

/// The FIL header's fields (fil0types.h).
const FIL_FIELDS: [(usize, usize, &str); 8] = [
    (0, 4, "FIL_PAGE_SPACE_OR_CHKSUM"),
    (4, 4, "FIL_PAGE_OFFSET"),
    (8, 4, "FIL_PAGE_PREV"),
    (12, 4, "FIL_PAGE_NEXT"),
    (16, 8, "FIL_PAGE_LSN"),
    (24, 2, "FIL_PAGE_TYPE"),
    (26, 8, "FIL_PAGE_FILE_FLUSH_LSN"),
    (34, 4, "FIL_PAGE_SPACE_ID"),
];

/// The INDEX header's fields and FSEG headers (page0types.h), from 38.
const INDEX_FIELDS: [(usize, usize, &str); 14] = [
    (0, 2, "PAGE_N_DIR_SLOTS"),
    (2, 2, "PAGE_HEAP_TOP"),
    (4, 2, "PAGE_N_HEAP"),
    (6, 2, "PAGE_FREE"),
    (8, 2, "PAGE_GARBAGE"),
    (10, 2, "PAGE_LAST_INSERT"),
    (12, 2, "PAGE_DIRECTION"),
    (14, 2, "PAGE_N_DIRECTION"),
    (16, 2, "PAGE_N_RECS"),
    (18, 8, "PAGE_MAX_TRX_ID"),
    (26, 2, "PAGE_LEVEL"),
    (28, 8, "PAGE_INDEX_ID"),
    (36, 10, "PAGE_BTR_SEG_LEAF (FSEG header)"),
    (46, 10, "PAGE_BTR_SEG_TOP (FSEG header)"),
];

/// The FSP header's fields (fsp0fsp.h), from 38.
const FSP_FIELDS: [(usize, usize, &str); 12] = [
    (0, 4, "FSP_SPACE_ID"),
    (4, 4, "FSP_NOT_USED"),
    (8, 4, "FSP_SIZE"),
    (12, 4, "FSP_FREE_LIMIT"),
    (16, 4, "FSP_SPACE_FLAGS"),
    (20, 4, "FSP_FRAG_N_USED"),
    (24, 16, "FSP_FREE (list base node)"),
    (40, 16, "FSP_FREE_FRAG (list base node)"),
    (56, 16, "FSP_FULL_FRAG (list base node)"),
    (72, 8, "FSP_SEG_ID"),
    (80, 16, "FSP_SEG_INODES_FULL (list base node)"),
    (96, 16, "FSP_SEG_INODES_FREE (list base node)"),
];

/// The named ranges of page `n`: `index` is the page's records view and
/// layout when it is a readable, uncompressed index page.
pub fn ranges(
    ts: &Tablespace<'_>,
    n: PageNo,
    bytes: &[u8],
    index: Option<(&RecPage<'_>, &PageLayout)>,
) -> Vec<Range> {
    let mut r = Ranges::new(bytes.len());
    r.fields(0, &FIL_FIELDS);
    if let Some((rp, layout)) = index {
        r.fields(FIL_PAGE_DATA, &INDEX_FIELDS);
        index_body(&mut r, rp, layout);
        return r.trailer(ts.scheme(), "free space");
    }
    let page_type = ibdscope_core::fil::FilHeader::new(bytes).map(|f| f.page_type());
    let (physical, logical) = (ts.page_size(), ts.format().logical_size);
    let extent = ibdscope_core::fsp::extent_size(logical);
    match page_type {
        Some(PageType(8)) | Some(PageType(9)) => {
            if page_type == Some(PageType(8)) {
                r.fields(FSP_HEADER_OFFSET, &FSP_FIELDS);
            }
            let entries = physical.checked_div(extent).unwrap_or(0) as usize;
            let size = xdes_size(extent);
            for i in 0..entries {
                let s = XDES_ARR_OFFSET.saturating_add(size.saturating_mul(i));
                let first = (i as u32).saturating_mul(extent).saturating_add(n.0);
                let name = format!("XDES entry {i} (the extent from page {first})");
                r.add(s, s.saturating_add(size), name, "unused");
            }
            r.trailer(ts.scheme(), "unused")
        }
        Some(PageType(3)) => {
            r.add(
                FIL_PAGE_DATA,
                FSEG_ARR_OFFSET,
                "FSEG_INODE_PAGE_NODE (list node)",
                "unused",
            );
            let size = inode_size(logical);
            for i in 0..inodes_per_page(physical, logical) as usize {
                let s = FSEG_ARR_OFFSET.saturating_add(size.saturating_mul(i));
                r.add(s, s.saturating_add(size), format!("inode {i}"), "unused");
            }
            r.trailer(ts.scheme(), "unused")
        }
        Some(t) if ts.scheme() == Scheme::Zip && t.is_index(ts.type_names()) => {
            // ROW_FORMAT=COMPRESSED: the INDEX header as on the
            // uncompressed page, then a zlib stream, a modification log and
            // a dense directory up to the end; no FIL trailer.
            r.fields(FIL_PAGE_DATA, &INDEX_FIELDS);
            let name = "compressed records: zlib stream, modification log, dense directory";
            let at = r.at();
            r.add(at, bytes.len(), name, "");
            r.v
        }
        _ => r.trailer(ts.scheme(), "page body"),
    }
}

/// The records, free space and directory of an index page.
fn index_body(r: &mut Ranges, rp: &RecPage<'_>, layout: &PageLayout) {
    let size = r.size;
    for (which, rec) in [("infimum", rp.infimum()), ("supremum", rp.supremum())] {
        if let Some(rec) = rec {
            let e = layout.extent(rp, &rec);
            record(r, &e, which, "unused");
        }
    }
    let sup_end = rp.format().supremum_end();
    let dir_bytes = usize::from(rp.header().n_dir_slots()).saturating_mul(PAGE_DIR_SLOT_SIZE);
    let trailer = size.saturating_sub(PAGE_DIR);
    let dir_low = trailer.saturating_sub(dir_bytes).max(sup_end);
    let heap_top = usize::from(rp.header().heap_top()).clamp(sup_end, dir_low);
    let gap = "heap bytes no record covers";
    for (origin, chain) in layout.records() {
        let Some(rec) = rp.record_at(origin) else {
            continue;
        };
        let mut e = layout.extent(rp, &rec);
        e.end = e.end.min(u16::try_from(heap_top).unwrap_or(u16::MAX));
        let what = match chain {
            Chain::User => format!("record {origin} (heap {})", rec.header.heap_no),
            Chain::Free => format!("garbage record {origin} (heap {})", rec.header.heap_no),
        };
        if !e.exact && rp.format() == RecFormat::Compact && r.at() == sup_end {
            // The bytes before the first record's 5 header bytes are its
            // NULL bitmap and field lengths.
            r.add(
                sup_end,
                usize::from(e.start),
                format!("{what} header: NULL bitmap and lengths (size by the column layout)"),
                gap,
            );
        }
        record(r, &e, &what, gap);
    }
    r.add(r.at(), heap_top, gap, gap);
    r.add(heap_top, dir_low, "free space", gap);
    // Slot n is at size − 8 − (n + 1) × 2: the last slot lowest.
    for slot in (0..rp.header().n_dir_slots()).rev() {
        let Some(at) = rp.dir_slot_offset(slot) else {
            continue;
        };
        if at < PAGE_DATA {
            continue;
        }
        let to = rp.dir_slot(slot).unwrap_or(0);
        r.add(
            at,
            at.saturating_add(PAGE_DIR_SLOT_SIZE),
            format!("directory slot {slot} -> {to}"),
            "free space",
        );
    }
}

/// A record's header (start to origin) and body (origin to end).
fn record(r: &mut Ranges, e: &RecExtent, what: &str, gap: &str) {
    let (s, o, end) = (
        usize::from(e.start),
        usize::from(e.origin),
        usize::from(e.end),
    );
    r.add(s, o, format!("{what} header"), gap);
    let body = if e.exact {
        format!("{what} data")
    } else {
        format!("{what} data (at most: to the next record's header)")
    };
    r.add(o, end, body, gap);
}

/// Writes the ranges as text: each range's offsets and name, then its
/// bytes 16 a line (a range of zero bytes longer than a line as one line).
pub fn text(out: &mut dyn Write, bytes: &[u8], ranges: &[Range]) -> io::Result<()> {
    writeln!(out, "hex dump: page offsets, then what the bytes are")?;
    for r in ranges {
        writeln!(
            out,
            "{:>5}..{:<5} {} ({} bytes)",
            r.start,
            r.end,
            r.name,
            r.end.saturating_sub(r.start)
        )?;
        let b = bytes.get(r.start..r.end).unwrap_or(&[]);
        if b.len() > 16 && b.iter().all(|&x| x == 0) {
            writeln!(out, "  {:>5}  (all zero)", r.start)?;
            continue;
        }
        for (k, line) in b.chunks(16).enumerate() {
            let hex: Vec<String> = line.iter().map(|x| format!("{x:02x}")).collect();
            let ascii: String = line
                .iter()
                .map(|&x| {
                    if x.is_ascii_graphic() || x == b' ' {
                        char::from(x)
                    } else {
                        '.'
                    }
                })
                .collect();
            writeln!(
                out,
                "  {:>5}  {:<47}  |{ascii}|",
                r.start.saturating_add(k.saturating_mul(16)),
                hex.join(" ")
            )?;
        }
    }
    Ok(())
}

/// Writes the ranges as the JSON member `hex`: `[{start, end, name, hex}]`.
pub fn json(j: &mut Json<'_>, bytes: &[u8], ranges: &[Range]) -> io::Result<()> {
    j.key("hex")?.arr()?;
    for r in ranges {
        let b = bytes.get(r.start..r.end).unwrap_or(&[]);
        let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
        j.obj()?
            .kv_num("start", r.start as u64)?
            .kv_num("end", r.end as u64)?
            .kv_str("name", &r.name)?
            .kv_str("hex", &hex)?
            .end_obj()?;
    }
    j.end_arr()?;
    Ok(())
}

#[cfg(test)]
#[allow(
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic
)]
mod tests {
    use super::*;

    /// Damaged index pages (header fields, record headers and directory
    /// slots overwritten at random) still give ranges in order that cover the
    /// page, and never panic.
    #[test]
    fn hex_dump_ranges_cover_damaged_pages() {
        use ibdscope_core::{PageNo, Visited};
        use ibdscope_testkit::fixtures;
        for (file, n) in [
            ("mysql56/secondary.ibd", 6),
            ("mysql56/rf_redundant.ibd", 4),
        ] {
            let bytes = std::fs::read(fixtures().join(file)).expect("fixture");
            let ts = Tablespace::new(&bytes).expect("space");
            let page = ts.page(PageNo(n)).expect("page").to_vec();
            let mut seed = 0x9e37_79b9_7f4a_7c15u64;
            let mut next = || {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                seed
            };
            for _ in 0..3000 {
                let mut p = page.clone();
                for _ in 0..1 + next() % 4 {
                    // Mostly the header and the first records, sometimes the
                    // directory.
                    let at = if next() % 4 == 0 {
                        p.len() - 8 - 2 * (next() as usize % 16) - 2
                    } else {
                        38 + next() as usize % 300
                    };
                    p[at] = next() as u8;
                }
                let Some(rp) = RecPage::new(&p, 16384) else {
                    continue;
                };
                let mut layout = PageLayout::new();
                layout.read(&rp, &mut Visited::new(), None);
                let ranges = ranges(&ts, PageNo(n), &p, Some((&rp, &layout)));
                let mut end = 0;
                for r in &ranges {
                    assert_eq!(r.start, end, "{file}: {ranges:?}");
                    assert!(r.end > r.start);
                    end = r.end;
                }
                assert_eq!(end, p.len(), "{file}");
            }
        }
    }
}
