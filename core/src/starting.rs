//! Binding plumbing: an acquire, a campaign, an observer or a watch begun
//! as a value a binding holds ([`Acquiring`], [`Following`]), to poll now,
//! wait for from any thread and give up or close from any other. Reached
//! as `tinystore::binding::*` and hidden from the crate's docs; a Rust
//! program awaits `acquire`, `campaign`, `observe` and `watch` instead.
//!
//! [`Following`]: crate::following::Following

use crate::acquiring::Acquiring;
use crate::election::Observing;
use crate::names::Key;
use crate::options::Options;
use crate::watch::Watching;

/// An acquire of one key begun as an [`Acquiring`]: on `Locks` (a lease)
/// and `Semaphore` (a permit).
pub trait StartAcquire {
    /// What a grant gives: a `Lease` or a `Permit`.
    type Held;

    /// Starts acquiring `key` as an [`Acquiring`] that can be polled now,
    /// waited for, and given up from any thread without leaking what it
    /// holds: what a binding's cancellable wait is made of.
    fn acquiring(&self, key: impl Key, options: Options) -> Acquiring<Self::Held>;
}

/// `acquire_all` begun as an [`Acquiring`], on `Locks`.
pub trait StartAcquireAll: StartAcquire {
    /// `acquire_all` as an [`Acquiring`]: polled now, waited for, or given
    /// up from any thread, leaving no lease held.
    fn acquiring_all<K: Key>(
        &self,
        keys: impl IntoIterator<Item = K>,
        options: Options,
    ) -> Acquiring<Vec<Self::Held>>;
}

/// A read or a write acquire begun as an [`Acquiring`], on `RwLocks`.
pub trait StartReadWrite {
    /// What a read gives: a `Permit`.
    type Read;
    /// What a write gives: a `Lease`.
    type Write;

    /// Starts a read acquire that can be polled now, waited for, and given
    /// up from any thread without leaking a permit.
    fn acquiring_read(&self, key: impl Key, options: Options) -> Acquiring<Self::Read>;

    /// Starts a write acquire that can be polled now, waited for, and
    /// given up from any thread without leaking a lease.
    fn acquiring_write(&self, key: impl Key, options: Options) -> Acquiring<Self::Write>;
}

/// A campaign and an observer begun as values, on `Election`.
pub trait StartCampaign {
    /// What a campaign gives: a `Leadership`.
    type Held;

    /// Starts a campaign as an [`Acquiring`] that can be polled now,
    /// waited for, and given up from any thread without leaving a
    /// leadership behind: what a binding's cancellable campaign is made of.
    fn campaigning(&self, value: &str, options: Options) -> Acquiring<Self::Held>;

    /// `observe` as an [`Observing`]: started now (an embedded store's
    /// observer is subscribed on return), awaited from any thread and
    /// closed from any other; what a binding's observer is made of. Call
    /// it inside the runtime the store runs on.
    fn observing(&self) -> Observing;
}

/// A watch begun as a value, on `Locks`, `Semaphore` and `RwLocks`.
pub trait StartWatch {
    /// `watch` (of `key`, or of every key when `None`) as a [`Watching`]:
    /// started now (an embedded store's watch subscribes in the call),
    /// awaited from any thread, closed from any other; what the bindings
    /// hand out.
    fn watching(&self, key: Option<String>) -> Watching;
}
