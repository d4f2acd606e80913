//! A snapshot of a store on etcd: its epoch, and each queue's holders and
//! waiters, and each election's leader and campaigners in its queue. An
//! entry is shown held when its weight and the weights of the entries
//! before it sum to at most its key's limit, as acquire.rs grants it.
//!
//! A lease's TTL and time left are its shared etcd lease's (whole seconds:
//! the TTL it runs out at), and whether it is renewing is its entry's name's
//! (layout.rs). A lease held without renewals may run out sooner than its
//! time left says: its own deadline lives only in its holder's process.

use super::call::retry;
use super::epoch;
use super::layout::{entry_data, kind_word, parse_places, renewing};
use super::shared::Inner;
use crate::error::Result;
use crate::fence::Fence;
use crate::status::{HeldStatus, Status, WaitingStatus};
use crate::vocab::GroupKind;
use etcd_client::{GetOptions, KeyValue, SortOrder, SortTarget};
use std::collections::HashMap;

/// The granted TTL and the time left, in ms, of each etcd lease asked
/// about, so that each is asked once per status.
type LeaseTimes = HashMap<i64, (u64, u64)>;

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
    let mut times = LeaseTimes::new();
    for kind in [GroupKind::Lock, GroupKind::Semaphore, GroupKind::RwLock] {
        let queues = inner.layout.queues(kind);
        let options = GetOptions::new()
            .with_prefix()
            .with_sort(SortTarget::Create, SortOrder::Ascend);
        let mut got = retry(client, "listing the queues on etcd", || {
            let (mut kv, queues, options) = (client.kv_client(), queues.clone(), options.clone());
            async move { kv.get(queues, Some(options)).await }
        })
        .await?;
        let mut entries: Vec<Entry> = got
            .take_kvs()
            .into_iter()
            .filter_map(|kv| {
                let (name, key, renewing) = inner.layout.parse_entry(kind, kv.key())?;
                let places = parse_places(kv.value()).unwrap_or((1, 1));
                Some(Entry {
                    name,
                    key,
                    renewing,
                    places,
                    kv,
                })
            })
            .collect();
        // Sorting is stable: within a queue, entries stay in create order.
        entries.sort_by(|a, b| (&a.name, &a.key).cmp(&(&b.name, &b.key)));
        for queue in entries.chunk_by(|a, b| (&a.name, &a.key) == (&b.name, &b.key)) {
            let limit = u64::from(queue[0].places.0);
            let mut used = 0u64;
            let mut waiters = 0;
            for entry in queue {
                let (_, weight) = entry.places;
                used += u64::from(weight);
                if waiters > 0 || used > limit {
                    waiters += 1;
                    continue;
                }
                let write = kind == GroupKind::RwLock && u64::from(weight) == limit;
                let (ttl_ms, left_ms) = times_of(inner, &mut times, entry.kv.lease()).await;
                held.push(HeldStatus {
                    name: entry.name.clone(),
                    key: entry.key.clone(),
                    fence: (kind == GroupKind::Lock || write)
                        .then(|| Fence::new(epoch, entry.kv.mod_revision() as u64)),
                    ttl_ms,
                    left_ms,
                    renewing: entry.renewing,
                    leader: None,
                    kind: kind_word(kind).to_string(),
                    mode: (kind == GroupKind::RwLock)
                        .then(|| if write { "write" } else { "read" }.to_string()),
                    weight,
                    held_ms: None,
                    data: entry_data(entry.kv.value()),
                });
            }
            if waiters > 0 {
                waiting.push(WaitingStatus {
                    name: queue[0].name.clone(),
                    key: queue[0].key.clone(),
                    kind: kind_word(kind).to_string(),
                    waiters,
                    waited_ms: None,
                });
            }
        }
    }
    elections(inner, epoch, &mut times, &mut held, &mut waiting).await?;
    let last_fence = held.iter().filter_map(|h| h.fence).max();
    Ok(Status {
        epoch,
        fences_given: 0,
        last_fence,
        grace_left_ms: None,
        held_total: held.len(),
        waiting_total: waiting.len(),
        more: false,
        testing: false,
        longest_waits: Vec::new(),
        late_writes_refused: Vec::new(),
        held,
        waiting,
    })
}

/// An entry of a queue, read back.
struct Entry {
    name: String,
    key: String,
    renewing: bool,
    /// Its limit and weight (1 and 1 when its value says neither).
    places: (u32, u32),
    kv: KeyValue,
}

/// Adds each election's leadership (its leader key: name, no key, the
/// leader's value and term) to `held`, and its other campaigners to
/// `waiting` (all of them while a hand-over is under way).
async fn elections(
    inner: &Inner,
    epoch: u64,
    times: &mut LeaseTimes,
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
            // The leader's entry in the queue is the one its grant wrote
            // with the leader key.
            let renews = election.iter().any(|(_, leader, e)| {
                !leader
                    && e.mod_revision() == kv.mod_revision()
                    && renewing(&String::from_utf8_lossy(e.key()))
            });
            let (ttl_ms, left_ms) = times_of(inner, times, kv.lease()).await;
            held.push(HeldStatus {
                name: name.clone(),
                key: String::new(),
                fence: Some(Fence::new(epoch, kv.mod_revision() as u64)),
                ttl_ms,
                left_ms,
                renewing: renews,
                leader: Some(String::from_utf8_lossy(kv.value()).into_owned()),
                kind: "election".to_string(),
                mode: None,
                weight: 1,
                held_ms: None,
                data: None,
            });
        }
        let waiters = in_queue.saturating_sub(usize::from(leader.is_some()));
        if waiters > 0 {
            waiting.push(WaitingStatus {
                name: name.clone(),
                key: String::new(),
                kind: "election".to_string(),
                waiters,
                waited_ms: None,
            });
        }
    }
    Ok(())
}

/// The granted TTL and the time left of etcd lease `id`, in ms, asked of
/// etcd once per status.
async fn times_of(inner: &Inner, times: &mut LeaseTimes, id: i64) -> (u64, u64) {
    if let Some(known) = times.get(&id) {
        return *known;
    }
    let asked = lease_times(inner, id).await;
    times.insert(id, asked);
    asked
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
