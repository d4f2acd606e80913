//! `WatchEvent`: one thing that happened on a watched key.

use crate::fence::Fence;

/// One thing that happened on a watched key, or to the watcher itself.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum WatchEvent {
    /// `key` was granted: a lock's lease (or a read-write lock's write
    /// lease) with its `fence`, a permit or a read lease without one;
    /// `data` is what its holder attached to it, if anything.
    Granted {
        /// The key.
        key: String,
        /// The lease's fence; `None` for a permit or a read lease.
        fence: Option<Fence>,
        /// The holder's data.
        data: Option<String>,
    },
    /// A holder of `key` released it (or gave up a grant it no longer
    /// wanted).
    Released {
        /// The key.
        key: String,
        /// The ended lease's fence; `None` for a permit or a read lease.
        fence: Option<Fence>,
    },
    /// A holder of `key` lost it without releasing it: `cause` is
    /// `expired` (its TTL or `max_hold` ran out), `disconnected` (its
    /// holder's connection ended) or `closed` (the store closed).
    Lost {
        /// The key.
        key: String,
        /// The lost lease's fence; `None` for a permit or a read lease.
        fence: Option<Fence>,
        /// Why it ended.
        cause: String,
    },
    /// The queue of acquires waiting for `key` is now `length` long.
    Queue {
        /// The key.
        key: String,
        /// How many acquires wait for it now.
        length: u64,
    },
    /// The watcher fell behind: `missed` events came that it had no room
    /// for and will never see. What is held now is in `status`.
    Lagged {
        /// How many events were dropped.
        missed: u64,
    },
}

impl WatchEvent {
    /// The key the event is about; `None` for [`WatchEvent::Lagged`].
    pub fn key(&self) -> Option<&str> {
        match self {
            WatchEvent::Granted { key, .. }
            | WatchEvent::Released { key, .. }
            | WatchEvent::Lost { key, .. }
            | WatchEvent::Queue { key, .. } => Some(key),
            WatchEvent::Lagged { .. } => None,
        }
    }

    /// Its name: `granted`, `released`, `lost`, `queue` or `lagged`, as the
    /// wire and the command line name it.
    pub fn kind(&self) -> &'static str {
        match self {
            WatchEvent::Granted { .. } => "granted",
            WatchEvent::Released { .. } => "released",
            WatchEvent::Lost { .. } => "lost",
            WatchEvent::Queue { .. } => "queue",
            WatchEvent::Lagged { .. } => "lagged",
        }
    }

    /// The event for a lease on `key` that ended for `why` (the engine's
    /// word: `released`, `given up` and `not taken` are releases; any
    /// other is a loss with that cause).
    pub(crate) fn ended(key: String, fence: Option<Fence>, why: &str) -> WatchEvent {
        match why {
            "released" | "given up" | "not taken" => WatchEvent::Released { key, fence },
            cause => WatchEvent::Lost {
                key,
                fence,
                cause: cause.to_string(),
            },
        }
    }
}
