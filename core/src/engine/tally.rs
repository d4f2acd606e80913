//! Counting what the engine does, for the server's metrics and logs: a
//! [`Tally`] is told every grant and every end of a lease as it happens
//! (under the engine's lock, so it must be quick; `Engine::set_tally`) and
//! every late write a guard refused, and
//! [`Totals`] is a snapshot of what is held and waiting now
//! (`Engine::totals`, in status.rs).

use crate::vocab::KeyId;
use std::time::Duration;

/// Told every grant and every end of a lease, in the engine's order, under
/// its lock: it must not block nor call the engine.
pub(crate) trait Tally: Send + Sync {
    /// A lease on `key` was granted, after `waited` in its queue (zero
    /// when the key was free).
    fn granted(&self, key: &KeyId, waited: Duration);
    /// A lease on `key` ended after it was held for `held`: `why` is
    /// `released`, `expired` (its TTL or `max_hold` ran out),
    /// `disconnected` (its holder's connection ended), `closed` (the store
    /// closed), `given up` or `not taken` (a grant its waiter no longer
    /// wanted).
    fn ended(&self, key: &KeyId, why: &str, held: Duration);
    /// A guard refused a late write under a lease of group `name` of
    /// `kind` (`KeyId::kind`), as its holder told the store.
    fn refused(&self, kind: &'static str, name: &str);
}

/// What the engine holds and waits for now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Totals {
    /// Leases and permits held.
    pub held: usize,
    /// Acquires waiting in a key's queue, on every key.
    pub waiters: usize,
    /// The acquires waiting, by kind (`KeyId::kind`) and group name; only
    /// names with waiters.
    pub waiting_by_name: Vec<(&'static str, String, usize)>,
    /// What is left of the grace after an unclean stop; zero once it passed.
    pub grace_left: Duration,
}
