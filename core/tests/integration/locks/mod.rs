//! Locks (core/src/locks.rs, acquiring.rs, hold.rs, on_lost.rs): the
//! queue, waits, TTLs, losses, and exclusion under random schedules.

mod acquiring;
mod basics;
mod exclusion_props;
mod hold_outcome;
mod on_lost;
mod waits;
pub mod waits_support;
