//! `tables`: every table of a MySQL ≤ 5.7 / MariaDB datadir's InnoDB
//! dictionary (SYS_TABLES, SYS_COLUMNS, SYS_INDEXES, SYS_FIELDS,
//! SYS_VIRTUAL in the system tablespace), with the file that holds each.

use crate::args::{Format, Opts};
use crate::json::Json;
use crate::outcome::Outcome;
use ibdscope_forensics::dict::{DictTable, Dictionary, TableStream, DEFAULT_CHARSET_COLL};
use ibdscope_forensics::system::SystemSpace;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Where a table's data is, against its file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FileStatus {
    /// Space 0: the system tablespace.
    System,
    /// `<db>/<table>.ibd` has the table's space id.
    Present,
    /// `<db>/<table>.ibd` is not there.
    Missing,
    /// `<db>/<table>.ibd` has another space id.
    Foreign(u32),
    /// `<db>/<table>.ibd` could not be read (the reason).
    Unreadable(String),
}

impl FileStatus {
    fn word(&self) -> &'static str {
        match self {
            FileStatus::System => "system",
            FileStatus::Present => "present",
            FileStatus::Missing => "missing",
            FileStatus::Foreign(_) => "foreign",
            FileStatus::Unreadable(_) => "unreadable",
        }
    }
    fn words(&self) -> String {
        match self {
            FileStatus::Foreign(n) => format!("foreign: the file has space id {n}"),
            FileStatus::Unreadable(e) => format!("unreadable: {e}"),
            s => s.word().to_string(),
        }
    }
}

/// The file of a table and its status: the space id in its FSP header
/// (`FSP_SPACE_ID`, byte 38 + 0 of page 0).
fn file_status(datadir: &Path, t: &DictTable) -> (Option<PathBuf>, FileStatus) {
    if t.space == 0 {
        return (None, FileStatus::System);
    }
    let rel = format!("{}.ibd", String::from_utf8_lossy(&t.name));
    let path = datadir.join(&rel);
    let st = match crate::open::page0_space_id(&path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => FileStatus::Missing,
        Err(e) => FileStatus::Unreadable(e.to_string()),
        Ok(Some(n)) if n == t.space => FileStatus::Present,
        Ok(Some(n)) => FileStatus::Foreign(n),
        Ok(None) => FileStatus::Unreadable("short".into()),
    };
    (Some(PathBuf::from(rel)), st)
}

/// Runs `tables` on `opts.files[0]`: a datadir, or its `ibdata1`.
pub fn run(opts: &Opts, out: &mut dyn Write) -> io::Result<Outcome> {
    let Some(arg) = opts.files.first() else {
        return Ok(Outcome::Unreadable);
    };
    let datadir = if arg.is_dir() {
        arg.clone()
    } else {
        arg.parent().unwrap_or(Path::new(".")).to_path_buf()
    };
    let sys = match crate::open::datadir(opts, arg, opts.threads) {
        Ok(s) => s,
        Err(e) => {
            crate::diag::say!("ibdscope: {e}");
            return Ok(Outcome::Unreadable);
        }
    };
    let first = ibdscope::names::path(sys.files.first().map_or(Path::new(arg), |f| f.0.as_path()));
    let ts = match sys.tablespace() {
        Ok(t) => t,
        Err(e) => {
            crate::diag::say!("ibdscope: {first}: {e}");
            return Ok(Outcome::Unreadable);
        }
    };
    // One table at a time: memory does not grow with the number of tables.
    let dict = match Dictionary::stream(&ts) {
        Ok(d) => d,
        Err(e) => {
            for p in &sys.problems {
                crate::diag::say!("ibdscope: {p}");
            }
            crate::diag::say!("ibdscope: {first}: {e}");
            return Ok(Outcome::Unreadable);
        }
    };
    // The dictionary header as read only when its page verifies.
    let head = SystemSpace::read(&ts).map(|mut h| {
        if h.unverified
            .contains(&ibdscope_forensics::system::FSP_DICT_HDR_PAGE_NO)
        {
            h.dict = None;
        }
        h
    });
    let mut problems: Vec<String> = sys.problems.clone();
    problems.extend(ibdscope::instance::short_words(&sys, &ts));
    for p in &dict.problems {
        problems.push(ibdscope::instance::problem_words(&sys, p));
    }
    let rows = Rows {
        dict: &dict,
        datadir: &datadir,
    };
    match opts.format {
        Format::Json => json(out, &sys, head.as_ref(), &rows, &problems)?,
        Format::Csv => csv(out, &rows)?,
        _ => text(out, &sys, head.as_ref(), &rows, &problems)?,
    }
    if problems.is_empty() {
        Ok(Outcome::Clean)
    } else {
        if opts.format != Format::Text {
            for p in &problems {
                crate::diag::say!("ibdscope: {p}");
            }
        }
        Ok(Outcome::Findings)
    }
}

/// The tables as the dictionary gives them, one at a time, each with its
/// file and the file's status.
struct Rows<'s, 't, 'a> {
    dict: &'s TableStream<'t, 'a>,
    datadir: &'s Path,
}

impl Rows<'_, '_, '_> {
    fn len(&self) -> u64 {
        self.dict.tables
    }
    fn for_each(
        &self,
        mut f: impl FnMut(&DictTable, &Option<PathBuf>, &FileStatus) -> io::Result<()>,
    ) -> io::Result<()> {
        self.dict.for_each(|t| {
            let (p, s) = file_status(self.datadir, t);
            f(t, &p, &s)
        })
    }
}

fn text(
    out: &mut dyn Write,
    sys: &ibdscope::open::Input,
    head: Option<&SystemSpace>,
    rows: &Rows<'_, '_, '_>,
    problems: &[String],
) -> io::Result<()> {
    let files: Vec<String> = sys
        .files
        .iter()
        .map(|(p, n)| format!("{} ({n} bytes)", ibdscope::names::path(p)))
        .collect();
    writeln!(out, "system tablespace: {}", files.join(", "))?;
    if let Some(d) = head.and_then(|h| h.dict) {
        writeln!(
            out,
            "dictionary header: row id {}, table id {}, index id {}, max space id {}",
            d.row_id, d.table_id, d.index_id, d.max_space_id
        )?;
    }
    writeln!(out, "{} tables", rows.len())?;
    rows.for_each(|t, file, st| {
        writeln!(out)?;
        writeln!(
            out,
            "{}  id {}  space {}  {}  flags {}  n_cols {}",
            ibdscope::names::name(&String::from_utf8_lossy(&t.name)),
            t.id,
            t.space,
            t.row_format(),
            t.flags(),
            t.n_cols_with_system()
        )?;
        match file {
            Some(f) => writeln!(out, "  file {}: {}", ibdscope::names::path(f), st.words())?,
            None => writeln!(out, "  in the system tablespace")?,
        }
        let (def, notes) = ibdscope::instance::table_def(t);
        for c in &t.columns {
            let name = String::from_utf8_lossy(&c.name);
            let ty = def
                .columns
                .iter()
                .find(|d| d.name == name)
                .map(|d| d.sql_type())
                .unwrap_or_default();
            write!(
                out,
                "  column {} {}  pos {} mtype {} prtype {} len {}",
                ibdscope::names::name(&name),
                ty,
                c.pos,
                c.mtype,
                c.prtype_loaded(DEFAULT_CHARSET_COLL),
                c.len
            )?;
            match notes.iter().find(|(n, _)| *n == name) {
                Some((_, note)) => writeln!(out, "  ({note})")?,
                None => writeln!(out)?,
            }
        }
        for ix in &t.indexes {
            let fields: Vec<String> = ix
                .fields
                .iter()
                .map(|f| {
                    let n = String::from_utf8_lossy(&f.name).into_owned();
                    if f.prefix_len > 0 {
                        format!("{n}({})", f.prefix_len)
                    } else {
                        n
                    }
                })
                .collect();
            writeln!(
                out,
                "  index {}  id {}  type {}  root {} (space {})  fields {}",
                ibdscope::names::name(&String::from_utf8_lossy(&ix.name)),
                ix.id,
                ix.index_type,
                ix.page_no,
                ix.space,
                fields.join(", ")
            )?;
        }
        Ok(())
    })?;
    if !problems.is_empty() {
        writeln!(out)?;
        for p in problems {
            writeln!(out, "finding: {p}")?;
        }
    }
    Ok(())
}

fn json(
    out: &mut dyn Write,
    sys: &ibdscope::open::Input,
    head: Option<&SystemSpace>,
    rows: &Rows<'_, '_, '_>,
    problems: &[String],
) -> io::Result<()> {
    let mut j = Json::new(out);
    j.obj()?.key("files")?.arr()?;
    for (p, n) in &sys.files {
        j.obj()?
            .kv_path("path", p)?
            .kv_num("bytes", *n)?
            .end_obj()?;
    }
    j.end_arr()?;
    j.key("dict_header")?;
    match head.and_then(|h| h.dict) {
        Some(d) => {
            j.obj()?
                .kv_num("row_id", d.row_id)?
                .kv_num("table_id", d.table_id)?
                .kv_num("index_id", d.index_id)?
                .kv_num("max_space_id", d.max_space_id)?
                .end_obj()?;
        }
        None => {
            j.null()?;
        }
    }
    j.key("tables")?.arr()?;
    rows.for_each(|t, file, st| {
        j.obj()?
            .kv_str("name", &String::from_utf8_lossy(&t.name))?
            .kv_num("table_id", t.id)?
            .kv_num("space", t.space)?
            .kv_num("flag", t.flags())?
            .kv_num("n_cols", t.n_cols_with_system())?
            .kv_str("row_format", t.row_format())?;
        j.key("file")?;
        match file {
            Some(f) => j.str(&f.to_string_lossy())?,
            None => j.null()?,
        };
        j.kv_str("file_status", st.word())?;
        let (def, notes) = ibdscope::instance::table_def(t);
        j.key("columns")?.arr()?;
        for c in &t.columns {
            let name = String::from_utf8_lossy(&c.name);
            j.obj()?
                .kv_str("name", &name)?
                .kv_num("pos", c.pos)?
                .kv_num("mtype", c.mtype)?
                .kv_num("prtype", c.prtype_loaded(DEFAULT_CHARSET_COLL))?
                .kv_num("prtype_stored", c.prtype)?
                .kv_num("len", c.len)?;
            if let Some(d) = def.columns.iter().find(|d| d.name == name) {
                j.kv_str("type", &d.sql_type())?;
            }
            j.key("note")?;
            match notes.iter().find(|(n, _)| *n == name) {
                Some((_, note)) => j.str(note)?,
                None => j.null()?,
            };
            j.end_obj()?;
        }
        j.end_arr()?.key("indexes")?.arr()?;
        for ix in &t.indexes {
            j.obj()?
                .kv_str("name", &String::from_utf8_lossy(&ix.name))?
                .kv_num("index_id", ix.id)?
                .kv_num("type", ix.index_type)?
                .kv_num("n_fields", ix.n_fields)?
                .kv_num("space", ix.space)?
                .kv_num("page_no", ix.page_no)?;
            j.key("fields")?.arr()?;
            for f in &ix.fields {
                j.obj()?
                    .kv_str("name", &String::from_utf8_lossy(&f.name))?
                    .kv_num("pos", f.pos)?
                    .kv_num("prefix_len", f.prefix_len)?
                    .end_obj()?;
            }
            j.end_arr()?.end_obj()?;
        }
        j.end_arr()?.key("virtual")?.arr()?;
        for (pos, base) in &t.virtual_bases {
            j.obj()?
                .kv_num("pos", *pos)?
                .kv_num("base_pos", *base)?
                .end_obj()?;
        }
        j.end_arr()?.end_obj()?;
        Ok(())
    })?;
    j.end_arr()?.key("findings")?.arr()?;
    for p in problems {
        j.str(p)?;
    }
    j.end_arr()?.end_obj()?;
    writeln!(j.writer())
}

fn csv(out: &mut dyn Write, rows: &Rows<'_, '_, '_>) -> io::Result<()> {
    writeln!(
        out,
        "name,table_id,space,flag,n_cols,row_format,columns,indexes,file,file_status"
    )?;
    rows.for_each(|t, file, st| {
        let mut line = String::new();
        crate::csv::push(&mut line, &String::from_utf8_lossy(&t.name));
        line.push_str(&format!(
            ",{},{},{},{},{},{},{},",
            t.id,
            t.space,
            t.flags(),
            t.n_cols_with_system(),
            t.row_format(),
            t.columns.len(),
            t.indexes.len()
        ));
        if let Some(f) = file {
            crate::csv::push(&mut line, &f.to_string_lossy());
        }
        line.push(',');
        line.push_str(st.word());
        writeln!(out, "{line}")
    })
}
