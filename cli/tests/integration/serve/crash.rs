//! Processes that die: a client killed with SIGKILL frees its keys at once;
//! a server killed with SIGKILL and restarted gives larger fences after its
//! grace; a server stopped with SIGTERM releases leases, tells waiters
//! `closed`, marks kv.db clean and removes its socket.

use crate::support::server::*;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::Duration;
use tinystore::blocking::Store;
use tinystore::Code;

#[test]
fn a_client_killed_with_sigkill_frees_its_keys_at_once() {
    let tmp = tempfile::tempdir().unwrap();
    let served = Served::start(&tmp.path().join("store"), &[]);
    // The holder's TTL is a minute: only its closed connection can free the key.
    let mut holder = Command::new(BIN)
        .args([
            "hold",
            &served.address(),
            "jobs",
            "nightly",
            "--ttl",
            "60s",
            "--",
        ])
        .args(["sh", "-c", "echo $$ $TINYSTORE_FENCE; exec sleep 60"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(holder.stdout.take().unwrap());
    let mut first = String::new();
    out.read_line(&mut first).unwrap();
    let (sleeper, first) = first.trim().split_once(' ').unwrap();
    let (sleeper, first): (i32, u128) = (sleeper.parse().unwrap(), first.parse().unwrap());

    let store = Store::connect(&served.address()).unwrap();
    let jobs = store.locks("jobs");
    assert!(jobs.try_acquire("nightly").unwrap().is_none());
    signal(holder.id() as i32, libc::SIGKILL);
    holder.wait().unwrap();
    let lease = jobs
        .clone()
        .wait(Duration::from_secs(20))
        .acquire("nightly")
        .unwrap();
    assert!(lease.fence().get() > first);
    assert_eq!(store.status().unwrap().held.len(), 1);
    // The killed hold could not stop its command; this test does.
    signal(sleeper, libc::SIGKILL);
}

#[test]
fn a_server_killed_and_restarted_gives_larger_fences_after_its_grace() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("store");
    let mut served = Served::start(&dir, &["--grace", "1s"]);
    let before = {
        let store = Store::connect(&served.address()).unwrap();
        let lease = store.locks("summaries").acquire(42).unwrap();
        let fence = lease.fence();
        std::mem::forget(lease);
        fence
    };
    signal(served.pid(), libc::SIGKILL);
    served.child.wait().unwrap();
    assert!(
        served.socket().exists(),
        "a killed server leaves its socket"
    );
    drop(served);

    let served = Served::start(&dir, &["--grace", "1s"]);
    let store = Store::connect(&served.address()).unwrap();
    let status = store.status().unwrap();
    assert!(
        status.grace_left_ms.is_some(),
        "no grace after an unclean stop"
    );
    assert!(status.epoch > before.epoch());
    let summaries = store.locks("summaries");
    let after = summaries
        .clone()
        .wait(Duration::from_secs(20))
        .acquire(42)
        .unwrap();
    assert!(
        after.fence() > before,
        "LOCK-02: {} <= {before}",
        after.fence()
    );
    assert_eq!(store.status().unwrap().grace_left_ms, None);
}

#[test]
fn sigterm_releases_leases_tells_waiters_and_marks_the_store_clean() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("store");
    let mut served = Served::start(&dir, &["--grace", "30s"]);
    let store = Store::connect(&served.address()).unwrap();
    let locks = store.locks("jobs");
    let held = locks.acquire("a").unwrap();
    let waiter = {
        let locks = locks.clone();
        std::thread::spawn(move || locks.acquire("a").map(|_| ()))
    };
    while store.status().unwrap().waiting.is_empty() {
        std::thread::sleep(Duration::from_millis(5));
    }
    signal(served.pid(), libc::SIGTERM);
    let status = served.child.wait().unwrap();
    assert!(status.success(), "{}", served.log());
    assert!(served.log().contains("stopped cleanly"));
    assert!(!served.socket().exists(), "the socket was not removed");
    let reason = held.wait_lost(Duration::from_secs(10)).expect("not told");
    assert!(
        matches!(reason.code(), Code::Closed | Code::LeaseLost),
        "{reason}"
    );
    let waited = waiter.join().unwrap().unwrap_err();
    assert!(
        matches!(waited.code(), Code::Closed | Code::Unavailable),
        "{waited}"
    );
    drop(served);

    // Clean: a restart with a long grace grants at once.
    let served = Served::start(&dir, &["--grace", "30s"]);
    let store = Store::connect(&served.address()).unwrap();
    assert_eq!(store.status().unwrap().grace_left_ms, None);
    assert!(store.locks("jobs").try_acquire("a").unwrap().is_some());
}
