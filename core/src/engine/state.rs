//! The engine's bookkeeping: which leases hold which keys, who waits in
//! line, and when each lease runs out. Plain data under the engine's mutex.

use crate::error::{Error, Result};
use crate::fence::Fence;
use std::collections::{BTreeSet, HashMap, VecDeque};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{mpsc, oneshot, watch};
use tokio::time::Instant;

/// Identifies a lease within one engine.
pub type LeaseId = u64;

/// The signal a lease's holder watches: `None` while held, then why it ended.
pub type LostSignal = watch::Receiver<Option<Error>>;

/// Which table a key lives in: exclusive locks (fenced) or a semaphore.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct KeyId {
    /// Whether this is an exclusive lock, whose leases carry fences.
    pub fenced: bool,
    /// The group's name.
    pub name: String,
    /// The key within the group.
    pub key: String,
}

impl std::fmt::Display for KeyId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = if self.fenced { "lock" } else { "semaphore" };
        write!(f, "{kind} {}/{}", self.name, self.key)
    }
}

/// How the engine tells a holder that its lease ended without the holder
/// releasing it (it ran out, or the store closed).
#[derive(Debug, Clone, Default)]
pub enum LostTo {
    /// A watch signal of its own per lease, in its [`Granted`].
    #[default]
    Watch,
    /// One channel shared by many leases (a server connection's): each
    /// lease's id and why it ended. No signal per lease is made.
    Channel(mpsc::UnboundedSender<(LeaseId, Error)>),
}

/// What a caller asks for.
#[derive(Debug, Clone)]
pub struct Request {
    /// The key asked for.
    pub key: Arc<KeyId>,
    /// Holders allowed at once: 1 for a lock.
    pub limit: u32,
    /// The lease's TTL.
    pub ttl: Duration,
    /// Whether the engine itself keeps the lease alive until it is released.
    pub keepalive: bool,
    /// How the holder is told the lease ended.
    pub lost_to: LostTo,
}

/// A lease the engine granted.
#[derive(Debug)]
pub struct Granted {
    /// The lease's id.
    pub id: LeaseId,
    /// The fence, for a lock; `None` for a semaphore permit.
    pub fence: Option<Fence>,
    /// The lease's own lost signal, when it was asked with [`LostTo::Watch`].
    pub lost: Option<LostSignal>,
}

/// A lease given to a caller by any kind of store.
#[derive(Debug)]
pub struct Grant {
    /// The lease's id.
    pub id: LeaseId,
    /// The fence, for a lock; `None` for a semaphore permit.
    pub fence: Option<Fence>,
    /// Turns `Some(reason)` when the lease ends.
    pub lost: LostSignal,
}

/// A lease while it is held.
pub(super) struct Held {
    pub key: Arc<KeyId>,
    /// The count of its fence (the epoch is the engine's); 0 for a permit.
    pub count: u64,
    pub ttl: Duration,
    pub keepalive: bool,
    pub expires: Instant,
    pub lost: Lost,
}

/// Where a held lease's end is told.
pub(super) enum Lost {
    Watch(watch::Sender<Option<Error>>),
    Channel(mpsc::UnboundedSender<(LeaseId, Error)>),
}

impl Lost {
    /// Tells the holder the lease `id` ended; a release the holder asked
    /// for is told only to a watch (so that `lost()` resolves).
    pub fn tell(&self, id: LeaseId, reason: Error, released: bool) {
        match self {
            Lost::Watch(signal) => {
                signal.send_replace(Some(reason));
            }
            Lost::Channel(channel) if !released => {
                let _ = channel.send((id, reason));
            }
            Lost::Channel(_) => {}
        }
    }
}

/// One caller waiting in line for a key.
pub(super) struct Waiter {
    pub id: u64,
    pub request: Request,
    pub reply: oneshot::Sender<Result<Granted>>,
}

/// A key's holders and line; removed when both are empty.
#[derive(Default)]
pub(super) struct KeyState {
    pub limit: u32,
    /// How many leases hold the key now.
    pub holders: u32,
    pub waiters: VecDeque<Waiter>,
}

/// Everything the engine's mutex guards.
#[derive(Default)]
pub(super) struct State {
    pub closed: Option<Error>,
    pub count: u64,
    pub next_id: u64,
    pub grace_until: Option<Instant>,
    pub keys: HashMap<Arc<KeyId>, KeyState>,
    pub leases: HashMap<LeaseId, Held>,
    pub deadlines: BTreeSet<(Instant, LeaseId)>,
    /// The instant the scheduler sleeps until, so that only an earlier
    /// deadline needs to wake it.
    pub scheduler_wakes_at: Option<Instant>,
    /// Where every grant and end is recorded, if anywhere.
    pub audit: Option<super::audit::Audit>,
}

impl State {
    /// A fresh id for a lease or a waiter.
    pub fn next_id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    /// Whether the grace after an unclean stop still forbids grants. Only
    /// the scheduler ends the grace, since it must then serve every line.
    pub fn in_grace(&self) -> bool {
        self.grace_until.is_some()
    }

    /// The earliest instant the scheduler must act at.
    pub fn next_deadline(&self) -> Option<Instant> {
        let lease = self.deadlines.first().map(|(at, _)| *at);
        match (lease, self.grace_until) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
}
