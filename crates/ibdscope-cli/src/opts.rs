//! Command-line arguments (clap) and the checked options built from them
//! before any file is opened (ripgrep's low-level/high-level args split).

use clap::{Parser, Subcommand, ValueEnum};
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
}

/// The most threads accepted (far more than any pass can use).
const MAX_THREADS: usize = 1024;

fn parse_threads(s: &str) -> Result<usize, String> {
    s.parse::<usize>()
        .ok()
        .filter(|n| (1..=MAX_THREADS).contains(n))
        .ok_or_else(|| format!("'{s}' is not a thread count (1 to {MAX_THREADS})"))
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
    /// Map of the space: one row per extent, one cell per page, by owner and fill.
    Extents {
        #[command(flatten)]
        common: Common,
        /// Colour: auto (when stdout is a terminal), always, never.
        #[arg(long, value_enum, default_value_t = Color::Auto)]
        color: Color,
        /// Draw with ASCII only (for terminals without Unicode).
        #[arg(long)]
        ascii: bool,
    },
    /// Each file segment: id, index, role, used and reserved pages, extents.
    Segments(Common),
    /// The FSP lists with their lengths and members.
    Lists(Common),
    /// Per index: id, root page, height, leaf and internal pages, reserved, fill.
    Indexes(Common),
    /// Verify every page: checksum, header/trailer LSN, page number, space id.
    Check {
        /// Tablespace files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        #[command(flatten)]
        shared: Shared,
    },
}

#[derive(clap::Args, Debug)]
struct Common {
    /// Tablespace file.
    file: PathBuf,
    #[command(flatten)]
    shared: Shared,
}

#[derive(clap::Args, Debug)]
struct Shared {
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Physical page size, overriding detection (e.g. 16k, 8192).
    #[arg(long, value_parser = parse_size)]
    page_size: Option<u32>,
}

/// When to colour terminal output.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Color {
    /// When stdout is a terminal and NO_COLOR is unset.
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

/// Output formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Human-readable text.
    Text,
    /// One JSON document.
    Json,
    /// One JSON object per line.
    Jsonl,
    /// Comma-separated values with a header line.
    Csv,
}

fn parse_size(s: &str) -> Result<u32, String> {
    let lower = s.to_ascii_lowercase();
    let (digits, mult) = match lower.strip_suffix('k') {
        Some(d) => (d, 1024),
        None => (lower.as_str(), 1),
    };
    digits
        .parse::<u32>()
        .ok()
        .and_then(|n| n.checked_mul(mult))
        .filter(|n| ibdscope::space::PAGE_SIZES.contains(n))
        .ok_or_else(|| format!("'{s}' is not a page size (1k, 2k, 4k, 8k, 16k, 32k or 64k)"))
}

/// Which command, with its own options.
#[derive(Debug)]
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
}

/// Checked options for one run.
#[derive(Debug)]
pub struct Opts {
    /// The command.
    pub cmd: Cmd,
    /// Input files.
    pub files: Vec<PathBuf>,
    /// Output format.
    pub format: Format,
    /// Library options.
    pub lib: ibdscope::Options,
    /// Colour choice for terminal maps.
    pub color: Color,
    /// ASCII-only drawing.
    pub ascii: bool,
}

impl Opts {
    /// Checks the arguments; nothing is opened yet.
    pub fn from_cli(cli: Cli) -> Result<Self, String> {
        let threads = cli
            .threads
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
        let (mut color, mut ascii) = (Color::Auto, false);
        let text_json: &[Format] = &[Format::Text, Format::Json];
        let (cmd, files, shared, allowed): (Cmd, Vec<PathBuf>, Shared, &[Format]) =
            match cli.command {
                Command::Extents {
                    common,
                    color: c,
                    ascii: a,
                } => {
                    (color, ascii) = (c, a);
                    (Cmd::Extents, vec![common.file], common.shared, text_json)
                }
                Command::Segments(c) => (Cmd::Segments, vec![c.file], c.shared, text_json),
                Command::Lists(c) => (Cmd::Lists, vec![c.file], c.shared, text_json),
                Command::Indexes(c) => (Cmd::Indexes, vec![c.file], c.shared, text_json),
                Command::Info(c) => (
                    Cmd::Info,
                    vec![c.file],
                    c.shared,
                    &[Format::Text, Format::Json],
                ),
                Command::Pages { common, from, to } => {
                    if let Some(to) = to {
                        if to < from {
                            return Err(format!("--to {to} is before --from {from}"));
                        }
                    }
                    (
                        Cmd::Pages { from, to },
                        vec![common.file],
                        common.shared,
                        &[Format::Text, Format::Json, Format::Jsonl, Format::Csv],
                    )
                }
                Command::Types(c) => (
                    Cmd::Types,
                    vec![c.file],
                    c.shared,
                    &[Format::Text, Format::Json, Format::Csv],
                ),
                Command::Check { files, shared } => (
                    Cmd::Check,
                    files,
                    shared,
                    &[Format::Text, Format::Json, Format::Jsonl],
                ),
            };
        if !allowed.contains(&shared.format) {
            return Err(format!(
                "--format {:?} is not available for this command",
                shared.format
            )
            .to_lowercase());
        }
        Ok(Opts {
            cmd,
            files,
            format: shared.format,
            lib: ibdscope::Options {
                page_size: shared.page_size,
                threads,
            },
            color,
            ascii,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_sizes() {
        assert_eq!(parse_size("16k"), Ok(16384));
        assert_eq!(parse_size("8192"), Ok(8192));
        assert!(parse_size("3000").is_err());
        assert!(parse_size("99999999999k").is_err());
    }

    #[test]
    fn thread_counts() {
        assert_eq!(parse_threads("1"), Ok(1));
        assert_eq!(parse_threads("7"), Ok(7));
        assert!(parse_threads("0").is_err());
        assert!(parse_threads("-2").is_err());
        assert!(parse_threads("100000").is_err());
    }
}
