//! # ibdscope-serve
//!
//! `ibdscope serve`: a local, read-only web server over the files named on
//! the command line, written on `std::net` (HTTP/1.1, keep-alive, a small
//! fixed pool of worker threads). Its JSON endpoints run the report's
//! commands with `--format json` ([`api`]): the browser shows exactly what
//! the commands print. The web application is compiled in ([`app`]).
//!
//! Security model (`docs/serve.md`): binds 127.0.0.1 only; a random token
//! from `/dev/urandom`, printed in the URL, is required on every request;
//! `Host` must name the server and a present `Origin` must equal it; files
//! are addressed by their index on the command line, never by a path from
//! a request; request line, headers and body are bounded; reads and writes
//! time out; connections are capped; responses carry a strict
//! Content-Security-Policy; nothing is ever written to disk.
#![cfg_attr(test, allow(clippy::disallowed_macros))]
#![forbid(unsafe_code)]

mod api;
mod app;
mod guard;
mod http;
mod server;

pub use http::Bounds;
pub use server::{Limits, Server};
