//! The workloads, the same for every system: lock then unlock random keys
//! among K with N clients; and a contended handoff on one key.

use crate::peers::{LockClient, Peer};
use serde::Serialize;
use std::time::{Duration, Instant};

/// What one cell of the table measured.
#[derive(Debug, Clone, Serialize)]
pub struct Measured {
    pub system: String,
    pub workload: String,
    pub clients: usize,
    pub pairs: u64,
    pub pairs_per_sec: f64,
    pub p50_us: f64,
    pub p99_us: f64,
}

fn percentile(sorted: &[u32], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let at = ((sorted.len() - 1) as f64 * p).round() as usize;
    f64::from(sorted[at])
}

async fn clients(peer: &dyn Peer, n: usize) -> Result<Vec<Box<dyn LockClient>>, String> {
    let mut made = Vec::with_capacity(n);
    for _ in 0..n {
        made.push(peer.client().await?);
    }
    Ok(made)
}

/// Runs `clients` clients for `duration`, each locking and unlocking a key
/// chosen by `pick` (from its own counter), and records the latency of
/// each lock (`lock_only`) or each lock-unlock pair.
async fn drive(
    peer: &dyn Peer,
    workload: &str,
    n: usize,
    duration: Duration,
    keys: u64,
    lock_only: bool,
) -> Result<Measured, String> {
    let made = clients(peer, n).await?;
    let start = Instant::now();
    let deadline = start + duration;
    let mut tasks = Vec::new();
    for (i, mut client) in made.into_iter().enumerate() {
        tasks.push(tokio::spawn(async move {
            let mut rng =
                0x9E37_79B9_7F4A_7C15u64 ^ (i as u64 + 1).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            let mut latencies: Vec<u32> = Vec::new();
            while Instant::now() < deadline {
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                let key = format!("k{}", rng % keys);
                let t0 = Instant::now();
                client.lock(&key).await?;
                let locked = t0.elapsed();
                client.unlock().await?;
                let took = if lock_only { locked } else { t0.elapsed() };
                latencies.push(took.as_micros().min(u128::from(u32::MAX)) as u32);
            }
            Ok::<_, String>(latencies)
        }));
    }
    let mut all = Vec::new();
    for t in tasks {
        all.extend(t.await.map_err(|e| e.to_string())??);
    }
    let elapsed = start.elapsed().as_secs_f64();
    all.sort_unstable();
    Ok(Measured {
        system: peer.name(),
        workload: workload.to_string(),
        clients: n,
        pairs: all.len() as u64,
        pairs_per_sec: all.len() as f64 / elapsed,
        p50_us: percentile(&all, 0.50),
        p99_us: percentile(&all, 0.99),
    })
}

/// Lock then unlock random keys among `keys`, with `n` clients.
pub async fn random_keys(
    peer: &dyn Peer,
    n: usize,
    keys: u64,
    duration: Duration,
) -> Result<Measured, String> {
    drive(
        peer,
        &format!("random keys among {keys}"),
        n,
        duration,
        keys,
        false,
    )
    .await
}

/// The same as [`random_keys`] from clients that share one connection
/// (the peer's clients do, see `Peer::client`): recorded as its own
/// workload, `one connection: ...`.
pub async fn one_connection(
    peer: &dyn Peer,
    n: usize,
    keys: u64,
    duration: Duration,
) -> Result<Measured, String> {
    let workload = format!("one connection: random keys among {keys}");
    drive(peer, &workload, n, duration, keys, false).await
}

/// `n` clients contending for one key: the latency is each lock's wait.
pub async fn handoff(peer: &dyn Peer, n: usize, duration: Duration) -> Result<Measured, String> {
    drive(peer, "handoff on one key", n, duration, 1, true).await
}
