//! Encrypted pages carved with the key: the candidates the scan counted
//! as encrypted ([`super::Piece::encrypted`]) and the MariaDB pages that
//! verify encrypted ([`Found::encrypted`]) decrypted with the keys of the
//! spaces whose page 0 was found, so that they verify and are grouped with
//! their space, index by index.
//!
//! A space's key is on its page 0 (never encrypted):
//! - MariaDB (`--key-file`): the crypt data's IV and key id
//!   (`fil_space_read_crypt_data`, `fil0crypt.cc`), the page key that IV
//!   encrypted with the key file's key; the cipher (`AES_CBC` or
//!   `AES_CTR`) is not recorded, so both are tried.
//! - MySQL (`--keyring`): the encryption information (`lCA`..`lCC`,
//!   `fsp_header_get_encryption_offset`), the tablespace key unwrapped
//!   with the keyring's master key.
//!
//! A candidate is accepted only as the server accepts the page it reads:
//! MariaDB full_crc32 decrypted (`fil_space_decrypt_full_crc32`) with its
//! LSN's low word again at the end and the space id of the key; MariaDB
//! outside full_crc32 its plain checksum verifying once decrypted
//! (`fil_space_decrypt`); MySQL (`Encryption::decrypt`) its type restored
//! and its checksum verifying. The image gets the stored bytes (the
//! commands read it with the same key); only the facts are read from the
//! plain page. Decrypted bytes are wiped.

use super::{found, structure_page, Accepted, CarveOptions, Found, PageLayout};
use ibdscope_core::checksum::{Algorithm, Scheme};
use ibdscope_core::crypt::mariadb::{read_crypt_data, Cipher, CryptDataRead, SpaceKey};
use ibdscope_core::crypt::mysql::{self, EncryptionInfo, TablespaceKey};
use ibdscope_core::fil::FIL_PAGE_SPACE_ID;
use ibdscope_core::fsp::{FlagsLayout, FspFlags};
use ibdscope_core::space::verify_page;
use ibdscope_core::{PageType, SpaceId, Verdict};
use ibdscope_prims::bytes::be_u32;
use ibdscope_prims::wipe::wipe;

/// The key of one space found on one of its page 0 versions.
enum Key {
    MariaDb(SpaceKey),
    MySql(TablespaceKey),
}

struct SpaceKeyed {
    space: SpaceId,
    slot: u32,
    layout: PageLayout,
    key: Key,
}

/// Decrypts the encrypted pages found with the keys of the spaces whose
/// page 0 is among `found`: each candidate of `encrypted` that decrypts
/// and verifies moves into `found` (its facts read from the plain page,
/// [`Accepted::Decrypted`]); each MariaDB page of `found` that verified
/// encrypted gets its index facts. `sources` are the bytes the pages were
/// found in (by [`Found::source`]); the keys are `opts`' `key_file` and
/// `keyring`. With `opts.index_id`, the pages of other indexes are then
/// dropped, and the encrypted pages left (no index known).
/// Returns how many pages were decrypted.
pub fn decrypt(
    found: &mut Vec<Found>,
    encrypted: &mut Vec<Found>,
    sources: &[&[u8]],
    opts: &CarveOptions<'_>,
) -> u64 {
    let bytes = |f: &Found, len: usize| {
        let start = usize::try_from(f.offset).ok()?;
        sources
            .get(f.source as usize)?
            .get(start..start.checked_add(len)?)
    };
    let spaces = space_keys(found, &bytes, opts);
    let mut done = 0u64;
    let mut out = Vec::new();
    if !spaces.is_empty() {
        // MariaDB outside full_crc32: found, the index header encrypted.
        for f in found.iter_mut().filter(|f| f.encrypted) {
            let len = f.len as usize;
            let Some(stored) = bytes(f, len) else {
                continue;
            };
            for k in spaces.iter().filter(|k| {
                k.space == f.space_id && k.slot == f.slot && k.layout == PageLayout::Classic
            }) {
                let Key::MariaDb(key) = &k.key else { continue };
                out.clear();
                out.resize(len, 0);
                if let Ok(true) = key.decrypt_page(stored, &mut out) {
                    // The plain page's facts (its index header read).
                    let a = Accepted::Decrypted(Algorithm::MariaDbEncrypted);
                    let plain = super::found(&out, PageLayout::Classic, a, len);
                    f.index_id = plain.index_id;
                    f.level = plain.level;
                    f.compact = plain.compact;
                    done = done.saturating_add(1);
                    break;
                }
            }
        }
        // Counted without the key: MySQL keyring pages, MariaDB
        // full_crc32 pages.
        let mut left = Vec::new();
        for f in encrypted.drain(..) {
            match decrypt_one(&f, &spaces, &bytes, &mut out) {
                Some(p) => {
                    done = done.saturating_add(1);
                    found.push(p);
                }
                None => left.push(f),
            }
        }
        *encrypted = left;
        wipe(&mut out);
    }
    if let Some(id) = opts.index_id {
        found.retain(|f| !f.encrypted || f.index_id == Some(id) || structure_page(f.page_type));
        encrypted.clear();
    }
    done
}

/// The keys of the spaces whose page 0 versions are in `found`.
fn space_keys<'s>(
    found: &[Found],
    bytes: &dyn Fn(&Found, usize) -> Option<&'s [u8]>,
    keys: &CarveOptions<'_>,
) -> Vec<SpaceKeyed> {
    let mut out: Vec<SpaceKeyed> = Vec::new();
    if keys.key_file.is_none() && keys.keyring.is_none() {
        return out;
    }
    for f in found.iter().filter(|f| f.page_no.0 == 0 && !f.encrypted) {
        let (Some(flags), Some(stored)) = (f.flags, bytes(f, f.len as usize)) else {
            continue;
        };
        // A page stored without a run of zero blocks put back together.
        let (split, hole) = (f.gap.0 as usize, f.gap.1 as usize);
        let mut whole = Vec::new();
        let page0 = if hole == 0 {
            stored
        } else {
            let (a, b) = stored.split_at(split.min(stored.len()));
            whole.extend_from_slice(a);
            whole.resize(split.saturating_add(hole), 0);
            whole.extend_from_slice(b);
            &whole[..]
        };
        let full = f.layout == PageLayout::FullCrc32;
        let format = FspFlags(flags)
            .interpretations()
            .find(|s| (s.layout == FlagsLayout::FullCrc32) == full && s.physical_size == f.slot);
        let Some(format) = format else { continue };
        let at = |key: Key| SpaceKeyed {
            space: f.space_id,
            slot: f.slot,
            layout: f.layout,
            key,
        };
        if let (Some(kf), CryptDataRead::Present(crypt)) =
            (keys.key_file, read_crypt_data(page0, &format))
        {
            for cipher in [Cipher::Cbc, Cipher::Ctr] {
                if let Ok(k) = SpaceKey::new(kf, &crypt, cipher, full, f.space_id.0) {
                    out.push(at(Key::MariaDb(k)));
                }
            }
        }
        if let (Some(ring), false) = (keys.keyring, full) {
            let info = EncryptionInfo::read_page0(page0, format.logical_size, format.physical_size);
            if let Some(k) = info.and_then(|i| mysql::tablespace_key(&i, ring).ok()) {
                out.push(at(Key::MySql(k)));
            }
        }
    }
    out
}

/// `f` (a candidate counted encrypted) decrypted with one of `spaces`'
/// keys, accepted as the server accepts the page it reads.
fn decrypt_one<'s>(
    f: &Found,
    spaces: &[SpaceKeyed],
    bytes: &dyn Fn(&Found, usize) -> Option<&'s [u8]>,
    out: &mut Vec<u8>,
) -> Option<Found> {
    for k in spaces {
        match &k.key {
            // MySQL: the header is clear (space id, page number).
            Key::MySql(key) if k.space == f.space_id && f.layout == PageLayout::Classic => {
                let s = k.slot as usize;
                let Some(stored) = bytes(f, s) else { continue };
                out.clear();
                out.extend_from_slice(stored);
                if mysql::decrypt_page(key, out) {
                    if let Verdict::Valid(a) = verify_page(out, Scheme::Classic) {
                        return Some(plain(
                            f,
                            out,
                            PageLayout::Classic,
                            Accepted::Decrypted(a),
                            s,
                        ));
                    }
                }
            }
            // MariaDB full_crc32: the space id is encrypted; the key's
            // space id is in the IV, and the plain page must name it.
            Key::MariaDb(key)
                if f.layout == PageLayout::FullCrc32
                    && k.layout == PageLayout::FullCrc32
                    && (f.slot == k.slot || f.slot == 0) =>
            {
                let len = f.len as usize;
                let Some(stored) = bytes(f, len) else {
                    continue;
                };
                out.clear();
                out.resize(len, 0);
                if let Ok(true) = key.decrypt_page(stored, out) {
                    if be_u32(out, FIL_PAGE_SPACE_ID) == Some(k.space.0) {
                        let a = Accepted::Decrypted(Algorithm::FullCrc32);
                        let mut p = plain(f, out, PageLayout::FullCrc32, a, k.slot as usize);
                        if f.slot == 0 {
                            // page_compressed: the index header is compressed.
                            p.slot = 0;
                            p.len = f.len;
                            p.index_id = None;
                            p.level = 0;
                            p.compact = false;
                        }
                        return Some(p);
                    }
                }
            }
            _ => {}
        }
    }
    None
}

/// The facts of the plain page `page`, at `f`'s place in its source.
fn plain(f: &Found, page: &[u8], layout: PageLayout, accepted: Accepted, slot: usize) -> Found {
    let mut p = found(page, layout, accepted, slot);
    p.source = f.source;
    p.offset = f.offset;
    p.encrypted = true;
    if p.page_type == PageType(0) {
        p.page_type = f.page_type;
    }
    p
}
