//! Calls that finish at once when they can. A core future is polled once
//! on the JS thread, inside the runtime, with the core's
//! [`tinystore::binding::poll_now`]: when it is ready (an embedded store's release or
//! renew usually is) its value is returned as it is, with no promise; else
//! the same future goes on on the JS thread (see [`crate::completion`]) and a
//! promise is returned. Nothing is dropped half done.

use crate::completion::later;
use napi::bindgen_prelude::{within_runtime_if_available, Either, PromiseRaw, ToNapiValue};
use napi::Env;
use std::future::Future;
use std::task::Poll;

/// Polls `fut` once; its value if ready, else a promise that it settles.
pub fn now_or_later<'env, T, F>(
    env: &'env Env,
    fut: F,
) -> napi::Result<Either<T, PromiseRaw<'env, T>>>
where
    T: 'static + Send + ToNapiValue,
    F: 'static + Send + Future<Output = napi::Result<T>>,
{
    let mut fut = Box::pin(fut);
    match within_runtime_if_available(|| tinystore::binding::poll_now(fut.as_mut())) {
        Poll::Ready(value) => Ok(Either::A(value?)),
        Poll::Pending => Ok(Either::B(later(env, fut)?)),
    }
}
