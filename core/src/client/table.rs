//! The leases held through a client's connections: each gets a local id
//! (the `LeaseId` the rest of the crate sees) and a lost signal, which
//! turns when the server says the lease ended, a renewal fails, or its
//! connection breaks.

use super::link::Link;
use super::renewer;
use crate::engine::{Grant, LeaseId};
use crate::error::{Error, Result};
use crate::fence::Fence;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use tokio::sync::watch;
use tokio::task::AbortHandle;

/// How a granted lease is kept: its TTL, and whether to renew it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct LeaseTerms {
    pub ttl: Duration,
    pub renew: bool,
}

struct Entry {
    link: Arc<Link>,
    wire: String,
    lost: watch::Sender<Option<Error>>,
    renewer: Option<AbortHandle>,
}

#[derive(Default)]
struct Inner {
    next: LeaseId,
    leases: HashMap<LeaseId, Entry>,
    by_wire: HashMap<(u64, String), LeaseId>,
}

/// Every lease held through one `Remote`.
#[derive(Default)]
pub(crate) struct Table {
    inner: Mutex<Inner>,
}

impl Table {
    fn inner(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Records a lease the server granted on `link`, starting its renewals
    /// when `terms` asks for them.
    pub(crate) fn record(
        &self,
        link: &Arc<Link>,
        wire: &str,
        fence: Option<Fence>,
        terms: LeaseTerms,
    ) -> Grant {
        let (lost, lost_rx) = watch::channel(None);
        let mut inner = self.inner();
        inner.next += 1;
        let id = inner.next;
        let renewer = terms
            .renew
            .then(|| renewer::spawn(link.clone(), id, wire.to_string(), terms.ttl));
        inner
            .by_wire
            .insert((link.generation, wire.to_string()), id);
        inner.leases.insert(
            id,
            Entry {
                link: link.clone(),
                wire: wire.to_string(),
                lost,
                renewer,
            },
        );
        Grant {
            id,
            fence,
            lost: lost_rx,
        }
    }

    fn remove(inner: &mut Inner, id: LeaseId) -> Option<Entry> {
        let entry = inner.leases.remove(&id)?;
        inner
            .by_wire
            .remove(&(entry.link.generation, entry.wire.clone()));
        if let Some(renewer) = &entry.renewer {
            renewer.abort();
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
