//! The lock engine: exclusive locks with fences and semaphores with permits,
//! first come first served, with TTLs. It lives in memory; the store gives it
//! its epoch, and the server and the embedded API both drive it.

mod audit;
mod deadlines;
mod elect;
mod keys;
mod leases;
mod queue;
mod record;
mod refusals;
mod scheduler;
mod state;
mod status;
mod tally;
pub(crate) mod testing;
#[cfg(test)]
mod tests;
mod wait;
mod watchers;

pub(crate) use audit::Audit;
pub(crate) use tally::{Tally, Totals};

use crate::error::{Code, Error, Result};
use crate::fence::Fence;
use crate::vocab::{lost_signal, EngineGrant, LeaseId, LostTo, Request};
use keys::KeySlot;
use queue::Waiter;
use record::{LeaseRecord, LostTeller};
use state::State;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use tokio::sync::{oneshot, Notify};
use tokio::time::Instant;

/// The lock engine of one open store.
pub(crate) struct Engine {
    epoch: u64,
    state: Mutex<State>,
    wake: Arc<Notify>,
    /// Who leads each election, and its observers.
    elections: crate::election::Registry,
    /// Whether the test kit's controls (engine/testing.rs) are allowed.
    testing: bool,
    /// The late writes refused by guards, per group (refusals.rs).
    refusals: Mutex<refusals::Refusals>,
}

impl Engine {
    /// An engine that gives fences in `epoch`, and no lease before `grace`
    /// has passed, recording every grant and end in `audit` if given. Must
    /// be called within a tokio runtime: it spawns the task that ends leases
    /// at their TTL. A `testing` engine lets the test kit move its time
    /// and expire its leases.
    pub(crate) fn new(
        epoch: u64,
        grace: Option<Duration>,
        mut audit: Option<Audit>,
        testing: bool,
    ) -> Arc<Engine> {
        if let Some(audit) = audit.as_mut() {
            audit.opened(epoch);
        }
        let grace_until = grace.filter(|g| !g.is_zero()).map(|g| Instant::now() + g);
        let state = State::new(epoch, grace_until, audit);
        let engine = Arc::new(Engine {
            epoch,
            state: Mutex::new(state),
            wake: Arc::new(Notify::new()),
            elections: Default::default(),
            testing,
            refusals: Mutex::default(),
        });
        scheduler::spawn(&engine);
        engine
    }

    /// The epoch in the high 64 bits of every fence this engine gives.
    pub(crate) fn epoch(&self) -> u64 {
        self.epoch
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Grants the key now if it is free and nobody waits for it; `None`
    /// otherwise.
    pub(crate) fn try_acquire(&self, request: &Request) -> Result<Option<EngineGrant>> {
        let mut st = self.lock();
        let now = Instant::now();
        self.reap(&mut st, now);
        check_open(&st)?;
        let (slot, grant) = self.grant_if_free(&mut st, request, now)?;
        if grant.is_none() {
            remove_if_idle(&mut st, slot);
        }
        Ok(grant)
    }

    /// Waits first come first served until the key is free. Dropping the
    /// future gives up the wait and never leaks a lease.
    pub(crate) async fn acquire(self: &Arc<Self>, request: Request) -> Result<EngineGrant> {
        let (waiter_id, key, slot, reply) = {
            let mut st = self.lock();
            let now = Instant::now();
            self.reap(&mut st, now);
            check_open(&st)?;
            let (slot, grant) = self.grant_if_free(&mut st, &request, now)?;
            if let Some(grant) = grant {
                return Ok(grant);
            }
            let id = st.next_id();
            let (tx, rx) = oneshot::channel();
            let key = request.key().clone();
            let queued_at = st.nanos(now);
            let Some(entry) = st.keys.get_mut(slot) else {
                return Err(Error::internal("a key vanished while its caller waited"));
            };
            entry.waiters.push_back(Waiter {
                id,
                request,
                reply: tx,
                queued_at,
            });
            let length = entry.waiters.len();
            st.watchers.queue(&key, length);
            (id, key, slot, rx)
        };
        wait::Wait::new(self.clone(), key, slot, waiter_id, reply).await
    }

    /// Runs `drop_waits`, which drops waits of this engine (and must not
    /// await or call the engine); their places are then given up together,
    /// under one hold of the lock.
    pub(crate) fn leave_together(&self, drop_waits: impl FnOnce()) {
        wait::leave_together(self, drop_waits);
    }

    /// Extends a held lease by its TTL from now, but never past its
    /// `max_hold` after its grant.
    pub(crate) fn renew(&self, id: LeaseId) -> Result<()> {
        let mut st = self.lock();
        let now = Instant::now();
        self.reap(&mut st, now);
        check_open(&st)?;
        let now = st.nanos(now);
        let held = st.leases.get_mut(id).ok_or_else(|| not_held(id))?;
        if held.renewing {
            // Renewed all along already; it ends by its max_hold if any.
            return Ok(());
        }
        // Never past its max_hold: a lease that reached it runs out.
        held.expires = now.saturating_add(ttl_nanos(held.ttl_ms)).min(held.ends_by);
        let (expires, slot) = (held.expires, held.key);
        let State {
            deadlines,
            leases,
            audit,
            keys,
            ..
        } = &mut *st;
        deadlines.push(expires, id, leases);
        if let (Some(audit), Some(key)) = (audit.as_mut(), keys.get(slot)) {
            audit.renewed(id, &key.id, now, expires);
        }
        Ok(())
    }

    /// Releases a held lease and serves the next in its key's queue.
    pub(crate) fn release(&self, id: LeaseId) -> Result<()> {
        let mut st = self.lock();
        let now = Instant::now();
        self.reap(&mut st, now);
        check_open(&st)?;
        if st.leases.get(id).is_none() {
            return Err(not_held(id));
        }
        self.end_lease(&mut st, id, "released", None, now);
        Ok(())
    }

    /// Releases lease `id` because its holder's connection ended (counted
    /// as `disconnected`, not as a release); nothing is told.
    pub(crate) fn disconnect(&self, id: LeaseId) {
        let mut st = self.lock();
        let now = Instant::now();
        self.reap(&mut st, now);
        if st.leases.get(id).is_some() {
            self.end_lease(&mut st, id, "disconnected", None, now);
        }
    }

    /// Ends every lease (their holders are told `reason`) and fails every
    /// waiter with it. Later calls fail with `reason` too.
    pub(crate) fn close(&self, reason: Error) {
        let mut st = self.lock();
        if st.closed.is_some() {
            return;
        }
        let leases: Vec<(LeaseId, LeaseRecord)> = st.leases.drain();
        let now = st.nanos(Instant::now());
        for (id, held) in leases {
            let State {
                audit,
                keys,
                tally,
                watchers,
                ..
            } = &mut *st;
            if let (Some(audit), Some(key)) = (audit.as_mut(), keys.get(held.key)) {
                audit.ended(id, &key.id, held.count > 0, "closed");
            }
            if let (Some(tally), Some(key)) = (tally, keys.get(held.key)) {
                let held_for = Duration::from_nanos(now.saturating_sub(held.granted_at));
                tally.ended(&key.id, "closed", held_for);
            }
            if let Some(key) = keys.get(held.key) {
                watchers.ended(&key.id, held.count, "closed");
            }
            held.lost.tell(id, Some(reason.clone()));
        }
        for mut key in st.keys.drain() {
            for waiter in key.waiters.take_all() {
                let _ = waiter.reply.send(Err(reason.clone()));
            }
        }
        st.deadlines.clear();
        st.watchers.close(&reason);
        self.elections.close(&reason);
        st.closed = Some(reason);
        drop(st);
        self.wake.notify_one();
    }

    /// A watch of the group `name` of `kind`: of its key `key`, or of every
    /// key when `None` (watch/mod.rs).
    pub(crate) fn watch(
        &self,
        kind: crate::vocab::GroupKind,
        name: &str,
        key: Option<String>,
    ) -> Result<crate::watch::Watch> {
        watchers::watchable(kind)?;
        let mut st = self.lock();
        check_open(&st)?;
        Ok(st.watchers.watch(kind, name, key))
    }

    /// A guard refused a late write under a lease of group `name` of
    /// `kind` (its name checked by the caller): counted (refusals.rs), and
    /// told to the tally (the server's metrics). Quick; never fails.
    pub(crate) fn refused(&self, kind: crate::vocab::GroupKind, name: &str) {
        let counted = self.refused_counts().count(kind, name).to_string();
        let tally = self.lock().tally.clone();
        if let Some(tally) = tally {
            tally.refused(kind.label(), &counted);
        }
    }

    /// The counts of late writes refused, per group.
    fn refused_counts(&self) -> MutexGuard<'_, refusals::Refusals> {
        self.refusals
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Tells `tally` every grant and end from now on (replacing any earlier).
    pub(crate) fn set_tally(&self, tally: Arc<dyn Tally>) {
        self.lock().tally = Some(tally);
    }

    /// Whether the grace given at [`Engine::new`] (if any) has passed, even
    /// if the engine was closed since.
    pub(crate) fn grace_passed(&self) -> bool {
        self.lock()
            .grace_until
            .is_none_or(|until| Instant::now() >= until)
    }

    /// Grants `request` now if its key has room and an empty queue; the
    /// key's slot either way (made if the key was new).
    fn grant_if_free(
        &self,
        st: &mut State,
        request: &Request,
        now: Instant,
    ) -> Result<(KeySlot, Option<EngineGrant>)> {
        let in_grace = st.in_grace();
        let slot = st.keys.find_or_insert(request.key(), request.limit());
        let Some(entry) = st.keys.get(slot) else {
            return Err(Error::internal("a key vanished as it was made"));
        };
        if entry.limit != request.limit() {
            let err = Error::invalid(format!(
                "{} has limit {} while it has holders; it was asked with limit {}",
                request.key(),
                entry.limit,
                request.limit()
            ));
            remove_if_idle(st, slot);
            return Err(err);
        }
        let free = !in_grace && entry.waiters.is_empty() && fits(entry, request.weight());
        if !free {
            return Ok((slot, None));
        }
        let granted = self.grant(st, slot, request, now, None);
        self.settled(st, slot);
        if granted.is_err() {
            remove_if_idle(st, slot);
        }
        Ok((slot, Some(granted?)))
    }

    /// Makes a lease for `request` on the key in `slot`, which must have
    /// room for its weight.
    fn grant(
        &self,
        st: &mut State,
        slot: KeySlot,
        request: &Request,
        now: Instant,
        queued_at: Option<u64>,
    ) -> Result<EngineGrant> {
        let ttl_ms = request.ttl_ms();
        let fence = if request.fenced() {
            if st.count == u64::MAX {
                return Err(Error::new(
                    Code::Limit,
                    format!("the count of epoch {} is used up at 2^64-1", self.epoch),
                ));
            }
            st.count += 1;
            Some(Fence::new(self.epoch, st.count))
        } else {
            None
        };
        let granted_at = st.nanos(now);
        let ends_by = request.max_hold().map_or(u64::MAX, |max_hold| {
            granted_at.saturating_add(u64::try_from(max_hold.as_nanos()).unwrap_or(u64::MAX))
        });
        let expires = if request.renewing() {
            ends_by
        } else {
            granted_at.saturating_add(ttl_nanos(ttl_ms)).min(ends_by)
        };
        let (lost, signal) = match request.lost_to() {
            LostTo::Watch => {
                let (tx, rx) = lost_signal();
                (LostTeller::Watch(tx), Some(rx))
            }
            LostTo::Channel(channel) => (LostTeller::Channel(channel.clone()), None),
        };
        let held = LeaseRecord {
            key: slot,
            count: fence.map_or(0, Fence::count),
            expires,
            ends_by,
            weight: request.weight(),
            lost,
            ttl_ms,
            renewing: request.renewing(),
            granted_at,
            data: request.data_shared(),
        };
        let id = st
            .leases
            .insert(held)
            .ok_or_else(|| Error::new(Code::Limit, "the engine holds 2^32 leases; release some"))?;
        if expires != u64::MAX {
            let State {
                deadlines, leases, ..
            } = &mut *st;
            deadlines.push(expires, id, leases);
            let at = st.instant(expires);
            if st.scheduler_wakes_at.is_none_or(|wakes| at < wakes) {
                st.scheduler_wakes_at = Some(at);
                self.wake.notify_one();
            }
        }
        if let Some(key) = st.keys.get_mut(slot) {
            key.used = key.used.saturating_add(request.weight());
        }
        if let Some(audit) = st.audit.as_mut() {
            audit.granted(id, request, fence, granted_at, ends_by);
        }
        if let Some(tally) = &st.tally {
            let waited = granted_at.saturating_sub(queued_at.unwrap_or(granted_at));
            tally.granted(request.key(), Duration::from_nanos(waited));
        }
        st.watchers.granted(
            request.key(),
            fence.map_or(0, Fence::count),
            request.data_shared().as_ref(),
        );
        self.granted_holder(request, fence);
        Ok(EngineGrant {
            id,
            fence,
            lost: signal,
        })
    }

    /// Ends the leases whose TTL has passed.
    fn reap(&self, st: &mut State, now: Instant) {
        let now_nanos = st.nanos(now);
        loop {
            let State {
                deadlines, leases, ..
            } = &mut *st;
            let Some(id) = deadlines.pop_due(now_nanos, leases) else {
                break;
            };
            let reason = match st.leases.get(id) {
                Some(h) => {
                    let key = st
                        .keys
                        .get(h.key)
                        .map_or("a key".to_string(), |k| k.id.to_string());
                    Error::lease_lost(if h.expires == h.ends_by {
                        format!("the lease on {key} ran out at its max_hold: a lease is not renewed past it")
                    } else {
                        format!(
                            "the lease on {key} ran out: it was not renewed within its ttl of {:?}",
                            h.ttl()
                        )
                    })
                }
                None => continue,
            };
            self.end_lease(st, id, "expired", Some(reason), now);
        }
    }

    /// Removes a lease, tells its holder `reason` (`None`: its holder
    /// released it), and serves its key's queue.
    fn end_lease(
        &self,
        st: &mut State,
        id: LeaseId,
        why: &'static str,
        reason: Option<Error>,
        now: Instant,
    ) {
        if let Some(held) = st.detach(id, why) {
            held.lost.tell(id, reason);
            self.serve_queue(st, held.key, now);
        }
    }

    /// Grants the key to those first in its queue while it has room for
    /// the first one's weight: all or nothing, first come first served (a
    /// heavy waiter holds back the lighter ones behind it).
    fn serve_queue(&self, st: &mut State, key: KeySlot, now: Instant) {
        if st.in_grace() {
            return;
        }
        let queued = st.keys.get(key).map_or(0, |entry| entry.waiters.len());
        loop {
            let Some(entry) = st.keys.get_mut(key) else {
                return;
            };
            let Some(first) = entry.waiters.front() else {
                break;
            };
            let gone = first.reply.is_closed();
            if !gone && !fits(entry, first.request.weight()) {
                break;
            }
            let Some(waiter) = entry.waiters.pop_front() else {
                break;
            };
            if gone {
                continue;
            }
            match self.grant(st, key, &waiter.request, now, Some(waiter.queued_at)) {
                Ok(grant) => {
                    if let Err(Ok(unwanted)) = waiter.reply.send(Ok(grant)) {
                        st.detach(unwanted.id, "not taken");
                    }
                }
                Err(err) => {
                    let _ = waiter.reply.send(Err(err));
                }
            }
        }
        if let Some(entry) = st.keys.get(key) {
            if entry.waiters.len() != queued {
                st.watchers.queue(&entry.id, entry.waiters.len());
            }
        }
        self.settled(st, key);
        remove_if_idle(st, key);
    }

    /// Ends the grace if it is due, serving every queue that formed in it.
    fn end_grace_if_due(&self, st: &mut State, now: Instant) {
        if st.grace_until.is_some_and(|until| now >= until) {
            st.grace_until = None;
            for key in st.keys.slots() {
                self.serve_queue(st, key, now);
            }
        }
    }
}

impl scheduler::Timed for Engine {
    fn end_due(&self) -> scheduler::Next {
        let mut st = self.lock();
        if st.closed.is_some() {
            return scheduler::Next::Stop;
        }
        let now = Instant::now();
        self.reap(&mut st, now);
        self.end_grace_if_due(&mut st, now);
        let next = st.next_deadline();
        st.scheduler_wakes_at = next;
        scheduler::Next::At(next)
    }

    fn wake(&self) -> Arc<Notify> {
        self.wake.clone()
    }
}

impl wait::Queues for Engine {
    fn lock(&self) -> MutexGuard<'_, State> {
        Engine::lock(self)
    }

    fn serve_queue(&self, st: &mut State, slot: KeySlot, now: Instant) {
        Engine::serve_queue(self, st, slot, now);
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        self.wake.notify_one();
    }
}

fn check_open(st: &State) -> Result<()> {
    match &st.closed {
        Some(reason) => Err(reason.clone()),
        None => Ok(()),
    }
}

/// Whether the key has room for `weight` more places.
fn fits(key: &keys::KeyState, weight: u32) -> bool {
    u64::from(key.used) + u64::from(weight) <= u64::from(key.limit)
}

/// A TTL of `ttl_ms` in nanoseconds.
fn ttl_nanos(ttl_ms: u32) -> u64 {
    u64::from(ttl_ms) * 1_000_000
}

fn not_held(id: LeaseId) -> Error {
    Error::lease_lost(format!(
        "lease {id} is not held: it ran out or was released"
    ))
}

/// Forgets a key's entry once nobody holds it or waits for it.
fn remove_if_idle(st: &mut State, key: KeySlot) {
    if st.keys.get(key).is_some_and(|k| k.is_idle()) {
        st.keys.remove(key);
    }
}
