//! The client (core/src/client): a store reached over a connection.

mod basic;
mod dropped;
mod order;
