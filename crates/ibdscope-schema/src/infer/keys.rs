//! Secondary indexes tied to the clustered index's inferred columns.
//!
//! A secondary index's leaf record is its key's columns, then the
//! clustered key's columns that the key does not hold already
//! (`dict_index_build_internal_non_clust`, dict0dict.cc, MySQL 8.0 and
//! MariaDB 10.11; format.md § "Inferring columns"). So each secondary
//! index is read as a sequence of the clustered index's inferred columns
//! whose storage (fixed width, variable, NULL-able) fits the secondary
//! index's own layout, ending with the clustered key; every sequence that
//! fits is checked by value: each secondary record's clustered key finds
//! its clustered record, and the key's columns must hold the same bytes
//! there. The sequence whose values agree is the index's key; two that
//! agree alike are both named (`ambiguous`).
//!
//! Bounds: at most `MAX_SEQS` sequences per index are tried, each against
//! at most `MAX_CHECK` secondary records.

use super::{
    Cell, Confidence, IndexInference, IndexPages, Inference, Row, Storage, Table, ROLL_LEN, TRX_LEN,
};
use ibdscope_core::RecFormat;
use std::collections::BTreeMap;

/// Some columns' bytes in one record (`None`: NULL or off-page).
type Values<'a> = Vec<Option<&'a [u8]>>;

/// Sequences of clustered columns tried per secondary index.
const MAX_SEQS: usize = 2000;
/// Secondary records each sequence is checked against.
const MAX_CHECK: usize = 1000;
/// Columns a secondary key is tried with (MAX_REF_PARTS is 16).
const MAX_KEY_COLS: usize = 16;
/// Records whose key values must agree for a tie of `high` confidence.
const MIN_AGREE: usize = 20;
/// REC_INFO_DELETED_FLAG (rem0rec.h), in the info bits' high nibble.
const DELETED: u8 = 0x20;

/// One clustered column, as the secondary index would store it.
#[derive(Clone, Copy)]
struct ColShape {
    /// The clustered field (`None`: bytes of the NOT NULL fixed-width run).
    field: Option<usize>,
    storage: Storage,
    nullable: bool,
}

/// Where each column of `seq` lies in the record `row`: its bytes, or
/// `None` when NULL or stored off-page (`shapes[c].field` says whether a
/// column is a field of its own or bytes of the NOT NULL fixed run, whose
/// offset is the bytes of the run before it past the field it precedes).
fn bytes_of<'a>(
    pages: &'a [super::PageRecs],
    row: &Row,
    seq: &[usize],
    shapes: &[ColShape],
    own_field: &dyn Fn(usize, usize) -> Option<usize>,
    gap: Option<(usize, u32)>,
) -> Option<Values<'a>> {
    let (pi, o, cells) = row;
    let p = pages.get(*pi)?;
    let before = |s: usize| -> u32 {
        match cells.get(s) {
            Some(c) => c.at,
            None => cells
                .last()
                .map_or(0, |c: &Cell| c.at.saturating_add(c.len)),
        }
    };
    let mut b = 0u32;
    let mut s = 0usize;
    let mut out = Vec::with_capacity(seq.len());
    for (pos, &c) in seq.iter().enumerate() {
        if gap.is_some_and(|g| g.0 == pos) {
            b = b.checked_add(gap.map_or(0, |g| g.1))?;
        }
        let sh = shapes.get(c)?;
        match own_field(pos, c) {
            None => {
                let Storage::Fixed(w) = sh.storage else {
                    return None;
                };
                let at = o.checked_add(before(s))?.checked_add(b)? as usize;
                out.push(Some(p.bytes.get(at..at.checked_add(w as usize)?)?));
                b = b.checked_add(w)?;
            }
            Some(k) => {
                let cell = cells.get(k)?;
                s = k.saturating_add(1);
                if cell.null || cell.ext {
                    out.push(None);
                    continue;
                }
                let at = o.checked_add(cell.at)?.checked_add(b)? as usize;
                out.push(Some(p.bytes.get(at..at.checked_add(cell.len as usize)?)?));
            }
        }
    }
    Some(out)
}

/// The clustered columns' bytes of a record in clustered order (COMPACT:
/// DB_TRX_ID and DB_ROLL_PTR, 13 bytes of the NOT NULL fixed-width run,
/// follow the key's `n_key` columns).
fn clustered_bytes<'a>(
    pages: &'a [super::PageRecs],
    row: &Row,
    shapes: &[ColShape],
    n_key: usize,
    redundant: bool,
) -> Option<Values<'a>> {
    let seq: Vec<usize> = (0..shapes.len()).collect();
    let gap = (!redundant).then_some((n_key, TRX_LEN + ROLL_LEN));
    bytes_of(
        pages,
        row,
        &seq,
        shapes,
        &|_, c| shapes.get(c).and_then(|s| s.field),
        gap,
    )
}

/// Whether the record at `origin` is delete-marked.
fn deleted(pages: &[super::PageRecs], row: &Row, format: RecFormat) -> bool {
    let back = match format {
        RecFormat::Redundant => 6,
        RecFormat::Compact => 5,
    };
    let (pi, o, _) = row;
    (o.checked_sub(back))
        .and_then(|at| pages.get(*pi)?.bytes.get(at as usize).copied())
        .is_some_and(|b| b & DELETED != 0)
}

/// Sequences of clustered columns (the key's, then the clustered key's
/// not among them) whose storage fits the secondary table `st`.
fn sequences(shapes: &[ColShape], n_key: usize, st: &Table, redundant: bool) -> Vec<Vec<usize>> {
    let fits = |c: &ColShape, f: &(Storage, bool)| -> bool {
        match (c.storage, f.0) {
            (Storage::Fixed(a), Storage::Fixed(b)) => a == b && (redundant || c.nullable == f.1),
            (Storage::Variable { .. }, Storage::Variable { .. }) => redundant || c.nullable == f.1,
            _ => false,
        }
    };
    let run = st.run.unwrap_or(0);
    let mut out = Vec::new();
    // (sequence, next secondary field, run bytes used)
    let mut stack: Vec<(Vec<usize>, usize, u32)> = vec![(Vec::new(), 0, 0)];
    let mut visited = 0usize;
    while let Some((seq, s, b)) = stack.pop() {
        visited = visited.saturating_add(1);
        if visited > MAX_SEQS.saturating_mul(20) || out.len() >= MAX_SEQS {
            break;
        }
        if !seq.is_empty() {
            // The clustered key's columns not in the key close it.
            let mut full = seq.clone();
            full.extend((0..n_key).filter(|c| !seq.contains(c)));
            if consumes(&full, shapes, st, run, &fits) {
                out.push(seq.clone());
            }
        }
        if seq.len() >= MAX_KEY_COLS {
            continue;
        }
        for (c, sh) in shapes.iter().enumerate().rev() {
            if seq.contains(&c) {
                continue;
            }
            let next = if sh.field.is_none() && !redundant {
                let Storage::Fixed(w) = sh.storage else {
                    continue;
                };
                let nb = b.saturating_add(w);
                if nb > run {
                    continue;
                }
                (s, nb)
            } else {
                match st.fields.get(s) {
                    Some(f) if fits(sh, f) => (s.saturating_add(1), b),
                    _ => continue,
                }
            };
            let mut seq2 = seq.clone();
            seq2.push(c);
            stack.push((seq2, next.0, next.1));
        }
    }
    out
}

/// Whether `full` (clustered columns) reads exactly the fields and run
/// bytes of the secondary table `st`.
fn consumes(
    full: &[usize],
    shapes: &[ColShape],
    st: &Table,
    run: u32,
    fits: &dyn Fn(&ColShape, &(Storage, bool)) -> bool,
) -> bool {
    let redundant = st.run.is_none();
    let (mut s, mut b) = (0usize, 0u32);
    for &c in full {
        let Some(sh) = shapes.get(c) else {
            return false;
        };
        if sh.field.is_none() && !redundant {
            match sh.storage {
                Storage::Fixed(w) => b = b.saturating_add(w),
                Storage::Variable { .. } => return false,
            }
        } else {
            match st.fields.get(s) {
                Some(f) if fits(sh, f) => s = s.saturating_add(1),
                _ => return false,
            }
        }
    }
    s == st.fields.len() && b == run
}

/// The secondary field each position of `full` is, in `st` (`None`: run
/// bytes).
fn own_fields(full: &[usize], shapes: &[ColShape], redundant: bool) -> Vec<Option<usize>> {
    let mut s = 0usize;
    full.iter()
        .map(|&c| {
            let run = !redundant && shapes.get(c).is_some_and(|sh| sh.field.is_none());
            if run {
                None
            } else {
                s = s.saturating_add(1);
                Some(s.saturating_sub(1))
            }
        })
        .collect()
}

/// Ties each secondary index of `out` to the clustered columns.
/// `clustered`: the clustered index's pages and table; `fields`: each
/// inferred column's clustered field (`None`: run bytes); `secondaries`:
/// each secondary index's position in `out.indexes`, pages and table.
pub(super) fn tie(
    out: &mut Inference,
    clustered: (&IndexPages, &Table),
    fields: &[Option<usize>],
    secondaries: &[(usize, &IndexPages, Table)],
) {
    let redundant = out.format == RecFormat::Redundant;
    let shapes: Vec<ColShape> = (out.columns.iter())
        .zip(fields)
        .map(|(c, &field)| ColShape {
            field,
            storage: c.storage,
            nullable: c.nullable,
        })
        .collect();
    if shapes.len() != out.columns.len() || out.n_key == 0 {
        return;
    }
    let n_key = out.n_key;
    // The clustered records by their key's bytes.
    let (cix, ct) = clustered;
    let mut by_key: BTreeMap<Values<'_>, Values<'_>> = BTreeMap::new();
    for row in &ct.rows {
        if deleted(&cix.leaves, row, out.format) {
            continue;
        }
        if let Some(v) = clustered_bytes(&cix.leaves, row, &shapes, n_key, redundant) {
            by_key.insert(v.get(..n_key).unwrap_or(&[]).to_vec(), v);
        }
    }
    for (pos, six, st) in secondaries {
        let mut seqs = sequences(&shapes, n_key, st, redundant);
        seqs.sort_by_key(Vec::len);
        let rows: Vec<&Row> = (st.rows.iter())
            .filter(|r| !deleted(&six.leaves, r, out.format))
            .take(MAX_CHECK)
            .collect();
        // (agreeing records, of them with a non-NULL key value, found)
        let mut agreed: Vec<(usize, usize, usize, Vec<usize>)> = Vec::new();
        for seq in seqs {
            let mut full = seq.clone();
            full.extend((0..n_key).filter(|c| !seq.contains(c)));
            let own = own_fields(&full, &shapes, redundant);
            let (mut found, mut agree, mut nonnull) = (0usize, 0usize, 0usize);
            for row in &rows {
                let Some(v) = bytes_of(
                    &six.leaves,
                    row,
                    &full,
                    &shapes,
                    &|p, _| own.get(p).copied().flatten(),
                    None,
                ) else {
                    continue;
                };
                // The clustered key, in key order, from the tail or the key.
                let key: Vec<Option<&[u8]>> = (0..n_key)
                    .map(|c| {
                        full.iter()
                            .position(|&x| x == c)
                            .and_then(|p| v.get(p)?.as_ref().copied())
                    })
                    .collect();
                let Some(cv) = by_key.get(&key) else { continue };
                found = found.saturating_add(1);
                let same = seq.iter().enumerate().all(|(p, &c)| v.get(p) == cv.get(c));
                // More than one in a hundred of 100 found disagree: not
                // this sequence (the rest need not be read).
                if !same && found.saturating_sub(agree) > found.max(100) / 100 {
                    break;
                }
                if same {
                    agree = agree.saturating_add(1);
                    if seq
                        .iter()
                        .enumerate()
                        .any(|(p, _)| v.get(p).is_some_and(Option::is_some))
                    {
                        nonnull = nonnull.saturating_add(1);
                    }
                }
            }
            // Every record found agrees (or all but one in a hundred: a
            // record whose clustered row was changed after the sample).
            // A key that ends with clustered key columns is the same
            // index as the key without them (the same fields in the same
            // order): the shortest is kept.
            let same_index = agreed.iter().any(|a| {
                let mut f = a.3.clone();
                f.extend((0..n_key).filter(|c| !a.3.contains(c)));
                f == full
            });
            if found > 0 && agree.saturating_mul(100) >= found.saturating_mul(99) && !same_index {
                agreed.push((agree, nonnull, found, seq));
            }
        }
        agreed.sort_by_key(|a| std::cmp::Reverse((a.1, a.0)));
        let Some(ix) = out.indexes.get_mut(*pos) else {
            continue;
        };
        let name = |seq: &[usize]| -> String {
            seq.iter()
                .map(|&c| format!("c{}", c.saturating_add(1)))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let Some((agree, nonnull, found, seq)) = agreed.first().cloned() else {
            ix.key_evidence = format!(
                "not tied: no sequence of the clustered columns that fits this index's layout \
                 reads the same values in the records whose clustered key was found ({} rows \
                 read)",
                rows.len()
            );
            continue;
        };
        let rivals: Vec<String> = (agreed.iter().skip(1))
            .filter(|a| a.1 == nonnull)
            .map(|a| format!("({})", name(&a.3)))
            .collect();
        ix.key_confidence = if !rivals.is_empty() {
            Confidence::Ambiguous
        } else if nonnull >= MIN_AGREE {
            Confidence::High
        } else {
            Confidence::Low
        };
        ix.key_evidence = format!(
            "{agree} of {found} records found by their clustered key hold the same values \
             ({nonnull} not NULL){}",
            if rivals.is_empty() {
                String::new()
            } else {
                format!("; or {}", rivals.join(", or "))
            }
        );
        ix.key = seq;
    }
}

/// The statement's key lines: `KEY kN (…)` for each secondary index tied.
pub(super) fn key_lines(
    indexes: &[IndexInference],
    columns: &[super::InferredColumn],
) -> Vec<String> {
    let mut out = Vec::new();
    for (n, ix) in indexes.iter().skip(1).enumerate() {
        if ix.key.is_empty() {
            continue;
        }
        let cols: Option<Vec<String>> = (ix.key.iter())
            .map(|&c| columns.get(c).map(|x| format!("`{}`", x.name)))
            .collect();
        let Some(cols) = cols else { continue };
        let comment: String = format!("{}: {}", ix.key_confidence.word(), ix.key_evidence)
            .chars()
            .map(|ch| {
                if ch == '\'' || ch.is_control() {
                    ' '
                } else {
                    ch
                }
            })
            .collect();
        out.push(format!(
            "  KEY `k{}` ({}) COMMENT '{comment}'",
            n.saturating_add(1),
            cols.join(",")
        ));
    }
    out
}
