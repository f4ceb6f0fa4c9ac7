//! Where each byte of an index page belongs: record extents and the
//! page's byte map (header | records | garbage | free | directory |
//! trailer). Built from the walks of [`crate::record`].
//!
//! | page offsets | class | source |
//! |---|---|---|
//! | 0 .. supremum end (120 COMPACT, 125 REDUNDANT) | header: FIL header, index header, infimum, supremum | fil0types.h, page0types.h, page0page.h |
//! | supremum end .. PAGE_HEAP_TOP | records (user chain) and garbage (free chain, and heap bytes no record covers) | page0page.h, rem0rec.h |
//! | PAGE_HEAP_TOP .. directory | free | page0page.h (`page_get_max_insert_size`) |
//! | size − 8 − 2 × PAGE_N_DIR_SLOTS .. size − 8 | directory | page0page.h |
//! | size − 8 .. size | trailer | fil0types.h (FIL_PAGE_DATA_END) |
//!
//! Record extents. A REDUNDANT record carries its own field end offsets
//! (rem0rec.h), so its extent is exact: `origin − (6 + n_fields × w)` to
//! `origin + end(last field)`. A COMPACT record's NULL bitmap and
//! variable-length field lengths lie before its 5 header bytes, and their
//! size depends on the column layout (rem0rec.cc `rec_init_offsets_comp_ordinary`),
//! which the page does not describe. Without it the extent given here is
//! an upper bound: from the record's 5 header bytes to the 5 header bytes
//! of the next record in page order (or PAGE_HEAP_TOP). The data bytes
//! of the record therefore run from the origin to at most that end; the
//! tail of the span may be the next record's NULL bitmap and lengths, or
//! bytes left over when a free slot was reused by a smaller record
//! (page0page.cc `page_mem_alloc_free` keeps the difference in
//! PAGE_GARBAGE).
//!
//! The infimum and supremum are written whole when a page is created
//! (page0page.cc `page_create_low` copies `infimum_supremum_compact` or
//! `infimum_supremum_redundant` to PAGE_DATA), so their extents are exact
//! and fixed:
//!
//! | format | infimum | supremum |
//! |---|---|---|
//! | COMPACT | 94 .. origin 99 .. 107 (5 header bytes, `"infimum\0"`) | 107 .. origin 112 .. 120 (5 header bytes, `"supremum"`) |
//! | REDUNDANT | 94 .. origin 101 .. 109 (1-byte field end offset, 6 header bytes, `"infimum\0"`) | 109 .. origin 116 .. 125 (1 + 6 header bytes, `"supremum\0"`) |
//!
//! Records are placed by the walks, which are bounded and loop-checked;
//! a broken chain leaves the records after the break out of the map (their
//! bytes count as garbage).

use crate::index::{
    PAGE_DATA, PAGE_DIR, PAGE_DIR_SLOT_SIZE, PAGE_NEW_INFIMUM, PAGE_NEW_SUPREMUM,
    PAGE_NEW_SUPREMUM_END, PAGE_OLD_INFIMUM, PAGE_OLD_SUPREMUM, PAGE_OLD_SUPREMUM_END,
};
use crate::record::{Chain, Rec, RecFormat, RecPage, RecType, Visited};

/// What a byte of an index page holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ByteClass {
    /// FIL header, index header, infimum and supremum.
    Header,
    /// A record on the user chain.
    Record,
    /// A record on the free chain, or heap bytes no record covers.
    Garbage,
    /// Between PAGE_HEAP_TOP and the directory.
    Free,
    /// The page directory.
    Directory,
    /// The FIL trailer.
    Trailer,
}

impl ByteClass {
    /// Every class, in page order.
    pub const ALL: [ByteClass; 6] = [
        ByteClass::Header,
        ByteClass::Record,
        ByteClass::Garbage,
        ByteClass::Free,
        ByteClass::Directory,
        ByteClass::Trailer,
    ];
    /// Lowercase name.
    pub fn name(self) -> &'static str {
        match self {
            ByteClass::Header => "header",
            ByteClass::Record => "records",
            ByteClass::Garbage => "garbage",
            ByteClass::Free => "free",
            ByteClass::Directory => "directory",
            ByteClass::Trailer => "trailer",
        }
    }
    /// One character for a byte map: `H R g . D T`.
    pub fn symbol(self) -> char {
        match self {
            ByteClass::Header => 'H',
            ByteClass::Record => 'R',
            ByteClass::Garbage => 'g',
            ByteClass::Free => '.',
            ByteClass::Directory => 'D',
            ByteClass::Trailer => 'T',
        }
    }
    fn slot(self) -> usize {
        match self {
            ByteClass::Header => 0,
            ByteClass::Record => 1,
            ByteClass::Garbage => 2,
            ByteClass::Free => 3,
            ByteClass::Directory => 4,
            ByteClass::Trailer => 5,
        }
    }
}

/// Where one record's bytes lie, as page offsets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecExtent {
    /// First byte (REDUNDANT: the first field offset; COMPACT: the first of
    /// the 5 header bytes, the NULL bitmap and lengths before it being of
    /// unknown size).
    pub start: u16,
    /// The origin.
    pub origin: u16,
    /// Byte past the record (REDUNDANT: past the last field; COMPACT: an
    /// upper bound, see the module documentation).
    pub end: u16,
    /// True when `start` and `end` are the record's own (REDUNDANT with
    /// sound field offsets).
    pub exact: bool,
}

impl RecExtent {
    /// The data bytes after the origin (exact or an upper bound).
    pub fn data_len(&self) -> u16 {
        self.end.saturating_sub(self.origin)
    }
}

#[derive(Clone, Copy, Debug)]
struct Placed {
    origin: u16,
    chain: Chain,
}

/// The records of one page in page order, for extents and the byte map.
/// Reuse one across pages: [`PageLayout::read`] clears it and allocates
/// only when a page has more records than any before.
#[derive(Clone, Debug, Default)]
pub struct PageLayout {
    placed: Vec<Placed>,
    format: Option<RecFormat>,
    heap_limit: u16,
    supremum_end: u16,
    /// Where the last [`PageLayout::extent`] found its record's successor
    /// in `placed`: records walked in key order on a page filled in key
    /// order follow in page order, and the next one's is one further.
    hint: std::cell::Cell<usize>,
}

impl PageLayout {
    /// An empty layout.
    pub fn new() -> Self {
        Self::default()
    }

    /// Walks `page`'s user and free chains (each as far as it goes) and
    /// sorts their records by origin. Compressed pages give no records.
    /// With `kept`, the records placed are kept there too (cleared first)
    /// with their chain, in walk order: the user chain's user records,
    /// then every record of the free chain; a caller that shows records
    /// walks each page once, not once for the layout and again for its
    /// records.
    pub fn read(
        &mut self,
        page: &RecPage<'_>,
        visited: &mut Visited,
        kept: Option<&mut Vec<(Rec, Chain)>>,
    ) {
        let mut kept = kept;
        if let Some(k) = kept.as_deref_mut() {
            k.clear();
        }
        self.placed.clear();
        self.hint.set(0);
        self.format = Some(page.format());
        self.heap_limit = u16::try_from(page.heap_limit()).unwrap_or(u16::MAX);
        self.supremum_end = u16::try_from(page.format().supremum_end()).unwrap_or(u16::MAX);
        for chain in [Chain::User, Chain::Free] {
            let it = match chain {
                Chain::User => page.records(visited),
                Chain::Free => page.free_records(visited),
            };
            let Some(mut it) = it else { return };
            while let Ok(Some(rec)) = it.next() {
                if rec.is_user() || chain == Chain::Free {
                    self.placed.push(Placed {
                        origin: rec.origin,
                        chain,
                    });
                    if let Some(k) = kept.as_deref_mut() {
                        k.push((rec, chain));
                    }
                }
            }
        }
        self.placed.sort_unstable_by_key(|p| p.origin);
        // A record on both chains (damage) is kept once, as a user record.
        self.placed.dedup_by_key(|p| p.origin);
    }

    /// The records placed, in page order: origin, and the chain it was
    /// found on (a record on both is a user record).
    pub fn records(&self) -> impl Iterator<Item = (u16, Chain)> + '_ {
        self.placed.iter().map(|p| (p.origin, p.chain))
    }

    /// Records placed, user and free.
    pub fn len(&self) -> usize {
        self.placed.len()
    }
    /// True when no record was placed.
    pub fn is_empty(&self) -> bool {
        self.placed.is_empty()
    }

    /// The extent of `rec` (a record of the page last read).
    pub fn extent(&self, page: &RecPage<'_>, rec: &Rec) -> RecExtent {
        if let Some(e) = system_extent(rec) {
            return e;
        }
        let bytes = page.bytes();
        let origin = rec.origin;
        let fixed = u16::try_from(rec.header.format.extra_bytes()).unwrap_or(0);
        if rec.header.format == RecFormat::Redundant && rec.fields_ascend(bytes) {
            let extra = u16::try_from(rec.header.extra_size()).unwrap_or(u16::MAX);
            if let (Some(start), Some(end)) = (
                origin.checked_sub(extra),
                rec.data_size(bytes).and_then(|d| origin.checked_add(d)),
            ) {
                if start >= self.supremum_end && end <= self.heap_limit {
                    return RecExtent {
                        start,
                        origin,
                        end,
                        exact: true,
                    };
                }
            }
        }
        // The next record in page order, or the heap's end: one past the
        // last one's when it is (the first placed record past `origin`),
        // else searched.
        let placed = &self.placed;
        let next = self.hint.get().saturating_add(1);
        let is_next = |k: usize| {
            placed.get(k).is_none_or(|p| p.origin > origin)
                && k.checked_sub(1)
                    .is_none_or(|j| placed.get(j).is_some_and(|p| p.origin <= origin))
        };
        let k = if next <= placed.len() && is_next(next) {
            next
        } else {
            placed.partition_point(|p| p.origin <= origin)
        };
        self.hint.set(k);
        let bound = self
            .placed
            .get(k)
            .map_or(self.heap_limit, |p| p.origin.saturating_sub(fixed));
        RecExtent {
            start: origin.saturating_sub(fixed),
            origin,
            end: bound.max(origin),
            exact: false,
        }
    }

    /// The byte map of the page last read.
    pub fn byte_map(&self, page: &RecPage<'_>) -> ByteMap {
        let size = page.logical_size();
        let mut spans: Vec<(u32, u32, ByteClass)> = Vec::new();
        let sup_end = u32::from(self.supremum_end).min(size);
        spans.push((0, sup_end, ByteClass::Header));
        let trailer = size.saturating_sub(PAGE_DIR as u32);
        let dir_bytes =
            u32::from(page.header().n_dir_slots()).saturating_mul(PAGE_DIR_SLOT_SIZE as u32);
        let dir_low = trailer.saturating_sub(dir_bytes).max(sup_end);
        let heap_top = u32::from(page.header().heap_top()).clamp(sup_end, dir_low);
        // Records: each extent, garbage in between.
        let mut at = sup_end;
        for (i, p) in self.placed.iter().enumerate() {
            let Some(rec) = page.record_at(p.origin) else {
                continue;
            };
            let e = self.extent(page, &rec);
            let class = match p.chain {
                Chain::User => ByteClass::Record,
                Chain::Free => ByteClass::Garbage,
            };
            // COMPACT: the bytes before the first record are its NULL
            // bitmap and lengths.
            let start = if i == 0 && !e.exact {
                sup_end
            } else {
                u32::from(e.start)
            };
            let start = start.clamp(at, heap_top);
            let end = u32::from(e.end).clamp(start, heap_top);
            if start > at {
                spans.push((at, start, ByteClass::Garbage));
            }
            if end > start {
                spans.push((start, end, class));
            }
            at = at.max(end);
        }
        if heap_top > at {
            spans.push((at, heap_top, ByteClass::Garbage));
        }
        spans.push((heap_top, dir_low, ByteClass::Free));
        spans.push((dir_low, trailer.max(dir_low), ByteClass::Directory));
        spans.push((trailer.max(dir_low), size, ByteClass::Trailer));
        spans.retain(|&(a, b, _)| b > a);
        let mut bytes = [0u32; 6];
        for &(a, b, c) in &spans {
            if let Some(n) = bytes.get_mut(c.slot()) {
                *n = n.saturating_add(b.saturating_sub(a));
            }
        }
        ByteMap { size, spans, bytes }
    }
}

/// The fixed extent of the infimum or supremum at its place (see the
/// module documentation); `None` for any other record.
pub(crate) fn system_extent(rec: &Rec) -> Option<RecExtent> {
    let (start, origin, end) = match (rec.rec_type, rec.header.format) {
        (RecType::Infimum, RecFormat::Compact) => {
            (PAGE_DATA, PAGE_NEW_INFIMUM, PAGE_NEW_SUPREMUM - 5)
        }
        (RecType::Supremum, RecFormat::Compact) => (
            PAGE_NEW_SUPREMUM - 5,
            PAGE_NEW_SUPREMUM,
            PAGE_NEW_SUPREMUM_END,
        ),
        (RecType::Infimum, RecFormat::Redundant) => {
            (PAGE_DATA, PAGE_OLD_INFIMUM, PAGE_OLD_SUPREMUM - 7)
        }
        (RecType::Supremum, RecFormat::Redundant) => (
            PAGE_OLD_SUPREMUM - 7,
            PAGE_OLD_SUPREMUM,
            PAGE_OLD_SUPREMUM_END,
        ),
        _ => return None,
    };
    let at = |v: usize| u16::try_from(v).ok();
    (usize::from(rec.origin) == origin).then_some(RecExtent {
        start: at(start)?,
        origin: at(origin)?,
        end: at(end)?,
        exact: true,
    })
}

/// How the bytes of an index page are used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ByteMap {
    size: u32,
    /// `(start, end, class)` in page order, not overlapping.
    spans: Vec<(u32, u32, ByteClass)>,
    bytes: [u32; 6],
}

impl ByteMap {
    /// Bytes of `class`.
    pub fn bytes(&self, class: ByteClass) -> u32 {
        self.bytes.get(class.slot()).copied().unwrap_or(0)
    }
    /// The spans, `(start, end, class)`, in page order.
    pub fn spans(&self) -> &[(u32, u32, ByteClass)] {
        &self.spans
    }
    /// The page in `cells` equal cells, each the class holding most of its
    /// bytes (the earlier class on a tie).
    pub fn cells(&self, cells: u32) -> impl Iterator<Item = ByteClass> + '_ {
        let cells = cells.max(1);
        let size = u64::from(self.size);
        let mut k = 0usize;
        (0..cells).map(move |i| {
            let lo = (u64::from(i).saturating_mul(size))
                .checked_div(u64::from(cells))
                .unwrap_or(0);
            let hi = (u64::from(i).saturating_add(1).saturating_mul(size))
                .checked_div(u64::from(cells))
                .unwrap_or(0);
            let mut count = [0u64; 6];
            while let Some(&(a, b, c)) = self.spans.get(k) {
                let (a, b) = (u64::from(a), u64::from(b));
                if a >= hi {
                    break;
                }
                let overlap = b.min(hi).saturating_sub(a.max(lo));
                if let Some(n) = count.get_mut(c.slot()) {
                    *n = n.saturating_add(overlap);
                }
                if b <= hi {
                    k = k.saturating_add(1);
                } else {
                    break;
                }
            }
            let mut best = ByteClass::Free;
            let mut most = 0u64;
            for c in ByteClass::ALL {
                let n = count.get(c.slot()).copied().unwrap_or(0);
                if n > most {
                    (best, most) = (c, n);
                }
            }
            best
        })
    }
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
    use crate::record::tests::PageBuilder;

    fn layout(page: &[u8]) -> (RecPage<'_>, PageLayout) {
        let p = RecPage::new(page, page.len() as u32).unwrap();
        let mut l = PageLayout::new();
        l.read(&p, &mut Visited::new(), None);
        (p, l)
    }

    #[test]
    fn redundant_extents_are_exact_and_the_map_adds_up() {
        let mut b = PageBuilder::new(16384, RecFormat::Redundant);
        for _ in 0..6 {
            b.push(0, &[4, 6, 7, 10]);
        }
        let gone = b.chain[2];
        b.delete(gone, 6 + 4 + 27);
        let page = b.finish().to_vec();
        let (p, l) = layout(&page);
        assert_eq!(l.len(), 6);
        let rec = p.record_at(b.chain[0] as u16).unwrap();
        let e = l.extent(&p, &rec);
        assert!(e.exact);
        assert_eq!((e.start as usize, e.end as usize), (125, 125 + 37));
        assert_eq!(e.data_len(), 27);
        let m = l.byte_map(&p);
        assert_eq!(m.bytes(ByteClass::Header), 125);
        assert_eq!(m.bytes(ByteClass::Record), 5 * 37);
        assert_eq!(m.bytes(ByteClass::Garbage), 37);
        assert_eq!(m.bytes(ByteClass::Free), 16384 - 8 - 2 * 3 - (125 + 6 * 37));
        assert_eq!(m.bytes(ByteClass::Directory), 6);
        assert_eq!(m.bytes(ByteClass::Trailer), 8);
        let total: u32 = ByteClass::ALL.iter().map(|&c| m.bytes(c)).sum();
        assert_eq!(total, 16384);
        let cells: String = m.cells(64).map(ByteClass::symbol).collect();
        assert_eq!(cells.len(), 64);
        assert!(cells.starts_with('R') || cells.starts_with('H'));
        assert!(cells.ends_with('.'), "{cells}");
    }

    #[test]
    fn compact_extents_reach_the_next_record() {
        let mut b = PageBuilder::new(4096, RecFormat::Compact);
        for _ in 0..4 {
            b.push(0, &[20]);
        }
        let gone = b.chain[1];
        b.delete(gone, 25);
        let page = b.finish().to_vec();
        let (p, l) = layout(&page);
        let first = p.record_at(b.chain[0] as u16).unwrap();
        let e = l.extent(&p, &first);
        assert!(!e.exact);
        // Origin 125, next record (the freed one) at 150: 20 data bytes.
        assert_eq!((e.start, e.origin, e.end), (120, 125, 145));
        let last = p.record_at(*b.chain.last().unwrap() as u16).unwrap();
        assert_eq!(l.extent(&p, &last).end as usize, b.top);
        let m = l.byte_map(&p);
        assert_eq!(m.bytes(ByteClass::Record), 3 * 25);
        assert_eq!(m.bytes(ByteClass::Garbage), 25);
        let cells: String = m.cells(16).map(ByteClass::symbol).collect();
        assert_eq!(cells, "H...............");
        let cells: String = m.cells(4096).map(ByteClass::symbol).collect();
        assert_eq!(&cells[120..125], "RRRRR");
        assert_eq!(&cells[145..170], "ggggggggggggggggggggggggg");
        assert!(cells.ends_with("DDDDTTTTTTTT"));
    }

    #[test]
    fn keeping_the_records_places_them_as_reading_does() {
        for format in [RecFormat::Compact, RecFormat::Redundant] {
            let mut b = PageBuilder::new(4096, format);
            for _ in 0..5 {
                b.push(0, &[20]);
            }
            let gone = b.chain[3];
            b.delete(gone, 25);
            let page = b.finish().to_vec();
            let (p, l) = layout(&page);
            let mut k = PageLayout::new();
            let mut kept = vec![(p.record_at(b.chain[0] as u16).unwrap(), Chain::Free)];
            k.read(&p, &mut Visited::new(), Some(&mut kept));
            assert_eq!(
                k.records().collect::<Vec<_>>(),
                l.records().collect::<Vec<_>>()
            );
            // The walks' own records, in walk order: the user chain's,
            // then the free chain's.
            let mut v = Visited::new();
            let mut want = Vec::new();
            for (chain, it) in [(Chain::User, p.records(&mut v))] {
                let mut it = it.unwrap();
                while let Ok(Some(r)) = it.next() {
                    if r.is_user() {
                        want.push((r, chain));
                    }
                }
            }
            let mut it = p.free_records(&mut v).unwrap();
            while let Ok(Some(r)) = it.next() {
                want.push((r, Chain::Free));
            }
            assert_eq!(kept, want);
            assert_eq!((kept.len(), kept.last().unwrap().1), (5, Chain::Free));
            for (r, _) in &kept {
                assert_eq!(k.extent(&p, r), l.extent(&p, r));
            }
        }
    }

    /// mysql-server 8.0 page0types.h: PAGE_NEW_INFIMUM 99,
    /// PAGE_NEW_SUPREMUM 112, PAGE_NEW_SUPREMUM_END 120, PAGE_OLD_INFIMUM
    /// 101, PAGE_OLD_SUPREMUM 116, PAGE_OLD_SUPREMUM_END 125; page0page.cc
    /// copies the two records whole to PAGE_DATA 94.
    #[test]
    fn system_records_have_their_exact_extents() {
        let want = [
            (RecFormat::Compact, (94, 99, 107), (107, 112, 120)),
            (RecFormat::Redundant, (94, 101, 109), (109, 116, 125)),
        ];
        for (format, inf, sup) in want {
            let mut b = PageBuilder::new(16384, format);
            for _ in 0..3 {
                b.push(0, &[4, 6]);
            }
            let page = b.finish().to_vec();
            let (p, l) = layout(&page);
            let e = |r: Option<Rec>| {
                let e = l.extent(&p, &r.unwrap());
                assert!(e.exact, "{format:?}");
                (e.start, e.origin, e.end)
            };
            assert_eq!(e(p.infimum()), inf, "{format:?}");
            assert_eq!(e(p.supremum()), sup, "{format:?}");
            // The first user record starts at the supremum's end or later.
            let first = p.record_at(b.chain[0] as u16).unwrap();
            assert!(l.extent(&p, &first).start >= sup.2, "{format:?}");
        }
    }

    #[test]
    fn damaged_pages_stay_in_bounds() {
        let mut b = PageBuilder::new(16384, RecFormat::Compact);
        for _ in 0..5 {
            b.push(0, &[8]);
        }
        b.finish();
        // Heap top below the records, directory over the heap.
        b.put16(38 + 2, 100);
        b.put16(38, 9000);
        let (p, l) = layout(&b.page);
        let m = l.byte_map(&p);
        let total: u32 = ByteClass::ALL.iter().map(|&c| m.bytes(c)).sum();
        assert_eq!(total, 16384);
        assert_eq!(m.cells(0).count(), 1);
    }
}
