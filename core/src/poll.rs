//! Polling a future once, now, without blocking: the fast path of every
//! call that usually finishes at once (an embedded store's grant, release
//! or renew; the server's acquire of a free key).

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

/// Polls `future` once on this thread with a waker that does nothing, and
/// gives its output if it is ready. When it is pending, it has done all it
/// could without waiting (an acquire holds its place in its key's queue), and the
/// caller goes on polling it with a real waker (from a task, `block_on`, an
/// event loop's future): that poll registers the waker that counts.
///
/// The core's futures may use tokio's timers and I/O, so call this inside
/// the runtime they run on (`Runtime::enter`), as any poll of them must be.
pub fn poll_now<F: Future + ?Sized>(future: Pin<&mut F>) -> Poll<F::Output> {
    future.poll(&mut Context::from_waker(Waker::noop()))
}
