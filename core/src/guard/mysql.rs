//! The guard on a `mysql_async` transaction (cargo feature `guard-mysql`),
//! for MySQL and MariaDB: the check-and-record in the caller's own InnoDB
//! transaction, driven by [`SqlCheck`]; this file runs its
//! statements.
//!
//! Two writers of one resource are serialized by the register row's lock
//! until the first commits; the second then compares with the committed
//! fence (an upsert and a `FOR UPDATE` read see the latest row at every
//! isolation level). Two first writes of a new resource may deadlock
//! instead (error 1213, SQLSTATE 40001): an `io` error told by
//! [`is_serialization_failure`](super::is_serialization_failure); retry
//! the whole transaction. A row left as it was counts as changed when the
//! connection asks for found rows (`client_found_rows`): the check reads
//! the row then, so either setting is safe.

use super::sql::{Dialect, Placeholders, Statements};
use super::{DriverFailure, SqlCheck, SqlObserved, SqlStep, Under};
use crate::error::Result;
use crate::fence::Fence;
use mysql_async::prelude::Queryable;
use mysql_async::Transaction;

fn statements() -> &'static Statements {
    Statements::cached(Dialect::Mysql, Placeholders::Question)
}

/// Makes the register table `tinystore_fences` (InnoDB) if it is missing.
pub async fn ensure(conn: &mut impl Queryable) -> Result<()> {
    conn.query_drop(&statements().migration)
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
    tx: &mut Transaction<'_>,
    resource: &str,
    under: impl Into<Under<'a>>,
) -> Result<()> {
    let under = under.into();
    under
        .check_async("mysql", resource, |fence| run(tx, resource, fence))
        .await
}

async fn run(tx: &mut Transaction<'_>, resource: &str, fence: Fence) -> Result<()> {
    let mut machine = SqlCheck::new(
        Dialect::Mysql,
        Placeholders::Question,
        resource,
        fence,
        true,
    );
    let mut step = machine.start();
    let mut last_error = None;
    loop {
        let observed = match step {
            SqlStep::Execute { sql, params } => tx
                .exec_drop(sql, params)
                .await
                .map(|()| SqlObserved::Changed(tx.affected_rows())),
            SqlStep::Query { sql, params } => tx
                .exec_first::<String, _, _>(sql, params)
                .await
                .map(SqlObserved::Row),
            SqlStep::Done(verdict) => return verdict.into_result_caused_by(last_error),
        };
        step = machine.observe(observed.unwrap_or_else(|err| {
            let observed = SqlObserved::Failed(failure(&err));
            last_error = Some(err);
            observed
        }));
    }
}

/// What MySQL or MariaDB (or the connection) reported of `err`: the
/// server's SQLSTATE and error number, or `connection` for a connection
/// lost or refused.
pub(super) fn failure(err: &mysql_async::Error) -> DriverFailure {
    use mysql_async::{DriverError, Error};
    match err {
        Error::Server(server) => DriverFailure {
            sqlstate: Some(server.state.clone()),
            error_code: Some(server.code.to_string()),
            ..DriverFailure::new(server.message.clone())
        },
        Error::Io(_) | Error::Driver(DriverError::ConnectionClosed) => DriverFailure {
            error_code: Some("connection".to_string()),
            ..DriverFailure::new(err.to_string())
        },
        other => DriverFailure::new(other.to_string()),
    }
}
