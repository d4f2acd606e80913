//! Commands whose output nobody reads any more: a `tinystore serve` whose
//! stderr pipe was closed after its first line (`2>&1 | head -1`, a log
//! shipper that died) keeps serving, logs nothing, and still stops cleanly
//! on SIGTERM; `tinystore leader --watch` whose stdout was closed ends with
//! status 0 at the next change instead of a panic.

use crate::support::server::*;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::Duration;
use tinystore::blocking::Store;

/// A child process, killed if the test ends before it exits.
struct Killed(std::process::Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Where a child's first line is read from, before that pipe is closed.
enum Pipe {
    Stdout,
    Stderr,
}

/// Runs `tinystore ARGS...`, reads its first line from `pipe`, then closes
/// that pipe's read end; the other output pipe stays open (stderr is then
/// kept for the test to read).
fn first_line_then_close(args: &[&str], pipe: Pipe) -> (Killed, String) {
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    match pipe {
        Pipe::Stdout => BufReader::new(child.stdout.take().unwrap()).read_line(&mut first),
        Pipe::Stderr => BufReader::new(child.stderr.take().unwrap()).read_line(&mut first),
    }
    .unwrap();
    // The BufReader and the pipe's read end were dropped here.
    (Killed(child), first)
}

#[test]
fn a_server_whose_stderr_is_closed_keeps_serving_and_stops_cleanly() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("store");
    let (mut served, first) =
        first_line_then_close(&["serve", dir.to_str().unwrap()], Pipe::Stderr);
    assert!(first.contains("serving"), "first line: {first:?}");
    let socket = dir.join("tinystore.sock");

    // Each connection logs a line when it opens and when it closes: each of
    // those writes now fails with EPIPE.
    let mut fences = Vec::new();
    for round in 0..5 {
        let store = Store::connect(&format!("unix:{}", socket.display()))
            .unwrap_or_else(|e| panic!("connection {round} refused: {e}"));
        let lease = store.locks("jobs").acquire("a").unwrap();
        fences.push(lease.fence());
        lease.release().unwrap();
        store.close().unwrap();
    }
    assert!(fences.windows(2).all(|w| w[0] < w[1]), "{fences:?}");
    assert!(served.0.try_wait().unwrap().is_none(), "the server exited");

    signal(served.0.id() as i32, libc::SIGTERM);
    let status = wait_for_exit(&mut served.0, Duration::from_secs(10));
    assert_eq!(status.code(), Some(0), "serve ended with {status:?}");
    let seen = status_json(&dir);
    assert_eq!(seen["closed_cleanly"], true, "{seen}");
}

#[test]
fn leader_watch_ends_quietly_when_its_reader_goes() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("store");
    let served = Served::start(&dir, &[]);
    let address = served.address();
    let (mut watching, first) = first_line_then_close(
        &["leader", address.as_str(), "jobs-leader", "--watch"],
        Pipe::Stdout,
    );
    let watch = &mut watching.0;
    assert!(!first.is_empty(), "no first line from leader --watch");

    // Changes until the watcher has tried to write one to the closed pipe.
    let store = Store::connect(&address).unwrap();
    let election = store.election("jobs-leader");
    for n in 0..50 {
        if watch.try_wait().unwrap().is_some() {
            break;
        }
        let leading = election.campaign(&format!("worker-{n}")).unwrap();
        leading.resign().unwrap();
        std::thread::sleep(Duration::from_millis(50));
    }
    let status = wait_for_exit(watch, Duration::from_secs(5));
    let mut said = String::new();
    std::io::Read::read_to_string(&mut watch.stderr.take().unwrap(), &mut said).unwrap();
    assert_eq!(status.code(), Some(0), "leader --watch: {status:?}, {said}");
    assert!(!said.contains("panicked"), "{said}");
    store.close().unwrap();
}

/// The child's exit status, within `within` (else it is killed and the test fails).
fn wait_for_exit(child: &mut std::process::Child, within: Duration) -> std::process::ExitStatus {
    let deadline = std::time::Instant::now() + within;
    while std::time::Instant::now() < deadline {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    panic!("the process did not exit within {within:?}");
}
