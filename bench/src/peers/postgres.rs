//! PostgreSQL, as its users lock: `pg_advisory_lock` and
//! `pg_advisory_unlock` on a 64-bit hash of the key, one session per client.

use super::{LockClient, Peer};
use tokio_postgres::{NoTls, Statement};

pub struct Postgres {
    pub conninfo: String,
}

struct Client {
    pg: tokio_postgres::Client,
    lock: Statement,
    unlock: Statement,
    held: Option<i64>,
}

fn key_hash(key: &str) -> i64 {
    // FNV-1a: stable across runs and clients.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in key.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h as i64
}

#[async_trait::async_trait]
impl Peer for Postgres {
    fn name(&self) -> String {
        "PostgreSQL".into()
    }

    async fn client(&self) -> Result<Box<dyn LockClient>, String> {
        let (pg, conn) = tokio_postgres::connect(&self.conninfo, NoTls)
            .await
            .map_err(|e| e.to_string())?;
        tokio::spawn(conn);
        let lock = pg
            .prepare("select pg_advisory_lock($1)")
            .await
            .map_err(|e| e.to_string())?;
        let unlock = pg
            .prepare("select pg_advisory_unlock($1)")
            .await
            .map_err(|e| e.to_string())?;
        Ok(Box::new(Client {
            pg,
            lock,
            unlock,
            held: None,
        }))
    }
}

#[async_trait::async_trait]
impl LockClient for Client {
    async fn lock(&mut self, key: &str) -> Result<(), String> {
        let h = key_hash(key);
        self.pg
            .execute(&self.lock, &[&h])
            .await
            .map_err(|e| e.to_string())?;
        self.held = Some(h);
        Ok(())
    }

    async fn unlock(&mut self) -> Result<(), String> {
        let h = self.held.take().ok_or("unlock without lock")?;
        self.pg
            .execute(&self.unlock, &[&h])
            .await
            .map_err(|e| e.to_string())?;
        Ok(())
    }
}
