//! `NativeSqlCheck`: the core's check-and-record ([`SqlCheck`]) for
//! lib/guard.js, which runs each statement it gives on the caller's own
//! better-sqlite3 or pg handle and reports what came of it.

use crate::error::to_napi;
use crate::fence::to_fence;
use crate::guard_step::{sql_observed, sql_step, NativeGuardObserved, NativeGuardStep};
use napi::bindgen_prelude::BigInt;
use napi_derive::napi;
use tinystore::guard::{Dialect, SqlCheck};

/// One check of a fence for a resource, in the caller's transaction.
#[napi]
pub struct NativeSqlCheck {
    inner: SqlCheck,
}

#[napi]
impl NativeSqlCheck {
    /// A check of `fence` for `resource` in `dialect` (`"sqlite"`: `?`
    /// placeholders; `"postgres"`: `$1`); `in_transaction` is whether the
    /// handle has a transaction open.
    #[napi(constructor)]
    pub fn new(
        dialect: String,
        resource: String,
        fence: BigInt,
        in_transaction: bool,
    ) -> napi::Result<NativeSqlCheck> {
        let dialect = Dialect::parse(&dialect).map_err(to_napi)?;
        let fence = to_fence(&fence)?;
        Ok(NativeSqlCheck {
            inner: SqlCheck::new(
                dialect,
                dialect.placeholders(),
                &resource,
                fence,
                in_transaction,
            ),
        })
    }

    /// The first step: the check's statement, or the end (a bad resource,
    /// no transaction open).
    #[napi]
    pub fn start(&mut self) -> NativeGuardStep {
        sql_step(self.inner.start())
    }

    /// The step after `observed`, what came of the step last given.
    #[napi]
    pub fn observe(&mut self, observed: NativeGuardObserved) -> napi::Result<NativeGuardStep> {
        Ok(sql_step(self.inner.observe(sql_observed(observed)?)))
    }
}
