//! `ConnectOptions`: how a client connects to a server.

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
