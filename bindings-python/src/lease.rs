//! `Lease` (a lock's, with a fence) and `Permit` (a semaphore's, without):
//! the core's, shared with the runtime, with async and sync forms of
//! `renew` and `release`, and the core's `on_lost` calling back into Python.

use crate::errors::to_py;
use crate::ready::{awaitable, block_on, coroutine, runtime};
use pyo3::prelude::*;
use std::sync::{Arc, Mutex};

macro_rules! holding_class {
    ($name:ident, $core:ty, $what:literal, { $($extra:tt)* }) => {
        #[doc = $what]
        #[pyclass(module = "tinystore._native", frozen)]
        pub(crate) struct $name {
            inner: Arc<$core>,
            watching: Mutex<Option<tinystore::OnLost>>,
        }

        impl $name {
            pub(crate) fn new(inner: $core) -> $name {
                $name {
                    inner: Arc::new(inner),
                    watching: Mutex::new(None),
                }
            }

            fn stop_watching(&self) {
                let handle = self.watching.lock().unwrap_or_else(|p| p.into_inner()).take();
                if let Some(handle) = handle {
                    handle.cancel();
                }
            }
        }

        #[pymethods]
        impl $name {
            /// The group's name.
            #[getter]
            fn name(&self) -> &str {
                self.inner.name()
            }

            /// The key held, as text.
            #[getter]
            fn key(&self) -> &str {
                self.inner.key()
            }

            /// The TTL in seconds.
            #[getter]
            fn ttl(&self) -> f64 {
                self.inner.ttl().as_secs_f64()
            }

            /// Whether it is still held.
            #[getter]
            fn held(&self) -> bool {
                self.inner.is_held()
            }

            /// Extends it by its TTL from now (awaitable).
            fn renew<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
                let inner = self.inner.clone();
                coroutine(awaitable(py, async move { inner.renew().await.map_err(to_py) })?)
            }

            /// Releases it (awaitable). Idempotent.
            fn release<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
                let inner = self.inner.clone();
                coroutine(awaitable(py, async move { inner.release().await.map_err(to_py) })?)
            }

            /// `renew`, waiting with the GIL released.
            fn renew_sync(&self, py: Python<'_>) -> PyResult<()> {
                block_on(py, self.inner.renew()).map_err(to_py)
            }

            /// `release`, waiting with the GIL released.
            fn release_sync(&self, py: Python<'_>) -> PyResult<()> {
                block_on(py, self.inner.release()).map_err(to_py)
            }

            /// Calls `callback()` from another thread once it is lost, unless
            /// it is released first. One watch at a time; a new one replaces it.
            /// The callback's errors are dropped: it is the package's own, and
            /// its event loop may be gone.
            fn watch_lost(&self, callback: Py<PyAny>) {
                let handle = self.inner.on_lost(move |_| {
                    // With the GIL, off the core's callback thread.
                    runtime().spawn_blocking(move || Python::attach(|py| drop(callback.call0(py))));
                });
                let old = self
                    .watching
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .replace(handle);
                if let Some(old) = old {
                    old.cancel();
                }
            }

            $($extra)*
        }

        impl Drop for $name {
            fn drop(&mut self) {
                self.stop_watching();
            }
        }
    };
}

holding_class!(
    Lease,
    tinystore::Lease,
    "An exclusive hold on one key of a `Locks` group, with its fence.",
    {
        /// The fence, an int larger than every fence the store gave before.
        #[getter]
        fn fence(&self) -> u128 {
            self.inner.fence().get()
        }

        fn __repr__(&self) -> String {
            format!(
                "Lease(name={:?}, key={:?}, fence={}, held={})",
                self.inner.name(),
                self.inner.key(),
                self.inner.fence(),
                py_bool(self.inner.is_held())
            )
        }
    }
);

holding_class!(
    Permit,
    tinystore::Permit,
    "One of a semaphore key's places; it has no fence.",
    {
        fn __repr__(&self) -> String {
            format!(
                "Permit(name={:?}, key={:?}, held={})",
                self.inner.name(),
                self.inner.key(),
                py_bool(self.inner.is_held())
            )
        }
    }
);

fn py_bool(value: bool) -> &'static str {
    if value {
        "True"
    } else {
        "False"
    }
}
