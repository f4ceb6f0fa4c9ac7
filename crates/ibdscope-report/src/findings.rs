//! The findings every command over one file reports the same way: the
//! file's own (it ends inside a page, it is shorter than FSP_SIZE, page 0
//! does not verify), the pages that do not verify (what `check` says, with
//! the index and level the space map gives them), then the command's own
//! (structure, B-tree). One text line each, `FILE: page N at byte offset X:
//! reason`, except notes that hold for many pages (a freed page that still
//! holds records, normal after deletes), which are printed once per index
//! and level with a count and the first pages unless `verbose`.

use crate::args::Opts;
use crate::json::Json;
use crate::outcome::Outcome;
use ibdscope::analysis::Analysis;
use ibdscope_core::checksum::Unverifiable;
use ibdscope_core::extents::{Owner, SpaceProblem};
use ibdscope_core::summary::BadPage;
use ibdscope_core::{Finding, FindingKind, IndexId, PageNo};
use std::io::{self, Write};

/// Freed pages holding records of one index and level: the pages and
/// their record counts.
type FreedGroup = ((IndexId, u16), Vec<(PageNo, u16)>);

/// Pages named in a grouped note before "…".
const FIRST_PAGES: usize = 8;

/// Whether a command finding counts as damage (exit 1). A freed page that
/// still holds records is a normal state after deletes (a forensic clue):
/// shown, not counted.
pub fn is_damage(f: &Finding) -> bool {
    !matches!(
        f.kind,
        FindingKind::Space(SpaceProblem::FreePageWithData { .. })
    )
}

/// The outcome of a command over `a` whose own findings are `own`: the
/// file's findings and its damaged pages count whatever the command.
pub fn outcome(a: &Analysis<'_>, own: &[&[Finding]]) -> Outcome {
    let damaged = !a.file_findings().is_empty() || !a.damaged_pages().is_empty();
    if damaged || own.iter().any(|l| l.iter().any(is_damage)) {
        Outcome::Findings
    } else {
        Outcome::Clean
    }
}

/// Where a damaged page sits, in words: `index 29 PRIMARY, leaf` / `free
/// page` / `system page`.
pub fn place(a: &Analysis<'_>, n: PageNo) -> String {
    match a.map().owner(a.ts(), n) {
        Some(Owner::Segment {
            index: Some(id),
            role,
            ..
        }) => format!("index {}, {role}", a.index_label(id)),
        Some(Owner::Segment { index: None, .. }) => "segment page of no index".into(),
        Some(Owner::Free) => "free page".into(),
        Some(Owner::System(_)) => "system page".into(),
        Some(Owner::Unaccounted) | None => "page of no known owner".into(),
    }
}

/// The reason of a damaged page's finding, with the page's verdict word
/// ([`ibdscope_core::verdict`]) first and its place.
fn damaged_reason(a: &Analysis<'_>, b: &BadPage, f: &Finding) -> String {
    let v = b.judgement.verdict;
    format!(
        "{v}: {} ({}; {}; what is read from it may be wrong)",
        f.kind,
        if v == ibdscope_core::PageVerdict::Foreign {
            "verifies, but belongs elsewhere"
        } else {
            "does not verify"
        },
        place(a, b.facts.page_no)
    )
}

/// `FILE: page N at byte offset X: WORD: evidence`, one line per page
/// whose verdict is a finding (damaged or foreign), at the byte of the
/// verdict's evidence: what `info`, `types`, `pages`, `lsn` say.
pub fn verdict_lines(
    out: &mut dyn Write,
    path: &std::path::Path,
    s: &ibdscope_core::Summary,
) -> io::Result<()> {
    let p = ibdscope::names::path(path);
    for b in &s.bad {
        let v = &b.judgement;
        writeln!(
            out,
            "{p}: page {} at byte offset {}: {v}",
            v.page, v.file_offset
        )?;
    }
    Ok(())
}

/// `"page_verdicts": [{page, offset, verdict, evidence}]`: every page whose
/// verdict is a finding.
pub fn verdict_json(j: &mut Json<'_>, s: &ibdscope_core::Summary) -> io::Result<()> {
    j.key("page_verdicts")?.arr()?;
    for b in &s.bad {
        verdict_obj(j, &b.judgement)?;
    }
    j.end_arr()?;
    Ok(())
}

/// `{page, offset, verdict, evidence}`.
pub fn verdict_obj(j: &mut Json<'_>, v: &ibdscope_core::PageJudgement) -> io::Result<()> {
    j.obj()?
        .kv_num("page", v.page.0)?
        .kv_num("offset", v.file_offset)?
        .kv_str("verdict", v.verdict.word())?
        .kv_display("evidence", &v.evidence)?
        .end_obj()?;
    Ok(())
}

fn line(
    out: &mut dyn Write,
    a: &Analysis<'_>,
    f: &Finding,
    reason: &dyn std::fmt::Display,
) -> io::Result<()> {
    let path = ibdscope::names::path(a.path());
    match f.page {
        Some(p) => writeln!(
            out,
            "{path}: page {p} at byte offset {}: {reason}",
            f.file_offset
        ),
        None => writeln!(out, "{path}: byte offset {}: {reason}", f.file_offset),
    }
}

/// Prints the file's own findings only.
pub fn file_text(out: &mut dyn Write, a: &Analysis<'_>) -> io::Result<()> {
    for f in a.file_findings() {
        line(out, a, f, &f.kind)?;
    }
    Ok(())
}

/// Prints the file's findings, its damaged pages and the command's own
/// findings (`own`, in order), grouping the notes about freed pages that
/// still hold records unless `verbose`.
pub fn text(
    out: &mut dyn Write,
    a: &Analysis<'_>,
    own: &[&[Finding]],
    verbose: bool,
) -> io::Result<()> {
    file_text(out, a)?;
    for b in a.damaged_pages() {
        for f in &b.findings {
            line(out, a, f, &damaged_reason(a, b, f))?;
        }
    }
    // Freed pages with records, grouped by index and level.
    let mut groups: Vec<FreedGroup> = Vec::new();
    for f in own.iter().flat_map(|l| l.iter()) {
        match (f.kind, f.page) {
            (
                FindingKind::Space(SpaceProblem::FreePageWithData {
                    index,
                    level,
                    n_recs,
                }),
                Some(p),
            ) if !verbose => match groups.iter_mut().find(|(k, _)| *k == (index, level)) {
                Some((_, v)) => v.push((p, n_recs)),
                None => groups.push(((index, level), vec![(p, n_recs)])),
            },
            _ => line(out, a, f, &f.kind)?,
        }
    }
    for ((index, level), pages) in groups {
        let recs: u64 = pages.iter().map(|&(_, r)| u64::from(r)).sum();
        let mut first: Vec<String> = pages
            .iter()
            .take(FIRST_PAGES)
            .map(|(p, _)| p.to_string())
            .collect();
        if pages.len() > FIRST_PAGES {
            first.push("…".into());
        }
        writeln!(
            out,
            "{}: {} still hold{} index {} level {level} with {recs} records in all (freed, not \
             overwritten; deleted rows may be read from them): pages {}",
            ibdscope::names::path(a.path()),
            crate::text::count(pages.len() as u64, "free page", "free pages"),
            if pages.len() == 1 { "s" } else { "" },
            a.index_label(index),
            first.join(" ")
        )?;
    }
    Ok(())
}

/// `"findings": [{page, offset, reason}]`: the file's findings, its
/// damaged pages, and the command's own, every one listed.
pub fn json(j: &mut Json<'_>, a: &Analysis<'_>, own: &[&[Finding]]) -> io::Result<()> {
    j.key("findings")?.arr()?;
    let entry = |j: &mut Json<'_>, f: &Finding, reason: &dyn std::fmt::Display| -> io::Result<()> {
        j.obj()?
            .key("page")?
            .opt_num(f.page.map(|p| u64::from(p.0)))?;
        j.kv_num("offset", f.file_offset)?
            .kv_display("reason", reason)?
            .end_obj()?;
        Ok(())
    };
    for f in a.file_findings() {
        entry(j, f, &f.kind)?;
    }
    for b in a.damaged_pages() {
        for f in &b.findings {
            j.obj()?
                .key("page")?
                .opt_num(f.page.map(|p| u64::from(p.0)))?;
            j.kv_num("offset", f.file_offset)?
                .kv_display("reason", &damaged_reason(a, b, f))?
                .kv_str("verdict", b.judgement.verdict.word())?
                .end_obj()?;
        }
    }
    for f in own.iter().flat_map(|l| l.iter()) {
        entry(j, f, &f.kind)?;
    }
    j.end_arr()?;
    Ok(())
}

/// The space map's pages of no known content: encrypted or compressed
/// pages whose segments cannot be told.
pub fn print_unreadable(out: &mut dyn Write, a: &Analysis<'_>) -> io::Result<()> {
    for p in &a.map().unreadable {
        writeln!(
            out,
            "{}: page {p}: not readable (encrypted or page-compressed); its segments are unknown",
            ibdscope::names::path(a.path())
        )?;
    }
    Ok(())
}

/// The findings of a command over the space map (and `more`, the
/// B-trees'), after its own output.
pub fn print_map_findings(
    out: &mut dyn Write,
    opts: &Opts,
    a: &Analysis<'_>,
    more: &[Finding],
) -> io::Result<()> {
    text(out, a, &[&a.map().findings, more], opts.verbose)?;
    print_unreadable(out, a)
}

/// The outcome of a command over the space map (and `more`).
pub fn map_outcome(a: &Analysis<'_>, more: &[Finding]) -> Outcome {
    outcome(a, &[&a.map().findings, more])
}

/// The findings of a command over the space map (and `more`) on stderr,
/// after a CSV document (which has no place for them).
pub fn map_findings_to_stderr(opts: &Opts, a: &Analysis<'_>, more: &[Finding]) -> io::Result<()> {
    let mut buf = Vec::new();
    print_map_findings(&mut buf, opts, a, more)?;
    crate::diag::say_raw!("{}", String::from_utf8_lossy(&buf));
    Ok(())
}

/// A short word for why a page cannot be verified.
pub fn why_word(w: Unverifiable) -> &'static str {
    match w {
        Unverifiable::Encrypted => "encrypted",
        Unverifiable::PageCompressed => "page_compressed",
    }
}

/// The pages that verify per algorithm name: a ROW_FORMAT=COMPRESSED page
/// (a doublewrite slot's copy in `ibdata1`) verifies with the zip variant
/// of an algorithm that has the same name, counted once under it.
pub fn algorithm_counts(s: &ibdscope_core::Summary) -> Vec<(&'static str, u32)> {
    let mut out: Vec<(&'static str, u32)> = Vec::new();
    for (a, c) in &s.algorithms {
        match out.iter_mut().find(|(n, _)| *n == a.name()) {
            Some((_, n)) => *n = n.saturating_add(*c),
            None => out.push((a.name(), *c)),
        }
    }
    out
}
