//! The engine's watchers: per group (its kind and name), the watches of
//! it, each with its own bounded buffer (watch/buffer.rs), to which the
//! grants, ends and changes of queue length on its keys are put, under the
//! engine's lock. Putting never waits: a watch keeps
//! [`WATCH_BUFFER`](crate::WATCH_BUFFER)
//! events its reader has not taken, and one that falls further behind has
//! the rest counted and is told `Lagged` where they would have been.
//!
//! What is put under the lock is cheap: the key the engine holds already
//! (shared) and a few numbers; each watcher makes its [`WatchEvent`] on its
//! own side, and an event dropped for a watcher that fell behind costs only
//! a count. Nothing is put when nobody watches the group, and an event of a
//! key goes only to the watchers of the whole group and of that key.

use super::keys::SharedKey;
use crate::error::{Code, Error, Result};
use crate::fence::Fence;
use crate::vocab::GroupKind;
use crate::watch::{buffer_of, Buffered, Pushed, Sink, Watch, WatchEvent};
use hashbrown::HashMap;
use std::sync::Arc;

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

/// What a watch's buffer holds: a change to a key.
struct Told {
    key: SharedKey,
    change: Change,
}

impl Buffered for Told {
    fn lagged(&self) -> Option<u64> {
        None
    }
}

/// One watch of a group: of one key, or of all (`None`).
struct Watcher {
    key: Option<Box<str>>,
    sink: Sink<Told>,
}

impl Watcher {
    fn wants(&self, key: &str) -> bool {
        self.key.as_deref().is_none_or(|k| k == key)
    }
}

/// The watches of the watched groups.
pub(super) struct Watchers {
    epoch: u64,
    /// By kind (in [`slot`]'s order), then by group name (few, made by
    /// watchers: a fast hash).
    groups: [HashMap<Box<str>, Vec<Watcher>>; 3],
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
        let watchers = groups.entry(name.into()).or_default();
        // The watches dropped since: forgotten now.
        watchers.retain(|w| !w.sink.is_gone());
        let epoch = self.epoch;
        let (sink, watch) = buffer_of(move |told: Told| event(epoch, told.key.key(), told.change));
        watchers.push(Watcher {
            key: key.map(String::into_boxed_str),
            sink,
        });
        watch
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

    /// Ends every watch with `reason`, after the events it holds.
    pub(super) fn close(&mut self, reason: &Error) {
        for names in &mut self.groups {
            for (_, watchers) in names.drain() {
                for watcher in watchers {
                    watcher.sink.end(reason.clone());
                }
            }
        }
        self.watched = 0;
    }

    /// Puts the change `make` builds to the watchers of `key`'s group that
    /// want it; forgets the watches dropped, and a group left unwatched.
    fn send(&mut self, key: &SharedKey, make: impl Fn() -> Change) {
        if self.watched == 0 {
            return;
        }
        let Some(slot) = slot(key.group_kind()) else {
            return;
        };
        let names = &mut self.groups[slot];
        let Some(watchers) = names.get_mut(key.name()) else {
            return;
        };
        let mut change = None;
        let mut gone = false;
        for watcher in watchers.iter().filter(|w| w.wants(key.key())) {
            let told = Told {
                key: key.clone(),
                change: change.get_or_insert_with(&make).clone(),
            };
            gone |= watcher.sink.put(told) == Pushed::Gone;
        }
        if gone {
            watchers.retain(|w| !w.sink.is_gone());
        }
        if watchers.is_empty() {
            names.remove(key.name());
            self.watched -= 1;
        }
    }
}

impl Drop for Watchers {
    /// A store dropped without closing still ends its watches `closed`.
    fn drop(&mut self) {
        self.close(&Error::new(Code::Closed, "the store closed"));
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
    use crate::watch::WATCH_BUFFER;
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
        assert!(watchers.groups.iter().all(|names| names.is_empty()));
    }
}
