//! The engine's bookkeeping: which leases hold which keys, who waits in
//! a queue, and when each lease runs out. Plain data under the engine's mutex.

use super::deadlines::Deadlines;
use super::keys::Keys;
use super::leases::Leases;
use super::record::LeaseRecord;
use crate::error::Error;
use crate::vocab::LeaseId;
use std::time::Duration;
use tokio::time::Instant;

/// Everything the engine's mutex guards.
pub(super) struct State {
    /// The instant lease deadlines count from.
    pub base: Instant,
    /// How far the test kit moved this engine's time forward, in
    /// nanoseconds (always 0 outside tests).
    pub advanced: u64,
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
    /// Who counts every grant and end, if anyone (the server's metrics).
    pub tally: Option<std::sync::Arc<dyn super::tally::Tally>>,
    /// The watchers of groups, told every grant, end and queue length.
    pub watchers: super::watchers::Watchers,
}

impl State {
    /// Empty bookkeeping whose deadlines count from now.
    pub(super) fn new(
        epoch: u64,
        grace_until: Option<Instant>,
        audit: Option<super::audit::Audit>,
    ) -> State {
        State {
            base: Instant::now(),
            advanced: 0,
            closed: None,
            count: 0,
            next_id: 0,
            grace_until,
            keys: Keys::default(),
            leases: Leases::default(),
            deadlines: Deadlines::default(),
            scheduler_wakes_at: None,
            audit,
            tally: None,
            watchers: super::watchers::Watchers::new(epoch),
        }
    }

    /// A fresh id for a waiter.
    pub(super) fn next_id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    /// `at` in nanoseconds since the engine started (0 for earlier
    /// instants), plus the time the test kit moved it forward.
    pub(super) fn nanos(&self, at: Instant) -> u64 {
        u64::try_from(at.saturating_duration_since(self.base).as_nanos())
            .unwrap_or(u64::MAX)
            .saturating_add(self.advanced)
    }

    /// The instant `nanos` after the engine started (less the time the
    /// test kit moved it forward: such a deadline comes sooner).
    pub(super) fn instant(&self, nanos: u64) -> Instant {
        self.base + Duration::from_nanos(nanos.saturating_sub(self.advanced))
    }

    /// Whether the grace after an unclean stop still forbids grants. Only
    /// the scheduler ends the grace, since it must then serve every queue.
    pub(super) fn in_grace(&self) -> bool {
        self.grace_until.is_some()
    }

    /// The earliest instant the scheduler must act at.
    pub(super) fn next_deadline(&self) -> Option<Instant> {
        let lease = self.deadlines.first().map(|at| self.instant(at));
        match (lease, self.grace_until) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Removes a lease from every table, recording `why` in the audit log,
    /// without telling its holder or serving its key's queue; the caller does what
    /// follows.
    pub(super) fn detach(&mut self, id: LeaseId, why: &'static str) -> Option<LeaseRecord> {
        let held = self.leases.remove(id)?;
        // Read only when a tally is told: an embedded store has none.
        let now = self.tally.is_some().then(|| self.nanos(Instant::now()));
        if let Some(entry) = self.keys.get_mut(held.key) {
            entry.used = entry.used.saturating_sub(held.weight);
            if let Some(audit) = self.audit.as_mut() {
                audit.ended(id, &entry.id, held.count > 0, why);
            }
            if let (Some(tally), Some(now)) = (&self.tally, now) {
                let held_for = Duration::from_nanos(now.saturating_sub(held.granted_at));
                tally.ended(&entry.id, why, held_for);
            }
            self.watchers.ended(&entry.id, held.count, why);
        }
        Some(held)
    }
}
