//! `LeaseRecord`: what the engine keeps of one held lease, and
//! `LostTeller`: where its loss is told.

use super::keys::KeySlot;
use crate::error::Error;
use crate::vocab::LeaseId;
use crate::vocab::LostSender;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;

/// A lease while it is held; kept small, since a server may hold millions.
pub(super) struct LeaseRecord {
    /// Where its key's state is; it stays there while the key is held.
    pub key: KeySlot,
    /// The count of its fence (the epoch is the engine's); 0 for a permit.
    pub count: u64,
    /// When it runs out, in nanoseconds since the engine started;
    /// `u64::MAX` for a renewing lease without a `max_hold`.
    pub expires: u64,
    /// When its `max_hold` passes, in nanoseconds since the engine started
    /// (`u64::MAX` without one): renewals never take `expires` past it.
    pub ends_by: u64,
    /// The places of its key it takes.
    pub weight: u32,
    pub lost: LostTeller,
    /// Its TTL in milliseconds (at most a day).
    pub ttl_ms: u32,
    /// Whether it counts as renewed all along (the option `renew` on an
    /// embedded store): it never runs out at its TTL, and ends when it is
    /// released, its `max_hold` passes, or the store closes.
    pub renewing: bool,
    /// When it was granted, in nanoseconds since the engine started.
    pub granted_at: u64,
    /// What its holder says about itself (lease_data.rs), shared with its
    /// request; `None` when it says nothing.
    pub data: Option<Arc<str>>,
}

impl LeaseRecord {
    /// The lease's TTL.
    pub(super) fn ttl(&self) -> Duration {
        Duration::from_millis(u64::from(self.ttl_ms))
    }
}

/// Where a held lease's end is told.
pub(super) enum LostTeller {
    Watch(LostSender),
    Channel(mpsc::UnboundedSender<(LeaseId, Error)>),
}

impl LostTeller {
    /// Tells the holder the lease `id` ended with `reason`; `None` when
    /// the holder released it, which it knows: nothing is told (a watch's
    /// waits end when the record drops its sender).
    pub(super) fn tell(&self, id: LeaseId, reason: Option<Error>) {
        match (self, reason) {
            (LostTeller::Watch(signal), Some(reason)) => {
                signal.tell(reason);
            }
            (LostTeller::Channel(channel), Some(reason)) => {
                let _ = channel.send((id, reason));
            }
            (_, None) => {}
        }
    }
}
