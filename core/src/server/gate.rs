//! Who gets in: the caps on connections and what a connection may do before
//! `hello`. The Unix socket and TCP have caps of their own, so TCP can never
//! take the places Unix clients need. On TCP, connections that have not
//! authenticated yet ("strangers") have a cap of their own, a short
//! deadline and a small frame limit. When the cap is full, a new connection
//! waits in the kernel's listen backlog (nothing accepts it) until a
//! stranger leaves, or until the one waiting longest has had
//! [`STRANGER_GRACE`] to say hello, and is closed to make room. So a burst
//! of clients that say hello at once is served, none turned away, and a
//! crowd that never says hello delays a client with the token by at most
//! a backlog's worth of graces (the backlog divided by the cap, times the
//! grace), never locks it out.

use crate::error::{Code, Error};
use crate::wire::{
    HELLO_TIMEOUT, MAX_CONNECTIONS, MAX_STRANGERS, MAX_STRANGER_FRAME_BYTES, STRANGER_GRACE,
    STRANGER_TIMEOUT,
};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use tokio::sync::{oneshot, Notify, OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;

/// The caps of one server.
pub(super) struct Gate {
    unix: Arc<Semaphore>,
    tcp: Arc<Semaphore>,
    strangers: Arc<Lobby>,
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

/// The TCP connections waiting to authenticate, and a signal each time
/// one leaves.
#[derive(Default)]
struct Lobby {
    strangers: Mutex<Strangers>,
    left: Notify,
}

impl Lobby {
    fn strangers(&self) -> MutexGuard<'_, Strangers> {
        self.strangers.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The TCP connections waiting to authenticate, oldest first.
#[derive(Default)]
struct Strangers {
    next: u64,
    /// Each one's number, when it came, and what closes it when it is
    /// evicted.
    waiting: BTreeMap<u64, (Instant, oneshot::Sender<()>)>,
}

impl Strangers {
    /// Makes room for one more if there is room or the one waiting longest
    /// has had its grace (it is closed); else how long until it has.
    fn make_room(&mut self, now: Instant) -> Result<(), Duration> {
        if self.waiting.len() < MAX_STRANGERS {
            return Ok(());
        }
        let Some((_, (came, _))) = self.waiting.first_key_value() else {
            return Ok(());
        };
        let waited = now.saturating_duration_since(*came);
        if waited < STRANGER_GRACE {
            return Err(STRANGER_GRACE - waited);
        }
        // Dropping its sender wakes the oldest stranger, which closes.
        self.waiting.pop_first();
        Ok(())
    }
}

impl Gate {
    /// A place for a new Unix connection; `limit` when all are taken.
    pub(super) fn unix(&self) -> Result<Pass, Error> {
        let slot = self.unix.clone().try_acquire_owned();
        let slot = slot.map_err(|_| full(" on the Unix socket"))?;
        Ok(Pass {
            slot: Some(slot),
            stranger: None,
        })
    }

    /// A place for a new TCP connection, as a stranger until it says hello.
    /// When the strangers' cap is full, waits until one leaves, or until
    /// the one waiting longest has had [`STRANGER_GRACE`], which is then
    /// closed. The caller accepts nothing more meanwhile, so newer
    /// connections wait in the kernel's backlog.
    pub(super) async fn tcp(&self) -> Pass {
        loop {
            // A stranger that leaves after this look still wakes the wait:
            // `notify_one` keeps a permit for a wait not yet polled.
            let left = self.strangers.left.notified();
            let wait = {
                let mut strangers = self.strangers.strangers();
                match strangers.make_room(Instant::now()) {
                    Ok(()) => return self.stranger(&mut strangers),
                    Err(wait) => wait,
                }
            };
            tokio::select! {
                _ = left => {}
                _ = tokio::time::sleep(wait) => {}
            }
        }
    }

    /// A new stranger's pass, in a list that has room.
    fn stranger(&self, strangers: &mut Strangers) -> Pass {
        let number = strangers.next;
        strangers.next += 1;
        let (evict, evicted) = oneshot::channel();
        strangers.waiting.insert(number, (Instant::now(), evict));
        Pass {
            slot: None,
            stranger: Some(Stranger {
                number,
                evicted,
                lobby: self.strangers.clone(),
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
    lobby: Arc<Lobby>,
    members: Arc<Semaphore>,
}

impl Drop for Stranger {
    fn drop(&mut self) {
        self.lobby.strangers().waiting.remove(&self.number);
        self.lobby.left.notify_one();
    }
}

impl Pass {
    /// How long the connection has to say hello.
    pub(super) fn hello_timeout(&self) -> Duration {
        if self.stranger.is_some() {
            STRANGER_TIMEOUT
        } else {
            HELLO_TIMEOUT
        }
    }

    /// For a stranger, the longest frame it may send before hello (a longer
    /// one ends the connection at once); `None` for any other connection,
    /// which has the usual limit, over-long lines skipped.
    pub(super) fn frame_limit(&self) -> Option<usize> {
        self.stranger.as_ref().map(|_| MAX_STRANGER_FRAME_BYTES)
    }

    /// Resolves when a stranger is closed to make room for a newer one
    /// (never before it has waited [`STRANGER_GRACE`]);
    /// never for a connection that is not a stranger.
    pub(super) async fn evicted(&mut self) {
        match self.stranger.as_mut() {
            Some(stranger) => {
                let _ = (&mut stranger.evicted).await;
            }
            None => std::future::pending().await,
        }
    }

    /// The connection said hello and authenticated: a stranger becomes a
    /// member, if the members' cap has room (`limit` if not).
    pub(super) fn greeted(&mut self) -> Result<(), Error> {
        let Some(stranger) = self.stranger.take() else {
            return Ok(());
        };
        let slot = stranger.members.clone().try_acquire_owned();
        self.slot = Some(slot.map_err(|_| full(" on TCP"))?);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::future::Future;
    use std::pin::pin;
    use std::task::{Context, Poll};

    /// Polls `fut` once; whether it finished.
    fn ready<F: Future>(fut: std::pin::Pin<&mut F>) -> Option<F::Output> {
        match fut.poll(&mut Context::from_waker(std::task::Waker::noop())) {
            Poll::Ready(out) => Some(out),
            Poll::Pending => None,
        }
    }

    #[tokio::test(start_paused = true)]
    async fn a_full_lobby_makes_the_next_wait_for_a_place_and_evicts_no_young_stranger() {
        let gate = Gate::default();
        let mut passes = Vec::new();
        for _ in 0..MAX_STRANGERS {
            passes.push(gate.tcp().await);
        }
        tokio::time::advance(STRANGER_GRACE / 2).await;
        let mut next = pin!(gate.tcp());
        assert!(
            ready(next.as_mut()).is_none(),
            "no place, nobody old enough"
        );
        // One says hello: its place frees, and the next gets it, evicting
        // nobody.
        passes[3].greeted().unwrap();
        let _next = next.await;
        for pass in &mut passes {
            assert!(ready(pin!(pass.evicted())).is_none());
        }
    }

    #[tokio::test(start_paused = true)]
    async fn a_full_lobby_closes_its_oldest_stranger_once_it_had_its_grace() {
        let gate = Gate::default();
        let mut passes = Vec::new();
        for _ in 0..MAX_STRANGERS {
            passes.push(gate.tcp().await);
            tokio::time::advance(Duration::from_micros(100)).await;
        }
        let started = Instant::now();
        let _next = gate.tcp().await;
        let first_came = started - Duration::from_micros(100) * MAX_STRANGERS as u32;
        assert!(
            Instant::now() >= first_came + STRANGER_GRACE,
            "a stranger was closed before its grace"
        );
        let mut oldest = passes.remove(0);
        assert!(
            ready(pin!(oldest.evicted())).is_some(),
            "the oldest is closed"
        );
        for pass in &mut passes {
            assert!(ready(pin!(pass.evicted())).is_none(), "only the oldest");
        }
        // A member is never evicted.
        let mut member = passes.remove(0);
        member.greeted().unwrap();
        assert!(ready(pin!(member.evicted())).is_none());
    }
}
