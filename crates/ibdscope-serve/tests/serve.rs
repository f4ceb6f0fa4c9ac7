//! The server under hostile requests, over raw TCP (std only): traversal in
//! every form, malformed and oversized heads, wrong tokens, foreign Host
//! and Origin, slow clients, more connections than the cap; and the page
//! verdicts it sends for a damaged copy against `check --format json`.
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
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A running server: its port and token.
struct Running {
    port: u16,
    token: String,
}

impl Running {
    fn host(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }
    /// A plain GET of `path` (the token appended).
    fn get(&self, path: &str) -> Reply {
        let sep = if path.contains('?') { '&' } else { '?' };
        self.send(
            format!(
                "GET {path}{sep}t={} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
                self.token,
                self.host()
            )
            .as_bytes(),
        )
    }
    fn send(&self, raw: &[u8]) -> Reply {
        let mut s = TcpStream::connect(("127.0.0.1", self.port)).expect("connect");
        s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
        // The server may close before reading everything (an oversized
        // head): a failed write is not the test's answer, the reply is.
        let _ = s.write_all(raw);
        read_reply(&mut s)
    }
}

#[derive(Debug)]
struct Reply {
    status: u16,
    head: String,
    body: Vec<u8>,
}

/// Reads one response (status, head, a body of Content-Length bytes).
fn read_reply(s: &mut TcpStream) -> Reply {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    let end = loop {
        if let Some(p) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break p;
        }
        match s.read(&mut chunk) {
            Ok(0) | Err(_) => {
                return Reply {
                    status: 0,
                    head: String::from_utf8_lossy(&buf).into_owned(),
                    body: Vec::new(),
                }
            }
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    };
    let head = String::from_utf8_lossy(&buf[..end]).into_owned();
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let len: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("Content-Length: "))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0);
    let mut body = buf[end + 4..].to_vec();
    while body.len() < len {
        match s.read(&mut chunk) {
            Ok(0) | Err(_) => break,
            Ok(n) => body.extend_from_slice(&chunk[..n]),
        }
    }
    body.truncate(len);
    Reply { status, head, body }
}

fn fixture(rel: &str) -> PathBuf {
    ibdscope_testkit::fixtures().join(rel)
}

/// Short bounds, so that the slow-client and cap tests run in seconds.
fn limits() -> Limits {
    let d = Limits::default();
    Limits {
        workers: 2,
        connections: 6,
        bounds: ibdscope_serve::Bounds {
            idle: Duration::from_millis(800),
            request: Duration::from_millis(1500),
            ..d.bounds
        },
        ..d
    }
}

fn start(files: Vec<PathBuf>) -> Running {
    let opts = Opts::new(Cmd::Info, files, Format::Json, Arc::new(ReadHost));
    let server = Server::bind(opts, 0, limits()).expect("bind");
    let url = server.url();
    assert!(url.starts_with("http://127.0.0.1:"), "{url}");
    let token = url
        .split("t=")
        .nth(1)
        .expect("token in the URL")
        .to_string();
    assert_eq!(token.len(), 32, "a 128-bit token in hex: {url}");
    let port = server.port();
    std::thread::spawn(move || server.run());
    Running { port, token }
}

fn ai_int() -> Running {
    start(vec![fixture("mariadb1011/ai_int.ibd")])
}

#[test]
fn serves_the_app_and_the_overview_with_the_security_headers() {
    let r = ai_int();
    let page = r.get("/");
    assert_eq!(page.status, 200, "{}", page.head);
    assert!(String::from_utf8_lossy(&page.body).contains(&format!("/app.js?t={}", r.token)));
    for h in [
        "Content-Security-Policy: default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'",
        "X-Content-Type-Options: nosniff",
        "Cache-Control: no-store",
    ] {
        assert!(page.head.contains(h), "{h} missing in\n{}", page.head);
    }
    let files = r.get("/api/files");
    assert_eq!(files.status, 200);
    let text = String::from_utf8_lossy(&files.body);
    assert!(
        text.starts_with("{\"files\":[{\"index\":0,\"kind\":\"file\",\"outcome\":\"clean\""),
        "{text}"
    );
    // The info report's own values (fixtures/mariadb1011: a MariaDB 10.11
    // full_crc32 file of 19 pages, as the server wrote it).
    assert!(text.contains("\"vendor\":\"MariaDB\""), "{text}");
    assert!(text.contains("\"pages\":19"), "{text}");
    for p in [
        "/app.js",
        "/app.css",
        "/api/palette",
        "/api/file/0/levels",
        "/api/file/0/page/3",
        "/api/file/0/check",
        "/api/file/0/map/extents",
        "/api/file/0/map/lsn",
        "/api/file/0/map/fill",
    ] {
        assert_eq!(r.get(p).status, 200, "{p}");
    }
}

#[test]
fn traversal_in_every_form_is_refused() {
    let r = ai_int();
    let targets = [
        "/../../../../etc/passwd",
        "/api/file/0/../../../../etc/passwd",
        "/%2e%2e/%2e%2e/etc/passwd",
        "/%2E%2E%2F%2E%2E%2Fetc%2Fpasswd",
        "/api/file/..%2f..%2fetc%2fpasswd",
        "/api/file/%30/pages",
        "//etc/passwd",
        "/etc/passwd",
        "/./api/files",
        "/api//files",
        "/api/file/0/page/1%00",
        "/..\\..\\etc\\passwd",
        "/api/file/-1/pages",
        "/api/file/1/pages",
        "/api/file/18446744073709551616/pages",
        "/api/file/0x0/pages",
        "/api/file/0/page/-1",
        "/api/file/0/page/../../1",
        "/api/file//etc/passwd/pages",
        "/api/file/0/pages?from=../1",
        // Compare and diff name files by index only, two to eight.
        "/api/compare?f=0&f=/etc/passwd",
        "/api/compare?f=0&f=../../etc/passwd",
        "/api/compare?f=0&f=1",
        "/api/compare?f=0",
        "/api/compare?f=0&f=0&f=0&f=0&f=0&f=0&f=0&f=0&f=0",
        "/api/diff?f=0",
        "/api/diff?f=0&f=0&f=0",
        "/api/diff?f=0&f=-1",
        "/api/file/0/links/../../etc/passwd",
        "/api/file/0/links/-1",
        "/api/file/0/rows/x",
        "/api/file/0/records/1/../../2",
        "/api/file/1/links/3",
        // The maps: the three pictures only, files by index.
        "/api/file/0/map/index",
        "/api/file/0/map/../../etc/passwd",
        "/api/file/1/map/lsn",
        "/api/compare?map=../../etc/passwd&f=0&f=0",
        "/api/compare?map=lsn&f=0",
    ];
    for t in targets {
        let rep = r.get(t);
        assert!(
            rep.status == 400 || rep.status == 404,
            "{t}: {} {}",
            rep.status,
            rep.head
        );
        assert!(!String::from_utf8_lossy(&rep.body).contains("root:"), "{t}");
    }
    // Absolute form, a NUL byte, an absolute path with no slash first.
    for raw in [
        format!(
            "GET http://{}/etc/passwd?t={} HTTP/1.1\r\nHost: {}\r\n\r\n",
            r.host(),
            r.token,
            r.host()
        ),
        format!(
            "GET /api/file/0/page/1\0?t={} HTTP/1.1\r\nHost: {}\r\n\r\n",
            r.token,
            r.host()
        ),
        format!(
            "GET etc/passwd?t={} HTTP/1.1\r\nHost: {}\r\n\r\n",
            r.token,
            r.host()
        ),
        format!(
            "GET /api/files?t={}\0 HTTP/1.1\r\nHost: {}\r\n\r\n",
            r.token,
            r.host()
        ),
    ] {
        let rep = r.send(raw.as_bytes());
        assert_eq!(rep.status, 400, "{raw:?}: {}", rep.head);
    }
}

#[test]
fn the_token_is_required() {
    let r = ai_int();
    let host = r.host();
    let ask = |target: &str| {
        r.send(format!("GET {target} HTTP/1.1\r\nHost: {host}\r\n\r\n").as_bytes())
            .status
    };
    assert_eq!(ask("/api/files"), 403);
    assert_eq!(ask("/"), 403);
    assert_eq!(ask("/app.js"), 403);
    assert_eq!(ask("/api/files?t="), 403);
    assert_eq!(ask("/api/files?t=00000000000000000000000000000000"), 403);
    assert_eq!(ask(&format!("/api/files?t={}0", r.token)), 403);
    assert_eq!(ask(&format!("/api/files?t={}", &r.token[..31])), 403);
    assert_eq!(ask(&format!("/api/files?t={}&t=x", r.token)), 403);
    assert_eq!(ask(&format!("/api/files?T={}", r.token)), 403);
    assert_eq!(ask(&format!("/api/files?t={}", r.token)), 200);
}

#[test]
fn a_foreign_host_or_origin_is_refused() {
    let r = ai_int();
    let (t, p) = (&r.token, r.port);
    let ask = |headers: &str| {
        r.send(format!("GET /api/files?t={t} HTTP/1.1\r\n{headers}\r\n").as_bytes())
            .status
    };
    // DNS rebinding: a foreign name resolving to 127.0.0.1.
    assert_eq!(ask(&format!("Host: evil.example:{p}\r\n")), 403);
    assert_eq!(
        ask(&format!("Host: 127.0.0.1:{}\r\n", p.wrapping_add(1))),
        403
    );
    assert_eq!(ask("Host: 127.0.0.1\r\n"), 403);
    assert_eq!(ask(""), 403);
    assert_eq!(
        ask(&format!("Host: 127.0.0.1:{p}\r\nHost: evil.example\r\n")),
        403
    );
    // Cross-site requests.
    assert_eq!(
        ask(&format!(
            "Host: 127.0.0.1:{p}\r\nOrigin: http://evil.example\r\n"
        )),
        403
    );
    assert_eq!(
        ask(&format!("Host: 127.0.0.1:{p}\r\nOrigin: null\r\n")),
        403
    );
    assert_eq!(
        ask(&format!(
            "Host: 127.0.0.1:{p}\r\nOrigin: http://localhost:{p}\r\n"
        )),
        403
    );
    assert_eq!(
        ask(&format!(
            "Host: 127.0.0.1:{p}\r\nOrigin: https://127.0.0.1:{p}\r\n"
        )),
        403
    );
    // The server's own names.
    assert_eq!(
        ask(&format!(
            "Host: 127.0.0.1:{p}\r\nOrigin: http://127.0.0.1:{p}\r\n"
        )),
        200
    );
    assert_eq!(ask(&format!("Host: localhost:{p}\r\n")), 200);
}

#[test]
fn oversized_and_malformed_heads_are_refused() {
    let r = ai_int();
    let (t, h) = (&r.token, r.host());
    let long_line = format!(
        "GET /api/files?t={t}&x={} HTTP/1.1\r\nHost: {h}\r\n\r\n",
        "a".repeat(10_000)
    );
    assert_eq!(r.send(long_line.as_bytes()).status, 400);
    let no_end = "G".repeat(5000);
    assert_eq!(r.send(no_end.as_bytes()).status, 400);
    let big_header = format!(
        "GET /api/files?t={t} HTTP/1.1\r\nHost: {h}\r\nX: {}\r\n\r\n",
        "b".repeat(20_000)
    );
    assert_eq!(r.send(big_header.as_bytes()).status, 431);
    let many: String = (0..100).map(|i| format!("X-{i}: 1\r\n")).collect();
    let many = format!("GET /api/files?t={t} HTTP/1.1\r\nHost: {h}\r\n{many}\r\n");
    assert_eq!(r.send(many.as_bytes()).status, 431);
    let body =
        format!("GET /api/files?t={t} HTTP/1.1\r\nHost: {h}\r\nContent-Length: 1000000000\r\n\r\n");
    assert_eq!(r.send(body.as_bytes()).status, 413);
    for raw in [
        format!("GET /api/files?t={t} HTTP/1.1\r\nHost: {h}\r\nTransfer-Encoding: chunked\r\n\r\n"),
        format!("GET /api/files?t={t} HTTP/1.1\r\nHost: {h}\r\nContent-Length: -1\r\n\r\n"),
        format!("GET /api/files?t={t} HTTP/1.1\r\nHost: {h}\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n"),
        format!("GET /api/files?t={t} HTTP/2.0\r\nHost: {h}\r\n\r\n"),
        format!("get /api/files?t={t} HTTP/1.1\r\nHost: {h}\r\n\r\n"),
        format!("GET  /api/files?t={t} HTTP/1.1\r\nHost: {h}\r\n\r\n"),
        format!("GET /api/files?t={t}\r\nHost: {h}\r\n\r\n"),
        format!("GET /api/files?t={t} HTTP/1.1\r\nHost {h}\r\n\r\n"),
        format!("GET /api/files?t={t} HTTP/1.1\r\nHost: {h}\r\n folded\r\n\r\n"),
        format!("GET /api/files?t={t} HTTP/1.1\r\nHost: {h}\r\nX: \u{1}\r\n\r\n"),
        format!("GET /api/files?t={t} HTTP/1.1\r\nHost: {h}\r\nX: caf\u{e9}\r\n\r\n"),
        "\r\n\r\n".to_string(),
    ] {
        assert_eq!(r.send(raw.as_bytes()).status, 400, "{raw:?}");
    }
    let post =
        format!("POST /api/files?t={t} HTTP/1.1\r\nHost: {h}\r\nContent-Length: 2\r\n\r\n{{}}");
    assert_eq!(r.send(post.as_bytes()).status, 405);
    // The server still serves.
    assert_eq!(r.get("/api/files").status, 200);
}

#[test]
fn keep_alive_answers_several_requests_on_one_connection() {
    let r = ai_int();
    let mut s = TcpStream::connect(("127.0.0.1", r.port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    for p in ["/api/palette", "/api/file/0/page/4", "/api/files"] {
        write!(
            s,
            "GET {p}?t={} HTTP/1.1\r\nHost: {}\r\n\r\n",
            r.token,
            r.host()
        )
        .unwrap();
        let rep = read_reply(&mut s);
        assert_eq!(rep.status, 200, "{p}");
        assert!(rep.head.contains("Connection: keep-alive"), "{}", rep.head);
    }
}

#[test]
fn a_slow_client_times_out() {
    let r = ai_int();
    // Half a head, then nothing: 408 once the request bound (1.5 s) passes.
    let mut s = TcpStream::connect(("127.0.0.1", r.port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let started = Instant::now();
    write!(s, "GET /api/files?t={} HTTP/1.1\r\nHost: ", r.token).unwrap();
    let rep = read_reply(&mut s);
    assert_eq!(rep.status, 408, "{}", rep.head);
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    // One byte every 300 ms never ends the head: still 408, the bound is
    // on the whole head, not on each read.
    let mut s = TcpStream::connect(("127.0.0.1", r.port)).unwrap();
    s.set_read_timeout(Some(Duration::from_millis(100)))
        .unwrap();
    let started = Instant::now();
    let mut got = Vec::new();
    for b in b"GET /api/files HTTP/1.1\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" {
        if s.write_all(&[*b]).is_err() {
            break;
        }
        std::thread::sleep(Duration::from_millis(300));
        let mut chunk = [0u8; 256];
        if let Ok(n) = s.read(&mut chunk) {
            got.extend_from_slice(&chunk[..n]);
            break;
        }
    }
    assert!(
        got.starts_with(b"HTTP/1.1 408"),
        "{:?}",
        String::from_utf8_lossy(&got)
    );
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    // An idle connection is closed quietly.
    let mut s = TcpStream::connect(("127.0.0.1", r.port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let mut chunk = [0u8; 16];
    assert_eq!(s.read(&mut chunk).unwrap_or(0), 0);
}

#[test]
fn connections_past_the_cap_get_503_and_the_server_keeps_serving() {
    let r = ai_int();
    // Idle connections hold every worker and every place (cap 6).
    let held: Vec<TcpStream> = (0..6)
        .map(|_| TcpStream::connect(("127.0.0.1", r.port)).unwrap())
        .collect();
    std::thread::sleep(Duration::from_millis(100));
    let mut refused = 0;
    for _ in 0..10 {
        let mut s = TcpStream::connect(("127.0.0.1", r.port)).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        if read_reply(&mut s).status == 503 {
            refused += 1;
        }
    }
    assert_eq!(refused, 10, "every connection past the cap gets 503");
    drop(held);
    // The held ones end (closed, or idle past the bound): served again.
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let rep = r.get("/api/files");
        if rep.status == 200 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "not serving again: {}",
            rep.status
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// The pages' (page, verdict) pairs of a `pages` JSON document.
fn verdicts(json: &str) -> Vec<(u32, String)> {
    json.split("{\"page\":")
        .skip(1)
        .map(|obj| {
            let page = obj.split(',').next().unwrap().parse().unwrap();
            let v = obj.split("\"verdict\":\"").nth(1).unwrap();
            (page, v.split('"').next().unwrap().to_string())
        })
        .collect()
}

#[test]
fn a_damaged_copys_page_verdicts_are_checks() {
    // Damage planted on a copy in a scratch dir: 8 bytes in page 5, 200
    // zero bytes in page 7 of the MariaDB 10.11 file (16 KiB pages).
    let dir = std::env::temp_dir().join(format!("ibdscope-serve-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let copy = dir.join("ai_int.ibd");
    let mut bytes = std::fs::read(fixture("mariadb1011/ai_int.ibd")).unwrap();
    bytes[5 * 16384 + 2000..5 * 16384 + 2008]
        .copy_from_slice(&[0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4]);
    bytes[7 * 16384 + 100..7 * 16384 + 300].fill(0);
    std::fs::write(&copy, &bytes).unwrap();

    let mut check = Vec::new();
    let opts = Opts::new(
        Cmd::Check,
        vec![copy.clone()],
        Format::Json,
        Arc::new(ReadHost),
    );
    ibdscope_report::run(&opts, &mut check).unwrap();
    let check = String::from_utf8(check).unwrap();

    let r = start(vec![copy]);
    let rep = r.get("/api/file/0/pages");
    assert_eq!(rep.status, 200);
    assert!(
        rep.head.contains("X-Ibdscope-Outcome: findings"),
        "{}",
        rep.head
    );
    let served = verdicts(&String::from_utf8(rep.body).unwrap());
    assert_eq!(served.len(), 19);
    // Every page `check` lists (invalid, freed invalid, unverifiable) with
    // its verdict; every other page valid or empty.
    let listed = verdicts(&check);
    assert!(
        listed.iter().any(|(p, _)| *p == 5) && listed.iter().any(|(p, _)| *p == 7),
        "{check}"
    );
    for (page, verdict) in &served {
        match listed.iter().find(|(p, _)| p == page) {
            Some((_, v)) => assert_eq!(verdict, v, "page {page}"),
            None => assert!(
                verdict == "valid" || verdict == "empty",
                "page {page}: {verdict}"
            ),
        }
    }
    // The page view gives the same verdict.
    let page = String::from_utf8(r.get("/api/file/0/page/5").body).unwrap();
    let want = &listed.iter().find(|(p, _)| *p == 5).unwrap().1;
    assert!(page.contains(&format!("\"verdict\":\"{want}\"")), "{page}");
    // Every map (the pictures `extents`, `lsn`, `fill --out` draw, one
    // page a cell) draws the damaged red on exactly the pages `check`
    // finds damaged (none of them unverifiable here).
    let red = ibdscope_render::color::ansi256_to_rgb(ibdscope_render::color::DAMAGED_ANSI).hex();
    let damaged: Vec<usize> = (listed.iter())
        .filter(|(_, v)| !v.starts_with("unverifiable"))
        .map(|(p, _)| *p as usize)
        .collect();
    for m in ["extents", "lsn", "fill"] {
        let body = String::from_utf8(r.get(&format!("/api/file/0/map/{m}")).body).unwrap();
        let cells = body.split("\"cells\":[").nth(1).expect("cells");
        let cells: Vec<&str> = cells[..cells.find(']').unwrap()].split(',').collect();
        assert_eq!(cells.len(), 19, "{m}: {body}");
        let drawn: Vec<usize> = (cells.iter().enumerate())
            .filter(|(_, c)| **c == format!("\"{red}\""))
            .map(|(p, _)| p)
            .collect();
        assert_eq!(drawn, damaged, "{m}: {body}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The numbers after `"key":` in `json`, in order.
fn numbers_after(json: &str, key: &str) -> Vec<u64> {
    json.split(&format!("\"{key}\":"))
        .skip(1)
        .filter_map(|s| {
            s.chars()
                .take_while(char::is_ascii_digit)
                .collect::<String>()
                .parse()
                .ok()
        })
        .collect()
}

/// A page's links name the children its node pointers name and the parent
/// whose node pointer names it: on a REDUNDANT tree, whose node pointers
/// `records` gives exactly (the child page number is a record's last 4
/// bytes, its last field), the root's children from `/links` are its node pointers', in
/// record order, and each child's parent is the root.
#[test]
fn links_name_the_pages_the_node_pointers_name() {
    let r = start(vec![fixture("mariadb1011/rf_redundant.ibd")]);
    let rec = String::from_utf8(r.get("/api/file/0/records/3").body).unwrap();
    let mut expected = Vec::new();
    for part in rec.split("\"type\":\"node_ptr\"").skip(1) {
        let exact = part.split("\"exact\":").nth(1).unwrap();
        assert!(
            exact.starts_with("true"),
            "REDUNDANT records are exact: {part}"
        );
        // The fields as hex: the last is the child page number.
        let fields = part.split("\"fields\":[").nth(1).unwrap();
        let fields = &fields[..fields.find(']').unwrap()];
        let last = fields.rsplit(',').next().unwrap().trim_matches('"');
        expected.push(u64::from_str_radix(last, 16).unwrap());
    }
    // The server's count: 19 leaves (indexes `leaf_pages`).
    assert_eq!(expected.len(), 19, "{rec}");
    let links = String::from_utf8(r.get("/api/file/0/links/3").body).unwrap();
    let kids = links.split("\"children\":[").nth(1).unwrap();
    let kids: Vec<u64> = kids[..kids.find(']').unwrap()]
        .split(',')
        .map(|k| k.parse().unwrap())
        .collect();
    assert_eq!(kids, expected, "{links}");
    assert!(links.contains("\"parent\":null"), "{links}");
    assert!(links.contains("\"complete\":true"), "{links}");
    for k in kids {
        let l = String::from_utf8(r.get(&format!("/api/file/0/links/{k}")).body).unwrap();
        assert_eq!(numbers_after(&l, "parent"), vec![3], "{l}");
        assert_eq!(numbers_after(&l, "level"), vec![0], "{l}");
        assert!(l.contains("\"children\":[]"), "{l}");
    }
}
