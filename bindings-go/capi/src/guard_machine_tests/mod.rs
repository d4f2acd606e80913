//! The C ABI of the guard's machines, called as Go calls it: the helpers
//! every machine's tests share, and a module per machine.

mod classify;
mod dynamo;
mod object;
mod redis;
mod sql;
mod versioned;

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
