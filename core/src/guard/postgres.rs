//! The guard on a `tokio-postgres` transaction (cargo feature
//! `guard-postgres`): the check-and-record in the caller's own
//! transaction, driven by [`SqlCheck`]; this file runs its
//! statements.
//!
//! At READ COMMITTED two writers of one resource are serialized by the
//! register row's lock until the first commits; the second then sees its
//! fence and is accepted or refused. At REPEATABLE READ and SERIALIZABLE the
//! second fails with a serialization failure instead (SQLSTATE 40001): an
//! `io` error whose [`source`](std::error::Error::source) is the
//! `tokio_postgres::Error`, told by
//! [`is_serialization_failure`](super::is_serialization_failure): retry the
//! whole transaction.

use super::sql::{Dialect, Placeholders, Statements};
use super::{DriverFailure, SqlCheck, SqlObserved, SqlStep, Under};
use crate::error::Result;
use crate::fence::Fence;
use tokio_postgres::Transaction;

fn statements() -> &'static Statements {
    Statements::cached(Dialect::Postgres, Placeholders::Dollar)
}

/// Makes the register table `tinystore_fences` if it is missing.
pub async fn ensure(client: &impl tokio_postgres::GenericClient) -> Result<()> {
    client
        .batch_execute(&statements().migration)
        .await
        .map_err(|err| {
            failure(&err)
                .error("making tinystore_fences")
                .with_cause(err)
        })
}

/// Checks `fence` against the largest recorded for `resource` and records
/// it, inside `tx`. Accepted: `Ok`, and the caller's own writes in `tx`
/// commit with the record. Refused: `stale` with the resource and both
/// fences; the caller rolls back (dropping `tx` does). Given the lease
/// itself (`&lease`) rather than its fence, a refusal is also told to its
/// store ([`super::Under`]).
pub async fn check<'a>(
    tx: &Transaction<'_>,
    resource: &str,
    under: impl Into<Under<'a>>,
) -> Result<()> {
    let under = under.into();
    under
        .check_async("postgres", resource, |fence| run(tx, resource, fence))
        .await
}

async fn run(tx: &Transaction<'_>, resource: &str, fence: Fence) -> Result<()> {
    let mut machine = SqlCheck::new(
        Dialect::Postgres,
        Placeholders::Dollar,
        resource,
        fence,
        true,
    );
    let mut step = machine.start();
    let mut last_error = None;
    loop {
        let observed = match step {
            SqlStep::Execute { sql, params } => tx
                .execute(sql, &[&params[0], &params[1]])
                .await
                .map(SqlObserved::Changed),
            SqlStep::Query { sql, params } => tx
                .query_opt(sql, &[&params[0]])
                .await
                .map(|row| SqlObserved::Row(row.map(|r| r.get(0)))),
            SqlStep::Done(verdict) => return verdict.into_result_caused_by(last_error),
        };
        step = machine.observe(observed.unwrap_or_else(|err| {
            let observed = SqlObserved::Failed(failure(&err));
            last_error = Some(err);
            observed
        }));
    }
}

/// What PostgreSQL (or the connection) reported of `err`.
pub(super) fn failure(err: &tokio_postgres::Error) -> DriverFailure {
    let message = err
        .as_db_error()
        .map(|db| db.message().to_string())
        .unwrap_or_else(|| err.to_string());
    DriverFailure {
        sqlstate: err.code().map(|c| c.code().to_string()),
        error_code: err.is_closed().then(|| "connection".to_string()),
        ..DriverFailure::new(message)
    }
}
