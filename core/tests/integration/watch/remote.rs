//! Watching over a connection: the same events as embedded, a holder's
//! connection ending told as `disconnected`, a client that never reads its
//! socket slows nobody and is told `lagged`, and the server's shutdown
//! ends the watch.

use super::next;
use crate::support::raw::Raw;
use crate::support::served::served;
use futures_util::StreamExt;
use std::time::Duration;
use tinystore::{Code, Fence, Store, WatchEvent};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_watch_over_a_connection_sees_what_other_clients_do() {
    let (_dir, server, address) = served().await;
    let watcher = Store::connect(&address).await.unwrap();
    let mut watch = watcher.locks("orders").watch_all().await.unwrap();

    let mut holder = Raw::greeted(server.socket_path()).await;
    let held = holder
        .ask(r#"{"id":1,"op":"acquire","name":"orders","key":"1"}"#)
        .await;
    let fence: Fence = held["fence"].as_str().unwrap().parse().unwrap();
    assert_eq!(
        next(&mut watch).await,
        WatchEvent::Granted {
            key: "1".into(),
            fence: Some(fence),
            data: None
        }
    );
    let waiting = Store::connect(&address).await.unwrap();
    let b = tokio::spawn(async move { waiting.locks("orders").acquire("1").await });
    assert_eq!(
        next(&mut watch).await,
        WatchEvent::Queue {
            key: "1".into(),
            length: 1
        }
    );
    // The holder's connection ends while it holds: its lease is lost as
    // disconnected, and the next in the queue is granted.
    drop(holder);
    assert_eq!(
        next(&mut watch).await,
        WatchEvent::Lost {
            key: "1".into(),
            fence: Some(fence),
            cause: "disconnected".into()
        }
    );
    // A client of the library attaches its HOST:PID unless told otherwise;
    // the raw client above sent none.
    let b = b.await.unwrap().unwrap();
    assert_eq!(
        next(&mut watch).await,
        WatchEvent::Granted {
            key: "1".into(),
            fence: Some(b.fence()),
            data: Some(tinystore::default_data().to_string())
        }
    );
    assert_eq!(
        next(&mut watch).await,
        WatchEvent::Queue {
            key: "1".into(),
            length: 0
        }
    );
    drop(b);
    server.shutdown().await.unwrap();
    let rest: Vec<_> = tokio::time::timeout(Duration::from_secs(10), watch.collect())
        .await
        .unwrap();
    let end = rest.last().expect("the watch ends").as_ref().unwrap_err();
    assert!(
        matches!(end.code(), Code::Closed | Code::Unavailable),
        "{end}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_never_reads_its_socket_slows_nobody_and_is_told_lagged() {
    let (_dir, server, address) = served().await;
    let mut idle = Raw::greeted(server.socket_path()).await;
    let answer = idle
        .ask(r#"{"id":7,"op":"watch","kind":"lock","name":"busy"}"#)
        .await;
    assert_eq!(answer["ok"], true, "{answer}");
    // Another client works on; the idle one reads nothing meanwhile, so its
    // socket's buffers fill and the server stops writing to it.
    let worker = Store::connect(&address).await.unwrap();
    let locks = worker.locks("busy");
    let holds = 20_000;
    for _ in 0..holds {
        locks.acquire("k").await.unwrap().release().await.unwrap();
    }
    // It reads now: every line is an event of watch 7, and somewhere among
    // them it was told how many it missed.
    let mut missed = 0;
    let mut told = 0;
    while told + missed < 2 * holds {
        let line = idle.line().await;
        assert_eq!(line["event"], "watch", "{line}");
        assert_eq!(line["watch"], 7, "{line}");
        match line["what"].as_str().unwrap() {
            "lagged" => missed += line["missed"].as_u64().unwrap(),
            "granted" | "released" => told += 1,
            other => panic!("unexpected event {other}: {line}"),
        }
    }
    assert!(missed > 0, "the idle client fell behind and was told so");
    assert_eq!(told + missed, 2 * holds, "every event told or counted");
    // The watch goes on with the events of now.
    let last = locks.acquire("k").await.unwrap();
    let line = idle.line().await;
    assert_eq!(line["what"], "granted", "{line}");
    assert_eq!(line["fence"], last.fence().to_string(), "{line}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_watches_on_the_wire_are_invalid_and_a_cancel_stops_one() {
    let (_dir, server, address) = served().await;
    let mut raw = Raw::greeted(server.socket_path()).await;
    let bad_kind = raw
        .ask(r#"{"id":1,"op":"watch","kind":"election","name":"x"}"#)
        .await;
    assert_eq!(bad_kind["error"]["code"], "invalid", "{bad_kind}");
    assert!(
        bad_kind["error"]["message"]
            .as_str()
            .unwrap()
            .contains("kind"),
        "{bad_kind}"
    );
    let bad_name = raw
        .ask(r#"{"id":2,"op":"watch","kind":"lock","name":"a b"}"#)
        .await;
    assert_eq!(bad_name["error"]["code"], "invalid", "{bad_name}");
    let ok = raw
        .ask(r#"{"id":3,"op":"watch","kind":"lock","name":"orders","key":42}"#)
        .await;
    assert_eq!(ok["ok"], true, "{ok}");
    let cancel = raw.ask(r#"{"id":4,"op":"cancel","target":3}"#).await;
    assert_eq!(cancel["ok"], true, "{cancel}");
    // After the cancel, a grant is told to nobody: the next line is the
    // ping's reply.
    let store = Store::connect(&address).await.unwrap();
    let _held = store.locks("orders").acquire(42u64).await.unwrap();
    let pong = raw.ask(r#"{"id":5,"op":"ping"}"#).await;
    assert_eq!(pong["id"], 5, "{pong}");
}
