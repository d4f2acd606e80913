//! The latest grants and losses, for the live page ([`super::page`]): two
//! bounded rings the engine's [`Tally`] hooks feed, the newest last. A
//! ring keeps [`RECENT`] events whatever the number of keys: an old event
//! makes room for a new one.

use crate::engine::Tally;
use crate::vocab::KeyId;
use serde::Serialize;
use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// How many grants, and apart from them how many losses, are kept.
pub const RECENT: usize = 50;

/// One grant or loss.
#[derive(Debug, Clone, Serialize)]
pub(super) struct Event {
    /// Its place in the order of all events kept, from 1.
    pub seq: u64,
    /// When it happened, in milliseconds since 1970 (the server's clock).
    pub at_ms: u64,
    /// `granted`, or the cause of a loss: `expired`, `disconnected`, `closed`.
    pub what: &'static str,
    /// The kind of group (`lock`, `semaphore`, `rwlock`, `election`).
    pub kind: &'static str,
    pub name: String,
    pub key: String,
    /// For a grant: how long it waited in its key's queue.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub waited_ms: Option<u64>,
    /// For a loss: how long the lease had been held.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub held_ms: Option<u64>,
}

/// The causes of an end that count as a loss (a release does not).
const LOSSES: [&str; 3] = ["expired", "disconnected", "closed"];

#[derive(Default)]
struct Rings {
    seq: u64,
    grants: VecDeque<Event>,
    losses: VecDeque<Event>,
}

/// The latest grants and losses.
#[derive(Default)]
pub(super) struct Recent {
    rings: Mutex<Rings>,
}

impl Recent {
    /// The grants and the losses kept, each oldest first.
    pub(super) fn events(&self) -> (Vec<Event>, Vec<Event>) {
        let rings = self.rings.lock().unwrap_or_else(|p| p.into_inner());
        (
            rings.grants.iter().cloned().collect(),
            rings.losses.iter().cloned().collect(),
        )
    }

    fn push(
        &self,
        key: &KeyId,
        what: &'static str,
        waited: Option<Duration>,
        held: Option<Duration>,
    ) {
        let at_ms = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64);
        let mut rings = self.rings.lock().unwrap_or_else(|p| p.into_inner());
        rings.seq += 1;
        let event = Event {
            seq: rings.seq,
            at_ms,
            what,
            kind: key.kind(),
            name: key.name().to_string(),
            key: key.key().to_string(),
            waited_ms: waited.map(|d| d.as_millis() as u64),
            held_ms: held.map(|d| d.as_millis() as u64),
        };
        let ring = if what == "granted" {
            &mut rings.grants
        } else {
            &mut rings.losses
        };
        if ring.len() == RECENT {
            ring.pop_front();
        }
        ring.push_back(event);
    }
}

impl Tally for Recent {
    fn granted(&self, key: &KeyId, waited: Duration) {
        self.push(key, "granted", Some(waited), None);
    }

    fn ended(&self, key: &KeyId, why: &str, held: Duration) {
        if let Some(cause) = LOSSES.iter().find(|c| **c == why) {
            self.push(key, cause, None, Some(held));
        }
    }

    fn refused(&self, _kind: &'static str, _name: &str) {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vocab::GroupKind;

    #[test]
    fn keeps_the_latest_of_each_and_no_releases() {
        let recent = Recent::default();
        for i in 0..RECENT + 7 {
            let key = KeyId::new(GroupKind::Lock, "jobs", &format!("k{i}")).unwrap();
            recent.granted(&key, Duration::from_millis(3));
            recent.ended(&key, "released", Duration::from_millis(5));
        }
        let lost = KeyId::new(GroupKind::Lock, "jobs", "gone").unwrap();
        recent.ended(&lost, "expired", Duration::from_millis(9));
        let (grants, losses) = recent.events();
        assert_eq!(grants.len(), RECENT);
        assert_eq!(grants[0].key, "k7");
        assert_eq!(grants[RECENT - 1].key, format!("k{}", RECENT + 6));
        assert_eq!(grants[0].waited_ms, Some(3));
        assert_eq!(losses.len(), 1);
        assert_eq!(
            (losses[0].what, losses[0].key.as_str()),
            ("expired", "gone")
        );
        assert_eq!(losses[0].held_ms, Some(9));
        assert!(losses[0].seq > grants[RECENT - 1].seq);
    }
}
