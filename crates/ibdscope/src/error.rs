//! The front door's one error type: [`Error`], what went wrong
//! ([`ErrorKind`]) and the file it concerns ([`Error::path`]). Where the
//! failure lies in the file, the error of the crate below carries it (a
//! byte of the space for [`ErrorKind::Parse`], a page and byte for
//! [`ErrorKind::Rows`] and [`ErrorKind::History`]); [`Error::page`] and
//! [`Error::file_offset`] read it from there.

use crate::diagnostic::Diagnostic;
use ibdscope_core::PageNo;
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

/// What went wrong.
#[derive(Debug)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The file (or a data file of the system tablespace) could not be
    /// read: the host's reason (the system's error, or why it refuses the
    /// file: a directory, a device it does not read).
    Open(io::Error),
    /// The bytes are not a tablespace this library reads (empty, too
    /// short, no page size that fits): the page core's error, with its
    /// place.
    Parse(ibdscope_core::Error),
    /// The space cannot be read as a whole (page 0's crypt data is
    /// damaged so that no key opens it): why, with its place.
    Unreadable(Diagnostic),
    /// No table definition was found (no SDI, `.frm`, dictionary or
    /// `CREATE TABLE` given): why, in words naming the files.
    NoDefinition(String),
    /// The definition has no index of that name.
    NoIndex(String),
    /// The index's rows cannot be read (no root page, a root that is not
    /// a page of the index, a layout the definition cannot give).
    Rows(ibdscope_schema::Error),
    /// No `ibdata1` beside the file or in its parent, and no datadir
    /// given: the undo logs cannot be found.
    NoDatadir,
    /// The system tablespace or an undo tablespace could not be opened.
    UndoFiles(Box<Error>),
    /// No TRX_SYS page names the rollback segments ([`Error::path`]: the
    /// datadir).
    NoTrxSys,
    /// The rows' versions cannot be read (no system columns, no way down
    /// to the leaves).
    History(ibdscope_forensics::Error),
    /// An `innodb_data_file_path` (`--data-file-path`) entry that is not
    /// `file_name:file_size[:autoextend]`: the entry.
    DataFileEntry(String),
    /// An `innodb_data_file_path` entry naming a raw partition (`newraw`,
    /// `raw`): the entry.
    RawPartition(String),
    /// An empty `innodb_data_file_path`.
    NoDataFiles,
    /// More data files than InnoDB opens: the most.
    TooManyDataFiles(u32),
}

impl fmt::Display for ErrorKind {
    /// The reason, without the file.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ErrorKind::Open(e) => e.fmt(f),
            ErrorKind::Parse(e) => e.fmt(f),
            ErrorKind::Unreadable(d) => d.fmt(f),
            ErrorKind::NoDefinition(why) => write!(f, "no table definition: {why}"),
            ErrorKind::NoIndex(name) => write!(f, "the definition has no index {name}"),
            ErrorKind::Rows(e) => e.fmt(f),
            ErrorKind::NoDatadir => {
                f.write_str("no ibdata1 in its directory or the one above: give the datadir")
            }
            ErrorKind::UndoFiles(e) => e.fmt(f),
            ErrorKind::NoTrxSys => f.write_str("no TRX_SYS page to name the rollback segments"),
            ErrorKind::History(e) => e.fmt(f),
            ErrorKind::DataFileEntry(entry) => write!(
                f,
                "'{entry}': an innodb_data_file_path entry is file_name:file_size[:autoextend]"
            ),
            ErrorKind::RawPartition(entry) => {
                write!(f, "'{entry}': raw partitions are not read")
            }
            ErrorKind::NoDataFiles => f.write_str("an empty innodb_data_file_path"),
            ErrorKind::TooManyDataFiles(n) => {
                write!(f, "more than {n} data files")
            }
        }
    }
}

/// An error of the front door: what, and the file it concerns.
#[derive(Debug)]
#[non_exhaustive]
pub struct Error {
    /// What went wrong.
    pub kind: ErrorKind,
    /// The file it concerns, when one.
    pub path: Option<PathBuf>,
}

impl Error {
    /// `kind`, about the file `path`.
    pub(crate) fn new(kind: ErrorKind, path: &Path) -> Error {
        Error {
            kind,
            path: Some(path.to_path_buf()),
        }
    }
    /// `kind`, about no one file.
    pub(crate) fn bare(kind: ErrorKind) -> Error {
        Error { kind, path: None }
    }
    /// `path` could not be read: a host's error ([`crate::host::Host::open`]).
    pub fn open(path: &Path, e: io::Error) -> Error {
        Error::new(ErrorKind::Open(e), path)
    }
    /// The page it concerns, when the error below names one.
    pub fn page(&self) -> Option<PageNo> {
        match &self.kind {
            ErrorKind::Parse(e) => e.page(),
            ErrorKind::Rows(e) => e.page(),
            ErrorKind::History(e) => e.page(),
            ErrorKind::UndoFiles(e) => e.page(),
            _ => None,
        }
    }
    /// The byte offset in the file it concerns, when the error below
    /// names one.
    pub fn file_offset(&self) -> Option<u64> {
        match &self.kind {
            ErrorKind::Parse(e) => e.file_offset(),
            ErrorKind::History(e) => e.file_offset(),
            ErrorKind::UndoFiles(e) => e.file_offset(),
            _ => None,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.kind, &self.path) {
            // Their words name the file (or say it is none) themselves.
            (
                ErrorKind::Unreadable(_)
                | ErrorKind::NoDefinition(_)
                | ErrorKind::NoIndex(_)
                | ErrorKind::Rows(_)
                | ErrorKind::UndoFiles(_),
                _,
            )
            | (_, None) => self.kind.fmt(f),
            (_, Some(p)) => write!(f, "{}: {}", crate::names::path(p), self.kind),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.kind {
            ErrorKind::Open(e) => Some(e),
            ErrorKind::Parse(e) => Some(e),
            ErrorKind::Rows(e) => Some(e),
            ErrorKind::UndoFiles(e) => Some(e.as_ref()),
            ErrorKind::History(e) => Some(e),
            _ => None,
        }
    }
}
