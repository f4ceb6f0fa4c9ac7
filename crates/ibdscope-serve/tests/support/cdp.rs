//! A minimal Chrome DevTools Protocol client, std only: headless Chromium
//! started with `--remote-debugging-port=0` writes the port it chose to
//! `DevToolsActivePort` in its profile; `/json/list` there names the
//! page's WebSocket; commands and their answers are JSON text frames
//! (RFC 6455: the client masks its frames, the browser does not). Enough
//! to navigate, evaluate script, move and click the mouse as a person
//! does (`Input.dispatchMouseEvent`), read the bodies of the responses the
//! page fetched (`Network.getResponseBody`) and take screenshots
//! (`Page.captureScreenshot`).

use super::json::{quote, Json};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A browser started for a test, and its page's DevTools connection.
pub struct Browser {
    child: Child,
    ws: TcpStream,
    next_id: u64,
    /// The events received so far (method and params), oldest first.
    events: Vec<Json>,
    profile: PathBuf,
}

impl Browser {
    /// Starts `prog` headless with a fresh `profile` and connects to its
    /// first page; `Err` says why it could not.
    pub fn start(prog: &str, profile: &Path) -> Result<Browser, String> {
        let _ = std::fs::remove_dir_all(profile);
        std::fs::create_dir_all(profile).map_err(|e| e.to_string())?;
        let child = Command::new(prog)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--hide-scrollbars",
                "--no-first-run",
                "--mute-audio",
                "--window-size=1100,800",
                "--remote-debugging-port=0",
                "--remote-allow-origins=*",
            ])
            .arg(format!("--user-data-dir={}", profile.display()))
            .arg("about:blank")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("{prog}: {e}"))?;
        let mut child = child;
        let socket = active_port(&mut child, profile)
            .and_then(|port| Ok((port, page_socket(port)?)))
            .and_then(|(port, path)| handshake(port, &path));
        match socket {
            Ok(ws) => Ok(Browser {
                child,
                ws,
                next_id: 1,
                events: Vec::new(),
                profile: profile.to_path_buf(),
            }),
            Err(e) => {
                let _ = child.kill();
                let _ = child.wait();
                Err(e)
            }
        }
    }

    /// Sends `method` with `params` (a JSON object's text) and returns its
    /// `result`; panics on a protocol error.
    pub fn call(&mut self, method: &str, params: &str) -> Json {
        let id = self.next_id;
        self.next_id += 1;
        let msg = format!(
            "{{\"id\":{id},\"method\":{},\"params\":{params}}}",
            quote(method)
        );
        send_text(&mut self.ws, msg.as_bytes()).expect("send to the browser");
        let until = Instant::now() + Duration::from_secs(120);
        loop {
            assert!(Instant::now() < until, "{method}: no answer in 120 s");
            let text = recv_text(&mut self.ws).expect("read from the browser");
            let m = Json::parse(&text).unwrap_or_else(|| panic!("not JSON: {text:.200}"));
            if m.get("id").u64() == Some(id) {
                if let Some(e) = m.get("error").str_of("message") {
                    panic!("{method}: {e}");
                }
                return m.get("result").clone();
            }
            if m.get("method").str().is_some() {
                self.events.push(m);
            }
        }
    }

    /// Evaluates `expr` in the page (awaiting a promise) and returns its
    /// value; panics when it throws.
    pub fn eval(&mut self, expr: &str) -> Json {
        let r = self.call(
            "Runtime.evaluate",
            &format!(
                "{{\"expression\":{},\"returnByValue\":true,\"awaitPromise\":true}}",
                quote(expr)
            ),
        );
        if let Some(e) = r.get("exceptionDetails").as_obj() {
            panic!("{expr}: {e:?}");
        }
        r.get("result").get("value").clone()
    }

    /// Waits until `expr` is truthy in the page (at most `secs`); its value.
    pub fn wait(&mut self, expr: &str, secs: u64) -> Json {
        let until = Instant::now() + Duration::from_secs(secs);
        loop {
            let v = self.eval(&format!(
                "(() => {{ try {{ return {expr}; }} catch (e) {{ return null; }} }})()"
            ));
            if v.truthy() {
                return v;
            }
            assert!(
                Instant::now() < until,
                "{expr}: not true within {secs} s; the view: {}",
                self.eval("document.getElementById('view') ? document.getElementById('view').innerText.slice(0, 2000) : document.body.innerText")
                    .str()
                    .unwrap_or("")
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Loads `url`, forgetting the events so far.
    pub fn navigate(&mut self, url: &str) {
        self.events.clear();
        self.call("Page.navigate", &format!("{{\"url\":{}}}", quote(url)));
    }

    /// The centre of the element `selector` names, scrolled into view.
    pub fn centre(&mut self, selector: &str) -> (f64, f64) {
        let v = self.eval(&format!(
            "(() => {{ const e = document.querySelector({}); e.scrollIntoView({{block: 'center'}}); \
             const r = e.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; }})()",
            quote(selector)
        ));
        (v.at(0).f64().unwrap(), v.at(1).f64().unwrap())
    }

    /// Moves the mouse to (`x`, `y`) (CSS pixels of the viewport), as a
    /// person's hover.
    pub fn hover(&mut self, x: f64, y: f64) {
        self.call(
            "Input.dispatchMouseEvent",
            &format!("{{\"type\":\"mouseMoved\",\"x\":{x},\"y\":{y}}}"),
        );
    }

    /// A left click at (`x`, `y`): press and release.
    pub fn click(&mut self, x: f64, y: f64) {
        self.hover(x, y);
        for t in ["mousePressed", "mouseReleased"] {
            self.call(
                "Input.dispatchMouseEvent",
                &format!(
                    "{{\"type\":\"{t}\",\"x\":{x},\"y\":{y},\"button\":\"left\",\"clickCount\":1}}"
                ),
            );
        }
    }

    /// Clicks the element `selector` names at its centre.
    pub fn click_on(&mut self, selector: &str) {
        let (x, y) = self.centre(selector);
        self.click(x, y);
    }

    /// The body of the last response the page fetched whose URL contains
    /// `part`, parsed (`Network.enable` must have been called).
    pub fn fetched(&mut self, part: &str) -> Json {
        let id = self
            .events
            .iter()
            .rev()
            .find(|e| {
                e.get("method").str() == Some("Network.responseReceived")
                    && e.get("params")
                        .get("response")
                        .get("url")
                        .str()
                        .is_some_and(|u| u.contains(part))
            })
            .and_then(|e| e.get("params").get("requestId").str().map(String::from))
            .unwrap_or_else(|| panic!("the page fetched no {part}"));
        let r = self.call(
            "Network.getResponseBody",
            &format!("{{\"requestId\":{}}}", quote(&id)),
        );
        let body = r.get("body").str().unwrap_or("").to_string();
        Json::parse(&body).unwrap_or_else(|| panic!("{part}: not JSON: {body:.200}"))
    }

    /// A PNG of the viewport (what a person sees), written to `path`.
    pub fn screenshot(&mut self, path: &Path) {
        let r = self.call("Page.captureScreenshot", "{\"format\":\"png\"}");
        let png = base64(r.get("data").str().unwrap_or("")).expect("base64 PNG");
        std::fs::write(path, png).expect("write the screenshot");
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        // Ask it to close (its helpers end with it), then end the one
        // process started here, by its handle.
        let msg = format!(
            "{{\"id\":{},\"method\":\"Browser.close\",\"params\":{{}}}}",
            self.next_id
        );
        let _ = send_text(&mut self.ws, msg.as_bytes());
        let until = Instant::now() + Duration::from_secs(10);
        while Instant::now() < until {
            if let Ok(Some(_)) = self.child.try_wait() {
                let _ = std::fs::remove_dir_all(&self.profile);
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.profile);
    }
}

/// The port the browser wrote to its profile's `DevToolsActivePort`.
fn active_port(child: &mut Child, profile: &Path) -> Result<u16, String> {
    let file = profile.join("DevToolsActivePort");
    let until = Instant::now() + Duration::from_secs(60);
    loop {
        if let Ok(t) = std::fs::read_to_string(&file) {
            if let Some(p) = t.lines().next().and_then(|l| l.trim().parse().ok()) {
                return Ok(p);
            }
        }
        if let Ok(Some(st)) = child.try_wait() {
            return Err(format!("the browser exited ({st}) before listening"));
        }
        if Instant::now() > until {
            return Err("no DevToolsActivePort within 60 s".into());
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The WebSocket path of the browser's first page (`/json/list`).
fn page_socket(port: u16) -> Result<String, String> {
    let until = Instant::now() + Duration::from_secs(30);
    loop {
        let body = http_get(port, "/json/list")?;
        if let Some(list) = Json::parse(&body) {
            let mut i = 0;
            while list.at(i).as_obj().is_some() {
                let t = list.at(i);
                if t.get("type").str() == Some("page") {
                    if let Some(u) = t.get("webSocketDebuggerUrl").str() {
                        let path = u.splitn(4, '/').nth(3).unwrap_or("");
                        return Ok(format!("/{path}"));
                    }
                }
                i += 1;
            }
        }
        if Instant::now() > until {
            return Err(format!("no page in /json/list: {body:.300}"));
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn http_get(port: u16, path: &str) -> Result<String, String> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).map_err(|e| e.to_string())?;
    s.set_read_timeout(Some(Duration::from_secs(30)))
        .map_err(|e| e.to_string())?;
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"
    )
    .map_err(|e| e.to_string())?;
    // The head, then Content-Length bytes (the browser may keep the
    // connection open).
    let mut all = Vec::new();
    let mut chunk = [0u8; 8192];
    loop {
        if let Some(end) = all.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&all[..end]).to_ascii_lowercase();
            let len: usize = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .and_then(|v| v.trim().parse().ok())
                .unwrap_or(0);
            if all.len() >= end + 4 + len {
                return Ok(String::from_utf8_lossy(&all[end + 4..end + 4 + len]).into_owned());
            }
        }
        match s.read(&mut chunk) {
            Ok(0) => return Err("the browser closed /json/list early".into()),
            Ok(n) => all.extend_from_slice(&chunk[..n]),
            Err(e) => return Err(format!("/json/list: {e}")),
        }
    }
}

/// Opens the WebSocket at `path` (RFC 6455 section 4.1: an upgrade GET).
fn handshake(port: u16, path: &str) -> Result<TcpStream, String> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).map_err(|e| e.to_string())?;
    s.set_read_timeout(Some(Duration::from_secs(120)))
        .map_err(|e| e.to_string())?;
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Key: aWJkc2NvcGUtdGVzdHMtMQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    )
    .map_err(|e| e.to_string())?;
    // The answer's head, byte by byte (the frames follow it).
    let mut head = Vec::new();
    let mut b = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        s.read_exact(&mut b).map_err(|e| e.to_string())?;
        head.push(b[0]);
        if head.len() > 8192 {
            return Err("an oversized handshake answer".into());
        }
    }
    let head = String::from_utf8_lossy(&head).into_owned();
    if !head.starts_with("HTTP/1.1 101") {
        return Err(format!("the WebSocket upgrade was refused: {head}"));
    }
    Ok(s)
}

/// One masked text frame (a client's frames are masked; the mask is fixed:
/// the test's own connection to the browser it started).
fn send_text(s: &mut TcpStream, payload: &[u8]) -> std::io::Result<()> {
    let mask = [0x5a, 0x17, 0xc3, 0x81];
    let mut f = vec![0x81u8];
    let n = payload.len();
    if n < 126 {
        f.push(0x80 | n as u8);
    } else if n <= 0xffff {
        f.push(0x80 | 126);
        f.extend_from_slice(&(n as u16).to_be_bytes());
    } else {
        f.push(0x80 | 127);
        f.extend_from_slice(&(n as u64).to_be_bytes());
    }
    f.extend_from_slice(&mask);
    f.extend(payload.iter().enumerate().map(|(i, b)| b ^ mask[i % 4]));
    s.write_all(&f)
}

/// The next text message (its fragments joined); answers pings.
fn recv_text(s: &mut TcpStream) -> std::io::Result<String> {
    let mut msg = Vec::new();
    loop {
        let mut h = [0u8; 2];
        s.read_exact(&mut h)?;
        let (fin, op) = (h[0] & 0x80 != 0, h[0] & 0x0f);
        let mut n = u64::from(h[1] & 0x7f);
        if n == 126 {
            let mut l = [0u8; 2];
            s.read_exact(&mut l)?;
            n = u64::from(u16::from_be_bytes(l));
        } else if n == 127 {
            let mut l = [0u8; 8];
            s.read_exact(&mut l)?;
            n = u64::from_be_bytes(l);
        }
        let mut mask = None;
        if h[1] & 0x80 != 0 {
            let mut m = [0u8; 4];
            s.read_exact(&mut m)?;
            mask = Some(m);
        }
        let mut data = vec![0u8; n as usize];
        s.read_exact(&mut data)?;
        if let Some(m) = mask {
            data.iter_mut()
                .enumerate()
                .for_each(|(i, b)| *b ^= m[i % 4]);
        }
        match op {
            0x8 => {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::ConnectionAborted,
                    "the browser closed the WebSocket",
                ))
            }
            0x9 => {
                // A ping: its pong (masked, as every client frame).
                let mask = [1, 2, 3, 4];
                let mut f = vec![0x8a, 0x80 | data.len() as u8];
                f.extend_from_slice(&mask);
                f.extend(data.iter().enumerate().map(|(i, b)| b ^ mask[i % 4]));
                s.write_all(&f)?;
            }
            0xa => {}
            _ => {
                msg.extend_from_slice(&data);
                if fin {
                    return Ok(String::from_utf8_lossy(&msg).into_owned());
                }
            }
        }
    }
}

/// Standard base64 (RFC 4648 section 4) decoded.
fn base64(s: &str) -> Option<Vec<u8>> {
    let val = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    };
    let bytes: Vec<u8> = s
        .bytes()
        .filter(|&c| c != b'=' && !c.is_ascii_whitespace())
        .collect();
    let mut out = Vec::with_capacity(bytes.len() * 3 / 4);
    for chunk in bytes.chunks(4) {
        let mut acc = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            acc |= val(c)? << (18 - 6 * i);
        }
        let n = chunk.len().saturating_sub(1);
        out.extend_from_slice(&acc.to_be_bytes()[1..1 + n]);
    }
    Some(out)
}
