//! Guards: the fence compared where the write lands.
//!
//! A guard keeps, per **resource** (a name the application chooses, such as
//! `chats/42`), the largest fence that has written to it, and refuses a write
//! whose fence is smaller. The rule, the same for every store a guard runs
//! on:
//!
//! - a write with fence `f` to resource `r` is accepted when no fence above
//!   `f` was recorded for `r`, and `f` is then recorded; equal is accepted,
//!   so one lease may write many times;
//! - otherwise it fails with [`Code::Stale`](crate::Code::Stale), carrying
//!   `r`, `f` and the largest recorded fence ([`crate::Error::stale_detail`]).
//!
//! For SQL the register is one table, `tinystore_fences(resource, fence)`,
//! and the check-and-record is one upsert whose update has a `where`, run in
//! the caller's own transaction ([`sql`]). Every language binding runs these
//! statements on its users' own database handles; `rusqlite`,
//! `postgres` and `mysql` (cargo features `guard-sqlite`, `guard-postgres`
//! and `guard-mysql`) are the Rust ones. [`object`] decides a guarded write to object storage (S3's
//! conditional writes) and `s3` (cargo feature `guard-s3`) makes it on
//! the AWS SDK's client; [`http`] carries a fence over HTTP, with `http`
//! types and a tower layer under cargo feature `guard-http`. For Redis,
//! [`redis_check`] is one script that checks, writes and records, with the
//! register beside the data key in its hash slot ([`redis_layout`]), made
//! on redis-rs by `redis` (cargo feature `guard-redis`). On DynamoDB,
//! [`dynamo_check`] puts the register item's condition in the caller's
//! transaction. On stores that compare versions (Google Cloud Storage's
//! generations, Azure's ETags), [`versioned_check`] keeps the fence in the
//! object's metadata and puts on the version read, made on the
//! object_store crate's clients by `gcs` and `azure` (cargo features
//! `guard-gcs`, `guard-azure`).
//! docs/guards.md is the user's page.

mod attempt;
#[cfg(feature = "guard-azure")]
pub mod azure;
mod decide;
pub mod driver;
pub mod dynamo_check;
#[cfg(feature = "guard-dynamodb")]
pub mod dynamodb;
#[cfg(feature = "guard-gcs")]
pub mod gcs;
pub mod http;
#[cfg(feature = "guard-mysql")]
pub mod mysql;
pub mod object;
pub mod object_layout;
pub mod object_read;
pub mod object_write;
#[cfg(feature = "guard-postgres")]
pub mod postgres;
#[cfg(feature = "guard-redis")]
pub mod redis;
pub mod redis_check;
pub mod redis_layout;
mod resource;
#[cfg(feature = "guard-sqlite")]
pub mod rusqlite;
#[cfg(feature = "guard-s3")]
pub mod s3;
pub mod sql;
pub mod sql_check;
mod under;
mod verdict;
#[cfg(any(feature = "guard-gcs", feature = "guard-azure"))]
mod versioned;
pub mod versioned_check;

pub use attempt::unknown_outcome;
pub use decide::{missing_table, not_in_transaction, refused, refused_in};
pub use driver::{Class, DriverFailure};
pub use object_read::ObjectRead;
pub use object_write::{ObjectObserved, ObjectStep, ObjectWrite};
pub use resource::{check_resource, MAX_RESOURCE_BYTES};
pub use sql::{Dialect, Placeholders, TABLE};
pub use sql_check::{SqlCheck, SqlObserved, SqlStep};
pub use under::Under;
pub use verdict::Verdict;

/// Whether `err`, a guard's error, is a serialization failure of the
/// driver's (SQLSTATE 40001 or 40P01, SQLite busy or locked): a concurrent
/// transaction came first; roll back and run the whole transaction again.
/// Core classifies the driver's error, its [`source`](std::error::Error::source).
pub fn is_serialization_failure(err: &crate::Error) -> bool {
    err.cause()
        .and_then(|cause| described(cause.as_ref()))
        .is_some_and(|failure| failure.class() == Class::Serialization)
}

/// What a driver's error reports, for the drivers this crate knows.
#[allow(unused_variables)]
fn described(cause: &(dyn std::error::Error + Send + Sync + 'static)) -> Option<DriverFailure> {
    #[cfg(feature = "guard-sqlite")]
    if let Some(err) = cause.downcast_ref::<::rusqlite::Error>() {
        return Some(rusqlite::failure(err));
    }
    #[cfg(feature = "guard-postgres")]
    if let Some(err) = cause.downcast_ref::<tokio_postgres::Error>() {
        return Some(postgres::failure(err));
    }
    #[cfg(feature = "guard-mysql")]
    if let Some(err) = cause.downcast_ref::<mysql_async::Error>() {
        return Some(mysql::failure(err));
    }
    #[cfg(feature = "guard-dynamodb")]
    if let Some(err) = cause.downcast_ref::<aws_sdk_dynamodb::error::SdkError<
        aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError,
        aws_sdk_dynamodb::config::http::HttpResponse,
    >>() {
        return Some(dynamodb::described(err));
    }
    None
}
