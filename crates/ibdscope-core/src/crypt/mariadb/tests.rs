#![allow(
    clippy::arithmetic_side_effects,
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic
)]

use super::*;

/// The key file problem of an error.
fn problem(e: Error) -> KeyFileProblem {
    match e.kind {
        crate::error::ErrorKind::KeyFile(p) => p,
        k => panic!("not a key file error: {k:?}"),
    }
}

fn keys_of(text: &str) -> Result<Vec<u32>, KeyFileProblem> {
    KeyFile::parse(text.as_bytes(), b"")
        .map(|k| k.ids().collect())
        .map_err(problem)
}

const K16: &str = "00112233445566778899AABBCCDDEEFF";

// The examples of parser.cc's header comment, and its rules line by line.
#[test]
fn key_file_lines_as_the_plugin_reads_them() {
    let text = "1;F5502320F8429037B8DAEF761B189D12\n\
                2;770A8A65DA156D24EE2A093277530142770A8A65DA156D24EE2A093277530142\n";
    let kf = KeyFile::parse(text.as_bytes(), b"").unwrap();
    assert_eq!(kf.ids().collect::<Vec<_>>(), [1, 2]);
    assert_eq!(kf.key(1).unwrap().bytes()[..2], [0xF5, 0x50]);
    assert_eq!(kf.key(2).unwrap().bytes().len(), 32);
    assert!(kf.key(3).is_none());
    // comments, blank lines, leading blanks, CRLF, junk after the key
    let ok = format!("# c\n\n  \t1;{K16}\r\n   # indented comment\n7;{K16} trailing words\n");
    assert_eq!(keys_of(&ok), Ok(vec![1, 7]));
    // the last line of an id wins
    let twice = format!("1;{K16}\n1;{}\n", "ab".repeat(24));
    let kf = KeyFile::parse(twice.as_bytes(), b"").unwrap();
    assert_eq!(kf.key(1).unwrap().bytes().len(), 24);
    // the text ends at the first NUL
    assert_eq!(keys_of(&format!("1;{K16}\n\0garbage")), Ok(vec![1]));
    // id 4294967295 is the largest
    assert_eq!(
        keys_of(&format!("1;{K16}\n4294967295;{K16}\n")),
        Ok(vec![1, u32::MAX])
    );
}

#[test]
fn key_file_errors_name_line_and_column() {
    use KeyFileProblem::*;
    assert_eq!(
        keys_of(&format!("1;{K16}\nx;{K16}\n")),
        Err(Syntax { line: 2, column: 1 })
    );
    assert_eq!(
        keys_of(&format!("1:{K16}\n")),
        Err(Syntax { line: 1, column: 2 })
    );
    assert_eq!(
        keys_of(&format!("0;{K16}\n")),
        Err(InvalidKeyId { line: 1, column: 2 })
    );
    assert_eq!(
        keys_of(&format!("4294967296;{K16}\n")),
        Err(InvalidKeyId {
            line: 1,
            column: 10
        })
    );
    // 15 bytes, 17 bytes, an odd digit, 33 bytes
    assert_eq!(
        keys_of(&format!("1;{}\n", &K16[..30])),
        Err(InvalidKey {
            line: 1,
            column: 33
        })
    );
    assert_eq!(
        keys_of(&format!("1;{K16}AB\n")),
        Err(InvalidKey {
            line: 1,
            column: 37
        })
    );
    assert_eq!(
        keys_of(&format!("1;{K16}A\n")),
        Err(InvalidKey {
            line: 1,
            column: 35
        })
    );
    assert_eq!(
        keys_of(&format!("1;{}{}\n", "00".repeat(32), "11")),
        Err(InvalidKey {
            line: 1,
            column: 67
        })
    );
    // blanks without a newline at the very end: the plugin's syntax error
    assert_eq!(
        keys_of(&format!("1;{K16}\n   ")),
        Err(Syntax { line: 2, column: 4 })
    );
    assert_eq!(keys_of(&format!("2;{K16}\n")), Err(NoKey1));
    assert_eq!(keys_of(""), Err(NoKey1));
    assert_eq!(
        KeyFile::parse(format!("1;{K16}\n").as_bytes(), b"pw")
            .err()
            .map(problem),
        Some(NotEncrypted)
    );
    // The crate's one error: the problem and its place, the same words.
    let e = KeyFile::parse(format!("1;{K16}\nx;{K16}\n").as_bytes(), b"").unwrap_err();
    assert_eq!(e.place, crate::error::Place::Line { line: 2, column: 1 });
    assert_eq!(e.to_string(), "syntax error at line 2, column 1");
}

// EVP_BytesToKey(SHA-1, 1 round) against OpenSSL 3.0.19:
// `openssl enc -aes-256-cbc -md sha1 -S <salt> -pass pass:<pw> -P`.
#[test]
fn bytes_to_key_matches_openssl() {
    let hex = |s: &str| -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    };
    let (k, iv) = bytes_to_key(
        &[0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77],
        b"ibdscope-TEST-password",
    );
    assert_eq!(
        k.to_vec(),
        hex("2D75FAF51CC7D966AE16CCFD0480589EFD0CCD388DCA2EC95FF1F20C1F7B2A0A")
    );
    assert_eq!(iv.to_vec(), hex("8830237B643E7554A705766FE99C8A71"));
    let (k, iv) = bytes_to_key(&[1, 2, 3, 4, 5, 6, 7, 8], b"");
    assert_eq!(
        k.to_vec(),
        hex("DD5783BCF1E9002BC00AD5B83A95ED6E4EBB4AD5B236D2280AD9A9E06FBF21F3")
    );
    assert_eq!(iv.to_vec(), hex("B857C362DDD4ABC8AA4FC10598D841C7"));
}

fn fixture(rel: &str) -> Vec<u8> {
    let p = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/");
    std::fs::read(format!("{p}{rel}")).unwrap()
}

// The TEST key file as openssl encrypted it (fixtures/gen/crypt.sh) reads
// as the plain one; a wrong password is refused, never garbage keys.
#[test]
fn the_encrypted_test_key_file_reads_as_the_plain_one() {
    let plain = KeyFile::parse(&fixture("keys/test-keys.txt"), b"").unwrap();
    let enc = fixture("keys/test-keys.enc");
    let pw = password_from_file(&fixture("keys/test-password.txt")).unwrap();
    let dec = KeyFile::parse(&enc, pw.bytes()).unwrap();
    assert_eq!(dec.ids().collect::<Vec<_>>(), [1, 2, 3]);
    for id in [1, 2, 3] {
        assert_eq!(plain.key(id).unwrap().bytes(), dec.key(id).unwrap().bytes());
    }
    assert_eq!(
        KeyFile::parse(&enc, b"not the password").err().map(problem),
        Some(KeyFileProblem::WrongPassword)
    );
    assert_eq!(
        KeyFile::parse(&enc[..enc.len() - 1], pw.bytes())
            .err()
            .map(problem),
        Some(KeyFileProblem::WrongPassword)
    );
    // Debug shows no key bytes
    let shown = format!("{dec:?} {:?}", dec.key(2).unwrap());
    assert_eq!(shown, "[1, 2, 3] Key(256 bits)");
}

#[test]
fn password_files_as_read_filekey_reads_them() {
    assert_eq!(
        password_from_file(b"secret\r\n\n").unwrap().bytes(),
        b"secret"
    );
    assert_eq!(password_from_file(b"se\0cret\n").unwrap().bytes(), b"se");
    assert_eq!(
        password_from_file(b"").err().map(problem),
        Some(KeyFileProblem::EmptyPassword)
    );
    let long = vec![b'x'; 257];
    assert_eq!(
        password_from_file(&long).err().map(problem),
        Some(KeyFileProblem::PasswordTooLong { limit: 256 })
    );
    let mut ok = vec![b'x'; 256];
    ok.push(b'\n');
    ok.extend_from_slice(b"ignored beyond 257 bytes");
    assert_eq!(password_from_file(&ok).unwrap().bytes().len(), 256);
}

// The page IV of do_crypt: int4store / int8store are little-endian.
#[test]
fn page_iv_is_little_endian_space_page_lsn() {
    let mut page = vec![0u8; 64];
    page[4..8].copy_from_slice(&0x0102_0304u32.to_be_bytes());
    page[16..24].copy_from_slice(&0x1122_3344_5566_7788u64.to_be_bytes());
    let iv = page_iv(0xA0B0_C0D0, &page);
    assert_eq!(
        iv,
        [
            0xD0, 0xC0, 0xB0, 0xA0, 0x04, 0x03, 0x02, 0x01, 0x88, 0x77, 0x66, 0x55, 0x44, 0x33,
            0x22, 0x11
        ]
    );
}

#[test]
fn damaged_key_files_never_panic() {
    let base = format!("# x\n1;{K16}\n2;{}\n", "cd".repeat(32));
    let enc = fixture("keys/test-keys.enc");
    for src in [base.as_bytes(), &enc[..]] {
        for i in 0..src.len() {
            for b in [0u8, b'\n', b'#', b';', b'9', b'f', 0xFF] {
                let mut m = src.to_vec();
                m[i] = b;
                let _ = KeyFile::parse(&m, b"");
                let _ = KeyFile::parse(&m, b"ibdscope-TEST-password");
                let _ = KeyFile::parse(&m[..i], b"");
            }
        }
    }
}

/// The rows of fixtures/crypt/manifest.tsv: (path, checksum, cipher, key
/// file, key file key, key id).
fn crypt_manifest() -> Vec<(String, String, String, String, String, u32)> {
    let text = String::from_utf8(fixture("crypt/manifest.tsv")).unwrap();
    let mut lines = text.lines();
    let head: Vec<&str> = lines.next().unwrap().split('\t').collect();
    let col = |name: &str| head.iter().position(|h| *h == name).unwrap();
    lines
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            (
                f[col("path")].to_string(),
                f[col("checksum_algorithm")].to_string(),
                f[col("encryption_algorithm")].to_string(),
                f[col("key_file")].to_string(),
                f[col("key_file_key")].to_string(),
                f[col("key_id")].parse().unwrap(),
            )
        })
        .collect()
}

fn manifest_keys(key_file: &str, key_file_key: &str) -> KeyFile {
    let pw = match key_file_key {
        "none" => Secret(Vec::new()),
        _ => password_from_file(&fixture("keys/test-password.txt")).unwrap(),
    };
    KeyFile::parse(&fixture(&format!("keys/{key_file}")), pw.bytes()).unwrap()
}

// Every encrypted fixture: page 0's crypt data names the key the server
// used (INNODB_TABLESPACES_ENCRYPTION.CURRENT_KEY_ID), the cipher found is
// the one the server ran with, and every page with a key version decrypts
// and verifies (and decompresses); pages of key version 0 are left as
// they are. The rows themselves are checked against the server's dumps in
// the report crate's tests.
#[test]
fn every_encrypted_fixture_decrypts_with_its_key() {
    let rows = crypt_manifest();
    assert!(rows.len() >= 12, "{} manifest rows", rows.len());
    for (path, checksum, cipher, key_file, key_file_key, key_id) in rows {
        let bytes = fixture(&format!("crypt/{path}"));
        let ts = Tablespace::new(&bytes).unwrap();
        assert_eq!(
            ts.scheme() == Scheme::FullCrc32,
            checksum == "full_crc32",
            "{path}"
        );
        let CryptDataRead::Present(crypt) = space_crypt_data(&ts) else {
            panic!("{path}: no crypt data");
        };
        assert_eq!((crypt.scheme, crypt.key_id), (1, key_id), "{path}");
        let keys = manifest_keys(&key_file, &key_file_key);
        let found = detect_cipher(&ts, &keys, &crypt).unwrap();
        assert_eq!(found.map(Cipher::name), Some(cipher.as_str()), "{path}");
        for threads in [1, 3] {
            let key = space_key(&ts, &keys, &crypt, found.unwrap()).unwrap();
            let d = try_decrypt(&ts, &Engine::new(threads), key).unwrap();
            assert_eq!(d.failures, [], "{path}");
            let full = checksum == "full_crc32";
            let with_version = ts
                .pages()
                .filter(|(n, p)| n.0 != 0 && key_version(p, full) != 0)
                .count();
            assert!(with_version >= 5, "{path}: {with_version}");
            assert_eq!(d.decrypted as usize, with_version, "{path}");
            assert_eq!(d.decompressed > 0, path.contains("pagecomp"), "{path}");
        }
    }
}

// A key file whose key of the space's id is another key: no cipher
// verifies, and every page with a key version fails as a wrong key (the
// image keeps the stored bytes: no garbage reaches a reader).
#[test]
fn a_wrong_key_is_named_and_decrypts_nothing() {
    for path in [
        "cbc/ai_int.ibd",
        "ctr/pagecomp.ibd",
        "crc32-cbc/ai_int.ibd",
        "crc32-ctr/pagecomp.ibd",
        "crc32-ctr/rtree.ibd",
    ] {
        let bytes = fixture(&format!("crypt/{path}"));
        let ts = Tablespace::new(&bytes).unwrap();
        let CryptDataRead::Present(crypt) = space_crypt_data(&ts) else {
            panic!("{path}");
        };
        // (K16 is the TEST key 1: another one here)
        let other = format!(
            "1;{}\n2;{}\n3;{}\n",
            "c3".repeat(16),
            "5a".repeat(32),
            "a5".repeat(24)
        );
        let keys = KeyFile::parse(other.as_bytes(), b"").unwrap();
        assert_eq!(detect_cipher(&ts, &keys, &crypt).unwrap(), None, "{path}");
        for cipher in [Cipher::Cbc, Cipher::Ctr] {
            let key = space_key(&ts, &keys, &crypt, cipher).unwrap();
            let d = try_decrypt(&ts, &Engine::default(), key).unwrap();
            let image = d.image(&ts);
            assert_eq!(d.decrypted, 0, "{path}");
            assert!(d.wrong_key(), "{path}");
            assert!(d.failures.len() >= 5, "{path}");
            for f in &d.failures {
                let page = ts.page(f.page).unwrap();
                let stored = &image[ts.file_offset(f.page) as usize..][..page.len()];
                assert_eq!(stored, page, "{path} page {}", f.page.0);
            }
        }
        let no_key = KeyFile::parse(format!("1;{K16}\n").as_bytes(), b"").unwrap();
        if crypt.key_id != 1 {
            assert_eq!(
                space_key(&ts, &no_key, &crypt, Cipher::Cbc)
                    .err()
                    .map(|e| e.kind),
                Some(crate::error::ErrorKind::NoSpaceKey {
                    key_id: crypt.key_id
                })
            );
        }
    }
}

/// The keys are stored in one buffer sized before they are parsed (a
/// grown Vec would leave the keys it moved in freed memory, unwiped);
/// a repeated id keeps the last key, as the plugin's `std::map`.
#[test]
fn keys_go_into_one_buffer_sized_before_parsing() {
    let mut text = String::from("# comment; with a semicolon\n");
    for id in (1..=40).rev() {
        text.push_str(&format!("{id};{K16}\n"));
    }
    text.push_str(&format!("7;{}\n", "11".repeat(16)));
    let kf = KeyFile::parse(text.as_bytes(), b"").unwrap();
    assert_eq!(kf.keys.len(), 40);
    // every line with a `;`: the comment and 41 key lines
    assert_eq!(kf.keys.capacity(), 42);
    assert_eq!(kf.ids().collect::<Vec<_>>(), (1..=40).collect::<Vec<_>>());
    assert_eq!(kf.key(7).unwrap().bytes(), &[0x11; 16][..]);
}

// The image built with the summary in the same pass: the same image and
// failures as `try_decrypt`, and the summary `keyed_summary` makes, on any
// number of threads, over several shards with known-zero pages skipped by
// the image builder (at a shard's start, inside, and to the end) and a
// damaged encrypted page. `keyed_summary` (check with the key) also
// gives `Summary::of`'s summary where every page verifies as stored
// (full_crc32), and names the damaged page only once (as stored).
#[test]
fn the_summary_made_with_the_image_is_checks_with_the_key() {
    for (path, checksum, cipher, key_file, key_file_key, _) in crypt_manifest() {
        let mut bytes = fixture(&format!("crypt/{path}"));
        let size = Tablespace::new(&bytes).unwrap().page_size() as usize;
        let pages = bytes.len() / size;
        // A byte of the last encrypted page's body changed.
        let full = checksum == "full_crc32";
        let last = (1..pages)
            .rev()
            .find(|&n| key_version(&bytes[n * size..(n + 1) * size], full) != 0)
            .unwrap();
        bytes[last * size + 1000] ^= 1;
        bytes.resize(300 * size, 0);
        let zeros = [
            pages * size..140 * size,
            256 * size..258 * size,
            290 * size..300 * size,
        ];
        let ts = Tablespace::new(&bytes).unwrap().with_zero_ranges(&zeros);
        let CryptDataRead::Present(crypt) = space_crypt_data(&ts) else {
            panic!("{path}");
        };
        let keys = manifest_keys(&key_file, &key_file_key);
        let cipher = if cipher == "AES_CTR" {
            Cipher::Ctr
        } else {
            Cipher::Cbc
        };
        let key = space_key(&ts, &keys, &crypt, cipher).unwrap();
        let plain = try_decrypt(
            &ts,
            &Engine::default(),
            space_key(&ts, &keys, &crypt, cipher).unwrap(),
        )
        .unwrap();
        let plain_image = plain.image(&ts);
        assert!(
            plain.failures.iter().any(|f| f.page.0 as usize == last),
            "{path}"
        );
        for threads in [1, 2, 3] {
            let engine = Engine::new(threads);
            let want = format!("{:?}", Summary::of(&ts, &engine));
            let (d, s) = try_decrypt_with_summary(
                &ts,
                &engine,
                space_key(&ts, &keys, &crypt, cipher).unwrap(),
            )
            .unwrap();
            let (k, check) = keyed_summary(&ts, &engine, &key);
            // The summary made with the image is check's with the key: the
            // stored pages' summary, where a page whose stored bytes carry
            // no checksum (outside full_crc32, page_compressed) counts as
            // verified when its decrypted image verifies.
            assert_eq!(
                format!("{s:?}"),
                format!("{k:?}"),
                "{path}, {threads} threads"
            );
            assert!(d.image(&ts) == plain_image, "{path}, {threads} threads");
            assert_eq!(d.failures, plain.failures, "{path}, {threads} threads");
            if full {
                assert_eq!(format!("{k:?}"), want, "{path}, {threads} threads");
            } else if path.contains("pagecomp") {
                // Every encrypted page but the damaged one verified.
                assert_eq!(k.unverifiable.len(), 1, "{path}: {:?}", k.unverifiable);
                assert_ne!(format!("{k:?}"), want, "{path}");
            } else {
                assert_eq!(format!("{k:?}"), want, "{path}, {threads} threads");
            }
            // The damaged page fails as stored (a bad page of the summary),
            // so it is not decrypted again: no failure of its own.
            assert!(
                k.bad.iter().any(|b| b.facts.page_no.0 as usize == last) || !full,
                "{path}"
            );
            assert!(
                check.failures.iter().all(|(p, _)| p.0 as usize != last) || !full,
                "{path}: {:?}",
                check.failures
            );
        }
    }
}
