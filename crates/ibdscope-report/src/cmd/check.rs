//! `ibdscope check`: verify every page of every file, keep going past
//! damage, one line per problem.

use crate::args::{Format, Opts};
use crate::findings::algorithm_counts;
use crate::json::Json;
use crate::open::with_space;
use crate::outcome::Outcome;
use ibdscope::analysis::Analysis;
use ibdscope_core::checksum::{self, Unverifiable};
use ibdscope_core::space::PageProblem;
use ibdscope_core::summary::BadPage;
use ibdscope_core::{Finding, FindingKind, Tablespace};
use std::fmt;
use std::io::{self, Write};

fn why_sentence(w: Unverifiable) -> &'static str {
    match w {
        Unverifiable::Encrypted => "encrypted: the checksum covers the plaintext; needs the key",
        Unverifiable::PageCompressed => {
            "page-compressed (MySQL COMPRESSION=, or MariaDB PAGE_COMPRESSED with no known \
             algorithm): the checksum is on the decompressed page, which is not decoded"
        }
    }
}

/// Runs `check` over every file.
pub fn run(opts: &Opts, out: &mut dyn Write) -> io::Result<Outcome> {
    let mut worst = Outcome::Clean;
    let many = opts.files.len() > 1;
    if opts.format == Format::Json && many {
        out.write_all(b"[")?;
    }
    if opts.format == Format::Csv {
        writeln!(out, "file,page,offset,kind,reason")?;
    }
    for (i, path) in opts.files.iter().enumerate() {
        if opts.format == Format::Json && many && i > 0 {
            out.write_all(b",")?;
        }
        let (outcome, said) = crate::diag::capture(|| {
            with_space(path, opts, |ts, engine| {
                let keys = crate::open::key_finding(path, ts, opts);
                let a = Analysis::new(path, ts, ts, *engine, Default::default())
                    .with_sink(&crate::open::say_one);
                // With a key that opens the space, the summary is the
                // keyed one, made in one pass that decrypts every
                // encrypted page (the plain summary is not made).
                let keyed = crate::open::key_summary(&a, opts);
                one(opts, &a, out).map(|o| o.max(keys).max(keyed))
            })
        });
        let outcome = outcome?;
        if outcome == Outcome::Unreadable && matches!(opts.format, Format::Json | Format::Jsonl) {
            let mut j = Json::new(out);
            j.obj()?
                .kv_path("file", path)?
                .kv_str("error", &crate::diag::reason(&said))?
                .end_obj()?;
            // A line of its own, as a file's object is (inside a JSON
            // array of several files the array's end closes the line).
            if opts.format == Format::Jsonl || !many {
                writeln!(out)?;
            }
        }
        if outcome == Outcome::Unreadable && opts.format == Format::Csv {
            writeln!(
                out,
                "{},,,error,{}",
                crate::csv::path(path),
                crate::csv::Field(&crate::diag::reason(&said))
            )?;
        }
        worst = worst.max(outcome);
    }
    if opts.format == Format::Json && many {
        out.write_all(b"]\n")?;
    }
    Ok(worst)
}

/// The reason for a bad page, with the computed values a reader needs to
/// judge a checksum mismatch.
struct Reason<'a>(&'a Finding, &'a BadPage, &'a Tablespace<'a>);

impl fmt::Display for Reason<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The page's verdict word first: the one every command gives.
        write!(f, "{}: {}", self.1.judgement.verdict, self.0.kind)?;
        if self.0.kind == FindingKind::Page(PageProblem::Checksum) {
            if self.1.facts.page_type == ibdscope_core::PageType::FIL_PAGE_PAGE_COMPRESSED {
                return f.write_str(" (of the decompressed page)");
            }
            let Some(page) = self.2.page(self.1.facts.page_no) else {
                return Ok(());
            };
            let stored = self.1.facts.stored_checksum;
            match self.2.scheme() {
                checksum::Scheme::Classic => write!(
                    f,
                    ": stored 0x{stored:08x}, crc32 0x{:08x}, innodb 0x{:08x}",
                    checksum::page_crc32(page),
                    checksum::page_innodb_new(page)
                )?,
                checksum::Scheme::Zip => write!(
                    f,
                    ": stored 0x{stored:08x}, crc32 0x{:08x}, adler32 0x{:08x}",
                    checksum::zip_crc32(page, false),
                    checksum::zip_adler32(page)
                )?,
                checksum::Scheme::FullCrc32 => {
                    if let Some((size, _)) = checksum::full_crc32_size(page) {
                        let covered = page.get(..size).unwrap_or(page);
                        let stored = covered.get(size.saturating_sub(4)..).map_or(0, |b| {
                            b.iter().fold(0u32, |acc, &x| acc << 8 | u32::from(x))
                        });
                        write!(
                            f,
                            ": stored 0x{stored:08x}, full_crc32 0x{:08x}",
                            checksum::full_crc32(covered)
                        )?;
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }
}

/// Checks one parsed file.
pub fn one(opts: &Opts, a: &Analysis<'_>, out: &mut dyn Write) -> io::Result<Outcome> {
    let (path, ts) = (a.path(), a.ts());
    // The keyed summary when the caller set it (`open::key_summary`).
    let s = a.summary();
    let (freed, live): (Vec<&BadPage>, Vec<&BadPage>) =
        s.bad.iter().partition(|b| b.freed == Some(true));
    match opts.format {
        Format::Json | Format::Jsonl => {
            let mut j = Json::new(out);
            j.obj()?.kv_path("file", path)?;
            j.kv_num("pages", ts.n_pages())?
                .kv_num("valid", s.valid())?
                .kv_num("empty", s.empty)?;
            j.key("invalid")?;
            bad_list(&mut j, &live, ts)?;
            j.key("freed_invalid")?;
            bad_list(&mut j, &freed, ts)?;
            j.key("unverifiable")?.arr()?;
            for (p, w) in &s.unverifiable {
                j.obj()?
                    .kv_num("page", p.0)?
                    .kv_str("reason", why_sentence(*w))?
                    .end_obj()?;
            }
            j.end_arr()?;
            if s.doublewrite_not_verifying > 0 {
                j.kv_num("doublewrite_not_verifying", s.doublewrite_not_verifying)?;
            }
            j.key("file_findings")?.arr()?;
            for fi in &s.file_findings {
                j.obj()?
                    .key("page")?
                    .opt_num(fi.page.map(|p| u64::from(p.0)))?;
                j.kv_num("offset", fi.file_offset)?
                    .kv_display("reason", &fi.kind)?
                    .end_obj()?;
            }
            j.end_arr()?.key("algorithms")?.obj()?;
            for (name, c) in algorithm_counts(s) {
                j.kv_num(name, c)?;
            }
            j.end_obj()?.end_obj()?;
            if opts.format == Format::Jsonl || opts.files.len() == 1 {
                writeln!(out)?;
            }
        }
        Format::Csv => csv(out, a, s, &live, &freed)?,
        _ => {
            let p = ibdscope::names::path(path);
            for fi in &s.file_findings {
                writeln!(out, "{p}: byte offset {}: {}", fi.file_offset, fi.kind)?;
            }
            for (label, list) in [("", &live), (" (freed page)", &freed)] {
                for b in list.iter() {
                    for fi in &b.findings {
                        writeln!(
                            out,
                            "{p}: page {}{label} at byte offset {}: {}",
                            b.facts.page_no,
                            fi.file_offset,
                            Reason(fi, b, ts)
                        )?;
                    }
                }
            }
            // One line per reason, not one per page (`--format json` and
            // `pages` list every page).
            for w in [Unverifiable::PageCompressed, Unverifiable::Encrypted] {
                let pages: Vec<String> = s
                    .unverifiable
                    .iter()
                    .filter(|(_, x)| *x == w)
                    .map(|(pg, _)| pg.to_string())
                    .collect();
                if pages.is_empty() {
                    continue;
                }
                let shown = if pages.len() > 8 {
                    format!("{} …", pages.get(..8).unwrap_or_default().join(" "))
                } else {
                    pages.join(" ")
                };
                writeln!(
                    out,
                    "{p}: {} not verified: {}: pages {shown}",
                    crate::text::count(pages.len() as u64, "page", "pages"),
                    why_sentence(w)
                )?;
            }
            if s.doublewrite_not_verifying > 0 {
                writeln!(
                    out,
                    "{p}: {} of the doublewrite buffer {} not verify: copies of other pages, \
                     which the server skips (verdict copy); not damage of this file",
                    crate::text::count(u64::from(s.doublewrite_not_verifying), "slot", "slots"),
                    if s.doublewrite_not_verifying == 1 {
                        "does"
                    } else {
                        "do"
                    }
                )?;
            }
            let algos: Vec<String> = algorithm_counts(s)
                .iter()
                .map(|(name, c)| format!("{name} {c}"))
                .collect();
            // A page that verifies but is judged stale is counted as such,
            // not as damaged (it is also among the valid ones).
            let stale = live
                .iter()
                .filter(|b| b.judgement.verdict == ibdscope_core::PageVerdict::Stale)
                .count();
            writeln!(
                out,
                "{p}: {} pages: {} valid ({}), {} empty, {} damaged, {} damaged but freed, {} not verifiable{}",
                ts.n_pages(),
                s.valid().saturating_sub(s.empty),
                if algos.is_empty() { "none".to_string() } else { algos.join(", ") },
                s.empty,
                live.len().saturating_sub(stale),
                freed.len(),
                s.unverifiable.len(),
                if stale > 0 {
                    format!(", {stale} stale (older copies)")
                } else {
                    String::new()
                }
            )?;
        }
    }
    Ok(if s.is_clean() {
        Outcome::Clean
    } else {
        Outcome::Findings
    })
}

/// `check --format csv`: one row per finding (`file,page,offset,kind,
/// reason`): the file's own, each damaged page's (in use, then freed),
/// then the pages that cannot be verified (offset: the page's first byte).
fn csv(
    out: &mut dyn Write,
    a: &Analysis<'_>,
    s: &ibdscope_core::Summary,
    live: &[&BadPage],
    freed: &[&BadPage],
) -> io::Result<()> {
    use crate::csv::{Field, Opt};
    let ts = a.ts();
    let file = crate::csv::path(a.path());
    for fi in &s.file_findings {
        writeln!(
            out,
            "{file},{},{},file,{}",
            Opt(fi.page.map(|p| p.0)),
            fi.file_offset,
            Field(&fi.kind.to_string())
        )?;
    }
    for (word, list) in [("invalid", live), ("freed_invalid", freed)] {
        for b in list {
            for fi in &b.findings {
                writeln!(
                    out,
                    "{file},{},{},{word},{}",
                    b.facts.page_no,
                    fi.file_offset,
                    Field(&Reason(fi, b, ts).to_string())
                )?;
            }
        }
    }
    for (p, w) in &s.unverifiable {
        writeln!(
            out,
            "{file},{p},{},unverifiable,{}",
            ts.file_offset(*p),
            Field(why_sentence(*w))
        )?;
    }
    Ok(())
}

fn bad_list(j: &mut Json<'_>, list: &[&BadPage], ts: &Tablespace<'_>) -> io::Result<()> {
    j.arr()?;
    for b in list {
        let reasons: Vec<String> = b
            .findings
            .iter()
            .map(|fi| Reason(fi, b, ts).to_string())
            .collect();
        j.obj()?.kv_num("page", b.facts.page_no.0)?;
        j.kv_num("offset", b.judgement.file_offset)?;
        j.kv_str("verdict", b.judgement.verdict.word())?;
        j.kv_display("evidence", &b.judgement.evidence)?;
        j.kv_str("reason", &reasons.join("; "))?.end_obj()?;
    }
    j.end_arr()?;
    Ok(())
}
