//! A served watch paused while its reader has no room: the server sends
//! nothing for it until it is resumed, then one `lagged` with what was
//! missed, then the events of now; through the library, a watch that is
//! never read costs the server a buffer's worth of lines, not one per
//! event; and a client never sends a pause to a server that did not say
//! it takes one.

use super::next;
use crate::support::raw::Raw;
use crate::support::served::served;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use tinystore::{Store, WatchEvent, WATCH_BUFFER};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{UnixListener, UnixStream};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_paused_watch_is_sent_nothing_until_resumed_then_told_what_it_missed() {
    let (_dir, server, address) = served().await;
    let mut idle = Raw::connected(server.socket_path()).await;
    let hello = idle.ask(r#"{"op":"hello","version":1}"#).await;
    assert_eq!(hello["watch_pause"], true, "{hello}");
    let answer = idle
        .ask(r#"{"id":7,"op":"watch","kind":"lock","name":"busy"}"#)
        .await;
    assert_eq!(answer["ok"], true, "{answer}");
    let paused = idle.ask(r#"{"id":8,"op":"watch_pause","watch":7}"#).await;
    assert_eq!(paused, serde_json::json!({"id":8,"ok":true}));

    // Another client works on, three buffers' worth of events.
    let worker = Store::connect(&address).await.unwrap();
    let locks = worker.locks("busy");
    let holds = 3 * WATCH_BUFFER as u64 / 2;
    for _ in 0..holds {
        locks.acquire("k").await.unwrap().release().await.unwrap();
    }
    // Nothing was sent for the watch: the next line is the ping's reply.
    let pong = idle.ask(r#"{"id":9,"op":"ping"}"#).await;
    assert_eq!(pong, serde_json::json!({"id":9,"ok":true}));

    // Resumed, it is told first how many it missed, then the events the
    // store still held for it, which with the missed make every event.
    let resumed = idle.ask(r#"{"id":10,"op":"watch_resume","watch":7}"#).await;
    assert_eq!(resumed, serde_json::json!({"id":10,"ok":true}));
    let lagged = idle.line().await;
    assert_eq!(lagged["watch"], 7, "{lagged}");
    assert_eq!(lagged["what"], "lagged", "{lagged}");
    let missed = lagged["missed"].as_u64().unwrap();
    assert!(missed > 0, "{lagged}");
    let mut told = 0;
    while told + missed < 2 * holds {
        let line = idle.line().await;
        assert_eq!(line["watch"], 7, "{line}");
        assert!(
            matches!(line["what"].as_str(), Some("granted" | "released")),
            "{line}"
        );
        told += 1;
    }
    // Then the events of now.
    let last = locks.acquire("k").await.unwrap();
    let line = idle.line().await;
    assert_eq!(line["what"], "granted", "{line}");
    assert_eq!(line["fence"], last.fence().to_string(), "{line}");

    // Paused and resumed with nothing missed meanwhile, it is told so: the
    // first event after a resume is always its `lagged`.
    let paused = idle.ask(r#"{"id":12,"op":"watch_pause","watch":7}"#).await;
    assert_eq!(paused["ok"], true, "{paused}");
    let resumed = idle.ask(r#"{"id":13,"op":"watch_resume","watch":7}"#).await;
    assert_eq!(resumed["ok"], true, "{resumed}");
    let lagged = idle.line().await;
    assert_eq!(lagged["what"], "lagged", "{lagged}");
    assert_eq!(lagged["missed"], 0, "{lagged}");

    // A watch the connection does not have cannot be paused.
    let unknown = idle.ask(r#"{"id":11,"op":"watch_pause","watch":99}"#).await;
    assert_eq!(unknown["error"]["code"], "invalid", "{unknown}");
    assert_eq!(unknown["id"], 11, "{unknown}");
}

/// A proxy on `at` to the server's socket `to` that counts the bytes the
/// server sends through it.
fn counting_proxy(at: &std::path::Path, to: std::path::PathBuf) -> Arc<AtomicU64> {
    let listener = UnixListener::bind(at).unwrap();
    let sent = Arc::new(AtomicU64::new(0));
    let counted = sent.clone();
    tokio::spawn(async move {
        while let Ok((inbound, _)) = listener.accept().await {
            let outbound = UnixStream::connect(&to).await.unwrap();
            let (mut client_read, mut client_write) = inbound.into_split();
            let (mut server_read, mut server_write) = outbound.into_split();
            tokio::spawn(async move {
                let _ = tokio::io::copy(&mut client_read, &mut server_write).await;
            });
            let counted = counted.clone();
            tokio::spawn(async move {
                let mut buf = vec![0; 64 * 1024];
                while let Ok(n) = server_read.read(&mut buf).await {
                    if n == 0 || client_write.write_all(&buf[..n]).await.is_err() {
                        break;
                    }
                    counted.fetch_add(n as u64, Ordering::Relaxed);
                }
            });
        }
    });
    sent
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_watch_never_read_stops_the_server_sending_then_is_told_one_lagged() {
    let (dir, server, address) = served().await;
    let at = dir.path().join("counting.sock");
    let sent = counting_proxy(&at, server.socket_path().to_path_buf());
    let watcher = Store::connect(&format!("unix:{}", at.display()))
        .await
        .unwrap();
    let mut watch = watcher.locks("busy").watch_all().await.unwrap();

    let worker = Store::connect(&address).await.unwrap();
    let locks = worker.locks("busy");
    let holds: u64 = 20_000;
    for _ in 0..holds {
        locks.acquire("k").await.unwrap().release().await.unwrap();
    }
    // Every event's line is longer than 50 bytes: sent one by one, they
    // would have been over 2 MB. Paused, the server sent a buffer's worth
    // and what was on its way.
    let bytes = sent.load(Ordering::Relaxed);
    let unpaused = 2 * holds * 50;
    assert!(
        bytes < unpaused / 4,
        "the server sent {bytes} bytes for a watch nobody read (all of it would be over {unpaused})"
    );

    // It reads now: a buffer's worth of events, then one `lagged` with all
    // it missed (the store's count and its own together: the reader waits
    // for the store's), then the rest of what the store still held;
    // together, every event.
    let (mut told, mut missed, mut lagged) = (0, 0, 0);
    while told + missed < 2 * holds {
        match next(&mut watch).await {
            WatchEvent::Lagged { missed: m } => {
                assert_eq!(told, WATCH_BUFFER as u64, "a buffer's worth came first");
                missed += m;
                lagged += 1;
            }
            WatchEvent::Granted { .. } | WatchEvent::Released { .. } => told += 1,
            other => panic!("unexpected event {other:?}"),
        }
    }
    assert_eq!(lagged, 1, "the reader was told once how many it missed");
    assert_eq!(told + missed, 2 * holds, "every event told or counted");
    // Then the events of now.
    let last = locks.acquire("k").await.unwrap();
    assert_eq!(
        next(&mut watch).await,
        WatchEvent::Granted {
            key: "k".into(),
            fence: Some(last.fence()),
            data: Some(tinystore::default_data().to_string()),
        }
    );
    eprintln!(
        "paused watch: {bytes} bytes sent while nobody read ({} events); told {told}, \
         missed {missed} in {lagged} lagged",
        2 * holds
    );
}

/// An old server on `listener`, whose `hello` does not say `watch_pause`:
/// answers `watch` then sends `events` queue events for it, answers
/// `try_acquire` with "not granted", and sends each request's `op` to the
/// returned channel (after the `watch` events were written, `"written"`).
fn old_server(
    listener: UnixListener,
    events: usize,
) -> tokio::sync::mpsc::UnboundedReceiver<String> {
    use tokio::io::AsyncBufReadExt;
    let (ops, seen) = tokio::sync::mpsc::unbounded_channel();
    tokio::spawn(async move {
        let (stream, _) = listener.accept().await.unwrap();
        let (read, mut write) = stream.into_split();
        let mut lines = tokio::io::BufReader::new(read).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            let request: serde_json::Value = serde_json::from_str(&line).unwrap();
            let op = request["op"].as_str().unwrap().to_string();
            let id = &request["id"];
            let mut out = match op.as_str() {
                "hello" => r#"{"ok":true,"version":1,"epoch":"1"}"#.to_string() + "\n",
                "try_acquire" => format!("{{\"id\":{id},\"ok\":true,\"granted\":false}}\n"),
                _ => format!("{{\"id\":{id},\"ok\":true}}\n"),
            };
            if op == "watch" {
                for n in 0..events {
                    out += &format!(
                        "{{\"event\":\"watch\",\"watch\":{id},\"what\":\"queue\",\"key\":\"k\",\"length\":{n}}}\n"
                    );
                }
            }
            write.write_all(out.as_bytes()).await.unwrap();
            if op != "hello" {
                let _ = ops.send(op.clone());
            }
            if op == "watch" {
                let _ = ops.send("written".into());
            }
        }
    });
    seen
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_never_asks_a_server_that_did_not_say_it_pauses() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.sock");
    let events = 2 * WATCH_BUFFER + 10;
    let mut seen = old_server(UnixListener::bind(&path).unwrap(), events);
    let store = Store::connect(&format!("unix:{}", path.display()))
        .await
        .unwrap();
    let mut watch = store.locks("l").watch_all().await.unwrap();
    assert_eq!(seen.recv().await.unwrap(), "watch");
    assert_eq!(seen.recv().await.unwrap(), "written");
    // Its reply comes after the events: the client has taken them all, and
    // no pause went before it.
    assert!(store.locks("l").try_acquire("k").await.unwrap().is_none());
    assert_eq!(seen.recv().await.unwrap(), "try_acquire");
    // Read only now: a buffer's worth, then what it missed, as before.
    for n in 0..WATCH_BUFFER as u64 {
        assert_eq!(
            next(&mut watch).await,
            WatchEvent::Queue {
                key: "k".into(),
                length: n
            }
        );
    }
    assert_eq!(
        next(&mut watch).await,
        WatchEvent::Lagged {
            missed: (events - WATCH_BUFFER) as u64
        }
    );
    // Nor did a resume go before the next request.
    assert!(store.locks("l").try_acquire("k").await.unwrap().is_none());
    assert_eq!(seen.recv().await.unwrap(), "try_acquire");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_paused_watch_is_told_its_end_when_the_server_shuts_down() {
    let (_dir, server, _) = served().await;
    let mut idle = Raw::greeted(server.socket_path()).await;
    let answer = idle
        .ask(r#"{"id":7,"op":"watch","kind":"lock","name":"busy"}"#)
        .await;
    assert_eq!(answer["ok"], true, "{answer}");
    let paused = idle.ask(r#"{"id":8,"op":"watch_pause","watch":7}"#).await;
    assert_eq!(paused["ok"], true, "{paused}");

    server.shutdown().await.unwrap();

    // Resumed by the closing server: its `lagged` (nothing was missed),
    // then its end, then the end of the stream.
    let lagged = idle.line().await;
    assert_eq!(lagged["what"], "lagged", "{lagged}");
    assert_eq!(lagged["missed"], 0, "{lagged}");
    let ended = idle.line().await;
    assert_eq!(ended["event"], "watch_end", "{ended}");
    assert_eq!(ended["watch"], 7, "{ended}");
    assert_eq!(ended["code"], "closed", "{ended}");
    assert!(idle.next().await.is_none());
}
