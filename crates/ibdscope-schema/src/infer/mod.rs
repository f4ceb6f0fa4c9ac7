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
//! every record read. A rival is looked for over `RIVAL_NODES` more, and
//! as many at each of `RIVAL_WIDTHS` wider NULL bitmaps; the placements
//! of NULL bits among variable-length fields side by side are checked,
//! at most `MAX_MOVED` and `MOVED_RECORDS` records' worth.

use crate::table::{ColType, Column};
use crate::value::{render, Rendered};
use ibdscope_core::record::REC_INFO_MIN_REC_FLAG;
use ibdscope_core::{IndexId, PageNo, RecFormat, RecPage, RecType, Tablespace, Visited};
use std::collections::BTreeMap;

mod keys;
mod partial;
mod search;
mod types;
pub use partial::complete_from_records;
use search::{compact, redundant};
use std::fmt::Write as _;
use types::{
    choose, fixed_cands, place, row_ids, sys_fit, telling, values, var_cands, var_values, Cand,
    Placed, Spec,
};

/// Pages read per index.
const MAX_PAGES: usize = 2048;
/// Records that take part in the hypothesis search (the rest check it).
const MAX_SEARCH_RECORDS: usize = 1000;
/// Hypotheses the search visits before it gives up.
const MAX_NODES: u32 = 100_000;
/// Hypotheses visited after the first that fits, looking for a rival.
const RIVAL_NODES: u32 = 5000;
/// Bitmap widths past the first layout's searched for a rival.
const RIVAL_WIDTHS: usize = 2;
/// Placements of NULL bits among variable-length fields checked.
const MAX_MOVED: usize = 1024;
/// Placements times records read at most for them (at least 8 placements).
const MOVED_RECORDS: usize = 1 << 22;
/// Records each way for a length shift to count (`shift`).
const SHIFT_MIN: u64 = 10;
/// A length shift that tells: per mille over twice the least.
const SHIFT_MARGIN: u64 = 200;
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
    /// A secondary index's key: the clustered columns (positions in
    /// [`Inference::columns`]) its records hold the same values as; empty
    /// when not tied (and for the clustered index).
    pub key: Vec<usize>,
    /// How sure the tie is.
    pub key_confidence: Confidence,
    /// Why, in words (or why not tied).
    pub key_evidence: String,
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
    /// No garbage and no free list (PAGE_GARBAGE and PAGE_FREE 0): the
    /// records tile the heap from PAGE_NEW_SUPREMUM_END to PAGE_HEAP_TOP,
    /// so the first record's header starts at PAGE_NEW_SUPREMUM_END.
    tiled: bool,
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
    let tiled = rp.header().garbage() == 0 && rp.header().free() == 0;
    let page = PageRecs {
        page: n,
        origins: recs.iter().map(|r| r.0).collect(),
        live: recs.iter().map(|r| r.1).collect(),
        heap_top,
        tiled,
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
    // The clustered index's table and its columns' fields, and each
    // secondary index's table, to tie the secondary keys to the columns.
    let mut clustered_table: Option<(Table, Vec<Option<usize>>)> = None;
    let mut secondaries: Vec<(usize, &IndexPages, Table)> = Vec::new();
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
        // Of layouts that differ in which variable-length field holds a
        // NULL bit, the one whose NOT NULL fields' lengths do not follow
        // the other fields' NULL bits (see `shift`) is printed first,
        // when the values' choice shows such a shift clearly.
        let shifts: Vec<u64> = scored.iter().map(|x| shift(&x.1)).collect();
        if let (Some(&top), Some((m, &low))) = (
            shifts.first(),
            shifts.iter().enumerate().min_by_key(|&(_, v)| *v),
        ) {
            if m > 0 && top > low.saturating_mul(2).saturating_add(SHIFT_MARGIN) {
                let x = scored.remove(m);
                scored.insert(0, x);
            }
        }
        // The fields where another layout that fits every record differs
        // are ambiguous, whichever reads values that fit their types
        // better (the values choose which is printed, not that it is
        // right); so are the fields of a NOT NULL and a NULL-able
        // variable-length field side by side, the NULL-able one NULL in
        // some record: the record's one length is either's (the other
        // order of the NULL bit reads every extent alike).
        let mut doubt: Vec<bool> = Vec::new();
        let mut run_doubt = false;
        if let Some((first, rivals)) = scored.split_first() {
            let fa = &first.1.fields;
            for b in rivals {
                let fb = &b.1.fields;
                doubt.resize(fa.len(), false);
                for (i, d) in doubt.iter_mut().enumerate() {
                    *d |= fa.len() != fb.len() || fa.get(i) != fb.get(i);
                }
                // Another NOT NULL fixed-width total: the columns of those
                // bytes are in doubt too.
                run_doubt |= first.1.run != b.1.run;
            }
            swap_doubt(&first.1, &mut doubt);
        }
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
            key: Vec::new(),
            key_confidence: Confidence::Low,
            key_evidence: String::new(),
        });
        if clustered {
            match table {
                Some(t) => {
                    let f = columns(&mut out, ix, &t, placed, &doubt, run_doubt);
                    clustered_table = Some((t, f));
                }
                None => out
                    .notes
                    .push("the clustered index's layout was not found".into()),
            }
        } else if let Some(t) = table {
            secondaries.push((out.indexes.len().saturating_sub(1), ix, t));
        }
    }
    if let (Some((t, f)), Some(cix)) = (&clustered_table, indexes.first()) {
        keys::tie(&mut out, (cix, t), f, &secondaries);
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

/// How much the lengths of each NOT NULL variable-length field differ
/// between the records where a NULL-able variable-length field is NULL
/// and the others (COMPACT): per mille of the larger mean, summed over
/// the pairs with `SHIFT_MIN` records or more each way. Where a NULL bit
/// is read as another field's, a NULL record's lengths fall one field
/// over: that field holds its neighbour's values in those records, and
/// its mean length moves with the bit; in the server's layout a column's
/// lengths need not follow another's NULLs.
fn shift(t: &Table) -> u64 {
    if t.run.is_none() {
        return 0;
    }
    let var = |k: usize, nullable: bool| {
        t.fields
            .get(k)
            .is_some_and(|f| matches!(f.0, Storage::Variable { .. }) && f.1 == nullable)
    };
    let n = t.fields.len();
    let mut total = 0u64;
    for k in (0..n).filter(|&k| var(k, false)) {
        for j in (0..n).filter(|&j| var(j, true)) {
            // (sum of k's lengths, records) where j is NULL, and not.
            let mut g = [(0u64, 0u64); 2];
            for (_, _, cells) in &t.rows {
                let (Some(ck), Some(cj)) = (cells.get(k), cells.get(j)) else {
                    continue;
                };
                if let Some(e) = g.get_mut(usize::from(cj.null)) {
                    e.0 = e.0.saturating_add(u64::from(ck.len));
                    e.1 = e.1.saturating_add(1);
                }
            }
            let [(s0, c0), (s1, c1)] = g;
            if c0 < SHIFT_MIN || c1 < SHIFT_MIN {
                continue;
            }
            // The means s0/c0 and s1/c1, compared across.
            let (a, b) = (s0.saturating_mul(c1), s1.saturating_mul(c0));
            let d = a.abs_diff(b).saturating_mul(1000);
            let per_mille = d
                .checked_div(a.max(b).saturating_add(c0.saturating_mul(c1)))
                .unwrap_or(0);
            total = total.saturating_add(per_mille);
        }
    }
    total
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

/// The clustered index's columns from its fields; returns each column's
/// field (`None`: bytes of the NOT NULL fixed-width run).
fn columns(
    out: &mut Inference,
    ix: &IndexPages,
    t: &Table,
    placed: Option<(Vec<Spec>, usize)>,
    doubt: &[bool],
    run_doubt: bool,
) -> Vec<Option<usize>> {
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
                    None => return Vec::new(),
                }
            }
        },
        None => redundant_specs(out, pages, t),
    };
    let (specs, n_key) = unsplit_runs(specs, n_key);
    out.n_key = n_key;
    let fields = specs.iter().map(|sp| sp.field).collect();
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
    fields
}

/// COMPACT: the columns of a NOT NULL fixed-width run that the values do
/// not split (two or more side by side, none telling by its values: an
/// integer of every magnitude, random bytes) are one column of the run's
/// bytes, `BINARY(n)`, said to be one or more columns: no length or
/// offset in the records places a boundary between them, and a split
/// guessed from values of no shape is no evidence. The split the values
/// scored best is named beside it. Runs end at DB_TRX_ID (the key's end)
/// and at every NULL-able or variable-length field.
fn unsplit_runs(specs: Vec<Spec>, n_key: usize) -> (Vec<Spec>, usize) {
    let mut out: Vec<Spec> = Vec::with_capacity(specs.len());
    let mut new_key = n_key;
    let mut group: Vec<Spec> = Vec::new();
    let flush = |group: &mut Vec<Spec>, out: &mut Vec<Spec>, new_key: &mut usize, at: usize| {
        if group.len() < 2 {
            out.append(group);
            return;
        }
        let n = group
            .iter()
            .map(|sp| match sp.storage {
                Storage::Fixed(w) => w,
                Storage::Variable { .. } => 0,
            })
            .fold(0u32, u32::saturating_add);
        let split: Vec<String> = group.iter().map(|sp| sp.cand.sql.clone()).collect();
        if at < n_key {
            *new_key = new_key.saturating_sub(group.len().saturating_sub(1));
        }
        let alt = Cand {
            sql: split.join(" then "),
            family: group.first().map_or(Family::Binary, |sp| sp.cand.family),
            fit: 0,
            weight: 0,
            bits: 0,
            evidence: String::new(),
            low: true,
            alts: Vec::new(),
        };
        let cand = Cand {
            sql: format!("binary({n})"),
            family: Family::Binary,
            fit: 1000,
            weight: 1,
            bits: 0,
            evidence: format!(
                "a run of {n} fixed bytes, NOT NULL, one or more columns (no boundary in \
                     the records; the values place none: read as {})",
                split.join(" then ")
            ),
            low: true,
            alts: Vec::new(),
        };
        out.push(Spec::new(Storage::Fixed(n), false, cand, vec![alt], None));
        group.clear();
    };
    let n = specs.len();
    for (i, sp) in specs.into_iter().enumerate() {
        let joins = sp.field.is_none() && sp.weak_split && !telling(&sp.cand);
        // A run ends at DB_TRX_ID: the key's columns and the others are
        // not one run.
        if !joins || i == n_key {
            let at = i.saturating_sub(group.len());
            flush(&mut group, &mut out, &mut new_key, at);
        }
        if joins {
            group.push(sp);
        } else {
            out.push(sp);
        }
    }
    let at = n.saturating_sub(group.len());
    flush(&mut group, &mut out, &mut new_key, at);
    (out, new_key)
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
        specs.push(Spec::new(storage, nullable, cand, rivals, Some(k)));
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
        let key_lines = keys::key_lines(&self.indexes, &self.columns);
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
            if i.saturating_add(1) < self.columns.len() || self.n_key > 0 || !key_lines.is_empty() {
                s.push(',');
            }
            s.push('\n');
        }
        let mut tail = Vec::new();
        if self.n_key > 0 {
            let keys: Vec<String> = self
                .columns
                .iter()
                .take(self.n_key)
                .map(|c| format!("`{}`", c.name))
                .collect();
            tail.push(format!("  PRIMARY KEY ({})", keys.join(",")));
        }
        tail.extend(key_lines);
        if !tail.is_empty() {
            s.push_str(&tail.join(",\n"));
            s.push('\n');
        }
        s.push_str(") ENGINE=InnoDB DEFAULT CHARSET=latin1");
        s
    }
}
