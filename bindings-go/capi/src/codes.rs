//! The core's table of error codes, and the errors of conditions the Go
//! side meets on its own handles (a store or group closed, a lease
//! released), worded by the core so that every language says them alike.

use crate::error::{fill, quiet, TsError};
use crate::text::bytes;
use tinystore::binding::CodeNames;
use tinystore::{Code, Error};

/// The number of the `index`-th code of the core's table (`TsError.code`
/// values, in the order the docs list them); 0 past its end.
#[no_mangle]
pub extern "C" fn ts_code_at(index: usize) -> u32 {
    quiet(0, || Code::ALL.get(index).map_or(0, |code| code.number()))
}

/// The wire name of the code numbered `code` (e.g. `lease_lost`), as
/// `*len` bytes of static UTF-8, not NUL-terminated; NULL (and `*len` 0)
/// for a number that is no code.
///
/// # Safety
/// `len` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn ts_code_name(code: u32, len: *mut usize) -> *const u8 {
    // SAFETY: forwarded from the caller.
    unsafe { name_of(code, len, Code::as_str) }
}

/// One column of the table for the code numbered `code`, as the name
/// functions give it.
///
/// # Safety
/// `len` is NULL or writable.
unsafe fn name_of(code: u32, len: *mut usize, column: fn(Code) -> &'static str) -> *const u8 {
    let name = quiet(None, || Code::from_number(code).map(column));
    if !len.is_null() {
        // SAFETY: promised by the caller.
        unsafe { len.write(name.map_or(0, str::len)) };
    }
    name.map_or(std::ptr::null(), str::as_ptr)
}

/// The Go name of the code numbered `code` (e.g. `LeaseLost`, for
/// `CodeLeaseLost` and `ErrLeaseLost`), as [`ts_code_name`] gives names.
///
/// # Safety
/// `len` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn ts_code_go_name(code: u32, len: *mut usize) -> *const u8 {
    // SAFETY: forwarded from the caller.
    unsafe { name_of(code, len, Code::go_name) }
}

/// Fills `err` with the `closed` error of a call on the store handle
/// named `what` (its directory or address) after it was closed.
///
/// # Safety
/// `what` points to `what_len` readable bytes; `err` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn ts_error_store_closed(
    what: *const u8,
    what_len: usize,
    err: *mut TsError,
) {
    // SAFETY: forwarded from the caller.
    let what = unsafe { lossy(what, what_len) };
    // SAFETY: forwarded from the caller.
    unsafe { fill(err, Error::store_closed(what).into()) }
}

/// Fills `err` with the `closed` error of a call on the group handle
/// `name` after it was closed.
///
/// # Safety
/// `name` points to `name_len` readable bytes; `err` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn ts_error_group_closed(
    name: *const u8,
    name_len: usize,
    err: *mut TsError,
) {
    // SAFETY: forwarded from the caller.
    let name = unsafe { lossy(name, name_len) };
    // SAFETY: forwarded from the caller.
    unsafe { fill(err, Error::group_closed(&name).into()) }
}

/// Fills `err` with the `lease_lost` error of a call on the lease on
/// `name`/`key` after it was released.
///
/// # Safety
/// The texts point to their lengths' readable bytes; `err` is NULL or
/// writable.
#[no_mangle]
pub unsafe extern "C" fn ts_error_released(
    name: *const u8,
    name_len: usize,
    key: *const u8,
    key_len: usize,
    err: *mut TsError,
) {
    // SAFETY: forwarded from the caller.
    let (name, key) = unsafe { (lossy(name, name_len), lossy(key, key_len)) };
    // SAFETY: forwarded from the caller.
    unsafe { fill(err, Error::released(format_args!("{name}/{key}")).into()) }
}

/// The text at (`ptr`, `len`), any bytes that are not UTF-8 replaced: it
/// only names a handle in a message.
///
/// # Safety
/// As for [`bytes`].
unsafe fn lossy(ptr: *const u8, len: usize) -> String {
    // SAFETY: forwarded from the caller.
    String::from_utf8_lossy(unsafe { bytes(ptr, len) }).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::{ts_error_clear, TsCode};
    use std::ffi::CStr;

    #[test]
    fn the_table_walks_every_core_code_with_its_name() {
        let mut index = 0;
        while ts_code_at(index) != 0 {
            let number = ts_code_at(index);
            let mut len = 0;
            // SAFETY: `len` is writable; the name is static.
            let name = unsafe {
                let ptr = ts_code_name(number, &mut len);
                std::str::from_utf8(std::slice::from_raw_parts(ptr, len)).unwrap()
            };
            assert_eq!(name, Code::ALL[index].as_str());
            index += 1;
        }
        assert_eq!(index, Code::ALL.len());
        let mut len = 7;
        // SAFETY: `len` is writable.
        assert!(unsafe { ts_code_name(0, &mut len) }.is_null());
        assert_eq!(len, 0);
    }

    #[test]
    fn a_released_lease_is_lease_lost_in_the_cores_words() {
        let mut err = TsError {
            code: TsCode::Ok,
            message: std::ptr::null_mut(),
        };
        // SAFETY: the texts are live; `err` is writable, then cleared.
        unsafe {
            ts_error_released(b"jobs".as_ptr(), 4, b"7".as_ptr(), 1, &mut err);
            assert_eq!(err.code, TsCode::LeaseLost);
            let message = CStr::from_ptr(err.message).to_str().unwrap().to_owned();
            assert_eq!(message, Error::released("jobs/7").message());
            ts_error_clear(&mut err);
        }
    }
}
