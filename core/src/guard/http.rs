//! Fences carried over HTTP: a request carries its fence in the header
//! [`FENCE_HEADER`] (a decimal); a service that refuses it as `stale`
//! answers [`CONFLICT`] with the largest recorded fence in
//! [`LARGEST_HEADER`], and a malformed header [`BAD_REQUEST`] with the
//! parser's message. The check itself is a guard inside the handler's own
//! transaction: a check made before the handler runs would let a request
//! that pauses in between through.

use crate::error::{Code, Error, Result};
use crate::fence::Fence;

/// The request header that carries a fence, as a decimal.
pub const FENCE_HEADER: &str = "Tinystore-Fence";
/// The response header that carries the largest recorded fence of a
/// `409 Conflict`.
pub const LARGEST_HEADER: &str = "Tinystore-Fence-Largest";
/// The status of a request whose fence a guard refused (`stale`).
pub const CONFLICT: u16 = 409;
/// The status of a request whose fence header is malformed.
pub const BAD_REQUEST: u16 = 400;

/// Reads a request's fence header: `None` when it is missing; the fence
/// when it is a decimal of ASCII digits up to 2^128-1; otherwise `invalid`
/// naming the header and what is wrong (a sign, spaces, hex, 2^128 ...).
/// A header sent twice is given here joined by commas, and is invalid.
pub fn parse_fence_header(value: Option<&str>) -> Result<Option<Fence>> {
    let Some(value) = value else { return Ok(None) };
    Fence::parse(value)
        .map(Some)
        .map_err(|e| Error::invalid(format!("header {FENCE_HEADER}: {}", e.message())))
}

/// The header value that carries `fence`: its decimal.
pub fn fence_header_value(fence: Fence) -> String {
    fence.to_string()
}

/// The status a service answers for an error of the guard or of the
/// header: 409 for `stale`, 400 for `invalid`, `None` for any other (the
/// service's own choice, usually 500).
pub fn status_of(err: &Error) -> Option<u16> {
    match err.code() {
        Code::Stale => Some(CONFLICT),
        Code::Invalid => Some(BAD_REQUEST),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_header_is_none_and_a_decimal_a_fence() {
        assert_eq!(parse_fence_header(None).unwrap(), None);
        assert_eq!(
            parse_fence_header(Some("0042")).unwrap(),
            Some(Fence::from_u128(42))
        );
        assert_eq!(fence_header_value(Fence::from_u128(42)), "42");
    }

    #[test]
    fn a_malformed_header_is_invalid_naming_the_header() {
        let two_128 = "340282366920938463463374607431768211456";
        for bad in ["", "+5", "-5", " 5", "5 ", "0x1f", "1f", two_128, "5,6"] {
            let err = parse_fence_header(Some(bad)).unwrap_err();
            assert_eq!(err.code(), Code::Invalid, "{bad:?}");
            assert!(
                err.message().starts_with("header Tinystore-Fence: "),
                "{err}"
            );
            assert_eq!(status_of(&err), Some(BAD_REQUEST));
        }
    }
}
