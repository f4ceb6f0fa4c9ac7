//! # ibdscope-forensics
//!
//! What a copy of a tablespace or of a whole datadir says beyond its pages
//! one by one, on top of the [`ibdscope`] page core: the [`audit`] of a
//! copied file (torn, damaged, foreign, truncated, zero-filled, mixed
//! generations), the [`redo`] log's checkpoint and the pages its records
//! name, the [`datadir`] as a whole (crash recovery, log reach, duplicate
//! space ids), and the [`diff`] of two copies of one space.
//!
//! Like the core, it does no I/O and never panics on input.

pub mod audit;
pub mod datadir;
pub mod diff;
pub mod redo;

pub use audit::{Audit, AuditFinding, AuditKind, AuditOptions, AuditVerdict};
