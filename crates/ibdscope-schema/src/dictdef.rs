//! A table definition from the InnoDB dictionary of MySQL ≤ 5.7 and
//! MariaDB (SYS_COLUMNS, SYS_INDEXES, SYS_FIELDS rows, read by
//! `ibdscope-forensics`), for tables whose `.frm` is gone.
//!
//! A column's type is what `MTYPE`, `PRTYPE` and `LEN` say
//! (`data0type.h`): the main type (`DATA_VARCHAR` 1, `DATA_CHAR` 2,
//! `DATA_FIXBINARY` 3, `DATA_BINARY` 4, `DATA_BLOB` 5, `DATA_INT` 6,
//! `DATA_FLOAT` 9, `DATA_DOUBLE` 10, `DATA_DECIMAL` 11, `DATA_VARMYSQL` 12,
//! `DATA_MYSQL` 13, `DATA_GEOMETRY` 14), the server's field type in
//! `PRTYPE`'s low byte (`DATA_MYSQL_TYPE_MASK`; `ha_innodb.cc`
//! `create_table_def` stores `field->type()`), the flags `DATA_NOT_NULL`
//! 256, `DATA_UNSIGNED` 512, `DATA_BINARY_TYPE` 1024, `DATA_VIRTUAL` 8192,
//! and the collation in bits 16–30 (`dtype_get_charset_coll`). `LEN` is
//! the stored length (for BLOBs the server's pack length: 9 TINY, 10, 11
//! MEDIUM, 12 LONG).
//!
//! What the dictionary does not hold, and a `.frm` does: DECIMAL's
//! precision and scale (only the stored bytes), ENUM and SET labels (both
//! are `DATA_INT` with field type `MYSQL_TYPE_STRING`: only the stored
//! number), BIT's width (only its bytes), fractional-second digits beyond
//! what the length tells (1 or 2, 3 or 4, 5 or 6 share a length), defaults,
//! comments, and the exact integer display widths. Each such column
//! carries a note.

use crate::table::{
    ColType, Column, Hidden, IndexDef, IndexElement, IndexKind, RowFormat, TableDef,
};

/// `DATA_NOT_NULL`.
pub(crate) const DATA_NOT_NULL: u32 = 256;
/// `DATA_UNSIGNED`.
pub(crate) const DATA_UNSIGNED: u32 = 512;
/// `DATA_VIRTUAL` (MariaDB 10.2+, MySQL 5.7).
pub(crate) const DATA_VIRTUAL: u32 = 8192;
/// `DICT_CLUSTERED`.
pub const DICT_CLUSTERED: u32 = 1;
/// `DICT_UNIQUE`.
pub const DICT_UNIQUE: u32 = 2;
/// `DICT_FTS`.
pub const DICT_FTS: u32 = 32;
/// `DICT_SPATIAL`.
pub const DICT_SPATIAL: u32 = 64;

/// One SYS_COLUMNS row, as plain values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DictCol {
    /// `NAME`.
    pub name: String,
    /// `POS` as stored.
    pub pos: u32,
    /// `MTYPE`.
    pub mtype: u32,
    /// `PRTYPE`.
    pub prtype: u32,
    /// `LEN`.
    pub len: u32,
}

/// One SYS_INDEXES row with its SYS_FIELDS, as plain values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DictIdx {
    /// `NAME`.
    pub name: String,
    /// `ID`.
    pub id: u64,
    /// `TYPE`.
    pub index_type: u32,
    /// `PAGE_NO` (`None`: `FIL_NULL`).
    pub root: Option<u32>,
    /// The fields: column name and prefix length (0 = whole).
    pub fields: Vec<(String, u32)>,
}

/// How a note on a DECIMAL column begins ([`values_not_shown`]).
pub(crate) const NOTE_DECIMAL: &str = "DECIMAL: ";
/// How a note on an ENUM or SET column begins ([`values_not_shown`]).
pub(crate) const NOTE_ENUM_SET: &str = "ENUM or SET: ";

/// Whether a column with this note shows values that are not the server's
/// (DECIMAL's stored bytes, ENUM's and SET's stored numbers), rather than
/// the server's values in another width (BIT, fractional seconds).
pub fn values_not_shown(note: &str) -> bool {
    note.starts_with(NOTE_DECIMAL) || note.starts_with(NOTE_ENUM_SET)
}

/// The precisions and scales a binary DECIMAL of `len` stored bytes can
/// have: (fewest and most digits, smallest and largest scale), over
/// DECIMAL(M,D) with M up to 65 and D up to 30 (`DECIMAL_MAX_PRECISION`,
/// `DECIMAL_MAX_SCALE`; bytes by `strings/decimal.cc` `decimal_bin_size`).
pub(crate) fn decimal_bounds(len: u32) -> Option<((u32, u32), (u32, u32))> {
    let mut b: Option<((u32, u32), (u32, u32))> = None;
    for m in 1..=65u32 {
        for d in 0..=m.min(30) {
            if crate::table::decimal_bin_size(m, d) == Some(len) {
                let ((m0, m1), (d0, d1)) = b.unwrap_or(((m, m), (d, d)));
                b = Some(((m0.min(m), m1.max(m)), (d0.min(d), d1.max(d))));
            }
        }
    }
    b
}

/// The column a dictionary row describes, and what the dictionary could
/// not say about it (`None`: the type is exact).
pub fn column(c: &DictCol) -> (Column, Option<std::string::String>) {
    use ColType::*;
    let mt = c.prtype & 0xFF;
    let coll = (c.prtype >> 16) & 0x7FFF;
    let unsigned = c.prtype & DATA_UNSIGNED != 0;
    let int_of_len = |len: u32| match len {
        1 => Tiny,
        2 => Short,
        3 => Int24,
        4 => Long,
        _ => LongLong,
    };
    let mut note: Option<std::string::String> = None;
    let mut fsp = 0;
    let frac = |extra: u32, note: &mut Option<std::string::String>| {
        if extra > 0 {
            *note = Some("fractional seconds: the length gives two digits per byte, the dictionary not which (1 or 2, 3 or 4, 5 or 6); the larger is shown".to_string());
        }
        extra.saturating_mul(2).min(6)
    };
    let t = match c.mtype {
        6 => match mt {
            1 => Tiny,
            2 => Short,
            3 => Long,
            8 => LongLong,
            9 => Int24,
            13 => Year,
            10 | 14 if c.len == 3 => NewDate,
            10 | 14 => Date,
            7 => Timestamp,
            11 => Time,
            12 => DateTime,
            247 | 248 | 254 => {
                note = Some(format!("{NOTE_ENUM_SET}the dictionary holds neither the kind nor the labels; the stored number is shown, not the value"));
                int_of_len(c.len)
            }
            _ => int_of_len(c.len),
        },
        9 => Float,
        10 => Double,
        3 => match mt {
            246 => {
                note = Some(match decimal_bounds(c.len) {
                    Some(((m0, m1), (d0, d1))) => format!(
                        "{NOTE_DECIMAL}precision and scale are not in the dictionary, only the stored length ({} bytes), which DECIMAL(M,D) has for M from {m0} to {m1} and D from {d0} to {d1}: the value cannot be read from it; the stored bytes are shown (a .frm gives the value)",
                        c.len
                    ),
                    None => format!(
                        "{NOTE_DECIMAL}precision and scale are not in the dictionary, and its stored length ({} bytes) is no DECIMAL's; the stored bytes are shown",
                        c.len
                    ),
                });
                String
            }
            16 => {
                note = Some("BIT: the dictionary holds the byte length, not the bits; BIT(8 x bytes) is shown (the same values)".to_string());
                Bit
            }
            12 => {
                fsp = frac(c.len.saturating_sub(5), &mut note);
                DateTime2
            }
            7 => {
                fsp = frac(c.len.saturating_sub(4), &mut note);
                Timestamp2
            }
            11 => {
                fsp = frac(c.len.saturating_sub(3), &mut note);
                Time2
            }
            _ => String,
        },
        4 | 1 | 12 => Varchar,
        2 | 13 => String,
        5 => match (mt, c.len) {
            (255, _) => Geometry,
            (245, _) => Json,
            (_, 9) => TinyBlob,
            (_, 11) => MediumBlob,
            (_, 12) => LongBlob,
            _ => Blob,
        },
        14 => Geometry,
        11 => Decimal,
        m => Unknown(m),
    };
    let mut col = Column::new(&c.name, t);
    col.nullable = c.prtype & DATA_NOT_NULL == 0;
    col.unsigned = unsigned;
    col.fsp = fsp;
    col.is_virtual = c.prtype & DATA_VIRTUAL != 0;
    col.collation_id = match c.mtype {
        1 | 2 | 12 | 13 | 5 if coll != 0 => coll,
        _ => 63,
    };
    col.length = c.len;
    if t == Bit {
        col.length = c.len.saturating_mul(8);
        col.precision = col.length;
    }
    (col, note)
}

/// The definition of a table from its dictionary rows: the columns in
/// table order (virtual ones at their place, `POS` = `(n + 1) << 16 |
/// place`), InnoDB's system columns after them, and the indexes with the
/// fields InnoDB adds (`dict0dict.cc` `dict_index_build_internal_clust`,
/// `dict_index_build_internal_non_clust`). The notes name each column
/// whose type the dictionary does not fully give.
pub fn table_def(
    name: &str,
    schema: &str,
    row_format: RowFormat,
    cols: &[DictCol],
    idxs: &[DictIdx],
) -> (TableDef, Vec<(String, String)>) {
    let mut notes = Vec::new();
    let mut stored: Vec<(u32, Column)> = Vec::new();
    let mut virt: Vec<(u32, Column)> = Vec::new();
    for c in cols {
        let (col, note) = column(c);
        if let Some(n) = note {
            notes.push((c.name.clone(), n));
        }
        if col.is_virtual {
            virt.push((c.pos & 0xFFFF, col));
        } else {
            stored.push((c.pos, col));
        }
    }
    stored.sort_by_key(|(p, _)| *p);
    virt.sort_by_key(|(p, _)| *p);
    let mut columns: Vec<Column> = stored.into_iter().map(|(_, c)| c).collect();
    for (place, c) in virt {
        let at = usize::try_from(place)
            .unwrap_or(usize::MAX)
            .min(columns.len());
        columns.insert(at, c);
    }
    let n_user = columns.len();
    let find =
        |columns: &[Column], n: &str| columns.iter().position(|c| c.name.eq_ignore_ascii_case(n));
    let clust = idxs.iter().find(|i| i.index_type & DICT_CLUSTERED != 0);
    let gen_clust = clust.is_none_or(|i| i.fields.is_empty());
    let sys = |n: &str| {
        let mut c = Column::new(n, ColType::LongLong);
        c.hidden = Hidden::Se;
        c.nullable = false;
        c.unsigned = true;
        c
    };
    let row_id = gen_clust.then(|| {
        columns.push(sys("DB_ROW_ID"));
        columns.len().saturating_sub(1)
    });
    let trx_id = columns.len();
    columns.push(sys("DB_TRX_ID"));
    let roll_ptr = columns.len();
    columns.push(sys("DB_ROLL_PTR"));
    let elements_of = |ix: &DictIdx, columns: &[Column]| -> Vec<IndexElement> {
        ix.fields
            .iter()
            .filter_map(|(n, prefix)| {
                Some(IndexElement {
                    column: find(columns, n)?,
                    prefix_len: (*prefix > 0).then_some(*prefix),
                    hidden: false,
                })
            })
            .collect()
    };
    let clust_key: Vec<IndexElement> = match (clust, row_id) {
        (Some(ix), None) => elements_of(ix, &columns),
        _ => vec![IndexElement {
            column: row_id.unwrap_or(0),
            prefix_len: None,
            hidden: true,
        }],
    };
    let mut indexes = Vec::with_capacity(idxs.len().saturating_add(1));
    let mut ce = clust_key.clone();
    for column in [trx_id, roll_ptr] {
        ce.push(IndexElement {
            column,
            prefix_len: None,
            hidden: true,
        });
    }
    for (i, c) in columns.iter().enumerate().take(n_user) {
        let whole = clust_key
            .iter()
            .any(|e| e.column == i && e.prefix_len.is_none());
        if !whole && !c.is_virtual {
            ce.push(IndexElement {
                column: i,
                prefix_len: None,
                hidden: true,
            });
        }
    }
    indexes.push(IndexDef {
        name: clust.map_or_else(|| "GEN_CLUST_INDEX".to_string(), |i| i.name.clone()),
        kind: IndexKind::Primary,
        id: clust.map(|i| i.id),
        root: clust.and_then(|i| i.root),
        hidden: gen_clust,
        elements: ce,
    });
    for ix in idxs {
        if clust.is_some_and(|c| std::ptr::eq(c, ix)) {
            continue;
        }
        let mut elements = elements_of(ix, &columns);
        let fts = ix.index_type & DICT_FTS != 0;
        if !fts {
            for e in &clust_key {
                let whole = elements
                    .iter()
                    .any(|x| x.column == e.column && x.prefix_len.is_none());
                if !whole {
                    elements.push(IndexElement { hidden: true, ..*e });
                }
            }
        }
        let kind = if fts {
            IndexKind::Fulltext
        } else if ix.index_type & DICT_SPATIAL != 0 {
            IndexKind::Spatial
        } else if ix.index_type & DICT_UNIQUE != 0 {
            IndexKind::Unique
        } else {
            IndexKind::Multiple
        };
        indexes.push(IndexDef {
            name: ix.name.clone(),
            kind,
            id: Some(ix.id),
            root: ix.root,
            hidden: false,
            elements,
        });
    }
    let table = TableDef {
        name: name.to_string(),
        schema: schema.to_string(),
        row_format,
        columns,
        indexes,
        instant_cols: None,
        options: crate::table::TableOptions::default(),
        source: crate::table::DefSource::Dictionary,
    };
    (table, notes)
}
