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
    /// Drops what the store's buffer kept for this watch, counting it;
    /// `None` for a watch whose events come from elsewhere.
    skip: Option<Box<dyn Fn() -> u64 + Send + Sync>>,
}

impl Watch {
    /// A watch whose events come from `events`, which ends after its first
    /// error.
    pub(crate) fn from_stream(
        events: impl Stream<Item = Result<WatchEvent>> + Send + 'static,
    ) -> Watch {
        Watch {
            events: events.boxed(),
            skip: None,
        }
    }

    /// This watch, whose [`Watch::skip_kept`] calls `skip`.
    pub(crate) fn skipping(self, skip: impl Fn() -> u64 + Send + Sync + 'static) -> Watch {
        Watch {
            skip: Some(Box::new(skip)),
            ..self
        }
    }

    /// Drops the events the store's buffer kept for this watch and the
    /// count of those it dropped, and says how many that was: what a
    /// server tells a watch it resumes as one `lagged`, rather than send
    /// it events that are stale by then. `None` for a watch not fed by a
    /// store's engine (over a connection, on etcd), which keeps its events.
    pub(crate) fn skip_kept(&self) -> Option<u64> {
        self.skip.as_ref().map(|skip| skip())
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
