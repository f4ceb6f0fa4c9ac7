//! A partial definition completed from the records: the InnoDB dictionary
//! of MySQL ≤ 5.7 and MariaDB (SYS_COLUMNS) gives a DECIMAL's stored
//! length, not its precision and scale (`DATA_FIXBINARY` with
//! `MYSQL_TYPE_NEWDECIMAL`, data0type.h; [`crate::dictdef`]); with no
//! `.frm`, the values would be shown as their stored bytes. Only what is
//! missing is filled: the column's bytes are read from the clustered
//! index's leaves with the dictionary's own layout (every other column as
//! the dictionary says), and the DECIMAL digit groups of those bytes give
//! the scale and the fewest digits that hold every value
//! ([`super::types::decimal_cand`], format.md § "Inferring columns").
//! The scale is filled only when one scale fits every value and the fit
//! is telling (20 values or more, a later digit group filled to a tenth of
//! its range): otherwise the bytes stay shown and the note says why.
//!
//! ENUM and SET labels are in no record (only the stored numbers): those
//! columns' notes get the range of numbers seen, nothing more.
//!
//! Bounds: at most `MAX_PAGES` leaf pages and `MAX_VALUES` values per
//! column.

use crate::dictdef::{NOTE_DECIMAL, NOTE_ENUM_SET};
use crate::row::{split, Field};
use crate::table::{ColType, TableDef};
use ibdscope_core::{PageNo, RecFormat, RecPage, Tablespace, Visited};

/// Leaf pages read.
const MAX_PAGES: u32 = 2048;
/// Values read per column.
const MAX_VALUES: usize = 5000;

/// Completes the DECIMAL columns of `t` (a definition from the dictionary)
/// whose `notes` say their precision and scale are missing, from the
/// records of `ts`; rewrites their notes to say what was inferred and from
/// how many values. Returns the columns completed.
pub fn complete_from_records(
    ts: &Tablespace<'_>,
    t: &mut TableDef,
    notes: &mut [(String, String)],
) -> Vec<String> {
    let wanted: Vec<usize> = (notes.iter())
        .filter(|(_, n)| n.starts_with(NOTE_DECIMAL) || n.starts_with(NOTE_ENUM_SET))
        .filter_map(|(c, _)| t.columns.iter().position(|x| x.name == *c))
        .collect();
    if wanted.is_empty() {
        return Vec::new();
    }
    let Some(vals) = column_values(ts, t, &wanted) else {
        return Vec::new();
    };
    let mut done = Vec::new();
    for (&ci, v) in wanted.iter().zip(&vals) {
        let Some(col) = t.columns.get_mut(ci) else {
            continue;
        };
        let Some(note) = notes.iter_mut().find(|(c, _)| *c == col.name) else {
            continue;
        };
        let refs: Vec<&[u8]> = v.iter().map(Vec::as_slice).collect();
        if note.1.starts_with(NOTE_ENUM_SET) {
            let nums: Vec<u64> = refs.iter().map(|b| super::types::int_val(b)).collect();
            if let (Some(lo), Some(hi)) = (nums.iter().min(), nums.iter().max()) {
                note.1.push_str(&format!(
                    "; the records hold the numbers {lo} to {hi} ({} values; the labels are in \
                     no record)",
                    nums.len()
                ));
            }
            continue;
        }
        if col.col_type != ColType::String {
            continue;
        }
        let w = col.length;
        let Some(cand) = super::types::decimal_cand(w, &refs) else {
            continue;
        };
        let ps = parse_decimal(&cand.sql);
        let telling = super::types::telling(&cand);
        match ps {
            Some((p, s)) if cand.alts.is_empty() && telling => {
                col.col_type = ColType::NewDecimal;
                col.precision = p;
                col.scale = s;
                // The stored width stays the dictionary's: the fewest
                // digits of that width.
                note.1 = format!(
                    "DECIMAL(M,{s}): precision and scale inferred from {} values (not in the \
                     dictionary): the scale is {s} (one scale's digit groups hold every value), \
                     M at least {p} (the same {w} bytes hold up to {} digits); the values are \
                     read with it",
                    refs.len(),
                    max_digits(w, s).unwrap_or(p)
                );
                done.push(col.name.clone());
            }
            _ => {
                note.1.push_str(&format!(
                    "; the records ({} values) do not tell the scale: {}",
                    refs.len(),
                    if cand.alts.is_empty() {
                        format!("{} fits, on too little evidence", cand.sql)
                    } else {
                        format!(
                            "{} fit alike",
                            [cand.sql.clone()]
                                .iter()
                                .chain(&cand.alts)
                                .cloned()
                                .collect::<Vec<_>>()
                                .join(", ")
                        )
                    }
                ));
            }
        }
    }
    done
}

/// `decimal(p,s)` → (p, s).
fn parse_decimal(sql: &str) -> Option<(u32, u32)> {
    let inner = sql.strip_prefix("decimal(")?.strip_suffix(')')?;
    let (p, s) = inner.split_once(',')?;
    Some((p.trim().parse().ok()?, s.trim().parse().ok()?))
}

/// The most digits a DECIMAL of scale `s` holds in `w` bytes.
fn max_digits(w: u32, s: u32) -> Option<u32> {
    (1..=65u32)
        .filter(|&p| p >= s && crate::table::decimal_bin_size(p, s) == Some(w))
        .max()
}

/// The stored bytes of the columns `cols` in the clustered index's leaf
/// records (live, not delete-marked, not NULL), split with the
/// definition's own layout.
fn column_values(ts: &Tablespace<'_>, t: &TableDef, cols: &[usize]) -> Option<Vec<Vec<Vec<u8>>>> {
    let ix = t.clustered()?;
    let root = RecPage::of(ts, PageNo(ix.root?)).ok()?;
    let id = root.header().index_id();
    let layout = t.layout(ix, root.format() == RecFormat::Compact).ok()?;
    let mut out: Vec<Vec<Vec<u8>>> = vec![Vec::new(); cols.len()];
    let mut fields: Vec<Field> = Vec::new();
    let mut zip = Vec::new();
    let mut leaves = 0u32;
    for n in 0..ts.n_pages() {
        if leaves >= MAX_PAGES || out.iter().all(|v| v.len() >= MAX_VALUES) {
            break;
        }
        let Ok(rp) = RecPage::of(ts, PageNo(n)) else {
            continue;
        };
        if rp.header().index_id() != id || rp.header().level() != 0 {
            continue;
        }
        leaves = leaves.saturating_add(1);
        let logical = rp.logical_size();
        let bytes: Vec<u8> = if rp.is_compressed() {
            if crate::zip::decompress(rp.bytes(), logical as usize, &mut zip).is_err() {
                continue;
            }
            zip.clone()
        } else {
            rp.bytes().to_vec()
        };
        let Some(rp) = RecPage::new(&bytes, logical) else {
            continue;
        };
        let mut visited = Visited::new();
        let Some(mut it) = rp.records(&mut visited) else {
            continue;
        };
        while let Ok(Some(r)) = it.next() {
            if !r.is_user() {
                continue;
            }
            let Ok(info) = split(&rp, &r, &layout, &mut fields) else {
                continue;
            };
            if info.deleted {
                continue;
            }
            for (k, &ci) in cols.iter().enumerate() {
                let Some(v) = out.get_mut(k) else { continue };
                if v.len() >= MAX_VALUES {
                    continue;
                }
                if let Some(b) = fields
                    .iter()
                    .find(|f| f.column == ci)
                    .and_then(|f| f.local(&bytes))
                {
                    v.push(b.to_vec());
                }
            }
        }
    }
    Some(out)
}
