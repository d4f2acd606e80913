//! `Locks`: a named group of exclusive locks, one per key, whose leases
//! carry fences.

use crate::acquiring::Acquiring;
use crate::error::{Error, Result};
use crate::group::{acquire_methods, option_builders, Group};
use crate::lease::Lease;
use crate::names::Key;
use crate::options::Options;
use crate::starting::{StartAcquire, StartAcquireAll, StartWatch};
use crate::watch::Watching;

/// A group of exclusive locks, one per key. Cheap to clone.
#[derive(Clone)]
pub struct Locks {
    group: Group,
}

impl Locks {
    pub(crate) fn new(group: Group) -> Locks {
        Locks { group }
    }

    /// This group with the fields `over` sets replaced.
    pub fn with(self, over: Options) -> Locks {
        Locks {
            group: self.group.with_options(over),
        }
    }

    option_builders!();

    acquire_methods!(Lease, "lease");

    /// Holds every key of `keys` or none: a lease each (in the order of
    /// `keys`, each with its own fence), taken in one order for every
    /// caller so that callers naming overlapping keys in any order never
    /// deadlock. The `wait` option covers all the keys together; a timeout,
    /// an error or dropping the future leaves none held. `invalid` on no
    /// key, more than [`MAX_KEYS_AT_ONCE`](crate::MAX_KEYS_AT_ONCE), or a
    /// key named twice.
    pub async fn acquire_all<K: Key>(
        &self,
        keys: impl IntoIterator<Item = K>,
        options: Options,
    ) -> Result<Vec<Lease>> {
        crate::several::acquire_all(&self.group, key_texts(keys), options).await
    }

    /// Acquires every key of `keys` as [`acquire_all`](Locks::acquire_all)
    /// does, runs `body` with the leases (in the order of `keys`), and
    /// releases them all however `body` ends. Losing any lease stops `body`
    /// at its await, as [`hold`](Locks::hold) does for one.
    pub async fn hold_all<K: Key, T, E: From<Error>>(
        &self,
        keys: impl IntoIterator<Item = K>,
        options: Options,
        body: impl AsyncFnOnce(&[Lease]) -> Result<T, E>,
    ) -> Result<T, E> {
        crate::several::hold_all(&self.group, key_texts(keys), options, body).await
    }
}

impl StartAcquire for Locks {
    type Held = Lease;

    fn acquiring(&self, key: impl Key, options: Options) -> Acquiring<Lease> {
        self.group.acquiring(key.key_text().into_owned(), options)
    }
}

impl StartAcquireAll for Locks {
    fn acquiring_all<K: Key>(
        &self,
        keys: impl IntoIterator<Item = K>,
        options: Options,
    ) -> Acquiring<Vec<Lease>> {
        let (group, keys) = (self.group.clone(), key_texts(keys));
        Acquiring::new(async move { crate::several::acquire_all(&group, keys, options).await })
    }
}

impl StartWatch for Locks {
    fn watching(&self, key: Option<String>) -> Watching {
        let group = self.group.clone();
        Watching::start(async move { group.watch(key).await })
    }
}

fn key_texts<K: Key>(keys: impl IntoIterator<Item = K>) -> Vec<String> {
    keys.into_iter()
        .map(|key| key.key_text().into_owned())
        .collect()
}
