//! When a server shuts down, each connection is told everything the closing
//! store tells before it is closed: each held lease's end, each waiting
//! acquire's failure and each observer's end, all `closed`, then the end of
//! the stream. Spoken on the raw wire, so nothing in a client can stand in
//! for a missing line.

use crate::support::raw::Raw;
use crate::support::served::served;
use std::collections::HashMap;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_shutdown_tells_each_lease_wait_and_observer_closed_before_the_end() {
    let (_dir, server, _) = served().await;
    let socket = server.socket_path().to_path_buf();
    let mut holder = Raw::greeted(&socket).await;
    let mut waiter = Raw::greeted(&socket).await;
    let held = holder
        .ask(r#"{"id":1,"op":"acquire","name":"jobs","key":"a"}"#)
        .await;
    assert_eq!(held["granted"], true, "{held}");
    let lease = held["lease"].as_str().unwrap().to_string();
    let led = holder
        .ask(r#"{"id":2,"op":"campaign","name":"e","value":"me"}"#)
        .await;
    assert_eq!(led["granted"], true, "{led}");
    let observing = waiter.ask(r#"{"id":3,"op":"observe","name":"e"}"#).await;
    assert_eq!(observing["ok"], true, "{observing}");
    // The waiter's acquire queues behind the holder: its status shows it.
    waiter
        .send(r#"{"id":4,"op":"acquire","name":"jobs","key":"a"}"#)
        .await;
    let mut status = Raw::greeted(&socket).await;
    while status.ask(r#"{"id":9,"op":"status"}"#).await["status"]["waiting_total"] != 1 {}

    server.shutdown().await.unwrap();

    let mut lost = HashMap::new();
    while let Some(line) = holder.next().await {
        assert_eq!(line["event"], "lost", "{line}");
        assert_eq!(line["code"], "closed", "{line}");
        lost.insert(line["lease"].as_str().unwrap().to_string(), line);
    }
    assert_eq!(lost.len(), 2, "the lease and the leadership: {lost:?}");
    assert!(lost.contains_key(&lease), "{lost:?}");
    let mut told = Vec::new();
    while let Some(line) = waiter.next().await {
        told.push(line);
    }
    let failed = told
        .iter()
        .find(|l| l["id"] == 4)
        .expect("the acquire's reply");
    assert_eq!(failed["ok"], false, "{failed}");
    assert_eq!(failed["error"]["code"], "closed", "{failed}");
    let ended = told
        .iter()
        .find(|l| l["event"] == "observe_end")
        .unwrap_or_else(|| panic!("the observer's end in {told:?}"));
    assert_eq!(ended["observe"], 3, "{ended}");
    assert_eq!(ended["code"], "closed", "{ended}");
}
