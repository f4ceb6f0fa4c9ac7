//! `rows`: every row of the clustered index (or a secondary index's
//! entries), typed, in key order along the leaf chain; `--deleted` for
//! delete-marked records and records on the pages' free (garbage) lists.
//!
//! The rows come from the library (`ibdscope_schema::rows::RowScan`: the
//! leaf walk, recovery past damage, deleted records, ROW_FORMAT=COMPRESSED
//! leaves); this module picks the columns, renders each value straight
//! from the page (`ibdscope_schema::rows::RowView::render`; text and tsv
//! into the line itself, escaped in place) and prints, one row at a time
//! into buffers reused for the whole run.
//!
//! Output formats: `text` (a header line, then tab-separated values),
//! `tsv` (exactly the server's `SELECT … INTO OUTFILE` text with the
//! normalisation of fixtures/README.md: `\N` for NULL, binary as
//! upper-case hex, BIT as a decimal integer, `\`, tab, newline and NUL
//! escaped), `csv` (header line, RFC 4180 quoting, NULL empty), `jsonl` /
//! `json` (docs/json.md), `sql` (INSERT statements). Findings go to stderr
//! for `tsv`, `csv` and `jsonl`, to the document for `json`, and as
//! comments for `text` and `sql`.

use crate::args::{Format, Opts, RowsOpts};
use crate::json::Json;
use crate::outcome::Outcome;
use ibdscope::analysis::Analysis;
use ibdscope::definition::Def;
use ibdscope::sources::SourceMap;
use ibdscope_core::PageNo;
use ibdscope_schema::row::FieldText;
use ibdscope_schema::rows::{
    Deleted, Key, LostPage, Origin, Row, RowDamage, RowScan, RowView, ScanCounts, ScanEvent,
    ScanFinding, ScanInput, ScanOptions,
};
use ibdscope_schema::table::{Column, IndexDef, TableDef};
use ibdscope_schema::value::{render_plain, Plain, PlainOut, Rendered};
use std::io::{self, Write};
use std::path::Path;

/// One rendered cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cell {
    Null,
    Value(Rendered),
    /// Off-page value longer than the cap: hex of the bytes read.
    Capped,
    /// Off-page part unreadable: hex of the local part.
    OffPage,
    /// The record ended (damaged) before this field.
    Missing,
}

/// What the printer counts (the rendering's; the rest is the scan's).
#[derive(Default)]
struct Counts {
    partial: u64,
    raw_values: u64,
    capped_values: u64,
}

impl Counts {
    fn add(&mut self, o: &Counts) {
        self.partial = self.partial.saturating_add(o.partial);
        self.raw_values = self.raw_values.saturating_add(o.raw_values);
        self.capped_values = self.capped_values.saturating_add(o.capped_values);
    }
}

/// The document around the rows: header, findings, footer.
struct Printer<'w> {
    j: Json<'w>,
    format: Format,
    meta: bool,
    /// Columns to print, in order (indexes into the table's columns).
    cols: Vec<usize>,
    counts: Counts,
    /// Findings that make the exit code 1.
    findings: Vec<String>,
    /// Notes (not damage).
    notes: Vec<String>,
    /// `INSERT INTO `t` (`a`, `b`) VALUES (`.
    insert_prefix: String,
    /// The file, for lines on stderr.
    path: String,
    /// The lost leaves' keys as text: the last before, the first after,
    /// the node pointer's.
    lost_keys: Vec<[Option<String>; 3]>,
    /// JSON: a row object is in the `rows` array already (the pieces
    /// start each object with its comma).
    json_started: bool,
    /// The source map whose offsets the rows carry (a carved image's).
    map: Option<std::path::PathBuf>,
}

/// How rows are written, shared by the threads that format them.
struct RowStyle<'c> {
    format: Format,
    meta: bool,
    cols: &'c [usize],
    t: &'c TableDef,
    /// The index's name, for its findings.
    index: &'c str,
    insert_prefix: &'c str,
    /// The definition was inferred from the records (`--infer`): every
    /// row says so (JSON, JSONL: `"inferred_definition": true`; CSV: the
    /// `_inferred` column; text and SQL: the header; TSV: stderr).
    inferred: bool,
    /// Each shown column's fast path (`cols`' order).
    plain: Vec<Plain>,
    /// A carved image's source map: each row's source file and byte
    /// offset there (JSON, JSONL, CSV, text; never TSV).
    map: Option<&'c SourceMap>,
}

/// One thread's buffers, reused for every row it formats.
#[derive(Default)]
struct RowFmt {
    /// A cell's text (the formats that quote or escape it as a whole).
    cell: String,
    /// An off-page value's bytes.
    buf: Vec<u8>,
    /// The line of the formats that build it from cells (CSV, SQL).
    line: String,
    /// The line of text and tsv: the values' bytes, rendered straight
    /// into it (no UTF-8 check of a value the fast path takes whole).
    bytes: Vec<u8>,
    /// Per-row problems (a reason per raw value, the split error).
    problems: Vec<String>,
    /// The row being printed is a copy of a live row.
    twin: bool,
    /// The page being read does not verify: its rows are marked.
    unverified: bool,
    /// The longest piece so far: a piece's buffer is made that large at
    /// its first row rather than grown (and copied) by doubling.
    longest: usize,
}

/// The rows of a run of pages, formatted on any thread and written in
/// page order: their text, the printer's counts, the findings in words.
#[derive(Default)]
struct Piece {
    out: Vec<u8>,
    /// Text and tsv without the meta columns: the lines, each built in
    /// place (its values rendered straight into it, no copy of a line).
    text: Vec<u8>,
    counts: Counts,
    findings: Vec<String>,
}

/// Runs `rows`.
pub fn run(
    opts: &Opts,
    a: &Analysis<'_>,
    r: &RowsOpts,
    out: &mut dyn Write,
) -> io::Result<Outcome> {
    let (path, ts) = (a.path(), a.ts());
    let Some(crate::decode::Decoding { def, decoding }) = crate::decode::decoding(a) else {
        return Ok(Outcome::Unreadable);
    };
    let t = &def.table;
    let Some(ix) = find_index(path, t, r) else {
        return Ok(Outcome::Unreadable);
    };
    let Some((_, root_rp)) = crate::decode::root_page(ts, path, ix) else {
        return Ok(Outcome::Unreadable);
    };
    let Some(layout) = crate::decode::index_layout(path, t, ix, &decoding.instant, &root_rp) else {
        return Ok(Outcome::Unreadable);
    };
    let cols = ibdscope_schema::rows::shown_columns(t, &layout, r.hidden);
    let meta = r.deleted || r.with_deleted;
    let mut p = Printer::new(out, opts, a, meta, cols);
    for f in a.file_findings() {
        p.findings.push(finding_text(f));
    }
    // A carved image's source map: a map that does not fit is a finding,
    // and the rows come without source offsets.
    let (sources, map_findings) = crate::source_map::read(a, r.sources.as_deref());
    p.findings.extend(map_findings);
    let map = (sources.as_ref())
        .and_then(|s| s.map())
        .filter(|_| !matches!(opts.format, Format::Tsv | Format::Sql));
    p.map = map.and(sources.as_ref()).map(|s| s.path.clone());
    // Every page with findings, by its verdict (the word every command
    // gives it), whether or not the walk reaches it.
    for b in a.damaged_pages() {
        let v = &b.judgement;
        p.findings.push(format!(
            "page {} at byte offset {}: {v}",
            v.page, v.file_offset
        ));
    }
    let mut so = ScanOptions::default();
    so.deleted = match (r.deleted, r.with_deleted) {
        (true, _) => Deleted::Only,
        (false, true) => Deleted::Also,
        (false, false) => Deleted::No,
    };
    so.page = r.where_page.map(PageNo);
    so.verified_only = opts.verified_only;
    so.max_value_bytes = r.max_value_bytes;
    so.columns = Some(p.cols.clone());
    // The leaf chain from the run's B-trees (built once, shared with
    // every other reader of the `Analysis`); one page needs none.
    let input = ScanInput {
        ts,
        engine: a.engine(),
        summary: a.summary(),
        trees: so.page.is_none().then(|| a.trees_with_leaf_chains()),
    };
    let mut scan = match RowScan::over(input, t, ix, &decoding, so) {
        Ok(s) => s,
        Err(e) => {
            crate::decode::say_scan_error(path, ix, &e);
            return Ok(Outcome::Unreadable);
        }
    };
    // The header once the scan can start: a scan that cannot (a page that
    // is no leaf of the index) writes nothing, not the start of a document.
    p.header(path, &def, ix)?;
    p.scan_findings(&mut scan, t, &ix.name);
    let style = RowStyle {
        format: p.format,
        meta: p.meta,
        cols: &p.cols.clone(),
        t,
        index: &ix.name,
        insert_prefix: &p.insert_prefix.clone(),
        inferred: def.inferred.is_some(),
        plain: (p.cols.iter())
            .map(|&ci| t.columns.get(ci).map_or(Plain::No, Plain::of))
            .collect(),
        map,
    };
    // The rows made on the engine's threads, a piece of pages at a time,
    // written in key order.
    scan.for_each_piece(
        RowFmt::default,
        |f, piece: &mut Piece, ev| match ev {
            ScanEvent::Row(row) => {
                // A piece's buffer takes every write.
                let _ = f.row(&style, piece, row);
            }
            ScanEvent::Finding(x) => piece.findings.push(scan_words(&style, &x)),
        },
        |piece| p.add(piece),
    )?;
    p.scan_findings(&mut scan, t, &ix.name);
    for n in scan.notes() {
        p.notes.push(n.to_string());
    }
    // Values shown that are not the server's (DECIMAL's bytes, ENUM's and
    // SET's numbers, from a dictionary without their types) are a finding.
    if scan.counts().rows > 0 {
        for (col, note) in &def.dict_notes {
            let shown = (t.columns.iter().position(|c| c.name == *col))
                .is_some_and(|i| p.cols.contains(&i));
            if shown && ibdscope_schema::dictdef::values_not_shown(note) {
                p.findings.push(format!(
                    "column {}: the values shown are not the server's ({} stored as is): the \
                     InnoDB dictionary does not hold the column's type; its .frm does",
                    ibdscope::names::name(col),
                    note.split(':').next().unwrap_or_default()
                ));
            }
        }
    }
    p.footer(scan.counts(), scan.lost())?;
    Ok(if p.findings.is_empty() {
        Outcome::Clean
    } else {
        Outcome::Findings
    })
}
/// The index `--index` names (the clustered index without it); says on
/// stderr which indexes there are when there is none.
fn find_index<'t>(path: &Path, t: &'t TableDef, r: &RowsOpts) -> Option<&'t IndexDef> {
    let ix = match &r.index {
        Some(n) => t.index_by_name_or_id(n),
        None => t.clustered(),
    };
    if ix.is_none() {
        let names: Vec<String> = t
            .indexes
            .iter()
            .map(|i| match i.id {
                Some(id) => format!("{} ({id})", ibdscope::names::name(&i.name)),
                None => ibdscope::names::name(&i.name).to_string(),
            })
            .collect();
        crate::diag::say!(
            "ibdscope: {}: no index {} in the definition (indexes: {})",
            ibdscope::names::path(path),
            ibdscope::names::name(r.index.as_deref().unwrap_or("(clustered)")),
            names.join(", ")
        );
    }
    ix
}

impl<'w> Printer<'w> {
    /// A printer with empty buffers, writing to `out`.
    fn new(
        out: &'w mut dyn Write,
        opts: &Opts,
        a: &Analysis<'_>,
        meta: bool,
        cols: Vec<usize>,
    ) -> Self {
        Printer {
            j: Json::new(out),
            format: opts.format,
            meta,
            cols,
            counts: Counts::default(),
            findings: Vec::new(),
            notes: Vec::new(),
            insert_prefix: String::new(),
            path: ibdscope::names::path(a.path()).to_string(),
            lost_keys: Vec::new(),
            json_started: false,
            map: None,
        }
    }

    /// Adds a piece: its rows written at once, its counts, its findings
    /// after the ones before it.
    fn add(&mut self, piece: Piece) -> io::Result<()> {
        let mut out = &piece.out[..];
        if self.format == Format::Json && !out.is_empty() && !self.json_started {
            // The first row of the array: no comma before it.
            out = out.get(1..).unwrap_or(&[]);
            self.json_started = true;
        }
        if !out.is_empty() {
            self.j.writer().write_all(out)?;
        }
        if !piece.text.is_empty() {
            self.j.writer().write_all(&piece.text)?;
        }
        self.counts.add(&piece.counts);
        self.findings.extend(piece.findings);
        Ok(())
    }

    /// The scan's findings so far, in words, after the printer's own.
    fn scan_findings(&mut self, scan: &mut RowScan<'_>, t: &TableDef, index: &str) {
        for f in scan.take_findings() {
            let words = match &f {
                ScanFinding::Lost(l) if l.level == 0 => {
                    let c = scan.counts();
                    self.lost_words(t, l, c.tree_recs.checked_div(c.tree_pages).unwrap_or(0))
                }
                _ => index_words(index, &f),
            };
            self.findings.push(words);
        }
    }

    /// The finding of a leaf the tree names that cannot be read: its rows
    /// are missing (about how many, and between which keys).
    fn lost_words(&mut self, t: &TableDef, l: &LostPage, mean: u64) -> String {
        let at = l.file_offset;
        let text = |k: &Option<Key>| k.as_ref().map(|k| key_text(t, k));
        let (before, after, low) = (text(&l.key_before), text(&l.key_after), text(&l.key_low));
        let mut f = format!(
            "leaf page {} (byte offset {at}) is lost ({}): its rows are missing (about {}, \
             the mean of the index's readable leaves), keys after {} and before {}",
            l.page,
            l.why,
            mean,
            before.as_deref().unwrap_or("the first"),
            after.as_deref().unwrap_or("the last"),
        );
        if let Some(low) = &low {
            f.push_str(&format!(
                "; its parent's node pointer gives a lower bound of its keys: {low}"
            ));
        }
        self.lost_keys.push([before, after, low]);
        f
    }

    fn header(&mut self, path: &Path, def: &Def, ix: &IndexDef) -> io::Result<()> {
        let t = &def.table;
        let cols = self.cols.clone();
        let name = |c: usize| t.columns.get(c).map_or("?", |c| c.name.as_str());
        match self.format {
            Format::Text => {
                let w = self.j.writer();
                writeln!(
                    w,
                    "# {}: table {}, index {}, definition from {}",
                    ibdscope::names::path(path),
                    ibdscope::names::name(&t.name),
                    ibdscope::names::name(&ix.name),
                    def.source_words()
                )?;
                for (col, note) in &def.dict_notes {
                    writeln!(w, "# column {}: {note}", ibdscope::names::name(col))?;
                }
                if self.map.is_some() {
                    write!(w, "source:offset\t")?;
                }
                if self.meta {
                    write!(w, "page:offset\torigin\tcomplete\t")?;
                }
                let names: Vec<String> = cols
                    .iter()
                    .map(|&c| ibdscope::names::name(name(c)).to_string())
                    .collect();
                writeln!(w, "{}", names.join("\t"))?;
            }
            Format::Csv => {
                let w = self.j.writer();
                if self.meta {
                    write!(w, "page,offset,origin,complete,")?;
                }
                let mut line = String::new();
                for (i, &c) in cols.iter().enumerate() {
                    if i > 0 {
                        line.push(',');
                    }
                    crate::csv::push(&mut line, name(c));
                }
                // Whether the row's page verifies: always the last column
                // (then, with --infer, that an inferred definition decoded
                // it).
                if def.inferred.is_some() {
                    line.push_str(",_verified,_inferred");
                } else {
                    line.push_str(",_verified");
                }
                // A carved image's rows: where each was found.
                if self.map.is_some() {
                    line.push_str(",_source_file,_source_offset");
                }
                writeln!(w, "{line}")?;
            }
            Format::Sql => {
                let w = self.j.writer();
                writeln!(
                    w,
                    "-- {}: table {}, index {}, definition from {}",
                    ibdscope::names::path(path),
                    ibdscope::names::name(&t.name),
                    ibdscope::names::name(&ix.name),
                    def.source_words()
                )?;
                for (col, note) in &def.dict_notes {
                    writeln!(w, "-- column {}: {note}", ibdscope::names::name(col))?;
                }
                writeln!(w, "SET NAMES utf8mb4;\nSET time_zone = '+00:00';")?;
                let mut pre = String::from("INSERT INTO ");
                ibdscope_schema::table::quote_ident(&t.name, &mut pre);
                pre.push_str(" (");
                for (i, &c) in cols.iter().enumerate() {
                    if i > 0 {
                        pre.push_str(", ");
                    }
                    ibdscope_schema::table::quote_ident(name(c), &mut pre);
                }
                pre.push_str(") VALUES (");
                self.insert_prefix = pre;
            }
            Format::Json => {
                self.j
                    .obj()?
                    .kv_path("file", path)?
                    .kv_str("table", &t.name)?
                    .kv_str("index", &ix.name)?
                    .kv_str("source", def.source_word())?;
                if let Some(m) = &self.map {
                    self.j.kv_path("source_map", m)?;
                }
                if !def.dict_notes.is_empty() {
                    self.j.key("dictionary_notes")?.arr()?;
                    for (col, note) in &def.dict_notes {
                        self.j
                            .obj()?
                            .kv_str("column", col)?
                            .kv_str("note", note)?
                            .end_obj()?;
                    }
                    self.j.end_arr()?;
                }
                self.j.key("columns")?.arr()?;
                for &c in &cols {
                    self.j.str(name(c))?;
                }
                self.j.end_arr()?.key("rows")?.arr()?;
            }
            Format::Tsv | Format::Jsonl => {}
        }
        // The formats without a place for them in the output say the
        // dictionary's gaps on stderr (TSV stays the server's dump format).
        if self.format == Format::Tsv && def.inferred.is_some() {
            crate::diag::say!(
                "ibdscope: note: every row is decoded with a definition inferred from the \
                 records (--infer); see `schema --infer` for each column's confidence"
            );
        }
        if matches!(
            self.format,
            Format::Tsv | Format::Csv | Format::Jsonl | Format::Sql
        ) {
            for (col, note) in &def.dict_notes {
                crate::diag::say!(
                    "ibdscope: note: column {}: {note}",
                    ibdscope::names::name(col)
                );
            }
        }
        Ok(())
    }

    fn footer(&mut self, c: &ScanCounts, lost: &[LostPage]) -> io::Result<()> {
        let p = &self.counts;
        // The classes in parentheses add up to the rows (partial rows are
        // among them). Rows off the tree are named only when there are some:
        // the line is otherwise what the servers loaded back
        // (fixtures/rows/sqlload.tsv).
        let off = if c.off_chain > 0 {
            format!(", {} from pages off the tree", c.off_chain)
        } else {
            String::new()
        };
        let mut summary = format!(
            "{} rows ({} live, {} delete-marked, {} from free lists{off}, {} partial) from {} leaf \
             pages; {} values not decoded, {} off-page values truncated",
            c.rows,
            c.live,
            c.delete_marked,
            c.free_list,
            p.partial,
            c.pages,
            p.raw_values,
            p.capped_values
        );
        if c.lost_pages > 0 {
            summary.push_str(&format!(
                "; {} leaf pages lost, about {} rows missing",
                c.lost_pages, c.lost_rows_estimate
            ));
        }
        if c.unverified_rows > 0 {
            summary.push_str(&format!(
                "; {} rows from pages that do not verify",
                c.unverified_rows
            ));
        }
        if c.unverified_pages_skipped > 0 {
            summary.push_str(&format!(
                "; {} leaf pages that do not verify left out",
                c.unverified_pages_skipped
            ));
        }
        match self.format {
            Format::Json => {
                self.j.end_arr()?;
                self.j.key("summary")?.obj()?;
                self.j
                    .kv_num("rows", c.rows)?
                    .kv_num("live", c.live)?
                    .kv_num("delete_marked", c.delete_marked)?
                    .kv_num("free_list", c.free_list)?
                    .kv_num("off_chain", c.off_chain)?
                    .kv_num("live_copies", c.live_copies)?
                    .kv_num("partial", p.partial)?
                    .kv_num("leaf_pages", c.pages)?
                    .kv_num("raw_values", p.raw_values)?
                    .kv_num("truncated_values", p.capped_values)?
                    .kv_num("unverified_rows", c.unverified_rows)?
                    .kv_num("unverified_pages_skipped", c.unverified_pages_skipped)?
                    .kv_num("lost_pages", c.lost_pages)?
                    .kv_num("lost_rows_estimate", c.lost_rows_estimate)?
                    .end_obj()?;
                self.j.key("lost")?.arr()?;
                let leaves = lost.iter().filter(|l| l.level == 0);
                for (l, keys) in leaves.zip(&self.lost_keys) {
                    self.j
                        .obj()?
                        .kv_num("page", l.page.0)?
                        .kv_num("file_offset", l.file_offset)?
                        .kv_display("why", &l.why)?;
                    for (k, v) in ["key_before", "key_after", "key_lower_bound"]
                        .iter()
                        .zip(keys)
                    {
                        self.j.key(k)?;
                        match v {
                            Some(v) => self.j.str(v)?,
                            None => self.j.null()?,
                        };
                    }
                    self.j.end_obj()?;
                }
                self.j.end_arr()?;
                self.j.key("findings")?.arr()?;
                for f in &self.findings {
                    self.j.str(f)?;
                }
                self.j.end_arr()?.key("notes")?.arr()?;
                for f in &self.notes {
                    self.j.str(f)?;
                }
                self.j.end_arr()?.end_obj()?;
                self.j.writer().write_all(b"\n")?;
            }
            Format::Text | Format::Sql => {
                let w = self.j.writer();
                let lead = if self.format == Format::Sql {
                    "--"
                } else {
                    "#"
                };
                writeln!(w, "{lead} {summary}")?;
                for f in &self.findings {
                    writeln!(w, "{lead} finding: {f}")?;
                }
                for f in &self.notes {
                    writeln!(w, "{lead} note: {f}")?;
                }
                if self.format == Format::Sql {
                    // A script is loaded, not read: the findings on stderr too.
                    for f in &self.findings {
                        crate::diag::say!("ibdscope: {}: finding: {f}", self.path);
                    }
                    if !self.findings.is_empty() {
                        crate::diag::say!("ibdscope: {}: {summary}", self.path);
                    }
                }
            }
            Format::Tsv | Format::Csv | Format::Jsonl => {
                for f in &self.findings {
                    crate::diag::say!("ibdscope: {}: finding: {f}", self.path);
                }
                if !self.findings.is_empty() {
                    crate::diag::say!("ibdscope: {}: {summary}", self.path);
                }
            }
        }
        Ok(())
    }
}

impl RowFmt {
    /// Formats one row into `piece`: text and tsv without the meta columns
    /// build the line at the end of the piece's text, the other formats in
    /// [`RowFmt::line`] or through the JSON writer, then copied.
    fn row(&mut self, st: &RowStyle<'_>, piece: &mut Piece, view: RowView<'_>) -> io::Result<()> {
        let in_place = in_place(st);
        let buf_len = |p: &Piece| if in_place { p.text.len() } else { p.out.len() };
        if piece.text.capacity() == 0 && piece.out.capacity() == 0 {
            if in_place {
                piece.text.reserve(self.longest);
            } else {
                piece.out.reserve(self.longest);
            }
        }
        let r = if in_place {
            std::mem::swap(&mut self.bytes, &mut piece.text);
            self.line_row(st, piece, view);
            std::mem::swap(&mut self.bytes, &mut piece.text);
            Ok(())
        } else {
            self.row_in(st, piece, view)
        };
        self.longest = self.longest.max(buf_len(piece));
        r
    }

    /// Text and tsv without the meta columns: the row's line at the end of
    /// [`RowFmt::bytes`] (the piece's text), its cells, the page's mark
    /// (text) and the newline; no header or trailer of another format.
    #[inline]
    fn line_row(&mut self, st: &RowStyle<'_>, piece: &mut Piece, view: RowView<'_>) {
        let row = view.row;
        self.start_row(row);
        self.line_cells(st, &mut piece.counts, view);
        self.row_problems(row, &mut piece.counts, &mut piece.findings);
        self.line_end(st.format, row.page);
    }

    /// A row's marks and problems from the scan, before its cells.
    #[inline]
    fn start_row(&mut self, row: &Row) {
        self.problems.clear();
        self.twin = row.live_copy;
        self.unverified = !row.verified;
        if let Some(d) = &row.damage {
            self.problems.push(d.to_string());
        }
    }

    /// After its cells: a row with problems is partial, and a finding
    /// when it is live and split (a record that does not split is counted
    /// by the scan: a definition that does not fit fails every row).
    #[inline]
    fn row_problems(&self, row: &Row, counts: &mut Counts, findings: &mut Vec<String>) {
        if !self.problems.is_empty() {
            self.partial_row(row, counts, findings);
        }
    }

    /// [`RowFmt::row_problems`] of a row with problems.
    #[cold]
    fn partial_row(&self, row: &Row, counts: &mut Counts, findings: &mut Vec<String>) {
        counts.partial = counts.partial.saturating_add(1);
        if row.origin == Origin::Live && !matches!(row.damage, Some(RowDamage::Split(_))) {
            let mut what = format!("page {} record at byte {}: ", row.page, row.offset);
            what.push_str(&self.problems.join("; "));
            findings.push(what);
        }
    }

    /// Text and tsv: the end of the line in [`RowFmt::bytes`], text's
    /// mark of a page that does not verify first.
    #[inline]
    fn line_end(&mut self, format: Format, n: PageNo) {
        let b = &mut self.bytes;
        if self.unverified && format == Format::Text {
            b.extend_from_slice(b"\t(unverified: page ");
            b.extend_from_slice(n.to_string().as_bytes());
            b.extend_from_slice(b" does not verify)");
        }
        b.push(b'\n');
    }

    fn row_in(
        &mut self,
        st: &RowStyle<'_>,
        piece: &mut Piece,
        view: RowView<'_>,
    ) -> io::Result<()> {
        let row = view.row;
        self.start_row(row);
        let Piece {
            out,
            counts,
            findings,
            ..
        } = piece;
        if st.format == Format::Json {
            // The array's separator; the printer drops the first one.
            out.push(b',');
        }
        let mut j = Json::new(out);
        self.begin_row(st, &mut j, row.page, row.offset, row.origin)?;
        self.cells(st, &mut j, counts, view)?;
        self.row_problems(row, counts, findings);
        self.end_row(st, &mut j, row.page, row.offset, row.origin)
    }

    /// Renders and prints the row's cells.
    fn cells(
        &mut self,
        st: &RowStyle<'_>,
        j: &mut Json<'_>,
        counts: &mut Counts,
        view: RowView<'_>,
    ) -> io::Result<()> {
        if matches!(st.format, Format::Tsv | Format::Text) {
            self.line_cells(st, counts, view);
            return Ok(());
        }
        for (k, &ci) in st.cols.iter().enumerate() {
            let Some(col) = st.t.columns.get(ci) else {
                continue;
            };
            self.cell.clear();
            let rendered = view.render(ci, col, &mut self.buf, &mut self.cell);
            let cell = cell_of(rendered, col, counts, &mut self.problems);
            self.cell_out(st, j, k, col, cell)?;
        }
        Ok(())
    }

    /// Text and tsv: each value rendered straight into the line. An
    /// integer or plain text stored whole on the page takes its column's
    /// fast path ([`render_plain`]: no dispatch on the column per value,
    /// no text made aside); any other value the general one, then made
    /// the cell as shown ([`line_cell`]).
    fn line_cells(&mut self, st: &RowStyle<'_>, counts: &mut Counts, view: RowView<'_>) {
        let text = st.format == Format::Text;
        let RowFmt {
            bytes: line,
            cell,
            buf,
            problems,
            ..
        } = self;
        let n_columns = st.t.columns.len();
        for (k, (&ci, &plain)) in st.cols.iter().zip(&st.plain).enumerate() {
            if ci >= n_columns {
                continue;
            }
            if k > 0 {
                line.push(b'\t');
            }
            let at = line.len();
            if let Some(b) = view.inline_bytes(ci) {
                match render_plain(plain, b, line) {
                    PlainOut::No => {}
                    // Nothing to escape.
                    PlainOut::Number | PlainOut::Plain => continue,
                    PlainOut::Text => {
                        line_cell(line, text, at, Cell::Value(Rendered::Text));
                        continue;
                    }
                }
            }
            let Some(col) = st.t.columns.get(ci) else {
                continue;
            };
            cell.clear();
            let rendered = view.render(ci, col, buf, cell);
            let c = cell_of(rendered, col, counts, problems);
            line.extend_from_slice(cell.as_bytes());
            line_cell(line, text, at, c);
        }
    }

    fn begin_row(
        &mut self,
        st: &RowStyle<'_>,
        j: &mut Json<'_>,
        n: PageNo,
        offset: u16,
        origin: Origin,
    ) -> io::Result<()> {
        if !in_place(st) {
            self.line.clear();
            self.bytes.clear();
        }
        match st.format {
            Format::Json | Format::Jsonl => {
                j.obj()?;
                if st.meta {
                    j.kv_num("page", n.0)?
                        .kv_num("offset", offset)?
                        .kv_str("origin", origin.word())?;
                }
                if let Some(m) = st.map {
                    let (file, at) = m
                        .locate(n, u32::from(offset))
                        .map_or((None, None), |(f, at)| (Some(f), at));
                    j.key("source_file")?;
                    match file {
                        Some(f) => j.str(f)?,
                        None => j.null()?,
                    };
                    j.key("source_offset")?.opt_num(at)?;
                }
                j.key("row")?.obj()?;
            }
            Format::Sql => {
                self.line.push_str(st.insert_prefix);
            }
            _ => {}
        }
        Ok(())
    }

    fn cell_out(
        &mut self,
        st: &RowStyle<'_>,
        j: &mut Json<'_>,
        k: usize,
        col: &Column,
        cell: Cell,
    ) -> io::Result<()> {
        let s = self.cell.as_str();
        match st.format {
            // Rendered into the line already (`line_cell`).
            Format::Tsv | Format::Text => {}
            Format::Csv => {
                if k > 0 {
                    self.line.push(',');
                }
                match cell {
                    Cell::Null | Cell::Missing => {}
                    Cell::Value(Rendered::Number) => self.line.push_str(s),
                    _ => crate::csv::push(&mut self.line, s),
                }
            }
            Format::Json | Format::Jsonl => {
                j.key(&col.name)?;
                match cell {
                    Cell::Null => {
                        j.null()?;
                    }
                    Cell::Missing => {
                        j.obj()?.kv_str("missing", "record damaged")?.end_obj()?;
                    }
                    Cell::Value(Rendered::Number) => {
                        j.raw(s.as_bytes())?;
                    }
                    Cell::Value(Rendered::Raw(why)) => {
                        j.obj()?
                            .kv_str("raw", s)?
                            .kv_display("reason", &why)?
                            .end_obj()?;
                    }
                    Cell::Capped => {
                        j.obj()?.kv_str("truncated", s)?.end_obj()?;
                    }
                    Cell::OffPage => {
                        j.obj()?
                            .kv_str("raw", s)?
                            .kv_str("reason", "off-page part unreadable")?
                            .end_obj()?;
                    }
                    Cell::Value(_) => {
                        j.str(s)?;
                    }
                }
            }
            Format::Sql => {
                if k > 0 {
                    self.line.push_str(", ");
                }
                match cell {
                    Cell::Null => self.line.push_str("NULL"),
                    Cell::Missing => self.line.push_str("NULL /* missing: record damaged */"),
                    Cell::Value(Rendered::Number) => self.line.push_str(s),
                    Cell::Value(Rendered::Bytes) => {
                        self.line.push_str("X'");
                        self.line.push_str(s.trim_start_matches("0x"));
                        self.line.push('\'');
                    }
                    Cell::Value(Rendered::Bits) => self.line.push_str(s),
                    Cell::Value(Rendered::Raw(why)) => {
                        self.line.push_str("NULL /* not decoded: ");
                        self.line.push_str(s);
                        self.line.push_str(": ");
                        self.line.push_str(&why.to_string());
                        self.line.push_str(" */");
                    }
                    Cell::Capped | Cell::OffPage => {
                        self.line.push_str("NULL /* off-page value ");
                        self.line.push_str(if cell == Cell::Capped {
                            "longer than --max-value-bytes"
                        } else {
                            "unreadable"
                        });
                        self.line.push_str(" */");
                    }
                    Cell::Value(_) => sql_string(s, &mut self.line),
                }
            }
        }
        Ok(())
    }

    /// After the origin of a stale record equal to a live row.
    fn twin_words(&self) -> &'static str {
        if self.twin {
            " (copy of a live row)"
        } else {
            ""
        }
    }

    fn end_row(
        &mut self,
        st: &RowStyle<'_>,
        j: &mut Json<'_>,
        n: PageNo,
        offset: u16,
        origin: Origin,
    ) -> io::Result<()> {
        let complete = self.problems.is_empty();
        let twin = self.twin_words();
        match st.format {
            Format::Tsv | Format::Text | Format::Csv => {
                let sep = if st.format == Format::Csv { "," } else { "\t" };
                let w = j.writer();
                if let (Some(m), Format::Text) = (st.map, st.format) {
                    match m
                        .locate(n, u32::from(offset))
                        .map_or((None, None), |(f, at)| (Some(f), at))
                    {
                        (Some(f), Some(at)) => write!(w, "{}:{at}\t", ibdscope::names::name(f))?,
                        (Some(f), None) => write!(w, "{}:-\t", ibdscope::names::name(f))?,
                        _ => write!(w, "-\t")?,
                    }
                }
                if st.meta {
                    if st.format == Format::Text {
                        write!(w, "{n}:{offset}\t")?;
                    } else {
                        write!(w, "{n}{sep}{offset}{sep}")?;
                    }
                    write!(w, "{}{twin}{sep}", origin.word())?;
                    if complete {
                        write!(w, "complete{sep}")?;
                    } else {
                        let mut why = String::from("partial: ");
                        why.push_str(&self.problems.join("; "));
                        let mut q = String::new();
                        if st.format == Format::Csv {
                            crate::csv::push(&mut q, &why);
                        } else {
                            ibdscope::space::tsv_escape(&why, &mut q);
                        }
                        write!(w, "{q}{sep}")?;
                    }
                }
                if st.format == Format::Csv {
                    self.line
                        .push_str(if self.unverified { ",false" } else { ",true" });
                    if st.inferred {
                        self.line.push_str(",true");
                    }
                    if let Some(m) = st.map {
                        let (file, at) = m
                            .locate(n, u32::from(offset))
                            .map_or((None, None), |(f, at)| (Some(f), at));
                        self.line.push(',');
                        if let Some(f) = file {
                            crate::csv::push(&mut self.line, f);
                        }
                        self.line.push(',');
                        if let Some(at) = at {
                            self.line.push_str(&at.to_string());
                        }
                    }
                    self.line.push('\n');
                    w.write_all(self.line.as_bytes())?;
                } else {
                    self.line_end(st.format, n);
                    w.write_all(&self.bytes)?;
                }
            }
            Format::Json | Format::Jsonl => {
                j.end_obj()?;
                if self.twin {
                    j.kv_bool("live_copy", true)?;
                }
                if self.unverified {
                    j.kv_bool("verified", false)?.kv_num("page", n.0)?;
                }
                if st.inferred {
                    j.kv_bool("inferred_definition", true)?;
                }
                if st.meta || !complete {
                    j.kv_bool("complete", complete)?;
                    j.key("problems")?.arr()?;
                    for pr in &self.problems {
                        j.str(pr)?;
                    }
                    j.end_arr()?;
                }
                j.end_obj()?;
                if st.format == Format::Jsonl {
                    j.writer().write_all(b"\n")?;
                }
            }
            Format::Sql => {
                let w = j.writer();
                if st.meta {
                    writeln!(
                        w,
                        "-- page {n} offset {offset}: {}{}{}",
                        origin.word(),
                        twin,
                        if complete { "" } else { ", partial" }
                    )?;
                }
                if !complete {
                    for pr in &self.problems {
                        writeln!(w, "-- {pr}")?;
                    }
                }
                self.line.push_str(");\n");
                w.write_all(self.line.as_bytes())?;
            }
        }
        Ok(())
    }
}

/// Text and tsv: the cell's value rendered into the line from `at`,
/// made the cell as shown (the hex without its `0x` and upper-case,
/// BIT as a decimal, the escapes, NULL's word).
fn line_cell(line: &mut Vec<u8>, text: bool, at: usize, cell: Cell) {
    match cell {
        Cell::Null => {
            line.truncate(at);
            line.extend_from_slice(if text { b"NULL" } else { b"\\N" });
        }
        Cell::Missing => line.truncate(at),
        Cell::Value(Rendered::Bytes) if !text => {
            if line.get(at..).is_some_and(|s| s.starts_with(b"0x")) {
                line.drain(at..at.saturating_add(2));
            }
            if let Some(tail) = line.get_mut(at..) {
                tail.make_ascii_uppercase();
            }
        }
        Cell::Value(Rendered::Bits) if !text => {
            // The cell's text, rendered from a `String`.
            let s = std::str::from_utf8(line.get(at..).unwrap_or_default()).unwrap_or_default();
            let d = ibdscope::space::bits_decimal(s);
            line.truncate(at);
            line.extend_from_slice(d.as_bytes());
        }
        Cell::Value(Rendered::Raw(_)) | Cell::Capped | Cell::OffPage => {
            if text {
                line.extend_from_slice(match cell {
                    Cell::Capped => b"(truncated)",
                    _ => b"(raw)",
                });
            }
        }
        Cell::Value(Rendered::Number) => {}
        // Escaped in place: bytes move only when there is an escape.
        Cell::Value(_) if !text => ibdscope::space::tsv_escape_tail(line, at),
        Cell::Value(_) => {
            let s = line.get(at..).unwrap_or_default();
            if s.iter().any(|b| matches!(b, b'\t' | b'\n' | b'\\')) {
                let v = line.split_off(at);
                text_escape(&v, line);
            }
        }
    }
}

/// The cell of a value rendered (`None`: the record ended before it),
/// its problem noted and counted.
fn cell_of(
    rendered: Option<FieldText>,
    col: &Column,
    counts: &mut Counts,
    problems: &mut Vec<String>,
) -> Cell {
    match rendered {
        None => Cell::Missing,
        Some(FieldText::Null | FieldText::Dropped) => Cell::Null,
        Some(FieldText::Value(Rendered::Raw(why))) => {
            counts.raw_values = counts.raw_values.saturating_add(1);
            problems.push(format!("{}: not decoded: {why}", col.name));
            Cell::Value(Rendered::Raw(why))
        }
        Some(FieldText::Value(v)) => Cell::Value(v),
        Some(FieldText::Capped) => {
            counts.capped_values = counts.capped_values.saturating_add(1);
            Cell::Capped
        }
        Some(FieldText::OffPage(e)) => {
            problems.push(format!("{}: {e}", col.name));
            Cell::OffPage
        }
    }
}

/// Text and tsv without the meta columns: each line is built at the end of
/// the piece's text ([`Piece::text`]).
fn in_place(st: &RowStyle<'_>) -> bool {
    !st.meta && (st.format == Format::Tsv || (st.format == Format::Text && st.map.is_none()))
}

/// A finding the scan met among the rows, in words.
fn scan_words(style: &RowStyle<'_>, f: &ScanFinding) -> String {
    index_words(style.index, f)
}

/// A finding in words, those about the index's records naming it.
fn index_words(index: &str, f: &ScanFinding) -> String {
    match f {
        ScanFinding::Misfit(..) | ScanFinding::SplitFailed(..) => {
            format!("index {}: {f}", ibdscope::names::name(index))
        }
        _ => f.to_string(),
    }
}

/// A key as `(col='value', …)` (NULL bare).
fn key_text(t: &TableDef, key: &Key) -> String {
    let mut cell = String::new();
    let mut parts = Vec::new();
    for (ci, v) in key {
        let Some(col) = t.columns.get(*ci) else {
            continue;
        };
        cell.clear();
        let text = match v.render(col, &mut cell) {
            Some(FieldText::Null | FieldText::Dropped) => "NULL".to_string(),
            _ => format!("'{}'", ibdscope::names::name(&cell)),
        };
        parts.push(format!("{}={text}", ibdscope::names::name(&col.name)));
    }
    format!("({})", parts.join(", "))
}

/// A library finding in words, with its page and file offset.
fn finding_text(f: &ibdscope_core::Finding) -> String {
    match f.page {
        Some(p) => format!("page {p}: byte offset {}: {}", f.file_offset, f.kind),
        None => format!("byte offset {}: {}", f.file_offset, f.kind),
    }
}

/// Text-format escaping: tab, newline and `\` as `\t`, `\n`, `\\`; one
/// pass, runs with none of them copied whole.
fn text_escape(s: &[u8], out: &mut Vec<u8>) {
    let mut from = 0;
    for (i, b) in s.iter().enumerate() {
        let esc: &[u8] = match b {
            b'\t' => b"\\t",
            b'\n' => b"\\n",
            b'\\' => b"\\\\",
            _ => continue,
        };
        out.extend_from_slice(s.get(from..i).unwrap_or_default());
        out.extend_from_slice(esc);
        from = i.saturating_add(1);
    }
    out.extend_from_slice(s.get(from..).unwrap_or_default());
}

/// A MySQL string literal (`mysql_real_escape_string`'s escapes).
fn sql_string(s: &str, out: &mut String) {
    out.push('\'');
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            '\0' => out.push_str("\\0"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\u{1a}' => out.push_str("\\Z"),
            c => out.push(c),
        }
    }
    out.push('\'');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits() {
        assert_eq!(ibdscope::space::bits_decimal("b'101'"), "5");
        assert_eq!(ibdscope::space::bits_decimal("0x01"), "0x01");
    }

    /// The escapes as they were written before the one-pass ones: a
    /// character at a time.
    fn by_char(s: &str, tsv: bool) -> String {
        let mut out = String::new();
        for c in s.chars() {
            match (c, tsv) {
                ('\\', _) => out.push_str("\\\\"),
                ('\t', true) => out.push_str("\\\t"),
                ('\n', true) => out.push_str("\\\n"),
                ('\0', true) => out.push_str("\\0"),
                ('\t', false) => out.push_str("\\t"),
                ('\n', false) => out.push_str("\\n"),
                (c, _) => out.push(c),
            }
        }
        out
    }

    #[test]
    fn one_pass_escapes_are_the_character_ones() {
        let pieces = [
            "a", "é", "€", "\\", "\t", "\n", "\0", "\r", "xyzw1234", "\u{80}",
        ];
        let mut cases = vec![String::new()];
        // Every string of up to 3 pieces, and each piece at every offset
        // of a 19-byte run (across the eight-byte words).
        for a in pieces {
            cases.push(a.to_string());
            for b in pieces {
                cases.push(format!("{a}{b}"));
                for c in pieces {
                    cases.push(format!("{a}{b}{c}"));
                }
            }
            for k in 0..19 {
                cases.push(format!("{}{a}{}", "q".repeat(k), "r".repeat(19 - k)));
            }
        }
        for s in &cases {
            let mut out = String::from("<");
            ibdscope::space::tsv_escape(s, &mut out);
            assert_eq!(out, format!("<{}", by_char(s, true)), "{s:?}");
            // In place, after what the line holds already (which keeps
            // its bytes, escapes or not).
            let mut line = format!("<\\\t{s}").into_bytes();
            ibdscope::space::tsv_escape_tail(&mut line, 3);
            assert_eq!(
                line,
                format!("<\\\t{}", by_char(s, true)).as_bytes(),
                "{s:?}"
            );
            let mut out = Vec::new();
            text_escape(s.as_bytes(), &mut out);
            assert_eq!(out, by_char(s, false).as_bytes(), "{s:?}");
        }
    }

    #[test]
    fn escapes() {
        let mut s = String::new();
        ibdscope::space::tsv_escape("a\\b\tc\nd\0", &mut s);
        assert_eq!(s, "a\\\\b\\\tc\\\nd\\0");
        s.clear();
        crate::csv::push(&mut s, "a,\"b\"");
        assert_eq!(s, "\"a,\"\"b\"\"\"");
        s.clear();
        sql_string("it's\n", &mut s);
        assert_eq!(s, "'it\\'s\\n'");
    }
}
