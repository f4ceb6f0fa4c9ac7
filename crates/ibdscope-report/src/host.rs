//! What a run needs from outside its memory: the bytes of the input files.
//! The `ibdscope` binary maps them read-only; [`ReadHost`] reads them
//! whole (tests, and programs that embed the reports).

use std::fmt;
use std::path::{Path, PathBuf};

/// The bytes of one opened input file.
pub trait Source: Send + Sync {
    /// The file's bytes.
    fn bytes(&self) -> &[u8];
    /// Bytes `offset..offset + len` will not be read again soon (a pass
    /// has finished with them): a mapped source may drop their mappings.
    fn release(&self, _offset: usize, _len: usize) {}
}

/// Opens input files.
pub trait Host: Send + Sync + fmt::Debug {
    /// Opens `path` read-only; `threads` is how many threads the run uses
    /// (a source may use them to unmap).
    fn open(&self, path: &Path, threads: usize) -> Result<Box<dyn Source>, OpenError>;
}

/// Why a file could not be read.
#[derive(Debug)]
pub struct OpenError {
    /// The file.
    pub path: PathBuf,
    /// What went wrong.
    pub what: String,
}

impl fmt::Display for OpenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", crate::names::path(&self.path), self.what)
    }
}

/// A host that reads each file whole into memory.
#[derive(Clone, Copy, Debug, Default)]
pub struct ReadHost;

impl Source for Vec<u8> {
    fn bytes(&self) -> &[u8] {
        self
    }
}

impl Host for ReadHost {
    fn open(&self, path: &Path, _threads: usize) -> Result<Box<dyn Source>, OpenError> {
        let err = |what: String| OpenError {
            path: path.to_path_buf(),
            what,
        };
        if path.is_dir() {
            return Err(err("is a directory, not a tablespace file".into()));
        }
        match std::fs::read(path) {
            Ok(b) => Ok(Box::new(b)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(err("no such file".into())),
            Err(e) => Err(err(e.to_string())),
        }
    }
}
