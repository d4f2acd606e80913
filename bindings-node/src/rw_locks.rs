//! `NativeRwLocks`: a core group of read-write locks, whose acquires JS
//! starts as the core's cancellable `Acquiring` (see [`crate::acquiring`]):
//! a read gives a `NativePermit`, a write a `NativeLease` with a fence.

use crate::acquiring::{NativeLeaseAcquiring, NativePermitAcquiring};
use crate::error::to_napi;
use crate::lease::{NativeLease, NativePermit};
use crate::now::now_or_later;
use crate::options::to_core;
use napi::bindgen_prelude::{Either, PromiseRaw};
use napi::Env;
use napi_derive::napi;
use std::collections::HashMap;
use tinystore::binding::{StartReadWrite, StartWatch};

/// A group of read-write locks, one per key: readers share a key, a
/// writer holds it alone; first come first served.
#[napi]
pub struct NativeRwLocks {
    inner: tinystore::RwLocks,
}

impl From<tinystore::RwLocks> for NativeRwLocks {
    fn from(inner: tinystore::RwLocks) -> NativeRwLocks {
        NativeRwLocks { inner }
    }
}

#[napi]
impl NativeRwLocks {
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

    /// Starts waiting first come first served to read `key`; the core
    /// checks the name, key and options at the first poll.
    #[napi]
    pub fn acquiring_read(
        &self,
        key: String,
        options: Option<HashMap<String, napi::bindgen_prelude::Either3<f64, bool, String>>>,
    ) -> napi::Result<NativePermitAcquiring> {
        Ok(self.inner.acquiring_read(key, to_core(options)?).into())
    }

    /// Starts waiting first come first served to write `key`.
    #[napi]
    pub fn acquiring_write(
        &self,
        key: String,
        options: Option<HashMap<String, napi::bindgen_prelude::Either3<f64, bool, String>>>,
    ) -> napi::Result<NativeLeaseAcquiring> {
        Ok(self.inner.acquiring_write(key, to_core(options)?).into())
    }

    /// Reads `key` if no writer holds it or waits for it now, else `null`;
    /// at once when it can tell, else as a promise.
    #[napi]
    pub fn try_acquire_read<'env>(
        &self,
        env: &'env Env,
        key: String,
        options: Option<HashMap<String, napi::bindgen_prelude::Either3<f64, bool, String>>>,
    ) -> napi::Result<Either<Option<NativePermit>, PromiseRaw<'env, Option<NativePermit>>>> {
        let options = to_core(options)?;
        let group = self.inner.clone();
        now_or_later(env, async move {
            let held = group.try_acquire_read_with(key, options).await;
            Ok(held.map_err(to_napi)?.map(Into::into))
        })
    }

    /// Writes `key` if nobody holds it or waits for it now, else `null`;
    /// at once when it can tell, else as a promise.
    #[napi]
    pub fn try_acquire_write<'env>(
        &self,
        env: &'env Env,
        key: String,
        options: Option<HashMap<String, napi::bindgen_prelude::Either3<f64, bool, String>>>,
    ) -> napi::Result<Either<Option<NativeLease>, PromiseRaw<'env, Option<NativeLease>>>> {
        let options = to_core(options)?;
        let group = self.inner.clone();
        now_or_later(env, async move {
            let held = group.try_acquire_write_with(key, options).await;
            Ok(held.map_err(to_napi)?.map(Into::into))
        })
    }
}
