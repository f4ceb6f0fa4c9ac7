//! The one way to open a space: [`open`] a file (the system tablespace
//! when it is named by its first data file, `ibdata1`, with the files that
//! continue it), [`open_system`] a datadir's system tablespace, through a
//! [`Host`] (the binary maps files; [`crate::host::ReadHost`] reads them
//! whole; a [`crate::decrypt::DecryptHost`] decrypts MySQL encrypted
//! spaces), then [`Input::tablespace`]: the page size override
//! ([`OpenOptions::options`]) and the holes of a sparse file
//! ([`Source::zero_ranges`]) are applied there, so every command reads a
//! space the same way.

use crate::diagnostic::Diagnostic;
use crate::error::{Error, ErrorKind};
use crate::host::{Host, Source};
use ibdscope_core::crypt::mariadb::KeyFile;
use ibdscope_core::{Options, Tablespace};
use ibdscope_forensics::system::continues;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// How to open a space: the host that opens files, the threads the run
/// uses, the parsing options (the page size, when page 0 cannot say it),
/// the system tablespace's data file names (`innodb_data_file_path`), and
/// for the front door ([`crate::File::open_with`]) a MariaDB key file and
/// where the table definition comes from.
///
/// ```
/// let how = ibdscope::OpenOptions::new().page_size(16384).threads(2);
/// # let _ = how;
/// ```
#[derive(Clone)]
#[non_exhaustive]
pub struct OpenOptions {
    /// Opens the files (default: [`crate::host::ReadHost`], each file
    /// read whole).
    pub host: Arc<dyn Host>,
    /// Threads every whole-file pass runs on (default 1).
    pub threads: usize,
    /// How pages are parsed (the page size, when given).
    pub options: Options,
    /// The system tablespace's data files, in order (else `ibdata1`,
    /// `ibdata2`…).
    pub data_files: Option<Vec<PathBuf>>,
    /// A MariaDB `file_key_management` key file: its encrypted spaces are
    /// read decrypted.
    pub key_file: Option<Arc<KeyFile>>,
    /// Where a table definition may come from besides the file.
    pub definition: DefOpts,
}

impl fmt::Debug for OpenOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OpenOptions")
            .field("host", &self.host)
            .field("threads", &self.threads)
            .field("options", &self.options)
            .field("data_files", &self.data_files)
            .field("key_file", &self.key_file.is_some())
            .field("definition", &self.definition)
            .finish()
    }
}

impl Default for OpenOptions {
    fn default() -> Self {
        OpenOptions::new()
    }
}

impl OpenOptions {
    /// Files read whole, one thread, page size detected, the system
    /// tablespace named `ibdata1`, `ibdata2`…, no keys, the definition
    /// from the file (SDI), a `.frm` beside it or its datadir's
    /// dictionary.
    pub fn new() -> Self {
        OpenOptions {
            host: Arc::new(crate::host::ReadHost),
            threads: 1,
            options: Options::default(),
            data_files: None,
            key_file: None,
            definition: DefOpts::default(),
        }
    }

    /// Files opened through `host` (the binary maps them).
    pub fn host(mut self, host: Arc<dyn Host>) -> Self {
        self.host = host;
        self
    }

    /// MySQL/Percona encrypted spaces read decrypted with the master keys
    /// of `keyring` ([`crate::decrypt::DecryptHost`] around the host).
    /// Give the host and the page size first: the keyring wraps the host
    /// set so far, and reads page 0 with the options set so far.
    pub fn keyring(mut self, keyring: crate::decrypt::Keyring) -> Self {
        self.host = Arc::new(crate::decrypt::DecryptHost::new(
            Arc::clone(&self.host),
            keyring,
            self.options,
        ));
        self
    }

    /// MariaDB encrypted spaces read decrypted with `keys`.
    pub fn key_file(mut self, keys: KeyFile) -> Self {
        self.key_file = Some(Arc::new(keys));
        self
    }

    /// With `threads` threads.
    pub fn threads(mut self, threads: usize) -> Self {
        self.threads = threads.max(1);
        self
    }

    /// Pages of `bytes` bytes, whatever page 0 says (a damaged page 0).
    pub fn page_size(mut self, bytes: u32) -> Self {
        self.options.page_size = Some(bytes);
        self
    }

    /// With these parsing options.
    pub fn options(mut self, options: Options) -> Self {
        self.options = options;
        self
    }

    /// With the system tablespace's data files named by `names` (the
    /// names of `innodb_data_file_path`, [`parse_data_file_path`]).
    pub fn data_files(mut self, names: Option<Vec<PathBuf>>) -> Self {
        self.data_files = names;
        self
    }

    /// The datadir whose InnoDB dictionary (MySQL 5.x, MariaDB) defines
    /// the table when the file has no SDI and no `.frm` beside it.
    pub fn datadir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.definition.datadir = Some(dir.into());
        self
    }

    /// The table definition from this `.frm`.
    pub fn frm(mut self, frm: impl Into<PathBuf>) -> Self {
        self.definition.frm = Some(frm.into());
        self
    }

    /// The table definition from the `CREATE TABLE` statement in this
    /// file.
    pub fn ddl(mut self, ddl: impl Into<PathBuf>) -> Self {
        self.definition.ddl = Some(ddl.into());
        self
    }

    /// The borrowed form the opening functions work with.
    fn via(&self) -> Via<'_> {
        Via {
            host: &*self.host,
            threads: self.threads,
            options: self.options,
            spec: self.data_files.as_deref(),
        }
    }
}

/// [`OpenOptions`] borrowed: what opening files needs.
#[derive(Clone, Copy)]
pub(crate) struct Via<'a> {
    pub(crate) host: &'a dyn Host,
    pub(crate) threads: usize,
    pub(crate) options: Options,
    pub(crate) spec: Option<&'a [PathBuf]>,
}

/// Where a table definition may come from besides the file itself (the
/// CLI's `--frm`, `--ddl`, `--datadir`, `--table`); the default: the SDI
/// in the file, else `<name>.frm` beside it, else the dictionary of the
/// datadir holding it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DefOpts {
    /// `--frm`.
    pub frm: Option<PathBuf>,
    /// `--ddl`.
    pub ddl: Option<PathBuf>,
    /// `--datadir`: the datadir whose InnoDB dictionary (MySQL ≤ 5.7,
    /// MariaDB) defines the table when the file has no SDI and no `.frm`.
    pub datadir: Option<PathBuf>,
    /// `--table DB/NAME`: the dictionary's table of that name (a table in
    /// the system tablespace, read from `ibdata1`).
    pub table: Option<String>,
    /// `--infer`: no definition is read; the columns are inferred from
    /// the records ([`ibdscope_schema::infer`]).
    pub infer: bool,
}

/// An opened space's bytes: one file, or the system tablespace's data
/// files side by side (one page numbering across them).
pub struct Input {
    source: Box<dyn Source>,
    /// Which chunks of the bytes the space's readers hold
    /// ([`ibdscope_core::window`]).
    window: ibdscope_core::window::Window,
    options: Options,
    system: bool,
    /// Each file read and its length.
    pub files: Vec<(PathBuf, u64)>,
    /// Files that do not continue the ones before them, or could not be
    /// read (the space is read up to there): findings.
    pub problems: Vec<String>,
    /// What the host had to tell while opening (a key that does not open
    /// the space, an image that could not be allocated), in order.
    pub diagnostics: Vec<Diagnostic>,
}

impl Input {
    /// The bytes, one file after the other.
    pub fn bytes(&self) -> &[u8] {
        self.source.bytes()
    }

    /// The source the bytes come from (its known-zero ranges).
    pub fn source(&self) -> &dyn Source {
        &*self.source
    }

    /// The space in the bytes, parsed with the options it was opened
    /// with, told which bytes are known zeros (a sparse file's holes: no
    /// pass touches them), its pages read as the source's read (a MySQL
    /// encrypted space opened with its keyring: decrypted).
    pub fn tablespace(&self) -> ibdscope_core::Result<Tablespace<'_>> {
        crate::host::tablespace(&*self.source, self.options)
            .map(|ts| ts.with_window(&self.window, &self.source))
    }

    /// Whether this is the system tablespace named by its first data file
    /// (files that continue it were looked for).
    pub fn is_system(&self) -> bool {
        self.system
    }

    /// Bytes `offset..offset + len` will not be read again soon: a mapped
    /// source may drop their mappings.
    pub fn release(&self, offset: usize, len: usize) {
        self.source.release(offset, len);
    }

    /// The file that holds byte `at` of the space and the offset in it
    /// (the last file for an offset past the end).
    pub fn locate(&self, at: u64) -> (&Path, u64) {
        let mut start = 0u64;
        let last = self.files.len().saturating_sub(1);
        for (i, (p, len)) in self.files.iter().enumerate() {
            let end = start.saturating_add(*len);
            if at < end || i == last {
                return (p, at.saturating_sub(start));
            }
            start = end;
        }
        (Path::new("ibdata1"), at)
    }

    /// `file, page N, byte offset B` for page `page` at byte `at` of the
    /// space, the offset in the file that holds it.
    pub fn place(&self, page: u32, at: u64) -> String {
        let (p, off) = self.locate(at);
        format!("{}, page {page}, byte offset {off}", crate::names::path(p))
    }
}

/// Opens the space in `path`: the file, or when `path` is the system
/// tablespace's first data file and files continue it, the system
/// tablespace ([`open_system`]).
pub fn open(path: &Path, how: &OpenOptions) -> Result<Input, Error> {
    let how = how.via();
    if !continuation_files_in(path, how.spec).is_empty() {
        return system_via(path, &how);
    }
    file_via(path, &how)
}

/// Opens exactly the file `path` (one data file of a system tablespace is
/// then read alone, its pages numbered from its own start).
pub fn open_file(path: &Path, how: &OpenOptions) -> Result<Input, Error> {
    file_via(path, &how.via())
}

fn file_via(path: &Path, how: &Via<'_>) -> Result<Input, Error> {
    let source = how.host.open(path, how.threads)?;
    let len = source.bytes().len() as u64;
    Ok(Input {
        window: ibdscope_core::window::Window::new(len as usize),
        source,
        options: how.options,
        system: false,
        files: vec![(path.to_path_buf(), len)],
        problems: Vec::new(),
        diagnostics: how.host.diagnostics(),
    })
}

/// Opens the system tablespace whose first file is `first` (`ibdata1`)
/// with the files that continue it: each continuation file is opened to
/// check that its first page carries the page number after the files
/// before it, then the files that do are opened again as one source
/// (`Host::open_joined`). A file that does not continue, is shorter than
/// a page or cannot be opened ends the space there and is a problem.
/// `Err` when `first` itself cannot be opened.
pub fn open_system(first: &Path, how: &OpenOptions) -> Result<Input, Error> {
    system_via(first, &how.via())
}

/// [`open_system`] with the options borrowed.
pub(crate) fn system_via(first: &Path, how: &Via<'_>) -> Result<Input, Error> {
    let (host, threads) = (how.host, how.threads);
    let src = host.open(first, threads)?;
    let mut diagnostics = host.diagnostics();
    let more = continuation_files_in(first, how.spec);
    let mut files = vec![(first.to_path_buf(), src.bytes().len() as u64)];
    let mut problems = Vec::new();
    let input = |source: Box<dyn Source>, files, problems, diagnostics| Input {
        window: ibdscope_core::window::Window::new(source.bytes().len()),
        source,
        options: how.options,
        system: true,
        files,
        problems,
        diagnostics,
    };
    if more.is_empty() {
        return Ok(input(src, files, problems, diagnostics));
    }
    let ps = u64::from(
        Tablespace::with_options(src.bytes(), how.options)
            .map(|t| t.page_size())
            .unwrap_or(16384)
            .max(1),
    );
    let mut total = src.bytes().len() as u64;
    for p in &more {
        if !total.is_multiple_of(ps) {
            problems.push(format!(
                "{}: not read: the file before it ends inside a page (at byte {total} of the \
                 system tablespace, page size {ps})",
                crate::names::path(p)
            ));
            break;
        }
        let next = match host.open(p, threads) {
            Ok(s) => s,
            Err(e) => {
                problems.push(format!("{e} (the system tablespace is read up to it)"));
                break;
            }
        };
        diagnostics.extend(host.diagnostics());
        let b = next.bytes();
        let expected = u32::try_from(total.checked_div(ps).unwrap_or(0)).unwrap_or(u32::MAX);
        if (b.len() as u64) < ps {
            problems.push(format!(
                "{}: not read: it holds {} bytes, less than one page of {ps} (page {expected} \
                 of the system tablespace would start it)",
                crate::names::path(p),
                b.len()
            ));
            break;
        }
        let head = usize::try_from(ps)
            .ok()
            .and_then(|n| b.get(..n))
            .unwrap_or(b);
        if !continues(head, expected) {
            problems.push(format!(
                "{}: not read: its first page (byte offset 0) is not numbered {expected} (the \
                 page after the files before it), so it does not continue them",
                crate::names::path(p)
            ));
            break;
        }
        files.push((p.clone(), b.len() as u64));
        total = total.saturating_add(b.len() as u64);
    }
    if files.len() == 1 {
        return Ok(input(src, files, problems, diagnostics));
    }
    drop(src);
    let paths: Vec<PathBuf> = files.iter().map(|(p, _)| p.clone()).collect();
    let source = host.open_joined(&paths, threads)?;
    diagnostics.extend(host.diagnostics());
    Ok(input(source, files, problems, diagnostics))
}

/// Opens the system tablespace of `datadir` (its first data file; or the
/// first data file itself when `datadir_or_first` names a file).
pub fn open_datadir(datadir_or_first: &Path, how: &OpenOptions) -> Result<Input, Error> {
    datadir_via(datadir_or_first, &how.via())
}

/// [`open_datadir`] with the options borrowed.
pub(crate) fn datadir_via(datadir_or_first: &Path, how: &Via<'_>) -> Result<Input, Error> {
    let first = if datadir_or_first.is_dir() {
        first_data_file(datadir_or_first, how.spec)
    } else {
        datadir_or_first.to_path_buf()
    };
    system_via(&first, how)
}

/// The most data files a system tablespace is read from.
const MAX_DATA_FILES: u32 = 1000;

/// The files that continue `path` (`ibdata1`): `ibdata2`, `ibdata3`… beside
/// it, as long as they exist. Empty for any other file name.
pub fn continuation_files(path: &Path) -> Vec<PathBuf> {
    continuation_files_in(path, None)
}

/// [`continuation_files`] under a `--data-file-path` (`spec`, the file
/// names of `innodb_data_file_path` in order): when `path` is named like
/// the first, the others (beside it, or absolute), every one listed (a
/// missing one is then a finding, not the end of a guess).
pub fn continuation_files_in(path: &Path, spec: Option<&[PathBuf]>) -> Vec<PathBuf> {
    let dir = path.parent().unwrap_or(Path::new("."));
    if let Some(names) = spec {
        let first = names.first().and_then(|n| n.file_name());
        if first.is_none() || path.file_name() != first {
            return Vec::new();
        }
        return names.iter().skip(1).map(|n| dir.join(n)).collect();
    }
    if path.file_name().and_then(|n| n.to_str()) != Some("ibdata1") {
        return Vec::new();
    }
    (2..MAX_DATA_FILES)
        .map(|n| dir.join(format!("ibdata{n}")))
        .take_while(|p| p.is_file())
        .collect()
}

/// The first data file of the system tablespace in `datadir`: `ibdata1`,
/// or the first name of a `--data-file-path`.
pub fn first_data_file(datadir: &Path, spec: Option<&[PathBuf]>) -> PathBuf {
    match spec.and_then(|n| n.first()) {
        Some(n) => datadir.join(n),
        None => datadir.join("ibdata1"),
    }
}

/// Parses a `--data-file-path` as `innodb_data_file_path` is written:
/// `file_name:file_size[:autoextend[:max:max_file_size]]` entries separated
/// by `;`; only the names are kept (sizes are what the files hold). Raw
/// partitions (`newraw`, `raw`) are refused.
///
/// Errors: [`ErrorKind::DataFileEntry`], [`ErrorKind::RawPartition`],
/// [`ErrorKind::NoDataFiles`], [`ErrorKind::TooManyDataFiles`].
pub fn parse_data_file_path(spec: &str) -> Result<Vec<PathBuf>, Error> {
    let bad = |k| Err(Error::bare(k));
    let mut names = Vec::new();
    for entry in spec.split(';').map(str::trim).filter(|e| !e.is_empty()) {
        let mut parts = entry.split(':');
        let name = parts.next().unwrap_or("").trim();
        let size = parts.next().unwrap_or("").trim();
        if name.is_empty() || size.is_empty() {
            return bad(ErrorKind::DataFileEntry(entry.to_string()));
        }
        let size = size.to_ascii_lowercase();
        if size.ends_with("newraw") || size.ends_with("raw") {
            return bad(ErrorKind::RawPartition(entry.to_string()));
        }
        names.push(PathBuf::from(name));
    }
    if names.is_empty() {
        return bad(ErrorKind::NoDataFiles);
    }
    if names.len() >= MAX_DATA_FILES as usize {
        return bad(ErrorKind::TooManyDataFiles(MAX_DATA_FILES));
    }
    Ok(names)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn data_file_path_names_as_the_server_writes_them() {
        // innodb_data_file_path: file_name:file_size[:autoextend[:max:max_file_size]]
        // (mysql-server 5.7 storage/innobase/fsp/fsp0space.cc, srv0start.cc).
        assert_eq!(
            parse_data_file_path("ibdata1:12M;ibdata2:12M:autoextend").unwrap(),
            vec![PathBuf::from("ibdata1"), PathBuf::from("ibdata2")]
        );
        assert_eq!(
            parse_data_file_path("ibd_a:10M:autoextend:max:500M").unwrap(),
            vec![PathBuf::from("ibd_a")]
        );
        assert!(parse_data_file_path("").is_err());
        assert!(parse_data_file_path("ibdata1").is_err());
        assert!(parse_data_file_path("/dev/sdb:10Gnewraw").is_err());
        let spec = [PathBuf::from("ibd_a"), PathBuf::from("ibd_b")];
        assert_eq!(
            continuation_files_in(Path::new("/d/ibd_a"), Some(&spec)),
            vec![PathBuf::from("/d/ibd_b")]
        );
        assert!(continuation_files_in(Path::new("/d/ibdata1"), Some(&spec)).is_empty());
        assert_eq!(
            first_data_file(Path::new("/d"), Some(&spec)),
            PathBuf::from("/d/ibd_a")
        );
        assert_eq!(
            first_data_file(Path::new("/d"), None),
            PathBuf::from("/d/ibdata1")
        );
    }
}
