//! `Watch`: the events of a watched key or group, as a [`Stream`].

use super::event::WatchEvent;
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
