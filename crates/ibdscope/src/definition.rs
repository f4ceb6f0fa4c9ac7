//! Where a table's definition comes from, for every command that names
//! indexes and columns: the SDI in the file (MySQL 8.0+), a `.frm` given
//! with `--frm`, a `CREATE TABLE` statement given with `--ddl`, or
//! `<name>.frm` beside the file; index roots of a `.frm` or a statement
//! found in the space's B-trees.

use crate::diagnostic::Diagnostic;
use crate::error::{Error, ErrorKind};
use crate::host::Host;
pub use crate::open::DefOpts;
use ibdscope_core::{PageNo, RecFormat, RecPage, SpaceMap, Tablespace};
use ibdscope_forensics::dict::DictTable;
use ibdscope_schema::frm::Frm;
use ibdscope_schema::table::{DefSource, FromSpaceErrorKind, RowFormat, TableDef};
use std::path::{Path, PathBuf};

/// A table definition and where it came from.
#[derive(Clone)]
pub struct Def {
    /// The definition (index roots filled in from the space for a `.frm`).
    pub table: TableDef,
    /// The `.frm` read, when one was.
    pub frm_path: Option<PathBuf>,
    /// The `.frm` was found beside the file (not named by `--frm`).
    pub frm_beside: bool,
    /// The `--ddl` file read, with the statement's table name and line.
    pub ddl: Option<(PathBuf, String, u32)>,
    /// The row format: the definition's, else the space's.
    pub row_format: RowFormat,
    /// The row format came from the space (flags and page format), not the
    /// definition.
    pub row_format_from_space: bool,
    /// The datadir whose InnoDB dictionary gave the definition.
    pub dict_datadir: Option<PathBuf>,
    /// The system tablespace's first data file that dictionary was read
    /// from (`ibdata1`, or the first of `--data-file-path`), also when it
    /// gave none (`dict_fallback`).
    pub dict_file: Option<PathBuf>,
    /// Columns whose type the dictionary does not fully give, and why.
    pub dict_notes: crate::instance::DictNotes,
    /// Problems met reading that dictionary (file, page, byte offset),
    /// said on stderr: the table's own rows were all there. When the
    /// dictionary gave no definition and the `.frm` beside the file was
    /// used instead, why it gave none.
    pub dict_problems: Vec<String>,
    /// The columns whose type the dictionary (`--datadir`) does not hold,
    /// when the `.frm` beside the file was read instead for them.
    pub frm_over_dict: Vec<String>,
    /// The dictionary was read (`--datadir`) although a `.frm` is beside
    /// the file: it types every column the same.
    pub dict_with_frm_beside: bool,
    /// The datadir's dictionary was asked and gave no definition (damaged,
    /// or without the table): why, in words; the `.frm` beside the file
    /// was used instead.
    pub dict_fallback: Option<String>,
    /// The definition was inferred from the records (`--infer`): what
    /// was inferred, column by column, with confidence and evidence.
    pub inferred: Option<Box<ibdscope_schema::infer::Inference>>,
    /// What reading the definition had to tell, in the order found: the
    /// problems of the dictionary it came from, a `.frm` read instead of
    /// a dictionary that gave none.
    pub diagnostics: Vec<Diagnostic>,
}

impl Def {
    /// Where the definition came from, in words.
    pub fn source_words(&self) -> String {
        if self.inferred.is_some() {
            return "the table's own records, inferred (--infer: no .frm, SDI or dictionary \
                    read; each column's confidence and evidence: schema --infer)"
                .into();
        }
        if let Some((p, name, line)) = &self.ddl {
            return format!(
                "{} (--ddl: CREATE TABLE `{}` at line {line})",
                crate::names::path(p),
                crate::names::name(name)
            );
        }
        match (&self.frm_path, self.table.source) {
            (Some(p), _) if self.frm_beside && self.dict_fallback.is_some() => {
                format!(
                    "{} (found beside the .ibd: the InnoDB dictionary in {} gives no definition \
                     of the table)",
                    crate::names::path(p),
                    crate::names::path(self.dict_file.as_deref().unwrap_or(Path::new("ibdata1")))
                )
            }
            (Some(p), _) if self.frm_beside && !self.frm_over_dict.is_empty() => format!(
                "{} (found beside the .ibd; the file has no SDI; read instead of the InnoDB \
                 dictionary, which lacks the types of {})",
                crate::names::path(p),
                self.frm_over_dict
                    .iter()
                    .map(|c| crate::names::name(c).to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            (Some(p), _) if self.frm_beside => {
                format!(
                    "{} (found beside the .ibd; the file has no SDI)",
                    crate::names::path(p)
                )
            }
            (None, DefSource::Dictionary) if self.dict_with_frm_beside => format!(
                "the InnoDB dictionary in {} (--datadir; the file has no SDI)",
                crate::names::path(self.dict_file.as_deref().unwrap_or(Path::new("ibdata1")))
            ),
            (Some(p), _) => format!("{} (--frm)", crate::names::path(p)),
            (None, DefSource::Sdi) => "the SDI in the file (MySQL 8.0+ data dictionary)".into(),
            (None, DefSource::Dictionary) => format!(
                "the InnoDB dictionary in {} (the file has no SDI and no .frm beside it)",
                crate::names::path(self.dict_file.as_deref().unwrap_or(Path::new("ibdata1")))
            ),
            (None, _) => "built by hand".into(),
        }
    }

    /// The source as one word: `sdi`, `frm`.
    pub fn source_word(&self) -> &'static str {
        if self.inferred.is_some() {
            return "inferred";
        }
        match self.table.source {
            DefSource::Sdi => "sdi",
            DefSource::Frm => "frm",
            DefSource::Ddl => "ddl",
            DefSource::Manual => "manual",
            DefSource::Dictionary => "dictionary",
        }
    }
}

/// Finds the definition of the table `path` holds. A definition without
/// index roots (a `.frm`, a `CREATE TABLE`) gets them from `map`, the
/// space map the caller shares (built once, only when needed). `Err` is
/// the message for stderr (exit 2).
pub fn load<'m>(
    path: &Path,
    ts: &Tablespace<'_>,
    map: impl FnOnce() -> &'m SpaceMap,
    d: &DefOpts,
    (host, spec): (&dyn Host, Option<&[PathBuf]>),
) -> Result<Def, Error> {
    let encrypted = ts.format().encryption;
    let mut ddl = None;
    let mut dict_datadir = None;
    let mut dict_file = None;
    let mut dict_notes = Vec::new();
    let mut dict_problems = Vec::new();
    let mut frm_over_dict = Vec::new();
    let mut dict_with_frm_beside = false;
    let mut dict_fallback = None;
    let mut diagnostics = Vec::new();
    let mut inferred = None;
    let (mut table, frm_path, frm_beside) = match (&d.frm, &d.ddl) {
        (None, None) if d.infer => {
            let inf = ibdscope_schema::infer::infer(ts);
            if inf.columns.is_empty() {
                let why = if inf.notes.is_empty() {
                    "no column found".to_string()
                } else {
                    inf.notes.join("; ")
                };
                return Err(Error::new(ErrorKind::NotInferred(why), path));
            }
            let name = path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| "t".into());
            let sql = inf.create_table(&name);
            let t = ibdscope_schema::ddl::parse_one(sql.as_bytes(), Some(&name)).map_err(|e| {
                Error::new(
                    ErrorKind::NotInferred(format!("the statement inferred does not parse: {e}")),
                    path,
                )
            })?;
            inferred = Some(Box::new(inf));
            (t.to_table_def(&schema_of(path)), None, false)
        }
        (None, None) if d.table.is_some() => {
            let dir = crate::instance::find_datadir(path, d.datadir.as_deref(), spec)
                .ok_or_else(|| Error::new(ErrorKind::TableNeedsDatadir, path))?;
            let (t, notes, problems) = from_dictionary_by_name(
                (host, spec),
                &dir,
                d.table.as_deref().unwrap_or(""),
                &mut diagnostics,
            )?;
            dict_file = Some(crate::instance::first_data_file(&dir, spec));
            dict_datadir = Some(dir);
            dict_notes = notes;
            dict_problems = problems;
            (t, None, false)
        }
        (Some(f), _) => (read_frm(f, path)?, Some(f.clone()), false),
        (None, Some(f)) => {
            let (t, name, line) = read_ddl(f, path)?;
            ddl = Some((f.clone(), name, line));
            (t, None, false)
        }
        (None, None) => match TableDef::from_tablespace(ts) {
            Ok(t) => (t, None, false),
            Err(ibdscope_schema::Error {
                kind: ibdscope_schema::ErrorKind::FromSpace(FromSpaceErrorKind::NoSdi),
                ..
            }) => {
                let beside = path.with_extension("frm");
                let datadir = (d.datadir.is_some() || !beside.is_file())
                    .then(|| crate::instance::find_datadir(path, d.datadir.as_deref(), spec))
                    .flatten();
                // A .frm beside the file knows what the dictionary does not
                // (DECIMAL's precision and scale, ENUM and SET labels): it is
                // read instead when the dictionary lacks a column's type.
                if let Some(dir) = datadir.filter(|_| !encrypted) {
                    match from_dictionary((host, spec), path, ts, &dir, &mut diagnostics) {
                        Ok((t, notes, problems)) => {
                            let frm = if notes.is_empty() || !beside.is_file() {
                                None
                            } else {
                                read_frm(&beside, path).ok()
                            };
                            match frm {
                                Some(f) => {
                                    frm_over_dict = notes.into_iter().map(|(c, _)| c).collect();
                                    (f, Some(beside), true)
                                }
                                None => {
                                    dict_with_frm_beside = beside.is_file();
                                    dict_file = Some(crate::instance::first_data_file(&dir, spec));
                                    dict_datadir = Some(dir);
                                    dict_notes = notes;
                                    dict_problems = problems;
                                    (t, None, false)
                                }
                            }
                        }
                        // The dictionary gives none (damaged, or without
                        // the table): the .frm beside the file does, said
                        // once on stderr; the dictionary's failure is a
                        // finding.
                        Err(why) if beside.is_file() => {
                            let t = read_frm(&beside, path)?;
                            dict_file = Some(crate::instance::first_data_file(&dir, spec));
                            diagnostics.push(Diagnostic::new(
                                path,
                                format_args!(
                                    "{why}; the definition used is {} (the .frm beside the \
                                     file)",
                                    crate::names::path(&beside)
                                ),
                            ));
                            dict_problems = vec![why.to_string()];
                            dict_fallback = Some(why.to_string());
                            (t, Some(beside), true)
                        }
                        Err(why) => {
                            return Err(Error::new(ErrorKind::NoSdiFrmOrDict(Box::new(why)), path))
                        }
                    }
                } else if beside.is_file() {
                    (read_frm(&beside, path)?, Some(beside), true)
                } else {
                    return Err(Error::new(
                        ErrorKind::NoSdiNoFrm { beside, encrypted },
                        path,
                    ));
                }
            }
            Err(error) => {
                let compressed = !encrypted && ts.format().is_zip();
                let kind = ErrorKind::Sdi {
                    error,
                    encrypted,
                    compressed,
                };
                return Err(Error::new(kind, path));
            }
        },
    };
    if table.indexes.iter().any(|i| i.root.is_none()) {
        let map = map();
        let trees: Vec<(u64, u32)> = map
            .indexes
            .iter()
            .map(|i| (i.index_id.0, i.root.0))
            .collect();
        table.attach_roots(&trees);
        if trees_unlisted(&table) {
            // No B-tree of the space map (a carved image of one index,
            // whose extent descriptors and segments were freed with its
            // table): the root candidates the map did not take.
            let roots: Vec<(u64, u32)> =
                map.freed_roots.iter().map(|(id, n)| (id.0, n.0)).collect();
            if !roots.is_empty() {
                table.attach_roots(&roots);
                diagnostics.push(Diagnostic::new(
                    path,
                    format_args!(
                        "no index of the space map holds the definition's clustered index: \
                         the roots are the index pages with no siblings at their index's \
                         highest level ({})",
                        roots
                            .iter()
                            .map(|(id, root)| format!("index {id}: page {root}"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                ));
            }
        }
    }
    // What the dictionary lacks (a DECIMAL's precision and scale) is
    // filled from the records, and said in the column's note.
    if dict_datadir.is_some() && !dict_notes.is_empty() {
        ibdscope_schema::infer::complete_from_records(ts, &mut table, &mut dict_notes);
    }
    let compact = table
        .clustered()
        .and_then(|ix| ix.root)
        .and_then(|r| RecPage::of(ts, PageNo(r)).ok())
        .map(|rp| rp.format() == RecFormat::Compact);
    let (row_format, from_space) = match table.row_format {
        RowFormat::Other(_) => (RowFormat::from_space(ts.format(), compact), true),
        f => (f, false),
    };
    Ok(Def {
        table,
        frm_path,
        frm_beside,
        ddl,
        row_format,
        row_format_from_space: from_space,
        dict_datadir,
        dict_file,
        dict_notes,
        dict_problems,
        frm_over_dict,
        dict_with_frm_beside,
        dict_fallback,
        inferred,
        diagnostics,
    })
}

/// The definition of the table `name` (`db/table`) from the InnoDB
/// dictionary of `datadir`.
fn from_dictionary_by_name(
    (host, spec): (&dyn Host, Option<&[PathBuf]>),
    datadir: &Path,
    name: &str,
    diags: &mut Vec<Diagnostic>,
) -> Result<(TableDef, crate::instance::DictNotes, Vec<String>), Error> {
    let (dict, problems) = crate::instance::dictionary(host, datadir, spec)?;
    let t = dict.tables.iter().find(|t| t.name == name.as_bytes());
    let t = t.ok_or_else(|| {
        Error::bare(ErrorKind::NoDictTable {
            file: crate::instance::first_data_file(datadir, spec),
            name: Some(name.to_string()),
            space_id: 0,
            problems: problems.clone(),
        })
    })?;
    complete(
        t,
        &crate::instance::first_data_file(datadir, spec),
        &problems,
        diags,
    )?;
    let (def, notes) = crate::instance::table_def(t);
    Ok((def, notes, problems))
}

/// With problems in the dictionary, a table whose rows are not all there
/// (fewer SYS_COLUMNS rows than N_COLS counts, no index, an index with
/// fewer SYS_FIELDS rows than N_FIELDS) gives no definition: rows decoded
/// with it would be wrong. A complete table is used; the problems are
/// diagnostics about `file`.
fn complete(
    t: &DictTable,
    file: &Path,
    problems: &[String],
    diags: &mut Vec<Diagnostic>,
) -> Result<(), Error> {
    if problems.is_empty() {
        return Ok(());
    }
    let want_cols = (t.n_cols & 0xFFFF).saturating_add((t.n_cols >> 16) & 0x7FFF);
    let cols = u32::try_from(t.columns.len()).unwrap_or(u32::MAX);
    let fields_short = t
        .indexes
        .iter()
        .any(|ix| u32::try_from(ix.fields.len()).unwrap_or(u32::MAX) < ix.n_fields);
    if cols < want_cols || t.indexes.is_empty() || fields_short {
        return Err(Error::bare(ErrorKind::DictTableIncomplete {
            file: file.to_path_buf(),
            name: String::from_utf8_lossy(&t.name).into_owned(),
            columns: cols,
            want: want_cols,
            indexes: t.indexes.len(),
            fields_short,
            problems: problems.to_vec(),
        }));
    }
    for p in problems {
        diags.push(Diagnostic::line(file, p.as_str()));
    }
    Ok(())
}

/// The definition of the table in `path` from the InnoDB dictionary of
/// `datadir` (by the file's space id, else its `db/table` name); `Err` is
/// why the dictionary gives none, in words that follow "and".
fn from_dictionary(
    (host, spec): (&dyn Host, Option<&[PathBuf]>),
    path: &Path,
    ts: &Tablespace<'_>,
    datadir: &Path,
    diags: &mut Vec<Diagnostic>,
) -> Result<(TableDef, crate::instance::DictNotes, Vec<String>), Error> {
    let (dict, problems) = crate::instance::dictionary(host, datadir, spec).map_err(|e| {
        Error::bare(ErrorKind::DictUnreadable {
            file: crate::instance::first_data_file(datadir, spec),
            why: Box::new(e),
        })
    })?;
    let t = crate::instance::table_for(&dict, path, ts.space_id().0).ok_or_else(|| {
        Error::bare(ErrorKind::NoDictTable {
            file: crate::instance::first_data_file(datadir, spec),
            name: None,
            space_id: ts.space_id().0,
            problems: problems.clone(),
        })
    })?;
    complete(
        t,
        &crate::instance::first_data_file(datadir, spec),
        &problems,
        diags,
    )?;
    let (def, notes) = crate::instance::table_def(t);
    Ok((def, notes, problems))
}

fn read_frm(frm: &Path, ibd: &Path) -> Result<TableDef, Error> {
    let bytes = std::fs::read(frm).map_err(|e| Error::open(frm, e))?;
    let f = Frm::parse(&bytes).map_err(|e| Error::new(ErrorKind::Frm(e), frm))?;
    let name = ibd
        .file_stem()
        .or_else(|| frm.file_stem())
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let schema = schema_of(ibd);
    Ok(f.to_table_def(&name, &schema))
}

/// The schema a `.ibd` belongs to: the name of its directory (the
/// server's database directory), or empty.
fn schema_of(ibd: &Path) -> String {
    ibd.canonicalize()
        .ok()
        .and_then(|p| {
            p.parent()
                .and_then(|d| d.file_name())
                .map(|s| s.to_string_lossy().into_owned())
        })
        .unwrap_or_default()
}

/// The definition from a `--ddl` file: its only `CREATE TABLE`, or the
/// one named like the `.ibd`; with the table's name and the statement's
/// line.
fn read_ddl(ddl: &Path, ibd: &Path) -> Result<(TableDef, String, u32), Error> {
    let len = std::fs::metadata(ddl)
        .map_err(|e| Error::open(ddl, e))?
        .len();
    if len > ibdscope_schema::ddl::MAX_DDL_BYTES as u64 {
        let max = ibdscope_schema::ddl::MAX_DDL_BYTES;
        return Err(Error::new(ErrorKind::DdlTooLarge { len, max }, ddl));
    }
    let bytes = std::fs::read(ddl).map_err(|e| Error::open(ddl, e))?;
    let stem = ibd.file_stem().map(|s| s.to_string_lossy().into_owned());
    let t = ibdscope_schema::ddl::parse_one(&bytes, stem.as_deref())
        .map_err(|e| Error::new(ErrorKind::Ddl(e), ddl))?;
    let schema = schema_of(ibd);
    Ok((t.to_table_def(&schema), t.name.clone(), t.at.0))
}

/// Whether the definition's clustered index has no root after the space
/// map's were attached.
fn trees_unlisted(table: &TableDef) -> bool {
    table.clustered().is_some_and(|ix| ix.root.is_none())
}
