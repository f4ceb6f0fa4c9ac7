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
//! that runs past the input, or a bad code is a [`CodecError`] with the
//! byte offset in the input where decoding stopped, never a panic. The
//! back-references of LZ4, LZO, Snappy and LZMA are copied out of the output
//! itself (the output is the dictionary: one page). The decoders that need
//! tables keep them in a [`Scratch`], allocated once and reused for every
//! page.

pub mod bzip2;
pub mod lz4;
pub mod lzma;
pub mod lzo;
pub mod snappy;

use std::fmt;

/// Why a decoder stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CodecErrorKind {
    /// The input ends inside the stream.
    Truncated,
    /// The stream would produce more than the limit (the page size).
    OutputLimit,
    /// A back-reference reaches before the start of the output (or is 0).
    BadDistance,
    /// A header, magic number or block marker is not what the format
    /// allows.
    BadHeader,
    /// Coded data the format does not allow (a bad Huffman table or
    /// symbol, a range coder out of step, a reserved value).
    BadData,
    /// A CRC stored in the stream does not match.
    ChecksumMismatch,
    /// The stream states a length it did not produce.
    LengthMismatch,
}

/// A decoding failure and the byte offset in the input where it was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CodecError {
    /// What went wrong.
    pub kind: CodecErrorKind,
    /// Byte offset in the input.
    pub offset: usize,
}

impl CodecError {
    pub(crate) fn new(kind: CodecErrorKind, offset: usize) -> Self {
        CodecError { kind, offset }
    }
}

impl fmt::Display for CodecErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            CodecErrorKind::Truncated => "compressed stream ends early",
            CodecErrorKind::OutputLimit => "stream would produce more than a page",
            CodecErrorKind::BadDistance => "back-reference before the start of the output",
            CodecErrorKind::BadHeader => "bad stream header or block marker",
            CodecErrorKind::BadData => "bad coded data",
            CodecErrorKind::ChecksumMismatch => "stored CRC does not match",
            CodecErrorKind::LengthMismatch => "stated length does not match the output",
        })
    }
}

impl fmt::Display for CodecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (byte {})", self.kind, self.offset)
    }
}

impl std::error::Error for CodecError {}

/// Tables the decoders reuse from page to page: bzip2's inverse-BWT
/// vector and LZMA's probability model. Allocated on first use, at most
/// once per size; [`Scratch::new`] allocates nothing.
#[derive(Debug, Default)]
pub struct Scratch {
    pub(crate) bz_tt: Vec<u32>,
    pub(crate) lzma_probs: Vec<u16>,
}

impl Scratch {
    /// An empty scratch.
    pub fn new() -> Self {
        Scratch::default()
    }
}

/// Appends `len` bytes copied from `dist` bytes back in `out[start..]`
/// (byte by byte semantics: the copy may overlap what it writes). Fails
/// when `dist` is 0 or reaches before `start`, or when `out` would pass
/// `limit` bytes after `start`.
pub(crate) fn copy_match(
    out: &mut Vec<u8>,
    start: usize,
    dist: usize,
    len: usize,
    limit: usize,
) -> Result<(), CodecErrorKind> {
    let have = out.len().saturating_sub(start);
    if dist == 0 || dist > have {
        return Err(CodecErrorKind::BadDistance);
    }
    if len > limit.saturating_sub(have) {
        return Err(CodecErrorKind::OutputLimit);
    }
    let from = out.len().saturating_sub(dist);
    if dist >= len {
        out.extend_from_within(from..from.saturating_add(len));
    } else {
        // Overlapping: the pattern of `dist` bytes repeats.
        let mut left = len;
        while left > 0 {
            let n = left.min(out.len().saturating_sub(from));
            out.extend_from_within(from..from.saturating_add(n));
            left = left.saturating_sub(n);
        }
    }
    Ok(())
}

/// Appends `lit` to `out` unless that passes `limit` bytes after `start`.
pub(crate) fn push_literals(
    out: &mut Vec<u8>,
    start: usize,
    lit: &[u8],
    limit: usize,
) -> Result<(), CodecErrorKind> {
    let have = out.len().saturating_sub(start);
    if lit.len() > limit.saturating_sub(have) {
        return Err(CodecErrorKind::OutputLimit);
    }
    out.extend_from_slice(lit);
    Ok(())
}

/// CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320), as `.xz` uses it.
pub(crate) fn crc32_ieee(data: &[u8]) -> u32 {
    let mut c = !0u32;
    for &b in data {
        c ^= u32::from(b);
        for _ in 0..8 {
            c = if c & 1 != 0 {
                (c >> 1) ^ 0xEDB8_8320
            } else {
                c >> 1
            };
        }
    }
    !c
}

/// The committed test vectors (`testdata/make.py` says which library
/// call made each).
#[cfg(test)]
pub(crate) mod tests_vectors {
    /// What every vector decodes to.
    pub(crate) const ORIGINAL: &[u8] = include_bytes!("testdata/original.bin");

    /// The bytes of `testdata/<name>`.
    #[allow(clippy::unwrap_used)]
    pub(crate) fn read_vector(name: &str) -> Vec<u8> {
        let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("src/codec/testdata")
            .join(name);
        std::fs::read(&p).unwrap()
    }

    /// How a cut reference vector may decode.
    #[derive(Clone, Copy, PartialEq, Eq)]
    pub(crate) enum Cuts {
        /// Every cut is an error.
        Error,
        /// Every cut is an error, or decodes to a shorter prefix of
        /// [`ORIGINAL`] (an LZ4 block cut right after literals is a valid
        /// shorter block).
        ErrorOrPrefix,
    }

    /// A codec's `decompress`: all of the input, appending at most the
    /// limit to the output, the bytes produced.
    pub(crate) type Decompress = fn(&[u8], &mut Vec<u8>, usize) -> Result<usize, super::CodecError>;

    /// Checks `decompress` against `testdata/<name>`: it decodes to
    /// [`ORIGINAL`]; appended after it with a limit one byte short, it is
    /// an `OutputLimit` error that never appends more than the limit; every
    /// cut of it is as `cuts` says. Returns the vector and the limit error.
    #[allow(
        clippy::unwrap_used,
        clippy::indexing_slicing,
        clippy::arithmetic_side_effects
    )]
    pub(crate) fn check_reference(
        name: &str,
        decompress: Decompress,
        cuts: Cuts,
    ) -> (Vec<u8>, super::CodecError) {
        let v = read_vector(name);
        let mut out = Vec::new();
        assert_eq!(
            decompress(&v, &mut out, ORIGINAL.len()).unwrap(),
            ORIGINAL.len()
        );
        assert_eq!(out, ORIGINAL);
        // One byte short of the output: a limit error, never more.
        let e = decompress(&v, &mut out, ORIGINAL.len() - 1).unwrap_err();
        assert_eq!(e.kind, super::CodecErrorKind::OutputLimit, "{name}");
        assert!(out.len() < 2 * ORIGINAL.len(), "{name}");
        assert_eq!(out[..ORIGINAL.len()], *ORIGINAL, "{name}");
        for cut in 0..v.len() {
            let mut o = Vec::new();
            match decompress(&v[..cut], &mut o, 1 << 20) {
                Err(_) => {}
                Ok(n) => assert!(
                    cuts == Cuts::ErrorOrPrefix && n < ORIGINAL.len() && o[..] == ORIGINAL[..n],
                    "{name}: cut at {cut} decodes"
                ),
            }
        }
        (v, e)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn overlapping_copies_repeat_the_pattern() {
        let mut out = b"xxab".to_vec();
        copy_match(&mut out, 2, 2, 5, 100).unwrap();
        assert_eq!(out, b"xxabababa");
        assert_eq!(
            copy_match(&mut out, 2, 8, 1, 100),
            Err(CodecErrorKind::BadDistance)
        );
        assert_eq!(
            copy_match(&mut out, 2, 0, 1, 100),
            Err(CodecErrorKind::BadDistance)
        );
        assert_eq!(
            copy_match(&mut out, 2, 1, 4, 10),
            Err(CodecErrorKind::OutputLimit)
        );
        copy_match(&mut out, 2, 1, 3, 10).unwrap();
        assert_eq!(out.len(), 12);
    }

    #[test]
    fn crc32_of_the_check_string() {
        // The CRC-32 check value of "123456789" (the xz spec's §6 names
        // this CRC; the value is the one every CRC catalogue gives).
        assert_eq!(crc32_ieee(b"123456789"), 0xCBF4_3926);
    }
}
