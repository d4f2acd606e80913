//! The Rust client against a real server on a Unix socket, in one process:
//! the same API as an embedded store, over the wire.

use crate::support::served::served;
use std::time::Duration;
use tinystore::server::{ServeOptions, Server};
use tinystore::{Code, Store};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn leases_over_a_connection_work_like_embedded_ones() {
    let (_dir, server, address) = served().await;
    let store = Store::connect(&address).await.unwrap();
    let other = Store::connect(&address).await.unwrap();
    let locks = store.locks("summaries");
    let first = locks.acquire(42).await.unwrap();
    assert_eq!(first.fence().epoch(), server.epoch());
    assert!(other
        .locks("summaries")
        .try_acquire("42")
        .await
        .unwrap()
        .is_none());
    first.release().await.unwrap();
    let second = other
        .locks("summaries")
        .try_acquire(42)
        .await
        .unwrap()
        .unwrap();
    assert!(second.fence() > first.fence());
    let status = store.status().await.unwrap();
    assert_eq!(status.held.len(), 1);
    assert_eq!(status.held[0].fence, Some(second.fence()));
    drop(second);
    let third = locks.acquire(42).await.unwrap();
    assert!(third.is_held());
    server.shutdown().await.unwrap();
    let reason = tokio::time::timeout(Duration::from_secs(5), third.lost())
        .await
        .unwrap();
    assert!(!third.is_held());
    assert!(
        matches!(reason.code(), Code::Closed | Code::LeaseLost),
        "{reason}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lease_not_renewed_runs_out_and_its_holder_is_told() {
    let (_dir, _server, address) = served().await;
    let store = Store::connect(&address).await.unwrap();
    let lease = store
        .locks("jobs")
        .ttl(Duration::from_millis(50))
        .renew(false)
        .acquire("a")
        .await
        .unwrap();
    let reason = tokio::time::timeout(Duration::from_secs(5), lease.lost())
        .await
        .unwrap();
    assert_eq!(reason.code(), Code::LeaseLost, "{reason}");
    assert_eq!(lease.renew().await.unwrap_err().code(), Code::LeaseLost);
    assert_eq!(lease.release().await.unwrap_err().code(), Code::LeaseLost);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_renewed_lease_outlives_its_ttl() {
    let (_dir, _server, address) = served().await;
    let store = Store::connect(&address).await.unwrap();
    let locks = store.locks("jobs").ttl(Duration::from_millis(150));
    let lease = locks.acquire("a").await.unwrap();
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(lease.is_held());
    assert!(locks.try_acquire("a").await.unwrap().is_none());
    lease.release().await.unwrap();
    assert!(locks.try_acquire("a").await.unwrap().is_some());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wait_that_runs_out_leaks_no_lease() {
    let (_dir, _server, address) = served().await;
    let store = Store::connect(&address).await.unwrap();
    let locks = store.locks("jobs");
    let held = locks.acquire("a").await.unwrap();
    let err = locks
        .clone()
        .wait(Duration::from_millis(30))
        .acquire("a")
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::Timeout);
    drop(held);
    let again = locks
        .clone()
        .wait(Duration::from_secs(5))
        .acquire("a")
        .await
        .unwrap();
    assert!(again.is_held());
    let status = store.status().await.unwrap();
    assert_eq!(status.held.len(), 1);
    assert!(status.waiting.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn semaphores_give_permits_over_the_wire() {
    let (_dir, _server, address) = served().await;
    let store = Store::connect(&address).await.unwrap();
    let exports = store.semaphore("exports", 2);
    let a = exports.acquire("x").await.unwrap();
    let b = exports.acquire("x").await.unwrap();
    assert!(exports.try_acquire("x").await.unwrap().is_none());
    let err = store
        .semaphore("exports", 3)
        .try_acquire("x")
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::Invalid);
    drop(a);
    b.release().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn open_connects_when_the_directory_is_served() {
    let (dir, server, _address) = served().await;
    let store = Store::open(dir.path().join("store")).await.unwrap();
    let lease = store.locks("a").acquire(1).await.unwrap();
    assert_eq!(lease.fence().epoch(), server.epoch());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_client_reconnects_for_later_calls() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("store");
    let server = Server::start(&path, ServeOptions::default()).await.unwrap();
    let address = format!("unix:{}", server.socket_path().display());
    let store = Store::connect(&address).await.unwrap();
    let lease = store.locks("a").acquire(1).await.unwrap();
    server.shutdown().await.unwrap();
    tokio::time::timeout(Duration::from_secs(5), lease.lost())
        .await
        .unwrap();
    let server = Server::start(&path, ServeOptions::default()).await.unwrap();
    let again = store.locks("a").acquire(1).await.unwrap();
    assert!(again.fence() > lease.fence());
    assert_eq!(again.fence().epoch(), server.epoch());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connecting_to_nothing_is_unavailable() {
    let dir = tempfile::tempdir().unwrap();
    let address = format!("unix:{}", dir.path().join("none.sock").display());
    let err = Store::connect(&address).await.err().unwrap();
    assert_eq!(err.code(), Code::Unavailable, "{err}");
    let err = Store::connect("http://example.com").await.err().unwrap();
    assert_eq!(err.code(), Code::Invalid, "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tcp_clients_need_the_token() {
    use tinystore::server::TcpOptions;
    use tinystore::ConnectOptions;
    let dir = tempfile::tempdir().unwrap();
    let token = "sixteen-bytes-or-more-of-token";
    let options = ServeOptions {
        tcp: Some(TcpOptions {
            addr: "127.0.0.1:0".into(),
            token: token.into(),
            tls: None,
        }),
        ..ServeOptions::default()
    };
    let server = Server::start(dir.path().join("store"), options)
        .await
        .unwrap();
    let address = format!("tcp://{}", server.tcp_addr().unwrap());
    let err = Store::connect(&address).await.err().unwrap();
    assert_eq!(err.code(), Code::Unauthorized, "{err}");
    let wrong = ConnectOptions::default().token("sixteen-bytes-or-more-of-tokem");
    let err = Store::connect_with(&address, wrong).await.err().unwrap();
    assert_eq!(err.code(), Code::Unauthorized, "{err}");
    let store = Store::connect_with(&address, ConnectOptions::default().token(token))
        .await
        .unwrap();
    let lease = store.locks("tcp").acquire(1).await.unwrap();
    assert_eq!(lease.fence().epoch(), server.epoch());
    let err = store.backup(dir.path().join("b.db")).await.unwrap_err();
    assert_eq!(err.code(), Code::Unauthorized, "{err}");
}
