//! `TsAcquire`: an acquire under way. The caller waits on it from one
//! thread and may cancel it from another; cancelling drops the core's
//! acquire future (the core then leaks no lease, even when the grant and
//! the give-up cross), and a grant that arrived but was not yet taken is
//! dropped, which releases it.

use crate::error::{call, quiet, Failure, TsCode, TsError};
use crate::group::TsGroup;
use crate::held::{Held, TsHeld};
use crate::runtime::runtime;
use crate::text::{free_handle, handle, put_handle};
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::task::{Context, Poll, Waker};
use tinystore::Options;
use tokio::task::AbortHandle;

type Acquiring = Pin<Box<dyn Future<Output = tinystore::Result<Held>> + Send>>;

/// How `start` went: the key was granted at once, or the wait goes on.
pub enum Started {
    Held(TsHeld),
    Waiting(TsAcquire),
}

/// An acquire under way.
pub struct TsAcquire {
    slot: Arc<Slot>,
    task: AbortHandle,
}

enum State {
    Waiting,
    Done(tinystore::Result<Held>),
    Cancelled,
    Taken,
}

struct Slot {
    state: Mutex<State>,
    changed: Condvar,
}

impl Slot {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Keeps the outcome for the waiter; drops it (releasing a lease) when
    /// the acquire was cancelled first.
    fn finish(&self, outcome: tinystore::Result<Held>) {
        let mut state = self.lock();
        if matches!(*state, State::Waiting) {
            *state = State::Done(outcome);
            self.changed.notify_all();
        } else {
            drop(state);
            drop(outcome);
        }
    }
}

/// Starts acquiring `key` in `group`: polls once on the caller's thread
/// (the common case of a free key costs no thread switch), and when the
/// key is not free, moves the wait to a runtime task.
pub fn start(group: &TsGroup, key: String, options: Options) -> Result<Started, Failure> {
    let mut acquiring: Acquiring = match group {
        TsGroup::Locks(locks) => {
            let locks = locks.clone();
            Box::pin(async move { locks.acquire_with(key, options).await.map(Held::lease) })
        }
        TsGroup::Semaphore(semaphore) => {
            let semaphore = semaphore.clone();
            Box::pin(async move { semaphore.acquire_with(key, options).await.map(Held::permit) })
        }
    };
    let rt = runtime()?;
    let polled = {
        let _entered = rt.enter();
        acquiring
            .as_mut()
            .poll(&mut Context::from_waker(Waker::noop()))
    };
    if let Poll::Ready(outcome) = polled {
        return Ok(Started::Held(TsHeld::new(outcome?)));
    }
    let slot = Arc::new(Slot {
        state: Mutex::new(State::Waiting),
        changed: Condvar::new(),
    });
    let finisher = slot.clone();
    let task = rt.spawn(async move { finisher.finish(acquiring.await) });
    Ok(Started::Waiting(TsAcquire {
        slot,
        task: task.abort_handle(),
    }))
}

impl TsAcquire {
    fn wait(&self) -> Result<Held, Failure> {
        let mut state = self.slot.lock();
        while matches!(*state, State::Waiting) {
            state = self
                .slot
                .changed
                .wait(state)
                .unwrap_or_else(|p| p.into_inner());
        }
        match std::mem::replace(&mut *state, State::Taken) {
            State::Done(outcome) => Ok(outcome?),
            State::Cancelled => {
                *state = State::Cancelled;
                Err(Failure::new(TsCode::Cancelled, "the acquire was given up"))
            }
            State::Taken | State::Waiting => Err(Failure::new(
                TsCode::Invalid,
                "this acquire's outcome was already taken",
            )),
        }
    }

    fn cancel(&self) {
        let dropped = {
            let mut state = self.slot.lock();
            match *state {
                State::Waiting | State::Done(_) => {
                    let old = std::mem::replace(&mut *state, State::Cancelled);
                    self.slot.changed.notify_all();
                    Some(old)
                }
                State::Cancelled | State::Taken => None,
            }
        };
        self.task.abort();
        drop(dropped);
    }
}

/// Blocks until the acquire ends: writes a new `TsHeld` to `*out_held`, or
/// fails with the core's error (e.g. `TS_CODE_TIMEOUT`, `TS_CODE_CLOSED`),
/// or with `TS_CODE_CANCELLED` once `ts_acquire_cancel` was called before
/// the outcome was taken.
///
/// # Safety
/// `acquire` is a live handle; `out_held` and `err` are writable.
#[no_mangle]
pub unsafe extern "C" fn ts_acquire_wait(
    acquire: *const TsAcquire,
    out_held: *mut *mut TsHeld,
    err: *mut TsError,
) -> bool {
    // SAFETY: forwarded from the caller.
    unsafe {
        call(err, || {
            let acquire = handle(acquire, "acquire")?;
            let held = acquire.wait()?;
            put_handle(out_held, TsHeld::new(held), "held")
        })
    }
}

/// Gives the acquire up: a waiting `ts_acquire_wait` returns
/// `TS_CODE_CANCELLED`, and no lease is left held. Idempotent; does nothing
/// once the outcome was taken. May be called from any thread while another
/// waits.
///
/// # Safety
/// `acquire` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn ts_acquire_cancel(acquire: *const TsAcquire) {
    quiet((), || {
        // SAFETY: forwarded from the caller.
        if let Ok(acquire) = unsafe { handle(acquire, "acquire") } {
            acquire.cancel();
        }
    })
}

/// Cancels the acquire (see `ts_acquire_cancel`) and frees the handle.
/// NULL is ignored.
///
/// # Safety
/// `acquire` is NULL or a live handle that no other call uses now or later.
#[no_mangle]
pub unsafe extern "C" fn ts_acquire_free(acquire: *mut TsAcquire) {
    quiet((), || {
        // SAFETY: forwarded from the caller.
        if let Ok(op) = unsafe { handle(acquire, "acquire") } {
            op.cancel();
        }
        // SAFETY: forwarded from the caller.
        unsafe { free_handle(acquire) }
    })
}
