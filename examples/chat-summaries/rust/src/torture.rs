//! `torture`: a worker for the torture test. It holds random chats and
//! saves through the fenced update, logging each save in `save_log` in the
//! same transaction, and carries on through lost leases and server restarts.

use crate::chat_db;
use rusqlite::{params, Connection};
use std::time::{Duration, Instant};
use tinystore::blocking::Store;
use tinystore::Code;

/// What the worker saw.
#[derive(Default)]
pub struct Tally {
    pub saves: u64,
    pub lost: u64,
    pub errors: u64,
    /// Holds of the other ways (`--ways all`), held to their end or lost.
    pub ways: u64,
}

const LOG: &str = "create table if not exists save_log (
    seq integer primary key autoincrement,
    chat integer not null, fence text not null, worker text not null,
    accepted integer not null, kept text not null)";

pub(crate) fn save_logged(
    conn: &Connection,
    chat: i64,
    fence: &str,
    worker: &str,
) -> rusqlite::Result<usize> {
    conn.execute_batch("begin immediate")?;
    let result = (|| {
        let changed = chat_db::save(conn, chat, &format!("summary by {worker}"), fence)?;
        conn.execute(
            "insert into save_log (chat, fence, worker, accepted, kept)
             values (?1, ?2, ?3, ?4, (select summary_fence from chats where id = ?1))",
            params![chat, fence, worker, changed as i64],
        )?;
        Ok(changed)
    })();
    match result {
        Ok(changed) => conn.execute_batch("commit").map(|_| changed),
        Err(e) => {
            let _ = conn.execute_batch("rollback");
            Err(e)
        }
    }
}

/// Runs until `seconds` pass, pausing in each hold up to `longest_pause`
/// before its save. With `all_ways`, half the holds are of the other ways
/// to hold (crate::torture_ways): several chats, reads, writes, weighted
/// permits, some capped by a max_hold.
#[allow(clippy::too_many_arguments)]
pub fn run(
    store: &Store,
    db: &std::path::Path,
    worker: &str,
    chats: i64,
    seconds: u64,
    ttl: Duration,
    longest_pause: Duration,
    all_ways: bool,
) -> Result<Tally, Box<dyn std::error::Error + Send + Sync>> {
    let conn = chat_db::open(db)?;
    conn.execute_batch(LOG)?;
    chat_db::seed(&conn, chats)?;
    let summaries = store.locks("summaries").ttl(ttl);
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let mut rng: u64 = u64::from(std::process::id()) * 0x9E37_79B9 + 1;
    let mut tally = Tally::default();
    while Instant::now() < deadline {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        let chat = (rng % chats as u64) as i64 + 1;
        let pause = Duration::from_millis(rng % (longest_pause.as_millis() as u64 + 1));
        let other_way = all_ways && (rng >> 20).is_multiple_of(2);
        let held = if other_way {
            let hold = crate::torture_ways::Hold {
                store,
                conn: &conn,
                worker,
                ttl,
                pause,
            };
            let other = ((rng >> 8) % chats as u64) as i64 + 1;
            hold.run((rng >> 32) % 100, chat, other)
        } else {
            summaries.hold(
                chat,
                |lease| -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
                    std::thread::sleep(pause);
                    save_logged(&conn, chat, &format!("{:040}", lease.fence().get()), worker)?;
                    Ok(())
                },
            )
        };
        let done = if other_way {
            &mut tally.ways
        } else {
            &mut tally.saves
        };
        match held {
            Ok(()) => *done += 1,
            Err(e) => match e.downcast_ref::<tinystore::Error>().map(|e| e.code()) {
                Some(Code::LeaseLost) => {
                    *done += 1;
                    tally.lost += 1;
                }
                _ => {
                    tally.errors += 1;
                    std::thread::sleep(Duration::from_millis(50));
                }
            },
        }
    }
    Ok(tally)
}
