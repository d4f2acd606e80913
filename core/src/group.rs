//! What `Locks`, `Semaphore` and `RwLocks` share: a name, options, and the
//! steps from a key to a held lease.

use crate::acquiring::Acquiring;
use crate::backend::Backend;
use crate::error::{Error, Result};
use crate::hold::{hold_outcome, stopped_outcome};
use crate::lease::{Holding, LeaseKind};
use crate::options::Options;
use crate::vocab::{Ask, Grant, Request};
use std::sync::Arc;

/// A named group of keys, with its options and what its acquires ask for.
#[derive(Clone)]
pub(crate) struct Group {
    backend: Arc<dyn Backend>,
    name: Arc<str>,
    options: Options,
    ask: Ask,
}

impl Group {
    pub(crate) fn new(backend: Arc<dyn Backend>, name: &str, ask: Ask) -> Group {
        Group {
            backend,
            name: name.into(),
            options: Options::default(),
            ask,
        }
    }

    /// This group, its acquires asking for `ask` (a read-write lock's
    /// read or write side).
    pub(crate) fn asking(&self, ask: Ask) -> Group {
        Group {
            ask,
            ..self.clone()
        }
    }

    pub(crate) fn name(&self) -> &str {
        &self.name
    }

    pub(crate) fn options(&self) -> Options {
        self.options.clone()
    }

    pub(crate) fn with_options(mut self, over: Options) -> Group {
        self.options = std::mem::take(&mut self.options).merged(over);
        self
    }

    /// The checked request for `key`, with the group's options and `over`.
    pub(crate) fn request(&self, key: &str, over: Options) -> Result<Request> {
        Request::new(&self.name, key, self.ask, self.options.clone().merged(over))
    }

    pub(crate) fn held<H: LeaseKind>(&self, request: &Request, grant: Grant) -> Result<H> {
        held_from(&self.backend, request, grant)
    }

    /// Waits for the key, up to the `wait` option (which the backend
    /// applies).
    pub(crate) async fn acquire<H: LeaseKind>(&self, key: String, over: Options) -> Result<H> {
        let request = self.request(&key, over)?;
        self.acquire_request(request).await
    }

    /// Waits for the key of a checked `request`, up to its `wait`.
    pub(crate) async fn acquire_request<H: LeaseKind>(&self, request: Request) -> Result<H> {
        #[cfg(feature = "otel")]
        let waiting = crate::otel::Waiting::start(self.backend.tracer(), request.key());
        let grant = self.backend.acquire(request.clone()).await;
        #[cfg(feature = "otel")]
        waiting.end(grant.as_ref().map(|g| g.fence));
        self.held(&request, grant?)
    }

    /// An acquire of the key that can be polled now, waited for and given
    /// up from any thread.
    pub(crate) fn acquiring<H: LeaseKind + Send + 'static>(
        &self,
        key: String,
        over: Options,
    ) -> Acquiring<H> {
        let group = self.clone();
        Acquiring::new(async move { group.acquire(key, over).await })
    }

    /// Takes the key if it is free now.
    pub(crate) async fn try_acquire<H: LeaseKind>(
        &self,
        key: String,
        over: Options,
    ) -> Result<Option<H>> {
        let request = self.request(&key, over)?;
        let grant = self.backend.try_acquire(request.clone()).await?;
        grant.map(|g| self.held(&request, g)).transpose()
    }

    /// The events of this group's key `key`, or of all its keys when
    /// `None`, from now on (watch/mod.rs). `invalid` on a bad key.
    pub(crate) async fn watch(&self, key: Option<String>) -> Result<crate::watch::Watch> {
        let kind = self.ask.group_kind();
        match &key {
            Some(key) => drop(crate::vocab::KeyId::new(kind, &self.name, key)?),
            None => crate::names::check_name(&self.name)?,
        }
        self.backend.watch(kind, &self.name, key).await
    }

    /// Acquires the key, runs `body` with what it holds until it ends or
    /// the lease is lost (then `body` is dropped at its await), and
    /// releases it however `body` ends; see [`hold_outcome`] for what it
    /// returns.
    pub(crate) async fn hold<H: LeaseKind, T, E: From<Error>>(
        &self,
        key: String,
        over: Options,
        body: impl AsyncFnOnce(&H) -> Result<T, E>,
    ) -> Result<T, E> {
        let held: H = self.acquire(key, over).await?;
        let ended = held.holding().until_lost(body(&held)).await;
        let released = held.holding().release().await;
        match ended {
            Ok(result) => hold_outcome(result, released),
            Err(lost) => stopped_outcome(released, lost),
        }
    }
}

/// The lease or permit a grant of `request` gives, renewed and released
/// through `backend`.
pub(crate) fn held_from<H: LeaseKind>(
    backend: &Arc<dyn Backend>,
    request: &Request,
    grant: Grant,
) -> Result<H> {
    let fence = grant.fence;
    let holding = Holding::new(backend.clone(), request.key().clone(), request.ttl(), grant);
    H::from_grant(holding, fence)
}

/// Builder methods for the group options, shared by `Locks`, `Semaphore`
/// and `RwLocks`.
macro_rules! option_builders {
    () => {
        /// Sets the TTL of the leases this group gives (default
        /// [`DEFAULT_TTL`](crate::DEFAULT_TTL), 15 s).
        pub fn ttl(self, ttl: std::time::Duration) -> Self {
            self.with(crate::options::Options {
                ttl: Some(ttl),
                ..Default::default()
            })
        }

        /// Sets how long `acquire` may wait, up to 30 days (default
        /// [`DEFAULT_WAIT`](crate::DEFAULT_WAIT): until given up).
        pub fn wait(self, wait: std::time::Duration) -> Self {
            self.with(crate::options::Options {
                wait: Some(wait),
                ..Default::default()
            })
        }

        /// Sets whether held leases are renewed every ttl/3 (default
        /// [`DEFAULT_RENEW`](crate::DEFAULT_RENEW): on).
        pub fn renew(self, renew: bool) -> Self {
            self.with(crate::options::Options {
                renew: Some(renew),
                ..Default::default()
            })
        }

        /// Sets the longest a lease of this group is kept after its grant,
        /// renewals included (default none): past it, it is renewed no more
        /// and runs out, and its holder is told as for any lost lease.
        pub fn max_hold(self, max_hold: std::time::Duration) -> Self {
            self.with(crate::options::Options {
                max_hold: Some(max_hold),
                ..Default::default()
            })
        }

        /// Watches `key`: every grant (with its fence and the holder's
        /// data), release, loss (with its cause) and change of its queue's
        /// length from now on, as a stream ([`Watch`](crate::Watch)). A
        /// watcher that falls [`WATCH_BUFFER`](crate::WATCH_BUFFER) events
        /// behind is told `Lagged` and never slows the store. `invalid` on
        /// a bad key.
        pub async fn watch(
            &self,
            key: impl crate::names::Key,
        ) -> crate::error::Result<crate::watch::Watch> {
            self.group.watch(Some(key.key_text().into_owned())).await
        }

        /// Watches every key of this group, as [`watch`](Self::watch) does
        /// one.
        pub async fn watch_all(&self) -> crate::error::Result<crate::watch::Watch> {
            self.group.watch(None).await
        }

        /// Sets the data the leases of this group carry: what their holder
        /// says about itself, shown by `status` and given to watchers (at
        /// most [`MAX_DATA_BYTES`](crate::MAX_DATA_BYTES), checked at each
        /// acquire; default this process's `HOST:PID`; an empty text
        /// attaches nothing). Per call: [`Options::data`](crate::Options).
        pub fn data(self, data: impl Into<std::sync::Arc<str>>) -> Self {
            self.with(crate::options::Options {
                data: Some(data.into()),
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
                    "`body` ends; returns what `body` returned. Losing the ", $what, " stops `body`\n",
                    "at the await it is at (the future is dropped), unless it ends in that same\n",
                    "poll, and the hold fails with why (`lease_lost` or `closed`). A ", $what, "\n",
                    "lost before `body` ended turns a success into that error; it never hides\n",
                    "`body`'s own error."
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
