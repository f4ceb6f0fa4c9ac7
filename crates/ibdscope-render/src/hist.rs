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
    min: Option<u64>,
    max: u64,
    n: u64,
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
                    let grow = (self.base - idx) as usize;
                    self.counts.splice(0..0, std::iter::repeat_n(0, grow));
                    self.base = idx;
                }
                let i = (idx - self.base) as usize;
                if i >= self.counts.len() {
                    self.counts.resize(i + 1, 0);
                }
                self.counts[i] += 1;
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
            let grow = (self.base - o.base) as usize;
            self.counts.splice(0..0, std::iter::repeat_n(0, grow));
            self.base = o.base;
        }
        let end = (last(&o) - self.base + 1) as usize;
        if end > self.counts.len() {
            self.counts.resize(end, 0);
        }
        for (i, c) in o.counts.iter().enumerate() {
            self.counts[(o.base - self.base) as usize + i] += c;
        }
        self.min = Some(min.min(other_min));
        self.max = self.max.max(o.max);
        self.n += o.n;
    }

    /// Doubles the bin width, merging bins in pairs.
    fn coarsen(&mut self) {
        let new_base = self.base >> 1;
        let last = (self.base + self.counts.len() as u64 - 1) >> 1;
        let mut merged = vec![0u64; (last - new_base + 1) as usize];
        for (i, c) in self.counts.iter().enumerate() {
            merged[(((self.base + i as u64) >> 1) - new_base) as usize] += c;
        }
        self.counts = merged;
        self.base = new_base;
        self.shift += 1;
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
}
