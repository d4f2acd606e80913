//! The SQL guard's statements and decisions (the core's `guard`), for the
//! Go package `tinystore.dev/go/guard`, which runs the statements on the
//! caller's own `*sql.Tx` and asks here what their outcome means.

use crate::error::{call, quiet, Failure, Outcome, TsCode, TsError};
use crate::fence::TsFence;
use crate::text::{bytes, put, utf8};
use std::ffi::{c_char, CString};
use std::sync::OnceLock;
use tinystore::guard::{self, http, object, sql::Statements, Dialect, Placeholders};
use tinystore::Fence;

/// The guard's three statements for one dialect and placeholder style, as
/// NUL-terminated UTF-8 the caller frees with `ts_guard_statements_clear`.
#[repr(C)]
pub struct TsGuardStatements {
    /// Makes the register table `tinystore_fences` if it is missing.
    pub migration: *mut c_char,
    /// Checks and records: parameters (resource, fence as 40 digits); one
    /// row changed is accepted, none means: read, then `ts_guard_refused`.
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

/// Checks a guard's resource (1 to 1024 bytes of UTF-8, no NUL); an
/// `invalid` error names what is wrong.
///
/// # Safety
/// `resource` points to `resource_len` readable bytes; `err` is writable.
#[no_mangle]
pub unsafe extern "C" fn ts_guard_check_resource(
    resource: *const u8,
    resource_len: usize,
    err: *mut TsError,
) -> bool {
    // SAFETY: forwarded from the caller.
    unsafe {
        call(err, || {
            guard::check_resource(utf8(resource, resource_len, "guard resource")?)?;
            Ok(())
        })
    }
}

/// Decides a write of `fence` to `resource` whose check changed no row,
/// from the fence recorded for it as read back (`has_recorded` false: no
/// row). True: accepted (an equal fence). Otherwise `err` says why:
/// `TS_CODE_STALE` (and `*largest` is the larger recorded fence),
/// `TS_CODE_CORRUPT` naming the resource, or `TS_CODE_INTERNAL`.
///
/// # Safety
/// The texts point to their lengths' readable bytes; `largest` and `err`
/// are writable.
#[no_mangle]
pub unsafe extern "C" fn ts_guard_refused(
    resource: *const u8,
    resource_len: usize,
    fence: TsFence,
    has_recorded: bool,
    recorded: *const u8,
    recorded_len: usize,
    largest: *mut TsFence,
    err: *mut TsError,
) -> bool {
    // SAFETY: forwarded from the caller.
    unsafe {
        call(err, || {
            let resource = utf8(resource, resource_len, "guard resource")?;
            let text = String::from_utf8_lossy(bytes(recorded, recorded_len));
            let recorded = has_recorded.then_some(text.as_ref());
            let Err(refusal) = guard::refused(resource, Fence::from(fence), recorded) else {
                return Ok(());
            };
            Err(with_largest(refusal, largest))
        })
    }
}

/// A guard's refusal as a failure; a stale one writes its largest fence
/// to `largest` first (a failure to write it is the failure instead).
///
/// # Safety
/// `largest` is NULL or writable.
unsafe fn with_largest(refusal: tinystore::Error, largest: *mut TsFence) -> Failure {
    if let Some(stale) = refusal.stale_detail() {
        // SAFETY: promised by the caller.
        let written = unsafe { put(largest, Fence::from_u128(stale.largest).into(), "largest") };
        if let Err(failure) = written {
            return failure;
        }
    }
    refusal.into()
}

/// Fills `err` with the `invalid` error of a guard on `resource` whose
/// register table does not exist, saying how to make it.
///
/// # Safety
/// `resource` points to `resource_len` readable bytes; `err` is writable.
#[no_mangle]
pub unsafe extern "C" fn ts_guard_missing_table(
    resource: *const u8,
    resource_len: usize,
    err: *mut TsError,
) {
    // SAFETY: forwarded from the caller.
    unsafe { fill_with(resource, resource_len, err, guard::missing_table) }
}

/// Fills `err` with the `invalid` error of a guard on `resource` called
/// outside a transaction.
///
/// # Safety
/// `resource` points to `resource_len` readable bytes; `err` is writable.
#[no_mangle]
pub unsafe extern "C" fn ts_guard_not_in_transaction(
    resource: *const u8,
    resource_len: usize,
    err: *mut TsError,
) {
    // SAFETY: forwarded from the caller.
    unsafe { fill_with(resource, resource_len, err, guard::not_in_transaction) }
}

/// Fills `err` with the core's error `make` gives for the resource.
///
/// # Safety
/// As for the exports that call it.
unsafe fn fill_with(
    resource: *const u8,
    resource_len: usize,
    err: *mut TsError,
    make: fn(&str) -> tinystore::Error,
) {
    // SAFETY: forwarded from the caller.
    unsafe {
        call(err, || {
            Err(make(&String::from_utf8_lossy(bytes(resource, resource_len))).into())
        })
    };
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
    /// How many times a guarded put reads and tries in all.
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

/// Decides a guarded put of `fence` to object `resource` (`bucket/key`)
/// over what a HEAD read (`has_stored` false: no object; else its `etag`
/// and, when `has_fence`, its `tinystore-fence` metadata `stored_fence`),
/// for a body whose hex MD5 is `body_md5`. True: write, with `If-Match` on
/// the ETag read when `*replace`, else with `If-None-Match: *`. Otherwise
/// `err` says why: `TS_CODE_STALE` (and `*largest` is the stored fence),
/// `TS_CODE_CORRUPT` naming the object's metadata, `TS_CODE_INVALID` (a
/// body that keeps the ETag, or a bad resource).
///
/// # Safety
/// The texts point to their lengths' readable bytes; `replace`, `largest`
/// and `err` are writable.
#[no_mangle]
pub unsafe extern "C" fn ts_guard_decide_put(
    resource: *const u8,
    resource_len: usize,
    fence: TsFence,
    has_stored: bool,
    etag: *const u8,
    etag_len: usize,
    has_fence: bool,
    stored_fence: *const u8,
    stored_fence_len: usize,
    body_md5: *const u8,
    body_md5_len: usize,
    replace: *mut bool,
    largest: *mut TsFence,
    err: *mut TsError,
) -> bool {
    // SAFETY: forwarded from the caller.
    unsafe {
        call(err, || {
            let resource = utf8(resource, resource_len, "guard resource")?;
            let etag = String::from_utf8_lossy(bytes(etag, etag_len));
            let text = String::from_utf8_lossy(bytes(stored_fence, stored_fence_len));
            let md5 = String::from_utf8_lossy(bytes(body_md5, body_md5_len));
            let stored = has_stored.then(|| object::Stored {
                etag: etag.as_ref(),
                fence: has_fence.then_some(text.as_ref()),
            });
            match object::decide_put(resource, Fence::from(fence), stored, &md5) {
                Ok(condition) => put(
                    replace,
                    matches!(condition, object::Condition::Replace(_)),
                    "replace",
                ),
                Err(refusal) => Err(with_largest(refusal, largest)),
            }
        })
    }
}

/// Fills `err` with the `limit` error of a guarded put of object
/// `resource` that met another writer on every one of its tries.
///
/// # Safety
/// `resource` points to `resource_len` readable bytes; `err` is writable.
#[no_mangle]
pub unsafe extern "C" fn ts_guard_too_many_races(
    resource: *const u8,
    resource_len: usize,
    err: *mut TsError,
) {
    // SAFETY: forwarded from the caller.
    unsafe { fill_with(resource, resource_len, err, object::too_many_races) }
}

/// Checks one key of the caller's own metadata for a guarded put of
/// object `resource`: true when the guard may write it beside its own;
/// false with `TS_CODE_INVALID` for one of the guard's own keys.
///
/// # Safety
/// The texts point to their lengths' readable bytes; `err` is writable.
#[no_mangle]
pub unsafe extern "C" fn ts_guard_check_metadata_key(
    resource: *const u8,
    resource_len: usize,
    key: *const u8,
    key_len: usize,
    err: *mut TsError,
) -> bool {
    // SAFETY: forwarded from the caller.
    unsafe {
        call(err, || {
            let resource = String::from_utf8_lossy(bytes(resource, resource_len));
            let key = utf8(key, key_len, "metadata key")?;
            Ok(object::check_metadata(&resource, [key])?)
        })
    }
}

/// Fills `err` with the `unauthorized` error of a guarded put whose HEAD
/// of object `resource` was refused with HTTP `status` (403).
///
/// # Safety
/// `resource` points to `resource_len` readable bytes; `err` is writable.
#[no_mangle]
pub unsafe extern "C" fn ts_guard_head_refused(
    resource: *const u8,
    resource_len: usize,
    status: u16,
    err: *mut TsError,
) {
    // SAFETY: forwarded from the caller.
    unsafe {
        call(err, || {
            let resource = String::from_utf8_lossy(bytes(resource, resource_len));
            Err(object::head_refused(&resource, status).into())
        })
    };
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
            ts_guard_statements("mysql".as_ptr(), 5, "?".as_ptr(), 1, &mut out, &mut err)
        });
        assert_eq!(err.code, TsCode::Invalid);
        assert!(message(&err).contains("mysql"), "{}", message(&err));
        // SAFETY: filled by this library.
        unsafe { ts_error_clear(&mut err) };
    }

    #[test]
    fn a_larger_recorded_fence_is_stale_with_the_largest() {
        let (mut largest, mut err) = (TsFence::default(), error());
        let recorded = Fence::new(1, 0).text();
        let fence = TsFence {
            epoch: 0,
            count: u64::MAX,
        };
        // SAFETY: the texts are live slices; largest and err are writable.
        let ok = unsafe {
            ts_guard_refused(
                "chats/42".as_ptr(),
                8,
                fence,
                true,
                recorded.as_ptr(),
                recorded.len(),
                &mut largest,
                &mut err,
            )
        };
        assert!(!ok);
        assert_eq!(err.code, TsCode::Stale);
        assert_eq!(largest, TsFence { epoch: 1, count: 0 });
        assert!(message(&err).contains("chats/42"), "{}", message(&err));
        // SAFETY: filled by this library.
        unsafe { ts_error_clear(&mut err) };
    }

    #[test]
    fn decide_put_is_the_cores_and_a_header_is_parsed_by_it() {
        let (mut replace, mut largest, mut err) = (false, TsFence::default(), error());
        let (etag, stored) = ("\"e1\"", Fence::from_u128(9).text());
        let md5 = "0cc175b9c0f1b6a831c399e269772661";
        let mut decide = |count: u64| {
            // SAFETY: the texts are live slices; the out-parameters are writable.
            unsafe {
                ts_guard_decide_put(
                    "b/k".as_ptr(),
                    3,
                    TsFence { epoch: 0, count },
                    true,
                    etag.as_ptr(),
                    etag.len(),
                    true,
                    stored.as_ptr(),
                    stored.len(),
                    md5.as_ptr(),
                    md5.len(),
                    &mut replace,
                    &mut largest,
                    &mut err,
                )
            }
        };
        assert!(!decide(7));
        assert!(decide(9));
        assert!(replace);
        assert_eq!(
            (err.code, largest),
            (TsCode::Stale, TsFence { epoch: 0, count: 9 })
        );
        // SAFETY: filled by this library.
        unsafe { ts_error_clear(&mut err) };
        let (mut present, mut fence) = (true, TsFence::default());
        // SAFETY: as above.
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
        // SAFETY: as above.
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
}
