//! The crate's one error type: [`Error`], a kind ([`ErrorKind`], one
//! variant per reader: `.frm`, DDL, SDI definitions, record layouts,
//! records, off-page values, ROW_FORMAT=COMPRESSED pages, MariaDB instant
//! ALTER metadata, the descent to a leaf, an index scan) and the place it
//! happened ([`Place`]: a byte of a `.frm`, a line and column of DDL text,
//! a byte of a page). Each kind prints as that reader always has.

use ibdscope_codec::inflate::InflateErrorKind;
use ibdscope_core::{NoRecords, PageNo, PageType};
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

// The readers' kinds and what they carry, defined here (below the
// modules that give them) and re-exported by those modules.

/// Largest statement text read (64 MiB: a mysqldump file with rows).
pub const MAX_DDL_BYTES: usize = 64 << 20;

/// A name, element or comment longer than the servers allow: a definition
/// that no server wrote, refused before it is repeated on every row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TooLong {
    /// What it is ("column name", "ENUM/SET element", …).
    pub what: &'static str,
    /// Its position, 1-based (column, index or element number; 0: the
    /// table's own).
    pub number: usize,
    /// Its length in characters (or elements, for an element count).
    pub len: usize,
    /// The servers' limit.
    pub max: usize,
}

impl std::fmt::Display for TooLong {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let unit = if self.what.ends_with("count") {
            ""
        } else {
            " characters"
        };
        if self.number > 0 {
            write!(f, "{} {} is {}{unit}", self.what, self.number, self.len)?;
        } else {
            write!(f, "{} is {}{unit}", self.what, self.len)?;
        }
        write!(f, ", more than the {} MySQL and MariaDB allow", self.max)
    }
}

/// Why a definition could not be read from an SDI document: the kind of
/// an [`ErrorKind::SdiDef`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SdiDefErrorKind {
    /// The document has no `dd_object`.
    NoObject,
    /// It describes something other than a table (a tablespace).
    NotTable,
    /// A required member is missing or has the wrong JSON type; its name.
    Missing(&'static str),
    /// An index element names a column position past the columns.
    BadColumnRef(u64),
    /// A name or element longer than the servers allow.
    TooLong(TooLong),
}

impl std::fmt::Display for SdiDefErrorKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SdiDefErrorKind::NoObject => write!(f, "SDI document has no dd_object"),
            SdiDefErrorKind::NotTable => write!(f, "SDI document is not a table"),
            SdiDefErrorKind::Missing(m) => write!(f, "SDI member {m} missing or malformed"),
            SdiDefErrorKind::BadColumnRef(n) => write!(f, "index element names column {n}"),
            SdiDefErrorKind::TooLong(t) => write!(f, "SDI: {t}"),
        }
    }
}

/// Why a record layout cannot be built: the kind of an
/// [`ErrorKind::Layout`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum LayoutErrorKind {
    /// The index does not exist.
    NoIndex,
    /// A column type this reader does not know (its SDI number).
    UnknownType(u32),
    /// A CHAR column in a collation whose byte widths are unknown.
    UnknownCharset(u32),
    /// DECIMAL(precision, scale) with scale above precision.
    BadDecimal(u32, u32),
    /// An element names a column that does not exist.
    BadColumn(usize),
}

impl std::fmt::Display for LayoutErrorKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LayoutErrorKind::NoIndex => write!(f, "no such index"),
            LayoutErrorKind::UnknownType(t) => write!(f, "unknown column type {t}"),
            LayoutErrorKind::UnknownCharset(c) => {
                write!(
                    f,
                    "CHAR column in collation {c}, whose byte widths are unknown"
                )
            }
            LayoutErrorKind::BadDecimal(p, s) => write!(f, "DECIMAL({p},{s})"),
            LayoutErrorKind::BadColumn(c) => write!(f, "index element names column {c}"),
        }
    }
}

/// Why [`TableDef::from_tablespace`] found no definition: the kind of an
/// [`ErrorKind::FromSpace`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum FromSpaceErrorKind {
    /// The space has no SDI (MySQL before 8.0, MariaDB), or its SDI
    /// cannot be read (encrypted, ROW_FORMAT=COMPRESSED pages).
    NoSdi,
    /// The SDI walk or a document failed: the first problem.
    Sdi(SdiFinding),
    /// No SDI record of type 1 (table).
    NoTable,
    /// The table document is not JSON.
    Json(crate::json::JsonError),
    /// The document is not a table definition this reader understands.
    Def(SdiDefErrorKind),
}

impl std::fmt::Display for FromSpaceErrorKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FromSpaceErrorKind::NoSdi => write!(f, "the file holds no readable SDI"),
            FromSpaceErrorKind::Sdi(s) => {
                write!(f, "SDI: page {} byte {}: {}", s.page, s.offset, s.problem)
            }
            FromSpaceErrorKind::NoTable => write!(f, "the SDI holds no table document"),
            FromSpaceErrorKind::Json(e) => write!(f, "SDI table document: {e}"),
            FromSpaceErrorKind::Def(e) => write!(f, "SDI table document: {e}"),
        }
    }
}

/// A problem with its page and byte offset on that page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct SdiFinding {
    /// The page.
    pub page: PageNo,
    /// Byte offset on it.
    pub offset: u16,
    /// What.
    pub problem: SdiProblem,
}

/// What went wrong reading the SDI.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SdiProblem {
    /// Page 0 names an SDI version other than 1.
    BadVersion(u32),
    /// The root (or a page reached from it) is not an SDI index page.
    NotSdiPage(PageType),
    /// The root names a page past the end of the file.
    PastFile,
    /// The tree descends more levels than any B-tree can have, or a leaf
    /// chain revisits a page.
    Loop,
    /// A page's records could not be walked (see the `page` command).
    Records,
    /// A record is too short or its data runs off the page.
    BadRecord,
    /// The off-page chain ends early, loops or reaches a page that is not
    /// an SDI BLOB page.
    BadChain,
    /// The off-page chain comes back to a page it has already read (the
    /// finding's page).
    ChainLoop,
    /// Compressed bytes found and stated differ.
    LengthMismatch {
        /// As stated in the record.
        stated: u32,
        /// As assembled.
        found: u32,
    },
    /// The zlib stream does not inflate.
    Inflate(ibdscope_codec::Error),
    /// It inflates to another length than stated.
    InflatedLength {
        /// As stated.
        stated: u32,
        /// As produced.
        found: u32,
    },
    /// The pages are encrypted, or ROW_FORMAT=COMPRESSED and do not
    /// decompress ([`crate::zip::decompress`]): not readable here.
    Unreadable,
}

impl fmt::Display for SdiProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SdiProblem::BadVersion(v) => write!(f, "SDI version {v} on page 0 (expected 1)"),
            SdiProblem::NotSdiPage(t) => write!(f, "SDI tree page is of type {}", t.0),
            SdiProblem::PastFile => f.write_str("SDI page past the end of the file"),
            SdiProblem::Loop => f.write_str("SDI tree loops or is too deep"),
            SdiProblem::Records => f.write_str("SDI page records cannot be walked"),
            SdiProblem::BadRecord => f.write_str("SDI record runs off its page"),
            SdiProblem::BadChain => f.write_str("SDI off-page chain is broken"),
            SdiProblem::ChainLoop => {
                f.write_str("SDI off-page chain loops: it comes back to this page")
            }
            SdiProblem::LengthMismatch { stated, found } => write!(
                f,
                "SDI record says {stated} compressed bytes, {found} found"
            ),
            SdiProblem::Inflate(e) => write!(f, "SDI data: {e}"),
            SdiProblem::InflatedLength { stated, found } => write!(
                f,
                "SDI record says {stated} bytes uncompressed, {found} inflated"
            ),
            SdiProblem::Unreadable => f.write_str(
                "SDI pages are encrypted, or compressed and not decompressed: not readable here",
            ),
        }
    }
}

/// Why a `.frm` could not be read: the kind of an [`ErrorKind::Frm`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum FrmErrorKind {
    /// Shorter than the 64-byte header plus the forminfo.
    TooShort,
    /// A view definition (`TYPE=VIEW`), not a table.
    View,
    /// The first two bytes are not `FE 01`.
    BadMagic,
    /// A frm version this reader does not read (before 4.1: 11-byte
    /// column records, or above MariaDB's 11).
    UnsupportedVersion(u8),
    /// A value read from the file points past its end: what it is, the
    /// value and the file length.
    OutOfFile {
        /// What the value is.
        what: &'static str,
        /// The value.
        value: u64,
        /// The file's length.
        len: usize,
    },
    /// A name list (columns, keys, ENUM/SET elements) is not
    /// separator-delimited and NUL-terminated as written.
    BadNames(&'static str),
    /// A count in the file disagrees with what the section holds.
    CountMismatch {
        /// What is counted.
        what: &'static str,
        /// The count the file states.
        stated: u32,
        /// What was found.
        found: u32,
    },
    /// The MariaDB extra2 segment is malformed.
    BadExtra2,
    /// A key part names a column that does not exist (1-based number).
    BadKeyColumn(u16),
    /// A generated column or expression entry is malformed.
    BadExpression,
    /// A column's ENUM/SET list number is past the lists.
    BadInterval(u8),
    /// A name, ENUM/SET element or comment longer than the servers allow
    /// ([`crate::table::NAME_CHAR_LEN`] and the others beside it).
    TooLong(TooLong),
}

impl fmt::Display for FrmErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use FrmErrorKind::*;
        match *self {
            TooShort => write!(f, "file too short for a .frm"),
            View => write!(f, "a view definition, not a table"),
            BadMagic => write!(f, "not a .frm file (magic is not FE 01)"),
            UnsupportedVersion(v) => write!(f, "unsupported frm version {v}"),
            OutOfFile { what, value, len } => {
                write!(
                    f,
                    "{what} {value} points past the end of the file ({len} bytes)"
                )
            }
            BadNames(w) => write!(f, "malformed {w} list"),
            CountMismatch {
                what,
                stated,
                found,
            } => {
                write!(f, "{what}: file says {stated}, found {found}")
            }
            BadExtra2 => write!(f, "malformed extra2 segment"),
            BadKeyColumn(n) => write!(f, "key part names column {n}, which does not exist"),
            BadExpression => write!(f, "malformed expression entry"),
            BadInterval(n) => write!(f, "ENUM/SET list {n} does not exist"),
            TooLong(t) => write!(f, "{t}"),
        }
    }
}

/// Why a DDL statement cannot be read: the kind of an [`ErrorKind::Ddl`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum DdlErrorKind {
    /// The text is longer than [`MAX_DDL_BYTES`].
    TooLarge(usize),
    /// A string, quoted identifier or comment runs to the end of the text.
    Unterminated(&'static str),
    /// Something else was expected here.
    Expected {
        /// What was expected.
        what: &'static str,
        /// What was found (shortened).
        found: String,
    },
    /// Valid SQL this reader does not turn into a definition.
    Unsupported(String),
    /// A character set neither server has.
    UnknownCharset(String),
    /// A collation neither server has.
    UnknownCollation(String),
    /// A key names a column the table does not have.
    UnknownColumn(String),
    /// Two columns have the same name.
    DuplicateColumn(String),
    /// More columns, keys, key parts or elements than a server allows.
    TooMany(&'static str),
    /// A number that does not fit or a length the type does not allow.
    BadNumber(String),
    /// No `CREATE TABLE` statement in the text.
    NoTable,
    /// Several `CREATE TABLE` statements and none (or several) with the
    /// name asked for; their names.
    Ambiguous(Vec<String>),
    /// A name, ENUM/SET element or comment longer than the servers allow
    /// ([`crate::table::NAME_CHAR_LEN`] and the others beside it).
    TooLong(TooLong),
}

impl fmt::Display for DdlErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use DdlErrorKind::*;
        match self {
            TooLarge(n) => write!(f, "{n} bytes, more than the {MAX_DDL_BYTES} read"),
            Unterminated(w) => write!(f, "unterminated {w}"),
            Expected { what, found } => write!(f, "expected {what}, found {found}"),
            Unsupported(w) => write!(f, "not supported: {w}"),
            UnknownCharset(c) => write!(f, "unknown character set {c}"),
            UnknownCollation(c) => write!(f, "unknown collation {c}"),
            UnknownColumn(c) => write!(f, "key names column {c}, which the table does not have"),
            DuplicateColumn(c) => write!(f, "column {c} defined twice"),
            TooMany(w) => write!(f, "too many {w}"),
            BadNumber(n) => write!(f, "bad number or length {n}"),
            NoTable => write!(f, "no CREATE TABLE statement"),
            Ambiguous(names) => write!(
                f,
                "several CREATE TABLE statements ({}); name one",
                names.join(", ")
            ),
            TooLong(t) => write!(f, "{t}"),
        }
    }
}

/// Why the instant metadata could not be read: the kind of an
/// [`ErrorKind::Instant`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum InstantErrorKind {
    /// The definition has no clustered index with a root page.
    NoRoot,
    /// A page could not be read.
    Page(PageNo),
    /// `PAGE_INSTANT` names fewer fields than the key, DB_TRX_ID and
    /// DB_ROLL_PTR.
    CoreTooSmall {
        /// The stated count.
        n_core: u16,
    },
    /// The root's infimum and supremum are neither the strings nor zero.
    PseudoRecords,
    /// No leaf of the index without a left sibling.
    NoLeftmostLeaf,
    /// The leftmost leaf's first record is not the metadata record.
    NoMetadata {
        /// The leaf.
        page: PageNo,
    },
    /// The metadata BLOB reference or page is not what the server writes.
    BadBlob {
        /// Page and byte offset.
        page: PageNo,
        /// Byte offset in the page.
        offset: usize,
        /// What is wrong.
        what: &'static str,
    },
    /// The map names a column the definition does not have, or fewer
    /// fields than the definition's.
    MapMismatch {
        /// What is wrong.
        what: String,
    },
    /// The metadata record does not split with the layout.
    Metadata {
        /// The leaf.
        page: PageNo,
        /// What the split said.
        what: String,
    },
}

impl fmt::Display for InstantErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InstantErrorKind::NoRoot => write!(f, "the clustered index has no root page"),
            InstantErrorKind::Page(p) => write!(f, "page {p} cannot be read"),
            InstantErrorKind::CoreTooSmall { n_core } => write!(
                f,
                "PAGE_INSTANT says {n_core} core fields, fewer than the key, DB_TRX_ID and \
                 DB_ROLL_PTR"
            ),
            InstantErrorKind::PseudoRecords => write!(
                f,
                "the root's infimum/supremum hold neither their names nor zero bytes"
            ),
            InstantErrorKind::NoLeftmostLeaf => {
                write!(f, "no leaf page of the index without a left sibling")
            }
            InstantErrorKind::NoMetadata { page } => write!(
                f,
                "page {page}: the first record is not the instant ALTER metadata record"
            ),
            InstantErrorKind::BadBlob { page, offset, what } => {
                write!(f, "page {page} byte {offset}: metadata BLOB: {what}")
            }
            InstantErrorKind::MapMismatch { what } => write!(f, "field map: {what}"),
            InstantErrorKind::Metadata { page, what } => {
                write!(f, "page {page}: metadata record: {what}")
            }
        }
    }
}

impl InstantErrorKind {
    /// The page it names, if any.
    pub(crate) fn page(&self) -> Option<PageNo> {
        match *self {
            InstantErrorKind::Page(p)
            | InstantErrorKind::NoMetadata { page: p }
            | InstantErrorKind::BadBlob { page: p, .. }
            | InstantErrorKind::Metadata { page: p, .. } => Some(p),
            _ => None,
        }
    }
    /// As an [`Error`], placed at the page and byte it names.
    pub(crate) fn into_error(self) -> Error {
        match self {
            InstantErrorKind::BadBlob { page, offset, .. } => {
                Error::in_page(ErrorKind::Instant(self), Some(page), offset)
            }
            _ => Error::whole(ErrorKind::Instant(self)),
        }
    }
}

/// Why a record could not be split: the kind of an [`ErrorKind::Row`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum RowErrorKind {
    /// ROW_FORMAT=COMPRESSED page: its records are a zlib stream, not
    /// decoded yet.
    Compressed,
    /// The infimum or supremum, or a status the layout cannot describe.
    NotUserRecord,
    /// MariaDB 10.3+ instant ALTER: a record with status 4
    /// (`REC_STATUS_INSTANT`: written after instant ADD/DROP, or the
    /// metadata record); its field count and the metadata record are not
    /// decoded yet.
    MariaDbInstant,
    /// The header, NULL bitmap or lengths reach below the user records.
    HeaderOutOfPage,
    /// A field reaches past the heap top or the page.
    FieldOutOfPage {
        /// Layout position of the field.
        field: u16,
    },
    /// The record states more fields than the layout has.
    TooManyFields {
        /// Stated.
        stated: u16,
        /// In the layout.
        layout: u16,
    },
    /// The record's format differs from the layout's.
    FormatMismatch,
    /// An off-page field shorter than its 20-byte reference.
    ExternTooShort {
        /// Layout position of the field.
        field: u16,
    },
    /// Off-page flag on a field that cannot be off-page.
    UnexpectedExtern {
        /// Layout position of the field.
        field: u16,
    },
    /// A REDUNDANT record with a row version (8.0.29+ instant on
    /// REDUNDANT tables): not decoded yet.
    RedundantVersion,
    /// A fixed-length field whose length differs from the layout's
    /// (REDUNDANT).
    LengthMismatch {
        /// Layout position of the field.
        field: u16,
    },
}

impl RowErrorKind {
    /// Its text, at page offset `at`.
    pub(crate) fn fmt_at(self, f: &mut fmt::Formatter<'_>, at: usize) -> fmt::Result {
        match self {
            RowErrorKind::Compressed => {
                write!(
                    f,
                    "ROW_FORMAT=COMPRESSED page: records not decoded (not implemented)"
                )
            }
            RowErrorKind::NotUserRecord => write!(f, "byte {at}: not a user record"),
            RowErrorKind::MariaDbInstant => write!(
                f,
                "byte {at}: MariaDB instant ALTER record (status 4), not decoded (not implemented)"
            ),
            RowErrorKind::HeaderOutOfPage => {
                write!(
                    f,
                    "byte {at}: record header, NULL bitmap or lengths outside the records"
                )
            }
            RowErrorKind::FieldOutOfPage { field } => {
                write!(f, "byte {at}: field {field} reaches past the heap top")
            }
            RowErrorKind::TooManyFields { stated, layout } => {
                write!(
                    f,
                    "byte {at}: record states {stated} fields, the index has {layout}"
                )
            }
            RowErrorKind::FormatMismatch => {
                write!(f, "byte {at}: record format differs from the table's")
            }
            RowErrorKind::ExternTooShort { field } => {
                write!(
                    f,
                    "byte {at}: off-page field {field} shorter than its 20-byte reference"
                )
            }
            RowErrorKind::UnexpectedExtern { field } => {
                write!(f, "byte {at}: field {field} flagged off-page but cannot be")
            }
            RowErrorKind::RedundantVersion => {
                write!(
                    f,
                    "byte {at}: REDUNDANT record with a row version (not implemented)"
                )
            }
            RowErrorKind::LengthMismatch { field } => {
                write!(
                    f,
                    "byte {at}: field {field} length differs from its column's"
                )
            }
        }
    }
}

/// Why an off-page value could not be read (completely): the kind of an
/// [`ErrorKind::Lob`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum LobErrorKind {
    /// A page past the file.
    PastFile,
    /// A page of an unexpected type; its type.
    BadPageType(PageType),
    /// MySQL 8.0 compressed LOB (ZLOB): not decoded yet.
    Compressed(PageType),
    /// The zlib stream of a compressed BLOB (ZBLOB) is damaged; the
    /// offset is in the stream assembled from the chain's pages.
    Inflate(ibdscope_codec::inflate::InflateErrorKind),
    /// A length or offset on a page points outside it.
    OutOfPage,
    /// More pages or entries than the walk's bound (a loop).
    TooLong,
    /// The chain comes back to a page (or 8.0 LOB index entry) it has
    /// already read: the error's page and offset are the one read twice,
    /// `from` the page whose pointer leads back to it.
    Loop {
        /// The page holding the pointer back.
        from: PageNo,
    },
    /// The chain ended before the reference's length.
    Short {
        /// Bytes the reference states.
        stated: u32,
        /// Bytes found.
        found: u32,
    },
    /// No index entry version old enough for the reference's LOB version.
    NoVersion,
}

impl LobErrorKind {
    /// Its text, on page `p` at byte `o`.
    pub(crate) fn fmt_at(self, f: &mut fmt::Formatter<'_>, p: PageNo, o: usize) -> fmt::Result {
        match self {
            LobErrorKind::PastFile => write!(f, "off-page value: page {p} past the file"),
            LobErrorKind::BadPageType(t) => {
                write!(f, "off-page value: page {p} has type {}", t.0)
            }
            LobErrorKind::Compressed(t) => write!(
                f,
                "off-page value: page {p} is a compressed BLOB (type {}), not decoded (not implemented)",
                t.0
            ),
            LobErrorKind::OutOfPage => write!(f, "off-page value: page {p} byte {o} out of page"),
            LobErrorKind::Inflate(k) => write!(
                f,
                "off-page value: compressed BLOB from page {p}: zlib stream damaged ({k:?}) at \
                 stream byte {o}"
            ),
            LobErrorKind::TooLong => {
                write!(f, "off-page value: chain longer than the file at page {p}")
            }
            LobErrorKind::Loop { from } => write!(
                f,
                "off-page value: chain loops: page {from} leads back to page {p} byte {o}, \
                 already read"
            ),
            LobErrorKind::Short { stated, found } => {
                write!(
                    f,
                    "off-page value: {found} of {stated} bytes found (chain ends at page {p})"
                )
            }
            LobErrorKind::NoVersion => {
                write!(
                    f,
                    "off-page value: no LOB version old enough at page {p} byte {o}"
                )
            }
        }
    }
}

/// Why the leftmost leaf of an index could not be reached: the kind of an
/// [`ErrorKind::Descent`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum DescentErrorKind {
    /// A page on the way is not a readable index page.
    NotIndex(PageNo),
    /// A node pointer page has no user record.
    Empty(PageNo),
    /// A node pointer could not be split: the page, why, and the page
    /// offset of the bytes at fault.
    Record(PageNo, RowErrorKind, u16),
    /// More levels than a B-tree can have (a loop).
    TooDeep(PageNo),
    /// A node pointer leads back to a page already on the way down: the
    /// page holding it, and the page it names.
    Loop(PageNo, PageNo),
}

impl DescentErrorKind {
    /// The page it names (for a loop, the page holding the pointer).
    pub(crate) fn page(&self) -> PageNo {
        match *self {
            DescentErrorKind::NotIndex(p)
            | DescentErrorKind::Empty(p)
            | DescentErrorKind::Record(p, ..)
            | DescentErrorKind::TooDeep(p)
            | DescentErrorKind::Loop(p, _) => p,
        }
    }
}

impl fmt::Display for DescentErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DescentErrorKind::NotIndex(p) => write!(f, "page {p} is not a readable index page"),
            DescentErrorKind::Empty(p) => write!(f, "node pointer page {p} has no record"),
            DescentErrorKind::Record(p, k, at) => {
                write!(f, "page {p}: ")?;
                k.fmt_at(f, usize::from(*at))
            }
            DescentErrorKind::TooDeep(p) => write!(f, "more than 64 levels down to page {p}"),
            DescentErrorKind::Loop(from, to) => write!(
                f,
                "node pointer loop: page {from} points down to page {to}, already on the way"
            ),
        }
    }
}

/// Why a compressed page could not be decompressed: the kind of an
/// [`ErrorKind::Zip`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ZipErrorKind {
    /// The physical or logical size is not one of a compressed page.
    PageSize,
    /// PAGE_N_HEAP lacks the COMPACT flag (compressed pages are COMPACT).
    NotCompact,
    /// PAGE_N_HEAP below 2, or its dense directory fills the page.
    HeapCount,
    /// PAGE_N_RECS above the dense directory's entries.
    RecordCount,
    /// A dense directory entry is outside the record area, or a free
    /// list entry carries flags, or two entries name one record.
    DirEntry,
    /// The "owned" bits do not give PAGE_N_DIR_SLOTS slots.
    DirSlots,
    /// The zlib stream is damaged.
    Inflate(InflateErrorKind),
    /// The first DEFLATE block (the field information) is also the last.
    NoFieldBlock,
    /// The field information is malformed.
    Fields,
    /// The stream runs into the uncompressed trailer.
    StreamOverlapsTrailer,
    /// The stream ends inside a record.
    StreamShort,
    /// The stream goes past PAGE_HEAP_TOP.
    StreamLong,
    /// A record's lengths point outside the page, or its DB_TRX_ID or
    /// BLOB pointer field is too short.
    Record,
    /// A modification log entry is malformed or runs past the log.
    Log,
    /// The modification log and the trailer overlap.
    Trailer,
    /// The BLOB pointers run into the modification log.
    BlobPointers,
}

impl ZipErrorKind {
    /// Its text at byte `offset` of the compressed page, or of the
    /// uncompressed page when `logical`.
    pub(crate) fn fmt_at(
        self,
        f: &mut fmt::Formatter<'_>,
        offset: usize,
        logical: bool,
    ) -> fmt::Result {
        let what = match self {
            ZipErrorKind::PageSize => "not a compressed page size",
            ZipErrorKind::NotCompact => "PAGE_N_HEAP lacks the COMPACT flag",
            ZipErrorKind::HeapCount => "PAGE_N_HEAP out of range",
            ZipErrorKind::RecordCount => "PAGE_N_RECS above the dense directory's entries",
            ZipErrorKind::DirEntry => "dense directory entry out of range",
            ZipErrorKind::DirSlots => "owned records do not give PAGE_N_DIR_SLOTS slots",
            ZipErrorKind::Inflate(_) => "zlib stream damaged",
            ZipErrorKind::NoFieldBlock => "zlib stream has no field information block",
            ZipErrorKind::Fields => "field information malformed",
            ZipErrorKind::StreamOverlapsTrailer => "zlib stream runs into the trailer",
            ZipErrorKind::StreamShort => "zlib stream ends inside a record",
            ZipErrorKind::StreamLong => "zlib stream goes past PAGE_HEAP_TOP",
            ZipErrorKind::Record => "record lengths outside the page",
            ZipErrorKind::Log => "modification log entry malformed",
            ZipErrorKind::Trailer => "modification log overlaps the trailer",
            ZipErrorKind::BlobPointers => "BLOB pointers overlap the modification log",
        };
        if let ZipErrorKind::Inflate(k) = self {
            write!(f, "{what} ({k:?})")?;
        } else {
            f.write_str(what)?;
        }
        if logical {
            write!(f, " at uncompressed page offset {offset}")
        } else {
            write!(f, " at compressed page byte {offset}")
        }
    }
}

/// Why an index's rows cannot be read at all: the kind of an
/// [`ErrorKind::Scan`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ScanErrorKind {
    /// The definition gives the index no root page; `encrypted`: the
    /// file is encrypted and its pages not decrypted; `page_compressed`:
    /// its INODE page could not be decompressed.
    NoRoot {
        /// Encrypted (MySQL's flag, or MariaDB's crypt data).
        encrypted: bool,
        /// MariaDB PAGE_COMPRESSED.
        page_compressed: bool,
    },
    /// The root page cannot be read as an index page; `encrypted`: the
    /// file's MySQL encryption flag.
    Root(PageNo, NoRecords, bool),
    /// MariaDB instant ALTER's metadata record cannot be read.
    Instant(InstantErrorKind),
    /// The definition gives the index no record layout.
    Layout(LayoutErrorKind),
    /// [`ScanOptions::page`] is not a leaf page of the index.
    NotLeaf(PageNo),
    /// [`ScanOptions::page`] is not a readable index page.
    NotIndexPage(PageNo),
}

impl fmt::Display for ScanErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScanErrorKind::NoRoot {
                encrypted: true, ..
            } => f.write_str(
                "the index's root page is not known: the file is encrypted and its pages are \
                 not decrypted",
            ),
            ScanErrorKind::NoRoot {
                page_compressed: true,
                ..
            } => f.write_str(
                "the index has no root page in this file: the file is PAGE_COMPRESSED and its \
                 INODE page could not be decompressed",
            ),
            ScanErrorKind::NoRoot { .. } => f.write_str("the index has no root page in this file"),
            ScanErrorKind::Root(n, e, _) => {
                write!(f, "root page {n}: ")?;
                match e {
                    NoRecords::PastFile => f.write_str("past the end of the file"),
                    NoRecords::NotIndex(t) => write!(f, "a type {} page, not an index page", t.0),
                    NoRecords::Unreadable(_) => {
                        f.write_str("encrypted, or page-compressed and not decompressed")
                    }
                }
            }
            ScanErrorKind::Instant(e) => write!(f, "MariaDB instant ALTER metadata: {e}"),
            ScanErrorKind::Layout(e) => write!(f, "record layout: {e}"),
            ScanErrorKind::NotLeaf(n) => write!(f, "page {n} is not a leaf page of the index"),
            ScanErrorKind::NotIndexPage(n) => write!(f, "page {n} is not a readable index page"),
        }
    }
}

impl ScanErrorKind {
    /// The page it names, if any.
    pub(crate) fn page(&self) -> Option<PageNo> {
        match self {
            ScanErrorKind::Root(n, ..)
            | ScanErrorKind::NotLeaf(n)
            | ScanErrorKind::NotIndexPage(n) => Some(*n),
            ScanErrorKind::Instant(k) => k.page(),
            _ => None,
        }
    }
}
