//! `Semaphore`: a named group of semaphores, up to `limit` holders per key,
//! each with a permit that has no fence.

use crate::group::{acquire_methods, option_builders, Group};
use crate::lease::Permit;
use crate::options::Options;

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
