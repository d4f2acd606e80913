//! The task that ends leases at their TTL and ends the grace after an
//! unclean stop. Every engine call also ends overdue leases itself, so a
//! late scheduler delays only the news, never correctness.

use super::Engine;
use std::sync::{Arc, Weak};
use tokio::time::{sleep_until, Instant};

/// Spawns the engine's scheduler on the current tokio runtime; it stops when
/// the engine closes or is dropped.
pub(super) fn spawn(engine: &Arc<Engine>) {
    let weak: Weak<Engine> = Arc::downgrade(engine);
    let wake = engine.wake.clone();
    tokio::spawn(async move {
        loop {
            let next = {
                let Some(engine) = weak.upgrade() else {
                    return;
                };
                let mut st = engine.lock();
                if st.closed.is_some() {
                    return;
                }
                let now = Instant::now();
                engine.reap(&mut st, now);
                engine.end_grace_if_due(&mut st, now);
                let next = st.next_deadline();
                st.scheduler_wakes_at = next;
                next
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
