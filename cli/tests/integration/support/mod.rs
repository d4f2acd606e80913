//! Helpers shared by the modules above.

pub mod server;
