//! The engine's watchers: per group (its kind and name), a broadcast that
//! the grants, ends and changes of queue length on its keys are sent to,
//! under the engine's lock. Sending never waits: a broadcast keeps the last
//! [`WATCH_BUFFER`] events, and a watcher that falls further behind is told
//! `Lagged` (watch/mod.rs).
//!
//! What is sent under the lock is cheap: the key the engine holds already
//! (shared) and a few numbers; each watcher makes its [`WatchEvent`] on its
//! own side. Nothing is sent when nobody watches the group, and an event
//! of a key is sent only when someone watches the whole group or that key:
//! a watcher of one key costs only that key's events.

use super::keys::SharedKey;
use crate::error::{Code, Error, Result};
use crate::fence::Fence;
use crate::vocab::GroupKind;
use crate::watch::{Watch, WatchEvent, WATCH_BUFFER};
use std::collections::HashMap;
use std::sync::Arc;
use tokio::sync::broadcast;

/// What happened to a key, as the engine tells it.
#[derive(Clone)]
enum Change {
    /// Granted, with its fence's count (0: none) and its holder's data.
    Granted { count: u64, data: Option<Arc<str>> },
    /// A lease whose fence had `count` (0: none) ended for `why`.
    Ended { count: u64, why: &'static str },
    /// Its queue is now this long.
    Queue(u64),
}

/// What a group's broadcast carries.
#[derive(Clone)]
enum Pushed {
    Event(SharedKey, Change),
    /// The store closed: every watcher ends with this error.
    Closed(Error),
}

/// Who watches one group: a token per watcher, whose count tells whether
/// it is still there (a watch drops its token when it is dropped).
struct Group {
    sender: broadcast::Sender<Pushed>,
    /// Held by each watcher of the whole group.
    all: Arc<()>,
    /// Held by each watcher of one key, by key.
    keys: HashMap<Box<str>, Arc<()>>,
}

impl Group {
    /// Whether nobody watches the group any more (the keys nobody watches
    /// are forgotten as they are met).
    fn is_unwatched(&self) -> bool {
        Arc::strong_count(&self.all) == 1 && self.keys.is_empty()
    }

    /// Whether an event of `key` is wanted by anyone: forgets the keys
    /// nobody watches any more as it meets them.
    fn wants(&mut self, key: &str) -> bool {
        if Arc::strong_count(&self.all) > 1 {
            return true;
        }
        if self.keys.is_empty() {
            return false;
        }
        match self.keys.get(key) {
            Some(token) if Arc::strong_count(token) > 1 => true,
            Some(_) => {
                self.keys.remove(key);
                false
            }
            None => false,
        }
    }
}

/// The broadcasts of the watched groups.
pub(super) struct Watchers {
    epoch: u64,
    /// By kind (in [`slot`]'s order), then by group name.
    groups: [HashMap<Box<str>, Group>; 3],
    /// How many groups are watched, of every kind.
    watched: usize,
}

/// Where a kind's groups are in [`Watchers::groups`]; `None` for an
/// election (observed, never watched).
fn slot(kind: GroupKind) -> Option<usize> {
    match kind {
        GroupKind::Lock => Some(0),
        GroupKind::Semaphore => Some(1),
        GroupKind::RwLock => Some(2),
        GroupKind::Election => None,
    }
}

impl Watchers {
    /// No watcher yet, for an engine whose fences are in `epoch`.
    pub(super) fn new(epoch: u64) -> Watchers {
        Watchers {
            epoch,
            groups: Default::default(),
            watched: 0,
        }
    }

    /// A watch of the group `name` of `kind`: of its key `key`, or of every
    /// key when `None`.
    pub(super) fn watch(&mut self, kind: GroupKind, name: &str, key: Option<String>) -> Watch {
        let Some(slot) = slot(kind) else {
            let reason = Error::invalid("an election is observed (observe), not watched");
            return Watch::from_stream(futures_util::stream::iter([Err(reason)]));
        };
        let groups = &mut self.groups[slot];
        if !groups.contains_key(name) {
            self.watched += 1;
        }
        let group = groups.entry(name.into()).or_insert_with(|| Group {
            sender: broadcast::channel(WATCH_BUFFER).0,
            all: Arc::new(()),
            keys: HashMap::new(),
        });
        // The keys whose watchers all left since: forgotten now.
        group.keys.retain(|_, token| Arc::strong_count(token) > 1);
        let token = match &key {
            None => group.all.clone(),
            Some(key) => group.keys.entry(key.as_str().into()).or_default().clone(),
        };
        let receiver = group.sender.subscribe();
        let epoch = self.epoch;
        let events = futures_util::stream::unfold(Some((receiver, token)), move |state| {
            let key = key.clone();
            async move {
                let (mut receiver, token) = state?;
                loop {
                    match receiver.recv().await {
                        Ok(Pushed::Event(id, change)) => {
                            if key.as_deref().is_none_or(|k| k == id.key()) {
                                let event = event(epoch, id.key(), change);
                                return Some((Ok(event), Some((receiver, token))));
                            }
                        }
                        Ok(Pushed::Closed(reason)) => return Some((Err(reason), None)),
                        Err(broadcast::error::RecvError::Lagged(missed)) => {
                            let lagged = WatchEvent::Lagged { missed };
                            return Some((Ok(lagged), Some((receiver, token))));
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
    pub(super) fn granted(&mut self, key: &SharedKey, count: u64, data: Option<&Arc<str>>) {
        self.send(key, || Change::Granted {
            count,
            data: data.cloned(),
        });
    }

    /// A lease on `key` whose fence had `count` (0: none) ended for `why`.
    pub(super) fn ended(&mut self, key: &SharedKey, count: u64, why: &'static str) {
        self.send(key, || Change::Ended { count, why });
    }

    /// The queue of `key` is now `length` long.
    pub(super) fn queue(&mut self, key: &SharedKey, length: usize) {
        self.send(key, || Change::Queue(length as u64));
    }

    /// Ends every watch with `reason`.
    pub(super) fn close(&mut self, reason: &Error) {
        for names in &mut self.groups {
            for (_, group) in names.drain() {
                let _ = group.sender.send(Pushed::Closed(reason.clone()));
            }
        }
        self.watched = 0;
    }

    /// Sends the change `make` builds to the watchers of `key`'s group if
    /// one of them wants it; forgets a group whose watchers are all gone.
    fn send(&mut self, key: &SharedKey, make: impl FnOnce() -> Change) {
        if self.watched == 0 {
            return;
        }
        let Some(slot) = slot(key.group_kind()) else {
            return;
        };
        let names = &mut self.groups[slot];
        let Some(group) = names.get_mut(key.name()) else {
            return;
        };
        if group.wants(key.key()) {
            let _ = group.sender.send(Pushed::Event(key.clone(), make()));
        } else if group.is_unwatched() {
            names.remove(key.name());
            self.watched -= 1;
        }
    }
}

/// The event a watcher is told of `change` to `key`, with fences in
/// `epoch`.
fn event(epoch: u64, key: &str, change: Change) -> WatchEvent {
    let fence = |count: u64| (count > 0).then(|| Fence::new(epoch, count));
    match change {
        Change::Granted { count, data } => WatchEvent::Granted {
            key: key.to_string(),
            fence: fence(count),
            data: data.map(|d| d.to_string()),
        },
        Change::Ended { count, why } => WatchEvent::ended(key.to_string(), fence(count), why),
        Change::Queue(length) => WatchEvent::Queue {
            key: key.to_string(),
            length,
        },
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vocab::KeyId;
    use futures_util::StreamExt;

    fn key(name: &str, key: &str) -> SharedKey {
        Arc::new(KeyId::new(GroupKind::Lock, name, key).unwrap())
    }

    #[tokio::test]
    async fn a_watcher_of_one_key_is_sent_nothing_of_the_others() {
        let mut watchers = Watchers::new(7);
        let mut watch = watchers.watch(GroupKind::Lock, "g", Some("a".into()));
        // More than a buffer's worth of another key's events: had they been
        // sent, the watcher would be told it lagged.
        for _ in 0..WATCH_BUFFER * 2 {
            watchers.granted(&key("g", "b"), 1, None);
        }
        watchers.granted(&key("g", "a"), 3, Some(&Arc::from("me")));
        assert_eq!(
            watch.next().await.unwrap().unwrap(),
            WatchEvent::Granted {
                key: "a".into(),
                fence: Some(Fence::new(7, 3)),
                data: Some("me".into()),
            }
        );
        // A watcher of the whole group gets every key; once it is gone,
        // the key watcher still gets only its own.
        let all = watchers.watch(GroupKind::Lock, "g", None);
        watchers.queue(&key("g", "b"), 2);
        drop(all);
        watchers.ended(&key("g", "b"), 1, "released");
        watchers.ended(&key("g", "a"), 3, "expired");
        assert_eq!(
            watch.next().await.unwrap().unwrap(),
            WatchEvent::Lost {
                key: "a".into(),
                fence: Some(Fence::new(7, 3)),
                cause: "expired".into(),
            }
        );
    }

    #[test]
    fn nothing_is_kept_for_a_group_nobody_watches_any_more() {
        let mut watchers = Watchers::new(1);
        drop(watchers.watch(GroupKind::Lock, "g", Some("a".into())));
        watchers.granted(&key("g", "a"), 1, None);
        assert_eq!(watchers.watched, 0);
        assert!(watchers.groups.iter().all(HashMap::is_empty));
    }
}
