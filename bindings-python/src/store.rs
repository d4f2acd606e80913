//! `Store`: an open store (embedded or reached over a connection), the door
//! to its groups.

use crate::args::{limit_u32, options};
use crate::election::Election;
use crate::errors::to_py;
use crate::groups::{Locks, Semaphore};
use crate::ready::block_on;
use pyo3::prelude::*;
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
}

#[pymethods]
impl Store {
    /// The group of exclusive locks called `name`, with its options.
    #[pyo3(signature = (name, ttl=None, wait=None, renew=None))]
    fn locks(
        &self,
        name: &str,
        ttl: Option<f64>,
        wait: Option<f64>,
        renew: Option<bool>,
    ) -> PyResult<Locks> {
        let group = self.inner.locks(name).with(options(ttl, wait, renew)?);
        Ok(Locks::new(group))
    }

    /// The group of semaphores called `name`, `limit` holders per key; the
    /// core checks the limit when the group is first used.
    #[pyo3(signature = (name, limit, ttl=None, wait=None, renew=None))]
    fn semaphore(
        &self,
        name: &str,
        limit: i64,
        ttl: Option<f64>,
        wait: Option<f64>,
        renew: Option<bool>,
    ) -> PyResult<Semaphore> {
        let group = self
            .inner
            .semaphore(name, limit_u32(limit))
            .with(options(ttl, wait, renew)?);
        Ok(Semaphore::new(group))
    }

    /// The election called `name`, with its options.
    #[pyo3(signature = (name, ttl=None, wait=None, renew=None))]
    fn election(
        &self,
        name: &str,
        ttl: Option<f64>,
        wait: Option<f64>,
        renew: Option<bool>,
    ) -> PyResult<Election> {
        let election = self.inner.election(name).with(options(ttl, wait, renew)?);
        Ok(Election::new(election))
    }

    /// Releases every lease, fails every waiter with `closed`. Idempotent.
    fn close(&self, py: Python<'_>) -> PyResult<()> {
        block_on(py, self.inner.close()).map_err(to_py)
    }
}
