//! The guards' pieces for `tinystore.guard`, `tinystore.guard.s3` and
//! `tinystore.http`: the core's SQL statement texts, its decisions on a
//! guarded object write, and its reading of the fence header. The Python
//! modules run the statements on the caller's own `sqlite3` or psycopg
//! handle, the HEAD and PUT on the caller's own boto3 client, and read the
//! header from the request; every rule stays in core.

use crate::errors::{invalid, to_py};
use crate::fence::fence_value;
use pyo3::exceptions::PyBaseException;
use pyo3::prelude::*;
use pyo3::types::PyString;
use tinystore::guard::object::{self, Condition, Stored};
use tinystore::guard::sql::Statements;
use tinystore::guard::{self, http, Dialect, Placeholders};
use tinystore::Fence;

/// The guard's (migration, check, read) statements for a dialect
/// (`"sqlite"`, `"postgres"`) and a placeholder style (`"?"`, `"$1"`,
/// `"%s"`).
#[pyfunction]
pub(crate) fn guard_statements(
    dialect: &str,
    placeholders: &str,
) -> PyResult<(String, String, String)> {
    let dialect = Dialect::parse(dialect).map_err(to_py)?;
    let placeholders = Placeholders::parse(placeholders).map_err(to_py)?;
    let s = Statements::new(dialect, placeholders);
    Ok((s.migration, s.check, s.read))
}

/// Checks a check's arguments before any statement runs: `resource` a `str`
/// of 1 to 1024 bytes without NUL, `fence` an int from 0 to 2^128-1.
/// Returns the fence's 40-digit text, the check's parameter.
#[pyfunction]
pub(crate) fn guard_arguments(
    resource: &Bound<'_, PyAny>,
    fence: &Bound<'_, PyAny>,
) -> PyResult<String> {
    let text = match resource.cast::<PyString>() {
        Ok(text) => text,
        Err(_) => {
            let kind = resource.get_type().name()?;
            return Err(invalid(format!(
                "a guard resource must be a str, not {kind}"
            )));
        }
    };
    let text = text.to_str().map_err(|_| {
        invalid("a guard resource must be valid UTF-8 text; this str has a lone surrogate")
    })?;
    guard::check_resource(text).map_err(to_py)?;
    Ok(Fence::from_u128(fence_value(fence)?).text())
}

/// Decides a check that changed no row from the fence recorded for the
/// resource (`None`: no row): returns when accepted (equal), raises
/// `Stale`, `Corrupt` or `Internal` otherwise.
#[pyfunction]
pub(crate) fn guard_refused(resource: &str, fence: u128, recorded: Option<&str>) -> PyResult<()> {
    guard::refused(resource, Fence::from_u128(fence), recorded).map_err(to_py)
}

/// The `Invalid` exception of a guard whose register table is missing,
/// saying how to make it (to raise from the driver's own error).
#[pyfunction]
pub(crate) fn guard_missing_table(py: Python<'_>, resource: &str) -> Py<PyBaseException> {
    to_py(guard::missing_table(resource)).into_value(py)
}

/// The `Invalid` exception of a guard called outside a transaction.
#[pyfunction]
pub(crate) fn guard_not_in_transaction(py: Python<'_>, resource: &str) -> Py<PyBaseException> {
    to_py(guard::not_in_transaction(resource)).into_value(py)
}

/// Decides a guarded object write of `fence` to `resource` (`bucket/key`)
/// over what a HEAD read: `stored` is `(etag, tinystore-fence metadata or
/// None)`, or `None` when there is no object; `body_md5` is the hex MD5 of
/// the body. Returns `None` for `If-None-Match: *`, or the ETag for
/// `If-Match`; raises `Stale`, `Corrupt` or `Invalid` as core decides.
#[pyfunction]
pub(crate) fn object_decide_put(
    resource: &Bound<'_, PyAny>,
    fence: &Bound<'_, PyAny>,
    stored: Option<(String, Option<String>)>,
    body_md5: &str,
) -> PyResult<Option<String>> {
    guard_arguments(resource, fence)?;
    let resource: String = resource.extract()?;
    let fence = Fence::from_u128(fence_value(fence)?);
    let stored = stored.as_ref().map(|(etag, fence)| Stored {
        etag,
        fence: fence.as_deref(),
    });
    match object::decide_put(&resource, fence, stored, body_md5).map_err(to_py)? {
        Condition::Create => Ok(None),
        Condition::Replace(etag) => Ok(Some(etag)),
    }
}

/// The `Limit` exception of a guarded object write that met another
/// writer on every one of its tries.
#[pyfunction]
pub(crate) fn object_too_many_races(py: Python<'_>, resource: &str) -> Py<PyBaseException> {
    to_py(object::too_many_races(resource)).into_value(py)
}

/// Checks the caller's own metadata keys for a guarded object write to
/// `resource`: raises `Invalid` for a key of the guard's own.
#[pyfunction]
pub(crate) fn object_check_metadata(resource: &str, keys: Vec<String>) -> PyResult<()> {
    object::check_metadata(resource, keys.iter().map(String::as_str)).map_err(to_py)
}

/// The `Unauthorized` exception of a guarded object write whose HEAD of
/// `resource` was refused with HTTP `status` (403).
#[pyfunction]
pub(crate) fn object_head_refused(
    py: Python<'_>,
    resource: &str,
    status: u16,
) -> Py<PyBaseException> {
    to_py(object::head_refused(resource, status)).into_value(py)
}

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

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("OBJECT_METADATA_KEY", object::METADATA_KEY)?;
    m.add("OBJECT_TOMBSTONE_KEY", object::TOMBSTONE_KEY)?;
    m.add("OBJECT_MAX_TRIES", object::MAX_TRIES)?;
    m.add("HTTP_FENCE_HEADER", http::FENCE_HEADER)?;
    m.add("HTTP_LARGEST_HEADER", http::LARGEST_HEADER)?;
    m.add("HTTP_CONFLICT", http::CONFLICT)?;
    m.add("HTTP_BAD_REQUEST", http::BAD_REQUEST)?;
    m.add_function(wrap_pyfunction!(object_decide_put, m)?)?;
    m.add_function(wrap_pyfunction!(object_too_many_races, m)?)?;
    m.add_function(wrap_pyfunction!(object_check_metadata, m)?)?;
    m.add_function(wrap_pyfunction!(object_head_refused, m)?)?;
    m.add_function(wrap_pyfunction!(http_parse_fence_header, m)?)?;
    m.add_function(wrap_pyfunction!(http_fence_header_value, m)?)?;
    m.add_function(wrap_pyfunction!(http_status_of, m)?)?;
    m.add_function(wrap_pyfunction!(guard_statements, m)?)?;
    m.add_function(wrap_pyfunction!(guard_arguments, m)?)?;
    m.add_function(wrap_pyfunction!(guard_refused, m)?)?;
    m.add_function(wrap_pyfunction!(guard_missing_table, m)?)?;
    m.add_function(wrap_pyfunction!(guard_not_in_transaction, m)?)?;
    Ok(())
}
