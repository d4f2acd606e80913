//! A wait that runs out, on a store in this process and on one served over
//! a connection: for a lock, a semaphore and an election, the same
//! `timeout` with the same message, and no waiter left in line.

use crate::locks::waits_support::{a_zero_wait_runs_out_at_once, each_kind_runs_out_alike};
use crate::support::served::served;
use std::time::Duration;
use tinystore::{StatusPage, Store};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn embedded_waits_run_out_with_one_code_and_message() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path().join("store")).await.unwrap();
    each_kind_runs_out_alike(&store, &store).await;
    a_zero_wait_runs_out_at_once(&store, &store).await;
}

/// The server ends the wait: the client sends it as `wait_ms` for an
/// acquire as for a campaign, and the answer carries the server's words.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn served_waits_run_out_with_one_code_and_message() {
    let (_dir, server, address) = served().await;
    let holder = Store::connect(&address).await.unwrap();
    let waiter = Store::connect(&address).await.unwrap();
    each_kind_runs_out_alike(&holder, &waiter).await;
    a_zero_wait_runs_out_at_once(&holder, &waiter).await;
    server.shutdown().await.unwrap();
}

/// Joins the line for `key` of `jobs` in a task of its own, and returns
/// once the store counts the waiter.
async fn join_line(store: &Store, key: &'static str) -> tokio::task::JoinHandle<()> {
    let jobs = store.locks("jobs");
    let before = store.status().await.unwrap().waiting.len();
    let task = tokio::spawn(async move {
        let _ = jobs.acquire(key).await;
    });
    while store.status().await.unwrap().waiting.len() == before {
        tokio::task::yield_now().await;
    }
    task
}

#[tokio::test(start_paused = true)]
async fn status_lists_the_longest_waits_first_whatever_the_page() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path().join("store")).await.unwrap();
    let jobs = store.locks("jobs");
    let _held = [
        jobs.acquire("a").await.unwrap(),
        jobs.acquire("b").await.unwrap(),
        jobs.acquire("c").await.unwrap(),
    ];
    let waiters = [
        join_line(&store, "b").await,
        {
            tokio::time::advance(Duration::from_secs(5)).await;
            join_line(&store, "c").await
        },
        {
            tokio::time::advance(Duration::from_secs(1)).await;
            join_line(&store, "a").await
        },
    ];
    tokio::time::advance(Duration::from_millis(500)).await;
    let page = StatusPage {
        offset: 0,
        limit: 1,
    };
    let status = store.status_page(page).await.unwrap();
    assert_eq!(status.waiting.len(), 1, "the page shows one line");
    assert_eq!(status.waiting[0].key, "a", "in order of name and key");
    assert_eq!(status.waiting[0].waited_ms, Some(500));
    let longest: Vec<(&str, Option<u64>)> = status
        .longest_waits
        .iter()
        .map(|w| (w.key.as_str(), w.waited_ms))
        .collect();
    assert_eq!(
        longest,
        [("b", Some(6_500)), ("c", Some(1_500)), ("a", Some(500))]
    );
    for waiter in waiters {
        waiter.abort();
    }
}
