//! `schema`: the table definition as `CREATE TABLE`, with where it came
//! from (the lookup is [`ibdscope::definition`]).

use crate::args::{Format, Opts};
use crate::json::Json;
use crate::outcome::Outcome;
use ibdscope::analysis::Analysis;
use ibdscope_schema::table::{Hidden, RowFormat};
use std::io::{self, Write};

/// Runs `schema`.
pub fn run(opts: &Opts, a: &Analysis<'_>, out: &mut dyn Write) -> io::Result<Outcome> {
    let path = a.path();
    let def = match a.definition() {
        Ok(def) => def,
        Err(e) => {
            // The reason may quote the DDL or .frm: no raw control characters.
            crate::diag::say!("ibdscope: {}", ibdscope::names::name(&e.to_string()));
            return Ok(Outcome::Unreadable);
        }
    };
    let counter = root_autoinc(a, &def.table);
    let with_counter;
    let t = match counter {
        Some(n) => {
            let mut c = def.table.clone();
            c.options.auto_increment = Some(n);
            with_counter = c;
            &with_counter
        }
        None => &def.table,
    };
    // A row format the definition does not state stays out of the
    // statement (the server would apply its own default, as it did for
    // the original); the comment line and JSON give it.
    let create = t.create_table(
        if def.row_format_from_space || t.options.row_format_implicit {
            RowFormat::Other(0)
        } else {
            def.row_format
        },
    );
    match opts.format {
        Format::Json => {
            let mut j = Json::new(out);
            j.obj()?
                .kv_path("file", path)?
                .kv_str("source", def.source_word())?;
            j.key("source_file")?;
            match def.frm_path.as_ref().or(def.ddl.as_ref().map(|d| &d.0)) {
                Some(p) => j.str(&p.to_string_lossy())?,
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
                json_column(
                    &mut j,
                    c,
                    def.dict_notes
                        .iter()
                        .find(|(n, _)| *n == c.name)
                        .map(|(_, note)| note.as_str()),
                )?;
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
            j.end_arr()?;
            let o = &t.options;
            j.kv_str("comment", &o.comment)?;
            j.key("auto_increment")?.opt_num(o.auto_increment)?;
            j.kv_num("key_block_size", o.key_block_size)?
                .kv_num("collation_id", o.collation_id)?;
            if let Some(inf) = &def.inferred {
                inferred_json(&mut j, inf, &t.name)?;
            }
            j.kv_str("create_table", &create)?.end_obj()?;
            j.writer().write_all(b"\n")?;
        }
        _ if def.inferred.is_some() => {
            let inf = def.inferred.as_deref();
            writeln!(out, "-- definition: {}", def.source_words())?;
            if let Some(inf) = inf {
                for ix in &inf.indexes {
                    writeln!(out, "-- index {}: {}", ix.id, outcome_words(ix))?;
                }
                for n in &inf.notes {
                    writeln!(out, "-- {n}")?;
                }
                if !inf.complete {
                    writeln!(
                        out,
                        "-- incomplete: some column is ambiguous or of low confidence; rows \
                         decoded with it may be wrong there"
                    )?;
                }
                writeln!(out, "{};", terminal_safe(&inf.create_table(&t.name)))?;
            }
        }
        _ => {
            writeln!(out, "-- definition: {}", def.source_words())?;
            for (col, note) in &def.dict_notes {
                writeln!(out, "-- column {}: {note}", ibdscope::names::name(col))?;
            }
            if def.dict_datadir.is_some() {
                writeln!(
                    out,
                    "-- defaults, comments and display widths are not in the InnoDB dictionary"
                )?;
            }
            if def.row_format_from_space {
                writeln!(
                    out,
                    "-- row format: {} (from the tablespace flags and index pages; the \
                     definition does not state it)",
                    row_format_name(def.row_format)
                )?;
            }
            if let Some(n) = counter {
                writeln!(
                    out,
                    "-- AUTO_INCREMENT={n}: the counter in the clustered index root page \
                     (MariaDB's PAGE_ROOT_AUTO_INC + 1), not in the definition"
                )?;
            }
            let hidden: Vec<&str> = t
                .columns
                .iter()
                .filter(|c| c.hidden != Hidden::Visible)
                .map(|c| c.name.as_str())
                .collect();
            if !hidden.is_empty() {
                let shown: Vec<String> = hidden
                    .iter()
                    .map(|h| ibdscope::names::name(h).to_string())
                    .collect();
                writeln!(out, "-- hidden columns: {}", shown.join(", "))?;
            }
            writeln!(out, "{};", terminal_safe(&create))?;
        }
    }
    Ok(Outcome::Clean)
}

/// How the storage search of one index ended, in words.
fn outcome_words(ix: &ibdscope_schema::infer::IndexInference) -> String {
    use ibdscope_schema::infer::Outcome;
    let head = format!("{} records on {} leaf pages", ix.records, ix.leaf_pages);
    match &ix.outcome {
        Outcome::Fits {
            tight,
            pairs,
            ambiguous,
        } => format!(
            "{head}; {} fields fit every record ({tight} of {pairs} record boundaries meet \
             exactly){}",
            ix.fields.len(),
            if *ambiguous {
                "; another layout fits as well"
            } else {
                ""
            }
        ),
        Outcome::GaveUp { nodes } => {
            format!("{head}; the search gave up after {nodes} hypotheses")
        }
        Outcome::NoFit(why) => format!("{head}; {why}"),
        Outcome::NoRecords => format!("{head}; no records"),
    }
}

/// The inference, column by column, in the JSON report.
fn inferred_json(
    j: &mut Json<'_>,
    inf: &ibdscope_schema::infer::Inference,
    name: &str,
) -> io::Result<()> {
    j.key("inferred")?.obj()?;
    j.kv_bool("complete", inf.complete)?;
    j.key("notes")?.arr()?;
    for n in &inf.notes {
        j.str(n)?;
    }
    j.end_arr()?.key("indexes")?.arr()?;
    for ix in &inf.indexes {
        j.obj()?
            .kv_num("id", ix.id.0)?
            .kv_str("outcome", &outcome_words(ix))?
            .end_obj()?;
    }
    j.end_arr()?.key("columns")?.arr()?;
    for c in &inf.columns {
        j.obj()?
            .kv_str("name", &c.name)?
            .kv_str("type", &c.sql_type)?
            .kv_str("family", c.family.word())?
            .kv_bool("nullable", c.nullable)?
            .kv_bool("key", c.key)?
            .kv_str("confidence", c.confidence.word())?
            .kv_str("evidence", &c.evidence)?;
        j.key("alternatives")?.arr()?;
        for a in &c.alternatives {
            j.str(a)?;
        }
        j.end_arr()?.end_obj()?;
    }
    j.end_arr()?
        .kv_str("create_table", &inf.create_table(name))?
        .end_obj()?;
    Ok(())
}

/// `sql` with no control character left raw for a terminal: inside a
/// quoted name or string every one is escaped (a newline in a name would
/// forge a line), outside only the line breaks between clauses stay.
fn terminal_safe(sql: &str) -> String {
    let mut v = String::with_capacity(sql.len());
    let mut quote = None;
    for c in sql.chars() {
        match quote {
            None if c == '`' || c == '\'' => quote = Some(c),
            Some(q) if q == c => quote = None,
            _ => {}
        }
        if c.is_control() && (quote.is_some() || c != '\n') {
            let mut b = [0; 4];
            v.push_str(&ibdscope::names::name(c.encode_utf8(&mut b)).to_string());
        } else {
            v.push(c);
        }
    }
    v
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

/// The next AUTO_INCREMENT value MariaDB 10.2.4+ keeps in the file: the
/// clustered index root page's PAGE_MAX_TRX_ID field holds the largest
/// value used (`PAGE_ROOT_AUTO_INC`, MariaDB 10.11
/// `storage/innobase/include/page0page.h`, written by
/// `btr_write_autoinc`), and the server opens the table with it + 1
/// (`ha_innobase::open` → `initialize_auto_increment`); `SHOW CREATE
/// TABLE` prints that as `AUTO_INCREMENT=`. MySQL leaves the field 0 on
/// clustered index pages (it is defined on secondary index leaves), so 0
/// or a definition that states the value or has no AUTO_INCREMENT column
/// gives `None`.
fn root_autoinc(a: &Analysis<'_>, t: &ibdscope_schema::table::TableDef) -> Option<u64> {
    if t.options.auto_increment.is_some() || !t.columns.iter().any(|c| c.auto_increment) {
        return None;
    }
    let root = t.clustered()?.root?;
    let at = ibdscope_core::index::PAGE_HEADER + ibdscope_core::index::PAGE_MAX_TRX_ID;
    let page = a.ts().page(ibdscope_core::PageNo(root))?;
    let b: [u8; 8] = page.get(at..at + 8)?.try_into().ok()?;
    u64::from_be_bytes(b).checked_add(1).filter(|&n| n > 1)
}

/// One column of the JSON report.
fn json_column(
    j: &mut Json<'_>,
    c: &ibdscope_schema::table::Column,
    dictionary_note: Option<&str>,
) -> io::Result<()> {
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
    j.key("default")?;
    match c.default_sql() {
        Some(d) => j.str(&d)?,
        None => j.null()?,
    };
    j.key("on_update")?;
    match c.on_update {
        Some(f) => j.str(&ibdscope_schema::table::now_sql(f))?,
        None => j.null()?,
    };
    j.kv_bool("auto_increment", c.auto_increment)?
        .kv_str("comment", &c.comment)?;
    j.kv_num("version_added", c.version_added)?;
    j.key("version_dropped")?
        .opt_num(c.version_dropped.map(u64::from))?;
    if let Some(note) = dictionary_note {
        j.kv_str("dictionary_note", note)?;
    }
    j.end_obj()?;
    Ok(())
}
