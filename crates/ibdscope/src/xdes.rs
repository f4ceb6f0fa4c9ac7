//! Extent descriptors (XDES entries) on page 0 and on every XDES page
//! (storage/innobase/include/fsp0fsp.h, MySQL 8.0; same in MariaDB 10.11).
//!
//! An XDES page describes the `physical_size` pages starting at its own page
//! number (page 0, then every `physical_size`-th page: page 16384 at 16K).
//! Its array starts at XDES_ARR_OFFSET = FSP_HEADER_OFFSET + FSP_HEADER_SIZE
//! (150) and holds one entry per extent:
//!
//! | offset | size | field          |
//! |-------:|-----:|----------------|
//! |      0 |    8 | XDES_ID (segment id owning the extent) |
//! |      8 |   12 | XDES_FLST_NODE |
//! |     20 |    4 | XDES_STATE     |
//! |     24 |  n/4 | XDES_BITMAP: 2 bits per page, FREE (bit 0) and CLEAN (bit 1), least significant bit first |
//!
//! States: 0 not initialised (MariaDB XDES_NOT_INITED), 1 FREE, 2 FREE_FRAG,
//! 3 FULL_FRAG, 4 FSEG, 5 FSEG_FRAG (MySQL 8.0 only).

use crate::bytes::{be_u32, be_u64};
use crate::fsp::{FSP_HEADER_OFFSET, FSP_HEADER_SIZE};

/// Start of the XDES array in an XDES page.
pub const XDES_ARR_OFFSET: usize = FSP_HEADER_OFFSET + FSP_HEADER_SIZE;
/// Segment id field.
pub const XDES_ID: usize = 0;
/// List node field.
pub const XDES_FLST_NODE: usize = 8;
/// State field.
pub const XDES_STATE: usize = 20;
/// Bitmap field.
pub const XDES_BITMAP: usize = 24;
/// Bits per page in the bitmap.
pub const XDES_BITS_PER_PAGE: u32 = 2;
/// The "page is free" bit.
pub const XDES_FREE_BIT: u32 = 0;
/// The "page is clean" bit (unused by InnoDB, always set).
pub const XDES_CLEAN_BIT: u32 = 1;

/// XDES_STATE values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum XdesState {
    /// 0: never initialised.
    NotInited,
    /// 1: in the FSP_FREE list.
    Free,
    /// 2: in FSP_FREE_FRAG.
    FreeFrag,
    /// 3: in FSP_FULL_FRAG.
    FullFrag,
    /// 4: belongs to a segment.
    Fseg,
    /// 5: MySQL 8.0 XDES_FSEG_FRAG, fragment extent of a segment.
    FsegFrag,
    /// Any other value (damage).
    Unknown(u32),
}

impl XdesState {
    fn from_raw(v: u32) -> Self {
        match v {
            0 => XdesState::NotInited,
            1 => XdesState::Free,
            2 => XdesState::FreeFrag,
            3 => XdesState::FullFrag,
            4 => XdesState::Fseg,
            5 => XdesState::FsegFrag,
            v => XdesState::Unknown(v),
        }
    }
}

/// Size of an XDES entry for `extent_size` pages per extent.
pub fn xdes_size(extent_size: u32) -> usize {
    XDES_BITMAP
        .saturating_add((extent_size.saturating_mul(XDES_BITS_PER_PAGE) as usize).div_ceil(8))
}

/// One XDES entry, borrowed from its page.
#[derive(Clone, Copy, Debug)]
pub struct XdesEntry<'a> {
    bytes: &'a [u8],
}

impl<'a> XdesEntry<'a> {
    /// Entry `idx` of an XDES page, or `None` if it lies outside the page.
    pub fn new(xdes_page: &'a [u8], idx: u32, extent_size: u32) -> Option<Self> {
        let size = xdes_size(extent_size);
        let start = XDES_ARR_OFFSET.checked_add(size.checked_mul(idx as usize)?)?;
        Some(XdesEntry {
            bytes: xdes_page.get(start..start.checked_add(size)?)?,
        })
    }
    /// XDES_ID.
    pub fn seg_id(&self) -> u64 {
        be_u64(self.bytes, XDES_ID).unwrap_or(0)
    }
    /// XDES_STATE.
    pub fn state(&self) -> XdesState {
        XdesState::from_raw(be_u32(self.bytes, XDES_STATE).unwrap_or(0))
    }
    /// The FREE bit of page `i` of the extent (`None` past the bitmap).
    pub fn is_free(&self, i: u32) -> Option<bool> {
        let bit = i
            .checked_mul(XDES_BITS_PER_PAGE)?
            .checked_add(XDES_FREE_BIT)?;
        let byte = self
            .bytes
            .get(XDES_BITMAP.checked_add((bit / 8) as usize)?)?;
        Some(byte >> (bit % 8) & 1 == 1)
    }
    /// XDES_FLST_NODE: this extent's place in its list.
    pub fn node(&self) -> Option<crate::flst::FlstNode> {
        crate::flst::FlstNode::read(self.bytes, XDES_FLST_NODE)
    }
    /// XDES_STATE as stored.
    pub fn raw_state(&self) -> u32 {
        be_u32(self.bytes, XDES_STATE).unwrap_or(0)
    }
    /// Pages of the extent whose FREE bit is clear (`xdes_get_n_used`).
    pub fn n_used(&self, extent_size: u32) -> u32 {
        (0..extent_size)
            .filter(|&i| self.is_free(i) == Some(false))
            .fold(0u32, |n, _| n.saturating_add(1))
    }
}
