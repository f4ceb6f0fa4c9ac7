//! An index's rows, typed, as a program reads them: [`RowScan`], a real
//! [`Iterator`] of [`Row`]s in key order along the leaf chain, each with
//! its values, its page, its byte offset, the page's verdict and where it
//! comes from ([`Origin`]: live, delete-marked, a page's free list, a leaf
//! page off the tree); deleted rows only when asked ([`Deleted`]).
//!
//! The leaf pages: one page ([`ScanOptions::page`]), or the leaf chain the
//! B-tree walk finds (`ibdscope_core::Btrees`), or, when the chain does
//! not reach every leaf, the leaves in key order from the parents' node
//! pointers ([`crate::leaves::leaves_in_key_order`]): a leaf the tree
//! names that cannot be read is [`LostPage`], with the keys around it and
//! about how many rows it held. ROW_FORMAT=COMPRESSED leaves are rebuilt
//! first ([`crate::zip::decompress`]). With deleted rows the leaves are
//! read three times: the keys of the stale records (free lists, pages off
//! the tree), the live rows with those keys, then the rows; a stale record
//! equal to a live row is marked [`Row::live_copy`].
//!
//! What goes wrong is data: [`ScanFinding`]s (damage, exit 1 for a
//! command) and [`ScanNote`]s, taken as the scan goes
//! ([`RowScan::take_findings`]: a finding about a page comes once its
//! rows have been given), and [`ScanCounts`] at the end. One page's rows
//! are read at a time; nothing is kept per row. Never panics; every walk
//! is bounded by the pages of the file.
//!
//! ```
//! use ibdscope_core::{Engine, SpaceMap, Summary, Tablespace};
//! use ibdscope_schema::rows::{Decoding, RowScan, ScanOptions};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/mysql56");
//! let bytes = std::fs::read(format!("{dir}/ai_int.ibd"))?;
//! let ts = Tablespace::new(&bytes)?;
//! let engine = Engine::default();
//! // A .frm names no index ids: the file's B-trees give the roots.
//! let frm = std::fs::read(format!("{dir}/ai_int.frm"))?;
//! let mut def = ibdscope_schema::frm::Frm::parse(&frm)?.to_table_def("ai_int", "fx");
//! let trees: Vec<(u64, u32)> = SpaceMap::build(&ts, &engine)
//!     .indexes
//!     .iter()
//!     .map(|i| (i.index_id.0, i.root.0))
//!     .collect();
//! def.attach_roots(&trees);
//! let decoding = Decoding::new(&ts, &mut def);
//! let summary = Summary::of(&ts, &engine);
//! let ix = def.clustered().ok_or("no clustered index")?;
//! let scan = RowScan::new(&ts, &engine, &summary, &def, ix, &decoding, ScanOptions::default())
//!     ?;
//! let mut rows = 0;
//! for row in scan {
//!     let mut id = String::new();
//!     if let Some(col) = def.columns.first() {
//!         row.values.first().and_then(|v| v.render(col, &mut id));
//!     }
//!     rows += 1;
//!     if rows == 1 {
//!         assert_eq!(id, "1");
//!     }
//! }
//! assert_eq!(rows, 3000); // fixtures/manifest.tsv: the server's COUNT(*)
//! # Ok(())
//! # }
//! ```

/// Defined with the crate's error, re-exported here.
pub use crate::error::ScanErrorKind;
use crate::error::{Error, ErrorKind};
use crate::instant::MariaInstant;
use crate::leaves::{edge_record, leaves_in_key_order, LeafOrder, LeafProblem, NoPage, Placement};
use crate::leaves::{RecAt, Slot};
use crate::row::{
    data_is_zero, field_bytes, leftmost_leaf, split, split_planned, CompactPlan, Field, FieldText,
    FieldValue, FitSum, LobRead, PageFit, RecordInfo,
};
use crate::table::{Column, Hidden, IndexDef, RecordLayout, TableDef};
use ibdscope_core::record::Chain;
use ibdscope_core::verdict::PageVerdict;
use ibdscope_core::{
    BtreeProblem, Btrees, Engine, Finding, FindingKind, IndexId, NoRecords, PageNo, RecFormat,
    RecPage, SpaceMap, Summary, Tablespace, Visited, FIL_NULL,
};
use std::collections::{HashSet, VecDeque};
use std::fmt;

/// Where a row comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Origin {
    /// A record of the index, not delete-marked.
    Live,
    /// A delete-marked record (purge has not removed it yet).
    DeleteMarked,
    /// A record on a page's free (garbage) list.
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
    /// The word for output.
    pub fn word(self) -> &'static str {
        match self {
            Origin::Live => "live",
            Origin::DeleteMarked => "delete-marked",
            Origin::FreeList => "free-list",
            Origin::FreedPage => "freed-page",
            Origin::UnlinkedPage => "unlinked-page",
        }
    }

    /// A record no longer part of the index (free list, page off the tree).
    pub fn is_stale(self) -> bool {
        matches!(
            self,
            Origin::FreeList | Origin::FreedPage | Origin::UnlinkedPage
        )
    }
}

/// Which rows a scan gives.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Deleted {
    /// Live rows only.
    #[default]
    No,
    /// Deleted rows only: delete-marked, free lists, pages off the tree.
    Only,
    /// Live and deleted rows.
    Also,
}

/// How a [`RowScan`] reads.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ScanOptions {
    /// Which rows.
    pub deleted: Deleted,
    /// Only this leaf page (it must be a leaf of the index).
    pub page: Option<PageNo>,
    /// Leave out the rows of pages that do not verify.
    pub verified_only: bool,
    /// The most bytes read of one off-page value ([`Value::Capped`] past it).
    pub max_value_bytes: usize,
    /// The table columns whose values are read (by index into the
    /// table's columns); `None`: every column. The others are
    /// [`Value::Missing`].
    pub columns: Option<Vec<usize>>,
}

impl Default for ScanOptions {
    fn default() -> Self {
        ScanOptions {
            deleted: Deleted::No,
            page: None,
            verified_only: false,
            max_value_bytes: 1 << 20,
            columns: None,
        }
    }
}

/// One value of a row.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Value {
    /// SQL NULL.
    Null,
    /// The column was dropped at or before the record's row version (SQL
    /// NULL for output).
    Dropped,
    /// Not stored: the column's instant default ([`Value::render`] writes
    /// it).
    Default,
    /// The whole stored value (the off-page part included).
    Bytes(Vec<u8>),
    /// An off-page value longer than [`ScanOptions::max_value_bytes`]: the
    /// bytes read.
    Capped(Vec<u8>),
    /// The off-page part could not be read: the local bytes, and why.
    OffPage {
        /// The bytes stored in the record.
        local: Vec<u8>,
        /// Why the rest cannot be read.
        error: Error,
    },
    /// The record holds no such field (damaged, or erased), or the column
    /// was not asked for.
    Missing,
}

impl Value {
    /// Renders the value of column `col` as text into `out` (appended),
    /// as [`crate::row::render_field`] does; `None` for [`Value::Missing`].
    pub fn render(&self, col: &Column, out: &mut String) -> Option<FieldText> {
        Some(match self {
            Value::Null => FieldText::Null,
            Value::Dropped => FieldText::Dropped,
            Value::Default => {
                crate::value::render_default(col, out).map_or(FieldText::Null, FieldText::Value)
            }
            Value::Bytes(b) => FieldText::Value(crate::value::render(col, b, out)),
            Value::Capped(b) => {
                crate::value::write_hex(b, out);
                FieldText::Capped
            }
            Value::OffPage { local, error } => {
                crate::value::write_hex(local, out);
                FieldText::OffPage(error.clone())
            }
            Value::Missing => return None,
        })
    }

    /// Reads field `f` of a record of `page` (off-page at most `cap`
    /// bytes) into `self`, reusing the bytes it held.
    fn read_into(&mut self, ts: &Tablespace<'_>, page: &[u8], f: &Field, cap: usize) {
        let mut b = match std::mem::replace(self, Value::Missing) {
            Value::Bytes(b) | Value::Capped(b) | Value::OffPage { local: b, .. } => b,
            _ => Vec::new(),
        };
        *self = match f.value {
            FieldValue::Null => Value::Null,
            FieldValue::Dropped => Value::Dropped,
            FieldValue::Default => Value::Default,
            FieldValue::Inline { .. } | FieldValue::External { .. } => {
                match field_bytes(ts, page, f, cap, &mut b) {
                    Some(Ok(LobRead::Complete)) => Value::Bytes(b),
                    Some(Ok(LobRead::Capped)) => Value::Capped(b),
                    Some(Err(error)) => {
                        b.clear();
                        b.extend_from_slice(f.local(page).unwrap_or(&[]));
                        Value::OffPage { local: b, error }
                    }
                    None => Value::Null,
                }
            }
        };
    }
}

/// Why a row's values are not whole.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum RowDamage {
    /// Every data byte of the record is zero (MariaDB 10.6+ zero-fills
    /// the records purge frees): no value survives.
    Erased,
    /// The record could not be split into the definition's fields; the
    /// values are those of the fields before the fault.
    Split(Error),
}

impl fmt::Display for RowDamage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RowDamage::Erased => f.write_str(
                "erased: every data byte of the record is zero (MariaDB 10.6+ zero-fills the \
                 records purge frees); no value survives",
            ),
            RowDamage::Split(e) => write!(f, "record: {e}"),
        }
    }
}

/// One row.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Row {
    /// Its leaf page.
    pub page: PageNo,
    /// The record's origin in the page (in the rebuilt page for a
    /// ROW_FORMAT=COMPRESSED leaf).
    pub offset: u16,
    /// The page's byte offset in the file.
    pub page_file_offset: u64,
    /// Whether the page is ROW_FORMAT=COMPRESSED (the offset is then in
    /// the rebuilt page, not the file).
    pub compressed: bool,
    /// Where it comes from.
    pub origin: Origin,
    /// The page's verdict (`Summary::verdict`'s word).
    pub verdict: PageVerdict,
    /// Whether the page verifies (it is not among the summary's bad
    /// pages); the values of a row of a page that does not may be wrong.
    pub verified: bool,
    /// A stale record (free list, page off the tree) equal to a live row
    /// (same key and bytes: left by a page split, a merge or an update):
    /// not a deleted row.
    pub live_copy: bool,
    /// Why its values are not whole, if they are not.
    pub damage: Option<RowDamage>,
    /// One value per column of the table (by index into its columns).
    pub values: Vec<Value>,
}

impl Row {
    /// The record's byte offset in the file (the page's for a
    /// ROW_FORMAT=COMPRESSED leaf, whose records are stored compressed).
    pub fn file_offset(&self) -> u64 {
        if self.compressed {
            self.page_file_offset
        } else {
            self.page_file_offset.saturating_add(u64::from(self.offset))
        }
    }
}

/// A row as [`RowScan::for_each_piece`] hands it over: its values are
/// rendered straight from the page the walk holds (no copy of a value
/// stored in the record), or from [`Row::values`] for a row the iterator
/// had read already.
#[derive(Clone, Copy)]
pub struct RowView<'r> {
    /// The row; its [`Row::values`] are empty when the values are read
    /// from the page: read them with [`RowView::render`].
    pub row: &'r Row,
    /// Borrowed, not copied: a view is handed through closures by value,
    /// and a small one moves in registers.
    page: Option<&'r OnPage<'r>>,
}

/// Where a [`RowView`]'s values are on the page.
#[derive(Clone, Copy)]
struct OnPage<'r> {
    ts: &'r Tablespace<'r>,
    page: &'r [u8],
    fields: &'r [Field],
    /// Which field shows each column.
    slot: &'r [Option<usize>],
    /// Which columns are read.
    wanted: &'r [bool],
    /// The record is erased: no value survives.
    erased: bool,
    /// Off-page bytes read at most.
    cap: usize,
}

impl fmt::Debug for RowView<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RowView").field("row", self.row).finish()
    }
}

impl<'r> RowView<'r> {
    /// The value of table column `column` (`col`) rendered into `out`
    /// (appended), as [`Value::render`] renders the row's value; an
    /// off-page part is read into `buf`. `None` when the row has no such
    /// value ([`Value::Missing`]).
    #[inline]
    pub fn render(
        &self,
        column: usize,
        col: &Column,
        buf: &mut Vec<u8>,
        out: &mut String,
    ) -> Option<FieldText> {
        let Some(p) = self.page else {
            return self.row.values.get(column)?.render(col, out);
        };
        if p.erased || !*p.wanted.get(column)? {
            return None;
        }
        let f = p.fields.get((*p.slot.get(column)?)?)?;
        Some(crate::row::render_field(
            p.ts, p.page, col, f, p.cap, buf, out,
        ))
    }

    /// The bytes of table column `column`'s value when the record holds
    /// them whole on the page (not NULL, not off-page, not an instant
    /// default): what a printer's fast path renders
    /// ([`crate::value::render_plain`]). `None` otherwise: render the
    /// value with [`RowView::render`].
    #[inline]
    pub fn inline_bytes(&self, column: usize) -> Option<&'r [u8]> {
        let p = self.page?;
        if p.erased || !*p.wanted.get(column)? {
            return None;
        }
        let f = p.fields.get((*p.slot.get(column)?)?)?;
        match f.value {
            FieldValue::Inline { .. } => f.local(p.page),
            _ => None,
        }
    }
}

/// The counts of a scan, complete once the iterator has ended.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ScanCounts {
    /// Rows given.
    pub rows: u64,
    /// Of them live.
    pub live: u64,
    /// Delete-marked.
    pub delete_marked: u64,
    /// From free lists.
    pub free_list: u64,
    /// From leaf pages of the index off the leaf chain.
    pub off_chain: u64,
    /// Stale records (free lists, off-chain pages) equal to a live row.
    pub live_copies: u64,
    /// The leaf pages off the chain read.
    pub off_chain_pages: u64,
    /// Leaf pages read.
    pub pages: u64,
    /// ROW_FORMAT=COMPRESSED leaves that could not be decompressed.
    pub compressed_pages: u64,
    /// Leaves that are encrypted or page-compressed (not decoded).
    pub unreadable_pages: u64,
    /// MariaDB instant ALTER metadata records skipped.
    pub metadata_records: u64,
    /// Rows read from pages that do not verify.
    pub unverified_rows: u64,
    /// Pages that do not verify, left out ([`ScanOptions::verified_only`]).
    pub unverified_pages_skipped: u64,
    /// Leaf pages the tree names that cannot be read: their rows are
    /// missing.
    pub lost_pages: u64,
    /// About how many rows they held (the mean of the index's readable
    /// leaves).
    pub lost_rows_estimate: u64,
    /// Leaves of the tree read (not off it).
    pub tree_pages: u64,
    /// Their PAGE_N_RECS, summed.
    pub tree_recs: u64,
    /// Leaf pages whose records do not fit the definition.
    pub misfit_pages: u64,
    /// Live records that could not be split with the definition.
    pub split_failed: u64,
}

/// A key as values: (table column, value) for the index's unique fields.
pub type Key = Vec<(usize, Value)>;

/// A page the tree names that cannot be read, and the keys around it.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct LostPage {
    /// The page.
    pub page: PageNo,
    /// Its byte offset in the file.
    pub file_offset: u64,
    /// The level it should have (0: a leaf, whose rows are missing).
    pub level: u16,
    /// Why it cannot be read.
    pub why: NoPage,
    /// The node pointer naming it (a lower bound of its keys).
    pub low: Option<RecAt>,
    /// The readable leaf before it in key order.
    pub before: Option<PageNo>,
    /// The readable leaf after it.
    pub after: Option<PageNo>,
    /// The last key before it (of `before`), once the scan has ended.
    pub key_before: Option<Key>,
    /// The first key after it (of `after`).
    pub key_after: Option<Key>,
    /// The node pointer's key.
    pub key_low: Option<Key>,
}

/// Something wrong the scan met, with its page: damage of the rows.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ScanFinding {
    /// A finding of the index's B-tree (`Btrees`).
    Tree(Finding),
    /// Without the B-tree walk: the leftmost leaf was not reached.
    NoLeftmost(Error),
    /// Without the B-tree walk: the leaf chain comes back to a page.
    ChainLoops(PageNo),
    /// Without the B-tree walk: the leaf chain points past the file.
    ChainPastFile(PageNo),
    /// Without the B-tree walk: the chain reaches a page that is not an
    /// index page.
    ChainNotIndex(PageNo),
    /// Without the B-tree walk: the chain reaches a page that is not a
    /// leaf of the index.
    ChainNotLeaf(PageNo),
    /// Reading the leaves in key order met this.
    Leaf(LeafProblem),
    /// A leaf page that does not verify, left out.
    LeftOut(PageNo),
    /// A leaf page to read is not an index page.
    NotIndex(PageNo),
    /// A ROW_FORMAT=COMPRESSED page that cannot be rebuilt.
    Compressed(PageNo, Error),
    /// A page's record chain is broken: the rows after it are missing.
    RecordChain(PageNo, ibdscope_core::Error),
    /// A leaf page that does not verify: its rows are given, marked.
    Unverified {
        /// The page.
        page: PageNo,
        /// Its byte offset in the file.
        file_offset: u64,
        /// The rows given from it.
        rows: u64,
    },
    /// A page the tree names that cannot be read (at level 0 its rows are
    /// missing, with the keys around it; above, the leaves below it were
    /// looked for among the index's other leaves, by key).
    Lost(Box<LostPage>),
    /// ROW_FORMAT=COMPRESSED leaves that could not be decompressed.
    CompressedPages(u64),
    /// Leaves encrypted (true) or page-compressed, not read.
    UnreadablePages(u64, bool),
    /// The definition does not fit the records of this many of the leaf
    /// pages read; the first few.
    Misfit(u64, u64, Vec<(PageNo, PageFit)>),
    /// Live records that could not be split into the definition's fields;
    /// the first few (page, record origin, why).
    SplitFailed(u64, Vec<(PageNo, u16, Error)>),
}

/// "page P: byte offset O: KIND", or without a page.
fn finding_words(f: &Finding, out: &mut fmt::Formatter<'_>) -> fmt::Result {
    match f.page {
        Some(p) => write!(out, "page {p}: byte offset {}: {}", f.file_offset, f.kind),
        None => write!(out, "byte offset {}: {}", f.file_offset, f.kind),
    }
}

impl fmt::Display for ScanFinding {
    /// The words (a lost leaf's without its keys, which the caller
    /// renders: [`LostPage::key_before`] and the others).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScanFinding::Tree(x) => finding_words(x, f),
            ScanFinding::NoLeftmost(e) => write!(f, "the leftmost leaf was not reached: {e}"),
            ScanFinding::ChainLoops(n) => write!(f, "leaf chain loops back to page {n}"),
            ScanFinding::ChainPastFile(n) => write!(f, "leaf chain points past the file: page {n}"),
            ScanFinding::ChainNotIndex(n) => {
                write!(f, "leaf chain reaches page {n}, not an index page")
            }
            ScanFinding::ChainNotLeaf(n) => {
                write!(f, "leaf chain reaches page {n}, not a leaf of the index")
            }
            ScanFinding::Leaf(p) => write!(f, "{p}"),
            ScanFinding::LeftOut(n) => write!(
                f,
                "leaf page {n} does not verify: its rows are left out (--verified-only)"
            ),
            ScanFinding::NotIndex(n) => write!(f, "leaf page {n}: not an index page"),
            ScanFinding::Compressed(n, e) => {
                write!(f, "page {n}: ROW_FORMAT=COMPRESSED page: {e}")
            }
            ScanFinding::RecordChain(n, e) => write!(f, "page {n}: record chain {e}"),
            ScanFinding::Unverified {
                page,
                file_offset,
                rows,
            } => write!(
                f,
                "leaf page {page} does not verify (byte offset {file_offset}): its {rows} rows \
                 are shown, marked unverified, and may be wrong"
            ),
            ScanFinding::Lost(l) if l.level > 0 => {
                write!(
                    f,
                    "non-leaf page {} (byte offset {}, level {}): ",
                    l.page, l.file_offset, l.level
                )?;
                match l.why {
                    NoPage::Pointers => {
                        f.write_str("its node pointers cannot be read from some record on")?
                    }
                    why => write!(f, "cannot be read ({why})")?,
                }
                f.write_str(
                    ": the leaves it would name were looked for among the index's other leaves, \
                     by key",
                )
            }
            ScanFinding::Lost(l) => write!(
                f,
                "leaf page {} (byte offset {}) is lost ({}): its rows are missing",
                l.page, l.file_offset, l.why
            ),
            ScanFinding::CompressedPages(n) => write!(
                f,
                "{n} ROW_FORMAT=COMPRESSED leaf pages could not be decompressed: their rows are \
                 missing from the output"
            ),
            ScanFinding::UnreadablePages(n, encrypted) => write!(
                f,
                "{n} leaf pages are {}: their rows are missing from the output",
                if *encrypted {
                    "encrypted"
                } else {
                    "encrypted or page-compressed (not decoded: not implemented)"
                }
            ),
            ScanFinding::Misfit(n, of, first) => {
                write!(
                    f,
                    "the definition does not fit the records on {n} of {of} leaf pages ("
                )?;
                for (i, (p, x)) in first.iter().enumerate() {
                    if i > 0 {
                        f.write_str("; ")?;
                    }
                    write!(
                        f,
                        "page {p}: {} records take {} bytes split with it, the page header says {}",
                        x.records, x.summed, x.stated
                    )?;
                    if x.fields_differ > 0 {
                        write!(
                            f,
                            ", {} records' own field counts or lengths differ",
                            x.fields_differ
                        )?;
                    }
                }
                f.write_str(
                    "): its columns are not the ones the records hold, the values shown are wrong",
                )
            }
            ScanFinding::SplitFailed(n, first) => {
                write!(
                    f,
                    "{n} live records could not be split into the definition's fields (damaged, \
                     or the definition does not fit them; first: "
                )?;
                for (i, (p, o, e)) in first.iter().enumerate() {
                    if i > 0 {
                        f.write_str("; ")?;
                    }
                    write!(f, "page {p} record at byte {o}: {e}")?;
                }
                f.write_str(")")
            }
        }
    }
}

/// What the scan says that is not damage.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ScanNote {
    /// A B-tree finding about stale records on free lists (what deleted
    /// rows are read from, not damage of the rows).
    StaleRecords(Finding),
    /// The leaf chain is broken: this many leaves it does not reach were
    /// read in key order from their parents' node pointers; of them
    /// placed by their first key, and along their sibling links.
    Recovered(u64, u64, u64),
    /// Allocated leaf pages of the index named by no node pointer.
    Unlinked(usize),
    /// Stale records equal to a live row.
    LiveCopies(u64),
    /// Rows from leaf pages off the leaf chain: rows, pages.
    OffChain(u64, u64),
    /// MariaDB instant ALTER metadata records skipped.
    Metadata(u64),
    /// The records hold MySQL's pre-5.6.4 temporal formats.
    OldTemporals,
}

impl fmt::Display for ScanNote {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScanNote::StaleRecords(x) => finding_words(x, f),
            ScanNote::Recovered(n, by_key, by_chain) => {
                write!(
                    f,
                    "the leaf chain is broken: {n} leaves it does not reach were read in key \
                     order, from their parents' node pointers"
                )?;
                if by_key.saturating_add(*by_chain) > 0 {
                    write!(
                        f,
                        " ({by_key} placed by their first key and {by_chain} along their sibling \
                         links below lost non-leaf pages: byte order of the stored key, exact for \
                         numbers, dates and binary strings)"
                    )?;
                }
                Ok(())
            }
            ScanNote::Unlinked(n) => write!(
                f,
                "{n} allocated leaf pages of the index are named by no node pointer and fall in \
                 no gap of the tree: not part of it, their records are not live rows (--deleted \
                 shows them as unlinked-page)"
            ),
            ScanNote::LiveCopies(n) => write!(
                f,
                "{n} of the rows from free lists and off-chain pages are copies of live rows \
                 (same key and bytes: left by page splits, merges or updates), not deleted rows"
            ),
            ScanNote::OffChain(rows, pages) => write!(
                f,
                "{rows} rows from {pages} leaf pages of the index that the leaf chain does not \
                 reach (freed-page: the extent descriptors mark the page free; unlinked-page: \
                 still allocated)"
            ),
            ScanNote::Metadata(n) => write!(
                f,
                "{n} MariaDB instant ALTER metadata records skipped (not rows)"
            ),
            ScanNote::OldTemporals => f.write_str(
                "the records hold TIME/DATETIME/TIMESTAMP in MySQL's pre-5.6.4 formats (their \
                 lengths fit those, not the 5.6.4+ ones): read so",
            ),
        }
    }
}

/// An index scan's error ([`ErrorKind::Scan`]).
fn scan_err(k: ScanErrorKind) -> Error {
    Error::whole(ErrorKind::Scan(k))
}

/// A table definition made ready to decode the records of a space:
/// MariaDB instant ALTER's record shape, the temporal formats the records
/// show ([`Decoding::new`]).
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Decoding {
    /// MariaDB instant ALTER's metadata record, when the clustered index
    /// has one, and the clustered index's layout it gives.
    pub instant: Result<Option<(MariaInstant, RecordLayout)>, Error>,
    /// Whether the records hold pre-5.6.4 TIME/DATETIME/TIMESTAMP formats.
    pub old_temporals: bool,
}

impl Decoding {
    /// Reads from `ts` what decoding its records needs and fits `table`
    /// to it (instant ALTER's columns, old temporal types).
    pub fn new(ts: &Tablespace<'_>, table: &mut TableDef) -> Decoding {
        let instant = crate::instant::apply(ts, table);
        let old_temporals = crate::row::old_temporals(ts, table);
        Decoding {
            instant,
            old_temporals,
        }
    }
}

/// The root page of `ix`.
pub fn root_page<'t>(ts: &Tablespace<'t>, ix: &IndexDef) -> Result<(PageNo, RecPage<'t>), Error> {
    let Some(root) = ix.root.map(PageNo) else {
        let f = ts.format();
        let mariadb_encrypted = matches!(
            ibdscope_core::crypt::mariadb::space_crypt_data(ts),
            ibdscope_core::crypt::mariadb::CryptDataRead::Present(c) if c.scheme == 1
        );
        return Err(scan_err(ScanErrorKind::NoRoot {
            encrypted: f.encryption || mariadb_encrypted,
            page_compressed: f.page_compressed,
        }));
    };
    RecPage::of(ts, root)
        .map(|rp| (root, rp))
        .map_err(|e| scan_err(ScanErrorKind::Root(root, e, ts.format().encryption)))
}

/// The record layout of `ix`: MariaDB's instant ALTER layout for the
/// clustered index when the metadata record gives one, else the
/// definition's (COMPACT or REDUNDANT as the root page is).
pub fn index_layout(
    t: &TableDef,
    ix: &IndexDef,
    instant: &Result<Option<(MariaInstant, RecordLayout)>, Error>,
    root_rp: &RecPage<'_>,
) -> Result<RecordLayout, Error> {
    match instant {
        Ok(Some((_, l))) if t.clustered() == Some(ix) => return Ok(l.clone()),
        Err(Error {
            kind: ErrorKind::Instant(k),
            ..
        }) if t.clustered() == Some(ix) => return Err(scan_err(ScanErrorKind::Instant(k.clone()))),
        Err(e) if t.clustered() == Some(ix) => return Err(e.clone()),
        _ => {}
    }
    t.layout_kind(ix, root_rp.format() == RecFormat::Compact)
        .map_err(|k| scan_err(ScanErrorKind::Layout(k)))
}

/// The columns a program shows of an index's rows: for the clustered
/// index the table's columns in table order that its records store
/// (virtual and dropped ones left out), then, with `hidden`, the system
/// columns (and the fields of columns MariaDB dropped instantly); for a
/// secondary index its fields in index order.
pub fn shown_columns(t: &TableDef, layout: &RecordLayout, hidden: bool) -> Vec<usize> {
    let stored = |c: usize| layout.fields.iter().any(|f| f.column == c);
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

/// What one walk over the leaves does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// Collect `stale_keys`.
    StaleKeys,
    /// Collect `live_twins`.
    LiveTwins,
    /// Give rows.
    Rows,
}

/// Hashes of a split record: its key (the first `n_key` fields) and the
/// whole record, over the stored bytes of every field (an off-page field
/// by its local part and its reference, which a moved copy keeps).
fn record_hashes(page: &[u8], fields: &[Field], n_key: usize) -> (u64, u64) {
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

/// What a scan reads beside the table: the space, the engine its
/// whole-file passes run on, the stored pages' verdicts (`Summary::of`
/// the stored pages) and, when the caller has them already, the space's
/// B-trees with their leaf chains (`Btrees::build_with_leaf_chains`);
/// without them the scan builds the space map and the index's tree.
#[derive(Clone, Copy)]
pub struct ScanInput<'a> {
    /// The space the records are read from.
    pub ts: &'a Tablespace<'a>,
    /// Runs the whole-file passes and the pieces of
    /// [`RowScan::for_each_piece`]; its progress hook hears the walks.
    pub engine: &'a Engine<'a>,
    /// The stored pages' verdicts.
    pub summary: &'a Summary,
    /// The space's B-trees with their leaf chains, if built.
    pub trees: Option<&'a Btrees>,
}

/// What [`RowScan::for_each_piece`] hands over, in the order the
/// iterator gives rows and [`RowScan::take_findings`] findings.
#[derive(Debug)]
pub enum ScanEvent<'r> {
    /// A row.
    Row(RowView<'r>),
    /// A finding met among the rows.
    Finding(ScanFinding),
}

/// Pages per piece of [`RowScan::for_each_piece`]: a few hundred
/// kilobytes of output each, few enough that the pieces waiting stay
/// small.
const PIECE_PAGES: usize = 32;

/// What every thread reading pages shares: read-only while rows are read.
struct Shared<'a> {
    ts: &'a Tablespace<'a>,
    table: &'a TableDef,
    layout: RecordLayout,
    opts: ScanOptions,
    /// The pages that do not verify, in page order.
    damaged: &'a Summary,
    /// Which columns are read (per table column).
    wanted: Vec<bool>,
    /// Hashes of the live records a stale record equals.
    live_twins: HashSet<u64>,
    /// Which field shows each column in a record split into every field
    /// of the layout (each record but a damaged one).
    full_slot: Vec<Option<usize>>,
    /// How the layout's plain records split, worked out once.
    plan: Option<CompactPlan>,
}

/// One thread's buffers, reused for every page it reads.
struct Reader {
    fields: Vec<Field>,
    slot: Vec<Option<usize>>,
    /// `slot` is the full split's (`Shared::full_slot`).
    slot_full: bool,
    /// Values of rows given back, for the next rows.
    spare: Vec<Vec<Value>>,
    zip: Vec<u8>,
    visited: Visited,
    /// The row being read (its values empty: read from the page).
    row: Row,
}

impl Reader {
    fn new(n_columns: usize) -> Reader {
        Reader {
            fields: Vec::new(),
            slot: vec![None; n_columns],
            slot_full: false,
            spare: Vec::new(),
            zip: Vec::new(),
            visited: Visited::new(),
            row: Row {
                page: PageNo(0),
                offset: 0,
                page_file_offset: 0,
                compressed: false,
                origin: Origin::Live,
                verdict: PageVerdict::Valid,
                verified: true,
                live_copy: false,
                damage: None,
                values: Vec::new(),
            },
        }
    }

    /// Keeps a row's values for the next rows (no allocation per value).
    fn recycle(&mut self, values: Vec<Value>) {
        if self.spare.len() < 1024 {
            self.spare.push(values);
        }
    }
}

/// What reading pages gives: rows, findings and counts, added to the
/// scan's in page order.
#[derive(Default)]
struct PageOut {
    counts: ScanCounts,
    misfit_first: Vec<(PageNo, PageFit)>,
    split_first: Vec<(PageNo, u16, Error)>,
    /// Findings met before the page's rows.
    findings: Vec<ScanFinding>,
    /// Findings about the page given after its rows.
    after: Vec<ScanFinding>,
    rows: VecDeque<Row>,
}

/// What one walk over the leaves does with the records.
enum Walk<'s> {
    /// Collects the stale records' key hashes.
    StaleKeys(&'s mut HashSet<u64>),
    /// Collects the live records whose key a stale record has.
    LiveTwins(&'s HashSet<u64>, &'s mut HashSet<u64>),
    /// Gives rows: to the sink as they are read (their values on the
    /// page), or into [`PageOut::rows`] without one.
    Rows(Option<RowSink<'s>>),
}

/// What takes the rows of a walk as they are read.
type RowSink<'s> = &'s mut dyn FnMut(RowView<'_>);

impl Walk<'_> {
    fn mode(&self) -> Mode {
        match self {
            Walk::StaleKeys(_) => Mode::StaleKeys,
            Walk::LiveTwins(..) => Mode::LiveTwins,
            Walk::Rows(_) => Mode::Rows,
        }
    }
}

/// The typed rows of one index; see the module documentation.
pub struct RowScan<'a> {
    engine: &'a Engine<'a>,
    sh: Shared<'a>,
    reader: Reader,
    /// The pages to read, each with the origin of all its records when it
    /// is off the leaf chain.
    pages: Vec<(PageNo, Option<Origin>)>,
    /// The next of `pages` to read.
    next_page: usize,
    /// The page read, not added yet; reused.
    out: PageOut,
    /// Rows of the page read, not given yet.
    pending: VecDeque<Row>,
    /// Findings about the page read, given after its rows.
    after: Vec<ScanFinding>,
    findings: Vec<ScanFinding>,
    notes: Vec<ScanNote>,
    counts: ScanCounts,
    misfit_first: Vec<(PageNo, PageFit)>,
    split_first: Vec<(PageNo, u16, Error)>,
    lost: Vec<LostPage>,
    /// The leaf chain's findings of leaves it does not reach.
    unreached: Vec<(PageNo, Finding)>,
    stale_keys: HashSet<u64>,
    /// The records hold pre-5.6.4 temporal formats (a note at the end).
    old_temporals: bool,
    ended: bool,
}

/// `a += b` for every count.
fn add_counts(a: &mut ScanCounts, b: &ScanCounts) {
    let sum = |x: &mut u64, y: u64| *x = x.saturating_add(y);
    sum(&mut a.rows, b.rows);
    sum(&mut a.live, b.live);
    sum(&mut a.delete_marked, b.delete_marked);
    sum(&mut a.free_list, b.free_list);
    sum(&mut a.off_chain, b.off_chain);
    sum(&mut a.live_copies, b.live_copies);
    sum(&mut a.off_chain_pages, b.off_chain_pages);
    sum(&mut a.pages, b.pages);
    sum(&mut a.compressed_pages, b.compressed_pages);
    sum(&mut a.unreadable_pages, b.unreadable_pages);
    sum(&mut a.metadata_records, b.metadata_records);
    sum(&mut a.unverified_rows, b.unverified_rows);
    sum(&mut a.unverified_pages_skipped, b.unverified_pages_skipped);
    sum(&mut a.lost_pages, b.lost_pages);
    sum(&mut a.lost_rows_estimate, b.lost_rows_estimate);
    sum(&mut a.tree_pages, b.tree_pages);
    sum(&mut a.tree_recs, b.tree_recs);
    sum(&mut a.misfit_pages, b.misfit_pages);
    sum(&mut a.split_failed, b.split_failed);
}

/// The first three of `have` then `more`.
fn first_three<T>(have: &mut Vec<T>, more: &mut Vec<T>) {
    let room = 3usize.saturating_sub(have.len());
    have.extend(more.drain(..).take(room));
    more.clear();
}

impl<'a> RowScan<'a> {
    /// The rows of index `ix` of `table` in `ts`, decoded as `decoding`
    /// says ([`Decoding::new`]); the pages' verdicts from `summary`
    /// (`Summary::of` the stored pages); whole-file passes (the space map,
    /// the B-trees) on `engine`, whose progress hook hears how far each
    /// walk over the leaves is. The leaf pages are found here (and with
    /// deleted rows the two collecting walks made); the rows are read as
    /// the iterator goes. [`RowScan::over`] takes B-trees built already.
    pub fn new(
        ts: &'a Tablespace<'a>,
        engine: &'a Engine<'a>,
        summary: &'a Summary,
        table: &'a TableDef,
        ix: &IndexDef,
        decoding: &Decoding,
        opts: ScanOptions,
    ) -> Result<RowScan<'a>, Error> {
        let input = ScanInput {
            ts,
            engine,
            summary,
            trees: None,
        };
        Self::over(input, table, ix, decoding, opts)
    }

    /// As [`RowScan::new`], reading what `input` gives: with its B-trees
    /// (leaf chains kept) no whole-file pass is made for the leaf chain.
    pub fn over(
        input: ScanInput<'a>,
        table: &'a TableDef,
        ix: &IndexDef,
        decoding: &Decoding,
        opts: ScanOptions,
    ) -> Result<RowScan<'a>, Error> {
        let ts = input.ts;
        let (root, root_rp) = root_page(ts, ix)?;
        let layout = index_layout(table, ix, &decoding.instant, &root_rp)?;
        let index_id = root_rp.header().index_id();
        let n_columns = table.columns.len();
        let mut wanted = vec![opts.columns.is_none(); n_columns];
        for &c in opts.columns.iter().flatten() {
            if let Some(w) = wanted.get_mut(c) {
                *w = true;
            }
        }
        let mut s = RowScan {
            engine: input.engine,
            sh: Shared {
                ts,
                table,
                full_slot: full_slot(&layout, n_columns),
                plan: CompactPlan::of(&layout),
                layout,
                opts,
                damaged: input.summary,
                wanted,
                live_twins: HashSet::new(),
            },
            reader: Reader::new(n_columns),
            pages: Vec::new(),
            next_page: 0,
            out: PageOut::default(),
            pending: VecDeque::new(),
            after: Vec::new(),
            findings: Vec::new(),
            notes: Vec::new(),
            counts: ScanCounts::default(),
            misfit_first: Vec::new(),
            split_first: Vec::new(),
            lost: Vec::new(),
            unreached: Vec::new(),
            stale_keys: HashSet::new(),
            old_temporals: decoding.old_temporals,
            ended: false,
        };
        let meta = s.sh.opts.deleted != Deleted::No;
        let (chain, broken) = match s.sh.opts.page {
            Some(n) => match RecPage::of(ts, n) {
                Ok(rp) if rp.header().index_id() == index_id && rp.is_leaf() => (vec![n], false),
                Ok(_) => return Err(scan_err(ScanErrorKind::NotLeaf(n))),
                Err(_) => return Err(scan_err(ScanErrorKind::NotIndexPage(n))),
            },
            None => s.leaf_chain(input.trees, root, index_id),
        };
        s.pages = if broken {
            let order = leaves_in_key_order(ts, s.engine, root, index_id, &s.sh.layout);
            s.recovery(&order, meta)
        } else {
            for (_, f) in std::mem::take(&mut s.unreached) {
                s.findings.push(ScanFinding::Tree(f));
            }
            s.pages_to_read(&chain, meta && s.sh.opts.page.is_none(), index_id)
        };
        if meta {
            let mut keys = std::mem::take(&mut s.stale_keys);
            s.collect_walk(&mut Walk::StaleKeys(&mut keys));
            let mut twins = std::mem::take(&mut s.sh.live_twins);
            s.collect_walk(&mut Walk::LiveTwins(&keys, &mut twins));
            s.sh.live_twins = twins;
            s.stale_keys = keys;
        }
        Ok(s)
    }

    /// Gives a row back once read: the next rows reuse its buffers (no
    /// allocation per value), as a program that prints one row at a time
    /// does; optional.
    pub fn recycle(&mut self, row: Row) {
        self.reader.recycle(row.values);
    }

    /// The record layout the rows are split with.
    pub fn layout(&self) -> &RecordLayout {
        &self.sh.layout
    }

    /// The findings met so far, not taken yet (a page's after its rows):
    /// take them between rows to keep them in order with the rows.
    pub fn take_findings(&mut self) -> Vec<ScanFinding> {
        std::mem::take(&mut self.findings)
    }

    /// The notes (complete once the iterator has ended).
    pub fn notes(&self) -> &[ScanNote] {
        &self.notes
    }

    /// The counts (complete once the iterator has ended).
    pub fn counts(&self) -> &ScanCounts {
        &self.counts
    }

    /// The pages the tree names that cannot be read, in key order (their
    /// keys filled once the iterator has ended).
    pub fn lost(&self) -> &[LostPage] {
        &self.lost
    }

    /// Reads the pages the iterator has not given yet on the engine's
    /// threads, in pieces of consecutive pages, and ends the scan: on each
    /// thread `each` is handed, in order, the piece's rows (each a
    /// [`RowView`] over the page being read: its values rendered from the
    /// page, not copied into the row) and the
    /// findings met among them ([`ScanEvent`]: what the iterator and
    /// [`RowScan::take_findings`] would give), with a state the thread
    /// made with `new_state` and the piece's own `P`; `sink` gets each
    /// piece on the calling thread in page order (a stream made in
    /// parallel and written in order). The findings not taken yet come
    /// first, in a piece of their own; after the last piece the scan's findings, notes,
    /// counts and lost pages are those of an iterator run to its end. The
    /// first error of `sink` stops the reading and is returned.
    pub fn for_each_piece<S, P, E>(
        &mut self,
        new_state: impl Fn() -> S + Sync,
        each: impl Fn(&mut S, &mut P, ScanEvent<'_>) + Sync,
        mut sink: impl FnMut(P) -> Result<(), E>,
    ) -> Result<(), E>
    where
        P: Default + Send,
    {
        // What the iterator holds already goes first.
        if !self.findings.is_empty() || !self.pending.is_empty() || !self.after.is_empty() {
            let mut p = P::default();
            let mut s = new_state();
            for f in self.findings.drain(..) {
                each(&mut s, &mut p, ScanEvent::Finding(f));
            }
            while let Some(row) = self.pending.pop_front() {
                each(
                    &mut s,
                    &mut p,
                    ScanEvent::Row(RowView {
                        row: &row,
                        page: None,
                    }),
                );
                self.reader.recycle(row.values);
            }
            for f in self.after.drain(..) {
                each(&mut s, &mut p, ScanEvent::Finding(f));
            }
            sink(p)?;
        }
        let start = self.next_page.min(self.pages.len());
        let todo = self.pages.get(start..).unwrap_or(&[]);
        let total = self.pages.len();
        let n = u32::try_from(todo.len().div_ceil(PIECE_PAGES)).unwrap_or(u32::MAX);
        let n_columns = self.sh.table.columns.len();
        let (sh, engine) = (&self.sh, self.engine);
        let counts = &mut self.counts;
        let (misfit, split) = (&mut self.misfit_first, &mut self.split_first);
        let mut done = start;
        ibdscope_core::parallel::map_in_order(
            engine,
            n,
            || (Reader::new(n_columns), PageOut::default(), new_state()),
            |(reader, out, state), k| {
                let mut p = P::default();
                let from = (k as usize).saturating_mul(PIECE_PAGES);
                let to = from.saturating_add(PIECE_PAGES).min(todo.len());
                for &(page, off_chain) in todo.get(from..to).unwrap_or(&[]) {
                    // The page's rows go to `each` as the walk reads them,
                    // their values on the page it holds. The findings
                    // given before a page's rows come only from a page
                    // that gives none (left out, not an index, not
                    // rebuilt), so the order is the iterator's.
                    let mut give = |v: RowView<'_>| each(state, &mut p, ScanEvent::Row(v));
                    sh.read_page(reader, out, page, off_chain, Some(&mut give));
                    for f in out.findings.drain(..) {
                        each(state, &mut p, ScanEvent::Finding(f));
                    }
                    for f in out.after.drain(..) {
                        each(state, &mut p, ScanEvent::Finding(f));
                    }
                }
                let mut tally = PageOut::default();
                std::mem::swap(&mut tally.counts, &mut out.counts);
                std::mem::swap(&mut tally.misfit_first, &mut out.misfit_first);
                std::mem::swap(&mut tally.split_first, &mut out.split_first);
                (p, tally, to.saturating_sub(from))
            },
            |(p, mut tally, pages)| {
                add_counts(counts, &tally.counts);
                first_three(misfit, &mut tally.misfit_first);
                first_three(split, &mut tally.split_first);
                done = done.saturating_add(pages);
                engine.progress(done as u64, total as u64);
                sink(p)
            },
        )?;
        self.next_page = self.pages.len();
        if !self.ended {
            self.ended = true;
            self.end();
        }
        Ok(())
    }

    /// Byte offset of page `n` in the file.
    fn file_offset(&self, n: PageNo) -> u64 {
        self.sh.file_offset(n)
    }

    /// Tells the engine's progress hook how far a walk is: every 256
    /// pages and at the last.
    fn progress(&self, done: usize, total: usize) {
        if done.is_multiple_of(256) || done == total {
            self.engine.progress(done as u64, total as u64);
        }
    }

    /// The leaf chain of the index whose root is `root`, from the B-tree
    /// walk (`trees`, or one made here; its findings become findings;
    /// those of leaves the chain does not reach are kept in `unreached`);
    /// when the walk does not know the index (its segments unreadable),
    /// the chain from the leftmost leaf along FIL_PAGE_NEXT, bounded by
    /// the pages of the file. True with it when the chain is broken.
    fn leaf_chain(
        &mut self,
        trees: Option<&Btrees>,
        root: PageNo,
        index_id: IndexId,
    ) -> (Vec<PageNo>, bool) {
        let ts = self.sh.ts;
        let built;
        let trees = match trees {
            Some(t) => Some(t),
            None => {
                let map = SpaceMap::build(ts, self.engine);
                let infos: Vec<_> = (map.indexes.iter())
                    .filter(|i| i.root == root)
                    .copied()
                    .collect();
                if infos.is_empty() {
                    None
                } else {
                    built =
                        Btrees::build_from(ts, self.engine, &infos, |n| match map.owner(ts, n) {
                            Some(ibdscope_core::Owner::Segment { index, .. }) => index,
                            _ => None,
                        });
                    Some(&built)
                }
            }
        };
        if let Some(trees) = trees {
            if let Some(tree) = trees.indexes.iter().find(|t| t.root == root) {
                let mut broken = false;
                for f in &trees.findings {
                    if let FindingKind::Btree(bp) = f.kind {
                        if bp.index() != index_id {
                            continue;
                        }
                        if matches!(bp, BtreeProblem::Records { .. }) {
                            self.notes.push(ScanNote::StaleRecords(*f));
                            continue;
                        }
                        broken = true;
                        if let (BtreeProblem::Unreached { level: 0, .. }, Some(n)) = (bp, f.page) {
                            self.unreached.push((n, *f));
                            continue;
                        }
                    }
                    self.findings.push(ScanFinding::Tree(*f));
                }
                let whole = tree.leaves_reached() == tree.leaf_pages;
                return (tree.leaf_chain.clone(), broken || !whole);
            }
        }
        // No B-tree from the space map: walk from the root.
        let r = &mut self.reader;
        let mut page = match leftmost_leaf(ts, root, &self.sh.layout, &mut r.visited, &mut r.fields)
        {
            Ok(n) => n,
            Err(e) => {
                self.findings.push(ScanFinding::NoLeftmost(e));
                return (Vec::new(), true);
            }
        };
        let mut broken = false;
        let mut seen = vec![false; ts.n_pages() as usize];
        let mut chain = Vec::new();
        loop {
            match seen.get_mut(page.0 as usize) {
                Some(s) if !*s => *s = true,
                Some(_) => {
                    self.findings.push(ScanFinding::ChainLoops(page));
                    broken = true;
                    break;
                }
                None => {
                    self.findings.push(ScanFinding::ChainPastFile(page));
                    broken = true;
                    break;
                }
            }
            let Ok(rp) = RecPage::of(ts, page) else {
                self.findings.push(ScanFinding::ChainNotIndex(page));
                broken = true;
                break;
            };
            if rp.header().index_id() != index_id || !rp.is_leaf() {
                self.findings.push(ScanFinding::ChainNotLeaf(page));
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
        (chain, broken)
    }

    /// The pages to read: the leaf chain, then with `off_chain` the
    /// index's leaf pages the chain does not reach (freed by merges or
    /// emptied; or unlinked), which keep the records they last held (one
    /// header read per page).
    fn pages_to_read(
        &self,
        chain: &[PageNo],
        off_chain: bool,
        index_id: IndexId,
    ) -> Vec<(PageNo, Option<Origin>)> {
        let ts = self.sh.ts;
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
    /// The pages to read when the leaf chain is broken: the leaves in
    /// `order` (key order), then with `meta` the index's leaves off the
    /// tree (unlinked: allocated; freed: the extent descriptor says free)
    /// in page order. Keeps the lost pages; the chain's findings of leaves
    /// it does not reach are replaced by a note for those `order` reads.
    fn recovery(&mut self, order: &LeafOrder, meta: bool) -> Vec<(PageNo, Option<Origin>)> {
        let mut pages: Vec<(PageNo, Option<Origin>)> = Vec::new();
        let (mut by_key, mut by_chain) = (0u64, 0u64);
        let mut last_leaf: Option<PageNo> = None;
        let mut waiting: Vec<usize> = Vec::new();
        for slot in &order.slots {
            match *slot {
                Slot::Leaf { page, placement } => {
                    pages.push((page, None));
                    match placement {
                        Placement::Key => by_key = by_key.saturating_add(1),
                        Placement::Chain => by_chain = by_chain.saturating_add(1),
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
                    let file_offset = self.file_offset(page);
                    self.lost.push(LostPage {
                        page,
                        file_offset,
                        level,
                        why,
                        low,
                        before: last_leaf,
                        after: None,
                        key_before: None,
                        key_after: None,
                        key_low: None,
                    });
                }
            }
        }
        let mut placed: Vec<PageNo> = pages.iter().map(|x| x.0).collect();
        placed.sort_unstable();
        let mut recovered = 0u64;
        for (n, f) in std::mem::take(&mut self.unreached) {
            if placed.binary_search(&n).is_ok() {
                recovered = recovered.saturating_add(1);
            } else {
                self.findings.push(ScanFinding::Tree(f));
            }
        }
        if recovered > 0 {
            self.notes
                .push(ScanNote::Recovered(recovered, by_key, by_chain));
        }
        for pr in &order.problems {
            self.findings.push(ScanFinding::Leaf(*pr));
        }
        if !order.unlinked.is_empty() {
            self.notes.push(ScanNote::Unlinked(order.unlinked.len()));
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

    /// A collecting walk over every page (no rows given, nothing counted).
    fn collect_walk(&mut self, walk: &mut Walk<'_>) {
        let pages = std::mem::take(&mut self.pages);
        for (i, &(n, off_chain)) in pages.iter().enumerate() {
            self.progress(i.saturating_add(1), pages.len());
            if self.sh.opts.verified_only && self.sh.unverified(n) {
                continue;
            }
            let held = self.sh.ts.page_ref(n);
            if let Some(Ok(rp)) = held.as_deref().map(|p| RecPage::read(self.sh.ts, p)) {
                self.sh
                    .page(&mut self.reader, &mut self.out, &rp, n, off_chain, walk);
            }
        }
        self.pages = pages;
    }

    /// Reads the next page with rows into `pending`; false at the end.
    fn read_next_page(&mut self) -> bool {
        loop {
            // The findings of the page whose rows were all given.
            self.findings.append(&mut self.after);
            let Some(&(n, off_chain)) = self.pages.get(self.next_page) else {
                return false;
            };
            self.next_page = self.next_page.saturating_add(1);
            self.progress(self.next_page, self.pages.len());
            let o = &mut self.out;
            self.sh.read_page(&mut self.reader, o, n, off_chain, None);
            add_counts(&mut self.counts, &o.counts);
            o.counts = ScanCounts::default();
            first_three(&mut self.misfit_first, &mut o.misfit_first);
            first_three(&mut self.split_first, &mut o.split_first);
            self.findings.append(&mut o.findings);
            self.after.append(&mut o.after);
            self.pending.append(&mut o.rows);
            if !self.pending.is_empty() {
                return true;
            }
        }
    }

    /// After the last page: the lost pages' findings (with their keys),
    /// the counts' findings and notes.
    fn end(&mut self) {
        self.counts.off_chain_pages = self.pages.iter().filter(|x| x.1.is_some()).count() as u64;
        let c = &self.counts;
        let mean = (c.tree_recs).checked_div(c.tree_pages).unwrap_or(0);
        let mut lost = std::mem::take(&mut self.lost);
        for l in lost.iter_mut() {
            if l.level == 0 {
                self.counts.lost_pages = self.counts.lost_pages.saturating_add(1);
                self.counts.lost_rows_estimate =
                    self.counts.lost_rows_estimate.saturating_add(mean);
                l.key_before = l.before.and_then(|p| self.key(p, Edge::Last));
                l.key_after = l.after.and_then(|p| self.key(p, Edge::First));
                l.key_low = l.low.and_then(|r| self.key(r.page, Edge::At(r.origin)));
            }
            self.findings.push(ScanFinding::Lost(Box::new(l.clone())));
        }
        self.lost = lost;
        let c = &self.counts;
        if c.compressed_pages > 0 {
            self.findings
                .push(ScanFinding::CompressedPages(c.compressed_pages));
        }
        if c.unreadable_pages > 0 {
            self.findings.push(ScanFinding::UnreadablePages(
                c.unreadable_pages,
                self.sh.ts.format().encryption,
            ));
        }
        if c.live_copies > 0 {
            self.notes.push(ScanNote::LiveCopies(c.live_copies));
        }
        if c.off_chain_pages > 0 {
            self.notes
                .push(ScanNote::OffChain(c.off_chain, c.off_chain_pages));
        }
        if c.metadata_records > 0 {
            self.notes.push(ScanNote::Metadata(c.metadata_records));
        }
        if c.misfit_pages > 0 {
            self.findings.push(ScanFinding::Misfit(
                c.misfit_pages,
                c.pages,
                std::mem::take(&mut self.misfit_first),
            ));
        }
        if c.split_failed > 0 {
            self.findings.push(ScanFinding::SplitFailed(
                c.split_failed,
                std::mem::take(&mut self.split_first),
            ));
        }
        if self.old_temporals {
            self.notes.push(ScanNote::OldTemporals);
        }
    }

    /// The key of a record of page `n`: the unique fields' values (at
    /// most 64 bytes of an off-page one); `None` when the page or the
    /// record cannot be read.
    fn key(&mut self, n: PageNo, edge: Edge) -> Option<Key> {
        let ts = self.sh.ts;
        let rp = RecPage::of(ts, n).ok()?;
        let visited = &mut self.reader.visited;
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
        let layout = &self.sh.layout;
        let mut fields = Vec::new();
        split(&rp, &rec, layout, &mut fields).ok()?;
        let mut key = Vec::new();
        for f in fields.iter().take(layout.n_unique) {
            self.sh.table.columns.get(f.column)?;
            let mut v = Value::Missing;
            v.read_into(ts, rp.bytes(), f, 64);
            key.push((f.column, v));
        }
        Some(key)
    }
}

impl Shared<'_> {
    /// Byte offset of page `n` in the file.
    fn file_offset(&self, n: PageNo) -> u64 {
        u64::from(n.0).saturating_mul(u64::from(self.ts.page_size()))
    }

    /// Whether page `n` does not verify.
    fn unverified(&self, n: PageNo) -> bool {
        self.damaged.bad_page(n).is_some()
    }

    /// Page `n` of the walk that gives rows, into `o`.
    fn read_page(
        &self,
        r: &mut Reader,
        o: &mut PageOut,
        n: PageNo,
        off_chain: Option<Origin>,
        sink: Option<RowSink<'_>>,
    ) {
        let unverified = self.unverified(n);
        if unverified && self.opts.verified_only {
            o.counts.unverified_pages_skipped = o.counts.unverified_pages_skipped.saturating_add(1);
            o.findings.push(ScanFinding::LeftOut(n));
            return;
        }
        let rows_before = o.counts.rows;
        // Held for this page only (bounded memory through a page source).
        let held = self.ts.page_ref(n);
        let read = held
            .as_deref()
            .map_or(Err(NoRecords::PastFile), |p| RecPage::read(self.ts, p));
        match read {
            Ok(rp) => self.page(r, o, &rp, n, off_chain, &mut Walk::Rows(sink)),
            Err(NoRecords::Unreadable(_)) => {
                o.counts.unreadable_pages = o.counts.unreadable_pages.saturating_add(1);
            }
            Err(_) => o.findings.push(ScanFinding::NotIndex(n)),
        }
        if unverified {
            o.after.push(ScanFinding::Unverified {
                page: n,
                file_offset: self.file_offset(n),
                rows: o.counts.rows.saturating_sub(rows_before),
            });
        }
    }

    /// One leaf page (a ROW_FORMAT=COMPRESSED one rebuilt first).
    fn page(
        &self,
        r: &mut Reader,
        o: &mut PageOut,
        rp: &RecPage<'_>,
        n: PageNo,
        off_chain: Option<Origin>,
        walk: &mut Walk<'_>,
    ) {
        let mode = walk.mode();
        if mode == Mode::Rows {
            o.counts.pages = o.counts.pages.saturating_add(1);
            if off_chain.is_none() {
                o.counts.tree_pages = o.counts.tree_pages.saturating_add(1);
                o.counts.tree_recs =
                    (o.counts.tree_recs).saturating_add(u64::from(rp.header().n_recs()));
            }
        }
        if rp.is_compressed() {
            // ROW_FORMAT=COMPRESSED: rebuild the page as the server does
            // (page0zip.cc), then read it like any other.
            let mut zip = std::mem::take(&mut r.zip);
            let logical = rp.logical_size();
            match crate::zip::decompress(rp.bytes(), logical as usize, &mut zip) {
                Ok(_) => {
                    if let Some(z) = RecPage::new(&zip, logical) {
                        self.records(r, o, &z, n, off_chain, walk, true, None);
                    }
                }
                Err(e) => {
                    if mode == Mode::Rows {
                        o.counts.compressed_pages = o.counts.compressed_pages.saturating_add(1);
                        o.findings.push(ScanFinding::Compressed(n, e));
                    }
                }
            }
            r.zip = zip;
            return;
        }
        // How the page's records fit the layout, summed in the walk that
        // splits them (`page_fit`'s sum, each record split once).
        let fit = if mode == Mode::Rows && off_chain.is_none() {
            FitSum::of(rp)
        } else {
            None
        };
        let fit = self.records(r, o, rp, n, off_chain, walk, false, fit);
        if let Some(f) = fit.map(|f| f.fit()).filter(|f| !f.fits()) {
            o.counts.misfit_pages = o.counts.misfit_pages.saturating_add(1);
            if o.misfit_first.len() < 3 {
                o.misfit_first.push((n, f));
            }
        }
    }

    /// The rows of one readable (uncompressed or rebuilt) leaf page; with
    /// `fit`, every user record of the page's chain is split and added to
    /// it (the sum given back: `None` when the chain or a record cannot be
    /// walked or split, as [`crate::row::page_fit`]).
    #[allow(clippy::too_many_arguments)] // The page, where it is read from, and into what.
    fn records(
        &self,
        r: &mut Reader,
        o: &mut PageOut,
        rp: &RecPage<'_>,
        n: PageNo,
        off_chain: Option<Origin>,
        walk: &mut Walk<'_>,
        compressed: bool,
        fit: Option<FitSum>,
    ) -> Option<FitSum> {
        let mut fit = fit;
        let mode = walk.mode();
        let meta = self.opts.deleted != Deleted::No;
        let mut visited = std::mem::take(&mut r.visited);
        let plan = self.plan.as_ref().and_then(|p| p.on_page(rp));
        for chain in [Chain::User, Chain::Free] {
            if chain == Chain::Free && !meta {
                continue;
            }
            let it = match chain {
                Chain::User => rp.records(&mut visited),
                Chain::Free => rp.free_records(&mut visited),
            };
            let Some(mut it) = it else {
                if chain == Chain::User {
                    fit = None;
                }
                continue;
            };
            loop {
                let rec = match it.next() {
                    Ok(Some(rec)) => rec,
                    Ok(None) => break,
                    Err(e) => {
                        if chain == Chain::User {
                            fit = None;
                            if mode == Mode::Rows {
                                o.after.push(ScanFinding::RecordChain(n, e));
                            }
                        }
                        break;
                    }
                };
                if !rec.is_user() {
                    continue;
                }
                let origin = match (off_chain, chain, rec.header.is_deleted()) {
                    (Some(o), _, _) => o,
                    (None, Chain::Free, _) => Origin::FreeList,
                    (None, Chain::User, true) => Origin::DeleteMarked,
                    (None, Chain::User, false) => Origin::Live,
                };
                // MariaDB's instant ALTER metadata record.
                let metadata = chain == Chain::User && rec.header.is_min_rec();
                let keep = !metadata
                    && (mode != Mode::Rows
                        || match origin {
                            Origin::Live => self.opts.deleted != Deleted::Only,
                            _ => meta,
                        });
                let fitting = chain == Chain::User && fit.is_some();
                if fitting || keep {
                    // Split once, for the fit (every user record of the
                    // chain) and the row; the result stays where it is
                    // made (moving it would read back in one piece what
                    // was stored in parts).
                    let split_res = split_planned(rp, &rec, &self.layout, plan, &mut r.fields);
                    if fitting {
                        match (&mut fit, &split_res) {
                            (Some(sum), Ok(info)) => sum.add(&rec, info, &self.layout, &r.fields),
                            _ => fit = None,
                        }
                    }
                    if keep {
                        self.row(r, o, rp, n, &rec, &split_res, origin, walk, compressed);
                    }
                }
                if metadata && mode == Mode::Rows {
                    o.counts.metadata_records = o.counts.metadata_records.saturating_add(1);
                }
            }
        }
        r.visited = visited;
        fit
    }

    /// One record, split into `r.fields` (`split_res`): hashed in the
    /// collecting walks, a row in the last.
    #[allow(clippy::too_many_arguments)] // The record, where it is read from, and into what.
    fn row(
        &self,
        r: &mut Reader,
        o: &mut PageOut,
        rp: &RecPage<'_>,
        n: PageNo,
        rec: &ibdscope_core::Rec,
        split_res: &Result<RecordInfo, Error>,
        origin: Origin,
        walk: &mut Walk<'_>,
        compressed: bool,
    ) {
        let mut live_copy = false;
        let stale = origin.is_stale();
        let rows = matches!(walk, Walk::Rows(_));
        if !rows || (stale && !self.live_twins.is_empty()) {
            let (key, all) = match &split_res {
                Ok(_) => record_hashes(rp.bytes(), &r.fields, self.layout.n_unique),
                Err(_) => return,
            };
            match walk {
                Walk::StaleKeys(keys) => {
                    if stale {
                        keys.insert(key);
                    }
                    return;
                }
                Walk::LiveTwins(keys, twins) => {
                    if origin == Origin::Live && keys.contains(&key) {
                        twins.insert(all);
                    }
                    return;
                }
                Walk::Rows(_) => {
                    if self.live_twins.contains(&all) {
                        o.counts.live_copies = o.counts.live_copies.saturating_add(1);
                        live_copy = true;
                    }
                }
            }
        }
        let damage = match split_res {
            Ok(info) => (origin != Origin::Live
                && origin != Origin::DeleteMarked
                && data_is_zero(rp.bytes(), info))
            .then_some(RowDamage::Erased),
            Err(e) => Some(RowDamage::Split(e.clone())),
        };
        self.fill_slots(r);
        let c = &mut o.counts;
        c.rows = c.rows.saturating_add(1);
        // A file whose every page verifies looks nothing up per row.
        let bad = match self.damaged.bad.is_empty() {
            true => None,
            false => self.damaged.bad_page(n),
        };
        let verdict = match bad {
            Some(b) => {
                c.unverified_rows = c.unverified_rows.saturating_add(1);
                (Some(b.judgement.verdict), false)
            }
            None => (None, true),
        };
        let class = match origin {
            Origin::Live => &mut c.live,
            Origin::DeleteMarked => &mut c.delete_marked,
            Origin::FreeList => &mut c.free_list,
            Origin::FreedPage | Origin::UnlinkedPage => &mut c.off_chain,
        };
        *class = class.saturating_add(1);
        if let (Origin::Live, Some(RowDamage::Split(e))) = (origin, &damage) {
            // Counted: a definition that does not fit fails every row.
            c.split_failed = c.split_failed.saturating_add(1);
            if o.split_first.len() < 3 {
                o.split_first.push((n, rec.origin, e.clone()));
            }
        }
        let page = rp.bytes();
        let erased = damage == Some(RowDamage::Erased);
        // The thread's one row, its parts set in place (a row made whole
        // and moved is stored in parts and read back in one piece).
        let row = &mut r.row;
        row.page = n;
        row.offset = rec.origin;
        row.page_file_offset = self.file_offset(n);
        row.compressed = compressed;
        row.origin = origin;
        row.verdict = verdict.0.unwrap_or(PageVerdict::Valid);
        row.verified = verdict.1;
        row.live_copy = live_copy;
        row.damage = damage;
        if let Walk::Rows(Some(sink)) = walk {
            // Rendered from the page by the sink: no value copied.
            let on = OnPage {
                ts: self.ts,
                page,
                fields: &r.fields,
                slot: &r.slot,
                wanted: &self.wanted,
                erased,
                cap: self.opts.max_value_bytes,
            };
            sink(RowView {
                row: &r.row,
                page: Some(&on),
            });
            return;
        }
        // The values of a row given back ([`RowScan::recycle`]) are reused.
        let mut values = r.spare.pop().unwrap_or_default();
        values.resize(r.slot.len(), Value::Missing);
        for ((s, w), v) in (r.slot.iter()).zip(&self.wanted).zip(values.iter_mut()) {
            match s.and_then(|fi| r.fields.get(fi)) {
                Some(f) if *w && !erased => {
                    v.read_into(self.ts, page, f, self.opts.max_value_bytes)
                }
                _ => *v = Value::Missing,
            }
        }
        let mut row = r.row.clone();
        row.values = values;
        o.rows.push_back(row);
    }

    /// Which field shows each column (`r.slot`): the layout's, unless the
    /// record split into fewer fields.
    fn fill_slots(&self, r: &mut Reader) {
        if r.fields.len() == self.layout.fields.len() && r.slot.len() == self.full_slot.len() {
            // A split gives the layout's fields in order, all of them but
            // when it fails: copied when the last record's differed.
            if !r.slot_full {
                r.slot.copy_from_slice(&self.full_slot);
                r.slot_full = true;
            }
        } else {
            fill_slots(&self.layout, &r.fields, &mut r.slot);
            r.slot_full = false;
        }
    }
}

/// Which of `fields` (a record split with `layout`) shows each column.
fn fill_slots(layout: &RecordLayout, fields: &[Field], slot: &mut [Option<usize>]) {
    for s in slot.iter_mut() {
        *s = None;
    }
    // A column stored twice (a key on its prefix, then the whole column
    // among the others: dict_index_build_internal_clust) shows the
    // whole one.
    let is_prefix = |f: &Field| {
        (layout.fields)
            .get(usize::from(f.layout_idx))
            .is_some_and(|l| l.prefix_len.is_some())
    };
    for (i, f) in fields.iter().enumerate() {
        if let Some(s) = slot.get_mut(f.column) {
            let replace = match *s {
                None => true,
                Some(j) => fields.get(j).is_some_and(is_prefix) && !is_prefix(f),
            };
            if replace {
                *s = Some(i);
            }
        }
    }
}

/// [`fill_slots`] of a record split into every field of `layout`.
fn full_slot(layout: &RecordLayout, n_columns: usize) -> Vec<Option<usize>> {
    let fields: Vec<Field> = (layout.fields.iter().enumerate())
        .map(|(i, l)| Field {
            layout_idx: u16::try_from(i).unwrap_or(u16::MAX),
            column: l.column,
            value: FieldValue::Null,
        })
        .collect();
    let mut slot = vec![None; n_columns];
    fill_slots(layout, &fields, &mut slot);
    slot
}

/// Which record of a page names a key.
#[derive(Clone, Copy)]
enum Edge {
    First,
    Last,
    /// The record at this origin (a node pointer).
    At(u16),
}

impl Iterator for RowScan<'_> {
    type Item = Row;

    fn next(&mut self) -> Option<Row> {
        loop {
            if let Some(r) = self.pending.pop_front() {
                return Some(r);
            }
            if self.ended {
                return None;
            }
            if !self.read_next_page() {
                self.ended = true;
                self.end();
            }
        }
    }
}
