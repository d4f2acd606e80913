//! Python arguments to core values: keys (str, or int as its decimal text),
//! a semaphore's limit, and the options `ttl`, `wait`, `renew`, `max_hold`
//! (seconds as float) and `weight`. The core checks the values; this only
//! converts them.

use crate::error::invalid;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyInt, PyString};
use std::time::Duration;
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

/// Seconds as a `Duration`; `what` names the option in the error.
fn seconds(what: &str, secs: f64) -> PyResult<Duration> {
    Duration::try_from_secs_f64(secs).map_err(|_| {
        invalid(format!(
            "{what} must be a finite number of seconds >= 0, not {secs}"
        ))
    })
}

/// The keyword options a group or a call sets: `ttl`, `wait` and
/// `max_hold` (seconds), `renew`, and `weight` (the places one permit
/// takes). One left out or `None` stays unset; any other keyword is a
/// `TypeError`, as a Python function's would be. The core checks the
/// values (a weight only on a semaphore, from 1 to its limit).
pub(crate) fn options(kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<Options> {
    let mut over = Options::default();
    for (name, value) in kwargs.into_iter().flat_map(|k| k.iter()) {
        let name = name.str()?.to_str()?.to_owned();
        let given = !value.is_none();
        match name.as_str() {
            "ttl" | "wait" | "max_hold" | "renew" | "weight" if !given => {}
            "ttl" => over.ttl = Some(seconds("ttl", value.extract()?)?),
            "wait" => over.wait = Some(seconds("wait", value.extract()?)?),
            "max_hold" => over.max_hold = Some(seconds("max_hold", value.extract()?)?),
            "renew" => over.renew = Some(value.extract()?),
            "weight" => over.weight = Some(weight(value.extract()?)?),
            _ => {
                return Err(PyTypeError::new_err(format!(
                    "got an unexpected keyword argument '{name}'"
                )))
            }
        }
    }
    Ok(over)
}

/// A weight as the core's type; an int no `u32` holds is `invalid` here.
fn weight(weight: i64) -> PyResult<u32> {
    u32::try_from(weight).map_err(|_| {
        invalid(format!(
            "weight {weight} is out of range: a weight is from 1 to the semaphore's limit"
        ))
    })
}

/// A semaphore's limit as the core's type. An int no `u32` holds becomes
/// one the core refuses by name (0 below, `u32::MAX` above), so the core's
/// check gives the error.
pub(crate) fn limit_u32(limit: i64) -> u32 {
    u32::try_from(limit).unwrap_or(if limit < 0 { 0 } else { u32::MAX })
}
