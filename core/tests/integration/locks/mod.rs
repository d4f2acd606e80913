//! Locks (core/src/locks.rs, acquiring.rs, hold.rs, on_lost.rs,
//! lease_data.rs): the queue, waits, TTLs, losses, data on a lease, and
//! exclusion under random schedules.

mod acquiring;
mod basics;
pub mod data;
mod exclusion_props;
mod hold_outcome;
mod on_lost;
mod waits;
pub mod waits_support;
