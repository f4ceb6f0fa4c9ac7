//! `schema`: the table definition as `CREATE TABLE`, with where it came
//! from; and the definition lookup `rows` shares (the SDI in the file, a
//! `.frm` given with `--frm`, a `CREATE TABLE` statement given with
//! `--ddl`, or `<name>.frm` beside the file).

use crate::analysis::Analysis;
use crate::args::{DefOpts, Format, Opts};
use crate::json::Json;
use crate::Outcome;
use ibdscope::{PageNo, RecFormat, RecPage, SpaceMap, Tablespace};
use ibdscope_schema::frm::Frm;
use ibdscope_schema::table::{DefSource, FromSpaceError, Hidden, RowFormat, TableDef};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// A table definition and where it came from.
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
}

impl Def {
    /// Where the definition came from, in words.
    pub fn source_words(&self) -> String {
        if let Some((p, name, line)) = &self.ddl {
            return format!(
                "{} (--ddl: CREATE TABLE `{name}` at line {line})",
                p.display()
            );
        }
        match (&self.frm_path, self.table.source) {
            (Some(p), _) if self.frm_beside => {
                format!(
                    "{} (found beside the .ibd; the file has no SDI)",
                    p.display()
                )
            }
            (Some(p), _) => format!("{} (--frm)", p.display()),
            (None, DefSource::Sdi) => "the SDI in the file (MySQL 8.0+ data dictionary)".into(),
            (None, _) => "built by hand".into(),
        }
    }

    /// The source as one word: `sdi`, `frm`.
    pub fn source_word(&self) -> &'static str {
        match self.table.source {
            DefSource::Sdi => "sdi",
            DefSource::Frm => "frm",
            DefSource::Ddl => "ddl",
            DefSource::Manual => "manual",
        }
    }
}

/// Finds the definition of the table `path` holds. `Err` is the message
/// for stderr (exit 2).
pub fn load(path: &Path, ts: &Tablespace<'_>, d: &DefOpts) -> Result<Def, String> {
    let encrypted = ts.format().encryption;
    let mut ddl = None;
    let (mut table, frm_path, frm_beside) = match (&d.frm, &d.ddl) {
        (Some(f), _) => (read_frm(f, path)?, Some(f.clone()), false),
        (None, Some(f)) => {
            let (t, name, line) = read_ddl(f, path)?;
            ddl = Some((f.clone(), name, line));
            (t, None, false)
        }
        (None, None) => match TableDef::from_tablespace(ts) {
            Ok(t) => (t, None, false),
            Err(FromSpaceError::NoSdi) => {
                let beside = path.with_extension("frm");
                if beside.is_file() {
                    (read_frm(&beside, path)?, Some(beside), true)
                } else if encrypted {
                    return Err(format!(
                        "{}: the file is encrypted: its SDI (table definition) cannot be \
                         read without the keyring, and no .frm was given (--frm) or found at \
                         {} (or give the CREATE TABLE statement: --ddl)",
                        path.display(),
                        beside.display()
                    ));
                } else {
                    return Err(format!(
                        "{}: no table definition: the file holds no readable SDI (MySQL \
                         before 8.0, MariaDB, or ROW_FORMAT=COMPRESSED SDI pages), no .frm \
                         was given (--frm) and there is none at {}; give the .frm (--frm) or \
                         the CREATE TABLE statement (--ddl)",
                        path.display(),
                        beside.display()
                    ));
                }
            }
            Err(e) if encrypted => {
                return Err(format!(
                    "{}: the file is encrypted: its SDI (table definition) is not readable \
                     without the keyring ({e})",
                    path.display()
                ))
            }
            Err(e) if ts.format().is_zip() => {
                return Err(format!(
                    "{}: no table definition: the file is ROW_FORMAT=COMPRESSED and its SDI \
                     pages could not be decompressed ({e})",
                    path.display()
                ))
            }
            Err(e) => return Err(format!("{}: no table definition: {e}", path.display())),
        },
    };
    if table.indexes.iter().any(|i| i.root.is_none()) {
        let map = SpaceMap::build(ts);
        let trees: Vec<(u64, u32)> = map
            .indexes
            .iter()
            .map(|i| (i.index_id.0, i.root.0))
            .collect();
        table.attach_roots(&trees);
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
    })
}

fn read_frm(frm: &Path, ibd: &Path) -> Result<TableDef, String> {
    let bytes = std::fs::read(frm).map_err(|e| format!("{}: {e}", frm.display()))?;
    let f =
        Frm::parse(&bytes).map_err(|e| format!("{}: not a readable .frm: {e}", frm.display()))?;
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
fn read_ddl(ddl: &Path, ibd: &Path) -> Result<(TableDef, String, u32), String> {
    let len = std::fs::metadata(ddl)
        .map_err(|e| format!("{}: {e}", ddl.display()))?
        .len();
    if len > ibdscope_schema::ddl::MAX_DDL_BYTES as u64 {
        return Err(format!(
            "{}: {len} bytes, more than the {} a CREATE TABLE file may have",
            ddl.display(),
            ibdscope_schema::ddl::MAX_DDL_BYTES
        ));
    }
    let bytes = std::fs::read(ddl).map_err(|e| format!("{}: {e}", ddl.display()))?;
    let stem = ibd.file_stem().map(|s| s.to_string_lossy().into_owned());
    let t = ibdscope_schema::ddl::parse_one(&bytes, stem.as_deref())
        .map_err(|e| format!("{}: {e}", ddl.display()))?;
    let schema = schema_of(ibd);
    Ok((t.to_table_def(&schema), t.name.clone(), t.at.0))
}

/// Runs `schema`.
pub fn run(opts: &Opts, a: &Analysis<'_>, d: &DefOpts, out: &mut dyn Write) -> io::Result<Outcome> {
    let (path, ts) = (a.path(), a.ts());
    let def = match load(path, ts, d) {
        Ok(def) => def,
        Err(e) => {
            eprintln!("ibdscope: {e}");
            return Ok(Outcome::Unreadable);
        }
    };
    let t = &def.table;
    let create = t.create_table(def.row_format);
    match opts.format {
        Format::Json => {
            let mut j = Json::new(out);
            j.obj()?
                .kv_display("file", &path.display())?
                .kv_str("source", def.source_word())?;
            j.key("source_file")?;
            match def.frm_path.as_ref().or(def.ddl.as_ref().map(|d| &d.0)) {
                Some(p) => j.display(&p.display())?,
                None => j.null()?,
            };
            j.kv_str("table", &t.name)?
                .kv_str("schema", &t.schema)?
                .kv_str("row_format", row_format_name(def.row_format))?
                .kv_str(
                    "row_format_from",
                    if def.row_format_from_space {
                        "space"
                    } else {
                        "definition"
                    },
                )?;
            j.key("columns")?.arr()?;
            for c in &t.columns {
                j.obj()?
                    .kv_str("name", &c.name)?
                    .kv_str("type", &c.sql_type())?
                    .kv_str("type_name", c.col_type.name())?;
                j.key("charset")?;
                match c.charset_name() {
                    Some(n) => j.str(n)?,
                    None => j.null()?,
                };
                j.kv_num("collation_id", c.collation_id)?
                    .kv_num("length", c.length)?
                    .kv_bool("nullable", c.nullable)?
                    .kv_bool("unsigned", c.unsigned)?
                    .kv_str("hidden", hidden_word(c.hidden))?
                    .kv_bool("virtual", c.is_virtual)?;
                j.key("elements")?.arr()?;
                for e in &c.elements {
                    j.str(e)?;
                }
                j.end_arr()?;
                j.kv_num("version_added", c.version_added)?;
                j.key("version_dropped")?
                    .opt_num(c.version_dropped.map(u64::from))?;
                j.end_obj()?;
            }
            j.end_arr()?.key("indexes")?.arr()?;
            for ix in &t.indexes {
                j.obj()?
                    .kv_str("name", &ix.name)?
                    .kv_str("kind", index_kind_word(ix.kind))?;
                j.key("id")?.opt_num(ix.id)?;
                j.key("root")?.opt_num(ix.root.map(u64::from))?;
                j.kv_bool("hidden", ix.hidden)?;
                j.key("elements")?.arr()?;
                for e in &ix.elements {
                    j.obj()?.kv_str(
                        "column",
                        t.columns.get(e.column).map_or("?", |c| c.name.as_str()),
                    )?;
                    j.key("prefix_len")?.opt_num(e.prefix_len.map(u64::from))?;
                    j.kv_bool("hidden", e.hidden)?.end_obj()?;
                }
                j.end_arr()?.end_obj()?;
            }
            j.end_arr()?.kv_str("create_table", &create)?.end_obj()?;
            j.writer().write_all(b"\n")?;
        }
        _ => {
            writeln!(out, "-- definition: {}", def.source_words())?;
            if def.row_format_from_space {
                writeln!(
                    out,
                    "-- row format: {} (from the tablespace flags and index pages; the \
                     definition does not state it)",
                    row_format_name(def.row_format)
                )?;
            }
            let hidden: Vec<&str> = t
                .columns
                .iter()
                .filter(|c| c.hidden != Hidden::Visible)
                .map(|c| c.name.as_str())
                .collect();
            if !hidden.is_empty() {
                writeln!(out, "-- hidden columns: {}", hidden.join(", "))?;
            }
            writeln!(out, "{create};")?;
        }
    }
    Ok(Outcome::Clean)
}

/// The row format's name, `unknown` when neither source tells it.
pub fn row_format_name(f: RowFormat) -> &'static str {
    match f {
        RowFormat::Other(_) => "unknown",
        f => f.name(),
    }
}

fn hidden_word(h: Hidden) -> &'static str {
    match h {
        Hidden::Visible => "visible",
        Hidden::Se => "engine",
        Hidden::Sql => "sql",
    }
}

fn index_kind_word(k: ibdscope_schema::table::IndexKind) -> &'static str {
    use ibdscope_schema::table::IndexKind::*;
    match k {
        Primary => "primary",
        Unique => "unique",
        Multiple => "multiple",
        Fulltext => "fulltext",
        Spatial => "spatial",
    }
}
