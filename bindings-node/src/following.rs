//! What `NativeObserver` and `NativeWatcher` share: the next item of the
//! core's `Following<T>` (an election's `Observing`, a group's
//! `Watching`), at once when it is there, else as a promise. Only the
//! conversion of an item differs between them.

use crate::error::to_napi;
use crate::now::now_or_later;
use napi::bindgen_prelude::{Either, PromiseRaw, ToNapiValue};
use napi::Env;

/// The next item of `following` as `made` gives it to JS: `made(Some(item))`
/// for an item, `made(None)` once it ended; fails once with why it ended.
pub fn next_of<'env, T, N>(
    env: &'env Env,
    following: &tinystore::binding::Following<T>,
    made: fn(Option<T>) -> N,
) -> napi::Result<Either<N, PromiseRaw<'env, N>>>
where
    T: Send + 'static,
    N: Send + 'static + ToNapiValue,
{
    let following = following.clone();
    now_or_later(env, async move {
        let item = following.next().await.transpose().map_err(to_napi)?;
        Ok(made(item))
    })
}
