//! MariaDB tablespace encryption with the `file_key_management` plugin:
//! the key file, the space's crypt data on page 0, and page decryption.
//!
//! Sources (MariaDB server 10.11; see docs/format.md §MariaDB encryption):
//! `plugin/file_key_management/parser.cc` (`Parser::parse_line`,
//! `read_and_decrypt_file`, `bytes_to_key`, `read_filekey`),
//! `plugin/file_key_management/file_key_management_plugin.cc` (key
//! version always 1; `AES_CBC` / `AES_CTR`), `sql/encryption.cc`
//! (`scheme_get_key`: the page key is the space IV encrypted with the
//! file's key, AES-ECB; `do_crypt`: the page IV), `mysys_ssl/my_crypt.cc`
//! (`MyCTX_nopad::finish`: CBC without padding, the tail),
//! `storage/innobase/fil/fil0crypt.cc` (`fil_space_read_crypt_data`,
//! `fil_encrypt_buf_for_full_crc32`, `fil_encrypt_buf_for_non_full_checksum`,
//! `fil_space_decrypt_*`, `fil_space_encrypt_valid_page_type`),
//! `include/fsp0fsp.h` (`fsp_header_get_encryption_offset`),
//! `buf/buf0buf.cc` (`buf_page_decrypt_after_read`).
//!
//! Key file: text lines `<id>;<hex key>` (id 1..2^32−1, key 16, 24 or 32
//! bytes), `#` comments, blank lines; key 1 must exist. Optionally
//! encrypted as `openssl enc -aes-256-cbc -md sha1` writes it:
//!
//! | offset | size | field |
//! |-------:|-----:|-------|
//! | 0 | 8 | `Salted__` |
//! | 8 | 8 | salt |
//! | 16 | n×16 | AES-256-CBC, PKCS#7 padding; key and IV from EVP_BytesToKey(SHA-1, 1 round, password, salt) |
//!
//! Crypt data, page 0 at `FSP_HEADER_OFFSET + XDES_ARR_OFFSET +
//! XDES_SIZE × physical page size / FSP_EXTENT_SIZE` (10428 for 16 KiB):
//!
//! | offset | size | field |
//! |-------:|-----:|-------|
//! | 0 | 6 | `CRYPT_MAGIC`: `s`, 0x0E, 0x0C, `R`, `E`, `t` |
//! | 6 | 1 | type: 0 unencrypted, 1 `CRYPT_SCHEME_1` |
//! | 7 | 1 | IV length (16) |
//! | 8 | 16 | IV |
//! | 24 | 4 | minimum key version of the space's pages |
//! | 28 | 4 | key id |
//! | 32 | 1 | encryption: 0 DEFAULT, 1 ON, 2 OFF |
//!
//! Pages (page 0 and FSP_HDR/XDES pages never; R-tree pages only in
//! full_crc32). The key version 0 means the page is not encrypted.
//!
//! | layout | key version | encrypted bytes | checksum |
//! |--------|-------------|-----------------|----------|
//! | full_crc32 | 0..4 | 26 .. size − 4 (size: the page, or a page_compressed page's stored size) | CRC-32C of the encrypted bytes 0 .. size − 4, at size − 4 |
//! | crc32 (classic) | 26..30 | 38 .. page − 8 | the plain page's checksum stays at 0 and page − 8; the encrypted page's crc32 at 30..34 |
//! | classic page_compressed (type 37401) | 26..30 | 42 .. 42 + (u16 at 38) | as above; the algorithm at 40..42 |
//!
//! The page key (AES-128) is `AES-ECB(file key, crypt data IV)`; the page
//! IV is `le32(space id) ‖ le32(page number) ‖ le64(FIL_PAGE_LSN)`, the space
//! id from the space (full_crc32) or the page's bytes 34..38 (classic). CBC
//! runs without padding on the whole 16-byte blocks; the last `n mod 16`
//! bytes are XORed with `AES-ECB(page key, page IV)`. CTR runs on all bytes
//! with the IV as a 128-bit big-endian counter.

use crate::bytes::{array, be_u16, be_u32, be_u64};
use crate::checksum::{self, Scheme, Unverifiable, Verdict};
use crate::error::{Error, ErrorKind};
use crate::fil::{
    FIL_PAGE_DATA, FIL_PAGE_DATA_END, FIL_PAGE_FCRC32_CHECKSUM, FIL_PAGE_FCRC32_END_LSN,
    FIL_PAGE_FILE_FLUSH_LSN, FIL_PAGE_LSN, FIL_PAGE_OFFSET, FIL_PAGE_SPACE_ID, FIL_PAGE_TYPE,
};
use crate::ids::PageNo;
use crate::page_type::PageType;
use crate::pagecomp::{self, Layout, PageCompErrorKind};
use crate::parallel::{fold_pages_with_state, Engine, PageFold, StateFold};
use crate::source::{PageSource, Scratch as SourceScratch, Transform};
use crate::space::{page_facts, Tablespace};
use crate::summary::{ShardSummary, Summary, SummaryFold};
use ibdscope_prims::aes::{self, Aes};
use ibdscope_prims::sha1;
use ibdscope_prims::wipe::wipe;
use std::fmt;

/// `MAX_KEY_FILE_SIZE`: the plugin reads at most this much of a key file.
pub const MAX_KEY_FILE_SIZE: usize = 1024 * 1024;
/// `MAX_SECRET_SIZE`: the longest password a `FILE:` password file holds.
pub(crate) const MAX_SECRET_SIZE: usize = 256;
/// `OpenSSL_prefix`.
const SALTED: &[u8; 8] = b"Salted__";
/// The only key version the file_key_management plugin has.
pub(crate) const FILE_KEY_VERSION: u32 = 1;

// ---------------------------------------------------------------- keys

/// One key of a key file (16, 24 or 32 bytes), wiped on drop. Its `Debug`
/// shows the length only. A clone is wiped on drop too.
#[derive(Clone)]
pub struct Key {
    len: usize,
    bytes: [u8; 32],
}

impl Key {
    /// The key bytes.
    pub fn bytes(&self) -> &[u8] {
        self.bytes.get(..self.len).unwrap_or(&[])
    }
}

impl Drop for Key {
    fn drop(&mut self) {
        wipe(&mut self.bytes);
    }
}

impl fmt::Debug for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Key({} bits)", self.len.saturating_mul(8))
    }
}

/// A parsed key file: keys by id (the last line of an id wins, as in the
/// plugin's map). Its `Debug` shows the ids only.
#[derive(Clone)]
pub struct KeyFile {
    keys: Vec<(u32, Key)>,
}

impl fmt::Debug for KeyFile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.ids()).finish()
    }
}

/// Bytes that are wiped when dropped (a decrypted key file, a password).
pub struct Secret(Vec<u8>);

impl Secret {
    /// The bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.0
    }
}

impl Drop for Secret {
    fn drop(&mut self) {
        wipe(&mut self.0);
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(..)")
    }
}

/// The password a `FILE:` password file gives (`Parser::read_filekey`):
/// its first 257 bytes, trailing CR and LF removed, at most 256 bytes left,
/// up to the first NUL.
pub fn password_from_file(file: &[u8]) -> Result<Secret, Error> {
    password_problem(file).map_err(Error::key_file)
}

fn password_problem(file: &[u8]) -> Result<Secret, KeyFileProblem> {
    let mut s = file
        .get(..MAX_SECRET_SIZE.saturating_add(1))
        .unwrap_or(file);
    if s.is_empty() {
        return Err(KeyFileProblem::EmptyPassword);
    }
    while let [rest @ .., b'\r' | b'\n'] = s {
        s = rest;
    }
    if s.len() > MAX_SECRET_SIZE {
        return Err(KeyFileProblem::PasswordTooLong {
            limit: MAX_SECRET_SIZE,
        });
    }
    Ok(Secret(c_string(s).to_vec()))
}

/// `s` up to its first NUL (what `strlen` sees).
fn c_string(s: &[u8]) -> &[u8] {
    s.iter()
        .position(|&b| b == 0)
        .and_then(|n| s.get(..n))
        .unwrap_or(s)
}

impl KeyFile {
    /// Parses a key file as the plugin does (`Parser::parse_file`): an
    /// encrypted file (it starts with `Salted__`) is decrypted with
    /// `password` first; a plain file with a non-empty password is refused.
    pub fn parse(file: &[u8], password: &[u8]) -> Result<KeyFile, Error> {
        Self::parse_problem(file, password).map_err(Error::key_file)
    }

    fn parse_problem(file: &[u8], password: &[u8]) -> Result<KeyFile, KeyFileProblem> {
        let text = read_and_decrypt(file, c_string(password))?;
        let body = c_string(text.bytes());
        // Sized once, sorted in place: a Vec that grows, or a sort's
        // scratch, would leave copies of the keys it moved behind, freed
        // but not wiped. A key line holds a `;`.
        let bound = body
            .split(|&b| b == b'\n')
            .filter(|line| line.contains(&b';'))
            .count();
        let mut keys: Vec<(u32, Key)> = Vec::with_capacity(bound);
        parse_text(body, &mut keys)?;
        keys.sort_unstable_by_key(|k| k.0);
        if !keys.iter().any(|k| k.0 == 1) {
            return Err(KeyFileProblem::NoKey1);
        }
        Ok(KeyFile { keys })
    }

    /// The key with this id.
    pub fn key(&self, id: u32) -> Option<&Key> {
        self.keys
            .binary_search_by_key(&id, |k| k.0)
            .ok()
            .and_then(|i| self.keys.get(i))
            .map(|k| &k.1)
    }

    /// The key ids, ascending.
    pub fn ids(&self) -> impl Iterator<Item = u32> + '_ {
        self.keys.iter().map(|k| k.0)
    }
}

/// `read_and_decrypt_file`: the first MiB; decrypted when it is an OpenSSL
/// `enc` file.
fn read_and_decrypt(file: &[u8], password: &[u8]) -> Result<Secret, KeyFileProblem> {
    let file = file.get(..MAX_KEY_FILE_SIZE).unwrap_or(file);
    if !(file.len() > SALTED.len() && file.starts_with(SALTED)) {
        if !password.is_empty() {
            return Err(KeyFileProblem::NotEncrypted);
        }
        return Ok(Secret(file.to_vec()));
    }
    let salt: [u8; 8] = array(file, 8).ok_or(KeyFileProblem::WrongPassword)?;
    let data = file.get(16..).unwrap_or(&[]);
    if data.is_empty() || data.len() % 16 != 0 {
        return Err(KeyFileProblem::WrongPassword);
    }
    let (mut key, mut iv) = bytes_to_key(&salt, password);
    let aes = Aes::new(&key);
    wipe(&mut key);
    let mut plain = Secret(data.to_vec());
    let ok = aes.is_some_and(|a| aes::cbc_decrypt(&a, &iv, &mut plain.0));
    wipe(&mut iv);
    if !ok {
        return Err(KeyFileProblem::WrongPassword);
    }
    // PKCS#7, as EVP_DecryptFinal checks it.
    let pad = plain.0.last().copied().unwrap_or(0);
    let n = usize::from(pad);
    let body = plain.0.len().checked_sub(n);
    let good = (1..=16).contains(&pad)
        && body.is_some_and(|b| {
            plain
                .0
                .get(b..)
                .is_some_and(|t| t.iter().all(|&x| x == pad))
        });
    match body {
        Some(b) if good => {
            wipe(plain.0.get_mut(b..).unwrap_or(&mut []));
            plain.0.truncate(b);
            Ok(plain)
        }
        _ => Err(KeyFileProblem::WrongPassword),
    }
}

/// EVP_BytesToKey with SHA-1, one round, as `Parser::bytes_to_key` spells
/// it: 32 bytes of key, then 16 of IV, from `D1 = SHA1(password ‖ salt)`,
/// `Di+1 = SHA1(Di ‖ password ‖ salt)`.
fn bytes_to_key(salt: &[u8; 8], password: &[u8]) -> ([u8; 32], [u8; 16]) {
    let mut out = [0u8; 48];
    let mut d = sha1::sha1(&[password, salt]);
    let mut filled = 0usize;
    loop {
        for (o, b) in out.iter_mut().skip(filled).zip(d.iter()) {
            *o = *b;
        }
        filled = filled.saturating_add(d.len());
        if filled >= out.len() {
            break;
        }
        let prev = d;
        d = sha1::sha1(&[&prev, password, salt]);
    }
    wipe(&mut d);
    let key: [u8; 32] = array(&out, 0).unwrap_or([0; 32]);
    let iv: [u8; 16] = array(&out, 32).unwrap_or([0; 16]);
    wipe(&mut out);
    (key, iv)
}

/// `Parser::parse_file` over the decrypted text (already cut at its first
/// NUL): one `parse_line` per line.
fn parse_text(text: &[u8], keys: &mut Vec<(u32, Key)>) -> Result<(), KeyFileProblem> {
    let mut rest = text;
    let mut line_no = 0u32;
    while !rest.is_empty() {
        line_no = line_no.saturating_add(1);
        let (line, terminated, next) = match rest.iter().position(|&b| b == b'\n') {
            Some(n) => (
                rest.get(..n).unwrap_or(&[]),
                true,
                rest.get(n.saturating_add(1)..).unwrap_or(&[]),
            ),
            None => (rest, false, &[][..]),
        };
        if let Some((id, key)) = parse_line(line, terminated, line_no)? {
            match keys.iter_mut().find(|k| k.0 == id) {
                Some(slot) => slot.1 = key,
                None => keys.push((id, key)),
            }
        }
        rest = next;
    }
    Ok(())
}

/// C `isspace` in the C locale, without `\n` (the line's end).
fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | 0x0b | 0x0c)
}

fn hex_value(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b.wrapping_sub(b'0')),
        b'a'..=b'f' => Some(b.wrapping_sub(b'a').wrapping_add(10)),
        b'A'..=b'F' => Some(b.wrapping_sub(b'A').wrapping_add(10)),
        _ => None,
    }
}

/// `Parser::parse_line`: a key, or `None` for a comment or a blank line.
/// `terminated`: the line ended with `\n` (a last line of blanks without
/// one is a syntax error in the plugin).
fn parse_line(line: &[u8], terminated: bool, n: u32) -> Result<Option<(u32, Key)>, KeyFileProblem> {
    let at = |p: usize| line.get(p).copied();
    let err_at = |p: usize| p.saturating_add(1);
    let mut p = line.iter().take_while(|&&b| is_space(b)).count();
    match at(p) {
        None if terminated => return Ok(None),
        Some(b'#') => return Ok(None),
        Some(b'0'..=b'9') => {}
        _ => {
            return Err(KeyFileProblem::Syntax {
                line: n,
                column: err_at(p),
            })
        }
    }
    let mut id: u64 = 0;
    while let Some(d @ b'0'..=b'9') = at(p) {
        id = id
            .saturating_mul(10)
            .saturating_add(u64::from(d.wrapping_sub(b'0')));
        if id > u64::from(u32::MAX) {
            return Err(KeyFileProblem::InvalidKeyId {
                line: n,
                column: err_at(p),
            });
        }
        p = p.saturating_add(1);
    }
    let id = u32::try_from(id).unwrap_or(0);
    if id < 1 {
        return Err(KeyFileProblem::InvalidKeyId {
            line: n,
            column: err_at(p),
        });
    }
    if at(p) != Some(b';') {
        return Err(KeyFileProblem::Syntax {
            line: n,
            column: err_at(p),
        });
    }
    p = p.saturating_add(1);
    let mut key = Key {
        len: 0,
        bytes: [0; 32],
    };
    while key.len < key.bytes.len() {
        let (Some(hi), Some(lo)) = (
            at(p).and_then(hex_value),
            at(p.saturating_add(1)).and_then(hex_value),
        ) else {
            break;
        };
        if let Some(b) = key.bytes.get_mut(key.len) {
            *b = hi.wrapping_mul(16).wrapping_add(lo);
        }
        key.len = key.len.saturating_add(1);
        p = p.saturating_add(2);
    }
    if at(p).and_then(hex_value).is_some() || !matches!(key.len, 16 | 24 | 32) {
        return Err(KeyFileProblem::InvalidKey {
            line: n,
            column: err_at(p),
        });
    }
    Ok(Some((id, key)))
}

// ---------------------------------------------------------- crypt data

pub use crate::crypt_data::{
    blocks_decryption, crypt_data_finding, key_version, read_crypt_data, space_crypt_data,
    CryptData, CryptDataRead,
};
pub use crate::error::KeyFileProblem;
pub use crate::finding::CryptDataProblem;

// --------------------------------------------------------------- pages

/// `file_key_management_encryption_algorithm`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Cipher {
    /// `AES_CBC` (the default): CBC without padding, the tail XORed.
    Cbc,
    /// `AES_CTR`.
    Ctr,
}

impl Cipher {
    /// The plugin's name for it.
    pub fn name(self) -> &'static str {
        match self {
            Cipher::Cbc => "AES_CBC",
            Cipher::Ctr => "AES_CTR",
        }
    }
}

/// Why one page was not decrypted (defined with the crate's error).
pub use crate::error::PageCryptErrorKind;

fn page_err(kind: PageCryptErrorKind, offset: usize) -> Error {
    Error::in_page(ErrorKind::PageCrypt(kind), offset)
}

/// The key of one space: AES-128 with the page key, the cipher, the
/// layout. Wiped on drop (through [`Aes`]).
#[derive(Debug)]
pub struct SpaceKey {
    aes: Aes,
    cipher: Cipher,
    full_crc32: bool,
    space_id: u32,
}

impl SpaceKey {
    /// The page key of a space (`scheme_get_key`): the crypt data's IV
    /// encrypted (AES-ECB) with the key file's key of the crypt data's id.
    /// `space_id`: the space's id (full_crc32 page IVs use it).
    pub fn new(
        keys: &KeyFile,
        crypt: &CryptData,
        cipher: Cipher,
        full_crc32: bool,
        space_id: u32,
    ) -> Result<SpaceKey, Error> {
        let no_key = Error::whole(ErrorKind::NoSpaceKey {
            key_id: crypt.key_id,
        });
        let file_key = keys.key(crypt.key_id).ok_or(no_key)?;
        let global = Aes::new(file_key.bytes()).ok_or(no_key)?;
        let mut local = crypt.iv;
        global.encrypt_block(&mut local);
        let aes = Aes::new(&local);
        wipe(&mut local);
        Ok(SpaceKey {
            aes: aes.ok_or(no_key)?,
            cipher,
            full_crc32,
            space_id,
        })
    }

    /// Decrypts `page` into `out` (as long as `page`) as
    /// `buf_page_decrypt_after_read` does: the encrypted page's checksum
    /// first, then `fil_space_decrypt`, then the plain page's check. `out`
    /// then holds the page as the server has it in memory, except that the
    /// key version (and outside full_crc32 the encrypted checksum at
    /// 30..34) is cleared, so that readers see a plain page. A
    /// page_compressed page stays compressed (decompress it next; a
    /// classic page of type 37401 is rewritten as the 34354 page it was).
    /// `Ok(false)`: the page is not encrypted (key version 0); `out` is a
    /// copy.
    pub fn decrypt_page(&self, page: &[u8], out: &mut [u8]) -> Result<bool, Error> {
        self.decrypt_judged(page, out, None)
    }

    /// [`SpaceKey::decrypt_page`], given the stored page's verdict when the
    /// caller has it already (`verify_page` under the space's scheme: in
    /// full_crc32 the very check of the encrypted page the server makes
    /// before decrypting it, which is then not made again).
    fn decrypt_judged(
        &self,
        page: &[u8],
        out: &mut [u8],
        stored: Option<Verdict>,
    ) -> Result<bool, Error> {
        if out.len() != page.len() {
            return Err(page_err(PageCryptErrorKind::Size, 0));
        }
        let version = key_version(page, self.full_crc32);
        if version == 0 {
            out.copy_from_slice(page);
            return Ok(false);
        }
        let version_at = if self.full_crc32 {
            0
        } else {
            FIL_PAGE_FILE_FLUSH_LSN
        };
        if version != FILE_KEY_VERSION {
            out.copy_from_slice(page);
            return Err(page_err(
                PageCryptErrorKind::KeyVersion(version),
                version_at,
            ));
        }
        let r = if self.full_crc32 {
            self.decrypt_full_crc32(page, out, stored)
        } else {
            self.decrypt_classic(page, out)
        };
        if r.is_err() {
            out.copy_from_slice(page);
        }
        r.map(|()| true)
    }

    fn decrypt_full_crc32(
        &self,
        page: &[u8],
        out: &mut [u8],
        stored: Option<Verdict>,
    ) -> Result<(), Error> {
        let (verdict, size) = match stored {
            // verify_page's verdict under full_crc32 is verify_full_crc32's,
            // over the same covered size.
            Some(v) => (
                v,
                checksum::full_crc32_size(page).map_or(page.len(), |s| s.0),
            ),
            None => checksum::verify_full_crc32(page),
        };
        if !matches!(verdict, Verdict::Valid(_)) {
            let at = size.saturating_sub(FIL_PAGE_FCRC32_CHECKSUM);
            return Err(page_err(PageCryptErrorKind::Checksum, at));
        }
        let compressed = checksum::full_crc32_size(page).is_some_and(|s| s.1);
        let end = size.saturating_sub(FIL_PAGE_FCRC32_CHECKSUM);
        let iv = page_iv(self.space_id, page);
        self.crypt_page(&iv, page, out, FIL_PAGE_FILE_FLUSH_LSN, end)
            .ok_or(page_err(PageCryptErrorKind::Size, FIL_PAGE_TYPE))?;
        if let Some(v) = out.get_mut(..4) {
            v.fill(0);
        }
        // fil_space_decrypt_full_crc32 leaves the plain page to be judged by
        // its end LSN (buf_page_is_corrupted: the low 32 bits of
        // FIL_PAGE_LSN again at size − 8); a compressed page by its stream.
        if !compressed {
            let head = be_u32(out, FIL_PAGE_LSN.saturating_add(4));
            let tail_at = size.saturating_sub(FIL_PAGE_FCRC32_END_LSN);
            if head != be_u32(out, tail_at) {
                return Err(page_err(PageCryptErrorKind::WrongKey, tail_at));
            }
        }
        Ok(())
    }

    fn decrypt_classic(&self, page: &[u8], out: &mut [u8]) -> Result<(), Error> {
        let t = be_u16(page, FIL_PAGE_TYPE).map(PageType);
        let compressed = t == Some(PageType::FIL_PAGE_PAGE_COMPRESSED_ENCRYPTED);
        // fil_space_verify_crypt_checksum: a 37401 page is taken as it is
        // (it is verified after decompression).
        let zip = false;
        if !compressed && !matches!(checksum::verify_mariadb_crypt(page, zip), Verdict::Valid(_)) {
            return Err(page_err(
                PageCryptErrorKind::Checksum,
                FIL_PAGE_FILE_FLUSH_LSN.saturating_add(4),
            ));
        }
        let (start, len) = if compressed {
            let len = usize::from(be_u16(page, FIL_PAGE_DATA).unwrap_or(0));
            (FIL_PAGE_DATA.saturating_add(4), len)
        } else {
            let len = page.len().saturating_sub(FIL_PAGE_DATA + FIL_PAGE_DATA_END);
            (FIL_PAGE_DATA, len)
        };
        let end = start.saturating_add(len);
        let space = be_u32(page, FIL_PAGE_SPACE_ID).unwrap_or(0);
        let iv = page_iv(space, page);
        self.crypt_page(&iv, page, out, start, end)
            .filter(|_| len > 0)
            .ok_or(page_err(PageCryptErrorKind::Size, FIL_PAGE_DATA))?;
        if let Some(v) = out.get_mut(FIL_PAGE_FILE_FLUSH_LSN..FIL_PAGE_SPACE_ID) {
            v.fill(0);
        }
        if compressed {
            as_page_compressed(out, start, len);
            return Ok(());
        }
        // The plain page's own checksum (computed before encryption, over
        // bytes the cipher does not touch and the decrypted body).
        if !matches!(
            checksum::verify_classic(out),
            Verdict::Valid(_) | Verdict::Empty
        ) {
            return Err(page_err(PageCryptErrorKind::WrongKey, 0));
        }
        Ok(())
    }

    /// `out` = `page` (as long) with bytes `start..end` decrypted with the
    /// page IV `iv`: the bytes outside copied, the region decrypted from
    /// `page` straight into `out` (no copy first). `None`, `out`
    /// untouched, when the region does not fit.
    fn crypt_page(
        &self,
        iv: &[u8; 16],
        page: &[u8],
        out: &mut [u8],
        start: usize,
        end: usize,
    ) -> Option<()> {
        let src = page.get(start..end)?;
        if out.len() != page.len() {
            return None;
        }
        let (head, rest) = out.split_at_mut(start);
        let (dst, tail) = rest.split_at_mut(end.checked_sub(start)?);
        head.copy_from_slice(page.get(..start)?);
        tail.copy_from_slice(page.get(end..)?);
        match self.cipher {
            Cipher::Ctr => {
                aes::ctr_xor_to(&self.aes, iv, src, dst);
            }
            Cipher::Cbc => {
                let whole = src.len() & !15;
                let (blocks, rest) = src.split_at(whole);
                let (to, tail) = dst.split_at_mut(whole);
                aes::cbc_decrypt_to(&self.aes, iv, blocks, to);
                // MyCTX_nopad::finish: the tail XOR AES-ECB(key, IV).
                let mut mask = *iv;
                self.aes.encrypt_block(&mut mask);
                for ((t, s), m) in tail.iter_mut().zip(rest).zip(mask.iter()) {
                    *t = s ^ m;
                }
                wipe(&mut mask);
            }
        }
        Some(())
    }
}

/// `do_crypt`'s IV: le32(space) ‖ le32(FIL_PAGE_OFFSET) ‖ le64(FIL_PAGE_LSN).
fn page_iv(space: u32, page: &[u8]) -> [u8; 16] {
    let mut iv = [0u8; 16];
    let page_no = be_u32(page, FIL_PAGE_OFFSET).unwrap_or(0);
    let lsn = be_u64(page, FIL_PAGE_LSN).unwrap_or(0);
    for (d, s) in iv.iter_mut().zip(
        space
            .to_le_bytes()
            .into_iter()
            .chain(page_no.to_le_bytes())
            .chain(lsn.to_le_bytes()),
    ) {
        *d = s;
    }
    iv
}

/// A decrypted classic 37401 page rewritten as the 34354 page
/// (`FIL_PAGE_PAGE_COMPRESSED`) it was before encryption: the algorithm
/// from 40..42 into 26..34, the payload from 42 moved to 40
/// (`fil_page_decompress_for_non_full_crc32` reads both forms).
fn as_page_compressed(out: &mut [u8], start: usize, len: usize) {
    let algo = be_u16(out, FIL_PAGE_DATA.saturating_add(2)).unwrap_or(0);
    if let Some(t) = out.get_mut(FIL_PAGE_TYPE..FIL_PAGE_TYPE.saturating_add(2)) {
        t.copy_from_slice(&PageType::FIL_PAGE_PAGE_COMPRESSED.0.to_be_bytes());
    }
    if let Some(a) = out.get_mut(FIL_PAGE_FILE_FLUSH_LSN..FIL_PAGE_SPACE_ID) {
        a.copy_from_slice(&u64::from(algo).to_be_bytes());
    }
    let dst = FIL_PAGE_DATA.saturating_add(2);
    if out.get(start..start.saturating_add(len)).is_some() {
        out.copy_within(start..start.saturating_add(len), dst);
        if let Some(z) = out.get_mut(dst.saturating_add(len)..start.saturating_add(len)) {
            z.fill(0);
        }
    }
}

// ------------------------------------------------------------ the space

/// What decrypting one page of the image failed on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ImageFailureKind {
    /// The page was not decrypted.
    Crypt(Error),
    /// The page (plain, or decrypted) is page_compressed and did not
    /// decompress.
    Decompress(Error),
}

/// A page of the image left as stored, with why.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImageFailure {
    /// The page.
    pub page: PageNo,
    /// Why.
    pub kind: ImageFailureKind,
}

impl fmt::Display for ImageFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            ImageFailureKind::Crypt(e) => write!(f, "{e}"),
            ImageFailureKind::Decompress(e) => write!(f, "{e}"),
        }
    }
}

/// The decrypted logical view of a space (every encrypted page decrypted
/// and every page_compressed page decompressed), which the structure
/// commands read instead of the file: read through a page source, each
/// page decrypted as a reader reaches it, no image of the file made.
pub struct Decryption {
    source: PageSource,
    /// Pages decrypted.
    pub decrypted: u32,
    /// Pages decompressed (after decryption or plain).
    pub decompressed: u32,
    /// Pages with a key version that were not decrypted, and pages that did
    /// not decompress, in page order; they read as stored.
    pub failures: Vec<ImageFailure>,
}

impl fmt::Debug for Decryption {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Decryption")
            .field("decrypted", &self.decrypted)
            .field("decompressed", &self.decompressed)
            .field("failures", &self.failures)
            .finish_non_exhaustive()
    }
}

impl Decryption {
    /// The whole decrypted image as one buffer, as long as the file (a
    /// torn tail as stored): a copy for tests and tools; the commands read
    /// pages through [`Decryption::tablespace`].
    pub fn image(&self, physical: &Tablespace<'_>) -> Vec<u8> {
        crate::pagecomp::image_of(&self.tablespace(physical))
    }
    /// The space read decrypted, with `physical`'s detection (the space
    /// this decryption was made of): each page decrypted as a reader
    /// reaches it, no image made.
    pub fn tablespace<'b, 'a: 'b>(&'b self, physical: &Tablespace<'a>) -> Tablespace<'b> {
        physical.with_source(&self.source)
    }
    /// Whether no page decrypted and some page with a key version does not
    /// verify after decryption: the key is wrong. (When other pages
    /// decrypt, a page that does not is damaged, or was written under
    /// another key; its failure names it.)
    pub fn wrong_key(&self) -> bool {
        self.decrypted == 0
            && self.failures.iter().any(|f| {
                matches!(
                    f.kind,
                    ImageFailureKind::Crypt(Error {
                        kind: ErrorKind::PageCrypt(PageCryptErrorKind::WrongKey),
                        ..
                    })
                )
            })
    }
}

/// A space key for `ts` from its crypt data.
pub fn space_key(
    ts: &Tablespace<'_>,
    keys: &KeyFile,
    crypt: &CryptData,
    cipher: Cipher,
) -> Result<SpaceKey, Error> {
    let full = ts.scheme() == Scheme::FullCrc32;
    SpaceKey::new(keys, crypt, cipher, full, ts.space_id().0)
}

/// Buffers one thread reuses from page to page: a page-sized buffer for
/// the decompressed page and the decoders' tables. The buffer is wiped
/// after each page it held and when dropped.
#[derive(Default)]
struct Scratch {
    buf: pagecomp::PageOut,
    codec: crate::pagecomp::Scratch,
}

impl Scratch {
    fn parts(&mut self) -> (&mut pagecomp::PageOut, &mut pagecomp::Scratch) {
        (&mut self.buf, &mut self.codec)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        wipe(self.buf.allocation());
    }
}

/// How an encrypted space's pages read: decrypted (then decompressed)
/// as [`image_page`] makes them; a page it leaves as stored (page 0, a
/// page without a key version that is not compressed, a failure) is the
/// stored bytes.
struct Decrypt {
    key: SpaceKey,
    layout: Layout,
    size: usize,
}

impl Transform for Decrypt {
    fn may_change(&self, n: PageNo, stored: &[u8]) -> bool {
        n.0 != 0
            && stored.len() == self.size
            && (key_version(stored, self.key.full_crc32) != 0 || self.layout.is_compressed(stored))
    }

    fn apply(&self, n: PageNo, stored: &[u8], out: &mut [u8], scratch: &mut SourceScratch) {
        let SourceScratch { buf, codec } = scratch;
        let _ = image_page(&self.key, self.layout, n, stored, out, (buf, codec), None);
    }
}

/// One page of the image: decrypted if it has a key version, then
/// decompressed if page_compressed. `to` is as long as `from`; `scratch`
/// the thread's buffers. `Ok((decrypted, decompressed))`; on error `to`
/// holds the physical page.
fn image_page(
    key: &SpaceKey,
    layout: Layout,
    page: PageNo,
    from: &[u8],
    to: &mut [u8],
    (buf, codec): (&mut pagecomp::PageOut, &mut pagecomp::Scratch),
    stored: Option<Verdict>,
) -> Result<(bool, bool), ImageFailureKind> {
    if page.0 == 0 || to.len() != from.len() {
        copy(to, from);
        return Ok((false, false));
    }
    let decrypted = match key.decrypt_judged(from, to, stored) {
        Ok(d) => d,
        Err(e) => {
            copy(to, from);
            return Err(ImageFailureKind::Crypt(e));
        }
    };
    if !layout.is_compressed(to) {
        return Ok((decrypted, false));
    }
    match pagecomp::decompress_with(to, layout, buf, codec) {
        Ok(Some(_)) if buf.bytes().len() == to.len() => {
            to.copy_from_slice(buf.bytes());
            wipe(buf.allocation());
            Ok((decrypted, true))
        }
        Ok(_) => Ok((decrypted, false)),
        Err(e) => {
            wipe(buf.allocation());
            copy(to, from);
            let not_decoded = matches!(
                e.kind,
                ErrorKind::PageComp(PageCompErrorKind::NotDecoded(_))
            );
            Err(if decrypted && !not_decoded {
                // A page that decrypts into a stream that does not inflate.
                ImageFailureKind::Crypt(page_err(
                    PageCryptErrorKind::WrongKey,
                    e.page_offset().unwrap_or(0),
                ))
            } else {
                ImageFailureKind::Decompress(e)
            })
        }
    }
}

fn copy(to: &mut [u8], from: &[u8]) {
    if to.len() == from.len() {
        to.copy_from_slice(from);
    }
}

/// The verdict the server gives a page it reads with `key`: decrypted, then
/// decompressed if page_compressed, then its own checksum (`verify_page`
/// under `scheme`), as `buf_page_t::read_complete` does after
/// `buf_page_decrypt_after_read`. For the pages whose stored bytes carry no
/// checksum the server checks before decryption (outside full_crc32, a
/// page_compressed encrypted page, type 37401). `to` and `buf` are scratch
/// buffers, reused.
pub fn decrypted_verdict(
    key: &SpaceKey,
    ts: &Tablespace<'_>,
    page: PageNo,
    to: &mut Vec<u8>,
    buf: &mut pagecomp::PageOut,
) -> Result<Verdict, ImageFailureKind> {
    let Some(from) = ts.page(page) else {
        return Err(ImageFailureKind::Crypt(page_err(
            PageCryptErrorKind::Size,
            0,
        )));
    };
    to.clear();
    to.resize(from.len(), 0);
    let mut scratch = Scratch {
        buf: core::mem::take(buf),
        codec: crate::pagecomp::Scratch::new(),
    };
    let r = image_page(key, Layout::of(ts), page, from, to, scratch.parts(), None);
    *buf = core::mem::take(&mut scratch.buf);
    let verdict = r.map(|_| crate::space::verify_page(to, ts.scheme()));
    wipe(to);
    verdict
}

/// Which cipher (`file_key_management_encryption_algorithm`, which the
/// file does not record) the space was written with: both are tried on
/// the first encrypted pages (at most 16) that one of them verifies
/// (decrypted, checked and, when page_compressed, decompressed). `None`:
/// neither verifies any page, so the key is wrong (or no page is
/// encrypted).
pub fn detect_cipher(
    ts: &Tablespace<'_>,
    keys: &KeyFile,
    crypt: &CryptData,
) -> Result<Option<Cipher>, Error> {
    const TRIES: usize = 16;
    let cbc = space_key(ts, keys, crypt, Cipher::Cbc)?;
    let ctr = space_key(ts, keys, crypt, Cipher::Ctr)?;
    let layout = Layout::of(ts);
    let full = ts.scheme() == Scheme::FullCrc32;
    let size = ts.page_size() as usize;
    let mut to = vec![0u8; size];
    let mut scratch = Scratch {
        buf: pagecomp::PageOut::new(),
        codec: crate::pagecomp::Scratch::new(),
    };
    let encrypted = (1..ts.n_pages())
        .map(PageNo)
        .filter(|&n| !ts.is_known_zero(n))
        .filter_map(|n| ts.page(n).map(|p| (n, p)))
        .filter(|(_, p)| key_version(p, full) != 0)
        .take(TRIES);
    let mut found = None;
    for (n, page) in encrypted {
        for (cipher, key) in [(Cipher::Cbc, &cbc), (Cipher::Ctr, &ctr)] {
            if image_page(key, layout, n, page, &mut to, scratch.parts(), None).is_ok() {
                found = Some(cipher);
                break;
            }
        }
        if found.is_some() {
            break;
        }
    }
    wipe(&mut to);
    Ok(found)
}

/// What `check` with the key found by decrypting every encrypted page
/// ([`keyed_summary`]).
#[derive(Debug, Default)]
#[non_exhaustive]
pub struct KeyedCheck {
    /// Pages decrypted (each then judged as the server judges it).
    pub decrypted: u32,
    /// Pages that did not pass, in page order: not decrypted, or not
    /// decompressed (`Err`), or, for a page whose stored bytes carry no
    /// checksum the server checks before decrypting it, decrypted but not
    /// verifying with its own checksum (`Ok`, the verdict).
    pub failures: Vec<(PageNo, Result<Verdict, ImageFailureKind>)>,
}

/// The buffers one thread of [`keyed_summary`] reuses: the decrypted page
/// and the decompression scratch, wiped when dropped.
#[derive(Default)]
struct KeyedState {
    plain: Vec<u8>,
    scratch: Scratch,
}

impl Drop for KeyedState {
    fn drop(&mut self) {
        wipe(&mut self.plain);
    }
}

/// The fold of [`keyed_summary`]: the summary's fold, and each encrypted
/// page decrypted and judged beside it.
struct KeyedFold<'t, 'a, 'k> {
    fold: SummaryFold<'t, 'a>,
    key: &'k SpaceKey,
    scheme: Scheme,
    layout: Layout,
    check: KeyedCheck,
}

impl StateFold for KeyedFold<'_, '_, '_> {
    type State = KeyedState;

    fn page(&mut self, state: &mut KeyedState, n: PageNo, page: &[u8]) {
        let mut f = page_facts(page, n, self.scheme);
        // A page whose stored checksum fails is not decrypted (the server
        // refuses it; the summary names it), nor is page 0 (never
        // encrypted) or a page without a key version.
        let judged = !matches!(
            f.verdict,
            Verdict::Mismatch | Verdict::BadCompressedSize | Verdict::Empty
        );
        if judged && n.0 != 0 && key_version(page, self.key.full_crc32) != 0 {
            if state.plain.len() != page.len() {
                state.plain.clear();
                state.plain.resize(page.len(), 0);
            }
            let (plain, scratch) = (&mut state.plain, &mut state.scratch);
            let stored = (self.scheme == Scheme::FullCrc32).then_some(f.verdict);
            match image_page(
                self.key,
                self.layout,
                n,
                page,
                plain,
                scratch.parts(),
                stored,
            ) {
                Ok((decrypted, _)) => {
                    self.check.decrypted =
                        self.check.decrypted.saturating_add(u32::from(decrypted));
                    if f.verdict == Verdict::Unverifiable(Unverifiable::Encrypted) {
                        match crate::space::verify_page(plain, self.scheme) {
                            v @ (Verdict::Valid(_) | Verdict::Empty) => f.verdict = v,
                            v => self.check.failures.push((n, Ok(v))),
                        }
                    }
                }
                Err(e) => self.check.failures.push((n, Err(e))),
            }
        }
        self.fold.add(f);
    }

    /// An all-zero page is never decrypted: the summary's step alone.
    fn zero_run(&mut self, _: &mut KeyedState, first: PageNo, count: u32, _: &[u8]) {
        self.fold.zero_run(first, count);
    }

    fn append(&mut self, next: Self) {
        PageFold::append(&mut self.fold, next.fold);
        self.check.decrypted = self.check.decrypted.saturating_add(next.check.decrypted);
        self.check.failures.extend(next.check.failures);
    }
}

/// `check` with the key: the one-pass [`Summary`] of `ts` (as
/// [`Summary::of`]) and, in the same pass on the engine's threads, every
/// page with a key version whose stored checksum does not fail decrypted
/// into a buffer of its thread and judged as the server judges it after
/// reading it (`buf_page_decrypt_after_read`): the check of
/// [`SpaceKey::decrypt_page`], then decompression when page_compressed,
/// then, for a page whose stored bytes carry no checksum the server
/// checks before decrypting it (outside full_crc32, a page_compressed
/// encrypted page, type 37401), its own checksum: such a page that
/// verifies counts in the summary as verified (or empty) instead of
/// unverifiable. Pages that do not pass are listed in [`KeyedCheck`]; the
/// summary keeps their stored verdict. Nothing is allocated per page.
pub fn keyed_summary(
    ts: &Tablespace<'_>,
    engine: &Engine<'_>,
    key: &SpaceKey,
) -> (Summary, KeyedCheck) {
    let (scheme, layout) = (ts.scheme(), Layout::of(ts));
    let new = || KeyedFold {
        fold: SummaryFold::new(ts),
        key,
        scheme,
        layout,
        check: KeyedCheck::default(),
    };
    let done = fold_pages_with_state(ts, engine, KeyedState::default, new);
    let mut summary = done.fold.summary;
    summary.file_findings = crate::summary::file_findings(ts);
    summary.judge(ts);
    (summary, done.check)
}

/// One shard's result: pages decrypted, decompressed, failures, and with
/// [`try_decrypt_with_summary`] the summary's fold of the shard's pages.
#[derive(Default)]
struct ShardResult<'t, 'a> {
    decrypted: u32,
    decompressed: u32,
    failures: Vec<ImageFailure>,
    /// The index root candidates of the pages as they read.
    roots: Vec<(u16, PageNo)>,
    /// What the later passes need of each page ([`crate::facts`]).
    facts: crate::facts::FactsShard,
    summary: ShardSummary<'t, 'a>,
}

/// Reads the whole space once on the engine's threads (shards of whole
/// extents, as [`pagecomp::expand`] does), every encrypted page decrypted
/// and every page_compressed page decompressed after it into a buffer of
/// the thread's, to count them and name the pages that fail; the returned
/// [`Decryption`] reads the space decrypted with `key` without an image
/// ([`Decryption::tablespace`]). `Option` for the callers that allocated
/// an image once; none is made now. The engine's image release hook, if
/// set, gets the stored pages as they are read
/// ([`Engine::with_image_release`]).
pub fn try_decrypt(ts: &Tablespace<'_>, engine: &Engine<'_>, key: SpaceKey) -> Option<Decryption> {
    decrypt_space(ts, engine, key, false).map(|(d, _)| d)
}

/// [`try_decrypt`], making in the same pass the [`Summary`] of the stored
/// pages as [`keyed_summary`] makes it (the same on any number of
/// threads): [`Summary::of`]'s, except that a page whose stored bytes
/// carry no checksum the server checks before decrypting it (outside
/// full_crc32, a page_compressed encrypted page) counts as verified (or
/// empty) when its decrypted image verifies. The structure commands need
/// both, and each page is read once (under full_crc32 its stored
/// checksum, the check the server makes before decrypting it, is computed
/// once for both).
pub fn try_decrypt_with_summary(
    ts: &Tablespace<'_>,
    engine: &Engine<'_>,
    key: SpaceKey,
) -> Option<(Decryption, Summary)> {
    let (d, s) = decrypt_space(ts, engine, key, true)?;
    Some((d, s.unwrap_or_default()))
}

fn decrypt_space<'t, 'a>(
    ts: &'t Tablespace<'a>,
    engine: &Engine<'_>,
    key: SpaceKey,
    summarize: bool,
) -> Option<(Decryption, Option<Summary>)> {
    let size = (ts.page_size() as usize).max(1);
    let (layout, scheme) = (Layout::of(ts), ts.scheme());
    let shard = crate::parallel::shard_pages(ts).max(1);
    let new_buf = || Scratch {
        buf: pagecomp::PageOut::new(),
        codec: crate::pagecomp::Scratch::new(),
    };
    let page = |buf: &mut Scratch,
                r: &mut ShardResult<'t, 'a>,
                page: PageNo,
                from: &[u8],
                to: &mut [u8]| {
        let facts = summarize.then(|| page_facts(from, page, scheme));
        let stored = facts
            .as_ref()
            .filter(|_| scheme == Scheme::FullCrc32)
            .map(|f| f.verdict);
        let imaged = image_page(&key, layout, page, from, to, buf.parts(), stored);
        match imaged {
            Ok((d, c)) => {
                r.decrypted = r.decrypted.saturating_add(u32::from(d));
                r.decompressed = r.decompressed.saturating_add(u32::from(c));
            }
            Err(kind) => r.failures.push(ImageFailure { page, kind }),
        }
        r.roots.extend(crate::extents::root_candidate(ts, page, to));
        r.facts.page(ts, page, to);
        if let Some(mut f) = facts {
            // As `keyed_summary`: a page that carries no checksum the
            // server checks before decrypting it counts as verified (or
            // empty) when its decrypted image verifies.
            if imaged.is_ok() && f.verdict == Verdict::Unverifiable(Unverifiable::Encrypted) {
                if let v @ (Verdict::Valid(_) | Verdict::Empty) =
                    crate::space::verify_page(to, scheme)
                {
                    f.verdict = v;
                }
            }
            r.summary.add(ts, shard, f, None);
        }
    };
    let mut results = crate::parallel::transform_pass(ts, engine, new_buf, page);
    let source = Decrypt { key, layout, size };
    let mut roots = Vec::new();
    let mut facts = Vec::with_capacity(results.len());
    for r in &mut results {
        roots.append(&mut r.roots);
        facts.push(std::mem::take(&mut r.facts));
    }
    let facts = crate::facts::Facts::join(ts.n_pages(), facts.into_iter());
    let mut d = Decryption {
        source: PageSource::new(Box::new(source), ts.page_size(), ts.n_pages())
            .with_roots(roots)
            .with_facts(facts.map(crate::facts::Facts::boxed)),
        decrypted: 0,
        decompressed: 0,
        failures: Vec::new(),
    };
    let mut parts = Vec::with_capacity(if summarize { results.len() } else { 0 });
    for mut r in results {
        d.decrypted = d.decrypted.saturating_add(r.decrypted);
        d.decompressed = d.decompressed.saturating_add(r.decompressed);
        d.failures.append(&mut r.failures);
        if summarize {
            parts.push(r.summary);
        }
    }
    let summary = if summarize {
        crate::summary::join_shards(ts, shard, parts.into_iter())
    } else {
        None
    };
    Some((d, summary))
}

#[cfg(test)]
mod tests;
