//! Known-answer tests from the standards, each on the portable code and
//! (where the CPU has it) on AES-NI:
//!
//! - FIPS-197, "Advanced Encryption Standard (AES)", NIST 2001 (updated
//!   2023), Appendix C.1–C.3: one block under AES-128, -192 and -256;
//! - NIST SP 800-38A, "Recommendation for Block Cipher Modes of Operation"
//!   (2001), Appendix F.1 (ECB), F.2 (CBC) and F.5 (CTR), the
//!   AES-128/192/256 encryption and decryption examples.

use super::*;

fn hex(s: &str) -> Vec<u8> {
    let s: Vec<u8> = s.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
    s.chunks(2)
        .map(|p| u8::from_str_radix(std::str::from_utf8(p).unwrap(), 16).unwrap())
        .collect()
}

fn arr(v: &[u8]) -> [u8; 16] {
    v.try_into().unwrap()
}

/// Both implementations of a key: the portable one, and the default one,
/// which must run on AES-NI where the CPU has it.
fn both(key: &[u8]) -> Vec<Aes> {
    let soft = Aes::new_portable(key).unwrap();
    assert!(!soft.is_hardware());
    let fast = Aes::new(key).unwrap();
    assert_eq!(fast.is_hardware(), hardware());
    vec![soft, fast]
}

#[test]
fn key_lengths() {
    for n in [0, 1, 15, 17, 20, 23, 25, 31, 33, 64] {
        assert!(Aes::new(&vec![0; n]).is_none(), "{n}");
        assert!(Aes::new_portable(&vec![0; n]).is_none(), "{n}");
    }
    for (n, bits) in [(16, 128), (24, 192), (32, 256)] {
        assert_eq!(Aes::new(&vec![0; n]).unwrap().key_bits(), bits);
    }
}

#[test]
fn debug_shows_no_key_bytes() {
    let aes = Aes::new(&[0x5Au8; 32]).unwrap();
    let text = format!("{aes:?}");
    assert!(text.contains("256"), "{text}");
    assert!(
        !text.contains("90") && !text.contains("5a") && !text.contains("5A"),
        "{text}"
    );
}

#[test]
fn fips197_appendix_c() {
    let plain = hex("00112233445566778899aabbccddeeff");
    let cases = [
        // C.1 AES-128
        (
            "000102030405060708090a0b0c0d0e0f",
            "69c4e0d86a7b0430d8cdb78070b4c55a",
        ),
        // C.2 AES-192
        (
            "000102030405060708090a0b0c0d0e0f1011121314151617",
            "dda97ca4864cdfe06eaf70a0ec0d7191",
        ),
        // C.3 AES-256
        (
            "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
            "8ea2b7ca516745bfeafc49904b496089",
        ),
    ];
    for (key, cipher) in cases {
        for aes in both(&hex(key)) {
            let mut b = arr(&plain);
            aes.encrypt_block(&mut b);
            assert_eq!(b.to_vec(), hex(cipher), "{key} hw={}", aes.is_hardware());
            aes.decrypt_block(&mut b);
            assert_eq!(b.to_vec(), plain, "{key} hw={}", aes.is_hardware());
        }
    }
}

/// SP 800-38A F.1–F.5: the four plaintext blocks every example encrypts.
const PLAIN: &str = "6bc1bee22e409f96e93d7e117393172a ae2d8a571e03ac9c9eb76fac45af8e51
                     30c81c46a35ce411e5fbc1191a0a52ef f69f2445df4f9b17ad2b417be66c3710";
const KEY128: &str = "2b7e151628aed2a6abf7158809cf4f3c";
const KEY192: &str = "8e73b0f7da0e6452c810f32b809079e562f8ead2522c6b7b";
const KEY256: &str = "603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4";

#[test]
fn sp800_38a_f1_ecb() {
    let cases = [
        // F.1.1 / F.1.2 ECB-AES128
        (
            KEY128,
            "3ad77bb40d7a3660a89ecaf32466ef97 f5d3d58503b9699de785895a96fdbaaf
             43b1cd7f598ece23881b00e3ed030688 7b0c785e27e8ad3f8223207104725dd4",
        ),
        // F.1.3 / F.1.4 ECB-AES192
        (
            KEY192,
            "bd334f1d6e45f25ff712a214571fa5cc 974104846d0ad3ad7734ecb3ecee4eef
             ef7afd2270e2e60adce0ba2face6444e 9a4b41ba738d6c72fb16691603c18e0e",
        ),
        // F.1.5 / F.1.6 ECB-AES256
        (
            KEY256,
            "f3eed1bdb5d2a03c064b5a7e3db181f8 591ccb10d410ed26dc5ba74a31362870
             b6ed21b99ca6f4f9f153e7b1beafed1d 23304b7a39f9f3ff067d8d8f9e24ecc7",
        ),
    ];
    for (key, cipher) in cases {
        for aes in both(&hex(key)) {
            let mut d = hex(PLAIN);
            assert!(ecb_encrypt(&aes, &mut d));
            assert_eq!(d, hex(cipher), "{key} hw={}", aes.is_hardware());
            assert!(ecb_decrypt(&aes, &mut d));
            assert_eq!(d, hex(PLAIN), "{key} hw={}", aes.is_hardware());
        }
    }
}

#[test]
fn sp800_38a_f2_cbc() {
    let iv = arr(&hex("000102030405060708090a0b0c0d0e0f"));
    let cases = [
        // F.2.1 / F.2.2 CBC-AES128
        (
            KEY128,
            "7649abac8119b246cee98e9b12e9197d 5086cb9b507219ee95db113a917678b2
             73bed6b8e3c1743b7116e69e22229516 3ff1caa1681fac09120eca307586e1a7",
        ),
        // F.2.3 / F.2.4 CBC-AES192
        (
            KEY192,
            "4f021db243bc633d7178183a9fa071e8 b4d9ada9ad7dedf4e5e738763f69145a
             571b242012fb7ae07fa9baac3df102e0 08b0e27988598881d920a9e64f5615cd",
        ),
        // F.2.5 / F.2.6 CBC-AES256
        (
            KEY256,
            "f58c4c04d6e5f1ba779eabfb5f7bfbd6 9cfc4e967edb808d679f777bc6702c7d
             39f23369a9d9bacfa530e26304231461 b2eb05e2c39be9fcda6c19078c6a9d1b",
        ),
    ];
    for (key, cipher) in cases {
        for aes in both(&hex(key)) {
            let mut d = hex(PLAIN);
            assert!(cbc_encrypt(&aes, &iv, &mut d));
            assert_eq!(d, hex(cipher), "{key} hw={}", aes.is_hardware());
            assert!(cbc_decrypt(&aes, &iv, &mut d));
            assert_eq!(d, hex(PLAIN), "{key} hw={}", aes.is_hardware());
        }
    }
}

#[test]
fn sp800_38a_f5_ctr() {
    let counter = arr(&hex("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff"));
    let cases = [
        // F.5.1 / F.5.2 CTR-AES128
        (
            KEY128,
            "874d6191b620e3261bef6864990db6ce 9806f66b7970fdff8617187bb9fffdff
             5ae4df3edbd5d35e5b4f09020db03eab 1e031dda2fbe03d1792170a0f3009cee",
        ),
        // F.5.3 / F.5.4 CTR-AES192
        (
            KEY192,
            "1abc932417521ca24f2b0459fe7e6e0b 090339ec0aa6faefd5ccc2c6f4ce8e94
             1e36b26bd1ebc670d1bd1d665620abf7 4f78a7f6d29809585a97daec58c6b050",
        ),
        // F.5.5 / F.5.6 CTR-AES256
        (
            KEY256,
            "601ec313775789a5b7a7f504bbf3d228 f443e3ca4d62b59aca84e990cacaf5c5
             2b0930daa23de94ce87017ba2d84988d dfc9c58db67aada613c2dd08457941a6",
        ),
    ];
    for (key, cipher) in cases {
        for aes in both(&hex(key)) {
            let mut d = hex(PLAIN);
            ctr_xor(&aes, &counter, &mut d);
            assert_eq!(d, hex(cipher), "{key} hw={}", aes.is_hardware());
            ctr_xor(&aes, &counter, &mut d);
            assert_eq!(d, hex(PLAIN), "{key} hw={}", aes.is_hardware());
            // Any length: a prefix of the stream is the same prefix.
            for n in [0, 1, 15, 17, 63] {
                let mut p = hex(PLAIN)[..n].to_vec();
                ctr_xor(&aes, &counter, &mut p);
                assert_eq!(p, hex(cipher)[..n], "{key} len {n}");
            }
        }
    }
}

#[test]
fn bad_lengths_leave_data_untouched() {
    let aes = Aes::new(&hex(KEY128)).unwrap();
    let iv = [0u8; 16];
    for n in [1, 15, 17, 33] {
        let orig: Vec<u8> = (0..n as u8).collect();
        let mut d = orig.clone();
        assert!(!ecb_encrypt(&aes, &mut d));
        assert!(!ecb_decrypt(&aes, &mut d));
        assert!(!cbc_encrypt(&aes, &iv, &mut d));
        assert!(!cbc_decrypt(&aes, &iv, &mut d));
        assert_eq!(d, orig);
    }
    assert!(ecb_encrypt(&aes, &mut []));
    for aes in both(&hex(KEY128)) {
        let mut d = [7u8; 32];
        assert!(!cbc_decrypt_to(&aes, &iv, &[0; 16], &mut d));
        assert!(!cbc_decrypt_to(&aes, &iv, &[0; 31], &mut d[..31]));
        assert!(!ctr_xor_to(&aes, &iv, &[0; 31], &mut d));
        assert_eq!(d, [7u8; 32]);
    }
}

/// The two implementations agree on long buffers (more than one batch,
/// with a remainder, so the four-way AES-NI loop and its tail both run),
/// and the CTR counter carries across all 128 bits.
#[test]
fn portable_and_hardware_agree_on_long_data() {
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let data: Vec<u8> = (0..16 * 37)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect();
    let iv = arr(&data[..16]);
    let counter = arr(&hex("00ffffffffffffffffffffffffffffff"));
    for key in [KEY128, KEY192, KEY256] {
        let [soft, fast] = <[Aes; 2]>::try_from(both(&hex(key))).unwrap();
        let run = |aes: &Aes| {
            let mut e = data.clone();
            assert!(ecb_encrypt(aes, &mut e));
            let mut c = data.clone();
            assert!(cbc_encrypt(aes, &iv, &mut c));
            let mut t = data[..16 * 20 + 5].to_vec();
            ctr_xor(aes, &counter, &mut t);
            let mut back = c.clone();
            assert!(cbc_decrypt(aes, &iv, &mut back));
            assert_eq!(back, data);
            let mut back = e.clone();
            assert!(ecb_decrypt(aes, &mut back));
            assert_eq!(back, data);
            (e, c, t)
        };
        assert_eq!(run(&soft), run(&fast), "{key}");
        // The carry: block 1 of the stream is E(0x0100…00).
        let mut one = [0u8; 32];
        ctr_xor(&soft, &counter, &mut one);
        let mut want = hex("01000000000000000000000000000000");
        assert!(ecb_encrypt(&soft, &mut want));
        assert_eq!(one[16..], want[..]);
    }
}

/// The bit planes by the transposition agree with their definition (bit
/// `i` of plane `p` is bit `p` of byte `i`), and back.
#[test]
fn planes_are_the_bits_of_the_state() {
    let mut x = 0x0123_4567_89AB_CDEFu64;
    for _ in 0..200 {
        let mut s = [0u8; 16];
        for b in s.iter_mut() {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            *b = x as u8;
        }
        let p = to_planes(&s);
        for (i, byte) in s.iter().enumerate() {
            for (bit, plane) in p.iter().enumerate() {
                assert_eq!((plane >> i) & 1, u16::from((byte >> bit) & 1));
            }
        }
        assert_eq!(from_planes(&p), s);
    }
}

/// CBC decryption and CTR, in place and from one buffer into another,
/// agree between the two implementations at every length from 0 to 41
/// blocks (the AES-NI eight-block loops, their
/// remainders, and for CTR a partial last block), each length checked
/// against the portable encryption as well: decrypting what CBC encrypted
/// gives the plaintext back.
#[test]
fn cbc_and_ctr_agree_at_every_length() {
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    let data: Vec<u8> = (0..16 * 41 + 15)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect();
    let iv = arr(&data[data.len() - 16..]);
    let counter = arr(&hex("fffffffffffffffffffffffffffffffa"));
    for key in [KEY128, KEY192, KEY256] {
        let [soft, fast] = <[Aes; 2]>::try_from(both(&hex(key))).unwrap();
        for blocks in 0..=41 {
            let plain = &data[..16 * blocks];
            let mut c = plain.to_vec();
            assert!(cbc_encrypt(&soft, &iv, &mut c));
            for aes in [&soft, &fast] {
                let mut d = c.clone();
                assert!(cbc_decrypt(aes, &iv, &mut d));
                assert_eq!(d, plain, "{key} {blocks} blocks hw={}", aes.is_hardware());
                let mut d = vec![0x33; c.len()];
                assert!(cbc_decrypt_to(aes, &iv, &c, &mut d));
                assert_eq!(d, plain, "{key} {blocks} blocks hw={}", aes.is_hardware());
            }
            for extra in [0, 1, 15] {
                let n = (16 * blocks + extra).min(data.len());
                let mut a = data[..n].to_vec();
                let mut b = a.clone();
                ctr_xor(&soft, &counter, &mut a);
                ctr_xor(&fast, &counter, &mut b);
                assert_eq!(a, b, "{key} {n} bytes");
                for aes in [&soft, &fast] {
                    let mut t = vec![0x33; n];
                    assert!(ctr_xor_to(aes, &counter, &data[..n], &mut t));
                    assert_eq!(t, a, "{key} {n} bytes hw={}", aes.is_hardware());
                }
                ctr_xor(&fast, &counter, &mut b);
                assert_eq!(b, data[..n], "{key} {n} bytes");
            }
        }
    }
}
