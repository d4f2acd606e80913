//! What the JS layer's guards (lib/guard.js, lib/s3.js) take from the
//! core besides the machines: a core error as a value, the migration, and
//! the object-storage guard's names. The protocol itself is the core's
//! machines ([`crate::guard_sql`], [`crate::guard_object`]); the JS layer
//! only does their I/O.

use crate::error::to_napi;
use napi::bindgen_prelude::BigInt;
use napi_derive::napi;
use tinystore::guard::{sql::Statements, Dialect};

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

/// The core error `err` as a value.
pub fn error_value(err: &tinystore::Error) -> NativeError {
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

/// The statement that makes `tinystore_fences` if it is missing, for
/// `dialect` (`"sqlite"` or `"postgres"`).
#[napi]
pub fn guard_migration(dialect: String) -> napi::Result<String> {
    let dialect = Dialect::parse(&dialect).map_err(to_napi)?;
    Ok(Statements::cached(dialect, dialect.placeholders())
        .migration
        .clone())
}

/// The object-storage guard's names and bound, from the core
/// (`tinystore::guard::object`).
#[napi(object)]
pub struct NativeObjectGuardConstants {
    /// The metadata key that holds an object's fence: `tinystore-fence`.
    pub metadata_key: String,
    /// The metadata key of a guarded delete's tombstone: `tinystore-deleted`.
    pub tombstone_key: String,
    /// How many times a guarded read lists in all when the object it
    /// lists is deleted before its get.
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
