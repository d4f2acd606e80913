//! A wait that runs out, on a store in this process and on one served over
//! a connection: for a lock, a semaphore and an election, the same
//! `timeout` with the same message, and no waiter left in line.

use crate::locks::waits_support::{a_zero_wait_runs_out_at_once, each_kind_runs_out_alike};
use crate::support::served::served;
use tinystore::Store;

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
