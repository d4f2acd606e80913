//! Fences carried over HTTP: a request carries its fence in the header
//! [`FENCE_HEADER`] (a decimal); a service that refuses it as `stale`
//! answers [`CONFLICT`] with the largest recorded fence in
//! [`LARGEST_HEADER`], and a malformed header [`BAD_REQUEST`] with the
//! parser's message. The check itself is a guard inside the handler's own
//! transaction: a check made before the handler runs would let a request
//! that pauses in between through.

use crate::error::{Code, Error, Result, Stale};
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

/// What the answer to a request that carried `fence` says of its write to
/// `resource`, as a guard's check seen from the client, from the answer's
/// status and its [`LARGEST_HEADER`] (`None`: absent; a header sent twice
/// is given joined by commas): a [`CONFLICT`] carrying one fence there is
/// `stale` (a guard in the service refused the write; the error carries
/// the largest fence); a `409` without the header, or with one that is
/// not a fence, and any other status from 400 up are `io` saying so;
/// anything else is accepted. Every language's client reads its answers
/// with this.
pub fn read_answer(status: u16, largest: Option<&str>, resource: &str, fence: Fence) -> Result<()> {
    if status == CONFLICT {
        let Some(text) = largest else {
            return Err(Error::new(
                Code::Io,
                format!(
                    "the service answered {status} to the write to {resource:?} without the header \
                     {LARGEST_HEADER}: not a guard's refusal"
                ),
            ));
        };
        return match Fence::parse(text) {
            Ok(largest) => Err(Error::stale(Stale {
                resource: resource.to_string(),
                fence: fence.get(),
                largest: largest.get(),
            })),
            Err(e) => Err(Error::new(
                Code::Io,
                format!(
                    "the service answered {status} to the write to {resource:?} with a header \
                     {LARGEST_HEADER} that is not a fence: {}",
                    e.message()
                ),
            )),
        };
    }
    if status >= 400 {
        return Err(Error::new(
            Code::Io,
            format!("the service answered {status} to the write to {resource:?}"),
        ));
    }
    Ok(())
}

/// The `http` types and a tower layer (cargo feature `guard-http`).
#[cfg(feature = "guard-http")]
pub use self::layer::*;

#[cfg(feature = "guard-http")]
mod layer {
    use super::{
        fence_header_value, parse_fence_header, read_answer, FENCE_HEADER, LARGEST_HEADER,
    };
    use crate::error::{Code, Error, Result};
    use crate::fence::Fence;
    use crate::guard::Under;
    use http::header::{HeaderValue, CONTENT_TYPE};
    use http::{Request, Response, StatusCode};
    use std::future::Future;
    use std::pin::Pin;
    use std::task::{Context, Poll};

    /// The error type of [`FenceService`]: tower's usual boxed error.
    pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

    /// Sets `request`'s [`FENCE_HEADER`] to `fence` (a client helper),
    /// replacing one already there.
    pub fn attach<B>(request: &mut Request<B>, fence: Fence) {
        request
            .headers_mut()
            .insert(FENCE_HEADER, header_value(fence));
    }

    /// A request builder with `fence` in its [`FENCE_HEADER`].
    pub fn with_fence(builder: http::request::Builder, fence: Fence) -> http::request::Builder {
        builder.header(FENCE_HEADER, header_value(fence))
    }

    fn header_value(fence: Fence) -> HeaderValue {
        HeaderValue::from_str(&fence_header_value(fence)).expect("a decimal is a header value")
    }

    /// Reads `request`'s fence: `None` without the header; `invalid`
    /// naming the header when it is malformed or sent more than once.
    pub fn fence_of<B>(request: &Request<B>) -> Result<Option<Fence>> {
        let mut values = Vec::new();
        for value in request.headers().get_all(FENCE_HEADER) {
            let text = value
                .to_str()
                .map_err(|_| Error::invalid(format!("header {FENCE_HEADER}: not ASCII text")))?;
            values.push(text);
        }
        if values.is_empty() {
            return Ok(None);
        }
        parse_fence_header(Some(&values.join(", ")))
    }

    /// The `409 Conflict` answer to a `stale` error, the largest recorded
    /// fence in [`LARGEST_HEADER`] and the error's message as its body;
    /// `None` for any other error.
    pub fn stale_response<R: From<String>>(err: &Error) -> Option<Response<R>> {
        let stale = err.stale_detail()?;
        let largest = Fence::from_u128(stale.largest);
        let mut response = text_response(StatusCode::CONFLICT, err.message());
        response
            .headers_mut()
            .insert(LARGEST_HEADER, header_value(largest));
        Some(response)
    }

    /// Reads the answer to a request that carried the fence of `under`
    /// (a [`Fence`] or the lease itself), as a guard's check seen from the
    /// client, on `resource` (your name for what the request writes): a
    /// `409 Conflict` carrying [`LARGEST_HEADER`] is `stale` (a guard in
    /// the service refused the write), another 4xx or 5xx is `io` naming
    /// the status, anything else is accepted. Given the lease, a `stale`
    /// answer is also told to its store; with the feature `otel` the
    /// answer is a `tinystore.guard.check` span on the backend `http`
    /// ([`Under`]).
    pub fn answered<'a, B>(
        response: &Response<B>,
        resource: &str,
        under: impl Into<Under<'a>>,
    ) -> Result<()> {
        under
            .into()
            .check("http", resource, |fence| refusal(response, resource, fence))
    }

    fn refusal<B>(response: &Response<B>, resource: &str, fence: Fence) -> Result<()> {
        let values: Vec<_> = response
            .headers()
            .get_all(LARGEST_HEADER)
            .iter()
            .map(|value| String::from_utf8_lossy(value.as_bytes()))
            .collect();
        let largest = (!values.is_empty()).then(|| values.join(", "));
        read_answer(
            response.status().as_u16(),
            largest.as_deref(),
            resource,
            fence,
        )
    }

    /// The `400 Bad Request` answer to a malformed fence header, the
    /// parser's message as its body.
    pub fn bad_request<R: From<String>>(err: &Error) -> Response<R> {
        text_response(StatusCode::BAD_REQUEST, err.message())
    }

    fn text_response<R: From<String>>(status: StatusCode, text: &str) -> Response<R> {
        let mut response = Response::new(R::from(format!("{text}\n")));
        *response.status_mut() = status;
        response.headers_mut().insert(
            CONTENT_TYPE,
            HeaderValue::from_static("text/plain; charset=utf-8"),
        );
        response
    }

    /// A tower layer for a service: it reads each request's
    /// [`FENCE_HEADER`] into the request's extensions (a [`Fence`], absent
    /// when the header is), answers `400` on a malformed header without
    /// calling the service, and answers a `stale` [`Error`] the service
    /// fails with as `409 Conflict` ([`stale_response`]). The check itself
    /// is the handler's: a guard in the transaction that makes its write.
    #[derive(Debug, Clone, Copy, Default)]
    pub struct FenceLayer;

    impl<S> tower_layer::Layer<S> for FenceLayer {
        type Service = FenceService<S>;

        fn layer(&self, inner: S) -> FenceService<S> {
            FenceService { inner }
        }
    }

    /// The service [`FenceLayer`] makes. Its errors are the inner
    /// service's, boxed, but for a `stale` [`Error`], which is answered.
    #[derive(Debug, Clone)]
    pub struct FenceService<S> {
        inner: S,
    }

    impl<S, B, R> tower_service::Service<Request<B>> for FenceService<S>
    where
        S: tower_service::Service<Request<B>, Response = Response<R>>,
        S::Error: Into<BoxError>,
        S::Future: Send + 'static,
        R: From<String> + Send + 'static,
    {
        type Response = Response<R>;
        type Error = BoxError;
        type Future = Pin<Box<dyn Future<Output = Result<Response<R>, BoxError>> + Send>>;

        fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
            self.inner.poll_ready(cx).map_err(Into::into)
        }

        fn call(&mut self, mut request: Request<B>) -> Self::Future {
            match fence_of(&request) {
                Err(err) => return Box::pin(std::future::ready(Ok(bad_request(&err)))),
                Ok(Some(fence)) => {
                    request.extensions_mut().insert(fence);
                }
                Ok(None) => {}
            }
            let call = self.inner.call(request);
            Box::pin(async move {
                match call.await {
                    Ok(response) => Ok(response),
                    Err(err) => {
                        let err: BoxError = err.into();
                        match err.downcast_ref::<Error>() {
                            Some(e) if e.code() == Code::Stale => {
                                Ok(stale_response(e).expect("a stale error has its fences"))
                            }
                            _ => Err(err),
                        }
                    }
                }
            })
        }
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

    #[test]
    fn an_answer_is_accepted_stale_or_io() {
        let (resource, fence) = ("host/chats/1", Fence::from_u128(5));
        for status in [200, 201, 204, 302, 399] {
            assert!(
                read_answer(status, None, resource, fence).is_ok(),
                "{status}"
            );
            assert!(
                read_answer(status, Some("9"), resource, fence).is_ok(),
                "{status}"
            );
        }
        let err = read_answer(409, Some("0009"), resource, fence).unwrap_err();
        assert_eq!(err.code(), Code::Stale);
        let stale = err.stale_detail().unwrap();
        assert_eq!(
            (stale.resource.as_str(), stale.fence, stale.largest),
            (resource, 5, 9)
        );
        for status in [400, 404, 412, 500, 503] {
            let err = read_answer(status, Some("9"), resource, fence).unwrap_err();
            assert_eq!(err.code(), Code::Io);
            assert_eq!(
                err.message(),
                format!("the service answered {status} to the write to \"host/chats/1\"")
            );
        }
    }

    #[test]
    fn a_409_without_the_header_is_io_not_stale() {
        let err = read_answer(409, None, "chats/1", Fence::from_u128(5)).unwrap_err();
        assert_eq!(err.code(), Code::Io);
        assert_eq!(
            err.message(),
            "the service answered 409 to the write to \"chats/1\" without the header \
             Tinystore-Fence-Largest: not a guard's refusal"
        );
    }

    #[test]
    fn a_largest_header_that_is_not_a_fence_is_io_saying_so() {
        for bad in [
            "",
            "abc",
            "-9",
            " 9",
            "9, 10",
            "340282366920938463463374607431768211456",
        ] {
            let err = read_answer(409, Some(bad), "chats/1", Fence::from_u128(5)).unwrap_err();
            assert_eq!(err.code(), Code::Io, "{bad:?}");
            assert!(
                err.message().starts_with(
                    "the service answered 409 to the write to \"chats/1\" with a header \
                     Tinystore-Fence-Largest that is not a fence: fence text "
                ),
                "{err}"
            );
        }
    }
}
