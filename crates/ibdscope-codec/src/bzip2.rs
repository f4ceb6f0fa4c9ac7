//! bzip2 streams, as `BZ2_bzBuffToBuffDecompress` reads them: MariaDB
//! 10.11 compresses a page with `BZ2_bzBuffToBuffCompress(dst, &len, src,
//! srv_page_size, 1, 0, 0)` (100 k blocks, so one block per page) and
//! requires `BZ_OK` with exactly one page back. The decoder stops at the
//! end-of-stream marker: what follows (the page's zero padding and, under
//! full_crc32, its checksum) is not read.
//!
//! Sources: bzip2 1.0.8 `decompress.c` (`BZ2_decompress`), `bzlib.c`
//! (`unRLE_obuf_to_output_FAST`, the inverse BWT) and `crctable.c`, and
//! Joe Tsai's "BZip2 format specification" (2016). All fields are read
//! most significant bit first:
//!
//! | field | bits | meaning |
//! |---|---|---|
//! | `BZh` + level | 32 | level `1`..`9`: blocks of at most level × 100,000 bytes |
//! | block magic | 48 | 0x314159265359 (π) |
//! | block CRC | 32 | CRC-32/BZIP2 of the block's output |
//! | randomised | 1 | 0 (1 is an obsolete mode no bzip2 since 0.9.5 writes: refused) |
//! | origPtr | 24 | the BWT's original row |
//! | used map | 16 + 16·k | the bytes present, in 16 ranges of 16 |
//! | nGroups | 3 | 2..6 Huffman tables |
//! | nSelectors | 15 | ≥ 1; selectors MTF-coded in unary, one per 50 symbols |
//! | tables | … | per table a 5-bit start length, then per symbol `1x` steps (x = 0: +1, 1: −1) ended by `0`; lengths 1..20 |
//! | symbols | … | canonical Huffman: RUNA (0), RUNB (1), MTF index + 1, EOB (nInUse + 1) |
//! | end magic | 48 | 0x177245385090 (√π) |
//! | stream CRC | 32 | each block CRC folded in: `c = (c <<< 1) ^ block_crc` |
//!
//! Decoding undoes, in turn, the Huffman code, RUNA/RUNB (run lengths of
//! the front MTF symbol in bijective base 2), move-to-front, the
//! Burrows–Wheeler transform (`tt` vector, as bzip2's fast mode), and the
//! initial run-length coding (4 equal bytes then a count byte 0..255).
//! The inverse BWT needs one `u32` per block byte: [`Scratch`] keeps that
//! vector from page to page. A block longer than the output limit allows
//! (every 5 block bytes give at least 4 output bytes) is refused before it
//! is stored.

use crate::common::{CodecErrorKind, Error, Scratch};

const BLOCK_MAGIC: u64 = 0x3141_5926_5359;
const END_MAGIC: u64 = 0x1772_4538_5090;
const MAX_GROUPS: usize = 6;
const MAX_ALPHA: usize = 258;
const MAX_SELECTORS: usize = 18002;
const MAX_CODE_LEN: usize = 20;

/// Decodes one bzip2 stream at the start of `input`, appending at most
/// `limit` bytes to `out`. Returns the bytes produced.
pub fn decompress(
    input: &[u8],
    out: &mut Vec<u8>,
    limit: usize,
    scratch: &mut Scratch,
) -> Result<usize, Error> {
    let start = out.len();
    if input.get(..3) != Some(b"BZh".as_slice()) {
        let kind = if input.len() < 3 && b"BZh".starts_with(input) {
            CodecErrorKind::Truncated
        } else {
            CodecErrorKind::BadHeader
        };
        return Err(Error::new(kind, 0));
    }
    let level = match input.get(3) {
        Some(&l @ b'1'..=b'9') => usize::from(l.wrapping_sub(b'0')),
        Some(_) => return Err(Error::new(CodecErrorKind::BadHeader, 3)),
        None => return Err(Error::new(CodecErrorKind::Truncated, 3)),
    };
    let mut r = Bits::new(input, 4);
    // Every 5 block bytes give at least 4 output bytes.
    let max_block = level
        .saturating_mul(100_000)
        .min((limit.saturating_mul(5) / 4).saturating_add(8));
    let mut combined = 0u32;
    loop {
        let at = r.byte_offset();
        let magic = r.bits(24)? << 24 | r.bits(24)?;
        if magic == END_MAGIC {
            let stored = r.bits(32)? as u32;
            if stored != combined {
                return Err(Error::new(CodecErrorKind::ChecksumMismatch, at));
            }
            return Ok(out.len().saturating_sub(start));
        }
        if magic != BLOCK_MAGIC {
            return Err(Error::new(CodecErrorKind::BadHeader, at));
        }
        let stored = r.bits(32)? as u32;
        let before = out.len();
        block(&mut r, out, start, limit, max_block, &mut scratch.bz_tt)?;
        let crc = crc_bzip2(out.get(before..).unwrap_or(&[]));
        if crc != stored {
            return Err(Error::new(CodecErrorKind::ChecksumMismatch, at));
        }
        combined = combined.rotate_left(1) ^ crc;
    }
}

/// A block after its CRC: header, tables, symbols, inverse BWT, RLE1.
fn block(
    r: &mut Bits<'_>,
    out: &mut Vec<u8>,
    start: usize,
    limit: usize,
    max_block: usize,
    tt: &mut Vec<u32>,
) -> Result<(), Error> {
    let bad = |r: &Bits<'_>| Error::new(CodecErrorKind::BadData, r.byte_offset());
    if r.bits(1)? != 0 {
        return Err(Error::new(CodecErrorKind::BadHeader, r.byte_offset()));
    }
    let orig_ptr = r.bits(24)? as usize;
    let mut seq_to_unseq = [0u8; 256];
    let mut n_in_use = 0usize;
    let used = r.bits(16)?;
    for i in 0..16u32 {
        if used & (0x8000 >> i) == 0 {
            continue;
        }
        let w = r.bits(16)?;
        for j in 0..16u32 {
            if w & (0x8000 >> j) != 0 {
                if let Some(s) = seq_to_unseq.get_mut(n_in_use) {
                    *s = (i << 4 | j) as u8;
                }
                n_in_use = n_in_use.saturating_add(1);
            }
        }
    }
    if n_in_use == 0 {
        return Err(bad(r));
    }
    let alpha = n_in_use.saturating_add(2);
    let n_groups = r.bits(3)? as usize;
    let n_selectors = r.bits(15)? as usize;
    if !(2..=MAX_GROUPS).contains(&n_groups) || n_selectors == 0 {
        return Err(bad(r));
    }
    let mut selectors = [0u8; MAX_SELECTORS];
    let mut pos: [u8; MAX_GROUPS] = [0, 1, 2, 3, 4, 5];
    for i in 0..n_selectors {
        let mut j = 0usize;
        while r.bits(1)? == 1 {
            j = j.saturating_add(1);
            if j >= n_groups {
                return Err(bad(r));
            }
        }
        // Undo the selectors' move-to-front.
        let v = pos.get(j).copied().unwrap_or(0);
        if let Some(p) = pos.get_mut(..=j) {
            p.rotate_right(1);
        }
        if let Some(p) = pos.first_mut() {
            *p = v;
        }
        if let Some(s) = selectors.get_mut(i) {
            *s = v;
        }
    }
    let n_selectors = n_selectors.min(MAX_SELECTORS);
    let mut tables = vec![Huffman::EMPTY; MAX_GROUPS];
    for t in tables.iter_mut().take(n_groups) {
        let mut lengths = [0u8; MAX_ALPHA];
        let mut curr = r.bits(5)?;
        for l in lengths.iter_mut().take(alpha) {
            loop {
                if !(1..=MAX_CODE_LEN as u64).contains(&curr) {
                    return Err(bad(r));
                }
                if r.bits(1)? == 0 {
                    break;
                }
                curr = if r.bits(1)? == 0 {
                    curr.wrapping_add(1)
                } else {
                    curr.wrapping_sub(1)
                };
            }
            *l = curr as u8;
        }
        t.build(lengths.get(..alpha).unwrap_or(&[]))
            .ok_or_else(|| bad(r))?;
    }
    let counts = symbols(
        r,
        &tables,
        &selectors,
        n_selectors,
        &seq_to_unseq,
        n_in_use,
        max_block,
        tt,
    )?;
    if orig_ptr >= tt.len() {
        return Err(bad(r));
    }
    inverse_bwt(tt, &counts);
    unrle(tt, orig_ptr, out, start, limit).map_err(|k| Error::new(k, r.byte_offset()))
}

/// Decodes the block's symbols into `tt` (the MTF-decoded bytes, before the
/// inverse BWT) and returns the count of each byte.
#[allow(clippy::too_many_arguments)]
fn symbols(
    r: &mut Bits<'_>,
    tables: &[Huffman],
    selectors: &[u8; MAX_SELECTORS],
    n_selectors: usize,
    seq_to_unseq: &[u8; 256],
    n_in_use: usize,
    max_block: usize,
    tt: &mut Vec<u32>,
) -> Result<[u32; 256], Error> {
    let bad = |r: &Bits<'_>, kind| Error::new(kind, r.byte_offset());
    let eob = n_in_use.saturating_add(1);
    let mut mtf = [0u8; 256];
    for (i, m) in mtf.iter_mut().enumerate() {
        *m = i as u8;
    }
    let mut counts = [0u32; 256];
    tt.clear();
    let (mut group, mut left) = (0usize, 0usize);
    let (mut run, mut weight) = (0usize, 1usize);
    loop {
        if left == 0 {
            if group >= n_selectors {
                return Err(bad(r, CodecErrorKind::BadData));
            }
            left = 50;
            group = group.saturating_add(1);
        }
        left = left.saturating_sub(1);
        let sel = selectors.get(group.saturating_sub(1)).copied().unwrap_or(0);
        let table = tables
            .get(usize::from(sel))
            .ok_or_else(|| bad(r, CodecErrorKind::BadData))?;
        let sym = table.decode(r)?;
        if sym <= 1 {
            // RUNA adds the weight, RUNB twice the weight.
            run = run.saturating_add(weight << sym);
            weight = weight.saturating_mul(2);
            if run > max_block {
                return Err(bad(r, CodecErrorKind::OutputLimit));
            }
            continue;
        }
        if run > 0 {
            let b = seq_to_unseq.get(usize::from(mtf[0])).copied().unwrap_or(0);
            if tt.len().saturating_add(run) > max_block {
                return Err(bad(r, CodecErrorKind::OutputLimit));
            }
            tt.extend(std::iter::repeat_n(u32::from(b), run));
            if let Some(c) = counts.get_mut(usize::from(b)) {
                *c = c.saturating_add(run as u32);
            }
            (run, weight) = (0, 1);
        }
        if sym == eob {
            return Ok(counts);
        }
        if sym > eob || tt.len() >= max_block {
            let kind = if sym > eob {
                CodecErrorKind::BadData
            } else {
                CodecErrorKind::OutputLimit
            };
            return Err(bad(r, kind));
        }
        // MTF index sym − 1: move it to the front.
        let v = sym.saturating_sub(1);
        let front = mtf.get(v).copied().unwrap_or(0);
        // Short moves (the common ones) byte by byte: no call.
        let mut k = v.min(255);
        while k > 0 {
            let prev = k.wrapping_sub(1);
            if let Some(&b) = mtf.get(prev) {
                if let Some(x) = mtf.get_mut(k) {
                    *x = b;
                }
            }
            k = prev;
        }
        mtf[0] = front;
        let b = seq_to_unseq.get(usize::from(front)).copied().unwrap_or(0);
        tt.push(u32::from(b));
        if let Some(c) = counts.get_mut(usize::from(b)) {
            *c = c.saturating_add(1);
        }
    }
}

/// bzip2's fast inverse BWT: each entry's high 24 bits become the index of
/// the next byte in the original order.
fn inverse_bwt(tt: &mut [u32], counts: &[u32; 256]) {
    let mut cftab = [0u32; 256];
    let mut sum = 0u32;
    for (c, &n) in cftab.iter_mut().zip(counts) {
        *c = sum;
        sum = sum.saturating_add(n);
    }
    for i in 0..tt.len() {
        let b = tt.get(i).map_or(0, |&v| (v & 0xff) as usize);
        let Some(c) = cftab.get_mut(b) else { continue };
        if let Some(slot) = tt.get_mut(*c as usize) {
            *slot |= (i as u32) << 8;
        }
        *c = c.saturating_add(1);
    }
}

/// Follows the BWT links from `orig_ptr` and undoes the initial run-length
/// coding into `out`.
fn unrle(
    tt: &[u32],
    orig_ptr: usize,
    out: &mut Vec<u8>,
    start: usize,
    limit: usize,
) -> Result<(), CodecErrorKind> {
    let mut t = tt.get(orig_ptr).map_or(0, |&v| v >> 8) as usize;
    let (mut prev, mut same) = (None::<u8>, 0usize);
    for _ in 0..tt.len() {
        let v = *tt.get(t).ok_or(CodecErrorKind::BadData)?;
        let ch = (v & 0xff) as u8;
        t = (v >> 8) as usize;
        let n = if same == 4 {
            same = 0;
            let n = usize::from(ch);
            let b = prev.take().unwrap_or(0);
            if n > limit.saturating_sub(out.len().saturating_sub(start)) {
                return Err(CodecErrorKind::OutputLimit);
            }
            out.extend(std::iter::repeat_n(b, n));
            continue;
        } else {
            1
        };
        if out.len().saturating_sub(start).saturating_add(n) > limit {
            return Err(CodecErrorKind::OutputLimit);
        }
        out.push(ch);
        if prev == Some(ch) {
            same = same.saturating_add(1);
        } else {
            (prev, same) = (Some(ch), 1);
        }
    }
    Ok(())
}

/// A canonical Huffman code, codes assigned in (length, symbol) order as
/// bzip2's `BZ2_hbCreateDecodeTables` does; read most significant bit
/// first. Codes of up to [`FAST_BITS`] bits decode with one lookup of the
/// next bits; longer ones by length from there.
#[derive(Clone)]
struct Huffman {
    count: [u16; MAX_CODE_LEN + 1],
    symbol: [u16; MAX_ALPHA],
    /// First code of each length, and the index in `symbol` of its symbol.
    first: [u32; MAX_CODE_LEN + 1],
    index: [u32; MAX_CODE_LEN + 1],
    /// Indexed by the next [`FAST_BITS`] bits: symbol << 8 | length, or 0
    /// for a longer code (or none).
    fast: [u32; 1 << FAST_BITS],
}

/// Bits of the one-lookup table.
const FAST_BITS: u32 = 10;

impl Huffman {
    const EMPTY: Huffman = Huffman {
        count: [0; MAX_CODE_LEN + 1],
        symbol: [0; MAX_ALPHA],
        first: [0; MAX_CODE_LEN + 1],
        index: [0; MAX_CODE_LEN + 1],
        fast: [0; 1 << FAST_BITS],
    };

    /// The code of `lengths` (each 1..20) into `self`; an over-subscribed
    /// code is refused.
    fn build(&mut self, lengths: &[u8]) -> Option<()> {
        let h = self;
        h.count = [0; MAX_CODE_LEN + 1];
        for &l in lengths {
            let c = h.count.get_mut(usize::from(l))?;
            *c = c.checked_add(1)?;
        }
        let mut left: i64 = 1;
        for len in 1..=MAX_CODE_LEN {
            left = left
                .checked_mul(2)?
                .checked_sub(i64::from(*h.count.get(len)?))?;
            if left < 0 {
                return None;
            }
        }
        let mut offs = [0u16; MAX_CODE_LEN + 2];
        for len in 1..=MAX_CODE_LEN {
            let next = offs.get(len)?.checked_add(*h.count.get(len)?)?;
            *offs.get_mut(len.checked_add(1)?)? = next;
        }
        for (sym, &l) in lengths.iter().enumerate() {
            let o = offs.get_mut(usize::from(l))?;
            *h.symbol.get_mut(usize::from(*o))? = u16::try_from(sym).ok()?;
            *o = o.checked_add(1)?;
        }
        // Canonical codes: each length's first code follows the last of
        // the length before, shifted.
        h.fast = [0; 1 << FAST_BITS];
        let (mut code, mut index) = (0u32, 0u32);
        for len in 1..=MAX_CODE_LEN {
            let n = u32::from(*h.count.get(len)?);
            *h.first.get_mut(len)? = code;
            *h.index.get_mut(len)? = index;
            if len as u32 <= FAST_BITS {
                let span = 1u32 << FAST_BITS.wrapping_sub(len as u32);
                for k in 0..n {
                    let sym = u32::from(*h.symbol.get(index.checked_add(k)? as usize)?);
                    let at = code.checked_add(k)?.checked_mul(span)?;
                    for x in h
                        .fast
                        .get_mut(at as usize..at.checked_add(span)? as usize)?
                    {
                        *x = sym << 8 | len as u32;
                    }
                }
            }
            code = code.checked_add(n)?.checked_shl(1)?;
            index = index.checked_add(n)?;
        }
        Some(())
    }

    #[inline(always)]
    fn decode(&self, r: &mut Bits<'_>) -> Result<usize, Error> {
        let next = r.peek20();
        let e = self
            .fast
            .get((next >> (MAX_CODE_LEN as u32).wrapping_sub(FAST_BITS)) as usize)
            .copied()
            .unwrap_or(0);
        if e != 0 {
            r.skip(e & 0xff)?;
            return Ok((e >> 8) as usize);
        }
        for len in (FAST_BITS as usize).wrapping_add(1)..=MAX_CODE_LEN {
            let code = next >> MAX_CODE_LEN.wrapping_sub(len);
            let first = self.first.get(len).copied().unwrap_or(0);
            let count = u32::from(self.count.get(len).copied().unwrap_or(0));
            if code.wrapping_sub(first) < count {
                let at = self
                    .index
                    .get(len)
                    .copied()
                    .unwrap_or(0)
                    .wrapping_add(code.wrapping_sub(first)) as usize;
                let sym = self.symbol.get(at).copied();
                r.skip(len as u32)?;
                return sym
                    .map(usize::from)
                    .ok_or_else(|| Error::new(CodecErrorKind::BadData, r.byte_offset()));
            }
        }
        // No code: past the input's end the bits read are zeros.
        let kind = if r.cnt < MAX_CODE_LEN as u32 {
            CodecErrorKind::Truncated
        } else {
            CodecErrorKind::BadData
        };
        Err(Error::new(kind, r.byte_offset()))
    }
}

/// Most-significant-bit-first reader over a 64-bit buffer (the next bit is
/// its top bit).
struct Bits<'a> {
    input: &'a [u8],
    /// Next input byte to load.
    pos: usize,
    buf: u64,
    /// Bits in `buf`.
    cnt: u32,
}

impl Bits<'_> {
    fn new(input: &[u8], pos: usize) -> Bits<'_> {
        Bits {
            input,
            pos,
            buf: 0,
            cnt: 0,
        }
    }

    /// Input bytes read (a partly read byte counts as not read).
    fn byte_offset(&self) -> usize {
        self.pos
            .saturating_sub(((self.cnt.wrapping_add(7)) >> 3) as usize)
    }

    /// Loads bytes until the buffer holds more than 56 bits or the input
    /// ends.
    #[inline(always)]
    fn refill(&mut self) {
        while self.cnt <= 56 {
            let Some(&b) = self.input.get(self.pos) else {
                return;
            };
            self.buf |= u64::from(b) << (56u32.wrapping_sub(self.cnt));
            self.pos = self.pos.wrapping_add(1);
            self.cnt = self.cnt.wrapping_add(8);
        }
    }

    /// The next 20 bits (zeros past the end of the input), not consumed.
    #[inline(always)]
    fn peek20(&mut self) -> u32 {
        if self.cnt < 20 {
            self.refill();
        }
        (self.buf >> 44) as u32
    }

    /// Consumes `n` (≤ 32) bits, or fails when the input has fewer.
    #[inline(always)]
    fn skip(&mut self, n: u32) -> Result<(), Error> {
        if self.cnt < n {
            self.refill();
            if self.cnt < n {
                return Err(Error::new(CodecErrorKind::Truncated, self.input.len()));
            }
        }
        self.buf = self.buf.checked_shl(n).unwrap_or(0);
        self.cnt = self.cnt.wrapping_sub(n);
        Ok(())
    }

    /// The next `n` (≤ 32) bits.
    fn bits(&mut self, n: u32) -> Result<u64, Error> {
        if n == 0 {
            return Ok(0);
        }
        if self.cnt < n {
            self.refill();
        }
        let v = self.buf >> (64u32.wrapping_sub(n));
        self.skip(n)?;
        Ok(v)
    }
}

/// CRC-32/BZIP2: polynomial 0x04C11DB7 most significant bit first, initial
/// and final value all ones (bzip2 `crctable.c`).
fn crc_bzip2(data: &[u8]) -> u32 {
    let mut c = !0u32;
    for &b in data {
        let i = ((c >> 24) ^ u32::from(b)) as usize;
        c = c << 8 ^ CRC_TABLE.get(i).copied().unwrap_or(0);
    }
    !c
}

#[allow(clippy::indexing_slicing)]
const CRC_TABLE: [u32; 256] = {
    let mut t = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let mut c = (i as u32) << 24;
        let mut k = 0;
        while k < 8 {
            c = if c & 0x8000_0000 != 0 {
                (c << 1) ^ 0x04C1_1DB7
            } else {
                c << 1
            };
            k += 1;
        }
        t[i] = c;
        i += 1;
    }
    t
};

#[cfg(test)]
#[allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)]
mod tests {
    use super::*;
    use crate::common::tests_vectors::{read_vector, ORIGINAL};

    #[test]
    fn crc_of_the_check_string() {
        // CRC-32/BZIP2 check value of "123456789".
        assert_eq!(crc_bzip2(b"123456789"), 0xFC89_1918);
    }

    #[test]
    fn reference_streams_decode_to_the_original() {
        let mut s = Scratch::new();
        let v = read_vector("bzip2.bz2");
        let mut out = Vec::new();
        assert_eq!(
            decompress(&v, &mut out, ORIGINAL.len(), &mut s).unwrap(),
            ORIGINAL.len()
        );
        assert_eq!(out, ORIGINAL);
        // Trailing bytes (a page's padding) are not read.
        let mut padded = v.clone();
        padded.extend([0u8; 100]);
        out.clear();
        decompress(&padded, &mut out, ORIGINAL.len(), &mut s).unwrap();
        assert_eq!(out, ORIGINAL);
        // Level 9, 30 copies: one long block.
        let v9 = read_vector("bzip2-9.bz2");
        out.clear();
        decompress(&v9, &mut out, 30 * ORIGINAL.len(), &mut s).unwrap();
        assert_eq!(out.len(), 30 * ORIGINAL.len());
        assert!(out.chunks(ORIGINAL.len()).all(|c| c == ORIGINAL));
        // The same under a page-sized limit: refused, bounded.
        out.clear();
        let e = decompress(&v9, &mut out, 16384, &mut s).unwrap_err();
        assert_eq!(e.sk(), CodecErrorKind::OutputLimit);
        assert!(out.len() <= 16384 && s.bz_tt.len() <= 16384 * 5 / 4 + 8);
    }

    #[test]
    fn damage_is_an_error() {
        let mut s = Scratch::new();
        let v = read_vector("bzip2.bz2");
        let mut out = Vec::new();
        for cut in 0..v.len() {
            out.clear();
            assert!(
                decompress(&v[..cut], &mut out, 1 << 20, &mut s).is_err(),
                "{cut}"
            );
        }
        // Flipped bytes: an error (most often a CRC mismatch), never a
        // panic or more than the limit.
        let mut errors = 0;
        for at in (4..v.len()).step_by(7) {
            let mut w = v.clone();
            w[at] ^= 0x21;
            out.clear();
            if decompress(&w, &mut out, ORIGINAL.len(), &mut s).is_err() {
                errors += 1;
            }
            assert!(out.len() <= ORIGINAL.len());
        }
        assert_eq!(errors, (4..v.len()).step_by(7).count());
        // The stored block CRC.
        let mut w = v.clone();
        w[10] ^= 1;
        out.clear();
        let e = decompress(&w, &mut out, 1 << 20, &mut s).unwrap_err();
        assert_eq!((e.sk(), e.offset), (CodecErrorKind::ChecksumMismatch, 4));
        assert_eq!(
            decompress(b"BZh0", &mut out, 10, &mut s).unwrap_err().sk(),
            CodecErrorKind::BadHeader
        );
    }
}
