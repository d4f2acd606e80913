//! `TsGuardMachine`: one of the core's guard machines, which do no I/O
//! (the SQL check-and-record, a guarded object write, a guarded object
//! read, a guarded Redis write, a guarded DynamoDB transaction, a guarded
//! put on GCS or Azure: their makers are in `guard_redis`, `guard_dynamo`
//! and `guard_versioned`). The Go side makes it,
//! which gives its first step, does what each step says on the caller's
//! own driver or client, and hands back what it observed
//! (`ts_guard_observe`) until the step is `TS_STEP_KIND_DONE`, whose
//! verdict it turns into Go's outcome. A step borrows its texts from the
//! machine (`Lent`): one call per step, none to clear it.

use crate::error::{call, quiet, Failure, Outcome, TsCode, TsError};
use crate::fence::TsFence;
use crate::guard_observed::{dynamo, object, redis, sql, versioned, TsObserved, TsPair};
use crate::guard_step::{Lent, TsGuardStep};
use crate::text::{free_handle, handle, put, put_handle, slice, utf8};
use std::sync::Mutex;
use tinystore::guard::dynamo_check::DynamoCheck;
use tinystore::guard::redis_check::RedisCheck;
use tinystore::guard::versioned_check::{VersionedCheck, VersionedStore};
use tinystore::guard::{Dialect, ObjectRead, ObjectWrite, Placeholders, SqlCheck};
use tinystore::Fence;

/// The machine behind a handle.
pub(crate) enum Machine {
    Sql(SqlCheck),
    Write(ObjectWrite),
    Read(ObjectRead),
    Redis(RedisCheck),
    Dynamo(DynamoCheck),
    Versioned(VersionedCheck, VersionedStore),
}

/// A machine and the texts of the step it gave last.
struct Held {
    machine: Machine,
    lent: Lent,
}

/// A guard's machine; its calls are serialized by a lock, so the handle
/// may be used from any thread.
pub struct TsGuardMachine(Mutex<Held>);

/// The text at (`ptr`, `len`) as UTF-8: a resource, bucket or key that
/// is not is `invalid`, naming it, before any I/O.
///
/// # Safety
/// `ptr` points to `len` readable bytes.
pub(crate) unsafe fn text<'a>(ptr: *const u8, len: usize, what: &str) -> Outcome<&'a str> {
    // SAFETY: forwarded from the caller.
    unsafe { utf8(ptr, len, what) }
}

/// Makes the SQL check-and-record of `fence` for `resource` in `dialect`
/// (`"sqlite"`, `"postgres"`) with `placeholders` (`"?"`, `"$1"`, `"%s"`);
/// `in_transaction` is whether the caller's handle has a transaction open.
/// Fails with `TS_CODE_INVALID` for an unknown dialect or style, or a
/// resource that is not UTF-8 (naming it); the machine's first step checks
/// the rest.
///
/// # Safety
/// The texts point to their lengths' readable bytes; `out` and `err` are
/// writable; `first` is written with the first step.
#[no_mangle]
pub unsafe extern "C" fn ts_guard_sql_check_new(
    dialect: *const u8,
    dialect_len: usize,
    placeholders: *const u8,
    placeholders_len: usize,
    resource: *const u8,
    resource_len: usize,
    fence: TsFence,
    in_transaction: bool,
    out: *mut *mut TsGuardMachine,
    first: *mut TsGuardStep,
    err: *mut TsError,
) -> bool {
    // SAFETY: forwarded from the caller.
    unsafe {
        call(err, || {
            let dialect = Dialect::parse(text(dialect, dialect_len, "guard dialect")?)?;
            let style = text(placeholders, placeholders_len, "placeholder style")?;
            let placeholders = Placeholders::parse(style)?;
            let resource = text(resource, resource_len, "guard resource")?;
            let check = SqlCheck::new(
                dialect,
                placeholders,
                resource,
                Fence::from(fence),
                in_transaction,
            );
            made(out, first, Machine::Sql(check))
        })
    }
}

/// Makes a guarded put of `fence` to `bucket`/`key` with the caller's own
/// `metadata` (`metadata_len` entries) beside the fence; the caller keeps
/// the body and puts it at each `TS_STEP_KIND_PUT`. A bucket, key or
/// metadata key that is not UTF-8 is `TS_CODE_INVALID`, naming it.
///
/// # Safety
/// The texts and `metadata` point to their lengths' readable values; `out`,
/// `first` and `err` are writable; `first` is written with the first step.
#[no_mangle]
pub unsafe extern "C" fn ts_guard_object_put_new(
    bucket: *const u8,
    bucket_len: usize,
    key: *const u8,
    key_len: usize,
    fence: TsFence,
    metadata: *const TsPair,
    metadata_len: usize,
    out: *mut *mut TsGuardMachine,
    first: *mut TsGuardStep,
    err: *mut TsError,
) -> bool {
    // SAFETY: forwarded from the caller.
    unsafe {
        call(err, || {
            let (bucket, key) = object_name(bucket, bucket_len, key, key_len)?;
            let mut pairs = Vec::with_capacity(metadata_len);
            for pair in slice(metadata, metadata_len, "metadata")? {
                let k = text(pair.key.ptr, pair.key.len, "metadata key")?;
                let v = text(pair.value.ptr, pair.value.len, "metadata value")?;
                pairs.push((k.to_string(), v.to_string()));
            }
            let write = ObjectWrite::put(bucket, key, Fence::from(fence), pairs);
            made(out, first, Machine::Write(write))
        })
    }
}

/// Makes a guarded delete of `bucket`/`key` with `fence`: the put of an
/// empty tombstone that keeps the fence.
///
/// # Safety
/// The texts point to their lengths' readable bytes; `out` and `err` are
/// writable; `first` is written with the first step.
#[no_mangle]
pub unsafe extern "C" fn ts_guard_object_delete_new(
    bucket: *const u8,
    bucket_len: usize,
    key: *const u8,
    key_len: usize,
    fence: TsFence,
    out: *mut *mut TsGuardMachine,
    first: *mut TsGuardStep,
    err: *mut TsError,
) -> bool {
    // SAFETY: forwarded from the caller.
    unsafe {
        call(err, || {
            let (bucket, key) = object_name(bucket, bucket_len, key, key_len)?;
            let write = ObjectWrite::delete(bucket, key, Fence::from(fence));
            made(out, first, Machine::Write(write))
        })
    }
}

/// Makes a guarded read of `bucket`/`key`: the object of the largest
/// fence; `ts_guard_read_found` gives its fence once accepted.
///
/// # Safety
/// The texts point to their lengths' readable bytes; `out` and `err` are
/// writable; `first` is written with the first step.
#[no_mangle]
pub unsafe extern "C" fn ts_guard_object_read_new(
    bucket: *const u8,
    bucket_len: usize,
    key: *const u8,
    key_len: usize,
    out: *mut *mut TsGuardMachine,
    first: *mut TsGuardStep,
    err: *mut TsError,
) -> bool {
    // SAFETY: forwarded from the caller.
    unsafe {
        call(err, || {
            let (bucket, key) = object_name(bucket, bucket_len, key, key_len)?;
            made(out, first, Machine::Read(ObjectRead::new(bucket, key)))
        })
    }
}

/// # Safety
/// The texts point to their lengths' readable bytes.
unsafe fn object_name<'a>(
    bucket: *const u8,
    bucket_len: usize,
    key: *const u8,
    key_len: usize,
) -> Outcome<(&'a str, &'a str)> {
    // SAFETY: forwarded from the caller.
    unsafe {
        Ok((
            text(bucket, bucket_len, "bucket")?,
            text(key, key_len, "object key")?,
        ))
    }
}

/// Starts `machine`, writes its first step to `*first` (`TS_STEP_KIND_DONE`
/// at once for bad input: its verdict says why) and its handle to `*out`.
///
/// # Safety
/// `out` and `first` are NULL or writable.
pub(crate) unsafe fn made(
    out: *mut *mut TsGuardMachine,
    first: *mut TsGuardStep,
    machine: Machine,
) -> Outcome {
    let mut held = Held {
        machine,
        lent: Lent::default(),
    };
    let step = match &mut held.machine {
        Machine::Sql(c) => held.lent.sql(c.start()),
        Machine::Write(w) => held.lent.object(w.start()),
        Machine::Read(r) => held.lent.object(r.start()),
        Machine::Redis(c) => held.lent.redis(c.start()),
        Machine::Dynamo(c) => held.lent.dynamo(c.start()),
        Machine::Versioned(c, on) => held.lent.versioned(c.start(), on.metadata_key()),
    };
    // SAFETY: forwarded from the caller; the step's texts are the heap
    // buffers of `held.lent`, which do not move with the handle.
    unsafe {
        put(first, step, "first step")?;
        put_handle(out, TsGuardMachine(Mutex::new(held)), "machine")
    }
}

fn locked(machine: &TsGuardMachine) -> Outcome<std::sync::MutexGuard<'_, Held>> {
    machine.0.lock().map_err(|_| {
        Failure::new(
            TsCode::Internal,
            "a guard's machine was poisoned by a panic",
        )
    })
}

/// Hands the machine what was observed of the step it last gave and
/// writes the next step to `*step`. Fails with `TS_CODE_INVALID` for a
/// NULL argument or an observation kind the machine does not take.
///
/// # Safety
/// `machine` is NULL or a live handle; `observed` is NULL or readable, its
/// texts and arrays pointing to their lengths' readable values; `step` and
/// `err` are writable. The step's texts are valid until the machine's next
/// call or its free.
#[no_mangle]
pub unsafe extern "C" fn ts_guard_observe(
    machine: *const TsGuardMachine,
    observed: *const TsObserved,
    step: *mut TsGuardStep,
    err: *mut TsError,
) -> bool {
    // SAFETY: forwarded from the caller.
    unsafe {
        call(err, || {
            let mut held = locked(handle(machine, "guard machine")?)?;
            let o = handle(observed, "observation")?;
            let Held { machine, lent } = &mut *held;
            let next = match machine {
                Machine::Sql(c) => lent.sql(c.observe(sql(o)?)),
                Machine::Write(w) => lent.object(w.observe(object(o)?)),
                Machine::Read(r) => lent.object(r.observe(object(o)?)),
                Machine::Redis(c) => lent.redis(c.observe(redis(o)?)),
                Machine::Dynamo(c) => lent.dynamo(c.observe(dynamo(o)?)),
                Machine::Versioned(c, on) => {
                    lent.versioned(c.observe(versioned(o)?), on.metadata_key())
                }
            };
            put(step, next, "step")
        })
    }
}

/// After a read's accepted verdict: `*present` says whether there is an
/// object (false: none listed, or a tombstone), and `*fence` is the fence
/// it was written with. `TS_CODE_INVALID` for a machine that is no read.
///
/// # Safety
/// `machine` is NULL or a live handle; `present`, `fence` and `err` are
/// writable; `first` is written with the first step.
#[no_mangle]
pub unsafe extern "C" fn ts_guard_read_found(
    machine: *const TsGuardMachine,
    present: *mut bool,
    fence: *mut TsFence,
    err: *mut TsError,
) -> bool {
    // SAFETY: forwarded from the caller.
    unsafe {
        call(err, || {
            let held = locked(handle(machine, "guard machine")?)?;
            let Machine::Read(read) = &held.machine else {
                return Err(Failure::new(
                    TsCode::Invalid,
                    "ts_guard_read_found was given a machine that is not a read",
                ));
            };
            let found = read.found();
            put(present, found.is_some(), "present")?;
            put(fence, found.unwrap_or(Fence::from_u128(0)).into(), "fence")
        })
    }
}

/// An attempt's answer as the C side gives it: its HTTP status, 0 when no
/// answer came.
pub(crate) fn answer(status: u16) -> Option<u16> {
    (status != 0).then_some(status)
}

/// Tells a DynamoDB machine the answer of one attempt of its transaction
/// (`DynamoCheck::attempted`; `None`: no answer came); `TS_CODE_INVALID`
/// for another machine.
pub(crate) fn dynamo_attempted(machine: &TsGuardMachine, status: Option<u16>) -> Outcome {
    let mut held = locked(machine)?;
    let Machine::Dynamo(check) = &mut held.machine else {
        return Err(Failure::new(
            TsCode::Invalid,
            "ts_guard_dynamo_attempted was given a machine that is not a DynamoDB guard's",
        ));
    };
    check.attempted(status);
    Ok(())
}

/// Tells a versioned machine (GCS, Azure) the answer of one attempt of its
/// put that the client made again (`VersionedCheck::attempted`; `None`:
/// no answer came); `TS_CODE_INVALID` for another machine.
pub(crate) fn versioned_attempted(machine: &TsGuardMachine, status: Option<u16>) -> Outcome {
    let mut held = locked(machine)?;
    let Machine::Versioned(check, _) = &mut held.machine else {
        return Err(Failure::new(
            TsCode::Invalid,
            "ts_guard_versioned_attempted was given a machine that is not a GCS or Azure guard's",
        ));
    };
    check.attempted(status);
    Ok(())
}

/// Frees a machine; NULL is ignored.
///
/// # Safety
/// `machine` is NULL or a live handle not used again, and no other call on
/// it is running.
#[no_mangle]
pub unsafe extern "C" fn ts_guard_free(machine: *mut TsGuardMachine) {
    // SAFETY: promised by the caller.
    quiet((), || unsafe { free_handle(machine) })
}
