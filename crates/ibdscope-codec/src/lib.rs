//! Internal: not a public API; used by the InnoDB crates (the page core's
//! `pagecomp`, the schema crate's SDI and ROW_FORMAT=COMPRESSED pages).
//!
//! Decoders for MariaDB's page_compressed providers other than zlib (which
//! is [`crate::inflate`]): LZ4, LZO1X, LZMA (the `.xz` container), bzip2
//! and Snappy, written from their format descriptions, std only.
//!
//! How MariaDB 10.11 calls each library (`storage/innobase/fil/fil0pagecompress.cc`,
//! `fil_page_compress_low` and `fil_page_decompress_low`; docs/format.md
//! §16.1):
//!
//! | algorithm | compress | decompress | container here |
//! |---|---|---|---|
//! | 2 lz4 | `LZ4_compress_default` | `LZ4_decompress_safe(src, dst, actual_size, srv_page_size)` | one raw LZ4 block ([`lz4`]) |
//! | 3 lzo | `lzo1x_1_15_compress` | `lzo1x_decompress_safe(src, actual_size, dst, &len, NULL)` | raw LZO1X stream with its end marker ([`lzo`]) |
//! | 4 lzma | `lzma_easy_buffer_encode(level, LZMA_CHECK_NONE, …)` | `lzma_stream_buffer_decode(&memlimit, 0, …)` | one `.xz` stream, LZMA2 filter ([`lzma`]) |
//! | 5 bzip2 | `BZ2_bzBuffToBuffCompress(…, blockSize100k 1, verbosity 0, workFactor 0)` | `BZ2_bzBuffToBuffDecompress(…, small 1, verbosity 0)` | one `BZh` stream ([`bzip2`]) |
//! | 6 snappy | `snappy_compress` | `snappy_uncompress` | raw Snappy ([`snappy`]) |
//!
//! In every case the server requires exactly one page of output.
//!
//! Every decoder appends to a caller's `Vec<u8>` and never lets it grow
//! past the caller's limit (the page size): a stream that would write more
//! (a bomb), a back-reference before the start of the output, a length
//! that runs past the input, or a bad code is an [`Error`] with the
//! byte offset in the input where decoding stopped, never a panic. The
//! back-references of LZ4, LZO, Snappy and LZMA are copied out of the output
//! itself (the output is the dictionary: one page). The decoders that need
//! tables keep them in a [`Scratch`], allocated once and reused for every
//! page.

#![cfg_attr(test, allow(clippy::disallowed_macros))]

pub mod bzip2;
mod common;
pub mod inflate;
pub mod lz4;
pub mod lzma;
pub mod lzo;
pub mod snappy;

pub use common::{CodecErrorKind, Error, ErrorKind, Output, PageOut, Scratch};
