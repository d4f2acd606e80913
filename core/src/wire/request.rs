//! Requests: what a client sends. Each is a JSON object with `op`, and
//! (after `hello`) an `id` the reply echoes.

use super::frame::{Op, RequestFrame};
use crate::error::Error;
use serde::Deserialize;

/// Decodes one line into a request. On failure it gives the `invalid` error
/// naming what was wrong, with the request's `id` when one could be read, so
/// the reply can echo it.
pub fn decode_request(line: &[u8]) -> std::result::Result<RequestFrame, (Option<u64>, Error)> {
    match super::quick::decode(line) {
        Some(frame) => Ok(frame),
        None => decode_carefully(line),
    }
}

/// [`decode_request`] through `serde_json::Value`, field by field, so that
/// a bad frame's error names what is wrong. Takes every frame the quick path
/// takes, to the same request.
pub(super) fn decode_carefully(
    line: &[u8],
) -> std::result::Result<RequestFrame, (Option<u64>, Error)> {
    let value: serde_json::Value = serde_json::from_slice(line)
        .map_err(|e| (None, Error::invalid(format!("the frame is not JSON: {e}"))))?;
    let serde_json::Value::Object(mut map) = value else {
        return Err((
            None,
            Error::invalid(format!(
                "the frame must be a JSON object, not {}",
                kind(&value)
            )),
        ));
    };
    if let Some(twice) = repeated_field(line) {
        return Err((
            None,
            Error::invalid(format!(
                "the field {twice:?} is given twice; each field may appear once"
            )),
        ));
    }
    let id = match map.remove("id") {
        None => None,
        Some(v) => match v.as_u64() {
            Some(id) => Some(id),
            None => {
                return Err((
                    None,
                    Error::invalid(format!(
                        "\"id\" must be an integer from 0 to 2^64-1, not {v}"
                    )),
                ))
            }
        },
    };
    if let Some(err) = map
        .iter()
        .find_map(|(field, value)| check_field(field, value))
    {
        return Err((id, err));
    }
    let op = match map.get("op") {
        None => return Err((id, Error::invalid("the frame has no \"op\""))),
        Some(serde_json::Value::String(_)) => serde_json::from_value::<Op>(map.into()),
        Some(other) => {
            return Err((
                id,
                Error::invalid(format!("\"op\" must be a string, not {other}")),
            ))
        }
    };
    match op {
        Ok(op) => Ok(RequestFrame { id, op }),
        Err(e) => Err((id, Error::invalid(format!("bad request: {e}")))),
    }
}

/// The first field name given twice in the JSON object on `line`, if any
/// (a JSON parser would otherwise keep the last silently).
fn repeated_field(line: &[u8]) -> Option<String> {
    struct Repeated(Option<String>);
    impl<'de> Deserialize<'de> for Repeated {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Repeated, D::Error> {
            struct Fields;
            impl<'de> serde::de::Visitor<'de> for Fields {
                type Value = Repeated;
                fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                    f.write_str("a JSON object")
                }
                fn visit_map<A: serde::de::MapAccess<'de>>(
                    self,
                    mut map: A,
                ) -> Result<Repeated, A::Error> {
                    let mut seen = std::collections::HashSet::new();
                    let mut repeated = None;
                    while let Some(field) = map.next_key::<String>()? {
                        map.next_value::<serde::de::IgnoredAny>()?;
                        if !seen.insert(field.clone()) && repeated.is_none() {
                            repeated = Some(field);
                        }
                    }
                    Ok(Repeated(repeated))
                }
            }
            d.deserialize_map(Fields)
        }
    }
    serde_json::from_slice::<Repeated>(line).ok()?.0
}

/// What each field of a request must be: its kind in words, and for a
/// whole number the largest it may be (beyond what its own check allows).
fn field_kind(field: &str) -> Option<(&'static str, Option<u64>)> {
    Some(match field {
        "name" | "lease" | "path" | "token" | "value" | "kind" | "resource" | "data" => {
            ("a string", None)
        }
        "key" => ("a string or an integer", None),
        "limit" => ("a whole number", Some(u64::from(u32::MAX))),
        "ttl_ms" => (
            "a whole number of milliseconds from 10 to 86400000 (10 ms to 24 h)",
            None,
        ),
        "wait_ms" => (
            "a whole number of milliseconds from 0 to 2592000000 (30 days)",
            None,
        ),
        "target" => (
            "the id of a waiting acquire or campaign or of an observe, a whole number",
            None,
        ),
        "offset" => ("a whole number", None),
        "watch" => ("the id of a watch, a whole number", None),
        "version" => ("a whole number", Some(u64::from(u32::MAX))),
        _ => return None,
    })
}

/// Whether `value` suits `field`; the `invalid` error naming the field if
/// not. `null` suits no field: a field is given with a value or left out.
fn check_field(field: &str, value: &serde_json::Value) -> Option<Error> {
    use serde_json::Value;
    let (what, max) = field_kind(field)?;
    let fits = match (field, value) {
        ("key", Value::String(_)) => true,
        ("key", Value::Number(n)) => n.is_i64() || n.is_u64(),
        (_, Value::String(_)) => what == "a string",
        (_, Value::Number(n)) => {
            what != "a string" && n.as_u64().is_some_and(|n| max.is_none_or(|max| n <= max))
        }
        _ => false,
    };
    if fits {
        return None;
    }
    let mut shown = value.to_string();
    if shown.len() > 40 {
        let cut = (0..=40)
            .rev()
            .find(|&i| shown.is_char_boundary(i))
            .unwrap_or(0);
        shown.truncate(cut);
        shown.push_str("...");
    }
    Some(Error::invalid(format!(
        "{field:?} must be {what}, not {shown}"
    )))
}

fn kind(value: &serde_json::Value) -> &'static str {
    match value {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object",
    }
}
