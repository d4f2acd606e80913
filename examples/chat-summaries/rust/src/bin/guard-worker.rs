//! The Rust writer of the guard contention test (tests/guards/README.md has
//! the protocol): takes turns holding one key, writing one resource through
//! the guard on SQLite or PostgreSQL, and says what happened to each write.

use std::time::{Duration, Instant};
use tinystore::guard;
use tinystore::{Code, Error, Fence, Store};

type Result<T> = std::result::Result<T, Box<dyn std::error::Error + Send + Sync>>;

const RESOURCE: &str = "contention/1";

struct Args {
    store: String,
    db: String,
    name: String,
    seconds: u64,
    ttl_ms: u64,
}

fn args() -> Result<Args> {
    let mut flags = std::collections::HashMap::new();
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let name = flag
            .strip_prefix("--")
            .ok_or(format!("unexpected argument {flag:?}"))?;
        let value = it.next().ok_or(format!("--{name} needs a value"))?;
        flags.insert(name.to_string(), value);
    }
    let mut take = |k: &str| flags.remove(k).ok_or(format!("--{k} is required"));
    Ok(Args {
        store: take("store")?,
        db: take("db")?,
        name: take("name")?,
        seconds: take("seconds")?.parse()?,
        ttl_ms: take("ttl-ms")?.parse()?,
    })
}

/// Where the writes land.
enum Db {
    Sqlite(rusqlite::Connection),
    Postgres(tokio_postgres::Client),
}

impl Db {
    async fn open(target: &str) -> Result<Db> {
        if target.starts_with("postgres") {
            let (client, connection) =
                tokio_postgres::connect(target, tokio_postgres::NoTls).await?;
            tokio::spawn(connection);
            return Ok(Db::Postgres(client));
        }
        let conn = rusqlite::Connection::open(target)?;
        conn.busy_timeout(Duration::from_secs(10))?;
        Ok(Db::Sqlite(conn))
    }

    /// Logs the write and checks its fence in one transaction, committed
    /// when the guard accepts it.
    async fn write(&mut self, fence: Fence, name: &str) -> Result<std::result::Result<(), Error>> {
        match self {
            Db::Sqlite(conn) => {
                let tx =
                    conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
                tx.execute(
                    "insert into guard_log (fence, writer) values (?1, ?2)",
                    (fence.text(), name),
                )?;
                let outcome = guard::rusqlite::check(&tx, RESOURCE, fence);
                if outcome.is_ok() {
                    tx.commit()?;
                }
                Ok(outcome)
            }
            Db::Postgres(client) => {
                let tx = client.transaction().await?;
                tx.execute(
                    "insert into guard_log (fence, writer) values ($1, $2)",
                    &[&fence.text(), &name],
                )
                .await?;
                let outcome = guard::postgres::check(&tx, RESOURCE, fence).await;
                if outcome.is_ok() {
                    tx.commit().await?;
                }
                Ok(outcome)
            }
        }
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<()> {
    let args = args()?;
    let store = Store::connect(&args.store).await?;
    let locks = store
        .locks("guarded")
        .ttl(Duration::from_millis(args.ttl_ms))
        .renew(false);
    let mut db = Db::open(&args.db).await?;
    let end = Instant::now() + Duration::from_secs(args.seconds);
    while Instant::now() < end {
        let lease = match locks.acquire("1").await {
            Ok(lease) => lease,
            Err(err) => {
                println!("ERROR {} {}", err.code(), err.message());
                continue;
            }
        };
        let fence = lease.fence();
        println!("HELD {fence}");
        tokio::time::sleep(Duration::from_millis(30)).await;
        match db.write(fence, &args.name).await? {
            Ok(()) => println!("ACCEPTED {fence}"),
            Err(err) => match err.stale_detail() {
                Some(stale) if err.code() == Code::Stale => {
                    println!("REFUSED {fence} {}", stale.largest)
                }
                _ => println!("ERROR {} {}", err.code(), err.message()),
            },
        }
        let _ = lease.release().await; // a lease that ran out while stopped
    }
    println!("DONE");
    Ok(())
}
