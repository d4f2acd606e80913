//! Members of the etcd cluster die while tinystore's locks are in use:
//! locks keep working with one member killed, leases held through the
//! leader's death stay held, and so do a leadership and its observers. Run one at a time (`--test-threads=1`): each
//! kills a member and starts it again.
#![cfg(feature = "etcd")]

use crate::etcd::support::{address, entries_become, kill, leader};
use futures_util::StreamExt;
use std::time::Duration;
use tinystore::{Fence, Store};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn locks_keep_working_with_one_member_killed() {
    let address = address("member-killed");
    let store = Store::connect(&address).await.unwrap();
    let locks = store.locks("m");
    let before = locks.acquire("k").await.unwrap().fence();

    // Clients take the key in turn; a member that does not lead dies
    // while they do, so that no election is needed.
    let dead = (leader().await % 3) + 1;
    let started = std::time::Instant::now();
    let mut fences: Vec<Fence> = vec![before];
    let mut clients = Vec::new();
    for _ in 0..4 {
        let store = Store::connect(&address).await.unwrap();
        clients.push(tokio::spawn(async move {
            let locks = store.locks("m");
            let mut mine = Vec::new();
            for _ in 0..10 {
                let lease = locks.acquire("k").await.unwrap();
                mine.push(lease.fence());
                tokio::time::sleep(Duration::from_millis(20)).await;
                lease.release().await.unwrap();
            }
            mine
        }));
    }
    tokio::time::sleep(Duration::from_millis(150)).await;
    let killed = kill(dead);
    for client in clients {
        fences.extend(client.await.unwrap());
    }
    eprintln!(
        "40 grants, member {dead} killed during them, in {:?}",
        started.elapsed()
    );
    drop(killed);
    let after = locks.acquire("k").await.unwrap();
    fences.sort();
    fences.dedup();
    assert_eq!(fences.len(), 41, "two grants had the same fence");
    assert_eq!(
        fences[0], before,
        "a grant had a fence below an earlier one"
    );
    assert!(after.fence() > fences[40]);
    assert_eq!(entries_become(&address, 1).await, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn leases_held_when_the_leader_dies_stay_held() {
    let address = address("leader-killed");
    let ttl = Duration::from_secs(2);
    let mut leases = Vec::new();
    let mut stores = Vec::new();
    for key in ["a", "b", "c"] {
        let store = Store::connect(&address).await.unwrap();
        leases.push(store.locks("l").ttl(ttl).acquire(key).await.unwrap());
        stores.push(store);
    }
    let old = leader().await;
    let _killed = kill(old);
    // Past two TTLs: only renewals through the new leader keep them.
    tokio::time::sleep(2 * ttl + Duration::from_millis(500)).await;
    let new = leader().await;
    assert_ne!(new, old);
    for lease in &leases {
        assert!(lease.is_held(), "{lease:?} was lost with the leader");
    }
    let other = Store::connect(&address).await.unwrap().locks("l");
    for key in ["a", "b", "c"] {
        assert!(
            other.try_acquire(key).await.unwrap().is_none(),
            "{key} was free"
        );
    }
    let last = leases.iter().map(|l| l.fence()).max().unwrap();
    for lease in &leases {
        lease.release().await.unwrap();
    }
    let next = other.acquire("a").await.unwrap();
    assert!(next.fence() > last);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_leadership_and_its_observers_go_on_when_each_member_dies_in_turn() {
    let address = address("election-failover");
    let (store, watcher) = (
        Store::connect(&address).await.unwrap(),
        Store::connect(&address).await.unwrap(),
    );
    let mut changes = watcher.election("e").observe().await.unwrap();
    let mut next = async || {
        tokio::time::timeout(Duration::from_secs(30), changes.next())
            .await
            .expect("a change was pushed")
            .expect("the observer goes on")
            .expect("a change, not an error")
    };
    assert_eq!(next().await, None);
    let election = store.election("e").ttl(Duration::from_secs(5));
    let mut last = None;
    // Each member dies in turn (whichever the watch and the renewals were
    // on): the leadership stays held, and the observer misses nothing.
    for member in 1..=3 {
        let leadership = election.campaign(&format!("round-{member}")).await.unwrap();
        assert!(last.is_none_or(|l: Fence| leadership.fence() > l));
        assert_eq!(next().await, Some(leadership.leader()));
        let killed = kill(member);
        tokio::time::sleep(Duration::from_millis(1500)).await;
        assert!(leadership.is_held(), "lost with member {member} dead");
        leadership.resign().await.unwrap();
        assert_eq!(next().await, None);
        drop(killed);
        last = Some(leadership.fence());
    }
}
