//! Page checksums of every algorithm InnoDB has written, and the rules by
//! which a server accepts a page.
//!
//! Sources: MySQL 8.0 storage/innobase/buf/checksum.cc (`buf_calc_page_crc32`,
//! `buf_calc_page_new_checksum`, `buf_calc_page_old_checksum`,
//! `BlockReporter::is_corrupted`), storage/innobase/include/ut0rnd.ic
//! (`ut_fold_ulint_pair`, `ut_fold_binary`), page/zipdecompress.cc
//! (`page_zip_calc_checksum`, `page_zip_verify_checksum`); MariaDB 10.11
//! storage/innobase/buf/buf0buf.cc (`buf_page_is_corrupted`,
//! `buf_page_full_crc32_size`).
//!
//! | algorithm  | stored at              | covers                                  |
//! |------------|------------------------|-----------------------------------------|
//! | crc32      | 0..4 and size-8..size-4| CRC-32C(4..26) XOR CRC-32C(38..size-8)   |
//! | innodb new | 0..4                   | fold(4..26) + fold(38..size-8), 32 bits |
//! | innodb old | size-8..size-4         | fold(0..26), 32 bits                    |
//! | none       | 0..4 and size-8..size-4| the constant 0xDEADBEEF                 |
//! | zip crc32  | 0..4                   | CRC(4..16) ^ CRC(24..26) ^ CRC(34..size)|
//! | zip innodb | 0..4                   | adler32 from 0 over 4..16, 24..26, 34.. |
//! | full_crc32 | size-4..size           | CRC-32C(0..size-4)                       |
//!
//! MariaDB's encrypted pages outside full_crc32 carry a second checksum of
//! the encrypted bytes at 30..34 (`fil_space_verify_crypt_checksum`,
//! fil0crypt.cc): crc32 of the classic ranges (zip: the zip crc32), the
//! innodb new checksum (zip: Adler-32), or 0xDEADBEEF.
//!
//! A server configured for crc32 or innodb (not `strict_*`) accepts a page
//! that verifies under any of crc32, innodb or none, so a file can mix them;
//! ibdscope does the same and reports which algorithm each page used.

use crate::bytes::{be_u16, be_u32, be_u64, is_zeroes};
use crate::fil::{
    FIL_PAGE_DATA, FIL_PAGE_END_LSN_OLD_CHKSUM, FIL_PAGE_FCRC32_CHECKSUM, FIL_PAGE_FCRC32_END_LSN,
    FIL_PAGE_FILE_FLUSH_LSN, FIL_PAGE_LSN, FIL_PAGE_OFFSET, FIL_PAGE_SPACE_ID, FIL_PAGE_TYPE,
};
use crate::page_type::PageType;
use ibdscope_prims::crc32c::{crc32c, crc32c_legacy_big_endian};

/// `BUF_NO_CHECKSUM_MAGIC` (storage/innobase/include/buf0checksum.h).
pub(crate) const BUF_NO_CHECKSUM_MAGIC: u32 = 0xDEAD_BEEF;
/// `UT_HASH_RANDOM_MASK` (storage/innobase/include/ut0rnd.h).
pub(crate) const UT_HASH_RANDOM_MASK: u32 = 1_463_735_687;
/// `UT_HASH_RANDOM_MASK2` (storage/innobase/include/ut0rnd.h).
pub(crate) const UT_HASH_RANDOM_MASK2: u32 = 1_653_893_711;

/// A checksum algorithm a page was found to carry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Algorithm {
    /// CRC-32C in header and trailer (MySQL 5.6+ `crc32`).
    Crc32,
    /// CRC-32C computed with the legacy big-endian word order.
    Crc32LegacyBigEndian,
    /// The original `innodb` fold checksums (new in header, old in trailer).
    Innodb,
    /// `innodb`, accepted only by rules for files of InnoDB before 4.0.14
    /// (header 0, or trailer holding the LSN's high word).
    InnodbPre4014,
    /// `none`: 0xDEADBEEF in header and trailer.
    None,
    /// MariaDB 10.5+ `full_crc32`: CRC-32C of the whole page in the trailer.
    FullCrc32,
    /// ROW_FORMAT=COMPRESSED page, CRC-32C.
    ZipCrc32,
    /// ROW_FORMAT=COMPRESSED page, Adler-32 (`innodb`).
    ZipInnodb,
    /// ROW_FORMAT=COMPRESSED page, `none`.
    ZipNone,
    /// MariaDB encrypted page (not full_crc32): the post-encryption
    /// checksum at bytes 30..34 verifies.
    MariaDbEncrypted,
}

impl Algorithm {
    /// The name as `innodb_checksum_algorithm` spells it, with a suffix for
    /// the variants a server does not name.
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Crc32 | Algorithm::ZipCrc32 => "crc32",
            Algorithm::Crc32LegacyBigEndian => "crc32-legacy-big-endian",
            Algorithm::Innodb | Algorithm::ZipInnodb => "innodb",
            Algorithm::InnodbPre4014 => "innodb-pre-4.0.14",
            Algorithm::None | Algorithm::ZipNone => "none",
            Algorithm::FullCrc32 => "full_crc32",
            Algorithm::MariaDbEncrypted => "mariadb-encrypted",
        }
    }
}

/// How the pages of a space are checksummed: fixed by the space's flags.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Scheme {
    /// crc32 / innodb / none, header plus trailer.
    Classic,
    /// ROW_FORMAT=COMPRESSED space: every page is a compressed page.
    Zip,
    /// MariaDB full_crc32.
    FullCrc32,
}

/// Why a page cannot be verified without more than the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Unverifiable {
    /// MySQL/Percona encrypted page: the checksum covers the plaintext.
    Encrypted,
    /// MariaDB page_compressed page in the non-full_crc32 format: the server
    /// itself verifies it only after decompression.
    PageCompressed,
}

/// The checksum verdict of one page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Verdict {
    /// The page verifies under this algorithm.
    Valid(Algorithm),
    /// Every byte is zero: a never-written page, which servers accept.
    Empty,
    /// No accepted algorithm matches the stored values.
    Mismatch,
    /// Not verifiable from the file alone.
    Unverifiable(Unverifiable),
    /// A full_crc32 page-compressed page whose size field is impossible.
    BadCompressedSize,
}

impl std::fmt::Display for Scheme {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Scheme::Classic => "crc32/innodb/none (header and trailer)",
            Scheme::Zip => "ROW_FORMAT=COMPRESSED",
            Scheme::FullCrc32 => "full_crc32",
        })
    }
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Verdict::Valid(a) => write!(f, "verifies with {}", a.name()),
            Verdict::Empty => f.write_str("all zeros"),
            Verdict::Mismatch => f.write_str("checksum mismatch"),
            Verdict::Unverifiable(Unverifiable::Encrypted) => {
                f.write_str("not verifiable: encrypted")
            }
            Verdict::Unverifiable(Unverifiable::PageCompressed) => {
                f.write_str("not verifiable: page_compressed")
            }
            Verdict::BadCompressedSize => {
                f.write_str("page_compressed size field is not below the page size")
            }
        }
    }
}

impl Verdict {
    /// True for pages a server would accept.
    pub fn is_ok(self) -> bool {
        matches!(self, Verdict::Valid(_) | Verdict::Empty)
    }
}

/// `ut_fold_ulint_pair`, reduced to the low 32 bits (shifts and additions
/// carry only upward, so the low word never depends on the high word).
#[inline(always)]
fn fold_pair(n1: u32, n2: u32) -> u32 {
    ((((n1 ^ n2 ^ UT_HASH_RANDOM_MASK2) << 8).wrapping_add(n1)) ^ UT_HASH_RANDOM_MASK)
        .wrapping_add(n2)
}

/// `ut_fold_binary` over `data`, low 32 bits.
pub fn fold_binary(data: &[u8]) -> u32 {
    data.iter().fold(0u32, |f, &b| fold_pair(f, u32::from(b)))
}

fn range(page: &[u8], start: usize, end: usize) -> &[u8] {
    page.get(start..end).unwrap_or(&[])
}

fn body_end(page: &[u8]) -> usize {
    page.len().saturating_sub(FIL_PAGE_END_LSN_OLD_CHKSUM)
}

/// `buf_calc_page_crc32`: CRC-32C(4..26) XOR CRC-32C(38..size-8).
pub fn page_crc32(page: &[u8]) -> u32 {
    crc32c(range(page, FIL_PAGE_OFFSET, FIL_PAGE_FILE_FLUSH_LSN))
        ^ crc32c(range(page, FIL_PAGE_DATA, body_end(page)))
}

/// `buf_calc_page_crc32` with `use_legacy_big_endian`.
pub fn page_crc32_legacy_big_endian(page: &[u8]) -> u32 {
    crc32c_legacy_big_endian(
        range(page, FIL_PAGE_OFFSET, FIL_PAGE_FILE_FLUSH_LSN),
        FIL_PAGE_OFFSET,
    ) ^ crc32c_legacy_big_endian(range(page, FIL_PAGE_DATA, body_end(page)), FIL_PAGE_DATA)
}

/// `buf_calc_page_new_checksum`: stored in the header.
pub fn page_innodb_new(page: &[u8]) -> u32 {
    fold_binary(range(page, FIL_PAGE_OFFSET, FIL_PAGE_FILE_FLUSH_LSN))
        .wrapping_add(fold_binary(range(page, FIL_PAGE_DATA, body_end(page))))
}

/// `buf_calc_page_old_checksum`: stored in the trailer.
pub fn page_innodb_old(page: &[u8]) -> u32 {
    fold_binary(range(page, 0, FIL_PAGE_FILE_FLUSH_LSN))
}

pub use ibdscope_codec::inflate::adler32;

/// `page_zip_calc_checksum` for crc32. MySQL ignores its legacy big-endian
/// flag for compressed pages (`BlockReporter::calc_zip_checksum`), so
/// `legacy` exists only to show what such a checksum would have been.
pub fn zip_crc32(page: &[u8], legacy: bool) -> u32 {
    let parts = [
        (FIL_PAGE_OFFSET, FIL_PAGE_LSN),
        (FIL_PAGE_TYPE, FIL_PAGE_TYPE.saturating_add(2)),
        (FIL_PAGE_SPACE_ID, page.len()),
    ];
    parts.iter().fold(0, |acc, &(s, e)| {
        let r = range(page, s, e);
        acc ^ if legacy {
            crc32c_legacy_big_endian(r, s)
        } else {
            crc32c(r)
        }
    })
}

/// `page_zip_calc_checksum` for innodb: Adler-32 starting from 0 (not 1).
pub fn zip_adler32(page: &[u8]) -> u32 {
    let a = adler32(0, range(page, FIL_PAGE_OFFSET, FIL_PAGE_LSN));
    let a = adler32(
        a,
        range(page, FIL_PAGE_TYPE, FIL_PAGE_TYPE.saturating_add(2)),
    );
    adler32(a, range(page, FIL_PAGE_SPACE_ID, page.len()))
}

/// MariaDB full_crc32: the number of bytes the checksum covers plus 4, and
/// whether the page is page_compressed (`buf_page_full_crc32_size`).
/// `None` when the compressed size field is not below the page size.
pub fn full_crc32_size(page: &[u8]) -> Option<(usize, bool)> {
    let t = be_u16(page, FIL_PAGE_TYPE).unwrap_or(0);
    if t & PageType::FCRC32_COMPRESSED_MARKER == 0 {
        return Some((page.len(), false));
    }
    let size = usize::from(t & !PageType::FCRC32_COMPRESSED_MARKER) << 8;
    (size < page.len()).then_some((size, true))
}

/// The CRC-32C full_crc32 stores for `page` (whose length is the covered
/// size from [`full_crc32_size`]).
pub fn full_crc32(page: &[u8]) -> u32 {
    crc32c(range(
        page,
        0,
        page.len().saturating_sub(FIL_PAGE_FCRC32_CHECKSUM),
    ))
}

/// The empty-page rule: every byte zero except 26..34 (flush LSN or key
/// version), as `BlockReporter::is_corrupted` and `buf_page_is_zeroes` allow.
pub(crate) fn is_empty_page(page: &[u8]) -> bool {
    is_zeroes(range(page, 0, FIL_PAGE_FILE_FLUSH_LSN))
        && is_zeroes(range(page, FIL_PAGE_SPACE_ID, page.len()))
}

/// Whether `page`, known to verify or to be empty under `scheme` (its
/// [`crate::space::verify_page`] verdict is `Valid` or `Empty`), is the
/// empty one: the conditions under which each verifier below answers
/// `Empty` (or `Mismatch`, excluded), read from the header alone but for
/// a full_crc32 page whose checksum field is zero. Not for a full_crc32
/// page_compressed page (its type's marker bit set).
pub(crate) fn is_empty_verdict(page: &[u8], scheme: Scheme) -> bool {
    let lsn_zero = be_u64(page, FIL_PAGE_LSN) == Some(0);
    match scheme {
        Scheme::Classic => {
            lsn_zero && be_u32(page, 0) == Some(0) && be_u32(page, body_end(page)) == Some(0)
        }
        Scheme::Zip => lsn_zero && be_u32(page, 0) == Some(0),
        Scheme::FullCrc32 => {
            let tail = page.len().saturating_sub(FIL_PAGE_FCRC32_CHECKSUM);
            be_u32(page, tail) == Some(0) && is_zeroes(page)
        }
    }
}

/// Verifies a page of the classic layout (`buf_page_is_corrupted`, MySQL
/// 8.0 `BlockReporter::is_corrupted` in non-strict mode).
///
/// Header and trailer checksum 0 with LSN 0 on a page that is not empty:
/// MySQL calls it corrupt at once, MariaDB lets the pre-4.0.14 innodb rule
/// accept it. No server writes such a page, so ibdscope follows MySQL.
pub(crate) fn verify_classic(page: &[u8]) -> Verdict {
    let f1 = be_u32(page, 0).unwrap_or(0);
    let f2 = be_u32(page, body_end(page)).unwrap_or(0);
    if f1 == 0 && f2 == 0 && be_u64(page, FIL_PAGE_LSN) == Some(0) {
        return if is_empty_page(page) {
            Verdict::Empty
        } else {
            Verdict::Mismatch
        };
    }
    if f1 == f2 {
        if f1 == BUF_NO_CHECKSUM_MAGIC {
            return Verdict::Valid(Algorithm::None);
        }
        if page_crc32(page) == f1 {
            return Verdict::Valid(Algorithm::Crc32);
        }
    }
    let old_ok = f2 == page_innodb_old(page);
    let lsn_high_ok = Some(f2) == be_u32(page, FIL_PAGE_LSN);
    if old_ok || lsn_high_ok {
        let new = page_innodb_new(page);
        if f1 == new && old_ok {
            return Verdict::Valid(Algorithm::Innodb);
        }
        if f1 == 0 || f1 == new {
            return Verdict::Valid(Algorithm::InnodbPre4014);
        }
    }
    if f1 == f2 && page_crc32_legacy_big_endian(page) == f1 {
        return Verdict::Valid(Algorithm::Crc32LegacyBigEndian);
    }
    Verdict::Mismatch
}

/// Verifies a ROW_FORMAT=COMPRESSED page (`page_zip_verify_checksum`).
pub(crate) fn verify_zip(page: &[u8]) -> Verdict {
    let stored = be_u32(page, 0).unwrap_or(0);
    if stored == 0 && be_u64(page, FIL_PAGE_LSN) == Some(0) {
        // The server accepts it only if the whole page is zero.
        return if is_zeroes(page) {
            Verdict::Empty
        } else {
            Verdict::Mismatch
        };
    }
    if stored == BUF_NO_CHECKSUM_MAGIC {
        return Verdict::Valid(Algorithm::ZipNone);
    }
    if stored == zip_crc32(page, false) {
        return Verdict::Valid(Algorithm::ZipCrc32);
    }
    if stored == zip_adler32(page) {
        return Verdict::Valid(Algorithm::ZipInnodb);
    }
    Verdict::Mismatch
}

/// Verifies the post-encryption checksum of a MariaDB encrypted page
/// outside full_crc32 (`fil_space_verify_crypt_checksum`).
pub fn verify_mariadb_crypt(page: &[u8], zip: bool) -> Verdict {
    let stored = be_u32(page, FIL_PAGE_FILE_FLUSH_LSN.saturating_add(4)).unwrap_or(0);
    let ok = stored == BUF_NO_CHECKSUM_MAGIC
        || if zip {
            stored == zip_crc32(page, false) || stored == zip_adler32(page)
        } else {
            stored == page_crc32(page) || stored == page_innodb_new(page)
        };
    if ok {
        Verdict::Valid(Algorithm::MariaDbEncrypted)
    } else {
        Verdict::Mismatch
    }
}

/// Verifies a MariaDB full_crc32 page. The second value is the size the
/// checksum covers (smaller than the page for page_compressed pages).
pub fn verify_full_crc32(page: &[u8]) -> (Verdict, usize) {
    let Some((size, compressed)) = full_crc32_size(page) else {
        return (Verdict::BadCompressedSize, page.len());
    };
    // A stored size of 0 holds not even the checksum: the server's
    // `buf_page_is_corrupted` would read before the page, and
    // `fil_page_decompress_for_full_crc32` gets no payload (MariaDB 10.11
    // buf0buf.cc, fil0pagecompress.cc).
    if compressed && size < FIL_PAGE_DATA {
        return (Verdict::BadCompressedSize, page.len());
    }
    let covered = range(page, 0, size);
    let stored = be_u32(covered, size.saturating_sub(FIL_PAGE_FCRC32_CHECKSUM)).unwrap_or(0);
    // Only a whole page can be an empty one: `buf_page_is_corrupted`
    // accepts zeros where `size == srv_page_size`.
    if stored == 0 && !compressed && is_zeroes(covered) {
        return (Verdict::Empty, size);
    }
    if stored == full_crc32(covered) {
        (Verdict::Valid(Algorithm::FullCrc32), size)
    } else {
        (Verdict::Mismatch, size)
    }
}

/// The header and trailer LSN copies of a page, when the layout has both:
/// `(FIL_PAGE_LSN low 32 bits, trailer copy)`.
pub fn lsn_pair(page: &[u8], scheme: Scheme) -> Option<(u32, u32)> {
    let head = be_u32(page, FIL_PAGE_LSN.checked_add(4)?)?;
    let tail = match scheme {
        Scheme::Classic => be_u32(page, body_end(page).checked_add(4)?)?,
        Scheme::FullCrc32 => {
            let (size, compressed) = full_crc32_size(page)?;
            if compressed || be_u32(page, 0)? != 0 {
                // Compressed pages, and encrypted ones (key version at 0),
                // have no plain end LSN the server compares.
                return None;
            }
            be_u32(page, size.checked_sub(FIL_PAGE_FCRC32_END_LSN)?)?
        }
        Scheme::Zip => return None,
    };
    Some((head, tail))
}

#[cfg(test)]
#[allow(
    clippy::arithmetic_side_effects,
    clippy::indexing_slicing,
    clippy::unwrap_used
)]
mod tests {
    use super::*;

    fn sample(size: usize) -> Vec<u8> {
        let mut p: Vec<u8> = (0..size).map(|i| (i * 7 + 3) as u8).collect();
        p[FIL_PAGE_LSN..FIL_PAGE_LSN + 8].copy_from_slice(&0x1234_5678_9abcu64.to_be_bytes());
        p
    }

    fn put(p: &mut [u8], at: usize, v: u32) {
        p[at..at + 4].copy_from_slice(&v.to_be_bytes());
    }

    #[test]
    fn crc32_written_like_the_server_verifies() {
        let mut p = sample(16384);
        let c = page_crc32(&p);
        put(&mut p, 0, c);
        put(&mut p, 16384 - 8, c);
        assert_eq!(verify_classic(&p), Verdict::Valid(Algorithm::Crc32));
        p[1000] ^= 1;
        assert_eq!(verify_classic(&p), Verdict::Mismatch);
    }

    #[test]
    fn innodb_new_and_old() {
        let mut p = sample(4096);
        // The server writes the new checksum first; the old one covers it.
        let n = page_innodb_new(&p);
        put(&mut p, 0, n);
        let o = page_innodb_old(&p);
        put(&mut p, 4096 - 8, o);
        assert_eq!(verify_classic(&p), Verdict::Valid(Algorithm::Innodb));
        p[2000] ^= 0x80;
        assert_eq!(verify_classic(&p), Verdict::Mismatch);
    }

    #[test]
    fn none_and_empty() {
        let mut p = sample(8192);
        put(&mut p, 0, BUF_NO_CHECKSUM_MAGIC);
        put(&mut p, 8192 - 8, BUF_NO_CHECKSUM_MAGIC);
        assert_eq!(verify_classic(&p), Verdict::Valid(Algorithm::None));
        assert_eq!(verify_classic(&[0u8; 16384]), Verdict::Empty);
        assert_eq!(verify_zip(&[0u8; 8192]), Verdict::Empty);
        assert_eq!(verify_full_crc32(&[0u8; 16384]).0, Verdict::Empty);
    }

    #[test]
    fn fold_pair_matches_the_64_bit_formula_low_word() {
        // ut_fold_ulint_pair on 64-bit ulint, reduced afterwards.
        let wide = |n1: u64, n2: u64| -> u64 {
            ((((n1 ^ n2 ^ u64::from(UT_HASH_RANDOM_MASK2)) << 8).wrapping_add(n1))
                ^ u64::from(UT_HASH_RANDOM_MASK))
            .wrapping_add(n2)
        };
        let mut w = 0u64;
        let mut n = 0u32;
        for b in 0..=255u8 {
            w = wide(w, u64::from(b));
            n = fold_pair(n, u32::from(b));
            assert_eq!(w as u32, n);
        }
    }

    #[test]
    fn adler_matches_zlib_definition() {
        // zlib's adler32(1, "Wikipedia") = 0x11E60398.
        assert_eq!(adler32(1, b"Wikipedia"), 0x11E6_0398);
        let big = vec![0xFFu8; 100_000];
        let (mut a, mut b) = (1u64, 0u64);
        for &x in &big {
            a = (a + u64::from(x)) % 65521;
            b = (b + a) % 65521;
        }
        assert_eq!(adler32(1, &big), ((b << 16) | a) as u32);
    }

    #[test]
    fn zip_checksums() {
        let mut p = sample(8192);
        let c = zip_crc32(&p, false);
        put(&mut p, 0, c);
        assert_eq!(verify_zip(&p), Verdict::Valid(Algorithm::ZipCrc32));
        let a = zip_adler32(&p);
        put(&mut p, 0, a);
        assert_eq!(verify_zip(&p), Verdict::Valid(Algorithm::ZipInnodb));
        // The LSN is not covered by the compressed-page checksum.
        p[FIL_PAGE_LSN] ^= 0xFF;
        assert_eq!(verify_zip(&p), Verdict::Valid(Algorithm::ZipInnodb));
        p[FIL_PAGE_DATA] ^= 0xFF;
        assert_eq!(verify_zip(&p), Verdict::Mismatch);
    }

    #[test]
    fn full_crc32_plain_and_compressed() {
        let mut p = sample(16384);
        p[FIL_PAGE_TYPE..FIL_PAGE_TYPE + 2].copy_from_slice(&17855u16.to_be_bytes());
        let c = full_crc32(&p);
        put(&mut p, 16384 - 4, c);
        assert_eq!(
            verify_full_crc32(&p),
            (Verdict::Valid(Algorithm::FullCrc32), 16384)
        );
        // A page-compressed page of 0x20 * 256 = 8192 bytes.
        let mut q = sample(16384);
        q[FIL_PAGE_TYPE..FIL_PAGE_TYPE + 2].copy_from_slice(&(0x8000u16 | 0x20).to_be_bytes());
        let c = full_crc32(&q[..8192]);
        put(&mut q, 8192 - 4, c);
        assert_eq!(
            verify_full_crc32(&q),
            (Verdict::Valid(Algorithm::FullCrc32), 8192)
        );
        q[FIL_PAGE_TYPE..FIL_PAGE_TYPE + 2].copy_from_slice(&(0x8000u16 | 0x40).to_be_bytes());
        assert_eq!(verify_full_crc32(&q).0, Verdict::BadCompressedSize);
    }
}
