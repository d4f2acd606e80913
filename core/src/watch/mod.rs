//! Watching a key or a whole group: [`Watch`], a stream of [`WatchEvent`]s
//! (a grant with its fence and the holder's data, a release, a loss with
//! its cause, a queue's new length), from `Locks::watch`, `watch_all` and
//! their kin on `Semaphore` and `RwLocks`.
//!
//! The policy for a slow watcher: events wait for it in a buffer of
//! [`WATCH_BUFFER`]. One that falls further behind is never allowed to slow
//! the store or anyone else: the events it had no room for are dropped, and
//! it is told how many with one [`WatchEvent::Lagged`] where they would
//! have been, then goes on with the events of now. A watch starts from the
//! moment it is made (`status` tells what is held then) and ends with an
//! error: `closed` when the store closes, `unavailable` when what brought
//! its events broke (a connection to a server, an etcd watch).

mod buffer;
mod event;
mod watching;

pub(crate) use buffer::{buffer, Sink};
pub use event::WatchEvent;
pub use watching::Watching;

use crate::error::Result;
use futures_util::stream::{BoxStream, Stream, StreamExt};
use std::pin::Pin;
use std::task::{Context, Poll};

/// How many events wait for a watcher that has not taken them; one that
/// falls further behind is told [`WatchEvent::Lagged`].
pub const WATCH_BUFFER: usize = 1024;

/// The events of a watched key or group, in the store's order. Dropping it
/// stops watching.
pub struct Watch {
    events: BoxStream<'static, Result<WatchEvent>>,
}

impl Watch {
    /// A watch whose events come from `events`, which ends after its first
    /// error.
    pub(crate) fn from_stream(
        events: impl Stream<Item = Result<WatchEvent>> + Send + 'static,
    ) -> Watch {
        Watch {
            events: events.boxed(),
        }
    }

    /// The next event; `None` once the watch ended (after its error).
    pub async fn next_event(&mut self) -> Option<Result<WatchEvent>> {
        self.events.next().await
    }
}

impl Stream for Watch {
    type Item = Result<WatchEvent>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.events.poll_next_unpin(cx)
    }
}

impl std::fmt::Debug for Watch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Watch").finish_non_exhaustive()
    }
}
