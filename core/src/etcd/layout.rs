//! Where things live in etcd, under the address's prefix `P`:
//!
//! - `/P/epoch`: the epoch, decimal milliseconds, set once.
//! - `/P/lock/NAME/KEY/ENTRY`, `/P/semaphore/NAME/KEY/ENTRY` and
//!   `/P/rwlock/NAME/KEY/ENTRY`: one entry per caller waiting for or
//!   holding KEY, attached to its client's shared etcd lease for its TTL.
//!   A lock group, a semaphore and a read-write lock group of one name so
//!   never share a key. ENTRY is `LEASE-ID`, or `LEASE-ID-r` for a renewing
//!   lease (so that a status can say which are): LEASE is that etcd lease's
//!   id (16 hex digits), ID the lease's number in its client.
//! - An entry's value is the places of the key it asked for and takes:
//!   `LIMIT` when it takes one place, `LIMIT/WEIGHT` when it takes more (a
//!   weighted permit, a read-write lock's write lease: `1000000/1000000`).
//!   A lock's limit is 1; a read-write lock's is 1,000,000 places, of which
//!   a read lease takes one. The queue is the entries in the order of their
//!   create revisions; an entry holds the key when its weight and the
//!   weights of every entry before it sum to at most the limit. When its
//!   holder attached data (lease_data.rs), a line feed and the data follow
//!   the places: `1\nbuild-7:41327`.
//!
//! - `/P/election/NAME/line/ENTRY`: the queue of the election NAME, as a
//!   lock's queue; an entry's value is its campaign's value. (The
//!   directory keeps the name `line/` it had when a queue was called a
//!   line, so that stores kept on etcd before stay readable.)
//! - `/P/election/NAME/leader`: the leader's value, written by the grant's
//!   transaction (so its mod revision is the term's count) and attached to
//!   the leader's (shared) etcd lease, so it goes with it; a leadership that
//!   ends alone deletes it with its entry (lease_watch.rs).
//!
//! In KEY, `%` is written `%25` and `/` is written `%2F`, so that no key's
//! entries fall under another key's directory. NAME never holds a `/`.

use crate::vocab::{GroupKind, KeyId, Request};

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

    /// The directory of every queue of the groups of `kind` (for status).
    pub(crate) fn queues(&self, kind: GroupKind) -> String {
        format!("{}/{}/", self.root, kind_word(kind))
    }

    /// The directory of one key's queue.
    pub(crate) fn queue(&self, key: &KeyId) -> String {
        if key.is_election() {
            return format!("{}line/", self.election(key.name()));
        }
        format!(
            "{}{}/{}/",
            self.queues(key.group_kind()),
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

    /// The entry of `request` in its key's queue, for the lease numbered
    /// `id` in a client whose shared etcd lease (of that lease's TTL) is
    /// `lease`: `LEASE-ID`, `-r` after it when renewing.
    pub(crate) fn entry(&self, request: &Request, lease: i64, id: u64) -> String {
        let renewing = if request.renewing() { "-r" } else { "" };
        format!("{}{lease:016x}-{id}{renewing}", self.queue(request.key()))
    }

    /// The name and the key of an entry listed under `queues(kind)`, and
    /// whether its lease is renewing.
    pub(crate) fn parse_entry(
        &self,
        kind: GroupKind,
        entry: &[u8],
    ) -> Option<(String, String, bool)> {
        let text = std::str::from_utf8(entry).ok()?;
        let rest = text.strip_prefix(&self.queues(kind))?;
        let mut parts = rest.split('/');
        let (name, key, _entry) = (parts.next()?, parts.next()?, parts.next()?);
        Some((name.to_string(), decode(key)?, renewing(text)))
    }
}

/// Whether the entry `entry` (its etcd key) is of a renewing lease; false
/// for an entry written before entries said so.
pub(crate) fn renewing(entry: &str) -> bool {
    entry.ends_with("-r")
}

/// The word for `kind`: the directory of its groups' queues, and the kind
/// a status shows.
pub(crate) fn kind_word(kind: GroupKind) -> &'static str {
    match kind {
        GroupKind::Lock => "lock",
        GroupKind::Semaphore => "semaphore",
        GroupKind::RwLock => "rwlock",
        GroupKind::Election => "election",
    }
}

/// The value of an entry: the places it asked for (`LIMIT`, or
/// `LIMIT/WEIGHT` when it takes more than one), then a line feed and its
/// data if it has any; a campaign's value in an election's queue.
pub(crate) fn entry_value(request: &Request) -> String {
    let places = match request.value() {
        Some(value) if request.key().is_election() => return value.to_string(),
        _ if request.weight() == 1 => request.limit().to_string(),
        _ => format!("{}/{}", request.limit(), request.weight()),
    };
    match request.data() {
        Some(data) => format!("{places}\n{data}"),
        None => places,
    }
}

/// Reads an entry's value (of a lock's, semaphore's or read-write lock's
/// queue) back as its limit and weight: `LIMIT` takes one place.
pub(crate) fn parse_places(value: &[u8]) -> Option<(u32, u32)> {
    let places = value.split(|&b| b == b'\n').next().unwrap_or_default();
    let text = std::str::from_utf8(places).ok()?;
    let (limit, weight) = match text.split_once('/') {
        Some((limit, weight)) => (limit.parse().ok()?, weight.parse().ok()?),
        None => (text.parse().ok()?, 1),
    };
    (weight >= 1 && weight <= limit).then_some((limit, weight))
}

/// The data in an entry's value (of a lock's, semaphore's or read-write
/// lock's queue): what follows the places' line; `None` for an entry
/// without (written with none, or before entries carried data).
pub(crate) fn entry_data(value: &[u8]) -> Option<String> {
    let at = value.iter().position(|&b| b == b'\n')?;
    let data = String::from_utf8_lossy(&value[at + 1..]);
    (!data.is_empty()).then(|| data.into_owned())
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
    use crate::options::Options;
    use crate::vocab::Ask;
    use std::time::Duration;

    fn request(ask: Ask, key: &str, options: Options) -> Request {
        Request::new("n", key, ask, options).unwrap()
    }

    #[test]
    fn keys_with_slashes_get_lines_of_their_own() {
        let layout = Layout::new("p");
        let key = |k: &str| KeyId::new(GroupKind::Lock, "n", k).unwrap();
        let a = layout.queue(&key("a"));
        let b = layout.queue(&key("a/b"));
        assert_eq!(a, "/p/lock/n/a/");
        assert!(!b.starts_with(&a), "{b} falls under {a}");
        let entry = layout.entry(&request(Ask::Lock, "50%/x", Options::default()), 255, 7);
        assert_eq!(entry, "/p/lock/n/50%25%2Fx/00000000000000ff-7-r");
        assert_eq!(
            layout.parse_entry(GroupKind::Lock, entry.as_bytes()),
            Some(("n".into(), "50%/x".into(), true))
        );
    }

    #[test]
    fn locks_semaphores_and_read_write_locks_of_one_name_have_queues_apart() {
        let layout = Layout::new("p");
        let queues = [
            layout.queue(&KeyId::new(GroupKind::Lock, "n", "k").unwrap()),
            layout.queue(&KeyId::new(GroupKind::Semaphore, "n", "k").unwrap()),
            layout.queue(&KeyId::new(GroupKind::RwLock, "n", "k").unwrap()),
        ];
        assert_eq!(queues[2], "/p/rwlock/n/k/");
        for (i, a) in queues.iter().enumerate() {
            for b in &queues[i + 1..] {
                assert!(!a.starts_with(b.as_str()) && !b.starts_with(a.as_str()));
            }
        }
    }

    #[test]
    fn an_entry_says_its_places_and_renewal_and_old_entries_stay_readable() {
        let unrenewed = Options {
            ttl: Some(Duration::from_millis(250)),
            renew: Some(false),
            weight: Some(3),
            ..Options::default()
        };
        let permit = request(Ask::Permit { limit: 5 }, "k", unrenewed);
        let default = crate::default_data();
        assert_eq!(entry_value(&permit), format!("5/3\n{default}"));
        assert_eq!(
            entry_data(entry_value(&permit).as_bytes()).as_deref(),
            Some(&*default)
        );
        let unsaid = Options {
            data: Some("".into()),
            ..Options::default()
        };
        assert_eq!(entry_value(&request(Ask::Lock, "k", unsaid)), "1");
        assert_eq!(entry_data(b"1"), None);
        assert_eq!(parse_places(b"5/3\nh:1\nmore"), Some((5, 3)));
        assert_eq!(entry_data(b"5/3\nh:1\nmore").as_deref(), Some("h:1\nmore"));
        assert_eq!(parse_places(b"5/3"), Some((5, 3)));
        let writer = request(Ask::Write, "k", Options::default());
        assert_eq!(entry_value(&writer), format!("1000000/1000000\n{default}"));
        let reader = request(Ask::Read, "k", Options::default());
        assert_eq!(entry_value(&reader), format!("1000000\n{default}"));
        // Written before weights: the limit alone, one place.
        assert_eq!(parse_places(b"5"), Some((5, 1)));
        for bad in [&b"5/6"[..], b"5/0", b"x", b"5/"] {
            assert_eq!(parse_places(bad), None, "{bad:?}");
        }
        let entry = Layout::new("p").entry(&permit, 1, 2);
        assert!(entry.ends_with("/0000000000000001-2"), "{entry}");
        assert!(!renewing(&entry));
    }

    #[test]
    fn an_election_has_a_directory_of_its_own_with_its_line_and_leader() {
        let layout = Layout::new("p");
        let election = KeyId::election("n").unwrap();
        assert_eq!(layout.queue(&election), "/p/election/n/line/");
        assert_eq!(layout.leader("n"), "/p/election/n/leader");
        assert!(layout.queue(&election).starts_with(&layout.election("n")));
        assert!(!layout.leader("n").starts_with(&layout.queue(&election)));
        assert!(!layout
            .election("n")
            .starts_with(&layout.queues(GroupKind::Lock)));
        let campaign = Request::election("n", "me", Options::default()).unwrap();
        let entry = layout.entry(&campaign, 255, 1);
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
