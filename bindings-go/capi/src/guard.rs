//! The guards' fixed texts from the core: the SQL register's migration
//! (and statements), the object-storage and HTTP guards' names, and the
//! `Tinystore-Fence` header's parser. The guards' protocols themselves are
//! the core's machines ([`crate::guard_machine`]).

use crate::error::{call, quiet, Failure, Outcome, TsCode, TsError};
use crate::fence::TsFence;
use crate::text::{bytes, put, utf8};
use std::ffi::{c_char, CString};
use std::sync::OnceLock;
use tinystore::guard::{http, object, sql::Statements, Dialect, Placeholders};
use tinystore::Fence;

/// The guard's three statements for one dialect and placeholder style, as
/// NUL-terminated UTF-8 the caller frees with `ts_guard_statements_clear`.
#[repr(C)]
pub struct TsGuardStatements {
    /// Makes the register table `tinystore_fences` if it is missing.
    pub migration: *mut c_char,
    /// Checks and records: parameters (resource, fence as 40 digits). The
    /// check itself is `ts_guard_sql_check_new`'s machine.
    pub check: *mut c_char,
    /// Reads the recorded fence: parameter (resource); one row or none.
    pub read: *mut c_char,
}

fn owned(text: String) -> Outcome<*mut c_char> {
    CString::new(text).map(CString::into_raw).map_err(|e| {
        Failure::new(
            TsCode::Internal,
            format!("a guard statement holds a NUL: {e}"),
        )
    })
}

/// Writes the statements for `dialect` (`"sqlite"`, `"postgres"`) with
/// `placeholders` (`"?"`, `"$1"`, `"%s"`) to `*out`. An unknown name is
/// `TS_CODE_INVALID`, saying which are known; `*out` is then left empty.
///
/// # Safety
/// The texts point to their lengths' readable bytes; `out` and `err` are
/// writable.
#[no_mangle]
pub unsafe extern "C" fn ts_guard_statements(
    dialect: *const u8,
    dialect_len: usize,
    placeholders: *const u8,
    placeholders_len: usize,
    out: *mut TsGuardStatements,
    err: *mut TsError,
) -> bool {
    // SAFETY: forwarded from the caller.
    unsafe {
        call(err, || {
            let dialect = Dialect::parse(utf8(dialect, dialect_len, "guard dialect")?)?;
            let style = utf8(placeholders, placeholders_len, "placeholder style")?;
            let s = Statements::new(dialect, Placeholders::parse(style)?);
            let statements = TsGuardStatements {
                migration: owned(s.migration)?,
                check: owned(s.check)?,
                read: owned(s.read)?,
            };
            put(out, statements, "statements")
        })
    }
}

/// Frees the texts of statements written by `ts_guard_statements` and sets
/// them to NULL. NULL, or statements already cleared, are ignored.
///
/// # Safety
/// `statements` is NULL, zeroed, or written by `ts_guard_statements`.
#[no_mangle]
pub unsafe extern "C" fn ts_guard_statements_clear(statements: *mut TsGuardStatements) {
    quiet((), || {
        // SAFETY: promised by the caller.
        let Some(s) = (unsafe { statements.as_mut() }) else {
            return;
        };
        for text in [&mut s.migration, &mut s.check, &mut s.read] {
            if !text.is_null() {
                // SAFETY: made by `CString::into_raw` in `owned`.
                drop(unsafe { CString::from_raw(*text) });
            }
            *text = std::ptr::null_mut();
        }
    })
}

/// The names the object-storage and HTTP guards use, from the core, as
/// NUL-terminated UTF-8 that lives as long as the library (never freed).
#[repr(C)]
pub struct TsGuardNames {
    /// The metadata key of an object's fence (`tinystore-fence`).
    pub metadata_key: *const c_char,
    /// The metadata key of a guarded delete's tombstone (`tinystore-deleted`).
    pub tombstone_key: *const c_char,
    /// The request header that carries a fence (`Tinystore-Fence`).
    pub fence_header: *const c_char,
    /// The response header of a 409 with the largest fence.
    pub largest_header: *const c_char,
    /// How many times a guarded read lists and gets in all.
    pub max_tries: u32,
    /// The status of a refused (`stale`) request.
    pub conflict: u16,
    /// The status of a request whose fence header is malformed.
    pub bad_request: u16,
}

/// Writes the object-storage and HTTP guards' names to `*out`.
///
/// # Safety
/// `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn ts_guard_names(out: *mut TsGuardNames) {
    static NAMES: OnceLock<[CString; 4]> = OnceLock::new();
    quiet((), || {
        let names = NAMES.get_or_init(|| {
            [
                object::METADATA_KEY,
                object::TOMBSTONE_KEY,
                http::FENCE_HEADER,
                http::LARGEST_HEADER,
            ]
            .map(|name| CString::new(name).unwrap_or_default())
        });
        let value = TsGuardNames {
            metadata_key: names[0].as_ptr(),
            tombstone_key: names[1].as_ptr(),
            fence_header: names[2].as_ptr(),
            largest_header: names[3].as_ptr(),
            max_tries: object::MAX_TRIES,
            conflict: http::CONFLICT,
            bad_request: http::BAD_REQUEST,
        };
        // SAFETY: promised by the caller.
        let _ = unsafe { put(out, value, "names") };
    })
}

/// Reads a request's `Tinystore-Fence` header (`has_value` false: no
/// header; a header sent twice is given joined by commas). True: `*present`
/// says whether there was a fence, and `*out` is it. Otherwise
/// `TS_CODE_INVALID` naming the header and what is wrong.
///
/// # Safety
/// `value` points to `value_len` readable bytes; `present`, `out` and
/// `err` are writable.
#[no_mangle]
pub unsafe extern "C" fn ts_fence_header_parse(
    has_value: bool,
    value: *const u8,
    value_len: usize,
    present: *mut bool,
    out: *mut TsFence,
    err: *mut TsError,
) -> bool {
    // SAFETY: forwarded from the caller.
    unsafe {
        call(err, || {
            let text = String::from_utf8_lossy(bytes(value, value_len));
            let fence = http::parse_fence_header(has_value.then_some(text.as_ref()))?;
            put(present, fence.is_some(), "present")?;
            put(out, fence.unwrap_or(Fence::from_u128(0)).into(), "fence")
        })
    }
}

/// Reads the answer to a request that carried `fence`, as a guard's check
/// on `resource` seen from the client (the core's `read_answer`): its
/// status and its `Tinystore-Fence-Largest` header (`has_largest` false:
/// none; a header sent twice is given joined by commas). True: accepted.
/// Otherwise `*err` is `TS_CODE_STALE` (a guard in the service refused
/// the write: `*stale` is true and `*stale_largest` the largest recorded
/// fence) or `TS_CODE_IO` saying what the answer was.
///
/// # Safety
/// `largest` points to `largest_len` readable bytes, `resource` to
/// `resource_len` (UTF-8; a byte that is not is read as U+FFFD);
/// `stale`, `stale_largest` and `err` are writable.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn ts_http_read_answer(
    status: u16,
    has_largest: bool,
    largest: *const u8,
    largest_len: usize,
    resource: *const u8,
    resource_len: usize,
    fence: TsFence,
    stale: *mut bool,
    stale_largest: *mut TsFence,
    err: *mut TsError,
) -> bool {
    // SAFETY: forwarded from the caller.
    unsafe {
        call(err, || {
            put(stale, false, "stale")?;
            let text = String::from_utf8_lossy(bytes(largest, largest_len));
            let resource = String::from_utf8_lossy(bytes(resource, resource_len));
            let read = http::read_answer(
                status,
                has_largest.then_some(text.as_ref()),
                &resource,
                fence.into(),
            );
            if let Some(detail) = read.as_ref().err().and_then(|e| e.stale_detail()) {
                put(stale, true, "stale")?;
                put(
                    stale_largest,
                    Fence::from_u128(detail.largest).into(),
                    "stale_largest",
                )?;
            }
            Ok(read?)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ts_error_clear;
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

    #[test]
    fn statements_are_the_cores_and_unknown_names_are_invalid() {
        let (mut out, mut err) = (
            TsGuardStatements {
                migration: std::ptr::null_mut(),
                check: std::ptr::null_mut(),
                read: std::ptr::null_mut(),
            },
            error(),
        );
        // SAFETY: the texts are live slices; out and err are writable.
        assert!(unsafe {
            ts_guard_statements("postgres".as_ptr(), 8, "$1".as_ptr(), 2, &mut out, &mut err)
        });
        // SAFETY: written just above.
        let check = unsafe { CStr::from_ptr(out.check) }
            .to_str()
            .unwrap()
            .to_string();
        assert_eq!(check, Statements::of(Dialect::Postgres).check);
        // SAFETY: written by ts_guard_statements.
        unsafe { ts_guard_statements_clear(&mut out) };
        assert!(out.check.is_null());
        // SAFETY: as above.
        assert!(!unsafe {
            ts_guard_statements("oracle".as_ptr(), 6, "?".as_ptr(), 1, &mut out, &mut err)
        });
        assert_eq!(err.code, TsCode::Invalid);
        assert!(message(&err).contains("oracle"), "{}", message(&err));
        // SAFETY: filled by this library.
        unsafe { ts_error_clear(&mut err) };
    }

    #[test]
    fn a_header_is_parsed_by_the_core() {
        let mut err = error();
        let (mut present, mut fence) = (true, TsFence::default());
        // SAFETY: no text is read (length 0); the out-parameters are writable.
        assert!(unsafe {
            ts_fence_header_parse(
                false,
                std::ptr::null(),
                0,
                &mut present,
                &mut fence,
                &mut err,
            )
        });
        assert!(!present);
        // SAFETY: the text is a live slice; the out-parameters are writable.
        assert!(!unsafe {
            ts_fence_header_parse(true, "+4".as_ptr(), 2, &mut present, &mut fence, &mut err)
        });
        assert_eq!(err.code, TsCode::Invalid);
        assert!(
            message(&err).contains("Tinystore-Fence"),
            "{}",
            message(&err)
        );
        // SAFETY: filled by this library.
        unsafe { ts_error_clear(&mut err) };
    }

    fn read_answer(status: u16, largest: Option<&str>) -> (bool, bool, TsFence, TsError) {
        let (mut stale, mut largest_out, mut err) = (true, TsFence::default(), error());
        let resource = "host/chats/1";
        let text = largest.unwrap_or("");
        // SAFETY: the texts are live slices; the outs are writable.
        let accepted = unsafe {
            ts_http_read_answer(
                status,
                largest.is_some(),
                text.as_ptr(),
                text.len(),
                resource.as_ptr(),
                resource.len(),
                Fence::from_u128(5).into(),
                &mut stale,
                &mut largest_out,
                &mut err,
            )
        };
        (accepted, stale, largest_out, err)
    }

    #[test]
    fn an_http_answer_is_the_cores_reading() {
        let (accepted, stale, _, _) = read_answer(200, None);
        assert!(accepted && !stale);
        let (accepted, stale, largest, mut err) = read_answer(409, Some("9"));
        assert!(!accepted && stale);
        assert_eq!(
            (err.code, largest),
            (TsCode::Stale, TsFence { epoch: 0, count: 9 })
        );
        // SAFETY: filled by this library.
        unsafe { ts_error_clear(&mut err) };
        for (status, largest, says) in [
            (409, None, "without the header Tinystore-Fence-Largest"),
            (409, Some("nine"), "that is not a fence"),
            (503, Some("9"), "answered 503"),
        ] {
            let (accepted, stale, _, mut err) = read_answer(status, largest);
            assert!(!accepted && !stale, "{status} {largest:?}");
            assert_eq!(err.code, TsCode::Io);
            assert!(message(&err).contains(says), "{}", message(&err));
            // SAFETY: filled by this library.
            unsafe { ts_error_clear(&mut err) };
        }
    }
}
