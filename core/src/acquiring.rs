//! `Acquiring`: an acquire under way, which its caller may poll now, wait
//! for, or give up from any thread. Every binding's wait is one of these,
//! with only its language's glue around it: Python gives it up when the
//! asyncio task is cancelled, Node on an AbortSignal, Go when `ctx` is done.
//!
//! Giving up drops the core's acquire future under this acquire's lock: the
//! engine (or the server, or etcd) then takes the caller out of the key's
//! queue, and releases a grant that crossed the give-up. An outcome that
//! finished but was not taken yet is dropped the same way, and a dropped
//! lease is released. So once `give_up` returns, this acquire holds
//! nothing, and a lease comes out of it only to a caller who took it before
//! the give-up.

use crate::error::Result;
use crate::poll::poll_now;
use std::future::{poll_fn, Future};
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll, Waker};
use tokio::runtime::Handle;

type Boxed<H> = Pin<Box<dyn Future<Output = Result<H>> + Send>>;

/// An acquire under way, giving an `H` (a [`Lease`](crate::Lease) or a
/// [`Permit`](crate::Permit)). Made by `Locks::acquiring` and
/// `Semaphore::acquiring`. Cheap to clone: clones share the one acquire, so
/// one thread or task may wait while another gives up.
///
/// The outcome is `Ok(Some(held))` once granted, `Err(_)` when the acquire
/// failed (`timeout` when its `wait` ran out, `closed`, `invalid`, ...), and
/// `Ok(None)` once it was given up, or when the outcome was taken already.
/// The outcome is handed out once.
pub struct Acquiring<H> {
    shared: Arc<Shared<H>>,
}

impl<H> Clone for Acquiring<H> {
    fn clone(&self) -> Self {
        Acquiring {
            shared: self.shared.clone(),
        }
    }
}

struct Shared<H> {
    state: Mutex<State<H>>,
}

struct State<H> {
    stage: Stage<H>,
    /// The runtime it was first polled in: dropping the acquire may need
    /// it (a remote or etcd acquire tells its server from a task).
    runtime: Option<Handle>,
}

enum Stage<H> {
    /// Still acquiring; `waker` is the last waiter's.
    Running {
        future: Boxed<H>,
        waker: Option<Waker>,
    },
    /// Finished; the outcome waits to be taken.
    Finished(Result<H>),
    /// The outcome was taken.
    Taken,
    /// Given up: whatever it would have given was dropped.
    GivenUp,
}

impl<H: Send + 'static> Acquiring<H> {
    /// Wraps `future`, an acquire not yet polled, so that it can be polled
    /// now, waited for and given up. Dropping `future` must give up without
    /// leaking (as every acquire future of the core does), and dropping its
    /// `H` must release it.
    pub fn new(future: impl Future<Output = Result<H>> + Send + 'static) -> Acquiring<H> {
        Acquiring {
            shared: Arc::new(Shared {
                state: Mutex::new(State {
                    stage: Stage::Running {
                        future: Box::pin(future),
                        waker: None,
                    },
                    runtime: None,
                }),
            }),
        }
    }

    /// Polls once, now, on this thread, without blocking: the fast path.
    /// On an embedded store a free key is granted here (and a wrong name or
    /// key fails here), with no thread switch. Ready with the outcome
    /// (taken: later calls give `Ok(None)`), or pending with the caller in
    /// its key's queue; then `wait` or `ready` goes on. Call it inside the
    /// runtime the store's futures run on (`Runtime::enter`); outside any
    /// runtime it does not poll and is pending.
    pub fn poll_now(&self) -> Poll<Result<Option<H>>> {
        let mut state = self.shared.lock();
        if Handle::try_current().is_err() && state.runtime.is_none() {
            return match state.stage {
                Stage::Running { .. } => Poll::Pending,
                _ => Poll::Ready(state.take()),
            };
        }
        match state.advance(None) {
            Poll::Ready(()) => Poll::Ready(state.take()),
            Poll::Pending => Poll::Pending,
        }
    }

    /// Polls once, now, on this thread, as [`poll_now`](Self::poll_now)
    /// does, but leaves `waker` to be woken when the acquire can go on: how
    /// an event loop that is not a tokio task (Python's asyncio) waits with
    /// no task of its own. Each wake asks for one more `poll_with`; a wake
    /// may also come after the outcome was taken, or from `give_up`.
    pub fn poll_with(&self, waker: &Waker) -> Poll<Result<Option<H>>> {
        let mut state = self.shared.lock();
        let mut cx = Context::from_waker(waker);
        match state.advance(Some(&mut cx)) {
            Poll::Ready(()) => Poll::Ready(state.take()),
            Poll::Pending => Poll::Pending,
        }
    }

    /// Waits until the acquire ends or is given up, and takes the outcome.
    /// Its future may be dropped at any time; that gives up nothing (call
    /// `give_up` for that). Poll it inside the store's runtime.
    pub async fn wait(&self) -> Result<Option<H>> {
        poll_fn(|cx| match self.shared.lock().advance(Some(cx)) {
            Poll::Ready(()) => Poll::Ready(()),
            Poll::Pending => Poll::Pending,
        })
        .await;
        self.shared.lock().take()
    }

    /// Waits until the outcome is there (or the acquire was given up),
    /// without taking it: take it with `poll_now`. Meanwhile a `give_up`
    /// still drops it, releasing a granted lease; this is how an event
    /// loop that learns of the outcome later (Python's) closes the race of
    /// a grant with a cancel.
    pub async fn ready(&self) {
        poll_fn(|cx| self.shared.lock().advance(Some(cx))).await
    }

    /// Gives the acquire up, from any thread, at any time; idempotent. The
    /// acquire future (or its finished, untaken outcome) is dropped before
    /// this returns: the caller leaves its queue, and a lease granted as it
    /// gave up is released, never leaked. A waiter then gets `Ok(None)`.
    /// Does nothing once the outcome was taken (its taker holds the lease).
    pub fn give_up(&self) {
        let mut state = self.shared.lock();
        let stage = match state.stage {
            Stage::Running { .. } | Stage::Finished(_) => {
                std::mem::replace(&mut state.stage, Stage::GivenUp)
            }
            Stage::Taken | Stage::GivenUp => return,
        };
        let waker = {
            let _entered = enter(&state.runtime);
            match stage {
                Stage::Running { future, waker } => {
                    drop(future);
                    waker
                }
                other => {
                    drop(other);
                    None
                }
            }
        };
        drop(state);
        if let Some(waker) = waker {
            waker.wake();
        }
    }

    /// Whether it was given up.
    pub fn is_given_up(&self) -> bool {
        matches!(self.shared.lock().stage, Stage::GivenUp)
    }
}

impl<H> Shared<H> {
    fn lock(&self) -> MutexGuard<'_, State<H>> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// Enters `runtime` (the one an acquire was polled in), unless a runtime
/// is current already.
fn enter(runtime: &Option<Handle>) -> Option<tokio::runtime::EnterGuard<'_>> {
    match (runtime, Handle::try_current()) {
        (Some(handle), Err(_)) => Some(handle.enter()),
        _ => None,
    }
}

impl<H> State<H> {
    /// Polls the acquire, with `cx` (or the no-op waker), if it still runs;
    /// ready once it is no longer running.
    fn advance(&mut self, cx: Option<&mut Context<'_>>) -> Poll<()> {
        if self.runtime.is_none() {
            self.runtime = Handle::try_current().ok();
        }
        let polled = {
            let _entered = enter(&self.runtime);
            let Stage::Running { future, waker } = &mut self.stage else {
                return Poll::Ready(());
            };
            match cx {
                Some(cx) => {
                    let polled = future.as_mut().poll(cx);
                    if polled.is_pending() {
                        *waker = Some(cx.waker().clone());
                    }
                    polled
                }
                None => poll_now(future.as_mut()),
            }
        };
        match polled {
            Poll::Ready(outcome) => {
                self.stage = Stage::Finished(outcome);
                Poll::Ready(())
            }
            Poll::Pending => Poll::Pending,
        }
    }

    /// Takes the finished outcome; `Ok(None)` when there is none to take.
    fn take(&mut self) -> Result<Option<H>> {
        match std::mem::replace(&mut self.stage, Stage::Taken) {
            Stage::Finished(outcome) => outcome.map(Some),
            Stage::GivenUp => {
                self.stage = Stage::GivenUp;
                Ok(None)
            }
            Stage::Running { future, waker } => {
                self.stage = Stage::Running { future, waker };
                Ok(None)
            }
            Stage::Taken => Ok(None),
        }
    }
}

impl<H> Drop for Shared<H> {
    /// The last clone gone: drops what is left inside its runtime.
    fn drop(&mut self) {
        let state = self.state.get_mut().unwrap_or_else(|p| p.into_inner());
        let stage = std::mem::replace(&mut state.stage, Stage::GivenUp);
        let _entered = enter(&state.runtime);
        drop(stage);
    }
}

impl<H> std::fmt::Debug for Acquiring<H> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let stage = match self.shared.lock().stage {
            Stage::Running { .. } => "running",
            Stage::Finished(_) => "finished",
            Stage::Taken => "taken",
            Stage::GivenUp => "given up",
        };
        f.debug_struct("Acquiring").field("stage", &stage).finish()
    }
}
