//! `tinystore._native`: the tinystore core for Python. It converts types and
//! maps errors; the Pythonic surface (context managers, stubs) lives in the
//! pure-Python package `tinystore` around it.
//!
//! - `store`: `open`, `connect` and `Store`; `groups`: `Locks` and `Semaphore`;
//!   `rw_locks`: `RwLocks`; `several`: `Locks.acquire_all`;
//!   `lease`: `Lease` and `Permit`; `election`: `Election`, `Leadership`
//!   and `Observer`; `fence`: the fence text forms; `guard_steps`: the
//!   guards' state machines for `tinystore.guard`; `guard`: the guards'
//!   names and the fence header for `tinystore.guard.s3` and `tinystore.http`.
//! - `args` converts keys and options; `errors` converts errors;
//!   `runtime` is the tokio runtime; `ready` turns core futures into
//!   awaitables; `exit` keeps the runtime's
//!   threads out of an exiting interpreter.
//! - `status`: `store_status`, the core's `Status` of a store.
//! - `serve`: `serve(dir)` and `Server`, and `cli_main`, the `tinystore`
//!   command the package's console script starts.
//! - The core's option defaults and limits: `DEFAULT_TTL`, `DEFAULT_WAIT`
//!   (seconds), `DEFAULT_RENEW`, and `MAX_KEYS_AT_ONCE` (of `acquire_all`).

mod args;
mod election;
mod errors;
mod exit;
mod fence;
mod groups;
mod guard;
mod guard_steps;
mod lease;
mod loop_waker;
mod ready;
mod runtime;
mod rw_locks;
mod serve;
mod several;
mod status;
mod store;

use pyo3::prelude::*;

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(store::open, m)?)?;
    m.add_function(wrap_pyfunction!(store::connect, m)?)?;
    m.add_function(wrap_pyfunction!(fence::parse_fence, m)?)?;
    m.add_function(wrap_pyfunction!(fence::fence_text, m)?)?;
    errors::register(m)?;
    guard::register(m)?;
    guard_steps::register(m)?;
    status::register(m)?;
    m.add_class::<store::Store>()?;
    m.add_class::<groups::Locks>()?;
    m.add_class::<groups::Semaphore>()?;
    m.add_class::<rw_locks::RwLocks>()?;
    m.add_class::<lease::Lease>()?;
    m.add_class::<lease::Permit>()?;
    m.add_class::<election::Election>()?;
    m.add_class::<election::Leadership>()?;
    m.add_class::<election::Observer>()?;
    m.add_class::<ready::Ready>()?;
    m.add_class::<loop_waker::LoopWaker>()?;
    m.add_function(wrap_pyfunction!(serve::serve, m)?)?;
    m.add_function(wrap_pyfunction!(serve::cli_main, m)?)?;
    m.add_class::<serve::Server>()?;
    exit::register(m)?;
    // The core's defaults, for the package's docs; options left `None` take them.
    m.add("DEFAULT_TTL", tinystore::DEFAULT_TTL.as_secs_f64())?;
    m.add(
        "DEFAULT_WAIT",
        tinystore::DEFAULT_WAIT.map(|w| w.as_secs_f64()),
    )?;
    m.add("DEFAULT_RENEW", tinystore::DEFAULT_RENEW)?;
    m.add("MAX_KEYS_AT_ONCE", tinystore::MAX_KEYS_AT_ONCE)?;
    Ok(())
}
