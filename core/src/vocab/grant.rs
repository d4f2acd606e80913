//! What granting a key gives: [`EngineGrant`] from the engine, [`Grant`] from
//! any kind of store to a group.

use super::lease_id::LeaseId;
use super::lost::LostSignal;
use crate::fence::Fence;

/// A lease the engine granted.
#[derive(Debug)]
pub(crate) struct EngineGrant {
    /// The lease's id.
    pub id: LeaseId,
    /// The fence, for a lock; `None` for a semaphore permit.
    pub fence: Option<Fence>,
    /// The lease's own lost signal, when it was asked with
    /// [`LostTo::Watch`](super::lost::LostTo::Watch).
    pub lost: Option<LostSignal>,
}

/// A lease given to a caller by any kind of store.
#[derive(Debug)]
pub(crate) struct Grant {
    /// The lease's id.
    pub id: LeaseId,
    /// The fence, for a lock; `None` for a semaphore permit.
    pub fence: Option<Fence>,
    /// Turns `Some(reason)` when the lease ends.
    pub lost: LostSignal,
}
