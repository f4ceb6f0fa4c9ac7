//! The JSON endpoints: each runs one of the report's commands over one of
//! the files given on the command line (by its index) with
//! `--format json`, and sends what it printed: the same values and the
//! same printer as the command line. Only the envelope of the overview and
//! the palette are written here.

use ibdscope_render::color::{self, Rgb};
use ibdscope_report::args::{Cmd, Format, Opts};
use ibdscope_report::held::Ask;
use ibdscope_report::Outcome;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{mpsc, Mutex};

/// Most pages one `pages` request lists (the app asks for a file's pages
/// in runs of this many): a response stays a few MiB whatever the file.
pub const PAGES_PER_REQUEST: u32 = 16384;

/// Most files one compare request names.
pub const MAX_COMPARED: usize = 8;

/// Most tablespace files of one datadir served as its members.
const MAX_MEMBERS: usize = 4096;

/// The files served and how the report reads them.
#[derive(Debug)]
pub struct Api {
    /// The options given on the command line (host, keys, threads); its
    /// `cmd`, `files`, `format`, `hex` and `levels` are set per request.
    template: Opts,
    /// The files and datadirs given, by index, then the tablespace files
    /// found in each datadir given (its members: found here, at start,
    /// never named by a request).
    files: Vec<PathBuf>,
    /// For each member, the index of its datadir.
    member_of: Vec<Option<usize>>,
    /// Each file's model, kept open by a thread of its own once a
    /// request first reads the file ([`ibdscope_report::held`]).
    held: Vec<Mutex<Option<mpsc::Sender<Job>>>>,
    /// Each file's overview entry, made once.
    overview: Mutex<HashMap<usize, String>>,
}

/// A command for a file's model thread, and where to send its answer.
struct Job {
    opts: Opts,
    /// A page's links instead of the command.
    links: Option<u32>,
    reply: mpsc::Sender<Answer>,
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
        let mut files = opts.files.clone();
        let mut member_of = vec![None; files.len()];
        for (i, dir) in opts.files.iter().enumerate() {
            if dir.is_dir() {
                for m in members(dir) {
                    files.push(m);
                    member_of.push(Some(i));
                }
            }
        }
        Api {
            held: files.iter().map(|_| Mutex::new(None)).collect(),
            files,
            member_of,
            template: opts,
            overview: Mutex::new(HashMap::new()),
        }
    }

    /// How many files are served.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// The path of file `index` (a file given, or a datadir's member).
    pub fn path(&self, index: usize) -> Option<PathBuf> {
        self.files.get(index).cloned()
    }

    /// The run's options for `cmd` over `files`, as JSON: the template's
    /// host, threads, page size, data files and datadir; its keys with
    /// `keys` (the model threads read a space's keys when they open it,
    /// a request's options carry none).
    fn opts(&self, cmd: Cmd, files: Vec<PathBuf>, keys: bool) -> Opts {
        let t = &self.template;
        Opts {
            lib: t.lib,
            threads: t.threads,
            data_files: t.data_files.clone(),
            datadir: t.datadir.clone(),
            key_file: if keys { t.key_file.clone() } else { None },
            ..Opts::new(cmd, files, Format::Json, t.host.clone())
        }
    }

    /// Runs `cmd` over file `index` as JSON, on the file's kept model.
    pub fn report(&self, cmd: Cmd, index: usize, hex: bool, levels: bool) -> Option<Answer> {
        let file = self.files.get(index)?;
        let mut opts = self.opts(cmd, vec![file.clone()], false);
        opts.hex = hex;
        opts.levels = levels;
        self.ask(index, opts, None)
    }

    /// Page `page`'s links in file `index` ([`ibdscope_report::held::links`]).
    pub fn links(&self, index: usize, page: u32) -> Option<Answer> {
        let file = self.files.get(index)?;
        let opts = self.opts(Cmd::Info, vec![file.clone()], false);
        self.ask(index, opts, Some(page))
    }

    fn ask(&self, index: usize, opts: Opts, links: Option<u32>) -> Option<Answer> {
        let file = self.files.get(index)?.clone();
        if file.is_dir() {
            if links.is_some() {
                return None;
            }
            return Some(self.run(opts));
        }
        let (tx, rx) = mpsc::channel();
        let job = Job {
            opts,
            links,
            reply: tx,
        };
        let sent = {
            let mut h = self
                .held
                .get(index)?
                .lock()
                .unwrap_or_else(|p| p.into_inner());
            let sender = h.get_or_insert_with(|| self.spawn(file));
            sender.send(job)
        };
        match sent {
            Ok(()) => rx.recv().ok().or_else(|| Some(unreadable())),
            Err(mpsc::SendError(job)) => Some(self.run(job.opts)),
        }
    }

    /// Runs a command that reads no one space kept open (over several
    /// files, or a datadir) as the command line does, with the keys.
    pub fn run_many(&self, cmd: Cmd, files: Vec<PathBuf>) -> Answer {
        self.run(self.opts(cmd, files, true))
    }

    fn run(&self, opts: Opts) -> Answer {
        let opts = Opts {
            key_file: self.template.key_file.clone(),
            ..opts
        };
        let mut body = Vec::new();
        let outcome = ibdscope_report::run(&opts, &mut body).unwrap_or(Outcome::Unreadable);
        answer(body, outcome)
    }

    /// The thread that keeps `file`'s model and runs its commands.
    fn spawn(&self, file: PathBuf) -> mpsc::Sender<Job> {
        let (tx, rx) = mpsc::channel::<Job>();
        let open = self.opts(Cmd::Info, vec![file.clone()], true);
        let _ = std::thread::Builder::new()
            .name("ibdscope-model".into())
            .spawn(move || {
                ibdscope_report::held::hold(&open, &file, &mut |runner| {
                    for job in rx.iter() {
                        let mut body = Vec::new();
                        let ask = match job.links {
                            Some(p) => Ask::Links(&job.opts, p),
                            None => Ask::Run(&job.opts),
                        };
                        let outcome = runner(ask, &mut body).unwrap_or(Outcome::Unreadable);
                        let _ = job.reply.send(answer(body, outcome));
                    }
                });
            });
        tx
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
        if let (Some(Some(d)), Some(p)) = (self.member_of.get(index), self.files.get(index)) {
            return format!(
                "{{\"index\":{index},\"kind\":\"member\",\"datadir\":{d},\"path\":{}}}",
                json_str(&p.to_string_lossy())
            );
        }
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

/// `s` as a JSON string.
fn json_str(s: &str) -> String {
    let mut o = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            c if u32::from(c) < 0x20 => o.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

/// The tablespace files of `dir` (`*.ibd`, `ibdata*`, `undo*`), at its top
/// and one directory down (a schema's), sorted, at most [`MAX_MEMBERS`].
fn members(dir: &std::path::Path) -> Vec<PathBuf> {
    let is_space = |p: &std::path::Path| {
        let name = p
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        p.is_file()
            && (name.ends_with(".ibd") || name.starts_with("ibdata") || name.starts_with("undo"))
    };
    let list = |d: &std::path::Path| -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = std::fs::read_dir(d)
            .map(|rd| {
                rd.filter_map(|e| e.ok().map(|e| e.path()))
                    .take(MAX_MEMBERS * 4)
                    .collect()
            })
            .unwrap_or_default();
        v.sort();
        v
    };
    let mut out = Vec::new();
    for p in list(dir) {
        if p.is_dir() && !p.is_symlink() {
            out.extend(list(&p).into_iter().filter(|q| is_space(q)));
        } else if is_space(&p) {
            out.push(p);
        }
        if out.len() >= MAX_MEMBERS {
            out.truncate(MAX_MEMBERS);
            break;
        }
    }
    out
}

/// An answer from what a command printed: its JSON without the last
/// newline, or an error object when it printed nothing.
fn answer(mut body: Vec<u8>, outcome: Outcome) -> Answer {
    while body.last().is_some_and(|c| c.is_ascii_whitespace()) {
        body.pop();
    }
    if body.is_empty() {
        body.extend_from_slice(b"{\"error\":\"could not read\"}");
    }
    Answer { body, outcome }
}

fn unreadable() -> Answer {
    answer(Vec::new(), Outcome::Unreadable)
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
    // A segment page of an index that is not a B-tree page (BLOB/LOB,
    // allocated): its index's colour tinted, as the picture maps draw it.
    let tint: Vec<String> = (color::INDEX_ANSI.iter())
        .map(|&n| hex(color::ansi256_to_rgb(n).tint(0.6)))
        .collect();
    let scale: Vec<String> = (0..=32u8)
        .map(|i| hex(color::viridis(f64::from(i) / 32.0)))
        .collect();
    format!(
        "{{\"index\":[{}],\"index_tint\":[{}],\"undo\":{},\"free\":{},\"system\":{},\"damaged\":{},\"unverifiable\":{},\
\"free_data\":{},\"unaccounted\":{},\"other\":{},\"free_picture\":{},\"scale\":[{}],\
\"lsn_floor\":{},\"pages_per_request\":{PAGES_PER_REQUEST}}}",
        index.join(","),
        tint.join(","),
        ansi(color::UNDO_ANSI),
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
