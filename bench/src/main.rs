//! `tinystore-bench`: tinystore against Redis, etcd and PostgreSQL on
//! loopback, the same workload with the same number of clients, in one run.
//! Writes target/bench/results.json and prints a Markdown report.
//!
//! Usage: tinystore-bench [--seconds S] [--tinystore PATH] [--out FILE]
//!        [--only serve,embedded,redis,etcd,postgres] [--no-footprint]

mod footprint;
mod peers;
mod report;
mod servers;
mod workload;

use peers::tinystore::{Target, Tinystore};
use peers::Peer;
use std::path::PathBuf;
use std::time::Duration;

const CLIENTS: [usize; 3] = [1, 8, 64];
const KEYS: u64 = 1000;
const HANDOFF_CLIENTS: usize = 8;
/// The clients that also run on one shared connection per system.
const ONE_CONNECTION_CLIENTS: usize = 64;

struct Args {
    seconds: f64,
    tinystore: PathBuf,
    out: PathBuf,
    /// The systems to run: a comma list of serve, embedded, redis, etcd, postgres.
    only: Option<String>,
    /// Skip the memory and start measurements.
    no_footprint: bool,
}

impl Args {
    fn runs(&self, system: &str) -> bool {
        self.only
            .as_deref()
            .is_none_or(|only| only.split(',').any(|s| s == system))
    }
}

fn args() -> Args {
    let mut args = Args {
        seconds: 3.0,
        tinystore: PathBuf::from("target/release/tinystore"),
        out: PathBuf::from("target/bench/report.md"),
        only: None,
        no_footprint: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        if flag == "--no-footprint" {
            args.no_footprint = true;
            continue;
        }
        let value = it.next().unwrap_or_else(|| panic!("{flag} needs a value"));
        match flag.as_str() {
            "--seconds" => args.seconds = value.parse().expect("--seconds takes a number"),
            "--tinystore" => args.tinystore = value.into(),
            "--out" => args.out = value.into(),
            "--only" => args.only = Some(value),
            other => panic!("unknown flag {other}; see the doc comment of bench/src/main.rs"),
        }
    }
    args
}

async fn measure(peer: &dyn Peer, seconds: f64, results: &mut Vec<workload::Measured>) {
    let duration = Duration::from_secs_f64(seconds);
    for n in CLIENTS {
        match workload::random_keys(peer, n, KEYS, duration).await {
            Ok(m) => {
                eprintln!(
                    "{:<20} {:>3} clients {:>10.0} pairs/s",
                    m.system, n, m.pairs_per_sec
                );
                results.push(m);
            }
            Err(e) => eprintln!("{} at {n} clients failed: {e}", peer.name()),
        }
    }
    match workload::handoff(peer, HANDOFF_CLIENTS, duration).await {
        Ok(m) => {
            eprintln!(
                "{:<20} handoff p50 {:.0} us p99 {:.0} us",
                m.system, m.p50_us, m.p99_us
            );
            results.push(m);
        }
        Err(e) => eprintln!("{} handoff failed: {e}", peer.name()),
    }
}

/// The random-keys workload at [`ONE_CONNECTION_CLIENTS`] from clients
/// that share one connection; `peer` is made to share one, or failed.
async fn measure_one_connection(
    peer: Result<impl Peer, String>,
    seconds: f64,
    results: &mut Vec<workload::Measured>,
) {
    let n = ONE_CONNECTION_CLIENTS;
    let measured = match peer {
        Ok(peer) => {
            workload::one_connection(&peer, n, KEYS, Duration::from_secs_f64(seconds)).await
        }
        Err(e) => Err(e),
    };
    match measured {
        Ok(m) => {
            eprintln!(
                "{:<20} {:>3} clients on one connection {:>10.0} pairs/s",
                m.system, n, m.pairs_per_sec
            );
            results.push(m);
        }
        Err(e) => eprintln!("{n} clients on one connection failed: {e}"),
    }
}

#[tokio::main]
async fn main() {
    let args = args();
    let tmp = tempfile::tempdir().expect("a temporary directory");
    let mut results = Vec::new();
    let mut notes = Vec::new();

    if args.runs("serve") {
        let dir = tmp.path().join("tinystore");
        std::fs::create_dir_all(&dir).unwrap();
        match servers::tinystore(&args.tinystore, &dir) {
            Ok((_server, address)) => {
                let peer = Tinystore {
                    target: Target::Served(address.clone()),
                };
                measure(&peer, args.seconds, &mut results).await;
                let shared = tinystore::Store::connect(&address)
                    .await
                    .map(|store| Tinystore {
                        target: Target::OneConnection(store),
                    })
                    .map_err(|e| e.to_string());
                measure_one_connection(shared, args.seconds, &mut results).await;
            }
            Err(e) => notes.push(format!("tinystore serve: {e}")),
        }
    }
    if args.runs("embedded") {
        let store = tinystore::Store::open(tmp.path().join("embedded"))
            .await
            .unwrap();
        let peer = Tinystore {
            target: Target::Embedded(store.clone()),
        };
        measure(&peer, args.seconds, &mut results).await;
        store.close().await.unwrap();
    }
    if args.runs("redis") {
        let dir = tmp.path().join("redis");
        std::fs::create_dir_all(&dir).unwrap();
        match servers::redis(&dir) {
            Ok((_server, url)) => {
                let peer = peers::redis::Redis::new(url.clone());
                measure(&peer, args.seconds, &mut results).await;
                let shared = peers::redis::Redis::one_connection(url).await;
                measure_one_connection(shared, args.seconds, &mut results).await;
            }
            Err(e) => notes.push(format!("Redis: {e}")),
        }
    }
    if args.runs("etcd") {
        let dir = tmp.path().join("etcd");
        std::fs::create_dir_all(&dir).unwrap();
        match servers::etcd(&dir) {
            Ok((_server, endpoint)) => {
                let on_etcd = Tinystore {
                    target: Target::Served(format!("etcd://{endpoint}/bench")),
                };
                measure(&on_etcd, args.seconds, &mut results).await;
                let peer = peers::etcd::EtcdPeer::new(endpoint.clone());
                measure(&peer, args.seconds, &mut results).await;
                let shared = peers::etcd::EtcdPeer::one_connection(endpoint).await;
                measure_one_connection(shared, args.seconds, &mut results).await;
            }
            Err(e) => notes.push(format!("etcd: {e}")),
        }
    }
    if args.runs("postgres") {
        let dir = tmp.path().join("postgres");
        match servers::postgres(&dir) {
            Ok((_server, conninfo)) => {
                measure(
                    &peers::postgres::Postgres { conninfo },
                    args.seconds,
                    &mut results,
                )
                .await
            }
            Err(e) => notes.push(format!("PostgreSQL: {e}")),
        }
    }

    let footprint = if args.no_footprint {
        report::Footprint::default()
    } else {
        report::Footprint::measure(&args.tinystore, tmp.path()).await
    };
    let report = report::render(&results, &footprint, &notes);
    std::fs::create_dir_all(args.out.parent().unwrap()).unwrap();
    std::fs::write(&args.out, &report).unwrap();
    let json = serde_json::json!({ "results": results, "footprint": footprint });
    std::fs::write(
        args.out.with_extension("json"),
        serde_json::to_string_pretty(&json).unwrap(),
    )
    .unwrap();
    println!("{report}");
}
