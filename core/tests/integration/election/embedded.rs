//! Elections on an embedded store (a real store directory), with tokio's
//! paused clock: first come first served campaigns, terms that rise with
//! every leader and across reopens, resign and run-out hand-overs, the lost
//! signal, `lead`, `leader()`, and observers that see every change in order.
//!
//! Over a connection: core/tests/integration/election/remote.rs; several processes
//! campaigning through `tinystore serve`: cli/tests/integration/elect/processes.rs.

use futures_util::StreamExt;
use std::time::Duration;
use tinystore::binding::StartCampaign;
use tinystore::{Code, Election, Leader, Leadership, Observer, Options, Store};
use tokio::time::{advance, sleep, timeout};

const MS: Duration = Duration::from_millis(1);

async fn store() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path().join("store")).await.unwrap();
    (dir, store)
}

/// The next change an observer sees (it must see one without waiting).
async fn next(observer: &mut Observer) -> Option<Leader> {
    timeout(MS, observer.next())
        .await
        .expect("a change was pushed")
        .expect("the observer goes on")
        .expect("a change, not an error")
}

/// Asserts the observer has nothing more to tell now.
async fn quiet(observer: &mut Observer) {
    if let Ok(extra) = timeout(MS, observer.next()).await {
        panic!("no change was due, but the observer saw {extra:?}");
    }
}

fn seen(leadership: &Leadership) -> Option<Leader> {
    Some(leadership.leader())
}

/// Campaigns for `value` in a task of its own, so that it waits in line.
fn campaign_later(
    election: &Election,
    value: &str,
) -> tokio::task::JoinHandle<tinystore::Result<Leadership>> {
    let (election, value) = (election.clone(), value.to_string());
    tokio::spawn(async move { election.campaign(&value).await })
}

#[tokio::test(start_paused = true)]
async fn the_first_campaigner_leads_and_the_second_waits_until_it_resigns() {
    let (_dir, store) = store().await;
    let election = store.election("scheduler");
    assert_eq!(election.leader().await.unwrap(), None);
    let a = election.campaign("worker-a").await.unwrap();
    assert_eq!((a.name(), a.value()), ("scheduler", "worker-a"));
    assert!(a.is_held());
    assert_eq!(election.leader().await.unwrap(), seen(&a));

    let b = campaign_later(&election, "worker-b");
    sleep(Duration::from_secs(60)).await;
    assert!(!b.is_finished(), "b waits while a leads");
    assert_eq!(election.leader().await.unwrap(), seen(&a));

    a.resign().await.unwrap();
    let b = timeout(MS, b).await.expect("handed over at once").unwrap();
    let b = b.unwrap();
    assert!(b.fence() > a.fence(), "a later leader has a larger term");
    assert_eq!(election.leader().await.unwrap(), seen(&b));
    assert!(!a.is_held());
    assert!(a.lost_reason().is_none(), "a resigned; it did not lose");
    a.resign().await.expect("resigning twice does nothing");
}

#[tokio::test(start_paused = true)]
async fn campaigns_are_served_first_come_first_served_with_rising_terms() {
    let (_dir, store) = store().await;
    let election = store.election("fifo");
    let first = election.campaign("0").await.unwrap();
    let mut waiting = Vec::new();
    for n in 1..=5 {
        waiting.push(campaign_later(&election, &n.to_string()));
        sleep(MS).await; // each joins the line after the one before
    }
    let mut term = first.fence();
    drop(first); // dropping a leadership resigns
    for (n, campaign) in waiting.into_iter().enumerate() {
        let leader = timeout(MS, campaign).await.unwrap().unwrap().unwrap();
        assert_eq!(leader.value(), (n + 1).to_string());
        assert!(leader.fence() > term);
        term = leader.fence();
    }
}

#[tokio::test(start_paused = true)]
async fn a_leader_that_stops_renewing_runs_out_and_the_next_leads_with_a_larger_term() {
    let (_dir, store) = store().await;
    let election = store
        .election("compactor")
        .ttl(Duration::from_millis(100))
        .renew(false);
    let a = election.campaign("a").await.unwrap();
    let mut observer = election.observe().await.unwrap();
    assert_eq!(next(&mut observer).await, seen(&a));
    let b = campaign_later(&election, "b");
    sleep(Duration::from_millis(50)).await;
    assert!(!b.is_finished());
    assert!(a.is_held());

    advance(Duration::from_millis(60)).await;
    let lost = timeout(MS, a.lost()).await.expect("a is told at once");
    assert_eq!(lost.code(), Code::LeaseLost, "{lost}");
    assert!(lost.message().contains("election compactor"), "{lost}");
    assert!(!a.is_held());
    let b = timeout(MS, b).await.unwrap().unwrap().unwrap();
    assert!(b.fence() > a.fence());
    assert_eq!(next(&mut observer).await, seen(&b), "a straight to b");
    assert_eq!(election.leader().await.unwrap(), seen(&b));
    assert_eq!(a.resign().await.unwrap_err().code(), Code::LeaseLost);
    assert_eq!(a.renew().await.unwrap_err().code(), Code::LeaseLost);
    quiet(&mut observer).await;
}

#[tokio::test(start_paused = true)]
async fn a_renewed_leader_keeps_leading_past_its_ttl() {
    let (_dir, store) = store().await;
    let election = store.election("kept").ttl(Duration::from_millis(30));
    let a = election.campaign("a").await.unwrap();
    sleep(Duration::from_secs(10)).await;
    assert!(a.is_held());
    assert_eq!(election.leader().await.unwrap(), seen(&a));
}

#[tokio::test(start_paused = true)]
async fn observers_see_every_change_in_order_with_no_gap_and_no_repeat() {
    let (_dir, store) = store().await;
    let election = store.election("leader");
    let mut early = election.observe().await.unwrap();
    assert_eq!(next(&mut early).await, None, "first, the state now");

    let a = election.campaign("a").await.unwrap();
    assert_eq!(next(&mut early).await, seen(&a));
    let mut late = election.observe().await.unwrap();
    assert_eq!(next(&mut late).await, seen(&a), "first, the leader now");

    a.resign().await.unwrap();
    // Nobody waited: nobody leads, until b campaigns.
    assert_eq!(election.leader().await.unwrap(), None);
    let b = election.campaign("b").await.unwrap();
    let c = campaign_later(&election, "c");
    sleep(MS).await;
    b.resign().await.unwrap();
    let c = timeout(MS, c).await.unwrap().unwrap().unwrap();
    assert_eq!(election.leader().await.unwrap(), seen(&c));
    drop(c);
    assert_eq!(election.leader().await.unwrap(), None);

    // Observers read only now, and still see every change, in order.
    for observer in [&mut early, &mut late] {
        assert_eq!(next(observer).await, None, "a resigned with nobody in line");
        assert_eq!(next(observer).await, seen(&b));
        let c = next(observer)
            .await
            .expect("c led after b, with no None between");
        assert_eq!(c.value(), "c");
        assert!(c.fence() > b.fence());
        assert_eq!(next(observer).await, None);
        quiet(observer).await;
    }
}

#[tokio::test(start_paused = true)]
async fn a_slow_observer_sees_a_thousand_changes_and_one_further_behind_ends_with_limit() {
    let (_dir, store) = store().await;
    let election = store.election("busy");
    let mut slow = election.observe().await.unwrap();
    assert_eq!(next(&mut slow).await, None);
    // 500 leaders, each followed by nobody: 1,000 changes, within the buffer.
    let mut terms = Vec::new();
    for n in 0..500 {
        let leader = election.campaign(&n.to_string()).await.unwrap();
        terms.push(leader.fence());
        leader.resign().await.unwrap();
    }
    assert_eq!(tinystore::OBSERVE_BUFFER, 1024);
    for (n, term) in terms.iter().enumerate() {
        let leader = next(&mut slow).await.expect("a leader");
        assert_eq!((leader.value(), leader.fence()), (&*n.to_string(), *term));
        assert_eq!(next(&mut slow).await, None);
    }
    quiet(&mut slow).await;

    // More changes than the buffer holds: the observer ends with `limit`.
    for n in 0..tinystore::OBSERVE_BUFFER {
        drop(election.campaign(&n.to_string()).await.unwrap());
    }
    let err = slow.next().await.unwrap().unwrap_err();
    assert_eq!(err.code(), Code::Limit, "{err}");
    assert!(err.message().contains("election busy"), "{err}");
    assert!(err.message().contains("1024"), "{err}");
    assert!(slow.next().await.is_none(), "it ended");
    // Observing again starts from now.
    let mut again = election.observe().await.unwrap();
    assert_eq!(next(&mut again).await, None);
}

#[tokio::test(start_paused = true)]
async fn a_given_up_campaign_never_leads_and_never_shows() {
    let (_dir, store) = store().await;
    let election = store.election("patient");
    let a = election.campaign("a").await.unwrap();
    let mut observer = election.observe().await.unwrap();
    assert_eq!(next(&mut observer).await, seen(&a));
    let waited = election
        .campaign_with(
            "b",
            Options {
                wait: Some(Duration::from_millis(50)),
                ..Options::default()
            },
        )
        .await
        .unwrap_err();
    assert_eq!(waited.code(), Code::Timeout, "{waited}");
    let dropped = campaign_later(&election, "c");
    sleep(MS).await;
    dropped.abort();
    let _ = dropped.await;
    a.resign().await.unwrap();
    assert_eq!(election.leader().await.unwrap(), None);
    assert_eq!(next(&mut observer).await, None);
    quiet(&mut observer).await;
}

#[tokio::test(start_paused = true)]
async fn lead_runs_the_body_while_leading_and_says_how_it_ended() {
    let (_dir, store) = store().await;
    let election = store.election("job");
    let term = election
        .lead("me", async |leadership| -> tinystore::Result<_> {
            assert!(leadership.is_held());
            assert_eq!(leadership.value(), "me");
            Ok(leadership.fence())
        })
        .await
        .unwrap();
    assert_eq!(election.leader().await.unwrap(), None, "resigned after");
    assert!(term.count() > 0);

    // The body's own error wins.
    let err = election
        .lead("me", async |_| -> tinystore::Result<()> {
            Err(tinystore::Error::new(Code::Invalid, "the body's own"))
        })
        .await
        .unwrap_err();
    assert!(err.message().contains("the body's own"), "{err}");

    // A leadership that ran out during the body: lease_lost.
    let short = election.clone().ttl(Duration::from_millis(20)).renew(false);
    let err = short
        .lead("me", async |leadership| -> tinystore::Result<()> {
            sleep(Duration::from_millis(30)).await;
            assert!(!leadership.is_held());
            Ok(())
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::LeaseLost, "{err}");

    // The store closed during the body: closed.
    let err = election
        .lead("me", async |_| -> tinystore::Result<()> {
            store.close().await.unwrap();
            Ok(())
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::Closed, "{err}");
}

#[tokio::test(start_paused = true)]
async fn a_value_is_text_of_at_most_1024_bytes_and_a_name_follows_the_lock_rules() {
    let (_dir, store) = store().await;
    let election = store.election("v");
    let most = "x".repeat(tinystore::MAX_VALUE_BYTES);
    let leader = election.campaign(&most).await.unwrap();
    assert_eq!(leader.value(), most);
    drop(leader);
    let err = election.campaign(&"x".repeat(1025)).await.unwrap_err();
    assert_eq!(err.code(), Code::Invalid);
    assert!(
        err.message()
            .contains("value of election v must be at most 1024 bytes, not 1025"),
        "{err}"
    );
    let empty = election.campaign("").await.expect("an empty value is text");
    drop(empty);

    let bad = store.election("a b");
    for err in [
        bad.campaign("v").await.unwrap_err(),
        bad.leader().await.unwrap_err(),
        bad.observe().await.unwrap_err(),
    ] {
        assert_eq!(err.code(), Code::Invalid);
        assert!(err.message().contains("name \"a b\" has ' '"), "{err}");
    }
}

#[tokio::test(start_paused = true)]
async fn an_election_and_a_lock_group_of_one_name_are_apart_and_share_the_counter() {
    let (_dir, store) = store().await;
    let lease = store.locks("jobs").acquire("k").await.unwrap();
    let permit = store.semaphore("jobs", 1).acquire("k").await.unwrap();
    let leader = store.election("jobs").campaign("k").await.unwrap();
    assert!(lease.is_held() && permit.is_held() && leader.is_held());
    assert!(
        leader.fence() > lease.fence(),
        "one counter for fences and terms"
    );
    assert_eq!(leader.fence().epoch(), lease.fence().epoch());
    let next = store.locks("jobs").acquire("k2").await.unwrap();
    assert!(next.fence() > leader.fence());
}

#[tokio::test(start_paused = true)]
async fn closing_the_store_ends_leaders_campaigns_and_observers_with_closed() {
    let (_dir, store) = store().await;
    let election = store.election("closing");
    let a = election.campaign("a").await.unwrap();
    let b = campaign_later(&election, "b");
    let mut observer = election.observe().await.unwrap();
    assert_eq!(next(&mut observer).await, seen(&a));
    sleep(MS).await;
    store.close().await.unwrap();

    let err = timeout(MS, b).await.unwrap().unwrap().unwrap_err();
    assert_eq!(err.code(), Code::Closed, "{err}");
    let err = timeout(MS, observer.next()).await.unwrap().unwrap();
    assert_eq!(err.unwrap_err().code(), Code::Closed);
    assert!(observer.next().await.is_none(), "the observer ended");
    assert_eq!(timeout(MS, a.lost()).await.unwrap().code(), Code::Closed);
    assert!(!a.is_held());
    assert_eq!(a.resign().await.unwrap_err().code(), Code::Closed);
    assert_eq!(election.leader().await.unwrap_err().code(), Code::Closed);
    assert_eq!(election.observe().await.unwrap_err().code(), Code::Closed);
    assert_eq!(
        election.campaign("c").await.unwrap_err().code(),
        Code::Closed
    );
}

#[tokio::test(start_paused = true)]
async fn terms_after_a_reopen_are_larger_than_before() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("store");
    let mut last = None;
    for _ in 0..3 {
        let store = Store::open(&path).await.unwrap();
        let election = store.election("restart");
        let leader = election.campaign("me").await.unwrap();
        assert!(
            Some(leader.fence()) > last,
            "{:?} after {last:?}",
            leader.fence()
        );
        let lease = store.locks("restart").acquire("k").await.unwrap();
        assert!(lease.fence() > leader.fence());
        last = Some(lease.fence());
        store.close().await.unwrap();
    }
}

/// Lost callbacks run on a thread of the core's, so this test runs on the
/// real clock.
#[tokio::test]
async fn on_lost_tells_a_leader_that_ran_out_but_not_one_that_resigned() {
    let (_dir, store) = store().await;
    let election = store
        .election("told")
        .ttl(Duration::from_millis(20))
        .renew(false);
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let resigned = election.campaign("a").await.unwrap();
    let tx2 = tx.clone();
    resigned.on_lost(move |reason| tx2.send(("a", reason)).unwrap());
    resigned.resign().await.unwrap();
    let ran_out = election.campaign("b").await.unwrap();
    ran_out.on_lost(move |reason| tx.send(("b", reason)).unwrap());
    let (who, reason) = timeout(Duration::from_secs(5), rx.recv())
        .await
        .unwrap()
        .unwrap();
    assert_eq!((who, reason.code()), ("b", Code::LeaseLost));
}

#[test]
fn the_blocking_api_campaigns_leads_and_observes() {
    let dir = tempfile::tempdir().unwrap();
    let store = tinystore::blocking::Store::open(dir.path().join("store")).unwrap();
    let election = store.election("blocking");
    let mut observer = election.observe().unwrap();
    assert_eq!(observer.next().unwrap().unwrap(), None);
    let term = election
        .lead("me", |leadership| -> tinystore::Result<_> {
            assert!(leadership.is_held());
            assert_eq!(election.leader()?, Some(leadership.as_async().leader()));
            Ok(leadership.fence())
        })
        .unwrap();
    let led = observer.next().unwrap().unwrap().unwrap();
    assert_eq!((led.value(), led.fence()), ("me", term));
    assert_eq!(observer.next().unwrap().unwrap(), None);
    let next = election.campaign("again").unwrap();
    assert!(next.fence() > term);
    assert_eq!(
        observer.next().unwrap().unwrap().map(|l| l.fence),
        Some(next.fence())
    );
    store.close().unwrap();
    assert_eq!(observer.next().unwrap().unwrap_err().code(), Code::Closed);
    assert!(observer.next().is_none());
    assert_eq!(next.resign().unwrap_err().code(), Code::Closed);
}

#[tokio::test(start_paused = true)]
async fn observing_starts_at_once_is_shared_and_closes_from_anywhere() {
    let (_dir, store) = store().await;
    let election = store.election("shared");
    let observing = election.observing();
    // Subscribed on return: a leader made before the first `next` is seen.
    let a = election.campaign("a").await.unwrap();
    let other = observing.clone();
    assert_eq!(observing.next().await.unwrap().unwrap(), None);
    assert_eq!(other.next().await.unwrap().unwrap(), seen(&a));
    // A `next` under way ends at once when another clone closes it.
    let pending = tokio::spawn({
        let observing = observing.clone();
        async move { observing.next().await }
    });
    sleep(MS).await;
    other.close();
    assert!(timeout(MS, pending).await.unwrap().unwrap().is_none());
    assert!(observing.next().await.is_none(), "it stays ended");
    a.resign().await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn observing_tells_why_it_could_not_start_then_ends() {
    let (_dir, store) = store().await;
    let bad = store.election("no spaces").observing();
    assert_eq!(bad.next().await.unwrap().unwrap_err().code(), Code::Invalid);
    assert!(bad.next().await.is_none());
    store.close().await.unwrap();
    let closed = store.election("late").observing();
    assert_eq!(
        closed.next().await.unwrap().unwrap_err().code(),
        Code::Closed
    );
    assert!(closed.next().await.is_none());
}
