//! `NativeWatcher`: a group's watch (the core's `Watching`), each event a
//! plain object with the fields of its kind (lib/watch.js freezes it into
//! the `WatchEvent` union). What an event means and when it comes are the
//! core's.

use crate::following::next_of;
use napi::bindgen_prelude::{within_runtime_if_available, BigInt, Either, PromiseRaw};
use napi::Env;
use napi_derive::napi;

/// One event: `kind` is `granted` (`key`, `fence`, `data`), `released`
/// (`key`, `fence`), `lost` (`key`, `fence`, `cause`), `queue` (`key`,
/// `length`) or `lagged` (`missed`); the fields a kind has not are absent.
#[napi(object)]
pub struct NativeWatchEvent {
    pub kind: String,
    pub key: Option<String>,
    pub fence: Option<BigInt>,
    pub data: Option<String>,
    pub cause: Option<String>,
    pub length: Option<f64>,
    pub missed: Option<f64>,
}

/// What a watcher's `next` gives: `done` once it ended, else `event`.
#[napi(object)]
pub struct NativeWatchNext {
    pub done: bool,
    pub event: Option<NativeWatchEvent>,
}

fn native_event(event: tinystore::WatchEvent) -> NativeWatchEvent {
    use tinystore::WatchEvent as E;
    let mut out = NativeWatchEvent {
        kind: event.kind().to_string(),
        key: event.key().map(str::to_owned),
        fence: None,
        data: None,
        cause: None,
        length: None,
        missed: None,
    };
    let fence = |f: Option<tinystore::Fence>| f.map(|f| BigInt::from(f.get()));
    match event {
        E::Granted { fence: f, data, .. } => {
            out.fence = fence(f);
            out.data = data;
        }
        E::Released { fence: f, .. } => out.fence = fence(f),
        E::Lost {
            fence: f, cause, ..
        } => {
            out.fence = fence(f);
            out.cause = Some(cause);
        }
        E::Queue { length, .. } => out.length = Some(length as f64),
        E::Lagged { missed } => out.missed = Some(missed as f64),
        _ => {}
    }
    out
}

fn watch_next(event: Option<tinystore::WatchEvent>) -> NativeWatchNext {
    NativeWatchNext {
        done: event.is_none(),
        event: event.map(native_event),
    }
}

/// The events of a watched key or group, in the store's order.
#[napi]
pub struct NativeWatcher {
    inner: tinystore::binding::Watching,
}

impl NativeWatcher {
    /// Starts it with `start` inside the runtime, so an embedded store's
    /// watch is subscribed on return.
    pub fn start(start: impl FnOnce() -> tinystore::binding::Watching) -> NativeWatcher {
        NativeWatcher {
            inner: within_runtime_if_available(start),
        }
    }
}

#[napi]
impl NativeWatcher {
    /// The next event: at once when it is there, else as a promise; `done`
    /// once it ended. Fails once with why it ended (`closed`,
    /// `unavailable`, `invalid` for a bad key).
    #[napi]
    pub fn next<'env>(
        &self,
        env: &'env Env,
    ) -> napi::Result<Either<NativeWatchNext, PromiseRaw<'env, NativeWatchNext>>> {
        next_of(env, &self.inner, watch_next)
    }

    /// Stops watching: a `next` under way and every later one give `done`.
    /// Idempotent.
    #[napi]
    pub fn close(&self) {
        self.inner.close()
    }
}
