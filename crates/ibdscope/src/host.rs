//! What a run needs from outside its memory: the bytes of the input files.
//! The `ibdscope` binary maps them read-only; [`ReadHost`] reads them
//! whole (tests, and programs that embed the reports).

/// What [`Host::open`] returns when a file cannot be read: the front
/// door's error.
pub use crate::error::Error;
/// A file of at most this many bytes is never swept by its space's window:
/// a host may keep it mapped whole, the shards a fold hands it too.
pub use ibdscope_core::window::UNSWEPT_BYTES;
use std::fmt;
use std::path::{Path, PathBuf};

/// The bytes of one opened input file.
pub trait Source: Send + Sync {
    /// The file's bytes.
    fn bytes(&self) -> &[u8];
    /// Bytes `offset..offset + len` will not be read again soon (a pass
    /// has finished with them): a mapped source may drop their mappings.
    fn release(&self, _offset: usize, _len: usize) {}
    /// Bytes `offset..offset + len` will be read soon: a mapped source may
    /// start reading them in, in large requests (a cold file).
    fn read_ahead(&self, _offset: usize, _len: usize) {}
    /// Byte ranges `start..end` of the file known to read as zeros without
    /// reading them (holes of a sparse file), sorted and apart; the passes
    /// over the file then never touch them. Empty when unknown.
    fn zero_ranges(&self) -> &[std::ops::Range<usize>] {
        &[]
    }
    /// How the pages read when they are not the stored bytes: a MySQL
    /// encrypted space opened with its keyring
    /// ([`crate::decrypt::DecryptHost`]), each page decrypted as a reader
    /// reaches it. `None` (the default): as stored.
    fn decryption(&self) -> Option<&ibdscope_core::crypt::mysql::Decryption> {
        None
    }
}

/// An opened source is the host of its space's window
/// ([`ibdscope_core::window`]): the chunks the walks leave are released
/// through it, the ones they reach read ahead.
impl ibdscope_core::window::Residency for Box<dyn Source> {
    fn release(&self, offset: usize, len: usize) {
        (**self).release(offset, len);
    }
    fn read_ahead(&self, offset: usize, len: usize) {
        (**self).read_ahead(offset, len);
    }
}

/// `ts`, a space over `src`'s bytes, read as `src`'s pages read
/// ([`Source::decryption`]).
pub(crate) fn read_through<'a>(
    src: &'a dyn Source,
    ts: ibdscope_core::Tablespace<'a>,
) -> ibdscope_core::Tablespace<'a> {
    match src.decryption() {
        Some(d) => d.tablespace(&ts),
        None => ts,
    }
}

/// The space in `src`'s bytes, told which of them are known zeros (so the
/// passes never touch a sparse file's holes), its pages read as `src`'s
/// read ([`Source::decryption`]). Outside this crate a space is opened by
/// [`crate::open`].
pub(crate) fn tablespace<'a>(
    src: &'a dyn Source,
    opts: ibdscope_core::Options,
) -> ibdscope_core::Result<ibdscope_core::Tablespace<'a>> {
    ibdscope_core::Tablespace::with_options(src.bytes(), opts)
        .map(|ts| read_through(src, ts.with_zero_ranges(src.zero_ranges())))
}

/// Opens input files.
pub trait Host: Send + Sync + fmt::Debug {
    /// Opens `path` read-only; `threads` is how many threads the run uses
    /// (a source may use them to unmap).
    fn open(&self, path: &Path, threads: usize) -> Result<Box<dyn Source>, Error>;
    /// Opens `paths` read-only as one source, their bytes one after the
    /// other (the data files of the system tablespace). This default
    /// copies them into one buffer; a host that maps files maps them side
    /// by side instead.
    fn open_joined(&self, paths: &[PathBuf], threads: usize) -> Result<Box<dyn Source>, Error> {
        let mut bytes = Vec::new();
        for p in paths {
            bytes.extend_from_slice(self.open(p, threads)?.bytes());
        }
        Ok(Box::new(bytes))
    }
    /// The files opened since the last call that changed while they were
    /// read (checked when each source is dropped), and forgets them. A host
    /// that cannot tell returns none.
    fn changes(&self) -> Vec<Change> {
        Vec::new()
    }
    /// What opening files had to tell (a keyring whose key does not match
    /// a space, an image that could not be allocated), since the last
    /// call; the caller of [`Host::open`] takes them right after it
    /// ([`crate::open::open`] does). By default none.
    fn diagnostics(&self) -> Vec<crate::diagnostic::Diagnostic> {
        Vec::new()
    }
    /// Findings about the inputs made while opening them (a keyring whose
    /// key does not match a space), each naming its file, since the last
    /// call; they were also [`Host::diagnostics`] when found. A run with
    /// any exits 1.
    fn findings(&self) -> Vec<String> {
        Vec::new()
    }
    /// How far the run is: `done` of `total` `unit`s of the work under way
    /// (the pages of one pass over the file opened last, or `audit`'s
    /// files). Within a pass `done` goes up; a new pass starts again from
    /// low. Called often and from any thread, one call at a time: a host
    /// may draw it (the binary does, on a terminal); by default nothing.
    fn progress(&self, _unit: Unit, _done: u64, _total: u64) {}
    /// The MySQL keyring files are opened with (`--keyring`), for a command
    /// that decrypts pages found outside any space (`carve`). By default
    /// none.
    fn keyring(&self) -> Option<&ibdscope_core::crypt::keyring::Keyring> {
        None
    }
}

/// What a progress report counts ([`Host::progress`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Unit {
    /// Pages of the file opened last.
    Pages,
    /// Files (`audit`).
    Files,
}

/// A file that changed while a run read it: its size or modification time
/// at the end of the reading differ from those at open, or reads past its
/// new end found nothing (they were answered with zeros).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Change {
    /// The file.
    pub path: PathBuf,
    /// Its size when it was opened.
    pub len_at_open: u64,
    /// Its size at the end, if it could still be read.
    pub len_now: Option<u64>,
    /// Its modification time moved.
    pub modified: bool,
    /// Reads past its new end were answered with zeros (it shrank while
    /// mapped): the pages there were not read from the file.
    pub zero_filled: bool,
}

impl Change {
    /// A change of `path`.
    pub fn new(path: PathBuf, len_at_open: u64, len_now: Option<u64>, modified: bool) -> Change {
        Change {
            path,
            len_at_open,
            len_now,
            modified,
            zero_filled: false,
        }
    }
    /// The same change, with reads past the new end answered with zeros.
    pub fn with_zero_filled(mut self, zero_filled: bool) -> Change {
        self.zero_filled = zero_filled;
        self
    }
}

impl fmt::Display for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: changed while it was read: {} bytes at open, ",
            crate::names::path(&self.path),
            self.len_at_open
        )?;
        match self.len_now {
            Some(n) => write!(f, "{n} now")?,
            None => f.write_str("no longer readable")?,
        }
        if self.modified {
            f.write_str("; its modification time moved")?;
        }
        if self.zero_filled {
            f.write_str("; the bytes past its new end were read as zeros")?;
        }
        f.write_str(" (what is reported is what was read; run again on a stable copy)")
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
    fn open(&self, path: &Path, _threads: usize) -> Result<Box<dyn Source>, Error> {
        let err = |kind: std::io::ErrorKind, what: &str| {
            Error::open(path, std::io::Error::new(kind, what.to_string()))
        };
        if path.is_dir() {
            return Err(err(
                std::io::ErrorKind::IsADirectory,
                "is a directory, not a tablespace file",
            ));
        }
        match std::fs::read(path) {
            Ok(b) => Ok(Box::new(b)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                Err(err(std::io::ErrorKind::NotFound, "no such file"))
            }
            Err(e) => Err(Error::open(path, e)),
        }
    }
}
