//! The grace belongs to the store: after a served store stops uncleanly,
//! every owner (serve, an embedded open, `tinystore hold`) grants nothing
//! until the grace its server recorded has passed, and the unclean mark stays
//! until an owner has waited it out. A store that was never served needs no
//! grace. `tinystore backup` of a store nobody owns writes nothing into it.

use crate::support::server::*;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use tinystore::blocking::Store;
use tinystore::StoreOptions;

/// `tinystore status DIR --json` of a store nobody serves.
fn unserved(dir: &Path) -> serde_json::Value {
    let seen = status_json(dir);
    assert_eq!(seen["served"], false, "{seen}");
    seen
}

/// Serves `dir` with `args`, takes a lease with a long TTL from a client,
/// and kills the server with SIGKILL while the lease is held. The fence.
fn serve_hold_and_kill(dir: &Path, args: &[&str]) -> tinystore::Fence {
    let mut served = Served::start(dir, args);
    let store = Store::connect(&served.address()).unwrap();
    let lease = store
        .locks("g")
        .ttl(Duration::from_secs(60))
        .acquire("k")
        .unwrap();
    let fence = lease.fence();
    signal(served.pid(), libc::SIGKILL);
    served.child.wait().unwrap();
    std::mem::forget(lease);
    fence
}

#[test]
fn hold_after_a_served_store_crashed_grants_nothing_before_the_grace() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("store");
    let before = serve_hold_and_kill(&dir, &["--grace", "3s"]);

    // A hold started at once, and stopped before the grace ends: its command
    // never ran, and the store is still marked unclean.
    let ran = tmp.path().join("ran");
    let mut early = Command::new(BIN)
        .args(["hold", dir.to_str().unwrap(), "g", "k", "--", "touch"])
        .arg(&ran)
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1000));
    assert!(
        early.try_wait().unwrap().is_none() && !ran.exists(),
        "hold was granted within the grace"
    );
    signal(early.id() as i32, libc::SIGTERM);
    early.wait().unwrap();
    assert_eq!(unserved(&dir)["closed_cleanly"], false);

    // A hold left to run is granted once the grace has passed, and only then.
    let started = Instant::now();
    let d = dir.to_str().unwrap();
    let out = tinystore_ok(&[
        "hold",
        d,
        "g",
        "k",
        "--",
        "sh",
        "-c",
        "echo $TINYSTORE_FENCE",
    ]);
    let waited = started.elapsed();
    assert!(
        waited >= Duration::from_secs(3),
        "granted {waited:?} after the open, within the 3 s grace"
    );
    let fence: u128 = String::from_utf8_lossy(&out.stdout).trim().parse().unwrap();
    assert!(fence > before.get());
    assert_eq!(
        unserved(&dir)["closed_cleanly"],
        true,
        "the owner that waited the grace out closes it cleanly"
    );
}

#[test]
fn an_embedded_open_after_a_served_crash_waits_the_grace_and_an_early_close_keeps_the_mark() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("store");
    let before = serve_hold_and_kill(&dir, &["--grace", "30s"]);

    // The default options: the grace the server recorded.
    let store = Store::open(&dir).unwrap();
    assert!(store.status().unwrap().grace_left_ms.unwrap() > 20_000);
    assert!(
        store.locks("g").try_acquire("other").unwrap().is_none(),
        "a grant within the grace"
    );
    store.close().unwrap();
    assert_eq!(
        unserved(&dir)["closed_cleanly"],
        false,
        "closed before the grace passed: the mark stays"
    );

    // The next owner waits a grace again (here a short one, asked for).
    let options = StoreOptions::default().grace(Duration::from_millis(300));
    let store = Store::open_with(&dir, options).unwrap();
    assert!(store.locks("g").try_acquire("k").unwrap().is_none());
    let lease = store.locks("g").acquire("k").unwrap();
    assert!(lease.fence() > before);
    store.close().unwrap();
    assert_eq!(unserved(&dir)["closed_cleanly"], true);
}

#[test]
fn a_never_served_store_whose_owner_was_killed_opens_with_no_grace() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("store");
    Store::open(&dir).unwrap().close().unwrap();
    // hold owns the store itself (nobody serves it) and is killed holding k.
    let out = Command::new(BIN)
        .args([
            "hold",
            dir.to_str().unwrap(),
            "g",
            "k",
            "--ttl",
            "60s",
            "--",
        ])
        .args(["sh", "-c", "kill -9 $PPID"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), None, "hold was killed");
    assert_eq!(unserved(&dir)["closed_cleanly"], false);

    let options = StoreOptions::default().grace(Duration::from_secs(30));
    let store = Store::open_with(&dir, options).unwrap();
    assert_eq!(store.status().unwrap().grace_left_ms, None);
    assert!(
        store.locks("g").try_acquire("k").unwrap().is_some(),
        "its holders died with it: no grace"
    );
    store.close().unwrap();
}

#[test]
fn backup_right_after_a_crash_writes_nothing_into_the_store() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("store");
    let before = serve_hold_and_kill(&dir, &["--grace", "30s"]);
    let seen = unserved(&dir);
    assert_eq!(seen["closed_cleanly"], false);
    let files =
        |dir: &Path| ["kv.db", "kv.db-wal", "EPOCH"].map(|name| std::fs::read(dir.join(name)).ok());
    let bytes = files(&dir);

    let dest = tmp.path().join("backup.db");
    let started = Instant::now();
    tinystore_ok(&["backup", dir.to_str().unwrap(), dest.to_str().unwrap()]);
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "backup grants nothing, so it waits no grace"
    );
    assert_eq!(
        unserved(&dir),
        seen,
        "the epoch and the clean mark are untouched"
    );
    assert!(
        files(&dir) == bytes,
        "kv.db, its WAL and EPOCH are byte for byte the same"
    );

    // The copy is a good backup, and serve still owes the grace.
    let restored = tmp.path().join("restored");
    tinystore::restore(&dest, &restored).unwrap();
    let again = Store::open_with(&restored, StoreOptions::default().grace(Duration::ZERO)).unwrap();
    assert!(again.locks("g").acquire("k").unwrap().fence() > before);
    again.close().unwrap();
    let served = Served::start(&dir, &[]);
    let store = Store::connect(&served.address()).unwrap();
    assert!(store.status().unwrap().grace_left_ms.is_some());
}
