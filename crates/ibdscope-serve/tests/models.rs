//! The file models' threads: at most `Limits::models` open, closed when
//! idle (and opened again by the next request, answering the same), the
//! owner map kept encoded, and every model thread ended when the server
//! stops. A test binary of its own: it counts this process's threads
//! named `ibdscope-model` (Linux `/proc/self/task/*/comm`).
#![allow(
    clippy::arithmetic_side_effects,
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::disallowed_macros
)]

use ibdscope_report::args::{Cmd, Format, Opts};
use ibdscope_report::host::ReadHost;
use ibdscope_serve::{Limits, Server};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// This process's threads named `ibdscope-model`; `None` without `/proc`.
fn model_threads() -> Option<usize> {
    let tasks = std::fs::read_dir("/proc/self/task").ok()?;
    Some(
        tasks
            .filter_map(Result::ok)
            .filter(|t| {
                std::fs::read_to_string(t.path().join("comm"))
                    .is_ok_and(|c| c.trim_end() == "ibdscope-model")
            })
            .count(),
    )
}

/// Waits (at most 20 s) until `n` model threads run.
fn until_models(n: usize, what: &str) {
    let until = Instant::now() + Duration::from_secs(20);
    loop {
        let now = model_threads().unwrap();
        if now == n {
            return;
        }
        assert!(
            Instant::now() < until,
            "{what}: {now} model threads, not {n}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// `GET path` with the token: status and body.
fn get(port: u16, token: &str, path: &str) -> (u16, Vec<u8>) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    write!(
        s,
        "GET {path}?t={token} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut all = Vec::new();
    s.read_to_end(&mut all).unwrap();
    let end = all.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    let head = String::from_utf8_lossy(&all[..end]).into_owned();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    (status, all[end + 4..].to_vec())
}

#[test]
fn models_close_when_idle_or_past_the_cap_and_end_with_the_server() {
    if model_threads().is_none() {
        eprintln!("\n*** SKIPPED: no /proc/self/task to count the model threads\n");
        return;
    }
    let files = vec![
        ibdscope_testkit::fixtures().join("mariadb1011/ai_int.ibd"),
        ibdscope_testkit::fixtures().join("mysql56/ai_int.ibd"),
    ];
    let opts = Opts::new(Cmd::Info, files, Format::Json, Arc::new(ReadHost));
    let limits = Limits {
        models: 1,
        model_idle: Duration::from_millis(1500),
        ..Limits::default()
    };
    let server = Server::bind(opts, 0, limits).unwrap();
    let (port, stop) = (server.port(), server.stopper());
    let token = server.url().split("t=").nth(1).unwrap().to_string();
    let running = std::thread::spawn(move || server.run());
    until_models(0, "before any request");

    let (st, check0) = get(port, &token, "/api/file/0/check");
    assert_eq!(st, 200);
    until_models(1, "file 0 asked");
    // The owner map, made once and then sent as kept: the same bytes.
    let (_, x1) = get(port, &token, "/api/file/0/extents");
    let (_, x2) = get(port, &token, "/api/file/0/extents");
    assert!(
        x1.starts_with(b"{") && x1.len() > 100,
        "{}",
        String::from_utf8_lossy(&x1)
    );
    assert_eq!(x1, x2);
    // A second file past the cap of one: file 0's model closes.
    let (st, _) = get(port, &token, "/api/file/1/check");
    assert_eq!(st, 200);
    until_models(1, "file 1 asked, file 0 closed");
    // Idle past `model_idle`: no model left open.
    until_models(0, "idle");
    // Asked again, opened again: the same answer.
    let (st, again) = get(port, &token, "/api/file/0/check");
    assert_eq!(st, 200);
    assert_eq!(again, check0);
    until_models(1, "file 0 asked again");

    // The overview builds each file's model for the page views behind it;
    // the server stopping ends every model thread.
    let (st, _) = get(port, &token, "/api/files");
    assert_eq!(st, 200);
    stop();
    let until = Instant::now() + Duration::from_secs(30);
    while !running.is_finished() {
        assert!(Instant::now() < until, "run did not return after stop");
        std::thread::sleep(Duration::from_millis(50));
    }
    running.join().unwrap().unwrap();
    until_models(0, "the server stopped");
}
