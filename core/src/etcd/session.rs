//! One etcd lease: each acquire grants its own, with the request's TTL, and
//! attaches its line entry to it. Revoking it deletes the entry; letting it
//! run out does too, on etcd's side.
//!
//! etcd counts TTLs in whole seconds and has a minimum (1 s at the least;
//! with default timings 2 s). A TTL below what etcd grants is rounded up to
//! it: `ttl` is what etcd granted, and the lease runs out then.

use super::call::{map, retry};
use super::members::Members;
use crate::error::{Code, Error, Result};
use etcd_client::{LeaseKeepAliveStream, LeaseKeeper};
use std::time::Duration;
use tokio::sync::Mutex;

/// An etcd lease and the stream that keeps it alive.
pub(crate) struct Session {
    client: Members,
    /// The etcd lease id.
    pub(crate) id: i64,
    /// The TTL etcd granted: the request's, rounded up to whole seconds and
    /// to etcd's minimum.
    pub(crate) ttl: Duration,
    keeper: Mutex<Option<(LeaseKeeper, LeaseKeepAliveStream)>>,
}

impl Session {
    /// Grants a lease of `ttl`, rounded up to whole seconds.
    pub(crate) async fn grant(client: &Members, ttl: Duration) -> Result<Session> {
        let seconds = ttl.as_millis().div_ceil(1000).max(1) as i64;
        let what = format!("granting an etcd lease of {seconds} s");
        let reply = retry(client, &what, || {
            let mut lease = client.lease_client();
            async move { lease.grant(seconds, None).await }
        })
        .await?;
        if !reply.error().is_empty() {
            return Err(Error::new(
                Code::Unavailable,
                format!("{what}: {}", reply.error()),
            ));
        }
        Ok(Session {
            client: client.clone(),
            id: reply.id(),
            ttl: Duration::from_secs(reply.ttl().max(seconds) as u64),
            keeper: Mutex::new(None),
        })
    }

    /// Renews the lease once, over its keep-alive stream (opened on first
    /// use, and again after it broke). Fails with `lease_lost` when etcd
    /// says the lease ran out, `unavailable` when etcd cannot be reached.
    pub(crate) async fn refresh(&self) -> Result<()> {
        let what = format!("renewing etcd lease {:016x}", self.id);
        let mut keeper = self.keeper.lock().await;
        let member = self.client.current();
        let Some((sender, stream)) = keeper.as_mut() else {
            // Opening the stream sends one renewal and reads its answer.
            let mut lease = self.client.lease_client();
            let opened = lease.keep_alive(self.id).await.map_err(|e| {
                let err = map(&what, e);
                if err.code() == Code::Unavailable {
                    self.client.failed(member);
                }
                err
            })?;
            *keeper = Some(opened);
            return Ok(());
        };
        let answer = match sender.keep_alive().await {
            Ok(()) => stream.message().await,
            Err(err) => Err(err),
        };
        match answer {
            Ok(Some(reply)) if reply.ttl() > 0 => Ok(()),
            Ok(Some(_)) => Err(Error::lease_lost(format!("{what}: etcd says it ran out"))),
            Ok(None) => {
                *keeper = None;
                self.client.failed(member);
                Err(Error::new(
                    Code::Unavailable,
                    format!("{what}: the keep-alive stream ended"),
                ))
            }
            Err(err) => {
                *keeper = None;
                self.client.failed(member);
                Err(map(&what, err))
            }
        }
    }

    /// Revokes the lease, deleting its entry. `lease_lost` if it had run out.
    pub(crate) async fn revoke(&self) -> Result<()> {
        revoke(&self.client, self.id).await
    }
}

/// Revokes etcd lease `id`.
pub(crate) async fn revoke(client: &Members, id: i64) -> Result<()> {
    let what = format!("revoking etcd lease {id:016x}");
    retry(client, &what, || {
        let mut lease = client.lease_client();
        async move { lease.revoke(id).await }
    })
    .await
    .map(|_| ())
}
