//! Late writes refused by guards, counted per group: a lease's holder
//! tells its store when a guard refused a write under it
//! (`Lease::report_refused`), and the engine keeps one count per kind and
//! name, since the store opened. Bounded: the first [`MAX_REFUSAL_GROUPS`]
//! groups get a count of their own; later ones are counted under the name
//! `other` of their kind.

use super::Engine;
use crate::status::RefusedStatus;
use crate::vocab::GroupKind;
use std::collections::HashMap;

/// How many groups have a count of their own; the rest count as `other`.
pub(super) const MAX_REFUSAL_GROUPS: usize = 1_000;

/// The counts, by kind and name.
#[derive(Default)]
pub(super) struct Refusals {
    by_group: HashMap<(GroupKind, Box<str>), u64>,
}

impl Refusals {
    /// Counts one refusal of group `name` of `kind`; the name it was
    /// counted under (`other` past [`MAX_REFUSAL_GROUPS`]).
    fn count<'n>(&mut self, kind: GroupKind, name: &'n str) -> &'n str {
        let key = (kind, Box::<str>::from(name));
        let name = if self.by_group.contains_key(&key) || self.by_group.len() < MAX_REFUSAL_GROUPS {
            name
        } else {
            "other"
        };
        let count = self.by_group.entry((kind, name.into())).or_default();
        *count = count.saturating_add(1);
        name
    }

    /// Every group's count, by name then kind.
    fn listed(&self) -> Vec<RefusedStatus> {
        let mut all: Vec<RefusedStatus> = self
            .by_group
            .iter()
            .map(|((kind, name), refused)| RefusedStatus {
                name: name.to_string(),
                kind: kind.label().to_string(),
                refused: *refused,
            })
            .collect();
        all.sort_unstable_by(|a, b| (&a.name, &a.kind).cmp(&(&b.name, &b.kind)));
        all
    }
}

impl Engine {
    /// A guard refused a late write under a lease of group `name` of
    /// `kind` (its name checked by the caller): counted, and told to the
    /// tally (the server's metrics). Quick; never fails.
    pub(crate) fn refused(&self, kind: GroupKind, name: &str) {
        let counted = self.refusals().count(kind, name).to_string();
        let tally = self.lock().tally.clone();
        if let Some(tally) = tally {
            tally.refused(kind.label(), &counted);
        }
    }

    /// The late writes refused so far, per group, by name then kind.
    pub(crate) fn refused_by_group(&self) -> Vec<RefusedStatus> {
        self.refusals().listed()
    }

    fn refusals(&self) -> std::sync::MutexGuard<'_, Refusals> {
        self.refusals
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}
