//! The one conversion from a core error to a Python exception: the class of
//! `tinystore._errors` named after its code, with the core's message.

use pyo3::PyErr;
use tinystore::Code;

mod classes {
    pyo3::import_exception!(tinystore._errors, Timeout);
    pyo3::import_exception!(tinystore._errors, LeaseLost);
    pyo3::import_exception!(tinystore._errors, InUse);
    pyo3::import_exception!(tinystore._errors, Closed);
    pyo3::import_exception!(tinystore._errors, Invalid);
    pyo3::import_exception!(tinystore._errors, Limit);
    pyo3::import_exception!(tinystore._errors, Unauthorized);
    pyo3::import_exception!(tinystore._errors, Corrupt);
    pyo3::import_exception!(tinystore._errors, Io);
    pyo3::import_exception!(tinystore._errors, Unavailable);
    pyo3::import_exception!(tinystore._errors, Internal);
    pyo3::import_exception!(tinystore._errors, Stale);
}

/// The Python exception for a core error. It is made lazily, so this needs
/// no GIL and may run on any thread. A `stale` error carries its resource
/// and both fences; a code this binding does not know yet is `Internal`
/// saying which code it was, never another code's class.
pub(crate) fn to_py(err: tinystore::Error) -> PyErr {
    let message = err.message().to_owned();
    match err.code() {
        Code::Timeout => PyErr::new::<classes::Timeout, _>(message),
        Code::LeaseLost => PyErr::new::<classes::LeaseLost, _>(message),
        Code::InUse => PyErr::new::<classes::InUse, _>(message),
        Code::Closed => PyErr::new::<classes::Closed, _>(message),
        Code::Invalid => PyErr::new::<classes::Invalid, _>(message),
        Code::Limit => PyErr::new::<classes::Limit, _>(message),
        Code::Unauthorized => PyErr::new::<classes::Unauthorized, _>(message),
        Code::Corrupt => PyErr::new::<classes::Corrupt, _>(message),
        Code::Io => PyErr::new::<classes::Io, _>(message),
        Code::Unavailable => PyErr::new::<classes::Unavailable, _>(message),
        Code::Internal => PyErr::new::<classes::Internal, _>(message),
        Code::Stale => match err.stale_detail() {
            Some(s) => {
                PyErr::new::<classes::Stale, _>((message, s.resource.clone(), s.fence, s.largest))
            }
            None => PyErr::new::<classes::Internal, _>(format!(
                "a stale error without its fences: {message}"
            )),
        },
        code => PyErr::new::<classes::Internal, _>(format!(
            "error code {code} is unknown to this Python binding: {message}"
        )),
    }
}

/// An `invalid` error for a bad argument, named in `message`.
pub(crate) fn invalid(message: impl Into<String>) -> PyErr {
    PyErr::new::<classes::Invalid, _>(message.into())
}
