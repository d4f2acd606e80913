//! The one tokio runtime every core future of the module runs on, and
//! the sync API's way of waiting for one.

use pyo3::prelude::*;
use std::future::Future;
use std::sync::OnceLock;
use tokio::runtime::Runtime;

/// The tokio runtime every core future runs on, started at first use.
pub(crate) fn runtime() -> &'static Runtime {
    static RUNTIME: OnceLock<Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .thread_name("tinystore")
            .enable_all()
            .build()
            .expect("cannot start the tinystore runtime")
    })
}

/// Runs `fut` to its end on the runtime with the GIL released: the sync API.
pub(crate) fn block_on<T: Send>(py: Python<'_>, fut: impl Future<Output = T> + Send) -> T {
    py.detach(|| runtime().block_on(fut))
}
