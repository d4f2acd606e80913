//! `Following`: a stream of changes as a binding holds it (an election's
//! [`Observer`](crate::Observer), a [`Watch`](crate::Watch)). Started at
//! once (an embedded store's stream subscribes in the call, so no change
//! made after it is missed), shared between threads, its next change
//! awaited from any of them, and closed from any other: a pending `next`
//! then ends at once. What a Python async iterator, a TypeScript async
//! iterable and a Go channel are made of.

use crate::error::{Error, Result};
use crate::poll::poll_now;
use futures_util::future::BoxFuture;
use futures_util::stream::{BoxStream, Stream, StreamExt};
use std::future::Future;
use std::sync::Arc;
use std::task::Poll;
use tokio::sync::{watch, Mutex};

/// A stream of `T` that can be awaited from any thread and closed from any
/// other. Cheap to clone; the clones share one stream. `None` from
/// [`next`](Following::next) once it ended (after its one error, or
/// closed).
pub struct Following<T> {
    stage: Arc<Mutex<Stage<T>>>,
    closed: Arc<watch::Sender<bool>>,
}

impl<T> Clone for Following<T> {
    fn clone(&self) -> Self {
        Following {
            stage: self.stage.clone(),
            closed: self.closed.clone(),
        }
    }
}

type Changes<T> = BoxStream<'static, Result<T>>;

/// Where it is: starting (a connected store's reply to come), running,
/// failed to start (told at the next `next`), or ended.
enum Stage<T> {
    Starting(BoxFuture<'static, Result<Changes<T>>>),
    Running(Changes<T>),
    Failed(Error),
    Ended,
}

impl<T: Send + 'static> Following<T> {
    /// Starts following what `starting` gives (an election's `observe`, a
    /// group's `watch`), polled once now, so an embedded store's stream is
    /// subscribed on return. Call it inside the runtime the store runs on.
    pub(crate) fn start<S>(starting: impl Future<Output = Result<S>> + Send + 'static) -> Self
    where
        S: Stream<Item = Result<T>> + Send + 'static,
    {
        let mut starting: BoxFuture<'static, Result<Changes<T>>> =
            Box::pin(async move { starting.await.map(StreamExt::boxed) });
        let stage = match poll_now(starting.as_mut()) {
            Poll::Ready(Ok(changes)) => Stage::Running(changes),
            Poll::Ready(Err(err)) => Stage::Failed(err),
            Poll::Pending => Stage::Starting(starting),
        };
        Following {
            stage: Arc::new(Mutex::new(stage)),
            closed: Arc::new(watch::Sender::new(false)),
        }
    }

    /// The next change: `Some(Ok(..))`, `Some(Err(..))` once when it ends
    /// with an error (`closed`, `limit`, `unavailable`, or why it could not
    /// start), then `None`. `None` at once after
    /// [`close`](Following::close). Cancelling it loses no change.
    pub async fn next(&self) -> Option<Result<T>> {
        let mut closed = self.closed.subscribe();
        let mut stage = tokio::select! {
            stage = self.stage.lock() => stage,
            _ = closed.wait_for(|c| *c) => return None,
        };
        if *closed.borrow() {
            *stage = Stage::Ended;
        }
        if let Stage::Starting(starting) = &mut *stage {
            let started = tokio::select! {
                started = starting => started,
                _ = closed.wait_for(|c| *c) => return None,
            };
            *stage = match started {
                Ok(changes) => Stage::Running(changes),
                Err(err) => Stage::Failed(err),
            };
        }
        let change = match &mut *stage {
            Stage::Running(changes) => tokio::select! {
                change = changes.next() => change,
                _ = closed.wait_for(|c| *c) => None,
            },
            Stage::Failed(_) => match std::mem::replace(&mut *stage, Stage::Ended) {
                Stage::Failed(err) => return Some(Err(err)),
                _ => None,
            },
            Stage::Starting(_) | Stage::Ended => None,
        };
        if change.is_none() {
            *stage = Stage::Ended;
        }
        change
    }

    /// Stops following: a `next` under way, and every later one, gives
    /// `None`. Idempotent; dropping every clone stops it too.
    pub fn close(&self) {
        self.closed.send_replace(true);
        if let Ok(mut stage) = self.stage.try_lock() {
            *stage = Stage::Ended;
        }
    }
}

impl<T> std::fmt::Debug for Following<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Following")
            .field("closed", &*self.closed.borrow())
            .finish_non_exhaustive()
    }
}
