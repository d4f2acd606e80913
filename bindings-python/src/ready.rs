//! Core futures as Python awaitables, without blocking the event loop.
//!
//! A future is polled once right away: most embedded calls finish there,
//! and the awaitable is then already done, with no thread hop. Otherwise it
//! goes on on the tokio runtime and completes an asyncio future through
//! `loop.call_soon_threadsafe`. Cancelling that asyncio future drops the
//! core future at once, on the event loop's thread, so a cancelled
//! `acquire` has left its line (or released what it was granted) before the
//! cancelled task runs again.

use pyo3::exceptions::PyStopIteration;
use pyo3::prelude::*;
use pyo3::IntoPyObjectExt;
use std::future::{poll_fn, Future};
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::task::{Context, Poll, Waker};
use tokio::runtime::Runtime;
use tokio::task::AbortHandle;

/// The tokio runtime every core future runs on.
pub(crate) fn runtime() -> &'static Runtime {
    static RUNTIME: OnceLock<Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .thread_name("tinystore")
            .enable_all()
            .build()
            .expect("cannot start the tinystore runtime")
    })
}

/// Runs `fut` to its end on the runtime with the GIL released: the sync API.
pub(crate) fn block_on<T: Send>(py: Python<'_>, fut: impl Future<Output = T> + Send) -> T {
    py.detach(|| runtime().block_on(fut))
}

type Boxed<T> = Pin<Box<dyn Future<Output = PyResult<T>> + Send>>;

/// Where a pending awaitable's core future is: running on the runtime,
/// finished with a result not yet handed to Python, or gone (handed over,
/// or dropped because the asyncio future was cancelled).
enum State<T> {
    Running(Boxed<T>),
    Finished(PyResult<T>),
    Gone,
}

struct Slot<T>(Mutex<State<T>>);

impl<T> Slot<T> {
    fn lock(&self) -> MutexGuard<'_, State<T>> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Polls the running future; true once it finished, false if it is gone.
    fn poll_running(&self, cx: &mut Context<'_>) -> Poll<bool> {
        let mut state = self.lock();
        let State::Running(fut) = &mut *state else {
            return Poll::Ready(false);
        };
        let result = std::task::ready!(fut.as_mut().poll(cx));
        *state = State::Finished(result);
        Poll::Ready(true)
    }
}

/// What the Python-side callbacks do with a slot, whatever its `T`.
trait Outcome: Send + Sync {
    /// Takes the finished result, as a Python value.
    fn take(&self, py: Python<'_>) -> Option<PyResult<Py<PyAny>>>;
    /// Drops the future or its result: a lease in it is released.
    fn abandon(&self);
}

impl<T> Outcome for Slot<T>
where
    T: for<'py> IntoPyObject<'py> + Send,
{
    fn take(&self, py: Python<'_>) -> Option<PyResult<Py<PyAny>>> {
        match std::mem::replace(&mut *self.lock(), State::Gone) {
            State::Finished(result) => Some(result.and_then(|v| v.into_py_any(py))),
            _ => None,
        }
    }

    fn abandon(&self) {
        let _entered = runtime().enter();
        let gone = std::mem::replace(&mut *self.lock(), State::Gone);
        drop(gone);
    }
}

/// `awaitable` wrapped in a coroutine (`tinystore._coro.as_coroutine`), for
/// methods that Python code may hand to `asyncio.create_task`.
pub(crate) fn coroutine<'py>(awaitable: Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    static WRAP: pyo3::sync::PyOnceLock<Py<PyAny>> = pyo3::sync::PyOnceLock::new();
    let py = awaitable.py();
    let wrap = WRAP.get_or_try_init(py, || {
        let module = py.import("tinystore._coro")?;
        module.getattr("as_coroutine").map(Bound::unbind)
    })?;
    wrap.bind(py).call1((awaitable,))
}

/// An awaitable for `fut`: already done when its first poll finishes it,
/// else an asyncio future of the running loop.
pub(crate) fn awaitable<F, T>(py: Python<'_>, fut: F) -> PyResult<Bound<'_, PyAny>>
where
    F: Future<Output = PyResult<T>> + Send + 'static,
    T: for<'py> IntoPyObject<'py> + Send + 'static,
{
    let mut fut: Boxed<T> = Box::pin(fut);
    let first = {
        let _entered = runtime().enter();
        fut.as_mut().poll(&mut Context::from_waker(Waker::noop()))
    };
    match first {
        Poll::Ready(result) => {
            let result = result.and_then(|value| value.into_py_any(py));
            Ok(Bound::new(py, Ready(Some(result)))?.into_any())
        }
        Poll::Pending => pending(py, fut),
    }
}

fn pending<T>(py: Python<'_>, fut: Boxed<T>) -> PyResult<Bound<'_, PyAny>>
where
    T: for<'py> IntoPyObject<'py> + Send + 'static,
{
    let event_loop = py.import("asyncio")?.call_method0("get_running_loop")?;
    let py_fut = event_loop.call_method0("create_future")?;
    let slot: Arc<Slot<T>> = Arc::new(Slot(Mutex::new(State::Running(fut))));
    let (driven, loop_ref, fut_ref) = (slot.clone(), event_loop.unbind(), py_fut.clone().unbind());
    let task = runtime().spawn(async move {
        if poll_fn(|cx| driven.poll_running(cx)).await {
            settle_later(loop_ref, fut_ref, driven);
        }
    });
    let cancel = Cancel {
        slot,
        task: task.abort_handle(),
    };
    py_fut.call_method1("add_done_callback", (cancel,))?;
    Ok(py_fut)
}

/// Asks the event loop to set the finished result on `fut`.
fn settle_later(event_loop: Py<PyAny>, fut: Py<PyAny>, slot: Arc<dyn Outcome>) {
    tokio::task::spawn_blocking(move || {
        Python::attach(|py| {
            let settle = Settle {
                fut,
                slot: slot.clone(),
            };
            // A closed loop has nobody waiting: the result is dropped.
            if event_loop
                .call_method1(py, "call_soon_threadsafe", (settle,))
                .is_err()
            {
                py.detach(|| slot.abandon());
            }
        })
    });
}

/// Sets a finished result on an asyncio future, on its loop; drops it if
/// the future was cancelled meanwhile.
#[pyclass(module = "tinystore._native", frozen)]
struct Settle {
    fut: Py<PyAny>,
    slot: Arc<dyn Outcome>,
}

#[pymethods]
impl Settle {
    fn __call__(&self, py: Python<'_>) -> PyResult<()> {
        let fut = self.fut.bind(py);
        if fut.call_method0("done")?.is_truthy()? {
            py.detach(|| self.slot.abandon());
            return Ok(());
        }
        match self.slot.take(py) {
            Some(Ok(value)) => fut.call_method1("set_result", (value,)).map(drop),
            Some(Err(err)) => fut
                .call_method1("set_exception", (err.into_value(py),))
                .map(drop),
            None => Ok(()),
        }
    }
}

/// The done callback of a pending awaitable: when it was cancelled, drops
/// the core future (or its unclaimed result) now, and stops its task.
#[pyclass(module = "tinystore._native", frozen)]
struct Cancel {
    slot: Arc<dyn Outcome>,
    task: AbortHandle,
}

#[pymethods]
impl Cancel {
    fn __call__(&self, py: Python<'_>, fut: &Bound<'_, PyAny>) -> PyResult<()> {
        if fut.call_method0("cancelled")?.is_truthy()? {
            py.detach(|| self.slot.abandon());
            self.task.abort();
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
