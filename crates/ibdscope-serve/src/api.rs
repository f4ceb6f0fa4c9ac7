//! The JSON endpoints: each runs one of the report's commands over one of
//! the files given on the command line (by its index) with
//! `--format json`, and sends what it printed: the same values and the
//! same printer as the command line. Only the envelope of the overview and
//! the palette are written here.

use ibdscope_render::color;
use ibdscope_report::args::{Cmd, Format, MapOpts, Metric, Opts};
use ibdscope_report::held::Ask;
use ibdscope_report::Outcome;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{mpsc, Mutex};
use std::time::Duration;

/// Most pages one `pages` request lists (the app asks for a file's pages
/// in runs of this many): a response stays a few MiB whatever the file.
pub const PAGES_PER_REQUEST: u32 = 16384;

/// Most bytes of one off-page value a `rows` answer shows (`rows
/// --max-value-bytes`; longer values: their first bytes in hex, marked
/// truncated): a page of BLOBs stays a small answer.
pub const MAX_VALUE_BYTES: usize = 4096;

/// Most files one compare request names.
pub const MAX_COMPARED: usize = 8;

/// Most tablespace files of one datadir served as its members.
const MAX_MEMBERS: usize = 4096;

/// Most bytes of encoded `extents` answers kept (the owner map: about 127
/// bytes a page, so the maps of files up to ~500,000 pages in all), with
/// the map pictures (about 10 bytes a page each).
const EXTENTS_KEPT: usize = 64 << 20;

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
    /// request first reads the file ([`ibdscope_report::held`]); `None`
    /// again when it is closed (idle, or the least recently asked of more
    /// than `models`). Dropping the sender ends the thread.
    held: Vec<Mutex<Option<mpsc::Sender<Job>>>>,
    /// The files whose model is open, least recently asked first.
    live: Mutex<Vec<usize>>,
    /// Most models open at once.
    models: usize,
    /// How long a model waits for a request before it closes.
    idle: Duration,
    /// Each file's overview entry, made once.
    overview: Mutex<HashMap<usize, String>>,
    /// Encoded `extents` answers and map pictures (file and map, body,
    /// outcome), most recently asked last, [`EXTENTS_KEPT`] bytes at most.
    extents: Mutex<Vec<(Kept, Answer)>>,
}

/// What a kept answer is of: a file, and the map picture asked (`None`:
/// the owner map, `extents --format json`).
type Kept = (usize, Option<Metric>);

/// A command for a file's model thread, and where to send its answer.
struct Job {
    opts: Box<Opts>,
    /// A page's links instead of the command.
    links: Option<u32>,
    /// Where the answer goes; `None`: build the model a page view reads
    /// (the space map, the B-trees with their leaf chains, the index
    /// names) and answer nothing.
    reply: Option<mpsc::Sender<Answer>>,
}

/// A report's output and outcome.
#[derive(Clone, Debug)]
pub struct Answer {
    /// The JSON printed.
    pub body: std::sync::Arc<[u8]>,
    /// The command's outcome.
    pub outcome: Outcome,
}

impl Api {
    /// The API over `opts.files`: at most `models` models open, each
    /// closed when no request asked for it for `idle`.
    pub fn new(opts: Opts, models: usize, idle: Duration) -> Api {
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
            live: Mutex::new(Vec::new()),
            models,
            idle,
            files,
            member_of,
            template: opts,
            overview: Mutex::new(HashMap::new()),
            extents: Mutex::new(Vec::new()),
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
    /// The owner map (`extents`, one entry a page) is kept encoded.
    pub fn report(&self, cmd: Cmd, index: usize, hex: bool, levels: bool) -> Option<Answer> {
        let file = self.files.get(index)?;
        let opts = || {
            let mut o = self.opts(cmd.clone(), vec![file.clone()], false);
            o.hex = hex;
            o.levels = levels;
            o
        };
        if matches!(cmd, Cmd::Extents) {
            return self.kept((index, None), || self.ask(index, &opts, None));
        }
        self.ask(index, &opts, None)
    }

    /// The answer kept for `key` (a file and the map asked, `None`: the
    /// owner map), else `make`'s, kept when it is at most [`EXTENTS_KEPT`]
    /// bytes (the least recently asked dropped past that in all).
    fn kept(&self, key: Kept, make: impl FnOnce() -> Option<Answer>) -> Option<Answer> {
        {
            let mut kept = lock(&self.extents);
            if let Some(at) = kept.iter().position(|(k, _)| *k == key) {
                let e = kept.remove(at);
                let a = e.1.clone();
                kept.push(e);
                return Some(a);
            }
        }
        let a = make()?;
        if a.body.len() <= EXTENTS_KEPT {
            let mut kept = lock(&self.extents);
            kept.retain(|(k, _)| *k != key);
            kept.push((key, a.clone()));
            while kept.iter().map(|(_, a)| a.body.len()).sum::<usize>() > EXTENTS_KEPT {
                kept.remove(0);
            }
        }
        Some(a)
    }

    /// The picture `extents`, `lsn` or `fill` (by `metric`) draws of file
    /// `index` with `--out`, one page a cell, as JSON
    /// ([`ibdscope_report::out::picture_json`]: each cell's colour as the
    /// picture files draw it, the legend, the colour scale): the browser's
    /// map draws exactly those cells. `lsn` runs as the command line runs it
    /// (with the keys: a page only its decrypted image verifies is drawn by
    /// its LSN), the others on the file's kept model.
    pub fn map(&self, index: usize, metric: Metric) -> Option<Answer> {
        let file = self.files.get(index)?;
        let cmd = match metric {
            Metric::Extents => Cmd::Extents,
            Metric::Lsn => Cmd::Lsn,
            Metric::Fill => Cmd::Fill,
            _ => return None,
        };
        let opts = || Opts {
            picture_json: true,
            map: MapOpts {
                pages_per_cell: Some(1),
                ..MapOpts::default()
            },
            ..self.opts(cmd.clone(), vec![file.clone()], false)
        };
        if file.is_dir() {
            return None;
        }
        self.kept((index, Some(metric)), || {
            if matches!(metric, Metric::Lsn) {
                Some(self.run(opts()))
            } else {
                self.ask(index, &opts, None)
            }
        })
    }

    /// The picture `compare --metric METRIC --out` draws of `files`, one
    /// page of the largest page size a cell, as JSON (as [`Api::map`]).
    pub fn compare_map(&self, files: Vec<PathBuf>, metric: Metric) -> Answer {
        self.run(Opts {
            picture_json: true,
            metric,
            map: MapOpts {
                pages_per_cell: Some(1),
                ..MapOpts::default()
            },
            ..self.opts(Cmd::Compare, files, true)
        })
    }

    /// Builds file `index`'s model for the page views in the background
    /// (its thread, after the requests queued before), answering nothing;
    /// only when every path given can keep its model open (more would
    /// close models to build others no one asked for).
    pub fn warm(&self, index: usize) {
        let given = self.member_of.iter().filter(|m| m.is_none()).count();
        if given > self.models {
            return;
        }
        let Some(file) = self.files.get(index).filter(|f| !f.is_dir()) else {
            return;
        };
        let job = Job {
            opts: Box::new(self.opts(Cmd::Indexes, vec![file.clone()], false)),
            links: None,
            reply: None,
        };
        let _ = self.send(index, job);
    }

    /// Page `page`'s links in file `index` ([`ibdscope_report::held::links`]).
    pub fn links(&self, index: usize, page: u32) -> Option<Answer> {
        let file = self.files.get(index)?;
        self.ask(
            index,
            &|| self.opts(Cmd::Info, vec![file.clone()], false),
            Some(page),
        )
    }

    /// Runs the command `opts` makes (or page `links`' links) on file
    /// `index`'s model.
    fn ask(&self, index: usize, opts: &dyn Fn() -> Opts, links: Option<u32>) -> Option<Answer> {
        let file = self.files.get(index)?.clone();
        if file.is_dir() {
            if links.is_some() {
                return None;
            }
            return Some(self.run(opts()));
        }
        // Twice at most: a model that closed (idle) as the job was sent
        // drops it unanswered; the second try opens it again.
        for _ in 0..2 {
            let (tx, rx) = mpsc::channel();
            let job = Job {
                opts: Box::new(opts()),
                links,
                reply: Some(tx),
            };
            match self.send(index, job) {
                Ok(()) => {
                    if let Ok(a) = rx.recv() {
                        return Some(a);
                    }
                }
                Err(job) => return Some(self.run(*job.opts)),
            }
        }
        Some(unreadable())
    }

    /// Sends `job` to file `index`'s model thread, opening the model if it
    /// is not (and closing the least recently asked one past
    /// `models`); the job back when no thread takes it.
    fn send(&self, index: usize, job: Job) -> Result<(), Job> {
        let Some((slot, file)) = self.held.get(index).zip(self.files.get(index)) else {
            return Err(job);
        };
        let mut closing = None;
        {
            let mut live = lock(&self.live);
            live.retain(|&i| i != index);
            live.push(index);
            if live.len() > self.models.max(1) {
                closing = Some(live.remove(0));
            }
        }
        if let Some(old) = closing.and_then(|i| self.held.get(i)) {
            // Dropping its sender ends its thread after its queued jobs.
            lock(old).take();
        }
        let mut h = lock(slot);
        let sent = match h.take() {
            Some(sender) => sender.send(job).map(|()| sender).map_err(|e| e.0),
            None => Err(job),
        };
        match sent {
            Ok(sender) => {
                *h = Some(sender);
                Ok(())
            }
            // Not open, or its thread ended (idle): open it again.
            Err(job) => {
                let sender = self.spawn(file.clone());
                let r = sender.send(job).map_err(|e| e.0);
                *h = Some(sender);
                r
            }
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

    /// The thread that keeps `file`'s model and runs its commands; it
    /// ends when its sender is dropped (the model closed, the server
    /// stopped) or no job came for `idle`.
    fn spawn(&self, file: PathBuf) -> mpsc::Sender<Job> {
        let (tx, rx) = mpsc::channel::<Job>();
        let open = self.opts(Cmd::Info, vec![file.clone()], true);
        let idle = self.idle;
        let _ = std::thread::Builder::new()
            .name("ibdscope-model".into())
            .spawn(move || {
                ibdscope_report::held::hold(&open, &file, &mut |runner| {
                    while let Ok(job) = rx.recv_timeout(idle) {
                        let Some(reply) = job.reply else {
                            // Warm: what a page view reads, built now.
                            let sink = &mut std::io::sink();
                            let _ = runner(Ask::Links(&job.opts, 0), sink);
                            let _ = runner(Ask::Run(&job.opts), sink);
                            continue;
                        };
                        let mut body = Vec::new();
                        let ask = match job.links {
                            Some(p) => Ask::Links(&job.opts, p),
                            None => Ask::Run(&job.opts),
                        };
                        let outcome = runner(ask, &mut body).unwrap_or(Outcome::Unreadable);
                        let _ = reply.send(answer(body, outcome));
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
        // Its model for the page views, built while the overview is read.
        self.warm(index);
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

/// The value behind `m`, whoever panicked holding it.
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
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
    Answer {
        body: body.into(),
        outcome,
    }
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

/// What the app needs besides the maps (whose colours come with each
/// picture, [`Api::map`]): the damaged colour the diff marks a damaged
/// page with (the render crate's) and the pages one `pages` request lists.
pub fn palette() -> Vec<u8> {
    let damaged = color::ansi256_to_rgb(color::DAMAGED_ANSI).hex();
    format!("{{\"damaged\":\"{damaged}\",\"pages_per_request\":{PAGES_PER_REQUEST}}}").into_bytes()
}
