//! Calls that finish at once when they can. A core future is polled once
//! on the JS thread, inside the runtime: when it is ready (an embedded
//! store's grant or release usually is) its value is returned as it is, with
//! no hop through a thread and a promise; else the same future goes on in
//! the runtime and a promise is returned. Nothing is dropped half done.

use napi::bindgen_prelude::{within_runtime_if_available, Either, PromiseRaw, ToNapiValue};
use napi::Env;
use std::future::Future;
use std::task::{Context, Poll, Waker};

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
    let polled = within_runtime_if_available(|| {
        // The runtime polls it again at once if it is pending, which
        // registers a real waker in place of this one.
        fut.as_mut().poll(&mut Context::from_waker(Waker::noop()))
    });
    match polled {
        Poll::Ready(value) => Ok(Either::A(value?)),
        Poll::Pending => Ok(Either::B(env.spawn_future(fut)?)),
    }
}
