//! The shared etcd leases of one client, one per TTL (in whole seconds),
//! and the task that renews each: it renews every ttl/3, again within
//! ttl/20 after a renewal that failed, and loses the lease when etcd says
//! it ran out or confirmed no renewal for nine tenths of its TTL (so that
//! its holders are told before etcd can let it run out). A lease nobody used
//! for a whole TTL is revoked; the next acquire of that TTL grants another.

use super::members::Members;
use super::session::Session;
use crate::error::{Error, Result};
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Mutex;
use tokio::task::AbortHandle;
use tokio::time::Instant;

/// A shared lease and its keeper task.
type Kept = (Arc<Session>, AbortHandle);

/// The shared leases by TTL in seconds, each with its keeper task.
#[derive(Clone, Default)]
pub(crate) struct Sessions {
    by_ttl: Arc<Mutex<HashMap<i64, Kept>>>,
}

impl Sessions {
    /// The shared lease for `ttl` (rounded up to whole seconds), granted
    /// when there is none (or it was lost), counted as used by one more
    /// lease: the caller's `LeaseWatch` leaves it when dropped.
    pub(crate) async fn take(&self, client: &Members, ttl: Duration) -> Result<Arc<Session>> {
        let seconds = ttl.as_millis().div_ceil(1000).max(1) as i64;
        let mut by_ttl = self.by_ttl.lock().await;
        if let Some((session, _)) = by_ttl.get(&seconds) {
            if session.lost().is_none() {
                session.join();
                return Ok(session.clone());
            }
        }
        let session = Arc::new(Session::grant(client, seconds).await?);
        session.join();
        let task = tokio::spawn(keep(self.clone(), seconds, session.clone())).abort_handle();
        // A lost one it replaces ends its task by itself.
        by_ttl.insert(seconds, (session.clone(), task));
        Ok(session)
    }

    /// Stops keeping every shared lease and revokes each, which deletes
    /// every entry of this client; tells their users `reason`.
    pub(crate) async fn close(&self, reason: Error) {
        let all: Vec<_> = self.by_ttl.lock().await.drain().map(|(_, s)| s).collect();
        let mut revocations = tokio::task::JoinSet::new();
        for (session, task) in all {
            task.abort();
            session.lose(reason.clone());
            revocations.spawn(async move { session.revoke().await });
        }
        while revocations.join_next().await.is_some() {}
    }

    /// Takes `session` out of the table if it is still the one for
    /// `seconds` and, with `idle`, only if nobody uses it: whether it did.
    async fn forget(&self, seconds: i64, session: &Arc<Session>, idle: bool) -> bool {
        let mut by_ttl = self.by_ttl.lock().await;
        let ours = by_ttl
            .get(&seconds)
            .is_some_and(|(s, _)| Arc::ptr_eq(s, session));
        if !ours || (idle && session.idle_for().is_none()) {
            return false;
        }
        by_ttl.remove(&seconds);
        true
    }
}

/// Renews `session` until it is lost, or unused for a whole TTL.
async fn keep(sessions: Sessions, seconds: i64, session: Arc<Session>) {
    let ttl = session.ttl;
    let period = (ttl / 3).max(Duration::from_millis(50));
    let retry = (ttl / 20).clamp(Duration::from_millis(20), Duration::from_millis(200));
    let mut next = Instant::now() + period;
    loop {
        tokio::time::sleep_until(next).await;
        if session.lost().is_some() {
            break;
        }
        if session.idle_for().is_some_and(|idle| idle >= ttl)
            && sessions.forget(seconds, &session, true).await
        {
            session.lose(Error::closed(format!(
                "etcd lease {:016x} was unused for {ttl:?}",
                session.id
            )));
            let _ = session.revoke().await;
            return;
        }
        // No answer after the deadline can keep the lease: wait no longer;
        // and no longer than a period for one member, so that a member cut
        // off without a word (its connection silent) leaves time to renew
        // through the next.
        let within = session
            .deadline()
            .saturating_duration_since(Instant::now())
            .min(period)
            .max(Duration::from_millis(20));
        let step = match session.refresh(within).await {
            Ok(()) => period,
            Err(_) => retry,
        };
        if session.lost().is_some() {
            break;
        }
        if Instant::now() >= session.deadline() {
            session.lose(Error::lease_lost(format!(
                "etcd confirmed no renewal of etcd lease {:016x} for 9/10 of its ttl of {ttl:?} \
                 (etcd may let it run out at the ttl)",
                session.id
            )));
            break;
        }
        next = (Instant::now() + step).min(session.deadline());
    }
    // Lost: the next acquire of this TTL grants a new lease. Revoking frees
    // the keys of its entries now, if etcd still has them.
    sessions.forget(seconds, &session, false).await;
    let _ = session.revoke().await;
}
