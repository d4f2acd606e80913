//! Acquire+release pairs per second through tinystore on etcd, beside etcd's
//! own lock API (etcd-client's lock/unlock) on the same cluster. Needs a
//! running cluster named in TINYSTORE_ETCD (`make bench-etcd` starts one).
//! Each client task has its own connections; 5 samples per case, median.
//!
//! The etcd rows: a lease per lock (TTL 15 s: grant, lock with it, unlock,
//! revoke), and one lease for all a task's locks, as `etcdctl lock` does
//! with its session, and as tinystore does (one etcd lease per TTL per
//! client).
//!
//! BENCH_ONLY=TEXT runs only the cases whose name contains TEXT (e.g.
//! `tinystore on etcd, 1 tasks`), for profiling one of them.

use std::time::{Instant, SystemTime, UNIX_EPOCH};
use tinystore::Store;

const SAMPLES: usize = 5;
/// Pairs per sample, shared among the tasks.
const PAIRS: usize = 240;

fn median(mut rates: Vec<f64>) -> f64 {
    rates.sort_by(|a, b| a.partial_cmp(b).unwrap());
    rates[rates.len() / 2]
}

#[derive(Clone, Copy)]
enum Kind {
    Tinystore,
    EtcdLeasePerLock,
    EtcdOneLease,
}

async fn sample(address: &str, endpoints: &[String], kind: Kind, tasks: usize, keys: usize) -> f64 {
    let per_task = PAIRS / tasks;
    let run = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let mut clients = Vec::new();
    for t in 0..tasks {
        let key = format!("k{}", t % keys);
        let store = Store::connect(address).await.unwrap();
        let client = etcd_client::Client::connect(endpoints, None).await.unwrap();
        clients.push((key, store, client));
    }
    let start = Instant::now();
    let mut handles = Vec::new();
    for (key, store, mut client) in clients {
        let name = format!("/bench-etcd-lock/{run}/{key}");
        handles.push(tokio::spawn(async move {
            let locks = store.locks("bench");
            let session = client.lease_grant(15, None).await.unwrap().id();
            for _ in 0..per_task {
                match kind {
                    Kind::Tinystore => {
                        let lease = locks.acquire(key.as_str()).await.unwrap();
                        lease.release().await.unwrap();
                    }
                    Kind::EtcdLeasePerLock => {
                        let lease = client.lease_grant(15, None).await.unwrap().id();
                        let options = etcd_client::LockOptions::new().with_lease(lease);
                        let held = client.lock(name.as_str(), Some(options)).await.unwrap();
                        client.unlock(held.key()).await.unwrap();
                        client.lease_revoke(lease).await.unwrap();
                    }
                    Kind::EtcdOneLease => {
                        let options = etcd_client::LockOptions::new().with_lease(session);
                        let held = client.lock(name.as_str(), Some(options)).await.unwrap();
                        client.unlock(held.key()).await.unwrap();
                    }
                }
            }
            client.lease_revoke(session).await.unwrap();
            store.close().await.unwrap();
        }));
    }
    for h in handles {
        h.await.unwrap();
    }
    (per_task * tasks) as f64 / start.elapsed().as_secs_f64()
}

fn main() {
    let members = std::env::var("TINYSTORE_ETCD")
        .expect("TINYSTORE_ETCD names the etcd members (HOST:PORT,...); `make bench-etcd` sets it");
    let address = format!("etcd://{members}/bench-{}", std::process::id());
    let endpoints: Vec<String> = members.split(',').map(|m| format!("http://{m}")).collect();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let only = std::env::var("BENCH_ONLY").unwrap_or_default();
    rt.block_on(async {
        println!("{:<52} {:>10}", "case", "pairs/s");
        for (tasks, keys) in [(1, 1), (8, 8), (8, 1)] {
            let mut ours = 0.0;
            for (kind, what) in [
                (Kind::Tinystore, "tinystore on etcd"),
                (Kind::EtcdLeasePerLock, "etcd lock API, a lease per lock"),
                (Kind::EtcdOneLease, "etcd lock API, one lease per task"),
            ] {
                let case = format!("{what}, {tasks} tasks, {keys} keys");
                if !case.contains(only.as_str()) {
                    continue;
                }
                let mut rates = Vec::new();
                for _ in 0..SAMPLES {
                    rates.push(sample(&address, &endpoints, kind, tasks, keys).await);
                }
                let rate = median(rates);
                let ratio = match kind {
                    Kind::Tinystore => {
                        ours = rate;
                        String::new()
                    }
                    _ => format!("  (tinystore / this: {:.2})", ours / rate),
                };
                println!("{case:<52} {rate:>10.0}{ratio}");
            }
        }
    });
}
