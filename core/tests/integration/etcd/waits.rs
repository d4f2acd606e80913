//! A wait that runs out on etcd (a cluster started by `make test-etcd`):
//! for a lock, a semaphore and an election, the same `timeout` with the same
//! message as on a store in this process, and no waiter left in line.
#![cfg(feature = "etcd")]

use crate::etcd::support::address;
use crate::locks::waits_support::{a_zero_wait_runs_out_at_once, each_kind_runs_out_alike};
use tinystore::Store;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn etcd_waits_run_out_with_one_code_and_message() {
    let address = address("waits");
    let holder = Store::connect(&address).await.unwrap();
    let waiter = Store::connect(&address).await.unwrap();
    each_kind_runs_out_alike(&holder, &waiter).await;
    a_zero_wait_runs_out_at_once(&holder, &waiter).await;
}
