//! `following_class!`: a Python class over the core's `Following<T>` (an
//! election's `Observing`, a group's `Watching`), with `next` (awaitable),
//! `next_sync` (the GIL released) and `close`. `next` gives `(True, item)`
//! and `(False, None)` once it ended; the one error that ends it is
//! raised. Only the conversion of an item differs between the classes.

/// The next item of `following` as Python gets it, each converted by
/// `convert`: `(true, Some(item))`, or `(false, None)` once it ended.
pub(crate) async fn next_item<T, P>(
    following: tinystore::binding::Following<T>,
    convert: fn(T) -> P,
) -> tinystore::Result<(bool, Option<P>)>
where
    T: Send + 'static,
{
    match following.next().await {
        Some(item) => Ok((true, Some(convert(item?)))),
        None => Ok((false, None)),
    }
}

/// A frozen class `$name` over the core's `tinystore::binding::Following<$item>`,
/// each item given to Python as `convert` (a `fn($item) -> $py`) makes it.
macro_rules! following_class {
    ($name:ident, $item:ty, $py:ty, $convert:path, $doc:literal) => {
        #[doc = $doc]
        #[pyclass(module = "tinystore._native", frozen)]
        pub(crate) struct $name {
            inner: tinystore::binding::Following<$item>,
        }

        impl $name {
            /// Starts it with `start` inside the runtime, so an embedded
            /// store's stream is subscribed on return.
            pub(crate) fn start(
                start: impl FnOnce() -> tinystore::binding::Following<$item>,
            ) -> $name {
                let _entered = $crate::runtime::runtime().enter();
                $name { inner: start() }
            }
        }

        #[pymethods]
        impl $name {
            /// The next item (awaitable): `(True, item)`, `(False, None)`
            /// once it ended; cancelling it loses nothing.
            fn next<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
                $crate::acquiring::awaitable(
                    py,
                    $crate::following::next_item(self.inner.clone(), $convert),
                )
            }

            /// `next`, waiting with the GIL released.
            fn next_sync(&self, py: Python<'_>) -> PyResult<(bool, Option<$py>)> {
                $crate::runtime::block_on(
                    py,
                    $crate::following::next_item(self.inner.clone(), $convert),
                )
                .map_err($crate::error::to_py)
            }

            /// Stops it: a `next` under way and every later one give the
            /// end. Idempotent.
            fn close(&self) {
                self.inner.close()
            }
        }
    };
}

pub(crate) use following_class;
