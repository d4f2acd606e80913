//! The object-storage and Redis guard machines' steps, the object-storage
//! observations as plain JS objects, and a driver's error as the JS layer
//! describes it (lib/guard_driver.js). (The SQL check, on the hot path of
//! every guarded write, passes its steps as text: [`crate::guard_sql`].)
//!
//! A step is `{ kind, ... }`: `list` (`prefix`), `put` (`key`,
//! `metadata`), `delete` and `get` (`key`), `eval` (`script`, `keys`,
//! `args`: Redis's), and `done` (`verdict`: `accepted`, `refused` or
//! `driver`, with `error` for the last two). An object observation is
//! `{ kind, ... }`: `listed` (`keys`), `written`, `deleted`, `got`
//! (`metadata`), `failed` (`failure`); Redis's are the methods of
//! [`crate::guard_redis`].

use crate::error::to_napi;
use crate::guard::{error_value, NativeError};
use napi_derive::napi;
use std::collections::HashMap;
use tinystore::guard::{DriverFailure, ObjectObserved, ObjectStep, Verdict};
use tinystore::{Code, Error};

/// What the JS layer does next, or the protocol's end.
#[napi(object)]
#[derive(Default)]
pub struct NativeGuardStep {
    /// `list`, `put`, `delete`, `get`, `eval` or `done`.
    pub kind: String,
    /// What `list` lists.
    pub prefix: Option<String>,
    /// The object `put`, `delete` and `get` act on.
    pub key: Option<String>,
    /// The metadata `put` writes.
    pub metadata: Option<HashMap<String, String>>,
    /// The Lua text `eval` runs (its SHA1 is what `EVALSHA` names).
    pub script: Option<String>,
    /// The keys `eval` passes (`KEYS`).
    pub keys: Option<Vec<String>>,
    /// The arguments `eval` passes (`ARGV`).
    pub args: Option<Vec<String>>,
    /// The end of `done`: `accepted`, `refused` (the guard's own error) or
    /// `driver` (the driver's error, classified).
    pub verdict: Option<String>,
    /// The error of a `refused` or `driver` verdict.
    pub error: Option<NativeError>,
}

/// What the JS layer observed of the step it took.
#[napi(object)]
pub struct NativeGuardObserved {
    /// `listed`, `written`, `deleted`, `got` or `failed`.
    pub kind: String,
    /// The keys a `list` found (every page).
    pub keys: Option<Vec<String>>,
    /// The metadata of the object a `get` found.
    pub metadata: Option<HashMap<String, String>>,
    /// The driver's error, described.
    pub failure: Option<NativeDriverFailure>,
}

/// A driver's or an SDK's error as it reports itself; core classifies it.
#[napi(object)]
pub struct NativeDriverFailure {
    /// pg's `code` (a SQLSTATE such as `40001`).
    pub sqlstate: Option<String>,
    /// SQLite's numeric result code, when the driver gives one.
    pub sqlite_code: Option<i32>,
    /// An S3 answer's HTTP status.
    pub http_status: Option<u32>,
    /// A named code: better-sqlite3's (`SQLITE_BUSY`), the S3 service's
    /// (`AccessDenied`), a socket's (`ECONNREFUSED`), or `connection` for a
    /// connection lost without one.
    pub error_code: Option<String>,
    /// The driver's own message.
    pub message: String,
}

impl From<NativeDriverFailure> for DriverFailure {
    fn from(f: NativeDriverFailure) -> DriverFailure {
        DriverFailure {
            sqlstate: f.sqlstate,
            sqlite_code: f.sqlite_code,
            http_status: f.http_status.and_then(|s| u16::try_from(s).ok()),
            error_code: f.error_code,
            message: f.message,
        }
    }
}

/// The class core gives a driver's error: `missing_table`,
/// `serialization`, `permission`, `unavailable` or `other`.
#[napi]
pub fn guard_failure_class(failure: NativeDriverFailure) -> String {
    DriverFailure::from(failure).class().name().to_string()
}

/// A step of `kind` with no field set.
pub fn step(kind: &str) -> NativeGuardStep {
    NativeGuardStep {
        kind: kind.to_string(),
        ..NativeGuardStep::default()
    }
}

/// The end `done` with `verdict`.
pub fn done(verdict: Verdict) -> NativeGuardStep {
    let (name, error) = match &verdict {
        Verdict::Accepted => ("accepted", None),
        Verdict::Refused(err) => ("refused", Some(error_value(err))),
        Verdict::Driver(err) => ("driver", Some(error_value(err))),
    };
    NativeGuardStep {
        verdict: Some(name.to_string()),
        error,
        ..step("done")
    }
}

/// The JS step of an object machine's step.
pub fn object_step(from: ObjectStep) -> NativeGuardStep {
    let keyed = |kind, key| NativeGuardStep {
        key: Some(key),
        ..step(kind)
    };
    match from {
        ObjectStep::List { prefix } => NativeGuardStep {
            prefix: Some(prefix),
            ..step("list")
        },
        ObjectStep::Put { key, metadata } => NativeGuardStep {
            metadata: Some(metadata.into_iter().collect()),
            ..keyed("put", key)
        },
        ObjectStep::Delete { key } => keyed("delete", key),
        ObjectStep::Get { key } => keyed("get", key),
        ObjectStep::Done(verdict) => done(verdict),
    }
}

/// An `internal` error for an observation the JS layer got wrong.
fn misread(what: &str, kind: &str) -> napi::Error {
    to_napi(Error::new(
        Code::Internal,
        format!("the guard's JS layer observed {kind:?} {what}"),
    ))
}

/// The object-storage observation of a JS one.
pub fn object_observed(observed: NativeGuardObserved) -> napi::Result<ObjectObserved> {
    Ok(match observed.kind.as_str() {
        "listed" => ObjectObserved::Listed(
            observed
                .keys
                .ok_or_else(|| misread("without `keys`", &observed.kind))?,
        ),
        "written" => ObjectObserved::Written,
        "deleted" => ObjectObserved::Deleted,
        "got" => ObjectObserved::Got {
            metadata: observed.metadata.unwrap_or_default().into_iter().collect(),
        },
        "failed" => ObjectObserved::Failed(failure(observed)?),
        _ => return Err(misread("of an object's guard", &observed.kind)),
    })
}

fn failure(observed: NativeGuardObserved) -> napi::Result<DriverFailure> {
    match observed.failure {
        Some(f) => Ok(f.into()),
        None => Err(misread("without `failure`", &observed.kind)),
    }
}
