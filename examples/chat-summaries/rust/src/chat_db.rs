//! chat.db: the migrations, some chats with messages, and the fenced
//! conditional update.

use rusqlite::{params, Connection, Transaction, TransactionBehavior};
use std::path::Path;

pub const MIGRATIONS: [(&str, &str); 4] = [
    (
        "0001_chats",
        include_str!("../../migrations/0001_chats.sql"),
    ),
    (
        "0002_messages",
        include_str!("../../migrations/0002_messages.sql"),
    ),
    (
        "0003_summary",
        include_str!("../../migrations/0003_summary.sql"),
    ),
    (
        "0004_summary_fence",
        include_str!("../../migrations/0004_summary_fence.sql"),
    ),
];

/// Opens chat.db and applies each migration once, each in an immediate
/// transaction of its own.
pub fn open(path: &Path) -> rusqlite::Result<Connection> {
    let conn = Connection::open(path)?;
    conn.busy_timeout(std::time::Duration::from_secs(10))?;
    conn.execute_batch("create table if not exists schema_migrations (name text primary key)")?;
    for (name, sql) in MIGRATIONS {
        // Immediate: two processes migrating at once wait for each other
        // (busy timeout) instead of failing to upgrade a read lock.
        let tx = Transaction::new_unchecked(&conn, TransactionBehavior::Immediate)?;
        let done: bool = tx.query_row(
            "select count(*) > 0 from schema_migrations where name = ?1",
            [name],
            |r| r.get(0),
        )?;
        if !done {
            tx.execute_batch(sql)?;
            tx.execute("insert into schema_migrations (name) values (?1)", [name])?;
        }
        tx.commit()?;
    }
    // The guard's register (docs/guards.md), for `--save guard`.
    tinystore::guard::rusqlite::ensure(&conn).map_err(|e| {
        rusqlite::Error::SqliteFailure(rusqlite::ffi::Error::new(1), Some(e.to_string()))
    })?;
    Ok(conn)
}

/// Makes chats 1..=n, each with a few messages, where missing.
pub fn seed(conn: &Connection, n: i64) -> rusqlite::Result<()> {
    for id in 1..=n {
        let added = conn.execute(
            "insert or ignore into chats (id, title) values (?1, ?2)",
            params![id, format!("chat {id}")],
        )?;
        if added == 1 {
            for m in 1..=3 {
                conn.execute(
                    "insert into messages (chat_id, body) values (?1, ?2)",
                    params![id, format!("message {m} of chat {id}")],
                )?;
            }
        }
    }
    Ok(())
}

/// The chat's messages, oldest first.
pub fn history(conn: &Connection, chat: i64) -> rusqlite::Result<Vec<String>> {
    let mut stmt = conn.prepare("select body from messages where chat_id = ?1 order by id")?;
    let rows = stmt.query_map([chat], |r| r.get(0))?;
    rows.collect()
}

/// The fenced update of docs/fences.md: saves only when `fence` (40 digits) is larger
/// than the fence kept with the summary. Returns the rows changed.
pub fn save(conn: &Connection, chat: i64, summary: &str, fence: &str) -> rusqlite::Result<usize> {
    conn.execute(
        "update chats set summary = ?1, summary_fence = ?2 where id = ?3 and summary_fence < ?2",
        params![summary, fence, chat],
    )
}

/// The guarded save of docs/guards.md: the summary's update and the guard's
/// check of `fence` for `chats/<chat>`, in one immediate transaction.
/// `Ok(true)` when accepted; `Ok(false)` when the guard refused it as
/// stale (the update rolled back).
pub fn save_guarded(
    conn: &mut Connection,
    chat: i64,
    summary: &str,
    fence: tinystore::Fence,
) -> Result<bool, Box<dyn std::error::Error + Send + Sync>> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    tx.execute(
        "update chats set summary = ?1 where id = ?2",
        params![summary, chat],
    )?;
    match tinystore::guard::rusqlite::check(&tx, &format!("chats/{chat}"), fence) {
        Ok(()) => {
            tx.commit()?;
            Ok(true)
        }
        Err(e) if e.code() == tinystore::Code::Stale => Ok(false),
        Err(e) => Err(e.into()),
    }
}

/// The fence tinystore_fences keeps for a chat, if any.
pub fn recorded(conn: &Connection, chat: i64) -> rusqlite::Result<Option<String>> {
    use rusqlite::OptionalExtension;
    conn.query_row(
        "select fence from tinystore_fences where resource = ?1",
        [format!("chats/{chat}")],
        |r| r.get(0),
    )
    .optional()
}

/// The summary and fence chat.db keeps for a chat.
pub fn kept(conn: &Connection, chat: i64) -> rusqlite::Result<(String, String)> {
    conn.query_row(
        "select summary, summary_fence from chats where id = ?1",
        [chat],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )
}
