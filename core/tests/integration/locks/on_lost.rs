//! `on_lost`: a callback told when a lease is lost (it ran out, its store
//! closed), never when its holder releases or drops it. Real time, short
//! TTLs: the callbacks run on a thread of the core's, outside the runtime.

use std::time::Duration;
use tinystore::{Code, Error, Options, Store};
use tokio::sync::mpsc;
use tokio::time::timeout;

async fn store() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path().join("store")).await.unwrap();
    (dir, store)
}

/// How long a test waits for a callback before it fails, not a measure.
const PATIENCE: Duration = Duration::from_secs(10);

/// Options for a lease that runs out soon: a short TTL, not renewed.
fn running_out() -> Options {
    Options {
        ttl: Some(Duration::from_millis(50)),
        renew: Some(false),
        ..Default::default()
    }
}

type Sent = (&'static str, Error);

/// A callback that sends `who` and the reason on `tx`.
fn tell(tx: &mpsc::UnboundedSender<Sent>, who: &'static str) -> impl FnOnce(Error) + Send {
    let tx = tx.clone();
    move |err| drop(tx.send((who, err)))
}

/// Every message the callbacks sent, in order, once each callback was
/// either called or dropped uncalled (the channel then closes).
async fn all(mut rx: mpsc::UnboundedReceiver<Sent>) -> Vec<(&'static str, Code)> {
    let mut got = Vec::new();
    loop {
        match timeout(PATIENCE, rx.recv()).await {
            Ok(Some((who, err))) => got.push((who, err.code())),
            Ok(None) => return got,
            Err(_) => panic!("callbacks still pending after {PATIENCE:?}; got {got:?}"),
        }
    }
}

#[tokio::test]
async fn a_lease_that_runs_out_calls_back_and_a_released_one_does_not() {
    let (_dir, store) = store().await;
    let locks = store.locks("on-lost").with(running_out());
    let (tx, rx) = mpsc::unbounded_channel();

    let released = locks.acquire("released").await.unwrap();
    released.on_lost(tell(&tx, "released"));
    released.release().await.unwrap();

    let dropped = locks.acquire("dropped").await.unwrap();
    dropped.on_lost(tell(&tx, "dropped"));
    drop(dropped);

    let expiring = locks.acquire("expiring").await.unwrap();
    expiring.on_lost(tell(&tx, "expiring"));
    drop(tx);

    // The channel closes once every callback was called or dropped: the
    // released and the dropped leases' callbacks must be dropped uncalled.
    assert_eq!(all(rx).await, vec![("expiring", Code::LeaseLost)]);
    assert!(!expiring.is_held());
    assert_eq!(
        expiring.release().await.unwrap_err().code(),
        Code::LeaseLost
    );
}

#[tokio::test]
async fn a_lease_lost_before_on_lost_still_calls_back() {
    let (_dir, store) = store().await;
    let lease = store
        .locks("on-lost")
        .with(running_out())
        .acquire("k")
        .await
        .unwrap();
    let reason = lease.lost().await;
    assert_eq!(reason.code(), Code::LeaseLost);
    let (tx, rx) = mpsc::unbounded_channel();
    lease.on_lost(tell(&tx, "late"));
    drop(tx);
    assert_eq!(all(rx).await, vec![("late", Code::LeaseLost)]);
}

#[tokio::test]
async fn closing_the_store_calls_back_a_permit_with_closed() {
    let (_dir, store) = store().await;
    let permit = store.semaphore("on-lost", 2).acquire("k").await.unwrap();
    let (tx, rx) = mpsc::unbounded_channel();
    permit.on_lost(tell(&tx, "permit"));
    drop(tx);
    store.close().await.unwrap();
    assert_eq!(all(rx).await, vec![("permit", Code::Closed)]);
}

#[tokio::test]
async fn a_cancelled_callback_is_not_called() {
    let (_dir, store) = store().await;
    let locks = store.locks("on-lost").with(running_out());
    let (tx, rx) = mpsc::unbounded_channel();
    let cancelled = locks.acquire("cancelled").await.unwrap();
    cancelled.on_lost(tell(&tx, "cancelled")).cancel();
    let kept = locks.acquire("kept").await.unwrap();
    kept.on_lost(tell(&tx, "kept"));
    drop(tx);
    assert_eq!(all(rx).await, vec![("kept", Code::LeaseLost)]);
    assert!(!cancelled.is_held());
}

/// A callback that sends the name of the thread it runs on.
fn where_it_runs(tx: &mpsc::UnboundedSender<String>) -> impl FnOnce(Error) + Send {
    let tx = tx.clone();
    move |_| drop(tx.send(std::thread::current().name().unwrap_or("?").to_string()))
}

#[tokio::test]
async fn callbacks_run_on_the_watch_thread_whether_the_lease_ended_before_or_after() {
    let (_dir, store) = store().await;
    let locks = store.locks("on-lost").with(running_out());
    let (tx, mut rx) = mpsc::unbounded_channel();
    let early = locks.acquire("early").await.unwrap();
    early.lost().await;
    // Already ended: the watch's first poll, on this thread, sees it, and
    // still leaves the callback to the watch thread.
    early.on_lost(where_it_runs(&tx));
    let later = locks.acquire("later").await.unwrap();
    later.on_lost(where_it_runs(&tx));
    drop(tx);
    let mut threads = Vec::new();
    while let Some(name) = timeout(PATIENCE, rx.recv()).await.expect("both call back") {
        threads.push(name);
    }
    assert_eq!(threads, ["tinystore-lost", "tinystore-lost"]);
}
