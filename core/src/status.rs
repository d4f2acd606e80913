//! A snapshot of a store's state, as `tinystore status` shows it.

use crate::fence::Fence;
use serde::{Deserialize, Serialize};

/// The epoch, the fences given, each held key and each line of waiters.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Status {
    /// The store's epoch: the high 64 bits of its fences.
    pub epoch: u64,
    /// How many fences the store gave since it opened.
    pub fences_given: u64,
    /// The last fence given, if any.
    pub last_fence: Option<Fence>,
    /// Milliseconds of grace left after an unclean stop, if any.
    pub grace_left_ms: Option<u64>,
    /// The leases held now.
    pub held: Vec<HeldStatus>,
    /// The keys with callers waiting.
    pub waiting: Vec<WaitingStatus>,
}

/// One held lease.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HeldStatus {
    /// The group's name.
    pub name: String,
    /// The key.
    pub key: String,
    /// The fence; `None` for a semaphore permit.
    pub fence: Option<Fence>,
    /// The lease's TTL in milliseconds.
    pub ttl_ms: u64,
    /// Milliseconds until it runs out unless renewed.
    pub left_ms: u64,
    /// Whether the store itself keeps it alive (an embedded holder's lease).
    pub renewing: bool,
}

/// A key with callers waiting for it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WaitingStatus {
    /// The group's name.
    pub name: String,
    /// The key.
    pub key: String,
    /// How many callers wait.
    pub waiters: usize,
}
