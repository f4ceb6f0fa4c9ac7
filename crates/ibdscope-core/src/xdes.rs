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
//!
//! This module sits above [`crate::space`] and [`crate::flst`], which know
//! nothing of XDES entries: the layout of the XDES lists for the list
//! walker ([`ListLayout::xdes_entries`]) and the space's question "is this
//! page free" ([`Tablespace::is_free`]) are answered here.

use crate::bytes::{be_u32, be_u64};
use crate::flst::{FlstNode, ListLayout};
use crate::fsp::{FSP_HEADER_OFFSET, FSP_HEADER_SIZE};
use crate::ids::PageNo;
use crate::space::{verify_page, Tablespace};

/// Start of the XDES array in an XDES page.
pub const XDES_ARR_OFFSET: usize = FSP_HEADER_OFFSET + FSP_HEADER_SIZE;
/// Segment id field.
pub const XDES_ID: usize = 0;
/// List node field.
pub const XDES_FLST_NODE: usize = 8;
/// State field.
pub const XDES_STATE: usize = 20;
/// Bitmap field.
pub(crate) const XDES_BITMAP: usize = 24;
/// Bits per page in the bitmap.
pub(crate) const XDES_BITS_PER_PAGE: u32 = 2;
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

impl std::fmt::Display for XdesState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            XdesState::NotInited => f.write_str("XDES_NOT_INITED (0)"),
            XdesState::Free => f.write_str("XDES_FREE (1)"),
            XdesState::FreeFrag => f.write_str("XDES_FREE_FRAG (2)"),
            XdesState::FullFrag => f.write_str("XDES_FULL_FRAG (3)"),
            XdesState::Fseg => f.write_str("XDES_FSEG (4)"),
            XdesState::FsegFrag => f.write_str("XDES_FSEG_FRAG (5)"),
            XdesState::Unknown(v) => write!(f, "{v}, which is no state"),
        }
    }
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
    pub fn node(&self) -> Option<FlstNode> {
        FlstNode::read(self.bytes, XDES_FLST_NODE)
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

impl ListLayout {
    /// XDES entries (FSP_FREE, FSP_FREE_FRAG, FSP_FULL_FRAG and the three
    /// extent lists of every segment): on every XDES page (page numbers that
    /// are multiples of the physical page size), `physical / extent_size`
    /// entries from XDES_ARR_OFFSET, node at XDES_FLST_NODE.
    pub(crate) fn xdes_entries(physical_size: u32, extent_size: u32) -> Self {
        ListLayout {
            page_stride: physical_size.max(1),
            array_offset: XDES_ARR_OFFSET as u32,
            element_size: u32::try_from(xdes_size(extent_size)).unwrap_or(u32::MAX),
            per_page: physical_size.checked_div(extent_size).unwrap_or(0),
            node_offset: XDES_FLST_NODE as u32,
        }
    }
}

impl Tablespace<'_> {
    /// Whether the extent descriptor marks page `n` free: `None` when its
    /// XDES page is missing or does not verify. Pages at or past
    /// FSP_FREE_LIMIT are free (never initialised).
    pub fn is_free(&self, n: PageNo) -> Option<bool> {
        let physical = self.page_size();
        let within = n.0.checked_rem(physical)?;
        let xdes_no = n.0.saturating_sub(within);
        let xdes_page = self.page(PageNo(xdes_no))?;
        if !verify_page(xdes_page, self.scheme()).is_ok()
            || (xdes_no == 0 && !self.detection().page0_ok)
        {
            return None;
        }
        self.is_free_in_verified_xdes(n)
    }

    /// [`Self::is_free`] for a page whose XDES page the caller has
    /// verified (so a run of pages verifies it once).
    pub(crate) fn is_free_in_verified_xdes(&self, n: PageNo) -> Option<bool> {
        let physical = self.page_size();
        let within = n.0.checked_rem(physical)?;
        let xdes_page = self.page(PageNo(n.0.saturating_sub(within)))?;
        if let Some(h) = self.fsp_header() {
            if n.0 >= h.free_limit() {
                return Some(true);
            }
        }
        let extent = self.format().extent_size();
        let entry = XdesEntry::new(xdes_page, within.checked_div(extent)?, extent)?;
        match entry.state() {
            XdesState::NotInited | XdesState::Free => Some(true),
            _ => entry.is_free(within.checked_rem(extent)?),
        }
    }
}
