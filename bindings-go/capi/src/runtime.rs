//! The one tokio runtime the core's futures run on, started at first use.

use crate::error::{Failure, Outcome, TsCode};
use std::future::Future;
use std::sync::OnceLock;
use std::task::{Context, Poll, Waker};
use tokio::runtime::Runtime;

static RUNTIME: OnceLock<std::io::Result<Runtime>> = OnceLock::new();

/// The runtime, started at the first call: two worker threads.
pub fn runtime() -> Outcome<&'static Runtime> {
    let rt = RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("tinystore-capi")
            .enable_all()
            .build()
    });
    rt.as_ref().map_err(|e| {
        Failure::new(
            TsCode::Io,
            format!("cannot start the tinystore runtime: {e}"),
        )
    })
}

/// Runs `future` to its end on the runtime, blocking this (non-runtime)
/// thread. It is polled once on this thread first, so that a future that
/// is ready at once (most calls on an embedded store) costs no park.
pub fn block_on<F: Future>(future: F) -> Outcome<F::Output> {
    let rt = runtime()?;
    let mut future = std::pin::pin!(future);
    let polled = {
        let _entered = rt.enter();
        future
            .as_mut()
            .poll(&mut Context::from_waker(Waker::noop()))
    };
    match polled {
        Poll::Ready(output) => Ok(output),
        Poll::Pending => Ok(rt.block_on(future)),
    }
}
