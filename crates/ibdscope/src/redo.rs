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

use crate::bytes::{be_u16, be_u32, be_u64};
use crate::checksum::fold_binary;
use crate::crc32c::{crc32c, crc32c_extend};
use crate::Lsn;
use std::fmt;

/// `OS_FILE_LOG_BLOCK_SIZE`.
pub const LOG_BLOCK_SIZE: u64 = 512;
/// `LOG_FILE_HDR_SIZE`: the header of every file in the block formats.
pub const LOG_FILE_HDR_SIZE: u64 = 2048;
/// MariaDB 10.8+ `log_t::START_OFFSET`.
pub const START_OFFSET_10_8: u64 = 12288;
/// MariaDB `recv_sys_t::MTR_SIZE_MAX`.
pub const MTR_SIZE_MAX: u64 = 1 << 20;
/// `LOG_NO_CHECKSUM_MAGIC`.
pub const LOG_NO_CHECKSUM_MAGIC: u32 = 0xDEAD_BEEF;
/// MariaDB `log_t::FORMAT_ENCRYPTED`.
pub const FORMAT_ENCRYPTED: u32 = 1 << 31;
/// MariaDB `log_t::FORMAT_10_5`.
pub const FORMAT_10_5: u32 = 0x5048_5953;
/// MariaDB `log_t::FORMAT_10_8`.
pub const FORMAT_10_8: u32 = 0x5068_7973;
/// MySQL `Log_format::VERSION_8_0_30`.
pub const FORMAT_8_0_30: u32 = 6;

/// How the log's files are named, which decides how they are read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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

/// What the log says.
#[derive(Clone, Debug, PartialEq, Eq)]
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

/// Why a log cannot be read at all.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RedoError {
    /// No files.
    NoFiles,
    /// The first file is shorter than its header.
    TooShort {
        /// Bytes.
        len: u64,
    },
    /// The format word is not one the servers write.
    UnknownFormat {
        /// The word.
        format: u32,
    },
    /// No checkpoint block verifies.
    NoCheckpoint,
}

impl fmt::Display for RedoError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            RedoError::NoFiles => f.write_str("no redo log files"),
            RedoError::TooShort { len } => {
                write!(f, "redo log file too short ({len} bytes) for its header")
            }
            RedoError::UnknownFormat { format } => {
                write!(f, "unknown redo log format 0x{format:08x}")
            }
            RedoError::NoCheckpoint => f.write_str("no checkpoint block of the redo log verifies"),
        }
    }
}

impl std::error::Error for RedoError {}

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
pub fn read(files: &[RedoFile<'_>], layout: RedoLayout) -> Result<RedoInfo, RedoError> {
    let mut files: Vec<RedoFile<'_>> = files.to_vec();
    files.sort_by_key(|f| f.id);
    let first = files.first().ok_or(RedoError::NoFiles)?;
    if (first.data.len() as u64) < LOG_FILE_HDR_SIZE {
        return Err(RedoError::TooShort {
            len: first.data.len() as u64,
        });
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
        _ => Err(RedoError::UnknownFormat { format }),
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
) -> Result<RedoInfo, RedoError> {
    let first = files.first().ok_or(RedoError::NoFiles)?;
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
    let (checkpoint, offset) = found.pop().ok_or(RedoError::NoCheckpoint)?;
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
fn read_8030(files: &[RedoFile<'_>], format: u32, creator: String) -> Result<RedoInfo, RedoError> {
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
    let checkpoint = found.pop().ok_or(RedoError::NoCheckpoint)?;
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
) -> Result<RedoInfo, RedoError> {
    let mut notes = Vec::new();
    if !block_ok(data.get(..512).unwrap_or(&[])) {
        notes.push(RedoNote::HeaderChecksum);
    }
    let first_lsn = be_u64(data, 8).unwrap_or(0);
    let size = data.len() as u64;
    if size < START_OFFSET_10_8 {
        return Err(RedoError::TooShort { len: size });
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
    let checkpoint = found.pop().ok_or(RedoError::NoCheckpoint)?;
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

    #[test]
    fn fold_block_checksum_starts_at_one() {
        let b = [0u8; 512];
        assert_eq!(block_checksum_fold(&b), 1);
    }
}
