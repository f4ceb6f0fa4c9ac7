//! What opening and reading a space has to tell beside its result: a key
//! that does not open a space, pages that could not be decompressed or
//! decrypted, a definition read from another source than the one asked.
//! The library never prints: each is a value, returned with the result or
//! handed to the caller's sink, and the caller decides where it goes (the
//! `ibdscope` binary writes each on stderr as `ibdscope: <diagnostic>`).

use std::fmt;
use std::path::{Path, PathBuf};

/// One thing to tell about a file, as a sentence that names it.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Diagnostic {
    /// The file it is about.
    pub file: PathBuf,
    /// The sentence, naming the file (as text shows it) and usually a
    /// place in it (`t.ibd: page 3 at byte offset 49152: …`).
    pub text: String,
}

impl Diagnostic {
    /// `<file>: <message>` about `file`.
    pub fn new(file: &Path, message: impl fmt::Display) -> Diagnostic {
        Diagnostic {
            file: file.to_path_buf(),
            text: format!("{}: {message}", crate::names::path(file)),
        }
    }

    /// A sentence about `file` that names it (or the part of it, such as
    /// `ibdata2`, where its place is) itself.
    pub fn line(file: &Path, text: impl Into<String>) -> Diagnostic {
        Diagnostic {
            file: file.to_path_buf(),
            text: text.into(),
        }
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}
