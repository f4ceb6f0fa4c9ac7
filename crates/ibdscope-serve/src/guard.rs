//! Who may talk to the server: the token of this run, the `Host` it
//! answers to and the `Origin` it accepts.

use crate::http::Request;
use std::io::{self, Read};

/// A fresh token: 16 bytes of `/dev/urandom`, in hex.
pub fn token() -> io::Result<String> {
    let mut bytes = [0u8; 16];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Whether `a` equals `b`, looking at every byte whatever the first
/// difference (the time taken tells nothing about the token).
fn same(a: &str, b: &str) -> bool {
    let diff = a
        .bytes()
        .zip(b.bytes())
        .fold(0u8, |acc, (x, y)| acc | (x ^ y));
    diff == 0 && a.len() == b.len()
}

/// The path and the query's `(key, value)` pairs of a target; the target
/// is refused (`None`) when it holds a percent escape, a backslash, a dot
/// segment or an empty segment: nothing is ever decoded, and no path from
/// a request ever names a file.
pub fn split_target(target: &str) -> Option<(&str, Vec<(&str, &str)>)> {
    if target.contains('%') || target.contains('\\') || target.contains('#') {
        return None;
    }
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    let rest = path.strip_prefix('/')?;
    if !rest.is_empty()
        && rest
            .split('/')
            .any(|s| s.is_empty() || s == "." || s == "..")
    {
        return None;
    }
    let pairs = query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| p.split_once('=').unwrap_or((p, "")))
        .collect();
    Some((path, pairs))
}

/// What the server accepts.
#[derive(Debug)]
pub struct Guard {
    /// The token every request carries (`?t=`).
    pub token: String,
    /// `127.0.0.1:PORT` and `localhost:PORT`.
    hosts: [String; 2],
    /// `http://127.0.0.1:PORT` and `http://localhost:PORT`.
    origins: [String; 2],
}

impl Guard {
    /// The guard of a server on `port` with `token`.
    pub fn new(token: String, port: u16) -> Guard {
        Guard {
            token,
            hosts: [format!("127.0.0.1:{port}"), format!("localhost:{port}")],
            origins: [
                format!("http://127.0.0.1:{port}"),
                format!("http://localhost:{port}"),
            ],
        }
    }

    /// Whether `req` may be answered: one `Host` naming this server, an
    /// `Origin` (when sent) naming the same, and the token.
    pub fn allows(&self, req: &Request, query: &[(&str, &str)]) -> bool {
        let Ok(Some(host)) = req.header("host") else {
            return false;
        };
        let Some(i) = self.hosts.iter().position(|h| h.eq_ignore_ascii_case(host)) else {
            return false;
        };
        match req.header("origin") {
            Ok(None) => {}
            Ok(Some(o)) => {
                if !self
                    .origins
                    .get(i)
                    .is_some_and(|want| want.eq_ignore_ascii_case(o))
                {
                    return false;
                }
            }
            Err(()) => return false,
        }
        let mut tokens = query.iter().filter(|(k, _)| *k == "t");
        match (tokens.next(), tokens.next()) {
            (Some((_, t)), None) => same(t, &self.token),
            _ => false,
        }
    }
}
