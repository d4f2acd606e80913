//! `StoreOptions`: how a store directory is opened (clock, grace, audit log,
//! whether a new store may be made).

use crate::clock::{Clock, SystemClock};
use std::sync::Arc;
use std::time::Duration;

/// How a store is opened. The defaults: the system clock, the grace the
/// store's last server kept, and a missing or empty directory made into a
/// new store.
#[derive(Clone)]
pub struct StoreOptions {
    /// The wall clock the epoch is read from.
    pub clock: Arc<dyn Clock>,
    /// How long to wait before the first grant when the store was served and
    /// its last stop was not clean, so that holders from before it have run
    /// out. `None`: the grace its last server recorded, else the default TTL
    /// (15 s). A store that was never served (its holders died with its
    /// process) or was closed cleanly waits no grace.
    pub grace: Option<Duration>,
    /// Whether a missing or empty directory is made into a new store (the
    /// default); when false, such a directory is `invalid`.
    pub create: bool,
    /// A file to append every grant, renewal and end of a lease to, one
    /// JSON line each (`tinystore serve --audit`, docs/cli.md); none by
    /// default.
    pub audit: Option<std::path::PathBuf>,
    /// Whether the test kit may move this store's time and expire its
    /// leases ([`crate::testing`]); off by default, and reported by
    /// `status`. Never set it on a store that serves real work.
    pub testing: bool,
}

impl Default for StoreOptions {
    fn default() -> StoreOptions {
        StoreOptions {
            clock: Arc::new(SystemClock),
            grace: None,
            create: true,
            audit: None,
            testing: false,
        }
    }
}

impl StoreOptions {
    /// These options with `clock`.
    pub fn clock(mut self, clock: impl Clock) -> StoreOptions {
        self.clock = Arc::new(clock);
        self
    }

    /// These options, refusing (`invalid`) a directory that holds no store
    /// instead of making one.
    pub fn existing(mut self) -> StoreOptions {
        self.create = false;
        self
    }

    /// These options with a grace after an unclean stop.
    pub fn grace(mut self, grace: Duration) -> StoreOptions {
        self.grace = Some(grace);
        self
    }

    /// These options for a test store: the test kit's controls
    /// ([`crate::testing`]) are allowed on it.
    pub fn testing(mut self) -> StoreOptions {
        self.testing = true;
        self
    }

    /// These options with an audit log appended to `path`.
    pub fn audit(mut self, path: impl Into<std::path::PathBuf>) -> StoreOptions {
        self.audit = Some(path.into());
        self
    }
}
