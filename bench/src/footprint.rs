//! Memory and start: the resident size of `tinystore serve` holding a
//! million leases, and the time to open a store in-process.

use std::time::{Duration, Instant};
use tinystore::{Options, Store};

/// Acquires `total` leases (TTL 1 h, renew off) through `connections`
/// connections and returns them, so that the server holds them all.
pub async fn hold_many(
    address: &str,
    total: usize,
    connections: usize,
) -> Result<Vec<tinystore::Lease>, String> {
    let per = total.div_ceil(connections);
    let mut tasks = Vec::new();
    for c in 0..connections {
        let address = address.to_string();
        tasks.push(tokio::spawn(async move {
            let store = Store::connect(&address).await.map_err(|e| e.to_string())?;
            let locks = store
                .locks("memory")
                .ttl(Duration::from_secs(3600))
                .renew(false);
            let mut held = Vec::with_capacity(per);
            for n in 0..per {
                let key = format!("key-{c}-{n}");
                let lease = locks
                    .try_acquire_with(key, Options::default())
                    .await
                    .map_err(|e| e.to_string())?
                    .ok_or("a fresh key was taken")?;
                held.push(lease);
            }
            Ok::<_, String>((store, held))
        }));
    }
    let mut all = Vec::new();
    for t in tasks {
        let (store, held) = t.await.map_err(|e| e.to_string())??;
        all.extend(held);
        std::mem::forget(store); // keep each connection open while measuring
    }
    Ok(all)
}

/// The median time, over `rounds` opens, to open (and close) a store that
/// already has a `kv.db`.
pub async fn open_time(dir: &std::path::Path, rounds: usize) -> Result<Duration, String> {
    let store_dir = dir.join("open-time");
    Store::open(&store_dir)
        .await
        .map_err(|e| e.to_string())?
        .close()
        .await
        .map_err(|e| e.to_string())?;
    let mut times = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        let t0 = Instant::now();
        let store = Store::open(&store_dir).await.map_err(|e| e.to_string())?;
        times.push(t0.elapsed());
        store.close().await.map_err(|e| e.to_string())?;
    }
    times.sort();
    Ok(times[times.len() / 2])
}
