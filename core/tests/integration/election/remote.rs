//! Elections over a connection: the Rust client against a real server on a
//! Unix socket, in one process. The same calls as on an embedded store
//! (core/tests/integration/election/embedded.rs), and what only a connection can do: break.
//! Several processes campaigning are in cli/tests/integration/elect/processes.rs.

use crate::support::served::{served, through_proxy};
use futures_util::StreamExt;
use std::time::Duration;
use tinystore::{Code, Leader, Observer, Store, OBSERVE_BUFFER};
use tokio::net::UnixStream;
use tokio::time::timeout;

const LONG: Duration = Duration::from_secs(10);

/// Waits until `n` campaigns wait in line in the election `name`.
async fn in_line(store: &Store, name: &str, n: usize) {
    for _ in 0..2000 {
        let status = store.status().await.unwrap();
        if status
            .waiting
            .iter()
            .any(|w| w.name == name && w.waiters == n)
        {
            return;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    panic!("{n} campaigns never waited in line");
}

/// The next change the observer sees.
async fn next(observer: &mut Observer) -> Option<Leader> {
    timeout(LONG, observer.next())
        .await
        .expect("a change was pushed")
        .expect("the observer goes on")
        .expect("a change, not an error")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn campaigns_over_a_connection_lead_in_turn_and_observers_see_each_change() {
    let (_dir, server, address) = served().await;
    let a_store = Store::connect(&address).await.unwrap();
    let b_store = Store::connect(&address).await.unwrap();
    let watcher = Store::connect(&address).await.unwrap();
    let election = watcher.election("scheduler");
    let mut changes = election.observe().await.unwrap();
    assert_eq!(next(&mut changes).await, None);
    assert_eq!(election.leader().await.unwrap(), None);

    let a = a_store.election("scheduler").campaign("a").await.unwrap();
    assert_eq!((a.name(), a.value()), ("scheduler", "a"));
    assert_eq!(a.fence().epoch(), server.epoch());
    assert_eq!(next(&mut changes).await, Some(a.leader()));
    assert_eq!(election.leader().await.unwrap(), Some(a.leader()));

    // b waits in line; a's resign hands over at once, with no "nobody" between.
    let b_election = b_store.election("scheduler");
    let b = tokio::spawn(async move { b_election.campaign("b").await });
    in_line(&watcher, "scheduler", 1).await;
    assert!(!b.is_finished(), "b leads while a does");
    a.resign().await.unwrap();
    let b = timeout(LONG, b).await.unwrap().unwrap().unwrap();
    assert!(b.fence() > a.fence(), "a later leader's term is larger");
    assert_eq!(next(&mut changes).await, Some(b.leader()));

    // lead: campaigns, runs the body, resigns.
    let c_election = a_store.election("scheduler");
    let c = tokio::spawn(async move {
        c_election
            .lead("c", async |l| -> tinystore::Result<_> { Ok(l.leader()) })
            .await
    });
    in_line(&watcher, "scheduler", 1).await;
    b.resign().await.unwrap();
    let c = timeout(LONG, c).await.unwrap().unwrap().unwrap();
    assert!(c.fence > b.fence());
    assert_eq!(next(&mut changes).await, Some(c));
    assert_eq!(next(&mut changes).await, None);
    assert_eq!(election.leader().await.unwrap(), None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_leadership_over_a_connection_renews_itself_past_its_ttl() {
    let (_dir, _server, address) = served().await;
    let store = Store::connect(&address).await.unwrap();
    let election = store.election("renewed").ttl(Duration::from_millis(100));
    let leader = election.campaign("x").await.unwrap();
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert!(leader.is_held());
    assert_eq!(election.leader().await.unwrap(), Some(leader.leader()));

    let unrenewed = store
        .election("unrenewed")
        .ttl(Duration::from_millis(50))
        .renew(false);
    let mut changes = unrenewed.observe().await.unwrap();
    assert_eq!(next(&mut changes).await, None);
    let short = unrenewed.campaign("y").await.unwrap();
    assert_eq!(next(&mut changes).await, Some(short.leader()));
    let reason = timeout(LONG, short.lost()).await.unwrap();
    assert_eq!(reason.code(), Code::LeaseLost, "{reason}");
    assert_eq!(
        next(&mut changes).await,
        None,
        "it ran out with nobody in line"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_input_is_invalid_naming_what_and_the_connection_carries_on() {
    let (_dir, _server, address) = served().await;
    let store = Store::connect(&address).await.unwrap();
    let long = "v".repeat(1025);
    let err = store.election("e").campaign(&long).await.unwrap_err();
    assert_eq!(err.code(), Code::Invalid);
    assert!(err.message().contains("1025"), "{err}");
    let err = store.election("bad name").leader().await.unwrap_err();
    assert_eq!(err.code(), Code::Invalid);
    assert!(err.message().contains("bad name"), "{err}");
    let err = store.election("").observe().await.unwrap_err();
    assert_eq!(err.code(), Code::Invalid);
    // A value of exactly 1,024 bytes is fine, and the connection goes on.
    let ok = store.election("e").campaign(&long[..1024]).await.unwrap();
    assert_eq!(ok.value().len(), 1024);
    let seen = store.election("e").leader().await.unwrap().unwrap();
    assert_eq!(seen.value.len(), 1024);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_leader_whose_server_stops_loses_leadership_and_is_told() {
    let (_dir, server, address) = served().await;
    let store = Store::connect(&address).await.unwrap();
    let watcher = Store::connect(&address).await.unwrap();
    let mut changes = watcher.election("e").observe().await.unwrap();
    assert_eq!(next(&mut changes).await, None);
    let leader = store.election("e").campaign("x").await.unwrap();
    assert_eq!(next(&mut changes).await, Some(leader.leader()));
    server.shutdown().await.unwrap();
    let reason = timeout(LONG, leader.lost()).await.unwrap();
    assert!(!leader.is_held());
    assert!(
        matches!(reason.code(), Code::Closed | Code::LeaseLost),
        "{reason}"
    );
    // The observer ends with an error, never a made-up change.
    let end = timeout(LONG, changes.next()).await.unwrap();
    let err = end.expect("an end").unwrap_err();
    assert!(
        matches!(err.code(), Code::Closed | Code::Unavailable),
        "{err}"
    );
    assert!(timeout(LONG, changes.next()).await.unwrap().is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_given_up_campaign_leaves_no_leader_and_a_closed_store_ends_its_observers() {
    let (_dir, _server, address) = served().await;
    let store = Store::connect(&address).await.unwrap();
    let other = Store::connect(&address).await.unwrap();
    let first = store.election("e").campaign("first").await.unwrap();
    let err = other
        .election("e")
        .wait(Duration::from_millis(50))
        .campaign("late")
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::Timeout, "{err}");
    let mut changes = other.election("e").observe().await.unwrap();
    assert_eq!(next(&mut changes).await, Some(first.leader()));
    first.resign().await.unwrap();
    assert_eq!(
        next(&mut changes).await,
        None,
        "the given-up campaign never leads"
    );
    other.close().await.unwrap();
    let err = timeout(LONG, changes.next())
        .await
        .unwrap()
        .unwrap()
        .unwrap_err();
    assert_eq!(err.code(), Code::Closed, "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_observer_that_falls_behind_gets_every_change_it_had_room_for_then_limit() {
    let (_dir, _server, address) = served().await;
    let store = Store::connect(&address).await.unwrap();
    let watcher = Store::connect(&address).await.unwrap();
    let election = store.election("busy");
    let mut changes = watcher.election("busy").observe().await.unwrap();
    // Each lead is two changes (a leader, then nobody); make more than the
    // buffer holds while the observer reads none.
    let mut terms = Vec::new();
    for _ in 0..(OBSERVE_BUFFER / 2 + 8) {
        let leadership = election.campaign("x").await.unwrap();
        terms.push(leadership.fence());
        leadership.resign().await.unwrap();
    }
    assert_eq!(
        next(&mut changes).await,
        None,
        "the leader when it observed"
    );
    let mut seen = 0;
    let err = loop {
        match timeout(LONG, changes.next()).await.unwrap() {
            Some(Ok(change)) => {
                let want = (seen % 2 == 0).then(|| Leader {
                    value: "x".into(),
                    fence: terms[seen / 2],
                });
                assert_eq!(change, want, "change {seen} in order, no gap, no repeat");
                seen += 1;
            }
            Some(Err(err)) => break err,
            None => panic!("the observer ended without saying why after {seen} changes"),
        }
    };
    assert_eq!(err.code(), Code::Limit, "{err}");
    assert!(err.message().contains("busy"), "{err}");
    assert!(
        seen >= OBSERVE_BUFFER,
        "only {seen} changes before the limit"
    );
    assert!(changes.next().await.is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_leader_whose_connection_is_cut_loses_leadership_is_told_and_the_next_leads() {
    let (dir, server, address) = served().await;
    let (proxy, cut_off) = through_proxy(dir.path(), &server).await;
    let other = Store::connect(&address).await.unwrap();
    let mut changes = other.election("e").observe().await.unwrap();
    assert_eq!(next(&mut changes).await, None);
    let mut cut_changes = cut_off.election("e").observe().await.unwrap();
    assert_eq!(next(&mut cut_changes).await, None);

    let leader = cut_off.election("e").campaign("cut").await.unwrap();
    assert_eq!(next(&mut changes).await, Some(leader.leader()));
    assert_eq!(next(&mut cut_changes).await, Some(leader.leader()));
    let waiting = other.election("e");
    let successor = tokio::spawn(async move { waiting.campaign("next").await });
    in_line(&other, "e", 1).await;

    proxy.abort();
    let reason = timeout(LONG, leader.lost()).await.unwrap();
    assert_eq!(reason.code(), Code::LeaseLost, "{reason}");
    assert!(!leader.is_held());
    let err = timeout(LONG, cut_changes.next())
        .await
        .unwrap()
        .unwrap()
        .unwrap_err();
    assert_eq!(err.code(), Code::Unavailable, "{err}");
    assert!(cut_changes.next().await.is_none());

    // The server released the cut-off leadership: the next leads, larger.
    let successor = timeout(LONG, successor).await.unwrap().unwrap().unwrap();
    assert!(successor.fence() > leader.fence());
    assert_eq!(next(&mut changes).await, Some(successor.leader()));
}

/// The next line from the server, as JSON.
async fn next_json(
    lines: &mut tokio::io::Lines<tokio::io::BufReader<UnixStream>>,
) -> serde_json::Value {
    let text = timeout(LONG, lines.next_line())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    serde_json::from_str(&text).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_does_not_read_its_observer_is_ended_with_limit_not_buffered_without_bound() {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let (_dir, server, address) = served().await;
    // A raw client observes, then reads nothing while the leader changes
    // far more often than the buffers hold.
    let mut raw = UnixStream::connect(server.socket_path()).await.unwrap();
    raw.write_all(
        b"{\"op\":\"hello\",\"version\":1}\n{\"id\":1,\"op\":\"observe\",\"name\":\"busy\"}\n",
    )
    .await
    .unwrap();
    // Observing from before the first change: the reply came.
    let mut lines = BufReader::new(raw).lines();
    assert_eq!(next_json(&mut lines).await["ok"], true);
    assert_eq!(
        next_json(&mut lines).await,
        serde_json::json!({"id":1,"ok":true,"leader":null})
    );
    let store = Store::connect(&address).await.unwrap();
    let election = store.election("busy");
    let mut terms = Vec::new();
    for _ in 0..4000 {
        let leadership = election.campaign("x").await.unwrap();
        terms.push(leadership.fence().to_string());
        leadership.resign().await.unwrap();
    }
    // Now read: the changes in order from the first with no gap, then the
    // observer's end with `limit`.
    let mut seen = 0;
    let end = loop {
        let frame = next_json(&mut lines).await;
        if frame["event"] != "leader" {
            break frame;
        }
        let want = if seen % 2 == 0 {
            serde_json::json!({"value":"x","fence":terms[seen / 2]})
        } else {
            serde_json::Value::Null
        };
        assert_eq!(frame["observe"], 1);
        assert_eq!(frame["leader"], want, "change {seen}: in order, no gap");
        seen += 1;
    };
    assert_eq!(end["event"], "observe_end", "{end}");
    assert_eq!(end["observe"], 1);
    assert_eq!(end["code"], "limit", "{end}");
    // What reached the client is what its socket held before the server
    // stopped writing; the election's buffer was passed, not grown.
    assert!(seen > 0, "no change before the limit");
    assert!(
        seen < 8000 - OBSERVE_BUFFER,
        "{seen} changes were kept for a client that did not read"
    );
}
