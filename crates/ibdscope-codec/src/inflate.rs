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
//! type 3 or a stream that ends early are [`Error`]s ([`ErrorKind::Inflate`]) with the byte
//! offset in the input where decoding stopped.

use crate::common::{grow_run, match_copy, words8x3, Error, ErrorKind, Output, Sink};

/// Why inflating stopped (defined with the crate's error).
pub use crate::common::InflateErrorKind;

/// The result of inflating: the input bytes consumed.
pub type InflateResult = Result<usize, Error>;

/// Inflates a zlib stream from `input`, appending at most `limit` bytes to
/// `out`, and checks its Adler-32. Returns the input bytes consumed
/// (header, DEFLATE data and trailer); bytes after the stream are ignored.
pub fn inflate_zlib(input: &[u8], out: &mut impl Output, limit: usize) -> InflateResult {
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
    out: &mut impl Output,
    limit: usize,
) -> Result<ZlibBlocks, Error> {
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
    out: &mut impl Output,
    limit: usize,
    first: &mut Option<(usize, bool)>,
) -> InflateResult {
    let err = Error::inflate;
    let (Some(&cmf), Some(&flg)) = (input.first(), input.get(1)) else {
        return Err(err(InflateErrorKind::Truncated, input.len()));
    };
    if cmf & 0x0f != 8 || cmf >> 4 > 7 || (u16::from(cmf) << 8 | u16::from(flg)) % 31 != 0 {
        return Err(err(InflateErrorKind::BadZlibHeader, 0));
    }
    if flg & 0x20 != 0 {
        return Err(err(InflateErrorKind::PresetDictionary, 1));
    }
    let start = out.held();
    let body = input.get(2..).unwrap_or(&[]);
    let used = raw(body, out, limit, first).map_err(|e| e.shifted(2))?;
    let end = used.saturating_add(2);
    let Some(trailer) = input.get(end..end.saturating_add(4)) else {
        return Err(err(InflateErrorKind::Truncated, input.len()));
    };
    let stored = trailer.iter().fold(0u32, |a, &b| a << 8 | u32::from(b));
    let produced = out.held_from(start);
    if adler32(1, produced) != stored {
        return Err(err(InflateErrorKind::AdlerMismatch, end));
    }
    Ok(end.saturating_add(4))
}

/// Inflates raw DEFLATE data (no header) from `input`, appending at most
/// `limit` bytes to `out`. Returns the input bytes consumed, counting the
/// last partial byte.
pub fn inflate_raw(input: &[u8], out: &mut impl Output, limit: usize) -> InflateResult {
    raw(input, out, limit, &mut None)
}

/// Inflates raw DEFLATE data; `first` gets the output length after the
/// first block and whether it was the last.
fn raw(
    input: &[u8],
    out: &mut impl Output,
    limit: usize,
    first: &mut Option<(usize, bool)>,
) -> InflateResult {
    let hint = input.len().saturating_mul(8);
    let is_limit = |e: &Error| e.kind == ErrorKind::Inflate(InflateErrorKind::OutputLimit);
    grow_run(out, limit, hint, is_limit, |sink| {
        *first = None;
        raw_into(input, sink, first)
    })
}

/// [`raw`] into one sink.
fn raw_into(input: &[u8], out: &mut Sink<'_>, first: &mut Option<(usize, bool)>) -> InflateResult {
    let mut s = State {
        bits: Bits {
            input,
            pos: 0,
            buf: 0,
            cnt: 0,
        },
        out,
    };
    let mut lit = Vec::with_capacity(2048);
    let mut dist = Vec::with_capacity(512);
    loop {
        let last = s.bits.take(1)?;
        match s.bits.take(2)? {
            0 => s.stored()?,
            1 => {
                let (lit, dist) = fixed_tables();
                s.codes(lit, dist)?;
            }
            2 => {
                s.dynamic_tables(&mut lit, &mut dist)?;
                s.codes(&lit, &dist)?;
            }
            _ => return Err(s.bits.error(InflateErrorKind::BadBlockType)),
        }
        if first.is_none() {
            *first = Some((s.out.produced(), last == 1));
        }
        if last == 1 {
            // Bytes consumed, the last partial byte counted.
            return Ok(s.bits.at());
        }
    }
}

/// LSB-first bit reader over a 64-bit buffer, refilled eight bytes at a
/// time (byte by byte in the last eight bytes of the input).
struct Bits<'a> {
    input: &'a [u8],
    /// Next input byte to load.
    pos: usize,
    buf: u64,
    /// Bits in `buf` (at most 63).
    cnt: u32,
}

impl Bits<'_> {
    /// The input byte the next bit is in (a partly read byte counts as
    /// read): the bytes loaded less the whole bytes still in the buffer.
    fn at(&self) -> usize {
        self.pos.saturating_sub((self.cnt >> 3) as usize)
    }

    fn error(&self, kind: InflateErrorKind) -> Error {
        Error::inflate(kind, self.at())
    }

    /// Loads bytes until the buffer holds at least 56 bits or the input
    /// ends.
    #[inline(always)]
    fn refill(&mut self) {
        if let Some(w) = self
            .input
            .get(self.pos..)
            .and_then(|w| w.first_chunk::<8>())
        {
            // cnt ≤ 63: the shift is in range; the bytes that do not fit
            // are loaded again next time.
            self.buf |= u64::from_le_bytes(*w) << self.cnt;
            self.pos = self
                .pos
                .wrapping_add(((63u32.wrapping_sub(self.cnt)) >> 3) as usize);
            self.cnt |= 56;
        } else {
            while self.cnt <= 56 {
                let Some(&b) = self.input.get(self.pos) else {
                    return;
                };
                self.buf |= u64::from(b) << self.cnt;
                self.pos = self.pos.wrapping_add(1);
                self.cnt = self.cnt.wrapping_add(8);
            }
        }
    }

    /// Drops `n` bits (`n` ≤ `cnt`).
    #[inline(always)]
    fn drop_bits(&mut self, n: u32) {
        self.buf = self.buf.checked_shr(n).unwrap_or(0);
        self.cnt = self.cnt.saturating_sub(n);
    }

    /// The next `n` bits (`n` ≤ 32), first bit lowest.
    #[inline(always)]
    fn take(&mut self, n: u32) -> Result<u32, Error> {
        if self.cnt < n {
            self.refill();
            if self.cnt < n {
                return Err(self.error(InflateErrorKind::Truncated));
            }
        }
        let v = (self.buf & !(u64::MAX.checked_shl(n).unwrap_or(0))) as u32;
        self.drop_bits(n);
        Ok(v)
    }

    /// Drops the bits left in the current byte (stored blocks start on a
    /// byte boundary).
    fn align(&mut self) {
        self.drop_bits(self.cnt & 7);
    }

    /// Decodes one symbol with `table` (primary index `PB` bits): its
    /// entry. A code the table does not hold is `BadCode`, or `Truncated`
    /// when the input ended before 15 bits could be read.
    #[inline(always)]
    fn decode<const PB: u32>(&mut self, table: &[u32]) -> Result<u32, Error> {
        if self.cnt < MAX_BITS {
            self.refill();
        }
        let mask = (1u64 << PB).wrapping_sub(1);
        let mut e = table
            .get((self.buf & mask) as usize)
            .copied()
            .unwrap_or(BAD);
        if kind(e) == SUB {
            if self.cnt < PB {
                return Err(self.error(InflateErrorKind::Truncated));
            }
            self.drop_bits(PB);
            let sub = (self.buf & !(u64::MAX << ((e >> 8) & 15))) as usize;
            e = table
                .get(((e >> 16) as usize).wrapping_add(sub))
                .copied()
                .unwrap_or(BAD);
        }
        let n = e & 0xff;
        if kind(e) == K_BAD {
            let kind = if self.cnt < MAX_BITS {
                InflateErrorKind::Truncated
            } else {
                InflateErrorKind::BadCode
            };
            return Err(self.error(kind));
        }
        if n > self.cnt {
            return Err(self.error(InflateErrorKind::Truncated));
        }
        self.drop_bits(n);
        Ok(e)
    }
}

/// The longest code (RFC 1951 §3.2.1).
const MAX_BITS: u32 = 15;
/// Primary index bits of the literal/length and the distance tables; the
/// code-length table's longest code is 7 bits.
const LIT_BITS: u32 = 10;
const DIST_BITS: u32 = 8;
const CL_BITS: u32 = 7;

// A table entry: bits 0..8 the bits to drop, 8..12 extra bits (or a
// subtable's index bits), 12..15 the kind, 16..32 the value (a literal, a
// base, or a subtable's offset).
const LIT: u32 = 0;
const BASE: u32 = 1;
const EOB: u32 = 2;
const SUB: u32 = 3;
const K_BAD: u32 = 4;
const BAD: u32 = K_BAD << 12;
const BAD_SYMBOL: u32 = 5;

fn kind(e: u32) -> u32 {
    (e >> 12) & 7
}

fn entry(kind: u32, extra: u32, value: u32) -> u32 {
    value << 16 | kind << 12 | extra << 8
}

/// A literal/length symbol's entry (without its length).
fn lit_entry(sym: usize) -> u32 {
    match sym {
        0..=255 => entry(LIT, 0, sym as u32),
        256 => entry(EOB, 0, 0),
        _ => {
            let i = sym.wrapping_sub(257);
            match (LEN_BASE.get(i), LEN_EXTRA.get(i)) {
                (Some(&b), Some(&x)) => entry(BASE, u32::from(x), u32::from(b)),
                _ => entry(BAD_SYMBOL, 0, 0),
            }
        }
    }
}

/// A distance symbol's entry (without its length).
fn dist_entry(sym: usize) -> u32 {
    match (DIST_BASE.get(sym), DIST_EXTRA.get(sym)) {
        (Some(&b), Some(&x)) => entry(BASE, u32::from(x), u32::from(b)),
        _ => entry(BAD_SYMBOL, 0, 0),
    }
}

/// A code-length symbol's entry: its value.
fn cl_entry(sym: usize) -> u32 {
    entry(LIT, 0, sym as u32)
}

/// Builds the decoding table of the canonical Huffman code with these
/// per-symbol lengths (0 = unused) into `table`: `2^pb` entries indexed by
/// the next `pb` input bits, and for codes longer than `pb` a subtable per
/// `pb`-bit prefix. Incomplete codes are allowed (their missing codes are
/// `BAD` entries), over-subscribed ones refused (`None`).
fn build(lengths: &[u8], pb: u32, table: &mut Vec<u32>, entry_of: fn(usize) -> u32) -> Option<()> {
    let mut count = [0u16; 16];
    for &l in lengths {
        let c = count.get_mut(usize::from(l))?;
        *c = c.checked_add(1)?;
    }
    count[0] = 0;
    let mut left: i32 = 1;
    for &c in count.iter().skip(1) {
        left = left.checked_mul(2)?.checked_sub(i32::from(c))?;
        if left < 0 {
            return None;
        }
    }
    let max_len = count.iter().rposition(|&c| c != 0).unwrap_or(0) as u32;
    let mut next = [0u32; 16];
    let mut code = 0u32;
    for len in 1usize..16 {
        code = code.checked_add(u32::from(*count.get(len.wrapping_sub(1))?))? << 1;
        *next.get_mut(len)? = code;
    }
    let size = 1usize << pb;
    table.clear();
    table.resize(size, BAD);
    let sub_bits = max_len.saturating_sub(pb);
    for (sym, &l) in lengths.iter().enumerate() {
        if l == 0 {
            continue;
        }
        let l = u32::from(l);
        let c = next.get_mut(l as usize)?;
        // The code's `l` bits reversed (codes are at most 15 bits): two
        // byte lookups, not the dozen steps of a 32-bit reverse.
        let rev = reverse15(*c) >> 16u32.wrapping_sub(l);
        *c = c.checked_add(1)?;
        let e = entry_of(sym);
        if l <= pb {
            let mut i = rev as usize;
            while i < size {
                *table.get_mut(i)? = e | l;
                i = i.checked_add(1 << l)?;
            }
        } else {
            let prefix = (rev as usize) & size.wrapping_sub(1);
            let p = *table.get(prefix)?;
            let off = if kind(p) == SUB {
                (p >> 16) as usize
            } else {
                let off = table.len();
                table.resize(off.checked_add(1 << sub_bits)?, BAD);
                *table.get_mut(prefix)? = entry(SUB, sub_bits, u32::try_from(off).ok()?) | pb;
                off
            };
            let mut i = (rev >> pb) as usize;
            while i < 1 << sub_bits {
                *table.get_mut(off.checked_add(i)?)? = e | l.wrapping_sub(pb);
                i = i.checked_add(1 << l.wrapping_sub(pb))?;
            }
        }
    }
    Some(())
}

/// Each byte with its bits reversed.
#[allow(
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    reason = "evaluated at compile time over 0..256"
)]
const REVERSED: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = (i as u8).reverse_bits();
        i += 1;
    }
    t
};

/// The low 16 bits of `c` reversed.
#[inline(always)]
fn reverse15(c: u32) -> u32 {
    let lo = REVERSED.get((c & 0xff) as usize).copied().unwrap_or(0);
    let hi = REVERSED
        .get(((c >> 8) & 0xff) as usize)
        .copied()
        .unwrap_or(0);
    u32::from(lo) << 8 | u32::from(hi)
}

/// RFC 1951 §3.2.6: the tables of the fixed literal/length and distance
/// codes, built once.
fn fixed_tables() -> (&'static [u32], &'static [u32]) {
    static FIXED: std::sync::OnceLock<(Vec<u32>, Vec<u32>)> = std::sync::OnceLock::new();
    let (lit, dist) = FIXED.get_or_init(|| {
        let mut lengths = [0u8; 288];
        for (i, l) in lengths.iter_mut().enumerate() {
            *l = match i {
                0..=143 => 8,
                144..=255 => 9,
                256..=279 => 7,
                _ => 8,
            };
        }
        let (mut lit, mut dist) = (Vec::new(), Vec::new());
        // Both codes are complete: they build.
        let _ = build(&lengths, LIT_BITS, &mut lit, lit_entry);
        let _ = build(&[5u8; 32], DIST_BITS, &mut dist, dist_entry);
        (lit, dist)
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

struct State<'a, 'o, 's> {
    bits: Bits<'a>,
    out: &'o mut Sink<'s>,
}

impl State<'_, '_, '_> {
    fn stored(&mut self) -> Result<(), Error> {
        self.bits.align();
        let at = self.bits.at();
        let len = self.bits.take(16)?;
        let nlen = self.bits.take(16)?;
        if len != !nlen & 0xffff {
            return Err(Error::inflate(InflateErrorKind::StoredLengthMismatch, at));
        }
        // The buffer is empty now or holds whole bytes after the header.
        let from = self.bits.at();
        let data = self
            .bits
            .input
            .get(from..from.saturating_add(len as usize))
            .ok_or(Error::inflate(
                InflateErrorKind::Truncated,
                self.bits.input.len(),
            ))?;
        self.out
            .literals(data)
            .map_err(|_| self.bits.error(InflateErrorKind::OutputLimit))?;
        self.bits.pos = from.saturating_add(len as usize);
        self.bits.buf = 0;
        self.bits.cnt = 0;
        Ok(())
    }

    /// Reads a dynamic block's code lengths and builds its tables.
    fn dynamic_tables(&mut self, lit: &mut Vec<u32>, dist: &mut Vec<u32>) -> Result<(), Error> {
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
        let mut cl_table = Vec::with_capacity(1 << CL_BITS);
        build(&cl, CL_BITS, &mut cl_table, cl_entry)
            .ok_or_else(|| self.bits.error(InflateErrorKind::BadCodeLengths))?;
        let mut lengths = [0u8; 316];
        let total = nlen.saturating_add(ndist);
        let mut i = 0usize;
        while i < total {
            let sym = self.bits.decode::<CL_BITS>(&cl_table)? >> 16;
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
        let ok =
            build(lengths.get(..nlen).unwrap_or(&[]), LIT_BITS, lit, lit_entry).and_then(|()| {
                build(
                    lengths.get(nlen..total).unwrap_or(&[]),
                    DIST_BITS,
                    dist,
                    dist_entry,
                )
            });
        ok.ok_or_else(|| self.bits.error(InflateErrorKind::BadCodeLengths))
    }

    /// Decodes a block's symbols until its end-of-block code. The bit
    /// reader and the output position are copied into locals for the loop
    /// (so they stay in registers) and written back when it ends.
    fn codes(&mut self, lit: &[u32], dist: &[u32]) -> Result<(), Error> {
        let mut bits = Bits { ..self.bits };
        let buf = &mut *self.out.buf;
        let (mut pos, end) = (self.out.pos, self.out.end);
        let r = codes_in(&mut bits, buf, &mut pos, end, lit, dist);
        self.bits = bits;
        self.out.pos = pos;
        r
    }
}

/// [`State::codes`] on locals: `buf` written at `*pos`, at most up to
/// `end` (the slack after it takes the copies' overrun).
#[inline(always)]
fn codes_in(
    bits: &mut Bits<'_>,
    buf: &mut [u8],
    pos: &mut usize,
    end: usize,
    lit: &[u32],
    dist: &[u32],
) -> Result<(), Error> {
    loop {
        // A length and a distance with their extra bits take at most
        // 15 + 5 + 15 + 13 = 48 bits: one refill (while the input lasts)
        // serves the whole symbol.
        if bits.cnt < 48 {
            bits.refill();
        }
        let e = bits.decode::<LIT_BITS>(lit)?;
        match kind(e) {
            LIT => {
                if *pos >= end {
                    return Err(bits.error(InflateErrorKind::OutputLimit));
                }
                if let Some(x) = buf.get_mut(*pos) {
                    *x = (e >> 16) as u8;
                }
                *pos = pos.wrapping_add(1);
            }
            EOB => return Ok(()),
            BASE => {
                let len = ((e >> 16) as usize).wrapping_add(bits.take((e >> 8) & 15)? as usize);
                let d = bits.decode::<DIST_BITS>(dist)?;
                if kind(d) != BASE {
                    return Err(bits.error(InflateErrorKind::BadSymbol));
                }
                let distance =
                    ((d >> 16) as usize).wrapping_add(bits.take((d >> 8) & 15)? as usize);
                if distance > *pos {
                    return Err(bits.error(InflateErrorKind::DistanceTooFar));
                }
                if len > end.wrapping_sub(*pos) {
                    return Err(bits.error(InflateErrorKind::OutputLimit));
                }
                if distance >= 8 && len <= 24 {
                    words8x3(buf, pos.wrapping_sub(distance), distance);
                } else {
                    match_copy(buf, *pos, distance, len);
                }
                *pos = pos.wrapping_add(len);
            }
            _ => return Err(bits.error(InflateErrorKind::BadSymbol)),
        }
    }
}

/// Adler-32 continued from `adler` (zlib's `adler32`).
///
/// Byte by byte, `a += x; b += a`. Over a block of `16·C` bytes (chunk
/// `c`, byte `j` of it) that adds `Σx` to `a` and `16·C·a₀ + Σ (16·(C−c) −
/// j)·x` to `b`. Sixteen lanes keep, for their byte `j`, `A[j] = Σ_c x` and
/// `B[j] = Σ_c (C−c)·x` (after each chunk, `B += A`): plain adds the
/// compiler makes into vector instructions, so `b` gains `16·ΣB − Σ j·A[j]`
/// at the end of the block. 347 chunks (5,552 bytes, the most zlib sums
/// before reducing) keep every lane under 2³²: `B[j] ≤ 255·347·348/2`.
pub fn adler32(adler: u32, data: &[u8]) -> u32 {
    const MOD: u64 = 65521;
    const BLOCK: usize = 347 * 16;
    let mut a = u64::from(adler & 0xFFFF);
    let mut b = u64::from(adler >> 16);
    for block in data.chunks(BLOCK) {
        let (chunks, rest) = block.as_chunks::<16>();
        let mut lane_a = [0u32; 16];
        let mut lane_b = [0u32; 16];
        for chunk in chunks {
            for ((la, lb), &x) in lane_a.iter_mut().zip(lane_b.iter_mut()).zip(chunk) {
                *la = la.wrapping_add(u32::from(x));
                *lb = lb.wrapping_add(*la);
            }
        }
        let n = chunks.len() as u64;
        let (mut sum_a, mut sum_b, mut sum_ja) = (0u64, 0u64, 0u64);
        for (j, (&la, &lb)) in lane_a.iter().zip(&lane_b).enumerate() {
            sum_a = sum_a.wrapping_add(u64::from(la));
            sum_b = sum_b.wrapping_add(u64::from(lb));
            sum_ja = sum_ja.wrapping_add((j as u64).wrapping_mul(u64::from(la)));
        }
        // b + 16·n·a + 16·ΣB − Σ j·A, never below zero: each byte's weight
        // 16·(C−c) − j is at least 1.
        b = b
            .wrapping_add(n.wrapping_mul(16).wrapping_mul(a))
            .wrapping_add(sum_b.wrapping_mul(16))
            .wrapping_sub(sum_ja);
        a = a.wrapping_add(sum_a);
        for &x in rest {
            a = a.wrapping_add(u64::from(x));
            b = b.wrapping_add(a);
        }
        a %= MOD;
        b %= MOD;
    }
    ((b << 16) | a) as u32
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
                assert_eq!(e.ik(), InflateErrorKind::OutputLimit, "{name}");
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

    /// The lanes' Adler-32 is the byte-by-byte definition (RFC 1950 §8.2),
    /// at every length around the block and chunk sizes, from any start,
    /// on bytes of 255 (the largest sums) and on noise.
    #[test]
    fn adler32_is_the_definition() {
        fn by_byte(adler: u32, data: &[u8]) -> u32 {
            let (mut a, mut b) = (adler & 0xFFFF, adler >> 16);
            for &x in data {
                a = (a + u32::from(x)) % 65521;
                b = (b + a) % 65521;
            }
            (b << 16) | a
        }
        assert_eq!(adler32(1, b"Wikipedia"), 0x11E6_0398);
        let mut seed = 0x9E37_79B9u32;
        let noise: Vec<u8> = (0..40_000)
            .map(|_| {
                seed ^= seed << 13;
                seed ^= seed >> 17;
                seed ^= seed << 5;
                seed as u8
            })
            .collect();
        let ones = vec![255u8; 40_000];
        for data in [&noise, &ones] {
            for len in (0..40)
                .chain(5540..5600)
                .chain([16384, 16400, 39_999, 40_000])
            {
                for start in [1, 0xFFF0_FFF0, 0x1234_5678] {
                    assert_eq!(
                        adler32(start, &data[..len]),
                        by_byte(start, &data[..len]),
                        "{len}"
                    );
                }
            }
        }
    }

    #[test]
    fn header_checks() {
        let mut out = Vec::new();
        let e = inflate_zlib(&[0x78, 0x9d, 0, 0], &mut out, 10).unwrap_err();
        assert_eq!(e.ik(), InflateErrorKind::BadZlibHeader);
        let e = inflate_zlib(&[0x78, 0xbb, 0, 0, 0, 0], &mut out, 10).unwrap_err();
        assert_eq!(e.ik(), InflateErrorKind::PresetDictionary);
        let e = inflate_raw(&[0b111], &mut out, 10).unwrap_err();
        assert_eq!(e.ik(), InflateErrorKind::BadBlockType);
    }
}
