//! `ibdscope records`: the records of an index, one per line, streamed in
//! pieces of [`PIECE_PAGES`] pages made on the engine's threads
//! (`parallel::map_in_order`: a layout buffer per thread, each line built
//! by hand into the piece's buffer) and written in walk order, one write
//! per piece; nothing kept per record.
//!
//! What is walked: by default every index's leaf chain in key order (the
//! B-tree walk of `ibdscope_core::btree`); `--index NAME|ID` one index; `--all-pages`
//! every index page the index's segments own, linked or not, plus freed
//! pages that still carry the index's records, in page order; `--page N`
//! one page. `--deleted` keeps only delete-marked user records and records
//! on the free (garbage) chain; the `chain` column tells which.

use crate::args::{Format, Opts, RecordsOpts};
use crate::json::Json;
use crate::line;
use crate::outcome::Outcome;
use crate::page_views::chain_word;
use ibdscope::analysis::Analysis;
use ibdscope::sources::SourceMap;
use ibdscope_core::extents::{Owner, SpaceProblem};
use ibdscope_core::layout::{PageLayout, RecExtent};
use ibdscope_core::record::{Chain, RecFinding};
use ibdscope_core::{
    Btrees, Finding, FindingKind, IndexId, IndexTree, NoRecords, PageNo, Rec, RecFormat, RecPage,
    RecScratch, Tablespace, Visited,
};
use std::io::{self, Write};
use std::path::Path;

/// Why a page of a walk is there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Source {
    /// On the leaf chain (key order).
    LeafChain,
    /// The leaf chain is broken: in key order from the parents' node
    /// pointers (`ibdscope_schema::leaves`).
    KeyOrder,
    /// Owned by the index's segments, not on the leaf chain (non-leaf
    /// pages, unlinked leaves).
    Owned,
    /// A free page that still holds the index's records.
    Freed,
    /// Named by `--page`.
    Page,
}

impl Source {
    fn word(self) -> &'static str {
        match self {
            Source::LeafChain => "leaf_chain",
            Source::KeyOrder => "key_order",
            Source::Owned => "owned",
            Source::Freed => "freed",
            Source::Page => "page",
        }
    }
}

#[derive(Default)]
struct Totals {
    records: u64,
    deleted: u64,
    garbage: u64,
    pages: u64,
    compressed: u64,
    unreadable: u64,
}

impl Totals {
    fn add(&mut self, o: &Totals) {
        self.records = self.records.saturating_add(o.records);
        self.deleted = self.deleted.saturating_add(o.deleted);
        self.garbage = self.garbage.saturating_add(o.garbage);
        self.pages = self.pages.saturating_add(o.pages);
        self.compressed = self.compressed.saturating_add(o.compressed);
        self.unreadable = self.unreadable.saturating_add(o.unreadable);
    }
}

/// The writing side of a walk: the output, and what the pieces of the
/// walk add up to, in walk order.
struct Walk<'w, 'o> {
    j: Json<'w>,
    format: Format,
    sel: RecordsOpts,
    totals: Totals,
    notes: Vec<String>,
    path: &'o Path,
    /// The verdicts of the pages with findings, by page
    /// ([`ibdscope_core::verdict`]): their word leads their findings.
    verdicts: Vec<ibdscope_core::PageJudgement>,
    /// JSON: a record object is in the `records` array already (the
    /// pieces start each object with its comma).
    json_started: bool,
    /// A carved image's source map that does not fit, in words (the
    /// map's file and line).
    map_findings: Vec<String>,
    /// The source map the records' source offsets come from.
    map_path: Option<std::path::PathBuf>,
}

/// What every thread of a walk reads: the space and how records are
/// shown.
struct Ctx<'a> {
    ts: &'a Tablespace<'a>,
    format: Format,
    /// `--deleted`.
    deleted: bool,
    /// The pages that do not verify (what `check` says), in page order.
    damaged: Vec<PageNo>,
    /// Leave their records out.
    verified_only: bool,
    /// A carved image's source map: each record's source file and byte
    /// offset there (text, CSV, JSON, JSONL).
    map: Option<&'a SourceMap>,
}

/// A thread's buffers, reused for every page it walks.
struct Scratch {
    layout: PageLayout,
    visited: Visited,
    /// The longest output of a piece so far: the next piece's buffer is
    /// made that large at once rather than grown (and copied) by doubling.
    longest: usize,
    /// The text line's first four columns (page, index id, source,
    /// level), the same for every record of a page: made once a page.
    head: Vec<u8>,
    /// The text line's chain, type and flags columns, and what they were
    /// made of (chain, type, info bits).
    mid: Vec<u8>,
    mid_key: Option<(Chain, ibdscope_core::RecType, u8)>,
    /// The records of the page being shown, as its layout's walk kept
    /// them.
    recs: Vec<(Rec, Chain)>,
}

impl Scratch {
    fn new() -> Self {
        Scratch {
            recs: Vec::new(),
            mid: Vec::new(),
            mid_key: None,
            layout: PageLayout::new(),
            visited: Visited::new(),
            head: Vec::new(),
            longest: 0,
        }
    }
}

/// What a run of pages of a walk gives, made on any thread and added to
/// the walk in walk order: the lines (or JSON objects) of its records,
/// its counts, notes and findings.
#[derive(Default)]
struct Piece {
    out: Vec<u8>,
    totals: Totals,
    notes: Vec<String>,
    findings: Vec<(Finding, bool)>,
}

/// Pages per piece: enough lines for one large write, few enough that the
/// pieces waiting to be written stay small.
const PIECE_PAGES: usize = 32;

impl Ctx<'_> {
    /// Page `n` of a walk, reached as `source`; a page that is not an
    /// index page is passed over silently when `quiet`, else noted.
    fn page(&self, s: &mut Scratch, piece: &mut Piece, n: PageNo, source: Source, quiet: bool) {
        // Held for this page only: a space read through a page source
        // (decrypted, decompressed) keeps its memory bounded.
        let held = self.ts.page_ref(n);
        let read = held
            .as_deref()
            .map_or(Err(NoRecords::PastFile), |p| RecPage::read(self.ts, p));
        match read {
            Ok(rp) => {
                self.records(s, piece, &rp, n, source);
                if source == Source::Freed {
                    // Stale records on a free page: shown, not damage to
                    // the table.
                    for f in analyse(self.ts, n, &rp) {
                        piece.findings.push((f, false));
                    }
                }
            }
            Err(NoRecords::NotIndex(_)) if quiet => {}
            Err(e) => skip(piece, n, e),
        }
    }

    /// The records of page `n` into `piece`.
    fn records(
        &self,
        s: &mut Scratch,
        piece: &mut Piece,
        rp: &RecPage<'_>,
        n: PageNo,
        source: Source,
    ) {
        let unverified = self.damaged.binary_search(&n).is_ok();
        if unverified && self.verified_only {
            piece.notes.push(format!(
                "page {n} does not verify: its records are left out (--verified-only)"
            ));
            return;
        }
        let mark = if unverified {
            " (unverified: the page does not verify)"
        } else {
            ""
        };
        piece.totals.pages = piece.totals.pages.saturating_add(1);
        if rp.is_compressed() {
            piece.totals.compressed = piece.totals.compressed.saturating_add(1);
            return;
        }
        // One walk of each chain: the layout places the records and keeps
        // them, in walk order, for the lines.
        let mut kept = std::mem::take(&mut s.recs);
        s.layout.read(rp, &mut s.visited, Some(&mut kept));
        let index = rp.header().index_id();
        let level = rp.header().level();
        let page = rp.bytes();
        // "{:>8} {:>8} {:>10} {:>5} ", the same for every record here.
        let head = &mut s.head;
        head.clear();
        line::num_right(head, u64::from(n.0), 8);
        head.push(b' ');
        line::num_right(head, index.0, 8);
        head.push(b' ');
        line::str_right(head, source.word(), 10);
        head.push(b' ');
        line::num_right(head, u64::from(level), 5);
        head.push(b' ');
        let out = &mut piece.out;
        let t = &mut piece.totals;
        for &(rec, chain) in &kept {
            if chain == Chain::Free && !self.deleted {
                break;
            }
            if !rec.is_user() {
                continue;
            }
            let deleted = rec.header.is_deleted();
            if self.deleted && chain == Chain::User && !deleted {
                continue;
            }
            t.records = t.records.saturating_add(1);
            if chain == Chain::Free {
                t.garbage = t.garbage.saturating_add(1);
            } else if deleted {
                t.deleted = t.deleted.saturating_add(1);
            }
            let ext = s.layout.extent(rp, &rec);
            match self.format {
                Format::Text | Format::Tsv | Format::Sql => {
                    // "{:>8} {:>8} {:>10} {:>5} {:>6} {:>5} {:<7} {:<8} {:<15} {:>7} {fields}{mark}"
                    out.extend_from_slice(&s.head);
                    // "{:>6} {:>5} ": thirteen bytes built on the stack
                    // and copied at once (no call per column).
                    let mut nums = [b' '; 13];
                    let (o, h) = nums.split_at_mut(7);
                    line::right_in(o.get_mut(..6).unwrap_or_default(), u64::from(rec.origin));
                    line::right_in(
                        h.get_mut(..5).unwrap_or_default(),
                        u64::from(rec.header.heap_no),
                    );
                    out.extend_from_slice(&nums);
                    // Chain, type and flags: the same for most records of
                    // a page, made once for each change.
                    let key = (chain, rec.rec_type, rec.header.info_bits);
                    if s.mid_key != Some(key) {
                        s.mid_key = Some(key);
                        let m = &mut s.mid;
                        m.clear();
                        line::str_left(m, chain_word(chain), 7);
                        m.push(b' ');
                        line::str_left(m, rec.rec_type.name(), 8);
                        m.push(b' ');
                        let at = m.len();
                        flags(m, &rec, b",", b"-");
                        line::spaces(m, m.len().saturating_sub(at), 15);
                        m.push(b' ');
                    }
                    out.extend_from_slice(&s.mid);
                    // "{:>7} " of the size, `<=` before an upper bound.
                    let size = u64::from(ext.end.saturating_sub(ext.start));
                    let mut col = [b' '; 8];
                    let digits = line::right_in(col.get_mut(..7).unwrap_or_default(), size);
                    if !ext.exact {
                        let at = 7usize.saturating_sub(digits).saturating_sub(2);
                        if let Some(p) = col.get_mut(at..at.saturating_add(2)) {
                            p.copy_from_slice(b"<=");
                        }
                    }
                    out.extend_from_slice(&col);
                    fields(out, page, &rec, ext);
                    out.extend_from_slice(mark.as_bytes());
                    if let (Some(m), Format::Text) = (self.map, self.format) {
                        out.extend_from_slice(b" @ ");
                        match m
                            .locate(n, u32::from(rec.origin))
                            .map_or((None, None), |(f, at)| (Some(f), at))
                        {
                            (Some(f), at) => {
                                out.extend_from_slice(
                                    ibdscope::names::name(f).to_string().as_bytes(),
                                );
                                out.push(b':');
                                match at {
                                    Some(at) => line::num(out, at),
                                    None => out.push(b'-'),
                                }
                            }
                            (None, _) => out.push(b'-'),
                        }
                    }
                    out.push(b'\n');
                }
                Format::Csv => {
                    // page,index_id,source,level,offset,heap_no,chain,type,flags,n_owned,next,size,exact,fields
                    line::num(out, u64::from(n.0));
                    out.push(b',');
                    line::num(out, index.0);
                    out.push(b',');
                    out.extend_from_slice(source.word().as_bytes());
                    out.push(b',');
                    line::num(out, u64::from(level));
                    out.push(b',');
                    line::num(out, u64::from(rec.origin));
                    out.push(b',');
                    line::num(out, u64::from(rec.header.heap_no));
                    out.push(b',');
                    out.extend_from_slice(chain_word(chain).as_bytes());
                    out.push(b',');
                    out.extend_from_slice(rec.rec_type.name().as_bytes());
                    out.push(b',');
                    flags(out, &rec, b"|", b"");
                    out.push(b',');
                    line::num(out, u64::from(rec.header.n_owned));
                    out.push(b',');
                    let next = rec
                        .header
                        .next_origin(usize::from(rec.origin), rp.logical_size() as usize);
                    if let Some(v) = next {
                        line::num(out, v as u64);
                    }
                    out.push(b',');
                    line::num(out, u64::from(ext.end.saturating_sub(ext.start)));
                    out.push(b',');
                    out.extend_from_slice(if ext.exact { b"true" } else { b"false" });
                    out.push(b',');
                    fields(out, page, &rec, ext);
                    if let Some(m) = self.map {
                        let (file, at) = m
                            .locate(n, u32::from(rec.origin))
                            .map_or((None, None), |(f, at)| (Some(f), at));
                        out.push(b',');
                        if let Some(f) = file {
                            let mut q = String::new();
                            crate::csv::push(&mut q, f);
                            out.extend_from_slice(q.as_bytes());
                        }
                        out.push(b',');
                        if let Some(at) = at {
                            line::num(out, at);
                        }
                    }
                    out.push(b'\n');
                }
                Format::Json | Format::Jsonl => {
                    if self.format == Format::Json {
                        // The array's separator; the walk drops the
                        // first one.
                        out.push(b',');
                    }
                    json_line(out, rp, &rec, chain, ext, n, source, unverified);
                    if let Some(m) = self.map {
                        // The object's end moved past the source.
                        out.pop();
                        let (file, at) = m
                            .locate(n, u32::from(rec.origin))
                            .map_or((None, None), |(f, at)| (Some(f), at));
                        out.extend_from_slice(b",\"source_file\":");
                        match file {
                            Some(f) => {
                                let _ = Json::new(out).str(f);
                            }
                            None => out.extend_from_slice(b"null"),
                        }
                        out.extend_from_slice(b",\"source_offset\":");
                        match at {
                            Some(at) => line::num(out, at),
                            None => out.extend_from_slice(b"null"),
                        }
                        out.push(b'}');
                    }
                    if self.format == Format::Jsonl {
                        out.push(b'\n');
                    }
                }
            }
        }
        s.recs = kept;
    }
}

/// One record as a JSON object, built by hand: what [`json_record`]
/// between `page`, `index_id`, `source`, `level` and `verified` writes
/// through [`Json`] (every key and word is plain ASCII: nothing to escape).
#[allow(clippy::too_many_arguments)]
fn json_line(
    out: &mut Vec<u8>,
    rp: &RecPage<'_>,
    rec: &Rec,
    chain: Chain,
    ext: RecExtent,
    n: PageNo,
    source: Source,
    unverified: bool,
) {
    let h = &rec.header;
    let num = |out: &mut Vec<u8>, key: &[u8], v: u64| {
        out.extend_from_slice(key);
        line::num(out, v);
    };
    let word = |out: &mut Vec<u8>, key: &[u8], w: &str| {
        out.extend_from_slice(key);
        out.push(b'"');
        out.extend_from_slice(w.as_bytes());
        out.push(b'"');
    };
    let flag = |out: &mut Vec<u8>, key: &[u8], b: bool| {
        out.extend_from_slice(key);
        out.extend_from_slice(if b { b"true" } else { b"false" });
    };
    num(out, b"{\"page\":", u64::from(n.0));
    num(out, b",\"index_id\":", rp.header().index_id().0);
    word(out, b",\"source\":", source.word());
    num(out, b",\"level\":", u64::from(rp.header().level()));
    num(out, b",\"offset\":", u64::from(rec.origin));
    num(out, b",\"heap_no\":", u64::from(h.heap_no));
    word(out, b",\"chain\":", chain_word(chain));
    word(out, b",\"type\":", rec.rec_type.name());
    flag(out, b",\"deleted\":", h.is_deleted());
    flag(out, b",\"min_rec\":", h.is_min_rec());
    flag(out, b",\"version\":", h.is_versioned());
    flag(out, b",\"instant\":", h.is_instant());
    num(out, b",\"n_owned\":", u64::from(h.n_owned));
    out.extend_from_slice(b",\"next\":");
    match h.next_origin(usize::from(rec.origin), rp.logical_size() as usize) {
        Some(v) => line::num(out, v as u64),
        None => out.extend_from_slice(b"null"),
    }
    num(out, b",\"start\":", u64::from(ext.start));
    num(out, b",\"end\":", u64::from(ext.end));
    num(
        out,
        b",\"size\":",
        u64::from(ext.end.saturating_sub(ext.start)),
    );
    flag(out, b",\"exact\":", ext.exact);
    let page = rp.bytes();
    let origin = usize::from(rec.origin);
    if ext.exact && h.format == RecFormat::Redundant {
        out.extend_from_slice(b",\"fields\":[");
        for (i, fld) in rec.fields(page).enumerate() {
            if i > 0 {
                out.push(b',');
            }
            if fld.null {
                out.extend_from_slice(b"null");
            } else {
                let a = origin.saturating_add(usize::from(fld.start));
                let b = origin.saturating_add(usize::from(fld.end));
                out.push(b'"');
                line::hex(out, page.get(a..b).unwrap_or(&[]));
                out.push(b'"');
            }
        }
        out.extend_from_slice(b"],\"external\":[");
        let mut first = true;
        for (i, fld) in rec.fields(page).enumerate() {
            if fld.external {
                if !first {
                    out.push(b',');
                }
                line::num(out, i as u64);
                first = false;
            }
        }
        out.push(b']');
    } else {
        out.extend_from_slice(b",\"data\":\"");
        line::hex(out, page.get(origin..usize::from(ext.end)).unwrap_or(&[]));
        out.push(b'"');
    }
    if unverified {
        out.extend_from_slice(b",\"verified\":false");
    }
    out.push(b'}');
}

/// A record's info bits as words joined by `sep`, or `none` when none is
/// set ([`Flags`] without padding).
fn flags(out: &mut Vec<u8>, rec: &Rec, sep: &[u8], none: &[u8]) {
    let h = &rec.header;
    let mut first = true;
    for (on, word) in [
        (h.is_deleted(), &b"deleted"[..]),
        (h.is_min_rec(), b"min_rec"),
        (h.is_versioned(), b"version"),
        (h.is_instant(), b"instant"),
    ] {
        if on {
            if !first {
                out.extend_from_slice(sep);
            }
            out.extend_from_slice(word);
            first = false;
        }
    }
    if first {
        out.extend_from_slice(none);
    }
}

/// A record's bytes: REDUNDANT fields (hex, `NULL`, `+ext` for a field
/// stored off-page) separated by a space, or the COMPACT data span as one
/// hex string.
fn fields(out: &mut Vec<u8>, page: &[u8], rec: &Rec, ext: RecExtent) {
    let origin = usize::from(rec.origin);
    if ext.exact && rec.header.format == RecFormat::Redundant {
        for (i, fld) in rec.fields(page).enumerate() {
            if i > 0 {
                out.push(b' ');
            }
            if fld.null {
                out.extend_from_slice(b"NULL");
                continue;
            }
            let a = origin.saturating_add(usize::from(fld.start));
            let b = origin.saturating_add(usize::from(fld.end));
            line::hex(out, page.get(a..b).unwrap_or(&[]));
            if fld.external {
                out.extend_from_slice(b"+ext");
            }
        }
        return;
    }
    let end = usize::from(ext.end);
    line::hex(out, page.get(origin..end).unwrap_or(&[]));
}

/// A page that is not walked: a note, shown with the findings.
fn skip(piece: &mut Piece, n: PageNo, why: NoRecords) {
    let what = match why {
        NoRecords::PastFile => {
            return;
        }
        NoRecords::NotIndex(t) => format!("page {n} is a type {} page, not an index page", t.0),
        NoRecords::Unreadable(_) => {
            piece.totals.unreadable = piece.totals.unreadable.saturating_add(1);
            format!("page {n} is encrypted or page-compressed: its records are not readable")
        }
    };
    piece.notes.push(what);
}

impl Walk<'_, '_> {
    /// Adds a piece: its lines written at once, its counts, notes and
    /// findings after the ones before it.
    fn add(&mut self, piece: Piece, findings: &mut Vec<(Finding, bool)>) -> io::Result<()> {
        let mut out = &piece.out[..];
        if self.format == Format::Json && !out.is_empty() && !self.json_started {
            // The first record of the array: no comma before it.
            out = out.get(1..).unwrap_or(&[]);
            self.json_started = true;
        }
        if !out.is_empty() {
            self.j.writer().write_all(out)?;
        }
        self.totals.add(&piece.totals);
        self.notes.extend(piece.notes);
        findings.extend(piece.findings);
        Ok(())
    }

    /// Walks `steps` (pages and why they are walked) in order: the pieces
    /// made on the engine's threads, written in walk order. A page that is
    /// not an index page is passed over silently when `quiet`.
    fn steps(
        &mut self,
        a: &Analysis<'_>,
        ctx: &Ctx<'_>,
        steps: &[(PageNo, Source)],
        quiet: bool,
        findings: &mut Vec<(Finding, bool)>,
    ) -> io::Result<()> {
        let n = u32::try_from(steps.len().div_ceil(PIECE_PAGES)).unwrap_or(u32::MAX);
        let total = steps.len() as u64;
        let mut done = 0u64;
        ibdscope_core::parallel::map_in_order(
            a.engine(),
            n,
            Scratch::new,
            |s, k| {
                let mut piece = Piece {
                    out: Vec::with_capacity(s.longest),
                    ..Piece::default()
                };
                let from = (k as usize).saturating_mul(PIECE_PAGES);
                let to = from.saturating_add(PIECE_PAGES).min(steps.len());
                for &(p, source) in steps.get(from..to).unwrap_or(&[]) {
                    ctx.page(s, &mut piece, p, source, quiet);
                }
                s.longest = s.longest.max(piece.out.len());
                piece
            },
            |piece| {
                self.add(piece, findings)?;
                done = done.saturating_add(PIECE_PAGES as u64).min(total);
                a.engine().progress(done, total);
                Ok(())
            },
        )
    }
}

/// Runs `records`.
pub fn run(
    opts: &Opts,
    a: &Analysis<'_>,
    sel: RecordsOpts,
    out: &mut dyn Write,
) -> io::Result<Outcome> {
    let (path, ts) = (a.path(), a.ts());
    let mut sel = sel;
    if let Some(name) = sel.index_name.take() {
        match index_named(a, &name) {
            Some(id) => sel.index = Some(id),
            None => return Ok(Outcome::Unreadable),
        }
    }
    // A carved image's source map: a map that does not fit is a finding,
    // and the records come without source offsets.
    let (sources, map_findings) = crate::source_map::read(a, sel.sources.as_deref());
    let map = (sources.as_ref())
        .and_then(|s| s.map())
        .filter(|_| !matches!(opts.format, Format::Tsv | Format::Sql));
    let space_map = a.map();
    // The run's B-trees with their leaf chains (built once, shared with
    // every other reader of the `Analysis`).
    let trees = a.trees_with_leaf_chains();
    if !index_known(path, trees, sel.index) {
        return Ok(Outcome::Unreadable);
    }
    let no_index_note = (sel.page.is_none()
        && trees.indexes.is_empty()
        && !space_map.unreadable.is_empty())
    .then(|| {
        "no index is known: the pages that describe the segments are encrypted or \
             page-compressed"
            .to_string()
    });
    let mut w = Walk {
        j: Json::new(out),
        format: opts.format,
        sel,
        totals: Totals::default(),
        notes: no_index_note.into_iter().collect(),
        path,
        verdicts: a.damaged_pages().iter().map(|b| b.judgement).collect(),
        json_started: false,
        map_findings,
        map_path: map.and(sources.as_ref()).map(|s| s.path.clone()),
    };
    let ctx = Ctx {
        ts,
        format: opts.format,
        deleted: w.sel.deleted,
        damaged: a.damaged_pages().iter().map(|b| b.facts.page_no).collect(),
        verified_only: opts.verified_only,
        map,
    };
    // (finding, counts toward the exit code)
    let mut findings: Vec<(Finding, bool)> = Vec::new();
    let mut past_end: Option<u32> = None;
    header(&mut w, ts)?;
    if let Some(n) = w.sel.page {
        let n = PageNo(n);
        let mut piece = Piece::default();
        match RecPage::of(ts, n) {
            Ok(rp) => {
                ctx.records(&mut Scratch::new(), &mut piece, &rp, n, Source::Page);
                for f in analyse(ts, n, &rp) {
                    piece.findings.push((f, true));
                }
            }
            Err(NoRecords::PastFile) => past_end = Some(n.0),
            Err(e) => skip(&mut piece, n, e),
        }
        w.add(piece, &mut findings)?;
    } else {
        walk_indexes(&mut w, &ctx, a, trees, &mut findings)?;
    }
    // The file's findings and the pages walked that do not verify come
    // first, as in every command.
    let mut all: Vec<(Finding, bool)> = a.file_findings().iter().map(|f| (*f, true)).collect();
    // Every page with findings is said (a page the walk cannot reach,
    // zeroed or overwritten, is what the user needs to know first).
    for b in a.damaged_pages() {
        all.extend(b.findings.iter().map(|f| (*f, true)));
    }
    all.extend(findings);
    let findings = all;
    let bad = findings.iter().any(|(_, counted)| *counted)
        || past_end.is_some()
        || !w.map_findings.is_empty();
    footer(&mut w, &findings, past_end, ts)?;
    Ok(if bad {
        Outcome::Findings
    } else {
        Outcome::Clean
    })
}

/// The id of the index `--index NAME` names: the one in its root page, the
/// root the table definition gives; says on stderr why there is none.
fn index_named(a: &Analysis<'_>, name: &str) -> Option<u64> {
    let p = ibdscope::names::path(a.path());
    let shown = ibdscope::names::name(name);
    let def = match a.definition() {
        Ok(d) => d,
        Err(e) => {
            crate::diag::say!(
                "ibdscope: {p}: --index {shown}: index names need the table definition, and {}",
                ibdscope::names::name(&e.to_string())
            );
            return None;
        }
    };
    let Some(ix) = def.table.index_by_name_or_id(name) else {
        let known: Vec<&str> = def.table.indexes.iter().map(|i| i.name.as_str()).collect();
        crate::diag::say!(
            "ibdscope: {p}: no index {shown} in the definition (indexes: {})",
            ibdscope::names::name(&known.join(", "))
        );
        return None;
    };
    let id = ix
        .root
        .and_then(|r| RecPage::of(a.ts(), PageNo(r)).ok())
        .map(|rp| rp.header().index_id().0);
    if id.is_none() {
        crate::diag::say!("ibdscope: {p}: index {shown} has no readable root page in this file");
    }
    id
}

/// Whether `--index ID` (if given) is an index of the file; says on stderr
/// which there are when it is not.
fn index_known(path: &Path, trees: &Btrees, index: Option<u64>) -> bool {
    let Some(id) = index else { return true };
    if trees.index(IndexId(id)).is_none() {
        let known: Vec<String> = trees
            .indexes
            .iter()
            .map(|t| t.index_id.to_string())
            .collect();
        crate::diag::say!(
            "ibdscope: {}: no index {id} in this file (indexes: {})",
            ibdscope::names::path(path),
            if known.is_empty() {
                "none".to_string()
            } else {
                known.join(", ")
            }
        );
        return false;
    }
    true
}

/// Every wanted index's leaf chain, or with `--all-pages` every page its
/// segments own and the freed pages with its records; then the B-tree
/// findings of the wanted indexes.
fn walk_indexes(
    w: &mut Walk<'_, '_>,
    ctx: &Ctx<'_>,
    a: &Analysis<'_>,
    trees: &Btrees,
    findings: &mut Vec<(Finding, bool)>,
) -> io::Result<()> {
    let (ts, index) = (a.ts(), w.sel.index);
    let wanted = |id: IndexId| index.is_none_or(|x| x == id.0);
    // --all-pages: pages on a leaf chain met so far, one bit per page.
    let mut on_chain = Vec::new();
    if w.sel.all_pages {
        on_chain = vec![0u64; ts.n_pages().div_ceil(64) as usize];
    }
    for t in trees.indexes.iter().filter(|t| wanted(t.index_id)) {
        if !w.sel.all_pages {
            let broken = t.leaves_reached() < t.leaf_pages
                || trees.findings.iter().any(|f| {
                    matches!(f.kind, FindingKind::Btree(p) if p.index() == t.index_id
                        && !matches!(p, ibdscope_core::BtreeProblem::Records { .. }))
                });
            if let Some(leaves) = broken.then(|| key_order(a, t)).flatten() {
                // The chain does not reach every leaf: the leaves in key
                // order, as `rows` reads them.
                let steps: Vec<_> = leaves.iter().map(|&n| (n, Source::KeyOrder)).collect();
                w.steps(a, ctx, &steps, false, findings)?;
                w.notes.push(format!(
                    "index {}: the leaf chain is broken: {} leaves read in key order from their \
                     parents' node pointers (source key_order; `rows` names the lost ones)",
                    t.index_id,
                    leaves.len()
                ));
                continue;
            }
            let steps: Vec<_> = (t.leaf_chain.iter())
                .map(|&n| (n, Source::LeafChain))
                .collect();
            w.steps(a, ctx, &steps, false, findings)?;
            continue;
        }
        for &n in &t.leaf_chain {
            if let Some(bits) = on_chain.get_mut((n.0 / 64) as usize) {
                *bits |= 1u64 << (n.0 % 64);
            }
        }
        walk_owned(w, ctx, a, t, &on_chain, findings)?;
        // Pages of the same index found once only (a page owned twice
        // is the space map's finding).
    }
    for f in &trees.findings {
        if let FindingKind::Btree(p) = f.kind {
            if wanted(p.index()) {
                findings.push((*f, true));
            }
        }
    }
    Ok(())
}

/// `--all-pages`, one index: the pages its segments own (one pass over
/// the space map's owners) and freed pages with its records (the space
/// map's findings), merged in page order; `on_chain` marks the pages met on
/// a leaf chain.
fn walk_owned(
    w: &mut Walk<'_, '_>,
    ctx: &Ctx<'_>,
    a: &Analysis<'_>,
    t: &IndexTree,
    on_chain: &[u64],
    findings: &mut Vec<(Finding, bool)>,
) -> io::Result<()> {
    let (ts, map) = (a.ts(), a.map());
    let chained = |bits: &[u64], p: u32| {
        bits.get((p / 64) as usize)
            .is_some_and(|w| w & (1u64 << (p % 64)) != 0)
    };
    let mut freed: Vec<u32> = map
        .findings
        .iter()
        .filter_map(|f| match (f.kind, f.page) {
            (FindingKind::Space(SpaceProblem::FreePageWithData { index, .. }), Some(p))
                if index == t.index_id =>
            {
                Some(p.0)
            }
            _ => None,
        })
        .collect();
    freed.sort_unstable();
    let mut freed = freed.into_iter().peekable();
    // The free extents stepped over at once (a sparse file's holes).
    let mut owned = map
        .claimed(ts)
        .filter_map(|(p, o)| match o {
            Owner::Segment {
                index: Some(id), ..
            } if id == t.index_id => Some(p),
            _ => None,
        })
        .peekable();
    let mut steps = Vec::new();
    loop {
        let (p, source) = match (owned.peek().copied(), freed.peek().copied()) {
            (Some(a), Some(b)) if b < a => (freed.next().unwrap_or(b), Source::Freed),
            (Some(a), _) => (owned.next().unwrap_or(a), Source::Owned),
            (None, Some(b)) => (freed.next().unwrap_or(b), Source::Freed),
            (None, None) => break,
        };
        let source = match source {
            Source::Owned if chained(on_chain, p) => Source::LeafChain,
            s => s,
        };
        steps.push((PageNo(p), source));
    }
    w.steps(a, ctx, &steps, true, findings)
}

/// The readable leaves of index `t` in key order (`ibdscope_schema::leaves`),
/// when the table definition gives the index's record layout.
fn key_order(a: &Analysis<'_>, t: &IndexTree) -> Option<Vec<PageNo>> {
    let def = a.definition().ok()?;
    let mut table = def.table.clone();
    let instant = ibdscope_schema::instant::apply(a.ts(), &mut table);
    let ix = table.indexes.iter().find(|i| i.root == Some(t.root.0))?;
    let rp = RecPage::of(a.ts(), t.root).ok()?;
    let layout = crate::decode::index_layout(a.path(), &table, ix, &instant, &rp)?;
    let order = ibdscope_schema::leaves::leaves_in_key_order(
        a.ts(),
        a.engine(),
        t.root,
        t.index_id,
        &layout,
    );
    Some(
        (order.slots.iter())
            .filter_map(|s| match *s {
                ibdscope_schema::leaves::Slot::Leaf { page, .. } => Some(page),
                ibdscope_schema::leaves::Slot::Lost { .. } => None,
            })
            .collect(),
    )
}

/// Record findings of one page, as file findings.
fn analyse(ts: &Tablespace<'_>, n: PageNo, rp: &RecPage<'_>) -> Vec<Finding> {
    let mut out: Vec<RecFinding> = Vec::new();
    rp.analyse(&mut RecScratch::default(), &mut out);
    let base = ts.file_offset(n);
    out.into_iter()
        .map(|f| {
            Finding::new(
                Some(n),
                base.saturating_add(u64::from(f.page_offset)),
                FindingKind::Btree(ibdscope_core::BtreeProblem::Records {
                    index: rp.header().index_id(),
                    problem: f.problem,
                }),
            )
        })
        .collect()
}

/// What the COMPACT data column means.
const COMPACT_NOTE: &str = "COMPACT records: the column layout is not read (no schema), so \
    each record's data runs from its origin to the next record's 5 header bytes, an upper \
    bound that can include the next record's NULL bitmap and field lengths";

fn header(w: &mut Walk<'_, '_>, ts: &Tablespace<'_>) -> io::Result<()> {
    let compact = (0..ts.n_pages().min(64))
        .any(|p| RecPage::of(ts, PageNo(p)).is_ok_and(|rp| rp.format() == RecFormat::Compact));
    match w.format {
        Format::Text | Format::Tsv | Format::Sql => {
            if compact {
                writeln!(w.j.writer(), "# {COMPACT_NOTE}")?;
            }
            writeln!(
                w.j.writer(),
                "{:>8} {:>8} {:>10} {:>5} {:>6} {:>5} {:<7} {:<8} {:<15} {:>7} fields{}",
                "page",
                "index",
                "source",
                "level",
                "offset",
                "heap",
                "chain",
                "type",
                "flags",
                "size",
                if w.map_path.is_some() && w.format == Format::Text {
                    " @ source:offset"
                } else {
                    ""
                }
            )
        }
        Format::Csv => writeln!(
            w.j.writer(),
            "page,index_id,source,level,offset,heap_no,chain,type,flags,n_owned,next,size,exact,fields{}",
            if w.map_path.is_some() {
                ",source_file,source_offset"
            } else {
                ""
            }
        ),
        Format::Json => {
            let path = ibdscope::names::path(w.path).to_string();
            w.j.obj()?.kv_str("file", &path)?;
            if let Some(m) = &w.map_path {
                w.j.kv_path("source_map", m)?;
            }
            if compact {
                w.j.kv_str("note", COMPACT_NOTE)?;
            }
            w.j.key("records")?.arr()?;
            Ok(())
        }
        Format::Jsonl => Ok(()),
    }
}

/// A finding's reason, led by its page's verdict word when it is about
/// the page's own bytes.
struct Why<'f>(&'f Finding, Option<ibdscope_core::PageVerdict>);

impl std::fmt::Display for Why<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.1 {
            Some(v) => write!(f, "{v}: {}", self.0.kind),
            None => write!(f, "{}", self.0.kind),
        }
    }
}

/// The verdict word of `f`'s page, when `f` is about the page's own bytes.
fn verdict_of(
    verdicts: &[ibdscope_core::PageJudgement],
    f: &Finding,
) -> Option<ibdscope_core::PageVerdict> {
    if !matches!(f.kind, ibdscope_core::FindingKind::Page(_)) {
        return None;
    }
    let p = f.page?;
    let k = verdicts.binary_search_by_key(&p, |v| v.page).ok()?;
    verdicts.get(k).map(|v| v.verdict)
}

fn footer(
    w: &mut Walk<'_, '_>,
    findings: &[(Finding, bool)],
    past_end: Option<u32>,
    ts: &Tablespace<'_>,
) -> io::Result<()> {
    let path = ibdscope::names::path(w.path).to_string();
    let past = past_end.map(|n| {
        format!(
            "page {n} is past the end of the file ({} whole pages)",
            ts.n_pages()
        )
    });
    let t = &w.totals;
    let summary = format!(
        "{} records on {} pages ({} delete-marked, {} garbage); {} compressed pages not shown, {} unreadable",
        t.records, t.pages, t.deleted, t.garbage, t.compressed, t.unreadable
    );
    match w.format {
        Format::Text | Format::Tsv | Format::Sql => {
            let o = w.j.writer();
            for (f, counted) in findings {
                let label = if *counted { "" } else { " (freed page)" };
                let p = f
                    .page
                    .map_or(String::new(), |p| format!("page {p}{label} at "));
                let why = Why(f, verdict_of(&w.verdicts, f));
                writeln!(o, "{path}: {p}byte offset {}: {why}", f.file_offset)?;
            }
            for f in &w.map_findings {
                writeln!(o, "{f}")?;
            }
            for n in &w.notes {
                writeln!(o, "# {n}")?;
            }
            if let Some(p) = &past {
                writeln!(o, "{path}: {p}")?;
            }
            writeln!(o, "# {path}: {summary}")?;
        }
        Format::Csv => {
            for (f, _) in findings {
                let why = Why(f, verdict_of(&w.verdicts, f));
                match f.page {
                    Some(p) => {
                        crate::diag::say!(
                            "{path}: page {p} at byte offset {}: {why}",
                            f.file_offset
                        )
                    }
                    None => crate::diag::say!("{path}: byte offset {}: {why}", f.file_offset),
                }
            }
            if let Some(p) = &past {
                crate::diag::say!("{path}: {p}");
            }
            for f in &w.map_findings {
                crate::diag::say!("{f}");
            }
        }
        Format::Json | Format::Jsonl => {
            let jsonl = w.format == Format::Jsonl;
            if !jsonl {
                w.j.end_arr()?;
                w.j.key("summary")?.obj()?;
                w.j.kv_num("records", t.records)?
                    .kv_num("delete_marked", t.deleted)?
                    .kv_num("garbage", t.garbage)?;
                w.j.kv_num("pages", t.pages)?
                    .kv_num("compressed_pages", t.compressed)?
                    .kv_num("unreadable_pages", t.unreadable)?
                    .end_obj()?;
                w.j.key("notes")?.arr()?;
                for n in &w.notes {
                    w.j.str(n)?;
                }
                w.j.end_arr()?.key("findings")?.arr()?;
            }
            for (f, counted) in findings {
                if jsonl {
                    w.j.obj()?.key("finding")?;
                }
                w.j.obj()?
                    .key("page")?
                    .opt_num(f.page.map(|p| u64::from(p.0)))?;
                let v = verdict_of(&w.verdicts, f);
                w.j.kv_num("offset", f.file_offset)?
                    .kv_bool("freed_page", !counted)?
                    .kv_display("reason", &Why(f, v))?;
                if let Some(v) = v {
                    w.j.kv_str("verdict", v.word())?;
                }
                w.j.end_obj()?;
                if jsonl {
                    w.j.end_obj()?;
                    w.j.writer().write_all(b"\n")?;
                }
            }
            for f in &w.map_findings {
                if jsonl {
                    w.j.obj()?.key("finding")?;
                }
                w.j.obj()?.kv_str("source_map", f)?.end_obj()?;
                if jsonl {
                    w.j.end_obj()?;
                    w.j.writer().write_all(b"\n")?;
                }
            }
            if let (Some(n), Some(p)) = (past_end, &past) {
                if jsonl {
                    w.j.obj()?.key("finding")?;
                }
                w.j.obj()?
                    .kv_num("page", n)?
                    .kv_num("offset", ts.file_offset(PageNo(n)))?
                    .kv_bool("freed_page", false)?
                    .kv_str("reason", p)?
                    .end_obj()?;
                if jsonl {
                    w.j.end_obj()?;
                    w.j.writer().write_all(b"\n")?;
                }
            }
            if !jsonl {
                w.j.end_arr()?.end_obj()?;
                w.j.writer().write_all(b"\n")?;
            }
        }
    }
    Ok(())
}
