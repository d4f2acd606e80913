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
//! statements on its users' own database handles; [`rusqlite`] and
//! [`postgres`] (cargo features `guard-sqlite` and `guard-postgres`) are the
//! Rust ones. [`object`] decides a guarded write to object storage (S3's
//! conditional writes) and [`s3`] (cargo feature `guard-s3`) makes it on
//! the AWS SDK's client; [`http`] carries a fence over HTTP, with `http`
//! types and a tower layer under cargo feature `guard-http`.
//! docs/guards.md is the user's page.

mod decide;
pub mod driver;
pub mod http;
pub mod object;
pub mod object_layout;
pub mod object_read;
pub mod object_write;
#[cfg(feature = "guard-postgres")]
pub mod postgres;
mod resource;
#[cfg(feature = "guard-sqlite")]
pub mod rusqlite;
#[cfg(feature = "guard-s3")]
pub mod s3;
pub mod sql;
pub mod sql_check;
mod verdict;

pub use decide::{missing_table, not_in_transaction, refused};
pub use driver::{Class, DriverFailure};
pub use object_read::ObjectRead;
pub use object_write::{ObjectObserved, ObjectStep, ObjectWrite};
pub use resource::{check_resource, MAX_RESOURCE_BYTES};
pub use sql::{Dialect, Placeholders, TABLE};
pub use sql_check::{SqlCheck, SqlObserved, SqlStep};
pub use verdict::Verdict;
