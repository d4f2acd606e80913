//! The engine's status: a snapshot of the held leases and the queues of
//! waiters, a page at a time, and their totals alone.

use super::keys::KeyState;
use super::record::LeaseRecord;
use super::tally::Totals;
use super::Engine;
use crate::fence::Fence;
use crate::status::{HeldStatus, Status, StatusPage, WaitingStatus, LONGEST_WAITS};
use crate::vocab::KeyId;
use std::collections::HashMap;
use tokio::time::Instant;

impl Engine {
    /// A snapshot of the epoch, the fences given, and the held leases and
    /// queues of waiters on `page` (by name, then key, then fence), with
    /// their totals. Only those shown are copied out.
    pub(crate) fn status(&self, page: StatusPage) -> Status {
        let mut st = self.lock();
        let now = Instant::now();
        self.reap(&mut st, now);
        let now_nanos = st.nanos(now);
        let mut all_held: Vec<(&LeaseRecord, &KeyId)> = st
            .leases
            .iter()
            .filter_map(|(_, h)| Some((h, &*st.keys.get(h.key)?.id)))
            .collect();
        let held_total = all_held.len();
        let order = |a: &(&LeaseRecord, &KeyId), b: &(&LeaseRecord, &KeyId)| {
            (a.1.name(), a.1.key(), a.0.count).cmp(&(b.1.name(), b.1.key(), b.0.count))
        };
        keep_first(&mut all_held, page.offset.saturating_add(page.limit), order);
        let held: Vec<HeldStatus> = page
            .of(all_held)
            .into_iter()
            .map(|(h, key)| HeldStatus {
                name: key.name().to_string(),
                key: key.key().to_string(),
                fence: (h.count > 0).then(|| Fence::new(self.epoch, h.count)),
                ttl_ms: u64::from(h.ttl_ms),
                left_ms: if h.renewing {
                    u64::from(h.ttl_ms).min(h.expires.saturating_sub(now_nanos) / 1_000_000)
                } else {
                    h.expires.saturating_sub(now_nanos) / 1_000_000
                },
                renewing: h.renewing,
                kind: key.kind().to_string(),
                mode: mode_of(key, h.count),
                weight: h.weight,
                leader: self.leader_value(key, h.count),
                data: h.data.as_deref().map(str::to_string),
                held_ms: Some(now_nanos.saturating_sub(h.granted_at) / 1_000_000),
            })
            .collect();
        let mut queues: Vec<&KeyState> = st
            .keys
            .iter()
            .filter(|(_, k)| !k.waiters.is_empty())
            .map(|(_, k)| k)
            .collect();
        let waiting_total = queues.len();
        let line = |k: &KeyState| WaitingStatus {
            name: k.id.name().to_string(),
            key: k.id.key().to_string(),
            kind: k.id.kind().to_string(),
            waiters: k.waiters.len(),
            waited_ms: Some(waited(k, now_nanos) / 1_000_000),
        };
        let mut longest = queues.clone();
        let oldest_first = |a: &&KeyState, b: &&KeyState| {
            waited(b, now_nanos)
                .cmp(&waited(a, now_nanos))
                .then_with(|| (a.id.name(), a.id.key()).cmp(&(b.id.name(), b.id.key())))
        };
        keep_first(&mut longest, LONGEST_WAITS, oldest_first);
        let longest_waits: Vec<WaitingStatus> = longest.into_iter().map(line).collect();
        let order = |a: &&KeyState, b: &&KeyState| {
            (a.id.name(), a.id.key()).cmp(&(b.id.name(), b.id.key()))
        };
        keep_first(&mut queues, page.offset.saturating_add(page.limit), order);
        let waiting: Vec<WaitingStatus> = page.of(queues).into_iter().map(line).collect();
        Status {
            epoch: self.epoch,
            fences_given: st.count,
            last_fence: (st.count > 0).then(|| Fence::new(self.epoch, st.count)),
            grace_left_ms: st
                .grace_until
                .map(|g| g.saturating_duration_since(now).as_millis() as u64),
            more: page.more(held_total, waiting_total),
            testing: self.testing,
            longest_waits,
            late_writes_refused: self.refused_counts().listed(),
            held,
            waiting,
            held_total,
            waiting_total,
        }
    }
}

impl Engine {
    /// What is held and waiting now; O(keys).
    pub(crate) fn totals(&self) -> Totals {
        let st = self.lock();
        let now = Instant::now();
        let mut by_name: HashMap<(&'static str, &str), usize> = HashMap::new();
        for (_, key) in st.keys.iter().filter(|(_, k)| !k.waiters.is_empty()) {
            *by_name.entry((key.id.kind(), key.id.name())).or_default() += key.waiters.len();
        }
        Totals {
            held: st.leases.len(),
            waiters: by_name.values().sum(),
            waiting_by_name: by_name
                .into_iter()
                .map(|((kind, name), n)| (kind, name.to_string(), n))
                .collect(),
            grace_left: st.grace_until.map_or(std::time::Duration::ZERO, |g| {
                g.saturating_duration_since(now)
            }),
        }
    }
}

/// `read` or `write` for a read-write lock's lease (a write lease has a
/// fence count); `None` for every other kind.
pub(crate) fn mode_of(key: &KeyId, count: u64) -> Option<String> {
    (key.group_kind() == crate::vocab::GroupKind::RwLock)
        .then(|| if count > 0 { "write" } else { "read" }.to_string())
}

/// Keeps the first `limit` of `items` in `order`, sorted; in O(n) plus the
/// sort of those kept.
/// How long the first caller in `key`'s line has waited, in nanoseconds.
fn waited(key: &KeyState, now_nanos: u64) -> u64 {
    key.waiters
        .front()
        .map_or(0, |w| now_nanos.saturating_sub(w.queued_at))
}

fn keep_first<T>(items: &mut Vec<T>, limit: usize, order: impl Fn(&T, &T) -> std::cmp::Ordering) {
    if items.len() > limit {
        items.select_nth_unstable_by(limit, &order);
        items.truncate(limit);
    }
    items.sort_unstable_by(order);
}
