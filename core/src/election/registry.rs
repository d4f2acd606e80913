//! `Registry`: who leads each election of an engine, and the observers to
//! tell. The engine calls it under its own lock, where a holder is granted
//! (`granted`) and where a key's holders have settled after a grant, an end
//! or a hand-over (`settle`), so observers see each settled change once:
//! a resign with someone in the queue is a change from one leader straight to
//! the next, with no `None` between.

use super::leader::Leader;
use super::observe::{Event, Observer, OBSERVE_BUFFER};
use crate::error::{Error, Result};
use crate::fence::Fence;
use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};
use tokio::sync::broadcast;

/// The elections of one engine.
#[derive(Default)]
pub(crate) struct Registry {
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    elections: HashMap<Box<str>, Entry>,
    closed: Option<Error>,
}

/// One election: the last holder granted, the leader its observers were
/// told, and where they are told.
#[derive(Default)]
struct Entry {
    /// The last holder granted; the leader while the key has a holder.
    granted: Option<Leader>,
    /// The leader as last told (and as `leader()` gives it).
    shown: Option<Leader>,
    observers: Option<broadcast::Sender<Event>>,
}

impl Entry {
    /// Whether it leads nobody and nobody observes it: then it is forgotten.
    fn is_idle(&self) -> bool {
        self.shown.is_none()
            && self
                .observers
                .as_ref()
                .is_none_or(|tx| tx.receiver_count() == 0)
    }
}

impl Registry {
    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The election `name` granted its key to a campaign for `value`, with
    /// the term `fence`. Told to observers at the next `settle`.
    pub(crate) fn granted(&self, name: &str, value: &str, fence: Fence) {
        let mut inner = self.lock();
        let entry = inner.elections.entry(name.into()).or_default();
        entry.granted = Some(Leader {
            value: value.to_string(),
            fence,
        });
    }

    /// The key of election `name` has settled: `held` tells whether it has
    /// a holder (the last one granted). A leader other than the one last
    /// told is told to every observer.
    pub(crate) fn settle(&self, name: &str, held: bool) {
        let mut inner = self.lock();
        let Some(entry) = inner.elections.get_mut(name) else {
            return;
        };
        if !held {
            entry.granted = None;
        }
        if entry.granted != entry.shown {
            entry.shown = entry.granted.clone();
            if let Some(tx) = &entry.observers {
                let _ = tx.send(Event::Leader(entry.shown.clone()));
            }
        }
        if entry.is_idle() {
            inner.elections.remove(name);
        }
    }

    /// The leader of election `name` now.
    pub(crate) fn leader(&self, name: &str) -> Option<Leader> {
        let inner = self.lock();
        inner.elections.get(name).and_then(|e| e.shown.clone())
    }

    /// An observer of election `name`, starting from its leader now.
    pub(crate) fn observe(&self, name: &str) -> Result<Observer> {
        let mut inner = self.lock();
        if let Some(reason) = &inner.closed {
            return Err(reason.clone());
        }
        // Elections nobody leads or observes any more are forgotten here,
        // since an observer that goes away does not say so.
        inner.elections.retain(|_, entry| !entry.is_idle());
        let entry = inner.elections.entry(name.into()).or_default();
        let events = match &entry.observers {
            Some(tx) => tx.subscribe(),
            None => {
                let (tx, rx) = broadcast::channel(OBSERVE_BUFFER);
                entry.observers = Some(tx);
                rx
            }
        };
        Ok(Observer::embedded(name, entry.shown.clone(), events))
    }

    /// The store closed: every observer ends with `reason`, and later
    /// observers are refused with it.
    pub(crate) fn close(&self, reason: &Error) {
        let mut inner = self.lock();
        inner.closed = Some(reason.clone());
        for (_, entry) in inner.elections.drain() {
            if let Some(tx) = entry.observers {
                let _ = tx.send(Event::Closed(reason.clone()));
            }
        }
    }
}
