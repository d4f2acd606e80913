//! `Locks`: a named group of exclusive locks, one per key, whose leases
//! carry fences.

use crate::group::{acquire_methods, option_builders, Group};
use crate::lease::Lease;
use crate::options::Options;

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
}
