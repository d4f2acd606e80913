//! The guard on a `tokio-postgres` transaction (cargo feature
//! `guard-postgres`): the check-and-record in the caller's own transaction.
//!
//! At READ COMMITTED two writers of one resource are serialized by the
//! register row's lock until the first commits; the second then sees its
//! fence and is accepted or refused. At REPEATABLE READ and SERIALIZABLE the
//! second fails with a serialization failure instead (SQLSTATE 40001), an
//! `io` error saying so: retry the whole transaction.

use super::sql::{Dialect, Statements};
use super::{check_resource, missing_table, refused};
use crate::error::{Code, Error, Result};
use crate::fence::Fence;
use std::sync::OnceLock;
use tokio_postgres::error::SqlState;
use tokio_postgres::Transaction;

fn statements() -> &'static Statements {
    static STATEMENTS: OnceLock<Statements> = OnceLock::new();
    STATEMENTS.get_or_init(|| Statements::of(Dialect::Postgres))
}

/// Makes the register table `tinystore_fences` if it is missing.
pub async fn ensure(client: &impl tokio_postgres::GenericClient) -> Result<()> {
    client
        .batch_execute(&statements().migration)
        .await
        .map_err(|err| postgres_error("making tinystore_fences", err))
}

/// Checks `fence` against the largest recorded for `resource` and records
/// it, inside `tx`. Accepted: `Ok`, and the caller's own writes in `tx`
/// commit with the record. Refused: `stale` with the resource and both
/// fences; the caller rolls back (dropping `tx` does).
pub async fn check(tx: &Transaction<'_>, resource: &str, fence: Fence) -> Result<()> {
    check_resource(resource)?;
    let text = fence.text();
    let changed = tx
        .execute(&statements().check, &[&resource, &text])
        .await
        .map_err(|err| statement_error(resource, err))?;
    if changed > 0 {
        return Ok(());
    }
    let recorded: Option<String> = tx
        .query_opt(&statements().read, &[&resource])
        .await
        .map_err(|err| statement_error(resource, err))?
        .map(|row| row.get(0));
    refused(resource, fence, recorded.as_deref())
}

fn statement_error(resource: &str, err: tokio_postgres::Error) -> Error {
    match err.code() {
        Some(code) if *code == SqlState::UNDEFINED_TABLE => missing_table(resource),
        Some(code) if *code == SqlState::T_R_SERIALIZATION_FAILURE => Error::new(
            Code::Io,
            format!("guarding {resource:?}: postgres: a concurrent transaction wrote it first (serialization failure): retry the whole transaction"),
        ),
        _ => postgres_error(&format!("guarding {resource:?}"), err),
    }
}

fn postgres_error(doing: &str, err: tokio_postgres::Error) -> Error {
    let detail = err
        .as_db_error()
        .map(|db| db.message().to_string())
        .unwrap_or_else(|| err.to_string());
    Error::new(Code::Io, format!("{doing}: postgres: {detail}"))
}
