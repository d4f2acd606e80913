//! What the Go side observed of a guard's step (`TsObserved`), and a
//! driver's failure described by what the driver reports
//! (`TsDriverFailure`), which the core classifies (`ts_guard_classify`).

use crate::error::{call, fill, Failure, Outcome, TsCode, TsError};
use crate::text::{bytes, put, slice};
use tinystore::guard::dynamo_check::DynamoObserved;
use tinystore::guard::redis_check::RedisObserved;
use tinystore::guard::versioned_check::VersionedObserved;
use tinystore::guard::{Class, DriverFailure, ObjectObserved, SqlObserved};

/// Text the caller lends for the call: `len` bytes at `ptr` (NULL when
/// `len` is 0).
#[repr(C)]
pub struct TsText {
    pub ptr: *const u8,
    pub len: usize,
}

/// A metadata entry the caller lends.
#[repr(C)]
pub struct TsPair {
    pub key: TsText,
    pub value: TsText,
}

/// A driver's or an SDK's failure, as the driver reports it; each `has_*`
/// says whether the field beside it is set. The texts need not be UTF-8
/// (they are read lossily).
#[repr(C)]
pub struct TsDriverFailure {
    /// The SQLSTATE (PostgreSQL), such as "40001".
    pub has_sqlstate: bool,
    pub sqlstate: TsText,
    /// SQLite's result code, primary or extended.
    pub has_sqlite_code: bool,
    pub sqlite_code: i32,
    /// The HTTP status of an object store's answer.
    pub has_http_status: bool,
    pub http_status: u16,
    /// A named code: a service's ("AccessDenied"), a driver's, a socket's
    /// ("ECONNREFUSED"), or "connection" for a connection lost without one.
    pub has_error_code: bool,
    pub error_code: TsText,
    /// The driver's own text.
    pub message: TsText,
}

/// `TsObserved.kind`: the rows an `Execute` changed (`changed`).
pub const TS_OBSERVED_CHANGED: u32 = 1;
/// `TsObserved.kind`: a `Query` read a row, whose first column is `row`;
/// a `ReadItem` found the register item's fence, `row` (as text; a value
/// that is not a string, described).
pub const TS_OBSERVED_ROW: u32 = 2;
/// `TsObserved.kind`: a `Query` read no row; a `ReadItem` found no item,
/// or one with no fence.
pub const TS_OBSERVED_NO_ROW: u32 = 3;
/// `TsObserved.kind`: a `List` found `keys`.
pub const TS_OBSERVED_LISTED: u32 = 4;
/// `TsObserved.kind`: a `Put` or a `PutVersioned` succeeded, or a
/// `Transact` was written.
pub const TS_OBSERVED_WRITTEN: u32 = 5;
/// `TsObserved.kind`: a `Delete` succeeded.
pub const TS_OBSERVED_DELETED: u32 = 6;
/// `TsObserved.kind`: a `Get` found the object, with `metadata`.
pub const TS_OBSERVED_GOT: u32 = 7;
/// `TsObserved.kind`: the step failed in the driver, as `failure` says (a
/// `Get` that found nothing too: HTTP 404).
pub const TS_OBSERVED_FAILED: u32 = 8;
/// `TsObserved.kind`: an `Eval`'s script answered `reply`, each element
/// of its top-level array as text.
pub const TS_OBSERVED_REPLY: u32 = 9;
/// `TsObserved.kind`: a `Transact` was cancelled
/// (`TransactionCanceledException`): `reasons` each item's reason code in
/// order (`"None"` for an item that was fine; the register's last),
/// `recorded` the register item's fence as DynamoDB returned it (as text;
/// a value that is not a string, described) when `has_recorded`, and
/// `failure` the exception.
pub const TS_OBSERVED_CANCELLED: u32 = 10;
/// `TsObserved.kind`: a `ReadObject` found the object at `version` (GCS's
/// generation in decimal, Azure's ETag as given), with the fence metadata's
/// value in `recorded` when `has_recorded` (the object has that key).
pub const TS_OBSERVED_FOUND: u32 = 11;
/// `TsObserved.kind`: a `ReadObject` found no object (GCS's 404, Azure's
/// `BlobNotFound`).
pub const TS_OBSERVED_ABSENT: u32 = 12;
/// `TsObserved.kind`: a `PutVersioned`'s condition failed (HTTP 412, or
/// Azure's 409 `BlobAlreadyExists` for `If-None-Match: *`): another writer
/// came in between; nothing was written.
pub const TS_OBSERVED_CONDITION_FAILED: u32 = 13;

/// What the caller observed of the step it ran: `kind` (a
/// `TS_OBSERVED_*`) says which of the other fields is meant.
#[repr(C)]
pub struct TsObserved {
    pub kind: u32,
    pub changed: u64,
    pub row: TsText,
    pub keys: *const TsText,
    pub keys_len: usize,
    pub metadata: *const TsPair,
    pub metadata_len: usize,
    pub reply: *const TsText,
    pub reply_len: usize,
    pub reasons: *const TsText,
    pub reasons_len: usize,
    pub has_recorded: bool,
    pub recorded: TsText,
    pub version: TsText,
    pub failure: TsDriverFailure,
}

/// The class of a driver's failure, the core's.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TsDriverClass {
    /// The register table does not exist.
    MissingTable = 0,
    /// A concurrent transaction came first: retry the whole transaction.
    Serialization = 1,
    /// The database or store refused the caller.
    Permission = 2,
    /// The server could not be reached or went away.
    Unavailable = 3,
    /// Any other failure.
    Other = 4,
}

/// The text lent at `text`, read lossily.
///
/// # Safety
/// `text.ptr` points to `text.len` readable bytes.
unsafe fn lossy(text: &TsText) -> String {
    // SAFETY: promised by the caller.
    String::from_utf8_lossy(unsafe { bytes(text.ptr, text.len) }).into_owned()
}

/// The core's `DriverFailure` of the C one.
///
/// # Safety
/// Its texts point to their lengths' readable bytes.
pub unsafe fn failure(f: &TsDriverFailure) -> DriverFailure {
    // SAFETY: forwarded from the caller.
    unsafe {
        DriverFailure {
            sqlstate: f.has_sqlstate.then(|| lossy(&f.sqlstate)),
            sqlite_code: f.has_sqlite_code.then_some(f.sqlite_code),
            http_status: f.has_http_status.then_some(f.http_status),
            error_code: f.has_error_code.then(|| lossy(&f.error_code)),
            message: lossy(&f.message),
        }
    }
}

fn misfit(kind: u32, machine: &str) -> Failure {
    Failure::new(
        TsCode::Invalid,
        format!("observation kind {kind} is not one a {machine} takes"),
    )
}

/// The SQL check's observation of the C one.
///
/// # Safety
/// Its texts and arrays point to their lengths' readable values.
pub unsafe fn sql(o: &TsObserved) -> Outcome<SqlObserved> {
    // SAFETY: forwarded from the caller.
    unsafe {
        Ok(match o.kind {
            TS_OBSERVED_CHANGED => SqlObserved::Changed(o.changed),
            TS_OBSERVED_ROW => SqlObserved::Row(Some(lossy(&o.row))),
            TS_OBSERVED_NO_ROW => SqlObserved::Row(None),
            TS_OBSERVED_FAILED => SqlObserved::Failed(failure(&o.failure)),
            kind => return Err(misfit(kind, "SQL check")),
        })
    }
}

/// An object machine's observation of the C one.
///
/// # Safety
/// Its texts and arrays point to their lengths' readable values.
pub unsafe fn object(o: &TsObserved) -> Outcome<ObjectObserved> {
    // SAFETY: forwarded from the caller.
    unsafe {
        Ok(match o.kind {
            TS_OBSERVED_LISTED => {
                let keys = slice(o.keys, o.keys_len, "listed keys")?;
                ObjectObserved::Listed(keys.iter().map(|k| lossy(k)).collect())
            }
            TS_OBSERVED_WRITTEN => ObjectObserved::Written,
            TS_OBSERVED_DELETED => ObjectObserved::Deleted,
            TS_OBSERVED_GOT => {
                let pairs = slice(o.metadata, o.metadata_len, "metadata")?;
                let metadata = pairs
                    .iter()
                    .map(|p| (lossy(&p.key), lossy(&p.value)))
                    .collect();
                ObjectObserved::Got { metadata }
            }
            TS_OBSERVED_FAILED => ObjectObserved::Failed(failure(&o.failure)),
            kind => return Err(misfit(kind, "guarded object's machine")),
        })
    }
}

/// The Redis guard's observation of the C one.
///
/// # Safety
/// Its texts and arrays point to their lengths' readable values.
pub unsafe fn redis(o: &TsObserved) -> Outcome<RedisObserved> {
    // SAFETY: forwarded from the caller.
    unsafe {
        Ok(match o.kind {
            TS_OBSERVED_REPLY => {
                let reply = slice(o.reply, o.reply_len, "script reply")?;
                RedisObserved::Reply(reply.iter().map(|r| lossy(r)).collect())
            }
            TS_OBSERVED_FAILED => RedisObserved::Failed(failure(&o.failure)),
            kind => return Err(misfit(kind, "Redis guard")),
        })
    }
}

/// The DynamoDB guard's observation of the C one.
///
/// # Safety
/// Its texts and arrays point to their lengths' readable values.
pub unsafe fn dynamo(o: &TsObserved) -> Outcome<DynamoObserved> {
    // SAFETY: forwarded from the caller.
    unsafe {
        Ok(match o.kind {
            TS_OBSERVED_WRITTEN => DynamoObserved::Written,
            TS_OBSERVED_CANCELLED => {
                let reasons = slice(o.reasons, o.reasons_len, "cancellation reasons")?;
                DynamoObserved::Cancelled {
                    codes: reasons.iter().map(|r| lossy(r)).collect(),
                    recorded: o.has_recorded.then(|| lossy(&o.recorded)),
                    failure: failure(&o.failure),
                }
            }
            TS_OBSERVED_ROW => DynamoObserved::Read(Some(lossy(&o.row))),
            TS_OBSERVED_NO_ROW => DynamoObserved::Read(None),
            TS_OBSERVED_FAILED => DynamoObserved::Failed(failure(&o.failure)),
            kind => return Err(misfit(kind, "DynamoDB guard")),
        })
    }
}

/// The versioned store's guard's observation of the C one.
///
/// # Safety
/// Its texts point to their lengths' readable bytes.
pub unsafe fn versioned(o: &TsObserved) -> Outcome<VersionedObserved> {
    // SAFETY: forwarded from the caller.
    unsafe {
        Ok(match o.kind {
            TS_OBSERVED_FOUND => VersionedObserved::Found {
                version: lossy(&o.version),
                fence: o.has_recorded.then(|| lossy(&o.recorded)),
            },
            TS_OBSERVED_ABSENT => VersionedObserved::Absent,
            TS_OBSERVED_WRITTEN => VersionedObserved::Written,
            TS_OBSERVED_CONDITION_FAILED => VersionedObserved::ConditionFailed,
            TS_OBSERVED_FAILED => VersionedObserved::Failed(failure(&o.failure)),
            kind => return Err(misfit(kind, "versioned store's guard")),
        })
    }
}

/// Classifies a driver's failure as the core does (what
/// `guard.IsSerializationFailure` asks) and writes the class to `*class`
/// and, when `error` is not NULL, the core's error of that failure while
/// `doing` (such as "making tinystore_fences") to `*error`: the class's
/// code and a message naming what was done and the driver's text (the
/// caller clears it with `ts_error_clear`).
///
/// # Safety
/// `described` is NULL (`invalid`) or a readable `TsDriverFailure` whose
/// texts point to their lengths' readable bytes; `doing` points to
/// `doing_len` readable bytes; `class` and `err` are writable; `error` is
/// NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn ts_guard_classify(
    described: *const TsDriverFailure,
    doing: *const u8,
    doing_len: usize,
    class: *mut TsDriverClass,
    error: *mut TsError,
    err: *mut TsError,
) -> bool {
    // SAFETY: forwarded from the caller.
    unsafe {
        call(err, || {
            let f = described
                .as_ref()
                .ok_or_else(|| Failure::new(TsCode::Invalid, "the driver failure is NULL"))?;
            let f = failure(f);
            let kind = match f.class() {
                Class::MissingTable => TsDriverClass::MissingTable,
                Class::Serialization => TsDriverClass::Serialization,
                Class::Permission => TsDriverClass::Permission,
                Class::Unavailable => TsDriverClass::Unavailable,
                Class::Other => TsDriverClass::Other,
            };
            put(class, kind, "class")?;
            let doing = String::from_utf8_lossy(bytes(doing, doing_len));
            fill(error, Failure::from(f.error(&doing)));
            Ok(())
        })
    }
}
