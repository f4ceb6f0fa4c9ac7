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
use std::sync::Arc;

/// What went wrong.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The file (or a data file of the system tablespace, a `.frm`, a
    /// `CREATE TABLE` file) could not be read: the host's reason (the
    /// system's error, or why it refuses the file: a directory, a device
    /// it does not read).
    Open(Arc<io::Error>),
    /// The bytes are not a tablespace this library reads (empty, too
    /// short, no page size that fits): the page core's error, with its
    /// place.
    Parse(ibdscope_core::Error),
    /// The space cannot be read as a whole (page 0's crypt data is
    /// damaged so that no key opens it): why, with its place.
    Unreadable(Diagnostic),
    /// No table definition was found (no SDI, `.frm`, dictionary or
    /// `CREATE TABLE` given): why.
    NoDefinition(Box<Error>),
    /// `--table` names a table of the dictionary, and no `ibdata1` is
    /// beside the file or in its parent.
    TableNeedsDatadir,
    /// The InnoDB dictionary cannot be read: the system tablespace's
    /// error ([`Error::path`]: its first data file).
    Dictionary(ibdscope_forensics::Error),
    /// The InnoDB dictionary (in `file`) gives no definition of the table.
    NoDictTable {
        /// The system tablespace's first data file.
        file: PathBuf,
        /// The table asked for (`db/table`), or none: the file's space id.
        name: Option<String>,
        /// The file's space id (when no name was asked for).
        space_id: u32,
        /// The problems the dictionary's reading met, in words.
        problems: Vec<String>,
    },
    /// The dictionary's table is not all there (fewer SYS_COLUMNS rows
    /// than N_COLS counts, no index, an index short of its fields) and the
    /// dictionary is damaged: rows decoded with it would be wrong.
    DictTableIncomplete {
        /// The system tablespace's first data file.
        file: PathBuf,
        /// The table (`db/table`).
        name: String,
        /// Its columns found.
        columns: u32,
        /// The columns N_COLS counts.
        want: u32,
        /// Its indexes found.
        indexes: usize,
        /// An index has fewer fields than N_FIELDS.
        fields_short: bool,
        /// The problems the dictionary's reading met, in words.
        problems: Vec<String>,
    },
    /// The dictionary beside the file cannot be read (in `file`): why.
    DictUnreadable {
        /// The system tablespace's first data file.
        file: PathBuf,
        /// Why.
        why: Box<Error>,
    },
    /// A `.frm` that cannot be read ([`Error::path`]: the `.frm`).
    Frm(ibdscope_schema::Error),
    /// A `CREATE TABLE` file larger than one is read.
    DdlTooLarge {
        /// Its length.
        len: u64,
        /// The most read.
        max: usize,
    },
    /// A `CREATE TABLE` that cannot be read ([`Error::path`]: its file).
    Ddl(ibdscope_schema::Error),
    /// No SDI, no `.frm` beside the file, and the dictionary gives no
    /// definition: why not.
    NoSdiFrmOrDict(Box<Error>),
    /// `--infer`: the records gave no definition: why.
    NotInferred(String),
    /// No SDI (or none readable), no `.frm` given or at `beside`.
    NoSdiNoFrm {
        /// Where a `.frm` was looked for.
        beside: PathBuf,
        /// The file is encrypted and not decrypted.
        encrypted: bool,
    },
    /// The SDI cannot be read: why.
    Sdi {
        /// The error.
        error: ibdscope_schema::Error,
        /// The file is encrypted and not decrypted.
        encrypted: bool,
        /// The file is ROW_FORMAT=COMPRESSED.
        compressed: bool,
    },
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
            ErrorKind::TableNeedsDatadir => {
                f.write_str("--table: no ibdata1 beside the file or in its parent; give --datadir")
            }
            ErrorKind::Dictionary(e) => e.fmt(f),
            ErrorKind::NoDictTable {
                file,
                name,
                space_id,
                problems,
            } => {
                let file = crate::names::path(file);
                match name {
                    Some(n) => write!(
                        f,
                        "the InnoDB dictionary in {file} has no table {} (`ibdscope tables` \
                         lists them)",
                        crate::names::name(n)
                    )?,
                    None => write!(
                        f,
                        "the InnoDB dictionary in {file} has no table with space id {space_id}"
                    )?,
                }
                damage_words(f, problems)
            }
            ErrorKind::DictTableIncomplete {
                file,
                name,
                columns,
                want,
                indexes,
                fields_short,
                problems,
            } => {
                write!(
                    f,
                    "the InnoDB dictionary in {}: table {} is incomplete there ({columns} of \
                     {want} columns, {indexes} indexes{})",
                    crate::names::path(file),
                    crate::names::name(name),
                    if *fields_short {
                        ", an index short of its fields"
                    } else {
                        ""
                    },
                )?;
                damage_words(f, problems)
            }
            ErrorKind::DictUnreadable { file, why } => write!(
                f,
                "the InnoDB dictionary in {} cannot be read ({why})",
                crate::names::path(file)
            ),
            ErrorKind::Frm(e) => write!(f, "not a readable .frm: {e}"),
            ErrorKind::DdlTooLarge { len, max } => write!(
                f,
                "{len} bytes, more than the {max} a CREATE TABLE file may have"
            ),
            ErrorKind::Ddl(e) => e.fmt(f),
            ErrorKind::NoSdiFrmOrDict(why) => write!(
                f,
                "no table definition: the file has no SDI, no .frm beside it, and {why}"
            ),
            ErrorKind::NotInferred(why) => write!(
                f,
                "no table definition could be inferred from the records: {why}"
            ),
            ErrorKind::NoSdiNoFrm {
                beside,
                encrypted: true,
            } => write!(
                f,
                "the file is encrypted and its pages are not decrypted (no key, or one that \
                 does not open it: see above): its SDI (table definition) cannot be read, and \
                 no .frm was given (--frm) or found at {} (or give the CREATE TABLE \
                 statement: --ddl)",
                crate::names::path(beside)
            ),
            ErrorKind::NoSdiNoFrm { beside, .. } => write!(
                f,
                "no table definition: the file holds no readable SDI (MySQL before 8.0, \
                 MariaDB, or ROW_FORMAT=COMPRESSED SDI pages), no .frm was given (--frm) and \
                 there is none at {}; give the .frm (--frm) or the CREATE TABLE statement \
                 (--ddl)",
                crate::names::path(beside)
            ),
            ErrorKind::Sdi {
                error,
                encrypted: true,
                ..
            } => write!(
                f,
                "the file is encrypted and its pages are not decrypted (no key, or one that \
                 does not open it: see above): its SDI (table definition) is not readable \
                 ({error})"
            ),
            ErrorKind::Sdi {
                error,
                compressed: true,
                ..
            } => write!(
                f,
                "no table definition: the file is ROW_FORMAT=COMPRESSED and its SDI pages \
                 could not be decompressed ({error})"
            ),
            ErrorKind::Sdi { error, .. } => write!(f, "no table definition: {error}"),
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

/// The dictionary's problems, after a sentence that needs them.
fn damage_words(f: &mut fmt::Formatter<'_>, problems: &[String]) -> fmt::Result {
    if problems.is_empty() {
        return Ok(());
    }
    let shown: Vec<&str> = problems.iter().take(8).map(String::as_str).collect();
    write!(
        f,
        "; the dictionary is damaged ({} problems): {}{}",
        problems.len(),
        shown.join("; "),
        if problems.len() > shown.len() {
            "; …"
        } else {
            ""
        }
    )
}

/// An error of the front door: what, and the file it concerns.
#[derive(Clone, Debug)]
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
    /// `kind`, about no one file (or one its words name).
    pub(crate) fn bare(kind: ErrorKind) -> Error {
        Error { kind, path: None }
    }
    /// `path` could not be read: a host's error ([`crate::host::Host::open`]).
    pub fn open(path: &Path, e: io::Error) -> Error {
        Error::new(ErrorKind::Open(Arc::new(e)), path)
    }
    /// The page it concerns, when the error below names one.
    pub fn page(&self) -> Option<PageNo> {
        match &self.kind {
            ErrorKind::Parse(e) => e.page(),
            ErrorKind::Rows(e) | ErrorKind::Sdi { error: e, .. } => e.page(),
            ErrorKind::Dictionary(e) => e.page(),
            ErrorKind::NoDefinition(e)
            | ErrorKind::NoSdiFrmOrDict(e)
            | ErrorKind::DictUnreadable { why: e, .. } => e.page(),
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
            ErrorKind::Dictionary(e) | ErrorKind::History(e) => match e.place {
                ibdscope_forensics::Place::Page { file_offset, .. } => Some(file_offset),
                _ => None,
            },
            ErrorKind::Frm(e) => match e.place {
                ibdscope_schema::Place::File { offset } => Some(offset as u64),
                _ => None,
            },
            ErrorKind::NoDefinition(e)
            | ErrorKind::NoSdiFrmOrDict(e)
            | ErrorKind::DictUnreadable { why: e, .. } => e.file_offset(),
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
                | ErrorKind::UndoFiles(_)
                | ErrorKind::NoDictTable { .. }
                | ErrorKind::DictTableIncomplete { .. }
                | ErrorKind::DictUnreadable { .. },
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
            ErrorKind::Open(e) => Some(e.as_ref()),
            ErrorKind::Parse(e) => Some(e),
            ErrorKind::Dictionary(e) => Some(e),
            ErrorKind::Frm(e) | ErrorKind::Ddl(e) | ErrorKind::Sdi { error: e, .. } => Some(e),
            ErrorKind::NoDefinition(e)
            | ErrorKind::NoSdiFrmOrDict(e)
            | ErrorKind::DictUnreadable { why: e, .. } => Some(e.as_ref()),
            ErrorKind::Rows(e) => Some(e),
            ErrorKind::UndoFiles(e) => Some(e.as_ref()),
            ErrorKind::History(e) => Some(e),
            _ => None,
        }
    }
}
