//! What every part of the etcd backend shares: the cluster's members, the
//! layout of its keys, the shared etcd leases and the leases this process
//! holds there, and whether the store was closed.

use super::address::EtcdAddress;
use super::layout::Layout;
use super::members::Members;
use super::sessions::Sessions;
use super::table::{EtcdLeases, KeptLease};
use crate::error::{Error, Result};
use std::sync::atomic::AtomicU64;
use tokio::sync::watch;

/// What every part of the etcd backend shares.
pub(crate) struct Inner {
    pub(crate) client: Members,
    pub(crate) address: EtcdAddress,
    pub(crate) layout: Layout,
    pub(crate) table: EtcdLeases,
    /// The shared etcd lease per TTL.
    pub(crate) sessions: Sessions,
    /// The next lease's number.
    pub(crate) next_id: AtomicU64,
    /// True once the store was closed.
    pub(crate) closed: watch::Sender<bool>,
    /// Where deletions from `Drop` run.
    pub(crate) runtime: tokio::runtime::Handle,
}

impl Inner {
    pub(crate) fn check_open(&self) -> Result<()> {
        if *self.closed.borrow() {
            return Err(Error::store_closed(&self.address));
        }
        Ok(())
    }

    /// Tells a lease's holder `reason` and deletes its entry from a
    /// background task: what a `Drop` can do.
    pub(crate) fn end_in_background(&self, held: KeptLease, reason: Error) {
        held.end(reason);
        let (client, watch) = (self.client.clone(), held.watch);
        self.runtime.spawn(async move {
            let _ = watch.delete(&client).await;
        });
    }
}
