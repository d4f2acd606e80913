//! The leases held through a client's connections: each gets a local id
//! (the `LeaseId` the rest of the crate sees) and a lost signal, which
//! turns when the server says the lease ended, a renewal fails, or its
//! connection breaks.

use super::link::Link;
use super::renewer;
use crate::engine::{Grant, LeaseId};
use crate::error::{Error, Result};
use crate::fence::Fence;
use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use tokio::sync::{watch, Notify};
use tokio::time::Instant;

/// How a granted lease is kept: its TTL, and whether to renew it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct LeaseTerms {
    pub ttl: Duration,
    pub renew: bool,
}

struct Entry {
    link: Arc<Link>,
    wire: String,
    ttl: Duration,
    lost: watch::Sender<Option<Error>>,
    /// When it is next renewed; `None` when it is not kept alive or a
    /// renewal is under way.
    renew_at: Option<Instant>,
}

#[derive(Default)]
struct Inner {
    next: LeaseId,
    leases: HashMap<LeaseId, Entry>,
    by_wire: HashMap<(u64, String), LeaseId>,
    renewals: BTreeSet<(Instant, LeaseId)>,
    renewer_started: bool,
    /// When the renewer next looks at the renewals by itself (`None`: not
    /// until woken), so that only an earlier renewal needs to wake it.
    renewer_wakes_at: Option<Instant>,
}

/// A renewal that is due: which lease, where, and its TTL.
pub(crate) struct Due {
    pub id: LeaseId,
    pub link: Arc<Link>,
    pub wire: String,
    pub ttl: Duration,
}

/// Every lease held through one `Remote`.
#[derive(Default)]
pub(crate) struct Table {
    inner: Mutex<Inner>,
    /// Wakes the renewer when an earlier renewal is scheduled.
    pub(crate) wake: Arc<Notify>,
}

impl Table {
    fn inner(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Records a lease the server granted on `link`, and schedules its
    /// renewals when `terms` asks for them.
    pub(crate) fn record(
        self: &Arc<Self>,
        link: &Arc<Link>,
        wire: &str,
        fence: Option<Fence>,
        terms: LeaseTerms,
    ) -> Grant {
        let (lost, lost_rx) = watch::channel(None);
        let mut inner = self.inner();
        inner.next += 1;
        let id = inner.next;
        inner
            .by_wire
            .insert((link.generation, wire.to_string()), id);
        inner.leases.insert(
            id,
            Entry {
                link: link.clone(),
                wire: wire.to_string(),
                ttl: terms.ttl,
                lost,
                renew_at: None,
            },
        );
        if terms.renew {
            if !inner.renewer_started {
                inner.renewer_started = true;
                renewer::spawn(self);
            }
            self.schedule(&mut inner, id, Instant::now() + terms.ttl / 3);
        }
        Grant {
            id,
            fence,
            lost: lost_rx,
        }
    }

    /// Schedules a renewal, waking the renewer only when it would otherwise
    /// look too late.
    fn schedule(&self, inner: &mut Inner, id: LeaseId, at: Instant) {
        if let Some(entry) = inner.leases.get_mut(&id) {
            entry.renew_at = Some(at);
            inner.renewals.insert((at, id));
            if inner.renewer_wakes_at.is_none_or(|wakes| at < wakes) {
                inner.renewer_wakes_at = Some(at);
                self.wake.notify_one();
            }
        }
    }

    /// Schedules the next renewal of a lease still held, `ttl / 3` from now.
    pub(crate) fn renewed(&self, id: LeaseId) {
        let mut inner = self.inner();
        if let Some(ttl) = inner.leases.get(&id).map(|e| e.ttl) {
            self.schedule(&mut inner, id, Instant::now() + ttl / 3);
        }
    }

    /// Takes the renewals due by `now`, and says when the next one is; the
    /// renewer must look again then (or when woken).
    pub(crate) fn due(&self, now: Instant) -> (Vec<Due>, Option<Instant>) {
        let mut inner = self.inner();
        let mut due = Vec::new();
        while let Some(&(at, id)) = inner.renewals.first() {
            if at > now {
                break;
            }
            inner.renewals.pop_first();
            if let Some(entry) = inner.leases.get_mut(&id) {
                entry.renew_at = None;
                due.push(Due {
                    id,
                    link: entry.link.clone(),
                    wire: entry.wire.clone(),
                    ttl: entry.ttl,
                });
            }
        }
        let next = inner.renewals.first().map(|&(at, _)| at);
        inner.renewer_wakes_at = next;
        (due, next)
    }

    fn remove(inner: &mut Inner, id: LeaseId) -> Option<Entry> {
        let entry = inner.leases.remove(&id)?;
        inner
            .by_wire
            .remove(&(entry.link.generation, entry.wire.clone()));
        if let Some(at) = entry.renew_at {
            inner.renewals.remove(&(at, id));
        }
        Some(entry)
    }

    /// The connection and wire id of a held lease.
    pub(crate) fn get(&self, id: LeaseId) -> Result<(Arc<Link>, String)> {
        let inner = self.inner();
        let entry = inner.leases.get(&id).ok_or_else(|| not_held(id))?;
        Ok((entry.link.clone(), entry.wire.clone()))
    }

    /// Forgets a lease its holder releases, returning where to release it.
    pub(crate) fn take(&self, id: LeaseId) -> Result<(Arc<Link>, String)> {
        let entry = Table::remove(&mut self.inner(), id).ok_or_else(|| not_held(id))?;
        entry
            .lost
            .send_replace(Some(Error::lease_lost("the lease was released")));
        Ok((entry.link, entry.wire))
    }

    /// Forgets a lease nobody wants and releases it without waiting.
    pub(crate) fn forget_and_release(&self, id: LeaseId) {
        if let Ok((link, wire)) = self.take(id) {
            link.release_nowait(&wire);
        }
    }

    /// Tells a lease's holder it is lost, and forgets it.
    pub(crate) fn lost(&self, id: LeaseId, reason: Error) {
        if let Some(entry) = Table::remove(&mut self.inner(), id) {
            entry.lost.send_replace(Some(reason));
        }
    }

    /// `lost` for a lease named by its connection and wire id.
    pub(crate) fn lost_wire(&self, generation: u64, wire: &str, reason: Error) {
        let id = self
            .inner()
            .by_wire
            .get(&(generation, wire.to_string()))
            .copied();
        if let Some(id) = id {
            self.lost(id, reason);
        }
    }

    /// `lost` for every lease of a connection.
    pub(crate) fn lost_generation(&self, generation: u64, reason: Error) {
        let mut inner = self.inner();
        let ids: Vec<LeaseId> = inner
            .leases
            .iter()
            .filter(|(_, e)| e.link.generation == generation)
            .map(|(id, _)| *id)
            .collect();
        for id in ids {
            if let Some(entry) = Table::remove(&mut inner, id) {
                entry.lost.send_replace(Some(reason.clone()));
            }
        }
    }
}

fn not_held(id: LeaseId) -> Error {
    Error::lease_lost(format!(
        "lease {id} is not held: it ran out, was released, or its connection broke"
    ))
}
