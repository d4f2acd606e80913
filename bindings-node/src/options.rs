//! The options of a group or a call as JS passes them: milliseconds,
//! booleans and a whole number, each optional, made into the core's
//! `Options`.

use crate::error::invalid;
use napi_derive::napi;
use std::time::Duration;

/// `ttl`, `wait` and `maxHold` in milliseconds, `renew` on or off, and a
/// semaphore permit's `weight`; a missing field keeps the group's value.
#[napi(object)]
#[derive(Default)]
pub struct NativeOptions {
    pub ttl: Option<f64>,
    pub wait: Option<f64>,
    pub renew: Option<bool>,
    pub max_hold: Option<f64>,
    pub weight: Option<f64>,
}

/// The core's options for these, refusing a negative, NaN or infinite
/// number of milliseconds and a weight that is not a whole number of 32
/// bits with `invalid`; the core checks the ranges.
pub fn to_core(options: Option<NativeOptions>) -> napi::Result<tinystore::Options> {
    let options = options.unwrap_or_default();
    Ok(tinystore::Options {
        ttl: options.ttl.map(|ms| millis("ttl", ms)).transpose()?,
        wait: options.wait.map(|ms| millis("wait", ms)).transpose()?,
        renew: options.renew,
        max_hold: options
            .max_hold
            .map(|ms| millis("max_hold", ms))
            .transpose()?,
        weight: options.weight.map(weight).transpose()?,
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

fn weight(weight: f64) -> napi::Result<u32> {
    if weight.fract() != 0.0 || !(0.0..=f64::from(u32::MAX)).contains(&weight) {
        return Err(invalid(format!(
            "weight {weight} is not a whole number of places"
        )));
    }
    Ok(weight as u32)
}
