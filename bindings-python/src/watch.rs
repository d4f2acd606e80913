//! `WatchEvent` and `Watcher`: a group's watch (the core's `Watching`) as
//! Python gets it. An event is one class for every kind, its fields `None`
//! where the kind has none (as `HeldStatus.fence` is for a permit); fences
//! cross as ints. What an event means and when it comes are the core's.

use crate::following::following_class;
use pyo3::prelude::*;

/// One thing that happened on a watched key: `kind` is `granted` (`key`,
/// `fence`, `data`), `released` (`key`, `fence`), `lost` (`key`, `fence`,
/// `cause`), `queue` (`key`, `length`) or `lagged` (`missed`).
#[pyclass(module = "tinystore._native", frozen, get_all, eq)]
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct WatchEvent {
    /// `granted`, `released`, `lost`, `queue` or `lagged`.
    kind: &'static str,
    /// The key; `None` for `lagged`.
    key: Option<String>,
    /// The lease's fence; `None` for a permit, a read lease, or a kind
    /// without one.
    fence: Option<u128>,
    /// The holder's data, on `granted`, when it has some.
    data: Option<String>,
    /// Why a lease was lost, on `lost`: `expired`, `disconnected`, `closed`.
    cause: Option<String>,
    /// How many acquires wait for the key now, on `queue`.
    length: Option<u64>,
    /// How many events were dropped, on `lagged`.
    missed: Option<u64>,
}

impl WatchEvent {
    fn of(kind: &'static str, key: Option<String>) -> WatchEvent {
        WatchEvent {
            kind,
            key,
            fence: None,
            data: None,
            cause: None,
            length: None,
            missed: None,
        }
    }
}

/// The Python form of a core event.
pub(crate) fn py_event(event: tinystore::WatchEvent) -> WatchEvent {
    use tinystore::WatchEvent as E;
    let base = WatchEvent::of(event.kind(), event.key().map(str::to_owned));
    match event {
        E::Granted { fence, data, .. } => WatchEvent {
            fence: fence.map(|f| f.get()),
            data,
            ..base
        },
        E::Released { fence, .. } => WatchEvent {
            fence: fence.map(|f| f.get()),
            ..base
        },
        E::Lost { fence, cause, .. } => WatchEvent {
            fence: fence.map(|f| f.get()),
            cause: Some(cause),
            ..base
        },
        E::Queue { length, .. } => WatchEvent {
            length: Some(length),
            ..base
        },
        E::Lagged { missed } => WatchEvent {
            missed: Some(missed),
            ..base
        },
        _ => base,
    }
}

#[pymethods]
impl WatchEvent {
    fn __repr__(&self) -> String {
        let mut fields = vec![format!("kind={:?}", self.kind)];
        if let Some(key) = &self.key {
            fields.push(format!("key={key:?}"));
        }
        if let Some(fence) = self.fence {
            fields.push(format!("fence={fence}"));
        }
        if let Some(data) = &self.data {
            fields.push(format!("data={data:?}"));
        }
        if let Some(cause) = &self.cause {
            fields.push(format!("cause={cause:?}"));
        }
        if let Some(length) = self.length {
            fields.push(format!("length={length}"));
        }
        if let Some(missed) = self.missed {
            fields.push(format!("missed={missed}"));
        }
        format!("WatchEvent({})", fields.join(", "))
    }
}

following_class!(
    Watcher,
    tinystore::WatchEvent,
    WatchEvent,
    py_event,
    "The events of a watched key or group, in the store's order: `next` gives `(True, event)`, and `(False, None)` once it ended."
);
