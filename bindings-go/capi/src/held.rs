//! `TsHeld`: a held lease (with a fence) or permit (without).

use crate::error::{call, fill, quiet, Failure, TsError};
use crate::fence::TsFence;
use crate::lost::report;
use crate::runtime::block_on;
use crate::text::{free_handle, handle};
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};
use tinystore::{Lease, OnLost, Permit};

/// A held lease or permit of the core.
pub enum Held {
    Lease(Arc<Lease>),
    Permit(Arc<Permit>),
}

/// Forwards a method call to the lease or permit inside a `Held`.
macro_rules! either {
    ($held:expr, $h:ident => $body:expr) => {
        match $held {
            Held::Lease($h) => $body,
            Held::Permit($h) => $body,
        }
    };
}

impl Held {
    /// A lease of a lock.
    pub fn lease(lease: Lease) -> Held {
        Held::Lease(Arc::new(lease))
    }

    /// A permit of a semaphore.
    pub fn permit(permit: Permit) -> Held {
        Held::Permit(Arc::new(permit))
    }

    /// A future that ends when the lease is lost (or released).
    fn lost(&self) -> Pin<Box<dyn Future<Output = tinystore::Error> + Send>> {
        either!(self, h => {
            let h = h.clone();
            Box::pin(async move { h.lost().await })
        })
    }
}

/// A held lease or permit, and the callback that reports its loss.
pub struct TsHeld {
    held: Held,
    watch: Mutex<Option<OnLost>>,
}

impl TsHeld {
    pub(crate) fn new(held: Held) -> TsHeld {
        TsHeld {
            held,
            watch: Mutex::new(None),
        }
    }

    /// Stops reporting the loss of this lease.
    fn unwatch(&self) {
        let watch = self.watch.lock().unwrap_or_else(|p| p.into_inner()).take();
        if let Some(watch) = watch {
            watch.cancel();
        }
    }
}

impl Drop for TsHeld {
    fn drop(&mut self) {
        self.unwatch();
    }
}

/// Writes the lease's fence to `*out` and returns true; returns false,
/// writing nothing, for a permit (which has no fence).
///
/// # Safety
/// `held` is a live handle; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn ts_held_fence(held: *const TsHeld, out: *mut TsFence) -> bool {
    quiet(false, || {
        // SAFETY: forwarded from the caller.
        match (unsafe { handle(held, "held") }, out.is_null()) {
            (
                Ok(TsHeld {
                    held: Held::Lease(lease),
                    ..
                }),
                false,
            ) => {
                // SAFETY: `out` is writable, promised by the caller.
                unsafe { out.write(lease.fence().into()) };
                true
            }
            _ => false,
        }
    })
}

/// Reports the loss of the lease (it ran out, its store closed, its
/// connection broke) by putting `token` in the queue `ts_lost_wait`
/// drains, once. A release through `ts_held_release` or `ts_held_free`
/// stops the report. A second call replaces the first token.
///
/// # Safety
/// `held` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn ts_held_watch(held: *const TsHeld, token: u64) {
    quiet((), || {
        // SAFETY: forwarded from the caller.
        let Ok(held) = (unsafe { handle(held, "held") }) else {
            return;
        };
        held.unwatch();
        let watch = either!(&held.held, h => h.on_lost(move |_| report(token)));
        *held.watch.lock().unwrap_or_else(|p| p.into_inner()) = Some(watch);
    })
}

/// Whether it is still held: false once released, run out, or lost with
/// its store or connection; then `err` (when not NULL) gets the reason.
///
/// # Safety
/// `held` is a live handle; `err` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn ts_held_check(held: *const TsHeld, err: *mut TsError) -> bool {
    quiet(false, || {
        // SAFETY: forwarded from the caller.
        let Ok(held) = (unsafe { handle(held, "held") }) else {
            return false;
        };
        if either!(&held.held, h => h.is_held()) {
            return true;
        }
        let mut lost = held.held.lost();
        if let Poll::Ready(reason) = lost.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
            // SAFETY: forwarded from the caller.
            unsafe { fill(err, Failure::from(reason)) };
        }
        false
    })
}

/// Extends the lease by its TTL from now; fails with `TS_CODE_LEASE_LOST`,
/// changing nothing, when it already ran out or was released.
///
/// # Safety
/// `held` is a live handle; `err` is writable.
#[no_mangle]
pub unsafe extern "C" fn ts_held_renew(held: *const TsHeld, err: *mut TsError) -> bool {
    // SAFETY: forwarded from the caller.
    unsafe {
        call(err, || {
            let held = handle(held, "held")?;
            either!(&held.held, h => block_on(h.renew()))??;
            Ok(())
        })
    }
}

/// Releases the lease and stops its loss report. Idempotent; fails with
/// `TS_CODE_LEASE_LOST` when it ran out before this first release.
///
/// # Safety
/// `held` is a live handle; `err` is writable.
#[no_mangle]
pub unsafe extern "C" fn ts_held_release(held: *const TsHeld, err: *mut TsError) -> bool {
    // SAFETY: forwarded from the caller.
    unsafe {
        call(err, || {
            let held = handle(held, "held")?;
            either!(&held.held, h => block_on(h.release()))??;
            Ok(())
        })
    }
}

/// Frees the handle, releasing the lease if it is still held. NULL is
/// ignored.
///
/// # Safety
/// `held` is NULL or a live handle that no other call uses now or later.
#[no_mangle]
pub unsafe extern "C" fn ts_held_free(held: *mut TsHeld) {
    // SAFETY: forwarded from the caller.
    quiet((), || unsafe { free_handle(held) })
}
