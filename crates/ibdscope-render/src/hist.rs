//! An exact histogram of u64 values in one pass and bounded memory.
//!
//! Bins are aligned ranges of a power-of-two width `2^shift`: bin `i`
//! holds the values `v` with `(v >> shift) - (min >> shift) == i`. The
//! shift only grows (merging neighbouring bins in pairs, which is exact)
//! when a value falls outside the `max_bins` bins, so at the end `shift` is
//! the smallest that puts every value in at most `max_bins` bins, whatever
//! the order the values came in.

/// See the module documentation.
#[derive(Clone, Debug)]
pub struct Pow2Histogram {
    max_bins: usize,
    shift: u32,
    /// `min >> shift` of the first bin.
    base: u64,
    counts: Vec<u64>,
    /// Smallest and largest value in each bin (`(u64::MAX, 0)` when empty).
    ext: Vec<(u64, u64)>,
    min: Option<u64>,
    max: u64,
    n: u64,
}

const EMPTY: (u64, u64) = (u64::MAX, 0);

fn widen(a: (u64, u64), b: (u64, u64)) -> (u64, u64) {
    (a.0.min(b.0), a.1.max(b.1))
}

/// Where values sit among those of a [`Pow2Histogram`]: the share of
/// values below (a rank, 0.0 at the smallest value, 1.0 at the largest).
///
/// Each bin keeps its count and its smallest and largest value, all
/// exact; inside one bin the rank is interpolated linearly between the
/// bin's smallest and largest value. So a rank is off by at most the share
/// of values in its bin ([`Ranks::error`]), and [`Ranks::value`] returns a
/// value that was added, off by at most that share from the rank asked.
#[derive(Clone, Debug)]
pub struct Ranks {
    shift: u32,
    base: u64,
    /// Values in the bins before each bin.
    below: Vec<u64>,
    counts: Vec<u64>,
    ext: Vec<(u64, u64)>,
    n: u64,
}

impl Ranks {
    /// The rank of `v`: 0.0 at or below the smallest value, 1.0 at or
    /// above the largest, non-decreasing in `v`; 1.0 when no value was
    /// added or all are equal (as [`crate::Scale::t`] puts them).
    pub fn rank(&self, v: f64) -> f64 {
        let (Some(&(lo, _)), Some(&(_, hi))) = (self.ext.first(), self.ext.last()) else {
            return 1.0;
        };
        if hi <= lo || v.is_nan() {
            return 1.0;
        }
        if v <= lo as f64 {
            return 0.0;
        }
        if v >= hi as f64 {
            return 1.0;
        }
        let idx = (v as u64) >> self.shift;
        let i = usize::try_from(idx.saturating_sub(self.base)).unwrap_or(usize::MAX);
        let (Some(&below), Some(&count), Some(&(blo, bhi))) =
            (self.below.get(i), self.counts.get(i), self.ext.get(i))
        else {
            return 1.0;
        };
        let inside = if count == 0 || v <= blo as f64 {
            0.0
        } else if v >= bhi as f64 {
            count as f64
        } else {
            count as f64 * (v - blo as f64) / (bhi - blo) as f64
        };
        // n - 1 steps from the smallest value (rank 0) to the largest (1).
        let steps = self.n.saturating_sub(1).max(1) as f64;
        ((below as f64 + inside) / steps).clamp(0.0, 1.0)
    }

    /// A value that was added, near rank `q` (0.0 the smallest, 1.0 the
    /// largest): of the bin where the rank falls, its smallest or largest
    /// value, whichever is nearer. When `q` falls among equal values, it
    /// is that value, whose [`Ranks::rank`] (the share strictly below) may
    /// be lower than `q` by the share of the ties.
    pub fn value(&self, q: f64) -> Option<u64> {
        let steps = self.n.saturating_sub(1) as f64;
        let want = q.clamp(0.0, 1.0) * steps;
        let mut last = None;
        for ((&below, &count), &(lo, hi)) in self.below.iter().zip(&self.counts).zip(&self.ext) {
            if count == 0 {
                continue;
            }
            last = Some(hi);
            if want <= (below + count - 1) as f64 {
                let frac = (want - below as f64) / count as f64;
                return Some(if frac < 0.5 { lo } else { hi });
            }
        }
        last
    }

    /// The largest share of the values in one bin holding more than one
    /// distinct value: the bound of a rank's error (a bin of equal values
    /// ranks them exactly).
    pub fn error(&self) -> f64 {
        let max = self
            .counts
            .iter()
            .zip(&self.ext)
            .filter(|(_, (lo, hi))| lo < hi)
            .map(|(&c, _)| c)
            .max()
            .unwrap_or(0);
        max as f64 / self.n.max(1) as f64
    }

    /// The bin width, `2^shift`.
    pub fn shift(&self) -> u32 {
        self.shift
    }
}

/// One bin of a [`Pow2Histogram`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bin {
    /// Lowest value the bin can hold (clipped to the values' minimum).
    pub from: u64,
    /// Highest value the bin can hold (clipped to the values' maximum).
    pub to: u64,
    /// Values in the bin.
    pub count: u64,
}

impl Pow2Histogram {
    /// An empty histogram of at most `max_bins` bins (at least 2).
    pub fn new(max_bins: usize) -> Self {
        let max_bins = max_bins.max(2);
        Pow2Histogram {
            max_bins,
            shift: 0,
            base: 0,
            counts: Vec::with_capacity(max_bins),
            ext: Vec::with_capacity(max_bins),
            min: None,
            max: 0,
            n: 0,
        }
    }

    /// Adds a value.
    pub fn add(&mut self, v: u64) {
        self.n += 1;
        let Some(min) = self.min else {
            self.min = Some(v);
            self.max = v;
            self.base = v;
            self.counts.push(1);
            self.ext.push((v, v));
            return;
        };
        self.min = Some(min.min(v));
        self.max = self.max.max(v);
        loop {
            let idx = v >> self.shift;
            let lo = self.base.min(idx);
            let hi = (self.base + self.counts.len() as u64 - 1).max(idx);
            if hi - lo < self.max_bins as u64 {
                if idx < self.base {
                    self.grow_front((self.base - idx) as usize);
                    self.base = idx;
                }
                let i = (idx - self.base) as usize;
                if i >= self.counts.len() {
                    self.counts.resize(i + 1, 0);
                    self.ext.resize(i + 1, EMPTY);
                }
                self.counts[i] += 1;
                self.ext[i] = widen(self.ext[i], (v, v));
                return;
            }
            self.coarsen();
        }
    }

    /// Adds every value of `other`: the result is what adding them one by
    /// one would give (the shift is the smallest that fits both, and the
    /// counts are exact), so histograms of parts of a scan can be joined.
    pub fn merge(&mut self, other: &Pow2Histogram) {
        let Some(other_min) = other.min else {
            return;
        };
        let Some(min) = self.min else {
            let max_bins = self.max_bins;
            *self = other.clone();
            self.max_bins = max_bins;
            while self.counts.len() > max_bins {
                self.coarsen();
            }
            return;
        };
        let mut o = other.clone();
        while self.shift < o.shift {
            self.coarsen();
        }
        while o.shift < self.shift {
            o.coarsen();
        }
        let last = |h: &Pow2Histogram| h.base + h.counts.len() as u64 - 1;
        while last(self).max(last(&o)) - self.base.min(o.base) >= self.max_bins as u64 {
            self.coarsen();
            o.coarsen();
        }
        if o.base < self.base {
            self.grow_front((self.base - o.base) as usize);
            self.base = o.base;
        }
        let end = (last(&o) - self.base + 1) as usize;
        if end > self.counts.len() {
            self.counts.resize(end, 0);
            self.ext.resize(end, EMPTY);
        }
        for (i, (c, e)) in o.counts.iter().zip(&o.ext).enumerate() {
            let j = (o.base - self.base) as usize + i;
            self.counts[j] += c;
            self.ext[j] = widen(self.ext[j], *e);
        }
        self.min = Some(min.min(other_min));
        self.max = self.max.max(o.max);
        self.n += o.n;
    }

    /// `n` empty bins before the first.
    fn grow_front(&mut self, n: usize) {
        self.counts.splice(0..0, std::iter::repeat_n(0, n));
        self.ext.splice(0..0, std::iter::repeat_n(EMPTY, n));
    }

    /// Doubles the bin width, merging bins in pairs.
    fn coarsen(&mut self) {
        let new_base = self.base >> 1;
        let last = (self.base + self.counts.len() as u64 - 1) >> 1;
        let len = (last - new_base + 1) as usize;
        let mut merged = vec![0u64; len];
        let mut ext = vec![EMPTY; len];
        for (i, (c, e)) in self.counts.iter().zip(&self.ext).enumerate() {
            let j = (((self.base + i as u64) >> 1) - new_base) as usize;
            merged[j] += c;
            ext[j] = widen(ext[j], *e);
        }
        self.counts = merged;
        self.ext = ext;
        self.base = new_base;
        self.shift += 1;
    }

    /// The ranks of the values, for [`Ranks::rank`] and [`Ranks::value`].
    pub fn ranks(&self) -> Ranks {
        let mut below = Vec::with_capacity(self.counts.len());
        let mut sum = 0u64;
        for c in &self.counts {
            below.push(sum);
            sum += c;
        }
        Ranks {
            shift: self.shift,
            base: self.base,
            below,
            counts: self.counts.clone(),
            ext: self.ext.clone(),
            n: self.n,
        }
    }

    /// The bin width is `2^shift`.
    pub fn shift(&self) -> u32 {
        self.shift
    }

    /// Values added.
    pub fn len(&self) -> u64 {
        self.n
    }

    /// True when no value was added.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// Smallest and largest value.
    pub fn range(&self) -> Option<(u64, u64)> {
        self.min.map(|m| (m, self.max))
    }

    /// The bins from the one holding the minimum to the one holding the
    /// maximum.
    pub fn bins(&self) -> Vec<Bin> {
        let Some(min) = self.min else {
            return Vec::new();
        };
        self.counts
            .iter()
            .enumerate()
            .map(|(i, &count)| {
                let b = u128::from(self.base + i as u64);
                let from = u64::try_from(b << self.shift).unwrap_or(u64::MAX).max(min);
                let end = ((b + 1) << self.shift) - 1;
                let to = u64::try_from(end).unwrap_or(u64::MAX).min(self.max);
                Bin { from, to, count }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive(values: &[u64], shift: u32) -> Vec<u64> {
        let lo = values.iter().min().unwrap() >> shift;
        let hi = values.iter().max().unwrap() >> shift;
        let mut c = vec![0; (hi - lo + 1) as usize];
        for v in values {
            c[((v >> shift) - lo) as usize] += 1;
        }
        c
    }

    #[test]
    fn exact_and_minimal_whatever_the_order() {
        let mut vals: Vec<u64> = (0..5000u64)
            .map(|i| 646_315 + i * i * 37 % 900_000)
            .collect();
        vals.push(1_539_027);
        for order in 0..3 {
            let mut v = vals.clone();
            match order {
                1 => v.reverse(),
                2 => v.sort(),
                _ => {}
            }
            let mut h = Pow2Histogram::new(64);
            v.iter().for_each(|&x| h.add(x));
            let s = h.shift();
            let counts: Vec<u64> = h.bins().iter().map(|b| b.count).collect();
            assert_eq!(counts, naive(&vals, s));
            assert!(counts.len() <= 64);
            assert!(
                s == 0 || naive(&vals, s - 1).len() > 64,
                "shift not minimal"
            );
            assert_eq!(counts.iter().sum::<u64>(), vals.len() as u64);
            let bins = h.bins();
            assert_eq!(bins[0].from, *vals.iter().min().unwrap());
            assert_eq!(bins.last().unwrap().to, *vals.iter().max().unwrap());
            assert_eq!(h.range(), Some((646_315, *vals.iter().max().unwrap())));
        }
    }

    #[test]
    fn merged_parts_equal_one_pass() {
        let vals: Vec<u64> = (0..3000u64)
            .map(|i| 10_000 + (i * 7919) % 50_000 + if i % 500 == 0 { 9_000_000 } else { 0 })
            .collect();
        let mut whole = Pow2Histogram::new(64);
        vals.iter().for_each(|&v| whole.add(v));
        for parts in [2usize, 3, 7, 64] {
            let mut joined = Pow2Histogram::new(64);
            for chunk in vals.chunks(vals.len().div_ceil(parts)) {
                let mut h = Pow2Histogram::new(64);
                chunk.iter().for_each(|&v| h.add(v));
                joined.merge(&h);
            }
            joined.merge(&Pow2Histogram::new(64));
            assert_eq!(joined.shift(), whole.shift(), "{parts} parts");
            assert_eq!(joined.bins(), whole.bins(), "{parts} parts");
            assert_eq!(joined.len(), whole.len());
            assert_eq!(joined.range(), whole.range());
        }
    }

    #[test]
    fn equal_values_one_value_and_extremes() {
        let mut h = Pow2Histogram::new(32);
        assert!(h.bins().is_empty() && h.is_empty());
        for _ in 0..10 {
            h.add(7);
        }
        assert_eq!(
            h.bins(),
            vec![Bin {
                from: 7,
                to: 7,
                count: 10
            }]
        );
        let mut h = Pow2Histogram::new(32);
        h.add(0);
        h.add(u64::MAX);
        let bins = h.bins();
        assert!(bins.len() <= 32);
        assert_eq!(bins.iter().map(|b| b.count).sum::<u64>(), 2);
        assert_eq!((bins[0].from, bins.last().unwrap().to), (0, u64::MAX));
    }

    /// The exact rank of `v` among `vals`: values strictly below, over n - 1.
    fn exact_rank(vals: &[u64], v: u64) -> f64 {
        vals.iter().filter(|&&x| x < v).count() as f64 / (vals.len() - 1) as f64
    }

    #[test]
    fn ranks_are_within_the_fullest_bin_and_values_are_real() {
        // Two outliers far below a dense block: a linear scale would put
        // the block in its top sixth.
        let mut vals: Vec<u64> = (0..2000u64).map(|i| 9_200_000 + i * 1300).collect();
        vals.push(1_660_000);
        vals.push(1_700_000);
        for bins in [64usize, 4096] {
            let mut h = Pow2Histogram::new(bins);
            vals.iter().rev().for_each(|&v| h.add(v));
            let r = h.ranks();
            let err = r.error();
            assert!(err < 1.0 && (bins == 64 || err < 0.01), "{bins}: {err}");
            for &v in vals.iter().step_by(37) {
                let got = r.rank(v as f64);
                let want = exact_rank(&vals, v);
                assert!(
                    (got - want).abs() <= err + 1e-9,
                    "{bins}: {v} {got} {want} {err}"
                );
            }
            assert_eq!(r.rank(1_660_000.0), 0.0);
            assert_eq!(r.rank(vals[1999] as f64), 1.0);
            // The block's first page sits near the bottom, not in the top
            // sixth.
            assert!(r.rank(9_200_000.0) <= 2.0 / 2001.0 + err);
            for q in [0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0] {
                let v = r.value(q).unwrap();
                assert!(vals.contains(&v), "{v}");
                assert!(
                    (exact_rank(&vals, v) - q).abs() <= err + 1.0 / 2000.0,
                    "{q}"
                );
            }
            assert_eq!(r.value(0.0), Some(1_660_000));
            assert_eq!(r.value(1.0), Some(vals[1999]));
        }
        // Non-decreasing.
        let mut h = Pow2Histogram::new(64);
        vals.iter().for_each(|&v| h.add(v));
        let r = h.ranks();
        let mut last = 0.0;
        for v in (1_600_000..12_000_000).step_by(977) {
            let t = r.rank(v as f64);
            assert!(t >= last);
            last = t;
        }
    }

    #[test]
    fn merged_ranks_equal_one_pass_and_degenerate_cases() {
        let vals: Vec<u64> = (0..999u64).map(|i| 5 + (i * 7919) % 100_003).collect();
        let mut whole = Pow2Histogram::new(256);
        vals.iter().for_each(|&v| whole.add(v));
        let mut joined = Pow2Histogram::new(256);
        for chunk in vals.chunks(100) {
            let mut h = Pow2Histogram::new(256);
            chunk.iter().for_each(|&v| h.add(v));
            joined.merge(&h);
        }
        let (a, b) = (whole.ranks(), joined.ranks());
        for v in (0..110_000).step_by(101) {
            assert_eq!(a.rank(f64::from(v)), b.rank(f64::from(v)));
        }
        assert_eq!(a.value(0.3), b.value(0.3));
        let empty = Pow2Histogram::new(8).ranks();
        assert_eq!((empty.rank(3.0), empty.value(0.5)), (1.0, None));
        let mut one = Pow2Histogram::new(8);
        one.add(4);
        one.add(4);
        assert_eq!(
            (one.ranks().rank(4.0), one.ranks().value(0.0)),
            (1.0, Some(4))
        );
    }
}
