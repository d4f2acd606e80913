//! What an accept loop does when `accept` fails (most often: the process
//! ran out of file descriptors): it logs the failure and waits longer each
//! time before it tries again, so that it neither spins nor fails silently.

use std::io;
use std::time::Duration;

/// The wait after the first failed accept in a row.
pub(super) const FIRST_RETRY: Duration = Duration::from_millis(10);

/// The longest wait between two tries.
pub(super) const LONGEST_RETRY: Duration = Duration::from_secs(1);

/// The failed accepts of one listener since its last successful one.
pub(super) struct AcceptErrors {
    /// `unix`, `tcp` or `tls`, as the logs name the listener.
    listener: &'static str,
    /// How many accepts failed in a row.
    failed: u64,
    /// The wait before the next try.
    retry_in: Duration,
    /// The kinds of failure logged since the last successful accept: each
    /// is logged once, however often it recurs.
    logged: Vec<(Option<i32>, io::ErrorKind)>,
}

impl AcceptErrors {
    /// No failure yet, on the listener the logs call `listener`.
    pub(super) fn new(listener: &'static str) -> AcceptErrors {
        AcceptErrors {
            listener,
            failed: 0,
            retry_in: FIRST_RETRY,
            logged: Vec::new(),
        }
    }

    /// An accept succeeded: logs the recovery if accepts had failed, and
    /// the next failure waits [`FIRST_RETRY`] again.
    pub(super) fn accepted(&mut self) {
        if self.failed > 0 {
            tracing::info!(
                listener = self.listener,
                failed = self.failed,
                "accepting connections again"
            );
        }
        self.failed = 0;
        self.retry_in = FIRST_RETRY;
        self.logged.clear();
    }

    /// An accept failed with `err`: logs it (once per kind until an accept
    /// succeeds), then waits before the next try, twice as long as the
    /// last time, at most [`LONGEST_RETRY`].
    pub(super) async fn failed(&mut self, err: &io::Error) {
        self.failed += 1;
        let kind = (err.raw_os_error(), err.kind());
        let wait = self.retry_in;
        if !self.logged.contains(&kind) {
            self.logged.push(kind);
            tracing::warn!(
                listener = self.listener,
                error = %err,
                retry_in = ?wait,
                "cannot accept a connection; retrying, waiting longer each time"
            );
        }
        self.retry_in = (wait * 2).min(LONGEST_RETRY);
        tokio::time::sleep(wait).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn waits_double_up_to_the_longest_and_start_again_after_a_success() {
        let mut errors = AcceptErrors::new("unix");
        let err = io::Error::from_raw_os_error(libc::EMFILE);
        let mut waits = Vec::new();
        for _ in 0..9 {
            let started = tokio::time::Instant::now();
            errors.failed(&err).await;
            waits.push(started.elapsed().as_millis());
        }
        assert_eq!(waits, [10, 20, 40, 80, 160, 320, 640, 1000, 1000]);
        assert_eq!(errors.logged.len(), 1, "one kind, logged once");
        errors.accepted();
        let started = tokio::time::Instant::now();
        errors.failed(&err).await;
        assert_eq!(started.elapsed(), FIRST_RETRY);
        assert_eq!(errors.failed, 1);
    }
}
