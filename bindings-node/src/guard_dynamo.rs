//! `NativeDynamoCheck`: the core's guarded DynamoDB transaction
//! ([`DynamoCheck`]) for lib/dynamodb.js, which adds the register item's
//! conditional put its `transact` step describes to the caller's items,
//! runs `TransactWriteItems` on the caller's own client (the AWS SDK's
//! `DynamoDBClient`, or lib-dynamodb's document client), reads the
//! register item when a `read` step asks, and reports what happened. Its
//! steps are [`NativeDynamoStep`]s.

use crate::fence::to_fence;
use crate::guard::{error_value, NativeError};
use crate::guard_step::NativeDriverFailure;
use napi::bindgen_prelude::BigInt;
use napi_derive::napi;
use tinystore::guard::dynamo_check::{
    DynamoCheck, DynamoObserved, DynamoStep, CONDITION, MAX_ITEMS, REGISTER_TABLE,
};
use tinystore::guard::Verdict;

/// What lib/dynamodb.js does next, or the protocol's end.
#[napi(object)]
#[derive(Default)]
pub struct NativeDynamoStep {
    /// `transact` (the caller's items, then the register's put), `read`
    /// (the register item, consistently) or `done`.
    pub kind: String,
    /// The register table of `transact` and `read`.
    pub table: Option<String>,
    /// The register item's key (`resource`) of `transact` and `read`.
    pub resource: Option<String>,
    /// The register item's `fence` and the condition's `:fence` (40
    /// digits) of `transact`.
    pub fence: Option<String>,
    /// The condition's `:digits` (40, a number) of `transact`.
    pub digits: Option<u32>,
    /// The register put's `ConditionExpression` of `transact`.
    pub condition: Option<String>,
    /// The end of `done`: `accepted`, `refused` (the guard's own error) or
    /// `driver` (the driver's error, classified).
    pub verdict: Option<String>,
    /// The error of a `refused` or `driver` verdict.
    pub error: Option<NativeError>,
}

/// The `done` step of `verdict` (shared with the versioned guard's).
pub(crate) fn verdict_parts(verdict: Verdict) -> (String, Option<NativeError>) {
    match &verdict {
        Verdict::Accepted => ("accepted".to_string(), None),
        Verdict::Refused(err) => ("refused".to_string(), Some(error_value(err))),
        Verdict::Driver(err) => ("driver".to_string(), Some(error_value(err))),
    }
}

fn dynamo_step(from: DynamoStep) -> NativeDynamoStep {
    match from {
        DynamoStep::Transact(put) => NativeDynamoStep {
            kind: "transact".to_string(),
            table: Some(put.table),
            resource: Some(put.resource),
            fence: Some(put.fence),
            digits: Some(u32::try_from(put.digits).unwrap_or(u32::MAX)),
            condition: Some(CONDITION.to_string()),
            ..NativeDynamoStep::default()
        },
        DynamoStep::Read { table, resource } => NativeDynamoStep {
            kind: "read".to_string(),
            table: Some(table),
            resource: Some(resource),
            ..NativeDynamoStep::default()
        },
        DynamoStep::Done(verdict) => {
            let (verdict, error) = verdict_parts(verdict);
            NativeDynamoStep {
                kind: "done".to_string(),
                verdict: Some(verdict),
                error,
                ..NativeDynamoStep::default()
            }
        }
    }
}

/// The DynamoDB guard's names and bound, from the core
/// (`tinystore::guard::dynamo_check`).
#[napi(object)]
pub struct NativeDynamoGuardConstants {
    /// The register table unless the caller names another: `tinystore_fences`.
    pub register_table: String,
    /// The most items of the caller's in one guarded transaction: 99.
    pub max_items: u32,
}

/// The DynamoDB guard's names and bound.
#[napi]
pub fn guard_dynamo_constants() -> NativeDynamoGuardConstants {
    NativeDynamoGuardConstants {
        register_table: REGISTER_TABLE.to_string(),
        max_items: u32::try_from(MAX_ITEMS - 1).unwrap_or(u32::MAX),
    }
}

/// One guarded DynamoDB transaction of `items` items of the caller's and
/// the register's.
#[napi]
pub struct NativeDynamoCheck {
    inner: DynamoCheck,
}

#[napi]
impl NativeDynamoCheck {
    /// A guard of `fence` for `resource` in register table `table`, with
    /// `items` items of the caller's in the same transaction.
    #[napi(constructor)]
    pub fn new(
        table: String,
        resource: String,
        fence: BigInt,
        items: u32,
    ) -> napi::Result<NativeDynamoCheck> {
        let fence = to_fence(&fence)?;
        let items = usize::try_from(items).unwrap_or(usize::MAX);
        Ok(NativeDynamoCheck {
            inner: DynamoCheck::new(&table, &resource, fence, items),
        })
    }

    /// The first step (`transact`), or the end for bad input (`invalid`
    /// before any call: a bad resource, an empty table name, over 99 items).
    #[napi]
    pub fn start(&mut self) -> NativeDynamoStep {
        dynamo_step(self.inner.start())
    }

    /// Says that an attempt of the transaction got `status` as its answer
    /// (none: no answer came); before the last attempt's outcome is
    /// observed. Core decides whether it may have been written.
    #[napi]
    pub fn attempted(&mut self, status: Option<u32>) {
        self.inner
            .attempted(status.map(|s| u16::try_from(s).unwrap_or(u16::MAX)));
    }

    /// After the transaction was written.
    #[napi]
    pub fn written(&mut self) -> NativeDynamoStep {
        dynamo_step(self.inner.observe(DynamoObserved::Written))
    }

    /// After the transaction was cancelled: each item's reason code in
    /// order (`"None"` for an item that was fine; the register's last),
    /// the register item's fence as returned (`null` when it was not; a
    /// value that is not a string described), and the exception.
    #[napi]
    pub fn cancelled(
        &mut self,
        codes: Vec<String>,
        recorded: Option<String>,
        failure: NativeDriverFailure,
    ) -> NativeDynamoStep {
        dynamo_step(self.inner.observe(DynamoObserved::Cancelled {
            codes,
            recorded,
            failure: failure.into(),
        }))
    }

    /// After the register item was read: its fence (`null`: no item, or no
    /// `fence`).
    #[napi]
    pub fn read(&mut self, recorded: Option<String>) -> NativeDynamoStep {
        dynamo_step(self.inner.observe(DynamoObserved::Read(recorded)))
    }

    /// After a call failed otherwise, as the client reported.
    #[napi]
    pub fn failed(&mut self, failure: NativeDriverFailure) -> NativeDynamoStep {
        dynamo_step(self.inner.observe(DynamoObserved::Failed(failure.into())))
    }
}
