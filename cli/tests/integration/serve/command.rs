//! The commands around the server: hold (environment, exit statuses, a lost
//! lease stopping the command), status, backup and restore (their --help:
//! help.rs).

use crate::support::server::*;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::Duration;
use tinystore::blocking::Store;

fn tinystore(args: &[&str]) -> std::process::Output {
    Command::new(BIN).args(args).output().unwrap()
}

#[test]
fn hold_gives_the_fence_and_exits_with_the_commands_status() {
    let tmp = tempfile::tempdir().unwrap();
    let served = Served::start(&tmp.path().join("store"), &[]);
    let out = tinystore(&[
        "hold",
        &served.address(),
        "summaries",
        "42",
        "--",
        "sh",
        "-c",
        "echo $TINYSTORE_FENCE $TINYSTORE_FENCE_TEXT; exit 7",
    ]);
    assert_eq!(out.status.code(), Some(7));
    let text = String::from_utf8(out.stdout).unwrap();
    let (fence, padded) = text.trim().split_once(' ').unwrap();
    assert_eq!(padded.len(), 40);
    assert_eq!(
        padded.parse::<u128>().unwrap(),
        fence.parse::<u128>().unwrap()
    );
    // The lease was released when the command ended.
    let store = Store::connect(&served.address()).unwrap();
    let next = store.locks("summaries").try_acquire(42).unwrap().unwrap();
    assert!(next.fence().get() > fence.parse::<u128>().unwrap());
}

#[test]
fn hold_exits_75_when_the_wait_runs_out_and_127_without_a_command() {
    let tmp = tempfile::tempdir().unwrap();
    let served = Served::start(&tmp.path().join("store"), &[]);
    let store = Store::connect(&served.address()).unwrap();
    let _held = store.locks("jobs").acquire("a").unwrap();
    let out = tinystore(&[
        "hold",
        &served.address(),
        "jobs",
        "a",
        "--wait",
        "50ms",
        "--",
        "true",
    ]);
    assert_eq!(out.status.code(), Some(75));
    assert!(String::from_utf8_lossy(&out.stderr).contains("timeout"));
    let out = tinystore(&[
        "hold",
        &served.address(),
        "jobs",
        "b",
        "--",
        "/nonexistent/command",
    ]);
    assert_eq!(out.status.code(), Some(127));
    let out = tinystore(&["hold", &served.address(), "bad name", "b", "--", "true"]);
    assert_eq!(out.status.code(), Some(70));
    assert!(String::from_utf8_lossy(&out.stderr).contains("invalid"));
}

#[test]
fn hold_stops_the_command_when_its_lease_is_lost() {
    let tmp = tempfile::tempdir().unwrap();
    let served = Served::start(&tmp.path().join("store"), &[]);
    let mut hold = Command::new(BIN)
        .args(["hold", &served.address(), "jobs", "a", "--ttl", "200ms"])
        .args([
            "--kill-after",
            "5s",
            "--",
            "sh",
            "-c",
            "echo ready; exec sleep 60",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(hold.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    assert_eq!(line.trim(), "ready");
    // Stopped, hold renews no more; another client gets the key once it runs out.
    signal(hold.id() as i32, libc::SIGSTOP);
    let store = Store::connect(&served.address()).unwrap();
    let taken = store
        .locks("jobs")
        .wait(Duration::from_secs(20))
        .acquire("a")
        .unwrap();
    signal(hold.id() as i32, libc::SIGCONT);
    let done = hold.wait_with_output().unwrap();
    // A lost lease has its own status, whatever the stopped command's.
    assert_eq!(done.status.code(), Some(76));
    let err = String::from_utf8_lossy(&done.stderr);
    assert!(err.contains("lost the lease on jobs/a"), "{err}");
    assert!(taken.is_held());
}

#[test]
fn status_backup_and_restore_from_the_command_line() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("store");
    let mut served = Served::start(&dir, &[]);
    let store = Store::connect(&served.address()).unwrap();
    let lease = store.locks("summaries").acquire(42).unwrap();

    let out = tinystore(&["status", dir.to_str().unwrap(), "--json"]);
    assert!(out.status.success());
    let status: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(status["held"][0]["key"], "42");
    assert_eq!(status["held"][0]["fence"], lease.fence().to_string());
    let out = tinystore(&["status", &served.address()]);
    let text = String::from_utf8(out.stdout).unwrap();
    let row = text.lines().find(|l| l.contains("summaries")).unwrap();
    assert!(row.contains(&lease.fence().to_string()), "{text}");

    let backup = tmp.path().join("kv-backup.db");
    let out = tinystore(&["backup", &served.address(), backup.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(backup.exists());

    // Restoring into a served directory fails; into a new one it works, and
    // the restored store's fences are larger.
    let out = tinystore(&["restore", backup.to_str().unwrap(), dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("in_use"));
    let restored = tmp.path().join("restored");
    let out = tinystore(&[
        "restore",
        backup.to_str().unwrap(),
        restored.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    signal(served.pid(), libc::SIGTERM);
    served.child.wait().unwrap();
    // The backup was taken from a served store: the restored one owes a
    // grace before its first grant (here a short one).
    let short = tinystore::StoreOptions::default().grace(Duration::from_millis(100));
    let again = Store::open_with(&restored, short).unwrap();
    let next = again.locks("summaries").acquire(42).unwrap();
    assert!(next.fence() > lease.fence());
}

#[test]
fn serve_refuses_tcp_without_a_token_file_and_a_short_token() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("store");
    let out = tinystore(&["serve", dir.to_str().unwrap(), "--tcp", "127.0.0.1:0"]);
    assert!(!out.status.success());
    let token = tmp.path().join("token");
    std::fs::write(&token, "short").unwrap();
    let out = tinystore(&[
        "serve",
        dir.to_str().unwrap(),
        "--tcp",
        "127.0.0.1:0",
        "--token-file",
        token.to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("at least 16"));
}

#[test]
fn hold_kills_a_command_that_ignores_sigterm() {
    let tmp = tempfile::tempdir().unwrap();
    let served = Served::start(&tmp.path().join("store"), &[]);
    let mut hold = Command::new(BIN)
        .args(["hold", &served.address(), "jobs", "a", "--ttl", "100ms"])
        .args(["--kill-after", "100ms", "--", "sh", "-c"])
        .arg("trap '' TERM; echo ready; sleep 60")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(hold.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    assert_eq!(line.trim(), "ready");
    signal(hold.id() as i32, libc::SIGSTOP);
    let store = Store::connect(&served.address()).unwrap();
    let taken = store
        .locks("jobs")
        .wait(Duration::from_secs(20))
        .acquire("a")
        .unwrap();
    signal(hold.id() as i32, libc::SIGCONT);
    let done = hold.wait_with_output().unwrap();
    assert_eq!(done.status.code(), Some(76));
    assert!(taken.is_held());
}

#[test]
fn a_second_serve_of_a_served_store_says_so() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("store");
    let served = Served::start(&dir, &[]);
    let out = tinystore(&["serve", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("already served"), "{err}");
    assert!(
        err.contains(&format!("by process {}", served.pid())),
        "names the pid serving: {err}"
    );
}
