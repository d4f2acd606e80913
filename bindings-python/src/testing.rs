//! The test kit (`tinystore::testing`) for `tinystore.testing`: `TestStore`,
//! a store in a temporary directory whose time the test controls (embedded,
//! or served by this process), and `testing_advance`, `testing_expire` and
//! `testing_expire_key` on any store, each awaitable and sync. Types are
//! converted here (seconds to a `Duration`, a `Lease`, `Permit` or
//! `Leadership` to the core's); what the controls do, and the refusal of a
//! store not made for tests, is the core's.

use crate::acquiring::awaitable;
use crate::args::key_text;
use crate::election::Leadership;
use crate::error::{invalid, to_py};
use crate::lease::{Lease, Permit};
use crate::runtime::{block_on, runtime};
use crate::store::Store;
use pyo3::prelude::*;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tinystore::testing::{self, TestStore as CoreTestStore};

/// A test store: the core's kit, open until `close` (or until dropped).
#[pyclass(module = "tinystore._native", frozen)]
pub(crate) struct TestStore {
    kit: Mutex<Option<CoreTestStore>>,
    store: tinystore::Store,
    address: Option<String>,
    dir: PathBuf,
}

impl TestStore {
    fn new(kit: CoreTestStore) -> TestStore {
        TestStore {
            store: kit.store().clone(),
            address: kit.address().map(str::to_owned),
            dir: kit.dir().to_owned(),
            kit: Mutex::new(Some(kit)),
        }
    }

    fn take(&self) -> Option<CoreTestStore> {
        self.kit.lock().unwrap_or_else(|p| p.into_inner()).take()
    }
}

/// An embedded test store in a new temporary directory.
#[pyfunction]
pub(crate) fn test_store_open(py: Python<'_>) -> PyResult<TestStore> {
    let kit = block_on(py, CoreTestStore::new()).map_err(to_py)?;
    Ok(TestStore::new(kit))
}

/// A test store in a new temporary directory, served by this process on
/// its Unix socket (as `tinystore serve --testing` would); its `store` is
/// connected to it.
#[pyfunction]
pub(crate) fn test_store_served(py: Python<'_>) -> PyResult<TestStore> {
    let kit = block_on(py, CoreTestStore::served()).map_err(to_py)?;
    Ok(TestStore::new(kit))
}

#[pymethods]
impl TestStore {
    /// The store (embedded, or connected to the kit's server).
    #[getter]
    fn store(&self) -> Store {
        Store::from_core(self.store.clone())
    }

    /// `unix:PATH` when served, else None.
    #[getter]
    fn address(&self) -> Option<&str> {
        self.address.as_deref()
    }

    /// The store's directory, removed by `close`.
    #[getter]
    fn dir(&self) -> String {
        self.dir.display().to_string()
    }

    /// Closes the store (holders are told, waiters fail with `closed`),
    /// stops the server when served, and removes the directory. Idempotent.
    fn close(&self, py: Python<'_>) -> PyResult<()> {
        match self.take() {
            Some(kit) => block_on(py, kit.close()).map_err(to_py),
            None => Ok(()),
        }
    }

    /// `close` (awaitable).
    fn aclose<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let kit = self.take();
        awaitable(py, async move {
            match kit {
                Some(kit) => kit.close().await,
                None => Ok(()),
            }
        })
    }
}

impl Drop for TestStore {
    /// Never closed (the kit was collected): closed on the runtime, which
    /// removes the directory, without waiting here.
    fn drop(&mut self) {
        if let Some(kit) = self.take() {
            runtime().spawn(async move {
                let _ = kit.close().await;
            });
        }
    }
}

/// Seconds as a `Duration`: `invalid` unless 0 or more and finite.
fn duration(seconds: f64) -> PyResult<Duration> {
    Duration::try_from_secs_f64(seconds).map_err(|_| {
        invalid(format!(
            "advance takes a finite number of seconds, 0 or more, not {seconds}"
        ))
    })
}

/// Moves the time of `store` forward `seconds` (awaitable).
#[pyfunction]
pub(crate) fn testing_advance<'py>(
    py: Python<'py>,
    store: &Store,
    seconds: f64,
) -> PyResult<Bound<'py, PyAny>> {
    let (store, by) = (store.core().clone(), duration(seconds)?);
    awaitable(py, async move { testing::advance(&store, by).await })
}

/// `testing_advance`, waiting with the GIL released.
#[pyfunction]
pub(crate) fn testing_advance_sync(py: Python<'_>, store: &Store, seconds: f64) -> PyResult<()> {
    let by = duration(seconds)?;
    block_on(py, testing::advance(store.core(), by)).map_err(to_py)
}

/// What `expire` ends: the core's lease, permit or leadership.
enum Held {
    Lease(Arc<tinystore::Lease>),
    Permit(Arc<tinystore::Permit>),
    Leadership(Arc<tinystore::Leadership>),
}

impl Held {
    fn of(held: &Bound<'_, PyAny>) -> PyResult<Held> {
        if let Ok(lease) = held.cast::<Lease>() {
            return Ok(Held::Lease(lease.get().core().clone()));
        }
        if let Ok(permit) = held.cast::<Permit>() {
            return Ok(Held::Permit(permit.get().core().clone()));
        }
        if let Ok(leadership) = held.cast::<Leadership>() {
            return Ok(Held::Leadership(leadership.get().core().clone()));
        }
        let kind = held.get_type().name()?;
        Err(invalid(format!(
            "expire takes a Lease, a Permit or a Leadership, not {kind}"
        )))
    }

    async fn expire(self) -> tinystore::Result<()> {
        match self {
            Held::Lease(it) => testing::expire(&*it).await,
            Held::Permit(it) => testing::expire(&*it).await,
            Held::Leadership(it) => testing::expire(&*it).await,
        }
    }
}

/// Ends `held` as if its holder had paused past its TTL; done once its
/// loss was signalled (awaitable).
#[pyfunction]
pub(crate) fn testing_expire<'py>(
    py: Python<'py>,
    held: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let held = Held::of(held)?;
    awaitable(py, held.expire())
}

/// `testing_expire`, waiting with the GIL released.
#[pyfunction]
pub(crate) fn testing_expire_sync(py: Python<'_>, held: &Bound<'_, PyAny>) -> PyResult<()> {
    let held = Held::of(held)?;
    block_on(py, held.expire()).map_err(to_py)
}

/// Ends every lease on `key` of the groups called `name` of `store`; gives
/// how many (awaitable).
#[pyfunction]
pub(crate) fn testing_expire_key<'py>(
    py: Python<'py>,
    store: &Store,
    name: String,
    key: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let (store, key) = (store.core().clone(), key_text(key)?);
    awaitable(
        py,
        async move { testing::expire_key(&store, &name, key).await },
    )
}

/// `testing_expire_key`, waiting with the GIL released.
#[pyfunction]
pub(crate) fn testing_expire_key_sync(
    py: Python<'_>,
    store: &Store,
    name: &str,
    key: &Bound<'_, PyAny>,
) -> PyResult<usize> {
    let key = key_text(key)?;
    block_on(py, testing::expire_key(store.core(), name, key)).map_err(to_py)
}

/// Registers the kit's functions and `TestStore` in `tinystore._native`.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(test_store_open, m)?)?;
    m.add_function(wrap_pyfunction!(test_store_served, m)?)?;
    m.add_function(wrap_pyfunction!(testing_advance, m)?)?;
    m.add_function(wrap_pyfunction!(testing_advance_sync, m)?)?;
    m.add_function(wrap_pyfunction!(testing_expire, m)?)?;
    m.add_function(wrap_pyfunction!(testing_expire_sync, m)?)?;
    m.add_function(wrap_pyfunction!(testing_expire_key, m)?)?;
    m.add_function(wrap_pyfunction!(testing_expire_key_sync, m)?)?;
    m.add_class::<TestStore>()?;
    Ok(())
}
