//! `TsHeld`: a held lease (with a fence), permit (without), or an
//! election's leadership (a lease with a value; its fence is the term).

use crate::completion;
use crate::error::{call, fill, quiet, Failure, Outcome, TsCode, TsError};
use crate::fence::TsFence;
use crate::runtime::block_on;
use crate::text::{free_handle, handle, put, utf8};
use std::sync::{Arc, Mutex};
use tinystore::binding::EndHold;
use tinystore::{Leadership, Lease, OnLost, Permit};

/// A held lease, permit or leadership of the core.
pub enum Held {
    Lease(Arc<Lease>),
    Permit(Arc<Permit>),
    Leadership(Arc<Leadership>),
}

/// Forwards a method call to the lease, permit or leadership inside a
/// `Held`.
macro_rules! either {
    ($held:expr, $h:ident => $body:expr) => {
        match $held {
            Held::Lease($h) => $body,
            Held::Permit($h) => $body,
            Held::Leadership($h) => $body,
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

    /// An election's leadership.
    pub fn leadership(leadership: Leadership) -> Held {
        Held::Leadership(Arc::new(leadership))
    }

    /// Gives it back: a lease's or permit's release, a leadership's resign.
    async fn release(&self) -> tinystore::Result<()> {
        match self {
            Held::Lease(h) => h.release().await,
            Held::Permit(h) => h.release().await,
            Held::Leadership(h) => h.resign().await,
        }
    }

    /// The core's end of a hold: `EndHold::end_hold` of a lease, permit
    /// or leadership.
    async fn end_hold(&self, body_ok: bool, cancelled_by_loss: bool) -> tinystore::Result<()> {
        match self {
            Held::Lease(h) => h.end_hold(body_ok, cancelled_by_loss).await,
            Held::Permit(h) => h.end_hold(body_ok, cancelled_by_loss).await,
            Held::Leadership(h) => h.end_hold(body_ok, cancelled_by_loss).await,
        }
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

    /// The lease, permit or leadership held.
    pub(crate) fn held(&self) -> &Held {
        &self.held
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

/// A lease, permit or leadership as a caller needs it once it is granted:
/// its handle, and the fence (a leadership's is its term; `has_fence` is
/// false for a permit, which has none), in one answer.
#[repr(C)]
#[derive(Debug)]
pub struct TsGrant {
    /// The new handle, NULL until a grant.
    pub held: *mut TsHeld,
    pub has_fence: bool,
    pub fence: TsFence,
}

impl TsHeld {
    /// Starts reporting the loss of the lease (it ran out, its store
    /// closed, its connection broke) by putting `token` in the queue
    /// `ts_done_take` gives (`TS_DONE_KIND_LOST`), once; a release or free stops the report.
    fn watch(&self, token: u64) {
        let watch = either!(&self.held, h => h.on_lost(move |_| completion::report_lost(token)));
        *self.watch.lock().unwrap_or_else(|p| p.into_inner()) = Some(watch);
    }
}

/// Writes the grant of `held` to `*out`: a new handle whose loss is
/// reported with `token` (see `TsHeld::watch`), and its fence.
///
/// # Safety
/// `out` is NULL (an `invalid` failure, `held` released) or writable.
pub unsafe fn put_grant(out: *mut TsGrant, held: Held, token: u64) -> Outcome {
    if out.is_null() {
        return Err(Failure::new(TsCode::Invalid, "grant out-parameter is NULL"));
    }
    let fence = match &held {
        Held::Lease(lease) => Some(TsFence::from(lease.fence())),
        Held::Leadership(leadership) => Some(TsFence::from(leadership.fence())),
        Held::Permit(_) => None,
    };
    let held = TsHeld::new(held);
    held.watch(token);
    let grant = TsGrant {
        held: Box::into_raw(Box::new(held)),
        has_fence: fence.is_some(),
        fence: fence.unwrap_or_default(),
    };
    // SAFETY: promised by the caller.
    unsafe { out.write(grant) };
    Ok(())
}

/// Writes an empty grant (no handle) to `*out`.
///
/// # Safety
/// `out` is NULL (an `invalid` failure) or writable.
pub unsafe fn put_no_grant(out: *mut TsGrant) -> Outcome {
    let empty = TsGrant {
        held: std::ptr::null_mut(),
        has_fence: false,
        fence: TsFence::default(),
    };
    // SAFETY: forwarded from the caller.
    unsafe { put(out, empty, "grant") }
}

/// Whether it is still held: false once released, run out, or lost with
/// its store or connection. When it was lost, `err` (when not NULL) gets
/// the core's `lost_reason`: `TS_CODE_CLOSED` (its store closed) or
/// `TS_CODE_LEASE_LOST` (it ran out, its connection broke); nothing is
/// written when its holder released it.
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
        if let Some(reason) = either!(&held.held, h => h.lost_reason()) {
            // SAFETY: forwarded from the caller.
            unsafe { fill(err, Failure::from(reason)) };
        }
        false
    })
}

/// Tells the lease's store that a guard refused a write under it to the
/// resource at (`resource`, `len`) as stale, for the store to count per
/// group: the core's `Lease::report_refused`. Never blocks nor fails: a
/// served store is sent a message nobody answers; nothing happens for a
/// permit, a leadership, a resource that is not UTF-8, or a NULL handle.
///
/// # Safety
/// `held` is NULL or a live handle; when `len` > 0, `resource` points to
/// `len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn ts_held_report_refused(
    held: *const TsHeld,
    resource: *const u8,
    len: usize,
) {
    quiet((), || {
        // SAFETY: forwarded from the caller.
        let (Ok(held), Ok(resource)) = (unsafe { handle(held, "held") }, unsafe {
            utf8(resource, len, "resource")
        }) else {
            return;
        };
        if let Held::Lease(lease) = &held.held {
            lease.report_refused(resource);
        }
    })
}

/// What a lease's refusal reports need once its handle is freed: the
/// lease itself, released or not. A guard given the lease can refuse a
/// write made under it after its release, and its store still counts that
/// refusal, as in every language.
pub struct TsRefusals {
    lease: Arc<Lease>,
}

/// A handle that tells the store of the lease of `held` of a guard's
/// refusals (`ts_refusals_report`), however long after `held` is released
/// and freed; free it with `ts_refusals_free`. NULL for a permit and a
/// leadership, whose refusals count nowhere, and for a NULL `held`.
///
/// # Safety
/// `held` is NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn ts_held_refusals(held: *const TsHeld) -> *mut TsRefusals {
    quiet(std::ptr::null_mut(), || {
        // SAFETY: forwarded from the caller.
        match unsafe { handle(held, "held") } {
            Ok(TsHeld {
                held: Held::Lease(lease),
                ..
            }) => Box::into_raw(Box::new(TsRefusals {
                lease: Arc::clone(lease),
            })),
            _ => std::ptr::null_mut(),
        }
    })
}

/// `ts_held_report_refused` through the lease's `TsRefusals`: tells its
/// store that a guard refused a write under it to the resource at
/// (`resource`, `len`) as stale. Never blocks nor fails; nothing happens
/// for a resource that is not UTF-8 or a NULL handle.
///
/// # Safety
/// `refusals` is NULL or a live handle; when `len` > 0, `resource` points
/// to `len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn ts_refusals_report(
    refusals: *const TsRefusals,
    resource: *const u8,
    len: usize,
) {
    quiet((), || {
        // SAFETY: forwarded from the caller.
        let (Ok(refusals), Ok(resource)) = (unsafe { handle(refusals, "refusals") }, unsafe {
            utf8(resource, len, "resource")
        }) else {
            return;
        };
        refusals.lease.report_refused(resource);
    })
}

/// Frees the handle. NULL is ignored.
///
/// # Safety
/// `refusals` is NULL or a live handle that no other call uses now or
/// later.
#[no_mangle]
pub unsafe extern "C" fn ts_refusals_free(refusals: *mut TsRefusals) {
    // SAFETY: forwarded from the caller.
    quiet((), || unsafe { free_handle(refusals) })
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

/// Releases the lease (resigns, for a leadership), stops its loss report
/// and frees the handle, in one call. Fails with `TS_CODE_CLOSED` when its store closed, with
/// `TS_CODE_LEASE_LOST` when it ran out or its connection broke (the
/// handle is freed all the same). When the release waits for a reply it
/// goes on in the runtime: `*pending` is true, the call succeeds, and
/// `ts_done_take` reports its end with `token`.
///
/// # Safety
/// `held` is a live handle that no other call uses now or later; `pending`
/// and `err` are writable.
#[no_mangle]
pub unsafe extern "C" fn ts_held_release(
    held: *mut TsHeld,
    token: u64,
    pending: *mut bool,
    err: *mut TsError,
) -> bool {
    // SAFETY: forwarded from the caller.
    unsafe {
        call(err, || {
            let held = owned(held)?;
            end(token, pending, async move {
                held.held.release().await?;
                Ok(())
            })
        })
    }
}

/// Releases the lease at the end of a hold whose body succeeded
/// (`body_ok`) or failed (`cancelled_by_loss`: with only the cancellation
/// of its context that the loss caused), and stops its loss report: the
/// core's `EndHold::end_hold`. When the body succeeded,
/// or failed only by the loss's cancellation, it fails as the hold must:
/// with `TS_CODE_CLOSED` when the store closed during the body, with
/// `TS_CODE_LEASE_LOST` when the lease ran out or its connection broke.
/// When the body failed with its own error it succeeds (the body's error
/// is the hold's).
/// Frees the handle, however it went. When the release waits for a reply
/// it goes on in the runtime: `*pending` is true, the call succeeds, and
/// `ts_done_take` reports its end (as above) with `token`.
///
/// # Safety
/// `held` is a live handle that no other call uses now or later; `pending`
/// and `err` are writable.
#[no_mangle]
pub unsafe extern "C" fn ts_held_end_hold(
    held: *mut TsHeld,
    body_ok: bool,
    cancelled_by_loss: bool,
    token: u64,
    pending: *mut bool,
    err: *mut TsError,
) -> bool {
    // SAFETY: forwarded from the caller.
    unsafe {
        call(err, || {
            let held = owned(held)?;
            end(token, pending, async move {
                held.held.end_hold(body_ok, cancelled_by_loss).await?;
                Ok(())
            })
        })
    }
}

/// Takes the handle `held` back (NULL is an `invalid` failure).
///
/// # Safety
/// `held` is NULL or a live handle that no other call uses now or later.
unsafe fn owned(held: *mut TsHeld) -> Outcome<Box<TsHeld>> {
    if held.is_null() {
        return Err(Failure::new(TsCode::Invalid, "held handle is NULL"));
    }
    // SAFETY: promised by the caller.
    Ok(unsafe { Box::from_raw(held) })
}

/// Runs the end of a lease, `future`: its result now, or `*pending` set
/// and its result reported with `token` when it must wait.
///
/// # Safety
/// `pending` is writable.
unsafe fn end(
    token: u64,
    pending: *mut bool,
    future: impl std::future::Future<Output = Outcome> + Send + 'static,
) -> Outcome {
    // SAFETY: forwarded from the caller.
    unsafe { put(pending, false, "pending")? };
    match completion::finish(token, future)? {
        Some(result) => result,
        // SAFETY: as above.
        None => unsafe { put(pending, true, "pending") },
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
