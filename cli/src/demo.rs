//! `tinystore demo`: the README's three steps with real fences. Worker A holds
//! chat 42 and pauses past its TTL; worker B takes the key and saves; A
//! wakes, saves too, and the fenced update in a real SQLite `chat.db`
//! refuses it.

use rusqlite::Connection;
use std::path::Path;
use std::time::Duration;
use tinystore::blocking::Store;
use tinystore::Fence;

/// Options of `tinystore demo`.
#[derive(clap::Args)]
pub struct Args {
    /// Worker A's TTL in milliseconds; A pauses for twice as long.
    #[arg(long, default_value_t = 300)]
    ttl_ms: u64,
}

const CHAT: i64 = 42;

/// The fenced conditional update of docs/fences.md: writes only when `fence` is
/// larger than the fence kept with the summary. Returns the rows changed.
fn save(db: &Path, summary: &str, fence: Fence) -> Result<usize, Box<dyn std::error::Error>> {
    let conn = Connection::open(db)?;
    let fence = format!("{:040}", fence.get());
    let changed = conn.execute(
        "update chats set summary = ?1, summary_fence = ?2 where id = ?3 and summary_fence < ?2",
        (summary, &fence, CHAT),
    )?;
    Ok(changed)
}

fn make_chat_db(path: &Path) -> rusqlite::Result<()> {
    let conn = Connection::open(path)?;
    conn.execute_batch(
        "create table chats (id integer primary key, summary text not null default '');
         alter table chats add column summary_fence text not null default '';
         insert into chats (id) values (42);",
    )
}

pub fn run(args: Args) -> Result<u8, Box<dyn std::error::Error>> {
    let tmp = tempfile::tempdir()?;
    let chat_db = tmp.path().join("chat.db");
    make_chat_db(&chat_db)?;
    let store = Store::open(tmp.path().join("store"))?;
    let summaries = store.locks("summaries");
    let ttl = Duration::from_millis(args.ttl_ms);

    println!("tinystore demo: a store in {}", tmp.path().display());
    println!(
        "epoch {} (ms since 1970; the high 64 bits of every fence)\n",
        store.status()?.epoch
    );

    let a = summaries.clone().ttl(ttl).renew(false).acquire(CHAT)?;
    println!(
        "1. Worker A holds chat {CHAT} with fence {} (ttl {ttl:?}, renew off),",
        a.fence()
    );
    println!("   then pauses: a long garbage collection.");

    let b_locks = summaries.clone();
    let b_db = chat_db.clone();
    let worker_b = std::thread::spawn(move || {
        b_locks.hold(
            CHAT,
            |lease| -> Result<(Fence, usize), Box<dyn std::error::Error + Send + Sync>> {
                let changed =
                    save(&b_db, "summary by B", lease.fence()).map_err(|e| e.to_string())?;
                Ok((lease.fence(), changed))
            },
        )
    });
    std::thread::sleep(ttl * 2);
    let (b_fence, b_changed) = worker_b
        .join()
        .map_err(|_| "worker B panicked")?
        .map_err(|e| e.to_string())?;

    println!("\n2. A's lease runs out (A still held: {}).", a.is_held());
    println!("   Worker B holds the key with fence {b_fence} and saves its summary: {b_changed} row changed.");

    let a_changed = save(&chat_db, "summary by A", a.fence())?;
    println!("\n3. A wakes and saves too, with fence {}.", a.fence());
    if a_changed == 0 {
        println!(
            "   chat.db refuses it: {} < {} (0 rows changed).",
            a.fence(),
            b_fence
        );
    } else {
        println!("   chat.db ACCEPTED it: the fence did not protect the write.");
    }
    let released = a.release();
    println!(
        "   A's release says: {}",
        released.err().map_or("ok".to_string(), |e| e.to_string())
    );

    let conn = Connection::open(&chat_db)?;
    let (summary, fence): (String, String) = conn.query_row(
        "select summary, summary_fence from chats where id = ?1",
        [CHAT],
        |row| Ok((row.get(0)?, row.get(1)?)),
    )?;
    println!("\nchat.db keeps: summary = {summary:?}, summary_fence = {fence}");
    store.close()?;
    Ok(if a_changed == 0 && b_changed == 1 {
        0
    } else {
        1
    })
}
