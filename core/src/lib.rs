//! tinystore: a lock service whose every exclusive lease carries a fence, a
//! 128-bit number larger than every earlier lease's, so that a holder that
//! paused past its lease can do no harm.
//!
//! A tour of the crate:
//!
//! - [`Store`] opens a store directory ([`disk`] keeps its `LOCK`, `kv.db`
//!   and epoch) and gives [`Locks`] and [`Semaphore`] groups.
//! - [`Lease`] (with a [`Fence`]) and [`Permit`] (without) are what holding
//!   a key gives; dropping one releases it.
//! - The lock engine ([`engine`]) keeps holders, lines and TTLs in memory.
//! - [`blocking`] is the same API for code that is not async.
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

mod backend;
pub mod blocking;
pub mod client;
pub mod clock;
pub mod disk;
mod embedded;
pub mod engine;
mod error;
#[cfg(feature = "etcd")]
pub mod etcd;
mod fence;
mod group;
mod lease;
mod locks;
mod lost;
mod names;
mod options;
mod semaphore;
pub mod server;
mod status;
mod store;
pub mod wire;

pub use client::{Address, ConnectOptions};
pub use clock::{Clock, ManualClock, OffsetClock, SystemClock};
pub use error::{Code, Error, Result};
pub use fence::{Fence, TEXT_DIGITS};
pub use group::MAX_LIMIT;
pub use lease::{Lease, Permit};
pub use locks::Locks;
pub use lost::OnLost;
pub use names::{check_key, check_name, Key, MAX_KEY_BYTES, MAX_NAME_BYTES};
pub use options::{check_ttl, Options, DEFAULT_TTL, MAX_TTL, MIN_TTL};
pub use semaphore::Semaphore;
pub use status::{HeldStatus, Status, WaitingStatus};
pub use store::{restore, Store, StoreOptions};
