//! `Observing`: an [`Observer`] as a binding holds it. Started at once (an
//! embedded store's observer subscribes in the call, so no change made
//! after it is missed), shared between threads, its next change awaited
//! from any of them, and closed from any other: a pending `next` then ends
//! at once. What a Python async iterator, a TypeScript async iterable and a
//! Go channel are made of.

use super::leader::Leader;
use super::observe::Observer;
use crate::error::{Error, Result};
use crate::poll::poll_now;
use futures_util::future::BoxFuture;
use futures_util::StreamExt;
use std::future::Future;
use std::sync::Arc;
use std::task::Poll;
use tokio::sync::{watch, Mutex};

/// An observer that can be awaited from any thread and closed from any
/// other. Cheap to clone; the clones share one observer. Its changes are
/// its observer's: the leader at the moment of observing first, then
/// every change in order; `None` from [`next`](Observing::next) once it
/// ended (after its one error, or closed).
#[derive(Clone)]
pub struct Observing {
    stage: Arc<Mutex<Stage>>,
    closed: Arc<watch::Sender<bool>>,
}

/// Where it is: starting (a connected store's reply to come), running,
/// failed to start (told at the next `next`), or ended.
enum Stage {
    Starting(BoxFuture<'static, Result<Observer>>),
    Running(Observer),
    Failed(Error),
    Ended,
}

impl Observing {
    /// Starts observing with `starting` (the election's `observe`), polled
    /// once now, so an embedded store's observer is subscribed on return.
    /// Call it inside the runtime the store runs on.
    pub(crate) fn start(starting: impl Future<Output = Result<Observer>> + Send + 'static) -> Self {
        let mut starting: BoxFuture<'static, Result<Observer>> = Box::pin(starting);
        let stage = match poll_now(starting.as_mut()) {
            Poll::Ready(Ok(observer)) => Stage::Running(observer),
            Poll::Ready(Err(err)) => Stage::Failed(err),
            Poll::Pending => Stage::Starting(starting),
        };
        Observing {
            stage: Arc::new(Mutex::new(stage)),
            closed: Arc::new(watch::Sender::new(false)),
        }
    }

    /// The next change: `Some(Ok(leader))` (`None` inside when nobody
    /// leads), `Some(Err(..))` once when it ends with an error (`closed`,
    /// `limit`, or why it could not start), then `None`. `None` at once
    /// after [`close`](Observing::close). Cancelling it loses no change.
    pub async fn next(&self) -> Option<Result<Option<Leader>>> {
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
                Ok(observer) => Stage::Running(observer),
                Err(err) => Stage::Failed(err),
            };
        }
        let change = match &mut *stage {
            Stage::Running(observer) => tokio::select! {
                change = observer.next() => change,
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

    /// Stops observing: a `next` under way, and every later one, gives
    /// `None`. Idempotent; dropping every clone stops it too.
    pub fn close(&self) {
        self.closed.send_replace(true);
        if let Ok(mut stage) = self.stage.try_lock() {
            *stage = Stage::Ended;
        }
    }
}

impl std::fmt::Debug for Observing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Observing")
            .field("closed", &*self.closed.borrow())
            .finish_non_exhaustive()
    }
}
