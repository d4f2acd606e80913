//! Who gets in: the caps on connections and what a connection may do before
//! `hello`. The Unix socket and TCP have caps of their own, so TCP can never
//! take the places Unix clients need. On TCP, connections that have not
//! authenticated yet ("strangers") have a small cap of their own, a short
//! deadline and a small frame limit; when the cap is full a new stranger
//! closes the one waiting longest, so a crowd of strangers can delay a
//! client with the token by one round trip at most, never lock it out.

use crate::error::{Code, Error};
use crate::wire::{
    HELLO_TIMEOUT, MAX_CONNECTIONS, MAX_STRANGERS, MAX_STRANGER_FRAME_BYTES, STRANGER_TIMEOUT,
};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{oneshot, OwnedSemaphorePermit, Semaphore};

/// The caps of one server.
pub(super) struct Gate {
    unix: Arc<Semaphore>,
    tcp: Arc<Semaphore>,
    strangers: Arc<Mutex<Strangers>>,
}

impl Default for Gate {
    fn default() -> Gate {
        Gate {
            unix: Arc::new(Semaphore::new(MAX_CONNECTIONS)),
            tcp: Arc::new(Semaphore::new(MAX_CONNECTIONS)),
            strangers: Arc::default(),
        }
    }
}

/// The TCP connections waiting to authenticate, oldest first.
#[derive(Default)]
struct Strangers {
    next: u64,
    /// Each one's number and what closes it when it is evicted.
    waiting: BTreeMap<u64, oneshot::Sender<()>>,
}

impl Gate {
    /// A place for a new Unix connection; `limit` when all are taken.
    pub fn unix(&self) -> Result<Pass, Error> {
        let slot = self.unix.clone().try_acquire_owned();
        let slot = slot.map_err(|_| full(" on the Unix socket"))?;
        Ok(Pass {
            slot: Some(slot),
            stranger: None,
        })
    }

    /// A place for a new TCP connection, as a stranger until it says hello.
    /// When the strangers' cap is full, the one waiting longest is closed.
    pub fn tcp(&self) -> Pass {
        let mut strangers = self.strangers.lock().unwrap_or_else(|p| p.into_inner());
        while strangers.waiting.len() >= MAX_STRANGERS {
            // Dropping its sender wakes the oldest stranger, which closes.
            strangers.waiting.pop_first();
        }
        let number = strangers.next;
        strangers.next += 1;
        let (evict, evicted) = oneshot::channel();
        strangers.waiting.insert(number, evict);
        Pass {
            slot: None,
            stranger: Some(Stranger {
                number,
                evicted,
                strangers: self.strangers.clone(),
                members: self.tcp.clone(),
            }),
        }
    }
}

fn full(where_: &str) -> Error {
    Error::new(
        Code::Limit,
        format!("the server serves at most {MAX_CONNECTIONS} connections at once{where_}"),
    )
}

/// A connection's place: a slot among the served, or on TCP a stranger's
/// place until `hello` succeeds.
pub(super) struct Pass {
    slot: Option<OwnedSemaphorePermit>,
    stranger: Option<Stranger>,
}

/// A TCP connection's place among the strangers; dropping it leaves.
struct Stranger {
    number: u64,
    evicted: oneshot::Receiver<()>,
    strangers: Arc<Mutex<Strangers>>,
    members: Arc<Semaphore>,
}

impl Drop for Stranger {
    fn drop(&mut self) {
        let mut strangers = self.strangers.lock().unwrap_or_else(|p| p.into_inner());
        strangers.waiting.remove(&self.number);
    }
}

impl Pass {
    /// How long the connection has to say hello.
    pub fn hello_timeout(&self) -> Duration {
        if self.stranger.is_some() {
            STRANGER_TIMEOUT
        } else {
            HELLO_TIMEOUT
        }
    }

    /// For a stranger, the longest frame it may send before hello (a longer
    /// one ends the connection at once); `None` for any other connection,
    /// which has the usual limit, over-long lines skipped.
    pub fn frame_limit(&self) -> Option<usize> {
        self.stranger.as_ref().map(|_| MAX_STRANGER_FRAME_BYTES)
    }

    /// Resolves when a stranger is closed to make room for a newer one;
    /// never for a connection that is not a stranger.
    pub async fn evicted(&mut self) {
        match self.stranger.as_mut() {
            Some(stranger) => {
                let _ = (&mut stranger.evicted).await;
            }
            None => std::future::pending().await,
        }
    }

    /// The connection said hello and authenticated: a stranger becomes a
    /// member, if the members' cap has room (`limit` if not).
    pub fn greeted(&mut self) -> Result<(), Error> {
        let Some(stranger) = self.stranger.take() else {
            return Ok(());
        };
        let slot = stranger.members.clone().try_acquire_owned();
        self.slot = Some(slot.map_err(|_| full(" on TCP"))?);
        Ok(())
    }
}
