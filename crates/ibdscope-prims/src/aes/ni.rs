//! AES on the AES-NI instructions (x86-64): blocks four at a time (ECB),
//! and CBC decryption and CTR eight at a time, the chaining or the counter
//! done in registers.
//!
//! One of the modules of the library allowed `unsafe`, for one block:
//! calling a function compiled for AES-NI (`#[target_feature]`) from code
//! that is not, which is sound only on a CPU that has it. [`call`] checks
//! with `is_x86_feature_detected!("aes")` (cached by std) right before the
//! call. Inside, the intrinsics are safe functions and blocks move between
//! bytes and registers by value (`_mm_set_epi64x`, `_mm_cvtsi128_si64`),
//! so no `unsafe` code touches memory.
//!
//! `aesenc` has a latency of about four cycles and a throughput of one or
//! two per cycle, so independent blocks run interleaved: four at a time in
//! [`blocks`] (ECB), eight in [`cbc_decrypt`] (CBC decryption is parallel
//! across blocks: each plaintext block is `D(C_i) ^ C_(i-1)`) and
//! [`ctr_xor`] (the counter blocks are known in advance), which also do the
//! XORs in registers rather than in a second pass over the data. Decryption
//! takes the equivalent inverse cipher's round keys (FIPS-197 §5.3.5),
//! which the caller computed.

use super::Keys;
use core::arch::x86_64::{
    __m128i, _mm_aesdec_si128, _mm_aesdeclast_si128, _mm_aesenc_si128, _mm_aesenclast_si128,
    _mm_cvtsi128_si64, _mm_set_epi64x, _mm_unpackhi_epi64, _mm_xor_si128,
};

#[inline]
#[target_feature(enable = "aes,sse2")]
fn load(b: &[u8]) -> __m128i {
    let mut a = [0u8; 16];
    a.copy_from_slice(b);
    let v = u128::from_le_bytes(a);
    _mm_set_epi64x((v >> 64) as u64 as i64, v as u64 as i64)
}

#[inline]
#[target_feature(enable = "aes,sse2")]
fn store(v: __m128i, out: &mut [u8]) {
    let lo = _mm_cvtsi128_si64(v) as u64;
    let hi = _mm_cvtsi128_si64(_mm_unpackhi_epi64(v, v)) as u64;
    let x = (u128::from(hi) << 64) | u128::from(lo);
    out.copy_from_slice(&x.to_le_bytes());
}

#[inline]
#[target_feature(enable = "aes,sse2")]
fn round<const DEC: bool>(v: __m128i, k: __m128i) -> __m128i {
    if DEC {
        _mm_aesdec_si128(v, k)
    } else {
        _mm_aesenc_si128(v, k)
    }
}

#[inline]
#[target_feature(enable = "aes,sse2")]
fn last<const DEC: bool>(v: __m128i, k: __m128i) -> __m128i {
    if DEC {
        _mm_aesdeclast_si128(v, k)
    } else {
        _mm_aesenclast_si128(v, k)
    }
}

#[target_feature(enable = "aes,sse2")]
fn run<const DEC: bool>(keys: &Keys, rounds: usize, data: &mut [u8]) {
    let mut k = [_mm_set_epi64x(0, 0); 15];
    for (reg, key) in k.iter_mut().zip(keys.iter()).take(rounds + 1) {
        *reg = load(key);
    }
    let first = k[0];
    let final_key = k[rounds];
    let middle = k.get(1..rounds).unwrap_or(&[]);
    let mut quads = data.chunks_exact_mut(64);
    for quad in quads.by_ref() {
        let (a, rest) = quad.split_at_mut(16);
        let (b, rest) = rest.split_at_mut(16);
        let (c, d) = rest.split_at_mut(16);
        let mut v = [load(a), load(b), load(c), load(d)];
        for x in v.iter_mut() {
            *x = _mm_xor_si128(*x, first);
        }
        for &key in middle {
            for x in v.iter_mut() {
                *x = round::<DEC>(*x, key);
            }
        }
        for (x, out) in v.iter().zip([a, b, c, d]) {
            store(last::<DEC>(*x, final_key), out);
        }
    }
    for block in quads.into_remainder().chunks_exact_mut(16) {
        let mut x = _mm_xor_si128(load(block), first);
        for &key in middle {
            x = round::<DEC>(x, key);
        }
        store(last::<DEC>(x, final_key), block);
    }
    // The round keys in registers leave with the stack frame; the array
    // of them is cleared here.
    for reg in k.iter_mut() {
        *reg = _mm_set_epi64x(0, 0);
    }
    core::hint::black_box(&k);
}

/// Blocks per batch of the eight-way loops.
const WIDE: usize = 8;

/// Round keys in registers: `first`, the middle ones, `last`; cleared by
/// [`RoundKeys::clear`].
struct RoundKeys {
    k: [__m128i; 15],
    rounds: usize,
}

impl RoundKeys {
    #[inline]
    #[target_feature(enable = "aes,sse2")]
    fn load(keys: &Keys, rounds: usize) -> RoundKeys {
        let mut k = [_mm_set_epi64x(0, 0); 15];
        for (reg, key) in k.iter_mut().zip(keys.iter()).take(rounds + 1) {
            *reg = load(key);
        }
        RoundKeys { k, rounds }
    }

    /// The whole cipher (or inverse cipher) on eight blocks at once.
    #[inline]
    #[target_feature(enable = "aes,sse2")]
    fn run8<const DEC: bool>(&self, v: &mut [__m128i; WIDE]) {
        let first = self.k[0];
        for x in v.iter_mut() {
            *x = _mm_xor_si128(*x, first);
        }
        for &key in self.k.get(1..self.rounds).unwrap_or(&[]) {
            for x in v.iter_mut() {
                *x = round::<DEC>(*x, key);
            }
        }
        let final_key = self.k[self.rounds];
        for x in v.iter_mut() {
            *x = last::<DEC>(*x, final_key);
        }
    }

    /// The whole cipher (or inverse cipher) on one block.
    #[inline]
    #[target_feature(enable = "aes,sse2")]
    fn run1<const DEC: bool>(&self, x: __m128i) -> __m128i {
        let mut x = _mm_xor_si128(x, self.k[0]);
        for &key in self.k.get(1..self.rounds).unwrap_or(&[]) {
            x = round::<DEC>(x, key);
        }
        last::<DEC>(x, self.k[self.rounds])
    }

    #[inline]
    #[target_feature(enable = "aes,sse2")]
    fn clear(&mut self) {
        for reg in self.k.iter_mut() {
            *reg = _mm_set_epi64x(0, 0);
        }
        core::hint::black_box(&self.k);
    }
}

/// A block holding `ctr` as a 128-bit big-endian integer.
#[inline]
#[target_feature(enable = "aes,sse2")]
fn counter_block(ctr: u128) -> __m128i {
    // Big-endian bytes read as a little-endian integer: the byte swap.
    let v = ctr.swap_bytes();
    _mm_set_epi64x((v >> 64) as u64 as i64, v as u64 as i64)
}

/// `dst` = CBC decryption of `src` (as long, whole blocks): eight blocks at
/// a time, each `D(C_i) ^ C_(i-1)`.
#[target_feature(enable = "aes,sse2")]
fn cbc_decrypt_run(k: &RoundKeys, prev: &mut __m128i, src: &[u8], dst: &mut [u8]) {
    let mut from = src.chunks_exact(16 * WIDE);
    let mut to = dst.chunks_exact_mut(16 * WIDE);
    for (batch, out) in from.by_ref().zip(to.by_ref()) {
        let mut c = [*prev; WIDE];
        for (x, b) in c.iter_mut().zip(batch.chunks_exact(16)) {
            *x = load(b);
        }
        let mut v = c;
        k.run8::<true>(&mut v);
        for ((x, o), i) in v.iter().zip(out.chunks_exact_mut(16)).zip(0..WIDE) {
            let chain = if i == 0 { *prev } else { c[i - 1] };
            store(_mm_xor_si128(*x, chain), o);
        }
        *prev = c[WIDE - 1];
    }
    let rest = from.remainder().chunks_exact(16);
    for (block, o) in rest.zip(to.into_remainder().chunks_exact_mut(16)) {
        let c = load(block);
        store(_mm_xor_si128(k.run1::<true>(c), *prev), o);
        *prev = c;
    }
}

/// `dst` = `src` XOR the CTR key stream from `*ctr` (any length, as long
/// as `src`), eight blocks at a time; `*ctr` moves past the blocks used.
#[target_feature(enable = "aes,sse2")]
fn ctr_xor_run(k: &RoundKeys, ctr: &mut u128, src: &[u8], dst: &mut [u8]) {
    let mut from = src.chunks_exact(16 * WIDE);
    let mut to = dst.chunks_exact_mut(16 * WIDE);
    for (batch, out) in from.by_ref().zip(to.by_ref()) {
        let mut v = [_mm_set_epi64x(0, 0); WIDE];
        for x in v.iter_mut() {
            *x = counter_block(*ctr);
            *ctr = ctr.wrapping_add(1);
        }
        k.run8::<false>(&mut v);
        for ((x, b), o) in v
            .iter()
            .zip(batch.chunks_exact(16))
            .zip(out.chunks_exact_mut(16))
        {
            store(_mm_xor_si128(*x, load(b)), o);
        }
    }
    let rest = from.remainder().chunks(16);
    for (block, o) in rest.zip(to.into_remainder().chunks_mut(16)) {
        let s = k.run1::<false>(counter_block(*ctr));
        *ctr = ctr.wrapping_add(1);
        if block.len() == 16 && o.len() == 16 {
            store(_mm_xor_si128(s, load(block)), o);
        } else {
            let mut stream = [0u8; 16];
            store(s, &mut stream);
            for ((d, b), s) in o.iter_mut().zip(block).zip(stream.iter()) {
                *d = b ^ s;
            }
            crate::wipe::wipe(&mut stream);
        }
    }
}

/// Bytes copied aside at a time by the in-place forms (the runs read one
/// slice and write another).
const STAGE: usize = 512;

#[target_feature(enable = "aes,sse2")]
fn cbc_decrypt_with(keys: &Keys, rounds: usize, iv: &[u8; 16], src: Option<&[u8]>, dst: &mut [u8]) {
    let k = RoundKeys::load(keys, rounds);
    let mut prev = load(iv);
    match src {
        Some(src) => cbc_decrypt_run(&k, &mut prev, src, dst),
        None => {
            let mut stage = [0u8; STAGE];
            for chunk in dst.chunks_mut(STAGE) {
                let Some(c) = stage.get_mut(..chunk.len()) else {
                    break;
                };
                c.copy_from_slice(chunk);
                cbc_decrypt_run(&k, &mut prev, c, chunk);
            }
        }
    }
    let mut k = k;
    k.clear();
}

#[target_feature(enable = "aes,sse2")]
fn ctr_xor_with(keys: &Keys, rounds: usize, counter: u128, src: Option<&[u8]>, dst: &mut [u8]) {
    let k = RoundKeys::load(keys, rounds);
    let mut ctr = counter;
    match src {
        Some(src) => ctr_xor_run(&k, &mut ctr, src, dst),
        None => {
            let mut stage = [0u8; STAGE];
            for chunk in dst.chunks_mut(STAGE) {
                let Some(c) = stage.get_mut(..chunk.len()) else {
                    break;
                };
                c.copy_from_slice(chunk);
                ctr_xor_run(&k, &mut ctr, c, chunk);
            }
            crate::wipe::wipe(&mut stage);
        }
    }
    let mut k = k;
    k.clear();
}

/// What [`call`] runs on AES-NI.
enum Op<'d> {
    /// Every whole block of `data` in place: ECB.
    Blocks { data: &'d mut [u8], decrypt: bool },
    /// CBC decryption of `src` (`None`: `dst` itself) into `dst`.
    CbcDecrypt {
        iv: &'d [u8; 16],
        src: Option<&'d [u8]>,
        dst: &'d mut [u8],
    },
    /// `dst` = `src` (`None`: `dst` itself) XOR the CTR key stream.
    Ctr {
        counter: u128,
        src: Option<&'d [u8]>,
        dst: &'d mut [u8],
    },
}

#[target_feature(enable = "aes,sse2")]
fn dispatch(keys: &Keys, rounds: usize, op: Op<'_>) {
    match op {
        Op::Blocks {
            data,
            decrypt: true,
        } => run::<true>(keys, rounds, data),
        Op::Blocks {
            data,
            decrypt: false,
        } => run::<false>(keys, rounds, data),
        Op::CbcDecrypt { iv, src, dst } => cbc_decrypt_with(keys, rounds, iv, src, dst),
        Op::Ctr { counter, src, dst } => ctr_xor_with(keys, rounds, counter, src, dst),
    }
}

/// Runs `op` on AES-NI; `false`, nothing touched, when the CPU has no
/// AES-NI (or `rounds` is out of range).
fn call(keys: &Keys, rounds: usize, op: Op<'_>) -> bool {
    if !std::arch::is_x86_feature_detected!("aes") || rounds >= 15 {
        return false;
    }
    // SAFETY: `dispatch` only needs the CPU to execute AES-NI and SSE2
    // instructions (its `target_feature`); AES was checked just above and
    // SSE2 is part of the x86-64 baseline. It reads and writes memory only
    // through safe slice APIs.
    unsafe { dispatch(keys, rounds, op) };
    true
}

/// CBC decryption of the whole blocks of `src` (`None`: of `dst`, in
/// place) into `dst` (`keys`: the equivalent inverse cipher's round
/// keys), eight blocks at a time; `false`, `dst` untouched, when the CPU
/// has no AES-NI or the lengths differ.
pub(super) fn cbc_decrypt(
    keys: &Keys,
    rounds: usize,
    iv: &[u8; 16],
    src: Option<&[u8]>,
    dst: &mut [u8],
) -> bool {
    src.is_none_or(|s| s.len() == dst.len()) && call(keys, rounds, Op::CbcDecrypt { iv, src, dst })
}

/// XORs `src` (`None`: `dst` itself; any length) with the CTR key stream
/// from `counter` into `dst` (`keys`: the cipher's round keys), eight
/// blocks at a time; `false`, `dst` untouched, when the CPU has no AES-NI
/// or the lengths differ.
pub(super) fn ctr_xor(
    keys: &Keys,
    rounds: usize,
    counter: u128,
    src: Option<&[u8]>,
    dst: &mut [u8],
) -> bool {
    src.is_none_or(|s| s.len() == dst.len()) && call(keys, rounds, Op::Ctr { counter, src, dst })
}

/// Encrypts (`keys` the cipher's round keys) or decrypts (`keys` the
/// equivalent inverse cipher's) every whole block of `data` in place;
/// `false`, `data` untouched, when the CPU has no AES-NI.
pub(super) fn blocks(keys: &Keys, rounds: usize, data: &mut [u8], decrypt: bool) -> bool {
    call(keys, rounds, Op::Blocks { data, decrypt })
}
