//! Watching on an embedded store: each grant, end and queue change, in the
//! engine's order; a watcher that never reads slows nobody and is told
//! what it missed; the store's close ends every watch.

use super::{drain, next};
use futures_util::StreamExt;
use std::time::Duration;
use tinystore::testing::TestStore;
use tinystore::{Code, WatchEvent, WATCH_BUFFER};

/// A grant to a holder that attached no data: its data is this process's
/// `HOST:PID`.
fn granted(key: &str, fence: Option<tinystore::Fence>) -> WatchEvent {
    WatchEvent::Granted {
        key: key.into(),
        fence,
        data: Some(tinystore::default_data().to_string()),
    }
}

fn queue(key: &str, length: u64) -> WatchEvent {
    WatchEvent::Queue {
        key: key.into(),
        length,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_group_watch_sees_grants_queues_releases_and_losses_in_order() {
    let kit = TestStore::new().await.unwrap();
    let locks = kit.store().locks("orders");
    let mut watch = locks.watch_all().await.unwrap();

    let a = locks.acquire("1").await.unwrap();
    assert_eq!(next(&mut watch).await, granted("1", Some(a.fence())));

    // b says who it is: watchers see its data with its grant.
    let waiting = locks.clone().data("worker-b");
    let b = tokio::spawn(async move { waiting.acquire("1").await });
    assert_eq!(next(&mut watch).await, queue("1", 1));

    a.release().await.unwrap();
    let b = b.await.unwrap().unwrap();
    assert_eq!(
        next(&mut watch).await,
        WatchEvent::Released {
            key: "1".into(),
            fence: Some(a.fence())
        }
    );
    assert_eq!(
        next(&mut watch).await,
        WatchEvent::Granted {
            key: "1".into(),
            fence: Some(b.fence()),
            data: Some("worker-b".into())
        }
    );
    assert_eq!(next(&mut watch).await, queue("1", 0));

    kit.expire(&b).await.unwrap();
    assert_eq!(
        next(&mut watch).await,
        WatchEvent::Lost {
            key: "1".into(),
            fence: Some(b.fence()),
            cause: "expired".into()
        }
    );
    assert!(drain(&mut watch).await.is_empty(), "nothing more happened");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_watch_sees_only_its_key_and_each_kind_its_own_group() {
    let kit = TestStore::new().await.unwrap();
    let store = kit.store();
    let mut one = store.locks("orders").watch("1").await.unwrap();
    let mut sem = store.semaphore("orders", 2).watch_all().await.unwrap();
    let mut rw = store.rw_locks("orders").watch("1").await.unwrap();

    let other = store.locks("orders").acquire("2").await.unwrap();
    let mine = store.locks("orders").acquire("1").await.unwrap();
    let permit = store.semaphore("orders", 2).acquire("1").await.unwrap();
    let read = store.rw_locks("orders").acquire_read("1").await.unwrap();
    read.release().await.unwrap();
    let write = store.rw_locks("orders").acquire_write("1").await.unwrap();

    assert_eq!(
        drain(&mut one).await,
        vec![granted("1", Some(mine.fence()))]
    );
    assert_eq!(drain(&mut sem).await, vec![granted("1", None)]);
    assert_eq!(
        drain(&mut rw).await,
        vec![
            granted("1", None),
            WatchEvent::Released {
                key: "1".into(),
                fence: None
            },
            granted("1", Some(write.fence())),
        ]
    );
    drop((other, permit));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_watcher_that_never_reads_slows_nobody_and_is_told_what_it_missed() {
    let kit = TestStore::new().await.unwrap();
    let locks = kit.store().locks("busy");
    let mut idle = locks.watch_all().await.unwrap();
    let holds = WATCH_BUFFER as u64 * 3;
    for _ in 0..holds {
        locks.acquire("k").await.unwrap().release().await.unwrap();
    }
    // Two events a hold; the buffer keeps the last WATCH_BUFFER of them.
    let missed = holds * 2 - WATCH_BUFFER as u64;
    assert_eq!(next(&mut idle).await, WatchEvent::Lagged { missed });
    let rest = drain(&mut idle).await;
    assert_eq!(rest.len(), WATCH_BUFFER);
    assert!(matches!(rest.last(), Some(WatchEvent::Released { .. })));
    // And it goes on with the events of now.
    let last = locks.acquire("k").await.unwrap();
    assert_eq!(next(&mut idle).await, granted("k", Some(last.fence())));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn closing_the_store_tells_the_loss_then_ends_the_watch_closed() {
    let kit = TestStore::new().await.unwrap();
    let locks = kit.store().locks("orders");
    let mut watch = locks.watch_all().await.unwrap();
    let held = locks.acquire("1").await.unwrap();
    assert_eq!(next(&mut watch).await, granted("1", Some(held.fence())));
    kit.store().close().await.unwrap();
    assert_eq!(
        next(&mut watch).await,
        WatchEvent::Lost {
            key: "1".into(),
            fence: Some(held.fence()),
            cause: "closed".into()
        }
    );
    let end = tokio::time::timeout(Duration::from_secs(10), watch.next())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(end.unwrap_err().code(), Code::Closed);
    assert!(watch.next().await.is_none());
    assert_eq!(
        locks.watch_all().await.unwrap_err().code(),
        Code::Closed,
        "a closed store takes no new watch"
    );
}

#[tokio::test]
async fn a_bad_name_or_key_is_invalid() {
    let kit = TestStore::new().await.unwrap();
    let store = kit.store();
    let err = store.locks("no spaces").watch_all().await.unwrap_err();
    assert_eq!(err.code(), Code::Invalid, "{err}");
    let long = "k".repeat(tinystore::MAX_KEY_BYTES + 1);
    let err = store
        .locks("orders")
        .watch(long.as_str())
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::Invalid, "{err}");
    let err = store.locks("orders").watch("").await.unwrap_err();
    assert_eq!(err.code(), Code::Invalid, "{err}");
}
