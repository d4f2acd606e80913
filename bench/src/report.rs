//! The Markdown report: pairs per second and the latency of each pair, with
//! the ratio of tinystore serve to each peer, the handoff latencies with
//! their ratios, memory and start.

use crate::workload::Measured;
use crate::{footprint, servers};
use serde::Serialize;
use std::fmt::Write;
use std::path::Path;

/// Memory and start figures.
#[derive(Debug, Default, Serialize)]
pub struct Footprint {
    pub leases: usize,
    pub rss_idle_bytes: Option<u64>,
    pub rss_with_leases_bytes: Option<u64>,
    pub open_median_ms: Option<f64>,
    pub error: Option<String>,
}

const MILLION: usize = 1_000_000;

impl Footprint {
    pub async fn measure(tinystore: &Path, tmp: &Path) -> Footprint {
        let mut f = Footprint {
            leases: MILLION,
            ..Footprint::default()
        };
        f.open_median_ms = footprint::open_time(tmp, 21)
            .await
            .ok()
            .map(|d| d.as_secs_f64() * 1000.0);
        let dir = tmp.join("memory");
        std::fs::create_dir_all(&dir).unwrap();
        match servers::tinystore(tinystore, &dir) {
            Ok((server, address)) => {
                let pid = server.child.id();
                f.rss_idle_bytes = servers::rss_bytes(pid);
                match footprint::hold_many(&address, MILLION, 250).await {
                    Ok(held) => {
                        f.rss_with_leases_bytes = servers::rss_bytes(pid);
                        f.leases = held.len();
                        std::mem::forget(held);
                    }
                    Err(e) => f.error = Some(e),
                }
            }
            Err(e) => f.error = Some(e),
        }
        f
    }
}

fn find<'a>(
    results: &'a [Measured],
    system: &str,
    workload_prefix: &str,
    clients: usize,
) -> Option<&'a Measured> {
    results.iter().find(|m| {
        m.system == system && m.workload.starts_with(workload_prefix) && m.clients == clients
    })
}

fn cell(m: Option<&Measured>) -> String {
    m.map_or("—".into(), |m| format!("{:.0}", m.pairs_per_sec))
}

fn ratio(a: Option<&Measured>, b: Option<&Measured>) -> String {
    match (a, b) {
        (Some(a), Some(b)) if b.pairs_per_sec > 0.0 => {
            format!("{:.1}×", a.pairs_per_sec / b.pairs_per_sec)
        }
        _ => "—".into(),
    }
}

/// `serve` over `this`, for latencies (below 1: serve is quicker).
fn latency_ratio(serve: Option<f64>, this: f64) -> String {
    match serve {
        Some(serve) if this > 0.0 => format!("{:.2}", serve / this),
        _ => "—".into(),
    }
}

/// The latency of each pair in the random-keys workload, p50 / p99, per
/// system and number of clients, with serve's p50 over each peer's.
fn latencies(out: &mut String, results: &[Measured]) {
    let _ = writeln!(
        out,
        "\nLatency of each pair in the same runs, p50 / p99 (µs); serve/peer is \
         tinystore serve's p50 over the peer's (below 1: serve is quicker).\n"
    );
    header(
        out,
        &["serve/Redis p50", "serve/etcd p50", "serve/PostgreSQL p50"],
    );
    for n in crate::CLIENTS {
        let cells: Vec<String> = SYSTEMS
            .iter()
            .map(|s| {
                find(results, s, "random", n).map_or("—".into(), |m| {
                    format!("{:.0} / {:.0}", m.p50_us, m.p99_us)
                })
            })
            .collect();
        let serve = find(results, "tinystore serve", "random", n).map(|m| m.p50_us);
        let versus = |peer: &str| {
            find(results, peer, "random", n)
                .map_or("—".into(), |m| latency_ratio(serve, m.p50_us))
        };
        let _ = writeln!(
            out,
            "| {n} | {} | {} | {} | {} |",
            cells.join(" | "),
            versus("Redis"),
            versus("etcd"),
            versus("PostgreSQL"),
        );
    }
}

/// The head of a table with a row per client count: a column per system,
/// then the `ratios` columns.
fn header(out: &mut String, ratios: &[&str]) {
    let columns = SYSTEMS.len() + ratios.len();
    let _ = writeln!(
        out,
        "| clients | {} | {} |",
        SYSTEMS.join(" | "),
        ratios.join(" | ")
    );
    let _ = writeln!(out, "|---:|{}", "---:|".repeat(columns));
}

const SYSTEMS: [&str; 6] = [
    "tinystore serve",
    "tinystore embedded",
    "Redis",
    "tinystore on etcd",
    "etcd",
    "PostgreSQL",
];

/// The random-keys workload from clients that share one connection per
/// system: tinystore's callers share their store's, the redis crate
/// pipelines its clients' commands, etcd's share one HTTP/2 connection.
fn one_connection(out: &mut String, results: &[Measured]) {
    let n = crate::ONE_CONNECTION_CLIENTS;
    let rows: Vec<&Measured> = SYSTEMS
        .iter()
        .filter_map(|s| find(results, s, "one connection", n))
        .collect();
    if rows.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "\n{n} clients on one connection per system (tinystore: one connected store shared by \
         the clients; Redis: one multiplexed connection, the redis crate pipelining their \
         commands; etcd: one client, one HTTP/2 connection); serve/this is tinystore serve's \
         pairs per second over this row's.\n"
    );
    let _ = writeln!(
        out,
        "| system | pairs/s | p50 µs | p99 µs | serve/this |\n|---|---:|---:|---:|---:|"
    );
    let serve = find(results, "tinystore serve", "one connection", n);
    for m in rows {
        let _ = writeln!(
            out,
            "| {} | {:.0} | {:.0} | {:.0} | {} |",
            m.system,
            m.pairs_per_sec,
            m.p50_us,
            m.p99_us,
            ratio(serve, Some(m)),
        );
    }
}

pub fn render(results: &[Measured], footprint: &Footprint, notes: &[String]) -> String {
    let mut out = String::new();
    let serve = "tinystore serve";
    let _ = writeln!(
        out,
        "Pairs per second: acquire then release a lock on a random key among 1,000.\n"
    );
    header(
        &mut out,
        &[
            "serve/Redis",
            "serve/etcd",
            "serve/PostgreSQL",
            "on etcd/etcd",
        ],
    );
    for n in crate::CLIENTS {
        let row: Vec<String> = SYSTEMS
            .iter()
            .map(|s| cell(find(results, s, "random", n)))
            .collect();
        let me = find(results, serve, "random", n);
        let _ = writeln!(
            out,
            "| {n} | {} | {} | {} | {} | {} |",
            row.join(" | "),
            ratio(me, find(results, "Redis", "random", n)),
            ratio(me, find(results, "etcd", "random", n)),
            ratio(me, find(results, "PostgreSQL", "random", n)),
            ratio(
                find(results, "tinystore on etcd", "random", n),
                find(results, "etcd", "random", n)
            ),
        );
    }
    latencies(&mut out, results);
    let _ = writeln!(
        out,
        "\nContended handoff: {} clients lock and unlock one key; latency of each lock (µs); \
         serve/this is tinystore serve's figure over this row's (below 1: serve waits less).\n",
        crate::HANDOFF_CLIENTS
    );
    let _ = writeln!(
        out,
        "| system | pairs/s | p50 µs | p99 µs | serve/this p50 | serve/this p99 |\n\
         |---|---:|---:|---:|---:|---:|"
    );
    let serve_handoff = find(results, serve, "handoff", crate::HANDOFF_CLIENTS);
    for s in SYSTEMS {
        if let Some(m) = find(results, s, "handoff", crate::HANDOFF_CLIENTS) {
            let _ = writeln!(
                out,
                "| {s} | {:.0} | {:.0} | {:.0} | {} | {} |",
                m.pairs_per_sec,
                m.p50_us,
                m.p99_us,
                latency_ratio(serve_handoff.map(|h| h.p50_us), m.p50_us),
                latency_ratio(serve_handoff.map(|h| h.p99_us), m.p99_us),
            );
        }
    }
    one_connection(&mut out, results);
    let mb = |b: Option<u64>| b.map_or("—".into(), |b| format!("{:.1} MB", b as f64 / 1e6));
    let _ = writeln!(out, "\nMemory and start:\n");
    let _ = writeln!(out, "| what | measured | target |\n|---|---:|---:|");
    let _ = writeln!(
        out,
        "| resident size of `tinystore serve`, idle | {} | |",
        mb(footprint.rss_idle_bytes)
    );
    let _ = writeln!(
        out,
        "| resident size holding {} leases | {} | ≤ 200 MB |",
        footprint.leases,
        mb(footprint.rss_with_leases_bytes)
    );
    let _ = writeln!(
        out,
        "| time to open a store (median of 21) | {} | ≤ 20 ms |",
        footprint
            .open_median_ms
            .map_or("—".into(), |ms| format!("{ms:.2} ms"))
    );
    if let Some(e) = &footprint.error {
        let _ = writeln!(out, "\nThe memory run failed: {e}");
    }
    for n in notes {
        let _ = writeln!(out, "\nNot measured: {n}");
    }
    out
}
