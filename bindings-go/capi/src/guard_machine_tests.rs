//! The C ABI of the guard's machines, called as Go calls it.

use crate::error::{ts_error_clear, TsCode, TsError};
use crate::fence::TsFence;
use crate::guard_dynamo::{
    ts_guard_dynamo_attempted, ts_guard_dynamo_names, ts_guard_dynamo_new, TsDynamoNames,
};
use crate::guard_machine::*;
use crate::guard_observed::{
    ts_guard_classify, TsDriverClass, TsDriverFailure, TsText, TS_OBSERVED_CHANGED,
    TS_OBSERVED_LISTED, TS_OBSERVED_ROW, TS_OBSERVED_WRITTEN,
};
use crate::guard_observed::{TsObserved, TsPair, TS_OBSERVED_REPLY};
use crate::guard_observed::{TS_OBSERVED_ABSENT, TS_OBSERVED_CONDITION_FAILED, TS_OBSERVED_FOUND};
use crate::guard_observed::{TS_OBSERVED_CANCELLED, TS_OBSERVED_FAILED, TS_OBSERVED_NO_ROW};
use crate::guard_redis::{ts_guard_redis_script_new, ts_guard_redis_set_new};
use crate::guard_step::{TsGuardStep, TsStepKind, TsVerdictKind};
use crate::guard_versioned::{
    ts_guard_versioned_attempted, ts_guard_versioned_check_metadata, ts_guard_versioned_new,
};
use std::ffi::CStr;
use std::mem::MaybeUninit;
use tinystore::Fence;

/// A lent text of `text`.
fn lent(text: &str) -> TsText {
    TsText {
        ptr: text.as_ptr(),
        len: text.len(),
    }
}

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
        reply: std::ptr::null(),
        reply_len: 0,
        reasons: std::ptr::null(),
        reasons_len: 0,
        has_recorded: false,
        recorded: none(),
        version: none(),
        failure: failure(),
    }
}

fn text_of(t: &TsText) -> String {
    // SAFETY: lent by a live machine, `len` bytes at `ptr`.
    String::from_utf8(unsafe { crate::text::bytes(t.ptr, t.len) }.to_vec()).unwrap()
}

/// A SQL check, its first step (when made) and the error (when not).
fn sql_check(
    resource: &[u8],
    fence: u64,
) -> (*mut TsGuardMachine, MaybeUninit<TsGuardStep>, TsError) {
    let (mut m, mut first, mut err) = (std::ptr::null_mut(), MaybeUninit::uninit(), error());
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
            first.as_mut_ptr(),
            &mut err,
        )
    };
    (m, first, err)
}

/// Observes `o` and gives the next step.
fn observe(m: *mut TsGuardMachine, o: &TsObserved) -> TsGuardStep {
    let mut step = MaybeUninit::<TsGuardStep>::uninit();
    let mut err = error();
    // SAFETY: m is live, o readable, step and err writable.
    assert!(unsafe { ts_guard_observe(m, o, step.as_mut_ptr(), &mut err) });
    // SAFETY: written by the call that succeeded.
    unsafe { step.assume_init() }
}

#[test]
fn a_sql_check_runs_the_cores_steps_and_ends_stale_with_the_three() {
    let (m, first, _) = sql_check(b"chats/42", 7);
    // SAFETY: written by the call that made m.
    let step = unsafe { first.assume_init() };
    assert_eq!(step.kind, TsStepKind::Execute);
    assert!(text_of(&step.text).starts_with("INSERT INTO tinystore_fences"));
    assert_eq!(step.params_len, 2);
    // SAFETY: params_len texts at params, made by this library.
    let params = unsafe { std::slice::from_raw_parts(step.params, step.params_len) };
    assert_eq!(text_of(&params[0]), "chats/42");
    let step = observe(m, &observed(TS_OBSERVED_CHANGED));
    assert_eq!(step.kind, TsStepKind::Query);
    let larger = Fence::new(1, 0).text();
    let row = TsObserved {
        row: lent(&larger),
        ..observed(TS_OBSERVED_ROW)
    };
    let step = observe(m, &row);
    assert_eq!(
        (step.kind, step.verdict.kind),
        (TsStepKind::Done, TsVerdictKind::Refused)
    );
    let v = &step.verdict;
    assert_eq!(v.code, TsCode::Stale);
    assert!(v.stale && text_of(&v.stale_resource) == "chats/42");
    assert_eq!(v.stale_fence, TsFence { epoch: 0, count: 7 });
    assert_eq!(v.stale_largest, TsFence { epoch: 1, count: 0 });
    assert!(text_of(&v.message).contains("chats/42"));
    // SAFETY: the machine is not used again (nor its step's texts).
    unsafe { ts_guard_free(m) };
}

#[test]
fn text_that_is_not_utf8_is_invalid_before_any_step() {
    let (m, _, mut err) = sql_check(b"chats/\xed\xa0\x80", 7);
    assert!(m.is_null());
    assert_eq!(err.code, TsCode::Invalid);
    assert!(
        message(&err).contains("guard resource") && message(&err).contains("UTF-8"),
        "{}",
        message(&err)
    );
    // SAFETY: filled by this library.
    unsafe { ts_error_clear(&mut err) };
    let (mut m, mut first, bad) = (std::ptr::null_mut(), MaybeUninit::uninit(), b"k\xff");
    // SAFETY: the texts are live slices; out, first and err are writable.
    let made = unsafe {
        ts_guard_object_read_new(
            "b".as_ptr(),
            1,
            bad.as_ptr(),
            2,
            &mut m,
            first.as_mut_ptr(),
            &mut err,
        )
    };
    assert!(!made && err.code == TsCode::Invalid && message(&err).contains("object key"));
    // SAFETY: filled by this library.
    unsafe { ts_error_clear(&mut err) };
}

#[test]
fn an_object_put_lists_puts_lists_and_a_wrong_observation_is_invalid() {
    let (mut m, mut first, mut err) = (std::ptr::null_mut(), MaybeUninit::uninit(), error());
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
            first.as_mut_ptr(),
            &mut err,
        )
    });
    // SAFETY: written by the call that made m.
    let step = unsafe { first.assume_init() };
    assert_eq!(
        (step.kind, text_of(&step.text).as_str()),
        (TsStepKind::List, "k/tinystore-fence/")
    );
    let step = observe(m, &observed(TS_OBSERVED_LISTED));
    assert_eq!(step.kind, TsStepKind::Put);
    // SAFETY: metadata_len pairs at metadata, made by this library.
    let metadata = unsafe { std::slice::from_raw_parts(step.metadata, step.metadata_len) };
    let keys: Vec<String> = metadata.iter().map(|p| text_of(&p.key)).collect();
    assert!(keys.contains(&"owner".to_string()) && keys.contains(&"tinystore-fence".to_string()));
    let ours = text_of(&step.text);
    let step = observe(m, &observed(TS_OBSERVED_WRITTEN));
    assert_eq!(step.kind, TsStepKind::List);
    let listed = [lent(&ours)];
    let after = TsObserved {
        keys: listed.as_ptr(),
        keys_len: 1,
        ..observed(TS_OBSERVED_LISTED)
    };
    let step = observe(m, &after);
    assert_eq!(step.verdict.kind, TsVerdictKind::Accepted);
    let mut step2 = MaybeUninit::<TsGuardStep>::uninit();
    // SAFETY: m is live; the observation readable; step2 and err writable.
    let ok =
        unsafe { ts_guard_observe(m, &observed(TS_OBSERVED_ROW), step2.as_mut_ptr(), &mut err) };
    assert!(!ok && err.code == TsCode::Invalid, "{}", message(&err));
    // SAFETY: filled by this library; the machine is not used again.
    unsafe {
        ts_error_clear(&mut err);
        ts_guard_free(m);
    }
    // SAFETY: NULL handles are refused, never read.
    assert!(!unsafe {
        ts_guard_observe(
            std::ptr::null(),
            &observed(TS_OBSERVED_ROW),
            step2.as_mut_ptr(),
            &mut err,
        )
    });
    // SAFETY: filled by this library.
    unsafe { ts_error_clear(&mut err) };
}

/// The texts of a step's array of `len` texts at `ptr`.
fn texts_of(ptr: *const TsText, len: usize) -> Vec<String> {
    if len == 0 {
        return vec![];
    }
    // SAFETY: len texts at ptr, made by this library.
    unsafe { std::slice::from_raw_parts(ptr, len) }
        .iter()
        .map(text_of)
        .collect()
}

#[test]
fn a_redis_set_is_one_script_and_a_larger_fence_in_its_reply_is_stale() {
    let (mut m, mut first, mut err) = (std::ptr::null_mut(), MaybeUninit::uninit(), error());
    // SAFETY: the texts are live slices; out, first and err are writable.
    assert!(unsafe {
        ts_guard_redis_set_new(
            "chats/42".as_ptr(),
            8,
            "v".as_ptr(),
            1,
            TsFence { epoch: 0, count: 7 },
            &mut m,
            first.as_mut_ptr(),
            &mut err,
        )
    });
    // SAFETY: written by the call that made m.
    let step = unsafe { first.assume_init() };
    assert_eq!(step.kind, TsStepKind::Eval);
    assert!(text_of(&step.text).contains("redis.call('SET', KEYS[1], ARGV[1])"));
    let keys = texts_of(step.keys, step.keys_len);
    assert_eq!(keys, ["{chats/42}:tinystore-fence", "chats/42"]);
    let args = texts_of(step.params, step.params_len);
    assert_eq!(args, [Fence::from_u128(7).text().as_str(), "set", "v"]);
    let larger = Fence::from_u128(9).text();
    let reply = [lent("refused"), lent(&larger)];
    let answered = TsObserved {
        reply: reply.as_ptr(),
        reply_len: 2,
        ..observed(TS_OBSERVED_REPLY)
    };
    let v = observe(m, &answered).verdict;
    assert_eq!((v.kind, v.code), (TsVerdictKind::Refused, TsCode::Stale));
    assert!(v.stale && text_of(&v.stale_resource) == "chats/42");
    assert_eq!(v.stale_largest, TsFence { epoch: 0, count: 9 });
    // SAFETY: the machine is not used again.
    unsafe { ts_guard_free(m) };
}

#[test]
fn a_redis_script_runs_behind_the_check_and_bad_text_is_invalid() {
    let (mut m, mut first, mut err) = (std::ptr::null_mut(), MaybeUninit::uninit(), error());
    let (theirs, arg) = ([lent("{chats/42}:log")], [lent("a")]);
    let body = "return 1";
    // SAFETY: the texts and arrays are live; out, first and err are writable.
    assert!(unsafe {
        ts_guard_redis_script_new(
            "chats/42".as_ptr(),
            8,
            body.as_ptr(),
            body.len(),
            theirs.as_ptr(),
            1,
            arg.as_ptr(),
            1,
            TsFence { epoch: 0, count: 7 },
            &mut m,
            first.as_mut_ptr(),
            &mut err,
        )
    });
    // SAFETY: written by the call that made m.
    let step = unsafe { first.assume_init() };
    assert!(text_of(&step.text).contains("return 1\nend)(keys, args)"));
    assert_eq!(texts_of(step.keys, step.keys_len)[2], "{chats/42}:log");
    let reply = [lent("accepted"), lent("1")];
    let answered = TsObserved {
        reply: reply.as_ptr(),
        reply_len: 2,
        ..observed(TS_OBSERVED_REPLY)
    };
    assert_eq!(observe(m, &answered).verdict.kind, TsVerdictKind::Accepted);
    // SAFETY: the machine is not used again.
    unsafe { ts_guard_free(m) };
    let bad = [TsText {
        ptr: b"k\xff".as_ptr(),
        len: 2,
    }];
    let (mut m, mut first) = (std::ptr::null_mut(), MaybeUninit::uninit());
    // SAFETY: as above.
    let made = unsafe {
        ts_guard_redis_script_new(
            "chats/42".as_ptr(),
            8,
            body.as_ptr(),
            body.len(),
            bad.as_ptr(),
            1,
            std::ptr::null(),
            0,
            TsFence { epoch: 0, count: 7 },
            &mut m,
            first.as_mut_ptr(),
            &mut err,
        )
    };
    assert!(!made && err.code == TsCode::Invalid && message(&err).contains("Redis key"));
    // SAFETY: filled by this library.
    unsafe { ts_error_clear(&mut err) };
}

/// A DynamoDB guard of fence 7 with `items` items of the caller's, its
/// first step (when made) and the error (when not).
fn dynamo(
    table: &[u8],
    resource: &[u8],
    items: usize,
) -> (*mut TsGuardMachine, MaybeUninit<TsGuardStep>, TsError, bool) {
    let (mut m, mut first, mut err) = (std::ptr::null_mut(), MaybeUninit::uninit(), error());
    // SAFETY: the texts are live slices; out, first and err are writable.
    let made = unsafe {
        ts_guard_dynamo_new(
            table.as_ptr(),
            table.len(),
            resource.as_ptr(),
            resource.len(),
            TsFence { epoch: 0, count: 7 },
            items,
            &mut m,
            first.as_mut_ptr(),
            &mut err,
        )
    };
    (m, first, err, made)
}

/// The cancellation of a transaction with these reasons and the register
/// item's fence as returned.
fn cancelled(reasons: &[TsText], recorded: Option<&str>) -> TsObserved {
    TsObserved {
        reasons: reasons.as_ptr(),
        reasons_len: reasons.len(),
        has_recorded: recorded.is_some(),
        recorded: recorded.map(lent).unwrap_or_else(none),
        failure: TsDriverFailure {
            has_error_code: true,
            error_code: lent("TransactionCanceledException"),
            message: lent("Transaction cancelled"),
            ..failure()
        },
        ..observed(TS_OBSERVED_CANCELLED)
    }
}

#[test]
fn a_dynamo_transaction_puts_the_register_last_and_a_larger_fence_returned_is_stale() {
    let (m, first, _, made) = dynamo(b"tinystore_fences", b"chats/42", 1);
    assert!(made);
    // SAFETY: written by the call that made m.
    let step = unsafe { first.assume_init() };
    assert_eq!(step.kind, TsStepKind::Transact);
    assert_eq!(text_of(&step.text), "tinystore_fences");
    assert_eq!(texts_of(step.keys, step.keys_len), ["chats/42"]);
    let fence = Fence::from_u128(7).text();
    assert_eq!(
        texts_of(step.params, step.params_len),
        [fence.as_str(), "40"]
    );
    let larger = Fence::from_u128(9).text();
    let reasons = [lent("None"), lent("ConditionalCheckFailed")];
    let v = observe(m, &cancelled(&reasons, Some(&larger))).verdict;
    assert_eq!((v.kind, v.code), (TsVerdictKind::Refused, TsCode::Stale));
    assert!(v.stale && text_of(&v.stale_resource) == "chats/42");
    assert_eq!(
        (v.stale_fence, v.stale_largest),
        (
            TsFence { epoch: 0, count: 7 },
            TsFence { epoch: 0, count: 9 }
        )
    );
    // SAFETY: the machine is not used again.
    unsafe { ts_guard_free(m) };
}

#[test]
fn a_larger_fence_after_a_lost_answer_is_unavailable_and_another_machine_invalid() {
    let (m, _, _, made) = dynamo(b"tinystore_fences", b"chats/42", 1);
    assert!(made);
    let mut err = error();
    // SAFETY: m is live; err is writable.
    assert!(unsafe { ts_guard_dynamo_attempted(m, 0, &mut err) });
    let larger = Fence::from_u128(9).text();
    let reasons = [lent("None"), lent("ConditionalCheckFailed")];
    let v = observe(m, &cancelled(&reasons, Some(&larger))).verdict;
    assert_eq!(
        (v.kind, v.code),
        (TsVerdictKind::Refused, TsCode::Unavailable)
    );
    assert!(!v.stale);
    // SAFETY: the machine is not used again.
    unsafe { ts_guard_free(m) };

    let (sql, _, _) = sql_check(b"chats/42", 7);
    let mut err = error();
    // SAFETY: sql is live; err is writable.
    assert!(!unsafe { ts_guard_dynamo_attempted(sql, 0, &mut err) });
    assert_eq!(err.code, TsCode::Invalid);
    assert!(
        message(&err).contains("not a DynamoDB"),
        "{}",
        message(&err)
    );
    // SAFETY: err was filled by this library; NULL is refused.
    unsafe {
        ts_error_clear(&mut err);
        assert!(!ts_guard_dynamo_attempted(std::ptr::null(), 0, &mut err));
        ts_error_clear(&mut err);
        ts_guard_free(sql);
    }
}

#[test]
fn a_dynamo_register_not_returned_is_read_and_a_callers_reason_is_the_drivers() {
    let (m, _, _, _) = dynamo(b"fences", b"chats/42", 0);
    let reasons = [lent("ConditionalCheckFailed")];
    let step = observe(m, &cancelled(&reasons, None));
    assert_eq!(step.kind, TsStepKind::ReadItem);
    assert_eq!(text_of(&step.text), "fences");
    assert_eq!(texts_of(step.keys, step.keys_len), ["chats/42"]);
    let read = TsObserved {
        row: lent("(a number)"),
        ..observed(TS_OBSERVED_ROW)
    };
    let v = observe(m, &read).verdict;
    assert_eq!((v.kind, v.code), (TsVerdictKind::Refused, TsCode::Corrupt));
    assert!(text_of(&v.message).contains("fences"));
    // SAFETY: the machine is not used again.
    unsafe { ts_guard_free(m) };

    let (m, _, _, _) = dynamo(b"fences", b"chats/42", 1);
    let reasons = [lent("TransactionConflict"), lent("None")];
    let v = observe(m, &cancelled(&reasons, None)).verdict;
    assert_eq!((v.kind, v.code), (TsVerdictKind::Driver, TsCode::Io));
    assert!(text_of(&v.message).contains("TransactionConflict"));
    // SAFETY: the machine is not used again.
    unsafe { ts_guard_free(m) };

    let (m, _, _, _) = dynamo(b"fences", b"chats/42", 0);
    let step = observe(m, &cancelled(&[lent("ConditionalCheckFailed")], None));
    assert_eq!(step.kind, TsStepKind::ReadItem);
    let mut step = MaybeUninit::<TsGuardStep>::uninit();
    let mut err = error();
    // SAFETY: m is live, the observation readable, step and err writable.
    let took =
        unsafe { ts_guard_observe(m, &observed(TS_OBSERVED_REPLY), step.as_mut_ptr(), &mut err) };
    assert!(!took && err.code == TsCode::Invalid && message(&err).contains("DynamoDB"));
    // SAFETY: filled by this library.
    unsafe { ts_error_clear(&mut err) };
    let gone = TsObserved {
        failure: TsDriverFailure {
            has_error_code: true,
            error_code: lent("connection"),
            ..failure()
        },
        ..observed(TS_OBSERVED_FAILED)
    };
    let v = observe(m, &gone).verdict;
    assert_eq!(
        (v.kind, v.code),
        (TsVerdictKind::Driver, TsCode::Unavailable)
    );
    // SAFETY: the machine is not used again.
    unsafe { ts_guard_free(m) };

    let (m, _, _, _) = dynamo(b"fences", b"chats/43", 0);
    let step = observe(m, &cancelled(&[lent("ConditionalCheckFailed")], None));
    assert_eq!(step.kind, TsStepKind::ReadItem);
    let v = observe(m, &observed(TS_OBSERVED_NO_ROW)).verdict;
    assert_eq!((v.kind, v.code), (TsVerdictKind::Refused, TsCode::Internal));
    // SAFETY: the machine is not used again.
    unsafe { ts_guard_free(m) };
}

#[test]
fn a_dynamo_guard_of_bad_input_ends_invalid_before_any_call() {
    for (table, resource, items, about) in [
        (
            &b"tinystore_fences"[..],
            &b"chats/42"[..],
            100,
            "at most 99",
        ),
        (b"tinystore_fences", b"", 1, "resource"),
        (b"", b"chats/42", 1, "table"),
    ] {
        let (m, first, _, made) = dynamo(table, resource, items);
        assert!(made);
        // SAFETY: written by the call that made m.
        let step = unsafe { first.assume_init() };
        assert_eq!(step.kind, TsStepKind::Done);
        let v = step.verdict;
        assert_eq!((v.kind, v.code), (TsVerdictKind::Refused, TsCode::Invalid));
        assert!(
            text_of(&v.message).contains(about),
            "{}",
            text_of(&v.message)
        );
        // SAFETY: the machine is not used again.
        unsafe { ts_guard_free(m) };
    }
    let (_, _, mut err, made) = dynamo(b"t\xff", b"chats/42", 1);
    assert!(!made && err.code == TsCode::Invalid && message(&err).contains("register table"));
    // SAFETY: filled by this library.
    unsafe { ts_error_clear(&mut err) };
    let mut names = MaybeUninit::<TsDynamoNames>::uninit();
    // SAFETY: names is writable.
    unsafe { ts_guard_dynamo_names(names.as_mut_ptr()) };
    // SAFETY: written by the call above.
    let names = unsafe { names.assume_init() };
    // SAFETY: the library's NUL-terminated texts, never freed.
    let condition = unsafe { CStr::from_ptr(names.condition) }.to_str().unwrap();
    assert!(condition.starts_with("attribute_not_exists(fence)"));
    // SAFETY: as above.
    let table = unsafe { CStr::from_ptr(names.register_table) };
    assert_eq!(table.to_str().unwrap(), "tinystore_fences");
    assert_eq!(names.max_items, 100);
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

/// A guarded put of fence 7 to `resource` on `store`, its first step
/// (when made) and the error (when not).
fn versioned(
    store: &[u8],
    resource: &[u8],
) -> (*mut TsGuardMachine, MaybeUninit<TsGuardStep>, TsError, bool) {
    let (mut m, mut first, mut err) = (std::ptr::null_mut(), MaybeUninit::uninit(), error());
    // SAFETY: the texts are live slices; out, first and err are writable.
    let made = unsafe {
        ts_guard_versioned_new(
            store.as_ptr(),
            store.len(),
            resource.as_ptr(),
            resource.len(),
            TsFence { epoch: 0, count: 7 },
            &mut m,
            first.as_mut_ptr(),
            &mut err,
        )
    };
    (m, first, err, made)
}

/// A read that found `version` with the fence metadata `recorded`.
fn found(version: &str, recorded: Option<&str>) -> TsObserved {
    TsObserved {
        version: lent(version),
        has_recorded: recorded.is_some(),
        recorded: recorded.map(lent).unwrap_or_else(none),
        ..observed(TS_OBSERVED_FOUND)
    }
}

#[test]
fn a_versioned_put_reads_then_puts_on_the_version_read_or_on_absence() {
    let (m, first, _, made) = versioned(b"gcs", b"tinystore/chats/42");
    assert!(made);
    // SAFETY: written by the call that made m.
    let step = unsafe { first.assume_init() };
    assert_eq!(step.kind, TsStepKind::ReadObject);
    assert_eq!(text_of(&step.text), "tinystore-fence");
    assert_eq!(step.params_len, 0);
    let fence = Fence::from_u128(7).text();
    let step = observe(m, &observed(TS_OBSERVED_ABSENT));
    assert_eq!(step.kind, TsStepKind::PutVersioned);
    assert_eq!(text_of(&step.text), "tinystore-fence");
    assert_eq!(texts_of(step.params, step.params_len), [fence.as_str()]);
    // Another writer made it between: read again, put on its generation.
    let step = observe(m, &observed(TS_OBSERVED_CONDITION_FAILED));
    assert_eq!(step.kind, TsStepKind::ReadObject);
    let equal = Fence::from_u128(7).text();
    let step = observe(m, &found("1700000000000001", Some(&equal)));
    assert_eq!(step.kind, TsStepKind::PutVersioned);
    assert_eq!(
        texts_of(step.params, step.params_len),
        [fence.as_str(), "1700000000000001"]
    );
    let v = observe(m, &observed(TS_OBSERVED_WRITTEN)).verdict;
    assert_eq!(v.kind, TsVerdictKind::Accepted);
    // SAFETY: the machine is not used again.
    unsafe { ts_guard_free(m) };

    // Azure's key; an object written without the guard is taken over.
    let (m, first, _, _) = versioned(b"azure", b"tinystore/chats/42");
    // SAFETY: written by the call that made m.
    let step = unsafe { first.assume_init() };
    assert_eq!(text_of(&step.text), "tinystore_fence");
    let step = observe(m, &found("\"0x8D\"", None));
    assert_eq!(
        texts_of(step.params, step.params_len),
        [fence.as_str(), "\"0x8D\""]
    );
    assert_eq!(text_of(&step.text), "tinystore_fence");
    // SAFETY: the machine is not used again.
    unsafe { ts_guard_free(m) };
}

#[test]
fn a_versioned_put_over_a_larger_fence_is_stale_and_a_bad_one_corrupt() {
    let (m, _, _, _) = versioned(b"gcs", b"tinystore/chats/42");
    let larger = Fence::from_u128(9).text();
    let v = observe(m, &found("12", Some(&larger))).verdict;
    assert_eq!((v.kind, v.code), (TsVerdictKind::Refused, TsCode::Stale));
    assert!(v.stale && text_of(&v.stale_resource) == "tinystore/chats/42");
    assert_eq!(v.stale_largest, TsFence { epoch: 0, count: 9 });
    // SAFETY: the machine is not used again.
    unsafe { ts_guard_free(m) };

    let (m, _, _, _) = versioned(b"azure", b"tinystore/chats/42");
    let v = observe(m, &found("\"0x1\"", Some("seven"))).verdict;
    assert_eq!((v.kind, v.code), (TsVerdictKind::Refused, TsCode::Corrupt));
    assert!(text_of(&v.message).contains("tinystore_fence"));
    // SAFETY: the machine is not used again.
    unsafe { ts_guard_free(m) };

    // A failed read is the driver's failure, classified; a wrong kind is
    // invalid.
    let (m, _, _, _) = versioned(b"gcs", b"tinystore/chats/42");
    let mut step = MaybeUninit::<TsGuardStep>::uninit();
    let mut err = error();
    // SAFETY: m is live, the observation readable, step and err writable.
    let took =
        unsafe { ts_guard_observe(m, &observed(TS_OBSERVED_REPLY), step.as_mut_ptr(), &mut err) };
    assert!(!took && err.code == TsCode::Invalid && message(&err).contains("versioned"));
    // SAFETY: filled by this library.
    unsafe { ts_error_clear(&mut err) };
    let gone = TsObserved {
        failure: TsDriverFailure {
            has_error_code: true,
            error_code: lent("ECONNREFUSED"),
            message: lent("connection refused"),
            ..failure()
        },
        ..observed(TS_OBSERVED_FAILED)
    };
    let v = observe(m, &gone).verdict;
    assert_eq!(
        (v.kind, v.code),
        (TsVerdictKind::Driver, TsCode::Unavailable)
    );
    assert!(text_of(&v.message).contains("Google Cloud Storage"));
    // SAFETY: the machine is not used again.
    unsafe { ts_guard_free(m) };
}

#[test]
fn a_larger_fence_after_a_lost_put_answer_is_unavailable_and_another_machine_invalid() {
    // Without a lost answer, a failed condition then a larger fence is
    // stale: another writer came in between, nothing was written.
    let larger = Fence::from_u128(9).text();
    // An attempt answered 429 wrote nothing; one with no answer (0) or a
    // 503 may have.
    for (store, attempt, lost) in [
        (&b"gcs"[..], None, false),
        (b"azure", Some(0), true),
        (b"gcs", Some(0), true),
        (b"gcs", Some(429), false),
        (b"azure", Some(503), true),
    ] {
        let (m, _, _, made) = versioned(store, b"tinystore/chats/42");
        assert!(made);
        let step = observe(m, &observed(TS_OBSERVED_ABSENT));
        assert_eq!(step.kind, TsStepKind::PutVersioned);
        if let Some(status) = attempt {
            let mut err = error();
            // SAFETY: m is live; err is writable.
            assert!(unsafe { ts_guard_versioned_attempted(m, status, &mut err) });
        }
        let step = observe(m, &observed(TS_OBSERVED_CONDITION_FAILED));
        assert_eq!(step.kind, TsStepKind::ReadObject);
        let v = observe(m, &found("12", Some(&larger))).verdict;
        let want = if lost {
            TsCode::Unavailable
        } else {
            TsCode::Stale
        };
        assert_eq!((v.kind, v.code), (TsVerdictKind::Refused, want));
        assert_eq!(v.stale, !lost);
        if lost {
            assert!(
                text_of(&v.message).contains("may have been written"),
                "{}",
                text_of(&v.message)
            );
        }
        // SAFETY: the machine is not used again.
        unsafe { ts_guard_free(m) };
    }

    // Its own fence read back after a lost answer: put again, accepted.
    let (m, _, _, _) = versioned(b"gcs", b"tinystore/chats/42");
    observe(m, &observed(TS_OBSERVED_ABSENT));
    let mut err = error();
    // SAFETY: m is live; err is writable.
    assert!(unsafe { ts_guard_versioned_attempted(m, 0, &mut err) });
    observe(m, &observed(TS_OBSERVED_CONDITION_FAILED));
    let own = Fence::from_u128(7).text();
    let step = observe(m, &found("12", Some(&own)));
    assert_eq!(step.kind, TsStepKind::PutVersioned);
    let v = observe(m, &observed(TS_OBSERVED_WRITTEN)).verdict;
    assert_eq!(v.kind, TsVerdictKind::Accepted);
    // SAFETY: the machine is not used again.
    unsafe { ts_guard_free(m) };

    let (sql, _, _) = sql_check(b"chats/42", 7);
    let mut err = error();
    // SAFETY: sql is live; err is writable.
    assert!(!unsafe { ts_guard_versioned_attempted(sql, 0, &mut err) });
    assert_eq!(err.code, TsCode::Invalid);
    assert!(
        message(&err).contains("not a GCS or Azure"),
        "{}",
        message(&err)
    );
    // SAFETY: err was filled by this library; NULL is refused.
    unsafe {
        ts_error_clear(&mut err);
        assert!(!ts_guard_versioned_attempted(std::ptr::null(), 0, &mut err));
        assert_eq!(err.code, TsCode::Invalid);
        ts_error_clear(&mut err);
        ts_guard_free(sql);
    }
}

#[test]
fn a_versioned_put_of_bad_input_ends_invalid_before_any_call() {
    let (m, first, _, made) = versioned(b"gcs", b"");
    assert!(made);
    // SAFETY: written by the call that made m.
    let step = unsafe { first.assume_init() };
    assert_eq!(step.kind, TsStepKind::Done);
    assert_eq!(
        (step.verdict.kind, step.verdict.code),
        (TsVerdictKind::Refused, TsCode::Invalid)
    );
    // SAFETY: the machine is not used again.
    unsafe { ts_guard_free(m) };
    for (store, resource, says) in [
        (&b"s3"[..], &b"b/k"[..], "versioned store"),
        (b"gcs", b"b/k\xff", "guard resource"),
    ] {
        let (_, _, mut err, made) = versioned(store, resource);
        assert!(!made && err.code == TsCode::Invalid, "{says}");
        assert!(message(&err).contains(says), "{}", message(&err));
        // SAFETY: filled by this library.
        unsafe { ts_error_clear(&mut err) };
    }
}

#[test]
fn the_guards_own_metadata_key_is_invalid_in_any_spelling() {
    let check = |store: &str, keys: &[TsText]| {
        let mut err = error();
        let resource = "tinystore/chats/42";
        // SAFETY: the texts and the array are live; err is writable.
        let ok = unsafe {
            ts_guard_versioned_check_metadata(
                store.as_ptr(),
                store.len(),
                resource.as_ptr(),
                resource.len(),
                keys.as_ptr(),
                keys.len(),
                &mut err,
            )
        };
        let said = (!ok).then(|| (err.code, message(&err)));
        if !ok {
            // SAFETY: filled by this library.
            unsafe { ts_error_clear(&mut err) };
        }
        said
    };
    assert_eq!(check("gcs", &[lent("owner")]), None);
    assert_eq!(check("azure", &[]), None);
    for key in ["tinystore-fence", "Tinystore_Fence", "TINYSTORE_DELETED"] {
        let (code, said) = check("azure", &[lent("owner"), lent(key)]).unwrap();
        assert_eq!(code, TsCode::Invalid);
        assert!(said.contains(key), "{said}");
    }
    let bad = [TsText {
        ptr: b"k\xff".as_ptr(),
        len: 2,
    }];
    let (code, said) = check("gcs", &bad).unwrap();
    assert!(
        code == TsCode::Invalid && said.contains("metadata key"),
        "{said}"
    );
}
