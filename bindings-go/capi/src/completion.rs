//! How a call that waits for a reply completes without blocking a caller's
//! thread. The call polls its future once on the caller's thread; when that
//! is not enough, the future goes on as a task of the runtime, which at its
//! end puts the caller's token and result in one process-wide queue and,
//! when the queue was empty, wakes one descriptor
//! ([`tinystore_wakeup::Wakeup`]: an eventfd on Linux, a pipe on other
//! Unix systems). The Go side waits for it through its netpoller (no
//! thread of its own waits for it), reads it and drains the queue with
//! `ts_done_take`. A held lease's loss (the core's `on_lost`) comes the
//! same way, as a `TsDone` of kind `TS_DONE_KIND_LOST` with the token given
//! with its grant: one queue, one descriptor, one goroutine for both.
//!
//! A call that finds no other call of the process waiting blocks its own
//! thread instead: one caller alone gains nothing from the queue, and the
//! thread is woken straight from the runtime, without the hops through the
//! descriptor, the netpoller and a second goroutine.

use crate::error::{fill, quiet, Failure, Outcome, TsCode, TsError};
use crate::runtime::runtime;
use std::future::Future;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;
use std::task::Poll;
use tinystore_wakeup::{Completions, Pushed, Wakeup};

/// What a `TsDone` reports.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TsDoneKind {
    /// A call that went on in the runtime ended: `token` is the call's.
    Call = 0,
    /// A held lease was lost: `token` is the one given with its grant.
    Lost = 1,
}

/// A finished call, or a lost lease: the token its caller gave, and for a
/// call how it ended (`ok` false with `err` filled on failure; free `err`
/// with `ts_error_clear`).
#[repr(C)]
pub struct TsDone {
    pub kind: TsDoneKind,
    pub token: u64,
    pub ok: bool,
    pub err: TsError,
}

/// The calls that ended and the leases lost, for `ts_done_take` (the
/// completion queue every binding uses; never closed: the process is its
/// owner).
static QUEUE: Completions<(TsDoneKind, u64, Outcome)> = Completions::new();
static WAKEUP: OnceLock<Result<Wakeup, String>> = OnceLock::new();
/// How many calls wait now, blocked on their thread or going on in the
/// runtime.
static WAITING: AtomicUsize = AtomicUsize::new(0);

/// One call waiting, counted in `WAITING` until dropped.
struct Waiting;

impl Waiting {
    /// Counts one more waiting call; `true` when it is the only one.
    fn begin() -> (Waiting, bool) {
        (Waiting, WAITING.fetch_add(1, Ordering::SeqCst) == 0)
    }
}

impl Drop for Waiting {
    fn drop(&mut self) {
        WAITING.fetch_sub(1, Ordering::SeqCst);
    }
}

/// The wake-up descriptor, made at first use (non-blocking, closed on
/// exec).
fn wakeup() -> Outcome<&'static Wakeup> {
    let made = WAKEUP.get_or_init(|| Wakeup::new().map_err(|e| e.to_string()));
    made.as_ref().map_err(|e| {
        Failure::new(
            TsCode::Io,
            format!("cannot make the completion wake-up descriptor: {e}"),
        )
    })
}

/// Puts the end of the call `token` in the queue, and wakes the
/// descriptor when the queue was empty (a reader drains it all after each
/// read, so one wake per batch is enough).
fn report(token: u64, result: Outcome) {
    push(TsDoneKind::Call, token, result)
}

/// Reports the loss of the lease granted with `token`, through the same
/// queue as the calls' ends.
pub fn report_lost(token: u64) {
    push(TsDoneKind::Lost, token, Ok(()))
}

fn push(kind: TsDoneKind, token: u64, result: Outcome) {
    if matches!(QUEUE.push((kind, token, result)), Pushed::First) {
        if let Ok(wakeup) = wakeup() {
            wakeup.wake();
        }
    }
}

/// Runs `future`: polled once now, on this thread (a future that is ready
/// at once costs no thread switch); if pending, to its end on this thread
/// when no other call waits, else as a task of the runtime that reports
/// its end with `token`. `Some` with the result when it ended here; `None`
/// when it goes on.
pub fn finish<F>(token: u64, future: F) -> Outcome<Option<Outcome>>
where
    F: Future<Output = Outcome> + Send + 'static,
{
    let rt = runtime()?;
    wakeup()?;
    let mut future = Box::pin(future);
    let polled = {
        let _entered = rt.enter();
        tinystore::binding::poll_now(future.as_mut())
    };
    match polled {
        Poll::Ready(result) => Ok(Some(result)),
        Poll::Pending => block_or_report(token, future),
    }
}

/// Waits for `future` on this thread when no other call waits (`Some`
/// with its output), else reports `token` from a task of the runtime once
/// it ends (`None`).
pub fn block_or_report<F>(token: u64, future: F) -> Outcome<Option<Outcome>>
where
    F: Future<Output = Outcome> + Send + 'static,
{
    let rt = runtime()?;
    wakeup()?;
    let (waiting, alone) = Waiting::begin();
    if alone {
        let output = rt.block_on(future);
        drop(waiting);
        return Ok(Some(output));
    }
    rt.spawn(async move {
        let result = future.await;
        drop(waiting);
        report(token, result)
    });
    Ok(None)
}

/// The descriptor that is readable when the queue has calls that ended
/// (an eventfd on Linux, a pipe's read end elsewhere): read it (up to 64
/// bytes at a time; an eventfd needs at least 8) and then drain the queue
/// with `ts_done_take`. -1 with `err` filled when it cannot be made. It
/// stays open for the life of the process.
///
/// # Safety
/// `err` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn ts_done_fd(err: *mut TsError) -> i32 {
    match wakeup() {
        Ok(wakeup) => wakeup.fd(),
        Err(failure) => {
            // SAFETY: forwarded from the caller.
            unsafe { fill(err, failure) };
            -1
        }
    }
}

/// Writes up to `cap` calls that ended and leases lost to `out`, oldest
/// first, without waiting, and returns how many (0 when none, or when
/// `out` is NULL or `cap` is 0).
///
/// # Safety
/// `out` is NULL or points to `cap` writable `TsDone`s.
#[no_mangle]
pub unsafe extern "C" fn ts_done_take(out: *mut TsDone, cap: usize) -> usize {
    quiet(0, || {
        if out.is_null() || cap == 0 {
            return 0;
        }
        let taken = QUEUE.take_up_to(cap);
        let n = taken.len();
        for (i, (kind, token, result)) in taken.into_iter().enumerate() {
            // SAFETY: `i < cap`, promised writable by the caller.
            let slot = unsafe { out.add(i) };
            let mut done = TsDone {
                kind,
                token,
                ok: result.is_ok(),
                err: TsError {
                    code: TsCode::Ok,
                    message: std::ptr::null_mut(),
                },
            };
            if let Err(failure) = result {
                // SAFETY: a live local.
                unsafe { fill(&mut done.err, failure) };
            }
            // SAFETY: as above.
            unsafe { slot.write(done) };
        }
        n
    })
}
