//! The test kit (the core's `tinystore::testing`): `TsTestStore`, a store
//! made for a test in a temporary directory, embedded or served by this
//! process; and the kit's controls on any store handle and held lease,
//! which a store not made for tests refuses with `TS_CODE_INVALID`.
//! Only types are converted here: what advance and expire do, and the
//! refusal, are the core's.

use crate::error::{call, quiet, Failure, TsError};
use crate::lease::{Held, TsHeld};
use crate::runtime::block_on;
use crate::store::TsStore;
use crate::text::{free_handle, handle, put, put_handle, utf8};
use std::os::unix::ffi::OsStrExt;
use std::sync::Mutex;
use std::time::Duration;
use tinystore::testing::{self, TestStore};

/// A test store: the core's `TestStore`, until it is closed.
pub struct TsTestStore {
    kit: Mutex<Option<TestStore>>,
    dir: Vec<u8>,
    address: Vec<u8>,
}

impl TsTestStore {
    /// The kit while it is open; the core's `closed` error once closed.
    fn with<T>(&self, f: impl FnOnce(&TestStore) -> T) -> Result<T, Failure> {
        let kit = self.kit.lock().unwrap_or_else(|p| p.into_inner());
        match kit.as_ref() {
            Some(kit) => Ok(f(kit)),
            None => Err(tinystore::Error::store_closed(format_args!(
                "{} (a test store)",
                String::from_utf8_lossy(&self.dir)
            ))
            .into()),
        }
    }

    /// Takes the kit out, once: `None` when it was closed already.
    fn take(&self) -> Option<TestStore> {
        self.kit.lock().unwrap_or_else(|p| p.into_inner()).take()
    }
}

/// Makes a test store in a new temporary directory and writes a new handle
/// to `*out`: embedded (this process owns it) when `served` is false;
/// served by this process on its Unix socket, as `tinystore serve
/// --testing` serves, when true (`ts_test_store_address` gives where other
/// processes connect). Its store (`ts_test_store_store`) allows the kit's
/// controls.
///
/// # Safety
/// `out` and `err` are writable.
#[no_mangle]
pub unsafe extern "C" fn ts_test_store_start(
    served: bool,
    out: *mut *mut TsTestStore,
    err: *mut TsError,
) -> bool {
    // SAFETY: forwarded from the caller.
    unsafe {
        call(err, || {
            let kit = block_on(async {
                if served {
                    TestStore::served().await
                } else {
                    TestStore::new().await
                }
            })??;
            let dir = kit.dir().as_os_str().as_bytes().to_vec();
            let address = kit.address().unwrap_or_default().as_bytes().to_vec();
            let kit = TsTestStore {
                kit: Mutex::new(Some(kit)),
                dir,
                address,
            };
            put_handle(out, kit, "test store")
        })
    }
}

/// Writes to `*out` a new handle on the test store's store (free it with
/// `ts_store_free`; closing it closes the test store's store). Fails with
/// `TS_CODE_CLOSED` once the test store was closed.
///
/// # Safety
/// `kit` is a live handle; `out` and `err` are writable.
#[no_mangle]
pub unsafe extern "C" fn ts_test_store_store(
    kit: *const TsTestStore,
    out: *mut *mut TsStore,
    err: *mut TsError,
) -> bool {
    // SAFETY: forwarded from the caller.
    unsafe {
        call(err, || {
            let store = handle(kit, "test store")?.with(|kit| kit.store().clone())?;
            put_handle(out, TsStore { store }, "store")
        })
    }
}

/// Copies `text` to `out` when it fits in `cap` bytes, and returns its
/// length (larger than `cap`: nothing copied).
///
/// # Safety
/// `out` is NULL or has `cap` writable bytes.
unsafe fn copy_out(text: &[u8], out: *mut u8, cap: usize) -> usize {
    if !out.is_null() && text.len() <= cap {
        // SAFETY: `text.len() <= cap` bytes, promised writable by the caller.
        unsafe { std::ptr::copy_nonoverlapping(text.as_ptr(), out, text.len()) };
    }
    text.len()
}

/// Copies the test store's directory (removed when it is closed) to `out`
/// when it fits in `cap` bytes, and returns its length (larger than `cap`:
/// nothing copied).
///
/// # Safety
/// `kit` is a live handle; `out` is NULL or has `cap` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn ts_test_store_dir(
    kit: *const TsTestStore,
    out: *mut u8,
    cap: usize,
) -> usize {
    quiet(0, || {
        // SAFETY: forwarded from the caller.
        let Ok(kit) = (unsafe { handle(kit, "test store") }) else {
            return 0;
        };
        // SAFETY: forwarded from the caller.
        unsafe { copy_out(&kit.dir, out, cap) }
    })
}

/// Copies where other processes connect to a served test store
/// (`unix:PATH`) to `out` when it fits in `cap` bytes, and returns its
/// length: 0 for an embedded one.
///
/// # Safety
/// `kit` is a live handle; `out` is NULL or has `cap` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn ts_test_store_address(
    kit: *const TsTestStore,
    out: *mut u8,
    cap: usize,
) -> usize {
    quiet(0, || {
        // SAFETY: forwarded from the caller.
        let Ok(kit) = (unsafe { handle(kit, "test store") }) else {
            return 0;
        };
        // SAFETY: forwarded from the caller.
        unsafe { copy_out(&kit.address, out, cap) }
    })
}

/// Closes the test store (holders are told, waiters fail with
/// `TS_CODE_CLOSED`), stops its server when served, and removes its
/// directory. Idempotent. The handle stays valid until
/// `ts_test_store_free`.
///
/// # Safety
/// `kit` is a live handle; `err` is writable.
#[no_mangle]
pub unsafe extern "C" fn ts_test_store_close(kit: *const TsTestStore, err: *mut TsError) -> bool {
    // SAFETY: forwarded from the caller.
    unsafe {
        call(err, || {
            if let Some(open) = handle(kit, "test store")?.take() {
                block_on(open.close())??;
            }
            Ok(())
        })
    }
}

/// Frees the handle, closing the test store first (as
/// `ts_test_store_close`) if it is still open. NULL is ignored.
///
/// # Safety
/// `kit` is NULL or a live handle that no other call uses now or later.
#[no_mangle]
pub unsafe extern "C" fn ts_test_store_free(kit: *mut TsTestStore) {
    quiet((), || {
        // SAFETY: forwarded from the caller.
        if let Ok(open) = unsafe { handle(kit, "test store") } {
            if let Some(open) = open.take() {
                let _ = block_on(open.close());
            }
        }
        // SAFETY: forwarded from the caller.
        unsafe { free_handle(kit) }
    })
}

/// Moves the time of `store` forward `by_ns` nanoseconds at once (the
/// core's `testing::advance`): every lease whose TTL runs out within ends
/// as a lease that ran out does. Fails with `TS_CODE_INVALID` unless
/// `store` is a test store. Waits for the reply on a connected store.
///
/// # Safety
/// `store` is a live handle; `err` is writable.
#[no_mangle]
pub unsafe extern "C" fn ts_testing_advance(
    store: *const TsStore,
    by_ns: u64,
    err: *mut TsError,
) -> bool {
    // SAFETY: forwarded from the caller.
    unsafe {
        call(err, || {
            let store = handle(store, "store")?;
            block_on(testing::advance(&store.store, Duration::from_nanos(by_ns)))??;
            Ok(())
        })
    }
}

/// Ends the lease, permit or leadership `held` as if its holder had paused
/// past its TTL (the core's `testing::expire`): returns once the core told
/// its holder; the loss reaches `ts_done_take` (with the token of its
/// grant) on its own, possibly after this returns. The next waiter is
/// granted with a larger fence. Fails with `TS_CODE_LEASE_LOST` when it was no longer held, with
/// `TS_CODE_INVALID` unless its store is a test store.
///
/// # Safety
/// `held` is a live handle; `err` is writable.
#[no_mangle]
pub unsafe extern "C" fn ts_testing_expire(held: *const TsHeld, err: *mut TsError) -> bool {
    // SAFETY: forwarded from the caller.
    unsafe {
        call(err, || {
            let held = handle(held, "held")?;
            match held.held() {
                Held::Lease(h) => block_on(testing::expire(&**h)),
                Held::Permit(h) => block_on(testing::expire(&**h)),
                Held::Leadership(h) => block_on(testing::expire(&**h)),
            }??;
            Ok(())
        })
    }
}

/// Ends, as `ts_testing_expire` does, every lease held on (`key`,
/// `key_len`) of the groups called (`name`, `name_len`) in `store` (its
/// lock group, semaphore and read-write locks; not an election's), and
/// writes how many to `*out` (the core's `testing::expire_key`). Fails with
/// `TS_CODE_INVALID` for a bad name or key, or unless `store` is a test
/// store.
///
/// # Safety
/// `store` is a live handle; `name` and `key` point to their lengths of
/// readable bytes; `out` and `err` are writable.
#[no_mangle]
pub unsafe extern "C" fn ts_testing_expire_key(
    store: *const TsStore,
    name: *const u8,
    name_len: usize,
    key: *const u8,
    key_len: usize,
    out: *mut usize,
    err: *mut TsError,
) -> bool {
    // SAFETY: forwarded from the caller.
    unsafe {
        call(err, || {
            put(out, 0, "count")?;
            let store = handle(store, "store")?;
            let name = utf8(name, name_len, "name")?;
            let key = utf8(key, key_len, "key")?;
            let ended = block_on(testing::expire_key(&store.store, name, key))??;
            put(out, ended, "count")
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::TsCode;

    fn no_error() -> TsError {
        TsError {
            code: TsCode::Ok,
            message: std::ptr::null_mut(),
        }
    }

    /// The code and message of a failed call, and the message freed.
    fn taken(err: &mut TsError) -> (TsCode, String) {
        let code = err.code;
        // SAFETY: a message this library wrote, freed just after.
        let message = unsafe { std::ffi::CStr::from_ptr(err.message) }
            .to_string_lossy()
            .into_owned();
        // SAFETY: as above.
        unsafe { crate::error::ts_error_clear(err) };
        (code, message)
    }

    #[test]
    fn a_test_store_advances_and_is_removed_on_close_and_free() {
        for served in [false, true] {
            let mut err = no_error();
            let mut kit = std::ptr::null_mut();
            let mut store = std::ptr::null_mut();
            // SAFETY: live out-parameters; handles freed below.
            unsafe {
                assert!(ts_test_store_start(served, &mut kit, &mut err));
                assert!(ts_test_store_store(kit, &mut store, &mut err));
                let mut dir = vec![0u8; 4096];
                let n = ts_test_store_dir(kit, dir.as_mut_ptr(), dir.len());
                dir.truncate(n);
                let dir = std::path::PathBuf::from(std::ffi::OsStr::from_bytes(&dir));
                assert!(dir.is_dir(), "{}", dir.display());
                let address = ts_test_store_address(kit, std::ptr::null_mut(), 0);
                assert_eq!(address > 0, served);
                assert!(ts_testing_advance(store, 1_000_000_000, &mut err));
                let mut ended = 7;
                let (name, key) = ("jobs", "a");
                assert!(ts_testing_expire_key(
                    store,
                    name.as_ptr(),
                    name.len(),
                    key.as_ptr(),
                    key.len(),
                    &mut ended,
                    &mut err
                ));
                assert_eq!(ended, 0);
                assert!(ts_test_store_close(kit, &mut err));
                assert!(ts_test_store_close(kit, &mut err), "idempotent");
                assert!(!dir.exists(), "{} was removed", dir.display());
                let mut again = std::ptr::null_mut();
                assert!(!ts_test_store_store(kit, &mut again, &mut err));
                assert_eq!(taken(&mut err).0, TsCode::Closed);
                crate::store::ts_store_free(store);
                ts_test_store_free(kit);
            }
        }
    }

    #[test]
    fn a_store_not_made_for_tests_refuses_advance() {
        let dir =
            std::env::temp_dir().join(format!("tinystore-capi-refusal-{}", std::process::id()));
        let mut err = no_error();
        let mut store = std::ptr::null_mut();
        let path = dir.as_os_str().as_bytes();
        // SAFETY: live arguments; the handle is freed below.
        unsafe {
            assert!(crate::store::ts_store_open(
                path.as_ptr(),
                path.len(),
                &mut store,
                &mut err
            ));
            assert!(!ts_testing_advance(store, 1, &mut err));
            let (code, message) = taken(&mut err);
            assert_eq!(code, TsCode::Invalid);
            assert!(
                message.starts_with("this store is not a test store"),
                "{message}"
            );
            assert!(crate::store::ts_store_close(store, &mut err));
            crate::store::ts_store_free(store);
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_freed_test_store_is_closed_and_removed() {
        let mut err = no_error();
        let mut kit = std::ptr::null_mut();
        // SAFETY: live out-parameters; the handle is freed here.
        let dir = unsafe {
            assert!(ts_test_store_start(true, &mut kit, &mut err));
            let mut dir = vec![0u8; 4096];
            let n = ts_test_store_dir(kit, dir.as_mut_ptr(), dir.len());
            dir.truncate(n);
            ts_test_store_free(kit);
            std::path::PathBuf::from(std::ffi::OsStr::from_bytes(&dir))
        };
        assert!(!dir.exists(), "{} was removed", dir.display());
    }
}
