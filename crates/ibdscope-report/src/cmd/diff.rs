//! `ibdscope diff A B`: two copies of one tablespace, page by page.

use crate::args::{DefOpts, Format, Opts};
use crate::json::Json;
use crate::outcome::Outcome;
use ibdscope::analysis::Analysis;
use ibdscope_core::{IndexId, PageNo, Summary, Tablespace, TypeNames};
use ibdscope_forensics::diff::{Change, Diff, PageDiff};
use std::io::{self, Write};
use std::path::Path;

fn index_word(i: Option<IndexId>) -> String {
    i.map_or_else(|| "-".to_string(), |i| i.to_string())
}

/// LSN in A, LSN in B, first differing byte, bytes differing; `missing`
/// where a value does not apply.
fn cells(c: Change, missing: &str) -> [String; 4] {
    let m = || missing.to_string();
    match c {
        Change::Changed {
            lsn_a,
            lsn_b,
            first_byte,
            bytes,
        } => [
            lsn_a.to_string(),
            lsn_b.to_string(),
            first_byte.to_string(),
            bytes.to_string(),
        ],
        Change::OnlyA { lsn } => [lsn.to_string(), m(), m(), m()],
        Change::OnlyB { lsn } => [m(), lsn.to_string(), m(), m()],
    }
}

/// Runs `diff` on `opts.files[0]` and `opts.files[1]`.
pub fn run(opts: &Opts, out: &mut dyn Write) -> io::Result<Outcome> {
    let (Some(pa), Some(pb)) = (opts.files.first(), opts.files.get(1)) else {
        return Ok(Outcome::Unreadable);
    };
    let open = |p: &Path| match crate::open::file(opts, p, opts.threads) {
        Ok(i) => Some(i),
        Err(e) => {
            crate::diag::say!("ibdscope: {e}");
            None
        }
    };
    let (Some(ia), Some(ib)) = (open(pa), open(pb)) else {
        return Ok(Outcome::Unreadable);
    };
    // With the holes the host found (a sparse file's are never read).
    fn parse<'b>(p: &Path, input: &'b ibdscope::open::Input) -> Option<Tablespace<'b>> {
        match input.tablespace() {
            Ok(ts) => Some(ts),
            Err(e) => {
                crate::diag::say!("ibdscope: {}: {e}", ibdscope::names::path(p));
                None
            }
        }
    }
    let (Some(a), Some(b)) = (parse(pa, &ia), parse(pb, &ib)) else {
        return Ok(Outcome::Unreadable);
    };
    let progress = |done, total| opts.host.progress(ibdscope::host::Unit::Pages, done, total);
    // With --key-file, encrypted copies' types and indexes are read from
    // their decrypted images; the pages are compared as stored.
    let engine = opts.engine();
    let keys = opts.key_file.as_ref();
    let mut diags = Vec::new();
    let da = ibdscope::logical::decrypted(pa, &a, &engine, keys, &mut diags);
    crate::open::say(&std::mem::take(&mut diags));
    let db = ibdscope::logical::decrypted(pb, &b, &engine, keys, &mut diags);
    crate::open::say(&diags);
    let ca = da.as_ref().map(|d| d.tablespace(&a));
    let cb = db.as_ref().map(|d| d.tablespace(&b));
    // Each copy's model: its summary (the page verdicts) folded in its
    // space map's first pass, the map read from the decrypted space.
    let engine = engine.with_progress(&progress);
    fn model<'m>(
        p: &'m Path,
        ts: &Tablespace<'m>,
        content: Option<&Tablespace<'m>>,
        engine: ibdscope_core::Engine<'m>,
    ) -> Analysis<'m> {
        Analysis::new(p, ts, content.unwrap_or(ts), engine, DefOpts::default())
            .with_sink(&crate::open::say_one)
    }
    let ma = model(pa, &a, ca.as_ref(), engine);
    let mb = model(pb, &b, cb.as_ref(), engine);
    let made = if a.page_size() == b.page_size() {
        Diff::with_content(&a, &b, (ma.ts(), ma.map()), (mb.ts(), mb.map()), &engine)
    } else {
        // The copies' page sizes differ: the error, no map built.
        Diff::of(&a, &b, &engine)
    };
    let d = match made {
        Ok(d) => d,
        Err(e) => {
            crate::diag::say!(
                "ibdscope: {} and {}: {e}",
                ibdscope::names::path(pa),
                ibdscope::names::path(pb)
            );
            return Ok(Outcome::Unreadable);
        }
    };
    // Each copy's page verdicts (the one rule every command gives): a
    // page that fails verification is not a "newer" or "older" write.
    let sums = [ma.summary(), mb.summary()];
    let v = Verdicts(&sums);
    match opts.format {
        Format::Json => json(out, pa, pb, &d, &b, v)?,
        Format::Jsonl => jsonl(out, &d, &b, v)?,
        Format::Csv => csv(out, &d, &b, v)?,
        Format::Text | Format::Tsv | Format::Sql => text(out, pa, pb, &d, &a, &b, v)?,
    }
    // Each copy's own findings (shorter than FSP_SIZE, torn tail, page 0),
    // as every command gives them: after the text, on stderr otherwise.
    let mut ends = Vec::new();
    for ((p, ts), s) in [(pa, &a), (pb, &b)].into_iter().zip(&sums) {
        for f in ibdscope_core::summary::file_findings(ts) {
            ends.push(format!(
                "{}: byte offset {}: {}",
                ibdscope::names::path(p),
                f.file_offset,
                f.kind
            ));
        }
        for bp in &s.bad {
            let j = &bp.judgement;
            ends.push(format!(
                "{}: page {} at byte offset {}: {j}",
                ibdscope::names::path(p),
                j.page,
                j.file_offset
            ));
        }
    }
    for e in &ends {
        if opts.format == Format::Text {
            writeln!(out, "{e}")?;
        } else {
            crate::diag::say!("ibdscope: {e}");
        }
    }
    Ok(if d.is_identical() && ends.is_empty() {
        Outcome::Clean
    } else {
        Outcome::Findings
    })
}

/// The two copies' page verdicts.
#[derive(Clone, Copy)]
struct Verdicts<'s>(&'s [&'s Summary; 2]);

impl Verdicts<'_> {
    /// The verdict of page `n` in copy 0 or 1, when it is a finding.
    fn of(self, copy: usize, n: PageNo) -> Option<ibdscope_core::PageJudgement> {
        let s = self.0.get(copy)?;
        s.bad_page(n).map(|b| b.judgement)
    }
    /// The move column: the LSN move, or, when a copy's page fails
    /// verification, its verdict word (the second copy's first).
    fn word(self, c: &PageDiff) -> &'static str {
        self.key(c).name()
    }
    /// What a page's change counts as in the moves and groups: a page
    /// that fails verification in either copy is not a newer or older
    /// write but its verdict.
    fn key(self, c: &PageDiff) -> Moved {
        match (self.of(1, c.page), self.of(0, c.page)) {
            (Some(v), _) | (None, Some(v)) => Moved::Verdict(v.verdict.word()),
            (None, None) => Moved::Lsn(c.lsn_move()),
        }
    }
}

/// A changed page's LSN move, or the verdict word of a copy that fails
/// verification (after the moves when sorted).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Moved {
    Lsn(ibdscope_forensics::diff::Move),
    Verdict(&'static str),
}

impl Moved {
    fn name(self) -> &'static str {
        match self {
            Moved::Lsn(m) => m.name(),
            Moved::Verdict(w) => w,
        }
    }
}

/// `diff --format json`: the figures, the LSN moves, the groups and every
/// page that differs.
fn json(
    out: &mut dyn Write,
    pa: &Path,
    pb: &Path,
    d: &Diff,
    b: &Tablespace<'_>,
    v: Verdicts<'_>,
) -> io::Result<()> {
    let names = b.type_names();
    let mut j = Json::new(out);
    j.obj()?.kv_path("a", pa)?.kv_path("b", pb)?;
    j.kv_num("pages_a", d.pages_a)?
        .kv_num("pages_b", d.pages_b)?
        .kv_num("identical", d.identical)?
        .kv_num("differ", d.changes.len() as u64)?
        .kv_bool("space_ids_differ", d.space_ids_differ)?;
    j.key("moves")?.obj()?;
    for (m, n) in d.moves_by(|c| v.key(c)) {
        j.kv_num(m.name(), n)?;
    }
    j.end_obj()?.key("groups")?.arr()?;
    for g in d.groups_by(|c| v.key(c)) {
        j.obj()?
            .kv_display("page_type", &g.page_type.display(names))?
            .key("index")?
            .opt_num(g.index.map(|i| i.0))?
            .kv_str("move", g.lsn_move.name())?
            .kv_num("pages", g.pages)?
            .end_obj()?;
    }
    j.end_arr()?.key("pages")?.arr()?;
    for c in &d.changes {
        page(&mut j, c, names, v)?;
    }
    j.end_arr()?.end_obj()?;
    writeln!(out)?;
    Ok(())
}

/// `diff --format jsonl`: one object per page that differs, as in the
/// JSON document's `pages`.
fn jsonl(out: &mut dyn Write, d: &Diff, b: &Tablespace<'_>, v: Verdicts<'_>) -> io::Result<()> {
    let names = b.type_names();
    for c in &d.changes {
        page(&mut Json::new(out), c, names, v)?;
        writeln!(out)?;
    }
    Ok(())
}

/// One page that differs: its number, type, index, LSN move (or the
/// verdict word of a copy that does not verify), each copy's verdict and
/// the change.
fn page(j: &mut Json<'_>, c: &PageDiff, names: TypeNames, v: Verdicts<'_>) -> io::Result<()> {
    j.obj()?
        .kv_num("page", c.page.0)?
        .kv_display("page_type", &c.page_type.display(names))?
        .key("index")?
        .opt_num(c.index.map(|i| i.0))?
        .kv_str("move", v.word(c))?;
    for (k, copy) in [("verdict_a", 0), ("verdict_b", 1)] {
        match v.of(copy, c.page) {
            Some(pv) => {
                j.kv_str(k, pv.verdict.word())?;
                j.kv_num(&format!("{k}_offset"), pv.file_offset)?;
            }
            None => {
                j.key(k)?.null()?;
            }
        }
    }
    match c.change {
        Change::Changed {
            lsn_a,
            lsn_b,
            first_byte,
            bytes,
        } => {
            j.kv_num("lsn_a", lsn_a.0)?
                .kv_num("lsn_b", lsn_b.0)?
                .kv_num("first_byte", first_byte)?
                .kv_num("bytes", bytes)?;
        }
        Change::OnlyA { lsn } => {
            j.kv_num("lsn_a", lsn.0)?.key("lsn_b")?.null()?;
        }
        Change::OnlyB { lsn } => {
            j.key("lsn_a")?.null()?.kv_num("lsn_b", lsn.0)?;
        }
    }
    j.end_obj()?;
    Ok(())
}

/// `diff --format csv`: one line per page that differs.
fn csv(out: &mut dyn Write, d: &Diff, b: &Tablespace<'_>, v: Verdicts<'_>) -> io::Result<()> {
    let names = b.type_names();
    writeln!(
        out,
        "page,page_type,index,move,lsn_a,lsn_b,first_byte,bytes"
    )?;
    for c in &d.changes {
        let [la, lb, fb, n] = cells(c.change, "");
        writeln!(
            out,
            "{},{},{},{},{la},{lb},{fb},{n}",
            c.page,
            c.page_type.display(names),
            c.index.map_or(String::new(), |i| i.to_string()),
            v.word(c)
        )?;
    }
    Ok(())
}

/// `diff` as text: the figures, the LSN moves, the groups and every page
/// that differs.
fn text(
    out: &mut dyn Write,
    pa: &Path,
    pb: &Path,
    d: &Diff,
    a: &Tablespace<'_>,
    b: &Tablespace<'_>,
    v: Verdicts<'_>,
) -> io::Result<()> {
    let names = b.type_names();
    writeln!(
        out,
        "{} -> {}: {} and {} pages, {} identical, {} differ",
        ibdscope::names::path(pa),
        ibdscope::names::path(pb),
        d.pages_a,
        d.pages_b,
        d.identical,
        d.changes.len()
    )?;
    if d.space_ids_differ {
        writeln!(
            out,
            "  the space ids differ ({} and {}): these are not copies of one tablespace",
            a.space_id(),
            b.space_id()
        )?;
    }
    if !d.changes.is_empty() {
        let moves: Vec<String> = (d.moves_by(|c| v.key(c)).iter())
            .map(|(m, n)| format!("{n} {}", m.name()))
            .collect();
        writeln!(
            out,
            "  LSN moves (second copy against the first): {}",
            moves.join(", ")
        )?;
        writeln!(out, "  {:>7}  {:<14} {:>10}  lsn", "pages", "type", "index")?;
        for g in d.groups_by(|c| v.key(c)) {
            writeln!(
                out,
                "  {:>7}  {:<14} {:>10}  {}",
                g.pages,
                g.page_type.display(names).to_string(),
                index_word(g.index),
                g.lsn_move.name()
            )?;
        }
        writeln!(
            out,
            "  {:>7}  {:<14} {:>10}  {:<9} {:>14} {:>14} {:>6} {:>6}",
            "page", "type", "index", "lsn", "lsn a", "lsn b", "byte", "bytes"
        )?;
        for c in &d.changes {
            let [la, lb, fb, n] = cells(c.change, "-");
            writeln!(
                out,
                "  {:>7}  {:<14} {:>10}  {:<9} {la:>14} {lb:>14} {fb:>6} {n:>6}",
                c.page,
                c.page_type.display(names).to_string(),
                index_word(c.index),
                v.word(c)
            )?;
        }
    }
    Ok(())
}
