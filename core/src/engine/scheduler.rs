//! The task that ends leases at their TTL and ends the grace after an
//! unclean stop. Every engine call also ends overdue leases itself, so a
//! late scheduler delays only the news, never correctness.

use std::sync::{Arc, Weak};
use tokio::sync::Notify;
use tokio::time::{sleep_until, Instant};

/// What the scheduler drives: the engine, which knows what is due.
pub(super) trait Timed: Send + Sync + 'static {
    /// Ends what is due now, and says when to look again.
    fn end_due(&self) -> Next;
    /// Notified when an earlier deadline is set, or the engine is dropped.
    fn wake(&self) -> Arc<Notify>;
}

/// When the scheduler looks again.
pub(super) enum Next {
    /// Never: the engine closed.
    Stop,
    /// At this deadline or when woken (`None`: only when woken).
    At(Option<Instant>),
}

/// Spawns the engine's scheduler on the current tokio runtime; it stops when
/// the engine closes or is dropped.
pub(super) fn spawn<E: Timed>(engine: &Arc<E>) {
    let weak: Weak<E> = Arc::downgrade(engine);
    let wake = engine.wake();
    tokio::spawn(async move {
        loop {
            let next = {
                let Some(engine) = weak.upgrade() else {
                    return;
                };
                match engine.end_due() {
                    Next::Stop => return,
                    Next::At(next) => next,
                }
            };
            match next {
                Some(at) => {
                    tokio::select! {
                        _ = sleep_until(at) => {}
                        _ = wake.notified() => {}
                    }
                }
                None => wake.notified().await,
            }
        }
    });
}
