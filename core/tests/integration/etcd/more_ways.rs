//! Read-write locks, weighted permits, several keys at once and
//! `max_hold` on etcd (a cluster started by `make test-etcd`): the
//! scenarios every backend passes, over two clients of one store, then
//! what only etcd has: how each kind lies in etcd, and a lease past its
//! `max_hold` that its client's renewals of the shared etcd lease keep
//! alive for the others.
#![cfg(feature = "etcd")]

use crate::etcd::support::{address, prefix_of, raw};
use crate::more_ways::support::*;
use std::time::Duration;
use tinystore::{Code, Options, Store};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn etcd_read_write_locks_weights_several_keys_and_max_hold() {
    let address = address("more-ways");
    let a = Store::connect(&address).await.unwrap();
    let b = Store::connect(&address).await.unwrap();
    readers_share_and_a_waiting_writer_holds_back_later_readers(&a, &b).await;
    weighted_permits_take_their_places_in_arrival_order(&a, &b).await;
    several_keys_are_taken_all_or_none(&a, &b).await;
    let c = Store::connect(&address).await.unwrap();
    overlapping_sets_in_random_orders_never_deadlock(&[a.clone(), b.clone(), c]).await;
    max_hold_ends_a_renewed_lease(&a).await;
}

/// The entries under `/PREFIX/DIR/` and their values, in create order.
async fn entries_under(address: &str, dir: &str) -> Vec<(String, String)> {
    let root = format!("/{}/{dir}/", prefix_of(address));
    let options = etcd_client::GetOptions::new().with_prefix().with_sort(
        etcd_client::SortTarget::Create,
        etcd_client::SortOrder::Ascend,
    );
    let got = raw().await.get(root, Some(options)).await.unwrap();
    got.kvs()
        .iter()
        .map(|kv| {
            let key = kv.key_str().unwrap().to_string();
            (key, kv.value_str().unwrap().to_string())
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_kind_has_its_own_queues_and_an_entry_says_its_places_and_renewal() {
    let address = address("layout");
    let store = Store::connect(&address).await.unwrap();
    let writer = store.rw_locks("n").acquire_write("k").await.unwrap();
    let unrenewed = Options {
        ttl: Some(Duration::from_millis(1_500)),
        renew: Some(false),
        weight: Some(2),
        ..Options::default()
    };
    let permit = store
        .semaphore("n", 3)
        .acquire_with("k", unrenewed)
        .await
        .unwrap();
    let lock = store.locks("n").acquire("k").await.unwrap();
    let rw = entries_under(&address, "rwlock").await;
    assert_eq!(rw.len(), 1, "{rw:?}");
    assert!(rw[0].0.contains("/rwlock/n/k/"), "{rw:?}");
    assert!(rw[0].0.ends_with("-r"), "renewing: {rw:?}");
    // The places, then a line with the holder's data (its HOST:PID here).
    let data = tinystore::default_data();
    assert_eq!(
        rw[0].1,
        format!("1000000/1000000\n{data}"),
        "a writer takes every place"
    );
    let sem = entries_under(&address, "semaphore").await;
    assert!(!sem[0].0.ends_with("-r"), "not renewing: {sem:?}");
    assert_eq!(sem[0].1, format!("3/2\n{data}"));
    assert_eq!(
        entries_under(&address, "lock").await[0].1,
        format!("1\n{data}")
    );
    let status = store.status().await.unwrap();
    let of = |kind: &str| {
        status
            .held
            .iter()
            .find(|h| h.kind == kind)
            .unwrap_or_else(|| panic!("no {kind} held: {status:?}"))
    };
    let (w, p, l) = (of("rwlock"), of("semaphore"), of("lock"));
    assert_eq!(
        (w.mode.as_deref(), w.weight, w.fence),
        (Some("write"), 1_000_000, Some(writer.fence()))
    );
    assert_eq!((w.ttl_ms, w.renewing), (15_000, true), "{w:?}");
    assert_eq!((p.weight, p.fence, p.mode.as_deref()), (2, None, None));
    // The TTL etcd granted: 1.5 s rounded up to whole seconds.
    assert_eq!((p.ttl_ms % 1_000, p.renewing), (0, false), "{p:?}");
    assert!(p.ttl_ms >= 2_000 && p.left_ms <= p.ttl_ms, "{p:?}");
    assert_eq!((l.fence, l.renewing), (Some(lock.fence()), true));
    drop((writer, permit, lock));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lease_past_max_hold_goes_while_the_shared_etcd_lease_lives_and_renew_cannot_save_it() {
    let address = address("max-hold");
    let store = Store::connect(&address).await.unwrap();
    let locks = store.locks("m").ttl(Duration::from_secs(1));
    // Both on one shared etcd lease (one TTL): the other keeps it renewed.
    let other = locks.acquire("other").await.unwrap();
    let capped = locks
        .clone()
        .renew(false)
        .max_hold(Duration::from_millis(700))
        .acquire("k")
        .await
        .unwrap();
    // Renewed by hand while its max_hold allows, then refused.
    let mut renewals = 0;
    let refused = loop {
        match capped.renew().await {
            Ok(()) => renewals += 1,
            Err(err) => break err,
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert!(
        renewals >= 4,
        "renewed {renewals} times before its max_hold"
    );
    assert_eq!(refused.code(), Code::LeaseLost, "{refused}");
    assert!(refused.message().contains("max_hold"), "{refused}");
    let lost = tokio::time::timeout(Duration::from_secs(5), capped.lost())
        .await
        .expect("the holder is told");
    assert!(lost.message().contains("max_hold"), "{lost}");
    // Its entry is gone while the other's, on the same etcd lease, lives.
    let waiter = store
        .locks("m")
        .acquire_with(
            "k",
            Options {
                wait: Some(Duration::from_secs(5)),
                ..Options::default()
            },
        )
        .await
        .unwrap();
    assert!(waiter.fence() > capped.fence());
    assert!(other.is_held());
    let left = entries_under(&address, "lock").await;
    assert_eq!(left.len(), 2, "other and the new holder: {left:?}");
    assert_eq!(capped.release().await.unwrap_err().code(), Code::LeaseLost);
}

/// What the holders of one key are doing now, as their bodies see it.
#[derive(Default)]
struct Inside {
    readers: u32,
    writers: u32,
    /// Places taken of a semaphore key.
    used: u32,
    /// The fences of the writes, in the order their bodies began.
    write_fences: Vec<tinystore::Fence>,
}

/// The next number of a small generator, seeded per task.
fn next(seed: &mut u64) -> u64 {
    *seed = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    *seed >> 33
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn readers_writers_and_weights_from_three_clients_never_break_the_limit() {
    let address = address("contention");
    let mut stores = Vec::new();
    for _ in 0..3 {
        stores.push(Store::connect(&address).await.unwrap());
    }
    let inside = std::sync::Arc::new(std::sync::Mutex::new(Inside::default()));
    let mut tasks = Vec::new();
    for caller in 0..9u64 {
        let store = stores[caller as usize % 3].clone();
        let inside = inside.clone();
        tasks.push(tokio::spawn(async move {
            let (rw, pool) = (store.rw_locks("doc"), store.semaphore("pool", 5));
            let mut seed = caller + 1;
            for _ in 0..12 {
                let pause = Duration::from_millis(1 + next(&mut seed) % 4);
                if next(&mut seed).is_multiple_of(4) {
                    rw.hold_write("x", async |lease| {
                        {
                            let mut now = inside.lock().unwrap();
                            assert_eq!((now.readers, now.writers), (0, 0), "a writer among others");
                            now.writers += 1;
                            now.write_fences.push(lease.fence());
                        }
                        tokio::time::sleep(pause).await;
                        inside.lock().unwrap().writers -= 1;
                        Ok::<_, tinystore::Error>(())
                    })
                    .await
                    .unwrap();
                } else {
                    rw.hold_read("x", async |_| {
                        {
                            let mut now = inside.lock().unwrap();
                            assert_eq!(now.writers, 0, "a reader beside a writer");
                            now.readers += 1;
                        }
                        tokio::time::sleep(pause).await;
                        inside.lock().unwrap().readers -= 1;
                        Ok::<_, tinystore::Error>(())
                    })
                    .await
                    .unwrap();
                }
                let weight = 1 + (next(&mut seed) % 5) as u32;
                let options = Options {
                    weight: Some(weight),
                    ..Options::default()
                };
                pool.hold_with("k", options, async |_| {
                    {
                        let mut now = inside.lock().unwrap();
                        now.used += weight;
                        assert!(now.used <= 5, "{} places of 5 taken", now.used);
                    }
                    tokio::time::sleep(pause).await;
                    inside.lock().unwrap().used -= weight;
                    Ok::<_, tinystore::Error>(())
                })
                .await
                .unwrap();
            }
        }));
    }
    let all = futures_util::future::join_all(tasks);
    for task in tokio::time::timeout(Duration::from_secs(120), all)
        .await
        .expect("callers were stuck")
    {
        task.unwrap();
    }
    let fences = &inside.lock().unwrap().write_fences;
    assert!(!fences.is_empty());
    assert!(
        fences.windows(2).all(|w| w[0] < w[1]),
        "write fences rise in grant order: {fences:?}"
    );
}
