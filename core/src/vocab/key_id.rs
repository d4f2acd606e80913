//! `KeyId`: a group's name and a key, checked, as the engine and every
//! backend store them.

use crate::error::{Error, Result};
use crate::names::{check_key, check_name};

/// Which table a key lives in, exclusive locks (fenced), a semaphore, or
/// an election (fenced, one key per name), and its group's name and key, stored as one text so that a million held
/// keys cost one small allocation each. Only a valid name and key make one.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct KeyId {
    /// The group's name followed by the key.
    text: Box<str>,
    /// Where the name ends in `text` (a name is at most 128 bytes).
    name_len: u8,
    /// Whether this is an exclusive lock (or an election), whose leases
    /// carry fences.
    fenced: bool,
    /// Whether this is an election's one key: apart from every lock and
    /// semaphore of the same name.
    election: bool,
}

impl KeyId {
    /// The key `key` of the group `name`: an exclusive lock's when `fenced`,
    /// a semaphore's otherwise. Fails with `invalid`, naming the field, when
    /// the name is not 1 to 128 bytes of `A-Z a-z 0-9 . _ - :` or the key
    /// is not 1 to 1024 bytes.
    pub(crate) fn new(fenced: bool, name: &str, key: &str) -> Result<KeyId> {
        check_name(name)?;
        check_key(name, key)?;
        let name_len = u8::try_from(name.len())
            .map_err(|_| Error::internal(format!("name {name:?} passed its check too long")))?;
        Ok(KeyId {
            text: format!("{name}{key}").into_boxed_str(),
            name_len,
            fenced,
            election: false,
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
            fenced: true,
            election: true,
        })
    }

    /// Whether this is an election's key (its key text is empty).
    pub(crate) fn is_election(&self) -> bool {
        self.election
    }

    /// Whether this is an exclusive lock, whose leases carry fences.
    pub(crate) fn fenced(&self) -> bool {
        self.fenced
    }

    /// `lock`, `semaphore` or `election`: the kind of group, as the
    /// server's metrics label it.
    pub(crate) fn kind(&self) -> &'static str {
        if self.election {
            "election"
        } else if self.fenced {
            "lock"
        } else {
            "semaphore"
        }
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
        if self.election {
            return write!(f, "election {}", self.name());
        }
        let kind = if self.fenced { "lock" } else { "semaphore" };
        write!(f, "{kind} {}/{}", self.name(), self.key())
    }
}

#[cfg(test)]
mod tests {
    use super::KeyId;

    #[test]
    fn a_name_and_key_are_kept_apart_and_checked() {
        let id = KeyId::new(true, "orders", "42").unwrap();
        assert_eq!((id.name(), id.key(), id.fenced()), ("orders", "42", true));
        assert_eq!(id.to_string(), "lock orders/42");
        assert_ne!(id, KeyId::new(true, "orders4", "2").unwrap());
        assert_ne!(id, KeyId::new(false, "orders", "42").unwrap());
        let election = KeyId::election("orders").unwrap();
        assert_eq!(election.to_string(), "election orders");
        assert!(election.fenced() && election.is_election() && !id.is_election());
        assert_eq!((election.name(), election.key()), ("orders", ""));
        assert!(KeyId::election("a b").is_err());
        let long = "n".repeat(crate::MAX_NAME_BYTES);
        assert_eq!(KeyId::new(false, &long, "k").unwrap().name(), long);
        for (name, key, says) in [
            ("", "k", "name \"\" must be 1 to 128 bytes, not 0"),
            ("a b", "k", "name \"a b\" has ' '"),
            ("n", "", "key of n must be 1 to 1024 bytes, not 0"),
        ] {
            let err = KeyId::new(true, name, key).unwrap_err();
            assert_eq!(err.code(), crate::Code::Invalid);
            assert!(err.message().contains(says), "{err}");
        }
    }
}
