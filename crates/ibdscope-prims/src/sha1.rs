//! SHA-1 (FIPS 180-4 §6.1), by hand: the digest MariaDB's
//! file_key_management plugin derives the key of an encrypted key file
//! with (`my_sha1_multi` in `Parser::bytes_to_key`, MariaDB server 10.11
//! `plugin/file_key_management/parser.cc`). Not used for anything that
//! needs collision resistance: it only turns a password and a salt into
//! a key, as the server does.

/// Bytes of a SHA-1 digest.
pub const DIGEST_LEN: usize = 20;

/// An incremental SHA-1.
#[derive(Clone)]
pub struct Sha1 {
    h: [u32; 5],
    block: [u8; 64],
    used: usize,
    total: u64,
}

impl Default for Sha1 {
    fn default() -> Self {
        Self::new()
    }
}

impl Sha1 {
    /// A fresh hash (FIPS 180-4 §5.3.1 initial value).
    pub fn new() -> Self {
        Sha1 {
            h: [
                0x6745_2301,
                0xEFCD_AB89,
                0x98BA_DCFE,
                0x1032_5476,
                0xC3D2_E1F0,
            ],
            block: [0; 64],
            used: 0,
            total: 0,
        }
    }

    /// Appends `data`.
    pub fn update(&mut self, data: &[u8]) {
        self.total = self.total.wrapping_add(data.len() as u64);
        let mut rest = data;
        while !rest.is_empty() {
            let free = self.block.get_mut(self.used.min(64)..).unwrap_or(&mut []);
            let n = free.len().min(rest.len());
            let (now, later) = rest.split_at(n);
            if let Some(dst) = free.get_mut(..n) {
                dst.copy_from_slice(now);
            }
            self.used = self.used.saturating_add(n);
            rest = later;
            if self.used == 64 {
                let block = self.block;
                compress(&mut self.h, &block);
                self.used = 0;
            }
        }
    }

    /// The digest of everything appended; the state is wiped.
    pub fn finish(mut self) -> [u8; DIGEST_LEN] {
        let bits = self.total.wrapping_mul(8);
        self.update(&[0x80]);
        while self.used != 56 {
            self.update(&[0]);
        }
        self.update(&bits.to_be_bytes());
        let mut out = [0u8; DIGEST_LEN];
        for (o, h) in out.chunks_exact_mut(4).zip(self.h.iter()) {
            o.copy_from_slice(&h.to_be_bytes());
        }
        crate::wipe::wipe(&mut self.block);
        self.h = [0; 5];
        out
    }
}

/// The SHA-1 of the concatenation of `parts`.
pub fn sha1(parts: &[&[u8]]) -> [u8; DIGEST_LEN] {
    let mut s = Sha1::new();
    for p in parts {
        s.update(p);
    }
    s.finish()
}

/// One 512-bit block (FIPS 180-4 §6.1.2).
fn compress(h: &mut [u32; 5], block: &[u8; 64]) {
    let mut w = [0u32; 80];
    for (wi, c) in w.iter_mut().zip(block.chunks_exact(4)) {
        *wi = u32::from_be_bytes([
            c.first().copied().unwrap_or(0),
            c.get(1).copied().unwrap_or(0),
            c.get(2).copied().unwrap_or(0),
            c.get(3).copied().unwrap_or(0),
        ]);
    }
    for t in 16usize..80 {
        let x = w.get(t.wrapping_sub(3)).copied().unwrap_or(0)
            ^ w.get(t.wrapping_sub(8)).copied().unwrap_or(0)
            ^ w.get(t.wrapping_sub(14)).copied().unwrap_or(0)
            ^ w.get(t.wrapping_sub(16)).copied().unwrap_or(0);
        if let Some(wt) = w.get_mut(t) {
            *wt = x.rotate_left(1);
        }
    }
    let [mut a, mut b, mut c, mut d, mut e] = *h;
    for (t, wt) in w.iter().enumerate() {
        let (f, k) = match t {
            0..=19 => ((b & c) | (!b & d), 0x5A82_7999),
            20..=39 => (b ^ c ^ d, 0x6ED9_EBA1),
            40..=59 => ((b & c) | (b & d) | (c & d), 0x8F1B_BCDC),
            _ => (b ^ c ^ d, 0xCA62_C1D6u32),
        };
        let temp = a
            .rotate_left(5)
            .wrapping_add(f)
            .wrapping_add(e)
            .wrapping_add(k)
            .wrapping_add(*wt);
        e = d;
        d = c;
        c = b.rotate_left(30);
        b = a;
        a = temp;
    }
    for (hi, v) in h.iter_mut().zip([a, b, c, d, e]) {
        *hi = hi.wrapping_add(v);
    }
    w.fill(0);
}

#[cfg(test)]
#[allow(clippy::arithmetic_side_effects, clippy::indexing_slicing)]
mod tests {
    use super::*;

    fn hex(d: &[u8]) -> String {
        d.iter().map(|b| format!("{b:02x}")).collect()
    }

    // FIPS 180-2 Appendix A (and the NIST "SHA1ShortMsg" examples).
    #[test]
    fn fips_180_vectors() {
        assert_eq!(
            hex(&sha1(&[b"abc"])),
            "a9993e364706816aba3e25717850c26c9cd0d89d"
        );
        assert_eq!(
            hex(&sha1(&[
                b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"
            ])),
            "84983e441c3bd26ebaae4aa1f95129e5e54670f1"
        );
        assert_eq!(
            hex(&sha1(&[b""])),
            "da39a3ee5e6b4b0d3255bfef95601890afd80709"
        );
        let million = vec![b'a'; 1_000_000];
        assert_eq!(
            hex(&sha1(&[&million])),
            "34aa973cd4c4daa4f61eeb2bdbad27316534016f"
        );
    }

    #[test]
    fn parts_and_odd_splits_give_the_same_digest() {
        let msg: Vec<u8> = (0..300u32).map(|i| (i * 7 + 3) as u8).collect();
        let whole = sha1(&[&msg]);
        for cut in [0, 1, 55, 56, 63, 64, 65, 128, 299, 300] {
            assert_eq!(sha1(&[&msg[..cut], &msg[cut..]]), whole, "cut {cut}");
        }
    }
}
