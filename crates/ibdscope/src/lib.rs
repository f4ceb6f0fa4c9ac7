//! # ibdscope
//!
//! Read InnoDB tablespace files (`.ibd`, `ibdata1`; MySQL 5.x–9.x,
//! MariaDB, Percona) without a server, and never write to them. Open a
//! file, see how its format was detected and why, list its indexes by
//! name, read every page's verdict and the findings, each at its place in
//! the file:
//!
//! ```
//! let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/mysql56/secondary.ibd");
//! let file = ibdscope::File::open(path)?;
//! let space = file.space()?;
//! println!("{} pages of {} bytes", space.tablespace().n_pages(), space.tablespace().page_size());
//! for ix in space.indexes() {
//!     let name = ix.name.as_deref().unwrap_or("-");
//!     println!("{} {name}: root {}, {} levels", ix.id_text(), ix.root, ix.height);
//! }
//! let damaged = space.verdicts().filter(|v| v.verdict.is_damaged()).count();
//! assert_eq!(damaged, 0);
//! for f in space.findings() {
//!     println!("{f}"); // file, page, byte offset in the file: what
//! }
//! # assert_eq!(space.indexes().len(), 3);
//! # Ok::<(), ibdscope::Error>(())
//! ```
//!
//! [`OpenOptions`] gives what a file needs besides its path: a page size
//! when page 0 is damaged, a MariaDB key file, a MySQL keyring, the
//! datadir or `.frm` the table definition comes from, the threads; a
//! datadir's system tablespace opens by its first data file (`ibdata1`,
//! with the `ibdata2`… that continue it). What opening had to tell (a key
//! that does not open the space, pages that do not decompress) comes back
//! as [`Diagnostic`]s ([`Space::diagnostics`]): the library never prints.
//!
//! Below the front door, for programs that need more: [`open`] (the one
//! way every `ibdscope` command opens a space), [`analysis`] (the one
//! model of a file the commands read: summary, space map, B-trees,
//! definition), [`definition`], [`instance`] (the system tablespace and
//! its dictionary), [`logical`] (decompressed and decrypted images),
//! [`decrypt`] (MySQL keyrings), [`host`] (how files are read),
//! [`sources`] (a carved image's records back to their byte offsets in
//! the source carved: [`Space::sources`]).
#![cfg_attr(test, allow(clippy::disallowed_macros))]

pub mod analysis;
pub mod decrypt;
pub mod definition;
pub mod diagnostic;
mod error;
pub mod host;
pub mod instance;
pub mod logical;
pub mod names;
pub mod open;
pub mod sources;
pub mod space;
pub mod undo;

pub use diagnostic::Diagnostic;
pub use error::{Error, ErrorKind};
pub use ibdscope_core::crypt::keyring::Keyring;
pub use ibdscope_core::crypt::mariadb::KeyFile;
pub use ibdscope_core::verdict::{PageEvidence, PageJudgement, PageVerdict};
pub use ibdscope_core::{IndexId, PageNo};
pub use ibdscope_schema::row::FieldText;
pub use ibdscope_schema::rows::{shown_columns, Deleted, Origin, Row, RowScan, ScanOptions, Value};
pub use ibdscope_schema::value::Rendered;
pub use open::OpenOptions;
pub use space::{tsv, File, Finding, Index, Place, Space, Table};
