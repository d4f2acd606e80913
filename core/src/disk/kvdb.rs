//! `kv.db`: the SQLite file that keeps a store's epoch and whether it was
//! closed cleanly, written with fsync (WAL, synchronous=FULL).

use crate::error::{Code, Error, Result};
use rusqlite::{Connection, OptionalExtension};
use std::path::Path;

/// An open `kv.db`.
pub struct KvDb {
    conn: Connection,
    path: String,
}

fn sql_error(path: &str, doing: &str, err: rusqlite::Error) -> Error {
    use rusqlite::ffi::ErrorCode as E;
    let code = match err.sqlite_error_code() {
        Some(E::NotADatabase) | Some(E::DatabaseCorrupt) => Code::Corrupt,
        Some(E::DiskFull)
        | Some(E::SystemIoFailure)
        | Some(E::CannotOpen)
        | Some(E::ReadOnly)
        | Some(E::PermissionDenied) => Code::Io,
        _ => Code::Io,
    };
    Error::new(code, format!("{path}: cannot {doing}: {err}"))
}

impl KvDb {
    /// Opens (or makes) `kv.db` in WAL mode with synchronous=FULL.
    pub fn open(path: &Path) -> Result<KvDb> {
        let name = path.display().to_string();
        let conn = Connection::open(path).map_err(|e| sql_error(&name, "open", e))?;
        let db = KvDb { conn, path: name };
        db.conn
            .pragma_update(None, "journal_mode", "WAL")
            .map_err(|e| sql_error(&db.path, "set WAL mode", e))?;
        db.conn
            .pragma_update(None, "synchronous", "FULL")
            .map_err(|e| sql_error(&db.path, "set synchronous=FULL", e))?;
        db.conn
            .execute_batch(
                "create table if not exists meta (name text primary key, value text not null)",
            )
            .map_err(|e| sql_error(&db.path, "make the meta table", e))?;
        Ok(db)
    }

    /// Opens an existing `kv.db` to read only: nothing is made or written
    /// (readers of a WAL file may still make its `-shm` index).
    pub fn open_read_only(path: &Path) -> Result<KvDb> {
        let name = path.display().to_string();
        let flags =
            rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn =
            Connection::open_with_flags(path, flags).map_err(|e| sql_error(&name, "open", e))?;
        Ok(KvDb { conn, path: name })
    }

    fn get(&self, name: &str) -> Result<Option<String>> {
        self.conn
            .query_row("select value from meta where name = ?1", [name], |row| {
                row.get(0)
            })
            .optional()
            .map_err(|e| sql_error(&self.path, &format!("read {name}"), e))
    }

    /// The epoch written at the last open, if any.
    pub fn epoch(&self) -> Result<Option<u64>> {
        match self.get("epoch")? {
            None => Ok(None),
            Some(text) => text.parse().map(Some).map_err(|_| {
                Error::new(
                    Code::Corrupt,
                    format!("{}: the epoch {text:?} is not a number", self.path),
                )
            }),
        }
    }

    /// Whether the store was closed cleanly last time (true for a new file).
    pub fn was_clean(&self) -> Result<bool> {
        Ok(self.get("clean")?.is_none_or(|v| v == "1"))
    }

    /// Writes the new epoch and marks the store open (not clean), durably.
    pub fn begin_epoch(&mut self, epoch: u64) -> Result<()> {
        let tx = self
            .conn
            .transaction()
            .map_err(|e| sql_error(&self.path, "begin a transaction", e))?;
        tx.execute(
            "insert into meta (name, value) values ('epoch', ?1), ('clean', '0')
             on conflict (name) do update set value = excluded.value",
            [epoch.to_string()],
        )
        .map_err(|e| sql_error(&self.path, "write the epoch", e))?;
        tx.commit()
            .map_err(|e| sql_error(&self.path, "write the epoch", e))
    }

    /// Marks the store closed cleanly, durably.
    pub fn mark_clean(&self) -> Result<()> {
        self.conn
            .execute(
                "insert into meta (name, value) values ('clean', '1')
                 on conflict (name) do update set value = excluded.value",
                [],
            )
            .map_err(|e| sql_error(&self.path, "mark the store clean", e))?;
        Ok(())
    }

    /// Writes a consistent copy of the database to `dest`.
    pub fn backup(&self, dest: &Path) -> Result<()> {
        self.conn
            .backup(rusqlite::DatabaseName::Main, dest, None)
            .map_err(|e| sql_error(&self.path, &format!("back up to {}", dest.display()), e))
    }
}
