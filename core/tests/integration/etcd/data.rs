//! Data on a lease on etcd (a cluster started by `make test-etcd`): kept
//! in the entry's value, seen by every client's status and watchers, the
//! default the acquiring client's HOST:PID, too long refused before
//! anything is written.
#![cfg(feature = "etcd")]

use crate::etcd::support::address;
use crate::locks::data::data_is_kept_defaulted_and_refused;
use tinystore::{Store, WatchEvent};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn etcd_keeps_each_holders_data_for_every_client() {
    let address = address("lease-data");
    let store = Store::connect(&address).await.unwrap();
    data_is_kept_defaulted_and_refused(&store).await;

    // Another client sees the data in its status and its watch.
    let other = Store::connect(&address).await.unwrap();
    let mut watch = other.locks("seen").watch("k").await.unwrap();
    let lease = store
        .locks("seen")
        .data("from a")
        .acquire("k")
        .await
        .unwrap();
    let status = other.status().await.unwrap();
    let held = status.held.iter().find(|h| h.name == "seen").unwrap();
    assert_eq!(held.data.as_deref(), Some("from a"));
    loop {
        match crate::watch::next(&mut watch).await {
            WatchEvent::Granted { data, fence, .. } => {
                assert_eq!(data.as_deref(), Some("from a"));
                assert_eq!(fence, Some(lease.fence()));
                break;
            }
            WatchEvent::Queue { .. } => continue,
            other => panic!("{other:?}"),
        }
    }
    lease.release().await.unwrap();
}
