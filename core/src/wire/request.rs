//! Requests: what a client sends. Each is a JSON object with `op`, and
//! (after `hello`) an `id` the reply echoes.

use crate::error::Error;
use serde::{Deserialize, Serialize};

/// One request as sent: its id and its operation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestFrame {
    /// The client-chosen id echoed in the reply; `hello` may omit it.
    pub id: Option<u64>,
    /// What is asked.
    pub op: Op,
}

/// A key on the wire: text, or an integer that stands for its decimal text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum WireKey {
    /// A key given as text.
    Text(String),
    /// A key given as an integer.
    Int(i64),
    /// A key given as a non-negative integer above `i64::MAX`.
    UInt(u64),
}

impl WireKey {
    /// The key's text.
    pub fn text(&self) -> String {
        match self {
            WireKey::Text(t) => t.clone(),
            WireKey::Int(i) => i.to_string(),
            WireKey::UInt(u) => u.to_string(),
        }
    }
}

impl From<&str> for WireKey {
    fn from(text: &str) -> WireKey {
        WireKey::Text(text.to_string())
    }
}

/// The operations, each with its fields as on the wire.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
pub enum Op {
    /// The first frame: the protocol version, and the token on TCP.
    Hello {
        /// The protocol version the client speaks.
        version: u32,
        /// The shared secret; required on TCP.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        token: Option<String>,
    },
    /// Waits first come first served for a key.
    Acquire {
        /// The group's name.
        name: String,
        /// The key.
        key: WireKey,
        /// Holders allowed at once: absent for a lock, set for a semaphore.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        limit: Option<u32>,
        /// The lease's TTL in milliseconds (default 15000).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ttl_ms: Option<u64>,
        /// How long to wait in milliseconds; absent waits until cancelled.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        wait_ms: Option<u64>,
    },
    /// Takes a key if it is free now.
    TryAcquire {
        /// The group's name.
        name: String,
        /// The key.
        key: WireKey,
        /// Holders allowed at once: absent for a lock, set for a semaphore.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        limit: Option<u32>,
        /// The lease's TTL in milliseconds (default 15000).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ttl_ms: Option<u64>,
    },
    /// Extends a lease this connection holds by its TTL.
    Renew {
        /// The lease id from the acquire's reply.
        lease: String,
    },
    /// Releases a lease this connection holds.
    Release {
        /// The lease id from the acquire's reply.
        lease: String,
    },
    /// Gives up a pending acquire of this connection.
    Cancel {
        /// The id of the acquire request.
        target: u64,
    },
    /// The store's epoch, fences, holders and waiters.
    Status {},
    /// Writes a consistent copy of `kv.db` to a path on the server's machine.
    Backup {
        /// An absolute path on the server's machine.
        path: String,
    },
    /// Answers at once; for liveness checks.
    Ping {},
}

impl Op {
    /// The operation's name on the wire.
    pub fn name(&self) -> &'static str {
        match self {
            Op::Hello { .. } => "hello",
            Op::Acquire { .. } => "acquire",
            Op::TryAcquire { .. } => "try_acquire",
            Op::Renew { .. } => "renew",
            Op::Release { .. } => "release",
            Op::Cancel { .. } => "cancel",
            Op::Status {} => "status",
            Op::Backup { .. } => "backup",
            Op::Ping {} => "ping",
        }
    }
}

impl RequestFrame {
    /// The frame as one line of JSON, without the newline.
    pub fn encode(&self) -> String {
        #[derive(Serialize)]
        struct Out<'a> {
            #[serde(skip_serializing_if = "Option::is_none")]
            id: Option<u64>,
            #[serde(flatten)]
            op: &'a Op,
        }
        let out = Out {
            id: self.id,
            op: &self.op,
        };
        serde_json::to_string(&out).expect("a request always serializes")
    }
}

/// Decodes one line into a request. On failure it gives the `invalid` error
/// naming what was wrong, with the request's `id` when one could be read, so
/// the reply can echo it.
pub fn decode_request(line: &[u8]) -> std::result::Result<RequestFrame, (Option<u64>, Error)> {
    match super::quick::decode(line) {
        Some(frame) => Ok(frame),
        None => decode_carefully(line),
    }
}

/// [`decode_request`] through `serde_json::Value`, field by field, so that
/// a bad frame's error names what is wrong. Takes every frame the quick path
/// takes, to the same request.
pub(super) fn decode_carefully(
    line: &[u8],
) -> std::result::Result<RequestFrame, (Option<u64>, Error)> {
    let value: serde_json::Value = serde_json::from_slice(line)
        .map_err(|e| (None, Error::invalid(format!("the frame is not JSON: {e}"))))?;
    let serde_json::Value::Object(mut map) = value else {
        return Err((
            None,
            Error::invalid(format!(
                "the frame must be a JSON object, not {}",
                kind(&value)
            )),
        ));
    };
    let id = match map.remove("id") {
        None => None,
        Some(v) => match v.as_u64() {
            Some(id) => Some(id),
            None => {
                return Err((
                    None,
                    Error::invalid(format!(
                        "\"id\" must be an integer from 0 to 2^64-1, not {v}"
                    )),
                ))
            }
        },
    };
    let op = match map.get("op") {
        None => return Err((id, Error::invalid("the frame has no \"op\""))),
        Some(serde_json::Value::String(_)) => serde_json::from_value::<Op>(map.into()),
        Some(other) => {
            return Err((
                id,
                Error::invalid(format!("\"op\" must be a string, not {other}")),
            ))
        }
    };
    match op {
        Ok(op) => Ok(RequestFrame { id, op }),
        Err(e) => Err((id, Error::invalid(format!("bad request: {e}")))),
    }
}

fn kind(value: &serde_json::Value) -> &'static str {
    match value {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object",
    }
}
