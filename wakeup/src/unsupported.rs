//! Where there is no Unix descriptor to wait on (Windows): no wake-up.
//!
//! The choice for Windows, not built yet: a connected pair of loopback
//! sockets (what asyncio's own self-pipe is there), which Go's netpoller
//! and a selector event loop can wait on; asyncio's default proactor loop
//! waits on no descriptor, so there the Python binding would hand its
//! futures' ends to the loop with `call_soon_threadsafe` instead.

use crate::Kind;
use std::io;

/// Never made on this platform: [`Wakeup::new`] fails with
/// [`io::ErrorKind::Unsupported`].
#[derive(Debug)]
pub struct Wakeup {
    _never: std::convert::Infallible,
}

impl Wakeup {
    /// Fails: no descriptor an event loop waits on exists here.
    pub fn new() -> io::Result<Wakeup> {
        Err(io::Error::new(
            io::ErrorKind::Unsupported,
            format!(
                "waking an event loop through a file descriptor is not supported on {}; \
                 it needs a Unix system",
                std::env::consts::OS
            ),
        ))
    }

    /// Fails as [`Wakeup::new`] does.
    pub fn pipe() -> io::Result<Wakeup> {
        Wakeup::new()
    }

    /// Never called: no wake-up exists.
    pub fn kind(&self) -> Kind {
        match self._never {}
    }

    /// Never called: no wake-up exists (the type is the one a Unix
    /// descriptor has, so that callers build alike).
    pub fn fd(&self) -> i32 {
        match self._never {}
    }

    /// Never called: no wake-up exists.
    pub fn wake(&self) {
        match self._never {}
    }

    /// Never called: no wake-up exists.
    pub fn clear(&self) {
        match self._never {}
    }
}
