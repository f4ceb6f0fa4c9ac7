//! # ibdscope-render
//!
//! Draws plain data (grids of cells, values, labels) as pictures. It knows
//! nothing of InnoDB and does not depend on the `ibdscope` library: the CLI
//! turns parsed facts into the plain data this crate draws.
//!
//! **Architecture Invariant:** this crate never parses; its inputs are
//! numbers and strings.

#![forbid(unsafe_code)]
#![deny(missing_docs)]

/// A grid of cells to draw: `values[row * columns + column]`, `NaN` for a
/// blank cell.
#[derive(Clone, Debug, Default)]
pub struct Grid<'a> {
    /// Cells per row.
    pub columns: usize,
    /// Cell values in 0.0..=1.0, row-major.
    pub values: &'a [f32],
    /// Label printed at the start of each row.
    pub row_labels: &'a [String],
}

impl Grid<'_> {
    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.values.len().div_ceil(self.columns.max(1))
    }
}
