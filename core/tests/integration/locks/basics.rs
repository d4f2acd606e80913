//! The lock semantics of DESIGN.md on an embedded store, with tokio's
//! paused clock: waiting in the queue, timeouts, TTLs, renewals, releases, the
//! lost-lease signal, and giving up a wait.

use std::time::Duration;
use tinystore::{Code, Options, Store};
use tokio::time::{advance, sleep};

async fn store() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path().join("store")).await.unwrap();
    (dir, store)
}

const MS: Duration = Duration::from_millis(1);

#[tokio::test(start_paused = true)]
async fn fences_increase_across_keys_and_groups() {
    let (_dir, store) = store().await;
    let a = store.locks("a").acquire("k").await.unwrap();
    let b = store.locks("b").acquire(1).await.unwrap();
    let c = store.locks("a").acquire("other").await.unwrap();
    assert!(a.fence() < b.fence() && b.fence() < c.fence());
    assert_eq!(
        a.fence().count(),
        1,
        "the first lease after an open has count 1"
    );
    assert_eq!(a.fence().epoch(), store.status().await.unwrap().epoch);
}

#[tokio::test(start_paused = true)]
async fn an_integer_key_is_its_decimal_text() {
    let (_dir, store) = store().await;
    let locks = store.locks("chats");
    let _held = locks.acquire(42u64).await.unwrap();
    assert!(locks.try_acquire("42").await.unwrap().is_none());
    assert!(locks.try_acquire(42i32).await.unwrap().is_none());
    assert!(locks.try_acquire(43).await.unwrap().is_some());
}

#[tokio::test(start_paused = true)]
async fn waiters_are_served_first_come_first_served() {
    let (_dir, store) = store().await;
    let locks = store.locks("fifo");
    let first = locks.acquire("k").await.unwrap();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    for n in 0..5 {
        let locks = locks.clone();
        let tx = tx.clone();
        tokio::spawn(async move {
            let lease = locks.acquire("k").await.unwrap();
            tx.send((n, lease.fence())).unwrap();
            sleep(MS).await;
            lease.release().await.unwrap();
        });
        sleep(MS).await; // each joins the line after the one before
    }
    first.release().await.unwrap();
    let mut served = Vec::new();
    for _ in 0..5 {
        served.push(rx.recv().await.unwrap());
    }
    let order: Vec<i32> = served.iter().map(|(n, _)| *n).collect();
    assert_eq!(order, vec![0, 1, 2, 3, 4]);
    assert!(
        served.windows(2).all(|w| w[0].1 < w[1].1),
        "fences grow in grant order"
    );
}

#[tokio::test(start_paused = true)]
async fn a_wait_runs_out_with_timeout_and_leaves_the_line() {
    let (_dir, store) = store().await;
    let locks = store.locks("wait");
    let _held = locks.acquire("k").await.unwrap();
    let err = locks
        .acquire_with(
            "k",
            Options {
                wait: Some(50 * MS),
                ..Default::default()
            },
        )
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::Timeout);
    assert!(
        err.message().contains("wait/k"),
        "the message names the key: {err}"
    );
    assert!(store.status().await.unwrap().waiting.is_empty());
}

#[tokio::test(start_paused = true)]
async fn try_acquire_returns_at_once() {
    let (_dir, store) = store().await;
    let locks = store.locks("try");
    let held = locks.try_acquire("k").await.unwrap().expect("free key");
    assert!(locks.try_acquire("k").await.unwrap().is_none());
    held.release().await.unwrap();
    assert!(locks.try_acquire("k").await.unwrap().is_some());
}

#[tokio::test(start_paused = true)]
async fn a_lease_with_renew_off_runs_out_and_its_holder_is_told() {
    let (_dir, store) = store().await;
    let locks = store.locks("ttl").ttl(100 * MS).renew(false);
    let lease = locks.acquire("k").await.unwrap();
    let lost = lease.lost().await;
    assert_eq!(lost.code(), Code::LeaseLost);
    assert!(lost.message().contains("ttl/k"), "{lost}");
    assert!(!lease.is_held());
    let next = locks.acquire("k").await.unwrap();
    assert!(next.fence() > lease.fence());
    assert_eq!(lease.renew().await.unwrap_err().code(), Code::LeaseLost);
    assert_eq!(lease.release().await.unwrap_err().code(), Code::LeaseLost);
    assert!(
        next.is_held(),
        "the failed renew and release changed nothing"
    );
}

#[tokio::test(start_paused = true)]
async fn renewing_extends_a_lease() {
    let (_dir, store) = store().await;
    let locks = store.locks("renew").ttl(100 * MS).renew(false);
    let lease = locks.acquire("k").await.unwrap();
    for _ in 0..5 {
        advance(60 * MS).await;
        lease.renew().await.unwrap();
    }
    assert!(lease.is_held());
    advance(150 * MS).await;
    tokio::task::yield_now().await;
    assert!(!lease.is_held());
}

#[tokio::test(start_paused = true)]
async fn a_lease_with_renew_on_outlives_its_ttl_until_released() {
    let (_dir, store) = store().await;
    let locks = store.locks("keep").ttl(30 * MS);
    let lease = locks.acquire("k").await.unwrap();
    sleep(Duration::from_secs(5)).await;
    assert!(lease.is_held());
    assert!(locks.try_acquire("k").await.unwrap().is_none());
    lease.release().await.unwrap();
    lease.release().await.unwrap(); // idempotent
    assert!(!lease.is_held());
    assert!(locks.try_acquire("k").await.unwrap().is_some());
}

#[tokio::test(start_paused = true)]
async fn dropping_a_lease_releases_it() {
    let (_dir, store) = store().await;
    let locks = store.locks("drop");
    drop(locks.acquire("k").await.unwrap());
    assert!(locks.try_acquire("k").await.unwrap().is_some());
}

#[tokio::test(start_paused = true)]
async fn giving_up_a_wait_never_leaks_a_lease() {
    let (_dir, store) = store().await;
    let locks = store.locks("giveup");
    let held = locks.acquire("k").await.unwrap();
    let waiting = tokio::spawn({
        let locks = locks.clone();
        async move { locks.acquire("k").await }
    });
    sleep(MS).await;
    assert_eq!(store.status().await.unwrap().waiting.len(), 1);
    waiting.abort();
    let _ = waiting.await;
    assert!(store.status().await.unwrap().waiting.is_empty());
    held.release().await.unwrap();
    assert!(
        locks.try_acquire("k").await.unwrap().is_some(),
        "no lease leaked"
    );
}

/// The grant and the give-up cross: the key is released and the waiter is
/// dropped before it ever runs again, so the grant sits unread in its place.
#[tokio::test(start_paused = true)]
async fn a_grant_that_crosses_a_give_up_is_released() {
    let (_dir, store) = store().await;
    let locks = store.locks("cross");
    let held = locks.acquire("k").await.unwrap();
    let mut waiting = Box::pin(locks.acquire("k"));
    assert!(
        futures_poll_once(&mut waiting).await.is_none(),
        "it waits in line"
    );
    held.release().await.unwrap(); // the engine grants to the waiter now
    drop(waiting); // and the waiter gives up without reading it
    let status = store.status().await.unwrap();
    assert!(
        status.held.is_empty(),
        "the crossed grant was released: {status:?}"
    );
    assert!(locks.try_acquire("k").await.unwrap().is_some());
}

async fn futures_poll_once<F: std::future::Future + Unpin>(f: &mut F) -> Option<F::Output> {
    use std::task::Poll;
    std::future::poll_fn(|cx| match std::pin::Pin::new(&mut *f).poll(cx) {
        Poll::Ready(v) => Poll::Ready(Some(v)),
        Poll::Pending => Poll::Ready(None),
    })
    .await
}

#[tokio::test(start_paused = true)]
async fn hold_returns_the_body_value_and_releases() {
    let (_dir, store) = store().await;
    let locks = store.locks("hold");
    let fence = locks
        .hold("k", async |lease| -> Result<_, tinystore::Error> {
            Ok(lease.fence())
        })
        .await
        .unwrap();
    assert_eq!(fence.count(), 1);
    assert!(locks.try_acquire("k").await.unwrap().is_some());
}

#[derive(Debug)]
#[allow(dead_code)] // the fields are read through Debug
enum AppError {
    Store(tinystore::Error),
    Mine(&'static str),
}

impl From<tinystore::Error> for AppError {
    fn from(e: tinystore::Error) -> Self {
        AppError::Store(e)
    }
}

#[tokio::test(start_paused = true)]
async fn hold_keeps_the_body_error_and_releases() {
    let (_dir, store) = store().await;
    let locks = store.locks("hold-err").ttl(50 * MS).renew(false);
    let err = locks
        .hold("k", async |lease| -> Result<(), AppError> {
            lease.lost().await; // the lease runs out; the body is told
            Err(AppError::Mine("the body failed"))
        })
        .await
        .unwrap_err();
    assert!(
        matches!(err, AppError::Mine(_)),
        "the release error never hides the body's"
    );
    let err = locks
        .hold("k", async |_| -> Result<(), AppError> {
            sleep(Duration::from_secs(1)).await; // stopped by the loss
            Ok(())
        })
        .await
        .unwrap_err();
    assert!(
        matches!(err, AppError::Store(ref e) if e.code() == Code::LeaseLost),
        "{err:?}"
    );
    assert!(locks.try_acquire("k").await.unwrap().is_some());
}

#[tokio::test(start_paused = true)]
async fn semaphores_admit_up_to_their_limit_and_permits_have_no_fence() {
    let (_dir, store) = store().await;
    let exports = store.semaphore("exports", 3);
    let p1 = exports.acquire("x").await.unwrap();
    let _p2 = exports.acquire("x").await.unwrap();
    let _p3 = exports.acquire("x").await.unwrap();
    assert!(exports.try_acquire("x").await.unwrap().is_none());
    let err = store
        .semaphore("exports", 4)
        .acquire("x")
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::Invalid);
    assert!(err.message().contains("limit 3"), "{err}");
    p1.release().await.unwrap();
    assert!(exports.try_acquire("x").await.unwrap().is_some());
    let lock = store.locks("exports").try_acquire("x").await.unwrap();
    assert!(
        lock.is_some(),
        "a lock group and a semaphore of one name are apart"
    );
}

#[tokio::test(start_paused = true)]
async fn bad_names_keys_ttls_and_limits_are_invalid() {
    let (_dir, store) = store().await;
    let cases = [
        store.locks("").try_acquire("k").await.err(),
        store.locks("sp ace").try_acquire("k").await.err(),
        store.locks(&"n".repeat(129)).try_acquire("k").await.err(),
        store.locks("ok").try_acquire("").await.err(),
        store.locks("ok").try_acquire("k".repeat(1025)).await.err(),
        store.locks("ok").ttl(MS).try_acquire("k").await.err(),
        store
            .locks("ok")
            .ttl(Duration::from_secs(25 * 3600))
            .try_acquire("k")
            .await
            .err(),
        store.semaphore("ok", 0).try_acquire("k").await.err(),
    ];
    for err in cases {
        let err = err.expect("refused");
        assert_eq!(err.code(), Code::Invalid, "{err}");
    }
    assert!(store
        .locks("a-Z.0_9:x")
        .try_acquire("ключ")
        .await
        .unwrap()
        .is_some());
}

#[tokio::test(start_paused = true)]
async fn close_tells_holders_and_fails_waiters() {
    let (_dir, store) = store().await;
    let locks = store.locks("close");
    let lease = locks.acquire("k").await.unwrap();
    let waiter = tokio::spawn({
        let locks = locks.clone();
        async move { locks.acquire("k").await }
    });
    sleep(MS).await;
    store.close().await.unwrap();
    assert_eq!(waiter.await.unwrap().unwrap_err().code(), Code::Closed);
    assert_eq!(lease.lost().await.code(), Code::Closed);
    assert!(!lease.is_held());
    assert_eq!(locks.acquire("k").await.unwrap_err().code(), Code::Closed);
    store.close().await.unwrap(); // idempotent
}
