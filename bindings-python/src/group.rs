//! `Locks` and `Semaphore`: the core's groups, with async (awaitable) and
//! sync forms of `acquire` and `try_acquire`, and `watch` (`watch`); `group_class!` makes them and
//! `RwLocks` (`rw_locks`). Keys and options are converted by `args`;
//! everything else is the core's.

use crate::lease::{Lease, Permit};
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// A Python class over the core group `$core`, with `name` and, for each
/// `$held: $acquire / $try_acquire => $core_acquire / $core_try` line, the
/// awaitable `$acquire` and `$try_acquire` and their `_sync` forms
/// (`$acquire_sync`, `$try_acquire_sync`), calling the core's
/// `$core_acquire` and `$core_try` and giving a `$held`; `$extra` are more
/// methods of the class.
macro_rules! group_class {
    (
        $name:ident, $core:ty, $what:literal,
        { $(
            $held:ident: $acquire:ident / $try_acquire:ident,
            $acquire_sync:ident / $try_acquire_sync:ident
            => $core_acquire:ident / $core_try:ident;
        )+ },
        { $($extra:tt)* }
    ) => {
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

            /// Starts watching `key` now (an embedded store's watch is
            /// subscribed on return); see the core's `watch`.
            fn watch(&self, key: &Bound<'_, PyAny>) -> PyResult<$crate::watch::Watcher> {
                let key = $crate::args::key_text(key)?;
                Ok($crate::watch::Watcher::start(|| tinystore::binding::StartWatch::watching(&self.inner, Some(key))))
            }

            /// Starts watching every key of the group now.
            fn watch_all(&self) -> $crate::watch::Watcher {
                $crate::watch::Watcher::start(|| tinystore::binding::StartWatch::watching(&self.inner, None))
            }

            $(
            /// Waits first come first served for `key` (awaitable).
            #[pyo3(signature = (key, **options))]
            fn $acquire<'py>(
                &self,
                py: Python<'py>,
                key: &Bound<'py, PyAny>,
                options: Option<&Bound<'_, PyDict>>,
            ) -> PyResult<Bound<'py, PyAny>> {
                let (group, key, over) = (
                    self.inner.clone(),
                    $crate::args::key_text(key)?,
                    $crate::args::options(options)?,
                );
                $crate::acquiring::awaitable(py, async move {
                    group.$core_acquire(key, over).await.map($held::new)
                })
            }

            /// Holds `key` if it is free now, else gives None (awaitable).
            #[pyo3(signature = (key, **options))]
            fn $try_acquire<'py>(
                &self,
                py: Python<'py>,
                key: &Bound<'py, PyAny>,
                options: Option<&Bound<'_, PyDict>>,
            ) -> PyResult<Bound<'py, PyAny>> {
                let (group, key, over) = (
                    self.inner.clone(),
                    $crate::args::key_text(key)?,
                    $crate::args::options(options)?,
                );
                $crate::acquiring::awaitable(py, async move {
                    let held = group.$core_try(key, over).await?;
                    Ok(held.map($held::new))
                })
            }

            /// The awaitable acquire's form that waits with the GIL released.
            #[pyo3(signature = (key, **options))]
            fn $acquire_sync(
                &self,
                py: Python<'_>,
                key: &Bound<'_, PyAny>,
                options: Option<&Bound<'_, PyDict>>,
            ) -> PyResult<$held> {
                let key = $crate::args::key_text(key)?;
                let over = $crate::args::options(options)?;
                let held = $crate::runtime::block_on(py, self.inner.$core_acquire(key, over))
                    .map_err($crate::error::to_py)?;
                Ok($held::new(held))
            }

            /// The awaitable try-acquire's form that waits with the GIL released.
            #[pyo3(signature = (key, **options))]
            fn $try_acquire_sync(
                &self,
                py: Python<'_>,
                key: &Bound<'_, PyAny>,
                options: Option<&Bound<'_, PyDict>>,
            ) -> PyResult<Option<$held>> {
                let key = $crate::args::key_text(key)?;
                let over = $crate::args::options(options)?;
                let held = $crate::runtime::block_on(py, self.inner.$core_try(key, over))
                    .map_err($crate::error::to_py)?;
                Ok(held.map($held::new))
            }
            )+

            $($extra)*
        }
    };
}

pub(crate) use group_class;

group_class!(
    Locks,
    tinystore::Locks,
    "A group of exclusive locks, one per key; its leases carry fences.",
    {
        Lease: acquire / try_acquire, acquire_sync / try_acquire_sync
            => acquire_with / try_acquire_with;
    },
    {
        /// Waits for every key of `keys` or none (awaitable): a lease
        /// each, in the order of `keys`; cancelling it leaves none held.
        #[pyo3(signature = (keys, **options))]
        fn acquire_all<'py>(
            &self,
            py: Python<'py>,
            keys: &Bound<'py, PyAny>,
            options: Option<&Bound<'_, PyDict>>,
        ) -> PyResult<Bound<'py, PyAny>> {
            let over = crate::args::options(options)?;
            crate::several::acquire_all(py, &self.inner, keys, over)
        }

        /// `acquire_all`, waiting with the GIL released.
        #[pyo3(signature = (keys, **options))]
        fn acquire_all_sync(
            &self,
            py: Python<'_>,
            keys: &Bound<'_, PyAny>,
            options: Option<&Bound<'_, PyDict>>,
        ) -> PyResult<Vec<Lease>> {
            let over = crate::args::options(options)?;
            crate::several::acquire_all_sync(py, &self.inner, keys, over)
        }
    }
);

group_class!(
    Semaphore,
    tinystore::Semaphore,
    "A group of semaphores, `limit` places per key; its permits have no fence.",
    {
        Permit: acquire / try_acquire, acquire_sync / try_acquire_sync
            => acquire_with / try_acquire_with;
    },
    {}
);
