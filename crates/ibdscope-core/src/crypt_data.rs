//! MariaDB page 0 crypt data: the structure `fil_space_read_crypt_data`
//! reads (MariaDB server 10.11 `storage/innobase/fil/fil0crypt.cc`,
//! `include/fil0crypt.h`: `CRYPT_MAGIC`, `MAGIC_SZ`, `CRYPT_SCHEME_1`,
//! `fil_encryption_t`; `include/fsp0fsp.h`
//! `fsp_header_get_encryption_offset`), and whether it fits the pages
//! (docs/format.md §3.4). Kept apart from [`crate::crypt::mariadb`] (keys,
//! decryption) so the one-pass summary's whole-file findings can check it.
//!
//! | offset | size | field |
//! |-------:|-----:|-------|
//! | 0 | 6 | `CRYPT_MAGIC`: `s`, 0x0E, 0x0C, `R`, `E`, `t` |
//! | 6 | 1 | type: 0 `CRYPT_SCHEME_UNENCRYPTED`, 1 `CRYPT_SCHEME_1` |
//! | 7 | 1 | IV length (16) |
//! | 8 | 16 | IV |
//! | 24 | 4 | minimum key version of the space's pages |
//! | 28 | 4 | key id |
//! | 32 | 1 | encryption: 0 DEFAULT, 1 ON, 2 OFF |
//!
//! The server refuses a type other than 0 or 1 and an IV length other than
//! 16 ("Found non sensible crypt scheme") and then opens the space without
//! crypt data, as it does when the magic is missing; an encrypted page
//! (a key version in bytes 0..4 under full_crc32, 26..30 otherwise) of such
//! a space cannot be decrypted (`buf_page_decrypt_after_read`).

use crate::bytes::{array, be_u32};
use crate::checksum::{Algorithm, Scheme, Verdict};
use crate::fil::{FIL_PAGE_FILE_FLUSH_LSN, FIL_PAGE_TYPE};
use crate::finding::{CryptDataProblem, Finding, FindingKind};
use crate::fsp::{SpaceFormat, FSP_HEADER_OFFSET};
use crate::ids::PageNo;
use crate::page_type::PageType;
use crate::space::{verify_page, Tablespace};
use crate::xdes::{xdes_size, XDES_ARR_OFFSET};
use std::fmt;

/// `CRYPT_MAGIC`.
pub(crate) const CRYPT_MAGIC: &[u8; 6] = b"s\x0e\x0cREt";

/// A space's encryption metadata (`fil_space_crypt_t` as
/// `fil_space_read_crypt_data` reads it).
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct CryptData {
    /// Where it starts on page 0.
    pub offset: usize,
    /// 0: `CRYPT_SCHEME_UNENCRYPTED`, 1: `CRYPT_SCHEME_1`.
    pub scheme: u8,
    /// The space IV: the page key is this block encrypted with the file key.
    pub iv: [u8; 16],
    /// The smallest key version of any page (0: some pages not encrypted).
    pub min_key_version: u32,
    /// The key id in the key file.
    pub key_id: u32,
    /// `fil_encryption_t`: 0 DEFAULT (follows `innodb_encrypt_tables`),
    /// 1 ON (`ENCRYPTED=YES`), 2 OFF.
    pub encryption: u8,
}

impl fmt::Debug for CryptData {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The IV is not a secret, but it is half of the page key's input:
        // not shown.
        f.debug_struct("CryptData")
            .field("offset", &self.offset)
            .field("scheme", &self.scheme)
            .field("min_key_version", &self.min_key_version)
            .field("key_id", &self.key_id)
            .field("encryption", &self.encryption)
            .finish()
    }
}

impl CryptData {
    /// The name of [`CryptData::encryption`].
    pub fn encryption_name(&self) -> &'static str {
        match self.encryption {
            0 => "DEFAULT",
            1 => "ON",
            2 => "OFF",
            _ => "unknown",
        }
    }
}

/// What page 0 says about encryption.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum CryptDataRead {
    /// No `CRYPT_MAGIC`: the space was never encrypted.
    Absent,
    /// Crypt data.
    Present(CryptData),
    /// The magic, but a type or IV length the server refuses ("Found non
    /// sensible crypt scheme"), at this offset.
    Nonsense {
        /// Offset of the magic on page 0.
        offset: usize,
    },
}

/// `FSP_HEADER_OFFSET + fsp_header_get_encryption_offset()`: where the
/// crypt data sits on page 0 of a space of this format.
pub(crate) fn crypt_data_offset(format: &SpaceFormat) -> usize {
    let extent = format.extent_size().max(1);
    let xdes_bytes = xdes_size(extent).saturating_mul(format.physical_size as usize);
    FSP_HEADER_OFFSET
        .saturating_add(XDES_ARR_OFFSET)
        .saturating_add(xdes_bytes.checked_div(extent as usize).unwrap_or(0))
}

/// Reads the crypt data of page 0 (`fil_space_read_crypt_data`).
pub fn read_crypt_data(page0: &[u8], format: &SpaceFormat) -> CryptDataRead {
    let offset = crypt_data_offset(format);
    if page0.get(offset..offset.saturating_add(CRYPT_MAGIC.len())) != Some(&CRYPT_MAGIC[..]) {
        return CryptDataRead::Absent;
    }
    let at = |k: usize| offset.saturating_add(k);
    let scheme = page0.get(at(6)).copied();
    let iv_len = page0.get(at(7)).copied();
    let (Some(scheme @ (0 | 1)), Some(16), Some(iv), Some(min), Some(key_id), Some(&encryption)) = (
        scheme,
        iv_len,
        array::<16>(page0, at(8)),
        be_u32(page0, at(24)),
        be_u32(page0, at(28)),
        page0.get(at(32)),
    ) else {
        return CryptDataRead::Nonsense { offset };
    };
    CryptDataRead::Present(CryptData {
        offset,
        scheme,
        iv,
        min_key_version: min,
        key_id,
        encryption,
    })
}

/// The key version a page carries (bytes 0..4 in full_crc32, 26..30
/// otherwise); 0: not encrypted.
pub fn key_version(page: &[u8], full_crc32: bool) -> u32 {
    let at = if full_crc32 {
        0
    } else {
        FIL_PAGE_FILE_FLUSH_LSN
    };
    be_u32(page, at).unwrap_or(0)
}

/// The crypt data of `ts`'s page 0.
pub fn space_crypt_data(ts: &Tablespace<'_>) -> CryptDataRead {
    match ts.page(PageNo(0)) {
        Some(p) => read_crypt_data(p, ts.format()),
        None => CryptDataRead::Absent,
    }
}

/// Pages looked at for key versions: the first ones after page 0, then as
/// many spread over the rest of the file (a bound: the check costs no pass).
const SAMPLED: u32 = 64;

/// The pages [`crypt_data_finding`] reads for key versions: pages
/// 1..=`SAMPLED`, then `SAMPLED` pages spread evenly over the rest.
fn sampled_pages(n_pages: u32) -> impl Iterator<Item = PageNo> {
    let head = n_pages.min(SAMPLED.saturating_add(1));
    let rest = n_pages.saturating_sub(head);
    let step = (rest / SAMPLED).max(1);
    (1..head)
        .chain((0..SAMPLED.min(rest)).map(move |k| head.saturating_add(k.saturating_mul(step))))
        .map(PageNo)
}

/// The key version of `page` when its bytes show MariaDB encryption: under
/// full_crc32 the page verifies and carries a key version (bytes 0..4,
/// which an unencrypted page keeps 0: `fil_encrypt_buf_for_full_crc32`);
/// otherwise the checksum of its encrypted bytes at 30..34 verifies
/// (`fil_space_verify_crypt_checksum`), or its type is
/// `FIL_PAGE_PAGE_COMPRESSED_ENCRYPTED` with a key version at 26..30.
fn encrypted_key_version(page: &[u8], scheme: Scheme) -> Option<u32> {
    let full = scheme == Scheme::FullCrc32;
    let version = key_version(page, full);
    if version == 0 {
        return None;
    }
    let shows = match verify_page(page, scheme) {
        Verdict::Valid(Algorithm::MariaDbEncrypted) => true,
        Verdict::Valid(_) => full,
        _ => {
            !full
                && crate::bytes::be_u16(page, FIL_PAGE_TYPE).map(PageType)
                    == Some(PageType::FIL_PAGE_PAGE_COMPRESSED_ENCRYPTED)
        }
    };
    shows.then_some(version)
}

/// The first sampled page (after page 0) that shows MariaDB encryption,
/// with its key version.
fn first_encrypted(ts: &Tablespace<'_>) -> Option<(PageNo, u32)> {
    let scheme = ts.scheme();
    sampled_pages(ts.n_pages()).find_map(|n| {
        if ts.is_known_zero(n) {
            return None;
        }
        // Held, not kept: a space read through a page source keeps what
        // `page` transforms.
        let page = ts.page_ref(n)?;
        encrypted_key_version(&page, scheme).map(|v| (n, v))
    })
}

/// What is wrong with page 0's crypt data, with its place in the file, or
/// `None` when it is sound or the space is not MariaDB encrypted:
///
/// - the magic with a type other than 0 or 1, or an IV length other than
///   16: the server refuses it and opens the space as unencrypted;
/// - no magic, while sampled pages carry key versions (encrypted pages the
///   server cannot decrypt);
/// - an encryption mode none of `fil_encryption_t`'s three;
/// - a minimum key version above the key version of a sampled encrypted
///   page (the server sets it to the smallest key version of the space's
///   pages once a key rotation is complete, `fil_crypt_complete_rotate_space`).
pub fn crypt_data_finding(ts: &Tablespace<'_>) -> Option<Finding> {
    let page0 = ts.page(PageNo(0))?;
    let offset = crypt_data_offset(ts.format());
    let at = |k: usize| {
        ts.file_offset(PageNo(0))
            .saturating_add(offset.saturating_add(k) as u64)
    };
    let finding = |k: usize, problem: CryptDataProblem| Finding {
        page: Some(PageNo(0)),
        file_offset: at(k),
        kind: FindingKind::CryptData(problem),
    };
    match read_crypt_data(page0, ts.format()) {
        CryptDataRead::Nonsense { .. } => {
            let byte = |k: usize| page0.get(offset.saturating_add(k)).copied();
            match (byte(6), byte(7)) {
                (Some(scheme), _) if scheme > 1 => {
                    Some(finding(6, CryptDataProblem::Scheme { found: scheme }))
                }
                (_, Some(iv_len)) => Some(finding(7, CryptDataProblem::IvLength { found: iv_len })),
                _ => None,
            }
        }
        CryptDataRead::Absent => {
            let (page, key_version) = first_encrypted(ts)?;
            Some(finding(0, CryptDataProblem::Missing { page, key_version }))
        }
        CryptDataRead::Present(c) if c.encryption > 2 => Some(finding(
            32,
            CryptDataProblem::Encryption {
                found: c.encryption,
            },
        )),
        CryptDataRead::Present(c) if c.scheme == 1 && c.min_key_version > 0 => {
            let scheme = ts.scheme();
            let (page, key_version) = sampled_pages(ts.n_pages()).find_map(|n| {
                let v = encrypted_key_version(ts.page(n)?, scheme)?;
                (v < c.min_key_version).then_some((n, v))
            })?;
            Some(finding(
                24,
                CryptDataProblem::MinKeyVersion {
                    min: c.min_key_version,
                    page,
                    key_version,
                },
            ))
        }
        CryptDataRead::Present(_) => None,
    }
}

/// Whether the problem leaves the space without usable crypt data (no
/// magic, or one the server refuses): its encrypted pages cannot be
/// decrypted, whatever key is given.
pub fn blocks_decryption(problem: &CryptDataProblem) -> bool {
    matches!(
        problem,
        CryptDataProblem::Missing { .. }
            | CryptDataProblem::Scheme { .. }
            | CryptDataProblem::IvLength { .. }
    )
}

#[cfg(test)]
#[allow(clippy::indexing_slicing, clippy::arithmetic_side_effects)]
mod tests {
    use super::*;

    #[test]
    fn the_sample_is_bounded_in_order_and_inside_the_file() {
        for n in [0u32, 1, 2, 64, 65, 66, 129, 200, 4096, 1_000_000, u32::MAX] {
            let pages: Vec<u32> = sampled_pages(n).map(|p| p.0).collect();
            assert!(pages.len() <= 2 * SAMPLED as usize, "{n}: {}", pages.len());
            assert!(pages.iter().all(|&p| p >= 1 && p < n), "{n}: {pages:?}");
            assert!(pages.windows(2).all(|w| w[0] < w[1]), "{n}: {pages:?}");
            // Every page after page 0 is looked at in a small file.
            if n <= SAMPLED + 1 {
                assert_eq!(pages.len() as u32, n.saturating_sub(1), "{n}");
            }
        }
    }
}
