//! The leases and waits of one connection. Lease ids are scoped to the
//! connection: another connection's id is simply not found here.

use crate::error::{Code, Error, Result};
use crate::vocab::LeaseId;
use crate::wire::{
    MAX_LEASES_PER_CONNECTION, MAX_OBSERVERS_PER_CONNECTION, MAX_WAITERS_PER_CONNECTION,
};
use std::collections::{HashMap, HashSet};
use tokio::sync::oneshot;

/// Everything a connection holds or waits for; guarded by its mutex.
#[derive(Default)]
pub(super) struct ConnectionLeases {
    closed: bool,
    /// The engine ids of the leases held; a lease's wire id is its decimal.
    held: HashSet<LeaseId>,
    pending: HashMap<u64, oneshot::Sender<()>>,
    /// The observers of elections, by the id of their `observe`; dropping
    /// the sender (a cancel, the connection's end) stops one.
    observing: HashMap<u64, oneshot::Sender<()>>,
}

impl ConnectionLeases {
    /// Whether the connection is gone (or the server shutting down).
    pub(super) fn is_closed(&self) -> bool {
        self.closed
    }

    /// Whether nothing is held or waited for.
    pub(super) fn is_empty(&self) -> bool {
        self.held.is_empty() && self.pending.is_empty() && self.observing.is_empty()
    }

    /// Records a waiting acquire `id`; the receiver fires when it is
    /// cancelled or the connection closes.
    pub(super) fn add_pending(&mut self, id: u64) -> Result<oneshot::Receiver<()>> {
        self.check_id_free(id)?;
        if self.pending.len() >= MAX_WAITERS_PER_CONNECTION {
            return Err(Error::new(
                Code::Limit,
                format!(
                    "a connection may have at most {MAX_WAITERS_PER_CONNECTION} acquires waiting"
                ),
            ));
        }
        self.check_room()?;
        let (tx, rx) = oneshot::channel();
        self.pending.insert(id, tx);
        Ok(rx)
    }

    /// Fails with `invalid` when request id `id` names an acquire that is
    /// waiting: its reply is still to come, and two replies with one id
    /// could not be told apart.
    pub(super) fn check_id_free(&self, id: u64) -> Result<()> {
        if self.pending.contains_key(&id) {
            return Err(Error::new(
                Code::Invalid,
                format!("request id {id} is already used by an acquire that is waiting"),
            ));
        }
        if self.observing.contains_key(&id) {
            return Err(Error::new(
                Code::Invalid,
                format!("request id {id} is already used by an observe that goes on"),
            ));
        }
        Ok(())
    }

    /// Records the observer `id`; the receiver fires when it is cancelled
    /// or the connection closes.
    pub(super) fn add_observer(&mut self, id: u64) -> Result<oneshot::Receiver<()>> {
        self.check_id_free(id)?;
        if self.observing.len() >= MAX_OBSERVERS_PER_CONNECTION {
            return Err(Error::new(
                Code::Limit,
                format!(
                    "a connection may have at most {MAX_OBSERVERS_PER_CONNECTION} observers of \
                     elections and watches at once"
                ),
            ));
        }
        let (tx, rx) = oneshot::channel();
        self.observing.insert(id, tx);
        Ok(rx)
    }

    /// Whether the observer `id` goes on.
    pub(super) fn is_observing(&self, id: u64) -> bool {
        self.observing.contains_key(&id)
    }

    /// Forgets the observer `id`, which ended by itself; false if it was
    /// cancelled meanwhile.
    pub(super) fn end_observer(&mut self, id: u64) -> bool {
        self.observing.remove(&id).is_some()
    }

    /// Fails with `limit` when the connection holds as many leases as allowed.
    pub(super) fn check_room(&self) -> Result<()> {
        if self.held.len() >= MAX_LEASES_PER_CONNECTION {
            return Err(Error::new(
                Code::Limit,
                format!("a connection may hold at most {MAX_LEASES_PER_CONNECTION} leases at once"),
            ));
        }
        Ok(())
    }

    /// Ends the wait `id` as answered; false if it was cancelled meanwhile.
    pub(super) fn finish_pending(&mut self, id: u64) -> bool {
        self.pending.remove(&id).is_some()
    }

    /// Cancels the wait or the observer `id`; false if no such acquire
    /// waits and no such observer goes on.
    pub(super) fn cancel(&mut self, id: u64) -> bool {
        match self.pending.remove(&id) {
            Some(tx) => {
                let _ = tx.send(());
                true
            }
            None => self.observing.remove(&id).is_some(),
        }
    }

    /// Records a held lease (the engine tells the connection when it ends,
    /// through the connection's lost channel); its wire id is [`wire_id`].
    pub(super) fn hold(&mut self, id: LeaseId) {
        self.held.insert(id);
    }

    /// The engine's id of a lease this connection holds.
    pub(super) fn get(&self, lease: &str) -> Result<LeaseId> {
        engine_id(lease)
            .filter(|id| self.held.contains(id))
            .ok_or_else(|| not_here(lease))
    }

    /// Forgets a held lease, returning its engine id.
    pub(super) fn take(&mut self, lease: &str) -> Result<LeaseId> {
        engine_id(lease)
            .filter(|id| self.held.remove(id))
            .ok_or_else(|| not_here(lease))
    }

    /// Marks the connection closed, cancels every wait and returns every
    /// held lease for release.
    pub(super) fn close(&mut self) -> Vec<LeaseId> {
        self.closed = true;
        self.pending.clear();
        self.observing.clear();
        self.held.drain().collect()
    }
}

/// The wire id of a lease: its engine id in decimal.
pub(super) fn wire_id(id: LeaseId) -> String {
    id.to_string()
}

/// The engine id a wire id names, if it is one in its canonical form.
pub(super) fn engine_id(lease: &str) -> Option<LeaseId> {
    lease
        .parse::<LeaseId>()
        .ok()
        .filter(|id| wire_id(*id) == lease)
}

fn not_here(lease: &str) -> Error {
    Error::new(
        Code::LeaseLost,
        format!(
            "lease {lease:?} is not held by this connection: it ran out, was released, or was never given here"
        ),
    )
}
