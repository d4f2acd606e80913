//! `NativeLocks` and `NativeSemaphore`: a core group, whose acquires JS
//! starts as the core's cancellable `Acquiring` (see [`crate::acquiring`]).
//! A lock group's `acquiringAll` is in [`crate::several`].

use crate::acquiring::{NativeLeaseAcquiring, NativePermitAcquiring};
use crate::error::to_napi;
use crate::lease::{NativeLease, NativePermit};
use crate::now::now_or_later;
use crate::options::to_core;
use napi::bindgen_prelude::{Either, PromiseRaw};
use napi::Env;
use napi_derive::napi;
use std::collections::HashMap;
use tinystore::binding::{StartAcquire, StartWatch};

/// A group of exclusive locks, one per key.
#[napi]
pub struct NativeLocks {
    pub(crate) inner: tinystore::Locks,
}

/// A group of semaphores: up to `limit` holders per key at once.
#[napi]
pub struct NativeSemaphore {
    inner: tinystore::Semaphore,
}

impl From<tinystore::Locks> for NativeLocks {
    fn from(inner: tinystore::Locks) -> NativeLocks {
        NativeLocks { inner }
    }
}

impl From<tinystore::Semaphore> for NativeSemaphore {
    fn from(inner: tinystore::Semaphore) -> NativeSemaphore {
        NativeSemaphore { inner }
    }
}

/// `acquiring` and `tryAcquire` for a group whose holds are `$held`.
macro_rules! group_methods {
    ($t:ty, $acquiring:ty, $held:ty) => {
        #[napi]
        impl $t {
            /// The group's name.
            #[napi(getter)]
            pub fn name(&self) -> String {
                self.inner.name().to_string()
            }

            /// Starts watching `key` now (an embedded store's watch is
            /// subscribed on return); the core checks the key at the first
            /// `next`.
            #[napi]
            pub fn watch(&self, key: String) -> crate::watch::NativeWatcher {
                crate::watch::NativeWatcher::start(|| self.inner.watching(Some(key)))
            }

            /// Starts watching every key of the group now.
            #[napi]
            pub fn watch_all(&self) -> crate::watch::NativeWatcher {
                crate::watch::NativeWatcher::start(|| self.inner.watching(None))
            }

            /// Starts waiting first come first served for `key`; the core
            /// checks the name, key and options at the first poll.
            #[napi]
            pub fn acquiring(
                &self,
                key: String,
                options: Option<HashMap<String, napi::bindgen_prelude::Either3<f64, bool, String>>>,
            ) -> napi::Result<$acquiring> {
                Ok(self.inner.acquiring(key, to_core(options)?).into())
            }

            /// Holds `key` if it is free now, else `null`; at once when it
            /// can tell, else as a promise.
            #[napi]
            pub fn try_acquire<'env>(
                &self,
                env: &'env Env,
                key: String,
                options: Option<HashMap<String, napi::bindgen_prelude::Either3<f64, bool, String>>>,
            ) -> napi::Result<Either<Option<$held>, PromiseRaw<'env, Option<$held>>>> {
                let options = to_core(options)?;
                let group = self.inner.clone();
                now_or_later(env, async move {
                    let held = group.try_acquire_with(key, options).await;
                    Ok(held.map_err(to_napi)?.map(Into::into))
                })
            }
        }
    };
}

group_methods!(NativeLocks, NativeLeaseAcquiring, NativeLease);
group_methods!(NativeSemaphore, NativePermitAcquiring, NativePermit);
