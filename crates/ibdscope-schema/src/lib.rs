//! # ibdscope-schema
//!
//! Table definitions and rows on top of the [`ibdscope`] page core: where a
//! table's definition comes from (the SDI a MySQL 8.0+ file carries, a
//! MySQL ≤ 5.7 / MariaDB `.frm` file, or a `CREATE TABLE` statement), one
//! [`TableDef`] whatever the source, and an index's records split into
//! typed fields ([`row`], [`value`]), with off-page columns, MariaDB's
//! instant ALTER layouts and ROW_FORMAT=COMPRESSED pages rebuilt ([`zip`]);
//! an index's rows in key order as an [`Iterator`] of typed rows, past
//! damage, deleted ones on request ([`rows::RowScan`]).
//!
//! Like the core, it does no I/O and never panics on input; it depends on
//! the core and the core never on it.
//!
//! ```
//! use ibdscope_core::Tablespace;
//! use ibdscope_schema::TableDef;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! // A MySQL 5.6 table: its definition is in the .frm beside it.
//! let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/mysql56");
//! let frm = std::fs::read(format!("{dir}/secondary.frm"))?;
//! let def = ibdscope_schema::frm::Frm::parse(&frm)?.to_table_def("secondary", "test");
//! let names: Vec<&str> = def.indexes.iter().map(|i| i.name.as_str()).collect();
//! assert_eq!(names.first(), Some(&"PRIMARY"));
//! # let _ = Tablespace::new;
//! # Ok(())
//! # }
//! ```
#![cfg_attr(test, allow(clippy::disallowed_macros))]

mod collation;
pub mod ddl;
pub mod dictdef;
mod error;
pub mod frm;
pub mod infer;
pub mod instant;
mod json;
pub mod leaves;
pub mod row;
pub mod rows;
pub mod sdi;
pub mod table;
pub mod value;
pub mod zip;

pub use error::{Error, ErrorKind, Place};
pub use table::TableDef;
