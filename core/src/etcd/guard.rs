//! The guard of one etcd lease, from the moment its entry is written until
//! it is released: a task that renews it every ttl/3 while it should be kept
//! alive (always while waiting; after the grant only when the request asked
//! for it) and tells the holder the lease is lost when
//!
//! - a renewal answers that etcd's lease ran out,
//! - no renewal was confirmed for a whole TTL (etcd unreachable), or
//! - its entry disappears from etcd (it ran out there, or someone deleted it).

use super::members::Members;
use super::session::Session;
use crate::engine::LostSignal;
use crate::error::{Code, Error, Result};
use etcd_client::{EventType, GetOptions, WatchFilterType, WatchOptions, WatchStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::watch;
use tokio::task::AbortHandle;
use tokio::time::{Instant, MissedTickBehavior};

/// What the guard task and the holder share about one lease.
pub(crate) struct Guard {
    pub(crate) session: Session,
    /// The key as the holder knows it, e.g. `lock summaries/42`.
    pub(crate) what: String,
    /// The entry's etcd key.
    pub(crate) entry: String,
    renewing: AtomicBool,
    deadline: Mutex<Instant>,
    lost: watch::Sender<Option<Error>>,
}

impl Guard {
    /// A guard for `session`'s entry `entry`, renewing until told otherwise.
    pub(crate) fn new(session: Session, what: String, entry: String) -> Arc<Guard> {
        let deadline = Instant::now() + session.ttl;
        Arc::new(Guard {
            session,
            what,
            entry,
            renewing: AtomicBool::new(true),
            deadline: Mutex::new(deadline),
            lost: watch::channel(None).0,
        })
    }

    /// Starts the task that keeps the lease and watches its entry from etcd
    /// revision `from` on. Abort it before revoking.
    pub(crate) fn spawn(self: &Arc<Guard>, client: Members, from: i64) -> AbortHandle {
        tokio::spawn(run(self.clone(), client, from)).abort_handle()
    }

    /// Ends the lease for its holder with `reason`, once.
    pub(crate) fn lose(&self, reason: Error) {
        self.lost.send_if_modified(|lost| {
            let first = lost.is_none();
            if first {
                *lost = Some(reason);
            }
            first
        });
    }

    /// Why it was lost, if it was.
    pub(crate) fn lost(&self) -> Option<Error> {
        self.lost.borrow().clone()
    }

    /// The signal a `Grant` carries.
    pub(crate) fn signal(&self) -> LostSignal {
        self.lost.subscribe()
    }

    /// Whether the task renews the lease every ttl/3.
    pub(crate) fn set_renewing(&self, on: bool) {
        self.renewing.store(on, Ordering::SeqCst);
    }

    fn deadline(&self) -> Instant {
        *self.deadline.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Renews the lease now and moves its deadline a TTL on; a renewal that
    /// etcd refuses loses the lease.
    pub(crate) async fn renew(&self) -> Result<()> {
        if let Some(reason) = self.lost() {
            return Err(reason);
        }
        let started = Instant::now();
        match tokio::time::timeout(self.session.ttl, self.session.refresh()).await {
            Ok(Ok(())) => {
                *self.deadline.lock().unwrap_or_else(|p| p.into_inner()) =
                    started + self.session.ttl;
                Ok(())
            }
            Ok(Err(err)) if err.code() == Code::LeaseLost => {
                let reason = Error::lease_lost(format!(
                    "the lease on {} ran out on etcd: {}",
                    self.what,
                    err.message()
                ));
                self.lose(reason.clone());
                Err(reason)
            }
            Ok(Err(err)) => Err(err),
            Err(_) => Err(Error::new(
                Code::Unavailable,
                format!(
                    "renewing the lease on {} got no answer from etcd within {:?}",
                    self.what, self.session.ttl
                ),
            )),
        }
    }
}

async fn run(guard: Arc<Guard>, client: Members, mut from: i64) {
    let ttl = guard.session.ttl;
    let mut ticks = tokio::time::interval((ttl / 3).max(Duration::from_millis(50)));
    ticks.set_missed_tick_behavior(MissedTickBehavior::Delay);
    ticks.tick().await;
    let mut stream: Option<WatchStream> = None;
    let mut member = client.current();
    loop {
        if guard.lost().is_some() {
            return;
        }
        if stream.is_none() {
            member = client.current();
            stream = open(&client, &guard.entry, from, ttl / 3).await;
            if stream.is_none() {
                client.failed(member);
            }
        }
        tokio::select! {
            message = next(&mut stream) => match message {
                Ok(Some(reply)) => {
                    if reply.events().iter().any(|e| e.event_type() == EventType::Delete) {
                        guard.lose(Error::lease_lost(format!(
                            "the lease on {} ended on etcd: its entry {} was deleted \
                             (its etcd lease ran out or was revoked)",
                            guard.what, guard.entry
                        )));
                        return;
                    }
                    if reply.canceled() {
                        stream = None;
                        from = match still_there(&client, &guard.entry).await {
                            Some(Some(revision)) => revision + 1,
                            Some(None) => {
                                guard.lose(Error::lease_lost(format!(
                                    "the lease on {} ended on etcd: its entry {} is gone",
                                    guard.what, guard.entry
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
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            },
            _ = ticks.tick() => {
                if guard.renewing.load(Ordering::SeqCst) {
                    let _ = guard.renew().await;
                }
                if guard.lost().is_none() && Instant::now() >= guard.deadline() {
                    guard.lose(Error::lease_lost(format!(
                        "the lease on {} is lost: etcd confirmed no renewal within its ttl of {ttl:?}",
                        guard.what
                    )));
                }
            }
        }
    }
}

/// Watches `entry` for its deletion from revision `from` on; `None` when
/// etcd did not answer `within`.
async fn open(client: &Members, entry: &str, from: i64, within: Duration) -> Option<WatchStream> {
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
