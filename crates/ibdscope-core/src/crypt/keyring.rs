//! MySQL keyrings, as the files hold them: the `keyring_file` plugin's data
//! file (MySQL 5.7.11+, Percona Server; `plugin/keyring/`) and the
//! `component_keyring_file` JSON file (MySQL 8.0.24+;
//! `components/keyrings/`). Parsing only: the caller reads the file and
//! wipes its bytes (`ibdscope_prims::wipe`); every key read here is
//! held in a [`Secret`], wiped when dropped and never shown by `Debug`.
//!
//! The plugin's file (`buffered_file_io.cc`, `checker/checker*.cc`,
//! `common/keyring_key.cc`):
//!
//! ```text
//! "Keyring file version:2.0"   24 bytes ("…:1.0" in 5.7 before the digest)
//! key records                  a multiple of the word size
//! "EOF"                        3 bytes
//! SHA-256 of the key records   32 bytes (version 2.0 only)
//! ```
//!
//! Each record is five word-sized lengths (the writer's `size_t`: pod size,
//! key id, key type, user id, key data), then the key id, key type, user id
//! and key data bytes, zero-padded to a multiple of the word size; the pod
//! size is the whole record. The word size and byte order are the writing
//! machine's: the plugin detects them (`Checker::detect_architecture`:
//! little-endian 64, 32, big-endian 64, 32, the first under which every
//! record's lengths add up and the records end exactly at "EOF"), and so
//! does [`Keyring::parse`]. Key data is stored XORed with the repeated
//! string `*305=Ljt0*!@$Hnm(*-9-w;:` (`Key::xor_data`, applied by
//! `mysql_key_store` before storing and `mysql_key_fetch` after fetching),
//! which [`Keyring::parse`] undoes.
//!
//! The component's file (`json_data/json_writer.cc`, `json_reader.cc`) is
//! `{"version": "1.0", "elements": [{"user", "data_id", "data_type",
//! "data", "extension"}…]}` with `data` the key bytes in hexadecimal.

use crate::error::Error;
use core::fmt;
use ibdscope_prims::sha256::sha256;
use ibdscope_prims::wipe::wipe;

/// Key bytes: wiped (volatile writes) when dropped; `Debug` shows the
/// length only.
#[derive(Default)]
pub struct Secret(Vec<u8>);

impl Secret {
    /// Takes `bytes` (the caller should not keep another copy).
    pub fn new(bytes: Vec<u8>) -> Secret {
        Secret(bytes)
    }
    /// The bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.0
    }
    pub(crate) fn bytes_mut(&mut self) -> &mut [u8] {
        &mut self.0
    }
}

impl Drop for Secret {
    fn drop(&mut self) {
        wipe(&mut self.0);
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Secret({} bytes)", self.0.len())
    }
}

/// One key of a keyring.
#[derive(Debug)]
#[non_exhaustive]
pub struct KeyringKey {
    /// The key id (InnoDB's master keys: `INNODBKey-<server uuid>-<n>`).
    pub id: String,
    /// The key type (`AES`, `RSA`, `DSA`, `SECRET`).
    pub key_type: String,
    /// The user id (empty for the server's own keys).
    pub user: String,
    /// The key bytes, de-obfuscated.
    pub data: Secret,
}

/// Which file a keyring came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum KeyringFormat {
    /// `keyring_file` plugin, "Keyring file version:1.0" (no digest).
    PluginV1,
    /// `keyring_file` plugin, "Keyring file version:2.0" (SHA-256 digest).
    PluginV2,
    /// `component_keyring_file` JSON.
    ComponentJson,
}

/// A parsed keyring.
#[derive(Debug)]
#[non_exhaustive]
pub struct Keyring {
    /// The file's format.
    pub format: KeyringFormat,
    /// For [`KeyringFormat::PluginV2`]: whether the stored SHA-256 digest
    /// matches the key records. The server itself does not check it when
    /// it loads the file (`CheckerVer_2_0::is_dgst_correct` adopts the
    /// file's digest on first load), so a mismatch is reported, not
    /// refused. `true` for the other formats.
    pub digest_ok: bool,
    /// The keys, in file order.
    pub keys: Vec<KeyringKey>,
}

/// A keyring file that cannot be parsed: what is wrong, at byte `offset`.
fn err<T>(offset: usize, what: &'static str) -> Result<T, Error> {
    Err(Error::keyring(offset, what))
}

/// The plugin's file headers (`checker/checker.h`).
const VERSION_1: &[u8] = b"Keyring file version:1.0";
const VERSION_2: &[u8] = b"Keyring file version:2.0";
/// The tag after the records (`Checker::eofTAG`).
const EOF_TAG: &[u8] = b"EOF";
/// The obfuscation string (`Key::xor_data`).
const OBFUSCATE: &[u8] = b"*305=Ljt0*!@$Hnm(*-9-w;:";

/// How the writer stored its `size_t` lengths.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Arch {
    Le64,
    Le32,
    Be64,
    Be32,
}

impl Arch {
    fn width(self) -> usize {
        match self {
            Arch::Le64 | Arch::Be64 => 8,
            Arch::Le32 | Arch::Be32 => 4,
        }
    }
    /// The word at `at`, `None` past the end or above `usize`.
    fn word(self, buf: &[u8], at: usize) -> Option<usize> {
        let b = buf.get(at..at.checked_add(self.width())?)?;
        let v = match self {
            Arch::Le64 => u64::from_le_bytes(b.try_into().ok()?),
            Arch::Be64 => u64::from_be_bytes(b.try_into().ok()?),
            Arch::Le32 => u64::from(u32::from_le_bytes(b.try_into().ok()?)),
            Arch::Be32 => u64::from(u32::from_be_bytes(b.try_into().ok()?)),
        };
        usize::try_from(v).ok()
    }
    /// The five lengths of the record at `at`.
    fn lengths(self, buf: &[u8], at: usize) -> Option<[usize; 5]> {
        let w = self.width();
        let mut l = [0usize; 5];
        let mut pos = at;
        for x in l.iter_mut() {
            *x = self.word(buf, pos)?;
            pos = pos.checked_add(w)?;
        }
        Some(l)
    }
}

/// Whether every record of `records` adds up under `arch`
/// (`Checker::detect_architecture`): the pod size a multiple of the word,
/// the five lengths plus the four fields within one word of padding of it,
/// and the last record ending at the end.
fn fits(arch: Arch, records: &[u8]) -> bool {
    let w = arch.width();
    let mut at = 0usize;
    // Each record is at least five words long: the walk is bounded.
    while at < records.len() {
        let Some([pod, a, b, c, d]) = arch.lengths(records, at) else {
            return false;
        };
        let total = [a, b, c, d]
            .iter()
            .try_fold(w.saturating_mul(5), |s, &x| s.checked_add(x));
        let Some(total) = total else {
            return false;
        };
        if !pod.is_multiple_of(w) || total > pod || total.saturating_add(w) < pod {
            return false;
        }
        let Some(next) = at.checked_add(pod).filter(|&n| n <= records.len()) else {
            return false;
        };
        at = next;
    }
    true
}

fn text(bytes: &[u8], offset: usize) -> Result<String, Error> {
    match core::str::from_utf8(bytes) {
        Ok(s) => Ok(s.to_owned()),
        Err(_) => err(offset, "a key id, type or user id is not UTF-8"),
    }
}

/// One record at `at` of `records` (`Key::load_from_buffer`), its key
/// data de-obfuscated; `base` is the records' offset in the file.
fn record(arch: Arch, records: &[u8], at: usize, base: usize) -> Result<KeyringKey, Error> {
    let here = base.saturating_add(at);
    let Some([pod, id_len, type_len, user_len, key_len]) = arch.lengths(records, at) else {
        return err(here, "a key record is cut short");
    };
    let end = at.saturating_add(pod).min(records.len());
    let rec = records.get(at..end).unwrap_or(&[]);
    let mut pos = arch.width().saturating_mul(5);
    let mut field = |len: usize| -> Result<&[u8], Error> {
        let f = pos
            .checked_add(len)
            .and_then(|e| rec.get(pos..e))
            .ok_or(Error::keyring(
                here.saturating_add(pos),
                "a key record's field runs past its pod size",
            ))?;
        pos = pos.saturating_add(len);
        Ok(f)
    };
    let id = field(id_len)?;
    let key_type = field(type_len)?;
    let user = field(user_len)?;
    let data = field(key_len)?;
    let mut key: Vec<u8> = data.to_vec();
    for (b, o) in key.iter_mut().zip(OBFUSCATE.iter().cycle()) {
        *b ^= o;
    }
    let data = Secret::new(key);
    let ids_at = here.saturating_add(arch.width().saturating_mul(5));
    Ok(KeyringKey {
        id: text(id, ids_at)?,
        key_type: text(key_type, ids_at)?,
        user: text(user, ids_at)?,
        data,
    })
}

/// The plugin's file, version 1.0 or 2.0.
fn parse_plugin(bytes: &[u8], v2: bool) -> Result<Keyring, Error> {
    let digest_len = if v2 { 32 } else { 0 };
    let head = VERSION_2.len();
    let tail = EOF_TAG.len().saturating_add(digest_len);
    let Some(end) = bytes.len().checked_sub(tail).filter(|&e| e >= head) else {
        return err(bytes.len(), "the file ends before its EOF tag");
    };
    if bytes.get(end..end.saturating_add(EOF_TAG.len())) != Some(EOF_TAG) {
        return err(end, "no EOF tag where the file's size puts it");
    }
    let records = bytes.get(head..end).unwrap_or(&[]);
    let digest_ok =
        !v2 || bytes.get(end.saturating_add(EOF_TAG.len())..) == Some(&sha256(records)[..]);
    let arch = [Arch::Le64, Arch::Le32, Arch::Be64, Arch::Be32]
        .into_iter()
        .find(|&a| records.len().is_multiple_of(a.width()) && fits(a, records));
    let Some(arch) = arch else {
        return err(
            head,
            "the key records' lengths do not add up under any word size",
        );
    };
    let mut keys = Vec::new();
    let mut at = 0usize;
    while at < records.len() {
        keys.push(record(arch, records, at, head)?);
        let pod = arch.word(records, at).unwrap_or(records.len());
        at = at.saturating_add(pod.max(1));
    }
    Ok(Keyring {
        format: if v2 {
            KeyringFormat::PluginV2
        } else {
            KeyringFormat::PluginV1
        },
        digest_ok,
        keys,
    })
}

impl Keyring {
    /// Parses a keyring file: the plugin's (by its version header) or the
    /// component's JSON (first non-blank byte `{`).
    pub fn parse(bytes: &[u8]) -> Result<Keyring, Error> {
        if bytes.starts_with(VERSION_2) {
            return parse_plugin(bytes, true);
        }
        if bytes.starts_with(VERSION_1) {
            return parse_plugin(bytes, false);
        }
        if bytes.trim_ascii_start().first() == Some(&b'{') {
            return json::parse(bytes);
        }
        if bytes.is_empty() {
            return err(0, "the file is empty (a keyring with no keys)");
        }
        err(
            0,
            "not a keyring: neither \"Keyring file version:1.0/2.0\" nor a JSON object",
        )
    }

    /// The key named `id` with an empty user id (the server's own keys, as
    /// InnoDB fetches them), else the first key named `id`.
    pub fn get(&self, id: &str) -> Option<&KeyringKey> {
        self.keys
            .iter()
            .find(|k| k.id == id && k.user.is_empty())
            .or_else(|| self.keys.iter().find(|k| k.id == id))
    }
}

mod json;

#[cfg(test)]
#[allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    reason = "tests"
)]
mod tests;
