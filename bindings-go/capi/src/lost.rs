//! How a held lease reports its loss across the boundary: a `Watch` polls
//! the core's `lost()` future with a waker of its own, and when it ends
//! puts the lease's token in one process-wide queue. One caller thread
//! blocks in `ts_lost_wait` to drain it, so no thread waits per lease.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::task::{Context, Wake, Waker};

type Lost = Pin<Box<dyn Future<Output = tinystore::Error> + Send>>;

/// Watches one lease: reports `token` once when `lost` ends.
pub struct Watch {
    token: u64,
    lost: Mutex<Option<Lost>>,
}

impl Watch {
    /// A watch that has not polled yet; call `start`.
    pub fn new(token: u64, lost: Lost) -> Arc<Watch> {
        // Unconstrained: a wake from inside a runtime task whose budget ran
        // out must not make the poll wake itself again while it holds the lock.
        Arc::new(Watch {
            token,
            lost: Mutex::new(Some(Box::pin(tokio::task::unconstrained(lost)))),
        })
    }

    fn slot(&self) -> MutexGuard<'_, Option<Lost>> {
        self.lost.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Polls once, registering this watch's waker.
    pub fn start(self: &Arc<Self>) {
        self.poll();
    }

    /// Stops the watch: nothing is reported after it returns.
    pub fn stop(&self) {
        let lost = self.slot().take();
        drop(lost);
    }

    fn poll(self: &Arc<Self>) {
        let mut slot = self.slot();
        let Some(lost) = slot.as_mut() else {
            return;
        };
        let waker = Waker::from(self.clone());
        if lost
            .as_mut()
            .poll(&mut Context::from_waker(&waker))
            .is_ready()
        {
            *slot = None;
            drop(slot);
            QUEUE.push(self.token);
        }
    }
}

impl Wake for Watch {
    fn wake(self: Arc<Self>) {
        self.poll();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.poll();
    }
}

struct Queue {
    tokens: Mutex<Vec<u64>>,
    ready: Condvar,
}

static QUEUE: Queue = Queue {
    tokens: Mutex::new(Vec::new()),
    ready: Condvar::new(),
};

impl Queue {
    fn lock(&self) -> MutexGuard<'_, Vec<u64>> {
        self.tokens.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn push(&self, token: u64) {
        self.lock().push(token);
        self.ready.notify_all();
    }
}

/// Blocks until at least one lost lease was reported, then writes up to
/// `cap` tokens (as given to `ts_held_watch`) to `out` and returns how many.
/// Returns 0 at once when `out` is NULL or `cap` is 0.
///
/// # Safety
/// `out` is NULL or points to `cap` writable `u64`s.
#[no_mangle]
pub unsafe extern "C" fn ts_lost_wait(out: *mut u64, cap: usize) -> usize {
    crate::error::quiet(0, || {
        if out.is_null() || cap == 0 {
            return 0;
        }
        let mut tokens = QUEUE.lock();
        while tokens.is_empty() {
            tokens = QUEUE.ready.wait(tokens).unwrap_or_else(|p| p.into_inner());
        }
        let n = tokens.len().min(cap);
        for (i, token) in tokens.drain(..n).enumerate() {
            // SAFETY: `i < cap`, promised writable by the caller.
            unsafe { out.add(i).write(token) };
        }
        n
    })
}
