//! A store kept on etcd: the same locks, fences, semaphores and leases as an
//! embedded store, shared by every process that reaches the same etcd
//! cluster and prefix. `Store::connect("etcd://HOST:PORT[,HOST:PORT...]/PREFIX")`
//! opens one; this module exists only with the cargo feature `etcd`.
//!
//! - [`address`]: parsing `etcd://` addresses.
//! - `layout`: the etcd keys of a store, under `/PREFIX`.
//! - `epoch`: the epoch kept at `/PREFIX/epoch`.
//! - `session`: one etcd lease per acquire, with the TTL rounded up to
//!   whole seconds.
//! - `acquire`: lines by create revision, the grant, giving up.
//! - `guard`: renewing held leases and telling holders they lost them.
//! - `table`: the leases this client holds.
//! - `status`: a snapshot of the lines.
//! - `call`: error mapping and retries.
//!
//! docs/etcd.md says what a fence from etcd promises.

mod acquire;
pub mod address;
mod call;
mod epoch;
mod guard;
mod layout;
mod members;
mod session;
mod status;
mod table;

pub use address::EtcdAddress;

use crate::backend::Backend;
use crate::engine::{Grant, LeaseId, Request};
use crate::error::{Code, Error, Result};
use crate::status::Status;
use layout::Layout;
use members::Members;
use std::path::Path;
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};
use table::Table;
use tokio::sync::watch;

/// What every part of the etcd backend shares.
pub(crate) struct Inner {
    pub(crate) client: Members,
    pub(crate) address: EtcdAddress,
    pub(crate) layout: Layout,
    pub(crate) table: Table,
    /// True once the store was closed.
    pub(crate) closed: watch::Sender<bool>,
    /// Where revocations from `Drop` run.
    pub(crate) runtime: tokio::runtime::Handle,
}

impl Inner {
    pub(crate) fn check_open(&self) -> Result<()> {
        if *self.closed.borrow() {
            return Err(Error::closed(format!(
                "the store at {} was closed",
                self.address
            )));
        }
        Ok(())
    }

    /// Tells a lease's holder `reason` and revokes it from a background
    /// task: what a `Drop` can do.
    fn end_in_background(&self, held: table::Held, reason: Error) {
        held.end(reason);
        let (client, lease) = (self.client.clone(), held.guard.session.id);
        self.runtime.spawn(async move {
            let _ = session::revoke(&client, lease).await;
        });
    }
}

/// A store on etcd, as a `Backend`.
pub(crate) struct Etcd {
    inner: Arc<Inner>,
}

/// Dials the cluster at `address` and reads (or sets) the epoch, so that an
/// unreachable cluster fails here with `unavailable`.
pub(crate) async fn open(address: &str) -> Result<Etcd> {
    let address = EtcdAddress::parse(address)?;
    let (client, layout) = dial(&address).await?;
    epoch::ensure(&client, &layout, now_ms()).await?;
    Ok(Etcd {
        inner: Arc::new(Inner {
            client,
            address,
            layout,
            table: Table::default(),
            closed: watch::channel(false).0,
            runtime: tokio::runtime::Handle::current(),
        }),
    })
}

/// Raises the epoch of the store at `address` to max(now in ms, epoch + 1)
/// and returns it. Run it after restoring the etcd cluster from a snapshot,
/// before any client acquires: the revisions, and so the counts, went back
/// with the snapshot, and only a larger epoch keeps new fences larger than
/// those given before the restore.
pub async fn bump_epoch(address: &str) -> Result<u64> {
    let address = EtcdAddress::parse(address)?;
    let (client, layout) = dial(&address).await?;
    epoch::bump(&client, &layout, now_ms()).await
}

async fn dial(address: &EtcdAddress) -> Result<(Members, Layout)> {
    let members = Members::dial(address).await?;
    Ok((members, Layout::new(&address.prefix)))
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

#[async_trait::async_trait]
impl Backend for Etcd {
    async fn acquire(&self, request: Request) -> Result<Grant> {
        acquire::acquire(&self.inner, request, true)
            .await?
            .ok_or_else(|| Error::internal("an etcd acquire ended without a lease"))
    }

    async fn try_acquire(&self, request: Request) -> Result<Option<Grant>> {
        acquire::acquire(&self.inner, request, false).await
    }

    async fn renew(&self, id: LeaseId) -> Result<()> {
        self.inner.check_open()?;
        self.inner.table.get(id)?.renew().await
    }

    async fn release(&self, id: LeaseId) -> Result<()> {
        let held = self.inner.table.take(id)?;
        if let Some(reason) = held.guard.lost() {
            held.task.abort();
            return Err(reason);
        }
        held.end(Error::lease_lost(format!(
            "the lease on {} was released",
            held.guard.what
        )));
        match held.guard.session.revoke().await {
            Err(err) if err.code() == Code::LeaseLost => Err(Error::lease_lost(format!(
                "the lease on {} had run out on etcd before its release",
                held.guard.what
            ))),
            other => other,
        }
    }

    fn release_on_drop(&self, id: LeaseId) {
        if let Ok(held) = self.inner.table.take(id) {
            let reason =
                Error::lease_lost(format!("the lease on {} was released", held.guard.what));
            self.inner.end_in_background(held, reason);
        }
    }

    async fn status(&self) -> Result<Status> {
        self.inner.check_open()?;
        status::status(&self.inner).await
    }

    async fn backup(&self, _dest: &Path) -> Result<()> {
        Err(Error::invalid(format!(
            "the store at {} lives on etcd and has no kv.db: back the cluster up with \
             `etcdctl snapshot save` (docs/etcd.md)",
            self.inner.address
        )))
    }

    async fn close(&self) -> Result<()> {
        if self.inner.closed.send_replace(true) {
            return Ok(());
        }
        let reason = Error::closed(format!("the store at {} was closed", self.inner.address));
        let mut revocations = tokio::task::JoinSet::new();
        for held in self.inner.table.drain() {
            held.end(reason.clone());
            let (client, lease) = (self.inner.client.clone(), held.guard.session.id);
            revocations.spawn(async move { session::revoke(&client, lease).await });
        }
        while revocations.join_next().await.is_some() {}
        Ok(())
    }
}

impl Drop for Etcd {
    fn drop(&mut self) {
        self.inner.closed.send_replace(true);
        let reason = Error::closed(format!("the store at {} was dropped", self.inner.address));
        for held in self.inner.table.drain() {
            self.inner.end_in_background(held, reason.clone());
        }
    }
}
