//! Where things live in etcd, under the address's prefix `P`:
//!
//! - `/P/epoch`: the epoch, decimal milliseconds, set once.
//! - `/P/lock/NAME/KEY/LEASE` and `/P/semaphore/NAME/KEY/LEASE`: one entry
//!   per caller waiting for or holding KEY, attached to its own etcd lease
//!   (LEASE, 16 hex digits). Its value is the limit it asked for. The line
//!   is the entries in the order of their create revisions; the first
//!   `limit` hold the key.
//!
//! In KEY, `%` is written `%25` and `/` is written `%2F`, so that no key's
//! entries fall under another key's directory.

use crate::engine::KeyId;

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

    /// The directory of every line (for status).
    pub(crate) fn lines(&self, fenced: bool) -> String {
        format!("{}/{}/", self.root, kind(fenced))
    }

    /// The directory of one key's line.
    pub(crate) fn line(&self, key: &KeyId) -> String {
        format!(
            "{}{}/{}/",
            self.lines(key.fenced()),
            key.name(),
            encode(key.key())
        )
    }

    /// The entry of the caller whose etcd lease is `lease` in `key`'s line.
    pub(crate) fn entry(&self, key: &KeyId, lease: i64) -> String {
        format!("{}{lease:016x}", self.line(key))
    }

    /// The name and key of an entry listed under `lines(fenced)`.
    pub(crate) fn parse_entry(&self, fenced: bool, entry: &[u8]) -> Option<(String, String)> {
        let text = std::str::from_utf8(entry).ok()?;
        let rest = text.strip_prefix(&self.lines(fenced))?;
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

/// The value of an entry: the limit it asked for.
pub(crate) fn limit_value(limit: u32) -> String {
    limit.to_string()
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
        let key = |k: &str| KeyId::new(true, "n", k);
        let a = layout.line(&key("a"));
        let b = layout.line(&key("a/b"));
        assert_eq!(a, "/p/lock/n/a/");
        assert!(!b.starts_with(&a), "{b} falls under {a}");
        let entry = layout.entry(&key("50%/x"), 255);
        assert_eq!(entry, "/p/lock/n/50%25%2Fx/00000000000000ff");
        assert_eq!(
            layout.parse_entry(true, entry.as_bytes()),
            Some(("n".into(), "50%/x".into()))
        );
    }
}
