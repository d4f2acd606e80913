//! When leases run out: a min-heap of (deadline, lease id). Entries are not
//! removed when a lease is released or renewed; an entry counts only while
//! its lease is still held with that very deadline, and the heap is rebuilt
//! when such stale entries outnumber the live ones.

use super::leases::Leases;
use crate::vocab::LeaseId;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Lease deadlines, in nanoseconds since the engine's start.
#[derive(Default)]
pub(super) struct Deadlines {
    heap: BinaryHeap<Reverse<(u64, LeaseId)>>,
}

/// Whether `entry` still stands for a lease's deadline.
fn is_live(leases: &Leases, (at, id): (u64, LeaseId)) -> bool {
    leases.get(id).is_some_and(|held| held.expires == at)
}

impl Deadlines {
    /// Records that lease `id` runs out at `at`; rebuilds the heap first
    /// when most of it is stale.
    pub(super) fn push(&mut self, at: u64, id: LeaseId, leases: &Leases) {
        if self.heap.len() >= 64 && self.heap.len() > 2 * leases.len() {
            let live: Vec<_> = self
                .heap
                .drain()
                .filter(|Reverse(entry)| is_live(leases, *entry))
                .collect();
            self.heap = BinaryHeap::from(live);
        }
        self.heap.push(Reverse((at, id)));
    }

    /// The earliest deadline recorded; it may be stale, which only wakes
    /// the scheduler early.
    pub(super) fn first(&self) -> Option<u64> {
        self.heap.peek().map(|Reverse((at, _))| *at)
    }

    /// Removes and returns the next lease whose deadline is at or before
    /// `now`, skipping stale entries.
    pub(super) fn pop_due(&mut self, now: u64, leases: &Leases) -> Option<LeaseId> {
        while let Some(Reverse(entry)) = self.heap.peek().copied() {
            if entry.0 > now {
                return None;
            }
            self.heap.pop();
            if is_live(leases, entry) {
                return Some(entry.1);
            }
        }
        None
    }

    /// Forgets every deadline.
    pub(super) fn clear(&mut self) {
        self.heap.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::super::leases::tests::held;
    use super::*;

    #[test]
    fn released_and_renewed_leases_are_skipped() {
        let mut leases = Leases::default();
        let mut deadlines = Deadlines::default();
        let a = leases.insert(held(10)).unwrap();
        let b = leases.insert(held(20)).unwrap();
        let c = leases.insert(held(30)).unwrap();
        for id in [a, b, c] {
            let at = leases.get(id).unwrap().expires;
            deadlines.push(at, id, &leases);
        }
        leases.remove(a);
        leases.get_mut(b).unwrap().expires = 40;
        deadlines.push(40, b, &leases);
        assert_eq!(deadlines.pop_due(35, &leases), Some(c));
        assert_eq!(deadlines.pop_due(35, &leases), None);
        assert_eq!(deadlines.pop_due(40, &leases), Some(b));
        assert_eq!(deadlines.first(), None);
    }

    #[test]
    fn stale_entries_do_not_pile_up() {
        let mut leases = Leases::default();
        let mut deadlines = Deadlines::default();
        let kept = leases.insert(held(1_000_000)).unwrap();
        deadlines.push(1_000_000, kept, &leases);
        for n in 0..10_000 {
            let id = leases.insert(held(n)).unwrap();
            deadlines.push(n, id, &leases);
            leases.remove(id);
        }
        assert!(
            deadlines.heap.len() <= 64,
            "{} entries",
            deadlines.heap.len()
        );
        assert_eq!(deadlines.pop_due(u64::MAX, &leases), Some(kept));
    }
}
