//! # ibdscope-render
//!
//! Draws plain data (grids of cells, values, labels, counts) as PNG or SVG
//! pictures with plotters. It knows nothing of InnoDB and does not depend
//! on the `ibdscope` library: the CLI turns parsed facts into the plain
//! data this crate draws.
//!
//! - [`color`]: the index palette as ANSI 256-colour numbers and RGB, the
//!   perceptual scale (viridis), the nearest ANSI colour: shared with the
//!   CLI's terminal maps so a page has one colour in both.
//! - [`grid`]: one [`Cell`] per page folded, in one pass and bounded
//!   memory, into a [`Grid`] of at most a given number of rows.
//! - [`hist`]: an exact one-pass histogram of u64 values in power-of-two
//!   bins, and the values' ranks from it (with a stated error bound).
//! - [`picture`]: a [`Picture`] (title, grids side by side at one scale,
//!   legend, colour scale, histograms) and [`render`] to a file.
//!
//! PNG text uses a bundled font (DejaVu Sans, `fonts/`), so it needs no
//! font installed on the machine.
//!
//! **Architecture Invariant:** this crate never parses; its inputs are
//! numbers and strings.

#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod color;
mod font;
pub mod grid;
pub mod hist;
pub mod picture;

pub use color::Rgb;
pub use grid::{pages_per_cell, Cell, Grid, GridBuilder, Scale};
pub use hist::{Bin, Pow2Histogram, Ranks};
pub use picture::{render, Class, Drawn, HeatScale, Histogram, ImageFormat, Panel, Picture};
