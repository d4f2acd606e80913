//! The held leases, in a slab: a lease's id names its slot and the slot's
//! generation, so that an id of an ended lease never finds a later lease
//! in the same slot. A million leases cost one slot each, with no hash
//! table doubling under them.

use super::record::LeaseRecord;
use crate::vocab::LeaseId;

struct Slot {
    /// Bumped each time the slot is given to a new lease.
    generation: u32,
    held: Option<LeaseRecord>,
}

/// The held leases by id.
#[derive(Default)]
pub(super) struct Leases {
    slots: Vec<Slot>,
    /// Slots without a lease, to be used first.
    free: Vec<u32>,
    len: usize,
}

fn id_of(slot: u32, generation: u32) -> LeaseId {
    (u64::from(generation) << 32) | u64::from(slot)
}

fn parts(id: LeaseId) -> (usize, u32) {
    ((id & u64::from(u32::MAX)) as usize, (id >> 32) as u32)
}

impl Leases {
    /// How many leases are held.
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// Stores a lease and returns its new id, or `None` when all 2^32 slots
    /// are used.
    pub(super) fn insert(&mut self, held: LeaseRecord) -> Option<LeaseId> {
        let slot = match self.free.pop() {
            Some(slot) => slot,
            None => {
                let slot = u32::try_from(self.slots.len()).ok()?;
                self.slots.push(Slot {
                    generation: 0,
                    held: None,
                });
                slot
            }
        };
        let entry = &mut self.slots[slot as usize];
        // Generations start at 1, so that no id is 0.
        entry.generation = entry.generation.wrapping_add(1).max(1);
        entry.held = Some(held);
        self.len += 1;
        Some(id_of(slot, entry.generation))
    }

    /// The lease `id`, if it is held.
    pub(super) fn get(&self, id: LeaseId) -> Option<&LeaseRecord> {
        let (slot, generation) = parts(id);
        let entry = self.slots.get(slot)?;
        (entry.generation == generation)
            .then_some(entry.held.as_ref())
            .flatten()
    }

    /// The lease `id`, if it is held, to change.
    pub(super) fn get_mut(&mut self, id: LeaseId) -> Option<&mut LeaseRecord> {
        let (slot, generation) = parts(id);
        let entry = self.slots.get_mut(slot)?;
        if entry.generation != generation {
            return None;
        }
        entry.held.as_mut()
    }

    /// Removes the lease `id`, returning it if it was held.
    pub(super) fn remove(&mut self, id: LeaseId) -> Option<LeaseRecord> {
        let (slot, generation) = parts(id);
        let entry = self.slots.get_mut(slot)?;
        if entry.generation != generation {
            return None;
        }
        let held = entry.held.take()?;
        self.free.push(slot as u32);
        self.len -= 1;
        Some(held)
    }

    /// Every held lease with its id.
    pub(super) fn iter(&self) -> impl Iterator<Item = (LeaseId, &LeaseRecord)> {
        self.slots.iter().enumerate().filter_map(|(slot, entry)| {
            let held = entry.held.as_ref()?;
            Some((id_of(slot as u32, entry.generation), held))
        })
    }

    /// Removes every lease, returning them with their ids.
    pub(super) fn drain(&mut self) -> Vec<(LeaseId, LeaseRecord)> {
        let mut all = Vec::with_capacity(self.len);
        for (slot, entry) in self.slots.iter_mut().enumerate() {
            if let Some(held) = entry.held.take() {
                all.push((id_of(slot as u32, entry.generation), held));
                self.free.push(slot as u32);
            }
        }
        self.len = 0;
        all
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::super::record::{LeaseRecord, LostTeller};
    use super::*;
    use tokio::sync::mpsc;

    /// A lease on key slot 0 that runs out at `expires`.
    pub(crate) fn held(expires: u64) -> LeaseRecord {
        let (tx, _rx) = mpsc::unbounded_channel();
        LeaseRecord {
            key: 0,
            count: 0,
            expires,
            ends_by: u64::MAX,
            weight: 1,
            lost: LostTeller::Channel(tx),
            ttl_ms: 1,
            renewing: false,
            granted_at: 0,
            data: None,
        }
    }

    #[test]
    fn an_ended_lease_id_never_finds_the_next_lease_in_its_slot() {
        let mut leases = Leases::default();
        let first = leases.insert(held(1)).unwrap();
        assert!(leases.remove(first).is_some());
        let second = leases.insert(held(2)).unwrap();
        assert_ne!(first, second, "the slot is reused with a new generation");
        assert!(leases.get(first).is_none());
        assert!(leases.remove(first).is_none());
        assert_eq!(leases.get(second).map(|h| h.expires), Some(2));
        assert_eq!(leases.len(), 1);
        assert_eq!(
            leases.iter().map(|(id, _)| id).collect::<Vec<_>>(),
            [second]
        );
    }

    #[test]
    fn drain_ends_every_lease() {
        let mut leases = Leases::default();
        let ids: Vec<_> = (0..5).map(|n| leases.insert(held(n)).unwrap()).collect();
        leases.remove(ids[2]);
        let drained: Vec<_> = leases.drain().into_iter().map(|(id, _)| id).collect();
        assert_eq!(drained, [ids[0], ids[1], ids[3], ids[4]]);
        assert_eq!(leases.len(), 0);
        assert!(ids.iter().all(|id| leases.get(*id).is_none()));
    }
}
