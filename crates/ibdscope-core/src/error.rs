//! Errors: the few conditions that make a whole file unusable.
//!
//! Damage to single pages is never an [`Error`]; it is a [`crate::Finding`].
//! An `Error` is `Copy` and carries no `String`, so it costs nothing to
//! create on a hot path; the CLI adds the file path when it prints one.
//!
//! The crate's other error types are not about the file: each is about one
//! input of its own and carries an offset into it, printed its own way.
//! `ibdscope_codec::inflate::InflateError` is about a zlib stream (the compressed
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
}

/// An error with the place it happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Error {
    /// What went wrong.
    pub kind: ErrorKind,
    /// The page it concerns, if one.
    pub page: Option<PageNo>,
    /// Byte offset in the file.
    pub file_offset: u64,
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
            page: None,
            file_offset,
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
        }
        if let Some(p) = self.page {
            write!(f, " (page {p}")?;
            write!(f, ", byte offset {})", self.file_offset)
        } else {
            write!(f, " (byte offset {})", self.file_offset)
        }
    }
}

impl std::error::Error for Error {}

/// Result with [`Error`].
pub type Result<T> = std::result::Result<T, Error>;
