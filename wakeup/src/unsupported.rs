//! Where there is no Unix descriptor to wait on (Windows): no wake-up.

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
            "waking an event loop through a file descriptor needs a Unix system",
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

    /// Never called: no wake-up exists.
    pub fn wake(&self) {
        match self._never {}
    }

    /// Never called: no wake-up exists.
    pub fn clear(&self) {
        match self._never {}
    }
}
