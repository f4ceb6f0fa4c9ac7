//! Lines built by hand into a reused byte buffer: numbers, padded words
//! and hex without the formatter, for the commands that print a line per
//! record or per page (`records`, `pages`). Each gives exactly what the
//! `format!` spelling named beside it gives (ASCII only: a width counts
//! bytes, which is characters here).

/// A nibble's lowercase hex digit (`n` below 16).
fn nibble(n: u8) -> u8 {
    if n < 10 {
        b'0'.wrapping_add(n)
    } else {
        b'a'.wrapping_add(n.wrapping_sub(10))
    }
}

/// Four bytes' eight lowercase hex digits, in order, computed a word at a
/// time: each byte spread into a 16-bit lane, its nibbles put in the
/// lane's two bytes, then `'0' + n` plus `'a' - '0' - 10` where `n > 9`
/// (no byte carries into the next: a nibble is at most 15).
#[inline]
fn hex4(b: [u8; 4]) -> [u8; 8] {
    const LO: u64 = 0x000F_000F_000F_000F;
    const ONES: u64 = 0x0101_0101_0101_0101;
    let x = u64::from(u32::from_le_bytes(b));
    let x = (x | (x << 16)) & 0x0000_FFFF_0000_FFFF;
    let x = (x | (x << 8)) & 0x00FF_00FF_00FF_00FF;
    // The high nibble first (the lower byte of each lane), then the low.
    let n = ((x >> 4) & LO) | ((x & LO) << 8);
    let letters = ((n.wrapping_add(6 * ONES) >> 4) & ONES).wrapping_mul(0x27);
    n.wrapping_add(0x30 * ONES)
        .wrapping_add(letters)
        .to_le_bytes()
}

/// `bytes` as lowercase hex (`{:02x}` of each byte): the line grown once,
/// then four bytes at a time, each [`hex4`] word stored where its digits
/// go (two 64-bit words a step, independent; nothing read back).
pub fn hex(out: &mut Vec<u8>, bytes: &[u8]) {
    let at = out.len();
    out.resize(at.saturating_add(bytes.len().saturating_mul(2)), 0);
    let Some(dst) = out.get_mut(at..) else {
        return;
    };
    let mut pairs = dst.chunks_exact_mut(16).zip(bytes.chunks_exact(8));
    for (d, s) in &mut pairs {
        let (d1, d2) = d.split_at_mut(8);
        let (s1, s2) = s.split_at(4);
        if let (Ok(s1), Ok(s2)) = (<[u8; 4]>::try_from(s1), <[u8; 4]>::try_from(s2)) {
            d1.copy_from_slice(&hex4(s1));
            d2.copy_from_slice(&hex4(s2));
        }
    }
    let done = bytes.len() & !7;
    let (dst, src) = (
        dst.get_mut(done.saturating_mul(2)..).unwrap_or_default(),
        bytes.get(done..).unwrap_or_default(),
    );
    for (d, &b) in dst.chunks_exact_mut(2).zip(src) {
        d.copy_from_slice(&[nibble(b >> 4), nibble(b & 15)]);
    }
}

/// How many decimal digits `v` has.
pub fn digits(v: u64) -> usize {
    v.checked_ilog10()
        .map_or(1, |l| usize::try_from(l).unwrap_or(0).saturating_add(1))
}

/// `v` in decimal (`{v}`).
pub fn num(out: &mut Vec<u8>, v: u64) {
    num_right(out, v, 0);
}

/// `width - len` spaces, if `len` is shorter: copied from a row of
/// spaces (a fill call costs more than the few bytes of a column).
pub fn spaces(out: &mut Vec<u8>, len: usize, width: usize) {
    const ROW: &[u8; 32] = b"                                ";
    let pad = width.saturating_sub(len);
    match ROW.get(..pad) {
        Some(row) => out.extend_from_slice(row),
        None => out.resize(out.len().saturating_add(pad), b' '),
    }
}

/// `v` right-aligned in `width` (`{v:>width$}`): the digits made from
/// the last in a small buffer, then the padding and the digits copied.
pub fn num_right(out: &mut Vec<u8>, v: u64, width: usize) {
    let mut buf = [b'0'; 20];
    let mut at = buf.len();
    let mut v = v;
    loop {
        at = at.saturating_sub(1);
        if let Some(d) = buf.get_mut(at) {
            // A digit: below 10.
            *d = b'0'.saturating_add(u8::try_from(v % 10).unwrap_or(0));
        }
        v /= 10;
        if v == 0 {
            break;
        }
    }
    let digits = buf.get(at..).unwrap_or_default();
    spaces(out, digits.len(), width);
    out.extend_from_slice(digits);
}

/// `v`'s digits right-aligned in `dst`, which holds spaces (`{v:>N$}`
/// where `N` is `dst`'s length): the digits written from the last, two at
/// a time; how many there are is returned. A number longer than `dst`
/// keeps its last digits only: callers size `dst` for their values'
/// range (a page offset, a heap number, a record's size).
#[inline]
pub fn right_in(dst: &mut [u8], v: u64) -> usize {
    const PAIRS: &[u8; 200] = b"0001020304050607080910111213141516171819\
        2021222324252627282930313233343536373839\
        4041424344454647484950515253545556575859\
        6061626364656667686970717273747576777879\
        8081828384858687888990919293949596979899";
    let n = digits(v);
    let mut at = dst.len();
    let mut v = v;
    while v >= 100 {
        let k = usize::try_from(v % 100).unwrap_or(0).saturating_mul(2);
        v /= 100;
        at = at.saturating_sub(2);
        if let (Some(d), Some(p)) = (
            dst.get_mut(at..at.saturating_add(2)),
            PAIRS.get(k..k.saturating_add(2)),
        ) {
            d.copy_from_slice(p);
        }
    }
    if v >= 10 {
        let k = usize::try_from(v).unwrap_or(0).saturating_mul(2);
        at = at.saturating_sub(2);
        if let (Some(d), Some(p)) = (
            dst.get_mut(at..at.saturating_add(2)),
            PAIRS.get(k..k.saturating_add(2)),
        ) {
            d.copy_from_slice(p);
        }
    } else if let Some(d) = dst.get_mut(at.wrapping_sub(1)) {
        // One digit: below 10.
        *d = b'0'.saturating_add(u8::try_from(v).unwrap_or(0));
    }
    n
}

/// `s` right-aligned in `width` (`{s:>width$}`).
pub fn str_right(out: &mut Vec<u8>, s: &str, width: usize) {
    spaces(out, s.len(), width);
    out.extend_from_slice(s.as_bytes());
}

/// `s` left-aligned in `width` (`{s:<width$}`).
pub fn str_left(out: &mut Vec<u8>, s: &str, width: usize) {
    out.extend_from_slice(s.as_bytes());
    spaces(out, s.len(), width);
}

/// `v` with one decimal right-aligned in `width` (`{v:>width$.1}`), for
/// a finite `v` of positive sign below 2^31: the decimal is `v`'s exact
/// value rounded to the nearest tenth, a tie to the even tenth, as the
/// formatter rounds (`10·v` is exact in an `f64`: 24 significant bits and
/// 4 more). False, nothing written, for any other `v`.
pub fn tenths_right(out: &mut Vec<u8>, v: f32, width: usize) -> bool {
    if !(v.is_sign_positive() && v < 2_147_483_648.0) {
        return false;
    }
    let t = f64::from(v) * 10.0;
    let whole = t.floor();
    let frac = t - whole;
    // Below 2^35: an exact integer.
    let mut n = whole as u64;
    if frac > 0.5 || (frac == 0.5 && n % 2 == 1) {
        n = n.wrapping_add(1);
    }
    let mut buf = [b' '; 24];
    let Some((last, head)) = buf.split_last_mut() else {
        return false;
    };
    *last = b'0'.wrapping_add((n % 10) as u8);
    let Some((dot, head)) = head.split_last_mut() else {
        return false;
    };
    *dot = b'.';
    let k = right_in(head, n / 10);
    let len = k.saturating_add(2);
    spaces(out, len, width);
    out.extend_from_slice(buf.get(buf.len().saturating_sub(len)..).unwrap_or_default());
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tenths_are_what_the_formatter_writes() {
        let check = |v: f32| {
            for width in [0, 5, 7] {
                let mut out = b"x".to_vec();
                if tenths_right(&mut out, v, width) {
                    assert_eq!(out, format!("x{v:>width$.1}").as_bytes(), "{v:e}");
                } else {
                    assert!(!(v >= 0.0 && v.is_sign_positive() && v < 2e9), "{v:e}");
                }
            }
        };
        // Every fill a page of any size can have (bytes of 512..=65536).
        for size in [512u32, 1024, 2048, 4096, 8192, 16384, 32768, 65536] {
            for used in 0..=size {
                check(used as f32 / size as f32 * 100.0);
            }
        }
        // Ties and their neighbours, every f32 from 0 to 2^24 / 10 whose
        // tenths end in 5 hundredths exactly or nearly.
        for k in 0..2_000_000u32 {
            let tie = (k as f32) / 10.0 + 0.05;
            for v in [tie, tie.next_up(), tie.next_down(), k as f32 / 100.0] {
                check(v);
            }
        }
        // Every 9973rd f32 of positive sign, the edges and the rest.
        for bits in (0..=0x7FFF_FFFFu32).step_by(9973) {
            check(f32::from_bits(bits));
        }
        for v in [
            0.0,
            -0.0,
            0.05,
            0.25,
            0.75,
            99.95,
            100.0,
            f32::NAN,
            f32::INFINITY,
            -1.0,
        ] {
            check(v);
        }
        for v in [
            2_147_483_520.0f32,
            2_147_483_648.0,
            f32::MAX,
            f32::MIN_POSITIVE,
        ] {
            check(v);
        }
    }

    #[test]
    fn each_piece_is_what_the_formatter_writes() {
        let mut out = Vec::new();
        let bytes: Vec<u8> = (0..=255).collect();
        hex(&mut out, &bytes);
        let want: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(out, want.as_bytes());
        // Every length around the four-byte steps, after other text.
        for len in 0..=21 {
            for from in [0, 3, 250] {
                let b = bytes.get(from..(from + len).min(256)).unwrap_or_default();
                let mut out = b"x".to_vec();
                hex(&mut out, b);
                let want: String = b.iter().map(|b| format!("{b:02x}")).collect();
                assert_eq!(out, format!("x{want}").as_bytes());
            }
        }
        // Right-aligned in a field of spaces, every value that fits.
        for w in 1..=7usize {
            for v in (0..10u64.pow(w as u32))
                .step_by(7)
                .chain([10u64.pow(w as u32) - 1])
            {
                let mut d = vec![b' '; w];
                assert_eq!(right_in(&mut d, v), v.to_string().len());
                assert_eq!(d, format!("{v:>w$}").as_bytes());
            }
        }
        for v in [0, 1, 9, 10, 99, 100, 65535, 4294967295, u64::MAX] {
            for w in [0, 1, 5, 8, 25, 31, 32, 33, 40] {
                let mut out = Vec::new();
                num_right(&mut out, v, w);
                assert_eq!(out, format!("{v:>w$}").as_bytes());
                let s = v.to_string();
                out.clear();
                str_right(&mut out, &s, w);
                assert_eq!(out, format!("{s:>w$}").as_bytes());
                out.clear();
                str_left(&mut out, &s, w);
                assert_eq!(out, format!("{s:<w$}").as_bytes());
            }
        }
    }
}
