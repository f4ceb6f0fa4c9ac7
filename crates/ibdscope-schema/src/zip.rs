//! ROW_FORMAT=COMPRESSED index pages: [`decompress`] rebuilds the
//! uncompressed COMPACT page from a compressed one the way the server's
//! `page_zip_decompress` does, so that [`ibdscope_core::record::RecPage`] and
//! the record splitter (`row::split`) read it like any other page.
//!
//! Sources, as read: MySQL `storage/innobase/page/page0zip.cc` (5.6/5.7:
//! `page_zip_decompress_low`, `page_zip_fields_decode`,
//! `page_zip_dir_decode`, `page_zip_set_extra_bytes`,
//! `page_zip_decompress_node_ptrs` / `_sec` / `_clust` / `_clust_ext`,
//! `page_zip_apply_log` / `_ext`, `page_zip_compress` for the writer's
//! side; commit 0233d0a9, 5.7), `include/page0zip.h` and `page0types.h`
//! (`PAGE_ZIP_*`), `rem0rec.cc` (`rec_init_offsets_comp_ordinary`,
//! `rec_get_offsets_reverse`). MySQL 8.0 moved the reading half to
//! `page/zipdecompress.cc` and MariaDB keeps its own `page0zip.cc`; not
//! compared line by line, but pages written by MySQL 5.6, MariaDB 10.11 and
//! MySQL 8.0 decode to the servers' rows (the tests below; docs/format.md
//! §17).
//!
//! A compressed page of `size` bytes (1K–16K, `KEY_BLOCK_SIZE`):
//!
//! | bytes | what |
//! |---|---|
//! | 0..38 | FIL header, as on any page |
//! | 38..94 | the INDEX page header (PAGE_DATA = 94), uncompressed, identical to the uncompressed page's |
//! | 94.. | one zlib stream (window 2^page_size_shift): first the index field information, ended by a full flush (its own DEFLATE block), then the bytes of the uncompressed page from PAGE_ZIP_START = 120 up to PAGE_HEAP_TOP, in heap order, *without* each record's 5 fixed header bytes, DB_TRX_ID and DB_ROLL_PTR (clustered leaf), BLOB pointers (20 bytes) and child page numbers (node pointers) |
//! | after the stream | the modification log: records written since the page was compressed, until a 0 byte |
//! | free space | zero bytes |
//! | below the dense directory | clustered leaf: BLOB pointers of live records, 20 bytes each, growing down, in heap order of their records |
//! | below the dense directory | clustered leaf: (DB_TRX_ID, DB_ROLL_PTR), 13 bytes per record, by heap number (heap 2 highest); node pointer page: the 4-byte child page per record, likewise |
//! | last 2 × n_dense bytes | the dense directory: one 2-byte entry per record (PAGE_N_HEAP − 2), counted down from the end: the user records in key order, then the free list in order; bits 0x3FFF the record offset, 0x4000 owns a directory slot, 0x8000 delete-marked |
//!
//! Field information (`page_zip_fields_encode`): one entry per field
//! group, 1 byte, or 2 when the first has 0x80 (`(b1 & 0x7F) << 8 | b2`):
//! `0`/`1` variable length of at most 255 bytes, `126`/`127` variable
//! with a larger maximum (the two-byte lengths), otherwise a fixed length
//! `val >> 1`; bit 0 set = NOT NULL. Consecutive NOT NULL fixed-length
//! fields are merged into one entry (at most 768 bytes), and on clustered
//! leaf pages DB_TRX_ID starts an entry of its own. The last value is, on
//! leaf pages, the entry number of DB_TRX_ID (0 on secondary indexes),
//! on node pointer pages the index's number of nullable fields.
//!
//! The infimum and supremum are not stored; the record headers are
//! rebuilt: heap numbers in address order from 2, next pointers from the
//! dense directory's order, n_owned and the sparse directory from the
//! "owned" bits, the delete mark from 0x8000, the minimum-record flag on
//! the first record of a leftmost node pointer page. The free list keeps
//! the dense directory's order; its records get info bits and n_owned 0.
//!
//! Modification log entry (`page_zip_write_rec`): heap number − 1 shifted
//! left by one (1 byte, or 2 with 0x80 from heap number 65), bit 0 = the
//! record was freed (its data bytes are zeroed); then, unless freed, the
//! record's extra bytes below the fixed 5, in reverse (nearest first),
//! then its data bytes without the ones stored uncompressed. A heap number
//! one past the last known one creates a record.
//!
//! Work is bounded before it starts: at most 8189 records, 1023 fields,
//! one log entry per log byte; nothing is allocated but `out` (reused by
//! the caller; it grows to twice the logical page size).

/// Defined with the crate's error, re-exported here.
pub use crate::error::ZipErrorKind;
use crate::error::{Error, ErrorKind, Place};
use ibdscope_codec::inflate::{inflate_zlib_blocks, InflateErrorKind};
use ibdscope_core::fil::FIL_PAGE_PREV;
use ibdscope_core::index::{
    PAGE_DATA, PAGE_DIR, PAGE_DIR_SLOT_SIZE, PAGE_HEADER, PAGE_HEAP_TOP, PAGE_LEVEL,
    PAGE_NEW_INFIMUM, PAGE_NEW_SUPREMUM, PAGE_NEW_SUPREMUM_END, PAGE_N_DIR_SLOTS, PAGE_N_HEAP,
    PAGE_N_RECS,
};
use ibdscope_core::record::{
    INFIMUM_DATA, REC_HEAP_NO_SHIFT, REC_INFO_DELETED_FLAG, REC_INFO_MIN_REC_FLAG,
    REC_NODE_PTR_SIZE, REC_N_NEW_EXTRA_BYTES,
};
use ibdscope_core::FIL_NULL;
use ibdscope_prims::bytes::be_u16;

/// `BTR_EXTERN_FIELD_REF_SIZE`: the bytes of an off-page reference (a BLOB
/// pointer), which a compressed page keeps in its trailer.
pub const BTR_EXTERN_FIELD_REF_SIZE: usize = 20;
/// Start of the compressed area of the uncompressed page.
pub const PAGE_ZIP_START: usize = PAGE_NEW_SUPREMUM_END;
/// Size of a dense directory entry.
pub const PAGE_ZIP_DIR_SLOT_SIZE: usize = 2;
/// Dense directory entry: the record offset.
pub const PAGE_ZIP_DIR_SLOT_MASK: u16 = 0x3fff;
/// Dense directory entry: the record owns a directory slot.
pub const PAGE_ZIP_DIR_SLOT_OWNED: u16 = 0x4000;
/// Dense directory entry: the record is delete-marked.
pub const PAGE_ZIP_DIR_SLOT_DEL: u16 = 0x8000;
/// DB_TRX_ID length.
pub const DATA_TRX_ID_LEN: usize = 6;
/// DB_ROLL_PTR length.
pub const DATA_ROLL_PTR_LEN: usize = 7;
/// The largest compressed or uncompressed page size of a compressed page.
pub const UNIV_ZIP_SIZE_MAX: usize = 16384;
/// The most fields an index record has (`REC_MAX_N_FIELDS`).
const REC_MAX_N_FIELDS: usize = 1023;
/// Fixed-length fields longer than this are treated as variable-length
/// (`DICT_MAX_FIXED_COL_LEN`, `dict_index_add_col`).
const DICT_MAX_FIXED_COL_LEN: usize = 768;
/// Heap numbers are 13 bits: at most 8191 − 2 user records.
const MAX_DENSE: usize = 8192;
const REC_STATUS_NODE_PTR: u16 = ibdscope_core::record::REC_STATUS_NODE_PTR as u16;
const TRX_ROLL: usize = DATA_TRX_ID_LEN + DATA_ROLL_PTR_LEN;
const INFIMUM_EXTRA: [u8; 3] = [0x01, 0x00, 0x02];
const SUPREMUM_EXTRA_DATA: [u8; 12] = [
    0x00, 0x0b, 0x00, 0x00, b's', b'u', b'p', b'r', b'e', b'm', b'u', b'm',
];

/// A decompression error ([`ErrorKind::Zip`]) at byte `offset` of the
/// compressed page, or, when `logical`, of the uncompressed page being
/// rebuilt.
fn zip_err(kind: ZipErrorKind, offset: usize, logical: bool) -> Error {
    let place = if logical {
        Place::Rebuilt {
            page: None,
            page_offset: offset,
        }
    } else {
        Place::Page {
            page: None,
            page_offset: offset,
        }
    };
    Error::new(ErrorKind::Zip(kind), place)
}

/// What [`decompress`] found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ZipInfo {
    /// Dense directory entries (PAGE_N_HEAP − 2): user and free records.
    pub n_dense: u16,
    /// User records (PAGE_N_RECS).
    pub n_recs: u16,
    /// Leaf page.
    pub leaf: bool,
    /// Clustered index leaf page (DB_TRX_ID stored uncompressed).
    pub clustered: bool,
    /// Field groups of the field information.
    pub n_fields: u16,
    /// Records whose bytes came from the zlib stream (the others come
    /// from the modification log).
    pub stream_records: u16,
    /// Compressed page offset where the zlib stream ends and the
    /// modification log starts (`m_start`).
    pub m_start: u16,
    /// Compressed page offset of the log's end marker (`m_end`).
    pub m_end: u16,
    /// Modification log entries applied.
    pub log_entries: u16,
    /// BLOB pointers restored from the trailer.
    pub n_blobs: u16,
}

/// One field group of the field information (a column of the server's
/// dummy index).
#[derive(Clone, Copy, Debug, Default)]
struct ZField {
    /// Fixed length, 0 for variable-length.
    fixed: u16,
    not_null: bool,
    /// Maximum length over 255 bytes: two-byte lengths, may be external.
    big: bool,
}

/// Field end offsets of one record (`rec_get_offsets`).
struct Offs {
    n: usize,
    /// Bytes before the origin, the 5 fixed header bytes included.
    extra: usize,
    ends: [u32; REC_MAX_N_FIELDS + 1],
    starts: [u32; REC_MAX_N_FIELDS + 1],
    ext: [u64; 16],
    any_ext: bool,
}

impl Offs {
    fn new() -> Self {
        Offs {
            n: 0,
            extra: 0,
            ends: [0; REC_MAX_N_FIELDS + 1],
            starts: [0; REC_MAX_N_FIELDS + 1],
            ext: [0; 16],
            any_ext: false,
        }
    }
    fn data_size(&self) -> usize {
        self.n
            .checked_sub(1)
            .and_then(|i| self.ends.get(i))
            .map_or(0, |&e| e as usize)
    }
    /// (start, length) of field `i` relative to the origin.
    fn field(&self, i: usize) -> Option<(usize, usize)> {
        let s = *self.starts.get(i)? as usize;
        let e = *self.ends.get(i)? as usize;
        Some((s, e.checked_sub(s)?))
    }
    fn is_ext(&self, i: usize) -> bool {
        self.ext.get(i / 64).is_some_and(|w| w >> (i % 64) & 1 == 1)
    }
}

/// The dummy index of the field information.
struct Index {
    fields: [ZField; REC_MAX_N_FIELDS],
    n: usize,
    n_nullable: usize,
    /// Field group of DB_TRX_ID (clustered leaf pages).
    trx_id_col: Option<usize>,
}

impl Index {
    /// `rec_init_offsets_comp_ordinary` / `rec_get_offsets_reverse`:
    /// `byte(k)` is the k-th extra byte going away from the fixed header
    /// (the NULL bitmap, then the lengths).
    fn offsets(
        &self,
        node_ptr: bool,
        byte: impl Fn(usize) -> Option<u8>,
        o: &mut Offs,
    ) -> Option<()> {
        let n = self.n.checked_add(usize::from(node_ptr))?;
        let mut null_k = 0usize;
        let mut mask: u32 = 1;
        let mut lens_k = self.n_nullable.div_ceil(8);
        let mut offs: u32 = 0;
        o.n = 0;
        o.ext = [0; 16];
        o.any_ext = false;
        for i in 0..n {
            *o.starts.get_mut(i)? = offs;
            let f = match self.fields.get(i) {
                Some(f) if i < self.n => *f,
                _ => {
                    // The child page number of a node pointer.
                    offs = offs.checked_add(REC_NODE_PTR_SIZE as u32)?;
                    *o.ends.get_mut(i)? = offs;
                    continue;
                }
            };
            if !f.not_null {
                if mask == 0x100 {
                    null_k = null_k.checked_add(1)?;
                    mask = 1;
                }
                let is_null = u32::from(byte(null_k)?) & mask != 0;
                mask <<= 1;
                if is_null {
                    *o.ends.get_mut(i)? = offs;
                    continue;
                }
            }
            if f.fixed == 0 {
                let mut len = u32::from(byte(lens_k)?);
                lens_k = lens_k.checked_add(1)?;
                if f.big && len & 0x80 != 0 {
                    len = len << 8 | u32::from(byte(lens_k)?);
                    lens_k = lens_k.checked_add(1)?;
                    if len & 0x4000 != 0 {
                        *o.ext.get_mut(i / 64)? |= 1u64 << (i % 64);
                        o.any_ext = true;
                    }
                    len &= 0x3fff;
                }
                offs = offs.checked_add(len)?;
            } else {
                offs = offs.checked_add(u32::from(f.fixed))?;
            }
            *o.ends.get_mut(i)? = offs;
        }
        o.n = n;
        o.extra = lens_k.checked_add(REC_N_NEW_EXTRA_BYTES)?;
        Some(())
    }
}

/// `page_zip_fields_decode`.
fn fields_decode(buf: &[u8], leaf: bool, ix: &mut Index) -> Option<()> {
    let mut n = 0usize;
    let mut b = 0usize;
    while b < buf.len() {
        if buf.get(b).is_some_and(|&v| v & 0x80 != 0) {
            b = b.checked_add(1)?;
        }
        b = b.checked_add(1)?;
        n = n.checked_add(1)?;
    }
    let n = n.checked_sub(1)?;
    if n > REC_MAX_N_FIELDS || b > buf.len() {
        return None;
    }
    let mut b = 0usize;
    // One value: 1 byte, or 2 when the first has 0x80; and whether it had.
    let read = |b: &mut usize| -> Option<(bool, usize)> {
        let v = usize::from(*buf.get(*b)?);
        *b = b.checked_add(1)?;
        if v & 0x80 != 0 {
            let lo = usize::from(*buf.get(*b)?);
            *b = b.checked_add(1)?;
            return Some((true, (v & 0x7f) << 8 | lo));
        }
        Some((false, v))
    };
    let mut n_nullable = 0usize;
    for i in 0..n {
        let (two, val) = read(&mut b)?;
        let (fixed, big) = if two {
            // A fixed length of 63 bytes or more.
            (val >> 1, false)
        } else if val >= 126 {
            (0, true)
        } else if val <= 1 {
            (0, false)
        } else {
            (val >> 1, false)
        };
        // dict_index_add_col: long fixed fields are variable-length.
        let (fixed, big) = if fixed > DICT_MAX_FIXED_COL_LEN {
            (0, true)
        } else {
            (fixed, big || fixed > 255)
        };
        let not_null = val & 1 == 1;
        if !not_null {
            n_nullable = n_nullable.checked_add(1)?;
        }
        *ix.fields.get_mut(i)? = ZField {
            fixed: u16::try_from(fixed).ok()?,
            not_null,
            big: big && fixed == 0,
        };
    }
    let (_, val) = read(&mut b)?;
    ix.n = n;
    ix.n_nullable = n_nullable;
    ix.trx_id_col = None;
    if leaf {
        if val != 0 {
            if val >= n {
                return None;
            }
            ix.trx_id_col = Some(val);
        }
    } else {
        if n_nullable > val {
            return None;
        }
        ix.n_nullable = val;
    }
    Some(())
}

/// The rebuild in progress.
struct Build<'a> {
    page: &'a mut [u8],
    phys: &'a [u8],
    stream: &'a [u8],
    /// Next stream byte.
    pos: usize,
    /// Next page byte the stream writes (`d_stream.next_out`).
    next_out: usize,
    /// Heap number and status of the next record (`heap_status`).
    heap_status: u16,
}

impl Build<'_> {
    fn err(kind: ZipErrorKind, offset: usize) -> Error {
        zip_err(kind, offset, true)
    }

    fn stream_done(&self) -> bool {
        self.pos >= self.stream.len()
    }

    /// Inflates up to page offset `to`; returns false when the stream
    /// ended first.
    fn fill(&mut self, to: usize) -> Result<bool, Error> {
        let want = to
            .checked_sub(self.next_out)
            .ok_or(Self::err(ZipErrorKind::DirEntry, to))?;
        let left = self.stream.len().saturating_sub(self.pos);
        let n = want.min(left);
        let src = self
            .stream
            .get(self.pos..self.pos.saturating_add(n))
            .ok_or(Self::err(ZipErrorKind::StreamShort, self.next_out))?;
        let dst = self
            .page
            .get_mut(self.next_out..self.next_out.saturating_add(n))
            .ok_or(Self::err(ZipErrorKind::Record, self.next_out))?;
        dst.copy_from_slice(src);
        self.pos = self.pos.saturating_add(n);
        self.next_out = self.next_out.saturating_add(n);
        Ok(n == want)
    }

    /// Inflates exactly up to `to` (a record's data).
    fn fill_all(&mut self, to: usize) -> Result<(), Error> {
        if self.fill(to)? {
            Ok(())
        } else {
            Err(Self::err(ZipErrorKind::StreamShort, self.next_out))
        }
    }

    /// Skips `n` bytes stored outside the stream, zeroing them.
    fn skip(&mut self, n: usize) -> Result<(), Error> {
        let end = self.next_out.saturating_add(n);
        self.page
            .get_mut(self.next_out..end)
            .ok_or(Self::err(ZipErrorKind::Record, self.next_out))?
            .fill(0);
        self.next_out = end;
        Ok(())
    }

    /// `page_zip_decompress_heap_no`: false when the stream did not stop
    /// at the record's fixed header.
    fn heap_no(&mut self, rec: usize) -> Result<bool, Error> {
        if self.next_out != rec.saturating_sub(REC_N_NEW_EXTRA_BYTES) {
            return Ok(false);
        }
        self.next_out = rec;
        self.put_u16(rec.saturating_sub(4), self.heap_status)?;
        self.heap_status = self
            .heap_status
            .checked_add(1 << REC_HEAP_NO_SHIFT)
            .ok_or(Self::err(ZipErrorKind::HeapCount, rec))?;
        Ok(true)
    }

    fn put_u16(&mut self, at: usize, v: u16) -> Result<(), Error> {
        self.page
            .get_mut(at..at.saturating_add(2))
            .ok_or(Self::err(ZipErrorKind::Record, at))?
            .copy_from_slice(&v.to_be_bytes());
        Ok(())
    }

    fn offsets(&self, ix: &Index, rec: usize, o: &mut Offs) -> Result<(), Error> {
        let node = self.heap_status & REC_STATUS_NODE_PTR != 0;
        let page = &*self.page;
        ix.offsets(
            node,
            |k| {
                let at = rec.checked_sub(REC_N_NEW_EXTRA_BYTES + 1)?.checked_sub(k)?;
                page.get(at).copied()
            },
            o,
        )
        .ok_or(Self::err(ZipErrorKind::Record, rec))?;
        let end = rec.saturating_add(o.data_size());
        if rec.checked_sub(o.extra).is_none() || end > self.page.len() {
            return Err(Self::err(ZipErrorKind::Record, rec));
        }
        Ok(())
    }
}

/// Decompresses the ROW_FORMAT=COMPRESSED index page `physical` into
/// `out` (cleared first; its capacity is reused), which becomes a
/// `logical_size` COMPACT page as the server would hold it in its buffer
/// pool: records with their rebuilt headers, the sparse directory, the
/// free list, DB_TRX_ID / DB_ROLL_PTR, BLOB pointers and child page
/// numbers from the trailer, the modification log applied. The FIL
/// header and page header are the compressed page's; the FIL trailer is
/// zero. On error `out` holds a partial page (at most `logical_size`
/// bytes).
pub fn decompress(
    physical: &[u8],
    logical_size: usize,
    out: &mut Vec<u8>,
) -> Result<ZipInfo, Error> {
    let r = rebuild(physical, logical_size, out);
    out.truncate(logical_size);
    r
}

fn rebuild(physical: &[u8], logical_size: usize, out: &mut Vec<u8>) -> Result<ZipInfo, Error> {
    out.clear();
    let z = ZipPage::read(physical, logical_size)?;
    let (size, logical, leaf) = (z.size, z.logical, z.leaf);
    let (n_dense, n_recs) = (z.n_dense, z.n_recs);

    // Twice the page: the page being rebuilt, then the inflated stream.
    out.resize(logical, 0);
    out.get_mut(..PAGE_DATA)
        .ok_or_else(|| perr(ZipErrorKind::PageSize, 0))?
        .copy_from_slice(physical.get(..PAGE_DATA).unwrap_or(&[0; PAGE_DATA]));

    let mut recs = [0u16; MAX_DENSE];
    dir_decode(&z, out.as_mut_slice(), &mut recs)?;
    let recs = recs.get_mut(..n_dense).unwrap_or(&mut []);
    recs.sort_unstable();
    if recs.windows(2).any(|w| w.first() == w.get(1)) {
        return Err(perr(ZipErrorKind::DirEntry, z.dense_at(0)));
    }
    let recs: &[u16] = recs;
    let free_slot = last_dir_slot(logical, z.n_slots);
    write_infimum_supremum(&z, out.as_mut_slice())?;

    // The stream: inflated whole after the page; the field information
    // is its first block.
    let (first_block_out, consumed) = inflate_stream(&z, out)?;
    let (page, tail) = out.split_at_mut(logical);
    let fields = tail.get(..first_block_out).unwrap_or(&[]);
    let stream = tail.get(first_block_out..).unwrap_or(&[]);
    let mut ix = Index {
        fields: [ZField::default(); REC_MAX_N_FIELDS],
        n: 0,
        n_nullable: 0,
        trx_id_col: None,
    };
    fields_decode(fields, leaf, &mut ix).ok_or_else(|| perr(ZipErrorKind::Fields, PAGE_DATA))?;
    let clustered = leaf && ix.trx_id_col.is_some();
    let slot_size = if !leaf {
        PAGE_ZIP_DIR_SLOT_SIZE + REC_NODE_PTR_SIZE
    } else if clustered {
        PAGE_ZIP_DIR_SLOT_SIZE + TRX_ROLL
    } else {
        PAGE_ZIP_DIR_SLOT_SIZE
    };
    let trailer = n_dense.saturating_mul(slot_size);
    let m_start = PAGE_DATA.saturating_add(consumed);
    let log_end = size
        .checked_sub(trailer)
        .filter(|&e| m_start < e)
        .ok_or_else(|| perr(ZipErrorKind::StreamOverlapsTrailer, m_start))?;

    let status: u16 = if leaf { 0 } else { REC_STATUS_NODE_PTR };
    let mut b = Build {
        page,
        phys: physical,
        stream,
        pos: 0,
        next_out: PAGE_ZIP_START,
        heap_status: status | 2 << REC_HEAP_NO_SHIFT,
    };
    let mut o = Offs::new();
    let mut info = ZipInfo {
        n_dense: n_dense as u16,
        n_recs: n_recs as u16,
        leaf,
        clustered,
        n_fields: ix.n as u16,
        m_start: m_start as u16,
        ..ZipInfo::default()
    };

    let ended = stream_records(&mut b, &ix, recs, leaf, clustered, &mut o)?;
    info.stream_records = (b.heap_status >> REC_HEAP_NO_SHIFT).saturating_sub(2);
    if !ended {
        // Trailing garbage up to PAGE_HEAP_TOP, and the stream's end.
        let room = z
            .heap_top
            .checked_sub(b.next_out)
            .filter(|&r| r <= logical.saturating_sub(PAGE_ZIP_START + PAGE_DIR))
            .ok_or(Build::err(ZipErrorKind::StreamLong, b.next_out))?;
        let left = b.stream.len().saturating_sub(b.pos);
        if left > room {
            return Err(Build::err(ZipErrorKind::StreamLong, z.heap_top));
        }
        b.fill(z.heap_top)?;
    }
    // The unused heap space is zero (out was zero-filled).
    if free_slot.is_none_or(|s| b.next_out > s) {
        return Err(Build::err(ZipErrorKind::StreamLong, b.next_out));
    }

    // page_zip_apply_log.
    let m_end = apply_log(&mut b, &ix, recs, m_start, log_end, &mut info)?;
    info.m_end = m_end as u16;
    if trailer.saturating_add(m_end) >= size {
        return Err(perr(ZipErrorKind::Trailer, m_end));
    }

    // The uncompressed columns in heap order.
    let storage_top = size.saturating_sub(n_dense.saturating_mul(PAGE_ZIP_DIR_SLOT_SIZE));
    if !leaf {
        restore_child_pages(&mut b, &ix, recs, storage_top, &mut o)?;
    } else if clustered {
        let t = Trailer { storage_top, m_end };
        restore_clustered_columns(&z, &mut b, &ix, recs, t, &mut o, &mut info)?;
    }

    set_extra_bytes(&z, b.page)?;
    out.truncate(logical);
    Ok(info)
}

/// A physical-page error at `offset` of the compressed page.
fn perr(kind: ZipErrorKind, offset: usize) -> Error {
    zip_err(kind, offset, false)
}

/// The compressed page's sizes, its INDEX page header values and its
/// dense directory, read once.
struct ZipPage<'p> {
    physical: &'p [u8],
    /// The compressed (physical) size.
    size: usize,
    /// The uncompressed (logical) size.
    logical: usize,
    /// Dense directory entries (PAGE_N_HEAP − 2).
    n_dense: usize,
    /// PAGE_N_RECS.
    n_recs: usize,
    /// PAGE_N_DIR_SLOTS.
    n_slots: usize,
    /// PAGE_HEAP_TOP.
    heap_top: usize,
    /// PAGE_LEVEL 0.
    leaf: bool,
    /// FIL_PAGE_PREV is FIL_NULL: the leftmost page of its level.
    prev_null: bool,
}

impl<'p> ZipPage<'p> {
    /// Checks the sizes and PAGE_N_HEAP (the COMPACT flag, a dense
    /// directory that fits) and reads the header values.
    fn read(physical: &'p [u8], logical_size: usize) -> Result<ZipPage<'p>, Error> {
        let size = physical.len();
        let logical = logical_size;
        if size < 1024 || size > logical || logical > UNIV_ZIP_SIZE_MAX {
            return Err(perr(ZipErrorKind::PageSize, 0));
        }
        let hdr = |f: usize| be_u16(physical, PAGE_HEADER.saturating_add(f)).unwrap_or(0);
        let n_heap_raw = hdr(PAGE_N_HEAP);
        if n_heap_raw & 0x8000 == 0 {
            return Err(perr(ZipErrorKind::NotCompact, PAGE_HEADER + PAGE_N_HEAP));
        }
        let n_heap = usize::from(n_heap_raw & 0x7fff);
        let n_dense = n_heap
            .checked_sub(2)
            .filter(|&d| d.saturating_mul(PAGE_ZIP_DIR_SLOT_SIZE) < size && d < MAX_DENSE)
            .ok_or_else(|| perr(ZipErrorKind::HeapCount, PAGE_HEADER + PAGE_N_HEAP))?;
        Ok(ZipPage {
            physical,
            size,
            logical,
            n_dense,
            n_recs: usize::from(hdr(PAGE_N_RECS)),
            n_slots: usize::from(hdr(PAGE_N_DIR_SLOTS)),
            heap_top: usize::from(hdr(PAGE_HEAP_TOP)),
            leaf: hdr(PAGE_LEVEL) == 0,
            prev_null: ibdscope_prims::bytes::be_u32(physical, FIL_PAGE_PREV) == Some(FIL_NULL),
        })
    }

    /// Dense directory entry `i`, counted down from the page's end.
    fn dense(&self, i: usize) -> u16 {
        be_u16(self.physical, self.dense_at(i)).unwrap_or(0)
    }

    /// The compressed page offset of dense directory entry `i`.
    fn dense_at(&self, i: usize) -> usize {
        self.size
            .saturating_sub(PAGE_ZIP_DIR_SLOT_SIZE.saturating_mul(i.saturating_add(1)))
    }
}

/// `page_zip_dir_decode`: the sparse directory from the user records'
/// "owned" bits, and every record's offset (user records, then the free
/// list) into `recs`, each checked to lie in the record area.
fn dir_decode(z: &ZipPage<'_>, page: &mut [u8], recs: &mut [u16; MAX_DENSE]) -> Result<(), Error> {
    let (logical, n_recs, n_dense, n_slots) = (z.logical, z.n_recs, z.n_dense, z.n_slots);
    if n_recs > n_dense {
        return Err(perr(ZipErrorKind::RecordCount, PAGE_HEADER + PAGE_N_RECS));
    }
    let rec_limit = logical.saturating_sub(PAGE_DIR);
    let mut slot = logical
        .checked_sub(PAGE_DIR + PAGE_DIR_SLOT_SIZE)
        .ok_or_else(|| perr(ZipErrorKind::PageSize, 0))?;
    put(page, slot, PAGE_NEW_INFIMUM as u16)?;
    for i in 0..n_recs {
        let offs = z.dense(i);
        let o = usize::from(offs & PAGE_ZIP_DIR_SLOT_MASK);
        if offs & PAGE_ZIP_DIR_SLOT_OWNED != 0 {
            slot = slot
                .checked_sub(PAGE_DIR_SLOT_SIZE)
                .filter(|&s| s >= PAGE_ZIP_START)
                .ok_or_else(|| perr(ZipErrorKind::DirSlots, z.dense_at(i)))?;
            put(page, slot, o as u16)?;
        }
        if o < PAGE_ZIP_START + REC_N_NEW_EXTRA_BYTES || o >= rec_limit {
            return Err(perr(ZipErrorKind::DirEntry, z.dense_at(i)));
        }
        *recs
            .get_mut(i)
            .ok_or_else(|| perr(ZipErrorKind::HeapCount, 0))? = o as u16;
    }
    slot = slot
        .checked_sub(PAGE_DIR_SLOT_SIZE)
        .ok_or_else(|| perr(ZipErrorKind::DirSlots, PAGE_HEADER))?;
    put(page, slot, PAGE_NEW_SUPREMUM as u16)?;
    let last_slot = n_slots
        .checked_mul(PAGE_DIR_SLOT_SIZE)
        .and_then(|b| logical.checked_sub(PAGE_DIR)?.checked_sub(b));
    if last_slot != Some(slot) {
        return Err(perr(ZipErrorKind::DirSlots, PAGE_HEADER + PAGE_N_DIR_SLOTS));
    }
    for i in n_recs..n_dense {
        let offs = z.dense(i);
        let o = usize::from(offs);
        if offs & !PAGE_ZIP_DIR_SLOT_MASK != 0
            || o < PAGE_ZIP_START + REC_N_NEW_EXTRA_BYTES
            || o >= rec_limit
        {
            return Err(perr(ZipErrorKind::DirEntry, z.dense_at(i)));
        }
        *recs
            .get_mut(i)
            .ok_or_else(|| perr(ZipErrorKind::HeapCount, 0))? = offs;
    }
    Ok(())
}

/// The infimum and supremum, which the compressed page does not store:
/// their fixed bytes, and the infimum's next pointer to the first record.
fn write_infimum_supremum(z: &ZipPage<'_>, page: &mut [u8]) -> Result<(), Error> {
    copy_to(
        page,
        PAGE_NEW_INFIMUM - REC_N_NEW_EXTRA_BYTES,
        &INFIMUM_EXTRA,
    )?;
    let first = if z.n_recs == 0 {
        PAGE_NEW_SUPREMUM as u16
    } else {
        z.dense(0) & PAGE_ZIP_DIR_SLOT_MASK
    };
    set_next(page, PAGE_NEW_INFIMUM, first)?;
    copy_to(page, PAGE_NEW_INFIMUM, INFIMUM_DATA)?;
    copy_to(
        page,
        PAGE_NEW_SUPREMUM - REC_N_NEW_EXTRA_BYTES + 1,
        &SUPREMUM_EXTRA_DATA,
    )
}

/// Inflates the zlib stream after PAGE_DATA into `out` past the logical
/// page; its first block must not be the last. Gives the bytes the first
/// block (the field information) inflated to and the stream bytes read.
fn inflate_stream(z: &ZipPage<'_>, out: &mut Vec<u8>) -> Result<(usize, usize), Error> {
    let input = z
        .physical
        .get(PAGE_DATA..z.size.saturating_sub(1))
        .unwrap_or(&[]);
    let blocks = inflate_zlib_blocks(input, out, z.logical.saturating_add(4096)).map_err(|e| {
        let kind = match e.kind {
            ibdscope_codec::ErrorKind::Inflate(k) => k,
            _ => InflateErrorKind::BadCode,
        };
        perr(
            ZipErrorKind::Inflate(kind),
            PAGE_DATA.saturating_add(e.offset),
        )
    })?;
    if blocks.first_block_final {
        return Err(perr(ZipErrorKind::NoFieldBlock, PAGE_DATA));
    }
    Ok((blocks.first_block_out, blocks.consumed))
}

/// `page_zip_decompress_node_ptrs` / `_sec` / `_clust`: the records' bytes
/// from the stream in heap order, without what the trailer holds
/// (DB_TRX_ID and DB_ROLL_PTR, BLOB pointers, child page numbers). True
/// when the stream ended first: the records after are in the log only.
fn stream_records(
    b: &mut Build<'_>,
    ix: &Index,
    recs: &[u16],
    leaf: bool,
    clustered: bool,
    o: &mut Offs,
) -> Result<bool, Error> {
    for &r in recs {
        let rec = usize::from(r);
        let head = rec.saturating_sub(REC_N_NEW_EXTRA_BYTES);
        // page_zip_decompress_sec skips inflate() when nothing is due.
        if leaf && !clustered && head == b.next_out {
            b.heap_no(rec)?;
            continue;
        }
        b.fill(head)?;
        if b.stream_done() {
            // Z_STREAM_END: the records after this one (and maybe this one)
            // are in the modification log only.
            b.heap_no(rec)?;
            return Ok(true);
        }
        b.heap_no(rec)?;
        if leaf && !clustered {
            continue;
        }
        b.offsets(ix, rec, o)?;
        let end = rec.saturating_add(o.data_size());
        if !leaf {
            let to = end
                .checked_sub(REC_NODE_PTR_SIZE)
                .filter(|&t| t >= rec)
                .ok_or(Build::err(ZipErrorKind::Record, rec))?;
            b.fill_all(to)?;
            b.skip(REC_NODE_PTR_SIZE)?;
            continue;
        }
        let trx = ix.trx_id_col.unwrap_or(0);
        for i in 0..o.n {
            let (start, len) = o.field(i).ok_or(Build::err(ZipErrorKind::Record, rec))?;
            if i == trx {
                if len < TRX_ROLL || o.is_ext(i) {
                    return Err(Build::err(ZipErrorKind::Record, rec));
                }
                b.fill_all(rec.saturating_add(start))?;
                b.skip(TRX_ROLL)?;
            } else if o.is_ext(i) {
                let at = start
                    .checked_add(len)
                    .and_then(|e| e.checked_sub(BTR_EXTERN_FIELD_REF_SIZE))
                    .filter(|&a| len >= BTR_EXTERN_FIELD_REF_SIZE && a >= start)
                    .ok_or(Build::err(ZipErrorKind::Record, rec))?;
                b.fill_all(rec.saturating_add(at))?;
                b.skip(BTR_EXTERN_FIELD_REF_SIZE)?;
            }
        }
        b.fill_all(end)?;
    }
    Ok(false)
}

/// Node pointer pages: each record's child page number from the
/// trailer (4 bytes per record below the dense directory, by heap order).
fn restore_child_pages(
    b: &mut Build<'_>,
    ix: &Index,
    recs: &[u16],
    storage_top: usize,
    o: &mut Offs,
) -> Result<(), Error> {
    let mut storage = storage_top;
    for &r in recs {
        let rec = usize::from(r);
        b.offsets(ix, rec, o)?;
        storage = storage.saturating_sub(REC_NODE_PTR_SIZE);
        let end = rec.saturating_add(o.data_size());
        let at = end
            .checked_sub(REC_NODE_PTR_SIZE)
            .ok_or(Build::err(ZipErrorKind::Record, rec))?;
        copy_phys(b, at, storage, REC_NODE_PTR_SIZE)?;
    }
    Ok(())
}

/// Where a clustered leaf page's trailer starts and the log ends.
#[derive(Clone, Copy)]
struct Trailer {
    /// Below the dense directory: the top of DB_TRX_ID / DB_ROLL_PTR.
    storage_top: usize,
    /// The log's end marker: BLOB pointers may not reach below it.
    m_end: usize,
}

/// Clustered leaf pages: every record's DB_TRX_ID and DB_ROLL_PTR (13
/// bytes each below the dense directory) and the BLOB pointers of live
/// records (20 bytes each below those) from the trailer; records on the
/// free list get zero BLOB pointers.
fn restore_clustered_columns(
    z: &ZipPage<'_>,
    b: &mut Build<'_>,
    ix: &Index,
    recs: &[u16],
    t: Trailer,
    o: &mut Offs,
    info: &mut ZipInfo,
) -> Result<(), Error> {
    let (n_recs, n_dense) = (z.n_recs, z.n_dense);
    // Records on the free list get no BLOB pointers.
    let mut free = [0u64; UNIV_ZIP_SIZE_MAX / 64];
    for i in n_recs..n_dense {
        let a = usize::from(z.dense(i) & PAGE_ZIP_DIR_SLOT_MASK);
        if let Some(w) = free.get_mut(a / 64) {
            *w |= 1 << (a % 64);
        }
    }
    let trx = ix.trx_id_col.unwrap_or(0);
    let mut storage = t.storage_top;
    let mut externs = t
        .storage_top
        .saturating_sub(n_dense.saturating_mul(TRX_ROLL));
    for &r in recs {
        let rec = usize::from(r);
        let exists = free.get(rec / 64).is_none_or(|w| w >> (rec % 64) & 1 == 0);
        b.offsets(ix, rec, o)?;
        let (start, len) = o.field(trx).ok_or(Build::err(ZipErrorKind::Record, rec))?;
        if len < TRX_ROLL {
            return Err(Build::err(ZipErrorKind::Record, rec));
        }
        storage = storage.saturating_sub(TRX_ROLL);
        copy_phys(b, rec.saturating_add(start), storage, TRX_ROLL)?;
        if !o.any_ext {
            continue;
        }
        for i in 0..o.n {
            if !o.is_ext(i) {
                continue;
            }
            let (start, len) = o.field(i).ok_or(Build::err(ZipErrorKind::Record, rec))?;
            if len < BTR_EXTERN_FIELD_REF_SIZE {
                return Err(Build::err(ZipErrorKind::Record, rec));
            }
            let dst = rec
                .saturating_add(start)
                .saturating_add(len.saturating_sub(BTR_EXTERN_FIELD_REF_SIZE));
            if exists {
                externs = externs
                    .checked_sub(BTR_EXTERN_FIELD_REF_SIZE)
                    .filter(|&e| e >= t.m_end)
                    .ok_or_else(|| perr(ZipErrorKind::BlobPointers, externs))?;
                copy_phys(b, dst, externs, BTR_EXTERN_FIELD_REF_SIZE)?;
                info.n_blobs = info.n_blobs.saturating_add(1);
            } else {
                b.page
                    .get_mut(dst..dst.saturating_add(BTR_EXTERN_FIELD_REF_SIZE))
                    .ok_or(Build::err(ZipErrorKind::Record, rec))?
                    .fill(0);
            }
        }
    }
    Ok(())
}

/// `page_zip_set_extra_bytes`: info bits, n_owned and next pointers of
/// the user records from the dense directory's order and flags, then the
/// free list's.
fn set_extra_bytes(z: &ZipPage<'_>, page: &mut [u8]) -> Result<(), Error> {
    let (n_recs, n_dense) = (z.n_recs, z.n_dense);
    let mut info_bits: u8 = if !z.leaf && z.prev_null {
        REC_INFO_MIN_REC_FLAG
    } else {
        0
    };
    let mut n_owned: u8 = 1;
    let mut rec = PAGE_NEW_INFIMUM;
    for i in 0..n_recs {
        let offs = z.dense(i);
        if offs & PAGE_ZIP_DIR_SLOT_DEL != 0 {
            info_bits |= REC_INFO_DELETED_FLAG;
        }
        if offs & PAGE_ZIP_DIR_SLOT_OWNED != 0 {
            info_bits |= n_owned;
            n_owned = 1;
        } else {
            n_owned = n_owned.wrapping_add(1);
        }
        let o = offs & PAGE_ZIP_DIR_SLOT_MASK;
        set_next(page, rec, o)?;
        rec = usize::from(o);
        put_byte(page, rec.saturating_sub(REC_N_NEW_EXTRA_BYTES), info_bits)?;
        info_bits = 0;
    }
    set_next(page, rec, PAGE_NEW_SUPREMUM as u16)?;
    put_byte(page, PAGE_NEW_SUPREMUM - REC_N_NEW_EXTRA_BYTES, n_owned)?;
    if n_recs < n_dense {
        let mut rec = usize::from(z.dense(n_recs));
        for i in n_recs..n_dense {
            put_byte(page, rec.saturating_sub(REC_N_NEW_EXTRA_BYTES), 0)?;
            let next = if i.saturating_add(1) < n_dense {
                z.dense(i.saturating_add(1))
            } else {
                0
            };
            set_next(page, rec, next)?;
            rec = usize::from(next);
        }
    }
    Ok(())
}

/// Page offset of the last (lowest) sparse directory slot.
fn last_dir_slot(logical: usize, n_slots: usize) -> Option<usize> {
    logical
        .checked_sub(PAGE_DIR)?
        .checked_sub(n_slots.checked_mul(PAGE_DIR_SLOT_SIZE)?)
}

fn lerr(kind: ZipErrorKind, offset: usize) -> Error {
    zip_err(kind, offset, true)
}

fn put(page: &mut [u8], at: usize, v: u16) -> Result<(), Error> {
    page.get_mut(at..at.saturating_add(2))
        .ok_or_else(|| lerr(ZipErrorKind::DirSlots, at))?
        .copy_from_slice(&v.to_be_bytes());
    Ok(())
}

fn put_byte(page: &mut [u8], at: usize, v: u8) -> Result<(), Error> {
    *page
        .get_mut(at)
        .ok_or_else(|| lerr(ZipErrorKind::Record, at))? = v;
    Ok(())
}

fn copy_to(page: &mut [u8], at: usize, src: &[u8]) -> Result<(), Error> {
    page.get_mut(at..at.saturating_add(src.len()))
        .ok_or_else(|| lerr(ZipErrorKind::PageSize, at))?
        .copy_from_slice(src);
    Ok(())
}

/// `rec_set_next_offs_new`: the next record as a relative offset, 0 for
/// none.
fn set_next(page: &mut [u8], rec: usize, next: u16) -> Result<(), Error> {
    let v = if next == 0 {
        0
    } else {
        next.wrapping_sub(rec as u16)
    };
    put(page, rec.saturating_sub(2), v)
}

/// Copies `n` bytes of the compressed page at `from` to the page at `to`.
fn copy_phys(b: &mut Build<'_>, to: usize, from: usize, n: usize) -> Result<(), Error> {
    let src = b
        .phys
        .get(from..from.saturating_add(n))
        .ok_or_else(|| zip_err(ZipErrorKind::Trailer, from, false))?;
    b.page
        .get_mut(to..to.saturating_add(n))
        .ok_or_else(|| lerr(ZipErrorKind::Record, to))?
        .copy_from_slice(src);
    Ok(())
}

/// The modification log's bytes, `phys[..end]`, read with every read
/// checked against the log's end.
#[derive(Clone, Copy)]
struct Log<'p> {
    phys: &'p [u8],
    end: usize,
}

impl Log<'_> {
    /// The log byte at `d`.
    fn byte(&self, d: usize) -> Result<u8, Error> {
        if d >= self.end {
            return Err(log_err(d));
        }
        self.phys.get(d).copied().ok_or_else(|| log_err(d))
    }

    /// Copies `page[to..to + n]` from the log at `d`, which moves past them.
    fn copy(&self, page: &mut [u8], to: usize, n: usize, d: &mut usize) -> Result<(), Error> {
        if d.saturating_add(n) >= self.end {
            return Err(log_err(*d));
        }
        let src = self
            .phys
            .get(*d..d.saturating_add(n))
            .ok_or_else(|| log_err(*d))?;
        page.get_mut(to..to.saturating_add(n))
            .ok_or_else(|| lerr(ZipErrorKind::Record, to))?
            .copy_from_slice(src);
        *d = d.saturating_add(n);
        Ok(())
    }
}

/// A malformed log entry at compressed page offset `d`.
fn log_err(d: usize) -> Error {
    zip_err(ZipErrorKind::Log, d, false)
}

/// `page_zip_apply_log`: returns `m_end`, the offset of the end marker.
fn apply_log(
    b: &mut Build<'_>,
    ix: &Index,
    recs: &[u16],
    start: usize,
    end: usize,
    info: &mut ZipInfo,
) -> Result<usize, Error> {
    let log = Log { phys: b.phys, end };
    let fail = log_err;
    let mut o = Offs::new();
    let mut d = start;
    // Every entry takes at least two bytes: the loop is bounded by the log.
    for _ in 0..end.saturating_sub(start).saturating_add(1) {
        let at = d;
        let mut val = usize::from(log.byte(d)?);
        d = d.saturating_add(1);
        if val == 0 {
            return Ok(at);
        }
        if val & 0x80 != 0 {
            val = (val & 0x7f) << 8 | usize::from(log.byte(d)?);
            d = d.saturating_add(1);
            if val == 0 {
                return Err(fail(at));
            }
        }
        if d >= end {
            return Err(fail(at));
        }
        let k = val >> 1;
        let Some(&r) = k.checked_sub(1).and_then(|i| recs.get(i)) else {
            return Err(fail(at));
        };
        let rec = usize::from(r);
        let hs = u16::try_from(k.saturating_add(1).saturating_mul(1 << REC_HEAP_NO_SHIFT))
            .map_err(|_| fail(at))?
            | (b.heap_status & ((1 << REC_HEAP_NO_SHIFT) - 1));
        if hs > b.heap_status {
            return Err(fail(at));
        } else if hs == b.heap_status {
            if val & 1 != 0 {
                return Err(fail(at));
            }
            b.heap_status = b
                .heap_status
                .checked_add(1 << REC_HEAP_NO_SHIFT)
                .ok_or_else(|| fail(at))?;
        }
        b.put_u16(rec.saturating_sub(4), hs)?;
        info.log_entries = info.log_entries.saturating_add(1);
        let node = hs & REC_STATUS_NODE_PTR != 0;
        if val & 1 != 0 {
            // The record was freed: clear its data bytes.
            b.offsets(ix, rec, &mut o)?;
            let n = o.data_size();
            b.page
                .get_mut(rec..rec.saturating_add(n))
                .ok_or_else(|| lerr(ZipErrorKind::Record, rec))?
                .fill(0);
            continue;
        }
        let entry = LogEntry { rec, node, at };
        d = apply_log_record(b, ix, log, entry, d, &mut o)?;
    }
    Err(fail(d))
}

/// A log entry's record: its offset, whether it is a node pointer, and
/// where its entry starts in the log.
#[derive(Clone, Copy)]
struct LogEntry {
    rec: usize,
    node: bool,
    at: usize,
}

/// One written record of the log from `d` on: its extra bytes below the
/// fixed 5 (`rec_get_offsets_reverse`: nearest first), then its data
/// bytes without the ones stored uncompressed. Returns the log offset
/// after it.
fn apply_log_record(
    b: &mut Build<'_>,
    ix: &Index,
    log: Log<'_>,
    e: LogEntry,
    mut d: usize,
    o: &mut Offs,
) -> Result<usize, Error> {
    let (rec, node, at) = (e.rec, e.node, e.at);
    let (phys, end, fail) = (log.phys, log.end, log_err);
    // rec_get_offsets_reverse: the extra bytes, nearest first.
    ix.offsets(node, |k| phys.get(d.checked_add(k)?).copied(), o)
        .ok_or_else(|| fail(d))?;
    let n_extra = o.extra.saturating_sub(REC_N_NEW_EXTRA_BYTES);
    if d.saturating_add(n_extra) >= end
        || rec.checked_sub(o.extra).is_none_or(|s| s < PAGE_ZIP_START)
        || rec.saturating_add(o.data_size()) > b.page.len()
    {
        return Err(fail(d));
    }
    for k in 0..n_extra {
        let v = log.byte(d.saturating_add(k))?;
        put_byte(
            b.page,
            rec.saturating_sub(REC_N_NEW_EXTRA_BYTES + 1)
                .saturating_sub(k),
            v,
        )?;
    }
    d = d.saturating_add(n_extra);
    let data_end = rec.saturating_add(o.data_size());
    let page = &mut *b.page;
    if o.any_ext {
        if node {
            return Err(fail(at));
        }
        // page_zip_apply_log_ext.
        let mut next_out = rec;
        for i in 0..o.n {
            let (s, len) = o.field(i).ok_or_else(|| fail(d))?;
            let dst = rec.saturating_add(s);
            if Some(i) == ix.trx_id_col {
                if len < TRX_ROLL || o.is_ext(i) || dst < next_out {
                    return Err(fail(d));
                }
                log.copy(page, next_out, dst.saturating_sub(next_out), &mut d)?;
                next_out = dst.saturating_add(TRX_ROLL);
            } else if o.is_ext(i) {
                let refp = dst
                    .saturating_add(len)
                    .checked_sub(BTR_EXTERN_FIELD_REF_SIZE)
                    .filter(|&p| p >= next_out && len >= BTR_EXTERN_FIELD_REF_SIZE)
                    .ok_or_else(|| fail(d))?;
                log.copy(page, next_out, refp.saturating_sub(next_out), &mut d)?;
                next_out = refp.saturating_add(BTR_EXTERN_FIELD_REF_SIZE);
            }
        }
        let n = data_end.checked_sub(next_out).ok_or_else(|| fail(d))?;
        log.copy(page, next_out, n, &mut d)?;
    } else if node {
        let n = o
            .data_size()
            .checked_sub(REC_NODE_PTR_SIZE)
            .ok_or_else(|| fail(d))?;
        log.copy(page, rec, n, &mut d)?;
    } else if let Some(trx) = ix.trx_id_col {
        let (s, len) = o.field(trx).ok_or_else(|| fail(d))?;
        if len < TRX_ROLL {
            return Err(fail(d));
        }
        log.copy(page, rec, s, &mut d)?;
        let from = rec.saturating_add(s).saturating_add(TRX_ROLL);
        let n = data_end.checked_sub(from).ok_or_else(|| fail(d))?;
        log.copy(page, from, n, &mut d)?;
    } else {
        log.copy(page, rec, o.data_size(), &mut d)?;
    }
    Ok(d)
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
    use crate::row::{render_field, split, FieldText};
    use crate::table::{Hidden, TableDef};
    use ibdscope_core::fil::FilHeader;
    use ibdscope_core::record::{RecPage, Visited};
    use ibdscope_core::{PageNo, Tablespace};
    use std::path::{Path, PathBuf};

    fn fixtures() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
    }

    /// The fixture directories with a ROW_FORMAT=COMPRESSED table
    /// (`rf_compressed8`, KEY_BLOCK_SIZE=8) and its server dump.
    const DIRS: [&str; 4] = [
        "mysql56",
        "mysql56-crc32",
        "mariadb1011",
        "mariadb1011-crc32",
    ];

    #[test]
    fn rejects_short_and_garbage_pages() {
        let mut out = Vec::new();
        assert_eq!(
            decompress(&[0u8; 100], 16384, &mut out).unwrap_err().zip(),
            ZipErrorKind::PageSize
        );
        let mut p = vec![0u8; 8192];
        assert_eq!(
            decompress(&p, 16384, &mut out).unwrap_err().zip(),
            ZipErrorKind::NotCompact
        );
        p[PAGE_HEADER + PAGE_N_HEAP] = 0x80;
        p[PAGE_HEADER + PAGE_N_HEAP + 1] = 2;
        p[PAGE_HEADER + PAGE_N_DIR_SLOTS + 1] = 2;
        let e = decompress(&p, 16384, &mut out).unwrap_err();
        assert!(matches!(e.zip(), ZipErrorKind::Inflate(_)), "{e}");
        assert_eq!(e.page_offset().unwrap(), PAGE_DATA);
    }

    /// Damage never panics: every third byte of a leaf page with a free
    /// list and of one with a modification log flipped in turn, and the
    /// page cut short, give an error naming a byte inside the page, or a
    /// whole page.
    #[test]
    fn flipped_bytes_give_errors_or_pages() {
        let data = std::fs::read(fixtures().join("mysql56/rf_compressed8.ibd")).unwrap();
        let mut out = Vec::new();
        for n in [4usize, 5] {
            let clean = &data[n * 8192..(n + 1) * 8192];
            for at in (0..clean.len()).step_by(3) {
                let mut p = clean.to_vec();
                p[at] ^= 0xA5;
                match decompress(&p, 16384, &mut out) {
                    Ok(_) => assert_eq!(out.len(), 16384),
                    Err(e) => {
                        let limit = if matches!(e.place, crate::error::Place::Rebuilt { .. }) {
                            16384
                        } else {
                            8192
                        };
                        assert!(e.page_offset().unwrap() < limit, "page {n} byte {at}: {e}");
                        assert!(out.len() <= 16384);
                    }
                }
            }
            for cut in [0, 94, 200, 4096] {
                assert!(decompress(&clean[..cut], 16384, &mut out).is_err());
            }
        }
    }

    /// A gzip file's contents (RFC 1952: header, DEFLATE, CRC, size).
    fn gunzip(path: &Path) -> Vec<u8> {
        let gz = std::fs::read(path).unwrap();
        assert_eq!(&gz[..3], &[0x1f, 0x8b, 8]);
        let flg = gz[3];
        let mut at = 10;
        if flg & 4 != 0 {
            at += 2 + usize::from(u16::from_le_bytes([gz[at], gz[at + 1]]));
        }
        for bit in [8u8, 16] {
            if flg & bit != 0 {
                while gz[at] != 0 {
                    at += 1;
                }
                at += 1;
            }
        }
        if flg & 2 != 0 {
            at += 2;
        }
        let mut out = Vec::new();
        ibdscope_codec::inflate::inflate_raw(&gz[at..], &mut out, 1 << 30).unwrap();
        out
    }

    /// The leaf pages of the (only) index, in chain order from the one
    /// without a left sibling.
    fn leaf_chain(ts: &Tablespace<'_>) -> Vec<PageNo> {
        let leaves: Vec<PageNo> = (0..ts.n_pages())
            .map(PageNo)
            .filter(|&n| RecPage::of(ts, n).is_ok_and(|rp| rp.is_leaf()))
            .collect();
        let mut n = *leaves
            .iter()
            .find(|&&n| {
                FilHeader::new(ts.page(n).unwrap()).unwrap().prev().0 == ibdscope_core::FIL_NULL
            })
            .unwrap();
        let mut chain = vec![n];
        loop {
            let next = FilHeader::new(ts.page(n).unwrap()).unwrap().next();
            if next.0 == ibdscope_core::FIL_NULL {
                break;
            }
            assert!(leaves.contains(&next) && !chain.contains(&next));
            chain.push(next);
            n = next;
        }
        assert_eq!(chain.len(), leaves.len());
        chain
    }

    /// Every compressed leaf page of the fixtures decompresses, and walking
    /// the rebuilt page gives the record count the server wrote in its
    /// header (PAGE_N_RECS), the free list its PAGE_N_HEAP, and the
    /// directory its PAGE_N_DIR_SLOTS; every rebuilt page passes the
    /// record checks of `RecPage::analyse`.
    #[test]
    fn fixture_pages_match_their_headers() {
        let mut out = Vec::new();
        let mut pages = 0;
        let (mut logged, mut nodes, mut with_free) = (false, false, false);
        for dir in DIRS {
            let path = fixtures().join(dir).join("rf_compressed8.ibd");
            let data = std::fs::read(&path).unwrap();
            let ts = Tablespace::new(&data).unwrap();
            let logical = ts.format().logical_size;
            for n in 0..ts.n_pages() {
                let Ok(rp) = RecPage::of(&ts, PageNo(n)) else {
                    continue;
                };
                if !rp.is_compressed() {
                    continue;
                }
                let info = decompress(rp.bytes(), logical as usize, &mut out)
                    .unwrap_or_else(|e| panic!("{dir} page {n}: {e}"));
                let h = rp.header();
                logged |= info.log_entries > 0;
                nodes |= !info.leaf;
                with_free |= info.n_dense > info.n_recs;
                assert_eq!(info.n_recs, h.n_recs());
                let z = RecPage::new(&out, logical).unwrap();
                assert!(!z.is_compressed());
                let mut visited = Visited::new();
                let mut it = z.records(&mut visited).unwrap();
                let mut user = 0;
                while let Some(rec) = it.next().unwrap_or_else(|e| panic!("{dir} {n}: {e:?}")) {
                    if rec.is_user() {
                        user += 1;
                    }
                }
                assert_eq!(user, h.n_recs(), "{dir} page {n}: user records");
                let mut free = 0;
                let mut it = z.free_records(&mut visited).unwrap();
                while it.next().unwrap().is_some() {
                    free += 1;
                }
                assert_eq!(user + free + 2, h.n_heap(), "{dir} page {n}: heap");
                let mut scratch = ibdscope_core::record::RecScratch::default();
                let mut findings = Vec::new();
                let _ = z.analyse(&mut scratch, &mut findings);
                assert!(findings.is_empty(), "{dir} page {n}: {findings:?}");
                pages += 1;
            }
        }
        assert!(pages >= 8, "{pages} compressed pages");
        // The paths the fixtures exercise: modification logs, node pointer
        // pages, free lists.
        assert!(logged && nodes && with_free);
    }

    /// The decompressed leaf pages, walked along the leaf chain, give the
    /// server's dump of the table (fixtures/rows/<dir>__rf_compressed8.tsv.gz)
    /// line for line.
    #[test]
    fn fixture_rows_equal_the_dumps() {
        for dir in DIRS {
            let path = fixtures().join(dir).join("rf_compressed8.ibd");
            let data = std::fs::read(&path).unwrap();
            let ts = Tablespace::new(&data).unwrap();
            let frm = std::fs::read(fixtures().join(dir).join("rf_compressed8.frm")).unwrap();
            let t: TableDef = crate::frm::Frm::parse(&frm)
                .unwrap()
                .to_table_def("rf_compressed8", "test");
            let ix = t.clustered().unwrap();
            let layout = t.layout(ix, true).unwrap();
            let want = gunzip(
                &fixtures()
                    .join("rows")
                    .join(format!("{dir}__rf_compressed8.tsv.gz")),
            );
            let want = String::from_utf8(want).unwrap();
            let logical = ts.format().logical_size;
            let (mut out, mut fields, mut buf) = (Vec::new(), Vec::new(), Vec::new());
            let mut visited = Visited::new();
            let mut got = String::new();
            for n in leaf_chain(&ts) {
                let rp = RecPage::of(&ts, n).unwrap();
                assert!(rp.is_compressed());
                decompress(rp.bytes(), logical as usize, &mut out).unwrap();
                let z = RecPage::new(&out, logical).unwrap();
                let mut it = z.records(&mut visited).unwrap();
                while let Some(rec) = it.next().unwrap() {
                    if !rec.is_user() || rec.header.is_deleted() {
                        continue;
                    }
                    split(&z, &rec, &layout, &mut fields).unwrap();
                    let mut cells = Vec::new();
                    for f in &fields {
                        let c = &t.columns[f.column];
                        if c.hidden != Hidden::Visible {
                            continue;
                        }
                        let mut s = String::new();
                        match render_field(&ts, &out, c, f, 1 << 20, &mut buf, &mut s) {
                            FieldText::Null => s.push_str("\\N"),
                            FieldText::Value(crate::value::Rendered::Raw(why)) => {
                                panic!("{dir} page {n}: {}: raw: {why}", c.name)
                            }
                            FieldText::Value(_) => {}
                            other => panic!("{dir} page {n}: {}: {other:?}", c.name),
                        }
                        cells.push(s);
                    }
                    got.push_str(&cells.join("\t"));
                    got.push('\n');
                }
            }
            let (g, w): (Vec<&str>, Vec<&str>) = (got.lines().collect(), want.lines().collect());
            assert_eq!(g.len(), w.len(), "{dir}: rows");
            for (i, (a, b)) in g.iter().zip(&w).enumerate() {
                assert_eq!(a, b, "{dir}: row {i}");
            }
        }
    }

    /// The corpus's ROW_FORMAT=COMPRESSED files that are not encrypted
    /// (`row_format_read` starts with `COMPRESSED`): every INDEX page
    /// decompresses; the user records per index, over its leaf pages (the
    /// manifest counts every leaf page of the index, freed ones too), are
    /// the manifest's `leaf_n_recs_read`, which it read from the pages'
    /// PAGE_N_RECS; the SDI, on compressed SDI pages, gives the columns the
    /// manifest's `tables` names, and the clustered index's leaf chain
    /// gives rows whose every value decodes.
    #[test]
    fn corpus_compressed_files_match_manifest() {
        let Some(dir) = ibdscope_testkit::corpus() else {
            return;
        };
        let mut files = 0;
        for m in ibdscope_testkit::tsv(&dir.join("manifest.tsv")) {
            let path = m["path"].as_str();
            if !m["row_format_read"].starts_with("COMPRESSED")
                || m["row_format_read"].contains("encrypted")
            {
                continue;
            }
            let data = std::fs::read(dir.join(path)).unwrap();
            let ts = Tablespace::new(&data).unwrap();
            let logical = ts.format().logical_size;
            assert!((ts.page_size() as u32) < logical, "{path}: not compressed");
            // index id -> user records on its leaf pages.
            let mut counted = std::collections::BTreeMap::<u64, u32>::new();
            let mut out = Vec::new();
            for n in 0..ts.n_pages() {
                let Ok(rp) = RecPage::of(&ts, PageNo(n)) else {
                    continue;
                };
                decompress(rp.bytes(), logical as usize, &mut out)
                    .unwrap_or_else(|e| panic!("{path} page {n}: {e}"));
                if !rp.is_leaf() {
                    continue;
                }
                let z = RecPage::new(&out, logical).unwrap();
                let mut visited = Visited::new();
                let mut it = z.records(&mut visited).unwrap();
                let mut user = 0;
                while let Some(rec) = it.next().unwrap() {
                    user += u32::from(rec.is_user());
                }
                assert_eq!(user, u32::from(rp.header().n_recs()), "{path} page {n}");
                *counted.entry(rp.header().index_id().0).or_default() += user;
            }
            for part in m["leaf_n_recs_read"].split(';') {
                let (id, rest) = part
                    .trim()
                    .trim_start_matches("index_id ")
                    .split_once('=')
                    .unwrap();
                let want: u32 = rest.split_whitespace().next().unwrap().parse().unwrap();
                let id: u64 = id.parse().unwrap();
                assert_eq!(counted.get(&id).copied(), Some(want), "{path}: index {id}");
            }
            // The columns, from the SDI read off its compressed page.
            let t = TableDef::from_tablespace(&ts).unwrap_or_else(|e| panic!("{path}: {e:?}"));
            let stated = m["tables"].split_once(':').unwrap().1;
            let stated = stated.split(';').next().unwrap();
            let want: Vec<&str> = stated
                .split(',')
                .map(|c| c.split_whitespace().next().unwrap())
                .collect();
            let names: Vec<&str> = t
                .columns
                .iter()
                .filter(|c| c.hidden == Hidden::Visible)
                .map(|c| c.name.as_str())
                .collect();
            assert_eq!(names, want, "{path}: columns");
            // The rows along the clustered index's leaf chain.
            let ix = t.clustered().unwrap();
            let layout = t.layout(ix, true).unwrap();
            let mut page_no = PageNo(ix.root.unwrap());
            let (mut fields, mut buf) = (Vec::new(), Vec::new());
            let mut rows = 0;
            for _ in 0..ts.n_pages() {
                let rp = RecPage::of(&ts, page_no).unwrap();
                assert!(rp.is_leaf(), "{path}: the root is a leaf here");
                decompress(rp.bytes(), logical as usize, &mut out).unwrap();
                let z = RecPage::new(&out, logical).unwrap();
                let mut visited = Visited::new();
                let mut it = z.records(&mut visited).unwrap();
                while let Some(rec) = it.next().unwrap() {
                    if !rec.is_user() {
                        continue;
                    }
                    split(&z, &rec, &layout, &mut fields).unwrap();
                    for f in &fields {
                        let c = &t.columns[f.column];
                        let mut s = String::new();
                        let r = render_field(&ts, &out, c, f, 1 << 20, &mut buf, &mut s);
                        assert!(
                            match r {
                                FieldText::Null => true,
                                FieldText::Value(v) => !matches!(v, crate::value::Rendered::Raw(_)),
                                _ => false,
                            },
                            "{path}: {}: {r:?} {s}",
                            c.name
                        );
                    }
                    rows += 1;
                }
                let next = FilHeader::new(rp.bytes()).unwrap().next();
                if next.0 == ibdscope_core::FIL_NULL {
                    break;
                }
                page_no = next;
            }
            assert_eq!(
                rows,
                u32::from(
                    RecPage::of(&ts, PageNo(ix.root.unwrap()))
                        .unwrap()
                        .header()
                        .n_recs()
                )
            );
            files += 1;
        }
        assert!(files >= 1, "no compressed corpus file");
    }
}
