//! The `component_keyring_file` JSON file (MySQL 8.0.24+,
//! `components/keyrings/common/json_data/json_reader.cc`): read with the
//! crate's JSON reader (`ibdscope_prims::json`, nesting at most [`MAX_DEPTH`] deep),
//! then the schema the component validates.
//!
//! Key text: the reader sizes every string before filling it, clears what
//! it read when it gives up, and the document is cleared once its keys are
//! taken; the key bytes go into a buffer sized once.

use super::{err, Keyring, KeyringFormat, KeyringKey, Secret};
use crate::error::Error;
use ibdscope_prims::json::Value;
use ibdscope_prims::wipe::wipe;

/// Deepest nesting read (the component's files nest three deep).
const MAX_DEPTH: u32 = 32;

/// Hexadecimal digits to bytes (`unhex_string`): pairs of digits, either
/// case. The result is sized once; on a bad digit what was decoded is
/// cleared.
fn unhex(s: &str) -> Option<Vec<u8>> {
    let b = s.as_bytes();
    if !b.len().is_multiple_of(2) {
        return None;
    }
    let mut out = Vec::with_capacity(b.len() / 2);
    for p in b.chunks_exact(2) {
        let byte = match p {
            [hi, lo] => char::from(*hi)
                .to_digit(16)
                .zip(char::from(*lo).to_digit(16))
                .and_then(|(hi, lo)| u8::try_from((hi << 4) | lo).ok()),
            _ => None,
        };
        match byte {
            Some(v) => out.push(v),
            None => {
                wipe(&mut out);
                return None;
            }
        }
    }
    Some(out)
}

/// The component's file: the document, then each element by the schema
/// `json_reader.cc` validates (`user`, `data_id`, `data_type`, `data` are
/// strings, all required).
pub(super) fn parse(bytes: &[u8]) -> Result<Keyring, Error> {
    let mut doc = match ibdscope_prims::json::parse_secret(bytes, MAX_DEPTH, wipe) {
        Ok(doc) => doc,
        Err(e) => return err(e.offset, e.what),
    };
    let keyring = keys(&doc);
    doc.scrub(wipe);
    keyring
}

/// The keys of the document, by the component's schema.
fn keys(doc: &Value) -> Result<Keyring, Error> {
    if doc.get("version").and_then(Value::as_str).is_none() {
        return err(0, "the JSON keyring has no \"version\" string");
    }
    let Some(elements) = doc.get("elements").and_then(Value::as_array) else {
        return err(0, "the JSON keyring has no \"elements\" array");
    };
    let mut keys = Vec::with_capacity(elements.len());
    for e in elements {
        let field = |k: &str| e.get(k).and_then(Value::as_str);
        let (Some(user), Some(id), Some(ty), Some(data)) = (
            field("user"),
            field("data_id"),
            field("data_type"),
            field("data"),
        ) else {
            return err(
                0,
                "a JSON keyring element lacks user, data_id, data_type or data",
            );
        };
        let Some(bytes) = unhex(data) else {
            return err(0, "a JSON keyring element's data is not hexadecimal");
        };
        keys.push(KeyringKey {
            id: id.to_owned(),
            key_type: ty.to_owned(),
            user: user.to_owned(),
            data: Secret::new(bytes),
        });
    }
    Ok(Keyring {
        format: KeyringFormat::ComponentJson,
        digest_ok: true,
        keys,
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    #[test]
    fn key_bytes_are_decoded_into_one_buffer_sized_once() {
        // 24 bytes (AES-192): a buffer that grew would hold 32
        let hex = "000102030405060708090A0B0C0D0E0F1011121314151617";
        let b = super::unhex(hex).unwrap();
        assert_eq!(b, (0..24).collect::<Vec<u8>>());
        assert_eq!(b.capacity(), 24);
        assert!(super::unhex("0g").is_none());
        assert!(super::unhex("001").is_none());
    }
}
