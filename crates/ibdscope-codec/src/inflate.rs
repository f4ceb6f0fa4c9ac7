//! Inflate: zlib (RFC 1950) and raw DEFLATE (RFC 1951) decompression,
//! std only, with bounded output and errors that carry the input offset.
//!
//! InnoDB compresses with zlib in three places:
//!
//! | what | wrapper | source |
//! |---|---|---|
//! | SDI records (MySQL 8.0+) | zlib (`compress2`) | `storage/innobase/dict/dict0sdi.cc` (`Sdi_Compressor`) |
//! | ROW_FORMAT=COMPRESSED pages | zlib stream after the page header | `storage/innobase/page/page0zip.cc` |
//! | MariaDB PAGE_COMPRESSED (zlib, the default algorithm) | zlib (`compress2`) | MariaDB `storage/innobase/fil/fil0pagecompress.cc` |
//!
//! The decoder is the canonical-Huffman "count and symbol" scheme of
//! RFC 1951 §3.2.2: for each code length, the number of codes and the
//! symbols in code order; decoding reads one bit at a time and walks the
//! lengths. It is simple to bound: every loop runs at most 15 steps per
//! symbol, and the output never grows past the caller's limit.
//!
//! Nothing here trusts the input: a code that decodes to nothing, a
//! distance reaching before the output, a length past the limit, a block
//! type 3 or a stream that ends early are [`InflateError`]s with the byte
//! offset in the input where decoding stopped.

use std::fmt;

/// Why inflating stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum InflateErrorKind {
    /// The input ended inside the stream.
    Truncated,
    /// The two zlib header bytes are not a valid header (CM ≠ 8, window
    /// over 32 KiB, check bits wrong).
    BadZlibHeader,
    /// The zlib header asks for a preset dictionary; InnoDB never uses one.
    PresetDictionary,
    /// Block type 3 (reserved).
    BadBlockType,
    /// A stored block's length and its complement disagree.
    StoredLengthMismatch,
    /// The code lengths of a dynamic block do not form a usable code.
    BadCodeLengths,
    /// A bit pattern that is no code of the current table.
    BadCode,
    /// A length or distance symbol out of range (286, 287, 30, 31).
    BadSymbol,
    /// A back-reference reaches before the start of the output.
    DistanceTooFar,
    /// The output would exceed the caller's limit.
    OutputLimit,
    /// The Adler-32 after the zlib stream does not match the output.
    AdlerMismatch,
}

/// An error with the byte offset in the input where it was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InflateError {
    /// What went wrong.
    pub kind: InflateErrorKind,
    /// Byte offset in the input.
    pub offset: usize,
}

impl fmt::Display for InflateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.kind {
            InflateErrorKind::Truncated => "compressed stream ends early",
            InflateErrorKind::BadZlibHeader => "not a zlib header",
            InflateErrorKind::PresetDictionary => "zlib stream needs a preset dictionary",
            InflateErrorKind::BadBlockType => "reserved DEFLATE block type 3",
            InflateErrorKind::StoredLengthMismatch => "stored block length check fails",
            InflateErrorKind::BadCodeLengths => "invalid Huffman code lengths",
            InflateErrorKind::BadCode => "invalid Huffman code",
            InflateErrorKind::BadSymbol => "invalid length or distance symbol",
            InflateErrorKind::DistanceTooFar => "back-reference before the start of the output",
            InflateErrorKind::OutputLimit => "output larger than allowed",
            InflateErrorKind::AdlerMismatch => "Adler-32 of the output does not match",
        };
        write!(f, "{what} (compressed byte {})", self.offset)
    }
}

impl std::error::Error for InflateError {}

/// The result of inflating: the input bytes consumed.
pub type InflateResult = Result<usize, InflateError>;

/// Inflates a zlib stream from `input`, appending at most `limit` bytes to
/// `out`, and checks its Adler-32. Returns the input bytes consumed
/// (header, DEFLATE data and trailer); bytes after the stream are ignored.
pub fn inflate_zlib(input: &[u8], out: &mut Vec<u8>, limit: usize) -> InflateResult {
    zlib(input, out, limit, &mut None)
}

/// A zlib stream's extent and where its first DEFLATE block ends
/// ([`inflate_zlib_blocks`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ZlibBlocks {
    /// Input bytes consumed: header, DEFLATE data and Adler-32.
    pub consumed: usize,
    /// Output bytes of the first DEFLATE block (what zlib's `inflate` with
    /// `Z_BLOCK` has produced when it stops at the first block boundary).
    pub first_block_out: usize,
    /// The first block is the last one (BFINAL set).
    pub first_block_final: bool,
}

/// [`inflate_zlib`], also telling where the first DEFLATE block ended:
/// `page0zip.cc` flushes (`Z_FULL_FLUSH`) after the index field
/// information, and reads it back with `inflate(Z_BLOCK)`.
pub fn inflate_zlib_blocks(
    input: &[u8],
    out: &mut Vec<u8>,
    limit: usize,
) -> Result<ZlibBlocks, InflateError> {
    let mut first = None;
    let consumed = zlib(input, out, limit, &mut first)?;
    let (first_block_out, first_block_final) = first.unwrap_or((0, false));
    Ok(ZlibBlocks {
        consumed,
        first_block_out,
        first_block_final,
    })
}

fn zlib(
    input: &[u8],
    out: &mut Vec<u8>,
    limit: usize,
    first: &mut Option<(usize, bool)>,
) -> InflateResult {
    let err = |kind, offset| InflateError { kind, offset };
    let (Some(&cmf), Some(&flg)) = (input.first(), input.get(1)) else {
        return Err(err(InflateErrorKind::Truncated, input.len()));
    };
    if cmf & 0x0f != 8 || cmf >> 4 > 7 || (u16::from(cmf) << 8 | u16::from(flg)) % 31 != 0 {
        return Err(err(InflateErrorKind::BadZlibHeader, 0));
    }
    if flg & 0x20 != 0 {
        return Err(err(InflateErrorKind::PresetDictionary, 1));
    }
    let start = out.len();
    let body = input.get(2..).unwrap_or(&[]);
    let used = raw(body, out, limit, first).map_err(|e| InflateError {
        kind: e.kind,
        offset: e.offset.saturating_add(2),
    })?;
    let end = used.saturating_add(2);
    let Some(trailer) = input.get(end..end.saturating_add(4)) else {
        return Err(err(InflateErrorKind::Truncated, input.len()));
    };
    let stored = trailer.iter().fold(0u32, |a, &b| a << 8 | u32::from(b));
    let produced = out.get(start..).unwrap_or(&[]);
    if adler32(1, produced) != stored {
        return Err(err(InflateErrorKind::AdlerMismatch, end));
    }
    Ok(end.saturating_add(4))
}

/// Inflates raw DEFLATE data (no header) from `input`, appending at most
/// `limit` bytes to `out`. Returns the input bytes consumed, counting the
/// last partial byte.
pub fn inflate_raw(input: &[u8], out: &mut Vec<u8>, limit: usize) -> InflateResult {
    raw(input, out, limit, &mut None)
}

/// Inflates raw DEFLATE data; `first` gets the output length after the
/// first block and whether it was the last.
fn raw(
    input: &[u8],
    out: &mut Vec<u8>,
    limit: usize,
    first: &mut Option<(usize, bool)>,
) -> InflateResult {
    let mut s = State {
        bits: Bits {
            input,
            pos: 0,
            buf: 0,
            cnt: 0,
        },
        out,
        start: 0,
        limit,
    };
    s.start = s.out.len();
    loop {
        let last = s.bits.take(1)?;
        match s.bits.take(2)? {
            0 => s.stored()?,
            1 => {
                let (lit, dist) = fixed_tables();
                s.codes(&lit, &dist)?;
            }
            2 => {
                let (lit, dist) = s.dynamic_tables()?;
                s.codes(&lit, &dist)?;
            }
            _ => return Err(s.bits.error(InflateErrorKind::BadBlockType)),
        }
        if first.is_none() {
            *first = Some((s.produced(), last == 1));
        }
        if last == 1 {
            return Ok(s.bits.pos);
        }
    }
}

/// LSB-first bit reader.
struct Bits<'a> {
    input: &'a [u8],
    /// Next input byte to load.
    pos: usize,
    buf: u32,
    cnt: u32,
}

impl Bits<'_> {
    fn error(&self, kind: InflateErrorKind) -> InflateError {
        InflateError {
            kind,
            offset: self.pos,
        }
    }

    /// The next `n` bits (`n` ≤ 16), first bit lowest.
    fn take(&mut self, n: u32) -> Result<u32, InflateError> {
        while self.cnt < n {
            let Some(&b) = self.input.get(self.pos) else {
                return Err(self.error(InflateErrorKind::Truncated));
            };
            self.pos = self.pos.saturating_add(1);
            self.buf |= u32::from(b) << self.cnt;
            self.cnt = self.cnt.saturating_add(8);
        }
        let v = self.buf & ((1u32 << n).wrapping_sub(1));
        self.buf = self.buf.checked_shr(n).unwrap_or(0);
        self.cnt = self.cnt.saturating_sub(n);
        Ok(v)
    }

    /// Drops the bits left in the current byte (stored blocks start on a
    /// byte boundary).
    fn align(&mut self) {
        self.buf = 0;
        self.cnt = 0;
    }
}

const MAX_BITS: usize = 15;

/// A canonical Huffman code: codes per length and symbols in code order.
struct Huffman<const N: usize> {
    count: [u16; MAX_BITS + 1],
    symbol: [u16; N],
}

impl<const N: usize> Huffman<N> {
    /// Builds the code from per-symbol lengths (0 = unused). Incomplete
    /// codes are allowed only where RFC 1951 allows them in practice (a
    /// single code); over-subscribed ones are refused.
    fn new(lengths: &[u8]) -> Option<Self> {
        let mut h = Huffman {
            count: [0; MAX_BITS + 1],
            symbol: [0; N],
        };
        for &l in lengths {
            let c = h.count.get_mut(usize::from(l))?;
            *c = c.checked_add(1)?;
        }
        if let Some(c) = h.count.first_mut() {
            *c = 0;
        }
        let mut left: i32 = 1;
        for len in 1..=MAX_BITS {
            left = left.checked_mul(2)?;
            left = left.checked_sub(i32::from(*h.count.get(len)?))?;
            if left < 0 {
                return None;
            }
        }
        let mut offs = [0u16; MAX_BITS + 1];
        for len in 1..MAX_BITS {
            let next = offs.get(len)?.checked_add(*h.count.get(len)?)?;
            *offs.get_mut(len.checked_add(1)?)? = next;
        }
        for (sym, &l) in lengths.iter().enumerate() {
            if l != 0 {
                let o = offs.get_mut(usize::from(l))?;
                *h.symbol.get_mut(usize::from(*o))? = u16::try_from(sym).ok()?;
                *o = o.checked_add(1)?;
            }
        }
        Some(h)
    }

    /// Decodes one symbol.
    fn decode(&self, bits: &mut Bits<'_>) -> Result<u16, InflateError> {
        let (mut code, mut first, mut index) = (0i32, 0i32, 0i32);
        for len in 1..=MAX_BITS {
            code |= bits.take(1)? as i32;
            let count = i32::from(self.count.get(len).copied().unwrap_or(0));
            if code.wrapping_sub(first) < count {
                let at = index.wrapping_add(code.wrapping_sub(first));
                return usize::try_from(at)
                    .ok()
                    .and_then(|i| self.symbol.get(i).copied())
                    .ok_or_else(|| bits.error(InflateErrorKind::BadCode));
            }
            index = index.wrapping_add(count);
            first = first.wrapping_add(count).wrapping_shl(1);
            code = code.wrapping_shl(1);
        }
        Err(bits.error(InflateErrorKind::BadCode))
    }
}

type LitCode = Huffman<288>;
type DistCode = Huffman<32>;

/// RFC 1951 §3.2.6: the fixed literal/length and distance codes.
fn fixed_tables() -> (LitCode, DistCode) {
    let mut lengths = [0u8; 288];
    for (i, l) in lengths.iter_mut().enumerate() {
        *l = match i {
            0..=143 => 8,
            144..=255 => 9,
            256..=279 => 7,
            _ => 8,
        };
    }
    let empty = || Huffman {
        count: [0; MAX_BITS + 1],
        symbol: [0; 288],
    };
    let lit = LitCode::new(&lengths).unwrap_or_else(empty);
    let dist = DistCode::new(&[5u8; 30]).unwrap_or(Huffman {
        count: [0; MAX_BITS + 1],
        symbol: [0; 32],
    });
    (lit, dist)
}

/// Base values and extra bits of length symbols 257..=285 (RFC 1951
/// §3.2.5).
const LEN_BASE: [u16; 29] = [
    3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131,
    163, 195, 227, 258,
];
const LEN_EXTRA: [u8; 29] = [
    0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0,
];
/// Base values and extra bits of distance symbols 0..=29.
const DIST_BASE: [u16; 30] = [
    1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537,
    2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577,
];
const DIST_EXTRA: [u8; 30] = [
    0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13,
    13,
];
/// The order code-length code lengths are stored in (§3.2.7).
const CL_ORDER: [usize; 19] = [
    16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15,
];

struct State<'a, 'o> {
    bits: Bits<'a>,
    out: &'o mut Vec<u8>,
    /// Length of `out` before this stream.
    start: usize,
    limit: usize,
}

impl State<'_, '_> {
    fn produced(&self) -> usize {
        self.out.len().saturating_sub(self.start)
    }

    fn room(&self, n: usize) -> Result<(), InflateError> {
        if self.produced().saturating_add(n) > self.limit {
            return Err(self.bits.error(InflateErrorKind::OutputLimit));
        }
        Ok(())
    }

    fn stored(&mut self) -> Result<(), InflateError> {
        self.bits.align();
        let at = self.bits.pos;
        let header = self
            .bits
            .input
            .get(at..at.saturating_add(4))
            .ok_or_else(|| self.bits.error(InflateErrorKind::Truncated))?;
        let len = u16::from_le_bytes([
            header.first().copied().unwrap_or(0),
            header.get(1).copied().unwrap_or(0),
        ]);
        let nlen = u16::from_le_bytes([
            header.get(2).copied().unwrap_or(0),
            header.get(3).copied().unwrap_or(0),
        ]);
        if len != !nlen {
            return Err(InflateError {
                kind: InflateErrorKind::StoredLengthMismatch,
                offset: at,
            });
        }
        let from = at.saturating_add(4);
        let data = self
            .bits
            .input
            .get(from..from.saturating_add(usize::from(len)))
            .ok_or(InflateError {
                kind: InflateErrorKind::Truncated,
                offset: self.bits.input.len(),
            })?;
        self.room(data.len())?;
        self.out.extend_from_slice(data);
        self.bits.pos = from.saturating_add(usize::from(len));
        Ok(())
    }

    fn dynamic_tables(&mut self) -> Result<(LitCode, DistCode), InflateError> {
        let nlen = (self.bits.take(5)? as usize).saturating_add(257);
        let ndist = (self.bits.take(5)? as usize).saturating_add(1);
        let ncode = (self.bits.take(4)? as usize).saturating_add(4);
        if nlen > 286 || ndist > 30 {
            return Err(self.bits.error(InflateErrorKind::BadCodeLengths));
        }
        let mut cl = [0u8; 19];
        for &i in CL_ORDER.iter().take(ncode) {
            if let Some(l) = cl.get_mut(i) {
                *l = self.bits.take(3)? as u8;
            }
        }
        let clcode: Huffman<19> =
            Huffman::new(&cl).ok_or_else(|| self.bits.error(InflateErrorKind::BadCodeLengths))?;
        let mut lengths = [0u8; 316];
        let total = nlen.saturating_add(ndist);
        let mut i = 0usize;
        while i < total {
            let sym = clcode.decode(&mut self.bits)?;
            let (value, repeat) = match sym {
                0..=15 => (sym as u8, 1usize),
                16 => {
                    let prev = i
                        .checked_sub(1)
                        .and_then(|p| lengths.get(p).copied())
                        .ok_or_else(|| self.bits.error(InflateErrorKind::BadCodeLengths))?;
                    (prev, (self.bits.take(2)? as usize).saturating_add(3))
                }
                17 => (0, (self.bits.take(3)? as usize).saturating_add(3)),
                _ => (0, (self.bits.take(7)? as usize).saturating_add(11)),
            };
            if i.saturating_add(repeat) > total {
                return Err(self.bits.error(InflateErrorKind::BadCodeLengths));
            }
            for l in lengths.iter_mut().skip(i).take(repeat) {
                *l = value;
            }
            i = i.saturating_add(repeat);
        }
        // The end-of-block code must exist.
        if lengths.get(256).copied().unwrap_or(0) == 0 {
            return Err(self.bits.error(InflateErrorKind::BadCodeLengths));
        }
        let bad = || InflateError {
            kind: InflateErrorKind::BadCodeLengths,
            offset: 0,
        };
        let lit = LitCode::new(lengths.get(..nlen).unwrap_or(&[])).ok_or_else(bad);
        let dist = DistCode::new(lengths.get(nlen..total).unwrap_or(&[])).ok_or_else(bad);
        match (lit, dist) {
            (Ok(l), Ok(d)) => Ok((l, d)),
            _ => Err(self.bits.error(InflateErrorKind::BadCodeLengths)),
        }
    }

    fn codes(&mut self, lit: &LitCode, dist: &DistCode) -> Result<(), InflateError> {
        loop {
            let sym = lit.decode(&mut self.bits)?;
            match sym {
                0..=255 => {
                    self.room(1)?;
                    self.out.push(sym as u8);
                }
                256 => return Ok(()),
                _ => {
                    let i = usize::from(sym).saturating_sub(257);
                    let (Some(&base), Some(&extra)) = (LEN_BASE.get(i), LEN_EXTRA.get(i)) else {
                        return Err(self.bits.error(InflateErrorKind::BadSymbol));
                    };
                    let len = usize::from(base)
                        .saturating_add(self.bits.take(u32::from(extra))? as usize);
                    let d = usize::from(dist.decode(&mut self.bits)?);
                    let (Some(&dbase), Some(&dextra)) = (DIST_BASE.get(d), DIST_EXTRA.get(d))
                    else {
                        return Err(self.bits.error(InflateErrorKind::BadSymbol));
                    };
                    let distance = usize::from(dbase)
                        .saturating_add(self.bits.take(u32::from(dextra))? as usize);
                    if distance > self.produced() {
                        return Err(self.bits.error(InflateErrorKind::DistanceTooFar));
                    }
                    self.room(len)?;
                    let from = self.out.len().saturating_sub(distance);
                    for k in 0..len {
                        let b = self.out.get(from.saturating_add(k)).copied().unwrap_or(0);
                        self.out.push(b);
                    }
                }
            }
        }
    }
}

/// Adler-32 continued from `adler` (zlib's `adler32`).
pub fn adler32(adler: u32, data: &[u8]) -> u32 {
    const MOD: u32 = 65521;
    let mut a = adler & 0xFFFF;
    let mut b = adler >> 16;
    // 5552 bytes is the most zlib sums before reducing without overflow.
    for chunk in data.chunks(5552) {
        for &x in chunk {
            a = a.wrapping_add(u32::from(x));
            b = b.wrapping_add(a);
        }
        a %= MOD;
        b %= MOD;
    }
    (b << 16) | a
}

#[cfg(test)]
#[allow(
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::unwrap_used,
    clippy::panic
)]
mod tests {
    use super::*;

    /// Vectors made once by CPython's zlib (a real zlib, 1.2.13) and
    /// committed in tests/inflate_vectors.txt: `level hex(input) hex(zlib)`.
    fn vectors() -> Vec<(String, Vec<u8>, Vec<u8>)> {
        let text = include_str!("../tests/inflate_vectors.txt");
        let hex = |s: &str| -> Vec<u8> {
            (0..s.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
                .collect()
        };
        text.lines()
            .filter(|l| !l.starts_with('#') && !l.is_empty())
            .map(|l| {
                let mut f = l.split(' ');
                let name = f.next().unwrap().to_string();
                let plain = hex(f.next().unwrap());
                let packed = hex(f.next().unwrap());
                (name, plain, packed)
            })
            .collect()
    }

    #[test]
    fn real_zlib_vectors_inflate_exactly() {
        let v = vectors();
        assert!(v.len() >= 10);
        for (name, plain, packed) in v {
            let mut out = Vec::new();
            let used = inflate_zlib(&packed, &mut out, plain.len())
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(used, packed.len(), "{name}");
            assert_eq!(out, plain, "{name}");
        }
    }

    #[test]
    fn limits_truncation_and_corruption_are_errors_not_panics() {
        for (name, plain, packed) in vectors() {
            if !plain.is_empty() {
                let mut out = Vec::new();
                let e = inflate_zlib(&packed, &mut out, plain.len() - 1).unwrap_err();
                assert_eq!(e.kind, InflateErrorKind::OutputLimit, "{name}");
            }
            let step = (packed.len() / 64).max(1);
            for cut in (0..packed.len()).step_by(step) {
                let mut out = Vec::new();
                assert!(
                    inflate_zlib(&packed[..cut], &mut out, 1 << 20).is_err(),
                    "{name} cut {cut}"
                );
                assert!(out.len() <= 1 << 20);
            }
            // Every single-byte flip either errors or is caught by Adler-32,
            // or (rarely) decodes to other bytes; never panics, never grows
            // past the limit.
            for i in (0..packed.len()).step_by(step).take(64) {
                let mut bad = packed.clone();
                bad[i] ^= 0x5a;
                let mut out = Vec::new();
                let r = inflate_zlib(&bad, &mut out, 1 << 16);
                assert!(out.len() <= 1 << 16);
                if let Ok(n) = r {
                    assert!(n <= bad.len());
                }
            }
        }
    }

    #[test]
    fn header_checks() {
        let mut out = Vec::new();
        let e = inflate_zlib(&[0x78, 0x9d, 0, 0], &mut out, 10).unwrap_err();
        assert_eq!(e.kind, InflateErrorKind::BadZlibHeader);
        let e = inflate_zlib(&[0x78, 0xbb, 0, 0, 0, 0], &mut out, 10).unwrap_err();
        assert_eq!(e.kind, InflateErrorKind::PresetDictionary);
        let e = inflate_raw(&[0b111], &mut out, 10).unwrap_err();
        assert_eq!(e.kind, InflateErrorKind::BadBlockType);
    }
}
