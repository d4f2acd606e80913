//! `tinystore status DIR` on a directory nobody serves: it reads `kv.db`
//! and never opens the store (no epoch written, nothing made, no ownership
//! taken from a process that has it open).

use crate::support::server::{status_json, BIN};
use std::process::Command;
use tinystore::blocking::Store;

#[test]
fn a_directory_without_a_store_is_invalid_and_is_not_made() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("typo");
    let out = Command::new(BIN)
        .args(["status", dir.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("invalid") && err.contains("no kv.db"), "{err}");
    assert!(!dir.exists(), "status made {}", dir.display());
}

#[test]
fn status_reads_a_closed_store_without_opening_it() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("store");
    let store = Store::open(&dir).unwrap();
    let fence = store.locks("jobs").acquire("a").unwrap().fence();
    store.close().unwrap();

    let first = status_json(&dir);
    let again = status_json(&dir);
    assert_eq!(first, again, "a status changed the store");
    assert_eq!(first["served"], false);
    assert_eq!(first["closed_cleanly"], true);
    assert_eq!(first["last_epoch"].as_u64(), Some(fence.epoch()));

    let reopened = Store::open(&dir).unwrap();
    let later = reopened.locks("jobs").acquire("a").unwrap().fence();
    assert!(later.epoch() > fence.epoch());
    reopened.close().unwrap();
}

#[test]
fn a_store_open_in_a_process_stays_its_and_shows_not_closed() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("store");
    let store = Store::open(&dir).unwrap();
    let held = store.locks("jobs").acquire("a").unwrap();

    let seen = status_json(&dir);
    assert_eq!(seen["closed_cleanly"], false);
    assert_eq!(seen["last_epoch"].as_u64(), Some(held.fence().epoch()));
    let next = store.locks("jobs").try_acquire("b").unwrap();
    assert!(next.is_some(), "the owner's store still works");
    assert!(held.is_held());
    store.close().unwrap();
}
