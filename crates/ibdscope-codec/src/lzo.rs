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

use crate::common::{grow_run, CodecError, CodecErrorKind, Sink};

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
pub fn decompress(input: &[u8], out: &mut Vec<u8>, limit: usize) -> Result<usize, CodecError> {
    let hint = input.len().saturating_mul(4);
    grow_run(
        out,
        limit,
        hint,
        |e: &CodecError| e.kind == CodecErrorKind::OutputLimit,
        |out| stream(input, out),
    )
}

/// [`decompress`] into one sink.
fn stream(input: &[u8], out: &mut Sink<'_>) -> Result<usize, CodecError> {
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
    loop {
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
                        return Err(CodecError::new(CodecErrorKind::BadData, r.ip));
                    }
                    return Ok(out.produced());
                }
                (dist.wrapping_add(0x4000), n.saturating_add(2), d & 3)
            }
        };
        out.copy_short(dist, len)
            .map_err(|k| CodecError::new(k, at))?;
        if trailing == 0 {
            state = State::Literal;
        } else {
            r.literals(out, trailing)?;
            state = State::AfterShort;
        }
    }
}

struct Reader<'a> {
    input: &'a [u8],
    ip: usize,
}

impl Reader<'_> {
    fn byte(&mut self) -> Result<u8, CodecError> {
        let Some(&b) = self.input.get(self.ip) else {
            return Err(CodecError::new(CodecErrorKind::Truncated, self.ip));
        };
        self.ip = self.ip.saturating_add(1);
        Ok(b)
    }

    fn le16(&mut self) -> Result<usize, CodecError> {
        let lo = self.byte()?;
        let hi = self.byte()?;
        Ok(usize::from(u16::from_le_bytes([lo, hi])))
    }

    /// A zero-run length extension: 255 per 0 byte, then `base` + the
    /// first non-zero byte.
    fn extension(&mut self, base: usize) -> Result<usize, CodecError> {
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
    fn literals(&mut self, out: &mut Sink<'_>, n: usize) -> Result<(), CodecError> {
        let end = self.ip.saturating_add(n);
        let Some(rest) = self.input.get(self.ip..) else {
            return Err(CodecError::new(CodecErrorKind::Truncated, self.input.len()));
        };
        let r = if n <= 16 && rest.len() >= 16 {
            out.literals16(rest, n)
        } else {
            let Some(lit) = rest.get(..n) else {
                return Err(CodecError::new(CodecErrorKind::Truncated, self.input.len()));
            };
            out.literals(lit)
        };
        r.map_err(|k| CodecError::new(k, self.ip))?;
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
            decompress(&w, &mut out, 1 << 20).unwrap_err().kind,
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
        assert_eq!((e.kind, e.offset), (CodecErrorKind::BadDistance, 4));
        // No end marker.
        out.clear();
        assert_eq!(
            decompress(&[20, b'a', b'b', b'c'], &mut out, 100)
                .unwrap_err()
                .kind,
            CodecErrorKind::Truncated
        );
        // A long zero-run extension: a bomb refused at the limit.
        let mut b = vec![18, b'a', 0x20];
        b.extend([0; 100]);
        b.extend([1, 0, 0, 0x11, 0, 0]);
        out.clear();
        assert_eq!(
            decompress(&b, &mut out, 16384).unwrap_err().kind,
            CodecErrorKind::OutputLimit
        );
        assert!(out.len() <= 16384);
    }
}
