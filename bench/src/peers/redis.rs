//! Redis, as its users lock: `SET key token NX PX ttl`, polled until it
//! succeeds, and a compare-and-delete script to release.

use super::{LockClient, Peer};
use redis::aio::MultiplexedConnection;
use std::time::Duration;

const RELEASE: &str =
    "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";

pub struct Redis {
    pub url: String,
    /// The one connection every client shares, when made to share one: the
    /// redis crate then pipelines the clients' commands on it.
    pub shared: Option<MultiplexedConnection>,
}

impl Redis {
    /// Clients with a connection each.
    pub fn new(url: String) -> Redis {
        Redis { url, shared: None }
    }

    /// Clients that share one connection.
    pub async fn one_connection(url: String) -> Result<Redis, String> {
        let conn = connect(&url).await?;
        Ok(Redis {
            url,
            shared: Some(conn),
        })
    }
}

async fn connect(url: &str) -> Result<MultiplexedConnection, String> {
    let client = redis::Client::open(url).map_err(|e| e.to_string())?;
    client
        .get_multiplexed_async_connection()
        .await
        .map_err(|e| e.to_string())
}

struct Client {
    conn: MultiplexedConnection,
    token: String,
    held: Option<String>,
    release: redis::Script,
    n: u64,
}

#[async_trait::async_trait]
impl Peer for Redis {
    fn name(&self) -> String {
        "Redis".into()
    }

    async fn client(&self) -> Result<Box<dyn LockClient>, String> {
        let conn = match &self.shared {
            Some(conn) => conn.clone(),
            None => connect(&self.url).await?,
        };
        Ok(Box::new(Client {
            conn,
            token: format!("{:x}", rand_u64()),
            held: None,
            release: redis::Script::new(RELEASE),
            n: 0,
        }))
    }
}

fn rand_u64() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(0);
    h.finish()
}

#[async_trait::async_trait]
impl LockClient for Client {
    async fn lock(&mut self, key: &str) -> Result<(), String> {
        self.n += 1;
        let token = format!("{}-{}", self.token, self.n);
        loop {
            let set: Option<String> = redis::cmd("SET")
                .arg(key)
                .arg(&token)
                .arg("NX")
                .arg("PX")
                .arg(15_000)
                .query_async(&mut self.conn)
                .await
                .map_err(|e| e.to_string())?;
            if set.is_some() {
                self.held = Some(key.to_string());
                return Ok(());
            }
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
    }

    async fn unlock(&mut self) -> Result<(), String> {
        let key = self.held.take().ok_or("unlock without lock")?;
        let token = format!("{}-{}", self.token, self.n);
        let _: i64 = self
            .release
            .key(key)
            .arg(token)
            .invoke_async(&mut self.conn)
            .await
            .map_err(|e| e.to_string())?;
        Ok(())
    }
}
