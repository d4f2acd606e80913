//! tinystore, through `tinystore serve` or embedded in the bench process:
//! `acquire` then `release`, with the default options (15 s TTL, renew on).

use super::{LockClient, Peer};
use tinystore::{Lease, Locks, Store};

/// Where the tinystore clients reach their store.
pub enum Target {
    /// A server's (or an etcd cluster's) address, each client with its own
    /// connection.
    Served(String),
    /// One store opened in this process, shared by every client.
    Embedded(Store),
    /// One store connected to a server, its one connection shared by
    /// every client (a process's callers share it the same way).
    OneConnection(Store),
}

pub struct Tinystore {
    pub target: Target,
}

impl Tinystore {
    /// The system's name in the tables.
    fn label(&self) -> String {
        match &self.target {
            Target::Served(address) if address.starts_with("etcd://") => "tinystore on etcd".into(),
            Target::Served(_) | Target::OneConnection(_) => "tinystore serve".into(),
            Target::Embedded(_) => "tinystore embedded".into(),
        }
    }
}

struct Client {
    locks: Locks,
    held: Option<Lease>,
    _store: Store,
}

#[async_trait::async_trait]
impl Peer for Tinystore {
    fn name(&self) -> String {
        self.label()
    }

    async fn client(&self) -> Result<Box<dyn LockClient>, String> {
        let store = match &self.target {
            Target::Served(address) => Store::connect(address).await.map_err(|e| e.to_string())?,
            Target::Embedded(store) | Target::OneConnection(store) => store.clone(),
        };
        Ok(Box::new(Client {
            locks: store.locks("bench"),
            held: None,
            _store: store,
        }))
    }
}

#[async_trait::async_trait]
impl LockClient for Client {
    async fn lock(&mut self, key: &str) -> Result<(), String> {
        self.held = Some(self.locks.acquire(key).await.map_err(|e| e.to_string())?);
        Ok(())
    }

    async fn unlock(&mut self) -> Result<(), String> {
        let lease = self.held.take().ok_or("unlock without lock")?;
        lease.release().await.map_err(|e| e.to_string())
    }
}
