//! What the provider decoders share: the error type, the reused tables
//! ([`Scratch`]), bounded copies into the output and the `.xz` CRC-32.

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
            .join("src/testdata")
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
