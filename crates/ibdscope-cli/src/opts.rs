//! Command-line arguments (clap) and the checked options built from them
//! before any file is opened (ripgrep's low-level/high-level args split).

use crate::error::{Error, ErrorKind};
use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};
use ibdscope_report::args::{
    CarveOpts, Cmd, Color, DefOpts, Format, HistoryOpts, ImageFormat, LsnScale, LsnScaleKind,
    LsnScalePages, MapOpts, Metric, Opts, RecordsOpts, RestoreOpts, RowsOpts, SpaceOptions,
};
use std::path::PathBuf;

/// Read InnoDB tablespace files (.ibd) exactly, quickly and read-only.
#[derive(Parser, Debug)]
#[command(name = "ibdscope", version, about, max_term_width = 100)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Threads for whole-file passes (default: the available cores).
    /// Output is the same for every value.
    #[arg(long, global = true, value_name = "N", value_parser = parse_threads)]
    threads: Option<usize>,
    /// List every page a finding concerns (by default a note that holds
    /// for many pages is printed once, with a count and the first pages).
    #[arg(long, short = 'v', global = true)]
    verbose: bool,
    /// Decrypt MySQL/Percona encrypted tablespaces (ENCRYPTION='Y') with
    /// the master keys of this keyring: a keyring_file plugin data file or
    /// a component_keyring_file JSON file. Every command then reads the
    /// decrypted pages; a key that does not match is a finding.
    #[arg(long, global = true, value_name = "FILE")]
    keyring: Option<PathBuf>,
    /// Decrypt MariaDB encrypted tablespaces with the keys of this
    /// file_key_management key file (`id;hex-key` lines, or that file
    /// encrypted with `openssl enc -aes-256-cbc -md sha1`). The structure
    /// commands then read the decrypted pages; a wrong key is a finding.
    #[arg(long, global = true, value_name = "FILE")]
    key_file: Option<PathBuf>,
    /// The password of an encrypted --key-file (as the plugin's
    /// file_key_management_filekey: `FILE:path` reads it from a file).
    /// ibdscope wipes its copy after use, but a command line is visible
    /// to other processes: prefer --key-file-key-file.
    #[arg(long, global = true, value_name = "PASSWORD", requires = "key_file")]
    key_file_key: Option<String>,
    /// The `--key-file-key` password itself, taken out of the arguments
    /// before clap reads them (clap sees a placeholder); wiped on drop.
    #[arg(skip)]
    password: Option<Password>,
    /// Read the password of an encrypted --key-file from this file (its
    /// first line, as the plugin reads `FILE:`).
    #[arg(
        long,
        global = true,
        value_name = "FILE",
        requires = "key_file",
        conflicts_with = "key_file_key"
    )]
    key_file_key_file: Option<PathBuf>,
    /// The system tablespace's data files as the server's
    /// innodb_data_file_path lists them (`ibd_a:12M;ibd_b:12M:autoextend`):
    /// the first is read as space 0 continued by the others beside it
    /// (default: ibdata1, then ibdata2, ibdata3… while they exist).
    #[arg(long, global = true, value_name = "SPEC", value_parser = parse_data_file_path)]
    data_file_path: Option<DataFilePath>,
}

/// `--data-file-path`'s file names.
#[derive(Clone, Debug)]
struct DataFilePath(Vec<PathBuf>);

fn parse_data_file_path(s: &str) -> Result<DataFilePath, Error> {
    ibdscope_report::instance::parse_data_file_path(s)
        .map(DataFilePath)
        .map_err(|e| Error::argument(ErrorKind::DataFilePath(e)))
}

/// The most threads accepted (far more than any pass can use).
const MAX_THREADS: usize = 1024;

fn parse_threads(s: &str) -> Result<usize, Error> {
    s.parse::<usize>()
        .ok()
        .filter(|n| (1..=MAX_THREADS).contains(n))
        .ok_or_else(|| Error::argument(ErrorKind::Threads(s.to_string(), MAX_THREADS)))
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Vendor, format, page size, space id, flags, checksum algorithm, LSN range.
    Info(Common),
    /// One row per page: number, type, prev, next, LSN, space id, checksum.
    Pages {
        #[command(flatten)]
        common: Common,
        /// First page to list.
        #[arg(long, default_value_t = 0)]
        from: u32,
        /// Last page to list (inclusive).
        #[arg(long)]
        to: Option<u32>,
    },
    /// Pages and share per page type, and runs of consecutive pages of one type.
    Types(Common),
    /// Map of the space by owner and fill (the header says what a cell and a row hold).
    Extents {
        #[command(flatten)]
        common: Common,
        #[command(flatten)]
        draw: Draw,
    },
    /// LSN-age map (old to new) and histogram of page LSNs.
    Lsn {
        #[command(flatten)]
        common: Common,
        #[command(flatten)]
        draw: Draw,
        #[command(flatten)]
        scale: ScaleArgs,
    },
    /// Page-fill map and per-index fill histograms, fill and leaf order.
    Fill {
        #[command(flatten)]
        common: Common,
        #[command(flatten)]
        draw: Draw,
    },
    /// Several files side by side: pages, fill, leaf order; a picture with --out.
    Compare {
        /// Tablespace files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// What the maps show for each file (terminal and picture).
        #[arg(long, value_enum, default_value_t = MetricArg::Extents)]
        metric: MetricArg,
        /// Colour of the terminal maps: auto (when stdout is a terminal),
        /// always, never.
        #[arg(long, value_enum, default_value_t = ColorArg::Auto)]
        color: ColorArg,
        /// Draw the terminal maps with ASCII only.
        #[arg(long)]
        ascii: bool,
        /// Write the picture to this file (.png or .svg).
        #[arg(long, value_name = "PICTURE")]
        out: Option<PathBuf>,
        #[command(flatten)]
        scale: ScaleArgs,
        #[command(flatten)]
        map: MapArgs,
        #[command(flatten)]
        shared: Shared,
    },
    /// Each file segment: id, index, role, used and reserved pages, extents.
    Segments(Common),
    /// The FSP lists with their lengths and members.
    Lists(Common),
    /// Per index: id, root page, height, leaf and internal pages, reserved, fill.
    Indexes {
        #[command(flatten)]
        common: Common,
        /// One row per index and level: pages, records, fill, chain order.
        #[arg(long)]
        levels: bool,
        /// The datadir whose InnoDB dictionary (ibdata1; MySQL 5.x, MariaDB)
        /// names the indexes; default: ibdata1 beside the file or in its
        /// parent when the file has no SDI and no .frm.
        #[arg(long, value_name = "DIR")]
        datadir: Option<PathBuf>,
    },
    /// The table definitions MySQL 8.0+ stores in the file (SDI), as JSON.
    Sdi(Common),
    /// Every table of a MySQL 5.x / MariaDB datadir's InnoDB dictionary
    /// (ibdata1): ids, space, row format, columns, indexes, and its file.
    Tables(Common),
    /// The undo logs of a MySQL 5.x / MariaDB datadir (ibdata1, undo001…):
    /// rollback segments, history list lengths, each undo log's
    /// transaction, state, record types and tables.
    Undo(Common),
    /// One page in full: FIL and INDEX header fields, directory, records, free chain, byte map.
    Page {
        #[command(flatten)]
        common: Common,
        /// Page number.
        page: u32,
        /// An annotated hex dump: every byte range named by its structure.
        #[arg(long)]
        hex: bool,
    },
    /// Records of an index, one per line: page, offset, heap no, flags, fields as hex.
    Records {
        #[command(flatten)]
        common: Common,
        /// Only this index: its name (from the table definition: the SDI,
        /// or the .frm beside the file) or InnoDB index id (`ibdscope
        /// indexes`).
        #[arg(long, value_name = "NAME|ID")]
        index: Option<String>,
        /// Only delete-marked records and records on the free (garbage) chain.
        #[arg(long)]
        deleted: bool,
        /// Only this page (any index page).
        #[arg(long, value_name = "N", conflicts_with = "all_pages")]
        page: Option<u32>,
        /// Every index page the index owns, linked or not, and freed pages still holding its records, in page order (default: the leaf chain in key order).
        #[arg(long)]
        all_pages: bool,
        /// A carved image's source map, which gives each record's byte
        /// offset in the source carved (default: FILE.sources beside the
        /// file, which `carve` writes, when there is one).
        #[arg(long, value_name = "FILE")]
        sources: Option<PathBuf>,
        /// Leave out records from pages that do not verify (checksum, LSN,
        /// page number or space id); by default they are shown and marked.
        #[arg(long)]
        verified_only: bool,
    },
    /// The table definition as CREATE TABLE: from the SDI in the file
    /// (MySQL 8.0+), a .frm file (--frm, or <name>.frm beside the file), or
    /// a CREATE TABLE statement (--ddl).
    Schema {
        #[command(flatten)]
        common: Common,
        #[command(flatten)]
        def: DefSource,
    },
    /// Every row of the clustered index (or a secondary index's entries),
    /// typed, in key order; --deleted for deleted rows still in the file.
    Rows {
        #[command(flatten)]
        common: Common,
        #[command(flatten)]
        def: DefSource,
        /// The index to read: its name or InnoDB index id (default: the
        /// clustered index).
        #[arg(long, value_name = "NAME|ID")]
        index: Option<String>,
        /// Only deleted rows: delete-marked records and records on the
        /// pages' free (garbage) lists, each with page, offset, origin and
        /// how complete it is.
        #[arg(long, conflicts_with = "with_deleted")]
        deleted: bool,
        /// Live rows and deleted ones, each flagged.
        #[arg(long)]
        with_deleted: bool,
        /// Only the records of this leaf page of the index (the old
        /// spelling `--where-page` is still accepted).
        #[arg(long = "page", alias = "where-page", value_name = "N")]
        where_page: Option<u32>,
        /// Also the hidden columns InnoDB adds (DB_ROW_ID, DB_TRX_ID,
        /// DB_ROLL_PTR).
        #[arg(long)]
        hidden: bool,
        /// Leave out rows from pages that do not verify (checksum, LSN,
        /// page number or space id); by default they are shown and marked.
        #[arg(long)]
        verified_only: bool,
        /// Most bytes read of one off-page value; longer values are shown
        /// as hex of their first bytes and marked truncated.
        #[arg(long, value_name = "BYTES", default_value_t = 16 << 20)]
        max_value_bytes: usize,
        /// A carved image's source map, which adds each row's source file
        /// and byte offset there (JSON, JSONL, CSV, text; not TSV)
        /// (default: FILE.sources beside the file, which `carve` writes,
        /// when there is one).
        #[arg(long, value_name = "FILE")]
        sources: Option<PathBuf>,
    },
    /// Each row's older versions (MySQL 5.x, MariaDB), oldest first, from
    /// its roll pointer through the undo logs not yet purged (ibdata1 and
    /// undo001… of --datadir), with the transaction that wrote each.
    History {
        /// Tablespace file.
        file: PathBuf,
        /// The datadir (ibdata1, undo001…; its dictionary defines the table
        /// when the file has no .frm beside it); default: the file's
        /// directory or its parent, whichever holds ibdata1.
        #[arg(long, value_name = "DIR")]
        datadir: Option<PathBuf>,
        /// The table's .frm file (default: <name>.frm beside the file).
        #[arg(long, value_name = "FILE")]
        frm: Option<PathBuf>,
        /// Only the row with this primary key (columns joined by commas).
        #[arg(long, value_name = "VALUE")]
        key: Option<String>,
        /// The index (must be the clustered index).
        #[arg(long, value_name = "NAME")]
        index: Option<String>,
        #[command(flatten)]
        shared: Shared,
    },
    /// Verify every page: checksum, header/trailer LSN, page number, space id.
    Check {
        /// Tablespace files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        #[command(flatten)]
        shared: Shared,
    },
    /// Audit copied datafiles or whole datadirs: one verdict per file with
    /// its evidence; for a datadir also the redo checkpoint, crash recovery
    /// needs and LSN spread.
    Audit {
        /// Tablespace files, or directories to walk for them (a datadir).
        #[arg(required = true, value_name = "PATH")]
        paths: Vec<PathBuf>,
        #[command(flatten)]
        shared: Shared,
    },
    /// Write a copy of a tablespace with its damaged (torn) pages taken from
    /// the datadir's doublewrite buffer, as the server's crash recovery
    /// would; the input is never written.
    Restore {
        #[command(flatten)]
        common: Common,
        /// The datadir whose ibdata1 holds the doublewrite buffer (and
        /// whose redo log gives MariaDB's checkpoint); default: the file's
        /// directory or its parent, whichever holds ibdata1.
        #[arg(long, value_name = "DIR")]
        datadir: Option<PathBuf>,
        /// The new file to write (never one of the inputs; an existing
        /// file only with --force).
        #[arg(long, value_name = "NEW")]
        out: PathBuf,
        /// Replace --out when it exists (it is refused otherwise: a
        /// forensic copy is never overwritten by mistake).
        #[arg(long)]
        force: bool,
    },
    /// Find InnoDB pages in any file or block device (a disk or
    /// filesystem image, an ibdata1, a reused file) and write one
    /// tablespace image per space into DIR; the sources are only read.
    Carve {
        /// Files or block devices to search.
        #[arg(required = true, value_name = "SOURCE")]
        sources: Vec<PathBuf>,
        /// The directory the images are written into (made if missing).
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
        /// Candidate positions are multiples of this many bytes.
        #[arg(long, value_name = "BYTES", default_value_t = 512)]
        align: u32,
        /// Also accept pages whose checksum does not verify when their
        /// header is self-consistent (the LSN's low word in the trailer).
        #[arg(long)]
        unverified: bool,
        /// Gather the index pages of this index id across spaces into one
        /// image (index-<id>.ibd).
        #[arg(long, value_name = "ID")]
        index_id: Option<u64>,
        #[command(flatten)]
        shared: Shared,
    },
    /// Compare two copies of one tablespace page by page: pages that
    /// differ, their LSN moves and index, pages in one copy only.
    Diff {
        /// The first copy (e.g. the older one).
        #[arg(value_name = "FILE_A")]
        a: PathBuf,
        /// The second copy.
        #[arg(value_name = "FILE_B")]
        b: PathBuf,
        #[command(flatten)]
        shared: Shared,
    },
    /// A local, read-only web explorer of the files and datadirs named:
    /// binds 127.0.0.1 only and prints its URL, which carries a token
    /// every request needs (docs/serve.md).
    Serve {
        /// Files and datadirs to serve.
        #[arg(required_unless_present = "datadir")]
        paths: Vec<PathBuf>,
        /// A datadir, served as one item (its audit, its tables), whose
        /// InnoDB dictionary (ibdata1; MySQL 5.x, MariaDB) defines the
        /// tables of every file served.
        #[arg(long, value_name = "DIR")]
        datadir: Option<PathBuf>,
        /// The port (default: a free one).
        #[arg(long, default_value_t = 0)]
        port: u16,
        /// Open the URL in the desktop's browser (`xdg-open`, macOS
        /// `open`); the server serves whether that works or not.
        #[arg(long)]
        open: bool,
        /// Physical page size, overriding detection (e.g. 16k, 8192).
        #[arg(long, value_parser = ibdscope_report::args::page_size)]
        page_size: Option<u32>,
    },
    /// Print a completion script for bash, zsh or fish, made from these
    /// commands and flags.
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: crate::complete::Shell,
    },
}

/// Where a table definition comes from when the file holds none.
#[derive(clap::Args, Debug)]
struct DefSource {
    /// The table's .frm file (MySQL 5.x, MariaDB); default: <name>.frm
    /// beside the file when the file has no SDI.
    #[arg(long, value_name = "FILE")]
    frm: Option<PathBuf>,
    /// A file with the table's CREATE TABLE statement (SHOW CREATE TABLE
    /// or mysqldump output; with several tables, the one named like the
    /// file), for files with neither an SDI nor a .frm.
    #[arg(long, value_name = "FILE", conflicts_with = "frm")]
    ddl: Option<PathBuf>,
    /// The datadir whose InnoDB dictionary (ibdata1; MySQL 5.x, MariaDB)
    /// defines the table; default: ibdata1 beside the file or in its parent
    /// when the file has no SDI and no .frm.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["frm", "ddl"])]
    datadir: Option<PathBuf>,
    /// The dictionary's table DB/NAME (`ibdscope tables`): for a table in
    /// the system tablespace, read from ibdata1.
    #[arg(long, value_name = "DB/NAME", conflicts_with_all = ["frm", "ddl"])]
    table: Option<String>,
    /// Read no definition: infer the columns from the table's own records
    /// (c1, c2, …, each with its confidence and evidence).
    #[arg(long, conflicts_with_all = ["frm", "ddl", "datadir", "table"])]
    infer: bool,
}

#[derive(clap::Args, Debug)]
struct Common {
    /// Tablespace file.
    file: PathBuf,
    #[command(flatten)]
    shared: Shared,
}

/// How maps are drawn: terminal colour and glyphs, or a picture file.
#[derive(clap::Args, Debug)]
struct Draw {
    /// Colour: auto (when stdout is a terminal), always, never.
    #[arg(long, value_enum, default_value_t = ColorArg::Auto)]
    color: ColorArg,
    /// Draw with ASCII only (for terminals without Unicode).
    #[arg(long)]
    ascii: bool,
    /// Write a picture to this file instead (.png or .svg, by extension).
    #[arg(long, value_name = "PICTURE")]
    out: Option<PathBuf>,
    #[command(flatten)]
    map: MapArgs,
}

/// Which pages a map draws and how many a cell holds.
#[derive(clap::Args, Debug)]
struct MapArgs {
    /// First page to draw (compare: in pages of the largest page size).
    #[arg(long, value_name = "N", default_value_t = 0)]
    from: u32,
    /// Last page to draw, inclusive (default: the last page).
    #[arg(long, value_name = "M")]
    to: Option<u32>,
    /// Pages per cell (default: the smallest power of two that keeps the
    /// map within 128 rows of 64 cells; compare: pages of the largest page
    /// size, every file's cell holding the same bytes).
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u64).range(1..))]
    pages_per_cell: Option<u64>,
}

impl MapArgs {
    fn checked(self) -> Result<MapOpts, Error> {
        if let Some(to) = self.to.filter(|&to| to < self.from) {
            return Err(Error::argument(ErrorKind::ToBeforeFrom {
                to: u64::from(to),
                from: u64::from(self.from),
            }));
        }
        Ok(MapOpts {
            from: self.from,
            to: self.to,
            pages_per_cell: self.pages_per_cell,
        })
    }
}

/// How LSNs map to colours.
#[derive(clap::Args, Debug)]
struct ScaleArgs {
    /// LSN colour scale: rank (a page's share of older pages, so that a
    /// few old system pages do not flatten the rest) or linear (between
    /// the oldest and newest LSN).
    #[arg(long, value_enum, default_value_t = ScaleArg::Rank)]
    scale: ScaleArg,
    /// Pages the LSN scale is made of: all, or index (INDEX, RTREE, SDI
    /// pages; the others are drawn on it, clamped at its ends).
    #[arg(long, value_enum, default_value_t = ScalePagesArg::All)]
    scale_pages: ScalePagesArg,
}

/// The LSN colour scale.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum ScaleArg {
    /// By rank among the pages.
    Rank,
    /// Linear between the oldest and newest LSN.
    Linear,
}

/// The pages the LSN scale is made of.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum ScalePagesArg {
    /// Every page with an LSN.
    All,
    /// Index pages only.
    Index,
}

impl From<&ScaleArgs> for LsnScale {
    fn from(a: &ScaleArgs) -> Self {
        LsnScale {
            kind: match a.scale {
                ScaleArg::Rank => LsnScaleKind::Rank,
                ScaleArg::Linear => LsnScaleKind::Linear,
            },
            pages: match a.scale_pages {
                ScalePagesArg::All => LsnScalePages::All,
                ScalePagesArg::Index => LsnScalePages::Index,
            },
        }
    }
}

#[derive(clap::Args, Debug)]
struct Shared {
    /// Output format.
    #[arg(long, value_enum, default_value_t = FormatArg::Text)]
    format: FormatArg,
    /// Physical page size, overriding detection (e.g. 16k, 8192).
    #[arg(long, value_parser = ibdscope_report::args::page_size)]
    page_size: Option<u32>,
}

/// When to colour terminal output.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ColorArg {
    /// When stdout is a terminal and NO_COLOR is unset.
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

/// What `compare` draws for each file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum MetricArg {
    /// Owner of each page (index, free, system) and fill.
    Extents,
    /// Page LSN, old to new within each file.
    Lsn,
    /// Fill of each index page.
    Fill,
}

/// Output formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
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

impl From<ColorArg> for Color {
    fn from(c: ColorArg) -> Self {
        match c {
            ColorArg::Auto => Color::Auto,
            ColorArg::Always => Color::Always,
            ColorArg::Never => Color::Never,
        }
    }
}

impl From<MetricArg> for Metric {
    fn from(m: MetricArg) -> Self {
        match m {
            MetricArg::Extents => Metric::Extents,
            MetricArg::Lsn => Metric::Lsn,
            MetricArg::Fill => Metric::Fill,
        }
    }
}

impl From<FormatArg> for Format {
    fn from(f: FormatArg) -> Self {
        match f {
            FormatArg::Text => Format::Text,
            FormatArg::Json => Format::Json,
            FormatArg::Jsonl => Format::Jsonl,
            FormatArg::Csv => Format::Csv,
            FormatArg::Tsv => Format::Tsv,
            FormatArg::Sql => Format::Sql,
        }
    }
}

/// Every subcommand's name, the formats it offers and the examples its
/// `--help` shows. The examples run as written from the repository's root
/// (a test runs every one of them).
const COMMANDS: &[(&str, &[Format], &[&str])] = &[
    (
        "info",
        TEXT_JSON,
        &[
            "ibdscope info fixtures/mysql56/secondary.ibd",
            "ibdscope info --format json fixtures/mariadb1011/secondary.ibd",
        ],
    ),
    (
        "pages",
        LINES,
        &[
            "ibdscope pages fixtures/mysql56/secondary.ibd --from 3 --to 10",
            "ibdscope pages --format csv fixtures/mariadb1011/secondary.ibd",
        ],
    ),
    (
        "types",
        &[Format::Text, Format::Json, Format::Csv],
        &[
            "ibdscope types fixtures/mysql56/secondary.ibd",
            "ibdscope types --format csv fixtures/mariadb1011-4k/secondary.ibd",
        ],
    ),
    (
        "extents",
        TEXT_JSON_CSV,
        &[
            "ibdscope extents fixtures/mysql56/secondary.ibd",
            "ibdscope extents fixtures/mysql56/secondary.ibd --out extents.png",
            "ibdscope extents fixtures/mariadb1011-4k/secondary.ibd --from 64 --to 112 --pages-per-cell 2",
            "ibdscope extents --format csv fixtures/mysql56/secondary.ibd",
        ],
    ),
    (
        "lsn",
        TEXT_JSON,
        &[
            "ibdscope lsn fixtures/mysql56/dml.ibd",
            "ibdscope lsn fixtures/mariadb1011/dml.ibd --out lsn.svg",
            "ibdscope lsn fixtures/mysql56/dml.ibd --pages-per-cell 4",
        ],
    ),
    (
        "fill",
        TEXT_JSON,
        &[
            "ibdscope fill fixtures/mysql56/uuid_char36.ibd",
            "ibdscope fill fixtures/mysql56/uuid_char36.ibd --ascii --color never",
        ],
    ),
    (
        "compare",
        TEXT_JSON_CSV,
        &[
            "ibdscope compare fixtures/mysql56/ai_int.ibd fixtures/mysql56/uuid_char36.ibd",
            "ibdscope compare --metric lsn fixtures/mariadb1011-4k/secondary.ibd fixtures/mariadb1011/secondary.ibd",
            "ibdscope compare --metric fill --out fill.png fixtures/mysql56/ai_int.ibd fixtures/mysql56/uuid_char36.ibd",
        ],
    ),
    (
        "segments",
        TEXT_JSON_CSV,
        &["ibdscope segments fixtures/mysql56/secondary.ibd"],
    ),
    (
        "lists",
        TEXT_JSON,
        &["ibdscope lists fixtures/mysql56/secondary.ibd"],
    ),
    (
        "indexes",
        TEXT_JSON_CSV,
        &[
            "ibdscope indexes fixtures/mysql56/secondary.ibd",
            "ibdscope indexes --format json fixtures/mariadb1011/secondary.ibd",
            "ibdscope indexes --format csv fixtures/mysql56/secondary.ibd",
            "ibdscope indexes --levels fixtures/mariadb1011-4k/secondary.ibd",
        ],
    ),
    (
        "sdi",
        TEXT_JSON,
        &["ibdscope sdi fixtures/mariadb1011/secondary.ibd"],
    ),
    (
        "page",
        TEXT_JSON,
        &[
            "ibdscope page fixtures/mysql56/secondary.ibd 3",
            "ibdscope page --format json fixtures/mysql56/secondary.ibd 0",
            "ibdscope page fixtures/mysql56/secondary.ibd 3 --hex",
        ],
    ),
    (
        "records",
        LINES,
        &[
            "ibdscope records fixtures/mysql56/secondary.ibd --index 30",
            "ibdscope records fixtures/mysql56/secondary.ibd --index idx_name --all-pages",
            "ibdscope records fixtures/mysql56/deleted_marked.ibd --deleted --format csv",
            "ibdscope records fixtures/mysql56/secondary.ibd --page 3",
        ],
    ),
    (
        "schema",
        TEXT_JSON,
        &[
            "ibdscope schema fixtures/mysql56/secondary.ibd",
            "ibdscope schema fixtures/mariadb1011/types.ibd --frm fixtures/mariadb1011/types.frm",
        ],
    ),
    (
        "rows",
        &[
            Format::Text,
            Format::Json,
            Format::Jsonl,
            Format::Csv,
            Format::Tsv,
            Format::Sql,
        ],
        &[
            "ibdscope rows fixtures/mysql56/secondary.ibd",
            "ibdscope rows fixtures/mysql56/secondary.ibd --index idx_k --format csv",
            "ibdscope rows fixtures/mysql56/deleted_marked.ibd --deleted",
            "ibdscope rows fixtures/mariadb1011/secondary.ibd --page 6 --format sql",
        ],
    ),
    (
        "check",
        LINES,
        &[
            "ibdscope check fixtures/mysql56/secondary.ibd fixtures/mariadb1011/secondary.ibd",
            "ibdscope check --format jsonl fixtures/mysql56-crc32/ai_int.ibd",
        ],
    ),
    (
        "audit",
        LINES,
        &[
            "ibdscope audit fixtures/mysql56/secondary.ibd",
            "ibdscope audit fixtures/mariadb1011",
        ],
    ),
    (
        "completions",
        &[Format::Text],
        &[
            "ibdscope completions bash",
            "ibdscope completions zsh",
            "ibdscope completions fish",
        ],
    ),
    (
        "history",
        TEXT_JSON_CSV,
        &["ibdscope history --datadir datadir datadir/fx/t_basic.ibd --key 1"],
    ),
    (
        "undo",
        TEXT_JSON_CSV,
        &["ibdscope undo datadir", "ibdscope undo --format json datadir/ibdata1"],
    ),
    (
        "tables",
        TEXT_JSON_CSV,
        &[
            "ibdscope tables datadir",
            "ibdscope tables --format json datadir/ibdata1",
        ],
    ),
    (
        "restore",
        TEXT_JSON,
        &["ibdscope restore fixtures/mysql56/secondary.ibd --datadir datadir --out restored.ibd"],
    ),
    (
        "carve",
        TEXT_JSON,
        &[
            "ibdscope carve fixtures/mysql56/secondary.ibd --out carved",
            "ibdscope carve --format json datadir/ibdata1 datadir/fx/t_basic.ibd --out carved",
        ],
    ),
    (
        "diff",
        LINES,
        &["ibdscope diff fixtures/mysql56/deleted_marked.ibd fixtures/mysql56/deleted_purged.ibd"],
    ),
    (
        "serve",
        TEXT_JSON,
        &[
            "ibdscope serve fixtures/mariadb1011/ai_int.ibd fixtures/mysql56/secondary.ibd",
            "ibdscope serve --port 8123 fixtures/mariadb1011",
            "ibdscope serve --datadir datadir",
        ],
    ),
];

/// The formats subcommand `name` offers.
fn offered(name: &str) -> &'static [Format] {
    COMMANDS
        .iter()
        .find(|(n, _, _)| *n == name)
        .map_or(TEXT_JSON, |(_, f, _)| f)
}

/// The format's name on the command line.
fn format_name(f: Format) -> &'static str {
    match f {
        Format::Text => "text",
        Format::Json => "json",
        Format::Jsonl => "jsonl",
        Format::Csv => "csv",
        Format::Tsv => "tsv",
        Format::Sql => "sql",
        _ => "?",
    }
}

/// The clap command: the derived one, where each subcommand's `--format`
/// accepts (and its help lists) only the formats that subcommand offers,
/// and its help ends with examples.
pub fn cli() -> clap::Command {
    let mut cmd = Cli::command();
    for (name, formats, examples) in COMMANDS {
        let names: Vec<&str> = formats.iter().map(|f| format_name(*f)).collect();
        let values: Vec<clap::builder::PossibleValue> = FormatArg::value_variants()
            .iter()
            .filter_map(ValueEnum::to_possible_value)
            .filter(|v| names.contains(&v.get_name()))
            .collect();
        let mut after = String::from("Examples:\n");
        for e in *examples {
            after.push_str("  ");
            after.push_str(e);
            after.push('\n');
        }
        cmd = cmd.mut_subcommand(*name, |sub| {
            let sub = if sub.get_arguments().any(|a| a.get_id() == "format") {
                sub.mut_arg("format", |a| {
                    a.value_parser(
                        PossibleValuesParser::new(values)
                            .try_map(|s| FormatArg::from_str(&s, true)),
                    )
                })
            } else {
                sub
            };
            sub.after_help(after)
        });
    }
    cmd
}

/// Parses the process's arguments with [`cli`] (on an error, clap prints
/// it and exits with 2).
pub fn parse() -> Cli {
    let mut args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let password = take_password(&mut args);
    let matches = cli().get_matches_from(args);
    let mut cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    cli.password = password;
    cli
}

/// A password from the command line, wiped when dropped.
#[derive(Default)]
pub struct Password(Vec<u8>);

impl Password {
    /// The bytes.
    fn bytes(&self) -> &[u8] {
        &self.0
    }
}

impl Drop for Password {
    fn drop(&mut self) {
        ibdscope_report::decrypt::wipe(&mut self.0);
    }
}

impl std::fmt::Debug for Password {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Password(..)")
    }
}

/// What clap is given in place of the `--key-file-key` password.
const PASSWORD_PLACEHOLDER: &str = "(given)";

/// The bytes of `arg` from `skip` on, as a [`Password`] sized once; `arg`
/// is wiped and left as `keep` + the placeholder.
fn take_from(arg: &mut std::ffi::OsString, skip: usize, keep: &str) -> Password {
    let mut raw = os_bytes(std::mem::take(arg));
    let value = raw.get(skip..).unwrap_or(&[]);
    let mut pw = Vec::with_capacity(value.len());
    pw.extend_from_slice(value);
    ibdscope_report::decrypt::wipe(&mut raw);
    *arg = format!("{keep}{PASSWORD_PLACEHOLDER}").into();
    Password(pw)
}

#[cfg(unix)]
fn os_bytes(s: std::ffi::OsString) -> Vec<u8> {
    std::os::unix::ffi::OsStringExt::into_vec(s)
}

#[cfg(not(unix))]
fn os_bytes(s: std::ffi::OsString) -> Vec<u8> {
    s.into_encoded_bytes()
}

/// Takes the `--key-file-key` password out of `args` (`--key-file-key
/// VALUE` or `--key-file-key=VALUE`, before any `--`), so that clap never
/// holds it: clap keeps copies of every value it parses (one per
/// subcommand level for a global option) and drops them unwiped. The last
/// one given is returned; each is wiped in `args`. A value that starts
/// with `-` is left to clap, which refuses it as it did. (The copy the
/// operating system keeps of the command line is out of reach: prefer
/// `--key-file-key-file`.)
fn take_password(args: &mut [std::ffi::OsString]) -> Option<Password> {
    const FLAG: &str = "--key-file-key";
    let mut found = None;
    let mut i = 1;
    while let Some(arg) = args.get(i) {
        if arg == "--" {
            break;
        }
        let bytes = arg.as_encoded_bytes();
        if arg == FLAG {
            let next = i.saturating_add(1);
            let value = args
                .get(next)
                .filter(|v| !v.as_encoded_bytes().starts_with(b"-") || v.len() == 1);
            if value.is_some() {
                if let Some(v) = args.get_mut(next) {
                    found = Some(take_from(v, 0, ""));
                }
                i = next;
            }
        } else if bytes.starts_with(b"--key-file-key=") {
            let skip = FLAG.len().saturating_add(1);
            if let Some(v) = args.get_mut(i) {
                found = Some(take_from(v, skip, "--key-file-key="));
            }
        }
        i = i.saturating_add(1);
    }
    found
}

impl Cli {
    /// The shell of `ibdscope completions SHELL`, which runs no report.
    pub fn completions(&self) -> Option<crate::complete::Shell> {
        match self.command {
            Command::Completions { shell } => Some(shell),
            _ => None,
        }
    }

    /// The port of `ibdscope serve`, which serves the reports' JSON.
    pub fn serve_port(&self) -> Option<u16> {
        match self.command {
            Command::Serve { port, .. } => Some(port),
            _ => None,
        }
    }

    /// `serve --open`.
    pub fn serve_open(&self) -> bool {
        matches!(self.command, Command::Serve { open: true, .. })
    }
}

/// The `--key-file-key` password: the one taken out of the arguments, or
/// (a `Cli` not made by [`parse`]) the one clap read, moved out of `cli`.
fn key_file_password(cli: &mut Cli) -> Option<Password> {
    let given = cli.key_file_key.take().map(|s| Password(s.into_bytes()));
    match cli.password.take() {
        Some(p) => Some(p),
        None => given.filter(|p| p.bytes() != PASSWORD_PLACEHOLDER.as_bytes()),
    }
}

/// Checks the arguments into a run's options; nothing is opened yet.
pub fn from_cli(mut cli: Cli) -> Result<Opts, Error> {
    let password = key_file_password(&mut cli);
    let threads = cli
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let p = command(cli.command)?;
    let format = Format::from(p.shared.format);
    if !p.allowed.contains(&format) {
        return Err(format_error(format, p.allowed));
    }
    let out = match p.out {
        None => None,
        Some(o) => Some(out_format(o)?),
    };
    let streams = !matches!(p.cmd, Cmd::Audit);
    // The commands that read the file once release it as they go.
    let keep_small = !matches!(p.cmd, Cmd::Check | Cmd::Types | Cmd::Info | Cmd::Lsn);
    let map_host = || crate::input::MapHost::new(streams).keeping_small_files_mapped(keep_small);
    let opts = Opts {
        cmd: p.cmd,
        files: p.files,
        format,
        lib: SpaceOptions::default().with_page_size(p.shared.page_size),
        threads,
        color: p.color,
        ascii: p.ascii,
        out,
        picture_json: false,
        metric: p.metric,
        lsn_scale: p.lsn_scale,
        map: p.map,
        host: match &cli.keyring {
            None => std::sync::Arc::new(map_host()),
            Some(k) => std::sync::Arc::new(ibdscope_report::decrypt::DecryptHost::new(
                std::sync::Arc::new(map_host()),
                crate::input::load_keyring(k)?,
                SpaceOptions::default().with_page_size(p.shared.page_size),
            )),
        },
        verbose: cli.verbose,
        verified_only: p.verified_only,
        levels: p.levels,
        hex: p.hex,
        data_files: cli.data_file_path.map(|d| d.0),
        datadir: p.datadir,
        key_file: match &cli.key_file {
            None => None,
            Some(k) => Some(crate::input::load_key_file(
                k,
                password.as_ref().map(Password::bytes),
                cli.key_file_key_file.as_deref(),
            )?),
        },
    };
    if let Some((out, _)) = &opts.out {
        ibdscope_report::out::check(out, &ibdscope_report::out::inputs(&opts))?;
    }
    Ok(opts)
}

/// One subcommand's arguments, before the checks every command shares.
struct Parsed {
    cmd: Cmd,
    files: Vec<PathBuf>,
    shared: Shared,
    /// The formats the command offers.
    allowed: &'static [Format],
    color: Color,
    ascii: bool,
    out: Option<PathBuf>,
    metric: Metric,
    lsn_scale: LsnScale,
    map: MapOpts,
    verified_only: bool,
    levels: bool,
    hex: bool,
    /// `indexes --datadir`.
    datadir: Option<PathBuf>,
}

impl Parsed {
    /// A command over `files`, with the formats its name offers and the
    /// defaults of the options it does not take.
    fn new(cmd: Cmd, files: Vec<PathBuf>, shared: Shared) -> Self {
        let allowed = offered(cmd_name(&cmd));
        Parsed {
            cmd,
            files,
            shared,
            allowed,
            color: Color::Auto,
            ascii: false,
            out: None,
            metric: Metric::Extents,
            lsn_scale: LsnScale::default(),
            map: MapOpts::default(),
            verified_only: false,
            levels: false,
            hex: false,
            datadir: None,
        }
    }

    /// A command over one file.
    fn one(cmd: Cmd, common: Common) -> Self {
        Parsed::new(cmd, vec![common.file], common.shared)
    }

    /// A map command over one file, drawn as `draw` says.
    fn drawn(cmd: Cmd, common: Common, draw: Draw) -> Result<Self, Error> {
        Ok(Parsed {
            color: draw.color.into(),
            ascii: draw.ascii,
            out: draw.out,
            map: draw.map.checked()?,
            ..Parsed::one(cmd, common)
        })
    }
}

const TEXT_JSON: &[Format] = &[Format::Text, Format::Json];
/// Text, JSON, and a CSV row per item.
const TEXT_JSON_CSV: &[Format] = &[Format::Text, Format::Json, Format::Csv];
/// Text, JSON, and a line per item (JSON lines, CSV).
const LINES: &[Format] = &[Format::Text, Format::Json, Format::Jsonl, Format::Csv];

/// The subcommand's arguments as the report crate's command.
fn command(command: Command) -> Result<Parsed, Error> {
    Ok(match command {
        Command::Extents { common, draw } => Parsed::drawn(Cmd::Extents, common, draw)?,
        Command::Lsn {
            common,
            draw,
            scale,
        } => Parsed {
            lsn_scale: LsnScale::from(&scale),
            ..Parsed::drawn(Cmd::Lsn, common, draw)?
        },
        Command::Fill { common, draw } => Parsed::drawn(Cmd::Fill, common, draw)?,
        Command::Compare {
            files,
            metric,
            color,
            ascii,
            out,
            scale,
            map,
            shared,
        } => Parsed {
            out,
            color: color.into(),
            ascii,
            map: map.checked()?,
            metric: metric.into(),
            lsn_scale: LsnScale::from(&scale),
            ..Parsed::new(Cmd::Compare, files, shared)
        },
        Command::Segments(c) => Parsed::one(Cmd::Segments, c),
        Command::Lists(c) => Parsed::one(Cmd::Lists, c),
        Command::Indexes {
            common,
            levels,
            datadir,
        } => Parsed {
            levels,
            datadir,
            ..Parsed::one(Cmd::Indexes, common)
        },
        Command::Sdi(c) => Parsed::one(Cmd::Sdi, c),
        Command::Tables(c) => Parsed::one(Cmd::Tables, c),
        Command::Undo(c) => Parsed::one(Cmd::Undo, c),
        Command::Page { common, page, hex } => Parsed {
            hex,
            ..Parsed::one(Cmd::Page { page }, common)
        },
        Command::Records {
            common,
            index,
            deleted,
            page,
            all_pages,
            verified_only,
            sources,
        } => Parsed {
            verified_only,
            ..Parsed::one(
                Cmd::Records(RecordsOpts {
                    index: index.as_deref().and_then(|i| i.parse().ok()),
                    index_name: index.filter(|i| i.parse::<u64>().is_err()),
                    deleted,
                    page,
                    all_pages,
                    sources,
                }),
                common,
            )
        },
        Command::Schema { common, def } => Parsed::one(
            Cmd::Schema(DefOpts {
                frm: def.frm,
                ddl: def.ddl,
                datadir: def.datadir,
                table: def.table,
                infer: def.infer,
            }),
            common,
        ),
        Command::Rows {
            common,
            def,
            index,
            deleted,
            with_deleted,
            where_page,
            hidden,
            max_value_bytes,
            verified_only,
            sources,
        } => Parsed {
            verified_only,
            ..Parsed::one(
                Cmd::Rows(RowsOpts {
                    def: DefOpts {
                        frm: def.frm,
                        ddl: def.ddl,
                        datadir: def.datadir,
                        table: def.table,
                        infer: def.infer,
                    },
                    index,
                    deleted,
                    with_deleted,
                    where_page,
                    hidden,
                    max_value_bytes,
                    sources,
                }),
                common,
            )
        },
        Command::History {
            file,
            datadir,
            frm,
            key,
            index,
            shared,
        } => Parsed::new(
            Cmd::History(HistoryOpts {
                def: DefOpts {
                    frm,
                    ddl: None,
                    datadir: datadir.clone(),
                    table: None,
                    infer: false,
                },
                datadir,
                key,
                index,
            }),
            vec![file],
            shared,
        ),
        Command::Info(c) => Parsed::one(Cmd::Info, c),
        Command::Pages { common, from, to } => {
            if let Some(to) = to {
                if to < from {
                    return Err(Error::argument(ErrorKind::ToBeforeFrom {
                        to: u64::from(to),
                        from: u64::from(from),
                    }));
                }
            }
            Parsed::one(Cmd::Pages { from, to }, common)
        }
        Command::Types(c) => Parsed::one(Cmd::Types, c),
        Command::Check { files, shared } => Parsed::new(Cmd::Check, files, shared),
        Command::Audit { paths, shared } => Parsed::new(Cmd::Audit, paths, shared),
        Command::Diff { a, b, shared } => Parsed::new(Cmd::Diff, vec![a, b], shared),
        Command::Restore {
            common,
            datadir,
            out,
            force,
        } => Parsed::one(
            Cmd::Restore(RestoreOpts {
                datadir,
                out,
                force,
            }),
            common,
        ),
        Command::Carve {
            sources,
            out,
            align,
            unverified,
            index_id,
            shared,
        } => Parsed::new(
            Cmd::Carve(CarveOpts {
                out,
                align,
                unverified,
                index_id,
            }),
            sources,
            shared,
        ),
        // The options every endpoint's report starts from (files, keys).
        Command::Serve {
            mut paths,
            page_size,
            datadir,
            ..
        } => {
            if let Some(d) = datadir.as_ref().filter(|d| !paths.contains(d)) {
                paths.insert(0, d.clone());
            }
            Parsed {
                datadir,
                ..Parsed::new(
                    Cmd::Info,
                    paths,
                    Shared {
                        format: FormatArg::Text,
                        page_size,
                    },
                )
            }
        }
        Command::Completions { .. } => return Err(Error::argument(ErrorKind::NoReport)),
    })
}

/// The subcommand's name of a command.
fn cmd_name(cmd: &Cmd) -> &'static str {
    match cmd {
        Cmd::Info => "info",
        Cmd::Pages { .. } => "pages",
        Cmd::Types => "types",
        Cmd::Check => "check",
        Cmd::Extents => "extents",
        Cmd::Segments => "segments",
        Cmd::Lists => "lists",
        Cmd::Indexes => "indexes",
        Cmd::Audit => "audit",
        Cmd::Diff => "diff",
        Cmd::Lsn => "lsn",
        Cmd::Fill => "fill",
        Cmd::Compare => "compare",
        Cmd::Sdi => "sdi",
        Cmd::Tables => "tables",
        Cmd::Undo => "undo",
        Cmd::Page { .. } => "page",
        Cmd::Records(_) => "records",
        Cmd::Schema(_) => "schema",
        Cmd::Rows(_) => "rows",
        Cmd::History(_) => "history",
        Cmd::Restore(_) => "restore",
        Cmd::Carve(_) => "carve",
    }
}

/// The sentence for a format the command does not offer, naming those it
/// does.
fn format_error(format: Format, allowed: &[Format]) -> Error {
    let names: Vec<&'static str> = allowed.iter().map(|f| format_name(*f)).collect();
    Error::argument(ErrorKind::FormatNotOffered(format_name(format), names))
}

/// The picture's format from its extension.
fn out_format(out: PathBuf) -> Result<(PathBuf, ImageFormat), Error> {
    match ImageFormat::from_path(&out) {
        Some(format) => Ok((out, format)),
        None => Err(Error::at(ErrorKind::OutExtension, &out)),
    }
}

#[cfg(test)]
mod tests {
    use super::{take_password, PASSWORD_PLACEHOLDER};
    use std::ffi::OsString;

    fn os(v: &[&str]) -> Vec<OsString> {
        v.iter().map(OsString::from).collect()
    }

    #[test]
    fn the_password_is_taken_out_of_the_arguments_before_clap() {
        let ph = PASSWORD_PLACEHOLDER;
        let mut a = os(&[
            "ibdscope",
            "rows",
            "f",
            "--key-file",
            "k",
            "--key-file-key",
            "s3cret",
        ]);
        assert_eq!(take_password(&mut a).unwrap().bytes(), b"s3cret");
        assert_eq!(
            a,
            os(&[
                "ibdscope",
                "rows",
                "f",
                "--key-file",
                "k",
                "--key-file-key",
                ph
            ])
        );
        let mut a = os(&["ibdscope", "--key-file-key=a=b", "rows", "f"]);
        assert_eq!(take_password(&mut a).unwrap().bytes(), b"a=b");
        assert_eq!(a[1], OsString::from(format!("--key-file-key={ph}")));
        // an empty one is taken; the last one given wins
        let mut a = os(&["x", "--key-file-key=", "--key-file-key", "two"]);
        assert_eq!(take_password(&mut a).unwrap().bytes(), b"two");
        assert!(a.iter().all(|s| !s.to_string_lossy().contains("two")));
        // after `--`, or a value that looks like an option: left to clap
        let mut a = os(&["x", "--", "--key-file-key", "f"]);
        assert!(take_password(&mut a).is_none());
        assert_eq!(a[3], OsString::from("f"));
        let mut a = os(&["x", "--key-file-key", "--threads", "2"]);
        assert!(take_password(&mut a).is_none());
        assert_eq!(a[2], OsString::from("--threads"));
        // the whole parse: clap holds the placeholder, the Cli the password
        let cli = super::Cli::try_parse_from(os(&[
            "x",
            "info",
            "f",
            "--key-file",
            "k",
            "--key-file-key",
            ph,
        ]));
        assert!(cli.is_ok());
    }

    use super::*;

    /// The options a command line gives, or clap's error text.
    fn opts(args: &[&str]) -> Result<Opts, String> {
        let m = cli()
            .try_get_matches_from(args)
            .map_err(|e| e.to_string())?;
        from_cli(Cli::from_arg_matches(&m).map_err(|e| e.to_string())?).map_err(|e| e.to_string())
    }

    #[test]
    fn rows_takes_page_and_the_old_where_page() {
        for flag in ["--page", "--where-page"] {
            let o = opts(&["ibdscope", "rows", "t.ibd", flag, "4"]).unwrap();
            let Cmd::Rows(r) = o.cmd else {
                panic!("not rows")
            };
            assert_eq!(r.where_page, Some(4), "{flag}");
        }
        let o = opts(&["ibdscope", "records", "t.ibd", "--page", "4"]).unwrap();
        let Cmd::Records(r) = o.cmd else {
            panic!("not records")
        };
        assert_eq!(r.page, Some(4));
        for (arg, id, name) in [("30", Some(30), None), ("idx_k", None, Some("idx_k"))] {
            let o = opts(&["ibdscope", "records", "t.ibd", "--index", arg]).unwrap();
            let Cmd::Records(r) = o.cmd else {
                panic!("not records")
            };
            assert_eq!((r.index, r.index_name.as_deref()), (id, name), "{arg}");
        }
    }

    #[test]
    fn an_unoffered_format_names_the_ones_offered() {
        let e = opts(&["ibdscope", "info", "--format", "csv", "t.ibd"]).unwrap_err();
        assert!(e.contains("invalid value 'csv'"), "{e}");
        assert!(e.contains("[possible values: text, json]"), "{e}");
        let e = opts(&["ibdscope", "check", "--format", "sql", "t.ibd"]).unwrap_err();
        assert!(
            e.contains("[possible values: text, json, jsonl, csv]"),
            "{e}"
        );
        let o = opts(&["ibdscope", "rows", "--format", "sql", "t.ibd"]).unwrap();
        assert_eq!(o.format, Format::Sql);
        assert_eq!(
            format_error(Format::Csv, TEXT_JSON).to_string(),
            "--format csv is not offered by this command; it offers text, json"
        );
    }

    #[test]
    fn every_command_has_formats_and_examples_of_itself() {
        let names: Vec<String> = Cli::command()
            .get_subcommands()
            .map(|c| c.get_name().to_string())
            .collect();
        assert_eq!(names.len(), COMMANDS.len());
        for name in &names {
            let (_, formats, examples) = COMMANDS
                .iter()
                .find(|(n, _, _)| n == name)
                .unwrap_or_else(|| panic!("{name} has no entry"));
            assert!(formats.contains(&Format::Text), "{name}");
            assert!(!examples.is_empty(), "{name}");
            for e in *examples {
                assert!(e.starts_with(&format!("ibdscope {name} ")), "{e}");
            }
        }
    }

    #[test]
    fn thread_counts() {
        assert_eq!(parse_threads("1").unwrap(), 1);
        assert_eq!(parse_threads("7").unwrap(), 7);
        assert!(matches!(
            parse_threads("0").unwrap_err().kind(),
            crate::error::ErrorKind::Threads(..)
        ));
        assert!(parse_threads("0").is_err());
        assert!(parse_threads("-2").is_err());
        assert!(parse_threads("100000").is_err());
    }

    #[test]
    fn lsn_scale_flags() {
        let scale = |args: &[&str]| {
            let cli = Cli::try_parse_from(args).unwrap();
            command(cli.command).unwrap().lsn_scale
        };
        assert_eq!(scale(&["ibdscope", "lsn", "f.ibd"]), LsnScale::default());
        assert_eq!(LsnScale::default().kind, LsnScaleKind::Rank);
        let want = LsnScale {
            kind: LsnScaleKind::Linear,
            pages: LsnScalePages::Index,
        };
        let lsn = ["ibdscope", "lsn", "f.ibd", "--scale", "linear"];
        assert_eq!(
            scale(&[&lsn[..], &["--scale-pages", "index"]].concat()),
            want
        );
        let cmp = ["ibdscope", "compare", "a.ibd", "b.ibd", "--metric", "lsn"];
        assert_eq!(
            scale(&[&cmp[..], &["--scale", "linear", "--scale-pages", "index"]].concat()),
            want
        );
        assert!(Cli::try_parse_from(["ibdscope", "lsn", "f.ibd", "--scale", "log"]).is_err());
    }

    #[test]
    fn every_map_takes_a_page_range_and_pages_per_cell() {
        for cmd in ["extents", "lsn", "fill"] {
            let o = opts(&[
                "ibdscope",
                cmd,
                "f.ibd",
                "--from",
                "3",
                "--to",
                "9",
                "--pages-per-cell",
                "4",
            ])
            .unwrap();
            let want = MapOpts {
                from: 3,
                to: Some(9),
                pages_per_cell: Some(4),
            };
            assert_eq!(o.map, want, "{cmd}");
            assert_eq!(
                opts(&["ibdscope", cmd, "f.ibd"]).unwrap().map,
                MapOpts::default()
            );
            let e = opts(&["ibdscope", cmd, "f.ibd", "--from", "9", "--to", "3"]).unwrap_err();
            assert!(e.contains("--to 3 is before --from 9"), "{e}");
            assert!(opts(&["ibdscope", cmd, "f.ibd", "--pages-per-cell", "0"]).is_err());
        }
        let o = opts(&["ibdscope", "compare", "a.ibd", "b.ibd", "--from", "2"]).unwrap();
        assert_eq!(o.map.from, 2);
    }
}
