//! The leases held through a client's connections: each gets a local id
//! (the `LeaseId` the rest of the crate sees) and a lost signal, which
//! turns when the server says the lease ended, a renewal fails, or its
//! connection breaks.
//!
//! The table knows a connection only as a [`Carrier`] (link.rs implements
//! it) and starts the renewer through the function it is given, so that
//! the link and the renewer use the table and not the other way round.

use crate::error::{Error, Result};
use crate::fence::Fence;
use crate::vocab::{lost_signal, LostSender};
use crate::vocab::{Grant, LeaseId};
use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use tokio::sync::Notify;
use tokio::time::Instant;

/// How a granted lease is kept: its TTL, and whether to renew it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct LeaseTerms {
    pub ttl: Duration,
    pub renew: bool,
}

/// The connection a lease was granted on, as the table needs it.
pub(crate) trait Carrier: Send + Sync + 'static {
    /// Which connection of its client this is: a broken one loses all its
    /// leases.
    fn generation(&self) -> u64;
    /// Releases a lease by its wire id, not waiting for the reply.
    fn release_nowait(&self, wire: &str);
}

struct Entry<L> {
    link: Arc<L>,
    wire: String,
    ttl: Duration,
    lost: LostSender,
    /// When it is next renewed; `None` when it is not renewing or a
    /// renewal is under way.
    renew_at: Option<Instant>,
}

struct Inner<L> {
    next: LeaseId,
    leases: HashMap<LeaseId, Entry<L>>,
    by_wire: HashMap<(u64, String), LeaseId>,
    renewals: BTreeSet<(Instant, LeaseId)>,
    renewer_started: bool,
    /// When the renewer next looks at the renewals by itself (`None`: not
    /// until woken), so that only an earlier renewal needs to wake it.
    renewer_wakes_at: Option<Instant>,
}

/// A renewal that is due: which lease, where, and its TTL.
pub(crate) struct Due<L> {
    pub id: LeaseId,
    pub link: Arc<L>,
    pub wire: String,
    pub ttl: Duration,
}

/// Every lease held through one `Remote`, each with the connection `L` it
/// was granted on.
pub(crate) struct RemoteLeases<L> {
    inner: Mutex<Inner<L>>,
    /// Wakes the renewer when an earlier renewal is scheduled.
    pub(crate) wake: Arc<Notify>,
    /// Starts the renewer, when the first renewing lease is recorded.
    start_renewer: fn(&Arc<RemoteLeases<L>>),
}

impl<L: Carrier> RemoteLeases<L> {
    /// An empty table; `start_renewer` is called once, when the first
    /// renewing lease is recorded.
    pub(crate) fn new(start_renewer: fn(&Arc<RemoteLeases<L>>)) -> RemoteLeases<L> {
        RemoteLeases {
            inner: Mutex::new(Inner {
                next: LeaseId::default(),
                leases: HashMap::new(),
                by_wire: HashMap::new(),
                renewals: BTreeSet::new(),
                renewer_started: false,
                renewer_wakes_at: None,
            }),
            wake: Arc::default(),
            start_renewer,
        }
    }

    fn inner(&self) -> MutexGuard<'_, Inner<L>> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Records a lease the server granted on `link`, and schedules its
    /// renewals when `terms` asks for them.
    pub(crate) fn record(
        self: &Arc<Self>,
        link: &Arc<L>,
        wire: &str,
        fence: Option<Fence>,
        terms: LeaseTerms,
    ) -> Grant {
        let (lost, lost_rx) = lost_signal();
        let mut inner = self.inner();
        inner.next += 1;
        let id = inner.next;
        inner
            .by_wire
            .insert((link.generation(), wire.to_string()), id);
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
                (self.start_renewer)(self);
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
    fn schedule(&self, inner: &mut Inner<L>, id: LeaseId, at: Instant) {
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
    pub(crate) fn due(&self, now: Instant) -> (Vec<Due<L>>, Option<Instant>) {
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

    fn remove(inner: &mut Inner<L>, id: LeaseId) -> Option<Entry<L>> {
        let entry = inner.leases.remove(&id)?;
        inner
            .by_wire
            .remove(&(entry.link.generation(), entry.wire.clone()));
        if let Some(at) = entry.renew_at {
            inner.renewals.remove(&(at, id));
        }
        Some(entry)
    }

    /// The connection and wire id of a held lease.
    pub(crate) fn get(&self, id: LeaseId) -> Result<(Arc<L>, String)> {
        let inner = self.inner();
        let entry = inner.leases.get(&id).ok_or_else(|| not_held(id))?;
        Ok((entry.link.clone(), entry.wire.clone()))
    }

    /// Forgets a lease its holder releases, returning where to release it.
    pub(crate) fn take(&self, id: LeaseId) -> Result<(Arc<L>, String)> {
        let entry = RemoteLeases::remove(&mut self.inner(), id).ok_or_else(|| not_held(id))?;
        entry.lost.tell(Error::lease_lost("the lease was released"));
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
        if let Some(entry) = RemoteLeases::remove(&mut self.inner(), id) {
            entry.lost.tell(reason);
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
            .filter(|(_, e)| e.link.generation() == generation)
            .map(|(id, _)| *id)
            .collect();
        for id in ids {
            if let Some(entry) = RemoteLeases::remove(&mut inner, id) {
                entry.lost.tell(reason.clone());
            }
        }
    }
}

fn not_held(id: LeaseId) -> Error {
    Error::lease_lost(format!(
        "lease {id} is not held: it ran out, was released, or its connection broke"
    ))
}
