//! The options of a group or a call as JS passes them: by name, in the
//! core's snake_case (lib/convert.js spells `maxHold` so), each a number
//! (milliseconds, or a count), a boolean or a string (`data`), set by name
//! in the core, which knows every option and checks its value.

use crate::error::to_napi;
use napi::bindgen_prelude::Either3;
use std::collections::HashMap;
use tinystore::binding::{Given, GivenOptions, TimeUnit};
use tinystore::Options;

/// The core's options for `options`.
pub fn to_core(
    options: Option<HashMap<String, Either3<f64, bool, String>>>,
) -> napi::Result<Options> {
    let mut out = Options::default();
    for (name, value) in options.into_iter().flatten() {
        let given = match value {
            Either3::A(number) => Given::Number(number),
            Either3::B(flag) => Given::Bool(flag),
            Either3::C(text) => Given::Text(text),
        };
        out.set(&name, given, TimeUnit::Millis).map_err(to_napi)?;
    }
    Ok(out)
}
