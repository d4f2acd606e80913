//! The test kit's controls on an engine made for tests: moving its time
//! forward and ending a lease as if its holder had paused past its TTL.
//! An engine not made for tests refuses them (see [`refused`]).

use super::{Engine, State};
use crate::error::{Error, Result};
use crate::vocab::LeaseId;
use std::time::Duration;
use tokio::time::Instant;

impl Engine {
    /// Moves this engine's time `by` forward at once: every lease whose
    /// deadline falls within ends as a lease that ran out does (its holder
    /// is told, the next waiter is granted), and so does a renewing lease
    /// whose TTL is at most `by` (nothing renewed it meanwhile). A grace
    /// after an unclean stop that ends within ends too. Waits (`wait`) are
    /// not moved: they keep the caller's time.
    pub(crate) fn advance(&self, by: Duration) -> Result<()> {
        let mut st = self.lock();
        self.check_testing()?;
        super::check_open(&st)?;
        let now = Instant::now();
        self.reap(&mut st, now);
        let nanos = u64::try_from(by.as_nanos()).unwrap_or(u64::MAX);
        let advanced = st
            .advanced
            .checked_add(nanos)
            .filter(|total| *total <= MAX_ADVANCED_NANOS)
            .ok_or_else(|| {
                Error::invalid(format!(
                    "cannot move a test store's time {by:?} forward: it moves at most 100 years in all"
                ))
            })?;
        st.advanced = advanced;
        st.grace_until = st
            .grace_until
            .map(|until| until.checked_sub(by).unwrap_or(now).max(now));
        let renewing: Vec<LeaseId> = st
            .leases
            .iter()
            .filter(|(_, held)| held.renewing && super::ttl_nanos(held.ttl_ms) <= nanos)
            .map(|(id, _)| id)
            .collect();
        for id in renewing {
            let reason = ran_out(&st, id);
            self.end_lease(&mut st, id, "expired", Some(reason), now);
        }
        self.reap(&mut st, now);
        self.end_grace_if_due(&mut st, now);
        st.scheduler_wakes_at = None;
        self.wake.notify_one();
        Ok(())
    }

    /// Ends lease `id` now as if it ran out: its holder is told it lost the
    /// lease, and the next waiter is granted with a larger fence.
    pub(crate) fn expire(&self, id: LeaseId) -> Result<()> {
        let mut st = self.lock();
        self.check_testing()?;
        super::check_open(&st)?;
        let now = Instant::now();
        self.reap(&mut st, now);
        if st.leases.get(id).is_none() {
            return Err(super::not_held(id));
        }
        let reason = ran_out(&st, id);
        self.end_lease(&mut st, id, "expired", Some(reason), now);
        Ok(())
    }

    /// Ends, as [`Engine::expire`] does, every lease held on `key` of the
    /// groups called `name` (lock group, semaphore or read-write locks;
    /// not an election's); returns how many.
    pub(crate) fn expire_key(&self, name: &str, key: &str) -> Result<usize> {
        let mut st = self.lock();
        self.check_testing()?;
        super::check_open(&st)?;
        let now = Instant::now();
        self.reap(&mut st, now);
        let held: Vec<LeaseId> = st
            .leases
            .iter()
            .filter(|(_, h)| {
                st.keys.get(h.key).is_some_and(|k| {
                    !k.id.is_election() && k.id.name() == name && k.id.key() == key
                })
            })
            .map(|(id, _)| id)
            .collect();
        for &id in &held {
            let reason = ran_out(&st, id);
            self.end_lease(&mut st, id, "expired", Some(reason), now);
        }
        Ok(held.len())
    }

    /// Whether this engine was made for tests.
    pub(crate) fn testing(&self) -> bool {
        self.testing
    }

    fn check_testing(&self) -> Result<()> {
        if self.testing {
            Ok(())
        } else {
            Err(refused())
        }
    }
}

/// How far `advance` may move an engine's time in all: 100 years, far
/// within the nanoseconds a deadline counts (584 years), so that no
/// deadline reaches the "never" its largest value means.
const MAX_ADVANCED_NANOS: u64 = 100 * 365 * 24 * 3600 * 1_000_000_000;

/// The refusal of a test control on a store not made for tests.
pub(crate) fn refused() -> Error {
    Error::invalid(
        "this store is not a test store: advance and expire work only on a store made by \
         tinystore's test kit, or served with `tinystore serve --testing`",
    )
}

/// What the holder of lease `id` is told: that it ran out, as a lease whose
/// holder paused past its TTL does.
fn ran_out(st: &State, id: LeaseId) -> Error {
    let key = st
        .leases
        .get(id)
        .and_then(|h| st.keys.get(h.key))
        .map_or("a key".to_string(), |k| k.id.to_string());
    Error::lease_lost(format!(
        "the lease on {key} ran out: the test kit expired it, as if its holder paused past its ttl"
    ))
}
