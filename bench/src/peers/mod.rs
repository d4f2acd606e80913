//! One lock client per system, all behind one trait: lock a key, unlock it.

pub mod etcd;
pub mod postgres;
pub mod redis;
pub mod tinystore;

/// What the workload needs of a system: a client that locks and unlocks.
#[async_trait::async_trait]
pub trait LockClient: Send {
    /// Takes the lock on `key`, waiting while another client holds it.
    async fn lock(&mut self, key: &str) -> Result<(), String>;
    /// Releases the lock taken by the last `lock`.
    async fn unlock(&mut self) -> Result<(), String>;
}

/// Makes one client per call, each with its own connection, or all over
/// the one connection of a peer made to share one.
#[async_trait::async_trait]
pub trait Peer: Send + Sync {
    /// The system's name in the tables.
    fn name(&self) -> String;
    /// A new client: with its own connection, or on the peer's shared one.
    async fn client(&self) -> Result<Box<dyn LockClient>, String>;
}
