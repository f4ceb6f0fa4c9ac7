//! Internal to ibdscope, **not a public API**: its items may change in any
//! release. The general-purpose pieces the InnoDB crates (`ibdscope-core`,
//! `ibdscope-schema`, `ibdscope-forensics`, and the report's key handling)
//! use and do not re-export: checksums, ciphers and hashes written by hand
//! (the library depends on nothing but std), and one JSON reader.
//!
//! - [`bytes`]: bounds-checked big-endian reads;
//! - [`crc32c`]: CRC-32C and its legacy big-endian variant, on the SSE4.2
//!   instruction where the CPU has it;
//! - [`aes`]: AES-128/192/256 and ECB, CBC, CTR, on AES-NI where the CPU
//!   has it;
//! - [`sha1`], [`sha256`]: the digests the key files need;
//! - [`json`]: an RFC 8259 reader, bounded in depth, errors with byte
//!   offsets;
//! - [`wipe`]: clears key material with volatile writes.
//!
//! The same guarantees as the page core: no I/O, no panic on input, and
//! `unsafe` in three named blocks only (`crc32c::sse42`, `aes::ni` and
//! [`wipe`]; see ARCHITECTURE.md's invariants).
#![cfg_attr(test, allow(clippy::disallowed_macros))]

pub mod aes;
pub mod bytes;
pub mod crc32c;
pub mod json;
pub mod sha1;
pub mod sha256;
pub mod wipe;

pub use wipe::wipe;
