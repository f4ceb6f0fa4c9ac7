//! Splitting one record into its fields, given the index's layout
//! ([`crate::table::RecordLayout`]), and reading off-page (external)
//! values.
//!
//! Sources, as read: MySQL `rem0rec.cc` / `rem/rec.h` (8.0.40,
//! `rec_init_offsets_comp_ordinary`, `rec_init_null_and_len_comp`,
//! `rec_get_n_fields_instant`, `rec_init_offsets` for node pointers and
//! REDUNDANT), `lob0lob.h` (`BTR_EXTERN_*`, `LOB_HDR_*`), `lob0first.h`,
//! `lob0index.h`, `lob0pages.h` (MySQL 8.0 LOB pages).
//!
//! COMPACT / DYNAMIC leaf record, bytes counted down from the origin:
//!
//! | bytes before origin | what |
//! |---|---|
//! | 1..5 | the 5-byte header ([`ibdscope_core::record`]) |
//! | 6 | 8.0.29+ with info bit 0x40 (VERSION): the row version (1 byte) |
//! | 6 (7) | 8.0.12–8.0.28 with info bit 0x80 (INSTANT): the stored field count, 1 byte, or 2 when the first has 0x80 (`((b1 & 0x7F) << 8) \| b2`) |
//! | next ⌈n_null / 8⌉ | NULL bitmap: bit 0 of the first (highest) byte is the first nullable field, bytes go down |
//! | below | lengths of the non-NULL variable-length fields, in field order, going down: 1 byte, or 2 when the column is `DATA_BIG_COL` (max length > 255 bytes or BLOB) and the first byte has 0x80: `((b1 & 0x3F) << 8) \| b2`, 0x40 = stored off-page |
//!
//! The data follows the origin, fields back to back. `n_null` counts the
//! nullable fields the record stores: all of them; for a versioned record
//! those present in its version (added at or before it, not dropped at or
//! before it); for an INSTANT record those among its first n fields; for
//! an old record of a table with instant columns (8.0.12–8.0.28) those
//! among the fields before the first instant ADD. Fields a record does not
//! store take the column's instant default (or NULL), or are dropped.
//!
//! Node pointers (status 1) hold the first `n_unique` fields and the
//! 4-byte child page number; their NULL bitmap is sized by every nullable
//! field of the index (`rec_init_offsets`).
//!
//! Off-page reference (20 bytes, the last of the field, `lob0lob.h`):
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 4 | `BTR_EXTERN_SPACE_ID` |
//! | 4 | 4 | `BTR_EXTERN_PAGE_NO`: first page |
//! | 8 | 4 | `BTR_EXTERN_OFFSET` (old BLOB: byte offset of the header on the first page) = `BTR_EXTERN_VERSION` (8.0 LOB: the LOB version) |
//! | 12 | 8 | `BTR_EXTERN_LEN`: off-page bytes (low 4 bytes); byte 12 flags 0x80 owner, 0x40 inherited, 0x20 being modified (8.0) |
//!
//! Old BLOB chain (FIL_PAGE_TYPE_BLOB): at the header, part length (4) and
//! next page (4, FIL_NULL ends), then the part. The first page's header is
//! at the reference's offset, the others' at FIL_PAGE_DATA.
//!
//! MySQL 8.0 LOB (first page FIL_PAGE_TYPE_LOB_FIRST): at FIL_PAGE_DATA
//! version (1), flags (1), LOB version (4), last trx id (6), last undo no
//! (4), data length (4), trx id (6), the index list base node (16), the
//! free list base node (16), then 10 index entries of 60 bytes, then the
//! first page's data (byte 696). An index entry: prev (6), next (6),
//! versions list base node (16), trx ids, undo numbers, then page number
//! (4) at 48, data length at 52 (4 reserved, but `get_data_len` reads and
//! `set_data_len` writes only the first 2), LOB version (4) at 56. Data pages
//! (FIL_PAGE_TYPE_LOB_DATA): version (1), data length (4), trx id (6),
//! data from byte 49. An entry newer than the reference's version is
//! replaced by the first entry of its versions list that is not.
//!
//! Compressed BLOB (5.6/5.7/MariaDB ROW_FORMAT=COMPRESSED, first page
//! FIL_PAGE_TYPE_ZBLOB): one zlib stream over the chain, from FIL_PAGE_DATA
//! of each page to its end, the next page at FIL_PAGE_NEXT; untested on
//! real data (no fixture or corpus file has one).
//!
//! Gaps (named, not guessed): ROW_FORMAT=COMPRESSED pages must be
//! decompressed first ([`crate::zip::decompress`];
//! [`RowErrorKind::Compressed`] otherwise); MySQL 8.0 compressed LOBs
//! (ZLOB; [`LobErrorKind::Compressed`]); REDUNDANT records with a row
//! version ([`RowErrorKind::RedundantVersion`]); MariaDB 10.3+ instant
//! ALTER records, status 4 ([`RowErrorKind::MariaDbInstant`]); a prefix
//! primary key (`dict_index_build_internal_clust` then stores the column
//! twice, as the prefix and in full; the layout follows the SDI's element
//! list, and whether it lists both is **unconfirmed**: no corpus file has
//! one).
//! Every error names the page offset of the bytes at fault.
//!
//! Every row of a MySQL 8.0+ table, one line per row:
//!
//! ```no_run
//! use ibdscope_schema::row::{leftmost_leaf, render_field, split, FieldText};
//! use ibdscope_schema::table::{Hidden, TableDef};
//! use ibdscope_core::{fil::FilHeader, PageNo, RecFormat, RecPage, Tablespace, Visited, FIL_NULL};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let bytes = std::fs::read("t.ibd")?;
//! let ts = Tablespace::new(&bytes)?;
//! let t = TableDef::from_tablespace(&ts)?;
//! let ix = t.clustered().ok_or("no clustered index")?;
//! let root = PageNo(ix.root.ok_or("no root page")?);
//! let compact = RecPage::of(&ts, root).map_err(|e| format!("{e:?}"))?.format() == RecFormat::Compact;
//! let layout = t.layout(ix, compact)?;
//! let (mut visited, mut fields) = (Visited::new(), Vec::new());
//! let (mut buf, mut line) = (Vec::new(), String::new());
//! let mut page_no = leftmost_leaf(&ts, root, &layout, &mut visited, &mut fields)?;
//! for _ in 0..ts.n_pages() {
//!     let rp = RecPage::of(&ts, page_no).map_err(|e| format!("{e:?}"))?;
//!     let mut recs = rp.records(&mut visited).ok_or("compressed page")?;
//!     while let Some(rec) = recs.next().map_err(|e| format!("{e:?}"))? {
//!         if !rec.is_user() || rec.header.is_deleted() {
//!             continue;
//!         }
//!         split(&rp, &rec, &layout, &mut fields)?;
//!         line.clear();
//!         for f in &fields {
//!             let col = &t.columns[f.column];
//!             if col.hidden != Hidden::Visible {
//!                 continue;
//!             }
//!             line.push('\t');
//!             if render_field(&ts, rp.bytes(), col, f, 1 << 20, &mut buf, &mut line) == FieldText::Null {
//!                 line.push_str("NULL");
//!             }
//!         }
//!         println!("{line}");
//!     }
//!     match FilHeader::new(rp.bytes()).map(|h| h.next()) {
//!         Some(next) if next.0 != FIL_NULL => page_no = next,
//!         _ => break,
//!     }
//! }
//! # Ok(())
//! # }
//! ```

/// Defined with the crate's error, re-exported here.
pub use crate::error::{DescentErrorKind, LobErrorKind, RowErrorKind};
use crate::error::{Error, ErrorKind};
use crate::table::{LayoutField, RecordLayout};
pub use crate::zip::BTR_EXTERN_FIELD_REF_SIZE;
use ibdscope_core::fil::{FilHeader, FIL_PAGE_DATA};
use ibdscope_core::record::{
    Rec, RecFormat, RecPage, RecType, REC_INFO_INSTANT_FLAG, REC_INFO_VERSION_FLAG,
    REC_NODE_PTR_SIZE, REC_N_NEW_EXTRA_BYTES,
};
use ibdscope_core::{PageNo, PageType, Tablespace, FIL_NULL};
use ibdscope_prims::bytes::{be_u16, be_u32};

/// Offset of the space id in a reference.
pub const BTR_EXTERN_SPACE_ID: usize = 0;
/// Offset of the first page number.
pub const BTR_EXTERN_PAGE_NO: usize = 4;
/// Offset of the header offset (old BLOB) or LOB version (8.0 LOB).
pub const BTR_EXTERN_OFFSET: usize = 8;
/// Offset of the 8-byte length.
pub const BTR_EXTERN_LEN: usize = 12;
/// Owner flag in the length's first byte.
pub const BTR_EXTERN_OWNER_FLAG: u8 = 0x80;
/// Inherited flag.
pub const BTR_EXTERN_INHERITED_FLAG: u8 = 0x40;
/// Being-modified flag (8.0).
pub const BTR_EXTERN_BEING_MODIFIED_FLAG: u8 = 0x20;
/// Old BLOB page: part length, at the header.
pub const LOB_HDR_PART_LEN: usize = 0;
/// Old BLOB page: next page, at the header + 4.
pub const LOB_HDR_NEXT_PAGE_NO: usize = 4;
/// Old BLOB page header size.
pub const LOB_HDR_SIZE: usize = 8;
/// 8.0 LOB first page: the index list base node.
pub const LOB_FIRST_OFFSET_INDEX_LIST: usize = FIL_PAGE_DATA + 1 + 1 + 4 + 6 + 4 + 4 + 6;
/// 8.0 LOB first page: where the index entries start.
pub const LOB_FIRST_PAGE_DATA: usize = LOB_FIRST_OFFSET_INDEX_LIST + 16 + 16;
/// 8.0 LOB first page: index entries it holds (`node_count`).
pub const LOB_FIRST_NODE_COUNT: usize = 10;
/// 8.0 LOB index entry size.
pub const LOB_INDEX_ENTRY_SIZE: usize = 60;
/// 8.0 LOB first page: where its data starts.
pub const LOB_FIRST_DATA_BEGIN: usize =
    LOB_FIRST_PAGE_DATA + LOB_FIRST_NODE_COUNT * LOB_INDEX_ENTRY_SIZE;
/// 8.0 LOB data page: where its data starts.
pub const LOB_DATA_PAGE_DATA: usize = FIL_PAGE_DATA + 1 + 4 + 6;
/// Index entry: next entry address.
const ENTRY_NEXT: usize = 6;
/// Index entry: versions list base node.
const ENTRY_VERSIONS: usize = 12;
/// Index entry: page number.
const ENTRY_PAGE_NO: usize = 48;
/// Index entry: data length (read as 2 bytes: `get_data_len` is
/// `mach_read_from_2`, though the field reserves 4).
const ENTRY_DATA_LEN: usize = 52;
/// Index entry: LOB version.
const ENTRY_LOB_VERSION: usize = 56;
/// `REC_N_FIELDS_TWO_BYTES_FLAG`.
const REC_N_FIELDS_TWO_BYTES_FLAG: u8 = 0x80;
/// `REC_N_FIELDS_ONE_BYTE_MAX`.
const REC_N_FIELDS_ONE_BYTE_MAX: u8 = 0x7F;

/// A reference to a value stored off-page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlobRef {
    /// Space id.
    pub space_id: u32,
    /// First page.
    pub page: PageNo,
    /// Old BLOB: byte offset of the first header; 8.0 LOB: LOB version.
    pub offset: u32,
    /// Off-page bytes.
    pub len: u32,
    /// The flags byte (owner, inherited, being modified).
    pub flags: u8,
}

impl BlobRef {
    /// Reads a reference from its 20 bytes.
    pub fn read(r: &[u8; BTR_EXTERN_FIELD_REF_SIZE]) -> BlobRef {
        BlobRef {
            space_id: be_u32(r, BTR_EXTERN_SPACE_ID).unwrap_or(0),
            page: PageNo(be_u32(r, BTR_EXTERN_PAGE_NO).unwrap_or(0)),
            offset: be_u32(r, BTR_EXTERN_OFFSET).unwrap_or(0),
            len: be_u32(r, BTR_EXTERN_LEN.saturating_add(4)).unwrap_or(0),
            flags: r.get(BTR_EXTERN_LEN).copied().unwrap_or(0),
        }
    }
    /// True when the reference is all zeroes after the flags (a value
    /// not written yet, or freed: `btr_copy_externally_stored_field`
    /// treats length 0 as empty).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// A field's value in a record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldValue {
    /// SQL NULL.
    Null,
    /// Stored in the record: page offset and length.
    Inline {
        /// Page offset of the first byte.
        start: u16,
        /// Length.
        len: u16,
    },
    /// Stored off-page: the local prefix in the record, then the reference.
    External {
        /// Page offset of the local prefix.
        start: u16,
        /// Local prefix length (768 in COMPACT, 0 in DYNAMIC).
        local_len: u16,
        /// The reference.
        blob: BlobRef,
    },
    /// Not stored in this record: the column was added (instantly) after
    /// the record was written; its value is the column's instant default.
    Default,
    /// Not stored: the column was dropped at or before this record's row
    /// version.
    Dropped,
}

/// One field of a split record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Field {
    /// Position in the layout.
    pub layout_idx: u16,
    /// The column.
    pub column: usize,
    /// The value.
    pub value: FieldValue,
}

impl Field {
    /// The bytes stored in the record (the local prefix for external
    /// fields), `None` for NULL, default and dropped fields.
    pub fn local<'p>(&self, page: &'p [u8]) -> Option<&'p [u8]> {
        let (start, len) = match self.value {
            FieldValue::Inline { start, len } => (start, len),
            FieldValue::External {
                start, local_len, ..
            } => (start, local_len),
            _ => return None,
        };
        let s = usize::from(start);
        page.get(s..s.checked_add(usize::from(len))?)
    }
}

/// What a split says about the record beyond its fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecordInfo {
    /// Origin.
    pub origin: u16,
    /// Delete-marked.
    pub deleted: bool,
    /// Kind.
    pub rec_type: RecType,
    /// 8.0.29+ row version, when stored.
    pub version: Option<u8>,
    /// 8.0.12–8.0.28 stored field count, when stored.
    pub n_fields_stored: Option<u16>,
    /// Page offset of the record's first header byte.
    pub extra_start: u16,
    /// Page offset past its last data byte.
    pub data_end: u16,
    /// Node pointers: the child page.
    pub child: Option<PageNo>,
}

fn u16_of(n: usize) -> u16 {
    u16::try_from(n).unwrap_or(u16::MAX)
}

/// A split error ([`ErrorKind::Row`]) at page offset `at`.
fn row_err(kind: RowErrorKind, at: usize) -> Error {
    Error::in_page(ErrorKind::Row(kind), None, usize::from(u16_of(at)))
}

/// The record header, NULL bitmap or lengths reach below the records.
fn header_out_of_page(at: usize) -> Error {
    row_err(RowErrorKind::HeaderOutOfPage, at)
}

/// Splits `rec` (a record of `rp`) into its fields per `layout`, into
/// `out` (cleared first). Every length read from the page is checked: a
/// malformed record gives a [`Error`] with the byte offset.
pub fn split(
    rp: &RecPage<'_>,
    rec: &Rec,
    layout: &RecordLayout,
    out: &mut Vec<Field>,
) -> Result<RecordInfo, Error> {
    out.clear();
    let origin = usize::from(rec.origin);
    let err = row_err;
    if rp.is_compressed() {
        return Err(err(RowErrorKind::Compressed, origin));
    }
    let fmt_compact = rp.format() == RecFormat::Compact;
    if fmt_compact != layout.compact {
        return Err(err(RowErrorKind::FormatMismatch, origin));
    }
    let node_ptr = match rec.rec_type {
        RecType::Ordinary => false,
        RecType::NodePtr => true,
        // MariaDB's status 4 needs the core field count, which only the
        // instant metadata gives (the `instant` module).
        RecType::Instant if fmt_compact && layout.n_before_instant.is_some() => false,
        RecType::Instant => return Err(err(RowErrorKind::MariaDbInstant, origin)),
        _ => return Err(err(RowErrorKind::NotUserRecord, origin)),
    };
    let s = Splitter {
        page: rp.bytes(),
        limit: rp.heap_limit(),
        layout,
        node_ptr,
        rec,
    };
    if fmt_compact {
        s.compact(out)
    } else {
        s.redundant(out)
    }
}

/// Which of the layout's fields a record stores, and so which count
/// toward COMPACT's NULL bitmap.
#[derive(Clone, Copy)]
enum Stored {
    /// Every field.
    All,
    /// Those present in this row version (8.0.29+).
    Version(u32),
    /// The first n (instant ADD: 8.0.12–8.0.28, MariaDB, REDUNDANT).
    FirstN(usize),
}

impl Stored {
    /// Whether the record stores field `i` (`f`).
    fn stores(self, i: usize, f: &LayoutField) -> bool {
        match self {
            Stored::All => true,
            Stored::Version(v) => f.in_version(v),
            Stored::FirstN(n) => i < n,
        }
    }

    /// The value of field `i` (`f`) when the record does not store it:
    /// dropped at or before its row version, else the instant default.
    fn absent(self, i: usize, f: &LayoutField) -> Option<FieldValue> {
        match self {
            Stored::Version(v) if f.version_dropped.is_some_and(|d| d <= v) => {
                Some(FieldValue::Dropped)
            }
            Stored::Version(v) if f.version_added > v => Some(FieldValue::Default),
            Stored::FirstN(n) if i >= n => Some(FieldValue::Default),
            _ => None,
        }
    }
}

/// A stored field as its record format's header gives it.
enum Slot {
    /// SQL NULL with no bytes (COMPACT's NULL bitmap).
    Null,
    /// The page bytes `start..end`: SQL NULL (REDUNDANT keeps the bytes of
    /// a NULL fixed-length field), or a value, maybe with an off-page tail.
    Bytes {
        start: usize,
        end: usize,
        null: bool,
        external: bool,
    },
}

/// What a record format contributes to a split: how its header gives a
/// stored field's NULL flag and length.
trait FieldHeader {
    /// Field `i` (`f`) of the record, which stores it.
    fn field(&mut self, i: usize, f: &LayoutField) -> Result<Slot, Error>;
}

/// What the COMPACT and REDUNDANT splits share: the page, the heap's end,
/// the layout, whether the record is a node pointer, and the record.
struct Splitter<'a> {
    page: &'a [u8],
    limit: usize,
    layout: &'a RecordLayout,
    node_ptr: bool,
    /// The record being split.
    rec: &'a Rec,
}

impl Splitter<'_> {
    /// The first `n` layout fields into `out`: the dropped mark or instant
    /// default of a field the record does not store, else the value of
    /// what `header` gives.
    #[inline]
    fn fields(
        &self,
        n: usize,
        stored: Stored,
        header: &mut impl FieldHeader,
        out: &mut Vec<Field>,
    ) -> Result<(), Error> {
        for i in 0..n {
            let Some(f) = self.layout.fields.get(i) else {
                break;
            };
            let idx = u16_of(i);
            let value = match stored.absent(i, f) {
                Some(v) => v,
                None => {
                    let slot = header.field(i, f)?;
                    self.value(f, idx, slot)?
                }
            };
            out.push(Field {
                layout_idx: idx,
                column: f.column,
                value,
            });
        }
        Ok(())
    }

    /// A stored field's value: its bytes must lie below the heap's end; an
    /// off-page tail only where the column can have one (not in a node
    /// pointer); a fixed-length field's length must be the column's.
    #[inline]
    fn value(&self, f: &LayoutField, idx: u16, slot: Slot) -> Result<FieldValue, Error> {
        let (start, end, null, external) = match slot {
            Slot::Null => return Ok(FieldValue::Null),
            Slot::Bytes {
                start,
                end,
                null,
                external,
            } => (start, end, null, external),
        };
        if end < start || end > self.limit {
            return Err(row_err(RowErrorKind::FieldOutOfPage { field: idx }, start));
        }
        let len = end.saturating_sub(start);
        if null {
            Ok(FieldValue::Null)
        } else if external {
            if !f.big || self.node_ptr {
                return Err(row_err(
                    RowErrorKind::UnexpectedExtern { field: idx },
                    start,
                ));
            }
            external_value(self.page, start, len, idx)
        } else {
            if let Some(n) = f.fixed_len {
                if len != n as usize {
                    return Err(row_err(RowErrorKind::LengthMismatch { field: idx }, start));
                }
            }
            Ok(FieldValue::Inline {
                start: u16_of(start),
                len: u16_of(len),
            })
        }
    }
}

/// The bytes of a COMPACT record's header area, below the origin, which
/// must lie in the records (at or above `floor`).
#[derive(Clone, Copy)]
struct HeaderBytes<'p> {
    page: &'p [u8],
    floor: usize,
    /// The page offset a header byte out of the records is reported at.
    bad: usize,
}

impl HeaderBytes<'_> {
    /// The header byte at `at`.
    #[inline]
    fn at(&self, at: usize) -> Result<u8, Error> {
        if at < self.floor {
            return Err(header_out_of_page(self.bad));
        }
        self.page
            .get(at)
            .copied()
            .ok_or_else(|| header_out_of_page(self.bad))
    }
}

/// COMPACT's header below the origin: the NULL bitmap (bit 0 of the
/// highest byte first, bytes going down), then the lengths of the non-NULL
/// variable-length fields, going down.
struct CompactHeader<'p> {
    bytes: HeaderBytes<'p>,
    origin: usize,
    null_byte: usize,
    null_bit: u32,
    /// The next length byte.
    lens: usize,
    /// Data bytes of the fields read so far.
    offs: usize,
}

impl FieldHeader for CompactHeader<'_> {
    /// The NULL bit of a nullable field; the length of a variable-length
    /// one (1 byte, or 2 for a `DATA_BIG_COL` with 0x80: 0x40 off-page).
    #[inline]
    fn field(&mut self, _i: usize, f: &LayoutField) -> Result<Slot, Error> {
        let bad_at = self.bytes.bad;
        let bad_header = move || header_out_of_page(bad_at);
        if f.nullable {
            if self.null_bit == 8 {
                self.null_byte = self.null_byte.checked_sub(1).ok_or_else(bad_header)?;
                self.null_bit = 0;
            }
            let b = self.bytes.at(self.null_byte)?;
            let is_null = b & (1u8 << self.null_bit) != 0;
            self.null_bit = self.null_bit.saturating_add(1);
            if is_null {
                return Ok(Slot::Null);
            }
        }
        let start = self.origin.checked_add(self.offs).ok_or_else(bad_header)?;
        let (len, external) = match f.fixed_len {
            Some(n) => (n as usize, false),
            None => {
                let b1 = self.bytes.at(self.lens)?;
                self.lens = self.lens.checked_sub(1).ok_or_else(bad_header)?;
                if f.big && b1 & 0x80 != 0 {
                    let b2 = self.bytes.at(self.lens)?;
                    self.lens = self.lens.checked_sub(1).ok_or_else(bad_header)?;
                    let v = (usize::from(b1) << 8) | usize::from(b2);
                    (v & 0x3FFF, v & 0x4000 != 0)
                } else {
                    (usize::from(b1), false)
                }
            }
        };
        self.offs = self.offs.checked_add(len).ok_or_else(bad_header)?;
        let end = self.origin.checked_add(self.offs).ok_or_else(bad_header)?;
        Ok(Slot::Bytes {
            start,
            end,
            null: false,
            external,
        })
    }
}

/// What a COMPACT record's header says about its stored fields, read
/// below the 5 fixed bytes (`nulls` moves past it): MariaDB's added field
/// count (status 4), the 8.0.29+ row version or the 8.0.12–8.0.28 field
/// count; otherwise the layout's instant or versioned default. Gives the
/// stored fields, the row version and the stored field count.
fn compact_stored(
    rec: &Rec,
    layout: &RecordLayout,
    node_ptr: bool,
    bytes: HeaderBytes<'_>,
    nulls: &mut usize,
) -> Result<(Stored, Option<u8>, Option<u16>), Error> {
    let bad_at = bytes.bad;
    let bad_header = move || header_out_of_page(bad_at);
    let origin = usize::from(rec.origin);
    let info = rec.header.info_bits;
    let n_layout = layout.fields.len();
    let too_many = |stated: u16| {
        row_err(
            RowErrorKind::TooManyFields {
                stated,
                layout: u16_of(n_layout),
            },
            origin,
        )
    };
    if node_ptr {
        Ok((Stored::All, None, None))
    } else if rec.rec_type == RecType::Instant {
        // MariaDB REC_STATUS_INSTANT (rem0rec.cc rec_get_n_add_field): the
        // fields added past the core ones, minus one, in one byte below 0x80
        // or two (low 7 bits first); the record stores n_core + 1 + that.
        let n_core = layout.n_before_instant.unwrap_or(n_layout);
        let b1 = bytes.at(*nulls)?;
        let n_add = if b1 < 0x80 {
            *nulls = nulls.checked_sub(1).ok_or_else(bad_header)?;
            usize::from(b1)
        } else {
            let b2 = bytes.at(nulls.checked_sub(1).ok_or_else(bad_header)?)?;
            *nulls = nulls.checked_sub(2).ok_or_else(bad_header)?;
            usize::from(b1 & 0x7F) | (usize::from(b2) << 7)
        };
        let n = n_core.saturating_add(1).saturating_add(n_add);
        if n > n_layout {
            return Err(too_many(u16_of(n)));
        }
        Ok((Stored::FirstN(n), None, Some(u16_of(n))))
    } else if info & REC_INFO_VERSION_FLAG != 0 {
        let v = bytes.at(*nulls)?;
        *nulls = nulls.checked_sub(1).ok_or_else(bad_header)?;
        Ok((Stored::Version(u32::from(v)), Some(v), None))
    } else if info & REC_INFO_INSTANT_FLAG != 0 {
        let b1 = bytes.at(*nulls)?;
        let n = if b1 & REC_N_FIELDS_TWO_BYTES_FLAG == 0 {
            *nulls = nulls.checked_sub(1).ok_or_else(bad_header)?;
            u16::from(b1)
        } else {
            let b2 = bytes.at(nulls.checked_sub(1).ok_or_else(bad_header)?)?;
            *nulls = nulls.checked_sub(2).ok_or_else(bad_header)?;
            (u16::from(b1 & REC_N_FIELDS_ONE_BYTE_MAX) << 8) | u16::from(b2)
        };
        if usize::from(n) > n_layout {
            return Err(too_many(n));
        }
        Ok((Stored::FirstN(usize::from(n)), None, Some(n)))
    } else if let Some(k) = layout.n_before_instant {
        Ok((Stored::FirstN(k), None, None))
    } else if layout.row_versions {
        Ok((Stored::Version(0), None, None))
    } else {
        Ok((Stored::All, None, None))
    }
}

impl Splitter<'_> {
    /// COMPACT, DYNAMIC and COMPRESSED: the header's stored-field count or
    /// row version, the NULL bitmap and lengths below it (`CompactHeader`),
    /// and a node pointer's child page after the fields.
    fn compact(&self, out: &mut Vec<Field>) -> Result<RecordInfo, Error> {
        let (page, layout, node_ptr, rec) = (self.page, self.layout, self.node_ptr, self.rec);
        let origin = usize::from(rec.origin);
        let bad_header = move || header_out_of_page(origin);
        let bytes = HeaderBytes {
            page,
            floor: RecFormat::Compact.supremum_end(),
            bad: origin,
        };
        let mut nulls = origin
            .checked_sub(REC_N_NEW_EXTRA_BYTES + 1)
            .ok_or_else(bad_header)?;
        let n_layout = layout.fields.len();
        let (stored, version, n_stored) = compact_stored(rec, layout, node_ptr, bytes, &mut nulls)?;
        let n_fields = if node_ptr {
            layout.n_unique.min(n_layout)
        } else {
            n_layout
        };
        let n_null = if node_ptr {
            // rec_init_offsets: the bitmap of a node pointer is sized by the
            // index's nullable fields (before any instant column).
            let upto = layout.n_before_instant.unwrap_or(n_layout);
            layout
                .fields
                .iter()
                .take(upto)
                .filter(|f| f.nullable && (!layout.row_versions || f.in_version(0)))
                .count()
        } else {
            (0..n_layout)
                .filter(|&i| {
                    layout
                        .fields
                        .get(i)
                        .is_some_and(|f| stored.stores(i, f) && f.nullable)
                })
                .count()
        };
        let null_bytes = n_null.div_ceil(8);
        let lens = nulls.checked_sub(null_bytes).ok_or_else(bad_header)?;
        if null_bytes > 0 {
            bytes.at(lens.checked_add(1).ok_or_else(bad_header)?)?;
        }
        let mut header = CompactHeader {
            bytes,
            origin,
            null_byte: nulls,
            null_bit: 0,
            lens,
            offs: 0,
        };
        self.fields(n_fields, stored, &mut header, out)?;
        let mut offs = header.offs;
        let mut child = None;
        if node_ptr {
            let at = origin.checked_add(offs).ok_or_else(bad_header)?;
            let end = at.checked_add(REC_NODE_PTR_SIZE).ok_or_else(bad_header)?;
            if end > self.limit {
                return Err(row_err(
                    RowErrorKind::FieldOutOfPage {
                        field: u16_of(n_fields),
                    },
                    at,
                ));
            }
            child = be_u32(page, at).map(PageNo);
            offs = offs.saturating_add(REC_NODE_PTR_SIZE);
        }
        Ok(RecordInfo {
            origin: rec.origin,
            deleted: rec.header.is_deleted(),
            rec_type: rec.rec_type,
            version,
            n_fields_stored: n_stored,
            extra_start: u16_of(header.lens.saturating_add(1)),
            data_end: u16_of(origin.saturating_add(offs)),
            child,
        })
    }
}

/// One field of a [`CompactPlan`]: what [`LayoutField`] says of it that
/// a split reads, packed.
#[derive(Clone, Copy, Debug)]
struct PlanField {
    column: usize,
    /// Its position in the layout.
    layout_idx: u16,
    /// The stored length when fixed, else 0.
    fixed: u16,
    nullable: bool,
    big: bool,
}

/// How a COMPACT-family leaf record of a layout without instant columns
/// or row versions is split, worked out once per layout: the NULL
/// bitmap's size (every nullable field of the layout counts) and each
/// field's length rule, so that [`split_planned`] reads a record's header
/// bytes and nothing else. The same fields, values and errors as
/// [`split`], which any other record goes through.
#[derive(Clone, Debug)]
pub(crate) struct CompactPlan {
    fields: Vec<PlanField>,
    null_bytes: usize,
    /// The leading fields that are NOT NULL and fixed-length (the
    /// primary key's fixed columns, DB_TRX_ID, DB_ROLL_PTR): at the same
    /// offsets from the origin in every record, `lead_len` bytes in all.
    lead: usize,
    lead_len: usize,
}

impl CompactPlan {
    /// The plan of `layout`, or `None` when its records need the header's
    /// field count or row version (instant ADD, row versions), are
    /// REDUNDANT, or a fixed length does not fit a page offset.
    pub(crate) fn of(layout: &RecordLayout) -> Option<CompactPlan> {
        if !layout.compact || layout.row_versions || layout.n_before_instant.is_some() {
            return None;
        }
        let fields = (layout.fields.iter().enumerate())
            .map(|(i, f)| {
                let fixed = match f.fixed_len {
                    Some(n) => u16::try_from(n).ok().filter(|&n| n > 0)?,
                    None => 0,
                };
                Some(PlanField {
                    column: f.column,
                    layout_idx: u16_of(i),
                    fixed,
                    nullable: f.nullable,
                    big: f.big,
                })
            })
            .collect::<Option<Vec<_>>>()?;
        let n_null = fields.iter().filter(|f| f.nullable).count();
        let lead = (fields.iter())
            .take_while(|f| f.fixed != 0 && !f.nullable)
            .count();
        let lead_len =
            (fields.iter().take(lead)).fold(0usize, |a, f| a.saturating_add(usize::from(f.fixed)));
        Some(CompactPlan {
            fields,
            null_bytes: n_null.div_ceil(8),
            lead,
            lead_len,
        })
    }
}

impl CompactPlan {
    /// The plan for the records of `rp` with the page's heap limit, or
    /// `None` when the page is not one it splits (ROW_FORMAT=COMPRESSED as
    /// stored, REDUNDANT): once a page, for [`split_planned`].
    #[inline]
    pub(crate) fn on_page(&self, rp: &RecPage<'_>) -> Option<(&CompactPlan, usize)> {
        (!rp.is_compressed() && rp.format() == RecFormat::Compact).then(|| (self, rp.heap_limit()))
    }
}

/// [`split`] of `rec` with `plan` ([`CompactPlan::on_page`] of `rp`, the
/// plan of `layout`) when the record is one it fits: an ordinary record
/// whose header names no field count or row version. Otherwise, or
/// without a plan, [`split`] itself.
#[inline]
pub(crate) fn split_planned(
    rp: &RecPage<'_>,
    rec: &Rec,
    layout: &RecordLayout,
    plan: Option<(&CompactPlan, usize)>,
    out: &mut Vec<Field>,
) -> Result<RecordInfo, Error> {
    let flags = REC_INFO_VERSION_FLAG | REC_INFO_INSTANT_FLAG;
    match plan {
        Some((plan, limit))
            if rec.rec_type == RecType::Ordinary && rec.header.info_bits & flags == 0 =>
        {
            split_compact_planned(rp.bytes(), limit, rec, plan, out)
        }
        _ => split(rp, rec, layout, out),
    }
}

/// The body of [`split_planned`]: [`Splitter::compact`] of a leaf record
/// storing every field, with the plan's NULL bitmap size and lengths.
/// The fields are written over the previous record's in place (`out`
/// keeps one slot per field of the plan between records: no push, no
/// value built aside and moved); on an error `out` keeps the fields
/// before the one that failed, as [`split`] leaves them.
#[inline]
fn split_compact_planned(
    page: &[u8],
    limit: usize,
    rec: &Rec,
    plan: &CompactPlan,
    out: &mut Vec<Field>,
) -> Result<RecordInfo, Error> {
    let n = plan.fields.len();
    if out.len() != n {
        out.clear();
        out.resize(
            n,
            Field {
                layout_idx: 0,
                column: 0,
                value: FieldValue::Null,
            },
        );
    }
    let mut done = 0usize;
    let r = planned_fields(page, limit, rec, plan, out, &mut done);
    if r.is_err() {
        out.truncate(done);
    }
    r
}

/// [`split_compact_planned`]'s walk over the fields: each written into
/// its slot of `out` (as long as the plan), `done` the fields written.
#[inline]
fn planned_fields(
    page: &[u8],
    limit: usize,
    rec: &Rec,
    plan: &CompactPlan,
    out: &mut [Field],
    done: &mut usize,
) -> Result<RecordInfo, Error> {
    let origin = usize::from(rec.origin);
    let bad_header = move || header_out_of_page(origin);
    let bytes = HeaderBytes {
        page,
        floor: RecFormat::Compact.supremum_end(),
        bad: origin,
    };
    let nulls = origin
        .checked_sub(REC_N_NEW_EXTRA_BYTES + 1)
        .ok_or_else(bad_header)?;
    let mut lens = nulls.checked_sub(plan.null_bytes).ok_or_else(bad_header)?;
    if plan.null_bytes > 0 {
        bytes.at(lens.checked_add(1).ok_or_else(bad_header)?)?;
    }
    let (mut null_byte, mut null_bit) = (nulls, 0u32);
    let mut offs = 0usize;
    // The leading fixed NOT NULL fields at their offsets, with one check
    // that they end within the heap; when they do not, the loop below
    // finds the first that does not, as it does any other.
    let mut from = 0usize;
    if origin.saturating_add(plan.lead_len) <= limit {
        for (slot, f) in out.iter_mut().zip(&plan.fields).take(plan.lead) {
            // Below `limit`, a page offset.
            *slot = Field {
                layout_idx: f.layout_idx,
                column: f.column,
                value: FieldValue::Inline {
                    start: u16_of(origin.saturating_add(offs)),
                    len: f.fixed,
                },
            };
            offs = offs.saturating_add(usize::from(f.fixed));
        }
        from = plan.lead;
        *done = plan.lead;
    }
    let slots = out.get_mut(from..).unwrap_or_default();
    let rest = slots
        .iter_mut()
        .zip(plan.fields.get(from..).unwrap_or_default());
    for (slot, f) in rest {
        let idx = f.layout_idx;
        if f.nullable {
            if null_bit == 8 {
                null_byte = null_byte.checked_sub(1).ok_or_else(bad_header)?;
                null_bit = 0;
            }
            let b = bytes.at(null_byte)?;
            let is_null = b & (1u8 << null_bit) != 0;
            null_bit = null_bit.saturating_add(1);
            if is_null {
                *slot = Field {
                    layout_idx: idx,
                    column: f.column,
                    value: FieldValue::Null,
                };
                *done = done.saturating_add(1);
                continue;
            }
        }
        let start = origin.checked_add(offs).ok_or_else(bad_header)?;
        let (len, external) = if f.fixed != 0 {
            (usize::from(f.fixed), false)
        } else {
            let b1 = bytes.at(lens)?;
            lens = lens.checked_sub(1).ok_or_else(bad_header)?;
            if f.big && b1 & 0x80 != 0 {
                let b2 = bytes.at(lens)?;
                lens = lens.checked_sub(1).ok_or_else(bad_header)?;
                let v = (usize::from(b1) << 8) | usize::from(b2);
                (v & 0x3FFF, v & 0x4000 != 0)
            } else {
                (usize::from(b1), false)
            }
        };
        offs = offs.checked_add(len).ok_or_else(bad_header)?;
        let end = origin.checked_add(offs).ok_or_else(bad_header)?;
        if end > limit {
            return Err(row_err(RowErrorKind::FieldOutOfPage { field: idx }, start));
        }
        slot.layout_idx = idx;
        slot.column = f.column;
        if external {
            if !f.big {
                return Err(row_err(
                    RowErrorKind::UnexpectedExtern { field: idx },
                    start,
                ));
            }
            slot.value = external_value(page, start, len, idx)?;
        } else {
            // Both fit a page offset: `end` is within the page.
            slot.value = FieldValue::Inline {
                start: u16_of(start),
                len: u16_of(len),
            };
        }
        *done = done.saturating_add(1);
    }
    Ok(RecordInfo {
        origin: rec.origin,
        deleted: rec.header.is_deleted(),
        rec_type: rec.rec_type,
        version: None,
        n_fields_stored: None,
        extra_start: u16_of(lens.saturating_add(1)),
        data_end: u16_of(origin.saturating_add(offs)),
        child: None,
    })
}

fn external_value(page: &[u8], start: usize, len: usize, idx: u16) -> Result<FieldValue, Error> {
    let short = || row_err(RowErrorKind::ExternTooShort { field: idx }, start);
    let local = len
        .checked_sub(BTR_EXTERN_FIELD_REF_SIZE)
        .ok_or_else(short)?;
    let r = start.checked_add(local).ok_or_else(short)?;
    let bytes: &[u8; BTR_EXTERN_FIELD_REF_SIZE] = page
        .get(r..r.saturating_add(BTR_EXTERN_FIELD_REF_SIZE))
        .and_then(|s| s.try_into().ok())
        .ok_or_else(short)?;
    Ok(FieldValue::External {
        start: u16_of(start),
        local_len: u16_of(local),
        blob: BlobRef::read(bytes),
    })
}

/// REDUNDANT's header: each field's end offset from the origin (1 or 2
/// bytes) with its NULL and off-page flags (`Rec::field`).
struct RedundantHeader<'p> {
    page: &'p [u8],
    rec: &'p Rec,
    origin: usize,
    /// The furthest field end seen.
    data_end: usize,
}

impl FieldHeader for RedundantHeader<'_> {
    /// The field's bytes from the previous field's end to its own.
    #[inline]
    fn field(&mut self, i: usize, _f: &LayoutField) -> Result<Slot, Error> {
        let rf = self
            .rec
            .field(self.page, u16_of(i))
            .ok_or_else(|| row_err(RowErrorKind::HeaderOutOfPage, self.origin))?;
        let start = self.origin.saturating_add(usize::from(rf.start));
        let end = self.origin.saturating_add(usize::from(rf.end));
        self.data_end = self.data_end.max(end);
        Ok(Slot::Bytes {
            start,
            end,
            null: rf.null,
            external: rf.external,
        })
    }
}

impl Splitter<'_> {
    /// REDUNDANT: each field's end offset (`RedundantHeader`); fields past
    /// the record's count take their instant defaults.
    fn redundant(&self, out: &mut Vec<Field>) -> Result<RecordInfo, Error> {
        let (page, layout, node_ptr, rec) = (self.page, self.layout, self.node_ptr, self.rec);
        let origin = usize::from(rec.origin);
        let err = row_err;
        if rec.header.is_versioned() {
            return Err(err(RowErrorKind::RedundantVersion, origin));
        }
        let extra = rec.header.extra_size();
        let extra_start = origin
            .checked_sub(extra)
            .filter(|&s| s >= RecFormat::Redundant.supremum_end())
            .ok_or(err(RowErrorKind::HeaderOutOfPage, origin))?;
        let n_rec = usize::from(rec.header.n_fields);
        let n_layout = layout.fields.len();
        let want = if node_ptr {
            layout.n_unique.min(n_layout).saturating_add(1)
        } else {
            n_layout
        };
        if n_rec > want {
            return Err(err(
                RowErrorKind::TooManyFields {
                    stated: rec.header.n_fields,
                    layout: u16_of(want),
                },
                origin,
            ));
        }
        let n_data = if node_ptr {
            want.saturating_sub(1)
        } else {
            n_layout
        };
        let mut header = RedundantHeader {
            page,
            rec,
            origin,
            data_end: origin,
        };
        // Instant ADD on REDUNDANT: fields past the record's count take
        // their defaults (rec_init_offsets, rec_get_instant_offset).
        self.fields(n_data, Stored::FirstN(n_rec), &mut header, out)?;
        let mut data_end = header.data_end;
        let child = if node_ptr { rec.child_page(page) } else { None };
        if let Some(d) = rec.data_size(page) {
            data_end = data_end.max(origin.saturating_add(usize::from(d)));
        }
        Ok(RecordInfo {
            origin: rec.origin,
            deleted: rec.header.is_deleted(),
            rec_type: rec.rec_type,
            version: None,
            n_fields_stored: Some(rec.header.n_fields),
            extra_start: u16_of(extra_start),
            data_end: u16_of(data_end),
            child,
        })
    }
}

/// True when every data byte of a split record (origin to
/// [`RecordInfo::data_end`]) is zero and there is at least one: MariaDB
/// 10.6+ zero-fills the data of the records purge frees (`page_mem_free`),
/// keeping their headers, so such a record on a free list holds no values
/// (its NULL bits and lengths survive; its fields would read as zeroes).
pub fn data_is_zero(page: &[u8], info: &RecordInfo) -> bool {
    let (a, b) = (usize::from(info.origin), usize::from(info.data_end));
    page.get(a..b)
        .is_some_and(|d| !d.is_empty() && d.iter().all(|&x| x == 0))
}

/// An off-page read error ([`ErrorKind::Lob`]) on page `page` at byte
/// `offset`.
fn lob_err(kind: LobErrorKind, page: PageNo, offset: usize) -> Error {
    Error::in_page(
        ErrorKind::Lob(kind),
        Some(page),
        usize::from(u16_of(offset)),
    )
}

/// How an off-page read ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum LobRead {
    /// All the reference's bytes were appended.
    Complete,
    /// Stopped at the caller's cap.
    Capped,
}

/// Appends the off-page bytes of `blob` to `out`, at most `cap` bytes.
/// Bounded before it starts: at most one visit per page of the file, and
/// per 8.0 LOB at most one entry per 60 bytes of the file.
pub fn read_external(
    ts: &Tablespace<'_>,
    blob: &BlobRef,
    cap: usize,
    out: &mut Vec<u8>,
) -> Result<LobRead, Error> {
    let want = (blob.len as usize).min(cap);
    let page = ts
        .page(blob.page)
        .ok_or_else(|| lob_err(LobErrorKind::PastFile, blob.page, 0))?;
    let t = FilHeader::new(page).map_or(PageType(0), |h| h.page_type());
    let start = out.len();
    match t {
        t if old_blob_page(ts, t) => read_blob_chain(ts, blob, want, out)?,
        PageType::FIL_PAGE_TYPE_LOB_FIRST => read_lob(ts, blob, page, want, out)?,
        PageType::FIL_PAGE_TYPE_ZBLOB => read_zblob_chain(ts, blob, want, out)?,
        PageType::FIL_PAGE_TYPE_ZLOB_FIRST => {
            return Err(lob_err(LobErrorKind::Compressed(t), blob.page, 24));
        }
        other => {
            return Err(lob_err(LobErrorKind::BadPageType(other), blob.page, 24));
        }
    }
    let got = out.len().saturating_sub(start);
    if got < want {
        return Err(lob_err(
            LobErrorKind::Short {
                stated: blob.len,
                found: u32::try_from(got).unwrap_or(u32::MAX),
            },
            blob.page,
            0,
        ));
    }
    Ok(if want < blob.len as usize {
        LobRead::Capped
    } else {
        LobRead::Complete
    })
}

/// A page type an old BLOB chain may carry: BLOB or SDI_BLOB, and on a
/// space without atomic blobs also 0 (FIL_PAGE_TYPE_ALLOCATED): InnoDB
/// before 5.1 did not set the type of BLOB pages, and the server accepts
/// any type there (`btr_check_blob_fil_page_type`, mysql-server 8.0
/// `lob0lob.cc`, 5.6 `btr0cur.cc`: only `DICT_TF_HAS_ATOMIC_BLOBS` spaces
/// insist). Only 0 is taken here, what those versions left.
fn old_blob_page(ts: &Tablespace<'_>, t: PageType) -> bool {
    matches!(
        t,
        PageType::FIL_PAGE_TYPE_BLOB | PageType::FIL_PAGE_SDI_BLOB
    ) || (t == PageType::FIL_PAGE_TYPE_ALLOCATED && !ts.format().atomic_blobs)
}

/// The pages (or LOB index entries) a chain walk has read: a pointer to
/// one of them is a loop. Allocates only once a chain has a second step.
#[derive(Default)]
struct Seen(std::collections::HashSet<u64>);

impl Seen {
    /// Adds `key`; false if it was there already.
    fn first(&mut self, key: u64) -> bool {
        self.0.insert(key)
    }
}

fn read_blob_chain(
    ts: &Tablespace<'_>,
    blob: &BlobRef,
    want: usize,
    out: &mut Vec<u8>,
) -> Result<(), Error> {
    let mut page_no = blob.page;
    let mut hdr = blob.offset as usize;
    let mut room = want;
    let mut seen = Seen::default();
    let mut prev = page_no;
    for _ in 0..ts.n_pages() {
        let fail = |kind, offset: usize| lob_err(kind, page_no, offset);
        if !seen.first(u64::from(page_no.0)) {
            return Err(fail(LobErrorKind::Loop { from: prev }, hdr));
        }
        let page = ts
            .page(page_no)
            .ok_or_else(|| fail(LobErrorKind::PastFile, 0))?;
        let t = FilHeader::new(page).map_or(PageType(0), |h| h.page_type());
        if !old_blob_page(ts, t) {
            return Err(fail(LobErrorKind::BadPageType(t), 24));
        }
        let part = be_u32(page, hdr.saturating_add(LOB_HDR_PART_LEN))
            .ok_or_else(|| fail(LobErrorKind::OutOfPage, hdr))? as usize;
        let next = be_u32(page, hdr.saturating_add(LOB_HDR_NEXT_PAGE_NO))
            .ok_or_else(|| fail(LobErrorKind::OutOfPage, hdr))?;
        let from = hdr.saturating_add(LOB_HDR_SIZE);
        let bytes = page
            .get(from..from.saturating_add(part))
            .ok_or_else(|| fail(LobErrorKind::OutOfPage, hdr))?;
        let take = room.min(bytes.len());
        out.extend_from_slice(bytes.get(..take).unwrap_or(&[]));
        room = room.saturating_sub(take);
        if next == FIL_NULL || room == 0 {
            return Ok(());
        }
        prev = page_no;
        page_no = PageNo(next);
        hdr = FIL_PAGE_DATA;
    }
    Err(lob_err(LobErrorKind::TooLong, page_no, 0))
}

/// A ROW_FORMAT=COMPRESSED table's off-page value before MySQL 8.0
/// (`btr_copy_zblob_prefix` in 5.6/5.7 `btr0cur.cc` and MariaDB
/// `btr0cur.cc`): one zlib stream over a chain of pages, the first of type
/// ZBLOB, the others ZBLOB2. On each page the next page number is at the
/// reference's offset (FIL_PAGE_NEXT, 12; FIL_NULL ends) and the stream
/// continues from FIL_PAGE_DATA (38) to the page's end. The stream's
/// output is the value (the reference's length). Bounded: one visit per
/// page of the file; the compressed bytes are gathered into a buffer
/// allocated per value. Untested on real data: no fixture or corpus file
/// has one (the unit test builds a chain by hand from the layout above).
fn read_zblob_chain(
    ts: &Tablespace<'_>,
    blob: &BlobRef,
    want: usize,
    out: &mut Vec<u8>,
) -> Result<(), Error> {
    let mut z = Vec::new();
    let mut page_no = blob.page;
    let mut at = blob.offset as usize;
    let mut expect = PageType::FIL_PAGE_TYPE_ZBLOB;
    let mut ended = false;
    let mut seen = Seen::default();
    let mut prev = page_no;
    for _ in 0..ts.n_pages() {
        let fail = |kind, offset: usize| lob_err(kind, page_no, offset);
        if !seen.first(u64::from(page_no.0)) {
            return Err(fail(LobErrorKind::Loop { from: prev }, at));
        }
        let page = ts
            .page(page_no)
            .ok_or_else(|| fail(LobErrorKind::PastFile, 0))?;
        let t = FilHeader::new(page).map_or(PageType(0), |h| h.page_type());
        if t != expect {
            return Err(fail(LobErrorKind::BadPageType(t), 24));
        }
        let next = be_u32(page, at).ok_or_else(|| fail(LobErrorKind::OutOfPage, at))?;
        let from = if at == ibdscope_core::fil::FIL_PAGE_NEXT {
            FIL_PAGE_DATA
        } else {
            at.saturating_add(4)
        };
        z.extend_from_slice(
            page.get(from..)
                .ok_or_else(|| fail(LobErrorKind::OutOfPage, from))?,
        );
        if next == FIL_NULL {
            ended = true;
            break;
        }
        prev = page_no;
        page_no = PageNo(next);
        at = ibdscope_core::fil::FIL_PAGE_NEXT;
        expect = PageType::FIL_PAGE_TYPE_ZBLOB2;
    }
    if !ended {
        return Err(lob_err(LobErrorKind::TooLong, page_no, 0));
    }
    // Room for one more stored block or match than wanted: an output limit
    // error then means at least `want` bytes were produced.
    let start = out.len();
    let limit = want.saturating_add(usize::from(u16::MAX));
    match ibdscope_codec::inflate::inflate_zlib(&z, out, limit) {
        Ok(_) => {}
        Err(e) if out.len().saturating_sub(start) >= want => {
            let _ = e;
        }
        Err(e) => {
            let kind = match e.kind {
                ibdscope_codec::ErrorKind::Inflate(k) => k,
                _ => ibdscope_codec::inflate::InflateErrorKind::BadCode,
            };
            return Err(lob_err(LobErrorKind::Inflate(kind), blob.page, e.offset));
        }
    }
    out.truncate(start.saturating_add(want));
    Ok(())
}

/// A file address (page, byte offset), FIL_NULL page = none.
fn fil_addr(page: &[u8], at: usize) -> Option<(u32, usize)> {
    Some((
        be_u32(page, at)?,
        usize::from(be_u16(page, at.checked_add(4)?)?),
    ))
}

fn read_lob(
    ts: &Tablespace<'_>,
    blob: &BlobRef,
    first: &[u8],
    want: usize,
    out: &mut Vec<u8>,
) -> Result<(), Error> {
    let first_no = blob.page;
    let fail = |kind, page: PageNo, offset: usize| lob_err(kind, page, offset);
    let ref_version = blob.offset;
    let bound = (ts.n_pages() as usize)
        .saturating_mul(ts.page_size() as usize / LOB_INDEX_ENTRY_SIZE)
        .max(1);
    let entry = |addr: (u32, usize)| -> Result<&[u8], Error> {
        let p = ts
            .page(PageNo(addr.0))
            .ok_or_else(|| fail(LobErrorKind::PastFile, PageNo(addr.0), 0))?;
        p.get(addr.1..addr.1.saturating_add(LOB_INDEX_ENTRY_SIZE))
            .ok_or_else(|| fail(LobErrorKind::OutOfPage, PageNo(addr.0), addr.1))
    };
    let mut addr =
        fil_addr(first, LOB_FIRST_OFFSET_INDEX_LIST.saturating_add(4)).ok_or_else(|| {
            fail(
                LobErrorKind::OutOfPage,
                first_no,
                LOB_FIRST_OFFSET_INDEX_LIST,
            )
        })?;
    let mut room = want;
    let mut steps = 0usize;
    // Entries read, by file address: a `next` back to one is a loop. The
    // versions lists hang off the index list's entries, so one set serves
    // both (an entry on two lists is a loop too).
    let mut seen = Seen::default();
    let key = |a: (u32, usize)| u64::from(a.0) << 16 | (a.1 as u64 & 0xFFFF);
    let mut prev = first_no;
    while addr.0 != FIL_NULL && room > 0 {
        steps = steps.saturating_add(1);
        if steps > bound {
            return Err(fail(LobErrorKind::TooLong, PageNo(addr.0), addr.1));
        }
        if !seen.first(key(addr)) {
            return Err(fail(
                LobErrorKind::Loop { from: prev },
                PageNo(addr.0),
                addr.1,
            ));
        }
        let cur = entry(addr)?;
        let next = fil_addr(cur, ENTRY_NEXT).unwrap_or((FIL_NULL, 0));
        // The version of this entry the reference sees.
        let mut e = cur;
        if be_u32(cur, ENTRY_LOB_VERSION).unwrap_or(0) > ref_version {
            let mut v = fil_addr(cur, ENTRY_VERSIONS.saturating_add(4)).unwrap_or((FIL_NULL, 0));
            let mut found = None;
            let mut v_from = PageNo(addr.0);
            while v.0 != FIL_NULL {
                steps = steps.saturating_add(1);
                if steps > bound {
                    return Err(fail(LobErrorKind::TooLong, PageNo(v.0), v.1));
                }
                if !seen.first(key(v)) {
                    return Err(fail(LobErrorKind::Loop { from: v_from }, PageNo(v.0), v.1));
                }
                let old = entry(v)?;
                if be_u32(old, ENTRY_LOB_VERSION).unwrap_or(0) <= ref_version {
                    found = Some(old);
                    break;
                }
                v_from = PageNo(v.0);
                v = fil_addr(old, ENTRY_NEXT).unwrap_or((FIL_NULL, 0));
            }
            e = found.ok_or_else(|| fail(LobErrorKind::NoVersion, PageNo(addr.0), addr.1))?;
        }
        let data_page = PageNo(be_u32(e, ENTRY_PAGE_NO).unwrap_or(FIL_NULL));
        // lob0index.h get_data_len: 2 bytes, though 4 are reserved.
        let data_len = usize::from(be_u16(e, ENTRY_DATA_LEN).unwrap_or(0));
        let p = ts
            .page(data_page)
            .ok_or_else(|| fail(LobErrorKind::PastFile, data_page, 0))?;
        let from = if data_page == first_no {
            LOB_FIRST_DATA_BEGIN
        } else {
            let t = FilHeader::new(p).map_or(PageType(0), |h| h.page_type());
            if t != PageType::FIL_PAGE_TYPE_LOB_DATA {
                return Err(fail(LobErrorKind::BadPageType(t), data_page, 24));
            }
            LOB_DATA_PAGE_DATA
        };
        let bytes = p
            .get(from..from.saturating_add(data_len))
            .ok_or_else(|| fail(LobErrorKind::OutOfPage, data_page, from))?;
        let take = room.min(bytes.len());
        out.extend_from_slice(bytes.get(..take).unwrap_or(&[]));
        room = room.saturating_sub(take);
        prev = PageNo(addr.0);
        addr = next;
    }
    Ok(())
}

/// Reads a whole value: the local bytes of `field` and, for an external
/// field, its off-page bytes, into `out` (cleared first), at most `cap`
/// bytes off-page. `None` for NULL, default and dropped fields.
pub fn field_bytes(
    ts: &Tablespace<'_>,
    page: &[u8],
    field: &Field,
    cap: usize,
    out: &mut Vec<u8>,
) -> Option<Result<LobRead, Error>> {
    out.clear();
    out.extend_from_slice(field.local(page)?);
    match field.value {
        FieldValue::External { blob, .. } => Some(read_external(ts, &blob, cap, out)),
        _ => Some(Ok(LobRead::Complete)),
    }
}

#[cfg(test)]
#[allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::arithmetic_side_effects
)]
mod tests {
    use super::*;
    use crate::table::{LayoutField, RecordLayout};

    fn lf(column: usize, fixed: Option<u32>, nullable: bool, big: bool) -> LayoutField {
        LayoutField {
            column,
            fixed_len: fixed,
            nullable,
            big,
            version_added: 0,
            version_dropped: None,
            prefix_len: None,
            instant_default: false,
        }
    }

    fn layout(fields: Vec<LayoutField>) -> RecordLayout {
        RecordLayout {
            fields,
            compact: true,
            clustered: true,
            row_versions: false,
            n_before_instant: None,
            n_unique: 1,
        }
    }

    /// A 16K COMPACT leaf page with one user record at 200 whose bytes
    /// before the 5-byte header are `pre` (lowest address first) and data
    /// `data`.
    fn page_with(info: u8, pre: &[u8], data: &[u8]) -> (Vec<u8>, u16) {
        let mut p = vec![0u8; 16384];
        p[24..26].copy_from_slice(&0x45BFu16.to_be_bytes());
        // PAGE_N_HEAP with the compact bit, 3 records; heap top.
        p[38 + 4..38 + 6].copy_from_slice(&(0x8000u16 | 3).to_be_bytes());
        p[38..40].copy_from_slice(&2u16.to_be_bytes());
        p[38 + 2..38 + 4].copy_from_slice(&2000u16.to_be_bytes());
        let origin = 200usize;
        let hdr = origin - 5;
        p[hdr - pre.len()..hdr].copy_from_slice(pre);
        p[hdr] = info;
        p[hdr + 1..hdr + 3].copy_from_slice(&(2u16 << 3).to_be_bytes());
        p[origin..origin + data.len()].copy_from_slice(data);
        (p, origin as u16)
    }

    fn split_one(
        p: &[u8],
        origin: u16,
        l: &RecordLayout,
    ) -> Result<(Vec<Field>, RecordInfo), Error> {
        let rp = RecPage::new(p, 16384).unwrap();
        let rec = rp.record_at(origin).unwrap();
        let mut out = Vec::new();
        split(&rp, &rec, l, &mut out).map(|i| (out, i))
    }

    /// rem0rec.cc rec_init_offsets_comp_ordinary: one nullable field
    /// (NULL bit 0 set), a 1-byte length for a short VARCHAR, a 2-byte
    /// length (0x80 flag) for a big column, fixed fields with no length.
    #[test]
    fn compact_nulls_and_lengths() {
        let l = layout(vec![
            lf(0, Some(4), false, false),
            lf(1, None, true, false),  // NULL
            lf(2, None, false, false), // 3 bytes
            lf(3, None, true, true),   // 300 bytes: 2-byte length
        ]);
        let mut data = vec![0, 0, 0, 1];
        data.extend_from_slice(b"abc");
        data.extend(std::iter::repeat_n(b'x', 300));
        // Down from the origin: null byte (bit0 field1 NULL, bit1 field3
        // not NULL) at origin-6, then lengths: field2 (1 byte), field3 (2
        // bytes, high first).
        let pre = [0x2C, 0x81, 3, 0b01];
        let (p, o) = page_with(0, &pre, &data);
        let (f, info) = split_one(&p, o, &l).unwrap();
        assert_eq!(f[0].value, FieldValue::Inline { start: 200, len: 4 });
        assert_eq!(f[1].value, FieldValue::Null);
        assert_eq!(f[2].value, FieldValue::Inline { start: 204, len: 3 });
        assert_eq!(
            f[3].value,
            FieldValue::Inline {
                start: 207,
                len: 300
            }
        );
        assert_eq!(info.data_end, 507);
        assert_eq!(info.extra_start, 200 - 5 - 4);
    }

    /// 0x4000 in a 2-byte length: stored off-page, the last 20 bytes are the
    /// reference (lob0lob.h BTR_EXTERN_*).
    #[test]
    fn compact_external_reference() {
        let l = layout(vec![lf(0, Some(1), false, false), lf(1, None, false, true)]);
        let mut data = vec![7u8];
        let mut r = [0u8; 20];
        r[0..4].copy_from_slice(&5u32.to_be_bytes());
        r[4..8].copy_from_slice(&9u32.to_be_bytes());
        r[8..12].copy_from_slice(&1u32.to_be_bytes());
        r[12] = BTR_EXTERN_OWNER_FLAG;
        r[16..20].copy_from_slice(&70000u32.to_be_bytes());
        data.extend_from_slice(&r);
        let pre = [20, 0xC0];
        let (p, o) = page_with(0, &pre, &data);
        let (f, _) = split_one(&p, o, &l).unwrap();
        match f[1].value {
            FieldValue::External {
                local_len, blob, ..
            } => {
                assert_eq!(local_len, 0);
                assert_eq!(blob.space_id, 5);
                assert_eq!(blob.page, PageNo(9));
                assert_eq!(blob.len, 70000);
                assert_eq!(blob.flags, BTR_EXTERN_OWNER_FLAG);
            }
            v => panic!("{v:?}"),
        }
    }

    /// rec.h rec_init_null_and_len_comp: the VERSION flag puts the row
    /// version at origin-6; columns added after it are defaults, columns
    /// dropped at or before it are absent; the NULL bitmap counts only the
    /// version's nullable fields.
    #[test]
    fn versioned_record() {
        let mut added = lf(2, Some(4), true, false);
        added.version_added = 2;
        let mut dropped = lf(3, Some(1), true, false);
        dropped.version_dropped = Some(1);
        let mut l = layout(vec![
            lf(0, Some(4), false, false),
            lf(1, Some(2), true, false),
            added,
            dropped,
        ]);
        l.row_versions = true;
        // Version 1: field2 default, field3 dropped; field1 nullable, not null.
        let pre = [0x00, 1];
        let (p, o) = page_with(REC_INFO_VERSION_FLAG, &pre, &[0, 0, 0, 1, 0xAB, 0xCD]);
        let (f, info) = split_one(&p, o, &l).unwrap();
        assert_eq!(info.version, Some(1));
        assert_eq!(f[1].value, FieldValue::Inline { start: 204, len: 2 });
        assert_eq!(f[2].value, FieldValue::Default);
        assert_eq!(f[3].value, FieldValue::Dropped);
        // No flag on a table with row versions: version 0 (field3 present).
        let pre = [0x00];
        let (p, o) = page_with(0, &pre, &[0, 0, 0, 1, 0xAB, 0xCD, 9]);
        let (f, info) = split_one(&p, o, &l).unwrap();
        assert_eq!(info.version, None);
        assert_eq!(f[3].value, FieldValue::Inline { start: 206, len: 1 });
    }

    /// rec_get_n_fields_instant: the INSTANT flag stores the field count,
    /// one byte or two (0x80 flag).
    #[test]
    fn instant_field_count() {
        let mut l = layout(vec![
            lf(0, Some(4), false, false),
            lf(1, Some(1), false, false),
            lf(2, Some(1), true, false),
        ]);
        l.n_before_instant = Some(2);
        let (p, o) = page_with(REC_INFO_INSTANT_FLAG, &[2], &[0, 0, 0, 1, 5]);
        let (f, info) = split_one(&p, o, &l).unwrap();
        assert_eq!(info.n_fields_stored, Some(2));
        assert_eq!(f[2].value, FieldValue::Default);
        let (p, o) = page_with(REC_INFO_INSTANT_FLAG, &[0, 0x03, 0x80], &[0, 0, 0, 1, 5, 6]);
        let (f, info) = split_one(&p, o, &l).unwrap();
        assert_eq!(info.n_fields_stored, Some(3));
        assert_eq!(f[2].value, FieldValue::Inline { start: 205, len: 1 });
        // A count past the layout is an error, not a panic.
        let (p, o) = page_with(REC_INFO_INSTANT_FLAG, &[9], &[0]);
        assert!(matches!(
            split_one(&p, o, &l).unwrap_err().row(),
            RowErrorKind::TooManyFields { stated: 9, .. }
        ));
    }

    /// rec.h / rec.cc: REDUNDANT fields come from the end offsets (1-byte
    /// offsets, 0x80 = NULL); fields past the record's n_fields (instant
    /// ADD) are defaults.
    #[test]
    fn redundant_fields_and_instant_defaults() {
        use ibdscope_core::testing::PageBuilder;
        let mut b = PageBuilder::new(16384, RecFormat::Redundant);
        let o = b.push(0, &[4, 6, 0]);
        // Third field: NULL flag on its end offset.
        b.page[o - 7 - 2] |= 0x80;
        let p = b.finish().to_vec();
        let mut l = layout(vec![
            lf(0, Some(4), false, false),
            lf(1, None, false, false),
            lf(2, None, true, false),
            lf(3, Some(2), true, false),
        ]);
        l.compact = false;
        let rp = RecPage::new(&p, 16384).unwrap();
        let rec = rp.record_at(o as u16).unwrap();
        let mut out = Vec::new();
        let info = split(&rp, &rec, &l, &mut out).unwrap();
        let o16 = o as u16;
        assert_eq!(out[0].value, FieldValue::Inline { start: o16, len: 4 });
        assert_eq!(
            out[1].value,
            FieldValue::Inline {
                start: o16 + 4,
                len: 6
            }
        );
        assert_eq!(out[2].value, FieldValue::Null);
        assert_eq!(out[3].value, FieldValue::Default);
        assert_eq!(info.data_end, o16 + 10);
        assert_eq!(info.extra_start, o16 - 9);
        // A fixed field whose stored length differs is an error.
        l.fields[0].fixed_len = Some(8);
        assert_eq!(
            split(&rp, &rec, &l, &mut out).unwrap_err().row(),
            RowErrorKind::LengthMismatch { field: 0 }
        );
        // A COMPACT layout on a REDUNDANT page.
        l.compact = true;
        assert_eq!(
            split(&rp, &rec, &l, &mut out).unwrap_err().row(),
            RowErrorKind::FormatMismatch
        );
    }

    /// rec_init_offsets: a node pointer holds the n_unique key fields, then
    /// the 4-byte child page number.
    #[test]
    fn compact_node_pointer_child() {
        use ibdscope_core::testing::PageBuilder;
        let mut b = PageBuilder::new(16384, RecFormat::Compact);
        b.level = 1;
        // One NULL-bitmap byte before the header: the index has a nullable
        // field, though the node pointer does not store it.
        b.top += 1;
        let o = b.push(0, &[8]);
        b.page[o..o + 4].copy_from_slice(&[0x80, 0, 0, 9]);
        b.page[o + 4..o + 8].copy_from_slice(&77u32.to_be_bytes());
        let p = b.finish().to_vec();
        let l = layout(vec![
            lf(0, Some(4), false, false),
            lf(1, Some(6), false, false),
            lf(2, Some(7), false, false),
            lf(3, None, true, true),
        ]);
        let rp = RecPage::new(&p, 16384).unwrap();
        let rec = rp.record_at(o as u16).unwrap();
        assert_eq!(rec.rec_type, RecType::NodePtr);
        let mut out = Vec::new();
        let info = split(&rp, &rec, &l, &mut out).unwrap();
        assert_eq!(out.len(), 1);
        assert_eq!(info.child, Some(PageNo(77)));
        // Infimum and supremum are not split.
        let inf = rp.infimum().unwrap();
        assert_eq!(
            split(&rp, &inf, &l, &mut out).unwrap_err().row(),
            RowErrorKind::NotUserRecord
        );
    }

    /// A 16K file of `n` pages with page numbers, for off-page chains.
    fn file(n: usize) -> Vec<u8> {
        let mut d = vec![0u8; n * 16384];
        for i in 0..n {
            d[i * 16384 + 4..i * 16384 + 8].copy_from_slice(&(i as u32).to_be_bytes());
        }
        d
    }

    fn ts(d: &[u8]) -> Tablespace<'_> {
        Tablespace::with_options(
            d,
            ibdscope_core::Options::default().with_page_size(Some(16384)),
        )
        .unwrap()
    }

    fn pg(d: &mut [u8], n: usize) -> &mut [u8] {
        &mut d[n * 16384..(n + 1) * 16384]
    }

    fn set_type(p: &mut [u8], t: u16) {
        p[24..26].copy_from_slice(&t.to_be_bytes());
    }

    /// lob0lob.h: old BLOB pages chain by (part length, next page) at the
    /// header, the first header at the reference's offset.
    #[test]
    fn old_blob_chain() {
        let mut d = file(4);
        let p = pg(&mut d, 2);
        set_type(p, 10);
        p[38..42].copy_from_slice(&10u32.to_be_bytes());
        p[42..46].copy_from_slice(&3u32.to_be_bytes());
        p[46..56].copy_from_slice(b"0123456789");
        let p = pg(&mut d, 3);
        set_type(p, 10);
        p[38..42].copy_from_slice(&5u32.to_be_bytes());
        p[42..46].copy_from_slice(&FIL_NULL.to_be_bytes());
        p[46..51].copy_from_slice(b"abcde");
        let t = ts(&d);
        let r = BlobRef {
            space_id: 0,
            page: PageNo(2),
            offset: 38,
            len: 15,
            flags: 0,
        };
        let mut out = b"prefix".to_vec();
        assert_eq!(
            read_external(&t, &r, usize::MAX, &mut out),
            Ok(LobRead::Complete)
        );
        assert_eq!(out, b"prefix0123456789abcde");
        out.clear();
        assert_eq!(read_external(&t, &r, 12, &mut out), Ok(LobRead::Capped));
        assert_eq!(out, b"0123456789ab");
        // Stated longer than the chain.
        let long = BlobRef { len: 20, ..r };
        out.clear();
        let e = read_external(&t, &long, usize::MAX, &mut out).unwrap_err();
        assert_eq!(
            e.lob(),
            LobErrorKind::Short {
                stated: 20,
                found: 15
            }
        );
        // A loop 3 -> 2 -> 3 ...: named at the page read twice, before a
        // byte of it is appended again, whatever length the reference says.
        pg(&mut d, 3)[42..46].copy_from_slice(&2u32.to_be_bytes());
        let t = ts(&d);
        for len in [u32::MAX, 16] {
            let huge = BlobRef { len, ..r };
            out.clear();
            let e = read_external(&t, &huge, usize::MAX, &mut out).unwrap_err();
            assert_eq!(
                (e.lob(), e.page().unwrap(), e.page_offset().unwrap()),
                (LobErrorKind::Loop { from: PageNo(3) }, PageNo(2), 38)
            );
            assert_eq!(out, b"0123456789abcde");
        }
        // A part length past the page.
        pg(&mut d, 2)[38..42].copy_from_slice(&20000u32.to_be_bytes());
        let t = ts(&d);
        out.clear();
        let e = read_external(&t, &r, usize::MAX, &mut out).unwrap_err();
        assert_eq!(
            (e.lob(), e.page().unwrap(), e.page_offset().unwrap()),
            (LobErrorKind::OutOfPage, PageNo(2), 38)
        );
        // A ZBLOB page laid out as an old BLOB page: read as a ZBLOB chain,
        // its "next page" (the part length) is past the file.
        set_type(pg(&mut d, 2), 11);
        let t = ts(&d);
        let e = read_external(&t, &r, usize::MAX, &mut out).unwrap_err();
        assert_eq!(e.lob(), LobErrorKind::PastFile, "{e:?}");
        // MySQL 8.0's ZLOB is a named gap.
        set_type(pg(&mut d, 2), 25);
        let t = ts(&d);
        let e = read_external(&t, &r, usize::MAX, &mut out).unwrap_err();
        assert!(matches!(e.lob(), LobErrorKind::Compressed(_)));
    }

    /// lob0lob.cc `btr_check_blob_fil_page_type` (8.0; btr0cur.cc in 5.6):
    /// a BLOB page of another type is read on a space without atomic blobs
    /// (InnoDB before 5.1 left FIL_PAGE_TYPE 0 on them), refused on one with.
    #[test]
    fn old_blob_pages_of_type_0_only_without_atomic_blobs() {
        let mut d = file(4);
        for (n, next, data) in [(2, 3u32, b"01234"), (3, FIL_NULL, b"abcde")] {
            let p = pg(&mut d, n);
            p[38..42].copy_from_slice(&5u32.to_be_bytes());
            p[42..46].copy_from_slice(&next.to_be_bytes());
            p[46..51].copy_from_slice(data);
        }
        let r = BlobRef {
            space_id: 0,
            page: PageNo(2),
            offset: 38,
            len: 10,
            flags: 0,
        };
        let mut out = Vec::new();
        assert!(!ts(&d).format().atomic_blobs);
        assert_eq!(
            read_external(&ts(&d), &r, usize::MAX, &mut out),
            Ok(LobRead::Complete)
        );
        assert_eq!(out, b"01234abcde");
        // FSP_SPACE_FLAGS (page 0, byte 54): POST_ANTELOPE | ATOMIC_BLOBS.
        d[54..58].copy_from_slice(&0x21u32.to_be_bytes());
        let t = ts(&d);
        assert!(t.format().atomic_blobs);
        out.clear();
        let e = read_external(&t, &r, usize::MAX, &mut out).unwrap_err();
        assert_eq!(
            (e.lob(), e.page().unwrap()),
            (LobErrorKind::BadPageType(PageType(0)), PageNo(2))
        );
        // A chain of BLOB pages with one of type 0 in the middle, likewise.
        set_type(pg(&mut d, 2), 10);
        let t = ts(&d);
        out.clear();
        let e = read_external(&t, &r, usize::MAX, &mut out).unwrap_err();
        assert_eq!(
            (e.lob(), e.page().unwrap()),
            (LobErrorKind::BadPageType(PageType(0)), PageNo(3))
        );
    }

    /// btr0cur.cc `btr_copy_zblob_prefix` (5.6, MariaDB): a ZBLOB chain is
    /// one zlib stream from byte 38 of each page to its end, the next page
    /// at FIL_PAGE_NEXT (12); the first page ZBLOB, the others ZBLOB2. The
    /// stream here is built by hand from RFC 1950/1951 (stored blocks).
    #[test]
    fn zblob_chain() {
        // Longer than a page: the stream fills the first page to its end.
        let value: Vec<u8> = (0..20000u32).map(|i| (i * 7 % 251) as u8).collect();
        // zlib header, one stored final block, Adler-32.
        let mut z = vec![0x78, 0x01, 0x01];
        z.extend_from_slice(&(value.len() as u16).to_le_bytes());
        z.extend_from_slice(&(!(value.len() as u16)).to_le_bytes());
        z.extend_from_slice(&value);
        z.extend_from_slice(&ibdscope_core::checksum::adler32(1, &value).to_be_bytes());
        let mut d = file(5);
        let cut = 16384 - 38;
        {
            let p = pg(&mut d, 2);
            set_type(p, 11);
            p[12..16].copy_from_slice(&3u32.to_be_bytes());
            p[38..38 + cut].copy_from_slice(&z[..cut]);
        }
        {
            let p = pg(&mut d, 3);
            set_type(p, 12);
            p[12..16].copy_from_slice(&FIL_NULL.to_be_bytes());
            p[38..38 + z.len() - cut].copy_from_slice(&z[cut..]);
        }
        let t = ts(&d);
        let r = BlobRef {
            space_id: 0,
            page: PageNo(2),
            offset: 12,
            len: value.len() as u32,
            flags: 0x80,
        };
        let mut out = Vec::new();
        assert_eq!(
            read_external(&t, &r, usize::MAX, &mut out),
            Ok(LobRead::Complete)
        );
        assert_eq!(out, value);
        out.clear();
        assert_eq!(read_external(&t, &r, 10, &mut out), Ok(LobRead::Capped));
        assert_eq!(out, value[..10]);
        // The second page of the wrong type.
        set_type(pg(&mut d, 3), 11);
        let t = ts(&d);
        out.clear();
        let e = read_external(&t, &r, usize::MAX, &mut out).unwrap_err();
        assert_eq!(
            (e.lob(), e.page().unwrap()),
            (LobErrorKind::BadPageType(PageType(11)), PageNo(3))
        );
        // The second page's next (FIL_PAGE_NEXT) back to itself, and back
        // to the first page: a loop named at the page read twice.
        set_type(pg(&mut d, 3), 12);
        for back in [3u32, 2] {
            pg(&mut d, 3)[12..16].copy_from_slice(&back.to_be_bytes());
            let t = ts(&d);
            out.clear();
            let e = read_external(&t, &r, usize::MAX, &mut out).unwrap_err();
            assert_eq!(
                (e.lob(), e.page().unwrap()),
                (LobErrorKind::Loop { from: PageNo(3) }, PageNo(back))
            );
        }
    }

    /// lob0first.h / lob0index.h / lob0pages.h: the index list of a MySQL
    /// 8.0 LOB, data in the first page from byte 696 and in data pages from
    /// 49, an entry newer than the reference replaced by its older version.
    #[test]
    fn lob_index_and_versions() {
        let mut d = file(5);
        let entry = |p: &mut [u8], at: usize, next: (u32, u16), page: u32, len: u16, ver: u32| {
            p[at + 6..at + 10].copy_from_slice(&next.0.to_be_bytes());
            p[at + 10..at + 12].copy_from_slice(&next.1.to_be_bytes());
            // Empty versions list.
            p[at + 16..at + 20].copy_from_slice(&FIL_NULL.to_be_bytes());
            p[at + 48..at + 52].copy_from_slice(&page.to_be_bytes());
            p[at + 52..at + 54].copy_from_slice(&len.to_be_bytes());
            p[at + 56..at + 60].copy_from_slice(&ver.to_be_bytes());
        };
        let p = pg(&mut d, 2);
        set_type(p, 24);
        // Index list base: length 2, first (2, 96), last (2, 156).
        p[64..68].copy_from_slice(&2u32.to_be_bytes());
        p[68..72].copy_from_slice(&2u32.to_be_bytes());
        p[72..74].copy_from_slice(&96u16.to_be_bytes());
        entry(p, 96, (2, 156), 2, 5, 1);
        entry(p, 156, (FIL_NULL, 0), 3, 3, 2);
        // Entry 156 (version 2) has one older version at 216 (version 1).
        p[156 + 12..156 + 16].copy_from_slice(&1u32.to_be_bytes());
        p[156 + 16..156 + 20].copy_from_slice(&2u32.to_be_bytes());
        p[156 + 20..156 + 22].copy_from_slice(&216u16.to_be_bytes());
        entry(p, 216, (FIL_NULL, 0), 4, 3, 1);
        p[696..701].copy_from_slice(b"hello");
        for (n, data) in [(3, b"NEW"), (4, b"old")] {
            let p = pg(&mut d, n);
            set_type(p, 23);
            p[49..52].copy_from_slice(data);
        }
        let t = ts(&d);
        let mut r = BlobRef {
            space_id: 0,
            page: PageNo(2),
            offset: 2,
            len: 8,
            flags: BTR_EXTERN_OWNER_FLAG,
        };
        let mut out = Vec::new();
        assert_eq!(
            read_external(&t, &r, usize::MAX, &mut out),
            Ok(LobRead::Complete)
        );
        assert_eq!(out, b"helloNEW");
        r.offset = 1;
        out.clear();
        assert_eq!(
            read_external(&t, &r, usize::MAX, &mut out),
            Ok(LobRead::Complete)
        );
        assert_eq!(out, b"helloold");
        // No version old enough.
        r.offset = 0;
        out.clear();
        let e = read_external(&t, &r, usize::MAX, &mut out).unwrap_err();
        assert_eq!(e.lob(), LobErrorKind::NoVersion);
        // A versions list whose entry (made too new for version 1) leads
        // back to itself.
        let p = pg(&mut d, 2);
        p[216 + 6..216 + 10].copy_from_slice(&2u32.to_be_bytes());
        p[216 + 10..216 + 12].copy_from_slice(&216u16.to_be_bytes());
        p[216 + 56..216 + 60].copy_from_slice(&2u32.to_be_bytes());
        let t = ts(&d);
        out.clear();
        let e = read_external(&t, &BlobRef { offset: 1, ..r }, usize::MAX, &mut out).unwrap_err();
        assert_eq!(
            (e.lob(), e.page().unwrap(), e.page_offset().unwrap()),
            (LobErrorKind::Loop { from: PageNo(2) }, PageNo(2), 216)
        );
        let p = pg(&mut d, 2);
        p[216 + 6..216 + 10].copy_from_slice(&FIL_NULL.to_be_bytes());
        p[216 + 56..216 + 60].copy_from_slice(&1u32.to_be_bytes());
        // A data page of the wrong type.
        r.offset = 2;
        set_type(pg(&mut d, 3), 0);
        let t = ts(&d);
        out.clear();
        let e = read_external(&t, &r, usize::MAX, &mut out).unwrap_err();
        assert_eq!(
            (e.lob(), e.page().unwrap()),
            (LobErrorKind::BadPageType(PageType(0)), PageNo(3))
        );
        // An index list that loops back to its first entry is named there.
        set_type(pg(&mut d, 3), 23);
        let p = pg(&mut d, 2);
        p[156 + 6..156 + 10].copy_from_slice(&2u32.to_be_bytes());
        p[156 + 10..156 + 12].copy_from_slice(&96u16.to_be_bytes());
        let t = ts(&d);
        out.clear();
        let big = BlobRef { len: u32::MAX, ..r };
        let e = read_external(&t, &big, usize::MAX, &mut out).unwrap_err();
        assert_eq!(
            (e.lob(), e.page().unwrap(), e.page_offset().unwrap()),
            (LobErrorKind::Loop { from: PageNo(2) }, PageNo(2), 96)
        );
    }

    /// Every byte offset of a real page taken as a record origin, and the
    /// page with seeded byte flips: splitting never panics (errors are
    /// fine).
    #[test]
    fn split_never_panics_on_damage() {
        use crate::row::corpus_rows::table_of;
        let Some(dir) = ibdscope_testkit::corpus() else {
            return;
        };
        let data = std::fs::read(dir.join("mysql-9.x/ibdninja_mysql960_data_types.ibd")).unwrap();
        let t = table_of(&ts_of(&data)).unwrap();
        let l = t.layout(t.clustered().unwrap(), true).unwrap();
        let page = data[4 * 16384..5 * 16384].to_vec();
        let mut out = Vec::new();
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        for round in 0..200 {
            let mut p = page.clone();
            if round > 0 {
                flip(&mut p, &mut seed, 8, 600);
            }
            let Some(rp) = RecPage::new(&p, 16384) else {
                continue;
            };
            for o in 0..1000u16 {
                if let Some(rec) = rp.record_at(o) {
                    let _ = split(&rp, &rec, &l, &mut out);
                }
            }
        }
    }

    /// The planned split of a plain COMPACT record is [`split`]'s, fields
    /// (those before an error too), record info and errors alike, one
    /// buffer of fields reused from record to record: every record origin of every page of
    /// the MariaDB 10.11 fixtures, with each index's layout, stored and
    /// with bytes flipped among the records.
    #[test]
    fn planned_split_is_the_split_on_sound_and_damaged_pages() {
        let root =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/mariadb1011");
        let (mut planned, mut compared) = (0usize, 0usize);
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        for name in [
            "types",
            "blob",
            "rf_dynamic",
            "rf_compact",
            "secondary",
            "dml",
            "prefix_pk",
        ] {
            let frm =
                crate::frm::Frm::parse(&std::fs::read(root.join(format!("{name}.frm"))).unwrap())
                    .unwrap();
            let t = frm.to_table_def(name, "fx");
            let data = std::fs::read(root.join(format!("{name}.ibd"))).unwrap();
            for ix in &t.indexes {
                let Ok(l) = t.layout(ix, true) else { continue };
                let Some(plan) = CompactPlan::of(&l) else {
                    continue;
                };
                planned += 1;
                let (mut a, mut b) = (Vec::new(), Vec::new());
                for page in data.chunks_exact(16384) {
                    for round in 0..3 {
                        let mut p = page.to_vec();
                        flip(&mut p, &mut seed, round * 16, 4000);
                        let Some(rp) = RecPage::new(&p, 16384) else {
                            continue;
                        };
                        let on_page = plan.on_page(&rp);
                        for o in 0..16384u16 {
                            let Some(rec) = rp.record_at(o) else { continue };
                            let x = split(&rp, &rec, &l, &mut a);
                            let y = split_planned(&rp, &rec, &l, on_page, &mut b);
                            assert_eq!(x, y, "{name} {} origin {o}", ix.name);
                            // The fields before an error too: a damaged
                            // row shows them.
                            assert_eq!(a, b, "{name} {} origin {o}", ix.name);
                            compared += 1;
                        }
                    }
                }
            }
        }
        assert!(planned >= 7, "{planned} layouts planned");
        assert!(compared > 10_000, "{compared} records compared");
    }

    /// Flips `n` bytes of `p` among the `span` bytes after the FIL header
    /// (a seeded xorshift, `seed` carried from call to call).
    fn flip(p: &mut [u8], seed: &mut u64, n: usize, span: usize) {
        for _ in 0..n {
            *seed ^= *seed << 13;
            *seed ^= *seed >> 7;
            *seed ^= *seed << 17;
            let at = 38 + (*seed as usize) % span;
            p[at] ^= (*seed >> 32) as u8 | 1;
        }
    }

    fn ts_of(d: &[u8]) -> Tablespace<'_> {
        Tablespace::new(d).unwrap()
    }

    /// A node pointer leading back up (here the root's first child made
    /// the root itself, on the fixture mysql56/seq_int: a two-level tree,
    /// root page 3) is named as a loop, not followed 64 times.
    #[test]
    fn descent_loops_are_named() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/mysql56");
        let frm =
            crate::frm::Frm::parse(&std::fs::read(root.join("seq_int.frm")).unwrap()).unwrap();
        let t = frm.to_table_def("seq_int", "fx");
        let ix = t.clustered().unwrap();
        let layout = t.layout(ix, true).unwrap();
        let mut d = std::fs::read(root.join("seq_int.ibd")).unwrap();
        let (mut visited, mut fields) = (ibdscope_core::record::Visited::new(), Vec::new());
        let t0 = ts_of(&d);
        let leaf = leftmost_leaf(&t0, PageNo(3), &layout, &mut visited, &mut fields).unwrap();
        assert_ne!(leaf, PageNo(3));
        // The first user record of the root: infimum (99) + its next offset;
        // the child page number follows the 4-byte INT key.
        let page = &mut d[3 * 16384..4 * 16384];
        let first = 99 + i16::from_be_bytes([page[97], page[98]]) as usize;
        assert_eq!(
            u32::from_be_bytes(page[first + 4..first + 8].try_into().unwrap()),
            leaf.0
        );
        page[first + 4..first + 8].copy_from_slice(&3u32.to_be_bytes());
        let t1 = ts_of(&d);
        assert_eq!(
            leftmost_leaf(&t1, PageNo(3), &layout, &mut visited, &mut fields).map_err(|e| e.kind),
            Err(ErrorKind::Descent(DescentErrorKind::Loop(
                PageNo(3),
                PageNo(3)
            )))
        );
    }

    #[test]
    fn malformed_lengths_are_errors() {
        let l = layout(vec![lf(0, None, false, true)]);
        // 2-byte length 0x3FFF: past the heap top.
        let (p, o) = page_with(0, &[0xFF, 0xBF], &[]);
        let e = split_one(&p, o, &l).unwrap_err();
        assert_eq!(e.row(), RowErrorKind::FieldOutOfPage { field: 0 });
        assert_eq!(e.page_offset().unwrap(), 200);
        // A record whose lengths would lie below the supremum.
        let mut p = page_with(0, &[], &[]).0;
        let hdr = 121 - 5;
        p[hdr + 1..hdr + 3].copy_from_slice(&(2u16 << 3).to_be_bytes());
        let rp = RecPage::new(&p, 16384).unwrap();
        let rec = rp.record_at(121).unwrap();
        let mut out = Vec::new();
        let l2 = layout(vec![lf(0, None, true, true), lf(1, None, true, true)]);
        let e = split(&rp, &rec, &l2, &mut out).unwrap_err();
        assert_eq!(e.row(), RowErrorKind::HeaderOutOfPage);
    }
}

/// What [`render_field`] wrote for a field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FieldText {
    /// SQL NULL (also an instant column whose default is NULL): nothing
    /// written.
    Null,
    /// Dropped at or before the record's row version: nothing written.
    Dropped,
    /// The value, as [`crate::value::render`] classed it.
    Value(crate::value::Rendered),
    /// An off-page value longer than the cap: the hex of the bytes read.
    Capped,
    /// The off-page part could not be read: the hex of the local part.
    OffPage(Error),
}

/// Renders one split field of a record of `page` as text into `out`
/// (appended), reading its off-page part (at most `cap` bytes) into
/// `buf`. The column is `col` (the field's [`Field::column`]). Inlined
/// where a row is printed: what it gives is then made in the caller's
/// registers, not stored in parts and read back whole.
#[inline]
pub fn render_field(
    ts: &Tablespace<'_>,
    page: &[u8],
    col: &crate::table::Column,
    field: &Field,
    cap: usize,
    buf: &mut Vec<u8>,
    out: &mut String,
) -> FieldText {
    match field.value {
        FieldValue::Null => return FieldText::Null,
        FieldValue::Dropped => return FieldText::Dropped,
        FieldValue::Default => {
            return crate::value::render_default(col, out).map_or(FieldText::Null, FieldText::Value)
        }
        // Stored whole in the record: rendered from the page's bytes.
        FieldValue::Inline { .. } => {
            return match field.local(page) {
                Some(b) => FieldText::Value(crate::value::render(col, b, out)),
                None => FieldText::Null,
            };
        }
        FieldValue::External { .. } => {}
    }
    match field_bytes(ts, page, field, cap, buf) {
        Some(Ok(LobRead::Complete)) => FieldText::Value(crate::value::render(col, buf, out)),
        Some(Ok(LobRead::Capped)) => {
            crate::value::write_hex(buf, out);
            FieldText::Capped
        }
        Some(Err(e)) => {
            crate::value::write_hex(field.local(page).unwrap_or(&[]), out);
            FieldText::OffPage(e)
        }
        None => FieldText::Null,
    }
}

/// How one leaf page's records fit a layout: the bytes its user records
/// (delete-marked ones too) take when split with the layout, header and
/// NULL bitmap and lengths included, against what the page header says
/// they take, `PAGE_HEAP_TOP − supremum end − PAGE_GARBAGE`
/// (`page_get_data_size`; `page_validate` in mysql-server
/// `storage/innobase/page/page0page.cc` checks the same sum with the
/// index's own offsets). A definition with other columns than the records
/// hold splits them into other lengths, and the sums differ.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PageFit {
    /// User records.
    pub records: u32,
    /// Their bytes, split with the layout.
    pub summed: u32,
    /// The header's account.
    pub stated: u32,
    /// REDUNDANT records whose own field count or fixed-length field
    /// lengths (their end offsets, `rec_get_n_fields_old`,
    /// `rec_get_nth_field_offs_old`) differ from the layout's: fewer
    /// fields than the layout only where the missing ones are instant
    /// additions with defaults.
    pub fields_differ: u32,
}

impl PageFit {
    /// The sums agree and no record's own fields differ.
    pub fn fits(&self) -> bool {
        self.summed == self.stated && self.fields_differ == 0
    }
}

/// [`PageFit`] of an uncompressed leaf page; `None` when it cannot be
/// judged (a ROW_FORMAT=COMPRESSED page, a record chain or a record that
/// cannot be walked or split: reported where they are read).
pub fn page_fit(
    rp: &RecPage<'_>,
    layout: &RecordLayout,
    visited: &mut ibdscope_core::record::Visited,
    fields: &mut Vec<Field>,
) -> Option<PageFit> {
    let mut sum = FitSum::of(rp)?;
    let mut it = rp.records(visited)?;
    while let Some(rec) = it.next().ok()? {
        if !rec.is_user() {
            continue;
        }
        let info = split(rp, &rec, layout, fields).ok()?;
        sum.add(&rec, &info, layout, fields);
    }
    Some(sum.fit())
}

/// [`PageFit`] summed a user record at a time, in the walk of the page's
/// record chain that splits them anyway ([`page_fit`] is that walk
/// alone): each user record's split is added; a page whose chain or a
/// record of it cannot be walked or split has no fit.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FitSum {
    stated: u32,
    records: u32,
    summed: u32,
    fields_differ: u32,
}

impl FitSum {
    /// An empty sum for `rp`; `None` when the page is not judged (a
    /// ROW_FORMAT=COMPRESSED page, not a leaf, a header whose heap does
    /// not add up).
    pub(crate) fn of(rp: &RecPage<'_>) -> Option<FitSum> {
        if rp.is_compressed() || !rp.is_leaf() {
            return None;
        }
        let h = rp.header();
        let stated = u32::from(h.heap_top())
            .checked_sub(h.supremum_end() as u32)?
            .checked_sub(u32::from(h.garbage()))?;
        Some(FitSum {
            stated,
            records: 0,
            summed: 0,
            fields_differ: 0,
        })
    }

    /// Adds a user record split (`info`, `fields`) with `layout`.
    #[inline]
    pub(crate) fn add(
        &mut self,
        rec: &Rec,
        info: &RecordInfo,
        layout: &RecordLayout,
        fields: &[Field],
    ) {
        self.records = self.records.saturating_add(1);
        let size = info.data_end.saturating_sub(info.extra_start);
        self.summed = self.summed.saturating_add(u32::from(size));
        if !layout.compact && redundant_differs(rec, layout, fields) {
            self.fields_differ = self.fields_differ.saturating_add(1);
        }
    }

    /// The fit of the records added.
    pub(crate) fn fit(&self) -> PageFit {
        PageFit {
            records: self.records,
            summed: self.summed,
            stated: self.stated,
            fields_differ: self.fields_differ,
        }
    }
}

/// A REDUNDANT record's own evidence against the layout: its field count
/// (more is a split error; fewer only where the rest are instant
/// additions), and the stored
/// length of every non-NULL fixed-length field.
fn redundant_differs(rec: &Rec, layout: &RecordLayout, fields: &[Field]) -> bool {
    let n_rec = usize::from(rec.header.n_fields);
    // Fields past the record's count: instant additions (an 8.0 default,
    // or past MariaDB's core fields, `n_before_instant`), nothing else.
    let core = layout.n_before_instant.unwrap_or(usize::MAX);
    let missing = layout.fields.iter().enumerate().skip(n_rec);
    if missing
        .into_iter()
        .any(|(i, f)| !f.instant_default && i < core)
    {
        return true;
    }
    fields.iter().any(|f| {
        let fixed = layout
            .fields
            .get(usize::from(f.layout_idx))
            .and_then(|l| l.fixed_len);
        match (fixed, f.value) {
            (Some(n), FieldValue::Inline { len, .. }) => u32::from(len) != n,
            _ => false,
        }
    })
}

/// A definition from a `CREATE TABLE` says TIME, DATETIME, TIMESTAMP for
/// both MySQL's pre-5.6.4 formats (3, 8, 4 bytes) and the 5.6.4+ ones (3,
/// 5, 4 bytes without fractions); the records tell them apart. When the
/// clustered index's leftmost leaf does not fit the 5.6.4+ formats
/// ([`page_fit`]) and fits the old ones, the definition's temporal columns
/// without fractions become the old types; true then.
pub fn old_temporals(ts: &Tablespace<'_>, t: &mut crate::table::TableDef) -> bool {
    use crate::table::{ColType, DefSource};
    let new = |c: &crate::table::Column| {
        c.fsp == 0
            && matches!(
                c.col_type,
                ColType::Time2 | ColType::DateTime2 | ColType::Timestamp2
            )
    };
    if t.source != DefSource::Ddl || !t.columns.iter().any(new) {
        return false;
    }
    let mut old = t.clone();
    for c in old.columns.iter_mut().filter(|c| new(c)) {
        c.col_type = match c.col_type {
            ColType::Time2 => ColType::Time,
            ColType::DateTime2 => ColType::DateTime,
            _ => ColType::Timestamp,
        };
    }
    let fit = |t: &crate::table::TableDef| -> Option<bool> {
        let ix = t.clustered()?;
        let root = PageNo(ix.root?);
        let rp = RecPage::of(ts, root).ok()?;
        let layout = t.layout(ix, rp.format() == RecFormat::Compact).ok()?;
        let (mut visited, mut fields) = (ibdscope_core::record::Visited::new(), Vec::new());
        let leaf = leftmost_leaf(ts, root, &layout, &mut visited, &mut fields).ok()?;
        let lp = RecPage::of(ts, leaf).ok()?;
        let f = page_fit(&lp, &layout, &mut visited, &mut fields)?;
        Some(f.records > 0 && f.fits())
    };
    if fit(t) == Some(false) && fit(&old) == Some(true) {
        *t = old;
        return true;
    }
    false
}

/// The leftmost leaf page of the index whose root is `root`, found by
/// following the first node pointer of each level (split with `layout`).
/// Bounded: at most 64 levels (InnoDB's `BTR_MAX_LEVELS` is 100, real
/// trees are below 10; 64 bounds the walk).
///
/// Errors: [`ErrorKind::Descent`].
pub fn leftmost_leaf(
    ts: &Tablespace<'_>,
    root: PageNo,
    layout: &RecordLayout,
    visited: &mut ibdscope_core::record::Visited,
    fields: &mut Vec<Field>,
) -> Result<PageNo, Error> {
    leftmost(ts, root, layout, visited, fields).map_err(|k| match k {
        DescentErrorKind::Record(p, _, at) => {
            Error::in_page(ErrorKind::Descent(k), Some(p), usize::from(at))
        }
        _ => descent_err(k),
    })
}

/// An error of the descent.
fn descent_err(k: DescentErrorKind) -> Error {
    Error::whole(ErrorKind::Descent(k))
}

fn leftmost(
    ts: &Tablespace<'_>,
    root: PageNo,
    layout: &RecordLayout,
    visited: &mut ibdscope_core::record::Visited,
    fields: &mut Vec<Field>,
) -> Result<PageNo, DescentErrorKind> {
    let mut page_no = root;
    let mut path = [PageNo(FIL_NULL); 64];
    for depth in 0..64 {
        if let Some(p) = path.get_mut(depth) {
            *p = page_no;
        }
        let rp = RecPage::of(ts, page_no).map_err(|_| DescentErrorKind::NotIndex(page_no))?;
        if rp.is_leaf() {
            return Ok(page_no);
        }
        let mut it = rp
            .records(visited)
            .ok_or(DescentErrorKind::NotIndex(page_no))?;
        let first = loop {
            match it.next() {
                Ok(Some(r)) if r.is_user() => break r,
                Ok(Some(_)) => continue,
                _ => return Err(DescentErrorKind::Empty(page_no)),
            }
        };
        let info = split(&rp, &first, layout, fields).map_err(|e| {
            let at = u16_of(e.page_offset().unwrap_or(0));
            match e.kind {
                ErrorKind::Row(k) => DescentErrorKind::Record(page_no, k, at),
                _ => DescentErrorKind::Empty(page_no),
            }
        })?;
        let child = info.child.ok_or(DescentErrorKind::Empty(page_no))?;
        if path.get(..=depth).is_some_and(|p| p.contains(&child)) {
            return Err(DescentErrorKind::Loop(page_no, child));
        }
        page_no = child;
    }
    Err(DescentErrorKind::TooDeep(page_no))
}

#[cfg(test)]
#[allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::arithmetic_side_effects
)]
pub(crate) mod corpus_rows {
    use super::*;
    use crate::table::{
        ColType, Column, DefSource, Hidden, IndexDef, IndexElement, IndexKind, RowFormat, TableDef,
    };
    use ibdscope_core::record::Visited;
    use ibdscope_testkit::corpus;

    /// The table definition of a MySQL 8.0+ file, from its SDI.
    pub(crate) fn table_of(ts: &Tablespace<'_>) -> Option<TableDef> {
        TableDef::from_tablespace(ts).ok()
    }

    /// Every user record of the clustered index's leaves, split: calls
    /// `each` with the page, the record info and its fields.
    pub(crate) fn each_row(
        ts: &Tablespace<'_>,
        t: &TableDef,
        each: impl FnMut(&[u8], &RecordInfo, &[Field]),
    ) -> Result<u32, String> {
        let ix = t.clustered().ok_or("no clustered index")?;
        each_record(ts, t, ix, each)
    }

    /// Every user record of `ix`'s leaves, split.
    pub(crate) fn each_record(
        ts: &Tablespace<'_>,
        t: &TableDef,
        ix: &crate::table::IndexDef,
        mut each: impl FnMut(&[u8], &RecordInfo, &[Field]),
    ) -> Result<u32, String> {
        let root = PageNo(ix.root.ok_or("no root")?);
        let rp = RecPage::of(ts, root).map_err(|e| format!("{e:?}"))?;
        let layout = t
            .layout(ix, rp.format() == RecFormat::Compact)
            .map_err(|e| e.to_string())?;
        let mut visited = Visited::new();
        let mut fields = Vec::new();
        let mut page_no = leftmost_leaf(ts, root, &layout, &mut visited, &mut fields)
            .map_err(|e| format!("{e:?}"))?;
        let mut n = 0;
        for _ in 0..ts.n_pages() {
            let rp = RecPage::of(ts, page_no).map_err(|e| format!("{e:?}"))?;
            let mut it = rp.records(&mut visited).ok_or("compressed")?;
            while let Some(rec) = it.next().map_err(|e| format!("{e:?}"))? {
                if !rec.is_user() {
                    continue;
                }
                let info = split(&rp, &rec, &layout, &mut fields)
                    .map_err(|e| format!("page {page_no}: {e}"))?;
                each(rp.bytes(), &info, &fields);
                n += 1;
            }
            match FilHeader::new(rp.bytes()).map(|h| h.next()) {
                Some(next) if next.0 != FIL_NULL => page_no = next,
                _ => return Ok(n),
            }
        }
        Err("leaf chain loops".into())
    }

    /// The visible columns of a row as (name, rendered value or `None` for
    /// NULL); off-page values read whole. Fails on any raw (undecodable)
    /// value or off-page read error.
    pub(crate) fn render_row(
        ts: &Tablespace<'_>,
        t: &TableDef,
        page: &[u8],
        fields: &[Field],
    ) -> Result<Vec<(String, Option<String>)>, String> {
        let mut buf = Vec::new();
        let mut out = Vec::new();
        for f in fields {
            let c = &t.columns[f.column];
            if c.hidden != crate::table::Hidden::Visible {
                continue;
            }
            let mut s = String::new();
            let r = match render_field(ts, page, c, f, 1 << 24, &mut buf, &mut s) {
                FieldText::Null => None,
                FieldText::Dropped => continue,
                FieldText::Value(crate::value::Rendered::Raw(why)) => {
                    return Err(format!("{}: raw {s}: {why}", c.name))
                }
                FieldText::Value(_) => Some(s),
                other => return Err(format!("{}: {other:?}", c.name)),
            };
            out.push((c.name.clone(), r));
        }
        Ok(out)
    }

    /// The corpus manifest's rows of the files with an SDI (a stated
    /// `sdi_mysqld_version_id`).
    fn sdi_files(dir: &std::path::Path) -> Vec<std::collections::BTreeMap<String, String>> {
        ibdscope_testkit::tsv(&dir.join("manifest.tsv"))
            .into_iter()
            .filter(|m| {
                m.get("sdi_mysqld_version_id")
                    .is_some_and(|v| !v.trim().is_empty())
            })
            .collect()
    }

    /// Every MySQL 8.0+ corpus file whose SDI is readable: the clustered
    /// index's live (not delete-marked) leaf records number the rows the
    /// corpus manifest states (`expected_rows`, from the sources it
    /// cites), and every visible value of every record decodes (no raw
    /// value, no off-page error).
    #[test]
    fn corpus_clustered_rows_match_manifest() {
        let Some(dir) = corpus() else { return };
        let (mut files, mut counted) = (0, 0);
        for m in sdi_files(&dir) {
            let f = |k: &str| m[k].as_str();
            let (c_path, c_rows) = ("path", "expected_rows");
            let data = std::fs::read(dir.join(f(c_path))).unwrap();
            let ts = Tablespace::new(&data).unwrap();
            let t = table_of(&ts).unwrap_or_else(|| panic!("{}: no table SDI", f(c_path)));
            let mut live = 0u64;
            let mut bad = Vec::new();
            each_row(&ts, &t, |page, info, fields| {
                if !info.deleted {
                    live += 1;
                }
                if let Err(e) = render_row(&ts, &t, page, fields) {
                    bad.push(e);
                }
            })
            .unwrap_or_else(|e| panic!("{}: {e}", f(c_path)));
            assert!(bad.is_empty(), "{}: {bad:?}", f(c_path));
            files += 1;
            // "staff=2", "n/a", "instant_add_drop=3".
            if let Some((name, n)) = f(c_rows).split_once('=') {
                assert_eq!(name.trim(), t.name, "{}", f(c_path));
                assert_eq!(live, n.trim().parse::<u64>().unwrap(), "{}", f(c_path));
                counted += 1;
            }
        }
        assert!(files >= 10, "only {files} files");
        assert!(counted >= 7, "only {counted} row counts compared");
    }

    type Row = Vec<(String, Option<String>)>;

    fn rows_of(f: &str) -> Option<Vec<Row>> {
        let dir = corpus()?;
        let data = std::fs::read(dir.join(f)).unwrap();
        let ts = Tablespace::new(&data).unwrap();
        let t = table_of(&ts).unwrap();
        let mut rows = Vec::new();
        each_row(&ts, &t, |page, info, fields| {
            if !info.deleted {
                rows.push(render_row(&ts, &t, page, fields).unwrap());
            }
        })
        .unwrap();
        Some(rows)
    }

    fn get<'r>(row: &'r [(String, Option<String>)], name: &str) -> Option<&'r str> {
        row.iter()
            .find(|(n, _)| n == name)
            .unwrap_or_else(|| panic!("no column {name}"))
            .1
            .as_deref()
    }

    /// Every index of every corpus file with a readable SDI, secondary
    /// ones included: its leaf records (delete-marked too) split without
    /// error and number what the manifest read as the sum of PAGE_N_RECS
    /// over the index's leaves (`leaf_n_recs_read`).
    #[test]
    fn corpus_every_index_splits() {
        use ibdscope_testkit::leaf_recs;
        let Some(dir) = corpus() else { return };
        let mut indexes = 0;
        for m in sdi_files(&dir) {
            let f = |k: &str| m[k].as_str();
            let (c_path, c_leaf) = ("path", "leaf_n_recs_read");
            let data = std::fs::read(dir.join(f(c_path))).unwrap();
            let ts = Tablespace::new(&data).unwrap();
            let t = table_of(&ts).unwrap();
            let stated = leaf_recs(f(c_leaf));
            for ix in &t.indexes {
                let Some(id) = ix.id else { continue };
                let n = each_record(&ts, &t, ix, |_, _, _| {})
                    .unwrap_or_else(|e| panic!("{} {}: {e}", f(c_path), ix.name));
                assert_eq!(
                    Some(u64::from(n)),
                    stated.get(&id).map(|s| s.0),
                    "{} {}",
                    f(c_path),
                    ix.name
                );
                indexes += 1;
            }
        }
        assert!(indexes >= 15, "only {indexes} indexes");
    }

    /// The values KernelMaker/ibdNinja's tests/9.0/sql/04_data_types.sql
    /// inserts (commit 7ca163d8), but CURRENT_TIMESTAMP; the server's time
    /// zone is not stated, and '2000-01-01 00:00:01' reads back as that in
    /// UTC.
    #[test]
    fn corpus_data_types_match_the_inserts() {
        let Some(rows) = rows_of("mysql-9.x/ibdninja_mysql960_data_types.ibd") else {
            return;
        };
        assert_eq!(rows.len(), 3);
        let want1 = [
            ("id", "1"),
            ("tiny_col", "127"),
            ("small_col", "32767"),
            ("medium_col", "8388607"),
            ("big_col", "9223372036854775807"),
            ("float_col", "3.14"),
            ("double_col", "3.14159265359"),
            ("decimal_col", "12345.67"),
            ("char_col", "CHAR10"),
            ("varchar_col", "Variable length string"),
            ("text_col", "This is a text field"),
            ("binary_col", "0x0102030405060708090a0b0c0d0e0f10"),
            ("varbinary_col", "0xdeadbeef"),
            ("blob_col", "0xcafebabe"),
            ("date_col", "2024-06-15"),
            ("time_col", "14:30:00"),
            ("datetime_col", "2024-06-15 14:30:00"),
            ("year_col", "2024"),
            ("enum_col", "B"),
            ("set_col", "X,Z"),
            ("bit_col", "b'10101010'"),
            ("json_col", r#"{"key": "value", "number": 42}"#),
        ];
        for (n, v) in want1 {
            assert_eq!(get(&rows[0], n), Some(v), "row 1 {n}");
        }
        let want2 = [
            ("id", "2"),
            ("tiny_col", "-128"),
            ("small_col", "-32768"),
            ("medium_col", "-8388608"),
            ("big_col", "-9223372036854775808"),
            ("float_col", "-1.5"),
            ("double_col", "-2.718281828"),
            ("decimal_col", "-99999.99"),
            ("char_col", "ABC"),
            ("varchar_col", "Another string"),
            ("text_col", "More text here"),
            ("binary_col", "0xffffffffffffffffffffffffffffffff"),
            ("varbinary_col", "0x12345678"),
            ("blob_col", "0x"),
            ("date_col", "2000-01-01"),
            ("time_col", "00:00:00"),
            ("datetime_col", "2000-01-01 00:00:00"),
            ("timestamp_col", "2000-01-01 00:00:01"),
            ("year_col", "2000"),
            ("enum_col", "A"),
            ("set_col", "Y"),
            ("bit_col", "b'11111111'"),
            ("json_col", "[]"),
        ];
        for (n, v) in want2 {
            assert_eq!(get(&rows[1], n), Some(v), "row 2 {n}");
        }
        assert_eq!(get(&rows[2], "id"), Some("3"));
        assert!(
            rows[2].iter().skip(1).all(|(_, v)| v.is_none()),
            "row 3 NULLs"
        );
    }

    /// tests/9.0/sql/13_vector_test.sql (ibdNinja 7ca163d8):
    /// STRING_TO_VECTOR values and JSON documents.
    #[test]
    fn corpus_vectors_match_the_inserts() {
        let Some(rows) = rows_of("mysql-9.x/ibdninja_mysql960_vector_test.ibd") else {
            return;
        };
        assert_eq!(rows.len(), 3);
        assert_eq!(get(&rows[0], "description"), Some("first vector"));
        assert_eq!(
            get(&rows[0], "embedding"),
            Some("[1.00000e+00,2.00000e+00,3.00000e+00,4.00000e+00]")
        );
        assert!(get(&rows[0], "embedding_large")
            .unwrap()
            .starts_with("[1.00000e-01,2.00000e-01,3.00000e-01,"));
        assert_eq!(get(&rows[0], "json_col"), Some(r#"{"key": "value"}"#));
        assert_eq!(
            get(&rows[1], "embedding"),
            Some("[5.00000e+00,6.00000e+00,7.00000e+00,8.00000e+00]")
        );
        assert_eq!(get(&rows[1], "json_col"), Some("[]"));
        assert_eq!(get(&rows[2], "description"), Some("null vectors"));
        assert_eq!(get(&rows[2], "embedding"), None);
    }

    /// tests/8.0/sql/12_blob_external.sql (ibdNinja 7ca163d8; the 9.x file
    /// is generated from the same statements): REPEAT() values, row 2
    /// updated to 16000 'X'.
    #[test]
    fn corpus_blobs_match_the_inserts() {
        let Some(rows) = rows_of("mysql-9.x/ibdninja_mysql960_blob_external.ibd") else {
            return;
        };
        assert_eq!(rows.len(), 5);
        let hex = |c: u8, n: usize| format!("0x{}", format!("{c:02x}").repeat(n));
        assert_eq!(get(&rows[0], "data"), Some(hex(b'A', 100).as_str()));
        assert_eq!(get(&rows[1], "data"), Some(hex(b'X', 16000).as_str()));
        assert_eq!(get(&rows[2], "data"), Some(hex(b'C', 32000).as_str()));
        assert_eq!(get(&rows[3], "data"), Some(hex(b'D', 65000).as_str()));
        assert_eq!(get(&rows[4], "data"), Some(hex(b'E', 20000).as_str()));
        assert_eq!(get(&rows[4], "extra"), Some("F".repeat(20000).as_str()));
        assert_eq!(get(&rows[3], "extra"), Some("very large external blob"));
    }

    /// tests/8.0/generate_json_partial_fixture.sh (ibdNinja 9fd8af71): after
    /// the partial updates doc1.payload is 10000 'M' and doc2.large_text
    /// 10000 'Y'; the rest as tests/9.0/sql/13_json_partial_update.sql
    /// inserts it. The LOB index entries hold older versions too: the
    /// reader must pick the ones of the record's LOB version.
    #[test]
    fn corpus_json_partial_reads_the_current_version() {
        let Some(rows) = rows_of("mysql-8.0/ibdninja_mysql8040_json_partial.ibd") else {
            return;
        };
        assert_eq!(rows.len(), 1);
        let d1 = get(&rows[0], "doc1").unwrap();
        assert!(
            d1.contains(&format!(r#""payload": "{}""#, "M".repeat(10000))),
            "{}",
            &d1[..200]
        );
        assert!(d1.contains(
            r#""numbers": [0, 1, -1, 255, -128, 65535, 100000, 2147483647, -2147483648, 4294967295, 9999999999]"#
        ));
        assert!(d1.contains(r#""tags": ["alpha", "beta", "gamma", "delta"]"#));
        assert!(d1.contains(r#""nullval": null"#));
        assert!(d1.contains(r#""empty_obj": {}"#));
        let d2 = get(&rows[0], "doc2").unwrap();
        assert!(d2.contains(&format!(r#""large_text": "{}""#, "Y".repeat(10000))));
        assert!(d2.contains(r#""description": "second json column test data""#));
    }

    /// tests/8.0/sql/08_instant_add_drop.sql (ibdNinja 7ca163d8): one row
    /// per schema version; col_datetime_6 was added after row 1 (NULL
    /// there); col_varchar and col_char are dropped.
    #[test]
    fn corpus_instant_add_drop_rows() {
        let Some(dir) = corpus() else { return };
        let data =
            std::fs::read(dir.join("mysql-8.0/ibdninja_mysql8040_instant_add_drop.ibd")).unwrap();
        let ts = Tablespace::new(&data).unwrap();
        let t = table_of(&ts).unwrap();
        let names: Vec<&str> = t.visible_columns().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["col_uint", "col_datetime_0", "col_datetime_6"]);
        let mut rows = Vec::new();
        let mut versions = Vec::new();
        each_row(&ts, &t, |page, info, fields| {
            versions.push(info.version);
            // The dropped columns' bytes are still in rows 1 and 2.
            let dropped: Vec<Option<String>> = fields
                .iter()
                .filter(|f| t.columns[f.column].name.starts_with("!hidden!_dropped"))
                .map(|f| {
                    f.local(page).map(|b| {
                        let mut s = String::new();
                        crate::value::render(&t.columns[f.column], b, &mut s);
                        s
                    })
                })
                .collect();
            rows.push((render_row(&ts, &t, page, fields).unwrap(), dropped));
        })
        .unwrap();
        assert_eq!(rows.len(), 3);
        // Row 1: no version byte (version 0); rows 2 and 3 after the ALTERs.
        assert_eq!(versions[0], None);
        assert!(versions[1].is_some() && versions[2] > versions[1]);
        assert_eq!(get(&rows[0].0, "col_uint"), Some("1"));
        assert_eq!(get(&rows[0].0, "col_datetime_6"), None);
        assert_eq!(rows[0].1, vec![Some("Row_V1".to_string()), None]);
        assert_eq!(get(&rows[1].0, "col_uint"), Some("2"));
        assert!(get(&rows[1].0, "col_datetime_6").is_some());
        assert_eq!(
            rows[1].1,
            vec![Some("Row_V2".to_string()), Some("ibdNinja".to_string())]
        );
        assert_eq!(get(&rows[2].0, "col_uint"), Some("3"));
        assert_eq!(rows[2].1, vec![None, None]);
    }

    /// tests/8.4/sql/06_with_deletes.sql per the corpus manifest: ids 1..10
    /// inserted, the even ones deleted.
    #[test]
    fn corpus_with_deletes_keeps_the_odd_ids() {
        let Some(rows) = rows_of("mysql-8.4/ibdninja_mysql848_with_deletes.ibd") else {
            return;
        };
        let ids: Vec<&str> = rows.iter().map(|r| get(r, "id").unwrap()).collect();
        assert_eq!(ids, ["1", "3", "5", "7", "9"]);
    }

    /// A definition built by hand, as a `.frm` or DDL reader would fill
    /// it: `cols` in table order (name, type, max bytes, unsigned,
    /// nullable), the first the primary key; the clustered index is the
    /// key, DB_TRX_ID, DB_ROLL_PTR, then the rest (`dict0dict.cc`
    /// `dict_index_build_internal_clust`).
    fn by_hand(name: &str, cols: &[(&str, ColType, u32, bool, bool)]) -> TableDef {
        by_hand_keyed(name, cols, 1, 33)
    }

    /// As [`by_hand`], the first `n_key` columns the primary key, text in
    /// collation `coll`.
    fn by_hand_keyed(
        name: &str,
        cols: &[(&str, ColType, u32, bool, bool)],
        n_key: usize,
        coll: u32,
    ) -> TableDef {
        let mut columns: Vec<Column> = cols
            .iter()
            .map(|&(n, t, len, unsigned, nullable)| {
                let mut c = Column::new(n, t);
                c.length = len;
                c.unsigned = unsigned;
                c.nullable = nullable;
                c.collation_id = if matches!(t, ColType::Blob) { 63 } else { coll };
                c
            })
            .collect();
        for (n, t) in [
            ("DB_TRX_ID", ColType::Int24),
            ("DB_ROLL_PTR", ColType::LongLong),
        ] {
            let mut c = Column::new(n, t);
            c.hidden = Hidden::Se;
            c.nullable = false;
            columns.push(c);
        }
        let n = cols.len();
        let mut elements: Vec<IndexElement> = (0..n_key)
            .map(|column| IndexElement {
                column,
                prefix_len: None,
                hidden: false,
            })
            .collect();
        for column in [n, n + 1].into_iter().chain(n_key..n) {
            elements.push(IndexElement {
                column,
                prefix_len: None,
                hidden: true,
            });
        }
        TableDef {
            name: name.into(),
            schema: String::new(),
            row_format: RowFormat::Compact,
            columns,
            indexes: vec![IndexDef {
                name: "PRIMARY".into(),
                kind: IndexKind::Primary,
                id: None,
                root: None,
                hidden: false,
                elements,
            }],
            instant_cols: None,
            source: DefSource::Manual,
            options: Default::default(),
        }
    }

    /// The clustered index's live rows of a file without SDI, read with a
    /// hand-built definition (root: the lowest index id's, the clustered
    /// index being created first).
    fn rows_by_hand(f: &str, t: &TableDef) -> Option<Vec<Row>> {
        let dir = corpus()?;
        let data = std::fs::read(dir.join(f)).unwrap();
        let ts = Tablespace::new(&data).unwrap();
        let map = ibdscope_core::SpaceMap::build(&ts, &ibdscope_core::Engine::default());
        let ix = map.indexes.iter().min_by_key(|i| i.index_id.0).unwrap();
        let mut t = t.clone();
        t.indexes[0].root = Some(ix.root.0);
        let mut rows = Vec::new();
        each_row(&ts, &t, |page, info, fields| {
            if !info.deleted {
                rows.push(render_row(&ts, &t, page, fields).unwrap_or_else(|e| panic!("{f}: {e}")));
            }
        })
        .unwrap_or_else(|e| panic!("{f}: {e}"));
        Some(rows)
    }

    /// classicmodels.orderdetails as hhorak/mysql-sample-db's
    /// mysqlsampledatabase.sql (commit efbcb320) creates it: latin1, a
    /// two-column key; the manifest states 2996 rows for the MySQL 5.6 and
    /// MariaDB 10.0 copies; the first four rows are the script's first
    /// INSERT tuples.
    #[test]
    fn corpus_orderdetails_composite_key() {
        let t = by_hand_keyed(
            "orderdetails",
            &[
                ("orderNumber", ColType::Long, 11, false, false),
                ("productCode", ColType::Varchar, 15, false, false),
                ("quantityOrdered", ColType::Long, 11, false, false),
                ("priceEach", ColType::NewDecimal, 12, false, false),
                ("orderLineNumber", ColType::Short, 6, false, false),
            ],
            2,
            8,
        );
        let mut t = t;
        t.columns[3].precision = 10;
        t.columns[3].scale = 2;
        for f in [
            "mysql-5.6/classicmodels_mysql56_orderdetails.ibd",
            "mariadb-10.x/classicmodels_mariadb100_orderdetails.ibd",
        ] {
            let Some(rows) = rows_by_hand(f, &t) else {
                return;
            };
            assert_eq!(rows.len(), 2996, "{f}");
            let want = [
                ["10100", "S18_1749", "30", "136.00", "3"],
                ["10100", "S18_2248", "50", "55.09", "2"],
                ["10100", "S18_4409", "22", "75.46", "4"],
                ["10100", "S24_3969", "49", "35.29", "1"],
            ];
            for (row, w) in rows.iter().zip(want) {
                let got: Vec<&str> = row.iter().map(|(_, v)| v.as_deref().unwrap()).collect();
                assert_eq!(got, w, "{f}");
            }
        }
    }

    /// alibaba/innodb-java-reader's tb13.sql (commit 341c1762) creates
    /// tb13 (utf8; c VARCHAR(1024) nullable, so 2-byte lengths) and inserts
    /// (i, 2i, 16 'A', 8 'C' and the letter 97 + i % 26) for i in 1..2000,
    /// then deletes the even ids; the corpus manifest adds that ids
    /// 2001..3000 were inserted after (2000 rows). The delete-marked records
    /// still on the leaves are not rows.
    #[test]
    fn corpus_tb13_live_rows_after_deletes() {
        let t = by_hand(
            "tb13",
            &[
                ("id", ColType::Long, 11, false, false),
                ("a", ColType::LongLong, 20, false, false),
                ("b", ColType::Varchar, 192, false, false),
                ("c", ColType::Varchar, 3072, false, true),
            ],
        );
        let Some(rows) = rows_by_hand("mysql-5.6/javareader_mysql5639_tb13_deletes.ibd", &t) else {
            return;
        };
        assert_eq!(rows.len(), 2000);
        let ids: Vec<u32> = rows
            .iter()
            .map(|r| get(r, "id").unwrap().parse().unwrap())
            .collect();
        let want: Vec<u32> = (1..2000).step_by(2).chain(2001..=3000).collect();
        assert_eq!(ids, want);
        for r in rows.iter().take(1000) {
            let id: u32 = get(r, "id").unwrap().parse().unwrap();
            assert_eq!(get(r, "a"), Some((2 * id).to_string().as_str()));
            assert_eq!(get(r, "b"), Some("AAAAAAAAAAAAAAAA"));
            let c = format!("CCCCCCCC{}", char::from(b'a' + (id % 26) as u8));
            assert_eq!(get(r, "c"), Some(c.as_str()));
        }
    }

    /// The rows of a file read with a definition from an SDI document
    /// (root: the lowest index id's, the clustered index being created
    /// first).
    fn rows_through_sdi(path: &std::path::Path, sdi: &str) -> Vec<Row> {
        let data = std::fs::read(path).unwrap();
        let ts = Tablespace::new(&data).unwrap();
        let mut t = TableDef::from_sdi(&crate::json::parse(sdi.as_bytes()).unwrap()).unwrap();
        let map = ibdscope_core::SpaceMap::build(&ts, &ibdscope_core::Engine::default());
        let ix = map.indexes.iter().min_by_key(|i| i.index_id.0).unwrap();
        t.indexes[0].root = Some(ix.root.0);
        // As TableDef::from_tablespace does with the SDI's root.
        t.settle_fts_word(&ts);
        let mut rows = Vec::new();
        each_row(&ts, &t, |page, info, fields| {
            if !info.deleted {
                rows.push(render_row(&ts, &t, page, fields).unwrap());
            }
        })
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        rows
    }

    /// MySQL 8 FTS auxiliary tables read through the SDI InnoDB writes for
    /// them (before, `key` came out empty, `value`,
    /// `last_doc_id`, `doc_count`, `ilist` missing). The SDIs are what
    /// mysql-server 8.0 `dict0dd.cc` `dd_create_fts_common_table` and
    /// `dd_create_fts_index_table` build: the user columns, a PRIMARY of
    /// the key only, no DB_TRX_ID/DB_ROLL_PTR. The files are a real
    /// server's (`tests/fts/gen.sh`: MariaDB 10.11.19, whose auxiliary
    /// tables InnoDB lays out as MySQL 8.0 does, `fts0fts.cc`
    /// `fts_create_one_common_table`/`fts_create_one_index_table`); the
    /// expected rows are the server's INNODB_FT_CONFIG and
    /// INNODB_FT_INDEX_TABLE.
    #[test]
    fn fts_auxiliary_tables_through_their_sdi() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fts");
        let head = r#"{"dd_object_type":"Table","dd_object":{"name":"aux","schema_ref":"ftsdb",
            "row_format":2,"collation_id":63,"hidden":2,"se_private_data":"","#;
        let config = format!(
            r#"{head}"columns":[
             {{"name":"key","type":16,"is_nullable":false,"hidden":1,"char_length":50,"collation_id":8}},
             {{"name":"value","type":16,"is_nullable":false,"hidden":1,"char_length":200,"collation_id":8}}],
            "indexes":[{{"name":"FTS_COMMON_TABLE_IND","type":1,"hidden":false,"se_private_data":"",
             "elements":[{{"column_opx":0,"length":50,"hidden":false}}]}}]}}}}"#
        );
        let rows = rows_through_sdi(&dir.join("fts_CONFIG.ibd"), &config);
        let want = std::fs::read_to_string(dir.join("ft_config.tsv")).unwrap();
        // INNODB_FT_CONFIG reads each of its keys from the table and shows
        // a key the table lacks as empty (stopword_table_name, never set).
        for l in want.lines() {
            let (k, v) = l.split_once('\t').unwrap();
            let found = rows.iter().find(|r| get(r, "key") == Some(k));
            assert_eq!(
                found.and_then(|r| get(r, "value")).unwrap_or(""),
                v,
                "config {k} in {rows:?}"
            );
        }
        // FTS_INDEX_WORD_LEN is HA_FT_MAXBYTELEN (336); the word's collation
        // is the FULLTEXT column's (latin1_swedish_ci here).
        let index = format!(
            r#"{head}"columns":[
             {{"name":"word","type":16,"is_nullable":false,"hidden":1,"char_length":336,"collation_id":8}},
             {{"name":"first_doc_id","type":9,"is_nullable":false,"is_unsigned":true,"hidden":1,"char_length":20,"collation_id":8}},
             {{"name":"last_doc_id","type":9,"is_nullable":false,"is_unsigned":true,"hidden":1,"char_length":20,"collation_id":8}},
             {{"name":"doc_count","type":4,"is_nullable":false,"is_unsigned":true,"hidden":1,"char_length":4,"collation_id":8}},
             {{"name":"ilist","type":27,"is_nullable":false,"hidden":1,"char_length":8,"collation_id":63}}],
            "indexes":[{{"name":"FTS_INDEX_TABLE_IND","type":1,"hidden":false,"se_private_data":"",
             "elements":[{{"column_opx":0,"length":336,"hidden":false}},{{"column_opx":1,"length":8,"hidden":false}}]}}]}}}}"#
        );
        let mut got = Vec::new();
        for n in 1..=6 {
            for r in rows_through_sdi(&dir.join(format!("fts_INDEX_{n}.ibd")), &index) {
                let ilist = get(&r, "ilist").unwrap_or_default();
                assert!(!ilist.is_empty(), "{r:?}");
                got.push(
                    ["word", "first_doc_id", "last_doc_id", "doc_count"]
                        .map(|c| get(&r, c).unwrap().to_string())
                        .join("\t"),
                );
            }
        }
        got.sort();
        let want = std::fs::read_to_string(dir.join("ft_index.tsv")).unwrap();
        assert_eq!(got, want.lines().collect::<Vec<_>>());
    }

    /// A FULLTEXT table read through the SDI MySQL 8.0 writes for it
    /// (before, `rows` said "definition does not fit" on clean
    /// MySQL 8.0/8.4 FULLTEXT tables, every record 8 bytes longer than the
    /// definition). The corpus's FULLTEXT table is sakila.film_text of MySQL
    /// 5.7 (MANIFEST.md: `film_id SMALLINT PK, title VARCHAR(255),
    /// description TEXT; FULLTEXT KEY idx_title_description`, 1000 rows,
    /// "hidden FTS_DOC_ID column + FTS_DOC_ID_INDEX"); its records are
    /// what 8.0 stores too. The SDI is the one 8.0 derives from that
    /// statement (mysql-server 8.0 `ha_innodb.cc`
    /// `get_extra_columns_and_keys`): FTS_DOC_ID a column hidden by the
    /// engine (`hidden` 2, after the user columns), left out of PRIMARY's
    /// elements, and FTS_DOC_ID_INDEX on it. film_id is unsigned: the first
    /// record stores `00 01`, and InnoDB flips the sign bit of a signed
    /// integer (`row0mysql.cc` `row_mysql_store_col_in_innobase_format`).
    #[test]
    fn corpus_fulltext_table_through_its_sdi() {
        use crate::json;
        let Some(dir) = corpus() else { return };
        let f = "mysql-5.7/sakila_mysql57_film_text.ibd";
        let data = std::fs::read(dir.join(f)).unwrap();
        let ts = Tablespace::new(&data).unwrap();
        let doc = json::parse(
            br#"{"dd_object_type":"Table","dd_object":{"name":"film_text","schema_ref":"sakila",
            "row_format":2,"collation_id":33,"se_private_data":"","columns":[
             {"name":"film_id","type":3,"is_nullable":false,"is_unsigned":true,"hidden":1,"char_length":5,"collation_id":63},
             {"name":"title","type":16,"is_nullable":false,"hidden":1,"char_length":765,"collation_id":33},
             {"name":"description","type":27,"is_nullable":true,"hidden":1,"char_length":65535,"collation_id":33},
             {"name":"FTS_DOC_ID","type":9,"is_nullable":false,"is_unsigned":true,"hidden":2,"char_length":20,"collation_id":1},
             {"name":"DB_TRX_ID","type":10,"is_nullable":false,"hidden":2,"char_length":6,"collation_id":63},
             {"name":"DB_ROLL_PTR","type":9,"is_nullable":false,"hidden":2,"char_length":7,"collation_id":63}],
            "indexes":[
             {"name":"PRIMARY","type":1,"hidden":false,"se_private_data":"","elements":[
              {"column_opx":0,"length":2,"hidden":false},{"column_opx":4,"length":4294967295,"hidden":true},
              {"column_opx":5,"length":4294967295,"hidden":true},{"column_opx":1,"length":4294967295,"hidden":true},
              {"column_opx":2,"length":4294967295,"hidden":true}]},
             {"name":"FTS_DOC_ID_INDEX","type":2,"hidden":true,"se_private_data":"","elements":[
              {"column_opx":3,"length":8,"hidden":false},{"column_opx":0,"length":4294967295,"hidden":true}]},
             {"name":"idx_title_description","type":4,"hidden":false,"se_private_data":"","elements":[
              {"column_opx":1,"length":765,"hidden":false},{"column_opx":2,"length":65535,"hidden":false},
              {"column_opx":0,"length":4294967295,"hidden":true}]}]}}"#,
        )
        .unwrap();
        let mut t = TableDef::from_sdi(&doc).unwrap();
        let map = ibdscope_core::SpaceMap::build(&ts, &ibdscope_core::Engine::default());
        // The clustered index is created first: the lowest index id.
        let ix = map.indexes.iter().min_by_key(|i| i.index_id.0).unwrap();
        t.indexes[0].root = Some(ix.root.0);
        let layout = t.layout(&t.indexes[0], true).unwrap();
        let last = layout.fields.last().unwrap();
        assert_eq!(t.columns[last.column].name, "FTS_DOC_ID");
        assert_eq!((last.fixed_len, last.nullable), (Some(8), false));
        let mut pages = Vec::new();
        let mut ids = Vec::new();
        each_row(&ts, &t, |page, info, fields| {
            assert!(!info.deleted, "{f}");
            let n = FilHeader::new(page).unwrap().page_no();
            if pages.last() != Some(&n) {
                pages.push(n);
            }
            let row = render_row(&ts, &t, page, fields).unwrap();
            ids.push(
                get(&row, "film_id")
                    .unwrap()
                    .parse::<u32>()
                    .unwrap_or_else(|_| panic!("{row:?}")),
            );
        })
        .unwrap();
        assert_eq!(ids.len(), 1000, "{f}: the manifest's film_text=1000");
        assert!(ids.windows(2).all(|w| w[0] < w[1]), "{f}: keys ascend");
        let mut visited = Visited::new();
        let mut fields = Vec::new();
        for n in pages {
            let rp = RecPage::of(&ts, n).unwrap();
            let fit = page_fit(&rp, &layout, &mut visited, &mut fields).unwrap();
            assert!(fit.fits(), "{f}: page {n}: {fit:?}");
        }
    }

    /// MySQL 5.x files have no SDI: a hand-built definition from the
    /// manifest's stated columns (types as the 8.0 SDI of the same sakila
    /// tables gives them) reads the stated row counts, in the COMPACT
    /// (5.0) and REDUNDANT (5.6) formats, and the 5.6 COMPACT staff
    /// picture through its 768-byte prefix and old BLOB page chain.
    #[test]
    fn corpus_hand_built_definitions() {
        let Some(dir) = corpus() else { return };
        let actor = by_hand(
            "actor",
            &[
                ("actor_id", ColType::Short, 5, true, false),
                ("first_name", ColType::Varchar, 135, false, false),
                ("last_name", ColType::Varchar, 135, false, false),
                ("last_update", ColType::Timestamp, 19, false, false),
            ],
        );
        let staff = by_hand(
            "staff",
            &[
                ("staff_id", ColType::Tiny, 3, true, false),
                ("first_name", ColType::Varchar, 135, false, false),
                ("last_name", ColType::Varchar, 135, false, false),
                ("address_id", ColType::Short, 5, true, false),
                ("picture", ColType::Blob, 65535, false, true),
                ("email", ColType::Varchar, 150, false, true),
                ("store_id", ColType::Tiny, 3, true, false),
                ("active", ColType::Tiny, 1, false, false),
                ("username", ColType::Varchar, 48, false, false),
                ("password", ColType::Varchar, 120, false, true),
                ("last_update", ColType::Timestamp, 19, false, false),
            ],
        );
        for (f, t, want) in [
            ("mysql-5.0/sakila_mysql50_actor.ibd", &actor, 200),
            ("mysql-5.6/sakila_mysql56_redundant_actor.ibd", &actor, 200),
            ("mysql-5.6/sakila_mysql56_compact_staff.ibd", &staff, 2),
        ] {
            let data = std::fs::read(dir.join(f)).unwrap();
            let ts = Tablespace::new(&data).unwrap();
            let map = ibdscope_core::SpaceMap::build(&ts, &ibdscope_core::Engine::default());
            // The clustered index is created first: the lowest index id.
            let ix = map.indexes.iter().min_by_key(|i| i.index_id.0).unwrap();
            let mut t = t.clone();
            t.indexes[0].root = Some(ix.root.0);
            let mut ids = Vec::new();
            let mut externals = 0;
            each_row(&ts, &t, |page, info, fields| {
                assert!(!info.deleted, "{f}");
                let row = render_row(&ts, &t, page, fields).unwrap_or_else(|e| panic!("{f}: {e}"));
                ids.push(
                    get(&row, t.columns[0].name.as_str())
                        .unwrap()
                        .parse::<u32>()
                        .unwrap(),
                );
                for fl in fields {
                    if let FieldValue::External {
                        local_len, blob, ..
                    } = fl.value
                    {
                        // COMPACT keeps a 768-byte prefix (DICT_ANTELOPE_MAX_INDEX_COL_LEN).
                        assert_eq!(local_len, 768, "{f}");
                        let mut buf = Vec::new();
                        let r = field_bytes(&ts, page, fl, usize::MAX, &mut buf).unwrap();
                        assert_eq!(r, Ok(LobRead::Complete), "{f}");
                        assert_eq!(buf.len(), 768 + blob.len as usize, "{f}");
                        externals += 1;
                    }
                }
            })
            .unwrap_or_else(|e| panic!("{f}: {e}"));
            assert_eq!(ids.len(), want, "{f}");
            assert!(ids.windows(2).all(|w| w[0] < w[1]), "{f}: keys ascend");
            if t.name == "staff" {
                assert_eq!(externals, 1, "{f}: one picture stored off-page");
            }
        }
    }
}
