//! `ibdscope-bench mysql-keyring`: a MySQL 8.0 `ENCRYPTION='Y'` tablespace
//! (keyring encryption) of any size, made from a plain MariaDB 10.11 bench
//! file (`benches/gen-inputs plain`, full_crc32, 16 KiB pages) and a
//! `keyring_file` holding an InnoDB master key. No MySQL 8 server installs
//! here, so the bench's large `--keyring` inputs are written by this.
//!
//! ```text
//! ibdscope-bench mysql-keyring --plain PLAIN.ibd --keyring KEYRING --out OUT.ibd [--seed N]
//! ```
//!
//! Each page is first rewritten in MySQL's `crc32` page format (the index
//! pages, the file segment inodes and the extent descriptors are the same
//! structures in both servers), then encrypted as the server's I/O layer
//! encrypts it on write:
//!
//! - **checksum**: `buf_calc_page_crc32` (CRC-32C of bytes 4..26 XOR of
//!   38..size−8) of the plaintext, in the header (0..4) and in the
//!   trailer's first word (size−8), the low 32 bits of the page LSN in the
//!   trailer's second word (`buf_flush_init_for_writing`, mysql-server 8.0
//!   `buf/buf0flu.cc`); bytes 26..34 zero (MariaDB's key version field,
//!   MySQL's flush LSN of the system space only). MariaDB's full_crc32 keeps
//!   the LSN at size−8 and its checksum of the whole page at size−4: swapped.
//! - **page 0**: the FSP flags `POST_ANTELOPE | ATOMIC_BLOBS | ENCRYPTION`
//!   (`0x2021`, MySQL's `fsp0types.h`: bits 0, 5 and 13; 16 KiB pages: page
//!   size bits 0), and the encryption information right after the XDES
//!   array (byte 10390, `fsp_header_get_encryption_offset`) as
//!   `Encryption::fill_encryption_info` writes it (mysql-server 8.0
//!   `os/os0enc.cc`; docs/format.md §3.4): magic `lCC`, the master key id
//!   (big-endian), the 36-byte server uuid, the tablespace key and IV (32
//!   bytes each) encrypted with AES-256-ECB under the master key, and the
//!   CRC-32C of the 64 plain bytes (big-endian). The master key is the
//!   keyring's first `INNODBKey-<uuid>-<id>`. Page 0 is not encrypted, as
//!   in the corpus's Percona 8.0 files (`../shared/corpus/percona-8.0`:
//!   page 0 type `FSP_HDR`, pages 1–4 type 15).
//! - **every other page written** (all-zero pages, never written by the
//!   server, stay zero) as `Encryption::encrypt` (`os0enc.cc`): the
//!   header copied, bytes 38..end (the trailer included) AES-256-CBC under
//!   the tablespace key with the IV's first 16 bytes, and as 16346 is not
//!   a multiple of 16, the last 32 bytes encrypted once more after the
//!   rest; the type becomes 15 (`FIL_PAGE_ENCRYPTED`) with the original
//!   type at byte 28 (`FIL_PAGE_ORIGINAL_TYPE_V1`), an R-tree page's 17
//!   (`FIL_PAGE_ENCRYPTED_RTREE`).
//!
//! The space carries no SDI (the flag's bit 14 is clear: a MariaDB table
//! has none), as a MySQL 5.7 `ENCRYPTION='Y'` table upgraded in place
//! would not either; the `lCC` magic is 8.0.5's. The tablespace key and
//! IV come from `--seed` (not secret: a bench input). The output is written
//! page by page in 1 MiB writes; the input is read the same way.

use ibdscope_core::checksum::{full_crc32, page_crc32};
use ibdscope_core::crypt::keyring::Keyring;
use ibdscope_prims::aes::{self, Aes};
use ibdscope_prims::crc32c::crc32c;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// The page size this handles (the bench files').
pub const PAGE: usize = 16384;
/// `FIL_PAGE_DATA`: where encryption starts.
const DATA: usize = 38;
/// `FIL_PAGE_TYPE`.
const TYPE: usize = 24;
/// `FIL_PAGE_ORIGINAL_TYPE_V1`.
const ORIGINAL_TYPE: usize = 28;
/// `FSP_HEADER_OFFSET + FSP_SPACE_FLAGS`.
const FSP_FLAGS: usize = DATA + 16;
/// `fsp_header_get_encryption_offset` for 16 KiB pages:
/// `XDES_ARR_OFFSET` (150) + `XDES_SIZE` (40) × 256 descriptors.
pub const INFO_OFFSET: usize = 150 + 40 * 256;
/// MySQL's FSP flags: `POST_ANTELOPE` (bit 0), `ATOMIC_BLOBS` (bit 5),
/// `ENCRYPTION` (bit 13); page size and zip size bits 0 (16 KiB, not
/// compressed).
const MYSQL_FLAGS: u32 = 0x2021;
/// MariaDB's full_crc32 marker (`FSP_FLAGS_FCRC32_MASK_MARKER`, bit 4)
/// with page size 16 KiB (`FSP_FLAGS_FCRC32_PAGE_SSIZE` 5, bits 0..3).
const MARIADB_FCRC32_16K: u32 = 0x15;
/// Page types (`fil0types.h`).
const FIL_PAGE_ENCRYPTED: u16 = 15;
const FIL_PAGE_ENCRYPTED_RTREE: u16 = 17;
const FIL_PAGE_RTREE: u16 = 17854;

/// What [`convert`] needs of the keyring: the master key and its name.
pub struct MasterKey {
    /// The server uuid of `INNODBKey-<uuid>-<id>`.
    pub uuid: String,
    /// The key id.
    pub id: u32,
    /// The key, folded to 32 bytes as `my_aes_create_key` does.
    pub key: [u8; 32],
}

impl MasterKey {
    /// The first `INNODBKey-<36-character uuid>-<id>` of a keyring file.
    pub fn from_keyring(bytes: &[u8]) -> Result<MasterKey, String> {
        let ring = Keyring::parse(bytes).map_err(|e| format!("keyring: {e}"))?;
        for k in &ring.keys {
            let Some(rest) = k.id.strip_prefix("INNODBKey-") else {
                continue;
            };
            let Some((uuid, id)) = rest.rsplit_once('-') else {
                continue;
            };
            let (Ok(id), 36) = (id.parse::<u32>(), uuid.len()) else {
                continue;
            };
            let mut key = [0u8; 32];
            for (i, b) in k.data.bytes().iter().enumerate() {
                key[i % 32] ^= b;
            }
            return Ok(MasterKey {
                uuid: uuid.to_string(),
                id,
                key,
            });
        }
        Err("the keyring holds no INNODBKey-<uuid>-<id> master key".into())
    }
}

/// The tablespace key and IV from a seed (splitmix64).
fn tablespace_key(seed: u64) -> [u8; 64] {
    let mut s = seed;
    let mut out = [0u8; 64];
    for chunk in out.chunks_exact_mut(8) {
        s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = s;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        chunk.copy_from_slice(&(z ^ (z >> 31)).to_le_bytes());
    }
    out
}

fn be_u16(p: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([p[at], p[at + 1]])
}

fn be_u32(p: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([p[at], p[at + 1], p[at + 2], p[at + 3]])
}

/// The page encrypter: the tablespace key's cipher and IV.
pub struct Encrypter {
    aes: Aes,
    iv: [u8; 16],
    /// Page 0's encryption information (`lCC` .. checksum).
    info: Vec<u8>,
}

impl Encrypter {
    pub fn new(master: &MasterKey, seed: u64) -> Encrypter {
        let key_iv = tablespace_key(seed);
        let aes = Aes::new(&key_iv[..32]).expect("a 32-byte key");
        let mut iv = [0u8; 16];
        iv.copy_from_slice(&key_iv[32..48]);
        let mut wrapped = key_iv;
        let m = Aes::new(&master.key).expect("a 32-byte key");
        assert!(aes::ecb_encrypt(&m, &mut wrapped));
        let mut info = Vec::with_capacity(111);
        info.extend_from_slice(b"lCC");
        info.extend_from_slice(&master.id.to_be_bytes());
        info.extend_from_slice(master.uuid.as_bytes());
        info.extend_from_slice(&wrapped);
        info.extend_from_slice(&crc32c(&key_iv).to_be_bytes());
        Encrypter { aes, iv, info }
    }

    /// Rewrites one plain full_crc32 page (`page_no` of the file) in
    /// MySQL's format, encrypted, in place. All-zero pages stay zero.
    pub fn page(&self, page_no: u64, page: &mut [u8]) -> Result<(), String> {
        if page.iter().all(|&b| b == 0) {
            return Ok(());
        }
        let n = page.len();
        let stored = be_u32(page, n - 4);
        if full_crc32(page) != stored {
            return Err(format!(
                "page {page_no}: not a valid full_crc32 page (checksum)"
            ));
        }
        let lsn_low = be_u32(page, 20);
        page[26..34].fill(0);
        if page_no == 0 {
            let flags = be_u32(page, FSP_FLAGS);
            if flags != MARIADB_FCRC32_16K {
                return Err(format!(
                    "page 0: FSP flags {flags:#x}, not MariaDB full_crc32 with 16 KiB pages"
                ));
            }
            page[FSP_FLAGS..FSP_FLAGS + 4].copy_from_slice(&MYSQL_FLAGS.to_be_bytes());
            let at = INFO_OFFSET..INFO_OFFSET + self.info.len();
            if page[at.clone()].iter().any(|&b| b != 0) {
                return Err("page 0: the encryption information's place is not empty".into());
            }
            page[at].copy_from_slice(&self.info);
        }
        page[n - 4..].copy_from_slice(&lsn_low.to_be_bytes());
        let sum = page_crc32(page);
        page[..4].copy_from_slice(&sum.to_be_bytes());
        page[n - 8..n - 4].copy_from_slice(&sum.to_be_bytes());
        if page_no == 0 {
            return Ok(());
        }
        let original = be_u16(page, TYPE);
        if original == FIL_PAGE_RTREE {
            page[TYPE..TYPE + 2].copy_from_slice(&FIL_PAGE_ENCRYPTED_RTREE.to_be_bytes());
        } else {
            page[TYPE..TYPE + 2].copy_from_slice(&FIL_PAGE_ENCRYPTED.to_be_bytes());
            page[ORIGINAL_TYPE..ORIGINAL_TYPE + 2].copy_from_slice(&original.to_be_bytes());
        }
        let data = &mut page[DATA..];
        let main = data.len() & !15;
        assert!(aes::cbc_encrypt(&self.aes, &self.iv, &mut data[..main]));
        if main != data.len() {
            let tail = data.len() - 32;
            assert!(aes::cbc_encrypt(&self.aes, &self.iv, &mut data[tail..]));
        }
        Ok(())
    }
}

/// Writes `out` from `plain`: every page through [`Encrypter::page`].
/// Returns the pages written.
pub fn convert(plain: &Path, master: &MasterKey, seed: u64, out: &Path) -> Result<u64, String> {
    let e = Encrypter::new(master, seed);
    let mut r = std::fs::File::open(plain).map_err(|e| format!("{}: {e}", plain.display()))?;
    let len = r.metadata().map_err(|e| e.to_string())?.len();
    if len == 0 || len % PAGE as u64 != 0 {
        return Err(format!(
            "{}: {len} bytes, not a whole number of 16 KiB pages",
            plain.display()
        ));
    }
    let mut w = std::fs::File::create(out).map_err(|e| format!("{}: {e}", out.display()))?;
    let mut buf = vec![0u8; 64 * PAGE];
    let mut page_no = 0u64;
    let mut left = len;
    while left > 0 {
        let n = (buf.len() as u64).min(left) as usize;
        r.read_exact(&mut buf[..n])
            .map_err(|e| format!("{}: {e}", plain.display()))?;
        for p in buf[..n].chunks_exact_mut(PAGE) {
            e.page(page_no, p)?;
            page_no += 1;
        }
        w.write_all(&buf[..n])
            .map_err(|e| format!("{}: {e}", out.display()))?;
        left -= n as u64;
    }
    w.sync_all().map_err(|e| e.to_string())?;
    Ok(page_no)
}

pub fn main() {
    let mut plain = None;
    let mut keyring = None;
    let mut out = None;
    let mut seed = 0x1bd5_c09e_u64;
    let mut it = std::env::args().skip(2);
    while let Some(a) = it.next() {
        let v = it.next().map(PathBuf::from);
        match (a.as_str(), v) {
            ("--plain", Some(v)) => plain = Some(v),
            ("--keyring", Some(v)) => keyring = Some(v),
            ("--out", Some(v)) => out = Some(v),
            ("--seed", Some(v)) => match v.to_str().and_then(|s| s.parse().ok()) {
                Some(s) => seed = s,
                None => fail("--seed N"),
            },
            _ => fail(
                "usage: ibdscope-bench mysql-keyring --plain PLAIN.ibd --keyring KEYRING --out OUT.ibd [--seed N]",
            ),
        }
    }
    let (Some(plain), Some(keyring), Some(out)) = (plain, keyring, out) else {
        fail("--plain, --keyring and --out are needed");
    };
    let bytes =
        std::fs::read(&keyring).unwrap_or_else(|e| fail(&format!("{}: {e}", keyring.display())));
    let master = MasterKey::from_keyring(&bytes).unwrap_or_else(|e| fail(&e));
    match convert(&plain, &master, seed, &out) {
        Ok(n) => eprintln!(
            "{}: {n} pages, MySQL 8.0 keyring encryption under INNODBKey-{}-{}",
            out.display(),
            master.uuid,
            master.id
        ),
        Err(e) => fail(&e),
    }
}

fn fail(msg: &str) -> ! {
    eprintln!("ibdscope-bench mysql-keyring: {msg}");
    std::process::exit(2)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ibdscope_core::crypt::mysql::{decrypt_page, tablespace_key, EncryptionInfo};

    /// A committed MariaDB 10.11 full_crc32 fixture, through the generator
    /// with the corpus's Percona 8.0 keyring: page 0 carries the encryption
    /// information the reader finds and unwraps with that keyring; every
    /// other page decrypts to the plain file's page (the same type, header
    /// and body), its MySQL crc32 checksum in the header and the trailer,
    /// and the LSN's low word at the end.
    #[test]
    fn generated_space_decrypts_to_the_plain_pages() {
        let Some(corpus) = ibdscope_testkit::corpus() else {
            return;
        };
        let keyring = std::fs::read(corpus.join("percona-8.0/percona80_keyring_file")).unwrap();
        let master = MasterKey::from_keyring(&keyring).unwrap();
        let plain_path = ibdscope_testkit::fixtures().join("mariadb1011/dml.ibd");
        let plain = std::fs::read(&plain_path).unwrap();
        let dir =
            std::env::temp_dir().join(format!("ibdscope-mysql-keyring-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let out = dir.join("enc.ibd");
        let n = convert(&plain_path, &master, 7, &out).unwrap();
        let enc = std::fs::read(&out).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(n as usize * PAGE, plain.len());
        assert_eq!(enc.len(), plain.len());

        let ts = ibdscope_core::Tablespace::new(&enc).unwrap();
        let info = EncryptionInfo::read(&ts).expect("page 0's encryption information");
        assert_eq!(
            (info.offset, info.version, info.master_key_id),
            (INFO_OFFSET, 3, master.id)
        );
        let key = tablespace_key(&info, &Keyring::parse(&keyring).unwrap()).unwrap();
        let mut encrypted = 0;
        for (i, (p, e)) in plain
            .chunks_exact(PAGE)
            .zip(enc.chunks_exact(PAGE))
            .enumerate()
        {
            if p.iter().all(|&b| b == 0) {
                assert!(e.iter().all(|&b| b == 0), "page {i}");
                continue;
            }
            let mut d = e.to_vec();
            if i > 0 {
                assert_eq!(be_u16(e, TYPE), FIL_PAGE_ENCRYPTED, "page {i}");
                assert_ne!(e[DATA..], p[DATA..], "page {i} is stored encrypted");
                assert!(decrypt_page(&key, &mut d), "page {i}");
                encrypted += 1;
                assert_eq!(d[DATA..PAGE - 8], p[DATA..PAGE - 8], "page {i}: body");
            } else {
                // Page 0: the flags and the encryption information differ.
                assert_eq!(be_u32(&d, FSP_FLAGS), MYSQL_FLAGS);
                assert_eq!(d[DATA..FSP_FLAGS], p[DATA..FSP_FLAGS]);
                assert_eq!(d[FSP_FLAGS + 4..INFO_OFFSET], p[FSP_FLAGS + 4..INFO_OFFSET]);
            }
            assert_eq!(d[4..26], p[4..26], "page {i}: header, type restored");
            assert_eq!(d[34..38], p[34..38], "page {i}: space id");
            let sum = page_crc32(&d).to_be_bytes();
            assert_eq!(
                (d[..4].to_vec(), d[PAGE - 8..PAGE - 4].to_vec()),
                (sum.to_vec(), sum.to_vec()),
                "page {i}"
            );
            assert_eq!(d[PAGE - 4..], p[20..24], "page {i}: LSN's low word");
        }
        assert!(encrypted > 2, "{encrypted} pages encrypted");
    }
}
