//! Segment inodes on INODE pages (type 3), and the FSEG header that points
//! at them (storage/innobase/include/fsp0fsp.h and fsp0types.h, MySQL 8.0
//! commit 3844f459 and 5.6 commit 0353de34; MariaDB/server fsp0fsp.h commits
//! 00fd9e17 and 47e18af9 — the same constants in all four).
//!
//! An INODE page:
//!
//! | offset | size | field |
//! |-------:|-----:|-------|
//! |      0 |   38 | FIL header |
//! |     38 |   12 | FSEG_INODE_PAGE_NODE: node in FSP_SEG_INODES_FULL / _FREE |
//! |     50 |  n×s | inode array from FSEG_ARR_OFFSET |
//!
//! One inode (FSEG_INODE_SIZE = 16 + 3×16 + 4×FSEG_FRAG_ARR_N_SLOTS bytes;
//! 192 for every page size from 16K up, 320 at 8K, 576 at 4K):
//!
//! | offset | size | field |
//! |-------:|-----:|-------|
//! |      0 |    8 | FSEG_ID (0: the slot is unused) |
//! |      8 |    4 | FSEG_NOT_FULL_N_USED: used pages in the FSEG_NOT_FULL extents |
//! |     12 |   16 | FSEG_FREE: base node, extents of the segment with no used page |
//! |     28 |   16 | FSEG_NOT_FULL: base node, partly used extents |
//! |     44 |   16 | FSEG_FULL: base node, full extents |
//! |     60 |    4 | FSEG_MAGIC_N = 97937874 |
//! |     64 | 4×n  | FSEG_FRAG_ARR: fragment page numbers, FIL_NULL = empty slot |
//!
//! FSEG_FRAG_ARR_N_SLOTS = FSP_EXTENT_SIZE / 2, where FSP_EXTENT_SIZE
//! follows the **logical** page size; the number of inodes on a page,
//! FSP_SEG_INODES_PER_PAGE = (physical − FSEG_ARR_OFFSET − 10) /
//! FSEG_INODE_SIZE, follows the **physical** size (85 at 16K, 42 on 8K
//! ROW_FORMAT=COMPRESSED pages).
//!
//! The FSEG header (fsp0types.h), 10 bytes, sits in the page that owns the
//! segment (for B-trees: PAGE_BTR_SEG_LEAF and PAGE_BTR_SEG_TOP on the root):
//!
//! | offset | size | field |
//! |-------:|-----:|-------|
//! |      0 |    4 | FSEG_HDR_SPACE: space id of the inode |
//! |      4 |    4 | FSEG_HDR_PAGE_NO: the INODE page |
//! |      8 |    2 | FSEG_HDR_OFFSET: byte offset of the inode in it |

use crate::bytes::{be_u16, be_u32, be_u64};
use crate::fil::FIL_PAGE_DATA;
use crate::flst::{FlstBase, FlstNode, FLST_BASE_NODE_SIZE, FLST_NODE_SIZE};
use crate::ids::{PageNo, SpaceId, FIL_NULL};

/// Offset of the inode-page list node (FSEG_PAGE_DATA = FIL_PAGE_DATA).
pub const FSEG_INODE_PAGE_NODE: usize = FIL_PAGE_DATA;
/// Offset of the inode array.
pub const FSEG_ARR_OFFSET: usize = FIL_PAGE_DATA + FLST_NODE_SIZE;
/// Segment id; 0 marks an unused slot.
pub const FSEG_ID: usize = 0;
/// Used pages in the FSEG_NOT_FULL extents.
pub const FSEG_NOT_FULL_N_USED: usize = 8;
/// Base node: free extents of the segment.
pub const FSEG_FREE: usize = 12;
/// Base node: partly used extents.
pub const FSEG_NOT_FULL: usize = 12 + FLST_BASE_NODE_SIZE;
/// Base node: full extents.
pub const FSEG_FULL: usize = 12 + 2 * FLST_BASE_NODE_SIZE;
/// Magic number field.
pub const FSEG_MAGIC_N: usize = 12 + 3 * FLST_BASE_NODE_SIZE;
/// Fragment page array.
pub const FSEG_FRAG_ARR: usize = 16 + 3 * FLST_BASE_NODE_SIZE;
/// Size of one fragment slot.
pub(crate) const FSEG_FRAG_SLOT_SIZE: usize = 4;
/// The value of FSEG_MAGIC_N in a used inode.
pub(crate) const FSEG_MAGIC_N_VALUE: u32 = 97_937_874;
/// The bytes InnoDB leaves free at the end of an INODE page (the 10 in
/// FSP_SEG_INODES_PER_PAGE).
pub(crate) const FSEG_PAGE_RESERVED_END: usize = 10;

/// FSEG header: space id of the inode.
pub const FSEG_HDR_SPACE: usize = 0;
/// FSEG header: the INODE page.
pub const FSEG_HDR_PAGE_NO: usize = 4;
/// FSEG header: byte offset of the inode.
pub const FSEG_HDR_OFFSET: usize = 8;
/// Size of an FSEG header.
pub(crate) const FSEG_HEADER_SIZE: usize = 10;

/// FSEG_FRAG_ARR_N_SLOTS for a logical page size.
pub(crate) fn frag_arr_n_slots(logical_size: u32) -> u32 {
    crate::fsp::extent_size(logical_size) / 2
}

/// FSEG_INODE_SIZE for a logical page size.
pub fn inode_size(logical_size: u32) -> usize {
    FSEG_FRAG_ARR.saturating_add((frag_arr_n_slots(logical_size) as usize).saturating_mul(4))
}

/// FSP_SEG_INODES_PER_PAGE: inodes on one INODE page.
pub fn inodes_per_page(physical_size: u32, logical_size: u32) -> u32 {
    let room = (physical_size as usize)
        .saturating_sub(FSEG_ARR_OFFSET)
        .saturating_sub(FSEG_PAGE_RESERVED_END);
    u32::try_from(room.checked_div(inode_size(logical_size)).unwrap_or(0)).unwrap_or(0)
}

/// The index of the inode at byte `offset` of an INODE page, or `None`
/// when no inode starts there.
pub fn inode_index(offset: u16, physical_size: u32, logical_size: u32) -> Option<u32> {
    let rel = usize::from(offset).checked_sub(FSEG_ARR_OFFSET)?;
    let size = inode_size(logical_size);
    if rel.checked_rem(size)? != 0 {
        return None;
    }
    let idx = u32::try_from(rel.checked_div(size)?).ok()?;
    (idx < inodes_per_page(physical_size, logical_size)).then_some(idx)
}

/// The list node of an INODE page (its place in FSP_SEG_INODES_*).
pub fn inode_page_node(page: &[u8]) -> Option<FlstNode> {
    FlstNode::read(page, FSEG_INODE_PAGE_NODE)
}

/// An FSEG header, read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FsegHeader {
    /// FSEG_HDR_SPACE.
    pub space: SpaceId,
    /// FSEG_HDR_PAGE_NO.
    pub page: PageNo,
    /// FSEG_HDR_OFFSET.
    pub offset: u16,
}

impl FsegHeader {
    /// All zero: no segment.
    pub(crate) const NONE: FsegHeader = FsegHeader {
        space: SpaceId(0),
        page: PageNo(0),
        offset: 0,
    };

    /// Reads an FSEG header at `offset` of `buf`, or `None` past its end.
    pub fn read(buf: &[u8], offset: usize) -> Option<Self> {
        Some(FsegHeader {
            space: SpaceId(be_u32(buf, offset.checked_add(FSEG_HDR_SPACE)?)?),
            page: PageNo(be_u32(buf, offset.checked_add(FSEG_HDR_PAGE_NO)?)?),
            offset: be_u16(buf, offset.checked_add(FSEG_HDR_OFFSET)?)?,
        })
    }

    /// True when all ten bytes are zero: no segment (non-root B-tree pages).
    pub fn is_zero(&self) -> bool {
        self.space.0 == 0 && self.page.0 == 0 && self.offset == 0
    }
}

/// One inode, borrowed from its INODE page.
#[derive(Clone, Copy, Debug)]
pub struct InodeEntry<'a> {
    bytes: &'a [u8],
    page_offset: usize,
    n_slots: u32,
}

impl<'a> InodeEntry<'a> {
    /// Inode `idx` of an INODE page of a space with the given page sizes, or
    /// `None` when `idx` is not below [`inodes_per_page`] or the page is
    /// short.
    pub fn new(page: &'a [u8], idx: u32, physical_size: u32, logical_size: u32) -> Option<Self> {
        if idx >= inodes_per_page(physical_size, logical_size) {
            return None;
        }
        let size = inode_size(logical_size);
        let start = FSEG_ARR_OFFSET.checked_add(size.checked_mul(idx as usize)?)?;
        Some(InodeEntry {
            bytes: page.get(start..start.checked_add(size)?)?,
            page_offset: start,
            n_slots: frag_arr_n_slots(logical_size),
        })
    }
    /// Byte offset of this inode in its page.
    pub fn page_offset(&self) -> usize {
        self.page_offset
    }
    /// FSEG_ID.
    pub fn seg_id(&self) -> u64 {
        be_u64(self.bytes, FSEG_ID).unwrap_or(0)
    }
    /// True when FSEG_ID is not 0.
    pub(crate) fn is_used(&self) -> bool {
        self.seg_id() != 0
    }
    /// FSEG_NOT_FULL_N_USED.
    pub fn not_full_n_used(&self) -> u32 {
        be_u32(self.bytes, FSEG_NOT_FULL_N_USED).unwrap_or(0)
    }
    /// The FSEG_FREE base node.
    pub fn free(&self) -> Option<FlstBase> {
        FlstBase::read(self.bytes, FSEG_FREE)
    }
    /// The FSEG_NOT_FULL base node.
    pub fn not_full(&self) -> Option<FlstBase> {
        FlstBase::read(self.bytes, FSEG_NOT_FULL)
    }
    /// The FSEG_FULL base node.
    pub fn full(&self) -> Option<FlstBase> {
        FlstBase::read(self.bytes, FSEG_FULL)
    }
    /// FSEG_MAGIC_N as stored.
    pub fn magic(&self) -> u32 {
        be_u32(self.bytes, FSEG_MAGIC_N).unwrap_or(0)
    }
    /// True when FSEG_MAGIC_N is 97937874.
    pub fn magic_ok(&self) -> bool {
        self.magic() == FSEG_MAGIC_N_VALUE
    }
    /// FSEG_FRAG_ARR_N_SLOTS.
    pub fn n_frag_slots(&self) -> u32 {
        self.n_slots
    }
    /// Fragment slot `slot_idx` as stored (FIL_NULL when empty), or `None`
    /// past the array.
    pub fn frag_slot(&self, slot_idx: u32) -> Option<u32> {
        if slot_idx >= self.n_slots {
            return None;
        }
        be_u32(
            self.bytes,
            FSEG_FRAG_ARR.checked_add((slot_idx as usize).checked_mul(FSEG_FRAG_SLOT_SIZE)?)?,
        )
    }
    /// Byte offset in the page of fragment slot `slot_idx`.
    pub fn frag_slot_offset(&self, slot_idx: u32) -> usize {
        self.page_offset
            .saturating_add(FSEG_FRAG_ARR)
            .saturating_add((slot_idx as usize).saturating_mul(FSEG_FRAG_SLOT_SIZE))
    }
    /// The fragment pages in use, with their slot index.
    pub fn frag_pages(&self) -> impl Iterator<Item = (u32, PageNo)> + 'a {
        let this = *self;
        (0..self.n_slots).filter_map(move |i| match this.frag_slot(i) {
            Some(p) if p != FIL_NULL => Some((i, PageNo(p))),
            _ => None,
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

    #[test]
    fn sizes_per_page_size() {
        assert_eq!(inode_size(16384), 192);
        assert_eq!(inode_size(8192), 320);
        assert_eq!(inode_size(4096), 576);
        assert_eq!(inode_size(65536), 192);
        assert_eq!(inodes_per_page(16384, 16384), 85);
        assert_eq!(inodes_per_page(8192, 16384), 42);
        assert_eq!(inodes_per_page(4096, 4096), 7);
        assert_eq!(inodes_per_page(65536, 65536), 341);
        assert_eq!(inode_index(50, 16384, 16384), Some(0));
        assert_eq!(inode_index(242, 16384, 16384), Some(1));
        assert_eq!(inode_index(243, 16384, 16384), None);
        assert_eq!(inode_index(50 + 85 * 192, 16384, 16384), None);
        assert_eq!(inode_index(10, 16384, 16384), None);
    }

    #[test]
    fn reads_an_entry() {
        let mut page = vec![0u8; 16384];
        let at = FSEG_ARR_OFFSET + 192;
        page[at..at + 8].copy_from_slice(&7u64.to_be_bytes());
        page[at + FSEG_MAGIC_N..at + FSEG_MAGIC_N + 4]
            .copy_from_slice(&FSEG_MAGIC_N_VALUE.to_be_bytes());
        for s in 0..32 {
            let o = at + FSEG_FRAG_ARR + 4 * s;
            page[o..o + 4].copy_from_slice(&FIL_NULL.to_be_bytes());
        }
        page[at + FSEG_FRAG_ARR + 8..at + FSEG_FRAG_ARR + 12].copy_from_slice(&9u32.to_be_bytes());
        let e = InodeEntry::new(&page, 1, 16384, 16384).unwrap();
        assert_eq!(e.page_offset(), 242);
        assert_eq!(e.seg_id(), 7);
        assert!(e.magic_ok());
        assert_eq!(e.frag_pages().collect::<Vec<_>>(), [(2, PageNo(9))]);
        assert_eq!(e.frag_slot_offset(2), 242 + 64 + 8);
        assert!(InodeEntry::new(&page, 85, 16384, 16384).is_none());
        assert!(InodeEntry::new(&page[..300], 1, 16384, 16384).is_none());
        let h = FsegHeader::read(&[0, 0, 0, 5, 0, 0, 0, 2, 0, 242], 0).unwrap();
        assert_eq!((h.space, h.page, h.offset), (SpaceId(5), PageNo(2), 242));
        assert!(!h.is_zero());
    }
}
