//! The whole instance: the system tablespace as one space (`ibdata1`
//! continued by `ibdata2`… beside it, one page numbering across the files,
//! as `innodb_data_file_path` lists them), its dictionary, and a table's
//! definition from that dictionary when the table's file has no SDI and
//! no `.frm`.

use ibdscope::Tablespace;
use ibdscope_forensics::dict::{DictTable, Dictionary};
use ibdscope_forensics::system::continues;
use ibdscope_schema::dictdef::{DictCol, DictIdx};
use ibdscope_schema::table::{RowFormat, TableDef};
use std::path::{Path, PathBuf};

/// Columns whose type the dictionary does not fully give, and why.
pub type DictNotes = Vec<(String, &'static str)>;

/// The most data files a system tablespace is read from.
const MAX_DATA_FILES: u32 = 1000;

/// The files that continue `path` (`ibdata1`): `ibdata2`, `ibdata3`… beside
/// it, as long as they exist. Empty for any other file name.
pub fn continuation_files(path: &Path) -> Vec<PathBuf> {
    if path.file_name().and_then(|n| n.to_str()) != Some("ibdata1") {
        return Vec::new();
    }
    let dir = path.parent().unwrap_or(Path::new("."));
    (2..MAX_DATA_FILES)
        .map(|n| dir.join(format!("ibdata{n}")))
        .take_while(|p| p.is_file())
        .collect()
}

/// The system tablespace read whole from its files.
pub struct System {
    /// The files' bytes, one after the other.
    pub bytes: Vec<u8>,
    /// Each file and its length.
    pub files: Vec<(PathBuf, u64)>,
    /// Files that do not continue the ones before them (read up to there).
    pub problems: Vec<String>,
}

/// Joins `first`'s bytes with those of the files that continue it, each
/// read by `read`, checking that every file's first page carries the page
/// number that follows (`page_size` from the first file's detection).
pub fn join(
    first: (&Path, &[u8]),
    page_size: u32,
    more: &[PathBuf],
    read: &mut dyn FnMut(&Path) -> Result<Vec<u8>, String>,
) -> Result<System, String> {
    let mut bytes = first.1.to_vec();
    let mut files = vec![(first.0.to_path_buf(), first.1.len() as u64)];
    let mut problems = Vec::new();
    let ps = usize::try_from(page_size).unwrap_or(16384).max(1);
    for p in more {
        if !bytes.len().is_multiple_of(ps) {
            problems.push(format!(
                "{}: not read: the file before it ends inside a page",
                crate::names::path(p)
            ));
            break;
        }
        let b = read(p)?;
        let expected = u32::try_from(bytes.len() / ps).unwrap_or(u32::MAX);
        if !continues(b.get(..ps).unwrap_or(&b), expected) {
            problems.push(format!(
                "{}: not read: its first page is not numbered {expected} (the page after the \
                 files before it), so it does not continue them",
                crate::names::path(p)
            ));
            break;
        }
        files.push((p.clone(), b.len() as u64));
        bytes.extend_from_slice(&b);
    }
    Ok(System {
        bytes,
        files,
        problems,
    })
}

/// Reads the system tablespace of `datadir` (or of the `ibdata1` named)
/// with the files that continue it.
pub fn read_system(datadir_or_ibdata1: &Path) -> Result<System, String> {
    let first = if datadir_or_ibdata1.is_dir() {
        datadir_or_ibdata1.join("ibdata1")
    } else {
        datadir_or_ibdata1.to_path_buf()
    };
    let b = std::fs::read(&first).map_err(|e| format!("{}: {e}", crate::names::path(&first)))?;
    let ps = Tablespace::new(&b).map(|t| t.page_size()).unwrap_or(16384);
    let more = continuation_files(&first);
    join((&first, &b), ps, &more, &mut |p| {
        std::fs::read(p).map_err(|e| format!("{}: {e}", crate::names::path(p)))
    })
}

/// The datadir a `.ibd` belongs to: `given`, or the file's directory or
/// its parent, whichever holds `ibdata1`.
pub fn find_datadir(ibd: &Path, given: Option<&Path>) -> Option<PathBuf> {
    if let Some(g) = given {
        return Some(g.to_path_buf());
    }
    let abs = ibd.canonicalize().ok()?;
    let dir = abs.parent()?;
    let found = [Some(dir), dir.parent()]
        .into_iter()
        .flatten()
        .find(|d| d.join("ibdata1").is_file())
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
            root: (i.page_no != ibdscope::FIL_NULL).then_some(i.page_no),
            fields: i
                .fields
                .iter()
                .map(|f| (String::from_utf8_lossy(&f.name).into_owned(), f.prefix_len))
                .collect(),
        })
        .collect();
    ibdscope_schema::dictdef::table_def(&name, &schema, row_format, &cols, &idxs)
}

/// The dictionary of `datadir`, read from its system tablespace.
pub fn dictionary(datadir: &Path) -> Result<(System, Dictionary), String> {
    let sys = read_system(datadir)?;
    let ts = Tablespace::new(&sys.bytes)
        .map_err(|e| format!("{}: {e}", crate::names::path(&datadir.join("ibdata1"))))?;
    let d = Dictionary::read(&ts)
        .map_err(|e| format!("{}: {e}", crate::names::path(&datadir.join("ibdata1"))))?;
    Ok((sys, d))
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
