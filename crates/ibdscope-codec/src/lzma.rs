//! LZMA page compression: one `.xz` stream holding LZMA2 data, as
//! MariaDB 10.11 writes it with `lzma_easy_buffer_encode(level,
//! LZMA_CHECK_NONE, NULL, src, srv_page_size, dst, &out_pos, write_size)`
//! and reads it with `lzma_stream_buffer_decode(&memlimit, 0, NULL, src,
//! &src_pos, actual_size, dst, &dst_pos, srv_page_size)` (flags 0: one
//! stream; what follows its footer, the page's padding and under
//! full_crc32 its checksum, is not read). Not the `.lzma` "alone" format
//! and not raw LZMA1: the easy encoder writes `.xz`.
//!
//! Sources: "The .xz File Format" 1.1.0 (Tukaani, 2022) for the container,
//! and the LZMA specification in the LZMA SDK (`lzma-specification.txt`,
//! Igor Pavlov) with xz's `liblzma/lzma/lzma2_decoder.c` for LZMA2 chunks.
//!
//! Container (`.xz` §2–§4), multi-byte integers little-endian, sizes as
//! variable-length integers (7 bits a byte, at most 9 bytes, minimal):
//!
//! | part | bytes | fields |
//! |---|---|---|
//! | stream header | 12 | magic `FD 37 7A 58 5A 00`, flags (`00`, check type 0..15), CRC-32 of the flags |
//! | block header | 4·(b+1) | size byte b (≠ 0), flags (filters − 1, compressed and uncompressed size present), sizes, filter flags (id, property size, properties), zero padding, CRC-32 |
//! | compressed data | … | LZMA2 chunks, ended by a 0 control byte |
//! | block padding | 0..3 | zeros to a multiple of 4 |
//! | check | 0, 4, 8, 32 … | of the uncompressed data: none (MariaDB), CRC-32, CRC-64, SHA-256 (not verified) |
//! | index | 4·k | `00`, record count, per block unpadded and uncompressed size, zero padding, CRC-32 |
//! | stream footer | 12 | CRC-32 of the next 6 bytes, backward size (index size / 4 − 1), flags, `YZ` |
//!
//! Only the filter chain the easy encoder writes is read: one LZMA2
//! filter (id 0x21, one property byte, the dictionary size). LZMA2 chunks
//! (control byte): `00` end; `01`/`02` uncompressed chunk with/without a
//! dictionary reset, 16-bit big-endian size − 1; `80`..`FF` an LZMA chunk:
//! bits 0..4 the top bits of uncompressed size − 1 (then 16 more),
//! compressed size − 1 (16 bits), bits 5..6 what is reset (0 nothing,
//! 1 state, 2 state and new properties byte `(pb·5 + lp)·9 + lc`,
//! 3 everything and the dictionary). Each LZMA chunk starts its own range
//! decoder (first byte 0, then the 32-bit code) and must use exactly its
//! compressed bytes and end with the code at 0.
//!
//! The dictionary is the output itself (one page): a distance reaching
//! before the last dictionary reset is an error. The literal
//! probabilities (at most 0x300 · 16 with lc + lp ≤ 4) live in
//! [`Scratch`]; the rest of the model is on the stack.

use crate::common::{copy_match, crc32_ieee, push_literals, CodecErrorKind, Error, Scratch};

const MAGIC: [u8; 6] = [0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00];
const FILTER_LZMA2: u64 = 0x21;

/// Decodes one `.xz` stream at the start of `input`, appending at most
/// `limit` bytes to `out`. Returns the bytes produced.
pub fn decompress_xz(
    input: &[u8],
    out: &mut Vec<u8>,
    limit: usize,
    scratch: &mut Scratch,
) -> Result<usize, Error> {
    let start = out.len();
    let e = Error::new;
    let Some(head) = input.get(..12) else {
        let kind = if MAGIC.starts_with(input.get(..6.min(input.len())).unwrap_or(&[])) {
            CodecErrorKind::Truncated
        } else {
            CodecErrorKind::BadHeader
        };
        return Err(e(kind, input.len()));
    };
    if head.get(..6) != Some(MAGIC.as_slice()) {
        return Err(e(CodecErrorKind::BadHeader, 0));
    }
    let flags = head.get(6..8).unwrap_or(&[]);
    if crc32_ieee(flags) != le32(head, 8) {
        return Err(e(CodecErrorKind::ChecksumMismatch, 8));
    }
    let check = head.get(7).copied().unwrap_or(0);
    if head.get(6) != Some(&0) || check > 15 {
        return Err(e(CodecErrorKind::BadHeader, 6));
    }
    let check_size = match check {
        0 => 0,
        c => 4usize << ((usize::from(c).saturating_sub(1)) / 3),
    };
    let mut pos = 12usize;
    let mut records = Records::default();
    loop {
        let Some(&b) = input.get(pos) else {
            return Err(e(CodecErrorKind::Truncated, pos));
        };
        if b == 0 {
            break;
        }
        let before = out.len();
        let (unpadded, next) = block(input, pos, out, start, limit, scratch)?;
        // Block padding, then the check of the block's output.
        let padded = next.saturating_add(next.wrapping_neg() & 3);
        if input
            .get(next..padded)
            .is_none_or(|p| p.iter().any(|&x| x != 0))
        {
            return Err(e(CodecErrorKind::BadData, next));
        }
        let Some(stored) = input.get(padded..padded.saturating_add(check_size)) else {
            return Err(e(CodecErrorKind::Truncated, input.len()));
        };
        let data = out.get(before..).unwrap_or(&[]);
        let ok = match check {
            1 => crc32_ieee(data).to_le_bytes().as_slice() == stored,
            4 => crc64_xz(data).to_le_bytes().as_slice() == stored,
            _ => true,
        };
        if !ok {
            return Err(e(CodecErrorKind::ChecksumMismatch, padded));
        }
        records.add(
            unpadded.saturating_add(check_size as u64),
            data.len() as u64,
        );
        pos = padded.saturating_add(check_size);
    }
    let end = index(input, pos, &records)?;
    footer(input, end, pos, flags)?;
    Ok(out.len().saturating_sub(start))
}

/// What the blocks were, for the index: their count and a CRC-32 over
/// their (unpadded, uncompressed) sizes (liblzma compares the index with
/// the blocks through a hash of the same kind).
#[derive(Default)]
struct Records {
    n: u64,
    crc: u32,
}

impl Records {
    fn add(&mut self, unpadded: u64, uncompressed: u64) {
        self.n = self.n.saturating_add(1);
        let mut b = [0u8; 20];
        let (c, u, d) = (
            self.crc.to_le_bytes(),
            unpadded.to_le_bytes(),
            uncompressed.to_le_bytes(),
        );
        for (x, y) in b.iter_mut().zip(c.iter().chain(&u).chain(&d)) {
            *x = *y;
        }
        self.crc = crc32_ieee(&b);
    }
}

/// One block from its header at `pos`: returns its unpadded size without
/// the check (header + compressed data) and where its data ends.
fn block(
    input: &[u8],
    pos: usize,
    out: &mut Vec<u8>,
    start: usize,
    limit: usize,
    scratch: &mut Scratch,
) -> Result<(u64, usize), Error> {
    let e = Error::new;
    let size = usize::from(input.get(pos).copied().unwrap_or(0))
        .saturating_add(1)
        .saturating_mul(4);
    let hend = pos.saturating_add(size);
    let Some(h) = input.get(pos..hend) else {
        return Err(e(CodecErrorKind::Truncated, input.len()));
    };
    let body = h.get(..size.saturating_sub(4)).unwrap_or(&[]);
    if crc32_ieee(body) != le32(h, size.saturating_sub(4)) {
        return Err(e(CodecErrorKind::ChecksumMismatch, pos));
    }
    let flags = h.get(1).copied().unwrap_or(0xff);
    let bad = |at: usize| e(CodecErrorKind::BadHeader, pos.saturating_add(at));
    if flags & 0x3c != 0 || flags & 3 != 0 {
        // Reserved bits, or more than one filter.
        return Err(bad(1));
    }
    let mut at = 2usize;
    let csize = if flags & 0x40 != 0 {
        Some(vli(body, &mut at).ok_or_else(|| bad(at))?)
    } else {
        None
    };
    let usize_ = if flags & 0x80 != 0 {
        Some(vli(body, &mut at).ok_or_else(|| bad(at))?)
    } else {
        None
    };
    let id = vli(body, &mut at).ok_or_else(|| bad(at))?;
    let props = vli(body, &mut at).ok_or_else(|| bad(at))?;
    let dict = body.get(at).copied().unwrap_or(0xff);
    if id != FILTER_LZMA2 || props != 1 || dict > 40 {
        return Err(bad(at));
    }
    at = at.saturating_add(1);
    if body.get(at..).is_none_or(|p| p.iter().any(|&x| x != 0)) {
        return Err(bad(at));
    }
    let before = out.len();
    let used = lzma2(input.get(hend..).unwrap_or(&[]), out, start, limit, scratch)
        .map_err(|x| x.shifted(hend))?;
    let produced = out.len().saturating_sub(before) as u64;
    if csize.is_some_and(|c| c != used as u64) || usize_.is_some_and(|u| u != produced) {
        return Err(e(CodecErrorKind::LengthMismatch, pos));
    }
    Ok((
        (size.saturating_add(used)) as u64,
        hend.saturating_add(used),
    ))
}

/// The index at `pos`: checks it against the blocks; returns its end.
fn index(input: &[u8], pos: usize, records: &Records) -> Result<usize, Error> {
    let e = Error::new;
    let rest = input.get(pos..).unwrap_or(&[]);
    let mut at = 1usize;
    let n = vli(rest, &mut at).ok_or_else(|| e(CodecErrorKind::BadData, pos))?;
    let mut seen = Records::default();
    let mut k = 0u64;
    while k < n {
        let (Some(u), Some(c)) = (vli(rest, &mut at), vli(rest, &mut at)) else {
            return Err(e(CodecErrorKind::BadData, pos.saturating_add(at)));
        };
        seen.add(u, c);
        k = k.saturating_add(1);
        if k > records.n {
            break;
        }
    }
    if seen.n != records.n || seen.crc != records.crc {
        return Err(e(CodecErrorKind::BadData, pos));
    }
    let padded = at.saturating_add(at.wrapping_neg() & 3);
    if rest
        .get(at..padded)
        .is_none_or(|p| p.iter().any(|&x| x != 0))
    {
        return Err(e(CodecErrorKind::Truncated, pos.saturating_add(at)));
    }
    let Some(body) = rest.get(..padded) else {
        return Err(e(CodecErrorKind::Truncated, input.len()));
    };
    if rest.get(padded..padded.saturating_add(4)).is_none() {
        return Err(e(CodecErrorKind::Truncated, input.len()));
    }
    if crc32_ieee(body) != le32(rest, padded) {
        return Err(e(
            CodecErrorKind::ChecksumMismatch,
            pos.saturating_add(padded),
        ));
    }
    Ok(pos.saturating_add(padded).saturating_add(4))
}

/// The stream footer at `end`; `index_at` is where the index began.
fn footer(input: &[u8], end: usize, index_at: usize, flags: &[u8]) -> Result<(), Error> {
    let e = Error::new;
    let Some(f) = input.get(end..end.saturating_add(12)) else {
        return Err(e(CodecErrorKind::Truncated, input.len()));
    };
    if crc32_ieee(f.get(4..10).unwrap_or(&[])) != le32(f, 0) {
        return Err(e(CodecErrorKind::ChecksumMismatch, end));
    }
    let backward = (u64::from(le32(f, 4)).saturating_add(1)).saturating_mul(4);
    if f.get(10..12) != Some(b"YZ".as_slice())
        || f.get(8..10) != Some(flags)
        || backward != end.saturating_sub(index_at) as u64
    {
        return Err(e(CodecErrorKind::BadHeader, end));
    }
    Ok(())
}

fn le32(b: &[u8], at: usize) -> u32 {
    b.get(at..at.saturating_add(4))
        .and_then(|x| x.try_into().ok())
        .map_or(0, u32::from_le_bytes)
}

/// A `.xz` variable-length integer (at most 9 bytes, no trailing zero
/// byte).
fn vli(b: &[u8], at: &mut usize) -> Option<u64> {
    let mut v = 0u64;
    for i in 0..9u32 {
        let x = *b.get(*at)?;
        *at = at.saturating_add(1);
        v |= u64::from(x & 0x7f) << (7u32.wrapping_mul(i));
        if x & 0x80 == 0 {
            return (i == 0 || x != 0).then_some(v);
        }
    }
    None
}

/// CRC-64/XZ (ECMA-182 polynomial, reflected, all ones in and out).
fn crc64_xz(data: &[u8]) -> u64 {
    let mut c = !0u64;
    for &b in data {
        c ^= u64::from(b);
        for _ in 0..8 {
            c = if c & 1 != 0 {
                (c >> 1) ^ 0xC96C_5795_D787_0F42
            } else {
                c >> 1
            };
        }
    }
    !c
}

/// LZMA2 chunks from the start of `input` until the end control byte;
/// returns the bytes used.
fn lzma2(
    input: &[u8],
    out: &mut Vec<u8>,
    start: usize,
    limit: usize,
    scratch: &mut Scratch,
) -> Result<usize, Error> {
    let e = Error::new;
    let mut pos = 0usize;
    let mut dec = Lzma::new(scratch);
    let (mut need_dict, mut need_props) = (true, true);
    loop {
        let at = pos;
        let b = |i: usize| input.get(at.saturating_add(i)).copied().map(usize::from);
        let Some(control) = b(0) else {
            return Err(e(CodecErrorKind::Truncated, at));
        };
        if control == 0 {
            return Ok(at.saturating_add(1));
        }
        let (Some(h1), Some(h2)) = (b(1), b(2)) else {
            return Err(e(CodecErrorKind::Truncated, input.len()));
        };
        let mut size = (h1 << 8 | h2).saturating_add(1);
        if control == 1 || control == 2 {
            if control == 1 {
                dec.dict_start = out.len();
                (need_dict, need_props) = (false, true);
            } else if need_dict {
                return Err(e(CodecErrorKind::BadData, at));
            }
            let from = at.saturating_add(3);
            let Some(data) = input.get(from..from.saturating_add(size)) else {
                return Err(e(CodecErrorKind::Truncated, input.len()));
            };
            push_literals(out, start, data, limit).map_err(|k| e(k, from))?;
            pos = from.saturating_add(size);
            continue;
        }
        if control < 0x80 {
            return Err(e(CodecErrorKind::BadData, at));
        }
        size = size.saturating_add((control & 0x1f) << 16);
        let (Some(c1), Some(c2)) = (b(3), b(4)) else {
            return Err(e(CodecErrorKind::Truncated, input.len()));
        };
        let csize = (c1 << 8 | c2).saturating_add(1);
        let reset = (control >> 5) & 3;
        if reset == 3 {
            dec.dict_start = out.len();
            need_dict = false;
        } else if need_dict {
            return Err(e(CodecErrorKind::BadData, at));
        }
        pos = at.saturating_add(5);
        if reset >= 2 {
            let p = b(5).ok_or_else(|| e(CodecErrorKind::Truncated, input.len()))?;
            dec.set_props(p).map_err(|k| e(k, pos))?;
            need_props = false;
            pos = pos.saturating_add(1);
        } else if need_props {
            return Err(e(CodecErrorKind::BadData, at));
        }
        if reset >= 1 {
            dec.reset_state();
        }
        if out.len().saturating_sub(start).saturating_add(size) > limit {
            return Err(e(CodecErrorKind::OutputLimit, at));
        }
        let Some(chunk) = input.get(pos..pos.saturating_add(csize)) else {
            return Err(e(CodecErrorKind::Truncated, input.len()));
        };
        let target = out.len().saturating_add(size);
        dec.chunk(chunk, out, target).map_err(|x| x.shifted(pos))?;
        pos = pos.saturating_add(csize);
    }
}

/// The range decoder of one LZMA chunk.
struct Rc<'a> {
    input: &'a [u8],
    pos: usize,
    range: u32,
    code: u32,
    /// The coder read past the chunk (it is fed zeros meanwhile, and the
    /// chunk's decoding stops at the next symbol): a truncated chunk.
    overrun: bool,
}

const TOP: u32 = 1 << 24;

impl<'a> Rc<'a> {
    fn new(input: &'a [u8]) -> Result<Self, Error> {
        let Some(init) = input.get(..5) else {
            return Err(Error::new(CodecErrorKind::Truncated, input.len()));
        };
        if init.first() != Some(&0) {
            return Err(Error::new(CodecErrorKind::BadData, 0));
        }
        let code = init
            .iter()
            .skip(1)
            .fold(0u32, |a, &b| a << 8 | u32::from(b));
        Ok(Rc {
            input,
            pos: 5,
            range: u32::MAX,
            code,
            overrun: false,
        })
    }

    #[inline(always)]
    fn normalize(&mut self) {
        if self.range < TOP {
            let b = match self.input.get(self.pos) {
                Some(&b) => b,
                None => {
                    self.overrun = true;
                    0
                }
            };
            self.pos = self.pos.saturating_add(1);
            self.range <<= 8;
            self.code = self.code << 8 | u32::from(b);
        }
    }

    /// One bit with probability `p` (no error: past the chunk the coder
    /// reads zeros and sets `overrun`, which the chunk loop checks).
    #[inline(always)]
    fn bit(&mut self, p: &mut u16) -> usize {
        self.normalize();
        let bound = (self.range >> 11).wrapping_mul(u32::from(*p));
        if self.code < bound {
            self.range = bound;
            *p = p.wrapping_add((2048u16.wrapping_sub(*p)) >> 5);
            0
        } else {
            self.range = self.range.wrapping_sub(bound);
            self.code = self.code.wrapping_sub(bound);
            *p = p.wrapping_sub(*p >> 5);
            1
        }
    }

    /// [`Rc::bit`] without a branch on the bit (for literals, whose bits
    /// a CPU cannot predict): the new range, code and probability are
    /// picked by a mask.
    #[inline(always)]
    fn bit_flat(&mut self, p: &mut u16) -> usize {
        self.normalize();
        let prob = u32::from(*p);
        let bound = (self.range >> 11).wrapping_mul(prob);
        let bit = u32::from(self.code >= bound);
        let mask = 0u32.wrapping_sub(bit);
        self.range = (bound & !mask) | (self.range.wrapping_sub(bound) & mask);
        self.code = self.code.wrapping_sub(bound & mask);
        let up = 2048u32.wrapping_sub(prob) >> 5;
        let down = prob >> 5;
        *p = prob.wrapping_add(up & !mask).wrapping_sub(down & mask) as u16;
        bit as usize
    }

    fn direct(&mut self, n: u32) -> u32 {
        let mut v = 0u32;
        for _ in 0..n {
            self.normalize();
            self.range >>= 1;
            let bit = if self.code >= self.range {
                self.code = self.code.wrapping_sub(self.range);
                1
            } else {
                0
            };
            v = v << 1 | bit;
        }
        v
    }

    /// An `n`-bit tree from `probs[1..2^n]`.
    fn tree(&mut self, probs: &mut [u16], n: u32) -> Result<usize, Error> {
        let mut m = 1usize;
        for _ in 0..n {
            let p = probs.get_mut(m).ok_or_else(|| self.bad())?;
            m = m << 1 | self.bit_flat(p);
        }
        Ok(m.wrapping_sub(1 << n))
    }

    /// An `n`-bit reverse tree at `probs[off + m − 1]`.
    fn reverse(&mut self, probs: &mut [u16], off: usize, n: u32) -> Result<usize, Error> {
        let (mut m, mut v) = (1usize, 0usize);
        for i in 0..n {
            let idx = off.wrapping_add(m).wrapping_sub(1);
            let p = probs.get_mut(idx).ok_or_else(|| self.bad())?;
            let bit = self.bit_flat(p);
            m = m << 1 | bit;
            v |= bit << i;
        }
        Ok(v)
    }

    fn bad(&self) -> Error {
        Error::new(CodecErrorKind::BadData, self.pos)
    }
}

/// A match or repeated-match length model.
#[derive(Clone, Copy)]
struct Len {
    choice: u16,
    choice2: u16,
    low: [u16; 16 * 8],
    mid: [u16; 16 * 8],
    high: [u16; 256],
}

impl Len {
    const INIT: Len = Len {
        choice: 1024,
        choice2: 1024,
        low: [1024; 128],
        mid: [1024; 128],
        high: [1024; 256],
    };

    /// Length − 2.
    fn decode(&mut self, rc: &mut Rc<'_>, pos_state: usize) -> Result<usize, Error> {
        let at = pos_state.wrapping_mul(8);
        if rc.bit(&mut self.choice) == 0 {
            let p = self.low.get_mut(at..).ok_or_else(|| rc.bad())?;
            return rc.tree(p, 3);
        }
        if rc.bit(&mut self.choice2) == 0 {
            let p = self.mid.get_mut(at..).ok_or_else(|| rc.bad())?;
            return Ok(rc.tree(p, 3)?.wrapping_add(8));
        }
        Ok(rc.tree(&mut self.high, 8)?.wrapping_add(16))
    }
}

/// The LZMA model that carries over from chunk to chunk.
struct Lzma<'s> {
    lit: &'s mut Vec<u16>,
    is_match: [u16; 12 * 16],
    is_rep: [u16; 12],
    is_rep0: [u16; 12],
    is_rep1: [u16; 12],
    is_rep2: [u16; 12],
    is_rep0_long: [u16; 12 * 16],
    pos_slot: [u16; 4 * 64],
    pos_special: [u16; 114],
    align: [u16; 16],
    match_len: Len,
    rep_len: Len,
    state: usize,
    reps: [usize; 4],
    lc: u32,
    lp_mask: usize,
    pb_mask: usize,
    /// Output index of the last dictionary reset.
    dict_start: usize,
}

impl<'s> Lzma<'s> {
    fn new(scratch: &'s mut Scratch) -> Self {
        Lzma {
            lit: &mut scratch.lzma_probs,
            is_match: [1024; 192],
            is_rep: [1024; 12],
            is_rep0: [1024; 12],
            is_rep1: [1024; 12],
            is_rep2: [1024; 12],
            is_rep0_long: [1024; 192],
            pos_slot: [1024; 256],
            pos_special: [1024; 114],
            align: [1024; 16],
            match_len: Len::INIT,
            rep_len: Len::INIT,
            state: 0,
            reps: [0; 4],
            lc: 0,
            lp_mask: 0,
            pb_mask: 0,
            dict_start: 0,
        }
    }

    fn set_props(&mut self, p: usize) -> Result<(), CodecErrorKind> {
        let (lc, lp, pb) = (p % 9, (p / 9) % 5, p / 45);
        if p >= 225 || lc.saturating_add(lp) > 4 || pb > 4 {
            return Err(CodecErrorKind::BadData);
        }
        self.lc = lc as u32;
        self.lp_mask = (1usize << lp).wrapping_sub(1);
        self.pb_mask = (1usize << pb).wrapping_sub(1);
        Ok(())
    }

    fn reset_state(&mut self) {
        let n = 0x300usize << self.lc.wrapping_add(self.lp_mask.count_ones());
        self.lit.clear();
        self.lit.resize(n, 1024);
        for p in self
            .is_match
            .iter_mut()
            .chain(&mut self.is_rep)
            .chain(&mut self.is_rep0)
            .chain(&mut self.is_rep1)
            .chain(&mut self.is_rep2)
            .chain(&mut self.is_rep0_long)
            .chain(&mut self.pos_slot)
            .chain(&mut self.pos_special)
            .chain(&mut self.align)
        {
            *p = 1024;
        }
        self.match_len = Len::INIT;
        self.rep_len = Len::INIT;
        self.state = 0;
        self.reps = [0; 4];
    }
}

impl Lzma<'_> {
    /// One LZMA chunk: decodes until `out` holds `target` bytes, then
    /// requires every byte of `chunk` used and the range code at 0.
    fn chunk(&mut self, chunk: &[u8], out: &mut Vec<u8>, target: usize) -> Result<(), Error> {
        let mut rc = Rc::new(chunk)?;
        while out.len() < target && !rc.overrun {
            let pos = out.len().saturating_sub(self.dict_start);
            let ps = pos & self.pb_mask;
            let st = self.state;
            let at = st.wrapping_mul(16).wrapping_add(ps);
            let bad = |rc: &Rc<'_>| rc.bad();
            let p = self.is_match.get_mut(at).ok_or_else(|| bad(&rc))?;
            if rc.bit(p) == 0 {
                self.literal(&mut rc, out, pos)?;
                continue;
            }
            let p = self.is_rep.get_mut(st).ok_or_else(|| bad(&rc))?;
            let len = if rc.bit(p) == 0 {
                let len = self.match_len.decode(&mut rc, ps)?;
                self.state = if st < 7 { 7 } else { 10 };
                let dist = self.distance(&mut rc, len)?;
                self.reps = [dist, self.reps[0], self.reps[1], self.reps[2]];
                len
            } else {
                let p = self.is_rep0.get_mut(st).ok_or_else(|| bad(&rc))?;
                if rc.bit(p) == 0 {
                    let p = self.is_rep0_long.get_mut(at).ok_or_else(|| bad(&rc))?;
                    if rc.bit(p) == 0 {
                        self.state = if st < 7 { 9 } else { 11 };
                        self.copy(&rc, out, 1, target)?;
                        continue;
                    }
                } else {
                    self.pick_rep(&mut rc, st)?;
                }
                self.state = if st < 7 { 8 } else { 11 };
                self.rep_len.decode(&mut rc, ps)?
            };
            self.copy(&rc, out, len.saturating_add(2), target)?;
        }
        rc.normalize();
        if rc.overrun {
            return Err(Error::new(CodecErrorKind::Truncated, chunk.len()));
        }
        if rc.pos != chunk.len() || rc.code != 0 {
            return Err(Error::new(CodecErrorKind::BadData, rc.pos));
        }
        Ok(())
    }

    /// rep1, rep2 or rep3 moves to the front.
    fn pick_rep(&mut self, rc: &mut Rc<'_>, st: usize) -> Result<(), Error> {
        let [r0, r1, r2, r3] = self.reps;
        let p = self.is_rep1.get_mut(st).ok_or_else(|| rc.bad())?;
        self.reps = if rc.bit(p) == 0 {
            [r1, r0, r2, r3]
        } else {
            let p = self.is_rep2.get_mut(st).ok_or_else(|| rc.bad())?;
            if rc.bit(p) == 0 {
                [r2, r0, r1, r3]
            } else {
                [r3, r0, r1, r2]
            }
        };
        Ok(())
    }

    /// Copies `len` bytes from distance rep0 + 1, within the dictionary and
    /// the chunk.
    fn copy(&self, rc: &Rc<'_>, out: &mut Vec<u8>, len: usize, target: usize) -> Result<(), Error> {
        if len > target.saturating_sub(out.len()) {
            return Err(rc.bad());
        }
        let dist = self.reps[0].saturating_add(1);
        copy_match(out, self.dict_start, dist, len, usize::MAX).map_err(|k| Error::new(k, rc.pos))
    }

    fn literal(&mut self, rc: &mut Rc<'_>, out: &mut Vec<u8>, pos: usize) -> Result<(), Error> {
        let prev = if pos > 0 {
            out.last().copied().unwrap_or(0)
        } else {
            0
        };
        let lit_state = ((pos & self.lp_mask) << self.lc)
            .wrapping_add(usize::from(prev) >> (8u32.wrapping_sub(self.lc)));
        let base = lit_state.wrapping_mul(0x300);
        let probs = self
            .lit
            .get_mut(base..base.saturating_add(0x300))
            .ok_or_else(|| rc.bad())?;
        let mut sym = 1usize;
        if self.state >= 7 {
            let back = self.reps[0].saturating_add(1);
            if back > pos {
                return Err(Error::new(CodecErrorKind::BadDistance, rc.pos));
            }
            let mut mb = usize::from(out.get(out.len().wrapping_sub(back)).copied().unwrap_or(0));
            while sym < 0x100 {
                let match_bit = (mb >> 7) & 1;
                mb <<= 1;
                let idx = 0x100usize.wrapping_add(match_bit << 8).wrapping_add(sym);
                let p = probs.get_mut(idx).ok_or_else(|| rc.bad())?;
                let bit = rc.bit_flat(p);
                sym = sym << 1 | bit;
                if match_bit != bit {
                    break;
                }
            }
        }
        while sym < 0x100 {
            let p = probs.get_mut(sym).ok_or_else(|| rc.bad())?;
            sym = sym << 1 | rc.bit_flat(p);
        }
        out.push(sym as u8);
        self.state = match self.state {
            0..=3 => 0,
            4..=9 => self.state.wrapping_sub(3),
            s => s.wrapping_sub(6),
        };
        Ok(())
    }

    /// The distance − 1 of a new match of length `len` + 2.
    fn distance(&mut self, rc: &mut Rc<'_>, len: usize) -> Result<usize, Error> {
        let ls = len.min(3).wrapping_mul(64);
        let probs = self.pos_slot.get_mut(ls..).ok_or_else(|| rc.bad())?;
        let slot = rc.tree(probs, 6)?;
        if slot < 4 {
            return Ok(slot);
        }
        let nd = ((slot >> 1) as u32).wrapping_sub(1);
        let dist = (2 | (slot & 1)) << nd;
        if slot < 14 {
            let off = dist.wrapping_sub(slot);
            return Ok(dist.wrapping_add(rc.reverse(&mut self.pos_special, off, nd)?));
        }
        let direct = rc.direct(nd.wrapping_sub(4)) as usize;
        let d = dist
            .wrapping_add(direct << 4)
            .wrapping_add(rc.reverse(&mut self.align, 1, 4)?);
        if d == 0xFFFF_FFFF {
            // The end-of-payload marker: LZMA2 chunks have none.
            return Err(rc.bad());
        }
        Ok(d)
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
    use crate::common::tests_vectors::{read_vector, ORIGINAL};

    #[test]
    fn check_values() {
        // CRC-64/XZ check value of "123456789".
        assert_eq!(crc64_xz(b"123456789"), 0x995D_C9BB_DF19_39FA);
    }

    #[test]
    fn reference_streams_decode_to_the_original() {
        let mut s = Scratch::new();
        for name in ["lzma.xz", "lzma-crc32.xz", "lzma-crc64.xz"] {
            let v = read_vector(name);
            let mut out = Vec::new();
            let n = decompress_xz(&v, &mut out, ORIGINAL.len(), &mut s).unwrap();
            assert_eq!(n, ORIGINAL.len(), "{name}");
            assert_eq!(out, ORIGINAL, "{name}");
            // Trailing bytes (a page's padding) are not read.
            let mut padded = v.clone();
            padded.extend([0u8; 64]);
            out.clear();
            decompress_xz(&padded, &mut out, ORIGINAL.len(), &mut s).unwrap();
            out.clear();
            let e = decompress_xz(&v, &mut out, ORIGINAL.len() - 1, &mut s).unwrap_err();
            assert_eq!(e.sk(), CodecErrorKind::OutputLimit, "{name}");
            assert!(out.len() < ORIGINAL.len());
            for cut in 0..v.len() {
                out.clear();
                assert!(
                    decompress_xz(&v[..cut], &mut out, 1 << 20, &mut s).is_err(),
                    "{name} {cut}"
                );
            }
        }
    }

    #[test]
    fn damage_is_an_error() {
        let mut s = Scratch::new();
        let v = read_vector("lzma-crc32.xz");
        let mut out = Vec::new();
        let mut errors = 0;
        let n = (0..v.len()).step_by(5).count();
        for at in (0..v.len()).step_by(5) {
            let mut w = v.clone();
            w[at] ^= 0x10;
            out.clear();
            if decompress_xz(&w, &mut out, ORIGINAL.len(), &mut s).is_err() {
                errors += 1;
            }
            assert!(out.len() <= ORIGINAL.len());
        }
        // With a CRC-32 of the data every flipped byte is caught.
        assert_eq!(errors, n);
        // The stream header's CRC, the magic.
        let mut w = v.clone();
        w[7] = 4;
        let e = decompress_xz(&w, &mut out, 1 << 20, &mut s).unwrap_err();
        assert_eq!((e.sk(), e.offset), (CodecErrorKind::ChecksumMismatch, 8));
        w = v.clone();
        w[0] = 0x5d;
        assert_eq!(
            decompress_xz(&w, &mut out, 1 << 20, &mut s)
                .unwrap_err()
                .sk(),
            CodecErrorKind::BadHeader
        );
    }
}
