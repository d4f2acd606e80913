//! The watch over one lease, from the moment its entry is written until it is
//! released: a task that tells the holder the lease is lost when
//!
//! - the shared etcd lease its entry is attached to is lost (etcd says it
//!   ran out, or confirmed no renewal for 9/10 of its TTL: session.rs), which
//!   loses every lease on it together,
//! - a lease held without renewals was not renewed for its TTL (the task
//!   then deletes its entry: the shared etcd lease lives on for the others),
//! - a lease with a `max_hold` reached it: a timer in this client deletes
//!   its entry at `max_hold` after the grant, as a release does, and the
//!   holder is told `lease_lost` naming `max_hold`. The shared etcd lease
//!   cannot stop being renewed for one lease, so the cap is this client's
//!   timer; a `renew()` never moves a lease past it. If the process is
//!   stopped (SIGSTOP) the timer does not run, but neither does the
//!   renewal of the shared etcd lease: the entry then goes with it, at most
//!   its (whole-second) TTL after the last renewal, as any lease of a
//!   stopped process,
//! - its entry disappears from etcd (someone deleted it): told by a watch
//!   opened a second after the entry was written, which also tells a
//!   deletion made before it opened.
//!
//! Ending one lease alone deletes its entry (and, for an election, the
//! leader key its grant wrote), never the shared etcd lease.

use super::call::{retry, retry_unsure};
use super::members::Members;
use super::session::Session;
use crate::error::{Code, Error, Result};
use crate::vocab::{lost_signal, LostSender, LostSignal};
use etcd_client::{
    Compare, CompareOp, EventType, GetOptions, Txn, TxnOp, TxnOpResponse, WatchFilterType,
    WatchOptions, WatchStream,
};
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::Notify;
use tokio::task::AbortHandle;
use tokio::time::Instant;

/// What the watch task and the holder share about one lease.
pub(crate) struct LeaseWatch {
    pub(crate) session: Arc<Session>,
    /// The key as the holder knows it, e.g. `lock summaries/42`.
    pub(crate) what: String,
    /// The entry's etcd key.
    pub(crate) entry: String,
    /// For a campaign, the election's leader key, which its grant writes.
    pub(crate) leader: Option<String>,
    /// The revision of the grant, once granted.
    granted: AtomicI64,
    renewing: AtomicBool,
    /// For a lease held without renewals: a TTL after its grant or its
    /// last `renew()`.
    deadline: Mutex<Instant>,
    /// For a lease with a `max_hold`, once granted: `max_hold` after the
    /// grant was asked, when it ends however renewed.
    ends_by: Mutex<Option<Instant>>,
    /// Wakes the task when the grant changed `renewing`.
    granting: Notify,
    lost: LostSender,
}

impl LeaseWatch {
    /// A watch for entry `entry` on `session`, which it leaves when dropped.
    pub(crate) fn new(
        session: Arc<Session>,
        what: String,
        entry: String,
        leader: Option<String>,
    ) -> Arc<LeaseWatch> {
        let deadline = Instant::now() + session.ttl;
        Arc::new(LeaseWatch {
            session,
            what,
            entry,
            leader,
            granted: AtomicI64::new(0),
            renewing: AtomicBool::new(true),
            deadline: Mutex::new(deadline),
            ends_by: Mutex::new(None),
            granting: Notify::new(),
            lost: lost_signal().0,
        })
    }

    /// Starts the task that watches the lease from etcd revision `from` on.
    /// Abort it before ending the lease.
    pub(crate) fn spawn(self: &Arc<LeaseWatch>, client: Members, from: i64) -> AbortHandle {
        tokio::spawn(run(self.clone(), client, from)).abort_handle()
    }

    /// Ends the lease for its holder with `reason`, once.
    pub(crate) fn lose(&self, reason: Error) {
        self.lost.tell(reason);
    }

    /// Why it was lost, if it was.
    pub(crate) fn lost(&self) -> Option<Error> {
        self.lost.reason()
    }

    /// The signal a `Grant` carries.
    pub(crate) fn signal(&self) -> LostSignal {
        self.lost.subscribe()
    }

    /// Records the grant: held from now, at etcd revision `revision`; kept
    /// by the shared etcd lease with `renewing`, else for a TTL from now
    /// unless `renew()` is called; and, with a `max_hold`, never past
    /// `max_hold` after `asked` (when the grant's write was first sent, so
    /// that the cap is never late).
    pub(crate) fn granted(
        &self,
        revision: i64,
        renewing: bool,
        max_hold: Option<Duration>,
        asked: Instant,
    ) {
        self.granted.store(revision, Ordering::SeqCst);
        *self.deadline.lock().unwrap_or_else(|p| p.into_inner()) =
            Instant::now() + self.session.ttl;
        *self.ends_by.lock().unwrap_or_else(|p| p.into_inner()) = max_hold.map(|m| asked + m);
        self.renewing.store(renewing, Ordering::SeqCst);
        self.granting.notify_one();
    }

    fn deadline(&self) -> Instant {
        *self.deadline.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn ends_by(&self) -> Option<Instant> {
        *self.ends_by.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// When the task must end the lease unless told otherwise before, and
    /// whether that is its `max_hold`: the earlier of its TTL's deadline
    /// (when not renewing) and its `max_hold`.
    fn due(&self) -> Option<(Instant, bool)> {
        let ttl = (!self.renewing.load(Ordering::SeqCst)).then(|| self.deadline());
        match (ttl, self.ends_by()) {
            (Some(ttl), Some(ends_by)) if ttl < ends_by => Some((ttl, false)),
            (_, Some(ends_by)) => Some((ends_by, true)),
            (Some(ttl), None) => Some((ttl, false)),
            (None, None) => None,
        }
    }

    /// What its holder is told when it reaches its `max_hold`.
    fn past_max_hold(&self) -> Error {
        Error::lease_lost(format!(
            "the lease on {} ran out at its max_hold: a lease is not renewed past it",
            self.what
        ))
    }

    /// Renews the shared etcd lease now and moves this lease's deadline a
    /// TTL on; at or past its `max_hold`, fails with `lease_lost` instead
    /// (the lease ends there however renewed). A renewal that etcd refuses
    /// loses the lease (and every other on the same etcd lease). A renewal
    /// whose answer did not come is sent again, to the next member
    /// (renewing twice does no harm), while the shared lease's deadline
    /// allows, and as many times as there are members.
    pub(crate) async fn renew(&self) -> Result<()> {
        let mut tries = 0;
        loop {
            if let Some(reason) = self.lost() {
                return Err(reason);
            }
            if self.ends_by().is_some_and(|end| Instant::now() >= end) {
                // The task ends it (and deletes its entry) now.
                return Err(self.past_max_hold());
            }
            tries += 1;
            let started = Instant::now();
            let within = self
                .session
                .deadline()
                .saturating_duration_since(started)
                .max(Duration::from_millis(50));
            let err = match self.session.refresh(within).await {
                Ok(()) => {
                    *self.deadline.lock().unwrap_or_else(|p| p.into_inner()) =
                        started + self.session.ttl;
                    return Ok(());
                }
                Err(err) => err,
            };
            if let Some(reason) = self.session.lost() {
                let reason = self.lost_with(&reason);
                self.lose(reason.clone());
                return Err(reason);
            }
            let time_left = Instant::now() < self.session.deadline();
            if err.code() != Code::Unavailable || !time_left || tries >= self.session.members() {
                return Err(err);
            }
        }
    }

    fn lost_with(&self, session_lost: &Error) -> Error {
        Error::lease_lost(format!(
            "the lease on {} is lost: {}",
            self.what,
            session_lost.message()
        ))
    }

    /// Deletes the entry (and the leader key its grant wrote): ends this
    /// lease on etcd. Whether this delete removed it, or it was gone.
    pub(crate) async fn delete(&self, client: &Members) -> Result<Deleted> {
        let what = format!("deleting entry {} on etcd", self.entry);
        let entry = self.entry.as_str();
        let Some(leader) = self.leader.as_deref() else {
            let deleted = retry_unsure(client, &what, || {
                let mut kv = client.kv_client();
                async move { kv.delete(entry, None).await }
            })
            .await?;
            return Ok(Deleted::from(deleted.value.deleted() > 0, deleted.unsure));
        };
        let mut granted = self.granted.load(Ordering::SeqCst);
        if granted == 0 {
            // A campaign that gave up may have crossed its grant: the
            // entry's last write is the grant's, if there was one.
            let got = retry(client, &what, || {
                let mut kv = client.kv_client();
                async move {
                    kv.get(entry, Some(GetOptions::new().with_keys_only()))
                        .await
                }
            })
            .await?;
            match got.kvs().first() {
                Some(kv) => granted = kv.mod_revision(),
                None => return Ok(Deleted::Before),
            }
        }
        // The leader key goes only if this grant wrote it.
        let txn = Txn::new()
            .when([Compare::mod_revision(leader, CompareOp::Equal, granted)])
            .and_then([TxnOp::delete(entry, None), TxnOp::delete(leader, None)])
            .or_else([TxnOp::delete(entry, None)]);
        let reply = retry_unsure(client, &what, || {
            let (mut kv, txn) = (client.kv_client(), txn.clone());
            async move { kv.txn(txn).await }
        })
        .await?;
        let deleted = matches!(
            reply.value.op_responses().first(),
            Some(TxnOpResponse::Delete(d)) if d.deleted() > 0
        );
        Ok(Deleted::from(deleted, reply.unsure))
    }

    /// Why the lease ended on etcd without this client ending it: the
    /// shared etcd lease's loss if it was lost, else its entry gone.
    pub(crate) fn ended_before(&self) -> Error {
        match self.session.lost() {
            Some(reason) => self.lost_with(&reason),
            None => Error::lease_lost(format!(
                "the lease on {} ended on etcd before its release: its entry {} was gone \
                 (its etcd lease ran out or was revoked, or someone deleted it)",
                self.what, self.entry
            )),
        }
    }
}

/// What a delete of an entry found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Deleted {
    /// It removed the entry.
    Now,
    /// The entry was gone, and no earlier try of this delete can have
    /// removed it.
    Before,
    /// The entry was gone after a try whose outcome is unknown, which may
    /// have removed it.
    Unsure,
}

impl Deleted {
    fn from(deleted: bool, unsure: bool) -> Deleted {
        match (deleted, unsure) {
            (true, _) => Deleted::Now,
            (false, true) => Deleted::Unsure,
            (false, false) => Deleted::Before,
        }
    }
}

impl Drop for LeaseWatch {
    fn drop(&mut self) {
        self.session.leave();
    }
}

async fn run(watch: Arc<LeaseWatch>, client: Members, mut from: i64) {
    let ttl = watch.session.ttl;
    let session_lost = watch.session.subscribe();
    let mut stream: Option<WatchStream> = None;
    let mut member = client.current();
    // The watch of the entry opens a second (or a third of the TTL, if
    // less) after the entry was written: short holds are released before,
    // and need none. Opened from revision `from`, it still tells a deletion
    // made before it opened.
    let mut open_at = Instant::now() + (ttl / 3).min(Duration::from_secs(1));
    loop {
        if watch.lost().is_some() {
            return;
        }
        if let Some(reason) = watch.session.lost() {
            watch.lose(watch.lost_with(&reason));
            return;
        }
        let due = watch.due();
        let watching = stream.is_some();
        if !watching {
            member = client.current();
        }
        tokio::select! {
            opened = open(&client, &watch.entry, from, ttl / 3, open_at), if !watching => {
                stream = opened;
                if stream.is_none() {
                    client.failed(member);
                    open_at = Instant::now() + Duration::from_millis(100);
                }
            }
            message = next(&mut stream) => match message {
                Ok(Some(reply)) => {
                    if reply.events().iter().any(|e| e.event_type() == EventType::Delete) {
                        watch.lose(Error::lease_lost(format!(
                            "the lease on {} ended on etcd: its entry {} was deleted \
                             (its etcd lease ran out or was revoked, or someone deleted it)",
                            watch.what, watch.entry
                        )));
                        return;
                    }
                    if reply.canceled() {
                        stream = None;
                        from = match still_there(&client, &watch.entry).await {
                            Some(Some(revision)) => revision + 1,
                            Some(None) => {
                                watch.lose(Error::lease_lost(format!(
                                    "the lease on {} ended on etcd: its entry {} is gone",
                                    watch.what, watch.entry
                                )));
                                return;
                            }
                            None => from,
                        };
                    }
                }
                // The watch broke (a member died): open it again after a pause.
                Ok(None) | Err(_) => {
                    stream = None;
                    client.failed(member);
                    open_at = Instant::now() + Duration::from_millis(100);
                }
            },
            _ = session_lost.ended() => {}
            _ = watch.granting.notified() => {}
            _ = sleep_until(due) => {
                // A `renew()` may have moved the deadline meanwhile.
                match watch.due() {
                    Some((at, true)) if Instant::now() >= at => {
                        watch.lose(watch.past_max_hold());
                    }
                    Some((at, false)) if Instant::now() >= at => {
                        watch.lose(Error::lease_lost(format!(
                            "the lease on {} is lost: it was not renewed within its ttl of {ttl:?}",
                            watch.what
                        )));
                    }
                    _ => continue,
                }
                // Apart from this task, which a release that finds the
                // lease lost aborts: the entry must go all the same.
                tokio::spawn(async move {
                    let _ = watch.delete(&client).await;
                });
                return;
            }
        }
    }
}

/// Sleeps until `due`'s instant; forever without one.
async fn sleep_until(due: Option<(Instant, bool)>) {
    match due {
        Some((at, _)) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

/// Watches `entry` for its deletion from revision `from` on, from `at`;
/// `None` when etcd did not answer `within`.
async fn open(
    client: &Members,
    entry: &str,
    from: i64,
    within: Duration,
    at: Instant,
) -> Option<WatchStream> {
    tokio::time::sleep_until(at).await;
    let options = WatchOptions::new()
        .with_start_revision(from)
        .with_filters([WatchFilterType::NoPut]);
    let mut watch = client.watch_client();
    let opening = watch.watch(entry, Some(options));
    match tokio::time::timeout(within, opening).await {
        Ok(Ok(stream)) => Some(stream),
        _ => None,
    }
}

async fn next(
    stream: &mut Option<WatchStream>,
) -> std::result::Result<Option<etcd_client::WatchResponse>, etcd_client::Error> {
    match stream {
        Some(stream) => stream.message().await,
        None => std::future::pending().await,
    }
}

/// `Some(Some(revision))` when `entry` exists (the store's revision then),
/// `Some(None)` when it does not, `None` when etcd did not answer.
async fn still_there(client: &Members, entry: &str) -> Option<Option<i64>> {
    let mut kv = client.kv_client();
    let reply = kv
        .get(entry, Some(GetOptions::new().with_keys_only()))
        .await
        .ok()?;
    let revision = reply.header().map(|h| h.revision()).unwrap_or(0);
    Some((!reply.kvs().is_empty()).then_some(revision))
}
