//! The type layer: candidate types for a column's bytes, scored by how
//! many values fit and how telling the fit is, and the placement of the
//! NOT NULL fixed-width bytes among the fields.

use super::*;

// ------------------------------------------------------- the types

/// A candidate type for some bytes.
#[derive(Clone, Debug)]
pub(super) struct Cand {
    pub(super) sql: String,
    pub(super) family: Family,
    /// Share of the values that fit, 0..=1000.
    pub(super) fit: u32,
    /// How telling a fit is (a byte string fits anything).
    pub(super) weight: u32,
    pub(super) evidence: String,
    /// Never more than low confidence (a stored format no `CREATE TABLE`
    /// makes today).
    pub(super) low: bool,
    /// Other types that read every value alike (an integer's signedness,
    /// a DECIMAL's scale): named beside it, and the column is ambiguous.
    pub(super) alts: Vec<String>,
    /// Bits of each value the type fixes beyond what any bytes of its
    /// width give (an integer's leading zero or sign bits): what tells
    /// where a NOT NULL fixed-width run splits into columns.
    pub(super) bits: u32,
}

pub(super) fn col(t: ColType, unsigned: bool) -> Column {
    let mut c = Column::new("c", t);
    c.unsigned = unsigned;
    c
}

pub(super) fn int_val(b: &[u8]) -> u64 {
    b.iter().fold(0u64, |a, &x| (a << 8) | u64::from(x))
}

/// `k` of `n` values, in thousandths.
fn per_mille(k: usize, n: u32) -> u32 {
    u32::try_from(k)
        .unwrap_or(u32::MAX)
        .saturating_mul(1000)
        .checked_div(n)
        .unwrap_or(0)
}

/// Candidate types for a fixed-width column and how well `vals` fit.
pub(super) fn fixed_cands(w: u32, vals: &[&[u8]]) -> Vec<Cand> {
    let mut out = Vec::new();
    let n = u32::try_from(vals.len()).unwrap_or(u32::MAX).max(1);
    let share = |k: usize| per_mille(k, n);
    let count = |f: &dyn Fn(&[u8]) -> bool| vals.iter().filter(|v| f(v)).count();
    // Integers: InnoDB flips the sign bit of signed ones, so small
    // signed values start 0x80 or 0x7F; small unsigned ones 0x00.
    let int_name = match w {
        1 => Some("tinyint"),
        2 => Some("smallint"),
        3 => Some("mediumint"),
        4 => Some("int"),
        8 => Some("bigint"),
        _ => None,
    };
    if let Some(name) = int_name {
        let signed = count(&|v| matches!(v.first(), Some(0x80 | 0x7F)));
        let unsigned = count(&|v| matches!(v.first(), Some(0x00)));
        let (lo, hi) = vals
            .iter()
            .map(|v| {
                let bias = 1i128
                    .checked_shl(w.saturating_mul(8).saturating_sub(1))
                    .unwrap_or(0);
                (int_val(v) as i128).wrapping_sub(bias)
            })
            .fold((i128::MAX, i128::MIN), |(a, b), x| (a.min(x), b.max(x)));
        let most = |k: usize| k.saturating_mul(10) >= vals.len().saturating_mul(9) && k > 0;
        // The leading zero bits every value has: an UNSIGNED integer's
        // (or ENUM's, SET's, BIT's) small magnitude; and the sign bits
        // past the first: a signed one's (its sign bit is flipped, so its
        // small values start 0x80 or 0x7F). 7 such bits in every one of
        // 20 values or more tell which (2^-7 a value at random).
        let ev_u = vals.iter().map(|v| zero_bits(v)).min().unwrap_or(0);
        let ev_s = vals.iter().map(|v| sign_bits(v)).min().unwrap_or(0);
        let enough = vals.len() >= MIN_TYPE_RECORDS as usize;
        // A constant says nothing of where a column starts or ends.
        let varied = vals.windows(2).any(|p| p.first() != p.get(1));
        // Every byte string is some integer: small magnitudes (the
        // flipped sign bit next to 0x00 or 0xFF bytes) make it telling.
        // One byte: 256 values, any of them as likely signed as not.
        let (telling, unsigned_telling) = if w > 1 {
            (
                most(signed) || (enough && varied && ev_s >= 6),
                most(unsigned) || (enough && varied && ev_u >= 7),
            )
        } else {
            (false, false)
        };
        // One byte whose values all sit in its low bits (0x00..0x0F in
        // every one): not a signed integer's small magnitude (0x80 or 0x7F
        // first), an UNSIGNED one's, an ENUM index, a SET, a BIT; still
        // `ambiguous` (signed is named).
        let code1 = w == 1 && enough && varied && ev_u >= 4;
        // Values of every magnitude say nothing of the sign: a signed and
        // an UNSIGNED column read them alike but for the sign bit
        // (`row_mysql_store_col_in_innobase_format`, row0mysql.cc: the
        // sign bit is flipped for signed integers only). Signed (the
        // default) is printed, the other named: the column is ambiguous.
        let unsure_sign = !telling && !unsigned_telling;
        // ENUM, SET and BIT are stored unsigned and big endian, the sign
        // bit NOT flipped (format.md, "ENUM, SET, BIT"): wherever the sign
        // bit says nothing or says unsigned, they read these bytes alike.
        let codes = if telling {
            Vec::new()
        } else {
            code_alts(w, vals)
        };
        out.push(Cand {
            bits: if telling && varied {
                bits90(vals, sign_bits)
            } else {
                0
            },
            low: false,
            alts: if unsure_sign {
                let mut a = if code1 {
                    Vec::new()
                } else {
                    vec![format!("{name} unsigned")]
                };
                if !code1 {
                    a.extend(codes.iter().cloned());
                }
                a
            } else {
                Vec::new()
            },
            sql: name.to_string(),
            family: Family::Integer,
            fit: 1000,
            weight: if telling {
                8
            } else if w == 1 {
                2
            } else {
                4
            },
            evidence: format!(
                "{w}-byte integers with the sign bit flipped, {lo}..{hi}{}",
                if unsure_sign {
                    " (values of every magnitude: signed, or UNSIGNED)"
                } else {
                    ""
                }
            ),
        });
        if unsigned_telling || code1 {
            let max = vals.iter().map(|v| int_val(v)).max().unwrap_or(0);
            let mut alts = codes;
            if code1 {
                alts.insert(0, name.to_string());
            }
            out.push(Cand {
                bits: if !varied {
                    0
                } else if most(unsigned) && ev_u < 7 {
                    bits90(vals, zero_bits)
                } else {
                    ev_u
                },
                low: false,
                alts,
                sql: format!("{name} unsigned"),
                family: Family::Integer,
                fit: if most(unsigned) {
                    share(unsigned)
                } else {
                    1000
                },
                weight: if code1 { 4 } else { 6 },
                evidence: format!(
                    "{w}-byte big-endian values, sign bit not flipped, {ev_u} or more leading zero \
                     bits in every one (at most {max})"
                ),
            });
        }
    }
    if let Some(c) = decimal_cand(w, vals) {
        out.push(c);
    }
    let temporal: &[(u32, &str, ColType, u32)] = &[
        (3, "date", ColType::NewDate, 0),
        (3, "time", ColType::Time2, 0),
        (4, "time(2)", ColType::Time2, 2),
        (5, "time(4)", ColType::Time2, 4),
        (6, "time(6)", ColType::Time2, 6),
        (5, "datetime", ColType::DateTime2, 0),
        (6, "datetime(2)", ColType::DateTime2, 2),
        (7, "datetime(4)", ColType::DateTime2, 4),
        (8, "datetime(6)", ColType::DateTime2, 6),
        (4, "timestamp", ColType::Timestamp2, 0),
        (5, "timestamp(2)", ColType::Timestamp2, 2),
        (6, "timestamp(4)", ColType::Timestamp2, 4),
        (7, "timestamp(6)", ColType::Timestamp2, 6),
    ];
    // MariaDB's formats before MySQL 5.6.4's (`mysql56_temporal_format =
    // OFF`): TIME as ±HHMMSS in 3 bytes, DATETIME as YYYYMMDDHHMMSS in 8,
    // TIMESTAMP as 4 bytes of seconds, and MariaDB 5.3's "hires" ones with
    // a fraction (`table::hires_len`). No CREATE TABLE makes them now: the
    // statement names them as MariaDB 10.5.1+ prints them (`/* mariadb-5.3
    // */`, which `--ddl` reads back), and they stay of low confidence.
    let mut old: Vec<(u32, String, ColType, u32)> = vec![
        (3, "time".into(), ColType::Time, 0),
        (8, "datetime".into(), ColType::DateTime, 0),
        (4, "timestamp".into(), ColType::Timestamp, 0),
    ];
    for fsp in 1..=6u32 {
        for (t, name) in [
            (ColType::Time, "time"),
            (ColType::DateTime, "datetime"),
            (ColType::Timestamp, "timestamp"),
        ] {
            if let Some(hw) = crate::table::hires_len(t, fsp) {
                old.push((hw, format!("{name}({fsp})"), t, fsp));
            }
        }
    }
    let current = temporal
        .iter()
        .map(|&(tw, name, t, fsp)| (tw, name.to_string(), t, fsp, false));
    let older = old
        .into_iter()
        .map(|(tw, name, t, fsp)| (tw, name, t, fsp, true));
    for (tw, name, t, fsp, is_old) in current.chain(older) {
        if tw != w {
            continue;
        }
        let mut c = col(t, false);
        c.fsp = fsp;
        let mut lo: Option<String> = None;
        let mut hi: Option<String> = None;
        let mut ok = 0usize;
        // TIME2's minutes and seconds (6 bits each, under 60): the most seen.
        let mut ms = (0u32, 0u32);
        // Fractions (even precisions only: odd ones share their bytes with
        // the next even one) whose last digit is 0, and that are 0.
        let (mut tens, mut zeros) = (0usize, 0usize);
        for v in vals {
            let mut s = String::new();
            if render(&c, v, &mut s) == Rendered::Text && plausible_time(t, &s) {
                ok = ok.saturating_add(1);
                if let Some((_, f)) = s.split_once('.') {
                    tens = tens.saturating_add(usize::from(f.ends_with('0')));
                    zeros = zeros.saturating_add(usize::from(f.bytes().all(|b| b == b'0')));
                }
                if t == ColType::Time2 {
                    let mut parts = s.split('.').next().unwrap_or("").rsplit(':');
                    let sec = parts.next().and_then(|x| x.parse().ok()).unwrap_or(0);
                    let min = parts.next().and_then(|x| x.parse().ok()).unwrap_or(0);
                    ms = (ms.0.max(min), ms.1.max(sec));
                }
                if lo.as_ref().is_none_or(|l| s < *l) {
                    lo = Some(s.clone());
                }
                if hi.as_ref().is_none_or(|h| s > *h) {
                    hi = Some(s);
                }
            }
        }
        // DATETIME2, TIMESTAMP2 and TIME2 keep fsp 1–2, 3–4, 5–6 in 1, 2, 3
        // bytes, an odd fsp as the even one's value with its last digit 0
        // (`my_datetime_packed_to_binary`, my_time.c: frac / 10^(6 - 2k)):
        // every last digit 0 reads as the odd fsp; every fraction 0 names
        // both.
        let odd = !is_old
            && fsp > 0
            && fsp.is_multiple_of(2)
            && ok == vals.len()
            && ok > 0
            && tens == vals.len();
        let (sql, alts) = if odd {
            let odd_name =
                name.replace(&format!("({fsp})"), &format!("({})", fsp.saturating_sub(1)));
            if zeros == vals.len() {
                (odd_name, vec![name.clone()])
            } else {
                (odd_name, Vec::new())
            }
        } else if is_old {
            // MariaDB 10.5.1+ writes the old format so in `SHOW CREATE
            // TABLE`, and `--ddl` reads it back at its width.
            (format!("{name} /* mariadb-5.3 */"), Vec::new())
        } else {
            (name.clone(), Vec::new())
        };
        out.push(Cand {
            bits: 0,
            low: is_old,
            alts,
            sql,
            family: Family::Temporal,
            fit: share(ok),
            weight: match t {
                // MariaDB 5.3's hires DATETIME: less telling than text.
                ColType::DateTime if fsp > 0 => 6,
                ColType::DateTime2 | ColType::DateTime => 8,
                ColType::NewDate => 7,
                ColType::Time | ColType::Timestamp2 | ColType::Timestamp => 5,
                // TIME2 (`my_time_packed_to_binary`, my_time.c: hour 10
                // bits, minute and second 6 bits each, sign bit flipped):
                // minutes and seconds under 60 in every one of 50 or more
                // values that reach 30 of both tell ((60/64)^2 per value
                // at random).
                ColType::Time2 if ok == vals.len() && ok >= 50 && ms.0 >= 30 && ms.1 >= 30 => 7,
                _ => 4,
            },
            evidence: format!(
                "decode as {}{} between {} and {}",
                name.to_uppercase(),
                if is_old {
                    " in MariaDB's format before MySQL 5.6.4's (no CREATE TABLE makes it now)"
                } else {
                    ""
                },
                lo.unwrap_or_default(),
                hi.unwrap_or_default()
            ),
        });
    }
    if w == 8 || w == 4 {
        // FLOAT and DOUBLE are stored as the machine writes them, little
        // endian, the sign bit NOT flipped (`row_mysql_store_col_in_
        // innobase_format`: DATA_FLOAT / DATA_DOUBLE are copied as they
        // are; `mach_float_read`, mach0data.ic). Any bytes are some IEEE
        // value; values of ordinary magnitude (1e-30..1e30) in nearly every
        // record tell, unless the bytes are small integers (the float's
        // lowest mantissa byte would then be 0x80 or 0x7F).
        let finite = count(&|v| float_finite(v));
        let ordinary = count(&|v| float_plausible(v));
        let int_small = count(&|v| matches!(v.first(), Some(0x80 | 0x7F)));
        let nonzero = count(&|v| v.iter().any(|&b| b != 0));
        let telling = vals.len() >= MIN_TYPE_RECORDS as usize
            && nonzero >= MIN_TYPE_RECORDS as usize
            && ordinary.saturating_mul(10) >= vals.len().saturating_mul(9)
            && int_small.saturating_mul(2) < vals.len();
        out.push(Cand {
            bits: 0,
            low: false,
            alts: Vec::new(),
            sql: if w == 8 { "double" } else { "float" }.to_string(),
            family: Family::Float,
            fit: share(finite),
            weight: if telling { 7 } else { 2 },
            evidence: format!(
                "{w}-byte little-endian IEEE values, {ordinary} of {} of ordinary magnitude",
                vals.len()
            ),
        });
    }
    // Text: latin1 letters padded with spaces (CHAR in a single-byte
    // charset keeps its full width).
    let text = count(&|v| {
        v.iter()
            .all(|&b| b == b'\t' || b == b'\n' || (0x20..0x7F).contains(&b) || b >= 0xA0)
    });
    let padded = count(&|v| v.last() == Some(&b' '));
    // A CHAR in a single-byte charset is padded with spaces to its width
    // (`row_mysql_store_col_in_innobase_format`, row0mysql.cc; `Field_
    // string::store`): a padding run that ends inside the bytes, at the
    // same place in many records (a space, then text), is where one
    // column ends and the next begins: two columns, not one.
    let inner = (1..w as usize)
        .map(|p| {
            count(&|v| {
                v.get(p.saturating_sub(1)) == Some(&b' ') && v.get(p).is_some_and(|&b| b != b' ')
            })
        })
        .max()
        .unwrap_or(0);
    let split = inner >= 5 && inner.saturating_mul(5) >= vals.len();
    out.push(Cand {
        bits: 0,
        low: false,
        alts: Vec::new(),
        sql: format!("char({w})"),
        family: Family::Text,
        fit: share(text),
        weight: if split {
            1
        } else if w >= 6 {
            7
        } else if padded > 0 {
            3
        } else {
            1
        },
        evidence: format!(
            "{w} printable latin1 bytes in every value{}",
            if padded > 0 { ", space-padded" } else { "" }
        ),
    });
    if w == 16 {
        // RFC 4122 variant and a version 1–8 nibble.
        let uuid = count(&|v| {
            v.get(6).is_some_and(|b| (1..=8).contains(&(b >> 4)))
                && v.get(8).is_some_and(|b| b & 0xC0 == 0x80)
        });
        out.push(Cand {
            bits: 0,
            low: false,
            alts: Vec::new(),
            sql: "binary(16)".into(),
            family: Family::Binary,
            fit: share(uuid),
            weight: 6,
            evidence: "16 bytes with an RFC 4122 UUID's variant and version bits".into(),
        });
    }
    out.push(Cand {
        bits: 0,
        low: false,
        alts: Vec::new(),
        sql: format!("binary({w})"),
        family: Family::Binary,
        fit: 1000,
        weight: 1,
        evidence: format!("{w} bytes of no known shape"),
    });
    out
}

/// Leading zero bits of a big-endian value (unsigned, not flipped).
fn zero_bits(v: &[u8]) -> u32 {
    let mut n = 0u32;
    for &b in v {
        n = n.saturating_add(b.leading_zeros());
        if b != 0 {
            break;
        }
    }
    n
}

/// Sign bits past the first of a sign-flipped big-endian integer: how
/// small its magnitude is.
fn sign_bits(v: &[u8]) -> u32 {
    let neg = v.first().is_some_and(|b| b & 0x80 == 0);
    let mut n = 0u32;
    for (i, &b) in v.iter().enumerate() {
        let b = if i == 0 { b ^ 0x80 } else { b };
        let b = if neg { !b } else { b };
        n = n.saturating_add(b.leading_zeros());
        if b != 0 {
            break;
        }
    }
    n.saturating_sub(1)
}

/// The bits `f` gives that 90% of `vals` reach (0 for none).
fn bits90(vals: &[&[u8]], f: fn(&[u8]) -> u32) -> u32 {
    let mut b: Vec<u32> = vals.iter().map(|v| f(v)).collect();
    b.sort_unstable();
    b.get(b.len() / 10).copied().unwrap_or(0)
}

/// ENUM, SET and BIT readings of `w` unsigned big-endian bytes (their
/// stored form: format.md, "ENUM, SET, BIT"), named beside an integer
/// they read alike:
/// - ENUM: an index from 1 (`Field_enum::store`: 0 is only the error
///   value ''), in 1 byte for up to 255 labels, 2 for more
///   (`get_enum_pack_length`); every value 1 or more, and the values a
///   dense set (distinct ones at least half the largest, or of the
///   values read): at least as many labels as the largest index (256
///   in 2 bytes).
/// - SET: a bitmask, member k at bit k (`Field_set::store`), in 1, 2, 3,
///   4 or 8 bytes (`get_set_pack_length`): at least as many members as
///   the highest bit set.
/// - BIT(n): ⌈n/8⌉ bytes, big endian (`Field_bit::store`): n at least the
///   highest bit set and over 8 × (w − 1).
pub(super) fn code_alts(w: u32, vals: &[&[u8]]) -> Vec<String> {
    let mut out = Vec::new();
    if vals.is_empty() || w == 0 || w > 8 {
        return out;
    }
    let ints: Vec<u64> = vals.iter().map(|v| int_val(v)).collect();
    let max = ints.iter().copied().max().unwrap_or(0);
    if w <= 2 {
        let mut d = ints.clone();
        d.sort_unstable();
        d.dedup();
        let dense = (d.len() as u64).saturating_mul(2) >= max.min(ints.len() as u64);
        let least = enum_labels_min(vals).unwrap_or(0);
        if least >= 1 && ints.iter().all(|&x| x >= 1) && dense {
            let labels = if w == 2 { least.max(256) } else { least };
            out.push(format!("enum of {labels} labels or more"));
        }
    }
    if matches!(w, 1 | 2 | 3 | 4 | 8) {
        out.push(format!(
            "set of {} members or more",
            set_members_min(vals).max(1)
        ));
    }
    out.push(format!("bit({})", bit_width_min(w, vals)));
    out
}

pub(super) fn plausible_time(t: ColType, s: &str) -> bool {
    match t {
        ColType::NewDate | ColType::DateTime2 | ColType::DateTime => {
            let y: u32 = s.get(..4).and_then(|y| y.parse().ok()).unwrap_or(0);
            (1000..=9999).contains(&y) && !s.contains("-00")
        }
        // Seconds since 1970 (unsigned, under 2^31): as a signed integer
        // (sign bit flipped) every one is negative, which real integers
        // rarely all are.
        ColType::Timestamp2 | ColType::Timestamp => {
            s.get(..4).is_some_and(|y| ("1970"..="2038").contains(&y))
        }
        _ => true,
    }
}

/// Not NaN or infinite.
pub(super) fn float_finite(v: &[u8]) -> bool {
    float_of(v).is_some_and(f64::is_finite)
}

pub(super) fn float_of(v: &[u8]) -> Option<f64> {
    match v.len() {
        8 => v.try_into().ok().map(|a: [u8; 8]| f64::from_le_bytes(a)),
        4 => v
            .try_into()
            .ok()
            .map(|a: [u8; 4]| f64::from(f32::from_le_bytes(a))),
        _ => None,
    }
}

pub(super) fn float_plausible(v: &[u8]) -> bool {
    float_of(v).is_some_and(|x| x == 0.0 || (x.is_finite() && x.abs() > 1e-30 && x.abs() < 1e30))
}

/// DIG2BYTES (`strings/decimal.cc`): bytes of a group of 0–9 digits.
pub(super) const DIG2BYTES: [u32; 10] = [0, 1, 1, 2, 2, 3, 3, 4, 4, 4];

/// A binary DECIMAL's digit groups in storage order (`decimal2bin`,
/// strings/decimal.cc): the integer part's leftover digits, its 9-digit
/// groups, the fraction's 9-digit groups, its leftover digits; each as
/// (bytes, largest value).
pub(super) fn decimal_groups(intg: u32, frac: u32) -> Vec<(u32, u64)> {
    let top = |d: u32| 10u64.saturating_pow(d).saturating_sub(1);
    let part = |d: u32| DIG2BYTES.get(d as usize).copied().unwrap_or(4);
    let mut g = Vec::new();
    if !intg.is_multiple_of(9) {
        g.push((part(intg % 9), top(intg % 9)));
    }
    for _ in 0..(intg / 9).saturating_add(frac / 9) {
        g.push((4, 999_999_999));
    }
    if !frac.is_multiple_of(9) {
        g.push((part(frac % 9), top(frac % 9)));
    }
    g
}

/// The groups' values of a stored DECIMAL, or `None` when one is over its
/// largest value (`bin2decimal` refuses it): the first byte's top bit is
/// the sign (set: positive), a negative number has every byte inverted.
pub(super) fn decimal_read(v: &[u8], groups: &[(u32, u64)]) -> Option<Vec<u64>> {
    let neg = v.first()? & 0x80 == 0;
    let mask = if neg { 0xFF } else { 0 };
    let mut at = 0usize;
    let mut out = Vec::with_capacity(groups.len());
    for &(b, top) in groups {
        let end = at.checked_add(b as usize)?;
        let bytes = v.get(at..end)?;
        let x = bytes.iter().enumerate().fold(0u64, |a, (i, &x)| {
            let x = x ^ mask ^ if at == 0 && i == 0 { 0x80 } else { 0 };
            (a << 8) | u64::from(x)
        });
        if x > top {
            return None;
        }
        out.push(x);
        at = end;
    }
    (at == v.len()).then_some(out)
}

/// Every (precision, scale) of a `w`-byte DECIMAL (`decimal_bin_size`)
/// whose digit groups hold every value, and whether the fit tells (the
/// first group used and a later one filled to a tenth of its range, in
/// 20 or more nonzero values). `no_lone`: leave out a lone integer
/// group (scale 0, at most 9 digits), which reads exactly as an integer.
fn decimal_fits(w: u32, vals: &[&[u8]], no_lone: bool) -> Vec<(u32, u32, bool)> {
    let mut fits: Vec<(u32, u32, bool)> = Vec::new();
    if vals.is_empty() || w > 30 {
        return fits;
    }
    for p in 1..=65u32 {
        for sc in 0..=p.min(30) {
            if crate::table::decimal_bin_size(p, sc) != Some(w) {
                continue;
            }
            let groups = decimal_groups(p.saturating_sub(sc), sc);
            if no_lone && sc == 0 && groups.len() < 2 {
                continue;
            }
            let mut maxes = vec![0u64; groups.len()];
            let mut nonzero = 0usize;
            let ok = vals.iter().all(|v| match decimal_read(v, &groups) {
                Some(g) => {
                    nonzero = nonzero.saturating_add(usize::from(g.iter().any(|&x| x > 0)));
                    for (m, x) in maxes.iter_mut().zip(g) {
                        *m = (*m).max(x);
                    }
                    true
                }
                None => false,
            });
            if ok {
                // The first group used too: small integers read as a
                // DECIMAL's fraction with a zero integer part.
                let filled = maxes.first().is_some_and(|&m| m > 0)
                    && groups
                        .iter()
                        .zip(&maxes)
                        .skip(1)
                        .any(|(&(_, top), &m)| m.saturating_mul(10) >= top);
                fits.push((p, sc, filled && nonzero >= MIN_TYPE_RECORDS as usize));
            }
        }
    }
    fits
}

// ------------------------------------- a definition given in part

/// A column known to be ENUM (its labels lost): the fewest labels its
/// stored indexes need, the largest index (`Field_enum::store`: index k of
/// 1..=n for label k, 0 for the error value ''). `None` when no value is
/// read or one is wider than 2 bytes.
pub(crate) fn enum_labels_min(vals: &[&[u8]]) -> Option<u64> {
    if vals.is_empty() || vals.iter().any(|v| v.len() > 2) {
        return None;
    }
    vals.iter().map(|v| int_val(v)).max()
}

/// A column known to be SET (its members lost): the fewest members its
/// bitmasks need, the highest bit set plus one (`Field_set::store`:
/// member k at bit k − 1).
pub(crate) fn set_members_min(vals: &[&[u8]]) -> u32 {
    let max = vals.iter().map(|v| int_val(v)).max().unwrap_or(0);
    64u32.saturating_sub(max.leading_zeros())
}

/// A column known to be BIT and `w` bytes wide (its width lost): the
/// fewest bits that hold every value, and more than 8 × (w − 1), since
/// BIT(n) takes ⌈n/8⌉ bytes (`Field_bit::pack_length`).
pub(crate) fn bit_width_min(w: u32, vals: &[&[u8]]) -> u32 {
    set_members_min(vals).max(w.saturating_sub(1).saturating_mul(8).saturating_add(1))
}

/// A DECIMAL candidate for `w` bytes: of every (precision, scale) whose
/// `decimal_bin_size` is `w` and whose digit groups every value fits, the
/// fewest digits (the likeliest: each digit more is a tenth as likely to
/// hold every value); another scale of as few digits that fits alike is
/// named beside it. A lone integer group (scale 0, at most 9 digits) reads
/// exactly as an integer and is left to the integers. Telling when some
/// group after the first fills at least a tenth of its range (the bound
/// is then a real constraint) in at least 20 records.
pub(super) fn decimal_cand(w: u32, vals: &[&[u8]]) -> Option<Cand> {
    if vals.is_empty() || w > 30 {
        return None;
    }
    let fits = decimal_fits(w, vals, true);
    let least = fits.iter().map(|f| f.0).min()?;
    let mut best = fits.iter().filter(|f| f.0 == least);
    let &(p, sc, telling) = best.next()?;
    // The bits its digit groups leave unused in every value (a 5-digit
    // group in 3 bytes: 24 − 17), as an integer's leading bits count.
    let bits = if telling {
        decimal_groups(p.saturating_sub(sc), sc)
            .iter()
            .map(|&(b, top)| {
                b.saturating_mul(8)
                    .saturating_sub(64u32.saturating_sub(top.leading_zeros()))
            })
            .sum()
    } else {
        0
    };
    let alts: Vec<String> = best.map(|f| format!("decimal({},{})", f.0, f.1)).collect();
    Some(Cand {
        bits,
        low: false,
        sql: format!("decimal({p},{sc})"),
        family: Family::Decimal,
        fit: 1000,
        weight: if telling { 7 } else { 3 },
        evidence: format!(
            "{w} bytes of binary DECIMAL digit groups (each within its digits, sign bit \
             flipped), the fewest digits that hold every value: DECIMAL({p},{sc}){}",
            if alts.is_empty() {
                String::new()
            } else {
                format!("; the same groups read as {}", alts.join(", "))
            }
        ),
        alts,
    })
}

/// Candidates for a variable-length column.
pub(super) fn var_cands(vals: &[&[u8]], external: bool, max_seen: u32, big: bool) -> Vec<Cand> {
    let n = u32::try_from(vals.len()).unwrap_or(u32::MAX).max(1);
    let share = |k: usize| per_mille(k, n);
    let utf8 = vals
        .iter()
        .filter(|v| std::str::from_utf8(v).is_ok())
        .count();
    let ascii = vals
        .iter()
        .filter(|v| {
            v.iter()
                .all(|&b| (0x20..0x7F).contains(&b) || b == b'\n' || b == b'\t')
        })
        .count();
    let latin1 = vals
        .iter()
        .filter(|v| {
            v.iter()
                .all(|&b| b >= 0x20 && b != 0x7F && !(0x80..0xA0).contains(&b))
        })
        .count();
    let four = vals
        .iter()
        .filter_map(|v| std::str::from_utf8(v).ok())
        .any(|s| s.chars().any(|c| u32::from(c) > 0xFFFF));
    let multi = vals
        .iter()
        .filter_map(|v| std::str::from_utf8(v).ok())
        .any(|s| s.chars().any(|c| u32::from(c) > 0x7F));
    let mut out = Vec::new();
    let blobish = external || max_seen > 4096;
    let (text, bin) = if blobish {
        ("text", "blob")
    } else {
        ("varchar", "varbinary")
    };
    // A declared maximum is not in the records: the longest value (or
    // 255 / 65535 by the length bytes) bounds it from below.
    let decl = if big {
        max_seen.max(256)
    } else {
        max_seen.clamp(1, 255)
    };
    let sized = |t: &str, cs: &str| {
        if blobish {
            format!("{t}{cs}")
        } else {
            format!("{t}({decl}){cs}")
        }
    };
    if let Some(c) = mb_char_cand(vals, blobish, four, multi) {
        out.push(c);
    }
    if multi && utf8 == vals.len() {
        let cs = if four {
            " character set utf8mb4"
        } else {
            " character set utf8mb3"
        };
        out.push(Cand {
            bits: 0,
            low: false,
            alts: Vec::new(),
            sql: sized(text, cs),
            family: Family::Text,
            fit: share(utf8),
            weight: 8,
            evidence: format!(
                "UTF-8 text{}",
                if four { " with 4-byte characters" } else { "" }
            ),
        });
    }
    out.push(Cand {
        bits: 0,
        low: false,
        alts: Vec::new(),
        sql: sized(text, ""),
        family: Family::Text,
        fit: share(if multi { latin1 } else { ascii.max(latin1) }),
        weight: if ascii == vals.len() { 7 } else { 5 },
        evidence: if ascii == vals.len() {
            "printable ASCII text".into()
        } else {
            "latin1 text".into()
        },
    });
    out.push(Cand {
        bits: 0,
        low: false,
        alts: Vec::new(),
        sql: sized(bin, ""),
        family: Family::Binary,
        fit: 1000,
        weight: 1,
        evidence: "bytes".into(),
    });
    out
}

/// CHAR(n) in a multi-byte charset, in a COMPACT/DYNAMIC record: stored
/// with a length like a VARCHAR, but never shorter than n bytes, the
/// value space-padded to n (`row_mysql_store_col_in_innobase_format`,
/// row0mysql.cc: a DATA_MYSQL column with mbmaxlen > 1 has its trailing
/// 0x20 bytes stripped only down to n = the column's length / mbmaxlen).
/// So every value is at least n bytes, every short one exactly n ending in
/// spaces, none over mbmaxlen × n. Telling when at least 20 values are
/// read, every one valid UTF-8, none shorter than the shortest, and 5 or
/// more (and 5%) of them that shortest length ending in a space (a
/// VARCHAR's short values have no floor and keep no padding); utf8mb4
/// when a 4-byte character occurs or a value is over 3n bytes, else
/// utf8mb3 with utf8mb4 named beside it (the bytes do not tell them
/// apart).
fn mb_char_cand(vals: &[&[u8]], blobish: bool, four: bool, multi: bool) -> Option<Cand> {
    if blobish || vals.len() < MIN_TYPE_RECORDS as usize {
        return None;
    }
    if !vals.iter().all(|v| std::str::from_utf8(v).is_ok()) {
        return None;
    }
    let n = vals.iter().map(|v| v.len()).min()?;
    let longest = vals.iter().map(|v| v.len()).max()?;
    let padded = vals
        .iter()
        .filter(|v| v.len() == n && v.last() == Some(&b' '))
        .count();
    if n == 0 || n > 255 || padded < 5 || padded.saturating_mul(20) < vals.len() {
        return None;
    }
    if longest > n.saturating_mul(4) {
        return None;
    }
    let mb4 = four || longest > n.saturating_mul(3);
    let cs = if mb4 { "utf8mb4" } else { "utf8mb3" };
    Some(Cand {
        bits: 0,
        low: false,
        alts: if mb4 {
            Vec::new()
        } else {
            vec![format!("char({n}) character set utf8mb4")]
        },
        sql: format!("char({n}) character set {cs}"),
        family: Family::Text,
        fit: 1000,
        weight: 9,
        evidence: format!(
            "UTF-8 text{}, every value {n} bytes or more, {padded} of {} exactly {n} bytes ending \
             in spaces: a CHAR({n}) in a multi-byte charset (stored with a length, space-padded \
             to {n} bytes){}",
            if multi { "" } else { " (ASCII only)" },
            vals.len(),
            if mb4 {
                ""
            } else {
                "; no 4-byte character, and none over 3 bytes a character: utf8mb3, or utf8mb4"
            }
        ),
    })
}

/// The best candidates: the winner, its rivals (fit alike): another
/// family's candidate of the same score, or as telling as the winner
/// (every value fits both, each shape is unlikely by chance: the bytes
/// say both, and nothing but a guess chooses), or, when the winner tells
/// nothing, another number or time that fits every value; and the
/// readings the winner names beside itself (an integer's sign, a
/// DECIMAL's scale).
pub(super) fn choose(mut c: Vec<Cand>) -> (Cand, Vec<Cand>) {
    let score = |x: &Cand| {
        // A type that fails some values loses to one that fits them all.
        let f = if x.fit >= 1000 { 2000 } else { x.fit };
        f.saturating_mul(x.weight)
    };
    // Alike, a time first: every value a valid date and time (MariaDB's
    // 8-byte DATETIME before MySQL 5.6.4's, YYYYMMDDhhmmss) says more
    // than a BIGINT of small values, which those bytes also are; the
    // other is named beside it.
    c.sort_by_key(|x| std::cmp::Reverse((score(x), x.family == Family::Temporal)));
    let mut it = c.into_iter();
    let first = it.next().unwrap_or(Cand {
        bits: 0,
        low: false,
        alts: Vec::new(),
        sql: "binary(1)".into(),
        family: Family::Binary,
        fit: 0,
        weight: 0,
        evidence: String::new(),
    });
    let s = score(&first);
    let numeric = |x: &Cand| {
        matches!(
            x.family,
            Family::Integer | Family::Decimal | Family::Float | Family::Temporal
        )
    };
    let mut rivals: Vec<Cand> = it
        .filter(|x| {
            (x.sql != first.sql || x.low != first.low)
                && (score(x) == s
                    // MariaDB's older formats of the same widths.
                    || (x.low && x.fit >= 900 && x.family == first.family)
                    || (x.family != first.family
                        && ((telling(&first) && telling(x))
                            || (!telling(&first)
                                && numeric(&first)
                                && numeric(x)
                                && x.fit >= 1000
                                && x.weight >= 2))))
        })
        .map(|mut x| {
            if x.low && !first.low {
                x.sql.push_str(" in MariaDB's format before MySQL 5.6.4's");
            }
            x
        })
        .collect();
    for a in &first.alts {
        rivals.push(Cand {
            sql: a.clone(),
            alts: Vec::new(),
            ..first.clone()
        });
    }
    (first, rivals)
}

/// Field `k`'s bytes at `at` past its start, `w` long, in every row where
/// it is not NULL.
pub(super) fn values<'a>(
    pages: &'a [PageRecs],
    rows: &[Row],
    k: usize,
    at: u32,
    w: u32,
) -> Vec<&'a [u8]> {
    cell_bytes(pages, rows, k, at, Some(w))
}

/// Field `k`'s bytes from `at` past its start, `w` long or to its end
/// (`None`), in every row where it is neither NULL nor external.
pub(super) fn cell_bytes<'a>(
    pages: &'a [PageRecs],
    rows: &[Row],
    k: usize,
    at: u32,
    w: Option<u32>,
) -> Vec<&'a [u8]> {
    rows.iter()
        .filter_map(|(pi, o, cells)| {
            let c = cells.get(k)?;
            if c.null || c.ext {
                return None;
            }
            let p = pages.get(*pi)?;
            let s = o.checked_add(c.at)?.checked_add(at)? as usize;
            p.bytes.get(s..s.checked_add(w.unwrap_or(c.len) as usize)?)
        })
        .collect()
}

/// COMPACT: the bytes at `extra` past the origin plus the lengths of the
/// fields before field `k` (all fields when `k` is past them), `w` long.
pub(super) fn values_at<'a>(
    pages: &'a [PageRecs],
    rows: &[Row],
    k: usize,
    extra: u32,
    w: u32,
) -> Vec<&'a [u8]> {
    rows.iter()
        .filter_map(|(pi, o, cells)| {
            let before = match cells.get(k) {
                Some(c) => c.at,
                None => cells.last().map_or(0, |c| c.at.saturating_add(c.len)),
            };
            let p = pages.get(*pi)?;
            let s = o.checked_add(before)?.checked_add(extra)? as usize;
            p.bytes.get(s..s.checked_add(w as usize)?)
        })
        .collect()
}

/// COMPACT: field `k`'s whole values (not NULL, not external) with `extra`
/// fixed bytes placed before it.
pub(super) fn var_values<'a>(
    pages: &'a [PageRecs],
    rows: &[Row],
    k: usize,
    extra: u32,
) -> Vec<&'a [u8]> {
    cell_bytes(pages, rows, k, extra, None)
}

/// Columns placed and typed, and the key's column count.
pub(super) type Placed = (Vec<Spec>, usize);

/// A typed column found by the type layer.
pub(super) struct Spec {
    pub(super) storage: Storage,
    pub(super) nullable: bool,
    pub(super) cand: Cand,
    pub(super) rivals: Vec<Cand>,
    /// A column of a NOT NULL fixed-width run next to another of the
    /// same run, neither telling by its values: where one ends and the
    /// next begins is not known.
    pub(super) weak_split: bool,
    /// The field it is (`None`: bytes of the NOT NULL fixed-width run).
    pub(super) field: Option<usize>,
}

impl Spec {
    /// A column of `storage` typed as `cand` (its `rivals` beside), its
    /// split not yet called weak.
    pub(super) fn new(
        storage: Storage,
        nullable: bool,
        cand: Cand,
        rivals: Vec<Cand>,
        field: Option<usize>,
    ) -> Spec {
        Spec {
            storage,
            nullable,
            cand,
            rivals,
            weak_split: false,
            field,
        }
    }
}

/// A type whose fit says something of the bytes' extent (a date, text,
/// small integers), rather than one any bytes fit.
pub(super) fn telling(c: &Cand) -> bool {
    c.weight >= 6 && c.fit >= 1000
}

pub(super) fn fit_factor(c: &Cand) -> i64 {
    if c.fit >= 1000 {
        1000
    } else {
        i64::from(c.fit / 2)
    }
}

/// Score of a fixed column of `cw` bytes: every column costs, so that
/// bytes are not split without evidence.
pub(super) fn fixed_score(c: &Cand, cw: u32) -> i64 {
    fit_factor(c)
        .saturating_mul(i64::from(c.weight))
        .saturating_mul(i64::from(cw))
        .saturating_add(i64::from(c.bits).saturating_mul(BIT_SCORE))
        .saturating_sub(2000)
}

/// Score of a bit a type fixes in every value (`Cand::bits`): two
/// 2-byte columns of 9-bit values (7 leading zero bits each) outscore
/// the same 4 bytes read as one column of 25-bit values (7), less the
/// cost of a column; a DECIMAL's 5 bytes are not split into a signed
/// integer (its first digit group) and an UNSIGNED one.
const BIT_SCORE: i64 = 600;

/// Candidates for `w` bytes read as text only (CHAR in a single-byte
/// charset, or BINARY).
pub(super) fn text_cands(w: u32, vals: &[&[u8]]) -> Vec<Cand> {
    fixed_cands(w, vals)
        .into_iter()
        .filter(|c| c.family == Family::Text || c.sql.starts_with("binary("))
        .collect()
}

/// How many of `vals` look like DB_TRX_ID then DB_ROLL_PTR: a transaction
/// id under 2^40 and a roll pointer naming an undo page under 2^24 at an
/// offset past the page header; or MariaDB's purged pair, 0 and 1<<55
/// (`row_purge_reset_trx_id`, MariaDB 10.3+ row0purge.cc).
pub(super) fn sys_fit(vals: &[&[u8]]) -> usize {
    vals.iter()
        .filter(|v| {
            let trx = int_val(v.get(..6).unwrap_or(&[]));
            let roll = v.get(6..13).unwrap_or(&[]);
            let purged = trx == 0 && roll == [0x80, 0, 0, 0, 0, 0, 0];
            let page = int_val(roll.get(1..5).unwrap_or(&[]));
            let at = int_val(roll.get(5..7).unwrap_or(&[]));
            purged || (trx > 0 && trx < 1 << 40 && page < 1 << 24 && at >= 38)
        })
        .count()
}

/// Whether `ids` (6 bytes each) look like DB_ROW_ID values: a counter,
/// its two high bytes 0, never two alike.
pub(super) fn row_ids(ids: &[&[u8]]) -> bool {
    let mut seen: Vec<u64> = ids.iter().map(|v| int_val(v)).collect();
    seen.sort_unstable();
    seen.dedup();
    !ids.is_empty()
        && seen.len() == ids.len()
        && ids
            .iter()
            .all(|v| v.first() == Some(&0) && v.get(1) == Some(&0))
}

/// Widths a fixed column is tried at.
pub(super) const WIDTHS: [u32; 9] = [1, 2, 3, 4, 5, 6, 7, 8, 16];

/// COMPACT: places the `a` NOT NULL fixed bytes among the other fields
/// and splits them into typed columns (DB_TRX_ID and DB_ROLL_PTR among
/// them for a clustered index), the placement whose columns' values fit
/// their types best. Returns the columns, the key's column count (the
/// columns before DB_TRX_ID), and whether DB_TRX_ID was placed.
pub(super) fn place(
    pages: &[PageRecs],
    t: &Table,
    a: u32,
    clustered: bool,
) -> Option<(Vec<Spec>, usize, i64)> {
    let k = t.fields.len();
    let an = a as usize;
    if an > 4096 || k > MAX_FIELDS {
        return None;
    }
    // A sample of rows, spread over the pages.
    let step = (t.rows.len() / 300).max(1);
    let rows: Vec<Row> = t.rows.iter().step_by(step).cloned().collect();
    let sys_need = usize::from(clustered);
    // best[(s, b, sys)] = (score, back)
    #[derive(Clone)]
    enum Back {
        Fixed(u32, Cand, Vec<Cand>),
        Sys,
        /// DB_ROW_ID then DB_TRX_ID, DB_ROLL_PTR: no PRIMARY KEY.
        RowId,
        Item(Cand, Vec<Cand>),
    }
    let idx = |s: usize, b: usize, y: usize| -> usize {
        s.saturating_mul(an.saturating_add(1))
            .saturating_add(b)
            .saturating_mul(2)
            .saturating_add(y)
    };
    let n_states = idx(k, an, 1).saturating_add(1);
    let mut best: Vec<Option<(i64, usize, Back)>> = vec![None; n_states];
    if let Some(x) = best.get_mut(idx(0, 0, 0)) {
        *x = Some((0, usize::MAX, Back::Sys));
    }
    let relax = |best: &mut Vec<Option<(i64, usize, Back)>>,
                 to: usize,
                 sc: i64,
                 from: usize,
                 back: Back| {
        if let Some(slot) = best.get_mut(to) {
            if slot.as_ref().is_none_or(|(x, _, _)| sc > *x) {
                *slot = Some((sc, from, back));
            }
        }
    };
    for s in 0..=k {
        for b in 0..=an {
            let reached = [0usize, 1].map(|y| best.get(idx(s, b, y)).cloned().flatten());
            if reached.iter().all(Option::is_none) {
                continue;
            }
            let bu = u32::try_from(b).unwrap_or(0);
            let mut moves: Vec<(usize, i64, Back, bool)> = Vec::new();
            // Fixed columns.
            let room = a.saturating_sub(bu);
            for cw in WIDTHS.into_iter().filter(|&w| w <= room) {
                let vals = values_at(pages, &rows, s, bu, cw);
                let (c, r) = choose(fixed_cands(cw, &vals));
                let sc = fixed_score(&c, cw);
                moves.push((cw as usize, sc, Back::Fixed(cw, c, r), false));
            }
            for cw in 9..=room.min(255) {
                if cw == 16 {
                    continue;
                }
                let vals = values_at(pages, &rows, s, bu, cw);
                let (c, r) = choose(if cw <= 30 {
                    fixed_cands(cw, &vals)
                } else {
                    text_cands(cw, &vals)
                });
                let sc = fixed_score(&c, cw);
                moves.push((cw as usize, sc, Back::Fixed(cw, c, r), false));
            }
            if clustered && room >= TRX_LEN + ROLL_LEN {
                let vals = values_at(pages, &rows, s, bu, TRX_LEN + ROLL_LEN);
                let ok = sys_fit(&vals);
                if !vals.is_empty() && ok.saturating_mul(10) >= vals.len().saturating_mul(9) {
                    moves.push((13, 100_000, Back::Sys, true));
                }
            }
            // A table with no PRIMARY KEY: its clustered index
            // (GEN_CLUST_INDEX) is keyed on DB_ROW_ID, 6 bytes of a
            // counter (DATA_ROW_ID_LEN, data0type.h) that leads every
            // record, then DB_TRX_ID and DB_ROLL_PTR
            // (dict_index_build_internal_clust, dict0dict.cc).
            if clustered && s == 0 && b == 0 && room >= ROW_ID_LEN + TRX_LEN + ROLL_LEN {
                let ids = values_at(pages, &rows, 0, 0, ROW_ID_LEN);
                let sys = values_at(pages, &rows, 0, ROW_ID_LEN, TRX_LEN + ROLL_LEN);
                if row_ids(&ids) && sys_fit(&sys).saturating_mul(10) >= sys.len().saturating_mul(9)
                {
                    // More than DB_TRX_ID, DB_ROLL_PTR and any 6 bytes of key
                    // columns could score.
                    moves.push((19, 250_000, Back::RowId, true));
                }
            }
            for y in 0..2usize {
                let Some((base, _, _)) = reached.get(y).cloned().flatten() else {
                    continue;
                };
                let from = idx(s, b, y);
                for (w, sc, back, sys) in &moves {
                    if *sys && y == 1 {
                        continue;
                    }
                    let ny = if *sys { 1 } else { y };
                    relax(
                        &mut best,
                        idx(s, b.saturating_add(*w), ny),
                        base.saturating_add(*sc),
                        from,
                        back.clone(),
                    );
                }
            }
            // Past field s, typed with the fixed bytes placed before it.
            if s < k {
                let Some(&(storage, _)) = t.fields.get(s) else {
                    continue;
                };
                let (c, r, scale) = match storage {
                    Storage::Fixed(w) => {
                        let (c, r) = choose(fixed_cands(w, &var_values(pages, &rows, s, bu)));
                        (c, r, i64::from(w))
                    }
                    Storage::Variable {
                        big,
                        max_seen,
                        external,
                    } => {
                        let (c, r) = choose(var_cands(
                            &var_values(pages, &rows, s, bu),
                            external,
                            max_seen,
                            big,
                        ));
                        (c, r, 8)
                    }
                };
                let sc = fit_factor(&c)
                    .saturating_mul(i64::from(c.weight))
                    .saturating_mul(scale);
                for y in 0..2usize {
                    let Some((base, _, _)) = reached.get(y).cloned().flatten() else {
                        continue;
                    };
                    relax(
                        &mut best,
                        idx(s.saturating_add(1), b, y),
                        base.saturating_add(sc),
                        idx(s, b, y),
                        Back::Item(c.clone(), r.clone()),
                    );
                }
            }
        }
    }
    // Back from the end.
    let mut at = idx(k, an, sys_need);
    let total = best.get(at).cloned().flatten()?.0;
    let mut rev: Vec<(Option<usize>, Back)> = Vec::new();
    let mut item = k;
    while let Some((_, from, back)) = best.get(at).cloned().flatten() {
        if from == usize::MAX {
            break;
        }
        let field = match back {
            Back::Item(..) => {
                item = item.saturating_sub(1);
                Some(item)
            }
            _ => None,
        };
        rev.push((field, back));
        at = from;
    }
    rev.reverse();
    let mut specs = Vec::new();
    let mut n_key = 0usize;
    // The run each column of the NOT NULL fixed bytes belongs to (runs
    // end at DB_TRX_ID and at every other field).
    let mut runs: Vec<Option<usize>> = Vec::new();
    let mut run = 0usize;
    for (field, back) in rev {
        match back {
            Back::Sys | Back::RowId => {
                n_key = specs.len();
                run = run.saturating_add(1);
            }
            Back::Fixed(cw, cand, rivals) => {
                specs.push(Spec::new(Storage::Fixed(cw), false, cand, rivals, None));
                runs.push(Some(run));
            }
            Back::Item(cand, rivals) => {
                let (storage, nullable) = field.and_then(|f| t.fields.get(f)).copied()?;
                specs.push(Spec::new(storage, nullable, cand, rivals, field));
                runs.push(None);
                run = run.saturating_add(1);
            }
        }
    }
    let weak: Vec<bool> = specs.iter().map(|sp| !telling(&sp.cand)).collect();
    // A small integer's tail read as the head of the next column starts
    // 0x00: an UNSIGNED integer beside another integer of the same run may
    // be the bytes of a split elsewhere (INT then TINYINT read as SMALLINT
    // then MEDIUMINT UNSIGNED): both are in doubt.
    let int = |sp: &Spec| sp.cand.family == Family::Integer;
    let same_run = |i: usize, j: usize| {
        runs.get(j).copied().flatten().is_some()
            && runs.get(j).copied().flatten() == runs.get(i).copied().flatten()
    };
    let glued: Vec<bool> = (0..specs.len())
        .map(|i| {
            let Some(sp) = specs.get(i) else { return false };
            let beside = |j: Option<usize>| {
                j.is_some_and(|j| specs.get(j).is_some_and(|o| int(o) && same_run(i, j)))
            };
            let pair = |j: Option<usize>| {
                j.is_some_and(|j| {
                    specs.get(j).is_some_and(|o| {
                        int(o) && o.cand.sql.ends_with("unsigned") && same_run(i, j)
                    })
                })
            };
            int(sp)
                && ((sp.cand.sql.ends_with("unsigned")
                    && (beside(i.checked_sub(1)) || beside(i.checked_add(1))))
                    || pair(i.checked_sub(1))
                    || pair(i.checked_add(1)))
        })
        .collect();
    for (i, sp) in specs.iter_mut().enumerate() {
        let same = |j: Option<usize>| {
            j.is_some_and(|j| same_run(i, j) && weak.get(j).copied().unwrap_or(false))
        };
        sp.weak_split = (weak.get(i).copied().unwrap_or(false)
            && (same(i.checked_sub(1)) || same(i.checked_add(1))))
            || glued.get(i).copied().unwrap_or(false);
    }
    Some((specs, n_key, total))
}

#[cfg(test)]
#[allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)]
mod tests {
    use super::*;

    /// ENUM, SET and BIT stored forms (format.md, "ENUM, SET, BIT"): an
    /// ENUM index big endian from 1, a SET bitmask, BIT(n) big endian, the
    /// sign bit never flipped. Small unsigned values of 2 bytes read as
    /// `smallint unsigned`, the three named beside it; a signed integer's
    /// small values (sign bit flipped: 0x80 first) name none of them.
    #[test]
    fn enum_set_bit_named_beside_unsigned_integers() {
        // ENUM of 300 labels: indexes 1..=300, 2 bytes.
        let idx: Vec<[u8; 2]> = (1..=300u16).step_by(7).map(u16::to_be_bytes).collect();
        let vals: Vec<&[u8]> = idx.iter().map(|v| v.as_slice()).collect();
        let (c, r) = choose(fixed_cands(2, &vals));
        assert_eq!(c.sql, "smallint unsigned");
        let named: Vec<&str> = r.iter().map(|x| x.sql.as_str()).collect();
        assert!(named.contains(&"enum of 295 labels or more"), "{named:?}");
        assert!(
            named.iter().any(|n| n.starts_with("set of 9 members")),
            "{named:?}"
        );
        assert!(named.contains(&"bit(9)"), "{named:?}");
        // The same magnitudes as a signed SMALLINT: 0x80 first.
        let signed: Vec<[u8; 2]> = (1..=300u16)
            .step_by(7)
            .map(|x| (x ^ 0x8000).to_be_bytes())
            .collect();
        let vals: Vec<&[u8]> = signed.iter().map(|v| v.as_slice()).collect();
        let (c, r) = choose(fixed_cands(2, &vals));
        assert_eq!(c.sql, "smallint");
        assert!(
            r.iter()
                .all(|x| !x.sql.starts_with("enum") && !x.sql.starts_with("bit")),
            "{r:?}"
        );
        // One byte of ENUM indexes 1..=5: `ambiguous`, ENUM named.
        let idx: Vec<[u8; 1]> = (0..40u8).map(|i| [i % 5 + 1]).collect();
        let vals: Vec<&[u8]> = idx.iter().map(|v| v.as_slice()).collect();
        let (_, r) = choose(fixed_cands(1, &vals));
        assert!(
            r.iter().any(|x| x.sql == "enum of 5 labels or more"),
            "{r:?}"
        );
    }

    /// The split of a NOT NULL run scores the bits the values fix: two
    /// 2-byte columns of 9-bit unsigned values outscore the same 4 bytes
    /// read as one column.
    #[test]
    fn two_small_unsigned_columns_outscore_one() {
        let rows: Vec<[u8; 4]> = (0..60u32)
            .map(|i| {
                let a = (i * 5 % 300 + 1) as u16;
                let b = (i * 37 % 512) as u16;
                let (a, b) = (a.to_be_bytes(), b.to_be_bytes());
                [a[0], a[1], b[0], b[1]]
            })
            .collect();
        let whole: Vec<&[u8]> = rows.iter().map(|v| v.as_slice()).collect();
        let (one, _) = choose(fixed_cands(4, &whole));
        let halves = |at: usize| -> Vec<&[u8]> { rows.iter().map(|v| &v[at..at + 2]).collect() };
        let (h1, _) = choose(fixed_cands(2, &halves(0)));
        let (h2, _) = choose(fixed_cands(2, &halves(2)));
        assert!(
            fixed_score(&h1, 2) + fixed_score(&h2, 2) > fixed_score(&one, 4),
            "{} + {} against {}",
            fixed_score(&h1, 2),
            fixed_score(&h2, 2),
            fixed_score(&one, 4)
        );
    }

    /// CHAR(10) utf8mb4 in COMPACT (`row_mysql_store_col_in_innobase_
    /// format`): at least 10 bytes, short values space-padded to 10.
    #[test]
    fn multibyte_char_told_from_varchar() {
        let mut owned: Vec<Vec<u8>> = Vec::new();
        for i in 0..40usize {
            let text = ["ab", "日本", "x😀y", "abcdefghij", "éé"][i % 5];
            let mut v = text.as_bytes().to_vec();
            while v.len() < 10 {
                v.push(b' ');
            }
            owned.push(v);
        }
        let vals: Vec<&[u8]> = owned.iter().map(Vec::as_slice).collect();
        let max = vals.iter().map(|v| v.len()).max().unwrap() as u32;
        let (c, _) = choose(var_cands(&vals, false, max, false));
        assert_eq!(c.sql, "char(10) character set utf8mb4");
        // The same texts unpadded: a VARCHAR.
        let bare: Vec<&[u8]> = (0..40usize)
            .map(|i| ["ab", "日本", "x😀y", "abcdefghij", "éé"][i % 5].as_bytes())
            .collect();
        let (c, _) = choose(var_cands(&bare, false, 10, false));
        assert!(c.sql.starts_with("varchar("), "{}", c.sql);
    }

    /// A column known to be DECIMAL and `w` bytes wide (a dictionary gives its
    /// length, not its precision and scale): every (precision, scale) that
    /// holds every value read, the fewest digits first (each digit more is a
    /// tenth as likely to hold every value). Those of the fewest digits read
    /// every value alike: more than one of them, and the scale is not in the
    /// records (DECIMAL(18,0), (18,9) and (18,18) share their groups).
    fn decimal_shapes(w: u32, vals: &[&[u8]]) -> Vec<(u32, u32)> {
        let mut f: Vec<(u32, u32)> = decimal_fits(w, vals, false)
            .into_iter()
            .map(|(p, s, _)| (p, s))
            .collect();
        f.sort_unstable();
        f
    }

    /// What a partial definition leaves to the records: a DECIMAL's
    /// precision and scale (`decimal2bin`, strings/decimal.cc: 123.45 as
    /// DECIMAL(5,2) is the 3-digit group 123 in 2 bytes, sign bit set,
    /// then 45 in 1 byte), an ENUM's least label count, a BIT's least
    /// width.
    #[test]
    fn partial_definition_pieces() {
        // 123.45 and 999.99 (0x83E7, 99 = 0x63); as DECIMAL(5,0)'s one
        // group, 999.99's bytes are 255,843, over 99,999.
        let v: &[&[u8]] = &[&[0x80, 0x7B, 0x2D], &[0x83, 0xE7, 0x63]];
        let shapes = decimal_shapes(3, v);
        assert_eq!(shapes.first(), Some(&(5, 2)), "{shapes:?}");
        assert!(!shapes.contains(&(5, 0)), "{shapes:?}");
        assert_eq!(enum_labels_min(&[&[0, 7], &[1, 44]]), Some(300));
        assert_eq!(set_members_min(&[&[0x01, 0xFF]]), 9);
        assert_eq!(bit_width_min(3, &[&[0, 0, 1]]), 17);
        assert_eq!(bit_width_min(1, &[&[1]]), 1);
    }
}
