//! The fence text forms, by the core's strict rules.

use crate::errors::{invalid, to_py};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyInt, PyString};
use tinystore::Fence;

/// Parses a fence's decimal text: ASCII digits only, leading zeros allowed,
/// at most 2^128-1. Anything else is `invalid`.
#[pyfunction]
pub(crate) fn parse_fence(text: &Bound<'_, PyAny>) -> PyResult<u128> {
    let text = text
        .cast::<PyString>()
        .map_err(|_| invalid("fence text must be a str"))?;
    let text = text
        .to_str()
        .map_err(|_| invalid("fence text is not a decimal of ASCII digits"))?;
    Fence::parse(text).map(Fence::get).map_err(to_py)
}

/// The 40-digit zero-padded text of a fence, which orders as text the way
/// fences order as numbers. The value must be an int from 0 to 2^128-1.
#[pyfunction]
pub(crate) fn fence_text(value: &Bound<'_, PyAny>) -> PyResult<String> {
    if !value.is_instance_of::<PyInt>() || value.is_instance_of::<PyBool>() {
        return Err(invalid("a fence must be an int"));
    }
    let value: u128 = value
        .extract()
        .map_err(|_| invalid(format!("fence {value} is not from 0 to 2^128-1")))?;
    Ok(Fence::from_u128(value).text())
}
