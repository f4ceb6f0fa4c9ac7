//! `sdi`: the Serialized Dictionary Information of a MySQL 8.0+ space, the
//! JSON documents exactly as the server wrote them.

use crate::args::{Format, Opts};
use crate::json::Json;
use crate::outcome::Outcome;
use ibdscope::analysis::Analysis;
use ibdscope_schema::sdi::{sdi_json, Sdi, SdiFinding, SdiProblem};
use std::io::{self, Write};

/// Runs `sdi` on one space.
pub fn run(opts: &Opts, a: &Analysis<'_>, out: &mut dyn Write) -> io::Result<Outcome> {
    let (path, ts) = (a.path(), a.ts());
    let sdi = Sdi::read(ts);
    let (mut zbuf, mut doc) = (Vec::new(), Vec::new());
    let mut findings: Vec<SdiFinding> = sdi.findings.clone();
    match opts.format {
        Format::Json => {
            let mut j = Json::new(out);
            j.obj()?.kv_path("file", path)?;
            j.key("root")?;
            match sdi.root {
                Some(r) => {
                    j.obj()?
                        .kv_num("offset", r.offset as u64)?
                        .kv_num("version", r.version)?
                        .kv_num("page", r.root.0)?
                        .end_obj()?;
                }
                None => {
                    j.null()?;
                }
            }
            j.key("records")?.arr()?;
            for r in &sdi.records {
                j.obj()?
                    .kv_num("page", r.page.0)?
                    .kv_num("offset", r.origin)?
                    .kv_str("type", r.type_name())?
                    .kv_num("type_code", r.sdi_type)?
                    .kv_num("id", r.id)?
                    .kv_num("trx_id", r.trx_id)?
                    .kv_bool("deleted", r.deleted)?
                    .kv_num("compressed_len", r.compressed_len)?
                    .kv_num("uncompressed_len", r.uncompressed_len)?;
                j.key("external_page")?
                    .opt_num(r.external.map(|e| u64::from(e.page.0)))?;
                j.key("object")?;
                match sdi_json(ts, r, &mut zbuf, &mut doc) {
                    // The document as the server wrote it, verbatim.
                    Ok(()) if ibdscope_schema::sdi::is_json(&doc) => j.raw(&doc)?,
                    Ok(()) => j.null()?,
                    Err(f) => {
                        findings.push(f);
                        j.null()?
                    }
                };
                j.end_obj()?;
            }
            j.end_arr()?.key("findings")?.arr()?;
            for f in &findings {
                j.obj()?
                    .kv_num("page", f.page.0)?
                    .kv_num("offset", f.offset)?
                    .kv_display("reason", &f.problem)?
                    .end_obj()?;
            }
            j.end_arr()?.end_obj()?;
            writeln!(out)?;
        }
        _ => {
            match sdi.root {
                None => writeln!(
                    out,
                    "{}: no SDI (the FSP flags do not have the SDI bit: MySQL 5.7 and older, MariaDB)",
                    ibdscope::names::path(path)
                )?,
                Some(r) => writeln!(
                    out,
                    "{}: SDI version {} root page {} (named at page 0 byte {}), {} records",
                    ibdscope::names::path(path),
                    r.version,
                    r.root,
                    r.offset,
                    sdi.records.len()
                )?,
            }
            for r in &sdi.records {
                writeln!(
                    out,
                    "\n# {} id {} page {} offset {}{}: {} bytes zlib -> {} bytes{}",
                    r.type_name(),
                    r.id,
                    r.page,
                    r.origin,
                    if r.deleted { " (delete-marked)" } else { "" },
                    r.compressed_len,
                    r.uncompressed_len,
                    match r.external {
                        Some(e) => format!(", off-page from page {}", e.page),
                        None => String::new(),
                    }
                )?;
                match sdi_json(ts, r, &mut zbuf, &mut doc) {
                    Ok(()) => {
                        out.write_all(&doc)?;
                        writeln!(out)?;
                    }
                    Err(f) => findings.push(f),
                }
            }
            for f in &findings {
                let label = if f.problem == SdiProblem::Unreadable {
                    "note"
                } else {
                    "finding"
                };
                writeln!(
                    out,
                    "{label}: {}: page {} at byte offset {}: {}",
                    ibdscope::names::path(path),
                    f.page,
                    ts.file_offset(f.page).saturating_add(u64::from(f.offset)),
                    f.problem
                )?;
            }
        }
    }
    // Compressed or encrypted SDI pages are a limit of this reading, not
    // damage: shown, but the exit code stays 0.
    let damage = findings
        .iter()
        .filter(|f| f.problem != SdiProblem::Unreadable)
        .count();
    Ok(if damage == 0 {
        Outcome::Clean
    } else {
        Outcome::Findings
    })
}
