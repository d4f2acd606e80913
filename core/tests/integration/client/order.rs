//! A connection's requests leave the client in the order they were issued:
//! a give-up that a dropped acquire queued is never overtaken by a request
//! made after the drop. A scripted server on a Unix socket records what
//! arrives, so the order is seen byte for byte.

use serde_json::Value;
use std::time::Duration;
use tinystore::Store;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::UnixListener;
use tokio::sync::mpsc;

/// Serves one connection at `listener`: answers `hello`, answers each
/// `try_acquire` with "not granted", never answers an `acquire`, and sends
/// every request's `op` after hello to the returned channel.
fn scripted_server(listener: UnixListener) -> mpsc::UnboundedReceiver<String> {
    let (ops, seen) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        let (stream, _) = listener.accept().await.unwrap();
        let (read, mut write) = stream.into_split();
        let mut lines = BufReader::new(read).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            let request: Value = serde_json::from_str(&line).unwrap();
            let op = request["op"].as_str().unwrap().to_string();
            let reply = match op.as_str() {
                "hello" => Some(r#"{"ok":true,"version":1,"epoch":"1"}"#.to_string()),
                "try_acquire" => Some(format!(
                    r#"{{"id":{},"ok":true,"granted":false}}"#,
                    request["id"]
                )),
                _ => None,
            };
            if op != "hello" {
                let _ = ops.send(op);
            }
            if let Some(reply) = reply {
                write.write_all(reply.as_bytes()).await.unwrap();
                write.write_all(b"\n").await.unwrap();
            }
        }
    });
    seen
}

// One thread: the client's writer task cannot run between the drop and the
// next request, so a request written past the queue would overtake the
// give-up every time.
#[tokio::test(flavor = "current_thread")]
async fn a_give_up_is_not_overtaken_by_a_later_request_of_the_connection() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("scripted.sock");
    let mut seen = scripted_server(UnixListener::bind(&path).unwrap());
    let store = Store::connect(&format!("unix:{}", path.display()))
        .await
        .unwrap();
    let locks = store.locks("l");
    for round in 0..3 {
        // The acquire waits (never answered); the timeout drops it, which
        // queues its give-up; the try_acquire is made at once after.
        let waited = tokio::time::timeout(Duration::from_millis(20), locks.acquire("k")).await;
        assert!(waited.is_err(), "round {round}: the acquire was answered");
        let tried = locks.try_acquire("k").await.unwrap();
        assert!(tried.is_none());
        let mut order = Vec::new();
        for _ in 0..3 {
            order.push(seen.recv().await.unwrap());
        }
        assert_eq!(
            order,
            ["acquire", "cancel", "try_acquire"],
            "round {round}: the requests reached the server in another order"
        );
    }
}
