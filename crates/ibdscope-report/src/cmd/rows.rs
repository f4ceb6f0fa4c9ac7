//! `rows`: every row of the clustered index (or a secondary index's
//! entries), typed, in key order along the leaf chain; `--deleted` for
//! delete-marked records and records on the pages' free (garbage) lists.
//!
//! Streaming: one leaf page at a time, one row at a time, into buffers
//! reused for the whole run (the split fields, the off-page bytes, the
//! rendered cell, the column slots, a ROW_FORMAT=COMPRESSED page
//! decompressed by `ibdscope_schema::zip`); nothing is kept per row. The library
//! splits and renders (`ibdscope_schema::row`, `ibdscope_schema::value`); this module
//! only picks columns and prints.
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
use ibdscope_core::record::Chain;
use ibdscope_core::{
    BtreeProblem, Btrees, Engine, FindingKind, IndexId, NoRecords, PageNo, RecFormat, RecPage,
    SpaceMap, Tablespace, Visited, FIL_NULL,
};
use ibdscope_schema::instant::{InstantError, MariaInstant};
use ibdscope_schema::leaves::{edge_record, leaves_in_key_order, NoPage, Placement, RecAt, Slot};
use ibdscope_schema::row::{data_is_zero, leftmost_leaf, render_field, split, Field, FieldText};
use ibdscope_schema::table::{Column, Hidden, IndexDef, RecordLayout, TableDef};
use ibdscope_schema::value::Rendered;
use std::collections::HashSet;
use std::io::{self, Write};
use std::path::Path;

/// Where a row comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Origin {
    Live,
    DeleteMarked,
    FreeList,
    /// A leaf page of the index that the leaf chain does not reach and
    /// the extent descriptors mark free: the index let go of it (merge,
    /// emptied page), its records are what was on it then.
    FreedPage,
    /// Such a page that is still allocated: unlinked by damage, or a
    /// page of an operation the file does not finish.
    UnlinkedPage,
}

impl Origin {
    fn word(self) -> &'static str {
        match self {
            Origin::Live => "live",
            Origin::DeleteMarked => "delete-marked",
            Origin::FreeList => "free-list",
            Origin::FreedPage => "freed-page",
            Origin::UnlinkedPage => "unlinked-page",
        }
    }
}

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

#[derive(Default)]
struct Counts {
    rows: u64,
    live: u64,
    delete_marked: u64,
    free_list: u64,
    /// Rows from leaf pages of the index off the leaf chain.
    off_chain: u64,
    /// Stale records (free lists, off-chain pages) equal to a live row.
    live_copies: u64,
    /// Those pages.
    off_chain_pages: u64,
    partial: u64,
    pages: u64,
    raw_values: u64,
    capped_values: u64,
    compressed_pages: u64,
    unreadable_pages: u64,
    metadata_records: u64,
    /// Rows read from pages that do not verify.
    unverified_rows: u64,
    /// Pages that do not verify, left out (`--verified-only`).
    unverified_pages_skipped: u64,
    /// Leaf pages the tree names that cannot be read: their rows are
    /// missing.
    lost_pages: u64,
    /// About how many rows they held (the mean of the index's readable
    /// leaves).
    lost_rows_estimate: u64,
    /// Leaves of the tree read (not off it) and their PAGE_N_RECS, for
    /// that mean.
    tree_pages: u64,
    tree_recs: u64,
    /// Leaf pages whose records do not fit the definition (`page_fit`),
    /// and the first few of them.
    misfit_pages: u64,
    misfit_first: Vec<(PageNo, ibdscope_schema::row::PageFit)>,
    /// Live records that could not be split with the definition (one
    /// finding for them all), and the first few.
    split_failed: u64,
    split_first: Vec<String>,
}

/// Everything reused across rows.
struct Printer<'w> {
    j: Json<'w>,
    format: Format,
    meta: bool,
    cap: usize,
    /// Columns to print, in order (indexes into the table's columns).
    cols: Vec<usize>,
    /// Per table column: its position in the current row's fields.
    slot: Vec<Option<usize>>,
    fields: Vec<Field>,
    buf: Vec<u8>,
    cell: String,
    line: String,
    /// Per-row problems (a reason per raw value, the split error).
    problems: Vec<String>,
    counts: Counts,
    /// Findings that make the exit code 1.
    findings: Vec<String>,
    /// Notes (not damage).
    notes: Vec<String>,
    /// `INSERT INTO `t` (`a`, `b`) VALUES (`.
    insert_prefix: String,
    /// The decompressed ROW_FORMAT=COMPRESSED page (reused).
    zip: Vec<u8>,
    /// Set while reading a leaf page off the leaf chain: every record's
    /// origin.
    off_chain: Option<Origin>,
    /// The row being printed is a copy of a live row.
    twin: bool,
    /// What a walk over the leaves does (`--deleted` makes two collecting
    /// walks before the printing one).
    mode: Mode,
    /// Key hashes of the records on free lists and off-chain pages.
    stale_keys: HashSet<u64>,
    /// Whole-record hashes of live rows whose key is among `stale_keys`:
    /// a stale record with one of these is a copy of a live row (left by a
    /// page split, a merge or an update in place), not a deleted row.
    live_twins: HashSet<u64>,
    /// The pages that do not verify (what `check` says), in page order.
    damaged: Vec<PageNo>,
    /// Leave their rows out.
    verified_only: bool,
    /// The page being read does not verify: its rows are marked.
    unverified: bool,
    /// The physical page size, for file offsets.
    page_size: u64,
    /// The file, for lines on stderr.
    path: String,
    /// The leaf chain's findings of leaves it does not reach: given only
    /// when recovery does not read them.
    unreached: Vec<(PageNo, String)>,
    /// The pages the tree names that cannot be read, in key order, with
    /// the readable leaves around them.
    lost: Vec<Lost>,
}

/// A page the tree names that cannot be read, and its neighbours in key
/// order.
struct Lost {
    page: PageNo,
    level: u16,
    why: NoPage,
    /// The node pointer naming it (a lower bound of its keys).
    low: Option<RecAt>,
    /// The readable leaves before and after it.
    before: Option<PageNo>,
    after: Option<PageNo>,
    /// The keys around it, as text: the last before, the first after, the
    /// node pointer's (filled by [`Printer::lost_findings`]).
    keys: [Option<String>; 3],
}

/// What one walk over the leaves does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// Collect `stale_keys`.
    StaleKeys,
    /// Collect `live_twins`.
    LiveTwins,
    /// Print.
    Print,
}

/// Hashes of a split record: its key (the first `n_key` fields) and the
/// whole record, over the stored bytes of every field (an off-page field
/// by its local part and its reference, which a moved copy keeps).
fn record_hashes(page: &[u8], fields: &[Field], n_key: usize) -> (u64, u64) {
    use ibdscope_schema::row::FieldValue;
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    let mut key = 0;
    for (i, f) in fields.iter().enumerate() {
        if i == n_key {
            key = h.finish();
        }
        match f.value {
            FieldValue::Null => 0u8.hash(&mut h),
            FieldValue::Default => 1u8.hash(&mut h),
            FieldValue::Dropped => 2u8.hash(&mut h),
            FieldValue::Inline { .. } => {
                3u8.hash(&mut h);
                f.local(page).hash(&mut h);
            }
            FieldValue::External { blob, .. } => {
                4u8.hash(&mut h);
                f.local(page).hash(&mut h);
                (blob.space_id, blob.page.0, blob.offset, blob.len).hash(&mut h);
            }
        }
    }
    let all = h.finish();
    (if fields.len() <= n_key { all } else { key }, all)
}

/// The definition as the records are decoded with it, shared by `rows`
/// and `history`.
pub(crate) struct Decoding {
    /// The definition, with the shape of MariaDB instant ALTER's records
    /// and the temporal formats the records show.
    pub def: Def,
    /// MariaDB instant ALTER's metadata record, when the index has one.
    pub instant: Result<Option<(MariaInstant, RecordLayout)>, InstantError>,
    /// Whether the records show pre-5.6.4 temporal formats.
    pub old_temporals: bool,
}

/// The file's definition made ready for decoding its records; `None`
/// (said on stderr) when there is none.
pub(crate) fn decoding(a: &Analysis<'_>) -> Option<Decoding> {
    let mut def = match a.definition() {
        Ok(d) => d.clone(),
        Err(e) => {
            // The reason may quote the DDL or .frm: no raw control characters.
            crate::diag::say!("ibdscope: {}", ibdscope::names::name(e));
            return None;
        }
    };
    // MariaDB instant ALTER: the clustered index's records are in the
    // shape the metadata record describes, not the definition's.
    let instant = ibdscope_schema::instant::apply(a.ts(), &mut def.table);
    // A CREATE TABLE's TIME/DATETIME/TIMESTAMP: the records say which format.
    let old_temporals = ibdscope_schema::row::old_temporals(a.ts(), &mut def.table);
    Some(Decoding {
        def,
        instant,
        old_temporals,
    })
}

/// Runs `rows`.
pub fn run(
    opts: &Opts,
    a: &Analysis<'_>,
    r: &RowsOpts,
    out: &mut dyn Write,
) -> io::Result<Outcome> {
    let (path, ts) = (a.path(), a.ts());
    let Some(Decoding {
        def,
        instant,
        old_temporals,
    }) = decoding(a)
    else {
        return Ok(Outcome::Unreadable);
    };
    let t = &def.table;
    let Some(ix) = find_index(path, t, r) else {
        return Ok(Outcome::Unreadable);
    };
    let Some((root, root_rp)) = root_page(ts, path, ix) else {
        return Ok(Outcome::Unreadable);
    };
    let Some(layout) = index_layout(path, t, ix, &instant, &root_rp) else {
        return Ok(Outcome::Unreadable);
    };
    let cols = columns(t, &layout, r.hidden);
    let meta = r.deleted || r.with_deleted;
    let mut p = Printer::new(out, opts, a, meta, r.max_value_bytes, cols, t.columns.len());
    for f in a.file_findings() {
        p.findings.push(finding_text(f));
    }
    // Every page with findings, by its verdict (the word every command
    // gives it), whether or not the walk reaches it.
    for b in a.damaged_pages() {
        let v = &b.judgement;
        p.findings.push(format!(
            "page {} at byte offset {}: {v}",
            v.page, v.file_offset
        ));
    }
    p.header(path, &def, ix)?;

    // The leaf pages: one page, or the leaf chain the B-tree walk found.
    let mut visited = Visited::new();
    let index_id = root_rp.header().index_id();
    let (chain, broken) = match r.where_page {
        Some(n) => match one_leaf(ts, path, ix, &root_rp, n) {
            Some(chain) => (chain, false),
            None => return Ok(Outcome::Unreadable),
        },
        None => leaf_chain(ts, a.engine(), root, index_id, &layout, &mut p)?,
    };
    let pages = if broken {
        // The chain does not reach every leaf: the leaves in key order from
        // the parents' node pointers (and, below lost parents, by key).
        let order = leaves_in_key_order(ts, a.engine(), root, index_id, &layout);
        p.recovery(&order, meta)
    } else {
        for (_, f) in std::mem::take(&mut p.unreached) {
            p.findings.push(f);
        }
        pages_to_read(ts, &chain, meta && r.where_page.is_none(), index_id)
    };
    if meta {
        // Two collecting walks first: the keys of the stale records (free
        // lists, off-chain pages), then the live rows with those keys; a
        // stale record equal to a live row is then marked a copy.
        let saved = (
            std::mem::take(&mut p.counts),
            std::mem::take(&mut p.findings),
            std::mem::take(&mut p.notes),
        );
        for mode in [Mode::StaleKeys, Mode::LiveTwins] {
            p.mode = mode;
            p.walk(ts, t, &layout, &pages, r, &mut visited, a)?;
        }
        p.mode = Mode::Print;
        (p.counts, p.findings, p.notes) = saved;
    }
    p.walk(ts, t, &layout, &pages, r, &mut visited, a)?;
    p.counts.off_chain_pages = pages.iter().filter(|x| x.1.is_some()).count() as u64;
    p.lost_findings(ts, t, &layout);
    p.closing_findings(ts);
    p.fit_findings(&ix.name, old_temporals);
    // Values shown that are not the server's (DECIMAL's bytes, ENUM's and
    // SET's numbers, from a dictionary without their types) are a finding.
    if p.counts.rows > 0 {
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
    p.footer()?;
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

/// The index's root page; says on stderr why when it cannot be read.
pub(crate) fn root_page<'t>(
    ts: &Tablespace<'t>,
    path: &Path,
    ix: &IndexDef,
) -> Option<(PageNo, RecPage<'t>)> {
    let Some(root) = ix.root.map(PageNo) else {
        let f = ts.format();
        // Encrypted (MySQL's flag, or MariaDB's crypt data): the key, or
        // its absence, was said once above; this names only the
        // consequence, not a root page missing from the file.
        let mariadb_encrypted = matches!(
            ibdscope_core::crypt::mariadb::space_crypt_data(ts),
            ibdscope_core::crypt::mariadb::CryptDataRead::Present(c) if c.scheme == 1
        );
        if f.encryption || mariadb_encrypted {
            crate::diag::say!(
                "ibdscope: {}: index {}: its root page is not known: the file is encrypted \
                 and its pages are not decrypted (no key, or one that does not open it: see above)",
                ibdscope::names::path(path),
                ibdscope::names::name(&ix.name)
            );
            return None;
        }
        let why = if f.page_compressed {
            ": the file is PAGE_COMPRESSED and its INODE page could not be decompressed"
        } else {
            ""
        };
        crate::diag::say!(
            "ibdscope: {}: index {} has no root page in this file{why}",
            ibdscope::names::path(path),
            ibdscope::names::name(&ix.name)
        );
        return None;
    };
    let root_rp = match RecPage::of(ts, root) {
        Ok(rp) => rp,
        Err(e) => {
            let why = match e {
                NoRecords::PastFile => "past the end of the file".to_string(),
                NoRecords::NotIndex(t) => format!("a type {} page, not an index page", t.0),
                NoRecords::Unreadable(_) if ts.format().encryption => {
                    "encrypted and not decrypted (no key, or one that does not open it: see above)"
                        .to_string()
                }
                NoRecords::Unreadable(_) => {
                    "encrypted, or page-compressed and not decompressed (see above)".to_string()
                }
            };
            crate::diag::say!(
                "ibdscope: {}: root page {root} of index {}: {why}",
                ibdscope::names::path(path),
                ibdscope::names::name(&ix.name)
            );
            return None;
        }
    };
    Some((root, root_rp))
}

/// The index's record layout: MariaDB's instant ALTER layout for the
/// clustered index when the metadata record gives one, else the
/// definition's; says on stderr why when there is none.
pub(crate) fn index_layout(
    path: &Path,
    t: &TableDef,
    ix: &IndexDef,
    instant: &Result<Option<(MariaInstant, RecordLayout)>, InstantError>,
    root_rp: &RecPage<'_>,
) -> Option<RecordLayout> {
    let instant_layout = match instant {
        Ok(Some((_, l))) if t.clustered() == Some(ix) => Some(Ok(l.clone())),
        Err(e) if t.clustered() == Some(ix) => {
            crate::diag::say!(
                "ibdscope: {}: MariaDB instant ALTER metadata: {e}",
                ibdscope::names::path(path)
            );
            return None;
        }
        _ => None,
    };
    let layout = match instant_layout
        .unwrap_or_else(|| t.layout(ix, root_rp.format() == RecFormat::Compact))
    {
        Ok(l) => l,
        Err(e) => {
            crate::diag::say!(
                "ibdscope: {}: index {}: record layout: {e}",
                ibdscope::names::path(path),
                ibdscope::names::name(&ix.name)
            );
            return None;
        }
    };
    Some(layout)
}

impl<'w> Printer<'w> {
    /// A printer with empty buffers, writing to `out`.
    fn new(
        out: &'w mut dyn Write,
        opts: &Opts,
        a: &Analysis<'_>,
        meta: bool,
        cap: usize,
        cols: Vec<usize>,
        n_columns: usize,
    ) -> Self {
        Printer {
            j: Json::new(out),
            format: opts.format,
            meta,
            cap,
            cols,
            slot: vec![None; n_columns],
            fields: Vec::new(),
            buf: Vec::new(),
            cell: String::new(),
            line: String::new(),
            problems: Vec::new(),
            counts: Counts::default(),
            findings: Vec::new(),
            notes: Vec::new(),
            insert_prefix: String::new(),
            zip: Vec::new(),
            off_chain: None,
            twin: false,
            mode: Mode::Print,
            stale_keys: HashSet::new(),
            live_twins: HashSet::new(),
            damaged: a.damaged_pages().iter().map(|b| b.facts.page_no).collect(),
            verified_only: opts.verified_only,
            unverified: false,
            page_size: u64::from(a.physical().page_size()),
            path: ibdscope::names::path(a.path()).to_string(),
            unreached: Vec::new(),
            lost: Vec::new(),
        }
    }
}

/// `--where-page N`: page N alone, when it is a leaf page of the index;
/// says on stderr why not.
fn one_leaf(
    ts: &Tablespace<'_>,
    path: &Path,
    ix: &IndexDef,
    root_rp: &RecPage<'_>,
    n: u32,
) -> Option<Vec<PageNo>> {
    match RecPage::of(ts, PageNo(n)) {
        Ok(rp) if rp.header().index_id() == root_rp.header().index_id() && rp.is_leaf() => {
            Some(vec![PageNo(n)])
        }
        Ok(_) => {
            crate::diag::say!(
                "ibdscope: {}: page {n} is not a leaf page of index {}",
                ibdscope::names::path(path),
                ibdscope::names::name(&ix.name)
            );
            None
        }
        Err(_) => {
            crate::diag::say!(
                "ibdscope: {}: page {n} is not a readable index page",
                ibdscope::names::path(path)
            );
            None
        }
    }
}

/// The pages to read: the leaf chain, then with --deleted / --with-deleted
/// the index's leaf pages the chain does not reach (freed by merges or
/// emptied; or unlinked), which keep the records they last held (one
/// header read per page).
fn pages_to_read(
    ts: &Tablespace<'_>,
    chain: &[PageNo],
    off_chain: bool,
    index_id: IndexId,
) -> Vec<(PageNo, Option<Origin>)> {
    let mut pages: Vec<(PageNo, Option<Origin>)> = chain.iter().map(|&n| (n, None)).collect();
    if off_chain {
        let mut on_chain = vec![false; ts.n_pages() as usize];
        for &n in chain {
            if let Some(b) = on_chain.get_mut(n.0 as usize) {
                *b = true;
            }
        }
        for (k, &c) in on_chain.iter().enumerate() {
            let n = PageNo(k as u32);
            if c {
                continue;
            }
            let Ok(rp) = RecPage::of(ts, n) else { continue };
            if rp.header().index_id() != index_id || !rp.is_leaf() {
                continue;
            }
            pages.push((
                n,
                Some(if ts.is_free(n) == Some(true) {
                    Origin::FreedPage
                } else {
                    Origin::UnlinkedPage
                }),
            ));
        }
    }
    pages
}

impl Printer<'_> {
    /// Byte offset of page `n` in the file.
    fn file_offset(&self, n: PageNo) -> u64 {
        u64::from(n.0).saturating_mul(self.page_size)
    }

    /// The pages to read when the leaf chain is broken: the leaves in
    /// `order` (key order), then with `meta` the index's leaves off the
    /// tree (unlinked: allocated; freed: the extent descriptor says free)
    /// in page order. Keeps the lost pages for [`Printer::lost_findings`];
    /// the chain's findings of leaves it does not reach are replaced by a
    /// note for those `order` reads.
    fn recovery(
        &mut self,
        order: &ibdscope_schema::leaves::LeafOrder,
        meta: bool,
    ) -> Vec<(PageNo, Option<Origin>)> {
        let mut pages: Vec<(PageNo, Option<Origin>)> = Vec::new();
        let (mut by_key, mut by_chain) = (0u64, 0u64);
        let mut last_leaf: Option<PageNo> = None;
        let mut waiting: Vec<usize> = Vec::new();
        for slot in &order.slots {
            match *slot {
                Slot::Leaf { page, placement } => {
                    pages.push((page, None));
                    match placement {
                        Placement::Key => by_key += 1,
                        Placement::Chain => by_chain += 1,
                        Placement::Pointer => {}
                    }
                    for k in waiting.drain(..) {
                        if let Some(l) = self.lost.get_mut(k) {
                            l.after = Some(page);
                        }
                    }
                    last_leaf = Some(page);
                }
                Slot::Lost {
                    page,
                    level,
                    low,
                    why,
                } => {
                    waiting.push(self.lost.len());
                    self.lost.push(Lost {
                        page,
                        level,
                        why,
                        low,
                        before: last_leaf,
                        after: None,
                        keys: [None, None, None],
                    });
                }
            }
        }
        let mut placed: Vec<PageNo> = pages.iter().map(|x| x.0).collect();
        placed.sort_unstable();
        let mut recovered = 0u64;
        for (n, f) in std::mem::take(&mut self.unreached) {
            if placed.binary_search(&n).is_ok() {
                recovered += 1;
            } else {
                self.findings.push(f);
            }
        }
        if recovered > 0 {
            self.notes.push(format!(
                "the leaf chain is broken: {recovered} leaves it does not reach were read in key \
                 order, from their parents' node pointers{}",
                if by_key + by_chain > 0 {
                    format!(
                        " ({by_key} placed by their first key and {by_chain} along their sibling \
                         links below lost non-leaf pages: byte order of the stored key, exact for \
                         numbers, dates and binary strings)"
                    )
                } else {
                    String::new()
                }
            ));
        }
        for pr in &order.problems {
            self.findings.push(pr.to_string());
        }
        if !order.unlinked.is_empty() {
            self.notes.push(format!(
                "{} allocated leaf pages of the index are named by no node pointer and fall in no \
                 gap of the tree: not part of it, their records are not live rows (--deleted \
                 shows them as unlinked-page)",
                order.unlinked.len()
            ));
        }
        if meta {
            let mut off: Vec<(PageNo, Option<Origin>)> = (order.unlinked.iter())
                .map(|&n| (n, Some(Origin::UnlinkedPage)))
                .chain(order.freed.iter().map(|&n| (n, Some(Origin::FreedPage))))
                .collect();
            off.sort_unstable_by_key(|x| x.0);
            pages.extend(off);
        }
        pages
    }

    /// One finding per page the tree names that cannot be read: a leaf's
    /// rows are missing (counted, about how many, and between which keys).
    fn lost_findings(
        &mut self,
        ts: &Tablespace<'_>,
        t: &ibdscope_schema::table::TableDef,
        layout: &RecordLayout,
    ) {
        if self.lost.is_empty() {
            return;
        }
        let c = &self.counts;
        let mean = (c.tree_recs).checked_div(c.tree_pages).unwrap_or(0);
        let mut visited = Visited::new();
        let mut lost = std::mem::take(&mut self.lost);
        for l in &mut lost {
            let at = self.file_offset(l.page);
            if l.level > 0 {
                let what = match l.why {
                    NoPage::Pointers => {
                        "its node pointers cannot be read from some record on".to_string()
                    }
                    why => format!("cannot be read ({why})"),
                };
                self.findings.push(format!(
                    "non-leaf page {} (byte offset {at}, level {}): {what}: the leaves it would \
                     name were looked for among the index's other leaves, by key",
                    l.page, l.level
                ));
                continue;
            }
            self.counts.lost_pages += 1;
            self.counts.lost_rows_estimate += mean;
            let key = |p: Option<PageNo>, edge: Edge, v: &mut Visited| {
                p.and_then(|p| key_text(ts, t, layout, p, edge, v))
            };
            let before = key(l.before, Edge::Last, &mut visited);
            let after = key(l.after, Edge::First, &mut visited);
            let low = l
                .low
                .and_then(|r| key_text(ts, t, layout, r.page, Edge::At(r.origin), &mut visited));
            let mut f = format!(
                "leaf page {} (byte offset {at}) is lost ({}): its rows are missing (about {mean}, \
                 the mean of the index's readable leaves), keys after {} and before {}",
                l.page,
                l.why,
                before.as_deref().unwrap_or("the first"),
                after.as_deref().unwrap_or("the last"),
            );
            if let Some(low) = &low {
                f.push_str(&format!(
                    "; its parent's node pointer gives a lower bound of its keys: {low}"
                ));
            }
            self.findings.push(f);
            l.keys = [before, after, low];
        }
        self.lost = lost;
    }

    /// The findings and notes the walk's counts give, after the rows.
    fn closing_findings(&mut self, ts: &Tablespace<'_>) {
        if self.counts.compressed_pages > 0 {
            self.findings.push(format!(
                "{} ROW_FORMAT=COMPRESSED leaf pages could not be decompressed: their rows are \
                 missing from the output",
                self.counts.compressed_pages
            ));
        }
        if self.counts.unreadable_pages > 0 {
            self.findings.push(format!(
                "{} leaf pages are {}: their rows are missing from the output",
                self.counts.unreadable_pages,
                if ts.format().encryption {
                    "encrypted"
                } else {
                    "encrypted or page-compressed (not decoded: not implemented)"
                }
            ));
        }
        if self.counts.live_copies > 0 {
            self.notes.push(format!(
                "{} of the rows from free lists and off-chain pages are copies of live rows (same \
                 key and bytes: left by page splits, merges or updates), not deleted rows",
                self.counts.live_copies
            ));
        }
        if self.counts.off_chain_pages > 0 {
            self.notes.push(format!(
                "{} rows from {} leaf pages of the index that the leaf chain does not reach \
                 (freed-page: the extent descriptors mark the page free; unlinked-page: still \
                 allocated)",
                self.counts.off_chain, self.counts.off_chain_pages
            ));
        }
        if self.counts.metadata_records > 0 {
            self.notes.push(format!(
                "{} MariaDB instant ALTER metadata records skipped (not rows)",
                self.counts.metadata_records
            ));
        }
    }

    /// What the definition's fit with the records says (`name`: the index).
    fn fit_findings(&mut self, name: &str, old_temporals: bool) {
        if self.counts.misfit_pages > 0 {
            let first: Vec<String> = (self.counts.misfit_first.iter())
                .map(|(n, f)| {
                    format!(
                        "page {n}: {} records take {} bytes split with it, the page header says {}{}",
                        f.records,
                        f.summed,
                        f.stated,
                        match f.fields_differ {
                            0 => String::new(),
                            k => format!(", {k} records' own field counts or lengths differ"),
                        }
                    )
                })
                .collect();
            self.findings.push(format!(
                "index {}: the definition does not fit the records on {} of {} leaf pages ({}): \
                 its columns are not the ones the records hold, the values shown are wrong",
                ibdscope::names::name(name),
                self.counts.misfit_pages,
                self.counts.pages,
                first.join("; ")
            ));
        }
        if self.counts.split_failed > 0 {
            self.findings.push(format!(
                "index {}: {} live records could not be split into the definition's fields \
                 (damaged, or the definition does not fit them; first: {})",
                ibdscope::names::name(name),
                self.counts.split_failed,
                self.counts.split_first.join("; ")
            ));
        }
        if old_temporals {
            self.notes.push(
                "the records hold TIME/DATETIME/TIMESTAMP in MySQL's pre-5.6.4 formats (their \
                 lengths fit those, not the 5.6.4+ ones): read so"
                    .to_string(),
            );
        }
    }
}

/// The columns printed: for the clustered index the table's columns in
/// table order that its records store (virtual and dropped ones left out),
/// then, with `hidden`, the system columns; for a secondary index its
/// fields in index order.
fn columns(
    t: &ibdscope_schema::table::TableDef,
    layout: &RecordLayout,
    hidden: bool,
) -> Vec<usize> {
    let stored = |c: usize| layout.fields.iter().any(|f| f.column == c);
    // With `hidden`: the system columns, and the fields of columns MariaDB
    // dropped instantly (`!dropped_N`, still in old records).
    let shown = |c: &Column| {
        c.version_dropped.is_none()
            && (c.hidden == Hidden::Visible
                || (hidden && (c.sys().is_some() || c.hidden == Hidden::Se)))
    };
    if layout.clustered {
        let mut v: Vec<usize> = (0..t.columns.len())
            .filter(|&i| {
                stored(i)
                    && t.columns
                        .get(i)
                        .is_some_and(|c| c.hidden == Hidden::Visible && shown(c))
            })
            .collect();
        if hidden {
            v.extend((0..t.columns.len()).filter(|&i| {
                stored(i)
                    && t.columns
                        .get(i)
                        .is_some_and(|c| c.hidden != Hidden::Visible && shown(c))
            }));
        }
        v
    } else {
        let mut v: Vec<usize> = Vec::new();
        for f in &layout.fields {
            if t.columns.get(f.column).is_some_and(shown) && !v.contains(&f.column) {
                v.push(f.column);
            }
        }
        v
    }
}

/// The leaf chain of the index whose root is `root`, from the B-tree walk
/// (its findings become findings; those of leaves the chain does not
/// reach are kept in `p.unreached`); when the walk does not know the index
/// (its segments unreadable), the chain from the leftmost leaf along
/// FIL_PAGE_NEXT, bounded by the pages of the file. True with it when the
/// chain is broken (a finding of the index's tree).
fn leaf_chain(
    ts: &Tablespace<'_>,
    engine: &Engine<'_>,
    root: PageNo,
    index_id: IndexId,
    layout: &RecordLayout,
    p: &mut Printer<'_>,
) -> io::Result<(Vec<PageNo>, bool)> {
    let map = SpaceMap::build(ts, engine);
    let infos: Vec<_> = map
        .indexes
        .iter()
        .filter(|i| i.root == root)
        .copied()
        .collect();
    if !infos.is_empty() {
        let trees = Btrees::build_from(ts, engine, &infos, |n| match map.owner(ts, n) {
            Some(ibdscope_core::Owner::Segment { index, .. }) => index,
            _ => None,
        });
        if let Some(tree) = trees.indexes.iter().find(|t| t.root == root) {
            let mut broken = false;
            for f in &trees.findings {
                if let FindingKind::Btree(bp) = f.kind {
                    if bp.index() != index_id {
                        continue;
                    }
                    // Stale records on free lists are what --deleted reads,
                    // not damage of the rows.
                    if matches!(bp, BtreeProblem::Records { .. }) {
                        p.notes.push(finding_text(f));
                        continue;
                    }
                    broken = true;
                    if let (BtreeProblem::Unreached { level: 0, .. }, Some(n)) = (bp, f.page) {
                        p.unreached.push((n, finding_text(f)));
                        continue;
                    }
                }
                p.findings.push(finding_text(f));
            }
            let whole = tree.leaves_reached() == tree.leaf_pages;
            return Ok((tree.leaf_chain.clone(), broken || !whole));
        }
    }
    // No B-tree from the space map: walk from the root.
    let mut visited = Visited::new();
    let mut fields = Vec::new();
    let mut page = match leftmost_leaf(ts, root, layout, &mut visited, &mut fields) {
        Ok(n) => n,
        Err(e) => {
            p.findings
                .push(format!("the leftmost leaf was not reached: {e}"));
            return Ok((Vec::new(), true));
        }
    };
    let mut broken = false;
    let mut seen = vec![false; ts.n_pages() as usize];
    let mut chain = Vec::new();
    loop {
        match seen.get_mut(page.0 as usize) {
            Some(s) if !*s => *s = true,
            Some(_) => {
                p.findings
                    .push(format!("leaf chain loops back to page {page}"));
                broken = true;
                break;
            }
            None => {
                p.findings
                    .push(format!("leaf chain points past the file: page {page}"));
                broken = true;
                break;
            }
        }
        let Ok(rp) = RecPage::of(ts, page) else {
            p.findings
                .push(format!("leaf chain reaches page {page}, not an index page"));
            broken = true;
            break;
        };
        if rp.header().index_id() != index_id || !rp.is_leaf() {
            p.findings.push(format!(
                "leaf chain reaches page {page}, not a leaf of the index"
            ));
            broken = true;
            break;
        }
        chain.push(page);
        let next = ibdscope_core::fil::FilHeader::new(rp.bytes()).map(|h| h.next());
        match next {
            Some(n) if n.0 != FIL_NULL => page = n,
            _ => break,
        }
    }
    Ok((chain, broken))
}

impl Printer<'_> {
    /// Reads `pages` in order (each with the origin of all its records when
    /// it is off the leaf chain), telling `a`'s progress hook how far.
    #[allow(clippy::too_many_arguments)]
    fn walk(
        &mut self,
        ts: &Tablespace<'_>,
        t: &ibdscope_schema::table::TableDef,
        layout: &RecordLayout,
        pages: &[(PageNo, Option<Origin>)],
        r: &RowsOpts,
        visited: &mut Visited,
        a: &Analysis<'_>,
    ) -> io::Result<()> {
        for (i, &(n, off_chain)) in pages.iter().enumerate() {
            a.progress(i + 1, pages.len());
            self.off_chain = off_chain;
            self.unverified = self.damaged.binary_search(&n).is_ok();
            if self.unverified && self.mode == Mode::Print {
                if self.verified_only {
                    self.counts.unverified_pages_skipped += 1;
                    self.findings.push(format!(
                        "leaf page {n} does not verify: its rows are left out (--verified-only)"
                    ));
                    continue;
                }
            } else if self.unverified && self.verified_only {
                continue;
            }
            let rows_before = self.counts.rows;
            match RecPage::of(ts, n) {
                Ok(rp) => self.page(ts, t, layout, &rp, n, r, visited)?,
                Err(NoRecords::Unreadable(_)) => {
                    self.counts.unreadable_pages += 1;
                }
                Err(_) => self
                    .findings
                    .push(format!("leaf page {n}: not an index page")),
            }
            if self.unverified && self.mode == Mode::Print {
                self.findings.push(format!(
                    "leaf page {n} does not verify (byte offset {}): its {} rows are shown, \
                     marked unverified, and may be wrong",
                    self.file_offset(n),
                    self.counts.rows.saturating_sub(rows_before)
                ));
            }
        }
        self.off_chain = None;
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn page(
        &mut self,
        ts: &Tablespace<'_>,
        t: &ibdscope_schema::table::TableDef,
        layout: &RecordLayout,
        rp: &RecPage<'_>,
        n: PageNo,
        r: &RowsOpts,
        visited: &mut Visited,
    ) -> io::Result<()> {
        self.counts.pages += 1;
        if self.off_chain.is_none() {
            self.counts.tree_pages += 1;
            self.counts.tree_recs += u64::from(rp.header().n_recs());
        }
        if rp.is_compressed() {
            // ROW_FORMAT=COMPRESSED: rebuild the page as the server does
            // (page0zip.cc), then read it like any other.
            let mut zip = std::mem::take(&mut self.zip);
            let logical = rp.logical_size();
            let res = match ibdscope_schema::zip::decompress(rp.bytes(), logical as usize, &mut zip)
            {
                Ok(_) => match RecPage::new(&zip, logical) {
                    Some(z) => self.records(ts, t, layout, &z, n, r, visited),
                    None => Ok(()),
                },
                Err(e) => {
                    self.counts.compressed_pages += 1;
                    self.findings
                        .push(format!("page {n}: ROW_FORMAT=COMPRESSED page: {e}"));
                    Ok(())
                }
            };
            self.zip = zip;
            return res;
        }
        if self.mode == Mode::Print && self.off_chain.is_none() {
            let fit = ibdscope_schema::row::page_fit(rp, layout, visited, &mut self.fields);
            if let Some(f) = fit.filter(|f| !f.fits()) {
                self.counts.misfit_pages += 1;
                if self.counts.misfit_first.len() < 3 {
                    self.counts.misfit_first.push((n, f));
                }
            }
        }
        self.records(ts, t, layout, rp, n, r, visited)
    }

    /// The rows of one readable (uncompressed or decompressed) leaf page.
    #[allow(clippy::too_many_arguments)]
    fn records(
        &mut self,
        ts: &Tablespace<'_>,
        t: &ibdscope_schema::table::TableDef,
        layout: &RecordLayout,
        rp: &RecPage<'_>,
        n: PageNo,
        r: &RowsOpts,
        visited: &mut Visited,
    ) -> io::Result<()> {
        for chain in [Chain::User, Chain::Free] {
            if chain == Chain::Free && !self.meta {
                continue;
            }
            let it = match chain {
                Chain::User => rp.records(visited),
                Chain::Free => rp.free_records(visited),
            };
            let Some(mut it) = it else { continue };
            loop {
                let rec = match it.next() {
                    Ok(Some(rec)) => rec,
                    Ok(None) => break,
                    Err(e) => {
                        if chain == Chain::User {
                            self.findings.push(format!("page {n}: record chain {e}"));
                        }
                        break;
                    }
                };
                if !rec.is_user() {
                    continue;
                }
                let origin = match (self.off_chain, chain, rec.header.is_deleted()) {
                    (Some(o), _, _) => o,
                    (None, Chain::Free, _) => Origin::FreeList,
                    (None, Chain::User, true) => Origin::DeleteMarked,
                    (None, Chain::User, false) => Origin::Live,
                };
                if chain == Chain::User && rec.header.is_min_rec() {
                    // MariaDB's instant ALTER metadata record.
                    self.counts.metadata_records += 1;
                    continue;
                }
                let keep = self.mode != Mode::Print
                    || match origin {
                        Origin::Live => !r.deleted,
                        _ => r.deleted || r.with_deleted,
                    };
                if !keep {
                    continue;
                }
                self.row(ts, t, layout, rp, n, &rec, origin)?;
            }
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn row(
        &mut self,
        ts: &Tablespace<'_>,
        t: &ibdscope_schema::table::TableDef,
        layout: &RecordLayout,
        rp: &RecPage<'_>,
        n: PageNo,
        rec: &ibdscope_core::Rec,
        origin: Origin,
    ) -> io::Result<()> {
        self.problems.clear();
        self.twin = false;
        let mut erased = false;
        let stale = matches!(
            origin,
            Origin::FreeList | Origin::FreedPage | Origin::UnlinkedPage
        );
        let split_res = split(rp, rec, layout, &mut self.fields);
        let split_err = split_res.as_ref().err().copied();
        if self.mode != Mode::Print || (stale && !self.live_twins.is_empty()) {
            let (key, all) = match &split_res {
                Ok(_) => record_hashes(rp.bytes(), &self.fields, layout.n_unique),
                Err(_) => return Ok(()),
            };
            match self.mode {
                Mode::StaleKeys => {
                    if stale {
                        self.stale_keys.insert(key);
                    }
                    return Ok(());
                }
                Mode::LiveTwins => {
                    if origin == Origin::Live && self.stale_keys.contains(&key) {
                        self.live_twins.insert(all);
                    }
                    return Ok(());
                }
                Mode::Print => {
                    if self.live_twins.contains(&all) {
                        self.counts.live_copies += 1;
                        self.twin = true;
                    }
                }
            }
        }
        match split_res {
            Ok(info) => {
                if origin != Origin::Live
                    && origin != Origin::DeleteMarked
                    && data_is_zero(rp.bytes(), &info)
                {
                    erased = true;
                    self.problems.push(
                        "erased: every data byte of the record is zero (MariaDB 10.6+ \
                         zero-fills the records purge frees); no value survives"
                            .to_string(),
                    );
                }
            }
            Err(e) => self.problems.push(format!("record: {e}")),
        }
        self.fill_slots(layout);
        self.counts.rows += 1;
        if self.unverified {
            self.counts.unverified_rows += 1;
        }
        match origin {
            Origin::Live => self.counts.live += 1,
            Origin::DeleteMarked => self.counts.delete_marked += 1,
            Origin::FreeList => self.counts.free_list += 1,
            Origin::FreedPage | Origin::UnlinkedPage => self.counts.off_chain += 1,
        }
        self.begin_row(n, rec.origin, origin)?;
        self.cells(ts, t, rp.bytes(), erased)?;
        let complete = self.problems.is_empty();
        if !complete {
            self.counts.partial += 1;
            if let (Origin::Live, Some(e)) = (origin, split_err) {
                // Counted: a definition that does not fit fails every row.
                self.counts.split_failed += 1;
                if self.counts.split_first.len() < 3 {
                    (self.counts.split_first)
                        .push(format!("page {n} record at byte {}: {e}", rec.origin));
                }
            } else if origin == Origin::Live {
                let mut what = format!("page {n} record at byte {}: ", rec.origin);
                what.push_str(&self.problems.join("; "));
                self.findings.push(what);
            }
        }
        self.end_row(n, rec.origin, origin)
    }

    /// Which field shows each column (`self.slot`).
    fn fill_slots(&mut self, layout: &RecordLayout) {
        for s in self.slot.iter_mut() {
            *s = None;
        }
        // A column stored twice (a key on its prefix, then the whole column
        // among the others: dict_index_build_internal_clust) shows the
        // whole one.
        let is_prefix = |f: &Field| {
            layout
                .fields
                .get(usize::from(f.layout_idx))
                .is_some_and(|l| l.prefix_len.is_some())
        };
        for (i, f) in self.fields.iter().enumerate() {
            if let Some(s) = self.slot.get_mut(f.column) {
                let replace = match *s {
                    None => true,
                    Some(j) => self.fields.get(j).is_some_and(is_prefix) && !is_prefix(f),
                };
                if replace {
                    *s = Some(i);
                }
            }
        }
    }

    /// Renders and prints the row's cells (all missing when `erased`).
    fn cells(
        &mut self,
        ts: &Tablespace<'_>,
        t: &ibdscope_schema::table::TableDef,
        page: &[u8],
        erased: bool,
    ) -> io::Result<()> {
        for k in 0..self.cols.len() {
            let Some(&ci) = self.cols.get(k) else { break };
            let Some(col) = t.columns.get(ci) else {
                continue;
            };
            self.cell.clear();
            let cell = match self.slot.get(ci).copied().flatten() {
                _ if erased => Cell::Missing,
                None => Cell::Missing,
                Some(fi) => match self.fields.get(fi) {
                    None => Cell::Missing,
                    Some(f) => match render_field(
                        ts,
                        page,
                        col,
                        f,
                        self.cap,
                        &mut self.buf,
                        &mut self.cell,
                    ) {
                        FieldText::Null | FieldText::Dropped => Cell::Null,
                        FieldText::Value(Rendered::Raw(why)) => {
                            self.counts.raw_values += 1;
                            self.problems
                                .push(format!("{}: not decoded: {why}", col.name));
                            Cell::Value(Rendered::Raw(why))
                        }
                        FieldText::Value(v) => Cell::Value(v),
                        FieldText::Capped => {
                            self.counts.capped_values += 1;
                            Cell::Capped
                        }
                        FieldText::OffPage(e) => {
                            self.problems.push(format!("{}: {e}", col.name));
                            Cell::OffPage
                        }
                    },
                },
            };
            self.cell_out(k, col, cell)?;
        }
        Ok(())
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
                // Whether the row's page verifies: always the last column.
                writeln!(w, "{line},_verified")?;
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

    fn begin_row(&mut self, n: PageNo, offset: u16, origin: Origin) -> io::Result<()> {
        self.line.clear();
        match self.format {
            Format::Json | Format::Jsonl => {
                self.j.obj()?;
                if self.meta {
                    self.j
                        .kv_num("page", n.0)?
                        .kv_num("offset", offset)?
                        .kv_str("origin", origin.word())?;
                }
                self.j.key("row")?.obj()?;
            }
            Format::Sql => {
                self.line.push_str(&self.insert_prefix);
            }
            _ => {}
        }
        Ok(())
    }

    fn cell_out(&mut self, k: usize, col: &Column, cell: Cell) -> io::Result<()> {
        let s = self.cell.as_str();
        match self.format {
            Format::Tsv | Format::Text => {
                if k > 0 {
                    self.line.push('\t');
                }
                let text = self.format == Format::Text;
                match cell {
                    Cell::Null => self.line.push_str(if text { "NULL" } else { "\\N" }),
                    Cell::Missing => {}
                    Cell::Value(Rendered::Bytes) if !text => {
                        for c in s.trim_start_matches("0x").chars() {
                            self.line.push(c.to_ascii_uppercase());
                        }
                    }
                    Cell::Value(Rendered::Bits) if !text => bits_decimal(s, &mut self.line),
                    Cell::Value(Rendered::Raw(_)) | Cell::Capped | Cell::OffPage => {
                        self.line.push_str(s);
                        if text {
                            self.line.push_str(match cell {
                                Cell::Capped => "(truncated)",
                                _ => "(raw)",
                            });
                        }
                    }
                    Cell::Value(_) => {
                        if text {
                            for c in s.chars() {
                                match c {
                                    '\t' => self.line.push_str("\\t"),
                                    '\n' => self.line.push_str("\\n"),
                                    '\\' => self.line.push_str("\\\\"),
                                    c => self.line.push(c),
                                }
                            }
                        } else {
                            tsv_escape(s, &mut self.line);
                        }
                    }
                }
            }
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
                self.j.key(&col.name)?;
                match cell {
                    Cell::Null => {
                        self.j.null()?;
                    }
                    Cell::Missing => {
                        self.j
                            .obj()?
                            .kv_str("missing", "record damaged")?
                            .end_obj()?;
                    }
                    Cell::Value(Rendered::Number) => {
                        self.j.raw(s.as_bytes())?;
                    }
                    Cell::Value(Rendered::Raw(why)) => {
                        self.j
                            .obj()?
                            .kv_str("raw", s)?
                            .kv_display("reason", &why)?
                            .end_obj()?;
                    }
                    Cell::Capped => {
                        self.j.obj()?.kv_str("truncated", s)?.end_obj()?;
                    }
                    Cell::OffPage => {
                        self.j
                            .obj()?
                            .kv_str("raw", s)?
                            .kv_str("reason", "off-page part unreadable")?
                            .end_obj()?;
                    }
                    Cell::Value(_) => {
                        self.j.str(s)?;
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

    fn end_row(&mut self, n: PageNo, offset: u16, origin: Origin) -> io::Result<()> {
        let complete = self.problems.is_empty();
        let twin = self.twin_words();
        match self.format {
            Format::Tsv | Format::Text | Format::Csv => {
                let sep = if self.format == Format::Csv {
                    ","
                } else {
                    "\t"
                };
                let w = self.j.writer();
                if self.meta {
                    if self.format == Format::Text {
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
                        if self.format == Format::Csv {
                            crate::csv::push(&mut q, &why);
                        } else {
                            tsv_escape(&why, &mut q);
                        }
                        write!(w, "{q}{sep}")?;
                    }
                }
                w.write_all(self.line.as_bytes())?;
                if self.unverified && self.format == Format::Text {
                    write!(w, "\t(unverified: page {n} does not verify)")?;
                }
                if self.format == Format::Csv {
                    w.write_all(if self.unverified { b",false" } else { b",true" })?;
                }
                w.write_all(b"\n")?;
            }
            Format::Json | Format::Jsonl => {
                self.j.end_obj()?;
                if self.twin {
                    self.j.kv_bool("live_copy", true)?;
                }
                if self.unverified {
                    self.j.kv_bool("verified", false)?.kv_num("page", n.0)?;
                }
                if self.meta || !complete {
                    self.j.kv_bool("complete", complete)?;
                    self.j.key("problems")?.arr()?;
                    for i in 0..self.problems.len() {
                        if let Some(pr) = self.problems.get(i) {
                            self.j.str(pr)?;
                        }
                    }
                    self.j.end_arr()?;
                }
                self.j.end_obj()?;
                if self.format == Format::Jsonl {
                    self.j.writer().write_all(b"\n")?;
                }
            }
            Format::Sql => {
                let w = self.j.writer();
                if self.meta {
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
                w.write_all(self.line.as_bytes())?;
                w.write_all(b");\n")?;
            }
        }
        Ok(())
    }

    fn footer(&mut self) -> io::Result<()> {
        let c = &self.counts;
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
            c.partial,
            c.pages,
            c.raw_values,
            c.capped_values
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
                    .kv_num("partial", c.partial)?
                    .kv_num("leaf_pages", c.pages)?
                    .kv_num("raw_values", c.raw_values)?
                    .kv_num("truncated_values", c.capped_values)?
                    .kv_num("unverified_rows", c.unverified_rows)?
                    .kv_num("unverified_pages_skipped", c.unverified_pages_skipped)?
                    .kv_num("lost_pages", c.lost_pages)?
                    .kv_num("lost_rows_estimate", c.lost_rows_estimate)?
                    .end_obj()?;
                self.j.key("lost")?.arr()?;
                for l in self.lost.iter().filter(|l| l.level == 0) {
                    self.j
                        .obj()?
                        .kv_num("page", l.page.0)?
                        .kv_num(
                            "file_offset",
                            u64::from(l.page.0).saturating_mul(self.page_size),
                        )?
                        .kv_display("why", &l.why)?;
                    for (k, v) in ["key_before", "key_after", "key_lower_bound"]
                        .iter()
                        .zip(&l.keys)
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

/// Which record of a page names a key.
#[derive(Clone, Copy)]
enum Edge {
    First,
    Last,
    /// The record at this origin (a node pointer).
    At(u16),
}

/// The key of a record of page `n` as `(col=value, …)`; `None` when the
/// page or the record cannot be read.
fn key_text(
    ts: &Tablespace<'_>,
    t: &TableDef,
    layout: &RecordLayout,
    n: PageNo,
    edge: Edge,
    visited: &mut Visited,
) -> Option<String> {
    let rp = RecPage::of(ts, n).ok()?;
    let rec = match edge {
        Edge::First => edge_record(&rp, false, visited)?,
        Edge::Last => edge_record(&rp, true, visited)?,
        Edge::At(origin) => {
            let mut it = rp.records(visited)?;
            loop {
                match it.next() {
                    Ok(Some(rec)) if rec.origin == origin => break rec,
                    Ok(Some(_)) => continue,
                    _ => return None,
                }
            }
        }
    };
    let mut fields = Vec::new();
    split(&rp, &rec, layout, &mut fields).ok()?;
    let (mut buf, mut cell) = (Vec::new(), String::new());
    let mut parts = Vec::new();
    for f in fields.iter().take(layout.n_unique) {
        let col = t.columns.get(f.column)?;
        cell.clear();
        let text = match render_field(ts, rp.bytes(), col, f, 64, &mut buf, &mut cell) {
            FieldText::Null | FieldText::Dropped => "NULL".to_string(),
            _ => format!("'{}'", ibdscope::names::name(&cell)),
        };
        parts.push(format!("{}={text}", ibdscope::names::name(&col.name)));
    }
    Some(format!("({})", parts.join(", ")))
}

/// A library finding in words, with its page and file offset.
fn finding_text(f: &ibdscope_core::Finding) -> String {
    match f.page {
        Some(p) => format!("page {p}: byte offset {}: {}", f.file_offset, f.kind),
        None => format!("byte offset {}: {}", f.file_offset, f.kind),
    }
}

/// `SELECT … INTO OUTFILE` escaping with `ESCAPED BY '\\'`: `\`, tab,
/// newline and NUL.
fn tsv_escape(s: &str, out: &mut String) {
    if !s.bytes().any(|b| matches!(b, b'\\' | b'\t' | b'\n' | 0)) {
        out.push_str(s);
        return;
    }
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\\t"),
            '\n' => out.push_str("\\\n"),
            '\0' => out.push_str("\\0"),
            c => out.push(c),
        }
    }
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

/// `b'0101'` (the library's BIT text) as an unsigned decimal, as
/// `col+0` prints it; anything else is copied.
fn bits_decimal(s: &str, out: &mut String) {
    use std::fmt::Write as _;
    let digits = s
        .strip_prefix("b'")
        .and_then(|d| d.strip_suffix('\''))
        .filter(|d| d.len() <= 64 && d.bytes().all(|b| b == b'0' || b == b'1'));
    match digits {
        Some(d) => {
            let v = d
                .bytes()
                .fold(0u64, |acc, b| (acc << 1) | u64::from(b == b'1'));
            let _ = write!(out, "{v}");
        }
        None => out.push_str(s),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits() {
        let mut s = String::new();
        bits_decimal("b'101'", &mut s);
        assert_eq!(s, "5");
        s.clear();
        bits_decimal("0x01", &mut s);
        assert_eq!(s, "0x01");
    }

    #[test]
    fn escapes() {
        let mut s = String::new();
        tsv_escape("a\\b\tc\nd\0", &mut s);
        assert_eq!(s, "a\\\\b\\\tc\\\nd\\0");
        s.clear();
        crate::csv::push(&mut s, "a,\"b\"");
        assert_eq!(s, "\"a,\"\"b\"\"\"");
        s.clear();
        sql_string("it's\n", &mut s);
        assert_eq!(s, "'it\\'s\\n'");
    }
}
