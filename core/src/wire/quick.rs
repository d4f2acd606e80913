//! The common requests (acquire, try_acquire, renew, release), read straight
//! from the line in one pass (an acquire with a mode, weight or max_hold
//! takes the careful way). Anything else, and anything odd, is left to
//! [`decode_request`](super::decode_request), which names what is wrong;
//! this path accepts only frames that one would accept too.

use super::frame::{Op, RequestFrame, WireKey};
use serde::Deserialize;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Quick<'a> {
    id: u64,
    op: &'a str,
    #[serde(default, deserialize_with = "present")]
    name: Option<String>,
    #[serde(default, deserialize_with = "present")]
    key: Option<WireKey>,
    #[serde(default, deserialize_with = "present")]
    limit: Option<u32>,
    #[serde(default, deserialize_with = "present")]
    ttl_ms: Option<u64>,
    #[serde(default, deserialize_with = "present")]
    wait_ms: Option<u64>,
    #[serde(default, deserialize_with = "present")]
    lease: Option<String>,
    #[serde(default, deserialize_with = "present")]
    data: Option<String>,
}

/// A field given with a value: `null` is refused here (and named by the
/// careful path), never taken for a field left out.
fn present<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    T::deserialize(d).map(Some)
}

/// The request on `line` if it is a well-formed common one; `None` sends
/// the line the careful way.
pub(super) fn decode(line: &[u8]) -> Option<RequestFrame> {
    let q: Quick = serde_json::from_slice(line).ok()?;
    let only_lease = q.name.is_none()
        && q.key.is_none()
        && q.limit.is_none()
        && q.ttl_ms.is_none()
        && q.wait_ms.is_none()
        && q.data.is_none();
    let op = match (q.op, q.name, q.key, q.lease) {
        ("acquire", Some(name), Some(key), None) => Op::Acquire {
            name,
            key,
            limit: q.limit,
            mode: None,
            weight: None,
            ttl_ms: q.ttl_ms,
            wait_ms: q.wait_ms,
            max_hold_ms: None,
            data: q.data,
        },
        ("try_acquire", Some(name), Some(key), None) if q.wait_ms.is_none() => Op::TryAcquire {
            name,
            key,
            limit: q.limit,
            mode: None,
            weight: None,
            ttl_ms: q.ttl_ms,
            max_hold_ms: None,
            data: q.data,
        },
        ("renew", None, None, Some(lease)) if only_lease => Op::Renew { lease },
        ("release", None, None, Some(lease)) if only_lease => Op::Release { lease },
        _ => return None,
    };
    Some(RequestFrame { id: Some(q.id), op })
}
