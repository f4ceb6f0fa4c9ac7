//! `ibdscope indexes --levels`: one row per index and level, from the
//! B-tree walk ([`ibdscope_core::Btrees`]): the level's pages, their records,
//! how full they are, and the order of the level's chain. Every figure is
//! summed in the walk's one pass over the file (`LevelInfo::sums`) or on
//! the chain walk it makes anyway (`LevelInfo::order`): no pass of its own.
//!
//! Chain order counts the FIL_PAGE_NEXT links the walk followed along the
//! level, from its leftmost page: `links` (the level's pages on the chain
//! − 1 on a sound level), `ascending` the links to a higher page number,
//! `sequential` the links to exactly page + 1 (a level written in key
//! order into fresh extents has all its links sequential).

use crate::args::{Format, Opts};
use crate::csv;
use crate::findings;
use crate::json::Json;
use crate::outcome::Outcome;
use ibdscope::analysis::{id_text, Analysis};
use ibdscope_core::btree::LevelInfo;
use std::io::{self, Write};

/// Runs `indexes --levels`.
pub fn run(opts: &Opts, a: &Analysis<'_>, out: &mut dyn Write) -> io::Result<Outcome> {
    let trees = a.trees();
    let outcome = findings::map_outcome(a, &trees.findings);
    match opts.format {
        Format::Json => {
            let mut j = Json::new(out);
            j.obj()?.kv_path("file", a.path())?.key("indexes")?.arr()?;
            for t in &trees.indexes {
                j.obj()?
                    .kv_index(a, t.index_id)?
                    .kv_num("root_page", t.root.0)?
                    .kv_num("height", t.height)?;
                j.key("levels")?.arr()?;
                for l in &t.levels {
                    j.obj()?;
                    json_level(&mut j, l)?;
                    j.end_obj()?;
                }
                j.end_arr()?.end_obj()?;
            }
            j.end_arr()?;
            findings::json(&mut j, a, &[&a.map().findings, &trees.findings])?;
            j.end_obj()?;
            writeln!(out)?;
        }
        Format::Csv => {
            writeln!(
                out,
                "index_id,index_name,level,pages,reached,leftmost_page,records,records_stated,\
                 data_bytes,used_bytes,usable_bytes,fill,garbage_bytes,links,ascending,sequential"
            )?;
            for t in &trees.indexes {
                for l in &t.levels {
                    let (s, o) = (l.sums, l.order);
                    writeln!(
                        out,
                        "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
                        t.index_id.0,
                        csv::opt_name(a.index_name(t.index_id)),
                        l.level,
                        l.pages,
                        l.reached,
                        csv::Opt(l.leftmost.map(|p| p.0)),
                        s.records,
                        s.records_stated,
                        s.data_bytes,
                        s.used_bytes,
                        s.usable_bytes,
                        csv::Float(s.fill(), 4),
                        s.garbage_bytes,
                        o.steps,
                        o.forward,
                        o.sequential()
                    )?;
                }
            }
            findings::map_findings_to_stderr(opts, a, &trees.findings)?;
        }
        _ => {
            text(out, a)?;
            findings::print_map_findings(out, opts, a, &trees.findings)?;
        }
    }
    Ok(outcome)
}

/// One level's members.
fn json_level(j: &mut Json<'_>, l: &LevelInfo) -> io::Result<()> {
    let (s, o) = (l.sums, l.order);
    j.kv_num("level", l.level)?
        .kv_num("pages", l.pages)?
        .kv_num("reached", l.reached)?;
    j.key("leftmost_page")?
        .opt_num(l.leftmost.map(|p| u64::from(p.0)))?;
    j.kv_num("records", s.records)?
        .kv_num("records_stated", s.records_stated)?
        .kv_num("data_bytes", s.data_bytes)?;
    j.kv_num("used_bytes", s.used_bytes)?
        .kv_num("usable_bytes", s.usable_bytes)?;
    j.key("fill")?.float(s.fill(), 4)?;
    j.kv_num("garbage_bytes", s.garbage_bytes)?
        .kv_num("links", o.steps)?
        .kv_num("ascending", o.forward)?
        .kv_num("sequential", o.sequential())?;
    Ok(())
}

/// The text table, then what the order columns count.
fn text(out: &mut dyn Write, a: &Analysis<'_>) -> io::Result<()> {
    let trees = a.trees();
    let w = a.name_width(4);
    writeln!(
        out,
        "{:>10} {:<w$} {:>5} {:>7} {:>9} {:>11} {:>7} {:>7} {:>9} {:>10}",
        "index",
        "name",
        "level",
        "pages",
        "records",
        "data_bytes",
        "fill",
        "links",
        "ascending",
        "sequential"
    )?;
    for t in &trees.indexes {
        for l in &t.levels {
            let (s, o) = (l.sums, l.order);
            writeln!(
                out,
                "{:>10} {:<w$} {:>5} {:>7} {:>9} {:>11} {:>6.1}% {:>7} {:>9} {:>10}",
                id_text(t.index_id),
                ibdscope::names::name(a.index_name(t.index_id).unwrap_or("-")).to_string(),
                l.level,
                l.pages,
                s.records,
                s.data_bytes,
                s.fill() * 100.0,
                o.steps,
                o.forward,
                o.sequential()
            )?;
        }
    }
    for line in [
        "records: user records (node pointers above level 0); data_bytes:",
        "PAGE_HEAP_TOP - supremum end - PAGE_GARBAGE summed; fill: bytes used",
        "(records, infimum, supremum, directory) / the pages' usable bytes;",
        "links: FIL_PAGE_NEXT links followed from the level's leftmost page;",
        "ascending: those to a higher page number; sequential: to page + 1",
    ] {
        writeln!(out, "{line}")?;
    }
    Ok(())
}
