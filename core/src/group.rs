//! What `Locks` and `Semaphore` share: a name, options, and the steps from a
//! key to a held lease.

use crate::backend::Backend;
use crate::engine::{KeyId, Request};
use crate::error::{Code, Error, Result};
use crate::lease::{Held, Holding};
use crate::names::{check_key, check_name};
use crate::options::Options;
use std::sync::Arc;

/// The most holders a semaphore key may allow at once.
pub const MAX_LIMIT: u32 = 1_000_000;

/// A named group of keys, with its options; `limit` is `None` for locks.
#[derive(Clone)]
pub(crate) struct Group {
    backend: Arc<dyn Backend>,
    name: Arc<str>,
    options: Options,
    limit: Option<u32>,
}

impl Group {
    pub(crate) fn new(backend: Arc<dyn Backend>, name: &str, limit: Option<u32>) -> Group {
        Group {
            backend,
            name: name.into(),
            options: Options::default(),
            limit,
        }
    }

    pub(crate) fn name(&self) -> &str {
        &self.name
    }

    pub(crate) fn options(&self) -> Options {
        self.options
    }

    pub(crate) fn with_options(mut self, over: Options) -> Group {
        self.options = self.options.merged(over);
        self
    }

    /// Checks the name, key, limit and TTL, and builds the request.
    fn request(&self, key: String, over: Options) -> Result<(Request, Options)> {
        check_name(&self.name)?;
        check_key(&self.name, &key)?;
        let limit = match self.limit {
            None => 1,
            Some(limit) if (1..=MAX_LIMIT).contains(&limit) => limit,
            Some(limit) => {
                return Err(Error::invalid(format!(
                    "semaphore {} has limit {limit}; a limit must be from 1 to {MAX_LIMIT}",
                    self.name
                )))
            }
        };
        let options = self.options.merged(over);
        let request = Request {
            key: Arc::new(KeyId::new(self.limit.is_none(), &self.name, &key)),
            limit,
            ttl: options.checked_ttl()?,
            keepalive: options.keeps_alive(),
            lost_to: Default::default(),
        };
        Ok((request, options))
    }

    fn held<H: Held>(&self, request: &Request, grant: crate::engine::Grant) -> Result<H> {
        let fence = grant.fence;
        let holding = Holding::new(
            self.backend.clone(),
            request.key.clone(),
            request.ttl,
            grant,
        );
        H::from_grant(holding, fence)
    }

    /// Waits for the key, up to the `wait` option.
    pub(crate) async fn acquire<H: Held>(&self, key: String, over: Options) -> Result<H> {
        let (request, options) = self.request(key, over)?;
        let waiting = self.backend.acquire(request.clone());
        let grant = match options.wait {
            None => waiting.await?,
            Some(wait) => tokio::time::timeout(wait, waiting).await.map_err(|_| {
                Error::new(
                    Code::Timeout,
                    format!("waited {wait:?} for {} without getting it", request.key),
                )
            })??,
        };
        self.held(&request, grant)
    }

    /// Takes the key if it is free now.
    pub(crate) async fn try_acquire<H: Held>(
        &self,
        key: String,
        over: Options,
    ) -> Result<Option<H>> {
        let (request, _) = self.request(key, over)?;
        let grant = self.backend.try_acquire(request.clone()).await?;
        grant.map(|g| self.held(&request, g)).transpose()
    }

    /// Acquires the key, runs `body` with what it holds, and releases it
    /// however `body` ends; see [`hold_outcome`] for what it returns.
    pub(crate) async fn hold<H: Held, T, E: From<Error>>(
        &self,
        key: String,
        over: Options,
        body: impl AsyncFnOnce(&H) -> Result<T, E>,
    ) -> Result<T, E> {
        let held: H = self.acquire(key, over).await?;
        let result = body(&held).await;
        let released = held.holding().release().await;
        hold_outcome(result, released)
    }
}

/// What `hold` returns: the body's error first; else the release's error
/// (a lease lost before the body ended); else the body's value.
pub(crate) fn hold_outcome<T, E: From<Error>>(
    body: Result<T, E>,
    release: Result<()>,
) -> Result<T, E> {
    let value = body?;
    release.map_err(E::from)?;
    Ok(value)
}

/// Builder methods for the group options, shared by `Locks` and `Semaphore`.
macro_rules! option_builders {
    () => {
        /// Sets the TTL of the leases this group gives (default 15 s).
        pub fn ttl(self, ttl: std::time::Duration) -> Self {
            self.with(crate::options::Options {
                ttl: Some(ttl),
                ..Default::default()
            })
        }

        /// Sets how long `acquire` may wait (default: until given up).
        pub fn wait(self, wait: std::time::Duration) -> Self {
            self.with(crate::options::Options {
                wait: Some(wait),
                ..Default::default()
            })
        }

        /// Sets whether held leases are renewed every ttl/3 (default on).
        pub fn renew(self, renew: bool) -> Self {
            self.with(crate::options::Options {
                renew: Some(renew),
                ..Default::default()
            })
        }

        /// The group's options.
        pub fn options(&self) -> crate::options::Options {
            self.group.options()
        }

        /// The group's name.
        pub fn name(&self) -> &str {
            self.group.name()
        }
    };
}

/// The acquire, try-acquire and hold methods of `Locks` and `Semaphore`,
/// giving `$held` (a `Lease` or a `Permit`, named `$what` in the docs).
macro_rules! acquire_methods {
    ($held:ty, $what:literal) => {
        #[doc = concat!(
                    "Waits first come first served for `key` and holds it. Dropping the\n",
                    "future gives up the wait without leaking a ", $what, "."
                )]
        pub async fn acquire(&self, key: impl crate::names::Key) -> crate::error::Result<$held> {
            self.acquire_with(key, crate::options::Options::default())
                .await
        }

        /// `acquire` with per-call options.
        pub async fn acquire_with(
            &self,
            key: impl crate::names::Key,
            options: crate::options::Options,
        ) -> crate::error::Result<$held> {
            self.group
                .acquire(key.key_text().into_owned(), options)
                .await
        }

        /// Holds `key` if it is free now.
        pub async fn try_acquire(
            &self,
            key: impl crate::names::Key,
        ) -> crate::error::Result<Option<$held>> {
            self.try_acquire_with(key, crate::options::Options::default())
                .await
        }

        /// `try_acquire` with per-call options.
        pub async fn try_acquire_with(
            &self,
            key: impl crate::names::Key,
            options: crate::options::Options,
        ) -> crate::error::Result<Option<$held>> {
            self.group
                .try_acquire(key.key_text().into_owned(), options)
                .await
        }

        #[doc = concat!(
                    "Acquires `key`, runs `body` with the ", $what, ", and releases it however\n",
                    "`body` ends; returns what `body` returned. A lease lost before `body`\n",
                    "ended turns a success into `lease_lost`; it never hides `body`'s error."
                )]
        pub async fn hold<T, E: From<crate::error::Error>>(
            &self,
            key: impl crate::names::Key,
            body: impl AsyncFnOnce(&$held) -> Result<T, E>,
        ) -> Result<T, E> {
            self.hold_with(key, crate::options::Options::default(), body)
                .await
        }

        /// `hold` with per-call options.
        pub async fn hold_with<T, E: From<crate::error::Error>>(
            &self,
            key: impl crate::names::Key,
            options: crate::options::Options,
            body: impl AsyncFnOnce(&$held) -> Result<T, E>,
        ) -> Result<T, E> {
            self.group
                .hold(key.key_text().into_owned(), options, body)
                .await
        }
    };
}

pub(crate) use {acquire_methods, option_builders};
