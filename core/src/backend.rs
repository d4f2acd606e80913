//! What a store is underneath: an engine in this process, or a server
//! reached over a connection. `Store`, `Locks` and leases speak to either
//! through this one trait.

use crate::election::{Leader, Observer};
use crate::error::Result;
use crate::status::{Status, StatusPage};
use crate::vocab::{Grant, LeaseId};
use crate::vocab::{KeyId, Request};
use std::path::Path;

/// The operations every kind of store provides.
#[async_trait::async_trait]
pub(crate) trait Backend: Send + Sync + 'static {
    /// Waits first come first served for the key of `request` (a lock's, a
    /// semaphore's, or an election's: to lead it), at most its `wait`, then
    /// `timeout` as [`Request::within_wait`] words it, and it never held;
    /// dropping the future gives up without leaking a lease or a
    /// leadership. The backend applies the wait where its queue is; callers
    /// pass it down and never apply it again.
    async fn acquire(&self, request: Request) -> Result<Grant>;

    /// Grants the key if it is free now.
    async fn try_acquire(&self, request: Request) -> Result<Option<Grant>>;

    /// Extends a held lease by its TTL.
    async fn renew(&self, id: LeaseId) -> Result<()>;

    /// Releases a held lease.
    async fn release(&self, id: LeaseId) -> Result<()>;

    /// Releases a lease from a `Drop`: at once or in the background.
    fn release_on_drop(&self, id: LeaseId);

    /// Tells the store that a guard refused a late write to `resource`
    /// under a lease on `key`, for it to count per group. Never blocks nor
    /// fails: what cannot be told at once is dropped. Counted nowhere by
    /// default (etcd).
    fn refused(&self, key: &KeyId, resource: &str) {
        let _ = (key, resource);
    }

    /// The store's OpenTelemetry tracer, taken when it was opened.
    #[cfg(feature = "otel")]
    fn tracer(&self) -> &crate::otel::StoreTracer;

    /// The store's state: the held leases and queues of waiters on `page`
    /// (checked by the caller).
    async fn status(&self, page: StatusPage) -> Result<Status>;

    /// Writes a consistent copy of `kv.db` to `dest`.
    async fn backup(&self, dest: &Path) -> Result<()>;

    /// The leader of the election `name` (checked by the caller) now.
    async fn leader(&self, name: &str) -> Result<Option<Leader>>;

    /// Every change of the leader of the election `name` (checked by the
    /// caller), from its leader now.
    async fn observe(&self, name: &str) -> Result<Observer>;

    /// Every grant, end and change of queue length from now on in the
    /// group `name` of `kind` (both checked by the caller): on its key
    /// `key`, or on every key when `None`.
    async fn watch(
        &self,
        kind: crate::vocab::GroupKind,
        name: &str,
        key: Option<String>,
    ) -> Result<crate::watch::Watch>;

    /// Ends every lease and wait; idempotent.
    async fn close(&self) -> Result<()>;

    /// The test kit: moves the store's time `by` forward (see
    /// `Engine::advance`). Refused unless the store is a test store.
    async fn advance(&self, by: std::time::Duration) -> Result<()> {
        let _ = by;
        Err(crate::engine::testing::refused())
    }

    /// The test kit: ends lease `id` (this backend's id) as if it ran out.
    /// Refused unless the store is a test store.
    async fn expire(&self, id: LeaseId) -> Result<()> {
        let _ = id;
        Err(crate::engine::testing::refused())
    }

    /// The test kit: ends every lease held on `key` of the groups called
    /// `name` (both checked by the caller); returns how many.
    /// Refused unless the store is a test store.
    async fn expire_key(&self, name: &str, key: &str) -> Result<usize> {
        let _ = (name, key);
        Err(crate::engine::testing::refused())
    }
}
