//! A connection's observers of elections and its watches, as streams its
//! own task polls.
//!
//! The connection's task polls them only between writes, so a client that
//! does not read its socket stops being sent changes: they wait in the
//! election's buffer of [`OBSERVE_BUFFER`](crate::OBSERVE_BUFFER), and an
//! observer that falls further behind ends with `limit`, as an embedded
//! one does; a watch that falls [`WATCH_BUFFER`](crate::WATCH_BUFFER)
//! events behind is told `lagged`. The server never buffers changes
//! without bound.

use crate::election::{Leader, Observer};
use crate::error::Result;
use crate::watch::{Watch, WatchEvent};
use futures_util::future::FutureExt;
use futures_util::stream::{BoxStream, SelectAll, StreamExt};
use std::task::{Context, Poll};
use tokio::sync::oneshot;

/// One change for the client: the id of the `observe` or `watch`, and
/// what it saw.
pub(super) type Change = (u64, Seen);

/// What an observer or a watch saw.
pub(super) enum Seen {
    /// An election's new leader, or the observer's end.
    Leader(Result<Option<Leader>>),
    /// A watch's event, or its end.
    Watch(Result<WatchEvent>),
}

/// The observers of one connection.
#[derive(Default)]
pub(super) struct Observers {
    streams: SelectAll<BoxStream<'static, Change>>,
}

impl Observers {
    /// Adds the observer of request `id`, whose first item was taken. It
    /// stops when `stop` fires (a cancel, the connection's end).
    pub(super) fn push(&mut self, id: u64, observer: Observer, stop: oneshot::Receiver<()>) {
        let changes = observer
            .map(move |change| (id, Seen::Leader(change)))
            .take_until(stop.map(|_| ()));
        self.streams.push(changes.boxed());
    }

    /// Adds the watch of request `id`. It stops when `stop` fires (a
    /// cancel, the connection's end).
    pub(super) fn push_watch(&mut self, id: u64, watch: Watch, stop: oneshot::Receiver<()>) {
        let events = watch
            .map(move |event| (id, Seen::Watch(event)))
            .take_until(stop.map(|_| ()));
        self.streams.push(events.boxed());
    }

    /// Ready with the next change of any observer. Pending (with no waker
    /// kept) when none observes: new ones come only from the connection's
    /// own task, which polls again after adding one.
    pub(super) fn poll_next(&mut self, cx: &mut Context<'_>) -> Poll<Change> {
        match self.streams.poll_next_unpin(cx) {
            Poll::Ready(Some(change)) => Poll::Ready(change),
            Poll::Ready(None) | Poll::Pending => Poll::Pending,
        }
    }

    /// The next change if one is ready now, without waiting (the waker the
    /// connection's task waits with is given again when it next waits).
    pub(super) fn ready(&mut self) -> Option<Change> {
        let mut cx = Context::from_waker(futures_util::task::noop_waker_ref());
        match self.poll_next(&mut cx) {
            Poll::Ready(change) => Some(change),
            Poll::Pending => None,
        }
    }
}
