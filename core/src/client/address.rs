//! Where a server is.

use crate::disk::SOCKET;
use crate::error::{Code, Error, Result};
use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

/// A server's address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Address {
    /// A Unix socket, written `unix:PATH`.
    Unix(PathBuf),
    /// A TCP address, written `tcp://HOST:PORT`.
    Tcp(String),
}

impl Address {
    /// Parses `unix:PATH`, `tcp://HOST:PORT`, or a bare path: a store
    /// directory stands for its `tinystore.sock`, anything else for a socket.
    pub fn parse(text: &str) -> Result<Address> {
        if let Some(path) = text.strip_prefix("unix:") {
            if path.is_empty() {
                return Err(bad(text, "the socket path is empty"));
            }
            return Ok(Address::Unix(PathBuf::from(path)));
        }
        if let Some(hostport) = text.strip_prefix("tcp://") {
            let ok = hostport
                .rsplit_once(':')
                .is_some_and(|(host, port)| !host.is_empty() && port.parse::<u16>().is_ok());
            if !ok {
                return Err(bad(text, "expected tcp://HOST:PORT"));
            }
            return Ok(Address::Tcp(hostport.to_string()));
        }
        if text.is_empty() {
            return Err(bad(text, "it is empty"));
        }
        if text.contains("://") {
            return Err(bad(text, "only unix: and tcp:// addresses are known"));
        }
        let path = PathBuf::from(text);
        if path.is_dir() {
            return Ok(Address::Unix(path.join(SOCKET)));
        }
        Ok(Address::Unix(path))
    }
}

fn bad(text: &str, why: &str) -> Error {
    Error::new(
        Code::Invalid,
        format!("address {text:?} is not valid: {why}"),
    )
}

impl FromStr for Address {
    type Err = Error;

    fn from_str(text: &str) -> Result<Address> {
        Address::parse(text)
    }
}

impl fmt::Display for Address {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Address::Unix(path) => write!(f, "unix:{}", path.display()),
            Address::Tcp(hostport) => write!(f, "tcp://{hostport}"),
        }
    }
}
