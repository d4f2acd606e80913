//! `tinystore._native`: the tinystore core for Python. It converts types and
//! maps errors; the Pythonic surface (context managers, stubs) lives in the
//! pure-Python package `tinystore` around it.
//!
//! - `store`: `open`, `connect` and `Store`; `group`: `Locks` and `Semaphore`;
//!   `rw_locks`: `RwLocks`; `several`: `Locks.acquire_all`;
//!   `lease`: `Lease` and `Permit`; `election`: `Election`, `Leadership`
//!   and `Observer`; `watch`: `Watcher` and `WatchEvent`, a group's
//!   watch; `following`: what `Observer` and `Watcher` share; `fence`: the fence text forms; `guard_step`: the
//!   guards' state machines for `tinystore.guard` (`guard_redis`: Redis's, `guard_dynamo`: DynamoDB's, `guard_versioned`: GCS's and Azure's); `guard`: the guards'
//!   names and the fence header for `tinystore.guard.s3` and `tinystore.http`.
//! - `args` converts keys and options; `error` converts errors;
//!   `runtime` is the tokio runtime; `acquiring` turns core futures into
//!   awaitables, woken through `completion`; `exit` keeps the runtime's
//!   threads out of an exiting interpreter.
//! - `status`: `store_status`, the core's `Status` of a store.
//! - `serve`: `serve(dir)` and `Server`, and `cli_main`, the `tinystore`
//!   command the package's console script starts.
//! - `testing`: the core's test kit for `tinystore.testing`: `TestStore`
//!   and the controls `advance`, `expire` and `expire_key`.
//! - The core's option defaults and limits: `DEFAULT_TTL`, `DEFAULT_WAIT`
//!   (seconds), `DEFAULT_RENEW`, and `MAX_KEYS_AT_ONCE` (of `acquire_all`).

mod acquiring;
mod args;
mod completion;
mod election;
mod error;
mod exit;
mod fence;
mod following;
mod group;
mod guard;
mod guard_dynamo;
mod guard_redis;
mod guard_step;
mod guard_versioned;
mod lease;
mod runtime;
mod rw_locks;
mod serve;
mod several;
mod status;
mod store;
mod testing;
mod watch;

use pyo3::prelude::*;

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(store::open, m)?)?;
    m.add_function(wrap_pyfunction!(store::connect, m)?)?;
    m.add_function(wrap_pyfunction!(fence::parse_fence, m)?)?;
    m.add_function(wrap_pyfunction!(fence::fence_text, m)?)?;
    error::register(m)?;
    guard::register(m)?;
    guard_step::register(m)?;
    guard_dynamo::register(m)?;
    guard_versioned::register(m)?;
    guard_redis::register(m)?;
    status::register(m)?;
    testing::register(m)?;
    m.add_class::<store::Store>()?;
    m.add_class::<group::Locks>()?;
    m.add_class::<group::Semaphore>()?;
    m.add_class::<rw_locks::RwLocks>()?;
    m.add_class::<lease::Lease>()?;
    m.add_class::<lease::Permit>()?;
    m.add_class::<election::Election>()?;
    m.add_class::<election::Leadership>()?;
    m.add_class::<election::Observer>()?;
    m.add_class::<watch::Watcher>()?;
    m.add_class::<watch::WatchEvent>()?;
    m.add_class::<acquiring::Ready>()?;
    m.add_class::<completion::LoopWaker>()?;
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
