//! How a holder learns that its lease ended without it releasing it (it ran
//! out, its connection broke, or the store closed).

use super::lease_id::LeaseId;
use crate::error::Error;
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use tokio::sync::{mpsc, Notify};

/// Makes both sides of one lease's lost signal.
pub(crate) fn lost_signal() -> (LostSender, LostSignal) {
    let shared = Arc::new(Shared {
        reason: OnceLock::new(),
        sender_gone: AtomicBool::new(false),
        changed: Notify::new(),
    });
    (LostSender(shared.clone()), LostSignal(shared))
}

struct Shared {
    reason: OnceLock<Error>,
    sender_gone: AtomicBool,
    changed: Notify,
}

/// The side that tells: once, with why the lease ended. Dropping it
/// without telling ends the waits of [`LostSignal::ended`] with `None`.
pub(crate) struct LostSender(Arc<Shared>);

impl LostSender {
    /// Tells why the lease ended; only the first reason counts. True when
    /// this was the first.
    pub(crate) fn tell(&self, reason: Error) -> bool {
        let first = self.0.reason.set(reason).is_ok();
        if first {
            self.0.changed.notify_waiters();
        }
        first
    }

    /// Why it ended, if told.
    pub(crate) fn reason(&self) -> Option<Error> {
        self.0.reason.get().cloned()
    }

    /// A signal watching this sender.
    #[cfg(feature = "etcd")]
    pub(crate) fn subscribe(&self) -> LostSignal {
        LostSignal(self.0.clone())
    }
}

impl Drop for LostSender {
    fn drop(&mut self) {
        if self.0.reason.get().is_none() {
            self.0.sender_gone.store(true, Ordering::SeqCst);
            self.0.changed.notify_waiters();
        }
    }
}

impl fmt::Debug for LostSender {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("LostSender").field(&self.reason()).finish()
    }
}

/// The signal a lease's holder watches: no reason while held, then why it
/// ended. Cheap to clone; costs its teller nothing while nobody waits.
#[derive(Clone)]
pub(crate) struct LostSignal(Arc<Shared>);

impl LostSignal {
    /// Why the lease ended; `None` while it has not.
    pub(crate) fn reason(&self) -> Option<Error> {
        self.0.reason.get().cloned()
    }

    /// Whether it was told that the lease ended.
    pub(crate) fn is_lost(&self) -> bool {
        self.0.reason.get().is_some()
    }

    /// Waits until told: `Some(reason)`; `None` when the teller went away
    /// without telling.
    pub(crate) async fn ended(&self) -> Option<Error> {
        loop {
            let changed = self.0.changed.notified();
            let mut changed = std::pin::pin!(changed);
            changed.as_mut().enable();
            if let Some(reason) = self.0.reason.get() {
                return Some(reason.clone());
            }
            if self.0.sender_gone.load(Ordering::SeqCst) {
                return None;
            }
            changed.await;
        }
    }
}

impl fmt::Debug for LostSignal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("LostSignal").field(&self.reason()).finish()
    }
}

/// How the engine tells a holder that its lease ended without the holder
/// releasing it (it ran out, or the store closed).
#[derive(Debug, Clone, Default)]
pub(crate) enum LostTo {
    /// A watch signal of its own per lease, in its grant.
    #[default]
    Watch,
    /// One channel shared by many leases (a server connection's): each
    /// lease's id and why it ended. No signal per lease
    /// is made.
    Channel(mpsc::UnboundedSender<(LeaseId, Error)>),
}
