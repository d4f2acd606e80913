//! jobs.db: the schema, and the job's run guarded by the leader's term.

use rusqlite::{params, Connection};
use std::path::Path;
use tinystore::Fence;

const SCHEMA: &str = include_str!("../../schema.sql");
const JOB: &str = "nightly-report";

/// Opens jobs.db (a 10 s busy timeout) with its schema.
pub fn open(path: &Path) -> rusqlite::Result<Connection> {
    let conn = Connection::open(path)?;
    conn.busy_timeout(std::time::Duration::from_secs(10))?;
    conn.execute_batch(SCHEMA)?;
    Ok(conn)
}

/// Runs the job as the leader `by` of term `term`: counted only when no
/// later leader ran it (the term kept is at most this one; `<=` lets a
/// leader run it many times in its term). Gives the rows changed: 0 for a
/// deposed leader.
pub fn run_job(conn: &Connection, by: &str, term: Fence) -> rusqlite::Result<usize> {
    let text = term.text();
    conn.execute(
        "update jobs set runs = runs + 1, last_run_by = ?1, term = ?2 where name = ?3 and term <= ?2",
        params![by, text, JOB],
    )
}

/// What jobs.db keeps of the job: its runs, who ran it last, and that
/// leader's term.
pub fn kept(conn: &Connection) -> rusqlite::Result<String> {
    conn.query_row(
        "select runs, last_run_by, term from jobs where name = ?1",
        [JOB],
        |r| {
            let (runs, by, term): (i64, String, String) = (r.get(0)?, r.get(1)?, r.get(2)?);
            Ok(format!(
                "{runs} run(s), last by {by} with term {}",
                term.trim_start_matches('0')
            ))
        },
    )
}
