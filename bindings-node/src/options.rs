//! The options of a group or a call as JS passes them: milliseconds and
//! booleans, each optional, made into the core's `Options`.

use crate::error::invalid;
use napi_derive::napi;
use std::time::Duration;

/// `ttl` and `wait` in milliseconds, `renew` on or off; a missing field
/// keeps the group's value.
#[napi(object)]
#[derive(Default)]
pub struct NativeOptions {
    pub ttl: Option<f64>,
    pub wait: Option<f64>,
    pub renew: Option<bool>,
}

/// The core's options for these, refusing a negative, fractional-NaN or
/// infinite number of milliseconds with `invalid`.
pub fn to_core(options: Option<NativeOptions>) -> napi::Result<tinystore::Options> {
    let options = options.unwrap_or_default();
    Ok(tinystore::Options {
        ttl: options.ttl.map(|ms| millis("ttl", ms)).transpose()?,
        wait: options.wait.map(|ms| millis("wait", ms)).transpose()?,
        renew: options.renew,
        ..Default::default()
    })
}

fn millis(what: &str, ms: f64) -> napi::Result<Duration> {
    if !ms.is_finite() || ms < 0.0 {
        return Err(invalid(format!(
            "{what} {ms} is not a number of milliseconds from 0 up"
        )));
    }
    Duration::try_from_secs_f64(ms / 1000.0)
        .map_err(|_| invalid(format!("{what} {ms} ms is too long")))
}
