//! `Leadership`: what a campaign gives, a lease on the election's one key
//! with the leader's value. Its fence is the term. Dropping it resigns.

use super::leader::Leader;
use crate::error::{Error, Result};
use crate::fence::Fence;
use crate::hold::EndHold;
use crate::lease::Lease;
use crate::on_lost::OnLost;
use std::time::Duration;

/// Leading an election: held until resigned, dropped, run out (with `renew`
/// off, or a process that stopped), or lost with its store. While it is
/// held nobody else leads; its term is larger than every earlier leader's.
pub struct Leadership {
    lease: Lease,
    value: String,
}

impl Leadership {
    pub(crate) fn new(lease: Lease, value: String) -> Leadership {
        Leadership { lease, value }
    }

    /// The lease underneath.
    pub(crate) fn lease(&self) -> &Lease {
        &self.lease
    }

    /// The election's name.
    pub fn name(&self) -> &str {
        self.lease.name()
    }

    /// The value this leader campaigned with.
    pub fn value(&self) -> &str {
        &self.value
    }

    /// The term: a fence, larger than every earlier leader's term and every
    /// fence the store gave before. Send it with each write to the resource
    /// the leader guards.
    pub fn fence(&self) -> Fence {
        self.lease.fence()
    }

    /// This leader as observers see it.
    pub fn leader(&self) -> Leader {
        Leader {
            value: self.value.clone(),
            fence: self.fence(),
        }
    }

    /// The TTL of the leadership's lease.
    pub fn ttl(&self) -> Duration {
        self.lease.ttl()
    }

    /// Whether it still leads: false once resigned, run out, or lost with
    /// its store.
    pub fn is_held(&self) -> bool {
        self.lease.is_held()
    }

    /// Extends the leadership by its TTL from now (needed only with `renew`
    /// off); `lease_lost`, changing nothing, when it already ran out.
    pub async fn renew(&self) -> Result<()> {
        self.lease.renew().await
    }

    /// Stops leading: the next campaigner in the queue leads at once, with a
    /// larger term. Idempotent. When the leadership was lost first, fails
    /// with why: `closed` (its store was closed) or `lease_lost` (it ran
    /// out).
    pub async fn resign(&self) -> Result<()> {
        self.lease.release().await
    }

    /// Runs `body` until it ends or the leadership is lost; see
    /// `Holding::until_lost`.
    pub(crate) async fn until_lost<T>(
        &self,
        body: impl std::future::Future<Output = T>,
    ) -> std::result::Result<T, Error> {
        use crate::lease::LeaseKind;
        self.lease.holding().until_lost(body).await
    }

    /// Why the leadership was lost: `closed` or `lease_lost`; `None` while
    /// it is held and after it resigned while held.
    pub fn lost_reason(&self) -> Option<Error> {
        self.lease.lost_reason()
    }

    /// Resolves when the leadership is lost, with why (also after a
    /// resign).
    pub async fn lost(&self) -> Error {
        self.lease.lost().await
    }

    /// Calls `callback` once with the reason if and when the leadership is
    /// lost (not when it resigns first); see [`Lease::on_lost`].
    pub fn on_lost(&self, callback: impl FnOnce(Error) + Send + 'static) -> OnLost {
        self.lease.on_lost(callback)
    }
}

impl EndHold for Leadership {
    /// Resigns as a `lead`'s end, by the rule of a lease's hold.
    fn end_hold(
        &self,
        body_ok: bool,
        cancelled_by_loss: bool,
    ) -> impl std::future::Future<Output = Result<()>> + Send {
        self.lease.end_hold(body_ok, cancelled_by_loss)
    }
}

impl std::fmt::Debug for Leadership {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Leadership")
            .field("election", &self.name())
            .field("value", &self.value)
            .field("fence", &self.fence())
            .field("held", &self.is_held())
            .finish()
    }
}
