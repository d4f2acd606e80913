//! The one conversion from a core error to a Python exception: the class
//! of `tinystore._errors` that the core's table names for its code
//! (`Code::python_class`), with the core's message, and for `stale` its
//! resource and both fences. No code is listed here: a code the core adds
//! reaches Python by its class name, and the tests walk the core's table
//! ([`error_codes`]) to check that `tinystore._errors` has every class.

use pyo3::prelude::*;
use pyo3::types::PyTuple;
use pyo3::{PyErr, PyErrArguments};
use tinystore::binding::CodeNames;
use tinystore::{Code, Error};

mod classes {
    pyo3::import_exception!(tinystore._errors, Error);
}

/// A core error, made into its exception when Python needs it (with the
/// GIL), so that [`to_py`] needs no GIL and may run on any thread.
struct Raised(Error);

impl PyErrArguments for Raised {
    /// The exception instance itself: raised as the base class `Error`,
    /// Python keeps an instance of a subclass as it is.
    fn arguments(self, py: Python<'_>) -> Py<PyAny> {
        let err = self.0;
        match instance(py, &err) {
            Ok(made) => made,
            Err(why) => {
                let internal = Error::new(
                    Code::Internal,
                    format!(
                        "the {} error could not be raised as tinystore.{} ({why}): {}",
                        err.code(),
                        err.code().python_class(),
                        err.message()
                    ),
                );
                instance(py, &internal).unwrap_or_else(|e| e.into_value(py).into_any())
            }
        }
    }
}

/// The instance of the code's class for `err`.
fn instance(py: Python<'_>, err: &Error) -> PyResult<Py<PyAny>> {
    let class = py
        .import("tinystore._errors")?
        .getattr(err.code().python_class())?;
    let args = match (err.code(), err.stale_detail()) {
        (Code::Stale, Some(s)) => PyTuple::new(
            py,
            [
                err.message().into_pyobject(py)?.into_any(),
                s.resource.as_str().into_pyobject(py)?.into_any(),
                s.fence.into_pyobject(py)?.into_any(),
                s.largest.into_pyobject(py)?.into_any(),
            ],
        )?,
        _ => PyTuple::new(py, [err.message()])?,
    };
    Ok(class.call1(args)?.unbind())
}

/// The Python exception for a core error. It is made lazily, so this needs
/// no GIL and may run on any thread. A class the package lacks, or a
/// `stale` error without its fences, gives `Internal` saying so, never
/// another code's class.
pub(crate) fn to_py(err: Error) -> PyErr {
    PyErr::new::<classes::Error, _>(Raised(err))
}

/// An `invalid` error for a bad argument, named in `message`.
pub(crate) fn invalid(message: impl Into<String>) -> PyErr {
    to_py(Error::new(Code::Invalid, message))
}

/// The core's table of error codes, in its order: (code, class name in
/// `tinystore._errors`) for each.
#[pyfunction]
pub(crate) fn error_codes() -> Vec<(&'static str, &'static str)> {
    Code::ALL
        .into_iter()
        .map(|c| (c.as_str(), c.python_class()))
        .collect()
}

/// The exception the native module raises for a core error of `code`
/// with `message`; `Invalid` for an unknown code.
#[pyfunction]
pub(crate) fn error_of(
    py: Python<'_>,
    code: &str,
    message: &str,
) -> Py<pyo3::exceptions::PyBaseException> {
    let err = match Code::parse(code) {
        Some(code) => Error::new(code, message),
        None => Error::new(
            Code::Invalid,
            format!("{code:?} is no error code of tinystore"),
        ),
    };
    to_py(err).into_value(py)
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(error_codes, m)?)?;
    m.add_function(wrap_pyfunction!(error_of, m)?)?;
    Ok(())
}
