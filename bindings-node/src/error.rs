//! How a core error crosses to JS: a rejected promise or thrown `Error`
//! whose message is `"<code>: <message>"`, the core's own `Display`, which
//! the JS layer turns into the `TinystoreError` subclass for the code.

/// The napi error for a core error.
pub fn to_napi(err: tinystore::Error) -> napi::Error {
    napi::Error::from_reason(err.to_string())
}

/// An `invalid` error about an argument, in the same form.
pub fn invalid(message: impl std::fmt::Display) -> napi::Error {
    to_napi(tinystore::Error::new(
        tinystore::Code::Invalid,
        message.to_string(),
    ))
}
