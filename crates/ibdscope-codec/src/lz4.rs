//! LZ4 block format, as `LZ4_decompress_safe` reads it (MariaDB calls it
//! with `compressedSize` = the page's payload length and
//! `dstCapacity` = the page size, and requires exactly one page back).
//!
//! Source: lz4 `doc/lz4_Block_format.md` (the LZ4 Block Format
//! Description, v1.6.x). A block is a series of sequences:
//!
//! | field | size | meaning |
//! |---|---|---|
//! | token | 1 | high 4 bits: literal length; low 4 bits: match length − 4 |
//! | literal length + | 0..n | when the high nibble is 15: bytes added while each is 255 |
//! | literals | length | copied |
//! | offset | 2 | little-endian, 1..65535: distance back in the output (0 is invalid) |
//! | match length + | 0..n | when the low nibble is 15: bytes added while each is 255 |
//!
//! The last sequence has literals only: the block ends right after them.
//! A match may overlap its own output (offset < length). The format's end
//! of block rules, as `LZ4_decompress_safe` applies them against its
//! output capacity (here `limit`): the last 5 bytes of the output are
//! literals (a match may not end past `limit − 5`), and a sequence whose
//! literals end past `limit − 12` must be the last.

use crate::common::{copy_match, push_literals, CodecError, CodecErrorKind};

/// Decodes one LZ4 block (all of `input`) and appends the result to `out`,
/// at most `limit` bytes. Returns the bytes produced.
pub fn decompress(input: &[u8], out: &mut Vec<u8>, limit: usize) -> Result<usize, CodecError> {
    let start = out.len();
    let mut ip = 0usize;
    let err = |kind, at| CodecError::new(kind, at);
    loop {
        let Some(&token) = input.get(ip) else {
            return Err(err(CodecErrorKind::Truncated, ip));
        };
        ip = ip.saturating_add(1);
        let mut lit = usize::from(token >> 4);
        if lit == 15 {
            lit = lit.saturating_add(extra_length(input, &mut ip)?);
        }
        let end = ip.saturating_add(lit);
        let Some(literals) = input.get(ip..end) else {
            return Err(err(CodecErrorKind::Truncated, input.len()));
        };
        push_literals(out, start, literals, limit).map_err(|k| err(k, ip))?;
        ip = end;
        if ip == input.len() {
            return Ok(out.len().saturating_sub(start));
        }
        if out.len().saturating_sub(start) > limit.saturating_sub(MFLIMIT) {
            return Err(err(CodecErrorKind::BadData, ip));
        }
        let (Some(&lo), Some(&hi)) = (input.get(ip), input.get(ip.saturating_add(1))) else {
            return Err(err(CodecErrorKind::Truncated, input.len()));
        };
        let at = ip;
        ip = ip.saturating_add(2);
        let dist = usize::from(u16::from_le_bytes([lo, hi]));
        let mut len = usize::from(token & 15);
        if len == 15 {
            len = len.saturating_add(extra_length(input, &mut ip)?);
        }
        copy_match(out, start, dist, len.saturating_add(4), limit).map_err(|k| err(k, at))?;
        if out.len().saturating_sub(start) > limit.saturating_sub(LASTLITERALS) {
            return Err(err(CodecErrorKind::BadData, at));
        }
    }
}

/// The last 5 output bytes are literals.
const LASTLITERALS: usize = 5;
/// The last match starts at least 12 bytes before the end.
const MFLIMIT: usize = 12;

/// The bytes of a length extension: each is added, and a 255 means another
/// follows.
fn extra_length(input: &[u8], ip: &mut usize) -> Result<usize, CodecError> {
    let mut n = 0usize;
    loop {
        let Some(&b) = input.get(*ip) else {
            return Err(CodecError::new(CodecErrorKind::Truncated, *ip));
        };
        *ip = ip.saturating_add(1);
        n = n.saturating_add(usize::from(b));
        if b != 255 {
            return Ok(n);
        }
    }
}

#[cfg(test)]
#[allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)]
mod tests {
    use super::*;
    use crate::common::tests_vectors::{check_reference, Cuts};

    /// The block inside `lz4 -9 --no-frame-crc -BD ...` output: see
    /// `tests_vectors`.
    #[test]
    fn reference_block_decodes_to_the_original() {
        check_reference("lz4.block", decompress, Cuts::ErrorOrPrefix);
    }

    #[test]
    fn bad_offsets_and_bombs_are_errors() {
        let mut out = Vec::new();
        // One literal 'a', then a match at offset 2: before the start.
        let e = decompress(&[0x10, b'a', 2, 0, 0x00], &mut out, 100).unwrap_err();
        assert_eq!((e.kind, e.offset), (CodecErrorKind::BadDistance, 2));
        // Offset 0.
        out.clear();
        let e = decompress(&[0x10, b'a', 0, 0], &mut out, 100).unwrap_err();
        assert_eq!(e.kind, CodecErrorKind::BadDistance);
        // A match of 4 + 15 + 255*200 bytes: refused at the limit.
        out.clear();
        let mut bomb = vec![0x1F, b'a', 1, 0];
        bomb.extend([255; 200]);
        bomb.extend([0, 0x50, 1, 2, 3, 4, 5]);
        let e = decompress(&bomb, &mut out, 16384).unwrap_err();
        assert_eq!(e.kind, CodecErrorKind::OutputLimit);
        assert!(out.len() <= 16384);
        // The same with room decodes, overlapping.
        out.clear();
        decompress(&bomb, &mut out, 1 << 20).unwrap();
        assert_eq!(out.len(), 1 + 4 + 15 + 255 * 200 + 5);
        assert!(out[..out.len() - 5].iter().all(|&b| b == b'a'));
        // A match into the last 5 bytes of the capacity.
        out.clear();
        let e = decompress(&bomb, &mut out, 1 + 4 + 15 + 255 * 200 + 4).unwrap_err();
        assert_eq!((e.kind, e.offset), (CodecErrorKind::BadData, 2));
    }
}
