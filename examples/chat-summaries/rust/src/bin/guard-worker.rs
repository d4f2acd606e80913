//! The Rust writer of the guard contention test (tests/guards/README.md has
//! the protocol): takes turns holding one key, writing one resource through
//! the guard on SQLite, PostgreSQL, MySQL/MariaDB (`--db mysql://...`), S3 (`--db s3://BUCKET/KEY`, the
//! endpoint in `TINYSTORE_S3_URL`), Redis (`--db redis://HOST:PORT/`: a
//! script behind the check logs each write), DynamoDB (`--db
//! dynamodb://TABLE`, moto at `TINYSTORE_S3_URL`: the item and a log item in
//! one guarded transaction), Google Cloud Storage (`--db gcs://BUCKET/OBJECT`,
//! `TINYSTORE_GCS_URL`) or Azure Blob (`--db azure://CONTAINER/BLOB`,
//! `TINYSTORE_AZURE_URL`), and says what happened to each write.

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
    /// Under each lease one guarded `TransactWriteItems`: the item
    /// `contention/1` and a log item `log/<fence>/<NAME>/<n>` (n this
    /// writer's count of writes) of TABLE, both `{id, fence, writer}`.
    Dynamo {
        client: aws_sdk_dynamodb::Client,
        table: String,
        writes: u64,
    },
    /// A guarded upload of OBJECT in BUCKET under each lease.
    Gcs {
        client: gcloud_storage::client::Client,
        bucket: String,
        object: String,
    },
    /// A guarded put of BLOB in the client's container under each lease.
    Azure {
        client: object_store::azure::MicrosoftAzure,
        blob: object_store::path::Path,
    },
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

/// The test's variable `name`, or an error that says which mode needs it.
fn env(name: &str, mode: &str) -> Result<String> {
    std::env::var(name).map_err(|_| format!("--db {mode}:// needs {name}").into())
}

/// `BUCKET/NAME` of a `SCHEME://BUCKET/NAME` target, both non-empty.
fn bucket_and_name<'a>(target: &'a str, scheme: &str, names: &str) -> Result<(&'a str, &'a str)> {
    target
        .strip_prefix(scheme)
        .and_then(|rest| rest.split_once('/'))
        .filter(|(b, n)| !b.is_empty() && !n.is_empty())
        .ok_or_else(|| format!("--db {target:?}: expected {scheme}{names}").into())
}

/// A DynamoDB client on moto at `TINYSTORE_S3_URL`, its keys from the
/// environment as with-s3.sh sets them.
fn dynamo_client() -> Result<aws_sdk_dynamodb::Client> {
    use aws_sdk_dynamodb::config::{BehaviorVersion, Credentials, Region};
    let url = env("TINYSTORE_S3_URL", "dynamodb")?;
    let var = |k: &str| std::env::var(k).unwrap_or_else(|_| "test".to_string());
    let config = aws_sdk_dynamodb::Config::builder()
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
        .build();
    Ok(aws_sdk_dynamodb::Client::from_conf(config))
}

/// One item `{id, fence, writer}` of `table` as a transaction's put.
fn dynamo_put(
    table: &str,
    id: &str,
    fence: Fence,
    name: &str,
) -> Result<aws_sdk_dynamodb::types::TransactWriteItem> {
    use aws_sdk_dynamodb::types::{AttributeValue, Put, TransactWriteItem};
    let put = Put::builder()
        .table_name(table)
        .item("id", AttributeValue::S(id.to_string()))
        .item("fence", AttributeValue::S(fence.text()))
        .item("writer", AttributeValue::S(name.to_string()))
        .build()?;
    Ok(TransactWriteItem::builder().put(put).build())
}

impl Db {
    async fn open(target: &str) -> Result<Db> {
        if target.starts_with("dynamodb://") {
            let table = target.trim_start_matches("dynamodb://");
            if table.is_empty() || table.contains('/') {
                return Err(format!("--db {target:?}: expected dynamodb://TABLE").into());
            }
            return Ok(Db::Dynamo {
                client: dynamo_client()?,
                table: table.to_string(),
                writes: 0,
            });
        }
        if target.starts_with("gcs://") {
            let (bucket, object) = bucket_and_name(target, "gcs://", "BUCKET/OBJECT")?;
            let config = gcloud_storage::client::ClientConfig {
                storage_endpoint: env("TINYSTORE_GCS_URL", "gcs")?,
                ..gcloud_storage::client::ClientConfig::default().anonymous()
            };
            return Ok(Db::Gcs {
                client: gcloud_storage::client::Client::new(config),
                bucket: bucket.to_string(),
                object: object.to_string(),
            });
        }
        if target.starts_with("azure://") {
            let (container, blob) = bucket_and_name(target, "azure://", "CONTAINER/BLOB")?;
            let client = object_store::azure::MicrosoftAzureBuilder::new()
                .with_account(env("TINYSTORE_AZURE_ACCOUNT", "azure")?)
                .with_access_key(env("TINYSTORE_AZURE_KEY", "azure")?)
                .with_endpoint(env("TINYSTORE_AZURE_URL", "azure")?)
                .with_container_name(container)
                .with_client_options(object_store::ClientOptions::new().with_allow_http(true))
                .build()?;
            return Ok(Db::Azure {
                client,
                blob: object_store::path::Path::from(blob),
            });
        }
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
    /// when the guard accepts it; on S3, GCS and Azure, the guarded put of
    /// a JSON body.
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
            Db::Dynamo {
                client,
                table,
                writes,
            } => {
                *writes += 1;
                let log = format!("log/{}/{name}/{writes}", fence.text());
                let items = vec![
                    dynamo_put(table, RESOURCE, fence, name)?,
                    dynamo_put(table, &log, fence, name)?,
                ];
                let register = guard::dynamo_check::REGISTER_TABLE;
                Ok(
                    guard::dynamodb::transact_write_items(client, register, RESOURCE, items, fence)
                        .await,
                )
            }
            Db::Gcs {
                client,
                bucket,
                object,
            } => {
                let body = serde_json::json!({"fence": fence.to_string(), "writer": name});
                let object = gcloud_storage::http::objects::Object {
                    name: object.clone(),
                    content_type: Some("application/json".to_string()),
                    ..Default::default()
                };
                let outcome =
                    guard::gcs::upload_object(client, bucket, &object, body.to_string(), fence)
                        .await;
                Ok(outcome.map(drop))
            }
            Db::Azure { client, blob } => {
                let body = serde_json::json!({"fence": fence.to_string(), "writer": name});
                let outcome = guard::azure::put(
                    client,
                    blob,
                    body.to_string().into(),
                    object_store::Attributes::new(),
                    fence,
                )
                .await;
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
