//! What the server tests share: a `tinystore serve` process, raw line
//! connections, worker processes (this test binary run again), and the
//! seed's chat database with its fenced update.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The `tinystore` binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_tinystore");

/// A `tinystore serve` process; killed with SIGKILL when dropped.
pub struct Served {
    pub child: Child,
    pub dir: PathBuf,
    pub stderr: PathBuf,
}

impl Served {
    /// Starts `tinystore serve DIR ARGS...` and waits until its socket answers.
    pub fn start(dir: &Path, args: &[&str]) -> Served {
        Served::start_with(dir, args, Command::new(BIN))
    }

    /// Serves DIR on TCP too (`--tcp 127.0.0.1:0`), with `token` written to
    /// a file beside DIR, then `args`, and `env` set for the server.
    pub fn start_tcp(dir: &Path, token: &str, args: &[&str], env: &[(&str, &str)]) -> Served {
        let file = dir.with_extension("token");
        std::fs::write(&file, token).unwrap();
        let mut all = vec![
            "--tcp",
            "127.0.0.1:0",
            "--token-file",
            file.to_str().unwrap(),
        ];
        all.extend_from_slice(args);
        let mut command = Command::new(BIN);
        command.envs(env.iter().copied());
        Served::start_with(dir, &all, command)
    }

    /// [`Served::start`] with the server's soft limit on open files set to
    /// `files` as it starts.
    pub fn start_with_file_limit(dir: &Path, args: &[&str], files: u64) -> Served {
        use std::os::unix::process::CommandExt;
        let mut command = Command::new(BIN);
        // SAFETY: only setrlimit, which is async-signal-safe, runs in the child.
        unsafe {
            command.pre_exec(move || {
                let mut limit = libc::rlimit {
                    rlim_cur: 0,
                    rlim_max: 0,
                };
                libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit);
                limit.rlim_cur = files as libc::rlim_t;
                libc::setrlimit(libc::RLIMIT_NOFILE, &limit);
                Ok(())
            });
        }
        Served::start_with(dir, args, command)
    }

    fn start_with(dir: &Path, args: &[&str], mut command: Command) -> Served {
        let stderr = dir.with_extension(format!("serve-{}.err", unique()));
        let child = command
            .arg("serve")
            .arg(dir)
            .args(args)
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&stderr).unwrap())
            .spawn()
            .unwrap();
        let served = Served {
            child,
            dir: dir.to_path_buf(),
            stderr,
        };
        served.wait_ready();
        served
    }

    fn wait_ready(&self) {
        let deadline = Instant::now() + Duration::from_secs(20);
        while Instant::now() < deadline {
            let log = std::fs::read_to_string(&self.stderr).unwrap_or_default();
            if log.contains("serving") && UnixStream::connect(self.socket()).is_ok() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        panic!("tinystore serve did not start: {}", self.log());
    }

    /// The server's stderr so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.stderr).unwrap_or_default()
    }

    pub fn socket(&self) -> PathBuf {
        self.dir.join("tinystore.sock")
    }

    /// `unix:DIR/tinystore.sock`.
    pub fn address(&self) -> String {
        format!("unix:{}", self.socket().display())
    }

    /// The TCP address the server printed, if it serves TCP.
    pub fn tcp_addr(&self) -> Option<String> {
        let log = self.log();
        let at = log.find("tcp://")?;
        let rest = &log[at + "tcp://".len()..];
        Some(rest.split_whitespace().next()?.to_string())
    }

    pub fn pid(&self) -> i32 {
        self.child.id() as i32
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn unique() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// Runs `tinystore ARGS...`, which must succeed; its output.
pub fn tinystore_ok(args: &[&str]) -> std::process::Output {
    let out = Command::new(BIN).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "tinystore {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// `tinystore status DIR --json` of a store directory nobody serves.
pub fn status_json(dir: &Path) -> serde_json::Value {
    let out = tinystore_ok(&["status", dir.to_str().unwrap(), "--json"]);
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Raises this process's soft limit on open files to its hard limit, for
/// tests that open thousands of connections.
pub fn raise_fd_limit() {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit and setrlimit on this process, with a valid struct.
    unsafe {
        assert_eq!(libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit), 0);
        limit.rlim_cur = limit.rlim_max;
        libc::setrlimit(libc::RLIMIT_NOFILE, &limit);
    }
}

/// Sends `sig` to process `pid`.
pub fn signal(pid: i32, sig: i32) {
    // SAFETY: kill(2) on a process this test started.
    let rc = unsafe { libc::kill(pid, sig) };
    assert_eq!(rc, 0, "kill({pid}, {sig}) failed");
}

/// A raw connection speaking the wire by hand, one JSON line at a time.
pub struct Raw {
    reader: BufReader<Box<dyn std::io::Read + Send>>,
    writer: Box<dyn Write + Send>,
    /// Shuts the socket down both ways.
    closer: Box<dyn Fn() + Send>,
}

impl Raw {
    /// A raw connection to a Unix socket, greeted unless `greet` is false.
    pub fn unix(socket: &Path, greet: bool) -> Raw {
        let stream = UnixStream::connect(socket).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        let closing = stream.try_clone().unwrap();
        let mut raw = Raw {
            reader: BufReader::new(Box::new(stream.try_clone().unwrap())),
            writer: Box::new(stream),
            closer: Box::new(move || {
                let _ = closing.shutdown(std::net::Shutdown::Both);
            }),
        };
        if greet {
            let hello = raw.ask(r#"{"op":"hello","version":1}"#);
            assert_eq!(hello["ok"], true, "{hello}");
        }
        raw
    }

    /// A raw TCP connection, not greeted.
    pub fn tcp(addr: &str) -> Raw {
        let stream = std::net::TcpStream::connect(addr).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        let closing = stream.try_clone().unwrap();
        Raw {
            reader: BufReader::new(Box::new(stream.try_clone().unwrap())),
            writer: Box::new(stream),
            closer: Box::new(move || {
                let _ = closing.shutdown(std::net::Shutdown::Both);
            }),
        }
    }

    /// Sends raw bytes as they are (no newline added).
    pub fn send_raw(&mut self, bytes: &[u8]) {
        self.writer.write_all(bytes).unwrap();
        self.writer.flush().unwrap();
    }

    /// Shuts the connection down both ways, as closing it would.
    pub fn shutdown(&self) {
        (self.closer)();
    }

    /// Sends raw bytes followed by a newline.
    pub fn send_bytes(&mut self, bytes: &[u8]) {
        self.writer.write_all(bytes).unwrap();
        self.writer.write_all(b"\n").unwrap();
        self.writer.flush().unwrap();
    }

    /// The next line from the server, as JSON; `None` when it closed.
    pub fn next(&mut self) -> Option<serde_json::Value> {
        let mut line = String::new();
        match self.reader.read_line(&mut line) {
            Ok(0) | Err(_) => None,
            Ok(_) => Some(serde_json::from_str(&line).expect("the server sent JSON")),
        }
    }

    /// Sends a line and returns the next reply (events are skipped).
    pub fn ask(&mut self, line: &str) -> serde_json::Value {
        self.ask_bytes(line.as_bytes())
    }

    /// `ask` with raw bytes.
    pub fn ask_bytes(&mut self, bytes: &[u8]) -> serde_json::Value {
        self.send_bytes(bytes);
        loop {
            let frame = self.next().expect("the server closed the connection");
            if frame.get("event").is_none() {
                return frame;
            }
        }
    }

    /// Whether the server closed the connection: the lines it still sent,
    /// then the end of the stream. False when the read timed out instead
    /// (the connection stayed open).
    pub fn ended_by_server(&mut self) -> bool {
        loop {
            let mut line = String::new();
            match self.reader.read_line(&mut line) {
                Ok(0) => return true,
                Ok(_) => continue,
                Err(e) => return e.kind() == std::io::ErrorKind::ConnectionReset,
            }
        }
    }

    /// Whether the server closed the connection (after any pending lines).
    pub fn is_closed(&mut self) -> bool {
        loop {
            match self.next() {
                None => return true,
                Some(_) => continue,
            }
        }
    }
}

/// Starts this test binary again as a worker process: the test function
/// `test` runs with TINYSTORE_WORKER set and `env`, stdin and stdout piped.
pub fn worker(test: &str, env: &[(&str, String)]) -> Child {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args([
        test,
        "--exact",
        "--include-ignored",
        "--nocapture",
        "--test-threads=1",
        "--quiet",
    ])
    .env("TINYSTORE_WORKER", "1")
    .stdin(Stdio::piped())
    .stdout(Stdio::piped())
    .stderr(Stdio::inherit());
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.spawn().unwrap()
}

/// Whether this process is a worker started by [`worker`].
pub fn is_worker() -> bool {
    std::env::var_os("TINYSTORE_WORKER").is_some()
}

/// Reads a worker's stdout until a line starting with `prefix`; the rest.
pub fn expect_line(out: &mut impl BufRead, prefix: &str) -> String {
    let mut line = String::new();
    loop {
        line.clear();
        let n = out.read_line(&mut line).unwrap();
        assert!(n > 0, "the worker ended before printing {prefix:?}");
        if let Some(rest) = line.trim_end().strip_prefix(prefix) {
            return rest.to_string();
        }
    }
}

/// Makes the seed's chat database: chat 42 with an empty summary and fence.
pub fn make_chat_db(path: &Path) {
    let conn = rusqlite::Connection::open(path).unwrap();
    conn.execute_batch(
        "create table chats (id integer primary key, summary text not null default '',
                             summary_fence text not null default '');
         insert into chats (id) values (42);",
    )
    .unwrap();
}

/// The seed's fenced save: writes only when `fence_text` is larger than the
/// fence kept with the summary. Returns the rows changed.
pub fn save(path: &Path, summary: &str, fence_text: &str) -> usize {
    let conn = rusqlite::Connection::open(path).unwrap();
    conn.busy_timeout(Duration::from_secs(5)).unwrap();
    conn.execute(
        "update chats set summary = ?1, summary_fence = ?2 where id = 42 and summary_fence < ?2",
        (summary, fence_text),
    )
    .unwrap()
}

/// The summary and fence text kept for chat 42.
pub fn saved(path: &Path) -> (String, String) {
    let conn = rusqlite::Connection::open(path).unwrap();
    conn.query_row(
        "select summary, summary_fence from chats where id = 42",
        [],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )
    .unwrap()
}
