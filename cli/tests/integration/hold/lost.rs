//! `tinystore hold` exits with its own status when the lease was lost,
//! whatever CMD's status: the holder stopped past its TTL, the server killed,
//! the server stopped. A hold that kept its lease exits with CMD's status.

use crate::support::server::*;
use std::io::BufReader;
use std::process::{Child, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};
use tinystore::blocking::Store;

/// hold's documented status for a lost lease.
const EXIT_LOST: i32 = 76;

/// A CMD that exits 0 on SIGTERM, as a well-behaved job does.
const EXITS_0_ON_TERM: &str = "trap 'exit 0' TERM; echo ready $$; while :; do sleep 0.05; done";

/// Starts `tinystore hold TARGET jobs a --ttl TTL -- sh -c SCRIPT` and waits
/// for SCRIPT's `ready PID` line; gives the hold process, its stdout and
/// SCRIPT's pid.
fn hold(target: &str, ttl: &str, script: &str) -> (Child, BufReader<ChildStdout>, i32) {
    let mut hold = Command::new(BIN)
        .args(["hold", target, "jobs", "a", "--ttl", ttl])
        .args(["--kill-after", "5s", "--", "sh", "-c", script])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(hold.stdout.take().unwrap());
    let pid = expect_line(&mut out, "ready ").trim().parse().unwrap();
    (hold, out, pid)
}

/// Waits for hold; asserts it exited with the lost status and said which
/// lease it lost.
fn assert_lost(hold: Child) {
    let done = hold.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&done.stderr);
    assert_eq!(done.status.code(), Some(EXIT_LOST), "{err}");
    assert!(err.contains("lost the lease on jobs/a"), "{err}");
}

/// Another client takes jobs/a, waiting until the stopped holder's lease ran
/// out: proof that it was lost.
fn take_over(address: &str) -> (Store, tinystore::blocking::Lease) {
    let store = Store::connect(address).unwrap();
    let lease = store
        .locks("jobs")
        .wait(Duration::from_secs(20))
        .acquire("a")
        .unwrap();
    (store, lease)
}

/// Whether process `pid` has ended (a zombie its stopped parent has not
/// reaped counts as ended).
fn has_ended(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit_once(") ")
            .is_some_and(|(_, rest)| rest.starts_with('Z')),
    }
}

#[test]
fn a_holder_stopped_past_its_ttl_exits_lost_though_cmd_exits_0() {
    let tmp = tempfile::tempdir().unwrap();
    let served = Served::start(&tmp.path().join("store"), &[]);
    let (child, _out, cmd) = hold(&served.address(), "300ms", EXITS_0_ON_TERM);
    signal(child.id() as i32, libc::SIGSTOP);
    let (_store, taken) = take_over(&served.address());
    std::thread::sleep(Duration::from_millis(500));
    signal(child.id() as i32, libc::SIGCONT);
    assert_lost(child);
    assert!(has_ended(cmd), "CMD was left running");
    assert!(taken.is_held());
}

#[test]
fn a_lease_that_ran_out_before_cmd_ended_is_lost_too() {
    let tmp = tempfile::tempdir().unwrap();
    let served = Served::start(&tmp.path().join("store"), &[]);
    // CMD ends by itself soon after the lease runs out, while hold is stopped
    // and cannot notice either: the job ran for a while without the lock.
    let script = "echo ready $$; read line; exit 0";
    let mut child = Command::new(BIN)
        .args(["hold", &served.address(), "jobs", "a", "--ttl", "300ms"])
        .args(["--", "sh", "-c", script])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let cmd: i32 = expect_line(&mut out, "ready ").trim().parse().unwrap();
    signal(child.id() as i32, libc::SIGSTOP);
    let (_store, _taken) = take_over(&served.address());
    drop(child.stdin.take()); // CMD's read ends: it exits 0.
    let deadline = Instant::now() + Duration::from_secs(20);
    while !has_ended(cmd) {
        assert!(Instant::now() < deadline, "CMD did not end");
        std::thread::sleep(Duration::from_millis(10));
    }
    signal(child.id() as i32, libc::SIGCONT);
    assert_lost(child);
}

/// Holds jobs/a with a long TTL, ends the server with `sig`, and checks hold
/// exits lost and its CMD ended.
fn server_ends_while_holding(sig: i32) {
    let tmp = tempfile::tempdir().unwrap();
    let mut served = Served::start(&tmp.path().join("store"), &[]);
    let (child, _out, cmd) = hold(&served.address(), "60s", EXITS_0_ON_TERM);
    signal(served.pid(), sig);
    served.child.wait().unwrap();
    assert_lost(child);
    assert!(has_ended(cmd), "CMD was left running");
}

#[test]
fn a_server_killed_while_holding_gives_the_lost_status() {
    server_ends_while_holding(libc::SIGKILL);
}

#[test]
fn a_server_stopped_while_holding_gives_the_lost_status() {
    server_ends_while_holding(libc::SIGTERM);
}

#[test]
fn a_hold_that_kept_its_lease_exits_with_cmds_status() {
    let tmp = tempfile::tempdir().unwrap();
    let served = Served::start(&tmp.path().join("store"), &[]);
    for (script, want) in [("exit 0", 0), ("exit 3", 3), ("sleep 0.5", 0)] {
        // A short TTL, renewed several times while CMD runs.
        let out = Command::new(BIN)
            .args(["hold", &served.address(), "jobs", "a", "--ttl", "150ms"])
            .args(["--", "sh", "-c", script])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(want), "{script}: {err}");
        assert!(err.is_empty(), "{script}: {err}");
    }
}
