//! The guard on stores that compare versions (the core's
//! `VersionedCheck`: Google Cloud Storage's generations, Azure Blob
//! Storage's ETags) for the Go side: the fence in the object's own
//! metadata, each put made on the condition that the object is still the
//! version read. Its steps are `TS_STEP_KIND_READ_OBJECT` (read the
//! object's version and the fence metadata named by the step's `text`)
//! and `TS_STEP_KIND_PUT_VERSIONED` (put the caller's body and metadata
//! with that key set to the fence, on the step's condition); the Go side
//! answers with `TS_OBSERVED_FOUND` (the version, and the fence when the
//! object has one), `TS_OBSERVED_ABSENT`, `TS_OBSERVED_WRITTEN`,
//! `TS_OBSERVED_CONDITION_FAILED` and `TS_OBSERVED_FAILED`.
//! `ts_guard_versioned_check_metadata` checks the caller's own metadata
//! keys before any call; `ts_guard_versioned_attempted` tells the
//! machine the answer of each attempt of its put made again.

use crate::error::{call, Failure, Outcome, TsCode, TsError};
use crate::fence::TsFence;
use crate::guard_machine::{answer, made, text, versioned_attempted, Machine, TsGuardMachine};
use crate::guard_observed::TsText;
use crate::guard_step::TsGuardStep;
use crate::text::{handle, slice};
use tinystore::guard::versioned_check::{VersionedCheck, VersionedStore};
use tinystore::Fence;

/// The store named `name` (`"gcs"` or `"azure"`, Python's names too);
/// another, or one that is not UTF-8, is `TS_CODE_INVALID`.
///
/// # Safety
/// `name` points to `len` readable bytes.
unsafe fn store(name: *const u8, len: usize) -> Outcome<VersionedStore> {
    // SAFETY: forwarded from the caller.
    match unsafe { text(name, len, "versioned store") }? {
        "gcs" => Ok(VersionedStore::Gcs),
        "azure" => Ok(VersionedStore::Azure),
        other => Err(Failure::new(
            TsCode::Invalid,
            format!("unknown versioned store {other:?}: \"gcs\" or \"azure\""),
        )),
    }
}

/// Makes the guarded put of `fence` to the object `resource` (its bucket
/// or container and name, `"BUCKET/NAME"`, as messages name it) on
/// `store_name` (`"gcs"` or `"azure"`). An unknown store, or a store or
/// resource that is not UTF-8, is `TS_CODE_INVALID`, naming it; the
/// machine's first step checks the resource (`TS_STEP_KIND_DONE` at once,
/// invalid, for a bad one) and is otherwise `TS_STEP_KIND_READ_OBJECT`.
///
/// # Safety
/// The texts point to their lengths' readable bytes; `out`, `first` and
/// `err` are writable; `first` is written with the first step.
#[no_mangle]
pub unsafe extern "C" fn ts_guard_versioned_new(
    store_name: *const u8,
    store_len: usize,
    resource: *const u8,
    resource_len: usize,
    fence: TsFence,
    out: *mut *mut TsGuardMachine,
    first: *mut TsGuardStep,
    err: *mut TsError,
) -> bool {
    // SAFETY: forwarded from the caller.
    unsafe {
        call(err, || {
            let on = store(store_name, store_len)?;
            let resource = text(resource, resource_len, "guard resource")?;
            let check = VersionedCheck::new(on, resource, Fence::from(fence));
            made(out, first, Machine::Versioned(check, on))
        })
    }
}

/// Checks the caller's own metadata keys (`keys_len` of them) for a
/// guarded put to `resource` on `store_name`: the guard's own key, in any
/// case and spelling (`-` or `_`), is `TS_CODE_INVALID` naming it, as is a
/// key that is not UTF-8; nothing is called.
///
/// # Safety
/// The texts and `keys` point to their lengths' readable values; `err` is
/// writable.
#[no_mangle]
pub unsafe extern "C" fn ts_guard_versioned_check_metadata(
    store_name: *const u8,
    store_len: usize,
    resource: *const u8,
    resource_len: usize,
    keys: *const TsText,
    keys_len: usize,
    err: *mut TsError,
) -> bool {
    // SAFETY: forwarded from the caller.
    unsafe {
        call(err, || {
            let on = store(store_name, store_len)?;
            let resource = text(resource, resource_len, "guard resource")?;
            let mut names = Vec::with_capacity(keys_len);
            for key in slice(keys, keys_len, "metadata keys")? {
                names.push(text(key.ptr, key.len, "metadata key")?);
            }
            on.check_metadata(resource, names)?;
            Ok(())
        })
    }
}

/// Tells the machine the answer of one attempt of its put that the client
/// made again: its HTTP `status`, 0 when no answer came (a lost
/// connection, a timeout). The Go side calls it from the client's retry
/// hook, before it observes the put's outcome. Core decides whether the
/// attempt may have been written (no answer, a 5xx, a 408): if so, a
/// larger fence observed from then on ends in `TS_CODE_UNAVAILABLE` (the
/// outcome unknown) rather than `stale`. `TS_CODE_INVALID` for a NULL
/// handle or a machine of another guard.
///
/// # Safety
/// `machine` is NULL or a live handle; `err` is writable.
#[no_mangle]
pub unsafe extern "C" fn ts_guard_versioned_attempted(
    machine: *const TsGuardMachine,
    status: u16,
    err: *mut TsError,
) -> bool {
    // SAFETY: forwarded from the caller.
    unsafe {
        call(err, || {
            versioned_attempted(handle(machine, "guard machine")?, answer(status))
        })
    }
}
