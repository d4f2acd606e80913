//! A watch on a lease: calls a Python callback once the lease is lost.
//!
//! It spawns nothing while the lease is held: the core's `lost()` future is
//! polled with a waker of the watch's own, so holding and releasing a lease
//! cost no thread hop. Only a wake (the lease's lost signal changed) polls
//! it again, on the runtime; a stopped watch ignores wakes.

use crate::ready::runtime;
use pyo3::prelude::*;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Wake, Waker};

type Lost = Pin<Box<dyn Future<Output = tinystore::Error> + Send>>;

/// A started watch; `stop` it (a release does) to call nothing.
pub(crate) struct Watch {
    stopped: AtomicBool,
    lost: Mutex<Option<Lost>>,
    callback: Mutex<Option<Py<PyAny>>>,
}

fn locked<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|p| p.into_inner())
}

impl Watch {
    /// Calls `callback()` (with the GIL, off the runtime's workers) once
    /// `lost` resolves, unless stopped first. The callback's errors are
    /// dropped: it is the package's own, and its event loop may be gone.
    pub(crate) fn start(
        lost: impl Future<Output = tinystore::Error> + Send + 'static,
        callback: Py<PyAny>,
    ) -> Arc<Watch> {
        let watch = Arc::new(Watch {
            stopped: AtomicBool::new(false),
            lost: Mutex::new(Some(Box::pin(lost))),
            callback: Mutex::new(Some(callback)),
        });
        watch.poll();
        watch
    }

    /// Stops the watch and drops the future (and with it the waker's
    /// reference back to the watch).
    pub(crate) fn stop(&self) {
        self.stopped.store(true, Ordering::SeqCst);
        drop(locked(&self.lost).take());
        drop(locked(&self.callback).take());
    }

    fn stopped(&self) -> bool {
        self.stopped.load(Ordering::SeqCst)
    }

    fn poll(self: &Arc<Self>) {
        if self.stopped() {
            return;
        }
        let mut slot = locked(&self.lost);
        let Some(lost) = slot.as_mut() else {
            return;
        };
        let waker = Waker::from(self.clone());
        if lost
            .as_mut()
            .poll(&mut Context::from_waker(&waker))
            .is_pending()
        {
            return;
        }
        *slot = None;
        drop(slot);
        let Some(callback) = locked(&self.callback).take() else {
            return;
        };
        let watch = self.clone();
        runtime().spawn_blocking(move || {
            if !watch.stopped() {
                Python::attach(|py| drop(callback.call0(py)));
            }
        });
    }
}

impl Wake for Watch {
    /// Polls again on the runtime: never inline, since the waker may be
    /// called while the lease's signal or this watch is locked.
    fn wake(self: Arc<Self>) {
        if !self.stopped() {
            runtime().spawn(async move { self.poll() });
        }
    }
}
