//! A place in line: the future `acquire` awaits, which gives up its place,
//! or the lease granted as it gave up, when it is dropped.

use super::state::{Granted, KeyId};
use super::{detach, Engine};
use crate::error::{Error, Result};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use tokio::sync::oneshot;

/// Waits for a grant sent by the engine. Grants are sent under the engine's
/// mutex, and dropping takes it too, so a grant and a give-up that cross
/// always end with the lease released.
pub(super) struct Wait {
    engine: Arc<Engine>,
    key: Arc<KeyId>,
    waiter_id: u64,
    reply: oneshot::Receiver<Result<Granted>>,
    done: bool,
}

impl Wait {
    pub(super) fn new(
        engine: Arc<Engine>,
        key: Arc<KeyId>,
        waiter_id: u64,
        reply: oneshot::Receiver<Result<Granted>>,
    ) -> Wait {
        Wait {
            engine,
            key,
            waiter_id,
            reply,
            done: false,
        }
    }
}

impl Future for Wait {
    type Output = Result<Granted>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<Granted>> {
        let polled = Pin::new(&mut self.reply).poll(cx);
        match polled {
            Poll::Ready(result) => {
                self.done = true;
                Poll::Ready(result.unwrap_or_else(|_| {
                    Err(Error::internal("the engine dropped a waiter unanswered"))
                }))
            }
            Poll::Pending => Poll::Pending,
        }
    }
}

impl Drop for Wait {
    fn drop(&mut self) {
        if self.done {
            return;
        }
        let mut st = self.engine.lock();
        let slot = st.keys.find(&self.key);
        if let Some(entry) = slot.and_then(|slot| st.keys.get_mut(slot)) {
            entry.waiters.remove(self.waiter_id);
        }
        self.reply.close();
        if let Ok(Ok(grant)) = self.reply.try_recv() {
            detach(&mut st, grant.id, "given up");
        }
        // Leaving may make room for the next in line, or leave the key idle.
        if let Some(slot) = slot {
            let now = tokio::time::Instant::now();
            self.engine.serve_line(&mut st, slot, now);
        }
    }
}
