//! Test support for the crates built on this one (feature `testing`, on
//! for their tests only): a byte-by-byte index page builder.

#![allow(
    missing_docs,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic
)]

use crate::index::*;
use crate::record::*;

/// A tiny index page builder: records are appended to the heap and
/// chained in insertion order; `finish` writes the directory and header.
pub struct PageBuilder {
    pub page: Vec<u8>,
    pub format: RecFormat,
    /// Origins in chain order, infimum and supremum excluded.
    pub chain: Vec<usize>,
    pub free: Vec<usize>,
    pub top: usize,
    pub heap_no: u16,
    pub garbage: u16,
    pub level: u16,
}

impl PageBuilder {
    pub fn new(size: usize, format: RecFormat) -> Self {
        let mut b = PageBuilder {
            page: vec![0u8; size],
            format,
            chain: Vec::new(),
            free: Vec::new(),
            top: format.supremum_end(),
            heap_no: 2,
            garbage: 0,
            level: 0,
        };
        // The system records as page_create_low writes them.
        let inf = format.infimum();
        let sup = format.supremum();
        b.page[inf..inf + 8].copy_from_slice(INFIMUM_DATA);
        b.page[sup..sup + 8].copy_from_slice(SUPREMUM_DATA);
        b.header(inf, 0x01, 0, REC_STATUS_INFIMUM, 1);
        b.header(sup, 0x01, 1, REC_STATUS_SUPREMUM, 1);
        if format == RecFormat::Redundant {
            b.page[inf - 7] = 8;
            b.page[sup - 7] = 9;
        }
        b
    }

    pub fn put16(&mut self, at: usize, v: u16) {
        self.page[at..at + 2].copy_from_slice(&v.to_be_bytes());
    }

    /// Writes a header at `origin` (next left 0); REDUNDANT records get
    /// `n_fields` one-byte offsets.
    pub fn header(&mut self, origin: usize, b5: u8, heap_no: u16, status: u8, n_fields: u16) {
        match self.format {
            RecFormat::Compact => {
                self.page[origin - 5] = b5;
                self.put16(origin - 4, (heap_no << 3) | u16::from(status));
            }
            RecFormat::Redundant => {
                // Bytes 5..3: heap_no (13 bits), n_fields (10), short (1).
                self.page[origin - 6] = b5;
                let v = (u32::from(heap_no) << 11) | (u32::from(n_fields) << 1) | 1;
                self.page[origin - 5..origin - 2].copy_from_slice(&v.to_be_bytes()[1..]);
            }
        }
    }

    /// Appends a user record with `data` (REDUNDANT: fields of the given
    /// lengths, 1-byte offsets) and chains it last. Returns its origin.
    pub fn push(&mut self, info: u8, fields: &[usize]) -> usize {
        let n = fields.len();
        let extra = match self.format {
            RecFormat::Compact => 5,
            RecFormat::Redundant => 6 + n,
        };
        let origin = self.top + extra;
        let len: usize = fields.iter().sum();
        let status = if self.level > 0 {
            REC_STATUS_NODE_PTR
        } else {
            REC_STATUS_ORDINARY
        };
        let heap_no = self.heap_no;
        self.header(origin, info, heap_no, status, n as u16);
        if self.format == RecFormat::Redundant {
            let mut end = 0;
            for (i, l) in fields.iter().enumerate() {
                end += l;
                self.page[origin - 7 - i] = end as u8;
            }
        }
        for (i, b) in self.page[origin..origin + len].iter_mut().enumerate() {
            *b = (i as u8) | 0x40;
        }
        self.heap_no += 1;
        self.top = origin + len;
        self.chain.push(origin);
        origin
    }

    /// Moves the chained record at `origin` to the free list (as
    /// page_mem_free does; the delete flag set, the size counted).
    pub fn delete(&mut self, origin: usize, size: u16) {
        self.chain.retain(|&o| o != origin);
        self.free.push(origin);
        self.garbage += size;
    }

    pub fn link(&mut self, from: usize, to: usize) {
        let v = match (self.format, to) {
            (_, 0) => 0,
            (RecFormat::Compact, _) => (to as i64 - from as i64) as u16,
            (RecFormat::Redundant, _) => to as u16,
        };
        self.put16(from - 2, v);
    }

    pub fn set_owned(&mut self, origin: usize, n: u8) {
        let at = origin - self.format.extra_bytes();
        self.page[at] = (self.page[at] & 0xF0) | n;
    }

    /// Chains, builds the directory (groups of 4), writes the header.
    pub fn finish(&mut self) -> &[u8] {
        let size = self.page.len();
        let inf = self.format.infimum();
        let sup = self.format.supremum();
        let mut order = vec![inf];
        order.extend(self.chain.iter().copied());
        order.push(sup);
        for w in order.clone().windows(2) {
            self.link(w[0], w[1]);
        }
        self.link(sup, 0);
        let free = self.free.clone();
        for (i, &o) in free.iter().enumerate() {
            self.link(o, free.get(i + 1).copied().unwrap_or(0));
            let at = o - self.format.extra_bytes();
            self.page[at] |= REC_INFO_DELETED_FLAG;
        }
        // Directory: infimum alone, then groups of 4, the rest with the
        // supremum.
        for &o in &order {
            self.set_owned(o, 0);
        }
        let mut slots = vec![inf];
        self.set_owned(inf, 1);
        let users = &order[1..order.len() - 1];
        let groups = users.len() / 4;
        let groups = if users.len() % 4 == 0 && groups > 0 {
            groups - 1
        } else {
            groups
        };
        for g in 0..groups {
            let owner = users[g * 4 + 3];
            self.set_owned(owner, 4);
            slots.push(owner);
        }
        self.set_owned(sup, (users.len() - groups * 4 + 1) as u8);
        slots.push(sup);
        for (i, &s) in slots.iter().enumerate() {
            self.put16(size - 8 - 2 * (i + 1), s as u16);
        }
        let h = PAGE_HEADER;
        self.put16(h + PAGE_N_DIR_SLOTS, slots.len() as u16);
        self.put16(h + PAGE_HEAP_TOP, self.top as u16);
        let fmt_bit = if self.format == RecFormat::Compact {
            0x8000
        } else {
            0
        };
        self.put16(h + PAGE_N_HEAP, fmt_bit | self.heap_no);
        self.put16(h + PAGE_FREE, free.first().copied().unwrap_or(0) as u16);
        self.put16(h + PAGE_GARBAGE, self.garbage);
        self.put16(h + PAGE_N_RECS, self.chain.len() as u16);
        self.put16(h + PAGE_LEVEL, self.level);
        &self.page
    }
}
