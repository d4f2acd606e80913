//! Core futures as Python awaitables, without blocking the event loop: the
//! asyncio glue around the core's [`Acquiring`].
//!
//! A future is polled once right away (`Acquiring::poll_now`): most
//! embedded calls finish there, and the awaitable is then already done, with
//! no thread hop. Otherwise it is polled again with a waker that queues it
//! on the event loop (see `completion`), and each wake has the loop poll it
//! on its own thread until it finishes: no task waits for it in the
//! runtime. Cancelling the asyncio
//! future gives the core's acquire up at once, on the event loop's thread,
//! so a cancelled `acquire` has left its key's queue (or released what it
//! was granted) before the cancelled task runs again.

use crate::completion::{LoopQueue, LoopWaker, Settle, Waiting};
use crate::error::to_py;
use crate::runtime::runtime;
use pyo3::exceptions::PyStopIteration;
use pyo3::prelude::*;
use pyo3::types::PyWeakrefReference;
use pyo3::IntoPyObjectExt;
use std::future::Future;
use std::sync::Arc;
use std::task::{Poll, Waker};
use tinystore::binding::Acquiring;

/// `awaitable` wrapped in a coroutine (`tinystore._coro.as_coroutine`), for
/// methods that Python code may hand to `asyncio.create_task`.
pub(crate) fn coroutine<'py>(awaitable: Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    static WRAP: pyo3::sync::PyOnceLock<Py<PyAny>> = pyo3::sync::PyOnceLock::new();
    let wrap = WRAP.import(awaitable.py(), "tinystore._coro", "as_coroutine")?;
    wrap.call1((awaitable,))
}

/// An awaitable for `fut`: already done when its first poll finishes it,
/// else an asyncio future of the running loop.
pub(crate) fn awaitable<F, T>(py: Python<'_>, fut: F) -> PyResult<Bound<'_, PyAny>>
where
    F: Future<Output = tinystore::Result<T>> + Send + 'static,
    T: for<'py> IntoPyObject<'py> + Send + 'static,
{
    let acquiring = Acquiring::new(fut);
    let first = {
        let _entered = runtime().enter();
        acquiring.poll_now()
    };
    match first {
        Poll::Ready(outcome) => {
            let result = outcome.map_err(to_py).and_then(|v| v.into_py_any(py));
            Ok(Bound::new(py, Ready(Some(result)))?.into_any())
        }
        Poll::Pending => pending(py, acquiring),
    }
}

fn pending<T>(py: Python<'_>, acquiring: Acquiring<T>) -> PyResult<Bound<'_, PyAny>>
where
    T: for<'py> IntoPyObject<'py> + Send + 'static,
{
    let event_loop = py.import("asyncio")?.call_method0("get_running_loop")?;
    let py_fut = event_loop.call_method0("create_future")?;
    let queue = loop_queue(&event_loop)?;
    let outcome: Arc<dyn Settle> = Arc::new(acquiring.clone());
    py_fut.call_method1("add_done_callback", (GiveUp(outcome.clone()),))?;
    let waker = Waiting::waker(queue, PyWeakrefReference::new(&py_fut)?.unbind(), outcome);
    // The first poll left no waker; this one leaves the loop's. The outcome
    // may have come in between.
    acquiring.settle(py, &py_fut, &waker)?;
    Ok(py_fut)
}

/// The outcome queue of `event_loop` (`tinystore._loops.waker`).
fn loop_queue(event_loop: &Bound<'_, PyAny>) -> PyResult<LoopQueue> {
    static WAKER: pyo3::sync::PyOnceLock<Py<PyAny>> = pyo3::sync::PyOnceLock::new();
    let waker = WAKER.import(event_loop.py(), "tinystore._loops", "waker")?;
    let waker = waker.call1((event_loop,))?;
    Ok(waker.cast::<LoopWaker>()?.get().queue())
}

impl<T> Settle for Acquiring<T>
where
    T: for<'py> IntoPyObject<'py> + Send + 'static,
{
    fn settle(&self, py: Python<'_>, fut: &Bound<'_, PyAny>, waker: &Waker) -> PyResult<()> {
        if fut.call_method0("done")?.is_truthy()? {
            py.detach(|| self.give_up());
            return Ok(());
        }
        let taken = {
            let _entered = runtime().enter();
            self.poll_with(waker)
        };
        match taken {
            Poll::Ready(Ok(Some(value))) => fut.call_method1("set_result", (value,)).map(drop),
            Poll::Ready(Err(err)) => fut
                .call_method1("set_exception", (to_py(err).into_value(py),))
                .map(drop),
            Poll::Ready(Ok(None)) | Poll::Pending => Ok(()),
        }
    }

    fn give_up(&self) {
        Acquiring::give_up(self)
    }
}

/// The done callback of a pending awaitable: when it was cancelled, gives
/// the acquire up now (it leaves its key's queue; a grant that crossed is
/// released).
#[pyclass(module = "tinystore._native", frozen)]
struct GiveUp(Arc<dyn Settle>);

#[pymethods]
impl GiveUp {
    fn __call__(&self, py: Python<'_>, fut: &Bound<'_, PyAny>) -> PyResult<()> {
        if fut.call_method0("cancelled")?.is_truthy()? {
            py.detach(|| self.0.give_up());
        }
        Ok(())
    }
}

/// An awaitable whose value (or error) is already there; the error is
/// raised where it is awaited.
#[pyclass(module = "tinystore._native")]
pub(crate) struct Ready(Option<PyResult<Py<PyAny>>>);

#[pymethods]
impl Ready {
    fn __await__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&mut self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let value = self.0.take().unwrap_or_else(|| Ok(py.None()))?;
        Err(PyStopIteration::new_err((value,)))
    }
}
