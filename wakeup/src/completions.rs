//! The one completion queue every binding hands finished work through:
//! threads that finish something [`push`](Completions::push) it, and the
//! one thread that owns the results (an event loop, Go's poller) takes
//! them all at once. A push that finds the queue empty is told so
//! ([`Pushed::First`]): only then does the pusher wake the owner (a
//! [`Wakeup`](crate::Wakeup), or Node's threadsafe function), so a burst of
//! results costs the owner one wake-up. Once [`closed`](Completions::close)
//! (the owner is gone), a push gives its item back to be given up.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard};

/// Items finished on any thread, waiting for their owner's thread.
pub struct Completions<T> {
    items: Mutex<Vec<T>>,
    closed: AtomicBool,
}

/// What became of a pushed item.
#[derive(Debug, PartialEq, Eq)]
pub enum Pushed<T> {
    /// Queued, and the queue was empty: wake the owner.
    First,
    /// Queued behind others: the owner was woken for them already.
    Behind,
    /// The owner is gone: the item, to give up.
    Closed(T),
}

impl<T> Default for Completions<T> {
    fn default() -> Self {
        Completions::new()
    }
}

impl<T> Completions<T> {
    /// An empty, open queue (usable in a `static`).
    pub const fn new() -> Completions<T> {
        Completions {
            items: Mutex::new(Vec::new()),
            closed: AtomicBool::new(false),
        }
    }

    fn items(&self) -> MutexGuard<'_, Vec<T>> {
        self.items.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Queues `item`, and says whether to wake the owner.
    pub fn push(&self, item: T) -> Pushed<T> {
        let mut items = self.items();
        if self.closed.load(Ordering::SeqCst) {
            return Pushed::Closed(item);
        }
        items.push(item);
        if items.len() == 1 {
            Pushed::First
        } else {
            Pushed::Behind
        }
    }

    /// Takes everything queued, oldest first.
    pub fn take(&self) -> Vec<T> {
        std::mem::take(&mut *self.items())
    }

    /// Takes at most `n` of the items queued, oldest first; the rest stay.
    pub fn take_up_to(&self, n: usize) -> Vec<T> {
        let mut items = self.items();
        let n = n.min(items.len());
        items.drain(..n).collect()
    }

    /// Whether nothing is queued.
    pub fn is_empty(&self) -> bool {
        self.items().is_empty()
    }

    /// The owner is gone: takes what is queued, and every later push gives
    /// its item back ([`Pushed::Closed`]).
    pub fn close(&self) -> Vec<T> {
        let mut items = self.items();
        self.closed.store(true, Ordering::SeqCst);
        std::mem::take(&mut *items)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn the_first_push_after_a_take_says_wake_and_the_others_do_not() {
        let q = Completions::new();
        assert_eq!(q.push(1), Pushed::First);
        assert_eq!(q.push(2), Pushed::Behind);
        assert_eq!(q.take(), vec![1, 2]);
        assert!(q.is_empty());
        assert_eq!(q.push(3), Pushed::First);
    }

    #[test]
    fn take_up_to_leaves_the_rest_in_order() {
        let q = Completions::new();
        (1..=5).for_each(|i| {
            q.push(i);
        });
        assert_eq!(q.take_up_to(2), vec![1, 2]);
        assert_eq!(q.take_up_to(10), vec![3, 4, 5]);
        assert_eq!(q.take_up_to(1), Vec::<i32>::new());
    }

    #[test]
    fn a_closed_queue_gives_back_what_it_held_and_every_later_push() {
        let q = Completions::new();
        q.push("a");
        assert_eq!(q.close(), vec!["a"]);
        assert_eq!(q.push("b"), Pushed::Closed("b"));
        assert!(q.take().is_empty());
    }

    #[test]
    fn pushes_from_many_threads_are_all_taken_and_each_burst_wakes_once() {
        let q = Arc::new(Completions::new());
        let threads: Vec<_> = (0..4)
            .map(|t| {
                let q = q.clone();
                std::thread::spawn(move || {
                    (0..1000)
                        .filter(|i| q.push(t * 1000 + i) == Pushed::First)
                        .count()
                })
            })
            .collect();
        // Each First is the queue going from empty to not; each take that
        // finds items brings it back: the two counts match exactly.
        let (mut taken, mut emptied) = (Vec::new(), 0);
        let mut take = |taken: &mut Vec<i32>| {
            let batch = q.take();
            emptied += usize::from(!batch.is_empty());
            taken.extend(batch);
        };
        while !threads.iter().all(|t| t.is_finished()) {
            take(&mut taken);
            std::thread::yield_now();
        }
        let wakes: usize = threads.into_iter().map(|t| t.join().unwrap()).sum();
        take(&mut taken);
        taken.sort_unstable();
        assert_eq!(taken, (0..4000).collect::<Vec<_>>());
        assert_eq!(wakes, emptied);
    }
}
