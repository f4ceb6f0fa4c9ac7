//! HTTP/1.1 on a byte stream: one request head read under bounds, one
//! response written with the security headers every response carries.
//! Only `GET` and `HEAD` are served; a body is read and dropped (bounded).

use std::io::{self, Read, Write};
use std::time::{Duration, Instant};

/// The bounds of a request.
#[derive(Clone, Copy, Debug)]
pub struct Bounds {
    /// Longest request line (bytes, without CRLF): longer is 400.
    pub line: usize,
    /// Longest head (request line and headers): longer is 431.
    pub head: usize,
    /// Most header lines: more is 431.
    pub headers: usize,
    /// Largest body (`Content-Length`): larger is 413.
    pub body: usize,
    /// How long a connection may wait idle for its next request.
    pub idle: Duration,
    /// How long a request's head (and body) may take to arrive: a slow
    /// client past it gets 408.
    pub request: Duration,
}

/// A request head, checked.
#[derive(Debug)]
pub struct Request {
    /// `GET` or `HEAD` (others are refused by the server).
    pub method: String,
    /// The request target as sent (origin form: starts with `/`).
    pub target: String,
    /// Header names (lower case) and values.
    pub headers: Vec<(String, String)>,
    /// Whether the connection stays open after the response.
    pub keep_alive: bool,
}

impl Request {
    /// The value of header `name` (lower case); `Err` when it is repeated.
    pub fn header(&self, name: &str) -> Result<Option<&str>, ()> {
        let mut found = None;
        for (n, v) in &self.headers {
            if n == name {
                if found.is_some() {
                    return Err(());
                }
                found = Some(v.as_str());
            }
        }
        Ok(found)
    }
}

/// Why no request was read.
#[derive(Debug)]
pub enum Failure {
    /// The peer closed, or stayed idle past the bound: close quietly.
    Closed,
    /// Answer with this status, then close.
    Status(u16),
}

/// Reads one request from `stream`; `buf` keeps bytes read past it (the
/// next pipelined request).
pub fn read_request<S: Read + SetTimeout>(
    stream: &mut S,
    buf: &mut Vec<u8>,
    b: &Bounds,
) -> Result<Request, Failure> {
    let started = Instant::now();
    let head_end = loop {
        if let Some(end) = find(buf, b"\r\n\r\n") {
            break end;
        }
        if find(buf, b"\r\n").is_none() && buf.len() > b.line {
            return Err(Failure::Status(400));
        }
        if buf.len() > b.head {
            return Err(Failure::Status(431));
        }
        // Idle before the first byte of a request; bounded as a whole
        // once it started.
        let idle = buf.is_empty();
        let wait = if idle { b.idle } else { remaining(b, started)? };
        match read_more(stream, buf, wait) {
            Got::Bytes => {}
            Got::Eof | Got::TimedOut if idle => return Err(Failure::Closed),
            Got::Eof => return Err(Failure::Status(400)),
            Got::TimedOut => return Err(Failure::Status(408)),
            Got::Failed => return Err(Failure::Closed),
        }
    };
    if head_end > b.head {
        return Err(Failure::Status(431));
    }
    let head: Vec<u8> = buf.drain(..head_end.saturating_add(4)).collect();
    let req = parse_head(head.get(..head_end).unwrap_or_default(), b)?;
    let length = match req.header("content-length") {
        Err(()) => return Err(Failure::Status(400)),
        Ok(None) => 0,
        Ok(Some(v)) => match v.parse::<u64>() {
            Ok(n) if n > b.body as u64 => return Err(Failure::Status(413)),
            Ok(n) => usize::try_from(n).map_err(|_| Failure::Status(413))?,
            Err(_) => return Err(Failure::Status(400)),
        },
    };
    if !matches!(req.header("transfer-encoding"), Ok(None)) {
        return Err(Failure::Status(400));
    }
    // Read the body and drop it.
    while buf.len() < length {
        match read_more(stream, buf, remaining(b, started)?) {
            Got::Bytes => {}
            Got::TimedOut => return Err(Failure::Status(408)),
            Got::Eof | Got::Failed => return Err(Failure::Closed),
        }
    }
    buf.drain(..length);
    Ok(req)
}

/// What one read gave.
enum Got {
    Bytes,
    Eof,
    TimedOut,
    Failed,
}

/// Reads what arrives within `wait` into `buf`.
fn read_more<S: Read + SetTimeout>(stream: &mut S, buf: &mut Vec<u8>, wait: Duration) -> Got {
    let mut chunk = [0u8; 4096];
    if stream.set_timeout(Some(wait)).is_err() {
        return Got::Failed;
    }
    loop {
        match stream.read(&mut chunk) {
            Ok(0) => return Got::Eof,
            Ok(n) => {
                buf.extend_from_slice(chunk.get(..n).unwrap_or_default());
                return Got::Bytes;
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) if is_timeout(&e) => return Got::TimedOut,
            Err(_) => return Got::Failed,
        }
    }
}

/// What is left of the request's time: 408 once it is spent.
fn remaining(b: &Bounds, started: Instant) -> Result<Duration, Failure> {
    match b.request.checked_sub(started.elapsed()) {
        Some(w) if !w.is_zero() => Ok(w),
        _ => Err(Failure::Status(408)),
    }
}

fn is_timeout(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
    )
}

/// A stream whose read timeout can be set (a `TcpStream`).
pub trait SetTimeout {
    /// Sets the read timeout.
    fn set_timeout(&self, t: Option<Duration>) -> io::Result<()>;
}

impl SetTimeout for std::net::TcpStream {
    fn set_timeout(&self, t: Option<Duration>) -> io::Result<()> {
        self.set_read_timeout(t)
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// Checks the head's bytes: visible ASCII, spaces and tabs, lines ended by
/// CRLF; a request line of three parts; headers `name: value`.
fn parse_head(head: &[u8], b: &Bounds) -> Result<Request, Failure> {
    let bad = Failure::Status(400);
    if head
        .iter()
        .any(|&c| !(c == b'\r' || c == b'\n' || c == b'\t' || (b' '..=b'~').contains(&c)))
    {
        return Err(bad);
    }
    let text = std::str::from_utf8(head).map_err(|_| Failure::Status(400))?;
    let mut lines = text.split("\r\n");
    let line = lines.next().unwrap_or_default();
    if line.len() > b.line {
        return Err(Failure::Status(400));
    }
    let mut parts = line.split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(bad);
    };
    if method.is_empty()
        || !method.bytes().all(|c| c.is_ascii_uppercase())
        || !target.starts_with('/')
        || target.contains('\t')
    {
        return Err(bad);
    }
    let keep_default = match version {
        "HTTP/1.1" => true,
        "HTTP/1.0" => false,
        _ => return Err(bad),
    };
    let mut headers = Vec::new();
    for l in lines {
        if l.is_empty() || l.contains('\n') || l.contains('\r') {
            return Err(Failure::Status(400));
        }
        if l.starts_with(' ') || l.starts_with('\t') {
            return Err(Failure::Status(400)); // obsolete line folding
        }
        let Some((name, value)) = l.split_once(':') else {
            return Err(Failure::Status(400));
        };
        if name.is_empty()
            || !name
                .bytes()
                .all(|c| c.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&c))
        {
            return Err(Failure::Status(400));
        }
        if headers.len() >= b.headers {
            return Err(Failure::Status(431));
        }
        headers.push((name.to_ascii_lowercase(), value.trim().to_string()));
    }
    let mut req = Request {
        method: method.to_string(),
        target: target.to_string(),
        headers,
        keep_alive: keep_default,
    };
    match req.header("connection") {
        Err(()) => return Err(Failure::Status(400)),
        Ok(Some(c)) if c.eq_ignore_ascii_case("close") => req.keep_alive = false,
        Ok(Some(c)) if c.eq_ignore_ascii_case("keep-alive") => req.keep_alive = true,
        _ => {}
    }
    Ok(req)
}

/// A response to write.
#[derive(Debug)]
pub struct Response {
    /// The status code.
    pub status: u16,
    /// `Content-Type`.
    pub content_type: &'static str,
    /// The body (shared: a kept answer is sent without a copy).
    pub body: std::sync::Arc<[u8]>,
    /// Extra headers.
    pub extra: Vec<(&'static str, String)>,
}

impl Response {
    /// A response of `status` whose body is its reason phrase.
    pub fn status(status: u16) -> Response {
        Response {
            status,
            content_type: "text/plain; charset=utf-8",
            body: format!("{status} {}\n", reason(status)).into_bytes().into(),
            extra: Vec::new(),
        }
    }
}

/// The Content-Security-Policy of every response: nothing from elsewhere,
/// no inline script or style, no frames, no forms.
pub const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; \
frame-ancestors 'none'";

/// Writes `r` (no body for `HEAD`), with the headers every response
/// carries.
pub fn write_response(
    w: &mut dyn Write,
    r: &Response,
    keep_alive: bool,
    head_only: bool,
) -> io::Result<()> {
    let mut head = format!(
        "HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\n\
Content-Security-Policy: {CSP}\r\nX-Content-Type-Options: nosniff\r\n\
X-Frame-Options: DENY\r\nReferrer-Policy: no-referrer\r\n\
Cross-Origin-Resource-Policy: same-origin\r\nCache-Control: no-store\r\n\
Connection: {}\r\n",
        r.status,
        reason(r.status),
        r.content_type,
        r.body.len(),
        if keep_alive { "keep-alive" } else { "close" },
    );
    for (n, v) in &r.extra {
        head.push_str(n);
        head.push_str(": ");
        head.push_str(v);
        head.push_str("\r\n");
    }
    head.push_str("\r\n");
    w.write_all(head.as_bytes())?;
    if !head_only {
        w.write_all(&r.body)?;
    }
    w.flush()
}

/// The reason phrase of the statuses the server sends.
pub fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        413 => "Content Too Large",
        431 => "Request Header Fields Too Large",
        503 => "Service Unavailable",
        _ => "Internal Server Error",
    }
}
