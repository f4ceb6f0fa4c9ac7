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
//! - **No `unsafe`**: `unsafe_code` is denied in this crate. The CRC-32C
//!   and AES it computes with (on SSE4.2 and AES-NI where the CPU has
//!   them) and the wiping of key material are the internal crate
//!   `ibdscope-prims`', which allows one named block in each of three
//!   modules (ARCHITECTURE.md's invariants).
//!
//! Open a file, see what it is, and walk its pages once:
//!
//! ```
//! use ibdscope_core::{Engine, SpaceMap, Summary, Tablespace, Verdict};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! // A table written by MariaDB 10.11 (full_crc32 format), from fixtures/.
//! let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/mariadb1011/ai_int.ibd");
//! let bytes = std::fs::read(path)?; // or a read-only memory map
//! let ts = Tablespace::new(&bytes)?;
//! assert_eq!(ts.page_size(), 16384);
//! for page in ts.scan() {
//!     let name = page.page_type.display(ts.type_names());
//!     match page.verdict {
//!         Verdict::Valid(alg) => println!("{:>5} {name:<12} {} lsn {}", page.page_no, alg.name(), page.lsn),
//!         other => println!("{:>5} {name:<12} {other:?}", page.page_no),
//!     }
//! }
//! // The same pass, folded: counts per type, LSN range, damaged pages.
//! // Whole-file passes take an `Engine`: how many threads they may use
//! // (the result is the same on any number) and an optional hook told of
//! // the bytes they are done with. The space itself is only a view of bytes.
//! let summary = Summary::of(&ts, &Engine::default());
//! assert!(summary.is_clean());
//! let map = SpaceMap::build(&ts, &Engine::new(2));
//! assert!(map.findings.is_empty());
//! # Ok(())
//! # }
//! ```
//!
//! The types most uses need are re-exported here: the space
//! ([`Tablespace`], [`Options`], [`PageFacts`], [`Verdict`], [`Summary`]),
//! how whole-file passes run ([`Engine`]),
//! its structure ([`SpaceMap`], [`Btrees`], [`RecPage`]), what is wrong
//! ([`Finding`], [`FindingKind`], [`Error`]) and the numbers that name
//! things ([`PageNo`], [`SpaceId`], [`IndexId`], [`Lsn`], [`PageType`]).
//!
//! ## Modules
//!
//! The space and its one pass:
//!
//! - [`space`]: [`Tablespace`]: format detection with its evidence, page
//!   access, the one-pass [`Tablespace::scan`] and its [`PageFacts`];
//! - [`summary`]: [`Summary`], the pass folded (counts per type, LSNs,
//!   damaged pages);
//! - [`parallel`]: the scan engine: [`fold_pages`] runs a [`PageFold`] over
//!   shards of whole extents on the threads an [`Engine`] allows, joined in
//!   page order; every whole-file pass ([`Summary::of`],
//!   [`SpaceMap::build`], [`Btrees::build`], [`pagecomp::expand`]) takes
//!   the engine explicitly;
//! - [`checksum`]: every page checksum algorithm and the acceptance rules;
//!   [`crypt`]: encrypted spaces, MySQL's and MariaDB's;
//! - [`Finding`] and [`FindingKind`]: damage as data, with a page
//!   and a byte offset.
//!
//! Views of InnoDB's on-disk structures, one module each (named after
//! them, each opening with its layout and its InnoDB source):
//!
//! - [`fil`]: the FIL header and trailer of every page;
//! - [`fsp`]: the space header (page 0) and the FSP flags;
//! - [`xdes`]: extent descriptors; [`flst`]: file lists and their walker;
//!   [`inode`]: segment inodes and FSEG headers;
//! - [`index`]: the INDEX page header; [`record`]: records, the record and
//!   free chains and the directory ([`RecPage`]); [`layout`]: where each
//!   byte of an index page belongs;
//! - [`pagecomp`]: MariaDB page_compressed pages (their decoders are the
//!   internal crate `ibdscope-codec`).
//!
//! The structure of the whole space:
//!
//! - [`extents`]: [`SpaceMap`]: every page's owner, the segments, indexes
//!   and FSP lists, and structure damage;
//! - [`btree`]: [`Btrees`]: every index walked level by level: records,
//!   fill, leaf order and consistency.
//!
//! Page types ([`PageType`], [`TypeNames`]) and vendors ([`Vendor`],
//! [`VendorGuess`]) are types of the root.
#![cfg_attr(test, allow(clippy::disallowed_macros))]

mod bits;
pub mod btree;
mod bytes;
pub mod checksum;
pub mod crypt;
mod crypt_data;
mod error;
pub mod extents;
pub(crate) mod facts;
pub mod fil;
mod finding;
pub mod flst;
pub mod fsp;
mod ids;
pub mod index;
pub mod inode;
pub mod layout;
mod links;
mod listing;
mod owner;
mod page_type;
pub mod pagecomp;
pub mod parallel;
pub mod record;
mod source;
pub mod space;
pub mod stale;
pub mod summary;
#[cfg(any(test, feature = "testing"))]
#[doc(hidden)]
pub mod testing;
mod vendor;
pub mod verdict;
mod walk;
pub mod window;
pub mod xdes;

pub use btree::{BtreeProblem, Btrees, IndexTree};
pub use checksum::Verdict;
pub use error::{Error, ErrorKind, Place, Result};
pub use extents::{IndexInfo, Owner, SegmentInfo, SegmentRole, SpaceMap, SpaceProblem, SystemKind};
pub use finding::{Finding, FindingKind};
pub use flst::FilAddr;
pub use ids::{IndexId, Lsn, PageNo, SpaceId, FIL_NULL};
pub use index::IndexHeader;
pub use page_type::{PageType, PageTypeDisplay, TypeNames};
pub use parallel::{fold_pages, Engine, PageFold, ProgressFn, ReleaseFn};
pub use record::{NoRecords, PageRecords, Rec, RecFormat, RecPage, RecScratch, RecType, Visited};
pub use source::PageRef;
pub use space::{Evidence, Options, PageFacts, Tablespace};
pub use summary::Summary;
pub use vendor::{Vendor, VendorGuess};
pub use verdict::{PageJudgement, PageVerdict};
