//! The wire: what a client and `tinystore serve` say to each other. One JSON
//! object per line. The client speaks first with `hello`; after that each
//! request carries a client-chosen `id` that its one reply echoes, and the
//! server may push `lost` events between replies. `docs/wire.md` shows every
//! message with examples. This module has the frames and their decoding, and
//! no sockets.

mod codec;
mod quick;
mod reply;
mod request;

pub use codec::{FrameRead, FrameReader};
pub use reply::{Event, Reply, ServerFrame, WireError};
pub use request::{decode_request, Op, RequestFrame, WireKey};

/// The protocol version this crate speaks, settled by `hello`.
pub const VERSION: u32 = 1;

/// The longest frame, newline excluded, either side accepts.
pub const MAX_FRAME_BYTES: usize = 64 * 1024;

/// The most connections a server serves at once.
pub const MAX_CONNECTIONS: usize = 1024;

/// The most leases one connection may hold at once.
pub const MAX_LEASES_PER_CONNECTION: usize = 4096;

/// The most acquires one connection may have waiting at once.
pub const MAX_WAITERS_PER_CONNECTION: usize = 4096;
