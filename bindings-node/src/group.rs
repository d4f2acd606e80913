//! `NativeLocks` and `NativeSemaphore`: a core group and its acquires. A
//! wait ends with a lease, an error, or `null` when its `Cancel` fired.

use crate::cancel::Cancel;
use crate::error::to_napi;
use crate::lease::{NativeLease, NativePermit};
use crate::options::{to_core, NativeOptions};
use napi_derive::napi;

/// A group of exclusive locks, one per key.
#[napi]
pub struct NativeLocks {
    inner: tinystore::Locks,
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

/// `acquire` and `tryAcquire` for a group whose holds are `$held`.
macro_rules! group_methods {
    ($t:ty, $held:ty) => {
        #[napi]
        impl $t {
            /// The group's name.
            #[napi(getter)]
            pub fn name(&self) -> String {
                self.inner.name().to_string()
            }

            /// Waits first come first served for `key`; `null` when
            /// `cancel` fired first (the wait is dropped, nothing leaks).
            #[napi]
            pub async fn acquire(
                &self,
                key: String,
                options: Option<NativeOptions>,
                cancel: &Cancel,
            ) -> napi::Result<Option<$held>> {
                let options = to_core(options)?;
                match cancel.run(self.inner.acquire_with(key, options)).await {
                    Some(held) => Ok(Some(held.map_err(to_napi)?.into())),
                    None => Ok(None),
                }
            }

            /// Holds `key` if it is free now, else `null`.
            #[napi]
            pub async fn try_acquire(
                &self,
                key: String,
                options: Option<NativeOptions>,
            ) -> napi::Result<Option<$held>> {
                let options = to_core(options)?;
                let held = self.inner.try_acquire_with(key, options).await;
                Ok(held.map_err(to_napi)?.map(Into::into))
            }
        }
    };
}

group_methods!(NativeLocks, NativeLease);
group_methods!(NativeSemaphore, NativePermit);
