//! How a held lease reports its loss across the boundary: the core's
//! `on_lost` puts the lease's token in one process-wide queue, and one
//! caller thread blocks in `ts_lost_wait` to drain it, so no thread waits
//! per lease.

use std::sync::{Condvar, Mutex, MutexGuard};

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
}

/// Reports `token` to the caller of `ts_lost_wait`.
pub fn report(token: u64) {
    QUEUE.lock().push(token);
    QUEUE.ready.notify_all();
}

/// Blocks until at least one lost lease was reported, then writes up to
/// `cap` tokens (as given with the grant of the lease) to `out` and returns
/// how many.
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
