//! Records on an INDEX page: record headers, the page directory, the
//! record and free chains, and per-page figures.
//!
//! Sources, as read: MySQL storage/innobase/rem/rec.h (8.0.29+/8.4, © 2024;
//! and commit 083c52a7, © 2017, before the VERSION flag) for every `REC_*`
//! offset, mask and flag; MariaDB include/rem0rec.ic (commit 0009bb26) for
//! `rec_get_next_offs`; MySQL include/page0page.h (commit 8bdf7d4d) for the
//! directory and the infimum/supremum bytes; page/page0page.cc
//! `page_create_low` and `page_dir_slot_check` (MySQL 5.x–8.0) for the
//! system records and the group sizes; MariaDB 10.4+
//! page/page0page.cc `page_validate` for the chain, directory and count
//! rules, and page/page0cur.cc for `REC_STATUS_INSTANT == 4`;
//! handler/i_s.cc for what `INNODB_BUFFER_PAGE.NUMBER_RECORDS` and
//! `DATA_SIZE` are (`page_get_n_recs`, `page_get_data_size`).
//!
//! A record pointer ("origin") points at the first data byte; the header
//! ("extra bytes") lies just before it. Offsets below count **down** from
//! the origin, as InnoDB's `REC_*` constants do.
//!
//! COMPACT (new-style: ROW_FORMAT COMPACT, DYNAMIC, COMPRESSED; bit 15 of
//! PAGE_N_HEAP set), REC_N_NEW_EXTRA_BYTES = 5:
//!
//! | bytes before origin | bits | field |
//! |---:|---|---|
//! | 5 | high 4 | info bits: 0x10 MIN_REC, 0x20 DELETED, 0x40 VERSION (MySQL 8.0.29+), 0x80 INSTANT (MySQL 8.0.12+) |
//! | 5 | low 4 | n_owned: records owned by this record's directory slot, else 0 |
//! | 4..3 | high 13 | heap_no: 0 infimum, 1 supremum, 2.. user records |
//! | 3 | low 3 | status: 0 ordinary, 1 node pointer, 2 infimum, 3 supremum, 4 MariaDB `REC_STATUS_INSTANT` |
//! | 2..1 | 16 | next record, **relative**: next = (origin + value) mod page size; 0 = none |
//!
//! Before these 5 bytes, a COMPACT record stores its NULL bitmap and
//! variable-length field lengths, whose sizes depend on the column layout;
//! without the schema the record's extent is unknown (so its size, and the
//! child page number of a node pointer, cannot be found).
//!
//! REDUNDANT (old-style, bit 15 of PAGE_N_HEAP clear), REC_N_OLD_EXTRA_BYTES
//! = 6, preceded by one field end offset per field:
//!
//! | bytes before origin | bits | field |
//! |---:|---|---|
//! | 6 + n×w .. 7 | w×8 each | field end offsets, field 0 nearest the header; 1-byte: 0x80 SQL NULL; 2-byte: 0x8000 SQL NULL, 0x4000 stored off-page |
//! | 6 | high 4 / low 4 | info bits / n_owned |
//! | 5..4 | high 13 | heap_no |
//! | 4..3 | 10 (mask 0x7FE) | n_fields |
//! | 3 | low 1 | 1 = one-byte field offsets (`REC_OLD_SHORT`) |
//! | 2..1 | 16 | next record, **absolute** page offset; 0 = none |
//!
//! A field end offset counts from the origin to the byte past the field, so
//! REDUNDANT records carry their own extent: `6 + n×w` bytes before the
//! origin and `end(last field)` after it. The child page number of a node
//! pointer is its last field (4 bytes, `REC_NODE_PTR_SIZE`).
//!
//! System records (page0page.cc `page_create_low`): the infimum (heap 0,
//! n_owned 1, data `"infimum\0"`) at 99 (COMPACT) or 101 (REDUNDANT, one
//! 1-byte field offset of 8), the supremum (heap 1, next 0, data
//! `"supremum"`, REDUNDANT `"supremum\0"` with a field offset of 9) at 112 or
//! 116. User records follow from 120 / 125 up to PAGE_HEAP_TOP.
//!
//! The page directory (page0page.h): PAGE_N_DIR_SLOTS 2-byte slots growing
//! down from `size − PAGE_DIR − 2` (PAGE_DIR = FIL_PAGE_DATA_END = 8), each
//! the origin of the record that owns a group; slot 0 is the infimum (which
//! owns only itself), the last slot the supremum. A slot's record has
//! n_owned = the records from the previous slot's record (exclusive) to it
//! (inclusive): 1 for the infimum, 1..8 for the supremum, 4..8 for the
//! others (`PAGE_DIR_SLOT_MIN_N_OWNED`, `PAGE_DIR_SLOT_MAX_N_OWNED`).
//!
//! The free chain starts at PAGE_FREE and links deleted (purged) records by
//! the same next field; PAGE_N_HEAP = 2 + user records + free records
//! (`page_validate`).
//!
//! Traps:
//! - MariaDB 10.3+ instant ALTER TABLE puts a metadata record first on the
//!   leftmost leaf: MIN_REC flag (with or without DELETED), status 4 on
//!   COMPACT pages. It counts in PAGE_N_RECS and is walked like any user
//!   record; [`RecCounts::n_min_rec`] counts it on leaves.
//! - MySQL 8.0.12–8.0.28 mark records written after an instant ADD COLUMN
//!   with 0x80 (INSTANT), 8.0.29+ with 0x40 (VERSION); MariaDB never sets
//!   either bit (its `page_validate` rejects them).
//! - ROW_FORMAT=COMPRESSED pages keep the FIL and index headers
//!   uncompressed (and describing the logical page), but the records are a
//!   zlib stream: they are not walked ([`RecWalk::Compressed`]).
//! - On 64K pages the relative next field wraps around (rem0rec.ic); the
//!   modulo makes it right.

use crate::bits::Bits;
use crate::bytes::{be_u16, be_u32};
use crate::error::{Error, ErrorKind};
use crate::fil::FilHeader;
use crate::flst::page_readable;
use crate::ids::PageNo;
use crate::index::{
    IndexHeader, PageFill, PAGE_DATA, PAGE_DIR, PAGE_DIR_SLOT_SIZE, PAGE_FREE, PAGE_GARBAGE,
    PAGE_HEADER, PAGE_HEAP_TOP, PAGE_NEW_INFIMUM, PAGE_NEW_SUPREMUM, PAGE_NEW_SUPREMUM_END,
    PAGE_N_DIR_SLOTS, PAGE_N_HEAP, PAGE_N_RECS, PAGE_OLD_INFIMUM, PAGE_OLD_SUPREMUM,
    PAGE_OLD_SUPREMUM_END,
};
use crate::page_type::PageType;
use crate::space::Tablespace;
use std::fmt;

/// Header bytes of a COMPACT record.
pub const REC_N_NEW_EXTRA_BYTES: usize = 5;
/// Header bytes of a REDUNDANT record (field offsets not included).
pub(crate) const REC_N_OLD_EXTRA_BYTES: usize = 6;
/// Distance below the origin of the 2-byte next-record field.
pub(crate) const REC_NEXT: usize = 2;
/// COMPACT: distance of the byte holding the status bits.
pub(crate) const REC_NEW_STATUS: usize = 3;
/// COMPACT: mask of the status bits.
pub(crate) const REC_NEW_STATUS_MASK: u8 = 0x07;
/// COMPACT: distance of the 2-byte heap_no field.
pub(crate) const REC_NEW_HEAP_NO: usize = 4;
/// Mask of heap_no in its 2-byte field.
pub(crate) const REC_HEAP_NO_MASK: u16 = 0xFFF8;
/// Shift of heap_no in its 2-byte field.
pub const REC_HEAP_NO_SHIFT: u32 = 3;
/// COMPACT: distance of the n_owned byte.
pub(crate) const REC_NEW_N_OWNED: usize = 5;
/// COMPACT: distance of the info bits byte.
pub(crate) const REC_NEW_INFO_BITS: usize = 5;
/// REDUNDANT: distance of the byte holding the one-byte-offsets flag.
pub(crate) const REC_OLD_SHORT: usize = 3;
/// REDUNDANT: mask of the one-byte-offsets flag.
pub(crate) const REC_OLD_SHORT_MASK: u8 = 0x01;
/// REDUNDANT: distance of the 2-byte n_fields field.
pub(crate) const REC_OLD_N_FIELDS: usize = 4;
/// REDUNDANT: mask of n_fields.
pub(crate) const REC_OLD_N_FIELDS_MASK: u16 = 0x07FE;
/// REDUNDANT: shift of n_fields.
pub(crate) const REC_OLD_N_FIELDS_SHIFT: u32 = 1;
/// REDUNDANT: distance of the 2-byte heap_no field.
pub(crate) const REC_OLD_HEAP_NO: usize = 5;
/// REDUNDANT: distance of the n_owned byte.
pub(crate) const REC_OLD_N_OWNED: usize = 6;
/// REDUNDANT: distance of the info bits byte.
pub(crate) const REC_OLD_INFO_BITS: usize = 6;
/// Mask of n_owned.
pub(crate) const REC_N_OWNED_MASK: u8 = 0x0F;
/// Mask of the info bits.
pub(crate) const REC_INFO_BITS_MASK: u8 = 0xF0;
/// The first user record of the leftmost non-leaf page of a level
/// (MariaDB: also the instant ALTER metadata record on the leftmost leaf).
pub const REC_INFO_MIN_REC_FLAG: u8 = 0x10;
/// The record is delete-marked.
pub const REC_INFO_DELETED_FLAG: u8 = 0x20;
/// MySQL 8.0.29+: the record carries a row version byte.
pub const REC_INFO_VERSION_FLAG: u8 = 0x40;
/// MySQL 8.0.12+: the record was written after an instant ADD COLUMN and
/// carries its field count.
pub const REC_INFO_INSTANT_FLAG: u8 = 0x80;
/// COMPACT status: leaf record.
pub(crate) const REC_STATUS_ORDINARY: u8 = 0;
/// COMPACT status: node pointer.
pub const REC_STATUS_NODE_PTR: u8 = 1;
/// COMPACT status: infimum.
pub(crate) const REC_STATUS_INFIMUM: u8 = 2;
/// COMPACT status: supremum.
pub(crate) const REC_STATUS_SUPREMUM: u8 = 3;
/// MariaDB 10.3+ COMPACT status: leaf record written after instant ALTER
/// TABLE, or the metadata record.
pub const REC_STATUS_INSTANT: u8 = 4;
/// Length of a node pointer's child page number.
pub const REC_NODE_PTR_SIZE: usize = 4;
/// REDUNDANT 1-byte field offset: SQL NULL flag.
pub(crate) const REC_1BYTE_SQL_NULL_MASK: u8 = 0x80;
/// REDUNDANT 2-byte field offset: SQL NULL flag.
pub(crate) const REC_2BYTE_SQL_NULL_MASK: u16 = 0x8000;
/// REDUNDANT 2-byte field offset: the field's tail is stored off-page.
pub(crate) const REC_2BYTE_EXTERN_MASK: u16 = 0x4000;
/// Heap number of the infimum.
pub(crate) const PAGE_HEAP_NO_INFIMUM: u16 = 0;
/// Heap number of the supremum.
pub(crate) const PAGE_HEAP_NO_SUPREMUM: u16 = 1;
/// First heap number of a user record.
pub(crate) const PAGE_HEAP_NO_USER_LOW: u16 = 2;
/// Fewest records a directory slot owns (but the first and last).
pub(crate) const PAGE_DIR_SLOT_MIN_N_OWNED: u8 = 4;
/// Most records a directory slot owns.
pub(crate) const PAGE_DIR_SLOT_MAX_N_OWNED: u8 = 8;
/// Data of the infimum record.
pub const INFIMUM_DATA: &[u8; 8] = b"infimum\0";
/// Data of the COMPACT supremum record (REDUNDANT adds a NUL byte).
pub const SUPREMUM_DATA: &[u8; 8] = b"supremum";
/// The largest page (64K): offsets on a page fit in 16 bits.
const MAX_PAGE: usize = 65536;

fn u16_of(n: usize) -> u16 {
    u16::try_from(n).unwrap_or(u16::MAX)
}

fn u32_of(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// The record format of a page (bit 15 of PAGE_N_HEAP).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RecFormat {
    /// New-style records: ROW_FORMAT COMPACT, DYNAMIC, COMPRESSED.
    Compact,
    /// Old-style records: ROW_FORMAT REDUNDANT.
    Redundant,
}

/// MariaDB 10.4+ instant DROP/reorder repurposes the clustered root's
/// pseudo-records (btr0btr.cc `btr_set_instant`, btr0cur.cc
/// `btr_cur_instant_root_init`): on a `FIL_PAGE_TYPE_INSTANT` page the
/// infimum's 8 data bytes and the supremum's first 7 are zero, and the
/// supremum's 8th is the core records' NULL-bitmap size (at most 128).
/// That size, or `None` for any other page.
pub fn instant_root_null_bytes(page: &[u8], format: RecFormat) -> Option<u8> {
    let fil = crate::fil::FilHeader::new(page)?;
    if fil.page_type() != PageType::FIL_PAGE_TYPE_INSTANT {
        return None;
    }
    let zero = |at: usize, n: usize| {
        page.get(at..at.saturating_add(n))
            .is_some_and(|b| b.iter().all(|&x| x == 0))
    };
    let (inf, sup) = (format.infimum(), format.supremum());
    if !zero(inf, 8) || !zero(sup, 7) {
        return None;
    }
    page.get(sup.saturating_add(7))
        .copied()
        .filter(|&b| b <= 128)
}

impl RecFormat {
    /// The fixed header bytes (REC_N_NEW_EXTRA_BYTES / REC_N_OLD_EXTRA_BYTES).
    pub(crate) const fn extra_bytes(self) -> usize {
        match self {
            RecFormat::Compact => REC_N_NEW_EXTRA_BYTES,
            RecFormat::Redundant => REC_N_OLD_EXTRA_BYTES,
        }
    }
    /// Origin of the infimum.
    pub const fn infimum(self) -> usize {
        match self {
            RecFormat::Compact => PAGE_NEW_INFIMUM,
            RecFormat::Redundant => PAGE_OLD_INFIMUM,
        }
    }
    /// Origin of the supremum.
    pub const fn supremum(self) -> usize {
        match self {
            RecFormat::Compact => PAGE_NEW_SUPREMUM,
            RecFormat::Redundant => PAGE_OLD_SUPREMUM,
        }
    }
    /// End of the supremum: where user records start.
    pub const fn supremum_end(self) -> usize {
        match self {
            RecFormat::Compact => PAGE_NEW_SUPREMUM_END,
            RecFormat::Redundant => PAGE_OLD_SUPREMUM_END,
        }
    }
    /// Lowest origin a user record can have: the supremum's end plus the
    /// fixed header (plus one field offset for REDUNDANT).
    pub(crate) const fn user_low(self) -> usize {
        match self {
            RecFormat::Compact => PAGE_NEW_SUPREMUM_END + REC_N_NEW_EXTRA_BYTES,
            RecFormat::Redundant => PAGE_OLD_SUPREMUM_END + REC_N_OLD_EXTRA_BYTES + 1,
        }
    }
    /// Lowercase name.
    pub const fn name(self) -> &'static str {
        match self {
            RecFormat::Compact => "compact",
            RecFormat::Redundant => "redundant",
        }
    }
}

/// What a record is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RecType {
    /// A leaf (user data) record.
    Ordinary,
    /// A node pointer on a non-leaf page.
    NodePtr,
    /// The infimum.
    Infimum,
    /// The supremum.
    Supremum,
    /// MariaDB `REC_STATUS_INSTANT` (COMPACT status 4): a leaf record written
    /// after instant ALTER TABLE, or the metadata record.
    Instant,
    /// A COMPACT status InnoDB never writes (5..7).
    Reserved(u8),
}

impl RecType {
    /// Lowercase name.
    pub fn name(self) -> &'static str {
        match self {
            RecType::Ordinary => "ordinary",
            RecType::NodePtr => "node_ptr",
            RecType::Infimum => "infimum",
            RecType::Supremum => "supremum",
            RecType::Instant => "instant",
            RecType::Reserved(_) => "reserved",
        }
    }
}

/// A record header, read. Both formats share info bits, n_owned, heap_no
/// and the next field; `status` is COMPACT only, `n_fields` and
/// `one_byte_offsets` REDUNDANT only.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecHeader {
    /// The format it was read in.
    pub format: RecFormat,
    /// Info bits, as stored (the high nibble: `REC_INFO_*_FLAG`).
    pub info_bits: u8,
    /// Records owned by this record's directory slot, or 0.
    pub n_owned: u8,
    /// Heap number.
    pub heap_no: u16,
    /// COMPACT status bits (0 for REDUNDANT).
    pub status: u8,
    /// REDUNDANT number of fields (0 for COMPACT).
    pub n_fields: u16,
    /// REDUNDANT: field end offsets are 1 byte each (else 2).
    pub one_byte_offsets: bool,
    /// The next field as stored (relative for COMPACT, absolute for
    /// REDUNDANT; 0 = none).
    pub next_raw: u16,
}

impl RecHeader {
    /// Reads the header of the record at `origin`, or `None` when its
    /// bytes are not in `page`.
    pub fn read(page: &[u8], origin: usize, format: RecFormat) -> Option<Self> {
        let start = origin.checked_sub(format.extra_bytes())?;
        page.get(start..origin)?;
        let at = |d: usize| origin.checked_sub(d);
        let byte = |d: usize| at(d).and_then(|o| page.get(o)).copied();
        let word = |d: usize| at(d).and_then(|o| be_u16(page, o));
        match format {
            RecFormat::Compact => {
                let b5 = byte(REC_NEW_INFO_BITS)?;
                Some(RecHeader {
                    format,
                    info_bits: b5 & REC_INFO_BITS_MASK,
                    n_owned: b5 & REC_N_OWNED_MASK,
                    heap_no: (word(REC_NEW_HEAP_NO)? & REC_HEAP_NO_MASK) >> REC_HEAP_NO_SHIFT,
                    status: byte(REC_NEW_STATUS)? & REC_NEW_STATUS_MASK,
                    n_fields: 0,
                    one_byte_offsets: false,
                    next_raw: word(REC_NEXT)?,
                })
            }
            RecFormat::Redundant => {
                let b6 = byte(REC_OLD_INFO_BITS)?;
                Some(RecHeader {
                    format,
                    info_bits: b6 & REC_INFO_BITS_MASK,
                    n_owned: b6 & REC_N_OWNED_MASK,
                    heap_no: (word(REC_OLD_HEAP_NO)? & REC_HEAP_NO_MASK) >> REC_HEAP_NO_SHIFT,
                    status: 0,
                    n_fields: (word(REC_OLD_N_FIELDS)? & REC_OLD_N_FIELDS_MASK)
                        >> REC_OLD_N_FIELDS_SHIFT,
                    one_byte_offsets: byte(REC_OLD_SHORT)? & REC_OLD_SHORT_MASK != 0,
                    next_raw: word(REC_NEXT)?,
                })
            }
        }
    }

    /// The delete mark.
    pub fn is_deleted(&self) -> bool {
        self.info_bits & REC_INFO_DELETED_FLAG != 0
    }
    /// The MIN_REC flag.
    pub fn is_min_rec(&self) -> bool {
        self.info_bits & REC_INFO_MIN_REC_FLAG != 0
    }
    /// MySQL 8.0.29+ VERSION flag.
    pub fn is_versioned(&self) -> bool {
        self.info_bits & REC_INFO_VERSION_FLAG != 0
    }
    /// MySQL 8.0.12+ INSTANT flag.
    pub fn is_instant(&self) -> bool {
        self.info_bits & REC_INFO_INSTANT_FLAG != 0
    }

    /// The origin of the next record, as `rec_get_next_offs` computes it
    /// for a record at `origin` on a page of `logical_size` bytes; `None`
    /// for 0 (no next record).
    pub fn next_origin(&self, origin: usize, logical_size: usize) -> Option<usize> {
        if self.next_raw == 0 {
            return None;
        }
        match self.format {
            RecFormat::Compact => origin
                .checked_add(usize::from(self.next_raw))?
                .checked_rem(logical_size),
            RecFormat::Redundant => Some(usize::from(self.next_raw)),
        }
    }

    /// Header bytes before the origin: 5 for COMPACT (the fixed part only;
    /// the NULL bitmap and lengths need the column layout), 6 + n_fields ×
    /// (1 or 2) for REDUNDANT.
    pub fn extra_size(&self) -> usize {
        match self.format {
            RecFormat::Compact => REC_N_NEW_EXTRA_BYTES,
            RecFormat::Redundant => {
                let w = if self.one_byte_offsets { 1 } else { 2 };
                REC_N_OLD_EXTRA_BYTES.saturating_add(usize::from(self.n_fields).saturating_mul(w))
            }
        }
    }
}

/// One field of a REDUNDANT record, from its end offset. Offsets count from
/// the origin.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecField {
    /// Where the field starts (the previous field's end; 0 for field 0).
    pub start: u16,
    /// Where it ends (exclusive).
    pub end: u16,
    /// SQL NULL.
    pub null: bool,
    /// The field's tail is stored off-page (2-byte offsets only).
    pub external: bool,
}

impl RecField {
    /// Bytes stored in the record (`end − start`; 0 if they are reversed).
    pub fn len(&self) -> u16 {
        self.end.saturating_sub(self.start)
    }
    /// True when no byte is stored.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A record on a page: its origin, header and kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rec {
    /// Page offset of the origin.
    pub origin: u16,
    /// The header.
    pub header: RecHeader,
    /// The kind: from the status bits (COMPACT), or from the position and
    /// the page level (REDUNDANT).
    pub rec_type: RecType,
}

impl Rec {
    /// True for records other than infimum and supremum.
    pub fn is_user(&self) -> bool {
        !matches!(self.rec_type, RecType::Infimum | RecType::Supremum)
    }

    /// REDUNDANT: field `i`'s end info, raw (with the NULL and extern
    /// flags); `None` for COMPACT records or past the page start.
    fn end_info(&self, page: &[u8], i: u16) -> Option<(u16, bool, bool)> {
        if self.header.format != RecFormat::Redundant || i >= self.header.n_fields {
            return None;
        }
        let origin = usize::from(self.origin);
        let i = usize::from(i);
        if self.header.one_byte_offsets {
            let at = origin.checked_sub(REC_N_OLD_EXTRA_BYTES.checked_add(i)?.checked_add(1)?)?;
            let v = *page.get(at)?;
            Some((
                u16::from(v & !REC_1BYTE_SQL_NULL_MASK),
                v & REC_1BYTE_SQL_NULL_MASK != 0,
                false,
            ))
        } else {
            let back = REC_N_OLD_EXTRA_BYTES
                .checked_add(i.checked_mul(2)?)?
                .checked_add(2)?;
            let v = be_u16(page, origin.checked_sub(back)?)?;
            Some((
                v & !(REC_2BYTE_SQL_NULL_MASK | REC_2BYTE_EXTERN_MASK),
                v & REC_2BYTE_SQL_NULL_MASK != 0,
                v & REC_2BYTE_EXTERN_MASK != 0,
            ))
        }
    }

    /// REDUNDANT: field `i`, or `None` (COMPACT, `i` past n_fields, bytes
    /// outside the page).
    pub fn field(&self, page: &[u8], i: u16) -> Option<RecField> {
        let (end, null, external) = self.end_info(page, i)?;
        let start = match i.checked_sub(1) {
            Some(p) => self.end_info(page, p)?.0,
            None => 0,
        };
        Some(RecField {
            start,
            end,
            null,
            external,
        })
    }

    /// REDUNDANT: every field in order (nothing for COMPACT).
    pub fn fields<'p>(&self, page: &'p [u8]) -> impl Iterator<Item = RecField> + use<'p> {
        let rec = *self;
        let n = if rec.header.format == RecFormat::Redundant {
            rec.header.n_fields
        } else {
            0
        };
        (0..n).map_while(move |i| rec.field(page, i))
    }

    /// REDUNDANT: bytes after the origin (the last field's end); `None` for
    /// COMPACT.
    pub fn data_size(&self, page: &[u8]) -> Option<u16> {
        let last = self.header.n_fields.checked_sub(1)?;
        self.end_info(page, last).map(|(end, _, _)| end)
    }

    /// REDUNDANT: the record's bytes, header and field offsets included
    /// (`rec_offs_size`); `None` for COMPACT (the column layout is needed).
    pub fn size(&self, page: &[u8]) -> Option<u32> {
        let data = self.data_size(page)?;
        Some(u32_of(self.header.extra_size()).saturating_add(u32::from(data)))
    }

    /// REDUNDANT: true when the field end offsets ascend (never past the
    /// data).
    pub fn fields_ascend(&self, page: &[u8]) -> bool {
        let mut last = 0u16;
        let mut n = 0u16;
        for f in self.fields(page) {
            if f.end < last {
                return false;
            }
            last = f.end;
            n = n.saturating_add(1);
        }
        n == self.header.n_fields
    }

    /// REDUNDANT node pointer: the child page number, the record's last
    /// field when it is 4 bytes long. `None` for COMPACT records (the key
    /// length needs the column layout) and for other records.
    pub fn child_page(&self, page: &[u8]) -> Option<PageNo> {
        if self.rec_type != RecType::NodePtr {
            return None;
        }
        let last = self.field(page, self.header.n_fields.checked_sub(1)?)?;
        if usize::from(last.len()) != REC_NODE_PTR_SIZE || last.null {
            return None;
        }
        let at = usize::from(self.origin).checked_add(usize::from(last.start))?;
        be_u32(page, at).map(PageNo)
    }
}

/// A set of page offsets (one bit per byte offset of a 64K page), for loop
/// detection. Allocate one and reuse it: walking a page only clears the
/// words it needs.
#[derive(Clone, Debug)]
pub struct Visited {
    bits: Bits,
}

impl Default for Visited {
    fn default() -> Self {
        Self::new()
    }
}

impl Visited {
    /// An empty set covering 64K offsets (8 KiB).
    pub fn new() -> Self {
        Visited {
            bits: Bits::with_capacity(MAX_PAGE),
        }
    }
    /// Empties the set for a page of `size` bytes.
    fn reset(&mut self, size: usize) {
        self.bits.clear_below(size);
    }
    /// Adds `offset`; false if it was there already (or is out of range).
    fn insert(&mut self, offset: usize) -> bool {
        self.bits.insert(offset)
    }
    /// True when `offset` is in the set.
    pub fn contains(&self, offset: usize) -> bool {
        self.bits.contains(offset)
    }
}

/// Which chain a walk follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Chain {
    /// Infimum → user records → supremum, in key order.
    User,
    /// PAGE_FREE → deleted records (the garbage list).
    Free,
}

/// Why a chain walk stopped early (defined with the crate's error).
pub use crate::error::RecErrorKind;

/// A chain walk error ([`ErrorKind::Record`]) at the page offset of the
/// bytes at fault (the next field that points wrong, or the header field
/// that is wrong).
fn rec_error(kind: RecErrorKind, page_offset: u16) -> Error {
    Error::in_page(ErrorKind::Record(kind), usize::from(page_offset))
}

/// Why [`RecPage::of`] gives no records view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoRecords {
    /// The page is not a whole page of the file.
    PastFile,
    /// The page is not an index page (INDEX, RTREE, SDI, MariaDB instant
    /// root); its type.
    NotIndex(PageType),
    /// The page is encrypted or page_compressed; its type.
    Unreadable(PageType),
}

/// A view of an index page's records. Holds the page bytes, its header and
/// the logical page size; allocates nothing.
#[derive(Clone, Copy, Debug)]
pub struct RecPage<'a> {
    page: &'a [u8],
    header: IndexHeader<'a>,
    logical: usize,
}

impl<'a> RecPage<'a> {
    /// A view of `page`, whose uncompressed size is `logical_size`. `None`
    /// when the page is shorter than PAGE_DATA, or `logical_size` is below
    /// the page's length or above 64K. A page shorter than `logical_size`
    /// is a ROW_FORMAT=COMPRESSED page: its header is readable, its
    /// records are not ([`RecPage::is_compressed`]).
    pub fn new(page: &'a [u8], logical_size: u32) -> Option<Self> {
        let logical = logical_size as usize;
        if logical < page.len() || logical > MAX_PAGE {
            return None;
        }
        let header = IndexHeader::new(page)?;
        Some(RecPage {
            page,
            header,
            logical,
        })
    }
    /// The records view of page `n` of `ts`, or why there is none. A
    /// ROW_FORMAT=COMPRESSED page is returned (its header is readable); see
    /// [`RecPage::is_compressed`].
    pub fn of(ts: &Tablespace<'a>, n: PageNo) -> Result<Self, NoRecords> {
        Self::read(ts, ts.page(n).ok_or(NoRecords::PastFile)?)
    }
    /// [`RecPage::of`] over `page`, a page of `ts` the caller holds (from
    /// [`Tablespace::page_ref`]: a walk over many pages of a space read
    /// through a page source, whose memory stays bounded).
    pub fn read(ts: &Tablespace<'_>, page: &'a [u8]) -> Result<Self, NoRecords> {
        let t = FilHeader::new(page).map_or(PageType(0), |h| h.page_type());
        if !page_readable(ts, page) {
            return Err(NoRecords::Unreadable(t));
        }
        if !t.is_index(ts.type_names()) {
            return Err(NoRecords::NotIndex(t));
        }
        RecPage::new(page, ts.format().logical_size).ok_or(NoRecords::PastFile)
    }
    /// The page bytes.
    pub fn bytes(&self) -> &'a [u8] {
        self.page
    }
    /// The index header.
    pub fn header(&self) -> IndexHeader<'a> {
        self.header
    }
    /// The uncompressed page size.
    pub fn logical_size(&self) -> u32 {
        u32_of(self.logical)
    }
    /// The record format.
    pub fn format(&self) -> RecFormat {
        if self.header.is_compact() {
            RecFormat::Compact
        } else {
            RecFormat::Redundant
        }
    }
    /// True for a ROW_FORMAT=COMPRESSED page (shorter than the logical
    /// size): the records are zlib-compressed and not walked.
    pub fn is_compressed(&self) -> bool {
        self.page.len() < self.logical
    }
    /// True on leaf pages (PAGE_LEVEL 0).
    pub fn is_leaf(&self) -> bool {
        self.header.level() == 0
    }
    /// Page offset of the directory's lowest byte (slot n_dir_slots − 1),
    /// or `None` when the slots would not fit in the page.
    pub fn dir_low(&self) -> Option<usize> {
        let dir_bytes = usize::from(self.header.n_dir_slots()).checked_mul(PAGE_DIR_SLOT_SIZE)?;
        self.logical.checked_sub(PAGE_DIR)?.checked_sub(dir_bytes)
    }
    /// Page offset of slot `slot_idx`.
    pub fn dir_slot_offset(&self, slot_idx: u16) -> Option<usize> {
        let n = usize::from(slot_idx).checked_add(1)?;
        self.logical
            .checked_sub(PAGE_DIR)?
            .checked_sub(n.checked_mul(PAGE_DIR_SLOT_SIZE)?)
    }
    /// Directory slot `slot_idx` (0 is the infimum's): the origin it holds.
    /// `None` past PAGE_N_DIR_SLOTS, on compressed pages (their directory
    /// is stored differently) or outside the page.
    pub fn dir_slot(&self, slot_idx: u16) -> Option<u16> {
        if slot_idx >= self.header.n_dir_slots() || self.is_compressed() {
            return None;
        }
        be_u16(self.page, self.dir_slot_offset(slot_idx)?)
    }
    /// The first offset no record may reach: the lower of PAGE_HEAP_TOP and
    /// the directory's start.
    pub fn heap_limit(&self) -> usize {
        let top = usize::from(self.header.heap_top());
        self.dir_low().map_or(top, |d| d.min(top)).min(self.logical)
    }

    /// The record whose origin is `origin`, its kind taken from the status
    /// bits (COMPACT) or from its place and the page level (REDUNDANT).
    /// `None` on compressed pages or when the header is not in the page.
    pub fn record_at(&self, origin: u16) -> Option<Rec> {
        if self.is_compressed() {
            return None;
        }
        let format = self.format();
        let header = RecHeader::read(self.page, usize::from(origin), format)?;
        let o = usize::from(origin);
        let rec_type = match format {
            RecFormat::Compact => match header.status {
                REC_STATUS_ORDINARY => RecType::Ordinary,
                REC_STATUS_NODE_PTR => RecType::NodePtr,
                REC_STATUS_INFIMUM => RecType::Infimum,
                REC_STATUS_SUPREMUM => RecType::Supremum,
                REC_STATUS_INSTANT => RecType::Instant,
                s => RecType::Reserved(s),
            },
            RecFormat::Redundant if o == PAGE_OLD_INFIMUM => RecType::Infimum,
            RecFormat::Redundant if o == PAGE_OLD_SUPREMUM => RecType::Supremum,
            RecFormat::Redundant if self.header.level() > 0 => RecType::NodePtr,
            RecFormat::Redundant => RecType::Ordinary,
        };
        Some(Rec {
            origin,
            header,
            rec_type,
        })
    }
    /// The infimum record.
    pub fn infimum(&self) -> Option<Rec> {
        self.record_at(u16_of(self.format().infimum()))
    }
    /// The supremum record.
    pub fn supremum(&self) -> Option<Rec> {
        self.record_at(u16_of(self.format().supremum()))
    }

    /// Walks the user chain, infimum and supremum included, marking origins
    /// in `visited` (cleared first). `None` on compressed pages.
    pub fn records<'v>(&self, visited: &'v mut Visited) -> Option<RecIter<'a, 'v>> {
        RecIter::new(*self, Chain::User, visited)
    }
    /// Walks the free chain from PAGE_FREE, marking origins in `visited`
    /// (cleared first). `None` on compressed pages.
    pub fn free_records<'v>(&self, visited: &'v mut Visited) -> Option<RecIter<'a, 'v>> {
        RecIter::new(*self, Chain::Free, visited)
    }

    /// Walks both chains and the directory and checks them against the
    /// header. Problems go to `out` (not cleared), each with the page
    /// offset of the faulty bytes; the figures are returned. Bounded by
    /// the chains' bounds; allocates nothing unless `out` grows.
    pub fn analyse(&self, scratch: &mut RecScratch, out: &mut Vec<RecFinding>) -> PageRecords {
        self.analyse_with(out, || scratch)
    }

    /// [`Self::analyse`] with the scratch space made only for a page that
    /// needs the full walk (a sound page needs none).
    pub(crate) fn analyse_lazy(
        &self,
        scratch: &mut Option<Box<RecScratch>>,
        out: &mut Vec<RecFinding>,
    ) -> PageRecords {
        self.analyse_with(out, || scratch.get_or_insert_with(Box::default))
    }

    fn analyse_with<'s>(
        &self,
        out: &mut Vec<RecFinding>,
        scratch: impl FnOnce() -> &'s mut RecScratch,
    ) -> PageRecords {
        self.warm();
        let h = self.header;
        let compressed = self.is_compressed();
        let mut figures = PageRecords {
            format: self.format(),
            level: h.level(),
            n_recs_stated: h.n_recs(),
            n_heap: h.n_heap(),
            data_size: h.data_size(),
            fill: h.usage(self.logical_size(), compressed),
            walk: RecWalk::Compressed,
        };
        if compressed {
            self.check_header(out);
            return figures;
        }
        // Most pages are sound: a lean walk proves it, and any doubt goes
        // to the full walk, which finds and reports what is wrong.
        let counts = match self.walk_sound() {
            Some(c) => c,
            None => self.walk(scratch(), out),
        };
        figures.walk = RecWalk::Walked(counts);
        figures
    }

    /// The counts of a sound COMPACT page, or `None` when [`Self::walk`]
    /// would report anything (or the page is REDUNDANT): the same chain
    /// walks, directory check and header checks, in one tight loop per
    /// chain that reads each record header with one load, builds no
    /// finding and keeps no set of visited records:
    ///
    /// - a chain that loops never reaches its end (the supremum, or next =
    ///   0 on the free chain), since each step follows the same next
    ///   field; it stops at the walk's bound (PAGE_N_HEAP), and the full
    ///   walk then reports the loop;
    /// - a free record that is also on the user chain leads, by the same
    ///   next fields, to the supremum, where no free record may be: the
    ///   free walk stops there, and the full walk reports the record.
    ///
    /// So a walk that ends cleanly here is one in which [`Self::walk`]
    /// finds nothing, with the same counts (the unit tests compare both
    /// on thousands of damaged pages). Bounded by the same limits.
    fn walk_sound(&self) -> Option<RecCounts> {
        let h = self.header;
        let w = self.sound_walk()?;
        let user = w.user_chain()?;
        let n_free = w.free_chain(usize::from(h.free()))?;
        let counted = user.n_recs.saturating_add(n_free).saturating_add(2);
        if user.n_recs != u32::from(h.n_recs()) || counted != u32::from(h.n_heap()) {
            return None;
        }
        Some(RecCounts {
            n_recs: user.n_recs,
            n_deleted: user.n_deleted,
            n_min_rec: user.n_min_rec,
            n_free,
            user_complete: true,
            free_complete: true,
            record_bytes: None,
            free_bytes: None,
        })
    }

    /// The bounds [`Self::walk_sound`] checks the records against, or
    /// `None` when the page is not one it walks (REDUNDANT, compressed, a
    /// damaged infimum or supremum, a directory that does not fit).
    #[inline]
    fn sound_walk(&self) -> Option<SoundWalk<'a>> {
        let h = self.header;
        let page = self.page;
        let logical = self.logical;
        if !h.is_compact() || page.len() != logical || !logical.is_power_of_two() {
            return None;
        }
        let [infimum_ok, supremum_ok] = self.system_ok();
        if !(infimum_ok && supremum_ok) {
            return None;
        }
        let n_slots = h.n_dir_slots();
        let heap_top = usize::from(h.heap_top());
        let dir_low = self.dir_low()?;
        if n_slots < 2 || dir_low < heap_top || dir_low < PAGE_NEW_SUPREMUM_END {
            return None;
        }
        // As RecIter: the bound, and where a next record may be.
        let n_heap = h.n_heap();
        let limit = u32::from(n_heap).min(u32_of(
            logical.saturating_sub(PAGE_DATA) / REC_N_NEW_EXTRA_BYTES,
        ));
        if n_heap < PAGE_HEAP_NO_USER_LOW {
            return None;
        }
        let leaf = h.level() == 0;
        Some(SoundWalk {
            page,
            mask: logical.wrapping_sub(1),
            low: RecFormat::Compact.user_low(),
            high: heap_top.min(dir_low).min(logical),
            limit,
            leaf,
            statuses: if leaf {
                1 << REC_STATUS_ORDINARY | 1 << REC_STATUS_INSTANT
            } else {
                1 << REC_STATUS_NODE_PTR
            },
            heap_span: n_heap.wrapping_sub(PAGE_HEAP_NO_USER_LOW),
            dir_top: logical.checked_sub(PAGE_DIR + PAGE_DIR_SLOT_SIZE)?,
            n_slots,
        })
    }

    fn push(out: &mut Vec<RecFinding>, page_offset: usize, problem: RecProblem) {
        out.push(RecFinding {
            page_offset: u16_of(page_offset),
            problem,
        });
    }

    /// ROW_FORMAT=COMPRESSED pages: what the header alone can tell (the
    /// header describes the uncompressed page, page0zip.cc
    /// `page_zip_decompress` rebuilds it from these fields).
    fn check_header(&self, out: &mut Vec<RecFinding>) {
        let h = self.header;
        if u32::from(h.n_recs()).saturating_add(2) > u32::from(h.n_heap()) {
            Self::push(
                out,
                PAGE_HEADER.saturating_add(PAGE_N_RECS),
                RecProblem::NRecsOverHeap {
                    n_recs: h.n_recs(),
                    n_heap: h.n_heap(),
                },
            );
        }
        self.check_dir_size(out);
    }

    fn check_system(&self, out: &mut Vec<RecFinding>) {
        let format = self.format();
        let [infimum_ok, supremum_ok] = self.system_ok();
        if !infimum_ok {
            Self::push(
                out,
                format.infimum().saturating_sub(format.extra_bytes()),
                RecProblem::Infimum,
            );
        }
        if !supremum_ok {
            Self::push(
                out,
                format.supremum().saturating_sub(format.extra_bytes()),
                RecProblem::Supremum,
            );
        }
    }

    /// Whether the infimum and the supremum are as `page_create` writes
    /// them.
    fn system_ok(&self) -> [bool; 2] {
        let format = self.format();
        let redundant = format == RecFormat::Redundant;
        let infimum = usize::from(u16_of(format.infimum()));
        let repurposed = instant_root_null_bytes(self.page, format).is_some();
        let infimum_ok = self.infimum().is_some_and(|r| {
            r.header.n_owned == 1
                && r.header.heap_no == PAGE_HEAP_NO_INFIMUM
                && r.header.info_bits == 0
                && (redundant || r.header.status == REC_STATUS_INFIMUM)
                && (!redundant
                    || (r.header.n_fields == 1
                        && r.header.one_byte_offsets
                        && r.data_size(self.page) == Some(8)))
                && (self.page.get(infimum..infimum.saturating_add(8)) == Some(&INFIMUM_DATA[..])
                    || repurposed)
        });
        let supremum = format.supremum();
        let supremum_ok = self.supremum().is_some_and(|r| {
            r.header.heap_no == PAGE_HEAP_NO_SUPREMUM
                && r.header.next_raw == 0
                && r.header.info_bits == 0
                && (redundant || r.header.status == REC_STATUS_SUPREMUM)
                && (!redundant
                    || (r.header.n_fields == 1
                        && r.header.one_byte_offsets
                        && r.data_size(self.page) == Some(9)
                        && self.page.get(supremum.saturating_add(8)) == Some(&0)))
                && (self.page.get(supremum..supremum.saturating_add(8)) == Some(&SUPREMUM_DATA[..])
                    || repurposed)
        });
        [infimum_ok, supremum_ok]
    }

    /// The full walk: both chains, the directory and the counts against the
    /// header, every problem reported to `out`.
    fn walk(&self, scratch: &mut RecScratch, out: &mut Vec<RecFinding>) -> RecCounts {
        self.check_system(out);
        let mut c = RecCounts {
            user_complete: true,
            free_complete: true,
            ..RecCounts::default()
        };
        self.walk_user(&mut scratch.user, &mut c, out);
        self.walk_free(scratch, &mut c, out);
        self.check_counts(&c, out);
        c
    }

    /// Reports a directory that does not fit between the heap and the
    /// trailer; true if it fits.
    fn check_dir_size(&self, out: &mut Vec<RecFinding>) -> bool {
        let h = self.header;
        let dir_ok = h.n_dir_slots() >= 2
            && self.dir_low().is_some_and(|d| {
                d >= usize::from(h.heap_top()) && d >= self.format().supremum_end()
            });
        if !dir_ok {
            Self::push(
                out,
                PAGE_HEADER.saturating_add(PAGE_N_DIR_SLOTS),
                RecProblem::DirSize {
                    n_dir_slots: h.n_dir_slots(),
                },
            );
        }
        dir_ok
    }

    /// Walks the user chain (marking `visited`) and the directory with it:
    /// counts into `c` (and, REDUNDANT, the records' bytes), problems to
    /// `out`.
    fn walk_user(&self, visited: &mut Visited, c: &mut RecCounts, out: &mut Vec<RecFinding>) {
        let h = self.header;
        let format = self.format();
        let redundant = format == RecFormat::Redundant;
        let n_slots = h.n_dir_slots();
        let mut dir = DirCheck {
            active: self.check_dir_size(out),
            slot_idx: 0,
            own: 0,
        };
        let mut bytes: Option<u32> = redundant.then_some(0);
        let supremum_end = format.supremum_end();
        let heap_top = usize::from(h.heap_top());
        if let Some(mut it) = self.records(visited) {
            loop {
                let rec = match it.next() {
                    Ok(Some(rec)) => rec,
                    Ok(None) => break,
                    Err(e) => {
                        c.user_complete = false;
                        Self::push(out, e.page_offset().unwrap_or(0), RecProblem::UserChain(e));
                        break;
                    }
                };
                if dir.active {
                    self.dir_step(&mut dir, &rec, out);
                }
                if !rec.is_user() {
                    continue;
                }
                c.n_recs = c.n_recs.saturating_add(1);
                if rec.header.is_min_rec() && h.level() == 0 {
                    // MariaDB's metadata record: not a row, whatever its
                    // delete mark (MIN_REC | DELETED is the ALTER
                    // metadata, rem0rec.h REC_INFO_METADATA_ALTER).
                    c.n_min_rec = c.n_min_rec.saturating_add(1);
                } else if rec.header.is_deleted() {
                    c.n_deleted = c.n_deleted.saturating_add(1);
                }
                if redundant {
                    let size = self.redundant_size(&rec, supremum_end, heap_top, out);
                    bytes = bytes.zip(size).map(|(a, b)| a.saturating_add(b));
                }
            }
        }
        if c.user_complete && dir.active && u32::from(dir.slot_idx) != u32::from(n_slots) {
            Self::push(
                out,
                PAGE_HEADER.saturating_add(PAGE_N_DIR_SLOTS),
                RecProblem::DirSlotCount {
                    stated: n_slots,
                    used: dir.slot_idx,
                },
            );
        }
        c.record_bytes = if c.user_complete { bytes } else { None };
    }

    /// Walks the free chain (marking `scratch.free`; a record also on the
    /// user chain, `scratch.user`, ends it): counts into `c` (and,
    /// REDUNDANT, the records' bytes), problems to `out`.
    fn walk_free(&self, scratch: &mut RecScratch, c: &mut RecCounts, out: &mut Vec<RecFinding>) {
        let format = self.format();
        let redundant = format == RecFormat::Redundant;
        let supremum_end = format.supremum_end();
        let heap_top = usize::from(self.header.heap_top());
        let mut free_bytes: Option<u32> = redundant.then_some(0);
        if let Some(mut it) = self.free_records(&mut scratch.free) {
            loop {
                let rec = match it.next() {
                    Ok(Some(rec)) => rec,
                    Ok(None) => break,
                    Err(e) => {
                        c.free_complete = false;
                        Self::push(out, e.page_offset().unwrap_or(0), RecProblem::FreeChain(e));
                        break;
                    }
                };
                if scratch.user.contains(usize::from(rec.origin)) {
                    c.free_complete = false;
                    Self::push(
                        out,
                        usize::from(rec.origin).saturating_sub(format.extra_bytes()),
                        RecProblem::FreeInChain { origin: rec.origin },
                    );
                    break;
                }
                c.n_free = c.n_free.saturating_add(1);
                if redundant {
                    let size = self.redundant_size(&rec, supremum_end, heap_top, out);
                    free_bytes = free_bytes.zip(size).map(|(a, b)| a.saturating_add(b));
                }
            }
        }
        c.free_bytes = if c.free_complete { free_bytes } else { None };
    }

    /// Reports the walks' counts and bytes that disagree with the header
    /// (PAGE_N_RECS, PAGE_N_HEAP, the data size, PAGE_GARBAGE).
    fn check_counts(&self, c: &RecCounts, out: &mut Vec<RecFinding>) {
        let h = self.header;
        if c.user_complete && c.n_recs != u32::from(h.n_recs()) {
            Self::push(
                out,
                PAGE_HEADER.saturating_add(PAGE_N_RECS),
                RecProblem::NRecs {
                    stated: h.n_recs(),
                    walked: c.n_recs,
                },
            );
        }
        let counted = c.n_recs.saturating_add(c.n_free).saturating_add(2);
        if c.user_complete && c.free_complete && counted != u32::from(h.n_heap()) {
            Self::push(
                out,
                PAGE_HEADER.saturating_add(PAGE_N_HEAP),
                RecProblem::NHeap {
                    stated: h.n_heap(),
                    counted,
                },
            );
        }
        if let Some(sum) = c.record_bytes {
            if sum != h.data_size() {
                Self::push(
                    out,
                    PAGE_HEADER.saturating_add(PAGE_HEAP_TOP),
                    RecProblem::DataSize {
                        stated: h.data_size(),
                        counted: sum,
                    },
                );
            }
        }
        if let Some(sum) = c.free_bytes {
            // A reused free slot can be larger than its new record; the
            // difference stays in PAGE_GARBAGE (page_mem_alloc_free), so
            // only an excess is damage.
            if sum > u32::from(h.garbage()) {
                Self::push(
                    out,
                    PAGE_HEADER.saturating_add(PAGE_GARBAGE),
                    RecProblem::Garbage {
                        stated: h.garbage(),
                        counted: sum,
                    },
                );
            }
        }
    }

    /// REDUNDANT: the record's size, after checking it lies within the
    /// heap and its field offsets ascend.
    fn redundant_size(
        &self,
        rec: &Rec,
        supremum_end: usize,
        heap_top: usize,
        out: &mut Vec<RecFinding>,
    ) -> Option<u32> {
        let origin = usize::from(rec.origin);
        let hdr_at = origin.saturating_sub(REC_N_OLD_EXTRA_BYTES);
        let start = origin.checked_sub(rec.header.extra_size());
        if rec.header.n_fields == 0
            || start.is_none_or(|s| s < supremum_end)
            || !rec.fields_ascend(self.page)
        {
            Self::push(
                out,
                hdr_at,
                RecProblem::Fields {
                    origin: rec.origin,
                    n_fields: rec.header.n_fields,
                },
            );
            return None;
        }
        let size = rec.size(self.page)?;
        let end = origin.saturating_add(usize::from(rec.data_size(self.page)?));
        if end > heap_top {
            Self::push(
                out,
                hdr_at,
                RecProblem::RecordBounds {
                    origin: rec.origin,
                    end: u32_of(end),
                },
            );
            return None;
        }
        Some(size)
    }

    fn dir_step(&self, dir: &mut DirCheck, rec: &Rec, out: &mut Vec<RecFinding>) {
        dir.own = dir.own.saturating_add(1);
        let n_owned = rec.header.n_owned;
        if n_owned == 0 {
            return;
        }
        let n_slots = self.header.n_dir_slots();
        let slot_at = self.dir_slot_offset(dir.slot_idx).unwrap_or(0);
        let owned_at = usize::from(rec.origin).saturating_sub(match rec.header.format {
            RecFormat::Compact => REC_NEW_N_OWNED,
            RecFormat::Redundant => REC_OLD_N_OWNED,
        });
        match self.dir_slot(dir.slot_idx) {
            Some(found) if found == rec.origin => {}
            found => {
                Self::push(
                    out,
                    if found.is_some() { slot_at } else { owned_at },
                    RecProblem::DirSlot {
                        slot_idx: dir.slot_idx,
                        found: found.unwrap_or(0),
                        expected: rec.origin,
                    },
                );
                dir.active = false;
                return;
            }
        }
        if u32::from(n_owned) != dir.own {
            Self::push(
                out,
                owned_at,
                RecProblem::NOwned {
                    slot_idx: dir.slot_idx,
                    stated: n_owned,
                    counted: dir.own,
                },
            );
            dir.active = false;
            return;
        }
        let last = dir.slot_idx.checked_add(1) == Some(n_slots);
        let fits = if dir.slot_idx == 0 {
            n_owned == 1
        } else if last {
            n_owned <= PAGE_DIR_SLOT_MAX_N_OWNED
        } else {
            (PAGE_DIR_SLOT_MIN_N_OWNED..=PAGE_DIR_SLOT_MAX_N_OWNED).contains(&n_owned)
        };
        if !fits {
            Self::push(
                out,
                owned_at,
                RecProblem::DirGroupSize {
                    slot_idx: dir.slot_idx,
                    n_owned,
                },
            );
        }
        dir.own = 0;
        dir.slot_idx = dir.slot_idx.saturating_add(1);
    }
}

/// What [`RecPage::walk_sound`] checks each record of a COMPACT page
/// against, fixed before the walk.
#[derive(Clone, Copy)]
struct SoundWalk<'a> {
    page: &'a [u8],
    /// Page size − 1: a next record is (origin + next) & mask.
    mask: usize,
    /// Where a user or free record's origin may be: `low..high`.
    low: usize,
    high: usize,
    /// The bound of either chain walk, as RecIter's.
    limit: u32,
    leaf: bool,
    /// The statuses a user record may have here, one bit each.
    statuses: u32,
    /// Heap numbers 2..n_heap, shifted to 0..n_heap − 2.
    heap_span: u16,
    /// Slot k is the 2 bytes at dir_top − 2k.
    dir_top: usize,
    n_slots: u16,
}

/// What the sound walk counts on the user chain.
#[derive(Clone, Copy)]
struct SoundUser {
    n_recs: u32,
    n_deleted: u32,
    n_min_rec: u32,
}

impl SoundWalk<'_> {
    /// The 5 header bytes before `o` and the 3 after, as one word: info
    /// bits and n_owned, heap_no and status, next, then data.
    #[inline]
    fn header(&self, o: usize) -> Option<u64> {
        let bytes = self.page.get(o.checked_sub(REC_N_NEW_EXTRA_BYTES)?..)?;
        bytes.first_chunk().map(|b| u64::from_be_bytes(*b))
    }

    /// The record after the one at `o` whose header is `word`; `None` for
    /// next = 0.
    #[inline]
    fn next_of(&self, o: usize, word: u64) -> Option<usize> {
        let next = usize::from((word >> 24) as u16);
        (next != 0).then(|| o.wrapping_add(next) & self.mask)
    }

    /// Whether a user or free record with header `word` has a status this
    /// page's level allows and a heap number of a user record.
    #[inline]
    fn admits(&self, word: u64) -> bool {
        let heap_status = (word >> 40) as u16;
        let status = heap_status & u16::from(REC_NEW_STATUS_MASK);
        let heap_no = heap_status >> REC_HEAP_NO_SHIFT;
        (self.statuses >> status) & 1 != 0
            && heap_no.wrapping_sub(PAGE_HEAP_NO_USER_LOW) < self.heap_span
    }

    /// Walks the user chain from the infimum to the supremum, checking the
    /// directory as [`RecPage::dir_step`] does; `None` on any doubt.
    ///
    /// The walk is most of a B-tree pass's own work (every record of every
    /// index page), and one chain is as slow as its loads, each waiting for
    /// the one before. So it goes owner by owner: slot k names its owner,
    /// whose n_owned says how many steps from the owner of slot k − 1 reach
    /// it, so each group's walk starts from an offset read in the directory,
    /// not from the end of the group before, and the CPU follows the next
    /// group's chain while the last one's loads are still on their way. The
    /// records inside a group are checked for n_owned = 0 (an owner there
    /// is one the step-by-step walk would find out of its slot, or owning
    /// the wrong count); the records after the last slot's owner (none on a
    /// page InnoDB wrote: the supremum owns the last slot) one by one. Each
    /// record is checked as the step-by-step walk checks it (its place, its
    /// status and heap number, its flags counted in one word: a shift, no
    /// branch), the same records in the same order, so it ends cleanly
    /// exactly when that walk does, with the same counts (the tests hold it
    /// to `user_chain_in_order` on thousands of damaged pages).
    #[inline]
    fn user_chain(&self) -> Option<SoundUser> {
        let page = self.page;
        // The infimum owns slot 0, alone (checked by system_ok).
        if be_u16(page, self.dir_top) != Some(u16_of(PAGE_NEW_INFIMUM)) {
            return None;
        }
        let span = self.high.saturating_sub(self.low);
        let last = self.n_slots.wrapping_sub(1);
        // Records by their MIN_REC (bit 0) and delete (bit 1) flags, 16
        // bits a count: at most `limit` + 8 records are counted (the steps
        // are checked after each group), and `limit` is below 2^14 (a 64
        // KiB page).
        let mut counts = 0u64;
        // Records admitted, the infimum included; the user records are the
        // steps less infimum and supremum.
        let mut steps = 1u32;
        let mut owner = PAGE_NEW_INFIMUM;
        let mut word = self.header(owner)?;
        let mut slot_at = self.dir_top;
        for slot in 1..self.n_slots {
            slot_at = slot_at.checked_sub(PAGE_DIR_SLOT_SIZE)?;
            let target = usize::from(be_u16(page, slot_at)?);
            let target_word = self.header(target)?;
            let n_owned = (target_word >> 56) as u8 & REC_N_OWNED_MASK;
            let fits = if slot == last {
                (1..=PAGE_DIR_SLOT_MAX_N_OWNED).contains(&n_owned)
            } else {
                (PAGE_DIR_SLOT_MIN_N_OWNED..=PAGE_DIR_SLOT_MAX_N_OWNED).contains(&n_owned)
                    && target != PAGE_NEW_SUPREMUM
            };
            if !fits {
                return None;
            }
            let mut o = owner;
            for _ in 1..n_owned {
                o = self.next_of(o, word)?;
                word = self.header(o)?;
                if (word >> 56) as u8 & REC_N_OWNED_MASK != 0
                    || !self.user(o, word, span, &mut counts)
                {
                    return None;
                }
            }
            if self.next_of(o, word)? != target
                || (target != PAGE_NEW_SUPREMUM
                    && !self.user(target, target_word, span, &mut counts))
            {
                return None;
            }
            steps = steps.wrapping_add(u32::from(n_owned));
            if steps > self.limit {
                return None;
            }
            owner = target;
            word = target_word;
        }
        // After the last owner: records that own nothing, to the supremum.
        let mut o = owner;
        while o != PAGE_NEW_SUPREMUM {
            if steps >= self.limit {
                return None;
            }
            steps = steps.wrapping_add(1);
            o = self.next_of(o, word)?;
            word = self.header(o)?;
            if (word >> 56) as u8 & REC_N_OWNED_MASK != 0
                || (o != PAGE_NEW_SUPREMUM && !self.user(o, word, span, &mut counts))
            {
                return None;
            }
        }
        // A MIN_REC record counts only on a leaf, and is then not counted
        // delete-marked.
        let [plain_min, deleted, deleted_min] =
            [16u32, 32, 48].map(|shift| (counts >> shift) as u32 & 0xFFFF);
        let (n_deleted, n_min_rec) = if self.leaf {
            (deleted, plain_min.wrapping_add(deleted_min))
        } else {
            (deleted.wrapping_add(deleted_min), 0)
        };
        Some(SoundUser {
            n_recs: steps.checked_sub(2)?,
            n_deleted,
            n_min_rec,
        })
    }

    /// Whether the user record at `o` with header `word` lies in the heap
    /// (one comparison) and is admitted; if so its delete-mark and MIN_REC
    /// flag add one to one of the four counts in `counts`.
    #[inline(always)]
    fn user(&self, o: usize, word: u64, span: usize, counts: &mut u64) -> bool {
        if o.wrapping_sub(self.low) >= span || !self.admits(word) {
            return false;
        }
        let flags = u32::from(((word >> 56) as u8 >> 4) & 3);
        *counts = counts.wrapping_add(1u64 << flags.wrapping_mul(16));
        true
    }

    /// [`Self::user_chain`] as it was written first, the supremum tested
    /// in the loop: the reference the tests hold it to.
    #[cfg(test)]
    fn user_chain_in_order(&self) -> Option<SoundUser> {
        let page = self.page;
        let n_slots = self.n_slots;
        // The infimum owns slot 0, alone (checked by system_ok).
        if be_u16(page, self.dir_top) != Some(u16_of(PAGE_NEW_INFIMUM)) {
            return None;
        }
        let mut slot = 1u16;
        let mut own = 0u32;
        let mut o = self.next_of(PAGE_NEW_INFIMUM, self.header(PAGE_NEW_INFIMUM)?)?;
        // Records admitted, the infimum included; the user records are
        // the steps less infimum and supremum. Every count below is at
        // most `limit`, so the plain additions cannot wrap.
        let mut steps = 1u32;
        let mut n_deleted = 0u32;
        let mut n_min_rec = 0u32;
        loop {
            let supremum = o == PAGE_NEW_SUPREMUM;
            if !supremum && (o < self.low || o >= self.high) {
                return None;
            }
            if steps >= self.limit {
                return None;
            }
            steps = steps.wrapping_add(1);
            let word = self.header(o)?;
            let b5 = (word >> 56) as u8;
            if !supremum {
                if !self.admits(word) {
                    return None;
                }
                let min_rec = self.leaf && b5 & REC_INFO_MIN_REC_FLAG != 0;
                n_min_rec = n_min_rec.wrapping_add(u32::from(min_rec));
                n_deleted =
                    n_deleted.wrapping_add(u32::from(!min_rec && b5 & REC_INFO_DELETED_FLAG != 0));
            }
            // The directory, as dir_step.
            own = own.wrapping_add(1);
            let n_owned = b5 & REC_N_OWNED_MASK;
            if n_owned != 0 {
                let at = self
                    .dir_top
                    .checked_sub(usize::from(slot).wrapping_mul(2))?;
                let last = slot.wrapping_add(1) == n_slots;
                let fits = if last {
                    n_owned <= PAGE_DIR_SLOT_MAX_N_OWNED
                } else {
                    (PAGE_DIR_SLOT_MIN_N_OWNED..=PAGE_DIR_SLOT_MAX_N_OWNED).contains(&n_owned)
                };
                if slot >= n_slots
                    || be_u16(page, at).map(usize::from) != Some(o)
                    || u32::from(n_owned) != own
                    || !fits
                {
                    return None;
                }
                own = 0;
                slot = slot.wrapping_add(1);
            }
            if supremum {
                break;
            }
            o = self.next_of(o, word)?;
        }
        if slot != n_slots {
            return None;
        }
        Some(SoundUser {
            n_recs: steps.checked_sub(2)?,
            n_deleted,
            n_min_rec,
        })
    }

    /// Walks the free chain from PAGE_FREE (`next`), as RecIter and
    /// [`RecPage::walk`] do (no supremum, no directory): its length, or
    /// `None` on any doubt.
    #[inline]
    fn free_chain(&self, mut next: usize) -> Option<u32> {
        let mut n_free = 0u32;
        while next != 0 {
            let o = next;
            if o < self.low || o >= self.high || n_free >= self.limit {
                return None;
            }
            n_free = n_free.wrapping_add(1);
            let word = self.header(o)?;
            if !self.admits(word) {
                return None;
            }
            next = self.next_of(o, word).unwrap_or(0);
        }
        Some(n_free)
    }
}

struct DirCheck {
    active: bool,
    slot_idx: u16,
    own: u32,
}

/// A bounded, loop-checked walk over one chain of a page. Call
/// [`RecIter::next`] until it returns `Ok(None)`; after an `Err` it returns
/// `Ok(None)`. The bound is fixed at the start: at most PAGE_N_HEAP
/// records, and never more than (page size − PAGE_DATA) / 5.
#[derive(Debug)]
pub struct RecIter<'a, 'v> {
    page: RecPage<'a>,
    chain: Chain,
    visited: &'v mut Visited,
    cur: Option<usize>,
    pending: Option<Error>,
    steps: u32,
    limit: u32,
    done: bool,
}

impl<'a, 'v> RecIter<'a, 'v> {
    /// Starts a walk over `chain` of `page`, clearing `visited`. `None` on
    /// compressed pages.
    pub fn new(page: RecPage<'a>, chain: Chain, visited: &'v mut Visited) -> Option<Self> {
        if page.is_compressed() {
            return None;
        }
        visited.reset(page.logical);
        let cap = page
            .logical
            .saturating_sub(PAGE_DATA)
            .checked_div(REC_N_NEW_EXTRA_BYTES)
            .unwrap_or(0);
        let limit = u32::from(page.header.n_heap()).min(u32_of(cap));
        let mut it = RecIter {
            page,
            chain,
            visited,
            cur: None,
            pending: None,
            steps: 0,
            limit,
            done: false,
        };
        match chain {
            Chain::User => {
                let infimum = page.format().infimum();
                if it.limit == 0 {
                    it.pending = Some(rec_error(
                        RecErrorKind::TooMany { limit: 0 },
                        u16_of(PAGE_HEADER.saturating_add(PAGE_N_HEAP)),
                    ));
                } else {
                    it.visited.insert(infimum);
                    it.steps = 1;
                    it.cur = Some(infimum);
                }
            }
            Chain::Free => {
                let first = usize::from(page.header.free());
                if first != 0 {
                    let at = PAGE_HEADER.saturating_add(PAGE_FREE);
                    match it.admit(first, at) {
                        Ok(()) => it.cur = Some(first),
                        Err(e) => it.pending = Some(e),
                    }
                }
            }
        }
        Some(it)
    }

    /// The chain walked.
    pub fn chain(&self) -> Chain {
        self.chain
    }
    /// Records reached so far.
    pub fn steps(&self) -> u32 {
        self.steps
    }
    /// The walk's bound.
    pub fn limit(&self) -> u32 {
        self.limit
    }

    /// Accepts `target` as the next record, named by the bytes at `at`.
    fn admit(&mut self, target: usize, at: usize) -> Result<(), Error> {
        let format = self.page.format();
        let low = format.user_low();
        let high = self.page.heap_limit();
        let err = |kind| rec_error(kind, u16_of(at));
        let ok = (self.chain == Chain::User && target == format.supremum())
            || (target >= low && target < high);
        if !ok {
            return Err(err(RecErrorKind::OutOfPage {
                target: u16_of(target),
                low: u16_of(low),
                high: u16_of(high),
            }));
        }
        if self.steps >= self.limit {
            return Err(err(RecErrorKind::TooMany { limit: self.limit }));
        }
        if !self.visited.insert(target) {
            return Err(err(RecErrorKind::Loop {
                target: u16_of(target),
            }));
        }
        self.steps = self.steps.saturating_add(1);
        Ok(())
    }

    /// Checks a user or free record's kind and heap number.
    fn check(&self, rec: &Rec) -> Result<(), Error> {
        let origin = usize::from(rec.origin);
        let format = self.page.format();
        if let RecFormat::Compact = format {
            let leaf = self.page.is_leaf();
            let fits = match rec.rec_type {
                RecType::Ordinary | RecType::Instant => leaf,
                RecType::NodePtr => !leaf,
                _ => false,
            };
            if !fits {
                return Err(rec_error(
                    RecErrorKind::BadType {
                        status: rec.header.status,
                    },
                    u16_of(origin.saturating_sub(REC_NEW_STATUS)),
                ));
            }
        }
        let heap_no = rec.header.heap_no;
        if heap_no < PAGE_HEAP_NO_USER_LOW || heap_no >= self.page.header.n_heap() {
            let at = match format {
                RecFormat::Compact => REC_NEW_HEAP_NO,
                RecFormat::Redundant => REC_OLD_HEAP_NO,
            };
            return Err(rec_error(
                RecErrorKind::HeapNo { heap_no },
                u16_of(origin.saturating_sub(at)),
            ));
        }
        Ok(())
    }

    /// The next record, `Ok(None)` at the end, or the error that ends the
    /// walk.
    #[allow(
        clippy::should_implement_trait,
        reason = "Result<Option<Rec>> like object's NoteIterator::next: the walk stops after an error"
    )]
    pub fn next(&mut self) -> Result<Option<Rec>, Error> {
        if let Some(e) = self.pending.take() {
            self.done = true;
            return Err(e);
        }
        if self.done {
            return Ok(None);
        }
        let Some(origin) = self.cur.take() else {
            self.done = true;
            return Ok(None);
        };
        let format = self.page.format();
        let Some(rec) = self.page.record_at(u16_of(origin)) else {
            self.done = true;
            return Err(rec_error(
                RecErrorKind::OutOfPage {
                    target: u16_of(origin),
                    low: u16_of(format.user_low()),
                    high: u16_of(self.page.heap_limit()),
                },
                u16_of(origin),
            ));
        };
        let system = self.chain == Chain::User
            && (origin == format.infimum() || origin == format.supremum());
        if !system {
            if let Err(e) = self.check(&rec) {
                self.done = true;
                return Err(e);
            }
        }
        if self.chain == Chain::User && origin == format.supremum() {
            self.done = true;
            return Ok(Some(rec));
        }
        let at = origin.saturating_sub(REC_NEXT);
        match rec.header.next_origin(origin, self.page.logical) {
            None if self.chain == Chain::User => {
                self.pending = Some(rec_error(RecErrorKind::EndsEarly, u16_of(at)));
            }
            None => {}
            Some(t) => match self.admit(t, at) {
                Ok(()) => self.cur = Some(t),
                Err(e) => self.pending = Some(e),
            },
        }
        Ok(Some(rec))
    }
}

impl RecPage<'_> {
    /// Reads one byte of every cache line a walk can read, in address
    /// order, so the CPU streams them into its cache before a chain walk
    /// jumps around in the page: records follow key order, not address
    /// order (a random-key table scatters them), and each hop to a line not
    /// yet cached would wait for memory. Measured on the 1 GiB random-UUID
    /// bench table (7.5 million records): `indexes` at one thread took
    /// about a third less CPU time. The lines are those below the heap
    /// limit (headers and records) and the directory; the free space
    /// between them, a third of a typical page, is not read. Only a hint:
    /// a walk that goes elsewhere is as right, and slower.
    fn warm(&self) {
        let page = self.page;
        let heap = self.heap_limit().min(page.len());
        let dir = self.dir_low().unwrap_or(0).clamp(heap, page.len());
        let mut x = 0u8;
        for part in [page.get(..heap), page.get(dir..)].into_iter().flatten() {
            for line in part.chunks(64) {
                x ^= line.first().copied().unwrap_or(0);
            }
        }
        std::hint::black_box(x);
    }
}

/// Scratch space for [`RecPage::analyse`]: two offset sets (user and free
/// chain) for the full walk of a page with problems. Allocate once per
/// scan. What they hold after a call is unspecified (a sound page is
/// walked without them).
#[derive(Clone, Debug, Default)]
pub struct RecScratch {
    /// Origins on the user chain.
    pub user: Visited,
    /// Origins on the free chain.
    pub free: Visited,
}

/// What is wrong with a page's records.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RecProblem {
    /// The user chain breaks; the records after the break are not counted.
    UserChain(Error),
    /// The free chain breaks.
    FreeChain(Error),
    /// The infimum is not as `page_create` writes it (header, heap number,
    /// `"infimum\0"`).
    Infimum,
    /// The supremum is not as `page_create` writes it (heap number, next 0,
    /// `"supremum"`).
    Supremum,
    /// PAGE_N_RECS disagrees with the user records walked.
    NRecs {
        /// PAGE_N_RECS.
        stated: u16,
        /// User records walked.
        walked: u32,
    },
    /// ROW_FORMAT=COMPRESSED: PAGE_N_RECS + 2 is more than PAGE_N_HEAP (the
    /// records are not walked; this is what the header alone tells).
    NRecsOverHeap {
        /// PAGE_N_RECS.
        n_recs: u16,
        /// PAGE_N_HEAP.
        n_heap: u16,
    },
    /// PAGE_N_HEAP disagrees with 2 + user records + free records.
    NHeap {
        /// PAGE_N_HEAP (without the format bit).
        stated: u16,
        /// Records counted.
        counted: u32,
    },
    /// REDUNDANT: the user records' sizes do not add up to
    /// PAGE_HEAP_TOP − supremum end − PAGE_GARBAGE (`page_get_data_size`).
    DataSize {
        /// From the header.
        stated: u32,
        /// Sum of record sizes.
        counted: u32,
    },
    /// REDUNDANT: the free records hold more bytes than PAGE_GARBAGE.
    Garbage {
        /// PAGE_GARBAGE.
        stated: u16,
        /// Sum of the free records' sizes.
        counted: u32,
    },
    /// PAGE_N_DIR_SLOTS is below 2 or the directory overlaps the heap.
    DirSize {
        /// PAGE_N_DIR_SLOTS.
        n_dir_slots: u16,
    },
    /// A record owning a group is not the one its slot names (the
    /// directory check stops here).
    DirSlot {
        /// The slot.
        slot_idx: u16,
        /// The origin the slot holds (0 if past PAGE_N_DIR_SLOTS).
        found: u16,
        /// The owning record's origin.
        expected: u16,
    },
    /// A slot's record's n_owned is not the size of its group (the
    /// directory check stops here).
    NOwned {
        /// The slot.
        slot_idx: u16,
        /// n_owned.
        stated: u8,
        /// Records in the group.
        counted: u32,
    },
    /// A group's size is outside 4..8 (1 for slot 0, 1..8 for the last).
    DirGroupSize {
        /// The slot.
        slot_idx: u16,
        /// n_owned.
        n_owned: u8,
    },
    /// The chain used a different number of slots than PAGE_N_DIR_SLOTS.
    DirSlotCount {
        /// PAGE_N_DIR_SLOTS.
        stated: u16,
        /// Slots matched by owning records.
        used: u16,
    },
    /// The free chain reaches a record of the user chain.
    FreeInChain {
        /// The record.
        origin: u16,
    },
    /// REDUNDANT: a record's field offsets are not ascending, or its header
    /// and offsets reach below the user records.
    Fields {
        /// The record.
        origin: u16,
        /// Its n_fields.
        n_fields: u16,
    },
    /// REDUNDANT: a record's data ends past PAGE_HEAP_TOP.
    RecordBounds {
        /// The record.
        origin: u16,
        /// Where its data ends.
        end: u32,
    },
}

/// A record problem and the page offset of the faulty bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct RecFinding {
    /// Page offset.
    pub page_offset: u16,
    /// What is wrong.
    pub problem: RecProblem,
}

/// What walking a page's chains counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct RecCounts {
    /// User records walked (delete-marked ones included; on MariaDB the
    /// instant ALTER metadata record included).
    pub n_recs: u32,
    /// Delete-marked user records (a leaf's MIN_REC metadata record is
    /// counted in `n_min_rec` only, so that rows = `n_recs − n_deleted −
    /// n_min_rec`).
    pub n_deleted: u32,
    /// Leaf records with the MIN_REC flag (MariaDB's instant ALTER
    /// metadata record; 0 elsewhere).
    pub n_min_rec: u32,
    /// Records on the free (garbage) chain.
    pub n_free: u32,
    /// The user chain reached the supremum.
    pub user_complete: bool,
    /// The free chain ended cleanly.
    pub free_complete: bool,
    /// REDUNDANT: exact bytes of the user records (header, field offsets
    /// and data), when the chain is complete; equals `page_get_data_size`
    /// on a sound page. `None` for COMPACT (see
    /// [`PageRecords::data_size`]).
    pub record_bytes: Option<u32>,
    /// REDUNDANT: exact bytes of the free records.
    pub free_bytes: Option<u32>,
}

/// How the records of a page were read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecWalk {
    /// Both chains were walked.
    Walked(RecCounts),
    /// ROW_FORMAT=COMPRESSED: the records are in a zlib stream and were
    /// not walked; only the header figures are known.
    Compressed,
}

/// Per-page figures: from the header, and from the walk when there is one.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct PageRecords {
    /// Record format.
    pub format: RecFormat,
    /// PAGE_LEVEL.
    pub level: u16,
    /// PAGE_N_RECS.
    pub n_recs_stated: u16,
    /// PAGE_N_HEAP (without the format bit).
    pub n_heap: u16,
    /// Bytes of live user records from the header, as InnoDB's
    /// `page_get_data_size` and `INNODB_BUFFER_PAGE.DATA_SIZE`: PAGE_HEAP_TOP
    /// − supremum end − PAGE_GARBAGE. For COMPACT pages this is the only
    /// record-bytes figure (record sizes need the column layout); for
    /// REDUNDANT pages compare [`RecCounts::record_bytes`].
    pub data_size: u32,
    /// Used, free and garbage bytes and the fill, from the header.
    pub fill: PageFill,
    /// The walk, or why there is none.
    pub walk: RecWalk,
}

impl PageRecords {
    /// The walk's counts, if the page was walked.
    pub fn counts(&self) -> Option<&RecCounts> {
        match &self.walk {
            RecWalk::Walked(c) => Some(c),
            RecWalk::Compressed => None,
        }
    }
    /// User records: walked, or PAGE_N_RECS on compressed pages.
    pub fn n_recs(&self) -> u32 {
        self.counts()
            .map_or(u32::from(self.n_recs_stated), |c| c.n_recs)
    }
    /// Bytes of user records: exact for walked REDUNDANT pages, else
    /// [`Self::data_size`].
    pub fn record_bytes(&self) -> u32 {
        self.counts()
            .and_then(|c| c.record_bytes)
            .unwrap_or(self.data_size)
    }
}

impl fmt::Display for RecProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            RecProblem::UserChain(Error {
                kind: ErrorKind::Record(k),
                ..
            }) => write!(f, "record chain {k}"),
            RecProblem::FreeChain(Error {
                kind: ErrorKind::Record(k),
                ..
            }) => write!(f, "free record chain {k}"),
            RecProblem::UserChain(e) => write!(f, "record chain: {e}"),
            RecProblem::FreeChain(e) => write!(f, "free record chain: {e}"),
            RecProblem::Infimum => f.write_str("infimum record damaged"),
            RecProblem::Supremum => f.write_str("supremum record damaged"),
            RecProblem::NRecs { stated, walked } => {
                write!(f, "PAGE_N_RECS is {stated}, but {walked} records are chained")
            }
            RecProblem::NRecsOverHeap { n_recs, n_heap } => write!(
                f,
                "PAGE_N_RECS is {n_recs}, more than PAGE_N_HEAP {n_heap} allows"
            ),
            RecProblem::NHeap { stated, counted } => write!(
                f,
                "PAGE_N_HEAP is {stated}, but the chains hold {counted} records"
            ),
            RecProblem::DataSize { stated, counted } => write!(
                f,
                "records hold {counted} bytes, but the header says {stated}"
            ),
            RecProblem::Garbage { stated, counted } => write!(
                f,
                "free records hold {counted} bytes, more than PAGE_GARBAGE {stated}"
            ),
            RecProblem::DirSize { n_dir_slots } => write!(
                f,
                "PAGE_N_DIR_SLOTS {n_dir_slots}: the directory does not fit above the heap"
            ),
            RecProblem::DirSlot {
                slot_idx,
                found,
                expected,
            } => write!(
                f,
                "directory slot {slot_idx} points at {found}, but record {expected} owns the group"
            ),
            RecProblem::NOwned {
                slot_idx,
                stated,
                counted,
            } => write!(
                f,
                "record of directory slot {slot_idx} owns {stated} records, the group has {counted}"
            ),
            RecProblem::DirGroupSize { slot_idx, n_owned } => write!(
                f,
                "directory slot {slot_idx} owns {n_owned} records, outside the allowed range"
            ),
            RecProblem::DirSlotCount { stated, used } => write!(
                f,
                "PAGE_N_DIR_SLOTS is {stated}, but the records use {used} slots"
            ),
            RecProblem::FreeInChain { origin } => {
                write!(f, "free record chain reaches live record {origin}")
            }
            RecProblem::Fields { origin, n_fields } => write!(
                f,
                "record {origin}: {n_fields} field offsets that do not ascend or reach below the heap"
            ),
            RecProblem::RecordBounds { origin, end } => {
                write!(f, "record {origin} ends at {end}, past PAGE_HEAP_TOP")
            }
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
    use crate::index::PAGE_N_DIR_SLOTS;

    pub(crate) use crate::testing::PageBuilder;

    fn analyse(page: &[u8]) -> (PageRecords, Vec<RecFinding>) {
        let p = RecPage::new(page, page.len() as u32).unwrap();
        let mut scratch = RecScratch::default();
        let mut out = Vec::new();
        let r = p.analyse(&mut scratch, &mut out);
        (r, out)
    }

    fn rec_kind(e: Error) -> RecErrorKind {
        match e.kind {
            ErrorKind::Record(k) => k,
            k => panic!("not a record chain error: {k:?}"),
        }
    }

    fn walk_all(page: &[u8]) -> (Vec<Rec>, Option<Error>) {
        let p = RecPage::new(page, page.len() as u32).unwrap();
        let mut v = Visited::new();
        let mut it = p.records(&mut v).unwrap();
        let mut recs = Vec::new();
        loop {
            match it.next() {
                Ok(Some(r)) => recs.push(r),
                Ok(None) => return (recs, None),
                Err(e) => {
                    assert_eq!(it.next(), Ok(None), "stops after the first error");
                    return (recs, Some(e));
                }
            }
        }
    }

    #[test]
    fn constants_match_innodb() {
        // rec.h: the masks of each format cover their header bytes exactly.
        assert_eq!(
            u32::from(REC_OLD_SHORT_MASK)
                ^ (u32::from(REC_OLD_N_FIELDS_MASK))
                ^ (u32::from(REC_HEAP_NO_MASK) << 8)
                ^ (u32::from(REC_N_OWNED_MASK) << 24)
                ^ (u32::from(REC_INFO_BITS_MASK) << 24),
            0xFFFF_FFFF
        );
        assert_eq!(
            u32::from(REC_NEW_STATUS_MASK)
                ^ u32::from(REC_HEAP_NO_MASK)
                ^ (u32::from(REC_N_OWNED_MASK) << 16)
                ^ (u32::from(REC_INFO_BITS_MASK) << 16),
            0xFF_FFFF
        );
        assert_eq!(RecFormat::Compact.user_low(), 125);
        assert_eq!(RecFormat::Redundant.user_low(), 132);
        // page0page.h infimum_extra / supremum_extra_data.
        assert_eq!(
            INFIMUM_DATA,
            &[0x69, 0x6e, 0x66, 0x69, 0x6d, 0x75, 0x6d, 0x00]
        );
        assert_eq!(
            SUPREMUM_DATA,
            &[0x73, 0x75, 0x70, 0x72, 0x65, 0x6d, 0x75, 0x6d]
        );
    }

    #[test]
    fn empty_pages_of_both_formats_are_clean() {
        for format in [RecFormat::Compact, RecFormat::Redundant] {
            let mut b = PageBuilder::new(16384, format);
            let page = b.finish().to_vec();
            let (recs, err) = walk_all(&page);
            assert_eq!(err, None);
            assert_eq!(
                recs.iter().map(|r| r.rec_type).collect::<Vec<_>>(),
                [RecType::Infimum, RecType::Supremum]
            );
            let (r, out) = analyse(&page);
            assert_eq!(out, [], "{format:?}");
            let c = r.counts().unwrap();
            assert_eq!((c.n_recs, c.n_free, c.user_complete), (0, 0, true));
            assert_eq!(r.data_size, 0);
            if format == RecFormat::Redundant {
                assert_eq!(c.record_bytes, Some(0));
            } else {
                assert_eq!(c.record_bytes, None);
            }
        }
    }

    #[test]
    fn compact_page_walks_counts_and_checks_the_directory() {
        let mut b = PageBuilder::new(16384, RecFormat::Compact);
        for _ in 0..10 {
            b.push(0, &[20]);
        }
        let marked = b.chain[3];
        b.page[marked - 5] |= REC_INFO_DELETED_FLAG;
        let gone = b.chain[7];
        b.delete(gone, 25);
        let page = b.finish().to_vec();
        let (recs, err) = walk_all(&page);
        assert_eq!(err, None);
        assert_eq!(recs.len(), 11);
        assert_eq!(recs[1].origin as usize, 125);
        assert_eq!(recs[1].header.heap_no, 2);
        assert!(recs[4].header.is_deleted());
        let (r, out) = analyse(&page);
        assert_eq!(out, []);
        let c = r.counts().unwrap();
        assert_eq!((c.n_recs, c.n_deleted, c.n_free), (9, 1, 1));
        assert!(c.user_complete && c.free_complete);
        // DATA_SIZE: heap top − 120 − garbage = 10 × 25 − 25.
        assert_eq!(r.data_size, 225);
        assert_eq!(r.record_bytes(), 225);
        assert_eq!(r.n_recs(), 9);
        assert_eq!(r.fill.garbage, 25);
    }

    #[test]
    fn metadata_record_is_not_a_row() {
        // MariaDB instant ALTER: the first leaf record carries MIN_REC (and
        // DELETED for the ALTER metadata), status 4.
        let mut b = PageBuilder::new(16384, RecFormat::Compact);
        let meta = b.push(REC_INFO_MIN_REC_FLAG | REC_INFO_DELETED_FLAG, &[8]);
        for _ in 0..3 {
            b.push(0, &[8]);
        }
        let gone = b.chain[2];
        b.page[gone - 5] |= REC_INFO_DELETED_FLAG;
        b.finish();
        b.page[meta - 3] = (b.page[meta - 3] & !7) | REC_STATUS_INSTANT;
        let (r, out) = analyse(&b.page);
        assert_eq!(out, []);
        let c = r.counts().unwrap();
        assert_eq!((c.n_recs, c.n_deleted, c.n_min_rec), (4, 1, 1));
    }

    #[test]
    fn redundant_page_exposes_fields_and_sizes() {
        let mut b = PageBuilder::new(16384, RecFormat::Redundant);
        for _ in 0..6 {
            b.push(0, &[4, 6, 7, 10]);
        }
        let gone = b.chain[2];
        b.delete(gone, 6 + 4 + 27);
        let page = b.finish().to_vec();
        let p = RecPage::new(&page, 16384).unwrap();
        let rec = p.record_at(b.chain[0] as u16).unwrap();
        assert_eq!(rec.header.n_fields, 4);
        assert!(rec.header.one_byte_offsets);
        let fields: Vec<RecField> = rec.fields(&page).collect();
        assert_eq!(fields.len(), 4);
        assert_eq!(
            (fields[1].start, fields[1].end, fields[1].len()),
            (4, 10, 6)
        );
        assert_eq!(rec.data_size(&page), Some(27));
        assert_eq!(rec.size(&page), Some(6 + 4 + 27));
        let (r, out) = analyse(&page);
        assert_eq!(out, []);
        let c = r.counts().unwrap();
        assert_eq!((c.n_recs, c.n_free), (5, 1));
        assert_eq!(c.record_bytes, Some(5 * 37));
        assert_eq!(c.free_bytes, Some(37));
        assert_eq!(r.data_size, 5 * 37);
        // A damaged offset is caught.
        let mut bad = page.clone();
        bad[b.chain[0] - 6 - 3] = 2;
        let (_, out) = analyse(&bad);
        assert!(out
            .iter()
            .any(|f| matches!(f.problem, RecProblem::Fields { .. })));
    }

    #[test]
    fn redundant_node_pointer_gives_its_child() {
        let mut b = PageBuilder::new(16384, RecFormat::Redundant);
        b.level = 1;
        let o = b.push(0, &[4, 4]);
        b.page[o + 4..o + 8].copy_from_slice(&77u32.to_be_bytes());
        let page = b.finish().to_vec();
        let p = RecPage::new(&page, 16384).unwrap();
        let rec = p.record_at(o as u16).unwrap();
        assert_eq!(rec.rec_type, RecType::NodePtr);
        assert_eq!(rec.child_page(&page), Some(PageNo(77)));
        let (_, out) = analyse(&page);
        assert_eq!(out, []);
    }

    #[test]
    fn loops_are_caught() {
        for format in [RecFormat::Compact, RecFormat::Redundant] {
            let mut b = PageBuilder::new(16384, format);
            for _ in 0..5 {
                b.push(0, &[8]);
            }
            b.finish();
            // Record 4 points back at record 2.
            let (from, to) = (b.chain[3], b.chain[1]);
            b.link(from, to);
            let (recs, err) = walk_all(&b.page);
            assert_eq!(recs.len(), 5);
            assert_eq!(
                err,
                Some(rec_error(
                    RecErrorKind::Loop { target: to as u16 },
                    (from - 2) as u16
                ))
            );
            let (r, out) = analyse(&b.page);
            assert!(!r.counts().unwrap().user_complete);
            assert!(matches!(out[0].problem, RecProblem::UserChain(_)));
            // A self-loop (COMPACT cannot say it: a relative 0 ends the chain).
            b.link(from, from);
            let (_, err) = walk_all(&b.page);
            let want = match format {
                RecFormat::Compact => RecErrorKind::EndsEarly,
                RecFormat::Redundant => RecErrorKind::Loop {
                    target: from as u16,
                },
            };
            assert_eq!(rec_kind(err.unwrap()), want);
        }
    }

    #[test]
    fn out_of_page_and_early_ends_are_caught() {
        let mut b = PageBuilder::new(16384, RecFormat::Compact);
        for _ in 0..3 {
            b.push(0, &[8]);
        }
        b.finish();
        let r1 = b.chain[0];
        // Past the heap top.
        b.put16(r1 - 2, 0x3000);
        let (_, err) = walk_all(&b.page);
        assert!(matches!(
            rec_kind(err.unwrap()),
            RecErrorKind::OutOfPage { high, .. } if usize::from(high) == b.top
        ));
        // Into the page header (a negative relative offset).
        b.put16(r1 - 2, (-100i16) as u16);
        let (_, err) = walk_all(&b.page);
        assert!(matches!(
            rec_kind(err.unwrap()),
            RecErrorKind::OutOfPage { target: 25, .. }
        ));
        // Next = 0 in the middle.
        b.put16(r1 - 2, 0);
        let (recs, err) = walk_all(&b.page);
        assert_eq!(recs.len(), 2);
        assert_eq!(rec_kind(err.unwrap()), RecErrorKind::EndsEarly);
        // PAGE_FREE out of the heap.
        b.finish();
        b.put16(PAGE_HEADER + PAGE_FREE, 60000);
        let (r, out) = analyse(&b.page);
        assert!(!r.counts().unwrap().free_complete);
        assert_eq!(out[0].page_offset as usize, PAGE_HEADER + PAGE_FREE);
        // A short page of 1 KiB whose heap top lies past its end.
        let mut b = PageBuilder::new(1024, RecFormat::Compact);
        b.push(0, &[8]);
        b.finish();
        b.put16(PAGE_HEADER + PAGE_HEAP_TOP, 0xFFFF);
        b.put16(b.chain[0] - 2, 2000);
        let (_, err) = walk_all(&b.page);
        assert!(matches!(
            rec_kind(err.unwrap()),
            RecErrorKind::OutOfPage { .. }
        ));
    }

    #[test]
    fn walks_are_bounded_by_n_heap() {
        let mut b = PageBuilder::new(16384, RecFormat::Compact);
        for _ in 0..6 {
            b.push(0, &[8]);
        }
        b.finish();
        // Every record claims heap number 2, so only the bound stops it.
        for &o in &b.chain.clone() {
            b.put16(o - 4, 2 << 3);
        }
        b.put16(PAGE_HEADER + PAGE_N_HEAP, 0x8000 | 4);
        let (recs, err) = walk_all(&b.page);
        assert_eq!(recs.len(), 4);
        assert_eq!(rec_kind(err.unwrap()), RecErrorKind::TooMany { limit: 4 });
        // PAGE_N_HEAP 0: nothing is walked.
        b.put16(PAGE_HEADER + PAGE_N_HEAP, 0x8000);
        let (recs, err) = walk_all(&b.page);
        assert!(recs.is_empty());
        assert_eq!(rec_kind(err.unwrap()), RecErrorKind::TooMany { limit: 0 });
    }

    #[test]
    fn types_and_heap_numbers_are_checked() {
        let mut b = PageBuilder::new(16384, RecFormat::Compact);
        for _ in 0..3 {
            b.push(0, &[8]);
        }
        b.finish();
        let r2 = b.chain[1];
        // A node pointer on a leaf.
        b.page[r2 - 3] |= 1;
        let (_, err) = walk_all(&b.page);
        assert_eq!(
            err.unwrap(),
            rec_error(RecErrorKind::BadType { status: 1 }, (r2 - 3) as u16)
        );
        // MariaDB instant status 4 is fine on a leaf.
        b.page[r2 - 3] = (b.page[r2 - 3] & !7) | 4;
        let (recs, err) = walk_all(&b.page);
        assert_eq!(err, None);
        assert_eq!(recs[2].rec_type, RecType::Instant);
        // A heap number past PAGE_N_HEAP.
        b.put16(r2 - 4, 99 << 3);
        let (_, err) = walk_all(&b.page);
        assert_eq!(rec_kind(err.unwrap()), RecErrorKind::HeapNo { heap_no: 99 });
    }

    #[test]
    fn header_and_directory_disagreements_are_findings() {
        let mut b = PageBuilder::new(16384, RecFormat::Compact);
        for _ in 0..9 {
            b.push(0, &[8]);
        }
        b.finish();
        let clean = b.page.clone();
        b.put16(PAGE_HEADER + PAGE_N_RECS, 8);
        let (_, out) = analyse(&b.page);
        assert_eq!(
            out,
            [RecFinding {
                page_offset: 54,
                problem: RecProblem::NRecs {
                    stated: 8,
                    walked: 9
                }
            }]
        );
        // A slot pointing elsewhere.
        b.page = clean.clone();
        b.put16(16384 - 8 - 4, 130);
        let (_, out) = analyse(&b.page);
        assert!(matches!(
            out[0].problem,
            RecProblem::DirSlot {
                slot_idx: 1,
                found: 130,
                ..
            }
        ));
        // A wrong n_owned.
        b.page = clean.clone();
        let owner = b.chain[3];
        b.page[owner - 5] = 3;
        let (_, out) = analyse(&b.page);
        assert!(matches!(
            out[0].problem,
            RecProblem::NOwned {
                slot_idx: 1,
                stated: 3,
                counted: 4
            }
        ));
        // Damaged infimum text and a directory overlapping the heap.
        b.page = clean.clone();
        b.page[99] = b'X';
        b.put16(PAGE_HEADER + PAGE_N_DIR_SLOTS, 8100);
        let (_, out) = analyse(&b.page);
        assert_eq!(out[0].problem, RecProblem::Infimum);
        assert_eq!(out[0].page_offset, 94);
        assert!(out
            .iter()
            .any(|f| f.problem == RecProblem::DirSize { n_dir_slots: 8100 }));
        // n_heap.
        b.page = clean;
        b.put16(PAGE_HEADER + PAGE_N_HEAP, 0x8000 | 15);
        let (_, out) = analyse(&b.page);
        assert_eq!(
            out[0].problem,
            RecProblem::NHeap {
                stated: 15,
                counted: 11
            }
        );
    }

    #[test]
    fn free_chain_into_live_records_is_caught() {
        let mut b = PageBuilder::new(16384, RecFormat::Redundant);
        for _ in 0..4 {
            b.push(0, &[8]);
        }
        b.finish();
        b.put16(PAGE_HEADER + PAGE_FREE, b.chain[2] as u16);
        let (r, out) = analyse(&b.page);
        assert!(!r.counts().unwrap().free_complete);
        assert!(out
            .iter()
            .any(|f| matches!(f.problem, RecProblem::FreeInChain { .. })));
    }

    #[test]
    fn compressed_pages_are_recognised_not_walked() {
        let mut b = PageBuilder::new(16384, RecFormat::Compact);
        b.push(0, &[8]);
        b.finish();
        let zip = &b.page[..8192];
        let p = RecPage::new(zip, 16384).unwrap();
        assert!(p.is_compressed());
        assert!(p.records(&mut Visited::new()).is_none());
        assert!(p.record_at(125).is_none());
        assert_eq!(p.dir_slot(0), None);
        let r = p.analyse(&mut RecScratch::default(), &mut Vec::new());
        assert_eq!(r.walk, RecWalk::Compressed);
        assert_eq!(r.n_recs(), 1);
        assert_eq!(r.data_size, 13);
        assert!(r.fill.approximate);
        // The header alone still tells impossible counts.
        let mut bad = zip.to_vec();
        bad[PAGE_HEADER + PAGE_N_RECS..PAGE_HEADER + PAGE_N_RECS + 2]
            .copy_from_slice(&0xFFF0u16.to_be_bytes());
        bad[PAGE_HEADER + PAGE_N_DIR_SLOTS..PAGE_HEADER + PAGE_N_DIR_SLOTS + 2]
            .copy_from_slice(&0xFFF0u16.to_be_bytes());
        let p = RecPage::new(&bad, 16384).unwrap();
        let mut out = Vec::new();
        p.analyse(&mut RecScratch::default(), &mut out);
        assert_eq!(
            out.iter().map(|f| f.page_offset).collect::<Vec<_>>(),
            [54, 38]
        );
        assert!(matches!(
            out[0].problem,
            RecProblem::NRecsOverHeap {
                n_recs: 0xFFF0,
                n_heap: 3
            }
        ));
        assert!(RecPage::new(&b.page, 8192).is_none());
        assert!(RecPage::new(&b.page[..50], 16384).is_none());
    }

    #[test]
    fn sixty_four_k_pages_wrap_relative_offsets() {
        let mut b = PageBuilder::new(65536, RecFormat::Compact);
        for _ in 0..3 {
            b.push(0, &[8]);
        }
        b.finish();
        let (recs, err) = walk_all(&b.page);
        assert_eq!(err, None);
        assert_eq!(recs.len(), 5);
        // Supremum → back: relative offsets wrap modulo 64K.
        let h = RecHeader::read(&b.page, 200, RecFormat::Compact).unwrap();
        let h = RecHeader {
            next_raw: 0xFFF0,
            ..h
        };
        assert_eq!(h.next_origin(200, 65536), Some(184));
        assert_eq!(h.next_origin(200, 16384), Some((200 + 0xFFF0) % 16384));
    }

    /// A seeded xorshift; no dependency.
    fn xorshift(mut x: u64) -> impl FnMut() -> u64 {
        move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        }
    }

    #[test]
    fn mutated_pages_never_panic_and_stay_bounded() {
        let mut rnd = xorshift(0x9E37_79B9_7F4A_7C15);
        for (format, size) in [
            (RecFormat::Compact, 16384),
            (RecFormat::Redundant, 16384),
            (RecFormat::Compact, 4096),
            (RecFormat::Redundant, 65536),
        ] {
            let mut b = PageBuilder::new(size, format);
            for k in 0..40 {
                b.push((k % 3) as u8 * 0x10, &[4, 3 + k % 5]);
            }
            let gone = b.chain[5];
            b.delete(gone, 20);
            let clean = b.finish().to_vec();
            let mut scratch = RecScratch::default();
            let mut visited = Visited::new();
            let mut out = Vec::new();
            let mut sound = 0;
            for _ in 0..3000 {
                let mut page = clean.clone();
                for _ in 0..(1 + rnd() % 4) {
                    // Mostly the header and the first records.
                    let at = if rnd().is_multiple_of(2) {
                        (rnd() % 700) as usize
                    } else {
                        (rnd() % size as u64) as usize
                    };
                    page[at] ^= 1 << (rnd() % 8);
                }
                let p = RecPage::new(&page, size as u32).unwrap();
                out.clear();
                let r = p.analyse(&mut scratch, &mut out);
                let c = r.counts().unwrap();
                assert!(c.n_recs + c.n_free <= u32::from(r.n_heap));
                // The sound-page walk agrees with the full walk: same
                // counts, no finding missed, the same offsets visited.
                let mut full_scratch = RecScratch::default();
                let mut full_out = Vec::new();
                let full = p.walk(&mut full_scratch, &mut full_out);
                assert_eq!((c, &out), (&full, &full_out));
                if p.walk_sound().is_some() {
                    sound += 1;
                    assert!(out.is_empty());
                }
                // The walk ends cleanly exactly when the walk as it was
                // first written does, with its counts.
                if let Some(w) = p.sound_walk() {
                    let counts =
                        |u: Option<SoundUser>| u.map(|u| (u.n_recs, u.n_deleted, u.n_min_rec));
                    assert_eq!(counts(w.user_chain()), counts(w.user_chain_in_order()));
                }
                for chain in [Chain::User, Chain::Free] {
                    let mut it = RecIter::new(p, chain, &mut visited).unwrap();
                    let mut n = 0u32;
                    while let Ok(Some(rec)) = it.next() {
                        n += 1;
                        let _ = (rec.fields(&page).count(), rec.size(&page));
                        let _ = rec.child_page(&page);
                    }
                    assert!(n <= it.limit());
                }
            }
            if format == RecFormat::Compact {
                assert!(sound > 100, "{size}: {sound} sound pages");
            } else {
                assert_eq!(sound, 0);
            }
        }
    }

    #[test]
    fn grouped_walk_agrees_on_damaged_directories() {
        // The sound walk follows the chain group by group from the
        // directory's slots: damage aimed at what it trusts (the slots,
        // each record's n_owned, the next fields, PAGE_N_DIR_SLOTS) must
        // leave it agreeing with the step-by-step walk and the full walk.
        let mut rnd = xorshift(0x2545_F491_4F6C_DD1D);
        let (mut sound, mut doubted) = (0, 0);
        for (size, n, level) in [(16384, 61, 0), (4096, 23, 0), (16384, 40, 1)] {
            let mut b = PageBuilder::new(size, RecFormat::Compact);
            b.level = level;
            for k in 0..n {
                b.push([0, 0x20, 0x10, 0x30][k % 4], &[4, 3 + k % 5]);
            }
            let gone = b.chain[7];
            b.delete(gone, 20);
            let clean = b.finish().to_vec();
            let chain = b.chain.clone();
            let n_slots = usize::from(be_u16(&clean, PAGE_HEADER + PAGE_N_DIR_SLOTS).unwrap());
            let slot_at = |k: usize| size - PAGE_DIR - 2 * (k + 1);
            for _ in 0..4000 {
                let mut page = clean.clone();
                for _ in 0..(1 + rnd() % 3) {
                    let pick = |r: u64| chain[(r % chain.len() as u64) as usize];
                    let any = |r: u64| match r % 8 {
                        0 => PAGE_NEW_SUPREMUM,
                        1 => PAGE_NEW_INFIMUM,
                        _ => pick(r >> 3),
                    };
                    match rnd() % 6 {
                        // A slot names another record.
                        0 => {
                            let k = (rnd() % n_slots as u64) as usize;
                            let o = any(rnd());
                            page[slot_at(k)..slot_at(k) + 2]
                                .copy_from_slice(&(o as u16).to_be_bytes());
                        }
                        // A record owns another count.
                        1 => {
                            let o = any(rnd());
                            page[o - 5] = (page[o - 5] & 0xF0) | (rnd() % 10) as u8;
                        }
                        // A record's next points elsewhere.
                        2 => {
                            let (from, to) = (any(rnd()), any(rnd()));
                            let next = (to as i64 - from as i64) as u16;
                            page[from - 2..from].copy_from_slice(&next.to_be_bytes());
                        }
                        // PAGE_N_DIR_SLOTS one more or one less.
                        3 => {
                            let v = if rnd().is_multiple_of(2) {
                                n_slots + 1
                            } else {
                                n_slots - 1
                            };
                            let at = PAGE_HEADER + PAGE_N_DIR_SLOTS;
                            page[at..at + 2].copy_from_slice(&(v as u16).to_be_bytes());
                        }
                        // The last slot owned by the record before the
                        // supremum, the supremum owning nothing: a clean
                        // walk to the supremum after the last owner.
                        4 => {
                            let sup = PAGE_NEW_SUPREMUM;
                            let before = *chain.last().unwrap();
                            let owned = page[sup - 5] & 0x0F;
                            page[sup - 5] &= 0xF0;
                            page[before - 5] = (page[before - 5] & 0xF0) | owned.saturating_sub(1);
                            let k = n_slots - 1;
                            page[slot_at(k)..slot_at(k) + 2]
                                .copy_from_slice(&(before as u16).to_be_bytes());
                        }
                        // A bit of a record header.
                        _ => {
                            let o = any(rnd());
                            page[o - 5 + (rnd() % 5) as usize] ^= 1 << (rnd() % 8);
                        }
                    }
                }
                let p = RecPage::new(&page, size as u32).unwrap();
                let mut out = Vec::new();
                let r = p.analyse(&mut RecScratch::default(), &mut out);
                let mut full_out = Vec::new();
                let full = p.walk(&mut RecScratch::default(), &mut full_out);
                assert_eq!((r.counts().unwrap(), &out), (&full, &full_out));
                if let Some(w) = p.sound_walk() {
                    let counts =
                        |u: Option<SoundUser>| u.map(|u| (u.n_recs, u.n_deleted, u.n_min_rec));
                    let grouped = counts(w.user_chain());
                    assert_eq!(grouped, counts(w.user_chain_in_order()));
                    if grouped.is_some() {
                        sound += 1;
                    } else {
                        doubted += 1;
                    }
                }
            }
        }
        assert!(
            sound > 500 && doubted > 5000,
            "{sound} sound, {doubted} doubted"
        );
    }

    #[test]
    fn views_of_tablespace_pages() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../fixtures/mysql56/rf_redundant.ibd"
        );
        let data = std::fs::read(path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let ts = Tablespace::new(&data).unwrap();
        let p = RecPage::of(&ts, PageNo(3)).unwrap();
        assert_eq!(p.format(), RecFormat::Redundant);
        assert_eq!(
            RecPage::of(&ts, PageNo(2)).unwrap_err(),
            NoRecords::NotIndex(PageType(3))
        );
        assert_eq!(
            RecPage::of(&ts, PageNo(99999)).unwrap_err(),
            NoRecords::PastFile
        );
    }

    #[test]
    fn display_texts() {
        let e = rec_error(RecErrorKind::Loop { target: 200 }, 198);
        assert_eq!(
            RecProblem::UserChain(e).to_string(),
            "record chain points back at record 200 (loop)"
        );
        assert_eq!(RecType::NodePtr.name(), "node_ptr");
        assert_eq!(RecFormat::Redundant.name(), "redundant");
    }
}
