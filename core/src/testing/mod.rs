//! The test kit: a store whose time the test controls, so that a test of
//! the user's own code can make a holder's lease run out on purpose, with
//! no sleep, and check that the late holder's write is refused.
//!
//! ```
//! # tokio::runtime::Runtime::new().unwrap().block_on(async {
//! use std::time::Duration;
//! use tinystore::testing::TestStore;
//!
//! let kit = TestStore::new().await?;
//! let jobs = kit.locks("jobs");
//! let a = jobs.acquire("report").await?;
//! kit.expire(&a).await?; // as if A paused past its TTL
//! assert!(a.lost_reason().is_some());
//! let b = jobs.acquire("report").await?;
//! assert!(b.fence() > a.fence());
//! kit.advance(Duration::from_secs(60)).await?; // B ran out too
//! assert!(!b.is_held());
//! # Ok::<(), tinystore::Error>(())
//! # }).unwrap();
//! ```
//!
//! The controls work only on a store the kit made ([`TestStore`]), on one
//! opened with [`StoreOptions::testing`](crate::StoreOptions::testing), or
//! on a server started with `tinystore serve --testing`; every other store
//! refuses them with `invalid`, so a store that does real work cannot be
//! expired by accident. `status` reports a test store (`testing`), and a
//! served one's metrics say `tinystore_testing 1`.

pub mod blocking;
mod controls;
mod expirable;
mod test_store;

pub use controls::{advance, expire, expire_key};
pub use expirable::Expirable;
#[doc(hidden)]
pub use expirable::Expiring;
pub use test_store::TestStore;
