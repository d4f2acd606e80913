//! What `TsObserver` and `TsWatcher` share: the core's `Following<T>` (an
//! election's `Observing`, a group's `Watching`), its next item waited for
//! on a caller's thread, and, at the start, an item or an error already
//! there taken without waiting. Only the conversion of an item differs.

use crate::error::Outcome;
use crate::runtime::{block_on, runtime};
use std::sync::Mutex;
use std::task::Poll;
use tinystore::binding::Following;

/// A `Following<T>` with the item its start found already there, if any.
pub struct Followed<T> {
    following: Following<T>,
    first: Mutex<Option<T>>,
}

impl<T: Send + 'static> Followed<T> {
    /// Starts following with `start` inside the runtime (an embedded
    /// store's stream is subscribed on return) and looks once, without
    /// waiting, for what is there already: the error that ended it at
    /// once (a bad key, a closed store) is this call's failure.
    pub fn start(start: impl FnOnce() -> Following<T>) -> Outcome<Followed<T>> {
        let _entered = runtime()?.enter();
        let following = start();
        let first = match tinystore::binding::poll_now(std::pin::pin!(following.next())) {
            Poll::Ready(Some(item)) => Some(item?),
            Poll::Ready(None) | Poll::Pending => None,
        };
        Ok(Followed {
            following,
            first: Mutex::new(first),
        })
    }

    /// The next item, waited for on this thread; `None` once it ended
    /// (closed, or after the one error that ends it, which is this call's
    /// failure).
    pub fn next(&self) -> Outcome<Option<T>> {
        let first = self.first.lock().unwrap_or_else(|p| p.into_inner()).take();
        if let Some(item) = first {
            return Ok(Some(item));
        }
        Ok(block_on(self.following.next())?.transpose()?)
    }

    /// Stops following: a `next` blocked on another thread, and every
    /// later one, gives `None`. Idempotent.
    pub fn close(&self) {
        self.following.close();
        self.first.lock().unwrap_or_else(|p| p.into_inner()).take();
    }
}
