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
//! | pages recovery would change | pages with a log record after the checkpoint ([`crate::redo::log_pages`]) in a mini-transaction that starts at or after the page's FIL_PAGE_LSN, unless the newest such record frees the page | MariaDB `recv_recover_page` ("if (l->start_lsn < page_lsn) skip"), MySQL 5.6 `recv_recover_page_func` ("if (recv->start_lsn >= page_lsn) apply") (`log0recv.cc`); a freed page is not written (MariaDB `buf_flush_page`, `buf0flu.cc`) |
//!
//! MySQL compares the flush LSN with the checkpoint at start-up: they are
//! equal after a clean (slow or normal) shutdown, and a checkpoint below
//! the flush LSN means the log is older than the data files (MySQL
//! `log0recv.cc`, `ER_IB_MSG_RECOVERY_CHECKPOINT_FROM_BEFORE_CLEAN_SHUTDOWN`).
//! MariaDB 10.8+ no longer writes the field (it stays 0 in the datadirs
//! `fixtures/generate` makes), so only the log tells there.

use crate::audit::{Audit, AuditKind, PageRun};
use crate::redo::{LogPages, LogPagesStatus, RedoInfo};
use ibdscope_core::fil::FilHeader;
use ibdscope_core::{Lsn, PageNo, SpaceId, Tablespace};

/// Whether a directory entry named `name` (a directory when `is_dir`)
/// makes the directory holding it a datadir's root: the system
/// tablespace's first data file (`first_data_file`, `ibdata1` unless
/// `innodb_data_file_path` names another), a redo log (`ib_logfile0`, the
/// MySQL 8.0.30+ `#innodb_redo/` directory, `ib_redo*`), MySQL 8.0's data
/// dictionary tablespace `mysql.ibd`, or the first undo tablespace
/// `undo_001` (MySQL 8.0) or `undo001` (MySQL 5.6+, MariaDB). Each server
/// creates these at the top of its datadir and nowhere else
/// (`srv_sys_space`, `log_files_*`, `dict_sys_t::s_dd_space_file_name`,
/// `undo::make_space_name`); a directory holding one is one instance,
/// whose space ids are its own.
pub fn marks_datadir(name: &str, is_dir: bool, first_data_file: &str) -> bool {
    if is_dir {
        return name == "#innodb_redo";
    }
    name == first_data_file
        || name == "ib_logfile0"
        || name.starts_with("ib_redo")
        || name == "mysql.ibd"
        || name == "undo_001"
        || name == "undo001"
}

/// One audited file of the datadir.
#[derive(Clone, Copy, Debug)]
pub struct DatadirFile<'a> {
    /// Its audit.
    pub audit: &'a Audit,
    /// Part of the system tablespace (ibdata*): shares space id 0 with the
    /// other system files.
    pub system: bool,
    /// What crash recovery would change in it ([`recovery_changes`]), when
    /// the log's records were read.
    pub recovery: Option<&'a RecoveryChanges>,
}

/// What crash recovery of the copy would do to one file: the pages for
/// which the copied log holds records after the checkpoint that are newer
/// than the page.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct RecoveryChanges {
    /// Pages recovery would change: a record in a mini-transaction that
    /// starts at or after the page's FIL_PAGE_LSN, the newest of which does
    /// not free the page.
    pub pages: u32,
    /// Where (runs of consecutive pages).
    pub runs: Vec<PageRun>,
    /// The newest LSN recovery would leave on them (end of the newest
    /// mini-transaction).
    pub newest: Option<Lsn>,
    /// Pages of the file's space with records after the checkpoint.
    pub logged: u32,
    /// Of those, pages whose FIL_PAGE_LSN is past the start of the newest
    /// mini-transaction for them: the page was written after its last
    /// change, and recovery skips the records.
    pub already_written: u32,
    /// Of those, pages whose newest record frees them: recovery marks them
    /// free and does not write them.
    pub freed: u32,
    /// Of `pages`, pages that the log (re)initialises after the checkpoint
    /// (recovery may build them without reading them).
    pub initialised: u32,
    /// Of `pages`, pages past the file's end (the log extends the file).
    pub past_end: u32,
}

/// The pages of `ts` (space `space`) that crash recovery with `log` would
/// change. Reads one FIL header per page the log names; bounded by the
/// log's cap.
pub fn recovery_changes(ts: &Tablespace<'_>, space: SpaceId, log: &LogPages) -> RecoveryChanges {
    let mut out = RecoveryChanges::default();
    for p in log.of_space(space) {
        out.logged = out.logged.saturating_add(1);
        if p.freed {
            out.freed = out.freed.saturating_add(1);
            continue;
        }
        let page_lsn = match ts.page(p.page) {
            Some(page) => FilHeader::new(page).map_or(Lsn(0), |h| h.lsn()),
            None => {
                out.past_end = out.past_end.saturating_add(1);
                Lsn(0)
            }
        };
        if p.start < page_lsn {
            out.already_written = out.already_written.saturating_add(1);
            continue;
        }
        out.pages = out.pages.saturating_add(1);
        if p.init {
            out.initialised = out.initialised.saturating_add(1);
        }
        out.newest = Some(out.newest.map_or(p.end, |n| n.max(p.end)));
        match out.runs.last_mut() {
            Some(r) if r.last.0.checked_add(1) == Some(p.page.0) => r.last = p.page,
            _ => out.runs.push(PageRun {
                first: p.page,
                last: p.page,
            }),
        }
    }
    out
}

/// Whether a page is in the runs.
pub fn in_runs(runs: &[PageRun], n: PageNo) -> bool {
    let i = runs.partition_point(|r| r.last < n);
    runs.get(i).is_some_and(|r| r.first <= n)
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
#[non_exhaustive]
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
#[non_exhaustive]
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
    /// Whether the log's records were read (`None` without a log).
    pub log_pages: Option<LogPagesStatus>,
    /// The log named more distinct pages than were tracked: the figures
    /// below are lower bounds.
    pub log_pages_capped: bool,
    /// Files with pages recovery would change (when the records were read).
    pub recovery_changes: Vec<FilePages>,
    /// Space ids the log has records for that no audited file carries, with
    /// how many pages (dropped tables, files not in the copy).
    pub logged_spaces_without_file: Vec<(SpaceId, u32)>,
    /// Space ids carried by more than one file (file indexes).
    pub duplicate_space_ids: Vec<(SpaceId, Vec<usize>)>,
    /// The file whose newest page is oldest, and the file whose newest page
    /// is newest: (file index, LSN).
    pub spread: Option<((usize, Lsn), (usize, Lsn))>,
}

impl DatadirReport {
    /// Folds the files' audits with the datadir's reference points.
    pub fn of(
        files: &[DatadirFile<'_>],
        redo: Option<&RedoInfo>,
        log: Option<&LogPages>,
        flush_lsn: Option<Lsn>,
    ) -> Self {
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
        let mut changes = Vec::new();
        for (i, f) in files.iter().enumerate() {
            let a = f.audit;
            if let Some(r) = f.recovery.filter(|r| r.pages > 0) {
                changes.push(FilePages {
                    file: i,
                    pages: r.pages,
                    newest: r.newest.unwrap_or_default(),
                });
            }
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
        let logged_spaces_without_file = log
            .filter(|l| l.status != LogPagesStatus::NotParsed)
            .map(|l| {
                l.spaces()
                    .into_iter()
                    .filter(|(s, _)| !files.iter().any(|f| f.audit.space_id == *s))
                    .collect()
            })
            .unwrap_or_default();
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
            log_pages: log.map(|l| l.status),
            log_pages_capped: log.is_some_and(|l| l.capped),
            recovery_changes: changes,
            logged_spaces_without_file,
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

    /// Pages recovery would change, over all files (`None` when the log's
    /// records were not read).
    pub fn pages_recovery_would_change(&self) -> Option<u32> {
        match self.log_pages? {
            LogPagesStatus::NotParsed => None,
            _ => Some(
                self.recovery_changes
                    .iter()
                    .map(|f| f.pages)
                    .fold(0, u32::saturating_add),
            ),
        }
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

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn in_runs_finds_pages_in_sorted_runs() {
        let runs = [
            PageRun {
                first: PageNo(2),
                last: PageNo(4),
            },
            PageRun {
                first: PageNo(9),
                last: PageNo(9),
            },
        ];
        let hits: Vec<u32> = (0..12).filter(|&n| in_runs(&runs, PageNo(n))).collect();
        assert_eq!(hits, vec![2, 3, 4, 9]);
        assert!(!in_runs(&[], PageNo(0)));
    }

    /// A log with no records gives no report figure without its status.
    #[test]
    fn recovery_figure_needs_parsed_records() {
        let r = DatadirReport::of(&[], None, None, None);
        assert_eq!(r.pages_recovery_would_change(), None);
    }
}
