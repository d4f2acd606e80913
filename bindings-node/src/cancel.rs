//! `Cancel`: how an AbortSignal reaches a wait. JS makes one per acquire
//! and calls `cancel()` when the signal aborts; the wait then drops the
//! core's acquire future, which never leaks a lease.

use napi_derive::napi;
use std::future::Future;
use tokio::sync::watch;

/// A one-way switch: once cancelled, every wait given it ends.
#[napi]
pub struct Cancel {
    switch: watch::Sender<bool>,
}

impl Default for Cancel {
    fn default() -> Cancel {
        Cancel::new()
    }
}

#[napi]
impl Cancel {
    /// A switch not yet cancelled.
    #[napi(constructor)]
    pub fn new() -> Cancel {
        Cancel {
            switch: watch::Sender::new(false),
        }
    }

    /// Ends the waits given this switch. Idempotent.
    #[napi]
    pub fn cancel(&self) {
        self.switch.send_replace(true);
    }
}

impl Cancel {
    /// Runs `wait` until it ends or this switch is cancelled; on cancel the
    /// future is dropped and `None` returned.
    pub async fn run<T>(&self, wait: impl Future<Output = T>) -> Option<T> {
        let mut switch = self.switch.subscribe();
        tokio::select! {
            biased;
            done = wait => Some(done),
            _ = switch.wait_for(|cancelled| *cancelled) => None,
        }
    }
}
