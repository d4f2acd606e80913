//! Where things live in etcd, under the address's prefix `P`:
//!
//! - `/P/epoch`: the epoch, decimal milliseconds, set once.
//! - `/P/lock/NAME/KEY/LEASE` and `/P/semaphore/NAME/KEY/LEASE`: one entry
//!   per caller waiting for or holding KEY, attached to its client's shared
//!   etcd lease for its TTL; LEASE is that etcd lease's id (16 hex digits),
//!   a dash and the lease's number in its client. Its value is the limit it asked for. The queue
//!   is the entries in the order of their create revisions; the first
//!   `limit` hold the key.
//!
//! - `/P/election/NAME/line/LEASE`: the queue of the election NAME, as a
//!   lock's queue; an entry's value is its campaign's value. (The
//!   directory keeps the name `line/` it had when a queue was called a
//!   line, so that stores kept on etcd before stay readable.)
//! - `/P/election/NAME/leader`: the leader's value, written by the grant's
//!   transaction (so its mod revision is the term's count) and attached to
//!   the leader's (shared) etcd lease, so it goes with it; a leadership that
//!   ends alone deletes it with its entry (guard.rs).
//!
//! In KEY, `%` is written `%25` and `/` is written `%2F`, so that no key's
//! entries fall under another key's directory. NAME never holds a `/`.

use crate::vocab::{KeyId, Request};

/// The etcd key names of one store.
#[derive(Debug, Clone)]
pub(crate) struct Layout {
    root: String,
}

impl Layout {
    /// The layout under `prefix` (without slashes around it).
    pub(crate) fn new(prefix: &str) -> Layout {
        Layout {
            root: format!("/{prefix}"),
        }
    }

    /// The key that holds the epoch.
    pub(crate) fn epoch(&self) -> String {
        format!("{}/epoch", self.root)
    }

    /// The directory of every queue (for status).
    pub(crate) fn queues(&self, fenced: bool) -> String {
        format!("{}/{}/", self.root, kind(fenced))
    }

    /// The directory of one key's queue.
    pub(crate) fn queue(&self, key: &KeyId) -> String {
        if key.is_election() {
            return format!("{}line/", self.election(key.name()));
        }
        format!(
            "{}{}/{}/",
            self.queues(key.fenced()),
            key.name(),
            encode(key.key())
        )
    }

    /// The directory of everything of the election `name`: its queue and
    /// its leader.
    pub(crate) fn election(&self, name: &str) -> String {
        format!("{}/election/{name}/", self.root)
    }

    /// The key holding the value of the leader of the election `name`.
    pub(crate) fn leader(&self, name: &str) -> String {
        format!("{}leader", self.election(name))
    }

    /// The directory of every election (for status).
    pub(crate) fn elections(&self) -> String {
        format!("{}/election/", self.root)
    }

    /// The election a key listed under `elections()` belongs to, and
    /// whether it is the election's leader key (else an entry of its queue).
    pub(crate) fn parse_election(&self, key: &[u8]) -> Option<(String, bool)> {
        let rest = std::str::from_utf8(key)
            .ok()?
            .strip_prefix(&self.elections())?;
        let (name, what) = rest.split_once('/')?;
        match what {
            "leader" => Some((name.to_string(), true)),
            _ if what.starts_with("line/") => Some((name.to_string(), false)),
            _ => None,
        }
    }

    /// The entry in `key`'s queue of the lease numbered `id` in a client
    /// whose shared etcd lease (of that lease's TTL) is `lease`.
    pub(crate) fn entry(&self, key: &KeyId, lease: i64, id: u64) -> String {
        format!("{}{lease:016x}-{id}", self.queue(key))
    }

    /// The name and key of an entry listed under `queues(fenced)`.
    pub(crate) fn parse_entry(&self, fenced: bool, entry: &[u8]) -> Option<(String, String)> {
        let text = std::str::from_utf8(entry).ok()?;
        let rest = text.strip_prefix(&self.queues(fenced))?;
        let mut parts = rest.split('/');
        let (name, key, _lease) = (parts.next()?, parts.next()?, parts.next()?);
        Some((name.to_string(), decode(key)?))
    }
}

fn kind(fenced: bool) -> &'static str {
    if fenced {
        "lock"
    } else {
        "semaphore"
    }
}

/// The value of an entry: the limit it asked for; a campaign's value in an
/// election's queue.
pub(crate) fn entry_value(request: &Request) -> String {
    match request.value() {
        Some(value) if request.key().is_election() => value.to_string(),
        _ => request.limit().to_string(),
    }
}

/// Reads an entry's value back as a limit.
pub(crate) fn parse_limit(value: &[u8]) -> Option<u32> {
    std::str::from_utf8(value).ok()?.parse().ok()
}

fn encode(key: &str) -> String {
    key.replace('%', "%25").replace('/', "%2F")
}

fn decode(text: &str) -> Option<String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('%') {
        out.push_str(&rest[..at]);
        match rest.get(at..at + 3)? {
            "%25" => out.push('%'),
            "%2F" => out.push('/'),
            _ => return None,
        }
        rest = &rest[at + 3..];
    }
    out.push_str(rest);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_with_slashes_get_lines_of_their_own() {
        let layout = Layout::new("p");
        let key = |k: &str| KeyId::new(crate::vocab::GroupKind::Lock, "n", k).unwrap();
        let a = layout.queue(&key("a"));
        let b = layout.queue(&key("a/b"));
        assert_eq!(a, "/p/lock/n/a/");
        assert!(!b.starts_with(&a), "{b} falls under {a}");
        let entry = layout.entry(&key("50%/x"), 255, 7);
        assert_eq!(entry, "/p/lock/n/50%25%2Fx/00000000000000ff-7");
        assert_eq!(
            layout.parse_entry(true, entry.as_bytes()),
            Some(("n".into(), "50%/x".into()))
        );
    }

    #[test]
    fn an_election_has_a_directory_of_its_own_with_its_line_and_leader() {
        let layout = Layout::new("p");
        let election = KeyId::election("n").unwrap();
        assert_eq!(layout.queue(&election), "/p/election/n/line/");
        assert_eq!(layout.leader("n"), "/p/election/n/leader");
        assert!(layout.queue(&election).starts_with(&layout.election("n")));
        assert!(!layout.leader("n").starts_with(&layout.queue(&election)));
        assert!(!layout.election("n").starts_with(&layout.queues(true)));
        let entry = layout.entry(&election, 255, 1);
        assert_eq!(
            layout.parse_election(entry.as_bytes()),
            Some(("n".into(), false))
        );
        assert_eq!(
            layout.parse_election(layout.leader("n").as_bytes()),
            Some(("n".into(), true))
        );
        assert_eq!(layout.parse_election(b"/p/lock/n/a/00"), None);
    }
}
