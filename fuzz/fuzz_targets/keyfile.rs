//! MariaDB `file_key_management` key files
//! (`ibdscope_core::crypt::mariadb::KeyFile`): arbitrary bytes parsed as a
//! plain key file, as an encrypted one (the input behind a `Salted__`
//! header, with the TEST password), and as a `FILE:` password file; and,
//! with keys that parse, one page decrypted under both layouts and both
//! ciphers. None may panic or run unbounded; what parses holds key 1 and
//! only 16-, 24- and 32-byte keys; an error names a line and column inside
//! the input.
//!
//! The first input byte is a control byte: bit 0 set puts the rest behind
//! `Salted__` and an 8-byte salt taken from its start.

#![no_main]

use ibdscope_core::crypt::mariadb::{
    password_from_file, Cipher, CryptData, KeyFile, KeyFileProblem, SpaceKey,
};
use ibdscope_core::{Error, ErrorKind};
use libfuzzer_sys::fuzz_target;
use std::hint::black_box;

fn check(parsed: Result<KeyFile, Error>, input: &[u8]) {
    match parsed {
        Ok(kf) => {
            assert!(kf.key(1).is_some());
            for id in kf.ids() {
                let n = kf.key(id).map(|k| k.bytes().len());
                assert!(matches!(n, Some(16 | 24 | 32)), "{n:?}");
            }
            black_box(format!("{kf:?}"));
            decrypt_a_page(&kf, input);
        }
        Err(e) => {
            if let ErrorKind::KeyFile(
                KeyFileProblem::Syntax { line, column }
                | KeyFileProblem::InvalidKeyId { line, column }
                | KeyFileProblem::InvalidKey { line, column },
            ) = e.kind
            {
                assert!(line >= 1 && (line as usize) <= input.len() + 1);
                assert!(column >= 1 && column <= input.len() + 1);
            }
            black_box(e.to_string());
        }
    }
}

fn decrypt_a_page(kf: &KeyFile, input: &[u8]) {
    let mut page = input.to_vec();
    page.resize(16384, 0xA5);
    let crypt = CryptData {
        offset: 0,
        scheme: 1,
        iv: [7; 16],
        min_key_version: 1,
        key_id: 1,
        encryption: 1,
    };
    let mut out = vec![0u8; page.len()];
    for cipher in [Cipher::Cbc, Cipher::Ctr] {
        for full in [false, true] {
            if let Ok(key) = SpaceKey::new(kf, &crypt, cipher, full, 5) {
                if let Err(e) = key.decrypt_page(&page, &mut out) {
                    // A place within the page, when the error names one.
                    if let ibdscope_core::Place::Page { page_offset, .. } = e.place {
                        assert!(page_offset <= page.len());
                    }
                    black_box(e.to_string());
                }
            }
        }
    }
}

fuzz_target!(|input: &[u8]| {
    let Some((&ctl, rest)) = input.split_first() else {
        return;
    };
    if ctl & 1 != 0 {
        let mut enc = b"Salted__".to_vec();
        enc.extend_from_slice(rest);
        check(KeyFile::parse(&enc, b"ibdscope-TEST-password"), rest);
        check(KeyFile::parse(&enc, b""), rest);
    } else {
        check(KeyFile::parse(rest, b""), rest);
        black_box(KeyFile::parse(rest, b"x").is_ok());
    }
    if let Ok(pw) = password_from_file(rest) {
        assert!(pw.bytes().len() <= 256);
        assert!(!pw.bytes().contains(&0));
    }
});
