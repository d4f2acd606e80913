//! A server that runs out of file descriptors cannot accept: it says so in
//! its log (once, not once per retry), keeps the newcomer waiting in the
//! socket's backlog, and serves it as soon as descriptors are free again.

use std::io::{BufRead, BufReader, ErrorKind, Write};
use std::os::unix::net::UnixStream;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The `tinystore` binary under test.
const BIN: &str = env!("CARGO_BIN_EXE_tinystore");

/// The server's limit on open files, soft and hard (so that it cannot raise
/// it): a few dozen connections use them all.
const FILES: libc::rlim_t = 64;

const FAILED: &str = "cannot accept a connection";
const RECOVERED: &str = "accepting connections again";

/// A `tinystore serve` process allowed [`FILES`] open files; killed when
/// dropped.
struct Served {
    child: Child,
    socket: PathBuf,
    log: PathBuf,
}

impl Served {
    fn start(dir: &Path) -> Served {
        let log = dir.with_extension("err");
        let mut command = Command::new(BIN);
        // SAFETY: only setrlimit, which is async-signal-safe, runs in the child.
        unsafe {
            command.pre_exec(|| {
                let limit = libc::rlimit {
                    rlim_cur: FILES,
                    rlim_max: FILES,
                };
                if libc::setrlimit(libc::RLIMIT_NOFILE, &limit) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let child = command
            .arg("serve")
            .arg(dir)
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .unwrap();
        let served = Served {
            child,
            socket: dir.join("tinystore.sock"),
            log,
        };
        served.wait_for_log("serving");
        served
    }

    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Waits until the log holds `text` (at most 20 s).
    fn wait_for_log(&self, text: &str) {
        let deadline = Instant::now() + Duration::from_secs(20);
        while !self.log().contains(text) {
            assert!(Instant::now() < deadline, "no {text:?} in: {}", self.log());
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A connection that said hello and waits for the answer.
struct Greeting {
    reader: BufReader<UnixStream>,
}

impl Greeting {
    fn send(socket: &Path) -> Greeting {
        let mut stream = UnixStream::connect(socket).unwrap();
        stream
            .write_all(b"{\"op\":\"hello\",\"version\":1}\n")
            .unwrap();
        stream
            .set_read_timeout(Some(Duration::from_millis(50)))
            .unwrap();
        Greeting {
            reader: BufReader::new(stream),
        }
    }

    /// The server's answer, if it came within the read timeout.
    fn answer(&mut self) -> Option<serde_json::Value> {
        let mut line = String::new();
        match self.reader.read_line(&mut line) {
            Ok(0) => panic!("the server closed the connection"),
            Ok(_) => Some(serde_json::from_str(&line).unwrap()),
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => None,
            Err(e) => panic!("reading the answer: {e}"),
        }
    }

    /// Waits (at most 20 s) for the answer to hello, which must be `ok`.
    fn greeted(mut self) -> UnixStream {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Some(answer) = self.answer() {
                assert_eq!(answer["ok"], true, "{answer}");
                let stream = self.reader.into_inner();
                stream
                    .set_read_timeout(Some(Duration::from_secs(20)))
                    .unwrap();
                return stream;
            }
            assert!(Instant::now() < deadline, "no answer to hello");
        }
    }
}

#[test]
fn out_of_file_descriptors_the_server_logs_it_once_and_serves_again_once_some_are_free() {
    let tmp = tempfile::tempdir().unwrap();
    let served = Served::start(&tmp.path().join("store"));
    let mut open = Vec::new();
    // Connect until one is not accepted: the log then says why, and that
    // connection waits in the backlog, its hello unanswered.
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut waiting = loop {
        let mut greeting = Greeting::send(&served.socket);
        let answered = loop {
            if let Some(answer) = greeting.answer() {
                assert_eq!(answer["ok"], true, "{answer}");
                break true;
            }
            if served.log().contains(FAILED) {
                break false;
            }
            assert!(Instant::now() < deadline, "{}", served.log());
        };
        if !answered {
            break greeting;
        }
        open.push(greeting);
        assert!(
            open.len() < FILES as usize,
            "{} connections served",
            open.len()
        );
    };
    let log = served.log();
    assert!(log.contains("Too many open files"), "{log}");
    assert!(!open.is_empty(), "{log}");
    // The accept is retried (each time a little later) while it fails, but
    // logged once: give it a few retries (10+20+40+80 ms) to show that.
    assert!(
        waiting.answer().is_none(),
        "answered while out of descriptors"
    );
    std::thread::sleep(Duration::from_millis(200));
    assert!(
        waiting.answer().is_none(),
        "answered while out of descriptors"
    );
    assert_eq!(served.log().matches(FAILED).count(), 1, "{}", served.log());

    // Free the descriptors: the waiting connection is served, and new ones.
    let served_before = open.len();
    drop(open);
    let mut stream = waiting.greeted();
    served.wait_for_log(RECOVERED);
    stream.write_all(b"{\"id\":1,\"op\":\"ping\"}\n").unwrap();
    let mut reader = BufReader::new(stream);
    let mut pong = String::new();
    reader.read_line(&mut pong).unwrap();
    assert!(pong.contains("\"ok\":true"), "{pong}");
    let again: Vec<UnixStream> = (0..served_before / 2)
        .map(|_| Greeting::send(&served.socket).greeted())
        .collect();
    assert_eq!(again.len(), served_before / 2);
}
