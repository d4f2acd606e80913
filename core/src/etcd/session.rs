//! One etcd lease shared by every lease this client holds or waits for with
//! the same TTL, as etcd's own `concurrency.Session` does: each entry is
//! attached to it, and one renewal keeps them all. When it runs out on etcd,
//! or no renewal was confirmed for 9/10 of its TTL, every lease on it is lost
//! together (`lost` says so to each lease's watch).
//!
//! etcd counts TTLs in whole seconds and has a minimum (1 s at the least;
//! with default timings 2 s). A TTL below what etcd grants is rounded up to
//! it: `ttl` is what etcd granted, and the lease runs out then.

use super::call::retry;
use super::error_map::map;
use super::members::Members;
use crate::error::{Code, Error, Result};
use crate::vocab::{lost_signal, LostSender, LostSignal};
use etcd_client::{LeaseKeepAliveStream, LeaseKeeper};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;
use tokio::sync::Mutex as AsyncMutex;
use tokio::time::Instant;

/// A shared etcd lease, the stream that renews it (etcd's keep-alive
/// stream), and who uses it.
pub(crate) struct Session {
    client: Members,
    /// The etcd lease id.
    pub(crate) id: i64,
    /// The TTL etcd granted: the request's, rounded up to whole seconds and
    /// to etcd's minimum.
    pub(crate) ttl: Duration,
    keeper: AsyncMutex<Option<(LeaseKeeper, LeaseKeepAliveStream)>>,
    /// When the lease counts as lost unless a renewal is confirmed before:
    /// a tenth of the TTL before a TTL has passed since the last renewal
    /// etcd confirmed was sent (or the grant). etcd keeps the lease at
    /// least a TTL from then, so the holders are told before it can go.
    deadline: Mutex<Instant>,
    /// Why it was lost, once it was.
    lost: LostSender,
    /// How many leases (held or waiting) are attached to it.
    users: AtomicUsize,
    /// Since when nobody uses it.
    idle_since: Mutex<Option<Instant>>,
}

impl Session {
    /// Grants a lease of `seconds` (whole seconds, at least 1).
    pub(crate) async fn grant(client: &Members, seconds: i64) -> Result<Session> {
        let what = format!("granting an etcd lease of {seconds} s");
        let started = Instant::now();
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
        let ttl = Duration::from_secs(reply.ttl().max(seconds) as u64);
        Ok(Session {
            client: client.clone(),
            id: reply.id(),
            ttl,
            keeper: AsyncMutex::new(None),
            deadline: Mutex::new(started + kept_for(ttl)),
            lost: lost_signal().0,
            users: AtomicUsize::new(0),
            idle_since: Mutex::new(None),
        })
    }

    /// When the lease counts as lost unless a renewal is confirmed first.
    pub(crate) fn deadline(&self) -> Instant {
        *self.deadline.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// How many members the cluster's address lists.
    pub(crate) fn members(&self) -> usize {
        self.client.len()
    }

    /// Why the lease was lost, if it was.
    pub(crate) fn lost(&self) -> Option<Error> {
        self.lost.reason()
    }

    /// Told when the lease is lost.
    pub(crate) fn subscribe(&self) -> LostSignal {
        self.lost.subscribe()
    }

    /// Marks the lease lost with `reason`, once, telling every user.
    pub(crate) fn lose(&self, reason: Error) {
        self.lost.tell(reason);
    }

    /// One more lease attached.
    pub(crate) fn join(&self) {
        self.users.fetch_add(1, Ordering::SeqCst);
        *self.idle_since.lock().unwrap_or_else(|p| p.into_inner()) = None;
    }

    /// One lease fewer attached.
    pub(crate) fn leave(&self) {
        if self.users.fetch_sub(1, Ordering::SeqCst) == 1 {
            *self.idle_since.lock().unwrap_or_else(|p| p.into_inner()) = Some(Instant::now());
        }
    }

    /// How long nobody has used it, if nobody does.
    pub(crate) fn idle_for(&self) -> Option<Duration> {
        if self.users.load(Ordering::SeqCst) > 0 {
            return None;
        }
        let since = *self.idle_since.lock().unwrap_or_else(|p| p.into_inner());
        Some(since.map_or(Duration::ZERO, |s| s.elapsed()))
    }

    /// Renews the lease once, over its keep-alive stream (opened on first
    /// use, and again after it broke), waiting for the answer no longer than
    /// `within`. On success the deadline moves to a TTL after the renewal
    /// was sent. Fails with `lease_lost` when etcd says the lease ran out
    /// (and loses it), `unavailable` when etcd did not answer.
    pub(crate) async fn refresh(&self, within: Duration) -> Result<()> {
        let started = Instant::now();
        let member = self.client.current();
        let what = format!("renewing etcd lease {:016x}", self.id);
        let answer = tokio::time::timeout(within, self.refresh_once(&what)).await;
        let answer = match answer {
            Ok(answer) => answer,
            Err(_) => {
                // The stream may be dead (a cut connection): open a new
                // one, on the next member, at the next try.
                if let Ok(mut keeper) = self.keeper.try_lock() {
                    *keeper = None;
                }
                Err(Error::new(
                    Code::Unavailable,
                    format!("{what}: no answer from etcd within {within:?}"),
                ))
            }
        };
        match answer {
            Ok(()) => {
                let mut deadline = self.deadline.lock().unwrap_or_else(|p| p.into_inner());
                *deadline = (*deadline).max(started + kept_for(self.ttl));
                Ok(())
            }
            Err(err) if err.code() == Code::LeaseLost => {
                self.lose(Error::lease_lost(format!(
                    "etcd lease {:016x} ran out on etcd: {}",
                    self.id,
                    err.message()
                )));
                Err(err)
            }
            Err(err) => {
                self.client.failed(member);
                Err(err)
            }
        }
    }

    async fn refresh_once(&self, what: &str) -> Result<()> {
        let mut keeper = self.keeper.lock().await;
        let Some((sender, stream)) = keeper.as_mut() else {
            // Opening the stream sends one renewal and reads its answer.
            let mut lease = self.client.lease_client();
            let opened = lease.keep_alive(self.id).await.map_err(|e| map(what, e))?;
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
                Err(Error::new(
                    Code::Unavailable,
                    format!("{what}: the keep-alive stream ended"),
                ))
            }
            Err(err) => {
                *keeper = None;
                Err(map(what, err))
            }
        }
    }

    /// Revokes the lease, deleting every entry attached to it.
    pub(crate) async fn revoke(&self) -> Result<()> {
        revoke(&self.client, self.id).await
    }
}

/// How long after a confirmed renewal was sent the lease counts as kept:
/// nine tenths of `ttl`, so that its holders are told they lost it before
/// etcd can let it run out (a tenth of the TTL is the margin for telling
/// them, and for the two clocks' rates).
fn kept_for(ttl: Duration) -> Duration {
    ttl - ttl / 10
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
