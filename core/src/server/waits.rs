//! A connection's acquires waiting in their keys' queues, as futures its
//! own task polls. A grant wakes that task, which polls only the futures
//! that were woken, so a connection with thousands waiting costs nothing
//! per wake beyond the one granted. Closing the connection drops them in
//! batches (a dropped wait gives up its place without leaking), yielding
//! between batches so that other connections are served meanwhile.

use crate::engine::Engine;
use crate::error::Result;
use crate::vocab::EngineGrant;
use futures_util::stream::{FuturesUnordered, StreamExt};
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

/// How many waits a closing connection drops before letting other tasks run.
const DROPPED_AT_ONCE: usize = 64;

/// A boxed future the connection polls.
pub(super) type Boxed<T> = Pin<Box<dyn Future<Output = T> + Send>>;

/// What a waiting acquire is: its request id and what it waits for.
pub(super) type WaitFor = (u64, String);

/// The acquires of one connection waiting in their keys' queues.
#[derive(Default)]
pub(super) struct Waits {
    pending: FuturesUnordered<Boxed<(WaitFor, Result<EngineGrant>)>>,
}

impl Waits {
    /// Adds a waiting acquire. The caller polled it once already, so it
    /// holds its place in the queue; it is polled again on the next
    /// [`Waits::poll_next`].
    pub(super) fn push(&mut self, what: WaitFor, waiting: Boxed<Result<EngineGrant>>) {
        self.pending
            .push(Box::pin(async move { (what, waiting.await) }));
    }

    /// Ready with the next acquire that finished. Pending (with no waker
    /// kept) when none waits: new ones come only from the connection's own
    /// task, which polls again after adding one.
    pub(super) fn poll_next(
        &mut self,
        cx: &mut Context<'_>,
    ) -> Poll<(WaitFor, Result<EngineGrant>)> {
        match self.pending.poll_next_unpin(cx) {
            Poll::Ready(Some(done)) => Poll::Ready(done),
            Poll::Ready(None) | Poll::Pending => Poll::Pending,
        }
    }

    /// How many acquires wait.
    pub(super) fn len(&self) -> usize {
        self.pending.len()
    }

    /// Gives up every wait, a batch at a time: a batch leaves its queues
    /// under one short hold of the engine's lock, and other tasks run
    /// between batches, so the lock is never held long.
    pub(super) async fn give_up(self, engine: &Engine) {
        let mut waits = self.pending.into_iter();
        loop {
            let mut dropped = 0;
            engine.leave_together(|| {
                for waiting in waits.by_ref().take(DROPPED_AT_ONCE) {
                    drop(waiting);
                    dropped += 1;
                }
            });
            if dropped < DROPPED_AT_ONCE {
                return;
            }
            tokio::task::yield_now().await;
        }
    }
}
