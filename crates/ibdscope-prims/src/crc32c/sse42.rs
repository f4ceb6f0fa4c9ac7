//! CRC-32C with the SSE4.2 `crc32` instruction (x86-64), over three
//! interleaved streams.
//!
//! The one module of the library allowed `unsafe`, for one block: calling
//! a function compiled for SSE4.2 (`#[target_feature]`) from code that is
//! not, which is sound only on a CPU that has it. [`update`] checks with
//! `is_x86_feature_detected!("sse4.2")` (cached by std) right before the
//! call. Inside, the intrinsics are safe functions (Rust ≥ 1.87) and every
//! read goes through safe slice APIs, so no `unsafe` code touches memory.
//!
//! The `crc32` instruction has a latency of three cycles and a throughput of
//! one per cycle (Intel and AMD alike), so one stream runs at a third of what
//! the unit can do. A long buffer is therefore cut into three equal blocks
//! whose CRCs run side by side, from zero, and are joined by shifting:
//! `crc(A ‖ B ‖ C) = shift(shift(crc(A), |B|) ^ crc(B), |C|) ^ crc(C)`, where
//! `shift(c, n)` (the CRC register `c` advanced over `n` zero bytes) is
//! `c · x^(8n) mod P`, linear in `c`, so four table lookups
//! (`super::shift_table`). Intel's white paper "Fast CRC Computation for
//! iSCSI Polynomial Using CRC32 Instruction" (2011) describes the method;
//! MySQL's `ut0crc32.cc` and MariaDB's `crc32c.cc` use it too.

use super::{shift, ShiftTable, BLOCKS};
use core::arch::x86_64::{_mm_crc32_u64, _mm_crc32_u8};

/// How an 8-byte word is read: little-endian (the CRC as defined) or
/// big-endian (MySQL's legacy big-endian variant).
#[inline(always)]
fn word<const BE: bool>(w: &[u8; 8]) -> u64 {
    if BE {
        u64::from_be_bytes(*w)
    } else {
        u64::from_le_bytes(*w)
    }
}

/// One stream over whole words, then the tail bytes one at a time.
#[inline]
#[target_feature(enable = "sse4.2")]
fn one_stream<const BE: bool>(crc: u32, data: &[u8]) -> u32 {
    let (words, rest) = data.as_chunks::<8>();
    let mut c = u64::from(crc);
    for w in words {
        c = _mm_crc32_u64(c, word::<BE>(w));
    }
    // The instruction zero-extends its 32-bit result into 64 bits.
    let mut crc = c as u32;
    for &b in rest {
        crc = _mm_crc32_u8(crc, b);
    }
    crc
}

/// Three streams over `3 × block` bytes, joined with `table`.
#[inline]
#[target_feature(enable = "sse4.2")]
fn three_streams<const BE: bool>(crc: u32, chunk: &[u8], block: usize, table: &ShiftTable) -> u32 {
    let (a, rest) = chunk.split_at(block.min(chunk.len()));
    let (b, c) = rest.split_at(block.min(rest.len()));
    let (aw, _) = a.as_chunks::<8>();
    let (bw, _) = b.as_chunks::<8>();
    let (cw, _) = c.as_chunks::<8>();
    let (mut x, mut y, mut z) = (u64::from(crc), 0u64, 0u64);
    for ((p, q), r) in aw.iter().zip(bw).zip(cw) {
        x = _mm_crc32_u64(x, word::<BE>(p));
        y = _mm_crc32_u64(y, word::<BE>(q));
        z = _mm_crc32_u64(z, word::<BE>(r));
    }
    let ab = shift(table, x as u32) ^ y as u32;
    shift(table, ab) ^ z as u32
}

/// Continues the raw CRC register `crc` over `data` (no pre/post
/// inversion) when the CPU has SSE4.2; `None` when it does not. `BE` feeds
/// aligned words in big-endian order (the caller splits off the unaligned
/// head for that variant).
#[inline]
pub(super) fn update<const BE: bool>(crc: u32, data: &[u8]) -> Option<u32> {
    if !std::arch::is_x86_feature_detected!("sse4.2") {
        return None;
    }
    // SAFETY: `update_sse42` only needs the CPU to execute SSE4.2
    // instructions (its `target_feature`), which was checked just above;
    // it reads memory only through safe slice APIs.
    Some(unsafe { update_sse42::<BE>(crc, data) })
}

#[target_feature(enable = "sse4.2")]
fn update_sse42<const BE: bool>(mut crc: u32, mut data: &[u8]) -> u32 {
    for (block, table) in BLOCKS.iter() {
        let whole = block.saturating_mul(3);
        while data.len() >= whole {
            let (chunk, rest) = data.split_at(whole);
            crc = three_streams::<BE>(crc, chunk, *block, table);
            data = rest;
        }
    }
    one_stream::<BE>(crc, data)
}
