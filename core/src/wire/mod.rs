//! The wire: what a client and `tinystore serve` say to each other. One JSON
//! object per line. The client speaks first with `hello`; after that each
//! request carries a client-chosen `id` that its one reply echoes, and the
//! server may push events between replies: `lost` for a lease, `leader`
//! and `observe_end` for an observer of an election. `docs/wire.md` shows every
//! message with examples. This module has the frames and their decoding, and
//! no sockets.

// The frames are `pub` for the fuzz targets (feature `fuzzing`), which
// reach them through `tinystore::fuzzing`; without it nothing outside the
// crate can name them.
#![cfg_attr(not(feature = "fuzzing"), allow(unreachable_pub))]

mod codec;
mod frame;
mod quick;
mod reply;
mod request;

pub use codec::{FrameRead, FrameReader};
pub(crate) use frame::{Op, RequestFrame, WireKey, WireMode};
pub use reply::ServerFrame;
pub(crate) use reply::{Event, Reply, WireLeader, WireWatch};
pub use request::decode_request;

/// The quick decoder of the common requests: `None` sends a line the
/// careful way. Only for the fuzz target that checks the two agree.
#[cfg(feature = "fuzzing")]
pub fn decode_quick(line: &[u8]) -> Option<RequestFrame> {
    quick::decode(line)
}

/// The careful decoder, which takes every request. Only for the fuzz
/// target that checks the two agree.
#[cfg(feature = "fuzzing")]
pub fn decode_careful(
    line: &[u8],
) -> std::result::Result<RequestFrame, (Option<u64>, crate::error::Error)> {
    request::decode_carefully(line)
}

/// The protocol version this crate speaks, settled by `hello`.
pub(crate) const VERSION: u32 = 1;

/// The longest frame, newline excluded, either side accepts.
pub(crate) const MAX_FRAME_BYTES: usize = 64 * 1024;

/// The most connections a server serves at once on its Unix socket, and
/// apart from those, the most authenticated ones on TCP.
pub const MAX_CONNECTIONS: usize = 1024;

/// The most TCP connections waiting to authenticate at once. Past it, new
/// connections wait in the listen backlog until one leaves, or until the
/// one waiting longest has had [`STRANGER_GRACE`] and is closed to make
/// room.
pub const MAX_STRANGERS: usize = 256;

/// How long a TCP connection waiting to authenticate is safe from being
/// closed to make room for a newer one: time for `hello` (and a TLS
/// handshake) to arrive.
pub const STRANGER_GRACE: std::time::Duration = std::time::Duration::from_millis(250);

/// How long a TCP connection has to authenticate with `hello`.
pub const STRANGER_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(3);

/// How long a new connection on the Unix socket has to say hello before it
/// is closed (on TCP: [`STRANGER_TIMEOUT`]).
pub const HELLO_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// The longest frame a TCP connection may send before it authenticates.
pub const MAX_STRANGER_FRAME_BYTES: usize = 4 * 1024;

/// The most leases one connection may hold at once.
pub const MAX_LEASES_PER_CONNECTION: usize = 4096;

/// The most acquires and campaigns one connection may have waiting at once.
pub const MAX_WAITERS_PER_CONNECTION: usize = 4096;

/// The most observers of elections one connection may have at once.
pub const MAX_OBSERVERS_PER_CONNECTION: usize = 4096;

#[cfg(test)]
mod tests;
