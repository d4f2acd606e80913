//! `KeyId`: a group's name and a key, checked, as the engine and every
//! backend store them.

use crate::error::{Error, Result};
use crate::names::{check_key, check_name};

/// The kind of group a key belongs to. Each kind is a table of its own: a
/// lock group, a semaphore, a read-write lock group and an election of the
/// same name never share a key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum GroupKind {
    /// Exclusive locks, whose leases carry fences.
    Lock,
    /// Semaphores, whose permits carry none.
    Semaphore,
    /// Read-write locks: a write lease carries a fence, a read lease none.
    RwLock,
    /// An election's one key, whose leader's term is a fence.
    Election,
}

impl GroupKind {
    /// `lock`, `semaphore`, `rwlock` or `election`, as the server's
    /// metrics, the audit log, status and the wire name the kind.
    pub(crate) fn label(self) -> &'static str {
        match self {
            GroupKind::Lock => "lock",
            GroupKind::Semaphore => "semaphore",
            GroupKind::RwLock => "rwlock",
            GroupKind::Election => "election",
        }
    }

    /// The kind a [`label`](Self::label) names, if any.
    pub(crate) fn from_label(label: &str) -> Option<GroupKind> {
        [
            GroupKind::Lock,
            GroupKind::Semaphore,
            GroupKind::RwLock,
            GroupKind::Election,
        ]
        .into_iter()
        .find(|kind| kind.label() == label)
    }
}

/// Which table a key lives in (its [`GroupKind`]), and its group's name and
/// key, stored as one text so that a million held keys cost one small
/// allocation each. Only a valid name and key make one.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct KeyId {
    /// The group's name followed by the key.
    text: Box<str>,
    /// Where the name ends in `text` (a name is at most 128 bytes).
    name_len: u8,
    /// The kind of group.
    kind: GroupKind,
}

impl KeyId {
    /// The key `key` of the group `name` of kind `kind` (not an election:
    /// see [`KeyId::election`]). Fails with `invalid`, naming the field,
    /// when the name is not 1 to 128 bytes of `A-Z a-z 0-9 . _ - :` or the
    /// key is not 1 to 1024 bytes.
    pub(crate) fn new(kind: GroupKind, name: &str, key: &str) -> Result<KeyId> {
        check_name(name)?;
        check_key(name, key)?;
        let name_len = u8::try_from(name.len())
            .map_err(|_| Error::internal(format!("name {name:?} passed its check too long")))?;
        Ok(KeyId {
            text: format!("{name}{key}").into_boxed_str(),
            name_len,
            kind,
        })
    }

    /// The one key of the election `name`: fenced (its fence is the
    /// leader's term), and apart from the lock group and semaphore of the
    /// same name. Fails with `invalid` when the name is not 1 to 128 bytes
    /// of `A-Z a-z 0-9 . _ - :`.
    pub(crate) fn election(name: &str) -> Result<KeyId> {
        check_name(name)?;
        let name_len = u8::try_from(name.len())
            .map_err(|_| Error::internal(format!("name {name:?} passed its check too long")))?;
        Ok(KeyId {
            text: name.into(),
            name_len,
            kind: GroupKind::Election,
        })
    }

    /// Whether this is an election's key (its key text is empty).
    pub(crate) fn is_election(&self) -> bool {
        self.kind == GroupKind::Election
    }

    /// The kind of group.
    pub(crate) fn group_kind(&self) -> GroupKind {
        self.kind
    }

    /// `lock`, `semaphore`, `rwlock` or `election`: the kind of group, as
    /// the server's metrics, the audit log and status label it.
    pub(crate) fn kind(&self) -> &'static str {
        self.kind.label()
    }

    /// The group's name.
    pub(crate) fn name(&self) -> &str {
        &self.text[..usize::from(self.name_len)]
    }

    /// The key within the group.
    pub(crate) fn key(&self) -> &str {
        &self.text[usize::from(self.name_len)..]
    }
}

impl std::fmt::Display for KeyId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.is_election() {
            return write!(f, "election {}", self.name());
        }
        write!(f, "{} {}/{}", self.kind(), self.name(), self.key())
    }
}

#[cfg(test)]
mod tests {
    use super::{GroupKind, KeyId};

    #[test]
    fn a_name_and_key_are_kept_apart_and_checked() {
        let id = KeyId::new(GroupKind::Lock, "orders", "42").unwrap();
        assert_eq!((id.name(), id.key()), ("orders", "42"));
        assert_eq!(id.to_string(), "lock orders/42");
        assert_ne!(id, KeyId::new(GroupKind::Lock, "orders4", "2").unwrap());
        assert_ne!(
            id,
            KeyId::new(GroupKind::Semaphore, "orders", "42").unwrap()
        );
        let election = KeyId::election("orders").unwrap();
        assert_eq!(election.to_string(), "election orders");
        assert!(election.is_election() && !id.is_election());
        assert_eq!((election.name(), election.key()), ("orders", ""));
        assert!(KeyId::election("a b").is_err());
        let long = "n".repeat(crate::MAX_NAME_BYTES);
        assert_eq!(
            KeyId::new(GroupKind::Semaphore, &long, "k").unwrap().name(),
            long
        );
        for (name, key, says) in [
            ("", "k", "name \"\" must be 1 to 128 bytes, not 0"),
            ("a b", "k", "name \"a b\" has ' '"),
            ("n", "", "key of n must be 1 to 1024 bytes, not 0"),
        ] {
            let err = KeyId::new(GroupKind::Lock, name, key).unwrap_err();
            assert_eq!(err.code(), crate::Code::Invalid);
            assert!(err.message().contains(says), "{err}");
        }
    }
}
