//! Embedded hold round trips per second (acquire, run an empty body,
//! release), async and blocking, on one key and on many keys. Run with
//! `cargo bench -p tinystore --bench hold`; prints the median of 5 samples.

use std::time::Instant;
use tinystore::{blocking, Error, Store};

const SAMPLES: usize = 5;
const PER_SAMPLE: usize = 200_000;

fn median(mut rates: Vec<f64>) -> f64 {
    rates.sort_by(|a, b| a.partial_cmp(b).unwrap());
    rates[rates.len() / 2]
}

fn report(what: &str, rates: Vec<f64>) {
    println!(
        "{what:<48} {:>12.0} /s (median of {SAMPLES})",
        median(rates)
    );
}

async fn async_sample(store: &Store, tasks: usize, keys: usize) -> f64 {
    let per_task = PER_SAMPLE / tasks;
    let start = Instant::now();
    let mut handles = Vec::new();
    for t in 0..tasks {
        let locks = store.locks("bench");
        handles.push(tokio::spawn(async move {
            for n in 0..per_task {
                let key = (t * per_task + n) % keys;
                locks.hold(key, async |_| Ok::<_, Error>(())).await.unwrap();
            }
        }));
    }
    for h in handles {
        h.await.unwrap();
    }
    (per_task * tasks) as f64 / start.elapsed().as_secs_f64()
}

fn blocking_sample(store: &blocking::Store, threads: usize, keys: usize) -> f64 {
    let per_thread = PER_SAMPLE / threads;
    let start = Instant::now();
    std::thread::scope(|s| {
        for t in 0..threads {
            let locks = store.locks("bench");
            s.spawn(move || {
                for n in 0..per_thread {
                    let key = (t * per_thread + n) % keys;
                    locks.hold(key, |_| Ok::<_, Error>(())).unwrap();
                }
            });
        }
    });
    (per_thread * threads) as f64 / start.elapsed().as_secs_f64()
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let store = Store::open(dir.path().join("async")).await.unwrap();
        for (tasks, keys) in [(1, 1), (8, 1000), (64, 1000)] {
            let mut rates = Vec::new();
            for _ in 0..SAMPLES {
                rates.push(async_sample(&store, tasks, keys).await);
            }
            report(&format!("async hold, {tasks} tasks, {keys} keys"), rates);
        }
        store.close().await.unwrap();
    });
    let store = blocking::Store::open(dir.path().join("blocking")).unwrap();
    for (threads, keys) in [(1, 1), (8, 1000)] {
        let rates = (0..SAMPLES)
            .map(|_| blocking_sample(&store, threads, keys))
            .collect();
        report(
            &format!("blocking hold, {threads} threads, {keys} keys"),
            rates,
        );
    }
    store.close().unwrap();
}
