//! `Leader`: an election's leader as everyone sees it, its value and term.

use crate::fence::Fence;

/// The leader of an election: the value its campaign gave and its term (the
/// fence of its leadership), larger than every earlier leader's term.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Leader {
    /// What the leader said it is when it campaigned (at most 1,024 bytes).
    pub value: String,
    /// Its term: a fence, larger than every earlier leader's.
    pub fence: Fence,
}

impl Leader {
    /// The leader's value.
    pub fn value(&self) -> &str {
        &self.value
    }

    /// The leader's term.
    pub fn fence(&self) -> Fence {
        self.fence
    }
}
