//! Embedded hold round trips per second (acquire, run an empty body,
//! release), async and blocking, on one key and on many keys; a read-heavy
//! read-write lock beside the same work on a plain lock; and `hold_all` of
//! several keys beside holding them one by one. Run with
//! `cargo bench -p tinystore --bench hold`; prints the median of 5 samples.

use std::time::{Duration, Instant};
use tinystore::{blocking, Error, Options, Store};

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

/// Holds per second of `tasks` tasks on one key, one in 20 a write: on a
/// read-write lock (`rw`) or, for the same work, a plain lock; each body
/// awaits `body` (zero: none).
async fn read_heavy_sample(store: &Store, rw: bool, tasks: usize, body: Duration) -> f64 {
    let per_task = if body.is_zero() {
        PER_SAMPLE / tasks
    } else {
        40
    };
    let start = Instant::now();
    let mut handles = Vec::new();
    for t in 0..tasks {
        let (rw_locks, locks) = (store.rw_locks("bench-rw"), store.locks("bench-plain"));
        handles.push(tokio::spawn(async move {
            let work = async || {
                if !body.is_zero() {
                    tokio::time::sleep(body).await;
                }
                Ok::<_, Error>(())
            };
            for n in 0..per_task {
                let write = (t * per_task + n) % 20 == 0;
                match (rw, write) {
                    (true, true) => rw_locks.hold_write("k", async |_| work().await).await,
                    (true, false) => rw_locks.hold_read("k", async |_| work().await).await,
                    (false, _) => locks.hold("k", async |_| work().await).await,
                }
                .unwrap();
            }
        }));
    }
    for h in handles {
        h.await.unwrap();
    }
    (per_task * tasks) as f64 / start.elapsed().as_secs_f64()
}

/// Keys held per second by 8 tasks each taking `width` keys of 1,000 at
/// once: with `hold_all`, or one by one in key order (acquire each, then
/// release each).
async fn several_sample(store: &Store, all: bool, width: usize) -> f64 {
    let (tasks, per_task) = (8, PER_SAMPLE / 8 / width);
    let start = Instant::now();
    let mut handles = Vec::new();
    for t in 0..tasks {
        let locks = store.locks("bench-all");
        handles.push(tokio::spawn(async move {
            for n in 0..per_task {
                let first = (t * 7919 + n * 104_729) % 1_000;
                let mut keys: Vec<String> = (0..width)
                    .map(|i| format!("{:04}", (first + i * 131) % 1_000))
                    .collect();
                if all {
                    locks
                        .hold_all(keys, Options::default(), async |_| Ok::<_, Error>(()))
                        .await
                        .unwrap();
                } else {
                    keys.sort();
                    let mut held = Vec::with_capacity(width);
                    for key in keys {
                        held.push(locks.acquire(key).await.unwrap());
                    }
                    for lease in held {
                        lease.release().await.unwrap();
                    }
                }
            }
        }));
    }
    for h in handles {
        h.await.unwrap();
    }
    (per_task * tasks * width) as f64 / start.elapsed().as_secs_f64()
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
        for body in [Duration::ZERO, Duration::from_millis(1)] {
            for tasks in [8, 64] {
                for rw in [true, false] {
                    let mut rates = Vec::new();
                    for _ in 0..SAMPLES {
                        rates.push(read_heavy_sample(&store, rw, tasks, body).await);
                    }
                    let what = if rw { "rw lock" } else { "plain lock" };
                    report(
                        &format!("95% reads, {what}, {tasks} tasks, body {body:?}"),
                        rates,
                    );
                }
            }
        }
        for width in [2, 8] {
            for all in [true, false] {
                let mut rates = Vec::new();
                for _ in 0..SAMPLES {
                    rates.push(several_sample(&store, all, width).await);
                }
                let how = if all { "hold_all" } else { "one by one" };
                report(&format!("{width} keys {how}, 8 tasks (keys/s)"), rates);
            }
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
