//! How a core error crosses to JS: a rejected promise or thrown `Error`
//! whose message is the core error as JSON, `{"code", "message"}` and for
//! `stale` `"stale": {"resource", "fence", "largest"}` (fences as decimal
//! text). The JS layer (lib/errors.js) reads it into the class for its
//! code; no JS code re-reads a message's words.

use napi::bindgen_prelude::Status;
use napi_derive::napi;
use std::fmt::Write;
use tinystore::binding::CodeNames;
use tinystore::Code;

/// The napi error for a core error.
pub fn to_napi(err: tinystore::Error) -> napi::Error {
    napi::Error::new(Status::GenericFailure, json(&err))
}

/// An `invalid` error about an argument, in the same form.
pub fn invalid(message: impl std::fmt::Display) -> napi::Error {
    to_napi(tinystore::Error::new(Code::Invalid, message.to_string()))
}

/// The core error as the JSON object lib/errors.js reads.
pub fn json(err: &tinystore::Error) -> String {
    let mut out = format!(
        "{{\"tinystore\":1,\"code\":{},\"message\":{}",
        quoted(err.code().as_str()),
        quoted(err.message())
    );
    if let Some(stale) = err.stale_detail() {
        let _ = write!(
            out,
            ",\"stale\":{{\"resource\":{},\"fence\":\"{}\",\"largest\":\"{}\"}}",
            quoted(&stale.resource),
            stale.fence,
            stale.largest
        );
    }
    out.push('}');
    out
}

/// `text` as a JSON string.
fn quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// One code of the core's table.
#[napi(object)]
pub struct NativeCode {
    /// The code, as on the wire: `lease_lost`.
    pub code: String,
    /// The class of its errors: `LeaseLostError`.
    pub class_name: String,
}

/// The core's table of error codes, in its order, with each one's class.
#[napi]
pub fn error_codes() -> Vec<NativeCode> {
    Code::ALL
        .into_iter()
        .map(|c| NativeCode {
            code: c.as_str().to_string(),
            class_name: c.node_class().to_string(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stale_error_carries_its_fences_as_text_and_strings_are_escaped() {
        let err = tinystore::Error::stale(tinystore::Stale {
            resource: "a\"b\n".into(),
            fence: 5,
            largest: u128::MAX,
        });
        let text = json(&err);
        assert!(
            text.starts_with("{\"tinystore\":1,\"code\":\"stale\",\"message\":\""),
            "{text}"
        );
        assert!(
            text.ends_with(&format!(
                ",\"stale\":{{\"resource\":\"a\\\"b\\u000a\",\"fence\":\"5\",\"largest\":\"{}\"}}}}",
                u128::MAX
            )),
            "{text}"
        );
    }
}
