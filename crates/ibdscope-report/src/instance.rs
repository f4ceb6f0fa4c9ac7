//! The whole instance: the system tablespace as one space (`ibdata1`
//! continued by `ibdata2`… beside it, one page numbering across the files,
//! as `innodb_data_file_path` lists them), its dictionary, and a table's
//! definition from that dictionary when the table's file has no SDI and
//! no `.frm`.

use crate::host::{Host, Source};
use ibdscope_core::Tablespace;
use ibdscope_forensics::dict::{DictProblem, DictTable, Dictionary};
use ibdscope_forensics::system::continues;
use ibdscope_schema::dictdef::{DictCol, DictIdx};
use ibdscope_schema::table::{RowFormat, TableDef};
use std::path::{Path, PathBuf};

/// Columns whose type the dictionary does not fully give, and why.
pub type DictNotes = Vec<(String, String)>;

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
pub fn parse_data_file_path(spec: &str) -> Result<Vec<PathBuf>, String> {
    let mut names = Vec::new();
    for entry in spec.split(';').map(str::trim).filter(|e| !e.is_empty()) {
        let mut parts = entry.split(':');
        let name = parts.next().unwrap_or("").trim();
        let size = parts.next().unwrap_or("").trim();
        if name.is_empty() || size.is_empty() {
            return Err(format!(
                "'{entry}': an innodb_data_file_path entry is file_name:file_size[:autoextend]"
            ));
        }
        let size = size.to_ascii_lowercase();
        if size.ends_with("newraw") || size.ends_with("raw") {
            return Err(format!("'{entry}': raw partitions are not read"));
        }
        names.push(PathBuf::from(name));
    }
    if names.is_empty() {
        return Err("an empty innodb_data_file_path".into());
    }
    if names.len() >= MAX_DATA_FILES as usize {
        return Err(format!("more than {MAX_DATA_FILES} data files"));
    }
    Ok(names)
}

/// The system tablespace: its data files as one space, mapped side by side
/// by the host (no copy when the host maps files).
pub struct System {
    source: Box<dyn Source>,
    /// Each file read and its length.
    pub files: Vec<(PathBuf, u64)>,
    /// Files that do not continue the ones before them, or could not be
    /// read (the space is read up to there).
    pub problems: Vec<String>,
}

impl System {
    /// The files' bytes, one after the other.
    pub fn bytes(&self) -> &[u8] {
        self.source.bytes()
    }

    /// The source the bytes come from (its known-zero ranges).
    pub fn source(&self) -> &dyn Source {
        &*self.source
    }

    /// The file that holds byte `at` of the space and the offset in it
    /// (the last file for an offset past the end).
    pub fn locate(&self, at: u64) -> (&Path, u64) {
        let mut start = 0u64;
        for (i, (p, len)) in self.files.iter().enumerate() {
            let end = start.saturating_add(*len);
            if at < end || i + 1 == self.files.len() {
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

/// Opens the system tablespace whose first file is `first` (`ibdata1`)
/// with the files that continue it: each continuation file is opened to
/// check that its first page carries the page number after the files
/// before it, then the files that do are opened again as one source
/// (`Host::open_joined`). A file that does not continue, is shorter than
/// a page or cannot be opened ends the space there and is a problem.
/// `Err` when `first` itself cannot be opened.
pub fn open_system(
    host: &dyn Host,
    first: &Path,
    threads: usize,
    lib: ibdscope_core::Options,
    spec: Option<&[PathBuf]>,
) -> Result<System, String> {
    let src = host.open(first, threads).map_err(|e| e.to_string())?;
    let more = continuation_files_in(first, spec);
    let mut files = vec![(first.to_path_buf(), src.bytes().len() as u64)];
    let mut problems = Vec::new();
    if more.is_empty() {
        return Ok(System {
            source: src,
            files,
            problems,
        });
    }
    let ps = u64::from(
        Tablespace::with_options(src.bytes(), lib)
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
        let b = next.bytes();
        let expected = u32::try_from(total / ps).unwrap_or(u32::MAX);
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
        return Ok(System {
            source: src,
            files,
            problems,
        });
    }
    drop(src);
    let paths: Vec<PathBuf> = files.iter().map(|(p, _)| p.clone()).collect();
    let source = host
        .open_joined(&paths, threads)
        .map_err(|e| e.to_string())?;
    Ok(System {
        source,
        files,
        problems,
    })
}

/// Reads the system tablespace of `datadir` (or of the `ibdata1` named)
/// with the files that continue it, through `host`.
pub fn read_system(
    host: &dyn Host,
    datadir_or_ibdata1: &Path,
    threads: usize,
    spec: Option<&[PathBuf]>,
) -> Result<System, String> {
    let first = if datadir_or_ibdata1.is_dir() {
        first_data_file(datadir_or_ibdata1, spec)
    } else {
        datadir_or_ibdata1.to_path_buf()
    };
    open_system(
        host,
        &first,
        threads,
        ibdscope_core::Options::default(),
        spec,
    )
}

/// The datadir a `.ibd` belongs to: `given`, or the file's directory or
/// its parent, whichever holds `ibdata1`.
pub fn find_datadir(ibd: &Path, given: Option<&Path>, spec: Option<&[PathBuf]>) -> Option<PathBuf> {
    if let Some(g) = given {
        return Some(g.to_path_buf());
    }
    let abs = ibd.canonicalize().ok()?;
    let dir = abs.parent()?;
    let found = [Some(dir), dir.parent()]
        .into_iter()
        .flatten()
        .find(|d| first_data_file(d, spec).is_file())
        .map(Path::to_path_buf);
    found
}

/// A table's name split into schema and table (`db/t` in SYS_TABLES).
pub fn split_name(name: &[u8]) -> (String, String) {
    let s = String::from_utf8_lossy(name);
    match s.split_once('/') {
        Some((d, t)) => (d.to_string(), t.to_string()),
        None => (String::new(), s.into_owned()),
    }
}

/// The definition of a dictionary table, with the notes on columns the
/// dictionary does not fully describe.
pub fn table_def(t: &DictTable) -> (TableDef, DictNotes) {
    let (schema, name) = split_name(&t.name);
    let row_format = match t.row_format() {
        "Redundant" => RowFormat::Redundant,
        "Compressed" => RowFormat::Compressed,
        "Dynamic" => RowFormat::Dynamic,
        _ => RowFormat::Compact,
    };
    let cols: Vec<DictCol> = t
        .columns
        .iter()
        .map(|c| DictCol {
            name: String::from_utf8_lossy(&c.name).into_owned(),
            pos: c.pos,
            mtype: c.mtype,
            prtype: c.prtype_loaded(ibdscope_forensics::dict::DEFAULT_CHARSET_COLL),
            len: c.len,
        })
        .collect();
    let idxs: Vec<DictIdx> = t
        .indexes
        .iter()
        .map(|i| DictIdx {
            name: String::from_utf8_lossy(&i.name).into_owned(),
            id: i.id,
            index_type: i.index_type,
            root: (i.page_no != ibdscope_core::FIL_NULL).then_some(i.page_no),
            fields: i
                .fields
                .iter()
                .map(|f| (String::from_utf8_lossy(&f.name).into_owned(), f.prefix_len))
                .collect(),
        })
        .collect();
    ibdscope_schema::dictdef::table_def(&name, &schema, row_format, &cols, &idxs)
}

/// The dictionary of `datadir`, read from its system tablespace, with
/// each problem met on the way in words (file, page, byte offset).
pub fn dictionary(
    host: &dyn Host,
    datadir: &Path,
    spec: Option<&[PathBuf]>,
) -> Result<(Dictionary, Vec<String>), String> {
    let sys = read_system(host, datadir, 1, spec)?;
    let first_path = sys
        .files
        .first()
        .map_or(first_data_file(datadir, spec), |f| f.0.clone());
    let first = crate::names::path(&first_path);
    let ts = crate::host::tablespace(sys.source(), ibdscope_core::Options::default())
        .map_err(|e| format!("{first}: {e}"))?;
    let d = Dictionary::read(&ts).map_err(|e| format!("{first}: {e}"))?;
    let mut problems = sys.problems.clone();
    problems.extend(short_words(&sys, &ts));
    problems.extend(d.problems.iter().map(|p| problem_words(&sys, p)));
    Ok((d, problems))
}

/// The system tablespace holds fewer pages than its FSP_SIZE says: where
/// its files end, in words.
pub fn short_words(sys: &System, ts: &Tablespace<'_>) -> Option<String> {
    let short =
        u64::from(ts.fsp_header().map_or(0, |h| h.size())).saturating_sub(u64::from(ts.n_pages()));
    if short == 0 {
        return None;
    }
    let end = u64::from(ts.n_pages()).saturating_mul(u64::from(ts.page_size()));
    let (file, at) = sys.locate(end);
    Some(format!(
        "{}, byte offset {at}: the system tablespace's files hold {} pages; its FSP_SIZE says \
         {} more (a data file of innodb_data_file_path is missing or cut short)",
        crate::names::path(file),
        ts.n_pages(),
        short
    ))
}

/// A dictionary problem in words: the system table, then the file, page
/// and byte offset in that file.
pub fn problem_words(sys: &System, p: &DictProblem) -> String {
    format!("{}: {}: {}", sys.place(p.page, p.offset), p.table, p.what)
}

/// The table whose file is `ibd` with space id `space`: by space id, and
/// by `db/table` name when several (or none) match.
pub fn table_for<'d>(d: &'d Dictionary, ibd: &Path, space: u32) -> Option<&'d DictTable> {
    let stem = ibd.file_stem()?.to_string_lossy().into_owned();
    let db = ibd
        .canonicalize()
        .ok()
        .and_then(|p| {
            p.parent()?
                .file_name()
                .map(|s| s.to_string_lossy().into_owned())
        })
        .unwrap_or_default();
    let name = format!("{db}/{stem}");
    let by_space: Vec<&DictTable> = d
        .tables
        .iter()
        .filter(|t| space != 0 && t.space == space)
        .collect();
    match by_space.as_slice() {
        [one] => Some(one),
        _ => d.tables.iter().find(|t| t.name == name.as_bytes()),
    }
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
