//! The one tokio runtime the core's futures run on, started at first use.

use crate::error::{Failure, Outcome, TsCode};
use std::future::Future;
use std::sync::OnceLock;
use std::task::Poll;
use tokio::runtime::Runtime;

static RUNTIME: OnceLock<std::io::Result<Runtime>> = OnceLock::new();

/// The runtime, started at the first call: two worker threads, which
/// never take SIGPIPE.
pub fn runtime() -> Outcome<&'static Runtime> {
    let rt = RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("tinystore-capi")
            .on_thread_start(block_sigpipe)
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

/// Blocks SIGPIPE on the calling thread, so that a write to a pipe or
/// socket whose reader went away fails with EPIPE instead of killing the
/// host. Go leaves SIGPIPE at its default action, and on a thread Go did
/// not make (as the runtime's are) that action is to exit the process.
fn block_sigpipe() {
    // SAFETY: changes only this thread's signal mask, through a set this
    // function owns.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGPIPE);
        libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
    }
}

/// Runs `future` to its end on the runtime, blocking this (non-runtime)
/// thread. It is polled once on this thread first, so that a future that
/// is ready at once (most calls on an embedded store) costs no park.
pub fn block_on<F: Future>(future: F) -> Outcome<F::Output> {
    let rt = runtime()?;
    let mut future = std::pin::pin!(future);
    let polled = {
        let _entered = rt.enter();
        tinystore::binding::poll_now(future.as_mut())
    };
    match polled {
        Poll::Ready(output) => Ok(output),
        Poll::Pending => Ok(rt.block_on(future)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    /// Run in a child process (SIGPIPE at its default action kills the
    /// whole process): writes on a runtime thread to a pipe whose reading
    /// end is closed, and prints how the write ended.
    #[test]
    fn child_writes_to_a_closed_pipe_on_a_runtime_thread() {
        if std::env::var("TINYSTORE_SIGPIPE_CHILD").is_err() {
            return;
        }
        let mut ends = [0; 2];
        // SAFETY: the child's own signal disposition and a pipe it owns.
        unsafe {
            libc::signal(libc::SIGPIPE, libc::SIG_DFL);
            assert_eq!(libc::pipe(ends.as_mut_ptr()), 0);
            libc::close(ends[0]);
        }
        let Ok(rt) = runtime() else {
            panic!("the runtime did not start")
        };
        let written = rt
            .block_on(rt.spawn(async move {
                // SAFETY: writes one byte from a live buffer to a pipe fd.
                let n = unsafe { libc::write(ends[1], b"x".as_ptr().cast(), 1) };
                (n, std::io::Error::last_os_error().kind())
            }))
            .unwrap();
        println!("CHILD-WROTE {written:?}");
    }

    #[test]
    fn a_write_to_a_closed_pipe_on_a_runtime_thread_is_an_error_not_a_signal() {
        let out = Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "runtime::tests::child_writes_to_a_closed_pipe_on_a_runtime_thread",
                "--nocapture",
            ])
            .env("TINYSTORE_SIGPIPE_CHILD", "1")
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "the child died: {:?}\n{stdout}",
            out.status
        );
        assert!(stdout.contains("CHILD-WROTE (-1, BrokenPipe)"), "{stdout}");
    }
}
