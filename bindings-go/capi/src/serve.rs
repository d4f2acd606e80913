//! `TsServer`: a store served from inside the calling program, as
//! `tinystore serve DIR` serves it, to other processes on `DIR/tinystore.sock`.

use crate::error::{call, quiet, TsError};
use crate::runtime::block_on;
use crate::text::{bytes, handle, put_handle};
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::sync::Mutex;
use tinystore::server::{ServeOptions, Server};

/// A running server: it serves on the library's runtime until it is shut
/// down (or the program exits).
pub struct TsServer {
    server: Mutex<Option<Server>>,
    socket: Vec<u8>,
}

/// Opens the store directory (`dir`, `dir_len`), making it if missing, and
/// serves it on `DIR/tinystore.sock` (mode 0600) with the default options
/// (the `tinystore serve` defaults). Writes a new handle to `*out`. Fails
/// with `TS_CODE_IN_USE` when another process owns the directory.
///
/// # Safety
/// `dir` points to `dir_len` readable bytes; `out` and `err` are writable.
#[no_mangle]
pub unsafe extern "C" fn ts_server_start(
    dir: *const u8,
    dir_len: usize,
    out: *mut *mut TsServer,
    err: *mut TsError,
) -> bool {
    // SAFETY: forwarded from the caller.
    unsafe {
        call(err, || {
            let dir = OsStr::from_bytes(bytes(dir, dir_len));
            let server = block_on(Server::start(dir, ServeOptions::default()))??;
            let socket = server.socket_path().as_os_str().as_bytes().to_vec();
            let server = TsServer {
                server: Mutex::new(Some(server)),
                socket,
            };
            put_handle(out, server, "server")
        })
    }
}

/// Copies the path of the server's Unix socket to `out` when it fits in
/// `cap` bytes, and returns its length (larger than `cap`: nothing copied).
///
/// # Safety
/// `server` is a live handle; `out` is NULL or has `cap` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn ts_server_socket(
    server: *const TsServer,
    out: *mut u8,
    cap: usize,
) -> usize {
    quiet(0, || {
        // SAFETY: forwarded from the caller.
        let Ok(server) = (unsafe { handle(server, "server") }) else {
            return 0;
        };
        let path = &server.socket;
        if !out.is_null() && path.len() <= cap {
            // SAFETY: `path.len() <= cap` bytes, promised writable by the caller.
            unsafe { std::ptr::copy_nonoverlapping(path.as_ptr(), out, path.len()) };
        }
        path.len()
    })
}

/// Stops serving cleanly, as `tinystore serve` does on SIGTERM: the socket
/// is removed, every lease is released (its holder learns it lost it),
/// every waiter fails with `TS_CODE_CLOSED`, and `kv.db` is marked clean.
/// Idempotent. The handle stays valid until `ts_server_free`.
///
/// # Safety
/// `server` is a live handle; `err` is writable.
#[no_mangle]
pub unsafe extern "C" fn ts_server_shutdown(server: *const TsServer, err: *mut TsError) -> bool {
    // SAFETY: forwarded from the caller.
    unsafe {
        call(err, || {
            let server = handle(server, "server")?;
            let running = server
                .server
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner())
                .take();
            if let Some(running) = running {
                block_on(running.shutdown())??;
            }
            Ok(())
        })
    }
}

/// Frees the handle. A server not shut down first stops accepting
/// connections without the clean stop of `ts_server_shutdown`. NULL is
/// ignored.
///
/// # Safety
/// `server` is NULL or a live handle that no other call uses now or later.
#[no_mangle]
pub unsafe extern "C" fn ts_server_free(server: *mut TsServer) {
    // SAFETY: forwarded from the caller.
    quiet((), || unsafe { crate::text::free_handle(server) })
}
