//! `NativeLocks.acquiringAll` and `NativeLeasesAcquiring`: the core's
//! `acquiring_all`, several keys of a lock group at once (every key or
//! none), as a cancellable acquire whose outcome is a lease per key in the
//! caller's order.

use crate::acquiring::acquiring_class;
use crate::group::NativeLocks;
use crate::lease::NativeLease;
use crate::options::to_core;
use napi_derive::napi;
use std::collections::HashMap;
use tinystore::binding::StartAcquireAll;

acquiring_class!(
    "A lock group's acquire of several keys under way.",
    NativeLeasesAcquiring,
    Vec<tinystore::Lease>,
    Vec<NativeLease>,
    native_leases
);

fn native_leases(leases: Vec<tinystore::Lease>) -> Vec<NativeLease> {
    leases.into_iter().map(NativeLease::from).collect()
}

#[napi]
impl NativeLocks {
    /// Starts waiting for every key of `keys` (a lease each, in the order
    /// of `keys`) or none; the core checks the keys and options at the
    /// first poll, and a give-up leaves none held.
    #[napi]
    pub fn acquiring_all(
        &self,
        keys: Vec<String>,
        options: Option<HashMap<String, napi::bindgen_prelude::Either3<f64, bool, String>>>,
    ) -> napi::Result<NativeLeasesAcquiring> {
        Ok(self.inner.acquiring_all(keys, to_core(options)?).into())
    }
}
