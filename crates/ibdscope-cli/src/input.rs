//! Opening input files: read-only, memory-mapped, never written.

use memmap2::Mmap;
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

/// The bytes of one input file.
pub enum Input {
    /// A mapped file.
    Mapped(Mmap),
    /// An empty file (a zero-length map is not allowed).
    Empty,
}

impl Input {
    /// The file's bytes.
    pub fn bytes(&self) -> &[u8] {
        match self {
            Input::Mapped(m) => m,
            Input::Empty => &[],
        }
    }
}

/// Why a file could not be read.
#[derive(Debug)]
pub struct OpenError {
    /// The file.
    pub path: PathBuf,
    /// What went wrong.
    pub what: String,
}

impl std::fmt::Display for OpenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.what)
    }
}

/// Opens `path` read-only and maps it.
pub fn open(path: &Path) -> Result<Input, OpenError> {
    let err = |what: String| OpenError {
        path: path.to_path_buf(),
        what,
    };
    let file = File::open(path).map_err(|e| err(describe(&e)))?;
    let meta = file.metadata().map_err(|e| err(describe(&e)))?;
    if meta.is_dir() {
        return Err(err("is a directory, not a tablespace file".into()));
    }
    if meta.len() == 0 {
        return Ok(Input::Empty);
    }
    // SAFETY: the map is read-only and its bytes are treated as untrusted
    // input: every read is bounds-checked by the library, so any content is
    // safe. What a map cannot guard against is another process truncating
    // the file while we read it, which makes the kernel raise SIGBUS (as
    // ripgrep documents for its own maps in searcher/mmap.rs); tablespace
    // files under inspection are copies or belong to a stopped server, and
    // the risk is the same for every mmap-based reader.
    let map = unsafe { Mmap::map(&file) }.map_err(|e| err(describe(&e)))?;
    #[cfg(unix)]
    let _ = map.advise(memmap2::Advice::Sequential);
    Ok(Input::Mapped(map))
}

fn describe(e: &io::Error) -> String {
    match e.kind() {
        io::ErrorKind::NotFound => "no such file".into(),
        io::ErrorKind::PermissionDenied => "permission denied".into(),
        _ => e.to_string(),
    }
}
