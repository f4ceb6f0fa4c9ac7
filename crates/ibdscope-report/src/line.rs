//! Lines built by hand into a reused byte buffer: numbers, padded words
//! and hex without the formatter, for the commands that print a line per
//! record or per page (`records`, `pages`). Each gives exactly what the
//! `format!` spelling named beside it gives (ASCII only: a width counts
//! bytes, which is characters here).

/// Each byte's two lowercase hex digits.
const HEX: [[u8; 2]; 256] = {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut t = [[0u8; 2]; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = [DIGITS[i >> 4], DIGITS[i & 15]];
        i += 1;
    }
    t
};

/// `bytes` as lowercase hex (`{:02x}` of each byte).
pub fn hex(out: &mut Vec<u8>, bytes: &[u8]) {
    let start = out.len();
    out.resize(start + 2 * bytes.len(), 0);
    for (pair, &b) in out[start..].chunks_exact_mut(2).zip(bytes) {
        pair.copy_from_slice(&HEX[usize::from(b)]);
    }
}

/// How many decimal digits `v` has.
pub fn digits(v: u64) -> usize {
    let mut n = 1;
    let mut v = v;
    while v >= 10 {
        v /= 10;
        n += 1;
    }
    n
}

/// `v` in decimal (`{v}`).
pub fn num(out: &mut Vec<u8>, v: u64) {
    num_right(out, v, 0);
}

/// `width - len` spaces, if `len` is shorter.
pub fn spaces(out: &mut Vec<u8>, len: usize, width: usize) {
    out.resize(out.len() + width.saturating_sub(len), b' ');
}

/// `v` right-aligned in `width` (`{v:>width$}`): the spaces and digits
/// in place, each digit written from the last (no copy of a variable
/// length, which costs a `memcpy` call).
pub fn num_right(out: &mut Vec<u8>, v: u64, width: usize) {
    let start = out.len();
    out.resize(start + width.max(digits(v)), b' ');
    let mut v = v;
    for d in out[start..].iter_mut().rev() {
        *d = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_piece_is_what_the_formatter_writes() {
        let mut out = Vec::new();
        let bytes: Vec<u8> = (0..=255).collect();
        hex(&mut out, &bytes);
        let want: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(out, want.as_bytes());
        for v in [0, 1, 9, 10, 99, 100, 65535, 4294967295, u64::MAX] {
            for w in [0, 1, 5, 8, 25] {
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
