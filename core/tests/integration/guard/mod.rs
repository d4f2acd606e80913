//! Guards (core/src/guard): the fence compared where the write lands, on
//! real SQLite files and real servers; the conformance matrix
//! (vectors/guards.json) and the model checker of the protocol.

mod conformance;
pub(crate) mod dynamodb;
mod dynamodb_lost;
pub(crate) mod http;
#[cfg(any(
    feature = "guard-dynamodb",
    feature = "guard-gcs",
    feature = "guard-azure",
    feature = "guard-s3"
))]
mod losing;
mod model;
mod mysql;
mod postgres;
mod redis;
mod refusals;
pub(crate) mod s3;
mod s3_lost;
mod sqlite;
#[cfg(any(
    feature = "guard-sqlite",
    feature = "guard-postgres",
    feature = "guard-mysql"
))]
pub mod support;
pub(crate) mod versioned;
mod versioned_lost;
mod versioned_paused;
