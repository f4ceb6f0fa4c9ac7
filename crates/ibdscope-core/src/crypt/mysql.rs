//! MySQL and Percona Server tablespace encryption (`ENCRYPTION='Y'`,
//! MySQL 5.7.11+): the encryption information in page 0, the tablespace
//! key it holds under a keyring's master key, and page decryption, as
//! `storage/innobase/os/os0enc.cc` (`Encryption::decode_encryption_info`,
//! `Encryption::decrypt`) and `fsp/fsp0fsp.cc`
//! (`fsp_header_get_encryption_offset`) do.
//!
//! Page 0, right after the XDES array (`XDES_ARR_OFFSET + XDES_SIZE ×
//! physical size / FSP_EXTENT_SIZE`: byte 10390 at 16K, 5270 for 8K
//! compressed pages of a 16K space):
//!
//! ```text
//! magic            3   "lCA" (5.7.11), "lCB" (5.7.12+), "lCC" (8.0.5+)
//! master key id    4   big-endian; lCA/lCB may carry 4 more zero bytes
//! server uuid     36   lCB, lCC only
//! key and IV      64   AES-256-ECB under the master key: 32-byte key, 32-byte IV
//! checksum         4   CRC-32C of the 64 decrypted bytes, big-endian
//! ```
//!
//! The master key is the keyring's `INNODBKey-<server uuid>-<id>` (lCA:
//! `INNODBKey-<server id>-<id>`; id 0 in lCC: the bootstrap key
//! `DefaultMasterKey`). A page is encrypted from byte 38 (`FIL_PAGE_DATA`)
//! to its end with AES-256-CBC under the tablespace key and the first 16
//! bytes of the IV; when that length is not a multiple of 16, the last 32
//! bytes are encrypted once more, after the rest (`Encryption::encrypt`),
//! so they are decrypted first. The page type becomes 15 (`ENCRYPTED`;
//! the original type is kept at byte 28, `FIL_PAGE_ORIGINAL_TYPE_V1`),
//! 16 (`COMPRESSED_AND_ENCRYPTED`, from transparent page compression) or
//! 17 (`ENCRYPTED_RTREE`); decryption restores it. The page checksum is
//! the plaintext's, so a decrypted page verifies as any other.
//!
//! Percona Server's own `ENCRYPTION='KEYRING'` (crypt data with magic
//! "PSA"/"PSB"/"PSC" at another offset) is not this scheme and is not
//! decrypted here.

use super::keyring::{Keyring, Secret};
use crate::bytes::{be_u16, be_u32};
use crate::error::{Error, ErrorKind, Place};
use crate::fil::{FIL_PAGE_DATA, FIL_PAGE_TYPE};
use crate::ids::PageNo;
use crate::page_type::PageType;
use crate::source::{PageSource, Scratch, Transform};
use crate::space::Tablespace;
use core::fmt;
use ibdscope_prims::aes::{self, Aes};
use ibdscope_prims::wipe::wipe;

/// The magic of each version (`Encryption::KEY_MAGIC_V1..V3`).
const MAGICS: [&[u8; 3]; 3] = [b"lCA", b"lCB", b"lCC"];
/// `Encryption::SERVER_UUID_LEN`.
const UUID_LEN: usize = 36;
/// `Encryption::KEY_LEN`: tablespace key, IV and master key lengths.
const KEY_LEN: usize = 32;
/// Where an encrypted page keeps its original type.
pub(crate) const FIL_PAGE_ORIGINAL_TYPE_V1: usize = 28;
/// Where a transparently compressed page keeps its compressed size.
pub(crate) const FIL_PAGE_COMPRESS_SIZE_V1: usize = 32;
/// The AES block.
const BLOCK: usize = 16;
/// The file system block a transparently compressed page's length is
/// aligned to when it is written (`IORequest::block_size`, the file
/// system's; 4096 on the usual Linux file systems). Used for type 16 only.
const FS_BLOCK: usize = 4096;
/// The bootstrap master key of key id 0 (`Encryption::DEFAULT_MASTER_KEY`).
const DEFAULT_MASTER_KEY: &[u8] = b"DefaultMasterKey";

/// Where page 0 holds the encryption information
/// (`fsp_header_get_encryption_offset`).
pub fn info_offset(logical_size: u32, physical_size: u32) -> usize {
    let extent = crate::fsp::extent_size(logical_size).max(1);
    let entries = physical_size.checked_div(extent).unwrap_or(0) as usize;
    crate::xdes::XDES_ARR_OFFSET
        .saturating_add(crate::xdes::xdes_size(extent).saturating_mul(entries))
}

/// The encryption information of page 0.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct EncryptionInfo {
    /// Its byte offset in page 0.
    pub offset: usize,
    /// 1, 2 or 3 (magic "lCA", "lCB", "lCC").
    pub version: u8,
    /// The master key id.
    pub master_key_id: u32,
    /// The server uuid (versions 2 and 3).
    pub server_uuid: Option<String>,
    /// Offset of the encrypted key and IV in page 0.
    pub key_info_offset: usize,
    /// The tablespace key and IV, encrypted under the master key.
    encrypted: [u8; 2 * KEY_LEN],
    /// The stored CRC-32C of the decrypted key and IV.
    pub checksum: u32,
    /// The server uuid's bytes as stored (zeros before version 2).
    uuid_raw: [u8; UUID_LEN],
}

impl EncryptionInfo {
    /// Reads the information from page 0 of `ts`; `None` when the space is
    /// not flagged encrypted or no known magic is at the offset.
    pub fn read(ts: &Tablespace<'_>) -> Option<EncryptionInfo> {
        let f = ts.format();
        if !f.encryption {
            return None;
        }
        let page0 = ts.page(PageNo(0))?;
        Self::read_page0(page0, f.logical_size, f.physical_size)
    }

    /// Reads the information from `page0` of a space of these page sizes.
    pub fn read_page0(page0: &[u8], logical_size: u32, physical_size: u32) -> Option<Self> {
        let offset = info_offset(logical_size, physical_size);
        let magic = page0.get(offset..offset.checked_add(3)?)?;
        let version = MAGICS.iter().position(|m| &m[..] == magic)?;
        let version = u8::try_from(version).ok()?.saturating_add(1);
        let mut at = offset.saturating_add(3);
        let master_key_id = be_u32(page0, at)?;
        at = at.saturating_add(4);
        // Versions 1 and 2 may have written the id in 8 bytes
        // (`get_master_key_from_info`: skipped when the next 4 are zero).
        if version < 3 && be_u32(page0, at)? == 0 {
            at = at.saturating_add(4);
        }
        let mut uuid_raw = [0u8; UUID_LEN];
        let server_uuid = if version >= 2 {
            let raw = page0.get(at..at.saturating_add(UUID_LEN))?;
            uuid_raw.copy_from_slice(raw);
            at = at.saturating_add(UUID_LEN);
            Some(
                String::from_utf8_lossy(raw)
                    .trim_end_matches('\0')
                    .to_owned(),
            )
        } else {
            None
        };
        let key_info_offset = at;
        let mut encrypted = [0u8; 2 * KEY_LEN];
        encrypted.copy_from_slice(page0.get(at..at.saturating_add(2 * KEY_LEN))?);
        at = at.saturating_add(2 * KEY_LEN);
        let checksum = be_u32(page0, at)?;
        Some(EncryptionInfo {
            offset,
            version,
            master_key_id,
            server_uuid,
            key_info_offset,
            encrypted,
            checksum,
            uuid_raw,
        })
    }

    /// Offset of the stored checksum in page 0.
    pub(crate) fn checksum_offset(&self) -> usize {
        self.key_info_offset.saturating_add(2 * KEY_LEN)
    }

    /// The master key the information names, as an error carries it.
    fn master_key(&self) -> MasterKey {
        match self.server_uuid {
            Some(_) => MasterKey::Uuid {
                uuid: self.uuid_raw,
                id: self.master_key_id,
            },
            None => MasterKey::ServerId {
                server_id: None,
                id: self.master_key_id,
            },
        }
    }

    /// The name of the master key (`Encryption::get_master_key`):
    /// `INNODBKey-<uuid>-<id>`; for version 1, which names it by the
    /// server id the page does not hold, the pattern
    /// `INNODBKey-<server id>-<id>`.
    pub fn master_key_name(&self) -> String {
        match &self.server_uuid {
            Some(u) => format!("INNODBKey-{u}-{}", self.master_key_id),
            None => format!("INNODBKey-<server id>-{}", self.master_key_id),
        }
    }
}

/// The name of a MySQL master key, as an error carries it (defined with
/// the crate's error).
pub use crate::error::MasterKey;

/// A space's tablespace key and IV, wiped when dropped.
pub struct TablespaceKey {
    aes: Aes,
    iv: [u8; BLOCK],
    /// The master key it was unwrapped with.
    pub master_key: String,
}

impl fmt::Debug for TablespaceKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TablespaceKey")
            .field("master_key", &self.master_key)
            .finish_non_exhaustive()
    }
}

impl Drop for TablespaceKey {
    fn drop(&mut self) {
        wipe(&mut self.iv);
    }
}

/// `my_aes_create_key` (mysys/my_aes.cc): a key of any length folded by
/// XOR into the mode's 32 bytes (the identity for a 32-byte key).
fn fold_key(key: &[u8]) -> Secret {
    let mut r = vec![0u8; KEY_LEN];
    for (i, b) in key.iter().enumerate() {
        if let Some(x) = r.get_mut(i % KEY_LEN) {
            *x ^= b;
        }
    }
    Secret::new(r)
}

/// The master keys `info` may name in `keyring`: the one by uuid, the
/// bootstrap key for id 0 (version 3), or for version 1 every
/// `INNODBKey-<digits>-<id>`.
/// A server id is a 32-bit number the server prints in decimal
/// (`INNODBKey-%lu-%lu`): a name whose digits say otherwise is no
/// server's.
fn candidates(info: &EncryptionInfo, keyring: &Keyring) -> Vec<(String, MasterKey, Secret)> {
    if info.version == 3 && info.master_key_id == 0 {
        return vec![(
            "DefaultMasterKey".into(),
            MasterKey::Default,
            fold_key(DEFAULT_MASTER_KEY),
        )];
    }
    if info.server_uuid.is_some() {
        let name = info.master_key_name();
        return keyring
            .get(&name)
            .map(|k| vec![(name, info.master_key(), fold_key(k.data.bytes()))])
            .unwrap_or_default();
    }
    let suffix = format!("-{}", info.master_key_id);
    keyring
        .keys
        .iter()
        .filter_map(|k| {
            let sid = k.id.strip_prefix("INNODBKey-")?.strip_suffix(&suffix)?;
            let server_id = sid.parse::<u32>().ok()?;
            let key = MasterKey::ServerId {
                server_id: Some(server_id),
                id: info.master_key_id,
            };
            (server_id.to_string() == sid).then(|| (k.id.clone(), key, fold_key(k.data.bytes())))
        })
        .collect()
}

/// Unwraps the space's tablespace key with its master key from `keyring`
/// and checks it against the stored CRC-32C
/// (`Encryption::decode_encryption_info`).
///
/// Errors: [`ErrorKind::NoMasterKey`] (at page 0's encryption
/// information), [`ErrorKind::MasterKeyMismatch`] (at its stored checksum).
pub fn tablespace_key(info: &EncryptionInfo, keyring: &Keyring) -> Result<TablespaceKey, Error> {
    let found = candidates(info, keyring);
    let mut tried = None;
    for (name, key, master) in found {
        let Some(m) = Aes::new(master.bytes()) else {
            continue;
        };
        let mut key_info = Secret::new(info.encrypted.to_vec());
        let ok = aes::ecb_decrypt(&m, key_info.bytes_mut())
            && ibdscope_prims::crc32c::crc32c(key_info.bytes()) == info.checksum;
        if ok {
            let (k, iv) = key_info.bytes().split_at(KEY_LEN);
            let Some(aes) = Aes::new(k) else {
                continue;
            };
            let mut ivb = [0u8; BLOCK];
            ivb.copy_from_slice(iv.get(..BLOCK).unwrap_or(&[0; BLOCK]));
            return Ok(TablespaceKey {
                aes,
                iv: ivb,
                master_key: name,
            });
        }
        tried = Some(key);
    }
    let page0 = |kind, offset: usize| Error {
        kind,
        place: Place::Space {
            page: Some(PageNo(0)),
            file_offset: offset as u64,
        },
    };
    Err(match tried {
        Some(key) => page0(ErrorKind::MasterKeyMismatch(key), info.checksum_offset()),
        None => page0(ErrorKind::NoMasterKey(info.master_key()), info.offset),
    })
}

/// Whether a page of this type is encrypted (`Encryption::is_encrypted_page`).
pub(crate) fn is_encrypted_type(t: PageType) -> bool {
    matches!(
        t,
        PageType::FIL_PAGE_ENCRYPTED
            | PageType::FIL_PAGE_COMPRESSED_AND_ENCRYPTED
            | PageType::FIL_PAGE_ENCRYPTED_RTREE
    )
}

/// Decrypts one page in place as `Encryption::decrypt` does and restores
/// its type; `false` (page untouched) when it is not encrypted or too
/// short to be.
pub fn decrypt_page(key: &TablespaceKey, page: &mut [u8]) -> bool {
    let Some(t) = be_u16(page, FIL_PAGE_TYPE).map(PageType) else {
        return false;
    };
    if !is_encrypted_type(t) {
        return false;
    }
    let mut len = page.len();
    if t == PageType::FIL_PAGE_COMPRESSED_AND_ENCRYPTED {
        // The compressed length, aligned to the file system block.
        let c = be_u16(page, FIL_PAGE_COMPRESS_SIZE_V1).map_or(0, usize::from);
        len = c
            .saturating_add(FIL_PAGE_DATA)
            .div_ceil(FS_BLOCK)
            .saturating_mul(FS_BLOCK)
            .min(page.len());
    }
    let original = be_u16(page, FIL_PAGE_ORIGINAL_TYPE_V1).unwrap_or(0);
    let Some(data) = page.get_mut(FIL_PAGE_DATA..len) else {
        return false;
    };
    let main_len = data.len() & !(BLOCK - 1);
    if main_len != data.len() {
        // The last two blocks were encrypted last: decrypt them first.
        let Some(tail) = data
            .len()
            .checked_sub(2 * BLOCK)
            .and_then(|s| data.get_mut(s..))
        else {
            return false;
        };
        aes::cbc_decrypt(&key.aes, &key.iv, tail);
    }
    if let Some(main) = data.get_mut(..main_len) {
        aes::cbc_decrypt(&key.aes, &key.iv, main);
    }
    let restored = match t {
        PageType::FIL_PAGE_ENCRYPTED => original,
        PageType::FIL_PAGE_ENCRYPTED_RTREE => PageType::FIL_PAGE_RTREE.0,
        _ => PageType::FIL_PAGE_COMPRESSED.0,
    };
    put_u16(page, FIL_PAGE_TYPE, restored);
    if t == PageType::FIL_PAGE_ENCRYPTED {
        put_u16(page, FIL_PAGE_ORIGINAL_TYPE_V1, 0);
    }
    true
}

fn put_u16(page: &mut [u8], at: usize, v: u16) {
    if let Some(b) = page.get_mut(at..at.saturating_add(2)) {
        b.copy_from_slice(&v.to_be_bytes());
    }
}

/// A MySQL encrypted space read decrypted: read through a page source,
/// each encrypted page decrypted as a reader reaches it (into a thread's
/// buffer, or the source's bounded cache), every other page the stored
/// bytes; no image of the file is made.
pub struct Decryption {
    source: PageSource,
}

impl fmt::Debug for Decryption {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Decryption").finish_non_exhaustive()
    }
}

impl Decryption {
    /// The space `ts` read decrypted with `key`: nothing is read until a
    /// reader reaches a page.
    pub fn new(ts: &Tablespace<'_>, key: TablespaceKey) -> Decryption {
        let size = (ts.page_size() as usize).max(1);
        let source = PageSource::new(
            Box::new(Decrypt { key, size }),
            ts.page_size(),
            ts.n_pages(),
        );
        Decryption { source }
    }
    /// The space read decrypted, with `physical`'s detection (the space
    /// this decryption was made of): each page decrypted as a reader
    /// reaches it, no image made.
    pub fn tablespace<'b, 'a: 'b>(&'b self, physical: &Tablespace<'a>) -> Tablespace<'b> {
        physical.with_source(&self.source)
    }
    /// The whole decrypted image as one buffer, as long as the file (a
    /// torn tail as stored): a copy for tests and tools; the commands read
    /// pages through [`Decryption::tablespace`].
    pub fn image(&self, physical: &Tablespace<'_>) -> Vec<u8> {
        crate::pagecomp::image_of(&self.tablespace(physical))
    }
}

/// How an encrypted space's pages read: a whole page of an encrypted type
/// decrypted as [`decrypt_page`] does (`Encryption::decrypt`), every other
/// page as stored.
struct Decrypt {
    key: TablespaceKey,
    size: usize,
}

impl Transform for Decrypt {
    fn may_change(&self, _: PageNo, stored: &[u8]) -> bool {
        stored.len() == self.size
            && be_u16(stored, FIL_PAGE_TYPE).is_some_and(|t| is_encrypted_type(PageType(t)))
    }

    fn apply(&self, _: PageNo, stored: &[u8], out: &mut [u8], _: &mut Scratch) {
        if out.len() != stored.len() {
            return;
        }
        out.copy_from_slice(stored);
        decrypt_page(&self.key, out);
    }
}

#[cfg(test)]
#[allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    reason = "tests"
)]
mod tests;
