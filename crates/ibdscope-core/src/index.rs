//! The INDEX page header (storage/innobase/include/page0types.h and
//! page0page.h, MySQL 5.7/8.0; MariaDB 10.11 page0page.h). Records are not
//! parsed here.
//!
//! The header starts at PAGE_HEADER = FIL_PAGE_DATA (38); offsets below are
//! relative to it (add 38 for the page offset):
//!
//! | offset | size | field |
//! |-------:|-----:|-------|
//! |      0 |    2 | PAGE_N_DIR_SLOTS |
//! |      2 |    2 | PAGE_HEAP_TOP: first byte past the record heap |
//! |      4 |    2 | PAGE_N_HEAP: bit 15 = COMPACT format, low 15 bits = heap records |
//! |      6 |    2 | PAGE_FREE: first deleted record, 0 if none |
//! |      8 |    2 | PAGE_GARBAGE: bytes in deleted records |
//! |     10 |    2 | PAGE_LAST_INSERT |
//! |     12 |    2 | PAGE_DIRECTION (MariaDB: PAGE_INSTANT in the high 13 bits) |
//! |     14 |    2 | PAGE_N_DIRECTION |
//! |     16 |    2 | PAGE_N_RECS: user records |
//! |     18 |    8 | PAGE_MAX_TRX_ID (MariaDB clustered root: PAGE_ROOT_AUTO_INC) |
//! |     26 |    2 | PAGE_LEVEL: 0 = leaf |
//! |     28 |    8 | PAGE_INDEX_ID |
//! |     36 |   10 | PAGE_BTR_SEG_LEAF: FSEG header of the leaf segment (root only) |
//! |     46 |   10 | PAGE_BTR_SEG_TOP: FSEG header of the non-leaf segment (root only) |
//!
//! PAGE_DATA = 38 + 36 + 2×10 = 94. The system records (page0page.h):
//! COMPACT infimum at 99 (PAGE_NEW_INFIMUM), supremum at 112
//! (PAGE_NEW_SUPREMUM), ending at 120 (PAGE_NEW_SUPREMUM_END); REDUNDANT at
//! 101, 116 and 125 (PAGE_OLD_*). The page directory grows down from
//! `size − FIL_PAGE_DATA_END`, 2 bytes per slot.
//!
//! Traps: the FSEG headers are meaningful only on the root. InnoDB does not
//! clear them when it copies a root (MySQL 5.0 files in the corpus keep the
//! root's headers on two leaves), so a non-zero FSEG header does not by
//! itself make a root. On ROW_FORMAT=COMPRESSED pages the header is stored
//! uncompressed and describes the uncompressed (logical) page; the fill
//! computed from it is therefore that of the logical page, an approximation
//! of the compressed page's use (see [`PageFill::approximate`]).

use crate::bytes::{be_u16_at, be_u64_at};
use crate::fil::{FIL_PAGE_DATA, FIL_PAGE_DATA_END};
use crate::ids::IndexId;
use crate::inode::{FsegHeader, FSEG_HEADER_SIZE};

/// Offset of the index page header.
pub const PAGE_HEADER: usize = FIL_PAGE_DATA;
/// Number of directory slots.
pub const PAGE_N_DIR_SLOTS: usize = 0;
/// Heap top.
pub const PAGE_HEAP_TOP: usize = 2;
/// Records in the heap, and the COMPACT flag.
pub const PAGE_N_HEAP: usize = 4;
/// First deleted record.
pub const PAGE_FREE: usize = 6;
/// Bytes in deleted records.
pub const PAGE_GARBAGE: usize = 8;
/// Last inserted record.
pub const PAGE_LAST_INSERT: usize = 10;
/// Insert direction (MariaDB: also PAGE_INSTANT).
pub const PAGE_DIRECTION: usize = 12;
/// Consecutive inserts in the same direction.
pub const PAGE_N_DIRECTION: usize = 14;
/// User records on the page.
pub const PAGE_N_RECS: usize = 16;
/// Highest transaction id that modified the page.
pub const PAGE_MAX_TRX_ID: usize = 18;
/// B-tree level, 0 for leaves.
pub const PAGE_LEVEL: usize = 26;
/// Index id.
pub const PAGE_INDEX_ID: usize = 28;
/// FSEG header of the leaf segment.
pub const PAGE_BTR_SEG_LEAF: usize = 36;
/// FSEG header of the non-leaf segment.
pub const PAGE_BTR_SEG_TOP: usize = 36 + FSEG_HEADER_SIZE;
/// Size of the index page header.
pub(crate) const PAGE_HEADER_SIZE: usize = 36 + 2 * FSEG_HEADER_SIZE;
/// Start of the record heap.
pub const PAGE_DATA: usize = PAGE_HEADER + PAGE_HEADER_SIZE;
/// COMPACT infimum record origin.
pub const PAGE_NEW_INFIMUM: usize = PAGE_DATA + 5;
/// COMPACT supremum record origin.
pub const PAGE_NEW_SUPREMUM: usize = PAGE_DATA + 2 * 5 + 8;
/// End of the COMPACT supremum record.
pub const PAGE_NEW_SUPREMUM_END: usize = PAGE_NEW_SUPREMUM + 8;
/// REDUNDANT infimum record origin.
pub const PAGE_OLD_INFIMUM: usize = PAGE_DATA + 1 + 6;
/// REDUNDANT supremum record origin.
pub const PAGE_OLD_SUPREMUM: usize = PAGE_DATA + 2 + 2 * 6 + 8;
/// End of the REDUNDANT supremum record.
pub const PAGE_OLD_SUPREMUM_END: usize = PAGE_OLD_SUPREMUM + 9;
/// Size of one page directory slot.
pub const PAGE_DIR_SLOT_SIZE: usize = 2;
/// Distance from the page end to the directory (the FIL trailer).
pub const PAGE_DIR: usize = FIL_PAGE_DATA_END;

/// A view of the index page header, length-checked once.
#[derive(Clone, Copy, Debug)]
pub struct IndexHeader<'a>(&'a [u8; PAGE_HEADER_SIZE]);

impl<'a> IndexHeader<'a> {
    /// The header of `page`, or `None` if the page is shorter than
    /// PAGE_DATA. Any page can be viewed; check FIL_PAGE_TYPE first.
    pub fn new(page: &'a [u8]) -> Option<Self> {
        page.get(PAGE_HEADER..)?.first_chunk().map(Self)
    }
    /// PAGE_N_DIR_SLOTS.
    pub fn n_dir_slots(&self) -> u16 {
        be_u16_at(self.0, PAGE_N_DIR_SLOTS)
    }
    /// PAGE_HEAP_TOP.
    pub fn heap_top(&self) -> u16 {
        be_u16_at(self.0, PAGE_HEAP_TOP)
    }
    /// PAGE_N_HEAP without the format bit: records in the heap, including
    /// infimum, supremum and deleted records.
    pub fn n_heap(&self) -> u16 {
        be_u16_at(self.0, PAGE_N_HEAP) & 0x7FFF
    }
    /// Bit 15 of PAGE_N_HEAP: COMPACT (new-style) records, as written by
    /// ROW_FORMAT COMPACT, DYNAMIC and COMPRESSED.
    pub fn is_compact(&self) -> bool {
        be_u16_at(self.0, PAGE_N_HEAP) & 0x8000 != 0
    }
    /// PAGE_FREE.
    pub fn free(&self) -> u16 {
        be_u16_at(self.0, PAGE_FREE)
    }
    /// PAGE_GARBAGE.
    pub fn garbage(&self) -> u16 {
        be_u16_at(self.0, PAGE_GARBAGE)
    }
    /// PAGE_LAST_INSERT.
    pub fn last_insert(&self) -> u16 {
        be_u16_at(self.0, PAGE_LAST_INSERT)
    }
    /// PAGE_DIRECTION as stored (in MariaDB the direction is only the low
    /// 3 bits, PAGE_INSTANT the high 13).
    pub fn direction_raw(&self) -> u16 {
        be_u16_at(self.0, PAGE_DIRECTION)
    }
    /// PAGE_N_DIRECTION.
    pub fn n_direction(&self) -> u16 {
        be_u16_at(self.0, PAGE_N_DIRECTION)
    }
    /// PAGE_N_RECS.
    pub fn n_recs(&self) -> u16 {
        be_u16_at(self.0, PAGE_N_RECS)
    }
    /// PAGE_MAX_TRX_ID.
    pub fn max_trx_id(&self) -> u64 {
        be_u64_at(self.0, PAGE_MAX_TRX_ID)
    }
    /// PAGE_LEVEL.
    pub fn level(&self) -> u16 {
        be_u16_at(self.0, PAGE_LEVEL)
    }
    /// PAGE_INDEX_ID.
    pub fn index_id(&self) -> IndexId {
        IndexId(be_u64_at(self.0, PAGE_INDEX_ID))
    }
    /// PAGE_BTR_SEG_LEAF.
    pub fn seg_leaf(&self) -> FsegHeader {
        FsegHeader::read(self.0, PAGE_BTR_SEG_LEAF).unwrap_or(FsegHeader::NONE)
    }
    /// PAGE_BTR_SEG_TOP.
    pub fn seg_top(&self) -> FsegHeader {
        FsegHeader::read(self.0, PAGE_BTR_SEG_TOP).unwrap_or(FsegHeader::NONE)
    }
    /// Origin of the infimum record for this page's format.
    pub fn infimum(&self) -> usize {
        if self.is_compact() {
            PAGE_NEW_INFIMUM
        } else {
            PAGE_OLD_INFIMUM
        }
    }
    /// Origin of the supremum record for this page's format.
    pub fn supremum(&self) -> usize {
        if self.is_compact() {
            PAGE_NEW_SUPREMUM
        } else {
            PAGE_OLD_SUPREMUM
        }
    }
    /// End of the supremum record: where user records start.
    pub fn supremum_end(&self) -> usize {
        if self.is_compact() {
            PAGE_NEW_SUPREMUM_END
        } else {
            PAGE_OLD_SUPREMUM_END
        }
    }
    /// Bytes of live user records, as InnoDB's `page_get_data_size`:
    /// `heap_top − supremum_end − garbage` (saturating at 0 on damage).
    pub fn data_size(&self) -> u32 {
        u32::from(self.heap_top())
            .saturating_sub(self.supremum_end() as u32)
            .saturating_sub(u32::from(self.garbage()))
    }

    /// How the page's area is used, from the header alone. `logical_size`
    /// is the uncompressed page size; `compressed` marks a
    /// ROW_FORMAT=COMPRESSED page (the result is then approximate).
    pub fn usage(&self, logical_size: u32, compressed: bool) -> PageFill {
        let usable = usable_bytes(logical_size);
        let dir = u32::from(self.n_dir_slots()).saturating_mul(PAGE_DIR_SLOT_SIZE as u32);
        let heap_top = u32::from(self.heap_top());
        let garbage = u32::from(self.garbage());
        let used = heap_top
            .saturating_sub(PAGE_DATA as u32)
            .saturating_sub(garbage)
            .saturating_add(dir)
            .min(usable);
        let free = logical_size
            .saturating_sub(PAGE_DIR as u32)
            .saturating_sub(dir)
            .saturating_sub(heap_top);
        PageFill {
            used,
            free,
            garbage,
            usable,
            approximate: compressed,
        }
    }
}

/// The bytes an index page of `logical_size` bytes has for records and
/// its directory ([`IndexHeader::usage`]).
pub(crate) fn usable_bytes(logical_size: u32) -> u32 {
    logical_size
        .saturating_sub(PAGE_DATA as u32)
        .saturating_sub(PAGE_DIR as u32)
}

/// Fill of an index page of `logical_size` bytes that uses `used` of them
/// ([`PageFill::fill`]).
pub(crate) fn fill_of(used: u32, logical_size: u32) -> f32 {
    let usable = usable_bytes(logical_size);
    if usable == 0 {
        return 0.0;
    }
    (f64::from(used) / f64::from(usable)) as f32
}

/// How an index page's area is used, from its header.
///
/// With `S` the logical page size, `D = 2 × PAGE_N_DIR_SLOTS` the directory
/// bytes and `H = PAGE_HEAP_TOP`:
///
/// - `usable = S − PAGE_DATA − FIL_PAGE_DATA_END` (16282 at 16K): the area
///   between the header and the trailer;
/// - `used = H − PAGE_DATA − PAGE_GARBAGE + D`: live records (including
///   infimum and supremum) plus the directory, capped at `usable`;
/// - `free = S − FIL_PAGE_DATA_END − D − H`: the gap between heap and
///   directory, 0 if they overlap (damage);
/// - `garbage = PAGE_GARBAGE`: deleted records not yet reused.
///
/// On an undamaged page `used + free + garbage == usable`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct PageFill {
    /// Bytes of live records and directory.
    pub used: u32,
    /// Bytes between the heap top and the directory.
    pub free: u32,
    /// Bytes of deleted records (PAGE_GARBAGE).
    pub garbage: u32,
    /// The area records and directory can use.
    pub usable: u32,
    /// True for ROW_FORMAT=COMPRESSED pages: the figures are those of the
    /// uncompressed page, whose compressed image has its own layout (a
    /// modification log and a compressed stream at the physical size).
    pub approximate: bool,
}

impl PageFill {
    /// `used / usable`, from 0.0 to 1.0.
    pub fn fill(&self) -> f32 {
        if self.usable == 0 {
            return 0.0;
        }
        (f64::from(self.used) / f64::from(self.usable)) as f32
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

    fn put16(p: &mut [u8], rel: usize, v: u16) {
        p[PAGE_HEADER + rel..PAGE_HEADER + rel + 2].copy_from_slice(&v.to_be_bytes());
    }

    #[test]
    fn offsets_match_innodb() {
        assert_eq!(PAGE_DATA, 94);
        assert_eq!(
            (PAGE_NEW_INFIMUM, PAGE_NEW_SUPREMUM, PAGE_NEW_SUPREMUM_END),
            (99, 112, 120)
        );
        assert_eq!(
            (PAGE_OLD_INFIMUM, PAGE_OLD_SUPREMUM, PAGE_OLD_SUPREMUM_END),
            (101, 116, 125)
        );
        assert_eq!(PAGE_HEADER + PAGE_BTR_SEG_LEAF, 74);
        assert_eq!(PAGE_HEADER + PAGE_BTR_SEG_TOP, 84);
    }

    #[test]
    fn empty_compact_page() {
        // What page_create writes: heap top at 120, 2 slots, 2 heap records.
        let mut p = vec![0u8; 16384];
        put16(&mut p, PAGE_N_DIR_SLOTS, 2);
        put16(&mut p, PAGE_HEAP_TOP, 120);
        put16(&mut p, PAGE_N_HEAP, 0x8002);
        let h = IndexHeader::new(&p).unwrap();
        assert!(h.is_compact());
        assert_eq!(h.n_heap(), 2);
        assert_eq!(h.data_size(), 0);
        let f = h.usage(16384, false);
        assert_eq!(f.usable, 16282);
        assert_eq!(f.used, 26 + 4);
        assert_eq!(f.used + f.free + f.garbage, f.usable);
        assert!(f.fill() > 0.0 && f.fill() < 0.01);
    }

    #[test]
    fn corpus_like_page_adds_up_and_damage_saturates() {
        // mysql-5.6 orderdetails page 5: 46 slots, heap top 15151, garbage 7535.
        let mut p = vec![0u8; 16384];
        put16(&mut p, PAGE_N_DIR_SLOTS, 46);
        put16(&mut p, PAGE_HEAP_TOP, 15151);
        put16(&mut p, PAGE_GARBAGE, 7535);
        put16(&mut p, PAGE_N_HEAP, 0x8000 | 200);
        let f = IndexHeader::new(&p).unwrap().usage(16384, false);
        assert_eq!(f.used + f.free + f.garbage, f.usable);
        assert_eq!(f.garbage, 7535);
        // Heap top past the directory: free saturates, used is capped.
        put16(&mut p, PAGE_HEAP_TOP, 0xFFFF);
        put16(&mut p, PAGE_GARBAGE, 0);
        let f = IndexHeader::new(&p).unwrap().usage(16384, true);
        assert_eq!(f.free, 0);
        assert_eq!(f.used, f.usable);
        assert!(f.approximate);
        assert!((f.fill() - 1.0).abs() < f32::EPSILON);
        assert!(IndexHeader::new(&p[..93]).is_none());
    }
}
