//! A store kept on etcd: the same locks, fences, semaphores and leases as an
//! embedded store, shared by every process that reaches the same etcd
//! cluster and prefix. `Store::connect("etcd://HOST:PORT[,HOST:PORT...]/PREFIX")`
//! opens one; this module exists only with the cargo feature `etcd`.
//!
//! - `address`: parsing `etcd://` addresses.
//! - `layout`: the etcd keys of a store, under `/PREFIX`.
//! - `epoch`: the epoch kept at `/PREFIX/epoch`.
//! - `session`: an etcd lease shared by this client's leases of one TTL,
//!   rounded up to whole seconds; `sessions`: one per TTL, each kept alive
//!   by a task.
//! - `acquire`: queues by create revision, the grant, giving up.
//! - `elect`: elections (a campaign is an acquire of the election's queue):
//!   who leads, and observers fed by a watch.
//! - `lease_watch`: watching one lease, telling its holder it lost it, ending it.
//! - `table`: the leases this client holds; `shared`: what every part
//!   shares (the members, the layout, the table, whether closed).
//! - `status`: a snapshot of the queues.
//! - `error_map`: etcd's errors as tinystore's codes; `call`: retries.
//!
//! docs/etcd.md says what a fence from etcd promises.

mod acquire;
mod address;
mod call;
mod elect;
mod epoch;
mod error_map;
mod layout;
mod lease_watch;
mod members;
mod resume;
mod session;
mod sessions;
mod shared;
mod status;
mod table;
mod watch;

pub(crate) use address::EtcdAddress;

use crate::backend::Backend;
use crate::election::{Leader, Observer};
use crate::error::{Code, Error, Result};
use crate::status::Status;
use crate::vocab::Request;
use crate::vocab::{Grant, LeaseId};
use layout::Layout;
use lease_watch::Deleted;
use members::Members;
use shared::Inner;
use std::path::Path;
use std::sync::atomic::AtomicU64;
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};
use table::EtcdLeases;
use tokio::time::Instant;

/// A store on etcd, as a `Backend`.
pub(crate) struct Etcd {
    inner: Arc<Inner>,
    #[cfg(feature = "otel")]
    tracer: crate::otel::StoreTracer,
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
            table: EtcdLeases::default(),
            sessions: sessions::Sessions::default(),
            next_id: AtomicU64::new(1),
            closed: tokio::sync::watch::channel(false).0,
            runtime: tokio::runtime::Handle::current(),
        }),
        #[cfg(feature = "otel")]
        tracer: crate::otel::StoreTracer::global(),
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
    #[cfg(feature = "otel")]
    fn tracer(&self) -> &crate::otel::StoreTracer {
        &self.tracer
    }

    async fn acquire(&self, request: Request) -> Result<Grant> {
        let waiting = acquire::acquire(&self.inner, request.clone(), true);
        request
            .within_wait(waiting)
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

    /// Ok once the entry is deleted, also when a try whose answer was lost
    /// deleted it (while the shared etcd lease is known to live, nothing
    /// else could have); else why the lease had ended on etcd before.
    async fn release(&self, id: LeaseId) -> Result<()> {
        let held = self.inner.table.take(id)?;
        if let Some(reason) = held.watch.lost() {
            held.task.abort();
            return Err(reason);
        }
        // Its watch must not take the delete for a loss; the holder is
        // told only once the release's outcome is known.
        held.task.abort();
        let deleted = held.watch.delete(&self.inner.client).await;
        let session = &held.watch.session;
        let lease_lived = session.lost().is_none() && Instant::now() < session.deadline();
        let outcome = match deleted {
            Ok(Deleted::Now) => Ok(()),
            Ok(Deleted::Unsure) if lease_lived => Ok(()),
            Ok(Deleted::Unsure | Deleted::Before) => Err(held.watch.ended_before()),
            Err(err) => {
                // The entry may still be there: keep trying to delete it.
                let (client, watch) = (self.inner.client.clone(), held.watch.clone());
                self.inner.runtime.spawn(async move {
                    let _ = watch.delete(&client).await;
                });
                Err(err)
            }
        };
        let told = match &outcome {
            Err(err) if err.code() == Code::LeaseLost => err.clone(),
            _ => Error::released(&held.watch.what),
        };
        held.watch.lose(told);
        outcome
    }

    fn release_on_drop(&self, id: LeaseId) {
        if let Ok(held) = self.inner.table.take(id) {
            let reason = Error::released(&held.watch.what);
            self.inner.end_in_background(held, reason);
        }
    }

    async fn status(&self, page: crate::status::StatusPage) -> Result<Status> {
        self.inner.check_open()?;
        Ok(status::status(&self.inner).await?.cut(page))
    }

    async fn backup(&self, _dest: &Path) -> Result<()> {
        Err(Error::invalid(format!(
            "the store at {} lives on etcd and has no kv.db: back the cluster up with \
             `etcdctl snapshot save` (docs/etcd.md)",
            self.inner.address
        )))
    }

    async fn leader(&self, name: &str) -> Result<Option<Leader>> {
        elect::leader(&self.inner, name).await
    }

    async fn observe(&self, name: &str) -> Result<Observer> {
        elect::observe(&self.inner, name).await
    }

    async fn watch(
        &self,
        kind: crate::vocab::GroupKind,
        name: &str,
        key: Option<String>,
    ) -> Result<crate::watch::Watch> {
        self.inner.check_open()?;
        watch::watch(&self.inner, kind, name, key).await
    }

    async fn close(&self) -> Result<()> {
        if self.inner.closed.send_replace(true) {
            return Ok(());
        }
        let reason = Error::store_closed(&self.inner.address);
        for held in self.inner.table.drain() {
            held.end(reason.clone());
        }
        // Revoking the shared etcd leases deletes every entry of this client.
        self.inner.sessions.close(reason).await;
        Ok(())
    }
}

impl Drop for Etcd {
    fn drop(&mut self) {
        self.inner.closed.send_replace(true);
        let reason = Error::closed(format!("the store at {} was dropped", self.inner.address));
        for held in self.inner.table.drain() {
            held.end(reason.clone());
        }
        let sessions = self.inner.sessions.clone();
        self.inner
            .runtime
            .spawn(async move { sessions.close(reason).await });
    }
}
