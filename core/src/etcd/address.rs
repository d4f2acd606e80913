//! Where an etcd store is: `etcd://HOST:PORT[,HOST:PORT...]/PREFIX`.

use crate::error::{Error, Result};
use std::fmt;

/// The longest prefix allowed, in bytes.
const MAX_PREFIX_BYTES: usize = 128;

/// A parsed `etcd://` address: the members to reach and the prefix under
/// which this store's keys live.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct EtcdAddress {
    /// `HOST:PORT` of each member given, in order.
    pub members: Vec<String>,
    /// The prefix without slashes around it, e.g. `tinystore` or `apps/chat`.
    pub prefix: String,
}

impl EtcdAddress {
    /// Parses `etcd://HOST:PORT[,HOST:PORT...]/PREFIX`. The prefix is 1 to
    /// 128 bytes of `A-Z a-z 0-9 . _ - :` in segments joined by `/`.
    pub(crate) fn parse(text: &str) -> Result<EtcdAddress> {
        let rest = text
            .strip_prefix("etcd://")
            .ok_or_else(|| bad(text, "it does not start with etcd://"))?;
        let (hosts, prefix) = rest
            .split_once('/')
            .ok_or_else(|| bad(text, "the /PREFIX after the members is missing"))?;
        let mut members = Vec::new();
        for member in hosts.split(',') {
            let ok = member
                .rsplit_once(':')
                .is_some_and(|(host, port)| !host.is_empty() && port.parse::<u16>().is_ok());
            if !ok {
                return Err(bad(
                    text,
                    &format!("member {member:?} is not HOST:PORT with a port from 0 to 65535"),
                ));
            }
            members.push(member.to_string());
        }
        check_prefix(text, prefix)?;
        Ok(EtcdAddress {
            members,
            prefix: prefix.to_string(),
        })
    }

    /// The URLs the etcd client dials.
    pub(crate) fn endpoints(&self) -> Vec<String> {
        self.members.iter().map(|m| format!("http://{m}")).collect()
    }
}

fn check_prefix(text: &str, prefix: &str) -> Result<()> {
    if prefix.is_empty() || prefix.len() > MAX_PREFIX_BYTES {
        return Err(bad(
            text,
            &format!(
                "the prefix must be 1 to {MAX_PREFIX_BYTES} bytes; it is {} bytes",
                prefix.len()
            ),
        ));
    }
    for segment in prefix.split('/') {
        let ok = !segment.is_empty()
            && segment
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b".-_:".contains(&b));
        if !ok {
            return Err(bad(
                text,
                &format!(
                    "prefix {prefix:?} must be segments of A-Z a-z 0-9 . _ - : joined by single slashes"
                ),
            ));
        }
    }
    Ok(())
}

fn bad(text: &str, why: &str) -> Error {
    Error::invalid(format!("address {text:?} is not valid: {why}"))
}

impl fmt::Display for EtcdAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "etcd://{}/{}", self.members.join(","), self.prefix)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Code;

    #[test]
    fn parses_members_and_prefix() {
        let a = EtcdAddress::parse("etcd://127.0.0.1:2379,h2:2380/apps/chat").unwrap();
        assert_eq!(a.members, ["127.0.0.1:2379", "h2:2380"]);
        assert_eq!(a.prefix, "apps/chat");
        assert_eq!(a.to_string(), "etcd://127.0.0.1:2379,h2:2380/apps/chat");
        assert_eq!(a.endpoints()[1], "http://h2:2380");
    }

    #[test]
    fn refuses_bad_addresses_naming_the_fault() {
        for (text, says) in [
            ("tcp://h:1/p", "etcd://"),
            ("etcd://h:1", "PREFIX"),
            ("etcd://h:1/", "1 to 128"),
            ("etcd://h/p", "HOST:PORT"),
            ("etcd://h:99999/p", "HOST:PORT"),
            ("etcd://h:1,/p", "HOST:PORT"),
            ("etcd://h:1/a//b", "segments"),
            ("etcd://h:1/a b", "segments"),
        ] {
            let err = EtcdAddress::parse(text).unwrap_err();
            assert_eq!(err.code(), Code::Invalid, "{text}");
            assert!(err.message().contains(says), "{text}: {err}");
        }
    }
}
