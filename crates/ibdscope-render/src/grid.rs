//! Grids of cells, one per page or per run of pages, built in one pass in
//! bounded memory.
//!
//! A [`GridBuilder`] takes one [`Cell`] per page, in page order, and keeps
//! one cell per `pages_per_cell` pages: the cells of a run vote, the kind
//! with most pages wins (a class, or the colour scale), a scale value is
//! the mean of the run's values and a bar's level the mean of its levels.
//! Only the run being filled is open, so the memory is that of the output
//! grid whatever the number of pages. [`pages_per_cell`] picks a power of
//! two that keeps the grid within a number of rows.

/// What one cell shows.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Cell {
    /// Nothing (an LSN of 0, a page of no interest): the empty slot.
    Blank,
    /// The whole cell in the colour of class `n` of the picture.
    Class(u16),
    /// A bar from the bottom of the cell, in the colour of class `n`,
    /// `level` (0.0–1.0) of the cell high.
    Bar(u16, f32),
    /// A value on the picture's colour scale (raw: the scale maps it).
    Heat(f64),
}

/// A grid of cells in rows of `columns`.
#[derive(Clone, Debug, PartialEq)]
pub struct Grid {
    /// Cells per row.
    pub columns: u32,
    /// Pages per cell (1 unless the pages outnumber the cells).
    pub pages_per_cell: u64,
    /// Pages the grid stands for.
    pub n_pages: u64,
    /// The page of the first cell (0 unless a map draws a range).
    pub first_page: u64,
    /// The cells, row after row; the last row may be short.
    pub cells: Vec<Cell>,
}

impl Grid {
    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.cells.len().div_ceil(self.columns.max(1) as usize)
    }

    /// Pages per row.
    pub fn pages_per_row(&self) -> u64 {
        u64::from(self.columns).saturating_mul(self.pages_per_cell)
    }

    /// The first page of row `r`.
    pub fn row_start(&self, r: usize) -> u64 {
        (r as u64)
            .saturating_mul(self.pages_per_row())
            .saturating_add(self.first_page)
    }

    /// The rows, each a slice of cells.
    pub fn row_cells(&self) -> impl Iterator<Item = &[Cell]> {
        self.cells.chunks(self.columns.max(1) as usize)
    }
}

/// The smallest power of two `k` such that `n_pages` pages at `k` pages
/// per cell fill at most `max_rows` rows of `columns` cells.
pub fn pages_per_cell(n_pages: u64, columns: u32, max_rows: u32) -> u64 {
    let per_row_limit = u64::from(columns.max(1)).saturating_mul(u64::from(max_rows.max(1)));
    let mut k: u64 = 1;
    while n_pages.div_ceil(k) > per_row_limit && k < (1 << 62) {
        k *= 2;
    }
    k
}

/// Builds a [`Grid`] from one cell per page.
#[derive(Debug)]
pub struct GridBuilder {
    grid: Grid,
    /// Pages in the open run.
    open: u64,
    /// Votes per class in the open run.
    votes: Vec<u32>,
    /// Sum of bar levels and bars per class in the open run.
    bars: Vec<(f64, u32)>,
    heat_sum: f64,
    heat_n: u32,
}

impl GridBuilder {
    /// A builder for `n_pages` pages in rows of `columns` cells of
    /// `pages_per_cell` pages.
    pub fn new(n_pages: u64, columns: u32, pages_per_cell: u64) -> Self {
        let k = pages_per_cell.max(1);
        let n_cells = n_pages.div_ceil(k);
        GridBuilder {
            grid: Grid {
                columns: columns.max(1),
                pages_per_cell: k,
                n_pages,
                first_page: 0,
                cells: Vec::with_capacity(usize::try_from(n_cells).unwrap_or(0).min(1 << 20)),
            },
            open: 0,
            votes: Vec::new(),
            bars: Vec::new(),
            heat_sum: 0.0,
            heat_n: 0,
        }
    }

    /// The same builder for pages from `first` on (row labels start
    /// there).
    pub fn starting_at(mut self, first: u64) -> Self {
        self.grid.first_page = first;
        self
    }

    /// Adds the next page's cell.
    pub fn push(&mut self, cell: Cell) {
        if self.grid.pages_per_cell == 1 {
            self.grid.cells.push(cell);
            return;
        }
        match cell {
            Cell::Blank => {}
            Cell::Class(c) | Cell::Bar(c, _) => {
                let c = usize::from(c);
                if self.votes.len() <= c {
                    self.votes.resize(c + 1, 0);
                    self.bars.resize(c + 1, (0.0, 0));
                }
                self.votes[c] += 1;
                if let Cell::Bar(_, level) = cell {
                    self.bars[c].0 += f64::from(level);
                    self.bars[c].1 += 1;
                }
            }
            Cell::Heat(v) => {
                self.heat_sum += v;
                self.heat_n += 1;
            }
        }
        self.open += 1;
        if self.open == self.grid.pages_per_cell {
            self.close();
        }
    }

    /// Pushes `cell` for each of `count` pages, a cell's worth at a time
    /// for a class (the time follows the cells, not the pages).
    pub fn push_run(&mut self, cell: Cell, count: u64) {
        let mut left = count;
        while left > 0 {
            let per = self.grid.pages_per_cell;
            let take = match cell {
                Cell::Blank | Cell::Class(_) if per > 1 => left.min(per - self.open),
                _ => 1,
            };
            if take <= 1 {
                self.push(cell);
                left -= 1;
                continue;
            }
            if let Cell::Class(c) = cell {
                let c = usize::from(c);
                if self.votes.len() <= c {
                    self.votes.resize(c + 1, 0);
                    self.bars.resize(c + 1, (0.0, 0));
                }
                self.votes[c] =
                    self.votes[c].saturating_add(u32::try_from(take).unwrap_or(u32::MAX));
            }
            self.open += take;
            left -= take;
            if self.open == per {
                self.close();
            }
        }
    }

    fn close(&mut self) {
        if self.open == 0 {
            return;
        }
        // The class with most pages (the first on a tie) against the scale.
        let best = self
            .votes
            .iter()
            .enumerate()
            .fold(None, |b: Option<(usize, u32)>, (i, &n)| match b {
                Some((_, bn)) if bn >= n => b,
                _ if n > 0 => Some((i, n)),
                _ => b,
            });
        let cell = match best {
            Some((c, n)) if n > self.heat_n => {
                let (sum, bars) = self.bars[c];
                let c = c as u16;
                if bars * 2 >= n {
                    Cell::Bar(c, (sum / f64::from(bars)) as f32)
                } else {
                    Cell::Class(c)
                }
            }
            _ if self.heat_n > 0 => Cell::Heat(self.heat_sum / f64::from(self.heat_n)),
            _ => Cell::Blank,
        };
        self.grid.cells.push(cell);
        self.open = 0;
        self.votes.iter_mut().for_each(|v| *v = 0);
        self.bars.iter_mut().for_each(|b| *b = (0.0, 0));
        self.heat_sum = 0.0;
        self.heat_n = 0;
    }

    /// The grid (a short last run becomes a cell too).
    pub fn finish(mut self) -> Grid {
        self.close();
        self.grid
    }
}

/// How raw [`Cell::Heat`] values map to the colour scale.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Scale {
    /// The value drawn at the low end.
    pub lo: f64,
    /// The value drawn at the high end.
    pub hi: f64,
}

impl Scale {
    /// Where `v` sits, 0.0–1.0. When every value is the same (`hi <= lo`)
    /// every value sits at the high end.
    pub fn t(&self, v: f64) -> f64 {
        if self.hi > self.lo && v.is_finite() {
            ((v - self.lo) / (self.hi - self.lo)).clamp(0.0, 1.0)
        } else {
            1.0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_page_per_cell_keeps_every_cell() {
        let mut b = GridBuilder::new(3, 64, 1);
        for c in [Cell::Class(1), Cell::Blank, Cell::Bar(0, 0.5)] {
            b.push(c);
        }
        let g = b.finish();
        assert_eq!(
            g.cells,
            vec![Cell::Class(1), Cell::Blank, Cell::Bar(0, 0.5)]
        );
        assert_eq!(g.rows(), 1);
    }

    #[test]
    fn runs_vote_and_average() {
        let mut b = GridBuilder::new(10, 2, 4);
        // Run 1: three bars of class 2, one free (class 0).
        for c in [
            Cell::Bar(2, 0.25),
            Cell::Bar(2, 0.75),
            Cell::Class(0),
            Cell::Bar(2, 0.5),
        ] {
            b.push(c);
        }
        // Run 2: heat wins over one class page.
        for c in [
            Cell::Heat(10.0),
            Cell::Heat(20.0),
            Cell::Class(0),
            Cell::Blank,
        ] {
            b.push(c);
        }
        // Run 3 (short, the file ends inside it): blanks only.
        b.push(Cell::Blank);
        b.push(Cell::Blank);
        let g = b.finish();
        assert_eq!(
            g.cells,
            vec![Cell::Bar(2, 0.5), Cell::Heat(15.0), Cell::Blank]
        );
        assert_eq!(g.rows(), 2);
        assert_eq!(g.pages_per_row(), 8);
    }

    #[test]
    fn a_run_pushed_at_once_is_the_run_pushed_page_by_page() {
        // Runs across cells' ends, of every kind, at 1 and 8 pages a cell.
        let runs = [
            (Cell::Bar(2, 0.5), 3u64),
            (Cell::Class(0), 21),
            (Cell::Blank, 10),
            (Cell::Heat(3.0), 5),
            (Cell::Class(1), 1000),
            (Cell::Class(0), 7),
        ];
        for per in [1, 8] {
            let total: u64 = runs.iter().map(|r| r.1).sum();
            let (mut one, mut many) = (
                GridBuilder::new(total, 4, per),
                GridBuilder::new(total, 4, per),
            );
            for (cell, k) in runs {
                for _ in 0..k {
                    one.push(cell);
                }
                many.push_run(cell, k);
            }
            assert_eq!(one.finish(), many.finish(), "{per} pages a cell");
        }
    }

    #[test]
    fn pages_per_cell_is_the_smallest_power_of_two_that_fits() {
        assert_eq!(pages_per_cell(0, 64, 10), 1);
        assert_eq!(pages_per_cell(640, 64, 10), 1);
        assert_eq!(pages_per_cell(641, 64, 10), 2);
        // 10 GiB of 16K pages in 160 rows of 64.
        let k = pages_per_cell(655_360, 64, 160);
        assert_eq!(k, 64);
        assert!(655_360u64.div_ceil(k) <= 64 * 160);
        assert!(655_360u64.div_ceil(k / 2) > 64 * 160);
        assert!(pages_per_cell(u64::MAX, 1, 1) >= 1 << 62);
    }

    #[test]
    fn huge_page_counts_stay_bounded() {
        let n = 10_000_000u64;
        let k = pages_per_cell(n, 64, 160);
        let mut b = GridBuilder::new(n, 64, k);
        for p in 0..n {
            b.push(if p % 3 == 0 {
                Cell::Class(0)
            } else {
                Cell::Heat(p as f64)
            });
        }
        let g = b.finish();
        assert!(g.cells.len() <= 64 * 160);
        assert_eq!(g.cells.len() as u64, n.div_ceil(k));
    }

    #[test]
    fn a_range_labels_its_rows_from_its_first_page() {
        let mut b = GridBuilder::new(10, 2, 3).starting_at(100);
        for _ in 0..10 {
            b.push(Cell::Class(0));
        }
        let g = b.finish();
        // 10 pages from page 100, 3 a cell: 4 cells, 2 rows of 6 pages.
        assert_eq!(g.cells.len(), 4);
        assert_eq!((g.row_start(0), g.row_start(1)), (100, 106));
    }

    #[test]
    fn scale_with_equal_ends_puts_everything_high() {
        let s = Scale { lo: 5.0, hi: 5.0 };
        assert_eq!(s.t(5.0), 1.0);
        let s = Scale { lo: 0.0, hi: 10.0 };
        assert_eq!(s.t(5.0), 0.5);
        assert_eq!(s.t(-1.0), 0.0);
        assert_eq!(s.t(f64::NAN), 1.0);
    }
}
