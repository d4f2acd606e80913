//! The client: a store reached over a connection to `tinystore serve`.
//!
//! - [`Address`] says where the server is: `unix:PATH`, `tcp://HOST:PORT`,
//!   `tls://HOST:PORT?ca=..&cert=..&key=..` ([`tls`] makes its handshake),
//!   or a bare path (a socket, or a store directory whose socket it is).
//! - [`link`] is one connection: its reader and writer tasks and the
//!   requests waiting for replies; it hands an election's changes of
//!   leader, pushed by the server, to their observers (election/pushed.rs).
//! - [`table`] keeps the leases held through any connection, tells their
//!   holders when they are lost, and [`renewer`] renews them.
//! - [`remote`] is the `Backend` over all that, which reconnects for later
//!   calls when a connection broke.

mod address;
mod connect_options;
mod link;
mod remote;
mod renewer;
mod table;
mod tls;

pub use address::{Address, TlsTarget};
pub use connect_options::ConnectOptions;
pub(crate) use remote::Remote;
