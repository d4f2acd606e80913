//! The SQL guard's statements and decisions, from the core, for the JS
//! layer (lib/guard.js) that runs them on its users' own better-sqlite3 and
//! pg handles. Every decision comes back as a [`NativeError`] value (or
//! `null` when there is none) rather than thrown: a `stale` error carries
//! its resource and fences as fields, never parsed from a message.

use crate::error::to_napi;
use crate::fence::to_fence;
use napi::bindgen_prelude::BigInt;
use napi_derive::napi;
use tinystore::guard::{self, sql::Statements, Dialect};

/// The guard's statements for one dialect, with its drivers' placeholders
/// (`?` for SQLite, `$1` for PostgreSQL).
#[napi(object)]
pub struct NativeGuardStatements {
    /// Makes `tinystore_fences` if it is missing.
    pub migration: String,
    /// Checks and records: (resource, fence text); one row changed is accepted.
    pub check: String,
    /// Reads the recorded fence: (resource).
    pub read: String,
}

/// A core error as a value: its code, its message, and for `stale` the
/// resource and fences it carries.
#[napi(object)]
pub struct NativeError {
    pub code: String,
    pub message: String,
    pub stale: Option<NativeStale>,
}

/// What a `stale` error is about.
#[napi(object)]
pub struct NativeStale {
    pub resource: String,
    pub fence: BigInt,
    pub largest: BigInt,
}

fn error_value(err: tinystore::Error) -> NativeError {
    NativeError {
        code: err.code().as_str().to_string(),
        message: err.message().to_string(),
        stale: err.stale_detail().map(|stale| NativeStale {
            resource: stale.resource.clone(),
            fence: BigInt::from(stale.fence),
            largest: BigInt::from(stale.largest),
        }),
    }
}

/// The guard's statements for `dialect` (`"sqlite"` or `"postgres"`).
#[napi]
pub fn guard_statements(dialect: String) -> napi::Result<NativeGuardStatements> {
    let Statements {
        migration,
        check,
        read,
    } = Statements::of(Dialect::parse(&dialect).map_err(to_napi)?);
    Ok(NativeGuardStatements {
        migration,
        check,
        read,
    })
}

/// The `invalid` error of a bad resource name, or `null`.
#[napi]
pub fn guard_check_resource(resource: String) -> Option<NativeError> {
    guard::check_resource(&resource).err().map(error_value)
}

/// Decides a check that changed no row from the fence recorded for
/// `resource` (`null`: no row): `null` when accepted (an equal fence),
/// else `stale`, `corrupt` or `internal`.
#[napi]
pub fn guard_refused(
    resource: String,
    fence: BigInt,
    recorded: Option<String>,
) -> napi::Result<Option<NativeError>> {
    let fence = to_fence(&fence)?;
    Ok(guard::refused(&resource, fence, recorded.as_deref())
        .err()
        .map(error_value))
}

/// The `invalid` error of a guard whose table `tinystore_fences` is missing.
#[napi]
pub fn guard_missing_table(resource: String) -> NativeError {
    error_value(guard::missing_table(&resource))
}

/// The `invalid` error of a guard called outside a transaction.
#[napi]
pub fn guard_not_in_transaction(resource: String) -> NativeError {
    error_value(guard::not_in_transaction(&resource))
}

/// The object-storage guard's names and bound, from the core
/// (`tinystore::guard::object`).
#[napi(object)]
pub struct NativeObjectGuardConstants {
    /// The metadata key that holds an object's fence: `tinystore-fence`.
    pub metadata_key: String,
    /// The metadata key of a guarded delete's tombstone: `tinystore-deleted`.
    pub tombstone_key: String,
    /// How many times a guarded put reads and tries in all.
    pub max_tries: u32,
}

/// The object-storage guard's names and bound.
#[napi]
pub fn guard_object_constants() -> NativeObjectGuardConstants {
    use tinystore::guard::object::{MAX_TRIES, METADATA_KEY, TOMBSTONE_KEY};
    NativeObjectGuardConstants {
        metadata_key: METADATA_KEY.to_string(),
        tombstone_key: TOMBSTONE_KEY.to_string(),
        max_tries: MAX_TRIES,
    }
}

/// An object as a HEAD read it: its ETag (quotes included) and its
/// `tinystore-fence` metadata, if any.
#[napi(object)]
pub struct NativeStoredObject {
    pub etag: String,
    pub fence: Option<String>,
}

/// The core's decision for a guarded put: `error` when refused; otherwise
/// `create` (send `If-None-Match: *`) or the ETag to send in `If-Match`.
#[napi(object)]
pub struct NativeObjectDecision {
    pub error: Option<NativeError>,
    pub create: bool,
    pub if_match: Option<String>,
}

/// Decides a guarded put of `fence` to `resource` (`bucket/key`) over what
/// a HEAD read (`null`: no object); `body_md5` is the hex MD5 of the body.
#[napi]
pub fn guard_object_decide(
    resource: String,
    fence: BigInt,
    stored: Option<NativeStoredObject>,
    body_md5: String,
) -> napi::Result<NativeObjectDecision> {
    use tinystore::guard::object::{decide_put, Condition, Stored};
    let fence = to_fence(&fence)?;
    let stored = stored.as_ref().map(|s| Stored {
        etag: &s.etag,
        fence: s.fence.as_deref(),
    });
    Ok(match decide_put(&resource, fence, stored, &body_md5) {
        Ok(Condition::Create) => NativeObjectDecision {
            error: None,
            create: true,
            if_match: None,
        },
        Ok(Condition::Replace(etag)) => NativeObjectDecision {
            error: None,
            create: false,
            if_match: Some(etag),
        },
        Err(err) => NativeObjectDecision {
            error: Some(error_value(err)),
            create: false,
            if_match: None,
        },
    })
}

/// The `limit` error of a guarded put overtaken on every try.
#[napi]
pub fn guard_object_too_many_races(resource: String) -> NativeError {
    error_value(tinystore::guard::object::too_many_races(&resource))
}

/// The `invalid` error for the caller's own metadata keys of a guarded
/// put when one is the guard's own; `null` when they may be written.
#[napi]
pub fn guard_object_check_metadata(resource: String, keys: Vec<String>) -> Option<NativeError> {
    tinystore::guard::object::check_metadata(&resource, keys.iter().map(String::as_str))
        .err()
        .map(error_value)
}

/// The `unauthorized` error of a guarded put whose HEAD of `resource` was
/// refused with HTTP `status` (403).
#[napi]
pub fn guard_object_head_refused(resource: String, status: u16) -> NativeError {
    error_value(tinystore::guard::object::head_refused(&resource, status))
}

/// Fences over HTTP: the header names and statuses, from the core
/// (`tinystore::guard::http`).
#[napi(object)]
pub struct NativeHttpGuardConstants {
    /// The request header that carries a fence: `Tinystore-Fence`.
    pub fence_header: String,
    /// The 409's header with the largest fence: `Tinystore-Fence-Largest`.
    pub largest_header: String,
    /// The status of a stale request: 409.
    pub conflict: u16,
    /// The status of a malformed fence header: 400.
    pub bad_request: u16,
}

/// The HTTP helpers' header names and statuses.
#[napi]
pub fn guard_http_constants() -> NativeHttpGuardConstants {
    use tinystore::guard::http::{BAD_REQUEST, CONFLICT, FENCE_HEADER, LARGEST_HEADER};
    NativeHttpGuardConstants {
        fence_header: FENCE_HEADER.to_string(),
        largest_header: LARGEST_HEADER.to_string(),
        conflict: CONFLICT,
        bad_request: BAD_REQUEST,
    }
}

/// A request's fence header as read: `error` when malformed, else the
/// fence (`null`: no header).
#[napi(object)]
pub struct NativeFenceHeader {
    pub error: Option<NativeError>,
    pub fence: Option<BigInt>,
}

/// Reads a request's fence header (`null`: missing) with the core's parser.
#[napi]
pub fn guard_http_parse(value: Option<String>) -> NativeFenceHeader {
    match guard::http::parse_fence_header(value.as_deref()) {
        Ok(fence) => NativeFenceHeader {
            error: None,
            fence: fence.map(|f| BigInt::from(f.get())),
        },
        Err(err) => NativeFenceHeader {
            error: Some(error_value(err)),
            fence: None,
        },
    }
}

/// The header value that carries `fence`.
#[napi]
pub fn guard_http_value(fence: BigInt) -> napi::Result<String> {
    Ok(guard::http::fence_header_value(to_fence(&fence)?))
}

/// The status a service answers for an error of code `code` (409 for
/// `stale`, 400 for `invalid`), or `null` for any other.
#[napi]
pub fn guard_http_status(code: String) -> Option<u16> {
    let code = tinystore::Code::parse(&code)?;
    guard::http::status_of(&tinystore::Error::new(code, String::new()))
}
