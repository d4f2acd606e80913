//! etcd, as its users lock: a session lease per client, then the lock API
//! (`Lock` with the lease, `Unlock` with the key it returned).

use super::{LockClient, Peer};
use etcd_client::{Client as Etcd, LockOptions};

pub struct EtcdPeer {
    pub endpoint: String,
    /// The one client (one HTTP/2 connection) every lock client shares,
    /// when made to share one; each still has its own session lease.
    pub shared: Option<Etcd>,
}

impl EtcdPeer {
    /// Clients with a connection each.
    pub fn new(endpoint: String) -> EtcdPeer {
        EtcdPeer {
            endpoint,
            shared: None,
        }
    }

    /// Clients that share one connection.
    pub async fn one_connection(endpoint: String) -> Result<EtcdPeer, String> {
        let etcd = Etcd::connect([endpoint.as_str()], None)
            .await
            .map_err(|e| e.to_string())?;
        Ok(EtcdPeer {
            endpoint,
            shared: Some(etcd),
        })
    }
}

struct Client {
    etcd: Etcd,
    lease: i64,
    held: Option<Vec<u8>>,
}

#[async_trait::async_trait]
impl Peer for EtcdPeer {
    fn name(&self) -> String {
        "etcd".into()
    }

    async fn client(&self) -> Result<Box<dyn LockClient>, String> {
        let mut etcd = match &self.shared {
            Some(etcd) => etcd.clone(),
            None => Etcd::connect([self.endpoint.as_str()], None)
                .await
                .map_err(|e| e.to_string())?,
        };
        let lease = etcd
            .lease_grant(60, None)
            .await
            .map_err(|e| e.to_string())?
            .id();
        Ok(Box::new(Client {
            etcd,
            lease,
            held: None,
        }))
    }
}

#[async_trait::async_trait]
impl LockClient for Client {
    async fn lock(&mut self, key: &str) -> Result<(), String> {
        let options = LockOptions::new().with_lease(self.lease);
        let held = self
            .etcd
            .lock(key, Some(options))
            .await
            .map_err(|e| e.to_string())?;
        self.held = Some(held.key().to_vec());
        Ok(())
    }

    async fn unlock(&mut self) -> Result<(), String> {
        let key = self.held.take().ok_or("unlock without lock")?;
        self.etcd.unlock(key).await.map_err(|e| e.to_string())?;
        Ok(())
    }
}
