//! `TsAcquire`: an acquire under way. The caller waits on it from one
//! thread and may cancel it from another; cancelling drops the core's
//! acquire future before it returns (the core then leaks no lease, even
//! when the grant and the give-up cross).

use crate::error::{call, quiet, Failure, TsCode, TsError};
use crate::group::TsGroup;
use crate::held::{Held, TsHeld};
use crate::runtime::runtime;
use crate::text::{free_handle, handle, put_handle};
use std::future::{poll_fn, Future};
use std::pin::Pin;
use std::sync::{Mutex, MutexGuard};
use std::task::{Context, Poll, Waker};
use tinystore::Options;

type Acquiring = Pin<Box<dyn Future<Output = tinystore::Result<Held>> + Send>>;

/// How `start` went: the key was granted at once, or the wait goes on.
pub enum Started {
    Held(TsHeld),
    Waiting(TsAcquire),
}

/// An acquire under way: the core's future, until it ends or is given up.
pub struct TsAcquire {
    state: Mutex<State>,
}

struct State {
    /// `None` once the outcome was taken or the acquire given up.
    acquiring: Option<Acquiring>,
    /// The waiter to wake when the acquire is given up.
    waker: Option<Waker>,
}

/// Starts acquiring `key` in `group`: polls once on the caller's thread,
/// so that a free key costs no thread switch.
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
    match polled {
        Poll::Ready(outcome) => Ok(Started::Held(TsHeld::new(outcome?))),
        Poll::Pending => Ok(Started::Waiting(TsAcquire {
            state: Mutex::new(State {
                acquiring: Some(acquiring),
                waker: None,
            }),
        })),
    }
}

impl TsAcquire {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Drives the acquire on this thread until it ends or is given up.
    fn wait(&self) -> Result<Held, Failure> {
        let outcome = runtime()?.block_on(poll_fn(|cx| {
            let mut state = self.lock();
            let Some(acquiring) = state.acquiring.as_mut() else {
                return Poll::Ready(None);
            };
            match acquiring.as_mut().poll(cx) {
                Poll::Ready(outcome) => {
                    state.acquiring = None;
                    Poll::Ready(Some(outcome))
                }
                Poll::Pending => {
                    state.waker = Some(cx.waker().clone());
                    Poll::Pending
                }
            }
        }));
        match outcome {
            Some(outcome) => Ok(outcome?),
            None => Err(Failure::new(TsCode::Cancelled, "the acquire was given up")),
        }
    }

    /// Drops the core's future (under the lock, so that a waiter sees the
    /// give-up only once the drop is done) and wakes the waiter.
    fn cancel(&self) {
        let mut state = self.lock();
        state.acquiring = None;
        let waker = state.waker.take();
        drop(state);
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

/// Blocks until the acquire ends: writes a new `TsHeld` to `*out_held`, or
/// fails with the core's error (e.g. `TS_CODE_TIMEOUT`, `TS_CODE_CLOSED`),
/// or with `TS_CODE_CANCELLED` once `ts_acquire_cancel` gave it up. Call
/// it once: after the outcome was taken, it fails with `TS_CODE_CANCELLED`.
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

/// Gives the acquire up: the core's acquire is dropped before this
/// returns, so no lease is left held, and a waiting `ts_acquire_wait`
/// returns `TS_CODE_CANCELLED`. Idempotent; does nothing once the outcome
/// was taken. May be called from any thread while another waits.
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
