//! Read-write locks, weighted permits, several keys at once and
//! `max_hold`, on a store in this process and on one served over a
//! connection (two clients, so that waits cross the wire).

use crate::more_ways::support::*;
use crate::support::served::served;
use tinystore::Store;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn embedded_read_write_locks_weights_several_keys_and_max_hold() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path().join("store")).await.unwrap();
    readers_share_and_a_waiting_writer_holds_back_later_readers(&store, &store).await;
    weighted_permits_take_their_places_in_arrival_order(&store, &store).await;
    several_keys_are_taken_all_or_none(&store, &store).await;
    overlapping_sets_in_random_orders_never_deadlock(std::slice::from_ref(&store)).await;
    max_hold_ends_a_renewed_lease(&store).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn served_read_write_locks_weights_several_keys_and_max_hold() {
    let (_dir, server, address) = served().await;
    let a = Store::connect(&address).await.unwrap();
    let b = Store::connect(&address).await.unwrap();
    readers_share_and_a_waiting_writer_holds_back_later_readers(&a, &b).await;
    weighted_permits_take_their_places_in_arrival_order(&a, &b).await;
    several_keys_are_taken_all_or_none(&a, &b).await;
    let c = Store::connect(&address).await.unwrap();
    overlapping_sets_in_random_orders_never_deadlock(&[a.clone(), b.clone(), c]).await;
    max_hold_ends_a_renewed_lease(&a).await;
    server.shutdown().await.unwrap();
}

/// The blocking API gives the same: readers share, a writer waits, a
/// weighted permit and acquire_all, from threads.
#[test]
fn blocking_read_write_locks_and_acquire_all() {
    let dir = tempfile::tempdir().unwrap();
    let store = tinystore::blocking::Store::open(dir.path().join("store")).unwrap();
    let rw = store.rw_locks("docs");
    let opts = tinystore::Options::default();
    let r1 = rw
        .try_acquire_read_with("k", opts.clone())
        .unwrap()
        .expect("free");
    let r2 = rw
        .try_acquire_read_with("k", opts.clone())
        .unwrap()
        .expect("shared");
    assert!(rw
        .try_acquire_write_with("k", opts.clone())
        .unwrap()
        .is_none());
    r1.release().unwrap();
    r2.release().unwrap();
    let fence = rw
        .hold_write("k", |lease| Ok::<_, tinystore::Error>(lease.fence()))
        .unwrap();
    assert!(fence.get() > 0);
    let locks = store.locks("accounts");
    let n = locks
        .hold_all(["b", "a"], opts, |leases| {
            assert_eq!((leases[0].key(), leases[1].key()), ("b", "a"));
            Ok::<_, tinystore::Error>(leases.len())
        })
        .unwrap();
    assert_eq!(n, 2);
    assert!(locks.try_acquire("a").unwrap().is_some(), "released");
    store.close().unwrap();
}
