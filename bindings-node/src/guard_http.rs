//! Fences over HTTP for lib/http.js: the header's names, the core's parser,
//! the statuses of the guard's errors and the reading of a service's answer
//! (`tinystore::guard::http`).

use crate::fence::to_fence;
use crate::guard::{error_value, NativeError};
use napi::bindgen_prelude::BigInt;
use napi_derive::napi;
use tinystore::guard;

/// Fences over HTTP: the header names and statuses, from the core
/// (`tinystore::guard::http`).
#[napi(object)]
pub struct NativeHttpGuardConstants {
    /// The request header that carries a fence: `Tinystore-Fence`.
    pub fence_header: String,
    /// The 409's header with the largest fence: `Tinystore-Fence-Largest`.
    pub largest_header: String,
    /// The status of a stale request: 409.
    pub conflict: u16,
    /// The status of a malformed fence header: 400.
    pub bad_request: u16,
}

/// The HTTP helpers' header names and statuses.
#[napi]
pub fn guard_http_constants() -> NativeHttpGuardConstants {
    use tinystore::guard::http::{BAD_REQUEST, CONFLICT, FENCE_HEADER, LARGEST_HEADER};
    NativeHttpGuardConstants {
        fence_header: FENCE_HEADER.to_string(),
        largest_header: LARGEST_HEADER.to_string(),
        conflict: CONFLICT,
        bad_request: BAD_REQUEST,
    }
}

/// A request's fence header as read: `error` when malformed, else the
/// fence (`null`: no header).
#[napi(object)]
pub struct NativeFenceHeader {
    pub error: Option<NativeError>,
    pub fence: Option<BigInt>,
}

/// Reads a request's fence header (`null`: missing) with the core's parser.
#[napi]
pub fn guard_http_parse(value: Option<String>) -> NativeFenceHeader {
    match guard::http::parse_fence_header(value.as_deref()) {
        Ok(fence) => NativeFenceHeader {
            error: None,
            fence: fence.map(|f| BigInt::from(f.get())),
        },
        Err(err) => NativeFenceHeader {
            error: Some(error_value(&err)),
            fence: None,
        },
    }
}

/// The header value that carries `fence`.
#[napi]
pub fn guard_http_value(fence: BigInt) -> napi::Result<String> {
    Ok(guard::http::fence_header_value(to_fence(&fence)?))
}

/// The status a service answers for an error of code `code` (409 for
/// `stale`, 400 for `invalid`), or `null` for any other.
#[napi]
pub fn guard_http_status(code: String) -> Option<u16> {
    let code = tinystore::Code::parse(&code)?;
    guard::http::status_of(&tinystore::Error::new(code, String::new()))
}

/// Reads the answer to a request that carried `fence`, as a guard's check
/// on `resource` seen from the client (the core's `read_answer`): its
/// status and its `Tinystore-Fence-Largest` header (`null`: absent; sent
/// twice, joined by commas). `null` when accepted; else the `stale` error
/// (a guard in the service refused the write) or the `io` error saying
/// what the answer was.
#[napi]
pub fn guard_http_read_answer(
    status: u32,
    largest: Option<String>,
    resource: String,
    fence: BigInt,
) -> napi::Result<Option<NativeError>> {
    let status = u16::try_from(status).unwrap_or(u16::MAX);
    let read = guard::http::read_answer(status, largest.as_deref(), &resource, to_fence(&fence)?);
    Ok(read.err().map(|err| error_value(&err)))
}
