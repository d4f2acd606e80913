//! The members of the cluster, one connection each, and which one calls go
//! to: the same member until it fails as unavailable (dead, or cut off from
//! the leader), then the next. Choosing here, rather than in the gRPC
//! balancer, makes a dead member cost one failed call, not a share of all.

use super::address::EtcdAddress;
use super::error_map;
use crate::error::Result;
use etcd_client::{Client, ConnectOptions, KvClient, LeaseClient, WatchClient};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// How long dialing a member may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);
/// How long one call to etcd may take before it counts as unavailable.
const CALL_TIMEOUT: Duration = Duration::from_secs(5);

/// A connection to each member. Cheap to clone.
#[derive(Clone)]
pub(crate) struct Members {
    clients: Arc<[Client]>,
    current: Arc<AtomicUsize>,
}

impl Members {
    /// Sets up a connection to each member of `address`; they connect at
    /// their first call.
    pub(crate) async fn dial(address: &EtcdAddress) -> Result<Members> {
        let options = ConnectOptions::new()
            .with_connect_timeout(CONNECT_TIMEOUT)
            .with_timeout(CALL_TIMEOUT)
            .with_keep_alive(Duration::from_secs(1), Duration::from_secs(2))
            .with_keep_alive_while_idle(true)
            .with_require_leader(true);
        let mut clients = Vec::new();
        for endpoint in address.endpoints() {
            let client = Client::connect([endpoint.as_str()], Some(options.clone()))
                .await
                .map_err(|e| {
                    error_map::map(&format!("connecting to {endpoint} of {address}"), e)
                })?;
            clients.push(client);
        }
        Ok(Members {
            clients: clients.into(),
            current: Arc::new(AtomicUsize::new(0)),
        })
    }

    /// The member calls go to now.
    pub(crate) fn current(&self) -> usize {
        self.current.load(Ordering::SeqCst)
    }

    /// Moves calls on from member `which` after it failed, unless another
    /// call moved them already.
    pub(crate) fn failed(&self, which: usize) {
        let next = (which + 1) % self.clients.len();
        let _ = self
            .current
            .compare_exchange(which, next, Ordering::SeqCst, Ordering::SeqCst);
    }

    /// How many members there are.
    pub(crate) fn len(&self) -> usize {
        self.clients.len()
    }

    fn client(&self) -> &Client {
        &self.clients[self.current() % self.clients.len()]
    }

    pub(crate) fn kv_client(&self) -> KvClient {
        self.client().kv_client()
    }

    pub(crate) fn lease_client(&self) -> LeaseClient {
        self.client().lease_client()
    }

    pub(crate) fn watch_client(&self) -> WatchClient {
        self.client().watch_client()
    }
}
