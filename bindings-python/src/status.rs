//! `store_status`: the core's `Status` of a store as Python objects
//! (`Status`, `HeldStatus`, `WaitingStatus`), awaitable and sync. Times
//! cross as seconds (floats), as every duration of the package does; fences
//! as ints. Nothing is computed here: each field is the core's.

use crate::acquiring::awaitable;
use crate::error::to_py;
use crate::runtime::block_on;
use crate::store::Store;
use pyo3::prelude::*;

/// The state of a store: its epoch, the fences given, the leases held and
/// the keys with callers waiting, one page of each (by name, then key).
#[pyclass(module = "tinystore._native", frozen, get_all)]
pub(crate) struct Status {
    /// The store's epoch: the high 64 bits of its fences.
    epoch: u64,
    /// How many fences the store gave since it opened.
    fences_given: u64,
    /// The last fence given, if any.
    last_fence: Option<u128>,
    /// Seconds of grace left after an unclean stop, if any.
    grace_left: Option<f64>,
    /// The leases held now (this page of them).
    held: Vec<HeldStatus>,
    /// The keys with callers waiting (this page of them).
    waiting: Vec<WaitingStatus>,
    /// How many leases are held in all.
    held_total: usize,
    /// How many keys have callers waiting in all.
    waiting_total: usize,
    /// Whether more held leases or keys with waiters come after this page.
    more: bool,
    /// Whether it is a test store, which allows the test kit's controls
    /// (`tinystore.testing`).
    testing: bool,
    /// The keys whose first caller has waited longest, longest first (at
    /// most 10, whatever the page; empty on etcd).
    longest_waits: Vec<WaitingStatus>,
    /// The late writes guards refused, per group, as the leases' holders
    /// told the store since it opened (empty on etcd), by name then kind.
    late_writes_refused: Vec<RefusedStatus>,
}

/// One held lease.
#[pyclass(module = "tinystore._native", frozen, get_all)]
#[derive(Clone)]
pub(crate) struct HeldStatus {
    /// The group's name.
    name: String,
    /// The key.
    key: String,
    /// The fence; `None` for a semaphore permit and a read lease.
    fence: Option<u128>,
    /// The lease's TTL in seconds.
    ttl: f64,
    /// Seconds until it runs out unless renewed.
    left: f64,
    /// Whether the store itself renews it.
    renewing: bool,
    /// For an election's leadership: the leader's value.
    leader: Option<String>,
    /// The kind of group: `lock`, `semaphore`, `rwlock` or `election`.
    kind: String,
    /// For a read-write lock's lease: `read` or `write`; else `None`.
    mode: Option<String>,
    /// The places of its key it takes: a permit's weight, all of a
    /// read-write lock's places for a write lease, else 1.
    weight: u32,
    /// What its holder said about itself when it acquired (`data=`; by
    /// default its `HOST:PID`); `None` when it said nothing.
    data: Option<String>,
}

/// A key with callers waiting for it.
#[pyclass(module = "tinystore._native", frozen, get_all)]
#[derive(Clone)]
pub(crate) struct WaitingStatus {
    /// The group's name.
    name: String,
    /// The key.
    key: String,
    /// The kind of group, as in `HeldStatus.kind`.
    kind: String,
    /// How many callers wait.
    waiters: usize,
    /// Seconds the first caller in line has waited; `None` on etcd.
    waited: Option<f64>,
}

/// A group's late writes refused by guards.
#[pyclass(module = "tinystore._native", frozen, get_all)]
#[derive(Clone)]
pub(crate) struct RefusedStatus {
    /// The group's name (`other` past the first 1,000 groups counted).
    name: String,
    /// The kind of group, as in `HeldStatus.kind`.
    kind: String,
    /// How many writes its leases' guards refused as stale.
    refused: u64,
}

impl From<tinystore::RefusedStatus> for RefusedStatus {
    fn from(r: tinystore::RefusedStatus) -> RefusedStatus {
        RefusedStatus {
            name: r.name,
            kind: r.kind,
            refused: r.refused,
        }
    }
}

fn secs(ms: u64) -> f64 {
    ms as f64 / 1000.0
}

impl From<tinystore::Status> for Status {
    fn from(status: tinystore::Status) -> Status {
        Status {
            epoch: status.epoch,
            fences_given: status.fences_given,
            last_fence: status.last_fence.map(|f| f.get()),
            grace_left: status.grace_left_ms.map(secs),
            held: status.held.into_iter().map(HeldStatus::from).collect(),
            waiting: status
                .waiting
                .into_iter()
                .map(WaitingStatus::from)
                .collect(),
            held_total: status.held_total,
            waiting_total: status.waiting_total,
            more: status.more,
            testing: status.testing,
            longest_waits: status
                .longest_waits
                .into_iter()
                .map(WaitingStatus::from)
                .collect(),
            late_writes_refused: status
                .late_writes_refused
                .into_iter()
                .map(RefusedStatus::from)
                .collect(),
        }
    }
}

impl From<tinystore::HeldStatus> for HeldStatus {
    fn from(held: tinystore::HeldStatus) -> HeldStatus {
        HeldStatus {
            name: held.name,
            key: held.key,
            fence: held.fence.map(|f| f.get()),
            ttl: secs(held.ttl_ms),
            left: secs(held.left_ms),
            renewing: held.renewing,
            leader: held.leader,
            kind: held.kind,
            mode: held.mode,
            weight: held.weight,
            data: held.data,
        }
    }
}

impl From<tinystore::WaitingStatus> for WaitingStatus {
    fn from(waiting: tinystore::WaitingStatus) -> WaitingStatus {
        WaitingStatus {
            name: waiting.name,
            key: waiting.key,
            kind: waiting.kind,
            waiters: waiting.waiters,
            waited: waiting.waited_ms.map(secs),
        }
    }
}

fn page(offset: usize, limit: usize) -> tinystore::StatusPage {
    tinystore::StatusPage { offset, limit }
}

/// The status of `store`: the `limit` held leases and keys with waiters
/// after the first `offset` of each (awaitable).
#[pyfunction]
#[pyo3(signature = (store, offset=0, limit=tinystore::DEFAULT_STATUS_LIMIT))]
pub(crate) fn store_status<'py>(
    py: Python<'py>,
    store: &Store,
    offset: usize,
    limit: usize,
) -> PyResult<Bound<'py, PyAny>> {
    let store = store.core().clone();
    awaitable(py, async move {
        store
            .status_page(page(offset, limit))
            .await
            .map(Status::from)
    })
}

/// `store_status`, waiting with the GIL released.
#[pyfunction]
#[pyo3(signature = (store, offset=0, limit=tinystore::DEFAULT_STATUS_LIMIT))]
pub(crate) fn store_status_sync(
    py: Python<'_>,
    store: &Store,
    offset: usize,
    limit: usize,
) -> PyResult<Status> {
    let status = block_on(py, store.core().status_page(page(offset, limit))).map_err(to_py)?;
    Ok(Status::from(status))
}

/// Registers the status function and classes in `tinystore._native`.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(store_status, m)?)?;
    m.add_function(wrap_pyfunction!(store_status_sync, m)?)?;
    m.add_class::<Status>()?;
    m.add_class::<HeldStatus>()?;
    m.add_class::<WaitingStatus>()?;
    m.add_class::<RefusedStatus>()?;
    m.add("DEFAULT_STATUS_LIMIT", tinystore::DEFAULT_STATUS_LIMIT)?;
    Ok(())
}
