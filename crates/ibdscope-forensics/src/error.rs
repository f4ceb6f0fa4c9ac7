//! The crate's one error: why an input could not be read at all (a
//! dictionary, a redo log, two copies to compare, one undo record), with
//! the place it concerns. Damage the reading goes past is not an error but
//! a problem or finding of the report it builds.

use ibdscope_core::PageNo;
use std::fmt;

/// Where an [`Error`] lies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Place {
    /// The input as a whole (a file's length, its format word, two files'
    /// page sizes).
    Whole,
    /// A page of the file, and where it starts in the file.
    Page {
        /// The page.
        page: PageNo,
        /// Its first byte's offset in the file.
        file_offset: u64,
    },
    /// A byte of the page being read (the caller knows which page).
    InPage(usize),
}

/// What went wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The dictionary: the space is not space 0.
    NotSystemSpace,
    /// The dictionary: its header page is missing or does not verify.
    NoDictHeader,
    /// A diff: the two copies' page sizes differ.
    PageSizesDiffer {
        /// First copy's.
        a: u32,
        /// Second copy's.
        b: u32,
    },
    /// The redo log: no files.
    NoRedoFiles,
    /// The redo log: the first file is shorter than its header.
    RedoTooShort {
        /// Bytes.
        len: u64,
    },
    /// The redo log: the format word is not one the servers write.
    UnknownRedoFormat {
        /// The word.
        format: u32,
    },
    /// The redo log: no checkpoint block verifies.
    NoCheckpoint,
    /// An undo record: its offset is outside the page's record area.
    UndoOutsideRecords,
    /// An undo record runs past its page.
    UndoPastPage {
        /// Its next-record offset.
        next: usize,
    },
    /// An undo record's trailing offset does not point back to its start.
    UndoTrailer,
    /// An undo record ends before its type byte.
    UndoShort,
    /// A field of an undo record runs past the record's end.
    UndoFieldPastEnd,
    /// An undo record's update vector counts more fields than fit in it.
    UndoTooManyFields {
        /// The count.
        n: u32,
    },
    /// A roll pointer's rollback segment is not in TRX_SYS.
    RollSegNotInTrxSys {
        /// The roll pointer.
        roll_ptr: u64,
        /// Its rollback segment.
        rseg: u8,
    },
    /// A roll pointer's rollback segment is in a space not among the
    /// files read.
    RollSegSpaceNotRead {
        /// The roll pointer.
        roll_ptr: u64,
        /// Its rollback segment.
        rseg: u8,
        /// The segment's space.
        space: u32,
    },
    /// A roll pointer's page is outside its undo space.
    UndoPageOutside {
        /// The roll pointer.
        roll_ptr: u64,
        /// Its page.
        page: u32,
        /// The undo space.
        space: u32,
        /// Its pages.
        n_pages: u32,
    },
    /// A roll pointer's page is not an undo log page ([`Place::Page`]).
    NotUndoPage {
        /// The roll pointer.
        roll_ptr: u64,
        /// Its page.
        page: u32,
        /// The undo space.
        space: u32,
        /// The page's type.
        page_type: u16,
    },
    /// A history: the layout has no `DB_TRX_ID` / `DB_ROLL_PTR` (not a
    /// clustered index).
    NoSystemColumns,
    /// A history: the leftmost leaf cannot be reached from the root.
    Descent(ibdscope_schema::row::DescentErrorKind),
}

/// An error of this crate: what, and where.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Error {
    /// What went wrong.
    pub kind: ErrorKind,
    /// Where.
    pub place: Place,
}

impl Error {
    /// An error about the input as a whole.
    pub(crate) fn whole(kind: ErrorKind) -> Self {
        Error {
            kind,
            place: Place::Whole,
        }
    }

    /// An error at byte `at` of the page being read.
    pub(crate) fn in_page(kind: ErrorKind, at: usize) -> Self {
        Error {
            kind,
            place: Place::InPage(at),
        }
    }

    /// An error about page `page`, which starts at `file_offset`.
    pub(crate) fn on_page(kind: ErrorKind, page: PageNo, file_offset: u64) -> Self {
        Error {
            kind,
            place: Place::Page { page, file_offset },
        }
    }

    /// The page it concerns, if one (for a descent, the page it names).
    pub fn page(&self) -> Option<PageNo> {
        match (self.place, self.kind) {
            (Place::Page { page, .. }, _) => Some(page),
            (_, ErrorKind::Descent(k)) => {
                use ibdscope_schema::row::DescentErrorKind as D;
                match k {
                    D::NotIndex(p)
                    | D::Empty(p)
                    | D::Record(p, ..)
                    | D::TooDeep(p)
                    | D::Loop(p, _) => Some(p),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// The byte of the page being read it lies at, if it lies in one.
    pub fn page_offset(&self) -> Option<usize> {
        match self.place {
            Place::InPage(at) => Some(at),
            _ => None,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            ErrorKind::NotSystemSpace => f.write_str("not the system tablespace (space id 0)"),
            ErrorKind::NoDictHeader => {
                let (page, at) = match self.place {
                    Place::Page { page, file_offset } => (page.0, file_offset),
                    _ => (0, 0),
                };
                write!(
                    f,
                    "the data dictionary header (page {page}) at byte offset {at} is missing or \
                     does not verify: no system table can be found"
                )
            }
            ErrorKind::PageSizesDiffer { a, b } => write!(
                f,
                "page sizes differ ({a} and {b} bytes): not copies of one tablespace"
            ),
            ErrorKind::NoRedoFiles => f.write_str("no redo log files"),
            ErrorKind::RedoTooShort { len } => {
                write!(f, "redo log file too short ({len} bytes) for its header")
            }
            ErrorKind::UnknownRedoFormat { format } => {
                write!(f, "unknown redo log format 0x{format:08x}")
            }
            ErrorKind::NoCheckpoint => f.write_str("no checkpoint block of the redo log verifies"),
            ErrorKind::UndoOutsideRecords => {
                f.write_str("the record offset is outside the page's record area")
            }
            ErrorKind::UndoPastPage { next } => write!(
                f,
                "the record runs past its page (its next-record offset is {next})"
            ),
            ErrorKind::UndoTrailer => {
                f.write_str("the record's trailing offset does not point back to its start")
            }
            ErrorKind::UndoShort => f.write_str("short"),
            ErrorKind::UndoFieldPastEnd => f.write_str("a field runs past the record's end"),
            ErrorKind::UndoTooManyFields { n } => {
                write!(f, "{n} updated fields cannot fit in the record")
            }
            ErrorKind::RollSegNotInTrxSys { roll_ptr, rseg } => write!(
                f,
                "roll pointer {roll_ptr:#016x}: rollback segment {rseg} is not in TRX_SYS"
            ),
            ErrorKind::RollSegSpaceNotRead {
                roll_ptr,
                rseg,
                space,
            } => write!(
                f,
                "roll pointer {roll_ptr:#016x}: rollback segment {rseg} is in space {space}, \
                 which is not among the files read"
            ),
            ErrorKind::UndoPageOutside {
                roll_ptr,
                page,
                space,
                n_pages,
            } => {
                write!(
                    f,
                    "roll pointer {roll_ptr:#016x}: page {page} is outside the undo space {space} \
                     ({n_pages} pages)"
                )
            }
            ErrorKind::NotUndoPage {
                roll_ptr,
                page,
                space,
                page_type,
            } => {
                write!(
                    f,
                    "roll pointer {roll_ptr:#016x}: page {page} of space {space} is not an undo \
                     log page (type {page_type})"
                )
            }
            ErrorKind::NoSystemColumns => {
                f.write_str("the clustered index has no DB_TRX_ID / DB_ROLL_PTR")
            }
            ErrorKind::Descent(k) => write!(f, "{k}"),
        }
    }
}

impl std::error::Error for Error {}
