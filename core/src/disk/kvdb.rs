//! `kv.db`: the SQLite file that keeps a store's epoch, whether it was
//! closed cleanly, and whether it was served (with the grace its server
//! kept), written with fsync (WAL, synchronous=FULL). Its one table is
//! `meta (name, value)`; a file without it is not tinystore's and is never
//! written to.

use super::layout::lost;
use crate::error::{Code, Error, Result};
use rusqlite::{Connection, OpenFlags, OptionalExtension};
use std::path::Path;
use std::time::Duration;

/// An open `kv.db`.
pub(super) struct KvDb {
    conn: Connection,
    path: String,
}

fn sql_error(path: &str, doing: &str, err: rusqlite::Error) -> Error {
    use rusqlite::ffi::ErrorCode as E;
    let code = match err.sqlite_error_code() {
        Some(E::NotADatabase) | Some(E::DatabaseCorrupt) => Code::Corrupt,
        _ => Code::Io,
    };
    Error::new(code, format!("{path}: cannot {doing}: {err}"))
}

/// What a served store left in `kv.db` for its next owner.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Left {
    /// The epoch of the last open.
    pub epoch: u64,
    /// Whether the last owner closed it cleanly.
    pub clean: bool,
    /// Whether it was served (or owed a grace that was not yet waited out).
    pub served: bool,
    /// The grace its server kept, if recorded.
    pub grace: Option<Duration>,
}

impl Left {
    /// Whether the next owner must wait a grace before its first grant:
    /// leases were given to other processes and the stop was not clean.
    pub(super) fn owes_grace(&self) -> bool {
        self.served && !self.clean
    }
}

/// A failed backup to `dest`, named by its cause. SQLite reports a failed
/// backup step with the destination's last message, which is then often
/// "not an error"; the code tells the cause. A destination that is not a
/// database is the caller's mistake (`invalid`), not a corrupt store.
fn backup_error(path: &str, dest: &Path, err: rusqlite::Error) -> Error {
    let doing = format!("{path}: cannot back up to {}", dest.display());
    if err.sqlite_error_code() == Some(rusqlite::ffi::ErrorCode::NotADatabase) {
        return Error::invalid(format!(
            "{doing}: it is a file but not a SQLite database; a backup replaces \
             only a database, or makes a new file"
        ));
    }
    let cause = match err.sqlite_error() {
        Some(code) if err.to_string().contains("not an error") => code.to_string(),
        _ => err.to_string(),
    };
    Error::new(Code::Io, format!("{doing}: {cause}"))
}

impl KvDb {
    /// Makes a new `kv.db` at `path` (which must not exist) holding `epoch`,
    /// in one durable transaction.
    pub(super) fn create(path: &Path, epoch: u64) -> Result<KvDb> {
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let mut db = KvDb::connect(path, flags)?;
        db.set_modes()?;
        db.write(
            "make the store",
            "create table meta (name text primary key, value text not null);",
            &[
                ("epoch", epoch.to_string()),
                ("clean", "0".into()),
                ("served", "0".into()),
            ],
        )?;
        Ok(db)
    }

    /// Opens an existing `kv.db` to write, after checking it is tinystore's:
    /// an empty file or a database without tinystore's table is `corrupt`
    /// and is left as it was.
    pub(super) fn open(path: &Path) -> Result<KvDb> {
        check_not_empty(path)?;
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let db = KvDb::connect(path, flags)?;
        db.left()?;
        db.set_modes()?;
        Ok(db)
    }

    /// Opens an existing `kv.db` to read only, after the same checks as
    /// [`KvDb::open`]: nothing is made or written (readers of a WAL file may
    /// still make its `-shm` index).
    pub(super) fn open_read_only(path: &Path) -> Result<KvDb> {
        check_not_empty(path)?;
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let db = KvDb::connect(path, flags)?;
        db.left()?;
        Ok(db)
    }

    fn connect(path: &Path, flags: OpenFlags) -> Result<KvDb> {
        let name = path.display().to_string();
        let conn =
            Connection::open_with_flags(path, flags).map_err(|e| sql_error(&name, "open", e))?;
        Ok(KvDb { conn, path: name })
    }

    fn set_modes(&self) -> Result<()> {
        self.conn
            .pragma_update(None, "journal_mode", "WAL")
            .map_err(|e| sql_error(&self.path, "set WAL mode", e))?;
        self.conn
            .pragma_update(None, "synchronous", "FULL")
            .map_err(|e| sql_error(&self.path, "set synchronous=FULL", e))
    }

    fn get(&self, name: &str) -> Result<Option<String>> {
        let read = self
            .conn
            .query_row("select value from meta where name = ?1", [name], |row| {
                row.get(0)
            })
            .optional();
        match read {
            Ok(value) => Ok(value),
            Err(rusqlite::Error::SqliteFailure(_, Some(msg))) if msg.starts_with("no such") => {
                Err(lost(
                    Path::new(&self.path),
                    "it is a SQLite database without tinystore's meta table (another program's?)",
                ))
            }
            Err(e) if e.sqlite_error_code() == Some(rusqlite::ffi::ErrorCode::NotADatabase) => Err(
                lost(Path::new(&self.path), &format!("it is not a database: {e}")),
            ),
            Err(e) => Err(sql_error(&self.path, &format!("read {name}"), e)),
        }
    }

    /// What the last owner left: `corrupt` when it is not tinystore's.
    pub(super) fn left(&self) -> Result<Left> {
        let number = |name: &str, text: String| {
            text.parse::<u64>().map_err(|_| {
                Error::new(
                    Code::Corrupt,
                    format!("{}: the {name} {text:?} is not a number", self.path),
                )
            })
        };
        let epoch = match self.get("epoch")? {
            Some(text) => number("epoch", text)?,
            None => return Err(lost(Path::new(&self.path), "it has no epoch")),
        };
        let clean = self.get("clean")?.is_none_or(|v| v == "1");
        // A file from before the served mark existed: assume it was served.
        let served = self.get("served")?.is_none_or(|v| v != "0");
        let grace = match self.get("grace_ms")? {
            Some(text) => Some(Duration::from_millis(number("grace_ms", text)?)),
            None => None,
        };
        Ok(Left {
            epoch,
            clean,
            served,
            grace,
        })
    }

    /// Writes the new epoch and marks the store open (not clean), durably.
    /// `owes_grace` keeps the served mark of a stop whose grace this owner
    /// has yet to wait out; otherwise the store is marked not served.
    pub(super) fn begin_epoch(&mut self, epoch: u64, owes_grace: bool) -> Result<()> {
        let served = if owes_grace { "1" } else { "0" };
        self.write(
            "write the epoch",
            "",
            &[
                ("epoch", epoch.to_string()),
                ("clean", "0".into()),
                ("served", served.into()),
            ],
        )
    }

    /// Marks the store served, with the grace its next owner waits after an
    /// unclean stop, durably.
    pub(super) fn mark_served(&mut self, grace: Duration) -> Result<()> {
        let ms = u64::try_from(grace.as_millis()).unwrap_or(u64::MAX);
        self.write(
            "mark the store served",
            "",
            &[("served", "1".into()), ("grace_ms", ms.to_string())],
        )
    }

    /// Marks the store closed cleanly, durably.
    pub(super) fn mark_clean(&mut self) -> Result<()> {
        self.write("mark the store clean", "", &[("clean", "1".into())])
    }

    /// Runs `first` (SQL, may be empty) and sets `rows`, in one transaction.
    fn write(&mut self, doing: &str, first: &str, rows: &[(&str, String)]) -> Result<()> {
        let path = self.path.clone();
        let fail = |e| sql_error(&path, doing, e);
        let tx = self.conn.transaction().map_err(fail)?;
        if !first.is_empty() {
            tx.execute_batch(first).map_err(fail)?;
        }
        for (name, value) in rows {
            tx.execute(
                "insert into meta (name, value) values (?1, ?2)
                 on conflict (name) do update set value = excluded.value",
                [*name, value.as_str()],
            )
            .map_err(fail)?;
        }
        tx.commit().map_err(fail)
    }

    /// Writes a consistent copy of the database to `dest`.
    pub(super) fn backup(&self, dest: &Path) -> Result<()> {
        self.conn
            .backup(rusqlite::DatabaseName::Main, dest, None)
            .map_err(|e| backup_error(&self.path, dest, e))
    }
}

/// An empty `kv.db` (a file truncated, or made by hand) is a lost store.
fn check_not_empty(path: &Path) -> Result<()> {
    let meta = std::fs::metadata(path)
        .map_err(|e| Error::io(format!("cannot read {}", path.display()), e))?;
    if meta.len() == 0 {
        return Err(lost(path, "it is empty (0 bytes)"));
    }
    Ok(())
}
