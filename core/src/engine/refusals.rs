//! Late writes refused by guards, counted per group: a lease's holder
//! tells its store when a guard refused a write under it
//! (`Lease::report_refused`), and the engine (`Engine::refused`) keeps one
//! count per kind and name here, since the store opened. Bounded: the
//! first [`MAX_REFUSAL_GROUPS`] groups get a count of their own; later
//! ones are counted under the name `other` of their kind.

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
    pub(super) fn count<'n>(&mut self, kind: GroupKind, name: &'n str) -> &'n str {
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
    pub(super) fn listed(&self) -> Vec<RefusedStatus> {
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
