//! What a guard's machine tells the Go side to do next (`TsGuardStep`)
//! and how it ended (`TsVerdict`), as C structs whose texts this library
//! owns until `ts_guard_step_clear`.

use crate::error::{fill, quiet, Failure, TsError};
use crate::fence::TsFence;
use tinystore::guard::{ObjectStep, SqlStep, Verdict};
use tinystore::Fence;

/// Text this library made: `len` bytes of UTF-8 at `ptr` (not
/// NUL-terminated; NULL when empty), freed by `ts_guard_step_clear`.
#[repr(C)]
pub struct TsOwnedText {
    pub ptr: *mut u8,
    pub len: usize,
}

/// A metadata entry this library made.
#[repr(C)]
pub struct TsOwnedPair {
    pub key: TsOwnedText,
    pub value: TsOwnedText,
}

/// What a step asks for.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TsStepKind {
    /// The machine ended: see `verdict`.
    Done = 0,
    /// SQL: run `text` with `params` and observe the rows it changed.
    Execute = 1,
    /// SQL: run `text` with `params` and observe its first row's first
    /// column as text, or no row.
    Query = 2,
    /// Objects: list every key under the prefix `text` (all pages).
    List = 3,
    /// Objects: put the body (empty for a tombstone) at the key `text`
    /// with `metadata`, unconditionally.
    Put = 4,
    /// Objects: delete the key `text`.
    Delete = 5,
    /// Objects: get the key `text` (its body, kept by the caller, and its
    /// metadata).
    Get = 6,
}

/// How a machine ended.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TsVerdictKind {
    /// Not ended (the step is not `TS_STEP_KIND_DONE`).
    Pending = 0,
    /// The write is accepted (or the read found what it reports).
    Accepted = 1,
    /// The guard's own error, in `error` (`stale` with `stale_*` set): the
    /// tinystore error, with the driver's last error as its cause, if any.
    Refused = 2,
    /// The driver's own failure, classified: `error` has its code (`io`,
    /// `unavailable`, `unauthorized`) and message; the driver's error is
    /// its cause.
    Driver = 3,
}

/// The end of a machine.
#[repr(C)]
pub struct TsVerdict {
    pub kind: TsVerdictKind,
    /// The error of `Refused` and `Driver` (code `TS_CODE_OK` otherwise).
    pub error: TsError,
    /// Whether `error` is `stale`: then the three below are its resource,
    /// the refused write's fence and the largest recorded fence.
    pub stale: bool,
    pub stale_resource: TsOwnedText,
    pub stale_fence: TsFence,
    pub stale_largest: TsFence,
}

/// One step: what to do next, or the end.
#[repr(C)]
pub struct TsGuardStep {
    pub kind: TsStepKind,
    /// The statement (`Execute`, `Query`), the prefix (`List`) or the key
    /// (`Put`, `Delete`, `Get`); empty for `Done`.
    pub text: TsOwnedText,
    /// The statement's parameters, in order (`Execute`, `Query`).
    pub params: *mut TsOwnedText,
    pub params_len: usize,
    /// The metadata of a `Put`.
    pub metadata: *mut TsOwnedPair,
    pub metadata_len: usize,
    /// How it ended, for `Done`.
    pub verdict: TsVerdict,
}

fn owned(text: &str) -> TsOwnedText {
    if text.is_empty() {
        return TsOwnedText {
            ptr: std::ptr::null_mut(),
            len: 0,
        };
    }
    let boxed: Box<[u8]> = text.as_bytes().into();
    let len = boxed.len();
    TsOwnedText {
        ptr: Box::into_raw(boxed).cast::<u8>(),
        len,
    }
}

/// Moves `items` to a C array: (NULL, 0) when empty.
fn array<T>(items: Vec<T>) -> (*mut T, usize) {
    if items.is_empty() {
        return (std::ptr::null_mut(), 0);
    }
    let boxed = items.into_boxed_slice();
    let len = boxed.len();
    (Box::into_raw(boxed).cast::<T>(), len)
}

fn empty(kind: TsStepKind) -> TsGuardStep {
    TsGuardStep {
        kind,
        text: owned(""),
        params: std::ptr::null_mut(),
        params_len: 0,
        metadata: std::ptr::null_mut(),
        metadata_len: 0,
        verdict: TsVerdict {
            kind: TsVerdictKind::Pending,
            error: TsError {
                code: crate::error::TsCode::Ok,
                message: std::ptr::null_mut(),
            },
            stale: false,
            stale_resource: owned(""),
            stale_fence: TsFence::default(),
            stale_largest: TsFence::default(),
        },
    }
}

fn with_text(kind: TsStepKind, text: &str) -> TsGuardStep {
    TsGuardStep {
        text: owned(text),
        ..empty(kind)
    }
}

fn with_params(kind: TsStepKind, sql: &str, params: &[String]) -> TsGuardStep {
    let (params, params_len) = array(params.iter().map(|p| owned(p)).collect());
    TsGuardStep {
        params,
        params_len,
        ..with_text(kind, sql)
    }
}

/// The C step of a SQL check's step.
pub fn of_sql(step: SqlStep) -> TsGuardStep {
    match step {
        SqlStep::Execute { sql, params } => with_params(TsStepKind::Execute, sql, &params),
        SqlStep::Query { sql, params } => with_params(TsStepKind::Query, sql, &params),
        SqlStep::Done(verdict) => done(verdict),
    }
}

/// The C step of an object machine's step.
pub fn of_object(step: ObjectStep) -> TsGuardStep {
    match step {
        ObjectStep::List { prefix } => with_text(TsStepKind::List, &prefix),
        ObjectStep::Put { key, metadata } => {
            let pairs = metadata
                .iter()
                .map(|(k, v)| TsOwnedPair {
                    key: owned(k),
                    value: owned(v),
                })
                .collect();
            let (metadata, metadata_len) = array(pairs);
            TsGuardStep {
                metadata,
                metadata_len,
                ..with_text(TsStepKind::Put, &key)
            }
        }
        ObjectStep::Delete { key } => with_text(TsStepKind::Delete, &key),
        ObjectStep::Get { key } => with_text(TsStepKind::Get, &key),
        ObjectStep::Done(verdict) => done(verdict),
    }
}

/// The `Done` step of `verdict`.
pub fn done(verdict: Verdict) -> TsGuardStep {
    let mut step = empty(TsStepKind::Done);
    let (kind, err) = match verdict {
        Verdict::Accepted => {
            step.verdict.kind = TsVerdictKind::Accepted;
            return step;
        }
        Verdict::Refused(err) => (TsVerdictKind::Refused, err),
        Verdict::Driver(err) => (TsVerdictKind::Driver, err),
    };
    step.verdict.kind = kind;
    if let Some(stale) = err.stale_detail() {
        step.verdict.stale = true;
        step.verdict.stale_resource = owned(&stale.resource);
        step.verdict.stale_fence = Fence::from_u128(stale.fence).into();
        step.verdict.stale_largest = Fence::from_u128(stale.largest).into();
    }
    // SAFETY: `step.verdict.error` is a live, writable TsError.
    unsafe { fill(&mut step.verdict.error, Failure::from(err)) };
    step
}

/// Frees a text made by `owned`.
///
/// # Safety
/// `text` is zeroed or was made by `owned` and not freed since.
unsafe fn free_text(text: &mut TsOwnedText) {
    if !text.ptr.is_null() && text.len > 0 {
        let slice = std::ptr::slice_from_raw_parts_mut(text.ptr, text.len);
        // SAFETY: made by `Box::into_raw` of a `Box<[u8]>` of this length.
        drop(unsafe { Box::from_raw(slice) });
    }
    text.ptr = std::ptr::null_mut();
    text.len = 0;
}

/// Frees an array made by `array`, after `each` on every item.
///
/// # Safety
/// (`ptr`, `len`) is (NULL, 0) or was made by `array` and not freed since.
unsafe fn free_array<T>(ptr: &mut *mut T, len: &mut usize, mut each: impl FnMut(&mut T)) {
    if !ptr.is_null() && *len > 0 {
        let slice = std::ptr::slice_from_raw_parts_mut(*ptr, *len);
        // SAFETY: made by `Box::into_raw` of a `Box<[T]>` of this length.
        let mut items = unsafe { Box::from_raw(slice) };
        items.iter_mut().for_each(&mut each);
    }
    *ptr = std::ptr::null_mut();
    *len = 0;
}

/// Frees what a step written by this library owns (its texts, arrays and
/// error message) and leaves it empty. NULL, a zeroed step, or a step
/// cleared already, are ignored.
///
/// # Safety
/// `step` is NULL, zeroed, or was written by `ts_guard_start` or
/// `ts_guard_observe`.
#[no_mangle]
pub unsafe extern "C" fn ts_guard_step_clear(step: *mut TsGuardStep) {
    quiet((), || {
        // SAFETY: promised by the caller.
        let Some(s) = (unsafe { step.as_mut() }) else {
            return;
        };
        // SAFETY: every text and array below was made by this file, or is
        // zeroed (promised by the caller).
        unsafe {
            free_text(&mut s.text);
            free_array(&mut s.params, &mut s.params_len, |p| free_text(p));
            free_array(&mut s.metadata, &mut s.metadata_len, |p| {
                free_text(&mut p.key);
                free_text(&mut p.value);
            });
            free_text(&mut s.verdict.stale_resource);
            crate::error::ts_error_clear(&mut s.verdict.error);
        }
        s.verdict.kind = TsVerdictKind::Pending;
        s.verdict.stale = false;
        s.kind = TsStepKind::Done;
    })
}
