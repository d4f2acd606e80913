//! Debian's headless Chromium, driven over the DevTools protocol through a
//! small WebSocket client of its own (text frames, no extensions): enough
//! to load a page, evaluate JavaScript in it and take a screenshot, with
//! nothing to install but the `chromium` package.

#![allow(dead_code)]

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The browser, where Debian's package puts it.
pub fn installed() -> Option<&'static str> {
    ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
        .into_iter()
        .find(|p| Path::new(p).exists())
}

/// A headless Chromium with one page, killed when dropped.
pub struct Chromium {
    child: Child,
    _profile: tempfile::TempDir,
    socket: TcpStream,
    next_id: u64,
}

impl Chromium {
    /// Starts `browser` headless (as root it needs `--no-sandbox`) with a
    /// profile of its own and a window of `width` x `height`, and connects
    /// to its one page.
    pub fn start(browser: &str, width: u32, height: u32) -> Chromium {
        let profile = tempfile::tempdir().unwrap();
        let log = std::fs::File::create(profile.path().join("chromium.log")).unwrap();
        let child = Command::new(browser)
            .args([
                "--headless=new",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--no-default-browser-check",
                "--disable-extensions",
                "--remote-debugging-port=0",
                &format!("--window-size={width},{height}"),
                &format!("--user-data-dir={}", profile.path().display()),
                "about:blank",
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .unwrap();
        // Chromium writes the port it listens on into the profile.
        let active = profile.path().join("DevToolsActivePort");
        let deadline = Instant::now() + Duration::from_secs(60);
        let port = loop {
            let text = std::fs::read_to_string(&active).unwrap_or_default();
            if let Some(port) = text
                .lines()
                .next()
                .and_then(|l| l.trim().parse::<u16>().ok())
            {
                break port;
            }
            assert!(
                Instant::now() < deadline,
                "chromium did not start: {}",
                std::fs::read_to_string(profile.path().join("chromium.log")).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(50));
        };
        let path = page_socket_path(port);
        let socket = connect(port, &path);
        Chromium {
            child,
            _profile: profile,
            socket,
            next_id: 0,
        }
    }

    /// Calls the DevTools `method` and gives its result; events that come
    /// before it are passed over. Panics on a protocol error.
    pub fn call(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let text = json!({ "id": id, "method": method, "params": params }).to_string();
        send_text(&mut self.socket, text.as_bytes());
        loop {
            let message: Value = serde_json::from_slice(&read_message(&mut self.socket)).unwrap();
            if message["id"] == json!(id) {
                assert!(message.get("error").is_none(), "{method}: {message}");
                return message["result"].clone();
            }
        }
    }

    /// Loads `url` in the page.
    pub fn navigate(&mut self, url: &str) {
        self.call("Page.navigate", json!({ "url": url }));
    }

    /// The value of the JavaScript `expression` in the page (promises
    /// awaited); panics when it throws.
    pub fn eval(&mut self, expression: &str) -> Value {
        let result = self.call(
            "Runtime.evaluate",
            json!({ "expression": expression, "returnByValue": true, "awaitPromise": true }),
        );
        assert!(
            result.get("exceptionDetails").is_none(),
            "{expression}: {result}"
        );
        result["result"]["value"].clone()
    }

    /// Saves a PNG of the whole page to `path` (its folder made if missing).
    pub fn screenshot(&mut self, path: &Path) {
        let shot = self.call(
            "Page.captureScreenshot",
            json!({ "format": "png", "captureBeyondViewport": true }),
        );
        let png = base64_decode(shot["data"].as_str().unwrap());
        assert!(png.starts_with(b"\x89PNG"), "not a PNG");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, png).unwrap();
    }
}

impl Drop for Chromium {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The WebSocket path of the browser's first page (`/json/list`, asked
/// until a page is listed).
fn page_socket_path(port: u16) -> String {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let targets = json_list(port);
        let page = targets
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["type"] == "page")
            .cloned();
        if let Some(page) = page {
            let url = page["webSocketDebuggerUrl"].as_str().unwrap();
            let after_host = url.split_once("//").unwrap().1;
            return after_host[after_host.find('/').unwrap()..].to_string();
        }
        assert!(Instant::now() < deadline, "no page in {targets}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The browser's targets; its HTTP keeps the connection open, so the
/// body is read to its length.
fn json_list(port: u16) -> Value {
    let stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    (&stream)
        .write_all(b"GET /json/list HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        .unwrap();
    let mut reader = BufReader::new(stream);
    let mut length = 0;
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        if line == "\r\n" || line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            if name.eq_ignore_ascii_case("content-length") {
                length = value.trim().parse().unwrap();
            }
        }
    }
    let mut body = vec![0u8; length];
    reader.read_exact(&mut body).unwrap();
    serde_json::from_slice(&body).unwrap()
}

/// Opens a WebSocket to `path` on the local `port`.
fn connect(port: u16, path: &str) -> TcpStream {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    let request = format!(
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    );
    stream.write_all(request.as_bytes()).unwrap();
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut status = String::new();
    reader.read_line(&mut status).unwrap();
    assert!(status.contains(" 101 "), "no WebSocket: {status}");
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        if line == "\r\n" || line.is_empty() {
            break;
        }
    }
    // The server speaks only after a request: nothing is left in `reader`.
    assert!(reader.buffer().is_empty());
    stream
}

/// Sends one masked text frame (a client's frames are masked).
fn send_text(stream: &mut TcpStream, payload: &[u8]) {
    let mut frame = vec![0x81u8];
    match payload.len() {
        n if n < 126 => frame.push(0x80 | n as u8),
        n if n <= 0xffff => {
            frame.push(0x80 | 126);
            frame.extend_from_slice(&(n as u16).to_be_bytes());
        }
        n => {
            frame.push(0x80 | 127);
            frame.extend_from_slice(&(n as u64).to_be_bytes());
        }
    }
    let mask = [0x37u8, 0xfa, 0x21, 0x3d];
    frame.extend_from_slice(&mask);
    frame.extend(payload.iter().enumerate().map(|(i, b)| b ^ mask[i % 4]));
    stream.write_all(&frame).unwrap();
}

/// Reads one whole message (its frames joined), passing over pings.
fn read_message(stream: &mut TcpStream) -> Vec<u8> {
    let mut message = Vec::new();
    loop {
        let mut head = [0u8; 2];
        stream.read_exact(&mut head).unwrap();
        let (fin, opcode) = (head[0] & 0x80 != 0, head[0] & 0x0f);
        let len = match head[1] & 0x7f {
            126 => {
                let mut n = [0u8; 2];
                stream.read_exact(&mut n).unwrap();
                u64::from(u16::from_be_bytes(n))
            }
            127 => {
                let mut n = [0u8; 8];
                stream.read_exact(&mut n).unwrap();
                u64::from_be_bytes(n)
            }
            n => u64::from(n),
        };
        let mut payload = vec![0u8; len as usize];
        stream.read_exact(&mut payload).unwrap();
        match opcode {
            0x8 => panic!("chromium closed the DevTools socket"),
            0x9 | 0xa => continue,
            _ => message.extend_from_slice(&payload),
        }
        if fin {
            return message;
        }
    }
}

/// Standard base64 (with padding) to bytes.
fn base64_decode(text: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => panic!("not base64: {c}"),
    };
    let digits: Vec<u8> = text.bytes().filter(|c| *c != b'=').map(value).collect();
    let mut out = Vec::with_capacity(digits.len() * 3 / 4);
    for chunk in digits.chunks(4) {
        let mut n = 0u32;
        for (i, d) in chunk.iter().enumerate() {
            n |= u32::from(*d) << (18 - 6 * i);
        }
        let bytes = n.to_be_bytes();
        out.extend_from_slice(&bytes[1..chunk.len()]);
    }
    out
}
