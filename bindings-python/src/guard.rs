//! The guards' names and the fence header for `tinystore.guard.s3` and
//! `tinystore.http`: the core's object metadata keys and read bound, and its
//! reading and writing of the `Tinystore-Fence` header, the statuses of a
//! refusal and the reading of a service's answer. The guards' state machines are in `guard_step`.

use crate::error::to_py;
use crate::fence::fence_value;
use pyo3::prelude::*;
use tinystore::guard::{http, object};
use tinystore::Fence;

/// Reads a `Tinystore-Fence` header's value (`None`: missing) as core
/// does: the fence, or `Invalid` naming the header.
#[pyfunction]
pub(crate) fn http_parse_fence_header(value: Option<&str>) -> PyResult<Option<u128>> {
    Ok(http::parse_fence_header(value)
        .map_err(to_py)?
        .map(Fence::get))
}

/// The `Tinystore-Fence` header value of a fence (an int from 0 to
/// 2^128-1, else `Invalid`).
#[pyfunction]
pub(crate) fn http_fence_header_value(fence: &Bound<'_, PyAny>) -> PyResult<String> {
    Ok(http::fence_header_value(Fence::from_u128(fence_value(
        fence,
    )?)))
}

/// The status a service answers for an error of code `code`: 409 for
/// `stale`, 400 for `invalid`, `None` for any other.
#[pyfunction]
pub(crate) fn http_status_of(code: &str) -> Option<u16> {
    let code = tinystore::Code::parse(code)?;
    http::status_of(&tinystore::Error::new(code, ""))
}

/// Reads the answer to a request that carried `fence` (an int), as a
/// guard's check on `resource` seen from the client, as core does: its
/// status and its `Tinystore-Fence-Largest` value (`None`: absent). Returns
/// when accepted; raises `Stale` (a guard in the service refused the
/// write) or `tinystore.Error` of code `io` saying what the answer was.
#[pyfunction]
pub(crate) fn http_read_answer(
    status: u16,
    largest: Option<&str>,
    resource: &str,
    fence: &Bound<'_, PyAny>,
) -> PyResult<()> {
    let fence = Fence::from_u128(fence_value(fence)?);
    http::read_answer(status, largest, resource, fence).map_err(to_py)
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("OBJECT_METADATA_KEY", object::METADATA_KEY)?;
    m.add("OBJECT_TOMBSTONE_KEY", object::TOMBSTONE_KEY)?;
    m.add("OBJECT_MAX_TRIES", object::MAX_TRIES)?;
    m.add("HTTP_FENCE_HEADER", http::FENCE_HEADER)?;
    m.add("HTTP_LARGEST_HEADER", http::LARGEST_HEADER)?;
    m.add("HTTP_CONFLICT", http::CONFLICT)?;
    m.add("HTTP_BAD_REQUEST", http::BAD_REQUEST)?;
    m.add_function(wrap_pyfunction!(http_parse_fence_header, m)?)?;
    m.add_function(wrap_pyfunction!(http_fence_header_value, m)?)?;
    m.add_function(wrap_pyfunction!(http_status_of, m)?)?;
    m.add_function(wrap_pyfunction!(http_read_answer, m)?)?;
    Ok(())
}
