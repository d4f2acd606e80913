//! How an outcome reached in the runtime gets to its asyncio future: one
//! queue and one eventfd per event loop. A runtime thread puts the outcome
//! in the loop's queue and, when the queue was empty, makes the eventfd
//! readable; the loop reads the eventfd through `add_reader` and settles
//! every queued future on its own thread. So a runtime thread never takes
//! the GIL to hand an outcome over, and a burst of outcomes costs the loop
//! one wakeup.

use crate::errors::to_py;
use pyo3::prelude::*;
use pyo3::types::PyWeakrefReference;
use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::{AsRawFd, FromRawFd};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

/// What the loop does with a queued outcome: settles its future, or gives
/// the outcome up when nobody waits for it any more.
pub(crate) trait Settle: Send + Sync {
    /// Sets the outcome on `fut` (on the loop's thread, with the GIL);
    /// gives it up when `fut` was cancelled meanwhile.
    fn settle(&self, py: Python<'_>, fut: &Bound<'_, PyAny>) -> PyResult<()>;
    /// Gives the outcome up: its lease, if any, is released.
    fn give_up(&self);
}

/// A future, weakly (so that a wait whose loop was closed and dropped does
/// not keep the loop alive), and its outcome.
type Queued = (Py<PyWeakrefReference>, Arc<dyn Settle>);

/// One event loop's queue of outcomes and the eventfd that says it is not
/// empty. Cheap to clone.
#[derive(Clone)]
pub(crate) struct LoopQueue(Arc<Shared>);

struct Shared {
    eventfd: File,
    queue: Mutex<Vec<Queued>>,
    /// Set once the loop is gone: later outcomes are given up.
    closed: AtomicBool,
}

impl LoopQueue {
    fn queue(&self) -> MutexGuard<'_, Vec<Queued>> {
        self.0.queue.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Queues `outcome` for `fut` and wakes the loop if it had nothing
    /// queued; gives the outcome up when the loop is gone.
    pub(crate) fn push(&self, fut: Py<PyWeakrefReference>, outcome: Arc<dyn Settle>) {
        let was_empty = {
            let mut queue = self.queue();
            if self.0.closed.load(Ordering::SeqCst) {
                drop(queue);
                outcome.give_up();
                return;
            }
            let was_empty = queue.is_empty();
            queue.push((fut, outcome));
            was_empty
        };
        if was_empty {
            // A full counter (EAGAIN) is readable already.
            let _ = (&self.0.eventfd).write(&1u64.to_ne_bytes());
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
        // SAFETY: makes a new descriptor, owned by the File from here on.
        let fd = unsafe { libc::eventfd(0, libc::EFD_NONBLOCK | libc::EFD_CLOEXEC) };
        if fd < 0 {
            let err = std::io::Error::last_os_error();
            return Err(to_py(tinystore::Error::new(
                tinystore::Code::Io,
                format!("cannot make the event loop's wakeup eventfd: {err}"),
            )));
        }
        Ok(LoopWaker(LoopQueue(Arc::new(Shared {
            // SAFETY: `fd` is a new descriptor nothing else owns.
            eventfd: unsafe { File::from_raw_fd(fd) },
            queue: Mutex::new(Vec::new()),
            closed: AtomicBool::new(false),
        }))))
    }

    /// The eventfd the loop reads.
    fn fileno(&self) -> i32 {
        self.0 .0.eventfd.as_raw_fd()
    }

    /// Settles every queued future; the loop calls it when the eventfd is
    /// readable.
    fn drain(&self, py: Python<'_>) {
        let mut counter = [0u8; 8];
        // EAGAIN: a drain before this one took what woke it.
        let _ = (&self.0 .0.eventfd).read(&mut counter);
        let queued = std::mem::take(&mut *self.0.queue());
        for (weak, outcome) in queued {
            let Some(fut) = weak.bind(py).upgrade() else {
                // Nobody kept the future: nobody waits for the outcome.
                py.detach(|| outcome.give_up());
                continue;
            };
            if let Err(err) = outcome.settle(py, &fut) {
                // A future that refuses its result has nobody to tell.
                err.write_unraisable(py, Some(&fut));
            }
        }
    }

    /// The loop is gone: gives up what is queued and what comes later.
    fn close(&self, py: Python<'_>) {
        let queued = {
            let mut queue = self.0.queue();
            self.0 .0.closed.store(true, Ordering::SeqCst);
            std::mem::take(&mut *queue)
        };
        py.detach(|| queued.iter().for_each(|(_, outcome)| outcome.give_up()));
    }
}
