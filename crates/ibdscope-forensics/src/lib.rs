//! # ibdscope-forensics
//!
//! What a copy of a tablespace or of a whole datadir says beyond its pages
//! one by one, on top of the [`ibdscope`] page core (and the rows of
//! `ibdscope-schema` for [`history`]): the [`audit`] of a
//! copied file (torn, damaged, foreign, truncated, zero-filled, mixed
//! generations), the [`redo`] log's checkpoint and the pages its records
//! name, the [`datadir`] as a whole (crash recovery, log reach, duplicate
//! space ids), and the [`diff`] of two copies of one space.
//!
//! Like the core, it does no I/O and never panics on input: every function
//! takes the bytes (a [`ibdscope_core::Tablespace`], the redo log files as
//! slices) and returns plain data.
//!
//! ## Modules
//!
//! - [`audit`]: [`Audit::of`]: one verdict per file ([`AuditVerdict`]) with
//!   its evidence ([`AuditFinding`]), in one pass, then the space map, then
//!   link checks;
//! - [`redo`]: [`redo::read`]: the log's format, checkpoint and how far it
//!   is complete ([`RedoInfo`]); [`redo::log_pages`]: the pages its records
//!   after the checkpoint name;
//! - [`datadir`]: [`DatadirReport::of`]: the files' audits folded with the
//!   log and the flush LSN (recovery needed, log reach, the pages recovery
//!   would change, duplicate space ids);
//! - [`diff`]: [`Diff::of`]: two copies of one space, page by page;
//! - [`system`]: the system tablespace's fixed pages, the TRX_SYS page and
//!   the dictionary header;
//! - [`dict`]: [`dict::Dictionary::read`]: the InnoDB dictionary of MySQL
//!   ≤ 5.7 and MariaDB (SYS_TABLES, SYS_COLUMNS, SYS_INDEXES, SYS_FIELDS,
//!   SYS_VIRTUAL) from its B-trees;
//! - [`undo`]: [`undo::Undo::read`]: rollback segments, history lists, undo
//!   logs and records; [`undo::chain`]: a row's older versions.
//! - [`history`]: [`history::history`]: a table's rows, each with its
//!   older versions rebuilt from the undo logs (trx id, roll pointer, and
//!   where the chain ends: the insert, purged, lost with a damaged page).
//! - [`doublewrite`]: [`doublewrite::DoublewriteBuffer::read`]: the
//!   doublewrite buffer's slots; [`doublewrite::repairs`]: a tablespace's
//!   damaged pages with the copy the server would write over each.

pub mod audit;
pub mod carve;
pub mod datadir;
pub mod dict;
pub mod diff;
pub mod doublewrite;
mod error;
pub mod history;
pub mod redo;
pub mod system;
pub mod undo;

pub use audit::{Audit, AuditFinding, AuditKind, AuditOptions, AuditVerdict};
pub use datadir::DatadirReport;
pub use diff::Diff;
pub use error::{Error, ErrorKind, Place};
pub use redo::RedoInfo;
