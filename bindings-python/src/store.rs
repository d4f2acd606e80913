//! `Store`: an open store (embedded or reached over a connection), the door
//! to its groups.

use crate::args::limit_u32;
use crate::election::Election;
use crate::error::to_py;
use crate::group::{Locks, Semaphore};
use crate::runtime::block_on;
use crate::rw_locks::RwLocks;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::path::PathBuf;

/// An open store.
#[pyclass(module = "tinystore._native", frozen)]
pub(crate) struct Store {
    inner: tinystore::Store,
}

/// Opens the store directory `dir`, making it if missing; fails with
/// `in_use` when another process owns it.
#[pyfunction]
pub(crate) fn open(py: Python<'_>, dir: PathBuf) -> PyResult<Store> {
    let inner = block_on(py, tinystore::Store::open(dir)).map_err(to_py)?;
    Ok(Store { inner })
}

/// Connects to a store served by `tinystore serve` at `address` (`unix:PATH`,
/// `tcp://HOST:PORT`, a socket's path or a served directory), with the
/// token a TCP server asks for; fails with `unavailable` when unreachable.
#[pyfunction]
#[pyo3(signature = (address, token=None))]
pub(crate) fn connect(py: Python<'_>, address: &str, token: Option<String>) -> PyResult<Store> {
    let options = tinystore::ConnectOptions {
        token,
        ..Default::default()
    };
    let inner = block_on(py, tinystore::Store::connect_with(address, options)).map_err(to_py)?;
    Ok(Store { inner })
}

impl Store {
    /// The core's store, for the calls defined in other modules.
    pub(crate) fn core(&self) -> &tinystore::Store {
        &self.inner
    }

    /// A Python store over the core's `inner` (the test kit's store).
    pub(crate) fn from_core(inner: tinystore::Store) -> Store {
        Store { inner }
    }
}

#[pymethods]
impl Store {
    /// The group of exclusive locks called `name`, with its options.
    #[pyo3(signature = (name, **options))]
    fn locks(&self, name: &str, options: Option<&Bound<'_, PyDict>>) -> PyResult<Locks> {
        let group = self.inner.locks(name).with(crate::args::options(options)?);
        Ok(Locks::new(group))
    }

    /// The group of semaphores called `name`, `limit` holders per key; the
    /// core checks the limit when the group is first used.
    #[pyo3(signature = (name, limit, **options))]
    fn semaphore(
        &self,
        name: &str,
        limit: i64,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Semaphore> {
        let group = self
            .inner
            .semaphore(name, limit_u32(limit))
            .with(crate::args::options(options)?);
        Ok(Semaphore::new(group))
    }

    /// The group of read-write locks called `name`, with its options.
    #[pyo3(signature = (name, **options))]
    fn rw_locks(&self, name: &str, options: Option<&Bound<'_, PyDict>>) -> PyResult<RwLocks> {
        let group = self
            .inner
            .rw_locks(name)
            .with(crate::args::options(options)?);
        Ok(RwLocks::new(group))
    }

    /// The election called `name`, with its options.
    #[pyo3(signature = (name, **options))]
    fn election(&self, name: &str, options: Option<&Bound<'_, PyDict>>) -> PyResult<Election> {
        let election = self
            .inner
            .election(name)
            .with(crate::args::options(options)?);
        Ok(Election::new(election))
    }

    /// Releases every lease, fails every waiter with `closed`. Idempotent.
    fn close(&self, py: Python<'_>) -> PyResult<()> {
        block_on(py, self.inner.close()).map_err(to_py)
    }
}
