//! Raw Snappy, as `snappy_uncompress` reads it (MariaDB passes the page's
//! payload length and requires exactly one page back).
//!
//! Source: google/snappy `format_description.txt`. The stream starts with
//! the uncompressed length as a little-endian base-128 varint (at most 32
//! bits), then elements, each starting with a tag byte whose low 2 bits
//! say what it is:
//!
//! | tag & 3 | element | length | offset |
//! |---|---|---|---|
//! | 0 | literal | (tag >> 2) + 1 when below 61; tag >> 2 = 60..63: 1..4 little-endian bytes hold length − 1 | — |
//! | 1 | copy, 1-byte offset | ((tag >> 2) & 7) + 4 | (tag >> 5) << 8 · next byte (11 bits) |
//! | 2 | copy, 2-byte offset | (tag >> 2) + 1 | next 2 bytes, little-endian |
//! | 3 | copy, 4-byte offset | (tag >> 2) + 1 | next 4 bytes, little-endian |
//!
//! A copy may overlap its own output; offset 0 is invalid. The elements
//! must produce exactly the stated length.

use crate::common::{
    grow_run, match_copy, words16x2, words8x3, CodecErrorKind, Error, Output, Sink,
};

/// Decodes a raw Snappy stream (all of `input`), appending at most `limit`
/// bytes to `out`. Returns the bytes produced.
pub fn decompress(input: &[u8], out: &mut impl Output, limit: usize) -> Result<usize, Error> {
    let err = |kind, at| Error::new(kind, at);
    let (stated, ip) = varint(input)?;
    if stated > limit {
        return Err(err(CodecErrorKind::OutputLimit, 0));
    }
    grow_run(
        out,
        stated,
        stated,
        |_: &Error| false,
        |out| elements(input, ip, out, stated),
    )
}

/// The elements after the preamble (from `ip`), into one sink of exactly
/// the stated size.
fn elements(
    input: &[u8],
    mut ip: usize,
    out: &mut Sink<'_>,
    stated: usize,
) -> Result<usize, Error> {
    let err = |kind, at| Error::new(kind, at);
    // An element that starts at or below this output position fits (at
    // most 64 bytes, its words' overrun in the slack).
    let seq_end = stated.saturating_sub(64);
    while ip < input.len() {
        (ip, out.pos) = fast_run(input, out.buf, ip, out.pos, seq_end);
        let Some(&tag) = input.get(ip) else {
            break;
        };
        let at = ip;
        ip = ip.saturating_add(1);
        let (dist, len) = match tag & 3 {
            0 => {
                let mut len = usize::from(tag >> 2);
                // Up to 16 literals with 16 input bytes at hand: one word.
                if len < 16 {
                    if let Some(w) = input.get(ip..ip.saturating_add(16)) {
                        out.literals16(w, len.saturating_add(1))
                            .map_err(|k| err(k, at))?;
                        ip = ip.saturating_add(len).saturating_add(1);
                        continue;
                    }
                }
                if len >= 60 {
                    let n = len.saturating_sub(59);
                    let Some(b) = input.get(ip..ip.saturating_add(n)) else {
                        return Err(err(CodecErrorKind::Truncated, input.len()));
                    };
                    len = b.iter().rev().fold(0usize, |a, &x| a << 8 | usize::from(x));
                    ip = ip.saturating_add(n);
                }
                let end = ip.saturating_add(len).saturating_add(1);
                let Some(lit) = input.get(ip..end) else {
                    return Err(err(CodecErrorKind::Truncated, input.len()));
                };
                out.literals(lit).map_err(|k| err(k, at))?;
                ip = end;
                continue;
            }
            1 => {
                let Some(&b) = input.get(ip) else {
                    return Err(err(CodecErrorKind::Truncated, input.len()));
                };
                ip = ip.saturating_add(1);
                let dist = usize::from(tag >> 5) << 8 | usize::from(b);
                (dist, usize::from((tag >> 2) & 7).saturating_add(4))
            }
            k => {
                let n = if k == 2 { 2 } else { 4 };
                let Some(b) = input.get(ip..ip.saturating_add(n)) else {
                    return Err(err(CodecErrorKind::Truncated, input.len()));
                };
                ip = ip.saturating_add(n);
                let dist = b.iter().rev().fold(0usize, |a, &x| a << 8 | usize::from(x));
                (dist, usize::from(tag >> 2).saturating_add(1))
            }
        };
        out.copy_short(dist, len).map_err(|k| err(k, at))?;
    }
    let got = out.produced();
    if got != stated {
        return Err(err(CodecErrorKind::LengthMismatch, input.len()));
    }
    Ok(got)
}

/// Decodes elements from `ip` into `buf` at `op` while the output is at
/// or below `seq_end` and the element is a literal of at most 16 bytes, a
/// 1-byte-offset copy or a 2-byte-offset copy with its bytes (and 16
/// more) in the input: one check of each end per element, literals as one
/// 16-byte word, copies in words. Returns where it stopped, at the start
/// of an element that [`elements`] decodes (or reports).
fn fast_run(
    input: &[u8],
    buf: &mut [u8],
    mut ip: usize,
    mut op: usize,
    seq_end: usize,
) -> (usize, usize) {
    // Wrapping arithmetic on positions bounded by `input.len()` and
    // `seq_end`; the `get`s check anyway.
    while op <= seq_end {
        let Some(win) = input.get(ip..).and_then(|w| w.first_chunk::<17>()) else {
            break;
        };
        let [tag, rest @ ..] = win;
        let tag = *tag;
        let (dist, len, used) = match tag & 3 {
            0 => {
                let len = usize::from(tag >> 2).wrapping_add(1);
                if len <= 16 {
                    if let Some(d) = buf.get_mut(op..).and_then(|d| d.first_chunk_mut::<16>()) {
                        *d = *rest;
                    }
                } else if len <= 60 {
                    // Up to 60 literals in words of 16, with 16 input bytes
                    // to spare after them.
                    let from = ip.wrapping_add(1);
                    if input.len().wrapping_sub(from) < len.wrapping_add(16) {
                        break;
                    }
                    let mut k = 0;
                    while k < len {
                        let s = input
                            .get(from.wrapping_add(k)..)
                            .and_then(|s| s.first_chunk::<16>());
                        let d = buf
                            .get_mut(op.wrapping_add(k)..)
                            .and_then(|d| d.first_chunk_mut::<16>());
                        if let (Some(s), Some(d)) = (s, d) {
                            *d = *s;
                        }
                        k = k.wrapping_add(16);
                    }
                } else {
                    break;
                }
                op = op.wrapping_add(len);
                ip = ip.wrapping_add(len).wrapping_add(1);
                continue;
            }
            3 => break,
            k => {
                // A copy with a 1- or 2-byte offset: both read, the one
                // the tag names chosen without a branch (a jump on the
                // tag's kind is mispredicted often: the kinds come mixed).
                let one = k == 1;
                let dist1 = usize::from(tag >> 5) << 8 | usize::from(rest[0]);
                let dist2 = usize::from(u16::from_le_bytes([rest[0], rest[1]]));
                let len1 = usize::from((tag >> 2) & 7).wrapping_add(4);
                let len2 = usize::from(tag >> 2).wrapping_add(1);
                (
                    if one { dist1 } else { dist2 },
                    if one { len1 } else { len2 },
                    3usize.wrapping_sub(usize::from(one)),
                )
            }
        };
        if dist == 0 || dist > op {
            break;
        }
        if dist >= 8 && len <= 24 {
            words8x3(buf, op.wrapping_sub(dist), dist);
        } else if dist >= 16 && len <= 32 {
            // Two 16-byte words, no loop (the second may read what the
            // first wrote, as an overlapping copy does).
            let from = op.wrapping_sub(dist);
            words16x2(buf, from, op);
        } else {
            match_copy(buf, op, dist, len);
        }
        op = op.wrapping_add(len);
        ip = ip.wrapping_add(used);
    }
    (ip, op)
}

/// The preamble: a varint of at most 5 bytes holding at most 32 bits.
fn varint(input: &[u8]) -> Result<(usize, usize), Error> {
    let mut v = 0u64;
    for (i, &b) in input.iter().take(5).enumerate() {
        v |= u64::from(b & 0x7f) << (7u32.wrapping_mul(i as u32));
        if b & 0x80 == 0 {
            let v = u32::try_from(v).map_err(|_| Error::new(CodecErrorKind::BadHeader, i))?;
            return Ok((v as usize, i.saturating_add(1)));
        }
    }
    let kind = if input.len() < 5 {
        CodecErrorKind::Truncated
    } else {
        CodecErrorKind::BadHeader
    };
    Err(Error::new(kind, input.len().min(5)))
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

    #[test]
    fn reference_stream_decodes_to_the_original() {
        // The stated length is over the limit: refused at its varint.
        let (_, e) = check_reference("snappy.raw", decompress, Cuts::Error);
        assert_eq!((e.sk(), e.offset), (CodecErrorKind::OutputLimit, 0));
    }

    #[test]
    fn elements_of_every_kind() {
        // 11 bytes: literal "abc" (tag 0x08), copy1 len 4 dist 3 (tag
        // 0x01), copy2 len 2 dist 1 (tag 0x06), copy4 len 2 dist 10
        // (tag 0x07): the format description's element layouts.
        let s = [
            11, 0x08, b'a', b'b', b'c', 0x01, 3, 0x06, 1, 0, 0x07, 10, 0, 0, 0,
        ];
        let mut out = Vec::new();
        // copy4 reaches 10 back with only 9 bytes out: refused.
        let e = decompress(&s, &mut out, 100).unwrap_err();
        assert_eq!((e.sk(), e.offset), (CodecErrorKind::BadDistance, 10));
        let s = [
            11, 0x08, b'a', b'b', b'c', 0x01, 3, 0x06, 1, 0, 0x07, 9, 0, 0, 0,
        ];
        out.clear();
        assert_eq!(decompress(&s, &mut out, 100).unwrap(), 11);
        assert_eq!(out, b"abcabcaaaab");
        // Stated length larger than the limit, or than what is produced.
        out.clear();
        assert_eq!(
            decompress(&s, &mut out, 10).unwrap_err().sk(),
            CodecErrorKind::OutputLimit
        );
        let mut t = s;
        t[0] = 12;
        out.clear();
        assert_eq!(
            decompress(&t, &mut out, 100).unwrap_err().sk(),
            CodecErrorKind::LengthMismatch
        );
        // Long literal lengths (tag 60: one length byte).
        let mut l = vec![70, 60 << 2, 69];
        l.extend([b'z'; 70]);
        out.clear();
        assert_eq!(decompress(&l, &mut out, 100).unwrap(), 70);
        for cut in 0..l.len() {
            out.clear();
            assert!(decompress(&l[..cut], &mut out, 100).is_err());
        }
        // A 6-byte varint and a 33-bit one.
        assert!(decompress(&[0x80; 6], &mut out, 100).is_err());
        assert!(decompress(&[0xff, 0xff, 0xff, 0xff, 0x1f], &mut out, 1 << 40).is_err());
    }

    /// Random valid streams of every element kind (literals of 1 to 70
    /// bytes, 1- and 2-byte-offset copies of every length at offsets
    /// under 8, 8 to 23, 24 and more, overlapping their own output, and
    /// 4-byte-offset copies), decoded by the word loops into a buffer
    /// full of noise: as the format description's definition, one byte
    /// at a time.
    #[test]
    fn word_loops_decode_as_the_definition() {
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n) as usize
        };
        for round in 0..200 {
            let mut body = Vec::new();
            let mut want: Vec<u8> = Vec::new();
            let target = 100 + next(16_000);
            while want.len() < target {
                if want.is_empty() || next(3) == 0 {
                    let n = 1 + next(70);
                    if n <= 60 {
                        body.push(((n - 1) << 2) as u8);
                    } else {
                        body.extend([60 << 2, (n - 1) as u8]);
                    }
                    for _ in 0..n {
                        let b = b'a' + next(26) as u8;
                        body.push(b);
                        want.push(b);
                    }
                    continue;
                }
                let dist = match next(3) {
                    0 => 1 + next(7),
                    1 => 8 + next(16),
                    _ => 24 + next(3000),
                }
                .min(want.len());
                let len = match next(4) {
                    0 if dist < 2048 => {
                        let len = 4 + next(8);
                        body.extend([
                            0x01 | ((len - 4) << 2) as u8 | ((dist >> 8) << 5) as u8,
                            dist as u8,
                        ]);
                        len
                    }
                    1 => {
                        let len = 1 + next(64);
                        body.push(0x03 | ((len - 1) << 2) as u8);
                        body.extend((dist as u32).to_le_bytes());
                        len
                    }
                    _ => {
                        let len = 1 + next(64);
                        body.push(0x02 | ((len - 1) << 2) as u8);
                        body.extend((dist as u16).to_le_bytes());
                        len
                    }
                };
                for _ in 0..len {
                    want.push(want[want.len() - dist]);
                }
            }
            let mut s = Vec::new();
            let mut n = want.len();
            while n >= 0x80 {
                s.push((n as u8) | 0x80);
                n >>= 7;
            }
            s.push(n as u8);
            s.extend(&body);
            let mut out = crate::PageOut::new();
            out.window(0, want.len() + 64).fill(0xA5);
            assert_eq!(decompress(&s, &mut out, want.len()).unwrap(), want.len());
            assert!(out.bytes() == &want[..], "round {round}");
        }
    }
}
