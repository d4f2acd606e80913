//! `errorThrow`: the addon throws any core error on request, as its calls
//! fail with one, so that the JS layer's reading of errors is tested
//! against the real thing. Its own file: it builds a `stale` error from
//! the guard's `NativeStale`, and error.rs, which guard.rs and fence.rs
//! use, must not use them back.

use crate::error::to_napi;
use crate::fence::to_fence;
use crate::guard::NativeStale;
use napi_derive::napi;
use tinystore::Code;

/// Throws the core error of `code` with `message`, as any call of the
/// addon fails with one: with `stale` given, the core's `stale` error for
/// it (its own message); an unknown code throws `invalid`.
#[napi]
pub fn error_throw(code: String, message: String, stale: Option<NativeStale>) -> napi::Result<()> {
    let err = match (Code::parse(&code), stale) {
        (Some(Code::Stale), Some(s)) => tinystore::Error::stale(tinystore::Stale {
            resource: s.resource,
            fence: to_fence(&s.fence)?.get(),
            largest: to_fence(&s.largest)?.get(),
        }),
        (Some(code), _) => tinystore::Error::new(code, message),
        (None, _) => tinystore::Error::new(
            Code::Invalid,
            format!("{code:?} is no error code of tinystore"),
        ),
    };
    Err(to_napi(err))
}
