//! The test kit (`tinystore/testing`, lib/testing.js): `openTestStore`,
//! `serveTestStore` and `NativeTestStore` (the core's
//! `tinystore::testing::TestStore`), and the kit's controls on any store
//! and held lease, permit or leadership (`testingAdvance`,
//! `testingExpireKey`, `testingExpire`), which the core refuses with
//! `invalid` on a store not made for tests. Types only: the semantics are
//! the core's.

use crate::election::NativeLeadership;
use crate::error::{invalid, to_napi};
use crate::lease::{NativeLease, NativePermit};
use crate::store::NativeStore;
use napi_derive::napi;
use std::sync::Mutex;
use std::time::Duration;
use tinystore::testing::{self, TestStore};

/// A test store: a new store in a temporary directory whose time the test
/// controls, embedded or served by this process, until `close`.
#[napi]
pub struct NativeTestStore {
    inner: Mutex<Option<TestStore>>,
    store: tinystore::Store,
    address: Option<String>,
    dir: String,
}

impl From<TestStore> for NativeTestStore {
    fn from(kit: TestStore) -> NativeTestStore {
        NativeTestStore {
            store: kit.store().clone(),
            address: kit.address().map(str::to_string),
            dir: kit.dir().display().to_string(),
            inner: Mutex::new(Some(kit)),
        }
    }
}

/// An embedded test store: this process owns it.
#[napi]
pub async fn open_test_store() -> napi::Result<NativeTestStore> {
    Ok(TestStore::new().await.map_err(to_napi)?.into())
}

/// A test store served by this process on its Unix socket (as `tinystore
/// serve --testing` would), its store connected to it.
#[napi]
pub async fn serve_test_store() -> napi::Result<NativeTestStore> {
    Ok(TestStore::served().await.map_err(to_napi)?.into())
}

#[napi]
impl NativeTestStore {
    /// The store.
    #[napi(getter)]
    pub fn store(&self) -> NativeStore {
        self.store.clone().into()
    }

    /// Where other processes connect (`unix:PATH`), when served.
    #[napi(getter)]
    pub fn address(&self) -> Option<String> {
        self.address.clone()
    }

    /// The store's directory, removed on close.
    #[napi(getter)]
    pub fn dir(&self) -> String {
        self.dir.clone()
    }

    /// Closes the store, stops its server when served, and removes the
    /// directory. Idempotent.
    #[napi]
    pub async fn close(&self) -> napi::Result<()> {
        let kit = self
            .inner
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .take();
        match kit {
            Some(kit) => kit.close().await.map_err(to_napi),
            None => Ok(()),
        }
    }
}

/// Milliseconds, as JS gives a duration, checked only as a conversion.
fn millis(ms: f64) -> napi::Result<Duration> {
    if !ms.is_finite() || ms < 0.0 {
        return Err(invalid(format!(
            "advance takes a finite number of milliseconds from 0 up, not {ms}"
        )));
    }
    Duration::try_from_secs_f64(ms / 1e3)
        .map_err(|_| invalid(format!("advance {ms} milliseconds is too long")))
}

#[napi]
impl NativeStore {
    /// The kit's `advance` on this store: its time `ms` milliseconds on.
    #[napi]
    pub async fn testing_advance(&self, ms: f64) -> napi::Result<()> {
        let by = millis(ms)?;
        testing::advance(self.core(), by).await.map_err(to_napi)
    }

    /// The kit's `expire_key` on this store: how many leases it ended.
    #[napi]
    pub async fn testing_expire_key(&self, name: String, key: String) -> napi::Result<f64> {
        let ended = testing::expire_key(self.core(), &name, key)
            .await
            .map_err(to_napi)?;
        Ok(ended as f64)
    }
}

/// `testingExpire` on each kind of held thing: the kit's `expire`.
macro_rules! expirable {
    ($($t:ty),*) => {$(
        #[napi]
        impl $t {
            /// The kit's `expire`: ends it as if its holder had paused past
            /// its TTL; resolves once its loss was signalled.
            #[napi]
            pub async fn testing_expire(&self) -> napi::Result<()> {
                testing::expire(self.core()).await.map_err(to_napi)
            }
        }
    )*};
}

expirable!(NativeLease, NativePermit, NativeLeadership);
