//! The DynamoDB guard's machine (the core's `DynamoCheck`) for the Go side:
//! one `TransactWriteItems` of the caller's items and the register item's
//! conditional put. Its steps are `TS_STEP_KIND_TRANSACT` (the register's
//! put, which the Go side adds last to the caller's items) and
//! `TS_STEP_KIND_READ_ITEM` (a consistent `GetItem` of the register item,
//! when the cancellation did not return it); the Go side answers with
//! `TS_OBSERVED_WRITTEN`, `TS_OBSERVED_CANCELLED` (each item's reason code
//! and the register item's fence as returned), `TS_OBSERVED_ROW` or
//! `TS_OBSERVED_NO_ROW` (the fence read back) and `TS_OBSERVED_FAILED`.
//! The put's fixed texts (its condition, the attribute names) are
//! `ts_guard_dynamo_names`'.

use crate::error::{call, quiet, TsError};
use crate::fence::TsFence;
use crate::guard_machine::{answer, dynamo_attempted, made, text, Machine, TsGuardMachine};
use crate::guard_step::TsGuardStep;
use crate::text::handle;
use crate::text::put;
use std::ffi::{c_char, CString};
use std::sync::OnceLock;
use tinystore::guard::dynamo_check::{
    DynamoCheck, CONDITION, CONDITION_FAILED, MAX_ITEMS, REGISTER_TABLE,
};
use tinystore::Fence;

/// Makes the guard of `fence` for `resource` in the register table
/// `table`, with `items` items of the caller's in the same transaction.
/// A table or resource that is not UTF-8 is `TS_CODE_INVALID`, naming it;
/// the machine's first step checks the rest (a bad resource, an empty
/// table, more than `max_items - 1` items: `TS_STEP_KIND_DONE` at once).
///
/// # Safety
/// The texts point to their lengths' readable bytes; `out`, `first` and
/// `err` are writable; `first` is written with the first step.
#[no_mangle]
pub unsafe extern "C" fn ts_guard_dynamo_new(
    table: *const u8,
    table_len: usize,
    resource: *const u8,
    resource_len: usize,
    fence: TsFence,
    items: usize,
    out: *mut *mut TsGuardMachine,
    first: *mut TsGuardStep,
    err: *mut TsError,
) -> bool {
    // SAFETY: forwarded from the caller.
    unsafe {
        call(err, || {
            let table = text(table, table_len, "DynamoDB register table")?;
            let resource = text(resource, resource_len, "guard resource")?;
            let check = DynamoCheck::new(table, resource, Fence::from(fence), items);
            made(out, first, Machine::Dynamo(check))
        })
    }
}

/// Tells the machine the answer of one attempt of its transaction: its
/// HTTP `status`, 0 when no answer came (a lost connection, a timeout).
/// The Go side calls it from the SDK's attempt middleware, before it
/// observes the last attempt's outcome. Core decides whether the attempt
/// may have been written (no answer, a 5xx, a 408): if so, a larger fence
/// observed then ends in `TS_CODE_UNAVAILABLE` (the outcome unknown)
/// rather than `stale`. `TS_CODE_INVALID` for a NULL handle or a machine
/// of another guard.
///
/// # Safety
/// `machine` is NULL or a live handle; `err` is writable.
#[no_mangle]
pub unsafe extern "C" fn ts_guard_dynamo_attempted(
    machine: *const TsGuardMachine,
    status: u16,
    err: *mut TsError,
) -> bool {
    // SAFETY: forwarded from the caller.
    unsafe {
        call(err, || {
            dynamo_attempted(handle(machine, "guard machine")?, answer(status))
        })
    }
}

/// The DynamoDB guard's fixed texts, from the core, as NUL-terminated
/// UTF-8 that lives as long as the library (never freed). The register's
/// put is `Put { TableName: the step's table, Item: { resource: S the
/// resource, fence: S the fence }, ConditionExpression: condition,
/// ExpressionAttributeValues: { ":fence": S the fence, ":digits": N the
/// digits }, ReturnValuesOnConditionCheckFailure: ALL_OLD }`.
#[repr(C)]
pub struct TsDynamoNames {
    /// The register table unless the caller names another
    /// (`tinystore_fences`).
    pub register_table: *const c_char,
    /// The register put's `ConditionExpression`.
    pub condition: *const c_char,
    /// The reason code of an item whose condition failed
    /// (`ConditionalCheckFailed`).
    pub condition_failed: *const c_char,
    /// The most items one transaction takes, the register's among them.
    pub max_items: usize,
}

/// Writes the DynamoDB guard's fixed texts to `*out`.
///
/// # Safety
/// `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn ts_guard_dynamo_names(out: *mut TsDynamoNames) {
    static NAMES: OnceLock<[CString; 3]> = OnceLock::new();
    quiet((), || {
        let names = NAMES.get_or_init(|| {
            [REGISTER_TABLE, CONDITION, CONDITION_FAILED]
                .map(|name| CString::new(name).unwrap_or_default())
        });
        let value = TsDynamoNames {
            register_table: names[0].as_ptr(),
            condition: names[1].as_ptr(),
            condition_failed: names[2].as_ptr(),
            max_items: MAX_ITEMS,
        };
        // SAFETY: promised by the caller.
        let _ = unsafe { put(out, value, "names") };
    })
}
