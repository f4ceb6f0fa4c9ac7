//! MariaDB 10.3+ instant ALTER TABLE: what a clustered index's records look
//! like after `ADD COLUMN` (10.3+), `DROP COLUMN` and column reordering
//! (10.4+) done with `ALGORITHM=INSTANT`, read from the file alone.
//!
//! The server keeps the table definition (`.frm`) current, but the
//! clustered index keeps every record in the shape it was written in:
//!
//! - the root page's type is `FIL_PAGE_TYPE_INSTANT` (18) and the 2 bytes
//!   at `PAGE_HEADER + PAGE_INSTANT` (12) hold `n_core_fields << 3 |
//!   direction`: the index fields every record stores (`page0page.h`
//!   `page_get_instant`, `btr0btr.cc` `btr_set_instant`);
//! - records written before the first instant ALTER keep status 0 and store
//!   the `n_core` fields; later ones have status 4 (`REC_STATUS_INSTANT`)
//!   and say how many they store (`rem0rec.cc` `rec_get_n_add_field`, the
//!   split is in [`crate::row::split`]); fields past a record's count
//!   take the value in the metadata record;
//! - the metadata record is the first record of the leftmost leaf: info
//!   bits `MIN_REC`, status 4. With `DELETED` too (10.4+), a 20-byte BLOB
//!   reference follows DB_ROLL_PTR, to one `FIL_PAGE_TYPE_BLOB` page whose
//!   data is the field map: a 4-byte count of the non-key fields, then 2
//!   bytes per field in record order: `0x8000` dropped (`0x4000` NOT NULL,
//!   low 10 bits 0 = short variable, 1 = long variable, n = fixed n − 1
//!   bytes), else the column's number among the table's stored columns
//!   (`dict0mem.cc` `serialise_columns`, `deserialise_columns`,
//!   `reconstruct_fields`; `btr0cur.cc` `btr_cur_instant_init_low`);
//! - with dropped or reordered columns the root's infimum and the first 7
//!   bytes of its supremum are zero and the supremum's 8th byte is the
//!   bitmap size of core records' NULL flags (`btr_cur_instant_root_init`).
//!
//! [`apply`] reads all of that and gives the clustered index's record
//! layout in physical order: dropped fields become hidden columns
//! `!dropped_N` of the definition (stored, never shown as table columns),
//! and the instantly added columns get the metadata record's values as
//! their defaults.

use crate::error::Error;
/// Defined with the crate's error, re-exported here.
pub use crate::error::InstantErrorKind;
use crate::row::{
    read_external, split, BlobRef, FieldValue, BTR_EXTERN_FIELD_REF_SIZE, LOB_HDR_NEXT_PAGE_NO,
    LOB_HDR_PART_LEN,
};
use crate::table::{ColType, Column, Hidden, InstantDefault, LayoutField, RecordLayout, TableDef};
use crate::zip::{DATA_ROLL_PTR_LEN, DATA_TRX_ID_LEN};
use ibdscope_core::fil::{FilHeader, FIL_PAGE_DATA};
use ibdscope_core::index::{IndexHeader, PAGE_DIRECTION, PAGE_HEADER};
use ibdscope_core::record::{
    instant_root_null_bytes, RecFormat, RecPage, RecType, Visited, INFIMUM_DATA,
    REC_INFO_DELETED_FLAG, REC_INFO_MIN_REC_FLAG, SUPREMUM_DATA,
};
use ibdscope_core::{PageNo, PageType, Tablespace, FIL_NULL};
use ibdscope_prims::bytes::{be_u16, be_u32};

/// `PAGE_HEADER + PAGE_INSTANT`: MariaDB's name for the 2 bytes MySQL
/// calls `PAGE_DIRECTION`.
const PAGE_INSTANT_AT: usize = PAGE_HEADER + PAGE_DIRECTION;
/// `BTR_BLOB_HDR_SIZE`: the part length and the next page.
const BLOB_HDR_SIZE: usize = 8;
/// `REC_MAX_N_FIELDS - 3`: the most non-key fields a map may name.
const MAX_MAP_FIELDS: u32 = 1023 - 3;
/// `DICT_MAX_FIXED_COL_LEN + 1`: the largest dropped-field length code.
const MAX_DROPPED_LEN_CODE: u16 = 768 + 1;
/// Off-page default values read at most this many bytes.
const DEFAULT_CAP: usize = 1 << 20;

/// One entry of the field map.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MapEntry {
    /// The table's stored column with this number (table order, virtual
    /// and InnoDB's hidden columns not counted).
    Column(u16),
    /// A dropped column still stored by old records.
    Dropped {
        /// Declared NOT NULL.
        not_null: bool,
        /// Fixed length, or `None` for variable length.
        fixed_len: Option<u16>,
        /// Variable with a maximum above 255 bytes (2-byte lengths).
        big: bool,
    },
}

/// What the file says about a MariaDB instant ALTER.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MariaInstant {
    /// `n_core_fields`: index fields every record stores.
    pub n_core: u16,
    /// The root's stored NULL-bitmap size of core records (dropped or
    /// reordered columns only).
    pub core_null_bytes: Option<u8>,
    /// The field map (dropped or reordered columns only).
    pub map: Option<Vec<MapEntry>>,
    /// The leftmost leaf, which holds the metadata record.
    pub leaf: PageNo,
    /// Page offset of the metadata record.
    pub metadata: u16,
}

/// Reads the instant metadata of the clustered index whose root is `root`,
/// `None` when the root is an ordinary index page. `key_fixed` is the sum
/// of the fixed lengths of the key fields (variable ones count 0: the
/// server writes them empty in the metadata record), `n_key` their count.
///
/// Errors: [`ErrorKind::Instant`].
pub fn read(
    ts: &Tablespace<'_>,
    root: PageNo,
    n_key: usize,
    key_fixed: usize,
) -> Result<Option<MariaInstant>, Error> {
    read_kind(ts, root, n_key, key_fixed).map_err(InstantErrorKind::into_error)
}

fn read_kind(
    ts: &Tablespace<'_>,
    root: PageNo,
    n_key: usize,
    key_fixed: usize,
) -> Result<Option<MariaInstant>, InstantErrorKind> {
    let page = ts.page(root).ok_or(InstantErrorKind::Page(root))?;
    let fil = FilHeader::new(page).ok_or(InstantErrorKind::Page(root))?;
    if fil.page_type() != PageType::FIL_PAGE_TYPE_INSTANT {
        return Ok(None);
    }
    let n_core = be_u16(page, PAGE_INSTANT_AT).ok_or(InstantErrorKind::Page(root))? >> 3;
    if usize::from(n_core) < n_key.saturating_add(2) {
        return Err(InstantErrorKind::CoreTooSmall { n_core });
    }
    let rp = RecPage::new(page, ts.page_size()).ok_or(InstantErrorKind::Page(root))?;
    let format = rp.format();
    let compact = format == RecFormat::Compact;
    let bytes = |at: usize| page.get(at..at.saturating_add(8));
    let core_null_bytes = match instant_root_null_bytes(page, format) {
        Some(n) => Some(n),
        None if bytes(format.infimum()) == Some(&INFIMUM_DATA[..])
            && bytes(format.supremum()) == Some(&SUPREMUM_DATA[..]) =>
        {
            None
        }
        None => return Err(InstantErrorKind::PseudoRecords),
    };
    let leaf = leftmost_leaf(ts, root, rp.header().index_id())?;
    let lp = RecPage::of(ts, leaf).map_err(|_| InstantErrorKind::Page(leaf))?;
    let mut visited = Visited::new();
    let first = lp.records(&mut visited).and_then(|mut it| loop {
        match it.next() {
            Ok(Some(r)) if r.rec_type == RecType::Infimum => continue,
            Ok(r) => break r,
            Err(_) => break None,
        }
    });
    let Some(meta) = first else {
        return Err(InstantErrorKind::NoMetadata { page: leaf });
    };
    let info = meta.header.info_bits;
    if info & !REC_INFO_DELETED_FLAG & 0xF0 != REC_INFO_MIN_REC_FLAG
        || (compact && meta.rec_type != RecType::Instant)
    {
        return Err(InstantErrorKind::NoMetadata { page: leaf });
    }
    let map = if info & REC_INFO_DELETED_FLAG != 0 {
        let trx_at = if compact {
            key_fixed
        } else {
            let n = u16::try_from(n_key.saturating_sub(1)).unwrap_or(u16::MAX);
            usize::from(
                meta.field(lp.bytes(), n)
                    .ok_or(InstantErrorKind::NoMetadata { page: leaf })?
                    .end,
            )
        };
        let at = usize::from(meta.origin)
            .saturating_add(trx_at)
            .saturating_add(DATA_TRX_ID_LEN + DATA_ROLL_PTR_LEN);
        Some(read_map(ts, leaf, lp.bytes(), at)?)
    } else {
        None
    };
    Ok(Some(MariaInstant {
        n_core,
        core_null_bytes,
        map,
        leaf,
        metadata: meta.origin,
    }))
}

/// The index's leaf without a left sibling: the root when it is a leaf,
/// else the first such page in the file (one header read per page).
fn leftmost_leaf(
    ts: &Tablespace<'_>,
    root: PageNo,
    index_id: ibdscope_core::IndexId,
) -> Result<PageNo, InstantErrorKind> {
    let leaf_of_index = |n: PageNo| {
        let Some(p) = ts.page(n) else { return false };
        let (Some(fil), Some(ix)) = (FilHeader::new(p), IndexHeader::new(p)) else {
            return false;
        };
        matches!(
            fil.page_type(),
            PageType::FIL_PAGE_INDEX | PageType::FIL_PAGE_TYPE_INSTANT
        ) && ix.level() == 0
            && fil.prev().0 == FIL_NULL
            && ix.index_id() == index_id
    };
    if leaf_of_index(root) {
        return Ok(root);
    }
    // An all-zero page is no leaf: the holes of a sparse file are skipped.
    ts.data_pages()
        .map(|(n, _)| n)
        .find(|&n| leaf_of_index(n))
        .ok_or(InstantErrorKind::NoLeftmostLeaf)
}

/// The field map behind the BLOB reference at `at` of the leaf `page`.
fn read_map(
    ts: &Tablespace<'_>,
    leaf: PageNo,
    page: &[u8],
    at: usize,
) -> Result<Vec<MapEntry>, InstantErrorKind> {
    let bad = |page, offset, what| InstantErrorKind::BadBlob { page, offset, what };
    let r: &[u8; BTR_EXTERN_FIELD_REF_SIZE] = page
        .get(at..at.saturating_add(BTR_EXTERN_FIELD_REF_SIZE))
        .and_then(|s| s.try_into().ok())
        .ok_or(bad(leaf, at, "reference past the page"))?;
    let blob = BlobRef::read(r);
    let len = usize::try_from(blob.len).unwrap_or(usize::MAX);
    if be_u32(r, 12) != Some(0) || len == 0 {
        return Err(bad(leaf, at, "length not a small nonzero number"));
    }
    if blob.offset != FIL_PAGE_DATA as u32 || blob.space_id != ts.space_id().0 {
        return Err(bad(leaf, at, "not this space's BLOB page data"));
    }
    let bp = ts
        .page(blob.page)
        .ok_or(bad(leaf, at, "BLOB page past the file"))?;
    let d = FIL_PAGE_DATA;
    if FilHeader::new(bp).map(|h| h.page_type()) != Some(PageType::FIL_PAGE_TYPE_BLOB)
        || be_u32(bp, d + LOB_HDR_NEXT_PAGE_NO) != Some(FIL_NULL)
        || be_u32(bp, d + LOB_HDR_PART_LEN).map(|l| l as usize) != Some(len)
    {
        return Err(bad(
            blob.page,
            d,
            "not one FIL_PAGE_TYPE_BLOB page holding the whole map",
        ));
    }
    let data = bp
        .get(d + BLOB_HDR_SIZE..(d + BLOB_HDR_SIZE).saturating_add(len))
        .ok_or(bad(blob.page, d + BLOB_HDR_SIZE, "map past the page"))?;
    let n = be_u32(data, 0).ok_or(bad(
        blob.page,
        d + BLOB_HDR_SIZE,
        "map shorter than 4 bytes",
    ))?;
    // n < 1020: the sums below cannot overflow
    if n >= MAX_MAP_FIELDS || data.len() < (n as usize).saturating_mul(2).saturating_add(4) {
        return Err(bad(
            blob.page,
            d + BLOB_HDR_SIZE,
            "field count too large for the map",
        ));
    }
    let mut out = Vec::with_capacity(n as usize);
    for i in 0..n as usize {
        let at = i.saturating_mul(2).saturating_add(4);
        let c = be_u16(data, at).unwrap_or(0);
        let ind = c & 0x3FF;
        out.push(if c & 0x8000 != 0 {
            if ind > MAX_DROPPED_LEN_CODE {
                return Err(bad(
                    blob.page,
                    at.saturating_add(d + BLOB_HDR_SIZE),
                    "dropped field length code too large",
                ));
            }
            MapEntry::Dropped {
                not_null: c & 0x4000 != 0,
                fixed_len: ind.checked_sub(1).filter(|&l| l > 0),
                big: ind == 1,
            }
        } else {
            MapEntry::Column(c)
        });
    }
    Ok(out)
}

/// For a MariaDB table whose clustered index was changed by instant
/// ALTER: reads the metadata, adds the dropped fields to `def` as hidden
/// columns, sets the instantly added columns' defaults from the metadata
/// record, and returns the clustered index's layout in physical order.
/// `None` when the index is not instant (use [`TableDef::layout`]).
///
/// Errors: [`ErrorKind::Instant`].
pub fn apply(
    ts: &Tablespace<'_>,
    def: &mut TableDef,
) -> Result<Option<(MariaInstant, RecordLayout)>, Error> {
    apply_kind(ts, def).map_err(InstantErrorKind::into_error)
}

fn apply_kind(
    ts: &Tablespace<'_>,
    def: &mut TableDef,
) -> Result<Option<(MariaInstant, RecordLayout)>, InstantErrorKind> {
    let ix = def.clustered().ok_or(InstantErrorKind::NoRoot)?.clone();
    let root = PageNo(ix.root.ok_or(InstantErrorKind::NoRoot)?);
    // Only an instant root has anything to read (and an unreadable root
    // of another table is the caller's to report).
    if ts
        .page(root)
        .and_then(FilHeader::new)
        .map(|h| h.page_type())
        != Some(PageType::FIL_PAGE_TYPE_INSTANT)
    {
        return Ok(None);
    }
    let compact = RecPage::of(ts, root)
        .map_err(|_| InstantErrorKind::Page(root))?
        .format()
        == RecFormat::Compact;
    let base = def
        .layout(&ix, compact)
        .map_err(|e| InstantErrorKind::MapMismatch {
            what: format!("the definition's layout: {e}"),
        })?;
    let n_key = base.n_unique;
    let key_fixed = base
        .fields
        .iter()
        .take(n_key)
        .map(|f| f.fixed_len.unwrap_or(0) as usize)
        .sum();
    let Some(inst) = read_kind(ts, root, n_key, key_fixed)? else {
        return Ok(None);
    };
    let n_first = n_key.saturating_add(2);
    let mut fields: Vec<LayoutField> = base.fields.iter().take(n_first).copied().collect();
    if let Some(map) = &inst.map {
        // The table's stored columns, numbered as the map numbers them.
        let stored: Vec<usize> = def
            .columns
            .iter()
            .enumerate()
            .filter(|(_, c)| !c.is_virtual && c.sys().is_none())
            .map(|(i, _)| i)
            .collect();
        let non_key = base.fields.len().saturating_sub(n_first);
        if map.len() < non_key {
            return Err(InstantErrorKind::MapMismatch {
                what: format!(
                    "{} fields, the definition stores {non_key} non-key columns",
                    map.len()
                ),
            });
        }
        let mut n_dropped = 0usize;
        for (k, e) in map.iter().enumerate() {
            match *e {
                MapEntry::Column(c) => {
                    let col = stored.get(usize::from(c)).copied().ok_or_else(|| {
                        InstantErrorKind::MapMismatch {
                            what: format!(
                                "entry {k} names column {c}, the table has {}",
                                stored.len()
                            ),
                        }
                    })?;
                    let f = base
                        .fields
                        .iter()
                        .skip(n_first)
                        .find(|f| f.column == col)
                        .ok_or_else(|| InstantErrorKind::MapMismatch {
                            what: format!(
                                "entry {k}: column {} is not a non-key field of the index",
                                def.columns.get(col).map_or("?", |c| c.name.as_str())
                            ),
                        })?;
                    fields.push(*f);
                }
                MapEntry::Dropped {
                    not_null,
                    fixed_len,
                    big,
                } => {
                    n_dropped = n_dropped.saturating_add(1);
                    let mut c = Column::new(
                        &format!("!dropped_{n_dropped}"),
                        if fixed_len.is_some() {
                            ColType::String
                        } else {
                            ColType::Varchar
                        },
                    );
                    c.length = fixed_len.map_or(if big { 65535 } else { 255 }, u32::from);
                    c.nullable = !not_null;
                    c.hidden = Hidden::Se;
                    def.columns.push(c);
                    fields.push(LayoutField {
                        column: def.columns.len().saturating_sub(1),
                        fixed_len: fixed_len.map(u32::from),
                        nullable: !not_null,
                        big,
                        version_added: 0,
                        version_dropped: None,
                        prefix_len: None,
                        instant_default: false,
                    });
                }
            }
        }
    } else {
        fields.extend(base.fields.iter().skip(n_first).copied());
    }
    let n_core = usize::from(inst.n_core);
    if n_core > fields.len() {
        return Err(InstantErrorKind::MapMismatch {
            what: format!(
                "{n_core} core fields, the index has {} fields",
                fields.len()
            ),
        });
    }
    let layout = RecordLayout {
        fields,
        compact,
        clustered: true,
        row_versions: false,
        n_before_instant: Some(n_core),
        n_unique: n_key,
    };
    set_defaults(ts, def, &inst, &layout, n_first)?;
    Ok(Some((inst, layout)))
}

/// The metadata record's values of the fields past the core ones become
/// those columns' defaults (`btr_cur_instant_init_low`).
fn set_defaults(
    ts: &Tablespace<'_>,
    def: &mut TableDef,
    inst: &MariaInstant,
    layout: &RecordLayout,
    n_first: usize,
) -> Result<(), InstantErrorKind> {
    let meta_err = |what: String| InstantErrorKind::Metadata {
        page: inst.leaf,
        what,
    };
    // With a map, the record carries the BLOB reference as an extra field
    // right after DB_ROLL_PTR: 20 bytes, no length byte, no NULL bit
    // (`rec_init_offsets_comp_ordinary` with `mblob`).
    let blob = inst.map.is_some();
    let mut with_blob = layout.clone();
    if blob {
        def.columns.push({
            let mut c = Column::new("!metadata_blob", ColType::Blob);
            c.nullable = false;
            c.hidden = Hidden::Se;
            c
        });
        with_blob.fields.insert(
            n_first,
            LayoutField {
                column: def.columns.len().saturating_sub(1),
                // REDUNDANT stores its end offset, flagged external
                fixed_len: layout.compact.then_some(BTR_EXTERN_FIELD_REF_SIZE as u32),
                nullable: false,
                big: !layout.compact,
                version_added: 0,
                version_dropped: None,
                prefix_len: None,
                instant_default: false,
            },
        );
    }
    let lp = RecPage::of(ts, inst.leaf).map_err(|_| InstantErrorKind::Page(inst.leaf))?;
    let rec = lp
        .record_at(inst.metadata)
        .ok_or_else(|| meta_err("not at its offset".into()))?;
    let mut parts = Vec::new();
    split(&lp, &rec, &with_blob, &mut parts).map_err(|e| meta_err(e.to_string()))?;
    if blob {
        def.columns.pop();
    }
    let mut buf = Vec::new();
    for (i, f) in layout
        .fields
        .iter()
        .enumerate()
        .skip(usize::from(inst.n_core))
    {
        let part = parts
            .get(i.saturating_add(usize::from(blob)))
            .ok_or_else(|| meta_err(format!("field {i} missing")))?;
        let value = match part.value {
            FieldValue::Null => InstantDefault::Null,
            FieldValue::Inline { .. } => {
                InstantDefault::Bytes(part.local(lp.bytes()).unwrap_or_default().to_vec())
            }
            FieldValue::External { blob, .. } => {
                buf.clear();
                let mut v = part.local(lp.bytes()).unwrap_or_default().to_vec();
                read_external(ts, &blob, DEFAULT_CAP, &mut buf)
                    .map_err(|e| meta_err(format!("field {i}: off-page default: {e}")))?;
                v.extend_from_slice(&buf);
                InstantDefault::Bytes(v)
            }
            FieldValue::Default | FieldValue::Dropped => {
                return Err(meta_err(format!(
                    "field {i} is not stored (the server calls that corrupt)"
                )))
            }
        };
        if let Some(c) = def.columns.get_mut(f.column) {
            c.instant_default = Some(value);
        }
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use crate::frm::Frm;
    use std::path::PathBuf;

    fn fixture(name: &str) -> (Vec<u8>, Vec<u8>) {
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/mariadb1011");
        (
            std::fs::read(dir.join(format!("{name}.ibd"))).unwrap(),
            std::fs::read(dir.join(format!("{name}.frm"))).unwrap(),
        )
    }

    /// The `.frm`'s definition with the roots the file's space map finds.
    fn definition(ts: &Tablespace<'_>, frm: &[u8], name: &str) -> TableDef {
        let mut def = Frm::parse(frm).unwrap().to_table_def(name, "fx");
        let roots: Vec<(u64, u32)> =
            ibdscope_core::SpaceMap::build(ts, &ibdscope_core::Engine::default())
                .indexes
                .iter()
                .map(|i| (i.index_id.0, i.root.0))
                .collect();
        def.attach_roots(&roots);
        def
    }

    /// fixtures/gen/datagen.py `instant_sql` made both tables with
    /// `id INT PRIMARY KEY, a VARCHAR(100) NOT NULL, b INT NOT NULL, s
    /// CHAR(8) NULL`, then instantly added `c`, `dd`, dropped `b`, added
    /// `e` after `id` (the server's SHOW CREATE TABLE, rows/*.sql, has
    /// `id, e, a, s, c, dd`). So: 6 core fields (id, DB_TRX_ID,
    /// DB_ROLL_PTR, a, b, s), one NULL bit among them (s), and a map in
    /// the order the fields were added: a, b (dropped, NOT NULL, 4 bytes),
    /// s, c, dd, e, numbered by the current column order.
    #[test]
    fn metadata_of_the_instant_fixtures() {
        for name in ["instant", "instant_redundant"] {
            let (ibd, frm) = fixture(name);
            let ts = Tablespace::new(&ibd).unwrap();
            let mut def = definition(&ts, &frm, name);
            let (inst, layout) = apply(&ts, &mut def).unwrap().expect(name);
            assert_eq!(inst.n_core, 6, "{name}");
            assert_eq!(inst.core_null_bytes, Some(1), "{name}");
            let col = |n: &str| {
                let stored: Vec<&str> = def
                    .columns
                    .iter()
                    .filter(|c| !c.is_virtual && c.sys().is_none() && c.hidden == Hidden::Visible)
                    .map(|c| c.name.as_str())
                    .collect();
                MapEntry::Column(stored.iter().position(|&c| c == n).unwrap() as u16)
            };
            let dropped = MapEntry::Dropped {
                not_null: true,
                fixed_len: Some(4),
                big: false,
            };
            assert_eq!(
                inst.map.as_deref().unwrap(),
                &[col("a"), dropped, col("s"), col("c"), col("dd"), col("e")],
                "{name}"
            );
            let names: Vec<&str> = layout
                .fields
                .iter()
                .map(|f| def.columns[f.column].name.as_str())
                .collect();
            assert_eq!(
                names,
                [
                    "id",
                    "DB_TRX_ID",
                    "DB_ROLL_PTR",
                    "a",
                    "!dropped_1",
                    "s",
                    "c",
                    "dd",
                    "e"
                ],
                "{name}"
            );
            // the defaults the ALTERs gave: c 'dflt-c', dd 42, e NULL
            let default = |n: &str| {
                def.columns
                    .iter()
                    .find(|c| c.name == n)
                    .unwrap()
                    .instant_default
                    .clone()
            };
            assert_eq!(
                default("c"),
                Some(InstantDefault::Bytes(b"dflt-c".to_vec()))
            );
            assert_eq!(
                default("dd"),
                Some(InstantDefault::Bytes(
                    (42i32 as u32 ^ 0x8000_0000).to_be_bytes().to_vec()
                ))
            );
            assert_eq!(default("e"), Some(InstantDefault::Null));
        }
    }

    /// Every other fixture's clustered index is not instant.
    #[test]
    fn ordinary_roots_are_not_instant() {
        let (ibd, frm) = fixture("rf_dynamic");
        let ts = Tablespace::new(&ibd).unwrap();
        let mut def = definition(&ts, &frm, "rf_dynamic");
        assert!(apply(&ts, &mut def).unwrap().is_none());
    }
}
