//! The one shutdown signal every listener and connection watches.

use tokio::sync::watch;

/// A view of the server's shutdown signal.
#[derive(Clone)]
pub(super) struct Shutdown {
    rx: watch::Receiver<bool>,
}

impl Shutdown {
    pub(super) fn new(rx: watch::Receiver<bool>) -> Shutdown {
        Shutdown { rx }
    }

    /// Resolves once shutdown began (at once if it already did).
    pub(super) async fn recv(&mut self) {
        let _ = self.rx.wait_for(|&down| down).await;
    }
}
