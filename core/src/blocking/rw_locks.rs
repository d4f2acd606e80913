//! Blocking `RwLocks`: the async read-write locks, with calls that wait.

use super::lease::{Lease, Permit};
use crate::error::{Error, Result};
use crate::hold::hold_outcome;
use crate::names::Key;
use crate::options::Options;
use std::sync::Arc;
use std::time::Duration;
use tokio::runtime::Runtime;

/// A group of read-write locks, for blocking code: see
/// [`crate::RwLocks`]. Cheap to clone.
#[derive(Clone)]
pub struct RwLocks {
    inner: crate::RwLocks,
    rt: Arc<Runtime>,
}

impl RwLocks {
    pub(crate) fn new(inner: crate::RwLocks, rt: Arc<Runtime>) -> RwLocks {
        RwLocks { inner, rt }
    }

    /// The group's name.
    pub fn name(&self) -> &str {
        self.inner.name()
    }

    /// This group with the fields `over` sets replaced.
    pub fn with(self, over: Options) -> RwLocks {
        RwLocks {
            inner: self.inner.with(over),
            rt: self.rt,
        }
    }

    /// Sets the TTL of the leases this group gives (default 15 s).
    pub fn ttl(self, ttl: Duration) -> RwLocks {
        self.with(Options {
            ttl: Some(ttl),
            ..Options::default()
        })
    }

    /// Sets how long an acquire may wait (default: forever).
    pub fn wait(self, wait: Duration) -> RwLocks {
        self.with(Options {
            wait: Some(wait),
            ..Options::default()
        })
    }

    /// Sets the longest a lease is kept after its grant (default: no cap).
    pub fn max_hold(self, max_hold: Duration) -> RwLocks {
        self.with(Options {
            max_hold: Some(max_hold),
            ..Options::default()
        })
    }

    /// Sets the data this group's leases carry: what their holder says
    /// about itself, shown by `status` (at most 1024 bytes; default this
    /// process's `HOST:PID`; `""` attaches nothing).
    pub fn data(self, data: impl Into<std::sync::Arc<str>>) -> RwLocks {
        self.with(Options {
            data: Some(data.into()),
            ..Options::default()
        })
    }

    /// Waits first come first served to read `key`, with `options`.
    pub fn acquire_read_with(&self, key: impl Key, options: Options) -> Result<Permit> {
        let inner = self
            .rt
            .block_on(self.inner.acquire_read_with(key, options))?;
        Ok(Permit::new(inner, self.rt.clone()))
    }

    /// Waits first come first served to write `key`, with `options`.
    pub fn acquire_write_with(&self, key: impl Key, options: Options) -> Result<Lease> {
        let inner = self
            .rt
            .block_on(self.inner.acquire_write_with(key, options))?;
        Ok(Lease::new(inner, self.rt.clone()))
    }

    /// Reads `key` if no writer holds it or waits for it now.
    pub fn try_acquire_read_with(&self, key: impl Key, options: Options) -> Result<Option<Permit>> {
        let inner = self
            .rt
            .block_on(self.inner.try_acquire_read_with(key, options))?;
        Ok(inner.map(|inner| Permit::new(inner, self.rt.clone())))
    }

    /// Writes `key` if nobody holds it or waits for it now.
    pub fn try_acquire_write_with(&self, key: impl Key, options: Options) -> Result<Option<Lease>> {
        let inner = self
            .rt
            .block_on(self.inner.try_acquire_write_with(key, options))?;
        Ok(inner.map(|inner| Lease::new(inner, self.rt.clone())))
    }

    /// Reads `key`, runs `body`, and releases however `body` ends.
    pub fn hold_read<T, E: From<Error>>(
        &self,
        key: impl Key,
        body: impl FnOnce(&Permit) -> Result<T, E>,
    ) -> Result<T, E> {
        let held = self.acquire_read_with(key, Options::default())?;
        let result = body(&held);
        hold_outcome(result, held.release())
    }

    /// Writes `key`, runs `body`, and releases however `body` ends.
    pub fn hold_write<T, E: From<Error>>(
        &self,
        key: impl Key,
        body: impl FnOnce(&Lease) -> Result<T, E>,
    ) -> Result<T, E> {
        let held = self.acquire_write_with(key, Options::default())?;
        let result = body(&held);
        hold_outcome(result, held.release())
    }
}
