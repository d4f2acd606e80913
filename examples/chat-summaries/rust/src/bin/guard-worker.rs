//! The Rust writer of the guard contention test (tests/guards/README.md has
//! the protocol): takes turns holding one key, writing one resource through
//! the guard on SQLite, PostgreSQL, MySQL/MariaDB (`--db mysql://...`), S3 (`--db s3://BUCKET/KEY`, the
//! endpoint in `TINYSTORE_S3_URL`) or Redis (`--db redis://HOST:PORT/`: a
//! script behind the check logs each write), and says what happened to each
//! write.

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
    Mysql(mysql_async::Conn),
    /// A guarded put of KEY in BUCKET under each lease.
    S3 {
        client: aws_sdk_s3::Client,
        bucket: String,
        key: String,
    },
    /// The caller's own script behind the check on RESOURCE, logging each
    /// write in a list in its hash slot.
    Redis(redis::aio::MultiplexedConnection),
}

/// The Redis writer's script: the log's entry, then the write.
const REDIS_WRITE: &str = "redis.call('RPUSH', KEYS[2], ARGV[1] .. ' ' .. ARGV[2]) \
                           redis.call('SET', KEYS[1], ARGV[1]) return 1";

/// An S3 client on `TINYSTORE_S3_URL` (path-style), its keys from the
/// environment as with-s3.sh sets them.
fn s3_client() -> Result<aws_sdk_s3::Client> {
    use aws_sdk_s3::config::{BehaviorVersion, Credentials, Region};
    let url = std::env::var("TINYSTORE_S3_URL").map_err(|_| "--db s3:// needs TINYSTORE_S3_URL")?;
    let var = |k: &str| std::env::var(k).unwrap_or_else(|_| "test".to_string());
    let config = aws_sdk_s3::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .endpoint_url(url)
        .region(Region::new(
            std::env::var("AWS_REGION").unwrap_or_else(|_| "us-east-1".to_string()),
        ))
        .credentials_provider(Credentials::new(
            var("AWS_ACCESS_KEY_ID"),
            var("AWS_SECRET_ACCESS_KEY"),
            None,
            None,
            "env",
        ))
        .force_path_style(true)
        .build();
    Ok(aws_sdk_s3::Client::from_conf(config))
}

impl Db {
    async fn open(target: &str) -> Result<Db> {
        if let Some(path) = target.strip_prefix("s3://") {
            let (bucket, key) = path
                .split_once('/')
                .filter(|(b, k)| !b.is_empty() && !k.is_empty())
                .ok_or(format!("--db {target:?}: expected s3://BUCKET/KEY"))?;
            return Ok(Db::S3 {
                client: s3_client()?,
                bucket: bucket.to_string(),
                key: key.to_string(),
            });
        }
        if target.starts_with("redis://") {
            let client = redis::Client::open(target)?;
            return Ok(Db::Redis(client.get_multiplexed_async_connection().await?));
        }
        if target.starts_with("mysql://") {
            let opts = mysql_async::Opts::from_url(target)?;
            return Ok(Db::Mysql(mysql_async::Conn::new(opts).await?));
        }
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
    /// when the guard accepts it; on S3, the guarded put of a JSON body.
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
            Db::Mysql(conn) => {
                use mysql_async::prelude::Queryable;
                let mut tx = conn
                    .start_transaction(mysql_async::TxOpts::default())
                    .await?;
                tx.exec_drop(
                    "insert into guard_log (fence, writer) values (?, ?)",
                    (fence.text(), name),
                )
                .await?;
                let outcome = guard::mysql::check(&mut tx, RESOURCE, fence).await;
                if outcome.is_ok() {
                    tx.commit().await?;
                } else {
                    tx.rollback().await?;
                }
                Ok(outcome)
            }
            Db::S3 {
                client,
                bucket,
                key,
            } => {
                let body = serde_json::json!({"fence": fence.to_string(), "writer": name});
                let outcome =
                    guard::s3::put(client, bucket, key, body.to_string().as_bytes(), fence).await;
                Ok(outcome.map(|_| ()))
            }
            Db::Redis(conn) => {
                let log = format!("{{{RESOURCE}}}:log");
                let args = [fence.text(), name.to_string()];
                let args = [args[0].as_str(), args[1].as_str()];
                let outcome =
                    guard::redis::script(conn, RESOURCE, REDIS_WRITE, &[&log], &args, fence).await;
                Ok(outcome.map(drop))
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
