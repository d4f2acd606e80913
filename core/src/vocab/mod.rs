//! The crate's vocabulary: the words every layer (groups and leases, the
//! engine, the server, the client, the etcd backend) speaks, defined apart
//! from all of them so that none has to import another to name a lease.
//!
//! - [`KeyId`]: a group's name and a key, checked.
//! - [`Request`]: what a caller asks for one key, every field checked once.
//! - [`LeaseId`]: names a lease within one store.
//! - [`EngineGrant`] (from the engine) and [`Grant`] (from any store): what a
//!   grant gives.
//! - [`LostTo`] and [`LostSignal`]: how a holder is told its lease ended.

mod grant;
mod key_id;
mod lease_id;
mod lost;
mod request;

pub(crate) use grant::{EngineGrant, Grant};
pub(crate) use key_id::{GroupKind, KeyId};
pub(crate) use lease_id::LeaseId;
pub(crate) use lost::{lost_signal, LostSender, LostSignal, LostTo};
pub use request::MAX_LIMIT;
pub(crate) use request::{Ask, Request, WireTimes};
