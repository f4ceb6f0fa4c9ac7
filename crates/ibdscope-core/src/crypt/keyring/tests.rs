use super::*;

/// The keyring of the Percona Server 8.0 that wrote the encrypted corpus
/// files (../shared/corpus/MANIFEST.md: one master key,
/// `INNODBKey-0ca67a48-5da5-11f0-b0fe-bc24111003dd-1`, type AES).
fn corpus_keyring() -> Option<Vec<u8>> {
    let dir = ibdscope_testkit::corpus()?;
    Some(std::fs::read(dir.join("percona-8.0/percona80_keyring_file")).unwrap())
}

const MASTER: &str = "INNODBKey-0ca67a48-5da5-11f0-b0fe-bc24111003dd-1";

#[test]
fn corpus_keyring_file() {
    let Some(bytes) = corpus_keyring() else {
        return;
    };
    let k = Keyring::parse(&bytes).unwrap();
    assert_eq!(k.format, KeyringFormat::PluginV2);
    assert!(k.digest_ok);
    assert_eq!(k.keys.len(), 1);
    let key = k.get(MASTER).unwrap();
    assert_eq!(key.key_type, "AES");
    assert_eq!(key.user, "");
    // InnoDB's master keys are 32 bytes (Encryption::KEY_LEN).
    assert_eq!(key.data.bytes().len(), 32);
    // Stored obfuscated: the parsed bytes are the stored ones XOR the
    // obfuscation string (record at 24: five 8-byte lengths, 48-byte id,
    // "AES", no user, then the key at 24 + 40 + 51).
    let stored = &bytes[24 + 40 + 51..24 + 40 + 51 + 32];
    for (i, (&s, &d)) in stored.iter().zip(key.data.bytes()).enumerate() {
        assert_eq!(s ^ OBFUSCATE[i % OBFUSCATE.len()], d);
    }
    assert!(!format!("{k:?}").contains(&format!("{:?}", key.data.bytes())));
}

#[test]
fn digest_mismatch_is_reported_not_refused() {
    let Some(mut bytes) = corpus_keyring() else {
        return;
    };
    bytes[24 + 40 + 51] ^= 1; // a key byte
    let k = Keyring::parse(&bytes).unwrap();
    assert!(!k.digest_ok);
    assert_eq!(k.keys.len(), 1);
}

#[test]
fn every_cut_of_the_corpus_keyring_is_an_error_or_a_keyring() {
    let Some(bytes) = corpus_keyring() else {
        return;
    };
    for n in 0..bytes.len() {
        let r = Keyring::parse(&bytes[..n]);
        assert!(r.is_err(), "cut at {n}");
    }
    // A different EOF place: the tag is looked for where the size puts it.
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(Keyring::parse(&longer).is_err());
}

/// A record as `Key::store_in_buffer` writes it, under `width` and byte
/// order `be`, key data obfuscated.
fn record(width: usize, be: bool, id: &str, ty: &str, user: &str, key: &[u8]) -> Vec<u8> {
    let word = |n: usize| -> Vec<u8> {
        match (width, be) {
            (8, false) => (n as u64).to_le_bytes().to_vec(),
            (8, true) => (n as u64).to_be_bytes().to_vec(),
            (4, false) => (n as u32).to_le_bytes().to_vec(),
            _ => (n as u32).to_be_bytes().to_vec(),
        }
    };
    let raw = 5 * width + id.len() + ty.len() + user.len() + key.len();
    let pod = raw.div_ceil(width) * width;
    let mut r = Vec::new();
    for n in [pod, id.len(), ty.len(), user.len(), key.len()] {
        r.extend(word(n));
    }
    r.extend(id.bytes());
    r.extend(ty.bytes());
    r.extend(user.bytes());
    r.extend(key.iter().zip(OBFUSCATE.iter().cycle()).map(|(k, o)| k ^ o));
    r.resize(pod, 0);
    r
}

#[test]
fn versions_and_word_sizes() {
    let key16: Vec<u8> = (0..16).collect();
    let key32: Vec<u8> = (100..132).collect();
    for (width, be) in [(8, false), (4, false), (8, true), (4, true)] {
        let mut recs = record(width, be, "INNODBKey-1-1", "AES", "", &key16);
        recs.extend(record(width, be, "k2", "SECRET", "root@localhost", &key32));
        for v2 in [false, true] {
            let mut f = if v2 { VERSION_2 } else { VERSION_1 }.to_vec();
            f.extend(&recs);
            f.extend(EOF_TAG);
            if v2 {
                f.extend(sha256(&recs));
            }
            let k = Keyring::parse(&f).unwrap();
            assert_eq!(k.keys.len(), 2, "{width} {be} {v2}");
            assert!(k.digest_ok);
            assert_eq!(k.keys[0].id, "INNODBKey-1-1");
            assert_eq!(k.keys[0].data.bytes(), &key16[..]);
            assert_eq!(k.keys[1].user, "root@localhost");
            assert_eq!(k.keys[1].key_type, "SECRET");
            assert_eq!(k.keys[1].data.bytes(), &key32[..]);
            assert_eq!(k.get("k2").unwrap().data.bytes(), &key32[..]);
            assert!(k.get("k3").is_none());
        }
    }
}

#[test]
fn component_json() {
    // As json_writer.cc writes it (rapidjson, no spaces).
    let f = br#"{"version":"1.0","elements":[{"user":"","data_id":"INNODBKey-u-1","data_type":"AES","data":"000102030405060708090A0B0C0D0E0F101112131415161718191a1b1c1d1e1f","extension":[]},{"user":"me","data_id":"x\u0041","data_type":"SECRET","data":"","extension":[]}]}"#;
    let k = Keyring::parse(f).unwrap();
    assert_eq!(k.format, KeyringFormat::ComponentJson);
    assert_eq!(k.keys.len(), 2);
    let key = k.get("INNODBKey-u-1").unwrap();
    assert_eq!(key.data.bytes(), &(0..32).collect::<Vec<u8>>()[..]);
    assert_eq!(k.keys[1].id, "xA");
    for bad in [
        &br#"{"version":"1.0"}"#[..],
        br#"{"elements":[]}"#,
        br#"{"version":"1.0","elements":[{"user":"","data_id":"a","data_type":"AES","data":"0"}]}"#,
        br#"{"version":"1.0","elements":[{"user":"","data_id":"a","data":"00"}]}"#,
        br#"{"version":"1.0","elements":[]} x"#,
        br#"{"version":"1.0","elements":["#,
        b"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[",
    ] {
        assert!(
            Keyring::parse(bad).is_err(),
            "{}",
            String::from_utf8_lossy(bad)
        );
    }
    assert!(Keyring::parse(br#"  {"version":"1.0","elements":[]}"#)
        .unwrap()
        .keys
        .is_empty());
}

#[test]
fn not_a_keyring() {
    assert!(Keyring::parse(b"").is_err());
    assert!(Keyring::parse(b"Keyring file version:3.0EOF").is_err());
    assert!(Keyring::parse(b"hello").is_err());
}
