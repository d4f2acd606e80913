//! What the wait tests of every backend share: a wait that runs out, for a
//! lock, a semaphore and an election, checked for one code and one message.
#![allow(dead_code)]

use std::time::Duration;
use tinystore::{Code, Store};

/// The wait every waiter below is given.
pub const WAIT: Duration = Duration::from_millis(150);

/// Holds a lock key, a semaphore key (limit 1) and an election through
/// `holder`, then asks each again through `waiter` with [`WAIT`]: each
/// fails with `timeout` and the one message of its kind, and no waiter is
/// left in line (the wait ended where the line is).
pub async fn each_kind_runs_out_alike(holder: &Store, waiter: &Store) {
    let lock = holder.locks("orders").acquire(42).await.unwrap();
    let permit = holder.semaphore("exports", 1).acquire("eu").await.unwrap();
    let leader = holder.election("scheduler").campaign("a").await.unwrap();

    let err = waiter
        .locks("orders")
        .wait(WAIT)
        .acquire(42)
        .await
        .unwrap_err();
    assert_timeout(&err, "waited 150ms for lock orders/42 without getting it");
    let err = waiter
        .semaphore("exports", 1)
        .wait(WAIT)
        .acquire("eu")
        .await
        .unwrap_err();
    assert_timeout(
        &err,
        "waited 150ms for semaphore exports/eu without getting it",
    );
    let err = waiter
        .election("scheduler")
        .wait(WAIT)
        .campaign("b")
        .await
        .unwrap_err();
    assert_timeout(
        &err,
        "waited 150ms to lead election scheduler without leading",
    );

    let status = holder.status().await.unwrap();
    assert_eq!(status.held_total, 3, "{status:?}");
    assert_eq!(
        status.waiting_total, 0,
        "a waiter stayed in line: {status:?}"
    );
    assert!(lock.is_held() && permit.is_held() && leader.is_held());
}

/// A wait of zero on a held key runs out at once, with the same words.
pub async fn a_zero_wait_runs_out_at_once(holder: &Store, waiter: &Store) {
    let _lock = holder.locks("zero").acquire("k").await.unwrap();
    let err = waiter
        .locks("zero")
        .wait(Duration::ZERO)
        .acquire("k")
        .await
        .unwrap_err();
    assert_timeout(&err, "waited 0ns for lock zero/k without getting it");
}

fn assert_timeout(err: &tinystore::Error, message: &str) {
    assert_eq!(err.code(), Code::Timeout, "{err}");
    assert_eq!(err.message(), message);
}
