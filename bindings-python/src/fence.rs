//! The fence text forms, by the core's strict rules.

use crate::error::{invalid, to_py};
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
    Ok(Fence::from_u128(fence_value(value)?).text())
}

/// A fence argument's value: an int (not a bool) from 0 to 2^128-1, else
/// `invalid` naming what it was.
pub(crate) fn fence_value(value: &Bound<'_, PyAny>) -> PyResult<u128> {
    if !value.is_instance_of::<PyInt>() || value.is_instance_of::<PyBool>() {
        let kind = value.get_type().name()?;
        return Err(invalid(format!("a fence must be an int, not {kind}")));
    }
    value
        .extract()
        .map_err(|_| invalid(format!("fence {value} is not from 0 to 2^128-1")))
}
