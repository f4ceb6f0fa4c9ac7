//! The crate's one error type: [`Error`], a kind ([`ErrorKind`]) and the
//! place it happened ([`Place`]).
//!
//! Whole-file conditions (empty, too short, not InnoDB, a page size no
//! server writes), inputs beside the file that cannot be used (a MariaDB
//! key file or password file, a MySQL keyring file or its master key, a
//! MariaDB key id the key file lacks), and what stops the reading of one
//! page: a record chain that breaks ([`ErrorKind::Record`], at a byte of
//! the page), a page_compressed page that does not decompress
//! ([`ErrorKind::PageComp`]), an encrypted page that does not decrypt
//! ([`ErrorKind::PageCrypt`]). A caller matches the kinds its call can
//! give; each call's documentation says which.
//!
//! Damage to single pages is not an error of the file: the analyses turn
//! these into a [`crate::Finding`]. An `Error` is `Copy` and carries no
//! `String`, so it costs nothing to create on a hot path; the CLI adds the
//! file path when it prints one.

use crate::ids::PageNo;
use ibdscope_codec::{inflate::InflateErrorKind, CodecErrorKind};
use std::fmt;

/// What went wrong, with what was found and what was expected.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The input holds no bytes at all.
    Empty,
    /// The input is shorter than the smallest possible page.
    TooShort {
        /// Bytes found.
        len: u64,
        /// Bytes needed.
        need: u64,
    },
    /// Nothing in the file looks like InnoDB at any page size: page 0
    /// verifies under no reading of its flags, and at no supported size
    /// does another page verify or carry its own page number. A page size
    /// given by the caller does not change that.
    NotInnoDb {
        /// FSP_SPACE_FLAGS as read (bytes 54..58).
        flags: u32,
        /// The page size the caller gave, if any.
        given: Option<u32>,
    },
    /// A page size given by the caller is not one InnoDB supports.
    BadPageSize {
        /// The size asked for.
        size: u32,
    },
    /// A read reached past the end of a page or of the file.
    OutOfPage {
        /// Offset asked for.
        offset: u64,
        /// First offset past the end.
        limit: u64,
    },
    /// A MariaDB key file or password file the plugin would refuse.
    KeyFile(KeyFileProblem),
    /// A MySQL keyring file that cannot be read: what is wrong.
    Keyring(&'static str),
    /// A record chain walk stopped early ([`Place::Page`]: the byte of
    /// the next field that points wrong, or of the header field that is
    /// wrong).
    Record(RecErrorKind),
    /// A page_compressed page was not decompressed ([`Place::Page`]: the
    /// byte of the page where it was found).
    PageComp(PageCompErrorKind),
    /// A MariaDB encrypted page was not decrypted ([`Place::Page`]).
    PageCrypt(PageCryptErrorKind),
    /// The MariaDB key file has no key with the id page 0's crypt data
    /// names: no page of the space can be decrypted.
    NoSpaceKey {
        /// The id page 0 names.
        key_id: u32,
    },
    /// The MySQL keyring has no master key the space's encryption
    /// information names (page 0).
    NoMasterKey(MasterKey),
    /// The master key decrypts the tablespace key and IV to bytes whose
    /// CRC-32C is not the stored one: it is not the key the space was
    /// written with ([`Place::Space`]: page 0, the stored checksum).
    MasterKeyMismatch(MasterKey),
}

/// Why a MariaDB key file or password file is refused: the plugin's
/// reasons (`crypt::mariadb`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum KeyFileProblem {
    /// "Syntax error" at a line and column (1-based).
    Syntax {
        /// Line.
        line: u32,
        /// Column.
        column: usize,
    },
    /// "Invalid key id": 0, or more than 2^32 − 1.
    InvalidKeyId {
        /// Line.
        line: u32,
        /// Column.
        column: usize,
    },
    /// "Invalid key": not 16, 24 or 32 bytes of hex.
    InvalidKey {
        /// Line.
        line: u32,
        /// Column.
        column: usize,
    },
    /// "System key id 1 is missing".
    NoKey1,
    /// A password was given but the file is not encrypted ("Not encrypted").
    NotEncrypted,
    /// The encrypted file does not decrypt with this password ("Wrong key?").
    WrongPassword,
    /// The password file is empty.
    EmptyPassword,
    /// The password file holds more bytes than the plugin reads.
    PasswordTooLong {
        /// The most it reads (256).
        limit: usize,
    },
}

impl fmt::Display for KeyFileProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            KeyFileProblem::Syntax { line, column } => {
                write!(f, "syntax error at line {line}, column {column}")
            }
            KeyFileProblem::InvalidKeyId { line, column } => {
                write!(f, "invalid key id at line {line}, column {column}")
            }
            KeyFileProblem::InvalidKey { line, column } => write!(
                f,
                "invalid key at line {line}, column {column} (16, 24 or 32 bytes of hex)"
            ),
            KeyFileProblem::NoKey1 => f.write_str("key id 1 is missing (the plugin requires it)"),
            KeyFileProblem::NotEncrypted => {
                f.write_str("a password was given but the key file is not encrypted")
            }
            KeyFileProblem::WrongPassword => {
                f.write_str("the encrypted key file does not decrypt with this password")
            }
            KeyFileProblem::EmptyPassword => f.write_str("the password file is empty"),
            KeyFileProblem::PasswordTooLong { limit } => {
                write!(f, "the password file holds more than {limit} bytes")
            }
        }
    }
}

/// Where an [`Error`] lies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Place {
    /// A byte of the tablespace file, on a page if it concerns one.
    Space {
        /// The page, if one.
        page: Option<PageNo>,
        /// Byte offset in the file.
        file_offset: u64,
    },
    /// A byte of one page, read from its bytes alone (the page number when
    /// the caller knew it: [`Error::on_page`]).
    Page {
        /// The page, if known.
        page: Option<PageNo>,
        /// Byte offset in the page.
        page_offset: usize,
    },
    /// A line and column (from 1) of a key file.
    Line {
        /// Line.
        line: u32,
        /// Column.
        column: usize,
    },
    /// A byte of another input (a keyring file).
    Byte(usize),
    /// The input as a whole.
    Whole,
}

/// An error with the place it happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Error {
    /// What went wrong.
    pub kind: ErrorKind,
    /// Where.
    pub place: Place,
}

impl Error {
    /// The same error, saying which page size the caller gave when the
    /// file is not InnoDB at all.
    pub(crate) fn with_given(mut self, size: Option<u32>) -> Self {
        if let ErrorKind::NotInnoDb { given, .. } = &mut self.kind {
            *given = size;
        }
        self
    }

    /// An error about the whole file at `file_offset`.
    pub(crate) const fn at(kind: ErrorKind, file_offset: u64) -> Self {
        Error {
            kind,
            place: Place::Space {
                page: None,
                file_offset,
            },
        }
    }

    /// An error about one page, at byte `page_offset` of it.
    pub(crate) const fn in_page(kind: ErrorKind, page_offset: usize) -> Self {
        Error {
            kind,
            place: Place::Page {
                page: None,
                page_offset,
            },
        }
    }

    /// An error about the input as a whole.
    pub(crate) const fn whole(kind: ErrorKind) -> Self {
        Error {
            kind,
            place: Place::Whole,
        }
    }

    /// The same error, on page `n` (when it was about a page's bytes).
    #[must_use]
    pub fn on_page(mut self, n: PageNo) -> Self {
        if let Place::Page { page, .. } | Place::Space { page, .. } = &mut self.place {
            *page = Some(n);
        }
        self
    }

    /// The page it concerns, when known.
    pub fn page(&self) -> Option<PageNo> {
        match self.place {
            Place::Space { page, .. } | Place::Page { page, .. } => page,
            _ => None,
        }
    }

    /// The byte offset in the file, when it is about one.
    pub fn file_offset(&self) -> Option<u64> {
        match self.place {
            Place::Space { file_offset, .. } => Some(file_offset),
            _ => None,
        }
    }

    /// The byte offset in the page, when it is about a page's bytes.
    pub fn page_offset(&self) -> Option<usize> {
        match self.place {
            Place::Page { page_offset, .. } => Some(page_offset),
            _ => None,
        }
    }

    /// A key file or password file refused, at the line and column the
    /// problem names.
    pub(crate) fn key_file(problem: KeyFileProblem) -> Self {
        let place = match problem {
            KeyFileProblem::Syntax { line, column }
            | KeyFileProblem::InvalidKeyId { line, column }
            | KeyFileProblem::InvalidKey { line, column } => Place::Line { line, column },
            _ => Place::Whole,
        };
        Error {
            kind: ErrorKind::KeyFile(problem),
            place,
        }
    }

    /// A keyring file that cannot be read, at byte `offset` of it.
    pub(crate) fn keyring(offset: usize, what: &'static str) -> Self {
        Error {
            kind: ErrorKind::Keyring(what),
            place: Place::Byte(offset),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            ErrorKind::Empty => write!(f, "empty file (0 bytes)")?,
            ErrorKind::TooShort { len, need } => write!(
                f,
                "file too short: {len} bytes, a page needs at least {need}"
            )?,
            ErrorKind::NotInnoDb { flags, given } => {
                write!(
                    f,
                    "not an InnoDB tablespace: page 0 verifies under no reading of its flags \
                     (bytes 54..58 = 0x{flags:08x}), and at no page size from 1024 to 65536 \
                     does another page verify (crc32, innodb, none, full_crc32, \
                     ROW_FORMAT=COMPRESSED checksums tried) or carry its own page number"
                )?;
                if let Some(size) = given {
                    write!(f, "; the page size given ({size}) does not change that")?;
                }
            }
            ErrorKind::BadPageSize { size } => write!(
                f,
                "page size {size} is not one InnoDB supports (1K..64K, powers of two)"
            )?,
            ErrorKind::OutOfPage { offset, limit } => {
                write!(f, "offset {offset} is past the end ({limit})")?
            }
            // Its line and column are in its words.
            ErrorKind::KeyFile(problem) => return write!(f, "{problem}"),
            ErrorKind::Keyring(what) => {
                let at = match self.place {
                    Place::Byte(at) => at,
                    _ => 0,
                };
                return write!(f, "byte {at}: {what}");
            }
            ErrorKind::Record(kind) => {
                let at = self.page_offset().unwrap_or(0);
                return write!(f, "{kind} (page offset {at})");
            }
            ErrorKind::PageComp(kind) => {
                let at = self.page_offset().unwrap_or(0);
                return write!(f, "{kind} (byte {at})");
            }
            ErrorKind::PageCrypt(kind) => {
                let at = self.page_offset().unwrap_or(0);
                return write!(f, "{kind} (byte {at})");
            }
            ErrorKind::NoSpaceKey { key_id } => {
                return write!(f, "the key file has no key {key_id}, which the space uses");
            }
            ErrorKind::NoMasterKey(name) => {
                return write!(f, "page 0: the keyring has no master key {name}");
            }
            ErrorKind::MasterKeyMismatch(name) => {
                let at = self.file_offset().unwrap_or(0);
                return write!(
                    f,
                    "page 0, byte {at}: key does not match: tablespace key checksum differs \
                     (master key {name})"
                );
            }
        }
        match self.place {
            Place::Space {
                page: Some(p),
                file_offset,
            } => write!(f, " (page {p}, byte offset {file_offset})"),
            Place::Space {
                page: None,
                file_offset,
            } => write!(f, " (byte offset {file_offset})"),
            Place::Line { line, column } => write!(f, " (line {line}, column {column})"),
            Place::Page {
                page: Some(p),
                page_offset,
            } => write!(f, " (page {p}, page offset {page_offset})"),
            Place::Page {
                page: None,
                page_offset,
            } => write!(f, " (page offset {page_offset})"),
            Place::Byte(at) => write!(f, " (byte {at})"),
            Place::Whole => Ok(()),
        }
    }
}

impl std::error::Error for Error {}

/// Result with [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

// The kinds of the per-page errors, defined here (below the modules that
// give them) and re-exported by them: `record`, `pagecomp`,
// `crypt::mariadb`, `crypt::mysql`.

/// A page compression algorithm (`PAGE_*_ALGORITHM`, fsp0types.h).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Algorithm {
    /// 1: zlib (`compress2`), the default.
    Zlib,
    /// 2: LZ4.
    Lz4,
    /// 3: LZO.
    Lzo,
    /// 4: LZMA (an `.xz` stream, LZMA2).
    Lzma,
    /// 5: bzip2.
    Bzip2,
    /// 6: Snappy.
    Snappy,
    /// 0 (`PAGE_UNCOMPRESSED`) or a number no server defines.
    Other(u64),
}

impl Algorithm {
    /// The algorithm numbered `n`.
    pub(crate) fn from_number(n: u64) -> Self {
        match n {
            1 => Algorithm::Zlib,
            2 => Algorithm::Lz4,
            3 => Algorithm::Lzo,
            4 => Algorithm::Lzma,
            5 => Algorithm::Bzip2,
            6 => Algorithm::Snappy,
            n => Algorithm::Other(n),
        }
    }
    /// The name as `innodb_compression_algorithm` spells it.
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Zlib => "zlib",
            Algorithm::Lz4 => "lz4",
            Algorithm::Lzo => "lzo",
            Algorithm::Lzma => "lzma",
            Algorithm::Bzip2 => "bzip2",
            Algorithm::Snappy => "snappy",
            Algorithm::Other(0) => "none",
            Algorithm::Other(_) => "unknown",
        }
    }
}

/// Why a page_compressed page was not decompressed: the kind of an
/// [`ErrorKind::PageComp`], at the byte of the page where it was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum PageCompErrorKind {
    /// Encrypted (37401, or a full_crc32 key version): needs the key.
    Encrypted,
    /// Outside full_crc32: bytes 0..4 are not 0xDEADBEEF.
    NoChecksumMagic {
        /// What they hold.
        found: u32,
    },
    /// Outside full_crc32: the first 6 bytes of the algorithm field are not
    /// zero.
    AlgorithmField,
    /// No algorithm at all (0, or a number no server defines).
    NotDecoded(Algorithm),
    /// The payload size is 0 or does not fit in the page.
    PayloadSize {
        /// The size the page states.
        size: usize,
    },
    /// The zlib stream is damaged.
    Inflate(InflateErrorKind),
    /// The stream of another algorithm is damaged.
    Codec(Algorithm, CodecErrorKind),
    /// The stream ends before a whole page.
    ShortPage {
        /// Bytes it produced.
        got: usize,
    },
}

impl fmt::Display for PageCompErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            PageCompErrorKind::Encrypted => write!(
                f,
                "page_compressed and encrypted: not decoded without the key"
            )?,
            PageCompErrorKind::NoChecksumMagic { found } => write!(
                f,
                "page_compressed page without the 0xDEADBEEF marker (0x{found:08x})"
            )?,
            PageCompErrorKind::AlgorithmField => {
                write!(f, "page_compressed algorithm field is not a small number")?
            }
            PageCompErrorKind::NotDecoded(Algorithm::Other(0)) => write!(
                f,
                "page_compressed page, but no compression algorithm is named: not decoded"
            )?,
            PageCompErrorKind::NotDecoded(Algorithm::Other(n)) => {
                write!(f, "page_compressed with unknown algorithm {n}: not decoded")?
            }
            PageCompErrorKind::NotDecoded(a) => {
                write!(f, "page_compressed with {}: not decoded", a.name())?
            }
            PageCompErrorKind::Codec(a, k) => {
                write!(f, "page_compressed {} stream: {k}", a.name())?
            }
            PageCompErrorKind::PayloadSize { size } => write!(
                f,
                "page_compressed payload size {size} does not fit the page"
            )?,
            PageCompErrorKind::Inflate(k) => write!(f, "page_compressed zlib stream: {k}")?,
            PageCompErrorKind::ShortPage { got } => write!(
                f,
                "page_compressed stream gives {got} bytes, not a whole page"
            )?,
        }
        Ok(())
    }
}

/// Why a chain walk stopped early: the kind of an [`ErrorKind::Record`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RecErrorKind {
    /// A next pointer (or PAGE_FREE) names an offset where no record can
    /// be: below the user records or at/after `high` (the lower of
    /// PAGE_HEAP_TOP and the directory's start).
    OutOfPage {
        /// The offset named.
        target: u16,
        /// Lowest acceptable origin.
        low: u16,
        /// First unacceptable origin.
        high: u16,
    },
    /// A next pointer names a record already walked.
    Loop {
        /// The offset named.
        target: u16,
    },
    /// More records than the walk's bound (PAGE_N_HEAP, at most
    /// (page size − PAGE_DATA) / 5).
    TooMany {
        /// The bound.
        limit: u32,
    },
    /// The user chain ends (next = 0) before the supremum.
    EndsEarly,
    /// A COMPACT status that does not fit the record's place (a node
    /// pointer on a leaf, an ordinary record on a non-leaf page, a system
    /// status on a user record, 5..7).
    BadType {
        /// The status bits.
        status: u8,
    },
    /// A user or free record's heap number is below 2 or not below
    /// PAGE_N_HEAP.
    HeapNo {
        /// The heap number.
        heap_no: u16,
    },
}

impl fmt::Display for RecErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            RecErrorKind::OutOfPage { target, low, high } => write!(
                f,
                "points at offset {target}, outside the record area [{low}, {high})"
            ),
            RecErrorKind::Loop { target } => {
                write!(f, "points back at record {target} (loop)")
            }
            RecErrorKind::TooMany { limit } => {
                write!(f, "has more than {limit} records (PAGE_N_HEAP)")
            }
            RecErrorKind::EndsEarly => f.write_str("ends before the supremum"),
            RecErrorKind::BadType { status } => {
                write!(f, "reaches a record with status {status}, wrong here")
            }
            RecErrorKind::HeapNo { heap_no } => {
                write!(
                    f,
                    "reaches a record with heap number {heap_no}, out of range"
                )
            }
        }
    }
}

/// Why one page was not decrypted: the kind of an
/// [`ErrorKind::PageCrypt`], at the byte of the page where it was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum PageCryptErrorKind {
    /// A key version the plugin does not have (it has only 1).
    KeyVersion(u32),
    /// The checksum of the encrypted page does not hold: the server does
    /// not decrypt it ("looks corrupted").
    Checksum,
    /// The stated sizes do not fit the page.
    Size,
    /// Decrypted, the page fails the server's check of the plain page (its
    /// checksum outside full_crc32, the end LSN in full_crc32), or, when
    /// page_compressed, it does not decompress: the key is not the one the
    /// page was encrypted with.
    WrongKey,
}

impl fmt::Display for PageCryptErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            PageCryptErrorKind::KeyVersion(v) => write!(
                f,
                "encrypted with key version {v}; the key file has only version 1"
            )?,
            PageCryptErrorKind::Checksum => f.write_str(
                "encrypted page whose checksum does not hold: not decrypted (the server refuses it)",
            )?,
            PageCryptErrorKind::Size => f.write_str("encrypted page with sizes that do not fit")?,
            PageCryptErrorKind::WrongKey => f.write_str(
                "decrypted page does not verify: wrong key (or a damaged page)",
            )?,
        }
        Ok(())
    }
}

/// The name of a MySQL master key, as an error carries it (without
/// allocating): printed as the keyring names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum MasterKey {
    /// `DefaultMasterKey`: the bootstrap key of id 0 (version 3).
    Default,
    /// `INNODBKey-<uuid>-<id>` (versions 2 and 3): the uuid's bytes as
    /// page 0 stores them.
    Uuid {
        /// The server uuid's bytes.
        uuid: [u8; 36],
        /// The master key id.
        id: u32,
    },
    /// `INNODBKey-<server id>-<id>` (version 1, whose page 0 does not hold
    /// the server id: `None` is printed `<server id>`).
    ServerId {
        /// The server id of the keyring's key, if one was tried.
        server_id: Option<u32>,
        /// The master key id.
        id: u32,
    },
}

impl fmt::Display for MasterKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MasterKey::Default => f.write_str("DefaultMasterKey"),
            MasterKey::Uuid { uuid, id } => {
                let u = String::from_utf8_lossy(uuid);
                write!(f, "INNODBKey-{}-{id}", u.trim_end_matches('\0'))
            }
            MasterKey::ServerId {
                server_id: Some(s),
                id,
            } => write!(f, "INNODBKey-{s}-{id}"),
            MasterKey::ServerId {
                server_id: None,
                id,
            } => write!(f, "INNODBKey-<server id>-{id}"),
        }
    }
}
