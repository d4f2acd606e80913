//! Data on a lease (core/src/lease_data.rs): what a holder attaches when it
//! acquires, seen in `status` on an embedded and a served store; by default
//! the acquiring process's `HOST:PID`, filled in by the client, never by
//! the server; given to watchers; more than 1024 bytes is `invalid` and
//! grants nothing.

use crate::support::served::served;
use std::collections::HashMap;
use tinystore::{Code, Options, Store, WatchEvent};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::UnixStream;

/// Each held key's data in `store`'s status, by `name/key`.
async fn data_by_key(store: &Store) -> HashMap<String, Option<String>> {
    let status = store.status().await.unwrap();
    status
        .held
        .into_iter()
        .map(|h| (format!("{}/{}", h.name, h.key), h.data))
        .collect()
}

fn with_data(data: &str) -> Options {
    Options {
        data: Some(data.into()),
        ..Options::default()
    }
}

/// The host name as the system gives it to any program: `hostname`.
fn host_name() -> String {
    let out = std::process::Command::new("hostname").output().unwrap();
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

/// Data set on a group and per call, the default, an empty text and a
/// refusal, all seen through `store`'s status.
pub(crate) async fn data_is_kept_defaulted_and_refused(store: &Store) {
    let jobs = store.locks("jobs").data("worker 3");
    let mut watch = jobs.watch("a").await.unwrap();
    let _a = jobs.acquire("a").await.unwrap();
    loop {
        match crate::watch::next(&mut watch).await {
            WatchEvent::Granted { data, .. } => {
                break assert_eq!(data.as_deref(), Some("worker 3"))
            }
            WatchEvent::Queue { .. } => continue,
            other => panic!("{other:?}"),
        }
    }
    let _b = jobs
        .acquire_with("b", with_data("é on call"))
        .await
        .unwrap();
    let _c = store.locks("plain").acquire("c").await.unwrap();
    let _d = jobs.acquire_with("d", with_data("")).await.unwrap();
    let _p = store
        .semaphore("pool", 3)
        .try_acquire_with("p", with_data("permit 1"))
        .await
        .unwrap()
        .expect("free");
    let seen = data_by_key(store).await;
    assert_eq!(seen["jobs/a"].as_deref(), Some("worker 3"));
    assert_eq!(seen["jobs/b"].as_deref(), Some("é on call"));
    let default = format!("{}:{}", host_name(), std::process::id());
    assert_eq!(seen["plain/c"].as_deref(), Some(default.as_str()));
    assert_eq!(seen["jobs/d"], None, "an empty text attaches nothing");
    assert_eq!(seen["pool/p"].as_deref(), Some("permit 1"));

    let long = "x".repeat(1025);
    let err = jobs.acquire_with("e", with_data(&long)).await.unwrap_err();
    assert_eq!(err.code(), Code::Invalid);
    assert!(
        err.message()
            .contains("data must be at most 1024 bytes, not 1025"),
        "{err}"
    );
    let err = store
        .locks("long")
        .data(long)
        .try_acquire("e")
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::Invalid);
    assert!(!data_by_key(store).await.contains_key("jobs/e"));
    let full = "é".repeat(512);
    let e = jobs.acquire_with("e", with_data(&full)).await.unwrap();
    assert_eq!(
        data_by_key(store).await["jobs/e"].as_deref(),
        Some(full.as_str())
    );
    e.release().await.unwrap();
}

#[tokio::test]
async fn an_embedded_store_keeps_each_holders_data() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path().join("store")).await.unwrap();
    data_is_kept_defaulted_and_refused(&store).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_served_store_keeps_the_clients_data_and_fills_in_no_default() {
    let (_dir, server, address) = served().await;
    let store = Store::connect(&address).await.unwrap();
    data_is_kept_defaulted_and_refused(&store).await;

    // A wire client that sends no data has none: the default is the
    // client library's, never the server's.
    let (read, mut write) = UnixStream::connect(server.socket_path())
        .await
        .unwrap()
        .into_split();
    let mut lines = BufReader::new(read).lines();
    let mut ask = async |line: &str| {
        write
            .write_all(format!("{line}\n").as_bytes())
            .await
            .unwrap();
        lines.next_line().await.unwrap().expect("a reply")
    };
    ask(r#"{"op":"hello","version":1}"#).await;
    let bare = ask(r#"{"id":1,"op":"acquire","name":"raw","key":"k"}"#).await;
    assert!(bare.contains(r#""ok":true"#), "{bare}");
    let said = ask(r#"{"id":2,"op":"try_acquire","name":"raw","key":"j","data":"by hand"}"#).await;
    assert!(said.contains(r#""ok":true"#), "{said}");
    let long = format!(
        r#"{{"id":3,"op":"acquire","name":"raw","key":"l","data":"{}"}}"#,
        "x".repeat(1025)
    );
    let refused = ask(&long).await;
    assert!(
        refused.contains("at most 1024 bytes, not 1025"),
        "{refused}"
    );
    let seen = data_by_key(&store).await;
    assert_eq!(seen["raw/k"], None);
    assert_eq!(seen["raw/j"].as_deref(), Some("by hand"));
    assert!(!seen.contains_key("raw/l"), "nothing granted");
    let status = ask(r#"{"id":4,"op":"status"}"#).await;
    assert!(status.contains(r#""data":"by hand""#), "{status}");
}

#[test]
fn the_blocking_api_sets_data_on_groups_too() {
    let dir = tempfile::tempdir().unwrap();
    let store = tinystore::blocking::Store::open(dir.path().join("store")).unwrap();
    let _lock = store.locks("a").data("lock").acquire("k").unwrap();
    let _read = store
        .rw_locks("b")
        .data("read")
        .acquire_read_with("k", Options::default())
        .unwrap();
    let _permit = store.semaphore("c", 2).data("permit").acquire("k").unwrap();
    let seen: Vec<(String, Option<String>)> = store
        .status()
        .unwrap()
        .held
        .into_iter()
        .map(|h| (h.name, h.data))
        .collect();
    let want = [("a", "lock"), ("b", "read"), ("c", "permit")];
    let want: Vec<(String, Option<String>)> = want
        .iter()
        .map(|(n, d)| (n.to_string(), Some(d.to_string())))
        .collect();
    assert_eq!(seen, want);
}
