//! The network between etcd's members is cut, by the test itself: each of
//! the three members lives in a network namespace of its own, on a bridge
//! (tests/etcd_netns.sh), and one member is cut off from the other two, both
//! ways, without a word, while clients can still reach it. A member in the
//! minority grants nothing and its clients fail over to the majority; with
//! the leader cut off, leases on the majority side are kept or lost as
//! their TTL says, never held twice; after healing, fences keep rising.
#![cfg(feature = "etcd")]

use crate::etcd::support::netns::Cluster;
use crate::etcd::support::prefix;
use std::time::{Duration, Instant};
use tinystore::{Code, Fence, Lease, Store};

const TTL: Duration = Duration::from_secs(3);
/// How late a loss may be told after the TTL, on a loaded machine.
const MARGIN: Duration = Duration::from_millis(1000);

async fn connect(address: &str) -> Store {
    Store::connect(address).await.unwrap()
}

/// Holds `key` on `store` with the test's TTL, renewed.
async fn hold(store: &Store, key: &str) -> Lease {
    store.locks("p").ttl(TTL).acquire(key).await.unwrap()
}

/// Acquires `key` on `store`, retrying while etcd answers unavailable (a
/// cut just healed), for at most four TTLs.
async fn acquire_once_healed(store: &Store, key: &str) -> Lease {
    let start = Instant::now();
    loop {
        match store.locks("p").ttl(TTL).acquire(key).await {
            Ok(lease) => return lease,
            Err(err) if err.code() == Code::Unavailable && start.elapsed() < 4 * TTL => {
                tokio::time::sleep(Duration::from_millis(200)).await
            }
            Err(err) => panic!("no {key} {:?} after the heal: {err}", start.elapsed()),
        }
    }
}

/// The other two members, 1..3.
fn others(member: usize) -> Vec<usize> {
    (1..=3).filter(|&m| m != member).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_member_cut_off_in_the_minority_grants_nothing_and_its_clients_fail_over() {
    let cluster = Cluster::from_env();
    let leader = cluster.leader().await;
    let minority = others(leader)[0];
    let prefix = prefix("minority");
    // Talks to the minority member first, then the others.
    let mut order = vec![minority];
    order.extend(others(minority));
    let failing_over = connect(&cluster.address(&order, &prefix)).await;
    // Reaches only the member that will be cut off.
    let only_minority = connect(&cluster.address(&[minority], &prefix)).await;
    let majority = connect(&cluster.address(&others(minority), &prefix)).await;

    let held = vec![
        hold(&failing_over, "a").await,
        hold(&failing_over, "b").await,
    ];
    let mut last: Fence = held.iter().map(|l| l.fence()).max().unwrap();

    let cut = cluster.isolate(minority);
    let start = Instant::now();
    // The minority member grants nothing: a free key asked of it alone is
    // refused (unavailable) or never answered.
    let tried =
        tokio::time::timeout(2 * TTL, only_minority.locks("p").ttl(TTL).acquire("free")).await;
    match tried {
        Ok(Ok(lease)) => panic!(
            "the member cut off in the minority granted free with fence {}",
            lease.fence()
        ),
        Ok(Err(err)) => assert_eq!(err.code(), Code::Unavailable, "{err}"),
        Err(_) => eprintln!("the minority member never answered within {:?}", 2 * TTL),
    }
    eprintln!("minority asked for {:?}", start.elapsed());

    // Its other clients fail over: their leases are renewed through the
    // majority past two TTLs, and new grants come from the majority.
    tokio::time::sleep((2 * TTL + MARGIN).saturating_sub(start.elapsed())).await;
    for (key, lease) in ["a", "b"].iter().zip(&held) {
        assert!(
            lease.is_held(),
            "{key} was lost: renewals did not fail over ({:?})",
            lease.lost_reason()
        );
        assert!(
            majority
                .locks("p")
                .try_acquire(*key)
                .await
                .unwrap()
                .is_none(),
            "{key} was free on the majority while held"
        );
    }
    let c = hold(&failing_over, "c").await;
    assert!(c.fence() > last, "fence {} after {last}", c.fence());
    last = c.fence();
    for lease in held.into_iter().chain([c]) {
        lease.release().await.unwrap();
    }

    // Healed, the member that was cut off grants again, with larger fences.
    cut.heal();
    let again = acquire_once_healed(&only_minority, "free").await;
    assert!(again.fence() > last, "fence {} after {last}", again.fence());
    last = again.fence();
    again.release().await.unwrap();
    let next = hold(&majority, "a").await;
    assert!(next.fence() > last, "fence {} after {last}", next.fence());
    next.release().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_leader_cut_off_while_leases_are_held_never_lets_a_key_be_held_twice() {
    let cluster = Cluster::from_env();
    let leader = cluster.leader().await;
    let prefix = prefix("leader");
    let mut order = vec![leader];
    order.extend(others(leader));
    // Talks to the leader first: its renewals must move on to the majority.
    let on_leader = connect(&cluster.address(&order, &prefix)).await;
    let majority = connect(&cluster.address(&others(leader), &prefix)).await;
    let checker = connect(&cluster.address(&others(leader), &prefix)).await;

    let renewed = vec![
        ("a", hold(&on_leader, "a").await),
        ("b", hold(&on_leader, "b").await),
        ("c", hold(&majority, "c").await),
    ];
    // One lease not renewed: it must run out at its TTL, be told, and only
    // then be granted to another.
    let unrenewed = majority
        .locks("p")
        .ttl(TTL)
        .renew(false)
        .acquire("d")
        .await
        .unwrap();
    let granted_d = Instant::now();
    let mut last = renewed
        .iter()
        .map(|(_, l)| l.fence())
        .chain([unrenewed.fence()])
        .max()
        .unwrap();
    // The holder's view of d: the moment it is told d is lost.
    let told_d = tokio::spawn(async move {
        unrenewed.lost().await;
        Instant::now()
    });

    let cut = cluster.isolate(leader);
    let start = Instant::now();
    let mut taken_d: Option<(Instant, Lease)> = None;
    // For two TTLs and a margin, the checker keeps trying every key.
    while start.elapsed() < 2 * TTL + MARGIN {
        for (key, lease) in &renewed {
            let got = checker.locks("p").try_acquire(*key).await;
            match got {
                Ok(Some(other)) => panic!(
                    "{key} granted again (fence {}) while held with fence {} ({:?} after the cut)",
                    other.fence(),
                    lease.fence(),
                    start.elapsed()
                ),
                Ok(None) => {}
                // The majority may be electing its new leader.
                Err(err) => assert_eq!(err.code(), Code::Unavailable, "{err}"),
            }
        }
        if taken_d.is_none() {
            if let Ok(Some(lease)) = checker.locks("p").ttl(TTL).try_acquire("d").await {
                taken_d = Some((Instant::now(), lease));
            }
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    for (key, lease) in &renewed {
        assert!(
            lease.is_held(),
            "{key} was lost with its renewals on ({:?})",
            lease.lost_reason()
        );
    }
    let told_d = tokio::time::timeout(MARGIN, told_d)
        .await
        .expect("the unrenewed lease was never told it ran out")
        .unwrap();
    assert!(
        told_d <= granted_d + TTL + MARGIN,
        "the unrenewed lease was told {:?} after its grant, past its TTL",
        told_d - granted_d
    );
    let (taken_at, taken) = taken_d.expect("d was never granted again after it ran out");
    assert!(
        told_d < taken_at,
        "d granted again {:?} before its holder was told",
        told_d - taken_at
    );
    assert!(taken.fence() > last, "fence {} after {last}", taken.fence());
    last = taken.fence();
    taken.release().await.unwrap();
    for (_, lease) in renewed {
        lease.release().await.unwrap();
    }

    // Healed, the old leader's side grants again with larger fences.
    cut.heal();
    let again = acquire_once_healed(&on_leader, "a").await;
    assert!(again.fence() > last, "fence {} after {last}", again.fence());
    again.release().await.unwrap();
}
