//! Watching a key or a whole group: [`Watch`], a stream of [`WatchEvent`]s
//! (a grant with its fence and the holder's data, a release, a loss with
//! its cause, a queue's new length), from `Locks::watch`, `watch_all` and
//! their kin on `Semaphore` and `RwLocks`.
//!
//! The policy for a slow watcher: events wait for it in a buffer of
//! [`WATCH_BUFFER`]. One that falls further behind is never allowed to slow
//! the store or anyone else: the events it had no room for are dropped, and
//! it is told how many with one [`WatchEvent::Lagged`] where they would
//! have been, then goes on with the events of now. A watch starts from the
//! moment it is made (`status` tells what is held then) and ends with an
//! error: `closed` when the store closes, `unavailable` when what brought
//! its events broke (a connection to a server, an etcd watch).

mod buffer;
mod event;
mod stream;
mod watching;

pub(crate) use buffer::{buffer, buffer_of, buffer_pausing, Buffered, Pushed, Sink};
pub use event::WatchEvent;
pub use stream::{Watch, WATCH_BUFFER};
pub use watching::Watching;
