//! Python arguments to core values: keys (str, or int as its decimal text),
//! a semaphore's limit, and the options by name (the core's table; seconds
//! as float). The core checks the values; this only converts them.

use crate::error::{invalid, to_py};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyInt, PyString};
use tinystore::binding::{Given, GivenOptions, TimeUnit};
use tinystore::Options;

/// A key's text: a `str` as it is, an `int` as its decimal text (so `42`
/// and `"42"` are the same key). Anything else is `invalid`.
pub(crate) fn key_text(key: &Bound<'_, PyAny>) -> PyResult<String> {
    if let Ok(text) = key.cast::<PyString>() {
        return text
            .to_str()
            .map(str::to_owned)
            .map_err(|_| invalid("a key must be valid UTF-8 text; this str has a lone surrogate"));
    }
    if key.is_instance_of::<PyInt>() && !key.is_instance_of::<PyBool>() {
        return key
            .str()
            .and_then(|s| s.to_str().map(str::to_owned))
            .map_err(|_| invalid("an int key is too large to write in decimal"));
    }
    let kind = key.get_type().name()?;
    Err(invalid(format!("a key must be str or int, not {kind}")))
}

/// The keyword options a group or a call sets (`ttl`, `wait`, `max_hold`
/// in seconds, `renew`, `weight`, `data`: the core's table names them): a
/// bool, a number or a str each, set by name in the core, which checks
/// them. One left out or `None` stays unset; an unknown keyword is a
/// `TypeError`, as a Python function's would be, and so is a value of
/// another type; a str with a lone surrogate (not UTF-8) is `invalid`.
pub(crate) fn options(kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<Options> {
    let mut over = Options::default();
    for (name, value) in kwargs.into_iter().flat_map(|k| k.iter()) {
        let name = name.str()?.to_str()?.to_owned();
        if !Options::is_option(&name) {
            return Err(PyTypeError::new_err(format!(
                "got an unexpected keyword argument '{name}'"
            )));
        }
        if value.is_none() {
            continue;
        }
        let given = if let Ok(b) = value.cast::<PyBool>() {
            Given::Bool(b.is_true())
        } else if let Ok(text) = value.cast::<PyString>() {
            let text = text.to_str().map_err(|_| {
                invalid(format!(
                    "{name} must be valid UTF-8 text; this str has a lone surrogate"
                ))
            })?;
            Given::Text(text.to_owned())
        } else if let Ok(n) = value.extract::<f64>() {
            Given::Number(n)
        } else {
            let kind = value.get_type().name()?;
            return Err(PyTypeError::new_err(format!(
                "{name} must be a number, a bool or a str, not {kind}"
            )));
        };
        over.set(&name, given, TimeUnit::Seconds).map_err(to_py)?;
    }
    Ok(over)
}

/// A semaphore's limit as the core's type. An int no `u32` holds becomes
/// one the core refuses by name (0 below, `u32::MAX` above), so the core's
/// check gives the error.
pub(crate) fn limit_u32(limit: i64) -> u32 {
    u32::try_from(limit).unwrap_or(if limit < 0 { 0 } else { u32::MAX })
}
