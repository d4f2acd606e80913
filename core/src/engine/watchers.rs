//! The engine's watchers: per group (its kind and name), a broadcast that
//! every grant, end and change of queue length on one of its keys is sent
//! to, under the engine's lock. Sending never waits: a broadcast keeps the
//! last [`WATCH_BUFFER`] events, and a watcher that falls further behind is
//! told `Lagged` (watch/mod.rs). Nothing is built when nobody watches.

use crate::error::{Code, Error, Result};
use crate::fence::Fence;
use crate::vocab::{GroupKind, KeyId};
use crate::watch::{Watch, WatchEvent, WATCH_BUFFER};
use std::collections::HashMap;
use tokio::sync::broadcast;

/// What a group's broadcast carries.
#[derive(Clone)]
enum Pushed {
    Event(WatchEvent),
    /// The store closed: every watcher ends with this error.
    Closed(Error),
}

/// The broadcasts of the watched groups.
pub(super) struct Watchers {
    epoch: u64,
    /// By kind, then by group name.
    groups: HashMap<GroupKind, HashMap<Box<str>, broadcast::Sender<Pushed>>>,
}

impl Watchers {
    /// No watcher yet, for an engine whose fences are in `epoch`.
    pub(super) fn new(epoch: u64) -> Watchers {
        Watchers {
            epoch,
            groups: HashMap::new(),
        }
    }

    /// A watch of the group `name` of `kind`: of its key `key`, or of every
    /// key when `None`.
    pub(super) fn watch(&mut self, kind: GroupKind, name: &str, key: Option<String>) -> Watch {
        let sender = self
            .groups
            .entry(kind)
            .or_default()
            .entry(name.into())
            .or_insert_with(|| broadcast::channel(WATCH_BUFFER).0);
        let receiver = sender.subscribe();
        let events = futures_util::stream::unfold(Some(receiver), move |receiver| {
            let key = key.clone();
            async move {
                let mut receiver = receiver?;
                loop {
                    match receiver.recv().await {
                        Ok(Pushed::Event(event)) => {
                            if key.is_none() || event.key() == key.as_deref() {
                                return Some((Ok(event), Some(receiver)));
                            }
                        }
                        Ok(Pushed::Closed(reason)) => return Some((Err(reason), None)),
                        Err(broadcast::error::RecvError::Lagged(missed)) => {
                            return Some((Ok(WatchEvent::Lagged { missed }), Some(receiver)))
                        }
                        Err(broadcast::error::RecvError::Closed) => {
                            let reason = Error::new(Code::Closed, "the store closed");
                            return Some((Err(reason), None));
                        }
                    }
                }
            }
        });
        Watch::from_stream(events)
    }

    /// `key` was granted, with the count of its fence (0: none) and its
    /// holder's data.
    pub(super) fn granted(&mut self, key: &KeyId, count: u64, data: Option<&str>) {
        let fence = self.fence(count);
        self.send(key, || WatchEvent::Granted {
            key: key.key().to_string(),
            fence,
            data: data.map(str::to_string),
        });
    }

    /// A lease on `key` whose fence had `count` (0: none) ended for `why`.
    pub(super) fn ended(&mut self, key: &KeyId, count: u64, why: &str) {
        let fence = self.fence(count);
        self.send(key, || WatchEvent::ended(key.key().to_string(), fence, why));
    }

    /// The queue of `key` is now `length` long.
    pub(super) fn queue(&mut self, key: &KeyId, length: usize) {
        self.send(key, || WatchEvent::Queue {
            key: key.key().to_string(),
            length: length as u64,
        });
    }

    /// Ends every watch with `reason`.
    pub(super) fn close(&mut self, reason: &Error) {
        for (_, names) in self.groups.drain() {
            for (_, sender) in names {
                let _ = sender.send(Pushed::Closed(reason.clone()));
            }
        }
    }

    fn fence(&self, count: u64) -> Option<Fence> {
        (count > 0).then(|| Fence::new(self.epoch, count))
    }

    /// Sends the event `make` builds to the watchers of `key`'s group, if
    /// any; forgets a group whose watchers are all gone.
    fn send(&mut self, key: &KeyId, make: impl FnOnce() -> WatchEvent) {
        if self.groups.is_empty() {
            return;
        }
        let Some(names) = self.groups.get_mut(&key.group_kind()) else {
            return;
        };
        let Some(sender) = names.get(key.name()) else {
            return;
        };
        if sender.receiver_count() == 0 {
            names.remove(key.name());
            if names.is_empty() {
                self.groups.remove(&key.group_kind());
            }
            return;
        }
        let _ = sender.send(Pushed::Event(make()));
    }
}

/// Checks the kind a watch asks for: a lock group, a semaphore or
/// read-write locks (an election is observed, not watched).
pub(crate) fn watchable(kind: GroupKind) -> Result<()> {
    match kind {
        GroupKind::Election => Err(Error::invalid(
            "an election is observed (observe), not watched",
        )),
        _ => Ok(()),
    }
}
