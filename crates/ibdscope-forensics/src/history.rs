//! A table's rows with their older versions: each row of the clustered
//! index, read along the leaf chain, and the versions before it rebuilt
//! from the undo logs not yet purged (MySQL ≤ 5.7, MariaDB), oldest first,
//! each with the transaction that wrote it and the undo record it comes
//! from; where the chain of versions ends (the insert, purged, lost with a
//! damaged undo page, a problem). [`history`] returns values; it reads
//! nothing but the spaces it is given.
//!
//! A version is the record as it was: the current record's fields, and
//! for each older one the update vector of its undo record applied to the
//! version after it (`trx_undo_prev_version_build`, mysql-server 5.7
//! `storage/innobase/trx/trx0rec.cc`). Bounded: every leaf page is read
//! once (at most the pages of the file), every chain by
//! [`crate::undo::chain`].

use crate::error::{Error, ErrorKind};
use crate::undo::{self, ChainEnd, Lost, RollPtr, Undo};
use ibdscope_core::record::Visited;
use ibdscope_core::{IndexId, PageNo, RecPage, Tablespace, FIL_NULL};
use ibdscope_schema::row::{field_bytes, split, Field, FieldValue, LobRead};
use ibdscope_schema::table::{RecordLayout, SysCol, TableDef};
use std::collections::HashSet;

/// The most bytes read of one off-page value.
pub const VALUE_CAP: usize = 1 << 20;

/// One value of a version (one per field of the clustered index's
/// layout).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Val {
    /// SQL NULL (also a field the record does not store).
    Null,
    /// The whole value.
    Bytes(Vec<u8>),
    /// An off-page value whose whole could not be read, or an older one
    /// the undo record keeps only locally: the local bytes (prefix and
    /// reference).
    OffPage(Vec<u8>),
}

/// One version of a row.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Version {
    /// The transaction that wrote it (`DB_TRX_ID`).
    pub trx_id: u64,
    /// Delete-marked.
    pub deleted: bool,
    /// The undo record it was rebuilt from; `None` for the current record.
    pub from: Option<RollPtr>,
    /// Its values, one per field of the layout.
    pub values: Vec<Val>,
}

/// Where a row's chain of versions ends.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Oldest {
    /// The oldest version is the insert.
    Insert,
    /// Older versions are purged.
    Purged,
    /// Older versions are lost with a damaged undo page (not purged).
    Lost(Lost),
    /// A problem: the roll pointer's space, its byte offset there, what.
    Problem(u32, u64, String),
}

impl Oldest {
    /// The word for output: `insert`, `purged`, `lost`, `problem`.
    pub fn word(&self) -> &'static str {
        match self {
            Oldest::Insert => "insert",
            Oldest::Purged => "purged",
            Oldest::Lost(_) => "lost",
            Oldest::Problem(..) => "problem",
        }
    }
}

/// One row and its versions.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct RowHistory {
    /// Its key as text: the unique key's values rendered
    /// (`ibdscope_schema::value::render`), joined by commas (NULL bare).
    pub key: String,
    /// The leaf page of its current record.
    pub page: PageNo,
    /// The record's origin on that page.
    pub offset: u16,
    /// Its versions, oldest first; the last is the current record.
    pub versions: Vec<Version>,
    /// Where the chain ends.
    pub oldest: Oldest,
}

/// Something wrong met reading the rows, in the order met.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum HistoryProblem {
    /// The leaf chain comes back to a page (or is longer than the file).
    ChainLoops(PageNo),
    /// The leaf chain reaches a page that is not a leaf page of the
    /// clustered index.
    NotLeaf(PageNo),
    /// A page's record chain is broken: its rows after it are missing.
    RecordChain(PageNo, ibdscope_core::Error),
    /// A record that cannot be split with the definition: its page, its
    /// byte offset in the file, why.
    Split(PageNo, u64, ibdscope_schema::Error),
    /// Row `k` of [`History::rows`] ends lost or at a problem
    /// ([`RowHistory::oldest`]).
    Row(usize),
}

/// The rows and their versions.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct History {
    /// The rows in key order.
    pub rows: Vec<RowHistory>,
    /// What went wrong, in the order met.
    pub problems: Vec<HistoryProblem>,
}

/// Where to read a history.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct Clustered<'d> {
    /// The table.
    pub table: &'d TableDef,
    /// Its clustered index's layout (`ibdscope_schema::rows::index_layout`).
    pub layout: &'d RecordLayout,
    /// The clustered index's root page.
    pub root: PageNo,
    /// Its PAGE_INDEX_ID (the root page's).
    pub index: IndexId,
    /// The table's id in the dictionary, when known: undo records of
    /// other tables are not followed.
    pub table_id: Option<u64>,
}

impl<'d> Clustered<'d> {
    /// The clustered index of `table` at `root` (PAGE_INDEX_ID `index`),
    /// split with `layout`.
    pub fn new(
        table: &'d TableDef,
        layout: &'d RecordLayout,
        root: PageNo,
        index: IndexId,
        table_id: Option<u64>,
    ) -> Self {
        Clustered {
            table,
            layout,
            root,
            index,
            table_id,
        }
    }
}

/// The row's key as text: the unique key's values rendered, joined by
/// commas.
fn render_key(t: &TableDef, layout: &RecordLayout, vals: &[Val]) -> String {
    let mut parts = Vec::new();
    for li in 0..layout.n_unique {
        let Some(f) = layout.fields.get(li) else {
            continue;
        };
        let mut s = String::new();
        match (t.columns.get(f.column), vals.get(li)) {
            (Some(col), Some(Val::Bytes(b))) => {
                ibdscope_schema::value::render(col, b, &mut s);
            }
            _ => s.push_str("NULL"),
        }
        parts.push(s);
    }
    parts.join(",")
}

/// The rows of the clustered index `c` of `ts` with their older versions
/// from `u`; only the row whose key text is `key`, when given. Never
/// panics; bounded.
pub fn history(
    ts: &Tablespace<'_>,
    c: &Clustered<'_>,
    u: &Undo<'_, '_>,
    key: Option<&str>,
) -> Result<History, Error> {
    let (t, layout) = (c.table, c.layout);
    let n_unique = layout.n_unique;
    let sys_pos = |s: SysCol| {
        (layout.fields.iter())
            .position(|f| t.columns.get(f.column).and_then(|c| c.sys()) == Some(s))
    };
    let (Some(trx_pos), Some(roll_pos)) = (sys_pos(SysCol::TrxId), sys_pos(SysCol::RollPtr)) else {
        return Err(Error::whole(ErrorKind::NoSystemColumns));
    };
    let mut visited = Visited::new();
    let mut fields: Vec<Field> = Vec::new();
    let leaf = ibdscope_schema::row::leftmost_leaf(ts, c.root, layout, &mut visited, &mut fields)
        .map_err(|e| match e.kind {
        ibdscope_schema::ErrorKind::Descent(k) => Error::whole(ErrorKind::Descent(k)),
        _ => Error::whole(ErrorKind::NoSystemColumns),
    })?;
    let mut h = History::default();
    let mut page_no = leaf;
    let mut pages_seen = HashSet::new();
    let mut buf = Vec::new();
    while page_no.0 != FIL_NULL {
        if !pages_seen.insert(page_no.0) || pages_seen.len() > ts.n_pages() as usize {
            h.problems.push(HistoryProblem::ChainLoops(page_no));
            break;
        }
        let rp = match RecPage::of(ts, page_no) {
            Ok(rp) if rp.header().index_id() == c.index => rp,
            _ => {
                h.problems.push(HistoryProblem::NotLeaf(page_no));
                break;
            }
        };
        let page = rp.bytes();
        let Some(mut it) = rp.records(&mut visited) else {
            break;
        };
        loop {
            let rec = match it.next() {
                Ok(Some(r)) => r,
                Ok(None) => break,
                Err(e) => {
                    h.problems.push(HistoryProblem::RecordChain(page_no, e));
                    break;
                }
            };
            if !rec.is_user() {
                continue;
            }
            let info = match split(&rp, &rec, layout, &mut fields) {
                Ok(i) => i,
                Err(e) => {
                    let at = u64::from(page_no.0)
                        .saturating_mul(u64::from(ts.page_size()))
                        .saturating_add(u64::from(rec.origin));
                    h.problems.push(HistoryProblem::Split(page_no, at, e));
                    continue;
                }
            };
            let mut vals: Vec<Val> = Vec::with_capacity(layout.fields.len());
            for f in &fields {
                vals.push(match f.value {
                    FieldValue::Inline { .. } | FieldValue::External { .. } => {
                        match field_bytes(ts, page, f, VALUE_CAP, &mut buf) {
                            Some(Ok(LobRead::Complete)) => Val::Bytes(buf.clone()),
                            _ => Val::OffPage(f.local(page).unwrap_or(&[]).to_vec()),
                        }
                    }
                    _ => Val::Null,
                });
            }
            let get = |i: usize| match vals.get(i) {
                Some(Val::Bytes(b)) => Some(b.clone()),
                _ => None,
            };
            let trx_id = get(trx_pos)
                .map(|b| (b.iter()).fold(0u64, |a, &x| a.wrapping_shl(8) | u64::from(x)))
                .unwrap_or(0);
            let Some(roll) = get(roll_pos).and_then(|b| RollPtr::read(&b)) else {
                continue;
            };
            let key_bytes: Vec<Option<Vec<u8>>> = (0..n_unique).map(get).collect();
            let row_key = render_key(t, layout, &vals);
            if key.is_some_and(|k| k != row_key) {
                continue;
            }
            let (steps, end) = undo::chain(u, trx_id, roll, c.table_id, n_unique, &key_bytes);
            let mut versions = vec![Version {
                trx_id,
                deleted: info.deleted,
                from: None,
                values: vals.clone(),
            }];
            let mut cur = vals;
            for s in &steps {
                for (fno, v) in &s.rec.update {
                    let Some(slot) = usize::try_from(*fno).ok().and_then(|i| cur.get_mut(i)) else {
                        continue;
                    };
                    *slot = match v {
                        undo::ColVal::Null => Val::Null,
                        undo::ColVal::Bytes { .. } => {
                            Val::Bytes(v.bytes(s.page).unwrap_or(&[]).to_vec())
                        }
                        undo::ColVal::Extern { .. } => {
                            Val::OffPage(v.bytes(s.page).unwrap_or(&[]).to_vec())
                        }
                    };
                }
                versions.push(Version {
                    trx_id: s.rec.trx_id.unwrap_or(0),
                    deleted: s.rec.was_deleted(),
                    from: Some(s.roll_ptr),
                    values: cur.clone(),
                });
            }
            let oldest = match end {
                ChainEnd::Insert => Oldest::Insert,
                ChainEnd::Purged => Oldest::Purged,
                ChainEnd::Lost(l) => Oldest::Lost(l),
                ChainEnd::Problem(space, off, what) => Oldest::Problem(space, off, what),
            };
            if matches!(oldest, Oldest::Lost(_) | Oldest::Problem(..)) {
                h.problems.push(HistoryProblem::Row(h.rows.len()));
            }
            versions.reverse();
            h.rows.push(RowHistory {
                key: row_key,
                page: page_no,
                offset: rec.origin,
                versions,
                oldest,
            });
        }
        page_no = PageNo(ibdscope_prims::bytes::be_u32(page, 12).unwrap_or(FIL_NULL));
    }
    Ok(h)
}
