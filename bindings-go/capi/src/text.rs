//! (pointer, length) arguments, read as Rust values during a call.

use crate::error::{Failure, Outcome, TsCode};

/// The bytes at (`ptr`, `len`); empty when `len` is 0 (then `ptr` may be NULL).
///
/// # Safety
/// When `len` > 0, `ptr` points to `len` readable bytes that stay valid
/// for the lifetime the caller picks.
pub unsafe fn bytes<'a>(ptr: *const u8, len: usize) -> &'a [u8] {
    if len == 0 || ptr.is_null() {
        return &[];
    }
    // SAFETY: promised by the caller.
    unsafe { std::slice::from_raw_parts(ptr, len) }
}

/// The UTF-8 text at (`ptr`, `len`); `what` names the argument in the
/// `invalid` error for bytes that are not UTF-8.
///
/// # Safety
/// As for [`bytes`].
pub unsafe fn utf8<'a>(ptr: *const u8, len: usize, what: &str) -> Outcome<&'a str> {
    // SAFETY: forwarded from the caller.
    let raw = unsafe { bytes(ptr, len) };
    std::str::from_utf8(raw).map_err(|e| {
        Failure::new(
            TsCode::Invalid,
            format!(
                "{what} {:?} is not UTF-8: {e}",
                String::from_utf8_lossy(raw)
            ),
        )
    })
}

/// The `n` values at `ptr` (NULL is an `invalid` failure unless `n` is 0).
///
/// # Safety
/// When `n` > 0, `ptr` is NULL or points to `n` readable values that stay
/// valid for the lifetime the caller picks.
pub unsafe fn slice<'a, T>(ptr: *const T, n: usize, what: &str) -> Outcome<&'a [T]> {
    match (n, ptr.is_null()) {
        (0, _) => Ok(&[]),
        (_, true) => Err(Failure::new(TsCode::Invalid, format!("{what} is NULL"))),
        // SAFETY: promised by the caller.
        _ => Ok(unsafe { std::slice::from_raw_parts(ptr, n) }),
    }
}

/// The handle behind `ptr`, or an `invalid` failure for NULL.
///
/// # Safety
/// `ptr` is NULL or points to a live `T` made by this library.
pub unsafe fn handle<'a, T>(ptr: *const T, what: &str) -> Outcome<&'a T> {
    // SAFETY: promised by the caller.
    unsafe { ptr.as_ref() }
        .ok_or_else(|| Failure::new(TsCode::Invalid, format!("{what} handle is NULL")))
}

/// Writes `value` through the out-parameter `out`.
///
/// # Safety
/// `out` is NULL (an `invalid` failure) or writable.
pub unsafe fn put<T>(out: *mut T, value: T, what: &str) -> Outcome {
    if out.is_null() {
        return Err(Failure::new(
            TsCode::Invalid,
            format!("{what} out-parameter is NULL"),
        ));
    }
    // SAFETY: promised by the caller.
    unsafe { out.write(value) };
    Ok(())
}

/// Moves `value` into a new handle written through `out`; on a NULL `out`
/// the value is dropped and the call fails with `invalid`.
///
/// # Safety
/// `out` is NULL or writable.
pub unsafe fn put_handle<T>(out: *mut *mut T, value: T, what: &str) -> Outcome {
    if out.is_null() {
        drop(value);
        return Err(Failure::new(
            TsCode::Invalid,
            format!("{what} out-parameter is NULL"),
        ));
    }
    // SAFETY: promised by the caller.
    unsafe { out.write(Box::into_raw(Box::new(value))) };
    Ok(())
}

/// Drops the handle `ptr` made by [`put_handle`]; NULL is ignored.
///
/// # Safety
/// `ptr` is NULL or a live handle of type `T` not used again.
pub unsafe fn free_handle<T>(ptr: *mut T) {
    if !ptr.is_null() {
        // SAFETY: promised by the caller.
        drop(unsafe { Box::from_raw(ptr) });
    }
}
