//! What the bindings build on (Python's, Node's and the C ABI under Go's)
//! and a Rust program does not need, gathered in one module hidden from
//! the crate's docs: `tinystore::binding`. Each item lives with its
//! concept and is named here only; nothing in the crate uses this module.
//!
//! - [`Acquiring`], and the traits that begin one ([`StartAcquire`],
//!   [`StartAcquireAll`], [`StartReadWrite`], [`StartCampaign`]): an
//!   acquire or a campaign polled now, waited for, or given up from any
//!   thread.
//! - [`Following`] ([`Observing`], [`Watching`], begun by
//!   [`StartCampaign::observing`] and [`StartWatch`]): an observer or a
//!   watch awaited from any thread and closed from any other.
//! - [`EndHold`] and [`hold_outcome`]: what a hold returns, by the one rule
//!   of every language.
//! - [`GivenOptions`] ([`Given`], [`TimeUnit`]): the options record filled
//!   by each option's name, from what the caller passed.
//! - [`CodeNames`]: an error code's number in the C ABI and its error's name
//!   in each language.
//! - [`poll_now`]: a future polled once, now, without blocking.

pub use crate::acquiring::Acquiring;
pub use crate::election::Observing;
pub use crate::error::CodeNames;
pub use crate::following::Following;
pub use crate::hold::{hold_outcome, EndHold};
pub use crate::options_given::{Given, GivenOptions, TimeUnit};
pub use crate::poll::poll_now;
pub use crate::starting::{
    StartAcquire, StartAcquireAll, StartCampaign, StartReadWrite, StartWatch,
};
pub use crate::watch::Watching;
