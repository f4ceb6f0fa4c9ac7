//! The crate's one error type: [`Error`], a kind ([`ErrorKind`], one
//! variant per reader: `.frm`, DDL, SDI definitions, record layouts,
//! records, off-page values, ROW_FORMAT=COMPRESSED pages, MariaDB instant
//! ALTER metadata, the descent to a leaf, an index scan) and the place it
//! happened ([`Place`]: a byte of a `.frm`, a line and column of DDL text,
//! a byte of a page). Each kind prints as that reader always has.

use crate::ddl::DdlErrorKind;
use crate::frm::FrmErrorKind;
use crate::instant::InstantErrorKind;
use crate::row::{DescentErrorKind, LobErrorKind, RowErrorKind};
use crate::rows::ScanErrorKind;
use crate::table::{FromSpaceErrorKind, LayoutErrorKind, SdiDefErrorKind};
use crate::zip::ZipErrorKind;
use ibdscope_core::PageNo;
use std::fmt;

/// What went wrong: the reader and its kind of failure.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A `.frm` cannot be read ([`Place::File`]: the byte of the value at
    /// fault).
    Frm(FrmErrorKind),
    /// A DDL statement cannot be read ([`Place::Line`], or
    /// [`Place::Whole`] when not tied to a place).
    Ddl(DdlErrorKind),
    /// An SDI document is not a table definition this reader understands.
    SdiDef(SdiDefErrorKind),
    /// A record layout cannot be built from the definition.
    Layout(LayoutErrorKind),
    /// No definition from the space's SDI.
    FromSpace(FromSpaceErrorKind),
    /// MariaDB instant ALTER's metadata cannot be read.
    Instant(InstantErrorKind),
    /// A record cannot be split ([`Place::Page`]: the bytes at fault).
    Row(RowErrorKind),
    /// An off-page value cannot be read completely ([`Place::Page`]: the
    /// page and byte; for a damaged ZBLOB stream, the stream's byte).
    Lob(LobErrorKind),
    /// The leftmost leaf of an index cannot be reached.
    Descent(DescentErrorKind),
    /// A ROW_FORMAT=COMPRESSED page cannot be rebuilt ([`Place::Page`]: a
    /// byte of the compressed page; [`Place::Rebuilt`]: of the
    /// uncompressed page being rebuilt).
    Zip(ZipErrorKind),
    /// An index's rows cannot be read at all.
    Scan(ScanErrorKind),
}

/// Where an [`Error`] lies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Place {
    /// The input as a whole, or a place the kind names itself.
    Whole,
    /// A byte of the file read (a `.frm`).
    File {
        /// Byte offset in the file.
        offset: usize,
    },
    /// A line and column (from 1, in characters) of a text.
    Line {
        /// Line.
        line: u32,
        /// Column.
        column: u32,
    },
    /// A byte of a page (the page number when it is known).
    Page {
        /// The page, if known.
        page: Option<PageNo>,
        /// Byte offset in the page.
        page_offset: usize,
    },
    /// A byte of the uncompressed page rebuilt from a ROW_FORMAT=COMPRESSED
    /// page.
    Rebuilt {
        /// The page, if known.
        page: Option<PageNo>,
        /// Byte offset in the uncompressed page.
        page_offset: usize,
    },
}

/// An error with the place it happened.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Error {
    /// What went wrong.
    pub kind: ErrorKind,
    /// Where.
    pub place: Place,
}

impl Error {
    /// An error at `place`.
    pub(crate) fn new(kind: ErrorKind, place: Place) -> Self {
        Error { kind, place }
    }
    /// An error about the input as a whole (or placed by its kind).
    pub(crate) fn whole(kind: ErrorKind) -> Self {
        Error::new(kind, Place::Whole)
    }
    /// An error at byte `page_offset` of a page.
    pub(crate) fn in_page(kind: ErrorKind, page: Option<PageNo>, page_offset: usize) -> Self {
        Error::new(kind, Place::Page { page, page_offset })
    }
    /// The same error, on page `n` (when it was about a page's bytes).
    #[must_use]
    pub fn on_page(mut self, n: PageNo) -> Self {
        if let Place::Page { page, .. } | Place::Rebuilt { page, .. } = &mut self.place {
            *page = Some(n);
        }
        self
    }
    /// The page it concerns, when known: the page of its place, or the
    /// page its kind names.
    pub fn page(&self) -> Option<PageNo> {
        match self.place {
            Place::Page { page: Some(p), .. } | Place::Rebuilt { page: Some(p), .. } => Some(p),
            _ => self.kind_page(),
        }
    }
    /// The byte offset in the page (compressed, or rebuilt for
    /// [`Place::Rebuilt`]), when it is about a page's bytes.
    pub(crate) fn page_offset(&self) -> Option<usize> {
        match self.place {
            Place::Page { page_offset, .. } | Place::Rebuilt { page_offset, .. } => {
                Some(page_offset)
            }
            _ => None,
        }
    }
    /// The byte offset in the file, when it is about one (a `.frm`).
    pub(crate) fn file_offset(&self) -> Option<usize> {
        match self.place {
            Place::File { offset } => Some(offset),
            _ => None,
        }
    }
    /// The page a kind names in its own words.
    fn kind_page(&self) -> Option<PageNo> {
        match &self.kind {
            ErrorKind::Instant(k) => k.page(),
            ErrorKind::Descent(k) => Some(k.page()),
            ErrorKind::Scan(k) => k.page(),
            _ => None,
        }
    }
    /// The page offset, or 0.
    fn at(&self) -> usize {
        self.page_offset().unwrap_or(0)
    }
}

#[cfg(test)]
#[allow(clippy::panic, reason = "test helpers: the wrong kind fails the test")]
impl Error {
    pub(crate) fn frm(&self) -> FrmErrorKind {
        match &self.kind {
            ErrorKind::Frm(k) => *k,
            k => panic!("not a .frm error: {k:?}"),
        }
    }
    pub(crate) fn ddl(&self) -> DdlErrorKind {
        match &self.kind {
            ErrorKind::Ddl(k) => k.clone(),
            k => panic!("not a DDL error: {k:?}"),
        }
    }
    pub(crate) fn line_col(&self) -> (u32, u32) {
        match self.place {
            Place::Line { line, column } => (line, column),
            _ => (0, 0),
        }
    }
    pub(crate) fn row(&self) -> RowErrorKind {
        match &self.kind {
            ErrorKind::Row(k) => *k,
            k => panic!("not a record error: {k:?}"),
        }
    }
    pub(crate) fn lob(&self) -> LobErrorKind {
        match &self.kind {
            ErrorKind::Lob(k) => *k,
            k => panic!("not an off-page error: {k:?}"),
        }
    }
    pub(crate) fn zip(&self) -> ZipErrorKind {
        match &self.kind {
            ErrorKind::Zip(k) => *k,
            k => panic!("not a ROW_FORMAT=COMPRESSED error: {k:?}"),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            ErrorKind::Frm(k) => {
                write!(f, "{k} at byte {}", self.file_offset().unwrap_or(0))
            }
            ErrorKind::Ddl(k) => {
                if let Place::Line { line, column } = self.place {
                    write!(f, "line {line}, column {column}: ")?;
                }
                write!(f, "{k}")
            }
            ErrorKind::SdiDef(k) => write!(f, "{k}"),
            ErrorKind::Layout(k) => write!(f, "{k}"),
            ErrorKind::FromSpace(k) => write!(f, "{k}"),
            ErrorKind::Instant(k) => write!(f, "{k}"),
            ErrorKind::Row(k) => k.fmt_at(f, self.at()),
            ErrorKind::Lob(k) => k.fmt_at(f, self.page().unwrap_or(PageNo(0)), self.at()),
            ErrorKind::Descent(k) => write!(f, "{k}"),
            ErrorKind::Zip(k) => {
                let logical = matches!(self.place, Place::Rebuilt { .. });
                k.fmt_at(f, self.at(), logical)
            }
            ErrorKind::Scan(k) => write!(f, "{k}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.kind {
            ErrorKind::FromSpace(FromSpaceErrorKind::Json(e)) => Some(e),
            _ => None,
        }
    }
}
