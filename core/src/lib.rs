//! tinystore: a lock service whose every exclusive lease carries a fence, a
//! 128-bit number larger than every earlier lease's, so that a holder that
//! paused past its lease can do no harm.
//!
//! A tour of the crate:
//!
//! - [`Store`] opens a store directory (its `LOCK`, `kv.db` and epoch) or
//!   connects to a server or etcd, and gives its groups: [`Locks`]
//!   (exclusive, each lease with a fence), [`Semaphore`] (up to a limit of
//!   holders per key), [`RwLocks`] (shared readers, one writer with a
//!   fence) and elections ([`Election`]: campaign for a [`Leadership`], or
//!   observe the [`Leader`]).
//! - [`Lease`] (with a [`Fence`]) and [`Permit`] (without) are what holding
//!   a key gives; dropping one releases it. A lease carries its holder's
//!   data (default this process's `HOST:PID`, [`Options::data`]), shown by
//!   [`Store::status`] and to watchers.
//! - [`Watch`]: a key's or a whole group's grants, ends and queues, pushed
//!   as [`WatchEvent`]s as they happen (`Locks::watch`, `watch_all`).
//! - [`blocking`] is the same API for code that is not async.
//! - [`guard`] is the other half of a fence: the comparison where the
//!   write lands, refusing a late holder with `stale`: a SQL transaction on
//!   SQLite, PostgreSQL or MySQL; one Redis script; one DynamoDB
//!   transaction; object storage (one object per fence in S3; a put on GCS
//!   or Azure conditional on the version read); a request over HTTP with
//!   its fence in a header. Each guard's protocol is a state machine that
//!   does no I/O, which every binding drives on its users' own clients.
//! - [`testing`] is the test kit: a store whose time a test controls, to
//!   make a holder's lease run out on purpose (`expire`, `advance`) and
//!   check that its late write is refused; it works only on stores made for
//!   tests.
//! - [`server`] serves a store to other processes; [`store_dir`] reads and
//!   copies a store directory nobody serves.
//! - docs/architecture.md draws the layers inside: the vocabulary, the lock
//!   engine, the disk, the wire, the server and the client. Every request
//!   is checked once, where it is made, whichever way it came in.
//! - What the bindings build on and a Rust program does not need (an
//!   acquire given up from another thread, a hold's end, options by name,
//!   the error codes' names per language) is in the module `binding`,
//!   hidden from these docs.
//!
//! ```
//! # fn main() -> Result<(), tinystore::Error> {
//! # let dir = tempfile::tempdir().unwrap();
//! let store = tinystore::blocking::Store::open(dir.path())?;
//! let summaries = store.locks("summaries");
//! summaries.hold(42, |lease| -> Result<(), tinystore::Error> {
//!     println!("fence {:040}", lease.fence().get());
//!     Ok(())
//! })?;
//! # Ok(()) }
//! ```

#![warn(unreachable_pub, missing_docs)]

mod acquiring;
mod backend;
#[doc(hidden)] // the bindings' plumbing, not the user's surface
pub mod binding;
pub mod blocking;
mod client;
pub mod clock;
mod disk;
mod election;
mod embedded;
mod engine;
mod error;
#[cfg(feature = "etcd")]
pub mod etcd;
mod fence;
mod following;
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod fuzzing;
mod group;
pub mod guard;
mod hold;
mod lease;
mod lease_data;
mod locks;
mod names;
mod on_lost;
mod options;
mod options_given;
mod os;
#[cfg(feature = "otel")]
mod otel;
mod poll;
mod rw_locks;
mod semaphore;
pub mod server;
mod several;
mod starting;
mod status;
mod store;
pub mod store_dir;
mod store_options;
pub mod testing;
mod tls;
mod vocab;
mod watch;
mod wire;

pub use client::{Address, ConnectOptions, TlsTarget};
pub use clock::{Clock, ManualClock, OffsetClock, SystemClock};
pub use election::{Election, Leader, Leadership, Observer, OBSERVE_BUFFER};
pub use error::{Cause, Code, Error, Result, Stale};
pub use fence::Fence;
pub use lease::{Lease, Permit};
pub use lease_data::{default_data, MAX_DATA_BYTES};
pub use locks::Locks;
pub use names::{Key, MAX_KEY_BYTES, MAX_NAME_BYTES, MAX_VALUE_BYTES};
pub use on_lost::OnLost;
pub use options::{
    Options, DEFAULT_MAX_HOLD, DEFAULT_RENEW, DEFAULT_TTL, DEFAULT_WAIT, MAX_MAX_HOLD, MAX_TTL,
    MAX_WAIT, MIN_MAX_HOLD, MIN_TTL,
};
pub use rw_locks::RwLocks;
pub use semaphore::Semaphore;
pub use several::MAX_KEYS_AT_ONCE;
pub use status::{
    HeldStatus, RefusedStatus, Status, StatusPage, WaitingStatus, DEFAULT_STATUS_LIMIT,
    LONGEST_WAITS, MAX_STATUS_LIMIT,
};
pub use store::{restore, Store};
pub use store_options::StoreOptions;
pub use vocab::MAX_LIMIT;
pub use watch::{Watch, WatchEvent, WATCH_BUFFER};
