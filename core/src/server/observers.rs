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
//!
//! A client may pause a watch (`watch_pause`) when it has no room for more
//! of its events: its stream is then not polled at all, so the server
//! neither takes its events from the store nor encodes or writes them; the
//! store's bounded buffer for the watch counts what it drops, told as one
//! `lagged` once the client resumes it (`watch_resume`): after a resume
//! the first event is always that `lagged`, with 0 when nothing was
//! dropped.

use crate::election::{Leader, Observer};
use crate::error::Result;
use crate::watch::{Watch, WatchEvent};
use futures_util::future::FutureExt;
use futures_util::stream::{BoxStream, SelectAll, Stream, StreamExt};
use futures_util::task::AtomicWaker;
use std::collections::HashMap;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Weak};
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
    /// Each watch's switch, by the id of its `watch` (gone with its stream).
    switches: HashMap<u64, Weak<Switch>>,
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
        self.switches.retain(|_, switch| switch.strong_count() > 0);
        let switch = Arc::new(Switch::default());
        self.switches.insert(id, Arc::downgrade(&switch));
        let events = Pausable {
            watch,
            switch,
            next: None,
        }
        .map(move |event| (id, Seen::Watch(event)))
        .take_until(stop.map(|_| ()));
        self.streams.push(events.boxed());
    }

    /// Pauses (`true`) or resumes the watch of request `id`; `false` when
    /// the connection has no such watch (it ended, or never was).
    pub(super) fn pause(&mut self, id: u64, paused: bool) -> bool {
        let Some(switch) = self.switches.get(&id).and_then(Weak::upgrade) else {
            self.switches.remove(&id);
            return false;
        };
        if !paused {
            switch.resumed.store(true, Ordering::Relaxed);
        }
        switch.paused.store(paused, Ordering::Relaxed);
        switch.waker.wake();
        true
    }

    /// Resumes every paused watch: the closing store's last words (each
    /// watch's end) reach the client however full its reader is.
    pub(super) fn resume_all(&mut self) {
        let paused: Vec<u64> = self
            .switches
            .iter()
            .filter(|(_, switch)| {
                switch
                    .upgrade()
                    .is_some_and(|s| s.paused.load(Ordering::Relaxed))
            })
            .map(|(id, _)| *id)
            .collect();
        for id in paused {
            self.pause(id, false);
        }
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

/// Whether a watch is paused, and the waker of its stream.
#[derive(Default)]
struct Switch {
    paused: AtomicBool,
    /// Resumed: the next event told is the `lagged` that says how many the
    /// store dropped meanwhile (0: none).
    resumed: AtomicBool,
    waker: AtomicWaker,
}

/// A watch that is not polled while its switch says paused: its events
/// wait (or are dropped and counted) in the store's buffer. The first
/// event after each resume is a `lagged`, with 0 when nothing was
/// dropped, so that the client knows where what it missed was counted.
struct Pausable {
    watch: Watch,
    switch: Arc<Switch>,
    /// An event taken while making the `lagged` after a resume.
    next: Option<Result<WatchEvent>>,
}

impl Stream for Pausable {
    type Item = Result<WatchEvent>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        // Registered before the switch is read: a pause or resume after
        // the read wakes this task.
        self.switch.waker.register(cx.waker());
        if self.switch.paused.load(Ordering::Relaxed) {
            return Poll::Pending;
        }
        if self.switch.resumed.swap(false, Ordering::Relaxed) {
            let missed = match self.watch.poll_next_unpin(cx) {
                Poll::Ready(Some(Ok(WatchEvent::Lagged { missed }))) => missed,
                Poll::Ready(Some(other)) => {
                    self.next = Some(other);
                    0
                }
                Poll::Ready(None) => return Poll::Ready(None),
                Poll::Pending => 0,
            };
            return Poll::Ready(Some(Ok(WatchEvent::Lagged { missed })));
        }
        if let Some(next) = self.next.take() {
            return Poll::Ready(Some(next));
        }
        self.watch.poll_next_unpin(cx)
    }
}
