//! The leases this client holds on etcd, by lease id (the etcd lease id),
//! each with its watch and the task that keeps it.

use super::lease_watch::LeaseWatch;
use crate::error::{Error, Result};
use crate::vocab::LeaseId;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use tokio::task::AbortHandle;

/// One held lease.
pub(crate) struct KeptLease {
    pub(crate) watch: Arc<LeaseWatch>,
    pub(crate) task: AbortHandle,
}

impl KeptLease {
    /// Stops keeping the lease and tells its holder `reason`.
    pub(crate) fn end(&self, reason: Error) {
        self.task.abort();
        self.watch.lose(reason);
    }
}

/// The held leases.
#[derive(Default)]
pub(crate) struct EtcdLeases {
    held: Mutex<HashMap<LeaseId, KeptLease>>,
}

impl EtcdLeases {
    fn lock(&self) -> MutexGuard<'_, HashMap<LeaseId, KeptLease>> {
        self.held.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(crate) fn insert(&self, id: LeaseId, held: KeptLease) {
        self.lock().insert(id, held);
    }

    /// The watch of a held lease.
    pub(crate) fn get(&self, id: LeaseId) -> Result<Arc<LeaseWatch>> {
        self.lock()
            .get(&id)
            .map(|h| h.watch.clone())
            .ok_or_else(|| not_held(id))
    }

    /// Takes a lease out of the table.
    pub(crate) fn take(&self, id: LeaseId) -> Result<KeptLease> {
        self.lock().remove(&id).ok_or_else(|| not_held(id))
    }

    /// Takes every lease out of the table.
    pub(crate) fn drain(&self) -> Vec<KeptLease> {
        self.lock().drain().map(|(_, h)| h).collect()
    }
}

fn not_held(id: LeaseId) -> Error {
    Error::lease_lost(format!(
        "etcd lease {id:016x} is not held: it ran out or was released"
    ))
}
