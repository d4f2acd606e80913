//! `NativeLease` (from a lock, with a fence) and `NativePermit` (from a
//! semaphore, without one). Dropping either releases it, as in the core.

use crate::error::to_napi;
use crate::now::now_or_later;
use napi::bindgen_prelude::BigInt;
use napi::bindgen_prelude::{Either, PromiseRaw};
use napi::Env;
use napi_derive::napi;
use std::sync::Arc;
use tinystore::binding::EndHold;

/// An exclusive hold on one key, with its fence.
#[napi]
pub struct NativeLease {
    inner: Arc<tinystore::Lease>,
}

/// One of a semaphore key's places; it has no fence.
#[napi]
pub struct NativePermit {
    inner: Arc<tinystore::Permit>,
}

impl From<tinystore::Lease> for NativeLease {
    fn from(inner: tinystore::Lease) -> NativeLease {
        NativeLease {
            inner: Arc::new(inner),
        }
    }
}

impl From<tinystore::Permit> for NativePermit {
    fn from(inner: tinystore::Permit) -> NativePermit {
        NativePermit {
            inner: Arc::new(inner),
        }
    }
}

impl NativeLease {
    /// The core's lease (for the test kit, testing.rs).
    pub(crate) fn core(&self) -> &tinystore::Lease {
        &self.inner
    }
}

impl NativePermit {
    /// The core's permit (for the test kit, testing.rs).
    pub(crate) fn core(&self) -> &tinystore::Permit {
        &self.inner
    }
}

#[napi]
impl NativeLease {
    /// The fence, every digit kept.
    #[napi(getter)]
    pub fn fence(&self) -> BigInt {
        BigInt::from(self.inner.fence().get())
    }

    /// Tells its store that a guard refused a write under this lease to
    /// `resource` as stale, for the store to count per group; never
    /// blocks nor fails. The guards call it when given the lease.
    #[napi]
    pub fn report_refused(&self, resource: String) {
        self.inner.report_refused(&resource);
    }
}

/// The methods a lease, a permit and a leadership share, each a thin
/// call into the core: `$release` gives it back (`release`, `resign`),
/// `$end` ends a hold (`EndHold::end_hold`).
macro_rules! holding_methods {
    ($t:ty, $release:ident, $end:ident) => {
        #[napi]
        impl $t {
            /// The group's name.
            #[napi(getter)]
            pub fn name(&self) -> String {
                self.inner.name().to_string()
            }

            /// The TTL in milliseconds.
            #[napi(getter)]
            pub fn ttl(&self) -> f64 {
                self.inner.ttl().as_secs_f64() * 1000.0
            }

            /// Whether it is still held.
            #[napi(getter)]
            pub fn held(&self) -> bool {
                self.inner.is_held()
            }

            /// Extends it by its TTL; `lease_lost` when it already ran out.
            /// At once when it can, else as a promise.
            #[napi]
            pub fn renew<'env>(
                &self,
                env: &'env Env,
            ) -> napi::Result<Either<(), PromiseRaw<'env, ()>>> {
                let inner = self.inner.clone();
                now_or_later(env, async move { inner.renew().await.map_err(to_napi) })
            }

            /// Releases it (resigns, for a leadership); idempotent; when it
            /// was lost first, `closed` (its
            /// store closed) or `lease_lost` (it ran out, its connection broke).
            /// At once when it can, else as a promise.
            #[napi]
            pub fn $release<'env>(
                &self,
                env: &'env Env,
            ) -> napi::Result<Either<(), PromiseRaw<'env, ()>>> {
                let inner = self.inner.clone();
                now_or_later(env, async move { inner.$release().await.map_err(to_napi) })
            }

            /// Releases it as a hold's end, after a body that returned
            /// (`bodyOk`) or threw (`cancelledByLoss`: only the abort of
            /// its signal that the loss caused): the core's rule of what a
            /// hold adds to its body's result. After a body's own error,
            /// nothing (its error wins); else `closed` when its store
            /// closed before the body ended, `lease_lost` when it ran out
            /// or its connection broke. At once when it can, else as a
            /// promise.
            #[napi]
            pub fn end_hold<'env>(
                &self,
                env: &'env Env,
                body_ok: bool,
                cancelled_by_loss: bool,
            ) -> napi::Result<Either<(), PromiseRaw<'env, ()>>> {
                let inner = self.inner.clone();
                now_or_later(env, async move {
                    inner
                        .$end(body_ok, cancelled_by_loss)
                        .await
                        .map_err(to_napi)
                })
            }

            /// Resolves when it is lost (also after a release) with the
            /// reason, the core error as JSON (as thrown errors carry it).
            #[napi]
            pub async fn lost(&self) -> String {
                $crate::error::json(&self.inner.lost().await)
            }
        }
    };
}

pub(crate) use holding_methods;

/// The key of a lease and a permit.
macro_rules! key_getter {
    ($t:ty) => {
        #[napi]
        impl $t {
            /// The key held, as text.
            #[napi(getter)]
            pub fn key(&self) -> String {
                self.inner.key().to_string()
            }
        }
    };
}

holding_methods!(NativeLease, release, end_hold);
holding_methods!(NativePermit, release, end_hold);
key_getter!(NativeLease);
key_getter!(NativePermit);
