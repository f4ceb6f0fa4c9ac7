//! Undo logs: the rollback segments that TRX_SYS names, their history
//! lists, the undo logs in them and their records, and the roll pointers
//! that lead from a clustered index record to its older versions.
//!
//! Sources, as read: mysql-server 5.6 `storage/innobase/include/trx0rseg.h`,
//! `trx0undo.h`, `trx0sys.h`, `trx0types.h`, `mach0data.ic`,
//! `trx/trx0rec.cc`, `trx/trx0undo.cc`; MariaDB server 10.3–10.11 the same
//! files (`mach0data.inl`), where the layout is the same except as noted.
//!
//! Rollback segment header page (`trx0rseg.h`), from `TRX_RSEG` =
//! `FSEG_PAGE_DATA` (38):
//!
//! | offset | field |
//! |---|---|
//! | 0 | `TRX_RSEG_MAX_SIZE` (4); MariaDB 10.3+: `TRX_RSEG_FORMAT` (0) |
//! | 4 | `TRX_RSEG_HISTORY_SIZE` (4): pages in the history list |
//! | 8 | `TRX_RSEG_HISTORY` (16): list base of the undo logs to purge, oldest last |
//! | 24 | `TRX_RSEG_FSEG_HEADER` (10) |
//! | 34 | `TRX_RSEG_UNDO_SLOTS`: page size / 16 slots of 4 bytes, `FIL_NULL` = free |
//!
//! Undo log page (`trx0undo.h`), from `TRX_UNDO_PAGE_HDR` = 38:
//! `TRX_UNDO_PAGE_TYPE` 0 (2: 1 insert, 2 update; MariaDB 10.3+ writes 0,
//! one log per transaction), `TRX_UNDO_PAGE_START` 2, `TRX_UNDO_PAGE_FREE`
//! 4, `TRX_UNDO_PAGE_NODE` 6 (12). On a segment's first page, the segment
//! header at 56: `TRX_UNDO_STATE` 0 (2: 1 active, 2 cached, 3 to free, 4
//! to purge, 5 prepared), `TRX_UNDO_LAST_LOG` 2, `TRX_UNDO_FSEG_HEADER` 4
//! (10), `TRX_UNDO_PAGE_LIST` 14 (16). Undo log header, at its offset on
//! the first page: `TRX_UNDO_TRX_ID` 0 (8), `TRX_UNDO_TRX_NO` 8 (8),
//! `TRX_UNDO_DEL_MARKS` 16 (2; MariaDB 10.3+ `TRX_UNDO_NEEDS_PURGE`),
//! `TRX_UNDO_LOG_START` 18, `TRX_UNDO_XID_EXISTS` 20, `TRX_UNDO_DICT_TRANS`
//! 21, `TRX_UNDO_TABLE_ID` 22 (8), `TRX_UNDO_NEXT_LOG` 30,
//! `TRX_UNDO_PREV_LOG` 32, `TRX_UNDO_HISTORY_NODE` 34 (12).
//!
//! Undo record (`trx0rec.cc` `trx_undo_page_report_insert`,
//! `trx_undo_page_report_modify`): the offset of the next record (2), the
//! type byte (type | cmpl_info × 16 | 128 when an off-page column was
//! updated), undo_no and table id (much-compressed), then for an update
//! type the info bits (1), `DB_TRX_ID` and `DB_ROLL_PTR` of the version
//! before the change (u64-compressed), then the unique key fields (length
//! compressed, bytes), then except for `TRX_UNDO_DEL_MARK_REC` the update
//! vector (count, then field number, length, old bytes), then possibly the
//! ordering columns; the last 2 bytes are the record's own offset.
//!
//! Roll pointer (`trx0undo.ic` `trx_undo_build_roll_ptr`, 7 bytes): bit 55
//! is_insert, bits 48–54 the rollback segment id (the TRX_SYS slot), bits
//! 16–47 the page number, bits 0–15 the byte offset of the record.
//!
//! Every walk is bounded before it starts: a list by its length and by the
//! pages of its space, a chain of roll pointers by the addresses it has
//! seen (a repeated one is a loop) and by [`MAX_CHAIN`].
//!
//! Every pointer is checked as the server reads it before it is followed
//! (mysql-server 5.6 `trx0rseg.cc` `trx_rseg_create_instance`,
//! `trx0undo.cc` `trx_undo_lists_init`, `trx_undo_mem_create_at_db_start`;
//! MariaDB 10.11 the same, with `trx_rseg_array_init`): a TRX_SYS slot
//! names a space read (0 or an undo tablespace) and, in it, a page that
//! verifies, is no fixed page of space 0 and is typed
//! `FIL_PAGE_TYPE_SYS`; an undo slot, history node, page list link or
//! roll pointer names an undo log page that verifies; an undo segment's
//! state is one of `trx0undo.h`'s. A page a pointer reaches is claimed: all
//! zeros there is damage ([`Damage::Zeroed`]), and the undo behind a
//! damaged page is lost ([`ChainEnd::Lost`]), never called purged.

use crate::error::{Error, ErrorKind};
use crate::system::{
    RsegSlot, FSEG_PAGE_DATA, FSP_TRX_SYS_PAGE_NO, TRX_SYS_RSEGS, TRX_SYS_RSEG_SLOT_SIZE,
};
use ibdscope_core::{Lsn, PageNo, Tablespace, Verdict, FIL_NULL};
use ibdscope_prims::bytes::{be_u16, be_u32, be_u64};
use std::collections::{HashMap, HashSet};

/// `FIL_PAGE_UNDO_LOG` (`fil0fil.h`).
pub const FIL_PAGE_UNDO_LOG: u16 = 2;
/// `TRX_UNDO_PAGE_HDR`.
pub const TRX_UNDO_PAGE_HDR: usize = FSEG_PAGE_DATA;
/// `TRX_UNDO_SEG_HDR`: `TRX_UNDO_PAGE_HDR` + `TRX_UNDO_PAGE_HDR_SIZE` (18).
pub const TRX_UNDO_SEG_HDR: usize = 56;
/// `TRX_UNDO_SEG_HDR_SIZE`.
pub const TRX_UNDO_SEG_HDR_SIZE: usize = 30;
/// `TRX_UNDO_HISTORY_NODE` in an undo log header.
pub const TRX_UNDO_HISTORY_NODE: usize = 34;
/// `TRX_UNDO_INSERT_REC`.
pub const TRX_UNDO_INSERT_REC: u8 = 11;
/// `TRX_UNDO_UPD_EXIST_REC`.
pub const TRX_UNDO_UPD_EXIST_REC: u8 = 12;
/// `TRX_UNDO_UPD_DEL_REC`.
pub const TRX_UNDO_UPD_DEL_REC: u8 = 13;
/// `TRX_UNDO_DEL_MARK_REC`.
pub const TRX_UNDO_DEL_MARK_REC: u8 = 14;
/// `UNIV_SQL_NULL` (`univ.i`).
pub const UNIV_SQL_NULL: u32 = 0xFFFF_FFFF;
/// `UNIV_EXTERN_STORAGE_FIELD`: `UNIV_SQL_NULL` − `UNIV_PAGE_SIZE_DEF`.
pub const UNIV_EXTERN_STORAGE_FIELD: u32 = UNIV_SQL_NULL - 16384;
/// `REC_INFO_DELETED_FLAG` in the info bits.
pub const REC_INFO_DELETED_FLAG: u8 = 0x20;
/// The most roll pointers one chain follows.
pub const MAX_CHAIN: usize = 1 << 20;
/// The most records read from one undo log.
const MAX_LOG_RECORDS: usize = 1 << 22;

/// The name of an undo record type.
pub fn type_name(t: u8) -> &'static str {
    match t {
        TRX_UNDO_INSERT_REC => "insert",
        TRX_UNDO_UPD_EXIST_REC => "update",
        TRX_UNDO_UPD_DEL_REC => "update of a delete-marked record",
        TRX_UNDO_DEL_MARK_REC => "delete mark",
        _ => "other",
    }
}

/// The name of an undo segment state (`TRX_UNDO_STATE`).
pub fn state_name(s: u16) -> &'static str {
    match s {
        1 => "active",
        2 => "cached",
        3 => "to free",
        4 => "to purge",
        5 => "prepared",
        _ => "unknown",
    }
}

/// A roll pointer, decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RollPtr {
    /// The change was an insert: there is no older version.
    pub insert: bool,
    /// The rollback segment (TRX_SYS slot).
    pub rseg: u8,
    /// The undo page.
    pub page: u32,
    /// The record's byte offset on the page.
    pub offset: u16,
}

impl RollPtr {
    /// From its 56-bit value.
    pub fn from_u64(v: u64) -> RollPtr {
        RollPtr {
            insert: (v >> 55) & 1 == 1,
            rseg: ((v >> 48) & 0x7F) as u8,
            page: ((v >> 16) & 0xFFFF_FFFF) as u32,
            offset: (v & 0xFFFF) as u16,
        }
    }
    /// From the 7 bytes of `DB_ROLL_PTR`.
    pub fn read(b: &[u8]) -> Option<RollPtr> {
        let b = b.get(..7)?;
        Some(RollPtr::from_u64(
            b.iter().fold(0u64, |a, &x| (a << 8) | u64::from(x)),
        ))
    }
    /// The 56-bit value.
    pub fn to_u64(self) -> u64 {
        (u64::from(self.insert) << 55)
            | (u64::from(self.rseg & 0x7F) << 48)
            | (u64::from(self.page) << 16)
            | u64::from(self.offset)
    }
}

/// Reads `mach_read_compressed` at `*pos`, below `end`.
pub fn read_compressed(b: &[u8], pos: &mut usize, end: usize) -> Option<u32> {
    let first = *b.get(*pos)?;
    let (n, v) = if first < 0x80 {
        (1, u32::from(first))
    } else if first < 0xC0 {
        (2, u32::from(be_u16(b, *pos)?) & 0x7FFF)
    } else if first < 0xE0 {
        let three = b.get(*pos..pos.checked_add(3)?)?;
        (
            3,
            three.iter().fold(0u32, |a, &x| (a << 8) | u32::from(x)) & 0x3F_FFFF,
        )
    } else if first < 0xF0 {
        (4, be_u32(b, *pos)? & 0x1FFF_FFFF)
    } else {
        (5, be_u32(b, pos.checked_add(1)?)?)
    };
    let next = pos.checked_add(n)?;
    if next > end {
        return None;
    }
    *pos = next;
    Some(v)
}

/// Reads `mach_u64_read_much_compressed` (0xFF, high, low when the high
/// half is not 0; else the low half alone).
pub fn read_much_compressed(b: &[u8], pos: &mut usize, end: usize) -> Option<u64> {
    if *b.get(*pos)? != 0xFF {
        return read_compressed(b, pos, end).map(u64::from);
    }
    let mut p = pos.checked_add(1)?;
    let hi = read_compressed(b, &mut p, end)?;
    let lo = read_compressed(b, &mut p, end)?;
    *pos = p;
    Some((u64::from(hi) << 32) | u64::from(lo))
}

/// Reads `mach_u64_read_compressed` (the high half compressed, the low
/// half in 4 bytes).
pub fn read_u64_compressed(b: &[u8], pos: &mut usize, end: usize) -> Option<u64> {
    let mut p = *pos;
    let hi = read_compressed(b, &mut p, end)?;
    let lo = be_u32(b, p)?;
    let next = p.checked_add(4)?;
    if next > end {
        return None;
    }
    *pos = next;
    Some((u64::from(hi) << 32) | u64::from(lo))
}

/// A column value stored in an undo record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColVal {
    /// SQL NULL.
    Null,
    /// The bytes at `start` (page offset), `len` long.
    Bytes {
        /// Page offset.
        start: u16,
        /// Length.
        len: u16,
    },
    /// An off-page column: its local prefix and the 20-byte reference at
    /// `start`, `len` long.
    Extern {
        /// Page offset.
        start: u16,
        /// Length (local prefix and reference).
        len: u16,
    },
}

impl ColVal {
    /// The stored bytes of a value on `page`.
    pub fn bytes<'p>(&self, page: &'p [u8]) -> Option<&'p [u8]> {
        match *self {
            ColVal::Null => None,
            ColVal::Bytes { start, len } | ColVal::Extern { start, len } => {
                let s = usize::from(start);
                page.get(s..s.checked_add(usize::from(len))?)
            }
        }
    }
}

/// Reads `trx_undo_rec_get_col_val`.
fn col_val(b: &[u8], pos: &mut usize, end: usize) -> Option<ColVal> {
    let len = read_compressed(b, pos, end)?;
    if len == UNIV_SQL_NULL {
        return Some(ColVal::Null);
    }
    let (ext, len) = if len == UNIV_EXTERN_STORAGE_FIELD {
        let _orig = read_compressed(b, pos, end)?;
        (true, read_compressed(b, pos, end)?)
    } else if len >= UNIV_EXTERN_STORAGE_FIELD {
        (true, len.saturating_sub(UNIV_EXTERN_STORAGE_FIELD))
    } else {
        (false, len)
    };
    let start = *pos;
    let stop = start.checked_add(usize::try_from(len).ok()?)?;
    if stop > end {
        return None;
    }
    *pos = stop;
    let start = u16::try_from(start).ok()?;
    let len = u16::try_from(len).ok()?;
    Some(if ext {
        ColVal::Extern { start, len }
    } else {
        ColVal::Bytes { start, len }
    })
}

/// One undo record, decoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UndoRec {
    /// Byte offset of the record on its page.
    pub offset: u16,
    /// Offset of the next record (the end of this one).
    pub next: u16,
    /// `TRX_UNDO_INSERT_REC`…
    pub rec_type: u8,
    /// The compiler info (`cmpl_info`).
    pub cmpl_info: u8,
    /// `TRX_UNDO_UPD_EXTERN`: an off-page column was updated.
    pub upd_extern: bool,
    /// The record's number in its transaction.
    pub undo_no: u64,
    /// The table.
    pub table_id: u64,
    /// Update types: the info bits of the version before the change.
    pub info_bits: Option<u8>,
    /// Update types: `DB_TRX_ID` of the version before the change.
    pub trx_id: Option<u64>,
    /// Update types: `DB_ROLL_PTR` of the version before the change.
    pub roll_ptr: Option<RollPtr>,
    /// The unique key fields (when the key's field count was given).
    pub key: Vec<ColVal>,
    /// The update vector: (field number in the clustered index, old value).
    pub update: Vec<(u32, ColVal)>,
}

impl UndoRec {
    /// The version before the change was delete-marked.
    pub fn was_deleted(&self) -> bool {
        self.info_bits
            .is_some_and(|b| b & REC_INFO_DELETED_FLAG != 0)
    }
}

/// Decodes the undo record at `offset` of `page`; with `n_unique` (the
/// clustered index's unique field count) also the key and update vector.
pub fn parse_rec(page: &[u8], offset: usize, n_unique: Option<usize>) -> Result<UndoRec, Error> {
    let err = |at: usize, kind: ErrorKind| Error::in_page(kind, at);
    // Records lie between the page header and the FIL trailer (8 bytes).
    let limit = page.len().saturating_sub(8);
    let first = TRX_UNDO_PAGE_HDR.saturating_add(18);
    if offset < first || offset.saturating_add(4) > limit {
        return Err(err(offset, ErrorKind::UndoOutsideRecords));
    }
    let next = usize::from(be_u16(page, offset).unwrap_or(0));
    if next <= offset.saturating_add(4) || next > limit {
        return Err(err(offset, ErrorKind::UndoPastPage { next }));
    }
    let end = next.saturating_sub(2);
    if usize::from(be_u16(page, end).unwrap_or(0)) != offset {
        return Err(err(end, ErrorKind::UndoTrailer));
    }
    let mut pos = offset.saturating_add(2);
    let tb = *page
        .get(pos)
        .ok_or_else(|| err(pos, ErrorKind::UndoShort))?;
    pos = pos.saturating_add(1);
    let upd_extern = tb & 128 != 0;
    let tb = tb & 127;
    let rec_type = tb & 15;
    let cmpl_info = tb >> 4;
    let short = |pos: usize| err(pos, ErrorKind::UndoFieldPastEnd);
    let undo_no = read_much_compressed(page, &mut pos, end).ok_or_else(|| short(pos))?;
    let table_id = read_much_compressed(page, &mut pos, end).ok_or_else(|| short(pos))?;
    let mut r = UndoRec {
        offset: u16::try_from(offset).unwrap_or(0),
        next: u16::try_from(next).unwrap_or(0),
        rec_type,
        cmpl_info,
        upd_extern,
        undo_no,
        table_id,
        info_bits: None,
        trx_id: None,
        roll_ptr: None,
        key: Vec::new(),
        update: Vec::new(),
    };
    let update_type = matches!(
        rec_type,
        TRX_UNDO_UPD_EXIST_REC | TRX_UNDO_UPD_DEL_REC | TRX_UNDO_DEL_MARK_REC
    );
    if update_type {
        r.info_bits = Some(*page.get(pos).ok_or_else(|| short(pos))?);
        pos = pos.saturating_add(1);
        r.trx_id = Some(read_u64_compressed(page, &mut pos, end).ok_or_else(|| short(pos))?);
        r.roll_ptr = Some(RollPtr::from_u64(
            read_u64_compressed(page, &mut pos, end).ok_or_else(|| short(pos))?,
        ));
    } else if rec_type != TRX_UNDO_INSERT_REC {
        return Ok(r);
    }
    let Some(n) = n_unique else {
        return Ok(r);
    };
    for _ in 0..n {
        r.key
            .push(col_val(page, &mut pos, end).ok_or_else(|| short(pos))?);
    }
    if update_type && rec_type != TRX_UNDO_DEL_MARK_REC {
        let n = read_compressed(page, &mut pos, end).ok_or_else(|| short(pos))?;
        // each field takes at least 2 bytes: the count is bounded by the record
        if usize::try_from(n).unwrap_or(usize::MAX) > end.saturating_sub(pos) / 2 {
            return Err(err(pos, ErrorKind::UndoTooManyFields { n }));
        }
        for _ in 0..n {
            let f = read_compressed(page, &mut pos, end).ok_or_else(|| short(pos))?;
            let v = col_val(page, &mut pos, end).ok_or_else(|| short(pos))?;
            r.update.push((f, v));
        }
    }
    Ok(r)
}

/// A problem met in the undo logs: the space, the page and the byte
/// offset in the space.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct UndoProblem {
    /// The space id.
    pub space: u32,
    /// The page.
    pub page: u32,
    /// Byte offset in the space.
    pub offset: u64,
    /// What is wrong, in words.
    pub what: String,
}

/// What is wrong with a page that a pointer of the undo reaches (TRX_SYS,
/// a rollback segment's history list or undo slot, an undo page list, a
/// roll pointer): the page verdict's words. Such a page is claimed, so an
/// all-zero one is damaged, not empty.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Damage {
    /// Every byte is zero.
    Zeroed,
    /// Its checksum does not verify (and it is not torn).
    Corrupt,
    /// A write that stopped part way: the LSN copies differ and the
    /// trailer's LSN is one the space's pages that verify reached (the
    /// core's rule, [`ibdscope_core::verdict`]).
    Torn,
    /// It verifies, but its header names another page or space.
    Foreign {
        /// `FIL_PAGE_SPACE_ID` as stored.
        space: u32,
        /// `FIL_PAGE_OFFSET` as stored.
        page: u32,
    },
    /// It cannot be verified from the file alone (its type says encrypted
    /// or compressed).
    Unverifiable,
}

impl Damage {
    /// The verdict word: `zeroed`, `corrupt`, `torn`, `foreign`,
    /// `unverifiable`.
    pub fn word(self) -> &'static str {
        match self {
            Damage::Zeroed => "zeroed",
            Damage::Corrupt => "corrupt",
            Damage::Torn => "torn",
            Damage::Foreign { .. } => "foreign",
            Damage::Unverifiable => "unverifiable",
        }
    }

    /// The evidence, in words.
    pub fn evidence(self) -> String {
        match self {
            Damage::Zeroed => "every byte is 0".into(),
            Damage::Corrupt => "its checksum does not verify".into(),
            Damage::Torn => "its LSN copies differ and the trailer holds the LSN of an earlier \
                             write: a write that stopped part way"
                .into(),
            Damage::Foreign { space, page } => {
                format!("it verifies but carries page {page} of space {space}")
            }
            Damage::Unverifiable => {
                "its type says encrypted or compressed: it cannot be verified from the file".into()
            }
        }
    }
}

/// Whether page `page` of `ts` (space `space`), which a pointer of the
/// undo reaches, is damaged: all zeros, a checksum that does not verify,
/// another page's or space's header. `None` when it verifies (or is not
/// in the file: the caller says so).
pub fn page_damage(ts: &Tablespace<'_>, space: u32, page: u32) -> Option<Damage> {
    page_damage_within(ts, space, page, || newest_verified(ts))
}

/// The newest LSN of the pages of `ts` that verify: the bound of a torn
/// write ([`ibdscope_core::verdict`]), from one pass.
fn newest_verified(ts: &Tablespace<'_>) -> Option<Lsn> {
    ibdscope_core::Summary::of(ts, &ibdscope_core::Engine::default()).newest_verified
}

/// [`page_damage`] with the torn bound from `newest`, asked only for a
/// page whose LSN copies differ. A page that does not verify is judged by
/// the core's one rule ([`ibdscope_core::verdict::judge`]): torn or
/// corrupt, as every command judges it.
pub fn page_damage_within(
    ts: &Tablespace<'_>,
    space: u32,
    page: u32,
    newest: impl FnOnce() -> Option<Lsn>,
) -> Option<Damage> {
    let p = ts.page(PageNo(page))?;
    let f = ibdscope_core::space::page_facts(p, PageNo(page), ts.scheme());
    let lsn_copies_differ = f.lsn_pair.is_some_and(|(h, t)| h != t);
    match f.verdict {
        Verdict::Mismatch | Verdict::Valid(_)
            if f.verdict == Verdict::Mismatch || lsn_copies_differ =>
        {
            let problems: Vec<ibdscope_core::space::PageProblem> = ts.page_problems(&f).collect();
            let bound = if lsn_copies_differ { newest() } else { None };
            let j = ibdscope_core::verdict::judge(ts, &f, &problems, bound);
            Some(if j.verdict == ibdscope_core::PageVerdict::Torn {
                Damage::Torn
            } else {
                Damage::Corrupt
            })
        }
        Verdict::Valid(_) => (f.stored_page_no.0 != page
            || (f.has_space_id && f.space_id.0 != space))
            .then_some(Damage::Foreign {
                space: f.space_id.0,
                page: f.stored_page_no.0,
            }),
        Verdict::Empty => Some(Damage::Zeroed),
        Verdict::Unverifiable(_) => Some(Damage::Unverifiable),
        _ => Some(Damage::Corrupt),
    }
}

/// A damaged page the undo's pointers reach.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct DamagedPage {
    /// The rollback segment (TRX_SYS slot) whose pointers reach it.
    pub rseg: u32,
    /// Its space.
    pub space: u32,
    /// The page.
    pub page: u32,
    /// The byte the pointer named on it (an undo log header), or 0.
    pub at: u16,
    /// What is wrong with it.
    pub damage: Damage,
}

/// One undo log header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UndoLog {
    /// The rollback segment (TRX_SYS slot).
    pub rseg: u32,
    /// The space.
    pub space: u32,
    /// The header page.
    pub page: u32,
    /// The header's byte offset on its page.
    pub offset: u16,
    /// The header page is damaged: the fields below are not read (0), the
    /// log's transaction and records are lost.
    pub damage: Option<Damage>,
    /// `TRX_UNDO_PAGE_TYPE` of the header page.
    pub page_type: u16,
    /// `TRX_UNDO_STATE` of the segment.
    pub state: u16,
    /// `TRX_UNDO_TRX_ID`.
    pub trx_id: u64,
    /// `TRX_UNDO_TRX_NO`.
    pub trx_no: u64,
    /// `TRX_UNDO_DEL_MARKS` (MariaDB 10.3+: `TRX_UNDO_NEEDS_PURGE`).
    pub del_marks: u16,
    /// `TRX_UNDO_LOG_START`.
    pub log_start: u16,
    /// `TRX_UNDO_NEXT_LOG`.
    pub next_log: u16,
    /// `TRX_UNDO_DICT_TRANS`.
    pub dict_trans: bool,
    /// `TRX_UNDO_TABLE_ID`.
    pub table_id: u64,
    /// In its rollback segment's history list (committed, not purged).
    pub in_history: bool,
    /// Its records: (page, type, table id, undo_no).
    pub records: Vec<(u32, u8, u64, u64)>,
}

impl UndoLog {
    /// A log whose header page (`page`, the header at `offset`) is damaged.
    fn damaged(rseg: u32, space: u32, page: u32, offset: u16, damage: Damage) -> UndoLog {
        UndoLog {
            rseg,
            space,
            page,
            offset,
            damage: Some(damage),
            page_type: 0,
            state: 0,
            trx_id: 0,
            trx_no: 0,
            del_marks: 0,
            log_start: 0,
            next_log: 0,
            dict_trans: false,
            table_id: 0,
            in_history: false,
            records: Vec::new(),
        }
    }
}

/// One rollback segment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rseg {
    /// The TRX_SYS slot (the rseg id in roll pointers).
    pub slot: u32,
    /// Its space.
    pub space: u32,
    /// Its header page.
    pub page: u32,
    /// `TRX_RSEG_MAX_SIZE` (MariaDB 10.3+: `TRX_RSEG_FORMAT`).
    pub max_size: u32,
    /// `TRX_RSEG_HISTORY_SIZE`: pages in the history list.
    pub history_size: u32,
    /// The history list's length (`FLST_LEN`): undo logs to purge.
    pub history_len: u32,
    /// Used undo slots: (slot, first page).
    pub slots: Vec<(u32, u32)>,
}

/// The undo logs of an instance, over the spaces that hold them.
pub struct Undo<'s, 'a> {
    spaces: Vec<(u32, &'s Tablespace<'a>)>,
    slots: Vec<RsegSlot>,
    /// The rollback segments read.
    pub rsegs: Vec<Rseg>,
    /// The undo logs found: the history lists' and the active ones.
    pub logs: Vec<UndoLog>,
    /// Problems met while reading them.
    pub problems: Vec<UndoProblem>,
    /// The damaged pages the pointers reached, each once.
    pub damaged: Vec<DamagedPage>,
    trx_ids: HashSet<u64>,
    /// Per space, the newest LSN of its pages that verify (the torn bound),
    /// found once, when a page whose LSN copies differ is met.
    newest: std::cell::RefCell<HashMap<u32, Option<Lsn>>>,
}

fn page_off(ts: &Tablespace<'_>, page: u32, at: usize) -> u64 {
    u64::from(page)
        .saturating_mul(u64::from(ts.page_size()))
        .saturating_add(at as u64)
}

/// A place in a space: where a pointer is stored, or what it names.
#[derive(Clone, Copy, Debug)]
struct At {
    space: u32,
    page: u32,
    at: usize,
}

/// What a pointer must lead to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Claim {
    /// A rollback segment header (TRX_SYS slots): `FIL_PAGE_TYPE_SYS`.
    RsegHeader,
    /// An undo log page (undo slots, history lists, page lists, roll
    /// pointers): `FIL_PAGE_UNDO_LOG`.
    UndoPage,
}

/// `FIL_PAGE_TYPE_SYS` (`fil0fil.h`): `fseg_create_general` gives the
/// first page of a new segment this type, the rollback segment header
/// (`trx_rseg_header_create`) among them.
pub const FIL_PAGE_TYPE_SYS: u16 = 6;
/// `FIL_PAGE_TYPE_ALLOCATED`: a page never given a type (a rollback
/// segment header written before MySQL 5.1, which tagged only undo and
/// index pages, `fil0fil.h`).
pub const FIL_PAGE_TYPE_ALLOCATED: u16 = 0;
/// `TRX_RSEG_UNDO_SLOTS`, from `TRX_RSEG`.
pub const TRX_RSEG_UNDO_SLOTS: usize = 34;
/// `TRX_UNDO_LOG_OLD_HDR_SIZE`: an undo log header without XID
/// (`TRX_UNDO_HISTORY_NODE` + `FLST_NODE_SIZE`).
pub const TRX_UNDO_LOG_OLD_HDR_SIZE: usize = 46;

/// The fixed pages of the system tablespace that are never a rollback
/// segment header (`fsp0types.h`; page 6, `FSP_FIRST_RSEG_PAGE_NO`, is
/// the first one).
fn fixed_system_page(page: u32) -> Option<&'static str> {
    match page {
        0 => Some("its FSP header page (FSP_HDR)"),
        1 => Some("its change buffer bitmap page"),
        2 => Some("its first inode page"),
        3 => Some("its change buffer header (FSP_IBUF_HEADER_PAGE_NO)"),
        4 => Some("its change buffer tree root (FSP_IBUF_TREE_ROOT_PAGE_NO)"),
        5 => Some("the TRX_SYS page (FSP_TRX_SYS_PAGE_NO)"),
        7 => Some("the data dictionary header (FSP_DICT_HDR_PAGE_NO)"),
        _ => None,
    }
}

/// The name of an undo segment state, for the states `trx0undo.h`
/// defines; `None` for any other value (not a state the server writes:
/// MariaDB's `trx_undo_mem_create_at_db_start` refuses it, "unsupported
/// undo header state").
pub fn known_state(s: u16) -> Option<&'static str> {
    match state_name(s) {
        "unknown" => None,
        n => Some(n),
    }
}

impl<'s, 'a> Undo<'s, 'a> {
    /// [`page_damage`], the torn bound of each space found once.
    pub fn damage(&self, ts: &Tablespace<'_>, space: u32, page: u32) -> Option<Damage> {
        page_damage_within(ts, space, page, || {
            *self
                .newest
                .borrow_mut()
                .entry(space)
                .or_insert_with(|| newest_verified(ts))
        })
    }

    /// Reads the rollback segments of `slots` (TRX_SYS) in `spaces`
    /// (space id, space: the system space and the undo tablespaces), their
    /// history lists and undo segments. Every pointer is checked against
    /// what the server accepts before it is followed (a finding if not):
    /// a TRX_SYS slot names a space read (0 or an undo tablespace) and a
    /// page in it that verifies, is not a fixed page of the system
    /// tablespace, has the rollback segment header's type and is named by
    /// no other slot; an undo slot, a history list node and a page list
    /// link name a page of their space that verifies and is an undo log
    /// page; a segment's `TRX_UNDO_STATE` is one of the states, its
    /// `TRX_UNDO_PAGE_TYPE` 0–2, its last log header inside the page.
    pub fn read(spaces: Vec<(u32, &'s Tablespace<'a>)>, slots: &[RsegSlot]) -> Undo<'s, 'a> {
        let mut u = Undo {
            spaces,
            slots: slots.to_vec(),
            rsegs: Vec::new(),
            logs: Vec::new(),
            problems: Vec::new(),
            damaged: Vec::new(),
            trx_ids: HashSet::new(),
            newest: std::cell::RefCell::new(HashMap::new()),
        };
        let trx_sys = At {
            space: 0,
            page: FSP_TRX_SYS_PAGE_NO,
            at: 0,
        };
        if let Some(d) = u
            .space(0)
            .and_then(|ts| u.damage(ts, 0, FSP_TRX_SYS_PAGE_NO))
        {
            u.problem(
                trx_sys,
                format!(
                    "the TRX_SYS page is damaged ({}): {}; the rollback segments it names \
                     cannot be trusted",
                    d.word(),
                    d.evidence()
                ),
            );
            if d == Damage::Zeroed {
                return u;
            }
        }
        for (k, s) in slots.iter().enumerate() {
            let from = At {
                at: slot_at(s.slot),
                ..trx_sys
            };
            let earlier = slots
                .get(..k)
                .and_then(|e| e.iter().find(|e| (e.space, e.page) == (s.space, s.page)));
            if let Some(e) = earlier {
                u.problem(
                    from,
                    format!(
                        "rollback segment {}: TRX_SYS names page {} of space {}, the header of \
                         rollback segment {} too",
                        s.slot, s.page, s.space, e.slot
                    ),
                );
                continue;
            }
            u.read_rseg(*s, from);
        }
        u.trx_ids = u
            .logs
            .iter()
            .filter(|l| l.damage.is_none())
            .map(|l| l.trx_id)
            .collect();
        u
    }

    /// The space of id `id`.
    pub fn space(&self, id: u32) -> Option<&'s Tablespace<'a>> {
        self.spaces.iter().find(|(i, _)| *i == id).map(|(_, t)| *t)
    }

    fn problem(&mut self, at: At, what: String) {
        let offset = self
            .space(at.space)
            .map_or(0, |ts| page_off(ts, at.page, at.at));
        self.problems.push(UndoProblem {
            space: at.space,
            page: at.page,
            offset,
            what,
        });
    }

    /// Whether an undo log of transaction `trx` is there (in a history
    /// list or active): the changes of a transaction not there are purged
    /// (unless damage in its rollback segment hides it: [`Undo::damage_in`]).
    pub fn has_trx(&self, trx: u64) -> bool {
        self.trx_ids.contains(&trx)
    }

    /// The first damaged page the pointers of rollback segment `rseg`
    /// reached: the undo logs behind it are lost, not purged.
    pub fn damage_in(&self, rseg: u32) -> Option<&DamagedPage> {
        self.damaged.iter().find(|d| d.rseg == rseg)
    }

    /// Undo logs still to be purged (in history lists) and the history
    /// list length per rollback segment (slot, length).
    pub fn to_purge(&self) -> (u64, Vec<(u32, u32)>) {
        let n = self.rsegs.iter().map(|r| u64::from(r.history_len)).sum();
        (
            n,
            self.rsegs.iter().map(|r| (r.slot, r.history_len)).collect(),
        )
    }

    /// The page a pointer stored at `from` names (`space`, `page`, the
    /// byte `at` on it), when it is what `claim` says it must be; else a
    /// problem, and `Err` with the page's damage when it is damaged.
    fn claim(
        &mut self,
        from: At,
        to: At,
        claim: Claim,
        rseg: u32,
        what: &str,
    ) -> Result<&'s [u8], Option<Damage>> {
        let (space, page) = (to.space, to.page);
        let Some(ts) = self.space(space) else {
            self.problem(
                from,
                format!(
                    "{what}: space {space} is not among the files read (the system tablespace \
                     and the undo tablespaces beside it)"
                ),
            );
            return Err(None);
        };
        let Some(p) = ts.page(PageNo(page)) else {
            self.problem(
                from,
                format!(
                    "{what}: page {page} is outside space {space} ({} pages)",
                    ts.n_pages()
                ),
            );
            return Err(None);
        };
        if claim == Claim::RsegHeader && space == 0 {
            if let Some(fixed) = fixed_system_page(page) {
                self.problem(
                    from,
                    format!(
                        "{what}: page {page} of the system tablespace is {fixed}, not a \
                         rollback segment header"
                    ),
                );
                return Err(None);
            }
        }
        if let Some(d) = self.damage(ts, space, page) {
            // Each damaged page is said once, at the first pointer to it.
            if !self
                .damaged
                .iter()
                .any(|x| (x.space, x.page) == (space, page))
            {
                self.damaged.push(DamagedPage {
                    rseg,
                    space,
                    page,
                    at: u16::try_from(to.at).unwrap_or(0),
                    damage: d,
                });
                self.problem(
                    to,
                    format!(
                        "{what}: {} page {page} is damaged ({}): {}",
                        if claim == Claim::RsegHeader {
                            "the rollback segment header"
                        } else {
                            "undo"
                        },
                        d.word(),
                        d.evidence()
                    ),
                );
            }
            return Err(Some(d));
        }
        let ty = be_u16(p, 24).unwrap_or(0);
        let names = ts.type_names();
        match claim {
            Claim::RsegHeader if ty != FIL_PAGE_TYPE_SYS && ty != FIL_PAGE_TYPE_ALLOCATED => {
                self.problem(
                    from,
                    format!(
                        "{what}: page {page} of space {space} is not a rollback segment header \
                         (its type is {}, not SYS)",
                        ibdscope_core::PageType(ty).display(names)
                    ),
                );
                Err(None)
            }
            Claim::UndoPage if ty != FIL_PAGE_UNDO_LOG => {
                self.problem(
                    from,
                    format!(
                        "{what}: page {page} of space {space} is not an undo log page (its type \
                         is {}, not UNDO_LOG)",
                        ibdscope_core::PageType(ty).display(names)
                    ),
                );
                Err(None)
            }
            _ => Ok(p),
        }
    }

    fn read_rseg(&mut self, s: RsegSlot, from: At) {
        let what = format!("rollback segment {}", s.slot);
        let here = At {
            space: s.space,
            page: s.page,
            at: 0,
        };
        let Ok(p) = self.claim(from, here, Claim::RsegHeader, s.slot, &what) else {
            return;
        };
        let b = FSEG_PAGE_DATA;
        let max_size = be_u32(p, b).unwrap_or(0);
        let history_size = be_u32(p, b.saturating_add(4)).unwrap_or(0);
        let history_len = be_u32(p, b.saturating_add(8)).unwrap_or(0);
        let n_slots = p.len() / 16;
        let mut used = Vec::new();
        for i in 0..n_slots {
            let at = b
                .saturating_add(TRX_RSEG_UNDO_SLOTS)
                .saturating_add(i.saturating_mul(4));
            match be_u32(p, at) {
                Some(FIL_NULL) | None => {}
                Some(pg) => used.push((u32::try_from(i).unwrap_or(0), pg)),
            }
        }
        self.rsegs.push(Rseg {
            slot: s.slot,
            space: s.space,
            page: s.page,
            max_size,
            history_size,
            history_len,
            slots: used.clone(),
        });
        // The history list: undo log headers linked at TRX_UNDO_HISTORY_NODE.
        let n_pages = self.space(s.space).map_or(0, |t| t.n_pages());
        // FLST_FIRST of TRX_RSEG_HISTORY (base: length 4, first 6, last 6).
        let mut link = At {
            at: b.saturating_add(12),
            ..here
        };
        let mut at = (
            be_u32(p, link.at).unwrap_or(FIL_NULL),
            usize::from(be_u16(p, link.at.saturating_add(4)).unwrap_or(0)),
        );
        let mut seen = HashSet::new();
        let mut n = 0u32;
        while at.0 != FIL_NULL {
            if n >= history_len || !seen.insert(at) || n >= n_pages.saturating_mul(64) {
                self.problem(
                    link,
                    format!(
                        "{what}: the history list goes on past {n} entries (its length says \
                         {history_len}) or comes back to an entry"
                    ),
                );
                break;
            }
            n = n.saturating_add(1);
            let Some(hdr) = at.1.checked_sub(TRX_UNDO_HISTORY_NODE) else {
                self.problem(
                    link,
                    format!("{what}: history node offset {} too small", at.1),
                );
                break;
            };
            let to = At {
                space: s.space,
                page: at.0,
                at: hdr,
            };
            let hp = match self.claim(
                link,
                to,
                Claim::UndoPage,
                s.slot,
                &format!("{what} history list"),
            ) {
                Ok(hp) => hp,
                Err(d) => {
                    if let Some(d) = d {
                        let mut log = UndoLog::damaged(
                            s.slot,
                            s.space,
                            at.0,
                            u16::try_from(hdr).unwrap_or(0),
                            d,
                        );
                        log.in_history = true;
                        self.logs.push(log);
                    }
                    break;
                }
            };
            if let Some(mut log) = self.read_log(s.space, at.0, hp, hdr) {
                log.in_history = true;
                log.rseg = s.slot;
                self.logs.push(log);
            }
            // FLST_NEXT: node + 6
            let nx = at.1.saturating_add(6);
            link = At {
                space: s.space,
                page: at.0,
                at: nx,
            };
            at = (
                be_u32(hp, nx).unwrap_or(FIL_NULL),
                usize::from(be_u16(hp, nx.saturating_add(4)).unwrap_or(0)),
            );
        }
        if n != history_len && at.0 == FIL_NULL {
            self.problem(
                At {
                    at: b.saturating_add(8),
                    ..here
                },
                format!("{what}: the history list has {n} entries, its length says {history_len}"),
            );
        }
        // The undo slots: the first page of each undo segment in use. The
        // last log of a segment in the active or prepared state is read.
        for (i, pg) in used {
            let slot_from = At {
                at: b
                    .saturating_add(TRX_RSEG_UNDO_SLOTS)
                    .saturating_add((i as usize).saturating_mul(4)),
                ..here
            };
            let swhat = format!("{what} undo slot {i}");
            if pg == s.page {
                self.problem(
                    slot_from,
                    format!(
                        "{swhat}: points to page {pg}, the rollback segment header itself, not \
                         an undo log page"
                    ),
                );
                continue;
            }
            let to = At {
                space: s.space,
                page: pg,
                at: 0,
            };
            let sp = match self.claim(slot_from, to, Claim::UndoPage, s.slot, &swhat) {
                Ok(sp) => sp,
                Err(Some(d)) => {
                    if !self.logs.iter().any(|l| (l.space, l.page) == (s.space, pg)) {
                        self.logs.push(UndoLog::damaged(s.slot, s.space, pg, 0, d));
                    }
                    continue;
                }
                Err(None) => continue,
            };
            let state = be_u16(sp, TRX_UNDO_SEG_HDR).unwrap_or(0);
            let page_type = be_u16(sp, TRX_UNDO_PAGE_HDR).unwrap_or(0);
            let last = usize::from(be_u16(sp, TRX_UNDO_SEG_HDR.saturating_add(2)).unwrap_or(0));
            let on = |at: usize| At {
                space: s.space,
                page: pg,
                at,
            };
            if known_state(state).is_none() {
                self.problem(
                    on(TRX_UNDO_SEG_HDR),
                    format!(
                        "{swhat}: TRX_UNDO_STATE is {state} ({state:#06x}), none of the states \
                         trx0undo.h defines (1 active, 2 cached, 3 to free, 4 to purge, 5 \
                         prepared)"
                    ),
                );
                continue;
            }
            if page_type > 2 {
                self.problem(
                    on(TRX_UNDO_PAGE_HDR),
                    format!(
                        "{swhat}: TRX_UNDO_PAGE_TYPE is {page_type}, none of 0, 1 insert, 2 \
                         update"
                    ),
                );
                continue;
            }
            let limit = sp.len().saturating_sub(TRX_UNDO_LOG_OLD_HDR_SIZE);
            if last < TRX_UNDO_SEG_HDR.saturating_add(TRX_UNDO_SEG_HDR_SIZE) || last >= limit {
                self.problem(
                    on(TRX_UNDO_SEG_HDR.saturating_add(2)),
                    format!(
                        "{swhat}: TRX_UNDO_LAST_LOG is {last}, outside the page's log headers \
                         ({}..{limit})",
                        TRX_UNDO_SEG_HDR.saturating_add(TRX_UNDO_SEG_HDR_SIZE)
                    ),
                );
                continue;
            }
            if state == 1 || state == 5 {
                if let Some(mut log) = self.read_log(s.space, pg, sp, last) {
                    log.rseg = s.slot;
                    if !self.logs.iter().any(|l| {
                        l.space == log.space && l.page == log.page && l.offset == log.offset
                    }) {
                        self.logs.push(log);
                    }
                }
            }
        }
    }

    fn read_log(&mut self, space: u32, page: u32, p: &'s [u8], hdr: usize) -> Option<UndoLog> {
        if hdr < TRX_UNDO_SEG_HDR.saturating_add(TRX_UNDO_SEG_HDR_SIZE)
            || hdr.saturating_add(46) > p.len().saturating_sub(8)
        {
            self.problem(
                At {
                    space,
                    page,
                    at: hdr,
                },
                format!("undo log header offset {hdr} is outside the page"),
            );
            return None;
        }
        let g16 = |o: usize| be_u16(p, hdr.saturating_add(o)).unwrap_or(0);
        let mut log = UndoLog {
            rseg: 0,
            space,
            page,
            offset: u16::try_from(hdr).unwrap_or(0),
            damage: None,
            page_type: be_u16(p, TRX_UNDO_PAGE_HDR).unwrap_or(0),
            state: be_u16(p, TRX_UNDO_SEG_HDR).unwrap_or(0),
            trx_id: be_u64(p, hdr).unwrap_or(0),
            trx_no: be_u64(p, hdr.saturating_add(8)).unwrap_or(0),
            del_marks: g16(16),
            log_start: g16(18),
            next_log: g16(30),
            dict_trans: p.get(hdr.saturating_add(21)).is_some_and(|&x| x != 0),
            table_id: be_u64(p, hdr.saturating_add(22)).unwrap_or(0),
            in_history: false,
            records: Vec::new(),
        };
        self.log_records(&mut log, p);
        Some(log)
    }

    /// The records of `log`: from its start on the header page to the next
    /// log's header (or the page's free offset), then on the following
    /// pages of its segment when it is the segment's last log.
    fn log_records(&mut self, log: &mut UndoLog, first: &'s [u8]) {
        let space = log.space;
        let mut page_no = log.page;
        let mut p = first;
        let mut start = usize::from(log.log_start);
        let mut seen_pages = HashSet::new();
        let n_pages = self.space(space).map_or(0, |t| t.n_pages());
        loop {
            if !seen_pages.insert(page_no) || seen_pages.len() > n_pages as usize {
                self.problem(
                    At {
                        space,
                        page: page_no,
                        at: 0,
                    },
                    "undo log page list comes back to a page".into(),
                );
                return;
            }
            let free = usize::from(be_u16(p, TRX_UNDO_PAGE_HDR.saturating_add(4)).unwrap_or(0));
            let stop = if page_no == log.page && log.next_log != 0 {
                usize::from(log.next_log).min(free)
            } else {
                free
            };
            let mut at = start;
            while at < stop {
                if log.records.len() >= MAX_LOG_RECORDS {
                    return;
                }
                match parse_rec(p, at, None) {
                    Ok(r) => {
                        log.records
                            .push((page_no, r.rec_type, r.table_id, r.undo_no));
                        at = usize::from(r.next);
                    }
                    Err(e) => {
                        self.problem(
                            At {
                                space,
                                page: page_no,
                                at: e.page_offset().unwrap_or(at),
                            },
                            format!("undo record at offset {at}: {e}"),
                        );
                        return;
                    }
                }
            }
            if page_no == log.page && log.next_log != 0 {
                return;
            }
            // TRX_UNDO_PAGE_NODE's next: 38 + 6 + 6
            let nx = TRX_UNDO_PAGE_HDR.saturating_add(12);
            let next = be_u32(p, nx).unwrap_or(FIL_NULL);
            if next == FIL_NULL {
                return;
            }
            let from = At {
                space,
                page: page_no,
                at: nx,
            };
            let to = At {
                space,
                page: next,
                at: 0,
            };
            let Ok(np) = self.claim(from, to, Claim::UndoPage, log.rseg, "undo log page list")
            else {
                return;
            };
            page_no = next;
            p = np;
            start = usize::from(be_u16(p, TRX_UNDO_PAGE_HDR.saturating_add(2)).unwrap_or(0));
        }
    }

    /// The space a roll pointer's rollback segment is in.
    fn rseg_space(&self, rp: RollPtr) -> Option<u32> {
        self.slots
            .iter()
            .find(|s| s.slot == u32::from(rp.rseg))
            .map(|s| s.space)
    }

    /// Where a roll pointer leads: its space, and the page's bytes.
    ///
    /// Errors: [`ErrorKind::RollSegNotInTrxSys`],
    /// [`ErrorKind::RollSegSpaceNotRead`], [`ErrorKind::UndoPageOutside`],
    /// [`ErrorKind::NotUndoPage`] (at the page).
    pub fn resolve(&self, rp: RollPtr) -> Result<(u32, &'s [u8]), Error> {
        let roll_ptr = rp.to_u64();
        let Some(space) = self.rseg_space(rp) else {
            return Err(Error::whole(ErrorKind::RollSegNotInTrxSys {
                roll_ptr,
                rseg: rp.rseg,
            }));
        };
        let Some(ts) = self.space(space) else {
            return Err(Error::whole(ErrorKind::RollSegSpaceNotRead {
                roll_ptr,
                rseg: rp.rseg,
                space,
            }));
        };
        let Some(p) = ts.page(PageNo(rp.page)) else {
            return Err(Error::whole(ErrorKind::UndoPageOutside {
                roll_ptr,
                page: rp.page,
                space,
                n_pages: ts.n_pages(),
            }));
        };
        if be_u16(p, 24) != Some(FIL_PAGE_UNDO_LOG) {
            return Err(Error::on_page(
                ErrorKind::NotUndoPage {
                    roll_ptr,
                    page: rp.page,
                    space,
                    page_type: be_u16(p, 24).unwrap_or(0),
                },
                PageNo(rp.page),
                page_off(ts, rp.page, 0),
            ));
        }
        Ok((space, p))
    }

    /// Byte offset of a roll pointer's record in its space.
    pub fn byte_offset(&self, rp: RollPtr) -> (u32, u64) {
        let space = self.rseg_space(rp).unwrap_or(0);
        let off = self
            .space(space)
            .map_or(0, |ts| page_off(ts, rp.page, usize::from(rp.offset)));
        (space, off)
    }

    /// The byte offset in space `space` of byte `at` of page `page`.
    pub fn file_offset(&self, space: u32, page: u32, at: usize) -> u64 {
        self.space(space).map_or(0, |ts| page_off(ts, page, at))
    }
}

/// The byte offset on the TRX_SYS page of rollback segment slot `slot`.
pub fn slot_at(slot: u32) -> usize {
    FSEG_PAGE_DATA
        .saturating_add(TRX_SYS_RSEGS)
        .saturating_add((slot as usize).saturating_mul(TRX_SYS_RSEG_SLOT_SIZE))
}

/// One step back along a row's versions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step<'p> {
    /// The roll pointer followed.
    pub roll_ptr: RollPtr,
    /// The undo page it leads to.
    pub page: &'p [u8],
    /// The record there.
    pub rec: UndoRec,
}

/// Older versions lost with a damaged undo page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lost {
    /// The damaged page's space.
    pub space: u32,
    /// The damaged page.
    pub page: u32,
    /// The byte offset in the space the roll pointer (or the log header
    /// there) names.
    pub offset: u64,
    /// What is wrong with the page.
    pub damage: Damage,
}

/// How a chain of versions ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ChainEnd {
    /// At an insert: the oldest version is the insert.
    Insert,
    /// The undo of the change is purged (its transaction has no undo log
    /// left): older versions are gone.
    Purged,
    /// The undo of the change is on a damaged page (the roll pointer's, or
    /// one that hid its transaction's log): older versions are lost, not
    /// purged.
    Lost(Lost),
    /// A problem: the roll pointer's space, its byte offset there, and
    /// what is wrong.
    Problem(u32, u64, String),
}

/// Follows a row's roll pointers from its current version (`trx_id`,
/// `roll_ptr`), decoding each update record with `n_unique` key fields;
/// `key` (the row's unique key fields as stored) must match each record's.
/// Stops at an insert, at purged undo, at a damaged undo page, at a loop,
/// at a record that is not the row's, or after [`MAX_CHAIN`] steps.
pub fn chain<'s, 'a>(
    u: &Undo<'s, 'a>,
    trx_id: u64,
    roll_ptr: RollPtr,
    table_id: Option<u64>,
    n_unique: usize,
    key: &[Option<Vec<u8>>],
) -> (Vec<Step<'s>>, ChainEnd) {
    let mut steps = Vec::new();
    let mut seen = HashSet::new();
    let (mut trx, mut rp) = (trx_id, roll_ptr);
    loop {
        if rp.insert {
            return (steps, ChainEnd::Insert);
        }
        // The page the pointer leads to is damaged: lost.
        let (space, off) = u.byte_offset(rp);
        let damage = u
            .rseg_space(rp)
            .and_then(|sp| u.space(sp).map(|ts| (sp, ts)))
            .and_then(|(sp, ts)| u.damage(ts, sp, rp.page));
        if let Some(d) = damage {
            return (
                steps,
                ChainEnd::Lost(Lost {
                    space,
                    page: rp.page,
                    offset: off,
                    damage: d,
                }),
            );
        }
        // No undo log of the transaction in a rollback segment that was
        // read: purged, unless a damaged page of that segment hid its log
        // (lost). In one that could not be read: follow the pointer (it
        // says where the damage is).
        if !u.has_trx(trx) {
            if let Some(d) = u.damage_in(u32::from(rp.rseg)) {
                return (
                    steps,
                    ChainEnd::Lost(Lost {
                        space: d.space,
                        page: d.page,
                        offset: u.file_offset(d.space, d.page, usize::from(d.at)),
                        damage: d.damage,
                    }),
                );
            }
            if u.rsegs.iter().any(|r| r.slot == u32::from(rp.rseg)) {
                return (steps, ChainEnd::Purged);
            }
        }
        let problem = |what: String| ChainEnd::Problem(space, off, what);
        if !seen.insert(rp) || steps.len() >= MAX_CHAIN {
            return (
                steps,
                problem(format!(
                    "roll pointer loop: {:#016x} (page {}, offset {}) was already followed",
                    rp.to_u64(),
                    rp.page,
                    rp.offset
                )),
            );
        }
        let page = match u.resolve(rp) {
            Ok((_, p)) => p,
            Err(e) => return (steps, problem(e.to_string())),
        };
        let rec = match parse_rec(page, usize::from(rp.offset), Some(n_unique)) {
            Ok(r) => r,
            Err(e) => {
                return (
                    steps,
                    problem(format!(
                        "undo record at page {}, offset {}: {e} (byte {} of the page)",
                        rp.page,
                        rp.offset,
                        e.page_offset().unwrap_or(0)
                    )),
                )
            }
        };
        let bad = |what: &str| {
            format!(
                "undo record at page {}, offset {} is not this row's: {what}",
                rp.page, rp.offset
            )
        };
        if !matches!(
            rec.rec_type,
            TRX_UNDO_UPD_EXIST_REC | TRX_UNDO_UPD_DEL_REC | TRX_UNDO_DEL_MARK_REC
        ) {
            return (steps, problem(bad(&format!("type {}", rec.rec_type))));
        }
        if table_id.is_some_and(|t| t != rec.table_id) {
            return (steps, problem(bad(&format!("table id {}", rec.table_id))));
        }
        let same_key = rec.key.len() == key.len()
            && rec
                .key
                .iter()
                .zip(key)
                .all(|(v, k)| v.bytes(page) == k.as_deref());
        if !same_key {
            return (steps, problem(bad("another key")));
        }
        let (Some(t), Some(r)) = (rec.trx_id, rec.roll_ptr) else {
            return (steps, problem(bad("no system columns")));
        };
        trx = t;
        let prev = rp;
        rp = r;
        steps.push(Step {
            roll_ptr: prev,
            page,
            rec,
        });
    }
}

#[cfg(test)]
#[allow(
    clippy::arithmetic_side_effects,
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::expect_used
)]
mod tests {
    use super::*;

    /// `mach_write_compressed` as `mach0data.ic` writes it.
    fn wc(n: u32, out: &mut Vec<u8>) {
        if n < 0x80 {
            out.push(n as u8);
        } else if n < 0x4000 {
            out.extend_from_slice(&((n | 0x8000) as u16).to_be_bytes());
        } else if n < 0x20_0000 {
            out.extend_from_slice(&(n | 0xC0_0000).to_be_bytes()[1..]);
        } else if n < 0x1000_0000 {
            out.extend_from_slice(&(n | 0xE000_0000).to_be_bytes());
        } else {
            out.push(0xF0);
            out.extend_from_slice(&n.to_be_bytes());
        }
    }

    #[test]
    fn compressed_integers_as_mach0data_writes_them() {
        for n in [
            0,
            1,
            0x7F,
            0x80,
            0x3FFF,
            0x4000,
            0x1F_FFFF,
            0x20_0000,
            0x0FFF_FFFF,
            0x1000_0000,
            u32::MAX,
        ] {
            let mut b = Vec::new();
            wc(n, &mut b);
            let mut pos = 0;
            assert_eq!(read_compressed(&b, &mut pos, b.len()), Some(n), "{n:#x}");
            assert_eq!(pos, b.len());
            // cut short: nothing, no panic
            let mut pos = 0;
            assert_eq!(read_compressed(&b, &mut pos, b.len() - 1), None);
        }
        // much-compressed with a high half: 0xFF, high, low
        let mut b = vec![0xFF];
        wc(3, &mut b);
        wc(5, &mut b);
        let mut pos = 0;
        assert_eq!(
            read_much_compressed(&b, &mut pos, b.len()),
            Some((3 << 32) | 5)
        );
    }

    #[test]
    fn undo_states_are_trx0undo_hs_and_damage_has_the_verdict_words() {
        assert_eq!(known_state(1), Some("active"));
        assert_eq!(known_state(5), Some("prepared"));
        assert_eq!(known_state(0), None);
        assert_eq!(known_state(0x9999), None);
        let words: Vec<&str> = [
            Damage::Zeroed,
            Damage::Corrupt,
            Damage::Torn,
            Damage::Foreign { space: 1, page: 2 },
            Damage::Unverifiable,
        ]
        .iter()
        .map(|d| d.word())
        .collect();
        assert_eq!(
            words,
            ["zeroed", "corrupt", "torn", "foreign", "unverifiable"]
        );
        assert_eq!(slot_at(0), 56);
        assert_eq!(slot_at(127), 56 + 127 * 8);
    }

    #[test]
    fn roll_pointer_bits_as_trx_undo_build_roll_ptr() {
        let v = (1u64 << 55) | (5u64 << 48) | (300u64 << 16) | 0x1234;
        let r = RollPtr::from_u64(v);
        assert_eq!((r.insert, r.rseg, r.page, r.offset), (true, 5, 300, 0x1234));
        assert_eq!(r.to_u64(), v);
        let b = v.to_be_bytes();
        assert_eq!(RollPtr::read(&b[1..]), Some(r));
    }

    #[test]
    fn an_update_record_decodes_and_a_cut_one_is_an_error() {
        let mut page = vec![0u8; 16384];
        let at = 200usize;
        let mut r = vec![0, 0, TRX_UNDO_UPD_EXIST_REC | (1 << 4)];
        wc(2, &mut r); // undo_no
        wc(40, &mut r); // table id
        r.push(0); // info bits
        wc(0, &mut r);
        r.extend_from_slice(&77u32.to_be_bytes()); // trx id 77
        wc(0x0001_0000, &mut r);
        r.extend_from_slice(&0x0009_0100u32.to_be_bytes()); // roll ptr
        wc(4, &mut r);
        r.extend_from_slice(&[0x80, 0, 0, 1]); // key
        wc(1, &mut r); // one updated field
        wc(4, &mut r);
        wc(2, &mut r);
        r.extend_from_slice(b"r1");
        let next = at + r.len() + 2;
        r[0..2].copy_from_slice(&(next as u16).to_be_bytes());
        r.extend_from_slice(&(at as u16).to_be_bytes());
        page[at..at + r.len()].copy_from_slice(&r);
        let d = parse_rec(&page, at, Some(1)).expect("decodes");
        assert_eq!(
            (d.rec_type, d.cmpl_info, d.undo_no, d.table_id),
            (12, 1, 2, 40)
        );
        assert_eq!(d.trx_id, Some(77));
        assert_eq!(
            d.roll_ptr.map(|r| (r.rseg, r.page, r.offset)),
            Some((1, 9, 0x100))
        );
        assert_eq!(d.key[0].bytes(&page), Some(&[0x80, 0, 0, 1][..]));
        assert_eq!(d.update.len(), 1);
        assert_eq!(d.update[0].0, 4);
        assert_eq!(d.update[0].1.bytes(&page), Some(&b"r1"[..]));
        // a next pointer past the page: an error, no panic
        let mut bad = page.clone();
        bad[at..at + 2].copy_from_slice(&20000u16.to_be_bytes());
        // the crate's one error, with the byte of the page it lies at
        let e = parse_rec(&bad, at, Some(1)).unwrap_err();
        assert_eq!(e.kind, ErrorKind::UndoPastPage { next: 20000 });
        assert_eq!(e.place, crate::error::Place::InPage(at));
        assert_eq!(
            e.to_string(),
            "the record runs past its page (its next-record offset is 20000)"
        );
        // the update count made huge
        for cut in 0..r.len() {
            let mut p = page.clone();
            p[at + 2 + cut] ^= 0xFF;
            let _ = parse_rec(&p, at, Some(1));
        }
    }
}
