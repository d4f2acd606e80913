//! A snapshot of a store's state, as `tinystore status` shows it.

use crate::fence::Fence;
use serde::{Deserialize, Serialize};

/// How many held leases, and apart from them how many lines of waiters, a
/// status shows when not asked for another number.
pub const DEFAULT_STATUS_LIMIT: usize = 1_000;

/// The most held leases (and lines of waiters) one status may show: a
/// reply stays under about 2 MB. Larger sets are read a page at a time.
pub const MAX_STATUS_LIMIT: usize = 10_000;

/// How many lines of waiters [`Status::longest_waits`] shows.
pub const LONGEST_WAITS: usize = 10;

/// Which part of the held leases and lines of waiters a status shows: the
/// `limit` that come after the first `offset` of each, in order by name,
/// then key, then fence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StatusPage {
    /// How many to pass over first.
    pub offset: usize,
    /// How many to show at most, from 1 to [`MAX_STATUS_LIMIT`].
    pub limit: usize,
}

impl Default for StatusPage {
    /// The first [`DEFAULT_STATUS_LIMIT`].
    fn default() -> StatusPage {
        StatusPage {
            offset: 0,
            limit: DEFAULT_STATUS_LIMIT,
        }
    }
}

impl StatusPage {
    /// Fails with `invalid` unless the limit is from 1 to [`MAX_STATUS_LIMIT`].
    pub fn check(&self) -> crate::error::Result<()> {
        if !(1..=MAX_STATUS_LIMIT).contains(&self.limit) {
            return Err(crate::error::Error::invalid(format!(
                "a status limit of {} is out of range: it must be from 1 to {MAX_STATUS_LIMIT}",
                self.limit
            )));
        }
        Ok(())
    }

    /// The items of `all` (in order) on this page.
    pub fn of<T>(&self, all: Vec<T>) -> Vec<T> {
        all.into_iter().skip(self.offset).take(self.limit).collect()
    }
}

/// The epoch, the fences given, each held key and each line of waiters: the
/// first `limit` of each (by name, then key), with the totals, so that a
/// status stays small however many leases are held.
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
    /// How many leases are held in all (`held` may show fewer).
    #[serde(default)]
    pub held_total: usize,
    /// How many keys have callers waiting in all (`waiting` may show fewer).
    #[serde(default)]
    pub waiting_total: usize,
    /// Whether more held leases or lines of waiters come after those shown:
    /// ask for the next page (an offset of those passed over and shown).
    #[serde(default)]
    pub more: bool,
    /// Whether this is a test store, whose time and leases the test kit
    /// controls (made by the kit, or served with `--testing`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub testing: bool,
    /// The lines of waiters whose first caller has waited longest, longest
    /// first: at most [`LONGEST_WAITS`], whatever the page (empty on etcd,
    /// whose entries carry no time).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub longest_waits: Vec<WaitingStatus>,
    /// The late writes guards refused, per group, as the leases' holders
    /// told the store since it opened (empty on etcd, which does not count
    /// them), by name then kind: every group, whatever the page.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub late_writes_refused: Vec<RefusedStatus>,
}

impl Status {
    /// This full status cut to `page`, with the totals and `more` set.
    pub fn cut(mut self, page: StatusPage) -> Status {
        self.held_total = self.held.len();
        self.waiting_total = self.waiting.len();
        self.held = page.of(self.held);
        self.waiting = page.of(self.waiting);
        self.more = page.more(self.held_total, self.waiting_total);
        self
    }
}

impl StatusPage {
    /// Whether lists of these totals have more after this page.
    pub fn more(&self, held_total: usize, waiting_total: usize) -> bool {
        let end = self.offset.saturating_add(self.limit);
        held_total > end || waiting_total > end
    }
}

/// One held lease.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HeldStatus {
    /// The group's name.
    pub name: String,
    /// The key.
    pub key: String,
    /// The fence; `None` for a semaphore permit and a read lease.
    pub fence: Option<Fence>,
    /// The lease's TTL in milliseconds.
    pub ttl_ms: u64,
    /// Milliseconds until it runs out unless renewed.
    pub left_ms: u64,
    /// Whether the store itself renews it (an embedded holder's renewing
    /// lease).
    pub renewing: bool,
    /// For an election's leadership (its key is empty): the leader's value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub leader: Option<String>,
    /// The kind of group: `lock`, `semaphore`, `rwlock` or `election`
    /// (empty from a server older than read-write locks).
    #[serde(default)]
    pub kind: String,
    /// For a read-write lock's lease: `read` or `write`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    /// The places of its key it takes: a weighted permit's weight, all of a
    /// read-write lock's places for a write lease, else 1.
    #[serde(default = "one")]
    pub weight: u32,
    /// What its holder said about itself when it acquired (by default its
    /// `HOST:PID`); `None` when it said nothing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<String>,
    /// How long it has been held, in milliseconds since its grant (`None`
    /// on etcd).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub held_ms: Option<u64>,
}

fn one() -> u32 {
    1
}

/// A group's late writes refused by guards.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RefusedStatus {
    /// The group's name (`other` for the groups past the first 1,000
    /// counted).
    pub name: String,
    /// The kind of group, as in [`HeldStatus::kind`].
    pub kind: String,
    /// How many writes its leases' guards refused as stale.
    pub refused: u64,
}

/// A key with callers waiting for it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WaitingStatus {
    /// The group's name.
    pub name: String,
    /// The key.
    pub key: String,
    /// The kind of group, as in [`HeldStatus::kind`].
    #[serde(default)]
    pub kind: String,
    /// How many callers wait.
    pub waiters: usize,
    /// How long the first caller in line has waited, in milliseconds
    /// (`None` on etcd).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub waited_ms: Option<u64>,
}
