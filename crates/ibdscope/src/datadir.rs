//! What a whole datadir copy says beyond its files one by one: the
//! reference points it carries (the redo log's checkpoint and end, the
//! system tablespace's flush LSN), which files hold pages newer than the
//! checkpoint (the copy needs crash recovery) and whether the copied log
//! reaches them (recovery can succeed), duplicate space ids, and the LSN
//! spread between files.
//!
//! | fact | where | source |
//! |---|---|---|
//! | checkpoint LSN, log end | the redo log header and body ([`crate::redo`]) | `recv_find_max_checkpoint` (MySQL, MariaDB `log0recv.cc`) |
//! | flush LSN | FIL_PAGE_FILE_FLUSH_LSN (bytes 26..34) of page 0 of the system tablespace | `fil_write_flushed_lsn` (both servers), written at shutdown |
//! | needs recovery | a page newer than the checkpoint, or log records after it | pages are written back only up to the checkpoint; recovery applies the log from there (`recv_recovery_from_checkpoint_start`) |
//! | recovery reaches | every page's LSN at most the log's end | a page newer than the log is "in the future" (`buf_page_check_lsn` / MariaDB `buf_page_t::read_complete`) and recovery cannot bring the rest of the datadir to its moment |
//!
//! MySQL compares the flush LSN with the checkpoint at start-up: they are
//! equal after a clean (slow or normal) shutdown, and a checkpoint below
//! the flush LSN means the log is older than the data files (MySQL
//! `log0recv.cc`, `ER_IB_MSG_RECOVERY_CHECKPOINT_FROM_BEFORE_CLEAN_SHUTDOWN`).
//! MariaDB 10.8+ no longer writes the field (it stays 0 in the datadirs
//! `fixtures/generate` makes), so only the log tells there.

use crate::audit::{Audit, AuditKind};
use crate::redo::RedoInfo;
use crate::{Lsn, SpaceId};

/// One audited file of the datadir.
#[derive(Clone, Copy, Debug)]
pub struct DatadirFile<'a> {
    /// Its audit.
    pub audit: &'a Audit,
    /// Part of the system tablespace (ibdata*): shares space id 0 with the
    /// other system files.
    pub system: bool,
}

/// How the flush LSN stands to the checkpoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlushLsn {
    /// The field holds 0: not written by this server.
    NotWritten,
    /// Equal to the checkpoint: written by a clean shutdown that the log
    /// agrees with.
    AtCheckpoint,
    /// Below the checkpoint: the server ran after the last clean shutdown.
    BeforeCheckpoint,
    /// Above the checkpoint: the log is older than the system tablespace.
    AfterCheckpoint,
}

/// Pages of one file beyond a reference LSN.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FilePages {
    /// Index of the file in the slice given to [`DatadirReport::of`].
    pub file: usize,
    /// How many pages.
    pub pages: u32,
    /// The newest LSN among them.
    pub newest: Lsn,
}

/// The cross-file report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DatadirReport {
    /// The redo log's checkpoint LSN.
    pub checkpoint: Option<Lsn>,
    /// The LSN up to which the copied log is complete.
    pub log_end: Option<Lsn>,
    /// Whether the log holds changes after the checkpoint.
    pub log_changes_after_checkpoint: Option<bool>,
    /// FIL_PAGE_FILE_FLUSH_LSN of the system tablespace.
    pub flush_lsn: Option<Lsn>,
    /// How it stands to the checkpoint.
    pub flush_vs_checkpoint: Option<FlushLsn>,
    /// Files with pages newer than the checkpoint.
    pub newer_than_checkpoint: Vec<FilePages>,
    /// Files with pages newer than the log's end.
    pub beyond_log_end: Vec<FilePages>,
    /// Space ids carried by more than one file (file indexes).
    pub duplicate_space_ids: Vec<(SpaceId, Vec<usize>)>,
    /// The file whose newest page is oldest, and the file whose newest page
    /// is newest: (file index, LSN).
    pub spread: Option<((usize, Lsn), (usize, Lsn))>,
}

impl DatadirReport {
    /// Folds the files' audits with the datadir's reference points.
    pub fn of(files: &[DatadirFile<'_>], redo: Option<&RedoInfo>, flush_lsn: Option<Lsn>) -> Self {
        let checkpoint = redo.map(|r| r.checkpoint.lsn);
        let flush_vs_checkpoint = match (flush_lsn, checkpoint) {
            (Some(f), _) if f.0 == 0 => Some(FlushLsn::NotWritten),
            (Some(f), Some(c)) => Some(match f.cmp(&c) {
                std::cmp::Ordering::Equal => FlushLsn::AtCheckpoint,
                std::cmp::Ordering::Less => FlushLsn::BeforeCheckpoint,
                std::cmp::Ordering::Greater => FlushLsn::AfterCheckpoint,
            }),
            _ => None,
        };
        let mut newer = Vec::new();
        let mut beyond = Vec::new();
        let mut ids: Vec<(SpaceId, usize)> = Vec::new();
        let mut spread: Option<((usize, Lsn), (usize, Lsn))> = None;
        for (i, f) in files.iter().enumerate() {
            let a = f.audit;
            if let Some(n) = a.newer_than_checkpoint.as_ref().filter(|n| n.pages > 0) {
                newer.push(FilePages {
                    file: i,
                    pages: n.pages,
                    newest: n.newest.unwrap_or_default(),
                });
            }
            let (count, top) = a
                .findings
                .iter()
                .filter_map(|x| match x.kind {
                    AuditKind::BeyondRedoEnd { lsn, .. } => Some(lsn),
                    _ => None,
                })
                .fold((0u32, Lsn(0)), |(c, t), l| (c.saturating_add(1), t.max(l)));
            if count > 0 {
                beyond.push(FilePages {
                    file: i,
                    pages: count,
                    newest: top,
                });
            }
            if !f.system {
                ids.push((a.space_id, i));
            }
            if let Some((_, lsn)) = a.newest {
                spread = Some(match spread {
                    None => ((i, lsn), (i, lsn)),
                    Some((lo, hi)) => (
                        if lsn < lo.1 { (i, lsn) } else { lo },
                        if lsn > hi.1 { (i, lsn) } else { hi },
                    ),
                });
            }
        }
        ids.sort_unstable();
        let mut duplicate_space_ids: Vec<(SpaceId, Vec<usize>)> = Vec::new();
        for w in ids.chunk_by(|a, b| a.0 == b.0) {
            if w.len() > 1 {
                if let Some(&(id, _)) = w.first() {
                    duplicate_space_ids.push((id, w.iter().map(|&(_, i)| i).collect()));
                }
            }
        }
        DatadirReport {
            checkpoint,
            log_end: redo.map(|r| r.end),
            log_changes_after_checkpoint: redo.map(RedoInfo::has_changes_after_checkpoint),
            flush_lsn,
            flush_vs_checkpoint,
            newer_than_checkpoint: newer,
            beyond_log_end: beyond,
            duplicate_space_ids,
            spread,
        }
    }

    /// Whether starting a server on this copy runs crash recovery: pages
    /// newer than the checkpoint, or log records after it. `None` without
    /// a redo log.
    pub fn needs_recovery(&self) -> Option<bool> {
        self.checkpoint?;
        Some(
            !self.newer_than_checkpoint.is_empty()
                || self.log_changes_after_checkpoint == Some(true),
        )
    }

    /// Whether the copied log reaches every page (recovery can bring all
    /// files to one moment). `None` without a redo log.
    pub fn log_reaches_all_pages(&self) -> Option<bool> {
        self.log_end?;
        Some(self.beyond_log_end.is_empty())
    }

    /// Pages newer than the checkpoint, over all files.
    pub fn pages_newer_than_checkpoint(&self) -> u32 {
        self.newer_than_checkpoint
            .iter()
            .map(|f| f.pages)
            .fold(0, u32::saturating_add)
    }

    /// Whether anything here is a finding: recovery needed, pages past the
    /// log, duplicate ids, a log older than the system tablespace.
    pub fn has_findings(&self) -> bool {
        self.needs_recovery() == Some(true)
            || !self.beyond_log_end.is_empty()
            || !self.duplicate_space_ids.is_empty()
            || self.flush_vs_checkpoint == Some(FlushLsn::AfterCheckpoint)
    }
}
