//! Small helpers for the text printers.

use ibdscope_core::{PageNo, FIL_NULL};
use std::fmt;

/// A page number, or `-` for FIL_NULL.
pub struct Link(pub PageNo);

impl fmt::Display for Link {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 .0 == FIL_NULL {
            f.pad("-")
        } else {
            f.pad(&self.0 .0.to_string())
        }
    }
}

/// `part` as a percentage of `whole`, one decimal.
pub fn percent(part: u32, whole: u32) -> f64 {
    if whole == 0 {
        0.0
    } else {
        f64::from(part) * 100.0 / f64::from(whole)
    }
}

/// `1 page`, `2 pages`: `n` with `one` or `many`.
pub fn count(n: impl Into<u64>, one: &str, many: &str) -> String {
    let n = n.into();
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}
