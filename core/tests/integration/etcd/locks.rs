//! The store API on a real three-member etcd cluster (started by
//! `make test-etcd`): exclusion and fence order with many clients,
//! semaphores, first come first served, try-acquire, giving up without
//! leaks, TTLs, lost leases, the epoch, closing, and errors.
#![cfg(feature = "etcd")]

use crate::etcd::support::{address, entries, entries_become, prefix_of, raw};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tinystore::{Code, Fence, Lease, Locks, Options, Result, Store};
use tokio::task::JoinHandle;

const MS: Duration = Duration::from_millis(1);

async fn connect(address: &str) -> Store {
    Store::connect(address).await.unwrap()
}

/// A task that acquires `key` of `locks`, waiting up to `wait` if given.
fn waiter(locks: &Locks, key: &'static str, wait: Option<Duration>) -> JoinHandle<Result<Lease>> {
    let locks = locks.clone();
    tokio::spawn(async move {
        let options = Options {
            wait,
            ..Options::default()
        };
        locks.acquire_with(key, options).await
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_clients_exclude_each_other_and_fences_rise_in_grant_order() {
    let address = address("exclusion");
    let inside = Arc::new(AtomicUsize::new(0));
    let fences: Arc<Mutex<Vec<Fence>>> = Arc::default();
    let mut clients = Vec::new();
    for _ in 0..8 {
        let store = connect(&address).await;
        let (inside, fences) = (inside.clone(), fences.clone());
        clients.push(tokio::spawn(async move {
            let locks = store.locks("summaries");
            for _ in 0..12 {
                let lease = locks.acquire("chat-1").await.unwrap();
                assert_eq!(
                    inside.fetch_add(1, Ordering::SeqCst),
                    0,
                    "two holders at once"
                );
                fences.lock().unwrap().push(lease.fence());
                tokio::time::sleep(2 * MS).await;
                inside.fetch_sub(1, Ordering::SeqCst);
                lease.release().await.unwrap();
            }
        }));
    }
    for client in clients {
        client.await.unwrap();
    }
    let fences = fences.lock().unwrap().clone();
    assert_eq!(fences.len(), 96);
    assert!(
        fences.windows(2).all(|w| w[0] < w[1]),
        "fences in grant order must rise: {fences:?}"
    );
    let epoch = connect(&address).await.status().await.unwrap().epoch;
    assert!(fences.iter().all(|f| f.epoch() == epoch));
    assert_eq!(entries_become(&address, 0).await, 0, "entries were left");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_semaphore_lets_limit_holders_in_and_keeps_its_limit() {
    let address = address("semaphore");
    let inside = Arc::new(AtomicUsize::new(0));
    let most = Arc::new(AtomicUsize::new(0));
    let mut clients = Vec::new();
    for _ in 0..6 {
        let store = connect(&address).await;
        let (inside, most) = (inside.clone(), most.clone());
        clients.push(tokio::spawn(async move {
            let exports = store.semaphore("exports", 3);
            for _ in 0..4 {
                let permit = exports.acquire("daily").await.unwrap();
                let now = inside.fetch_add(1, Ordering::SeqCst) + 1;
                most.fetch_max(now, Ordering::SeqCst);
                tokio::time::sleep(40 * MS).await;
                inside.fetch_sub(1, Ordering::SeqCst);
                permit.release().await.unwrap();
            }
        }));
    }
    for client in clients {
        client.await.unwrap();
    }
    assert_eq!(
        most.load(Ordering::SeqCst),
        3,
        "up to 3 at once, and 3 were"
    );

    let store = connect(&address).await;
    let _held = store
        .semaphore("exports", 3)
        .acquire("daily")
        .await
        .unwrap();
    let err = store
        .semaphore("exports", 2)
        .acquire("daily")
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::Invalid);
    assert!(err.message().contains("limit 3"), "{err}");
    assert_eq!(entries_become(&address, 1).await, 1);
}

#[tokio::test]
async fn waiters_are_served_first_come_first_served() {
    let address = address("fifo");
    let store = connect(&address).await;
    let locks = store.locks("jobs");
    let first = locks.acquire("k").await.unwrap();
    let order: Arc<Mutex<Vec<(char, Fence)>>> = Arc::default();
    let mut waiters = Vec::new();
    for (i, name) in ['b', 'c', 'd'].into_iter().enumerate() {
        let (locks, order) = (connect(&address).await.locks("jobs"), order.clone());
        waiters.push(tokio::spawn(async move {
            let lease = locks.acquire("k").await.unwrap();
            order.lock().unwrap().push((name, lease.fence()));
            tokio::time::sleep(5 * MS).await;
            lease.release().await.unwrap();
        }));
        // Each waiter is in line before the next one comes.
        assert_eq!(entries_become(&address, i as i64 + 2).await, i as i64 + 2);
    }
    first.release().await.unwrap();
    for waiter in waiters {
        waiter.await.unwrap();
    }
    let order = order.lock().unwrap().clone();
    let names: Vec<char> = order.iter().map(|(n, _)| *n).collect();
    assert_eq!(names, ['b', 'c', 'd']);
    assert!(first.fence() < order[0].1 && order[0].1 < order[1].1 && order[1].1 < order[2].1);
}

#[tokio::test]
async fn try_acquire_takes_a_free_key_and_leaves_nothing_when_taken() {
    let address = address("try");
    let store = connect(&address).await;
    let locks = store.locks("t");
    let held = locks.try_acquire(42).await.unwrap().expect("free key");
    assert!(locks.try_acquire("42").await.unwrap().is_none());
    let permit = store.semaphore("s", 1).try_acquire(42).await.unwrap();
    assert!(permit.is_some(), "a semaphore's key 42 is not the lock's");
    assert_eq!(entries(&address).await, 2, "a failed try left its entry");
    held.release().await.unwrap();
    let again = locks.try_acquire(42).await.unwrap().expect("free again");
    assert!(again.fence() > held.fence());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn giving_up_a_wait_leaves_no_entry_even_when_it_crosses_the_grant() {
    let address = address("give-up");
    let store = connect(&address).await;
    let locks = store.locks("g");
    let held = locks.acquire("k").await.unwrap();

    let err = locks
        .acquire_with(
            "k",
            Options {
                wait: Some(200 * MS),
                ..Options::default()
            },
        )
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::Timeout);
    tokio::select! {
        _ = locks.acquire("k") => panic!("the key is held"),
        _ = tokio::time::sleep(150 * MS) => {}
    }
    assert_eq!(
        entries_become(&address, 1).await,
        1,
        "a given-up wait left its entry"
    );
    held.release().await.unwrap();

    // Releases and give-ups crossing: whoever wins, nothing stays behind.
    for round in 0..15u32 {
        let holder = locks.acquire("k").await.unwrap();
        let waiter = {
            let locks = locks.clone();
            tokio::spawn(async move {
                let wait = Options {
                    wait: Some((20 + round * 7) * MS),
                    ..Options::default()
                };
                locks
                    .acquire_with("k", wait)
                    .await
                    .map(|lease| lease.fence())
            })
        };
        tokio::time::sleep((15 + round * 7) * MS).await;
        drop(holder);
        match waiter.await.unwrap() {
            Ok(fence) => assert!(fence.epoch() > 0),
            Err(err) => assert_eq!(err.code(), Code::Timeout),
        }
    }
    assert_eq!(entries_become(&address, 0).await, 0, "entries leaked");
    assert!(locks.try_acquire("k").await.unwrap().is_some());
}

#[tokio::test]
async fn a_lease_without_renewal_runs_out_and_the_next_holder_gets_a_larger_fence() {
    let address = address("runs-out");
    let store = connect(&address).await;
    let locks = store.locks("r").ttl(Duration::from_secs(1)).renew(false);
    let late = locks.acquire("k").await.unwrap();
    let next = connect(&address)
        .await
        .locks("r")
        .acquire("k")
        .await
        .unwrap();
    assert!(
        !late.is_held(),
        "the next holder came before the first lost its lease"
    );
    assert_eq!(late.lost().await.code(), Code::LeaseLost);
    assert!(next.fence() > late.fence());
    assert_eq!(late.release().await.unwrap_err().code(), Code::LeaseLost);
    assert_eq!(late.renew().await.unwrap_err().code(), Code::LeaseLost);
}

/// The etcd lease each entry under the store's prefix is attached to.
async fn etcd_leases(address: &str) -> Vec<i64> {
    let root = format!("/{}/lock/", prefix_of(address));
    let mut kv = raw().await.kv_client();
    let options = etcd_client::GetOptions::new().with_prefix();
    let got = kv.get(root, Some(options)).await.unwrap();
    got.kvs().iter().map(|kv| kv.lease()).collect()
}

#[tokio::test]
async fn leases_of_one_ttl_share_an_etcd_lease_one_ends_alone_and_its_loss_loses_all() {
    let address = address("shared");
    let store = connect(&address).await;
    let ttl = Duration::from_secs(1);
    let kept = store.locks("s").ttl(ttl).acquire("a").await.unwrap();
    let unrenewed = store
        .locks("s")
        .ttl(ttl)
        .renew(false)
        .acquire("b")
        .await
        .unwrap();
    let shared = etcd_leases(&address).await;
    assert_eq!(shared.len(), 2);
    assert_eq!(shared[0], shared[1], "two etcd leases for one TTL");

    // The lease without renewals ends alone, its entry deleted; the other
    // stays held on the same etcd lease.
    assert_eq!(unrenewed.lost().await.code(), Code::LeaseLost);
    tokio::time::sleep(ttl * 2).await;
    assert!(kept.is_held());
    let other = connect(&address).await.locks("s");
    assert!(other.try_acquire("a").await.unwrap().is_none());
    let b = other
        .try_acquire("b")
        .await
        .unwrap()
        .expect("b stayed taken");
    assert!(b.fence() > unrenewed.fence());
    b.release().await.unwrap();

    // A release deletes its entry alone too.
    let again = store.locks("s").ttl(ttl).acquire("c").await.unwrap();
    again.release().await.unwrap();
    assert!(kept.is_held());
    assert_eq!(etcd_leases(&address).await, vec![shared[0]]);

    // The shared etcd lease gone: every lease on it is lost, and told.
    let another = store.locks("s").ttl(ttl).acquire("d").await.unwrap();
    raw().await.lease_revoke(shared[0]).await.unwrap();
    for lease in [&kept, &another] {
        let told = tokio::time::timeout(ttl * 3, lease.lost()).await;
        assert_eq!(told.expect("not told").code(), Code::LeaseLost);
    }
    // The next acquire of that TTL gets a new etcd lease.
    let fresh = store.locks("s").ttl(ttl).acquire("a").await.unwrap();
    let now = etcd_leases(&address).await;
    assert_eq!(now.len(), 1);
    assert_ne!(now[0], shared[0]);
    fresh.release().await.unwrap();
}

#[tokio::test]
async fn renewal_keeps_a_lease_past_its_ttl() {
    let address = address("keepalive");
    let store = connect(&address).await;
    let locks = store.locks("k").ttl(Duration::from_secs(1));
    let lease = locks.acquire("k").await.unwrap();
    tokio::time::sleep(Duration::from_millis(3500)).await;
    assert!(lease.is_held());
    let other = connect(&address).await.locks("k");
    assert!(other.try_acquire("k").await.unwrap().is_none());
    lease.renew().await.unwrap();
    lease.release().await.unwrap();
    assert!(other.try_acquire("k").await.unwrap().is_some());
}

#[tokio::test]
async fn a_ttl_below_a_second_is_rounded_up_to_what_etcd_grants() {
    let address = address("round-up");
    let store = connect(&address).await;
    let lease = store
        .locks("r")
        .ttl(100 * MS)
        .renew(false)
        .acquire("k")
        .await
        .unwrap();
    let status = store.status().await.unwrap();
    assert_eq!(status.held.len(), 1);
    assert!(status.held[0].ttl_ms >= 1000, "{:?}", status.held[0]);
    assert_eq!(status.held[0].fence, Some(lease.fence()));
}

#[tokio::test]
async fn an_entry_deleted_behind_the_store_is_a_lost_lease() {
    let address = address("deleted");
    let store = connect(&address).await;
    let lease = store.locks("d").acquire("k").await.unwrap();
    let root = format!("/{}/lock/", prefix_of(&address));
    let options = etcd_client::DeleteOptions::new().with_prefix();
    raw().await.delete(root, Some(options)).await.unwrap();
    let reason = tokio::time::timeout(Duration::from_secs(5), lease.lost())
        .await
        .expect("the holder was not told");
    assert_eq!(reason.code(), Code::LeaseLost);
    assert!(!lease.is_held());
}

#[tokio::test]
async fn the_epoch_lives_in_etcd_and_raising_it_raises_every_later_fence() {
    let address = address("epoch");
    let store = connect(&address).await;
    let before = store.locks("e").acquire("k").await.unwrap();
    let key = format!("/{}/epoch", prefix_of(&address));
    let kept = raw().await.get(key, None).await.unwrap();
    let kept: u64 = kept.kvs()[0].value_str().unwrap().parse().unwrap();
    assert_eq!(before.fence().epoch(), kept);
    before.release().await.unwrap();

    let raised = tinystore::etcd::bump_epoch(&address).await.unwrap();
    assert!(raised > kept);
    let after = store.locks("e").acquire("k").await.unwrap();
    assert_eq!(after.fence().epoch(), raised);
    assert!(after.fence() > before.fence());
    // A second client sees the same epoch; it was set once.
    assert_eq!(
        connect(&address).await.status().await.unwrap().epoch,
        raised
    );
}

#[tokio::test]
async fn close_ends_leases_and_waits_and_takes_their_entries() {
    let address = address("close");
    let store = connect(&address).await;
    let locks = store.locks("c");
    let lease = locks.acquire("k").await.unwrap();
    let waiter = waiter(&locks, "k", None);
    assert_eq!(entries_become(&address, 2).await, 2);
    store.close().await.unwrap();
    assert_eq!(waiter.await.unwrap().unwrap_err().code(), Code::Closed);
    assert!(!lease.is_held());
    assert_eq!(locks.acquire("k").await.unwrap_err().code(), Code::Closed);
    assert_eq!(entries_become(&address, 0).await, 0);
}

#[tokio::test]
async fn bad_addresses_are_invalid_and_a_cluster_nobody_answers_is_unavailable() {
    for bad in [
        "etcd://127.0.0.1:2379",
        "etcd://nohost/p",
        "etcd://127.0.0.1:1/a//b",
    ] {
        let err = Store::connect(bad).await.unwrap_err();
        assert_eq!(err.code(), Code::Invalid, "{bad}: {err}");
    }
    let err = Store::connect("etcd://127.0.0.1:1/p").await.unwrap_err();
    assert_eq!(err.code(), Code::Unavailable, "{err}");
    assert!(err.message().contains("epoch"), "{err}");
    let store = connect(&address("backup")).await;
    let err = store.backup("/tmp/none").await.unwrap_err();
    assert_eq!(err.code(), Code::Invalid);
}

#[tokio::test]
async fn a_waiter_whose_predecessor_gives_up_keeps_waiting_for_the_holder() {
    let address = address("predecessor");
    let store = connect(&address).await;
    let locks = store.locks("p");
    let holder = locks.acquire("k").await.unwrap();
    let quitter = waiter(&locks, "k", Some(400 * MS));
    assert_eq!(entries_become(&address, 2).await, 2);
    let patient = waiter(&locks, "k", None);
    assert_eq!(entries_become(&address, 3).await, 3);
    assert_eq!(quitter.await.unwrap().unwrap_err().code(), Code::Timeout);
    // The entry ahead of the patient waiter went away, but the key is held.
    assert_eq!(entries_become(&address, 2).await, 2);
    tokio::time::sleep(200 * MS).await;
    assert!(!patient.is_finished(), "granted while the key was held");
    holder.release().await.unwrap();
    let lease = patient.await.unwrap().unwrap();
    assert!(lease.fence() > holder.fence());
}

#[tokio::test]
async fn the_test_kit_is_refused_on_etcd_and_its_lease_stays_held() {
    let store = connect(&address("kit")).await;
    let lease = store.locks("jobs").acquire("report").await.unwrap();
    let errors = [
        tinystore::testing::advance(&store, Duration::from_secs(60))
            .await
            .unwrap_err(),
        tinystore::testing::expire(&lease).await.unwrap_err(),
        tinystore::testing::expire_key(&store, "jobs", "report")
            .await
            .unwrap_err(),
    ];
    for err in errors {
        assert_eq!(err.code(), Code::Invalid, "{err}");
        assert!(err.to_string().contains("not a test store"), "{err}");
    }
    assert!(lease.is_held());
    assert!(!store.status().await.unwrap().testing);
    lease.release().await.unwrap();
}
