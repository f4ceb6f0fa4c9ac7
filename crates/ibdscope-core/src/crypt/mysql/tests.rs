//! Against the two encrypted files of the corpus and the keyring of the
//! Percona Server 8.0 that wrote them (../shared/corpus/MANIFEST.md).

use super::*;
use crate::checksum::Verdict;
use crate::Tablespace;

const UUID: &str = "0ca67a48-5da5-11f0-b0fe-bc24111003dd";
const MASTER: &str = "INNODBKey-0ca67a48-5da5-11f0-b0fe-bc24111003dd-1";
const PLAIN: &str = "percona-8.0/percona80_encrypted_secret_data.ibd";
const ZIP: &str = "percona-8.0/percona80_encrypted_compressed.ibd";

fn read(rel: &str) -> Option<Vec<u8>> {
    let dir = ibdscope_testkit::corpus()?;
    Some(std::fs::read(dir.join(rel)).unwrap())
}

fn keyring() -> Option<Keyring> {
    Some(Keyring::parse(&read("percona-8.0/percona80_keyring_file")?).unwrap())
}

#[test]
fn info_offset_follows_the_xdes_array() {
    // fsp_header_get_encryption_offset: 150 + 40 × 256 at 16K; a 16K
    // space of 8K compressed pages has 128 XDES entries of 40 bytes.
    assert_eq!(info_offset(16384, 16384), 10390);
    assert_eq!(info_offset(16384, 8192), 5270);
    // 4K pages: 256-page extents, XDES entries of 24 + 64 bytes, 16 of them.
    assert_eq!(info_offset(4096, 4096), 150 + 88 * 16);
    for (rel, offset) in [(PLAIN, 10390), (ZIP, 5270)] {
        let Some(bytes) = read(rel) else {
            return;
        };
        let ts = Tablespace::new(&bytes).unwrap();
        let info = EncryptionInfo::read(&ts).unwrap();
        assert_eq!(info.offset, offset, "{rel}");
        assert_eq!(info.version, 3);
        assert_eq!(info.master_key_id, 1);
        assert_eq!(info.server_uuid.as_deref(), Some(UUID));
        assert_eq!(info.master_key_name(), MASTER);
        assert_eq!(info.checksum_offset(), offset + 3 + 4 + 36 + 64);
    }
}

/// Decrypts `rel` and returns its decrypted page types; every page must
/// verify (or be empty) afterwards.
fn decrypt_all(rel: &str, threads: usize) -> Option<Vec<PageType>> {
    let bytes = read(rel)?;
    let keyring = keyring()?;
    let ts = Tablespace::new(&bytes).unwrap();
    let info = EncryptionInfo::read(&ts).unwrap();
    let key = tablespace_key(&info, &keyring).unwrap();
    assert_eq!(key.master_key, MASTER);
    // Before: the encrypted pages are named, not verified.
    let before: Vec<Verdict> = ts.scan().map(|p| p.verdict).collect();
    assert!(before.iter().any(|v| matches!(v, Verdict::Unverifiable(_))));
    let n_stored_encrypted = ts.scan().filter(|p| is_encrypted_type(p.page_type)).count();
    let d = Decryption::new(&ts, key);
    let dts = d.tablespace(&ts);
    // A fold on `threads` threads reads the pages a walk reads.
    assert!(crate::source::tests::folded_image(&dts, threads) == d.image(&ts));
    let mut types = Vec::new();
    for p in dts.scan() {
        assert!(
            matches!(p.verdict, Verdict::Valid(_) | Verdict::Empty),
            "{rel} page {}: {:?}",
            p.page_no,
            p.verdict
        );
        assert!(!is_encrypted_type(p.page_type));
        types.push(p.page_type);
    }
    let n_encrypted = before
        .iter()
        .filter(|v| matches!(v, Verdict::Unverifiable(_)))
        .count();
    assert_eq!(n_stored_encrypted, n_encrypted);
    Some(types)
}

#[test]
fn corpus_files_decrypt_and_verify() {
    // MANIFEST.md: ENCRYPTED 4, ALLOCATED 2, FSP_HDR 1 (16K), and
    // ENCRYPTED 7, FSP_HDR 1, ALLOCATED 1 (8K compressed pages).
    for threads in [1, 3] {
        let Some(t) = decrypt_all(PLAIN, threads) else {
            return;
        };
        // Page 1 IBUF_BITMAP, 2 INODE, 3 SDI, 4 INDEX (the original types
        // stored at byte 28 of the corpus pages: 5, 3, 17853, 17855).
        assert_eq!(
            t[..5],
            [
                PageType::FIL_PAGE_TYPE_FSP_HDR,
                PageType::FIL_PAGE_IBUF_BITMAP,
                PageType::FIL_PAGE_INODE,
                PageType::FIL_PAGE_SDI,
                PageType::FIL_PAGE_INDEX
            ]
        );
        let Some(t) = decrypt_all(ZIP, threads) else {
            return;
        };
        assert_eq!(
            t.iter().filter(|&&p| p == PageType::FIL_PAGE_INDEX).count(),
            4
        );
    }
}

#[test]
fn wrong_master_key_is_a_mismatch() {
    let (Some(bytes), Some(raw)) = (read(PLAIN), read("percona-8.0/percona80_keyring_file")) else {
        return;
    };
    let ts = Tablespace::new(&bytes).unwrap();
    let info = EncryptionInfo::read(&ts).unwrap();
    // One key byte flipped (the record's key data starts at 24 + 40 + 51).
    let mut bad = raw.clone();
    bad[24 + 40 + 51 + 7] ^= 0x20;
    let k = Keyring::parse(&bad).unwrap();
    let e = tablespace_key(&info, &k).unwrap_err();
    assert!(
        matches!(e.kind, crate::ErrorKind::MasterKeyMismatch(k) if k.to_string() == MASTER),
        "{e:?}"
    );
    assert_eq!(e.page(), Some(PageNo(0)));
    assert_eq!(e.file_offset(), Some(10390 + 107));
    assert!(e
        .to_string()
        .contains("key does not match: tablespace key checksum differs"));
    // Another key id: the keyring has no such key.
    let mut other = info.clone();
    other.master_key_id = 2;
    let e = tablespace_key(&other, &keyring().unwrap()).unwrap_err();
    assert!(matches!(e.kind, crate::ErrorKind::NoMasterKey(_)), "{e}");
}

#[test]
fn component_keyring_with_the_same_key_decrypts() {
    let (Some(bytes), Some(k)) = (read(PLAIN), keyring()) else {
        return;
    };
    // The same key as component_keyring_file stores it (hex, no
    // obfuscation: json_writer.cc).
    let hex: String = k.keys[0]
        .data
        .bytes()
        .iter()
        .map(|b| format!("{b:02X}"))
        .collect();
    let json = format!(
        r#"{{"version":"1.0","elements":[{{"user":"","data_id":"{MASTER}","data_type":"AES","data":"{hex}","extension":[]}}]}}"#
    );
    let j = Keyring::parse(json.as_bytes()).unwrap();
    let ts = Tablespace::new(&bytes).unwrap();
    let info = EncryptionInfo::read(&ts).unwrap();
    assert!(tablespace_key(&info, &j).is_ok());
}

#[test]
fn decrypt_page_leaves_other_pages_alone() {
    let key = TablespaceKey {
        aes: Aes::new(&[7u8; 32]).unwrap(),
        iv: [1; 16],
        master_key: String::new(),
    };
    let mut page = vec![0u8; 1024];
    page[24..26].copy_from_slice(&17855u16.to_be_bytes());
    let before = page.clone();
    assert!(!decrypt_page(&key, &mut page));
    assert_eq!(page, before);
    // Too short to hold a header: not touched.
    let mut short = vec![0u8; 20];
    assert!(!decrypt_page(&key, &mut short));
}

/// Encrypting as `Encryption::encrypt` does (CBC over the whole blocks,
/// then the last 32 bytes once more) and decrypting gives the page back,
/// type restored, for page lengths with and without a partial block.
#[test]
fn round_trip_as_encrypt_writes() {
    let key = TablespaceKey {
        aes: Aes::new(&[9u8; 32]).unwrap(),
        iv: [3; 16],
        master_key: String::new(),
    };
    for size in [1024usize, 8192, 16384] {
        let mut page: Vec<u8> = (0..size).map(|i| (i * 31 % 251) as u8).collect();
        page[24..26].copy_from_slice(&17855u16.to_be_bytes());
        page[28..30].copy_from_slice(&[0, 0]);
        let plain = page.clone();
        let data_len = size - 38;
        let main = data_len / 16 * 16;
        assert!(aes::cbc_encrypt(
            &key.aes,
            &key.iv,
            &mut page[38..38 + main]
        ));
        if main != data_len {
            let s = 38 + data_len - 32;
            assert!(aes::cbc_encrypt(&key.aes, &key.iv, &mut page[s..s + 32]));
        }
        page[24..26].copy_from_slice(&15u16.to_be_bytes());
        page[28..30].copy_from_slice(&17855u16.to_be_bytes());
        assert!(decrypt_page(&key, &mut page));
        assert_eq!(page, plain, "{size}");
    }
}
