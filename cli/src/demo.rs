//! `tinystore demo`: the README's three steps with real fences. Worker A holds
//! chat 42 and pauses past its TTL; worker B takes the key and saves; A
//! wakes, saves too, and the guard in a real SQLite `chat.db` refuses it.
//! Each save is one transaction: the summary's update and the guard's
//! check-and-record of the fence for the resource `chats/42`.

use rusqlite::Connection;
use std::path::Path;
use std::time::Duration;
use tinystore::blocking::Store;
use tinystore::{guard, Fence};

/// Options of `tinystore demo`.
#[derive(clap::Args)]
pub struct Args {
    /// Worker A's TTL in milliseconds; A pauses for twice as long.
    #[arg(long, default_value_t = 300)]
    ttl_ms: u64,
}

const CHAT: i64 = 42;
const RESOURCE: &str = "chats/42";

/// A guarded save: the update and the guard's check in one transaction,
/// committed only when the guard accepts the fence.
fn save(db: &Path, summary: &str, fence: Fence) -> Result<(), Box<dyn std::error::Error>> {
    let mut conn = Connection::open(db)?;
    let tx = conn.transaction()?;
    tx.execute(
        "update chats set summary = ?1 where id = ?2",
        (summary, CHAT),
    )?;
    guard::rusqlite::check(&tx, RESOURCE, fence)?;
    tx.commit()?;
    Ok(())
}

fn make_chat_db(path: &Path) -> Result<(), Box<dyn std::error::Error>> {
    let conn = Connection::open(path)?;
    conn.execute_batch(
        "create table chats (id integer primary key, summary text not null default '');
         insert into chats (id) values (42);",
    )?;
    guard::rusqlite::ensure(&conn)?;
    Ok(())
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
            |lease| -> Result<Fence, Box<dyn std::error::Error + Send + Sync>> {
                save(&b_db, "summary by B", lease.fence()).map_err(|e| e.to_string())?;
                Ok(lease.fence())
            },
        )
    });
    std::thread::sleep(ttl * 2);
    let b_fence = worker_b
        .join()
        .map_err(|_| "worker B panicked")?
        .map_err(|e| e.to_string())?;

    println!("\n2. A's lease runs out (A still held: {}).", a.is_held());
    println!("   Worker B holds the key with fence {b_fence} and saves its summary: the guard accepts it.");

    println!("\n3. A wakes and saves too, with fence {}.", a.fence());
    let refused = match save(&chat_db, "summary by A", a.fence()) {
        Err(err) => match err
            .downcast_ref::<tinystore::Error>()
            .and_then(|e| e.stale_detail())
        {
            Some(stale) => {
                println!(
                    "   The guard refuses it (stale): {} < {}, recorded for {RESOURCE}; its update rolled back.",
                    stale.fence, stale.largest
                );
                true
            }
            None => return Err(err),
        },
        Ok(()) => {
            println!("   The guard ACCEPTED it: the fence did not protect the write.");
            false
        }
    };
    let released = a.release();
    println!(
        "   A's release says: {}",
        released.err().map_or("ok".to_string(), |e| e.to_string())
    );

    let conn = Connection::open(&chat_db)?;
    let summary: String =
        conn.query_row("select summary from chats where id = ?1", [CHAT], |row| {
            row.get(0)
        })?;
    let recorded: String = conn.query_row(
        "select fence from tinystore_fences where resource = ?1",
        [RESOURCE],
        |row| row.get(0),
    )?;
    println!(
        "\nchat.db keeps: summary = {summary:?}; tinystore_fences keeps {RESOURCE} = {recorded}"
    );
    store.close()?;
    Ok(if refused { 0 } else { 1 })
}
