//! `ibdscope pages`: one row per page, streamed (nothing kept per page).

use crate::analysis::Analysis;
use crate::args::{Format, Opts};
use crate::json::Json;
use crate::outcome::Outcome;
use crate::text::Link;
use ibdscope::checksum::Verdict;
use ibdscope::space::PageProblem;
use ibdscope::{PageFacts, PageNo, SpaceId, Tablespace};
use std::fmt;
use std::io::{self, Write};

/// The checksum status of a page as one word, e.g. `crc32`, `empty`, `BAD`,
/// `unverifiable-encrypted`; `+problems` when other checks failed.
pub struct Status(pub PageFacts, pub SpaceId);

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.verdict {
            Verdict::Valid(a) => f.write_str(a.name())?,
            Verdict::Empty => f.write_str("empty")?,
            Verdict::Mismatch => f.write_str("BAD")?,
            Verdict::BadCompressedSize => f.write_str("BAD-size")?,
            Verdict::Unverifiable(why) => {
                write!(f, "unverifiable-{}", crate::cmd::check::why_word(why))?
            }
            other => write!(f, "{other}")?,
        }
        if self.0.problems(self.1).any(|p| p != PageProblem::Checksum) {
            f.write_str("+problems")?;
        }
        Ok(())
    }
}

/// Runs `pages`.
pub fn run(
    opts: &Opts,
    a: &Analysis<'_>,
    from: u32,
    to: Option<u32>,
    out: &mut dyn Write,
) -> io::Result<Outcome> {
    let ts = a.ts();
    // Each page as `check` judges it (page_compressed pages outside
    // full_crc32 after decompression).
    let mut judge = ibdscope::summary::Judge::default();
    let rows = ts
        .scan_range(from, to.unwrap_or(u32::MAX))
        .map(move |f| judge.judge(ts, f).0);
    let space_id = ts.space_id();
    let names = ts.type_names();
    let mut bad = false;
    let mut note = |f: &PageFacts| bad |= f.problems(space_id).next().is_some();
    match opts.format {
        Format::Text | Format::Tsv | Format::Sql => {
            writeln!(
                out,
                "{:>8}  {:<16}  {:>8}  {:>8}  {:>16}  {:>10}  checksum",
                "page", "type", "prev", "next", "lsn", "space"
            )?;
            for f in rows {
                note(&f);
                writeln!(
                    out,
                    "{:>8}  {:<16}  {:>8}  {:>8}  {:>16}  {:>10}  {}",
                    f.page_no,
                    f.page_type.display(names),
                    Link(f.prev),
                    Link(f.next),
                    f.lsn,
                    f.space_id,
                    Status(f, space_id)
                )?;
            }
        }
        Format::Csv => {
            writeln!(out, "page,type,type_code,prev,next,lsn,space_id,checksum")?;
            for f in rows {
                note(&f);
                // Type names are identifiers: no CSV quoting needed.
                writeln!(
                    out,
                    "{},{},{},{},{},{},{},{}",
                    f.page_no,
                    f.page_type.display(names),
                    f.page_type.0,
                    CsvLink(f.prev),
                    CsvLink(f.next),
                    f.lsn,
                    f.space_id,
                    Status(f, space_id)
                )?;
            }
        }
        Format::Json => {
            let mut j = Json::new(out);
            j.obj()?.key("pages")?.arr()?;
            for f in rows {
                note(&f);
                row(&mut j, &f, ts)?;
            }
            j.end_arr()?.end_obj()?;
            writeln!(out)?;
        }
        Format::Jsonl => {
            for f in rows {
                note(&f);
                row(&mut Json::new(out), &f, ts)?;
                writeln!(out)?;
            }
        }
    }
    Ok(if bad {
        Outcome::Findings
    } else {
        Outcome::Clean
    })
}

fn row(j: &mut Json<'_>, f: &PageFacts, ts: &Tablespace<'_>) -> io::Result<()> {
    let names = ts.type_names();
    j.obj()?;
    j.kv_num("page", f.page_no.0)?;
    j.kv_display("type", &f.page_type.display(names))?;
    j.kv_num("type_code", f.page_type.0)?;
    j.key("prev")?.opt_num(link(f.prev))?;
    j.key("next")?.opt_num(link(f.next))?;
    j.kv_num("lsn", f.lsn.0)?;
    j.kv_num("space_id", f.space_id.0)?;
    j.kv_display("checksum", &Status(*f, ts.space_id()))?;
    j.end_obj()?;
    Ok(())
}

fn link(p: PageNo) -> Option<u64> {
    (!p.is_null()).then_some(u64::from(p.0))
}

struct CsvLink(PageNo);

impl fmt::Display for CsvLink {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match link(self.0) {
            Some(v) => write!(f, "{v}"),
            None => Ok(()),
        }
    }
}
