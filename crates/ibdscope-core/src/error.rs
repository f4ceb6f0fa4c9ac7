//! Errors: the few conditions that make a whole file unusable, and the
//! inputs beside it that cannot be used (a MariaDB key file or password
//! file, a MySQL keyring file), each with its place ([`Place`]).
//!
//! Damage to single pages is never an [`Error`]; it is a [`crate::Finding`].
//! An `Error` is `Copy` and carries no `String`, so it costs nothing to
//! create on a hot path; the CLI adds the file path when it prints one.
//!
//! The crate's other error types are each about one page or stream of the
//! file and carry an offset into it, printed its own way.
//! [`crate::inflate::InflateError`] is about a zlib stream (the compressed
//! byte), [`crate::pagecomp::PageCompError`] about one page_compressed page
//! (the byte in the page; it holds the stream's kind when inflating
//! failed), and [`crate::record::RecError`] about one record chain (the page
//! offset), where it becomes a finding. They stay apart so that a caller
//! matches only the kinds its call can give.

use crate::ids::PageNo;
use std::fmt;

/// What went wrong, with what was found and what was expected.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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
}

/// Why a MariaDB key file or password file is refused: the plugin's
/// reasons (`crypt::mariadb`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Place {
    /// A byte of the tablespace file, on a page if it concerns one.
    Space {
        /// The page, if one.
        page: Option<PageNo>,
        /// Byte offset in the file.
        file_offset: u64,
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
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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
    pub const fn at(kind: ErrorKind, file_offset: u64) -> Self {
        Error {
            kind,
            place: Place::Space {
                page: None,
                file_offset,
            },
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
            Place::Byte(at) => write!(f, " (byte {at})"),
            Place::Whole => Ok(()),
        }
    }
}

impl std::error::Error for Error {}

/// Result with [`Error`].
pub type Result<T> = std::result::Result<T, Error>;
