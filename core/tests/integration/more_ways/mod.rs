//! More ways to hold (core/src/rw_locks.rs, semaphore.rs, several.rs):
//! read-write locks, weights, several keys at once and `max_hold`.

mod kinds;
mod props;
pub mod support;
