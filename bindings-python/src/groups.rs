//! `Locks` and `Semaphore`: the core's groups, with async (awaitable) and
//! sync forms of `acquire` and `try_acquire`. Keys and options are converted
//! by `args`; everything else is the core's.

use crate::args::{key_text, options};
use crate::errors::to_py;
use crate::lease::{Lease, Permit};
use crate::ready::{awaitable, block_on};
use pyo3::prelude::*;

macro_rules! group_class {
    ($name:ident, $core:ty, $held:ident, $what:literal) => {
        #[doc = $what]
        #[pyclass(module = "tinystore._native", frozen)]
        pub(crate) struct $name {
            inner: $core,
        }

        impl $name {
            pub(crate) fn new(inner: $core) -> $name {
                $name { inner }
            }
        }

        #[pymethods]
        impl $name {
            /// The group's name.
            #[getter]
            fn name(&self) -> &str {
                self.inner.name()
            }

            /// Waits first come first served for `key` (awaitable).
            #[pyo3(signature = (key, ttl=None, wait=None, renew=None))]
            fn acquire<'py>(
                &self,
                py: Python<'py>,
                key: &Bound<'py, PyAny>,
                ttl: Option<f64>,
                wait: Option<f64>,
                renew: Option<bool>,
            ) -> PyResult<Bound<'py, PyAny>> {
                let (group, key, over) = (
                    self.inner.clone(),
                    key_text(key)?,
                    options(ttl, wait, renew)?,
                );
                awaitable(py, async move {
                    group.acquire_with(key, over).await.map($held::new)
                })
            }

            /// Holds `key` if it is free now, else gives None (awaitable).
            #[pyo3(signature = (key, ttl=None, wait=None, renew=None))]
            fn try_acquire<'py>(
                &self,
                py: Python<'py>,
                key: &Bound<'py, PyAny>,
                ttl: Option<f64>,
                wait: Option<f64>,
                renew: Option<bool>,
            ) -> PyResult<Bound<'py, PyAny>> {
                let (group, key, over) = (
                    self.inner.clone(),
                    key_text(key)?,
                    options(ttl, wait, renew)?,
                );
                awaitable(py, async move {
                    let held = group.try_acquire_with(key, over).await?;
                    Ok(held.map($held::new))
                })
            }

            /// `acquire`, waiting with the GIL released.
            #[pyo3(signature = (key, ttl=None, wait=None, renew=None))]
            fn acquire_sync(
                &self,
                py: Python<'_>,
                key: &Bound<'_, PyAny>,
                ttl: Option<f64>,
                wait: Option<f64>,
                renew: Option<bool>,
            ) -> PyResult<$held> {
                let (key, over) = (key_text(key)?, options(ttl, wait, renew)?);
                let held = block_on(py, self.inner.acquire_with(key, over)).map_err(to_py)?;
                Ok($held::new(held))
            }

            /// `try_acquire`, waiting with the GIL released.
            #[pyo3(signature = (key, ttl=None, wait=None, renew=None))]
            fn try_acquire_sync(
                &self,
                py: Python<'_>,
                key: &Bound<'_, PyAny>,
                ttl: Option<f64>,
                wait: Option<f64>,
                renew: Option<bool>,
            ) -> PyResult<Option<$held>> {
                let (key, over) = (key_text(key)?, options(ttl, wait, renew)?);
                let held = block_on(py, self.inner.try_acquire_with(key, over)).map_err(to_py)?;
                Ok(held.map($held::new))
            }
        }
    };
}

group_class!(
    Locks,
    tinystore::Locks,
    Lease,
    "A group of exclusive locks, one per key; its leases carry fences."
);
group_class!(
    Semaphore,
    tinystore::Semaphore,
    Permit,
    "A group of semaphores, `limit` holders per key; its permits have no fence."
);
