//! A table's columns inferred from its own records, when no definition
//! (SDI, `.frm`, dictionary, `CREATE TABLE`) is at hand.
//!
//! Two layers, kept apart because they are not equally sure
//! (docs/infer.md says what each can and cannot tell, docs/format.md §
//! "Inferring columns" the format facts with their sources):
//!
//! | layer | from | how sure |
//! |---|---|---|
//! | storage | REDUNDANT: each record's field count and field end offsets (with the NULL and external flags); COMPACT/DYNAMIC/COMPRESSED: the NULL bitmap and the 1- or 2-byte lengths stored before the 5-byte header, and each record's extent, fixed by the next record in address order | exact: a hypothesis (fields, fixed widths, nullable, variable, 1- or 2-byte lengths) is kept only when it fits every record read |
//! | types | the values' shapes in every record: InnoDB's integers (sign bit flipped), DATE / DATETIME2 / TIMESTAMP2 / TIME2 bit layouts, IEEE floats, text against charsets, external references (BLOB/TEXT) | evidence, counted; two types that fit alike are both named |
//!
//! Sources of the storage facts: MySQL 8.0 `storage/innobase/rem/rec.h`
//! and `rem0rec.cc` (`rec_init_offsets_comp_ordinary`,
//! `rec_get_converted_size_comp_prefix_low`,
//! `rec_convert_dtuple_to_rec_old`), MariaDB 10.11 `rem0rec.cc`, the same
//! functions; `dict0dict.cc` `dict_index_build_internal_clust` (DB_TRX_ID
//! and DB_ROLL_PTR after the key), `dict_index_build_node_ptr` (a node
//! pointer is the key then a 4-byte child page number).
//!
//! What the storage layer cannot tell, whatever the records: where one
//! NOT NULL fixed-width column ends and the next begins (COMPACT keeps no
//! boundary between them: their bytes are one run), a NULL-able column
//! that is never NULL from a NOT NULL one, a variable-length column whose
//! every value has the same length from a fixed one (REDUNDANT), and a
//! variable-length column's declared maximum. The type layer splits the
//! runs by the values' shapes and says how sure it is.
//!
//! Bounds: at most `MAX_PAGES` (2048) pages per index are read, at most
//! `MAX_SEARCH_RECORDS` (1000) records take part in the search, which visits
//! at most `MAX_NODES` (100,000) hypotheses and says when it gave up
//! ([`Outcome::GaveUp`]); the hypothesis found is then checked against
//! every record read.

use crate::table::{ColType, Column};
use crate::value::{render, Rendered};
use ibdscope_core::record::REC_INFO_MIN_REC_FLAG;
use ibdscope_core::{IndexId, PageNo, RecFormat, RecPage, RecType, Tablespace, Visited};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// Pages read per index.
const MAX_PAGES: usize = 2048;
/// Records that take part in the hypothesis search (the rest check it).
const MAX_SEARCH_RECORDS: usize = 1000;
/// Hypotheses the search visits before it gives up.
const MAX_NODES: u32 = 100_000;
/// Hypotheses visited after the first that fits, looking for a rival.
const RIVAL_NODES: u32 = 5000;
/// Records whose values the type layer reads per column.
const MAX_TYPE_RECORDS: usize = 5000;
/// Records below which every type is of low confidence.
const MIN_TYPE_RECORDS: u32 = 20;
/// Fields of a record (REC_MAX_N_FIELDS, rem0types.h: 1023).
const MAX_FIELDS: usize = 1023;
/// Indexes looked at.
const MAX_INDEXES: usize = 64;
/// PAGE_NEW_SUPREMUM_END (page0page.h): where the first COMPACT user
/// record's header may start.
const PAGE_NEW_SUPREMUM_END: usize = 120;
/// REC_N_NEW_EXTRA_BYTES.
const EXTRA: usize = 5;
/// DATA_TRX_ID_LEN, DATA_ROLL_PTR_LEN (data0type.h).
const TRX_LEN: u32 = 6;
const ROLL_LEN: u32 = 7;
/// DATA_ROW_ID_LEN (data0type.h).
const ROW_ID_LEN: u32 = 6;

/// How a column is stored, as the records show it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Storage {
    /// The same number of bytes in every record (NULL included in
    /// REDUNDANT, where a NULL fixed-width field keeps its bytes).
    Fixed(u32),
    /// A length per record; `big`: lengths of two bytes occur (or the
    /// field goes off-page), so the column's maximum is over 255 bytes
    /// (`DATA_BIG_COL`).
    Variable {
        /// Two-byte lengths seen (COMPACT), or lengths over 255 / off-page.
        big: bool,
        /// Longest value seen, in bytes stored in the record.
        max_seen: u32,
        /// Some value is stored off-page (an external reference).
        external: bool,
    },
}

/// How sure a column's inference is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Confidence {
    /// Two or more types fit alike; the first is printed.
    Ambiguous,
    /// The shape fits most values but not all, or little evidence.
    Low,
    /// Every value read fits the type, others fit less well.
    High,
    /// Given by the format itself (DB_TRX_ID, DB_ROLL_PTR, the storage).
    Exact,
}

impl Confidence {
    /// The word for output.
    pub fn word(self) -> &'static str {
        match self {
            Confidence::Ambiguous => "ambiguous",
            Confidence::Low => "low",
            Confidence::High => "high",
            Confidence::Exact => "exact",
        }
    }
}

/// A type family, for comparing with a real definition.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Family {
    /// TINYINT … BIGINT, YEAR, ENUM, SET, BIT.
    Integer,
    /// DECIMAL.
    Decimal,
    /// FLOAT, DOUBLE.
    Float,
    /// DATE, DATETIME, TIMESTAMP, TIME.
    Temporal,
    /// CHAR, VARCHAR, TEXT.
    Text,
    /// BINARY, VARBINARY, BLOB, and bytes of no known shape.
    Binary,
    /// DB_TRX_ID, DB_ROLL_PTR, DB_ROW_ID.
    System,
}

impl Family {
    /// The word for output.
    pub fn word(self) -> &'static str {
        match self {
            Family::Integer => "integer",
            Family::Decimal => "decimal",
            Family::Float => "float",
            Family::Temporal => "temporal",
            Family::Text => "text",
            Family::Binary => "binary",
            Family::System => "system",
        }
    }

    /// The family of a real column type.
    pub fn of(t: ColType) -> Family {
        use ColType::*;
        match t {
            Tiny | Short | Long | LongLong | Int24 | Year | Enum | Set | Bit => Family::Integer,
            Decimal | NewDecimal => Family::Decimal,
            Float | Double => Family::Float,
            Timestamp | Date | Time | DateTime | NewDate | Timestamp2 | DateTime2 | Time2 => {
                Family::Temporal
            }
            Varchar | VarString | String | TinyBlob | MediumBlob | LongBlob | Blob | Json => {
                Family::Text
            }
            _ => Family::Binary,
        }
    }
}

/// One inferred column, in storage order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InferredColumn {
    /// `c1`, `c2`, … (`DB_TRX_ID` and `DB_ROLL_PTR` are not columns).
    pub name: String,
    /// The SQL type printed.
    pub sql_type: String,
    /// The family of that type.
    pub family: Family,
    /// How it is stored.
    pub storage: Storage,
    /// Has a NULL bit (COMPACT) or a NULL field was seen (REDUNDANT).
    pub nullable: bool,
    /// Part of the clustered index key.
    pub key: bool,
    /// How sure the type is.
    pub confidence: Confidence,
    /// Other types that fit as well, or nearly.
    pub alternatives: Vec<String>,
    /// Why, in words.
    pub evidence: String,
}

/// How the storage search ended for one index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// One hypothesis fits every record read (`tight` of `pairs` record
    /// boundaries meet exactly; the others leave free bytes, as reused
    /// free space does).
    Fits {
        /// Boundaries met exactly.
        tight: u32,
        /// Boundaries checked.
        pairs: u32,
        /// Another hypothesis fits as well.
        ambiguous: bool,
    },
    /// The search visited its `MAX_NODES` (100,000) hypotheses without one that
    /// fits.
    GaveUp {
        /// Hypotheses visited.
        nodes: u32,
    },
    /// No hypothesis fits: why.
    NoFit(String),
    /// No record to read.
    NoRecords,
}

/// What was inferred about one index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IndexInference {
    /// PAGE_INDEX_ID.
    pub id: IndexId,
    /// Leaf pages read.
    pub leaf_pages: u32,
    /// Leaf records read (live and on the free list).
    pub records: u32,
    /// Storage-order fields: their storage and whether they are NULL-able
    /// (a NOT NULL fixed-width run counts as one field for COMPACT).
    pub fields: Vec<(Storage, bool)>,
    /// How the search ended.
    pub outcome: Outcome,
}

/// A table's columns inferred from its records.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Inference {
    /// The record format of the pages.
    pub format: RecFormat,
    /// The clustered index (the lowest index id), then the others.
    pub indexes: Vec<IndexInference>,
    /// The clustered index's columns, system columns left out.
    pub columns: Vec<InferredColumn>,
    /// Key columns (the first `n_key` of [`Inference::columns`]).
    pub n_key: usize,
    /// Every column's storage and type were found with no ambiguity.
    pub complete: bool,
    /// What the inference could not decide, in words.
    pub notes: Vec<String>,
}

// ------------------------------------------------------------- pages

/// One page's records, copied (compressed pages rebuilt).
struct PageRecs {
    page: PageNo,
    bytes: Vec<u8>,
    /// Record origins, live and free, in address order.
    origins: Vec<u16>,
    /// On the record chain (not the free list), by origin position: only
    /// these give values to the type layer (a freed record's bytes may
    /// be partly overwritten).
    live: Vec<bool>,
    heap_top: usize,
}

struct IndexPages {
    id: IndexId,
    leaves: Vec<PageRecs>,
    instant: bool,
}

fn read_records(ts: &Tablespace<'_>, n: PageNo, zip: &mut Vec<u8>) -> Option<(PageRecs, u16)> {
    let rp = RecPage::of(ts, n).ok()?;
    let logical = rp.logical_size();
    let bytes: Vec<u8> = if rp.is_compressed() {
        crate::zip::decompress(rp.bytes(), logical as usize, zip).ok()?;
        zip.clone()
    } else {
        rp.bytes().to_vec()
    };
    let rp = RecPage::new(&bytes, logical)?;
    let level = rp.header().level();
    let mut visited = Visited::new();
    let mut recs: Vec<(u16, bool)> = Vec::new();
    let mut instant = false;
    for free in [false, true] {
        let it = if free {
            rp.free_records(&mut visited)
        } else {
            rp.records(&mut visited)
        };
        let Some(mut it) = it else { break };
        while let Ok(Some(r)) = it.next() {
            if !r.is_user() {
                continue;
            }
            if r.rec_type == RecType::Instant
                || (level == 0 && r.header.info_bits & REC_INFO_MIN_REC_FLAG != 0)
                || r.header.is_instant()
                || r.header.is_versioned()
            {
                instant = true;
            }
            recs.push((r.origin, !free));
        }
    }
    recs.sort_unstable();
    recs.dedup_by_key(|r| r.0);
    let heap_top = rp.heap_limit();
    let page = PageRecs {
        page: n,
        origins: recs.iter().map(|r| r.0).collect(),
        live: recs.iter().map(|r| r.1).collect(),
        heap_top,
        bytes,
    };
    Some((page, if instant { u16::MAX } else { level }))
}

fn gather(ts: &Tablespace<'_>) -> (Vec<IndexPages>, Option<RecFormat>) {
    let mut out: Vec<IndexPages> = Vec::new();
    let mut format = None;
    let mut zip = Vec::new();
    for n in 0..ts.n_pages() {
        let Ok(rp) = RecPage::of(ts, PageNo(n)) else {
            continue;
        };
        let id = rp.header().index_id();
        // The SDI index and the insert buffer are not the table's.
        if rp.header().n_recs() == 0 && rp.header().n_heap() & 0x7FFF <= 2 {
            continue;
        }
        let level_hdr = rp.header().level();
        let pos = match out.iter().position(|i| i.id == id) {
            Some(p) => p,
            None if out.len() < MAX_INDEXES => {
                out.push(IndexPages {
                    id,
                    leaves: Vec::new(),
                    instant: false,
                });
                out.len().saturating_sub(1)
            }
            None => continue,
        };
        let Some(ix) = out.get_mut(pos) else { continue };
        // Leaves only: node pointers repeat the key.
        if level_hdr != 0 || ix.leaves.len() >= MAX_PAGES {
            continue;
        }
        let Some((recs, level)) = read_records(ts, PageNo(n), &mut zip) else {
            continue;
        };
        format.get_or_insert(rp.format());
        if level == u16::MAX {
            ix.instant = true;
        }
        ix.leaves.push(recs);
    }
    // SDI pages (MySQL 8.0) are FIL_PAGE_SDI, not INDEX: not here. The
    // clustered index has the lowest id (created first).
    out.retain(|i| !i.leaves.is_empty());
    out.sort_by_key(|i| i.id.0);
    (out, format)
}

fn byte(b: &[u8], at: usize) -> u8 {
    b.get(at).copied().unwrap_or(0)
}

// ------------------------------------------------- REDUNDANT: exact

/// One field's bytes in one record: offset from the page start, length,
/// NULL, external.
#[derive(Clone, Copy, Debug, Default)]
struct Cell {
    at: u32,
    len: u32,
    null: bool,
    ext: bool,
}

/// Every record's cells, for the type layer, and the fields found.
type Row = (usize, u32, Vec<Cell>);

struct Table {
    fields: Vec<(Storage, bool)>,
    /// For each record read (up to MAX_TYPE_RECORDS): the page index,
    /// the origin and the cells of every field (offsets from the origin;
    /// COMPACT: not counting the NOT NULL fixed bytes, whose place the
    /// type layer decides).
    rows: Vec<Row>,
    /// COMPACT: the NOT NULL fixed bytes (one total, `fields` holds the
    /// other fields only).
    run: Option<u32>,
}

fn redundant(ix: &IndexPages) -> Result<Table, String> {
    let mut n_fields: Option<u16> = None;
    let mut lens: Vec<(Option<u32>, bool, bool, u32, bool, bool)> = Vec::new();
    // (fixed length so far, varies, null seen, max, ext, null with bytes)
    let mut rows = Vec::new();
    for (pi, p) in ix.leaves.iter().enumerate() {
        let rp = RecPage::new(&p.bytes, u32::try_from(p.bytes.len()).unwrap_or(0));
        let Some(rp) = rp else { continue };
        for (oi, &o) in p.origins.iter().enumerate() {
            let Some(rec) = rp.record_at(o) else { continue };
            let n = rec.header.n_fields;
            match n_fields {
                None => {
                    n_fields = Some(n);
                    lens = vec![(None, false, false, 0, false, false); usize::from(n)];
                }
                Some(m) if m != n => {
                    return Err(format!(
                        "records with {m} and {n} fields (page {}): an instant ADD COLUMN, or two \
                         layouts",
                        p.page
                    ))
                }
                Some(_) => {}
            }
            let mut cells = Vec::with_capacity(usize::from(n));
            for (f, st) in rec.fields(&p.bytes).zip(lens.iter_mut()) {
                let len = u32::from(f.len());
                cells.push(Cell {
                    at: u32::from(f.start),
                    len,
                    null: f.null,
                    ext: f.external,
                });
                st.3 = st.3.max(len);
                st.4 |= f.external;
                if f.null {
                    st.2 = true;
                    if len > 0 {
                        st.5 = true;
                    } else {
                        continue;
                    }
                }
                match st.0 {
                    None if !st.1 => st.0 = Some(len),
                    Some(l) if l != len => {
                        st.0 = None;
                        st.1 = true;
                    }
                    _ => {}
                }
            }
            if rows.len() < MAX_TYPE_RECORDS && p.live.get(oi).copied().unwrap_or(false) {
                rows.push((pi, u32::from(o), cells));
            }
        }
    }
    if n_fields.is_none() {
        return Err("no record".into());
    }
    let fields = lens
        .iter()
        .map(|&(fixed, _, null, max, ext, null_bytes)| {
            // A NULL field with no bytes is variable-length: a fixed one
            // keeps its width (rec_convert_dtuple_to_rec_old).
            let var = fixed.is_none() || ext || (null && !null_bytes);
            let s = match fixed {
                Some(w) if !var => Storage::Fixed(w),
                _ => Storage::Variable {
                    big: max > 255 || ext,
                    max_seen: max,
                    external: ext,
                },
            };
            (s, null)
        })
        .collect();
    Ok(Table {
        fields,
        rows,
        run: None,
    })
}

// ------------------------------------------- COMPACT: the search

/// A NULL-able or variable-length field of a COMPACT hypothesis (NOT NULL
/// fixed-width bytes are not items: they are counted in one total).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Item {
    /// NOT NULL variable, 1-byte lengths only.
    Var,
    /// NOT NULL variable, 2-byte lengths allowed.
    VarBig,
    /// NULL-able variable.
    NVar,
    /// NULL-able variable, 2-byte lengths allowed.
    NVarBig,
    /// NULL-able fixed (width solved at the end).
    NFixed,
}

impl Item {
    fn nullable(self) -> bool {
        matches!(self, Item::NVar | Item::NVarBig | Item::NFixed)
    }
    fn var(self) -> Option<bool> {
        match self {
            Item::Var | Item::NVar => Some(false),
            Item::VarBig | Item::NVarBig => Some(true),
            Item::NFixed => None,
        }
    }
}

/// What a hypothesis reads: its variable fields in order (with their
/// NULL bit) and the NULL bits of its NULL-able fixed fields. Two
/// hypotheses with one signature read every record alike.
fn signature(items: &[Item]) -> (Vec<(Item, usize)>, Vec<usize>) {
    let mut bit = 0usize;
    let mut var = Vec::new();
    let mut fixed = Vec::new();
    for &it in items {
        match it.var() {
            Some(_) => var.push((it, if it.nullable() { bit } else { usize::MAX })),
            None => fixed.push(bit),
        }
        if it.nullable() {
            bit = bit.saturating_add(1);
        }
    }
    (var, fixed)
}

/// One record of the search: where it is and what the hypothesis so far
/// has read of it.
#[derive(Clone, Copy, Debug, Default)]
struct RecState {
    /// Bytes of lengths read (below the NULL bitmap).
    lens: u32,
    /// Bytes of variable-length data.
    var: u32,
    /// NULL-able fixed fields not NULL.
    nfix: u32,
}

struct Search<'p> {
    pages: &'p [PageRecs],
    /// (page, position) of each record in the search.
    recs: Vec<(usize, usize)>,
    nb: usize,
    nn: usize,
    amin: u32,
    nodes: u32,
    /// Hypotheses visited when the first that fits was found.
    first_at: Option<u32>,
    /// Upper bound on every record's bytes of lengths: a first record's
    /// header meets PAGE_NEW_SUPREMUM_END.
    found: Vec<(Vec<Item>, Solved)>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Solved {
    a: u32,
    widths: Vec<u32>,
    tight: u32,
    pairs: u32,
}

impl Search<'_> {
    fn page(&self, r: usize) -> Option<(&PageRecs, usize)> {
        let &(p, i) = self.recs.get(r)?;
        Some((self.pages.get(p)?, i))
    }

    fn origin(&self, r: usize) -> usize {
        self.page(r)
            .and_then(|(p, i)| p.origins.get(i))
            .map_or(0, |&o| usize::from(o))
    }

    fn null_bit(&self, r: usize, bit: usize) -> bool {
        let Some((p, i)) = self.page(r) else {
            return false;
        };
        let o = p.origins.get(i).map_or(0, |&o| usize::from(o));
        let at = o
            .saturating_sub(EXTRA)
            .saturating_sub(1)
            .saturating_sub(bit / 8);
        byte(&p.bytes, at) & (1u8 << (bit % 8)) != 0
    }

    /// Reads a length for record `r` after `st.lens` bytes: (length,
    /// bytes of length, external).
    fn read_len(&self, r: usize, st: &RecState, big: bool) -> (u32, u32, bool) {
        let Some((p, i)) = self.page(r) else {
            return (u32::MAX, 1, false);
        };
        let o = p.origins.get(i).map_or(0, |&o| usize::from(o));
        let at = o
            .saturating_sub(EXTRA)
            .saturating_sub(self.nb)
            .saturating_sub(st.lens as usize)
            .saturating_sub(1);
        let b = byte(&p.bytes, at);
        if big && b & 0x80 != 0 {
            let b2 = byte(&p.bytes, at.saturating_sub(1));
            let len = (u32::from(b & 0x3F) << 8) | u32::from(b2);
            (len, 2, b & 0x40 != 0)
        } else {
            (u32::from(b), 1, false)
        }
    }

    /// The next record in address order on the same page, when `r` is
    /// followed by one in the search.
    fn next_of(&self, r: usize) -> Option<usize> {
        let (&(p, i), &(q, j)) = (self.recs.get(r)?, self.recs.get(r.checked_add(1)?)?);
        (p == q && j == i.checked_add(1)?).then_some(r.saturating_add(1))
    }

    /// Bytes free between record `r`'s data (so far) and the next
    /// record's header (so far); `None` when `r` is the last on its page
    /// in the search (checked against PAGE_HEAP_TOP when its page's last).
    fn room(&self, states: &[RecState], r: usize, nfix_min: u32) -> Option<i64> {
        let st = states.get(r)?;
        let used_r = i64::from(st.var)
            .saturating_add(i64::from(st.nfix).saturating_mul(i64::from(nfix_min)))
            .saturating_add(i64::from(self.amin));
        match self.next_of(r) {
            Some(s) => {
                let ss = states.get(s)?;
                let gap = (self.origin(s) as i64).saturating_sub(self.origin(r) as i64);
                Some(
                    gap.saturating_sub(used_r)
                        .saturating_sub(EXTRA.saturating_add(self.nb) as i64)
                        .saturating_sub(i64::from(ss.lens)),
                )
            }
            None => {
                let (p, i) = self.page(r)?;
                if i.checked_add(1)? == p.origins.len() {
                    Some(
                        (p.heap_top as i64)
                            .saturating_sub(self.origin(r) as i64)
                            .saturating_sub(used_r),
                    )
                } else {
                    None
                }
            }
        }
    }

    fn feasible(&self, states: &[RecState]) -> bool {
        for r in 0..states.len() {
            if self.room(states, r, 1).is_some_and(|x| x < 0) {
                return false;
            }
            // A page's first record: its header starts at or after
            // PAGE_NEW_SUPREMUM_END.
            if let (Some((_, 0)), Some(st)) = (self.page(r), states.get(r)) {
                let start = (self.origin(r) as i64)
                    .saturating_sub(EXTRA.saturating_add(self.nb) as i64)
                    .saturating_sub(i64::from(st.lens));
                if start < PAGE_NEW_SUPREMUM_END as i64 {
                    return false;
                }
            }
        }
        true
    }

    /// Applies `item` (at null bit `bit` when NULL-able) to every record.
    /// While searching (`prune`), `None` when a length runs past what the
    /// page can hold, or for a 2-byte length that never reads two bytes
    /// (the 1-byte hypothesis, tried already); a hypothesis being checked
    /// is applied as it stands.
    fn apply(
        &self,
        states: &[RecState],
        item: Item,
        bit: usize,
        prune: bool,
    ) -> Option<Vec<RecState>> {
        let mut out = states.to_vec();
        let mut two = false;
        for (r, st) in out.iter_mut().enumerate() {
            if item.nullable() && self.null_bit(r, bit) {
                continue;
            }
            match item.var() {
                None => st.nfix = st.nfix.saturating_add(1),
                Some(big) => {
                    let (len, nb, _) = self.read_len(r, st, big);
                    two |= nb == 2;
                    if prune && len > 16383 {
                        return None;
                    }
                    st.lens = st.lens.saturating_add(nb);
                    st.var = st.var.saturating_add(len);
                }
            }
        }
        // A 2-byte hypothesis that never reads two bytes is the 1-byte
        // one: not tried twice.
        if prune && item.var() == Some(true) && !two {
            return None;
        }
        Some(out)
    }

    fn dfs(&mut self, items: &mut Vec<Item>, states: &[RecState], bit: usize) {
        if self.nodes >= MAX_NODES || self.found.len() >= 2 || items.len() >= MAX_FIELDS {
            return;
        }
        // Once one hypothesis fits, a rival is looked for a little longer.
        if self
            .first_at
            .is_some_and(|f| self.nodes > f.saturating_add(RIVAL_NODES))
        {
            return;
        }
        self.nodes = self.nodes.saturating_add(1);
        if !self.feasible(states) {
            return;
        }
        if bit == self.nn {
            if let Some(s) = self.solve(items, states) {
                let sig = signature(items);
                if !self.found.iter().any(|(f, _)| signature(f) == sig) {
                    self.found.push((items.clone(), s));
                    self.first_at.get_or_insert(self.nodes);
                }
            }
        }
        // NOT NULL variable fields first: the same fields in another
        // order of NULL-able fixed and NOT NULL variable ones read alike
        // (only the bytes' placement differs), and are one hypothesis.
        let mut cands: Vec<Item> = vec![Item::Var];
        if bit < self.nn {
            cands.extend([Item::NFixed, Item::NVar, Item::NVarBig]);
        }
        cands.push(Item::VarBig);
        for c in cands {
            let Some(next) = self.apply(states, c, bit, true) else {
                continue;
            };
            items.push(c);
            let nbit = if c.nullable() {
                bit.saturating_add(1)
            } else {
                bit
            };
            self.dfs(items, &next, nbit);
            items.pop();
            if self.found.len() >= 2 || self.nodes >= MAX_NODES {
                return;
            }
            if self
                .first_at
                .is_some_and(|f| self.nodes > f.saturating_add(RIVAL_NODES))
            {
                return;
            }
        }
    }

    /// Solves the NOT NULL fixed total and the NULL-able fixed widths
    /// from the record boundaries, or `None` when they do not fit.
    fn solve(&self, items: &[Item], states: &[RecState]) -> Option<Solved> {
        let nfixed: Vec<usize> = items
            .iter()
            .scan(0usize, |bit, it| {
                let b = *bit;
                if it.nullable() {
                    *bit = bit.saturating_add(1);
                }
                Some((it, b))
            })
            .filter(|(it, _)| **it == Item::NFixed)
            .map(|(_, b)| b)
            .collect();
        // Each record with a known extent: (pattern of NULL-able fixed
        // fields present, bytes of fixed data).
        let mut groups: BTreeMap<Vec<bool>, (i64, u32)> = BTreeMap::new();
        let mut pairs = Vec::new();
        for r in 0..states.len() {
            let st = states.get(r)?;
            let fixed_bytes = match self.next_of(r) {
                Some(s) => {
                    let ss = states.get(s)?;
                    (self.origin(s) as i64)
                        .saturating_sub(self.origin(r) as i64)
                        .saturating_sub(i64::from(st.var))
                        .saturating_sub(EXTRA.saturating_add(self.nb) as i64)
                        .saturating_sub(i64::from(ss.lens))
                }
                None => {
                    let (p, i) = self.page(r)?;
                    if i.saturating_add(1) != p.origins.len() {
                        continue;
                    }
                    (p.heap_top as i64)
                        .saturating_sub(self.origin(r) as i64)
                        .saturating_sub(i64::from(st.var))
                }
            };
            let pat: Vec<bool> = nfixed.iter().map(|&b| !self.null_bit(r, b)).collect();
            let e = groups.entry(pat.clone()).or_insert((fixed_bytes, 0));
            e.0 = e.0.min(fixed_bytes);
            e.1 = e.1.saturating_add(1);
            pairs.push((pat, fixed_bytes));
        }
        // One equation per NULL pattern: the NOT NULL fixed total plus the
        // widths of the NULL-able fixed fields present is the pattern's
        // fixed bytes (its least: reused free space only adds). Solved
        // column by column, the most frequent patterns first.
        let mut eqs: Vec<(&Vec<bool>, i64, u32)> =
            groups.iter().map(|(p, &(g, n))| (p, g, n)).collect();
        eqs.sort_by_key(|e| std::cmp::Reverse(e.2));
        let (a, widths) = solve_widths(nfixed.len(), &eqs)?;
        if a < i64::from(self.amin) {
            return None;
        }
        let widths: Vec<u32> = widths
            .iter()
            .map(|&v| u32::try_from(v).ok().filter(|&v| v > 0))
            .collect::<Option<Vec<u32>>>()?;
        let mut tight = 0u32;
        for (pat, g) in &pairs {
            let need: i64 = pat
                .iter()
                .zip(&widths)
                .filter(|(p, _)| **p)
                .fold(a, |acc, (_, &x)| acc.saturating_add(i64::from(x)));
            if *g < need {
                return None;
            }
            if *g == need {
                tight = tight.saturating_add(1);
            }
        }
        let n = u32::try_from(pairs.len()).unwrap_or(u32::MAX);
        // Reused free space leaves bytes between records; most boundaries
        // must still meet exactly.
        if n == 0 || u64::from(tight) * 10 < u64::from(n) * 9 {
            return None;
        }
        Some(Solved {
            a: u32::try_from(a).ok()?,
            widths,
            tight,
            pairs: n,
        })
    }
}

/// Solves `a + Σ w_j (j present in the pattern) = g` for the NOT NULL
/// fixed total `a` and the `k` NULL-able fixed widths `w`, from the
/// equations in order (each one that adds a new unknown is kept: a
/// reduced row echelon form), as whole numbers; `None` when the patterns
/// seen do not fix every unknown (two fields always NULL together) or
/// the solution is not whole.
fn solve_widths(k: usize, eqs: &[(&Vec<bool>, i64, u32)]) -> Option<(i64, Vec<i64>)> {
    let m = k.saturating_add(1);
    // Rows: m coefficients then the right-hand side; their pivot column.
    let mut rows: Vec<(usize, Vec<f64>)> = Vec::new();
    for (pat, g, _) in eqs {
        if rows.len() >= m {
            break;
        }
        let mut e: Vec<f64> = std::iter::once(1.0)
            .chain(pat.iter().map(|&p| if p { 1.0 } else { 0.0 }))
            .chain(std::iter::once(*g as f64))
            .collect();
        for (pc, row) in &rows {
            let f = e.get(*pc).copied().unwrap_or(0.0);
            if f != 0.0 {
                for (x, y) in e.iter_mut().zip(row) {
                    *x -= f * y;
                }
            }
        }
        let Some((pc, &pv)) = e
            .iter()
            .take(m)
            .enumerate()
            .max_by(|a, b| a.1.abs().total_cmp(&b.1.abs()))
        else {
            continue;
        };
        if pv.abs() < 1e-9 {
            continue;
        }
        for x in &mut e {
            *x /= pv;
        }
        for (_, row) in &mut rows {
            let f = row.get(pc).copied().unwrap_or(0.0);
            if f != 0.0 {
                for (x, y) in row.iter_mut().zip(&e) {
                    *x -= f * y;
                }
            }
        }
        rows.push((pc, e));
    }
    if rows.len() < m {
        return None;
    }
    let mut x = vec![0i64; m];
    for (pc, row) in &rows {
        let v = row.get(m).copied().unwrap_or(f64::NAN);
        let r = v.round();
        if !r.is_finite() || (v - r).abs() > 1e-6 || r.abs() > 1e9 {
            return None;
        }
        *x.get_mut(*pc)? = r as i64;
    }
    let a = *x.first()?;
    Some((a, x.get(1..).unwrap_or(&[]).to_vec()))
}

fn compact(ix: &IndexPages, clustered: bool) -> Result<(Vec<Table>, Outcome), Outcome> {
    if ix.instant {
        return Err(Outcome::NoFit(
            "records written after an instant ALTER TABLE (several layouts in one index)".into(),
        ));
    }
    let mut recs = Vec::new();
    for (pi, p) in ix.leaves.iter().enumerate() {
        if recs.len() >= MAX_SEARCH_RECORDS {
            break;
        }
        for i in 0..p.origins.len() {
            recs.push((pi, i));
        }
    }
    if recs.is_empty() {
        return Err(Outcome::NoRecords);
    }
    // The highest NULL bit ever set bounds the bitmap from below.
    let mut best: Option<Vec<(Vec<Item>, Search<'_>, Solved)>> = None;
    let mut nodes = 0u32;
    for nb in 0..=16usize {
        let mut s = Search {
            pages: &ix.leaves,
            recs: recs.clone(),
            nb,
            nn: 0,
            amin: if clustered { TRX_LEN + ROLL_LEN } else { 0 },
            nodes,
            first_at: None,
            found: Vec::new(),
        };
        // Bits set above a bitmap of nb bytes would be length bytes; the
        // highest bit set within it gives the NULL-able count.
        let mut hi = 0usize;
        for r in 0..recs.len() {
            for bit in (0..nb.saturating_mul(8)).rev() {
                if s.null_bit(r, bit) {
                    hi = hi.max(bit.saturating_add(1));
                    break;
                }
            }
        }
        // The bitmap's width bounds the NULL-able count (unused bits are
        // 0): from the highest bit set, or the width less 7, up to the
        // width (a NULL-able column that is never NULL sets no bit).
        let lo = if nb == 0 {
            0
        } else {
            hi.max(nb.saturating_mul(8).saturating_sub(7))
        };
        for nn in lo..=nb.saturating_mul(8) {
            s.nn = nn;
            s.first_at = None;
            s.found.clear();
            let states = vec![RecState::default(); recs.len()];
            let mut items = Vec::new();
            s.dfs(&mut items, &states, 0);
            nodes = s.nodes;
            if !s.found.is_empty() {
                // Each hypothesis found on the search's records is checked
                // against every record read; a rival that fails there is
                // none.
                let found = std::mem::take(&mut s.found);
                let mut fits = found.into_iter().filter_map(|(items, _)| {
                    full_check(ix, nb, &items, clustered).map(|(c, f)| (items, c, f))
                });
                let first = fits.next();
                let rival = fits.next();
                match first {
                    Some(f) => {
                        best = Some(std::iter::once(f).chain(rival).collect());
                        break;
                    }
                    None => {
                        return Err(Outcome::NoFit(format!(
                            "the layout found on the first {} records does not fit every record",
                            recs.len()
                        )))
                    }
                }
            }
            if nodes >= MAX_NODES {
                return Err(Outcome::GaveUp { nodes });
            }
        }
        if best.is_some() {
            break;
        }
        if nodes >= MAX_NODES {
            return Err(Outcome::GaveUp { nodes });
        }
    }
    let Some(best) = best else {
        return Err(Outcome::NoFit(format!(
            "no layout of up to 128 NULL-able fields fits the records ({nodes} hypotheses)"
        )));
    };
    let outcome = best.first().map(|(_, _, full)| Outcome::Fits {
        tight: full.tight,
        pairs: full.pairs,
        ambiguous: best.len() > 1,
    });
    let tables = best
        .iter()
        .map(|(items, check, full)| table_of(ix, items, check, full))
        .collect();
    Ok((tables, outcome.unwrap_or(Outcome::NoRecords)))
}

/// The fields and every record's cells under the hypothesis `items`.
fn table_of(ix: &IndexPages, items: &[Item], check: &Search<'_>, full: &Solved) -> Table {
    // The fields but the NOT NULL fixed bytes (placed by the type layer).
    let mut fields = Vec::new();
    let mut rows = Vec::new();
    let mut maxes = vec![(0u32, false, false); items.len()];
    for (r, &(pi, i)) in check.recs.iter().enumerate() {
        let Some(p) = ix.leaves.get(pi) else { continue };
        let o = p.origins.get(i).map_or(0, |&o| u32::from(o));
        let mut st = RecState::default();
        let mut cells = Vec::with_capacity(items.len());
        let mut at = 0u32;
        let mut bit = 0usize;
        let mut nf = 0usize;
        for (k, &it) in items.iter().enumerate() {
            let null = it.nullable() && check.null_bit(r, bit);
            let (len, ext) = if null {
                (0, false)
            } else {
                match it.var() {
                    None => (full.widths.get(nf).copied().unwrap_or(0), false),
                    Some(big) => {
                        let (len, nb, ext) = check.read_len(r, &st, big);
                        st.lens = st.lens.saturating_add(nb);
                        (len, ext)
                    }
                }
            };
            if it == Item::NFixed {
                nf = nf.saturating_add(1);
            }
            if it.nullable() {
                bit = bit.saturating_add(1);
            }
            if let Some(m) = maxes.get_mut(k) {
                m.0 = m.0.max(len);
                m.1 |= ext;
                m.2 |= null;
            }
            cells.push(Cell { at, len, null, ext });
            at = at.saturating_add(len);
        }
        if rows.len() < MAX_TYPE_RECORDS && p.live.get(i).copied().unwrap_or(false) {
            rows.push((pi, o, cells));
        }
    }
    let mut nf = 0usize;
    for (&it, &(max, ext, _)) in items.iter().zip(&maxes) {
        let s = match it.var() {
            None => {
                let w = full.widths.get(nf).copied().unwrap_or(0);
                nf = nf.saturating_add(1);
                Storage::Fixed(w)
            }
            Some(big) => Storage::Variable {
                big,
                max_seen: max,
                external: ext,
            },
        };
        fields.push((s, it.nullable()));
    }
    Table {
        fields,
        rows,
        run: Some(full.a),
    }
}

/// `items` over every record of every leaf read: the search over them
/// all and the widths solved, or `None` when some record does not fit.
fn full_check<'p>(
    ix: &'p IndexPages,
    nb: usize,
    items: &[Item],
    clustered: bool,
) -> Option<(Search<'p>, Solved)> {
    let all: Vec<(usize, usize)> = ix
        .leaves
        .iter()
        .enumerate()
        .flat_map(|(pi, p)| (0..p.origins.len()).map(move |i| (pi, i)))
        .collect();
    let check = Search {
        pages: &ix.leaves,
        recs: all,
        nb,
        nn: items.iter().filter(|i| i.nullable()).count(),
        amin: if clustered { TRX_LEN + ROLL_LEN } else { 0 },
        nodes: 0,
        first_at: None,
        found: Vec::new(),
    };
    let mut states = vec![RecState::default(); check.recs.len()];
    let mut bit = 0usize;
    for &it in items {
        states = check.apply(&states, it, bit, false)?;
        if it.nullable() {
            bit = bit.saturating_add(1);
        }
    }
    if !check.feasible(&states) {
        return None;
    }
    let full = check.solve(items, &states)?;
    Some((check, full))
}

// ------------------------------------------------------- the types

/// A candidate type for some bytes.
#[derive(Clone, Debug)]
struct Cand {
    sql: String,
    family: Family,
    /// Share of the values that fit, 0..=1000.
    fit: u32,
    /// How telling a fit is (a byte string fits anything).
    weight: u32,
    evidence: String,
    /// Never more than low confidence (a stored format no `CREATE TABLE`
    /// makes today).
    low: bool,
    /// Other types that read every value alike (an integer's signedness,
    /// a DECIMAL's scale): named beside it, and the column is ambiguous.
    alts: Vec<String>,
}

fn col(t: ColType, unsigned: bool) -> Column {
    let mut c = Column::new("c", t);
    c.unsigned = unsigned;
    c
}

fn int_val(b: &[u8]) -> u64 {
    b.iter().fold(0u64, |a, &x| (a << 8) | u64::from(x))
}

/// Candidate types for a fixed-width column and how well `vals` fit.
fn fixed_cands(w: u32, vals: &[&[u8]]) -> Vec<Cand> {
    let mut out = Vec::new();
    let n = u32::try_from(vals.len()).unwrap_or(u32::MAX).max(1);
    let share = |k: usize| {
        u32::try_from(k)
            .unwrap_or(u32::MAX)
            .saturating_mul(1000)
            .checked_div(n)
            .unwrap_or(0)
    };
    let count = |f: &dyn Fn(&[u8]) -> bool| vals.iter().filter(|v| f(v)).count();
    // Integers: InnoDB flips the sign bit of signed ones, so small
    // signed values start 0x80 or 0x7F; small unsigned ones 0x00.
    let int_name = match w {
        1 => Some("tinyint"),
        2 => Some("smallint"),
        3 => Some("mediumint"),
        4 => Some("int"),
        8 => Some("bigint"),
        _ => None,
    };
    if let Some(name) = int_name {
        let signed = count(&|v| matches!(v.first(), Some(0x80 | 0x7F)));
        let unsigned = count(&|v| matches!(v.first(), Some(0x00)));
        let (lo, hi) = vals
            .iter()
            .map(|v| {
                let bias = 1i128
                    .checked_shl(w.saturating_mul(8).saturating_sub(1))
                    .unwrap_or(0);
                (int_val(v) as i128).wrapping_sub(bias)
            })
            .fold((i128::MAX, i128::MIN), |(a, b), x| (a.min(x), b.max(x)));
        let most = |k: usize| k.saturating_mul(10) >= vals.len().saturating_mul(9) && k > 0;
        // Every byte string is some integer: small magnitudes (the
        // flipped sign bit next to 0x00 or 0xFF bytes) make it telling.
        // One byte: 256 values, any of them as likely signed as not.
        let (telling, unsigned_telling) = if w > 1 {
            (most(signed), most(unsigned))
        } else {
            (false, false)
        };
        // Values of every magnitude say nothing of the sign: a signed and
        // an UNSIGNED column read them alike but for the sign bit
        // (`row_mysql_store_col_in_innobase_format`, row0mysql.cc: the
        // sign bit is flipped for signed integers only). Signed (the
        // default) is printed, the other named: the column is ambiguous.
        let unsure_sign = !telling && !unsigned_telling;
        out.push(Cand {
            low: false,
            alts: if unsure_sign {
                vec![format!("{name} unsigned")]
            } else {
                Vec::new()
            },
            sql: name.to_string(),
            family: Family::Integer,
            fit: 1000,
            weight: if telling {
                8
            } else if w == 1 {
                2
            } else {
                4
            },
            evidence: format!(
                "{w}-byte integers with the sign bit flipped, {lo}..{hi}{}",
                if unsure_sign {
                    " (values of every magnitude: signed, or UNSIGNED)"
                } else {
                    ""
                }
            ),
        });
        if unsigned_telling {
            out.push(Cand {
                low: false,
                alts: Vec::new(),
                sql: format!("{name} unsigned"),
                family: Family::Integer,
                fit: share(unsigned),
                weight: 6,
                evidence: format!("{w}-byte unsigned integers, high byte 0"),
            });
        }
    }
    if let Some(c) = decimal_cand(w, vals) {
        out.push(c);
    }
    let temporal: &[(u32, &str, ColType, u32)] = &[
        (3, "date", ColType::NewDate, 0),
        (3, "time", ColType::Time2, 0),
        (4, "time(2)", ColType::Time2, 2),
        (5, "time(4)", ColType::Time2, 4),
        (6, "time(6)", ColType::Time2, 6),
        (5, "datetime", ColType::DateTime2, 0),
        (6, "datetime(2)", ColType::DateTime2, 2),
        (7, "datetime(4)", ColType::DateTime2, 4),
        (8, "datetime(6)", ColType::DateTime2, 6),
        (4, "timestamp", ColType::Timestamp2, 0),
        (5, "timestamp(2)", ColType::Timestamp2, 2),
        (6, "timestamp(4)", ColType::Timestamp2, 4),
        (7, "timestamp(6)", ColType::Timestamp2, 6),
    ];
    // MariaDB's formats before MySQL 5.6.4's (`mysql56_temporal_format =
    // OFF`): TIME as ±HHMMSS in 3 bytes, DATETIME as YYYYMMDDHHMMSS in 8,
    // TIMESTAMP as 4 bytes of seconds, and MariaDB 5.3's "hires" ones with
    // a fraction (`table::hires_len`). No CREATE TABLE makes them now: the
    // statement names today's type, and they stay of low confidence.
    let mut old: Vec<(u32, String, ColType, u32)> = vec![
        (3, "time".into(), ColType::Time, 0),
        (8, "datetime".into(), ColType::DateTime, 0),
        (4, "timestamp".into(), ColType::Timestamp, 0),
    ];
    for fsp in 1..=6u32 {
        for (t, name) in [
            (ColType::Time, "time"),
            (ColType::DateTime, "datetime"),
            (ColType::Timestamp, "timestamp"),
        ] {
            if let Some(hw) = crate::table::hires_len(t, fsp) {
                old.push((hw, format!("{name}({fsp})"), t, fsp));
            }
        }
    }
    let current = temporal
        .iter()
        .map(|&(tw, name, t, fsp)| (tw, name.to_string(), t, fsp, false));
    let older = old
        .into_iter()
        .map(|(tw, name, t, fsp)| (tw, name, t, fsp, true));
    for (tw, name, t, fsp, is_old) in current.chain(older) {
        if tw != w {
            continue;
        }
        let mut c = col(t, false);
        c.fsp = fsp;
        let mut lo: Option<String> = None;
        let mut hi: Option<String> = None;
        let mut ok = 0usize;
        // TIME2's minutes and seconds (6 bits each, under 60): the most seen.
        let mut ms = (0u32, 0u32);
        // Fractions (even precisions only: odd ones share their bytes with
        // the next even one) whose last digit is 0, and that are 0.
        let (mut tens, mut zeros) = (0usize, 0usize);
        for v in vals {
            let mut s = String::new();
            if render(&c, v, &mut s) == Rendered::Text && plausible_time(t, &s) {
                ok = ok.saturating_add(1);
                if let Some((_, f)) = s.split_once('.') {
                    tens = tens.saturating_add(usize::from(f.ends_with('0')));
                    zeros = zeros.saturating_add(usize::from(f.bytes().all(|b| b == b'0')));
                }
                if t == ColType::Time2 {
                    let mut parts = s.split('.').next().unwrap_or("").rsplit(':');
                    let sec = parts.next().and_then(|x| x.parse().ok()).unwrap_or(0);
                    let min = parts.next().and_then(|x| x.parse().ok()).unwrap_or(0);
                    ms = (ms.0.max(min), ms.1.max(sec));
                }
                if lo.as_ref().is_none_or(|l| s < *l) {
                    lo = Some(s.clone());
                }
                if hi.as_ref().is_none_or(|h| s > *h) {
                    hi = Some(s);
                }
            }
        }
        // DATETIME2, TIMESTAMP2 and TIME2 keep fsp 1–2, 3–4, 5–6 in 1, 2, 3
        // bytes, an odd fsp as the even one's value with its last digit 0
        // (`my_datetime_packed_to_binary`, my_time.c: frac / 10^(6 - 2k)):
        // every last digit 0 reads as the odd fsp; every fraction 0 names
        // both.
        let odd = !is_old
            && fsp > 0
            && fsp.is_multiple_of(2)
            && ok == vals.len()
            && ok > 0
            && tens == vals.len();
        let (sql, alts) = if odd {
            let odd_name =
                name.replace(&format!("({fsp})"), &format!("({})", fsp.saturating_sub(1)));
            if zeros == vals.len() {
                (odd_name, vec![name.clone()])
            } else {
                (odd_name, Vec::new())
            }
        } else {
            (name.clone(), Vec::new())
        };
        out.push(Cand {
            low: is_old,
            alts,
            sql,
            family: Family::Temporal,
            fit: share(ok),
            weight: match t {
                // MariaDB 5.3's hires DATETIME: less telling than text.
                ColType::DateTime if fsp > 0 => 6,
                ColType::DateTime2 | ColType::DateTime => 8,
                ColType::NewDate => 7,
                ColType::Time | ColType::Timestamp2 | ColType::Timestamp => 5,
                // TIME2 (`my_time_packed_to_binary`, my_time.c: hour 10
                // bits, minute and second 6 bits each, sign bit flipped):
                // minutes and seconds under 60 in every one of 50 or more
                // values that reach 30 of both tell ((60/64)^2 per value
                // at random).
                ColType::Time2 if ok == vals.len() && ok >= 50 && ms.0 >= 30 && ms.1 >= 30 => 7,
                _ => 4,
            },
            evidence: format!(
                "decode as {}{} between {} and {}",
                name.to_uppercase(),
                if is_old {
                    " in MariaDB's format before MySQL 5.6.4's (no CREATE TABLE makes it now)"
                } else {
                    ""
                },
                lo.unwrap_or_default(),
                hi.unwrap_or_default()
            ),
        });
    }
    if w == 8 || w == 4 {
        // FLOAT and DOUBLE are stored as the machine writes them, little
        // endian, the sign bit NOT flipped (`row_mysql_store_col_in_
        // innobase_format`: DATA_FLOAT / DATA_DOUBLE are copied as they
        // are; `mach_float_read`, mach0data.ic). Any bytes are some IEEE
        // value; values of ordinary magnitude (1e-30..1e30) in nearly every
        // record tell, unless the bytes are small integers (the float's
        // lowest mantissa byte would then be 0x80 or 0x7F).
        let finite = count(&|v| float_finite(v));
        let ordinary = count(&|v| float_plausible(v));
        let int_small = count(&|v| matches!(v.first(), Some(0x80 | 0x7F)));
        let nonzero = count(&|v| v.iter().any(|&b| b != 0));
        let telling = vals.len() >= MIN_TYPE_RECORDS as usize
            && nonzero >= MIN_TYPE_RECORDS as usize
            && ordinary.saturating_mul(10) >= vals.len().saturating_mul(9)
            && int_small.saturating_mul(2) < vals.len();
        out.push(Cand {
            low: false,
            alts: Vec::new(),
            sql: if w == 8 { "double" } else { "float" }.to_string(),
            family: Family::Float,
            fit: share(finite),
            weight: if telling { 7 } else { 2 },
            evidence: format!(
                "{w}-byte little-endian IEEE values, {ordinary} of {} of ordinary magnitude",
                vals.len()
            ),
        });
    }
    // Text: latin1 letters padded with spaces (CHAR in a single-byte
    // charset keeps its full width).
    let text = count(&|v| {
        v.iter()
            .all(|&b| b == b'\t' || b == b'\n' || (0x20..0x7F).contains(&b) || b >= 0xA0)
    });
    let padded = count(&|v| v.last() == Some(&b' '));
    // A CHAR in a single-byte charset is padded with spaces to its width
    // (`row_mysql_store_col_in_innobase_format`, row0mysql.cc; `Field_
    // string::store`): a padding run that ends inside the bytes, at the
    // same place in many records (a space, then text), is where one
    // column ends and the next begins: two columns, not one.
    let inner = (1..w as usize)
        .map(|p| {
            count(&|v| {
                v.get(p.saturating_sub(1)) == Some(&b' ') && v.get(p).is_some_and(|&b| b != b' ')
            })
        })
        .max()
        .unwrap_or(0);
    let split = inner >= 5 && inner.saturating_mul(5) >= vals.len();
    out.push(Cand {
        low: false,
        alts: Vec::new(),
        sql: format!("char({w})"),
        family: Family::Text,
        fit: share(text),
        weight: if split {
            1
        } else if w >= 6 {
            7
        } else if padded > 0 {
            3
        } else {
            1
        },
        evidence: format!(
            "{w} printable latin1 bytes in every value{}",
            if padded > 0 { ", space-padded" } else { "" }
        ),
    });
    if w == 16 {
        // RFC 4122 variant and a version 1–8 nibble.
        let uuid = count(&|v| {
            v.get(6).is_some_and(|b| (1..=8).contains(&(b >> 4)))
                && v.get(8).is_some_and(|b| b & 0xC0 == 0x80)
        });
        out.push(Cand {
            low: false,
            alts: Vec::new(),
            sql: "binary(16)".into(),
            family: Family::Binary,
            fit: share(uuid),
            weight: 6,
            evidence: "16 bytes with an RFC 4122 UUID's variant and version bits".into(),
        });
    }
    out.push(Cand {
        low: false,
        alts: Vec::new(),
        sql: format!("binary({w})"),
        family: Family::Binary,
        fit: 1000,
        weight: 1,
        evidence: format!("{w} bytes of no known shape"),
    });
    out
}

fn plausible_time(t: ColType, s: &str) -> bool {
    match t {
        ColType::NewDate | ColType::DateTime2 | ColType::DateTime => {
            let y: u32 = s.get(..4).and_then(|y| y.parse().ok()).unwrap_or(0);
            (1000..=9999).contains(&y) && !s.contains("-00")
        }
        // Seconds since 1970 (unsigned, under 2^31): as a signed integer
        // (sign bit flipped) every one is negative, which real integers
        // rarely all are.
        ColType::Timestamp2 | ColType::Timestamp => {
            s.get(..4).is_some_and(|y| ("1970"..="2038").contains(&y))
        }
        _ => true,
    }
}

/// Not NaN or infinite.
fn float_finite(v: &[u8]) -> bool {
    float_of(v).is_some_and(f64::is_finite)
}

fn float_of(v: &[u8]) -> Option<f64> {
    match v.len() {
        8 => v.try_into().ok().map(|a: [u8; 8]| f64::from_le_bytes(a)),
        4 => v
            .try_into()
            .ok()
            .map(|a: [u8; 4]| f64::from(f32::from_le_bytes(a))),
        _ => None,
    }
}

fn float_plausible(v: &[u8]) -> bool {
    float_of(v).is_some_and(|x| x == 0.0 || (x.is_finite() && x.abs() > 1e-30 && x.abs() < 1e30))
}

/// DIG2BYTES (`strings/decimal.cc`): bytes of a group of 0–9 digits.
const DIG2BYTES: [u32; 10] = [0, 1, 1, 2, 2, 3, 3, 4, 4, 4];

/// A binary DECIMAL's digit groups in storage order (`decimal2bin`,
/// strings/decimal.cc): the integer part's leftover digits, its 9-digit
/// groups, the fraction's 9-digit groups, its leftover digits; each as
/// (bytes, largest value).
fn decimal_groups(intg: u32, frac: u32) -> Vec<(u32, u64)> {
    let top = |d: u32| 10u64.saturating_pow(d).saturating_sub(1);
    let part = |d: u32| DIG2BYTES.get(d as usize).copied().unwrap_or(4);
    let mut g = Vec::new();
    if !intg.is_multiple_of(9) {
        g.push((part(intg % 9), top(intg % 9)));
    }
    for _ in 0..(intg / 9).saturating_add(frac / 9) {
        g.push((4, 999_999_999));
    }
    if !frac.is_multiple_of(9) {
        g.push((part(frac % 9), top(frac % 9)));
    }
    g
}

/// The groups' values of a stored DECIMAL, or `None` when one is over its
/// largest value (`bin2decimal` refuses it): the first byte's top bit is
/// the sign (set: positive), a negative number has every byte inverted.
fn decimal_read(v: &[u8], groups: &[(u32, u64)]) -> Option<Vec<u64>> {
    let neg = v.first()? & 0x80 == 0;
    let mask = if neg { 0xFF } else { 0 };
    let mut at = 0usize;
    let mut out = Vec::with_capacity(groups.len());
    for &(b, top) in groups {
        let end = at.checked_add(b as usize)?;
        let bytes = v.get(at..end)?;
        let x = bytes.iter().enumerate().fold(0u64, |a, (i, &x)| {
            let x = x ^ mask ^ if at == 0 && i == 0 { 0x80 } else { 0 };
            (a << 8) | u64::from(x)
        });
        if x > top {
            return None;
        }
        out.push(x);
        at = end;
    }
    (at == v.len()).then_some(out)
}

/// A DECIMAL candidate for `w` bytes: of every (precision, scale) whose
/// `decimal_bin_size` is `w` and whose digit groups every value fits, the
/// fewest digits (the likeliest: each digit more is a tenth as likely to
/// hold every value); another scale of as few digits that fits alike is
/// named beside it. A lone integer group (scale 0, at most 9 digits) reads
/// exactly as an integer and is left to the integers. Telling when some
/// group after the first fills at least a tenth of its range (the bound
/// is then a real constraint) in at least 20 records.
fn decimal_cand(w: u32, vals: &[&[u8]]) -> Option<Cand> {
    if vals.is_empty() || w > 30 {
        return None;
    }
    let mut fits: Vec<(u32, u32, bool)> = Vec::new();
    for p in 1..=65u32 {
        for sc in 0..=p.min(30) {
            if crate::table::decimal_bin_size(p, sc) != Some(w) {
                continue;
            }
            let groups = decimal_groups(p.saturating_sub(sc), sc);
            if sc == 0 && groups.len() < 2 {
                continue;
            }
            let mut maxes = vec![0u64; groups.len()];
            let mut nonzero = 0usize;
            let ok = vals.iter().all(|v| match decimal_read(v, &groups) {
                Some(g) => {
                    nonzero = nonzero.saturating_add(usize::from(g.iter().any(|&x| x > 0)));
                    for (m, x) in maxes.iter_mut().zip(g) {
                        *m = (*m).max(x);
                    }
                    true
                }
                None => false,
            });
            if ok {
                // The first group used too: small integers read as a
                // DECIMAL's fraction with a zero integer part.
                let filled = maxes.first().is_some_and(|&m| m > 0)
                    && groups
                        .iter()
                        .zip(&maxes)
                        .skip(1)
                        .any(|(&(_, top), &m)| m.saturating_mul(10) >= top);
                fits.push((p, sc, filled && nonzero >= MIN_TYPE_RECORDS as usize));
            }
        }
    }
    let least = fits.iter().map(|f| f.0).min()?;
    let mut best = fits.iter().filter(|f| f.0 == least);
    let &(p, sc, telling) = best.next()?;
    let alts: Vec<String> = best.map(|f| format!("decimal({},{})", f.0, f.1)).collect();
    Some(Cand {
        low: false,
        sql: format!("decimal({p},{sc})"),
        family: Family::Decimal,
        fit: 1000,
        weight: if telling { 7 } else { 3 },
        evidence: format!(
            "{w} bytes of binary DECIMAL digit groups (each within its digits, sign bit \
             flipped), the fewest digits that hold every value: DECIMAL({p},{sc}){}",
            if alts.is_empty() {
                String::new()
            } else {
                format!("; the same groups read as {}", alts.join(", "))
            }
        ),
        alts,
    })
}

/// Candidates for a variable-length column.
fn var_cands(vals: &[&[u8]], external: bool, max_seen: u32, big: bool) -> Vec<Cand> {
    let n = u32::try_from(vals.len()).unwrap_or(u32::MAX).max(1);
    let share = |k: usize| {
        u32::try_from(k)
            .unwrap_or(u32::MAX)
            .saturating_mul(1000)
            .checked_div(n)
            .unwrap_or(0)
    };
    let utf8 = vals
        .iter()
        .filter(|v| std::str::from_utf8(v).is_ok())
        .count();
    let ascii = vals
        .iter()
        .filter(|v| {
            v.iter()
                .all(|&b| (0x20..0x7F).contains(&b) || b == b'\n' || b == b'\t')
        })
        .count();
    let latin1 = vals
        .iter()
        .filter(|v| {
            v.iter()
                .all(|&b| b >= 0x20 && b != 0x7F && !(0x80..0xA0).contains(&b))
        })
        .count();
    let four = vals
        .iter()
        .filter_map(|v| std::str::from_utf8(v).ok())
        .any(|s| s.chars().any(|c| u32::from(c) > 0xFFFF));
    let multi = vals
        .iter()
        .filter_map(|v| std::str::from_utf8(v).ok())
        .any(|s| s.chars().any(|c| u32::from(c) > 0x7F));
    let mut out = Vec::new();
    let blobish = external || max_seen > 4096;
    let (text, bin) = if blobish {
        ("text", "blob")
    } else {
        ("varchar", "varbinary")
    };
    // A declared maximum is not in the records: the longest value (or
    // 255 / 65535 by the length bytes) bounds it from below.
    let decl = if big {
        max_seen.max(256)
    } else {
        max_seen.clamp(1, 255)
    };
    let sized = |t: &str, cs: &str| {
        if blobish {
            format!("{t}{cs}")
        } else {
            format!("{t}({decl}){cs}")
        }
    };
    if multi && utf8 == vals.len() {
        let cs = if four {
            " character set utf8mb4"
        } else {
            " character set utf8mb3"
        };
        out.push(Cand {
            low: false,
            alts: Vec::new(),
            sql: sized(text, cs),
            family: Family::Text,
            fit: share(utf8),
            weight: 8,
            evidence: format!(
                "UTF-8 text{}",
                if four { " with 4-byte characters" } else { "" }
            ),
        });
    }
    out.push(Cand {
        low: false,
        alts: Vec::new(),
        sql: sized(text, ""),
        family: Family::Text,
        fit: share(if multi { latin1 } else { ascii.max(latin1) }),
        weight: if ascii == vals.len() { 7 } else { 5 },
        evidence: if ascii == vals.len() {
            "printable ASCII text".into()
        } else {
            "latin1 text".into()
        },
    });
    out.push(Cand {
        low: false,
        alts: Vec::new(),
        sql: sized(bin, ""),
        family: Family::Binary,
        fit: 1000,
        weight: 1,
        evidence: "bytes".into(),
    });
    out
}

/// The best candidates: the winner, its rivals (fit alike): another
/// family's candidate of the same score, or as telling as the winner
/// (every value fits both, each shape is unlikely by chance: the bytes
/// say both, and nothing but a guess chooses), or, when the winner tells
/// nothing, another number or time that fits every value; and the
/// readings the winner names beside itself (an integer's sign, a
/// DECIMAL's scale).
fn choose(mut c: Vec<Cand>) -> (Cand, Vec<Cand>) {
    let score = |x: &Cand| {
        // A type that fails some values loses to one that fits them all.
        let f = if x.fit >= 1000 { 2000 } else { x.fit };
        f.saturating_mul(x.weight)
    };
    c.sort_by_key(|x| std::cmp::Reverse(score(x)));
    let mut it = c.into_iter();
    let first = it.next().unwrap_or(Cand {
        low: false,
        alts: Vec::new(),
        sql: "binary(1)".into(),
        family: Family::Binary,
        fit: 0,
        weight: 0,
        evidence: String::new(),
    });
    let s = score(&first);
    let numeric = |x: &Cand| {
        matches!(
            x.family,
            Family::Integer | Family::Decimal | Family::Float | Family::Temporal
        )
    };
    let mut rivals: Vec<Cand> = it
        .filter(|x| {
            (x.sql != first.sql || x.low != first.low)
                && (score(x) == s
                    // MariaDB's older formats of the same widths.
                    || (x.low && x.fit >= 900 && x.family == first.family)
                    || (x.family != first.family
                        && ((telling(&first) && telling(x))
                            || (!telling(&first)
                                && numeric(&first)
                                && numeric(x)
                                && x.fit >= 1000
                                && x.weight >= 2))))
        })
        .map(|mut x| {
            if x.low && !first.low {
                x.sql.push_str(" in MariaDB's format before MySQL 5.6.4's");
            }
            x
        })
        .collect();
    for a in &first.alts {
        rivals.push(Cand {
            sql: a.clone(),
            alts: Vec::new(),
            ..first.clone()
        });
    }
    (first, rivals)
}

/// Field `k`'s bytes at `at` past its start, `w` long, in every row where
/// it is not NULL.
fn values<'a>(pages: &'a [PageRecs], rows: &[Row], k: usize, at: u32, w: u32) -> Vec<&'a [u8]> {
    cell_bytes(pages, rows, k, at, Some(w))
}

/// Field `k`'s bytes from `at` past its start, `w` long or to its end
/// (`None`), in every row where it is neither NULL nor external.
fn cell_bytes<'a>(
    pages: &'a [PageRecs],
    rows: &[Row],
    k: usize,
    at: u32,
    w: Option<u32>,
) -> Vec<&'a [u8]> {
    rows.iter()
        .filter_map(|(pi, o, cells)| {
            let c = cells.get(k)?;
            if c.null || c.ext {
                return None;
            }
            let p = pages.get(*pi)?;
            let s = o.checked_add(c.at)?.checked_add(at)? as usize;
            p.bytes.get(s..s.checked_add(w.unwrap_or(c.len) as usize)?)
        })
        .collect()
}

/// COMPACT: the bytes at `extra` past the origin plus the lengths of the
/// fields before field `k` (all fields when `k` is past them), `w` long.
fn values_at<'a>(
    pages: &'a [PageRecs],
    rows: &[Row],
    k: usize,
    extra: u32,
    w: u32,
) -> Vec<&'a [u8]> {
    rows.iter()
        .filter_map(|(pi, o, cells)| {
            let before = match cells.get(k) {
                Some(c) => c.at,
                None => cells.last().map_or(0, |c| c.at.saturating_add(c.len)),
            };
            let p = pages.get(*pi)?;
            let s = o.checked_add(before)?.checked_add(extra)? as usize;
            p.bytes.get(s..s.checked_add(w as usize)?)
        })
        .collect()
}

/// COMPACT: field `k`'s whole values (not NULL, not external) with `extra`
/// fixed bytes placed before it.
fn var_values<'a>(pages: &'a [PageRecs], rows: &[Row], k: usize, extra: u32) -> Vec<&'a [u8]> {
    cell_bytes(pages, rows, k, extra, None)
}

/// Columns placed and typed, and the key's column count.
type Placed = (Vec<Spec>, usize);

/// A typed column found by the type layer.
struct Spec {
    storage: Storage,
    nullable: bool,
    cand: Cand,
    rivals: Vec<Cand>,
    /// A column of a NOT NULL fixed-width run next to another of the
    /// same run, neither telling by its values: where one ends and the
    /// next begins is not known.
    weak_split: bool,
    /// The field it is (`None`: bytes of the NOT NULL fixed-width run).
    field: Option<usize>,
}

/// A type whose fit says something of the bytes' extent (a date, text,
/// small integers), rather than one any bytes fit.
fn telling(c: &Cand) -> bool {
    c.weight >= 6 && c.fit >= 1000
}

fn fit_factor(c: &Cand) -> i64 {
    if c.fit >= 1000 {
        1000
    } else {
        i64::from(c.fit / 2)
    }
}

/// Score of a fixed column of `cw` bytes: every column costs, so that
/// bytes are not split without evidence.
fn fixed_score(c: &Cand, cw: u32) -> i64 {
    fit_factor(c)
        .saturating_mul(i64::from(c.weight))
        .saturating_mul(i64::from(cw))
        .saturating_sub(2000)
}

/// Candidates for `w` bytes read as text only (CHAR in a single-byte
/// charset, or BINARY).
fn text_cands(w: u32, vals: &[&[u8]]) -> Vec<Cand> {
    fixed_cands(w, vals)
        .into_iter()
        .filter(|c| c.family == Family::Text || c.sql.starts_with("binary("))
        .collect()
}

/// How many of `vals` look like DB_TRX_ID then DB_ROLL_PTR: a transaction
/// id under 2^40 and a roll pointer naming an undo page under 2^24 at an
/// offset past the page header; or MariaDB's purged pair, 0 and 1<<55
/// (`row_purge_reset_trx_id`, MariaDB 10.3+ row0purge.cc).
fn sys_fit(vals: &[&[u8]]) -> usize {
    vals.iter()
        .filter(|v| {
            let trx = int_val(v.get(..6).unwrap_or(&[]));
            let roll = v.get(6..13).unwrap_or(&[]);
            let purged = trx == 0 && roll == [0x80, 0, 0, 0, 0, 0, 0];
            let page = int_val(roll.get(1..5).unwrap_or(&[]));
            let at = int_val(roll.get(5..7).unwrap_or(&[]));
            purged || (trx > 0 && trx < 1 << 40 && page < 1 << 24 && at >= 38)
        })
        .count()
}

/// Whether `ids` (6 bytes each) look like DB_ROW_ID values: a counter,
/// its two high bytes 0, never two alike.
fn row_ids(ids: &[&[u8]]) -> bool {
    let mut seen: Vec<u64> = ids.iter().map(|v| int_val(v)).collect();
    seen.sort_unstable();
    seen.dedup();
    !ids.is_empty()
        && seen.len() == ids.len()
        && ids
            .iter()
            .all(|v| v.first() == Some(&0) && v.get(1) == Some(&0))
}

/// Widths a fixed column is tried at.
const WIDTHS: [u32; 9] = [1, 2, 3, 4, 5, 6, 7, 8, 16];

/// COMPACT: places the `a` NOT NULL fixed bytes among the other fields
/// and splits them into typed columns (DB_TRX_ID and DB_ROLL_PTR among
/// them for a clustered index), the placement whose columns' values fit
/// their types best. Returns the columns, the key's column count (the
/// columns before DB_TRX_ID), and whether DB_TRX_ID was placed.
fn place(
    pages: &[PageRecs],
    t: &Table,
    a: u32,
    clustered: bool,
) -> Option<(Vec<Spec>, usize, i64)> {
    let k = t.fields.len();
    let an = a as usize;
    if an > 4096 || k > MAX_FIELDS {
        return None;
    }
    // A sample of rows, spread over the pages.
    let step = (t.rows.len() / 300).max(1);
    let rows: Vec<Row> = t.rows.iter().step_by(step).cloned().collect();
    let sys_need = usize::from(clustered);
    // best[(s, b, sys)] = (score, back)
    #[derive(Clone)]
    enum Back {
        Fixed(u32, Cand, Vec<Cand>),
        Sys,
        /// DB_ROW_ID then DB_TRX_ID, DB_ROLL_PTR: no PRIMARY KEY.
        RowId,
        Item(Cand, Vec<Cand>),
    }
    let idx = |s: usize, b: usize, y: usize| -> usize {
        s.saturating_mul(an.saturating_add(1))
            .saturating_add(b)
            .saturating_mul(2)
            .saturating_add(y)
    };
    let n_states = idx(k, an, 1).saturating_add(1);
    let mut best: Vec<Option<(i64, usize, Back)>> = vec![None; n_states];
    if let Some(x) = best.get_mut(idx(0, 0, 0)) {
        *x = Some((0, usize::MAX, Back::Sys));
    }
    let relax = |best: &mut Vec<Option<(i64, usize, Back)>>,
                 to: usize,
                 sc: i64,
                 from: usize,
                 back: Back| {
        if let Some(slot) = best.get_mut(to) {
            if slot.as_ref().is_none_or(|(x, _, _)| sc > *x) {
                *slot = Some((sc, from, back));
            }
        }
    };
    for s in 0..=k {
        for b in 0..=an {
            let reached = [0usize, 1].map(|y| best.get(idx(s, b, y)).cloned().flatten());
            if reached.iter().all(Option::is_none) {
                continue;
            }
            let bu = u32::try_from(b).unwrap_or(0);
            let mut moves: Vec<(usize, i64, Back, bool)> = Vec::new();
            // Fixed columns.
            let room = a.saturating_sub(bu);
            for cw in WIDTHS.into_iter().filter(|&w| w <= room) {
                let vals = values_at(pages, &rows, s, bu, cw);
                let (c, r) = choose(fixed_cands(cw, &vals));
                let sc = fixed_score(&c, cw);
                moves.push((cw as usize, sc, Back::Fixed(cw, c, r), false));
            }
            for cw in 9..=room.min(255) {
                if cw == 16 {
                    continue;
                }
                let vals = values_at(pages, &rows, s, bu, cw);
                let (c, r) = choose(if cw <= 30 {
                    fixed_cands(cw, &vals)
                } else {
                    text_cands(cw, &vals)
                });
                let sc = fixed_score(&c, cw);
                moves.push((cw as usize, sc, Back::Fixed(cw, c, r), false));
            }
            if clustered && room >= TRX_LEN + ROLL_LEN {
                let vals = values_at(pages, &rows, s, bu, TRX_LEN + ROLL_LEN);
                let ok = sys_fit(&vals);
                if !vals.is_empty() && ok.saturating_mul(10) >= vals.len().saturating_mul(9) {
                    moves.push((13, 100_000, Back::Sys, true));
                }
            }
            // A table with no PRIMARY KEY: its clustered index
            // (GEN_CLUST_INDEX) is keyed on DB_ROW_ID, 6 bytes of a
            // counter (DATA_ROW_ID_LEN, data0type.h) that leads every
            // record, then DB_TRX_ID and DB_ROLL_PTR
            // (dict_index_build_internal_clust, dict0dict.cc).
            if clustered && s == 0 && b == 0 && room >= ROW_ID_LEN + TRX_LEN + ROLL_LEN {
                let ids = values_at(pages, &rows, 0, 0, ROW_ID_LEN);
                let sys = values_at(pages, &rows, 0, ROW_ID_LEN, TRX_LEN + ROLL_LEN);
                if row_ids(&ids) && sys_fit(&sys).saturating_mul(10) >= sys.len().saturating_mul(9)
                {
                    // More than any 6 bytes of key columns could score.
                    moves.push((19, 150_000, Back::RowId, true));
                }
            }
            for y in 0..2usize {
                let Some((base, _, _)) = reached.get(y).cloned().flatten() else {
                    continue;
                };
                let from = idx(s, b, y);
                for (w, sc, back, sys) in &moves {
                    if *sys && y == 1 {
                        continue;
                    }
                    let ny = if *sys { 1 } else { y };
                    relax(
                        &mut best,
                        idx(s, b.saturating_add(*w), ny),
                        base.saturating_add(*sc),
                        from,
                        back.clone(),
                    );
                }
            }
            // Past field s, typed with the fixed bytes placed before it.
            if s < k {
                let Some(&(storage, _)) = t.fields.get(s) else {
                    continue;
                };
                let (c, r, scale) = match storage {
                    Storage::Fixed(w) => {
                        let (c, r) = choose(fixed_cands(w, &var_values(pages, &rows, s, bu)));
                        (c, r, i64::from(w))
                    }
                    Storage::Variable {
                        big,
                        max_seen,
                        external,
                    } => {
                        let (c, r) = choose(var_cands(
                            &var_values(pages, &rows, s, bu),
                            external,
                            max_seen,
                            big,
                        ));
                        (c, r, 8)
                    }
                };
                let sc = fit_factor(&c)
                    .saturating_mul(i64::from(c.weight))
                    .saturating_mul(scale);
                for y in 0..2usize {
                    let Some((base, _, _)) = reached.get(y).cloned().flatten() else {
                        continue;
                    };
                    relax(
                        &mut best,
                        idx(s.saturating_add(1), b, y),
                        base.saturating_add(sc),
                        idx(s, b, y),
                        Back::Item(c.clone(), r.clone()),
                    );
                }
            }
        }
    }
    // Back from the end.
    let mut at = idx(k, an, sys_need);
    let total = best.get(at).cloned().flatten()?.0;
    let mut rev: Vec<(Option<usize>, Back)> = Vec::new();
    let mut item = k;
    while let Some((_, from, back)) = best.get(at).cloned().flatten() {
        if from == usize::MAX {
            break;
        }
        let field = match back {
            Back::Item(..) => {
                item = item.saturating_sub(1);
                Some(item)
            }
            _ => None,
        };
        rev.push((field, back));
        at = from;
    }
    rev.reverse();
    let mut specs = Vec::new();
    let mut n_key = 0usize;
    // The run each column of the NOT NULL fixed bytes belongs to (runs
    // end at DB_TRX_ID and at every other field).
    let mut runs: Vec<Option<usize>> = Vec::new();
    let mut run = 0usize;
    for (field, back) in rev {
        match back {
            Back::Sys | Back::RowId => {
                n_key = specs.len();
                run = run.saturating_add(1);
            }
            Back::Fixed(cw, cand, rivals) => {
                specs.push(Spec {
                    storage: Storage::Fixed(cw),
                    nullable: false,
                    cand,
                    rivals,
                    weak_split: false,
                    field: None,
                });
                runs.push(Some(run));
            }
            Back::Item(cand, rivals) => {
                let (storage, nullable) = field.and_then(|f| t.fields.get(f)).copied()?;
                specs.push(Spec {
                    storage,
                    nullable,
                    cand,
                    rivals,
                    weak_split: false,
                    field,
                });
                runs.push(None);
                run = run.saturating_add(1);
            }
        }
    }
    let weak: Vec<bool> = specs.iter().map(|sp| !telling(&sp.cand)).collect();
    // A small integer's tail read as the head of the next column starts
    // 0x00: an UNSIGNED integer beside another integer of the same run may
    // be the bytes of a split elsewhere (INT then TINYINT read as SMALLINT
    // then MEDIUMINT UNSIGNED): both are in doubt.
    let int = |sp: &Spec| sp.cand.family == Family::Integer;
    let same_run = |i: usize, j: usize| {
        runs.get(j).copied().flatten().is_some()
            && runs.get(j).copied().flatten() == runs.get(i).copied().flatten()
    };
    let glued: Vec<bool> = (0..specs.len())
        .map(|i| {
            let Some(sp) = specs.get(i) else { return false };
            let beside = |j: Option<usize>| {
                j.is_some_and(|j| specs.get(j).is_some_and(|o| int(o) && same_run(i, j)))
            };
            let pair = |j: Option<usize>| {
                j.is_some_and(|j| {
                    specs.get(j).is_some_and(|o| {
                        int(o) && o.cand.sql.ends_with("unsigned") && same_run(i, j)
                    })
                })
            };
            int(sp)
                && ((sp.cand.sql.ends_with("unsigned")
                    && (beside(i.checked_sub(1)) || beside(i.checked_add(1))))
                    || pair(i.checked_sub(1))
                    || pair(i.checked_add(1)))
        })
        .collect();
    for (i, sp) in specs.iter_mut().enumerate() {
        let same = |j: Option<usize>| {
            j.is_some_and(|j| same_run(i, j) && weak.get(j).copied().unwrap_or(false))
        };
        sp.weak_split = (weak.get(i).copied().unwrap_or(false)
            && (same(i.checked_sub(1)) || same(i.checked_add(1))))
            || glued.get(i).copied().unwrap_or(false);
    }
    Some((specs, n_key, total))
}

// ------------------------------------------------------- the whole

/// Infers the table's columns from the records of `ts`.
pub fn infer(ts: &Tablespace<'_>) -> Inference {
    let (indexes, format) = gather(ts);
    let format = format.unwrap_or(RecFormat::Compact);
    let mut out = Inference {
        format,
        indexes: Vec::new(),
        columns: Vec::new(),
        n_key: 0,
        complete: false,
        notes: Vec::new(),
    };
    for (k, ix) in indexes.iter().enumerate() {
        let clustered = k == 0;
        let res = match format {
            RecFormat::Redundant => redundant(ix)
                .map(|t| {
                    let n = u32::try_from(t.rows.len()).unwrap_or(0);
                    (
                        vec![t],
                        Outcome::Fits {
                            tight: n,
                            pairs: n,
                            ambiguous: false,
                        },
                    )
                })
                .map_err(Outcome::NoFit),
            RecFormat::Compact => compact(ix, clustered),
        };
        let records = ix.leaves.iter().map(|p| p.origins.len()).sum::<usize>();
        let (tables, outcome) = match res {
            Ok((t, o)) => (t, o),
            Err(o) => (Vec::new(), o),
        };
        // Two layouts that fit every record (the same lengths summed in
        // another order): the one whose values fit their types better is
        // kept; alike, the index stays ambiguous.
        let mut scored: Vec<(i64, Table, Option<Placed>)> = tables
            .into_iter()
            .map(|t| {
                let placed = if clustered {
                    t.run.and_then(|a| place(&ix.leaves, &t, a, true))
                } else {
                    None
                };
                let sc = placed.as_ref().map_or(0, |p| p.2);
                (sc, t, placed.map(|p| (p.0, p.1)))
            })
            .collect();
        scored.sort_by_key(|x| std::cmp::Reverse(x.0));
        // The fields where another layout that fits every record differs
        // are ambiguous, whichever reads values that fit their types
        // better (the values choose which is printed, not that it is
        // right); so are the fields of a NOT NULL and a NULL-able
        // variable-length field side by side, the NULL-able one NULL in
        // some record: the record's one length is either's (the other
        // order of the NULL bit reads every extent alike).
        let mut doubt: Vec<bool> = match (scored.first(), scored.get(1)) {
            (Some(a), Some(b)) => {
                let (fa, fb) = (&a.1.fields, &b.1.fields);
                (0..fa.len())
                    .map(|i| fa.len() != fb.len() || fa.get(i) != fb.get(i))
                    .collect()
            }
            _ => Vec::new(),
        };
        if let Some((_, t, _)) = scored.first() {
            swap_doubt(t, &mut doubt);
        }
        // Another layout with another NOT NULL fixed-width total: the
        // columns of those bytes are in doubt too.
        let run_doubt = match (scored.first(), scored.get(1)) {
            (Some(a), Some(b)) => a.1.run != b.1.run,
            _ => false,
        };
        let (table, placed) = match scored.into_iter().next() {
            Some((_, t, p)) => (Some(t), p),
            None => (None, None),
        };
        out.indexes.push(IndexInference {
            id: ix.id,
            leaf_pages: u32::try_from(ix.leaves.len()).unwrap_or(u32::MAX),
            records: u32::try_from(records).unwrap_or(u32::MAX),
            fields: table.as_ref().map(|t| t.fields.clone()).unwrap_or_default(),
            outcome,
        });
        if clustered {
            match table {
                Some(t) => columns(&mut out, ix, &t, placed, &doubt, run_doubt),
                None => out
                    .notes
                    .push("the clustered index's layout was not found".into()),
            }
        }
    }
    if out.indexes.is_empty() {
        out.notes.push("no index page with records".into());
    }
    // A handful of values tells little of a type.
    if let Some(ix) = out.indexes.first() {
        if ix.records < MIN_TYPE_RECORDS {
            for c in &mut out.columns {
                c.confidence = c.confidence.min(Confidence::Low);
            }
            out.notes.push(format!(
                "{} records: too few to tell the types (and NOT NULL fixed-width columns apart)",
                ix.records
            ));
        }
    }
    out.complete = !out.columns.is_empty()
        && out.notes.is_empty()
        && out.columns.iter().all(|c| c.confidence >= Confidence::High)
        && matches!(
            out.indexes.first().map(|i| &i.outcome),
            Some(Outcome::Fits {
                ambiguous: false,
                ..
            })
        );
    out
}

/// Marks the variable-length fields as doubtful when some are NOT NULL
/// and some NULL-able and NULL in some record (COMPACT): which field a
/// NULL bit belongs to moves the record's lengths from one field to the
/// next, and every extent reads alike (the values choose, not the
/// records).
fn swap_doubt(t: &Table, doubt: &mut Vec<bool>) {
    if t.run.is_none() {
        return;
    }
    doubt.resize(t.fields.len(), false);
    let null_seen = |k: usize| {
        t.rows
            .iter()
            .any(|(_, _, cells)| cells.get(k).is_some_and(|c| c.null))
    };
    let var: Vec<usize> = (0..t.fields.len())
        .filter(|&k| {
            t.fields
                .get(k)
                .is_some_and(|f| matches!(f.0, Storage::Variable { .. }))
        })
        .collect();
    let nn = var.iter().any(|&k| t.fields.get(k).is_some_and(|f| !f.1));
    let null = var
        .iter()
        .any(|&k| t.fields.get(k).is_some_and(|f| f.1) && null_seen(k));
    if nn && null {
        for k in var {
            if let Some(d) = doubt.get_mut(k) {
                *d = true;
            }
        }
    }
}

/// The clustered index's columns from its fields.
fn columns(
    out: &mut Inference,
    ix: &IndexPages,
    t: &Table,
    placed: Option<(Vec<Spec>, usize)>,
    doubt: &[bool],
    run_doubt: bool,
) {
    let pages = &ix.leaves;
    let (specs, n_key) = match t.run {
        Some(a) => match placed {
            Some(x) => x,
            None => {
                out.notes.push(
                    "DB_TRX_ID / DB_ROLL_PTR not found among the NOT NULL fixed-width bytes".into(),
                );
                match place(pages, t, a, false) {
                    Some(x) => (x.0, x.1),
                    None => return,
                }
            }
        },
        None => redundant_specs(out, pages, t),
    };
    out.n_key = n_key;
    out.columns = specs
        .into_iter()
        .enumerate()
        .map(|(i, sp)| {
            let doubtful = match sp.field {
                Some(f) => doubt.get(f).copied().unwrap_or(false),
                None => run_doubt,
            };
            let confidence = if !sp.rivals.is_empty() || doubtful {
                Confidence::Ambiguous
            } else if sp.cand.fit >= 1000 && sp.cand.weight > 1 && !sp.cand.low && !sp.weak_split {
                Confidence::High
            } else {
                Confidence::Low
            };
            let mut evidence = sp.cand.evidence;
            if doubtful {
                evidence.push_str(
                    "; another layout of the NULL-able and variable-length fields fits every \
                     record and reads this field otherwise",
                );
            }
            if sp.weak_split {
                evidence.push_str(
                    "; where these NOT NULL fixed-width bytes split into columns is not told by \
                     their values",
                );
            }
            InferredColumn {
                name: format!("c{}", i.saturating_add(1)),
                sql_type: sp.cand.sql,
                family: sp.cand.family,
                storage: sp.storage,
                nullable: sp.nullable,
                key: i < n_key,
                confidence,
                alternatives: sp.rivals.into_iter().map(|x| x.sql).collect(),
                evidence,
            }
        })
        .collect();
}

/// REDUNDANT: one column per field, DB_TRX_ID and DB_ROLL_PTR (fields of
/// 6 and 7 bytes after the key) left out.
fn redundant_specs(out: &mut Inference, pages: &[PageRecs], t: &Table) -> (Vec<Spec>, usize) {
    let mut specs = Vec::new();
    let mut n_key = 0usize;
    let mut sys_at = None;
    for k in 0..t.fields.len() {
        let two = (t.fields.get(k), t.fields.get(k.saturating_add(1)));
        if let (Some(&(Storage::Fixed(TRX_LEN), false)), Some(&(Storage::Fixed(ROLL_LEN), false))) =
            two
        {
            let v: Vec<&[u8]> = t
                .rows
                .iter()
                .filter_map(|(pi, o, cells)| {
                    let c = cells.get(k)?;
                    let p = pages.get(*pi)?;
                    let s = o.checked_add(c.at)? as usize;
                    p.bytes.get(s..s.checked_add(13)?)
                })
                .collect();
            if !v.is_empty() && sys_fit(&v).saturating_mul(10) >= v.len().saturating_mul(9) {
                sys_at = Some(k);
                break;
            }
        }
    }
    if sys_at.is_none() {
        out.notes
            .push("no DB_TRX_ID / DB_ROLL_PTR: the key is unknown".into());
    }
    // No PRIMARY KEY: a 6-byte DB_ROW_ID (high bytes 0, never two alike)
    // is the only field before DB_TRX_ID.
    let row_id = sys_at == Some(1)
        && t.fields.first() == Some(&(Storage::Fixed(ROW_ID_LEN), false))
        && row_ids(&values(pages, &t.rows, 0, 0, ROW_ID_LEN));
    for (k, &(storage, nullable)) in t.fields.iter().enumerate() {
        if row_id && k == 0 {
            continue;
        }
        if let Some(sa) = sys_at {
            if k == sa {
                n_key = specs.len();
                continue;
            }
            if k == sa.saturating_add(1) {
                continue;
            }
        }
        let (cand, rivals) = match storage {
            Storage::Fixed(w) => choose(fixed_cands(w, &values(pages, &t.rows, k, 0, w))),
            Storage::Variable {
                big,
                max_seen,
                external,
            } => choose(var_cands(
                &var_values(pages, &t.rows, k, 0),
                external,
                max_seen,
                big,
            )),
        };
        specs.push(Spec {
            storage,
            nullable,
            cand,
            rivals,
            weak_split: false,
            field: Some(k),
        });
    }
    (specs, n_key)
}

impl Inference {
    /// The definition as a `CREATE TABLE` statement `name`: columns
    /// `c1, c2, …` with a comment each (confidence and evidence), the
    /// clustered key as PRIMARY KEY, the row format the pages show.
    pub fn create_table(&self, name: &str) -> String {
        let mut s = String::from("CREATE TABLE ");
        crate::table::quote_ident(name, &mut s);
        s.push_str(" (\n");
        for (i, c) in self.columns.iter().enumerate() {
            let _ = write!(s, "  `{}` {}", c.name, c.sql_type);
            s.push_str(if c.nullable { " NULL" } else { " NOT NULL" });
            let mut comment = format!("{}: {}", c.confidence.word(), c.evidence);
            if !c.alternatives.is_empty() {
                let _ = write!(comment, "; or {}", c.alternatives.join(", or "));
            }
            if !c.nullable && matches!(self.format, RecFormat::Compact) {
                comment.push_str("; NOT NULL, or NULL-able and never NULL");
            }
            s.push_str(" COMMENT '");
            for ch in comment.chars() {
                match ch {
                    '\'' => s.push_str("''"),
                    '\\' => s.push_str("\\\\"),
                    c if c.is_control() => s.push(' '),
                    c => s.push(c),
                }
            }
            s.push('\'');
            if i.saturating_add(1) < self.columns.len() || self.n_key > 0 {
                s.push(',');
            }
            s.push('\n');
        }
        if self.n_key > 0 {
            let keys: Vec<String> = self
                .columns
                .iter()
                .take(self.n_key)
                .map(|c| format!("`{}`", c.name))
                .collect();
            let _ = writeln!(s, "  PRIMARY KEY ({})", keys.join(","));
        }
        s.push_str(") ENGINE=InnoDB DEFAULT CHARSET=latin1");
        s
    }
}
