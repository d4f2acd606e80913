//! `NativeElection`, `NativeLeadership` and `NativeObserver`: the core's
//! elections. A campaign is the core's cancellable `Acquiring` (see
//! [`crate::acquiring`]), a leadership is a lease with a value (its
//! methods are a lease's, see [`crate::lease`]), and an observer is the
//! core's `Observing`.

use crate::acquiring::acquiring_class;
use crate::error::to_napi;
use crate::following::next_of;
use crate::lease::holding_methods;
use crate::now::now_or_later;
use crate::options::to_core;
use napi::bindgen_prelude::{within_runtime_if_available, BigInt, Either, PromiseRaw};
use napi::Env;
use napi_derive::napi;
use std::collections::HashMap;
use std::sync::Arc;
use tinystore::binding::{EndHold, StartCampaign};

/// An election's leader: its value and its term.
#[napi(object)]
pub struct NativeLeader {
    pub value: String,
    pub fence: BigInt,
}

/// A change an observer gives: `done` once it ended, else `leader`
/// (missing when nobody leads).
#[napi(object)]
pub struct NativeChange {
    pub done: bool,
    pub leader: Option<NativeLeader>,
}

fn native_leader(leader: tinystore::Leader) -> NativeLeader {
    NativeLeader {
        value: leader.value,
        fence: BigInt::from(leader.fence.get()),
    }
}

acquiring_class!(
    "An election's campaign under way.",
    NativeLeadershipAcquiring,
    tinystore::Leadership,
    NativeLeadership
);

/// The election called `name` of a store.
#[napi]
pub struct NativeElection {
    inner: tinystore::Election,
}

impl From<tinystore::Election> for NativeElection {
    fn from(inner: tinystore::Election) -> NativeElection {
        NativeElection { inner }
    }
}

#[napi]
impl NativeElection {
    /// The election's name.
    #[napi(getter)]
    pub fn name(&self) -> String {
        self.inner.name().to_string()
    }

    /// Starts campaigning, first come first served, with `value`; the core
    /// checks the name, value and options at the first poll.
    #[napi]
    pub fn campaigning(
        &self,
        value: String,
        options: Option<HashMap<String, napi::bindgen_prelude::Either3<f64, bool, String>>>,
    ) -> napi::Result<NativeLeadershipAcquiring> {
        Ok(self.inner.campaigning(&value, to_core(options)?).into())
    }

    /// The leader now, or `null`; at once when it can tell, else as a
    /// promise.
    #[napi]
    pub fn leader<'env>(
        &self,
        env: &'env Env,
    ) -> napi::Result<Either<Option<NativeLeader>, PromiseRaw<'env, Option<NativeLeader>>>> {
        let election = self.inner.clone();
        now_or_later(env, async move {
            let leader = election.leader().await.map_err(to_napi)?;
            Ok(leader.map(native_leader))
        })
    }

    /// Starts observing now (an embedded store's observer is subscribed on
    /// return).
    #[napi]
    pub fn observe(&self) -> NativeObserver {
        let inner = within_runtime_if_available(|| self.inner.observing());
        NativeObserver { inner }
    }
}

/// Leading an election: a lease with the leader's value; its fence is the
/// term. Dropping it resigns.
#[napi]
pub struct NativeLeadership {
    inner: Arc<tinystore::Leadership>,
}

impl NativeLeadership {
    /// The core's leadership (for the test kit, testing.rs).
    pub(crate) fn core(&self) -> &tinystore::Leadership {
        &self.inner
    }
}

impl From<tinystore::Leadership> for NativeLeadership {
    fn from(inner: tinystore::Leadership) -> NativeLeadership {
        NativeLeadership {
            inner: Arc::new(inner),
        }
    }
}

#[napi]
impl NativeLeadership {
    /// The value this leader campaigned with.
    #[napi(getter)]
    pub fn value(&self) -> String {
        self.inner.value().to_string()
    }

    /// The term, every digit kept.
    #[napi(getter)]
    pub fn fence(&self) -> BigInt {
        BigInt::from(self.inner.fence().get())
    }
}

holding_methods!(NativeLeadership, resign, end_hold);

/// Every change of an election's leader, in order.
#[napi]
pub struct NativeObserver {
    inner: tinystore::binding::Observing,
}

#[napi]
impl NativeObserver {
    /// The next change: at once when it is there, else as a promise;
    /// `done` once it ended. Fails once with why it ended (`closed`,
    /// `limit`).
    #[napi]
    pub fn next<'env>(
        &self,
        env: &'env Env,
    ) -> napi::Result<Either<NativeChange, PromiseRaw<'env, NativeChange>>> {
        next_of(env, &self.inner, |change| NativeChange {
            done: change.is_none(),
            leader: change.flatten().map(native_leader),
        })
    }

    /// Stops observing: a `next` under way and every later one give
    /// `done`. Idempotent.
    #[napi]
    pub fn close(&self) {
        self.inner.close()
    }
}
