//! # ibdscope
//!
//! A read-only parser of InnoDB tablespace files (`.ibd`) for MySQL 5.0 to
//! 9.x, Percona Server and MariaDB, at every page size. It parses bytes and
//! does no I/O: give it a `&[u8]` (a memory map or a `Vec`).
//!
//! Guarantees:
//! - **Read-only**: the library only ever holds `&[u8]`.
//! - **No panics on input**: every offset read from a page is checked;
//!   indexing, unchecked arithmetic and `unwrap` are denied by lints.
//! - **Bounded work**: every walk has a limit fixed before it starts.
//! - **Damage is data**: a damaged page is a [`Finding`], not an [`Error`];
//!   an `Error` means the whole file is unusable.
//!
//! ```
//! use ibdscope::{Summary, Tablespace};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! // A one-page, 16 KiB "file": flags 0, innodb checksum; here all zero
//! // but page 0's header, so build one the way a server would.
//! let mut page = vec![0u8; 16384];
//! page[24..26].copy_from_slice(&8u16.to_be_bytes()); // FIL_PAGE_TYPE_FSP_HDR
//! let c = ibdscope::checksum::page_crc32(&page);
//! page[0..4].copy_from_slice(&c.to_be_bytes());
//! page[16376..16380].copy_from_slice(&c.to_be_bytes());
//!
//! let ts = Tablespace::new(&page)?;
//! assert_eq!(ts.page_size(), 16384);
//! for facts in ts.scan() {
//!     println!("page {} type {} verdict {:?}", facts.page_no,
//!              facts.page_type.display(ts.type_names()), facts.verdict);
//! }
//! let summary = Summary::of(&ts);
//! assert!(summary.is_clean());
//! # Ok(())
//! # }
//! ```
//!
//! Modules follow InnoDB's structures: [`fil`] (page header and trailer),
//! [`page_type`], [`fsp`] (space header and flags), [`xdes`] (extent
//! descriptors), [`checksum`]; [`space`] ties them into a [`Tablespace`] and
//! its one-pass [`Tablespace::scan`]; [`summary`] folds the scan.

mod bytes;
pub mod checksum;
pub mod crc32c;
mod error;
pub mod fil;
pub mod finding;
pub mod fsp;
mod ids;
pub mod page_type;
pub mod space;
pub mod summary;
pub mod vendor;
pub mod xdes;

pub use error::{Error, ErrorKind, Result};
pub use finding::{Finding, FindingKind};
pub use ids::{IndexId, Lsn, PageNo, SpaceId, FIL_NULL};
pub use page_type::{PageType, TypeNames};
pub use space::{Options, PageFacts, Tablespace};
pub use summary::Summary;
pub use vendor::{Vendor, VendorGuess};
