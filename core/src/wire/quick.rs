//! The common requests (acquire, try_acquire, renew, release), read straight
//! from the line in one pass. Anything else, and anything odd, is left to
//! [`decode_request`](super::decode_request), which names what is wrong;
//! this path accepts only frames that one would accept too.

use super::request::{Op, RequestFrame, WireKey};
use serde::Deserialize;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Quick<'a> {
    id: u64,
    op: &'a str,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    key: Option<WireKey>,
    #[serde(default)]
    limit: Option<u32>,
    #[serde(default)]
    ttl_ms: Option<u64>,
    #[serde(default)]
    wait_ms: Option<u64>,
    #[serde(default)]
    lease: Option<String>,
}

/// The request on `line` if it is a well-formed common one; `None` sends
/// the line the careful way.
pub(super) fn decode(line: &[u8]) -> Option<RequestFrame> {
    let q: Quick = serde_json::from_slice(line).ok()?;
    let only_lease = q.name.is_none()
        && q.key.is_none()
        && q.limit.is_none()
        && q.ttl_ms.is_none()
        && q.wait_ms.is_none();
    let op = match (q.op, q.name, q.key, q.lease) {
        ("acquire", Some(name), Some(key), None) => Op::Acquire {
            name,
            key,
            limit: q.limit,
            ttl_ms: q.ttl_ms,
            wait_ms: q.wait_ms,
        },
        ("try_acquire", Some(name), Some(key), None) if q.wait_ms.is_none() => Op::TryAcquire {
            name,
            key,
            limit: q.limit,
            ttl_ms: q.ttl_ms,
        },
        ("renew", None, None, Some(lease)) if only_lease => Op::Renew { lease },
        ("release", None, None, Some(lease)) if only_lease => Op::Release { lease },
        _ => return None,
    };
    Some(RequestFrame { id: Some(q.id), op })
}

#[cfg(test)]
mod tests {
    use super::super::request::{decode_carefully, decode_request};
    use super::*;

    #[test]
    fn the_quick_path_agrees_with_the_careful_one() {
        let lines = [
            r#"{"id":1,"op":"acquire","name":"n","key":"k"}"#,
            r#"{"id":2,"op":"acquire","name":"n","key":7,"ttl_ms":100,"wait_ms":5}"#,
            r#"{"id":3,"op":"acquire","name":"n","key":"k","limit":3}"#,
            r#"{"op":"try_acquire","id":4,"name":"n","key":"k","ttl_ms":null}"#,
            r#"{"id":5,"op":"release","lease":"12"}"#,
            r#"{"id":6,"op":"renew","lease":"12"}"#,
            r#"{"id":7,"op":"try_acquire","name":"n","key":"k","wait_ms":5}"#,
            r#"{"id":8,"op":"release","lease":"12","name":"n"}"#,
            r#"{"id":9,"op":"acquire","name":"n"}"#,
            r#"{"id":10,"op":"acquire","name":"n","key":"k","extra":1}"#,
            r#"{"id":11,"op":"acquire","name":"n","key":1.5}"#,
            r#"{"id":-1,"op":"release","lease":"1"}"#,
            r#"{"id":12,"op":"renew","lease":12}"#,
            r#"{"id":13,"op":"ping"}"#,
            r#"{"id":14,"op":"acquire","name":"n","key":"k","limit":-1}"#,
            r#"{"id":15,"op":"acquire","name":"n\u00e9","key":"k"}"#,
        ];
        for line in lines {
            let careful = decode_carefully(line.as_bytes()).ok();
            if let Some(frame) = decode(line.as_bytes()) {
                assert_eq!(Some(frame), careful, "{line}");
            }
            assert_eq!(decode_request(line.as_bytes()).ok(), careful, "{line}");
        }
        assert!(
            decode(lines[0].as_bytes()).is_some(),
            "the common case is quick"
        );
        assert!(decode(lines[4].as_bytes()).is_some(), "release is quick");
    }
}
