//! Watching on etcd (a cluster started by `make test-etcd`): another
//! client's grants, queue and releases in order, with fences and data as
//! its status gives them; a key watch sees only its key; a lease that runs
//! out is told as released (etcd cannot tell a delete from a TTL).
#![cfg(feature = "etcd")]

use crate::etcd::support::address;
use crate::watch::next;
use std::time::Duration;
use tinystore::{Options, Store, WatchEvent};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_watch_on_etcd_sees_grants_queues_and_releases_in_order() {
    let address = address("watch-order");
    let watcher = Store::connect(&address).await.unwrap();
    let a_store = Store::connect(&address).await.unwrap();
    let b_store = Store::connect(&address).await.unwrap();
    let mut all = watcher.locks("orders").watch_all().await.unwrap();
    let mut other = watcher.locks("orders").watch("2").await.unwrap();

    let a = a_store
        .locks("orders")
        .data("worker-a")
        .acquire("1")
        .await
        .unwrap();
    assert_eq!(
        next(&mut all).await,
        WatchEvent::Granted {
            key: "1".into(),
            fence: Some(a.fence()),
            data: Some("worker-a".into())
        }
    );
    let b_locks = b_store.locks("orders");
    let b = tokio::spawn(async move { b_locks.acquire("1").await });
    assert_eq!(
        next(&mut all).await,
        WatchEvent::Queue {
            key: "1".into(),
            length: 1
        }
    );
    a.release().await.unwrap();
    let b = b.await.unwrap().unwrap();
    assert_eq!(
        next(&mut all).await,
        WatchEvent::Released {
            key: "1".into(),
            fence: Some(a.fence())
        }
    );
    assert_eq!(
        next(&mut all).await,
        WatchEvent::Granted {
            key: "1".into(),
            fence: Some(b.fence()),
            data: Some(tinystore::default_data().to_string())
        }
    );
    assert_eq!(
        next(&mut all).await,
        WatchEvent::Queue {
            key: "1".into(),
            length: 0
        }
    );

    // A key watch sees its key only; a permit has no fence.
    let two = a_store.locks("orders").acquire("2").await.unwrap();
    assert!(matches!(next(&mut other).await, WatchEvent::Granted { key, .. } if key == "2"));
    assert!(
        matches!(next(&mut all).await, WatchEvent::Granted { key, fence, .. } if key == "2" && fence == Some(two.fence()))
    );
    let mut permits = watcher.semaphore("orders", 3).watch_all().await.unwrap();
    let permit = a_store.semaphore("orders", 3).acquire("1").await.unwrap();
    assert!(matches!(
        next(&mut permits).await,
        WatchEvent::Granted { fence: None, .. }
    ));
    drop((permit, two));

    // A lease not renewed runs out on etcd's clock: told as released.
    let short = Options {
        ttl: Some(Duration::from_secs(2)),
        renew: Some(false),
        ..Options::default()
    };
    let quiet = Store::connect(&address).await.unwrap();
    let lapsing = quiet.locks("lapse").acquire_with("k", short).await.unwrap();
    let mut lapse = watcher.locks("lapse").watch("k").await.unwrap();
    drop(b);
    std::mem::forget(lapsing);
    let ended = tokio::time::timeout(Duration::from_secs(20), next(&mut lapse))
        .await
        .unwrap();
    assert!(matches!(ended, WatchEvent::Released { .. }), "{ended:?}");
}
