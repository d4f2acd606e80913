//! `TsGuardMachine`: one of the core's guard machines, which do no I/O
//! (the SQL check-and-record, a guarded object write, a guarded object
//! read). The Go side makes it, takes its first step (`ts_guard_start`),
//! does what each step says on the caller's own driver or client, and
//! hands back what it observed (`ts_guard_observe`) until the step is
//! `TS_STEP_KIND_DONE`, whose verdict it turns into Go's outcome.

use crate::error::{call, quiet, Failure, Outcome, TsCode, TsError};
use crate::fence::TsFence;
use crate::guard_observed::{object, sql, TsObserved, TsPair};
use crate::guard_step::{of_object, of_sql, TsGuardStep};
use crate::text::{free_handle, handle, put, put_handle, slice, utf8};
use std::sync::Mutex;
use tinystore::guard::{Dialect, ObjectRead, ObjectWrite, Placeholders, SqlCheck};
use tinystore::Fence;

enum Machine {
    Sql(SqlCheck),
    Write(ObjectWrite),
    Read(ObjectRead),
}

/// A guard's machine; its calls are serialized by a lock, so the handle
/// may be used from any thread.
pub struct TsGuardMachine(Mutex<Machine>);

/// The text at (`ptr`, `len`) as UTF-8: a resource, bucket or key that
/// is not is `invalid`, naming it, before any I/O.
///
/// # Safety
/// `ptr` points to `len` readable bytes.
unsafe fn text<'a>(ptr: *const u8, len: usize, what: &str) -> Outcome<&'a str> {
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
/// writable.
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
            made(out, Machine::Sql(check))
        })
    }
}

/// Makes a guarded put of `fence` to `bucket`/`key` with the caller's own
/// `metadata` (`metadata_len` entries) beside the fence; the caller keeps
/// the body and puts it at each `TS_STEP_KIND_PUT`. A bucket, key or
/// metadata key that is not UTF-8 is `TS_CODE_INVALID`, naming it.
///
/// # Safety
/// The texts and `metadata` point to their lengths' readable values; `out`
/// and `err` are writable.
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
            made(out, Machine::Write(write))
        })
    }
}

/// Makes a guarded delete of `bucket`/`key` with `fence`: the put of an
/// empty tombstone that keeps the fence.
///
/// # Safety
/// The texts point to their lengths' readable bytes; `out` and `err` are
/// writable.
#[no_mangle]
pub unsafe extern "C" fn ts_guard_object_delete_new(
    bucket: *const u8,
    bucket_len: usize,
    key: *const u8,
    key_len: usize,
    fence: TsFence,
    out: *mut *mut TsGuardMachine,
    err: *mut TsError,
) -> bool {
    // SAFETY: forwarded from the caller.
    unsafe {
        call(err, || {
            let (bucket, key) = object_name(bucket, bucket_len, key, key_len)?;
            let write = ObjectWrite::delete(bucket, key, Fence::from(fence));
            made(out, Machine::Write(write))
        })
    }
}

/// Makes a guarded read of `bucket`/`key`: the object of the largest
/// fence; `ts_guard_read_found` gives its fence once accepted.
///
/// # Safety
/// The texts point to their lengths' readable bytes; `out` and `err` are
/// writable.
#[no_mangle]
pub unsafe extern "C" fn ts_guard_object_read_new(
    bucket: *const u8,
    bucket_len: usize,
    key: *const u8,
    key_len: usize,
    out: *mut *mut TsGuardMachine,
    err: *mut TsError,
) -> bool {
    // SAFETY: forwarded from the caller.
    unsafe {
        call(err, || {
            let (bucket, key) = object_name(bucket, bucket_len, key, key_len)?;
            made(out, Machine::Read(ObjectRead::new(bucket, key)))
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

/// # Safety
/// `out` is NULL or writable.
unsafe fn made(out: *mut *mut TsGuardMachine, machine: Machine) -> Outcome {
    // SAFETY: forwarded from the caller.
    unsafe { put_handle(out, TsGuardMachine(Mutex::new(machine)), "machine") }
}

fn locked(machine: &TsGuardMachine) -> Outcome<std::sync::MutexGuard<'_, Machine>> {
    machine.0.lock().map_err(|_| {
        Failure::new(
            TsCode::Internal,
            "a guard's machine was poisoned by a panic",
        )
    })
}

/// Writes the machine's first step to `*step` (`TS_STEP_KIND_DONE` at
/// once for bad input: its verdict says why). Fails only for a NULL
/// argument.
///
/// # Safety
/// `machine` is NULL or a live handle; `step` and `err` are writable; the
/// caller clears the step with `ts_guard_step_clear`.
#[no_mangle]
pub unsafe extern "C" fn ts_guard_start(
    machine: *const TsGuardMachine,
    step: *mut TsGuardStep,
    err: *mut TsError,
) -> bool {
    // SAFETY: forwarded from the caller.
    unsafe {
        call(err, || {
            let mut m = locked(handle(machine, "guard machine")?)?;
            let next = match &mut *m {
                Machine::Sql(c) => of_sql(c.start()),
                Machine::Write(w) => of_object(w.start()),
                Machine::Read(r) => of_object(r.start()),
            };
            put(step, next, "step")
        })
    }
}

/// Hands the machine what was observed of the step it last gave and
/// writes the next step to `*step`. Fails with `TS_CODE_INVALID` for a
/// NULL argument or an observation kind the machine does not take.
///
/// # Safety
/// `machine` is NULL or a live handle; `observed` is NULL or readable, its
/// texts and arrays pointing to their lengths' readable values; `step` and
/// `err` are writable; the caller clears the step with
/// `ts_guard_step_clear`.
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
            let mut m = locked(handle(machine, "guard machine")?)?;
            let o = handle(observed, "observation")?;
            let next = match &mut *m {
                Machine::Sql(c) => of_sql(c.observe(sql(o)?)),
                Machine::Write(w) => of_object(w.observe(object(o)?)),
                Machine::Read(r) => of_object(r.observe(object(o)?)),
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
/// writable.
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
            let m = locked(handle(machine, "guard machine")?)?;
            let Machine::Read(read) = &*m else {
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

/// A lent text of `text`, for the tests.
#[cfg(test)]
pub(crate) fn lent(text: &str) -> crate::guard_observed::TsText {
    crate::guard_observed::TsText {
        ptr: text.as_ptr(),
        len: text.len(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ts_error_clear;
    use crate::guard_observed::{
        ts_guard_classify, TsDriverClass, TsDriverFailure, TsText, TS_OBSERVED_CHANGED,
        TS_OBSERVED_LISTED, TS_OBSERVED_ROW, TS_OBSERVED_WRITTEN,
    };
    use crate::guard_step::{ts_guard_step_clear, TsStepKind, TsVerdictKind};
    use std::ffi::CStr;

    fn error() -> TsError {
        TsError {
            code: TsCode::Ok,
            message: std::ptr::null_mut(),
        }
    }

    fn message(err: &TsError) -> String {
        // SAFETY: filled by this library.
        unsafe { CStr::from_ptr(err.message) }
            .to_string_lossy()
            .into_owned()
    }

    fn none() -> TsText {
        TsText {
            ptr: std::ptr::null(),
            len: 0,
        }
    }

    fn failure() -> TsDriverFailure {
        TsDriverFailure {
            has_sqlstate: false,
            sqlstate: none(),
            has_sqlite_code: false,
            sqlite_code: 0,
            has_http_status: false,
            http_status: 0,
            has_error_code: false,
            error_code: none(),
            message: none(),
        }
    }

    fn observed(kind: u32) -> TsObserved {
        TsObserved {
            kind,
            changed: 0,
            row: none(),
            keys: std::ptr::null(),
            keys_len: 0,
            metadata: std::ptr::null(),
            metadata_len: 0,
            failure: failure(),
        }
    }

    fn text_of(t: &crate::guard_step::TsOwnedText) -> String {
        // SAFETY: made by this library, `len` bytes at `ptr`.
        String::from_utf8(unsafe { crate::text::bytes(t.ptr, t.len) }.to_vec()).unwrap()
    }

    fn sql_check(resource: &[u8], fence: u64) -> (*mut TsGuardMachine, TsError) {
        let (mut m, mut err) = (std::ptr::null_mut(), error());
        // SAFETY: the texts are live slices; out and err are writable.
        unsafe {
            ts_guard_sql_check_new(
                "sqlite".as_ptr(),
                6,
                "?".as_ptr(),
                1,
                resource.as_ptr(),
                resource.len(),
                TsFence {
                    epoch: 0,
                    count: fence,
                },
                true,
                &mut m,
                &mut err,
            )
        };
        (m, err)
    }

    /// Observes `o` and gives the next step.
    fn observe(m: *mut TsGuardMachine, o: &TsObserved) -> TsGuardStep {
        let mut step = std::mem::MaybeUninit::<TsGuardStep>::uninit();
        let mut err = error();
        // SAFETY: m is live, o readable, step and err writable.
        assert!(unsafe { ts_guard_observe(m, o, step.as_mut_ptr(), &mut err) });
        // SAFETY: written by the call that succeeded.
        unsafe { step.assume_init() }
    }

    fn start(m: *mut TsGuardMachine) -> TsGuardStep {
        let mut step = std::mem::MaybeUninit::<TsGuardStep>::uninit();
        let mut err = error();
        // SAFETY: m is live, step and err writable.
        assert!(unsafe { ts_guard_start(m, step.as_mut_ptr(), &mut err) });
        // SAFETY: written by the call that succeeded.
        unsafe { step.assume_init() }
    }

    #[test]
    fn a_sql_check_runs_the_cores_steps_and_ends_stale_with_the_three() {
        let (m, _) = sql_check(b"chats/42", 7);
        let mut step = start(m);
        assert_eq!(step.kind, TsStepKind::Execute);
        assert!(text_of(&step.text).starts_with("INSERT INTO tinystore_fences"));
        assert_eq!(step.params_len, 2);
        // SAFETY: params_len texts at params, made by this library.
        let params = unsafe { std::slice::from_raw_parts(step.params, step.params_len) };
        assert_eq!(text_of(&params[0]), "chats/42");
        // SAFETY: written by this library.
        unsafe { ts_guard_step_clear(&mut step) };
        assert!(step.params.is_null() && step.text.ptr.is_null());
        let mut step = observe(m, &observed(TS_OBSERVED_CHANGED));
        assert_eq!(step.kind, TsStepKind::Query);
        // SAFETY: as above.
        unsafe { ts_guard_step_clear(&mut step) };
        let larger = Fence::new(1, 0).text();
        let row = TsObserved {
            row: lent(&larger),
            ..observed(TS_OBSERVED_ROW)
        };
        let mut step = observe(m, &row);
        assert_eq!(
            (step.kind, step.verdict.kind),
            (TsStepKind::Done, TsVerdictKind::Refused)
        );
        let v = &step.verdict;
        assert_eq!(v.error.code, TsCode::Stale);
        assert!(v.stale && text_of(&v.stale_resource) == "chats/42");
        assert_eq!(v.stale_fence, TsFence { epoch: 0, count: 7 });
        assert_eq!(v.stale_largest, TsFence { epoch: 1, count: 0 });
        assert!(message(&v.error).contains("chats/42"));
        // SAFETY: as above; the machine is not used again.
        unsafe {
            ts_guard_step_clear(&mut step);
            ts_guard_step_clear(&mut step);
            ts_guard_free(m);
        }
    }

    #[test]
    fn text_that_is_not_utf8_is_invalid_before_any_step() {
        let (m, mut err) = sql_check(b"chats/\xed\xa0\x80", 7);
        assert!(m.is_null());
        assert_eq!(err.code, TsCode::Invalid);
        assert!(
            message(&err).contains("guard resource") && message(&err).contains("UTF-8"),
            "{}",
            message(&err)
        );
        // SAFETY: filled by this library.
        unsafe { ts_error_clear(&mut err) };
        let (mut m, bad) = (std::ptr::null_mut(), b"k\xff");
        // SAFETY: the texts are live slices; out and err are writable.
        let made =
            unsafe { ts_guard_object_read_new("b".as_ptr(), 1, bad.as_ptr(), 2, &mut m, &mut err) };
        assert!(!made && err.code == TsCode::Invalid && message(&err).contains("object key"));
        // SAFETY: filled by this library.
        unsafe { ts_error_clear(&mut err) };
    }

    #[test]
    fn an_object_put_lists_puts_lists_and_a_wrong_observation_is_invalid() {
        let (mut m, mut err) = (std::ptr::null_mut(), error());
        let pair = TsPair {
            key: lent("owner"),
            value: lent("go"),
        };
        // SAFETY: the texts and the pair are live; out and err are writable.
        assert!(unsafe {
            ts_guard_object_put_new(
                "b".as_ptr(),
                1,
                "k".as_ptr(),
                1,
                TsFence { epoch: 0, count: 7 },
                &pair,
                1,
                &mut m,
                &mut err,
            )
        });
        let mut step = start(m);
        assert_eq!(
            (step.kind, text_of(&step.text).as_str()),
            (TsStepKind::List, "k/tinystore-fence/")
        );
        // SAFETY: written by this library.
        unsafe { ts_guard_step_clear(&mut step) };
        let mut step = observe(m, &observed(TS_OBSERVED_LISTED));
        assert_eq!(step.kind, TsStepKind::Put);
        // SAFETY: metadata_len pairs at metadata, made by this library.
        let metadata = unsafe { std::slice::from_raw_parts(step.metadata, step.metadata_len) };
        let keys: Vec<String> = metadata.iter().map(|p| text_of(&p.key)).collect();
        assert!(
            keys.contains(&"owner".to_string()) && keys.contains(&"tinystore-fence".to_string())
        );
        let ours = text_of(&step.text);
        // SAFETY: as above.
        unsafe { ts_guard_step_clear(&mut step) };
        let mut step = observe(m, &observed(TS_OBSERVED_WRITTEN));
        // SAFETY: as above.
        unsafe { ts_guard_step_clear(&mut step) };
        let listed = [lent(&ours)];
        let after = TsObserved {
            keys: listed.as_ptr(),
            keys_len: 1,
            ..observed(TS_OBSERVED_LISTED)
        };
        let step = observe(m, &after);
        assert_eq!(step.verdict.kind, TsVerdictKind::Accepted);
        let mut step2 = std::mem::MaybeUninit::<TsGuardStep>::uninit();
        // SAFETY: m is live; the observation readable; step2 and err writable.
        let ok = unsafe {
            ts_guard_observe(m, &observed(TS_OBSERVED_ROW), step2.as_mut_ptr(), &mut err)
        };
        assert!(!ok && err.code == TsCode::Invalid, "{}", message(&err));
        // SAFETY: filled by this library; the machine is not used again.
        unsafe {
            ts_error_clear(&mut err);
            ts_guard_free(m);
        }
        // SAFETY: NULL handles are refused, never read.
        assert!(!unsafe { ts_guard_start(std::ptr::null(), step2.as_mut_ptr(), &mut err) });
        // SAFETY: filled by this library.
        unsafe { ts_error_clear(&mut err) };
    }

    #[test]
    fn the_core_classifies_a_described_failure() {
        let (mut class, mut err) = (TsDriverClass::Other, error());
        let f = TsDriverFailure {
            has_sqlstate: true,
            sqlstate: lent("40001"),
            ..failure()
        };
        let (doing, mut error) = ("making tinystore_fences", error());
        // SAFETY: f and doing are readable; class, error and err writable.
        assert!(unsafe {
            ts_guard_classify(
                &f,
                doing.as_ptr(),
                doing.len(),
                &mut class,
                &mut error,
                &mut err,
            )
        });
        assert_eq!(
            (class, error.code),
            (TsDriverClass::Serialization, TsCode::Io)
        );
        assert!(message(&error).contains(doing) && message(&error).contains("40001"));
        // SAFETY: filled by this library.
        unsafe { ts_error_clear(&mut error) };
        let f = TsDriverFailure {
            has_error_code: true,
            error_code: lent("ECONNREFUSED"),
            ..failure()
        };
        // SAFETY: f is readable; a NULL error is not written; class and err writable.
        assert!(unsafe {
            ts_guard_classify(
                &f,
                std::ptr::null(),
                0,
                &mut class,
                std::ptr::null_mut(),
                &mut err,
            )
        });
        assert_eq!(class, TsDriverClass::Unavailable);
    }
}
