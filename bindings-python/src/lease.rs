//! `Lease` (a lock's or a writer's, with a fence) and `Permit` (a
//! semaphore's or a reader's, without):
//! the core's, shared with the runtime, with async and sync forms of
//! `renew` and `release`, and the core's `on_lost` calling back into Python.
//! `holding_class!` makes them, and the election's `Leadership` (whose
//! `release` is `resign`).

use crate::acquiring::{awaitable, coroutine};
use crate::error::to_py;
use crate::exit;
use crate::runtime::{block_on, runtime};
use pyo3::prelude::*;
use std::sync::{Arc, Mutex};
use tinystore::binding::EndHold;

/// A Python class over a core holding `$core`: `$release` (and
/// `$release_sync`) give it back with the core's method of that name,
/// `$end` is the core's end of a hold (`EndHold::end_hold`).
macro_rules! holding_class {
    (
        $name:ident, $core:ty, $what:literal,
        $release:ident / $release_sync:ident, $end:ident, { $($extra:tt)* }
    ) => {
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

            /// The core's held thing, for the calls of other modules (the
            /// test kit's `expire`).
            pub(crate) fn core(&self) -> &Arc<$core> {
                &self.inner
            }
        }

        #[pymethods]
        impl $name {
            /// The group's name.
            #[getter]
            fn name(&self) -> &str {
                self.inner.name()
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
                coroutine(awaitable(py, async move { inner.renew().await })?)
            }

            /// Releases it (awaitable). Idempotent.
            fn $release<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
                let inner = self.inner.clone();
                coroutine(awaitable(py, async move { inner.$release().await })?)
            }

            /// Releases it at the end of a `hold` whose block ended
            /// `body_ok` (else with an exception, which `cancelled_by_loss`
            /// says was only the cancellation the loss injected), and
            /// raises what the core's `end_hold` says the hold adds:
            /// nothing after the block's own exception; else `Closed` or
            /// `LeaseLost` when it was lost before the block ended
            /// (awaitable).
            #[pyo3(name = "_end_hold")]
            fn end_hold<'py>(
                &self,
                py: Python<'py>,
                body_ok: bool,
                cancelled_by_loss: bool,
            ) -> PyResult<Bound<'py, PyAny>> {
                let inner = self.inner.clone();
                awaitable(py, async move { inner.$end(body_ok, cancelled_by_loss).await })
            }

            /// `_end_hold`, waiting with the GIL released.
            #[pyo3(name = "_end_hold_sync")]
            fn end_hold_sync(
                &self,
                py: Python<'_>,
                body_ok: bool,
                cancelled_by_loss: bool,
            ) -> PyResult<()> {
                block_on(py, self.inner.$end(body_ok, cancelled_by_loss)).map_err(to_py)
            }

            /// `renew`, waiting with the GIL released.
            fn renew_sync(&self, py: Python<'_>) -> PyResult<()> {
                block_on(py, self.inner.renew()).map_err(to_py)
            }

            /// `release`, waiting with the GIL released.
            fn $release_sync(&self, py: Python<'_>) -> PyResult<()> {
                block_on(py, self.inner.$release()).map_err(to_py)
            }

            /// Calls `callback()` from another thread once it is lost, unless
            /// it is released first. One watch at a time; a new one replaces it.
            /// The callback's errors are dropped: it is the package's own, and
            /// its event loop may be gone. Once the interpreter exits it is not
            /// called.
            fn watch_lost(&self, callback: Py<PyAny>) {
                let handle = self.inner.on_lost(move |_| {
                    // With the GIL, off the core's callback thread.
                    runtime().spawn_blocking(move || exit::attach(|py| drop(callback.call0(py))));
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
                let handle = self.watching.lock().unwrap_or_else(|p| p.into_inner()).take();
                if let Some(handle) = handle {
                    handle.cancel();
                }
            }
        }
    };
}

pub(crate) use holding_class;

holding_class!(
    Lease,
    tinystore::Lease,
    "An exclusive hold on one key of a `Locks` group (or a write lease of a `RwLocks` group), with its fence.",
    release / release_sync,
    end_hold,
    {
        /// The key held, as text.
        #[getter]
        fn key(&self) -> &str {
            self.inner.key()
        }

        /// The fence, an int larger than every fence the store gave before.
        #[getter]
        fn fence(&self) -> u128 {
            self.inner.fence().get()
        }

        /// Tells its store that a guard refused a write under this lease
        /// to `resource` as stale, for the store to count per group; never
        /// blocks nor fails. The guards call it when given the lease.
        fn report_refused(&self, resource: &str) {
            self.inner.report_refused(resource);
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
    "A semaphore key's places (its weight), or a read lease of a `RwLocks` group; it has no fence.",
    release / release_sync,
    end_hold,
    {
        /// The key held, as text.
        #[getter]
        fn key(&self) -> &str {
            self.inner.key()
        }

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

pub(crate) fn py_bool(value: bool) -> &'static str {
    if value {
        "True"
    } else {
        "False"
    }
}
