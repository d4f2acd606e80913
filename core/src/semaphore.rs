//! `Semaphore`: a named group of semaphores, up to `limit` holders per key,
//! each with a permit that has no fence.

use crate::error::{Error, Result};
use crate::group::{hold_outcome, option_builders, Group};
use crate::lease::Permit;
use crate::names::Key;
use crate::options::Options;

/// A group of semaphores: up to `limit` holders per key at once. Cheap to clone.
#[derive(Clone)]
pub struct Semaphore {
    group: Group,
}

impl Semaphore {
    pub(crate) fn new(group: Group) -> Semaphore {
        Semaphore { group }
    }

    /// This group with the fields `over` sets replaced.
    pub fn with(self, over: Options) -> Semaphore {
        Semaphore {
            group: self.group.with_options(over),
        }
    }

    option_builders!();

    /// Waits first come first served for `key` and holds it. Dropping the
    /// future gives up the wait without leaking a permit.
    pub async fn acquire(&self, key: impl Key) -> Result<Permit> {
        self.acquire_with(key, Options::default()).await
    }

    /// `acquire` with per-call options.
    pub async fn acquire_with(&self, key: impl Key, options: Options) -> Result<Permit> {
        let (holding, _) = self
            .group
            .acquire(key.key_text().into_owned(), options)
            .await?;
        Ok(Permit::new(holding))
    }

    /// Holds `key` if it is free now.
    pub async fn try_acquire(&self, key: impl Key) -> Result<Option<Permit>> {
        self.try_acquire_with(key, Options::default()).await
    }

    /// `try_acquire` with per-call options.
    pub async fn try_acquire_with(
        &self,
        key: impl Key,
        options: Options,
    ) -> Result<Option<Permit>> {
        let held = self
            .group
            .try_acquire(key.key_text().into_owned(), options)
            .await?;
        Ok(held.map(|(holding, _)| Permit::new(holding)))
    }

    /// Acquires `key`, runs `body` with the permit, and releases it however
    /// `body` ends; returns what `body` returned. A lease lost before `body`
    /// ended turns a success into `lease_lost`; it never hides `body`'s error.
    pub async fn hold<T, E: From<Error>>(
        &self,
        key: impl Key,
        body: impl AsyncFnOnce(&Permit) -> Result<T, E>,
    ) -> Result<T, E> {
        self.hold_with(key, Options::default(), body).await
    }

    /// `hold` with per-call options.
    pub async fn hold_with<T, E: From<Error>>(
        &self,
        key: impl Key,
        options: Options,
        body: impl AsyncFnOnce(&Permit) -> Result<T, E>,
    ) -> Result<T, E> {
        let lease = self.acquire_with(key, options).await?;
        let result = body(&lease).await;
        let released = lease.release().await;
        hold_outcome(result, released)
    }
}
