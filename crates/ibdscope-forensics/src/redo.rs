//! The redo log's reference points: the checkpoint LSN in the log header,
//! and how far the log holds complete mini-transactions after it.
//!
//! Sources: MariaDB `storage/innobase/include/log0log.h` (10.5 and 10.8+
//! versions), `log/log0recv.cc` (`recv_sys_t::find_checkpoint`,
//! `recv_log_recover_pre_10_2`, `recv_sys_t::parse`), `include/mtr0log.h`
//! (`mlog_decode_varint`); MySQL `storage/innobase/include/log0constants.h`
//! and `log0types.h` (8.0.30+), `log/log0files_io.cc`, `log/log0recv.cc`
//! (`recv_find_max_checkpoint`, `recv_verify_log_is_clean_pre_8_0_30`),
//! `include/log0log.h` (5.7).
//!
//! Four layouts, told apart by the 32-bit format word at byte 0 of the
//! first file:
//!
//! | format word | writer | files | checkpoint blocks | log body |
//! |---|---|---|---|---|
//! | 0 | MySQL ≤ 5.7.8, MariaDB ≤ 10.2.1 | `ib_logfile0..N` | 512 and 1536 of `ib_logfile0`: number @0, LSN @8, offset low @16, high @304, fold checksums @288/@292 | 512-byte blocks |
//! | 1, 103, 104, 0x50485953 (`FORMAT_10_5`), MySQL 2–5 | MySQL 5.7.9–8.0.29, MariaDB 10.2.2–10.7 | `ib_logfile0..N` (MariaDB 10.5+: one file) | 512 and 1536 of `ib_logfile0`: number @0, LSN @8, offset @16 (8 bytes), CRC-32C @508 | 512-byte blocks |
//! | 6 (`VERSION_8_0_30`) | MySQL 8.0.30+ | `#innodb_redo/#ib_redoN` | 512 and 1536 of every file: LSN @8, CRC-32C @508; the newest LSN a file holds wins | 512-byte blocks; a file covers `[start LSN @8, start + size − 2048)` |
//! | 0x50687973 (`FORMAT_10_8`) | MariaDB 10.8+ | `ib_logfile0` | 4096 and 8192: LSN @0, end LSN @8, zeros 16..60, CRC-32C @60 | mini-transactions from byte 12288, a ring: offset = 12288 + (LSN − first LSN) mod (size − 12288) |
//!
//! Bit 31 of the format word marks an encrypted MariaDB log. The latest
//! checkpoint is the valid one with the higher number (formats 0–5, as the
//! servers choose) or the higher LSN (MySQL 8.0.30+, MariaDB 10.8+).
//!
//! **Where the log ends.** Recovery reads forward from the checkpoint
//! until the log stops making sense; that point is the newest LSN a
//! recovery from this copy can reach. In the block formats a block is part
//! of the log while its number is `(LSN / 512 mod 2^30) + 1` (without the
//! flush bit, bit 31), its checksum holds (CRC-32C, the old InnoDB fold, or
//! 0xDEADBEEF when checksums are off) and it is full (data length 512);
//! the first block with a data length below 512 ends the log at its start
//! plus its data length. In MariaDB 10.8+ each mini-transaction is a run of
//! records (a type byte whose low 4 bits are the length, 0 meaning a
//! varint length + 15 follows), a terminator byte equal to the sequence
//! bit of its LSN (1 on odd passes through the ring, 0 on even ones) and a
//! CRC-32C of the records (with an 8-byte nonce before it when encrypted);
//! the first one that fails ends the log.
//!
//! **Which pages the records change** ([`log_pages`]; MariaDB 10.8+ here,
//! MySQL ≤ 5.6's format 0 by the `MLOG_*` types of 5.6 `mtr0mtr.h` and
//! `recv_parse_or_apply_log_rec_body`, each body stepped over by its type).
//! Inside a mini-transaction each record's type byte carries the type in
//! bits 4..6 (`mrec_type_t`, `mtr0types.h`: FREE_PAGE 0, INIT_PAGE 0x10,
//! EXTENDED 0x20, WRITE 0x30, MEMSET 0x40, MEMMOVE 0x50, RESERVED 0x60,
//! OPTION 0x70) and bit 7: "same page as the previous record" after a page
//! record, a file record (FILE_CREATE 0x80 … FILE_CHECKPOINT 0xF0)
//! otherwise. A record that is not "same page" starts with the space id
//! and page number as two `mlog_decode_varint`s (`recv_sys_t::parse_tail`,
//! `log0recv.cc`). One map entry per distinct page keeps the start and end
//! LSN of the newest mini-transaction that changes it; recovery applies a
//! record only when its mini-transaction starts at or after the page's
//! FIL_PAGE_LSN (`recv_recover_page`).

use crate::error::{Error, ErrorKind};
use ibdscope_core::checksum::fold_binary;
use ibdscope_core::{Lsn, PageNo, SpaceId};
use ibdscope_prims::bytes::{be_u16, be_u32, be_u64};
use ibdscope_prims::crc32c::{crc32c, crc32c_extend};
use std::fmt;

/// `OS_FILE_LOG_BLOCK_SIZE`.
pub(crate) const LOG_BLOCK_SIZE: u64 = 512;
/// `LOG_FILE_HDR_SIZE`: the header of every file in the block formats.
pub(crate) const LOG_FILE_HDR_SIZE: u64 = 2048;
/// MariaDB 10.8+ `log_t::START_OFFSET`.
pub(crate) const START_OFFSET_10_8: u64 = 12288;
/// MariaDB `recv_sys_t::MTR_SIZE_MAX`.
pub(crate) const MTR_SIZE_MAX: u64 = 1 << 20;
/// `LOG_NO_CHECKSUM_MAGIC`.
pub(crate) const LOG_NO_CHECKSUM_MAGIC: u32 = 0xDEAD_BEEF;
/// MariaDB `log_t::FORMAT_ENCRYPTED`.
pub(crate) const FORMAT_ENCRYPTED: u32 = 1 << 31;
/// MariaDB `log_t::FORMAT_10_5`.
pub(crate) const FORMAT_10_5: u32 = 0x5048_5953;
/// MariaDB `log_t::FORMAT_10_8`.
pub(crate) const FORMAT_10_8: u32 = 0x5068_7973;
/// MySQL `Log_format::VERSION_8_0_30`.
pub(crate) const FORMAT_8_0_30: u32 = 6;

/// How the log's files are named, which decides how they are read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum RedoLayout {
    /// `ib_logfile0`, `ib_logfile1`, …: the id is the number.
    LogFiles,
    /// MySQL 8.0.30+ `#innodb_redo/#ib_redoN`: the id is N.
    InnodbRedo,
}

/// One file of the log.
#[derive(Clone, Copy, Debug)]
pub struct RedoFile<'a> {
    /// The number in its name.
    pub id: u64,
    /// Its bytes.
    pub data: &'a [u8],
}

/// The layout family of the log.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum RedoFormat {
    /// Format word 0: MySQL before 5.7.9, MariaDB before 10.2.2.
    Legacy,
    /// Block format with a versioned header (MySQL 5.7.9–8.0.29, MariaDB
    /// 10.2.2–10.7).
    Blocks,
    /// MySQL 8.0.30+ `#ib_redoN` files.
    MySql8030,
    /// MariaDB 10.8+.
    MariaDb108,
}

/// Why the scan stopped where it did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum LogEnd {
    /// A block with data length below 512, or a terminator byte where a
    /// mini-transaction would start: the normal end of a log.
    Normal,
    /// A block carries the number of another pass through the log (old
    /// contents): the log was written up to here.
    OldBlock,
    /// A block's or mini-transaction's checksum fails: the write of the
    /// log's tail was cut (or the bytes are damaged).
    Checksum,
    /// A length or record that cannot be: damaged log.
    Malformed,
    /// The bytes end (a file is missing or short).
    Missing,
    /// The scan read the whole capacity without finding the end.
    Capacity,
}

/// A checkpoint block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Checkpoint {
    /// The checkpoint LSN: every change before it is in the data files.
    pub lsn: Lsn,
    /// The checkpoint number (formats 0–5).
    pub no: Option<u64>,
    /// MariaDB 10.8+: the end LSN stored with it (start of its
    /// FILE_CHECKPOINT mini-transaction).
    pub end_lsn: Option<Lsn>,
    /// The file (its id) and byte offset of the block.
    pub file: u64,
    /// Byte offset of the block in that file.
    pub offset: u64,
}

/// Something odd in the log that did not stop the reading.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum RedoNote {
    /// A checkpoint block does not verify (the other one was used).
    BadCheckpoint {
        /// File id.
        file: u64,
        /// Byte offset.
        offset: u64,
    },
    /// The files are not all the same size.
    SizesDiffer,
    /// The header block's checksum fails.
    HeaderChecksum,
}

impl fmt::Display for RedoNote {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            RedoNote::BadCheckpoint { file, offset } => write!(
                f,
                "the checkpoint block at byte {offset} of log file {file} does not verify; the \
                 other checkpoint was used"
            ),
            RedoNote::SizesDiffer => f.write_str("the log files are not all the same size"),
            RedoNote::HeaderChecksum => f.write_str("the log header block's checksum fails"),
        }
    }
}

/// What the log says.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct RedoInfo {
    /// The format word of the first file.
    pub format: u32,
    /// The layout family.
    pub kind: RedoFormat,
    /// The creator string of the header (`MariaDB 10.11.19`, `MySQL 8.0.36`).
    pub creator: String,
    /// Whether the log is encrypted (MariaDB).
    pub encrypted: bool,
    /// The latest valid checkpoint.
    pub checkpoint: Checkpoint,
    /// The older checkpoint, if it verifies.
    pub previous: Option<Checkpoint>,
    /// The LSN up to which the log holds complete, verifiable data after
    /// the checkpoint.
    pub end: Lsn,
    /// Why the scan stopped there.
    pub end_reason: LogEnd,
    /// Mini-transactions after the checkpoint (MariaDB 10.8+ only).
    pub mtrs: Option<u32>,
    /// MariaDB 10.8+: every mini-transaction after the checkpoint is a
    /// FILE_CHECKPOINT marker (what a clean shutdown leaves).
    pub only_checkpoint_markers: Option<bool>,
    /// Bytes of log the files hold (without headers).
    pub capacity: u64,
    /// Oddities.
    pub notes: Vec<RedoNote>,
}

impl RedoInfo {
    /// Whether the log holds changes after its checkpoint that recovery
    /// would apply. Block formats: data past the checkpoint LSN; MariaDB
    /// 10.8+: a mini-transaction other than a FILE_CHECKPOINT marker.
    pub fn has_changes_after_checkpoint(&self) -> bool {
        match self.only_checkpoint_markers {
            Some(only) => !only,
            None => self.end > self.checkpoint.lsn,
        }
    }

    /// A name for the format.
    pub fn format_name(&self) -> String {
        let base = match self.format & !FORMAT_ENCRYPTED {
            0 => "legacy (MySQL <= 5.7.8, MariaDB <= 10.2.1)",
            1 => "MySQL 5.7.9 / MariaDB 10.2",
            2 => "MySQL 8.0.1",
            3 => "MySQL 8.0.3",
            4 => "MySQL 8.0.19",
            5 => "MySQL 8.0.28",
            6 => "MySQL 8.0.30",
            103 => "MariaDB 10.3",
            104 => "MariaDB 10.4",
            FORMAT_10_5 => "MariaDB 10.5",
            FORMAT_10_8 => "MariaDB 10.8",
            _ => "unknown",
        };
        if self.encrypted {
            format!("{base}, encrypted")
        } else {
            base.to_string()
        }
    }
}

impl fmt::Display for LogEnd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            LogEnd::Normal => "the log ends there",
            LogEnd::OldBlock => "the next block is from an earlier pass through the log",
            LogEnd::Checksum => {
                "the next block or mini-transaction fails its checksum (a cut write)"
            }
            LogEnd::Malformed => "the next record is malformed",
            LogEnd::Missing => "the log's bytes end (a file is missing or short)",
            LogEnd::Capacity => "the whole capacity was read",
        })
    }
}

/// Reads the log's checkpoint and end. `files` in any order.
pub fn read(files: &[RedoFile<'_>], layout: RedoLayout) -> Result<RedoInfo, Error> {
    let mut files: Vec<RedoFile<'_>> = files.to_vec();
    files.sort_by_key(|f| f.id);
    let first = files.first().ok_or(Error::whole(ErrorKind::NoRedoFiles))?;
    if (first.data.len() as u64) < LOG_FILE_HDR_SIZE {
        return Err(Error::whole(ErrorKind::RedoTooShort {
            len: first.data.len() as u64,
        }));
    }
    let format = be_u32(first.data, 0).unwrap_or(0);
    let encrypted = format & FORMAT_ENCRYPTED != 0 && format != 0;
    let creator = creator(first.data);
    match (layout, format & !FORMAT_ENCRYPTED) {
        (RedoLayout::InnodbRedo, _) => read_8030(&files, format, creator),
        (_, FORMAT_10_8) => read_10_8(first.data, format, encrypted, creator),
        (_, 0) => read_group(&files, format, false, creator, Legacy::Yes),
        (_, 1..=5 | 103 | 104 | FORMAT_10_5) => {
            read_group(&files, format, encrypted, creator, Legacy::No)
        }
        (_, FORMAT_8_0_30) => read_8030(&files, format, creator),
        _ => Err(Error::whole(ErrorKind::UnknownRedoFormat { format })),
    }
}

fn creator(data: &[u8]) -> String {
    let raw = data.get(16..48).unwrap_or(&[]);
    let end = raw.iter().position(|&b| b == 0).unwrap_or(raw.len());
    raw.get(..end)
        .unwrap_or(&[])
        .iter()
        .map(|&b| {
            if b.is_ascii_graphic() || b == b' ' {
                b as char
            } else {
                '?'
            }
        })
        .collect()
}

/// `log_block_calc_checksum_format_0` / MySQL 5.6 `log_block_calc_checksum`.
fn block_checksum_fold(b: &[u8]) -> u32 {
    let mut sum: u32 = 1;
    let mut sh: u32 = 0;
    for &x in b.get(..508).unwrap_or(&[]) {
        sum &= 0x7FFF_FFFF;
        sum = sum.wrapping_add(u32::from(x).wrapping_shl(sh));
        sh = sh.saturating_add(1);
        sum = sum.wrapping_add(u32::from(x));
        if sh > 24 {
            sh = 0;
        }
    }
    sum
}

/// Whether a 512-byte block's checksum at 508 holds under any algorithm a
/// server writes.
fn block_ok(b: &[u8]) -> bool {
    let Some(stored) = be_u32(b, 508) else {
        return false;
    };
    stored == crc32c(b.get(..508).unwrap_or(&[]))
        || stored == LOG_NO_CHECKSUM_MAGIC
        || stored == block_checksum_fold(b)
}

/// `log_block_convert_lsn_to_no`.
fn lsn_to_no(lsn: u64) -> u32 {
    (((lsn / LOG_BLOCK_SIZE) & 0x3FFF_FFFF) as u32).wrapping_add(1)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Legacy {
    Yes,
    No,
}

/// Formats 0–5, 103, 104 and 10.5: a group of equal files, checkpoints in
/// the first.
fn read_group(
    files: &[RedoFile<'_>],
    format: u32,
    encrypted: bool,
    creator: String,
    legacy: Legacy,
) -> Result<RedoInfo, Error> {
    let first = files.first().ok_or(Error::whole(ErrorKind::NoRedoFiles))?;
    let mut notes = Vec::new();
    if legacy == Legacy::No && !block_ok(first.data.get(..512).unwrap_or(&[])) {
        notes.push(RedoNote::HeaderChecksum);
    }
    let size = first.data.len() as u64;
    if files.iter().any(|f| f.data.len() as u64 != size) {
        notes.push(RedoNote::SizesDiffer);
    }
    let n = files.len() as u64;
    let capacity = size.saturating_sub(LOG_FILE_HDR_SIZE).saturating_mul(n);
    let mut found: Vec<(Checkpoint, u64)> = Vec::new();
    for at in [512u64, 1536] {
        let b = first
            .data
            .get(at as usize..at.saturating_add(512) as usize)
            .unwrap_or(&[]);
        let ok = match legacy {
            // recv_check_cp_is_consistent: fold of 0..288 at 288, fold of
            // 8..292 at 292.
            Legacy::Yes => {
                Some(fold_binary(b.get(..288).unwrap_or(&[]))) == be_u32(b, 288)
                    && Some(fold_binary(b.get(8..292).unwrap_or(&[]))) == be_u32(b, 292)
            }
            Legacy::No => block_ok(b),
        };
        let offset = match legacy {
            Legacy::Yes => {
                u64::from(be_u32(b, 304).unwrap_or(0)) << 32 | u64::from(be_u32(b, 16).unwrap_or(0))
            }
            Legacy::No => be_u64(b, 16).unwrap_or(0),
        };
        // The servers also require the offset inside the log.
        let in_log = offset >= 0x80c && (offset & !511).saturating_add(512) < capacity;
        if !ok || !in_log {
            notes.push(RedoNote::BadCheckpoint {
                file: first.id,
                offset: at,
            });
            continue;
        }
        found.push((
            Checkpoint {
                lsn: Lsn(be_u64(b, 8).unwrap_or(0)),
                no: Some(be_u64(b, 0).unwrap_or(0)),
                end_lsn: None,
                file: first.id,
                offset: at,
            },
            offset,
        ));
    }
    found.sort_by_key(|(c, _)| c.no);
    let (checkpoint, offset) = found.pop().ok_or(Error::whole(ErrorKind::NoCheckpoint))?;
    let previous = found.pop().map(|(c, _)| c);
    let per_file = size.saturating_sub(LOG_FILE_HDR_SIZE);
    // log_t::file::calc_lsn_offset with (lsn, lsn_offset) = the checkpoint.
    let rel_anchor = offset.saturating_sub(
        LOG_FILE_HDR_SIZE
            .saturating_mul(1u64.saturating_add(offset.checked_div(size).unwrap_or(0))),
    );
    let block = |lsn: u64| -> Option<&[u8]> {
        if capacity == 0 || per_file == 0 {
            return None;
        }
        let delta = lsn.wrapping_sub(checkpoint.lsn.0);
        let rel = if lsn >= checkpoint.lsn.0 {
            rel_anchor
                .checked_add(delta.checked_rem(capacity)?)?
                .checked_rem(capacity)?
        } else {
            let back = checkpoint.lsn.0.saturating_sub(lsn).checked_rem(capacity)?;
            rel_anchor
                .checked_add(capacity)?
                .checked_sub(back)?
                .checked_rem(capacity)?
        };
        let file = rel.checked_div(per_file)? as usize;
        let within = LOG_FILE_HDR_SIZE.checked_add(rel.checked_rem(per_file)?)?;
        let data = files.get(file)?.data;
        data.get(within as usize..within.checked_add(512)? as usize)
    };
    let (end, end_reason) = scan_blocks(&block, checkpoint.lsn, capacity);
    Ok(RedoInfo {
        format,
        kind: if legacy == Legacy::Yes {
            RedoFormat::Legacy
        } else {
            RedoFormat::Blocks
        },
        creator,
        encrypted,
        checkpoint,
        previous,
        end,
        end_reason,
        mtrs: None,
        only_checkpoint_markers: None,
        capacity,
        notes,
    })
}

/// Reads blocks forward from the checkpoint's block.
fn scan_blocks<'d>(
    block: &dyn Fn(u64) -> Option<&'d [u8]>,
    checkpoint: Lsn,
    capacity: u64,
) -> (Lsn, LogEnd) {
    let mut lsn = checkpoint.0 & !(LOG_BLOCK_SIZE - 1);
    let mut end = checkpoint;
    let max_blocks = capacity / LOG_BLOCK_SIZE;
    for _ in 0..max_blocks {
        let Some(b) = block(lsn) else {
            return (end, LogEnd::Missing);
        };
        let no = be_u32(b, 0).unwrap_or(0) & 0x7FFF_FFFF;
        if no != lsn_to_no(lsn) {
            return (end, LogEnd::OldBlock);
        }
        if !block_ok(b) {
            return (end, LogEnd::Checksum);
        }
        // MySQL 8.0 keeps an encryption flag in bit 15.
        let len = u64::from(be_u16(b, 4).unwrap_or(0) & 0x7FFF);
        if !(12..=512).contains(&len) {
            return (end, LogEnd::Malformed);
        }
        let block_end = lsn.saturating_add(len);
        if block_end > end.0 {
            end = Lsn(block_end);
        }
        if len < LOG_BLOCK_SIZE {
            return (end, LogEnd::Normal);
        }
        lsn = lsn.saturating_add(LOG_BLOCK_SIZE);
    }
    (end, LogEnd::Capacity)
}

/// MySQL 8.0.30+: every file carries its start LSN and two checkpoint
/// blocks.
fn read_8030(files: &[RedoFile<'_>], format: u32, creator: String) -> Result<RedoInfo, Error> {
    let mut notes = Vec::new();
    // (start, end, file)
    let mut spans: Vec<(u64, u64, &RedoFile<'_>)> = Vec::new();
    let mut found: Vec<Checkpoint> = Vec::new();
    for f in files {
        let head = f.data.get(..512).unwrap_or(&[]);
        if !block_ok(head) {
            notes.push(RedoNote::HeaderChecksum);
            continue;
        }
        let start = be_u64(head, 8).unwrap_or(0);
        let size = f.data.len() as u64;
        let end = start.saturating_add(size.saturating_sub(LOG_FILE_HDR_SIZE));
        spans.push((start, end, f));
        for at in [512u64, 1536] {
            let b = f
                .data
                .get(at as usize..at.saturating_add(512) as usize)
                .unwrap_or(&[]);
            let lsn = be_u64(b, 8).unwrap_or(0);
            if !block_ok(b) {
                notes.push(RedoNote::BadCheckpoint {
                    file: f.id,
                    offset: at,
                });
                continue;
            }
            // recv_find_max_checkpoint: 0 is no checkpoint; it must lie in
            // the file that holds it.
            if lsn == 0 || lsn < start || lsn >= end {
                continue;
            }
            found.push(Checkpoint {
                lsn: Lsn(lsn),
                no: None,
                end_lsn: None,
                file: f.id,
                offset: at,
            });
        }
    }
    found.sort_by_key(|c| c.lsn);
    let checkpoint = found.pop().ok_or(Error::whole(ErrorKind::NoCheckpoint))?;
    let previous = found.pop();
    let capacity = spans
        .iter()
        .map(|(s, e, _)| e.saturating_sub(*s))
        .fold(0u64, u64::saturating_add);
    let block = |lsn: u64| -> Option<&[u8]> {
        let (start, _, f) = spans.iter().find(|(s, e, _)| *s <= lsn && lsn < *e)?;
        let at = LOG_FILE_HDR_SIZE.checked_add(lsn.checked_sub(*start)?)?;
        f.data.get(at as usize..at.checked_add(512)? as usize)
    };
    let (end, end_reason) = scan_blocks(&block, checkpoint.lsn, capacity);
    Ok(RedoInfo {
        format,
        kind: RedoFormat::MySql8030,
        creator,
        encrypted: false,
        checkpoint,
        previous,
        end,
        end_reason,
        mtrs: None,
        only_checkpoint_markers: None,
        capacity,
        notes,
    })
}

/// MariaDB 10.8+: one file, a ring of mini-transactions.
fn read_10_8(
    data: &[u8],
    format: u32,
    encrypted: bool,
    creator: String,
) -> Result<RedoInfo, Error> {
    let mut notes = Vec::new();
    if !block_ok(data.get(..512).unwrap_or(&[])) {
        notes.push(RedoNote::HeaderChecksum);
    }
    let first_lsn = be_u64(data, 8).unwrap_or(0);
    let size = data.len() as u64;
    if size < START_OFFSET_10_8 {
        return Err(Error::whole(ErrorKind::RedoTooShort { len: size }));
    }
    let mut found = Vec::new();
    for at in [4096u64, 8192] {
        let b = data
            .get(at as usize..at.saturating_add(64) as usize)
            .unwrap_or(&[]);
        let lsn = be_u64(b, 0).unwrap_or(0);
        let end = be_u64(b, 8).unwrap_or(0);
        let ok = lsn >= first_lsn
            && end >= lsn
            && b.get(16..60).is_some_and(|z| z.iter().all(|&x| x == 0))
            && Some(crc32c(b.get(..60).unwrap_or(&[]))) == be_u32(b, 60);
        if !ok {
            notes.push(RedoNote::BadCheckpoint {
                file: 0,
                offset: at,
            });
            continue;
        }
        found.push(Checkpoint {
            lsn: Lsn(lsn),
            no: None,
            end_lsn: Some(Lsn(end)),
            file: 0,
            offset: at,
        });
    }
    found.sort_by_key(|c| c.lsn);
    let checkpoint = found.pop().ok_or(Error::whole(ErrorKind::NoCheckpoint))?;
    let previous = found.pop();
    let ring = Ring {
        data,
        first_lsn,
        capacity: size.saturating_sub(START_OFFSET_10_8),
    };
    let scan = ring.scan(checkpoint.lsn.0, encrypted);
    Ok(RedoInfo {
        format,
        kind: RedoFormat::MariaDb108,
        creator,
        encrypted,
        checkpoint,
        previous,
        end: Lsn(scan.end),
        end_reason: scan.reason,
        mtrs: Some(scan.mtrs),
        only_checkpoint_markers: Some(scan.only_markers),
        capacity: ring.capacity,
        notes,
    })
}

/// The MariaDB 10.8+ log body as a ring addressed by LSN.
struct Ring<'a> {
    data: &'a [u8],
    first_lsn: u64,
    capacity: u64,
}

struct RingScan {
    end: u64,
    reason: LogEnd,
    mtrs: u32,
    only_markers: bool,
}

/// MariaDB `FILE_CHECKPOINT` record type (mtr0types.h, high nibble).
const FILE_CHECKPOINT: u8 = 0xF0;

impl Ring<'_> {
    fn offset(&self, lsn: u64) -> Option<u64> {
        let rel = lsn.checked_sub(self.first_lsn)?;
        START_OFFSET_10_8.checked_add(rel.checked_rem(self.capacity)?)
    }
    fn byte(&self, lsn: u64) -> Option<u8> {
        self.data.get(self.offset(lsn)? as usize).copied()
    }
    fn be32(&self, lsn: u64) -> Option<u32> {
        let mut v = 0u32;
        for i in 0..4 {
            v = v << 8 | u32::from(self.byte(lsn.checked_add(i)?)?);
        }
        Some(v)
    }
    /// `log_t::get_sequence_bit`.
    fn sequence_bit(&self, lsn: u64) -> Option<u8> {
        let pass = lsn
            .checked_sub(self.first_lsn)?
            .checked_div(self.capacity)?;
        Some(u8::from(pass & 1 == 0))
    }
    /// CRC-32C of the bytes at `[from, to)` (at most one wrap).
    fn crc(&self, from: u64, to: u64, crc: u32) -> Option<u32> {
        let a = self.offset(from)? as usize;
        let len = to.checked_sub(from)? as usize;
        let end = self.data.len();
        let first = len.min(end.saturating_sub(a));
        let mut c = crc32c_extend(crc, self.data.get(a..a.checked_add(first)?)?);
        let rest = len.saturating_sub(first);
        if rest > 0 {
            let s = START_OFFSET_10_8 as usize;
            c = crc32c_extend(c, self.data.get(s..s.checked_add(rest)?)?);
        }
        Some(c)
    }
    /// `mlog_decode_varint` at `lsn`: (value, length).
    fn varint(&self, lsn: u64) -> Option<(u32, u64)> {
        let b0 = u32::from(self.byte(lsn)?);
        let at = |i: u64| -> Option<u32> { Some(u32::from(self.byte(lsn.checked_add(i)?)?)) };
        const MIN_2: u32 = 1 << 7;
        const MIN_3: u32 = MIN_2 + (1 << 14);
        const MIN_4: u32 = MIN_3 + (1 << 21);
        const MIN_5: u32 = MIN_4 + (1 << 28);
        if b0 < 0x80 {
            Some((b0, 1))
        } else if b0 < 0xc0 {
            Some((MIN_2.checked_add((b0 & 0x3f) << 8 | at(1)?)?, 2))
        } else if b0 < 0xe0 {
            Some((
                MIN_3.checked_add((b0 & 0x1f) << 16 | at(1)? << 8 | at(2)?)?,
                3,
            ))
        } else if b0 < 0xf0 {
            Some((
                MIN_4.checked_add((b0 & 0x0f) << 24 | at(1)? << 16 | at(2)? << 8 | at(3)?)?,
                4,
            ))
        } else if b0 == 0xf0 {
            let v = at(1)? << 24 | at(2)? << 16 | at(3)? << 8 | at(4)?;
            (v <= !MIN_5).then(|| (MIN_5.wrapping_add(v), 5))
        } else {
            None
        }
    }

    /// `recv_sys_t::parse` framing only, from `lsn` on.
    fn scan(&self, mut lsn: u64, encrypted: bool) -> RingScan {
        let start = lsn;
        let mut out = RingScan {
            end: lsn,
            reason: LogEnd::Capacity,
            mtrs: 0,
            only_markers: true,
        };
        while lsn.saturating_sub(start) < self.capacity {
            match self.mtr(lsn, encrypted) {
                Ok((next, marker)) => {
                    lsn = next;
                    out.end = next;
                    out.mtrs = out.mtrs.saturating_add(1);
                    out.only_markers &= marker;
                }
                Err(reason) => {
                    out.reason = reason;
                    return out;
                }
            }
        }
        out
    }

    /// One mini-transaction at `lsn`: its end, and whether it is only a
    /// FILE_CHECKPOINT record.
    fn mtr(&self, lsn: u64, encrypted: bool) -> Result<(u64, bool), LogEnd> {
        let first = self.byte(lsn).ok_or(LogEnd::Missing)?;
        if first <= 1 {
            return Err(LogEnd::Normal);
        }
        let mut pos = lsn;
        let mut records = 0u32;
        let mut marker = true;
        loop {
            if pos.saturating_sub(lsn) >= MTR_SIZE_MAX {
                return Err(LogEnd::Malformed);
            }
            let b = self.byte(pos).ok_or(LogEnd::Missing)?;
            if b <= 1 {
                break;
            }
            records = records.saturating_add(1);
            marker &= b & 0xF0 == FILE_CHECKPOINT;
            pos = pos.saturating_add(1);
            let mut rlen = u64::from(b & 0xF);
            if rlen == 0 {
                let (add, _) = self.varint(pos).ok_or(LogEnd::Malformed)?;
                if u64::from(add) >= MTR_SIZE_MAX {
                    return Err(LogEnd::Malformed);
                }
                rlen = u64::from(add).saturating_add(15);
            }
            pos = pos.saturating_add(rlen);
        }
        if Some(self.byte(pos).ok_or(LogEnd::Missing)?) != self.sequence_bit(pos) {
            return Err(LogEnd::Normal);
        }
        let mut crc = self.crc(lsn, pos, 0).ok_or(LogEnd::Missing)?;
        let mut at = pos.saturating_add(1);
        if encrypted {
            crc = self
                .crc(at, at.saturating_add(8), crc)
                .ok_or(LogEnd::Missing)?;
            at = at.saturating_add(8);
        }
        if self.be32(at).ok_or(LogEnd::Missing)? != crc {
            return Err(LogEnd::Checksum);
        }
        Ok((at.saturating_add(4), marker && records > 0))
    }
}

// ------------------------------------------------------------------
// Pages the log changes after the checkpoint.

/// Pages tracked by default by [`log_pages`].
pub const DEFAULT_MAX_PAGES: usize = 1 << 20;
/// Problems kept by [`log_pages`]; the rest are counted.
pub(crate) const MAX_PROBLEMS: usize = 16;

/// MariaDB 10.5+ page record types (`mrec_type_t`, `mtr0types.h`): bits
/// 4..6 of the type byte.
const FREE_PAGE: u8 = 0x00;
const INIT_PAGE: u8 = 0x10;
const EXTENDED: u8 = 0x20;
const RESERVED: u8 = 0x60;
const OPTION: u8 = 0x70;
/// The flag bit: "same page as the previous record" after a page record,
/// a file record (`mfile_type_t`) otherwise.
const SAME_PAGE: u8 = 0x80;
/// `mrec_ext_t::TRIM_PAGES`: an EXTENDED record that shrinks a file.
const TRIM_PAGES: u8 = 10;

/// One page that log records after the checkpoint change.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct PageLog {
    /// The tablespace.
    pub space: SpaceId,
    /// The page.
    pub page: PageNo,
    /// Start LSN of the newest mini-transaction with a record that changes
    /// the page. Recovery applies a record when this is at least the
    /// page's FIL_PAGE_LSN (`recv_recover_page`: "if (start_lsn <
    /// page_lsn) skip").
    pub start: Lsn,
    /// End LSN of that mini-transaction: the FIL_PAGE_LSN recovery leaves.
    pub end: Lsn,
    /// Records for the page after the checkpoint (saturating).
    pub records: u32,
    /// The newest of them frees the page (MariaDB FREE_PAGE): recovery
    /// marks it free and does not write it.
    pub freed: bool,
    /// A record after the checkpoint (re)initialises the page (MariaDB
    /// INIT_PAGE, MySQL page-create records): recovery can build it
    /// without reading it.
    pub init: bool,
}

/// What went wrong while reading the records of one mini-transaction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum RecordProblemKind {
    /// The space id or page number varint cannot be decoded or overruns
    /// the record (`log_page_id_corrupted`).
    BadPageId,
    /// A "same page" record with no page record before it in the
    /// mini-transaction, or FREE_PAGE / INIT_PAGE flagged "same page"
    /// (`log_record_corrupted`).
    BadSamePage,
    /// A RESERVED record type (`log_unknown`).
    Reserved,
    /// The record runs past the end of its mini-transaction.
    Overrun,
    /// A MySQL 5.6 record type this reader does not know, or whose body it
    /// cannot step over: the rest of the log is not read.
    UnknownType,
}

/// A problem in the log records, with where it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct RecordProblem {
    /// LSN of the record.
    pub lsn: Lsn,
    /// The log file (its id).
    pub file: u64,
    /// Byte offset of the record in that file.
    pub offset: u64,
    /// The record's type byte.
    pub type_byte: u8,
    /// What.
    pub kind: RecordProblemKind,
}

impl fmt::Display for RecordProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "log record at LSN {} (file {}, byte {}, type byte 0x{:02x}): {}",
            self.lsn, self.file, self.offset, self.type_byte, self.kind
        )
    }
}

impl fmt::Display for RecordProblemKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            RecordProblemKind::BadPageId => "the page identifier cannot be decoded",
            RecordProblemKind::BadSamePage => {
                "a same-page record where no page record precedes it (or on FREE_PAGE/INIT_PAGE)"
            }
            RecordProblemKind::Reserved => "a record of the reserved type",
            RecordProblemKind::Overrun => "the record runs past its mini-transaction",
            RecordProblemKind::UnknownType => {
                "a record type whose length is not known: the records after it are not read"
            }
        })
    }
}

/// Whether the records of a log were read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogPagesStatus {
    /// Read from the checkpoint to the end of the log.
    Complete,
    /// Read from the checkpoint up to [`LogPages::to`]: a record there
    /// could not be stepped over.
    Partial,
    /// Not read: the format's records are not parsed (MySQL 5.7.9+,
    /// MariaDB 10.2–10.7, encrypted block formats).
    NotParsed,
}

/// The pages the log changes after its checkpoint: one entry per distinct
/// page, bounded by a cap.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct LogPages {
    /// Whether the records were read.
    pub status: LogPagesStatus,
    /// The checkpoint LSN (where the reading started).
    pub from: Lsn,
    /// Where the reading stopped (the log's end when complete).
    pub to: Lsn,
    /// Mini-transactions read.
    pub mtrs: u64,
    /// Page records read (records that change a page).
    pub records: u64,
    /// The pages, sorted by space id and page number.
    pub pages: Vec<PageLog>,
    /// The cap was reached: pages first seen after it are not tracked
    /// (records for tracked pages still update them).
    pub capped: bool,
    /// Records for pages that were not tracked because of the cap.
    pub untracked_records: u64,
    /// The first problems, in log order (at most [`MAX_PROBLEMS`]).
    pub problems: Vec<RecordProblem>,
    /// Problems beyond those kept.
    pub more_problems: u32,
}

impl LogPages {
    fn new(status: LogPagesStatus, from: Lsn) -> Self {
        LogPages {
            status,
            from,
            to: from,
            mtrs: 0,
            records: 0,
            pages: Vec::new(),
            capped: false,
            untracked_records: 0,
            problems: Vec::new(),
            more_problems: 0,
        }
    }

    /// The tracked pages of one space, by page number.
    pub fn of_space(&self, space: SpaceId) -> &[PageLog] {
        let lo = self.pages.partition_point(|p| p.space < space);
        let hi = self.pages.partition_point(|p| p.space <= space);
        self.pages.get(lo..hi).unwrap_or(&[])
    }

    /// The space ids with tracked pages, and how many pages each.
    pub fn spaces(&self) -> Vec<(SpaceId, u32)> {
        let mut out: Vec<(SpaceId, u32)> = Vec::new();
        for p in &self.pages {
            match out.last_mut() {
                Some((s, n)) if *s == p.space => *n = n.saturating_add(1),
                _ => out.push((p.space, 1)),
            }
        }
        out
    }
}

/// What one record does to its page.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Touch {
    Change,
    Init,
    Free,
}

/// The map from page to its newest record, capped.
struct Tracker {
    map: std::collections::BTreeMap<(u32, u32), PageLog>,
    max: usize,
    out: LogPages,
}

impl Tracker {
    fn touch(&mut self, space: u32, page: u32, start: u64, end: u64, how: Touch) {
        self.out.records = self.out.records.saturating_add(1);
        let len = self.map.len();
        match self.map.entry((space, page)) {
            std::collections::btree_map::Entry::Occupied(mut e) => {
                let p = e.get_mut();
                p.start = Lsn(start);
                p.end = Lsn(end);
                p.records = p.records.saturating_add(1);
                p.freed = how == Touch::Free;
                p.init |= how == Touch::Init;
            }
            std::collections::btree_map::Entry::Vacant(e) => {
                if len >= self.max {
                    self.out.capped = true;
                    self.out.untracked_records = self.out.untracked_records.saturating_add(1);
                    return;
                }
                e.insert(PageLog {
                    space: SpaceId(space),
                    page: PageNo(page),
                    start: Lsn(start),
                    end: Lsn(end),
                    records: 1,
                    freed: how == Touch::Free,
                    init: how == Touch::Init,
                });
            }
        }
    }

    fn problem(&mut self, p: RecordProblem) {
        if self.out.problems.len() < MAX_PROBLEMS {
            self.out.problems.push(p);
        } else {
            self.out.more_problems = self.out.more_problems.saturating_add(1);
        }
    }

    fn finish(mut self) -> LogPages {
        self.out.pages = self.map.into_values().collect();
        self.out
    }
}

/// Reads the records after the checkpoint that [`read`] found complete
/// (up to [`RedoInfo::end`]) and lists the pages they change, with the
/// newest mini-transaction per page; at most `max_pages` distinct pages
/// are tracked. One pass; memory is one map entry per distinct page.
///
/// Parsed: MariaDB 10.8+ (`recv_sys_t::parse_tail`) and the legacy format
/// of MySQL ≤ 5.7.8 (`recv_parse_log_rec`); other formats give
/// [`LogPagesStatus::NotParsed`].
pub fn log_pages(
    files: &[RedoFile<'_>],
    layout: RedoLayout,
    info: &RedoInfo,
    max_pages: usize,
) -> LogPages {
    let from = info.checkpoint.lsn;
    let mut t = Tracker {
        map: std::collections::BTreeMap::new(),
        max: max_pages,
        out: LogPages::new(LogPagesStatus::Complete, from),
    };
    let mut files: Vec<RedoFile<'_>> = files.to_vec();
    files.sort_by_key(|f| f.id);
    match (layout, info.kind) {
        (RedoLayout::LogFiles, RedoFormat::MariaDb108) => {
            if let Some(first) = files.first() {
                let first_lsn = be_u64(first.data, 8).unwrap_or(0);
                let ring = Ring {
                    data: first.data,
                    first_lsn,
                    capacity: (first.data.len() as u64).saturating_sub(START_OFFSET_10_8),
                };
                ring.pages(from.0, info.end.0, info.encrypted, &mut t);
            }
        }
        (RedoLayout::LogFiles, RedoFormat::Legacy) => match Group::new(&files, &info.checkpoint) {
            Some(g) => legacy_pages(&g, from.0, info.end.0, &mut t),
            None => t.out.status = LogPagesStatus::NotParsed,
        },
        _ => t.out.status = LogPagesStatus::NotParsed,
    }
    t.finish()
}

impl Ring<'_> {
    /// Every mini-transaction in `[from, end)`, its records into `t`.
    fn pages(&self, from: u64, end: u64, encrypted: bool, t: &mut Tracker) {
        let mut lsn = from;
        t.out.to = Lsn(from);
        // Each mini-transaction is at least 6 bytes: the bound is fixed.
        let max_mtrs = end.saturating_sub(from);
        let mut n = 0u64;
        while lsn < end && n < max_mtrs {
            n = n.saturating_add(1);
            let Ok((next, _)) = self.mtr(lsn, encrypted) else {
                break;
            };
            if next > end {
                break;
            }
            self.records(lsn, next, t);
            t.out.mtrs = t.out.mtrs.saturating_add(1);
            lsn = next;
            t.out.to = Lsn(lsn);
        }
    }

    /// The records of the mini-transaction `[start, end)` (framing already
    /// checked by [`Ring::mtr`]), as `recv_sys_t::parse_tail` reads them.
    fn records(&self, start: u64, end: u64, t: &mut Tracker) {
        let mut pos = start;
        let mut page: Option<(u32, u32)> = None;
        let problem = |t: &mut Tracker, at: u64, b: u8, kind| {
            t.problem(RecordProblem {
                lsn: Lsn(at),
                file: 0,
                offset: self.offset(at).unwrap_or(0),
                type_byte: b,
                kind,
            });
        };
        while pos < end {
            let Some(b) = self.byte(pos) else { return };
            if b <= 1 {
                return;
            }
            let rec = pos;
            // mtr_t::parse_length: the low 4 bits, or 0 and a varint of
            // (length - 15) counting its own bytes.
            let mut body = rec.saturating_add(1);
            let mut rlen = u64::from(b & 0xF);
            if rlen == 0 {
                let Some((add, n)) = self.varint(body) else {
                    problem(t, rec, b, RecordProblemKind::Overrun);
                    return;
                };
                rlen = u64::from(add).saturating_add(15).saturating_sub(n);
                body = body.saturating_add(n);
            }
            let next = body.saturating_add(rlen);
            if next >= end {
                problem(t, rec, b, RecordProblemKind::Overrun);
                return;
            }
            pos = next;
            let kind = b & 0x70;
            if kind == RESERVED {
                problem(t, rec, b, RecordProblemKind::Reserved);
            }
            let (space, page_no, rest) = if b & SAME_PAGE != 0 && page.is_some() {
                if kind <= INIT_PAGE {
                    problem(t, rec, b, RecordProblemKind::BadSamePage);
                    page = None;
                    continue;
                }
                let Some((s, p)) = page else { continue };
                (s, p, rlen)
            } else {
                let Some((space, n1)) = self.varint(body).filter(|&(_, n)| n < rlen) else {
                    // A FILE_CHECKPOINT+1 with a 0 byte is skipped (parse_tail).
                    if b == FILE_CHECKPOINT.wrapping_add(1) && self.byte(body) == Some(0) {
                        continue;
                    }
                    problem(t, rec, b, RecordProblemKind::BadPageId);
                    page = None;
                    continue;
                };
                let Some((page_no, n2)) = self
                    .varint(body.saturating_add(n1))
                    .filter(|&(_, n)| n <= rlen.saturating_sub(n1))
                else {
                    problem(t, rec, b, RecordProblemKind::BadPageId);
                    page = None;
                    continue;
                };
                if b & SAME_PAGE != 0 {
                    // A file record (FILE_CREATE, FILE_MODIFY,
                    // FILE_CHECKPOINT, ...): no page changes.
                    page = None;
                    continue;
                }
                page = Some((space, page_no));
                (space, page_no, rlen.saturating_sub(n1).saturating_sub(n2))
            };
            let how = match kind {
                FREE_PAGE => Touch::Free,
                INIT_PAGE => Touch::Init,
                // OPTION records (page checksums) change nothing; RESERVED
                // is ignored by the server.
                OPTION | RESERVED => continue,
                EXTENDED if rest == 1 && self.byte(next.saturating_sub(1)) == Some(TRIM_PAGES) => {
                    continue
                }
                _ => Touch::Change,
            };
            t.touch(space, page_no, start, end, how);
        }
    }
}

/// Page records kept per legacy mini-transaction before it ends.
const MAX_PENDING: usize = 1 << 16;

/// A legacy (format 0) log group addressed by LSN, anchored at the
/// checkpoint's (LSN, group offset) pair as `log_group_calc_lsn_offset`
/// does.
struct Group<'a, 'f> {
    files: &'a [RedoFile<'f>],
    size: u64,
    capacity: u64,
    anchor_lsn: u64,
    rel_anchor: u64,
}

impl<'a, 'f> Group<'a, 'f> {
    fn new(files: &'a [RedoFile<'f>], checkpoint: &Checkpoint) -> Option<Self> {
        let first = files.first()?;
        let b = first
            .data
            .get(checkpoint.offset as usize..checkpoint.offset.checked_add(512)? as usize)?;
        let offset = u64::from(be_u32(b, 304)?) << 32 | u64::from(be_u32(b, 16)?);
        let size = first.data.len() as u64;
        let per_file = size.checked_sub(LOG_FILE_HDR_SIZE)?;
        let capacity = per_file.checked_mul(files.len() as u64)?;
        let rel_anchor = offset.checked_sub(
            LOG_FILE_HDR_SIZE.checked_mul(1u64.checked_add(offset.checked_div(size)?)?)?,
        )?;
        Some(Group {
            files,
            size,
            capacity,
            anchor_lsn: checkpoint.lsn.0,
            rel_anchor,
        })
    }

    /// (file id, byte offset) of an LSN at or after the anchor.
    fn place(&self, lsn: u64) -> Option<(u64, u64)> {
        let per_file = self.size.checked_sub(LOG_FILE_HDR_SIZE)?;
        let delta = lsn
            .checked_sub(self.anchor_lsn)?
            .checked_rem(self.capacity)?;
        let rel = self
            .rel_anchor
            .checked_add(delta)?
            .checked_rem(self.capacity)?;
        let file = rel.checked_div(per_file)?;
        let within = LOG_FILE_HDR_SIZE.checked_add(rel.checked_rem(per_file)?)?;
        Some((self.files.get(file as usize)?.id, within))
    }

    fn byte(&self, lsn: u64) -> Option<u8> {
        let (id, at) = self.place(lsn)?;
        let f = self.files.iter().find(|f| f.id == id)?;
        f.data.get(at as usize).copied()
    }
}

/// MySQL ≤ 5.7.8 `MLOG_*` types (`mtr0mtr.h` of 5.6).
mod mlog {
    pub(crate) const BYTE1: u8 = 1;
    pub(crate) const BYTES2: u8 = 2;
    pub(crate) const BYTES4: u8 = 4;
    pub(crate) const BYTES8: u8 = 8;
    pub(crate) const REC_INSERT: u8 = 9;
    pub(crate) const REC_CLUST_DELETE_MARK: u8 = 10;
    pub(crate) const REC_SEC_DELETE_MARK: u8 = 11;
    pub(crate) const REC_UPDATE_IN_PLACE: u8 = 13;
    pub(crate) const REC_DELETE: u8 = 14;
    pub(crate) const LIST_END_DELETE: u8 = 15;
    pub(crate) const LIST_START_DELETE: u8 = 16;
    pub(crate) const LIST_END_COPY_CREATED: u8 = 17;
    pub(crate) const PAGE_REORGANIZE: u8 = 18;
    pub(crate) const PAGE_CREATE: u8 = 19;
    pub(crate) const UNDO_INSERT: u8 = 20;
    pub(crate) const UNDO_ERASE_END: u8 = 21;
    pub(crate) const UNDO_INIT: u8 = 22;
    pub(crate) const UNDO_HDR_DISCARD: u8 = 23;
    pub(crate) const UNDO_HDR_REUSE: u8 = 24;
    pub(crate) const UNDO_HDR_CREATE: u8 = 25;
    pub(crate) const REC_MIN_MARK: u8 = 26;
    pub(crate) const IBUF_BITMAP_INIT: u8 = 27;
    pub(crate) const INIT_FILE_PAGE: u8 = 29;
    pub(crate) const WRITE_STRING: u8 = 30;
    pub(crate) const MULTI_REC_END: u8 = 31;
    pub(crate) const DUMMY_RECORD: u8 = 32;
    pub(crate) const FILE_CREATE: u8 = 33;
    pub(crate) const FILE_RENAME: u8 = 34;
    pub(crate) const FILE_DELETE: u8 = 35;
    pub(crate) const COMP_REC_MIN_MARK: u8 = 36;
    pub(crate) const COMP_PAGE_CREATE: u8 = 37;
    pub(crate) const COMP_REC_INSERT: u8 = 38;
    pub(crate) const COMP_REC_CLUST_DELETE_MARK: u8 = 39;
    pub(crate) const COMP_REC_SEC_DELETE_MARK: u8 = 40;
    pub(crate) const COMP_REC_UPDATE_IN_PLACE: u8 = 41;
    pub(crate) const COMP_REC_DELETE: u8 = 42;
    pub(crate) const COMP_LIST_END_DELETE: u8 = 43;
    pub(crate) const COMP_LIST_START_DELETE: u8 = 44;
    pub(crate) const COMP_LIST_END_COPY_CREATED: u8 = 45;
    pub(crate) const COMP_PAGE_REORGANIZE: u8 = 46;
    pub(crate) const FILE_CREATE2: u8 = 47;
    pub(crate) const ZIP_WRITE_NODE_PTR: u8 = 48;
    pub(crate) const ZIP_WRITE_BLOB_PTR: u8 = 49;
    pub(crate) const ZIP_WRITE_HEADER: u8 = 50;
    pub(crate) const ZIP_PAGE_COMPRESS: u8 = 51;
    pub(crate) const ZIP_PAGE_COMPRESS_NO_DATA: u8 = 52;
    pub(crate) const ZIP_PAGE_REORGANIZE: u8 = 53;
    /// `MLOG_SINGLE_REC_FLAG`.
    pub(crate) const SINGLE_REC_FLAG: u8 = 0x80;
}

/// A cursor over the record bytes of block-format log: LSNs count the
/// 12-byte block headers and 4-byte trailers, which it steps over
/// (`recv_calc_lsn_on_data_add`).
struct Cursor<'g, 'a, 'f> {
    g: &'g Group<'a, 'f>,
    lsn: u64,
    end: u64,
}

/// Why a record could not be stepped over.
#[derive(Clone, Copy)]
enum Stop {
    /// The log ends inside the record: an incomplete mini-transaction.
    End,
    /// Bytes that no server writes.
    Bad,
}

impl Cursor<'_, '_, '_> {
    fn skip_header(&mut self) {
        let within = self.lsn.checked_rem(LOG_BLOCK_SIZE).unwrap_or(0);
        if within < 12 {
            self.lsn = self.lsn.saturating_sub(within).saturating_add(12);
        } else if within >= LOG_BLOCK_SIZE.saturating_sub(4) {
            self.lsn = self
                .lsn
                .saturating_sub(within)
                .saturating_add(LOG_BLOCK_SIZE)
                .saturating_add(12);
        }
    }
    fn u8(&mut self) -> Result<u8, Stop> {
        self.skip_header();
        if self.lsn >= self.end {
            return Err(Stop::End);
        }
        let b = self.g.byte(self.lsn).ok_or(Stop::End)?;
        self.lsn = self.lsn.saturating_add(1);
        Ok(b)
    }
    /// Steps over `n` record bytes (`recv_calc_lsn_on_data_add`): one
    /// step per block.
    fn skip(&mut self, n: u64) -> Result<(), Stop> {
        if n > self.end.saturating_sub(self.lsn) {
            return Err(Stop::End);
        }
        let mut left = n;
        while left > 0 {
            self.skip_header();
            let within = self.lsn.checked_rem(LOG_BLOCK_SIZE).unwrap_or(0);
            let room = LOG_BLOCK_SIZE
                .saturating_sub(4)
                .saturating_sub(within)
                .max(1);
            let step = room.min(left);
            self.lsn = self.lsn.saturating_add(step);
            left = left.saturating_sub(step);
        }
        if self.lsn > self.end {
            return Err(Stop::End);
        }
        Ok(())
    }
    fn u16(&mut self) -> Result<u16, Stop> {
        Ok(u16::from(self.u8()?) << 8 | u16::from(self.u8()?))
    }
    fn u32(&mut self) -> Result<u32, Stop> {
        Ok(u32::from(self.u16()?) << 16 | u32::from(self.u16()?))
    }
    /// `mach_parse_compressed`.
    fn compressed(&mut self) -> Result<u32, Stop> {
        let b = self.u8()?;
        let (n, first) = if b < 0x80 {
            (0, u32::from(b))
        } else if b < 0xC0 {
            (1, u32::from(b & 0x3F))
        } else if b < 0xE0 {
            (2, u32::from(b & 0x1F))
        } else if b < 0xF0 {
            (3, u32::from(b & 0x0F))
        } else if b == 0xF0 {
            (4, 0)
        } else {
            return Err(Stop::Bad);
        };
        let mut v = first;
        for _ in 0..n {
            v = v.wrapping_shl(8) | u32::from(self.u8()?);
        }
        Ok(v)
    }
    /// `mach_ull_parse_compressed`: compressed high word, 4 bytes low.
    fn ull_compressed(&mut self) -> Result<(), Stop> {
        self.compressed()?;
        self.u32().map(|_| ())
    }
    /// `mlog_parse_index` of a COMPACT record type.
    fn index(&mut self) -> Result<(), Stop> {
        let n = self.u16()?;
        let _n_uniq = self.u16()?;
        self.skip(u64::from(n).saturating_mul(2))
    }
    /// `row_upd_parse_sys_vals`: position, roll pointer, transaction id.
    fn sys_vals(&mut self) -> Result<(), Stop> {
        self.compressed()?;
        self.skip(7)?;
        self.ull_compressed()
    }
    /// Steps over the body of a record of `ty` (`recv_parse_or_apply_log_rec_body`).
    fn body(&mut self, ty: u8) -> Result<(), Stop> {
        use mlog::*;
        match ty {
            BYTE1 | BYTES2 | BYTES4 => {
                self.skip(2)?;
                self.compressed().map(|_| ())
            }
            BYTES8 => {
                self.skip(2)?;
                self.ull_compressed()
            }
            REC_INSERT | COMP_REC_INSERT => {
                if ty == COMP_REC_INSERT {
                    self.index()?;
                }
                // page_cur_parse_insert_rec
                self.skip(2)?;
                let end_seg_len = self.compressed()?;
                if end_seg_len & 1 != 0 {
                    self.skip(1)?;
                    self.compressed()?;
                    self.compressed()?;
                }
                self.skip(u64::from(end_seg_len >> 1))
            }
            REC_CLUST_DELETE_MARK | COMP_REC_CLUST_DELETE_MARK => {
                if ty == COMP_REC_CLUST_DELETE_MARK {
                    self.index()?;
                }
                self.skip(2)?;
                self.sys_vals()?;
                self.skip(2)
            }
            REC_SEC_DELETE_MARK | COMP_REC_SEC_DELETE_MARK => {
                if ty == COMP_REC_SEC_DELETE_MARK {
                    self.index()?;
                }
                self.skip(3)
            }
            REC_UPDATE_IN_PLACE | COMP_REC_UPDATE_IN_PLACE => {
                if ty == COMP_REC_UPDATE_IN_PLACE {
                    self.index()?;
                }
                self.skip(1)?;
                self.sys_vals()?;
                self.skip(2)?;
                // row_upd_index_parse
                self.skip(1)?;
                let n = self.compressed()?;
                for _ in 0..n.min(0x1_0000) {
                    self.compressed()?;
                    let len = self.compressed()?;
                    if len != u32::MAX {
                        self.skip(u64::from(len))?;
                    }
                }
                if n > 0x1_0000 {
                    return Err(Stop::Bad);
                }
                Ok(())
            }
            REC_DELETE
            | COMP_REC_DELETE
            | LIST_END_DELETE
            | LIST_START_DELETE
            | COMP_LIST_END_DELETE
            | COMP_LIST_START_DELETE => {
                if ty >= COMP_REC_MIN_MARK {
                    self.index()?;
                }
                self.skip(2)
            }
            LIST_END_COPY_CREATED | COMP_LIST_END_COPY_CREATED => {
                if ty == COMP_LIST_END_COPY_CREATED {
                    self.index()?;
                }
                let len = self.u32()?;
                self.skip(u64::from(len))
            }
            PAGE_REORGANIZE | COMP_PAGE_REORGANIZE => {
                if ty == COMP_PAGE_REORGANIZE {
                    self.index()?;
                }
                Ok(())
            }
            ZIP_PAGE_REORGANIZE | ZIP_PAGE_COMPRESS_NO_DATA => {
                self.index()?;
                self.skip(1)
            }
            PAGE_CREATE | COMP_PAGE_CREATE | UNDO_ERASE_END | UNDO_HDR_DISCARD
            | IBUF_BITMAP_INIT | INIT_FILE_PAGE => Ok(()),
            UNDO_INSERT => {
                let len = self.u16()?;
                self.skip(u64::from(len))
            }
            UNDO_INIT => self.compressed().map(|_| ()),
            UNDO_HDR_REUSE | UNDO_HDR_CREATE => self.ull_compressed(),
            REC_MIN_MARK | COMP_REC_MIN_MARK => self.skip(2),
            WRITE_STRING => {
                self.skip(2)?;
                let len = self.u16()?;
                self.skip(u64::from(len))
            }
            FILE_CREATE | FILE_RENAME | FILE_DELETE | FILE_CREATE2 => {
                // fil_op_log_parse_or_replay
                if ty == FILE_CREATE2 {
                    self.skip(4)?;
                }
                let len = self.u16()?;
                self.skip(u64::from(len))?;
                if ty == FILE_RENAME {
                    let len = self.u16()?;
                    self.skip(u64::from(len))?;
                }
                Ok(())
            }
            ZIP_WRITE_NODE_PTR => self.skip(8),
            ZIP_WRITE_BLOB_PTR => self.skip(24),
            ZIP_WRITE_HEADER => {
                self.skip(1)?;
                let len = self.u8()?;
                self.skip(u64::from(len))
            }
            ZIP_PAGE_COMPRESS => {
                let size = self.u16()?;
                let trailer = self.u16()?;
                self.skip(
                    8u64.saturating_add(u64::from(size))
                        .saturating_add(u64::from(trailer)),
                )
            }
            _ => Err(Stop::Bad),
        }
    }
}

/// What a legacy record does to its page: None for file operations.
fn legacy_touch(ty: u8) -> Option<Touch> {
    use mlog::*;
    match ty {
        FILE_CREATE | FILE_RENAME | FILE_DELETE | FILE_CREATE2 => None,
        PAGE_CREATE | COMP_PAGE_CREATE | INIT_FILE_PAGE | IBUF_BITMAP_INIT => Some(Touch::Init),
        _ => Some(Touch::Change),
    }
}

/// MySQL ≤ 5.7.8 (format 0): `recv_parse_log_recs` from the checkpoint to
/// the log's end: a mini-transaction is one record with
/// `MLOG_SINGLE_REC_FLAG`, or records up to `MLOG_MULTI_REC_END`; each
/// record is a type byte, the space id and page number
/// (`mach_parse_compressed`) and a body whose length depends on the type.
fn legacy_pages(g: &Group<'_, '_>, from: u64, end: u64, t: &mut Tracker) {
    let mut c = Cursor { g, lsn: from, end };
    t.out.to = Lsn(from);
    // Each mini-transaction takes at least one byte: the bound is fixed.
    let max_mtrs = end.saturating_sub(from);
    // (space, page, touch) of the current mini-transaction, bounded.
    let mut pending: Vec<(u32, u32, Touch)> = Vec::new();
    let mut n = 0u64;
    // Every record takes at least one byte: at most this many in all.
    let mut records_left = max_mtrs;
    'mtrs: while n < max_mtrs {
        n = n.saturating_add(1);
        c.skip_header();
        if c.lsn >= end {
            break;
        }
        let start = c.lsn;
        pending.clear();
        loop {
            if records_left == 0 {
                break 'mtrs;
            }
            records_left = records_left.saturating_sub(1);
            let at = {
                c.skip_header();
                c.lsn
            };
            let raw = match c.u8() {
                Ok(b) => b,
                Err(_) => break 'mtrs,
            };
            let ty = raw & !mlog::SINGLE_REC_FLAG;
            let problem = |t: &mut Tracker| {
                let (file, offset) = g.place(at).unwrap_or((0, 0));
                t.problem(RecordProblem {
                    lsn: Lsn(at),
                    file,
                    offset,
                    type_byte: raw,
                    kind: RecordProblemKind::UnknownType,
                });
                t.out.status = LogPagesStatus::Partial;
            };
            if ty == mlog::MULTI_REC_END {
                break;
            }
            if ty == mlog::DUMMY_RECORD {
                if raw & mlog::SINGLE_REC_FLAG != 0 {
                    break;
                }
                continue;
            }
            let head = (|| -> Result<(u32, u32), Stop> {
                let space = c.compressed()?;
                let page = c.compressed()?;
                c.body(ty)?;
                Ok((space, page))
            })();
            match head {
                Ok((space, page)) => {
                    if let Some(how) = legacy_touch(ty) {
                        if pending.len() < MAX_PENDING {
                            pending.push((space, page, how));
                        }
                    }
                }
                Err(Stop::End) => break 'mtrs,
                Err(Stop::Bad) => {
                    problem(t);
                    break 'mtrs;
                }
            }
            if raw & mlog::SINGLE_REC_FLAG != 0 {
                break;
            }
        }
        // The end LSN steps over a block boundary, as log_write_low
        // advances the LSN past the next header when a block fills.
        c.skip_header();
        let mtr_end = c.lsn;
        for &(space, page, how) in &pending {
            t.touch(space, page, start, mtr_end, how);
        }
        t.out.mtrs = t.out.mtrs.saturating_add(1);
        t.out.to = Lsn(mtr_end);
    }
}

#[cfg(test)]
#[allow(
    clippy::arithmetic_side_effects,
    clippy::indexing_slicing,
    clippy::unwrap_used
)]
mod tests {
    use super::*;

    #[test]
    fn block_numbers_follow_the_lsn() {
        assert_eq!(lsn_to_no(0), 1);
        assert_eq!(lsn_to_no(511), 1);
        assert_eq!(lsn_to_no(512), 2);
        assert_eq!(lsn_to_no(512 * 0x4000_0000), 1);
    }

    #[test]
    fn varints_as_mtr0log_decodes_them() {
        let mut data = vec![0u8; START_OFFSET_10_8 as usize + 64];
        let r = |d: &[u8]| {
            Ring {
                data: d,
                first_lsn: START_OFFSET_10_8,
                capacity: 64,
            }
            .varint(START_OFFSET_10_8)
        };
        let at = START_OFFSET_10_8 as usize;
        data[at] = 0x7f;
        assert_eq!(r(&data), Some((0x7f, 1)));
        data[at] = 0x80;
        data[at + 1] = 0x00;
        assert_eq!(r(&data), Some((0x80, 2)));
        data[at] = 0xc0;
        data[at + 1] = 0;
        data[at + 2] = 1;
        assert_eq!(r(&data), Some((0x80 + 0x4000 + 1, 3)));
        data[at] = 0xf8;
        assert_eq!(r(&data), None);
    }

    /// A block as the servers write it: number, data length, first record
    /// group, checkpoint number / epoch, CRC-32C at 508.
    fn block(lsn: u64, data_len: u16) -> [u8; 512] {
        let mut b = [0u8; 512];
        b[0..4].copy_from_slice(&lsn_to_no(lsn).to_be_bytes());
        b[4..6].copy_from_slice(&data_len.to_be_bytes());
        b[6..8].copy_from_slice(&12u16.to_be_bytes());
        for (i, x) in b[12..usize::from(data_len).min(508)].iter_mut().enumerate() {
            *x = (i as u8).wrapping_mul(7) | 1;
        }
        seal(&mut b);
        b
    }

    fn seal(b: &mut [u8]) {
        let c = crc32c(&b[..508]);
        b[508..512].copy_from_slice(&c.to_be_bytes());
    }

    /// MySQL 8.0.30+ (log0files_io.cc, log0constants.h): every file has a
    /// header with its start LSN and two checkpoint blocks; the newest LSN
    /// a file holds wins; the log ends at the first partial block.
    #[test]
    fn mysql_8030_files_from_the_source_layout() {
        let size = 2048 + 4 * 512;
        let mk = |start: u64, ckpt: u64| {
            let mut f = vec![0u8; size];
            f[0..4].copy_from_slice(&FORMAT_8_0_30.to_be_bytes());
            f[8..16].copy_from_slice(&start.to_be_bytes());
            f[16..28].copy_from_slice(b"MySQL 8.0.36");
            seal(&mut f[..512]);
            f[512 + 8..512 + 16].copy_from_slice(&ckpt.to_be_bytes());
            seal(&mut f[512..1024]);
            f
        };
        // File 7 covers [8192, 10240), file 8 [10240, 12288).
        let mut f7 = mk(8192, 8192 + 700);
        let mut f8 = mk(10240, 0);
        for (i, lsn) in (8192u64..10240).step_by(512).enumerate() {
            let at = 2048 + i * 512;
            f7[at..at + 512].copy_from_slice(&block(lsn, 512));
        }
        f8[2048..2560].copy_from_slice(&block(10240, 512));
        f8[2560..3072].copy_from_slice(&block(10752, 100));
        let r = read(
            &[RedoFile { id: 8, data: &f8 }, RedoFile { id: 7, data: &f7 }],
            RedoLayout::InnodbRedo,
        )
        .unwrap();
        assert_eq!(r.kind, RedoFormat::MySql8030);
        assert_eq!(r.creator, "MySQL 8.0.36");
        assert_eq!(r.checkpoint.lsn, Lsn(8892));
        assert_eq!(r.checkpoint.file, 7);
        assert_eq!(r.end, Lsn(10752 + 100));
        assert_eq!(r.end_reason, LogEnd::Normal);
        // A block with a wrong checksum ends the log before it.
        f8[2100] ^= 1;
        let r = read(
            &[RedoFile { id: 7, data: &f7 }, RedoFile { id: 8, data: &f8 }],
            RedoLayout::InnodbRedo,
        )
        .unwrap();
        assert_eq!(r.end, Lsn(10240));
        assert_eq!(r.end_reason, LogEnd::Checksum);
    }

    /// Formats 1–5 (MySQL 5.7.9–8.0.29, log0log.h): checkpoint number, LSN
    /// and group offset; two files of a group, the log running from the
    /// first into the second after its 2048-byte header.
    #[test]
    fn block_group_from_the_source_layout() {
        // Two files of 2048 + 4 blocks: 4096 bytes of log. The servers
        // require (offset & !511) + 512 below that.
        let size = 2048 + 4 * 512;
        let mut f0 = vec![0u8; size];
        let mut f1 = vec![0u8; size];
        f0[0..4].copy_from_slice(&1u32.to_be_bytes());
        seal(&mut f0[..512]);
        // Checkpoint 5 at LSN 20480 + 40, in the second block of file 0
        // (group offset 2048 + 512 + 40); checkpoint 4 older.
        let lsn = 20480u64 + 40;
        for (at, no, l) in [(512usize, 5u64, lsn), (1536, 4, 20000)] {
            f0[at..at + 8].copy_from_slice(&no.to_be_bytes());
            f0[at + 8..at + 16].copy_from_slice(&l.to_be_bytes());
            f0[at + 16..at + 24].copy_from_slice(&(2048u64 + 512 + 40).to_be_bytes());
            seal(&mut f0[at..at + 512]);
        }
        for (i, l) in [20480u64, 20992, 21504].into_iter().enumerate() {
            let at = 2560 + i * 512;
            f0[at..at + 512].copy_from_slice(&block(l, 512));
        }
        // The log continues after file 1's header.
        f1[2048..2560].copy_from_slice(&block(22016, 512));
        f1[2560..3072].copy_from_slice(&block(22528, 300));
        let r = read(
            &[RedoFile { id: 0, data: &f0 }, RedoFile { id: 1, data: &f1 }],
            RedoLayout::LogFiles,
        )
        .unwrap();
        assert_eq!(r.kind, RedoFormat::Blocks);
        assert_eq!(r.checkpoint.no, Some(5));
        assert_eq!(r.checkpoint.lsn, Lsn(lsn));
        assert_eq!(r.previous.map(|c| c.lsn), Some(Lsn(20000)));
        assert_eq!(r.end, Lsn(22528 + 300));
        assert_eq!(r.end_reason, LogEnd::Normal);
        assert!(r.has_changes_after_checkpoint());
    }

    /// Writes one MariaDB 10.8+ mini-transaction at `lsn` of a ring that
    /// starts at LSN 12288 (first pass: terminator 1) and returns its end.
    fn put_mtr(data: &mut [u8], lsn: u64, recs: &[u8]) -> u64 {
        let at = lsn as usize;
        data[at..at + recs.len()].copy_from_slice(recs);
        data[at + recs.len()] = 1;
        let c = crc32c(recs);
        data[at + recs.len() + 1..at + recs.len() + 5].copy_from_slice(&c.to_be_bytes());
        lsn + recs.len() as u64 + 5
    }

    fn tracker(max: usize) -> Tracker {
        Tracker {
            map: std::collections::BTreeMap::new(),
            max,
            out: LogPages::new(LogPagesStatus::Complete, Lsn(START_OFFSET_10_8)),
        }
    }

    /// Records as `mtr0log.h` writes them and `recv_sys_t::parse_tail`
    /// reads them: a type byte (type in bits 4..6, length in bits 0..3,
    /// bit 7 "same page" after a page record and a file record otherwise),
    /// varint space id and page number; FREE_PAGE, INIT_PAGE, OPTION and
    /// FILE_CHECKPOINT; a damaged page id is a problem with its offset.
    #[test]
    fn mariadb_records_name_their_pages() {
        let start = START_OFFSET_10_8;
        let mut data = vec![0u8; start as usize + 4096];
        let m1 = start;
        let recs1 = [
            0x34, 5, 3, 0x26, 0xAA, // WRITE space 5 page 3 at 0x26
            0xC3, 0x01, 0x02, 0x00, // same page: MEMSET
            0x02, 5, 9, // FREE_PAGE space 5 page 9
            0x13, 6, 0x80, 0xAC, // INIT_PAGE space 6 page 300
            0xF5, 0x12, 0, 0, 0, 0, // same page: OPTION (checksum)
        ];
        let m2 = put_mtr(&mut data, m1, &recs1);
        let mut recs2 = vec![0xFA, 0, 0];
        recs2.extend_from_slice(&m1.to_be_bytes()); // FILE_CHECKPOINT
        let m3 = put_mtr(&mut data, m2, &recs2);
        let m4 = put_mtr(&mut data, m3, &[0x34, 5, 3, 0x30, 0xBB]);
        let m5 = put_mtr(&mut data, m4, &[0x32, 0xF8, 0x00]);
        let end = put_mtr(&mut data, m5, &[0x34, 7, 1, 0x30, 0xBB]);
        let ring = Ring {
            data: &data,
            first_lsn: start,
            capacity: 4096,
        };
        let mut t = tracker(16);
        ring.pages(m1, end, false, &mut t);
        let lp = t.finish();
        assert_eq!(lp.mtrs, 5);
        assert_eq!(lp.to, Lsn(end));
        let find = |s: u32, p: u32| {
            *lp.pages
                .iter()
                .find(|x| x.space == SpaceId(s) && x.page == PageNo(p))
                .unwrap()
        };
        let p = find(5, 3);
        assert_eq!((p.start, p.end, p.records), (Lsn(m3), Lsn(m4), 3));
        assert!(!p.freed && !p.init);
        assert!(find(5, 9).freed);
        let p = find(6, 300);
        assert!(p.init && p.records == 1);
        assert_eq!(find(7, 1).start, Lsn(m5));
        assert_eq!(lp.pages.len(), 4);
        assert_eq!(lp.of_space(SpaceId(5)).len(), 2);
        assert_eq!(
            lp.spaces(),
            vec![(SpaceId(5), 2), (SpaceId(6), 1), (SpaceId(7), 1)]
        );
        assert_eq!(
            lp.problems,
            vec![RecordProblem {
                lsn: Lsn(m4),
                file: 0,
                offset: m4,
                type_byte: 0x32,
                kind: RecordProblemKind::BadPageId,
            }]
        );
        // The cap: one page tracked, the others' records counted.
        let mut t = tracker(1);
        ring.pages(m1, end, false, &mut t);
        let lp = t.finish();
        assert!(lp.capped);
        assert_eq!(lp.pages.len(), 1);
        assert_eq!(lp.untracked_records, 3);
        // A damaged checksum stops the reading before that mini-transaction.
        data[m3 as usize + 3] ^= 1;
        let ring = Ring {
            data: &data,
            first_lsn: start,
            capacity: 4096,
        };
        let mut t = tracker(16);
        ring.pages(m1, end, false, &mut t);
        assert_eq!(t.finish().to, Lsn(m3));
    }

    /// Whatever the bytes, the reading ends and never panics.
    #[test]
    fn mariadb_records_from_noise_end() {
        let start = START_OFFSET_10_8;
        let mut data = vec![0u8; start as usize + 512];
        let mut x = 0x1234_5678u32;
        for round in 0..200 {
            for b in data[start as usize..].iter_mut() {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                *b = x as u8;
            }
            // A valid frame around noise records.
            let len = 1 + round % 40;
            let recs: Vec<u8> = data[start as usize..start as usize + len]
                .iter()
                .map(|&b| b.max(2))
                .collect();
            let end = put_mtr(&mut data, start, &recs);
            let ring = Ring {
                data: &data,
                first_lsn: start,
                capacity: 512,
            };
            let mut t = tracker(4);
            ring.pages(start, end, round % 2 == 0, &mut t);
            let lp = t.finish();
            assert!(lp.to.0 <= end);
        }
    }

    /// Writes `stream` as legacy log data from `lsn` on (into a group of
    /// two 4096-byte files anchored so that LSN 8192 + x is byte 2048 + x
    /// of file 0), stepping over block headers and trailers; returns the
    /// end LSN.
    fn put_legacy(files: &mut [Vec<u8>; 2], mut lsn: u64, stream: &[u8]) -> u64 {
        for &b in stream {
            if lsn % 512 < 12 {
                lsn += 12 - lsn % 512;
            } else if lsn % 512 >= 508 {
                lsn += 512 - lsn % 512 + 12;
            }
            let rel = (lsn - 8192) % 4096;
            files[(rel / 2048) as usize][(2048 + rel % 2048) as usize] = b;
            lsn += 1;
        }
        // A full block moves the LSN past the next header (log_write_low).
        if lsn % 512 >= 508 {
            lsn += 512 - lsn % 512 + 12;
        }
        lsn
    }

    /// MySQL 5.6 records (`mtr0mtr.h`, `recv_parse_log_rec`): a single
    /// record with MLOG_SINGLE_REC_FLAG, then a mini-transaction of several
    /// records ended by MLOG_MULTI_REC_END that crosses a block boundary;
    /// compressed space ids and page numbers; an unknown type stops the
    /// reading with the record's place.
    #[test]
    fn legacy_records_name_their_pages() {
        let mut f = [vec![0u8; 4096], vec![0u8; 4096]];
        // Checkpoint block: group offset 2048 + 12 (low word @16).
        f[0][512 + 16..512 + 20].copy_from_slice(&(2048u32 + 12).to_be_bytes());
        let ckpt = Checkpoint {
            lsn: Lsn(8192 + 12),
            no: Some(1),
            end_lsn: None,
            file: 0,
            offset: 512,
        };
        let from = 8192 + 12;
        // MLOG_2BYTES | SINGLE, space 5, page 3, offset 0x0026, value 7.
        let m1 = [0x82, 5, 3, 0x00, 0x26, 7];
        let m2_start = put_legacy(&mut f, from, &m1);
        // Padding records (MLOG_UNDO_INSERT of 496 bytes on space 0 page
        // 300) push the next mini-transaction across a block boundary.
        let mut m2 = vec![20, 0, 0x81, 0x2C, 0x01, 0xF0];
        m2.extend(std::iter::repeat_n(0xAB, 496));
        m2.extend_from_slice(&[37, 7, 4]); // MLOG_COMP_PAGE_CREATE space 7 page 4
        m2.push(31); // MLOG_MULTI_REC_END
        let m3_start = put_legacy(&mut f, m2_start, &m2);
        let end = put_legacy(&mut f, m3_start, &[0x80 | 60, 1, 1]);
        let files: Vec<RedoFile<'_>> = f
            .iter()
            .enumerate()
            .map(|(i, d)| RedoFile {
                id: i as u64,
                data: d,
            })
            .collect();
        let g = Group::new(&files, &ckpt).unwrap();
        let mut t = tracker(16);
        legacy_pages(&g, from, end, &mut t);
        let lp = t.finish();
        assert_eq!(lp.mtrs, 2);
        assert_eq!(lp.status, LogPagesStatus::Partial);
        assert_eq!(lp.to, Lsn(m3_start));
        assert!(m3_start > 8192 + 512, "the second one crosses a block");
        let find = |s: u32, p: u32| {
            *lp.pages
                .iter()
                .find(|x| x.space == SpaceId(s) && x.page == PageNo(p))
                .unwrap()
        };
        let p = find(5, 3);
        assert_eq!((p.start, p.end), (Lsn(from), Lsn(m2_start)));
        let p = find(0, 300);
        assert_eq!((p.start, p.end), (Lsn(m2_start), Lsn(m3_start)));
        assert!(find(7, 4).init);
        assert_eq!(lp.pages.len(), 3);
        let bad = lp.problems[0];
        assert_eq!(bad.lsn, Lsn(m3_start));
        assert_eq!(bad.kind, RecordProblemKind::UnknownType);
        assert_eq!(bad.offset, 2048 + (m3_start - 8192));
        // Noise ends the reading without a panic.
        let mut x = 0x9E37_79B9u32;
        for _ in 0..100 {
            for file in f.iter_mut() {
                for b in file[2048..].iter_mut() {
                    x ^= x << 13;
                    x ^= x >> 17;
                    x ^= x << 5;
                    *b = x as u8;
                }
            }
            let files: Vec<RedoFile<'_>> = f
                .iter()
                .enumerate()
                .map(|(i, d)| RedoFile {
                    id: i as u64,
                    data: d,
                })
                .collect();
            let g = Group::new(&files, &ckpt).unwrap();
            let mut t = tracker(8);
            legacy_pages(&g, from, from + 3000, &mut t);
            assert!(t.finish().to.0 <= from + 3000 + 16);
        }
    }

    #[test]
    fn fold_block_checksum_starts_at_one() {
        let b = [0u8; 512];
        assert_eq!(block_checksum_fold(&b), 1);
    }
}
