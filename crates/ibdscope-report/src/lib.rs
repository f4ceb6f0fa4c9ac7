//! # ibdscope-report
//!
//! Every `ibdscope` command as a library function: it takes the checked
//! arguments of a run ([`args::Opts`]) and writes the command's output (text,
//! JSON, JSON lines, CSV, TSV, SQL, terminal maps) to any [`std::io::Write`],
//! returning what it found ([`Outcome`]). Input files are opened through a
//! [`host::Host`]: the binary maps them, [`host::ReadHost`] reads them whole.
//! The reports are built from the library crates' facts (the page core,
//! schema and forensics); pictures are drawn by `ibdscope-render` from plain
//! data.
//!
//! ```
//! use ibdscope_report::args::{Cmd, Format, Opts};
//! use ibdscope_report::{host::ReadHost, run, Outcome};
//! use std::sync::Arc;
//!
//! let file = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/mariadb1011/ai_int.ibd");
//! let opts = Opts::new(Cmd::Check, vec![file.into()], Format::Text, Arc::new(ReadHost));
//! let mut out = Vec::new();
//! assert_eq!(run(&opts, &mut out).unwrap(), Outcome::Clean);
//! assert!(String::from_utf8(out).unwrap().contains("pages"));
//! ```
#![cfg_attr(test, allow(clippy::disallowed_macros))]
#![forbid(unsafe_code)]

mod account;
pub mod args;
mod cmd;
mod csv;
pub mod diag;
mod errobj;
mod error;
mod fill_grid;
mod findings;
pub mod held;
mod hexdump;
mod instance_facts;
mod json;
// Hand-written number and hex formatting for `records` and `pages`: table
// lookups by a byte and digit arithmetic on bounded values; brought under
// the arithmetic and indexing lints with those two commands.
mod decode;
// The record views moved from `records` (offsets within a page): under the
// arithmetic and indexing lints with it.
mod line;
mod lsn_grid;
mod maps;
mod open;
pub mod out;
mod outcome;
mod page_views;
mod repair;
mod run;
mod source_map;
mod system;
mod text;
mod undo_words;

pub use run::run;

// The model and the opening of files live in the front door crate; the
// binary reaches the pieces it needs (its host, the keyring, how a path
// is shown) through the report, its one dependency.
pub use ibdscope::{decrypt, host, instance, names};

pub use error::{Error, ErrorKind, Place};

pub use outcome::Outcome;
