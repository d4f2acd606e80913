//! The SQL guard's pieces for `tinystore.guard`: the core's statement texts
//! and its decisions. The Python module runs the statements on the caller's
//! own `sqlite3` or psycopg handle; every rule stays in core.

use crate::errors::{invalid, to_py};
use crate::fence::fence_value;
use pyo3::exceptions::PyBaseException;
use pyo3::prelude::*;
use pyo3::types::PyString;
use tinystore::guard::sql::Statements;
use tinystore::guard::{self, Dialect, Placeholders};
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

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(guard_statements, m)?)?;
    m.add_function(wrap_pyfunction!(guard_arguments, m)?)?;
    m.add_function(wrap_pyfunction!(guard_refused, m)?)?;
    m.add_function(wrap_pyfunction!(guard_missing_table, m)?)?;
    m.add_function(wrap_pyfunction!(guard_not_in_transaction, m)?)?;
    Ok(())
}
