//! AES (FIPS-197) with 128-, 192- and 256-bit keys, and the ECB, CBC and
//! CTR modes of NIST SP 800-38A, as InnoDB's tablespace encryption needs
//! them (MySQL `os0enc.cc`: AES-256-ECB for the tablespace key, AES-256-CBC
//! for pages; MariaDB `my_crypt.cc`: AES-CBC and AES-CTR).
//!
//! Two implementations give the same values: the AES-NI instructions
//! (x86-64, chosen at run time with `is_x86_feature_detected!("aes")`;
//! module `ni`, which may use `unsafe` for the call into code compiled for
//! AES-NI, as `crc32c::sse42` does for SSE4.2) and a portable one
//! everywhere else. The portable cipher uses no lookup table indexed by
//! secret data: SubBytes is computed on the sixteen bytes of the state at
//! once, bit-sliced into eight 16-bit planes, as the inverse in GF(2^8)
//! (`x^254`, an addition chain of multiplications made of AND and XOR)
//! followed by the affine map, and `xtime` uses a mask rather than a
//! branch. [`Aes::new_portable`] forces it (the tests run every vector on
//! both); [`hardware`] says whether the fast one is available.
//!
//! The key schedule (FIPS-197 §5.2) runs in portable code for both: the
//! encryption round keys, and for AES-NI the equivalent inverse cipher's
//! keys (FIPS-197 §5.3.5: InvMixColumns applied to the middle round keys).
//! All of them are wiped with volatile writes when the [`Aes`] is dropped,
//! and its `Debug` shows only the key size.

#![allow(
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    reason = "the cipher indexes fixed-size arrays (state, planes, round keys) with counters \
              bounded by their lengths and does wrapping GF(2^8) bit arithmetic; no index or \
              length comes from input bytes, and data is walked with chunks_exact"
)]

#[cfg(target_arch = "x86_64")]
#[allow(
    unsafe_code,
    reason = "calls AES-NI code after checking the CPU has it; see the module"
)]
mod ni;

/// Round keys for up to 14 rounds (AES-256): 15 keys of 16 bytes.
type Keys = [[u8; 16]; 15];

/// An expanded AES key. Made by [`Aes::new`]; wiped on drop.
pub struct Aes {
    /// Encryption round keys, `enc[0..=rounds]`.
    enc: Keys,
    /// The equivalent inverse cipher's round keys (AES-NI order):
    /// `dec[0] = enc[rounds]`, `dec[i] = InvMixColumns(enc[rounds - i])`,
    /// `dec[rounds] = enc[0]`.
    dec: Keys,
    /// 10, 12 or 14.
    rounds: usize,
    /// Whether this key runs on the AES-NI instructions.
    hw: bool,
}

impl core::fmt::Debug for Aes {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Aes")
            .field("bits", &self.key_bits())
            .field("hardware", &self.hw)
            .finish_non_exhaustive()
    }
}

impl Drop for Aes {
    fn drop(&mut self) {
        for k in self.enc.iter_mut().chain(self.dec.iter_mut()) {
            crate::wipe::wipe(k);
        }
    }
}

/// Whether this CPU runs AES on the AES-NI instructions ([`Aes::new`]
/// uses them when it does).
pub fn hardware() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("aes")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

impl Aes {
    /// Expands a 16-, 24- or 32-byte key (AES-128/192/256); `None` for any
    /// other length. Runs on AES-NI where the CPU has it.
    pub fn new(key: &[u8]) -> Option<Aes> {
        let mut aes = Aes::new_portable(key)?;
        aes.hw = hardware();
        Some(aes)
    }

    /// As [`Aes::new`], but always on the portable code (same results;
    /// for tests and comparisons).
    pub fn new_portable(key: &[u8]) -> Option<Aes> {
        let nk = match key.len() {
            16 | 24 | 32 => key.len() / 4,
            _ => return None,
        };
        let rounds = nk + 6;
        let mut aes = Aes {
            enc: [[0; 16]; 15],
            dec: [[0; 16]; 15],
            rounds,
            hw: false,
        };
        expand(key, nk, rounds, &mut aes.enc);
        aes.dec[0] = aes.enc[rounds];
        aes.dec[rounds] = aes.enc[0];
        for i in 1..rounds {
            let mut k = aes.enc[rounds - i];
            inv_mix_columns(&mut k);
            aes.dec[i] = k;
        }
        Some(aes)
    }

    /// The key size in bits: 128, 192 or 256.
    pub fn key_bits(&self) -> usize {
        (self.rounds - 6) * 32
    }

    /// Whether this key runs on the AES-NI instructions.
    pub fn is_hardware(&self) -> bool {
        self.hw
    }

    /// Encrypts one block in place.
    pub fn encrypt_block(&self, block: &mut [u8; 16]) {
        self.blocks(block, false);
    }

    /// Decrypts one block in place.
    pub fn decrypt_block(&self, block: &mut [u8; 16]) {
        self.blocks(block, true);
    }

    /// Encrypts or decrypts every whole 16-byte block of `data` (a tail
    /// shorter than a block is left as it is).
    fn blocks(&self, data: &mut [u8], decrypt: bool) {
        #[cfg(target_arch = "x86_64")]
        if self.hw {
            let keys = if decrypt { &self.dec } else { &self.enc };
            if ni::blocks(keys, self.rounds, data, decrypt) {
                return;
            }
        }
        for chunk in data.chunks_exact_mut(16) {
            let mut b = [0u8; 16];
            b.copy_from_slice(chunk);
            if decrypt {
                soft_decrypt(&self.enc, self.rounds, &mut b);
            } else {
                soft_encrypt(&self.enc, self.rounds, &mut b);
            }
            chunk.copy_from_slice(&b);
        }
    }
}

/// ECB encryption of `data` in place; `false` (and `data` untouched) when
/// its length is not a multiple of 16.
pub fn ecb_encrypt(aes: &Aes, data: &mut [u8]) -> bool {
    if !data.len().is_multiple_of(16) {
        return false;
    }
    aes.blocks(data, false);
    true
}

/// ECB decryption of `data` in place; `false` (and `data` untouched) when
/// its length is not a multiple of 16.
pub fn ecb_decrypt(aes: &Aes, data: &mut [u8]) -> bool {
    if !data.len().is_multiple_of(16) {
        return false;
    }
    aes.blocks(data, true);
    true
}

fn xor16(a: &mut [u8], b: &[u8]) {
    for (x, y) in a.iter_mut().zip(b) {
        *x ^= y;
    }
}

/// CBC encryption of `data` in place with `iv` (no padding); `false` (and
/// `data` untouched) when its length is not a multiple of 16.
pub fn cbc_encrypt(aes: &Aes, iv: &[u8; 16], data: &mut [u8]) -> bool {
    if !data.len().is_multiple_of(16) {
        return false;
    }
    let mut prev = *iv;
    for chunk in data.chunks_exact_mut(16) {
        xor16(&mut prev, chunk);
        aes.encrypt_block(&mut prev);
        chunk.copy_from_slice(&prev);
    }
    true
}

/// Bytes per batch of the portable CBC decryption and CTR (the AES-NI
/// path has its own eight-block loops, `ni::cbc_decrypt`, `ni::ctr_xor`).
const BATCH: usize = 8 * 16;

/// CBC decryption of `data` in place with `iv`; `false` (and `data`
/// untouched) when its length is not a multiple of 16.
pub fn cbc_decrypt(aes: &Aes, iv: &[u8; 16], data: &mut [u8]) -> bool {
    if !data.len().is_multiple_of(16) {
        return false;
    }
    #[cfg(target_arch = "x86_64")]
    if aes.hw && ni::cbc_decrypt(&aes.dec, aes.rounds, iv, None, data) {
        return true;
    }
    let mut prev = *iv;
    let mut saved = [0u8; BATCH];
    for chunk in data.chunks_mut(BATCH) {
        let Some(saved) = saved.get_mut(..chunk.len()) else {
            return false; // cannot happen: chunks are at most BATCH long
        };
        saved.copy_from_slice(chunk);
        aes.blocks(chunk, true);
        for (block, cipher) in chunk.chunks_exact_mut(16).zip(saved.chunks_exact(16)) {
            xor16(block, &prev);
            prev.copy_from_slice(cipher);
        }
    }
    true
}

/// [`cbc_decrypt`] from `src` into `dst` (as long as `src`), without
/// copying `src` first on AES-NI; `false` (and `dst` untouched) when the
/// lengths differ or are not a multiple of 16.
pub fn cbc_decrypt_to(aes: &Aes, iv: &[u8; 16], src: &[u8], dst: &mut [u8]) -> bool {
    if src.len() != dst.len() || !src.len().is_multiple_of(16) {
        return false;
    }
    #[cfg(target_arch = "x86_64")]
    if aes.hw && ni::cbc_decrypt(&aes.dec, aes.rounds, iv, Some(src), dst) {
        return true;
    }
    dst.copy_from_slice(src);
    cbc_decrypt(aes, iv, dst)
}

/// [`ctr_xor`] from `src` into `dst` (as long as `src`), without copying
/// `src` first on AES-NI; `false` (and `dst` untouched) when the lengths
/// differ.
pub fn ctr_xor_to(aes: &Aes, counter: &[u8; 16], src: &[u8], dst: &mut [u8]) -> bool {
    if src.len() != dst.len() {
        return false;
    }
    #[cfg(target_arch = "x86_64")]
    if aes.hw
        && ni::ctr_xor(
            &aes.enc,
            aes.rounds,
            u128::from_be_bytes(*counter),
            Some(src),
            dst,
        )
    {
        return true;
    }
    dst.copy_from_slice(src);
    ctr_xor(aes, counter, dst);
    true
}

/// CTR mode: XORs `data` (any length) with the key stream
/// `E(counter), E(counter + 1), …`, the counter a 128-bit big-endian
/// integer (wrapping), as SP 800-38A §B.1 with all 128 bits incremented.
/// Encryption and decryption are the same operation.
pub fn ctr_xor(aes: &Aes, counter: &[u8; 16], data: &mut [u8]) {
    let mut ctr = u128::from_be_bytes(*counter);
    #[cfg(target_arch = "x86_64")]
    if aes.hw && ni::ctr_xor(&aes.enc, aes.rounds, ctr, None, data) {
        return;
    }
    let mut stream = [0u8; BATCH];
    for chunk in data.chunks_mut(BATCH) {
        for block in stream.chunks_exact_mut(16) {
            block.copy_from_slice(&ctr.to_be_bytes());
            ctr = ctr.wrapping_add(1);
        }
        aes.blocks(&mut stream, false);
        for (d, s) in chunk.iter_mut().zip(stream.iter()) {
            *d ^= s;
        }
        // A partial last chunk consumed fewer counter values than were
        // generated; nothing follows it, so the counter is not rewound.
    }
    crate::wipe::wipe(&mut stream);
}

// ---------------------------------------------------------------------
// The portable cipher (FIPS-197 §5.1 and §5.3).

/// Multiplication by x in GF(2^8) mod x^8 + x^4 + x^3 + x + 1, without a
/// branch on the value.
fn xtime(b: u8) -> u8 {
    (b << 1) ^ (0x1B & 0u8.wrapping_sub(b >> 7))
}

/// The state as eight bit planes: bit `i` of plane `p` is bit `p` of
/// byte `i`.
type Planes = [u16; 8];

/// Transposes an 8×8 bit matrix held in a `u64` (bit `8r + c` ↔ bit
/// `8c + r`), in three rounds of masked swaps (Warren, "Hacker's Delight",
/// §7-3). Its own inverse.
fn transpose8(mut x: u64) -> u64 {
    let t = (x ^ (x >> 7)) & 0x00AA_00AA_00AA_00AA;
    x ^= t ^ (t << 7);
    let t = (x ^ (x >> 14)) & 0x0000_CCCC_0000_CCCC;
    x ^= t ^ (t << 14);
    let t = (x ^ (x >> 28)) & 0x0000_0000_F0F0_F0F0;
    x ^= t ^ (t << 28);
    x
}

fn to_planes(s: &[u8; 16]) -> Planes {
    let v = u128::from_le_bytes(*s);
    let lo = transpose8(v as u64);
    let hi = transpose8((v >> 64) as u64);
    let mut p = [0u16; 8];
    for (bit, plane) in p.iter_mut().enumerate() {
        *plane = ((lo >> (8 * bit)) & 0xFF) as u16 | ((((hi >> (8 * bit)) & 0xFF) as u16) << 8);
    }
    p
}

fn from_planes(p: &Planes) -> [u8; 16] {
    let (mut lo, mut hi) = (0u64, 0u64);
    for (bit, &plane) in p.iter().enumerate() {
        lo |= u64::from(plane & 0xFF) << (8 * bit);
        hi |= u64::from(plane >> 8) << (8 * bit);
    }
    let v = u128::from(transpose8(lo)) | (u128::from(transpose8(hi)) << 64);
    v.to_le_bytes()
}

/// Sixteen multiplications in GF(2^8) at once, on bit planes: the
/// carry-less product (15 planes), then reduction by x^8 = x^4+x^3+x+1
/// from the top plane down.
fn gf_mul(a: &Planes, b: &Planes) -> Planes {
    let mut p = [0u16; 15];
    for (i, &x) in a.iter().enumerate() {
        for (j, &y) in b.iter().enumerate() {
            p[i + j] ^= x & y;
        }
    }
    reduce(p)
}

/// A product of 15 planes reduced by x^8 = x^4+x^3+x+1, from the top
/// plane down.
fn reduce(mut p: [u16; 15]) -> Planes {
    for k in (8..15).rev() {
        let t = p[k];
        p[k - 4] ^= t;
        p[k - 5] ^= t;
        p[k - 7] ^= t;
        p[k - 8] ^= t;
    }
    let mut r = [0u16; 8];
    r.copy_from_slice(&p[..8]);
    r
}

/// x^254, the inverse in GF(2^8) (0 for 0): x², x³, x⁶, x¹², x¹⁵, x²⁴⁰,
/// x²⁵², x²⁵⁴.
fn gf_inv(x: &Planes) -> Planes {
    let x2 = gf_mul(x, x);
    let x3 = gf_mul(&x2, x);
    let x6 = gf_mul(&x3, &x3);
    let x12 = gf_mul(&x6, &x6);
    let x15 = gf_mul(&x12, &x3);
    let mut x240 = x15;
    for _ in 0..4 {
        x240 = gf_mul(&x240, &x240);
    }
    let x252 = gf_mul(&x240, &x12);
    gf_mul(&x252, &x2)
}

/// SubBytes (FIPS-197 §5.1.1): inverse, then the affine map
/// `b'_i = b_i ^ b_(i+4) ^ b_(i+5) ^ b_(i+6) ^ b_(i+7) ^ c_i`, c = 0x63.
fn sub_bytes(s: &mut [u8; 16]) {
    let b = gf_inv(&to_planes(s));
    let mut r = [0u16; 8];
    for (i, out) in r.iter_mut().enumerate() {
        *out = b[i] ^ b[(i + 4) % 8] ^ b[(i + 5) % 8] ^ b[(i + 6) % 8] ^ b[(i + 7) % 8];
        if (0x63 >> i) & 1 == 1 {
            *out ^= 0xFFFF;
        }
    }
    *s = from_planes(&r);
}

/// InvSubBytes (§5.3.2): the inverse affine map
/// `b_i = s_(i+2) ^ s_(i+5) ^ s_(i+7) ^ d_i`, d = 0x05, then the inverse.
fn inv_sub_bytes(s: &mut [u8; 16]) {
    let p = to_planes(s);
    let mut r = [0u16; 8];
    for (i, out) in r.iter_mut().enumerate() {
        *out = p[(i + 2) % 8] ^ p[(i + 5) % 8] ^ p[(i + 7) % 8];
        if (0x05 >> i) & 1 == 1 {
            *out ^= 0xFFFF;
        }
    }
    *s = from_planes(&gf_inv(&r));
}

/// ShiftRows (§5.1.2): byte `4c + r` is column `c`, row `r`; row `r`
/// rotates left by `r`.
fn shift_rows(s: &mut [u8; 16]) {
    let old = *s;
    for c in 0..4 {
        for r in 0..4 {
            s[c * 4 + r] = old[((c + r) % 4) * 4 + r];
        }
    }
}

fn inv_shift_rows(s: &mut [u8; 16]) {
    let old = *s;
    for c in 0..4 {
        for r in 0..4 {
            s[((c + r) % 4) * 4 + r] = old[c * 4 + r];
        }
    }
}

/// MixColumns (§5.1.3), each column times {03}x³+{01}x²+{01}x+{02}.
fn mix_columns(s: &mut [u8; 16]) {
    for col in s.chunks_exact_mut(4) {
        let (a0, a1, a2, a3) = (col[0], col[1], col[2], col[3]);
        let t = a0 ^ a1 ^ a2 ^ a3;
        col[0] = a0 ^ t ^ xtime(a0 ^ a1);
        col[1] = a1 ^ t ^ xtime(a1 ^ a2);
        col[2] = a2 ^ t ^ xtime(a2 ^ a3);
        col[3] = a3 ^ t ^ xtime(a3 ^ a0);
    }
}

/// InvMixColumns (§5.3.3), as {04}x²+{05} times the column, then
/// MixColumns (the factorisation of the inverse polynomial in Daemen and
/// Rijmen, "The Design of Rijndael", §4.1.3).
fn inv_mix_columns(s: &mut [u8; 16]) {
    for col in s.chunks_exact_mut(4) {
        let u = xtime(xtime(col[0] ^ col[2]));
        let v = xtime(xtime(col[1] ^ col[3]));
        col[0] ^= u;
        col[1] ^= v;
        col[2] ^= u;
        col[3] ^= v;
    }
    mix_columns(s);
}

fn add_round_key(s: &mut [u8; 16], k: &[u8; 16]) {
    for (x, y) in s.iter_mut().zip(k) {
        *x ^= y;
    }
}

/// SubWord of one 4-byte word (the key schedule), through [`sub_bytes`].
fn sub_word(w: [u8; 4]) -> [u8; 4] {
    let mut s = [0u8; 16];
    s[..4].copy_from_slice(&w);
    sub_bytes(&mut s);
    [s[0], s[1], s[2], s[3]]
}

/// KeyExpansion (FIPS-197 §5.2) into `keys[0..=rounds]`.
fn expand(key: &[u8], nk: usize, rounds: usize, keys: &mut Keys) {
    let total = 4 * (rounds + 1);
    let mut w = [[0u8; 4]; 60];
    for (word, bytes) in w.iter_mut().zip(key.chunks_exact(4)) {
        word.copy_from_slice(bytes);
    }
    let mut rcon = 1u8;
    for i in nk..total {
        let mut t = w[i - 1];
        if i % nk == 0 {
            t.rotate_left(1);
            t = sub_word(t);
            t[0] ^= rcon;
            rcon = xtime(rcon);
        } else if nk > 6 && i % nk == 4 {
            t = sub_word(t);
        }
        for (b, p) in t.iter_mut().zip(w[i - nk]) {
            *b ^= p;
        }
        w[i] = t;
    }
    for (r, k) in keys.iter_mut().enumerate().take(rounds + 1) {
        for (c, word) in k.chunks_exact_mut(4).enumerate() {
            word.copy_from_slice(&w[4 * r + c]);
        }
    }
    for word in w.iter_mut() {
        crate::wipe::wipe(word);
    }
}

/// Cipher (FIPS-197 §5.1).
fn soft_encrypt(keys: &Keys, rounds: usize, s: &mut [u8; 16]) {
    add_round_key(s, &keys[0]);
    for key in keys.iter().take(rounds).skip(1) {
        sub_bytes(s);
        shift_rows(s);
        mix_columns(s);
        add_round_key(s, key);
    }
    sub_bytes(s);
    shift_rows(s);
    add_round_key(s, &keys[rounds]);
}

/// InvCipher (FIPS-197 §5.3).
fn soft_decrypt(keys: &Keys, rounds: usize, s: &mut [u8; 16]) {
    add_round_key(s, &keys[rounds]);
    for key in keys.iter().take(rounds).skip(1).rev() {
        inv_shift_rows(s);
        inv_sub_bytes(s);
        add_round_key(s, key);
        inv_mix_columns(s);
    }
    inv_shift_rows(s);
    inv_sub_bytes(s);
    add_round_key(s, &keys[0]);
}

#[cfg(test)]
#[allow(clippy::unwrap_used, reason = "test vectors are constants")]
mod tests;
