//! `Semaphore`: a named group of semaphores, up to `limit` holders per key,
//! each with a permit that has no fence.

use crate::acquiring::Acquiring;
use crate::group::{acquire_methods, option_builders, Group};
use crate::lease::Permit;
use crate::names::Key;
use crate::options::Options;
use crate::starting::{StartAcquire, StartWatch};
use crate::watch::Watching;

/// A group of semaphores: up to `limit` holders per key at once. Cheap to clone.
#[derive(Clone)]
pub struct Semaphore {
    group: Group,
}

impl Semaphore {
    pub(crate) fn new(group: Group) -> Semaphore {
        Semaphore { group }
    }

    /// This group with the fields `over` sets replaced.
    pub fn with(self, over: Options) -> Semaphore {
        Semaphore {
            group: self.group.with_options(over),
        }
    }

    option_builders!();

    acquire_methods!(Permit, "permit");
}

impl StartAcquire for Semaphore {
    type Held = Permit;

    fn acquiring(&self, key: impl Key, options: Options) -> Acquiring<Permit> {
        self.group.acquiring(key.key_text().into_owned(), options)
    }
}

impl StartWatch for Semaphore {
    fn watching(&self, key: Option<String>) -> Watching {
        let group = self.group.clone();
        Watching::start(async move { group.watch(key).await })
    }
}
