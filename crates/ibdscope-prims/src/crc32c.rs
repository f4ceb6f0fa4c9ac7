//! CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), as computed by
//! `ut_crc32` (MySQL storage/innobase/ut/ut0crc32.cc) and `my_crc32c`
//! (MariaDB mysys/crc32/crc32c.cc): initial value 0xFFFFFFFF, final XOR.
//!
//! Two implementations give the same values: the SSE4.2 `crc32` instruction
//! over three interleaved streams (x86-64, chosen at run time when the CPU
//! has it; module `sse42`, the one place the library allows `unsafe`), and
//! the portable slice-by-8 form ([`crc32c_portable`]) everywhere else.
//! [`hardware`] says which one runs.
//!
//! [`crc32c_legacy_big_endian`] is the variant MySQL 5.6/5.7 on big-endian
//! hosts wrote and MySQL still accepts (`ut_crc32_legacy_big_endian`): every
//! aligned 8-byte word is fed to the CRC in reversed byte order, while the
//! unaligned head and tail bytes go one at a time. It takes the same fast
//! path.

#[cfg(target_arch = "x86_64")]
#[allow(
    unsafe_code,
    reason = "one block calls SSE4.2 code after checking the CPU has it; see the module"
)]
mod sse42;

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

/// Continues a raw (not pre/post-inverted) CRC over `data`, portably.
#[inline]
fn update_portable<const BE: bool>(mut crc: u32, data: &[u8]) -> u32 {
    let (words, rest) = data.as_chunks::<8>();
    for w in words {
        let w = if BE {
            u64::from_be_bytes(*w)
        } else {
            u64::from_le_bytes(*w)
        };
        crc = word_step(crc, w);
    }
    for &b in rest {
        crc = byte_step(crc, b);
    }
    crc
}

/// Continues a raw CRC over `data` with the fastest implementation the CPU
/// has. `BE`: feed whole words big-endian (legacy variant; `data` must start
/// at an 8-byte boundary of the original frame).
#[inline]
fn update<const BE: bool>(crc: u32, data: &[u8]) -> u32 {
    #[cfg(target_arch = "x86_64")]
    if let Some(c) = sse42::update::<BE>(crc, data) {
        return c;
    }
    update_portable::<BE>(crc, data)
}

/// True when CRC-32C runs on the CPU's CRC instruction (SSE4.2 on x86-64),
/// false when it runs the portable slice-by-8 code.
pub fn hardware() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("sse4.2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// CRC-32C of `data`.
#[inline]
pub fn crc32c(data: &[u8]) -> u32 {
    !update::<false>(!0, data)
}

/// CRC-32C of `data` by the portable slice-by-8 code, whatever the CPU
/// (for tests and benchmarks; [`crc32c`] picks the fastest).
pub fn crc32c_portable(data: &[u8]) -> u32 {
    !update_portable::<false>(!0, data)
}

/// Splits `data` into its unaligned head (fed byte by byte) and the rest,
/// `base_offset` being the offset of `data` from an 8-byte aligned start.
fn legacy_split(data: &[u8], base_offset: usize) -> (&[u8], &[u8]) {
    let head = 8usize.wrapping_sub(base_offset % 8) % 8;
    data.split_at(head.min(data.len()))
}

/// CRC-32C of the bytes hashed into `crc` followed by `data`
/// (`my_crc32c(crc, data, len)`), so a CRC can be taken in pieces.
#[inline]
pub fn crc32c_extend(crc: u32, data: &[u8]) -> u32 {
    !update::<false>(!crc, data)
}

/// The legacy big-endian CRC-32C of `data`, where `base_offset` is the
/// offset of `data` from an 8-byte aligned start (the page frame).
pub fn crc32c_legacy_big_endian(data: &[u8], base_offset: usize) -> u32 {
    let (head, body) = legacy_split(data, base_offset);
    // A run of bytes is the same CRC whichever word order is used.
    let crc = update::<false>(!0, head);
    !update::<true>(crc, body)
}

/// [`crc32c_legacy_big_endian`] by the portable code, whatever the CPU.
pub fn crc32c_legacy_big_endian_portable(data: &[u8], base_offset: usize) -> u32 {
    let (head, body) = legacy_split(data, base_offset);
    let crc = update_portable::<false>(!0, head);
    !update_portable::<true>(crc, body)
}

// ---- shifting a CRC register over zero bytes (joins interleaved streams)

/// `a · b mod P` for polynomials in the reflected representation (bit 31 is
/// x⁰), as zlib's `multmodp` (crc32.c), in 32 fixed steps.
const fn multmodp(a: u32, mut b: u32) -> u32 {
    let mut m = 1u32 << 31;
    let mut p = 0u32;
    while m != 0 {
        if a & m != 0 {
            p ^= b;
        }
        m >>= 1;
        b = if b & 1 != 0 { (b >> 1) ^ POLY } else { b >> 1 };
    }
    p
}

/// `x^(8·n) mod P`: what a CRC register is multiplied by when `n` zero
/// bytes pass through it.
#[allow(
    clippy::arithmetic_side_effects,
    reason = "runs at compile time on constants; shifts and halving only"
)]
const fn x8nmodp(mut n: usize) -> u32 {
    // Square-and-multiply over the bits of 8·n.
    let mut result = 1u32 << 31; // x^0
    let mut power = 1u32 << 23; // x^8
    while n != 0 {
        if n & 1 != 0 {
            result = multmodp(power, result);
        }
        power = multmodp(power, power);
        n >>= 1;
    }
    result
}

/// Shifting by a fixed number of bytes, as four byte-indexed tables.
type ShiftTable = [[u32; 256]; 4];

#[allow(
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    reason = "runs at compile time on constant bounds; a mistake fails the build, not a read"
)]
const fn shift_table(n: usize) -> ShiftTable {
    let op = x8nmodp(n);
    let mut t = [[0u32; 256]; 4];
    let mut k = 0;
    while k < 4 {
        let mut i = 0;
        while i < 256 {
            t[k][i] = multmodp(op, (i as u32) << (8 * k));
            i += 1;
        }
        k += 1;
    }
    t
}

/// The register `crc` advanced over the table's number of zero bytes.
#[inline(always)]
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
fn shift(table: &ShiftTable, crc: u32) -> u32 {
    let [t0, t1, t2, t3] = table;
    // Each index is masked to 0..=255.
    let at = |t: &[u32; 256], v: u32| t.get((v & 0xFF) as usize).copied().unwrap_or(0);
    at(t0, crc) ^ at(t1, crc >> 8) ^ at(t2, crc >> 16) ^ at(t3, crc >> 24)
}

/// Block lengths for three interleaved streams, longest first, each with
/// its shift table. Three blocks fit in a page of each size (64K down to
/// 1K) after its header and trailer ((size − 64) / 3, a multiple of 8), so
/// a page's CRC is nearly all three-stream work whatever the layout.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
static BLOCKS: [(usize, ShiftTable); 7] = [
    (21824, shift_table(21824)),
    (10896, shift_table(10896)),
    (5440, shift_table(5440)),
    (2704, shift_table(2704)),
    (1344, shift_table(1344)),
    (656, shift_table(656)),
    (320, shift_table(320)),
];

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

    /// The byte stream the legacy big-endian form feeds, for `data` at
    /// `base` bytes from an aligned start.
    fn legacy_fed(data: &[u8], base: usize) -> Vec<u8> {
        let head = ((8 - base % 8) % 8).min(data.len());
        let mut fed = data[..head].to_vec();
        let body = &data[head..];
        let whole = body.len() / 8 * 8;
        for w in body[..whole].chunks(8) {
            fed.extend(w.iter().rev());
        }
        fed.extend_from_slice(&body[whole..]);
        fed
    }

    /// A seeded xorshift stream (std-only tests).
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
    }

    fn random_bytes(n: usize, seed: u64) -> Vec<u8> {
        let mut r = Rng(seed);
        (0..n).map(|_| r.next() as u8).collect()
    }

    #[test]
    fn check_value() {
        // The CRC-32C check value from the catalogue of parametrised CRCs.
        assert_eq!(crc32c(b"123456789"), 0xE306_9283);
        assert_eq!(crc32c_portable(b"123456789"), 0xE306_9283);
        assert_eq!(crc32c(b""), 0);
    }

    #[test]
    fn matches_oracle_for_all_short_lengths_and_alignments() {
        let data: Vec<u8> = (0..300u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        for start in 0..9 {
            for len in 0..(data.len() - start) {
                let d = &data[start..start + len];
                let want = oracle(d);
                assert_eq!(crc32c(d), want, "start {start} len {len}");
                assert_eq!(crc32c_portable(d), want, "start {start} len {len}");
            }
        }
    }

    #[test]
    fn fast_and_portable_agree_with_the_oracle_on_random_slices() {
        // Lengths up to past 3 × the longest block, so every block size,
        // several rounds of it, and every tail are taken; any start offset.
        let data = random_bytes(3 * 21824 + 4096, 0x9E37_79B9_7F4A_7C15);
        let mut r = Rng(42);
        for round in 0..400 {
            let len = match round % 4 {
                0 => r.below(2048),
                1 => r.below(20_000),
                _ => r.below(data.len() - 64),
            };
            let start = r.below(data.len() - len);
            let d = &data[start..start + len];
            let want = oracle(d);
            assert_eq!(crc32c(d), want, "start {start} len {len}");
            assert_eq!(crc32c_portable(d), want, "start {start} len {len}");
            let base = r.below(8);
            let fed = oracle(&legacy_fed(d, base));
            assert_eq!(
                crc32c_legacy_big_endian(d, base),
                fed,
                "legacy {start} {len}"
            );
            assert_eq!(
                crc32c_legacy_big_endian_portable(d, base),
                fed,
                "legacy portable {start} {len}"
            );
        }
    }

    #[test]
    fn page_sized_ranges_take_three_streams_and_agree() {
        // The ranges the checksums cover, at every page size.
        let data = random_bytes(65536, 7);
        for size in [1024usize, 2048, 4096, 8192, 16384, 32768, 65536] {
            for (s, e) in [(38, size - 8), (0, size - 4), (34, size), (4, 26)] {
                let d = &data[s..e];
                assert_eq!(crc32c(d), oracle(d), "{size} {s}..{e}");
                assert_eq!(
                    crc32c_legacy_big_endian(d, s),
                    oracle(&legacy_fed(d, s)),
                    "{size} {s}..{e}"
                );
            }
        }
    }

    #[test]
    fn shift_is_crc_over_zero_bytes() {
        for (n, table) in BLOCKS.iter() {
            for seed in [1u32, 0xFFFF_FFFF, 0x1234_5678, 0x8000_0001] {
                let want = update_portable::<false>(seed, &vec![0u8; *n]);
                assert_eq!(shift(table, seed), want, "shift by {n}");
            }
        }
        assert_eq!(x8nmodp(0), 1 << 31);
        assert_eq!(multmodp(1 << 31, 0xDEAD_BEEF), 0xDEAD_BEEF);
    }

    #[test]
    fn hardware_is_used_where_the_cpu_has_it() {
        #[cfg(target_arch = "x86_64")]
        assert_eq!(hardware(), std::arch::is_x86_feature_detected!("sse4.2"));
        #[cfg(not(target_arch = "x86_64"))]
        assert!(!hardware());
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
