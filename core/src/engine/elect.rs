//! The engine's side of elections: an election is its one key in a table of
//! its own, and the engine tells the election [`Registry`] where that key's
//! holder is granted and where its holders have settled, under the engine's
//! lock, so every observer sees the changes in the engine's own order.

use super::keys::KeySlot;
use super::state::State;
use super::{check_open, Engine};
use crate::election::{Leader, Observer};
use crate::error::Result;
use crate::fence::Fence;
use crate::names::check_name;
use crate::vocab::Request;
use tokio::time::Instant;

impl Engine {
    /// The leader of the election `name` now, after ending leases that ran
    /// out; `None` when nobody leads.
    pub(crate) fn leader(&self, name: &str) -> Result<Option<Leader>> {
        check_name(name)?;
        let mut st = self.lock();
        self.reap(&mut st, Instant::now());
        check_open(&st)?;
        Ok(self.elections.leader(name))
    }

    /// Every change of the leader of the election `name`, starting from the
    /// leader now.
    pub(crate) fn observe(&self, name: &str) -> Result<Observer> {
        check_name(name)?;
        let mut st = self.lock();
        self.reap(&mut st, Instant::now());
        check_open(&st)?;
        self.elections.observe(name)
    }

    /// The value of the leader of `key`'s election whose term has the count
    /// `count`, when `key` is an election's; for status.
    pub(super) fn leader_value(&self, key: &crate::vocab::KeyId, count: u64) -> Option<String> {
        if !key.is_election() {
            return None;
        }
        let leader = self.elections.leader(key.name())?;
        (leader.fence.count() == count).then_some(leader.value)
    }

    /// A lease was granted for `request`: when it is a campaign, its value
    /// and term are the election's next leader (told at the next settle).
    pub(super) fn granted_holder(&self, request: &Request, fence: Option<Fence>) {
        if let (true, Some(fence)) = (request.key().is_election(), fence) {
            let value = request.value().unwrap_or_default();
            self.elections.granted(request.key().name(), value, fence);
        }
    }

    /// The holders of the key in `slot` have settled after grants and ends:
    /// when it is an election's, its observers are told a new leader.
    pub(super) fn settled(&self, st: &State, slot: KeySlot) {
        if let Some(key) = st.keys.get(slot).filter(|k| k.id.is_election()) {
            self.elections.settle(key.id.name(), key.used > 0);
        }
    }
}
