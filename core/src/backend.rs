//! What a store is underneath: an engine in this process, or a server
//! reached over a connection. `Store`, `Locks` and leases speak to either
//! through this one trait.

use crate::engine::{Grant, LeaseId, Request};
use crate::error::Result;
use crate::status::Status;
use std::path::Path;

/// The operations every kind of store provides.
#[async_trait::async_trait]
pub(crate) trait Backend: Send + Sync + 'static {
    /// Waits first come first served for the key; dropping the future gives
    /// up without leaking a lease.
    async fn acquire(&self, request: Request) -> Result<Grant>;

    /// Grants the key if it is free now.
    async fn try_acquire(&self, request: Request) -> Result<Option<Grant>>;

    /// Extends a held lease by its TTL.
    async fn renew(&self, id: LeaseId) -> Result<()>;

    /// Releases a held lease.
    async fn release(&self, id: LeaseId) -> Result<()>;

    /// Releases a lease from a `Drop`: at once or in the background.
    fn release_on_drop(&self, id: LeaseId);

    /// The store's state.
    async fn status(&self) -> Result<Status>;

    /// Writes a consistent copy of `kv.db` to `dest`.
    async fn backup(&self, dest: &Path) -> Result<()>;

    /// Ends every lease and wait; idempotent.
    async fn close(&self) -> Result<()>;
}
