//! A set of small numbers, one bit each: the pages a walk reached, the
//! extents a list named, the record offsets of a page.

/// A set of the numbers below its capacity, one bit each.
#[derive(Clone, Debug, Default)]
pub(crate) struct Bits {
    words: Vec<u64>,
}

impl Bits {
    /// An empty set of the numbers below `n` (rounded up to 64).
    pub(crate) fn with_capacity(n: usize) -> Self {
        Bits {
            words: vec![0u64; n.div_ceil(64)],
        }
    }

    /// The numbers the set can hold are those below this.
    #[inline]
    pub(crate) fn capacity(&self) -> usize {
        self.words.len().saturating_mul(64)
    }

    /// Makes room for the numbers below `n` (none of the new ones in).
    #[inline]
    pub(crate) fn grow_to(&mut self, n: usize) {
        let words = n.div_ceil(64);
        if self.words.len() < words {
            self.words.resize(words, 0);
        }
    }

    /// Adds `n`; false if it was in already or is past the capacity.
    #[inline]
    pub(crate) fn insert(&mut self, n: usize) -> bool {
        let Some(w) = self.words.get_mut(n / 64) else {
            return false;
        };
        let bit = 1u64 << (n % 64);
        let fresh = *w & bit == 0;
        *w |= bit;
        fresh
    }

    /// Whether `n` is in.
    #[inline]
    pub(crate) fn contains(&self, n: usize) -> bool {
        self.words
            .get(n / 64)
            .is_some_and(|w| w & (1u64 << (n % 64)) != 0)
    }

    /// Takes out every number below `n` (only the words that hold them are
    /// cleared).
    #[inline]
    pub(crate) fn clear_below(&mut self, n: usize) {
        let words = n.div_ceil(64).min(self.words.len());
        if let Some(w) = self.words.get_mut(..words) {
            w.fill(0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holds_what_was_put_in_below_its_capacity() {
        let mut b = Bits::with_capacity(100);
        assert_eq!(b.capacity(), 128);
        assert!(b.insert(0) && b.insert(63) && b.insert(64) && b.insert(127));
        assert!(!b.insert(63), "in already");
        assert!(!b.insert(128), "past the capacity");
        assert!(b.contains(64) && !b.contains(65) && !b.contains(128));
        b.grow_to(200);
        assert!(b.insert(199) && b.contains(199) && b.contains(127));
        b.clear_below(64);
        assert!(!b.contains(0) && !b.contains(63) && b.contains(64));
    }
}
