//! Python arguments to core values: keys (str, or int as its decimal text),
//! a semaphore's limit, and the options `ttl`, `wait` and `renew` (seconds
//! as float). The core checks the values; this only converts them.

use crate::errors::invalid;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyInt, PyString};
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

/// The options a group or a call sets; `None` leaves a field unset.
pub(crate) fn options(
    ttl: Option<f64>,
    wait: Option<f64>,
    renew: Option<bool>,
) -> PyResult<Options> {
    Ok(Options {
        ttl: ttl.map(|s| seconds("ttl", s)).transpose()?,
        wait: wait.map(|s| seconds("wait", s)).transpose()?,
        renew,
        ..Options::default()
    })
}

/// A semaphore's limit as the core's type. An int no `u32` holds becomes
/// one the core refuses by name (0 below, `u32::MAX` above), so the core's
/// check gives the error.
pub(crate) fn limit_u32(limit: i64) -> u32 {
    u32::try_from(limit).unwrap_or(if limit < 0 { 0 } else { u32::MAX })
}
