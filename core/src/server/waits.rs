//! The acquires of one connection that wait in line, polled by the
//! connection's own task: a grant wakes that task directly, and closing the
//! connection drops them, which gives up their places without leaking.

use crate::engine::Grant;
use crate::error::Result;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

pub(super) type Waiting = Pin<Box<dyn Future<Output = Result<Grant>> + Send>>;

/// One waiting acquire: its request id, what it waits for, and the wait.
struct Pending {
    id: u64,
    what: String,
    waiting: Waiting,
}

/// The most waits a connection's task polls itself; past it, each further
/// wait gets a task of its own, so that a wake never polls more than this.
pub(super) const POLLED_HERE: usize = 32;

/// The waiting acquires of a connection.
#[derive(Default)]
pub(super) struct Waits {
    pending: Vec<Pending>,
}

/// An acquire that finished waiting: its id, what it waited for, and how.
pub(super) type Finished = (u64, String, Result<Grant>);

impl Waits {
    /// Adds a wait that was polled once already and is still pending; gives
    /// it back when there are `POLLED_HERE` already.
    pub fn push(&mut self, id: u64, what: String, waiting: Waiting) -> Option<(String, Waiting)> {
        if self.pending.len() >= POLLED_HERE {
            return Some((what, waiting));
        }
        self.pending.push(Pending { id, what, waiting });
        None
    }

    /// Polls every wait; ready with the first that finished. Pending (with
    /// no waker kept) when there are none: new ones come only from the
    /// connection's own task, which polls again after adding one.
    pub fn poll_next(&mut self, cx: &mut Context<'_>) -> Poll<Finished> {
        for i in 0..self.pending.len() {
            if let Poll::Ready(outcome) = self.pending[i].waiting.as_mut().poll(cx) {
                let done = self.pending.swap_remove(i);
                return Poll::Ready((done.id, done.what, outcome));
            }
        }
        Poll::Pending
    }
}
