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
