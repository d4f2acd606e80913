//! Futures a connection's own task polls: its acquires waiting in line. A
//! grant then wakes that task directly, with no task of its own; closing
//! the connection drops them (a dropped wait gives up its place without
//! leaking).

use crate::engine::Granted;
use crate::error::Result;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

/// The most futures of one kind a connection's task polls itself; past it,
/// each further one gets a task of its own, so that a wake never polls more
/// than this many.
pub(super) const POLLED_HERE: usize = 32;

/// A boxed future the connection polls.
pub(super) type Boxed<T> = Pin<Box<dyn Future<Output = T> + Send>>;

/// Futures keyed by `K`, polled by the connection's task.
pub(super) struct Polled<K, T> {
    pending: Vec<(K, Boxed<T>)>,
}

impl<K, T> Default for Polled<K, T> {
    fn default() -> Self {
        Polled {
            pending: Vec::new(),
        }
    }
}

/// An acquire waiting: its request id and what it waits for.
pub(super) type Waits = Polled<(u64, String), Result<Granted>>;

impl<K, T> Polled<K, T> {
    /// Adds a future; gives it back when `POLLED_HERE` are polled here
    /// already. The caller polls it once before (or spawns it).
    pub fn push(&mut self, key: K, future: Boxed<T>) -> Option<(K, Boxed<T>)> {
        if self.pending.len() >= POLLED_HERE {
            return Some((key, future));
        }
        self.pending.push((key, future));
        None
    }

    /// Polls every future; ready with the first that finished. Pending (with
    /// no waker kept) when there are none: new ones come only from the
    /// connection's own task, which polls again after adding one.
    pub fn poll_next(&mut self, cx: &mut Context<'_>) -> Poll<(K, T)> {
        for i in 0..self.pending.len() {
            if let Poll::Ready(out) = self.pending[i].1.as_mut().poll(cx) {
                let (key, _) = self.pending.swap_remove(i);
                return Poll::Ready((key, out));
            }
        }
        Poll::Pending
    }
}
