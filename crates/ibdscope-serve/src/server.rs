//! The listener, the connection cap, the worker pool and the routes.

use crate::api::{self, Api, PAGES_PER_REQUEST};
use crate::guard::{self, Guard};
use crate::http::{self, Bounds, Failure, Request, Response};
use ibdscope_report::args::{Cmd, Metric, Opts, RecordsOpts, RowsOpts};
use std::io::{self, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

/// The server's bounds.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Worker threads (each serves one connection at a time).
    pub workers: usize,
    /// Open connections at most (served or waiting for a worker); one more
    /// gets 503 and is closed.
    pub connections: usize,
    /// Request bounds and timeouts.
    pub bounds: Bounds,
    /// How long writing a response may block.
    pub write: Duration,
    /// Most file models open at once: opening one more closes the model
    /// asked least recently.
    pub models: usize,
    /// A file model no request asked for this long is closed (its thread
    /// ends); the next request opens it again.
    pub model_idle: Duration,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            workers: 8,
            connections: 64,
            bounds: Bounds {
                line: 2048,
                head: 8192,
                headers: 64,
                body: 1024,
                idle: Duration::from_secs(2),
                request: Duration::from_secs(5),
            },
            write: Duration::from_secs(10),
            models: 8,
            model_idle: Duration::from_secs(600),
        }
    }
}

/// A bound server, not yet serving.
#[derive(Debug)]
pub struct Server {
    listener: TcpListener,
    port: u16,
    guard: Arc<Guard>,
    api: Arc<Api>,
    limits: Limits,
    stop: Arc<AtomicBool>,
}

/// What every worker shares.
struct Shared {
    guard: Arc<Guard>,
    api: Arc<Api>,
    limits: Limits,
    open: AtomicUsize,
}

impl Server {
    /// Binds 127.0.0.1:`port` (0: any free port) to serve `opts.files`
    /// read with `opts`' host and keys; draws a fresh token.
    pub fn bind(opts: Opts, port: u16, limits: Limits) -> io::Result<Server> {
        let listener = TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, port)))?;
        let port = listener.local_addr()?.port();
        let guard = Arc::new(Guard::new(guard::token()?, port));
        Ok(Server {
            listener,
            port,
            guard,
            api: Arc::new(Api::new(opts, limits.models, limits.model_idle)),
            limits,
            stop: Arc::new(AtomicBool::new(false)),
        })
    }

    /// The URL to open: the app, with the token.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/?t={}", self.port, self.guard.token)
    }

    /// The port bound.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// What stops the server, called from another thread: it takes no new
    /// connection, its workers end after their connection and the file
    /// models' threads after the requests they hold; [`Server::run`]
    /// returns when the workers have ended.
    pub fn stopper(&self) -> impl Fn() + Send + Sync + 'static {
        let (port, stop) = (self.port, Arc::clone(&self.stop));
        move || {
            stop.store(true, Ordering::SeqCst);
            // Wakes the accept loop (a connection it drops unanswered).
            let _ = TcpStream::connect((Ipv4Addr::LOCALHOST, port));
        }
    }

    /// Serves until the process ends or the [`Server::stopper`] is
    /// called; then waits for
    /// the workers, which hold the last references to the file models
    /// (dropping them ends the models' threads).
    pub fn run(self) -> io::Result<()> {
        let shared = Arc::new(Shared {
            guard: self.guard,
            api: self.api,
            limits: self.limits,
            open: AtomicUsize::new(0),
        });
        let (tx, rx) = mpsc::sync_channel::<TcpStream>(self.limits.connections.max(1));
        let rx = Arc::new(Mutex::new(rx));
        let mut workers = Vec::new();
        for _ in 0..self.limits.workers.max(1) {
            let rx = Arc::clone(&rx);
            let shared = Arc::clone(&shared);
            workers.push(std::thread::spawn(move || loop {
                let next = rx.lock().unwrap_or_else(|p| p.into_inner()).recv();
                let Ok(stream) = next else { return };
                serve_connection(&shared, stream);
                shared.open.fetch_sub(1, Ordering::SeqCst);
            }));
        }
        for stream in self.listener.incoming() {
            if self.stop.load(Ordering::SeqCst) {
                break;
            }
            let Ok(mut stream) = stream else { continue };
            if shared.open.load(Ordering::SeqCst) >= shared.limits.connections {
                let _ = stream.set_write_timeout(Some(Duration::from_secs(1)));
                let _ = http::write_response(&mut stream, &Response::status(503), false, false);
                continue;
            }
            shared.open.fetch_add(1, Ordering::SeqCst);
            if tx.send(stream).is_err() {
                break;
            }
        }
        drop(tx);
        drop(shared);
        for w in workers {
            let _ = w.join();
        }
        Ok(())
    }
}

/// Answers the requests of one connection until it closes, idles or errs.
fn serve_connection(shared: &Shared, mut stream: TcpStream) {
    let _ = stream.set_write_timeout(Some(shared.limits.write));
    let _ = stream.set_nodelay(true);
    let mut buf = Vec::new();
    loop {
        match http::read_request(&mut stream, &mut buf, &shared.limits.bounds) {
            Err(Failure::Closed) => return,
            Err(Failure::Status(s)) => {
                let _ = http::write_response(&mut stream, &Response::status(s), false, false);
                return;
            }
            Ok(req) => {
                let head = req.method == "HEAD";
                let resp = answer(shared, &req);
                let keep = req.keep_alive && resp.status == 200;
                if http::write_response(&mut stream, &resp, keep, head).is_err() || !keep {
                    let _ = stream.flush();
                    return;
                }
            }
        }
    }
}

/// The response to one request.
fn answer(shared: &Shared, req: &Request) -> Response {
    if req.method != "GET" && req.method != "HEAD" {
        return Response::status(405);
    }
    let Some((path, query)) = guard::split_target(&req.target) else {
        return Response::status(400);
    };
    if !shared.guard.allows(req, &query) {
        return Response::status(403);
    }
    let number = |key: &str| -> Option<Option<u32>> {
        match query.iter().find(|(k, _)| *k == key) {
            None => Some(None),
            Some((_, v)) => v.parse().ok().map(Some),
        }
    };
    let segments: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    match segments.as_slice() {
        [""] => ok(
            "text/html; charset=utf-8",
            crate::app::index(&shared.guard.token),
        ),
        ["app.js"] => ok("text/javascript; charset=utf-8", crate::app::JS.as_bytes()),
        ["app.css"] => ok("text/css; charset=utf-8", crate::app::CSS.as_bytes()),
        ["api", "palette"] => ok(JSON, api::palette()),
        ["api", "files"] => ok(JSON, shared.api.overview()),
        ["api", "compare"] | ["api", "diff"] => {
            // Files by index, never by path: `f=0&f=1…` (diff: two).
            let mut files = Vec::new();
            for (k, v) in &query {
                if *k != "f" {
                    continue;
                }
                match v.parse::<usize>().ok().and_then(|i| shared.api.path(i)) {
                    Some(p) if files.len() < api::MAX_COMPARED => files.push(p),
                    _ => return Response::status(400),
                }
            }
            let diff = segments.get(1) == Some(&"diff");
            if files.len() < 2 || (diff && files.len() != 2) {
                return Response::status(400);
            }
            if !diff {
                // `map=extents|lsn|fill`: the picture `compare --out` draws.
                if let Some((_, m)) = query.iter().find(|(k, _)| *k == "map") {
                    return match metric(m) {
                        Some(m) => answered(shared.api.compare_map(files, m)),
                        None => Response::status(400),
                    };
                }
            }
            let cmd = if diff { Cmd::Diff } else { Cmd::Compare };
            answered(shared.api.run_many(cmd, files))
        }
        ["api", "file", n, rest @ ..] => {
            let Some(index) = n.parse::<usize>().ok().filter(|&i| i < shared.api.len()) else {
                return Response::status(404);
            };
            let page_arg = |p: &str| p.parse::<u32>().ok();
            let flag = |key: &str| query.iter().any(|(k, v)| *k == key && *v == "1");
            let (cmd, hex, levels) = match rest {
                ["pages"] => {
                    let (Some(from), Some(to)) = (number("from"), number("to")) else {
                        return Response::status(400);
                    };
                    let from = from.unwrap_or(0);
                    let last = from.saturating_add(PAGES_PER_REQUEST - 1);
                    let to = Some(to.map_or(last, |t| t.min(last)));
                    (Cmd::Pages { from, to }, false, false)
                }
                ["check"] => (Cmd::Check, false, false),
                ["levels"] => (Cmd::Indexes, false, true),
                ["indexes"] => (Cmd::Indexes, false, false),
                ["extents"] => (Cmd::Extents, false, false),
                ["segments"] => (Cmd::Segments, false, false),
                // A datadir's dictionary (`tables DATADIR`).
                ["tables"] => (Cmd::Tables, false, false),
                ["page", p] => match page_arg(p) {
                    Some(page) => (Cmd::Page { page }, true, false),
                    None => return Response::status(404),
                },
                ["records", p] => match page_arg(p) {
                    Some(page) => (
                        Cmd::Records(RecordsOpts {
                            page: Some(page),
                            deleted: flag("deleted"),
                            ..RecordsOpts::default()
                        }),
                        false,
                        false,
                    ),
                    None => return Response::status(404),
                },
                ["rows", p] => match page_arg(p) {
                    Some(page) => (
                        Cmd::Rows(RowsOpts {
                            where_page: Some(page),
                            with_deleted: flag("deleted"),
                            // `--max-value-bytes`: an off-page value's
                            // first bytes, in hex, marked truncated.
                            max_value_bytes: api::MAX_VALUE_BYTES,
                            ..RowsOpts::default()
                        }),
                        false,
                        false,
                    ),
                    None => return Response::status(404),
                },
                ["map", m] => {
                    return match metric(m).and_then(|m| shared.api.map(index, m)) {
                        Some(a) => answered(a),
                        None => Response::status(404),
                    };
                }
                ["links", p] => {
                    return match page_arg(p).and_then(|p| shared.api.links(index, p)) {
                        Some(a) => answered(a),
                        None => Response::status(404),
                    };
                }
                _ => return Response::status(404),
            };
            match shared.api.report(cmd, index, hex, levels) {
                None => Response::status(404),
                Some(a) => answered(a),
            }
        }
        _ => Response::status(404),
    }
}

const JSON: &str = "application/json";

/// A map's metric by its name in a request.
fn metric(name: &str) -> Option<Metric> {
    match name {
        "extents" => Some(Metric::Extents),
        "lsn" => Some(Metric::Lsn),
        "fill" => Some(Metric::Fill),
        _ => None,
    }
}

/// A command's answer, its outcome in a header.
fn answered(a: api::Answer) -> Response {
    Response {
        extra: vec![("X-Ibdscope-Outcome", api::outcome_name(a.outcome).into())],
        ..ok(JSON, a.body)
    }
}

fn ok(content_type: &'static str, body: impl Into<std::sync::Arc<[u8]>>) -> Response {
    Response {
        status: 200,
        content_type,
        body: body.into(),
        extra: Vec::new(),
    }
}
