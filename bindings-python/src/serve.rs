//! `serve(dir)`: a store served to other processes from inside this one
//! (what `tinystore serve DIR` does), and `Server`, the handle that stops it.

use crate::error::to_py;
use crate::runtime::block_on;
use pyo3::prelude::*;
use std::path::PathBuf;
use std::sync::Mutex;
use tinystore::server::{ServeOptions, Server as CoreServer};

/// A store served on its Unix socket by this process until `close`.
#[pyclass(module = "tinystore._native", frozen)]
pub(crate) struct Server {
    inner: Mutex<Option<CoreServer>>,
    socket: PathBuf,
}

/// Serves the store directory `dir` (made if missing) on `DIR/tinystore.sock`
/// so that other processes' `open(dir)` reach it; fails with `in_use` when
/// another process owns it.
#[pyfunction]
pub(crate) fn serve(py: Python<'_>, dir: PathBuf) -> PyResult<Server> {
    let server = block_on(py, CoreServer::start(dir, ServeOptions::default())).map_err(to_py)?;
    let socket = server.socket_path().to_owned();
    Ok(Server {
        inner: Mutex::new(Some(server)),
        socket,
    })
}

#[pymethods]
impl Server {
    /// The path of the socket it serves on.
    #[getter]
    fn socket(&self) -> String {
        self.socket.display().to_string()
    }

    /// Stops serving cleanly: every lease is released (holders are told),
    /// every waiter fails with `closed`, the socket is removed. Idempotent.
    fn close(&self, py: Python<'_>) -> PyResult<()> {
        let server = self
            .inner
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .take();
        match server {
            Some(server) => block_on(py, server.shutdown()).map_err(to_py),
            None => Ok(()),
        }
    }
}

/// Runs the `tinystore` command line on `args` (the program's name first)
/// in this process, with the GIL released, and gives its exit status.
#[pyfunction]
pub(crate) fn cli_main(py: Python<'_>, args: Vec<String>) -> i32 {
    py.detach(|| tinystore_cli::run(args))
}
