//! `tinystore watch` as a user runs it, against a real `tinystore serve`:
//! a line per grant, queue change and release, in text and `--json`, in
//! the store's order; the server's end ends it with status 70; bad input
//! is refused.

use crate::support::server::*;
use std::io::{BufRead, BufReader};
use std::process::{Child, ChildStdout, Command, Stdio};

const EXIT_ERROR: i32 = 70;

/// `tinystore watch ARGS...` running, and its output a line at a time.
fn watching(args: &[&str]) -> (Child, BufReader<ChildStdout>) {
    let mut child = Command::new(BIN)
        .arg("watch")
        .args(args)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let out = BufReader::new(child.stdout.take().unwrap());
    (child, out)
}

fn next(out: &mut BufReader<ChildStdout>) -> String {
    let mut line = String::new();
    assert!(out.read_line(&mut line).unwrap() > 0, "the watch ended");
    line.trim_end().to_string()
}

#[test]
fn watch_prints_grants_queues_and_releases_in_order_in_text_and_json() {
    let tmp = tempfile::tempdir().unwrap();
    let served = Served::start(&tmp.path().join("store"), &[]);
    let address = served.address();
    let (mut text_child, mut text) = watching(&[&address, "orders"]);
    let (mut json_child, mut json) = watching(&[&address, "orders", "42", "--json"]);
    // Nothing tells when a watch has begun but its first event: hold a key
    // until each printed something, then read what those holds printed.
    while !(line_ready(&mut text) && line_ready(&mut json)) {
        tinystore_ok(&["hold", &address, "orders", "42", "--", "true"]);
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    drain_holds(&mut text, &mut json);

    // A holds 42 while B waits for it.
    let mut a = Command::new(BIN)
        .args([
            "hold",
            &address,
            "orders",
            "42",
            "--",
            "sh",
            "-c",
            "read x || true",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let a_grant = next(&mut text);
    assert!(a_grant.starts_with("granted 42 fence "), "{a_grant}");
    let data = a_grant.split(" data ").nth(1).expect("the holder's data");
    assert_eq!(
        data,
        format!("{}:{}", host_name(), a.id()),
        "a holder that attaches nothing says its HOST:PID"
    );
    let a_json: serde_json::Value = serde_json::from_str(&next(&mut json)).unwrap();
    assert_eq!(a_json["event"], "granted");
    let fence = a_json["fence"].as_str().unwrap().to_string();
    assert!(a_grant.contains(&fence), "{a_grant} vs {a_json}");

    let b = Command::new(BIN)
        .args(["hold", &address, "orders", "42", "--", "true"])
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    assert_eq!(next(&mut text), "queue 42 waiting 1");
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&next(&mut json)).unwrap(),
        serde_json::json!({"event":"queue","key":"42","length":1})
    );
    drop(a.stdin.take());
    assert!(a.wait().unwrap().success());
    let b_out = b.wait_with_output().unwrap();
    assert!(b_out.status.success());
    assert_eq!(next(&mut text), format!("released 42 fence {fence}"));
    let b_grant = next(&mut text);
    assert!(b_grant.starts_with("granted 42 fence "), "{b_grant}");
    assert_eq!(next(&mut text), "queue 42 waiting 0");
    assert!(next(&mut text).starts_with("released 42 fence "));
    let kinds: Vec<String> = (0..4)
        .map(|_| {
            let v: serde_json::Value = serde_json::from_str(&next(&mut json)).unwrap();
            v["event"].as_str().unwrap().to_string()
        })
        .collect();
    assert_eq!(kinds, ["released", "granted", "queue", "released"]);

    // The server stops: each watch says so and fails.
    drop(served);
    for child in [&mut text_child, &mut json_child] {
        assert_eq!(child.wait().unwrap().code(), Some(EXIT_ERROR));
    }
}

/// Reads the lines left by the holds of the start (a grant and a release
/// each) until none is ready.
fn drain_holds(text: &mut BufReader<ChildStdout>, json: &mut BufReader<ChildStdout>) {
    std::thread::sleep(std::time::Duration::from_millis(300));
    while line_ready(text) {
        next(text);
    }
    while line_ready(json) {
        next(json);
    }
}

/// Whether a whole line waits in `out` now (without blocking).
fn line_ready(out: &mut BufReader<ChildStdout>) -> bool {
    use std::os::fd::AsRawFd;
    if out.buffer().contains(&b'\n') {
        return true;
    }
    let mut poll = libc::pollfd {
        fd: out.get_ref().as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: one valid pollfd, for the duration of the call.
    let ready = unsafe { libc::poll(&mut poll, 1, 0) } > 0;
    if ready {
        let _ = out.fill_buf();
    }
    out.buffer().contains(&b'\n')
}

fn host_name() -> String {
    let out = Command::new("hostname").output().unwrap();
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

#[test]
fn watch_refuses_a_store_nobody_serves_a_bad_name_and_a_bad_kind() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("store");
    {
        let served = Served::start(&dir, &[]);
        let bad = Command::new(BIN)
            .args(["watch", &served.address(), "bad name"])
            .output()
            .unwrap();
        assert_eq!(bad.status.code(), Some(EXIT_ERROR));
        let err = String::from_utf8_lossy(&bad.stderr);
        assert!(err.contains("invalid") && err.contains("bad name"), "{err}");
    }
    let nobody = Command::new(BIN)
        .args(["watch", dir.to_str().unwrap(), "orders"])
        .output()
        .unwrap();
    assert_eq!(nobody.status.code(), Some(EXIT_ERROR));
    let err = String::from_utf8_lossy(&nobody.stderr);
    assert!(err.contains("no server answers"), "{err}");
    let kind = Command::new(BIN)
        .args([
            "watch",
            dir.to_str().unwrap(),
            "orders",
            "--kind",
            "election",
        ])
        .output()
        .unwrap();
    assert_eq!(kind.status.code(), Some(2), "clap's usage error");
}
