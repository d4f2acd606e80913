//! What the Redis guard costs per write: a plain `SET` against a guarded
//! `SET` (one `EVALSHA` of the guard's script: the check, the write, the
//! record) and against your own script behind the check (the same `SET` in
//! a body of yours), of the same small value, on one connection to the
//! redis-server at `$TINYSTORE_REDIS_URL`, the three in turn, sample by
//! sample, so that a noisy machine weighs on each alike. Prints the median
//! µs per write of each and the ratios. Run with `make bench-guards-redis-rust`.

use redis::aio::MultiplexedConnection;
use redis::AsyncCommands;
use std::time::Instant;
use tinystore::guard::redis as guard;
use tinystore::Fence;

const SAMPLES: usize = 9;
const WRITES: usize = 2000;

#[derive(Clone, Copy)]
enum Kind {
    Plain,
    Guarded,
    Script,
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

async fn sample(conn: &mut MultiplexedConnection, kind: Kind, n: &mut u128) -> f64 {
    let start = Instant::now();
    for _ in 0..WRITES {
        *n += 1;
        let value = format!("summary {n}");
        let fence = Fence::from_u128(*n);
        match kind {
            Kind::Plain => conn.set::<_, _, ()>("bench:plain", value).await.unwrap(),
            Kind::Guarded => guard::set(conn, "bench:guarded", &value, fence)
                .await
                .unwrap(),
            Kind::Script => {
                let body = "return redis.call('SET', KEYS[1], ARGV[1])";
                guard::script(conn, "bench:script", body, &[], &[&value], fence)
                    .await
                    .map(drop)
                    .unwrap()
            }
        }
    }
    start.elapsed().as_secs_f64() * 1e6 / WRITES as f64
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let Ok(url) = std::env::var("TINYSTORE_REDIS_URL") else {
        eprintln!("TINYSTORE_REDIS_URL is not set: run under tests/guards/with-redis.sh (make bench-guards-redis-rust)");
        std::process::exit(2);
    };
    let client = redis::Client::open(url).unwrap();
    let mut conn = client.get_multiplexed_async_connection().await.unwrap();
    let kinds = [Kind::Plain, Kind::Guarded, Kind::Script];
    let mut n = 0u128;
    // One of each first, unmeasured: the scripts are loaded.
    for kind in kinds {
        sample(&mut conn, kind, &mut n).await;
    }
    let mut samples = [Vec::new(), Vec::new(), Vec::new()];
    for _ in 0..SAMPLES {
        for (i, kind) in kinds.into_iter().enumerate() {
            samples[i].push(sample(&mut conn, kind, &mut n).await);
        }
    }
    let [p, g, s] = samples.map(median);
    println!(
        "redis-rs, one multiplexed connection, median of {SAMPLES} samples of {WRITES} writes"
    );
    println!("| each write | µs per write | over a plain SET |");
    println!("| --- | ---: | ---: |");
    println!("| a plain `SET` | {p:.1} | 1.00x |");
    println!("| `guard::redis::set` | {g:.1} | {:.2}x |", g / p);
    println!(
        "| `guard::redis::script` (a `SET` in your body) | {s:.1} | {:.2}x |",
        s / p
    );
}
