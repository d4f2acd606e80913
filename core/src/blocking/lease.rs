//! Blocking leases and permits: the async ones, with calls that wait.

use crate::error::{Error, Result};
use crate::fence::Fence;
use std::sync::Arc;
use std::time::Duration;
use tokio::runtime::Runtime;

macro_rules! blocking_holding {
    ($name:ident, $inner:ty, $what:literal) => {
        #[doc = concat!("A held ", $what, ", for blocking code. Dropping it releases it.")]
        pub struct $name {
            inner: $inner,
            rt: Arc<Runtime>,
        }

        impl $name {
            pub(crate) fn new(inner: $inner, rt: Arc<Runtime>) -> $name {
                $name { inner, rt }
            }

            /// The async value underneath.
            pub fn as_async(&self) -> &$inner {
                &self.inner
            }

            /// The group's name.
            pub fn name(&self) -> &str {
                self.inner.name()
            }

            /// The key held.
            pub fn key(&self) -> &str {
                self.inner.key()
            }

            /// The TTL.
            pub fn ttl(&self) -> Duration {
                self.inner.ttl()
            }

            /// Whether it is still held.
            pub fn is_held(&self) -> bool {
                self.inner.is_held()
            }

            /// Extends it by its TTL from now; `lease_lost` if it ran out.
            pub fn renew(&self) -> Result<()> {
                self.rt.block_on(self.inner.renew())
            }

            /// Releases it; idempotent. Fails with why when it was lost
            /// first: `closed` (its store was closed) or `lease_lost`.
            pub fn release(&self) -> Result<()> {
                self.rt.block_on(self.inner.release())
            }

            /// Why it was lost (`closed` or `lease_lost`); `None` while held
            /// or after its holder released it.
            pub fn lost_reason(&self) -> Option<Error> {
                self.inner.lost_reason()
            }

            /// Waits until it is lost, up to `timeout`; `None` if still held then.
            pub fn wait_lost(&self, timeout: Duration) -> Option<Error> {
                self.rt
                    .block_on(async { tokio::time::timeout(timeout, self.inner.lost()).await.ok() })
            }
        }

        impl std::fmt::Debug for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                self.inner.fmt(f)
            }
        }
    };
}

blocking_holding!(Lease, crate::Lease, "exclusive lease with a fence");
blocking_holding!(Permit, crate::Permit, "semaphore permit, without a fence");

impl Lease {
    /// The fence: larger than every fence this store gave before.
    pub fn fence(&self) -> Fence {
        self.inner.fence()
    }

    /// Tells its store that a guard refused a write under it to
    /// `resource` (see [`crate::Lease::report_refused`]); never blocks.
    pub fn report_refused(&self, resource: &str) {
        self.inner.report_refused(resource);
    }
}
