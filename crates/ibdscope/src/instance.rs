//! The whole instance: the system tablespace as one space (`ibdata1`
//! continued by `ibdata2`… beside it, one page numbering across the files,
//! as `innodb_data_file_path` lists them), its dictionary, and a table's
//! definition from that dictionary when the table's file has no SDI and
//! no `.frm`.

use crate::host::Host;
use ibdscope_core::Tablespace;
use ibdscope_forensics::dict::{DictProblem, DictTable, Dictionary};
use ibdscope_schema::dictdef::{DictCol, DictIdx};
use ibdscope_schema::table::{RowFormat, TableDef};
use std::path::{Path, PathBuf};

/// Columns whose type the dictionary does not fully give, and why.
pub type DictNotes = Vec<(String, String)>;

// Which files make the system tablespace is part of opening it.
pub use crate::open::{
    continuation_files, continuation_files_in, first_data_file, parse_data_file_path,
};

/// The system tablespace: its data files as one space, opened by
/// [`crate::open::open_system`].
pub type System = crate::open::Input;

/// Reads the system tablespace of `datadir` (or of the `ibdata1` named)
/// with the files that continue it, through `host`, its page size
/// detected ([`crate::open::open_datadir`]).
pub fn read_system(
    host: &dyn Host,
    datadir_or_ibdata1: &Path,
    threads: usize,
    spec: Option<&[PathBuf]>,
) -> Result<System, crate::error::Error> {
    let how = crate::open::Via {
        host,
        threads,
        options: ibdscope_core::Options::default(),
        spec,
    };
    crate::open::datadir_via(datadir_or_ibdata1, &how)
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
) -> Result<(Dictionary, Vec<String>), crate::error::Error> {
    let sys = read_system(host, datadir, 1, spec)?;
    let first_path = sys
        .files
        .first()
        .map_or(first_data_file(datadir, spec), |f| f.0.clone());
    let ts = sys
        .tablespace()
        .map_err(|e| crate::error::Error::new(crate::error::ErrorKind::Parse(e), &first_path))?;
    let d = Dictionary::read(&ts).map_err(|e| {
        crate::error::Error::new(crate::error::ErrorKind::Dictionary(e), &first_path)
    })?;
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
