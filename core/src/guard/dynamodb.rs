//! The DynamoDB guard on the AWS SDK's client (cargo feature
//! `guard-dynamodb`), the application's own: each call is one
//! `TransactWriteItems` of the caller's items and the register item's
//! conditional put, driven by [`DynamoCheck`].
//!
//! ```no_run
//! # async fn f(client: &aws_sdk_dynamodb::Client, lease: &tinystore::Lease) -> Result<(), Box<dyn std::error::Error>> {
//! use aws_sdk_dynamodb::types::{AttributeValue, Put};
//! use tinystore::guard::dynamodb as guard;
//! let put = Put::builder()
//!     .table_name("chats")
//!     .item("id", AttributeValue::N("42".into()))
//!     .item("summary", AttributeValue::S("the summary".into()))
//!     .build()?;
//! guard::put_item(client, "chats/42", put, lease.fence()).await?; // `stale` when a later holder wrote
//! # Ok(()) }
//! ```
//!
//! Each call takes the fence or the lease itself ([`Under`]): given the
//! lease (`lease` rather than `lease.fence()`), a `stale` refusal is also
//! told to its store, which counts the late writes refused per group.
//!
//! The SDK makes a transaction again when an attempt's answer is lost; an
//! interceptor of the call tells the machine each attempt's answer
//! ([`DynamoCheck::attempted`]), so that a larger fence found after one
//! whose outcome is unknown is `unavailable`, not `stale`.

use super::driver::DriverFailure;
use super::dynamo_check::{
    DynamoCheck, DynamoObserved, DynamoStep, RegisterPut, CONDITION, REGISTER_TABLE,
};
use super::Under;
use crate::error::{Cause, Error, Result};
use crate::fence::Fence;
use aws_sdk_dynamodb::config::http::HttpResponse;
use aws_sdk_dynamodb::config::interceptors::FinalizerInterceptorContextRef;
use aws_sdk_dynamodb::config::{ConfigBag, Intercept, RuntimeComponents};
use aws_sdk_dynamodb::error::BoxError;
use aws_sdk_dynamodb::error::{ProvideErrorMetadata, SdkError};
use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError;
use aws_sdk_dynamodb::types::{
    AttributeDefinition, AttributeValue, BillingMode, Delete, KeySchemaElement, KeyType, Put,
    ReturnValuesOnConditionCheckFailure, ScalarAttributeType, TransactWriteItem, Update,
};
use aws_sdk_dynamodb::Client;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// Makes the register table `table` (key `resource`, a string; on-demand
/// billing) if it is missing.
pub async fn ensure(client: &Client, table: &str) -> Result<()> {
    if client
        .describe_table()
        .table_name(table)
        .send()
        .await
        .is_ok()
    {
        return Ok(());
    }
    let made = client
        .create_table()
        .table_name(table)
        .key_schema(key_schema()?)
        .attribute_definitions(attribute()?)
        .billing_mode(BillingMode::PayPerRequest)
        .send()
        .await;
    match made {
        Ok(_) => Ok(()),
        Err(err) if err.code() == Some("ResourceInUseException") => Ok(()),
        Err(err) => Err(failure(&err)
            .error(&format!("making {table}"))
            .with_cause(err)),
    }
}

fn key_schema() -> Result<KeySchemaElement> {
    KeySchemaElement::builder()
        .attribute_name("resource")
        .key_type(KeyType::Hash)
        .build()
        .map_err(|e| Error::internal(e.to_string()))
}

fn attribute() -> Result<AttributeDefinition> {
    AttributeDefinition::builder()
        .attribute_name("resource")
        .attribute_type(ScalarAttributeType::S)
        .build()
        .map_err(|e| Error::internal(e.to_string()))
}

/// `put`, guarded by `fence` for `resource` (register table
/// `tinystore_fences`): `stale`, with nothing written, when a larger fence
/// is recorded.
pub async fn put_item<'u>(
    client: &Client,
    resource: &str,
    put: Put,
    under: impl Into<Under<'u>>,
) -> Result<()> {
    let item = TransactWriteItem::builder().put(put).build();
    transact_write_items(client, REGISTER_TABLE, resource, vec![item], under).await
}

/// `update`, guarded by `fence` for `resource`.
pub async fn update_item<'u>(
    client: &Client,
    resource: &str,
    update: Update,
    under: impl Into<Under<'u>>,
) -> Result<()> {
    let item = TransactWriteItem::builder().update(update).build();
    transact_write_items(client, REGISTER_TABLE, resource, vec![item], under).await
}

/// `delete`, guarded by `fence` for `resource`; the register keeps the
/// fence, so a late write stays refused.
pub async fn delete_item<'u>(
    client: &Client,
    resource: &str,
    delete: Delete,
    under: impl Into<Under<'u>>,
) -> Result<()> {
    let item = TransactWriteItem::builder().delete(delete).build();
    transact_write_items(client, REGISTER_TABLE, resource, vec![item], under).await
}

/// `items` (at most 99) and the register item's put in register table
/// `table`, in one `TransactWriteItems`, guarded by `fence` for `resource`.
pub async fn transact_write_items<'u>(
    client: &Client,
    table: &str,
    resource: &str,
    items: Vec<TransactWriteItem>,
    under: impl Into<Under<'u>>,
) -> Result<()> {
    under
        .into()
        .check_async("dynamodb", resource, |fence| {
            transact(client, table, resource, items, fence)
        })
        .await
}

async fn transact(
    client: &Client,
    table: &str,
    resource: &str,
    items: Vec<TransactWriteItem>,
    fence: Fence,
) -> Result<()> {
    let mut check = DynamoCheck::new(table, resource, fence, items.len());
    let mut step = check.start();
    let mut cause: Option<Cause> = None;
    loop {
        let observed = match step {
            DynamoStep::Done(verdict) => {
                return match (verdict.into_result(), cause) {
                    (Err(err), Some(cause)) => Err(err.with_shared_cause(cause)),
                    (result, _) => result,
                }
            }
            DynamoStep::Transact(register) => {
                let mut all = items.clone();
                all.push(register_put(&register)?);
                let attempts = Attempts::default();
                let sent = client
                    .transact_write_items()
                    .set_transact_items(Some(all))
                    .customize()
                    .interceptor(attempts.clone())
                    .send()
                    .await;
                for status in attempts.taken() {
                    check.attempted(status);
                }
                match sent {
                    Ok(_) => DynamoObserved::Written,
                    Err(err) => {
                        let observed = cancelled(&err)
                            .unwrap_or_else(|| DynamoObserved::Failed(failure(&err)));
                        cause = Some(Arc::new(err));
                        observed
                    }
                }
            }
            DynamoStep::Read { table, resource } => {
                let read = client
                    .get_item()
                    .table_name(table)
                    .key("resource", AttributeValue::S(resource))
                    .consistent_read(true)
                    .send()
                    .await;
                match read {
                    Ok(got) => DynamoObserved::Read(got.item().and_then(fence_of)),
                    Err(err) => {
                        let observed = DynamoObserved::Failed(failure(&err));
                        cause = Some(Arc::new(err));
                        observed
                    }
                }
            }
        };
        step = check.observe(observed);
    }
}

/// The answers of a call's attempts, as the SDK made them: each one's
/// HTTP status, `None` where no answer came (a lost connection, a timeout).
#[derive(Debug, Clone, Default)]
struct Attempts(Arc<Mutex<Vec<Option<u16>>>>);

impl Attempts {
    fn taken(&self) -> Vec<Option<u16>> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

impl Intercept for Attempts {
    fn name(&self) -> &'static str {
        "tinystore guard: the answers of attempts"
    }

    fn read_after_attempt(
        &self,
        context: &FinalizerInterceptorContextRef<'_>,
        _: &RuntimeComponents,
        _: &mut ConfigBag,
    ) -> std::result::Result<(), BoxError> {
        let status = context.response().map(|answer| answer.status().as_u16());
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(status);
        Ok(())
    }
}

fn register_put(register: &RegisterPut) -> Result<TransactWriteItem> {
    let put = Put::builder()
        .table_name(&register.table)
        .item("resource", AttributeValue::S(register.resource.clone()))
        .item("fence", AttributeValue::S(register.fence.clone()))
        .condition_expression(CONDITION)
        .expression_attribute_values(":fence", AttributeValue::S(register.fence.clone()))
        .expression_attribute_values(":digits", AttributeValue::N(register.digits.to_string()))
        .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld)
        .build()
        .map_err(|e| Error::internal(e.to_string()))?;
    Ok(TransactWriteItem::builder().put(put).build())
}

/// A cancelled transaction's reasons, the register's item's fence (the
/// last reason's), as the machine reads them.
fn cancelled(err: &SdkError<TransactWriteItemsError, HttpResponse>) -> Option<DynamoObserved> {
    let TransactWriteItemsError::TransactionCanceledException(cancel) = err.as_service_error()?
    else {
        return None;
    };
    let reasons = cancel.cancellation_reasons();
    let codes = reasons
        .iter()
        .map(|r| r.code().unwrap_or("None").to_string())
        .collect();
    let recorded = reasons.last().and_then(|r| r.item()).and_then(fence_of);
    Some(DynamoObserved::Cancelled {
        codes,
        recorded,
        failure: failure(err),
    })
}

/// The register item's `fence` as text: a string as it is, another type
/// described.
fn fence_of(item: &HashMap<String, AttributeValue>) -> Option<String> {
    match item.get("fence")? {
        AttributeValue::S(text) => Some(text.clone()),
        other => Some(format!("(a value of another type: {other:?})")),
    }
}

/// What the SDK reports of a failed call: the service's error code and
/// HTTP status, or `connection` for a request that never got an answer.
pub fn failure<E>(err: &SdkError<E, HttpResponse>) -> DriverFailure
where
    E: ProvideErrorMetadata + std::error::Error + 'static,
{
    let lost = matches!(
        err,
        SdkError::DispatchFailure(_) | SdkError::TimeoutError(_)
    );
    DriverFailure {
        error_code: if lost {
            Some("connection".to_string())
        } else {
            err.code().map(str::to_string)
        },
        http_status: err.raw_response().map(|r| r.status().as_u16()),
        ..DriverFailure::new(aws_sdk_dynamodb::error::DisplayErrorContext(err).to_string())
    }
}

/// [`failure`] of a transaction's error, a cancelled one's code its first
/// reason given (a conflict is `TransactionConflict`), for
/// [`is_serialization_failure`](super::is_serialization_failure).
pub(super) fn described(err: &SdkError<TransactWriteItemsError, HttpResponse>) -> DriverFailure {
    match cancelled(err) {
        Some(DynamoObserved::Cancelled { codes, failure, .. }) => DriverFailure {
            error_code: codes
                .into_iter()
                .find(|c| c != "None")
                .or(failure.error_code),
            ..failure
        },
        _ => failure(err),
    }
}
