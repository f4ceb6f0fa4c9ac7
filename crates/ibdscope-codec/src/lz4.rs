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

use crate::common::{
    grow_run, match_copy, words, words16x2, words8x3, CodecErrorKind, Error, Output, Sink,
};

/// Decodes one LZ4 block (all of `input`) and appends the result to `out`,
/// at most `limit` bytes. Returns the bytes produced.
///
/// Sequences away from the ends of the input and the output are decoded
/// by [`fast_run`] and [`common_run`], in words that may run into the
/// sink's slack; the rest one at a time, the end-of-block rules checked.
pub fn decompress(input: &[u8], out: &mut impl Output, limit: usize) -> Result<usize, Error> {
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
/// below `seq_end` and each sequence is whole in the input with 16 bytes
/// to spare after its literals: then no end-of-block rule applies and the
/// copies may run past their ends into the slack, so a sequence costs one
/// check of each end. Most sequences go through [`common_run`]; this loop
/// takes the others (a longer match length extension, a long match under
/// 16 back, or a sequence too near the end of the input or output for
/// `common_run`): literals rounded up to 16 bytes, a match of at most 24
/// bytes at least 8 back as 24 bytes ([`words8x3`]), others through
/// [`match_copy`]. Returns where it stopped, at the start of a sequence
/// that [`block`] decodes (or reports).
#[inline(never)]
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
    // A common sequence starting at or below `lim` writes inside the
    // 64 bytes after its start, inside `buf`, and ends at or before
    // `seq_end`.
    let Some(room) = buf.len().checked_sub(64) else {
        return (ip, op);
    };
    let lim = room.min(seq_end.saturating_sub(32));
    loop {
        (ip, op) = common_run(input, buf, ip, op, lim);
        if op > lim {
            break;
        }
        let Some(&token) = input.get(ip) else {
            break;
        };
        let (mut lit, mut ml) = (usize::from(token >> 4), usize::from(token & 15));
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
        // Committed: the literals (rounded up to 16 bytes), then the match.
        copy16s(input, p, buf, op, lit);
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

/// The common sequences from `ip` on, while `op` ≤ `lim`: a match length
/// extension of one byte at most (and then 16 or more back, the match in
/// 16-byte words ending at or below `lim`), 18 bytes of input at hand, and the sequence ends at or
/// below `lim` + 18 (the caller's `lim` keeps that below the end-of-block
/// rules). Stops before any other sequence, having written nothing past
/// `op` that counts. Literals: up to 14, none included, as one 16-byte
/// word (no branch of its own for an empty run: on the thousands of
/// distinct pages of a real file, a fifth of whose sequences have none,
/// such a branch mispredicts more often than it saves), longer runs in
/// 16-byte words checked once ([`copy16s`]). Matches: with a one-byte length extension (19 to 273
/// bytes, a fifth of the sequences of a page), two 16-byte words for
/// those of at most 32 bytes (most), a loop of them for the rest;
/// otherwise by offset class: 18 or more back
/// as 18 bytes read before any is written (16 + 2; no overlap), 8 to 17
/// back as 24 bytes built in registers ([`words8x3`]), under 8 as a
/// repeated pattern ([`match_copy`]). Every write lands inside the 64
/// bytes after the sequence's end, which `buf` has past `lim`. Its own
/// loop (not inlined), so that its state stays in registers.
#[inline(never)]
fn common_run(
    input: &[u8],
    buf: &mut [u8],
    mut ip: usize,
    mut op: usize,
    lim: usize,
) -> (usize, usize) {
    // Restated where the compiler sees them (so that it drops the checks
    // of the window reads and writes): 64 bytes after `op` are inside
    // `buf`, 18 bytes after `ip` inside `input`.
    let (Some(room), Some(ilim)) = (buf.len().checked_sub(64), input.len().checked_sub(18)) else {
        return (ip, op);
    };
    let lim = lim.min(room);
    while op <= lim && ip <= ilim {
        let Some(win) = input.get(ip..).and_then(|w| w.first_chunk::<18>()) else {
            break;
        };
        let [token, rest @ ..] = win;
        let (mut lit, ml) = (usize::from(token >> 4), usize::from(token & 15));
        let (off, next) = if lit < 15 {
            let (Some(out), Some(lits), Some(off)) = (
                buf.get_mut(op..).and_then(|d| d.first_chunk_mut::<16>()),
                rest.first_chunk::<16>(),
                rest.get(lit..).and_then(|o| o.first_chunk::<2>()),
            ) else {
                break;
            };
            *out = *lits;
            (*off, ip.wrapping_add(lit).wrapping_add(3))
        } else {
            // A long literal run: its length extension, then the run
            // rounded up to 16 bytes (ending at most 15 bytes past it:
            // inside the 18 input bytes that follow, and inside the
            // output's room as the run ends at or below `lim`).
            let mut p = ip.wrapping_add(1);
            let Some(n) = extension(input, &mut p) else {
                break;
            };
            lit = lit.saturating_add(n);
            if lit > lim.wrapping_sub(op) || p > ilim || lit > ilim.wrapping_sub(p) {
                break;
            }
            copy16s(input, p, buf, op, lit);
            let q = p.wrapping_add(lit);
            let Some(off) = input.get(q..).and_then(|o| o.first_chunk::<2>()) else {
                break;
            };
            (*off, q.wrapping_add(2))
        };
        let dist = usize::from(u16::from_le_bytes(off));
        let at = op.wrapping_add(lit);
        if dist.wrapping_sub(1) >= at {
            break;
        }
        if ml == 15 {
            // A long match with a one-byte length extension, 16 or more
            // back: 16-byte words (the last one at most 15 bytes past its
            // end, inside the room as the match ends at or below `lim`).
            // Others are left to the caller.
            let Some(&b) = input.get(next) else {
                break;
            };
            let len = usize::from(b).wrapping_add(19);
            if b == 255 || dist < 16 || at > lim || len > lim.wrapping_sub(at) {
                break;
            }
            let from = at.wrapping_sub(dist);
            if len <= 32 {
                // Most: two words, no loop (the second may read what the
                // first wrote, as an overlapping match does).
                words16x2(buf, from, at);
            } else {
                words::<16>(buf, from, at, len);
            }
            op = at.wrapping_add(len);
            ip = next.wrapping_add(1);
            continue;
        }
        if dist >= 18 {
            // No overlap: all 18 bytes loaded before they are stored.
            let Some(from) = at.checked_sub(dist) else {
                break;
            };
            let Some((head, tail)) = buf.split_at_mut_checked(at) else {
                break;
            };
            let (Some(s), Some(d)) = (
                head.get(from..).and_then(|s| s.first_chunk::<18>()),
                tail.first_chunk_mut::<18>(),
            ) else {
                break;
            };
            *d = *s;
        } else if dist >= 8 {
            words8x3(buf, at.wrapping_sub(dist), dist);
        } else {
            match_copy(buf, at, dist, ml.wrapping_add(4));
        }
        op = at.wrapping_add(ml).wrapping_add(4);
        ip = next;
    }
    (ip, op)
}

/// Copies `len` bytes from `src[s..]` to `dst[d..]` in 16-byte words (the
/// last one up to 15 bytes past both ends, which the callers keep as room
/// after each): both windows checked once, not each word.
#[inline(always)]
fn copy16s(src: &[u8], s: usize, dst: &mut [u8], d: usize, len: usize) {
    let n = len.wrapping_add(15) & !15;
    if let (Some(s), Some(d)) = (
        src.get(s..).and_then(|w| w.get(..n)),
        dst.get_mut(d..).and_then(|w| w.get_mut(..n)),
    ) {
        for (d, s) in d.chunks_exact_mut(16).zip(s.chunks_exact(16)) {
            d.copy_from_slice(s);
        }
    }
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
    use crate::common::ErrorKind;

    /// The block inside `lz4 -9 --no-frame-crc -BD ...` output: see
    /// `tests_vectors`.
    #[test]
    fn reference_block_decodes_to_the_original() {
        check_reference("lz4.block", decompress, Cuts::ErrorOrPrefix);
    }

    /// A byte-at-a-time LZ4 block decoder: the format's definition, for
    /// checking the word-at-a-time loops against.
    fn plain_decode(input: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut ip = 0;
        let ext = |ip: &mut usize| {
            let mut n = 0;
            loop {
                let b = input[*ip];
                *ip += 1;
                n += usize::from(b);
                if b != 255 {
                    return n;
                }
            }
        };
        loop {
            let token = input[ip];
            ip += 1;
            let mut lit = usize::from(token >> 4);
            if lit == 15 {
                lit += ext(&mut ip);
            }
            out.extend_from_slice(&input[ip..ip + lit]);
            ip += lit;
            if ip == input.len() {
                return out;
            }
            let dist = usize::from(u16::from_le_bytes([input[ip], input[ip + 1]]));
            ip += 2;
            let mut ml = usize::from(token & 15);
            if ml == 15 {
                ml += ext(&mut ip);
            }
            for _ in 0..ml + 4 {
                out.push(out[out.len() - dist]);
            }
        }
    }

    /// Appends a length extension for `n` (the nibble was 15).
    fn push_ext(v: &mut Vec<u8>, mut n: usize) {
        while n >= 255 {
            v.push(255);
            n -= 255;
        }
        v.push(n as u8);
    }

    /// Appends one sequence: `lit` literal bytes, then a match of `ml`
    /// bytes `dist` back (`ml` 0: literals only, the block's end).
    fn push_seq(v: &mut Vec<u8>, lits: &[u8], dist: usize, ml: usize) {
        let l = lits.len();
        let m = if ml == 0 { 0 } else { ml - 4 };
        v.push(((l.min(15) as u8) << 4) | m.min(15) as u8);
        if l >= 15 {
            push_ext(v, l - 15);
        }
        v.extend_from_slice(lits);
        if ml == 0 {
            return;
        }
        v.extend_from_slice(&(dist as u16).to_le_bytes());
        if m >= 15 {
            push_ext(v, m - 15);
        }
    }

    /// Random valid blocks, each sequence's literal length, match length
    /// and offset drawn over every class the fast loops tell apart (no
    /// literals, up to 14, runs with an extension; offsets under 8, 8 to
    /// 23, 24 and more; matches up to 18 bytes and longer, overlapping
    /// their own output), decode as the byte-at-a-time definition does.
    #[test]
    fn word_loops_decode_as_the_definition() {
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        let mut next = move |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n) as usize
        };
        for round in 0..300 {
            let mut v = Vec::new();
            let mut produced = 0;
            let target = 200 + next(20_000);
            while produced < target {
                let lit = match next(10) {
                    0..=5 => 0,
                    6 | 7 => 1 + next(14),
                    _ => 15 + next(300),
                };
                let lits: Vec<u8> = (0..lit).map(|_| b'a' + next(26) as u8).collect();
                produced += lit;
                if produced == 0 {
                    continue;
                }
                let dist = match next(3) {
                    0 => 1 + next(7),
                    1 => 8 + next(16),
                    _ => 24 + next(400),
                }
                .min(produced);
                let ml = if next(8) == 0 {
                    19 + next(600)
                } else {
                    4 + next(15)
                };
                push_seq(&mut v, &lits, dist, ml);
                produced += ml;
            }
            let tail: Vec<u8> = (0..12 + next(30)).map(|_| b'A' + next(26) as u8).collect();
            push_seq(&mut v, &tail, 0, 0);
            let want = plain_decode(&v);
            for limit in [want.len(), want.len() + 1000] {
                let mut out = vec![9u8; 3];
                let n = decompress(&v, &mut out, limit).unwrap();
                assert_eq!(n, want.len(), "round {round}");
                assert!(out[3..] == want[..], "round {round} limit {limit}");
            }
        }
    }

    /// A valid prefix long enough that what follows it is reached by the
    /// fast loops: 600 sequences of 4 literals and a 12-byte match.
    fn fast_prefix() -> (Vec<u8>, usize) {
        let mut v = Vec::new();
        push_seq(&mut v, b"0123456789abcdefghijklmnopqrstuv", 32, 12);
        for i in 0..600u32 {
            push_seq(&mut v, &i.to_le_bytes(), 24 + (i as usize % 20), 12);
        }
        let produced = plain_decode(&{
            let mut w = v.clone();
            push_seq(&mut w, b"", 0, 0);
            w
        })
        .len();
        (v, produced)
    }

    /// Malformed sequences where the fast loops meet them (a long valid
    /// prefix before, 40 bytes of input after): each is the error the
    /// one-at-a-time path gives, never a panic, never more than the limit.
    #[test]
    fn malformed_sequences_in_the_fast_loops_are_errors() {
        let (prefix, produced) = fast_prefix();
        let pad = [0x11u8; 40];
        let run = |bad: &[u8]| {
            let mut v = prefix.clone();
            v.extend_from_slice(bad);
            v.extend_from_slice(&pad);
            let mut out = Vec::new();
            let e = decompress(&v, &mut out, 16384).unwrap_err();
            assert!(out.len() <= 16384);
            e
        };
        let at = prefix.len();
        // Offset 0, after no literals and after 3.
        let e = run(&[0x00, 0, 0]);
        assert_eq!(
            (e.kind, e.offset),
            (ErrorKind::Stream(CodecErrorKind::BadDistance), at + 1)
        );
        let e = run(&[0x30, b'x', b'y', b'z', 0, 0]);
        assert_eq!(
            (e.kind, e.offset),
            (ErrorKind::Stream(CodecErrorKind::BadDistance), at + 4)
        );
        // One byte before the start of the output, at each offset class
        // of the loops (the output is far longer than 8 or 24 bytes, so
        // only a distance past the start is wrong).
        let far = u16::try_from(produced + 1).unwrap().to_le_bytes();
        let e = run(&[0x05, far[0], far[1]]);
        assert_eq!(
            (e.kind, e.offset),
            (ErrorKind::Stream(CodecErrorKind::BadDistance), at + 1)
        );
        // The same after a long literal run (a length extension).
        let mut bad = vec![0xF0, 5];
        bad.extend([b'q'; 20]);
        let far = u16::try_from(produced + 21).unwrap().to_le_bytes();
        bad.extend(far);
        let e = run(&bad);
        assert_eq!(
            (e.kind, e.offset),
            (ErrorKind::Stream(CodecErrorKind::BadDistance), at + 22)
        );
        // A literal run longer than the input left.
        let e = run(&[0xF0, 200]);
        assert_eq!(e.kind, ErrorKind::Stream(CodecErrorKind::Truncated));
        // Lengths that overflow what any page holds: a literal run of
        // 255 × 5000 bytes (past the input), a match of 255 × 300 (past
        // the limit).
        let mut bad = vec![0xF0];
        bad.extend([255; 5000]);
        bad.push(0);
        let e = run(&bad);
        assert_eq!(e.kind, ErrorKind::Stream(CodecErrorKind::Truncated));
        let mut bad = vec![0x0F, 8, 0];
        bad.extend([255; 300]);
        bad.push(0);
        let e = run(&bad);
        assert_eq!(e.kind, ErrorKind::Stream(CodecErrorKind::OutputLimit));
        // The prefix itself with its last sequence's literals ends the
        // block: it decodes (the loops stop where the input does).
        let mut v = prefix.clone();
        push_seq(&mut v, b"end of block!", 0, 0);
        let mut out = Vec::new();
        decompress(&v, &mut out, 16384).unwrap();
        assert_eq!(out, plain_decode(&v));
    }

    /// Long matches with a one-byte length extension (the common loop
    /// takes those 16 or more back, the fast loop the others) decode as
    /// the definition; with the limit short of the output, each is an
    /// error that writes nothing past the limit, never a panic.
    #[test]
    fn long_matches_in_the_fast_loops() {
        let (mut v, _) = fast_prefix();
        for i in 0..40usize {
            let lits = [b'x', b'y', b'z'];
            let dist = [16, 17, 40, 300, 9][i % 5];
            push_seq(&mut v, &lits[..i % 3], dist, 19 + (i * 37) % 250);
        }
        push_seq(&mut v, b"the last literals", 0, 0);
        let want = plain_decode(&v);
        let mut out = Vec::new();
        assert_eq!(decompress(&v, &mut out, want.len()).unwrap(), want.len());
        assert_eq!(out, want);
        for short in [1, 5, 13, 100, 1000] {
            let mut out = Vec::new();
            let limit = want.len() - short;
            assert!(decompress(&v, &mut out, limit).is_err(), "short {short}");
            assert!(out.len() <= limit && out[..] == want[..out.len()]);
        }
    }

    /// Matches of 19 to 32 bytes (a one-byte length extension), which the
    /// common loop copies as two 16-byte words whatever their length, at
    /// every offset from 16 (each word reads what the one before wrote)
    /// to 40, behind every literal run up to 33 bytes: as the definition.
    #[test]
    fn short_extended_matches_decode_as_the_definition() {
        let (mut v, _) = fast_prefix();
        let mut i = 0usize;
        for dist in 16..=40 {
            for ml in 19..=32 {
                let lits: Vec<u8> = (0..i % 34).map(|k| b'a' + ((i + k) % 26) as u8).collect();
                push_seq(&mut v, &lits, dist, ml);
                i += 7;
            }
        }
        push_seq(&mut v, b"the last literals", 0, 0);
        let want = plain_decode(&v);
        let mut out = crate::PageOut::new();
        out.window(0, want.len() + 64).fill(0xA5);
        assert_eq!(decompress(&v, &mut out, want.len()).unwrap(), want.len());
        assert!(out.bytes() == &want[..]);
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
