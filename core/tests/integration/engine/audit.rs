//! The audit log records every grant and end, in the engine's order.

use serde_json::Value;
use std::time::Duration;
use tinystore::{Store, StoreOptions};

#[tokio::test(start_paused = true)]
async fn the_audit_log_records_grants_and_each_kind_of_end() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("audit.jsonl");
    let options = StoreOptions::default().audit(&log);
    let store = Store::open_with(dir.path().join("store"), options)
        .await
        .unwrap();
    let locks = store.locks("a");
    let first = locks.acquire("k").await.unwrap();
    first.release().await.unwrap();
    let short = locks.clone().ttl(Duration::from_millis(20)).renew(false);
    let expiring = short.acquire("k").await.unwrap();
    assert_eq!(expiring.lost().await.code(), tinystore::Code::LeaseLost);
    let _held = store.semaphore("s", 2).acquire("k").await.unwrap();
    store.close().await.unwrap();

    let lines: Vec<Value> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let events: Vec<String> = lines
        .iter()
        .map(|l| {
            format!(
                "{} {}",
                l["ev"].as_str().unwrap(),
                l["why"].as_str().unwrap_or("")
            )
        })
        .collect();
    assert_eq!(
        events,
        [
            "open ",
            "grant ",
            "end released",
            "grant ",
            "end expired",
            "grant ",
            "end closed"
        ]
    );
    assert_eq!(lines[1]["fence"], Value::String(first.fence().to_string()));
    assert_eq!(
        lines[3]["fence"],
        Value::String(expiring.fence().to_string())
    );
    assert_eq!(lines[5]["fence"], Value::Null, "a permit has no fence");
    assert_eq!(
        lines[0]["epoch"],
        Value::String(first.fence().epoch().to_string())
    );
}
