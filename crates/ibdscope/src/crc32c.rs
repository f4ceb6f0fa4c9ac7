//! CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), as computed by
//! `ut_crc32` (MySQL storage/innobase/ut/ut0crc32.cc) and `my_crc32c`
//! (MariaDB mysys/crc32/crc32c.cc): initial value 0xFFFFFFFF, final XOR.
//!
//! This is the portable slice-by-8 form. [`crc32c_legacy_big_endian`] is the
//! variant MySQL 5.6/5.7 on big-endian hosts wrote and MySQL still accepts
//! (`ut_crc32_legacy_big_endian`): every aligned 8-byte word is fed to the
//! CRC in reversed byte order, while the unaligned head and tail bytes go
//! one at a time.

const POLY: u32 = 0x82F6_3B78;

#[allow(
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    reason = "runs at compile time on constant bounds; a mistake fails the build, not a read"
)]
const fn make_tables() -> [[u32; 256]; 8] {
    let mut t = [[0u32; 256]; 8];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 { (c >> 1) ^ POLY } else { c >> 1 };
            k += 1;
        }
        t[0][i] = c;
        i += 1;
    }
    let mut s = 1;
    while s < 8 {
        let mut i = 0;
        while i < 256 {
            let prev = t[s - 1][i];
            t[s][i] = (prev >> 8) ^ t[0][(prev & 0xFF) as usize];
            i += 1;
        }
        s += 1;
    }
    t
}

static TABLES: [[u32; 256]; 8] = make_tables();

#[inline(always)]
fn t(table: usize, idx: u32) -> u32 {
    // The table index is masked to 0..=255 and `table` is a literal < 8.
    TABLES
        .get(table)
        .and_then(|r| r.get((idx & 0xFF) as usize))
        .copied()
        .unwrap_or(0)
}

#[inline(always)]
fn byte_step(crc: u32, b: u8) -> u32 {
    t(0, crc ^ u32::from(b)) ^ (crc >> 8)
}

#[inline(always)]
fn word_step(crc: u32, w: u64) -> u32 {
    let x = w ^ u64::from(crc);
    let lo = x as u32;
    let hi = (x >> 32) as u32;
    t(7, lo)
        ^ t(6, lo >> 8)
        ^ t(5, lo >> 16)
        ^ t(4, lo >> 24)
        ^ t(3, hi)
        ^ t(2, hi >> 8)
        ^ t(1, hi >> 16)
        ^ t(0, hi >> 24)
}

/// Continues a raw (not pre/post-inverted) CRC over `data`.
#[inline]
fn update(mut crc: u32, data: &[u8]) -> u32 {
    let (words, rest) = data.as_chunks::<8>();
    for w in words {
        crc = word_step(crc, u64::from_le_bytes(*w));
    }
    for &b in rest {
        crc = byte_step(crc, b);
    }
    crc
}

/// CRC-32C of `data`.
#[inline]
pub fn crc32c(data: &[u8]) -> u32 {
    !update(!0, data)
}

/// CRC-32C of the bytes hashed into `crc` followed by `data`
/// (`my_crc32c(crc, data, len)`), so a CRC can be taken in pieces.
#[inline]
pub fn crc32c_extend(crc: u32, data: &[u8]) -> u32 {
    !update(!crc, data)
}

/// The legacy big-endian CRC-32C of `data`, where `base_offset` is the
/// offset of `data` from an 8-byte aligned start (the page frame).
pub fn crc32c_legacy_big_endian(data: &[u8], base_offset: usize) -> u32 {
    let head = 8usize.wrapping_sub(base_offset % 8) % 8;
    let head = head.min(data.len());
    let (first, body) = data.split_at(head);
    let mut crc = !0u32;
    for &b in first {
        crc = byte_step(crc, b);
    }
    let (words, rest) = body.as_chunks::<8>();
    for w in words {
        crc = word_step(crc, u64::from_be_bytes(*w));
    }
    for &b in rest {
        crc = byte_step(crc, b);
    }
    !crc
}

#[cfg(test)]
#[allow(clippy::arithmetic_side_effects, clippy::indexing_slicing)]
mod tests {
    use super::*;

    /// Bit-at-a-time oracle straight from the polynomial definition.
    fn oracle(data: &[u8]) -> u32 {
        let mut c = !0u32;
        for &b in data {
            c ^= u32::from(b);
            for _ in 0..8 {
                c = if c & 1 != 0 { (c >> 1) ^ POLY } else { c >> 1 };
            }
        }
        !c
    }

    #[test]
    fn check_value() {
        // The CRC-32C check value from the catalogue of parametrised CRCs.
        assert_eq!(crc32c(b"123456789"), 0xE306_9283);
        assert_eq!(crc32c(b""), 0);
    }

    #[test]
    fn matches_oracle_for_all_lengths_and_alignments() {
        let data: Vec<u8> = (0..300u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        for start in 0..9 {
            for len in 0..(data.len() - start) {
                assert_eq!(
                    crc32c(&data[start..start + len]),
                    oracle(&data[start..start + len])
                );
            }
        }
    }

    #[test]
    fn legacy_reverses_aligned_words_only() {
        let data: Vec<u8> = (0..64u8).collect();
        // Build the byte stream the legacy form feeds, from offset 4.
        let mut fed = Vec::new();
        fed.extend_from_slice(&data[4..8]);
        for w in data[8..56].chunks(8) {
            fed.extend(w.iter().rev());
        }
        fed.extend_from_slice(&data[56..59]);
        assert_eq!(crc32c_legacy_big_endian(&data[4..59], 4), oracle(&fed));
    }
}
