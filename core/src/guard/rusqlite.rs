//! The guard on a `rusqlite` connection (cargo feature `guard-sqlite`):
//! the check-and-record in the caller's own transaction.
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

use super::sql::{Dialect, Statements};
use super::{check_resource, missing_table, not_in_transaction, refused};
use crate::error::{Code, Error, Result};
use crate::fence::Fence;
use rusqlite::{Connection, OptionalExtension};
use std::sync::OnceLock;

fn statements() -> &'static Statements {
    static STATEMENTS: OnceLock<Statements> = OnceLock::new();
    STATEMENTS.get_or_init(|| Statements::of(Dialect::Sqlite))
}

/// Makes the register table `tinystore_fences` if it is missing.
pub fn ensure(conn: &Connection) -> Result<()> {
    conn.execute_batch(&statements().migration)
        .map_err(|err| sqlite_error("making tinystore_fences", err))
}

/// Checks `fence` against the largest recorded for `resource` and records
/// it, inside the transaction open on `conn` (a `rusqlite::Transaction`
/// derefs to its connection). Accepted: `Ok`, and the caller's own writes
/// in the same transaction commit with the record. Refused: `stale` with
/// the resource and both fences; the caller rolls back (dropping the
/// transaction does).
pub fn check(conn: &Connection, resource: &str, fence: Fence) -> Result<()> {
    check_resource(resource)?;
    if conn.is_autocommit() {
        return Err(not_in_transaction(resource));
    }
    let changed = conn
        .prepare_cached(&statements().check)
        .and_then(|mut s| s.execute((resource, fence.text())))
        .map_err(|err| statement_error(resource, err))?;
    if changed > 0 {
        return Ok(());
    }
    let recorded: Option<String> = conn
        .prepare_cached(&statements().read)
        .and_then(|mut s| s.query_row([resource], |row| row.get(0)).optional())
        .map_err(|err| statement_error(resource, err))?;
    refused(resource, fence, recorded.as_deref())
}

fn statement_error(resource: &str, err: rusqlite::Error) -> Error {
    let missing =
        matches!(&err, rusqlite::Error::SqliteFailure(_, Some(m)) if m.contains("no such table"));
    if missing {
        return missing_table(resource);
    }
    sqlite_error(&format!("guarding {resource:?}"), err)
}

fn sqlite_error(doing: &str, err: rusqlite::Error) -> Error {
    Error::new(Code::Io, format!("{doing}: sqlite: {err}"))
}
