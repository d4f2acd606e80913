//! `tinystore._native`: the tinystore core for Python. It converts types and
//! maps errors; the Pythonic surface (context managers, stubs) lives in the
//! pure-Python package `tinystore` around it.
//!
//! - `store`: `open`, `connect` and `Store`; `groups`: `Locks` and `Semaphore`;
//!   `lease`: `Lease` and `Permit`; `fence`: the fence text forms.
//! - `args` converts keys and options; `errors` converts errors;
//!   `ready` turns core futures into awaitables.

mod args;
mod errors;
mod fence;
mod groups;
mod lease;
mod ready;
mod store;

use pyo3::prelude::*;

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(store::open, m)?)?;
    m.add_function(wrap_pyfunction!(store::connect, m)?)?;
    m.add_function(wrap_pyfunction!(fence::parse_fence, m)?)?;
    m.add_function(wrap_pyfunction!(fence::fence_text, m)?)?;
    m.add_class::<store::Store>()?;
    m.add_class::<groups::Locks>()?;
    m.add_class::<groups::Semaphore>()?;
    m.add_class::<lease::Lease>()?;
    m.add_class::<lease::Permit>()?;
    m.add_class::<ready::Ready>()?;
    Ok(())
}
