//! How an outcome reached in the runtime gets to its asyncio future: one
//! queue and one wake-up descriptor ([`tinystore_wakeup::Wakeup`]: an
//! eventfd on Linux, a pipe on other Unix systems) per event loop. A
//! pending core future's waker is a [`Waiting`]: when the runtime wakes it
//! (a reply arrived, a key was granted), it puts itself in the loop's
//! queue and, when the queue was empty, wakes the descriptor; the loop
//! waits for it through `add_reader` and polls every queued future again
//! on its own thread,
//! settling those that finished. So no task is spawned per call, a
//! runtime thread never takes the GIL to hand an outcome over, and a burst
//! of outcomes costs the loop one wakeup.

use crate::error::to_py;
use pyo3::prelude::*;
use pyo3::types::PyWeakrefReference;
use std::sync::Arc;
use std::task::{Wake, Waker};
use tinystore_wakeup::{Completions, Pushed, Wakeup};

/// What the loop does with a woken core future: polls it again with
/// `waker` and settles its asyncio future once it finished, or gives the
/// outcome up when nobody waits for it any more.
pub(crate) trait Settle: Send + Sync {
    /// Polls again (on the loop's thread, with the GIL) and sets the
    /// outcome on `fut` if there is one; gives it up when `fut` was
    /// cancelled meanwhile. Pending, `waker` is woken when it can go on.
    fn settle(&self, py: Python<'_>, fut: &Bound<'_, PyAny>, waker: &Waker) -> PyResult<()>;
    /// Gives the outcome up: its lease, if any, is released.
    fn give_up(&self);
}

/// A core future waiting for its loop: the waker it is polled with. Holds
/// the asyncio future weakly (so that a wait whose loop was closed and
/// dropped does not keep the loop alive).
pub(crate) struct Waiting {
    queue: LoopQueue,
    fut: Py<PyWeakrefReference>,
    outcome: Arc<dyn Settle>,
}

impl Waiting {
    /// The waker of `outcome`, whose asyncio future is `fut`, on `queue`'s
    /// loop.
    pub(crate) fn waker(
        queue: LoopQueue,
        fut: Py<PyWeakrefReference>,
        outcome: Arc<dyn Settle>,
    ) -> Waker {
        Waker::from(Arc::new(Waiting {
            queue,
            fut,
            outcome,
        }))
    }
}

impl Wake for Waiting {
    fn wake(self: Arc<Self>) {
        self.queue.clone().push(self);
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.queue.push(self.clone());
    }
}

type Queued = Arc<Waiting>;

/// One event loop's queue of outcomes and the wake-up that says it is not
/// empty. Cheap to clone.
#[derive(Clone)]
pub(crate) struct LoopQueue(Arc<Shared>);

struct Shared {
    wakeup: Wakeup,
    /// Closed once the loop is gone: later outcomes are given up.
    queue: Completions<Queued>,
}

impl LoopQueue {
    /// Queues `waiting` to be polled again and wakes the loop if it had
    /// nothing queued; gives the outcome up when the loop is gone. Called
    /// by the waker, so it may run inside the store's own calls (a release
    /// that grants the key to this waiter): the give-up, which drops the
    /// core's acquire, runs on a thread of its own.
    fn push(&self, waiting: Queued) {
        match self.0.queue.push(waiting) {
            Pushed::First => self.0.wakeup.wake(),
            Pushed::Behind => {}
            Pushed::Closed(waiting) => {
                crate::runtime::runtime().spawn_blocking(move || waiting.outcome.give_up());
            }
        }
    }
}

/// The Python side of a [`LoopQueue`]: `tinystore._loops` registers
/// `drain` as the reader of `fileno()` on its loop, and `close` for when
/// the loop is collected.
#[pyclass(module = "tinystore._native", frozen)]
pub(crate) struct LoopWaker(LoopQueue);

impl LoopWaker {
    pub(crate) fn queue(&self) -> LoopQueue {
        self.0.clone()
    }
}

#[pymethods]
impl LoopWaker {
    #[new]
    fn new() -> PyResult<LoopWaker> {
        let wakeup = Wakeup::new().map_err(|err| {
            let code = match err.kind() {
                std::io::ErrorKind::Unsupported => tinystore::Code::Invalid,
                _ => tinystore::Code::Io,
            };
            to_py(tinystore::Error::new(
                code,
                format!("cannot make the event loop's wake-up descriptor: {err}"),
            ))
        })?;
        Ok(LoopWaker(LoopQueue(Arc::new(Shared {
            wakeup,
            queue: Completions::new(),
        }))))
    }

    /// The descriptor the loop waits on (`add_reader`).
    fn fileno(&self) -> i32 {
        self.0 .0.wakeup.fd()
    }

    /// Polls every queued future again, settling those that finished; the
    /// loop calls it when the descriptor is readable.
    fn drain(&self, py: Python<'_>) {
        // Cleared first: a wake after it comes with a queue this drain or
        // the next one takes.
        self.0 .0.wakeup.clear();
        for waiting in self.0 .0.queue.take() {
            let Some(fut) = waiting.fut.bind(py).upgrade() else {
                // Nobody kept the future: nobody waits for the outcome.
                py.detach(|| waiting.outcome.give_up());
                continue;
            };
            let outcome = waiting.outcome.clone();
            if let Err(err) = outcome.settle(py, &fut, &Waker::from(waiting)) {
                // A future that refuses its result has nobody to tell.
                err.write_unraisable(py, Some(&fut));
            }
        }
    }

    /// The loop is gone: gives up what is queued and what comes later.
    fn close(&self, py: Python<'_>) {
        let queued = self.0 .0.queue.close();
        py.detach(|| queued.iter().for_each(|waiting| waiting.outcome.give_up()));
    }
}
