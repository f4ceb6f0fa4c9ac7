//! What `audit DATADIR` says about a whole MySQL ≤ 5.7 / MariaDB instance
//! from its system tablespace: the InnoDB dictionary (SYS_TABLES) against
//! the files found (tables without files, files without tables, space ids
//! that differ between a file's page 0 and the dictionary), and the
//! doublewrite buffer's copies of the damaged pages of its files (slot,
//! LSN, whether the copy verifies, the one the server would write at crash
//! recovery: [`ibdscope_forensics::doublewrite`]).

use crate::args::Opts;
use crate::error::{Error, ErrorKind};
use crate::json::Json;
use ibdscope_core::SpaceId;
use ibdscope_forensics::dict::Dictionary;
use ibdscope_forensics::doublewrite::{self, DoublewriteBuffer, Repair, Rule, Slot};
use ibdscope_forensics::redo::RedoInfo;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// `DICT_TF2_TEMPORARY` (`dict0mem.h`): a temporary table (its file is in
/// the tmpdir).
const DICT_TF2_TEMPORARY: u32 = 1;
/// `DICT_TF2_DISCARDED` (`dict0mem.h`): ALTER TABLE … DISCARD TABLESPACE.
const DICT_TF2_DISCARDED: u32 = 32;

/// A tablespace file of the datadir, as the audit walk found it.
pub struct FileIn<'a> {
    /// Its path.
    pub path: &'a Path,
    /// Whether its audit found damaged or torn pages.
    pub damaged: bool,
}

/// A dictionary table whose file is not in the datadir.
pub struct NoFile {
    /// `db/name`.
    pub name: String,
    /// Its space id.
    pub space: u32,
    /// The file expected, relative to the datadir.
    pub expected: String,
    /// The table's tablespace was discarded (`DICT_TF2_DISCARDED`).
    pub discarded: bool,
}

/// A file whose page 0 names another space than the dictionary's table of
/// its name.
pub struct Mismatch {
    /// The file.
    pub path: PathBuf,
    /// `db/name`.
    pub name: String,
    /// The dictionary's space id.
    pub dict: u32,
    /// `FSP_SPACE_ID` of the file's page 0.
    pub file: u32,
}

/// A file's damaged pages with the doublewrite buffer's copies of each.
pub struct FileCopies {
    /// The file.
    pub path: PathBuf,
    /// Its space id.
    pub space: SpaceId,
    /// Each damaged page, its copies (slot and whether it verifies under
    /// the file's checksum scheme), and the server's choice.
    pub pages: Vec<(Repair, Vec<(Slot, bool)>)>,
}

/// The doublewrite buffer's part.
pub struct DblwrFacts {
    /// The buffer.
    pub dw: DoublewriteBuffer,
    /// The rule applied.
    pub rule: Rule,
    /// Files with damaged pages.
    pub files: Vec<FileCopies>,
}

/// The instance facts of one datadir.
pub struct InstanceFacts {
    /// Tables in the dictionary (`Err`: why it was not read).
    pub dictionary: Result<usize, Error>,
    /// Tables without files.
    pub tables_without_files: Vec<NoFile>,
    /// Files without tables: path and page 0's space id.
    pub files_without_tables: Vec<(PathBuf, Option<u32>)>,
    /// Space ids that differ.
    pub mismatches: Vec<Mismatch>,
    /// The doublewrite buffer (`Err`: why it was not read).
    pub dblwr: Result<DblwrFacts, Error>,
}

impl InstanceFacts {
    /// Whether any fact is a finding.
    pub fn has_findings(&self) -> bool {
        !self.tables_without_files.is_empty()
            || !self.files_without_tables.is_empty()
            || !self.mismatches.is_empty()
    }
}

/// Why a part of the facts was not read, as the audit says it (the
/// system tablespace's file is the datadir's: named by the front door's
/// errors alone).
fn words(e: &Error) -> String {
    match e.kind() {
        ErrorKind::Open(_) => e.to_string(),
        k => k.to_string(),
    }
}

/// `FSP_SPACE_ID` of a file's page 0 (byte 38).
fn page0_space(path: &Path) -> Option<u32> {
    crate::open::page0_space_id(path).ok().flatten()
}

/// `db/name` of a file `root/db/name.ibd`.
fn table_name(root: &Path, path: &Path) -> Option<String> {
    let rel = path.strip_prefix(root).ok()?.with_extension("");
    let parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    Some(parts.join("/"))
}

/// The facts of the datadir at `root` whose tablespace files are `files`,
/// `None` when it has no `ibdata1`.
pub fn collect(
    root: &Path,
    files: &[FileIn<'_>],
    redo: Option<&RedoInfo>,
    opts: &Opts,
) -> Option<InstanceFacts> {
    let first = ibdscope::instance::first_data_file(root, opts.data_files.as_deref());
    if !first.is_file() {
        return None;
    }
    let (sys, dict) = match crate::open::open_system(root, opts) {
        Ok(sys) => {
            // SYS_TABLES alone (name, space, flags2 of each table): not
            // the whole dictionary, which grows with the number of tables.
            let mut tables = Vec::new();
            let d = match sys.tablespace() {
                Ok(ts) => Dictionary::for_each_table_row(&ts, |t| {
                    tables.push((t.name.clone(), t.space, t.flags2));
                })
                .map(|_| tables)
                .map_err(|e| Error::at(ErrorKind::Dictionary(e), &first)),
                Err(e) => Err(Error::at(ErrorKind::Space(e), &first)),
            };
            (Some(sys), d)
        }
        Err(e) => (None, Err(Error::from(e))),
    };
    let mut facts = InstanceFacts {
        dictionary: dict.as_ref().map(Vec::len).map_err(Clone::clone),
        tables_without_files: Vec::new(),
        files_without_tables: Vec::new(),
        mismatches: Vec::new(),
        dblwr: Err(Error::at(ErrorKind::NoSystem, &first)),
    };
    if let Ok(d) = &dict {
        let named: Vec<(String, &Path)> = files
            .iter()
            .filter_map(|f| Some((table_name(root, f.path)?, f.path)))
            .collect();
        // Looked up by name, both ways (thousands of tables: no scan per
        // table).
        let mut by_name: Vec<&(String, &Path)> = named.iter().collect();
        by_name.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        let mut table_names: Vec<&[u8]> = d.iter().map(|(name, _, _)| name.as_slice()).collect();
        table_names.sort_unstable();
        for &(ref t_name, space, flags2) in d {
            if space == 0 || flags2 & DICT_TF2_TEMPORARY != 0 {
                continue;
            }
            let name = String::from_utf8_lossy(t_name).into_owned();
            let file = by_name
                .binary_search_by(|(n, _)| n.as_str().cmp(&name))
                .ok()
                .and_then(|i| by_name.get(i));
            match file {
                Some((_, p)) => {
                    if let Some(s) = page0_space(p).filter(|&s| s != space) {
                        facts.mismatches.push(Mismatch {
                            path: p.to_path_buf(),
                            name,
                            dict: space,
                            file: s,
                        });
                    }
                }
                None => {
                    // DATA DIRECTORY: the file is elsewhere, named by an .isl.
                    if root.join(format!("{name}.isl")).is_file() {
                        continue;
                    }
                    facts.tables_without_files.push(NoFile {
                        expected: format!("{name}.ibd"),
                        name,
                        space,
                        discarded: flags2 & DICT_TF2_DISCARDED != 0,
                    });
                }
            }
        }
        for (n, p) in &named {
            if table_names.binary_search(&n.as_bytes()).is_err() {
                facts
                    .files_without_tables
                    .push((p.to_path_buf(), page0_space(p)));
            }
        }
    }
    if let Some(sys) = &sys {
        facts.dblwr = dblwr_facts(sys, files, redo, opts);
    }
    Some(facts)
}

fn dblwr_facts(
    sys: &ibdscope::open::Input,
    files: &[FileIn<'_>],
    redo: Option<&RedoInfo>,
    opts: &Opts,
) -> Result<DblwrFacts, Error> {
    let first = sys.files.first().map(|f| f.0.clone()).unwrap_or_default();
    let sys = sys
        .tablespace()
        .map_err(|e| Error::at(ErrorKind::Space(e), &first))?;
    let dw =
        DoublewriteBuffer::read(&sys).ok_or_else(|| Error::at(ErrorKind::NoDoublewrite, &first))?;
    let mut rule = None;
    let mut out = Vec::new();
    for f in files.iter().filter(|f| f.damaged) {
        let Ok(input) = crate::open::file(opts, f.path, 1) else {
            continue;
        };
        let Ok(ts) = input.tablespace() else {
            continue;
        };
        let r = *rule.get_or_insert_with(|| crate::repair::rule_for(redo, &ts));
        let repairs = doublewrite::repairs(&ts, &sys, &dw, r);
        if repairs.is_empty() {
            continue;
        }
        let pages = repairs
            .into_iter()
            .map(|rep| {
                let copies = dw
                    .copies_of(ts.space_id(), rep.page)
                    .map(|s| {
                        let ok = dw
                            .copy(&sys, s, ts.page_size())
                            .is_some_and(|c| doublewrite::intact(c, ts.scheme()));
                        (*s, ok)
                    })
                    .collect();
                (rep, copies)
            })
            .collect();
        out.push(FileCopies {
            path: f.path.to_path_buf(),
            space: ts.space_id(),
            pages,
        });
    }
    Ok(DblwrFacts {
        dw,
        rule: rule.unwrap_or(match redo {
            Some(_) => crate::repair::rule_for(redo, &sys),
            None => Rule::MySql,
        }),
        files: out,
    })
}

/// The facts as text lines of a datadir's section.
pub fn text(f: &InstanceFacts, root: &Path, out: &mut dyn Write) -> io::Result<()> {
    let shown = |p: &Path| {
        p.strip_prefix(root).map_or_else(
            |_| ibdscope::names::path(p).to_string(),
            |r| r.display().to_string(),
        )
    };
    match &f.dictionary {
        Ok(n) => writeln!(
            out,
            "  InnoDB dictionary (SYS_TABLES in ibdata1): {n} tables"
        )?,
        Err(e) => writeln!(out, "  InnoDB dictionary: not read: {}", words(e))?,
    }
    if f.dictionary.is_ok() {
        if f.tables_without_files.is_empty() {
            writeln!(out, "  tables without files: none")?;
        }
        for t in &f.tables_without_files {
            writeln!(
                out,
                "  table without file: {} (space id {}): no {}{}",
                t.name,
                t.space,
                t.expected,
                if t.discarded {
                    " (its tablespace was discarded)"
                } else {
                    ""
                }
            )?;
        }
        if f.files_without_tables.is_empty() {
            writeln!(out, "  files without tables: none")?;
        }
        for (p, s) in &f.files_without_tables {
            writeln!(
                out,
                "  file without table: {} (space id {}): no table of that name in the dictionary",
                shown(p),
                s.map_or("unreadable".to_string(), |s| s.to_string())
            )?;
        }
        if f.mismatches.is_empty() {
            writeln!(out, "  space id mismatches: none")?;
        }
        for m in &f.mismatches {
            writeln!(
                out,
                "  space id mismatch: {} at byte offset 38: page 0 says space id {}, the dictionary's {} has {}",
                shown(&m.path),
                m.file,
                m.name,
                m.dict
            )?;
        }
    }
    match &f.dblwr {
        Err(e) => writeln!(out, "  doublewrite buffer: not read: {}", words(e))?,
        Ok(d) => {
            writeln!(
                out,
                "  doublewrite buffer: {} slots (blocks at pages {} and {}), {} in use; rule: {}",
                d.dw.slots.len(),
                d.dw.block1,
                d.dw.block2,
                d.dw.slots.iter().filter(|s| s.lsn.0 != 0).count(),
                crate::repair::rule_words(d.rule)
            )?;
            for fc in &d.files {
                for (rep, copies) in &fc.pages {
                    write!(
                        out,
                        "    {} page {} ({}, LSN {}): ",
                        shown(&fc.path),
                        rep.page,
                        crate::repair::damage_words(rep),
                        rep.lsn
                    )?;
                    let list: Vec<String> = copies
                        .iter()
                        .map(|(s, ok)| {
                            format!(
                                "slot {} LSN {} {}",
                                s.slot,
                                s.lsn,
                                if *ok { "verifies" } else { "does not verify" }
                            )
                        })
                        .collect();
                    if !list.is_empty() {
                        write!(out, "{}; ", list.join(", "))?;
                    }
                    match rep.choice {
                        Ok(s) => writeln!(out, "the server writes slot {}", s.slot)?,
                        Err(l) => writeln!(out, "left: {}", crate::repair::left_words(l))?,
                    }
                }
            }
        }
    }
    Ok(())
}

/// The facts as members of a datadir's JSON object.
pub fn json(f: Option<&InstanceFacts>, j: &mut Json<'_>) -> io::Result<()> {
    j.key("instance")?;
    let Some(f) = f else {
        j.null()?;
        return Ok(());
    };
    j.obj()?;
    match &f.dictionary {
        Ok(n) => {
            j.kv_num("dictionary_tables", *n as u64)?;
        }
        Err(e) => {
            j.key("dictionary_tables")?
                .null()?
                .kv_str("dictionary_error", &words(e))?;
        }
    }
    j.key("tables_without_files")?.arr()?;
    for t in &f.tables_without_files {
        j.obj()?
            .kv_str("table", &t.name)?
            .kv_num("space_id", t.space)?
            .kv_str("expected", &t.expected)?
            .kv_bool("discarded", t.discarded)?
            .end_obj()?;
    }
    j.end_arr()?.key("files_without_tables")?.arr()?;
    for (p, s) in &f.files_without_tables {
        j.obj()?
            .kv_path("file", p)?
            .key("space_id")?
            .opt_num(s.map(u64::from))?
            .end_obj()?;
    }
    j.end_arr()?.key("space_id_mismatches")?.arr()?;
    for m in &f.mismatches {
        j.obj()?
            .kv_path("file", &m.path)?
            .kv_str("table", &m.name)?
            .kv_num("dictionary_space_id", m.dict)?
            .kv_num("file_space_id", m.file)?
            .kv_num("offset", 38u64)?
            .end_obj()?;
    }
    j.end_arr()?.key("doublewrite")?;
    match &f.dblwr {
        Err(e) => {
            j.obj()?.kv_str("error", &words(e))?.end_obj()?;
        }
        Ok(d) => {
            j.obj()?
                .kv_num("block1", d.dw.block1)?
                .kv_num("block2", d.dw.block2)?
                .kv_num("slots", d.dw.slots.len() as u64)?
                .kv_str(
                    "rule",
                    match d.rule {
                        Rule::MySql => "mysql",
                        Rule::MariaDb { .. } => "mariadb",
                    },
                )?
                .key("damaged_pages")?
                .arr()?;
            for fc in &d.files {
                for (rep, copies) in &fc.pages {
                    j.obj()?
                        .kv_path("file", &fc.path)?
                        .kv_num("space_id", fc.space.0)?
                        .kv_num("page", rep.page.0)?
                        .kv_str("damage", crate::repair::damage_key(rep.damage))?
                        .kv_bool("lsn_words_differ", rep.lsn_words_differ)?
                        .kv_str("verdict", rep.verdict.word())?
                        .kv_num("lsn", rep.lsn.0)?
                        .key("copies")?
                        .arr()?;
                    for (s, ok) in copies {
                        j.obj()?
                            .kv_num("slot", s.slot)?
                            .kv_num("slot_page", s.at.0)?
                            .kv_num("lsn", s.lsn.0)?
                            .kv_bool("verifies", *ok)?
                            .end_obj()?;
                    }
                    j.end_arr()?.key("server_writes_slot")?;
                    match rep.choice {
                        Ok(s) => j.num(s.slot)?,
                        Err(_) => j.null()?,
                    };
                    if let Err(l) = rep.choice {
                        j.kv_str("left", &crate::repair::left_words(l))?;
                    }
                    j.end_obj()?;
                }
            }
            j.end_arr()?.end_obj()?;
        }
    }
    j.end_obj()?;
    Ok(())
}
