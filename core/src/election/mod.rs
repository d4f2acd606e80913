//! Elections: a lock whose holder is named. The holder is the **leader**,
//! its value says who it is, and its fence is its **term**: larger for
//! every later leader, so a resource that keeps the largest term it has
//! seen refuses a deposed leader that paused.
//!
//! - [`Election`] is the group (`store.election(name)`, options `ttl`,
//!   `renew`, `wait`): `campaign`, `lead`, `leader`, `observe`.
//! - [`Leadership`] is what campaigning gives: a lease with a value.
//! - [`Leader`] is a leader as others see it: its value and term.
//! - [`Observer`] is the stream of every change of leader; [`pushed`] makes
//!   one whose changes come from elsewhere (a server, an etcd watch);
//!   [`Observing`] is one shared between threads and closed from any (for
//!   bindings).
//! - What a leader's value may be is checked with the other inputs
//!   (names.rs, `check_value`), by `Request::election`.
//! - The engine keeps who leads each election and tells observers in
//!   `registry` (its hook is called where a holder is granted or ends).

mod group;
mod leader;
mod leadership;
mod observe;
mod observing;
pub(crate) mod pushed;
mod registry;

pub use group::Election;
pub use leader::Leader;
pub use leadership::Leadership;
pub use observe::{Observer, OBSERVE_BUFFER};
pub use observing::Observing;
pub(crate) use registry::Registry;
