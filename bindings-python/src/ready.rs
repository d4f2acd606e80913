//! Turning a core future into a Python awaitable without blocking the event
//! loop. The future is polled once right away (most embedded calls finish
//! there, with no thread hop); if it is not done, it goes on on the tokio
//! runtime and completes an asyncio future (pyo3-async-runtimes), which drops
//! the core future when the asyncio future is cancelled.

use pyo3::exceptions::PyStopIteration;
use pyo3::prelude::*;
use pyo3::IntoPyObjectExt;
use std::future::Future;
use std::task::{Context, Poll, Waker};

/// The tokio runtime every core future runs on.
pub(crate) fn runtime() -> &'static tokio::runtime::Runtime {
    pyo3_async_runtimes::tokio::get_runtime()
}

/// Runs `fut` to its end on the runtime with the GIL released: the sync API.
pub(crate) fn block_on<T: Send>(py: Python<'_>, fut: impl Future<Output = T> + Send) -> T {
    py.detach(|| runtime().block_on(fut))
}

/// An awaitable for `fut`: finished at once when its first poll finishes it,
/// else an asyncio future completed from the runtime.
pub(crate) fn awaitable<F, T>(py: Python<'_>, fut: F) -> PyResult<Bound<'_, PyAny>>
where
    F: Future<Output = PyResult<T>> + Send + 'static,
    T: for<'py> IntoPyObject<'py> + Send + 'static,
{
    let mut fut = Box::pin(fut);
    let first = {
        let _entered = runtime().enter();
        fut.as_mut().poll(&mut Context::from_waker(Waker::noop()))
    };
    match first {
        Poll::Ready(result) => {
            let value = result?.into_py_any(py)?;
            Ok(Bound::new(py, Ready(Some(value)))?.into_any())
        }
        Poll::Pending => pyo3_async_runtimes::tokio::future_into_py(py, fut),
    }
}

/// An awaitable whose value is already there.
#[pyclass(module = "tinystore._native")]
pub(crate) struct Ready(Option<Py<PyAny>>);

#[pymethods]
impl Ready {
    fn __await__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&mut self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let value = self.0.take().unwrap_or_else(|| py.None());
        Err(PyStopIteration::new_err((value,)))
    }
}
