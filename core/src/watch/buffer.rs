//! The bounded buffer between what brings a watch its events (the engine,
//! a connection's reader, an etcd watch) and the [`Watch`] that reads
//! them: [`Sink::push`] never waits, and a reader that falls
//! [`WATCH_BUFFER`] events behind gets one `Lagged` where the dropped
//! events would have been.
//!
//! What a buffer holds is anything [`Buffered`]: the engine puts what it
//! knows under its lock (a shared key and a few numbers) and the reader
//! makes each [`WatchEvent`] on its own side. The engine's buffers
//! ([`buffer_of`]) keep the newest events: a full one drops its oldest,
//! and its reader is told the `Lagged` first, then the newest
//! [`WATCH_BUFFER`] (what someone watching the locks wants to see); the
//! others keep the oldest, as a connection or an etcd watch brings them in
//! order, and count the newer ones, told after them.
//!
//! A buffer made by [`buffer_pausing`] also asks its source to pause: the
//! first event it has to drop makes [`Sink::put`] answer
//! [`Pushed::Pause`] (told through [`Pauser::pause`]), and once its reader has taken half a buffer of
//! events since, or its `Lagged`, it calls its `resume`. A `Lagged` from
//! the source (what the source dropped meanwhile) joins the reader's own
//! count, so the reader is told one `Lagged` with all it missed.

use super::event::WatchEvent;
use super::stream::{Watch, WATCH_BUFFER};
use crate::error::{Code, Error, Result};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Poll, Waker};

/// What a buffer holds: an event, or the source's own count of events it
/// dropped (a `Lagged`).
pub(crate) trait Buffered: Send + 'static {
    /// The count of a source's `Lagged`; `None` for any other event.
    fn lagged(&self) -> Option<u64>;
}

impl Buffered for WatchEvent {
    fn lagged(&self) -> Option<u64> {
        match self {
            WatchEvent::Lagged { missed } => Some(*missed),
            _ => None,
        }
    }
}

struct Inner<T> {
    events: VecDeque<T>,
    /// Events dropped since the reader last caught up.
    missed: u64,
    /// Why the watch ended, once it did: told after the events before it.
    end: Option<Error>,
    /// The reader is gone.
    dropped: bool,
    waker: Option<Waker>,
    /// The source was asked to pause, and not yet to resume.
    paused: bool,
    /// Events the reader took since the source was asked to pause.
    taken: usize,
    /// Resumes told whose `lagged` has not come yet: the source's first
    /// event after a resume is a `lagged` (0 when it dropped nothing).
    lagged_due: u32,
}

impl<T> Default for Inner<T> {
    fn default() -> Self {
        Inner {
            events: VecDeque::new(),
            missed: 0,
            end: None,
            dropped: false,
            waker: None,
            paused: false,
            taken: 0,
            lagged_due: 0,
        }
    }
}

/// Asks a source to resume.
type Resume = Box<dyn Fn() + Send + Sync>;

struct Shared<T> {
    inner: Mutex<Inner<T>>,
    /// A full buffer drops its oldest event, not the newest.
    keep_newest: bool,
    resume: Option<Resume>,
    /// Held while a pause or a resume is decided and told, so that the
    /// source is told them in the order they were decided.
    telling: Mutex<()>,
}

impl<T> Shared<T> {
    fn lock(&self) -> MutexGuard<'_, Inner<T>> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn telling(&self) -> MutexGuard<'_, ()> {
        self.telling.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// Where a watch's events are put.
pub(crate) struct Sink<T: Buffered = WatchEvent> {
    shared: Arc<Shared<T>>,
}

/// The reading end of a [`Sink`], made into a [`Watch`] by [`buffer`].
struct Feed<T> {
    shared: Arc<Shared<T>>,
}

/// What a [`Feed`] gives its reader next.
enum Next<T> {
    Event(T),
    Lagged(u64),
}

/// What became of an event put in a [`Sink`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pushed {
    /// Kept for the reader, or dropped and counted.
    Taken,
    /// Dropped and counted, and the source should pause (only from a
    /// buffer made by [`buffer_pausing`]).
    Pause,
    /// The reader is gone: stop pushing.
    Gone,
}

/// A new buffer of events: its sink, and the watch that reads it, which
/// calls `stop` when dropped.
pub(crate) fn buffer(stop: impl FnOnce() + Send + 'static) -> (Sink, Watch) {
    make(stop, None, false, |event| event)
}

/// [`buffer`], whose sink asks its source to pause when it has to drop an
/// event, and which calls `resume` once its reader has made room.
pub(crate) fn buffer_pausing(
    stop: impl FnOnce() + Send + 'static,
    resume: impl Fn() + Send + Sync + 'static,
) -> (Sink, Watch) {
    make(stop, Some(Box::new(resume)), false, |event| event)
}

/// A new buffer of what its source knows, which its reader makes into
/// events with `into`; full, it drops its oldest.
pub(crate) fn buffer_of<T: Buffered>(
    into: impl Fn(T) -> WatchEvent + Send + 'static,
) -> (Sink<T>, Watch) {
    make(|| {}, None, true, into)
}

fn make<T: Buffered>(
    stop: impl FnOnce() + Send + 'static,
    resume: Option<Resume>,
    keep_newest: bool,
    into: impl Fn(T) -> WatchEvent + Send + 'static,
) -> (Sink<T>, Watch) {
    let shared = Arc::new(Shared {
        inner: Mutex::new(Inner::default()),
        keep_newest,
        resume,
        telling: Mutex::new(()),
    });
    let feed = Feed {
        shared: shared.clone(),
    };
    let guard = OnDrop(Some(Box::new(stop)));
    let state = (feed, guard, into, false);
    let events = futures_util::stream::unfold(state, |(feed, guard, into, ended)| async move {
        if ended {
            return None;
        }
        let item = std::future::poll_fn(|cx| feed.poll_next(cx)).await;
        let ended = item.is_err();
        let item = item.map(|next| match next {
            Next::Event(event) => into(event),
            Next::Lagged(missed) => WatchEvent::Lagged { missed },
        });
        Some((item, (feed, guard, into, ended)))
    });
    (Sink { shared }, Watch::from_stream(events))
}

impl<T: Buffered> Sink<T> {
    /// Puts `event` for the reader; a full buffer drops it and counts it.
    /// `false` when the reader is gone (stop pushing).
    // Only etcd's watch pushes without asking to pause.
    #[cfg_attr(not(feature = "etcd"), allow(dead_code))]
    pub(crate) fn push(&self, event: T) -> bool {
        self.put(event) != Pushed::Gone
    }

    /// Whether the reader is gone.
    pub(crate) fn is_gone(&self) -> bool {
        self.shared.lock().dropped
    }

    /// [`Sink::push`], saying also when the source should pause.
    pub(crate) fn put(&self, event: T) -> Pushed {
        let mut inner = self.shared.lock();
        if inner.dropped {
            return Pushed::Gone;
        }
        if inner.end.is_some() {
            return Pushed::Taken;
        }
        let mut pushed = Pushed::Taken;
        let lagged = event.lagged();
        if let Some(missed) = lagged {
            inner.lagged_due = inner.lagged_due.saturating_sub(1);
            // The source dropped nothing while paused: nothing to tell, but
            // a reader waiting for this count may go on.
            if missed == 0 {
                if let Some(waker) = inner.waker.take() {
                    waker.wake();
                }
                return pushed;
            }
        }
        if self.shared.keep_newest {
            // The dropped were before every event kept: the reader is told
            // them first.
            if inner.events.len() >= WATCH_BUFFER {
                inner.events.pop_front();
                inner.missed += 1;
            }
            inner.events.push_back(event);
        } else if inner.missed > 0 || inner.events.len() >= WATCH_BUFFER {
            // Once one was dropped, every later one is too until the reader
            // has caught up and taken its `Lagged`: events stay in order.
            inner.missed += lagged.unwrap_or(1);
            if self.shared.resume.is_some() && !inner.paused {
                inner.paused = true;
                inner.taken = 0;
                pushed = Pushed::Pause;
            }
        } else {
            inner.events.push_back(event);
        }
        if let Some(waker) = inner.waker.take() {
            waker.wake();
        }
        pushed
    }

    /// What tells the source to pause after [`Pushed::Pause`].
    pub(crate) fn pauser(&self) -> Pauser<T> {
        Pauser(self.shared.clone())
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

/// Tells a sink's source to pause, after [`Pushed::Pause`].
pub(crate) struct Pauser<T = WatchEvent>(Arc<Shared<T>>);

impl<T> Pauser<T> {
    /// Calls `pause` (which tells the source), unless the reader made room
    /// and asked to resume meanwhile. Not to be called under a lock that
    /// telling the source may take.
    pub(crate) fn pause(&self, pause: impl FnOnce()) {
        let _telling = self.0.telling();
        if self.0.lock().paused {
            pause();
        }
    }
}

impl<T: Buffered> Drop for Sink<T> {
    fn drop(&mut self) {
        self.end(Error::new(
            Code::Unavailable,
            "what brought the watch its events went away",
        ));
    }
}

impl<T> Feed<T> {
    fn poll_next(&self, cx: &mut std::task::Context<'_>) -> Poll<Result<Next<T>>> {
        let mut inner = self.shared.lock();
        if self.shared.keep_newest && inner.missed > 0 {
            let missed = std::mem::take(&mut inner.missed);
            return Poll::Ready(Ok(Next::Lagged(missed)));
        }
        if let Some(event) = inner.events.pop_front() {
            inner.taken += 1;
            let resume = inner.paused && inner.taken >= WATCH_BUFFER / 2;
            drop(inner);
            self.resume_if(resume);
            return Poll::Ready(Ok(Next::Event(event)));
        }
        // Once the source's count since a resume came, the reader is told
        // one `Lagged` with both (unless the watch ended meanwhile).
        if inner.missed > 0 && (inner.lagged_due == 0 || inner.end.is_some()) {
            let missed = std::mem::take(&mut inner.missed);
            let resume = inner.paused;
            drop(inner);
            self.resume_if(resume);
            return Poll::Ready(Ok(Next::Lagged(missed)));
        }
        if let Some(reason) = inner.end.clone() {
            return Poll::Ready(Err(reason));
        }
        inner.waker = Some(cx.waker().clone());
        Poll::Pending
    }

    /// Asks the source to resume, when `resume` (told outside the lock).
    fn resume_if(&self, resume: bool) {
        if !resume {
            return;
        }
        let _telling = self.shared.telling();
        {
            let mut inner = self.shared.lock();
            if !inner.paused {
                return;
            }
            inner.paused = false;
            inner.taken = 0;
            inner.lagged_due += 1;
        }
        if let Some(resume) = &self.shared.resume {
            resume();
        }
    }
}

impl<T> Drop for Feed<T> {
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

    /// What the engine would put: a number its reader makes an event of.
    struct Number(u64);

    impl Buffered for Number {
        fn lagged(&self) -> Option<u64> {
            None
        }
    }

    #[tokio::test]
    async fn an_engine_buffer_keeps_the_newest_and_tells_the_lagged_first() {
        let (sink, mut watch) = buffer_of(|Number(n)| queue(n));
        let total = WATCH_BUFFER as u64 + 10;
        for n in 0..total {
            assert!(sink.push(Number(n)));
        }
        assert_eq!(
            watch.next().await.unwrap().unwrap(),
            WatchEvent::Lagged { missed: 10 }
        );
        for n in 10..total {
            assert_eq!(watch.next().await.unwrap().unwrap(), queue(n));
        }
        sink.push(Number(5000));
        assert_eq!(watch.next().await.unwrap().unwrap(), queue(5000));
        drop(watch);
        assert!(sink.is_gone());
        assert!(!sink.push(Number(1)));
    }

    #[tokio::test]
    async fn a_pausing_buffer_pauses_once_and_resumes_when_the_reader_made_room() {
        use futures_util::FutureExt;
        let resumed = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let count = resumed.clone();
        let (sink, mut watch) = buffer_pausing(
            || {},
            move || {
                count.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            },
        );
        for n in 0..WATCH_BUFFER as u64 {
            assert_eq!(sink.put(queue(n)), Pushed::Taken);
        }
        // The first event with no room asks for a pause; those on their way
        // after it are counted without asking again.
        assert_eq!(sink.put(queue(0)), Pushed::Pause);
        let mut paused = 0;
        sink.pauser().pause(|| paused += 1);
        assert_eq!(paused, 1);
        assert_eq!(sink.put(queue(0)), Pushed::Taken);
        for n in 0..(WATCH_BUFFER / 2) as u64 {
            assert_eq!(watch.next().await.unwrap().unwrap(), queue(n));
        }
        assert_eq!(resumed.load(std::sync::atomic::Ordering::SeqCst), 1);
        for n in (WATCH_BUFFER / 2) as u64..WATCH_BUFFER as u64 {
            assert_eq!(watch.next().await.unwrap().unwrap(), queue(n));
        }
        // The reader waits for the source's count since the resume...
        assert!(watch.next().now_or_never().is_none());
        // ...which joins its own: one `Lagged` with all it missed.
        assert_eq!(sink.put(WatchEvent::Lagged { missed: 40 }), Pushed::Pause);
        assert_eq!(
            watch.next().await.unwrap().unwrap(),
            WatchEvent::Lagged { missed: 42 }
        );
        assert_eq!(resumed.load(std::sync::atomic::Ordering::SeqCst), 2);
        // A source that dropped nothing says 0, which the reader is not told.
        assert_eq!(sink.put(WatchEvent::Lagged { missed: 0 }), Pushed::Taken);
        assert_eq!(sink.put(queue(7)), Pushed::Taken);
        assert_eq!(watch.next().await.unwrap().unwrap(), queue(7));
    }

    #[tokio::test]
    async fn a_pause_decided_after_the_reader_resumed_is_not_told() {
        let (sink, mut watch) = buffer_pausing(|| {}, || {});
        for n in 0..=WATCH_BUFFER as u64 {
            sink.put(queue(n));
        }
        for _ in 0..WATCH_BUFFER / 2 {
            watch.next().await.unwrap().unwrap();
        }
        let mut told = false;
        sink.pauser().pause(|| told = true);
        assert!(!told, "the reader resumed before the pause was told");
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
