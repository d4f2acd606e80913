//! `serveStore` and `NativeServer`: a store served to other processes from
//! inside this one (what `tinystore serve DIR` does); and `cliMain`, the
//! `tinystore` command the package's `bin` starts.

use crate::error::to_napi;
use napi_derive::napi;
use std::sync::Mutex;
use tinystore::server::{ServeOptions, Server};

/// A store served on its Unix socket by this process until `close`.
#[napi]
pub struct NativeServer {
    inner: Mutex<Option<Server>>,
    socket: String,
}

/// Serves the store directory `dir` (made if missing) on its socket so
/// that other processes' `open(dir)` reach it.
#[napi]
pub async fn serve_store(dir: String) -> napi::Result<NativeServer> {
    let server = Server::start(dir, ServeOptions::default())
        .await
        .map_err(to_napi)?;
    let socket = server.socket_path().display().to_string();
    Ok(NativeServer {
        inner: Mutex::new(Some(server)),
        socket,
    })
}

#[napi]
impl NativeServer {
    /// The path of the socket it serves on.
    #[napi(getter)]
    pub fn socket(&self) -> String {
        self.socket.clone()
    }

    /// Stops serving cleanly: leases released, waiters told `closed`, the
    /// socket removed. Idempotent.
    #[napi]
    pub async fn close(&self) -> napi::Result<()> {
        let server = self
            .inner
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .take();
        match server {
            Some(server) => server.shutdown().await.map_err(to_napi),
            None => Ok(()),
        }
    }
}

/// Runs the `tinystore` command line on `args` (the program's name first)
/// on this thread until it ends, and gives its exit status. For a process
/// that runs only the command (the package's `bin`): SIGINT and SIGTERM get
/// their default action back first, so that the command's own handling
/// (`serve` stops cleanly) is the only one. Node's handlers, which the
/// command's would call in turn, re-raise the signal and never return.
#[napi]
pub fn cli_main(args: Vec<String>) -> i32 {
    for signal in [libc::SIGINT, libc::SIGTERM] {
        // SAFETY: resets a disposition to the default; no handler runs.
        unsafe { libc::signal(signal, libc::SIG_DFL) };
    }
    tinystore_cli::run(args)
}
