//! File-based lists: addresses, base nodes, list nodes, and a bounded walker
//! (storage/innobase/include/fut0lst.h and fil0types.h, MySQL 8.0; the same
//! in MariaDB 10.11 fut0lst.h).
//!
//! A file address (`fil_addr_t`, 6 bytes):
//!
//! | offset | size | field                                   |
//! |-------:|-----:|-----------------------------------------|
//! |      0 |    4 | FIL_ADDR_PAGE (FIL_NULL: no address)    |
//! |      4 |    2 | FIL_ADDR_BYTE (byte offset in the page) |
//!
//! A list base node (FLST_BASE_NODE, 16 bytes):
//!
//! | offset | size | field                        |
//! |-------:|-----:|------------------------------|
//! |      0 |    4 | FLST_LEN (number of nodes)   |
//! |      4 |    6 | FLST_FIRST (address of the first node) |
//! |     10 |    6 | FLST_LAST (address of the last node)   |
//!
//! A list node (FLST_NODE, 12 bytes), embedded in each element:
//!
//! | offset | size | field     |
//! |-------:|-----:|-----------|
//! |      0 |    6 | FLST_PREV |
//! |      6 |    6 | FLST_NEXT |
//!
//! Addresses point at the **node**, not at the start of the element: the
//! FSP_FREE_FRAG list of a fresh file-per-table space names `0:158`, which is
//! XDES entry 0 (at 150) plus XDES_FLST_NODE (8).
//!
//! The walker ([`FlstWalk`]) only accepts addresses where an element of the
//! list can be ([`ListLayout`]: which pages, which offsets), so a pointer into
//! the middle of an element is caught as [`ListProblemKind::BadOffset`]. Its
//! visited set is a bitmap with one bit per possible element slot, grown to
//! the highest slot visited; its work is bounded by that number of slots
//! and by FLST_LEN + 1.

use crate::bits::Bits;
use crate::bytes::{be_u16, be_u32};
use crate::fil::{FIL_PAGE_DATA, FIL_PAGE_DATA_END};
use crate::ids::{PageNo, FIL_NULL};
use crate::space::Tablespace;
use std::fmt;

/// Offset of the page number in a file address.
pub(crate) const FIL_ADDR_PAGE: usize = 0;
/// Offset of the byte offset in a file address.
pub(crate) const FIL_ADDR_BYTE: usize = 4;
/// Size of a file address.
pub(crate) const FIL_ADDR_SIZE: usize = 6;
/// Offset of the list length in a base node.
pub const FLST_LEN: usize = 0;
/// Offset of the first-node address in a base node.
pub const FLST_FIRST: usize = 4;
/// Offset of the last-node address in a base node.
pub(crate) const FLST_LAST: usize = 4 + FIL_ADDR_SIZE;
/// Size of a base node.
pub(crate) const FLST_BASE_NODE_SIZE: usize = 4 + 2 * FIL_ADDR_SIZE;
/// Offset of the previous-node address in a list node.
pub const FLST_PREV: usize = 0;
/// Offset of the next-node address in a list node.
pub const FLST_NEXT: usize = FIL_ADDR_SIZE;
/// Size of a list node.
pub const FLST_NODE_SIZE: usize = 2 * FIL_ADDR_SIZE;

/// A file address: a page and a byte offset in it (`fil_addr_t`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FilAddr {
    /// FIL_ADDR_PAGE; `FIL_NULL` means "no address".
    pub page: PageNo,
    /// FIL_ADDR_BYTE.
    pub byte: u16,
}

impl FilAddr {
    /// The null address (`fil_addr_null`: FIL_NULL, 0).
    pub const NULL: FilAddr = FilAddr {
        page: PageNo(FIL_NULL),
        byte: 0,
    };

    /// Reads an address at `offset` of `buf`, or `None` past its end.
    pub fn read(buf: &[u8], offset: usize) -> Option<Self> {
        Some(FilAddr {
            page: PageNo(be_u32(buf, offset.checked_add(FIL_ADDR_PAGE)?)?),
            byte: be_u16(buf, offset.checked_add(FIL_ADDR_BYTE)?)?,
        })
    }

    /// True when the page part is `FIL_NULL` (the byte part is then ignored,
    /// as `fil_addr_is_null` does).
    pub fn is_null(self) -> bool {
        self.page.is_null()
    }

    /// Equality as InnoDB means it: two null addresses are the same
    /// whatever their byte parts.
    pub fn same(self, other: FilAddr) -> bool {
        (self.is_null() && other.is_null()) || self == other
    }
}

impl fmt::Display for FilAddr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_null() {
            f.write_str("null")
        } else {
            write!(f, "{}:{}", self.page, self.byte)
        }
    }
}

/// A list base node (FLST_BASE_NODE), read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlstBase {
    /// FLST_LEN.
    pub len: u32,
    /// FLST_FIRST.
    pub first: FilAddr,
    /// FLST_LAST.
    pub last: FilAddr,
}

impl FlstBase {
    /// Reads a base node at `offset` of `buf`, or `None` past its end.
    pub fn read(buf: &[u8], offset: usize) -> Option<Self> {
        Some(FlstBase {
            len: be_u32(buf, offset.checked_add(FLST_LEN)?)?,
            first: FilAddr::read(buf, offset.checked_add(FLST_FIRST)?)?,
            last: FilAddr::read(buf, offset.checked_add(FLST_LAST)?)?,
        })
    }
}

/// A list node (FLST_NODE), read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlstNode {
    /// FLST_PREV.
    pub prev: FilAddr,
    /// FLST_NEXT.
    pub next: FilAddr,
}

impl FlstNode {
    /// Reads a list node at `offset` of `buf`, or `None` past its end.
    pub fn read(buf: &[u8], offset: usize) -> Option<Self> {
        Some(FlstNode {
            prev: FilAddr::read(buf, offset.checked_add(FLST_PREV)?)?,
            next: FilAddr::read(buf, offset.checked_add(FLST_NEXT)?)?,
        })
    }
}

/// Where the elements of one kind of list can be: the walker accepts an
/// address only at the node of one of these element slots.
///
/// Element `k` of a page lies at `array_offset + k * element_size`, its node
/// at `node_offset` inside it, for `k < per_page`, on pages whose number is
/// a multiple of `page_stride`.
///
/// The layout of XDES entries, [`ListLayout::xdes_entries`], is made in
/// [`crate::xdes`], which builds on this module.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ListLayout {
    /// Elements live only on pages whose number is a multiple of this
    /// (1: any page).
    pub page_stride: u32,
    /// Offset of element 0 in its page.
    pub array_offset: u32,
    /// Distance between consecutive elements.
    pub element_size: u32,
    /// Element slots per page.
    pub per_page: u32,
    /// Offset of the FLST_NODE inside an element.
    pub node_offset: u32,
}

impl ListLayout {
    /// INODE pages (FSP_SEG_INODES_FULL, FSP_SEG_INODES_FREE): one node per
    /// page, at FSEG_INODE_PAGE_NODE = FIL_PAGE_DATA; the element is the page.
    pub(crate) fn inode_pages() -> Self {
        ListLayout {
            page_stride: 1,
            array_offset: FIL_PAGE_DATA as u32,
            element_size: FLST_NODE_SIZE as u32,
            per_page: 1,
            node_offset: 0,
        }
    }

    /// The element slot index within its page of a node at byte `byte` of
    /// page `page`, or `None` when no element's node can be there.
    pub fn slot_of(&self, page: PageNo, byte: u16) -> Option<u32> {
        if page.0.checked_rem(self.page_stride)? != 0 {
            return None;
        }
        let rel = u32::from(byte)
            .checked_sub(self.array_offset)?
            .checked_sub(self.node_offset)?;
        if rel.checked_rem(self.element_size)? != 0 {
            return None;
        }
        let k = rel.checked_div(self.element_size)?;
        (k < self.per_page).then_some(k)
    }

    /// Number of element slots in a file of `n_pages` pages: the bound of
    /// any walk, and the size of its visited bitmap.
    pub fn n_slots(&self, n_pages: u32) -> u64 {
        let pages = u64::from(n_pages).div_ceil(u64::from(self.page_stride.max(1)));
        pages.saturating_mul(u64::from(self.per_page))
    }
}

/// One element found by a walk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ListItem {
    /// The page holding the element.
    pub page: PageNo,
    /// Byte offset of the element (not of its node) in the page.
    pub offset: u16,
    /// The element's slot index within its page (for XDES lists: the XDES
    /// entry index).
    pub idx: u32,
}

/// What is wrong with a list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ListProblemKind {
    /// A pointer names a node already visited (or one overlapping it): the
    /// list loops. Fatal.
    Loop {
        /// The address pointed to.
        to: FilAddr,
    },
    /// A pointer names a page past the end of the file. Fatal.
    PastFile {
        /// The address pointed to.
        to: FilAddr,
    },
    /// A pointer names a place where no element's node can be (a page that
    /// holds no such elements, a misaligned offset, or one outside the
    /// element array or the page). Fatal.
    BadOffset {
        /// The address pointed to.
        to: FilAddr,
    },
    /// The page holding the next node cannot be read without a key or
    /// decompression (encrypted or page-compressed). Fatal, but not damage.
    Unreadable {
        /// The page.
        page: PageNo,
    },
    /// FLST_PREV of a node does not name the node before it. The walk goes
    /// on.
    PrevMismatch {
        /// FLST_PREV as stored.
        found: FilAddr,
        /// The node walked before it (null for the first).
        expected: FilAddr,
    },
    /// The walk ended at another node than FLST_LAST names.
    LastMismatch {
        /// FLST_LAST as stored.
        stated: FilAddr,
        /// The last node walked.
        walked: FilAddr,
    },
    /// FLST_LEN disagrees with the nodes walked. When the list has more
    /// nodes than FLST_LEN, the walk stops at node FLST_LEN + 1 and
    /// `walked` is FLST_LEN + 1 (a lower bound).
    LengthMismatch {
        /// FLST_LEN.
        stated: u32,
        /// Nodes walked.
        walked: u32,
    },
}

impl ListProblemKind {
    /// True for problems after which the walk stops.
    pub(crate) fn is_fatal(self) -> bool {
        !matches!(
            self,
            ListProblemKind::PrevMismatch { .. }
                | ListProblemKind::LastMismatch { .. }
                | ListProblemKind::LengthMismatch { .. }
        )
    }
}

impl fmt::Display for ListProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "page {} at page offset {}: {}",
            self.page, self.offset, self.kind
        )
    }
}

impl fmt::Display for ListProblemKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            ListProblemKind::Loop { to } => write!(f, "loops back to node {to}"),
            ListProblemKind::PastFile { to } => write!(f, "points past the end of the file ({to})"),
            ListProblemKind::BadOffset { to } => {
                write!(f, "points where no list node can be ({to})")
            }
            ListProblemKind::Unreadable { page } => {
                write!(
                    f,
                    "continues on page {page}, which is encrypted or compressed"
                )
            }
            ListProblemKind::PrevMismatch { found, expected } => {
                write!(f, "FLST_PREV is {found}, but the node before is {expected}")
            }
            ListProblemKind::LastMismatch { stated, walked } => {
                write!(f, "FLST_LAST is {stated}, but the walk ended at {walked}")
            }
            ListProblemKind::LengthMismatch { stated, walked } => {
                write!(f, "FLST_LEN is {stated}, but {walked} nodes were walked")
            }
        }
    }
}

/// A list problem with the place of the bytes at fault: the pointer that
/// points badly, the node whose FLST_PREV is wrong, or the base node's
/// FLST_LEN / FLST_LAST.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ListProblem {
    /// The page holding the faulty field.
    pub page: PageNo,
    /// Its byte offset in that page.
    pub offset: u16,
    /// What is wrong.
    pub kind: ListProblemKind,
}

/// Whether the structure bytes of a page (everything after the FIL header)
/// can be read as they are: false for MySQL/Percona encrypted and
/// transparently compressed pages (types 14–17), MariaDB page_compressed
/// pages (34354, 37401, and the full_crc32 marker bit), MariaDB full_crc32
/// encrypted pages (key version at 0) and MariaDB encrypted pages in the
/// other formats (key version at 26, except on page 0 and on R-tree pages,
/// where those bytes hold FIL_RTREE_SPLIT_SEQ_NUM, and only where the
/// encrypted-bytes checksum at 30..34 verifies).
///
/// This reads the FIL header only, no checksum: a damaged page is still
/// read (damage shows up as findings), only pages whose bytes are
/// transformed are skipped.
pub fn page_readable(ts: &Tablespace<'_>, page: &[u8]) -> bool {
    use crate::checksum::Scheme;
    use crate::page_type::PageType as T;
    let Some(h) = crate::fil::FilHeader::new(page) else {
        return false;
    };
    let t = h.page_type();
    if matches!(
        t,
        T::FIL_PAGE_COMPRESSED
            | T::FIL_PAGE_ENCRYPTED
            | T::FIL_PAGE_COMPRESSED_AND_ENCRYPTED
            | T::FIL_PAGE_ENCRYPTED_RTREE
            | T::FIL_PAGE_PAGE_COMPRESSED
            | T::FIL_PAGE_PAGE_COMPRESSED_ENCRYPTED
    ) {
        return false;
    }
    match ts.scheme() {
        Scheme::FullCrc32 => t.0 & T::FCRC32_COMPRESSED_MARKER == 0 && h.checksum() == 0,
        // A key version alone proves nothing (MySQL never writes one, and a
        // flipped byte there is invisible to every server): the page is
        // encrypted only when its plain checksum fails and the checksum of
        // the encrypted bytes at 30..34 holds.
        Scheme::Classic | Scheme::Zip => {
            h.page_no().0 == 0
                || h.key_version() == 0
                || t == T::FIL_PAGE_RTREE
                || crate::space::verify_page(page, ts.scheme())
                    != crate::checksum::Verdict::Valid(crate::checksum::Algorithm::MariaDbEncrypted)
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step {
    Item(ListItem),
    Problem(ListProblem),
}

/// A bounded walk over one list, yielding each element's address.
///
/// Yields `Ok(item)` for every element in list order and `Err(problem)` for
/// every problem; after a fatal problem ([`ListProblemKind::is_fatal`]) it
/// yields nothing more. It never visits more than FLST_LEN + 1 nodes, nor
/// more than the element slots the file has ([`ListLayout::n_slots`]), and
/// catches loops with a visited bitmap of the element slots (grown to the
/// highest one visited).
#[derive(Clone, Debug)]
pub(crate) struct FlstWalk<'t, 'a> {
    ts: &'t Tablespace<'a>,
    layout: ListLayout,
    base: FlstBase,
    base_page: PageNo,
    base_offset: u16,
    next: FilAddr,
    from: (PageNo, u16),
    prev_node: FilAddr,
    walked: u32,
    visited: Bits,
    queue: [Option<Step>; 2],
    done: bool,
}

fn offset_u16(offset: usize) -> u16 {
    u16::try_from(offset).unwrap_or(u16::MAX)
}

impl<'t, 'a> FlstWalk<'t, 'a> {
    /// A walk over the list whose base node `base` sits at `base_offset` of
    /// page `base_page` (the place is only used to locate problems).
    pub fn new(
        ts: &'t Tablespace<'a>,
        layout: ListLayout,
        base: FlstBase,
        base_page: PageNo,
        base_offset: usize,
    ) -> Self {
        let base_offset = offset_u16(base_offset);
        FlstWalk {
            ts,
            layout,
            base,
            base_page,
            base_offset,
            next: base.first,
            from: (base_page, base_offset.saturating_add(FLST_FIRST as u16)),
            prev_node: FilAddr::NULL,
            walked: 0,
            visited: Bits::default(),
            queue: [None, None],
            done: false,
        }
    }

    /// Reads the base node at `base_offset` of page `base_page` and walks
    /// its list; `None` when the base node is not in the file.
    pub fn at(
        ts: &'t Tablespace<'a>,
        layout: ListLayout,
        base_page: PageNo,
        base_offset: usize,
    ) -> Option<Self> {
        let page = ts.page(base_page)?;
        let base = FlstBase::read(page, base_offset)?;
        Some(Self::new(ts, layout, base, base_page, base_offset))
    }

    /// The base node.
    pub fn base(&self) -> FlstBase {
        self.base
    }

    /// Nodes walked so far.
    pub fn walked(&self) -> u32 {
        self.walked
    }

    fn problem_at(&self, at: (PageNo, u16), kind: ListProblemKind) -> Step {
        Step::Problem(ListProblem {
            page: at.0,
            offset: at.1,
            kind,
        })
    }

    fn push(&mut self, step: Step) {
        if let Some(slot) = self.queue.iter_mut().find(|s| s.is_none()) {
            *slot = Some(step);
        }
    }

    fn pop(&mut self) -> Option<Step> {
        let [a, b] = &mut self.queue;
        let first = a.take();
        *a = b.take();
        first
    }

    fn end(&mut self) {
        self.done = true;
        if self.walked != self.base.len {
            let at = (
                self.base_page,
                self.base_offset.saturating_add(FLST_LEN as u16),
            );
            let s = self.problem_at(
                at,
                ListProblemKind::LengthMismatch {
                    stated: self.base.len,
                    walked: self.walked,
                },
            );
            self.push(s);
        }
        let last_ok = if self.walked == 0 {
            // An empty list's FLST_LAST is "undefined" (fut0lst.h); servers
            // write FIL_NULL, and only that is checked.
            self.base.last.is_null() || self.base.len != 0
        } else {
            self.base.last.same(self.prev_node)
        };
        if !last_ok {
            let at = (
                self.base_page,
                self.base_offset.saturating_add(FLST_LAST as u16),
            );
            let s = self.problem_at(
                at,
                ListProblemKind::LastMismatch {
                    stated: self.base.last,
                    walked: self.prev_node,
                },
            );
            self.push(s);
        }
    }

    fn fatal(&mut self, kind: ListProblemKind) {
        self.done = true;
        let s = self.problem_at(self.from, kind);
        self.push(s);
    }

    /// Visits the next node, queueing what it yields.
    fn step(&mut self) {
        let to = self.next;
        if to.is_null() {
            self.end();
            return;
        }
        if self.walked >= self.base.len {
            self.done = true;
            let at = (
                self.base_page,
                self.base_offset.saturating_add(FLST_LEN as u16),
            );
            let s = self.problem_at(
                at,
                ListProblemKind::LengthMismatch {
                    stated: self.base.len,
                    walked: self.walked.saturating_add(1),
                },
            );
            self.push(s);
            return;
        }
        if to.page.0 >= self.ts.n_pages() {
            self.fatal(ListProblemKind::PastFile { to });
            return;
        }
        let Some(k) = self.layout.slot_of(to.page, to.byte) else {
            self.fatal(ListProblemKind::BadOffset { to });
            return;
        };
        let node_at = usize::from(to.byte);
        let page = self.ts.page(to.page).unwrap_or(&[]);
        let node_end = node_at.saturating_add(FLST_NODE_SIZE);
        if node_end > page.len().saturating_sub(FIL_PAGE_DATA_END) {
            self.fatal(ListProblemKind::BadOffset { to });
            return;
        }
        // The visited bitmap: one bit per element slot in the file.
        let n_slots = self.layout.n_slots(self.ts.n_pages());
        let slot = u64::from(to.page.0.checked_div(self.layout.page_stride).unwrap_or(0))
            .saturating_mul(u64::from(self.layout.per_page))
            .saturating_add(u64::from(k));
        // Slots up to the bitmap's whole last word are accepted, as ever.
        let cap = n_slots.div_ceil(64).saturating_mul(64);
        let slot = match usize::try_from(slot) {
            Ok(s) if slot < cap => s,
            _ => {
                self.fatal(ListProblemKind::BadOffset { to });
                return;
            }
        };
        self.visited.grow_to(slot.saturating_add(1));
        if !self.visited.insert(slot) {
            self.fatal(ListProblemKind::Loop { to });
            return;
        }
        let item = ListItem {
            page: to.page,
            offset: to
                .byte
                .saturating_sub(u16::try_from(self.layout.node_offset).unwrap_or(0)),
            idx: k,
        };
        self.walked = self.walked.saturating_add(1);
        if !page_readable(self.ts, page) {
            self.push(Step::Item(item));
            self.from = (to.page, to.byte.saturating_add(FLST_NEXT as u16));
            self.fatal(ListProblemKind::Unreadable { page: to.page });
            self.prev_node = to;
            return;
        }
        let Some(node) = FlstNode::read(page, node_at) else {
            self.fatal(ListProblemKind::BadOffset { to });
            return;
        };
        if !node.prev.same(self.prev_node) {
            let at = (to.page, to.byte.saturating_add(FLST_PREV as u16));
            let s = self.problem_at(
                at,
                ListProblemKind::PrevMismatch {
                    found: node.prev,
                    expected: self.prev_node,
                },
            );
            self.push(s);
        }
        self.push(Step::Item(item));
        self.prev_node = to;
        self.next = node.next;
        self.from = (to.page, to.byte.saturating_add(FLST_NEXT as u16));
    }
}

impl Iterator for FlstWalk<'_, '_> {
    type Item = Result<ListItem, ListProblem>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(step) = self.pop() {
                return Some(match step {
                    Step::Item(i) => Ok(i),
                    Step::Problem(p) => Err(p),
                });
            }
            if self.done {
                return None;
            }
            self.step();
        }
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
pub(crate) mod tests {
    use super::*;

    /// Writes an address at `at`.
    pub(crate) fn put_addr(page: &mut [u8], at: usize, a: FilAddr) {
        page[at..at + 4].copy_from_slice(&a.page.0.to_be_bytes());
        page[at + 4..at + 6].copy_from_slice(&a.byte.to_be_bytes());
    }

    /// Writes a base node at `at`.
    pub(crate) fn put_base(page: &mut [u8], at: usize, len: u32, first: FilAddr, last: FilAddr) {
        page[at..at + 4].copy_from_slice(&len.to_be_bytes());
        put_addr(page, at + FLST_FIRST, first);
        put_addr(page, at + FLST_LAST, last);
    }

    /// Writes a node at `at`.
    pub(crate) fn put_node(page: &mut [u8], at: usize, prev: FilAddr, next: FilAddr) {
        put_addr(page, at + FLST_PREV, prev);
        put_addr(page, at + FLST_NEXT, next);
    }

    pub(crate) fn addr(page: u32, byte: u16) -> FilAddr {
        FilAddr {
            page: PageNo(page),
            byte,
        }
    }

    /// A 16K file of `n` pages, each with its page number and type INODE,
    /// valid enough for `Tablespace::with_options` with a page size.
    fn file(n: usize) -> Vec<u8> {
        let mut d = vec![0u8; n * 16384];
        for i in 0..n {
            let p = &mut d[i * 16384..(i + 1) * 16384];
            p[4..8].copy_from_slice(&(i as u32).to_be_bytes());
            p[24..26].copy_from_slice(&3u16.to_be_bytes());
        }
        d
    }

    fn ts(d: &[u8]) -> Tablespace<'_> {
        Tablespace::with_options(
            d,
            crate::Options {
                page_size: Some(16384),
            },
        )
        .unwrap()
    }

    fn pg(d: &mut [u8], n: usize) -> &mut [u8] {
        &mut d[n * 16384..(n + 1) * 16384]
    }

    fn walk(d: &[u8], base_page: u32, base_at: usize) -> Vec<Result<ListItem, ListProblem>> {
        let t = ts(d);
        FlstWalk::at(&t, ListLayout::inode_pages(), PageNo(base_page), base_at)
            .unwrap()
            .collect()
    }

    /// A list of inode pages 1 -> 2 -> 3 with its base at 0:100.
    fn three() -> Vec<u8> {
        let mut d = file(5);
        put_base(pg(&mut d, 0), 100, 3, addr(1, 38), addr(3, 38));
        put_node(pg(&mut d, 1), 38, FilAddr::NULL, addr(2, 38));
        put_node(pg(&mut d, 2), 38, addr(1, 38), addr(3, 38));
        put_node(pg(&mut d, 3), 38, addr(2, 38), FilAddr::NULL);
        d
    }

    #[test]
    fn walks_a_good_list() {
        let d = three();
        let got = walk(&d, 0, 100);
        let pages: Vec<u32> = got.iter().map(|r| r.unwrap().page.0).collect();
        assert_eq!(pages, [1, 2, 3]);
        assert!(got.iter().all(|r| r.unwrap().offset == 38));
    }

    #[test]
    fn empty_list() {
        let mut d = file(2);
        put_base(pg(&mut d, 0), 100, 0, FilAddr::NULL, FilAddr::NULL);
        assert!(walk(&d, 0, 100).is_empty());
    }

    #[test]
    fn catches_a_loop() {
        let mut d = three();
        // 3 -> 1 again, and FLST_LEN large so the length bound is not hit.
        put_node(pg(&mut d, 3), 38, addr(2, 38), addr(1, 38));
        put_base(pg(&mut d, 0), 100, 1000, addr(1, 38), addr(3, 38));
        let got = walk(&d, 0, 100);
        assert_eq!(got.len(), 4);
        assert_eq!(
            got[3],
            Err(ListProblem {
                page: PageNo(3),
                offset: 44,
                kind: ListProblemKind::Loop { to: addr(1, 38) }
            })
        );
    }

    #[test]
    fn self_loop_with_huge_len_stops() {
        let mut d = file(2);
        put_base(pg(&mut d, 0), 100, u32::MAX, addr(1, 38), addr(1, 38));
        put_node(pg(&mut d, 1), 38, FilAddr::NULL, addr(1, 38));
        let got = walk(&d, 0, 100);
        assert_eq!(got.len(), 2);
        assert!(matches!(
            got[1],
            Err(ListProblem {
                kind: ListProblemKind::Loop { .. },
                ..
            })
        ));
    }

    #[test]
    fn past_file_and_bad_offset_are_fatal() {
        let mut d = three();
        put_node(pg(&mut d, 2), 38, addr(1, 38), addr(99, 38));
        let got = walk(&d, 0, 100);
        assert_eq!(got.len(), 3);
        assert_eq!(
            got[2].unwrap_err().kind,
            ListProblemKind::PastFile { to: addr(99, 38) }
        );
        assert_eq!(got[2].unwrap_err().page, PageNo(2));
        assert_eq!(got[2].unwrap_err().offset, 44);

        let mut d = three();
        put_node(pg(&mut d, 1), 38, FilAddr::NULL, addr(2, 39));
        let got = walk(&d, 0, 100);
        assert_eq!(got.len(), 2);
        assert_eq!(
            got[1].unwrap_err().kind,
            ListProblemKind::BadOffset { to: addr(2, 39) }
        );
    }

    #[test]
    fn length_and_last_and_prev_mismatches() {
        // FLST_LEN says 2 but there are 3: stops at the third.
        let mut d = three();
        put_base(pg(&mut d, 0), 100, 2, addr(1, 38), addr(3, 38));
        let got = walk(&d, 0, 100);
        assert_eq!(got.len(), 3);
        assert_eq!(
            got[2].unwrap_err(),
            ListProblem {
                page: PageNo(0),
                offset: 100,
                kind: ListProblemKind::LengthMismatch {
                    stated: 2,
                    walked: 3
                }
            }
        );
        // FLST_LEN says 4: walks all 3, then reports.
        let mut d = three();
        put_base(pg(&mut d, 0), 100, 4, addr(1, 38), addr(2, 38));
        let got = walk(&d, 0, 100);
        assert_eq!(got.len(), 5);
        assert_eq!(
            got[3].unwrap_err().kind,
            ListProblemKind::LengthMismatch {
                stated: 4,
                walked: 3
            }
        );
        assert_eq!(
            got[4].unwrap_err().kind,
            ListProblemKind::LastMismatch {
                stated: addr(2, 38),
                walked: addr(3, 38)
            }
        );
        // A wrong FLST_PREV is reported and the walk goes on.
        let mut d = three();
        put_node(pg(&mut d, 2), 38, addr(3, 38), addr(3, 38));
        let got = walk(&d, 0, 100);
        assert_eq!(got.len(), 4);
        assert_eq!(
            got[1].unwrap_err(),
            ListProblem {
                page: PageNo(2),
                offset: 38,
                kind: ListProblemKind::PrevMismatch {
                    found: addr(3, 38),
                    expected: addr(1, 38)
                }
            }
        );
        assert_eq!(got[3].unwrap().page, PageNo(3));
    }

    #[test]
    fn unreadable_page_ends_the_walk_after_yielding_it() {
        let mut d = three();
        pg(&mut d, 2)[24..26].copy_from_slice(&15u16.to_be_bytes());
        let got = walk(&d, 0, 100);
        assert_eq!(got.len(), 3);
        assert_eq!(got[1].unwrap().page, PageNo(2));
        assert_eq!(
            got[2].unwrap_err().kind,
            ListProblemKind::Unreadable { page: PageNo(2) }
        );
    }

    #[test]
    fn xdes_layout_slots() {
        let l = ListLayout::xdes_entries(16384, 64);
        assert_eq!(l.per_page, 256);
        assert_eq!(l.element_size, 40);
        assert_eq!(l.slot_of(PageNo(0), 158), Some(0));
        assert_eq!(l.slot_of(PageNo(0), 198), Some(1));
        assert_eq!(l.slot_of(PageNo(0), 159), None);
        assert_eq!(l.slot_of(PageNo(1), 158), None);
        assert_eq!(l.slot_of(PageNo(16384), 158 + 255 * 40), Some(255));
        assert_eq!(l.slot_of(PageNo(16384), 158 + 256 * 40), None);
        assert_eq!(l.n_slots(16385), 512);
    }

    #[test]
    fn garbage_never_panics() {
        // Every base node position on a page of pseudo-random bytes.
        let mut d = file(4);
        let mut x = 0x1234_5678u32;
        for b in d.iter_mut() {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            *b = x as u8;
        }
        // Pages that carry their own page number: the file reads as 16K
        // pages (nothing else in it looks like InnoDB).
        for (i, p) in d.chunks_mut(16384).enumerate() {
            p[4..8].copy_from_slice(&(i as u32).to_be_bytes());
        }
        let t = ts(&d);
        for at in (0..16384).step_by(7) {
            for layout in [
                ListLayout::inode_pages(),
                ListLayout::xdes_entries(16384, 64),
            ] {
                if let Some(w) = FlstWalk::at(&t, layout, PageNo(1), at) {
                    // Each slot visited once, each with at most one
                    // FLST_PREV problem, plus two at the end.
                    let bound = 2 * layout.n_slots(4) + 2;
                    assert!(w.count() as u64 <= bound);
                }
            }
        }
    }
}
