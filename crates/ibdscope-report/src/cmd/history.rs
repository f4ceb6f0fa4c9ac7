//! `history`: each row's older versions, from its `DB_ROLL_PTR` through the
//! undo logs not yet purged (MySQL ≤ 5.7, MariaDB), oldest first, with the
//! transaction that wrote each (computed by
//! `ibdscope_forensics::history::history`; this module opens the undo files
//! and prints); and the instance's undo logs (for `audit` and `undo`).

use crate::args::{Format, HistoryOpts, Opts};
use crate::json::Json;
use crate::outcome::Outcome;
use ibdscope::analysis::Analysis;
use ibdscope_core::Tablespace;
use ibdscope_forensics::history::{Clustered, HistoryProblem, Oldest, Val, Version};
use ibdscope_forensics::undo::{self, Undo};
use ibdscope_schema::table::Hidden;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// "lost: undo page N of FILE is damaged (VERDICT), byte offset X": the
/// words every format of `history` gives a chain that reaches a damaged
/// undo page.
fn lost_words(spaces: &[(u32, PathBuf, Tablespace<'_>)], l: &undo::Lost) -> String {
    format!(
        "lost: undo page {} of {} is damaged ({}), byte offset {}",
        l.page,
        crate::undo_words::space_file(spaces, l.space),
        l.damage.word(),
        l.offset
    )
}

/// Runs `history`.
pub fn run(
    opts: &Opts,
    a: &Analysis<'_>,
    h: &HistoryOpts,
    out: &mut dyn Write,
) -> io::Result<Outcome> {
    let (path, ts) = (a.path(), a.ts());
    // As `rows`: MariaDB instant ALTER's record shape, old temporal formats.
    let Some(crate::decode::Decoding { def, decoding }) = crate::decode::decoding(a) else {
        return Ok(Outcome::Unreadable);
    };
    let t = &def.table;
    let Some(ix) = t.clustered() else {
        crate::diag::say!(
            "ibdscope: {}: no clustered index",
            ibdscope::names::path(path)
        );
        return Ok(Outcome::Unreadable);
    };
    if let Some(n) = &h.index {
        if t.index_by_name_or_id(n) != Some(ix) {
            crate::diag::say!(
                "ibdscope: {}: history follows the clustered index ({}); {} is not it",
                ibdscope::names::path(path),
                ibdscope::names::name(&ix.name),
                ibdscope::names::name(n)
            );
            return Ok(Outcome::Unreadable);
        }
    }
    let Some(datadir) =
        ibdscope::instance::find_datadir(path, h.datadir.as_deref(), opts.data_files.as_deref())
    else {
        crate::diag::say!(
            "ibdscope: {}: no ibdata1 in its directory or the one above: give --datadir",
            ibdscope::names::path(path)
        );
        return Ok(Outcome::Unreadable);
    };
    let files = match ibdscope::undo::read_undo_files(
        &*opts.host,
        &datadir,
        opts.threads,
        opts.data_files.as_deref(),
    ) {
        Ok(f) => f,
        Err(e) => {
            crate::diag::say!("ibdscope: {e}");
            return Ok(Outcome::Unreadable);
        }
    };
    let (spaces, bad) = ibdscope::undo::parse_spaces(&files);
    let Some(u) = ibdscope::undo::read_undo(&spaces) else {
        crate::diag::say!(
            "ibdscope: {}: no TRX_SYS page to name the rollback segments",
            ibdscope::names::path(&datadir)
        );
        return Ok(Outcome::Unreadable);
    };
    let mut findings = undo_findings(bad, &files, &spaces, &u);
    let table_id =
        ibdscope::instance::dictionary(&*opts.host, &datadir, opts.data_files.as_deref())
            .ok()
            .and_then(|(d, _)| {
                ibdscope::instance::table_for(&d, path, ts.space_id().0).map(|t| t.id)
            });

    let Some((root, root_rp)) = crate::decode::root_page(ts, path, ix) else {
        return Ok(Outcome::Unreadable);
    };
    let Some(layout) = crate::decode::index_layout(path, t, ix, &decoding.instant, &root_rp) else {
        return Ok(Outcome::Unreadable);
    };
    let root_index = root_rp.header().index_id();
    // The columns shown: the visible ones, in the layout's order of columns.
    let shown: Vec<(usize, usize)> = (0..t.columns.len())
        .filter_map(|c| {
            let col = t.columns.get(c)?;
            if col.hidden != Hidden::Visible || col.sys().is_some() {
                return None;
            }
            let li = layout.fields.iter().position(|f| f.column == c)?;
            Some((c, li))
        })
        .collect();
    let clustered = Clustered::new(t, &layout, root, root_index, table_id);
    let hist = match ibdscope_forensics::history::history(ts, &clustered, &u, h.key.as_deref()) {
        Ok(x) => x,
        // No DB_TRX_ID / DB_ROLL_PTR, or the leftmost leaf not reached.
        Err(e) => {
            crate::diag::say!("ibdscope: {}: {e}", ibdscope::names::path(path));
            return Ok(Outcome::Unreadable);
        }
    };
    let p = ibdscope::names::path(path);
    for pr in &hist.problems {
        findings.push(match pr {
            HistoryProblem::ChainLoops(n) => {
                format!("{p}: page {}: the leaf chain comes back to a page", n.0)
            }
            HistoryProblem::NotLeaf(n) => {
                format!("{p}: page {}: not a leaf page of the clustered index", n.0)
            }
            HistoryProblem::RecordChain(n, e) => format!("{p}: page {}: record chain {e}", n.0),
            HistoryProblem::Split(n, at, e) => format!("{p}: page {}, byte offset {at}: {e}", n.0),
            HistoryProblem::Row(k) => {
                let Some(r) = hist.rows.get(*k) else { continue };
                let key = &r.key;
                match &r.oldest {
                    Oldest::Lost(l) => format!(
                        "{}: page {}, byte offset {}: row {key}: older versions {}",
                        crate::undo_words::space_file(&spaces, l.space),
                        l.page,
                        l.offset,
                        lost_words(&spaces, l)
                    ),
                    Oldest::Problem(space, off, what) => format!(
                        "{}: page {}, byte offset {off}: row {key}: {what}",
                        crate::undo_words::space_file(&spaces, *space),
                        off.checked_div(u64::from(ts.page_size())).unwrap_or(0),
                    ),
                    _ => continue,
                }
            }
            _ => continue,
        });
    }
    let rows = &hist.rows;
    // "lost: undo page N of FILE is damaged …" for a chain lost with a
    // damaged undo page.
    let lost_of = |o: &Oldest| match o {
        Oldest::Lost(l) => Some((lost_words(&spaces, l), *l)),
        _ => None,
    };

    let names: Vec<String> = shown
        .iter()
        .map(|(c, _)| {
            t.columns
                .get(*c)
                .map(|c| c.name.clone())
                .unwrap_or_default()
        })
        .collect();
    let render = |v: &Version, li: usize, c: usize, s: &mut String| -> Option<bool> {
        let col = t.columns.get(c)?;
        match v.values.get(li)? {
            Val::Null => None,
            Val::Bytes(b) => Some(matches!(
                ibdscope_schema::value::render(col, b, s),
                ibdscope_schema::value::Rendered::Number
            )),
            Val::OffPage(b) => {
                s.push_str("(off-page) ");
                ibdscope_schema::value::write_hex(b, s);
                Some(false)
            }
            _ => None,
        }
    };
    match opts.format {
        Format::Json => {
            let mut j = Json::new(out);
            j.obj()?
                .kv_path("file", path)?
                .kv_path("datadir", &datadir)?
                .kv_str("table", &format!("{}/{}", t.schema, t.name))?;
            j.key("rows")?.arr()?;
            for r in rows {
                j.obj()?
                    .kv_str("key", &r.key)?
                    .kv_str("oldest", r.oldest.word())?;
                if let Some((words, l)) = &lost_of(&r.oldest) {
                    j.key("lost")?
                        .obj()?
                        .kv_str("file", &crate::undo_words::space_file(&spaces, l.space))?
                        .kv_num("space", l.space)?
                        .kv_num("page", l.page)?
                        .kv_num("byte_offset", l.offset)?
                        .kv_str("verdict", l.damage.word())?
                        .kv_str("words", words)?
                        .end_obj()?;
                }
                j.key("versions")?.arr()?;
                for v in &r.versions {
                    j.obj()?
                        .kv_num("trx_id", v.trx_id)?
                        .kv_bool("deleted", v.deleted)?;
                    j.key("undo")?;
                    match v.from {
                        Some(rp) => {
                            let (sp, off) = u.byte_offset(rp);
                            j.obj()?
                                .kv_num("rseg", rp.rseg)?
                                .kv_num("space", sp)?
                                .kv_num("page", rp.page)?
                                .kv_num("offset", rp.offset)?
                                .kv_num("byte_offset", off)?
                                .end_obj()?;
                        }
                        None => {
                            j.null()?;
                        }
                    }
                    j.key("values")?.obj()?;
                    for ((c, li), n) in shown.iter().zip(&names) {
                        j.key(n)?;
                        let mut s = String::new();
                        match render(v, *li, *c, &mut s) {
                            None => j.null()?,
                            Some(true) => j.raw(s.as_bytes())?,
                            Some(false) => j.str(&s)?,
                        };
                    }
                    j.end_obj()?.end_obj()?;
                }
                j.end_arr()?.end_obj()?;
            }
            j.end_arr()?;
            j.key("findings")?.arr()?;
            for f in &findings {
                j.str(f)?;
            }
            j.end_arr()?.end_obj()?;
            writeln!(out)?;
        }
        Format::Csv => {
            let mut line = String::from("key,version,trx_id,deleted,undo_page,undo_offset");
            for n in &names {
                line.push(',');
                crate::csv::push(&mut line, n);
            }
            writeln!(out, "{line}")?;
            for r in rows {
                for (i, v) in r.versions.iter().enumerate() {
                    line.clear();
                    crate::csv::push(&mut line, &r.key);
                    line.push_str(&format!(",{i},{},{}", v.trx_id, u8::from(v.deleted)));
                    match v.from {
                        Some(rp) => line.push_str(&format!(",{},{}", rp.page, rp.offset)),
                        None => line.push_str(",,"),
                    }
                    for (c, li) in &shown {
                        line.push(',');
                        let mut s = String::new();
                        if render(v, *li, *c, &mut s).is_some() {
                            crate::csv::push(&mut line, &s);
                        }
                    }
                    writeln!(out, "{line}")?;
                }
            }
            for f in &findings {
                crate::diag::say!("ibdscope: {f}");
            }
        }
        _ => {
            writeln!(
                out,
                "history of {}.{} ({}), undo from {}: {} row{}",
                ibdscope::names::name(&t.schema),
                ibdscope::names::name(&t.name),
                ibdscope::names::path(path),
                ibdscope::names::path(&datadir),
                rows.len(),
                if rows.len() == 1 { "" } else { "s" }
            )?;
            let (n, _) = u.to_purge();
            writeln!(
                out,
                "{} rollback segments, {} undo logs to purge",
                u.rsegs.len(),
                n
            )?;
            for r in rows {
                writeln!(out)?;
                writeln!(
                    out,
                    "row {}: {} version{}, {}",
                    ibdscope::names::name(&r.key),
                    r.versions.len(),
                    if r.versions.len() == 1 { "" } else { "s" },
                    match (&r.oldest, lost_of(&r.oldest)) {
                        (_, Some((words, _))) => words,
                        (Oldest::Insert, _) => "the oldest is the insert".to_string(),
                        (Oldest::Purged, _) => "older ones purged".to_string(),
                        _ => "older ones behind damaged undo (see the findings)".to_string(),
                    }
                )?;
                for (i, v) in r.versions.iter().enumerate() {
                    let mut line = format!("  v{i} trx {}", v.trx_id);
                    if v.deleted {
                        line.push_str(" deleted");
                    }
                    match v.from {
                        Some(rp) => line.push_str(&format!(
                            " (from undo rseg {} page {} offset {})",
                            rp.rseg, rp.page, rp.offset
                        )),
                        None => line.push_str(" (current record)"),
                    }
                    line.push(':');
                    for ((c, li), n) in shown.iter().zip(&names) {
                        let mut s = String::new();
                        let shown_v = match render(v, *li, *c, &mut s) {
                            None => "NULL".to_string(),
                            Some(_) => s,
                        };
                        line.push_str(&format!(
                            " {}={}",
                            ibdscope::names::name(n),
                            ibdscope::names::name(&shown_v)
                        ));
                    }
                    writeln!(out, "{line}")?;
                }
            }
            text_findings(&findings, out)?;
        }
    }
    Ok(outcome_of(&findings))
}

/// Runs `undo` on `opts.files[0]`: a datadir, or its `ibdata1`.
pub fn undo(opts: &Opts, out: &mut dyn Write) -> io::Result<Outcome> {
    let Some(arg) = opts.files.first() else {
        return Ok(Outcome::Unreadable);
    };
    let datadir = if arg.is_dir() {
        arg.clone()
    } else {
        arg.parent().unwrap_or(Path::new(".")).to_path_buf()
    };
    let files = match ibdscope::undo::read_undo_files(
        &*opts.host,
        arg,
        opts.threads,
        opts.data_files.as_deref(),
    ) {
        Ok(f) => f,
        Err(e) => {
            crate::diag::say!("ibdscope: {e}");
            return Ok(Outcome::Unreadable);
        }
    };
    let (spaces, bad) = ibdscope::undo::parse_spaces(&files);
    let Some(u) = ibdscope::undo::read_undo(&spaces) else {
        crate::diag::say!(
            "ibdscope: {}: no TRX_SYS page to name the rollback segments",
            ibdscope::names::path(arg)
        );
        return Ok(Outcome::Unreadable);
    };
    let findings = undo_findings(bad, &files, &spaces, &u);
    let (to_purge, _) = u.to_purge();
    // Per log: counts of each record type, the tables named.
    let counts = |l: &undo::UndoLog| {
        let mut c = [0u64; 5];
        let mut tables: Vec<u64> = Vec::new();
        for (_, t, tid, _) in &l.records {
            let i = match *t {
                undo::TRX_UNDO_INSERT_REC => 0,
                undo::TRX_UNDO_UPD_EXIST_REC => 1,
                undo::TRX_UNDO_UPD_DEL_REC => 2,
                undo::TRX_UNDO_DEL_MARK_REC => 3,
                _ => 4,
            };
            if let Some(x) = c.get_mut(i) {
                *x = x.saturating_add(1);
            }
            if !tables.contains(tid) {
                tables.push(*tid);
            }
        }
        (c, tables)
    };
    const KINDS: [&str; 5] = ["insert", "update", "update_deleted", "delete_mark", "other"];
    match opts.format {
        Format::Json => {
            let mut j = Json::new(out);
            j.obj()?.key("files")?.arr()?;
            for (id, p, ts) in &spaces {
                j.obj()?
                    .kv_path("path", p)?
                    .kv_num("space", *id)?
                    .kv_num("pages", ts.n_pages())?
                    .end_obj()?;
            }
            j.end_arr()?.kv_num("to_purge", to_purge)?;
            j.key("rsegs")?.arr()?;
            for r in &u.rsegs {
                j.obj()?
                    .kv_num("slot", r.slot)?
                    .kv_num("space", r.space)?
                    .kv_num("page", r.page)?
                    .kv_num("max_size", r.max_size)?
                    .kv_num("history_size", r.history_size)?
                    .kv_num("history_len", r.history_len)?
                    .kv_num("undo_slots_used", r.slots.len() as u64)?
                    .end_obj()?;
            }
            j.end_arr()?.key("logs")?.arr()?;
            for l in &u.logs {
                let (c, tables) = counts(l);
                j.obj()?
                    .kv_num("rseg", l.rseg)?
                    .kv_num("space", l.space)?
                    .kv_num("page", l.page)?
                    .kv_num("offset", l.offset)?;
                j.key("damaged")?;
                match l.damage {
                    Some(d) => j.str(d.word())?,
                    None => j.null()?,
                };
                j.kv_num("trx_id", l.trx_id)?
                    .kv_num("trx_no", l.trx_no)?
                    .kv_num("page_type", l.page_type)?
                    .kv_str("state", undo::state_name(l.state))?
                    .kv_bool("in_history", l.in_history)?
                    .kv_num("del_marks", l.del_marks)?
                    .kv_num("log_start", l.log_start)?
                    .kv_num("next_log", l.next_log)?
                    .kv_num("records", l.records.len() as u64)?;
                j.key("record_types")?.obj()?;
                for (k, n) in KINDS.iter().zip(c) {
                    j.kv_num(k, n)?;
                }
                j.end_obj()?.key("table_ids")?.arr()?;
                for t in tables {
                    j.num(t)?;
                }
                j.end_arr()?.end_obj()?;
            }
            j.end_arr()?.key("findings")?.arr()?;
            for f in &findings {
                j.str(f)?;
            }
            j.end_arr()?.end_obj()?;
            writeln!(out)?;
        }
        Format::Csv => {
            writeln!(
                out,
                "rseg,space,page,offset,trx_id,trx_no,state,in_history,records,insert,update,update_deleted,delete_mark,other,table_ids"
            )?;
            for l in &u.logs {
                let (c, tables) = counts(l);
                let t: Vec<String> = tables.iter().map(u64::to_string).collect();
                writeln!(
                    out,
                    "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
                    l.rseg,
                    l.space,
                    l.page,
                    l.offset,
                    l.trx_id,
                    l.trx_no,
                    match l.damage {
                        Some(d) => d.word(),
                        None => undo::state_name(l.state),
                    },
                    u8::from(l.in_history),
                    l.records.len(),
                    c[0],
                    c[1],
                    c[2],
                    c[3],
                    c[4],
                    t.join(" ")
                )?;
            }
            for f in &findings {
                crate::diag::say!("ibdscope: {f}");
            }
        }
        _ => {
            let names: Vec<String> = spaces
                .iter()
                .map(|(id, p, ts)| {
                    format!(
                        "{} (space {id}, {} pages)",
                        ibdscope::names::path(p),
                        ts.n_pages()
                    )
                })
                .collect();
            writeln!(
                out,
                "undo of {}: {}",
                ibdscope::names::path(&datadir),
                names.join(", ")
            )?;
            writeln!(
                out,
                "{} rollback segments, {} undo logs to purge (history list length)",
                u.rsegs.len(),
                to_purge
            )?;
            for r in &u.rsegs {
                let logs: Vec<&undo::UndoLog> =
                    u.logs.iter().filter(|l| l.rseg == r.slot).collect();
                if r.history_len == 0 && logs.is_empty() && r.slots.is_empty() {
                    continue;
                }
                writeln!(out)?;
                writeln!(
                    out,
                    "rseg {} (space {}, page {}): history list length {} (TRX_RSEG_HISTORY_SIZE {} pages), {} undo slots used",
                    r.slot,
                    r.space,
                    r.page,
                    r.history_len,
                    r.history_size,
                    r.slots.len()
                )?;
                for l in logs {
                    if let Some(d) = l.damage {
                        let lost = undo::Lost {
                            space: l.space,
                            page: l.page,
                            offset: u.file_offset(l.space, l.page, usize::from(l.offset)),
                            damage: d,
                        };
                        writeln!(
                            out,
                            "  log at page {} offset {}{}: its transaction and records {}",
                            l.page,
                            l.offset,
                            if l.in_history {
                                ", in the history list"
                            } else {
                                ""
                            },
                            lost_words(&spaces, &lost)
                        )?;
                        continue;
                    }
                    let (c, tables) = counts(l);
                    let kinds: Vec<String> = KINDS
                        .iter()
                        .zip(c)
                        .filter(|(_, n)| *n > 0)
                        .map(|(k, n)| format!("{n} {k}"))
                        .collect();
                    let t: Vec<String> = tables.iter().map(u64::to_string).collect();
                    writeln!(
                        out,
                        "  trx {} (no {}) {}{}, log at page {} offset {}: {} records ({}), table ids {}",
                        l.trx_id,
                        l.trx_no,
                        undo::state_name(l.state),
                        if l.in_history { ", in the history list" } else { "" },
                        l.page,
                        l.offset,
                        l.records.len(),
                        kinds.join(", "),
                        t.join(" ")
                    )?;
                }
            }
            text_findings(&findings, out)?;
        }
    }
    Ok(outcome_of(&findings))
}

/// The findings after a text report, a blank line before them.
fn text_findings(findings: &[String], out: &mut dyn Write) -> io::Result<()> {
    if !findings.is_empty() {
        writeln!(out)?;
        for f in findings {
            writeln!(out, "finding: {f}")?;
        }
    }
    Ok(())
}

/// Clean without findings, else findings.
fn outcome_of(findings: &[String]) -> Outcome {
    if findings.is_empty() {
        Outcome::Clean
    } else {
        Outcome::Findings
    }
}

/// The findings of reading the undo: files that do not parse, the system
/// tablespace's problems, and the undo's own (file, page, byte offset).
fn undo_findings(
    bad: Vec<String>,
    files: &ibdscope::undo::UndoFiles,
    spaces: &[(u32, PathBuf, Tablespace<'_>)],
    u: &Undo<'_, '_>,
) -> Vec<String> {
    let mut findings = bad;
    findings.extend(files.system.problems.iter().cloned());
    findings.extend(crate::undo_words::undo_problem_words(spaces, u));
    findings
}
