//! The core's `Status` of a store as plain objects, for `NativeStore.status`
//! (store.rs), and the page it asks for.
//! Fences and the epoch cross as bigints, times as milliseconds, as
//! everywhere in the package; nothing is computed here.

use crate::error::invalid;
use napi::bindgen_prelude::BigInt;
use napi_derive::napi;

/// The state of a store: its epoch, the fences given, the leases held and
/// the keys with callers waiting, one page of each (by name, then key).
#[napi(object)]
pub struct NativeStatus {
    /// The store's epoch: the high 64 bits of its fences.
    pub epoch: BigInt,
    /// How many fences the store gave since it opened.
    pub fences_given: f64,
    /// The last fence given, if any.
    pub last_fence: Option<BigInt>,
    /// Milliseconds of grace left after an unclean stop, if any.
    pub grace_left: Option<f64>,
    /// The leases held now (this page of them).
    pub held: Vec<NativeHeldStatus>,
    /// The keys with callers waiting (this page of them).
    pub waiting: Vec<NativeWaitingStatus>,
    /// How many leases are held in all.
    pub held_total: f64,
    /// How many keys have callers waiting in all.
    pub waiting_total: f64,
    /// Whether more held leases or keys with waiters come after this page.
    pub more: bool,
    /// Whether it is a test store, whose time the test kit controls.
    pub testing: bool,
    /// The keys whose first caller has waited longest, longest first (at
    /// most 10, whatever the page; empty on etcd).
    pub longest_waits: Vec<NativeWaitingStatus>,
    /// The late writes guards refused, per group, as the leases' holders
    /// told the store since it opened (empty on etcd), by name then kind.
    pub late_writes_refused: Vec<NativeRefusedStatus>,
}

/// A group's late writes refused by guards.
#[napi(object)]
pub struct NativeRefusedStatus {
    /// The group's name (`other` past the first 1,000 groups counted).
    pub name: String,
    /// The kind of group, as in a held lease's.
    pub kind: String,
    /// How many writes its leases' guards refused as stale.
    pub refused: f64,
}

/// One held lease.
#[napi(object)]
pub struct NativeHeldStatus {
    /// The group's name.
    pub name: String,
    /// The key.
    pub key: String,
    /// The fence; missing for a semaphore permit and a read lease.
    pub fence: Option<BigInt>,
    /// The lease's TTL in milliseconds.
    pub ttl: f64,
    /// Milliseconds until it runs out unless renewed.
    pub left: f64,
    /// Whether the store itself renews it.
    pub renewing: bool,
    /// For an election's leadership: the leader's value.
    pub leader: Option<String>,
    /// The kind of group: `lock`, `semaphore`, `rwlock` or `election`.
    pub kind: String,
    /// For a read-write lock's lease: `read` or `write`.
    pub mode: Option<String>,
    /// The places of its key it takes: a weighted permit's weight, all of
    /// a read-write lock's for a write lease, else 1.
    pub weight: u32,
    /// What its holder said about itself when it acquired (by default its
    /// `HOST:PID`); missing when it said nothing.
    pub data: Option<String>,
}

/// A key with callers waiting for it.
#[napi(object)]
pub struct NativeWaitingStatus {
    /// The group's name.
    pub name: String,
    /// The key.
    pub key: String,
    /// The kind of group, as in a held lease's.
    pub kind: String,
    /// How many callers wait.
    pub waiters: f64,
    /// Milliseconds the first caller in line has waited; none on etcd.
    pub waited: Option<f64>,
}

/// A count or milliseconds as a JS number (exact below 2^53).
fn number(n: u64) -> f64 {
    n as f64
}

impl From<tinystore::Status> for NativeStatus {
    fn from(status: tinystore::Status) -> NativeStatus {
        NativeStatus {
            epoch: BigInt::from(status.epoch),
            fences_given: number(status.fences_given),
            last_fence: status.last_fence.map(|f| BigInt::from(f.get())),
            grace_left: status.grace_left_ms.map(number),
            held: status.held.into_iter().map(Into::into).collect(),
            waiting: status.waiting.into_iter().map(Into::into).collect(),
            held_total: status.held_total as f64,
            waiting_total: status.waiting_total as f64,
            more: status.more,
            testing: status.testing,
            longest_waits: status.longest_waits.into_iter().map(Into::into).collect(),
            late_writes_refused: status
                .late_writes_refused
                .into_iter()
                .map(|r| NativeRefusedStatus {
                    name: r.name,
                    kind: r.kind,
                    refused: number(r.refused),
                })
                .collect(),
        }
    }
}

impl From<tinystore::HeldStatus> for NativeHeldStatus {
    fn from(held: tinystore::HeldStatus) -> NativeHeldStatus {
        NativeHeldStatus {
            name: held.name,
            key: held.key,
            fence: held.fence.map(|f| BigInt::from(f.get())),
            ttl: number(held.ttl_ms),
            left: number(held.left_ms),
            renewing: held.renewing,
            leader: held.leader,
            kind: held.kind,
            mode: held.mode,
            weight: held.weight,
            data: held.data,
        }
    }
}

impl From<tinystore::WaitingStatus> for NativeWaitingStatus {
    fn from(waiting: tinystore::WaitingStatus) -> NativeWaitingStatus {
        NativeWaitingStatus {
            name: waiting.name,
            key: waiting.key,
            kind: waiting.kind,
            waiters: waiting.waiters as f64,
            waited: waiting.waited_ms.map(number),
        }
    }
}

/// A page's offset or limit: a whole number from 0 up, else `invalid`.
fn count(what: &str, value: f64) -> napi::Result<usize> {
    if value.fract() != 0.0 || !(0.0..=(u32::MAX as f64)).contains(&value) {
        return Err(invalid(format!(
            "a status {what} must be a whole number from 0, not {value}"
        )));
    }
    Ok(value as usize)
}

/// The page of a status: the `limit` (default 1,000; the core checks it)
/// after the first `offset` (default 0).
pub fn page(offset: Option<f64>, limit: Option<f64>) -> napi::Result<tinystore::StatusPage> {
    Ok(tinystore::StatusPage {
        offset: count("offset", offset.unwrap_or(0.0))?,
        limit: match limit {
            Some(limit) => count("limit", limit)?,
            None => tinystore::DEFAULT_STATUS_LIMIT,
        },
    })
}
