//! `openStore`, `connectStore` and `NativeStore`: the door to a store's
//! groups (locks, semaphores, read-write locks) and elections.

use crate::election::NativeElection;
use crate::error::{invalid, to_napi};
use crate::group::{NativeLocks, NativeSemaphore};
use crate::options::to_core;
use crate::rw_locks::NativeRwLocks;
use crate::status::NativeStatus;
use napi_derive::napi;
use std::collections::HashMap;

/// An open store, owned by this process or reached over a connection.
#[napi]
pub struct NativeStore {
    inner: tinystore::Store,
}

impl From<tinystore::Store> for NativeStore {
    fn from(inner: tinystore::Store) -> NativeStore {
        NativeStore { inner }
    }
}

impl NativeStore {
    /// The core's store (for the test kit, testing.rs).
    pub(crate) fn core(&self) -> &tinystore::Store {
        &self.inner
    }
}

/// Opens the store directory `dir`, making it if missing.
#[napi]
pub async fn open_store(dir: String) -> napi::Result<NativeStore> {
    let inner = tinystore::Store::open(dir).await.map_err(to_napi)?;
    Ok(NativeStore { inner })
}

/// Connects to a store served by `tinystore serve` at `address`
/// (`unix:PATH`, `tcp://HOST:PORT`, a socket's path or a served directory),
/// with the token a TCP server asks for.
#[napi]
pub async fn connect_store(address: String, token: Option<String>) -> napi::Result<NativeStore> {
    let options = tinystore::ConnectOptions {
        token,
        ..Default::default()
    };
    let inner = tinystore::Store::connect_with(&address, options)
        .await
        .map_err(to_napi)?;
    Ok(NativeStore { inner })
}

#[napi]
impl NativeStore {
    /// The group of exclusive locks called `name`, with its options.
    #[napi]
    pub fn locks(
        &self,
        name: String,
        options: Option<HashMap<String, napi::bindgen_prelude::Either3<f64, bool, String>>>,
    ) -> napi::Result<NativeLocks> {
        Ok(self.inner.locks(&name).with(to_core(options)?).into())
    }

    /// The group of semaphores called `name`, `limit` holders per key.
    #[napi]
    pub fn semaphore(
        &self,
        name: String,
        limit: f64,
        options: Option<HashMap<String, napi::bindgen_prelude::Either3<f64, bool, String>>>,
    ) -> napi::Result<NativeSemaphore> {
        // Only the conversion: the core checks the limit (from 1 to
        // MAX_LIMIT) at the first acquire, as it does every field.
        if limit.fract() != 0.0 || !(0.0..=f64::from(u32::MAX)).contains(&limit) {
            return Err(invalid(format!(
                "semaphore {name} has limit {limit}; a limit must be a whole number from 1 to {}",
                tinystore::MAX_LIMIT
            )));
        }
        let group = self.inner.semaphore(&name, limit as u32);
        Ok(group.with(to_core(options)?).into())
    }

    /// The group of read-write locks called `name`, with its options.
    #[napi]
    pub fn rw_locks(
        &self,
        name: String,
        options: Option<HashMap<String, napi::bindgen_prelude::Either3<f64, bool, String>>>,
    ) -> napi::Result<NativeRwLocks> {
        Ok(self.inner.rw_locks(&name).with(to_core(options)?).into())
    }

    /// The election called `name`, with its options.
    #[napi]
    pub fn election(
        &self,
        name: String,
        options: Option<HashMap<String, napi::bindgen_prelude::Either3<f64, bool, String>>>,
    ) -> napi::Result<NativeElection> {
        Ok(self.inner.election(&name).with(to_core(options)?).into())
    }

    /// The store's status: the `limit` held leases and keys with waiters
    /// (default 1,000) after the first `offset` of each; the core checks
    /// the limit.
    #[napi]
    pub async fn status(
        &self,
        offset: Option<f64>,
        limit: Option<f64>,
    ) -> napi::Result<NativeStatus> {
        let page = crate::status::page(offset, limit)?;
        let status = self.inner.status_page(page).await.map_err(to_napi)?;
        Ok(status.into())
    }

    /// Releases every lease, fails every waiter with `closed`. Idempotent.
    #[napi]
    pub async fn close(&self) -> napi::Result<()> {
        self.inner.close().await.map_err(to_napi)
    }
}
