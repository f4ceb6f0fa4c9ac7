//! Who a page belongs to, as the space map ([`crate::extents::SpaceMap`])
//! says: a system structure, a segment in its role in an index, free, or
//! nobody. The vocabulary lives here, below [`crate::finding`], whose space
//! problems name owners; [`crate::extents`] re-exports it.

use crate::ids::IndexId;
use std::fmt;

/// Which system structure a system page holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SystemKind {
    /// Page 0: FSP header and the first XDES array.
    FspHdr,
    /// An extent descriptor page (every `physical`-th page after 0).
    Xdes,
    /// The insert buffer bitmap page after each FSP_HDR / XDES page.
    IbufBitmap,
    /// A segment inode page (on FSP_SEG_INODES_FULL or _FREE).
    Inode,
}

/// A segment's role in its B-tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SegmentRole {
    /// Named by a root's PAGE_BTR_SEG_LEAF: leaf pages and BLOB/LOB pages.
    Leaf,
    /// Named by a root's PAGE_BTR_SEG_TOP: the root and non-leaf pages.
    Internal,
    /// An undo segment: an undo log (its first page a `FIL_PAGE_UNDO_LOG`
    /// page whose segment header names it) or a rollback segment header
    /// (a `FIL_PAGE_TYPE_SYS` page whose `TRX_RSEG_FSEG_HEADER` names it),
    /// in an undo tablespace or the system tablespace. No index's.
    Undo,
    /// No root names it (other segment kinds, or the root is unreadable).
    Unknown,
}

/// Who a page belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Owner {
    /// A system page.
    System(SystemKind),
    /// A page used by a segment.
    Segment {
        /// FSEG_ID.
        seg_id: u64,
        /// The index whose root names the segment.
        index: Option<IndexId>,
        /// The segment's role in that index.
        role: SegmentRole,
        /// True for a fragment page (FSEG_FRAG_ARR), false for a page of
        /// one of the segment's extents.
        frag: bool,
    },
    /// Free: the XDES FREE bit is set, or the extent is free or not
    /// initialised, or the page is at or past FSP_FREE_LIMIT.
    Free,
    /// Used per XDES (or XDES unreadable), but claimed by nothing.
    Unaccounted,
}

impl fmt::Display for SystemKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SystemKind::FspHdr => "FSP_HDR",
            SystemKind::Xdes => "XDES",
            SystemKind::IbufBitmap => "IBUF_BITMAP",
            SystemKind::Inode => "INODE",
        })
    }
}

impl fmt::Display for SegmentRole {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SegmentRole::Leaf => "leaf",
            SegmentRole::Internal => "non-leaf",
            SegmentRole::Undo => "undo",
            SegmentRole::Unknown => "unknown",
        })
    }
}

impl fmt::Display for Owner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Owner::System(k) => write!(f, "system {k}"),
            Owner::Segment {
                seg_id,
                index,
                role,
                frag,
            } => {
                write!(f, "segment {seg_id}")?;
                if let Some(i) = index {
                    write!(f, " (index {i} {role})")?;
                }
                if frag {
                    f.write_str(" fragment")?;
                }
                Ok(())
            }
            Owner::Free => f.write_str("free"),
            Owner::Unaccounted => f.write_str("unaccounted"),
        }
    }
}
