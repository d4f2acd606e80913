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
    /// Runs `wait` until it ends or `cancel`, if any, is cancelled; on
    /// cancel the future is dropped and `None` returned.
    pub fn run_with<T>(
        cancel: Option<&Cancel>,
        wait: impl Future<Output = T>,
    ) -> impl Future<Output = Option<T>> {
        let switch = cancel.map(|c| c.switch.subscribe());
        async move {
            let Some(mut switch) = switch else {
                return Some(wait.await);
            };
            tokio::select! {
                biased;
                done = wait => Some(done),
                _ = switch.wait_for(|cancelled| *cancelled) => None,
            }
        }
    }
}
