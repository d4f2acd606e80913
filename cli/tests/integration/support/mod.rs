//! Helpers shared by the modules above.

pub mod chromium;
pub mod server;
