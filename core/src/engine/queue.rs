//! A key's queue of waiters, first come first served. Most keys have nobody
//! waiting, so an empty queue costs one null pointer.
//!
//! A caller may leave from anywhere in the queue (its wait was dropped). That
//! costs O(log n), not O(n): waiters' ids rise in the order they joined, so
//! the leaver is found by binary search and leaves a gap, and the gaps are
//! swept out once they outnumber the callers still waiting. A crowd of n
//! leaving one by one thus costs O(n log n) in all, never O(n²).

use crate::error::Result;
use crate::vocab::{EngineGrant, Request};
use std::collections::VecDeque;
use tokio::sync::oneshot;

/// One caller waiting in a key's queue.
pub(super) struct Waiter {
    pub id: u64,
    pub request: Request,
    pub reply: oneshot::Sender<Result<EngineGrant>>,
    /// When it joined the queue, in nanoseconds since the engine started.
    pub queued_at: u64,
}

/// The callers waiting for one key, in order of arrival.
#[derive(Default)]
pub(super) struct Queue(Option<Box<Places>>);

/// A non-empty queue: places in order of arrival, some left empty by
/// callers who left.
struct Places {
    places: VecDeque<(u64, Option<Waiter>)>,
    /// How many places still hold a caller.
    waiting: usize,
}

impl Queue {
    /// Whether nobody waits.
    pub(super) fn is_empty(&self) -> bool {
        self.0.is_none()
    }

    /// How many wait.
    pub(super) fn len(&self) -> usize {
        self.0.as_ref().map_or(0, |q| q.waiting)
    }

    /// Puts a caller at the end of the queue. Its id must be larger than
    /// every id already in the queue (the engine hands out rising ids).
    pub(super) fn push_back(&mut self, waiter: Waiter) {
        let queue = self.0.get_or_insert_with(|| {
            Box::new(Places {
                places: VecDeque::new(),
                waiting: 0,
            })
        });
        debug_assert!(queue.places.back().is_none_or(|(id, _)| *id < waiter.id));
        queue.places.push_back((waiter.id, Some(waiter)));
        queue.waiting += 1;
    }

    /// The first caller in the queue, left in it.
    pub(super) fn front(&self) -> Option<&Waiter> {
        let queue = self.0.as_ref()?;
        queue.places.iter().find_map(|(_, place)| place.as_ref())
    }

    /// Takes the first caller in the queue.
    pub(super) fn pop_front(&mut self) -> Option<Waiter> {
        let queue = self.0.as_mut()?;
        let mut first = None;
        while first.is_none() {
            match queue.places.pop_front() {
                Some((_, place)) => first = place,
                None => break,
            }
        }
        if first.is_some() {
            queue.waiting -= 1;
        }
        self.forget_if_empty();
        first
    }

    /// Takes the caller `id` out of the queue, wherever it stands.
    pub(super) fn remove(&mut self, id: u64) -> Option<Waiter> {
        let queue = self.0.as_mut()?;
        let at = queue.places.binary_search_by_key(&id, |(id, _)| *id).ok()?;
        let gone = queue.places[at].1.take()?;
        queue.waiting -= 1;
        while queue.places.front().is_some_and(|(_, p)| p.is_none()) {
            queue.places.pop_front();
        }
        if queue.places.len() > 2 * queue.waiting + 16 {
            queue.places.retain(|(_, p)| p.is_some());
        }
        self.forget_if_empty();
        Some(gone)
    }

    /// Takes everyone out of the queue.
    pub(super) fn take_all(&mut self) -> Vec<Waiter> {
        let Some(queue) = self.0.take() else {
            return Vec::new();
        };
        queue.places.into_iter().filter_map(|(_, p)| p).collect()
    }

    fn forget_if_empty(&mut self) {
        if self.0.as_ref().is_some_and(|q| q.waiting == 0) {
            self.0 = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vocab::Request;

    fn waiter(id: u64) -> Waiter {
        let (reply, _) = tokio::sync::oneshot::channel();
        let request =
            Request::new("n", "k", crate::vocab::Ask::Lock, crate::Options::default()).unwrap();
        Waiter {
            id,
            request,
            reply,
            queued_at: 0,
        }
    }

    #[test]
    fn callers_leave_from_anywhere_and_the_rest_keep_their_order() {
        let mut waiting = Queue::default();
        for id in 1..=1000 {
            waiting.push_back(waiter(id));
        }
        for id in (1..=1000).filter(|id| id % 3 != 0) {
            assert_eq!(waiting.remove(id).map(|w| w.id), Some(id));
        }
        assert!(waiting.remove(1).is_none(), "a caller leaves once");
        assert!(
            waiting.remove(5000).is_none(),
            "an unknown caller is not found"
        );
        assert_eq!(waiting.len(), 333);
        let order: Vec<u64> = std::iter::from_fn(|| waiting.pop_front().map(|w| w.id)).collect();
        assert_eq!(
            order,
            (1..=1000).filter(|id| id % 3 == 0).collect::<Vec<_>>()
        );
        assert!(waiting.is_empty());
    }

    #[test]
    fn a_queue_left_by_everyone_is_empty_and_gaps_do_not_pile_up() {
        let mut waiting = Queue::default();
        waiting.push_back(waiter(1));
        for id in 2..10_000 {
            waiting.push_back(waiter(id));
            waiting.remove(id);
        }
        let places = waiting.0.as_ref().map_or(0, |q| q.places.len());
        assert!(places <= 2 + 16, "{places} places kept for one caller");
        assert_eq!(waiting.remove(1).map(|w| w.id), Some(1));
        assert!(waiting.is_empty());
        assert_eq!(waiting.take_all().len(), 0);
    }
}
