//! The client: a store reached over a connection to `tinystore serve`.
//!
//! - [`Address`] says where the server is: `unix:PATH`, `tcp://HOST:PORT`,
//!   or a bare path (a socket, or a store directory whose socket it is).
//! - [`link`] is one connection: its reader and writer tasks and the
//!   requests waiting for replies.
//! - [`table`] keeps the leases held through any connection, tells their
//!   holders when they are lost, and [`renewer`] keeps them alive.
//! - [`remote`] is the `Backend` over all that, which reconnects for later
//!   calls when a connection broke.

mod address;
mod link;
mod remote;
mod renewer;
mod table;

pub use address::Address;
pub(crate) use remote::Remote;

use std::time::Duration;

/// How to connect to a server.
#[derive(Debug, Clone)]
pub struct ConnectOptions {
    /// The token a TCP server asks for; not needed on a Unix socket.
    pub token: Option<String>,
    /// How long connecting and the greeting may take before `unavailable`.
    pub timeout: Duration,
}

impl Default for ConnectOptions {
    fn default() -> ConnectOptions {
        ConnectOptions {
            token: None,
            timeout: Duration::from_secs(5),
        }
    }
}

impl ConnectOptions {
    /// These options with a token.
    pub fn token(mut self, token: impl Into<String>) -> ConnectOptions {
        self.token = Some(token.into());
        self
    }
}
