//! The shared vectors (vectors/behaviour.json) through a served store.

mod behaviour;
mod more_ways;
