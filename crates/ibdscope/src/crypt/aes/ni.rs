//! AES on the AES-NI instructions (x86-64), four blocks interleaved.
//!
//! One of the two modules of the library allowed `unsafe`, for one block:
//! calling a function compiled for AES-NI (`#[target_feature]`) from code
//! that is not, which is sound only on a CPU that has it. [`blocks`] checks
//! with `is_x86_feature_detected!("aes")` (cached by std) right before the
//! call. Inside, the intrinsics are safe functions and blocks move between
//! bytes and registers by value (`_mm_set_epi64x`, `_mm_cvtsi128_si64`),
//! so no `unsafe` code touches memory.
//!
//! `aesenc` has a latency of about four cycles and a throughput of one or
//! two per cycle, so independent blocks (ECB, CBC decryption, CTR) run four
//! at a time. Decryption takes the equivalent inverse cipher's round keys
//! (FIPS-197 §5.3.5), which the caller computed.

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

/// Encrypts (`keys` the cipher's round keys) or decrypts (`keys` the
/// equivalent inverse cipher's) every whole block of `data` in place;
/// `false`, `data` untouched, when the CPU has no AES-NI.
pub(super) fn blocks(keys: &Keys, rounds: usize, data: &mut [u8], decrypt: bool) -> bool {
    if !std::arch::is_x86_feature_detected!("aes") || rounds >= 15 {
        return false;
    }
    // SAFETY: `run` only needs the CPU to execute AES-NI and SSE2
    // instructions (its `target_feature`); AES was checked just above and
    // SSE2 is part of the x86-64 baseline. It reads and writes memory only
    // through safe slice APIs.
    unsafe {
        if decrypt {
            run::<true>(keys, rounds, data);
        } else {
            run::<false>(keys, rounds, data);
        }
    }
    true
}
