//! The InnoDB data dictionary of MySQL ≤ 5.7 and MariaDB: the system
//! tables SYS_TABLES, SYS_COLUMNS, SYS_INDEXES, SYS_FIELDS (and MariaDB's
//! SYS_VIRTUAL) read from their B-trees in the system tablespace.
//!
//! The four basic tables have fixed definitions and roots named by the
//! dictionary header (`dict0boot.cc` `dict_boot`; their records are
//! REDUNDANT). Field numbers in their clustered indexes (`dict0boot.h`
//! `dict_fld_sys_*_enum`):
//!
//! | table | key | fields |
//! |---|---|---|
//! | SYS_TABLES | NAME | 0 NAME, 1 DB_TRX_ID, 2 DB_ROLL_PTR, 3 ID, 4 N_COLS, 5 TYPE, 6 MIX_ID, 7 MIX_LEN, 8 CLUSTER_NAME, 9 SPACE |
//! | SYS_COLUMNS | TABLE_ID, POS | 4 NAME, 5 MTYPE, 6 PRTYPE, 7 LEN, 8 PREC |
//! | SYS_INDEXES | TABLE_ID, ID | 4 NAME, 5 N_FIELDS, 6 TYPE, 7 SPACE, 8 PAGE_NO, (9 MERGE_THRESHOLD, 5.7 and MariaDB) |
//! | SYS_FIELDS | INDEX_ID, POS | 4 COL_NAME |
//! | SYS_VIRTUAL | TABLE_ID, POS, BASE_POS | 3 DB_TRX_ID, 4 DB_ROLL_PTR |
//!
//! Integers are stored big-endian as they are (`mach_write_to_4`,
//! `mach_write_to_8` in `dict0crea.cc`). SYS_VIRTUAL is an ordinary table
//! of the dictionary: its root comes from its SYS_INDEXES row.
//!
//! Every walk is bounded by the space's page count (each page is read at
//! most once) and by a depth of 32 levels. When the dictionary header
//! (page 7) is missing or does not verify, the four roots are found by
//! their index ids in one pass over the pages (a problem says so).

use crate::error::{Error, ErrorKind, Place};
use crate::system::{DictHeader, FSP_DICT_HDR_PAGE_NO};
use ibdscope_core::record::Chain;
use ibdscope_core::{PageNo, RecFormat, RecPage, Tablespace, Visited, FIL_NULL};
use ibdscope_prims::bytes::{be_u32, be_u64};
use std::collections::BTreeMap;

/// The most B-tree levels a walk descends.
const MAX_DEPTH: u32 = 32;

/// A problem met while reading the dictionary: the page and the byte
/// offset in the space where it was seen.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct DictProblem {
    /// Which system table was being read.
    pub table: &'static str,
    /// The page.
    pub page: u32,
    /// Byte offset in the space (page start when nothing more exact).
    pub offset: u64,
    /// What is wrong, in words.
    pub what: String,
}

/// A SYS_COLUMNS row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DictColumn {
    /// `POS` as stored (MariaDB/5.7 virtual columns: `(n + 1) << 16 | place`).
    pub pos: u32,
    /// `NAME`.
    pub name: Vec<u8>,
    /// `MTYPE` (`data0type.h` `DATA_*`).
    pub mtype: u32,
    /// `PRTYPE`: the MySQL type in the low byte, flags, the collation id
    /// in bits 16–30.
    pub prtype: u32,
    /// `LEN`.
    pub len: u32,
}

/// `DATA_MYSQL_BINARY_CHARSET_COLL` (`data0type.h`).
pub(crate) const DATA_MYSQL_BINARY_CHARSET_COLL: u32 = 63;
/// The collation of the servers' default character set, latin1
/// (`latin1_swedish_ci`, 8): what `data_mysql_default_charset_coll` is
/// unless the server was configured otherwise.
pub const DEFAULT_CHARSET_COLL: u32 = 8;

impl DictColumn {
    /// `PRTYPE` as the server loads it (`dict0load.cc`
    /// `dict_load_column_low`): a string column stored without a collation
    /// (created before 4.1.2, and the dictionary's own SYS_FOREIGN,
    /// SYS_FOREIGN_COLS, SYS_TABLESPACES, SYS_DATAFILES, SYS_VIRTUAL) gets
    /// the binary collation (`DATA_FIXBINARY`, `DATA_BINARY`, a `DATA_BLOB`
    /// with `DATA_BINARY_TYPE`) or `default_coll`
    /// (`data_mysql_default_charset_coll`). `INNODB_SYS_COLUMNS.PRTYPE`
    /// shows this value.
    pub fn prtype_loaded(&self, default_coll: u32) -> u32 {
        let coll = (self.prtype >> 16) & 0x7FFF;
        let string = self.mtype <= 5 || self.mtype == 12 || self.mtype == 13;
        if coll != 0 || !string {
            return self.prtype;
        }
        let binary =
            self.mtype == 3 || self.mtype == 4 || (self.mtype == 5 && self.prtype & 1024 != 0);
        let coll = if binary {
            DATA_MYSQL_BINARY_CHARSET_COLL
        } else {
            default_coll
        };
        (self.prtype & 0xFFFF) | (coll << 16)
    }
}

/// A SYS_FIELDS row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DictField {
    /// The field's place in the index.
    pub pos: u32,
    /// Prefix length in bytes (0: the whole column).
    pub prefix_len: u32,
    /// `COL_NAME`.
    pub name: Vec<u8>,
}

/// A SYS_INDEXES row with its fields.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DictIndex {
    /// `ID`.
    pub id: u64,
    /// `NAME`.
    pub name: Vec<u8>,
    /// `N_FIELDS`.
    pub n_fields: u32,
    /// `TYPE` (`dict0mem.h`: 1 `DICT_CLUSTERED`, 2 `DICT_UNIQUE`, 32
    /// `DICT_FTS`, 64 `DICT_SPATIAL`, 128 `DICT_VIRTUAL`).
    pub index_type: u32,
    /// `SPACE`.
    pub space: u32,
    /// `PAGE_NO`: the root page.
    pub page_no: u32,
    /// SYS_FIELDS rows in order.
    pub fields: Vec<DictField>,
}

/// A SYS_TABLES row with its columns and indexes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DictTable {
    /// `NAME`: `db/table` in the server's file-name encoding.
    pub name: Vec<u8>,
    /// `ID`.
    pub id: u64,
    /// `N_COLS` as stored: user columns in bits 0–15, MariaDB/5.7 virtual
    /// columns in bits 16–30, `DICT_N_COLS_COMPACT` (bit 31).
    pub n_cols: u32,
    /// `TYPE`: the table flags (1 for REDUNDANT and COMPACT alike).
    pub flags_raw: u32,
    /// `MIX_LEN`: the flags2 (`DICT_TF2_*`).
    pub flags2: u32,
    /// `SPACE`.
    pub space: u32,
    /// SYS_COLUMNS rows by `POS`.
    pub columns: Vec<DictColumn>,
    /// SYS_INDEXES rows by `ID`.
    pub indexes: Vec<DictIndex>,
    /// SYS_VIRTUAL rows: (`POS`, `BASE_POS`).
    pub virtual_bases: Vec<(u32, u32)>,
}

/// `DICT_N_COLS_COMPACT`.
pub(crate) const DICT_N_COLS_COMPACT: u32 = 0x8000_0000;

impl DictTable {
    /// The table flags as the server holds them (`dict0load.cc`
    /// `dict_sys_tables_type_to_tf`): bit 0 (COMPACT) from `N_COLS`, the
    /// rest from `TYPE`. `INNODB_SYS_TABLES.FLAG` shows this.
    pub fn flags(&self) -> u32 {
        let compact = u32::from(self.n_cols & DICT_N_COLS_COMPACT != 0);
        (self.flags_raw & !1) | compact
    }
    /// The columns InnoDB counts: stored user columns plus DB_ROW_ID,
    /// DB_TRX_ID, DB_ROLL_PTR (`INNODB_SYS_TABLES.N_COLS`).
    pub fn n_cols_with_system(&self) -> u32 {
        (self.n_cols & 0xFFFF).saturating_add(3)
    }
    /// The row format the flags give (`dict0mem.h`: `DICT_TF_COMPACT` bit 0,
    /// `DICT_TF_ZIP_SSIZE` bits 1–4, `DICT_TF_ATOMIC_BLOBS` bit 5).
    pub fn row_format(&self) -> &'static str {
        let f = self.flags();
        if f & 1 == 0 {
            "Redundant"
        } else if (f >> 1) & 0xF != 0 {
            "Compressed"
        } else if f & 0x20 != 0 {
            "Dynamic"
        } else {
            "Compact"
        }
    }
    /// `KEY_BLOCK_SIZE` in KiB of a COMPRESSED table (`DICT_TF_ZIP_SSIZE`:
    /// 512 << ssize bytes), else 0.
    pub fn zip_kib(&self) -> u32 {
        let ssize = (self.flags() >> 1) & 0xF;
        if ssize == 0 {
            0
        } else {
            (512u32 << ssize.min(7)) / 1024
        }
    }
}

/// The dictionary as read.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Dictionary {
    /// SYS_TABLES rows in key (name) order.
    pub tables: Vec<DictTable>,
    /// What could not be read.
    pub problems: Vec<DictProblem>,
}

/// The dictionary's rows counted, and its problems ([`Dictionary::survey`]).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Survey {
    /// SYS_TABLES rows.
    pub tables: u64,
    /// SYS_COLUMNS rows.
    pub columns: u64,
    /// SYS_INDEXES rows.
    pub indexes: u64,
    /// SYS_FIELDS rows.
    pub fields: u64,
    /// What could not be read.
    pub problems: Vec<DictProblem>,
}

/// One leaf record's fields: `None` for SQL NULL.
type Fields<'a> = Vec<Option<&'a [u8]>>;

/// Reads a B-tree of REDUNDANT records from `root`: every record of its
/// leaf level, not delete-marked, in key order.
struct TreeReader<'t, 'a> {
    ts: &'t Tablespace<'a>,
    table: &'static str,
    seen: Vec<bool>,
    problems: Vec<DictProblem>,
}

impl<'t, 'a> TreeReader<'t, 'a> {
    fn problem(&mut self, page: u32, at: usize, what: String) {
        let offset = self
            .ts
            .file_offset(PageNo(page))
            .saturating_add(u64::try_from(at).unwrap_or(0));
        self.problems.push(DictProblem {
            table: self.table,
            page,
            offset,
            what,
        });
    }

    /// The page `n` as a REDUNDANT index page that verifies, or a problem.
    fn page(&mut self, n: u32) -> Option<RecPage<'a>> {
        let Some(bytes) = self.ts.page(PageNo(n)) else {
            self.problem(n, 0, format!("page {n} is past the end of the space"));
            return None;
        };
        let seen = usize::try_from(n).ok().and_then(|i| self.seen.get_mut(i));
        match seen {
            Some(s) if *s => {
                self.problem(n, 0, format!("page {n} is reached twice (a loop)"));
                return None;
            }
            Some(s) => *s = true,
            None => return None,
        }
        let verdict = ibdscope_core::space::verify_page(bytes, self.ts.scheme());
        if !verdict.is_ok() {
            self.problem(n, 0, format!("page {n} does not verify ({verdict})"));
            return None;
        }
        match RecPage::of(self.ts, PageNo(n)) {
            Ok(rp) if rp.format() == RecFormat::Redundant => Some(rp),
            Ok(_) => {
                self.problem(n, 0, format!("page {n} is not a REDUNDANT index page"));
                None
            }
            Err(e) => {
                self.problem(n, 0, format!("page {n} is not an index page ({e:?})"));
                None
            }
        }
    }

    /// Every live leaf record under `root`, with its fields, in key order;
    /// `f` gets each. The tree is walked down every node pointer (not only
    /// the leftmost path), so a damaged page loses only the records under
    /// it; each leaf's `FIL_PAGE_NEXT` is checked against the next leaf of
    /// the walk (a loop or a cut leaf chain is a problem, not a hang).
    fn read(&mut self, root: u32, mut f: impl FnMut(&Fields<'a>)) {
        // (page, depth), popped in key order.
        let mut stack: Vec<(u32, u32)> = vec![(root, 0)];
        // The last leaf read and its FIL_PAGE_NEXT, while the leaves read
        // follow each other with nothing unreadable between them.
        let mut prev: Option<(u32, u32)> = None;
        while let Some((n, depth)) = stack.pop() {
            let Some(rp) = self.page(n) else {
                prev = None;
                continue;
            };
            let page = rp.bytes();
            if !rp.is_leaf() {
                if depth.saturating_add(1) >= MAX_DEPTH {
                    self.problem(
                        n,
                        0,
                        format!("page {n}: more than {MAX_DEPTH} B-tree levels; not descended"),
                    );
                    prev = None;
                    continue;
                }
                let children = children(&rp);
                if children.is_empty() {
                    self.problem(n, 0, format!("page {n}: no node pointer to descend"));
                    prev = None;
                }
                stack.extend(
                    children
                        .into_iter()
                        .rev()
                        .map(|c| (c, depth.saturating_add(1))),
                );
                continue;
            }
            if let Some((p, next)) = prev {
                if next != n {
                    self.problem(
                        p,
                        FIL_PAGE_NEXT,
                        format!(
                            "page {p}: FIL_PAGE_NEXT is {}, but the next leaf in the tree is {n}",
                            page_word(next)
                        ),
                    );
                }
            }
            let mut visited = Visited::new();
            if let Some(mut it) = ibdscope_core::record::RecIter::new(rp, Chain::User, &mut visited)
            {
                loop {
                    match it.next() {
                        Ok(Some(rec)) => {
                            if !rec.is_user() || rec.header.is_deleted() {
                                continue;
                            }
                            f(&rec_fields(&rec, page));
                        }
                        Ok(None) => break,
                        Err(e) => {
                            self.problem(n, 0, format!("page {n}: record chain: {e:?}"));
                            break;
                        }
                    }
                }
            }
            prev = Some((n, be_u32(page, FIL_PAGE_NEXT).unwrap_or(FIL_NULL)));
        }
        if let Some((p, next)) = prev {
            if next != FIL_NULL {
                self.problem(
                    p,
                    FIL_PAGE_NEXT,
                    format!(
                        "page {p}: the last leaf's FIL_PAGE_NEXT is {}, not FIL_NULL",
                        page_word(next)
                    ),
                );
            }
        }
    }
}

/// A record's fields: `None` for SQL NULL (or bytes outside the page).
fn rec_fields<'a>(rec: &ibdscope_core::record::Rec, page: &'a [u8]) -> Fields<'a> {
    rec.fields(page)
        .map(|fl| field_bytes(rec, page, fl))
        .collect()
}

fn field_bytes<'a>(
    rec: &ibdscope_core::record::Rec,
    page: &'a [u8],
    fl: ibdscope_core::record::RecField,
) -> Option<&'a [u8]> {
    if fl.null {
        return None;
    }
    let o = usize::from(rec.origin);
    page.get(o.saturating_add(usize::from(fl.start))..o.saturating_add(usize::from(fl.end)))
}

/// Finds records by their first key field in a B-tree of REDUNDANT
/// records (SYS_COLUMNS by `TABLE_ID`, SYS_INDEXES by `TABLE_ID`,
/// SYS_FIELDS by `INDEX_ID`, SYS_VIRTUAL by `TABLE_ID`: 8-byte big-endian
/// ids, so byte order is their order), descending from the root by the
/// node pointers' keys and following the leaf chain while the key lasts.
/// Only used on trees that a whole walk read without a problem (every page
/// verified, every leaf link as the walk found it), so a descent meets
/// only pages that walk read; still, each lookup is bounded: at most
/// [`MAX_DEPTH`] levels and as many pages as the space has.
struct Lookup<'t, 'a> {
    ts: &'t Tablespace<'a>,
}

impl<'t, 'a> Lookup<'t, 'a> {
    /// The page `n` as a REDUNDANT index page.
    fn page(&self, n: u32) -> Option<RecPage<'a>> {
        RecPage::of(self.ts, PageNo(n))
            .ok()
            .filter(|rp| rp.format() == RecFormat::Redundant)
    }

    /// Field 0 of the record at `origin`.
    fn key_at(rp: &RecPage<'a>, origin: u16) -> Option<&'a [u8]> {
        let rec = rp.record_at(origin)?;
        if !rec.is_user() {
            return None;
        }
        let page = rp.bytes();
        field_bytes(&rec, page, rec.field(page, 0)?)
    }

    /// Where a walk of `rp` for `key` may start: the owner of the last
    /// directory slot whose record's field 0 is below `key` (a binary
    /// search of the page directory, `page0page.h`: slot 0 owns the
    /// infimum, the last the supremum, the owners in key order between),
    /// else the infimum.
    fn start(rp: &RecPage<'a>, key: &[u8]) -> u16 {
        let infimum = u16::try_from(rp.format().infimum()).unwrap_or(0);
        let n = rp.header().n_dir_slots();
        // Slots 1 ..= n - 2 own user records.
        let (mut lo, mut hi) = (1u16, n.saturating_sub(1));
        let mut best = infimum;
        while lo < hi {
            let mid = lo.saturating_add(hi.saturating_sub(lo) / 2);
            let below = rp
                .dir_slot(mid)
                .and_then(|o| Self::key_at(rp, o).map(|k| (o, k)))
                .filter(|(_, k)| *k < key);
            match below {
                Some((o, _)) => {
                    best = o;
                    lo = mid.saturating_add(1);
                }
                None => hi = mid,
            }
        }
        best
    }

    /// The user records of `rp` from `origin` on (`origin` included when
    /// it is one) along the record chain; `f` says whether to go on.
    /// Bounded by the page's heap (`PAGE_N_HEAP`) records. False when `f`
    /// stopped the walk.
    fn walk_from(
        rp: &RecPage<'a>,
        origin: u16,
        mut f: impl FnMut(&ibdscope_core::record::Rec) -> bool,
    ) -> bool {
        let mut at = usize::from(origin);
        let limit = rp.bytes().len();
        for _ in 0..=rp.header().n_heap() {
            let Some(rec) = u16::try_from(at).ok().and_then(|o| rp.record_at(o)) else {
                return true;
            };
            if rec.rec_type == ibdscope_core::record::RecType::Supremum {
                return true;
            }
            if rec.is_user() && !f(&rec) {
                return false;
            }
            match rec.header.next_origin(at, limit) {
                Some(n) => at = n,
                None => return true,
            }
        }
        true
    }

    /// Every live leaf record under `root` whose field 0 is `key`, in key
    /// order; `f` gets each.
    fn find(&mut self, root: u32, key: &[u8], mut f: impl FnMut(&Fields<'a>)) {
        let mut budget = self.ts.n_pages();
        let mut n = root;
        let mut depth = 0u32;
        // Down the node pointers: the last child whose key's field 0 is
        // below `key` (records equal to `key` may begin in it), else the
        // first.
        let leaf = loop {
            if budget == 0 || depth >= MAX_DEPTH {
                return;
            }
            budget = budget.saturating_sub(1);
            let Some(rp) = self.page(n) else {
                return;
            };
            if rp.is_leaf() {
                break rp;
            }
            let page = rp.bytes();
            let mut child = None;
            Self::walk_from(&rp, Self::start(&rp, key), |rec| {
                let below = rec
                    .field(page, 0)
                    .and_then(|fl| field_bytes(rec, page, fl))
                    .is_some_and(|k| k < key);
                if child.is_some() && !below {
                    return false;
                }
                if let Some(c) = rec.child_page(page) {
                    child = Some(c.0);
                }
                true
            });
            let Some(c) = child else {
                return;
            };
            n = c;
            depth = depth.saturating_add(1);
        };
        // Along the leaves from there until a key above `key`.
        let mut rp = leaf;
        let mut from = Self::start(&rp, key);
        loop {
            let page = rp.bytes();
            let went_on = Self::walk_from(&rp, from, |rec| {
                let k = rec.field(page, 0).and_then(|fl| field_bytes(rec, page, fl));
                match k.map(|k| k.cmp(key)) {
                    Some(std::cmp::Ordering::Greater) => return false,
                    Some(std::cmp::Ordering::Equal) if !rec.header.is_deleted() => {
                        f(&rec_fields(rec, page));
                    }
                    _ => {}
                }
                true
            });
            if !went_on {
                return;
            }
            let next = be_u32(page, FIL_PAGE_NEXT).unwrap_or(FIL_NULL);
            if next == FIL_NULL || budget == 0 {
                return;
            }
            budget = budget.saturating_sub(1);
            match self.page(next) {
                Some(p) if p.is_leaf() => {
                    rp = p;
                    from = u16::try_from(rp.format().infimum()).unwrap_or(0);
                }
                _ => return,
            }
        }
    }
}

/// `FIL_PAGE_NEXT` (`fil0types.h`): the next page of the level.
const FIL_PAGE_NEXT: usize = 12;

/// A page number in words (`FIL_NULL` named).
fn page_word(n: u32) -> String {
    if n == FIL_NULL {
        "FIL_NULL".into()
    } else {
        format!("page {n}")
    }
}

/// The child pages of a node pointer page's user records, in key order.
fn children(rp: &RecPage<'_>) -> Vec<u32> {
    let mut visited = Visited::new();
    let mut v = Vec::new();
    let Some(mut it) = ibdscope_core::record::RecIter::new(*rp, Chain::User, &mut visited) else {
        return v;
    };
    while let Ok(Some(rec)) = it.next() {
        if rec.is_user() {
            if let Some(c) = rec.child_page(rp.bytes()) {
                v.push(c.0);
            }
        }
    }
    v
}

/// A SYS_TABLES row, without its columns and indexes.
fn table_row(f: &Fields<'_>) -> Option<DictTable> {
    let (id, n_cols, flags) = (int8(f, 3)?, int4(f, 4)?, int4(f, 5)?);
    Some(DictTable {
        name: text(f, 0),
        id,
        n_cols,
        flags_raw: flags,
        flags2: int4(f, 7).unwrap_or(0),
        space: int4(f, 9).unwrap_or(0),
        columns: Vec::new(),
        indexes: Vec::new(),
        virtual_bases: Vec::new(),
    })
}

/// A SYS_COLUMNS row and its `TABLE_ID`.
fn column_row(f: &Fields<'_>) -> Option<(u64, DictColumn)> {
    let (tid, pos) = (int8(f, 0)?, int4(f, 1)?);
    Some((
        tid,
        DictColumn {
            pos,
            name: text(f, 4),
            mtype: int4(f, 5).unwrap_or(0),
            prtype: int4(f, 6).unwrap_or(0),
            len: int4(f, 7).unwrap_or(0),
        },
    ))
}

/// A SYS_INDEXES row, without its fields, and its `TABLE_ID`.
fn index_row(f: &Fields<'_>) -> Option<(u64, DictIndex)> {
    let (tid, id) = (int8(f, 0)?, int8(f, 1)?);
    Some((
        tid,
        DictIndex {
            id,
            name: text(f, 4),
            n_fields: int4(f, 5).unwrap_or(0),
            index_type: int4(f, 6).unwrap_or(0),
            space: int4(f, 7).unwrap_or(0),
            page_no: int4(f, 8).unwrap_or(FIL_NULL),
            fields: Vec::new(),
        },
    ))
}

/// A SYS_FIELDS row: `INDEX_ID`, (`POS` as stored, `COL_NAME`).
fn field_row(f: &Fields<'_>) -> Option<(u64, (u32, Vec<u8>))> {
    let (iid, pos) = (int8(f, 0)?, int4(f, 1)?);
    Some((iid, (pos, text(f, 4))))
}

/// A SYS_VIRTUAL row: `TABLE_ID`, (`POS`, `BASE_POS`).
fn virtual_row(f: &Fields<'_>) -> Option<(u64, (u32, u32))> {
    Some((int8(f, 0)?, (int4(f, 1)?, int4(f, 2)?)))
}

fn int4(f: &Fields<'_>, i: usize) -> Option<u32> {
    f.get(i).copied().flatten().and_then(|b| be_u32(b, 0))
}

fn int8(f: &Fields<'_>, i: usize) -> Option<u64> {
    f.get(i).copied().flatten().and_then(|b| be_u64(b, 0))
}

fn text(f: &Fields<'_>, i: usize) -> Vec<u8> {
    f.get(i).copied().flatten().unwrap_or(&[]).to_vec()
}

/// The indexes of the four basic system tables, which no SYS_INDEXES row
/// lists: (index id, table, name) as `dict0boot.cc` `dict_boot` creates
/// them (`DICT_TABLES_ID` 1, `DICT_COLUMNS_ID` 2, `DICT_INDEXES_ID` 3,
/// `DICT_FIELDS_ID` 4, `DICT_TABLE_IDS_ID` 5, `dict0boot.h`).
pub(crate) const BOOT_INDEXES: [(u64, &str, &str); 5] = [
    (1, "SYS_TABLES", "CLUST_IND"),
    (2, "SYS_COLUMNS", "CLUST_IND"),
    (3, "SYS_INDEXES", "CLUST_IND"),
    (4, "SYS_FIELDS", "CLUST_IND"),
    (5, "SYS_TABLES", "ID_IND"),
];

impl Dictionary {
    /// Every index of space `space` with `table.index` as its name (the
    /// basic system tables' own in space 0 included).
    pub fn index_names(&self, space: u32) -> Vec<(u64, String)> {
        let mut v: Vec<(u64, String)> = Vec::new();
        if space == 0 {
            v.extend(
                BOOT_INDEXES
                    .iter()
                    .map(|(id, t, i)| (*id, format!("{t}.{i}"))),
            );
        }
        for t in &self.tables {
            for ix in t.indexes.iter().filter(|ix| ix.space == space) {
                v.push((
                    ix.id,
                    format!(
                        "{}.{}",
                        String::from_utf8_lossy(&t.name),
                        String::from_utf8_lossy(&ix.name)
                    ),
                ));
            }
        }
        v
    }

    /// SYS_TABLES alone, walked as [`Dictionary::read`] walks it: `f` gets
    /// each table's row (name, id, space, flags; no columns or indexes),
    /// one at a time, in NAME order; the problems of that walk are
    /// returned. Memory does not grow with the number of tables.
    pub fn for_each_table_row(
        ts: &Tablespace<'_>,
        mut f: impl FnMut(&DictTable),
    ) -> Result<Vec<DictProblem>, Error> {
        let (hdr, mut r) = Self::reader(ts)?;
        r.read(hdr.sys_tables, |row| {
            if let Some(t) = table_row(row) {
                f(&t);
            }
        });
        Ok(r.problems)
    }

    /// Walks the dictionary of `ts` as [`Dictionary::read`] does, every
    /// page and record checked alike, but keeps only counts: memory does
    /// not grow with the number of tables (`audit DATADIR`).
    pub fn survey(ts: &Tablespace<'_>) -> Result<Survey, Error> {
        Self::survey_roots(ts).map(|(s, _, _)| s)
    }

    /// [`Dictionary::survey`], with the dictionary header (its roots) and
    /// SYS_VIRTUAL's root as [`Dictionary::read`] finds it.
    fn survey_roots(ts: &Tablespace<'_>) -> Result<(Survey, DictHeader, Option<u32>), Error> {
        let (hdr, mut r) = Self::reader(ts)?;
        let mut s = Survey::default();
        let mut virtual_id = None;
        r.read(hdr.sys_tables, |f| {
            if let (Some(id), Some(_), Some(_)) = (int8(f, 3), int4(f, 4), int4(f, 5)) {
                s.tables = s.tables.saturating_add(1);
                if virtual_id.is_none() && f.first().copied().flatten() == Some(&b"SYS_VIRTUAL"[..])
                {
                    virtual_id = Some(id);
                }
            }
        });
        r.table = "SYS_COLUMNS";
        r.read(hdr.sys_columns, |f| {
            if int8(f, 0).is_some() && int4(f, 1).is_some() {
                s.columns = s.columns.saturating_add(1);
            }
        });
        let mut vroot = None;
        r.table = "SYS_INDEXES";
        r.read(hdr.sys_indexes, |f| {
            if let (Some(tid), Some(_)) = (int8(f, 0), int8(f, 1)) {
                s.indexes = s.indexes.saturating_add(1);
                if Some(tid) == virtual_id && vroot.is_none() {
                    vroot = Some(int4(f, 8).unwrap_or(FIL_NULL));
                }
            }
        });
        r.table = "SYS_FIELDS";
        r.read(hdr.sys_fields, |f| {
            if int8(f, 0).is_some() && int4(f, 1).is_some() {
                s.fields = s.fields.saturating_add(1);
            }
        });
        if let Some(root) = vroot {
            r.table = "SYS_VIRTUAL";
            r.read(root, |_| {});
        }
        s.problems = r.problems;
        Ok((s, hdr, vroot))
    }

    /// The dictionary header of `ts` and a reader of its trees.
    fn reader<'t, 'a>(ts: &'t Tablespace<'a>) -> Result<(DictHeader, TreeReader<'t, 'a>), Error> {
        if ts.space_id().0 != 0 {
            return Err(Error::whole(ErrorKind::NotSystemSpace));
        }
        let at = ts.file_offset(PageNo(FSP_DICT_HDR_PAGE_NO));
        let mut r = TreeReader {
            ts,
            table: "SYS_TABLES",
            seen: vec![false; usize::try_from(ts.n_pages()).unwrap_or(0)],
            problems: Vec::new(),
        };
        let hdr = ts
            .page(PageNo(FSP_DICT_HDR_PAGE_NO))
            .filter(|p| ibdscope_core::space::verify_page(p, ts.scheme()).is_ok())
            .and_then(DictHeader::read);
        if let Some(h) = hdr {
            return Ok((h, r));
        }
        // The header is gone: the roots of the four basic tables are found
        // by their index ids instead (a root never moves and is the only
        // page of its index without siblings at the top level).
        let roots = roots_by_index_id(ts).ok_or(Error {
            kind: ErrorKind::NoDictHeader,
            place: Place::Page {
                page: PageNo(FSP_DICT_HDR_PAGE_NO),
                file_offset: at,
            },
        })?;
        let [t, c, i, f] = roots;
        r.table = "DICT_HDR";
        r.problem(
            FSP_DICT_HDR_PAGE_NO,
            0,
            format!(
                "the data dictionary header (page {FSP_DICT_HDR_PAGE_NO}) is missing or does not \
                 verify; the system tables' roots were found by their index ids instead: \
                 SYS_TABLES {t}, SYS_COLUMNS {c}, SYS_INDEXES {i}, SYS_FIELDS {f}"
            ),
        );
        r.table = "SYS_TABLES";
        let h = DictHeader {
            row_id: 0,
            table_id: 0,
            index_id: 0,
            max_space_id: 0,
            mix_id_low: 0,
            sys_tables: t,
            sys_table_ids: FIL_NULL,
            sys_columns: c,
            sys_indexes: i,
            sys_fields: f,
            fseg: crate::system::FsegRef {
                space: 0,
                page: FIL_NULL,
                offset: 0,
            },
        };
        Ok((h, r))
    }

    /// Reads the dictionary of the system tablespace `ts`.
    pub fn read(ts: &Tablespace<'_>) -> Result<Dictionary, Error> {
        let (hdr, mut r) = Self::reader(ts)?;
        let mut tables = Vec::new();
        r.read(hdr.sys_tables, |f| tables.extend(table_row(f)));
        let mut columns: BTreeMap<u64, Vec<DictColumn>> = BTreeMap::new();
        r.table = "SYS_COLUMNS";
        r.read(hdr.sys_columns, |f| {
            if let Some((tid, c)) = column_row(f) {
                columns.entry(tid).or_default().push(c);
            }
        });
        let mut indexes: BTreeMap<u64, Vec<DictIndex>> = BTreeMap::new();
        r.table = "SYS_INDEXES";
        r.read(hdr.sys_indexes, |f| {
            if let Some((tid, ix)) = index_row(f) {
                indexes.entry(tid).or_default().push(ix);
            }
        });
        let mut fields: BTreeMap<u64, Vec<(u32, Vec<u8>)>> = BTreeMap::new();
        r.table = "SYS_FIELDS";
        r.read(hdr.sys_fields, |f| {
            if let Some((iid, fl)) = field_row(f) {
                fields.entry(iid).or_default().push(fl);
            }
        });
        // SYS_VIRTUAL (MariaDB 10.2+, MySQL 5.7): an ordinary dictionary table.
        let vroot = tables
            .iter()
            .find(|t| t.name == b"SYS_VIRTUAL")
            .and_then(|t| indexes.get(&t.id))
            .and_then(|ix| ix.first())
            .map(|ix| ix.page_no);
        let mut virtuals: BTreeMap<u64, Vec<(u32, u32)>> = BTreeMap::new();
        if let Some(root) = vroot {
            r.table = "SYS_VIRTUAL";
            r.read(root, |f| {
                if let Some((tid, v)) = virtual_row(f) {
                    virtuals.entry(tid).or_default().push(v);
                }
            });
        }
        for t in &mut tables {
            t.columns = columns.remove(&t.id).unwrap_or_default();
            t.indexes = indexes.remove(&t.id).unwrap_or_default();
            for ix in &mut t.indexes {
                ix.fields = decode_fields(fields.remove(&ix.id).unwrap_or_default());
            }
            t.virtual_bases = virtuals.remove(&t.id).unwrap_or_default();
        }
        Ok(Dictionary {
            tables,
            problems: r.problems,
        })
    }

    /// The dictionary of `ts` one table at a time, for a reader whose
    /// memory must not grow with the number of tables (`tables DATADIR`).
    /// First every tree is walked as [`Dictionary::survey`] walks it (every
    /// page and record checked, counts kept): the problems and the number
    /// of tables are those [`Dictionary::read`] gives. Then, when that walk
    /// found no problem, [`TableStream::for_each`] walks SYS_TABLES in its
    /// key order (`NAME`) and finds each table's rows in SYS_COLUMNS,
    /// SYS_INDEXES, SYS_FIELDS and SYS_VIRTUAL by descending their
    /// B-trees by key (clustered on `TABLE_ID`, `TABLE_ID`, `INDEX_ID`,
    /// `TABLE_ID` first, `dict0boot.cc` `dict_boot`), holding one table at
    /// a time. A damaged dictionary is read whole instead ([`Dictionary::read`]:
    /// a key descent trusts the node pointers, the whole walk does not).
    pub fn stream<'t, 'a>(ts: &'t Tablespace<'a>) -> Result<TableStream<'t, 'a>, Error> {
        let (survey, hdr, vroot) = Self::survey_roots(ts)?;
        let whole = if survey.problems.is_empty() {
            None
        } else {
            Some(Self::read(ts)?)
        };
        let (tables, problems) = match &whole {
            Some(d) => (
                u64::try_from(d.tables.len()).unwrap_or(u64::MAX),
                d.problems.clone(),
            ),
            None => (survey.tables, survey.problems),
        };
        Ok(TableStream {
            ts,
            tables,
            problems,
            hdr,
            vroot,
            whole,
        })
    }
}

/// The dictionary read one table at a time ([`Dictionary::stream`]).
pub struct TableStream<'t, 'a> {
    ts: &'t Tablespace<'a>,
    /// SYS_TABLES rows: as many as [`TableStream::for_each`] gives.
    pub tables: u64,
    /// What could not be read: [`Dictionary::read`]'s problems.
    pub problems: Vec<DictProblem>,
    hdr: DictHeader,
    vroot: Option<u32>,
    /// The whole dictionary when the walk found a problem.
    whole: Option<Dictionary>,
}

impl TableStream<'_, '_> {
    /// Gives `f` every table, in SYS_TABLES' key order, with the same rows
    /// [`Dictionary::read`] gives it; stops at `f`'s first error.
    pub fn for_each<E>(&self, mut f: impl FnMut(&DictTable) -> Result<(), E>) -> Result<(), E> {
        if let Some(d) = &self.whole {
            return d.tables.iter().try_for_each(f);
        }
        let ts = self.ts;
        let hdr = &self.hdr;
        let mut r = TreeReader {
            ts,
            table: "SYS_TABLES",
            seen: vec![false; usize::try_from(ts.n_pages()).unwrap_or(0)],
            problems: Vec::new(),
        };
        let mut look = Lookup { ts };
        let mut result = Ok(());
        r.read(hdr.sys_tables, |row| {
            if result.is_err() {
                return;
            }
            let Some(mut t) = table_row(row) else {
                return;
            };
            let key = t.id.to_be_bytes();
            look.find(hdr.sys_columns, &key, |row| {
                t.columns.extend(column_row(row).map(|(_, c)| c));
            });
            look.find(hdr.sys_indexes, &key, |row| {
                t.indexes.extend(index_row(row).map(|(_, ix)| ix));
            });
            for ix in &mut t.indexes {
                let mut raw = Vec::new();
                look.find(hdr.sys_fields, &ix.id.to_be_bytes(), |row| {
                    raw.extend(field_row(row).map(|(_, fl)| fl));
                });
                ix.fields = decode_fields(raw);
            }
            if let Some(root) = self.vroot {
                look.find(root, &key, |row| {
                    t.virtual_bases.extend(virtual_row(row).map(|(_, v)| v));
                });
            }
            result = f(&t);
        });
        result
    }
}

/// `FIL_PAGE_INDEX` (`fil0fil.h`).
const FIL_PAGE_INDEX: u16 = 17855;

/// The root pages of SYS_TABLES, SYS_COLUMNS, SYS_INDEXES and SYS_FIELDS
/// (index ids `DICT_TABLES_ID` 1 … `DICT_FIELDS_ID` 4, `dict0boot.h`) found
/// in one pass over the space's pages: for each id, the page that
/// verifies, is an index page (`FIL_PAGE_TYPE`, byte 24) of that
/// `PAGE_INDEX_ID` (`PAGE_HEADER` 38 + 28) with `FIL_PAGE_PREV` and
/// `FIL_PAGE_NEXT` (bytes 8, 12) both `FIL_NULL`, at the highest
/// `PAGE_LEVEL` (38 + 26); of equals, the one with the newest
/// `FIL_PAGE_LSN` (byte 16; a freed page keeps older bytes). `None` unless
/// all four are found.
fn roots_by_index_id(ts: &Tablespace<'_>) -> Option<[u32; 4]> {
    // (level, lsn, page) per index id 1..=4.
    let mut best: [Option<(u16, u64, u32)>; 4] = [None; 4];
    // An all-zero page is no root: the holes of a sparse file are skipped.
    for (PageNo(n), p) in ts.data_pages() {
        if ibdscope_prims::bytes::be_u16(p, 24) != Some(FIL_PAGE_INDEX)
            || be_u32(p, 8) != Some(FIL_NULL)
            || be_u32(p, FIL_PAGE_NEXT) != Some(FIL_NULL)
        {
            continue;
        }
        let Some(id) = be_u64(p, 38 + 28) else {
            continue;
        };
        let Some(slot) = usize::try_from(id)
            .ok()
            .and_then(|i| i.checked_sub(1))
            .and_then(|i| best.get_mut(i))
        else {
            continue;
        };
        if !ibdscope_core::space::verify_page(p, ts.scheme()).is_ok() {
            continue;
        }
        let level = ibdscope_prims::bytes::be_u16(p, 38 + 26).unwrap_or(0);
        let lsn = be_u64(p, 16).unwrap_or(0);
        if slot.is_none_or(|(l, s, _)| (level, lsn) > (l, s)) {
            *slot = Some((level, lsn, n));
        }
    }
    let [a, b, c, d] = best;
    Some([a?.2, b?.2, c?.2, d?.2])
}

/// SYS_FIELDS `POS`: when an index has a column prefix, every field's
/// `POS` is `place << 16 | prefix_len` (the first field's too); else it is
/// the place (`dict0load.cc` `dict_load_field_low`: a first field, or a
/// value above 0xFFFF, is read as `place << 16 | prefix`).
fn decode_fields(raw: Vec<(u32, Vec<u8>)>) -> Vec<DictField> {
    let prefixed =
        raw.iter().any(|(p, _)| *p > 0xFFFF) || raw.first().is_some_and(|(p, _)| *p != 0);
    raw.into_iter()
        .map(|(p, name)| {
            let (pos, prefix_len) = if prefixed {
                (p >> 16, p & 0xFFFF)
            } else {
                (p, 0)
            };
            DictField {
                pos,
                prefix_len,
                name,
            }
        })
        .collect()
}

#[cfg(test)]
#[allow(
    clippy::arithmetic_side_effects,
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::expect_used
)]
mod tests {
    use super::*;

    fn table(n_cols: u32, flags_raw: u32) -> DictTable {
        DictTable {
            name: b"db/t".to_vec(),
            id: 1,
            n_cols,
            flags_raw,
            flags2: 0,
            space: 1,
            columns: Vec::new(),
            indexes: Vec::new(),
            virtual_bases: Vec::new(),
        }
    }

    #[test]
    fn row_format_from_n_cols_and_type() {
        // dict0load.cc dict_sys_tables_type_to_tf: TYPE is 1 for both
        // REDUNDANT and COMPACT; DICT_N_COLS_COMPACT in N_COLS tells them apart.
        assert_eq!(table(3, 1).row_format(), "Redundant");
        assert_eq!(table(3, 1).flags(), 0);
        assert_eq!(table(3 | DICT_N_COLS_COMPACT, 1).row_format(), "Compact");
        // DICT_TF_ATOMIC_BLOBS (bit 5): DYNAMIC; DICT_TF_ZIP_SSIZE 4 (8 KiB).
        assert_eq!(table(3 | DICT_N_COLS_COMPACT, 33).row_format(), "Dynamic");
        let zip = table(3 | DICT_N_COLS_COMPACT, 1 | (4 << 1) | 32);
        assert_eq!(zip.row_format(), "Compressed");
        assert_eq!(zip.zip_kib(), 8);
        // MariaDB/5.7: virtual columns in bits 16-30 are not counted.
        assert_eq!(
            table(2 | (1 << 16) | DICT_N_COLS_COMPACT, 33).n_cols_with_system(),
            5
        );
    }

    #[test]
    fn field_positions_with_and_without_prefixes() {
        let plain = decode_fields(vec![(0, b"a".to_vec()), (1, b"b".to_vec())]);
        assert_eq!((plain[1].pos, plain[1].prefix_len), (1, 0));
        // With a prefix anywhere, every POS is place << 16 | prefix.
        let pre = decode_fields(vec![(6, b"a".to_vec()), (1 << 16, b"b".to_vec())]);
        assert_eq!((pre[0].pos, pre[0].prefix_len), (0, 6));
        assert_eq!((pre[1].pos, pre[1].prefix_len), (1, 0));
    }

    #[test]
    fn prtype_gets_a_collation_only_where_none_is_stored() {
        let c = |mtype, prtype| DictColumn {
            pos: 0,
            name: Vec::new(),
            mtype,
            prtype,
            len: 0,
        };
        // DATA_VARCHAR without a collation: the default one.
        assert_eq!(c(1, 4).prtype_loaded(8), 4 | (8 << 16));
        // DATA_BINARY: the binary collation.
        assert_eq!(c(4, 0).prtype_loaded(8), 63 << 16);
        // DATA_BLOB with DATA_BINARY_TYPE: binary; without: the default.
        assert_eq!(c(5, 1024).prtype_loaded(8), 1024 | (63 << 16));
        assert_eq!(c(5, 252).prtype_loaded(33), 252 | (33 << 16));
        // DATA_INT: no collation; a stored one stays.
        assert_eq!(c(6, 1283).prtype_loaded(8), 1283);
        assert_eq!(c(12, 15 | (33 << 16)).prtype_loaded(8), 15 | (33 << 16));
    }
}
