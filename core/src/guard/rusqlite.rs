//! The guard on a `rusqlite` connection (cargo feature `guard-sqlite`):
//! the check-and-record in the caller's own transaction, driven by
//! [`SqlCheck`]; this file runs its statements.
//!
//! ```
//! # fn main() -> Result<(), tinystore::Error> {
//! use tinystore::{guard, Fence};
//! let mut db = rusqlite::Connection::open_in_memory().unwrap();
//! guard::rusqlite::ensure(&db)?;
//! let tx = db.transaction().unwrap();
//! guard::rusqlite::check(&tx, "chats/42", Fence::from_u128(7))?;
//! // ... the write it guards, in the same transaction ...
//! tx.commit().unwrap();
//! # Ok(()) }
//! ```
//!
//! Errors: the guard's own (`stale`, `corrupt`, `invalid`), and SQLite's as
//! an error of the code core classifies it as, whose
//! [`source`](std::error::Error::source) is the `rusqlite::Error`
//! ([`is_serialization_failure`](super::is_serialization_failure) tells a
//! busy database: retry the whole transaction).

use super::sql::{Dialect, Placeholders, Statements};
use super::{DriverFailure, SqlCheck, SqlObserved, SqlStep, Under};
use crate::error::Result;
use crate::fence::Fence;
use rusqlite::{Connection, OptionalExtension};

/// Makes the register table `tinystore_fences` if it is missing.
pub fn ensure(conn: &Connection) -> Result<()> {
    let migration = &Statements::cached(Dialect::Sqlite, Placeholders::Question).migration;
    conn.execute_batch(migration).map_err(|err| {
        failure(&err)
            .error("making tinystore_fences")
            .with_cause(err)
    })
}

/// Checks `fence` against the largest recorded for `resource` and records
/// it, inside the transaction open on `conn` (a `rusqlite::Transaction`
/// derefs to its connection). Accepted: `Ok`, and the caller's own writes
/// in the same transaction commit with the record. Refused: `stale` with
/// the resource and both fences; the caller rolls back (dropping the
/// transaction does). Given the lease itself (`&lease`) rather than its
/// fence, a refusal is also told to its store ([`super::Under`]).
pub fn check<'a>(conn: &Connection, resource: &str, under: impl Into<Under<'a>>) -> Result<()> {
    let under = under.into();
    under.check("sqlite", resource, |fence| run(conn, resource, fence))
}

fn run(conn: &Connection, resource: &str, fence: Fence) -> Result<()> {
    let mut machine = SqlCheck::new(
        Dialect::Sqlite,
        Placeholders::Question,
        resource,
        fence,
        !conn.is_autocommit(),
    );
    let mut step = machine.start();
    let mut last_error = None;
    loop {
        let observed = match step {
            SqlStep::Execute { sql, params } => conn
                .prepare_cached(sql)
                .and_then(|mut s| s.execute(rusqlite::params_from_iter(params)))
                .map(|n| SqlObserved::Changed(n as u64)),
            SqlStep::Query { sql, params } => conn
                .prepare_cached(sql)
                .and_then(|mut s| {
                    s.query_row(rusqlite::params_from_iter(params), |row| row.get(0))
                        .optional()
                })
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

/// What SQLite reported of `err`.
pub(super) fn failure(err: &rusqlite::Error) -> DriverFailure {
    let code = match err {
        rusqlite::Error::SqliteFailure(e, _) => Some(e.extended_code),
        _ => None,
    };
    DriverFailure {
        sqlite_code: code,
        ..DriverFailure::new(err.to_string())
    }
}
