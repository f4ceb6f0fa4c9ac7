//! LZO1X, as `lzo1x_decompress_safe` reads it: MariaDB 10.11 passes the
//! page's payload length and an output capacity of one page, and requires
//! `LZO_E_OK` with exactly one page out. The compressor is
//! `lzo1x_1_15_compress`; every LZO1X compressor writes this one format.
//!
//! Source: LZO 2.10 `src/lzo1x_d.ch` (the decompressor; LZO has no
//! separate format document) and `doc/LZO.TXT`. A stream is a sequence of
//! instructions; a byte `t` selects one, and what `t` means depends on
//! what came before it (the state):
//!
//! | t | after | instruction |
//! |---|---|---|
//! | first byte > 17 | start | `t − 17` literals (fewer than 4: then a match follows directly) |
//! | 0..15 | start, or a match with no trailing literals | literal run of `t + 3` bytes (`t = 0`: `15 +` a zero-run extension) |
//! | 0..15 | a literal run (≥ 4) | M1: 3 bytes from distance `1 + 0x800 + (t >> 2) + (next << 2)` |
//! | 0..15 | a match with 1..3 trailing literals | M1: 2 bytes from distance `1 + (t >> 2) + (next << 2)` |
//! | 64..255 | any | M2: `(t >> 5) + 1` bytes from distance `1 + ((t >> 2) & 7) + (next << 3)` |
//! | 32..63 | any | M3: `(t & 31) + 2` bytes (0: `31 +` extension), distance `1 + (d >> 2)` of the next 2 bytes little-endian |
//! | 16..31 | any | M4: `(t & 7) + 2` bytes (0: `7 +` extension), distance `0x4000 + ((t & 8) << 11) + (d >> 2)`; distance 0x4000 exactly is the end marker |
//!
//! A zero-run extension adds 255 for each 0 byte, then the next byte. The
//! low 2 bits of the byte before a match's last byte (`ip[-2] & 3`) give
//! 0..3 literals that follow the match. The stream ends with the marker
//! `0x11 0x00 0x00`, and the safe decoder returns `LZO_E_OK` only when the
//! marker is the last input byte.

use crate::common::{grow_run, match_copy, words8x3, CodecErrorKind, Error, Output, Sink};

/// What the next instruction byte means.
#[derive(Clone, Copy)]
enum State {
    /// Start of stream or after a match without trailing literals: 0..15
    /// is a literal run.
    Literal,
    /// After a literal run: 0..15 is a 3-byte M1 match far back.
    AfterRun,
    /// After a match's 1..3 trailing literals: 0..15 is a 2-byte M1 match.
    AfterShort,
}

/// Decodes an LZO1X stream (all of `input`, end marker last), appending at
/// most `limit` bytes to `out`. Returns the bytes produced.
pub fn decompress(input: &[u8], out: &mut impl Output, limit: usize) -> Result<usize, Error> {
    let hint = input.len().saturating_mul(4);
    grow_run(
        out,
        limit,
        hint,
        |e: &Error| e.kind == crate::common::ErrorKind::Stream(CodecErrorKind::OutputLimit),
        |out| stream(input, out),
    )
}

/// [`decompress`] into one sink.
fn stream(input: &[u8], out: &mut Sink<'_>) -> Result<usize, Error> {
    let mut r = Reader { input, ip: 0 };
    let mut state = State::Literal;
    if let Some(&b) = input.first() {
        if b > 17 {
            r.ip = 1;
            let n = usize::from(b).saturating_sub(17);
            r.literals(out, n)?;
            state = if n < 4 {
                State::AfterShort
            } else {
                State::AfterRun
            };
        }
    }
    // An instruction that starts at or below this output position fits
    // (a match of at most 33 bytes and 3 literals, the words' overrun in
    // the slack).
    let seq_end = out.end.saturating_sub(64);
    loop {
        (r.ip, out.pos, state) = fast_run(input, out.buf, r.ip, out.pos, seq_end, state);
        let at = r.ip;
        let t = usize::from(r.byte()?);
        let (dist, len, trailing) = match (t, state) {
            (0..=15, State::Literal) => {
                let n = if t == 0 { r.extension(15)? } else { t };
                r.literals(out, n.saturating_add(3))?;
                state = State::AfterRun;
                continue;
            }
            (0..=15, State::AfterRun) => {
                let b = usize::from(r.byte()?);
                (
                    0x801_usize.wrapping_add(t >> 2).wrapping_add(b << 2),
                    3,
                    t & 3,
                )
            }
            (0..=15, State::AfterShort) => {
                let b = usize::from(r.byte()?);
                (1_usize.wrapping_add(t >> 2).wrapping_add(b << 2), 2, t & 3)
            }
            (64..=255, _) => {
                let b = usize::from(r.byte()?);
                (
                    1_usize.wrapping_add((t >> 2) & 7).wrapping_add(b << 3),
                    (t >> 5).wrapping_add(1),
                    t & 3,
                )
            }
            (32..=63, _) => {
                let n = if t & 31 == 0 {
                    r.extension(31)?
                } else {
                    t & 31
                };
                let d = r.le16()?;
                ((d >> 2).wrapping_add(1), n.saturating_add(2), d & 3)
            }
            _ => {
                let n = if t & 7 == 0 { r.extension(7)? } else { t & 7 };
                let d = r.le16()?;
                let dist = ((t & 8) << 11).wrapping_add(d >> 2);
                if dist == 0 {
                    // The end marker: it must end the input.
                    if r.ip != input.len() {
                        return Err(Error::new(CodecErrorKind::BadData, r.ip));
                    }
                    return Ok(out.produced());
                }
                (dist.wrapping_add(0x4000), n.saturating_add(2), d & 3)
            }
        };
        out.copy_short(dist, len).map_err(|k| Error::new(k, at))?;
        if trailing == 0 {
            state = State::Literal;
        } else {
            r.literals(out, trailing)?;
            state = State::AfterShort;
        }
    }
}

/// Decodes the common instructions from `ip` into `buf` at `op` while the
/// output is at or below `seq_end` and 19 input bytes are at hand: M2
/// matches (64..255), M3 (33..63) and M4 (17..31) matches without a length
/// extension, with their 0 to 3 trailing literals (one 16-byte word), and
/// in the literal state literal runs of up to 48 bytes. Returns where it
/// stopped and the state there, at an instruction that [`stream`] decodes
/// (or reports).
fn fast_run(
    input: &[u8],
    buf: &mut [u8],
    mut ip: usize,
    mut op: usize,
    seq_end: usize,
    mut state: State,
) -> (usize, usize, State) {
    // Wrapping arithmetic on positions bounded by `input.len()` and
    // `seq_end`; the `get`s check anyway.
    while op <= seq_end {
        let Some(win) = input.get(ip..).and_then(|w| w.first_chunk::<19>()) else {
            break;
        };
        let t = usize::from(win[0]);
        if t < 16 {
            if !matches!(state, State::Literal) {
                break;
            }
            // A literal run of 4 to 18 bytes (or longer with its length
            // extension, up to 48), in words of 16 with 16 input bytes to
            // spare after it.
            let mut p = ip.wrapping_add(1);
            let n = if t == 0 {
                let mut n = 15usize;
                let ext = loop {
                    match input.get(p) {
                        Some(0) => n = n.saturating_add(255),
                        Some(&b) => break n.saturating_add(usize::from(b)),
                        None => break usize::MAX,
                    }
                    p = p.wrapping_add(1);
                };
                p = p.wrapping_add(1);
                ext.saturating_add(3)
            } else {
                t.wrapping_add(3)
            };
            if n > 48 || input.len().saturating_sub(p) < n.wrapping_add(16) {
                break;
            }
            let mut k = 0;
            while k < n {
                let s = input
                    .get(p.wrapping_add(k)..)
                    .and_then(|s| s.first_chunk::<16>());
                let d = buf
                    .get_mut(op.wrapping_add(k)..)
                    .and_then(|d| d.first_chunk_mut::<16>());
                if let (Some(s), Some(d)) = (s, d) {
                    *d = *s;
                }
                k = k.wrapping_add(16);
            }
            op = op.wrapping_add(n);
            ip = p.wrapping_add(n);
            state = State::AfterRun;
            continue;
        }
        let (dist, len, trailing, used) = if t >= 64 {
            let b = usize::from(win[1]);
            (
                1_usize.wrapping_add((t >> 2) & 7).wrapping_add(b << 3),
                (t >> 5).wrapping_add(1),
                t & 3,
                2usize,
            )
        } else if t > 32 && t < 64 {
            let d = usize::from(u16::from_le_bytes([win[1], win[2]]));
            ((d >> 2).wrapping_add(1), (t & 31).wrapping_add(2), d & 3, 3)
        } else if t > 16 && t < 32 && t & 7 != 0 {
            // M4 without a length extension; distance 0 is the end marker.
            let d = usize::from(u16::from_le_bytes([win[1], win[2]]));
            let far = ((t & 8) << 11).wrapping_add(d >> 2);
            if far == 0 {
                break;
            }
            (far.wrapping_add(0x4000), (t & 7).wrapping_add(2), d & 3, 3)
        } else {
            break;
        };
        if dist > op {
            break;
        }
        if dist >= 8 && len <= 24 {
            words8x3(buf, op.wrapping_sub(dist), dist);
        } else {
            match_copy(buf, op, dist, len);
        }
        op = op.wrapping_add(len);
        if trailing != 0 {
            let lits = win.get(used..).and_then(|l| l.first_chunk::<16>());
            let d = buf.get_mut(op..).and_then(|d| d.first_chunk_mut::<16>());
            if let (Some(l), Some(d)) = (lits, d) {
                *d = *l;
            }
        }
        op = op.wrapping_add(trailing);
        ip = ip.wrapping_add(used).wrapping_add(trailing);
        state = if trailing == 0 {
            State::Literal
        } else {
            State::AfterShort
        };
    }
    (ip, op, state)
}

struct Reader<'a> {
    input: &'a [u8],
    ip: usize,
}

impl Reader<'_> {
    fn byte(&mut self) -> Result<u8, Error> {
        let Some(&b) = self.input.get(self.ip) else {
            return Err(Error::new(CodecErrorKind::Truncated, self.ip));
        };
        self.ip = self.ip.saturating_add(1);
        Ok(b)
    }

    fn le16(&mut self) -> Result<usize, Error> {
        let lo = self.byte()?;
        let hi = self.byte()?;
        Ok(usize::from(u16::from_le_bytes([lo, hi])))
    }

    /// A zero-run length extension: 255 per 0 byte, then `base` + the
    /// first non-zero byte.
    fn extension(&mut self, base: usize) -> Result<usize, Error> {
        let mut n = 0usize;
        loop {
            let b = self.byte()?;
            if b != 0 {
                return Ok(n.saturating_add(base).saturating_add(usize::from(b)));
            }
            n = n.saturating_add(255);
        }
    }

    /// Copies `n` literals to `out`: one 16-byte word when there are at
    /// most 16 and 16 input bytes at hand.
    #[inline]
    fn literals(&mut self, out: &mut Sink<'_>, n: usize) -> Result<(), Error> {
        let end = self.ip.saturating_add(n);
        let Some(rest) = self.input.get(self.ip..) else {
            return Err(Error::new(CodecErrorKind::Truncated, self.input.len()));
        };
        let r = if n <= 16 && rest.len() >= 16 {
            out.literals16(rest, n)
        } else {
            let Some(lit) = rest.get(..n) else {
                return Err(Error::new(CodecErrorKind::Truncated, self.input.len()));
            };
            out.literals(lit)
        };
        r.map_err(|k| Error::new(k, self.ip))?;
        self.ip = end;
        Ok(())
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

    #[test]
    fn reference_stream_decodes_to_the_original() {
        let (v, _) = check_reference("lzo.raw", decompress, Cuts::Error);
        let mut out = Vec::new();
        // A byte after the end marker (lzo1x_decompress_safe:
        // LZO_E_INPUT_NOT_CONSUMED).
        let mut w = v;
        w.push(0);
        assert_eq!(
            decompress(&w, &mut out, 1 << 20).unwrap_err().sk(),
            CodecErrorKind::BadData
        );
    }

    #[test]
    fn hand_made_streams() {
        let mut out = Vec::new();
        // 3 literals via the first byte (17 + 3), then M2 len 2 dist 3
        // (t = 0b010_010_00: len (2)+1 = 3? no: t >> 5 = 2 → 3 bytes,
        // (t >> 2) & 7 = 2 → dist 3), trailing 0, then the end marker.
        let s = [20, b'a', b'b', b'c', 0b0100_1000, 0, 0x11, 0, 0];
        assert_eq!(decompress(&s, &mut out, 100).unwrap(), 6);
        assert_eq!(out, b"abcabc");
        // The same match 5 back: before the start.
        let s = [20, b'a', b'b', b'c', 0b0101_0000, 0, 0x11, 0, 0];
        out.clear();
        let e = decompress(&s, &mut out, 100).unwrap_err();
        assert_eq!((e.sk(), e.offset), (CodecErrorKind::BadDistance, 4));
        // No end marker.
        out.clear();
        assert_eq!(
            decompress(&[20, b'a', b'b', b'c'], &mut out, 100)
                .unwrap_err()
                .sk(),
            CodecErrorKind::Truncated
        );
        // A long zero-run extension: a bomb refused at the limit.
        let mut b = vec![18, b'a', 0x20];
        b.extend([0; 100]);
        b.extend([1, 0, 0, 0x11, 0, 0]);
        out.clear();
        assert_eq!(
            decompress(&b, &mut out, 16384).unwrap_err().sk(),
            CodecErrorKind::OutputLimit
        );
        assert!(out.len() <= 16384);
    }
}
