//! The scenarios of the other ways to hold (read-write locks, weighted
//! permits, several keys at once, `max_hold`), written once against two
//! handles on one store (`a` and `b`: the same store, two clients of one
//! server, or two clients of one etcd cluster) and run on each backend.
#![allow(dead_code)]

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tinystore::{Code, Options, Store};

/// Waits until `store`'s status shows `waiters` callers waiting for `key`
/// of the group `name`; panics after 20 s.
pub async fn until_waiting(store: &Store, name: &str, key: &str, waiters: usize) {
    for _ in 0..2_000 {
        let status = store.status().await.unwrap();
        if status
            .waiting
            .iter()
            .any(|w| w.name == name && w.key == key && w.waiters == waiters)
        {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("{waiters} callers never showed waiting for {name}/{key}");
}

fn with_wait(ms: u64) -> Options {
    Options {
        wait: Some(Duration::from_millis(ms)),
        ..Options::default()
    }
}

/// Readers share a key; a writer waits for them, holds back the readers
/// that came after it, then holds the key alone with a fence larger than
/// the last writer's.
pub async fn readers_share_and_a_waiting_writer_holds_back_later_readers(a: &Store, b: &Store) {
    let (ra, rb) = (a.rw_locks("docs"), b.rw_locks("docs"));
    let first = ra.acquire_write("k").await.unwrap();
    let first_fence = first.fence();
    first.release().await.unwrap();
    let r1 = ra
        .try_acquire_read("k")
        .await
        .unwrap()
        .expect("a reader gets a free key");
    let r2 = rb
        .try_acquire_read("k")
        .await
        .unwrap()
        .expect("readers share");
    assert!(
        rb.try_acquire_write("k").await.unwrap().is_none(),
        "a writer waits for readers"
    );
    let writer = {
        let rb = rb.clone();
        tokio::spawn(async move { rb.acquire_write("k").await })
    };
    until_waiting(a, "docs", "k", 1).await;
    assert!(
        ra.try_acquire_read("k").await.unwrap().is_none(),
        "a reader after a waiting writer waits"
    );
    let late_reader = {
        let ra = ra.clone();
        tokio::spawn(async move { ra.acquire_read("k").await })
    };
    until_waiting(a, "docs", "k", 2).await;
    let status = a.status().await.unwrap();
    let readers: Vec<_> = status.held.iter().filter(|h| h.name == "docs").collect();
    assert_eq!(readers.len(), 2, "{status:?}");
    assert!(readers
        .iter()
        .all(|h| h.kind == "rwlock" && h.mode.as_deref() == Some("read") && h.fence.is_none()));
    r1.release().await.unwrap();
    assert!(
        !writer.is_finished() || r2.is_held(),
        "one reader still holds"
    );
    r2.release().await.unwrap();
    let written = writer.await.unwrap().unwrap();
    assert!(written.fence() > first_fence, "write fences rise");
    let status = a.status().await.unwrap();
    let held: Vec<_> = status.held.iter().filter(|h| h.name == "docs").collect();
    assert_eq!(held.len(), 1, "the writer holds alone: {status:?}");
    assert_eq!(held[0].mode.as_deref(), Some("write"));
    assert_eq!(held[0].fence, Some(written.fence()));
    assert!(ra.try_acquire_read("k").await.unwrap().is_none());
    written.release().await.unwrap();
    let reader = late_reader.await.unwrap().unwrap();
    assert!(reader.is_held());
    // A read-write lock, a lock and a semaphore of one name are apart.
    let lock = a.locks("docs").try_acquire("k").await.unwrap();
    assert!(
        lock.is_some(),
        "the lock group docs is not the rw group docs"
    );
}

/// A permit takes `weight` places, all or nothing, first come first
/// served: a heavy waiter holds back lighter callers behind it.
pub async fn weighted_permits_take_their_places_in_arrival_order(a: &Store, b: &Store) {
    let (sa, sb) = (a.semaphore("pool", 5), b.semaphore("pool", 5));
    let weight = |w: u32| Options {
        weight: Some(w),
        ..Options::default()
    };
    let three = sa.acquire_with("k", weight(3)).await.unwrap();
    assert!(
        sb.try_acquire_with("k", weight(3)).await.unwrap().is_none(),
        "3 + 3 > 5"
    );
    let two = sb
        .try_acquire_with("k", weight(2))
        .await
        .unwrap()
        .expect("3 + 2 fits");
    two.release().await.unwrap();
    let heavy = {
        let sb = sb.clone();
        tokio::spawn(async move { sb.acquire_with("k", weight(4)).await })
    };
    until_waiting(a, "pool", "k", 1).await;
    assert!(
        sa.try_acquire_with("k", weight(1)).await.unwrap().is_none(),
        "a light caller does not pass a heavy one waiting"
    );
    let status = a.status().await.unwrap();
    let held: Vec<_> = status.held.iter().filter(|h| h.name == "pool").collect();
    assert_eq!((held.len(), held[0].weight), (1, 3), "{status:?}");
    three.release().await.unwrap();
    let four = heavy.await.unwrap().unwrap();
    assert!(
        sa.try_acquire_with("k", weight(1)).await.unwrap().is_some(),
        "4 + 1 fits"
    );
    four.release().await.unwrap();
    for (w, says) in [
        (0, "weight 0 is out of range"),
        (6, "weight 6 is out of range"),
    ] {
        let err = sa.try_acquire_with("k", weight(w)).await.unwrap_err();
        assert_eq!(err.code(), Code::Invalid, "{err}");
        assert!(err.message().contains(says), "{err}");
    }
    let err = a
        .locks("pool")
        .acquire_with("k", weight(1))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::Invalid, "{err}");
    assert!(
        err.message().contains("only a semaphore takes one"),
        "{err}"
    );
}

/// `acquire_all` gives a lease per key, in the caller's order, or none:
/// a duplicate or an empty list is `invalid`, and a timeout leaves none.
pub async fn several_keys_are_taken_all_or_none(a: &Store, b: &Store) {
    let (la, lb) = (a.locks("accounts"), b.locks("accounts"));
    let both = la
        .acquire_all(["z", "a"], Options::default())
        .await
        .unwrap();
    assert_eq!(
        (both[0].key(), both[1].key()),
        ("z", "a"),
        "in the caller's order"
    );
    assert_ne!(both[0].fence(), both[1].fence());
    drop(both);
    for (keys, says) in [
        (vec!["x", "y", "x"], "names key \"x\" twice"),
        (vec![], "was given 0 keys"),
    ] {
        let err = la.acquire_all(keys, Options::default()).await.unwrap_err();
        assert_eq!(err.code(), Code::Invalid, "{err}");
        assert!(err.message().contains(says), "{err}");
    }
    let held_b = la.acquire("b").await.unwrap();
    let err = lb
        .acquire_all(["c", "b", "a"], with_wait(200))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::Timeout, "{err}");
    assert!(err.message().contains("all of 3 keys"), "{err}");
    // Nothing taken on the way is left held: "a" is free at once.
    let a_key = la.try_acquire_with("a", Options::default()).await.unwrap();
    assert!(a_key.is_some(), "a timed-out acquire_all left key a held");
    drop(a_key);
    held_b.release().await.unwrap();
    let total = la
        .hold_all(["p", "q"], Options::default(), async |leases| {
            Ok::<_, tinystore::Error>(leases.len())
        })
        .await
        .unwrap();
    assert_eq!(total, 2);
}

/// Many callers take overlapping sets of keys in random orders; none is
/// stuck (the whole ends within a bound) and no key is ever held twice.
pub async fn overlapping_sets_in_random_orders_never_deadlock(stores: &[Store]) {
    const KEYS: [&str; 6] = ["k0", "k1", "k2", "k3", "k4", "k5"];
    let holding: Arc<Mutex<HashMap<&'static str, usize>>> = Arc::default();
    let mut tasks = Vec::new();
    for caller in 0..8usize {
        let locks = stores[caller % stores.len()].locks("ring");
        let holding = holding.clone();
        tasks.push(tokio::spawn(async move {
            let mut seed = 0x9E37_79B9_7F4A_7C15u64 ^ (caller as u64 + 1);
            for _ in 0..15 {
                let mut keys: Vec<&'static str> = KEYS.to_vec();
                for i in (1..keys.len()).rev() {
                    seed = seed
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    keys.swap(i, (seed >> 33) as usize % (i + 1));
                }
                keys.truncate(2 + (seed >> 40) as usize % 3);
                let mine = keys.clone();
                let holding = holding.clone();
                locks
                    .hold_all(keys, Options::default(), async |leases| {
                        for key in &mine {
                            let mut h = holding.lock().unwrap();
                            let n = h.entry(key).or_default();
                            assert_eq!(*n, 0, "{key} held twice");
                            *n += 1;
                        }
                        tokio::task::yield_now().await;
                        tokio::time::sleep(Duration::from_millis(1)).await;
                        for key in &mine {
                            *holding.lock().unwrap().get_mut(key).unwrap() -= 1;
                        }
                        Ok::<_, tinystore::Error>(leases.len())
                    })
                    .await
                    .unwrap();
            }
        }));
    }
    let all = futures_util::future::join_all(tasks);
    let done = tokio::time::timeout(Duration::from_secs(120), all)
        .await
        .expect("callers were stuck: a deadlock");
    for task in done {
        task.unwrap();
    }
}

/// A renewed lease is kept past its TTL but not past its `max_hold`: it
/// then runs out and its holder is told why.
pub async fn max_hold_ends_a_renewed_lease(a: &Store) {
    let ttl = Duration::from_millis(200);
    let locks = a
        .locks("capped")
        .ttl(ttl)
        .max_hold(Duration::from_millis(1_000));
    let lease = locks.acquire("k").await.unwrap();
    tokio::time::sleep(ttl * 2 + ttl / 4).await;
    assert!(lease.is_held(), "renewed past its ttl");
    let lost = tokio::time::timeout(Duration::from_secs(20), lease.lost())
        .await
        .expect("a lease past its max_hold must run out");
    assert_eq!(lost.code(), Code::LeaseLost, "{lost}");
    assert!(lost.message().contains("max_hold"), "{lost}");
    assert!(!lease.is_held());
    let next = locks.acquire("k").await.unwrap();
    assert!(next.fence() > lease.fence());
    let err = a
        .locks("capped")
        .max_hold(Duration::from_millis(5))
        .acquire("k2")
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::Invalid, "{err}");
    assert!(err.message().contains("max_hold"), "{err}");
    // A hold whose lease reaches its max_hold ends with lease_lost.
    let ended = a
        .locks("capped")
        .ttl(ttl)
        .max_hold(Duration::from_millis(300))
        .hold("k3", async |_| {
            tokio::time::sleep(Duration::from_secs(30)).await;
            Ok::<_, tinystore::Error>(())
        })
        .await
        .unwrap_err();
    assert_eq!(ended.code(), Code::LeaseLost, "{ended}");
    // An election's leadership is capped the same way.
    let leadership = a
        .election("capped")
        .ttl(ttl)
        .max_hold(Duration::from_millis(300))
        .campaign("me")
        .await
        .unwrap();
    let lost = tokio::time::timeout(Duration::from_secs(20), leadership.lost())
        .await
        .expect("a leadership past its max_hold must end");
    assert_eq!(lost.code(), Code::LeaseLost, "{lost}");
}
