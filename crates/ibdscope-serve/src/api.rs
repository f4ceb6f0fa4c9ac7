//! The JSON endpoints: each runs one of the report's commands over one of
//! the files given on the command line (by its index) with
//! `--format json`, and sends what it printed: the same values and the
//! same printer as the command line. Only the envelope of the overview and
//! the palette are written here.

use ibdscope_render::color::{self, Rgb};
use ibdscope_report::args::{Cmd, Format, Opts};
use ibdscope_report::Outcome;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Mutex;

/// Most pages one `pages` request lists (the app asks for a file's pages
/// in runs of this many): a response stays a few MiB whatever the file.
pub const PAGES_PER_REQUEST: u32 = 16384;

/// The files served and how the report reads them.
#[derive(Debug)]
pub struct Api {
    /// The options given on the command line (host, keys, threads); its
    /// `cmd`, `files`, `format`, `hex` and `levels` are set per request.
    /// Locked only to run with a `--key-file` (a key file is not cloned).
    template: Mutex<Opts>,
    /// Whether the template holds a MariaDB key file.
    keyed: bool,
    /// The files and datadirs given, by index.
    files: Vec<PathBuf>,
    /// Each file's overview entry, made once.
    overview: Mutex<HashMap<usize, String>>,
}

/// A report's output and outcome.
pub struct Answer {
    /// The JSON printed.
    pub body: Vec<u8>,
    /// The command's outcome.
    pub outcome: Outcome,
}

impl Api {
    /// The API over `opts.files`.
    pub fn new(opts: Opts) -> Api {
        Api {
            keyed: opts.key_file.is_some(),
            files: opts.files.clone(),
            template: Mutex::new(opts),
            overview: Mutex::new(HashMap::new()),
        }
    }

    /// How many files are served.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// Runs `cmd` over file `index` as JSON.
    pub fn report(&self, cmd: Cmd, index: usize, hex: bool, levels: bool) -> Option<Answer> {
        let file = self.files.get(index)?.clone();
        let mut body = Vec::new();
        let result = if self.keyed {
            let mut t = self.template.lock().unwrap_or_else(|p| p.into_inner());
            t.cmd = cmd;
            t.files = vec![file];
            t.format = Format::Json;
            t.hex = hex;
            t.levels = levels;
            ibdscope_report::run(&t, &mut body)
        } else {
            let opts = {
                let t = self.template.lock().unwrap_or_else(|p| p.into_inner());
                Opts {
                    lib: t.lib,
                    threads: t.threads,
                    data_files: t.data_files.clone(),
                    datadir: t.datadir.clone(),
                    hex,
                    levels,
                    ..Opts::new(cmd, vec![file], Format::Json, t.host.clone())
                }
            };
            ibdscope_report::run(&opts, &mut body)
        };
        let outcome = result.unwrap_or(Outcome::Unreadable);
        while body.last().is_some_and(|c| c.is_ascii_whitespace()) {
            body.pop();
        }
        if body.is_empty() {
            body.extend_from_slice(b"{\"error\":\"could not read\"}");
        }
        Some(Answer { body, outcome })
    }

    /// The overview: for each file its index, kind, outcome and the
    /// `info` report (a datadir: its `audit`), made once per file.
    pub fn overview(&self) -> Vec<u8> {
        let mut out = String::from("{\"files\":[");
        for index in 0..self.files.len() {
            if index > 0 {
                out.push(',');
            }
            let cached = self
                .overview
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .get(&index)
                .cloned();
            let entry = match cached {
                Some(e) => e,
                None => {
                    let e = self.overview_entry(index);
                    self.overview
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .insert(index, e.clone());
                    e
                }
            };
            out.push_str(&entry);
        }
        out.push_str("]}");
        out.into_bytes()
    }

    fn overview_entry(&self, index: usize) -> String {
        let dir = self.files.get(index).is_some_and(|p| p.is_dir());
        let (cmd, kind) = if dir {
            (Cmd::Audit, "datadir")
        } else {
            (Cmd::Info, "file")
        };
        let answer = self.report(cmd, index, false, false);
        let (outcome, body) = match &answer {
            Some(a) => (a.outcome, String::from_utf8_lossy(&a.body).into_owned()),
            None => (Outcome::Unreadable, "null".to_string()),
        };
        format!(
            "{{\"index\":{index},\"kind\":\"{kind}\",\"outcome\":\"{}\",\"report\":{body}}}",
            outcome_name(outcome)
        )
    }
}

/// The outcome's name, as the exit codes say it.
pub fn outcome_name(o: Outcome) -> &'static str {
    match o {
        Outcome::Clean => "clean",
        Outcome::Findings => "findings",
        Outcome::Unreadable => "unreadable",
    }
}

/// The maps' colours, from the render crate's palette (the terminal and
/// picture maps' own values): the index palette, free, system, damaged,
/// not verifiable, freed with data, unaccounted, other, and the LSN/fill
/// scale sampled at 33 points.
pub fn palette() -> Vec<u8> {
    let hex = |c: Rgb| format!("\"{}\"", c.hex());
    let ansi = |n: u8| hex(color::ansi256_to_rgb(n));
    let index: Vec<String> = color::INDEX_ANSI.iter().map(|&n| ansi(n)).collect();
    let scale: Vec<String> = (0..=32u8)
        .map(|i| hex(color::viridis(f64::from(i) / 32.0)))
        .collect();
    format!(
        "{{\"index\":[{}],\"free\":{},\"system\":{},\"damaged\":{},\"unverifiable\":{},\
\"free_data\":{},\"unaccounted\":{},\"other\":{},\"free_picture\":{},\"scale\":[{}],\
\"lsn_floor\":{},\"pages_per_request\":{PAGES_PER_REQUEST}}}",
        index.join(","),
        ansi(color::FREE_ANSI),
        ansi(color::SYSTEM_ANSI),
        ansi(color::DAMAGED_ANSI),
        ansi(color::UNVERIFIABLE_ANSI),
        ansi(color::FREE_DATA_ANSI),
        hex(color::UNACCOUNTED_RGB),
        hex(color::OTHER_RGB),
        hex(color::FREE_RGB),
        scale.join(","),
        color::LSN_FLOOR,
    )
    .into_bytes()
}
