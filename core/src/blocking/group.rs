//! Blocking `Locks` and `Semaphore`: the async groups, with calls that wait.

use super::lease::{Lease, Permit};
use crate::error::{Error, Result};
use crate::hold::hold_outcome;
use crate::names::Key;
use crate::options::Options;
use std::sync::Arc;
use std::time::Duration;
use tokio::runtime::Runtime;

macro_rules! blocking_group {
    ($name:ident, $inner:ty, $held:ident, $what:literal) => {
        #[doc = concat!("A group of ", $what, ", for blocking code. Cheap to clone.")]
        #[derive(Clone)]
        pub struct $name {
            inner: $inner,
            rt: Arc<Runtime>,
        }

        impl $name {
            pub(crate) fn new(inner: $inner, rt: Arc<Runtime>) -> $name {
                $name { inner, rt }
            }

            /// The group's name.
            pub fn name(&self) -> &str {
                self.inner.name()
            }

            /// This group with the fields `over` sets replaced.
            pub fn with(self, over: Options) -> $name {
                $name {
                    inner: self.inner.with(over),
                    rt: self.rt,
                }
            }

            /// Sets the TTL of the leases this group gives (default 15 s).
            pub fn ttl(self, ttl: Duration) -> $name {
                $name {
                    inner: self.inner.ttl(ttl),
                    rt: self.rt,
                }
            }

            /// Sets how long `acquire` may wait (default: forever).
            pub fn wait(self, wait: Duration) -> $name {
                $name {
                    inner: self.inner.wait(wait),
                    rt: self.rt,
                }
            }

            /// Sets whether held leases are renewed every ttl/3 (default on).
            pub fn renew(self, renew: bool) -> $name {
                $name {
                    inner: self.inner.renew(renew),
                    rt: self.rt,
                }
            }

            /// Sets the longest a lease is kept after its grant, renewals
            /// included (default: no cap); past it, it runs out.
            pub fn max_hold(self, max_hold: Duration) -> $name {
                $name {
                    inner: self.inner.max_hold(max_hold),
                    rt: self.rt,
                }
            }

            /// Sets the data this group's leases carry: what their holder
            /// says about itself, shown by `status` (at most 1024 bytes;
            /// default this process's `HOST:PID`; `""` attaches nothing).
            pub fn data(self, data: impl Into<std::sync::Arc<str>>) -> $name {
                $name {
                    inner: self.inner.data(data),
                    rt: self.rt,
                }
            }

            /// Waits first come first served for `key`, up to the `wait` option.
            pub fn acquire(&self, key: impl Key) -> Result<$held> {
                self.acquire_with(key, Options::default())
            }

            /// `acquire` with per-call options.
            pub fn acquire_with(&self, key: impl Key, options: Options) -> Result<$held> {
                let inner = self.rt.block_on(self.inner.acquire_with(key, options))?;
                Ok($held::new(inner, self.rt.clone()))
            }

            /// Holds `key` if it is free now.
            pub fn try_acquire(&self, key: impl Key) -> Result<Option<$held>> {
                self.try_acquire_with(key, Options::default())
            }

            /// `try_acquire` with per-call options.
            pub fn try_acquire_with(
                &self,
                key: impl Key,
                options: Options,
            ) -> Result<Option<$held>> {
                let inner = self
                    .rt
                    .block_on(self.inner.try_acquire_with(key, options))?;
                Ok(inner.map(|inner| $held::new(inner, self.rt.clone())))
            }

            /// Acquires `key`, runs `body`, and releases however `body` ends,
            /// panics included; returns what `body` returned. A lease lost
            /// before `body` ended turns a success into `lease_lost`.
            pub fn hold<T, E: From<Error>>(
                &self,
                key: impl Key,
                body: impl FnOnce(&$held) -> Result<T, E>,
            ) -> Result<T, E> {
                self.hold_with(key, Options::default(), body)
            }

            /// `hold` with per-call options.
            pub fn hold_with<T, E: From<Error>>(
                &self,
                key: impl Key,
                options: Options,
                body: impl FnOnce(&$held) -> Result<T, E>,
            ) -> Result<T, E> {
                let held = self.acquire_with(key, options)?;
                let result = body(&held);
                let released = held.release();
                hold_outcome(result, released)
            }
        }
    };
}

blocking_group!(Locks, crate::Locks, Lease, "exclusive locks");

impl Locks {
    /// Holds every key of `keys` or none, a lease each in the order of
    /// `keys`: see [`crate::Locks::acquire_all`].
    pub fn acquire_all<K: Key>(
        &self,
        keys: impl IntoIterator<Item = K>,
        options: Options,
    ) -> Result<Vec<Lease>> {
        let leases = self.rt.block_on(self.inner.acquire_all(keys, options))?;
        Ok(leases
            .into_iter()
            .map(|lease| Lease::new(lease, self.rt.clone()))
            .collect())
    }

    /// Acquires every key of `keys` as `acquire_all` does, runs `body`
    /// with the leases, and releases them all however `body` ends; a lease
    /// lost before `body` ended turns a success into `lease_lost`.
    pub fn hold_all<K: Key, T, E: From<Error>>(
        &self,
        keys: impl IntoIterator<Item = K>,
        options: Options,
        body: impl FnOnce(&[Lease]) -> Result<T, E>,
    ) -> Result<T, E> {
        let leases = self.acquire_all(keys, options)?;
        let result = body(&leases);
        let mut released = Ok(());
        for lease in &leases {
            let release = lease.release();
            if released.is_ok() {
                released = release;
            }
        }
        hold_outcome(result, released)
    }
}
blocking_group!(Semaphore, crate::Semaphore, Permit, "semaphores");
