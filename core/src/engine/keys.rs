//! The keys held or waited for: a slab of key states, found by a hash table
//! of slot numbers. A key costs its text and one slot, and a lease names
//! its key by slot, so a million held keys stay small.

use super::queue::Queue;
use crate::vocab::KeyId;
use hashbrown::HashTable;
use std::hash::{BuildHasher, RandomState};
use std::sync::Arc;

/// A key as the engine keeps it: shared with the request that made it and
/// with what watchers are sent, never copied.
pub(super) type SharedKey = Arc<KeyId>;

/// Where a key's state lives, stable while the key is held or waited for.
pub(super) type KeySlot = u32;

/// A key's holders and queue; removed when both are empty.
pub(super) struct KeyState {
    pub id: SharedKey,
    /// The places the key has (1 for a lock).
    pub limit: u32,
    /// The places its holders take now (each lease its weight).
    pub used: u32,
    pub waiters: Queue,
}

impl KeyState {
    /// Whether nobody holds the key or waits for it.
    pub(super) fn is_idle(&self) -> bool {
        self.used == 0 && self.waiters.is_empty()
    }
}

/// The keys by id and by slot.
#[derive(Default)]
pub(super) struct Keys {
    index: HashTable<KeySlot>,
    slots: Vec<Option<KeyState>>,
    free: Vec<KeySlot>,
    hasher: RandomState,
}

impl Keys {
    /// The slot of `id`, if the key is known.
    pub(super) fn find(&self, id: &KeyId) -> Option<KeySlot> {
        let hash = self.hasher.hash_one(id);
        let slots = &self.slots;
        self.index
            .find(hash, |&slot| {
                state(slots, slot).is_some_and(|k| *k.id == *id)
            })
            .copied()
    }

    /// The slot of `id`, made with `limit` places and none used if it is new.
    pub(super) fn find_or_insert(&mut self, id: &SharedKey, limit: u32) -> KeySlot {
        if let Some(slot) = self.find(id) {
            return slot;
        }
        let fresh = KeyState {
            id: id.clone(),
            limit,
            used: 0,
            waiters: Queue::default(),
        };
        let slot = match self.free.pop() {
            Some(slot) => {
                self.slots[slot as usize] = Some(fresh);
                slot
            }
            None => {
                self.slots.push(Some(fresh));
                (self.slots.len() - 1) as KeySlot
            }
        };
        let Keys {
            index,
            slots,
            hasher,
            ..
        } = self;
        let hash = hasher.hash_one(&**id);
        index.insert_unique(hash, slot, |&s| {
            state(slots, s).map_or(0, |k| hasher.hash_one(&*k.id))
        });
        slot
    }

    /// The key in `slot`.
    pub(super) fn get(&self, slot: KeySlot) -> Option<&KeyState> {
        state(&self.slots, slot)
    }

    /// The key in `slot`, to change.
    pub(super) fn get_mut(&mut self, slot: KeySlot) -> Option<&mut KeyState> {
        self.slots.get_mut(slot as usize)?.as_mut()
    }

    /// Forgets the key in `slot`; its slot may then name another key.
    pub(super) fn remove(&mut self, slot: KeySlot) -> Option<KeyState> {
        let hash = self.hasher.hash_one(&*self.get(slot)?.id);
        if let Ok(entry) = self.index.find_entry(hash, |&s| s == slot) {
            entry.remove();
        }
        self.free.push(slot);
        self.slots[slot as usize].take()
    }

    /// Every key with its slot.
    pub(super) fn iter(&self) -> impl Iterator<Item = (KeySlot, &KeyState)> {
        self.slots
            .iter()
            .enumerate()
            .filter_map(|(slot, k)| Some((slot as KeySlot, k.as_ref()?)))
    }

    /// The slots of every key.
    pub(super) fn slots(&self) -> Vec<KeySlot> {
        self.iter().map(|(slot, _)| slot).collect()
    }

    /// Forgets every key, returning them.
    pub(super) fn drain(&mut self) -> Vec<KeyState> {
        self.index.clear();
        self.free.clear();
        std::mem::take(&mut self.slots)
            .into_iter()
            .flatten()
            .collect()
    }
}

fn state(slots: &[Option<KeyState>], slot: KeySlot) -> Option<&KeyState> {
    slots.get(slot as usize)?.as_ref()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_found_by_id_and_slots_are_reused() {
        let mut keys = Keys::default();
        let a = Arc::new(KeyId::new(crate::vocab::GroupKind::Lock, "n", "a").unwrap());
        let b = Arc::new(KeyId::new(crate::vocab::GroupKind::Lock, "n", "b").unwrap());
        let sa = keys.find_or_insert(&a, 1);
        let sb = keys.find_or_insert(&b, 1);
        assert_ne!(sa, sb);
        assert_eq!(keys.find_or_insert(&a, 1), sa);
        assert_eq!(
            keys.find(&KeyId::new(crate::vocab::GroupKind::Semaphore, "n", "a").unwrap()),
            None,
            "a semaphore is another key"
        );
        assert_eq!(keys.remove(sa).map(|k| k.id), Some(a.clone()));
        assert_eq!(keys.find(&a), None);
        let c = Arc::new(KeyId::new(crate::vocab::GroupKind::Lock, "n", "c").unwrap());
        let sc = keys.find_or_insert(&c, 1);
        assert_eq!(sc, sa, "the freed slot is used again");
        assert_eq!(keys.find(&b), Some(sb));
        assert_eq!(keys.find(&c), Some(sc));
        let mut all: Vec<_> = keys.drain().into_iter().map(|k| k.id).collect();
        all.sort_by(|x, y| x.key().cmp(y.key()));
        assert_eq!(all, [b, c]);
    }

    #[test]
    fn many_keys_survive_the_table_growing() {
        let mut keys = Keys::default();
        let ids: Vec<_> = (0..5_000)
            .map(|n| {
                Arc::new(KeyId::new(crate::vocab::GroupKind::Lock, "g", &n.to_string()).unwrap())
            })
            .collect();
        let slots: Vec<_> = ids.iter().map(|id| keys.find_or_insert(id, 1)).collect();
        for (id, slot) in ids.iter().zip(&slots) {
            assert_eq!(keys.find(id), Some(*slot));
            assert_eq!(keys.get(*slot).map(|k| &k.id), Some(id));
        }
        for slot in slots.iter().step_by(2) {
            keys.remove(*slot);
        }
        for (n, id) in ids.iter().enumerate() {
            assert_eq!(keys.find(id).is_some(), n % 2 == 1, "key {n}");
        }
    }
}
