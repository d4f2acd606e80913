//! A wake-up that an event loop waits on as a file descriptor: threads
//! that have news call [`Wakeup::wake`], the loop sees [`Wakeup::fd`]
//! readable (asyncio's `add_reader`, Go's netpoller), calls
//! [`Wakeup::clear`] and then looks at what the threads left for it.
//!
//! On Linux it is one eventfd. On other Unix systems, and on Linux through
//! [`Wakeup::pipe`] or with `TINYSTORE_WAKEUP=pipe` in the environment
//! ([`FORCE_VAR`]), it is a pipe: the same promises with two descriptors.
//! Elsewhere (Windows) [`Wakeup::new`] fails with
//! [`std::io::ErrorKind::Unsupported`]: no descriptor an event loop could
//! wait on is made there.
//!
//! Wakes that come before a `clear` count once: a loop that clears and
//! then takes everything queued for it misses none of them.
//!
//! What the threads leave is queued in [`Completions`], the one completion
//! queue of every binding: a push says whether it found the queue empty,
//! so that only the first of a burst wakes the loop.

mod completions;
#[cfg(unix)]
mod unix;

pub use completions::{Completions, Pushed};

#[cfg(unix)]
pub use unix::Wakeup;

#[cfg(not(unix))]
mod unsupported;

#[cfg(not(unix))]
pub use unsupported::Wakeup;

/// The environment variable that, set to `pipe`, makes [`Wakeup::new`]
/// give a pipe on Linux too.
pub const FORCE_VAR: &str = "TINYSTORE_WAKEUP";

/// Which kind of descriptor a [`Wakeup`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// One eventfd, read and written (Linux).
    Eventfd,
    /// A pipe: the loop reads its read end, wakes write its write end.
    Pipe,
}
