//! A place in a key's queue: the future `acquire` awaits, which gives up its place,
//! or the lease granted as it gave up, when it is dropped.
//!
//! Many places can be given up together: waits dropped inside
//! [`leave_together`] leave their queues under one hold of the engine's
//! lock, rather than taking it once each.

use super::keys::KeySlot;
use super::state::State;
use crate::error::{Error, Result};
use crate::vocab::EngineGrant;
use crate::vocab::KeyId;
use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, MutexGuard};
use std::task::{Context, Poll};
use tokio::sync::oneshot;
use tokio::time::Instant;

/// What giving up a place needs of the engine: its state, under its lock,
/// and serving a queue someone left.
pub(super) trait Queues: Send + Sync + 'static {
    /// The engine's state, locked.
    fn lock(&self) -> MutexGuard<'_, State>;
    /// Grants the key in `slot` to those first in its queue while it has room.
    fn serve_queue(&self, st: &mut State, slot: KeySlot, now: Instant);
}

/// Waits for a grant sent by the engine. Grants are sent under the engine's
/// mutex, and giving up takes it too, so a grant and a give-up that cross
/// always end with the lease released.
pub(super) struct Wait<E: Queues> {
    engine: Arc<E>,
    place: Place,
    done: bool,
}

/// What giving up a place needs: where the key's state lives (stable while
/// this caller is in its queue), which key that is, the caller's id in
/// the queue, and where a grant would have come.
struct Place {
    slot: KeySlot,
    key: Arc<KeyId>,
    waiter_id: u64,
    reply: oneshot::Receiver<Result<EngineGrant>>,
}

/// Places given up inside [`leave_together`] on this thread: the
/// engine (by address) and the places, left when it returns.
type Leaving = RefCell<Option<(usize, Vec<Place>)>>;

thread_local! {
    static LEAVING: Leaving = const { RefCell::new(None) };
}

impl<E: Queues> Wait<E> {
    pub(super) fn new(
        engine: Arc<E>,
        key: Arc<KeyId>,
        slot: KeySlot,
        waiter_id: u64,
        reply: oneshot::Receiver<Result<EngineGrant>>,
    ) -> Wait<E> {
        Wait {
            engine,
            place: Place {
                slot,
                key,
                waiter_id,
                reply,
            },
            done: false,
        }
    }
}

impl<E: Queues> Future for Wait<E> {
    type Output = Result<EngineGrant>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<EngineGrant>> {
        let polled = Pin::new(&mut self.place.reply).poll(cx);
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

impl<E: Queues> Drop for Wait<E> {
    fn drop(&mut self) {
        if self.done {
            return;
        }
        let (_, unused) = oneshot::channel();
        let place = Place {
            reply: std::mem::replace(&mut self.place.reply, unused),
            key: self.place.key.clone(),
            ..self.place
        };
        let engine = Arc::as_ptr(&self.engine) as usize;
        let deferred = LEAVING.with(|leaving| match leaving.borrow_mut().as_mut() {
            Some((of, places)) if *of == engine => {
                places.push(place);
                None
            }
            _ => Some(place),
        });
        if let Some(place) = deferred {
            let mut st = self.engine.lock();
            leave(&*self.engine, &mut st, [place]);
        }
    }
}

/// Runs `drop_waits`, which drops waits of `engine` (and must not await or
/// call the engine); their places are then given up together, under one
/// hold of the lock.
pub(super) fn leave_together<E: Queues>(engine: &E, drop_waits: impl FnOnce()) {
    let me = engine as *const E as usize;
    let outer = LEAVING.with(|leaving| leaving.borrow_mut().replace((me, Vec::new())));
    drop_waits();
    let places = LEAVING.with(|leaving| std::mem::replace(&mut *leaving.borrow_mut(), outer));
    let places = places.map(|(_, places)| places).unwrap_or_default();
    if !places.is_empty() {
        let mut st = engine.lock();
        leave(engine, &mut st, places);
    }
}

/// Gives up `places`: each leaves its queue (a grant that crossed is
/// released), then each queue left is served, since leaving may make
/// room for the next in the queue or leave the key idle.
fn leave<E: Queues>(engine: &E, st: &mut State, places: impl IntoIterator<Item = Place>) {
    let mut left: Vec<KeySlot> = Vec::new();
    for mut place in places {
        let ours = st
            .keys
            .get_mut(place.slot)
            .filter(|entry| *entry.id == *place.key);
        if let Some(entry) = ours {
            if entry.waiters.remove(place.waiter_id).is_some() {
                st.watchers.queue(&entry.id, entry.waiters.len());
            }
            if left.last() != Some(&place.slot) {
                left.push(place.slot);
            }
        }
        place.reply.close();
        if let Ok(Ok(grant)) = place.reply.try_recv() {
            st.detach(grant.id, "given up");
            left.push(place.slot);
        }
    }
    left.sort_unstable();
    left.dedup();
    let now = tokio::time::Instant::now();
    for slot in left {
        // Should the slot hold another key by now, serving its queue
        // does no harm either.
        engine.serve_queue(st, slot, now);
    }
}
