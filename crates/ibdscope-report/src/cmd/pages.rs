//! `ibdscope pages`: one row per page, streamed (nothing kept per page;
//! each shard's rows formatted on the engine's threads, written in page
//! order):
//! its FIL header and checksum, and for a B-tree page its index, level,
//! records and fill from its INDEX header.

use crate::args::{Format, Opts};
use crate::json::Json;
use crate::outcome::Outcome;
use crate::page_views::{KeyVersions, Status};
use ibdscope::analysis::{Analysis, SDI_INDEX_ID};
use ibdscope_core::checksum::Verdict;
use ibdscope_core::index::IndexHeader;
use ibdscope_core::summary::Listed;
use ibdscope_core::{IndexId, PageFacts, PageNo, Tablespace};
use std::fmt;
use std::io::{self, Write};

/// An INDEX page's header figures (innodb_ruby's
/// `space-index-pages-summary`), read from the page as it streams by.
#[derive(Clone, Copy)]
struct IndexCols {
    /// PAGE_INDEX_ID.
    id: IndexId,
    /// PAGE_LEVEL (0: a leaf).
    level: u16,
    /// PAGE_N_RECS: user records, delete-marked ones included.
    records: u16,
    /// Used / usable bytes from the header (what `extents` and `fill` draw).
    fill: f32,
}

impl IndexCols {
    /// The figures of a B-tree page (INDEX, RTREE, SDI) whose header can be
    /// read: not of an encrypted or page-compressed one (a MariaDB page
    /// with a key version verifies as stored under full_crc32, but its
    /// header is ciphertext).
    fn of(ts: &Tablespace<'_>, f: &PageFacts, keys: KeyVersions) -> Option<Self> {
        if matches!(f.verdict, Verdict::Unverifiable(_)) || !f.page_type.is_index(ts.type_names()) {
            return None;
        }
        if keys.of(ts, f.page_no).is_some_and(|v| v != 0) {
            return None;
        }
        // Held, not kept: a space read through a page source (a keyring
        // space, decrypted) keeps what `page` transforms.
        let page = ts.page_ref(f.page_no)?;
        let h = IndexHeader::new(&page)?;
        let format = ts.format();
        Some(IndexCols {
            id: h.index_id(),
            level: h.level(),
            records: h.n_recs(),
            fill: h.usage(format.logical_size, format.is_zip()).fill(),
        })
    }
}

/// What a row shows of a page beyond its FIL header fields: its checksum
/// status, its index figures, its key version.
struct Cols {
    status: Status,
    ix: Option<IndexCols>,
    /// A MariaDB encrypted space's key version ([`KeyVersions::of`]).
    key: Option<u32>,
}

impl Cols {
    /// Read from the page (the listing's second pass).
    fn read(ts: &Tablespace<'_>, f: &PageFacts, keys: KeyVersions) -> Cols {
        Cols {
            status: Status::of(ts, f),
            ix: IndexCols::of(ts, f, keys),
            key: keys.of(ts, f.page_no),
        }
    }

    /// As the summary's pass kept them ([`ibdscope_core::Summary::listed`]; a space
    /// without key versions).
    fn listed(l: &Listed) -> Cols {
        Cols {
            status: Status(l.facts, l.problems),
            ix: l.index.map(|(id, level, records, fill)| IndexCols {
                id,
                level,
                records,
                fill,
            }),
            key: None,
        }
    }
}

/// A key version cell (`-`: none).
struct KeyCell(Option<u32>);

impl fmt::Display for KeyCell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            None => f.pad("-"),
            Some(v) => fmt::Display::fmt(&v, f),
        }
    }
}

/// The names of the indexes the pages can name, looked up once before
/// the pages are written (on any thread): an index id's name as
/// [`Analysis::index_name`] gives it, for every id it can name.
struct IndexNames {
    /// (id, name; the name as text shows it).
    names: Vec<(IndexId, String, String)>,
}

impl IndexNames {
    fn of(a: &Analysis<'_>) -> IndexNames {
        // The ids `index_name` can name: the SDI index; in the system
        // tablespace the dictionary's indexes; the definition's indexes by
        // id, and when one has no id, the space map's indexes (named by
        // their root).
        let mut ids = vec![IndexId(SDI_INDEX_ID)];
        let ts = a.ts();
        if ts.space_id().0 == 0 {
            if let Ok(d) = ibdscope_forensics::dict::Dictionary::read(ts) {
                ids.extend(d.index_names(0).into_iter().map(|(id, _)| IndexId(id)));
            }
        }
        if let Ok(def) = a.definition() {
            ids.extend(def.table.indexes.iter().filter_map(|ix| ix.id.map(IndexId)));
            if def.table.indexes.iter().any(|ix| ix.id.is_none()) {
                ids.extend(a.map().indexes.iter().map(|i| i.index_id));
            }
        }
        ids.sort_unstable();
        ids.dedup();
        let names = ids
            .into_iter()
            .filter_map(|id| {
                let n = a.index_name(id)?;
                Some((id, n.to_string(), ibdscope::names::name(n).to_string()))
            })
            .collect();
        IndexNames { names }
    }

    /// Index `id`'s name.
    fn get(&self, id: IndexId) -> Option<&str> {
        let k = self.names.binary_search_by_key(&id, |n| n.0).ok()?;
        self.names.get(k).map(|n| n.1.as_str())
    }

    /// Index `id`'s name as text shows it, `-` for none.
    fn shown(&self, id: IndexId) -> &str {
        let k = self.names.binary_search_by_key(&id, |n| n.0).ok();
        k.and_then(|k| self.names.get(k))
            .map_or("-", |n| n.2.as_str())
    }
}

/// What the rows of every thread read.
struct Rows<'a> {
    ts: &'a Tablespace<'a>,
    format: Format,
    summary: &'a ibdscope_core::Summary,
    keys: KeyVersions,
    names: IndexNames,
    /// The text name column's width.
    width: usize,
    /// Rows that stand for several pages (a hole of a sparse file in free
    /// extents): (first page, pages), in page order.
    runs: Vec<(u32, u32)>,
}

/// What the rows of a run of pages give, made on any thread and written
/// in page order.
#[derive(Default)]
struct Piece {
    out: Vec<u8>,
    /// A page verdict is a finding.
    bad: bool,
    /// The last page: the pages after it are not listed.
    ended: bool,
}

impl Rows<'_> {
    /// How many pages the row of page `n` stands for.
    fn run(&self, n: u32) -> u32 {
        match self.runs.binary_search_by_key(&n, |r| r.0) {
            Ok(k) => self.runs.get(k).map_or(1, |r| r.1),
            Err(_) => 1,
        }
    }

    /// The rows of pages `first..end`, `first` the first page of a row.
    fn piece(&self, judge: &mut ibdscope_core::summary::Judge, first: u32, end: u32) -> Piece {
        let mut piece = Piece::default();
        let mut n = first;
        while n < end {
            let run = self.run(n);
            // The checksum the summary's pass computed is not computed
            // again (`Summary::facts_of`).
            let Some(page) = self.ts.page_ref(PageNo(n)) else {
                piece.ended = true;
                break;
            };
            let f = self.summary.facts_of(self.ts, &page, PageNo(n));
            drop(page);
            let f = judge.judge(self.ts, f).0;
            // Writing to a `Vec` does not fail.
            let _ = self.rows(&mut piece, f, run);
            n = n.saturating_add(run);
        }
        piece
    }

    /// The rows of pages `first..end` from what the summary's pass kept
    /// of each ([`ibdscope_core::Summary::listed`]): no page read.
    fn listed_piece(&self, first: u32, end: u32) -> Piece {
        let mut piece = Piece::default();
        for n in first..end {
            let Some(l) = self.summary.listed(self.ts, PageNo(n)) else {
                piece.ended = true;
                break;
            };
            let v = self.summary.verdict(self.ts, &l.facts);
            piece.bad |= v.verdict.is_finding();
            // Writing to a `Vec` does not fail.
            let _ = self.row(&mut piece.out, &l.facts, &Cols::listed(&l), &v);
        }
        piece
    }

    /// The row of one page in the output's format.
    fn row(
        &self,
        out: &mut Vec<u8>,
        f: &PageFacts,
        c: &Cols,
        v: &ibdscope_core::PageJudgement,
    ) -> io::Result<()> {
        match self.format {
            Format::Text | Format::Tsv | Format::Sql => self.text_row(out, f, c, v),
            Format::Csv => self.csv_row(out, f, c, v),
            Format::Json => {
                // The array's separator; the writer drops the first.
                out.push(b',');
                self.json_row(&mut Json::new(out), f, c, v)
            }
            _ => {
                self.json_row(&mut Json::new(out), f, c, v)?;
                out.push(b'\n');
                Ok(())
            }
        }
    }

    /// The row of page `f` standing for `run` pages: in text one row and
    /// a line for the pages after it, in the other formats a row each.
    fn rows(&self, piece: &mut Piece, f: PageFacts, run: u32) -> io::Result<()> {
        let ts = self.ts;
        let out = &mut piece.out;
        let mut note = |f: &PageFacts| {
            let v = self.summary.verdict(ts, f);
            piece.bad |= v.verdict.is_finding();
            v
        };
        if matches!(self.format, Format::Text | Format::Tsv | Format::Sql) {
            let v = note(&f);
            self.text_row(out, &f, &Cols::read(ts, &f, self.keys), &v)?;
            if run > 1 {
                writeln!(
                    out,
                    "{:>8}  ... and the next {}, to page {}, alike: all zeros, not stored (a hole of the file), in free extents",
                    "",
                    crate::text::count(run.saturating_sub(1), "page", "pages"),
                    f.page_no.0.saturating_add(run.saturating_sub(1))
                )?;
            }
            return Ok(());
        }
        // Every page of the run.
        let every = (0..run).filter_map(|k| {
            if k == 0 {
                return Some(f);
            }
            ts.facts(PageNo(f.page_no.0.saturating_add(k)))
        });
        for f in every {
            let v = note(&f);
            self.row(out, &f, &Cols::read(ts, &f, self.keys), &v)?;
        }
        Ok(())
    }

    /// The text row, built by hand (`line.rs`): what the formatter
    /// spelling in each comment writes, without its per-argument cost.
    fn text_row(
        &self,
        out: &mut Vec<u8>,
        f: &PageFacts,
        c: &Cols,
        v: &ibdscope_core::PageJudgement,
    ) -> io::Result<()> {
        use crate::line::{num_right, spaces, str_left, str_right, tenths_right};
        let (ts, keys, w) = (self.ts, self.keys, self.width);
        let ix = c.ix;
        // "{:>8}  {:<16}  {:>8}  {:>8}  {:>16}  {:>10}  {:>10}  {:<w$}  "
        num_right(out, u64::from(f.page_no.0), 8);
        out.extend_from_slice(b"  ");
        match f.page_type.name(ts.type_names()) {
            Some(n) => str_left(out, n, 16),
            None => write!(out, "{:<16}", f.page_type.display(ts.type_names()))?,
        }
        for link in [f.prev, f.next] {
            out.extend_from_slice(b"  ");
            match link.is_null() {
                true => str_right(out, "-", 8),
                false => num_right(out, u64::from(link.0), 8),
            }
        }
        out.extend_from_slice(b"  ");
        num_right(out, f.lsn.0, 16);
        out.extend_from_slice(b"  ");
        num_right(out, u64::from(f.space_id.0), 10);
        out.extend_from_slice(b"  ");
        match ix {
            None => str_right(out, "-", 10),
            Some(c) if c.id.0 == SDI_INDEX_ID => str_right(out, "SDI", 10),
            Some(c) => num_right(out, c.id.0, 10),
        }
        out.extend_from_slice(b"  ");
        let name = ix.map_or("-", |c| self.names.shown(c.id));
        out.extend_from_slice(name.as_bytes());
        // A width counts characters.
        let len = match name.is_ascii() {
            true => name.len(),
            false => name.chars().count(),
        };
        spaces(out, len, w);
        out.extend_from_slice(b"  ");
        match ix {
            Some(c) => {
                // "{:>5}  {:>7}  {:>5.1}%"
                num_right(out, u64::from(c.level), 5);
                out.extend_from_slice(b"  ");
                num_right(out, u64::from(c.records), 7);
                out.extend_from_slice(b"  ");
                let fill = c.fill * 100.0;
                if !tenths_right(out, fill, 5) {
                    write!(out, "{fill:>5.1}")?;
                }
                out.push(b'%');
            }
            // "{:>5}  {:>7}  {:>6}" of "-"
            None => out.extend_from_slice(b"    -        -       -"),
        }
        if keys.present() {
            write!(out, "  {:>11}", KeyCell(c.key))?;
        }
        write!(out, "  {}  {}", c.status, v.verdict)?;
        if v.verdict.is_finding() {
            write!(out, " at byte offset {}: {}", v.file_offset, v.evidence)?;
        }
        out.push(b'\n');
        Ok(())
    }

    fn csv_row(
        &self,
        out: &mut Vec<u8>,
        f: &PageFacts,
        c: &Cols,
        v: &ibdscope_core::PageJudgement,
    ) -> io::Result<()> {
        let (ts, keys) = (self.ts, self.keys);
        // Type names and checksum words are identifiers: no quoting.
        write!(
            out,
            "{},{},{},{},{},{},{},{},",
            f.page_no,
            f.page_type.display(ts.type_names()),
            f.page_type.0,
            CsvLink(f.prev),
            CsvLink(f.next),
            f.lsn,
            f.space_id,
            c.status
        )?;
        match c.ix {
            Some(c) => write!(
                out,
                "{},{},{},{},{}",
                c.id.0,
                crate::csv::opt_name(self.names.get(c.id)),
                c.level,
                c.records,
                crate::csv::Float(f64::from(c.fill), 4)
            )?,
            None => write!(out, ",,,,")?,
        }
        if keys.present() {
            match c.key {
                Some(v) => write!(out, ",{v}")?,
                None => write!(out, ",")?,
            }
        }
        writeln!(out, ",{},{}", v.verdict, v.file_offset)
    }

    fn json_row(
        &self,
        j: &mut Json<'_>,
        f: &PageFacts,
        c: &Cols,
        v: &ibdscope_core::PageJudgement,
    ) -> io::Result<()> {
        let (ts, keys) = (self.ts, self.keys);
        let names = ts.type_names();
        j.obj()?;
        j.kv_num("page", f.page_no.0)?;
        j.kv_display("type", &f.page_type.display(names))?;
        j.kv_num("type_code", f.page_type.0)?;
        j.key("prev")?.opt_num(link(f.prev))?;
        j.key("next")?.opt_num(link(f.next))?;
        j.kv_num("lsn", f.lsn.0)?;
        j.kv_num("space_id", f.space_id.0)?;
        j.kv_display("checksum", &c.status)?;
        j.kv_str("verdict", v.verdict.word())?
            .kv_num("verdict_offset", v.file_offset)?;
        if v.verdict.is_finding() {
            j.kv_display("evidence", &v.evidence)?;
        }
        if keys.present() {
            j.key("key_version")?.opt_num(c.key.map(u64::from))?;
        }
        match c.ix {
            Some(c) => {
                j.kv_num("index_id", c.id.0)?.key("index_name")?;
                match self.names.get(c.id) {
                    Some(n) => j.str(n)?,
                    None => j.null()?,
                };
                j.kv_num("level", c.level)?.kv_num("records", c.records)?;
                j.key("fill")?.float(f64::from(c.fill), 4)?;
            }
            None => {
                for k in ["index_id", "index_name", "level", "records", "fill"] {
                    j.key(k)?.null()?;
                }
            }
        }
        j.end_obj()?;
        Ok(())
    }
}

/// The rows of pages `from..=last` that stand for several pages (holes of
/// a sparse file in free extents: [`crate::maps::free_zero_pages`]),
/// as (first page, pages), taking rows one after the other as the listing
/// does.
fn zero_runs(a: &Analysis<'_>, from: u32, last: u32) -> Vec<(u32, u32)> {
    let ts = a.ts();
    let end = last.saturating_add(1);
    let mut runs = Vec::new();
    let mut n = from;
    while n < end {
        // Pages before the next known-zero run are a row each.
        match ts.next_zero_run(n, end) {
            None => break,
            Some((z, _)) if z.0 > n => n = z.0,
            Some(_) => {
                let run = crate::maps::free_zero_pages(a, u64::from(n), u64::from(end));
                let run = u32::try_from(run).unwrap_or(u32::MAX);
                if run > 1 {
                    runs.push((n, run));
                }
                n = n.saturating_add(run.max(1));
            }
        }
    }
    runs
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
    if from >= ts.n_pages() {
        // Nothing to list: the one rule for pages past the end.
        let n = u64::from(ts.n_pages());
        let asked = format_args!("--from {from}");
        return Ok(crate::maps::past_end(a.path(), asked, n, ts.page_size()));
    }
    let last = to.unwrap_or(u32::MAX).min(ts.n_pages().saturating_sub(1));
    let end = last.saturating_add(1);
    // One pass: the summary's (its own, or the space map's first when the
    // definition needs the map) keeps what each page's row shows, and the
    // rows are written from that once the pass is done (each verdict
    // needs the whole file). Not for a MariaDB encrypted space (each
    // page's key version) or pages of a sparse file's holes (a row stands
    // for a run): those pages are read again after the summary's pass.
    let keys = KeyVersions::of_space(ts);
    let sparse = ts.next_zero_run(from, end).is_some();
    if !keys.present() && !sparse {
        a.listing_pages(from, end);
    }
    // Each page with the pages after it drawn alike: a hole of a sparse
    // file in free extents (`map::free_zero_pages`) comes as its first
    // page and its length, so text prints it in two lines whatever its
    // size; the other formats still give every page a row.
    let runs = if ts.next_zero_run(from, end).is_some() {
        zero_runs(a, from, last)
    } else {
        Vec::new()
    };
    // The pieces the threads write: runs of whole shards, each starting
    // on a row (after a hole that crosses its start).
    let shard = ibdscope_core::parallel::shard_pages(ts).max(1);
    let mut bounds = vec![from];
    let mut at = from;
    while at < end {
        let mut next = at.saturating_add(shard).min(end);
        let k = runs.partition_point(|r| r.0 < next);
        if let Some(&(p, count)) = k.checked_sub(1).and_then(|k| runs.get(k)) {
            if p.saturating_add(count) > next {
                next = p.saturating_add(count).min(end);
            }
        }
        bounds.push(next);
        at = next;
    }
    // The name column is as wide as the definition's widest name.
    let width = a
        .definition()
        .ok()
        .into_iter()
        .flat_map(|d| d.table.indexes.iter())
        .map(|ix| ibdscope::names::name(&ix.name).to_string().chars().count())
        .max()
        .unwrap_or(0)
        .max(4);
    let rows = Rows {
        ts,
        format: opts.format,
        // Each page's verdict is the summary's (one rule for every
        // command; a torn write needs the newest LSN of the whole file).
        summary: a.summary(),
        keys,
        names: IndexNames::of(a),
        width,
        runs,
    };
    // Every page of the range kept (a summary made before, for another
    // range or none, as a space held open for `serve` keeps it: the pages
    // are read again).
    let listed = !keys.present()
        && !sparse
        && [from, last]
            .iter()
            .all(|&n| rows.summary.listed(ts, PageNo(n)).is_some());
    let mut j = Json::new(out);
    match opts.format {
        Format::Text | Format::Tsv | Format::Sql => {
            let o = j.writer();
            write!(
                o,
                "{:>8}  {:<16}  {:>8}  {:>8}  {:>16}  {:>10}  {:>10}  {:<width$}  {:>5}  {:>7}  {:>6}  ",
                "page", "type", "prev", "next", "lsn", "space", "index", "name", "level", "records", "fill"
            )?;
            // a MariaDB encrypted space: each page's key version
            if keys.present() {
                write!(o, "{:>11}  ", "key_version")?;
            }
            writeln!(o, "checksum  verdict")?;
        }
        Format::Csv => {
            let o = j.writer();
            write!(
                o,
                "page,type,type_code,prev,next,lsn,space_id,checksum,index_id,index_name,level,\
                 records,fill"
            )?;
            writeln!(
                o,
                "{},verdict,verdict_offset",
                if keys.present() { ",key_version" } else { "" }
            )?;
        }
        Format::Json => {
            j.obj()?.key("pages")?.arr()?;
        }
        Format::Jsonl => {}
    }
    // Each page as `check` judges it (page_compressed pages outside
    // full_crc32 after decompression): a `Judge` per thread.
    let total = u64::from(end.saturating_sub(from));
    let (mut bad, mut ended, mut started) = (false, false, false);
    let mut sunk = 0usize;
    let mut sink = |piece: Piece| -> io::Result<()> {
        if ended {
            return Ok(());
        }
        let mut bytes = &piece.out[..];
        if opts.format == Format::Json && !started && !bytes.is_empty() {
            // The first row of the array: no comma before it.
            bytes = bytes.get(1..).unwrap_or(&[]);
            started = true;
        }
        j.writer().write_all(bytes)?;
        bad |= piece.bad;
        ended = piece.ended;
        sunk = sunk.saturating_add(1);
        if !listed {
            // A pass over the pages: its progress.
            let done = bounds.get(sunk).copied().unwrap_or(end);
            a.engine()
                .progress(u64::from(done.saturating_sub(from)), total);
        }
        Ok(())
    };
    if listed {
        // The rows formatted on the engine's threads from what the pass
        // kept, 1,024 pages a piece; no page read.
        const PIECE: u32 = 1024;
        let n = end.saturating_sub(from).div_ceil(PIECE);
        let piece = |k: u32| {
            let first = from.saturating_add(k.saturating_mul(PIECE));
            rows.listed_piece(first, first.saturating_add(PIECE).min(end))
        };
        ibdscope_core::parallel::map_in_order(a.engine(), n, || (), |_, k| piece(k), &mut sink)?;
    } else {
        // On the engine's threads, each piece's pages read and released as
        // a fold's shard.
        ibdscope_core::parallel::map_pages_in_order(
            ts,
            a.engine(),
            &bounds,
            ibdscope_core::summary::Judge::default,
            |judge, first, end| rows.piece(judge, first, end),
            &mut sink,
        )?;
    }
    if opts.format == Format::Json {
        j.end_arr()?.end_obj()?;
        writeln!(j.writer())?;
    }
    Ok(if bad {
        Outcome::Findings
    } else {
        Outcome::Clean
    })
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
