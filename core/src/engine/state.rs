//! The engine's bookkeeping: which leases hold which keys, who waits in
//! line, and when each lease runs out. Plain data under the engine's mutex.

use super::deadlines::Deadlines;
use super::keys::{KeySlot, Keys};
use super::leases::Leases;
use crate::error::{Error, Result};
use crate::fence::Fence;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{mpsc, oneshot, watch};
use tokio::time::Instant;

/// Identifies a lease within one engine.
pub type LeaseId = u64;

/// The signal a lease's holder watches: `None` while held, then why it ended.
pub type LostSignal = watch::Receiver<Option<Error>>;

/// Which table a key lives in, exclusive locks (fenced) or a semaphore,
/// and its group's name and key, stored as one text so that a million held
/// keys cost one small allocation each.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct KeyId {
    /// The group's name followed by the key.
    text: Box<str>,
    /// Where the name ends in `text`.
    name_len: u32,
    /// Whether this is an exclusive lock, whose leases carry fences.
    fenced: bool,
}

impl KeyId {
    /// The key `key` of the group `name`: an exclusive lock's when `fenced`,
    /// a semaphore's otherwise.
    pub fn new(fenced: bool, name: &str, key: &str) -> KeyId {
        KeyId {
            text: format!("{name}{key}").into_boxed_str(),
            name_len: u32::try_from(name.len()).expect("names are checked to be short"),
            fenced,
        }
    }

    /// Whether this is an exclusive lock, whose leases carry fences.
    pub fn fenced(&self) -> bool {
        self.fenced
    }

    /// The group's name.
    pub fn name(&self) -> &str {
        &self.text[..self.name_len as usize]
    }

    /// The key within the group.
    pub fn key(&self) -> &str {
        &self.text[self.name_len as usize..]
    }
}

impl std::fmt::Display for KeyId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = if self.fenced { "lock" } else { "semaphore" };
        write!(f, "{kind} {}/{}", self.name(), self.key())
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

/// A lease while it is held; kept small, since a server may hold millions.
pub(super) struct Held {
    /// Where its key's state is; it stays there while the key is held.
    pub key: KeySlot,
    /// The count of its fence (the epoch is the engine's); 0 for a permit.
    pub count: u64,
    /// When it runs out, in nanoseconds since the engine started.
    pub expires: u64,
    pub lost: Lost,
    /// Its TTL in milliseconds (at most a day).
    pub ttl_ms: u32,
    pub keepalive: bool,
}

impl Held {
    /// The lease's TTL.
    pub fn ttl(&self) -> Duration {
        Duration::from_millis(u64::from(self.ttl_ms))
    }
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

/// Everything the engine's mutex guards.
pub(super) struct State {
    /// The instant lease deadlines count from.
    pub base: Instant,
    pub closed: Option<Error>,
    pub count: u64,
    pub next_id: u64,
    pub grace_until: Option<Instant>,
    pub keys: Keys,
    pub leases: Leases,
    pub deadlines: Deadlines,
    /// The instant the scheduler sleeps until, so that only an earlier
    /// deadline needs to wake it.
    pub scheduler_wakes_at: Option<Instant>,
    /// Where every grant and end is recorded, if anywhere.
    pub audit: Option<super::audit::Audit>,
}

impl State {
    /// Empty bookkeeping whose deadlines count from now.
    pub fn new(grace_until: Option<Instant>, audit: Option<super::audit::Audit>) -> State {
        State {
            base: Instant::now(),
            closed: None,
            count: 0,
            next_id: 0,
            grace_until,
            keys: Keys::default(),
            leases: Leases::default(),
            deadlines: Deadlines::default(),
            scheduler_wakes_at: None,
            audit,
        }
    }

    /// A fresh id for a waiter.
    pub fn next_id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    /// `at` in nanoseconds since the engine started (0 for earlier instants).
    pub fn nanos(&self, at: Instant) -> u64 {
        u64::try_from(at.saturating_duration_since(self.base).as_nanos()).unwrap_or(u64::MAX)
    }

    /// The instant `nanos` after the engine started.
    pub fn instant(&self, nanos: u64) -> Instant {
        self.base + Duration::from_nanos(nanos)
    }

    /// Whether the grace after an unclean stop still forbids grants. Only
    /// the scheduler ends the grace, since it must then serve every line.
    pub fn in_grace(&self) -> bool {
        self.grace_until.is_some()
    }

    /// The earliest instant the scheduler must act at.
    pub fn next_deadline(&self) -> Option<Instant> {
        let lease = self.deadlines.first().map(|at| self.instant(at));
        match (lease, self.grace_until) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
}
