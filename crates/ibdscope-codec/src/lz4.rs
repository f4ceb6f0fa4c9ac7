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

use crate::common::{grow_run, match_copy, words8x3, CodecErrorKind, Error, Sink};

/// Decodes one LZ4 block (all of `input`) and appends the result to `out`,
/// at most `limit` bytes. Returns the bytes produced.
///
/// The common sequence (at most 14 literals, a match of at most 18 bytes,
/// 16 input bytes at hand) moves its literals as one 16-byte word and its
/// match in words ([`Sink::copy`]), after one room check each.
pub fn decompress(input: &[u8], out: &mut Vec<u8>, limit: usize) -> Result<usize, Error> {
    let hint = input.len().saturating_mul(4);
    grow_run(out, limit, hint, is_limit, |out| block(input, out, limit))
}

fn is_limit(e: &Error) -> bool {
    e.kind == crate::common::ErrorKind::Stream(CodecErrorKind::OutputLimit)
}

/// [`decompress`] into one sink.
fn block(input: &[u8], out: &mut Sink<'_>, limit: usize) -> Result<usize, Error> {
    let mut ip = 0usize;
    let err = |kind, at| Error::new(kind, at);
    // A sequence that ends at or below this position passes neither
    // end-of-block rule nor the sink's end.
    let seq_end = limit.min(out.end).saturating_sub(FAST_MARGIN);
    loop {
        (ip, out.pos) = fast_run(input, out.buf, ip, out.pos, seq_end);
        let Some(&token) = input.get(ip) else {
            return Err(err(CodecErrorKind::Truncated, ip));
        };
        ip = ip.saturating_add(1);
        let mut lit = usize::from(token >> 4);
        if lit == 15 {
            lit = lit.saturating_add(extra_length(input, &mut ip)?);
        }
        let end = ip.saturating_add(lit);
        let Some(rest) = input.get(ip..) else {
            return Err(err(CodecErrorKind::Truncated, input.len()));
        };
        // 16 literal bytes at hand and the 2 offset bytes after them: one
        // word (the literals' end is inside the input, so this is no cut).
        if lit <= 14 && rest.len() >= 16 {
            out.literals16(rest, lit).map_err(|k| err(k, ip))?;
        } else {
            let Some(literals) = rest.get(..lit) else {
                return Err(err(CodecErrorKind::Truncated, input.len()));
            };
            out.literals(literals).map_err(|k| err(k, ip))?;
        }
        ip = end;
        if ip == input.len() {
            return Ok(out.produced());
        }
        if out.produced() > limit.saturating_sub(MFLIMIT) {
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
        out.copy(dist, len.saturating_add(4))
            .map_err(|k| err(k, at))?;
        if out.produced() > limit.saturating_sub(LASTLITERALS) {
            return Err(err(CodecErrorKind::BadData, at));
        }
    }
}

/// The last 5 output bytes are literals.
const LASTLITERALS: usize = 5;
/// The last match starts at least 12 bytes before the end.
const MFLIMIT: usize = 12;
/// Room [`fast_run`] keeps before the end: its copies run up to 16 bytes
/// past a sequence's end (words of 16), and its end-of-block rules (12
/// bytes) need it below.
const FAST_MARGIN: usize = 32;

/// Decodes sequences from `ip` into `buf` at `op` while the output is
/// below `fast_end` and each sequence is whole in the input with 16 bytes
/// to spare after its literals: then no end-of-block rule applies and the
/// copies may run past their ends into the slack, so a sequence costs one
/// check of each end. Literals move in 16-byte words; a match of at most
/// 24 bytes at least 8 back as 24 bytes ([`words8x3`]), others through
/// [`match_copy`]. Returns where it stopped, at the start of a sequence
/// that [`block`] decodes (or reports).
fn fast_run(
    input: &[u8],
    buf: &mut [u8],
    mut ip: usize,
    mut op: usize,
    seq_end: usize,
) -> (usize, usize) {
    // Wrapping arithmetic on positions bounded by `input.len()` and
    // `seq_end` (far below usize::MAX); the `get`s check anyway.
    // The literals end at or before this, so the offset and 16 bytes more
    // are in the input.
    let lit_end = input.len().saturating_sub(18);
    // A sequence of at most 14 literals and an 18-byte match from here
    // ends at or before `seq_end`.
    while op <= seq_end.saturating_sub(32) {
        let Some(win) = input.get(ip..).and_then(|w| w.first_chunk::<18>()) else {
            break;
        };
        let [token, rest @ ..] = win;
        let (mut lit, mut ml) = (usize::from(token >> 4), usize::from(token & 15));
        if lit < 15 && ml < 15 {
            // The common sequence: all of it inside `win`.
            let (Some(lits), Some(&lo), Some(&hi)) = (
                rest.first_chunk::<16>(),
                rest.get(lit),
                rest.get(lit.wrapping_add(1)),
            ) else {
                break;
            };
            let dist = usize::from(u16::from_le_bytes([lo, hi]));
            let at = op.wrapping_add(lit);
            if dist == 0 || dist > at {
                break;
            }
            if lit != 0 {
                let Some(d) = buf.get_mut(op..).and_then(|d| d.first_chunk_mut::<16>()) else {
                    break;
                };
                *d = *lits;
            }
            ml = ml.wrapping_add(4);
            if dist >= 8 {
                words8x3(buf, at.wrapping_sub(dist), dist);
            } else {
                match_copy(buf, at, dist, ml);
            }
            op = at.wrapping_add(ml);
            ip = ip.wrapping_add(lit).wrapping_add(3);
            continue;
        }
        let mut p = ip.wrapping_add(1);
        if lit == 15 {
            let Some(n) = extension(input, &mut p) else {
                break;
            };
            lit = lit.saturating_add(n);
        }
        if lit > seq_end.wrapping_sub(op) || lit > lit_end.saturating_sub(p) || p > lit_end {
            break;
        }
        let at = op.wrapping_add(lit);
        let q = p.wrapping_add(lit);
        let (Some(&lo), Some(&hi)) = (input.get(q), input.get(q.wrapping_add(1))) else {
            break;
        };
        let dist = usize::from(u16::from_le_bytes([lo, hi]));
        if dist == 0 || dist > at {
            break;
        }
        let mut r = q.wrapping_add(2);
        if ml == 15 {
            let Some(n) = extension(input, &mut r) else {
                break;
            };
            ml = ml.saturating_add(n);
        }
        let ml = ml.saturating_add(4);
        if ml > seq_end.wrapping_sub(at) {
            break;
        }
        // Committed: the literals in words, then the match.
        let mut k = 0;
        while k < lit {
            let s = p.wrapping_add(k);
            let d = op.wrapping_add(k);
            match (
                input.get(s..).and_then(|w| w.first_chunk::<16>()),
                buf.get_mut(d..).and_then(|w| w.first_chunk_mut::<16>()),
            ) {
                (Some(s), Some(d)) => *d = *s,
                _ => break,
            }
            k = k.wrapping_add(16);
        }
        if dist >= 8 && ml <= 24 {
            words8x3(buf, at.wrapping_sub(dist), dist);
        } else {
            match_copy(buf, at, dist, ml);
        }
        op = at.wrapping_add(ml);
        ip = r;
    }
    (ip, op)
}

/// A length extension inside `input` from `*p` (each byte added, 255 means
/// another follows); `None` when it runs off the input.
#[inline(always)]
fn extension(input: &[u8], p: &mut usize) -> Option<usize> {
    let mut n = 0usize;
    loop {
        let b = *input.get(*p)?;
        *p = p.wrapping_add(1);
        n = n.saturating_add(usize::from(b));
        if b != 255 {
            return Some(n);
        }
    }
}

/// The bytes of a length extension: each is added, and a 255 means another
/// follows.
fn extra_length(input: &[u8], ip: &mut usize) -> Result<usize, Error> {
    let mut n = 0usize;
    loop {
        let Some(&b) = input.get(*ip) else {
            return Err(Error::new(CodecErrorKind::Truncated, *ip));
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
        assert_eq!((e.sk(), e.offset), (CodecErrorKind::BadDistance, 2));
        // Offset 0.
        out.clear();
        let e = decompress(&[0x10, b'a', 0, 0], &mut out, 100).unwrap_err();
        assert_eq!(e.sk(), CodecErrorKind::BadDistance);
        // A match of 4 + 15 + 255*200 bytes: refused at the limit.
        out.clear();
        let mut bomb = vec![0x1F, b'a', 1, 0];
        bomb.extend([255; 200]);
        bomb.extend([0, 0x50, 1, 2, 3, 4, 5]);
        let e = decompress(&bomb, &mut out, 16384).unwrap_err();
        assert_eq!(e.sk(), CodecErrorKind::OutputLimit);
        assert!(out.len() <= 16384);
        // The same with room decodes, overlapping.
        out.clear();
        decompress(&bomb, &mut out, 1 << 20).unwrap();
        assert_eq!(out.len(), 1 + 4 + 15 + 255 * 200 + 5);
        assert!(out[..out.len() - 5].iter().all(|&b| b == b'a'));
        // A match into the last 5 bytes of the capacity.
        out.clear();
        let e = decompress(&bomb, &mut out, 1 + 4 + 15 + 255 * 200 + 4).unwrap_err();
        assert_eq!((e.sk(), e.offset), (CodecErrorKind::BadData, 2));
    }
}
