//! Leases: what holding a key gives. A `Lease` (from a lock) carries a
//! fence; a `Permit` (from a semaphore) has none. Dropping either releases it.

use crate::backend::Backend;
use crate::engine::{Grant, KeyId, LeaseId, LostSignal};
use crate::error::{Code, Error, Result};
use crate::fence::Fence;
use crate::lost::{Ending, OnLost};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// What a lease and a permit share: the held key and how to let it go.
pub(crate) struct Holding {
    backend: Arc<dyn Backend>,
    id: LeaseId,
    key: Arc<KeyId>,
    ttl: Duration,
    lost: LostSignal,
    /// Set by the holder's release or drop; shared with `on_lost` watches.
    released: Arc<AtomicBool>,
}

impl Holding {
    pub(crate) fn new(
        backend: Arc<dyn Backend>,
        key: Arc<KeyId>,
        ttl: Duration,
        grant: Grant,
    ) -> Holding {
        Holding {
            backend,
            id: grant.id,
            key,
            ttl,
            lost: grant.lost,
            released: Arc::new(AtomicBool::new(false)),
        }
    }

    fn is_held(&self) -> bool {
        !self.released.load(Ordering::SeqCst) && self.lost.borrow().is_none()
    }

    /// The error that says this lease is gone, naming its key.
    fn gone(&self, err: Error) -> Error {
        if err.code() != Code::LeaseLost {
            return err;
        }
        match self.lost.borrow().clone() {
            Some(reason) if reason.code() == Code::LeaseLost => reason,
            Some(reason) => {
                Error::lease_lost(format!("the lease on {} was lost: {reason}", self.key))
            }
            None => Error::lease_lost(format!(
                "the lease on {} is not held: it ran out or was released",
                self.key
            )),
        }
    }

    async fn renew(&self) -> Result<()> {
        if self.released.load(Ordering::SeqCst) {
            return Err(Error::lease_lost(format!(
                "the lease on {} was released",
                self.key
            )));
        }
        self.backend.renew(self.id).await.map_err(|e| self.gone(e))
    }

    pub(crate) async fn release(&self) -> Result<()> {
        if self.released.swap(true, Ordering::SeqCst) {
            return Ok(());
        }
        self.backend
            .release(self.id)
            .await
            .map_err(|e| self.gone(e))
    }

    async fn lost(&self) -> Error {
        self.ending().await
    }

    /// A future of its own that resolves when the lease ends, with why.
    fn ending(&self) -> Ending {
        let (mut signal, key) = (self.lost.clone(), self.key.clone());
        Box::pin(async move {
            loop {
                if let Some(reason) = signal.borrow_and_update().clone() {
                    return reason;
                }
                if signal.changed().await.is_err() {
                    return Error::lease_lost(format!("the store of {key} went away"));
                }
            }
        })
    }

    fn on_lost(&self, callback: impl FnOnce(Error) + Send + 'static) -> OnLost {
        OnLost::start(self.ending(), self.released.clone(), callback)
    }
}

impl Drop for Holding {
    fn drop(&mut self) {
        if !self.released.swap(true, Ordering::SeqCst) && self.lost.borrow().is_none() {
            self.backend.release_on_drop(self.id);
        }
    }
}

/// What a group's grant becomes: a `Lease` or a `Permit`.
pub(crate) trait Held: Sized {
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

        /// Releases it. Idempotent; fails with `lease_lost` when it ran out
        /// before this first release.
        pub async fn release(&self) -> Result<()> {
            self.holding.release().await
        }

        /// Resolves when it is lost, with the reason; also after a release.
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

    holding_methods!();
}

impl Held for Lease {
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

impl Held for Permit {
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
