//! A snapshot of a store on etcd: its epoch, and each queue's holders (the
//! first `limit` entries by create revision) and waiters, and each
//! election's leader and campaigners in its queue.

use super::call::retry;
use super::epoch;
use super::layout::parse_limit;
use super::shared::Inner;
use crate::error::Result;
use crate::fence::Fence;
use crate::status::{HeldStatus, Status, WaitingStatus};
use etcd_client::{GetOptions, KeyValue, SortOrder, SortTarget};

/// The epoch, the held keys and the waiters. `fences_given` is 0: a store
/// on etcd does not count its grants; `last_fence` is the largest fence held.
pub(crate) async fn status(inner: &Inner) -> Result<Status> {
    let client = &inner.client;
    let epoch_key = inner.layout.epoch();
    let got = retry(client, "reading the epoch on etcd", || {
        let (mut kv, key) = (client.kv_client(), epoch_key.clone());
        async move { kv.get(key, None).await }
    })
    .await?;
    let epoch = epoch::from_get(&inner.layout, Some(&got))?;
    let mut held = Vec::new();
    let mut waiting = Vec::new();
    for fenced in [true, false] {
        let queues = inner.layout.queues(fenced);
        let options = GetOptions::new()
            .with_prefix()
            .with_sort(SortTarget::Create, SortOrder::Ascend);
        let mut got = retry(client, "listing the queues on etcd", || {
            let (mut kv, queues, options) = (client.kv_client(), queues.clone(), options.clone());
            async move { kv.get(queues, Some(options)).await }
        })
        .await?;
        let mut entries: Vec<(String, String, KeyValue)> = got
            .take_kvs()
            .into_iter()
            .filter_map(|kv| {
                let (name, key) = inner.layout.parse_entry(fenced, kv.key())?;
                Some((name, key, kv))
            })
            .collect();
        // Sorting is stable: within a queue, entries stay in create order.
        entries.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
        for queue in entries.chunk_by(|a, b| (&a.0, &a.1) == (&b.0, &b.1)) {
            let limit = parse_limit(queue[0].2.value()).unwrap_or(1) as usize;
            for (name, key, kv) in queue.iter().take(limit) {
                let (ttl_ms, left_ms) = lease_times(inner, kv.lease()).await;
                held.push(HeldStatus {
                    name: name.clone(),
                    key: key.clone(),
                    fence: fenced.then(|| Fence::new(epoch, kv.mod_revision() as u64)),
                    ttl_ms,
                    left_ms,
                    renewing: false,
                    leader: None,
                    kind: if fenced { "lock" } else { "semaphore" }.to_string(),
                    mode: None,
                    weight: 1,
                });
            }
            if queue.len() > limit {
                waiting.push(WaitingStatus {
                    name: queue[0].0.clone(),
                    key: queue[0].1.clone(),
                    kind: if fenced { "lock" } else { "semaphore" }.to_string(),
                    waiters: queue.len() - limit,
                });
            }
        }
    }
    elections(inner, epoch, &mut held, &mut waiting).await?;
    let last_fence = held.iter().filter_map(|h| h.fence).max();
    Ok(Status {
        epoch,
        fences_given: 0,
        last_fence,
        grace_left_ms: None,
        held_total: held.len(),
        waiting_total: waiting.len(),
        more: false,
        held,
        waiting,
    })
}

/// Adds each election's leadership (its leader key: name, no key, the
/// leader's value and term) to `held`, and its other campaigners to
/// `waiting` (all of them while a hand-over is under way).
async fn elections(
    inner: &Inner,
    epoch: u64,
    held: &mut Vec<HeldStatus>,
    waiting: &mut Vec<WaitingStatus>,
) -> Result<()> {
    let client = &inner.client;
    let all = inner.layout.elections();
    let mut got = retry(client, "listing the elections on etcd", || {
        let (mut kv, all) = (client.kv_client(), all.clone());
        async move { kv.get(all, Some(GetOptions::new().with_prefix())).await }
    })
    .await?;
    let mut seen: Vec<(String, bool, KeyValue)> = got
        .take_kvs()
        .into_iter()
        .filter_map(|kv| {
            let (name, leader) = inner.layout.parse_election(kv.key())?;
            Some((name, leader, kv))
        })
        .collect();
    seen.sort_by(|a, b| a.0.cmp(&b.0));
    for election in seen.chunk_by(|a, b| a.0 == b.0) {
        let name = &election[0].0;
        let leader = election.iter().find(|(_, leader, _)| *leader);
        let in_queue = election.iter().filter(|(_, leader, _)| !leader).count();
        if let Some((_, _, kv)) = leader {
            let (ttl_ms, left_ms) = lease_times(inner, kv.lease()).await;
            held.push(HeldStatus {
                name: name.clone(),
                key: String::new(),
                fence: Some(Fence::new(epoch, kv.mod_revision() as u64)),
                ttl_ms,
                left_ms,
                renewing: false,
                leader: Some(String::from_utf8_lossy(kv.value()).into_owned()),
                kind: "election".to_string(),
                mode: None,
                weight: 1,
            });
        }
        let waiters = in_queue.saturating_sub(usize::from(leader.is_some()));
        if waiters > 0 {
            waiting.push(WaitingStatus {
                name: name.clone(),
                key: String::new(),
                kind: "election".to_string(),
                waiters,
            });
        }
    }
    Ok(())
}

/// The granted TTL and the time left of etcd lease `id`, in ms (0 and 0
/// when etcd does not say).
async fn lease_times(inner: &Inner, id: i64) -> (u64, u64) {
    let client = &inner.client;
    let asked = retry(client, "reading the ttl of an etcd lease", || {
        let mut lease = client.lease_client();
        async move { lease.time_to_live(id, None).await }
    })
    .await;
    match asked {
        Ok(t) => (
            t.granted_ttl().max(0) as u64 * 1000,
            t.ttl().max(0) as u64 * 1000,
        ),
        Err(_) => (0, 0),
    }
}
