//! Errors across the C boundary: a code per tinystore error code and a
//! message the caller owns until it calls `ts_error_clear`.

use std::ffi::{c_char, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use tinystore::{Code, Error};

/// An error code: `Ok`, or one per tinystore error code, whose value is
/// the core's number for it (`Code::number`; a test checks each), whose
/// name `ts_code_name` gives.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TsCode {
    Ok = 0,
    Timeout = 1,
    LeaseLost = 2,
    InUse = 3,
    Closed = 4,
    Invalid = 5,
    Limit = 6,
    Unauthorized = 7,
    Corrupt = 8,
    Io = 9,
    Unavailable = 10,
    Internal = 11,
    Stale = 12,
}

impl TsCode {
    /// The C code of a core code; `None` for a code this crate does not
    /// name yet (its test fails then), which must not pass as another.
    pub fn of(code: Code) -> Option<TsCode> {
        Some(match code {
            Code::Timeout => TsCode::Timeout,
            Code::LeaseLost => TsCode::LeaseLost,
            Code::InUse => TsCode::InUse,
            Code::Closed => TsCode::Closed,
            Code::Invalid => TsCode::Invalid,
            Code::Limit => TsCode::Limit,
            Code::Unauthorized => TsCode::Unauthorized,
            Code::Corrupt => TsCode::Corrupt,
            Code::Io => TsCode::Io,
            Code::Unavailable => TsCode::Unavailable,
            Code::Internal => TsCode::Internal,
            Code::Stale => TsCode::Stale,
            _ => return None,
        })
    }
}

/// An error out-parameter. A failing call sets `code` and `message` (a
/// NUL-terminated UTF-8 string the caller owns); a succeeding call leaves
/// it untouched. The caller frees `message` with `ts_error_clear`.
#[repr(C)]
pub struct TsError {
    pub code: TsCode,
    pub message: *mut c_char,
}

/// Why a call failed, before it is written into a `TsError`.
pub struct Failure {
    code: TsCode,
    message: String,
}

impl Failure {
    /// A failure with this code and message.
    pub fn new(code: TsCode, message: impl Into<String>) -> Failure {
        Failure {
            code,
            message: message.into(),
        }
    }

    /// Its code.
    pub fn code(&self) -> TsCode {
        self.code
    }

    /// Its message.
    pub fn into_message(self) -> String {
        self.message
    }
}

impl From<Error> for Failure {
    fn from(err: Error) -> Failure {
        match TsCode::of(err.code()) {
            Some(code) => Failure::new(code, err.message()),
            None => Failure::new(
                TsCode::Internal,
                format!(
                    "error code {:?} is not known to the C ABI (a bug: add it to TsCode): {}",
                    err.code().as_str(),
                    err.message()
                ),
            ),
        }
    }
}

/// A result of a call's body.
pub type Outcome<T = ()> = Result<T, Failure>;

/// Writes `failure` into `err`, when `err` is not NULL.
///
/// # Safety
/// `err` is NULL or points to a writable `TsError`.
pub unsafe fn fill(err: *mut TsError, failure: Failure) {
    if err.is_null() {
        return;
    }
    let text = failure.message.replace('\0', "\\0");
    let message = CString::new(text).unwrap_or_default().into_raw();
    // SAFETY: the caller promises `err` is writable.
    unsafe {
        err.write(TsError {
            code: failure.code,
            message,
        })
    };
}

/// Runs an export's body: `true` when it succeeds; otherwise `false`, with
/// the failure (or a caught panic, as `internal`) written into `err`.
///
/// # Safety
/// `err` is NULL or points to a writable `TsError`.
pub unsafe fn call(err: *mut TsError, body: impl FnOnce() -> Outcome) -> bool {
    let failure = match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => return true,
        Ok(Err(failure)) => failure,
        Err(panic) => Failure::new(TsCode::Internal, panic_message(panic.as_ref())),
    };
    // SAFETY: forwarded from the caller.
    unsafe { fill(err, failure) };
    false
}

/// Runs an export's body that cannot fail; a panic is swallowed and
/// `fallback` returned.
pub fn quiet<T>(fallback: T, body: impl FnOnce() -> T) -> T {
    catch_unwind(AssertUnwindSafe(body)).unwrap_or(fallback)
}

fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    let what = panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "no message".to_string());
    format!("tinystore panicked (a bug): {what}")
}

/// Frees the message of `err` and sets it to NULL; the code becomes
/// `TS_CODE_OK`. Safe to call on a cleared or never-filled error.
///
/// # Safety
/// `err` is NULL or points to a `TsError` that is zeroed or was filled by
/// this library.
#[no_mangle]
pub unsafe extern "C" fn ts_error_clear(err: *mut TsError) {
    quiet((), || {
        if err.is_null() {
            return;
        }
        // SAFETY: the caller promises `err` is valid.
        let err = unsafe { &mut *err };
        if !err.message.is_null() {
            // SAFETY: the message was made by `CString::into_raw` in `fill`.
            drop(unsafe { CString::from_raw(err.message) });
        }
        err.message = std::ptr::null_mut();
        err.code = TsCode::Ok;
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use tinystore::binding::CodeNames;

    /// Every code of the core's table has a C code whose value is the
    /// core's number for it: a code added to the core fails here until it
    /// is named in `TsCode` too.
    #[test]
    fn every_core_code_has_its_c_code_with_the_cores_number() {
        for code in Code::ALL {
            let c = TsCode::of(code).unwrap_or_else(|| panic!("{code} has no TsCode"));
            assert_eq!(c as u32, code.number(), "{code}");
            assert_eq!(format!("{c:?}"), code.python_class(), "{code}");
        }
    }
}
