//! `ts_store_status`: the core's `Status` of a store as JSON text (the
//! shape `tinystore status --json` prints), which the Go side decodes into
//! its typed structs. Nothing is computed here.

use crate::error::{call, quiet, Failure, TsCode, TsError};
use crate::runtime::block_on;
use crate::store::TsStore;
use crate::text::{handle, put};

/// JSON text the caller owns until `ts_status_clear`: `len` bytes of UTF-8
/// at `json` (NULL when empty).
#[repr(C)]
#[derive(Debug)]
pub struct TsStatus {
    pub json: *mut u8,
    pub len: usize,
}

impl TsStatus {
    fn none() -> TsStatus {
        TsStatus {
            json: std::ptr::null_mut(),
            len: 0,
        }
    }

    fn of(text: String) -> TsStatus {
        let boxed = text.into_bytes().into_boxed_slice();
        let len = boxed.len();
        TsStatus {
            json: Box::into_raw(boxed).cast::<u8>(),
            len,
        }
    }
}

/// Writes the status of `store` to `*out` as JSON (free it with
/// `ts_status_clear`): the `limit` held leases and keys with waiters after
/// the first `offset` of each (the core checks the limit: 1 to 10,000).
/// Waits for the reply on a connected store.
///
/// # Safety
/// `store` is a live handle; `out` and `err` are writable.
#[no_mangle]
pub unsafe extern "C" fn ts_store_status(
    store: *const TsStore,
    offset: usize,
    limit: usize,
    out: *mut TsStatus,
    err: *mut TsError,
) -> bool {
    // SAFETY: forwarded from the caller.
    unsafe {
        call(err, || {
            put(out, TsStatus::none(), "status")?;
            let store = handle(store, "store")?;
            let page = tinystore::StatusPage { offset, limit };
            let status = block_on(store.store.status_page(page))??;
            let json = serde_json::to_string(&status).map_err(|e| {
                Failure::new(TsCode::Internal, format!("status not written as JSON: {e}"))
            })?;
            put(out, TsStatus::of(json), "status")
        })
    }
}

/// Frees the text of a status written by this library and empties it.
/// NULL is ignored.
///
/// # Safety
/// `status` is NULL or a status this library wrote, not cleared since.
#[no_mangle]
pub unsafe extern "C" fn ts_status_clear(status: *mut TsStatus) {
    quiet((), || {
        // SAFETY: promised by the caller.
        let Some(status) = (unsafe { status.as_mut() }) else {
            return;
        };
        if !status.json.is_null() {
            let raw = std::ptr::slice_from_raw_parts_mut(status.json, status.len);
            // SAFETY: made by `TsStatus::of` as a boxed slice of this length.
            drop(unsafe { Box::from_raw(raw) });
        }
        *status = TsStatus::none();
    })
}
