//! The blocking API: the same names as the async one, each call waiting on
//! a runtime of the store's own. Do not call it from inside an async task.

mod election;
mod group;
mod lease;
mod rw_locks;

pub use election::{Election, Leadership, Observer};
pub use group::{Locks, Semaphore};
pub use lease::{Lease, Permit};
pub use rw_locks::RwLocks;

use crate::client::ConnectOptions;
use crate::error::{Error, Result};
use crate::status::Status;
use crate::store_options::StoreOptions;
use std::path::Path;
use std::sync::Arc;
use tokio::runtime::Runtime;

/// An open store, for blocking code. Cheap to clone.
#[derive(Clone)]
pub struct Store {
    inner: crate::Store,
    rt: Arc<Runtime>,
}

pub(crate) fn runtime() -> Result<Arc<Runtime>> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .thread_name("tinystore")
        .enable_all()
        .build()
        .map(Arc::new)
        .map_err(|e| Error::io("cannot start the tinystore runtime", e))
}

impl Store {
    /// Opens the store directory `dir`; see [`crate::Store::open`].
    pub fn open(dir: impl AsRef<Path>) -> Result<Store> {
        Store::open_with(dir, StoreOptions::default())
    }

    /// `open` with options.
    pub fn open_with(dir: impl AsRef<Path>, options: StoreOptions) -> Result<Store> {
        let rt = runtime()?;
        let inner = rt.block_on(crate::Store::open_with(dir, options))?;
        Ok(Store { inner, rt })
    }

    /// Connects to a served store; see [`crate::Store::connect`].
    pub fn connect(address: &str) -> Result<Store> {
        Store::connect_with(address, ConnectOptions::default())
    }

    /// `connect` with options; see [`crate::Store::connect_with`].
    pub fn connect_with(address: &str, options: ConnectOptions) -> Result<Store> {
        let rt = runtime()?;
        let inner = rt.block_on(crate::Store::connect_with(address, options))?;
        Ok(Store { inner, rt })
    }

    /// A blocking store over `inner`, waiting on `rt`.
    pub(crate) fn from_parts(inner: crate::Store, rt: Arc<Runtime>) -> Store {
        Store { inner, rt }
    }

    /// Waits for `future` on this store's runtime.
    pub(crate) fn block_on<F: std::future::Future>(&self, future: F) -> F::Output {
        self.rt.block_on(future)
    }

    /// The async store underneath.
    pub fn as_async(&self) -> &crate::Store {
        &self.inner
    }

    /// The group of exclusive locks called `name`.
    pub fn locks(&self, name: &str) -> Locks {
        Locks::new(self.inner.locks(name), self.rt.clone())
    }

    /// The group of read-write locks called `name`; see
    /// [`crate::Store::rw_locks`].
    pub fn rw_locks(&self, name: &str) -> RwLocks {
        RwLocks::new(self.inner.rw_locks(name), self.rt.clone())
    }

    /// The group of semaphores called `name`, `limit` holders per key.
    pub fn semaphore(&self, name: &str, limit: u32) -> Semaphore {
        Semaphore::new(self.inner.semaphore(name, limit), self.rt.clone())
    }

    /// The election called `name`; see [`crate::Store::election`].
    pub fn election(&self, name: &str) -> Election {
        Election::new(self.inner.election(name), self.rt.clone())
    }

    /// The epoch, the fences given, the held keys and the waiters.
    pub fn status(&self) -> Result<Status> {
        self.rt.block_on(self.inner.status())
    }

    /// [`crate::Store::status_page`], blocking.
    pub fn status_page(&self, page: crate::StatusPage) -> Result<Status> {
        self.rt.block_on(self.inner.status_page(page))
    }

    /// Writes a consistent copy of `kv.db` to `dest`.
    pub fn backup(&self, dest: impl AsRef<Path>) -> Result<()> {
        self.rt.block_on(self.inner.backup(dest))
    }

    /// Closes the store; see [`crate::Store::close`].
    pub fn close(&self) -> Result<()> {
        self.rt.block_on(self.inner.close())
    }
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store").finish_non_exhaustive()
    }
}
