//! `TsStore`: an open store.

use crate::error::{call, quiet, TsError};
use crate::runtime::block_on;
use crate::text::{bytes, free_handle, handle, put_handle, utf8};
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::time::Duration;

/// An open store (owned by this process, or reached over a connection).
pub struct TsStore {
    pub(crate) store: tinystore::Store,
}

/// Opens the store directory (`dir`, `dir_len`), making it if missing, and
/// writes a new handle to `*out`. Fails with `TS_CODE_IN_USE`, naming the
/// owner's pid, when another process owns it and does not serve it.
///
/// # Safety
/// `dir` points to `dir_len` readable bytes; `out` and `err` are writable.
#[no_mangle]
pub unsafe extern "C" fn ts_store_open(
    dir: *const u8,
    dir_len: usize,
    out: *mut *mut TsStore,
    err: *mut TsError,
) -> bool {
    // SAFETY: forwarded from the caller.
    unsafe {
        call(err, || {
            let dir = OsStr::from_bytes(bytes(dir, dir_len));
            let store = block_on(tinystore::Store::open(dir))??;
            put_handle(out, TsStore { store }, "store")
        })
    }
}

/// Connects to a store served by `tinystore serve` at (`address`,
/// `address_len`): `unix:PATH`, `tcp://HOST:PORT`, a socket's path, or a
/// served store directory; with the TCP token (`token`, `token_len`) when
/// `token_len` > 0, and `timeout_ns` for connecting (0: the core's default).
/// Writes a new handle to `*out`; fails with `TS_CODE_UNAVAILABLE` when the
/// server cannot be reached.
///
/// # Safety
/// `address` and `token` point to their lengths of readable bytes; `out`
/// and `err` are writable.
#[no_mangle]
pub unsafe extern "C" fn ts_store_connect(
    address: *const u8,
    address_len: usize,
    token: *const u8,
    token_len: usize,
    timeout_ns: u64,
    out: *mut *mut TsStore,
    err: *mut TsError,
) -> bool {
    // SAFETY: forwarded from the caller.
    unsafe {
        call(err, || {
            let address = utf8(address, address_len, "address")?;
            let mut options = tinystore::ConnectOptions::default();
            if token_len > 0 {
                options = options.token(utf8(token, token_len, "token")?);
            }
            if timeout_ns > 0 {
                options.timeout = Duration::from_nanos(timeout_ns);
            }
            let store = block_on(tinystore::Store::connect_with(address, options))??;
            put_handle(out, TsStore { store }, "store")
        })
    }
}

/// Closes the store: every lease is released (its holder learns it lost
/// it) and every waiter fails with `TS_CODE_CLOSED`. Idempotent. The handle
/// stays valid until `ts_store_free`.
///
/// # Safety
/// `store` is a live handle; `err` is writable.
#[no_mangle]
pub unsafe extern "C" fn ts_store_close(store: *const TsStore, err: *mut TsError) -> bool {
    // SAFETY: forwarded from the caller.
    unsafe {
        call(err, || {
            let store = handle(store, "store")?;
            block_on(store.store.close())??;
            Ok(())
        })
    }
}

/// Frees the handle. It does not close the store by itself: the store
/// closes when its last handle, group and lease are gone. NULL is ignored.
///
/// # Safety
/// `store` is NULL or a live handle that no other call uses now or later.
#[no_mangle]
pub unsafe extern "C" fn ts_store_free(store: *mut TsStore) {
    // SAFETY: forwarded from the caller.
    quiet((), || unsafe { free_handle(store) })
}
