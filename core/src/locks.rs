//! `Locks`: a named group of exclusive locks, one per key, whose leases
//! carry fences.

use crate::error::{Error, Result};
use crate::group::{hold_outcome, option_builders, Group};
use crate::lease::Lease;
use crate::names::Key;
use crate::options::Options;

/// A group of exclusive locks, one per key. Cheap to clone.
#[derive(Clone)]
pub struct Locks {
    group: Group,
}

impl Locks {
    pub(crate) fn new(group: Group) -> Locks {
        Locks { group }
    }

    /// This group with the fields `over` sets replaced.
    pub fn with(self, over: Options) -> Locks {
        Locks {
            group: self.group.with_options(over),
        }
    }

    option_builders!();

    /// Waits first come first served for `key` and holds it. Dropping the
    /// future gives up the wait without leaking a lease.
    pub async fn acquire(&self, key: impl Key) -> Result<Lease> {
        self.acquire_with(key, Options::default()).await
    }

    /// `acquire` with per-call options.
    pub async fn acquire_with(&self, key: impl Key, options: Options) -> Result<Lease> {
        let (holding, fence) = self
            .group
            .acquire(key.key_text().into_owned(), options)
            .await?;
        Ok(Lease::new(
            holding,
            fence.expect("a lock's grant has a fence"),
        ))
    }

    /// Holds `key` if it is free now.
    pub async fn try_acquire(&self, key: impl Key) -> Result<Option<Lease>> {
        self.try_acquire_with(key, Options::default()).await
    }

    /// `try_acquire` with per-call options.
    pub async fn try_acquire_with(&self, key: impl Key, options: Options) -> Result<Option<Lease>> {
        let held = self
            .group
            .try_acquire(key.key_text().into_owned(), options)
            .await?;
        Ok(held.map(|(holding, fence)| {
            Lease::new(holding, fence.expect("a lock's grant has a fence"))
        }))
    }

    /// Acquires `key`, runs `body` with the lease, and releases it however
    /// `body` ends; returns what `body` returned. A lease lost before `body`
    /// ended turns a success into `lease_lost`; it never hides `body`'s error.
    pub async fn hold<T, E: From<Error>>(
        &self,
        key: impl Key,
        body: impl AsyncFnOnce(&Lease) -> Result<T, E>,
    ) -> Result<T, E> {
        self.hold_with(key, Options::default(), body).await
    }

    /// `hold` with per-call options.
    pub async fn hold_with<T, E: From<Error>>(
        &self,
        key: impl Key,
        options: Options,
        body: impl AsyncFnOnce(&Lease) -> Result<T, E>,
    ) -> Result<T, E> {
        let lease = self.acquire_with(key, options).await?;
        let result = body(&lease).await;
        let released = lease.release().await;
        hold_outcome(result, released)
    }
}
