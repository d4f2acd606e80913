//! `TsAcquire`: an acquire (an election's campaign, an acquire of several
//! keys at once) under way, the core's `Acquiring`. Its caller waits for it alone on its thread, or has
//! its end reported through the completion queue when other calls wait too, and
//! may give it up meanwhile; the core
//! closes the race of a grant with the give-up (no lease leaks).

use crate::completion;
use crate::error::{call, quiet, Failure, Outcome, TsCode, TsError};
use crate::lease::{put_grant, put_no_grant, Held, TsGrant};
use crate::runtime::runtime;
use crate::text::{free_handle, handle, put, put_handle, slice};
use std::future::Future;
use std::task::Poll;
use tinystore::binding::Acquiring;

/// How `start` went: the keys were granted at once, or the wait goes on.
pub enum Started {
    Held(Vec<Held>),
    Waiting(TsAcquire),
}

/// An acquire under way (the core's `Acquiring`), to wait on or give up.
/// It grants a list: one lease for a key or a campaign, a lease per key for
/// several keys at once.
pub struct TsAcquire {
    acquiring: Acquiring<Vec<Held>>,
}

/// The acquire of one lease, permit or leadership that `future` waits for,
/// as a `TsAcquire` keeps it: a list of one.
pub fn one(
    future: impl Future<Output = tinystore::Result<Held>> + Send + 'static,
) -> Acquiring<Vec<Held>> {
    Acquiring::new(async move { future.await.map(|held| vec![held]) })
}

/// Starts `acquiring` (a group's acquire, an election's campaign, an
/// acquire of several keys): polls it once on the caller's thread, so that
/// free keys cost no thread switch.
pub fn start(acquiring: Acquiring<Vec<Held>>) -> Result<Started, Failure> {
    let polled = {
        let _entered = runtime()?.enter();
        acquiring.poll_now()
    };
    match polled {
        Poll::Ready(outcome) => match outcome? {
            Some(held) => Ok(Started::Held(held)),
            // Only a give-up ends an acquire without a grant, and nothing
            // could give this one up yet.
            None => Err(tinystore::Error::new(
                tinystore::Code::Internal,
                "an acquire ended without a grant before it could be given up",
            )
            .into()),
        },
        Poll::Pending => Ok(Started::Waiting(TsAcquire { acquiring })),
    }
}

/// Starts `acquiring` and writes how it went, as `ts_group_acquire`,
/// `ts_election_campaign` and `ts_group_acquire_all` promise: a grant per
/// token to `out_grants[i]` (its loss reported with `tokens[i]`) and NULL to
/// `*out_acquire`, or empty grants and a new `TsAcquire` to `*out_acquire`.
///
/// # Safety
/// `out_grants` points to `tokens.len()` writable grants; `out_acquire`
/// is writable.
pub unsafe fn put_started(
    acquiring: Acquiring<Vec<Held>>,
    tokens: &[u64],
    out_grants: *mut TsGrant,
    out_acquire: *mut *mut TsAcquire,
) -> Outcome {
    // SAFETY: the pointers are writable, as the caller promised.
    unsafe {
        put_no_grants(out_grants, tokens.len())?;
        put(out_acquire, std::ptr::null_mut(), "acquire")?;
        match start(acquiring)? {
            Started::Held(held) => put_grants(out_grants, held, tokens),
            Started::Waiting(op) => put_handle(out_acquire, op, "acquire"),
        }
    }
}

/// Writes an empty grant to each of the `n` grants at `out`.
///
/// # Safety
/// `out` is NULL (an `invalid` failure) or points to `n` writable grants.
unsafe fn put_no_grants(out: *mut TsGrant, n: usize) -> Outcome {
    for i in 0..n {
        // SAFETY: `i < n`, as the caller promised (`put_no_grant` refuses
        // a NULL `out` at `i` = 0).
        unsafe { put_no_grant(out.wrapping_add(i))? };
    }
    Ok(())
}

/// Writes the grant of each of `held` to `out[i]`, its loss reported with
/// `tokens[i]`; an `internal` failure (all of `held` released) when the
/// core granted another number of leases than there are tokens.
///
/// # Safety
/// `out` points to `tokens.len()` writable grants.
unsafe fn put_grants(out: *mut TsGrant, held: Vec<Held>, tokens: &[u64]) -> Outcome {
    if held.len() != tokens.len() {
        return Err(Failure::new(
            TsCode::Internal,
            format!("{} leases granted for {} keys", held.len(), tokens.len()),
        ));
    }
    for (i, (held, token)) in held.into_iter().zip(tokens).enumerate() {
        // SAFETY: `i < tokens.len()`, as the caller promised.
        unsafe { put_grant(out.add(i), held, *token)? };
    }
    Ok(())
}

/// Waits for the acquire to end (or be given up with `ts_acquire_cancel`
/// from another thread) on this thread when no other call of the process
/// waits, and returns true: take it with `ts_acquire_take`. Otherwise
/// returns false at once, and `ts_done_take` reports its end with `token`
/// (no thread waits). False with `err` filled when it cannot wait.
///
/// # Safety
/// `acquire` is a live handle, not freed before this returns; `err` is
/// writable.
#[no_mangle]
pub unsafe extern "C" fn ts_acquire_wait(
    acquire: *const TsAcquire,
    token: u64,
    ended: *mut bool,
    err: *mut TsError,
) -> bool {
    // SAFETY: forwarded from the caller.
    unsafe {
        call(err, || {
            put(ended, false, "ended")?;
            let acquiring = handle(acquire, "acquire")?.acquiring.clone();
            let waited = completion::block_or_report(token, async move {
                acquiring.ready().await;
                Ok(())
            })?;
            put(ended, waited.is_some(), "ended")
        })
    }
}

/// Takes the outcome of an acquire that ended (its token came out of
/// `ts_done_take`) and frees the handle, in one call: writes its grant to
/// `*out_grant` (the loss of the lease reported with `token`, as
/// `ts_done_take` gives it), or fails with the core's error (e.g.
/// `TS_CODE_TIMEOUT`, `TS_CODE_CLOSED`). An acquire that was given up, or
/// has not ended (it is given up now), succeeds with no grant
/// (`out_grant->held` NULL), as the core's `Acquiring` gives none.
///
/// # Safety
/// `acquire` is a live handle that no other call uses now or later;
/// `out_grant` and `err` are writable.
#[no_mangle]
pub unsafe extern "C" fn ts_acquire_take(
    acquire: *mut TsAcquire,
    token: u64,
    out_grant: *mut TsGrant,
    err: *mut TsError,
) -> bool {
    // SAFETY: forwarded from the caller.
    unsafe { call(err, || take(acquire, &[token], out_grant)) }
}

/// `ts_acquire_take` for an acquire of `n` keys at once
/// (`ts_group_acquire_all`): writes the grant of the i-th key to
/// `out_grants[i]`, its loss reported with `tokens[i]`; no grant at all
/// when it was given up.
///
/// # Safety
/// `acquire` is a live handle that no other call uses now or later;
/// `tokens` points to `n` readable tokens, `out_grants` to `n` writable
/// grants; `err` is writable.
#[no_mangle]
pub unsafe extern "C" fn ts_acquire_take_all(
    acquire: *mut TsAcquire,
    tokens: *const u64,
    out_grants: *mut TsGrant,
    n: usize,
    err: *mut TsError,
) -> bool {
    // SAFETY: forwarded from the caller.
    unsafe {
        call(err, || {
            let tokens = slice(tokens, n, "tokens")?;
            take(acquire, tokens, out_grants)
        })
    }
}

/// Takes the outcome of `acquire` into a grant per token, and frees it.
///
/// # Safety
/// As for `ts_acquire_take_all`.
unsafe fn take(acquire: *mut TsAcquire, tokens: &[u64], out_grants: *mut TsGrant) -> Outcome {
    let _freed = Freed(acquire);
    // SAFETY: promised by the caller.
    unsafe { put_no_grants(out_grants, tokens.len())? };
    // SAFETY: promised by the caller.
    let acquire = unsafe { handle(acquire, "acquire")? };
    let polled = {
        let _entered = runtime()?.enter();
        acquire.acquiring.poll_now()
    };
    match polled {
        Poll::Ready(outcome) => match outcome? {
            // SAFETY: promised by the caller.
            Some(held) => unsafe { put_grants(out_grants, held, tokens) },
            None => Ok(()),
        },
        Poll::Pending => Ok(()),
    }
}

/// Frees an acquire handle when dropped, as `ts_acquire_free` does.
struct Freed(*mut TsAcquire);

impl Drop for Freed {
    fn drop(&mut self) {
        // SAFETY: promised by the caller of `ts_acquire_take`.
        unsafe { ts_acquire_free(self.0) }
    }
}

/// Gives the acquire up: the core drops it before this returns, so no
/// lease is left held, and a `ts_acquire_wait` blocked on it returns
/// (its `ts_acquire_take` then gives no grant). Idempotent; does nothing once the outcome was
/// taken. May be called from any thread while another waits.
///
/// # Safety
/// `acquire` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn ts_acquire_cancel(acquire: *const TsAcquire) {
    quiet((), || {
        // SAFETY: forwarded from the caller.
        if let Ok(acquire) = unsafe { handle(acquire, "acquire") } {
            acquire.acquiring.give_up();
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
            op.acquiring.give_up();
        }
        // SAFETY: forwarded from the caller.
        unsafe { free_handle(acquire) }
    })
}
