//! The report's one error type: [`Error`], what went wrong ([`ErrorKind`])
//! and where ([`Place`]: the file it concerns, or the run's arguments).
//! Where the failure lies inside a file, the error of the crate below
//! carries it ([`ErrorKind::Open`]: the front door's, [`ErrorKind::Space`]:
//! the page core's, [`ErrorKind::Redo`] and [`ErrorKind::Dictionary`]:
//! forensics'); [`Error::page`] and [`Error::file_offset`] read it there.
//!
//! Each error prints what its reader always printed: [`Error`]'s
//! `Display` is the sentence said on stderr (naming its file), the kind's
//! is the reason alone (what a report's `error` field and the lines that
//! already name the file give).

use ibdscope_core::PageNo;
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What went wrong.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A file could not be opened, or its space or definition read: the
    /// front door's error (it names its file).
    Open(ibdscope::Error),
    /// The bytes are not a tablespace: the page core's error, with its
    /// place in the file.
    Space(ibdscope_core::Error),
    /// The redo log cannot be read: forensics' error.
    Redo(ibdscope_forensics::Error),
    /// The InnoDB dictionary cannot be read: forensics' error.
    Dictionary(ibdscope_forensics::Error),
    /// The system tablespace was not read, so neither was what it holds.
    NoSystem,
    /// No doublewrite buffer (no TRX_SYS doublewrite magic on page 5).
    NoDoublewrite,
    /// No `ibdata1` beside the file or in its parent, and no `--datadir`.
    NoDatadir,
    /// A command that reads a file was given none.
    NoFile(&'static str),
    /// A `--page-size` that is not one of InnoDB's page sizes: the text
    /// given.
    PageSize(String),
    /// `--out` is a directory.
    OutIsDirectory,
    /// `--out` exists and is not a regular file (a FIFO, socket, device).
    OutNotRegular,
    /// `--out` is an input of the run (by device and inode): the input as
    /// named.
    OutIsInput(PathBuf),
    /// `--out` exists and `--force` was not given.
    OutExists,
    /// The directory a new file was to be made in does not exist.
    NoSuchDirectory(PathBuf),
    /// What should be the directory a new file is made in is not one.
    NotADirectory(PathBuf),
    /// A new file could not be made in the directory: the system's reason.
    CreateIn(PathBuf, Arc<io::Error>),
    /// The output could not be written: the system's reason.
    Write(Arc<io::Error>),
    /// The picture could not be drawn: the drawing library's reason, in
    /// words.
    Draw(String),
    /// The file was not audited (its audit did not finish).
    NotAudited,
}

/// Where it happened.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Place {
    /// The run as a whole (an argument, no file).
    Run,
    /// A file: an input, a datadir, the `--out` target.
    File(PathBuf),
}

/// The report's error: what went wrong and where.
#[derive(Clone, Debug)]
pub struct Error {
    // Boxed: an error is a rare value, and a `Result` carrying it stays
    // small (the front door's error inside is large).
    kind: Box<ErrorKind>,
    place: Place,
}

impl Error {
    /// `kind` about the file `path`.
    pub(crate) fn at(kind: ErrorKind, path: &Path) -> Error {
        Error {
            kind: Box::new(kind),
            place: Place::File(path.to_path_buf()),
        }
    }
    /// `kind` about no one file.
    pub(crate) fn run(kind: ErrorKind) -> Error {
        Error {
            kind: Box::new(kind),
            place: Place::Run,
        }
    }
    /// The front door's error, at the file it names.
    pub(crate) fn open(e: ibdscope::Error) -> Error {
        let place = e.path.clone().map_or(Place::Run, Place::File);
        Error {
            kind: Box::new(ErrorKind::Open(e)),
            place,
        }
    }
    /// What went wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.kind
    }
    /// Where.
    pub fn place(&self) -> &Place {
        &self.place
    }
    /// The page it concerns, when the error below names one.
    pub fn page(&self) -> Option<PageNo> {
        match &*self.kind {
            ErrorKind::Open(e) => e.page(),
            ErrorKind::Space(e) => e.page(),
            ErrorKind::Redo(e) | ErrorKind::Dictionary(e) => e.page(),
            _ => None,
        }
    }
    /// The byte offset in the file it concerns, when the error below
    /// names one.
    pub fn file_offset(&self) -> Option<u64> {
        match &*self.kind {
            ErrorKind::Open(e) => e.file_offset(),
            ErrorKind::Space(e) => e.file_offset(),
            ErrorKind::Redo(e) | ErrorKind::Dictionary(e) => match e.place {
                ibdscope_forensics::Place::Page { file_offset, .. } => Some(file_offset),
                _ => None,
            },
            _ => None,
        }
    }
}

/// The system's reason for an I/O error as words in a sentence: "no such
/// file or directory", "permission denied", "no space left on device",
/// without the error number.
pub(crate) fn reason(e: &io::Error) -> String {
    let text = e.to_string();
    let text = match text.find(" (os error ") {
        Some(at) => text.get(..at).unwrap_or(&text),
        None => text.as_str(),
    };
    let mut chars = text.chars();
    match chars.next() {
        Some(c) => c.to_lowercase().chain(chars).collect(),
        None => "unknown error".to_string(),
    }
}

impl fmt::Display for ErrorKind {
    /// The reason, without the file.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ErrorKind::Open(e) => e.kind.fmt(f),
            ErrorKind::Space(e) => e.fmt(f),
            ErrorKind::Redo(e) | ErrorKind::Dictionary(e) => e.fmt(f),
            ErrorKind::NoSystem => f.write_str("the system tablespace was not read"),
            ErrorKind::NoDoublewrite => {
                f.write_str("no doublewrite buffer (no TRX_SYS doublewrite magic on page 5)")
            }
            ErrorKind::NoDatadir => {
                f.write_str("no ibdata1 beside it or in its parent; give --datadir")
            }
            ErrorKind::NoFile(cmd) => write!(f, "{cmd} needs a file"),
            ErrorKind::PageSize(s) => write!(
                f,
                "'{s}' is not a page size (1k, 2k, 4k, 8k, 16k, 32k or 64k)"
            ),
            ErrorKind::OutIsDirectory => f.write_str("is a directory; give a picture file's name"),
            ErrorKind::OutNotRegular => f.write_str(
                "is not a regular file (a FIFO, socket or device); give a picture file's name",
            ),
            ErrorKind::OutIsInput(input) => write!(
                f,
                "is the input file {}; ibdscope never writes its input",
                ibdscope::names::path(input)
            ),
            ErrorKind::OutExists => {
                f.write_str("exists; ibdscope does not overwrite it (give --force to replace it)")
            }
            ErrorKind::NoSuchDirectory(dir) => {
                write!(f, "no such directory {}", ibdscope::names::path(dir))
            }
            ErrorKind::NotADirectory(dir) => {
                write!(f, "{} is not a directory", ibdscope::names::path(dir))
            }
            ErrorKind::CreateIn(dir, e) => {
                write!(f, "{} in {}", reason(e), ibdscope::names::path(dir))
            }
            ErrorKind::Write(e) => f.write_str(&reason(e)),
            ErrorKind::Draw(why) => ibdscope::names::name(why).fmt(f),
            ErrorKind::NotAudited => f.write_str("not audited"),
        }
    }
}

impl fmt::Display for Error {
    /// The sentence its reader says: the front door's error as it words
    /// it (naming its file); `--out` and the writes of a file in their
    /// words; a redo log's, a dictionary's and an argument's reason alone
    /// (the lines that give them name the datadir); the others the file,
    /// then the reason.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let file = match &self.place {
            Place::File(p) => Some(ibdscope::names::path(p)),
            Place::Run => None,
        };
        match (&*self.kind, file) {
            (ErrorKind::Open(e), _) => e.fmt(f),
            (
                ErrorKind::OutIsDirectory
                | ErrorKind::OutNotRegular
                | ErrorKind::OutIsInput(_)
                | ErrorKind::OutExists,
                Some(file),
            ) => write!(f, "--out {file} {}", self.kind),
            (
                ErrorKind::NoSuchDirectory(_)
                | ErrorKind::NotADirectory(_)
                | ErrorKind::CreateIn(..)
                | ErrorKind::Write(_)
                | ErrorKind::Draw(_),
                Some(file),
            ) => write!(f, "cannot write {file}: {}", self.kind),
            (
                ErrorKind::Redo(_)
                | ErrorKind::Dictionary(_)
                | ErrorKind::PageSize(_)
                | ErrorKind::NoFile(_),
                _,
            )
            | (_, None) => self.kind.fmt(f),
            (_, Some(file)) => write!(f, "{file}: {}", self.kind),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &*self.kind {
            ErrorKind::Open(e) => Some(e),
            ErrorKind::Space(e) => Some(e),
            ErrorKind::Redo(e) | ErrorKind::Dictionary(e) => Some(e),
            ErrorKind::CreateIn(_, e) | ErrorKind::Write(e) => Some(e.as_ref()),
            _ => None,
        }
    }
}

impl From<ibdscope::Error> for Error {
    fn from(e: ibdscope::Error) -> Self {
        Error::open(e)
    }
}
