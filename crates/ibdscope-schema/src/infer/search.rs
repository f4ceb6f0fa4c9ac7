//! The storage search: REDUNDANT records' own field offsets, and the
//! COMPACT hypothesis search over NULL bitmaps, lengths and record
//! extents (the module's documentation says how sure each is).

use super::*;

pub(super) fn redundant(ix: &IndexPages) -> Result<Table, String> {
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
pub(super) enum Item {
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
pub(super) fn signature(items: &[Item]) -> (Vec<(Item, usize)>, Vec<usize>) {
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
pub(super) struct RecState {
    /// Bytes of lengths read (below the NULL bitmap).
    lens: u32,
    /// Bytes of variable-length data.
    var: u32,
    /// NULL-able fixed fields not NULL.
    nfix: u32,
}

pub(super) struct Search<'p> {
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
    /// The first record of each tiled page in the search (its header
    /// starts at PAGE_NEW_SUPREMUM_END): (record, its bytes of lengths,
    /// its NULL bits as a mask).
    anchors: Vec<(usize, u32, u128)>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Solved {
    a: u32,
    widths: Vec<u32>,
    tight: u32,
    pairs: u32,
}

/// Every record of `pages` as (page, position), in page order.
fn all_records(pages: &[PageRecs]) -> impl Iterator<Item = (usize, usize)> + '_ {
    (pages.iter().enumerate()).flat_map(|(pi, p)| (0..p.origins.len()).map(move |i| (pi, i)))
}

impl<'p> Search<'p> {
    /// A search over `recs` of `pages` with a bitmap of `nb` bytes, `nn`
    /// NULL-able fields and `amin` bytes the system columns take; no
    /// hypothesis visited yet, no anchors.
    fn new(
        pages: &'p [PageRecs],
        recs: Vec<(usize, usize)>,
        nb: usize,
        nn: usize,
        amin: u32,
    ) -> Self {
        Search {
            pages,
            recs,
            nb,
            nn,
            amin,
            nodes: 0,
            first_at: None,
            found: Vec::new(),
            anchors: Vec::new(),
        }
    }
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

    /// The anchors of this bitmap width: on a tiled page (no garbage, no
    /// free list) the records fill the heap from PAGE_NEW_SUPREMUM_END, so
    /// the first record's bytes of lengths are its origin less
    /// PAGE_NEW_SUPREMUM_END, the 5 header bytes and the bitmap, exactly.
    fn anchors(&self) -> Vec<(usize, u32, u128)> {
        let mut out = Vec::new();
        for r in 0..self.recs.len() {
            let Some((p, 0)) = self.page(r) else { continue };
            if !p.tiled {
                continue;
            }
            let t = self
                .origin(r)
                .checked_sub(PAGE_NEW_SUPREMUM_END)
                .and_then(|x| x.checked_sub(EXTRA))
                .and_then(|x| x.checked_sub(self.nb))
                .and_then(|x| u32::try_from(x).ok());
            // More than two bytes for each of REC_MAX_N_FIELDS: the page
            // is not what its header says; no anchor.
            let Some(t) = t.filter(|&t| t as usize <= MAX_FIELDS.saturating_mul(2)) else {
                continue;
            };
            let mut nulls = 0u128;
            for bit in 0..self.nb.saturating_mul(8).min(128) {
                if self.null_bit(r, bit) {
                    nulls |= 1u128 << bit;
                }
            }
            out.push((r, t, nulls));
        }
        out
    }

    /// Whether the anchors' bytes of lengths can still be met from bit
    /// `bit` on: an anchor whose lengths are all read admits no further
    /// length (no NOT NULL variable field, no NULL-able variable one not
    /// NULL in it); every other needs as many more as the NULL-able
    /// fields left that are not NULL in it (and in no full anchor) can
    /// give, two bytes each, and NOT NULL variable fields (at most as
    /// many as the fewest bytes any anchor still needs). `leaf`: every
    /// anchor's lengths read.
    fn anchored(&self, states: &[RecState], bit: usize, leaf: bool) -> bool {
        let mut full = 0u128;
        let mut min_need = u32::MAX;
        let mut needs = Vec::with_capacity(self.anchors.len());
        for &(r, t, nulls) in &self.anchors {
            let Some(st) = states.get(r) else { continue };
            let Some(need) = t.checked_sub(st.lens) else {
                return false;
            };
            if need == 0 {
                full |= !nulls;
            }
            min_need = min_need.min(need);
            needs.push((need, nulls));
        }
        if leaf {
            return min_need == u32::MAX || needs.iter().all(|&(n, _)| n == 0);
        }
        let nn = self.nn.min(128);
        let rest: u128 = if bit >= nn {
            0
        } else {
            let hi = if nn == 128 {
                u128::MAX
            } else {
                (1u128 << nn).wrapping_sub(1)
            };
            hi & !(1u128 << bit).wrapping_sub(1)
        };
        let nvar = if full != 0 || !self.var_may_follow(states, bit) {
            0
        } else {
            min_need
        };
        for (&(r, t, _), &(need, nulls)) in self.anchors.iter().zip(&needs) {
            if need == 0 {
                continue;
            }
            let fields = (rest & !nulls & !full).count_ones().saturating_add(nvar);
            // Two bytes a length at most, one at least: between the two,
            // the bytes themselves say.
            if fields.saturating_mul(2) < need
                || (fields < need && fields < self.fewest_fields(r, t.saturating_sub(need), t))
            {
                return false;
            }
        }
        true
    }

    /// Whether a NOT NULL variable-length field may still come: not when
    /// some record has every NULL-able field from bit `bit` on NULL (its
    /// next length can then only be that field's, read where its lengths
    /// so far end) and that length, read as one byte or as two, runs
    /// past the record's room.
    fn var_may_follow(&self, states: &[RecState], bit: usize) -> bool {
        for (r, st) in states.iter().enumerate() {
            if !(bit..self.nn).all(|b| self.null_bit(r, b)) {
                continue;
            }
            let Some(room) = self.room(states, r, 1) else {
                continue;
            };
            let (one, _, _) = self.read_len(r, st, false);
            let (two, n, _) = self.read_len(r, st, true);
            let fits = |len: u32| i64::from(len) <= room;
            if !fits(one) && (n != 2 || !fits(two)) {
                return false;
            }
        }
        true
    }

    /// The fewest lengths that read record `r`'s bytes of lengths from
    /// `from` to `to` exactly: a byte with its high bit set may begin a
    /// 2-byte length.
    fn fewest_fields(&self, r: usize, from: u32, to: u32) -> u32 {
        let n = to.saturating_sub(from) as usize;
        let o = self.origin(r).saturating_sub(EXTRA).saturating_sub(self.nb);
        let Some((p, _)) = self.page(r) else {
            return 0;
        };
        // best[k]: the fewest lengths reading the last n - k bytes.
        let mut best = vec![0u32; n.saturating_add(2)];
        for k in (0..n).rev() {
            let at = o
                .saturating_sub(from as usize)
                .saturating_sub(k)
                .saturating_sub(1);
            let one = best.get(k.saturating_add(1)).copied().unwrap_or(0);
            let two = if byte(&p.bytes, at) & 0x80 != 0 && k.saturating_add(2) <= n {
                best.get(k.saturating_add(2)).copied().unwrap_or(0)
            } else {
                u32::MAX
            };
            if let Some(b) = best.get_mut(k) {
                *b = one.min(two).saturating_add(1);
            }
        }
        best.first().copied().unwrap_or(0)
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
        if !self.feasible(states) || !self.anchored(states, bit, false) {
            return;
        }
        if bit == self.nn && self.anchored(states, bit, true) {
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
pub(super) fn solve_widths(k: usize, eqs: &[(&Vec<bool>, i64, u32)]) -> Option<(i64, Vec<i64>)> {
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

pub(super) fn compact(ix: &IndexPages, clustered: bool) -> Result<(Vec<Table>, Outcome), Outcome> {
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
    let mut best: Vec<(Vec<Item>, Search<'_>, Solved)> = Vec::new();
    let mut nodes = 0u32;
    // The width of the first layout that fits. A narrower bitmap reads a
    // wider one's upper bytes as lengths (a NULL-able field's bitmap byte
    // read as a NOT NULL variable field's length), so the next
    // `RIVAL_WIDTHS` widths are searched for a rival, `RIVAL_NODES`
    // hypotheses each, even when the first width gave one already (each
    // rival names the fields where it reads otherwise).
    let mut fit_nb: Option<usize> = None;
    for nb in 0..=16usize {
        if fit_nb.is_some_and(|f| nb > f.saturating_add(RIVAL_WIDTHS)) {
            break;
        }
        let rival_from = fit_nb.map(|_| nodes);
        let amin = if clustered { TRX_LEN + ROLL_LEN } else { 0 };
        let mut s = Search::new(&ix.leaves, recs.clone(), nb, 0, amin);
        s.nodes = nodes;
        s.anchors = s.anchors();
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
            // Looking for a rival: the width's share of hypotheses.
            s.first_at = rival_from;
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
                // Two of the first width; one rival of each wider one.
                let want = if fit_nb.is_some() { 1 } else { 2 };
                let fits: Vec<_> = (found.into_iter())
                    .filter_map(|(items, _)| {
                        full_check(ix, nb, &items, clustered, false).map(|(c, f)| (items, c, f))
                    })
                    .take(want)
                    .collect();
                if fits.is_empty() && best.is_empty() {
                    return Err(Outcome::NoFit(format!(
                        "the layout found on the first {} records does not fit every record",
                        recs.len()
                    )));
                }
                best.extend(fits);
                fit_nb.get_or_insert(nb);
                break;
            }
            if nodes >= MAX_NODES
                || rival_from.is_some_and(|f| nodes > f.saturating_add(RIVAL_NODES))
            {
                break;
            }
        }
        if nodes >= MAX_NODES {
            if best.is_empty() {
                return Err(Outcome::GaveUp { nodes });
            }
            break;
        }
    }
    if best.is_empty() {
        return Err(Outcome::NoFit(format!(
            "no layout of up to 128 NULL-able fields fits the records ({nodes} hypotheses)"
        )));
    }
    // Which of the variable-length fields hold the NULL bits, where NOT
    // NULL and NULL-able ones are side by side, is not in the records:
    // moving a bit to another field reads every record's lengths alike (a
    // NULL record's lengths fall one field over). Each placement of the
    // bits (and of 2-byte lengths) among such fields of the first layout
    // that fits every record is a rival; the two whose NOT NULL fields'
    // lengths follow the NULL bits least (`shift`) are kept (the type
    // layer and the lengths choose which is printed; all are named).
    let placed: Vec<(Vec<Item>, usize)> = match best.first() {
        Some((items, check, _)) => placements(items)
            .into_iter()
            .map(|m| (m, check.nb))
            .collect(),
        None => Vec::new(),
    };
    let mut moved = Vec::new();
    // Each placement is read over every record: bounded by records too.
    let records = ix.leaves.iter().map(|p| p.origins.len()).sum::<usize>();
    let tries = MOVED_RECORDS
        .checked_div(records)
        .unwrap_or(MAX_MOVED)
        .clamp(8, MAX_MOVED);
    for (items, nb) in placed.into_iter().take(tries) {
        let sig = signature(&items);
        if best
            .iter()
            .any(|(b, c, _)| c.nb == nb && signature(b) == sig)
        {
            continue;
        }
        if let Some((c, f)) = full_check(ix, nb, &items, clustered, true) {
            let sh = shift(&table_of(ix, &items, &c, &f));
            moved.push((sh, (items, c, f)));
        }
    }
    moved.sort_by_key(|m| m.0);
    best.extend(moved.into_iter().take(2).map(|m| m.1));
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

/// Layouts of `items` with the NULL bits and the 2-byte lengths placed
/// otherwise among each run of variable-length fields side by side that
/// holds both NOT NULL and NULL-able ones (as many NULL-able ones as
/// before, in the same run); none when there are more than `MAX_MOVED`.
pub(super) fn placements(items: &[Item]) -> Vec<Vec<Item>> {
    let make = |nullable: bool, big: bool| match (nullable, big) {
        (false, false) => Item::Var,
        (false, true) => Item::VarBig,
        (true, false) => Item::NVar,
        (true, true) => Item::NVarBig,
    };
    let mut out = Vec::new();
    let mut k = 0usize;
    while k < items.len() {
        let end = (k..items.len())
            .find(|&e| items.get(e).is_none_or(|it| it.var().is_none()))
            .unwrap_or(items.len());
        let run = items.get(k..end).unwrap_or(&[]);
        let q = run.iter().filter(|it| it.nullable()).count();
        let m = run.len();
        if q > 0 && q < m && m <= 10 {
            // Every m-bit mask of q NULL-able fields, every mask of
            // 2-byte lengths.
            for nulls in 0u32..(1u32 << m) {
                if nulls.count_ones() as usize != q {
                    continue;
                }
                for bigs in 0u32..(1u32 << m) {
                    if out.len() > MAX_MOVED {
                        return Vec::new();
                    }
                    let mut v = items.to_vec();
                    for (i, slot) in v.iter_mut().enumerate().skip(k).take(m) {
                        let b = 1u32 << i.saturating_sub(k);
                        *slot = make(nulls & b != 0, bigs & b != 0);
                    }
                    if v.as_slice() != items {
                        out.push(v);
                    }
                }
            }
        }
        k = end.saturating_add(1);
    }
    out
}

/// The fields and every record's cells under the hypothesis `items`.
pub(super) fn table_of(
    ix: &IndexPages,
    items: &[Item],
    check: &Search<'_>,
    full: &Solved,
) -> Table {
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
/// all and the widths solved, or `None` when some record does not fit
/// (`prune`: or when a field of 2-byte lengths never reads two bytes,
/// the 1-byte one).
pub(super) fn full_check<'p>(
    ix: &'p IndexPages,
    nb: usize,
    items: &[Item],
    clustered: bool,
    prune: bool,
) -> Option<(Search<'p>, Solved)> {
    let check = Search::new(
        &ix.leaves,
        all_records(&ix.leaves).collect(),
        nb,
        items.iter().filter(|i| i.nullable()).count(),
        if clustered { TRX_LEN + ROLL_LEN } else { 0 },
    );
    let mut states = vec![RecState::default(); check.recs.len()];
    let mut bit = 0usize;
    for &it in items {
        states = check.apply(&states, it, bit, prune)?;
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

#[cfg(test)]
#[allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::arithmetic_side_effects
)]
mod tests {
    use super::*;

    /// A NULL bitmap narrower than the real one is given up at once: the
    /// fixtures' `types` tables have a row of every NULL-able column NULL,
    /// all of whose bits a 1- or 2-byte bitmap reads set; its next length
    /// (the real bitmap's next byte, 0xFF) could only be a NOT NULL
    /// variable field's, and runs past the record, so no such field may
    /// come, and the first record of a tiled page cannot read the bytes
    /// before it as lengths. (Before, each of these widths took thousands
    /// of hypotheses.)
    #[test]
    fn narrow_bitmaps_pruned_at_once() {
        for dir in ["mysql56", "mariadb1011"] {
            let d = ibdscope_testkit::fixtures().join(dir);
            let ibd = std::fs::read(d.join("types.ibd")).expect("ibd");
            let ts = Tablespace::new(&ibd).expect("tablespace");
            let (ixs, _) = gather(&ts);
            let ix = ixs.first().expect("clustered index");
            for nb in [1usize, 2] {
                let recs = all_records(&ix.leaves).take(MAX_SEARCH_RECORDS).collect();
                let mut s = Search::new(&ix.leaves, recs, nb, nb * 8, TRX_LEN + ROLL_LEN);
                s.anchors = s.anchors();
                let states = vec![RecState::default(); s.recs.len()];
                s.dfs(&mut Vec::new(), &states, 0);
                assert!(s.found.is_empty(), "{dir}: {nb}-byte bitmap");
                assert!(
                    s.nodes <= 2,
                    "{dir}: {nb}-byte bitmap: {} hypotheses",
                    s.nodes
                );
            }
        }
    }

    /// The anchors prune no step of the real layout: the fixtures'
    /// `types` tables (60 and 64 NULL-able columns), read with the layout
    /// their `.frm` gives (the server's definition), pass every check of
    /// the search at every field and at the end, and their tiled pages
    /// give anchors.
    #[test]
    fn anchors_keep_the_real_layout() {
        for dir in ["mysql56", "mariadb1011"] {
            let d = ibdscope_testkit::fixtures().join(dir);
            let ibd = std::fs::read(d.join("types.ibd")).expect("ibd");
            let frm = std::fs::read(d.join("types.frm")).expect("frm");
            let def = crate::frm::Frm::parse(&frm)
                .expect("frm")
                .to_table_def("types", "fx");
            let layout = def.layout(def.clustered().unwrap(), true).unwrap();
            let items: Vec<Item> = (layout.fields.iter())
                .filter_map(|f| match (f.fixed_len, f.nullable, f.big) {
                    (Some(_), false, _) => None,
                    (Some(_), true, _) => Some(Item::NFixed),
                    (None, true, true) => Some(Item::NVarBig),
                    (None, true, false) => Some(Item::NVar),
                    (None, false, true) => Some(Item::VarBig),
                    (None, false, false) => Some(Item::Var),
                })
                .collect();
            let nn = items.iter().filter(|i| i.nullable()).count();
            let ts = Tablespace::new(&ibd).expect("tablespace");
            let (ixs, _) = gather(&ts);
            let ix = ixs.first().expect("clustered index");
            let recs = all_records(&ix.leaves).collect();
            let mut s = Search::new(&ix.leaves, recs, nn.div_ceil(8), nn, TRX_LEN + ROLL_LEN);
            s.anchors = s.anchors();
            assert!(s.anchors.len() >= 10, "{dir}: {} anchors", s.anchors.len());
            let mut states = vec![RecState::default(); s.recs.len()];
            let mut bit = 0usize;
            for (k, &it) in items.iter().enumerate() {
                states = s.apply(&states, it, bit, false).unwrap();
                if it.nullable() {
                    bit += 1;
                }
                assert!(s.feasible(&states), "{dir}: field {k}");
                assert!(s.anchored(&states, bit, false), "{dir}: field {k}");
            }
            assert!(s.anchored(&states, bit, true), "{dir}: the end");
            assert!(s.solve(&items, &states).is_some(), "{dir}: solved");
        }
    }
}
