//! The kit's controls as functions of a test store (or a lease of one):
//! what `TestStore`'s methods and the bindings call.

use super::Expirable;
use crate::error::Result;
use crate::names::Key;
use crate::store::Store;
use std::time::Duration;

/// Moves the time of `store` forward `by` at once: every lease whose TTL
/// runs out within ends as a lease that ran out does (its holder's loss
/// signal fires, the next waiter is granted with a larger fence), renewing
/// ones too (nothing renewed them meanwhile). Waits keep the caller's
/// time. Refused with `invalid` unless `store` is a test store.
pub async fn advance(store: &Store, by: Duration) -> Result<()> {
    store.advance(by).await
}

/// Ends `held` (a lease, a permit or a leadership) as if its holder had
/// paused past its TTL: returns once its loss signal has fired; the next
/// waiter is granted with a larger fence. `lease_lost` if it was no longer
/// held; `invalid` unless its store is a test store.
pub async fn expire(held: &impl Expirable) -> Result<()> {
    held.expire_now().await
}

/// Ends, as [`expire`] does, every lease held on `key` of the groups called
/// `name` (its lock group, semaphore and read-write locks; not an
/// election's); returns how many. `invalid` for a bad name or key, or
/// unless `store` is a test store.
pub async fn expire_key(store: &Store, name: &str, key: impl Key) -> Result<usize> {
    store.expire_key(name, &key.key_text()).await
}
