//! The keyring parsers (crates/ibdscope/src/crypt/keyring.rs and
//! keyring/json.rs) on arbitrary bytes: the `keyring_file` plugin's data
//! file in both versions and every word size, and the component's JSON.
//! None may panic; every record walk ends within the file.
//!
//! The first input byte is a control byte: 0 feeds the rest as it is, 1
//! behind a "Keyring file version:2.0" header with the rest's SHA-256
//! appended after "EOF" (so that mutations reach the records with a
//! matching digest), 2 the same as version 1.0 (no digest), 3 inside a
//! JSON `elements` array. When a keyring parses, each key's master key
//! name and bytes go through `crypt::mysql::tablespace_key` against a
//! made-up encryption info (every branch: found, missing, wrong key).

#![no_main]

use ibdscope_core::crypt::keyring::Keyring;
use ibdscope_core::crypt::mysql::{tablespace_key, EncryptionInfo};
use ibdscope_prims::sha256::sha256;
use libfuzzer_sys::fuzz_target;
use std::hint::black_box;

fuzz_target!(|data: &[u8]| {
    let Some((&control, rest)) = data.split_first() else {
        return;
    };
    let bytes: Vec<u8> = match control % 4 {
        1 | 2 => {
            let v2 = control % 4 == 1;
            let mut f = if v2 {
                b"Keyring file version:2.0".to_vec()
            } else {
                b"Keyring file version:1.0".to_vec()
            };
            f.extend_from_slice(rest);
            f.extend_from_slice(b"EOF");
            if v2 {
                f.extend_from_slice(&sha256(rest));
            }
            f
        }
        3 => {
            let mut f = br#"{"version":"1.0","elements":["#.to_vec();
            f.extend_from_slice(rest);
            f.extend_from_slice(b"]}");
            f
        }
        _ => rest.to_vec(),
    };
    let Ok(k) = Keyring::parse(&bytes) else {
        return;
    };
    black_box((k.format, k.digest_ok, format!("{k:?}")));
    // A 16K page 0 whose encryption information names the first key (by
    // its id's uuid part when it has the InnoDB form), with the input's
    // first bytes as the wrapped key and checksum.
    let mut page0 = vec![0u8; 16384];
    let at = 10390;
    page0[at..at + 3].copy_from_slice(b"lCC");
    page0[at + 3..at + 7].copy_from_slice(&1u32.to_be_bytes());
    if let Some(key) = k.keys.first() {
        let uuid = key
            .id
            .strip_prefix("INNODBKey-")
            .and_then(|r| r.rsplit_once('-'))
            .map_or("", |(u, _)| u);
        let n = uuid.len().min(36);
        page0[at + 7..at + 7 + n].copy_from_slice(&uuid.as_bytes()[..n]);
    }
    let n = rest.len().min(68);
    page0[at + 43..at + 43 + n].copy_from_slice(&rest[..n]);
    if let Some(info) = EncryptionInfo::read_page0(&page0, 16384, 16384) {
        black_box(info.master_key_name());
        match tablespace_key(&info, &k) {
            Ok(key) => black_box(format!("{key:?}")),
            Err(e) => black_box(e.to_string()),
        };
    }
});
