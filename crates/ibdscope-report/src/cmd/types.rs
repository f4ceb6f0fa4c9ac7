//! `ibdscope types`: pages per type, and runs of consecutive pages of a type.

use crate::args::{Format, Opts};
use crate::json::Json;
use crate::outcome::Outcome;
use crate::text::percent;
use ibdscope::analysis::Analysis;
use std::io::{self, Write};

/// Runs `types`.
pub fn run(opts: &Opts, a: &Analysis<'_>, out: &mut dyn Write) -> io::Result<Outcome> {
    let (path, ts) = (a.path(), a.ts());
    let s = a.summary();
    let names = ts.type_names();
    match opts.format {
        Format::Json => {
            let mut j = Json::new(out);
            j.obj()?.kv_path("file", path)?;
            j.key("types")?.arr()?;
            for (t, n) in &s.types {
                j.obj()?
                    .kv_display("type", &t.display(names))?
                    .kv_num("code", t.0)?
                    .kv_num("pages", *n)?
                    .end_obj()?;
            }
            j.end_arr()?.key("regions")?.arr()?;
            for r in &s.regions {
                j.obj()?
                    .kv_num("first", r.first.0)?
                    .kv_num("last", r.last.0)?;
                j.kv_display("type", &r.page_type.display(names))?
                    .end_obj()?;
            }
            j.end_arr()?;
            crate::findings::verdict_json(&mut j, s)?;
            j.end_obj()?;
            writeln!(out)?;
        }
        Format::Csv => {
            writeln!(out, "type,code,pages,percent")?;
            for (t, n) in &s.types {
                writeln!(
                    out,
                    "{},{},{},{:.2}",
                    t.display(names),
                    t.0,
                    n,
                    percent(*n, s.pages)
                )?;
            }
        }
        _ => {
            writeln!(
                out,
                "{:<20} {:>6} {:>10} {:>7}",
                "type", "code", "pages", "share"
            )?;
            let mut by_count = s.types.clone();
            by_count.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
            for (t, n) in &by_count {
                writeln!(
                    out,
                    "{:<20} {:>6} {:>10} {:>6.1}%",
                    t.display(names),
                    t.0,
                    n,
                    percent(*n, s.pages)
                )?;
            }
            writeln!(
                out,
                "{:<20} {:>6} {:>10} {:>6.1}%",
                "total", "", s.pages, 100.0
            )?;
            writeln!(out, "\nregions ({})", s.regions.len())?;
            for r in &s.regions {
                let len = r.last.0.saturating_sub(r.first.0).saturating_add(1);
                writeln!(
                    out,
                    "  {:>8} .. {:<8} {:>8} pages  {}",
                    r.first,
                    r.last,
                    len,
                    r.page_type.display(names)
                )?;
            }
            // A damaged page's type field says nothing: its verdict does.
            if !s.bad.is_empty() {
                writeln!(out)?;
                crate::findings::verdict_lines(out, path, s)?;
            }
        }
    }
    if opts.format == Format::Csv && !s.bad.is_empty() {
        // The CSV holds type counts only: the verdicts go to stderr.
        let mut err = Vec::new();
        crate::findings::verdict_lines(&mut err, path, s)?;
        crate::diag::say_raw!("{}", String::from_utf8_lossy(&err));
    }
    Ok(if s.is_clean() {
        Outcome::Clean
    } else {
        Outcome::Findings
    })
}
