//! Through the server over its Unix socket: acquire+release pairs per second
//! at 1, 8 and 64 clients (each its own connection, its own keys; and 64
//! tasks sharing one connection), and the
//! time to hand a contended key from one client to the next (p50, p99).
//! Server and clients share this process's runtime (2 worker threads).
//! Run with `cargo bench -p tinystore --bench server`.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tinystore::server::{ServeOptions, Server};
use tinystore::Store;

const SAMPLES: usize = 3;
const SAMPLE_TIME: Duration = Duration::from_secs(2);
const HANDOFFS: usize = 2000;

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(|a, b| a.partial_cmp(b).unwrap());
    values[values.len() / 2]
}

/// One sample: `clients` connections each acquiring and releasing its own
/// keys for SAMPLE_TIME; pairs per second.
async fn pairs_sample(stores: &[Store], renew: bool) -> f64 {
    let deadline = Instant::now() + SAMPLE_TIME;
    let start = Instant::now();
    let mut tasks = Vec::new();
    for (c, store) in stores.iter().enumerate() {
        let locks = store.locks("bench").renew(renew);
        tasks.push(tokio::spawn(async move {
            let mut pairs = 0u64;
            while Instant::now() < deadline {
                let lease = locks.acquire(format!("{c}-{}", pairs % 16)).await.unwrap();
                lease.release().await.unwrap();
                pairs += 1;
            }
            pairs
        }));
    }
    let mut pairs = 0;
    for t in tasks {
        pairs += t.await.unwrap();
    }
    pairs as f64 / start.elapsed().as_secs_f64()
}

/// Two clients take turns on one key; each records the time from the
/// other's release to its own grant.
async fn handoffs(address: &str) -> Vec<Duration> {
    let released: Arc<Mutex<Option<Instant>>> = Arc::default();
    let times: Arc<Mutex<Vec<Duration>>> = Arc::default();
    let mut tasks = Vec::new();
    for _ in 0..2 {
        let store = Store::connect(address).await.unwrap();
        let (released, times) = (released.clone(), times.clone());
        tasks.push(tokio::spawn(async move {
            let locks = store.locks("handoff");
            while times.lock().unwrap().len() < HANDOFFS {
                let lease = locks.acquire("hot").await.unwrap();
                let got = Instant::now();
                if let Some(at) = released.lock().unwrap().take() {
                    times.lock().unwrap().push(got - at);
                }
                // Long enough for the other client to be waiting in line.
                tokio::time::sleep(Duration::from_micros(300)).await;
                *released.lock().unwrap() = Some(Instant::now());
                lease.release().await.unwrap();
            }
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
    let mut times = times.lock().unwrap().clone();
    times.sort();
    times
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let server = Server::start(dir.path().join("store"), ServeOptions::default())
            .await
            .unwrap();
        let address = format!("unix:{}", server.socket_path().display());
        for renew in [true, false] {
            for (clients, connections) in [(1, 1), (8, 8), (64, 64), (64, 1)] {
                let mut stores = Vec::new();
                for c in 0..clients {
                    if c < connections {
                        stores.push(Store::connect(&address).await.unwrap());
                    } else {
                        stores.push(stores[0].clone());
                    }
                }
                let mut rates = Vec::new();
                for _ in 0..SAMPLES {
                    rates.push(pairs_sample(&stores, renew).await);
                }
                println!(
                    "pairs/s, {clients:>2} clients on {connections:>2} connections, renew {:<5}  {:>10.0}  (median of {SAMPLES} samples of {SAMPLE_TIME:?})",
                    renew,
                    median(rates)
                );
            }
        }
        let times = handoffs(&address).await;
        let pct = |p: f64| times[((times.len() - 1) as f64 * p) as usize];
        println!(
            "handoff of a contended key, {} handoffs: p50 {:?}, p99 {:?}",
            times.len(),
            pct(0.50),
            pct(0.99)
        );
        server.shutdown().await.unwrap();
    });
}
