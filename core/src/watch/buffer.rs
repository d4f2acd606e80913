//! The bounded buffer between what brings a watch its events from
//! elsewhere (a connection's reader, an etcd watch) and the [`Watch`] that
//! reads them: [`Sink::push`] never waits, and a reader that falls
//! [`WATCH_BUFFER`] events behind gets one `Lagged` where the dropped
//! events would have been.

use super::event::WatchEvent;
use super::stream::{Watch, WATCH_BUFFER};
use crate::error::{Code, Error, Result};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Poll, Waker};

#[derive(Default)]
struct Inner {
    events: VecDeque<WatchEvent>,
    /// Events dropped since the reader last caught up.
    missed: u64,
    /// Why the watch ended, once it did: told after the events before it.
    end: Option<Error>,
    /// The reader is gone.
    dropped: bool,
    waker: Option<Waker>,
}

struct Shared(Mutex<Inner>);

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// Where a watch's events are put.
pub(crate) struct Sink {
    shared: Arc<Shared>,
}

/// The reading end of a [`Sink`], made into a [`Watch`] by [`buffer`].
pub(crate) struct Feed {
    shared: Arc<Shared>,
}

/// A new buffer: its sink, and the watch that reads it, which calls `stop`
/// when dropped.
pub(crate) fn buffer(stop: impl FnOnce() + Send + 'static) -> (Sink, Watch) {
    let shared = Arc::new(Shared(Mutex::new(Inner::default())));
    let feed = Feed {
        shared: shared.clone(),
    };
    let guard = OnDrop(Some(Box::new(stop)));
    let events =
        futures_util::stream::unfold((feed, guard, false), |(feed, guard, ended)| async move {
            if ended {
                return None;
            }
            let item = std::future::poll_fn(|cx| feed.poll_next(cx)).await;
            let ended = item.is_err();
            Some((item, (feed, guard, ended)))
        });
    (Sink { shared }, Watch::from_stream(events))
}

impl Sink {
    /// Puts `event` for the reader; a full buffer drops it and counts it.
    /// `false` when the reader is gone (stop pushing).
    pub(crate) fn push(&self, event: WatchEvent) -> bool {
        let mut inner = self.shared.lock();
        if inner.dropped {
            return false;
        }
        if inner.end.is_some() {
            return true;
        }
        // Once one was dropped, every later one is too until the reader has
        // caught up and taken its `Lagged`: events stay in order.
        if inner.missed > 0 || inner.events.len() >= WATCH_BUFFER {
            inner.missed += 1;
        } else {
            inner.events.push_back(event);
        }
        if let Some(waker) = inner.waker.take() {
            waker.wake();
        }
        true
    }

    /// Ends the watch with `reason`, after the events it holds.
    pub(crate) fn end(&self, reason: Error) {
        let mut inner = self.shared.lock();
        inner.end.get_or_insert(reason);
        if let Some(waker) = inner.waker.take() {
            waker.wake();
        }
    }
}

impl Drop for Sink {
    fn drop(&mut self) {
        self.end(Error::new(
            Code::Unavailable,
            "what brought the watch its events went away",
        ));
    }
}

impl Feed {
    fn poll_next(&self, cx: &mut std::task::Context<'_>) -> Poll<Result<WatchEvent>> {
        let mut inner = self.shared.lock();
        if let Some(event) = inner.events.pop_front() {
            return Poll::Ready(Ok(event));
        }
        if inner.missed > 0 {
            let missed = std::mem::take(&mut inner.missed);
            return Poll::Ready(Ok(WatchEvent::Lagged { missed }));
        }
        if let Some(reason) = inner.end.clone() {
            return Poll::Ready(Err(reason));
        }
        inner.waker = Some(cx.waker().clone());
        Poll::Pending
    }
}

impl Drop for Feed {
    fn drop(&mut self) {
        let mut inner = self.shared.lock();
        inner.dropped = true;
        inner.events.clear();
    }
}

/// Runs a function when dropped: how a watch stops what pushes to it.
struct OnDrop(Option<Box<dyn FnOnce() + Send>>);

impl Drop for OnDrop {
    fn drop(&mut self) {
        if let Some(stop) = self.0.take() {
            stop();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures_util::StreamExt;

    fn queue(n: u64) -> WatchEvent {
        WatchEvent::Queue {
            key: "k".into(),
            length: n,
        }
    }

    #[tokio::test]
    async fn a_reader_that_fell_behind_is_told_how_many_it_missed_in_order() {
        let (sink, mut watch) = buffer(|| {});
        let total = WATCH_BUFFER as u64 + 10;
        for n in 0..total {
            assert!(sink.push(queue(n)));
        }
        for n in 0..WATCH_BUFFER as u64 {
            assert_eq!(watch.next().await.unwrap().unwrap(), queue(n));
        }
        // Room now, but the gap comes first: later events wait for it.
        sink.push(queue(999));
        assert_eq!(
            watch.next().await.unwrap().unwrap(),
            WatchEvent::Lagged { missed: 11 }
        );
        sink.push(queue(1000));
        assert_eq!(watch.next().await.unwrap().unwrap(), queue(1000));
    }

    #[tokio::test]
    async fn the_end_comes_after_the_events_and_then_nothing() {
        let (sink, mut watch) = buffer(|| {});
        sink.push(queue(1));
        sink.end(Error::new(Code::Closed, "the store closed"));
        assert_eq!(watch.next().await.unwrap().unwrap(), queue(1));
        assert_eq!(
            watch.next().await.unwrap().unwrap_err().code(),
            Code::Closed
        );
        assert!(watch.next().await.is_none());
    }

    #[tokio::test]
    async fn dropping_the_watch_stops_its_source() {
        let stopped = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let flag = stopped.clone();
        let (sink, watch) = buffer(move || flag.store(true, std::sync::atomic::Ordering::SeqCst));
        drop(watch);
        assert!(stopped.load(std::sync::atomic::Ordering::SeqCst));
        assert!(!sink.push(queue(1)));
    }

    #[tokio::test]
    async fn a_source_gone_without_an_end_is_unavailable() {
        let (sink, mut watch) = buffer(|| {});
        drop(sink);
        assert_eq!(
            watch.next().await.unwrap().unwrap_err().code(),
            Code::Unavailable
        );
    }
}
