//! The binary's one error type: [`Error`], what went wrong with the
//! arguments or the key material they name ([`ErrorKind`]) and where
//! ([`Place`]: an argument, or the file it names). `Display` is the
//! sentence said on stderr before exit 2, as it always was.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

/// A library error the binary cannot name by its type (the page core's,
/// a dependency of its tests only): kept as the error it is.
pub type Below = Box<dyn std::error::Error + Send + Sync>;

/// What went wrong.
#[derive(Debug)]
pub enum ErrorKind {
    /// What the report refused (`--page-size`, an `--out` that is an
    /// input or not a regular file).
    Report(ibdscope_report::Error),
    /// An `innodb_data_file_path` that cannot be used: the front door's
    /// error.
    DataFilePath(ibdscope_report::host::Error),
    /// A `--threads` that is not a thread count: the text given, the most.
    Threads(String, usize),
    /// `--to` before `--from`.
    ToBeforeFrom {
        /// `--to`.
        to: u64,
        /// `--from`.
        from: u64,
    },
    /// A `--format` the command does not offer: the format's name, the
    /// names of those it offers.
    FormatNotOffered(&'static str, Vec<&'static str>),
    /// `completions` asked of the report (it runs none).
    NoReport,
    /// An `--out` whose name ends in neither `.png` nor `.svg`.
    OutExtension,
    /// A keyring file that could not be read: the system's words.
    KeyringRead(String),
    /// A keyring file larger than any real one: its length.
    KeyringTooLarge(u64),
    /// A keyring file that could not be parsed: the page core's error.
    KeyringParse(Below),
    /// A key file or password file that could not be read: the system's
    /// words.
    SecretRead(String),
    /// A password file that could not be used: the page core's error.
    Password(Below),
    /// A key file that could not be used: the page core's error.
    KeyFile(Below),
}

/// Where it happened.
#[derive(Debug, PartialEq, Eq)]
pub enum Place {
    /// An argument as a whole.
    Argument,
    /// The file an argument names.
    File(PathBuf),
}

/// The binary's error: what went wrong and where.
#[derive(Debug)]
pub struct Error {
    // Boxed: the front door's error inside is large, a `Result` stays small.
    kind: Box<ErrorKind>,
    place: Place,
}

impl Error {
    /// `kind` about an argument.
    pub fn argument(kind: ErrorKind) -> Error {
        Error {
            kind: Box::new(kind),
            place: Place::Argument,
        }
    }
    /// `kind` about the file `path`.
    pub fn at(kind: ErrorKind, path: &Path) -> Error {
        Error {
            kind: Box::new(kind),
            place: Place::File(path.to_path_buf()),
        }
    }
    /// What went wrong.
    #[cfg(test)]
    pub fn kind(&self) -> &ErrorKind {
        &self.kind
    }
}

impl From<ibdscope_report::Error> for Error {
    fn from(e: ibdscope_report::Error) -> Self {
        Error::argument(ErrorKind::Report(e))
    }
}

/// The system's words for a file that cannot be read.
pub fn describe(e: &io::Error) -> String {
    match e.kind() {
        io::ErrorKind::NotFound => "no such file".into(),
        io::ErrorKind::PermissionDenied => "permission denied".into(),
        _ => e.to_string(),
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let file = match &self.place {
            Place::File(p) => ibdscope_report::names::path(p).to_string(),
            Place::Argument => String::new(),
        };
        match &*self.kind {
            ErrorKind::Report(e) => e.fmt(f),
            ErrorKind::DataFilePath(e) => e.fmt(f),
            ErrorKind::Threads(s, most) => {
                write!(f, "'{s}' is not a thread count (1 to {most})")
            }
            ErrorKind::ToBeforeFrom { to, from } => write!(f, "--to {to} is before --from {from}"),
            ErrorKind::FormatNotOffered(format, offered) => write!(
                f,
                "--format {format} is not offered by this command; it offers {}",
                offered.join(", ")
            ),
            ErrorKind::NoReport => f.write_str("completions runs no report"),
            ErrorKind::OutExtension => write!(
                f,
                "--out {file}: the picture's name must end in .png or .svg"
            ),
            ErrorKind::KeyringRead(why) => {
                write!(f, "{file}: keyring could not be read: {why}")
            }
            ErrorKind::KeyringTooLarge(len) => write!(
                f,
                "{file}: keyring could not be read: {len} bytes; a keyring file is far smaller"
            ),
            ErrorKind::KeyringParse(e) => write!(f, "{file}: keyring could not be read: {e}"),
            ErrorKind::SecretRead(why) => write!(f, "{file}: could not be read: {why}"),
            ErrorKind::Password(e) => write!(f, "{file}: {e}"),
            ErrorKind::KeyFile(e) => write!(f, "{file}: key file could not be used: {e}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &*self.kind {
            ErrorKind::Report(e) => Some(e),
            ErrorKind::DataFilePath(e) => Some(e),
            ErrorKind::KeyringParse(e) | ErrorKind::Password(e) | ErrorKind::KeyFile(e) => {
                Some(e.as_ref())
            }
            _ => None,
        }
    }
}
