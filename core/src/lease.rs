//! Leases: what holding a key gives. A `Lease` (from a lock) carries a
//! fence; a `Permit` (from a semaphore) has none. Dropping either releases it.

use crate::backend::Backend;
use crate::error::{Code, Error, Result};
use crate::fence::Fence;
use crate::hold::{hold_end, BodyEnd, EndHold};
use crate::on_lost::{Ending, OnLost};
use crate::vocab::KeyId;
use crate::vocab::{Grant, LeaseId, LostSignal};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How long the test kit's `expire` waits for the holder to be told.
const EXPIRE_TOLD_WITHIN: Duration = Duration::from_secs(10);

/// What a lease and a permit share: the held key and how to let it go.
pub(crate) struct Holding {
    backend: Arc<dyn Backend>,
    id: LeaseId,
    key: Arc<KeyId>,
    ttl: Duration,
    lost: LostSignal,
    /// Set by the holder's release or drop; shared with `on_lost` watches.
    released: Arc<AtomicBool>,
    /// Why it was lost, when its release found it lost.
    lost_at_release: Mutex<Option<Error>>,
    /// Its OpenTelemetry span, from grant to end.
    #[cfg(feature = "otel")]
    span: crate::otel::Holding,
}

impl Holding {
    pub(crate) fn new(
        backend: Arc<dyn Backend>,
        key: Arc<KeyId>,
        ttl: Duration,
        grant: Grant,
    ) -> Holding {
        Holding {
            #[cfg(feature = "otel")]
            span: crate::otel::Holding::start(backend.tracer(), &key, grant.fence),
            backend,
            id: grant.id,
            key,
            ttl,
            lost: grant.lost,
            released: Arc::new(AtomicBool::new(false)),
            lost_at_release: Mutex::new(None),
        }
    }

    fn is_held(&self) -> bool {
        !self.released.load(Ordering::SeqCst) && !self.lost.is_lost()
    }

    /// The test kit: ends this lease in its store as if it ran out, and
    /// returns once its holder's loss signal has fired (over a connection,
    /// the server's word comes after its answer). Refused unless its store
    /// is a test store.
    pub(crate) async fn expire(&self) -> Result<()> {
        self.backend.expire(self.id).await?;
        match tokio::time::timeout(EXPIRE_TOLD_WITHIN, self.lost.ended()).await {
            Ok(_) => Ok(()),
            Err(_) => Err(Error::internal(format!(
                "the lease on {} was expired but its holder was not told within {EXPIRE_TOLD_WITHIN:?}",
                self.key
            ))),
        }
    }

    /// The error that says a renewal found this lease gone, naming its
    /// key: its lost reason if it was lost (`closed` or `lease_lost`, see
    /// [`loss`]); else `err` itself. Not for a release, whose own doing the
    /// lost reason may be.
    fn gone(&self, err: Error) -> Error {
        if !matches!(err.code(), Code::LeaseLost | Code::Closed) {
            return err;
        }
        match self.lost.reason() {
            Some(reason) => loss(&self.key, reason),
            None if err.code() == Code::Closed => err,
            None => Error::lease_lost(format!(
                "the lease on {} is not held: it ran out or was released",
                self.key
            )),
        }
    }

    /// Why it was lost: `None` while held, and after its holder released it
    /// (or dropped it) while it was still held.
    fn lost_reason(&self) -> Option<Error> {
        let signal = self.lost.reason();
        if !self.released.load(Ordering::SeqCst) {
            return signal.map(|reason| loss(&self.key, reason));
        }
        self.lost_at_release
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    async fn renew(&self) -> Result<()> {
        if self.released.load(Ordering::SeqCst) {
            return Err(Error::released(&self.key));
        }
        self.backend.renew(self.id).await.map_err(|e| self.gone(e))
    }

    pub(crate) async fn release(&self) -> Result<()> {
        let lost_before = self.lost.reason();
        if self.released.swap(true, Ordering::SeqCst) {
            return Ok(());
        }
        let released = match lost_before {
            Some(reason) => {
                // Lost already: the backend has forgotten it (an embedded
                // store closed says so itself); release it for good measure.
                let _ = self.backend.release(self.id).await;
                Err(loss(&self.key, reason))
            }
            // The backend's own answer: it says how the lease was lost, or
            // why the release failed. The lost signal may be the release's
            // own doing by now, never a reason for it to fail.
            None => self.backend.release(self.id).await,
        };
        if let Err(reason) = &released {
            if matches!(reason.code(), Code::LeaseLost | Code::Closed) {
                *self
                    .lost_at_release
                    .lock()
                    .unwrap_or_else(|p| p.into_inner()) = Some(reason.clone());
            }
        }
        #[cfg(feature = "otel")]
        self.span.end(released.as_ref().err());
        released
    }

    /// Releases it at the end of a hold whose body ended as `body` says,
    /// and gives what the hold adds to the body's outcome: see
    /// [`hold_end`](crate::hold::hold_end).
    async fn end_hold(&self, body: BodyEnd) -> Result<()> {
        hold_end(body, self.release().await)
    }

    /// Runs `body` until it ends, or until the lease is lost (not released
    /// by its holder): then `body` is dropped at the await it had reached,
    /// and the loss's reason is given. A body ready in the same poll as the
    /// loss ends first, with its own outcome.
    pub(crate) async fn until_lost<T>(
        &self,
        body: impl std::future::Future<Output = T>,
    ) -> std::result::Result<T, Error> {
        tokio::select! {
            biased;
            value = body => Ok(value),
            reason = self.loss() => Err(reason),
        }
    }

    /// Resolves with why when the lease is lost; never when its holder
    /// releases it (a body goes on after its own release).
    pub(crate) async fn loss(&self) -> Error {
        let reason = self.ending().await;
        if self.lost_reason().is_some() {
            return reason;
        }
        std::future::pending::<Error>().await
    }

    async fn lost(&self) -> Error {
        self.ending().await
    }

    /// A future of its own that resolves when the lease ends, with why.
    fn ending(&self) -> Ending {
        let (signal, key) = (self.lost.clone(), self.key.clone());
        let released = self.released.clone();
        Box::pin(async move {
            match signal.ended().await {
                Some(reason) => loss(&key, reason),
                None if released.load(Ordering::SeqCst) => Error::released(&key),
                None => Error::lease_lost(format!("the store of {key} went away")),
            }
        })
    }

    fn on_lost(&self, callback: impl FnOnce(Error) + Send + 'static) -> OnLost {
        OnLost::start(self.ending(), self.released.clone(), callback)
    }

    /// Tells the store a guard refused a write under this holding (see
    /// [`Lease::report_refused`]).
    fn report_refused(&self, resource: &str) {
        self.backend.refused(&self.key, resource);
    }
}

impl Drop for Holding {
    fn drop(&mut self) {
        if !self.released.swap(true, Ordering::SeqCst) && !self.lost.is_lost() {
            self.backend.release_on_drop(self.id);
        }
        #[cfg(feature = "otel")]
        self.span
            .end(self.lost.reason().map(|r| loss(&self.key, r)).as_ref());
    }
}

/// What a group's grant becomes: a `Lease` or a `Permit`.
pub(crate) trait LeaseKind: Sized {
    /// Wraps a granted holding and its fence (a lock's grant has one).
    fn from_grant(holding: Holding, fence: Option<Fence>) -> Result<Self>;

    /// The holding inside.
    fn holding(&self) -> &Holding;
}

macro_rules! holding_methods {
    () => {
        /// The group's name.
        pub fn name(&self) -> &str {
            self.holding.key.name()
        }

        /// The key held.
        pub fn key(&self) -> &str {
            self.holding.key.key()
        }

        /// The TTL: how long it lives after its grant or last renewal.
        pub fn ttl(&self) -> Duration {
            self.holding.ttl
        }

        /// Whether it is still held: false once released, run out, or lost
        /// with its store or connection.
        pub fn is_held(&self) -> bool {
            self.holding.is_held()
        }

        /// Extends it by its TTL from now; fails with `lease_lost`, changing
        /// nothing, when it already ran out or was released.
        pub async fn renew(&self) -> Result<()> {
            self.holding.renew().await
        }

        /// Releases it. Idempotent. When it was lost before this first
        /// release, fails with why: `closed` when its store was closed,
        /// `lease_lost` when it ran out or its connection or server broke.
        pub async fn release(&self) -> Result<()> {
            self.holding.release().await
        }

        /// Why it was lost, with the code a hold reports: `closed` when its
        /// store was closed, `lease_lost` when it ran out or its connection
        /// or server broke. `None` while it is held, and after its holder
        /// released it while it was still held. Cheap; may be called from
        /// anywhere, a lost callback included.
        pub fn lost_reason(&self) -> Option<Error> {
            self.holding.lost_reason()
        }

        /// Resolves when it is lost, with the reason (`closed` or
        /// `lease_lost`, as [`lost_reason`](Self::lost_reason)); also after
        /// a release.
        pub async fn lost(&self) -> Error {
            self.holding.lost().await
        }

        /// Calls `callback` once with the reason if and when it is lost: it
        /// ran out, its store closed, its connection broke. Not when its
        /// holder releases or drops it first. Nothing runs per lease while
        /// it is held; callbacks run one at a time on a thread of the
        /// core's, so each should be quick (hand the reason to a channel or
        /// a task). The returned handle cancels it; dropping it does not.
        pub fn on_lost(&self, callback: impl FnOnce(Error) + Send + 'static) -> OnLost {
            self.holding.on_lost(callback)
        }
    };
}

/// An exclusive hold on one key of a `Locks` group, with its fence.
pub struct Lease {
    holding: Holding,
    fence: Fence,
}

impl Lease {
    /// The fence: larger than every fence this store gave before.
    pub fn fence(&self) -> Fence {
        self.fence
    }

    /// Tells its store that a guard refused a write under this lease to
    /// `resource` as stale (a late write), for the store to count per
    /// group: `status` and the server's metrics show the count. The guards
    /// call it when given the lease itself. It never blocks and never
    /// fails, held or not: an embedded store counts it at once; a served
    /// one is sent a message whose answer nobody awaits, dropped when the
    /// connection is gone or its sending is backed up; etcd counts none.
    pub fn report_refused(&self, resource: &str) {
        self.holding.report_refused(resource);
    }

    holding_methods!();
}

impl EndHold for Lease {
    fn end_hold(
        &self,
        body_ok: bool,
        cancelled_by_loss: bool,
    ) -> impl std::future::Future<Output = Result<()>> + Send {
        let body = BodyEnd::told(body_ok, cancelled_by_loss);
        self.holding.end_hold(body)
    }
}

impl LeaseKind for Lease {
    fn from_grant(holding: Holding, fence: Option<Fence>) -> Result<Lease> {
        match fence {
            Some(fence) => Ok(Lease { holding, fence }),
            None => Err(Error::internal(format!(
                "the grant of {} came without a fence",
                holding.key
            ))),
        }
    }

    fn holding(&self) -> &Holding {
        &self.holding
    }
}

impl std::fmt::Debug for Lease {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Lease")
            .field("key", &self.holding.key.to_string())
            .field("fence", &self.fence)
            .field("held", &self.is_held())
            .finish()
    }
}

/// One of a semaphore key's places. It has no fence: several valid holders
/// at once would refuse each other.
pub struct Permit {
    holding: Holding,
}

impl Permit {
    holding_methods!();
}

impl EndHold for Permit {
    fn end_hold(
        &self,
        body_ok: bool,
        cancelled_by_loss: bool,
    ) -> impl std::future::Future<Output = Result<()>> + Send {
        let body = BodyEnd::told(body_ok, cancelled_by_loss);
        self.holding.end_hold(body)
    }
}

impl LeaseKind for Permit {
    fn from_grant(holding: Holding, _: Option<Fence>) -> Result<Permit> {
        Ok(Permit { holding })
    }

    fn holding(&self) -> &Holding {
        &self.holding
    }
}

impl std::fmt::Debug for Permit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Permit")
            .field("key", &self.holding.key.to_string())
            .field("held", &self.is_held())
            .finish()
    }
}

/// A lost lease's reason as its holder is told it: `closed` when its store
/// was closed; else `lease_lost` (it ran out, its connection or server
/// broke), naming the key.
fn loss(key: &KeyId, reason: Error) -> Error {
    match reason.code() {
        Code::Closed | Code::LeaseLost => reason,
        _ => Error::lease_lost(format!("the lease on {key} was lost: {reason}")),
    }
}
