//! `tinystore-languages-rust SOCKET REDIS_URL SECONDS`: the Rust row of
//! `make bench-languages` (bench/languages/run.py). The tinystore client
//! through `tinystore serve` beside the `redis` crate's lock (SET NX PX, a
//! compare-and-delete script), each at 1 and 64 concurrent holders (tokio
//! tasks, one connection each) on 1,000 random keys; prints one JSON line
//! per system and holder count. The clients and the workload are the ones
//! `make bench-peers` runs (bench/src/peers, bench/src/workload.rs).
//! For profiling one row: BENCH_ONLY=tinystore:64 runs only that row.

#[allow(dead_code)]
#[path = "../../src/peers/mod.rs"]
mod peers;
#[allow(dead_code)]
#[path = "../../src/workload.rs"]
mod workload;

use peers::redis::Redis;
use peers::tinystore::{Target, Tinystore};
use peers::Peer;
use std::time::Duration;

const HOLDERS: [usize; 2] = [1, 64];
const KEYS: u64 = 1000;

fn usage() -> ! {
    eprintln!("usage: tinystore-languages-rust SOCKET REDIS_URL SECONDS");
    std::process::exit(2)
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [socket, redis, seconds] = args.as_slice() else {
        usage()
    };
    let seconds: f64 = seconds.parse().unwrap_or_else(|_| usage());
    let tinystore = Tinystore {
        target: Target::Served(format!("unix:{socket}")),
    };
    let redis = Redis::new(redis.clone());
    let systems: [(&str, &dyn Peer); 2] = [("tinystore", &tinystore), ("redis", &redis)];
    let only = std::env::var("BENCH_ONLY").ok();
    for holders in HOLDERS {
        for (system, peer) in systems {
            if only
                .as_ref()
                .is_some_and(|o| *o != format!("{system}:{holders}"))
            {
                continue;
            }
            let m = workload::random_keys(peer, holders, KEYS, Duration::from_secs_f64(seconds))
                .await
                .unwrap_or_else(|e| panic!("{system} at {holders} holders: {e}"));
            let line = serde_json::json!({
                "language": "Rust",
                "variant": "tokio tasks",
                "system": system,
                "lock": if system == "redis" { "redis crate: SET NX PX + Lua compare-and-delete" } else { "Store::connect, acquire + release" },
                "holders": holders,
                "pairs": m.pairs,
                "pairs_per_sec": m.pairs_per_sec,
                "p50_us": m.p50_us,
                "p99_us": m.p99_us,
            });
            println!("{line}");
        }
    }
}
