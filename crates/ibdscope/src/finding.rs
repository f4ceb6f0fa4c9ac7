//! Findings: damage and oddities, each with the page and byte offset it
//! concerns. Analyses return their result plus findings and keep going.

use crate::space::PageProblem;
use crate::{PageNo, Tablespace};
use std::fmt;

/// What was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FindingKind {
    /// A problem with one page.
    Page(PageProblem),
    /// The file ends inside a page: `bytes` bytes after the last whole page.
    TornTail {
        /// Bytes in the partial page.
        bytes: u64,
    },
    /// The file holds fewer pages than FSP_SIZE says.
    ShorterThanFspSize {
        /// FSP_SIZE.
        fsp_size: u32,
        /// Whole pages in the file.
        pages: u32,
    },
    /// Page 0 does not verify; the format was found from other pages.
    Page0Unusable,
    /// A problem with the space's structure: lists, extents, segments,
    /// index roots (see [`crate::extents::SpaceMap`]).
    Space(crate::extents::SpaceProblem),
    /// A problem with a B-tree: its levels, sibling links, node pointers,
    /// or one page's records (see [`crate::btree::Btrees`]).
    Btree(crate::btree::BtreeProblem),
}

/// A finding with its place.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Finding {
    /// The page, if the finding concerns one.
    pub page: Option<PageNo>,
    /// Byte offset in the file where the problem lies.
    pub file_offset: u64,
    /// What was found.
    pub kind: FindingKind,
}

impl Finding {
    /// A finding about page `page` of `ts`, at byte `page_offset` within it.
    pub fn page(ts: &Tablespace<'_>, page: PageNo, problem: PageProblem) -> Self {
        let page_offset = match problem {
            PageProblem::Checksum | PageProblem::CompressedSize => 0,
            PageProblem::LsnMismatch { .. } => 20,
            PageProblem::PageNo { .. } => crate::fil::FIL_PAGE_OFFSET as u64,
            PageProblem::SpaceId { .. } => crate::fil::FIL_PAGE_SPACE_ID as u64,
        };
        Finding {
            page: Some(page),
            file_offset: ts.file_offset(page).saturating_add(page_offset),
            kind: FindingKind::Page(problem),
        }
    }
}

impl fmt::Display for PageProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            PageProblem::Checksum => f.write_str("checksum mismatch"),
            PageProblem::CompressedSize => {
                f.write_str("page_compressed size field is not below the page size")
            }
            PageProblem::LsnMismatch { header, trailer } => write!(
                f,
                "LSN low 32 bits differ: header 0x{header:08x}, trailer 0x{trailer:08x} (torn write?)"
            ),
            PageProblem::PageNo { found } => {
                write!(f, "page number field says {found} (misplaced or foreign page)")
            }
            PageProblem::SpaceId { found, expected } => {
                write!(f, "space id {found}, expected {expected} (page from another tablespace?)")
            }
        }
    }
}

impl fmt::Display for FindingKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            FindingKind::Page(p) => p.fmt(f),
            FindingKind::TornTail { bytes } => {
                write!(
                    f,
                    "file ends {bytes} bytes into a page (torn tail; not analysed)"
                )
            }
            FindingKind::ShorterThanFspSize { fsp_size, pages } => {
                write!(
                    f,
                    "file holds {pages} pages but FSP_SIZE says {fsp_size} (truncated?)"
                )
            }
            FindingKind::Page0Unusable => {
                f.write_str("page 0 does not verify; format found from the other pages")
            }
            FindingKind::Space(p) => p.fmt(f),
            FindingKind::Btree(p) => p.fmt(f),
        }
    }
}
