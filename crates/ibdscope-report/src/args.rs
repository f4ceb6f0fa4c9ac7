//! The checked arguments of one run: which command, its options, the input
//! files and how to print. Built by a front end (the `ibdscope` binary's
//! clap definitions) before any file is opened; plain data, no parsing.

use ibdscope::host::Host;
pub use ibdscope_core::Options as SpaceOptions;
pub use ibdscope_render::ImageFormat;
use std::path::PathBuf;
use std::sync::Arc;

/// When to colour terminal output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Color {
    /// When stdout is a terminal and NO_COLOR is unset.
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

/// What `compare` draws for each file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Metric {
    /// Owner of each page (index, free, system) and fill.
    Extents,
    /// Page LSN, old to new within each file.
    Lsn,
    /// Fill of each index page.
    Fill,
}

/// How page LSNs map to colours (`lsn`, `compare --metric lsn`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum LsnScaleKind {
    /// By rank: a page's colour is the share of pages with an older LSN,
    /// so a few outliers (page 1, written at creation) cannot flatten the
    /// rest.
    #[default]
    Rank,
    /// Linear between the oldest and the newest LSN.
    Linear,
}

/// Which pages the LSN scale is made of.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum LsnScalePages {
    /// Every page with an LSN.
    #[default]
    All,
    /// Only index pages (INDEX, RTREE, SDI); the others are drawn on it,
    /// clamped at its ends.
    Index,
}

/// The LSN colour scale.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LsnScale {
    /// Rank or linear.
    pub kind: LsnScaleKind,
    /// The pages it is made of.
    pub pages: LsnScalePages,
}

/// Which pages a map draws and how many a cell holds (`extents`, `lsn`,
/// `fill`, `compare`; see `maps::MapScale` for the default).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MapOpts {
    /// First page drawn (`--from`).
    pub from: u32,
    /// Last page drawn, inclusive (`--to`; default the last page).
    pub to: Option<u32>,
    /// Pages per cell (`--pages-per-cell`; default: the smallest power of
    /// two that keeps the map within `maps::MAX_ROWS` rows).
    pub pages_per_cell: Option<u64>,
}

/// Output formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Format {
    /// Human-readable text.
    Text,
    /// One JSON document.
    Json,
    /// One JSON object per line.
    Jsonl,
    /// Comma-separated values with a header line.
    Csv,
    /// Tab-separated values, as the server's SELECT … INTO OUTFILE writes
    /// them (`rows`).
    Tsv,
    /// INSERT statements (`rows`).
    Sql,
}

/// Which command, with its own options.
#[derive(Clone, Debug)]
pub enum Cmd {
    /// `info`.
    Info,
    /// `pages`.
    Pages {
        /// First page.
        from: u32,
        /// Last page.
        to: Option<u32>,
    },
    /// `types`.
    Types,
    /// `check`.
    Check,
    /// `extents`.
    Extents,
    /// `segments`.
    Segments,
    /// `lists`.
    Lists,
    /// `indexes`.
    Indexes,
    /// `audit`.
    Audit,
    /// `diff`.
    Diff,
    /// `lsn`.
    Lsn,
    /// `fill`.
    Fill,
    /// `compare`.
    Compare,
    /// `sdi`.
    Sdi,
    /// `tables`: the InnoDB dictionary of a datadir.
    Tables,
    /// `undo`: the undo logs of a datadir.
    Undo,
    /// `page`.
    Page {
        /// The page number.
        page: u32,
    },
    /// `records`.
    Records(RecordsOpts),
    /// `schema`.
    Schema(DefOpts),
    /// `rows`.
    Rows(RowsOpts),
    /// `history`: rows' older versions from the undo logs.
    History(HistoryOpts),
    /// `restore`: a copy of the file with its damaged pages taken from the
    /// doublewrite buffer.
    Restore(RestoreOpts),
    /// `carve`: InnoDB pages found in any bytes, one image per space.
    Carve(CarveOpts),
}

/// What `carve` accepts and where it writes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CarveOpts {
    /// `--out`: the directory the images go into (made if missing).
    pub out: PathBuf,
    /// `--align`: candidate positions are multiples of this (512).
    pub align: u32,
    /// `--unverified`: accept self-consistent headers too.
    pub unverified: bool,
    /// `--index-id`: gather one index's pages across spaces.
    pub index_id: Option<u64>,
}

/// What `history` reads.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HistoryOpts {
    /// The definition's source.
    pub def: DefOpts,
    /// The datadir whose system tablespace and undo tablespaces hold the
    /// undo logs (default: the file's directory or its parent, whichever
    /// holds `ibdata1`).
    pub datadir: Option<PathBuf>,
    /// Only the row with this key (its unique key's columns as text,
    /// joined by commas).
    pub key: Option<String>,
    /// The index named (it must be the clustered index).
    pub index: Option<String>,
}

/// What `restore` reads and writes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RestoreOpts {
    /// `--datadir`: the datadir whose system tablespace holds the
    /// doublewrite buffer (default: the file's directory or its parent,
    /// whichever holds `ibdata1`).
    pub datadir: Option<PathBuf>,
    /// `--out`: the new file.
    pub out: PathBuf,
    /// `--force`: replace `out` when it exists (refused otherwise).
    pub force: bool,
}

pub use ibdscope::definition::DefOpts;

/// What `rows` reads and shows.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RowsOpts {
    /// The definition's source.
    pub def: DefOpts,
    /// An index name or id.
    pub index: Option<String>,
    /// Only deleted rows.
    pub deleted: bool,
    /// Live and deleted rows.
    pub with_deleted: bool,
    /// Only this page.
    pub where_page: Option<u32>,
    /// Hidden system columns too.
    pub hidden: bool,
    /// Cap on one off-page value.
    pub max_value_bytes: usize,
    /// A carved image's source map (default: `FILE.sources` beside it).
    pub sources: Option<PathBuf>,
}

/// What `records` walks and shows.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RecordsOpts {
    /// Only this index.
    pub index: Option<u64>,
    /// Only the index of this name, found in the table definition (the
    /// SDI, or the .frm beside the file).
    pub index_name: Option<String>,
    /// Only delete-marked and free-chain records.
    pub deleted: bool,
    /// Only this page.
    pub page: Option<u32>,
    /// Every page the index owns (and freed pages with its records).
    pub all_pages: bool,
    /// A carved image's source map (default: `FILE.sources` beside it).
    pub sources: Option<PathBuf>,
}

/// MariaDB `file_key_management` key files, for the front end that reads
/// `--key-file` (the parsing is the core's).
pub use ibdscope_core::crypt::mariadb::{password_from_file, KeyFile, MAX_KEY_FILE_SIZE};

/// Checked options for one run.
#[derive(Debug)]
pub struct Opts {
    /// The command.
    pub cmd: Cmd,
    /// Input files.
    pub files: Vec<PathBuf>,
    /// Output format.
    pub format: Format,
    /// How the page core opens a file (a forced page size).
    pub lib: ibdscope_core::Options,
    /// Threads for whole-file passes (0 counts as 1); no output depends on
    /// it ([`Opts::engine`]).
    pub threads: usize,
    /// Colour choice for terminal maps.
    pub color: Color,
    /// ASCII-only drawing.
    pub ascii: bool,
    /// Picture file to write, with its format.
    pub out: Option<(PathBuf, ImageFormat)>,
    /// `extents`, `lsn`, `fill`, `compare`: print the picture `--out` would
    /// draw as JSON ([`crate::out::picture_json`]: each cell's colour, the
    /// legend, the colour scale) instead of the report; `serve`'s maps draw
    /// it.
    pub picture_json: bool,
    /// What `compare` draws.
    pub metric: Metric,
    /// How `lsn` and `compare --metric lsn` colour LSNs.
    pub lsn_scale: LsnScale,
    /// The maps' page range and pages per cell.
    pub map: MapOpts,
    /// List every page a note concerns (else: a count and the first pages).
    pub verbose: bool,
    /// Leave out what comes from pages that do not verify (`rows`,
    /// `records`).
    pub verified_only: bool,
    /// `indexes --levels`: one row per index and level.
    pub levels: bool,
    /// `page --hex`: the page's bytes, each range named.
    pub hex: bool,
    /// Where input files are opened.
    pub host: Arc<dyn Host>,
    /// MariaDB `file_key_management` keys (`--key-file`): the structure
    /// commands read an encrypted MariaDB space's decrypted image.
    pub key_file: Option<KeyFile>,
    /// `--data-file-path`: the system tablespace's file names as
    /// `innodb_data_file_path` lists them (else `ibdata1`, `ibdata2`…).
    pub data_files: Option<Vec<PathBuf>>,
    /// `indexes --datadir`: the datadir whose dictionary defines the table
    /// for the commands whose options carry no definition source.
    pub datadir: Option<PathBuf>,
}

impl Opts {
    /// A run of `cmd` over `files` printed as `format`, files opened through
    /// `host`, with every other option at its plain value: one thread,
    /// detected page size, no colour, no picture, `extents` metric, the
    /// default LSN scale, the default map scale, not verbose, every page. Set the fields to change
    /// them (`Opts { threads: 4, ..Opts::new(…) }`).
    pub fn new(cmd: Cmd, files: Vec<PathBuf>, format: Format, host: Arc<dyn Host>) -> Opts {
        Opts {
            cmd,
            files,
            format,
            lib: ibdscope_core::Options::default(),
            threads: 1,
            color: Color::Never,
            ascii: false,
            out: None,
            picture_json: false,
            metric: Metric::Extents,
            lsn_scale: LsnScale::default(),
            map: MapOpts::default(),
            verbose: false,
            verified_only: false,
            levels: false,
            hex: false,
            host,
            key_file: None,
            data_files: None,
            datadir: None,
        }
    }

    /// The scan engine of this run: [`Opts::threads`] threads, no release
    /// hook (the commands that pass over a file once add the input's own,
    /// see `cmd::with_space`).
    pub fn engine(&self) -> ibdscope_core::Engine<'static> {
        ibdscope_core::Engine::new(self.threads)
    }
}

/// A `--page-size` argument (`16k`, `8192`): one of the page sizes InnoDB
/// has.
pub fn page_size(s: &str) -> Result<u32, crate::error::Error> {
    let lower = s.to_ascii_lowercase();
    let (digits, mult) = match lower.strip_suffix('k') {
        Some(d) => (d, 1024),
        None => (lower.as_str(), 1),
    };
    digits
        .parse::<u32>()
        .ok()
        .and_then(|n| n.checked_mul(mult))
        .filter(|n| ibdscope_core::space::PAGE_SIZES.contains(n))
        .ok_or_else(|| crate::error::Error::run(crate::error::ErrorKind::PageSize(s.to_string())))
}

#[cfg(test)]
#[allow(
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic
)]
mod tests {
    use super::*;

    #[test]
    fn page_sizes() {
        assert_eq!(page_size("16k").unwrap(), 16384);
        assert_eq!(page_size("8192").unwrap(), 8192);
        assert_eq!(
            page_size("3000").unwrap_err().to_string(),
            "'3000' is not a page size (1k, 2k, 4k, 8k, 16k, 32k or 64k)"
        );
        assert!(page_size("3000").is_err());
        assert!(page_size("99999999999k").is_err());
    }
}
